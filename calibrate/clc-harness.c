/* The timing harness of pticalibrate's operation-cost benchmark.  Written
 * out with the generated kernels (clc-kernels.c) and compiled on the host
 * being calibrated; the kernels at the user's level, this file at -O2.
 * Plain C17 + POSIX: it must build wherever a C compiler does.
 *
 *   clc-bench [--reps N] [--target-ms MS] [--only CODE,CODE...] [--budget-s S]
 *
 * For each code it prints one line of key=value pairs (times in ns):
 *   op code=AFDL thr=.. thr_q1=.. thr_q3=.. thr_min=.. thr_max=..
 *      [lat=.. lat_q1=.. lat_q3=.. lat_min=.. lat_max=..] reps=.. n=.. attempts=..
 *      text=THE STATEMENT (to the end of the line)
 *   loop code=LFOR iter=.. iter_q1=.. ... text=..   (an empty loop iteration)
 *   clock ns=.. q1=.. q3=.. reps=..          (one cycle, x86 only)
 *   window n=N row=.. row_q1=.. ... reps=.. rows=..   (one row of N, below)
 *   noise preempted=.. dirty=..              (last line, below)
 *
 * Method: a kernel with 4 statements per chain and one with 2 run for the
 * same n iterations, alternately, R times; each pair gives (t4 - t2) / (16 n),
 * the cost of one statement with the loop's overhead cancelled.  The
 * figure is the median of the R estimates; q1/q3 (quartiles) and min/max
 * show the spread.  A pair is kept only if the process had the CPU for
 * at least 97% of both runs (thread CPU time against wall time): on a
 * shared host a run another process interrupted is measured again, up to
 * PROBE_TRIES times and while the time budget (--budget-s) lasts
 * ("preempted" counts them); a pair never undisturbed counts its thread CPU
 * times instead of wall times ("dirty" counts them).
 * When the quartiles are still more than 10% of the median apart, the
 * whole set is measured again, up to 3 times, and the tightest set is
 * kept.
 *
 * The window (code WINDOW for --only): clc_window's rows of N = 128, 256,
 * 384 and 512 products, each a chain of dependent adds its `sum = 0`
 * starts afresh, data in L1; one row's time is the slope between R and 2R
 * rows (the call's cost cancelled), the median of the repetitions.  The
 * rows' start points are scattered over the arrays, so the loop's exit
 * is as predictable as a CSR row's of fixed length.  pticalibrate fits
 * row(N) = alpha + beta N: -alpha / beta iterations of each row's chain
 * ran under the row before (calibrate/cpu.c). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "clc-kernels.h"
#include "probe-stats.h"

static int clean_last = 1;   /* the last run was undisturbed (PROBE_CLEAN) */
static double cpu_last;      /* its thread CPU time, ns */

static double
time_ns (ClcKernelFunc f, long n)
{
  double c0 = probe_clock_ns (CLOCK_THREAD_CPUTIME_ID), t0 = probe_clock_ns (CLOCK_MONOTONIC);
  f (n);
  double t = probe_clock_ns (CLOCK_MONOTONIC) - t0;
  cpu_last = probe_clock_ns (CLOCK_THREAD_CPUTIME_ID) - c0;
  clean_last = cpu_last >= PROBE_CLEAN * t;
  return t;
}

/* Iterations that make the longer kernel last at least @target_ns. */
static long
calibrate_n (ClcKernelFunc f, double target_ns)
{
  long n = 256;
  while (n < (1L << 40)) {
    double t = time_ns (f, n);
    if (t >= target_ns)
      return n;
    n = t < target_ns / 16 ? n * 8 : n * 2;
  }
  return n;
}

static int reps = 11;
static double target_ns = 2e6;
static int max_attempts = 3;
static const double noisy = 0.10;
static long preempted, dirty;   /* runs measured again; pairs never undisturbed (CPU time kept) */

