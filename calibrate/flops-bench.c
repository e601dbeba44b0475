/* pticalibrate's dense floating-point probe: the rate of the host's own
 * BLAS dgemm (C = A B, n x n, 2 n^3 flops), seed 002's "floating-point
 * issue rate" beside its memory profile.  Written out and compiled on the
 * host being calibrated by pticalibrate (calibrate/README.md).
 *
 *   flops-bench [--lib NAME] [--sizes N,N,...] [--reps R] [--budget-s S]
 *
 * The BLAS is opened with dlopen, not linked: pti gains no build
 * dependency, and the rate is the one of the library the host's programs
 * load (Debian: libblas.so.3, whichever alternative provides it).  Prints
 * per size
 *   dgemm n=N gflops=MED gflops_q1=.. gflops_q3=.. gflops_min=.. gflops_max=..
 *         reps=R preempted=P dirty=D check=RELATIVE_ERROR
 * or, without the library,
 *   noblas text=WHY
 * A sample counts when the process had the CPU for PROBE_CLEAN of it; a
 * disturbed one is taken again (PROBE_TRIES, the budget), else kept as
 * its CPU time (counted in dirty). */
#define _POSIX_C_SOURCE 200809L
#include "probe-stats.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The Fortran interface (gfortran's: the character arguments' hidden
 * lengths last). */
typedef void (*DgemmFn) (const char *transa, const char *transb, const int *m, const int *n,
                         const int *k, const double *alpha, const double *a, const int *lda,
                         const double *b, const int *ldb, const double *beta, double *c,
                         const int *ldc, size_t la, size_t lb);

static void
usage (const char *argv0)
{
  fprintf (stderr, "usage: %s [--lib NAME] [--sizes N,...] [--reps R] [--budget-s S]\n", argv0);
  exit (2);
}

/* One sample: the seconds of one product (its CPU time if disturbed);
 * @clean tells which. */
static double
sample (DgemmFn dgemm, int n, const double *a, const double *b, double *c, int *clean)
{
  const double one = 1, zero = 0;
  double w0 = probe_clock_ns (CLOCK_MONOTONIC), c0 = probe_clock_ns (CLOCK_THREAD_CPUTIME_ID);
  dgemm ("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n, 1, 1);
  double w = probe_clock_ns (CLOCK_MONOTONIC) - w0;
  double cpu = probe_clock_ns (CLOCK_THREAD_CPUTIME_ID) - c0;
  *clean = cpu >= PROBE_CLEAN * w;
  return (*clean ? w : cpu) / 1e9;
}

int
main (int argc, char **argv)
{
  const char *lib = "libblas.so.3", *sizes = "512,1024";
  int reps = 5;
  for (int i = 1; i < argc; i++) {
    if (i + 1 >= argc)
      usage (argv[0]);
    if (strcmp (argv[i], "--lib") == 0)
      lib = argv[++i];
    else if (strcmp (argv[i], "--sizes") == 0)
      sizes = argv[++i];
    else if (strcmp (argv[i], "--reps") == 0)
      reps = atoi (argv[++i]);
    else if (strcmp (argv[i], "--budget-s") == 0)
      probe_set_budget (atof (argv[++i]));
    else
      usage (argv[0]);
  }
  if (reps < 1)
    usage (argv[0]);
  void *h = dlopen (lib, RTLD_NOW | RTLD_LOCAL);
  DgemmFn dgemm = h ? (DgemmFn) dlsym (h, "dgemm_") : NULL;
  if (dgemm == NULL) {
    const char *why = dlerror ();
    printf ("noblas text=%s\n", why ? why : "no dgemm_ in it");
    return 0;
  }
  for (const char *p = sizes; *p != '\0';) {
    int n = atoi (p);
    p += strcspn (p, ",");
    p += *p == ',';
    if (n < 1)
      usage (argv[0]);
    size_t nn = (size_t) n * (size_t) n;
    double *a = malloc (nn * sizeof *a), *b = malloc (nn * sizeof *b), *c = malloc (nn * sizeof *c);
    double *g = malloc ((size_t) reps * sizeof *g);
    if (a == NULL || b == NULL || c == NULL || g == NULL) {
      fprintf (stderr, "flops-bench: out of memory at n=%d\n", n);
      return 1;
    }
    unsigned s = 12345;
    for (size_t k = 0; k < nn; k++) {
      s = s * 1103515245u + 12345u;
      a[k] = (double) (s >> 8) / 16777216.0 - 0.5;
      s = s * 1103515245u + 12345u;
      b[k] = (double) (s >> 8) / 16777216.0 - 0.5;
    }
    int clean;
    sample (dgemm, n, a, b, c, &clean);   /* warm up: pages, caches */
    /* The library really multiplied: C(n-1, 0) = sum_l A(n-1, l) B(l, 0)
     * (column major), against a plain sum. */
    double want = 0;
    for (int l = 0; l < n; l++)
      want += a[(size_t) l * n + (n - 1)] * b[l];
    double check = fabs (c[n - 1] - want) / fmax (fabs (want), 1e-300);
    int preempted = 0, dirty = 0;
    for (int r = 0; r < reps; r++) {
      double t = sample (dgemm, n, a, b, c, &clean);
      for (int tries = 0; !clean && probe_may_retry (tries); tries++) {
        preempted++;
        t = sample (dgemm, n, a, b, c, &clean);
      }
      dirty += !clean;
      g[r] = 2.0 * n * (double) n * n / t / 1e9;
    }
    Stats st = probe_stats (g, reps);
    printf ("dgemm n=%d gflops=%.6g gflops_q1=%.6g gflops_q3=%.6g gflops_min=%.6g "
            "gflops_max=%.6g reps=%d preempted=%d dirty=%d check=%.3g\n", n, st.med, st.q1,
            st.q3, st.min, st.max, reps, preempted, dirty, check);
    fflush (stdout);
    free (a);
    free (b);
    free (c);
    free (g);
  }
  dlclose (h);
  return 0;
}
