/* Closed-form tests of stage 2 through the WSL API: every expected time is
 * worked out by hand from the model equations (models/net-simple/README.md,
 * engine/engine.c's protocol notes) in the comment beside it.
 *
 * System used throughout (latency/bandwidth form of net-simple):
 *   L = 10 us, B = 100 MB/s (so 1000 bytes take 10 us on the wire),
 *   o_s = 2 us, o_r = 3 us, eager limit 16384 bytes;
 *   cpu-clc with LFOR = 1 us, CMLL = 0.5 us, INLL = 0.25 us, MFDL = 2 us,
 *   AFDL = 1 us (what a reduction's arithmetic costs per double). */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "core-private.h"
#include "wsl-private.h"

#define US 1e-6

static const char *const net_simple_lb =
  "<net_simple><latency unit='us'>10</latency><bandwidth unit='MB/s'>100</bandwidth>"
  "<send_overhead unit='us'>2</send_overhead><recv_overhead unit='us'>3</recv_overhead>"
  "<eager_limit unit='B'>16384</eager_limit></net_simple>";

/* LogGP: L = 10 us, o = 2 us, g = 5 us, G = 10 ns/byte. */
static const char *const net_simple_loggp =
  "<net_simple><loggp><L unit='us'>10</L><o unit='us'>2</o><g unit='us'>5</g>"
  "<G unit='ns'>10</G></loggp><eager_limit unit='B'>16384</eager_limit></net_simple>";

typedef struct {
  char *dir;
  char *system;
} Fixture;

static char *
write_system (const char *dir, guint nodes, const char *net)
{
  g_autofree char *xml = g_strdup_printf (
    "<system name='test'>\n"
    "  <computer name='node' count='%u'>\n"
    "    <cpu_clc unit='us'><LFOR>1</LFOR><CMLL>0.5</CMLL><INLL>0.25</INLL><MFDL>2</MFDL>"
    "<AFDL>1</AFDL></cpu_clc>\n"
    "  </computer>\n"
    "  <network name='net'>%s</network>\n"
    "  <connect computer='node' nodes='1-%u' network='net' ports='1-%u'/>\n"
    "</system>\n", nodes, net, nodes, nodes);
  char *path = g_build_filename (dir, "system.xml", NULL);
  g_assert_true (g_file_set_contents (path, xml, -1, NULL));
  return path;
}

/* A context on a fresh system file in @dir (a new temporary folder if NULL). */
static PtiContext *
context_new_in (const char *dir, guint procs, const char *net)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *tmp = dir ? NULL : g_dir_make_tmp ("pti-engine-XXXXXX", &error);
  g_assert_no_error (error);
  g_autofree char *system = write_system (dir ? dir : tmp, MAX (procs, 8), net);
  PtiContext *ctx = pti_context_new (system, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (ctx);
  g_unlink (system);
  if (tmp != NULL)
    g_rmdir (tmp);
  g_assert_true (pti_context_set_processes (ctx, procs, &error));
  g_assert_no_error (error);
  return ctx;
}

