/* Closed-form tests of net-contention (models/net-contention/README.md)
 * through the WSL API.  Every expected time is worked out by hand in the
 * comment beside it.
 *
 * Unless a test says otherwise: link bandwidth B = 100 MB/s, so 1 MB
 * (1,000,000 bytes) takes 10 ms on a link of its own; switch latency 1 us,
 * link latency 0, no overheads, an eager limit above every message, so a
 * message enters the network when its send is called and a receive ends
 * when its data has arrived. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "wsl-private.h"

#define US 1e-6
#define MS 1e-3
#define MB 1000000u

static char *tmpdir;

static char *
write_file (const char *name, const char *text)
{
  char *path = g_build_filename (tmpdir, name, NULL);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  return path;
}

/* A system of @nodes single-CPU nodes on a net_contention network with
 * @topology (XML) and @extra elements after the bandwidth. */
static char *
system_xml (guint nodes, const char *topology, const char *extra)
{
  return g_strdup_printf (
    "<system name='contention'>\n"
    "  <computer name='node' count='%u'>\n"
    "    <cpu_clc unit='us'><LFOR>1</LFOR></cpu_clc>\n"
    "  </computer>\n"
    "  <network name='net'>\n"
    "    <net_contention>\n"
    "      <topology>%s</topology>\n"
    "      <link_bandwidth unit='MB/s'>100</link_bandwidth>\n"
    "      <switch_latency unit='us'>1</switch_latency>\n"
    "      <eager_limit unit='B'>1000000000</eager_limit>\n"
    "      %s\n"
    "    </net_contention>\n"
    "  </network>\n"
    "  <connect computer='node' nodes='1-%u' network='net' ports='1-%u'/>\n"
    "</system>\n", nodes, topology, extra ? extra : "", nodes, nodes);
}

static char *
system_file (guint nodes, const char *topology, const char *extra)
{
  g_autofree char *xml = system_xml (nodes, topology, extra);
  return write_file ("system.xml", xml);
}

static PtiContext *context_on (const char *xml, guint procs);

static PtiContext *
context_new (guint nodes, const char *topology, const char *extra, guint procs)
{
  g_autofree char *xml = system_xml (nodes, topology, extra);
  return context_on (xml, procs);
}

/* A context with @procs processes on the system @xml (written to a file). */
static PtiContext *
context_on (const char *xml, guint procs)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = write_file ("system.xml", xml);
  PtiContext *ctx = pti_context_new (path, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (pti_context_set_processes (ctx, procs, &error));
  g_assert_no_error (error);
  return ctx;
}

/* configs/pc_cluster.xml's Myrinet Clos (4 leaf, 2 spine switches) with
 * 16 nodes, 1.28 Gb/s links and @extra parameters. */
static char *
clos_system (const char *extra)
{
  return g_strdup_printf (
    "<system name='myrinet'>\n"
    "  <computer name='pc' count='16'><cpu_clc unit='ns'><LFOR>1</LFOR></cpu_clc></computer>\n"
    "  <network name='myrinet'><net_contention>\n"
    "    <topology><fat_tree levels='2' down='4,4' up='1,2' parallel='1,2'/></topology>\n"
    "    <link_bandwidth unit='Gb/s'>1.28</link_bandwidth>\n"
    "    %s\n"
    "  </net_contention></network>\n"
    "  <connect computer='pc' nodes='1-16' network='myrinet' ports='1-16'/>\n"
    "</system>\n", extra);
}

static PtiContext *
crossbar (guint procs, const char *extra)
{
  return context_new (8, "<crossbar ports='8'/>", extra, procs);
}

static void
message (PtiContext *ctx, guint from, guint to, guint64 bytes)
{
  g_autoptr (GError) error = NULL;
  g_assert_true (pti_mpi_send (ctx, from, to, bytes, 0, &error));
  g_assert_no_error (error);
  g_assert_true (pti_mpi_recv (ctx, to, from, bytes, 0, &error));
  g_assert_no_error (error);
}

