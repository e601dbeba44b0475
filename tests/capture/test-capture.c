/* pticapture end to end: real MPI programs on 2 ranks (kernel.c, the
 * Fortran kernels) captured and their records compared exactly with
 * golden/ (pticapture --print --no-times, which prints every field the
 * reader yields); the crash cases; the manifest; command-line mistakes; the
 * reader on damaged files.  Tests that need mpirun skip, saying why, where
 * Open MPI is not installed. */
#include "capture-reader.h"

#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *pticapture;

typedef struct {
  int status;          /* exit status, or 128 + signal */
  char *out, *err;
} Run;

static void
run_clear (Run *r)
{
  g_free (r->out);
  g_free (r->err);
}

static Run
run_argv (const char *const *argv)
{
  Run r = { 0 };
  g_autoptr (GError) error = NULL;
  int wstatus = 0;
  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &r.out, &r.err,
                     &wstatus, &error))
    g_error ("cannot run %s: %s", argv[0], error->message);
  r.status = WIFEXITED (wstatus) ? WEXITSTATUS (wstatus) : 128 + WTERMSIG (wstatus);
  return r;
}

/* pticapture ARGS... (NULL-terminated) */
static Run
run_pticapture (const char *first, ...)
{
  g_autoptr (GPtrArray) a = g_ptr_array_new ();
  g_ptr_array_add (a, (char *) pticapture);
  va_list ap;
  va_start (ap, first);
  for (const char *s = first; s != NULL; s = va_arg (ap, const char *))
    g_ptr_array_add (a, (char *) s);
  va_end (ap);
  g_ptr_array_add (a, NULL);
  return run_argv ((const char *const *) a->pdata);
}

static gboolean
need_mpi (const char *kernel_var)
{
  if (g_getenv ("MPIRUN") == NULL) {
    g_test_skip ("Open MPI not found when pti was configured (mpirun, libopenmpi-dev): "
                 "nothing to capture");
    return FALSE;
  }
  if (kernel_var != NULL && g_getenv (kernel_var) == NULL) {
    g_test_skip ("no Fortran compiler (gfortran) or Open MPI Fortran bindings: "
                 "the Fortran kernels were not built");
    return FALSE;
  }
  return TRUE;
}

static char *
tmp_trace (const char *name)
{
  g_autofree char *base = g_dir_make_tmp ("pticapture-XXXXXX", NULL);
  g_assert_nonnull (base);
  return g_build_filename (base, name, NULL);
}

/* Removes @dir (files only) and the temporary directory holding it. */
static void
rm_rf (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  while (d != NULL && (name = g_dir_read_name (d)) != NULL) {
    g_autofree char *p = g_build_filename (dir, name, NULL);
    g_unlink (p);
  }
  g_rmdir (dir);
  g_autofree char *parent = g_path_get_dirname (dir);
  g_rmdir (parent);
}

/* Captures @kernel (an environment variable naming it) on 2 ranks. */
static Run
capture (const char *trace, const char *kernel_var, const char *mode, const char *extra)
{
  return run_pticapture ("-q", "-o", trace, extra ? extra : "--cpu-time=switch", "--",
                         g_getenv ("MPIRUN"), "-np", "2", g_getenv (kernel_var), mode, NULL);
}

static char *
read_file (const char *path)
{
  char *text = NULL;
  g_autoptr (GError) error = NULL;
  if (!g_file_get_contents (path, &text, NULL, &error))
    g_error ("%s", error->message);
  return text;
}

/* The call lines of --print --no-times (headers carry pids and hosts). */
static char *
calls_only (const char *printed)
{
  g_auto (GStrv) lines = g_strsplit (printed, "\n", -1);
  GString *s = g_string_new (NULL);
  for (guint i = 0; lines[i] != NULL; i++)
    if (lines[i][0] != '\0' && (lines[i][0] != '#' || strstr (lines[i], ": end") != NULL))
      g_string_append_printf (s, "%s\n", lines[i]);
  return g_string_free (s, FALSE);
}

static void
assert_golden (const char *trace, const char *golden_name)
{
  Run p = run_pticapture ("--print", trace, "--no-times", NULL);
  g_assert_cmpstr (p.err, ==, "");
  g_assert_cmpint (p.status, ==, 0);
  g_autofree char *got = calls_only (p.out);
  g_autofree char *golden = g_test_build_filename (G_TEST_DIST, "golden", golden_name, NULL);
  if (g_getenv ("PTI_UPDATE_GOLDEN") != NULL)
    g_file_set_contents (golden, got, -1, NULL);
  g_autofree char *want = read_file (golden);
  g_assert_cmpstr (got, ==, want);
  run_clear (&p);
}

static GKeyFile *
manifest (const char *trace)
{
  GKeyFile *kf = g_key_file_new ();
  g_autofree char *path = g_build_filename (trace, "manifest", NULL);
  g_autoptr (GError) error = NULL;
  if (!g_key_file_load_from_file (kf, path, G_KEY_FILE_NONE, &error))
    g_error ("%s", error->message);
  return kf;
}

static void
assert_kf (GKeyFile *kf, const char *group, const char *key, const char *want)
{
  g_autofree char *got = g_key_file_get_string (kf, group, key, NULL);
  g_assert_cmpstr (got, ==, want);
}

/* Reads rank @rank to its end: the number of calls and the error, if any. */
static guint64
read_rank (const char *trace, guint rank, GError **error)
{
  g_autofree char *name = g_strdup_printf ("rank-%u.ptc", rank);
  g_autofree char *path = g_build_filename (trace, name, NULL);
  g_autoptr (PtiCaptureRank) r = pti_capture_rank_open_file (path, error);
  if (r == NULL)
    return 0;
  PtiCaptureEvent ev;
  gboolean done = FALSE;
  guint64 n = 0, t = 0;
  while (pti_capture_rank_next (r, &ev, &done, error) && !done) {
    g_assert_cmpuint (ev.index, ==, n + 1);
    g_assert_cmpuint (ev.t_start, >=, t);          /* times never go back */
    g_assert_cmpuint (ev.t_end, >=, ev.t_start);
    g_assert_cmpuint (ev.t_start - t, ==, ev.burst_ns);
    t = ev.t_end;
    n += ev.count;
  }
  return n;
}