static PtiContext *
context_new (guint procs, const char *net)
{
  return context_new_in (NULL, procs, net);
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

/* Eager ping-pong of 1000 bytes.  One way: o_s + L + n/B + o_r
 * = 2 + 10 + 10 + 3 = 25 us; round trip 50 us.  Rank 1 sends the reply
 * at 25 us and is done after o_s, at 27 us.  Rank 0 waits from 2 us (its
 * send done) until the reply arrives at 47 us: 45 us of wait. */
static void
test_pingpong_eager (void)
{
  g_autoptr (PtiContext) ctx = context_new (2, net_simple_lb);
  g_autoptr (GError) error = NULL;
  g_assert_true (pti_mpi_send (ctx, 0, 1, 1000, 7, &error));
  g_assert_true (pti_mpi_recv (ctx, 0, 1, 1000, 8, &error));
  g_assert_true (pti_mpi_recv (ctx, 1, 0, 1000, 7, &error));
  g_assert_true (pti_mpi_send (ctx, 1, 0, 1000, 8, &error));
  evaluate (ctx);
  assert_time (pti_result_time (ctx), 50 * US);
  g_assert_cmpuint (pti_result_events (ctx), ==, 4);
  PtiProcessResult r0 = result (ctx, 0), r1 = result (ctx, 1);
  assert_time (r0.end, 50 * US);
  assert_time (r0.comm, 5 * US);
  assert_time (r0.wait, 45 * US);
  assert_time (r1.end, 27 * US);
  assert_time (r1.wait, 22 * US);   /* posted at 0, data in at 22 us */
  assert_time (r1.comm, 5 * US);
}

/* Rendezvous, 100,000 bytes (> 16384): request leaves after o_s = 2 us and
 * arrives at 12 us (0 bytes: L only); the receive is posted, so the reply
 * arrives back at 22 us; data leaves 22..1022 us (100,000 B at 100 MB/s =
 * 1000 us) and arrives at 1032 us; the receive ends at 1035 us.  The sender
 * ends at 1022 us, having waited 22 - 2 = 20 us. */
static void
test_rendezvous (void)
{
  g_autoptr (PtiContext) ctx = context_new (2, net_simple_lb);
  g_autoptr (GError) error = NULL;
  g_assert_true (pti_mpi_send (ctx, 0, 1, 100000, 1, &error));
  g_assert_true (pti_mpi_recv (ctx, 1, 0, 100000, 1, &error));
  evaluate (ctx);
  assert_time (pti_result_time (ctx), 1035 * US);
  PtiProcessResult r0 = result (ctx, 0), r1 = result (ctx, 1);
  assert_time (r0.end, 1022 * US);
  assert_time (r0.wait, 20 * US);
  assert_time (r0.comm, 1002 * US);
  assert_time (r1.wait, 1032 * US);
}

/* The same with a receiver that computes first: a loop of N = 200
 * iterations, header LFOR,CMLL,INLL (1 + 0.5 + 0.25 = 1.75 us) and body
 * MFDL (2 us): 200 x 3.75 = 750 us.  The reply leaves at 750 us, reaches the sender at
 * 760 us; data 760..1760 us, arrival 1770, receive ends 1773 us. */
static void
test_rendezvous_late_receiver (void)
{
  g_autoptr (PtiContext) ctx = context_new (2, net_simple_lb);
  g_autoptr (GError) error = NULL;
  g_autoptr (PtiRud) rud = pti_rud_new (ctx, "work",
    "<rud device='cpu'><loop iter='N' type='clc' of='LFOR,CMLL,INLL'>"
    "<compute type='clc' of='MFDL'/></loop></rud>", &error);
  g_assert_no_error (error);
  g_assert_true (pti_context_set_param (ctx, "N", 200, &error));
  g_assert_true (pti_mpi_send (ctx, 0, 1, 100000, 1, &error));
  g_assert_true (pti_use (ctx, 1, rud, &error));
  g_assert_true (pti_mpi_recv (ctx, 1, 0, 100000, 1, &error));
  evaluate (ctx);
  assert_time (pti_result_time (ctx), 1773 * US);
  PtiProcessResult r0 = result (ctx, 0), r1 = result (ctx, 1);
  assert_time (r1.compute, 750 * US);
  assert_time (r0.end, 1760 * US);
  assert_time (r0.wait, 758 * US);   /* blocked from 2 us until the reply at 760 us */
}

/* A ring of 4: everyone sends 1000 B right, then receives from the left.
 * Sends end at 2 us; data arrives at 2 + 10 + 10 = 22 us; receives end at
 * 25 us on every rank. */
static void
test_ring (void)
{
  g_autoptr (PtiContext) ctx = context_new (4, net_simple_lb);
  g_autoptr (GError) error = NULL;
  for (guint r = 0; r < 4; r++) {
    g_assert_true (pti_mpi_send (ctx, r, (r + 1) % 4, 1000, 0, &error));
    g_assert_true (pti_mpi_recv (ctx, r, (r + 3) % 4, 1000, 0, &error));
  }
  evaluate (ctx);
  assert_time (pti_result_time (ctx), 25 * US);
  for (guint r = 0; r < 4; r++) {
    assert_time (result (ctx, r).end, 25 * US);
    assert_time (result (ctx, r).wait, 20 * US);
  }
}

/* Non-overtaking: rank 0 sends 1000 B then 10 B with one tag.  The second
 * leaves at 4 us and arrives at 14.1 us, before the first (22 us), but the
 * first receive must take the first message: it ends at 25 us, the second
 * receive (posted at 25 us, data already there) at 28 us.  Were the
 * messages matched by arrival, the first receive (expecting 1000 B) would
 * end at 17.1 us. */
static void
test_non_overtaking (void)
{
  g_autoptr (PtiContext) ctx = context_new (2, net_simple_lb);
  g_autoptr (GError) error = NULL;
  g_assert_true (pti_mpi_send (ctx, 0, 1, 1000, 5, &error));
  g_assert_true (pti_mpi_send (ctx, 0, 1, 10, 5, &error));
  g_assert_true (pti_mpi_recv (ctx, 1, 0, 1000, 5, &error));
  g_assert_true (pti_mpi_recv (ctx, 1, 0, 10, 5, &error));
  evaluate (ctx);
  assert_time (result (ctx, 1).end, 28 * US);
  assert_time (result (ctx, 1).wait, 22 * US);
}

/* Matching is by tag too: rank 1 receives tag 2 first although tag 1 was
 * sent first.  Tag 1 (1000 B) arrives at 22 us, tag 2 (1000 B, sent at
 * 2 us) at 24 us; receive tag 2 ends 27 us, receive tag 1 (data there)
 * 30 us. */
static void
test_tag_matching (void)
{
  g_autoptr (PtiContext) ctx = context_new (2, net_simple_lb);
  g_autoptr (GError) error = NULL;
  g_assert_true (pti_mpi_send (ctx, 0, 1, 1000, 1, &error));
  g_assert_true (pti_mpi_send (ctx, 0, 1, 1000, 2, &error));
  g_assert_true (pti_mpi_recv (ctx, 1, 0, 1000, 2, &error));
  g_assert_true (pti_mpi_recv (ctx, 1, 0, 1000, 1, &error));
  evaluate (ctx);
  assert_time (result (ctx, 1).end, 30 * US);
}

/* Binomial broadcast of 1000 B on 8 ranks: the longest chain is
 * 0 -> 4 -> 6 -> 7, each hop o_s + L + n/B + o_r = 25 us after its sender
 * got the data, and each sender sends to its farthest child first, so rank
 * 7 ends at 3 x 25 = 75 us = ceil(log2 8) x (L + n/B + o_s + o_r). */
static void
test_bcast_binomial (void)
{
  g_autoptr (PtiContext) ctx = context_new (8, net_simple_lb);
  g_autoptr (GError) error = NULL;
  for (guint r = 0; r < 8; r++)
    g_assert_true (pti_mpi_bcast (ctx, r, 0, 1000, &error));
  evaluate (ctx);
  assert_time (pti_result_time (ctx), 75 * US);
  assert_time (result (ctx, 7).end, 75 * US);
  /* Rank 1 is rank 0's third child: sent 4..6 us, arrives 26, ends 29 us. */
  assert_time (result (ctx, 1).end, 29 * US);
  g_assert_cmpuint (pti_result_events (ctx), ==, 14);   /* 7 messages, 2 ends each */
}

/* LogGP: two 1001-byte messages from rank 0 to rank 1.  The first starts
 * at o = 2 us, is out at 2 + 1000 x 10 ns = 12 us and arrives at 22 us
 * (ends at 24 us with o).  The second is posted at 4 us but the gap holds
 * it until 2 + g = 7 us: out at 17 us, arrives 27 us, receive ends 29 us. */
static void
test_loggp_gap (void)
{
  g_autoptr (PtiContext) ctx = context_new (2, net_simple_loggp);
  g_autoptr (GError) error = NULL;
  g_assert_true (pti_mpi_send (ctx, 0, 1, 1001, 0, &error));
  g_assert_true (pti_mpi_send (ctx, 0, 1, 1001, 0, &error));
  g_assert_true (pti_mpi_recv (ctx, 1, 0, 1001, 0, &error));
  g_assert_true (pti_mpi_recv (ctx, 1, 0, 1001, 0, &error));
  evaluate (ctx);
  assert_time (pti_result_time (ctx), 29 * US);
  assert_time (result (ctx, 0).end, 4 * US);
}

/* Size pieces (net-simple): L = 1 us, B = 1000 MB/s up to 100 bytes; L = 5
 * us, B = 50 MB/s up to 10,000 bytes; above, the top-level L = 10 us and
 * B = 100 MB/s; o_s = 2 us, o_r = 3 us, eager up to 16,384 bytes.  One
 * message to a receive posted at 0 ends at o_s + L + n/B + o_r:
 *   100 B:   2 + 1 + 0.1 + 3      =   6.1 us (first piece, its last size)
 *   101 B:   2 + 5 + 2.02 + 3     =  12.02 us (second piece)
 *   10000 B: 2 + 5 + 200 + 3      = 210 us
 *   10001 B: 2 + 10 + 100.01 + 3  = 115.01 us (above the pieces)
 *   20000 B: rendezvous, its 0-byte request and answer in the first piece:
 *            2 + 1 + 1 + (10 + 200) + 3 = 217 us. */
static const char *const net_simple_pieces =
  "<net_simple><latency unit='us'>10</latency><bandwidth unit='MB/s'>100</bandwidth>"
  "<send_overhead unit='us'>2</send_overhead><recv_overhead unit='us'>3</recv_overhead>"
  "<piece up_to='100'><latency unit='us'>1</latency><bandwidth unit='MB/s'>1000</bandwidth></piece>"
  "<piece up_to='10000'><latency unit='us'>5</latency><bandwidth unit='MB/s'>50</bandwidth></piece>"
  "<eager_limit unit='B'>16384</eager_limit></net_simple>";

static void
test_pieces (void)
{
  static const struct { guint64 bytes; double end_us; } cases[] = {
    { 100, 6.1 }, { 101, 12.02 }, { 10000, 210 }, { 10001, 115.01 }, { 20000, 217 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    g_autoptr (PtiContext) ctx = context_new (2, net_simple_pieces);
    g_autoptr (GError) error = NULL;
    g_assert_true (pti_mpi_recv (ctx, 1, 0, cases[i].bytes, 0, &error));
    g_assert_true (pti_mpi_send (ctx, 0, 1, cases[i].bytes, 0, &error));
    evaluate (ctx);
    assert_time (result (ctx, 1).end, cases[i].end_us * US);
  }

  /* Pieces out of order, and a live change a piece would make ambiguous. */
  g_autofree char *tmp = g_dir_make_tmp ("pti-engine-XXXXXX", NULL);
  g_autofree char *bad = g_strdup (net_simple_pieces);
  memcpy (strstr (bad, "up_to='10000'"), "up_to='00050'", strlen ("up_to='00050'"));
  g_autofree char *system = write_system (tmp, 2, bad);
  g_autoptr (GError) error = NULL;
  g_autoptr (PtiContext) none = pti_context_new (system, NULL, &error);
  g_assert_null (none);
  g_assert_nonnull (error);
  if (strstr (error->message, "up_to=\"50\" does not follow the previous piece's 100") == NULL)
    g_error ("unexpected error: %s", error->message);
  g_unlink (system);
  g_rmdir (tmp);
  g_autoptr (PtiContext) ctx = context_new (2, net_simple_pieces);
  g_clear_error (&error);
  g_assert_false (pti_context_change_at (ctx, 1e-6, "net", "latency", "2us", &error));
  g_assert_nonnull (error);
  if (strstr (error->message, "net-simple with size pieces cannot change 'latency'") == NULL)
    g_error ("unexpected error: %s", error->message);
}

/* Computations only: stage 1 prices each use with the parameters bound at
 * that moment.  N = 10: 10 x 3.75 = 37.5 us; then N = 4: 15 us. */
static void
test_compute_parameters (void)
{
  g_autoptr (PtiContext) ctx = context_new (1, net_simple_lb);
  g_autoptr (GError) error = NULL;
  g_autoptr (PtiRud) rud = pti_rud_new (ctx, "loop",
    "<rud device='cpu'><loop iter='N' type='clc' of='LFOR,CMLL,INLL'>"
    "<compute type='clc' of='MFDL'/></loop></rud>", &error);
  g_assert_no_error (error);
  g_assert_true (pti_context_set_param (ctx, "N", 10, &error));
  g_assert_true (pti_use (ctx, 0, rud, &error));
  g_assert_true (pti_context_set_param (ctx, "N", 4, &error));
  g_assert_true (pti_use (ctx, 0, rud, &error));
  g_assert_true (pti_use_xml (ctx, 0, "<rud device='cpu'><compute type='clc' of='2*MFDL'/></rud>",
                              &error));
  g_assert_no_error (error);
  evaluate (ctx);
  assert_time (pti_result_time (ctx), (37.5 + 15 + 4) * US);
  assert_time (result (ctx, 0).compute, (37.5 + 15 + 4) * US);
}

static void
test_deadlock (void)
{
  g_autoptr (PtiContext) ctx = context_new (3, net_simple_lb);
  g_autoptr (GError) error = NULL;
  g_assert_true (pti_mpi_recv (ctx, 0, 1, 8, 3, &error));
  g_assert_true (pti_mpi_send (ctx, 0, 1, 8, 3, &error));
  g_assert_true (pti_mpi_recv (ctx, 1, 0, 8, 3, &error));
  g_assert_true (pti_mpi_send (ctx, 1, 0, 8, 3, &error));
  /* rank 2 finishes: it must not be named */
  g_assert_false (pti_evaluate (ctx, &error));
  g_assert_error (error, PTI_ERROR, PTI_ERROR_DEADLOCK);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "2 of 3 ranks"));
  g_assert_nonnull (strstr (error->message, "rank 0: blocked since 0.000000000 s in recv from rank 1, tag 3, 8 bytes"));
  g_assert_nonnull (strstr (error->message, "rank 1: blocked"));
  g_assert_null (strstr (error->message, "rank 2:"));
}

