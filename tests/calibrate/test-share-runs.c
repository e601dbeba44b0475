/* Closed-form tests of pticalibrate's cut of a size piece by share
 * (cal_share_runs, calibrate/fit.c; calibrate/README.md): which sizes one
 * net-node share serves, each worked out by hand beside it; and of the
 * pieces net-node gets from the fit (cal_node_pieces, calibrate/mpi.c). */
#include <glib.h>
#include <math.h>

#include "calibrate.h"

static const double ones[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };

/* The 4 KiB to 48 KiB exchanges of configs/epyc_vm_2cpu.xml, rounded:
 * 0.69 0.70 0.69 0.70 0.67 (median 0.69, every one within 0.02) then
 * 0.63: the six's median is 0.69, 0.63 is 0.06 from it, more than 0.04,
 * so it starts a run; 0.63 0.63 follow it (0 from their median). */
static void
test_two_runs (void)
{
  const double w[8] = { 0.69, 0.70, 0.69, 0.70, 0.67, 0.63, 0.63, 0.63 };
  guint start[8];
  g_assert_cmpuint (cal_share_runs (w, ones, 8, 0.04, start), ==, 2);
  g_assert_cmpuint (start[0], ==, 0);
  g_assert_cmpuint (start[1], ==, 5);
}

/* The same shares where an exchange moves by half as much per unit of
 * share (a message whose lone work is a quarter of its exchange's time):
 * all eight's median is (0.67 + 0.69) / 2 = 0.68, the farthest 0.63 is
 * 0.05 from it, 0.025 of its exchange: one run. */
static void
test_sensitivity (void)
{
  const double w[8] = { 0.69, 0.70, 0.69, 0.70, 0.67, 0.63, 0.63, 0.63 };
  const double half[8] = { 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5 };
  guint start[8];
  g_assert_cmpuint (cal_share_runs (w, half, 8, 0.04, start), ==, 1);
  g_assert_cmpuint (start[0], ==, 0);
}

/* Greedy from the smallest: 0.5, 0.58 (median 0.54, both 0.04 away: in),
 * 0.66 (median 0.58, 0.5 is 0.08 away: out); 0.66, 0.66 one run.  A size
 * whose w is not a number (no exchange) starts a run and ends it. */
static void
test_greedy_and_nan (void)
{
  const double w[5] = { 0.5, 0.58, 0.66, 0.66, NAN };
  guint start[5];
  g_assert_cmpuint (cal_share_runs (w, ones, 5, 0.04 + 1e-12, start), ==, 3);
  g_assert_cmpuint (start[0], ==, 0);
  g_assert_cmpuint (start[1], ==, 2);
  g_assert_cmpuint (start[2], ==, 4);
}

static void
test_empty_and_one (void)
{
  guint start[1] = { 99 };
  g_assert_cmpuint (cal_share_runs (NULL, NULL, 0, 0.04, start), ==, 0);
  g_assert_cmpuint (start[0], ==, 99);
  const double w[1] = { 0.7 };
  g_assert_cmpuint (cal_share_runs (w, ones, 1, 0, start), ==, 1);
  g_assert_cmpuint (start[0], ==, 0);
}

static void
test_median (void)
{
  double odd[3] = { 3, 1, 2 }, even[4] = { 4, 1, 3, 2 };
  g_assert_cmpfloat (cal_median (odd, 3), ==, 2);
  g_assert_cmpfloat (cal_median (even, 4), ==, 2.5);
  g_assert_true (isnan (cal_median (NULL, 0)));
}

/* The fit's pieces as net-node prices them.  Overheads o_s + o_r = 300 ns,
 * eager limit 4096 B.  Piece 0 (0-1 KiB, a = 500 ns, b = 1 ps/B): L =
 * 500 - 300 = 200 ns, B = 1 TB/s, up to the next piece's first size less
 * one, 1023 B.  Piece 1 (1-4 KiB, a = 250 ns): 250 - 300 = -50 ns, kept
 * at 0 with 50 ns below (the fit used to stop here), up to the eager
 * limit.  Piece 2 (rendezvous, 4-64 KiB, a = 1000 ns, b = 2 ps/B): less
 * the handshake's two 0-byte messages, 1000 - 300 - 2 x 200 = 300 ns, B =
 * 500 GB/s, up to the next piece's 65535 B.  Piece 3 has no positive
 * cost per byte: the pieces stop, three written. */
static void
test_node_pieces_clamp (void)
{
  const CalNet net = { .latency = 1e-6, .bandwidth = 1e9, .send_overhead = 100e-9,
                       .recv_overhead = 200e-9, .eager_limit = 4096 };
  const CalPiece pieces[4] = {
    { .lo = 0, .hi = 1000, .a = 500e-9, .b = 1e-12 },
    { .lo = 1024, .hi = 4096, .a = 250e-9, .b = 1e-12 },
    { .lo = 8192, .hi = 60000, .a = 1000e-9, .b = 2e-12 },
    { .lo = 65536, .hi = 1 << 20, .a = 5e-6, .b = 0 },
  };
  CalNodePiece out[4];
  g_assert_cmpuint (cal_node_pieces (&net, pieces, 4, out), ==, 3);
  g_assert_cmpfloat_with_epsilon (out[0].latency, 200e-9, 1e-18);
  g_assert_cmpfloat_with_epsilon (out[0].bandwidth, 1e12, 1);
  g_assert_cmpfloat (out[0].up_to, ==, 1023);
  g_assert_cmpfloat (out[0].below, ==, 0);
  g_assert_false (out[0].rendezvous);
  g_assert_cmpfloat (out[1].latency, ==, 0);
  g_assert_cmpfloat_with_epsilon (out[1].below, 50e-9, 1e-18);
  g_assert_cmpfloat (out[1].up_to, ==, 4096);
  g_assert_true (out[2].rendezvous);
  g_assert_cmpfloat_with_epsilon (out[2].latency, 300e-9, 1e-18);
  g_assert_cmpfloat_with_epsilon (out[2].bandwidth, 5e11, 1);
  g_assert_cmpfloat (out[2].up_to, ==, 65535);
  g_assert_cmpfloat (out[2].below, ==, 0);
  g_assert_true (isnan (out[2].share));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/calibrate/share-runs/two-runs", test_two_runs);
  g_test_add_func ("/calibrate/share-runs/sensitivity", test_sensitivity);
  g_test_add_func ("/calibrate/share-runs/greedy-and-nan", test_greedy_and_nan);
  g_test_add_func ("/calibrate/share-runs/empty-and-one", test_empty_and_one);
  g_test_add_func ("/calibrate/median", test_median);
  g_test_add_func ("/calibrate/node-pieces/clamp", test_node_pieces_clamp);
  return g_test_run ();
}
