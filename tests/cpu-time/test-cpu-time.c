/* Computations given as a measured time or as flops, priced by cpu-time
 * (models/cpu-time/README.md) and by cpu-clc's optional speed_ratio and
 * flop_rate, against closed forms:
 *
 *   time burst t (measured elsewhere):  t / speed_ratio
 *   f flops:                            f / flop_rate
 *
 * and every way of getting it wrong: a model that cannot price the kind it
 * is given, a negative or non-finite amount, a RUD on cpu-time. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "wsl-private.h"

#define assert_time(actual, expected) \
  g_assert_cmpfloat_with_epsilon ((actual), (expected), 1e-15 + 1e-12 * fabs ((double) (expected)))

static char *tmpdir;

static char *
write_file (const char *name, const char *text)
{
  char *path = g_build_filename (tmpdir, name, NULL);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  return path;
}

/* Two computers of 2 nodes each: "fast" with @fast_cpu, "slow" with
 * @slow_cpu, on a net-simple network (L = 10 us, 100 MB/s, no overheads). */
static PtiContext *
context (const char *fast_cpu, const char *slow_cpu, guint procs)
{
  g_autofree char *xml = g_strdup_printf (
    "<system name='t'>\n"
    "  <computer name='fast' count='2'>%s</computer>\n"
    "  <computer name='slow' count='2'>%s</computer>\n"
    "  <network name='net'><net_simple><latency unit='us'>10</latency>"
    "<bandwidth unit='MB/s'>100</bandwidth></net_simple></network>\n"
    "  <connect computer='fast' nodes='1-2' network='net' ports='1-2'/>\n"
    "  <connect computer='slow' nodes='1-2' network='net' ports='3-4'/>\n"
    "</system>\n", fast_cpu, slow_cpu);
  g_autofree char *path = write_file ("system.xml", xml);
  g_autoptr (GError) error = NULL;
  PtiContext *ctx = pti_context_new (path, NULL, &error);
  g_assert_no_error (error);
  if (procs > 0)   /* 0: a workload file sets them */
    g_assert_true (pti_context_set_processes (ctx, procs, &error));
  return ctx;
}

#define CPU_TIME "<cpu_time><speed_ratio>4</speed_ratio>" \
                 "<flop_rate unit='GFlop/s'>2</flop_rate></cpu_time>"
#define CPU_TIME_FLOPS "<cpu_time><flop_rate unit='MFlop/s'>500</flop_rate></cpu_time>"
#define CPU_TIME_RATIO "<cpu_time><speed_ratio>0.5</speed_ratio></cpu_time>"
#define CLC "<cpu_clc unit='ns'><AFDL>1</AFDL><MFDL>2</MFDL></cpu_clc>"
#define CLC_BOTH "<cpu_clc unit='ns'><speed_ratio>2</speed_ratio>" \
                 "<flop_rate unit='GFlop/s'>1</flop_rate><AFDL>1</AFDL></cpu_clc>"

static double
end_of (PtiContext *ctx, guint rank)
{
  PtiProcessResult r;
  g_assert_true (pti_result_process (ctx, rank, &r));
  return r.end;
}

static void
evaluate (PtiContext *ctx)
{
  g_autoptr (GError) error = NULL;
  g_assert_true (pti_evaluate (ctx, &error));
  g_assert_no_error (error);
}

/* Rank 0 on "fast" (ratio 4, 2 GFlop/s), rank 2 on "slow" (500 MFlop/s,
 * or ratio 0.5): each price is one division. */
static void
test_closed_forms (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (PtiContext) ctx = context (CPU_TIME, CPU_TIME_FLOPS, 4);
  g_assert_true (pti_use_time (ctx, 0, 1.0, &error));          /* 1 / 4 = 0.25 s */
  g_assert_true (pti_use_flops (ctx, 0, 3e9, &error));         /* 3e9 / 2e9 = 1.5 s */
  g_assert_true (pti_use_time (ctx, 1, 0.0, &error));          /* 0 */
  g_assert_true (pti_use_flops (ctx, 2, 1e6, &error));         /* 1e6 / 5e8 = 2 ms */
  g_assert_true (pti_use_flops (ctx, 3, 0.0, &error));
  g_assert_no_error (error);
  evaluate (ctx);
  assert_time (end_of (ctx, 0), 1.75);
  assert_time (end_of (ctx, 1), 0);
  assert_time (end_of (ctx, 2), 2e-3);
  assert_time (pti_result_time (ctx), 1.75);
  PtiProcessResult r;
  g_assert_true (pti_result_process (ctx, 0, &r));
  assert_time (r.compute, 1.75);
  g_assert_cmpuint (r.events, ==, 2);
}