/* Two rendezvous sends facing each other: neither receive is ever posted. */
static void
test_deadlock_rendezvous (void)
{
  g_autoptr (PtiContext) ctx = context_new (2, net_simple_lb);
  g_autoptr (GError) error = NULL;
  for (guint r = 0; r < 2; r++) {
    g_assert_true (pti_mpi_send (ctx, r, 1 - r, 1 << 20, 0, &error));
    g_assert_true (pti_mpi_recv (ctx, r, 1 - r, 1 << 20, 0, &error));
  }
  g_assert_false (pti_evaluate (ctx, &error));
  g_assert_error (error, PTI_ERROR, PTI_ERROR_DEADLOCK);
  g_assert_nonnull (strstr (error->message, "rendezvous"));
  g_assert_nonnull (strstr (error->message, "at simulated time 0.000002000 s"));
}

static void
test_unreceived (void)
{
  g_autoptr (PtiContext) ctx = context_new (2, net_simple_lb);
  g_autoptr (GError) error = NULL;
  g_assert_true (pti_mpi_send (ctx, 0, 1, 64, 9, &error));
  g_assert_false (pti_evaluate (ctx, &error));
  g_assert_error (error, PTI_ERROR, PTI_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "rank 0 -> rank 1, tag 9, 64 bytes"));
}

static void
test_truncated (void)
{
  g_autoptr (PtiContext) ctx = context_new (2, net_simple_lb);
  g_autoptr (GError) error = NULL;
  g_assert_true (pti_mpi_send (ctx, 0, 1, 64, 9, &error));
  g_assert_true (pti_mpi_recv (ctx, 1, 0, 32, 9, &error));
  g_assert_false (pti_evaluate (ctx, &error));
  g_assert_error (error, PTI_ERROR, PTI_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "longer than the 32-byte receive"));
}

static void
test_user_mistakes (void)
{
  g_autoptr (PtiContext) ctx = context_new (2, net_simple_lb);
  g_autoptr (GError) error = NULL;
  g_assert_false (pti_mpi_send (ctx, 0, 2, 8, 0, &error));
  g_assert_error (error, PTI_ERROR, PTI_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "destination rank 2 out of range"));
  g_clear_error (&error);
  g_assert_false (pti_mpi_recv (ctx, 5, 0, 8, 0, &error));
  g_assert_nonnull (strstr (error->message, "rank 5 out of range"));
  g_clear_error (&error);
  g_assert_false (pti_mpi_send (ctx, 0, 1, 8, -3, &error));
  g_assert_nonnull (strstr (error->message, "tag -3"));
  g_clear_error (&error);
  /* an unbound RUD parameter is named, never priced as zero */
  g_autoptr (PtiRud) rud = pti_rud_new (ctx, "adi",
    "<rud device='cpu'><loop iter='MY_SIZE' type='clc' of='LFOR'/></rud>", &error);
  g_assert_no_error (error);
  g_assert_false (pti_use (ctx, 1, rud, &error));
  g_assert_error (error, PTI_ERROR, PTI_ERROR_INVALID);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "rank 1"));
  g_assert_nonnull (strstr (error->message, "MY_SIZE"));
  g_clear_error (&error);
  g_assert_null (pti_rud_new (ctx, "bad", "<rud device='gpu'/>", &error));
  g_assert_nonnull (strstr (error->message, "unknown device 'gpu'"));
  g_clear_error (&error);
  g_assert_null (pti_rud_new (ctx, "bad", "<rud device='cpu'><loop", &error));
  g_assert_nonnull (strstr (error->message, "malformed XML"));
  g_clear_error (&error);
  g_assert_false (pti_context_set_processes (ctx, 3, &error));
  g_clear_error (&error);
  g_assert_true (pti_context_override_param (ctx, "nosuch", "3", &error));
  g_assert_false (pti_evaluate (ctx, &error));
  g_assert_error (error, PTI_ERROR, PTI_ERROR_USAGE);
  g_assert_nonnull (strstr (error->message, "nosuch"));
}

static void
test_too_many_processes (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("pti-engine-XXXXXX", &error);
  g_autofree char *system = write_system (dir, 4, net_simple_lb);
  g_autoptr (PtiContext) ctx = pti_context_new (system, NULL, &error);
  g_assert_no_error (error);
  g_assert_false (pti_context_set_processes (ctx, 5, &error));
  g_assert_error (error, PTI_ERROR, PTI_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "5 processes requested"));
  g_assert_nonnull (strstr (error->message, "4 processors"));
  g_unlink (system);
  g_rmdir (dir);
}

/* The same workload twice gives byte-identical traces. */
static char *
traced_run (const char *dir, const char *name)
{
  g_autoptr (PtiContext) ctx = context_new_in (dir, 4, net_simple_lb);
  g_autoptr (GError) error = NULL;
  char *path = g_build_filename (dir, name, NULL);
  pti_context_set_trace (ctx, path);
  g_autoptr (PtiRud) rud = pti_rud_new (ctx, "w", "<rud device='cpu'><compute type='clc' of='MFDL'/></rud>", &error);
  for (guint it = 0; it < 3; it++)
    for (guint r = 0; r < 4; r++) {
      g_assert_true (pti_use (ctx, r, rud, &error));
      /* Blocking rendezvous sends around a ring deadlock (as in MPI), so
       * even ranks send first and odd ranks receive first. */
      for (guint step = 0; step < 2; step++) {
        if ((r + step) % 2 == 0)
          g_assert_true (pti_mpi_send (ctx, r, (r + 1) % 4, 20000 * (it + 1), it, &error));
        else
          g_assert_true (pti_mpi_recv (ctx, r, (r + 3) % 4, 20000 * (it + 1), it, &error));
      }
      g_assert_true (pti_mpi_allreduce (ctx, r, 8, &error));
    }
  g_assert_no_error (error);
  evaluate (ctx);
  /* per iteration and rank: 1 compute, 2 ring message ends, and an
   * allreduce on 4 ranks by recursive doubling: 2 steps of irecv, isend,
   * waitall and combine (wsl/COLLECTIVES.md): 3 x 4 x (3 + 8) = 132 */
  g_assert_cmpuint (pti_result_events (ctx), ==, 132);
  return path;
}

static void
test_deterministic_trace (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("pti-trace-XXXXXX", &error);
  g_autofree char *a = traced_run (dir, "a.xml");
  g_autofree char *b = traced_run (dir, "b.xml");
  g_autofree char *ta = NULL, *tb = NULL;
  gsize la, lb;
  g_assert_true (g_file_get_contents (a, &ta, &la, NULL));
  g_assert_true (g_file_get_contents (b, &tb, &lb, NULL));
  g_assert_cmpuint (la, >, 1000);
  g_assert_cmpmem (ta, la, tb, lb);
  g_assert_nonnull (strstr (ta, "rendezvous"));
  /* validate against the schema */
  const char *schema_dir = g_getenv ("PTI_SCHEMA_DIR");
  g_assert_nonnull (schema_dir);
  g_autofree char *xsd = g_build_filename (schema_dir, "trace.xsd", NULL);
  const char *argv[] = { "xmllint", "--noout", "--nonet", "--schema", xsd, a, NULL };
  int status = -1;
  g_autofree char *err = NULL;
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL,
                               NULL, NULL, NULL, &err, &status, &error));
  g_assert_no_error (error);
  if (status != 0)
    g_test_message ("%s", err);
  g_assert_cmpint (status, ==, 0);
  g_unlink (a);
  g_unlink (b);
  g_rmdir (dir);
}

