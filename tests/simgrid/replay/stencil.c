/* A 2-D halo exchange on a grid of 2 x (size / 2) ranks with a residual
 * allreduce each step, for tests/simgrid/replay.sh: non-blocking halos of
 * different lengths in x and y, edge ranks sending to MPI_PROC_NULL.
 * Built with smpicc. */
#include <mpi.h>
#include <smpi/smpi.h>

int
main (int argc, char **argv)
{
  static double halo[4][2048], in[4][2048];
  int rank, size;
  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  int px = 2, py = size / 2, x = rank % px, y = rank / px;
  int nb[4] = {
    x > 0 ? rank - 1 : MPI_PROC_NULL, x + 1 < px ? rank + 1 : MPI_PROC_NULL,
    y > 0 ? rank - px : MPI_PROC_NULL, y + 1 < py ? rank + px : MPI_PROC_NULL,
  };
  int len[4] = { 512, 512, 1024, 1024 };
  for (int step = 0; step < 4; step++) {
    MPI_Request r[8];
    for (int d = 0; d < 4; d++)
      MPI_Irecv (in[d], len[d], MPI_DOUBLE, nb[d], 10 + (d ^ 1), MPI_COMM_WORLD, &r[d]);
    for (int d = 0; d < 4; d++)
      MPI_Isend (halo[d], len[d], MPI_DOUBLE, nb[d], 10 + d, MPI_COMM_WORLD, &r[4 + d]);
    smpi_execute_flops (2e6);
    MPI_Waitall (8, r, MPI_STATUSES_IGNORE);
    double res = 1, sum;
    MPI_Allreduce (&res, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  MPI_Finalize ();
  return 0;
}
