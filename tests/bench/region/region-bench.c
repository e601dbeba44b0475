/* The cost of pti regions (capture/include/pti/region.h): a begin/end pair
 * without assertions, with a counter, and with an assertion checked at
 * every end; ns per pair from the clock.  Run alone, under pticapture, or
 * under callgrind (instructions per call: callgrind_annotate --inclusive=yes).
 * Usage: region-bench [N] */
#include <mpi.h>
#include <pti/region.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double
now (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  long n = argc > 1 ? atol (argv[1]) : 1000000;
  pti_region_param ("limit", 1);
  pti_region_assert ("checked", "checked_fast", "time < limit && flops >= 0", PTI_REACT_REPORT);
  double t0 = now ();
  for (long i = 0; i < n; i++) {
    pti_region_begin ("bare");
    pti_region_end ("bare");
  }
  double t1 = now ();
  for (long i = 0; i < n; i++) {
    pti_region_begin ("counted");
    pti_region_count ("flops", 2.0);
    pti_region_end ("counted");
  }
  double t2 = now ();
  for (long i = 0; i < n; i++) {
    pti_region_begin ("checked");
    pti_region_count ("flops", 2.0);
    pti_region_end ("checked");
  }
  double t3 = now ();
  printf ("region-bench: %ld pairs: begin/end %.1f ns, with a count %.1f ns, with a count and an "
          "assertion checked %.1f ns\n", n, (t1 - t0) / n * 1e9, (t2 - t1) / n * 1e9,
          (t3 - t2) / n * 1e9);
  MPI_Finalize ();
  return 0;
}