/* cpu-clc with speed_ratio and flop_rate prices bursts too, and RUDs as
 * before on the same computer. */
static void
test_clc (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (PtiContext) ctx = context (CLC_BOTH, CPU_TIME_RATIO, 4);
  g_autoptr (PtiRud) rud = pti_rud_new (ctx, "add", "<rud device='cpu'>"
                                        "<compute type='clc' of='1000*AFDL'/></rud>", &error);
  g_assert_no_error (error);
  g_assert_true (pti_use_time (ctx, 0, 1e-3, &error));         /* 0.5 ms */
  g_assert_true (pti_use_flops (ctx, 0, 2e6, &error));         /* 2 ms */
  g_assert_true (pti_use (ctx, 0, rud, &error));               /* 1 us */
  g_assert_true (pti_use_time (ctx, 2, 1e-3, &error));         /* ratio 0.5: 2 ms */
  g_assert_no_error (error);
  /* The RUD compiled for cpu-clc only: on cpu-time it is refused. */
  g_assert_false (pti_use (ctx, 2, rud, &error));
  g_assert_error (error, PTI_ERROR, PTI_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "rank 2, RUD 'add': the CPU model of computer slow, "
                                            "cpu-time, prices computations given as a time or as "
                                            "flops only"));
  g_assert_nonnull (strstr (error->message, "<cpu_clc>"));
  g_clear_error (&error);
  evaluate (ctx);
  assert_time (end_of (ctx, 0), 0.5e-3 + 2e-3 + 1e-6);
  assert_time (end_of (ctx, 2), 2e-3);
}

static void
assert_message (const GError *error, const char *needle)
{
  g_assert_nonnull (error);
  if (strstr (error->message, needle) == NULL)
    g_error ("message: %s\nlacks: %s", error->message, needle);
}

/* Each model names what its configuration lacks. */
static void
test_refused (void)
{
  g_autoptr (PtiContext) ctx = context (CLC, CPU_TIME_FLOPS, 4);
  GError *error = NULL;
  g_assert_false (pti_use_time (ctx, 0, 1, &error));
  g_assert_error (error, PTI_ERROR, PTI_ERROR_INVALID);
  assert_message (error, "use_time on rank 0 (computer fast, model cpu-clc): cpu-clc prices "
                         "operation counts, not a measured time: add <speed_ratio>");
  g_clear_error (&error);
  g_assert_false (pti_use_flops (ctx, 1, 1, &error));
  assert_message (error, "not flops: add <flop_rate unit=\"GFlop/s\"> to its <cpu_clc>");
  g_clear_error (&error);
  g_assert_false (pti_use_time (ctx, 2, 1, &error));
  assert_message (error, "use_time on rank 2 (computer slow, model cpu-time): its <cpu_time> has "
                         "no <speed_ratio>");
  g_clear_error (&error);
  g_assert_true (pti_use_flops (ctx, 2, 1, &error));

  /* Amounts that are not a time or a count. */
  const double bad[] = { -1, NAN, INFINITY };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    g_assert_false (pti_use_flops (ctx, 2, bad[i], &error));
    assert_message (error, "is not a number of floating-point operations (a finite number >= 0)");
    g_clear_error (&error);
    g_assert_false (pti_use_time (ctx, 3, bad[i], &error));
    assert_message (error, "is not a time in seconds");
    g_clear_error (&error);
  }
  g_assert_false (pti_use_time (ctx, 4, 1, &error));
  assert_message (error, "use_time: rank 4 out of range");
  g_clear_error (&error);
}

/* A system whose every CPU model is cpu-time has nothing to compile a RUD
 * with; a reduction's arithmetic is then one flop per element. */