static void
evaluate (PtiContext *ctx)
{
  g_autoptr (GError) error = NULL;
  gboolean ok = pti_evaluate (ctx, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
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

/* One message alone: 1 MB at 100 MB/s = 10 ms, then the crossbar's one
 * switch, 1 us. */
static void
test_alone (void)
{
  g_autoptr (PtiContext) ctx = crossbar (2, NULL);
  message (ctx, 1, 0, MB);
  evaluate (ctx);
  assert_time (end_of (ctx, 0), 10 * MS + 1 * US);
}

/* Ranks 1 and 2 send 1 MB each to rank 0 at time 0: both cross rank 0's
 * down link and each gets half of it, 50 MB/s, so both take 20 ms. */
static void
test_two_share_a_link (void)
{
  g_autoptr (PtiContext) ctx = crossbar (3, NULL);
  g_autoptr (GError) error = NULL;
  PtiRequest rq[2];
  g_assert_true (pti_mpi_irecv (ctx, 0, 1, MB, 0, &rq[0], &error));
  g_assert_true (pti_mpi_irecv (ctx, 0, 2, MB, 0, &rq[1], &error));
  g_assert_true (pti_mpi_waitall (ctx, 0, 2, rq, &error));
  g_assert_true (pti_mpi_send (ctx, 1, 0, MB, 0, &error));
  g_assert_true (pti_mpi_send (ctx, 2, 0, MB, 0, &error));
  g_assert_no_error (error);
  evaluate (ctx);
  assert_time (end_of (ctx, 0), 20 * MS + 1 * US);
}

/* 1 -> 0 and 3 -> 2 share no link: each takes 10 ms as if alone. */
static void
test_disjoint (void)
{
  g_autoptr (PtiContext) ctx = crossbar (4, NULL);
  message (ctx, 1, 0, MB);
  message (ctx, 3, 2, MB);
  evaluate (ctx);
  assert_time (end_of (ctx, 0), 10 * MS + 1 * US);
  assert_time (end_of (ctx, 2), 10 * MS + 1 * US);
}

/* 0 -> 1 and 1 -> 0 at once: a cable is full duplex, two links, no sharing. */
static void
test_full_duplex (void)
{
  g_autoptr (PtiContext) ctx = crossbar (2, NULL);
  g_autoptr (GError) error = NULL;
  PtiRequest a, b;
  g_assert_true (pti_mpi_isend (ctx, 0, 1, MB, 0, &a, &error));
  g_assert_true (pti_mpi_recv (ctx, 0, 1, MB, 0, &error));
  g_assert_true (pti_mpi_wait (ctx, 0, a, &error));
  g_assert_true (pti_mpi_isend (ctx, 1, 0, MB, 0, &b, &error));
  g_assert_true (pti_mpi_recv (ctx, 1, 0, MB, 0, &error));
  g_assert_true (pti_mpi_wait (ctx, 1, b, &error));
  g_assert_no_error (error);
  evaluate (ctx);
  assert_time (pti_result_time (ctx), 10 * MS + 1 * US);
}

/* 30% background load leaves 70 MB/s: 1 MB takes 1/70 s. */
static void
test_background_load (void)
{
  g_autoptr (PtiContext) ctx = crossbar (2, "<background_load>0.3</background_load>");
  message (ctx, 1, 0, MB);
  evaluate (ctx);
  assert_time (end_of (ctx, 0), 1.0 / 70 + 1 * US);
}

/* Background load on one link only (rank 0's down link, h1:down, 50%):
 * a message into rank 0 is slowed, one into rank 2 is not. */
static void
test_link_load (void)
{
  g_autoptr (PtiContext) ctx = crossbar (4, "<link_load link='h1:down'>0.5</link_load>");
  message (ctx, 1, 0, MB);
  message (ctx, 3, 2, MB);
  evaluate (ctx);
  assert_time (end_of (ctx, 0), 20 * MS + 1 * US);
  assert_time (end_of (ctx, 2), 10 * MS + 1 * US);
}

/* N-to-1 incast, N = 6, 1 MB each, all at time 0: the receiver's down link
 * carries 6 MB at 100 MB/s, and max-min gives each the same share, so all
 * end together at 60 ms: N times one message alone.  The receive order is
 * 1..6 and each is complete by then. */
static void
test_incast (void)
{
  const guint n = 6;
  g_autoptr (PtiContext) ctx = crossbar (n + 1, NULL);
  for (guint s = 1; s <= n; s++)
    message (ctx, s, 0, MB);
  evaluate (ctx);
  assert_time (end_of (ctx, 0), n * 10 * MS + 1 * US);
}

/* Unequal sizes into one link: 1 MB and 3 MB from time 0.  Both at 50 MB/s
 * until the small one is done at 20 ms (2 MB moved); the large one then has
 * 2 MB left at 100 MB/s: 20 ms more, done at 40 ms. */
static void
test_rate_rises_when_one_ends (void)
{
  g_autoptr (PtiContext) ctx = crossbar (3, NULL);
  g_autoptr (GError) error = NULL;
  PtiRequest rq[2];
  g_assert_true (pti_mpi_irecv (ctx, 0, 1, MB, 0, &rq[0], &error));
  g_assert_true (pti_mpi_irecv (ctx, 0, 2, 3 * MB, 0, &rq[1], &error));
  g_assert_true (pti_mpi_waitall (ctx, 0, 2, rq, &error));
  g_assert_true (pti_mpi_send (ctx, 1, 0, MB, 0, &error));
  g_assert_true (pti_mpi_send (ctx, 2, 0, 3 * MB, 0, &error));
  g_assert_no_error (error);
  evaluate (ctx);
  assert_time (end_of (ctx, 0), 40 * MS + 1 * US);
}

/* Max-min, not an equal split: a (1 -> 0), b (2 -> 0) and x (3 -> 0) share
 * rank 0's down link; c (2 -> 4) shares rank 2's up link with b.
 * Water-filling: rank 0's down link offers 100/3 MB/s per flow, the least,
 * so a, b and x get 33.3; rank 2's up link has 66.7 left for c, which gets
 * it (an equal split of that link would give c 50).  1 MB each: c ends at
 * 15 ms, a, b and x at 30 ms (c's end frees nothing they are limited by). */
static void
test_max_min (void)
{
  g_autoptr (PtiContext) ctx = crossbar (5, NULL);
  g_autoptr (GError) error = NULL;
  PtiRequest r0[3], s2[2];
  for (guint i = 0; i < 3; i++)
    g_assert_true (pti_mpi_irecv (ctx, 0, i + 1, MB, 0, &r0[i], &error));
  g_assert_true (pti_mpi_waitall (ctx, 0, 3, r0, &error));
  g_assert_true (pti_mpi_send (ctx, 1, 0, MB, 0, &error));
  g_assert_true (pti_mpi_isend (ctx, 2, 0, MB, 0, &s2[0], &error));
  g_assert_true (pti_mpi_isend (ctx, 2, 4, MB, 0, &s2[1], &error));
  g_assert_true (pti_mpi_waitall (ctx, 2, 2, s2, &error));
  g_assert_true (pti_mpi_send (ctx, 3, 0, MB, 0, &error));
  g_assert_true (pti_mpi_recv (ctx, 4, 2, MB, 0, &error));
  g_assert_no_error (error);
  evaluate (ctx);
  assert_time (end_of (ctx, 4), 15 * MS + 1 * US);
  assert_time (end_of (ctx, 0), 30 * MS + 1 * US);
}

/* Max-min where a flow's own link is its bottleneck: a (1 -> 0) and b
 * (2 -> 0) share rank 0's down link (100 MB/s), and a's up link h2:up has
 * 70% background load (30 MB/s).  Water-filling fixes a first at 30, the
 * smallest share (the down link's is 50), and b gets the 70 left (an equal
 * split would give it 50).  Rank 0 receives b first, at 1/70 s + 1 us,
 * then sends 1 MB to rank 3 on its own up link (10 ms + 1 us): rank 3
 * ends at 1/70 s + 10 ms + 2 us.  a keeps 30 MB/s throughout: rank 0's
 * receive of it ends at 1/30 s + 1 us. */
static void
test_own_bottleneck (void)
{
  g_autoptr (PtiContext) ctx = crossbar (4, "<link_load link='h2:up'>0.7</link_load>");
  g_autoptr (GError) error = NULL;
  g_assert_true (pti_mpi_send (ctx, 1, 0, MB, 0, &error));
  g_assert_true (pti_mpi_send (ctx, 2, 0, MB, 0, &error));
  g_assert_true (pti_mpi_recv (ctx, 0, 2, MB, 0, &error));
  g_assert_no_error (error);
  message (ctx, 0, 3, MB);
  g_assert_true (pti_mpi_recv (ctx, 0, 1, MB, 0, &error));
  g_assert_no_error (error);
  evaluate (ctx);
  assert_time (end_of (ctx, 3), 1.0 / 70 + 10 * MS + 2 * US);
  assert_time (end_of (ctx, 0), 1.0 / 30 + 1 * US);
}

/* A load change in the middle of a transfer (WSL call): 1 MB alone at
 * 100 MB/s; at 5 ms half of it is through and the background load becomes
 * 50%, so the other 0.5 MB goes at 50 MB/s: 10 ms more, done at 15 ms. */
static void
test_change_mid_transfer (void)
{
  g_autoptr (PtiContext) ctx = crossbar (2, NULL);
  g_autoptr (GError) error = NULL;
  g_assert_true (pti_context_change_at (ctx, 5 * MS, "net", "background_load", "0.5", &error));
  g_assert_no_error (error);
  message (ctx, 1, 0, MB);
  evaluate (ctx);
  assert_time (end_of (ctx, 0), 15 * MS + 1 * US);
}

/* A context on an 8-port crossbar whose changes file holds @changes, read
 * before the processes (2) are set, as ptieval does.  NULL with @error if
 * the file or the processes are refused. */
static PtiContext *
context_with_changes (const char *changes, GError **error)
{
  g_autofree char *path = system_file (8, "<crossbar ports='8'/>", NULL);
  g_autoptr (PtiContext) ctx = pti_context_new (path, NULL, error);
  g_assert_nonnull (ctx);
  g_autofree char *file = write_file ("changes.txt", changes);
  if (!pti_changes_file_load (ctx, file, error) || !pti_context_set_processes (ctx, 2, error))
    return NULL;
  return g_steal_pointer (&ctx);
}

/* Changes given before the processes are set wait for them; a change of
 * one link's load and of the bandwidth.  1 MB from 1 to 0: at 2 ms (0.2 MB
 * through) h1:down gets 75% load: 25 MB/s; at 6 ms (0.1 MB more, 0.7 MB
 * left) the bandwidth of every link doubles: 50 MB/s on h1:down, 14 ms more:
 * done at 20 ms. */
static void
test_change_schedule (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (PtiContext) ctx = context_with_changes ("# time target element value\n"
                                                     "6ms net link_bandwidth 200MB/s\n"
                                                     "\n"
                                                     "0.002 net link_load[h1:down] 0.75   # a sensor\n",
                                                     &error);
  g_assert_no_error (error);
  message (ctx, 1, 0, MB);
  evaluate (ctx);
  assert_time (end_of (ctx, 0), 20 * MS + 1 * US);
}

/* Mistakes in changes name the file, line and what is wrong. */
static void
test_change_errors (void)
{
  static const struct {
    const char *line, *message;
  } cases[] = {
    { "1ms net foo 0.5\n", "changes.txt:1: network net: net-contention cannot change 'foo'" },
    { "1ms net background_load 1.5\n", "not a fraction in [0, 1)" },
    { "1ms net link_load[h9:down] 0.5\n", "no link is called 'h9:down'" },
    { "1ms lan background_load 0.5\n", "'lan' is not a network" },
    { "1ms net background_load\n", "changes.txt:1: expected TIME TARGET ELEMENT VALUE" },
    { "soon net background_load 0.2\n", "changes.txt:1: time 'soon'" },
    { "-1 net background_load 0.2\n", "finite number of seconds >= 0" },
    { "1ms net link_load 0.2\n", "link_load needs the links" },
    { "1ms net link_bandwidth fast\n", "'fast' is not a bandwidth" },
  };
  /* Through the API as through a file: text is checked where it enters
   * (a link pattern that is not UTF-8 aborted in GLib's pattern code). */
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (PtiContext) ctx = crossbar (2, NULL);
    g_assert_false (pti_context_change_at (ctx, 0, "net", "link_load[?\xe6]", "0.5", &error));
    g_assert_error (error, PTI_ERROR, PTI_ERROR_INVALID);
    g_assert_cmpstr (error->message, ==, "pti_context_change_at: the element: not UTF-8 text "
                                         "(byte 0xE6 at column 12)");
  }
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    g_autoptr (GError) error = NULL;
    g_autoptr (PtiContext) ctx = context_with_changes (cases[i].line, &error);
    g_assert_null (ctx);
    g_assert_nonnull (error);
    if (strstr (error->message, cases[i].message) == NULL)
      g_error ("%s: got \"%s\", want \"%s\"", cases[i].line, error->message, cases[i].message);
  }
}

