/* HPC Challenge's timed DGEMM product (DGEMM/tstdgemm.c) on its own: n x n
 * matrices filled with rand(), C = beta C + alpha A B through cblas_dgemm,
 * the cold product then REPS warm ones, each printed with its rate per
 * second of wall time and per second of the process's CPU time (which, on
 * a VM that reports no steal time, still holds the time the hypervisor
 * took the CPU away).  tests/bench/hpcc-2rank.sh runs it alone and beside
 * a copy of itself on the other CPU.
 *
 *   dgemm-pair N [REPS]
 * prints per product:  product=cold|warm n=N wall_s=.. gflops=.. gflops_cpu=.. */
#define _POSIX_C_SOURCE 200809L
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double
seconds (clockid_t clock)
{
  struct timespec t;
  clock_gettime (clock, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

int
main (int argc, char **argv)
{
  int n = argc > 1 ? atoi (argv[1]) : 0, reps = argc > 2 ? atoi (argv[2]) : 3;
  if (n < 1 || reps < 0) {
    fprintf (stderr, "usage: %s N [REPS]  (N >= 1, REPS >= 0)\n", argv[0]);
    return 2;
  }
  size_t nn = (size_t) n * n;
  double *a = malloc (nn * sizeof *a), *b = malloc (nn * sizeof *b), *c = malloc (nn * sizeof *c);
  if (a == NULL || b == NULL || c == NULL) {
    fprintf (stderr, "dgemm-pair: out of memory for n = %d\n", n);
    return 1;
  }
  srand ((unsigned) time (NULL));
  for (size_t i = 0; i < nn; i++) a[i] = rand () / (double) RAND_MAX;
  for (size_t i = 0; i < nn; i++) b[i] = rand () / (double) RAND_MAX;
  for (size_t i = 0; i < nn; i++) c[i] = rand () / (double) RAND_MAX;
  double alpha = a[n / 2], beta = b[n / 2], flops = 2.0 * n * (double) n * n;
  for (int r = 0; r <= reps; r++) {
    double w0 = seconds (CLOCK_MONOTONIC), c0 = seconds (CLOCK_PROCESS_CPUTIME_ID);
    cblas_dgemm (CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, alpha, a, n, b, n, beta, c,
                 n);
    double w = seconds (CLOCK_MONOTONIC) - w0, cpu = seconds (CLOCK_PROCESS_CPUTIME_ID) - c0;
    printf ("product=%s n=%d wall_s=%.6f gflops=%.4f gflops_cpu=%.4f\n", r ? "warm" : "cold", n, w,
            1e-9 * flops / w, 1e-9 * flops / cpu);
  }
  /* c is read so that the products cannot be dropped */
  fprintf (stderr, "checksum %g\n", c[nn / 2]);
  free (a);
  free (b);
  free (c);
  return 0;
}