static void
test_no_ruds (void)
{
  g_autoptr (PtiContext) ctx = context (CPU_TIME, CPU_TIME_FLOPS, 2);
  g_autoptr (GError) error = NULL;
  g_autoptr (PtiRud) rud = pti_rud_new (ctx, "x", "<rud device='cpu'>"
                                        "<compute type='clc' of='AFDL'/></rud>", &error);
  g_assert_null (rud);
  assert_message (error, "has no CPU model to price a cpu RUD (its CPU models price computations "
                         "given as a time or as flops only");
  g_clear_error (&error);
  /* Allreduce of 8000 bytes on 2 ranks (Rabenseifner, as MPICH for more
   * than 2048 bytes): the halves swapped, L + 4000 B / B = 50 us, 500
   * doubles combined = 500 flops at 2 GFlop/s = 0.25 us, the halves swapped
   * back, 50 us. */
  for (guint r = 0; r < 2; r++)
    g_assert_true (pti_mpi_allreduce (ctx, r, 8000, &error));
  g_assert_no_error (error);
  evaluate (ctx);
  assert_time (pti_result_time (ctx), 100e-6 + 0.25e-6);
}

/* A reduction on a cpu-time computer without a flop rate is refused. */
static void
test_no_flop_rate (void)
{
  g_autoptr (PtiContext) ctx = context (CPU_TIME_RATIO, CPU_TIME_RATIO, 2);
  GError *error = NULL;
  g_assert_true (pti_mpi_allreduce (ctx, 0, 16, &error) || error != NULL);
  if (error == NULL)
    g_assert_false (pti_mpi_allreduce (ctx, 1, 16, &error));
  assert_message (error, "the reduction's arithmetic (2 doubles, one flop each)");
  assert_message (error, "has no <flop_rate>");
  g_clear_error (&error);
}

/* The workload-file elements. */
static void
test_workload_file (void)
{
  g_autoptr (PtiContext) ctx = context (CPU_TIME, CPU_TIME_FLOPS, 0);
  g_autofree char *path = write_file ("w.xml",
    "<workload name='bursts'>\n"
    "  <param name='t' value='0.5'/>\n"
    "  <processes count='2'/>\n"
    "  <program>\n"
    "    <use_time seconds='t * (rank + 1)'/>\n"
    "    <use_flops flops='1e9'/>\n"
    "  </program>\n"
    "</workload>\n");
  g_autoptr (GError) error = NULL;
  g_assert_true (pti_workload_file_build (ctx, path, &error));
  g_assert_no_error (error);
  evaluate (ctx);
  assert_time (end_of (ctx, 0), 0.125 + 0.5);
  assert_time (end_of (ctx, 1), 0.25 + 0.5);

  g_autoptr (PtiContext) ctx2 = context (CPU_TIME, CPU_TIME_FLOPS, 0);
  g_autofree char *bad = write_file ("bad.xml",
    "<workload name='bad'>\n"
    "  <processes count='2'/>\n"
    "  <program>\n"
    "    <use_time seconds='0 - rank'/>\n"
    "  </program>\n"
    "</workload>\n");
  /* a workload file is a pull source: its uses are made as it is evaluated */
  g_assert_true (pti_workload_file_build (ctx2, bad, &error));
  g_assert_no_error (error);
  g_assert_false (pti_evaluate (ctx2, &error));
  assert_message (error, "bad.xml:4: <use_time>: use_time on rank 1: -1 is not a time in seconds");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_autoptr (GError) error = NULL;
  tmpdir = g_dir_make_tmp ("pti-cpu-time-XXXXXX", &error);
  g_assert_no_error (error);
  g_test_add_func ("/cpu-time/closed-forms", test_closed_forms);
  g_test_add_func ("/cpu-time/cpu-clc", test_clc);
  g_test_add_func ("/cpu-time/refused", test_refused);
  g_test_add_func ("/cpu-time/no-ruds", test_no_ruds);
  g_test_add_func ("/cpu-time/no-flop-rate", test_no_flop_rate);
  g_test_add_func ("/cpu-time/workload-file", test_workload_file);
  int rc = g_test_run ();
  g_autoptr (GDir) dir = g_dir_open (tmpdir, 0, NULL);
  for (const char *name; dir && (name = g_dir_read_name (dir)) != NULL;) {
    g_autofree char *p = g_build_filename (tmpdir, name, NULL);
    g_unlink (p);
  }
  g_rmdir (tmpdir);
  g_free (tmpdir);
  return rc;
}
