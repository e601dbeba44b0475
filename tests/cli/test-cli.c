/* ptieval and sweep3d end to end: the programs are spawned the way a user runs
 * them (environment of tests/meson.build: $PTIEVAL, $SWEEP3D,
 * $PTI_SCHEMA_DIR, $PTI_SOURCE_ROOT), and every case checks the exit status
 * (0 ok, 2 usage, 3 invalid input, 1 other) and the message on stderr, which
 * must name the culprit: file and line, element, expression, rank.
 *
 * Bad inputs run with data/ as the working directory and relative file
 * names, so messages are checked exactly as a user sees them.  Sweep3D runs
 * in the source root on configs/pc_cluster.xml and wsl/examples/sweep3d.xml.
 *
 * Assertions are non-fatal: one wrong message does not hide the others.
 * Under a sanitizer build any AddressSanitizer, LeakSanitizer or UBSan
 * report of a child fails the case. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

enum { EXIT_OK = 0, EXIT_OTHER = 1, EXIT_USAGE = 2, EXIT_INVALID = 3 };

/* Small parameters for Sweep3D (4 ranks, 876 events). */
static const char *const SMALL[] = { "-D", "iterations=1", "-D", "npe_i=2", "-D", "npe_j=2",
                                     "-D", "kt=20", NULL };
/* An asymmetric grid: 3 x 2 ranks, two k-blocks of different sizes (10 + 5). */
static const char *const ASYMMETRIC[] = { "-D", "iterations=2", "-D", "npe_i=3", "-D", "npe_j=2",
                                          "-D", "kt=15", "-D", "it=7", "-D", "jt=5", NULL };
/* A column of ranks (no E/W neighbours), one angle block of 6 angles, three
 * k-blocks of 7, 7 and 6 planes. */
static const char *const COLUMN[] = { "-D", "iterations=1", "-D", "npe_i=1", "-D", "npe_j=3",
                                      "-D", "kt=20", "-D", "mk=7", "-D", "mmi=6", NULL };

static const char *ptieval, *sweep3d, *source_root, *schema_dir;
static char *data_dir;

/* ---- failing without stopping ------------------------------------------ */

/* Fails the current case with a message that may span lines: every line goes
 * to the log as a TAP comment, the first one is the case's failure reason. */
