/* Closed-form tests of net-node (models/net-node/README.md) through the
 * WSL API.  Every expected time is worked out by hand in the comment
 * beside it.
 *
 * Unless a test says otherwise: one node of 4 CPUs whose intra-node model
 * is net-node with L = 1 us, B = 100 MB/s (1 MB = 1,000,000 bytes takes
 * 10 ms), no overheads, an eager limit above every message (a message
 * enters when its send is called, a receive ends when it has arrived).
 * A lone 1 MB message's work is D = L + n/B = 10.001 ms. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "wsl-private.h"

#define US 1e-6
#define MS 1e-3
#define MB 1000000u

static char *tmpdir;

/* A system whose one computer has 4 CPUs and @intra as its intra-node
 * model. */
static PtiContext *
context_with (const char *intra, guint procs, GError **error)
{
  g_autofree char *xml = g_strdup_printf (
    "<system name='node'>\n"
    "  <computer name='host' count='1' cpus='4'>\n"
    "    <cpu_time><speed_ratio>1</speed_ratio></cpu_time>\n"
    "    %s\n"
    "  </computer>\n"
    "</system>\n", intra);
  g_autofree char *path = g_build_filename (tmpdir, "system.xml", NULL);
  g_assert_true (g_file_set_contents (path, xml, -1, NULL));
  PtiContext *ctx = pti_context_new (path, NULL, error);
  if (ctx != NULL)
    g_assert_true (pti_context_set_processes (ctx, procs, NULL));
  return ctx;
}

/* net-node with share @share (as text) and @pieces after it. */
static PtiContext *
node (const char *share, const char *pieces, guint procs)
{
  g_autofree char *intra = g_strdup_printf (
    "<net_node><latency unit='us'>1</latency><bandwidth unit='MB/s'>100</bandwidth>"
    "<share>%s</share>%s<eager_limit unit='MB'>100</eager_limit></net_node>", share,
    pieces ? pieces : "");
  g_autoptr (GError) error = NULL;
  PtiContext *ctx = context_with (intra, procs, &error);
  g_assert_no_error (error);
  return ctx;
}

static void
ok (gboolean done, GError *error)
{
  g_assert_no_error (error);
  g_assert_true (done);
}

static void
message (PtiContext *ctx, guint from, guint to, guint64 bytes)
{
  g_autoptr (GError) error = NULL;
  ok (pti_mpi_send (ctx, from, to, bytes, 0, &error), error);
  ok (pti_mpi_recv (ctx, to, from, bytes, 0, &error), error);
}

/* Ranks @a and @b send @bytes to each other at once (MPI_Sendrecv). */
static void
exchange (PtiContext *ctx, guint a, guint b, guint64 bytes)
{
  g_autoptr (GError) error = NULL;
  ok (pti_mpi_sendrecv (ctx, a, b, bytes, 0, b, bytes, 0, &error), error);
  ok (pti_mpi_sendrecv (ctx, b, a, bytes, 0, a, bytes, 0, &error), error);
}

static void
evaluate (PtiContext *ctx)
{
  g_autoptr (GError) error = NULL;
  ok (pti_evaluate (ctx, &error), error);
}

static double
end_of (PtiContext *ctx, guint rank)
{
  PtiProcessResult r;
  g_assert_true (pti_result_process (ctx, rank, &r));
  return r.end;
}

#define assert_time(actual, expected) \
  g_assert_cmpfloat_with_epsilon ((actual), (expected), 1e-12 + 1e-9 * fabs (expected))

/* A lone message, of each piece and above them, eager and by rendezvous
 * (o_s 2 us, o_r 3 us, eager limit 1000 B): the very times net-simple
 * gives with the same latency, bandwidth and pieces, to the last bit. */