/* Cost of one statement: slope between the two kernels, per repetition. */
static Stats
slope (ClcKernelFunc f2, ClcKernelFunc f4, double per, long *n_out, int *attempts_out)
{
  long n = calibrate_n (f4, target_ns);
  double *est = calloc ((size_t) reps, sizeof *est);
  Stats best = { 0 };
  int attempts = 0;
  double best_spread = 1e300;
  while (attempts < max_attempts) {
    attempts++;
    f2 (n / 8 + 1);   /* warm the code and the branch predictors */
    f4 (n / 8 + 1);
    for (int r = 0; r < reps; r++) {
      double t2, t4, c2, c4;
      for (int tries = 0;; tries++) {
        int clean;
        if (r % 2 == 0) {
          t2 = time_ns (f2, n);
          c2 = cpu_last;
          clean = clean_last;
          t4 = time_ns (f4, n);
          c4 = cpu_last;
        } else {
          t4 = time_ns (f4, n);
          c4 = cpu_last;
          clean = clean_last;
          t2 = time_ns (f2, n);
          c2 = cpu_last;
        }
        if (clean && clean_last)
          break;
        if (!probe_may_retry (tries)) {
          /* never undisturbed: the time the process did run */
          t2 = c2;
          t4 = c4;
          dirty++;
          break;
        }
        preempted++;
      }
      est[r] = (t4 - t2) / ((double) n * per);
    }
    Stats s = probe_stats (est, reps);
    double spread = (s.q3 - s.q1) / (s.med > 0 ? s.med : 1e-300);
    if (spread < best_spread) {
      best = s;
      best_spread = spread;
    }
    if (spread <= noisy)
      break;
  }
  free (est);
  *n_out = n;
  *attempts_out = attempts;
  return best;
}

#if defined(__x86_64__) || defined(__i386__)
#define A4 "add $1, %0\n\t" "add $1, %0\n\t" "add $1, %0\n\t" "add $1, %0\n\t"
#define A16 A4 A4 A4 A4
static volatile long clock_sink;
static __attribute__ ((noinline)) void
clock16 (long n)
{
  long x = 0;
  for (long i = 0; i < n; i++)
    __asm__ volatile (A16 : "+r" (x));
  clock_sink = x;
}
static __attribute__ ((noinline)) void
clock32 (long n)
{
  long x = 0;
  for (long i = 0; i < n; i++)
    __asm__ volatile (A16 A16 : "+r" (x));
  clock_sink = x;
}
#endif

/* One unit of @f's argument: the slope between @m and 2 @m (the call's
 * own cost cancelled), @reps times; a pair disturbed on every try keeps
 * its CPU times. */
static Stats
slope_per_call (ClcKernelFunc f, long m)
{
  double *est = calloc ((size_t) reps, sizeof *est);
  for (int r = 0; r < reps; r++) {
    double t1, t2;
    for (int tries = 0;; tries++) {
      t1 = time_ns (f, m);
      double c1 = cpu_last;
      int clean = clean_last;
      t2 = time_ns (f, 2 * m);
      if (clean && clean_last)
        break;
      if (!probe_may_retry (tries)) {
        t1 = c1;
        t2 = cpu_last;
        dirty++;
        break;
      }
      preempted++;
    }
    est[r] = (t2 - t1) / (double) m;
  }
  Stats s = probe_stats (est, reps);
  free (est);
  return s;
}

static void
print_stats (const char *prefix, Stats s)
{
  printf (" %s=%.6g %s_q1=%.6g %s_q3=%.6g %s_min=%.6g %s_max=%.6g", prefix, s.med, prefix, s.q1,
          prefix, s.q3, prefix, s.min, prefix, s.max);
}