/* A computation of @us microseconds (MFDL = 2 us each) on @rank. */
static void
compute_us (PtiContext *ctx, guint rank, guint us)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *xml = g_strdup_printf ("<rud device='cpu'><compute type='clc' of='%u*MFDL'/></rud>",
                                          us / 2);
  g_assert_true (pti_use_xml (ctx, rank, xml, &error));
  g_assert_no_error (error);
}

/* Overlap: rank 0 isends 1000 B (2 us of overhead), computes 100 us and
 * waits: the eager send completed at 2 us, so it ends at 102 us without
 * waiting.  Rank 1 posts an irecv at 0, computes 100 us and waits: the data
 * arrived at 2 + 10 + 10 = 22 us, so the wait costs only o_r: 103 us. */
static void
test_nonblocking_overlap (void)
{
  g_autoptr (PtiContext) ctx = context_new (2, net_simple_lb);
  g_autoptr (GError) error = NULL;
  PtiRequest s, r;
  g_assert_true (pti_mpi_isend (ctx, 0, 1, 1000, 4, &s, &error));
  compute_us (ctx, 0, 100);
  g_assert_true (pti_mpi_wait (ctx, 0, s, &error));
  g_assert_true (pti_mpi_irecv (ctx, 1, 0, 1000, 4, &r, &error));
  compute_us (ctx, 1, 100);
  g_assert_true (pti_mpi_wait (ctx, 1, r, &error));
  g_assert_no_error (error);
  evaluate (ctx);
  assert_time (pti_result_time (ctx), 103 * US);
  PtiProcessResult r0 = result (ctx, 0), r1 = result (ctx, 1);
  assert_time (r0.end, 102 * US);
  assert_time (r0.wait, 0);
  assert_time (r1.end, 103 * US);
  assert_time (r1.wait, 0);
  assert_time (r1.comm, 3 * US);
  g_assert_cmpuint (pti_result_events (ctx), ==, 6);
}

/* Waitall on three irecvs whose messages (sent at 0 by ranks 1-3) all
 * arrive at 22 us: the wait ends at 22 us plus three receive overheads,
 * 31 us, having waited 22 us. */
static void
test_waitall (void)
{
  g_autoptr (PtiContext) ctx = context_new (4, net_simple_lb);
  g_autoptr (GError) error = NULL;
  PtiRequest req[3];
  for (guint k = 0; k < 3; k++)
    g_assert_true (pti_mpi_irecv (ctx, 0, k + 1, 1000, 0, &req[k], &error));
  g_assert_true (pti_mpi_waitall (ctx, 0, 3, req, &error));
  for (guint k = 1; k < 4; k++)
    g_assert_true (pti_mpi_send (ctx, k, 0, 1000, 0, &error));
  g_assert_no_error (error);
  evaluate (ctx);
  assert_time (result (ctx, 0).end, 31 * US);
  assert_time (result (ctx, 0).wait, 22 * US);
  assert_time (result (ctx, 0).comm, 9 * US);
}

/* Receives from any source take messages in the order their sends were
 * posted: rank k computes 10(4-k) us and sends 1000 B, so rank 3 sends
 * first (at 10 us, arrival 32 us), then rank 2 (20 us, 42 us), then rank 1
 * (30 us, 52 us).  The three receives end at 35, 45 and 55 us. */
static void
test_any_source (void)
{
  g_autoptr (PtiContext) ctx = context_new (4, net_simple_lb);
  g_autoptr (GError) error = NULL;
  for (guint k = 0; k < 3; k++)
    g_assert_true (pti_mpi_recv (ctx, 0, PTI_ANY_SOURCE, 1000, PTI_ANY_TAG, &error));
  for (guint k = 1; k < 4; k++) {
    compute_us (ctx, k, 10 * (4 - k));
    g_assert_true (pti_mpi_send (ctx, k, 0, 1000, 10 + k, &error));
  }
  g_assert_no_error (error);
  evaluate (ctx);
  assert_time (result (ctx, 0).end, 55 * US);
  assert_time (result (ctx, 0).wait, (32 + 7 + 7) * US);
}

/* Waitany picks the first request to complete: rank 2's message (sent
 * after 10 us, arrival 32 us) before rank 1's (sent after 30 us, arrival
 * 52 us).  First waitany ends at 35 us, the second at 55 us. */
static void
test_waitany (void)
{
  g_autoptr (PtiContext) ctx = context_new (3, net_simple_lb);
  g_autoptr (GError) error = NULL;
  PtiRequest req[2];
  g_assert_true (pti_mpi_irecv (ctx, 0, 1, 1000, 0, &req[0], &error));
  g_assert_true (pti_mpi_irecv (ctx, 0, 2, 1000, 0, &req[1], &error));
  g_assert_true (pti_mpi_waitany (ctx, 0, 2, req, &error));
  compute_us (ctx, 0, 4);   /* 35 -> 39 us */
  g_assert_true (pti_mpi_waitany (ctx, 0, 2, req, &error));
  compute_us (ctx, 1, 30);
  g_assert_true (pti_mpi_send (ctx, 1, 0, 1000, 0, &error));
  compute_us (ctx, 2, 10);
  g_assert_true (pti_mpi_send (ctx, 2, 0, 1000, 0, &error));
  g_assert_no_error (error);
  evaluate (ctx);
  assert_time (result (ctx, 0).end, 55 * US);
  assert_time (result (ctx, 0).wait, (32 + 13) * US);
}

/* A rendezvous isend overlaps its handshake and transfer with computation:
 * request at 2 us, reply back at 22 us, data out 22..1022 us; rank 0
 * computes until 2002 us and its wait costs nothing.  Rank 1's receive ends
 * at 1035 us. */
static void
test_isend_rendezvous (void)
{
  g_autoptr (PtiContext) ctx = context_new (2, net_simple_lb);
  g_autoptr (GError) error = NULL;
  PtiRequest s;
  g_assert_true (pti_mpi_isend (ctx, 0, 1, 100000, 0, &s, &error));
  compute_us (ctx, 0, 2000);
  g_assert_true (pti_mpi_wait (ctx, 0, s, &error));
  g_assert_true (pti_mpi_recv (ctx, 1, 0, 100000, 0, &error));
  g_assert_no_error (error);
  evaluate (ctx);
  assert_time (result (ctx, 0).end, 2002 * US);
  assert_time (result (ctx, 0).wait, 0);
  assert_time (result (ctx, 1).end, 1035 * US);
}

static void
test_request_mistakes (void)
{
  g_autoptr (PtiContext) ctx = context_new (2, net_simple_lb);
  g_autoptr (GError) error = NULL;
  PtiRequest r;
  g_assert_true (pti_mpi_irecv (ctx, 0, 1, 8, 0, &r, &error));
  g_assert_false (pti_mpi_wait (ctx, 0, r + 7, &error));
  g_assert_nonnull (strstr (error->message, "was not made by isend or irecv"));
  g_clear_error (&error);
  g_assert_false (pti_mpi_wait (ctx, 1, r, &error));   /* another rank's request */
  g_clear_error (&error);
  g_assert_true (pti_mpi_wait (ctx, 0, r, &error));
  g_assert_false (pti_mpi_wait (ctx, 0, r, &error));
  g_assert_nonnull (strstr (error->message, "already completed"));
  g_clear_error (&error);
  g_assert_false (pti_mpi_isend (ctx, 0, PTI_ANY_SOURCE, 8, 0, &r, &error));
  g_clear_error (&error);
  g_assert_false (pti_mpi_send (ctx, 0, 1, 8, PTI_ANY_TAG, &error));
  g_clear_error (&error);
  /* a request never waited for */
  g_assert_true (pti_mpi_isend (ctx, 1, 0, 8, 0, &r, &error));
  g_assert_false (pti_evaluate (ctx, &error));
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "rank 1: request 0 (isend to rank 0, tag 0, 8 bytes) is never completed by a wait"));
}