/* ---- the C kernel ---- */

static void
test_c_kernel (void)
{
  if (!need_mpi ("KERNEL_C"))
    return;
  g_autofree char *trace = tmp_trace ("c");
  /* exact mode: switch mode leaves a burst unmeasured when the rank was
   * descheduled within its read budget, which a loaded machine makes happen
   * at random, and this test counts the measured bursts */
  Run r = capture (trace, "KERNEL_C", NULL, "--cpu-time=exact");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  assert_golden (trace, "kernel.txt");

  /* the same communicator has the same key on both ranks; others differ */
  g_autoptr (GError) error = NULL;
  g_autoptr (PtiCaptureTrace) t = pti_capture_trace_open (trace, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (pti_capture_trace_n_ranks (t), ==, 2);
  guint64 keys[2][16] = { { 0 } };
  for (guint rank = 0; rank < 2; rank++) {
    g_autoptr (PtiCaptureRank) rk = pti_capture_rank_open (t, rank, &error);
    g_assert_no_error (error);
    const PtiCaptureHeader *h = pti_capture_rank_header (rk);
    g_assert_cmpuint (h->rank, ==, rank);
    g_assert_cmpuint (h->size, ==, 2);
    g_assert_cmpuint (h->mpi_major, ==, 3);
    g_assert_true (g_str_has_prefix (h->library, "Open MPI"));
    g_assert_cmpuint (h->cpu_mode, ==, PTI_CPU_EXACT);
    g_assert_nonnull (strstr (h->argv[0], "kernel"));
    PtiCaptureEvent ev;
    gboolean done = FALSE;
    guint ncomm = 0, measured = 0, calls = 0, untimed = 0, timed_runs = 0;
    while (pti_capture_rank_next (rk, &ev, &done, &error) && !done) {
      calls++;
      /* repetitions of polls that found nothing are untimed (FORMAT.md
       * 6.6, 1.4): placed at the end of the call before, their time in the
       * next burst; those of calls recorded by name (MPI_Wtime x4) timed */
      if (ev.count > 1 && ev.code != PTI_C_generic) {
        g_assert_cmpuint (ev.burst_ns, ==, 0);
        g_assert_cmpuint (ev.t_end, ==, ev.t_start);
        g_assert_cmpint (ev.burst_cpu_ns, ==, 0);
        untimed++;
      } else if (ev.count > 1) {
        g_assert_cmpuint (ev.burst_ns, >, 0);
        g_assert_cmpuint (ev.t_end, >, ev.t_start);
        timed_runs++;
      }
      if (ev.burst_cpu_ns >= 0) {
        measured++;
        /* CPU time of a burst is at most its wall time (plus a clock tick) */
        g_assert_cmpint (ev.burst_cpu_ns, <=, (gint64) ev.burst_ns + 4000000);
      }
      if (ev.newcomm != NULL && ev.newcomm->n_members == 2)
        keys[rank][ncomm++] = ev.newcomm->key;
    }
    g_assert_no_error (error);
    g_assert_cmpuint (measured, ==, calls - 1);   /* all but MPI_Init */
    /* golden/kernel.txt: rank 1's MPI_Test x2, x3 and MPI_Iprobe x3 */
    g_assert_cmpuint (untimed, ==, rank == 1 ? 3 : 0);
    g_assert_cmpuint (timed_runs, ==, rank == 1 ? 1 : 0);
    g_assert_cmpuint (ncomm, ==, 4);               /* dup, split, cart, sub */
  }
  for (guint i = 0; i < 4; i++) {
    g_assert_cmpuint (keys[0][i], ==, keys[1][i]);
    for (guint j = 0; j < i; j++)
      g_assert_cmpuint (keys[0][i], !=, keys[0][j]);
  }
  run_clear (&r);
  rm_rf (trace);
}

/* ---- a repeated poll that finds (polls.c spin) ---- */

/* The poll that finds the message after N - 1 that found nothing, itself
 * made as an untimed repeat: every call counted, the last recorded with
 * what it completed.  @data: the call (polls.c's argument), its name, and
 * how its line ends when it found nothing and when it found the message. */
static void
test_polls_spin (gconstpointer data)
{
  const char *const *k = data;
  if (!need_mpi ("POLLS"))
    return;
  g_autofree char *trace = tmp_trace ("s");
  Run r = run_pticapture ("-q", "-o", trace, "--", g_getenv ("MPIRUN"), "-np", "2",
                          g_getenv ("POLLS"), "spin", k[0], NULL);
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  guint64 n = 0;
  g_assert_cmpint (sscanf (r.out, "polls %" G_GUINT64_FORMAT, &n), ==, 1);
  g_assert_cmpuint (n, >=, 2);
  Run p = run_pticapture ("--print", trace, "--no-times", NULL);
  g_assert_cmpint (p.status, ==, 0);
  g_auto (GStrv) lines = g_strsplit (p.out, "\n", -1);
  g_autofree char *name = g_strdup_printf (" %s ", k[1]);
  g_autofree char *format = g_strdup_printf ("0 %%*u %s %%1[x]%%" G_GUINT64_FORMAT, k[1]);
  guint64 nothing = 0, next = 5;   /* Init, Comm_rank, Irecv, Barrier */
  const char *last = NULL;
  for (guint i = 0; lines[i] != NULL; i++) {
    guint64 index = 0, count = 1;
    char x[8];
    if (!g_str_has_prefix (lines[i], "0 ") || strstr (lines[i], name) == NULL)
      continue;
    g_assert_cmpint (sscanf (lines[i], "0 %" G_GUINT64_FORMAT, &index), ==, 1);
    g_assert_cmpuint (index, ==, next);
    if (sscanf (lines[i], format, x, &count) != 2)
      count = 1;
    next += count;
    if (g_str_has_suffix (lines[i], k[2]))
      nothing += count;
    last = lines[i];
  }
  g_assert_cmpuint (nothing, ==, n - 1);
  g_assert_nonnull (last);
  g_assert_true (g_str_has_suffix (last, k[3]));
  run_clear (&p);
  run_clear (&r);
  rm_rf (trace);
}

/* ---- a program's records against its golden: the Fortran kernels (the
 * bindings reach the library), polls.c (polls that look like the one
 * before and are not) ---- */

static void
test_golden (gconstpointer data)
{
  const char *const *k = data;   /* variable, golden */
  if (!need_mpi (k[0]))
    return;
  g_autofree char *trace = tmp_trace ("f");
  Run r = capture (trace, k[0], NULL, NULL);
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  assert_golden (trace, k[1]);
  run_clear (&r);
  rm_rf (trace);
}

/* ---- POSIX file calls (format 1.3) ---- */

static guint64
file_size (const char *dir, const char *name)
{
  g_autofree char *p = g_build_filename (dir, name, NULL);
  GStatBuf st;
  g_assert_cmpint (g_stat (p, &st), ==, 0);
  return (guint64) st.st_size;
}

/* posix-io.c: every POSIX call on a regular file recorded once, with its
 * file, offset, bytes asked for and moved, in an id space apart from
 * MPI-IO's; /dev/null, the FIFO and what Open MPI does inside
 * MPI_File_open and MPI_File_write_at (its own open and pwrite of
 * mpiio.dat) and a file opened before MPI_Init not at all:
 * golden/posix-io.txt, 13 POSIX records a rank. */
static void
test_posix (void)
{
  if (!need_mpi (NULL))
    return;
  g_autofree char *trace = tmp_trace ("p");
  g_autofree char *data = g_dir_make_tmp ("pticapture-posix-XXXXXX", NULL);
  g_assert_nonnull (data);
  Run r = capture (trace, "POSIX_IO", data, "--cpu-time=none");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  assert_golden (trace, "posix-io.txt");

  /* what the records say the program wrote is what it wrote */
  g_assert_cmpuint (file_size (data, "posix-0.dat"), ==, 196608);
  g_assert_cmpuint (file_size (data, "stdio-1.dat"), ==, 100000);
  g_assert_cmpuint (file_size (data, "mpiio.dat"), ==, 131072);
  g_assert_cmpuint (file_size (data, "early.dat"), ==, 20);   /* 10 bytes a rank, not recorded */

  /* the reader's fields beyond --print's: asked for against moved, flags */
  g_autofree char *p0 = g_build_filename (trace, "rank-0.ptc", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (PtiCaptureRank) rk = pti_capture_rank_open_file (p0, &error);
  g_assert_no_error (error);
  PtiCaptureEvent ev;
  gboolean done = FALSE;
  guint posix = 0, failed = 0, stdio_opens = 0, short_reads = 0;
  while (pti_capture_rank_next (rk, &ev, &done, &error) && !done) {
    if (!PTI_CAPTURE_IS_POSIX (ev.code))
      continue;
    posix++;
    failed += ev.error != 0;
    if (ev.code == PTI_C_posix_open && ev.error == 0 && (ev.value & PTI_OPEN_STDIO)) {
      g_assert_cmpint (ev.value, ==, PTI_OPEN_WRITE | PTI_OPEN_CREATE | PTI_OPEN_TRUNC | PTI_OPEN_STDIO);
      stdio_opens++;
    }
    if (ev.code == PTI_C_posix_pread) {
      g_assert_cmpint (ev.value, ==, 65536);   /* asked for */
      g_assert_cmpuint (ev.bytes, ==, 32768);  /* the file ended there */
      g_assert_cmpuint (ev.offset, ==, 163840);
      short_reads++;
    }
  }
  g_assert_no_error (error);
  g_assert_cmpuint (posix, ==, 13);
  g_assert_cmpuint (failed, ==, 2);   /* the write on a read-only file, the missing file */
  g_assert_cmpuint (stdio_opens, ==, 1);
  g_assert_cmpuint (short_reads, ==, 1);
  run_clear (&r);
  rm_rf (trace);
  static const char *const files[] = { "posix-0.dat", "posix-1.dat", "stdio-0.dat",
                                       "stdio-1.dat", "mpiio.dat", "early.dat" };
  for (guint i = 0; i < G_N_ELEMENTS (files); i++) {
    g_autofree char *f = g_build_filename (data, files[i], NULL);
    g_unlink (f);
  }
  g_rmdir (data);
}

/* ---- the manifest, --check, --calls, CPU modes ---- */

static void
test_manifest (void)
{
  if (!need_mpi ("KERNEL_C"))
    return;
  g_autofree char *trace = tmp_trace ("m");
  Run r = capture (trace, "KERNEL_C", NULL, "--cpu-time=none");
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (GKeyFile) kf = manifest (trace);
  assert_kf (kf, "capture", "format", "1.4");
  g_assert_true (g_key_file_get_boolean (kf, "capture", "complete", NULL));
  g_assert_cmpint (g_key_file_get_integer (kf, "capture", "ranks", NULL), ==, 2);
  assert_kf (kf, "capture", "exit", "0");
  g_autofree char *cmd = g_key_file_get_string (kf, "capture", "command", NULL);
  g_assert_true (g_str_has_prefix (cmd, "'"));
  g_assert_nonnull (strstr (cmd, "'-np' '2'"));
  guint64 total = 0, bytes = 0;
  for (guint rank = 0; rank < 2; rank++) {
    g_autofree char *g = g_strdup_printf ("rank %u", rank);
    assert_kf (kf, g, "end", "finalize");
    guint64 calls = g_key_file_get_uint64 (kf, g, "calls", NULL);
    g_autoptr (GError) error = NULL;
    g_assert_cmpuint (read_rank (trace, rank, &error), ==, calls);
    g_assert_no_error (error);
    total += calls;
    bytes += g_key_file_get_uint64 (kf, g, "bytes", NULL);
  }
  g_assert_cmpuint (total, ==, 86 + 113);   /* golden/kernel.txt */
  g_assert_cmpuint (g_key_file_get_uint64 (kf, "capture", "calls", NULL), ==, total);
  g_assert_cmpuint (g_key_file_get_uint64 (kf, "capture", "bytes", NULL), ==, bytes);

  /* --cpu-time=none: no burst has a CPU time */
  g_autofree char *p0 = g_build_filename (trace, "rank-0.ptc", NULL);
  g_autoptr (PtiCaptureRank) rk = pti_capture_rank_open_file (p0, NULL);
  g_assert_cmpuint (pti_capture_rank_header (rk)->cpu_mode, ==, PTI_CPU_NONE);
  PtiCaptureEvent ev;
  gboolean done = FALSE;
  while (pti_capture_rank_next (rk, &ev, &done, NULL) && !done)
    g_assert_cmpint (ev.burst_cpu_ns, ==, -1);
  g_assert_true (done);

  /* The END of MPI_Finalize alone in the last block (1.4): the file is
   * known whole by its blocks (what pticapture checks after a capture),
   * with END's count of calls; with one byte changed (a block's checksum)
   * or cut by one, it is not. */
  guint64 sealed = 0;
  g_assert_true (pti_capture_rank_sealed (rk, &sealed));
  g_assert_cmpuint (sealed, ==, g_key_file_get_uint64 (kf, "rank 0", "calls", NULL));
  g_autofree char *data = NULL;
  gsize len = 0;
  g_assert_true (g_file_get_contents (p0, &data, &len, NULL));
  g_autofree char *bad = g_build_filename (trace, "bad.ptc", NULL);
  for (int k = 0; k < 2; k++) {
    if (k == 0)
      data[len / 2] ^= 0x20;
    else
      data[len / 2] ^= 0x20, len--;
    g_assert_true (g_file_set_contents (bad, data, (gssize) len, NULL));
    g_autoptr (PtiCaptureRank) rb = pti_capture_rank_open_file (bad, NULL);
    g_assert_nonnull (rb);
    g_assert_false (pti_capture_rank_sealed (rb, &sealed));
  }
  g_unlink (bad);

  /* --check rewrites the same manifest; --calls counts per function */
  Run c = run_pticapture ("--check", trace, "--calls", NULL);
  g_assert_cmpint (c.status, ==, 0);
  g_assert_nonnull (strstr (c.out, "2 ranks, 199 calls"));
  g_assert_nonnull (strstr (c.out, "complete"));
  g_assert_true (g_regex_match_simple ("\\nMPI_Comm_free +11 +5 +6\\n", c.out, 0, 0));
  g_assert_true (g_regex_match_simple ("\\nMPI_Waitall +8 +4 +4\\n", c.out, 0, 0));
  g_autoptr (GKeyFile) kf2 = manifest (trace);
  assert_kf (kf2, "capture", "command", cmd);
  g_assert_true (g_key_file_get_boolean (kf2, "capture", "complete", NULL));
  run_clear (&c);
  run_clear (&r);
  rm_rf (trace);
}

/* ---- crashes ---- */

static void
assert_incomplete (const char *trace, guint rank, const char *pattern)
{
  g_autoptr (GError) error = NULL;
  read_rank (trace, rank, &error);
  g_assert_error (error, PTI_CAPTURE_ERROR, PTI_CAPTURE_ERROR_INCOMPLETE);
  if (!g_regex_match_simple (pattern, error->message, 0, 0))
    g_error ("rank %u: \"%s\" does not match \"%s\"", rank, error->message, pattern);
}

static void
test_crash_segv (void)
{
  if (!need_mpi ("KERNEL_C"))
    return;
  g_autofree char *trace = tmp_trace ("segv");
  Run r = capture (trace, "KERNEL_C", "crash", NULL);
  g_assert_cmpint (r.status, ==, 3);
  g_assert_nonnull (strstr (r.err, "INCOMPLETE") == NULL ? r.err : r.err);
  /* rank 1 sent its last message (call 113), then crashed computing */
  assert_incomplete (trace, 1, "^rank 1: the program was stopped by signal 11 \\(SIGSEGV\\) "
                     "during computation, after call 113 \\(MPI_Send\\): the trace is incomplete$");
  g_assert_nonnull (strstr (r.err, "rank 1: the program was stopped by signal 11 (SIGSEGV)"));
  g_autoptr (GKeyFile) kf = manifest (trace);
  g_assert_false (g_key_file_get_boolean (kf, "capture", "complete", NULL));
  assert_kf (kf, "rank 1", "end", "signal 11 (SIGSEGV)");
  g_assert_cmpuint (g_key_file_get_uint64 (kf, "rank 1", "calls", NULL), ==, 113);
  /* a replay refuses it: the trace opens, rank 1 ends in that error */
  Run p = run_pticapture ("--print", trace, "--no-times", "--rank", "1", NULL);
  g_assert_cmpint (p.status, ==, 3);
  g_assert_nonnull (strstr (p.out, "1 113 MPI_Send peer=0(w0) tag=50 bytes=4 comm=1\n"));
  g_assert_nonnull (strstr (p.err, "signal 11 (SIGSEGV) during computation"));
  run_clear (&p);
  run_clear (&r);
  rm_rf (trace);
}

static void
test_crash_abort (void)
{
  if (!need_mpi ("KERNEL_C"))
    return;
  g_autofree char *trace = tmp_trace ("abort");
  Run r = capture (trace, "KERNEL_C", "abort", NULL);
  g_assert_cmpint (r.status, ==, 3);
  assert_incomplete (trace, 1, "^rank 1: the program called MPI_Abort \\(error code 7\\) at call "
                     "113: the trace is incomplete$");
  g_autoptr (GKeyFile) kf = manifest (trace);
  assert_kf (kf, "rank 1", "end", "abort 7");
  run_clear (&r);
  rm_rf (trace);
}

static void
test_exit_without_finalize (void)
{
  if (!need_mpi ("KERNEL_C"))
    return;
  g_autofree char *trace = tmp_trace ("exit");
  Run r = capture (trace, "KERNEL_C", "exit", NULL);
  g_assert_cmpint (r.status, ==, 3);
  assert_incomplete (trace, 0, "^rank 0: the program exited without calling MPI_Finalize, after "
                     "call 86 \\(MPI_Barrier\\): the trace is incomplete$");
  assert_incomplete (trace, 1, "^rank 1: the program exited without calling MPI_Finalize, after "
                     "call 113 \\(MPI_Barrier\\): the trace is incomplete$");
  run_clear (&r);
  rm_rf (trace);
}

/* Runs the kernel in @mode under pticapture, waits for both ranks to say
 * their pid, sends them @sig. */
static Run
capture_and_kill (const char *trace, const char *mode, int sig)
{
  const char *argv[] = { pticapture, "-q", "--flush-interval", "0.5", "-o", trace, "--",
                         g_getenv ("MPIRUN"), "-np", "2", g_getenv ("KERNEL_C"), mode, NULL };
  GPid pid;
  int err_fd;
  g_autoptr (GError) error = NULL;
  g_assert_true (g_spawn_async_with_pipes (NULL, (char **) argv, NULL,
                                           G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL,
                                           NULL, NULL, &pid, NULL, NULL, &err_fd, &error));
  g_autoptr (GString) err = g_string_new (NULL);
  int pids[2] = { 0, 0 }, seen = 0;
  char buf[512];
  while (seen < 2) {
    ssize_t n = read (err_fd, buf, sizeof buf - 1);
    g_assert_cmpint (n, >, 0);
    buf[n] = '\0';
    g_string_append (err, buf);
    seen = 0;
    for (const char *p = err->str; (p = strstr (p, "kernel: rank ")) != NULL; p++) {
      int rank, rpid;
      if (sscanf (p, "kernel: rank %d pid %d", &rank, &rpid) == 2 && rank >= 0 && rank < 2) {
        pids[rank] = rpid;
      }
    }
    seen = (pids[0] > 0) + (pids[1] > 0);
  }
  g_usleep (200000);   /* both in their last call or sleep */
  kill (pids[0], sig);
  kill (pids[1], sig);
  ssize_t n;
  while ((n = read (err_fd, buf, sizeof buf - 1)) > 0) {
    buf[n] = '\0';
    g_string_append (err, buf);
  }
  close (err_fd);
  int wstatus;
  waitpid (pid, &wstatus, 0);
  g_spawn_close_pid (pid);
  Run r = { WIFEXITED (wstatus) ? WEXITSTATUS (wstatus) : 128 + WTERMSIG (wstatus), NULL,
            g_string_free (g_steal_pointer (&err), FALSE) };
  return r;
}

static void
test_sigkill (void)
{
  if (!need_mpi ("KERNEL_C"))
    return;
  g_autofree char *trace = tmp_trace ("kill");
  Run r = capture_and_kill (trace, "hang", SIGKILL);
  g_assert_cmpint (r.status, ==, 3);
  /* the barrier was written out (flush interval 0.5 s, a second before it);
   * the receive it then waited in has no record, and no END was written */
  assert_incomplete (trace, 0, "^rank 0: trace ends after call 86 \\(MPI_Barrier\\) without "
                     "MPI_Finalize: the program crashed or was killed$");
  assert_incomplete (trace, 1, "^rank 1: trace ends after call 113 \\(MPI_Barrier\\) without "
                     "MPI_Finalize: the program crashed or was killed$");
  g_autoptr (GKeyFile) kf = manifest (trace);
  assert_kf (kf, "rank 0", "end", "truncated");
  g_assert_nonnull (strstr (r.err, "rank 0: trace ends after call 86 (MPI_Barrier) without "
                                   "MPI_Finalize: the program crashed or was killed"));
  run_clear (&r);
  rm_rf (trace);
}

static void
test_sigterm (void)
{
  if (!need_mpi ("KERNEL_C"))
    return;
  g_autofree char *trace = tmp_trace ("term");
  Run r = capture_and_kill (trace, "hang", SIGTERM);
  g_assert_cmpint (r.status, ==, 3);
  assert_incomplete (trace, 0, "^rank 0: the program was stopped by signal 15 \\(SIGTERM\\) in "
                     "MPI_Recv, after call 86 \\(MPI_Barrier\\): the trace is incomplete$");
  run_clear (&r);
  g_autofree char *trace2 = tmp_trace ("term2");
  r = capture_and_kill (trace2, "sleep", SIGTERM);
  g_assert_cmpint (r.status, ==, 3);
  assert_incomplete (trace2, 1, "^rank 1: the program was stopped by signal 15 \\(SIGTERM\\) "
                     "during computation, after call 113 \\(MPI_Barrier\\): the trace is incomplete$");
  run_clear (&r);
  rm_rf (trace);
  rm_rf (trace2);
}

/* ---- command-line mistakes ---- */

static void
test_usage_errors (void)
{
  g_autofree char *dir = g_dir_make_tmp ("pticapture-XXXXXX", NULL);
  g_autofree char *full = g_build_filename (dir, "full", NULL);
  g_autofree char *file = g_build_filename (full, "x.txt", NULL);
  g_mkdir (full, 0755);
  g_file_set_contents (file, "x", 1, NULL);
  g_autofree char *fresh = g_build_filename (dir, "fresh", NULL);
  struct { const char *args[8]; int status; const char *err; } cases[] = {
    { { NULL }, 2, "expected -o DIR -- COMMAND, --check DIR or --print DIR" },
    { { "-o", fresh, NULL }, 2, "expected the command to run after -o" },
    { { "-o", fresh, "--", NULL }, 2, "expected the command to run after -o" },
    { { "-o", fresh, "--cpu-time=fast", "--", "true", NULL }, 2,
      "--cpu-time fast: expected switch, exact or none" },
    { { "-o", fresh, "--flush-interval=0", "--", "true", NULL }, 2,
      "--flush-interval 0: expected seconds" },
    { { "-o", fresh, "--check", full, NULL }, 2, "-o, --check and --print exclude each other" },
    { { "--rank", "1", "--check", full, NULL }, 2, "--rank goes with --print" },
    { { "-o", full, "--", "true", NULL }, 1, "exists and is not empty (x.txt ...)" },
    { { "-o", full, "-f", "--", "true", NULL }, 1, "holds x.txt, which is not part of a trace" },
    { { "-o", file, "--", "true", NULL }, 1, "exists and is not a directory" },
    { { "-o", fresh, "--library", "/nonexistent.so", "--", "true", NULL }, 1,
      "/nonexistent.so (--library): no such file" },
    { { "--print", file, NULL }, 3, "is not a pticapture trace file" },
    { { "--print", fresh, NULL }, 3, "No such file or directory" },
    { { "--check", file, NULL }, 3, "not a directory" },
    { { "--print", full, NULL }, 3, "no rank-0.ptc: not a pticapture trace" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++) {
    g_autoptr (GPtrArray) a = g_ptr_array_new ();
    g_ptr_array_add (a, (char *) pticapture);
    for (int k = 0; cases[i].args[k] != NULL; k++)
      g_ptr_array_add (a, (char *) cases[i].args[k]);
    g_ptr_array_add (a, NULL);
    Run r = run_argv ((const char *const *) a->pdata);
    if (r.status != cases[i].status || strstr (r.err, cases[i].err) == NULL)
      g_error ("case %zu: status %d, stderr \"%s\"; expected %d and \"%s\"", i, r.status, r.err,
               cases[i].status, cases[i].err);
    run_clear (&r);
  }
  /* a command that is no MPI program, or none at all */
  if (g_getenv ("PTI_CAPTURE_LIBRARY") != NULL) {
    Run r = run_pticapture ("-o", fresh, "--", "true", NULL);
    g_assert_cmpint (r.status, ==, 3);
    g_assert_nonnull (strstr (r.err, "no readable rank file: the command never called MPI_Init"));
    run_clear (&r);
    r = run_pticapture ("-o", fresh, "-f", "--", "/nonexistent/program", NULL);
    g_assert_cmpint (r.status, ==, 1);
    g_assert_nonnull (strstr (r.err, "cannot run /nonexistent/program"));
    run_clear (&r);
  }
  /* without "--": options end at the command, whose own options stay its own */
  if (g_getenv ("PTI_CAPTURE_LIBRARY") != NULL) {
    Run r = run_pticapture ("-q", "-o", fresh, "-f", "/bin/sh", "-c", "exit 0", NULL);
    g_assert_cmpint (r.status, ==, 3);   /* ran (no MPI in it), rather than a usage error */
    g_assert_nonnull (strstr (r.err, "no readable rank file"));
    run_clear (&r);
  }
  Run v = run_pticapture ("--version", NULL);
  g_assert_cmpint (v.status, ==, 0);
  g_assert_true (g_str_has_prefix (v.out, "pticapture (pti "));
  g_assert_nonnull (strstr (v.out, "trace format 1.4"));
  run_clear (&v);
  rm_rf (full);
}

/* ---- the reader on damaged files (no MPI needed: built here) ---- */

static void
put_u (GByteArray *b, guint64 v)
{
  while (v >= 0x80) {
    guint8 c = (guint8) (v | 0x80);
    g_byte_array_append (b, &c, 1);
    v >>= 7;
  }
  guint8 c = (guint8) v;
  g_byte_array_append (b, &c, 1);
}

static void
put_str (GByteArray *b, const char *s)
{
  put_u (b, strlen (s));
  g_byte_array_append (b, (const guint8 *) s, strlen (s));
}

/* A rank file's first records by hand: HEADER, MPI_Init (burst 10, cpu
 * the same, dur 100). */
static GByteArray *
make_start (guint world_size)
{
  GByteArray *p = g_byte_array_new ();
  put_u (p, PTI_REC_HEADER << 1);
  put_str (p, "pticapture test");
  put_u (p, 0); put_u (p, world_size); put_u (p, 42); put_str (p, "host");
  put_u (p, 1); put_str (p, "0"); put_u (p, 3); put_u (p, 1); put_str (p, "lib");
  put_u (p, 0); put_u (p, 0); put_u (p, 1000); put_u (p, PTI_CPU_SWITCH);
  put_u (p, 1); put_str (p, "./prog");
  put_u (p, 1); put_str (p, "run"); put_str (p, "r1");
  put_u (p, PTI_C_Init << 1); put_u (p, 10); put_u (p, 1); put_u (p, 100);
  return p;
}

/* The file of records @p, in one block. */
static GBytes *
make_block (const GByteArray *p)
{
  guint32 table[256];
  pti_capture_crc32c_table (table);
  g_autoptr (GByteArray) f = g_byte_array_new ();
  g_byte_array_append (f, (const guint8 *) PTI_CAPTURE_MAGIC, PTI_CAPTURE_MAGIC_LEN);
  g_byte_array_append (f, (const guint8[]) { PTI_CAPTURE_MAJOR, PTI_CAPTURE_MINOR }, 2);
  guint32 len = p->len, crc = pti_capture_crc32c_update (0, p->data, p->len, table);
  guint8 hdr[8];
  for (int i = 0; i < 4; i++) {
    hdr[i] = (guint8) (len >> (8 * i));
    hdr[4 + i] = (guint8) (crc >> (8 * i));
  }
  g_byte_array_append (f, hdr, 8);
  g_byte_array_append (f, p->data, p->len);
  return g_byte_array_free_to_bytes (g_steal_pointer (&f));
}

/* MPI_Finalize (burst 1, dur 2) and END after @calls calls. */
static void
put_finalize (GByteArray *p, guint64 calls)
{
  put_u (p, PTI_C_Finalize << 1); put_u (p, 1); put_u (p, 0); put_u (p, 2);
  put_u (p, PTI_REC_END << 1); put_u (p, PTI_END_FINALIZE); put_u (p, calls);
  put_u (p, 0); put_u (p, 0);
}

/* A rank file by hand, one block: HEADER, MPI_Init, MPI_Send to @peer x
 * @sends (R repeats), MPI_Finalize, END. */
static GBytes *
make_file (guint sends, gboolean end, guint world_size, guint peer)
{
  g_autoptr (GByteArray) p = make_start (world_size);
  for (guint i = 0; i < sends; i++) {
    put_u (p, (PTI_C_Send << 1) | (i > 0)); put_u (p, 5); put_u (p, 1); put_u (p, 7);
    if (i == 0) {
      put_u (p, pti_capture_zigzag (peer)); put_u (p, pti_capture_zigzag (3));
      put_u (p, 64); put_u (p, PTI_COMM_WORLD_ID);
    }
  }
  if (end)
    put_finalize (p, sends + 2);
  else {
    put_u (p, PTI_C_Finalize << 1); put_u (p, 1); put_u (p, 0); put_u (p, 2);
  }
  return make_block (p);
}

/* A rank file by hand with POSIX records (1.3): open of "f.dat" with
 * @flags, then a pread at 4096 of @asked bytes that says it moved @moved. */
static GBytes *
make_posix_file (guint64 flags, guint64 asked, guint64 moved)
{
  g_autoptr (GByteArray) p = make_start (1);
  put_u (p, PTI_C_posix_open << 1); put_u (p, 5); put_u (p, 1); put_u (p, 7);
  put_u (p, 1); put_u (p, flags); put_str (p, "f.dat");
  put_u (p, PTI_C_posix_pread << 1); put_u (p, 5); put_u (p, 1); put_u (p, 7);
  put_u (p, 1); put_u (p, 4096); put_u (p, asked); put_u (p, moved);
  put_finalize (p, 4);
  return make_block (p);
}

/* Reads a rank file made of @data; @check: the values make_file wrote
 * (a damaged file may yield wrong values before its block's checksum is
 * verified at the block's end, and then fails). */
static GError *
read_bytes (const guint8 *data, gsize n, guint64 *calls, gboolean check)
{
  g_autofree char *dir = g_dir_make_tmp ("pticapture-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "rank-0.ptc", NULL);
  g_file_set_contents (path, (const char *) data, (gssize) n, NULL);
  GError *error = NULL;
  g_autoptr (PtiCaptureRank) r = pti_capture_rank_open_file (path, &error);
  *calls = 0;
  if (r != NULL) {
    PtiCaptureEvent ev;
    gboolean done = FALSE;
    while (pti_capture_rank_next (r, &ev, &done, &error) && !done) {
      (*calls)++;
      if (check && ev.code == PTI_C_Send) {   /* R repeats the arguments */
        g_assert_cmpint (ev.peer, ==, 1);
        g_assert_cmpint (ev.tag, ==, 3);
        g_assert_cmpuint (ev.bytes, ==, 64);
        g_assert_cmpint (ev.peer_world, ==, 1);
        g_assert_cmpint (ev.burst_cpu_ns, ==, 5);
      }
    }
    if (error == NULL)
      g_assert_true (done);
  }
  g_unlink (path);
  g_rmdir (dir);
  return error;
}

static void
test_reader_damaged (void)
{
  guint32 table[256];
  pti_capture_crc32c_table (table);
  g_assert_cmphex (pti_capture_crc32c_update (0, (const guint8 *) "123456789", 9, table), ==,
                   0xE3069283);   /* CRC-32C's check value (FORMAT.md section 3) */

  g_autoptr (GBytes) good = make_file (3, TRUE, 2, 1);
  gsize n;
  const guint8 *d = g_bytes_get_data (good, &n);
  guint64 calls;
  GError *e = read_bytes (d, n, &calls, TRUE);
  g_assert_no_error (e);
  g_assert_cmpuint (calls, ==, 5);

  /* every cut: an INCOMPLETE error (never a crash, never "complete") */
  for (gsize cut = 0; cut < n; cut++) {
    e = read_bytes (d, cut, &calls, FALSE);
    g_assert_nonnull (e);
    g_assert_true (e->code == PTI_CAPTURE_ERROR_INCOMPLETE || e->code == PTI_CAPTURE_ERROR_FORMAT);
    if (cut >= 10)   /* past the magic: says where it ends */
      g_assert_true (strstr (e->message, "the program crashed or was killed")
                     || strstr (e->message, "the program was killed as it finished")
                     || strstr (e->message, "killed as it started capturing"));
    g_error_free (e);
  }
  /* without END: the classic kill */
  g_autoptr (GBytes) noend = make_file (3, FALSE, 2, 1);
  const guint8 *d2 = g_bytes_get_data (noend, &n);
  e = read_bytes (d2, n, &calls, TRUE);
  g_assert_error (e, PTI_CAPTURE_ERROR, PTI_CAPTURE_ERROR_INCOMPLETE);
  g_assert_cmpstr (e->message, ==, "rank 0: trace ends after call 5 (MPI_Finalize) without "
                                   "its END record: the program was killed as it finished");
  g_assert_cmpuint (calls, ==, 5);
  g_error_free (e);

  /* every flipped byte past the magic: an error or the same records, never a crash */
  n = g_bytes_get_size (good);
  for (gsize i = 10; i < n; i++) {
    g_autofree guint8 *copy = g_memdup2 (d, n);
    copy[i] ^= 0x5a;
    e = read_bytes (copy, n, &calls, FALSE);
    if (e == NULL)   /* the CRC (or the header fields) catches it */
      g_error ("byte %zu of %zu flipped: no error", i, n);
    g_error_free (e);
  }
  /* a newer major version, not a trace */
  g_autofree guint8 *v2 = g_memdup2 (d, n);
  v2[8] = 2;
  e = read_bytes (v2, n, &calls, FALSE);
  g_assert_error (e, PTI_CAPTURE_ERROR, PTI_CAPTURE_ERROR_FORMAT);
  g_assert_nonnull (strstr (e->message, "is format 2."));
  g_assert_nonnull (strstr (e->message, "this reader knows 1.4"));
  g_error_free (e);
  e = read_bytes ((const guint8 *) "hello, world", 12, &calls, FALSE);
  g_assert_error (e, PTI_CAPTURE_ERROR, PTI_CAPTURE_ERROR_FORMAT);
  g_assert_nonnull (strstr (e->message, "is not a pticapture trace file"));
  g_error_free (e);
  /* a peer beyond the world: rank 1 of a world of 1 */
  g_autoptr (GBytes) out = make_file (1, TRUE, 1, 1);
  d = g_bytes_get_data (out, &n);
  g_autofree guint8 *fix = g_memdup2 (d, n);
  e = read_bytes (fix, n, &calls, FALSE);
  g_assert_error (e, PTI_CAPTURE_ERROR, PTI_CAPTURE_ERROR_CORRUPT);
  g_assert_nonnull (strstr (e->message, "after call 1: rank outside its communicator"));
  g_error_free (e);

  /* POSIX records (1.3): a read of fewer bytes than asked is what a read
   * at the end of a file is; more than asked, or flags no writer sets,
   * are damage, named with the call */
  g_autoptr (GBytes) px = make_posix_file (PTI_OPEN_READ, 8192, 100);
  d = g_bytes_get_data (px, &n);
  e = read_bytes (d, n, &calls, FALSE);
  g_assert_no_error (e);
  g_assert_cmpuint (calls, ==, 4);
  g_autoptr (GBytes) more = make_posix_file (PTI_OPEN_READ, 100, 8192);
  d = g_bytes_get_data (more, &n);
  e = read_bytes (d, n, &calls, FALSE);
  g_assert_error (e, PTI_CAPTURE_ERROR, PTI_CAPTURE_ERROR_CORRUPT);
  g_assert_nonnull (strstr (e->message, "more bytes transferred than asked for"));
  g_assert_nonnull (strstr (e->message, "after call 2"));
  g_error_free (e);
  g_autoptr (GBytes) flags = make_posix_file (64, 8192, 100);
  d = g_bytes_get_data (flags, &n);
  e = read_bytes (d, n, &calls, FALSE);
  g_assert_error (e, PTI_CAPTURE_ERROR, PTI_CAPTURE_ERROR_CORRUPT);
  g_assert_nonnull (strstr (e->message, "unknown open flags"));
  g_error_free (e);
}

/* Two captures mixed in one directory: refused. */
static void
test_reader_mixed (void)
{
  g_autofree char *dir = g_dir_make_tmp ("pticapture-XXXXXX", NULL);
  g_autoptr (GBytes) a = make_file (1, TRUE, 2, 1);
  g_autofree char *p0 = g_build_filename (dir, "rank-0.ptc", NULL);
  g_autofree char *p1 = g_build_filename (dir, "rank-1.ptc", NULL);
  gsize n;
  const guint8 *d = g_bytes_get_data (a, &n);
  g_file_set_contents (p0, (const char *) d, (gssize) n, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (PtiCaptureTrace) t = pti_capture_trace_open (dir, &error);
  g_assert_error (error, PTI_CAPTURE_ERROR, PTI_CAPTURE_ERROR_MISSING);
  g_assert_nonnull (strstr (error->message, "rank 1: "));
  g_assert_nonnull (strstr (error->message, "rank-1.ptc is missing (world size 2)"));
  g_clear_error (&error);
  /* rank 0's file again as rank 1: says it is rank 0 */
  g_file_set_contents (p1, (const char *) d, (gssize) n, NULL);
  t = pti_capture_trace_open (dir, &error);
  g_assert_null (t);
  g_assert_nonnull (strstr (error->message, "says it is rank 0 of 2, not rank 1 of 2"));
  g_unlink (p0);
  g_unlink (p1);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  pticapture = g_getenv ("PTICAPTURE");
  if (pticapture == NULL)
    g_error ("PTICAPTURE is not set: run through meson test");
  static const char *const f90[] = { "KERNEL_F90", "kernel-f90.txt" };
  static const char *const f08[] = { "KERNEL_F08", "kernel-f08.txt" };
  static const char *const fh[] = { "KERNEL_MPIFH", "kernel-mpifh.txt" };
  static const char *const polls[] = { "POLLS", "polls.txt" };
  static const char *const spin_any[] = { "testany", "MPI_Testany", " flag=0 reqs=[1]",
                                          " flag=1 reqs=[1:done(src=1(w1),tag=5,bytes=4)]" };
  static const char *const spin_all[] = { "testall", "MPI_Testall", " flag=0 reqs=[1]",
                                          " flag=1 reqs=[1:done(src=1(w1),tag=5,bytes=4)]" };
  static const char *const spin_some[] = { "testsome", "MPI_Testsome", " reqs=[1]",
                                           " reqs=[1:done(src=1(w1),tag=5,bytes=4)]" };
  g_test_add_func ("/capture/c-kernel", test_c_kernel);
  g_test_add_data_func ("/capture/polls", polls, test_golden);
  g_test_add_data_func ("/capture/polls/spin/testany", spin_any, test_polls_spin);
  g_test_add_data_func ("/capture/polls/spin/testall", spin_all, test_polls_spin);
  g_test_add_data_func ("/capture/polls/spin/testsome", spin_some, test_polls_spin);
  g_test_add_data_func ("/capture/fortran/use-mpi", f90, test_golden);
  g_test_add_data_func ("/capture/fortran/mpi-f08", f08, test_golden);
  g_test_add_data_func ("/capture/fortran/mpif-h", fh, test_golden);
  g_test_add_func ("/capture/posix", test_posix);
  g_test_add_func ("/capture/manifest", test_manifest);
  g_test_add_func ("/capture/crash/segv", test_crash_segv);
  g_test_add_func ("/capture/crash/abort", test_crash_abort);
  g_test_add_func ("/capture/crash/exit", test_exit_without_finalize);
  g_test_add_func ("/capture/crash/sigkill", test_sigkill);
  g_test_add_func ("/capture/crash/sigterm", test_sigterm);
  g_test_add_func ("/capture/usage", test_usage_errors);
  g_test_add_func ("/capture/reader/damaged", test_reader_damaged);
  g_test_add_func ("/capture/reader/mixed", test_reader_mixed);
  return g_test_run ();
}