static void
test_lone_as_net_simple (void)
{
  static const char *const pieces =
    "<piece up_to='1000'><latency unit='ns'>300</latency><bandwidth unit='MB/s'>50</bandwidth>"
    "%s</piece><piece up_to='65536'><latency unit='us'>3</latency>"
    "<bandwidth unit='MB/s'>2000</bandwidth>%s</piece>";
  static const guint64 sizes[] = { 1, 1000, 1001, 65536, 65537, MB };
  double simple_end[G_N_ELEMENTS (sizes)][2];
  for (guint model = 0; model < 2; model++) {
    g_autofree char *p = g_strdup_printf (pieces, model ? "<share>0.9</share>" : "",
                                          model ? "<share>1</share>" : "");
    g_autofree char *intra = g_strdup_printf (
      "<%s><latency unit='us'>1</latency><bandwidth unit='MB/s'>100</bandwidth>"
      "<send_overhead unit='us'>2</send_overhead><recv_overhead unit='us'>3</recv_overhead>"
      "%s%s<eager_limit unit='B'>1000</eager_limit></%s>", model ? "net_node" : "net_simple",
      model ? "<share>0.7</share>" : "", p, model ? "net_node" : "net_simple");
    for (guint i = 0; i < G_N_ELEMENTS (sizes); i++) {
      g_autoptr (GError) error = NULL;
      g_autoptr (PtiContext) ctx = context_with (intra, 2, &error);
      g_assert_no_error (error);
      message (ctx, 0, 1, sizes[i]);
      evaluate (ctx);
      if (model == 0) {
        simple_end[i][0] = end_of (ctx, 0);
        simple_end[i][1] = end_of (ctx, 1);
      } else {
        g_assert_cmpfloat (end_of (ctx, 0), ==, simple_end[i][0]);
        g_assert_cmpfloat (end_of (ctx, 1), ==, simple_end[i][1]);
      }
    }
  }
  /* and the closed forms: 1 MB above the pieces, rendezvous: the receiver
   * at o_s + 3 x 300 ns (request, answer: the first piece's L) ... + 1 us
   * + 10 ms + o_r; the sender when its data has left, o_s + 0.6 us + 10 ms */
  assert_time (simple_end[5][1], 2 * US + 0.6 * US + 1 * US + 10 * MS + 3 * US);
  assert_time (simple_end[5][0], 2 * US + 0.6 * US + 10 * MS);
}

/* An exchange with share 0.75: both messages go at 1 / (2 x 0.75) = 2/3
 * of their lone speed, so each takes 1.5 D = 15.0015 ms. */
static void
test_exchange (void)
{
  g_autoptr (PtiContext) ctx = node ("0.75", NULL, 2);
  exchange (ctx, 0, 1, MB);
  evaluate (ctx);
  assert_time (end_of (ctx, 0), 1.5 * (10 * MS + 1 * US));
  assert_time (end_of (ctx, 1), 1.5 * (10 * MS + 1 * US));
}

/* With share 0.5 (or less) two messages fit the node at full speed: an
 * exchange takes D = 10.001 ms, as a lone message. */
static void
test_exchange_fits (void)
{
  g_autoptr (PtiContext) ctx = node ("0.5", NULL, 2);
  exchange (ctx, 0, 1, MB);
  evaluate (ctx);
  assert_time (end_of (ctx, 0), 10 * MS + 1 * US);
  assert_time (end_of (ctx, 1), 10 * MS + 1 * US);
}

/* Two messages on disjoint pairs of CPUs (0 -> 1, 2 -> 3), share 0.75:
 * they share the node all the same, 1.5 D each. */
static void
test_disjoint_pairs_share_the_node (void)
{
  g_autoptr (PtiContext) ctx = node ("0.75", NULL, 4);
  message (ctx, 0, 1, MB);
  message (ctx, 2, 3, MB);
  evaluate (ctx);
  assert_time (end_of (ctx, 1), 1.5 * (10 * MS + 1 * US));
  assert_time (end_of (ctx, 3), 1.5 * (10 * MS + 1 * US));
}

/* Ranks 1 and 2 send to rank 0 at once, share 0.25: the node has room
 * (2 x 0.25), but rank 0's CPU copies one message at a time: each goes at
 * 1/2, 2 D = 20.002 ms. */
static void
test_one_receiver (void)
{
  g_autoptr (PtiContext) ctx = node ("0.25", NULL, 3);
  g_autoptr (GError) error = NULL;
  PtiRequest rq[2];
  ok (pti_mpi_irecv (ctx, 0, 1, MB, 0, &rq[0], &error), error);
  ok (pti_mpi_irecv (ctx, 0, 2, MB, 0, &rq[1], &error), error);
  ok (pti_mpi_waitall (ctx, 0, 2, rq, &error), error);
  ok (pti_mpi_send (ctx, 1, 0, MB, 0, &error), error);
  ok (pti_mpi_send (ctx, 2, 0, MB, 0, &error), error);
  evaluate (ctx);
  assert_time (end_of (ctx, 0), 2 * (10 * MS + 1 * US));
}

/* Two messages each way at once (HPL's pattern), share 0.75: each CPU
 * receives two (speed at most 1/2) and the node holds four (at most
 * 1 / (4 x 0.75) = 1/3): 3 D = 30.003 ms. */
static void
test_two_each_way (void)
{
  g_autoptr (PtiContext) ctx = node ("0.75", NULL, 2);
  g_autoptr (GError) error = NULL;
  for (guint r = 0; r < 2; r++) {
    PtiRequest rq[4];
    ok (pti_mpi_irecv (ctx, r, 1 - r, MB, 1, &rq[0], &error), error);
    ok (pti_mpi_irecv (ctx, r, 1 - r, MB, 2, &rq[1], &error), error);
    ok (pti_mpi_isend (ctx, r, 1 - r, MB, 1, &rq[2], &error), error);
    ok (pti_mpi_isend (ctx, r, 1 - r, MB, 2, &rq[3], &error), error);
    ok (pti_mpi_waitall (ctx, r, 4, rq, &error), error);
  }
  evaluate (ctx);
  assert_time (end_of (ctx, 0), 3 * (10 * MS + 1 * US));
  assert_time (end_of (ctx, 1), 3 * (10 * MS + 1 * US));
}

