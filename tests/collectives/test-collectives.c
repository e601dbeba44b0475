/* Collectives and communicators (wsl/collectives.c, wsl/comm.c) against
 * closed forms worked out by hand from net-simple's equations and the
 * engine's protocol notes; wsl/COLLECTIVES.md states the general forms.
 *
 * System used throughout (latency/bandwidth form of net-simple):
 *   L = 10 us, B = 100 MB/s (1000 bytes take 10 us on the wire),
 *   o_s = 2 us, o_r = 3 us, eager limit 16384 bytes;
 *   cpu-clc with AFDL = 0.02 us, so combining 1000 bytes (125 doubles)
 *   costs c = 2.5 us.
 * With n = 1000 bytes one eager hop costs S = o_s + L + n/B + o_r = 25 us
 * and a 0-byte one S0 = o_s + L + o_r = 15 us.
 *
 * A sendrecv step (irecv, isend, waitall) is 3 events; a blocking send or
 * receive 1; a combine 1. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "wsl-private.h"
#include "coll-private.h"   /* the mismatch check's records */

#define US 1e-6

static const char *const net_lb =
  "<net_simple><latency unit='us'>10</latency><bandwidth unit='MB/s'>100</bandwidth>"
  "<send_overhead unit='us'>2</send_overhead><recv_overhead unit='us'>3</recv_overhead>"
  "<eager_limit unit='B'>16384</eager_limit></net_simple>";

static char *
write_file (const char *dir, const char *name, const char *text)
{
  char *path = g_build_filename (dir, name, NULL);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  return path;
}

/* A system of @nodes nodes, with @mpi (NULL: none) as its <mpi> element. */
static char *
system_xml (guint nodes, const char *mpi, gboolean afdl)
{
  return g_strdup_printf (
    "<system name='test'>\n"
    "  <computer name='node' count='%u'>\n"
    "    <cpu_clc unit='us'><LFOR>1</LFOR><MFDL>2</MFDL>%s</cpu_clc>\n"
    "  </computer>\n"
    "  <network name='net'>%s</network>\n"
    "  <connect computer='node' nodes='1-%u' network='net' ports='1-%u'/>\n"
    "%s"
    "</system>\n", nodes, afdl ? "<AFDL>0.02</AFDL>" : "", net_lb, nodes, nodes,
    mpi ? mpi : "");
}

/* The common system (64 nodes, AFDL priced), written once. */
static char *common_dir, *common_system;

static PtiContext *
context_full (guint procs, const char *mpi, gboolean afdl)
{
  g_autoptr (GError) error = NULL;
  PtiContext *ctx;
  if (mpi == NULL && afdl && procs <= 64) {
    if (common_system == NULL) {
      common_dir = g_dir_make_tmp ("pti-coll-XXXXXX", &error);
      g_assert_no_error (error);
      g_autofree char *xml = system_xml (64, NULL, TRUE);
      common_system = write_file (common_dir, "system.xml", xml);
    }
    ctx = pti_context_new (common_system, NULL, &error);
  } else {
    g_autofree char *dir = g_dir_make_tmp ("pti-coll-XXXXXX", &error);
    g_assert_no_error (error);
    g_autofree char *xml = system_xml (MAX (procs, 16), mpi, afdl);
    g_autofree char *path = write_file (dir, "system.xml", xml);
    ctx = pti_context_new (path, NULL, &error);
    g_unlink (path);
    g_rmdir (dir);
  }
  g_assert_no_error (error);
  g_assert_true (pti_context_set_processes (ctx, procs, &error));
  g_assert_no_error (error);
  return ctx;
}

static PtiContext *
context_new (guint procs)
{
  return context_full (procs, NULL, TRUE);
}

