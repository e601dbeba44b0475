/* What pticalibrate's probes (clc-harness.c, mem-bench.c, mpi-probe.c)
 * share: the statistics of their samples and the test of an undisturbed
 * one.  Written out beside them and compiled with them on the host being
 * calibrated; plain C17 + POSIX. */
#pragma once

#include <stdlib.h>
#include <time.h>

/* A sample is undisturbed when the process had the CPU for this much of it:
 * its thread CPU time against the wall time.  On a shared host a run
 * another process interrupted is measured again. */
#define PROBE_CLEAN 0.97

/* A disturbed sample is taken again at most PROBE_TRIES times, and not at
 * all once the probe's time budget (--budget-s) is spent: on a host so busy
 * that samples are rarely undisturbed, the probe still ends in time, and
 * says how many samples it kept disturbed. */
#define PROBE_TRIES 5
static double probe_deadline_ns;   /* 0: no budget */

typedef struct {
  double med, q1, q3, min, max;
} Stats;

static inline int
probe_cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

/* Quantile by linear interpolation between order statistics. */
static inline double
probe_quantile (const double *sorted, int n, double p)
{
  double pos = p * (n - 1);
  int lo = (int) pos;
  if (lo >= n - 1)
    return sorted[n - 1];
  return sorted[lo] + (pos - lo) * (sorted[lo + 1] - sorted[lo]);
}

/* Median, quartiles and extremes of @v (sorted in place). */
static inline Stats
probe_stats (double *v, int n)
{
  qsort (v, (size_t) n, sizeof *v, probe_cmp_double);
  return (Stats) { probe_quantile (v, n, 0.5), probe_quantile (v, n, 0.25),
                   probe_quantile (v, n, 0.75), v[0], v[n - 1] };
}

static inline double
probe_clock_ns (clockid_t id)
{
  struct timespec ts;
  clock_gettime (id, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static inline void
probe_set_budget (double seconds)
{
  probe_deadline_ns = seconds > 0 ? probe_clock_ns (CLOCK_MONOTONIC) + seconds * 1e9 : 0;
}

/* How many more times a disturbed sample may be taken, after @tries. */
static inline int
probe_may_retry (int tries)
{
  if (probe_deadline_ns > 0 && probe_clock_ns (CLOCK_MONOTONIC) > probe_deadline_ns)
    return 0;
  return tries < PROBE_TRIES;
}