/* A later start, share 1: 0 -> 1 alone from 0; 2 -> 3 starts at 5 ms
 * (rank 2 computes first), and both go at 1/2.  The first has 5 ms of its
 * data left, so it has left at 15 ms and arrives L / (1/2) later, 15.002
 * ms, holding half the node until then; the second has done 5 ms of its
 * data by 15.002 ms minus 1 us, i.e. 4.999 ms, then alone: its data has
 * left at 20.001 ms and arrives at 20.002 ms. */
static void
test_later_start (void)
{
  g_autoptr (PtiContext) ctx = node ("1", NULL, 4);
  g_autoptr (GError) error = NULL;
  message (ctx, 0, 1, MB);
  ok (pti_use_time (ctx, 2, 5 * MS, &error), error);
  message (ctx, 2, 3, MB);
  evaluate (ctx);
  assert_time (end_of (ctx, 1), 15 * MS + 2 * US);
  assert_time (end_of (ctx, 3), 20 * MS + 2 * US);
}

/* Sizes take their piece's share: 1000 B messages (piece share 1, L 1 us,
 * B 100 MB/s: D = 11 us) exchanged take 2 D = 22 us while 1 MB ones
 * (share 0.5 above the pieces) take D. */
static void
test_piece_share (void)
{
  static const char *const piece =
    "<piece up_to='1000'><latency unit='us'>1</latency><bandwidth unit='MB/s'>100</bandwidth>"
    "<share>1</share></piece>";
  g_autoptr (PtiContext) small = node ("0.5", piece, 2);
  exchange (small, 0, 1, 1000);
  evaluate (small);
  assert_time (end_of (small, 0), 22 * US);
  g_autoptr (PtiContext) large = node ("0.5", piece, 2);
  exchange (large, 0, 1, MB);
  evaluate (large);
  assert_time (end_of (large, 0), 10 * MS + 1 * US);
}

/* Bad configurations: refused at load, naming the file, the line and the
 * element. */
static void
test_errors (void)
{
  static const struct {
    const char *intra, *want;
  } cases[] = {
    { "<net_node><latency unit='us'>1</latency><bandwidth unit='MB/s'>100</bandwidth>"
      "</net_node>", "share" },
    { "<net_node><latency unit='us'>1</latency><bandwidth unit='MB/s'>100</bandwidth>"
      "<share>1.5</share></net_node>", "share" },
    { "<net_node><latency unit='us'>1</latency><bandwidth unit='MB/s'>100</bandwidth>"
      "<share>0</share></net_node>", "share" },
    { "<net_node><latency unit='us'>1</latency><bandwidth unit='MB/s'>100</bandwidth>"
      "<share min='0.4' max='0.9'>1</share></net_node>", "share" },
    { "<net_node><latency unit='us'>1</latency><bandwidth unit='MB/s'>100</bandwidth>"
      "<share>0.5</share><piece up_to='100'><latency unit='us'>1</latency>"
      "<bandwidth unit='MB/s'>1</bandwidth></piece><piece up_to='50'><latency unit='us'>1"
      "</latency><bandwidth unit='MB/s'>1</bandwidth></piece></net_node>",
      "does not follow the previous piece's 100" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    g_autoptr (GError) error = NULL;
    g_autoptr (PtiContext) ctx = context_with (cases[i].intra, 2, &error);
    g_assert_null (ctx);
    g_assert_error (error, PTI_ERROR, PTI_ERROR_INVALID);
    g_assert_nonnull (strstr (error->message, "system.xml:"));
    if (strstr (error->message, cases[i].want) == NULL)
      g_error ("case %u: '%s' does not say '%s'", i, error->message, cases[i].want);
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  tmpdir = g_dir_make_tmp ("pti-net-node-XXXXXX", NULL);
  g_test_add_func ("/net-node/lone-as-net-simple", test_lone_as_net_simple);
  g_test_add_func ("/net-node/exchange", test_exchange);
  g_test_add_func ("/net-node/exchange-fits", test_exchange_fits);
  g_test_add_func ("/net-node/disjoint-pairs-share-the-node", test_disjoint_pairs_share_the_node);
  g_test_add_func ("/net-node/one-receiver", test_one_receiver);
  g_test_add_func ("/net-node/two-each-way", test_two_each_way);
  g_test_add_func ("/net-node/later-start", test_later_start);
  g_test_add_func ("/net-node/piece-share", test_piece_share);
  g_test_add_func ("/net-node/errors", test_errors);
  int rc = g_test_run ();
  g_autofree char *f = g_build_filename (tmpdir, "system.xml", NULL);
  g_unlink (f);
  g_rmdir (tmpdir);
  g_free (tmpdir);
  return rc;
}
