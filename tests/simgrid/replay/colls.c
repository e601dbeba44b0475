/* Collectives, for tests/simgrid/replay.sh: barrier, bcast, reduce,
 * allreduce, gather, scatter, allgather and alltoall of several sizes,
 * between computations of known flops (smpi_execute_flops).  Built with
 * smpicc. */
#include <mpi.h>
#include <smpi/smpi.h>

int
main (int argc, char **argv)
{
  static double a[65536], b[65536];
  int rank, size;
  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  for (int it = 0; it < 3; it++) {
    int n = 16 << (2 * it);           /* 16, 64, 256 doubles */
    smpi_execute_flops (5e5 * (1 + (rank + it) % size));
    MPI_Barrier (MPI_COMM_WORLD);
    MPI_Bcast (a, n, MPI_DOUBLE, it % size, MPI_COMM_WORLD);
    smpi_execute_flops (1e5 * (rank + 1));
    MPI_Reduce (a, b, n, MPI_DOUBLE, MPI_SUM, (it + 1) % size, MPI_COMM_WORLD);
    MPI_Allreduce (a, b, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Gather (a, n / size, MPI_DOUBLE, b, n / size, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Scatter (a, n / size, MPI_DOUBLE, b, n / size, MPI_DOUBLE, size - 1, MPI_COMM_WORLD);
    smpi_execute_flops (3e5);
    MPI_Allgather (a, n / size, MPI_DOUBLE, b, n / size, MPI_DOUBLE, MPI_COMM_WORLD);
    MPI_Alltoall (a, n / size, MPI_DOUBLE, b, n / size, MPI_DOUBLE, MPI_COMM_WORLD);
  }
  MPI_Finalize ();
  return 0;
}
