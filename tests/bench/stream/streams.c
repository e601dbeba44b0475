/* Read bandwidth of 1, 2 and 3 sequential streams over the same total
 * working set: whether several read streams drain faster than one
 * (models/cpu-mem/README.md, "Measured: STREAM and PTRANS").  Integer
 * sums, 8 independent ones, built like pticalibrate's memory probe (-O2
 * without vectorisation): the loads, not the adds, set the pace.
 *
 *   streams BYTES [REPS]
 *
 * One line per stream count: streams=K bytes=BYTES gbs=G undisturbed=N,
 * G the median of REPS (default 9) undisturbed samples (thread CPU time at
 * least 97% of the wall time), in GB/s of data read.  Plain C17 + POSIX. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "probe-stats.h"   /* pticalibrate's: the clock, PROBE_CLEAN */

static volatile uint64_t sink;

/* Sum every word of @n, read as @k streams of n/k words side by side. */
static void
sum_streams (const uint64_t *p, size_t n, int k)
{
  size_t m = n / (size_t) k;
  uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
  const uint64_t *a = p, *b = p + m, *c = p + 2 * m;
  if (k == 1) {
    for (size_t i = 0; i + 8 <= m; i += 8) {
      s0 += a[i]; s1 += a[i + 1]; s2 += a[i + 2]; s3 += a[i + 3];
      s4 += a[i + 4]; s5 += a[i + 5]; s6 += a[i + 6]; s7 += a[i + 7];
    }
  } else if (k == 2) {
    for (size_t i = 0; i + 4 <= m; i += 4) {
      s0 += a[i]; s1 += a[i + 1]; s2 += a[i + 2]; s3 += a[i + 3];
      s4 += b[i]; s5 += b[i + 1]; s6 += b[i + 2]; s7 += b[i + 3];
    }
  } else {
    for (size_t i = 0; i + 2 <= m; i += 2) {
      s0 += a[i]; s1 += a[i + 1]; s2 += b[i]; s3 += b[i + 1];
      s4 += c[i]; s5 += c[i + 1];
    }
  }
  sink = s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7;
}

int
main (int argc, char **argv)
{
  if (argc < 2) {
    fprintf (stderr, "usage: streams BYTES [REPS]\n");
    return 2;
  }
  size_t bytes = (size_t) strtoull (argv[1], NULL, 10), n = bytes / 8;
  int reps = argc > 2 ? atoi (argv[2]) : 9;
  if (n < 1024 || reps < 1 || reps > 1000) {
    fprintf (stderr, "streams: BYTES at least 8192, REPS 1 to 1000\n");
    return 2;
  }
  uint64_t *p = aligned_alloc (4096, (bytes + 4095) / 4096 * 4096);
  double *t = malloc ((size_t) reps * sizeof *t);
  if (p == NULL || t == NULL)
    return 1;
  for (size_t i = 0; i < n; i++)   /* every page touched before timing */
    p[i] = i;
  long passes = (long) (3e6 / (n * 0.1)) + 1;   /* samples of about 1 ms or more */
  for (int k = 1; k <= 3; k++) {
    int kept = 0, tries = 0;
    sum_streams (p, n, k);   /* warm-up */
    while (kept < reps && tries < 20 * reps) {
      tries++;
      double c0 = probe_clock_ns (CLOCK_THREAD_CPUTIME_ID), t0 = probe_clock_ns (CLOCK_MONOTONIC);
      for (long r = 0; r < passes; r++)
        sum_streams (p, n, k);
      double t1 = probe_clock_ns (CLOCK_MONOTONIC), c1 = probe_clock_ns (CLOCK_THREAD_CPUTIME_ID);
      if (c1 - c0 >= PROBE_CLEAN * (t1 - t0))
        t[kept++] = (t1 - t0) / ((double) passes * n);
    }
    qsort (t, (size_t) kept, sizeof *t, probe_cmp_double);
    printf ("streams=%d bytes=%zu gbs=%.1f undisturbed=%d tries=%d\n", k, bytes,
            kept ? 8 / t[kept / 2] : 0.0, kept, tries);
    fflush (stdout);
  }
  free (t);
  free (p);
  return 0;
}