G_GNUC_PRINTF (1, 2) static void
failf (const char *format, ...)
{
  va_list ap;
  va_start (ap, format);
  g_autofree char *msg = g_strchomp (g_strdup_vprintf (format, ap));
  va_end (ap);
  g_auto (GStrv) lines = g_strsplit (msg, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    g_test_message ("%s%s", i ? "    " : "", lines[i]);
  g_test_fail_printf ("%s", lines[0]);
}

/* ---- running a program ------------------------------------------------- */

typedef struct {
  int status;      /* exit status; 128 + signal if killed */
  char *out, *err;
  double seconds;  /* wall time of the child */
  char *command;   /* for messages */
} Run;

static void
run_free (Run *r)
{
  g_free (r->out);
  g_free (r->err);
  g_free (r->command);
  g_free (r);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (Run, run_free)

/* Runs @program in @cwd with the arguments of @pre (may be NULL), then the
 * NULL-terminated variable arguments. */
static Run *
run_v (const char *cwd, const char *program, const char *const *pre, va_list ap)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_ptr_array_add (argv, (gpointer) program);
  for (; pre && *pre; pre++)
    g_ptr_array_add (argv, (gpointer) *pre);
  for (const char *a = va_arg (ap, const char *); a != NULL; a = va_arg (ap, const char *))
    g_ptr_array_add (argv, (gpointer) a);
  g_ptr_array_add (argv, NULL);

  Run *r = g_new0 (Run, 1);
  g_autofree char *base = g_path_get_basename (program);
  g_autofree char *args = g_strjoinv (" ", (char **) argv->pdata + 1);
  r->command = g_strdup_printf ("(cd %s && %s %s)", cwd, base, args);
  g_autoptr (GError) error = NULL;
  int wait_status = 0;
  gint64 t0 = g_get_monotonic_time ();
  gboolean ok = g_spawn_sync (cwd, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                              &r->out, &r->err, &wait_status, &error);
  r->seconds = (g_get_monotonic_time () - t0) / 1e6;
  g_assert_no_error (error);
  g_assert_true (ok);
  if (WIFEXITED (wait_status))
    r->status = WEXITSTATUS (wait_status);
  else if (WIFSIGNALED (wait_status))
    r->status = 128 + WTERMSIG (wait_status);
  else
    r->status = -1;
  if (r->out == NULL)
    r->out = g_strdup ("");
  if (r->err == NULL)
    r->err = g_strdup ("");
  if (strstr (r->err, "AddressSanitizer") || strstr (r->err, "LeakSanitizer")
      || strstr (r->err, "runtime error:"))
    failf ("%s: sanitizer report:\n%s", r->command, r->err);
  return r;
}

static Run *
run_in (const char *cwd, const char *program, ...)
{
  va_list ap;
  va_start (ap, program);
  Run *r = run_v (cwd, program, NULL, ap);
  va_end (ap);
  return r;
}

/* ptieval in data/. */
static Run *
ptieval_data (const char *first, ...)
{
  const char *pre[] = { first, NULL };
  va_list ap;
  va_start (ap, first);
  Run *r = run_v (data_dir, ptieval, first ? pre : NULL, ap);
  va_end (ap);
  return r;
}

/* @program in the source root with the -D options @params, then the rest. */
static Run *
run_sweep (const char *program, const char *const *params, ...)
{
  va_list ap;
  va_start (ap, params);
  Run *r = run_v (source_root, program, params, ap);
  va_end (ap);
  return r;
}

/* Checks the exit status, and that stderr holds every one of the
 * NULL-terminated substrings. */
static void
expect (const Run *r, int status, ...)
{
  if (r->status != status)
    failf ("%s: exit status %d, expected %d\nstderr:\n%s", r->command, r->status,
                        status, r->err);
  va_list ap;
  va_start (ap, status);
  for (const char *s = va_arg (ap, const char *); s != NULL; s = va_arg (ap, const char *))
    if (strstr (r->err, s) == NULL)
      failf ("%s: stderr lacks \"%s\"\nstderr:\n%s", r->command, s, r->err);
  va_end (ap);
}

static void
expect_lacks (const Run *r, const char *s)
{
  if (strstr (r->err, s) != NULL || strstr (r->out, s) != NULL)
    failf ("%s: output contains \"%s\":\nstdout:\n%s\nstderr:\n%s", r->command, s,
                        r->out, r->err);
}

/* ---- a tiny JSON reader ------------------------------------------------ */

/* The number after "key": in the top-level object of --json (the part
 * before "per_process", which repeats some keys); NAN if absent. */
static double
json_number (const char *json, const char *key)
{
  g_autofree char *top = g_strdup (json);
  char *pp = strstr (top, "\"per_process\"");
  if (pp != NULL)
    *pp = '\0';
  g_autofree char *quoted = g_regex_escape_string (key, -1);
  g_autofree char *pattern = g_strdup_printf (
    "[{,]\\s*\"%s\"\\s*:\\s*(-?[0-9]+(\\.[0-9]+)?([eE][-+]?[0-9]+)?)\\s*[,}]", quoted);
  g_autoptr (GRegex) re = g_regex_new (pattern, 0, 0, NULL);
  g_autoptr (GMatchInfo) m = NULL;
  if (!g_regex_match (re, top, 0, &m))
    return NAN;
  g_autofree char *num = g_match_info_fetch (m, 1);
  return g_ascii_strtod (num, NULL);
}

/* The count of "key": occurrences inside per_process. */
static guint
json_count (const char *json, const char *key)
{
  const char *pp = strstr (json, "\"per_process\"");
  g_autofree char *needle = g_strdup_printf ("\"%s\":", key);
  guint n = 0;
  for (const char *p = pp ? pp : json; (p = strstr (p, needle)) != NULL; p++)
    n++;
  return n;
}

/* ---- Sweep3D's event count in closed form ------------------------------ */

typedef struct {
  double npe_i, npe_j, it, jt, kt, mk, mm, mmi, iterations;
} SweepParams;

static SweepParams
sweep_params (const char *const *defines)
{
  SweepParams p = { 4, 4, 50, 50, 200, 10, 6, 3, 12 };   /* sweep3d.xml's defaults */
  for (; defines && defines[0]; defines += 2) {
    g_auto (GStrv) kv = g_strsplit (defines[1], "=", 2);
    double v = g_ascii_strtod (kv[1], NULL);
    struct { const char *name; double *value; } map[] = {
      { "npe_i", &p.npe_i }, { "npe_j", &p.npe_j }, { "it", &p.it }, { "jt", &p.jt },
      { "kt", &p.kt }, { "mk", &p.mk }, { "mm", &p.mm }, { "mmi", &p.mmi },
      { "iterations", &p.iterations },
    };
    for (guint i = 0; i < G_N_ELEMENTS (map); i++)
      if (strcmp (kv[0], map[i].name) == 0)
        *map[i].value = v;
  }
  return p;
}

/* Events of the whole run, from the structure in sweep3d.xml's header
 * comment.  Every message is two events (its send and its receive), every
 * <use> one.  With P = npe_i * npe_j, mmo = mm / mmi, kb = ceil(kt / mk):
 *
 *   per iteration
 *     sweep messages   M_iter = 8 * mmo * kb * [npe_j (npe_i - 1) + npe_i (npe_j - 1)]
 *                      (each octant crosses every E/W and N/S link once per block)
 *     uses             P * (1 source + 8 * mmo * (1 angle_setup + kb blocks) + 1 flux_err)
 *     collectives      2 allreduce = 2 A(P) events
 *   once
 *     4 bcast          4 * 2 (P - 1) events (binomial tree)
 *     3 barrier        3 * 3 P ceil(log2 P) events (dissemination: a 0-byte
 *                      irecv, isend, waitall per rank and round)
 *     8 allreduce      8 A(P) events
 *     balance          P uses
 *
 * where an allreduce of 4 or 8 bytes is MPICH's recursive doubling
 * (wsl/COLLECTIVES.md): with q the largest power of two <= P, each of q
 * ranks makes log2 q exchanges of 3 events and a combine, and each of the
 * P - q pairs of the fix-up 5 events: A(P) = 4 q log2 q + 5 (P - q).
 *
 *   events = iterations * (2 M_iter + P (2 + 8 mmo (1 + kb)) + 2 A(P))
 *            + 8 (P - 1) + 9 P ceil(log2 P) + 8 A(P) + P
 *
 * Defaults (P = 16, mmo = 2, kb = 20): M_iter = 320 * 24 = 7680, A = 256;
 * per iteration 15360 + 16 * 338 + 512 = 21280; 12 iterations 255360; plus
 * 120 + 576 + 2048 + 16 = 2760: 258,120. */
static double
allreduce_events (double P)
{
  double q = 1;
  while (2 * q <= P)
    q *= 2;
  return 4 * q * log2 (q) + 5 * (P - q);
}

static guint64
sweep_events (SweepParams p)
{
  double P = p.npe_i * p.npe_j, mmo = p.mm / p.mmi, kb = ceil (p.kt / p.mk);
  double m_iter = 8 * mmo * kb * (p.npe_j * (p.npe_i - 1) + p.npe_i * (p.npe_j - 1));
  double a = allreduce_events (P);
  double per_iteration = 2 * m_iter + P * (2 + 8 * mmo * (1 + kb)) + 2 * a;
  return (guint64) (p.iterations * per_iteration + 8 * (P - 1) + 9 * P * ceil (log2 (P)) + 8 * a
                    + P);
}

/* ---- 1-7: bad input names the culprit ---------------------------------- */

static void
test_malformed_system (void)
{
  g_autoptr (Run) r = ptieval_data ("bad-malformed-system.xml", "pingpong.xml", NULL);
  expect (r, EXIT_INVALID,
          "ptieval: error: bad-malformed-system.xml:7: malformed XML: ",
          "Opening and ending tag mismatch: computer line 4 and network", NULL);
}

static void
test_malformed_workload (void)
{
  g_autoptr (Run) r = ptieval_data ("tiny-system.xml", "bad-malformed-workload.xml", NULL);
  expect (r, EXIT_INVALID, "ptieval: error: bad-malformed-workload.xml:7: malformed XML: "
          "AttValue: \" or ' expected\n", NULL);
}

/* The first mistake is reported, not what libxml2 says after it: a tag
 * mismatch on line 3 of a file cut short after it (libxml2's last error:
 * "4: Premature end of data in tag computer line 2"), and an unescaped '<'
 * in an attribute on line 12 (its last: "23: Extra content at the end of
 * the document"). */
static void
test_first_error_system (void)
{
  g_autoptr (Run) r = ptieval_data ("bad-first-system.xml", "pingpong.xml", NULL);
  expect (r, EXIT_INVALID,
          "ptieval: error: bad-first-system.xml:3: malformed XML: "
          "Opening and ending tag mismatch: cpu_clc line 3 and network\n", NULL);
}

static void
test_first_error_workload (void)
{
  g_autoptr (Run) r = ptieval_data ("tiny-system.xml", "bad-first-workload.xml", NULL);
  expect (r, EXIT_INVALID,
          "ptieval: error: bad-first-workload.xml:12: malformed XML: "
          "Unescaped '<' not allowed in attributes values\n", NULL);
}

static void
test_schema_system (void)
{
  g_autoptr (Run) r = ptieval_data ("bad-schema-system.xml", "pingpong.xml", NULL);
  expect (r, EXIT_INVALID, "bad-schema-system.xml:5: does not follow hmc.xsd: ",
          "Element 'computer', attribute 'count': 'abc' is not a valid value", NULL);
}

static void
test_schema_workload (void)
{
  g_autoptr (Run) r = ptieval_data ("tiny-system.xml", "bad-schema-workload.xml", NULL);
  expect (r, EXIT_INVALID, "bad-schema-workload.xml:7: does not follow workload.xsd: ",
          "Element 'sendd': This element is not expected.", NULL);
}

static void
test_unknown_opcode (void)
{
  g_autoptr (Run) r = ptieval_data ("tiny-system.xml", "bad-opcode.xml", NULL);
  expect (r, EXIT_INVALID, "bad-opcode.xml:5: <rud>: RUD 'work' (model cpu-clc): ",
          "bad-opcode.xml:7: <compute>: unknown operation code 'MFLD' (nearest: MFDL, MFSL, MFDG)",
          NULL);
}

/* The same typing mistake in a system file's cost table gets the same hint
 * (it was only "Element 'MFLD': This element is not expected."). */
static void
test_unknown_opcode_system (void)
{
  g_autoptr (Run) r = ptieval_data ("bad-opcode-system.xml", "pingpong.xml", NULL);
  expect (r, EXIT_INVALID,
          "ptieval: error: bad-opcode-system.xml:5: does not follow model cpu-clc: Element "
          "'MFLD': This element is not expected (nearest: MFDL, MFSL, MFDG).", NULL);
}

static void
test_unbound_parameter (void)
{
  g_autoptr (Run) r = ptieval_data ("tiny-system.xml", "bad-unbound.xml", NULL);
  expect (r, EXIT_INVALID,
          "bad-unbound.xml:8: <bcast bytes=\"nbytes * 2\">: unbound parameter 'nbytes' "
          "in expression 'nbytes * 2'", NULL);
}

static void
test_unknown_model_element (void)
{
  g_autoptr (Run) r = ptieval_data ("bad-model-element.xml", "pingpong.xml", NULL);
  expect (r, EXIT_INVALID,
          "bad-model-element.xml:5: <cpu_cls>: not a known model configuration element",
          "known: cpu_clc (cpu-clc), cpu_mem (cpu-mem), cpu_time (cpu-time), io_pfs (io-pfs), "
          "net_contention (net-contention), net_node (net-node), net_simple (net-simple)", NULL);
}

static void
test_model_info_unknown (void)
{
  g_autoptr (Run) r = ptieval_data ("--model-info", "nosuch", NULL);
  expect (r, EXIT_INVALID,
          "ptieval: error: unknown model 'nosuch'; known models: cpu-clc, cpu-mem, cpu-time, io-pfs, "
          "net-contention, net-node, net-simple", NULL);
  g_assert_cmpstr (r->out, ==, "");
}

static void
test_rank_out_of_range (void)
{
  g_autoptr (Run) r = ptieval_data ("tiny-system.xml", "bad-range.xml", NULL);
  expect (r, EXIT_INVALID,
          "bad-range.xml:7: <send>: send on rank 0: destination rank 2 out of range "
          "(2 processes: ranks 0 to 1)", NULL);
}

/* Both ranks compute 10 us and then receive: stuck at 10 us. */
static void
test_deadlock (void)
{
  g_autoptr (Run) r = ptieval_data ("tiny-system.xml", "deadlock.xml", NULL);
  expect (r, EXIT_INVALID,
          "ptieval: error: deadlock at simulated time 0.000010000 s: 2 of 2 ranks cannot finish",
          "rank 0: blocked since 0.000010000 s in recv from rank 1, tag 5, 100 bytes",
          "rank 1: blocked since 0.000010000 s in recv from rank 0, tag 6, 200 bytes", NULL);
  g_assert_cmpstr (r->out, ==, "");
}

/* ---- 8: hostile XML ---------------------------------------------------- */

/* The DOCTYPE of @file (on @line) is refused before anything is expanded:
 * quickly, without a trace of the entities' text. */
static void
expect_doctype_refused (const Run *r, const char *file, int line)
{
  g_autofree char *where = g_strdup_printf ("%s:%d: ", file, line);
  expect (r, EXIT_INVALID, where, "DOCTYPE", NULL);
  expect_lacks (r, "lollol");
  expect_lacks (r, "root:");
  /* expanded, the entities would take minutes and gigabytes; refused, a
   * fraction of a second: 20 s tells them apart on any load */
  if (r->seconds > 20.0)
    failf ("%s took %.2f s", r->command, r->seconds);
}

static void
test_bomb_system (void)
{
  g_autoptr (Run) r = ptieval_data ("bomb-system.xml", "pingpong.xml", NULL);
  expect_doctype_refused (r, "bomb-system.xml", 4);
}

static void
test_bomb_workload (void)
{
  g_autoptr (Run) r = ptieval_data ("tiny-system.xml", "bomb-workload.xml", NULL);
  expect_doctype_refused (r, "bomb-workload.xml", 4);
}

static void
test_external_entity_system (void)
{
  g_autoptr (Run) r = ptieval_data ("xxe-system.xml", "pingpong.xml", NULL);
  expect_doctype_refused (r, "xxe-system.xml", 3);
}

static void
test_external_entity_workload (void)
{
  g_autoptr (Run) r = ptieval_data ("tiny-system.xml", "xxe-workload.xml", NULL);
  expect_doctype_refused (r, "xxe-workload.xml", 3);
}

/* The same entity referenced from an attribute value. */
static void
test_external_entity_attribute (void)
{
  g_autoptr (Run) r = ptieval_data ("tiny-system.xml", "xxe-attribute.xml", NULL);
  expect_doctype_refused (r, "xxe-attribute.xml", 3);
}

/* ---- performance assertions -------------------------------------------- */

/* A failed assertion: the whole report, then exit 4 (tests/workload has
 * the closed forms of data/assertions.xml). */
static void
test_assertions (void)
{
  g_autoptr (Run) r = run_in (source_root, ptieval, "tests/workload/data/system.xml",
                              "tests/workload/data/assertions.xml", NULL);
  expect (r, 4, "ptieval: 1 performance assertion failed", NULL);
  static const char *const lines[] = {
    "assertions: 4 passed, 1 failed",
    "  FAIL efficient: efficiency > 0.8   with efficiency = 0.166666667   "
    "(tests/workload/data/assertions.xml:39)",
    "  pass exchange_bound: exchange_time <= rounds * 50e-6 * (1 + 1e-9)   with exchange_time = "
    "0.00015, rounds = 3",
    "exchange                0.000150000    0.000000000    0.000015000    0.000135000          6"
    "           6000        1      2",
  };
  for (guint i = 0; i < G_N_ELEMENTS (lines); i++)
    if (strstr (r->out, lines[i]) == NULL)
      failf ("summary lacks \"%s\":\n%s", lines[i], r->out);
  g_autoptr (Run) j = run_in (source_root, ptieval, "--json", "tests/workload/data/system.xml",
                              "tests/workload/data/assertions.xml", NULL);
  expect (j, 4, NULL);
  if (strstr (j->out, "\"assertions_failed\": 1, \"assertions\": [{\"name\": \"fast_enough\", "
                      "\"test\": \"time < 200e-6\", \"origin\": \"tests/workload/data/"
                      "assertions.xml:37\", \"passed\": true, \"values\": {\"time\": ") == NULL)
    failf ("JSON lacks the assertions:\n%s", j->out);
  /* An unknown name is an input error, not a failed assertion. */
  g_autoptr (Run) u = run_in (source_root, ptieval, "tests/workload/data/system.xml",
                              "tests/workload/data/err-assert.xml", NULL);
  expect (u, 3, "ptieval: error: tests/workload/data/err-assert.xml:30: assertion 'typo': test "
          "\"exchnage_time < 1\": unknown name 'exchnage_time'", "phase of the workload (setup, "
          "exchange)", NULL);
  g_autoptr (Run) p = run_in (source_root, ptieval, "-D", "mode=1", "tests/workload/data/system.xml",
                              "tests/workload/data/assertions-repeat.xml", NULL);
  expect (p, 0, NULL);
}

/* ---- 9: usage ---------------------------------------------------------- */

static void
test_usage_no_arguments (void)
{
  g_autoptr (Run) r = ptieval_data (NULL, NULL);
  expect (r, EXIT_USAGE, "ptieval: error: expected SYSTEM.xml WORKLOAD (see --help)", NULL);
  g_autoptr (Run) s = run_in (data_dir, sweep3d, NULL);
  expect (s, EXIT_USAGE, "sweep3d: error: expected SYSTEM.xml (see --help)", NULL);
  g_autoptr (Run) t = ptieval_data ("tiny-system.xml", NULL);
  expect (t, EXIT_USAGE, "expected SYSTEM.xml WORKLOAD", NULL);
  g_autoptr (Run) u = ptieval_data ("tiny-system.xml", "pingpong.xml", "pingpong.xml", NULL);
  expect (u, EXIT_USAGE, "expected SYSTEM.xml WORKLOAD", NULL);
}

/* SYSTEM and WORKLOAD swapped: known by the root element, with the order
 * (it was "pingpong.xml:4: does not follow hmc.xsd: Element 'workload': No
 * matching global declaration available for the validation root."). */
static void
test_usage_swapped (void)
{
  g_autoptr (Run) r = ptieval_data ("pingpong.xml", "tiny-system.xml", NULL);
  expect (r, EXIT_INVALID,
          "ptieval: error: pingpong.xml:4: <workload>: this is a workload file, not a system "
          "(HMC) file: the system comes first (ptieval SYSTEM.xml WORKLOAD.xml)\n", NULL);
  g_autoptr (Run) s = ptieval_data ("tiny-system.xml", "tiny-system.xml", NULL);
  expect (s, EXIT_INVALID,
          "ptieval: error: tiny-system.xml:6: <system>: this is a system (HMC) file, not a "
          "workload file: the workload comes second (ptieval SYSTEM.xml WORKLOAD.xml)\n", NULL);
  g_autoptr (Run) t = run_in (data_dir, sweep3d, "pingpong.xml", NULL);
  expect (t, EXIT_INVALID, "sweep3d: error: pingpong.xml:4: <workload>: this is a workload file",
          NULL);
}

static void
test_usage_unknown_option (void)
{
  g_autoptr (Run) r = ptieval_data ("--frobnicate", "tiny-system.xml", "pingpong.xml", NULL);
  expect (r, EXIT_USAGE, "ptieval: error: Unknown option --frobnicate (see --help)", NULL);
  g_autoptr (Run) s = run_in (data_dir, sweep3d, "--frobnicate", "tiny-system.xml", NULL);
  expect (s, EXIT_USAGE, "Unknown option --frobnicate", NULL);
}

static void
test_usage_define_novalue (void)
{
  g_autoptr (Run) r = ptieval_data ("-D", "novalue", "tiny-system.xml", "pingpong.xml", NULL);
  expect (r, EXIT_USAGE, "ptieval: error: -D novalue: expected NAME=VALUE", NULL);
  g_autoptr (Run) s = ptieval_data ("-D", "=5", "tiny-system.xml", "pingpong.xml", NULL);
  expect (s, EXIT_USAGE, "-D =5: expected NAME=VALUE", NULL);
}

/* @out without its lines of wall-clock figures ("evaluation: ... events/s"). */
static char *
without_timing (const char *out)
{
  g_auto (GStrv) lines = g_strsplit (out, "\n", -1);
  g_autoptr (GString) kept = g_string_new (NULL);
  for (guint i = 0; lines[i] != NULL; i++)
    if (strstr (lines[i], "events/s") == NULL)
      g_string_append_printf (kept, "%s\n", lines[i]);
  return g_string_free (g_steal_pointer (&kept), FALSE);
}

/* -DNAME=VALUE attached, as the C compiler takes it (hmi/cli-options.h):
 * the same run as -D NAME=VALUE, for ptieval and a C workload program; a
 * value that looks like an option stays the value of the -D before it. */
static void
test_usage_define_attached (void)
{
  g_autoptr (Run) apart = ptieval_data ("-D", "bytes=2048", "tiny-system.xml", "pingpong.xml",
                                        NULL);
  g_autoptr (Run) joined = ptieval_data ("-Dbytes=2048", "tiny-system.xml", "pingpong.xml", NULL);
  expect (apart, 0, NULL);
  expect (joined, 0, NULL);
  g_autofree char *a = without_timing (apart->out), *b = without_timing (joined->out);
  if (strcmp (a, b) != 0)
    failf ("%s and %s differ:\n%s\n%s", apart->command, joined->command, a, b);
  const char *const def[] = { "-D", "iterations=1", NULL };
  const char *const def_joined[] = { "-Diterations=1", NULL };
  g_autoptr (Run) c_apart = run_sweep (sweep3d, def, "configs/pc_cluster.xml", NULL);
  g_autoptr (Run) c_joined = run_sweep (sweep3d, def_joined, "configs/pc_cluster.xml", NULL);
  g_autofree char *ca = without_timing (c_apart->out), *cb = without_timing (c_joined->out);
  if (c_apart->status != c_joined->status || strcmp (ca, cb) != 0 || strlen (ca) < 100)
    failf ("%s and %s differ:\n%s\n%s", c_apart->command, c_joined->command, ca, cb);
  g_autoptr (Run) unknown = ptieval_data ("-Dnosuch=1", "tiny-system.xml", "pingpong.xml", NULL);
  expect (unknown, EXIT_USAGE, "nosuch", "workload 'pingpong' has no such parameter", NULL);
  /* the second -D... is the first -D's value, not an option */
  g_autoptr (Run) value = ptieval_data ("-D", "-Dbytes=1", "tiny-system.xml", "pingpong.xml",
                                        NULL);
  expect (value, EXIT_USAGE, "-D -Dbytes=1", NULL);
  /* flags that take no value are not split: an unknown group stays unknown */
  g_autoptr (Run) group = ptieval_data ("-Dbytes=1", "-qx", "tiny-system.xml", "pingpong.xml",
                                        NULL);
  expect (group, EXIT_USAGE, "Unknown option -qx", NULL);
}

static void
test_usage_define_unknown (void)
{
  g_autoptr (Run) r = ptieval_data ("-D", "nosuch=1", "tiny-system.xml", "pingpong.xml", NULL);
  expect (r, EXIT_USAGE, "nosuch", "workload 'pingpong' has no such parameter",
          "(its parameters: bytes)", NULL);
  const char *const def[] = { "-D", "nosuch=1", NULL };
  g_autoptr (Run) s = run_sweep (sweep3d, def, "configs/pc_cluster.xml", NULL);
  /* the C program also has eval_mode: how to evaluate, not what */
  expect (s, EXIT_USAGE, "nosuch", "workload 'sweep3d' has no such parameter",
          "(its parameters: npe_i, npe_j, it, jt, kt, mk, mm, mmi, iterations, setup, eval_mode)", NULL);
  g_autoptr (Run) t = run_sweep (ptieval, def, "configs/pc_cluster.xml",
                                 "wsl/examples/sweep3d.xml", NULL);
  expect (t, EXIT_USAGE, "nosuch", "workload 'sweep3d' has no such parameter",
          "(its parameters: npe_i, npe_j, it, jt, kt, mk, mm, mmi, iterations, setup)", NULL);
}

static void
test_usage_missing_file (void)
{
  g_autoptr (Run) r = ptieval_data ("no-such-system.xml", "pingpong.xml", NULL);
  expect (r, EXIT_INVALID, "ptieval: error: no-such-system.xml: cannot read", NULL);
  g_autoptr (Run) s = ptieval_data ("tiny-system.xml", "no-such-workload.xml", NULL);
  expect (s, EXIT_INVALID, "ptieval: error: no-such-workload.xml: cannot read", NULL);
  g_autoptr (Run) t = run_in (data_dir, sweep3d, "no-such-system.xml", NULL);
  expect (t, EXIT_INVALID, "sweep3d: error: no-such-system.xml: cannot read", NULL);
}

/* ---- 10: a trace that cannot be written -------------------------------- */

static char *
read_text (const char *path)
{
  g_autoptr (GError) error = NULL;
  char *text = NULL;
  g_file_get_contents (path, &text, NULL, &error);
  g_assert_no_error (error);
  return text;
}

static char *
make_tmp_dir (void)
{
  g_autoptr (GError) error = NULL;
  char *dir = g_dir_make_tmp ("pti-cli-XXXXXX", &error);
  g_assert_no_error (error);
  return dir;
}

static guint
count_entries (const char *dir)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  guint n = 0;
  if (d != NULL) {
    while (g_dir_read_name (d) != NULL)
      n++;
    g_dir_close (d);
  }
  return n;
}