/* The Myrinet Clos of configs/pc_cluster.xml (fat_tree 2;4,4;1,2;1,2),
 * 1.28 Gb/s = 160 MB/s, 100 ns per switch, 175 ns per link.  1000 bytes
 * take 6.25 us on a link.  Within a leaf (rank 0 to rank 1): 1 switch, 2
 * links: 6.25 + 0.1 + 0.35 = 6.7 us.  Across (rank 0 to rank 15): 3
 * switches, 4 links: 6.25 + 0.3 + 0.7 = 7.25 us. */
static void
test_clos_latency (void)
{
  g_autofree char *xml = clos_system ("<link_latency unit='ns'>175</link_latency>"
                                      "<switch_latency unit='ns'>100</switch_latency>");
  for (guint peer = 1; peer < 16; peer += 14) {
    g_autoptr (PtiContext) ctx = context_on (xml, 16);
    message (ctx, 0, peer, 1000);
    evaluate (ctx);
    assert_time (end_of (ctx, peer), peer == 1 ? 6.7 * US : 7.25 * US);
  }
}

/* Up-link sharing in the Clos, by the destination-mod-k rule: a message to
 * host d (0-based) leaves a leaf on spine d mod 2, cable (d / 2) mod 2.
 * Ranks 0 -> 4 and 1 -> 8 both take leaf 0's cable 0 to spine 0: they
 * share it (2 x 1 MB at 80 MB/s each: 12.5 ms).  Ranks 0 -> 4 and 1 -> 5
 * leave by different cables (5 mod 2 = 1): 6.25 ms each. */
