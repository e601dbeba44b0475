/* STREAM's kernels and their parts, timed by hand: how a core combines the
 * reads and the writes of a loop (models/cpu-mem/README.md, "Reads and
 * writes").  Built as HPC Challenge's STREAM is in Debian (scalar SSE2
 * loads and stores, no non-temporal stores; tests/bench/stream.sh says
 * how that was checked): -O2 -fno-tree-vectorize
 * -fno-tree-loop-distribute-patterns (so that copy stays a loop of loads
 * and stores, not a memcpy call).
 *
 *   kernels BYTES [REPS]
 *
 * BYTES is the working set of the three-vector kernels (3 arrays of
 * BYTES / 24 doubles); every kernel runs over those arrays.  For each
 * kernel one line:
 *   kernel=NAME bytes=BYTES read=R written=W ns_elem=T ns_elem_min=TMIN gbs_rw=G
 *          undisturbed=K tries=N
 * R and W the bytes the loop reads and writes an element (by its source),
 * T the median of the REPS (default 15) undisturbed samples in ns per
 * element, TMIN the fastest, G = (R + W) / T in GB/s; K samples were kept
 * of N taken.  Plain C17 + POSIX. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "probe-stats.h"   /* pticalibrate's: the clock, PROBE_CLEAN */

static volatile double sink;

/* The kernels: each reads and writes whole arrays of n doubles. */
static void k_read1 (double *restrict a, const double *restrict b, const double *restrict c, size_t n, double q)
{ double s0 = 0, s1 = 0, s2 = 0, s3 = 0; (void) a; (void) c; (void) q;
  for (size_t j = 0; j + 4 <= n; j += 4) { s0 += b[j]; s1 += b[j + 1]; s2 += b[j + 2]; s3 += b[j + 3]; }
  sink = s0 + s1 + s2 + s3; }
static void k_read2 (double *restrict a, const double *restrict b, const double *restrict c, size_t n, double q)
{ double s0 = 0, s1 = 0, s2 = 0, s3 = 0; (void) a; (void) q;
  for (size_t j = 0; j + 2 <= n; j += 2) { s0 += b[j]; s1 += b[j + 1]; s2 += c[j]; s3 += c[j + 1]; }
  sink = s0 + s1 + s2 + s3; }
static void k_write (double *restrict a, const double *restrict b, const double *restrict c, size_t n, double q)
{ (void) b; (void) c; for (size_t j = 0; j < n; j++) a[j] = q; }
static void k_copy (double *restrict a, const double *restrict b, const double *restrict c, size_t n, double q)
{ (void) c; (void) q; for (size_t j = 0; j < n; j++) a[j] = b[j]; }
static void k_scale (double *restrict a, const double *restrict b, const double *restrict c, size_t n, double q)
{ (void) c; for (size_t j = 0; j < n; j++) a[j] = q * b[j]; }
static void k_add (double *restrict a, const double *restrict b, const double *restrict c, size_t n, double q)
{ (void) q; for (size_t j = 0; j < n; j++) a[j] = b[j] + c[j]; }
static void k_triad (double *restrict a, const double *restrict b, const double *restrict c, size_t n, double q)
{ for (size_t j = 0; j < n; j++) a[j] = b[j] + q * c[j]; }
/* a read-modify-write stream: its line is read anyway, so no write-allocate read is extra */
static void k_update (double *restrict a, const double *restrict b, const double *restrict c, size_t n, double q)
{ (void) b; (void) c; for (size_t j = 0; j < n; j++) a[j] = q * a[j]; }

static const struct {
  const char *name;
  void (*fn) (double *restrict, const double *restrict, const double *restrict, size_t, double);
  int read, written;   /* bytes an element, by the source */
} kernels[] = {
  { "read1", k_read1, 8, 0 },  { "read2", k_read2, 16, 0 }, { "write", k_write, 0, 8 },
  { "update", k_update, 8, 8 }, { "copy", k_copy, 8, 8 },   { "scale", k_scale, 8, 8 },
  { "add", k_add, 16, 8 },     { "triad", k_triad, 16, 8 },
};

int
main (int argc, char **argv)
{
  if (argc < 2) {
    fprintf (stderr, "usage: kernels BYTES [REPS]\n");
    return 2;
  }
  size_t n = (size_t) strtoull (argv[1], NULL, 10) / 24;
  int reps = argc > 2 ? atoi (argv[2]) : 15;
  if (n < 64 || reps < 1 || reps > 1000) {
    fprintf (stderr, "kernels: BYTES at least 1536, REPS 1 to 1000\n");
    return 2;
  }
  double *a = aligned_alloc (64, (n * 8 + 63) / 64 * 64), *b = aligned_alloc (64, (n * 8 + 63) / 64 * 64),
         *c = aligned_alloc (64, (n * 8 + 63) / 64 * 64);
  if (!a || !b || !c)
    return 1;
  for (size_t j = 0; j < n; j++)   /* every page touched before timing */
    a[j] = 1, b[j] = 2, c[j] = 3;
  /* samples of at least 1 ms, so that the clock's cost is nothing, and short,
   * so that some run undisturbed on a shared host: a sample during which the
   * process lost the CPU (thread CPU time under 97% of the wall time) is
   * taken again, up to 40 times the samples wanted */
  long passes = (long) (1e6 / (n * 0.3)) + 1;
  double *t = malloc ((size_t) reps * sizeof *t);
  for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; k++) {
    int kept = 0, tries = 0;
    for (int r = -1; kept < reps && tries < 40 * reps; r++) {   /* r = -1 warms up */
      double c0 = probe_clock_ns (CLOCK_THREAD_CPUTIME_ID), t0 = probe_clock_ns (CLOCK_MONOTONIC);
      for (long p = 0; p < passes; p++)
        kernels[k].fn (a, b, c, n, 0.5 + 1e-9 * p);
      double t1 = probe_clock_ns (CLOCK_MONOTONIC), c1 = probe_clock_ns (CLOCK_THREAD_CPUTIME_ID);
      if (r < 0)
        continue;
      tries++;
      if (c1 - c0 >= PROBE_CLEAN * (t1 - t0))
        t[kept++] = (t1 - t0) / ((double) passes * n);
    }
    if (kept == 0) {
      printf ("kernel=%s bytes=%zu undisturbed=0 tries=%d\n", kernels[k].name, n * 24, tries);
      continue;
    }
    qsort (t, (size_t) kept, sizeof *t, probe_cmp_double);
    printf ("kernel=%s bytes=%zu read=%d written=%d ns_elem=%.4f ns_elem_min=%.4f "
            "gbs_rw=%.2f undisturbed=%d tries=%d\n",
            kernels[k].name, n * 24, kernels[k].read, kernels[k].written, t[kept / 2], t[0],
            (kernels[k].read + kernels[k].written) / t[kept / 2], kept, tries);
    fflush (stdout);
  }
  free (t);
  free (a), free (b), free (c);
  return 0;
}