static void
test_deadlock_waitall (void)
{
  g_autoptr (PtiContext) ctx = context_new (2, net_simple_lb);
  g_autoptr (GError) error = NULL;
  PtiRequest r[2];
  g_assert_true (pti_mpi_irecv (ctx, 0, 1, 8, 1, &r[0], &error));
  g_assert_true (pti_mpi_irecv (ctx, 0, PTI_ANY_SOURCE, 8, PTI_ANY_TAG, &r[1], &error));
  g_assert_true (pti_mpi_waitall (ctx, 0, 2, r, &error));
  g_assert_true (pti_mpi_send (ctx, 1, 0, 8, 1, &error));
  g_assert_false (pti_evaluate (ctx, &error));
  g_assert_error (error, PTI_ERROR, PTI_ERROR_DEADLOCK);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "rank 0: blocked since 0.000000000 s in waitall for irecv from any rank, any tag, 8 bytes: no matching send"));
}

/* A phased workload: each phase every rank computes (varying by rank and
 * phase), swaps messages with both ring neighbours (some eager, some
 * rendezvous, with non-blocking calls) and joins an allreduce. */
typedef enum { PARTIAL_NONE, PARTIAL_EACH_PHASE, PARTIAL_AUTO } PartialMode;

static PtiContext *
phased_run (PartialMode mode, const char *trace, guint phases)
{
  g_autoptr (GError) error = NULL;
  PtiContext *ctx = context_new (6, net_simple_lb);
  if (trace != NULL)
    pti_context_set_trace (ctx, trace);
  if (mode == PARTIAL_AUTO)
    pti_context_set_pending_limit (ctx, 7);
  for (guint ph = 0; ph < phases; ph++) {
    for (guint r = 0; r < 6; r++) {
      compute_us (ctx, r, 2 * (1 + (r * 7 + ph * 3) % 5));
      guint64 bytes = (r + ph) % 3 == 0 ? 40000 : 1000 * (1 + r);
      guint64 max = 40000;
      PtiRequest req[2];
      g_assert_true (pti_mpi_irecv (ctx, r, (r + 5) % 6, max, 1, &req[0], &error));
      g_assert_true (pti_mpi_isend (ctx, r, (r + 1) % 6, bytes, 1, &req[1], &error));
      g_assert_true (pti_mpi_waitall (ctx, r, 2, req, &error));
      if (r % 2 == 0) {
        g_assert_true (pti_mpi_send (ctx, r, r + 1, bytes, 2, &error));
      } else {
        g_assert_true (pti_mpi_recv (ctx, r, r - 1, max, 2, &error));
      }
      g_assert_true (pti_mpi_allreduce (ctx, r, 8, &error));
      g_assert_no_error (error);
    }
    if (mode == PARTIAL_EACH_PHASE) {
      g_assert_true (pti_evaluate_partial (ctx, &error));
      g_assert_no_error (error);
    }
  }
  evaluate (ctx);
  return ctx;
}

/* Partial evaluation changes nothing in the results. */
static void
test_partial_evaluation (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("pti-partial-XXXXXX", &error);
  g_autofree char *trace = g_build_filename (dir, "partial.xml", NULL);
  g_autoptr (PtiContext) full = phased_run (PARTIAL_NONE, NULL, 9);
  g_autoptr (PtiContext) each = phased_run (PARTIAL_EACH_PHASE, trace, 9);
  g_autoptr (PtiContext) automatic = phased_run (PARTIAL_AUTO, NULL, 9);
  g_assert_cmpfloat (pti_result_time (full), >, 0);
  g_assert_cmpuint (pti_result_events (each), ==, pti_result_events (full));
  g_assert_cmpuint (pti_result_events (automatic), ==, pti_result_events (full));
  assert_time (pti_result_time (each), pti_result_time (full));
  assert_time (pti_result_time (automatic), pti_result_time (full));
  for (guint r = 0; r < 6; r++) {
    PtiProcessResult a = result (full, r), b = result (each, r), c = result (automatic, r);
    assert_time (b.end, a.end);
    assert_time (b.wait, a.wait);
    assert_time (b.comm, a.comm);
    assert_time (c.end, a.end);
    assert_time (c.wait, a.wait);
    g_assert_cmpuint (b.events, ==, a.events);
  }
  /* the trace came out in chunks, and is valid */
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (trace, &text, NULL, NULL));
  guint chunks = 0;
  for (const char *c = text; (c = strstr (c, "<events>")) != NULL; c++)
    chunks++;
  g_assert_cmpuint (chunks, >=, 5);
  const char *schema_dir = g_getenv ("PTI_SCHEMA_DIR");
  g_autofree char *xsd = g_build_filename (schema_dir, "trace.xsd", NULL);
  const char *argv[] = { "xmllint", "--noout", "--nonet", "--schema", xsd, trace, NULL };
  int status = -1;
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL,
                               G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL
                               | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, &error));
  g_assert_cmpint (status, ==, 0);
  g_unlink (trace);
  g_rmdir (dir);
}

/* Messages in flight and blocked ranks carry over a partial evaluation:
 * rank 1 posts its receive before the evaluation point, rank 0 sends after
 * it (eager ping-pong figures: the receive ends 25 us after the send). */
static void
test_partial_in_flight (void)
{
  g_autoptr (PtiContext) ctx = context_new (2, net_simple_lb);
  g_autoptr (GError) error = NULL;
  g_assert_true (pti_mpi_recv (ctx, 1, 0, 1000, 0, &error));
  compute_us (ctx, 0, 40);
  g_assert_true (pti_evaluate_partial (ctx, &error));
  g_assert_true (pti_mpi_send (ctx, 0, 1, 1000, 0, &error));
  g_assert_true (pti_evaluate_partial (ctx, &error));
  g_assert_no_error (error);
  evaluate (ctx);
  assert_time (result (ctx, 1).end, 65 * US);
  assert_time (result (ctx, 0).end, 42 * US);
  g_assert_cmpuint (pti_result_events (ctx), ==, 3);
}

/* One phase of a 6-rank ring workload: computation, a non-blocking swap
 * with both neighbours (eager and rendezvous sizes), a blocking pair
 * exchange and an allreduce. */
static void
ring_phase (PtiContext *ctx, guint r)
{
  g_autoptr (GError) error = NULL;
  compute_us (ctx, r, 2 * (1 + (r * 7) % 5));
  guint64 bytes = r % 3 == 0 ? 40000 : 1000 * (1 + r);
  PtiRequest req[2];
  g_assert_true (pti_mpi_irecv (ctx, r, (r + 5) % 6, 40000, 1, &req[0], &error));
  g_assert_true (pti_mpi_isend (ctx, r, (r + 1) % 6, bytes, 1, &req[1], &error));
  g_assert_true (pti_mpi_waitall (ctx, r, 2, req, &error));
  if (r % 2 == 0)
    g_assert_true (pti_mpi_send (ctx, r, r + 1, bytes, 2, &error));
  else
    g_assert_true (pti_mpi_recv (ctx, r, r - 1, 40000, 2, &error));
  g_assert_true (pti_mpi_allreduce (ctx, r, 8, &error));
  g_assert_no_error (error);
}

/* A prologue, @n phases (literally, or as one repeated block), an epilogue. */
static PtiContext *
ring_run (guint64 n, gboolean repeat, const char *trace)
{
  g_autoptr (GError) error = NULL;
  PtiContext *ctx = context_new (6, net_simple_lb);
  if (trace)
    pti_context_set_trace (ctx, trace);
  for (guint r = 0; r < 6; r++) {
    compute_us (ctx, r, 2 * r);
    g_assert_true (pti_mpi_barrier (ctx, r, &error));
    if (repeat) {
      g_assert_true (pti_repeat_begin (ctx, r, n, &error));
      ring_phase (ctx, r);
      g_assert_true (pti_repeat_end (ctx, r, &error));
    } else {
      for (guint64 k = 0; k < n; k++)
        ring_phase (ctx, r);
    }
    compute_us (ctx, r, 4);
    g_assert_true (pti_mpi_bcast (ctx, r, 3, 64, &error));
    g_assert_no_error (error);
  }
  evaluate (ctx);
  return ctx;
}

#define assert_rel(a, b) g_assert_cmpfloat (fabs ((a) - (b)), <=, 1e-9 * fabs (b) + 1e-15)

/* Analytical repetition gives what literal repetition gives (to 1e-9),
 * evaluating only the first few repetitions through the models: a state is
 * digested as rank 0 begins each repetition, and repetitions are derived
 * once one equals an earlier one shifted in time.  Here the ranks' offsets
 * settle in the first two, the third and fourth prove the period, and the
 * last repetition is evaluated (its end meets the epilogue): 5. */