static void
test_clos_uplinks (void)
{
  g_autofree char *xml = clos_system ("<eager_limit unit='MB'>10</eager_limit>");
  static const guint other[] = { 8, 5 };
  static const double expect[] = { 12.5 * MS, 6.25 * MS };
  for (guint i = 0; i < 2; i++) {
    g_autoptr (PtiContext) ctx = context_on (xml, 16);
    message (ctx, 0, 4, MB);
    message (ctx, 1, other[i], MB);
    evaluate (ctx);
    assert_time (end_of (ctx, 4), expect[i]);
    assert_time (end_of (ctx, other[i]), expect[i]);
  }
}

/* Dimension-order routing on a 4 x 4 torus (port p on router p - 1, x
 * first).  0 -> 2 and 1 -> 3 both go +x (0 -> 2 is a tie, taken +) and
 * share r1.0:+x: 20 ms each.  0 -> 2 and 4 -> 6 (the row above) share
 * nothing: 10 ms.  Latency: 0 -> 2 crosses 3 routers: 3 us. */
static void
test_torus (void)
{
  static const guint second[][2] = { { 1, 3 }, { 4, 6 } };
  static const double expect[] = { 20 * MS, 10 * MS };
  for (guint i = 0; i < 2; i++) {
    g_autoptr (PtiContext) ctx = context_new (16, "<torus dims='4,4'/>", NULL, 16);
    message (ctx, 0, 2, MB);
    message (ctx, second[i][0], second[i][1], MB);
    evaluate (ctx);
    assert_time (end_of (ctx, 2), expect[i] + 3 * US);
    assert_time (end_of (ctx, second[i][1]), expect[i] + 3 * US);
  }
}

