/* What an exchange of two processes of a node costs with its buffers where
 * a program leaves them, not where a ping-pong keeps them (issue 13: PTRANS's
 * exchange, wsl/examples/hpcc-ptrans.xml).  tests/bench/ptrans-phases.sh
 * runs it with --states.
 *
 *   mpirun -np 2 exchange-states BYTES [REPS [FILL_BYTES]]
 *
 * One MPI_Sendrecv of BYTES each way between the two ranks, REPS times
 * (default 21, after 2 not counted) in each state of the buffers before it:
 *   warm            nothing between exchanges (what pticalibrate's probe
 *                   measures);
 *   sender-writes   each rank writes its send buffer (a program's pack);
 *   filled          each rank reads and writes FILL_BYTES (default 16 MiB)
 *                   of another array (its other work pushes the buffers
 *                   out);
 *   sender-writes+filled  both.
 * Then, in rank 0 alone, a copy of BYTES from a buffer just written and
 * pushed out so (the second state's and third's) into another: by memcpy
 * whole, and 4096 bytes at a time as the kernel's cross-process copy (CMA)
 * takes the sender's pages.  Prints per state the least, first quartile
 * and median of the slower rank's time (us) and the median's bytes each
 * way per second:
 *   state=warm bytes=.. min_us=.. q1_us=.. median_us=.. gbs=..
 *   copy=whole|pages bytes=.. min_us=.. q1_us=.. median_us=.. gbs=.. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timing.h"

/* Writes every word of @p, a value depending on @round (not a memset). */
static void
write_all (double *p, size_t n, int round)
{
  for (size_t i = 0; i < n; i++)
    p[i] = (double) (i + (size_t) round);
}

/* Reads and writes every word of @p: other work going through its data. */
static void
touch_all (double *p, size_t n)
{
  for (size_t i = 0; i < n; i++)
    p[i] += 1.0;
}

static void
report (const char *key, const char *what, long bytes, double *v, int reps)
{
  qsort (v, reps, sizeof *v, cmp_double);
  printf ("%s=%s bytes=%ld min_us=%.1f q1_us=%.1f median_us=%.1f gbs=%.2f\n", key, what, bytes,
          v[0] * 1e6, v[reps / 4] * 1e6, v[reps / 2] * 1e6, bytes / v[reps / 2] / 1e9);
}

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  int me, np;
  MPI_Comm_rank (MPI_COMM_WORLD, &me);
  MPI_Comm_size (MPI_COMM_WORLD, &np);
  long bytes = argc > 1 ? atol (argv[1]) : 0;
  int reps = argc > 2 ? atoi (argv[2]) : 21;
  long fill = argc > 3 ? atol (argv[3]) : 16L << 20;
  if (np != 2 || bytes < 8 || bytes % 8 != 0 || reps < 1 || fill < 8) {
    if (me == 0)
      fprintf (stderr, "usage: mpirun -np 2 %s BYTES [REPS [FILL_BYTES]]  (BYTES a multiple of "
               "8, REPS >= 1)\n", argv[0]);
    MPI_Finalize ();
    return 2;
  }
  size_t n = (size_t) bytes / sizeof (double), nf = (size_t) fill / sizeof (double);
  double *s = malloc (bytes), *r = malloc (bytes), *f = malloc (nf * sizeof *f);
  double *v = malloc ((size_t) reps * sizeof *v);
  if (!s || !r || !f || !v) {
    fprintf (stderr, "exchange-states: out of memory\n");
    MPI_Abort (MPI_COMM_WORLD, 1);
  }
  write_all (s, n, 0);
  write_all (r, n, 0);
  write_all (f, nf, 0);
  static const char *const states[] = { "warm", "sender-writes", "filled", "sender-writes+filled" };
  for (int st = 0; st < 4; st++) {
    for (int i = -2; i < reps; i++) {
      if (st & 1)
        write_all (s, n, i + 3);
      if (st & 2)
        touch_all (f, nf);
      MPI_Barrier (MPI_COMM_WORLD);
      double t0 = now ();
      MPI_Sendrecv (s, (int) n, MPI_DOUBLE, 1 - me, 0, r, (int) n, MPI_DOUBLE, 1 - me, 0,
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      double t = now () - t0, slow;
      MPI_Allreduce (&t, &slow, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      if (i >= 0)
        v[i] = slow;
    }
    if (me == 0)
      report ("state", states[st], bytes, v, reps);
  }
  if (me == 0)
    for (int pages = 0; pages < 2; pages++) {
      for (int i = -2; i < reps; i++) {
        write_all (s, n, i + 3);
        touch_all (f, nf);
        double t0 = now ();
        if (pages)
          for (long o = 0; o < bytes; o += 4096)
            memcpy ((char *) r + o, (const char *) s + o, bytes - o < 4096 ? bytes - o : 4096);
        else
          memcpy (r, s, bytes);
        if (i >= 0)
          v[i] = now () - t0;
      }
      report ("copy", pages ? "pages" : "whole", bytes, v, reps);
    }
  double sink = r[n / 2] + f[nf / 2];
  if (sink < 0)
    printf ("%g\n", sink);
  free (s);
  free (r);
  free (f);
  free (v);
  MPI_Finalize ();
  return 0;
}