static void
evaluate (PtiContext *ctx)
{
  g_autoptr (GError) error = NULL;
  gboolean ok = pti_evaluate (ctx, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
}

static PtiProcessResult
result (PtiContext *ctx, guint rank)
{
  PtiProcessResult r;
  g_assert_true (pti_result_process (ctx, rank, &r));
  return r;
}

#define assert_time(actual, expected) \
  g_assert_cmpfloat_with_epsilon ((actual), (expected), 1e-12)

typedef enum {
  C_BARRIER, C_BCAST, C_REDUCE, C_ALLREDUCE, C_GATHER, C_SCATTER, C_ALLGATHER, C_ALLTOALL,
  C_ALLTOALLV,
} Which;

/* Every rank calls collective @w (root @root, @n bytes; alltoallv: n to
 * everyone) on @comm (NULL: world) and the workload is evaluated. */
static void
all_call (PtiContext *ctx, const PtiComm *comm, Which w, guint root, guint64 n)
{
  g_autoptr (GError) error = NULL;
  guint p = pti_context_get_processes (ctx);
  for (guint r = 0; r < p && error == NULL; r++) {
    if (comm != NULL && pti_comm_rank (comm, r) < 0)
      continue;
    gboolean ok = FALSE;
    switch (w) {
    case C_BARRIER: ok = pti_mpi_barrier_comm (ctx, comm, r, &error); break;
    case C_BCAST: ok = pti_mpi_bcast_comm (ctx, comm, r, root, n, &error); break;
    case C_REDUCE: ok = pti_mpi_reduce_comm (ctx, comm, r, root, n, &error); break;
    case C_ALLREDUCE: ok = pti_mpi_allreduce_comm (ctx, comm, r, n, &error); break;
    case C_GATHER: ok = pti_mpi_gather_comm (ctx, comm, r, root, n, &error); break;
    case C_SCATTER: ok = pti_mpi_scatter_comm (ctx, comm, r, root, n, &error); break;
    case C_ALLGATHER: ok = pti_mpi_allgather_comm (ctx, comm, r, n, &error); break;
    case C_ALLTOALL: ok = pti_mpi_alltoall_comm (ctx, comm, r, n, &error); break;
    case C_ALLTOALLV: {
      guint size = comm ? pti_comm_size (comm, r) : p;
      g_autofree guint64 *v = g_new (guint64, size);
      for (guint j = 0; j < size; j++)
        v[j] = n;
      ok = pti_mpi_alltoallv_comm (ctx, comm, r, v, v, &error);
      break;
    }
    }
    g_assert_no_error (error);
    g_assert_true (ok);
  }
}

/* One collective on the world: the predicted time, and the events. */
static double
run_one (guint p, const char *collective, const char *algorithm, Which w, guint root, guint64 n,
         guint64 *events)
{
  g_autoptr (PtiContext) ctx = context_new (p);
  g_autoptr (GError) error = NULL;
  if (algorithm != NULL) {
    g_assert_true (pti_context_set_collective_algorithm (ctx, collective, algorithm, &error));
    g_assert_no_error (error);
  }
  all_call (ctx, NULL, w, root, n);
  evaluate (ctx);
  if (events != NULL)
    *events = pti_result_events (ctx);
  return pti_result_time (ctx);
}

/* The collectives MPI added around the first ones, called by every rank
 * of the world with the same arguments: @v (one size per rank) for the
 * vector ones, @n otherwise; @root for gatherv and scatterv. */
typedef enum {
  V_SCAN, V_EXSCAN, V_REDUCE_SCATTER, V_REDUCE_SCATTER_BLOCK, V_GATHERV, V_SCATTERV, V_ALLGATHERV,
} WhichV;

static void
all_call_v (PtiContext *ctx, WhichV w, guint root, guint64 n, const guint64 *v)
{
  g_autoptr (GError) error = NULL;
  guint p = pti_context_get_processes (ctx);
  for (guint r = 0; r < p; r++) {
    gboolean ok = FALSE;
    switch (w) {
    case V_SCAN: ok = pti_mpi_scan (ctx, r, n, &error); break;
    case V_EXSCAN: ok = pti_mpi_exscan (ctx, r, n, &error); break;
    case V_REDUCE_SCATTER: ok = pti_mpi_reduce_scatter (ctx, r, v, &error); break;
    case V_REDUCE_SCATTER_BLOCK: ok = pti_mpi_reduce_scatter_block (ctx, r, n, &error); break;
    case V_GATHERV: ok = pti_mpi_gatherv (ctx, r, root, v[r], r == root ? v : NULL, &error); break;
    case V_SCATTERV: ok = pti_mpi_scatterv (ctx, r, root, r == root ? v : NULL, v[r], &error); break;
    case V_ALLGATHERV: ok = pti_mpi_allgatherv (ctx, r, v, &error); break;
    }
    g_assert_no_error (error);
    g_assert_true (ok);
  }
}

/* One such collective on @p ranks (algorithm @alg of @coll if not NULL). */
static double
run_v (guint p, const char *coll, const char *alg, WhichV w, guint root, guint64 n,
       const guint64 *v, guint64 *events)
{
  g_autoptr (PtiContext) ctx = context_new (p);
  g_autoptr (GError) error = NULL;
  if (alg != NULL)
    g_assert_true (pti_context_set_collective_algorithm (ctx, coll, alg, &error));
  g_assert_no_error (error);
  all_call_v (ctx, w, root, n, v);
  evaluate (ctx);
  if (events != NULL)
    *events = pti_result_events (ctx);
  return pti_result_time (ctx);
}

/* Scan by recursive doubling, 1000 B on 8 ranks: at each mask the partners
 * swap (S = 25 us) and a rank above its partner combines twice, one below
 * once: rank 7 is above at every step, 3 (S + 2c) = 90 us.  Events: 3
 * sendrecvs of 3 events each per rank, plus 3 + popcount(r) combines: 8 x
 * 12 + 12 = 108.  Exscan: the first data from below is copied, not
 * combined, so rank 7 takes 25 + 2.5, + 25 + 5, + 25 + 5 = 87.5 us; 5
 * second combines in all: 101 events.  On 5 ranks rank 4 has no partner at
 * masks 1 and 2 and meets rank 0 (at 55 us after two steps) at mask 4:
 * 55 + 25 + 5 = 85 us. */
static void
test_scan (void)
{
  guint64 ev;
  assert_time (run_v (8, NULL, NULL, V_SCAN, 0, 1000, NULL, &ev), 90 * US);
  g_assert_cmpuint (ev, ==, 108);
  assert_time (run_v (8, NULL, NULL, V_EXSCAN, 0, 1000, NULL, &ev), 87.5 * US);
  g_assert_cmpuint (ev, ==, 101);
  assert_time (run_v (5, NULL, NULL, V_SCAN, 0, 1000, NULL, &ev), 85 * US);
  assert_time (run_v (8, NULL, NULL, V_SCAN, 0, 0, NULL, &ev), 0);
  g_assert_cmpuint (ev, ==, 0);
}

/* Reduce-scatter.  Recursive halving, 1000 B per rank on 4 ranks: swap 2000
 * B halves and combine (35 + 5), then 1000 B (25 + 2.5): 67.5 us, 8 events
 * per rank.  On 6 ranks (pof2 4, rem 2): ranks 0 and 2 send their 6000 B to
 * 1 and 3 (75 us, combined in 15 us: 90 us); newranks 0..3 are ranks 1, 3,
 * 4, 5 with blocks 2000, 2000, 1000, 1000 B.  Mask 2: rank 1 (at 90) sends
 * 2000 B to rank 4 (at 0), which sent it 4000 B at 0: rank 1 is done at 92
 * + 3, combines 4000 B: 105; rank 4 gets its 2000 B at 90 + 32, + 3 + 5 =
 * 130 us (ranks 3 and 5 alike).  Mask 1: ranks 1 and 3 swap 2000 B, 105 +
 * 35 + 5 = 145; ranks 4 and 5 swap 1000 B, 130 + 25 + 2.5 = 157.5.  Then
 * rank 1 sends rank 0 its 1000 B: 145 + 25 = 170 us.  Pairwise (forced):
 * 3 (S + c) = 82.5 us.  The _block form equals equal counts; a vector of
 * zeros sends nothing. */
static void
test_reduce_scatter (void)
{
  guint64 ev;
  const guint64 k1[6] = { 1000, 1000, 1000, 1000, 1000, 1000 }, zero[4] = { 0 };
  assert_time (run_v (4, NULL, NULL, V_REDUCE_SCATTER_BLOCK, 0, 1000, NULL, &ev), 67.5 * US);
  g_assert_cmpuint (ev, ==, 32);
  assert_time (run_v (4, NULL, NULL, V_REDUCE_SCATTER, 0, 0, k1, &ev), 67.5 * US);
  assert_time (run_v (6, NULL, NULL, V_REDUCE_SCATTER, 0, 0, k1, &ev), 170 * US);
  assert_time (run_v (6, NULL, NULL, V_REDUCE_SCATTER_BLOCK, 0, 1000, NULL, &ev), 170 * US);
  assert_time (run_v (4, "reduce_scatter", "pairwise", V_REDUCE_SCATTER, 0, 0, k1, &ev),
               82.5 * US);
  g_assert_cmpuint (ev, ==, 4 * 3 * 4);
  assert_time (run_v (4, "reduce_scatter_block", "pairwise", V_REDUCE_SCATTER_BLOCK, 0, 1000,
                      NULL, &ev), 82.5 * US);
  assert_time (run_v (4, NULL, NULL, V_REDUCE_SCATTER, 0, 0, zero, &ev), 0);
  g_assert_cmpuint (ev, ==, 0);
}

/* Gatherv and scatterv, linear.  Gatherv to root 0 of 0, 1000, 2000 and
 * 3000 B: the root posts 3 receives, the last data is in at 2 + 10 + 30 =
 * 42 us, plus 3 o_r: 51 us; 4 + 3 events.  A root's own block is a copy:
 * with 500, 0, 2000, 3000 B, two receives, 42 + 6 = 48 us.  On 32 ranks of
 * 1000 B each the others send synchronously: each request is in at 12, the
 * answers at 22, the data at 42, plus 31 o_r: 135 us, and a sender is done
 * at 32 us.  Scatterv from root 1 of 1000, 0, 2000, 3000 B: the root posts
 * its sends 2 us apart (o_s), so rank 3's data is in at 6 + 10 + 30 = 46,
 * done at 49 us; the root at 6 us. */
static void
test_gatherv_scatterv (void)
{
  guint64 ev;
  const guint64 g[4] = { 0, 1000, 2000, 3000 }, g2[4] = { 500, 0, 2000, 3000 };
  const guint64 sc[4] = { 1000, 0, 2000, 3000 };
  assert_time (run_v (4, NULL, NULL, V_GATHERV, 0, 0, g, &ev), 51 * US);
  g_assert_cmpuint (ev, ==, 7);
  assert_time (run_v (4, NULL, NULL, V_GATHERV, 0, 0, g2, &ev), 48 * US);
  g_autofree guint64 *k32 = g_new (guint64, 32);
  for (guint i = 0; i < 32; i++)
    k32[i] = 1000;
  {
    g_autoptr (PtiContext) ctx = context_new (32);
    all_call_v (ctx, V_GATHERV, 0, 0, k32);
    evaluate (ctx);
    assert_time (pti_result_time (ctx), 135 * US);
    assert_time (result (ctx, 5).end, 32 * US);
  }
  {
    g_autoptr (PtiContext) ctx = context_new (4);
    all_call_v (ctx, V_SCATTERV, 1, 0, sc);
    evaluate (ctx);
    assert_time (pti_result_time (ctx), 49 * US);
    assert_time (result (ctx, 1).end, 6 * US);
    assert_time (result (ctx, 0).end, 25 * US);
    assert_time (result (ctx, 2).end, 37 * US);
    g_assert_cmpuint (pti_result_events (ctx), ==, 4 + 3);
  }
}

/* Allgatherv.  Recursive doubling on 4 ranks of 1000, 2000, 3000, 4000 B:
 * mask 1, rank 0 gets 2000 B (35 us) and rank 2 gets 4000 B (55 us); mask
 * 2, rank 0 gets ranks 2 and 3's 7000 B, sent by rank 2 at 55 us: 55 + 2 +
 * 10 + 70 + 3 = 140 us.  Bruck on 5 ranks of 1000 B: 1000, 2000, then the
 * last 1000 B: 25 + 35 + 25 = 85 us.  Ring (forced) on 3 ranks of 1000,
 * 2000, 0 B: rank 1 sends 2000 B to 2 at 0 (in at 32), rank 2 then sends
 * them to 0 at 35 (in at 67): rank 0 is done at 70 us; 12 events. */
static void
test_allgatherv (void)
{
  guint64 ev;
  const guint64 v4[4] = { 1000, 2000, 3000, 4000 }, k5[5] = { 1000, 1000, 1000, 1000, 1000 };
  const guint64 v3[3] = { 1000, 2000, 0 };
  assert_time (run_v (4, NULL, NULL, V_ALLGATHERV, 0, 0, v4, &ev), 140 * US);
  g_assert_cmpuint (ev, ==, 4 * 6);
  assert_time (run_v (5, NULL, NULL, V_ALLGATHERV, 0, 0, k5, &ev), 85 * US);
  g_assert_cmpuint (ev, ==, 5 * 9);
  assert_time (run_v (3, "allgatherv", "ring", V_ALLGATHERV, 0, 0, v3, &ev), 70 * US);
  g_assert_cmpuint (ev, ==, 12);
  /* Pipelined: 70001 and 0 B on 2 ranks go as 32768 + 32768 + 4465 B,
   * the first two by rendezvous (over the 16384-B eager limit).  The
   * first: request in at 12, answer at 22, data left at 349.68 us, in at
   * 359.68, rank 1 done waiting at 362.68.  The second's request is in at
   * 361.68 and answered when rank 1 posts its receive, at 362.68: reply in
   * at 372.68, data left at 700.36.  The third, eager, enters at 702.36 and
   * is in at 757.01: 760.01 us.  Rank 0 only sends, rank 1 only receives:
   * 3 + 6 events (MPICH's guard against the indices going round). */
  const guint64 v2[2] = { 70001, 0 };
  assert_time (run_v (2, "allgatherv", "ring", V_ALLGATHERV, 0, 0, v2, &ev), 760.01 * US);
  g_assert_cmpuint (ev, ==, 9);
}

/* Every algorithm of the collectives above, on 1 to 17 ranks, with blocks
 * of several sizes (some empty): every message is received and nothing
 * deadlocks. */
static void
test_all_algorithms_v (void)
{
  static const struct {
    const char *coll;
    WhichV w;
    const char *algs[4];
  } table[] = {
    { "scan", V_SCAN, { "recursive_doubling" } },
    { "exscan", V_EXSCAN, { "recursive_doubling" } },
    { "reduce_scatter", V_REDUCE_SCATTER, { "recursive_halving", "pairwise" } },
    { "reduce_scatter_block", V_REDUCE_SCATTER_BLOCK, { "recursive_halving", "pairwise" } },
    { "gatherv", V_GATHERV, { "linear" } },
    { "scatterv", V_SCATTERV, { "linear" } },
    { "allgatherv", V_ALLGATHERV, { "recursive_doubling", "brucks", "ring" } },
  };
  static const guint64 sizes[] = { 1, 13, 8000, 70001 };
  static const guint procs[] = { 1, 2, 3, 4, 5, 6, 7, 8, 11, 16, 17 };
  guint64 v[17];
  for (guint pi = 0; pi < G_N_ELEMENTS (procs); pi++)
    for (guint i = 0; i < G_N_ELEMENTS (table); i++)
      for (guint a = 0; a < 4; a++)
        for (guint s = 0; s < G_N_ELEMENTS (sizes) && (a == 3 || table[i].algs[a] != NULL); s++) {
          const char *alg = a == 3 ? "auto" : table[i].algs[a];
          guint p = procs[pi];
          for (guint j = 0; j < p; j++)
            v[j] = (j % 3 == 1) ? 0 : sizes[s] * (j + 1);
          g_autoptr (PtiContext) ctx = context_new (p);
          g_autoptr (GError) error = NULL;
          g_assert_true (pti_context_set_collective_algorithm (ctx, table[i].coll, alg, &error));
          all_call_v (ctx, table[i].w, p / 2, sizes[s], v);
          all_call_v (ctx, table[i].w, p - 1, sizes[s], v);
          gboolean ok = pti_evaluate (ctx, &error);
          if (!ok)
            g_test_message ("%s %s on %u ranks, %" G_GUINT64_FORMAT " B: %s", table[i].coll, alg,
                            p, sizes[s], error->message);
          g_assert_no_error (error);
        }
}

/* Mistakes: vectors missing where MPI needs them, different totals. */
static void
test_vector_mistakes (void)
{
  g_autoptr (PtiContext) ctx = context_new (4);
  GError *error = NULL;
  const guint64 v[4] = { 1, 2, 3, 4 }, w[4] = { 1, 2, 3, 5 };
  g_assert_false (pti_mpi_gatherv (ctx, 0, 0, 8, NULL, &error));
  g_assert_nonnull (strstr (error->message, "gatherv on rank 0: the root's receive sizes are "
                                            "required"));
  g_clear_error (&error);
  g_assert_false (pti_mpi_scatterv (ctx, 2, 2, NULL, 8, &error));
  g_assert_nonnull (strstr (error->message, "the root's send sizes are required"));
  g_clear_error (&error);
  g_assert_false (pti_mpi_allgatherv (ctx, 1, NULL, &error));
  g_assert_nonnull (strstr (error->message, "allgatherv on rank 1: the receive sizes are required"));
  g_clear_error (&error);
  g_assert_true (pti_mpi_reduce_scatter (ctx, 0, v, &error));
  g_assert_false (pti_mpi_reduce_scatter (ctx, 1, w, &error));
  g_assert_nonnull (strstr (error->message, "is reduce_scatter (11 bytes) on rank 1 but "
                                            "reduce_scatter (10 bytes) on rank 0"));
  g_clear_error (&error);
  const guint64 huge[4] = { G_MAXUINT64, 1, 0, 0 };
  g_assert_false (pti_mpi_allgatherv (ctx, 1, huge, &error));
  g_assert_nonnull (strstr (error->message, "the sizes add up to more than"));
  g_clear_error (&error);
  g_assert_false (pti_mpi_gatherv (ctx, 0, 4, 8, v, &error));
  g_assert_nonnull (strstr (error->message, "root 4 out of range"));
  g_clear_error (&error);
}

/* ---- non-blocking ---------------------------------------------------------- */

/* A computation of 30 us (15 MFDL at 2 us). */
static const char nb_work_rud[] = "<rud device='cpu'><loop iter='15' of='MFDL'/></rud>";

/* Iallreduce of 1000 B, 30 us of computation, wait.  On 2 ranks the one
 * step is posted at the call (isend: o_s, 2 us), the data is in at 22 us
 * while the rank computes (2 to 32), so the wait ends at 32 + o_r = 35 and
 * the combine at 37.5 us: the exchange overlapped the computation (the
 * blocking allreduce then the computation: 57.5 us).  On 4 ranks the
 * second step waits for the first: it is made in the wait, 37.5 + S + c =
 * 65 us (blocking: 85 us). */
static void
test_nb_overlap (void)
{
  for (guint p = 2; p <= 4; p += 2) {
    g_autoptr (PtiContext) ctx = context_new (p);
    g_autoptr (GError) error = NULL;
    g_autoptr (PtiRud) work = pti_rud_new (ctx, "work", nb_work_rud, &error);
    for (guint r = 0; r < p; r++) {
      PtiRequest req;
      g_assert_true (pti_mpi_iallreduce (ctx, r, 1000, &req, &error));
      g_assert_cmpuint (req, !=, PTI_REQUEST_NULL);
      g_assert_true (pti_use (ctx, r, work, &error));
      g_assert_true (pti_mpi_wait (ctx, r, req, &error));
      g_assert_no_error (error);
    }
    evaluate (ctx);
    assert_time (pti_result_time (ctx), (p == 2 ? 37.5 : 65) * US);
    /* 2 ranks: irecv, isend, compute, waitall, combine; 4: + 3 + 1 */
    g_assert_cmpuint (result (ctx, 0).events, ==, p == 2 ? 5 : 9);
  }
}

/* Ibcast from root 0 on 4 ranks, 1000 B, waited for at once: as the
 * blocking binomial bcast, 2 S = 50 us.  The root posts both sends at the
 * call; rank 2 forwards to rank 3 in its wait.  A non-blocking collective
 * with nothing to do gives PTI_REQUEST_NULL, which waits skip. */
static void
test_nb_bcast (void)
{
  g_autoptr (PtiContext) ctx = context_new (4);
  g_autoptr (GError) error = NULL;
  for (guint r = 0; r < 4; r++) {
    PtiRequest req[2];
    g_assert_true (pti_mpi_ibcast (ctx, r, 0, 1000, &req[0], &error));
    g_assert_true (pti_mpi_iallreduce (ctx, r, 0, &req[1], &error));
    g_assert_cmpuint (req[1], ==, PTI_REQUEST_NULL);
    g_assert_true (pti_mpi_waitall (ctx, r, 2, req, &error));
    g_assert_no_error (error);
  }
  evaluate (ctx);
  assert_time (pti_result_time (ctx), 50 * US);
  assert_time (result (ctx, 0).end, 4 * US);
  g_assert_cmpuint (result (ctx, 0).events, ==, 3);   /* isend, isend, waitall */
  g_assert_cmpuint (result (ctx, 2).events, ==, 3);   /* irecv, waitall, send */
}

/* Several outstanding on one communicator, completed in different orders
 * by different ranks: each call has its own tags, so the messages of one
 * never match the other's (with one tag this would mismatch or deadlock).
 * Every combination of the blocking and non-blocking forms agrees with the
 * blocking run on the times of a chain of two allreduces when each is
 * waited for at once. */
static void
test_nb_outstanding (void)
{
  g_autoptr (GError) error = NULL;
  {
    g_autoptr (PtiContext) ctx = context_new (8);
    for (guint r = 0; r < 8; r++) {
      PtiRequest a, b, c;
      guint64 v[8] = { 100, 200, 300, 400, 500, 600, 700, 800 };
      g_assert_true (pti_mpi_iallreduce (ctx, r, 1000, &a, &error));
      g_assert_true (pti_mpi_iallgatherv (ctx, r, v, &b, &error));
      g_assert_true (pti_mpi_ibarrier (ctx, r, &c, &error));
      if (r % 2 == 0) {
        g_assert_true (pti_mpi_wait (ctx, r, a, &error));
        g_assert_true (pti_mpi_wait (ctx, r, b, &error));
        g_assert_true (pti_mpi_wait (ctx, r, c, &error));
      } else {
        PtiRequest cb[2] = { c, b };
        g_assert_true (pti_mpi_waitall (ctx, r, 2, cb, &error));
        g_assert_true (pti_mpi_wait (ctx, r, a, &error));
      }
      g_assert_no_error (error);
    }
    evaluate (ctx);
  }
  {
    g_autoptr (PtiContext) nb = context_new (8), blocking = context_new (8);
    for (guint r = 0; r < 8; r++) {
      PtiRequest a;
      g_assert_true (pti_mpi_iallreduce (nb, r, 1000, &a, &error));
      g_assert_true (pti_mpi_wait (nb, r, a, &error));
      g_assert_true (pti_mpi_ireduce_scatter_block (nb, r, 500, &a, &error));
      g_assert_true (pti_mpi_wait (nb, r, a, &error));
      g_assert_true (pti_mpi_allreduce (blocking, r, 1000, &error));
      g_assert_true (pti_mpi_reduce_scatter_block (blocking, r, 500, &error));
      g_assert_no_error (error);
    }
    evaluate (nb);
    evaluate (blocking);
    for (guint r = 0; r < 8; r++)
      assert_time (result (nb, r).end, result (blocking, r).end);
  }
}

/* Every algorithm of every collective, non-blocking and waited for at
 * once, on 1 to 17 ranks: it evaluates, and with messages small enough to
 * be eager (1 and 13 B) each rank ends when the blocking form ends (an
 * eager isend waited for later costs what a blocking send costs). */
static void
test_nb_all (void)
{
  static const struct {
    CollKind kind;
    const char *algs[4];
  } table[] = {
    { COLL_BARRIER, { "dissemination", "binomial" } },
    { COLL_BCAST, { "binomial", "scatter_recursive_doubling_allgather", "scatter_ring_allgather" } },
    { COLL_REDUCE, { "binomial", "reduce_scatter_gather" } },
    { COLL_ALLREDUCE, { "recursive_doubling", "reduce_scatter_allgather", "ring" } },
    { COLL_GATHER, { "binomial" } },
    { COLL_SCATTER, { "binomial" } },
    { COLL_ALLGATHER, { "recursive_doubling", "brucks", "ring" } },
    { COLL_ALLTOALL, { "brucks", "scattered", "pairwise" } },
    { COLL_ALLTOALLV, { "scattered", "pairwise" } },
    { COLL_SCAN, { "recursive_doubling" } },
    { COLL_EXSCAN, { "recursive_doubling" } },
    { COLL_REDUCE_SCATTER, { "recursive_halving", "pairwise" } },
    { COLL_REDUCE_SCATTER_BLOCK, { "recursive_halving", "pairwise" } },
    { COLL_GATHERV, { "linear" } },
    { COLL_SCATTERV, { "linear" } },
    { COLL_ALLGATHERV, { "recursive_doubling", "brucks", "ring" } },
  };
  static const guint64 sizes[] = { 1, 13, 20001 };
  static const guint procs[] = { 1, 2, 3, 5, 8, 13, 17 };
  guint64 v[17];
  for (guint pi = 0; pi < G_N_ELEMENTS (procs); pi++)
    for (guint i = 0; i < G_N_ELEMENTS (table); i++)
      for (guint a = 0; a < 4 && table[i].algs[a] != NULL; a++)
        for (guint s = 0; s < G_N_ELEMENTS (sizes); s++) {
          guint p = procs[pi];
          guint64 n = sizes[s];
          for (guint j = 0; j < p; j++)   /* alltoallv: what i sends j, j receives from i */
            v[j] = (j % 3 == 1 && table[i].kind != COLL_ALLTOALLV) ? 0 : n;
          g_autoptr (PtiContext) nb = context_new (p), blocking = context_new (p);
          g_autoptr (GError) error = NULL;
          const char *coll = pti_coll_kind_name (table[i].kind);
          g_assert_true (pti_context_set_collective_algorithm (nb, coll, table[i].algs[a], &error));
          g_assert_true (pti_context_set_collective_algorithm (blocking, coll, table[i].algs[a],
                                                               &error));
          for (guint r = 0; r < p; r++) {
            PtiRequest req;
            guint root = p / 2;
            const guint64 *sendv = table[i].kind == COLL_ALLTOALLV || table[i].kind == COLL_SCATTERV
                                   ? v : NULL;
            CollKind k = table[i].kind;
            const guint64 *recvv = k == COLL_ALLTOALLV || k == COLL_REDUCE_SCATTER
                                   || k == COLL_GATHERV || k == COLL_ALLGATHERV ? v : NULL;
            guint64 mine = table[i].kind == COLL_GATHERV || table[i].kind == COLL_SCATTERV ? v[r] : n;
            g_assert_true (pti_coll_istart (nb, NULL, table[i].kind, r, root, mine, sendv, recvv,
                                            &req, &error));
            g_assert_no_error (error);
            g_assert_true (pti_mpi_wait (nb, r, req, &error));
            g_assert_no_error (error);
          }
          gboolean ok = pti_evaluate (nb, &error);
          if (!ok)
            g_test_message ("i%s %s on %u ranks, %" G_GUINT64_FORMAT " B: %s", coll,
                            table[i].algs[a], p, n, error->message);
          g_assert_no_error (error);
          if (n > 13)
            continue;
          /* the same, blocking */
          for (guint r = 0; r < p; r++) {
            gboolean done = FALSE;
            guint root = p / 2;
            switch (table[i].kind) {
            case COLL_BARRIER: done = pti_mpi_barrier (blocking, r, &error); break;
            case COLL_BCAST: done = pti_mpi_bcast (blocking, r, root, n, &error); break;
            case COLL_REDUCE: done = pti_mpi_reduce (blocking, r, root, n, &error); break;
            case COLL_ALLREDUCE: done = pti_mpi_allreduce (blocking, r, n, &error); break;
            case COLL_GATHER: done = pti_mpi_gather (blocking, r, root, n, &error); break;
            case COLL_SCATTER: done = pti_mpi_scatter (blocking, r, root, n, &error); break;
            case COLL_ALLGATHER: done = pti_mpi_allgather (blocking, r, n, &error); break;
            case COLL_ALLTOALL: done = pti_mpi_alltoall (blocking, r, n, &error); break;
            case COLL_ALLTOALLV: done = pti_mpi_alltoallv (blocking, r, v, v, &error); break;
            case COLL_SCAN: done = pti_mpi_scan (blocking, r, n, &error); break;
            case COLL_EXSCAN: done = pti_mpi_exscan (blocking, r, n, &error); break;
            case COLL_REDUCE_SCATTER: done = pti_mpi_reduce_scatter (blocking, r, v, &error); break;
            case COLL_REDUCE_SCATTER_BLOCK:
              done = pti_mpi_reduce_scatter_block (blocking, r, n, &error);
              break;
            case COLL_GATHERV: done = pti_mpi_gatherv (blocking, r, root, v[r], v, &error); break;
            case COLL_SCATTERV: done = pti_mpi_scatterv (blocking, r, root, v, v[r], &error); break;
            case COLL_ALLGATHERV: done = pti_mpi_allgatherv (blocking, r, v, &error); break;
            default: g_assert_not_reached ();
            }
            g_assert_no_error (error);
            g_assert_true (done);
          }
          evaluate (blocking);
          for (guint r = 0; r < p; r++)
            if (fabs (result (nb, r).end - result (blocking, r).end) > 1e-12)
              g_error ("i%s %s on %u ranks, %" G_GUINT64_FORMAT " B: rank %u ends at %.9g s, "
                       "blocking at %.9g s", coll, table[i].algs[a], p, n, r, result (nb, r).end,
                       result (blocking, r).end);
        }
}

/* Mistakes: a waitany over one, a request never waited for, a blocking
 * and a non-blocking call where every rank must make the same. */
static void
test_nb_mistakes (void)
{
  GError *error = NULL;
  {
    g_autoptr (PtiContext) ctx = context_new (2);
    PtiRequest req;
    g_assert_true (pti_mpi_ibarrier (ctx, 0, &req, &error));
    g_assert_false (pti_mpi_waitany (ctx, 0, 1, &req, &error));
    g_assert_nonnull (strstr (error->message, "waitany on rank 0: request 0 is a non-blocking "
                                              "ibarrier (call #1 on communicator 'world'), which "
                                              "pti completes with wait or waitall only"));
    g_clear_error (&error);
    g_assert_true (pti_mpi_ibarrier (ctx, 1, &req, &error));
    g_assert_false (pti_evaluate (ctx, &error));
    g_assert_nonnull (strstr (error->message, "rank 0: request 0, a non-blocking ibarrier "
                                              "(call #1 on communicator 'world'), is never "
                                              "completed by a wait (2 such requests in all)"));
    g_clear_error (&error);
  }
  {
    g_autoptr (PtiContext) ctx = context_new (2);
    PtiRequest req;
    g_assert_true (pti_mpi_iallreduce (ctx, 0, 8, &req, &error));
    g_assert_false (pti_mpi_allreduce (ctx, 1, 8, &error));
    g_assert_nonnull (strstr (error->message, "is allreduce (8 bytes) on rank 1 but iallreduce "
                                              "(8 bytes) on rank 0"));
    g_clear_error (&error);
  }
}

/* ---- barrier -------------------------------------------------------------- */

/* Dissemination: ceil(log2 P) rounds of a 0-byte sendrecv, 3 S0 = 45 us on
 * 8 ranks and on 5; 3 P ceil(log2 P) events.  The binomial override (a
 * 0-byte reduce to rank 0 then a broadcast) takes 2 ceil(log2 P) S0 = 90 us
 * on 8 ranks, with 4 (P - 1) events. */
static void
test_barrier (void)
{
  guint64 ev;
  assert_time (run_one (8, NULL, NULL, C_BARRIER, 0, 0, &ev), 45 * US);
  g_assert_cmpuint (ev, ==, 3 * 8 * 3);
  assert_time (run_one (5, NULL, NULL, C_BARRIER, 0, 0, &ev), 45 * US);
  g_assert_cmpuint (ev, ==, 3 * 5 * 3);
  assert_time (run_one (8, "barrier", "binomial", C_BARRIER, 0, 0, &ev), 90 * US);
  g_assert_cmpuint (ev, ==, 4 * 7);
  assert_time (run_one (1, NULL, NULL, C_BARRIER, 0, 0, &ev), 0);
  g_assert_cmpuint (ev, ==, 0);
}

/* ---- bcast ------------------------------------------------------------------ */

/* Binomial, 1000 B: on 8 ranks ceil(log2 8) S = 75 us (the chain 0 -> 4 ->
 * 6 -> 7, each sending to its farthest child first).  On 5 ranks from root
 * 2 (relative ranks: v = r - 2 mod 5), v 4 is the root's first child (S =
 * 25 us), v 2 its second (sent from 2 us: 27 us), which sends to v 3:
 * 52 us = o_s + 2 S.  2 (P - 1) events.  A 0-byte bcast sends nothing. */
static void
test_bcast_binomial (void)
{
  guint64 ev;
  assert_time (run_one (8, NULL, NULL, C_BCAST, 0, 1000, &ev), 75 * US);
  g_assert_cmpuint (ev, ==, 14);
  assert_time (run_one (5, NULL, NULL, C_BCAST, 2, 1000, &ev), 52 * US);
  g_assert_cmpuint (ev, ==, 8);
  assert_time (run_one (8, NULL, NULL, C_BCAST, 3, 0, &ev), 0);
  g_assert_cmpuint (ev, ==, 0);
}

/* Scatter + allgather (van de Geijn) on 2 ranks, 16000 B: the root sends
 * its second half, 8000 B, to rank 1 (o_s + L + 80 us + o_r: 95 us), then
 * the halves are swapped: rank 0 sent its half from 2 us (it arrived at 94
 * us), rank 1 sends from 95 us: it arrives at 97 + L + 80 = 187 us and rank
 * 0 ends at 190 us.  The binomial broadcast takes o_s + L + 160 + o_r = 175.
 * Events: 2 for the scatter, 6 for the exchange. */
static void
test_bcast_scatter_allgather (void)
{
  guint64 ev;
  assert_time (run_one (2, "bcast", "scatter_recursive_doubling_allgather", C_BCAST, 0, 16000, &ev),
               190 * US);
  g_assert_cmpuint (ev, ==, 8);
  assert_time (run_one (2, "bcast", "scatter_ring_allgather", C_BCAST, 0, 16000, &ev), 190 * US);
  g_assert_cmpuint (ev, ==, 8);
  assert_time (run_one (2, NULL, NULL, C_BCAST, 0, 16000, &ev), 175 * US);
  g_assert_cmpuint (ev, ==, 2);
}

/* The default choice (MPICH): 16000 B >= 12288 on 8 ranks (a power of two)
 * is a scatter and a recursive-doubling allgather: P - 1 scatter messages
 * (2 events each) and P log2 P exchanges (3 events per rank and step) =
 * 14 + 72 events, and the same time as asking for it.  On 9 ranks (not a
 * power of two) the allgather is a ring: 16 + 9 x 8 x 3 events; asking
 * for recursive doubling there falls back on the ring.  Below 12288 bytes,
 * or on fewer than 8 ranks, binomial. */
static void
test_bcast_choice (void)
{
  guint64 ev, ev2;
  double t = run_one (8, NULL, NULL, C_BCAST, 0, 16000, &ev);
  g_assert_cmpuint (ev, ==, 14 + 72);
  assert_time (run_one (8, "bcast", "scatter_recursive_doubling_allgather", C_BCAST, 0, 16000,
                        &ev2), t);
  g_assert_cmpuint (ev2, ==, ev);
  t = run_one (9, NULL, NULL, C_BCAST, 4, 16000, &ev);
  g_assert_cmpuint (ev, ==, 16 + 9 * 8 * 3);
  assert_time (run_one (9, "bcast", "scatter_recursive_doubling_allgather", C_BCAST, 4, 16000,
                        &ev2), t);
  g_assert_cmpuint (ev2, ==, ev);
  run_one (8, NULL, NULL, C_BCAST, 0, 12287, &ev);
  g_assert_cmpuint (ev, ==, 14);
  run_one (7, NULL, NULL, C_BCAST, 0, 16000, &ev);
  g_assert_cmpuint (ev, ==, 12);
}

/* ---- reduce ----------------------------------------------------------------- */

/* Binomial, 1000 B on 8 ranks: every hop is a receive and a combine, and a
 * rank sends once it has combined its children's data: the root ends at
 * 3 (S + c) = 82.5 us.  2 (P - 1) message events and P - 1 combines; the
 * root computed 3 c = 7.5 us. */
static void
test_reduce_binomial (void)
{
  g_autoptr (PtiContext) ctx = context_new (8);
  all_call (ctx, NULL, C_REDUCE, 0, 1000);
  evaluate (ctx);
  assert_time (pti_result_time (ctx), 82.5 * US);
  assert_time (result (ctx, 0).end, 82.5 * US);
  assert_time (result (ctx, 0).compute, 7.5 * US);
  g_assert_cmpuint (pti_result_events (ctx), ==, 14 + 7);
}

/* Reduce-scatter + gather (Rabenseifner), the default above 2048 bytes:
 * 8000 B (1000 doubles) on 4 ranks.  Halving: swap 4000 B (S = 55 us) and
 * combine 500 doubles (10 us), swap 2000 B (35 us) and combine 250 (5 us):
 * 105 us; gather: 2000 B (35 us) then 4000 B (55 us) to the root: 195 us,
 * whatever the root.  Events per rank 2 (3 + 1), plus the gather's 4
 * messages (8 events).  On 3 ranks with root 0 (which sits the fix-up
 * out): rank 0 gives its 8000 B to rank 1 (95 us) which combines them
 * (20 us); ranks 1 and 2 swap halves, rank 2's having arrived at 52 us:
 * rank 1 ends its exchange at 117 + 3 = 120 us and combines (130 us), rank
 * 2 gets rank 1's half at 167 us, ends at 170 and combines (180); rank 2
 * sends its half to rank 1 (235 us), which sends the whole to rank 0:
 * 237 + L + 80 + o_r = 330 us. */
static void
test_reduce_rabenseifner (void)
{
  guint64 ev;
  assert_time (run_one (4, NULL, NULL, C_REDUCE, 0, 8000, &ev), 195 * US);
  g_assert_cmpuint (ev, ==, 4 * 8 + 6);
  assert_time (run_one (4, NULL, NULL, C_REDUCE, 3, 8000, &ev), 195 * US);
  assert_time (run_one (3, NULL, NULL, C_REDUCE, 0, 8000, &ev), 330 * US);
  /* 2048 bytes or less: binomial */
  run_one (4, NULL, NULL, C_REDUCE, 0, 2048, &ev);
  g_assert_cmpuint (ev, ==, 6 + 3);
}

/* ---- allreduce -------------------------------------------------------------- */

/* Recursive doubling, 1000 B on 8 ranks: 3 (o_s + L + n/B + o_r + c) =
 * 82.5 us for every rank; P log2 P = 24 messages, each rank 3 x (3 + 1)
 * events.  On 6 ranks (pof2 = 4, rem = 2): ranks 0 and 2 give their data
 * to 1 and 3 (S + c = 27.5 us); ranks 4, 5 have exchanged by 27.5 us, ranks
 * 1, 3 by 55; rank 4's data reached rank 1 at 49.5 us, so rank 1's second
 * exchange costs o_s + o_r + c (62.5 us); it returns the result to rank 0:
 * 62.5 + S = 87.5 us = 3 (S + c) + o_s + o_r. */
static void
test_allreduce_recursive_doubling (void)
{
  g_autoptr (PtiContext) ctx = context_new (8);
  all_call (ctx, NULL, C_ALLREDUCE, 0, 1000);
  evaluate (ctx);
  assert_time (pti_result_time (ctx), 82.5 * US);
  for (guint r = 0; r < 8; r++) {
    assert_time (result (ctx, r).end, 82.5 * US);
    assert_time (result (ctx, r).compute, 7.5 * US);
  }
  g_assert_cmpuint (pti_result_events (ctx), ==, 8 * 3 * 4);
  guint64 ev;
  assert_time (run_one (6, NULL, NULL, C_ALLREDUCE, 0, 1000, &ev), 87.5 * US);
  /* 4 x 2 x 4 + ranks 0, 2: send, recv; ranks 1, 3: recv, combine, send */
  g_assert_cmpuint (ev, ==, 32 + 2 * 2 + 2 * 3);
}

/* Rabenseifner (the default above 2048 B when every rank gets an element),
 * 8000 B on 4 ranks: reduce-scatter 55 + 10 + 35 + 5, allgather 35 + 55:
 * 4 (o_s + L + o_r) + (n/2 + n/4 + n/4 + n/2)/B + c(n/2) + c(n/4) = 195 us.
 * 4 exchanges and 2 combines per rank.  The ring (an override): 3 steps of
 * 2000 B with a combine (35 + 5 us) and 3 without: 225 us; 2 (P - 1)
 * exchanges per rank. */
static void
test_allreduce_large (void)
{
  guint64 ev;
  assert_time (run_one (4, NULL, NULL, C_ALLREDUCE, 0, 8000, &ev), 195 * US);
  g_assert_cmpuint (ev, ==, 4 * (4 * 3 + 2));
  assert_time (run_one (4, "allreduce", "ring", C_ALLREDUCE, 0, 8000, &ev), 225 * US);
  g_assert_cmpuint (ev, ==, 4 * (6 * 3 + 3));
  assert_time (run_one (4, "allreduce", "recursive_doubling", C_ALLREDUCE, 0, 8000, &ev),
               2 * (2 + 10 + 80 + 3 + 20) * US);
  /* 2048 bytes: still recursive doubling */
  run_one (4, NULL, NULL, C_ALLREDUCE, 0, 2048, &ev);
  g_assert_cmpuint (ev, ==, 4 * 2 * 4);
}

/* ---- gather, scatter -------------------------------------------------------- */

/* Binomial gather of 1000 B per rank on 8 ranks: subtrees send 1, 2 then
 * 4 blocks along the longest chain: 3 (o_s + L + o_r) + 7 n/B = 115 us;
 * P - 1 messages.  The scatter mirrors it: 115 us. */
static void
test_gather_scatter (void)
{
  guint64 ev;
  assert_time (run_one (8, NULL, NULL, C_GATHER, 0, 1000, &ev), 115 * US);
  g_assert_cmpuint (ev, ==, 14);
  assert_time (run_one (8, NULL, NULL, C_GATHER, 5, 1000, &ev), 115 * US);
  assert_time (run_one (8, NULL, NULL, C_SCATTER, 0, 1000, &ev), 115 * US);
  g_assert_cmpuint (ev, ==, 14);
  assert_time (run_one (8, NULL, NULL, C_SCATTER, 7, 1000, &ev), 115 * US);
  /* 6 ranks: the root receives 1 block from rank 1 (25 us), then 2 from
   * rank 2, which got rank 3's at 25 us (arriving at 57 us: 60 us), then
   * 2 from rank 4, which got rank 5's at 25 us and whose 2000 B arrived at
   * 57 us too: 60 + o_r = 63 us. */
  assert_time (run_one (6, NULL, NULL, C_GATHER, 0, 1000, &ev), 63 * US);
  g_assert_cmpuint (ev, ==, 10);
}

/* ---- allgather -------------------------------------------------------------- */

/* 1000 B per rank.  Recursive doubling on 8 ranks (the default: 8000 B in
 * all, a power of two): 3 (o_s + L + o_r) + 7 n/B = 115 us.  Ring (an
 * override): 7 S = 175 us.  Bruck on 6 ranks (the default off powers of
 * two below 81920 B): blocks 1, 2, 2: 3 (o_s + L + o_r) + 5 n/B = 95 us.
 * Every algorithm: 3 events per rank and step. */
static void
test_allgather (void)
{
  guint64 ev;
  assert_time (run_one (8, NULL, NULL, C_ALLGATHER, 0, 1000, &ev), 115 * US);
  g_assert_cmpuint (ev, ==, 8 * 3 * 3);
  assert_time (run_one (8, "allgather", "ring", C_ALLGATHER, 0, 1000, &ev), 175 * US);
  g_assert_cmpuint (ev, ==, 8 * 7 * 3);
  assert_time (run_one (6, NULL, NULL, C_ALLGATHER, 0, 1000, &ev), 95 * US);
  g_assert_cmpuint (ev, ==, 6 * 3 * 3);
  assert_time (run_one (8, "allgather", "brucks", C_ALLGATHER, 0, 1000, &ev), 115 * US);
  /* recursive doubling asked for on 6 ranks: Bruck's */
  assert_time (run_one (6, "allgather", "recursive_doubling", C_ALLGATHER, 0, 1000, &ev), 95 * US);
  /* 6 x 14000 = 84000 B >= 81920, not a power of two: the ring */
  run_one (6, NULL, NULL, C_ALLGATHER, 0, 14000, &ev);
  g_assert_cmpuint (ev, ==, 6 * 5 * 3);
}

/* ---- alltoall, alltoallv ------------------------------------------------------ */

/* Bruck (the default up to 256 B on 8 or more ranks): 100 B on 8 ranks,
 * 4 blocks per step: 3 (o_s + L + 400/B + o_r) = 57 us.  Scattered (the
 * default up to 32768 B): all receives posted, the P - 1 sends one after
 * another: (P - 1)(o_s + o_r) + L + n/B = 35 us for 1000 B on 4 ranks.
 * Pairwise (an override): (P - 1) S = 75 us.  Pairwise (the default above
 * 32768 B), 40000 B on 2 ranks, rendezvous: o_s + 3 L + n/B + o_r = 435 us.
 * Events: 3 per step for Bruck and pairwise; scattered 2 (P - 1) + 1 per
 * rank. */
static void
test_alltoall (void)
{
  guint64 ev;
  assert_time (run_one (8, NULL, NULL, C_ALLTOALL, 0, 100, &ev), 57 * US);
  g_assert_cmpuint (ev, ==, 8 * 3 * 3);
  assert_time (run_one (4, NULL, NULL, C_ALLTOALL, 0, 1000, &ev), 35 * US);
  g_assert_cmpuint (ev, ==, 4 * 7);
  assert_time (run_one (4, "alltoall", "pairwise", C_ALLTOALL, 0, 1000, &ev), 75 * US);
  g_assert_cmpuint (ev, ==, 4 * 3 * 3);
  assert_time (run_one (3, "alltoall", "pairwise", C_ALLTOALL, 0, 1000, &ev), 50 * US);
  assert_time (run_one (2, NULL, NULL, C_ALLTOALL, 0, 40000, &ev), 435 * US);
  /* 256 B on 7 ranks: too few for Bruck */
  run_one (7, NULL, NULL, C_ALLTOALL, 0, 256, &ev);
  g_assert_cmpuint (ev, ==, 7 * 13);
  /* 40 ranks, scattered: two batches of 32 and 8 (each a waitall) */
  run_one (40, NULL, NULL, C_ALLTOALL, 0, 1000, &ev);
  g_assert_cmpuint (ev, ==, 40 * (2 * 39 + 2));
}

/* Alltoallv: rank i sends (i + 1) x 1000 B to every other rank (and
 * receives (j + 1) x 1000 B from rank j).  Scattered on 3 ranks: rank 0
 * sends 1000 B to 2 (0..2 us) then to 1 (2..4); rank 2 sends 3000 B to 1
 * (0..2, arriving at 42 us) then to 0 (2..4, arriving at 44 us); rank 1's
 * 2000 B to 0 left at 0..2 and arrived at 32 us.  Rank 0: last arrival
 * 44 us, 2 o_r: 50 us; rank 1: 42 + 6 = 48; rank 2: rank 0's block left at
 * 0..2 (22 us), rank 1's at 2..4 (34 us): 40 us.  Empty blocks are not
 * sent: with rank 2 sending nothing, 2 messages fewer. */
static void
test_alltoallv (void)
{
  g_autoptr (GError) error = NULL;
  for (guint empty = 0; empty < 2; empty++) {
    g_autoptr (PtiContext) ctx = context_new (3);
    for (guint r = 0; r < 3; r++) {
      guint64 send[3], recv[3];
      for (guint j = 0; j < 3; j++) {
        send[j] = (empty && r == 2) ? 0 : 1000 * (r + 1);
        recv[j] = (empty && j == 2) ? 0 : 1000 * (j + 1);
      }
      g_assert_true (pti_mpi_alltoallv (ctx, r, send, recv, &error));
      g_assert_no_error (error);
    }
    evaluate (ctx);
    if (!empty) {
      assert_time (result (ctx, 0).end, 50 * US);
      assert_time (result (ctx, 1).end, 48 * US);
      assert_time (result (ctx, 2).end, 40 * US);
      g_assert_cmpuint (pti_result_events (ctx), ==, 3 * 5);
    } else {
      g_assert_cmpuint (pti_result_events (ctx), ==, 3 * 5 - 4);
    }
  }
}

/* ---- every algorithm, every size ------------------------------------------------- */

/* Every algorithm of every collective on 1 to 17 ranks, with roots off 0,
 * sizes that do not divide evenly and tiny ones: no deadlock, no message
 * left over, and every rank's messages used (pti_evaluate checks). */
static void
test_all_algorithms (void)
{
  static const struct {
    const char *coll;
    Which w;
    const char *algs[4];
  } table[] = {
    { "barrier", C_BARRIER, { "dissemination", "binomial" } },
    { "bcast", C_BCAST, { "binomial", "scatter_recursive_doubling_allgather",
                          "scatter_ring_allgather" } },
    { "reduce", C_REDUCE, { "binomial", "reduce_scatter_gather" } },
    { "allreduce", C_ALLREDUCE, { "recursive_doubling", "reduce_scatter_allgather", "ring" } },
    { "gather", C_GATHER, { "binomial" } },
    { "scatter", C_SCATTER, { "binomial" } },
    { "allgather", C_ALLGATHER, { "recursive_doubling", "brucks", "ring" } },
    { "alltoall", C_ALLTOALL, { "brucks", "scattered", "pairwise" } },
    { "alltoallv", C_ALLTOALLV, { "scattered", "pairwise" } },
  };
  static const guint64 sizes[] = { 1, 13, 8000, 20001 };
  for (guint p = 1; p <= 17; p++)
    for (guint i = 0; i < G_N_ELEMENTS (table); i++)
      for (guint a = 0; a < 5; a++)
        for (guint s = 0; s < G_N_ELEMENTS (sizes) && (a == 4 || table[i].algs[a] != NULL); s++) {
          const char *alg = a == 4 ? "auto" : table[i].algs[a];
          g_autoptr (PtiContext) ctx = context_new (p);
          g_autoptr (GError) error = NULL;
          g_assert_true (pti_context_set_collective_algorithm (ctx, table[i].coll, alg, &error));
          all_call (ctx, NULL, table[i].w, p / 2, sizes[s]);
          all_call (ctx, NULL, table[i].w, p - 1, sizes[s]);
          gboolean ok = pti_evaluate (ctx, &error);
          if (!ok)
            g_test_message ("%s %s on %u ranks, %" G_GUINT64_FORMAT " B: %s", table[i].coll, alg,
                            p, sizes[s], error->message);
          g_assert_no_error (error);
        }
}

/* ---- choices -------------------------------------------------------------------- */

/* The system's <mpi> picks the ring for allreduce: 1024 B (128 doubles) on
 * 4 ranks costs 2 (P - 1) steps of 256 B (2.56 us on the wire), the first
 * P - 1 with a combine of 32 doubles (0.64 us): 3 x 18.2 + 3 x 17.56 =
 * 107.28 us instead of recursive doubling's 2 (2 + 10 + 10.24 + 3 + 2.56)
 * = 55.6 us; the workload's choice beats the system's, and NULL returns to
 * it.  The system's binomial barrier on 4 ranks: 4 S0 = 60 us. */
static void
test_override (void)
{
  const char *mpi = "  <mpi><allreduce algorithm='ring'/><barrier algorithm=' binomial '/></mpi>\n";
  g_autoptr (GError) error = NULL;
  {
    g_autoptr (PtiContext) ctx = context_full (4, mpi, TRUE);
    all_call (ctx, NULL, C_ALLREDUCE, 0, 1024);
    evaluate (ctx);
    assert_time (pti_result_time (ctx), 107.28 * US);
  }
  {
    g_autoptr (PtiContext) ctx = context_full (4, mpi, TRUE);
    g_assert_true (pti_context_set_collective_algorithm (ctx, "allreduce", "auto", &error));
    all_call (ctx, NULL, C_ALLREDUCE, 0, 1024);
    evaluate (ctx);
    assert_time (pti_result_time (ctx), 55.6 * US);
  }
  {
    g_autoptr (PtiContext) ctx = context_full (4, mpi, TRUE);
    g_assert_true (pti_context_set_collective_algorithm (ctx, "allreduce", "recursive_doubling",
                                                         &error));
    g_assert_true (pti_context_set_collective_algorithm (ctx, "allreduce", NULL, &error));
    all_call (ctx, NULL, C_ALLREDUCE, 0, 1024);
    all_call (ctx, NULL, C_BARRIER, 0, 0);
    evaluate (ctx);
    assert_time (pti_result_time (ctx), (107.28 + 60) * US);
  }
  g_assert_no_error (error);
  /* unknown names */
  g_autoptr (PtiContext) ctx = context_new (2);
  g_assert_false (pti_context_set_collective_algorithm (ctx, "allreduce", "rign", &error));
  g_assert_error (error, PTI_ERROR, PTI_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "allreduce has no algorithm 'rign'"));
  g_assert_nonnull (strstr (error->message, "recursive_doubling, reduce_scatter_allgather, ring"));
  g_clear_error (&error);
  g_assert_false (pti_context_set_collective_algorithm (ctx, "allreduse", "ring", &error));
  g_assert_nonnull (strstr (error->message, "unknown collective 'allreduse'"));
}

