C     mpif.h bindings reach the capture library too (capture tests).
      PROGRAM KMPIFH
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, RANK, ST(MPI_STATUS_SIZE)
      DOUBLE PRECISION A(4)
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      IF (RANK .EQ. 0) THEN
        CALL MPI_SEND(A, 4, MPI_DOUBLE_PRECISION, 1, 5,
     &                MPI_COMM_WORLD, IERR)
      ELSE
        CALL MPI_RECV(A, 4, MPI_DOUBLE_PRECISION, 0, 5,
     &                MPI_COMM_WORLD, ST, IERR)
      END IF
      CALL MPI_BARRIER(MPI_COMM_WORLD, IERR)
      CALL MPI_FINALIZE(IERR)
      END
