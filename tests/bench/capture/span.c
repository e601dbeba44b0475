/* The span of an MPI program's ranks, from the end of MPI_Init to the start
 * of MPI_Finalize, without capturing it: the interval a pticapture trace's
 * replay predicts (capture.sh's "measured"), for programs that print no
 * time of their own (tests/bench/accuracy.py's LAMMPS rows).  Preloaded:
 *
 *   mpicc -O2 -shared -fPIC -o libptispan.so span.c
 *   mpirun -np 2 -x LD_PRELOAD=$PWD/libptispan.so PROGRAM ...
 *
 * At MPI_Finalize each rank prints, on standard error,
 *   pti-span rank=R span_s=S cpu_s=C
 * C the process's CPU time over the same interval (its ranks poll while
 * they wait, so C < S means the rank was off the CPU: a disturbed run).
 * Two calls wrapped, nothing recorded: it costs the program nothing. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <time.h>

static double wall0, cpu0;

static double
now (clockid_t clock)
{
  struct timespec ts;
  clock_gettime (clock, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void
mark (void)
{
  wall0 = now (CLOCK_MONOTONIC);
  cpu0 = now (CLOCK_PROCESS_CPUTIME_ID);
}

int
MPI_Init (int *argc, char ***argv)
{
  int r = PMPI_Init (argc, argv);
  mark ();
  return r;
}

int
MPI_Init_thread (int *argc, char ***argv, int required, int *provided)
{
  int r = PMPI_Init_thread (argc, argv, required, provided);
  mark ();
  return r;
}

int
MPI_Finalize (void)
{
  double span = now (CLOCK_MONOTONIC) - wall0, cpu = now (CLOCK_PROCESS_CPUTIME_ID) - cpu0;
  int rank = 0;
  PMPI_Comm_rank (MPI_COMM_WORLD, &rank);
  fprintf (stderr, "pti-span rank=%d span_s=%.9f cpu_s=%.9f\n", rank, span, cpu);
  fflush (stderr);
  return PMPI_Finalize ();
}