/* hmc.xsd checks the names of the system's <mpi>. */
static void
test_override_schema (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("pti-coll-XXXXXX", &error);
  g_autofree char *xml = system_xml (4, "<mpi><allreduce algorithm='brucks'/></mpi>", TRUE);
  g_autofree char *path = write_file (dir, "system.xml", xml);
  g_autoptr (PtiContext) ctx = pti_context_new (path, NULL, &error);
  g_assert_null (ctx);
  g_assert_error (error, PTI_ERROR, PTI_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "'brucks'"));
  g_clear_error (&error);
  g_free (xml);
  xml = system_xml (4, "<mpi/><mpi/>", TRUE);
  g_unlink (path);
  g_free (path);
  path = write_file (dir, "system.xml", xml);
  g_autoptr (PtiContext) ctx2 = pti_context_new (path, NULL, &error);
  g_assert_null (ctx2);
  g_assert_nonnull (strstr (error->message, "only one <mpi>"));
  g_unlink (path);
  g_rmdir (dir);
}

/* The reduction's arithmetic is the CPU model's: without a cost for AFDL
 * an allreduce is an error that says so. */
static void
test_combine_unpriced (void)
{
  g_autoptr (PtiContext) ctx = context_full (2, NULL, FALSE);
  g_autoptr (GError) error = NULL;
  g_assert_false (pti_mpi_allreduce (ctx, 0, 8, &error));
  g_assert_error (error, PTI_ERROR, PTI_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "reduction's arithmetic"));
  g_assert_nonnull (strstr (error->message, "AFDL"));
}

