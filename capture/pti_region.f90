! pti regions from Fortran: the bind(C) module over pti/region.h.
! Compile it with the program (a .mod file is compiler-specific) and link
! with -lptiregion:
!
!   use pti_region
!   ierr = pti_region_assert('solve', 'fast', 'time < 0.5', PTI_REACT_REPORT)
!   ierr = pti_region_begin('solve')
!   ierr = pti_region_count('flops', 2d0 * n)
!   ierr = pti_region_end('solve')       ! PTI_REGION_FAILED if 'fast' failed
!
! Names and tests are Fortran strings (trailing blanks are dropped).  The
! handler reaction needs a C function (pti_region_set_handler); from
! Fortran, PTI_REACT_REPORT, COUNT or ABORT.
module pti_region
  use, intrinsic :: iso_c_binding, only: c_int, c_char, c_double, c_null_char, c_long_long
  implicit none
  private
  integer(c_int), parameter, public :: PTI_REACT_COUNT = 0, PTI_REACT_REPORT = 1, &
       PTI_REACT_HANDLER = 2, PTI_REACT_ABORT = 3
  integer(c_int), parameter, public :: PTI_REGION_OK = 0, PTI_REGION_FAILED = 1, &
       PTI_REGION_ERROR = -1
  public :: pti_region_begin, pti_region_end, pti_region_count, pti_region_param, &
       pti_region_assert, pti_region_outcome, pti_region_summary

  interface
    function c_begin(name) bind(C, name='pti_region_begin') result(r)
      import :: c_char, c_int
      character(kind=c_char), dimension(*), intent(in) :: name
      integer(c_int) :: r
    end function
    function c_end(name) bind(C, name='pti_region_end') result(r)
      import :: c_char, c_int
      character(kind=c_char), dimension(*), intent(in) :: name
      integer(c_int) :: r
    end function
    function c_count(name, value) bind(C, name='pti_region_count') result(r)
      import :: c_char, c_int, c_double
      character(kind=c_char), dimension(*), intent(in) :: name
      real(c_double), value :: value
      integer(c_int) :: r
    end function
    function c_param(name, value) bind(C, name='pti_region_param') result(r)
      import :: c_char, c_int, c_double
      character(kind=c_char), dimension(*), intent(in) :: name
      real(c_double), value :: value
      integer(c_int) :: r
    end function
    function c_assert(region, name, test, reaction) bind(C, name='pti_region_assert') result(r)
      import :: c_char, c_int
      character(kind=c_char), dimension(*), intent(in) :: region, name, test
      integer(c_int), value :: reaction
      integer(c_int) :: r
    end function
    function c_outcome(name, checks, failures) bind(C, name='pti_region_outcome') result(r)
      import :: c_char, c_int, c_long_long
      character(kind=c_char), dimension(*), intent(in) :: name
      integer(c_long_long), intent(out) :: checks, failures
      integer(c_int) :: r
    end function
    subroutine pti_region_summary() bind(C, name='pti_region_summary')
    end subroutine
  end interface

contains

  integer function pti_region_begin(name)
    character(len=*), intent(in) :: name
    pti_region_begin = c_begin(trim(name) // c_null_char)
  end function

  integer function pti_region_end(name)
    character(len=*), intent(in) :: name
    pti_region_end = c_end(trim(name) // c_null_char)
  end function

  integer function pti_region_count(name, value)
    character(len=*), intent(in) :: name
    double precision, intent(in) :: value
    pti_region_count = c_count(trim(name) // c_null_char, real(value, c_double))
  end function

  integer function pti_region_param(name, value)
    character(len=*), intent(in) :: name
    double precision, intent(in) :: value
    pti_region_param = c_param(trim(name) // c_null_char, real(value, c_double))
  end function

  integer function pti_region_assert(region, name, test, reaction)
    character(len=*), intent(in) :: region, name, test
    integer, intent(in) :: reaction
    pti_region_assert = c_assert(trim(region) // c_null_char, trim(name) // c_null_char, &
         trim(test) // c_null_char, int(reaction, c_int))
  end function

  integer function pti_region_outcome(name, checks, failures)
    character(len=*), intent(in) :: name
    integer(c_long_long), intent(out) :: checks, failures
    pti_region_outcome = c_outcome(trim(name) // c_null_char, checks, failures)
  end function
end module pti_region