static void
test_repetition (void)
{
  const guint64 counts[] = { 1, 2, 3, 50, 400 };
  for (guint c = 0; c < G_N_ELEMENTS (counts); c++) {
    g_autoptr (PtiContext) full = ring_run (counts[c], FALSE, NULL);
    g_autoptr (PtiContext) rep = ring_run (counts[c], TRUE, NULL);
    assert_rel (pti_result_time (rep), pti_result_time (full));
    g_assert_cmpuint (pti_result_events (rep), ==, pti_result_events (full));
    for (guint r = 0; r < 6; r++) {
      PtiProcessResult a = result (full, r), b = result (rep, r);
      assert_rel (b.end, a.end);
      assert_rel (b.compute, a.compute);
      assert_rel (b.comm, a.comm);
      assert_rel (b.wait, a.wait);
      g_assert_cmpuint (b.events, ==, a.events);
    }
    guint64 evaluated, extrapolated;
    pti_wsl_repetition_figures (rep, &evaluated, &extrapolated);
    g_test_message ("count %" G_GUINT64_FORMAT ": %" G_GUINT64_FORMAT " evaluated, %"
                    G_GUINT64_FORMAT " extrapolated", counts[c], evaluated, extrapolated);
    g_assert_cmpuint (evaluated + extrapolated, ==, counts[c]);
    g_assert_cmpuint (evaluated, <=, 5);
  }
}

/* The repetitions evaluated are in the trace, which stays valid. */
static void
test_repetition_trace (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("pti-repeat-XXXXXX", &error);
  g_autofree char *trace = g_build_filename (dir, "repeat.xml", NULL);
  g_autoptr (PtiContext) rep = ring_run (100, TRUE, trace);
  const char *schema_dir = g_getenv ("PTI_SCHEMA_DIR");
  g_autofree char *xsd = g_build_filename (schema_dir, "trace.xsd", NULL);
  const char *argv[] = { "xmllint", "--noout", "--nonet", "--schema", xsd, trace, NULL };
  int status = -1;
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL,
                               G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL
                               | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, &error));
  g_assert_cmpint (status, ==, 0);
  g_unlink (trace);
  g_rmdir (dir);
}

static void
test_repetition_mistakes (void)
{
  g_autoptr (GError) error = NULL;
  {
    /* Messages may cross a block's end: rank 0 sends inside its block,
     * rank 1 receives after its own (empty) block.  A repeated block is
     * what writing it out would be, so this is valid and predicts what
     * the literal version does: three eager 8-byte messages enter the
     * network at 2, 4 and 6 us (o_s = 2) and arrive 10.08 us later (L +
     * 8 B at 100 MB/s); each receive ends o_r = 3 us after both its
     * message and the receive before it: 15.08, 18.08, 21.08 us. */
    g_autoptr (PtiContext) ctx = context_new (2, net_simple_lb);
    g_assert_true (pti_repeat_begin (ctx, 0, 3, &error));
    g_assert_true (pti_mpi_send (ctx, 0, 1, 8, 0, &error));
    g_assert_true (pti_repeat_end (ctx, 0, &error));
    g_assert_true (pti_repeat_begin (ctx, 1, 3, &error));
    g_assert_true (pti_repeat_end (ctx, 1, &error));
    for (guint k = 0; k < 3; k++)
      g_assert_true (pti_mpi_recv (ctx, 1, 0, 8, 0, &error));
    evaluate (ctx);
    assert_time (pti_result_time (ctx), 21.08 * US);
  }
  {
    /* the counts must agree: said when the second rank begins its block */
    g_autoptr (PtiContext) ctx = context_new (2, net_simple_lb);
    g_assert_true (pti_repeat_begin (ctx, 0, 3, &error));
    g_assert_true (pti_repeat_end (ctx, 0, &error));
    g_assert_false (pti_repeat_begin (ctx, 1, 4, &error));
    g_assert_nonnull (strstr (error->message, "repeated 4 times on rank 1 but 3 times on rank 0"));
    g_clear_error (&error);
    /* and the number of blocks, when the evaluation starts */
    g_assert_false (pti_evaluate (ctx, &error));
    g_assert_nonnull (strstr (error->message, "rank 1 has 0 repeated blocks, but rank 0 began "
                                              "block 1"));
    g_clear_error (&error);
  }
  {
    g_autoptr (PtiContext) ctx = context_new (2, net_simple_lb);
    g_assert_true (pti_repeat_begin (ctx, 0, 3, &error));
    g_assert_false (pti_repeat_begin (ctx, 0, 3, &error));
    g_assert_nonnull (strstr (error->message, "do not nest"));
    g_clear_error (&error);
    g_assert_false (pti_repeat_end (ctx, 1, &error));
    g_clear_error (&error);
    g_assert_false (pti_repeat_begin (ctx, 1, 0, &error));
    g_clear_error (&error);
    /* partial evaluation and repetition combine */
    g_assert_true (pti_evaluate_partial (ctx, &error));
    g_assert_false (pti_evaluate (ctx, &error));
    g_assert_nonnull (strstr (error->message, "never ended"));
  }
}

/* Two nodes of two CPUs; messages inside a node go through the node's own
 * net-simple (1 us, 1000 MB/s, 0.5 us overheads), between nodes through
 * the network (the usual 10 us, 100 MB/s, 2 + 3 us). */
static PtiContext *
smp_context (PtiPlacement placement, const guint *map)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("pti-smp-XXXXXX", &error);
  g_autofree char *path = g_build_filename (dir, "smp.xml", NULL);
  g_autofree char *xml = g_strdup_printf (
    "<system name='smp'>\n"
    "  <computer name='node' count='2' cpus='2'>\n"
    "    <cpu_clc unit='us'><MFDL>2</MFDL></cpu_clc>\n"
    "    <net_simple><latency unit='us'>1</latency><bandwidth unit='MB/s'>1000</bandwidth>"
    "<send_overhead unit='us'>0.5</send_overhead><recv_overhead unit='us'>0.5</recv_overhead></net_simple>\n"
    "  </computer>\n"
    "  <network name='net'>%s</network>\n"
    "  <connect computer='node' nodes='1-2' network='net' ports='1-2'/>\n"
    "</system>\n", net_simple_lb);
  g_assert_true (g_file_set_contents (path, xml, -1, NULL));
  PtiContext *ctx = pti_context_new (path, NULL, &error);
  g_assert_no_error (error);
  g_unlink (path);
  g_rmdir (dir);
  if (map != NULL)
    g_assert_true (pti_context_set_placement_map (ctx, 4, map, &error));
  else
    g_assert_true (pti_context_set_placement (ctx, placement, &error));
  g_assert_true (pti_context_set_processes (ctx, 4, &error));
  g_assert_no_error (error);
  return ctx;
}

/* Rank 0 sends 1000 B to rank 1.  Block placement puts both on node 1:
 * 0.5 + 1 + 1 + 0.5 = 3 us.  Cyclic puts rank 1 on node 2: 2 + 10 + 10 +
 * 3 = 25 us.  An explicit map can put them back together. */
static void
test_intra_node (void)
{
  const guint together[] = { 3, 2, 0, 1 };   /* ranks 0, 1 on node 2's CPUs */
  struct { PtiPlacement placement; const guint *map; double expect; } cases[] = {
    { PTI_PLACEMENT_BLOCK, NULL, 3 }, { PTI_PLACEMENT_CYCLIC, NULL, 25 },
    { PTI_PLACEMENT_BLOCK, together, 3 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    g_autoptr (PtiContext) ctx = smp_context (cases[i].placement, cases[i].map);
    g_autoptr (GError) error = NULL;
    g_assert_true (pti_mpi_send (ctx, 0, 1, 1000, 0, &error));
    g_assert_true (pti_mpi_recv (ctx, 1, 0, 1000, 0, &error));
    g_assert_no_error (error);
    evaluate (ctx);
    assert_time (result (ctx, 1).end, cases[i].expect * US);
  }
  g_autoptr (GError) error = NULL;
  g_autoptr (PtiContext) ctx = smp_context (PTI_PLACEMENT_BLOCK, NULL);
  const guint twice[] = { 0, 0 };
  g_assert_false (pti_context_set_placement_map (ctx, 2, twice, &error));   /* too late */
  g_assert_nonnull (strstr (error->message, "before the processes are set"));
}

/* A deadlock inside a communicator names it. */
static void
test_deadlock_communicator (void)
{
  g_autoptr (PtiContext) ctx = context_new (4, net_simple_lb);
  g_autoptr (GError) error = NULL;
  const gint colour[] = { 0, 0, 1, 1 };
  PtiComm *rows = pti_comm_split (ctx, NULL, "rows", colour, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (pti_mpi_recv_comm (ctx, rows, 2, 1, 8, 5, &error));   /* world rank 3 */
  g_assert_false (pti_evaluate (ctx, &error));
  g_assert_error (error, PTI_ERROR, PTI_ERROR_DEADLOCK);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "rank 2: blocked since 0.000000000 s in recv from rank 3, tag 5, 8 bytes, communicator 'rows': no matching send"));
}

