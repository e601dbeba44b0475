/* A small MPI-IO program for tests/bench/io.sh: every rank writes its share
 * of one file in blocks, independently (MPI_File_write_at) or collectively
 * (MPI_File_write_at_all), then the file is synced (MPI_File_sync) and
 * closed; or, mode posix, the same through the C library (open, pwrite,
 * fsync, close: what pticapture records since format 1.3).  Rank 0 prints
 * the time of the write phase (from a barrier before the first write to
 * the end of the sync), which is what the bench compares with pti's
 * prediction of a capture of the same run.
 *
 *   mpirun -np 2 ./mpiio FILE TOTAL_BYTES BLOCK_BYTES independent|collective|posix
 *
 * Rank r's share is [r S, (r + 1) S), S = TOTAL / ranks, written in blocks
 * of BLOCK bytes in order. */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  int rank, size;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  if (argc != 5 || (strcmp (argv[4], "independent") != 0 && strcmp (argv[4], "collective") != 0
                    && strcmp (argv[4], "posix") != 0)) {
    if (rank == 0)
      fprintf (stderr, "usage: mpiio FILE TOTAL_BYTES BLOCK_BYTES independent|collective|posix\n");
    MPI_Abort (MPI_COMM_WORLD, 2);
  }
  long long total = atoll (argv[2]), block = atoll (argv[3]);
  int collective = strcmp (argv[4], "collective") == 0, posix = strcmp (argv[4], "posix") == 0;
  long long share = total / size;
  if (block <= 0 || block > (1 << 30) || share % block != 0) {
    if (rank == 0)
      fprintf (stderr, "mpiio: BLOCK must divide TOTAL / ranks and be at most 1 GiB\n");
    MPI_Abort (MPI_COMM_WORLD, 2);
  }
  char *buf = malloc ((size_t) block);
  memset (buf, 'a' + rank, (size_t) block);

  if (posix) {
    int fd = open (argv[1], O_CREAT | O_WRONLY, 0644);
    if (fd < 0) {
      perror (argv[1]);
      MPI_Abort (MPI_COMM_WORLD, 2);
    }
    MPI_Barrier (MPI_COMM_WORLD);
    double t0 = MPI_Wtime ();
    for (long long off = 0; off < share; off += block)
      if (pwrite (fd, buf, (size_t) block, (off_t) (rank * share + off)) != (ssize_t) block) {
        perror ("pwrite");
        MPI_Abort (MPI_COMM_WORLD, 3);
      }
    fsync (fd);
    double t = MPI_Wtime () - t0, tmax = 0;
    close (fd);
    /* the phase ends when the last rank's sync does, as MPI_File_sync's */
    MPI_Reduce (&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
      printf ("mpiio: %d ranks, %lld bytes in blocks of %lld, posix: write+sync %.6f s\n", size,
              total, block, tmax);
    free (buf);
    MPI_Finalize ();
    return 0;
  }

  MPI_File fh;
  MPI_File_open (MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  MPI_Barrier (MPI_COMM_WORLD);
  double t0 = MPI_Wtime ();
  for (long long off = 0; off < share; off += block) {
    MPI_Offset at = (MPI_Offset) (rank * share + off);
    if (collective)
      MPI_File_write_at_all (fh, at, buf, (int) block, MPI_BYTE, MPI_STATUS_IGNORE);
    else
      MPI_File_write_at (fh, at, buf, (int) block, MPI_BYTE, MPI_STATUS_IGNORE);
  }
  MPI_File_sync (fh);
  double t1 = MPI_Wtime ();
  MPI_File_close (&fh);
  if (rank == 0)
    printf ("mpiio: %d ranks, %lld bytes in blocks of %lld, %s: write+sync %.6f s\n", size, total,
            block, argv[4], t1 - t0);
  free (buf);
  MPI_Finalize ();
  return 0;
}