/* ---- mismatches ------------------------------------------------------------------ */

static void
test_mismatch (void)
{
  g_autoptr (GError) error = NULL;
  {
    /* different collectives in the same position */
    g_autoptr (PtiContext) ctx = context_new (4);
    for (guint r = 0; r < 2; r++)
      g_assert_true (pti_mpi_barrier (ctx, r, &error) && pti_mpi_bcast (ctx, r, 1, 100, &error));
    g_assert_true (pti_mpi_barrier (ctx, 2, &error));
    g_assert_false (pti_mpi_allreduce (ctx, 2, 8, &error));
    g_assert_error (error, PTI_ERROR, PTI_ERROR_INVALID);
    g_assert_cmpstr (error->message, ==,
                     "mismatched collective: call #2 on communicator 'world' is allreduce "
                     "(8 bytes) on rank 2 but bcast (root 1, 100 bytes) on rank 0; every member "
                     "of a communicator must make the same collective calls, with the same root "
                     "and size, in the same order");
    g_clear_error (&error);
    /* a different root */
    g_assert_false (pti_mpi_bcast (ctx, 3, 0, 100, &error) && pti_mpi_bcast (ctx, 3, 0, 100, &error));
    g_assert_nonnull (strstr (error->message, "call #1 on communicator 'world' is bcast (root 0, "
                                              "100 bytes) on rank 3 but barrier on rank 0;"));
    g_clear_error (&error);
    g_assert_true (pti_mpi_barrier (ctx, 3, &error));
    g_assert_false (pti_mpi_bcast (ctx, 3, 0, 100, &error));
    g_assert_nonnull (strstr (error->message, "is bcast (root 0, 100 bytes) on rank 3 but bcast "
                                              "(root 1, 100 bytes) on rank 0"));
    g_clear_error (&error);
    /* a different size */
    g_assert_false (pti_mpi_bcast (ctx, 3, 1, 99, &error));
    g_assert_nonnull (strstr (error->message, "(root 1, 99 bytes)"));
    g_clear_error (&error);
  }
  {
    /* ranks that never make a call: reported at evaluation */
    g_autoptr (PtiContext) ctx = context_new (4);
    for (guint r = 0; r < 4; r++) {
      g_assert_true (pti_mpi_allreduce (ctx, r, 8, &error));
      if (r != 1 && r != 3)
        g_assert_true (pti_mpi_gather (ctx, r, 2, 8, &error));
    }
    g_assert_false (pti_evaluate (ctx, &error));
    g_assert_error (error, PTI_ERROR, PTI_ERROR_INVALID);
    g_assert_cmpstr (error->message, ==,
                     "mismatched collective: call #2 on communicator 'world', gather (root 2, "
                     "8 bytes) made by rank 0, is never made by rank 1, rank 3 (the fewest make 1 "
                     "collective call on it); every member of a communicator must make the same "
                     "collective calls");
  }
  g_clear_error (&error);
  {
    /* the algorithm changed between ranks */
    g_autoptr (PtiContext) ctx = context_new (2);
    g_assert_true (pti_mpi_allreduce (ctx, 0, 8, &error));
    g_assert_true (pti_context_set_collective_algorithm (ctx, "allreduce", "ring", &error));
    g_assert_false (pti_mpi_allreduce (ctx, 1, 8, &error));
    g_assert_nonnull (strstr (error->message, "(8 bytes, algorithm ring) on rank 1 but allreduce "
                                              "(8 bytes, algorithm recursive_doubling) on rank 0"));
    g_assert_nonnull (strstr (error->message, "algorithm was changed"));
  }
}