/* A synchronous send of an eager-sized message goes by rendezvous (the
 * receive posted at 0): the sender is done when its data has left, o_s +
 * 2L + n/B = 2 + 20 + 10 = 32 us; the receiver after o_s + 3L + n/B + o_r
 * = 45 us.  An issend the same, completed by its wait. */
static void
test_ssend (void)
{
  g_autoptr (PtiContext) ctx = context_new (4, net_simple_lb);
  g_autoptr (GError) error = NULL;
  PtiRequest r;
  g_assert_true (pti_mpi_ssend (ctx, 0, 1, 1000, 0, &error));
  g_assert_true (pti_mpi_recv (ctx, 1, 0, 1000, 0, &error));
  g_assert_true (pti_mpi_issend (ctx, 2, 3, 1000, 0, &r, &error));
  g_assert_true (pti_mpi_wait (ctx, 2, r, &error));
  g_assert_true (pti_mpi_recv (ctx, 3, 2, 1000, 0, &error));
  g_assert_no_error (error);
  evaluate (ctx);
  assert_time (result (ctx, 0).end, 32 * US);
  assert_time (result (ctx, 1).end, 45 * US);
  assert_time (result (ctx, 2).end, 32 * US);
  assert_time (result (ctx, 3).end, 45 * US);
}

/* A probe waits for a message's envelope, then the rank goes on: a 2 us
 * computation between the probe and the receive comes after the arrival.
 * Eager, 1000 B: data in at o_s + L + n/B = 22 us; probe done at 22, the
 * computation to 24, the receive done at once plus o_r: 27 us (25 us
 * without the probe).  Rendezvous, 20000 B: the request is in at o_s + L
 * = 12 us, the computation to 14, the receive answers: reply in at 24, the
 * data leaves at 24 + 200 = 224 (the sender's end) and is in at 234, the
 * receive done at 237 us. */
static void
test_probe (void)
{
  static const char rud[] = "<rud device='cpu'><compute type='clc' of='MFDL'/></rud>";
  for (guint big = 0; big < 2; big++) {
    g_autoptr (PtiContext) ctx = context_new (2, net_simple_lb);
    g_autoptr (GError) error = NULL;
    guint64 n = big ? 20000 : 1000;
    g_autoptr (PtiRud) work = pti_rud_new (ctx, "work", rud, &error);
    g_assert_true (pti_mpi_send (ctx, 0, 1, n, 5, &error));
    g_assert_true (pti_mpi_probe (ctx, 1, PTI_ANY_SOURCE, PTI_ANY_TAG, &error));
    g_assert_true (pti_use (ctx, 1, work, &error));
    g_assert_true (pti_mpi_recv (ctx, 1, 0, n, 5, &error));
    g_assert_no_error (error);
    evaluate (ctx);
    PtiProcessResult r0 = result (ctx, 0), r1 = result (ctx, 1);
    assert_time (r1.end, (big ? 237 : 27) * US);
    assert_time (r0.end, (big ? 224 : 2) * US);
    assert_time (r1.wait, (big ? 12 + 220 : 22) * US);
    g_assert_cmpuint (r1.events, ==, 3);
  }
}

/* A probe sees only messages no receive has taken: with an irecv posted
 * before it, the first message goes to the irecv and the probe waits for
 * the second (sent at 30 us: in at 30 + 22 = 52 us). */
static void
test_probe_unmatched (void)
{
  g_autoptr (PtiContext) ctx = context_new (2, net_simple_lb);
  g_autoptr (GError) error = NULL;
  static const char rud[] = "<rud device='cpu'><loop iter='15' of='MFDL'/></rud>";
  g_autoptr (PtiRud) wait30 = pti_rud_new (ctx, "w", rud, &error);
  PtiRequest r;
  g_assert_true (pti_mpi_send (ctx, 0, 1, 1000, 1, &error));
  g_assert_true (pti_use (ctx, 0, wait30, &error));   /* 2 + 30 = 32 us */
  g_assert_true (pti_mpi_send (ctx, 0, 1, 1000, 1, &error));
  g_assert_true (pti_mpi_irecv (ctx, 1, 0, 1000, 1, &r, &error));
  g_assert_true (pti_mpi_probe (ctx, 1, 0, 1, &error));
  g_assert_true (pti_mpi_recv (ctx, 1, 0, 1000, 1, &error));
  g_assert_true (pti_mpi_wait (ctx, 1, r, &error));
  g_assert_no_error (error);
  evaluate (ctx);
  /* second send starts at 32, o_s 2, data in at 54; recv done 57, wait adds o_r: 60 */
  assert_time (result (ctx, 1).end, 60 * US);
}

/* A probe nothing can satisfy is a deadlock that names it. */
static void
test_probe_deadlock (void)
{
  g_autoptr (PtiContext) ctx = context_new (2, net_simple_lb);
  g_autoptr (GError) error = NULL;
  g_assert_true (pti_mpi_probe (ctx, 1, 0, 5, &error));
  g_assert_false (pti_evaluate (ctx, &error));
  g_assert_error (error, PTI_ERROR, PTI_ERROR_DEADLOCK);
  g_assert_nonnull (strstr (error->message, "rank 1: blocked since 0.000000000 s in probe for a "
                                            "message from rank 0, tag 5: none is sent"));
}

/* PTI_PROC_NULL peers make nothing; their requests are complete already.
 * A shift with open ends: rank 0 sends to 1 and receives from nobody,
 * rank 1 the reverse.  Rank 0: isend (o_s, 2 us) and a waitall, done at
 * 2 us; rank 1: irecv and waitall, data in at 22 us, done at 25 us.  Two
 * events each. */
static void
test_proc_null (void)
{
  g_autoptr (PtiContext) ctx = context_new (3, net_simple_lb);
  g_autoptr (GError) error = NULL;
  g_assert_true (pti_mpi_sendrecv (ctx, 0, 1, 1000, 0, PTI_PROC_NULL, 1000, 0, &error));
  g_assert_true (pti_mpi_sendrecv (ctx, 1, PTI_PROC_NULL, 1000, 0, 0, 1000, 0, &error));
  PtiRequest reqs[3];
  g_assert_true (pti_mpi_send (ctx, 2, PTI_PROC_NULL, 8, 0, &error));
  g_assert_true (pti_mpi_recv (ctx, 2, PTI_PROC_NULL, 8, 0, &error));
  g_assert_true (pti_mpi_isend (ctx, 2, PTI_PROC_NULL, 8, 0, &reqs[0], &error));
  g_assert_true (pti_mpi_irecv (ctx, 2, PTI_PROC_NULL, 8, PTI_ANY_TAG, &reqs[1], &error));
  g_assert_true (pti_mpi_probe (ctx, 2, PTI_PROC_NULL, 0, &error));
  g_assert_cmpuint (reqs[0], ==, PTI_REQUEST_NULL);
  g_assert_cmpuint (reqs[1], ==, PTI_REQUEST_NULL);
  g_assert_true (pti_mpi_waitany (ctx, 2, 2, reqs, &error));
  g_assert_true (pti_mpi_wait (ctx, 2, reqs[0], &error));
  g_assert_true (pti_mpi_waitall (ctx, 2, 2, reqs, &error));
  g_assert_no_error (error);
  /* Still checked: a bad tag, a rank out of range. */
  g_assert_false (pti_mpi_send (ctx, 2, PTI_PROC_NULL, 8, -3, &error));
  g_assert_nonnull (strstr (error->message, "tag -3 must be >= 0"));
  g_clear_error (&error);
  g_assert_false (pti_mpi_send (ctx, 5, PTI_PROC_NULL, 8, 0, &error));
  g_assert_nonnull (strstr (error->message, "rank 5 out of range"));
  g_clear_error (&error);
  evaluate (ctx);
  PtiProcessResult r0 = result (ctx, 0), r1 = result (ctx, 1), r2 = result (ctx, 2);
  assert_time (r0.end, 2 * US);
  assert_time (r1.end, 25 * US);
  g_assert_cmpuint (r0.events, ==, 2);
  g_assert_cmpuint (r1.events, ==, 2);
  g_assert_cmpuint (r2.events, ==, 0);
  assert_time (r2.end, 0);
}

