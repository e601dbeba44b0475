/* STREAM's triad, a[i] = b[i] + q c[i], ROUNDS times over N doubles, as the
 * kernel of tests/bench/reuse.sh (the accuracy suite's STREAM is HPC
 * Challenge's, a Debian binary without markers): the marked region is the
 * timed loop, after one pass that initialises the arrays outside it.
 *
 *     triad N ROUNDS      prints time_s=... (the region's wall time) */
#include "../../../memtrace/include/pti/reuse-region.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double
now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

int
main (int argc, char **argv)
{
  if (argc != 3) {
    fprintf (stderr, "usage: triad N ROUNDS\n");
    return 2;
  }
  long n = atol (argv[1]);
  int rounds = atoi (argv[2]);
  double *a = aligned_alloc (64, (size_t) n * sizeof *a + 64);
  double *b = aligned_alloc (64, (size_t) n * sizeof *b + 64);
  double *c = aligned_alloc (64, (size_t) n * sizeof *c + 64);
  if (n <= 0 || rounds <= 0 || a == NULL || b == NULL || c == NULL)
    return 2;
  for (long i = 0; i < n; i++) {
    a[i] = 0;
    b[i] = 1;
    c[i] = 2;
  }
  const double q = 3;
  double t0 = now ();
  PTI_REUSE_START ();
  for (int r = 0; r < rounds; r++)
    for (long i = 0; i < n; i++)
      a[i] = b[i] + q * c[i];
  PTI_REUSE_STOP ();
  double t = now () - t0;
  printf ("time_s=%.9f check=%g\n", t, a[n / 2]);
  free (a);
  free (b);
  free (c);
  return 0;
}
