! Benchmark kernel for tests/bench/capture.sh, in Fortran (use mpi): the
! 1-D Jacobi sweep of stencil.c with non-blocking halo exchanges
! (MPI_Irecv, MPI_Isend, MPI_Waitall) and an MPI_Allreduce per iteration.
!   stencil-f90 N ITER
program stencil_f90
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, left, right, req(4)
  integer(8) :: n, iters, it, i
  double precision, allocatable :: u(:), v(:), t(:)
  double precision :: local, res, t0
  character(len=32) :: arg
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  n = 100000
  iters = 100
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) n
  end if
  if (command_argument_count() >= 2) then
    call get_command_argument(2, arg)
    read (arg, *) iters
  end if
  allocate (u(0:n+1), v(0:n+1), t(0:n+1))
  do i = 0, n + 1
    u(i) = dble(mod(rank * n + i, 17_8))
  end do
  v = 0
  left = rank - 1
  right = rank + 1
  if (rank == 0) left = MPI_PROC_NULL
  if (rank == nprocs - 1) right = MPI_PROC_NULL
  t0 = MPI_Wtime()
  do it = 1, iters
    call MPI_Irecv(u(n+1), 1, MPI_DOUBLE_PRECISION, right, 0, MPI_COMM_WORLD, req(1), ierr)
    call MPI_Irecv(u(0), 1, MPI_DOUBLE_PRECISION, left, 1, MPI_COMM_WORLD, req(2), ierr)
    call MPI_Isend(u(1), 1, MPI_DOUBLE_PRECISION, left, 0, MPI_COMM_WORLD, req(3), ierr)
    call MPI_Isend(u(n), 1, MPI_DOUBLE_PRECISION, right, 1, MPI_COMM_WORLD, req(4), ierr)
    call MPI_Waitall(4, req, MPI_STATUSES_IGNORE, ierr)
    local = 0
    do i = 1, n
      v(i) = 0.5d0 * u(i) + 0.25d0 * (u(i-1) + u(i+1))
      local = local + (v(i) - u(i))**2
    end do
    t = u
    u = v
    v = t
    call MPI_Allreduce(local, res, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  end do
  if (rank == 0) print '(a,i0,a,i0,a,i0,a,es12.6,a,f8.3,a)', 'stencil-f90: ', nprocs, ' ranks, ', n, &
      ' cells each, ', iters, ' iterations, residual ', res, ', ', MPI_Wtime() - t0, ' s'
  call MPI_Finalize(ierr)
end program stencil_f90
