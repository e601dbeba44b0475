/* The io device and the io-pfs model (models/io-pfs/README.md) against
 * closed forms worked by hand, and the mistakes a workload can make.
 *
 * The file system of every case: 4 servers, latency 1 ms, write 100 MB/s,
 * read 200 MB/s per server, client links of 1 GB/s, stripes of 1 MiB over
 * 1 server by default, 0.5 ms per open or close at the metadata server.
 * File 0 starts on server 0.  Numbers below in s; MiB = 1,048,576 bytes. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "wsl-private.h"

#define assert_time(actual, expected) \
  g_assert_cmpfloat_with_epsilon ((actual), (expected), 1e-15 + 1e-12 * fabs ((double) (expected)))

#define MiB 1048576u

static char *tmpdir;

static char *
write_file (const char *name, const char *text)
{
  char *path = g_build_filename (tmpdir, name, NULL);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  return path;
}

#define PFS(extra)                                                              \
  "<filesystem name='pfs'><io_pfs>"                                            \
  "<servers>4</servers><latency unit='ms'>1</latency>"                         \
  "<write_bandwidth unit='MB/s'>100</write_bandwidth>"                         \
  "<read_bandwidth unit='MB/s'>200</read_bandwidth>"                           \
  "<client_bandwidth unit='GB/s'>1</client_bandwidth>"                         \
  "<metadata_latency unit='us'>500</metadata_latency>" extra "</io_pfs></filesystem>\n"

/* 4 nodes of 1 CPU on net-simple; nodes @mounted mount the file system. */
static PtiContext *
context_with (const char *pfs_extra, const char *mounted, guint procs)
{
  g_autofree char *xml = g_strdup_printf (
    "<system name='t'>\n"
    "  <computer name='n' count='4'><cpu_time><speed_ratio>1</speed_ratio></cpu_time></computer>\n"
    "  <network name='net'><net_simple><latency unit='us'>10</latency>"
    "<bandwidth unit='MB/s'>100</bandwidth></net_simple></network>\n"
    "  <connect computer='n' nodes='1-4' network='net' ports='1-4'/>\n"
    PFS ("%s")
    "  <mount computer='n' nodes='%s' filesystem='pfs'/>\n"
    "</system>\n", pfs_extra, mounted);
  g_autofree char *path = write_file ("system.xml", xml);
  g_autoptr (GError) error = NULL;
  PtiContext *ctx = pti_context_new (path, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (pti_context_set_processes (ctx, procs, &error));
  return ctx;
}

static PtiContext *
context (guint procs)
{
  return context_with ("", "1-4", procs);
}

/* @error is read after the call that is @done (arguments are evaluated in
 * no fixed order). */
static void
ok (gboolean done, GError **error)
{
  g_assert_no_error (*error);
  g_assert_true (done);
}

static PtiProcessResult
result (PtiContext *ctx, guint rank)
{
  PtiProcessResult r;
  g_assert_true (pti_result_process (ctx, rank, &r));
  return r;
}

static void
evaluate (PtiContext *ctx)
{
  g_autoptr (GError) error = NULL;
  ok (pti_evaluate (ctx, &error), &error);
}

/* One client, one server: open 0.5 ms; a write of 10 MB (10^7 bytes) ends
 * with the slower of the link (10^7 / 10^9 = 0.01) and the server
 * (0.001 + 10^7 / 10^8 = 0.101): 0.0005 + 0.101 = 0.1015; a read of it
 * 0.001 + 0.05 = 0.051 later; close 0.5 ms. */
static void
test_one_client_one_server (void)
{
  g_autoptr (PtiContext) ctx = context (1);
  GError *error = NULL;
  PtiFile f;
  ok (pti_io_open (ctx, 0, "a", NULL, &f, &error), &error);
  g_assert_cmpuint (f, ==, 0);
  ok (pti_io_write_at (ctx, 0, f, 0, 10000000, &error), &error);
  ok (pti_io_read_at (ctx, 0, f, 0, 10000000, &error), &error);
  ok (pti_io_close (ctx, 0, f, &error), &error);
  evaluate (ctx);
  assert_time (pti_result_time (ctx), 0.0005 + 0.101 + 0.051 + 0.0005);
  PtiProcessResult r = result (ctx, 0);
  assert_time (pti_result_io (ctx, 0), 0.153);
  assert_time (r.wait, 0);
  g_assert_cmpuint (r.events, ==, 4);
}

/* Striping: 16 MiB at offset 0 over 4 servers in stripes of 1 MiB puts
 * 4 MiB on each: 0.001 + 4 MiB / 10^8 = 0.04294304 (the link's 0.016777216
 * is shorter).  Then 1.5 MiB at offset 0.5 MiB: server 0 gets 0.5 MiB,
 * server 1 1 MiB: 0.001 + 1 MiB / 10^8 = 0.01148576. */
static void
test_striping (void)
{
  g_autoptr (PtiContext) ctx = context (1);
  GError *error = NULL;
  PtiFile f;
  PtiIoHints hints = { .stripe_size = MiB, .stripe_count = 4 };
  ok (pti_io_open (ctx, 0, "striped", &hints, &f, &error), &error);
  ok (pti_io_write_at (ctx, 0, f, 0, 16 * MiB, &error), &error);
  ok (pti_io_write_at (ctx, 0, f, MiB / 2, 3 * MiB / 2, &error), &error);
  evaluate (ctx);
  assert_time (pti_result_time (ctx), 0.0005 + 0.04294304 + 0.01148576);
}

/* A slow client link is the bottleneck: stripe over 4 servers with links of
 * 10 MB/s: 16 MiB / 10^7 = 1.6777216 > the servers' 0.04294304. */
static void
test_client_link (void)
{
  g_autofree char *xml = g_strdup_printf (
    "<system name='t'>\n"
    "  <computer name='n'><cpu_time><speed_ratio>1</speed_ratio></cpu_time></computer>\n"
    "  <filesystem name='pfs'><io_pfs><servers>4</servers><latency unit='ms'>1</latency>"
    "<write_bandwidth unit='MB/s'>100</write_bandwidth><read_bandwidth unit='MB/s'>100</read_bandwidth>"
    "<client_bandwidth unit='MB/s'>10</client_bandwidth><stripe_count>4</stripe_count>"
    "</io_pfs></filesystem>\n"
    "  <mount computer='n' filesystem='pfs'/>\n"
    "</system>\n");
  g_autofree char *path = write_file ("link.xml", xml);
  GError *error = NULL;
  g_autoptr (PtiContext) ctx = pti_context_new (path, NULL, &error);
  g_assert_no_error (error);
  ok (pti_context_set_processes (ctx, 1, &error), &error);
  PtiFile f;
  ok (pti_io_open (ctx, 0, "x", NULL, &f, &error), &error);
  ok (pti_io_write_at (ctx, 0, f, 0, 16 * MiB, &error), &error);
  evaluate (ctx);
  assert_time (pti_result_time (ctx), 1.6777216);
}

/* Two clients contend for one server (stripe count 1): opens queue at the
 * metadata server (rank 0 at 0.0005, rank 1 at 0.001); rank 0's write of
 * 10^7 bytes ends at 0.0005 + 0.101 = 0.1015, rank 1's waits for the
 * server: 0.1015 + 0.101 = 0.2025. */
static void
test_two_clients_one_server (void)
{
  g_autoptr (PtiContext) ctx = context (2);
  GError *error = NULL;
  PtiFile f0, f1;
  ok (pti_io_open (ctx, 0, "shared", NULL, &f0, &error), &error);
  ok (pti_io_open (ctx, 1, "shared", NULL, &f1, &error), &error);
  g_assert_cmpuint (f0, ==, f1);
  ok (pti_io_write_at (ctx, 0, f0, 0, 10000000, &error), &error);
  ok (pti_io_write_at (ctx, 1, f1, 10000000, 10000000, &error), &error);
  evaluate (ctx);
  assert_time (result (ctx, 0).end, 0.1015);
  assert_time (result (ctx, 1).end, 0.2025);
  /* Each rank's time is all io: contention is the model's queueing. */
  assert_time (pti_result_io (ctx, 1), 0.2025);
}

/* Collective write, 4 ranks on 4 nodes, each 4 MiB at rank x 4 MiB, stripes
 * of 1 MiB over 4 servers.  open_all: 4 opens at the metadata server,
 * everyone leaves at 0.002.
 * (a) one aggregator per node: each file domain is one rank's range, no
 *     exchange; each aggregator's 4 MiB puts 1 MiB on every server, so each
 *     server serves 4 requests of 0.001 + 1 MiB / 10^8 = 0.01148576:
 *     0.002 + 4 x 0.01148576 = 0.04794304.
 * (b) 2 aggregators (nodes 1, 2), domains [0, 8 MiB) and [8, 16 MiB): node
 *     2 receives rank 2's and rank 3's 4 MiB (8 MiB in: the busiest link)
 *     and sends rank 1's to node 1: exchange 8 MiB / 10^9 = 0.008388608;
 *     then two 8 MiB writes put 2 MiB on every server each:
 *     2 x (0.001 + 2 MiB / 10^8) = 0.04394304;
 *     0.002 + 0.008388608 + 0.04394304 = 0.054331648.
 * close_all: 4 more metadata requests, 0.002. */
static double
collective_write (const char *pfs_extra)
{
  g_autoptr (PtiContext) ctx = context_with (pfs_extra, "1-4", 4);
  GError *error = NULL;
  PtiIoHints hints = { .stripe_size = MiB, .stripe_count = 4 };
  for (guint r = 0; r < 4; r++) {
    PtiFile f;
    ok (pti_io_open_all (ctx, NULL, r, "out", &hints, &f, &error), &error);
    ok (pti_io_write_at_all (ctx, r, f, (guint64) r * 4 * MiB, 4 * MiB, &error), &error);
    ok (pti_io_close (ctx, r, f, &error), &error);
  }
  evaluate (ctx);
  for (guint r = 1; r < 4; r++)
    assert_time (result (ctx, r).end, result (ctx, 0).end);
  return pti_result_time (ctx);
}

static void
test_collective_write (void)
{
  assert_time (collective_write (""), 0.002 + 0.04594304 + 0.002);
  assert_time (collective_write ("<aggregators>2</aggregators>"),
               0.002 + 0.008388608 + 0.04394304 + 0.002);
}

/* A sparse collective write: 2 ranks write 4 MiB each, 256 MiB apart, on
 * one server (stripe count 1).  The two domains ([0, 130 MiB) and [130 MiB,
 * 260 MiB)) each hold one rank's piece on the rank's own node: no exchange,
 * and each aggregator writes only those 4 MiB (not its 130 MiB domain):
 * open 2 x 0.0005, then 2 x (0.001 + 4 MiB / 10^8) queued at the server. */
static void
test_collective_sparse (void)
{
  g_autoptr (PtiContext) ctx = context (2);
  GError *error = NULL;
  for (guint r = 0; r < 2; r++) {
    PtiFile f;
    ok (pti_io_open_all (ctx, NULL, r, "sparse", NULL, &f, &error), &error);
    ok (pti_io_write_at_all (ctx, r, f, (guint64) r * 256 * MiB, 4 * MiB, &error), &error);
  }
  evaluate (ctx);
  assert_time (pti_result_time (ctx), 0.001 + 2 * 0.04294304);
}

/* A collective call waits for its last rank: rank 1 computes 1 s first,
 * so rank 0 waits 1 s in open_all (its wait), then the 2 opens take 1 ms. */
static void
test_collective_synchronises (void)
{
  g_autoptr (PtiContext) ctx = context (2);
  GError *error = NULL;
  PtiFile f;
  ok (pti_use_time (ctx, 1, 1.0, &error), &error);
  for (guint r = 0; r < 2; r++)
    ok (pti_io_open_all (ctx, NULL, r, "sync", NULL, &f, &error), &error);
  evaluate (ctx);
  PtiProcessResult r0 = result (ctx, 0), r1 = result (ctx, 1);
  assert_time (r0.end, 1.001);
  assert_time (r1.end, 1.001);
  assert_time (r0.wait, 1.0);
  assert_time (pti_result_io (ctx, 0), 0.001);
  assert_time (r1.wait, 0);
}

/* Collective read, (a)'s layout: the reads first (as the write, at 200
 * MB/s: 4 x (0.001 + 1 MiB / 2 x 10^8) = 0.02497152), no exchange. */
static void
test_collective_read (void)
{
  g_autoptr (PtiContext) ctx = context (4);
  GError *error = NULL;
  PtiIoHints hints = { .stripe_size = MiB, .stripe_count = 4 };
  for (guint r = 0; r < 4; r++) {
    PtiFile f;
    ok (pti_io_open_all (ctx, NULL, r, "in", &hints, &f, &error), &error);
    ok (pti_io_read_at_all (ctx, r, f, (guint64) r * 4 * MiB, 4 * MiB, &error), &error);
  }
  evaluate (ctx);
  assert_time (pti_result_time (ctx), 0.002 + 4 * (0.001 + 1048576.0 / 2e8));
}

static void
expect_error (gboolean done, GError **error, const char *needle)
{
  g_assert_false (done);
  g_assert_error (*error, PTI_ERROR, PTI_ERROR_INVALID);
  if (strstr ((*error)->message, needle) == NULL)
    g_error ("'%s' does not say '%s'", (*error)->message, needle);
  g_clear_error (error);
}

static void
test_errors (void)
{
  GError *error = NULL;
  PtiFile f = 0;
  {
    /* Node 2 mounts nothing. */
    g_autoptr (PtiContext) ctx = context_with ("", "1", 2);
    expect_error (pti_io_open (ctx, 1, "a", NULL, &f, &error), &error, "mounts no file system");
  }
  g_autoptr (PtiContext) ctx = context (2);
  expect_error (pti_io_write_at (ctx, 0, 0, 0, 1, &error), &error, "no file 0 was opened");
  ok (pti_io_open (ctx, 0, "a", NULL, &f, &error), &error);
  expect_error (pti_io_write_at (ctx, 1, f, 0, 1, &error), &error, "not open on that rank");
  expect_error (pti_io_open (ctx, 0, "a", NULL, &f, &error), &error, "already open");
  expect_error (pti_io_write_at_all (ctx, 0, f, 0, 1, &error), &error, "need io_open_all");
  expect_error (pti_io_open (ctx, 0, "", NULL, &f, &error), &error, "needs a name");
  expect_error (pti_io_write_at (ctx, 0, f, G_MAXUINT64, 2, &error), &error, "largest file offset");
  expect_error (pti_io_open (ctx, 7, "b", NULL, &f, &error), &error, "rank 7");
}

/* Ranks of one collective call that make different calls: an error at
 * evaluation naming both. */
static void
test_mismatched_collective (void)
{
  g_autoptr (PtiContext) ctx = context (2);
  GError *error = NULL;
  PtiFile f;
  for (guint r = 0; r < 2; r++)
    ok (pti_io_open_all (ctx, NULL, r, "m", NULL, &f, &error), &error);
  ok (pti_io_write_at_all (ctx, 0, f, 0, 10, &error), &error);
  ok (pti_io_read_at_all (ctx, 1, f, 0, 10, &error), &error);
  expect_error (pti_evaluate (ctx, &error), &error, "must make the same call");
}

/* A collective call some rank never makes: a deadlock report naming it. */
static void
test_missing_collective (void)
{
  g_autoptr (PtiContext) ctx = context (2);
  GError *error = NULL;
  PtiFile f;
  ok (pti_io_open_all (ctx, NULL, 0, "m", NULL, &f, &error), &error);
  g_assert_false (pti_evaluate (ctx, &error));
  g_assert_error (error, PTI_ERROR, PTI_ERROR_DEADLOCK);
  g_assert_nonnull (strstr (error->message, "collective I/O call"));
  g_error_free (error);
}

/* The trace shows each request as an io event, and the summary its time. */
static void
test_trace (void)
{
  g_autoptr (PtiContext) ctx = context (1);
  GError *error = NULL;
  g_autofree char *trace = g_build_filename (tmpdir, "io-trace.xml", NULL);
  pti_context_set_trace (ctx, trace);
  PtiFile f;
  ok (pti_io_open (ctx, 0, "a", NULL, &f, &error), &error);
  ok (pti_io_write_at (ctx, 0, f, 4096, 10000000, &error), &error);
  evaluate (ctx);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (trace, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "<event kind=\"io\" start=\"0.000500000\" end=\"0.101500000\" "
                                  "device=\"io\" model=\"io-pfs\" op=\"write\" file=\"0\" "
                                  "offset=\"4096\" bytes=\"10000000\" wait=\"0.000000000\"/>"));
  g_assert_nonnull (strstr (text, "op=\"open\""));
  g_assert_nonnull (strstr (text, " io=\"0.101500000\"/>"));
}

