/* A tiny PMPI tool: the MPI calls a program makes between MPI_Pcontrol (1)
 * and MPI_Pcontrol (0), one line each, in a file per rank.  Linked into a
 * program (it defines the MPI_ functions the program calls, which then call
 * the library's PMPI_ ones), it shows the message pattern the program
 * really has, to compare with the workload that models it
 * (tests/accuracy/check-pattern.py).
 *
 * Output: $PMPI_COUNT_DIR/rank<R>.txt (nothing when unset), lines
 *   send PEER TAG BYTES     recv PEER TAG BYTES   (also for Isend / Irecv)
 *   bcast ROOT BYTES   reduce ROOT BYTES   allreduce BYTES   barrier
 * Plain C and MPI: nothing else is brought into the program. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static FILE *out;
static int on;

static void
open_log (void)
{
  if (out != NULL)
    return;
  const char *dir = getenv ("PMPI_COUNT_DIR");
  if (dir == NULL)
    return;
  int rank;
  PMPI_Comm_rank (MPI_COMM_WORLD, &rank);
  char path[4096];
  snprintf (path, sizeof path, "%s/rank%d.txt", dir, rank);
  out = fopen (path, "w");
}

static long
bytes_of (int count, MPI_Datatype type)
{
  int size;
  PMPI_Type_size (type, &size);
  return (long) count * size;
}

static void
log_p2p (const char *kind, int peer, int tag, int count, MPI_Datatype type)
{
  if (on && out)
    fprintf (out, "%s %d %d %ld\n", kind, peer, tag, bytes_of (count, type));
}

int
MPI_Pcontrol (const int level, ...)
{
  open_log ();
  on = level != 0;
  return MPI_SUCCESS;
}

int
MPI_Send (const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
  log_p2p ("send", dest, tag, count, type);
  return PMPI_Send (buf, count, type, dest, tag, comm);
}

int
MPI_Recv (void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
          MPI_Status *status)
{
  log_p2p ("recv", source, tag, count, type);
  return PMPI_Recv (buf, count, type, source, tag, comm, status);
}

int
MPI_Isend (const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
           MPI_Request *request)
{
  log_p2p ("send", dest, tag, count, type);
  return PMPI_Isend (buf, count, type, dest, tag, comm, request);
}

int
MPI_Irecv (void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
           MPI_Request *request)
{
  log_p2p ("recv", source, tag, count, type);
  return PMPI_Irecv (buf, count, type, source, tag, comm, request);
}

int
MPI_Bcast (void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
  if (on && out)
    fprintf (out, "bcast %d %ld\n", root, bytes_of (count, type));
  return PMPI_Bcast (buf, count, type, root, comm);
}

int
MPI_Reduce (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root,
            MPI_Comm comm)
{
  if (on && out)
    fprintf (out, "reduce %d %ld\n", root, bytes_of (count, type));
  return PMPI_Reduce (sbuf, rbuf, count, type, op, root, comm);
}

int
MPI_Allreduce (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
               MPI_Comm comm)
{
  if (on && out)
    fprintf (out, "allreduce %ld\n", bytes_of (count, type));
  return PMPI_Allreduce (sbuf, rbuf, count, type, op, comm);
}

int
MPI_Barrier (MPI_Comm comm)
{
  if (on && out)
    fprintf (out, "barrier\n");
  return PMPI_Barrier (comm);
}

int
MPI_Finalize (void)
{
  if (out != NULL)
    fclose (out);
  out = NULL;
  return PMPI_Finalize ();
}
