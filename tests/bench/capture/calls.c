/* Benchmark kernel for tests/bench/capture.sh and capture-icount.sh: the
 * cost of one MPI call, with and without capture.  Times COUNT calls of a
 * kind, REPS times, and prints the fastest per-call time (the least
 * disturbed by other load):
 *   calls KIND COUNT REPS
 * KIND: send-null (MPI_Send to MPI_PROC_NULL: a detailed record, no
 * communication), comm-rank (MPI_Comm_rank: a record by name), iprobe
 * (MPI_Iprobe finding nothing: a poll, collapsed into REPEAT), test,
 * testany, testall, testsome (the call on one MPI_Irecv that never
 * completes: a poll finding nothing, as HPC Challenge's RandomAccess makes
 * millions of with MPI_Testany), pingpong (MPI_Send and MPI_Recv of 8 bytes
 * between ranks 0 and 1), pwrite (8 bytes at offset 0 of a regular file,
 * calls-R.dat in the working directory, removed at the end: a POSIX record,
 * format 1.3), write (8 bytes through the file position of that file: the
 * record's offset comes from one lseek, and changes at every call),
 * write-devnull (8 bytes to /dev/null: a descriptor the capture does not
 * track, what every write of the MPI library costs it).
 * The calls are made by calls_loop alone, so that callgrind can count its
 * instructions (--toggle-collect=calls_loop). */
#define _XOPEN_SOURCE 700
#include <fcntl.h>
#include <mpi.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum {
  SEND_NULL, COMM_RANK, IPROBE, TEST, TESTANY, TESTALL, TESTSOME, PINGPONG, PWRITE, WRITE,
  WRITE_DEVNULL
} Kind;

static const char *const kinds[] = { "send-null", "comm-rank", "iprobe", "test", "testany",
                                     "testall", "testsome", "pingpong", "pwrite", "write",
                                     "write-devnull" };

static __attribute__ ((noinline)) void
calls_loop (Kind kind, long count, int rank, int fd, MPI_Request *req)
{
  double buf[1] = { 0 };
  int flag, index, indices[1];
  for (long i = 0; i < count; i++) {
    switch (kind) {
    case SEND_NULL:
      MPI_Send (buf, 1, MPI_DOUBLE, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
      break;
    case COMM_RANK:
      MPI_Comm_rank (MPI_COMM_WORLD, &flag);
      break;
    case IPROBE:
      MPI_Iprobe (MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
      break;
    case TEST:
      MPI_Test (req, &flag, MPI_STATUS_IGNORE);
      break;
    case TESTANY:
      MPI_Testany (1, req, &index, &flag, MPI_STATUS_IGNORE);
      break;
    case TESTALL:
      MPI_Testall (1, req, &flag, MPI_STATUSES_IGNORE);
      break;
    case TESTSOME:
      MPI_Testsome (1, req, &index, indices, MPI_STATUSES_IGNORE);
      break;
    case PINGPONG:
      if (rank == 0) {
        MPI_Send (buf, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
        MPI_Recv (buf, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else if (rank == 1) {
        MPI_Recv (buf, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send (buf, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
      }
      break;
    case PWRITE:
    case WRITE:
    case WRITE_DEVNULL:
      if ((kind == PWRITE ? pwrite (fd, buf, sizeof buf, 0) : write (fd, buf, sizeof buf))
          != (ssize_t) sizeof buf)
        MPI_Abort (MPI_COMM_WORLD, 3);
      break;
    }
  }
}

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  int rank, size;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  const char *name = argc > 1 ? argv[1] : "send-null";
  long count = argc > 2 ? atol (argv[2]) : 100000;
  int reps = argc > 3 ? atoi (argv[3]) : 10;
  double best = 1e30;
  Kind kind = SEND_NULL;
  while (strcmp (kinds[kind], name) != 0)
    if (++kind == sizeof kinds / sizeof *kinds) {
      fprintf (stderr, "calls: unknown kind %s\n", name);
      MPI_Abort (MPI_COMM_WORLD, 2);
    }
  if (kind == PINGPONG && size < 2) {
    fprintf (stderr, "calls: pingpong needs 2 ranks\n");
    MPI_Abort (MPI_COMM_WORLD, 2);
  }
  char file[64] = "";
  int fd = -1;
  if (kind == PWRITE || kind == WRITE || kind == WRITE_DEVNULL) {
    snprintf (file, sizeof file, "calls-%d.dat", rank);
    fd = kind == WRITE_DEVNULL ? open ("/dev/null", O_WRONLY)
                               : open (file, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (fd < 0) {
      perror (file);
      MPI_Abort (MPI_COMM_WORLD, 2);
    }
  }
  MPI_Request req = MPI_REQUEST_NULL;
  double rbuf[1];
  int poll = kind == TEST || kind == TESTANY || kind == TESTALL || kind == TESTSOME;
  if (poll)   /* nobody sends this tag */
    MPI_Irecv (rbuf, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &req);
  for (int r = 0; r < reps; r++) {
    MPI_Barrier (MPI_COMM_WORLD);
    double t0 = MPI_Wtime ();
    calls_loop (kind, count, rank, fd, &req);
    double t = (MPI_Wtime () - t0) / (double) count / (kind == PINGPONG ? 2 : 1);
    if (t < best)
      best = t;
  }
  if (poll) {
    MPI_Cancel (&req);
    MPI_Wait (&req, MPI_STATUS_IGNORE);
  }
  if (fd >= 0) {
    close (fd);
    if (kind != WRITE_DEVNULL)
      unlink (file);
  }
  if (rank == 0)
    printf ("%s: %.1f ns per call (fastest of %d x %ld)\n", name, best * 1e9, reps, count);
  MPI_Finalize ();
  return 0;
}
