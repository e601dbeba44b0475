/* The calls a capture replay must model beyond plain point-to-point and
 * world collectives, on 2 ranks (tests/capture/replay.sh): persistent
 * requests, collectives of every kind on communicators made by split, dup,
 * cart_create, cart_sub and create (one of them ordering the ranks the
 * other way round), non-blocking collectives, matched probes, wildcard
 * receives, MPI_PROC_NULL peers, MPI_Request_free of an active send and a
 * send never completed.
 * Its only reductions are 8-byte allreduces (one double combined each),
 * so replay.sh knows their arithmetic in closed form. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call) do { int rc_ = (call); if (rc_ != MPI_SUCCESS) { \
  fprintf (stderr, "%s failed: %d\n", #call, rc_); MPI_Abort (MPI_COMM_WORLD, 1); } } while (0)

static double sink;

/* computation between the calls, so the bursts are not all nothing */
static void
work (int n)
{
  for (int i = 0; i < n; i++)
    sink += i * 0.5;
}

/* every blocking collective the replay maps, on @comm (2 ranks) */
static void
collectives (MPI_Comm comm)
{
  int me, n;
  double a[64] = { 0 }, b[64] = { 0 }, x = 1, y;
  int counts[2] = { 3, 5 }, displs[2] = { 0, 3 };
  MPI_Comm_rank (comm, &me);
  MPI_Comm_size (comm, &n);
  CHECK (MPI_Barrier (comm));
  CHECK (MPI_Bcast (a, 40, MPI_DOUBLE, 1, comm));
  work (20000);
  CHECK (MPI_Allreduce (&x, &y, 1, MPI_DOUBLE, MPI_SUM, comm));
  CHECK (MPI_Gather (a, 4, MPI_DOUBLE, b, 4, MPI_DOUBLE, 0, comm));
  CHECK (MPI_Scatter (a, 4, MPI_DOUBLE, b, 4, MPI_DOUBLE, 1, comm));
  CHECK (MPI_Allgather (a, 6, MPI_DOUBLE, b, 6, MPI_DOUBLE, comm));
  CHECK (MPI_Alltoall (a, 7, MPI_DOUBLE, b, 7, MPI_DOUBLE, comm));
  CHECK (MPI_Gatherv (a, counts[me], MPI_DOUBLE, b, counts, displs, MPI_DOUBLE, 0, comm));
  CHECK (MPI_Scatterv (a, counts, displs, MPI_DOUBLE, b, counts[me], MPI_DOUBLE, 1, comm));
  CHECK (MPI_Allgatherv (a, counts[me], MPI_DOUBLE, b, counts, displs, MPI_DOUBLE, comm));
  /* what i sends j, j receives from i */
  int sc[2] = { 2 + me, 5 + me }, rc[2] = { 2 + 3 * me, 3 + 3 * me }, d[2] = { 0, 10 };
  CHECK (MPI_Alltoallv (a, sc, d, MPI_DOUBLE, b, rc, d, MPI_DOUBLE, comm));
  work (20000);
  (void) n;
}