/* ---- communicators ------------------------------------------------------------------ */

/* 8 ranks in 2 rows of 4 (colour rank / 4), keys reversing the order; rank
 * 5 left out of the columns split. */
static void
test_split (void)
{
  g_autoptr (PtiContext) ctx = context_new (8);
  g_autoptr (GError) error = NULL;
  gint colour[8], key[8];
  for (guint r = 0; r < 8; r++) {
    colour[r] = r / 4;
    key[r] = -(gint) r;
  }
  PtiComm *rows = pti_comm_split (ctx, NULL, "rows", colour, key, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (pti_comm_get_name (rows), ==, "rows");
  g_assert_cmpint (pti_comm_rank (rows, 0), ==, 3);
  g_assert_cmpint (pti_comm_rank (rows, 3), ==, 0);
  g_assert_cmpint (pti_comm_rank (rows, 4), ==, 3);
  g_assert_cmpuint (pti_comm_size (rows, 6), ==, 4);
  g_assert_cmpuint (pti_comm_world_rank (rows, 6, 0), ==, 7);
  g_assert_cmpuint (pti_comm_world_rank (rows, 6, 4), ==, G_MAXUINT);
  g_assert_cmpint (pti_comm_rank (rows, 8), ==, -1);
  PtiComm *world = pti_comm_world (ctx);
  g_assert_cmpint (pti_comm_rank (world, 5), ==, 5);
  g_assert_cmpuint (pti_comm_size (world, 5), ==, 8);
  g_assert_cmpstr (pti_comm_get_name (world), ==, "world");

  /* columns of the rows: equal keys keep the parent's order; 5 in none */
  for (guint r = 0; r < 8; r++)
    colour[r] = r == 5 ? PTI_UNDEFINED : pti_comm_rank (rows, r) % 2;
  PtiComm *cols = pti_comm_split (ctx, rows, NULL, colour, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (pti_comm_get_name (cols), ==, "split 2");
  /* row 0 (world 3, 2, 1, 0 = row ranks 0..3): colour 0 = {3, 1}, 1 = {2, 0} */
  g_assert_cmpint (pti_comm_rank (cols, 3), ==, 0);
  g_assert_cmpint (pti_comm_rank (cols, 1), ==, 1);
  g_assert_cmpint (pti_comm_rank (cols, 0), ==, 1);
  g_assert_cmpuint (pti_comm_size (cols, 0), ==, 2);
  g_assert_cmpint (pti_comm_rank (cols, 5), ==, -1);
  g_assert_cmpuint (pti_comm_size (cols, 5), ==, 0);
  /* row 1 (world 7, 6, 5, 4): colour 0 = {7}, colour 1 = {6, 4} */
  g_assert_cmpuint (pti_comm_size (cols, 7), ==, 1);
  g_assert_cmpuint (pti_comm_world_rank (cols, 4, 0), ==, 6);

  /* rank 5 is in no column: a collective there is an error */
  g_assert_false (pti_mpi_barrier_comm (ctx, cols, 5, &error));
  g_assert_error (error, PTI_ERROR, PTI_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "rank 5 belongs to no communicator of 'split 2'"));
  g_clear_error (&error);
  g_assert_false (pti_mpi_bcast_comm (ctx, rows, 0, 4, 8, &error));
  g_assert_nonnull (strstr (error->message, "root 4 out of range (communicator 'rows' of rank 0 "
                                            "has 4 ranks: 0 to 3)"));
  g_clear_error (&error);
  g_assert_false (pti_mpi_send_comm (ctx, rows, 0, 4, 8, 0, &error));
  g_assert_nonnull (strstr (error->message, "destination rank 4 out of range"));
}

/* An allreduce of 1000 B on each row of 4 (recursive doubling): 2 (S + c)
 * = 55 us, both rows at once; a bcast on the columns of 2 after it, from
 * column rank 1: + S = 80 us; messages on the rows' point-to-point context
 * with row ranks. */
static void
test_comm_collectives (void)
{
  g_autoptr (PtiContext) ctx = context_new (8);
  g_autoptr (GError) error = NULL;
  gint colour[8], key[8];
  for (guint r = 0; r < 8; r++) {
    colour[r] = r / 4;
    key[r] = 0;
  }
  PtiComm *rows = pti_comm_split (ctx, NULL, "rows", colour, key, &error);
  for (guint r = 0; r < 8; r++)
    colour[r] = r % 4;
  PtiComm *cols = pti_comm_split (ctx, pti_comm_world (ctx), "cols", colour, NULL, &error);
  g_assert_no_error (error);
  all_call (ctx, rows, C_ALLREDUCE, 0, 1000);
  all_call (ctx, cols, C_BCAST, 1, 1000);
  /* then row rank 3 sends 1000 B to row rank 0 in each row */
  for (guint r = 0; r < 8; r++) {
    gint me = pti_comm_rank (rows, r);
    if (me == 3)
      g_assert_true (pti_mpi_send_comm (ctx, rows, r, 0, 1000, 5, &error));
    else if (me == 0)
      g_assert_true (pti_mpi_recv_comm (ctx, rows, r, PTI_ANY_SOURCE, 1000, PTI_ANY_TAG, &error));
    g_assert_no_error (error);
  }
  evaluate (ctx);
  /* world 0 and 4 (row rank 0): 80 + S = 105 us */
  assert_time (result (ctx, 0).end, 105 * US);
  /* world 4 (row rank 0, column root: sent at 55..57 us) receives world
   * 7's message, sent at 57..59 us: 82 us */
  assert_time (result (ctx, 4).end, 82 * US);
  assert_time (pti_result_time (ctx), 105 * US);
  g_assert_cmpuint (pti_result_events (ctx), ==, 8 * 2 * 4 + 4 * 2 + 2 * 2);
}

/* Messages of different communicators never match: a send on 'rows' is
 * not received by a world receive from the same rank with the same tag,
 * nor collective traffic by point-to-point receives. */
static void
test_comm_isolation (void)
{
  g_autoptr (GError) error = NULL;
  gint colour[2] = { 0, 0 };
  {
    g_autoptr (PtiContext) ctx = context_new (2);
    PtiComm *all = pti_comm_split (ctx, NULL, "all", colour, NULL, &error);
    g_assert_true (pti_mpi_send_comm (ctx, all, 0, 1, 10, 0, &error));
    g_assert_true (pti_mpi_recv (ctx, 1, 0, 10, 0, &error));
    g_assert_false (pti_evaluate (ctx, &error));
    g_assert_error (error, PTI_ERROR, PTI_ERROR_DEADLOCK);
  }
  g_clear_error (&error);
  {
    /* the same pair on both contexts: each receive gets its own message */
    g_autoptr (PtiContext) ctx = context_new (2);
    PtiComm *all = pti_comm_split (ctx, NULL, "all", colour, NULL, &error);
    PtiRequest req[2];
    g_assert_true (pti_mpi_isend_comm (ctx, all, 0, 1, 2000, 0, &req[0], &error));
    g_assert_true (pti_mpi_isend (ctx, 0, 1, 1000, 0, &req[1], &error));
    g_assert_true (pti_mpi_waitall (ctx, 0, 2, req, &error));
    g_assert_true (pti_mpi_recv_comm (ctx, NULL, 1, 0, 1000, 0, &error));
    g_assert_true (pti_mpi_recv_comm (ctx, all, 1, 0, 2000, 0, &error));
    g_assert_no_error (error);
    evaluate (ctx);
    /* the world message left at 2..4 us: 4 + 20 = 24, + o_r = 27 us; the
     * split's arrived at 2 + 30 = 32 us: 35 us */
    assert_time (result (ctx, 1).end, 35 * US);
  }
  {
    /* a world barrier's traffic is not taken by point-to-point receives */
    g_autoptr (PtiContext) ctx = context_new (2);
    g_assert_true (pti_mpi_barrier (ctx, 0, &error));
    g_assert_true (pti_mpi_recv (ctx, 1, 0, 0, PTI_ANY_TAG, &error));
    g_assert_true (pti_mpi_barrier (ctx, 1, &error));
    g_assert_false (pti_evaluate (ctx, &error));
    g_assert_error (error, PTI_ERROR, PTI_ERROR_DEADLOCK);
  }
}

/* MPI_Comm_dup and MPI_Comm_create.  A dup of the world has its own
 * matching contexts (a world send is not received on the dup: deadlock)
 * and the world's ranks: an allreduce of 1000 B on 8 ranks is 3 (S + c) =
 * 82.5 us.  The even ranks in reverse order form a communicator of 4:
 * world 6 is its rank 0; an allreduce there is 2 (S + c) = 55 us and the
 * odd ranks take no part.  A dup of a split keeps its groups. */
static void
test_dup_create (void)
{
  g_autoptr (GError) error = NULL;
  {
    g_autoptr (PtiContext) ctx = context_new (8);
    PtiComm *dup = pti_comm_dup (ctx, NULL, "dup", &error);
    g_assert_no_error (error);
    g_assert_cmpstr (pti_comm_get_name (dup), ==, "dup");
    for (guint r = 0; r < 8; r++) {
      g_assert_cmpint (pti_comm_rank (dup, r), ==, r);
      g_assert_cmpuint (pti_comm_size (dup, r), ==, 8);
    }
    all_call (ctx, dup, C_ALLREDUCE, 0, 1000);
    evaluate (ctx);
    assert_time (pti_result_time (ctx), 82.5 * US);
  }
  {
    g_autoptr (PtiContext) ctx = context_new (2);
    PtiComm *dup = pti_comm_dup (ctx, NULL, "dup", &error);
    g_assert_true (pti_mpi_send (ctx, 0, 1, 10, 0, &error));
    g_assert_true (pti_mpi_recv_comm (ctx, dup, 1, 0, 10, 0, &error));
    g_assert_false (pti_evaluate (ctx, &error));
    g_assert_error (error, PTI_ERROR, PTI_ERROR_DEADLOCK);
    g_assert_nonnull (strstr (error->message, "communicator 'dup'"));
    g_clear_error (&error);
  }
  {
    g_autoptr (PtiContext) ctx = context_new (8);
    const guint evens[] = { 6, 4, 2, 0 };
    PtiComm *even = pti_comm_create (ctx, NULL, "even", 4, evens, &error);
    g_assert_no_error (error);
    g_assert_cmpint (pti_comm_rank (even, 6), ==, 0);
    g_assert_cmpint (pti_comm_rank (even, 0), ==, 3);
    g_assert_cmpint (pti_comm_rank (even, 3), ==, -1);
    g_assert_cmpuint (pti_comm_size (even, 2), ==, 4);
    g_assert_cmpuint (pti_comm_world_rank (even, 2, 1), ==, 4);
    all_call (ctx, even, C_ALLREDUCE, 0, 1000);
    evaluate (ctx);
    assert_time (pti_result_time (ctx), 55 * US);
    assert_time (result (ctx, 1).end, 0);
    g_assert_cmpuint (pti_result_events (ctx), ==, 4 * 2 * 4);
  }
  {
    /* a dup of rows (split by r / 4, rank 7 in none) */
    g_autoptr (PtiContext) ctx = context_new (8);
    gint colour[8] = { 0, 0, 0, 0, 1, 1, 1, PTI_UNDEFINED };
    PtiComm *rows = pti_comm_split (ctx, NULL, "rows", colour, NULL, &error);
    PtiComm *dup = pti_comm_dup (ctx, rows, "rows2", &error);
    g_assert_no_error (error);
    g_assert_cmpint (pti_comm_rank (dup, 5), ==, 1);
    g_assert_cmpuint (pti_comm_size (dup, 5), ==, 3);
    g_assert_cmpint (pti_comm_rank (dup, 7), ==, -1);
    /* members of two rows cannot form one communicator of rows */
    const guint mixed[] = { 1, 5 };
    g_assert_null (pti_comm_create (ctx, rows, "mixed", 2, mixed, &error));
    g_assert_nonnull (strstr (error->message, "create 'mixed': world ranks 1 and 5 are in "
                                              "different communicators of 'rows'"));
    g_clear_error (&error);
    const guint twice[] = { 1, 2, 1 };
    g_assert_null (pti_comm_create (ctx, NULL, "twice", 3, twice, &error));
    g_assert_nonnull (strstr (error->message, "world rank 1 is listed twice"));
    g_clear_error (&error);
    const guint outside[] = { 7 };
    g_assert_null (pti_comm_create (ctx, rows, "out", 1, outside, &error));
    g_assert_nonnull (strstr (error->message, "member 0, world rank 7, is not in the parent "
                                              "communicator"));
    g_clear_error (&error);
    const guint far[] = { 9 };
    g_assert_null (pti_comm_create (ctx, NULL, "far", 1, far, &error));
    g_assert_nonnull (strstr (error->message, "world rank 9, is not a process"));
    g_clear_error (&error);
    g_assert_null (pti_comm_create (ctx, NULL, "none", 0, far, &error));
    g_assert_nonnull (strstr (error->message, "at least one member"));
  }
}

/* Split errors: processes not set, a parent of another context. */
static void
test_split_errors (void)
{
  g_autoptr (GError) error = NULL;
  gint colour[2] = { 0, 1 };
  g_autoptr (PtiContext) a = context_new (2);
  g_autoptr (PtiContext) b = context_new (2);
  PtiComm *in_b = pti_comm_split (b, NULL, "b", colour, NULL, &error);
  g_assert_nonnull (in_b);
  g_assert_null (pti_comm_split (a, in_b, "x", colour, NULL, &error));
  g_assert_error (error, PTI_ERROR, PTI_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "belongs to another context"));
  g_clear_error (&error);
  g_assert_false (pti_mpi_barrier_comm (a, in_b, 0, &error));
  g_assert_nonnull (strstr (error->message, "belongs to another context"));
}

