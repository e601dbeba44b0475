/* Point-to-point, for tests/simgrid/replay.sh: a ring of non-blocking
 * messages, a shift by sendrecv, blocking pairs, and sends to MPI_PROC_NULL
 * at the ends of a chain (SMPI writes them "send -333"), between
 * computations of known flops (smpi_execute_flops).  Built with smpicc. */
#include <mpi.h>
#include <smpi/smpi.h>

int
main (int argc, char **argv)
{
  static char a[8192], b[8192];
  int rank, size;
  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  for (int it = 0; it < 5; it++) {
    smpi_execute_flops (1e6 * (rank + 1));
    MPI_Request r[2];
    MPI_Irecv (b, 1000 + 100 * it, MPI_CHAR, left, 1, MPI_COMM_WORLD, &r[0]);
    MPI_Isend (a, 1000 + 100 * it, MPI_CHAR, right, 1, MPI_COMM_WORLD, &r[1]);
    smpi_execute_flops (2e5);
    MPI_Waitall (2, r, MPI_STATUSES_IGNORE);
    MPI_Sendrecv (a, 512, MPI_INT, right, 2, b, 512, MPI_INT, left, 2, MPI_COMM_WORLD,
                  MPI_STATUS_IGNORE);
    /* a chain: the ends send to nobody */
    int up = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
    int down = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    if (rank % 2 == 0) {
      MPI_Send (a, 300, MPI_DOUBLE, up, 3, MPI_COMM_WORLD);
      if (down != MPI_PROC_NULL)
        MPI_Recv (b, 300, MPI_DOUBLE, down, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv (b, 300, MPI_DOUBLE, down, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send (a, 300, MPI_DOUBLE, up, 3, MPI_COMM_WORLD);
    }
  }
  MPI_Finalize ();
  return 0;
}
