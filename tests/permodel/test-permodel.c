/* A model per use and a live sensor feed (issue 15, points 1 and 2), end
 * to end through ptieval as a user runs it, and through the WSL.
 *
 * Closed forms, worked by hand on data/system.xml (cpu "detailed" MFDL =
 * 2 us, "quick" 0.5 us; net "plain" L 10 us, 100 MB/s, o_s 2, o_r 3 us;
 * "lowlat" L 1 us, o_s 1, o_r 1 us):
 *
 *   two-phases.xml: rank 0 computes 100 MFDL on "detailed" (0-200 us),
 *   sends 1000 B on "plain" (o_s: 200-202, arrives 202 + 10 + 10 = 222),
 *   computes on "quick" (202-252), sends on "lowlat" (252-253, arrives
 *   253 + 1 + 10 = 264).  Rank 1: 0-200 computing, receives the first at
 *   222 + o_r 3 = 225, computes 225-275, receives the second (arrived
 *   264) at 275 + o_r 1 = 276.  Predicted: 276 us.
 *
 *   one-compute.xml with half-speed.changes: node 1's 200 us computation
 *   has done 100 us of work at 100 us, when it is slowed to half speed:
 *   the other 100 us take 200 us, it ends at 300 us.  Node 2 unavailable
 *   from 50 to 80 us: it ends at 200 + 30 = 230 us.  Predicted: 300 us. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "wsl-private.h"

static const char *ptieval, *sensor;
static char *data_dir, *golden_dir, *tmpdir;

typedef struct {
  char *out, *err;
  int status;
} Run;

static void
run_free (Run *r)
{
  g_free (r->out);
  g_free (r->err);
  g_free (r);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (Run, run_free)

/* Runs @script with /bin/sh (pipes and writers as a user would write them);
 * PTIEVAL, SENSOR and DATA are set in its environment. */
static Run *
sh (const char *script)
{
  Run *r = g_new0 (Run, 1);
  g_autoptr (GError) error = NULL;
  const char *argv[] = { "/bin/sh", "-c", script, NULL };
  g_auto (GStrv) env = g_get_environ ();
  env = g_environ_setenv (env, "PTIEVAL", ptieval, TRUE);
  env = g_environ_setenv (env, "SENSOR", sensor, TRUE);
  env = g_environ_setenv (env, "DATA", data_dir, TRUE);
  env = g_environ_setenv (env, "TMP", tmpdir, TRUE);
  g_assert_true (g_spawn_sync (NULL, (char **) argv, env, G_SPAWN_DEFAULT, NULL, NULL, &r->out,
                               &r->err, &r->status, &error));
  g_assert_no_error (error);
  return r;
}

static int
exit_code (const Run *r)
{
  return WIFEXITED (r->status) ? WEXITSTATUS (r->status) : -1;
}

/* The predicted time ptieval --json printed, in s. */
static double
predicted (const Run *r)
{
  const char *p = strstr (r->out, "\"predicted_time_s\":");
  g_assert_nonnull (p);
  return g_ascii_strtod (p + strlen ("\"predicted_time_s\":"), NULL);
}

/* Rank @rank's end in ptieval --json's per_process, in s. */
static double
rank_end (const Run *r, guint rank)
{
  g_autofree char *key = g_strdup_printf ("{\"rank\": %u, \"end_s\": ", rank);
  const char *p = strstr (r->out, key);
  g_assert_nonnull (p);
  return g_ascii_strtod (p + strlen (key), NULL);
}

#define assert_time(actual, expected) \
  g_assert_cmpfloat_with_epsilon ((actual), (expected), 1e-15 + 1e-12 * fabs ((double) (expected)))

static void
assert_fails (const char *script, int code, const char *message)
{
  g_autoptr (Run) r = sh (script);
  if (exit_code (r) != code || strstr (r->err, message) == NULL)
    g_error ("%s\n  exit %d, stderr: %s\n  expected exit %d with: %s", script, exit_code (r),
             r->err, code, message);
}

/* ---- a model per use ------------------------------------------------------- */

