/* Benchmark kernel for tests/bench/capture.sh: the cost of one MPI call,
 * with and without capture.  Times COUNT calls of a kind, REPS times, and
 * prints the fastest per-call time (the least disturbed by other load):
 *   calls KIND COUNT REPS
 * KIND: send-null (MPI_Send to MPI_PROC_NULL: a detailed record, no
 * communication), comm-rank (MPI_Comm_rank: a record by name), iprobe
 * (MPI_Iprobe finding nothing: a poll, collapsed into REPEAT), pingpong
 * (MPI_Send and MPI_Recv of 8 bytes between ranks 0 and 1), pwrite (8
 * bytes at offset 0 of a regular file, calls-R.dat in the working
 * directory, removed at the end: a POSIX record, format 1.3), write (8
 * bytes through the file position of that file: the record's offset comes
 * from one lseek, and changes at every call), write-devnull
 * (8 bytes to /dev/null: a descriptor the capture does not track, what
 * every write of the MPI library costs it). */
#include <fcntl.h>
#include <mpi.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  int rank, size, flag;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  const char *kind = argc > 1 ? argv[1] : "send-null";
  long count = argc > 2 ? atol (argv[2]) : 100000;
  int reps = argc > 3 ? atoi (argv[3]) : 10;
  double buf[1] = { 0 }, best = 1e30;
  int pingpong = strcmp (kind, "pingpong") == 0;
  if (pingpong && size < 2) {
    fprintf (stderr, "calls: pingpong needs 2 ranks\n");
    MPI_Abort (MPI_COMM_WORLD, 2);
  }
  char file[64] = "";
  int fd = -1;
  int at = strcmp (kind, "pwrite") == 0, devnull = strcmp (kind, "write-devnull") == 0;
  if (at || devnull || strcmp (kind, "write") == 0) {
    snprintf (file, sizeof file, "calls-%d.dat", rank);
    fd = devnull ? open ("/dev/null", O_WRONLY) : open (file, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (fd < 0) {
      perror (file);
      MPI_Abort (MPI_COMM_WORLD, 2);
    }
  }
  for (int r = 0; r < reps; r++) {
    MPI_Barrier (MPI_COMM_WORLD);
    double t0 = MPI_Wtime ();
    for (long i = 0; i < count; i++) {
      if (pingpong) {
        if (rank == 0) {
          MPI_Send (buf, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
          MPI_Recv (buf, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
          MPI_Recv (buf, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          MPI_Send (buf, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
        }
      } else if (strcmp (kind, "comm-rank") == 0)
        MPI_Comm_rank (MPI_COMM_WORLD, &flag);
      else if (fd >= 0) {
        if ((at ? pwrite (fd, buf, sizeof buf, 0) : write (fd, buf, sizeof buf)) != (ssize_t) sizeof buf)
          MPI_Abort (MPI_COMM_WORLD, 3);
      } else if (strcmp (kind, "iprobe") == 0)
        MPI_Iprobe (MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
      else
        MPI_Send (buf, 1, MPI_DOUBLE, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
    }
    double t = (MPI_Wtime () - t0) / (double) count / (pingpong ? 2 : 1);
    if (t < best)
      best = t;
  }
  if (fd >= 0) {
    close (fd);
    if (!devnull)
      unlink (file);
  }
  if (rank == 0)
    printf ("%s: %.1f ns per call (fastest of %d x %ld)\n", kind, best * 1e9, reps, count);
  MPI_Finalize ();
  return 0;
}
