/* POSIX file I/O captured by pticapture (FORMAT.md 1.3), on 2 ranks: each
 * rank writes and reads a file of its own with write, pwrite, read and
 * pread, writes one through stdio (fwrite), makes a call that fails, and
 * touches a device and a pipe (which the capture leaves out, as it does a
 * file opened before MPI_Init); then the ranks write one MPI-IO file
 * (MPI_File_write_at, whose own pwrites inside Open MPI must not be
 * recorded).  The ranks take turns (barriers), so in
 * a replay no request of one waits at the file system for the other's:
 * tests/capture/posix-replay.sh works out the io time by hand.
 *
 *   posix-io DIR       (the files are made in DIR, with relative names)
 *
 * Every call is checked: a wrong size or offset here would make the
 * golden's figures lie about what the program did. */
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BLOCK 65536

static void
check (int ok, const char *what, int rank)
{
  if (!ok) {
    fprintf (stderr, "posix-io: rank %d: %s: %s\n", rank, what, strerror (errno));
    MPI_Abort (MPI_COMM_WORLD, 2);
  }
}

/* One rank's POSIX part: sizes and offsets are the golden's. */
static void
posix_part (int rank, char *buf)
{
  char name[64];
  snprintf (name, sizeof name, "posix-%d.dat", rank);
  int fd = open (name, O_CREAT | O_TRUNC | O_RDWR, 0644);
  check (fd >= 0, "open", rank);
  check (write (fd, buf, BLOCK) == BLOCK, "write", rank);                          /* [0, 64 Ki) */
  check (pwrite (fd, buf, BLOCK, 2 * BLOCK) == BLOCK, "pwrite", rank);            /* [128, 192 Ki) */
  check (lseek (fd, 0, SEEK_SET) == 0, "lseek", rank);
  check (read (fd, buf, BLOCK / 2) == BLOCK / 2, "read", rank);                   /* [0, 32 Ki) */
  /* from 160 Ki, 64 Ki asked for: the file ends at 192 Ki, 32 Ki come back */
  check (pread (fd, buf, BLOCK, 5 * BLOCK / 2) == BLOCK / 2, "pread", rank);
  check (close (fd) == 0, "close", rank);

  /* a write on a file opened read-only fails (EBADF): recorded with its
   * error, not replayed */
  fd = open (name, O_RDONLY);
  check (fd >= 0, "open read-only", rank);
  check (write (fd, buf, 16) == -1 && errno == EBADF, "write to a read-only file", rank);
  check (close (fd) == 0, "close", rank);
  /* an open that fails (ENOENT) */
  check (open ("no-such-dir/x", O_RDONLY) == -1 && errno == ENOENT, "open of a missing file", rank);

  /* stdio: fwrite is recorded as the write of what it took, at the
   * stream's position */
  snprintf (name, sizeof name, "stdio-%d.dat", rank);
  FILE *f = fopen (name, "w");
  check (f != NULL, "fopen", rank);
  check (fwrite (buf, 1, 100000, f) == 100000, "fwrite", rank);
  check (fclose (f) == 0, "fclose", rank);

  /* not files: a device and a pipe (a FIFO opened by name) */
  int null = open ("/dev/null", O_WRONLY);
  check (null >= 0, "open /dev/null", rank);
  check (write (null, buf, 100) == 100, "write /dev/null", rank);
  check (close (null) == 0, "close /dev/null", rank);
  snprintf (name, sizeof name, "fifo-%d", rank);
  check (mkfifo (name, 0600) == 0, "mkfifo", rank);
  int fifo = open (name, O_RDWR);   /* Linux: O_RDWR on a FIFO does not block */
  check (fifo >= 0, "open the FIFO", rank);
  check (write (fifo, buf, 10) == 10 && read (fifo, buf, 10) == 10, "the FIFO", rank);
  check (close (fifo) == 0, "close the FIFO", rank);
  check (unlink (name) == 0, "unlink the FIFO", rank);
}

int
main (int argc, char **argv)
{
  if (argc != 2 || chdir (argv[1]) != 0) {
    fprintf (stderr, "usage: posix-io DIR (an existing directory)\n");
    return 2;
  }
  /* a file opened before MPI_Init is not tracked (FORMAT.md 5.4): neither
   * its open nor its write and close after MPI_Init are recorded */
  int early = open ("early.dat", O_CREAT | O_WRONLY | O_APPEND, 0644);
  MPI_Init (&argc, &argv);
  int rank, size;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  char *buf = calloc (1, 2 * BLOCK);
  check (buf != NULL, "calloc", rank);
  check (early >= 0 && write (early, buf, 10) == 10 && close (early) == 0, "early.dat", rank);
  for (int r = 0; r < size; r++) {
    if (r == rank)
      posix_part (rank, buf);
    MPI_Barrier (MPI_COMM_WORLD);
  }

  MPI_File fh;
  check (MPI_File_open (MPI_COMM_WORLD, "mpiio.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY,
                        MPI_INFO_NULL, &fh) == MPI_SUCCESS, "MPI_File_open", rank);
  for (int r = 0; r < size; r++) {
    if (r == rank)
      check (MPI_File_write_at (fh, (MPI_Offset) rank * BLOCK, buf, BLOCK, MPI_BYTE,
                                MPI_STATUS_IGNORE) == MPI_SUCCESS, "MPI_File_write_at", rank);
    MPI_Barrier (MPI_COMM_WORLD);
  }
  check (MPI_File_close (&fh) == MPI_SUCCESS, "MPI_File_close", rank);
  free (buf);
  MPI_Finalize ();
  return 0;
}