int
main (int argc, char **argv)
{
  int me, n;
  CHECK (MPI_Init (&argc, &argv));
  MPI_Comm_rank (MPI_COMM_WORLD, &me);
  MPI_Comm_size (MPI_COMM_WORLD, &n);
  if (n != 2) {
    fprintf (stderr, "replay-calls: run on 2 ranks\n");
    MPI_Abort (MPI_COMM_WORLD, 2);
  }
  int peer = 1 - me;
  double s[4096] = { 0 }, r[4096];
  MPI_Request rq[4];

  /* persistent requests, started three times, then freed */
  CHECK (MPI_Send_init (s, 600, MPI_DOUBLE, peer, 5, MPI_COMM_WORLD, &rq[0]));
  CHECK (MPI_Recv_init (r, 600, MPI_DOUBLE, peer, 5, MPI_COMM_WORLD, &rq[1]));
  for (int i = 0; i < 3; i++) {
    CHECK (MPI_Startall (2, rq));
    work (30000);
    CHECK (MPI_Waitall (2, rq, MPI_STATUSES_IGNORE));
  }
  CHECK (MPI_Start (&rq[0]));
  CHECK (MPI_Start (&rq[1]));
  CHECK (MPI_Wait (&rq[1], MPI_STATUS_IGNORE));
  CHECK (MPI_Wait (&rq[0], MPI_STATUS_IGNORE));
  CHECK (MPI_Request_free (&rq[0]));
  CHECK (MPI_Request_free (&rq[1]));

  /* communicators: collectives on each, and point-to-point on one whose
   * ranks are the world's the other way round */
  MPI_Comm split, dup, cart, sub, created;
  CHECK (MPI_Comm_split (MPI_COMM_WORLD, 0, -me, &split));
  CHECK (MPI_Comm_dup (MPI_COMM_WORLD, &dup));
  int dims[2] = { 2, 1 }, periods[2] = { 1, 0 }, keep[2] = { 1, 0 };
  CHECK (MPI_Cart_create (dup, 2, dims, periods, 0, &cart));
  CHECK (MPI_Cart_sub (cart, keep, &sub));
  MPI_Group world_group, group;
  int order[2] = { 1, 0 };
  MPI_Comm_group (MPI_COMM_WORLD, &world_group);
  MPI_Group_incl (world_group, 2, order, &group);
  CHECK (MPI_Comm_create (MPI_COMM_WORLD, group, &created));
  collectives (split);
  collectives (dup);
  collectives (sub);
  collectives (created);
  /* split's ranks are the world's reversed: my peer there has my world rank */
  int speer = me;
  MPI_Status st;
  CHECK (MPI_Sendrecv (s, 100, MPI_DOUBLE, speer, 7, r, 100, MPI_DOUBLE, MPI_ANY_SOURCE, 7,
                       split, &st));

  /* non-blocking collectives on the cartesian communicator */
  double x = me, y;
  CHECK (MPI_Ibarrier (cart, &rq[0]));
  CHECK (MPI_Ibcast (s, 300, MPI_DOUBLE, 0, cart, &rq[1]));
  CHECK (MPI_Iallgather (s, 20, MPI_DOUBLE, r, 20, MPI_DOUBLE, cart, &rq[2]));
  work (40000);
  CHECK (MPI_Waitall (3, rq, MPI_STATUSES_IGNORE));
  CHECK (MPI_Allreduce (&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));

  /* matched probes and a wildcard receive on dup */
  if (me == 0) {
    CHECK (MPI_Send (s, 50, MPI_DOUBLE, 1, 9, dup));
    CHECK (MPI_Send (s, 70, MPI_DOUBLE, 1, 10, dup));
    CHECK (MPI_Ssend (s, 2000, MPI_DOUBLE, 1, 11, dup));
  } else {
    MPI_Message msg;
    int flag = 0;
    CHECK (MPI_Mprobe (MPI_ANY_SOURCE, 9, dup, &msg, &st));
    CHECK (MPI_Mrecv (r, 50, MPI_DOUBLE, &msg, &st));
    while (!flag)
      CHECK (MPI_Improbe (0, 10, dup, &flag, &msg, &st));
    CHECK (MPI_Imrecv (r, 70, MPI_DOUBLE, &msg, &rq[0]));
    CHECK (MPI_Wait (&rq[0], &st));
    CHECK (MPI_Irecv (r, 2000, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, dup, &rq[0]));
    CHECK (MPI_Wait (&rq[0], &st));
  }
  /* MPI_PROC_NULL peers: nothing happens */
  CHECK (MPI_Send (s, 10, MPI_DOUBLE, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
  CHECK (MPI_Recv (r, 10, MPI_DOUBLE, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
  /* a send freed while active: it completes by MPI_Finalize */
  CHECK (MPI_Isend (s, 30, MPI_DOUBLE, peer, 12, MPI_COMM_WORLD, &rq[0]));
  CHECK (MPI_Request_free (&rq[0]));
  CHECK (MPI_Recv (r, 30, MPI_DOUBLE, peer, 12, MPI_COMM_WORLD, &st));
  /* a send whose handle the program loses (HPC Challenge's b_eff does):
   * MPI completes it anyway */
  CHECK (MPI_Isend (s, 40, MPI_DOUBLE, peer, 13, MPI_COMM_WORLD, &rq[0]));
  CHECK (MPI_Recv (r, 40, MPI_DOUBLE, peer, 13, MPI_COMM_WORLD, &st));
  CHECK (MPI_Barrier (MPI_COMM_WORLD));

  MPI_Comm_free (&created);
  MPI_Comm_free (&sub);
  MPI_Comm_free (&cart);
  MPI_Comm_free (&dup);
  MPI_Comm_free (&split);
  MPI_Group_free (&group);
  MPI_Group_free (&world_group);
  MPI_Finalize ();
  return sink < 0;
}
