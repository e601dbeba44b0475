/* The host BLAS's rate for the three kinds of call HPL's time goes to
 * (tests/bench/hpcc-hpl-blas.sh): C -= A B (dgemm NoTrans NoTrans, HPL's
 * update of the trailing matrix, inner dimension nb), C -= A B^T (dgemm
 * NoTrans Trans, the products of HPL's recursive right-looking panel
 * factorisation, inner dimension nb / 2 and less), and B = A^-T B (dtrsm
 * Left Upper Trans Unit, HPL's solve of the nb rows of U), on the leading
 * dimension of an n x n matrix; each dgemm also at the other's shape
 * (the reference dgemm's NoTrans and Trans loops over C's rows are the
 * same instructions at two addresses: whether the shape or the loop makes
 * the difference); and, for comparison, C = A B for 1024 x 1024 matrices
 * of their own (pticalibrate's flop_rate, calibrate/README.md).
 * Each the median of 9 timings (each of enough calls for about 10 ms).
 *
 *   blas-rates [N [NB]]      (N 2000, NB 80)
 * prints per kind:  kind=.. m=.. n=.. k=.. gflops=.. */
#define _POSIX_C_SOURCE 200809L
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include "timing.h"

enum { RUNS = 9 };

static double *
filled (size_t count)
{
  double *v = malloc (count * sizeof *v);
  if (v == NULL) {
    fprintf (stderr, "blas-rates: out of memory\n");
    exit (1);
  }
  for (size_t i = 0; i < count; i++)
    v[i] = rand () / (double) RAND_MAX;
  return v;
}

/* kind 0: dgemm NN, 1: dgemm NT, 2: dtrsm LUTU (m = k rows of B, n columns) */
static void
call (int kind, int m, int n, int k, const double *a, int lda, const double *b, int ldb,
         double *c, int ldc)
{
  if (kind == 2)
    cblas_dtrsm (CblasColMajor, CblasLeft, CblasUpper, CblasTrans, CblasUnit, k, n, 1.0, a, lda,
                 c, ldc);
  else
    cblas_dgemm (CblasColMajor, CblasNoTrans, kind == 1 ? CblasTrans : CblasNoTrans, m, n, k,
                 -1e-9, a, lda, b, ldb, 1.0, c, ldc);
}

static void
rate (const char *name, int kind, int m, int n, int k, const double *a, int lda, const double *b,
      int ldb, double *c, int ldc)
{
  double flops = kind == 2 ? (double) k * k * n : 2.0 * m * n * k, t[RUNS];
  int reps = (int) (1e-2 * 4e9 / flops) + 1; /* about 10 ms at 4 GFlop/s */
  call (kind, m, n, k, a, lda, b, ldb, c, ldc); /* warm-up */
  for (int r = 0; r < RUNS; r++) {
    double t0 = now ();
    for (int q = 0; q < reps; q++)
      call (kind, m, n, k, a, lda, b, ldb, c, ldc);
    t[r] = (now () - t0) / reps;
  }
  qsort (t, RUNS, sizeof *t, cmp_double);
  printf ("kind=%s m=%d n=%d k=%d gflops=%.3f\n", name, m, n, k, flops / t[RUNS / 2] / 1e9);
}

int
main (int argc, char **argv)
{
  int n = argc > 1 ? atoi (argv[1]) : 2000, nb = argc > 2 ? atoi (argv[2]) : 80;
  if (n < 2 * nb || nb < 2) {
    fprintf (stderr, "usage: %s [N [NB]]  (N >= 2 NB, NB >= 2)\n", argv[0]);
    return 2;
  }
  srand (1);
  double *a = filled ((size_t) n * n), *c = filled ((size_t) n * n);
  double *sa = filled (1024 * 1024), *sb = filled (1024 * 1024), *sc = filled (1024 * 1024);
  /* the update: the nb columns below the panel times nb rows of U, into
   * the trailing columns (a chunk of 4 nb of them) */
  rate ("dgemm-NN", 0, n - nb, 4 * nb, nb, a, n, a, n, c, n);
  rate ("dgemm-NT", 1, n - nb, nb / 2, nb / 2, a, n, a + nb / 2, n, c, n);
  rate ("dgemm-NN-NTshape", 0, n - nb, nb / 2, nb / 2, a, n, a + nb / 2, n, c, n);
  rate ("dgemm-NT-NNshape", 1, n - nb, 4 * nb, nb, a, n, a, n, c, n);
  rate ("dtrsm-LUTU", 2, 0, n - nb, nb, a, nb, NULL, 0, c, n);
  rate ("dgemm-NN-1024", 0, 1024, 1024, 1024, sa, 1024, sb, 1024, sc, 1024);
  return 0;
}