/* Rendezvous over net-contention, 1 MB with an eager limit of 64 KiB and
 * o_s = 2 us, o_r = 3 us: the request leaves at 2 us and arrives at 3 us
 * (0 bytes: the switch's 1 us), the answer is back at 4 us, the data leaves
 * 4 us .. 10.004 ms and arrives 1 us later; the receive ends o_r after:
 * 10.008 ms.  The sender is done when its data has left: 10.004 ms. */
static void
test_rendezvous (void)
{
  g_autoptr (PtiContext) ctx = context_on (
    "<system name='rdv'>\n"
    "  <computer name='node' count='2'><cpu_clc unit='us'><LFOR>1</LFOR></cpu_clc></computer>\n"
    "  <network name='net'><net_contention>\n"
    "    <topology><crossbar ports='2'/></topology>\n"
    "    <link_bandwidth unit='MB/s'>100</link_bandwidth>\n"
    "    <switch_latency unit='us'>1</switch_latency>\n"
    "    <send_overhead unit='us'>2</send_overhead><recv_overhead unit='us'>3</recv_overhead>\n"
    "    <eager_limit unit='KiB'>64</eager_limit>\n"
    "  </net_contention></network>\n"
    "  <connect computer='node' nodes='1-2' network='net' ports='1-2'/>\n"
    "</system>\n", 2);
  message (ctx, 0, 1, MB);
  evaluate (ctx);
  assert_time (end_of (ctx, 0), 10 * MS + 4 * US);
  assert_time (end_of (ctx, 1), 10 * MS + 8 * US);
}

/* The trace: each message's bandwidth availability (ba) when it starts and
 * when its share changes, the knee capacity of the most loaded link, in the
 * model's namespace, declared in the header; and the trace is the same
 * byte for byte on a second run.  Both messages start at 0: each gets one
 * record there, of the share it keeps (message 0 was also reported at
 * 100 MB/s first, a record of no duration, and the knee at 100000 packets/s). */
