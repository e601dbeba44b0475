/* A tiny real program for ptireuse's test under valgrind (test-cli.py):
 * ROUNDS sweeps over N doubles inside a marked region, after one sweep
 * that initialises them outside it.
 *
 * With 64-byte lines the array is N / 8 lines.  In the region every line's
 * first reference of a sweep has the other N / 8 - 1 lines in between (the
 * initialising sweep warmed the stack, so none is cold); its other 7
 * references are at distance 0.  The markers' own few stack references
 * (VALGRIND_PRINTF's call) are the only others, and they add a few lines
 * to the first sweep's distances: the default N = 3072 (384 lines, distance
 * 383) keeps them inside the bin [256, 512), which the test allows for. */
#include <pti/reuse-region.h>
#include <stdio.h>
#include <stdlib.h>

int
main (int argc, char **argv)
{
  long n = argc > 1 ? atol (argv[1]) : 3072;
  int rounds = argc > 2 ? atoi (argv[2]) : 3;
  /* 64-byte aligned: the sweep starts on a line boundary */
  double *a = aligned_alloc (64, (size_t) n * sizeof *a);
  if (a == NULL)
    return 1;
  for (long i = 0; i < n; i++)
    a[i] = (double) i;
  volatile double sink = 0;
  double s = 0;
  PTI_REUSE_START ();
  for (int r = 0; r < rounds; r++)
    for (long i = 0; i < n; i++)
      s += a[i];
  PTI_REUSE_STOP ();
  sink = s;
  printf ("sum %g\n", sink);
  free (a);
  return 0;
}