/* Built phase by phase (every rank's phase i, then phase i + 1), with the
 * automatic partial evaluation every 5 events, collectives on the world and
 * on splits give what one evaluation at the end gives; and the mismatch
 * check holds no record once every rank has made a phase's calls. */
static PtiContext *
phased (gboolean partial)
{
  g_autoptr (GError) error = NULL;
  PtiContext *ctx = context_new (6);
  if (partial)
    pti_context_set_pending_limit (ctx, 5);
  gint colour[6];
  for (guint r = 0; r < 6; r++)
    colour[r] = r % 2;
  PtiComm *halves = pti_comm_split (ctx, NULL, "halves", colour, NULL, &error);
  for (guint ph = 0; ph < 4; ph++) {
    for (guint r = 0; r < 6; r++) {
      g_assert_true (pti_mpi_allreduce_comm (ctx, halves, r, 8000 * (ph % 2) + 8, &error));
      g_assert_true (pti_mpi_alltoall (ctx, r, 100 * (ph + 1), &error));
      g_assert_true (pti_mpi_bcast_comm (ctx, halves, r, ph % 3, 20000, &error));
      g_assert_true (pti_mpi_barrier (ctx, r, &error));
      g_assert_no_error (error);
    }
    PtiCollState *st = pti_coll_state (ctx);
    g_assert_cmpuint (st->world->logs[0].n - st->world->logs[0].head, ==, 0);
    g_assert_cmpuint (halves->logs[1].n - halves->logs[1].head, ==, 0);
  }
  evaluate (ctx);
  return ctx;
}

