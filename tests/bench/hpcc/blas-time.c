/* The time of every CBLAS call a program makes, preloaded (LD_PRELOAD) into
 * Debian's hpcc, which calls its BLAS through CBLAS only (cblas_dgemm,
 * cblas_dtrsm, cblas_idamax, cblas_dscal, cblas_daxpy, cblas_dcopy,
 * cblas_dger, cblas_dgemv, cblas_dtrsv: `nm -D /usr/bin/hpcc`).  Each
 * wrapper calls the library's own function (dlsym RTLD_NEXT) between two
 * readings of the monotonic clock and appends one line to
 * $BLAS_TIME_DIR/blas.PID.log (the current directory without it):
 *
 *   G start seconds layout transa transb m n k lda ldb ldc    cblas_dgemm
 *   T start seconds layout side uplo transa diag m n lda ldb  cblas_dtrsm
 *   B start seconds NAME                                      the others
 *
 * (the enums as CBLAS's numbers: 111 NoTrans, 112 Trans, 141 Left, 142
 * Right, 121 Upper).  tests/bench/hpcc-hpl-blas.sh builds and uses it.
 *
 *   cc -O2 -shared -fPIC -o blas-time.so blas-time.c -ldl */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static FILE *out;

static double
now (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static FILE *
log_file (void)
{
  if (out == NULL) {
    const char *dir = getenv ("BLAS_TIME_DIR");
    char path[4096];
    snprintf (path, sizeof path, "%s/blas.%ld.log", dir != NULL ? dir : ".", (long) getpid ());
    out = fopen (path, "w");
    if (out == NULL) {
      perror (path);
      abort ();
    }
    setvbuf (out, NULL, _IOFBF, 1 << 24);
  }
  return out;
}

static void *
real (const char *name)
{
  void *f = dlsym (RTLD_NEXT, name);
  if (f == NULL) {
    fprintf (stderr, "blas-time: no %s after this library\n", name);
    abort ();
  }
  return f;
}

__attribute__ ((destructor)) static void
finish (void)
{
  if (out != NULL)
    fclose (out);
}

typedef void (*GemmFn) (int, int, int, int, int, int, double, const double *, int,
                        const double *, int, double, double *, int);
typedef void (*TrsmFn) (int, int, int, int, int, int, int, double, const double *, int,
                        double *, int);

void
cblas_dgemm (int layout, int ta, int tb, int m, int n, int k, double alpha, const double *a,
             int lda, const double *b, int ldb, double beta, double *c, int ldc)
{
  static GemmFn f;
  if (f == NULL)
    f = (GemmFn) real ("cblas_dgemm");
  FILE *o = log_file ();
  double t0 = now ();
  f (layout, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  double t1 = now ();
  fprintf (o, "G %.9f %.9f %d %d %d %d %d %d %d %d %d\n", t0, t1 - t0, layout, ta, tb, m, n, k,
           lda, ldb, ldc);
}

void
cblas_dtrsm (int layout, int side, int uplo, int ta, int diag, int m, int n, double alpha,
             const double *a, int lda, double *b, int ldb)
{
  static TrsmFn f;
  if (f == NULL)
    f = (TrsmFn) real ("cblas_dtrsm");
  FILE *o = log_file ();
  double t0 = now ();
  f (layout, side, uplo, ta, diag, m, n, alpha, a, lda, b, ldb);
  double t1 = now ();
  fprintf (o, "T %.9f %.9f %d %d %d %d %d %d %d %d %d\n", t0, t1 - t0, layout, side, uplo, ta,
           diag, m, n, lda, ldb);
}

/* The other CBLAS functions hpcc calls: their time only. */
#define TIMED(ret, name, proto, args)                                                      \
  ret name proto                                                                           \
  {                                                                                        \
    static ret (*f) proto;                                                                 \
    if (f == NULL)                                                                         \
      f = (ret (*) proto) real (#name);                                                    \
    FILE *o = log_file ();                                                                 \
    double t0 = now ();                                                                    \
    ret r = f args;                                                                        \
    double t1 = now ();                                                                    \
    fprintf (o, "B %.9f %.9f %s\n", t0, t1 - t0, #name);                                   \
    return r;                                                                              \
  }
#define TIMED_VOID(name, proto, args)                                                      \
  void name proto                                                                          \
  {                                                                                        \
    static void (*f) proto;                                                                \
    if (f == NULL)                                                                         \
      f = (void (*) proto) real (#name);                                                   \
    FILE *o = log_file ();                                                                 \
    double t0 = now ();                                                                    \
    f args;                                                                                \
    double t1 = now ();                                                                    \
    fprintf (o, "B %.9f %.9f %s\n", t0, t1 - t0, #name);                                   \
  }

TIMED (size_t, cblas_idamax, (int n, const double *x, int incx), (n, x, incx))
TIMED_VOID (cblas_dscal, (int n, double a, double *x, int incx), (n, a, x, incx))
TIMED_VOID (cblas_daxpy, (int n, double a, const double *x, int incx, double *y, int incy),
            (n, a, x, incx, y, incy))
TIMED_VOID (cblas_dcopy, (int n, const double *x, int incx, double *y, int incy),
            (n, x, incx, y, incy))
TIMED_VOID (cblas_dger,
            (int layout, int m, int n, double a, const double *x, int incx, const double *y,
             int incy, double *A, int lda),
            (layout, m, n, a, x, incx, y, incy, A, lda))
TIMED_VOID (cblas_dgemv,
            (int layout, int t, int m, int n, double a, const double *A, int lda,
             const double *x, int incx, double b, double *y, int incy),
            (layout, t, m, n, a, A, lda, x, incx, b, y, incy))
TIMED_VOID (cblas_dtrsv,
            (int layout, int uplo, int t, int diag, int n, const double *A, int lda, double *x,
             int incx),
            (layout, uplo, t, diag, n, A, lda, x, incx))
