/* A C MPI program for the capture tests, on 2 ranks: every call recorded in
 * detail, made so that what each call does is the same on every run (which
 * request a waitany completes, what a test finds), so the records can be
 * compared exactly with golden/kernel.txt.  Messages a test must find
 * already there are sent before a barrier: Open MPI delivers a pair's
 * messages in order, so they have arrived when the barrier returns.
 *
 *   kernel [crash|abort|exit|hang|sleep]   the mode is for the crash tests */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHECK(x) do { if ((x) != MPI_SUCCESS) { fprintf (stderr, "%s failed\n", #x); MPI_Abort (MPI_COMM_WORLD, 1); } } while (0)

static void
maxabs (void *in, void *inout, int *len, MPI_Datatype *dt)
{
  (void) dt;
  for (int i = 0; i < *len; i++) {
    double a = ((double *) in)[i], b = ((double *) inout)[i];
    ((double *) inout)[i] = a > b ? a : b;
  }
}

int
main (int argc, char **argv)
{
  const char *mode = argc > 1 ? argv[1] : "";
  int rank, size, flag, index, outcount, indices[4];
  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0)
      fprintf (stderr, "kernel: run on 2 ranks\n");
    MPI_Finalize ();
    return 2;
  }
  int peer = 1 - rank;
  double d[64] = { 0 }, e[64] = { 0 };
  int ints[16] = { 0 };
  MPI_Status st;
  MPI_Request rq[4];

  /* blocking point-to-point, the send modes, PROC_NULL, a derived type */
  if (rank == 0) {
    CHECK (MPI_Send (d, 8, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD));
    CHECK (MPI_Ssend (d, 4, MPI_INT, 1, 2, MPI_COMM_WORLD));
    static char bbuf[1024 + MPI_BSEND_OVERHEAD];
    MPI_Buffer_attach (bbuf, sizeof bbuf);
    CHECK (MPI_Bsend (d, 3, MPI_DOUBLE, 1, 3, MPI_COMM_WORLD));
    void *b;
    int bs;
    MPI_Buffer_detach (&b, &bs);
  } else {
    CHECK (MPI_Recv (e, 8, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, &st));
    CHECK (MPI_Recv (e, 64, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK (MPI_Recv (e, 64, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD, &st));
  }
  CHECK (MPI_Send (d, 5, MPI_DOUBLE, MPI_PROC_NULL, 9, MPI_COMM_WORLD));
  CHECK (MPI_Recv (e, 5, MPI_DOUBLE, MPI_PROC_NULL, 9, MPI_COMM_WORLD, &st));
  MPI_Datatype vec;
  MPI_Type_vector (4, 2, 8, MPI_DOUBLE, &vec);   /* 8 doubles: 64 bytes */
  MPI_Type_commit (&vec);
  CHECK (MPI_Sendrecv (d, 1, vec, peer, 4, e, 1, vec, peer, 4, MPI_COMM_WORLD, &st));
  CHECK (MPI_Sendrecv_replace (d, 2, MPI_INT, peer, 5, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &st));
  MPI_Type_free (&vec);
  /* rsend needs the receive posted first */
  if (rank == 1) {
    CHECK (MPI_Irecv (e, 6, MPI_DOUBLE, 0, 6, MPI_COMM_WORLD, &rq[0]));
    CHECK (MPI_Barrier (MPI_COMM_WORLD));
    CHECK (MPI_Wait (&rq[0], &st));
  } else {
    CHECK (MPI_Barrier (MPI_COMM_WORLD));
    CHECK (MPI_Rsend (d, 6, MPI_DOUBLE, 1, 6, MPI_COMM_WORLD));
  }

  /* non-blocking: waitall, then messages already there for waitany,
   * waitsome, test, testall, testany, testsome, probes */
  CHECK (MPI_Isend (d, 10, MPI_DOUBLE, peer, 10, MPI_COMM_WORLD, &rq[0]));
  CHECK (MPI_Irecv (e, 10, MPI_DOUBLE, peer, 10, MPI_COMM_WORLD, &rq[1]));
  CHECK (MPI_Waitall (2, rq, MPI_STATUSES_IGNORE));
  if (rank == 0)
    for (int t = 20; t < 27; t++)
      CHECK (MPI_Send (ints, t - 19, MPI_INT, 1, t, MPI_COMM_WORLD));
  CHECK (MPI_Barrier (MPI_COMM_WORLD));
  if (rank == 1) {
    rq[0] = MPI_REQUEST_NULL;
    CHECK (MPI_Irecv (ints, 16, MPI_INT, 0, 20, MPI_COMM_WORLD, &rq[1]));
    CHECK (MPI_Waitany (2, rq, &index, &st));                      /* index 1 */
    CHECK (MPI_Irecv (ints, 16, MPI_INT, 0, 21, MPI_COMM_WORLD, &rq[0]));
    CHECK (MPI_Irecv (ints, 16, MPI_INT, 0, 99, MPI_COMM_WORLD, &rq[1]));   /* sent later */
    CHECK (MPI_Waitsome (2, rq, &outcount, indices, MPI_STATUSES_IGNORE));  /* [0] */
    for (int i = 0; i < 3; i++)                                    /* a poll: REPEAT */
      CHECK (MPI_Test (&rq[1], &flag, &st));                       /* not yet */
    for (int i = 0; i < 5; i++)
      (void) MPI_Wtime ();
    for (int i = 0; i < 4; i++) {                                  /* a poll of period 2 */
      CHECK (MPI_Test (&rq[1], &flag, &st));
      CHECK (MPI_Iprobe (0, 98, MPI_COMM_WORLD, &flag, &st));
    }
    CHECK (MPI_Irecv (ints, 16, MPI_INT, MPI_ANY_SOURCE, 22, MPI_COMM_WORLD, &rq[0]));
    CHECK (MPI_Test (&rq[0], &flag, &st));                         /* done */
    CHECK (MPI_Irecv (ints, 16, MPI_INT, 0, 23, MPI_COMM_WORLD, &rq[0]));
    CHECK (MPI_Testall (2, rq, &flag, MPI_STATUSES_IGNORE));       /* not all */
    CHECK (MPI_Testany (2, rq, &index, &flag, &st));               /* index 0 */
    CHECK (MPI_Irecv (ints, 16, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &rq[0]));
    CHECK (MPI_Testsome (2, rq, &outcount, indices, MPI_STATUSES_IGNORE));  /* [0], tag 24 */
    CHECK (MPI_Probe (MPI_ANY_SOURCE, 25, MPI_COMM_WORLD, &st));
    CHECK (MPI_Recv (ints, 16, MPI_INT, 0, 25, MPI_COMM_WORLD, &st));
    CHECK (MPI_Iprobe (0, 26, MPI_COMM_WORLD, &flag, &st));        /* there */
    MPI_Message msg;
    CHECK (MPI_Mprobe (0, 26, MPI_COMM_WORLD, &msg, &st));
    CHECK (MPI_Mrecv (ints, 16, MPI_INT, &msg, &st));
    CHECK (MPI_Iprobe (0, 26, MPI_COMM_WORLD, &flag, &st));        /* gone */
  }
  CHECK (MPI_Barrier (MPI_COMM_WORLD));
  if (rank == 0)
    CHECK (MPI_Send (ints, 1, MPI_INT, 1, 99, MPI_COMM_WORLD));
  else
    CHECK (MPI_Wait (&rq[1], &st));

  /* persistent requests, a cancelled receive */
  CHECK (MPI_Send_init (d, 2, MPI_DOUBLE, peer, 30, MPI_COMM_WORLD, &rq[0]));
  CHECK (MPI_Recv_init (e, 2, MPI_DOUBLE, peer, 30, MPI_COMM_WORLD, &rq[1]));
  for (int i = 0; i < 2; i++) {
    CHECK (MPI_Startall (2, rq));
    CHECK (MPI_Waitall (2, rq, MPI_STATUSES_IGNORE));
  }
  CHECK (MPI_Start (&rq[1]));
  CHECK (MPI_Send (d, 2, MPI_DOUBLE, peer, 30, MPI_COMM_WORLD));
  CHECK (MPI_Wait (&rq[1], &st));
  CHECK (MPI_Request_free (&rq[0]));
  CHECK (MPI_Request_free (&rq[1]));
  CHECK (MPI_Irecv (e, 1, MPI_DOUBLE, peer, 31, MPI_COMM_WORLD, &rq[0]));
  CHECK (MPI_Cancel (&rq[0]));
  CHECK (MPI_Wait (&rq[0], &st));

  /* collectives */
  int counts[2] = { 1, 2 }, displs[2] = { 0, 1 }, c2[2] = { 2, 3 }, d2[2] = { 0, 2 };
  CHECK (MPI_Bcast (d, 7, MPI_DOUBLE, 0, MPI_COMM_WORLD));
  CHECK (MPI_Reduce (d, e, 3, MPI_DOUBLE, MPI_SUM, 1, MPI_COMM_WORLD));
  CHECK (MPI_Allreduce (d, e, 4, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
  CHECK (MPI_Allreduce (MPI_IN_PLACE, d, 4, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD));
  CHECK (MPI_Gather (d, 2, MPI_INT, e, 2, MPI_INT, 0, MPI_COMM_WORLD));
  CHECK (MPI_Gatherv (d, rank + 1, MPI_INT, e, counts, displs, MPI_INT, 0, MPI_COMM_WORLD));
  CHECK (MPI_Scatter (d, 3, MPI_INT, e, 3, MPI_INT, 1, MPI_COMM_WORLD));
  CHECK (MPI_Scatterv (d, c2, d2, MPI_INT, e, rank + 2, MPI_INT, 1, MPI_COMM_WORLD));
  CHECK (MPI_Allgather (d, 1, MPI_DOUBLE, e, 1, MPI_DOUBLE, MPI_COMM_WORLD));
  CHECK (MPI_Allgatherv (d, rank + 1, MPI_INT, e, counts, displs, MPI_INT, MPI_COMM_WORLD));
  CHECK (MPI_Alltoall (d, 2, MPI_DOUBLE, e, 2, MPI_DOUBLE, MPI_COMM_WORLD));
  int sc[2] = { 1, 3 }, sd[2] = { 0, 1 }, rc[2], rd[2] = { 0, 4 };
  rc[0] = rank == 0 ? 1 : 3;
  rc[1] = rank == 0 ? 1 : 3;
  CHECK (MPI_Alltoallv (d, sc, sd, MPI_INT, e, rc, rd, MPI_INT, MPI_COMM_WORLD));
  /* the pair's types must match: rank 0 sends {int, double}, rank 1 {double, int} */
  MPI_Datatype wt[2] = { rank == 0 ? MPI_INT : MPI_DOUBLE, rank == 0 ? MPI_DOUBLE : MPI_INT };
  int wc[2] = { 1, 1 }, wsd[2] = { 0, 8 }, wrd[2] = { 0, 8 };
  CHECK (MPI_Alltoallw (d, wc, wsd, wt, e, wc, wrd, wt, MPI_COMM_WORLD));
  int rsc[2] = { 1, 2 };
  CHECK (MPI_Reduce_scatter (d, e, rsc, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
  CHECK (MPI_Reduce_scatter_block (d, e, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
  CHECK (MPI_Scan (d, e, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK (MPI_Exscan (d, e, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  MPI_Op op;
  CHECK (MPI_Op_create (maxabs, 1, &op));
  CHECK (MPI_Allreduce (d, e, 2, MPI_DOUBLE, op, MPI_COMM_WORLD));
  CHECK (MPI_Op_free (&op));
  /* non-blocking collectives */
  CHECK (MPI_Ibarrier (MPI_COMM_WORLD, &rq[0]));
  CHECK (MPI_Ibcast (d, 3, MPI_DOUBLE, 1, MPI_COMM_WORLD, &rq[1]));
  CHECK (MPI_Iallreduce (d, e, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &rq[2]));
  CHECK (MPI_Ialltoall (d, 1, MPI_DOUBLE, e + 8, 1, MPI_DOUBLE, MPI_COMM_WORLD, &rq[3]));
  CHECK (MPI_Waitall (4, rq, MPI_STATUSES_IGNORE));

  /* communicators */
  MPI_Comm dup, split, cart, sub, self_split;
  CHECK (MPI_Comm_dup (MPI_COMM_WORLD, &dup));
  CHECK (MPI_Comm_split (MPI_COMM_WORLD, 0, -rank, &split));    /* reversed */
  int srank;
  MPI_Comm_rank (split, &srank);                                 /* 1 - rank */
  CHECK (MPI_Send (d, 1, MPI_INT, 1 - srank, 40, split));
  CHECK (MPI_Recv (e, 1, MPI_INT, MPI_ANY_SOURCE, 40, split, &st));
  CHECK (MPI_Comm_split (MPI_COMM_WORLD, rank, 0, &self_split));
  CHECK (MPI_Barrier (self_split));
  int dims[2] = { 2, 1 }, periods[2] = { 1, 0 }, remain[2] = { 1, 0 };
  CHECK (MPI_Cart_create (dup, 2, dims, periods, 0, &cart));
  CHECK (MPI_Cart_sub (cart, remain, &sub));
  CHECK (MPI_Allreduce (d, e, 1, MPI_DOUBLE, MPI_SUM, sub));
  MPI_Comm none;
  CHECK (MPI_Comm_split (dup, rank == 0 ? MPI_UNDEFINED : 1, 0, &none));
  if (none != MPI_COMM_NULL)
    CHECK (MPI_Comm_free (&none));
  CHECK (MPI_Comm_free (&sub));
  CHECK (MPI_Comm_free (&cart));
  CHECK (MPI_Comm_free (&self_split));
  CHECK (MPI_Comm_free (&split));
  CHECK (MPI_Comm_free (&dup));

  if (strcmp (mode, "crash") == 0 && rank == 1) {
    CHECK (MPI_Send (d, 1, MPI_INT, 0, 50, MPI_COMM_WORLD));
    volatile int *p = NULL;
    *p = 1;                                       /* SIGSEGV in computation */
  }
  if (strcmp (mode, "crash") == 0 && rank == 0)
    CHECK (MPI_Recv (e, 1, MPI_INT, 1, 50, MPI_COMM_WORLD, &st));
  if (strcmp (mode, "abort") == 0 && rank == 1)
    MPI_Abort (MPI_COMM_WORLD, 7);
  if (strcmp (mode, "exit") == 0) {
    CHECK (MPI_Barrier (MPI_COMM_WORLD));
    exit (0);                                     /* without MPI_Finalize */
  }
  if (strcmp (mode, "hang") == 0) {
    /* both wait for what nothing sends: the test kills them.  The barrier
     * after a second is written out (pticapture --flush-interval 0.5), so
     * the trace ends at it. */
    sleep (1);
    CHECK (MPI_Barrier (MPI_COMM_WORLD));
    fprintf (stderr, "kernel: rank %d pid %d waiting\n", rank, (int) getpid ());
    CHECK (MPI_Recv (e, 1, MPI_INT, peer, 60, MPI_COMM_WORLD, &st));
  }
  if (strcmp (mode, "sleep") == 0) {
    sleep (1);
    CHECK (MPI_Barrier (MPI_COMM_WORLD));
    fprintf (stderr, "kernel: rank %d pid %d sleeping\n", rank, (int) getpid ());
    sleep (60);                                   /* killed in computation */
  }
  MPI_Finalize ();
  return 0;
}