static void
test_two_phases (void)
{
  g_autoptr (Run) r = sh ("$PTIEVAL --json -o $TMP/two.xml $DATA/system.xml $DATA/two-phases.xml");
  g_assert_cmpint (exit_code (r), ==, 0);
  assert_time (predicted (r), 276e-6);
  /* The trace's golden: which configuration served each event. */
  g_autofree char *trace = NULL, *golden = NULL;
  g_autofree char *trace_path = g_build_filename (tmpdir, "two.xml", NULL);
  g_autofree char *golden_path = g_build_filename (golden_dir, "two-phases.models", NULL);
  g_assert_true (g_file_get_contents (trace_path, &trace, NULL, NULL));
  g_assert_true (g_file_get_contents (golden_path, &golden, NULL, NULL));
  g_autoptr (GString) got = g_string_new (NULL);
  g_auto (GStrv) lines = g_strsplit (trace, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (strstr (lines[i], "<model ") || strstr (lines[i], "<event "))
      g_string_append_printf (got, "%s\n", g_strstrip (lines[i]));
  g_assert_cmpstr (got->str, ==, golden);
}

static void
test_model_errors (void)
{
  assert_fails ("sed 's/model=\"quick\"/model=\"nosuch\"/' $DATA/two-phases.xml > $TMP/bad.xml; "
                "$PTIEVAL $DATA/system.xml $TMP/bad.xml", 3,
                "bad.xml:24: <use>: rank 0: model 'nosuch' is not configured for the CPU of "
                "computer node (configured there: detailed (cpu-clc), quick (cpu-clc))");
  assert_fails ("sed 's/model=\"lowlat\"/model=\"quick\"/' $DATA/two-phases.xml > $TMP/bad.xml; "
                "$PTIEVAL $DATA/system.xml $TMP/bad.xml", 3,
                "bad.xml:16: <dup>: communicator 'fastnet': rank 0: model 'quick' is not configured for the network of "
                "network net (configured there: plain (net-simple), lowlat (net-simple))");
  assert_fails ("sed 's/config=\"quick\"/config=\"detailed\"/' $DATA/system.xml > $TMP/sys.xml; "
                "$PTIEVAL $TMP/sys.xml $DATA/two-phases.xml", 3,
                "sys.xml:11: <cpu_clc>: a second configuration named 'detailed' in computer node");
  assert_fails ("$PTIEVAL --use-model node=nosuch $DATA/system.xml $DATA/two-phases.xml", 3,
                "names model 'nosuch', which this <computer> does not configure (configured "
                "here: detailed (cpu-clc), quick (cpu-clc))");
}

/* --use-model still chooses the default: "quick" for every use that names
 * none: rank 1 computes 0-50, receives at 225 (sent at 50 + 2, arrives 72,
 * +3 = 75) ... worked: rank 0 50, send 50-52, quick 52-102, send 102-103
 * (arrives 114); rank 1 0-50, recv until 75, quick 75-125, recv 125-126. */
static void
test_use_model_default (void)
{
  g_autoptr (Run) r = sh ("$PTIEVAL --json --use-model node=quick $DATA/system.xml "
                          "$DATA/two-phases.xml");
  g_assert_cmpint (exit_code (r), ==, 0);
  assert_time (predicted (r), 126e-6);
}

/* The WSL: pti_use_model and pti_comm_set_model give the workload file's
 * closed form. */
static void
test_wsl (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *sys = g_build_filename (data_dir, "system.xml", NULL);
  g_autoptr (PtiContext) ctx = pti_context_new (sys, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (pti_context_set_processes (ctx, 2, &error));
  g_autoptr (PtiRud) work = pti_rud_new (ctx, "work", "<rud device='cpu'><compute type='clc' "
                                         "of='100*MFDL'/></rud>", &error);
  g_assert_no_error (error);
  PtiModelChoice quick = pti_context_model_choice (ctx, "quick", &error);
  PtiModelChoice lowlat = pti_context_model_choice (ctx, "lowlat", &error);
  g_assert_no_error (error);
  PtiComm *fast = pti_comm_dup (ctx, NULL, "fastnet", &error);
  g_assert_true (pti_comm_set_model (ctx, fast, lowlat, &error));
  for (guint r = 0; r < 2; r++) {
    g_assert_true (pti_use_model (ctx, r, work, PTI_MODEL_DEFAULT, &error));
    g_assert_true (r == 0 ? pti_mpi_send (ctx, 0, 1, 1000, 1, &error)
                          : pti_mpi_recv (ctx, 1, 0, 1000, 1, &error));
    g_assert_true (pti_use_model (ctx, r, work, quick, &error));
    g_assert_true (r == 0 ? pti_mpi_send_comm (ctx, fast, 0, 1, 1000, 2, &error)
                          : pti_mpi_recv_comm (ctx, fast, 1, 0, 1000, 2, &error));
  }
  g_assert_true (pti_evaluate (ctx, &error));
  assert_time (pti_result_time (ctx), 276e-6);
  /* A name that is no name, and a configuration a computer lacks. */
  g_assert_cmpuint (pti_context_model_choice (ctx, "no name", &error), ==,
                    PTI_MODEL_CHOICE_INVALID);
  g_assert_error (error, PTI_ERROR, PTI_ERROR_INVALID);
}

/* ---- a live sensor feed ---------------------------------------------------- */

static void
test_changes_file (void)
{
  g_autoptr (Run) r = sh ("$PTIEVAL --json --changes $DATA/half-speed.changes $DATA/system.xml "
                          "$DATA/one-compute.xml");
  g_assert_cmpint (exit_code (r), ==, 0);
  assert_time (predicted (r), 300e-6);
  assert_time (rank_end (r, 1), 230e-6);
}

/* The same changes through a real pipe, from a writer process that stops
 * between lines: ptieval blocks until it knows enough, and gets the same
 * answer. */
static void
test_stream_pipe (void)
{
  g_autoptr (Run) r = sh ("(printf 'until 10us\\n50us cpu:node available[2] 0\\n'; sleep 0.1; "
                          " printf 'until 70us\\n80us cpu:node available[2] 1\\n'; sleep 0.1; "
                          " printf '100us cpu:node speed[1] 0.5\\nuntil 1ms\\n') "
                          "| $PTIEVAL --json --changes-stream - $DATA/system.xml "
                          "$DATA/one-compute.xml");
  g_assert_cmpint (exit_code (r), ==, 0);
  assert_time (predicted (r), 300e-6);
  assert_time (rank_end (r, 1), 230e-6);

  /* In time order through a FIFO, with heartbeats: the closed form. */
  g_autoptr (Run) f = sh ("rm -f $TMP/fifo; mkfifo $TMP/fifo; "
                          "(printf 'until 10us\\n50us cpu:node available[2] 0\\n'; sleep 0.1; "
                          " printf 'until 70us\\n80us cpu:node available[2] 1\\n'; sleep 0.1; "
                          " printf '100us cpu:node speed[1] 0.5\\n') > $TMP/fifo & "
                          "$PTIEVAL --json --changes-stream $TMP/fifo $DATA/system.xml "
                          "$DATA/one-compute.xml; s=$?; wait; exit $s");
  g_assert_cmpint (exit_code (f), ==, 0);
  assert_time (predicted (f), 300e-6);
  assert_time (rank_end (f, 1), 230e-6);
}

/* The same from a monitoring process serving a unix socket
 * (socket-feed.py); a socket nobody serves is an error naming it. */
static void
test_stream_socket (void)
{
  g_autoptr (Run) r = sh ("rm -f $TMP/sock; "
                          "(printf 'until 10us\\n50us cpu:node available[2] 0\\n'; sleep 0.1; "
                          " printf 'until 70us\\n80us cpu:node available[2] 1\\n'; sleep 0.1; "
                          " printf '100us cpu:node speed[1] 0.5\\n') "
                          "| python3 $DATA/../socket-feed.py $TMP/sock & "
                          "i=0; while [ ! -S $TMP/sock ] && [ $i -lt 3000 ]; do sleep 0.01; i=$((i+1)); done; "
                          "$PTIEVAL --json --changes-stream $TMP/sock $DATA/system.xml "
                          "$DATA/one-compute.xml; s=$?; wait; exit $s");
  g_assert_cmpint (exit_code (r), ==, 0);
  assert_time (predicted (r), 300e-6);
  assert_time (rank_end (r, 1), 230e-6);

  g_autoptr (Run) dead = sh ("rm -f $TMP/dead; python3 $DATA/../socket-feed.py --no-listen $TMP/dead "
                             "&& $PTIEVAL --changes-stream $TMP/dead $DATA/system.xml "
                             "$DATA/one-compute.xml");
  g_assert_cmpint (exit_code (dead), ==, 1);   /* an I/O error, as an unreadable changes file */
  if (!g_str_has_prefix (dead->err, "ptieval: error: changes stream ")
      || strstr (dead->err, "/dead: cannot connect: Connection refused\n") == NULL)
    g_error ("unexpected error for a socket nobody serves: %s", dead->err);
}

static void
test_stream_errors (void)
{
  const char *run = " | $PTIEVAL --changes-stream - $DATA/system.xml $DATA/one-compute.xml";
  g_autofree char *past = g_strconcat ("printf 'until 100us\\n50us cpu:node speed 0.5\\n'", run, NULL);
  assert_fails (past, 3, "stdin:2: a change at 0.000050000 s is for a time already passed: the "
                "stream let the evaluation advance to 0.000100000 s (line 1 said until "
                "0.000100000 s); simulated time now 0.000000000 s");
  g_autofree char *malformed = g_strconcat ("printf 'until 10us\\n50us cpu:node speed\\n'", run, NULL);
  assert_fails (malformed, 3, "stdin:2: expected TIME TARGET ELEMENT VALUE");
  g_autofree char *early = g_strconcat ("printf 'until 10us\\n50us cpu:node spe'", run, NULL);
  assert_fails (early, 3, "stdin:2: the stream closed in the middle of this line (17 bytes "
                "without a newline): its writer stopped early");
  g_autofree char *key = g_strconcat ("printf '50us cpu:node clock 2\\n'", run, NULL);
  assert_fails (key, 3, "stdin:1: model 'cpu-clc' of computer node accepts changes of speed, "
                "available, not 'clock'");
  g_autofree char *never = g_strconcat ("printf '50us cpu:node available[2] 0\\n'", run, NULL);
  assert_fails (never, 3, "rank 1: a computation it begins at 0.000000000 s on node[2] cpu 0 "
                "never ends");
  g_autofree char *node = g_strconcat ("printf '50us cpu:node speed[3] 0.5\\n'", run, NULL);
  assert_fails (node, 3, "stdin:1: speed[3]: expected node numbers of node, \"N\" or \"N-M\" "
                "from 1 to 2");
}

/* The sensor program feeding ptieval through a pipe.  A counters file
 * that does not move says the host is idle: speed 1, the prediction
 * unchanged (200 us); this host's /proc/stat: a speed in (0, 1], so
 * between 200 us and 200 us / 0.05. */
static void
test_sensor (void)
{
  g_autofree char *idle = g_build_filename (tmpdir, "stat", NULL);
  g_assert_true (g_file_set_contents (idle, "cpu  100 0 50 1000 0 0 0 0\n", -1, NULL));
  g_autoptr (Run) r = sh ("$SENSOR --stat $TMP/stat --samples 3 --period 0.01 --step 100e-6 node "
                          "| $PTIEVAL --json --changes-stream - $DATA/system.xml "
                          "$DATA/one-compute.xml");
  g_assert_cmpint (exit_code (r), ==, 0);
  assert_time (predicted (r), 200e-6);
  if (g_file_test ("/proc/stat", G_FILE_TEST_EXISTS)) {
    g_autoptr (Run) live = sh ("$SENSOR --samples 5 --period 0.01 --step 50e-6 node "
                               "| $PTIEVAL --json --changes-stream - $DATA/system.xml "
                               "$DATA/one-compute.xml");
    g_assert_cmpint (exit_code (live), ==, 0);
    g_assert_cmpfloat (predicted (live), >=, 200e-6 * (1 - 1e-12));
    g_assert_cmpfloat (predicted (live), <=, 200e-6 / 0.05 * (1 + 1e-12));
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  ptieval = g_getenv ("PTIEVAL");
  sensor = g_getenv ("LOADSENSOR");
  g_assert_nonnull (ptieval);
  g_assert_nonnull (sensor);
  data_dir = g_test_build_filename (G_TEST_DIST, "permodel", "data", NULL);
  golden_dir = g_test_build_filename (G_TEST_DIST, "permodel", "golden", NULL);
  tmpdir = g_dir_make_tmp ("pti-permodel-XXXXXX", NULL);
  g_test_add_func ("/permodel/two-phases", test_two_phases);
  g_test_add_func ("/permodel/errors", test_model_errors);
  g_test_add_func ("/permodel/use-model-default", test_use_model_default);
  g_test_add_func ("/permodel/wsl", test_wsl);
  g_test_add_func ("/sensor/changes-file", test_changes_file);
  g_test_add_func ("/sensor/stream-pipe", test_stream_pipe);
  g_test_add_func ("/sensor/stream-socket", test_stream_socket);
  g_test_add_func ("/sensor/stream-errors", test_stream_errors);
  g_test_add_func ("/sensor/loadsensor", test_sensor);
  int rc = g_test_run ();
  g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", tmpdir);
  (void) system (cmd);
  return rc;
}