static void
test_trace_records (void)
{
  g_autofree char *first = NULL;
  for (guint run = 0; run < 2; run++) {
    g_autoptr (PtiContext) ctx = crossbar (3, "<packet_size unit='B'>1000</packet_size>");
    g_autofree char *trace = g_build_filename (tmpdir, "trace.xml", NULL);
    pti_context_set_trace (ctx, trace);
    g_autoptr (GError) error = NULL;
    PtiRequest rq[2];
    g_assert_true (pti_mpi_irecv (ctx, 0, 1, MB, 0, &rq[0], &error));
    g_assert_true (pti_mpi_irecv (ctx, 0, 2, 3 * MB, 0, &rq[1], &error));
    g_assert_true (pti_mpi_waitall (ctx, 0, 2, rq, &error));
    g_assert_true (pti_mpi_send (ctx, 1, 0, MB, 0, &error));
    g_assert_true (pti_mpi_send (ctx, 2, 0, 3 * MB, 0, &error));
    evaluate (ctx);
    g_autofree char *text = NULL;
    g_assert_true (g_file_get_contents (trace, &text, NULL, NULL));
    g_unlink (trace);
    g_assert_nonnull (strstr (text, "<record model=\"net-contention\" "
                                    "ns=\"urn:pti:model:net-contention\" name=\"ba\" "
                                    "fields=\"time msg bytes_per_s\""));
    /* both at 50 MB/s from 0, then message 1 alone at 20 ms: three records */
    g_assert_null (strstr (text, "time=\"0.000000000\" msg=\"0\" bytes_per_s=\"100000000\""));
    g_assert_null (strstr (text, "time=\"0.000000000\" link=\"h1:down\" "
                                 "packets_per_s=\"100000.000\""));
    guint n_ba = 0;
    for (const char *p = text; (p = strstr (p, ":ba xmlns:")) != NULL; p++)
      n_ba++;
    g_assert_cmpuint (n_ba, ==, 3);
    g_assert_nonnull (strstr (text, "time=\"0.000000000\" msg=\"0\" bytes_per_s=\"50000000\""));
    g_assert_nonnull (strstr (text, "time=\"0.000000000\" msg=\"1\" bytes_per_s=\"50000000\""));
    g_assert_nonnull (strstr (text, "time=\"0.020000000\" msg=\"1\" bytes_per_s=\"100000000\""));
    /* knee: 50 MB/s in 1000-byte packets on h1:down, then 100 MB/s */
    g_assert_nonnull (strstr (text, "time=\"0.000000000\" link=\"h1:down\" "
                                    "packets_per_s=\"50000.000\""));
    g_assert_nonnull (strstr (text, "time=\"0.020000000\" link=\"h1:down\" "
                                    "packets_per_s=\"100000.000\""));
    g_assert_nonnull (strstr (text, "time=\"0.040000000\" link=\"\" packets_per_s=\"0.000\""));
    if (run == 0)
      first = g_steal_pointer (&text);
    else
      g_assert_cmpstr (first, ==, text);
  }
}

/* A <connect> to a port the topology does not have is refused at load. */
static void
test_port_out_of_range (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = system_file (8, "<crossbar ports='4'/>", NULL);
  g_autoptr (PtiContext) ctx = pti_context_new (path, NULL, &error);
  g_assert_null (ctx);
  g_assert_error (error, PTI_ERROR, PTI_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "network net has ports 1 to 4"));
  g_assert_nonnull (strstr (error->message, "there is no port 5"));
}

/* net-simple stays selectable (ptieval --use-model): same system, both
 * models, the choice made from outside. */
static void
test_use_model (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *xml = g_strdup (
    "<system name='both'>\n"
    "  <computer name='node' count='3'><cpu_clc unit='us'><LFOR>1</LFOR></cpu_clc></computer>\n"
    "  <network name='net' model='net-contention'>\n"
    "    <net_contention><topology><crossbar ports='3'/></topology>\n"
    "      <link_bandwidth unit='MB/s'>100</link_bandwidth></net_contention>\n"
    "    <net_simple><latency unit='us'>0</latency><bandwidth unit='MB/s'>100</bandwidth>\n"
    "      <eager_limit unit='MB'>10</eager_limit></net_simple>\n"
    "  </network>\n"
    "  <connect computer='node' nodes='1-3' network='net' ports='1-3'/>\n"
    "</system>\n");
  g_autofree char *path = write_file ("both.xml", xml);
  static const char *const simple[] = { "net=net-simple", NULL };
  static const char *const wrong[] = { "lan=net-simple", NULL };
  for (guint i = 0; i < 2; i++) {
    g_autoptr (PtiContext) ctx = pti_context_new_with_models (path, NULL, i ? simple : NULL,
                                                              &error);
    g_assert_no_error (error);
    g_assert_true (pti_context_set_processes (ctx, 3, &error));
    message (ctx, 1, 0, MB);
    message (ctx, 2, 0, MB);
    evaluate (ctx);
    /* contention: the second message shares rank 0's link from 0: both end
     * at 20 ms; without it each takes 10 ms and the receives are in order */
    assert_time (end_of (ctx, 0), i ? 10 * MS : 20 * MS);
  }
  g_autoptr (PtiContext) bad = pti_context_new_with_models (path, NULL, wrong, &error);
  g_assert_null (bad);
  g_assert_nonnull (strstr (error->message, "has no network or computer named 'lan'"));
}

/* Analytical repetition under contention and a change: ranks 1 and 2 each
 * send 1 MB to rank 0 (sharing its link: 20 ms), which answers each with 0
 * bytes; 10 rounds.  A round takes 20 ms + 1 us (data latency) + 1 us (the
 * answer's).  At 55 ms, in round 3 (from 40.004 ms), the load becomes 50%:
 * by then each message has 1 MB - 14.996 ms x 50 MB/s = 0.2502 MB left, at
 * 25 MB/s 10.008 ms more: round 3 ends at 65.010 ms.  Then 7 rounds of
 * 40.002 ms, the last without its answer: 65.010 + 280.014 - 0.001 =
 * 345.023 ms.  Repeated analytically, the extrapolation stops short of the
 * change, evaluates through it and extrapolates the rest: the same. */