/* The workload file's <io_open>, <io_write>, <io_close>: the collective
 * write of test_collective_write (a), and the same independently: opens
 * queue at the metadata server (rank r's ends at 0.0005 (r + 1)); rank 0's
 * 4 MiB (1 MiB per server: 0.01148576) ends at 0.0005 + 0.01148576, and
 * each next rank's waits for the servers to finish the one before: rank
 * 3's ends at 0.0005 + 4 x 0.01148576, its close 0.0005 later. */
static double
checkpoint (const char *collective)
{
  GError *error = NULL;
  g_autofree char *system = g_test_build_filename (G_TEST_DIST, "io", "data", "pfs4.xml", NULL);
  g_autofree char *workload = g_test_build_filename (G_TEST_DIST, "io", "data", "checkpoint.xml",
                                                     NULL);
  g_autoptr (PtiContext) ctx = pti_context_new (system, NULL, &error);
  g_assert_no_error (error);
  ok (pti_context_override_param (ctx, "collective", collective, &error), &error);
  ok (pti_workload_file_build (ctx, workload, &error), &error);
  evaluate (ctx);
  return pti_result_time (ctx);
}

static void
test_workload_file (void)
{
  assert_time (checkpoint ("1"), 0.002 + 0.04594304 + 0.002);
  assert_time (checkpoint ("0"), 0.0005 + 4 * 0.01148576 + 0.0005);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  tmpdir = g_dir_make_tmp ("pti-io-XXXXXX", NULL);
  g_test_add_func ("/io/one-client-one-server", test_one_client_one_server);
  g_test_add_func ("/io/striping", test_striping);
  g_test_add_func ("/io/client-link", test_client_link);
  g_test_add_func ("/io/two-clients-one-server", test_two_clients_one_server);
  g_test_add_func ("/io/collective-write", test_collective_write);
  g_test_add_func ("/io/collective-sparse", test_collective_sparse);
  g_test_add_func ("/io/collective-synchronises", test_collective_synchronises);
  g_test_add_func ("/io/collective-read", test_collective_read);
  g_test_add_func ("/io/errors", test_errors);
  g_test_add_func ("/io/mismatched-collective", test_mismatched_collective);
  g_test_add_func ("/io/missing-collective", test_missing_collective);
  g_test_add_func ("/io/trace", test_trace);
  g_test_add_func ("/io/workload-file", test_workload_file);
  int status = g_test_run ();
  g_autoptr (GDir) dir = g_dir_open (tmpdir, 0, NULL);
  for (const char *n; dir != NULL && (n = g_dir_read_name (dir)) != NULL;) {
    g_autofree char *p = g_build_filename (tmpdir, n, NULL);
    g_unlink (p);
  }
  g_rmdir (tmpdir);
  return status;
}
