! mpi_f08 bindings reach the capture library too (capture tests).
program kernel_f08
  use mpi_f08
  implicit none
  integer :: rank
  type(MPI_Request) :: req(2)
  double precision :: a(4), b(4)
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  a = rank
  call MPI_Isend(a, 4, MPI_DOUBLE_PRECISION, 1 - rank, 3, MPI_COMM_WORLD, req(1))
  call MPI_Irecv(b, 4, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, req(2))
  call MPI_Waitall(2, req, MPI_STATUSES_IGNORE)
  call MPI_Allreduce(a, b, 4, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  call MPI_Finalize()
end program kernel_f08
