/* The clock and the sort of tests/bench/hpcc's MPI timing programs
 * (ptrans-phases.c, exchange-states.c), each built alone by mpicc. */
#ifndef PTI_BENCH_HPCC_TIMING_H
#define PTI_BENCH_HPCC_TIMING_H

#include <time.h>

/* Seconds of the monotonic clock. */
static inline double
now (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* qsort's comparison of doubles, ascending. */
static inline int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

#endif