static void
remove_tree (const char *path)
{
  GDir *d = g_dir_open (path, 0, NULL);
  if (d != NULL) {
    const char *name;
    while ((name = g_dir_read_name (d)) != NULL) {
      g_autofree char *child = g_build_filename (path, name, NULL);
      remove_tree (child);
    }
    g_dir_close (d);
  }
  g_remove (path);
}

static void
test_trace_no_directory (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *missing = g_build_filename (tmp, "no-such-dir", NULL);
  g_autofree char *trace = g_build_filename (missing, "trace.xml", NULL);
  g_autoptr (Run) r = ptieval_data ("-o", trace, "tiny-system.xml", "pingpong.xml", NULL);
  expect (r, EXIT_OTHER, trace, NULL);
  g_assert_false (g_file_test (missing, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (trace, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (count_entries (tmp), ==, 0);

  /* The C form, the same way. */
  const char *const out[] = { "-o", trace, NULL };
  g_autoptr (Run) s = run_sweep (sweep3d, out, "-D", "iterations=1", "configs/pc_cluster.xml",
                                 NULL);
  expect (s, EXIT_OTHER, trace, NULL);
  g_assert_cmpuint (count_entries (tmp), ==, 0);
  remove_tree (tmp);
}

/* A run that fails after the trace was opened (a deadlock found while
 * evaluating) or before (an invalid workload) leaves no file behind, and an
 * existing trace untouched. */
static void
test_trace_failed_run (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *trace = g_build_filename (tmp, "trace.xml", NULL);
  g_autoptr (Run) r = ptieval_data ("-o", trace, "tiny-system.xml", "deadlock.xml", NULL);
  expect (r, EXIT_INVALID, "deadlock at simulated time", NULL);
  g_autoptr (Run) s = ptieval_data ("-o", trace, "tiny-system.xml", "bad-range.xml", NULL);
  expect (s, EXIT_INVALID, "bad-range.xml:7: ", NULL);
  g_assert_cmpuint (count_entries (tmp), ==, 0);

  g_assert_true (g_file_set_contents (trace, "previous", -1, NULL));
  g_autoptr (Run) t = ptieval_data ("-o", trace, "tiny-system.xml", "deadlock.xml", NULL);
  expect (t, EXIT_INVALID, "deadlock at simulated time", NULL);
  g_autofree char *kept = read_text (trace);
  g_assert_cmpstr (kept, ==, "previous");
  g_assert_cmpuint (count_entries (tmp), ==, 1);
  remove_tree (tmp);
}

/* ---- 8b: hostile text and files (the fuzzers' findings) ---------------- */

/* A byte that is not UTF-8 in a link selector of a changes file aborted in
 * GLib's pattern code (g_utf8_strreverse: assertion failed); a NUL byte
 * made the rest of the file vanish, here a change of load 2 that is
 * refused when read. */
static void
test_changes_not_text (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *utf = g_build_filename (tmp, "utf.txt", NULL);
  g_autofree char *nul = g_build_filename (tmp, "nul.txt", NULL);
  g_assert_true (g_file_set_contents (utf, "0 myrinet link_load[?\xe6] 0.5\n", -1, NULL));
  static const char nul_text[] = "0 myrinet background_load 0.5\n\0 1 myrinet background_load 2\n";
  g_assert_true (g_file_set_contents (nul, nul_text, sizeof nul_text - 1, NULL));
  const char *w = "wsl/examples/sweep3d.xml";
  g_autoptr (Run) r = run_sweep (ptieval, SMALL, "configs/pc_cluster.xml", "--changes", utf, w,
                                 NULL);
  g_autofree char *want_utf = g_strdup_printf ("ptieval: error: %s:1: not UTF-8 "
                                               "text (byte 0xE6 at column 22)\n", utf);
  expect (r, EXIT_INVALID, want_utf, NULL);
  g_autoptr (Run) s = run_sweep (ptieval, SMALL, "configs/pc_cluster.xml", "--changes", nul, w,
                                 NULL);
  g_autofree char *want_nul = g_strdup_printf ("ptieval: error: %s:2: a NUL byte at column 1: "
                                               "not text\n", nul);
  expect (s, EXIT_INVALID, want_nul, NULL);
  remove_tree (tmp);
}

/* Arguments are text too: they are printed, and written into traces. */
static void
test_argument_not_text (void)
{
  g_autoptr (Run) r = ptieval_data ("-D", "bytes=1\xe6", "tiny-system.xml", "pingpong.xml", NULL);
  expect (r, EXIT_USAGE,
          "ptieval: error: argument 2: not UTF-8 text (byte 0xE6 at column 8) (see --help)\n",
          NULL);
  g_autoptr (Run) s = ptieval_data ("tiny-system.xml", "ping\xff.xml", NULL);
  expect (s, EXIT_USAGE, "ptieval: error: argument 2: not UTF-8 text (byte 0xFF at column 5)",
          NULL);
}

/* /dev/zero or a FIFO as SYSTEM, WORKLOAD or changes file: refused at once
 * (/dev/zero grew memory without end, a FIFO without writer hung). */
static void
test_not_regular_file (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *fifo = g_build_filename (tmp, "fifo.xml", NULL);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  const char *inputs[] = { "/dev/zero", fifo };
  for (guint i = 0; i < G_N_ELEMENTS (inputs); i++) {
    g_autofree char *want = g_strdup_printf ("ptieval: error: %s: not a regular file (a FIFO, a "
                                             "device or a socket, which could feed it without "
                                             "end): pti reads its inputs from regular files only\n",
                                             inputs[i]);
    g_autoptr (Run) r = ptieval_data (inputs[i], "pingpong.xml", NULL);
    expect (r, EXIT_INVALID, want, NULL);
    g_autoptr (Run) s = ptieval_data ("tiny-system.xml", inputs[i], NULL);
    expect (s, EXIT_INVALID, want, NULL);
    g_autoptr (Run) t = ptieval_data ("--changes", inputs[i], "tiny-system.xml", "pingpong.xml",
                                      NULL);
    expect (t, EXIT_INVALID, want, NULL);
    /* read, these inputs would never end; refused, a fraction of a second
     * each: 20 s tells them apart on any load */
    if (r->seconds + s->seconds + t->seconds > 20)
      failf ("%s took %.2f s", inputs[i], r->seconds + s->seconds + t->seconds);
  }
  remove_tree (tmp);
}

/* A run stopped by SIGINT or SIGTERM while its trace is written leaves no
 * temporary file (it left t.xml.tmp-XXXXXX behind) and still dies of the
 * signal.  Sweep3D for 40 iterations writes for about a second; the signal goes
 * as soon as the temporary file exists. */
static void
test_trace_signal (void)
{
  const int signals[] = { SIGINT, SIGTERM };
  for (guint i = 0; i < G_N_ELEMENTS (signals); i++) {
    g_autofree char *tmp = make_tmp_dir ();
    g_autofree char *trace = g_build_filename (tmp, "t.xml", NULL);
    g_autofree char *configs = g_build_filename (source_root, "configs", "pc_cluster.xml", NULL);
    g_autofree char *workload = g_build_filename (source_root, "wsl", "examples", "sweep3d.xml",
                                                  NULL);
    const char *argv[] = { ptieval, "-D", "iterations=40", "-o", trace, configs, workload, NULL };
    GPid pid;
    g_autoptr (GError) error = NULL;
    g_assert_true (g_spawn_async (tmp, (char **) argv, NULL,
                                  G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL, NULL,
                                  NULL, &pid, &error));
    g_assert_no_error (error);
    gboolean seen = FALSE;
    for (guint wait = 0; wait < 3000 && !seen; wait++) {   /* up to 30 s */
      GDir *d = g_dir_open (tmp, 0, NULL);
      for (const char *n; d != NULL && (n = g_dir_read_name (d)) != NULL;)
        seen = seen || g_str_has_prefix (n, "t.xml.tmp-");
      if (d != NULL)
        g_dir_close (d);
      if (!seen)
        g_usleep (10000);
    }
    g_assert_true (seen);
    kill (pid, signals[i]);
    int status = 0;
    g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
    g_spawn_close_pid (pid);
    if (!WIFSIGNALED (status) || WTERMSIG (status) != signals[i])
      failf ("ptieval -o t.xml, signal %d: wait status 0x%x, not death by that signal",
             signals[i], status);
    if (count_entries (tmp) != 0)
      failf ("signal %d: %u files left in %s", signals[i], count_entries (tmp), tmp);
    remove_tree (tmp);
  }
}

/* The trace records the phases and the assertions with their outcomes
 * (schemas/trace.xsd: summary/phase, summary/assertion). */
static void
test_assertions_trace (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *trace = g_build_filename (tmp, "t.xml", NULL);
  g_autoptr (Run) r = run_in (source_root, ptieval, "-o", trace, "tests/workload/data/system.xml",
                              "tests/workload/data/assertions.xml", NULL);
  expect (r, 4, NULL);
  g_autofree char *text = read_text (trace);
  static const char *const parts[] = {
    "<phase name=\"exchange\" time=\"0.000150000\" compute=\"0.000000000\" comm=\"0.000015000\" "
    "wait=\"0.000135000\" messages=\"6\" bytes=\"6000\" entries=\"1\" ranks=\"2\"/>",
    "<assertion name=\"efficient\" test=\"efficiency &gt; 0.8\" passed=\"false\" "
    "origin=\"tests/workload/data/assertions.xml:39\">",
    "<value name=\"efficiency\" value=\"0.16666666666666671\"/>",
  };
  for (guint i = 0; i < G_N_ELEMENTS (parts); i++)
    if (strstr (text, parts[i]) == NULL)
      failf ("trace lacks %s", parts[i]);
  remove_tree (tmp);
}

/* ---- 11, 13: Sweep3D two ways, --json ---------------------------------- */

/* Runs both forms with @params and --json; checks they agree with each
 * other and with the closed form.  Returns the workload-file form's JSON. */
static char *
sweep_both (const char *const *params)
{
  g_autoptr (Run) file = run_sweep (ptieval, params, "configs/pc_cluster.xml",
                                    "wsl/examples/sweep3d.xml", "--json", NULL);
  g_autoptr (Run) prog = run_sweep (sweep3d, params, "configs/pc_cluster.xml", "--json", NULL);
  expect (file, EXIT_OK, NULL);
  expect (prog, EXIT_OK, NULL);
  g_test_message ("%s: %.3f s; %s: %.3f s", file->command, file->seconds, prog->command,
                  prog->seconds);

  double t_file = json_number (file->out, "predicted_time_s");
  double t_prog = json_number (prog->out, "predicted_time_s");
  double e_file = json_number (file->out, "events");
  double e_prog = json_number (prog->out, "events");
  g_assert_false (isnan (t_file));
  g_assert_cmpfloat (t_file, >, 0);
  /* Identical: the same events priced by the same models, in the same
   * order, printed with 12 significant digits. */
  g_assert_cmpfloat (t_file, ==, t_prog);
  g_assert_cmpfloat (e_file, ==, e_prog);
  g_assert_cmpfloat (json_number (file->out, "processes"), ==,
                     json_number (prog->out, "processes"));
  SweepParams p = sweep_params (params);
  g_assert_cmpfloat (e_file, ==, (double) sweep_events (p));
  g_assert_cmpfloat (json_number (file->out, "processes"), ==, p.npe_i * p.npe_j);

  /* Per rank, per phase, per assertion too: everything but the measured
   * figures (and where an assertion was stated) must match. */
  g_autoptr (GRegex) re = g_regex_new ("\"(wall_s|build_s|evaluate_s|events_per_s|"
                                       "peak_rss_bytes|system|workload|origin)\": [^,]*,", 0, 0, NULL);
  g_autofree char *a = g_regex_replace_literal (re, file->out, -1, 0, "", 0, NULL);
  g_autofree char *b = g_regex_replace_literal (re, prog->out, -1, 0, "", 0, NULL);
  g_assert_cmpstr (a, ==, b);
  return g_strdup (file->out);
}

/* The tutorial's programs as workload files (wsl/examples/pingpong.xml,
 * halo2d.xml) predict what the C programs predict, event for event: the
 * defaults, a rendezvous-sized ping-pong, and a halo on an uneven grid with
 * rendezvous columns. */
static void
test_tutorial_files (void)
{
  static const struct {
    const char *program, *file, *system;
    const char *defines[9];
  } cases[] = {
    { "PINGPONG", "wsl/examples/pingpong.xml", "configs/pc_cluster.xml", { NULL } },
    { "PINGPONG", "wsl/examples/pingpong.xml", "configs/pc_cluster.xml",
      { "-D", "bytes=65536", "-D", "rounds=10", NULL } },
    { "HALO2D", "wsl/examples/halo2d.xml", "configs/pc_cluster.xml", { "-D", "steps=3", NULL } },
    { "HALO2D", "wsl/examples/halo2d.xml", "configs/pc_cluster.xml",
      { "-D", "px=3", "-D", "py=5", "-D", "nx=5000", "-D", "steps=2", NULL } },
    { "HALO2D", "wsl/examples/halo2d.xml", "configs/fast_cluster.xml",
      { "-D", "px=8", "-D", "py=8", "-D", "nx=128", "-D", "ny=128", NULL } },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    const char *program = g_getenv (cases[i].program);
    g_assert_nonnull (program);
    g_autoptr (Run) file = run_sweep (ptieval, cases[i].defines, cases[i].system, cases[i].file,
                                      "--json", NULL);
    g_autoptr (Run) prog = run_sweep (program, cases[i].defines, cases[i].system, "--json", NULL);
    expect (file, EXIT_OK, NULL);
    expect (prog, EXIT_OK, NULL);
    double t = json_number (file->out, "predicted_time_s");
    g_assert_cmpfloat (t, >, 0);
    g_assert_cmpfloat (t, ==, json_number (prog->out, "predicted_time_s"));
    g_assert_cmpfloat (json_number (file->out, "events"), ==, json_number (prog->out, "events"));
    if (i == 0)   /* 19.999 ms + 2 x 15.85 us (wsl/README.md, "Reading the output") */
      g_assert_cmpfloat (fabs (t - (1e6 * 19.999e-9 + 2 * 15.85e-6)), <, 1e-12);
  }
}

static void
test_sweep3d_small (void)
{
  g_autofree char *json = sweep_both (SMALL);
  g_assert_cmpfloat (json_number (json, "events"), ==, 876);
}

static void
test_sweep3d_asymmetric (void)
{
  g_autofree char *json = sweep_both (ASYMMETRIC);
  g_assert_cmpfloat (json_number (json, "processes"), ==, 6);
}

static void
test_sweep3d_column (void)
{
  g_autofree char *json = sweep_both (COLUMN);
  g_assert_cmpfloat (json_number (json, "processes"), ==, 3);
}

/* The paper's case: 16 ranks, 200^3 cells, 12 iterations. */
static void
test_sweep3d_defaults (void)
{
  g_autofree char *json = sweep_both (NULL);
  g_assert_cmpfloat (json_number (json, "events"), ==, 258120);
  g_assert_cmpuint (sweep_events (sweep_params (NULL)), ==, 258120);
}

static void
test_json (void)
{
  g_autoptr (Run) r = run_sweep (ptieval, NULL, "configs/pc_cluster.xml",
                                 "wsl/examples/sweep3d.xml", "--json", NULL);
  expect (r, EXIT_OK, NULL);
  g_assert_cmpstr (r->err, ==, "");
  const char *o = r->out;
  /* One object on one line. */
  g_assert_true (g_str_has_prefix (o, "{"));
  g_assert_true (g_str_has_suffix (o, "}\n"));
  g_assert_true (strchr (o, '\n') == o + strlen (o) - 1);
  const char *keys[] = { "predicted_time_s", "events", "processes", "wall_s", "events_per_s",
                         "peak_rss_bytes" };
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    if (isnan (json_number (o, keys[i])))
      failf ("--json lacks a number \"%s\": %s", keys[i], o);
  g_assert_nonnull (strstr (o, "\"per_process\": ["));
  double t = json_number (o, "predicted_time_s");
  g_assert_cmpfloat (t, >, 1);
  g_assert_cmpfloat (t, <, 1e4);
  g_assert_cmpfloat (json_number (o, "events"), ==, 258120);
  g_assert_cmpfloat (json_number (o, "processes"), ==, 16);
  g_assert_cmpfloat (json_number (o, "wall_s"), >, 0);
  g_assert_cmpfloat (json_number (o, "wall_s"), <=, r->seconds);
  g_assert_cmpfloat (json_number (o, "events_per_s"), >, 0);
  g_assert_cmpfloat (json_number (o, "peak_rss_bytes"), >, 1 << 20);
  g_assert_cmpfloat (json_number (o, "peak_rss_bytes"), <, 4.0 * (1 << 30));
  /* One entry per rank. */
  g_assert_cmpuint (json_count (o, "rank"), ==, 16);
  g_assert_cmpuint (json_count (o, "end_s"), ==, 16);
  g_assert_cmpuint (json_count (o, "events"), ==, 16);
  g_assert_nonnull (strstr (o, "{\"rank\": 15, \"end_s\": "));
}

/* ---- 12: traces -------------------------------------------------------- */

static const char *
xmllint (void)
{
  static char *path;
  if (path == NULL) {
    path = g_find_program_in_path ("xmllint");
    g_assert_nonnull (path);
  }
  return path;
}

/* xmllint --noout --nonet --schema @xsd @file */
static void
expect_valid (const char *xsd, const char *file)
{
  g_autoptr (Run) r = run_in (source_root, xmllint (), "--noout", "--nonet", "--schema", xsd, file,
                              NULL);
  expect (r, EXIT_OK, "validates", NULL);
}

/* From <events> on: the header names the workload file in the file form,
 * and so do its assertions (origin="FILE:LINE"), left out.  (transfer full) */
static char *
events_part (const char *trace)
{
  const char *e = strstr (trace, "<events>");
  g_autoptr (GRegex) origin = g_regex_new (" origin=\"[^\"]*\"", 0, 0, NULL);
  return g_regex_replace_literal (origin, e ? e : "(no <events>)", -1, 0, "", 0, NULL);
}

static void
test_traces (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *xsd = g_build_filename (schema_dir, "trace.xsd", NULL);
  const char *names[] = { "file1.xml", "file2.xml", "prog1.xml", "prog2.xml" };
  char *paths[4];
  for (guint i = 0; i < 4; i++) {
    paths[i] = g_build_filename (tmp, names[i], NULL);
    const char *const out[] = { "-o", paths[i], NULL };
    g_autoptr (Run) r = i < 2
      ? run_sweep (ptieval, SMALL, "configs/pc_cluster.xml", "wsl/examples/sweep3d.xml",
                   out[0], out[1], NULL)
      : run_sweep (sweep3d, SMALL, "configs/pc_cluster.xml", out[0], out[1], NULL);
    expect (r, EXIT_OK, NULL);
    g_assert_true (strstr (r->out, "predicted time: ") != NULL);
    expect_valid (xsd, paths[i]);
  }
  g_autofree char *file1 = read_text (paths[0]);
  g_autofree char *file2 = read_text (paths[1]);
  g_autofree char *prog1 = read_text (paths[2]);
  g_autofree char *prog2 = read_text (paths[3]);
  /* Byte-identical between runs. */
  g_assert_cmpstr (file1, ==, file2);
  g_assert_cmpstr (prog1, ==, prog2);
  /* The two forms: the same events and summary. */
  g_assert_nonnull (strstr (file1, "<events>"));
  g_autofree char *events_file = events_part (file1);
  g_autofree char *events_prog = events_part (prog1);
  g_assert_cmpstr (events_file, ==, events_prog);
  /* 876 events, from the trace's own summary. */
  g_assert_nonnull (strstr (file1, "<summary predicted_time=\""));
  g_assert_nonnull (strstr (file1, "\" events=\"876\">"));
  /* The headers differ only in the workload's file. */
  g_assert_nonnull (strstr (file1, "<workload name=\"sweep3d\" file=\"wsl/examples/sweep3d.xml\"/>"));
  g_assert_nonnull (strstr (prog1, "<workload name=\"sweep3d\"/>"));
  for (guint i = 0; i < 4; i++)
    g_free (paths[i]);
  remove_tree (tmp);
}

/* ---- automatic partial evaluation (--pending-limit) --------------------- */

static guint
occurrences (const char *text, const char *needle)
{
  guint n = 0;
  for (const char *p = text; (p = strstr (p, needle)) != NULL; p += strlen (needle))
    n++;
  return n;
}

/* --json without what is measured or names a file: the prediction, rank by
 * rank. */
static char *
json_prediction (const char *json)
{
  g_autoptr (GRegex) re = g_regex_new ("\"(wall_s|build_s|evaluate_s|events_per_s|"
                                       "peak_rss_bytes|system|workload)\": [^,]*,", 0, 0, NULL);
  return g_regex_replace_literal (re, json, -1, 0, "", 0, NULL);
}

/* --pending-limit N runs a partial evaluation each time N more events have
 * been built: the prediction is the same to the last digit, rank by rank,
 * as one evaluation at the end, and the trace holds the same 876 events of
 * the small Sweep3D, in several <events> chunks (one per partial evaluation
 * that resolved something), and validates.  Both forms: the C program
 * builds iteration by iteration across ranks, the workload file rank by
 * rank (so fewer events are resolved early, but the result is the same).
 * A negative or non-numeric N is a usage error. */
static void
test_pending_limit (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *xsd = g_build_filename (schema_dir, "trace.xsd", NULL);
  g_autofree char *whole = g_build_filename (tmp, "whole.xml", NULL);
  g_autofree char *parts = g_build_filename (tmp, "parts.xml", NULL);
  for (int form = 0; form < 2; form++) {
    const char *program = form == 0 ? sweep3d : ptieval;
    /* the C program takes no workload: NULL then ends its arguments early */
    const char *workload = form == 0 ? NULL : "wsl/examples/sweep3d.xml";
    g_autoptr (Run) a = run_sweep (program, SMALL, "configs/pc_cluster.xml", "--json", "-o", whole,
                                   workload, NULL);
    g_autoptr (Run) b = run_sweep (program, SMALL, "configs/pc_cluster.xml", "--json", "-o", parts,
                                   "--pending-limit", "100", workload, NULL);
    expect (a, EXIT_OK, NULL);
    expect (b, EXIT_OK, NULL);
    g_assert_cmpfloat (json_number (b->out, "events"), ==, 876);
    g_autofree char *pa = json_prediction (a->out);
    g_autofree char *pb = json_prediction (b->out);
    g_assert_cmpstr (pa, ==, pb);
    g_autofree char *ta = read_text (whole);
    g_autofree char *tb = read_text (parts);
    g_assert_cmpuint (occurrences (ta, "<events>"), ==, 1);
    g_assert_cmpuint (occurrences (tb, "<events>"), >, 1);
    g_assert_cmpuint (occurrences (ta, "<event "), ==, 876);
    g_assert_cmpuint (occurrences (tb, "<event "), ==, 876);
    expect_valid (xsd, parts);
  }
  remove_tree (tmp);

  g_autoptr (Run) neg = ptieval_data ("--pending-limit", "-1", "tiny-system.xml", "pingpong.xml",
                                      NULL);
  expect (neg, EXIT_USAGE,
          "ptieval: error: --pending-limit -1: expected a number of events, 0 or more", NULL);
  g_autoptr (Run) word = ptieval_data ("--pending-limit", "many", "tiny-system.xml",
                                       "pingpong.xml", NULL);
  expect (word, EXIT_USAGE, "ptieval: error: ", "--pending-limit", "many", NULL);
}

/* ---- live changes and model choice (--changes, --use-model) ------------- */

/* The small Sweep3D on pc_cluster.xml (net-contention): a schedule that
 * gives every link 90% background load from the start slows the messages
 * (never the computations), so the prediction grows; --use-model
 * myrinet=net-simple predicts without contention.  Mistakes name the file
 * and line (exit 3), a file that cannot be read is an I/O error (exit 1),
 * a model choice naming nothing is a usage error (exit 2). */
static void
test_changes_and_use_model (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *ok = g_build_filename (tmp, "ok.txt", NULL);
  g_autofree char *bad = g_build_filename (tmp, "bad.txt", NULL);
  g_assert_true (g_file_set_contents (ok, "# a sensor's readings\n0 myrinet background_load 0.9\n",
                                      -1, NULL));
  g_assert_true (g_file_set_contents (bad, "0 myrinet background_load 0.5\n"
                                           "1ms myrinet link_load[h99:up] 0.5\n", -1, NULL));
  const char *w = "wsl/examples/sweep3d.xml";
  g_autoptr (Run) base = run_sweep (ptieval, SMALL, "configs/pc_cluster.xml", "--json", w, NULL);
  g_autoptr (Run) slow = run_sweep (ptieval, SMALL, "configs/pc_cluster.xml", "--json",
                                    "--changes", ok, w, NULL);
  g_autoptr (Run) simple = run_sweep (ptieval, SMALL, "configs/pc_cluster.xml", "--json",
                                      "--use-model", "myrinet=net-simple", w, NULL);
  expect (base, EXIT_OK, NULL);
  expect (slow, EXIT_OK, NULL);
  expect (simple, EXIT_OK, NULL);
  double t0 = json_number (base->out, "predicted_time_s");
  double t1 = json_number (slow->out, "predicted_time_s");
  double t2 = json_number (simple->out, "predicted_time_s");
  g_assert_cmpfloat (t1, >, t0);
  g_assert_cmpfloat (t2, !=, t0);
  g_assert_cmpfloat (json_number (slow->out, "events"), ==, 876);

  g_autoptr (Run) e1 = run_sweep (ptieval, SMALL, "configs/pc_cluster.xml", "--changes", bad, w,
                                  NULL);
  /* The changes file and line alone, not the workload line that set the
   * processes (it was "sweep3d.xml:78: <processes>: .../bad.txt:2: ..."). */
  g_autofree char *e1_want = g_strdup_printf ("ptieval: error: %s:2: network myrinet: no link is "
                                              "called 'h99:up'", bad);
  expect (e1, EXIT_INVALID, NULL);
  if (!g_str_has_prefix (e1->err, e1_want))
    failf ("%s: stderr does not start with \"%s\"\nstderr:\n%s", e1->command, e1_want, e1->err);
  g_autofree char *missing = g_build_filename (tmp, "missing.txt", NULL);
  g_autoptr (Run) e2 = run_sweep (ptieval, SMALL, "configs/pc_cluster.xml", "--changes", missing,
                                  w, NULL);
  expect (e2, EXIT_OTHER, "cannot read changes file", "missing.txt", NULL);
  g_autoptr (Run) e3 = run_sweep (ptieval, SMALL, "configs/pc_cluster.xml", "--use-model",
                                  "lan=net-simple", w, NULL);
  expect (e3, EXIT_USAGE, "model choice 'lan=net-simple'", "no network or computer named 'lan'",
          NULL);
  g_autoptr (Run) e4 = run_sweep (ptieval, SMALL, "configs/pc_cluster.xml", "--use-model",
                                  "myrinet=net-fancy", w, NULL);
  expect (e4, EXIT_INVALID, "model=\"net-fancy\" names model 'net-fancy'",
          "configured here: net-contention, net-simple", NULL);
  remove_tree (tmp);
}

/* ---- 14: information options ------------------------------------------- */

static void
test_list_models (void)
{
  g_autoptr (Run) r = ptieval_data ("--list-models", NULL);
  expect (r, EXIT_OK, NULL);
  g_autoptr (GRegex) cpu = g_regex_new ("^cpu-clc +cpu +<cpu_clc> ", G_REGEX_MULTILINE, 0, NULL);
  g_autoptr (GRegex) net = g_regex_new ("^net-simple +network +<net_simple> ", G_REGEX_MULTILINE,
                                        0, NULL);
  if (!g_regex_match (cpu, r->out, 0, NULL) || !g_regex_match (net, r->out, 0, NULL))
    failf ("--list-models:\n%s", r->out);
  g_autoptr (Run) s = run_in (data_dir, sweep3d, "--list-models", NULL);
  expect (s, EXIT_OK, NULL);
  g_assert_cmpstr (s->out, ==, r->out);
}

static void
test_model_info (void)
{
  g_autoptr (Run) r = ptieval_data ("--model-info", "cpu-clc", NULL);
  expect (r, EXIT_OK, NULL);
  const char *want[] = { "cpu-clc - ", "HMC element: <cpu_clc>", "Parameters (children of <cpu_clc>):",
                         "@unit", "MFDL", "LFOR", "ARF4" };
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    if (strstr (r->out, want[i]) == NULL)
      failf ("--model-info cpu-clc lacks \"%s\":\n%s", want[i], r->out);
  g_autoptr (Run) n = ptieval_data ("--model-info", "net-simple", NULL);
  expect (n, EXIT_OK, NULL);
  const char *want_net[] = { "HMC element: <net_simple>", "latency", "bandwidth", "send_overhead",
                             "recv_overhead", "eager_limit" };
  for (guint i = 0; i < G_N_ELEMENTS (want_net); i++)
    if (strstr (n->out, want_net[i]) == NULL)
      failf ("--model-info net-simple lacks \"%s\":\n%s", want_net[i], n->out);
}

static void
test_help (void)
{
  const char *programs[] = { ptieval, sweep3d };
  for (guint i = 0; i < 2; i++) {
    g_autoptr (Run) r = run_in (data_dir, programs[i], "--help", NULL);
    expect (r, EXIT_OK, NULL);
    const char *want[] = { "Usage:", "-D, --define=NAME=VALUE", "--json", "-o, --output=FILE",
                           "--list-models", "--model-info", "Exit status: 0 ok, 2 usage error, 3",
                           "--pending-limit=N", "N more events", "default: 0" };
    for (guint k = 0; k < G_N_ELEMENTS (want); k++)
      if (strstr (r->out, want[k]) == NULL)
        failf ("%s lacks \"%s\":\n%s", r->command, want[k], r->out);
  }
  g_autoptr (Run) v = ptieval_data ("--version", NULL);
  expect (v, EXIT_OK, NULL);
  g_assert_true (g_str_has_prefix (v->out, "ptieval (pti "));
}

/* ---- 15: a ping-pong by hand ------------------------------------------- */

/* One round trip of 1000 bytes on tiny-system.xml: each way
 * o_s 2 + L 10 + 1000 B / (100 MB/s) 10 + o_r 3 = 25 us; 50 us in all. */
static void
test_pingpong (void)
{
  g_autoptr (Run) r = ptieval_data ("tiny-system.xml", "pingpong.xml", NULL);
  expect (r, EXIT_OK, NULL);
  g_assert_cmpstr (r->err, ==, "");
  const char *want[] = { "workload pingpong (pingpong.xml) on system tiny (tiny-system.xml)\n",
                         "\npredicted time: 0.000050000 s\n", "\nevents: 4, processes: 2\n" };
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    if (strstr (r->out, want[i]) == NULL)
      failf ("summary lacks \"%s\":\n%s", want[i], r->out);
  /* Rank 1 receives at 25 us and is done sending at 27 us. */
  g_autoptr (GRegex) rank1 = g_regex_new ("^ +1 +0\\.000027000 ", G_REGEX_MULTILINE, 0, NULL);
  g_assert_true (g_regex_match (rank1, r->out, 0, NULL));

  /* A 2000-byte message adds 10 us each way; -D is an expression. */
  g_autoptr (Run) s = ptieval_data ("-D", "bytes=2 * 1000", "tiny-system.xml", "pingpong.xml",
                                    "--json", NULL);
  expect (s, EXIT_OK, NULL);
  g_assert_cmpfloat (fabs (json_number (s->out, "predicted_time_s") - 70e-6), <, 1e-12);
  g_assert_cmpfloat (json_number (s->out, "events"), ==, 4);
}

/* ---- schemas: the shipped files ---------------------------------------- */

/* Every *.xml of @subdir (of the source root) against @xsd. */
static void
validate_all (const char *subdir, const char *xsd_name, guint at_least)
{
  g_autofree char *dir = g_build_filename (source_root, subdir, NULL);
  g_autofree char *xsd = g_build_filename (schema_dir, xsd_name, NULL);
  g_autoptr (GError) error = NULL;
  GDir *d = g_dir_open (dir, 0, &error);
  g_assert_no_error (error);
  guint n = 0;
  const char *name;
  while ((name = g_dir_read_name (d)) != NULL) {
    if (!g_str_has_suffix (name, ".xml"))
      continue;
    g_autofree char *file = g_build_filename (subdir, name, NULL);
    g_test_message ("%s against %s", file, xsd_name);
    expect_valid (xsd, file);
    n++;
  }
  g_dir_close (d);
  g_assert_cmpuint (n, >=, at_least);
}

static void
test_xsd_configs (void)
{
  validate_all ("configs", "hmc.xsd", 1);
}

static void
test_xsd_examples (void)
{
  validate_all ("wsl/examples", "workload.xsd", 1);
}

/* The test data that should be valid is, and the bad files are bad for the
 * reason they claim (not by accident). */
static void
test_xsd_data (void)
{
  g_autofree char *hmc = g_build_filename (schema_dir, "hmc.xsd", NULL);
  g_autofree char *workload = g_build_filename (schema_dir, "workload.xsd", NULL);
  const char *valid_hmc[] = { "tiny-system.xml", "bad-model-element.xml" };
  const char *valid_workload[] = { "pingpong.xml", "bad-opcode.xml", "bad-unbound.xml",
                                   "bad-range.xml", "deadlock.xml" };
  for (guint i = 0; i < G_N_ELEMENTS (valid_hmc); i++) {
    g_autoptr (Run) r = run_in (data_dir, xmllint (), "--noout", "--nonet", "--schema", hmc,
                                valid_hmc[i], NULL);
    expect (r, EXIT_OK, "validates", NULL);
  }
  for (guint i = 0; i < G_N_ELEMENTS (valid_workload); i++) {
    g_autoptr (Run) r = run_in (data_dir, xmllint (), "--noout", "--nonet", "--schema", workload,
                                valid_workload[i], NULL);
    expect (r, EXIT_OK, "validates", NULL);
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_set_nonfatal_assertions ();

  ptieval = g_getenv ("PTIEVAL");
  sweep3d = g_getenv ("SWEEP3D");
  source_root = g_getenv ("PTI_SOURCE_ROOT");
  schema_dir = g_getenv ("PTI_SCHEMA_DIR");
  if (!ptieval || !sweep3d || !source_root || !schema_dir) {
    g_printerr ("test-cli: run through meson test (needs PTIEVAL, SWEEP3D, PTI_SOURCE_ROOT, "
                "PTI_SCHEMA_DIR)\n");
    return 77;
  }
  data_dir = g_test_build_filename (G_TEST_DIST, "cli", "data", NULL);

  g_test_add_func ("/cli/malformed/system", test_malformed_system);
  g_test_add_func ("/cli/malformed/workload", test_malformed_workload);
  g_test_add_func ("/cli/malformed/first-error-system", test_first_error_system);
  g_test_add_func ("/cli/malformed/first-error-workload", test_first_error_workload);
  g_test_add_func ("/cli/schema/system", test_schema_system);
  g_test_add_func ("/cli/schema/workload", test_schema_workload);
  g_test_add_func ("/cli/invalid/unknown-opcode", test_unknown_opcode);
  g_test_add_func ("/cli/invalid/unknown-opcode-system", test_unknown_opcode_system);
  g_test_add_func ("/cli/invalid/unbound-parameter", test_unbound_parameter);
  g_test_add_func ("/cli/invalid/unknown-model-element", test_unknown_model_element);
  g_test_add_func ("/cli/invalid/model-info-unknown", test_model_info_unknown);
  g_test_add_func ("/cli/invalid/rank-out-of-range", test_rank_out_of_range);
  g_test_add_func ("/cli/invalid/deadlock", test_deadlock);
  g_test_add_func ("/cli/hostile/entity-bomb/system", test_bomb_system);
  g_test_add_func ("/cli/hostile/entity-bomb/workload", test_bomb_workload);
  g_test_add_func ("/cli/hostile/external-entity/system", test_external_entity_system);
  g_test_add_func ("/cli/hostile/external-entity/workload", test_external_entity_workload);
  g_test_add_func ("/cli/hostile/external-entity/attribute", test_external_entity_attribute);
  g_test_add_func ("/cli/hostile/changes-not-text", test_changes_not_text);
  g_test_add_func ("/cli/hostile/argument-not-text", test_argument_not_text);
  g_test_add_func ("/cli/hostile/not-regular-file", test_not_regular_file);
  g_test_add_func ("/cli/usage/no-arguments", test_usage_no_arguments);
  g_test_add_func ("/cli/usage/swapped", test_usage_swapped);
  g_test_add_func ("/cli/usage/unknown-option", test_usage_unknown_option);
  g_test_add_func ("/cli/usage/define-novalue", test_usage_define_novalue);
  g_test_add_func ("/cli/usage/define-unknown", test_usage_define_unknown);
  g_test_add_func ("/cli/usage/missing-file", test_usage_missing_file);
  g_test_add_func ("/cli/trace/no-directory", test_trace_no_directory);
  g_test_add_func ("/cli/trace/failed-run", test_trace_failed_run);
  g_test_add_func ("/cli/trace/signal", test_trace_signal);
  g_test_add_func ("/cli/tutorial-files", test_tutorial_files);
  g_test_add_func ("/cli/sweep3d/small", test_sweep3d_small);
  g_test_add_func ("/cli/sweep3d/asymmetric", test_sweep3d_asymmetric);
  g_test_add_func ("/cli/sweep3d/column", test_sweep3d_column);
  g_test_add_func ("/cli/sweep3d/defaults", test_sweep3d_defaults);
  g_test_add_func ("/cli/trace/sweep3d", test_traces);
  g_test_add_func ("/cli/json", test_json);
  g_test_add_func ("/cli/assertions", test_assertions);
  g_test_add_func ("/cli/assertions-trace", test_assertions_trace);
  g_test_add_func ("/cli/pending-limit", test_pending_limit);
  g_test_add_func ("/cli/changes-and-use-model", test_changes_and_use_model);
  g_test_add_func ("/cli/info/list-models", test_list_models);
  g_test_add_func ("/cli/info/model-info", test_model_info);
  g_test_add_func ("/cli/info/help", test_help);
  g_test_add_func ("/cli/pingpong", test_pingpong);
  g_test_add_func ("/cli/usage/define-attached", test_usage_define_attached);
  g_test_add_func ("/cli/xsd/configs", test_xsd_configs);
  g_test_add_func ("/cli/xsd/examples", test_xsd_examples);
  g_test_add_func ("/cli/xsd/data", test_xsd_data);

  int rc = g_test_run ();
  g_free (data_dir);
  return rc;
}
