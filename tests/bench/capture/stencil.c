/* Benchmark kernel for tests/bench/capture.sh: a 1-D Jacobi sweep over N
 * cells per rank for ITER iterations; each iteration exchanges halos with
 * both neighbours (MPI_Sendrecv, MPI_PROC_NULL at the ends) and reduces the
 * residual (MPI_Allreduce): two collective-free messages and one collective
 * per iteration, computation proportional to N.
 *   stencil N ITER */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  int rank, size;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  long n = argc > 1 ? atol (argv[1]) : 100000;
  long iters = argc > 2 ? atol (argv[2]) : 100;
  double *u = calloc ((size_t) n + 2, sizeof *u), *v = calloc ((size_t) n + 2, sizeof *v);
  for (long i = 1; i <= n; i++)
    u[i] = (double) ((rank * n + i) % 17);
  int left = rank > 0 ? rank - 1 : MPI_PROC_NULL, right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
  double res = 0;
  double t0 = MPI_Wtime ();
  for (long it = 0; it < iters; it++) {
    MPI_Sendrecv (&u[1], 1, MPI_DOUBLE, left, 0, &u[n + 1], 1, MPI_DOUBLE, right, 0,
                  MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv (&u[n], 1, MPI_DOUBLE, right, 1, &u[0], 1, MPI_DOUBLE, left, 1,
                  MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    double local = 0;
    for (long i = 1; i <= n; i++) {
      v[i] = 0.5 * u[i] + 0.25 * (u[i - 1] + u[i + 1]);
      local += (v[i] - u[i]) * (v[i] - u[i]);
    }
    double *t = u;
    u = v;
    v = t;
    MPI_Allreduce (&local, &res, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  if (rank == 0)
    printf ("stencil: %d ranks, %ld cells each, %ld iterations, residual %.6e, %.3f s\n", size, n,
            iters, res, MPI_Wtime () - t0);
  free (u);
  free (v);
  MPI_Finalize ();
  return 0;
}
