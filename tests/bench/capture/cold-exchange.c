/* What an exchange costs when the ranks compute between their messages, as
 * LAMMPS's melt does (capture/README.md, "On the Zen 4 host"): each of the
 * two ranks posts MPI_Irecv, updates W bytes of an array of its own (a
 * streaming read-modify-write: the program's computation), writes its
 * send buffer (the pack), then MPI_Send and MPI_Wait, ITERS times.  The
 * exchange is timed from the later rank's MPI_Send to rank 0's MPI_Wait end,
 * on CLOCK_MONOTONIC, one clock for the processes of one host: the earlier
 * rank's wait for the later one is left out.  tests/bench/cold-exchange.sh
 * runs it.
 *
 *   mpirun -np 2 cold-exchange BYTES W ITERS
 *
 * Prints, from the last 90% of the exchanges, the median and quartiles in us. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double
now_ns (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

static int
by_value (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  int rank, size;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  if (size != 2 || argc != 4 || atoi (argv[1]) < 8 || atol (argv[2]) < 0 || atoi (argv[3]) < 10) {
    if (rank == 0)
      fprintf (stderr, "usage: mpirun -np 2 %s BYTES W ITERS (BYTES >= 8, ITERS >= 10)\n", argv[0]);
    MPI_Finalize ();
    return 2;
  }
  int n = atoi (argv[1]), iters = atoi (argv[3]);
  long words = atol (argv[2]) / 8;
  char *sbuf = malloc (n), *rbuf = malloc (n);
  double *work = malloc ((size_t) (words > 0 ? words : 1) * sizeof (double));
  double *t_send = malloc (iters * sizeof (double)), *t_end = malloc (iters * sizeof (double));
  double *t_other = malloc (iters * sizeof (double));
  if (!sbuf || !rbuf || !work || !t_send || !t_end || !t_other)
    MPI_Abort (MPI_COMM_WORLD, 1);
  for (long i = 0; i < words; i++)
    work[i] = (double) i;
  memset (sbuf, 1, n);
  memset (rbuf, 0, n);
  volatile char sink = 0;
  for (int k = 0; k < iters; k++) {
    MPI_Request req;
    MPI_Irecv (rbuf, n, MPI_BYTE, 1 - rank, 0, MPI_COMM_WORLD, &req);
    for (long i = 0; i < words; i++)
      work[i] = work[i] * 1.0000001 + 1.0;
    for (int i = 0; i + 8 <= n; i += 8) {
      long v = k + i;
      memcpy (sbuf + i, &v, 8);
    }
    t_send[k] = now_ns ();
    MPI_Send (sbuf, n, MPI_BYTE, 1 - rank, 0, MPI_COMM_WORLD);
    MPI_Wait (&req, MPI_STATUS_IGNORE);
    t_end[k] = now_ns ();
    sink += rbuf[0];
  }
  MPI_Sendrecv (t_send, iters, MPI_DOUBLE, 1 - rank, 1, t_other, iters, MPI_DOUBLE, 1 - rank, 1,
                MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (rank == 0) {
    int first = iters / 10, m = 0;
    double *d = malloc ((iters - first) * sizeof (double));
    for (int k = first; k < iters; k++)
      d[m++] = t_end[k] - (t_send[k] > t_other[k] ? t_send[k] : t_other[k]);
    qsort (d, m, sizeof (double), by_value);
    printf ("bytes=%d work=%ld median_us=%.3f q1_us=%.3f q3_us=%.3f exchanges=%d\n", n,
            words * 8, d[m / 2] / 1e3, d[m / 4] / 1e3, d[3 * m / 4] / 1e3, m);
    free (d);
  }
  free (sbuf); free (rbuf); free (work); free (t_send); free (t_end); free (t_other);
  MPI_Finalize ();
  return 0;
}
