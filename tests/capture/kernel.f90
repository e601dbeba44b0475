! A Fortran MPI program for the capture tests (use mpi), on 2 ranks: calls
! reach the capture library through Open MPI's Fortran bindings, which call
! PMPI_* in libmpi.  Deterministic, like kernel.c, for golden/kernel-f90.txt.
program kernel_f90
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, peer, req(2), st(MPI_STATUS_SIZE), newcomm, vec, i
  integer :: sc(2), sd(2), rc(2), rd(2)
  double precision :: a(16), b(16), t
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  peer = 1 - rank
  a = rank
  t = MPI_Wtime()
  if (rank == 0) then
    call MPI_Send(a, 4, MPI_DOUBLE_PRECISION, 1, 7, MPI_COMM_WORLD, ierr)
  else
    call MPI_Recv(b, 16, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, st, ierr)
  end if
  call MPI_Isend(a, 3, MPI_INTEGER, peer, 8, MPI_COMM_WORLD, req(1), ierr)
  call MPI_Irecv(b, 3, MPI_INTEGER, peer, 8, MPI_COMM_WORLD, req(2), ierr)
  call MPI_Waitall(2, req, MPI_STATUSES_IGNORE, ierr)
  call MPI_Sendrecv(a, 2, MPI_DOUBLE_PRECISION, peer, 9, b, 2, MPI_DOUBLE_PRECISION, peer, 9, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call MPI_Type_contiguous(5, MPI_DOUBLE_PRECISION, vec, ierr)
  call MPI_Type_commit(vec, ierr)
  call MPI_Sendrecv(a, 1, vec, peer, 10, b, 1, vec, MPI_PROC_NULL, 10, MPI_COMM_WORLD, st, ierr)
  call MPI_Type_free(vec, ierr)
  call MPI_Bcast(a, 6, MPI_DOUBLE_PRECISION, 1, MPI_COMM_WORLD, ierr)
  call MPI_Allreduce(MPI_IN_PLACE, a, 2, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Reduce(a, b, 3, MPI_DOUBLE_PRECISION, MPI_MAX, 0, MPI_COMM_WORLD, ierr)
  sc = (/ 1, 2 /)
  sd = (/ 0, 1 /)
  rc = 1 + rank
  rd = (/ 0, 4 /)
  call MPI_Alltoallv(a, sc, sd, MPI_DOUBLE_PRECISION, b, rc, rd, MPI_DOUBLE_PRECISION, &
                     MPI_COMM_WORLD, ierr)
  call MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, newcomm, ierr)
  call MPI_Barrier(newcomm, ierr)
  call MPI_Comm_free(newcomm, ierr)
  do i = 1, 3
    call MPI_Allreduce(a, b, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  end do
  call MPI_Finalize(ierr)
end program kernel_f90