/* The window probe's rows: N products from a scattered start each. */
static void
window_setup (long n)
{
  unsigned long long s = 88172645463325252ull;   /* xorshift */
  for (int k = 0; k < 1024; k++) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    win_col[k] = (int) (s % 512);
    win_a[k] = 1e-3 * (double) (k % 7);
  }
  for (int i = 0; i < 512; i++)
    win_x[i] = 1.0;
  for (int r = 0; r < 256; r++) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    win_lo[r] = (long) (s % (unsigned long long) (1024 - n + 1));
    win_hi[r] = win_lo[r] + n;
  }
}

static void
window_measure (void)
{
  static const long lengths[] = { 128, 256, 384, 512 };
  for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++) {
    window_setup (lengths[i]);
    long m = calibrate_n (clc_window, target_ns);
    Stats s = slope_per_call (clc_window, m);
    printf ("window n=%ld", lengths[i]);
    print_stats ("row", s);
    printf (" reps=%d rows=%ld\n", reps, m);
  }
}

static int
wanted (const char *only, const char *code)
{
  if (only == NULL)
    return 1;
  size_t len = strlen (code);
  for (const char *p = only; (p = strstr (p, code)) != NULL; p += len)
    if ((p == only || p[-1] == ',') && (p[len] == ',' || p[len] == '\0'))
      return 1;
  return 0;
}

int
main (int argc, char **argv)
{
  const char *only = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp (argv[i], "--reps") == 0 && i + 1 < argc)
      reps = atoi (argv[++i]);
    else if (strcmp (argv[i], "--target-ms") == 0 && i + 1 < argc)
      target_ns = atof (argv[++i]) * 1e6;
    else if (strcmp (argv[i], "--only") == 0 && i + 1 < argc)
      only = argv[++i];
    else if (strcmp (argv[i], "--budget-s") == 0 && i + 1 < argc)
      probe_set_budget (atof (argv[++i]));
    else {
      fprintf (stderr, "usage: %s [--reps N] [--target-ms MS] [--only CODE,...] [--budget-s S]\n",
               argv[0]);
      return 2;
    }
  }
  if (reps < 3 || reps > 1000 || !(target_ns > 0)) {
    fprintf (stderr, "%s: --reps must be 3..1000 and --target-ms positive\n", argv[0]);
    return 2;
  }
  for (int i = 0; i < 8192; i++) {
    arf_data[i] = 1.0 + i;
    arf_chain[i] = 0;
  }
  setvbuf (stdout, NULL, _IOLBF, 0);

#if defined(__x86_64__) || defined(__i386__)
  {
    long n;
    int attempts;
    Stats s = slope (clock16, clock32, 16, &n, &attempts);
    printf ("clock ns=%.6g q1=%.6g q3=%.6g reps=%d\n", s.med, s.q1, s.q3, reps);
  }
#endif
  for (const ClcKernel *k = clc_kernels; k->code != NULL; k++) {
    if (!wanted (only, k->code))
      continue;
    long n;
    int attempts;
    if (k->loop != NULL) {
      /* n iterations against 2n: the slope is one iteration. */
      long m = calibrate_n (k->loop, target_ns);
      Stats s = slope_per_call (k->loop, m);
      printf ("loop code=%s", k->code);
      print_stats ("iter", s);
      printf (" reps=%d n=%ld text=%s\n", reps, m, k->what);
      continue;
    }
    Stats thr = slope (k->thr2, k->thr4, CLC_EXTRA, &n, &attempts);
    printf ("op code=%s", k->code);
    print_stats ("thr", thr);
    int total_attempts = attempts;
    if (k->lat2 != NULL) {
      long n2;
      Stats lat = slope (k->lat2, k->lat4, CLC_EXTRA, &n2, &attempts);
      print_stats ("lat", lat);
      total_attempts += attempts;
    }
    printf (" reps=%d n=%ld attempts=%d text=%s\n", reps, n, total_attempts, k->what);
  }
  if (wanted (only, "WINDOW"))
    window_measure ();
  printf ("noise preempted=%ld dirty=%ld\n", preempted, dirty);
  return 0;
}
