/* The SpMV of tests/accuracy/programs/cg-real.c alone, on a matrix whose
 * rows all have N non-zeros (cg-real's have about nonzer (nonzer + 1) + 1),
 * columns at random over NC values of the gathered vector, NNZ non-zeros in
 * all: its time per non-zero against the row length and the working set
 * (tests/bench/cg-kernels.sh --probe prints a sweep of both).
 *
 *   spmv-probe N NNZ NC
 *
 * Prints `n=N nnz=.. nc=NC ws_mib=.. ns_per_nnz=T`, T the smallest of 7
 * samples of the thread's CPU time (each enough SpMVs for 5e7 non-zeros),
 * the same loop as cg-real's matvec (built at -O2: one add into the row's
 * sum per non-zero, a chain the row's sum = 0 restarts). */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double
cpu_s (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* noinline: the loop compiled as cg-real's matvec is, not specialised on N */
__attribute__ ((noinline)) static void
spmv (long nr, const long *rowstr, const int *colidx, const double *a, const double *p,
      double *w)
{
  for (long j = 0; j < nr; j++) {
    double sum = 0;
    for (long k = rowstr[j]; k < rowstr[j + 1]; k++)
      sum += a[k] * p[colidx[k]];
    w[j] = sum;
  }
}

int
main (int argc, char **argv)
{
  if (argc != 4) {
    fprintf (stderr, "usage: spmv-probe N NNZ NC\n");
    return 2;
  }
  long n = atol (argv[1]), nnz = atol (argv[2]), nc = atol (argv[3]);
  if (n < 1 || nnz < n || nc < 1 || nc > 1L << 30) {
    fprintf (stderr, "spmv-probe: need 1 <= N <= NNZ and 1 <= NC <= 2^30\n");
    return 2;
  }
  long nr = nnz / n;
  nnz = nr * n;
  long *rowstr = malloc ((size_t) (nr + 1) * sizeof *rowstr);
  int *colidx = malloc ((size_t) nnz * sizeof *colidx);
  double *a = malloc ((size_t) nnz * sizeof *a), *p = malloc ((size_t) nc * sizeof *p);
  double *w = malloc ((size_t) nr * sizeof *w);
  if (!rowstr || !colidx || !a || !p || !w) {
    fprintf (stderr, "spmv-probe: out of memory\n");
    return 1;
  }
  uint64_t s = 88172645463325252ull;   /* xorshift: columns at random, as cg-real's */
  for (long j = 0; j <= nr; j++)
    rowstr[j] = j * n;
  for (long k = 0; k < nnz; k++) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    colidx[k] = (int) (s % (uint64_t) nc);
    a[k] = 1e-3 * (double) (k % 7);
  }
  for (long j = 0; j < nc; j++)
    p[j] = 1;
  long reps = 50000000 / nnz + 1;
  double best = 1e300;
  for (int t = 0; t < 7; t++) {
    double t0 = cpu_s ();
    for (long r = 0; r < reps; r++) {
      spmv (nr, rowstr, colidx, a, p, w);
      p[r % nc] += w[r % nr] * 1e-30;   /* each SpMV depends on the last: none is dropped */
    }
    double dt = (cpu_s () - t0) / (double) reps / (double) nnz * 1e9;
    if (dt < best)
      best = dt;
  }
  printf ("n=%ld nnz=%ld nc=%ld ws_mib=%.2f ns_per_nnz=%.4f\n", n, nnz, nc,
          ((double) nnz * 12 + (double) nr * 16 + (double) nc * 8) / 1048576.0, best);
  free (rowstr);
  free (colidx);
  free (a);
  free (p);
  free (w);
  return 0;
}