static void
test_partial (void)
{
  g_autoptr (PtiContext) full = phased (FALSE);
  g_autoptr (PtiContext) part = phased (TRUE);
  g_assert_cmpuint (pti_result_events (part), ==, pti_result_events (full));
  assert_time (pti_result_time (part), pti_result_time (full));
  for (guint r = 0; r < 6; r++) {
    assert_time (result (part, r).end, result (full, r).end);
    assert_time (result (part, r).wait, result (full, r).wait);
  }
}

/* ---- workload files ------------------------------------------------------------------- */

static char *
write_in_tmp (const char *name, const char *text, char **dir)
{
  g_autoptr (GError) error = NULL;
  *dir = g_dir_make_tmp ("pti-coll-XXXXXX", &error);
  g_assert_no_error (error);
  return write_file (*dir, name, text);
}

static PtiContext *
file_context (guint nodes, const char *mpi, char **dir)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *xml = system_xml (nodes, mpi, TRUE);
  g_autofree char *sys = write_in_tmp ("system.xml", xml, dir);
  PtiContext *ctx = pti_context_new (sys, NULL, &error);
  g_assert_no_error (error);
  g_unlink (sys);
  return ctx;
}

/* data/collectives-all.xml (every collective, splits, dup, create, comm=, <mpi>) builds the
 * same events as the same workload in C, and predicts the same. */
static void
test_workload_file (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = NULL;
  g_autoptr (PtiContext) ctx = file_context (8, NULL, &dir);
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "collectives", "data",
                                                 "collectives-all.xml", NULL);
  gboolean ok = pti_workload_file_build (ctx, path, &error);
  g_assert_no_error (error);
  g_assert_true (ok);

  /* the same in C */
  g_autoptr (PtiContext) ref = context_new (8);
  gint colour[8], key[8];
  for (guint r = 0; r < 8; r++) {
    colour[r] = r / 4;
    key[r] = -(gint) r;
  }
  PtiComm *rows = pti_comm_split (ref, NULL, "rows", colour, key, &error);
  for (guint r = 0; r < 8; r++)
    colour[r] = pti_comm_rank (rows, r) < 2 ? 0 : -1;
  PtiComm *pairs = pti_comm_split (ref, rows, "pairs", colour, NULL, &error);
  PtiComm *rows2 = pti_comm_dup (ref, rows, "rows2", &error);
  const guint evens[] = { 6, 4, 2, 0 };
  PtiComm *even = pti_comm_create (ref, NULL, "even", 4, evens, &error);
  g_assert_true (pti_context_set_collective_algorithm (ref, "alltoall", "pairwise", &error));
  for (guint r = 0; r < 8; r++) {
    guint64 send[8], recv[8];
    for (guint j = 0; j < 8; j++) {
      send[j] = (r + 1) * 10;
      recv[j] = (j + 1) * 10;
    }
    gint pr = pti_comm_rank (pairs, r);
    ok = pti_mpi_barrier (ref, r, &error) && pti_mpi_allreduce_comm (ref, rows, r, 1000, &error)
         && (pr < 0 || (pti_mpi_send_comm (ref, pairs, r, 1 - pr, 1000, 3, &error)
                        && pti_mpi_recv_comm (ref, pairs, r, 1 - pr, 1000, 3, &error)))
         && pti_mpi_reduce_comm (ref, rows, r, 0, 1000, &error)
         && pti_mpi_gather_comm (ref, rows, r, 1, 10, &error)
         && pti_mpi_scatter (ref, r, 2, 10, &error) && pti_mpi_allgather (ref, r, 10, &error)
         && pti_mpi_alltoall_comm (ref, rows, r, 10, &error)
         && pti_mpi_alltoallv (ref, r, send, recv, &error)
         && pti_mpi_bcast_comm (ref, rows, r, 3, 100, &error)
         && pti_mpi_allreduce_comm (ref, rows2, r, 800, &error)
         && (r % 2 == 1 || pti_mpi_bcast_comm (ref, even, r, 1, 1000, &error));
    guint64 rs[8], gv[8], sv[4], ag[8];
    for (guint j = 0; j < 8; j++) {
      rs[j] = (j % 3) * 100;
      gv[j] = j * 10;
      ag[j] = 1000 - j * 100;
    }
    for (guint j = 0; j < 4; j++)
      sv[j] = j * 20 + 5;
    gint rr = pti_comm_rank (rows, r);
    ok = ok && pti_mpi_scan_comm (ref, rows, r, 800, &error)
         && pti_mpi_exscan (ref, r, 80, &error)
         && pti_mpi_reduce_scatter (ref, r, rs, &error)
         && pti_mpi_reduce_scatter_block_comm (ref, rows, r, 300, &error)
         && pti_mpi_gatherv (ref, r, 2, r * 10, gv, &error)
         && pti_mpi_scatterv_comm (ref, rows, r, 1, sv, rr * 20 + 5, &error)
         && pti_mpi_allgatherv (ref, r, ag, &error);
    PtiRequest q, reqs[2];
    guint64 at_send[8], at_recv[8];
    for (guint j = 0; j < 8; j++) {
      at_send[j] = r + 10;
      at_recv[j] = j + 10;
    }
    ok = ok && pti_mpi_ibcast_comm (ref, rows, r, 0, 500, &q, &error)
         && pti_mpi_iallreduce (ref, r, 4000, &reqs[0], &error)
         && pti_mpi_wait (ref, r, q, &error)
         && pti_mpi_ialltoallv (ref, r, at_send, at_recv, &reqs[1], &error)
         && pti_mpi_waitall (ref, r, 2, reqs, &error);
    g_assert_no_error (error);
    g_assert_true (ok);
  }
  evaluate (ctx);
  evaluate (ref);
  g_assert_cmpuint (pti_result_events (ctx), ==, pti_result_events (ref));
  assert_time (pti_result_time (ctx), pti_result_time (ref));
  for (guint r = 0; r < 8; r++)
    assert_time (result (ctx, r).end, result (ref, r).end);
  g_rmdir (dir);
}

/* data/system-mpi.xml (an HMC <mpi> naming every collective) loads, and its
 * choices are used: a ring allreduce of 8000 B on 8 ranks is 14 steps of
 * 1000 B, 7 of them combining 125 doubles at 1 ns: 14 (o_s + L + n/B + o_r)
 * + 7 x 0.125 us with o_s = o_r = 0: 14 x 20 + 0.875 = 280.875 us. */
static void
test_system_file (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "collectives", "data",
                                                 "system-mpi.xml", NULL);
  g_autoptr (PtiContext) ctx = pti_context_new (path, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (pti_context_set_processes (ctx, 8, &error));
  all_call (ctx, NULL, C_ALLREDUCE, 0, 8000);
  evaluate (ctx);
  assert_time (pti_result_time (ctx), 280.875 * US);
  g_assert_cmpuint (pti_result_events (ctx), ==, 8 * (14 * 3 + 7));
}

/* ---- making communicators (pti_mpi_comm_setup) ----------------------------------- */

#define COMM_CREATE(first, topo, later) \
  "<mpi><comm_create><first unit='us'>" first "</first><first_topology unit='us'>" topo \
  "</first_topology><later unit='us'>" later "</later></comm_create></mpi>\n"

/* Each rank of 2 makes, in order: a dup (its first plain communicator), a
 * dup (later), a cart (its first topology), a cart (later), a split
 * (later: a split is plain) and a dup of MPI_COMM_SELF (alone, later).
 * Every one but the last sends three allreduces of 4 B over the world:
 * recursive doubling on 2 ranks, one exchange o_s + L + 4/B + o_r =
 * 15.04 us and the combine of one element (AFDL) 0.02 us: A = 15.06 us;
 * the split first an allgather of 8 B, one exchange: G = 15.08 us.  With
 * first = 100, first_topology = 1000, later = 5 us:
 *   (3A + 100) + (3A + 5) + (3A + 1000) + (3A + 5) + (G + 3A + 5) + 5
 *   = 15 A + G + 1120 = 225.9 + 15.08 + 1120 = 1360.98 us,
 * of which compute (the set-ups and 15 combines) 1120.3 us.  Without
 * <comm_create>: the messages only, 240.98 us. */
static void
comm_setup_all (PtiContext *ctx)
{
  static const PtiCommSetup kinds[] = {
    PTI_COMM_SETUP_PLAIN, PTI_COMM_SETUP_PLAIN, PTI_COMM_SETUP_TOPOLOGY, PTI_COMM_SETUP_TOPOLOGY,
    PTI_COMM_SETUP_SPLIT, PTI_COMM_SETUP_PLAIN | PTI_COMM_SETUP_ALONE,
  };
  g_autoptr (GError) error = NULL;
  for (guint r = 0; r < 2; r++)
    for (guint i = 0; i < G_N_ELEMENTS (kinds); i++) {
      g_assert_true (pti_mpi_comm_setup (ctx, NULL, r, kinds[i], &error));
      g_assert_no_error (error);
    }
  evaluate (ctx);
}

static void
test_comm_setup (void)
{
  g_autoptr (PtiContext) ctx = context_full (2, COMM_CREATE ("100", "1000", "5"), TRUE);
  comm_setup_all (ctx);
  assert_time (pti_result_time (ctx), 1360.98 * US);
  for (guint r = 0; r < 2; r++) {
    assert_time (result (ctx, r).end, 1360.98 * US);
    assert_time (result (ctx, r).compute, 1120.3 * US);
  }
  g_autoptr (PtiContext) bare = context_full (2, NULL, TRUE);
  comm_setup_all (bare);
  assert_time (pti_result_time (bare), 240.98 * US);
  assert_time (result (bare, 0).compute, 0.3 * US);
}

/* The agreement synchronises the ranks: rank 1 sleeps 50 us, then both
 * make a split (first = 150 us).  Eager exchanges, each side: send o_s,
 * its message L + n/B later at the other, received o_r after both the
 * message and the receiver's own send.  Allgather of 8 B: rank 0 posts at
 * 0, gets rank 1's message (sent 50-52) at 62.08, done 65.08; rank 1 has
 * rank 0's since 12.08, done 52 + 3 = 55.  Allreduces of 4 B (combine
 * 0.02): rank 1 starts at 55, rank 0 at 65.08: rank 0 done max(67.08,
 * 67.04) + 3.02 = 70.10, rank 1 77.12 + 3.02 = 80.14; then rank 0 92.18 +
 * 3.02 = 95.20, rank 1 82.14 + 3.02 = 85.16; then rank 0 97.20 + 3.02 =
 * 100.22, rank 1 107.24 + 3.02 = 110.26.  Plus 150: 250.22 and 260.26 us. */
static void
test_comm_setup_waits (void)
{
  g_autoptr (PtiContext) ctx = context_full (2, COMM_CREATE ("150", "0", "0"), TRUE);
  g_autoptr (GError) error = NULL;
  g_assert_true (pti_wsl_sleep (ctx, 1, 50 * US, &error));
  for (guint r = 0; r < 2; r++)
    g_assert_true (pti_mpi_comm_setup (ctx, NULL, r, PTI_COMM_SETUP_SPLIT, &error));
  g_assert_no_error (error);
  evaluate (ctx);
  assert_time (result (ctx, 0).end, 250.22 * US);
  assert_time (result (ctx, 1).end, 260.26 * US);
}

/* Mistakes in <comm_create> name the file, line and element; a kind that
 * is not one is refused. */
static void
expect_system_error (const char *mpi, const char *fragment)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("pti-coll-XXXXXX", &error);
  g_autofree char *xml = system_xml (2, mpi, TRUE);
  g_autofree char *path = write_file (dir, "system.xml", xml);
  PtiContext *ctx = pti_context_new (path, NULL, &error);
  g_unlink (path);
  g_rmdir (dir);
  g_assert_null (ctx);
  if (error == NULL || strstr (error->message, fragment) == NULL)
    g_test_message ("%s", error ? error->message : "no error");
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, fragment));
}

