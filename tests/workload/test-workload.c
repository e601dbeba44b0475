/* Workload files (wsl/workload-file.c, schemas/workload.xsd): building,
 * parameters and overrides, every statement, and errors that name the file,
 * the line and the expression.
 *
 * System (data/system.xml): cpu-clc LFOR = 1 us, MFDL = 2 us; net-simple
 * with o_s = 2 us, L = 10 us, 100 MB/s, o_r = 3 us, eager up to 16 KiB, so an
 * eager message of 1000 bytes takes 2 + 10 + 10 + 3 = 25 us one way
 * (tests/engine has the closed forms of the engine itself). */
#include <glib.h>
#include <math.h>
#include <string.h>

#include "wsl-private.h"

#define US 1e-6

static char *
data_file (const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "workload", "data", name, NULL);
}

static PtiContext *
context_new (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *system = data_file ("system.xml");
  PtiContext *ctx = pti_context_new (system, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (ctx);
  return ctx;
}

static void
assert_time (double got, double want)
{
  if (!(fabs (got - want) <= 1e-9 * fabs (want) + 1e-15))
    g_error ("time %.12g s, expected %.12g s", got, want);
}

static PtiProcessResult
result (PtiContext *ctx, guint rank)
{
  PtiProcessResult r;
  g_assert_true (pti_result_process (ctx, rank, &r));
  return r;
}

/* Builds @name (with the given -D overrides, NULL-terminated name/value
 * pairs) and evaluates it. */
static PtiContext *
build_file (const char *name, const char *const *overrides)
{
  g_autoptr (GError) error = NULL;
  PtiContext *ctx = context_new ();
  for (; overrides && overrides[0]; overrides += 2)
    {
      g_assert_true (pti_context_override_param (ctx, overrides[0], overrides[1], &error));
      g_assert_no_error (error);
    }
  g_autofree char *path = data_file (name);
  gboolean ok = pti_workload_file_build (ctx, path, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
  ok = pti_evaluate (ctx, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
  return ctx;
}

/* sendrecv, ssend, issend, probe and "null" peers (data/p2p.xml has the
 * derivation). */
static void
test_p2p (void)
{
  g_autoptr (PtiContext) ctx = build_file ("p2p.xml", NULL);
  assert_time (result (ctx, 0).end, 57 * US);
  assert_time (result (ctx, 1).end, 70 * US);
  assert_time (result (ctx, 2).end, 2 * US);
  assert_time (result (ctx, 3).end, 27 * US);
  g_assert_cmpuint (result (ctx, 0).events, ==, 4);   /* irecv, isend, waitall, ssend */
  g_assert_cmpuint (result (ctx, 2).events, ==, 1);   /* the send; null peers make nothing */
  g_assert_cmpuint (result (ctx, 3).events, ==, 3);   /* probe, compute, recv */
}

/* Non-blocking halo exchange (data/nonblocking.xml has the derivation):
 * every rank ends at 28 us, having waited 22 - 8 = 14 us; 7 events each
 * (2 irecv, 2 isend, 1 compute, wait, waitall). */
static void
test_nonblocking (void)
{
  g_autoptr (PtiContext) ctx = build_file ("nonblocking.xml", NULL);
  assert_time (pti_result_time (ctx), 28 * US);
  for (guint r = 0; r < 4; r++)
    {
      PtiProcessResult pr = result (ctx, r);
      g_assert_cmpuint (pr.events, ==, 7);
      assert_time (pr.end, 28 * US);
      assert_time (pr.wait, 14 * US);
      assert_time (pr.compute, 4 * US);
      assert_time (pr.comm, (2 + 2 + 3 + 3) * US);
    }
}

/* A plain loop, analytical repetition and per-iteration partial evaluation
 * predict the same (data/phases.xml), the first two to 1e-9. */
static void
test_repeat_and_evaluate (void)
{
  const char *const plain[] = { "mode", "0", NULL };
  const char *const repeat[] = { "mode", "1", NULL };
  const char *const evaluate[] = { "mode", "2", NULL };
  g_autoptr (PtiContext) a = build_file ("phases.xml", plain);
  g_autoptr (PtiContext) b = build_file ("phases.xml", repeat);
  g_autoptr (PtiContext) c = build_file ("phases.xml", evaluate);
  g_assert_cmpuint (pti_result_events (b), ==, pti_result_events (a));
  g_assert_cmpuint (pti_result_events (c), ==, pti_result_events (a));
  assert_time (pti_result_time (b), pti_result_time (a));
  assert_time (pti_result_time (c), pti_result_time (a));
  for (guint r = 0; r < 4; r++)
    {
      assert_time (result (b, r).end, result (a, r).end);
      assert_time (result (c, r).end, result (a, r).end);
      assert_time (result (b, r).wait, result (a, r).wait);
      assert_time (result (c, r).wait, result (a, r).wait);
    }
  /* Derived only from a state proven periodic: here the ring with unequal
   * work repeats itself every 4 repetitions once the first few have set
   * the ranks' offsets, and the last repetition is evaluated, not derived
   * (its end meets the bcast after the block). */
  guint64 evaluated, extrapolated;
  pti_wsl_repetition_figures (b, &evaluated, &extrapolated);
  g_test_message ("repetitions: %" G_GUINT64_FORMAT " evaluated, %" G_GUINT64_FORMAT
                  " derived", evaluated, extrapolated);
  g_assert_cmpuint (evaluated + extrapolated, ==, 30);
  g_assert_cmpuint (extrapolated, >=, 20);
}

static PtiContext *
build_on (const char *system, const char *name, const char *const *overrides)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *sys = data_file (system);
  PtiContext *ctx = pti_context_new (sys, NULL, &error);
  g_assert_no_error (error);
  for (; overrides && overrides[0]; overrides += 2)
    g_assert_true (pti_context_override_param (ctx, overrides[0], overrides[1], &error));
  g_autofree char *path = data_file (name);
  gboolean ok = pti_workload_file_build (ctx, path, &error) && pti_evaluate (ctx, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
  return ctx;
}

/* Placement attributes of <processes>: see data/placement*.xml. */
static void
test_placement (void)
{
  const char *const spread[] = { "spread", "1", NULL };
  g_autoptr (PtiContext) cyclic = build_on ("smp-system.xml", "placement.xml", NULL);
  g_autoptr (PtiContext) block = build_on ("smp-system.xml", "placement-map.xml", NULL);
  g_autoptr (PtiContext) mapped = build_on ("smp-system.xml", "placement-map.xml", spread);
  assert_time (pti_result_time (cyclic), 25 * US);
  assert_time (pti_result_time (block), 3 * US);
  assert_time (pti_result_time (mapped), 25 * US);
}

/* ---- building ---------------------------------------------------------- */

/* Ping-pong, 3 rounds: rank 0 computes n = 10 iterations of LFOR + MFDL
 * (30 us) and sends; rank 1 receives (25 us later), computes half = 5
 * iterations (15 us) and answers (25 us).  95 us a round, 285 us in all;
 * 3 events per rank per round. */
static void
test_pingpong (void)
{
  g_autoptr (PtiContext) ctx = build_file ("pingpong.xml", NULL);
  g_assert_cmpuint (pti_result_events (ctx), ==, 18);
  assert_time (pti_result_time (ctx), 285 * US);
  PtiProcessResult r0 = result (ctx, 0), r1 = result (ctx, 1);
  g_assert_cmpuint (r0.events, ==, 9);
  g_assert_cmpuint (r1.events, ==, 9);
  assert_time (r0.compute, 3 * 30 * US);
  assert_time (r1.compute, 3 * 15 * US);
  assert_time (r0.end, 285 * US);
  assert_time (r1.end, 2 * 95 * US + 55 * US + 15 * US + 2 * US);
  g_assert_cmpfloat (pti_context_get_param (ctx, "rounds"), ==, 3);
  g_assert_cmpfloat (pti_context_get_param (ctx, "half"), ==, 5);
}

/* The same program written with the C API gives the same events and time. */
static void
test_pingpong_matches_api (void)
{
  g_autoptr (PtiContext) file = build_file ("pingpong.xml", NULL);

  g_autoptr (GError) error = NULL;
  g_autoptr (PtiContext) ctx = context_new ();
  g_assert_true (pti_context_set_processes (ctx, 2, &error));
  g_autoptr (PtiRud) work = pti_rud_new (ctx, "work",
      "<rud device='cpu'><loop iter='len' type='clc' of='LFOR'>"
      "<compute type='clc' of='MFDL'/></loop></rud>", &error);
  g_assert_no_error (error);
  for (guint rank = 0; rank < 2; rank++)
    for (int r = 1; r <= 3; r++)
      {
        if (rank == 0)
          {
            g_assert_true (pti_context_set_param (ctx, "len", 10, &error));
            g_assert_true (pti_use (ctx, 0, work, &error));
            g_assert_true (pti_mpi_send (ctx, 0, 1, 1000, r, &error));
            g_assert_true (pti_mpi_recv (ctx, 0, 1, 1000, r, &error));
          }
        else
          {
            g_assert_true (pti_context_set_param (ctx, "len", 5, &error));
            g_assert_true (pti_mpi_recv (ctx, 1, 0, 1000, r, &error));
            g_assert_true (pti_use (ctx, 1, work, &error));
            g_assert_true (pti_mpi_send (ctx, 1, 0, 1000, r, &error));
          }
      }
  g_assert_true (pti_evaluate (ctx, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (pti_result_events (file), ==, pti_result_events (ctx));
  g_assert_cmpfloat (pti_result_time (file), ==, pti_result_time (ctx));
}

/* -D rounds=5: 5 rounds of 95 us, 30 events.  -D n=2*10 (an expression):
 * 60 + 25 + 30 + 25 = 140 us a round, and the derived half follows. */
static void
test_override (void)
{
  const char *const rounds[] = { "rounds", "5", NULL };
  g_autoptr (PtiContext) a = build_file ("pingpong.xml", rounds);
  g_assert_cmpuint (pti_result_events (a), ==, 30);
  assert_time (pti_result_time (a), 5 * 95 * US);
  g_assert_cmpfloat (pti_context_get_param (a, "rounds"), ==, 5);

  const char *const n[] = { "n", "2*10", NULL };
  g_autoptr (PtiContext) b = build_file ("pingpong.xml", n);
  g_assert_cmpuint (pti_result_events (b), ==, 18);
  assert_time (pti_result_time (b), 3 * 140 * US);
  g_assert_cmpfloat (pti_context_get_param (b, "half"), ==, 10);
  assert_time (result (b, 1).compute, 3 * 30 * US);

  /* messages of 20,000 bytes go by rendezvous and take longer */
  const char *const big[] = { "bytes", "20000", NULL };
  g_autoptr (PtiContext) c = build_file ("pingpong.xml", big);
  g_assert_cmpuint (pti_result_events (c), ==, 18);
  g_assert_cmpfloat (pti_result_time (c), >, 3 * 95 * US + 6 * 190 * US);
}

/* Every statement kind.  Use events: ranks 1..3 one from the count-down
 * loop, every rank one from x == 22: 7 (1 us each).  The collectives are
 * compared with the same collectives made through the API. */
static void
test_statements (void)
{
  g_autoptr (PtiContext) file = build_file ("statements.xml", NULL);
  assert_time (result (file, 0).compute, 1 * US);
  for (guint r = 1; r < 4; r++)
    assert_time (result (file, r).compute, 2 * US);

  g_autoptr (GError) error = NULL;
  g_autoptr (PtiContext) ctx = context_new ();
  g_assert_true (pti_context_set_processes (ctx, 4, &error));
  for (guint r = 0; r < 4; r++)
    {
      g_assert_true (pti_mpi_bcast (ctx, r, 1, 100, &error));
      g_assert_true (pti_mpi_barrier (ctx, r, &error));
      g_assert_true (pti_mpi_allreduce (ctx, r, 8, &error));
    }
  g_assert_true (pti_evaluate (ctx, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (pti_result_events (file), ==, pti_result_events (ctx) + 7);
}

/* ---- Sweep3D ------------------------------------------------------------- */

static char *
source_file (const char *a, const char *b, const char *c)
{
  const char *root = g_getenv ("PTI_SOURCE_ROOT");
  if (root == NULL)
    {
      g_test_skip ("PTI_SOURCE_ROOT is not set");
      return NULL;
    }
  return g_build_filename (root, a, b, c, NULL);
}

/* The example on a 2x2 grid, small: every count the header of sweep3d.xml
 * promises.  Per rank: uses = 1 + iterations * (2 + 8*mmo*(1 + kb));
 * messages: every rank of a 2x2 grid has one E/W and one N/S neighbour and,
 * per block, either receives from or sends to each: 2 point-to-point events
 * per block.  Collectives: as the API makes them. */
static void
test_sweep3d_example (void)
{
  g_autofree char *xml = source_file ("wsl", "examples", "sweep3d.xml");
  if (xml == NULL)
    return;
  g_autofree char *system = source_file ("configs", "pc_cluster.xml", NULL);
  const guint iterations = 2, mmo = 2, kb = 3;   /* mm/mmi = 6/3, ceil(25/10) */
  g_autoptr (GError) error = NULL;
  /* the paper's cluster: it prices every operation code the example uses */
  g_autoptr (PtiContext) ctx = pti_context_new (system, NULL, &error);
  g_assert_no_error (error);
  const char *const d[] = { "npe_i", "2", "npe_j", "2", "it", "5", "jt", "4", "kt", "25",
                            "iterations", "2", NULL };
  for (const char *const *o = d; *o; o += 2)
    g_assert_true (pti_context_override_param (ctx, o[0], o[1], &error));
  gboolean ok = pti_workload_file_build (ctx, xml, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
  g_assert_true (pti_evaluate (ctx, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (pti_result_time (ctx), >, 0);

  g_autoptr (PtiContext) coll = context_new ();
  g_assert_true (pti_context_set_processes (coll, 4, &error));
  for (guint r = 0; r < 4; r++)
    {
      pti_mpi_bcast (coll, r, 0, 4, &error);
      pti_mpi_bcast (coll, r, 0, 16, &error);
      pti_mpi_barrier (coll, r, &error);
      pti_mpi_bcast (coll, r, 0, 64, &error);
      pti_mpi_bcast (coll, r, 0, 32, &error);
      pti_mpi_barrier (coll, r, &error);
      for (guint i = 0; i < iterations; i++)
        {
          pti_mpi_allreduce (coll, r, 4, &error);
          pti_mpi_allreduce (coll, r, 8, &error);
        }
      pti_mpi_barrier (coll, r, &error);
      for (guint i = 0; i < 8; i++)
        pti_mpi_allreduce (coll, r, 8, &error);
    }
  g_assert_no_error (error);
  g_assert_true (pti_evaluate (coll, &error));
  for (guint r = 0; r < 4; r++)
    {
      guint64 uses = 1 + iterations * (2 + 8 * mmo * (1 + kb));
      guint64 p2p = iterations * 8 * mmo * kb * 2;
      g_assert_cmpuint (result (ctx, r).events, ==, uses + p2p + result (coll, r).events);
    }
}

/* ---- errors ------------------------------------------------------------- */

/* Loads and evaluates data/@name (a workload file runs rank by rank as
 * the evaluation asks, so some mistakes appear only then) and checks the
 * error: its message must start with the file's path and a colon and
 * contain each fragment (NULL-terminated). */
static void
expect_error (const char *name, gint code, ...)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (PtiContext) ctx = context_new ();
  g_autofree char *path = data_file (name);
  gboolean ok = pti_workload_file_build (ctx, path, &error) && pti_evaluate (ctx, &error);
  g_assert_false (ok);
  g_assert_error (error, PTI_ERROR, code);
  g_test_message ("%s: %s", name, error->message);
  g_autofree char *prefix = g_strdup_printf ("%s:", path);
  if (!g_str_has_prefix (error->message, prefix))
    g_error ("%s: message does not start with the file: %s", name, error->message);
  va_list ap;
  va_start (ap, code);
  for (const char *frag = va_arg (ap, const char *); frag; frag = va_arg (ap, const char *))
    if (strstr (error->message, frag) == NULL)
      g_error ("%s: message lacks \"%s\": %s", name, frag, error->message);
  va_end (ap);
}

static void
test_error_unbound (void)
{
  /* rank 0 binds east, rank 1 does not */
  expect_error ("err-unbound.xml", PTI_ERROR_INVALID,
                "err-unbound.xml:8: <send to=\"east\">: unbound parameter 'east' in expression 'east' (rank 1)",
                NULL);
}

static void
test_error_expression (void)
{
  expect_error ("err-expr.xml", PTI_ERROR_INVALID,
                "err-expr.xml:5: <let value=\"rank * (\">: in expression 'rank * (': column 9: expected a value",
                NULL);
  expect_error ("err-param-order.xml", PTI_ERROR_INVALID,
                "err-param-order.xml:3: <param value=\"b * 2\">: unbound parameter 'b' in expression 'b * 2'",
                NULL);
  expect_error ("err-nonfinite.xml", PTI_ERROR_INVALID,
                "err-nonfinite.xml:5: <let value=\"1 / rank\">: expression '1 / rank' is not finite (division by zero?) (rank 0)",
                NULL);
}

static void
test_error_rud (void)
{
  expect_error ("err-rud.xml", PTI_ERROR_INVALID,
                "err-rud.xml:12: <use>: unknown rud 'wrok' (defined: more, work)", NULL);
  /* the model's own complaint keeps its line */
  expect_error ("err-rud-content.xml", PTI_ERROR_INVALID, "err-rud-content.xml:4: <rud>: ",
                "err-rud-content.xml:5: <compute>: unknown operation code 'XYZW'", NULL);
  /* a RUD parameter the program never binds, named when the RUD is used */
  expect_error ("err-rud-param.xml", PTI_ERROR_INVALID, "err-rud-param.xml:8: <use>: ",
                "rank 0", "len", NULL);
}

/* A RUD given as text names its first mistake: the paper's CPU RUD as
 * printed, with typographic quotes, fails on line 2 at the first quote
 * (libxml2's last error is "Extra content at the end of the document"). */
static void
test_error_rud_text (void)
{
  static const char paper_rud[] =
    "<!-- RUD for CPU model -->\n"
    "<rud device=\u201dCPU\u201d>\n"
    "\n"
    "<loop iter=\u201dMY_SIZE\u201d type=\u201dclc\u201d\n"
    "\n"
    "   of=\u201dLFOR,CMLL,INLL\u201d>\n"
    "\n"
    "   <compute type=\u201dclc\u201d of=\u201d2*CMLL,ANDL\u201d>\n"
    "\n"
    "   <case type=\u201dclc\u201d of=\u201dIFBR\u201d>\n"
    "\n"
    "   <branch exprob=\u201d0.9\u201d>\n"
    "\n"
    "     <compute type=\u201dclc\u201d of=\u201dARF1,\\\n"
    "\n"
    "        3*ARF2,DFSL,2*TFSL,MFSL,AFSL\u201d>\n"
    "\n"
    "   </branch>\n"
    "\n"
    "   </case>\n"
    "\n"
    "</loop>\n"
    "\n"
    "</rud>\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (PtiContext) ctx = context_new ();
  g_autoptr (PtiRud) rud = pti_rud_new (ctx, "adi", paper_rud, &error);
  g_assert_null (rud);
  g_assert_error (error, PTI_ERROR, PTI_ERROR_INVALID);
  g_assert_cmpstr (error->message, ==,
                   "rud:adi:2: malformed XML: AttValue: \" or ' expected");
}

static void
test_error_schema (void)
{
  expect_error ("err-schema.xml", PTI_ERROR_INVALID,
                "err-schema.xml:6: does not follow workload.xsd", "too", NULL);
  expect_error ("err-malformed.xml", PTI_ERROR_INVALID, "malformed XML", NULL);
  expect_error ("err-doctype.xml", PTI_ERROR_INVALID, "DOCTYPE", NULL);
}

static void
test_error_rank (void)
{
  expect_error ("err-range.xml", PTI_ERROR_INVALID,
                "err-range.xml:6: <send>: ", "rank 2 out of range (2 processes: ranks 0 to 1)",
                NULL);
  expect_error ("err-negative-rank.xml", PTI_ERROR_INVALID,
                "err-negative-rank.xml:5: <recv from=\"rank - 1\">: source -1 is not a rank "
                "(2 processes: ranks 0 to 1) (rank 0)", NULL);
  expect_error ("err-tag.xml", PTI_ERROR_INVALID,
                "err-tag.xml:5: <send tag=\"-5\">: a tag must be a whole number from 0 to 2147483647, not -5",
                NULL);
  expect_error ("err-bytes.xml", PTI_ERROR_INVALID,
                "err-bytes.xml:5: <bcast bytes=\"10 / 4\">: a message length must be a whole number",
                "not 2.5", NULL);
  expect_error ("err-processes.xml", PTI_ERROR_INVALID,
                "err-processes.xml:4: <processes count=\"n\">: the number of processes must be a "
                "whole number of at least 1, not 0", NULL);
}

static void
test_error_loop (void)
{
  expect_error ("err-loop-trips.xml", PTI_ERROR_INVALID,
                "err-loop-trips.xml:5: <for>: a loop from 0 to 1000000000000000 step 1 would run "
                "1000000000000001 times", NULL);
  expect_error ("err-loop-bound.xml", PTI_ERROR_INVALID,
                "err-loop-bound.xml:6: <for to=\"n / 2\">: a loop bound must be a whole number",
                "not 2.5", NULL);
  expect_error ("err-loop-step.xml", PTI_ERROR_INVALID,
                "err-loop-step.xml:5: <for step=\"0\">: the loop step must not be 0", NULL);
}

static void
test_error_assign_param (void)
{
  expect_error ("err-assign-param.xml", PTI_ERROR_INVALID,
                "err-assign-param.xml:6: <let>: 'n' is a parameter or derived value", NULL);
}

static void
test_error_missing_file (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (PtiContext) ctx = context_new ();
  g_assert_false (pti_workload_file_build (ctx, "no-such-workload.xml", &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "no-such-workload.xml"));
}

/* Phases and assertions (data/assertions.xml has the derivation). */
static void
test_assertions (void)
{
  g_autoptr (PtiContext) ctx = context_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *path = data_file ("assertions.xml");
  g_assert_true (pti_workload_file_build (ctx, path, &error));
  g_assert_no_error (error);
  g_assert_true (isnan (pti_result_efficiency (ctx)));   /* not evaluated yet */
  g_assert_true (pti_evaluate (ctx, &error));   /* a failed assertion is not an error */
  g_assert_no_error (error);
  assert_time (pti_result_time (ctx), 180 * US);
  /* 2 ranks compute 60 us in all during 180 us: what the assertion reads */
  g_assert_cmpfloat_with_epsilon (pti_result_efficiency (ctx), 60.0 / 360.0, 1e-12);

  g_assert_cmpuint (pti_result_n_phases (ctx), ==, 2);
  g_assert_cmpstr (pti_result_phase_name (ctx, 0), ==, "setup");
  g_assert_cmpstr (pti_result_phase_name (ctx, 1), ==, "exchange");
  PtiPhaseResult p;
  g_assert_true (pti_result_phase (ctx, 0, 1, &p));
  assert_time (p.time, 30 * US);
  assert_time (p.compute, 30 * US);
  g_assert_cmpuint (p.messages, ==, 0);
  g_assert_true (pti_result_phase (ctx, 1, 0, &p));
  assert_time (p.time, 150 * US);
  assert_time (p.comm, 15 * US);
  assert_time (p.wait, 135 * US);
  g_assert_cmpuint (p.messages, ==, 3);
  g_assert_cmpuint (p.bytes, ==, 3000);
  g_assert_cmpuint (p.entries, ==, 1);
  g_assert_true (pti_result_phase (ctx, 1, 1, &p));
  assert_time (p.time, 127 * US);
  assert_time (p.wait, 112 * US);
  g_assert_false (pti_result_phase (ctx, 2, 0, &p));
  g_assert_false (pti_result_phase (ctx, 0, 2, &p));

  static const struct { const char *name; gboolean passed; const char *first; double value; }
  want[] = {
    { "fast_enough", TRUE, "time", 180 * US },
    { "exchange_bound", TRUE, "exchange_time", 150 * US },
    { "efficient", FALSE, "efficiency", 60.0 / 360.0 },
    { "comm_share", TRUE, "comm_sum", 30 * US },
    { "traffic", TRUE, "exchange_messages", 6 },
  };
  g_assert_cmpuint (pti_result_n_assertions (ctx), ==, G_N_ELEMENTS (want));
  g_assert_cmpuint (pti_result_assertions_failed (ctx), ==, 1);
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    {
      PtiAssertionResult a;
      g_assert_true (pti_result_assertion (ctx, i, &a));
      g_assert_cmpstr (a.name, ==, want[i].name);
      g_assert_cmpint (a.passed, ==, want[i].passed);
      g_assert_cmpstr (a.value_names[0], ==, want[i].first);
      assert_time (a.values[0], want[i].value);
      g_assert_true (g_str_has_suffix (a.origin, "assertions.xml:37") == (i == 0));
    }
  PtiAssertionResult traffic;
  g_assert_true (pti_result_assertion (ctx, 4, &traffic));
  g_assert_cmpuint (traffic.n_values, ==, 4);
  g_assert_cmpstr (traffic.value_names[3], ==, "size");   /* a parameter */
  g_assert_cmpfloat (traffic.values[3], ==, 1000);
  g_assert_false (pti_result_assertion (ctx, 5, &traffic));
}

/* No work, no time: efficiency is 0/0, NaN, and the assertion on it fails
 * rather than reading a made-up 0 that `efficiency < 0.5` would pass. */
static void
test_assertions_zero_time (void)
{
  static const char *const none[] = { "n", "0", "rounds", "0", NULL };
  g_autoptr (PtiContext) ctx = build_file ("assertions.xml", none);
  g_assert_cmpfloat (pti_result_time (ctx), ==, 0);
  g_assert_true (isnan (pti_result_efficiency (ctx)));
  PtiAssertionResult a;
  g_assert_true (pti_result_assertion (ctx, 2, &a));
  g_assert_cmpstr (a.name, ==, "efficient");
  g_assert_false (a.passed);
  g_assert_true (isnan (a.values[0]));
}

/* A phase inside <repeat>, its repetitions derived, has the figures of the
 * same phase in a <for>: 40 entries, 40 x 50 us (data/assertions-repeat.xml). */
static void
test_assertions_repeat (void)
{
  static const char *const plain[] = { "mode", "0", NULL };
  static const char *const repeat[] = { "mode", "1", NULL };
  g_autoptr (PtiContext) a = build_file ("assertions-repeat.xml", plain);
  g_autoptr (PtiContext) b = build_file ("assertions-repeat.xml", repeat);
  guint64 evaluated, derived;
  pti_wsl_repetition_figures (b, &evaluated, &derived);
  g_assert_cmpuint (derived, >, 0);
  for (guint r = 0; r < 2; r++)
    {
      PtiPhaseResult pa, pb;
      g_assert_true (pti_result_phase (a, 0, r, &pa));
      g_assert_true (pti_result_phase (b, 0, r, &pb));
      g_assert_cmpuint (pa.entries, ==, 40);
      g_assert_cmpuint (pb.entries, ==, 40);
      g_assert_cmpuint (pb.messages, ==, 40);
      g_assert_cmpuint (pb.bytes, ==, 40000);
      assert_time (pb.time, pa.time);
      assert_time (pb.wait, pa.wait);
      assert_time (pb.comm, pa.comm);
    }
  PtiPhaseResult p;
  g_assert_true (pti_result_phase (b, 0, 0, &p));
  assert_time (p.time, 40 * 50 * US);
  g_assert_cmpuint (pti_result_assertions_failed (a), ==, 0);
  g_assert_cmpuint (pti_result_assertions_failed (b), ==, 0);
}

/* A two-rank context on data/system.xml with a phase "solve" on both ranks
 * (rank 0 computes 30 us in it) and a parameter `size`. */
static PtiContext *
phased_context (void)
{
  g_autoptr (GError) error = NULL;
  PtiContext *ctx = context_new ();
  g_assert_true (pti_context_set_processes (ctx, 2, &error));
  g_assert_true (pti_context_declare_param (ctx, "size", 8, &error));
  g_assert_no_error (error);
  g_autoptr (PtiRud) rud = pti_rud_new (ctx, "work",
      "<rud device=\"cpu\"><loop iter=\"10\" type=\"clc\" of=\"LFOR\">"
      "<compute type=\"clc\" of=\"MFDL\"/></loop></rud>", &error);
  g_assert_no_error (error);
  for (guint r = 0; r < 2; r++)
    {
      g_assert_true (pti_phase_begin (ctx, r, "solve", &error));
      if (r == 0)
        g_assert_true (pti_use (ctx, r, rud, &error));
      g_assert_true (pti_phase_end (ctx, r, "solve", &error));
      g_assert_no_error (error);
    }
  return ctx;
}

/* Evaluates @ctx with one assertion, expecting the evaluation to fail with
 * a message containing each of @parts. */
static void
assert_check_fails (const char *test, const char *const *parts)
{
  g_autoptr (PtiContext) ctx = phased_context ();
  g_autoptr (GError) error = NULL;
  g_assert_true (pti_assert (ctx, "the-check", test, &error));
  g_assert_no_error (error);
  g_assert_false (pti_evaluate (ctx, &error));
  g_assert_error (error, PTI_ERROR, PTI_ERROR_INVALID);
  for (; *parts; parts++)
    if (strstr (error->message, *parts) == NULL)
      g_error ("'%s' not in: %s", *parts, error->message);
}

static void
test_assertions_errors (void)
{
  /* Names resolve after the evaluation: typos, ambiguity, ranks. */
  assert_check_fails ("solve_tiem < 1", (const char *const[]) {
      "assertion 'the-check'", "unknown name 'solve_tiem'", "(solve)", NULL });
  assert_check_fails ("wait_rank2 < 1", (const char *const[]) {
      "'wait_rank2' names rank 2, but there are 2 ranks", NULL });
  {
    g_autoptr (PtiContext) ctx = phased_context ();
    g_autoptr (GError) error = NULL;
    pti_context_set_param (ctx, "messages", 3, NULL);
    g_assert_true (pti_assert (ctx, "m", "messages > 0", &error));
    g_assert_false (pti_evaluate (ctx, &error));
    g_assert_nonnull (strstr (error->message, "'messages' is ambiguous: it could be a metric of "
                                              "the whole run and a parameter"));
  }
  /* Checked when stated: syntax, names, duplicates, lateness. */
  g_autoptr (PtiContext) ctx = phased_context ();
  g_autoptr (GError) error = NULL;
  g_assert_false (pti_assert (ctx, "bad", "solve_time <", &error));
  g_assert_nonnull (strstr (error->message, "assertion 'bad'"));
  g_clear_error (&error);
  g_assert_false (pti_assert (ctx, "a,b", "1", &error));
  g_clear_error (&error);
  g_assert_false (pti_assert (ctx, "", "1", &error));
  g_clear_error (&error);
  g_assert_true (pti_assert (ctx, "ok", "abs (solve_compute_rank0 - 30e-6 * size / 8) < 1e-12 "
                                        "&& solve_ranks == 2 && solve_compute_min == 0", &error));
  g_assert_false (pti_assert (ctx, "ok", "1", &error));
  g_assert_nonnull (strstr (error->message, "stated twice"));
  g_clear_error (&error);
  g_assert_true (pti_evaluate (ctx, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (pti_result_assertions_failed (ctx), ==, 0);
  g_assert_false (pti_assert (ctx, "late", "1", &error));
  g_clear_error (&error);
}

static void
test_phase_errors (void)
{
  g_autoptr (PtiContext) ctx = context_new ();
  g_autoptr (GError) error = NULL;
  g_assert_true (pti_context_set_processes (ctx, 2, &error));
  g_assert_false (pti_phase_begin (ctx, 0, "not an identifier", &error));
  g_assert_nonnull (strstr (error->message, "not an identifier"));
  g_clear_error (&error);
  g_assert_false (pti_phase_begin (ctx, 5, "p", &error));
  g_clear_error (&error);
  g_assert_false (pti_phase_end (ctx, 0, "never", &error));
  g_clear_error (&error);
  g_assert_true (pti_phase_begin (ctx, 0, "outer", &error));
  g_assert_true (pti_phase_begin (ctx, 0, "inner", &error));
  g_assert_false (pti_phase_end (ctx, 0, "outer", &error));
  g_assert_nonnull (strstr (error->message, "rank 0: the end of phase 'outer' inside phase "
                                            "'inner'"));
  g_clear_error (&error);
  g_assert_true (pti_phase_end (ctx, 0, "inner", &error));
  /* "outer" stays open: the evaluation names it. */
  g_assert_false (pti_evaluate (ctx, &error));
  g_assert_nonnull (strstr (error->message, "rank 0: phase 'outer' is begun and never ended"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/workload/p2p", test_p2p);
  g_test_add_func ("/workload/pingpong", test_pingpong);
  g_test_add_func ("/workload/pingpong-matches-api", test_pingpong_matches_api);
  g_test_add_func ("/workload/override", test_override);
  g_test_add_func ("/workload/statements", test_statements);
  g_test_add_func ("/workload/nonblocking", test_nonblocking);
  g_test_add_func ("/workload/repeat-and-evaluate", test_repeat_and_evaluate);
  g_test_add_func ("/workload/placement", test_placement);
  g_test_add_func ("/workload/sweep3d-example", test_sweep3d_example);
  g_test_add_func ("/workload/assertions", test_assertions);
  g_test_add_func ("/workload/assertions-zero-time", test_assertions_zero_time);
  g_test_add_func ("/workload/assertions-repeat", test_assertions_repeat);
  g_test_add_func ("/workload/error/assertions", test_assertions_errors);
  g_test_add_func ("/workload/error/phases", test_phase_errors);
  g_test_add_func ("/workload/error/unbound", test_error_unbound);
  g_test_add_func ("/workload/error/expression", test_error_expression);
  g_test_add_func ("/workload/error/rud", test_error_rud);
  g_test_add_func ("/workload/error/rud-text", test_error_rud_text);
  g_test_add_func ("/workload/error/schema", test_error_schema);
  g_test_add_func ("/workload/error/rank", test_error_rank);
  g_test_add_func ("/workload/error/loop", test_error_loop);
  g_test_add_func ("/workload/error/assign-param", test_error_assign_param);
  g_test_add_func ("/workload/error/missing-file", test_error_missing_file);
  return g_test_run ();
}