/* Sendrecv both ways: each rank's send and receive overlap, 25 us; 3
 * events each (irecv, isend, waitall).  sendrecv_replace is the same. */
static void
test_sendrecv (void)
{
  g_autoptr (PtiContext) ctx = context_new (2, net_simple_lb);
  g_autoptr (GError) error = NULL;
  g_assert_true (pti_mpi_sendrecv (ctx, 0, 1, 1000, 4, 1, 1000, 4, &error));
  g_assert_true (pti_mpi_sendrecv_replace (ctx, 1, 0, 4, 0, 4, 1000, &error));
  g_assert_no_error (error);
  evaluate (ctx);
  assert_time (pti_result_time (ctx), 25 * US);
  g_assert_cmpuint (result (ctx, 0).events, ==, 3);
  g_assert_cmpuint (result (ctx, 1).events, ==, 3);
}

/* The queue (queue.c) pops items in (time, insertion) order whatever it
 * keeps where: more streams of increasing times than it has runs (so the
 * heap takes some), equal times across streams, a RESUME folded into an
 * injection and shifts, against the order sorted by hand. */
typedef struct {
  double t;
  guint64 seq;
  guint32 rank, type;
} QueuedRef;

static int
compare_queued (const void *a, const void *b)
{
  const QueuedRef *x = a, *y = b;
  if (x->t != y->t)
    return x->t < y->t ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void
test_queue_order (void)
{
  PtiEngine *e = g_new0 (PtiEngine, 1);
  pti_queue_init (e);
  GArray *ref = g_array_new (FALSE, FALSE, sizeof (QueuedRef));
  GRand *rand = g_rand_new_with_seed (11);
  double now = 0;
  guint popped = 0;
  for (guint round = 0; round < 4000; round++) {
    /* 12 streams, each pushing now + its own delay, in an order that
     * changes from round to round; times on a 1/8 grid, so many tie. */
    guint pushes = g_rand_int_range (rand, 0, 4);
    for (guint i = 0; i < pushes; i++) {
      guint stream = g_rand_int_range (rand, 0, 12);
      double t = now + stream * 0.25 + g_rand_int_range (rand, 0, 3) * 0.125;
      QueuedRef r = { t, e->seq, stream, ITEM_DATA_ARRIVE };
      g_array_append_val (ref, r);
      pti_queue_push (e, t, ITEM_DATA_ARRIVE, stream, NULL);
    }
    if (round % 7 == 0) {
      /* An injection and its sender's RESUME at the same time: one item. */
      QueuedRef r = { now + 0.5, e->seq, 99, ITEM_INJECT_DATA };
      g_array_append_val (ref, r);
      pti_queue_push (e, now + 0.5, ITEM_INJECT_DATA, 99, NULL);
      pti_queue_push_resume (e, now + 0.5, 99);
      QueuedRef resume = { now + 0.5, e->seq - 1, 99, ITEM_RESUME };
      g_array_append_val (ref, resume);
    }
    if (round == 2000) {
      /* A shift moves every item: the reference too. */
      pti_queue_shift (e, 3.0);
      for (guint i = 0; i < ref->len; i++)
        g_array_index (ref, QueuedRef, i).t += 3.0;
      now += 3.0;
    }
    guint pops = g_rand_int_range (rand, 0, 4);
    for (guint i = 0; i < pops && pti_queue_size (e) > 0; i++) {
      qsort (ref->data, ref->len, sizeof (QueuedRef), compare_queued);
      const Item *peek = pti_queue_peek (e);
      g_assert_cmpfloat (peek->t, ==, g_array_index (ref, QueuedRef, 0).t);
      Item it = pti_queue_pop (e);
      QueuedRef want = g_array_index (ref, QueuedRef, 0);
      g_assert_cmpfloat (it.t, ==, want.t);
      g_assert_cmpuint (it.seq, ==, want.seq);
      g_assert_cmpuint (it.rank, ==, want.rank);
      g_array_remove_index (ref, 0);
      if (it.type & ITEM_THEN_RESUME) {
        /* The folded RESUME is the next item of the reference. */
        g_assert_cmpuint (it.type & ITEM_TYPE_MASK, ==, ITEM_INJECT_DATA);
        QueuedRef next = g_array_index (ref, QueuedRef, 0);
        g_assert_cmpuint (next.type, ==, ITEM_RESUME);
        g_assert_cmpuint (next.seq, ==, it.seq + 1);
        g_array_remove_index (ref, 0);
      }
      now = it.t;
      popped++;
    }
    g_assert_cmpuint (pti_queue_size (e), <=, ref->len);
  }
  while (pti_queue_size (e) > 0) {
    qsort (ref->data, ref->len, sizeof (QueuedRef), compare_queued);
    Item it = pti_queue_pop (e);
    g_assert_cmpuint (it.seq, ==, g_array_index (ref, QueuedRef, 0).seq);
    g_array_remove_index (ref, 0);
    if (it.type & ITEM_THEN_RESUME)
      g_array_remove_index (ref, 0);   /* its RESUME */
    popped++;
  }
  g_assert_cmpuint (ref->len, ==, 0);
  g_assert_cmpuint (popped, >, 3000);
  /* The heap took items (more streams than runs), and runs most. */
  g_assert_cmpuint (e->queue.heap_cap, >, 0);
  pti_queue_free (e);
  g_rand_free (rand);
  g_array_free (ref, TRUE);
  g_free (e);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/engine/pingpong-eager", test_pingpong_eager);
  g_test_add_func ("/engine/rendezvous", test_rendezvous);
  g_test_add_func ("/engine/rendezvous-late-receiver", test_rendezvous_late_receiver);
  g_test_add_func ("/engine/ring", test_ring);
  g_test_add_func ("/engine/non-overtaking", test_non_overtaking);
  g_test_add_func ("/engine/tag-matching", test_tag_matching);
  g_test_add_func ("/engine/bcast-binomial", test_bcast_binomial);
  g_test_add_func ("/engine/loggp-gap", test_loggp_gap);
  g_test_add_func ("/engine/net-simple-pieces", test_pieces);
  g_test_add_func ("/engine/compute-parameters", test_compute_parameters);
  g_test_add_func ("/engine/deadlock", test_deadlock);
  g_test_add_func ("/engine/deadlock-rendezvous", test_deadlock_rendezvous);
  g_test_add_func ("/engine/unreceived", test_unreceived);
  g_test_add_func ("/engine/truncated", test_truncated);
  g_test_add_func ("/engine/user-mistakes", test_user_mistakes);
  g_test_add_func ("/engine/too-many-processes", test_too_many_processes);
  g_test_add_func ("/engine/deterministic-trace", test_deterministic_trace);
  g_test_add_func ("/engine/nonblocking-overlap", test_nonblocking_overlap);
  g_test_add_func ("/engine/waitall", test_waitall);
  g_test_add_func ("/engine/any-source", test_any_source);
  g_test_add_func ("/engine/waitany", test_waitany);
  g_test_add_func ("/engine/isend-rendezvous", test_isend_rendezvous);
  g_test_add_func ("/engine/request-mistakes", test_request_mistakes);
  g_test_add_func ("/engine/deadlock-waitall", test_deadlock_waitall);
  g_test_add_func ("/engine/partial-evaluation", test_partial_evaluation);
  g_test_add_func ("/engine/partial-in-flight", test_partial_in_flight);
  g_test_add_func ("/engine/repetition", test_repetition);
  g_test_add_func ("/engine/repetition-trace", test_repetition_trace);
  g_test_add_func ("/engine/repetition-mistakes", test_repetition_mistakes);
  g_test_add_func ("/engine/intra-node", test_intra_node);
  g_test_add_func ("/engine/deadlock-communicator", test_deadlock_communicator);
  g_test_add_func ("/engine/ssend", test_ssend);
  g_test_add_func ("/engine/probe", test_probe);
  g_test_add_func ("/engine/probe-unmatched", test_probe_unmatched);
  g_test_add_func ("/engine/probe-deadlock", test_probe_deadlock);
  g_test_add_func ("/engine/proc-null", test_proc_null);
  g_test_add_func ("/engine/sendrecv", test_sendrecv);
  g_test_add_func ("/engine/queue-order", test_queue_order);
  return g_test_run ();
}