static void
test_comm_setup_errors (void)
{
  expect_system_error (COMM_CREATE ("-5", "1", "1"), "system.xml:7: <first>");
  expect_system_error (COMM_CREATE ("-5", "1", "1"), "negative");
  expect_system_error (COMM_CREATE ("1", "x", "1"), "first_topology");
  expect_system_error (COMM_CREATE ("1", "NaN", "1"), "first_topology");
  expect_system_error (COMM_CREATE ("1", "1", "INF"), "later");
  expect_system_error ("<mpi><comm_create><first unit='us'>1</first>"
                       "<first_topology unit='us'>1</first_topology></comm_create></mpi>\n",
                       "later");
  expect_system_error ("<mpi><comm_create><first unit='min'>1</first><first_topology unit='us'>1"
                       "</first_topology><later unit='us'>1</later></comm_create></mpi>\n",
                       "unit");
  expect_system_error ("<mpi><comm_create><first>1</first><first_topology unit='us'>1"
                       "</first_topology><later unit='us'>1</later></comm_create></mpi>\n",
                       "unit");
  g_autoptr (PtiContext) ctx = context_full (2, NULL, TRUE);
  g_autoptr (GError) error = NULL;
  g_assert_false (pti_mpi_comm_setup (ctx, NULL, 0, (PtiCommSetup) 3, &error));
  g_assert_error (error, PTI_ERROR, PTI_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "rank 0: 3 is not a PtiCommSetup"));
  g_clear_error (&error);
  g_assert_false (pti_mpi_comm_setup (ctx, NULL, 2, PTI_COMM_SETUP_PLAIN, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "2"));
}

/* ---- the library's own time in a call (pti_mpi_call_setup) ---------------------- */

#define CALL_SETUP(ffirst, flater, cfirst, cother) \
  "<mpi><comm_create><first unit='us'>100</first><first_topology unit='us'>1000" \
  "</first_topology><later unit='us'>5</later></comm_create>" \
  "<comm_free><first unit='us'>" ffirst "</first><later unit='us'>" flater "</later></comm_free>" \
  "<first_collective><first unit='us'>" cfirst "</first><other unit='us'>" cother \
  "</other></first_collective></mpi>\n"

/* Local times, no messages: rank 1 sleeps 30 us first, and neither waits
 * for the other.  Each rank: a communicator made alone (its first plain
 * one: 100 us), three first calls of collective functions (the rank's
 * first 60 us, then 10 and 10), three frees (its first 20 us, then 2 and
 * 2): the free is not the creation's first (its own count) and the
 * creation did not count as a collective.  Rank 0: 100 + 80 + 24 =
 * 204 us; rank 1 the same after its sleep (a use too): 234 us, each
 * ending when its computation does.  Without the elements (comm_create
 * alone): 100 and 130 us. */
static void
call_setup_all (PtiContext *ctx)
{
  static const PtiCallSetup what[] = {
    PTI_CALL_SETUP_FIRST_COLLECTIVE, PTI_CALL_SETUP_COMM_FREE, PTI_CALL_SETUP_FIRST_COLLECTIVE,
    PTI_CALL_SETUP_COMM_FREE, PTI_CALL_SETUP_COMM_FREE, PTI_CALL_SETUP_FIRST_COLLECTIVE,
  };
  g_autoptr (GError) error = NULL;
  g_assert_true (pti_wsl_sleep (ctx, 1, 30 * US, &error));
  for (guint r = 0; r < 2; r++) {
    g_assert_true (pti_mpi_comm_setup (ctx, NULL, r, PTI_COMM_SETUP_PLAIN | PTI_COMM_SETUP_ALONE,
                                       &error));
    for (guint i = 0; i < G_N_ELEMENTS (what); i++)
      g_assert_true (pti_mpi_call_setup (ctx, r, what[i], &error));
  }
  g_assert_no_error (error);
  evaluate (ctx);
}

static void
test_call_setup (void)
{
  g_autoptr (PtiContext) ctx = context_full (2, CALL_SETUP ("20", "2", "60", "10"), TRUE);
  call_setup_all (ctx);
  assert_time (result (ctx, 0).end, 204 * US);
  assert_time (result (ctx, 0).compute, 204 * US);
  assert_time (result (ctx, 1).end, 234 * US);
  assert_time (result (ctx, 1).compute, 234 * US);
  g_autoptr (PtiContext) bare = context_full (2, COMM_CREATE ("100", "1000", "5"), TRUE);
  call_setup_all (bare);
  assert_time (result (bare, 0).end, 100 * US);
  assert_time (result (bare, 1).end, 130 * US);
}

/* Mistakes in <comm_free> and <first_collective> name the file, line and
 * element; a PtiCallSetup that is not one and a rank out of range are
 * refused. */
static void
test_call_setup_errors (void)
{
  expect_system_error (CALL_SETUP ("-1", "2", "60", "10"), "system.xml:7: <first>");
  expect_system_error (CALL_SETUP ("-1", "2", "60", "10"), "negative");
  expect_system_error (CALL_SETUP ("1", "NaN", "60", "10"), "later");
  expect_system_error (CALL_SETUP ("1", "2", "INF", "10"), "first");
  expect_system_error (CALL_SETUP ("1", "2", "60", "x"), "other");
  expect_system_error ("<mpi><comm_free><first unit='us'>1</first></comm_free></mpi>\n", "later");
  expect_system_error ("<mpi><first_collective><first unit='us'>1</first></first_collective>"
                       "</mpi>\n", "other");
  expect_system_error ("<mpi><first_collective><first unit='us'>1</first><other>1</other>"
                       "</first_collective></mpi>\n", "unit");
  expect_system_error ("<mpi><comm_free><first unit='h'>1</first><later unit='us'>1</later>"
                       "</comm_free></mpi>\n", "unit");
  g_autoptr (PtiContext) ctx = context_full (2, NULL, TRUE);
  g_autoptr (GError) error = NULL;
  g_assert_false (pti_mpi_call_setup (ctx, 0, (PtiCallSetup) 2, &error));
  g_assert_error (error, PTI_ERROR, PTI_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "rank 0: 2 is not a PtiCallSetup"));
  g_clear_error (&error);
  g_assert_false (pti_mpi_call_setup (ctx, 2, PTI_CALL_SETUP_COMM_FREE, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "2"));
}

/* Workload-file errors name the file and line. */
static void
expect_file_error (const char *program, const char *top, const char *fragment)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = NULL;
  g_autoptr (PtiContext) ctx = file_context (4, NULL, &dir);
  g_autofree char *text = g_strdup_printf (
    "<?xml version='1.0'?>\n<workload name='bad'>\n  <processes count='4'/>\n%s"
    "  <program>\n%s  </program>\n</workload>\n", top, program);
  g_autofree char *path = write_file (dir, "bad.xml", text);
  gboolean ok = pti_workload_file_build (ctx, path, &error) && pti_evaluate (ctx, &error);
  g_assert_false (ok);
  g_assert_error (error, PTI_ERROR, PTI_ERROR_INVALID);
  if (strstr (error->message, fragment) == NULL)
    g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, fragment));
  g_unlink (path);
  g_rmdir (dir);
}

static void
test_workload_file_errors (void)
{
  /* mismatch: line 7 for ranks >= 2, against line 5 of rank 0 */
  expect_file_error ("    <if test='rank &lt; 2'>\n"
                     "      <then><bcast root='0' bytes='8'/></then>\n"
                     "      <else><allreduce bytes='8'/></else>\n"
                     "    </if>\n", "",
                     "bad.xml:7: <allreduce>: mismatched collective: call #1 on communicator "
                     "'world' is allreduce (8 bytes) on rank 2 but bcast (root 0, 8 bytes) on "
                     "rank 0 at ");
  expect_file_error ("    <if test='rank &lt; 2'>\n"
                     "      <then><bcast root='0' bytes='8'/></then>\n"
                     "      <else><allreduce bytes='8'/></else>\n"
                     "    </if>\n", "", "bad.xml:6; every member");
  /* missing calls: at evaluation, with the line of the first call */
  expect_file_error ("    <if test='rank != 3'><barrier/></if>\n", "",
                     "call #1 on communicator 'world', barrier made by rank 0 at ");
  expect_file_error ("    <barrier comm='rowz'/>\n", "<split name='rows' colour='0'/>\n",
                     "unknown communicator 'rowz' (defined by <split>: world, rows)");
  expect_file_error ("    <barrier comm='odd'/>\n", "<split name='odd' colour='rank % 2 ? 0 : -1'/>\n",
                     "bad.xml:6: <barrier>: barrier on rank 0: rank 0 belongs to no communicator "
                     "of 'odd'");
  expect_file_error ("", "<split name='s' colour='x'/>\n",
                     "bad.xml:4: <split colour=\"x\">: unbound parameter 'x'");
  expect_file_error ("", "<split name='s' colour='rank / 2'/>\n",
                     "colour must be a whole number from");
  expect_file_error ("", "<mpi><allreduce algorithm='brucks'/></mpi>\n",
                     "bad.xml:4: <allreduce algorithm=\"brucks\">: allreduce has no algorithm "
                     "'brucks'");
  expect_file_error ("    <send to='0' bytes='8' comm='s'/>\n",
                     "<split name='s' colour='rank % 2'/>\n",
                     "sent but never received");   /* each rank to itself */
  expect_file_error ("", "<split name='s' colour='0' parent='t'/>\n",
                     "unknown parent communicator 't'");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/collectives/barrier", test_barrier);
  g_test_add_func ("/collectives/bcast/binomial", test_bcast_binomial);
  g_test_add_func ("/collectives/bcast/scatter-allgather", test_bcast_scatter_allgather);
  g_test_add_func ("/collectives/bcast/choice", test_bcast_choice);
  g_test_add_func ("/collectives/reduce/binomial", test_reduce_binomial);
  g_test_add_func ("/collectives/reduce/rabenseifner", test_reduce_rabenseifner);
  g_test_add_func ("/collectives/allreduce/recursive-doubling", test_allreduce_recursive_doubling);
  g_test_add_func ("/collectives/allreduce/large", test_allreduce_large);
  g_test_add_func ("/collectives/gather-scatter", test_gather_scatter);
  g_test_add_func ("/collectives/allgather", test_allgather);
  g_test_add_func ("/collectives/alltoall", test_alltoall);
  g_test_add_func ("/collectives/alltoallv", test_alltoallv);
  g_test_add_func ("/collectives/all-algorithms", test_all_algorithms);
  g_test_add_func ("/collectives/scan", test_scan);
  g_test_add_func ("/collectives/reduce-scatter", test_reduce_scatter);
  g_test_add_func ("/collectives/gatherv-scatterv", test_gatherv_scatterv);
  g_test_add_func ("/collectives/allgatherv", test_allgatherv);
  g_test_add_func ("/collectives/vector-mistakes", test_vector_mistakes);
  g_test_add_func ("/collectives/all-algorithms-v", test_all_algorithms_v);
  g_test_add_func ("/collectives/nb/overlap", test_nb_overlap);
  g_test_add_func ("/collectives/nb/bcast", test_nb_bcast);
  g_test_add_func ("/collectives/nb/outstanding", test_nb_outstanding);
  g_test_add_func ("/collectives/nb/mistakes", test_nb_mistakes);
  g_test_add_func ("/collectives/nb/all", test_nb_all);
  g_test_add_func ("/collectives/override", test_override);
  g_test_add_func ("/collectives/override-schema", test_override_schema);
  g_test_add_func ("/collectives/combine-unpriced", test_combine_unpriced);
  g_test_add_func ("/collectives/mismatch", test_mismatch);
  g_test_add_func ("/comm/split", test_split);
  g_test_add_func ("/comm/collectives", test_comm_collectives);
  g_test_add_func ("/comm/isolation", test_comm_isolation);
  g_test_add_func ("/comm/split-errors", test_split_errors);
  g_test_add_func ("/comm/dup-create", test_dup_create);
  g_test_add_func ("/comm/partial-evaluation", test_partial);
  g_test_add_func ("/comm/workload-file", test_workload_file);
  g_test_add_func ("/collectives/system-file", test_system_file);
  g_test_add_func ("/comm/workload-file-errors", test_workload_file_errors);
  g_test_add_func ("/comm/setup", test_comm_setup);
  g_test_add_func ("/comm/setup-waits", test_comm_setup_waits);
  g_test_add_func ("/comm/setup-errors", test_comm_setup_errors);
  g_test_add_func ("/comm/call-setup", test_call_setup);
  g_test_add_func ("/comm/call-setup-errors", test_call_setup_errors);
  int status = g_test_run ();
  if (common_system != NULL) {
    g_unlink (common_system);
    g_rmdir (common_dir);
    g_free (common_system);
    g_free (common_dir);
  }
  return status;
}