static void
test_repetition_with_change (void)
{
  for (guint repeat = 0; repeat < 2; repeat++) {
    g_autoptr (PtiContext) ctx = crossbar (3, NULL);
    g_autoptr (GError) error = NULL;
    g_assert_true (pti_context_change_at (ctx, 55 * MS, "net", "background_load", "0.5",
                                          &error));
    for (guint r = 0; r < 3; r++) {
      guint rounds = repeat ? 1 : 10;
      if (repeat)
        g_assert_true (pti_repeat_begin (ctx, r, 10, &error));
      for (guint k = 0; k < rounds; k++) {
        if (r == 0) {
          PtiRequest rq[2];
          g_assert_true (pti_mpi_irecv (ctx, 0, 1, MB, 0, &rq[0], &error));
          g_assert_true (pti_mpi_irecv (ctx, 0, 2, MB, 0, &rq[1], &error));
          g_assert_true (pti_mpi_waitall (ctx, 0, 2, rq, &error));
        } else {
          g_assert_true (pti_mpi_send (ctx, r, 0, MB, 0, &error));
        }
        /* the next round starts when rank 0 has both: it tells the senders */
        if (r == 0) {
          g_assert_true (pti_mpi_send (ctx, 0, 1, 0, 1, &error));
          g_assert_true (pti_mpi_send (ctx, 0, 2, 0, 1, &error));
        } else {
          g_assert_true (pti_mpi_recv (ctx, r, 0, 0, 1, &error));
        }
      }
      if (repeat)
        g_assert_true (pti_repeat_end (ctx, r, &error));
      g_assert_no_error (error);
    }
    evaluate (ctx);
    assert_time (end_of (ctx, 0), 345 * MS + 23 * US);
    guint64 evaluated = 0, extrapolated = 0;
    pti_wsl_repetition_figures (ctx, &evaluated, &extrapolated);
    if (repeat) {
      /* Rounds 1-3 through the models: the change falls in round 3, so
       * nothing before it may be derived, and the state after it is not
       * the state before.  Rounds 4 and 5 prove the new period; the
       * senders have begun round 6 by then, and every rank keeps its last
       * round for the models: 7, 8 and 9 derived, 6 and 10 evaluated. */
      g_test_message ("repetitions: %" G_GUINT64_FORMAT " evaluated, %" G_GUINT64_FORMAT
                      " extrapolated", evaluated, extrapolated);
      g_assert_cmpuint (evaluated, ==, 7);
      g_assert_cmpuint (extrapolated, ==, 3);
    }
  }
}

/* Issue 10's imbalanced halo on the paper's cluster (data/halo-imbalance.xml):
 * a <repeat> predicts what the same steps written out as a <for> do, every
 * rank to rounding, at 10, 50 and 200 steps.  The old engine cut the
 * evaluation at every repetition's start and extrapolated after two, which
 * froze the first steps' timing: 0.026% apart at 50 steps, 0.062% at 200.
 * Here nothing is derived before the state has settled and repeats, about
 * 25 steps in; from then on every further repetition is derived. */
static PtiContext *
halo (guint steps, guint mode)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *system = g_build_filename (g_getenv ("PTI_SOURCE_ROOT"), "configs",
                                              "pc_cluster.xml", NULL);
  g_autofree char *workload = g_test_build_filename (G_TEST_DIST, "net-contention", "data",
                                                     "halo-imbalance.xml", NULL);
  PtiContext *ctx = pti_context_new (system, NULL, &error);
  g_assert_no_error (error);
  g_autofree char *s = g_strdup_printf ("%u", steps), *m = g_strdup_printf ("%u", mode);
  g_assert_true (pti_context_override_param (ctx, "steps", s, &error));
  g_assert_true (pti_context_override_param (ctx, "mode", m, &error));
  g_assert_true (pti_workload_file_build (ctx, workload, &error));
  g_assert_true (pti_evaluate (ctx, &error));
  g_assert_no_error (error);
  return ctx;
}

