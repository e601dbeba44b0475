! The Fortran binding of pti regions (capture/pti_region.f90) on 2 ranks:
! a region with a counter, a passing and a failing assertion (counted, not
! reported), nesting, and a misuse; prints the outcomes region.sh checks.
program region_f
  use mpi
  use pti_region
  use, intrinsic :: iso_c_binding, only: c_long_long
  implicit none
  integer :: ierr, rank, i, n, rc, bad
  integer(c_long_long) :: checks, failures
  double precision :: a(1000), s

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  n = 1000
  ierr = pti_region_param('n', dble(n))
  ierr = pti_region_assert('axpy', 'axpy_flops', 'flops == 2 * n * 3', PTI_REACT_COUNT)
  ierr = pti_region_assert('axpy', 'axpy_never', 'time < 0', PTI_REACT_COUNT)
  ierr = pti_region_assert('outer', 'outer_flops', 'flops == 2 * n * 3 * 2', PTI_REACT_REPORT)
  s = 0
  a = 1d0
  ierr = pti_region_begin('outer')
  do i = 1, 2
    ierr = pti_region_begin('axpy')
    ierr = pti_region_count('flops', dble(2 * n * 3))
    a = a * 1.0001d0 + 0.5d0
    s = s + sum(a)
    rc = pti_region_end('axpy')
  end do
  ierr = pti_region_end('outer')
  bad = pti_region_end('outer')        ! misuse: nothing is open
  ierr = pti_region_outcome('axpy_flops', checks, failures)
  print '(a,i0,a,i0,a,i0)', 'fortran rank ', rank, ': axpy_flops checks ', checks, ' failures ', failures
  ierr = pti_region_outcome('axpy_never', checks, failures)
  print '(a,i0,a,i0,a,i0,a,i0,a,i0)', 'fortran rank ', rank, ': axpy_never checks ', checks, &
       ' failures ', failures, ' last end ', rc, ' misuse ', bad
  call MPI_Finalize(ierr)
end program region_f