static void
test_repetition_exact (void)
{
  const guint steps[] = { 10, 50, 200 };
  for (guint i = 0; i < G_N_ELEMENTS (steps); i++) {
    g_autoptr (PtiContext) literal = halo (steps[i], 0);
    g_autoptr (PtiContext) repeated = halo (steps[i], 1);
    double a = pti_result_time (literal), b = pti_result_time (repeated);
    g_test_message ("%u steps: for %.17g s, repeat %.17g s", steps[i], a, b);
    g_assert_cmpfloat (fabs (a - b), <=, 1e-12 * a);
    for (guint r = 0; r < 16; r++) {
      PtiProcessResult x, y;
      g_assert_true (pti_result_process (literal, r, &x) && pti_result_process (repeated, r, &y));
      g_assert_cmpfloat (fabs (x.end - y.end), <=, 1e-12 * a);
      g_assert_cmpfloat (fabs (x.wait - y.wait), <=, 1e-12 * a);
      g_assert_cmpuint (x.events, ==, y.events);
    }
    guint64 evaluated, derived;
    pti_wsl_repetition_figures (repeated, &evaluated, &derived);
    g_test_message ("%u steps: %" G_GUINT64_FORMAT " evaluated, %" G_GUINT64_FORMAT " derived",
                    steps[i], evaluated, derived);
    g_assert_cmpuint (evaluated + derived, ==, steps[i]);
    if (steps[i] == 200)
      g_assert_cmpuint (derived, >=, 150);
  }
  /* The settled steps are faster than the first ones (see the file). */
  g_autoptr (PtiContext) one = halo (1, 0);
  g_autoptr (PtiContext) many = halo (200, 1);
  double first = pti_result_time (one), settled = (pti_result_time (many) - first) / 199;
  g_assert_cmpfloat (first, >, settled);
}

/* net-simple changes too, for the messages that start afterwards: L = 10 us,
 * B = 100 MB/s, 1000 bytes (10 us on the wire).  Rank 1's message leaves at
 * 0 and arrives at 20 us; at 15 us the latency becomes 50 us; rank 0's
 * answer leaves at 20 us and arrives at 20 + 10 + 50 = 80 us. */
static void
test_net_simple_change (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (PtiContext) ctx = context_on (
    "<system name='simple'>\n"
    "  <computer name='node' count='2'><cpu_clc unit='us'><LFOR>1</LFOR></cpu_clc></computer>\n"
    "  <network name='net'><net_simple><latency unit='us'>10</latency>\n"
    "    <bandwidth unit='MB/s'>100</bandwidth></net_simple></network>\n"
    "  <connect computer='node' nodes='1-2' network='net' ports='1-2'/>\n"
    "</system>\n", 2);
  g_assert_true (pti_context_change_at (ctx, 15 * US, "net", "latency", "50us", &error));
  g_assert_no_error (error);
  g_assert_false (pti_context_change_at (ctx, 15 * US, "net", "link_load[x]", "0.5", &error));
  g_assert_nonnull (strstr (error->message, "net-simple has no parts to choose"));
  g_clear_error (&error);
  message (ctx, 1, 0, 1000);
  message (ctx, 0, 1, 1000);
  evaluate (ctx);
  assert_time (end_of (ctx, 0), 20 * US);
  assert_time (end_of (ctx, 1), 80 * US);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_autoptr (GError) error = NULL;
  tmpdir = g_dir_make_tmp ("pti-contention-XXXXXX", &error);
  g_assert_no_error (error);
  g_test_add_func ("/net-contention/alone", test_alone);
  g_test_add_func ("/net-contention/two-share-a-link", test_two_share_a_link);
  g_test_add_func ("/net-contention/disjoint", test_disjoint);
  g_test_add_func ("/net-contention/full-duplex", test_full_duplex);
  g_test_add_func ("/net-contention/background-load", test_background_load);
  g_test_add_func ("/net-contention/link-load", test_link_load);
  g_test_add_func ("/net-contention/incast", test_incast);
  g_test_add_func ("/net-contention/rate-rises-when-one-ends", test_rate_rises_when_one_ends);
  g_test_add_func ("/net-contention/max-min", test_max_min);
  g_test_add_func ("/net-contention/own-bottleneck", test_own_bottleneck);
  g_test_add_func ("/net-contention/change-mid-transfer", test_change_mid_transfer);
  g_test_add_func ("/net-contention/change-schedule", test_change_schedule);
  g_test_add_func ("/net-contention/change-errors", test_change_errors);
  g_test_add_func ("/net-contention/clos-latency", test_clos_latency);
  g_test_add_func ("/net-contention/clos-uplinks", test_clos_uplinks);
  g_test_add_func ("/net-contention/torus", test_torus);
  g_test_add_func ("/net-contention/rendezvous", test_rendezvous);
  g_test_add_func ("/net-contention/trace-records", test_trace_records);
  g_test_add_func ("/net-contention/port-out-of-range", test_port_out_of_range);
  g_test_add_func ("/net-contention/use-model", test_use_model);
  g_test_add_func ("/net-contention/repetition-with-change", test_repetition_with_change);
  g_test_add_func ("/net-contention/repetition-exact", test_repetition_exact);
  g_test_add_func ("/net-simple/change", test_net_simple_change);
  int rc = g_test_run ();
  g_autoptr (GDir) dir = g_dir_open (tmpdir, 0, NULL);
  for (const char *name; dir && (name = g_dir_read_name (dir)) != NULL;) {
    g_autofree char *path = g_build_filename (tmpdir, name, NULL);
    g_unlink (path);
  }
  g_rmdir (tmpdir);
  g_free (tmpdir);
  return rc;
}
