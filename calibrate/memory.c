/* The memory profile (seed 002's MAPS): bandwidth and latency by working
 * set and access pattern, alone and with every core busy.  mem-bench.c is
 * built with the host's compiler at -O2 without vectorisation, so that
 * every access is one 8-byte load, as the RUDs count them. */
#include "calibrate.h"

#include <pti/hmi.h>

#include <math.h>
#include <string.h>

/* 4 KiB, 6 KiB, 8 KiB, 12 KiB, ... (powers of two and one and a half of
 * them), or every fourth power of two when quick, up to @max. */
static char *
size_list (gboolean quick, guint64 max)
{
  GString *s = g_string_new (NULL);
  for (guint64 p = 4096; p <= max; p *= 2) {
    if (quick && (__builtin_ctzll (p) - 12) % 2 != 0)
      continue;
    g_string_append_printf (s, "%s%" G_GUINT64_FORMAT, s->len ? "," : "", p);
    if (!quick && p + p / 2 <= max)
      g_string_append_printf (s, ",%" G_GUINT64_FORMAT, p + p / 2);
  }
  return g_string_free (s, FALSE);
}

static char *
human (double bytes)
{
  if (bytes >= 1 << 30)
    return cal_strdup_printf ("%g GiB", bytes / (1 << 30));
  if (bytes >= 1 << 20)
    return cal_strdup_printf ("%g MiB", bytes / (1 << 20));
  return cal_strdup_printf ("%g KiB", bytes / 1024);
}

static gboolean
run_bench (const CalRun *run, const char *sizes, const char *patterns, guint procs, char **out,
           double *seconds, GError **error)
{
  g_autofree char *np = g_strdup_printf ("%u", procs);
  const char *reps = run->quick ? "3" : "7", *target = run->quick ? "3" : "10";
  const char *budget = run->quick ? "20" : procs > 1 ? "90" : "180";
  const char *argv[] = { "./mem-bench", "--sizes", sizes, "--patterns", patterns, "--reps", reps,
                         "--target-ms", target, "--procs", np, "--budget-s", budget, NULL };
  g_autofree char *err = NULL;
  int status;
  gint64 t0 = g_get_monotonic_time ();
  if (!cal_run (argv, run->workdir, 3600, out, &err, &status, error))
    return FALSE;
  *seconds = (g_get_monotonic_time () - t0) / 1e6;
  if (status != 0) {
    cal_set_command_error (error, "the memory benchmark failed", argv, status, err);
    return FALSE;
  }
  return TRUE;
}

/* Append one <profile> from the probe's lines (all of one process count). */
static guint
write_profile (GString *xml, GPtrArray *lines, guint procs, double *worst, char **worst_at)
{
  g_string_append_printf (xml, "  <profile processes=\"%u\" access=\"8\" bandwidth_unit=\"GB/s\" "
                               "latency_unit=\"ns\">\n", procs);
  const char *cur_pattern = NULL;
  double cur_stride = -1;
  guint points = 0;
  for (guint i = 0; i < lines->len; i++) {
    const CalLine *l = g_ptr_array_index (lines, i);
    if (strcmp (l->kind, "mem") != 0)
      continue;
    const char *pattern = cal_line_get (l, "pattern");
    double stride = cal_line_num (l, "stride"), bytes = cal_line_num (l, "bytes");
    if (pattern == NULL || isnan (bytes))
      continue;
    if (cur_pattern == NULL || strcmp (cur_pattern, pattern) != 0 || cur_stride != stride) {
      if (cur_pattern != NULL)
        g_string_append (xml, "    </pattern>\n");
      if (strcmp (pattern, "strided") == 0)
        g_string_append_printf (xml, "    <pattern name=\"strided\" stride=\"%.0f\">\n", stride);
      else if (strcmp (pattern, "runs") == 0)
        g_string_append_printf (xml, "    <pattern name=\"runs\" run=\"%.0f\" streams=\"%.0f\">\n",
                                stride, cal_line_num (l, "streams_max"));
      else if (strcmp (pattern, "transpose") == 0)
        g_string_append_printf (xml, "    <pattern name=\"transpose\" run=\"%.0f\">\n", stride);
      else
        g_string_append_printf (xml, "    <pattern name=\"%s\">\n", pattern);
      cur_pattern = pattern;
      cur_stride = stride;
    }
    /* a store stream has no latency: nothing waits for a store; a
     * transpose none either (independent loads, no one order to chase) */
    gboolean transpose = strcmp (pattern, "transpose") == 0;
    gboolean store = strcmp (pattern, "write") == 0 || transpose;
    CalStat bw = cal_stat_from_line (l, "bw"), lat = cal_stat_from_line (l, "lat");
    g_autofree char *ws = human (bytes);
    g_autofree char *how = store
      ? cal_strdup_printf ("%s: bandwidth (%s) median of %d %.4g GB/s, quartiles "
                           "%.4g-%.4g (%.1f%%)", ws, transpose ? "bytes of A read and of C read "
                           "and stored over" : "bytes written", bw.n, bw.med / 1e9, bw.q1 / 1e9,
                           bw.q3 / 1e9, 100 * cal_stat_spread (bw))
      : cal_strdup_printf ("%s: bandwidth median of %d %.4g GB/s, quartiles %.4g-%.4g (%.1f%%); "
                           "latency %.4g ns, quartiles %.4g-%.4g (%.1f%%)", ws, bw.n,
                           bw.med / 1e9, bw.q1 / 1e9, bw.q3 / 1e9, 100 * cal_stat_spread (bw),
                           lat.med, lat.q1, lat.q3, 100 * cal_stat_spread (lat));
    cal_xml_comment (xml, 6, how);
    g_autofree char *d_bw = cal_decimal (MAX (bw.med / 1e9, 1e-6), 4);
    g_autofree char *d_lat = cal_decimal (MAX (lat.med, 1e-6), 4);
    g_autofree char *point =
      store ? cal_strdup_printf ("      <point bytes=\"%.0f\" bandwidth=\"%s\"/>\n", bytes, d_bw)
            : cal_strdup_printf ("      <point bytes=\"%.0f\" bandwidth=\"%s\" latency=\"%s\"/>\n",
                                 bytes, d_bw, d_lat);
    g_string_append (xml, point);
    points++;
    double spread = store ? cal_stat_spread (bw) : MAX (cal_stat_spread (bw), cal_stat_spread (lat));
    if (spread > *worst) {
      *worst = spread;
      g_free (*worst_at);
      *worst_at = cal_strdup_printf ("%s %s, %u process%s", pattern, ws, procs,
                                     procs > 1 ? "es" : "");
    }
  }
  if (cur_pattern != NULL)
    g_string_append (xml, "    </pattern>\n");
  g_string_append (xml, "  </profile>\n");
  return points;
}

gboolean
cal_memory_measure (const CalRun *run, const CalMemOptions *o, GString *xml, GString *report,
                    GError **error)
{
  const char *build[] = { o->cc, "-O2", "-fno-tree-vectorize", "-fno-tree-slp-vectorize",
                          "-o", "mem-bench", "mem-bench.c", NULL };
  if (run->progress)
    g_printerr ("pticalibrate: memory profile: compiling the probe (%s -O2)...\n", o->cc);
  if (!cal_write_probe (run->workdir, "mem-bench.c", pti_cal_mem_bench_c, error)
      || !cal_build (run->workdir, build, "the memory benchmark does not compile", error))
    return FALSE;

  g_autofree char *sizes = size_list (run->quick, o->max_bytes);
  const char *patterns = run->quick ? "unit,strided:512,random,runs:512,transpose:512,write"
                                    : "unit,strided:128,strided:512,strided:4096,random,"
                                      "runs:256,runs:512,runs:1024,runs:4096,transpose:512,"
                                      "transpose:8192,write";
  if (run->progress)
    g_printerr ("pticalibrate: memory profile: 4 KiB to %g MiB, %s...\n",
                o->max_bytes / 1048576.0, patterns);
  g_autofree char *out1 = NULL;
  double s1 = 0, s2 = 0;
  if (!run_bench (run, sizes, patterns, 1, &out1, &s1, error))
    return FALSE;
  cal_write_file (run->workdir, "mem-bench.out", out1, NULL);
  g_autofree char *out2 = NULL;
  if (o->procs >= 2) {
    if (run->progress)
      g_printerr ("pticalibrate: memory profile: the same with %u processes at once...\n",
                  o->procs);
    if (!run_bench (run, sizes, "unit,random,runs:512,transpose:512,write", o->procs, &out2, &s2,
                    error))
      return FALSE;
    cal_write_file (run->workdir, "mem-bench-procs.out", out2, NULL);
  }

  double worst = 0;
  g_autofree char *worst_at = g_strdup ("");
  double preempted = 0, dirty = 0;
  g_autoptr (GPtrArray) lines1 = cal_parse_lines (out1);
  g_autoptr (GPtrArray) lines2 = out2 ? cal_parse_lines (out2) : NULL;
  for (int k = 0; k < 2; k++) {
    GPtrArray *lines = k == 0 ? lines1 : lines2;
    for (guint i = 0; lines != NULL && i < lines->len; i++) {
      const CalLine *l = g_ptr_array_index (lines, i);
      if (strcmp (l->kind, "noise") == 0) {
        preempted += cal_line_num (l, "preempted");
        dirty += cal_line_num (l, "dirty");
      }
    }
  }
  g_autofree char *noise = cal_noise_text ("samples", preempted, dirty, "samples");
  g_autofree char *cc_base = g_path_get_basename (o->cc);
  g_autofree char *procs_text =
    o->procs >= 2 ? g_strdup_printf ("The profile with %u processes ran that many copies at "
                                     "once, each on its own arrays, started together before "
                                     "every sample, and gives their mean.", o->procs)
                  : g_strdup ("No profile with several processes (quick run, or one CPU).");
  g_autofree char *head = cal_strdup_printf (
    "Measured by pticalibrate's memory probe (calibrate/mem-bench.c, built with `%s -O2` "
    "without vectorisation: one 8-byte load per access).  Bandwidth: unit, the sum of every word "
    "of the working set (8 independent sums); strided, one word every `stride` bytes; random, "
    "words at random indices read from an index array (4-byte indices, at most 4 Mi of them: "
    "a sparse matrix-vector product's x(col(k))); runs, `streams` sequential streams read in "
    "turn, `run` bytes of each at a time (fewer streams where the working set holds fewer "
    "than 2 runs of each); transpose, two square matrices A and C of the working set (leading "
    "dimension an odd number of lines), C(j, i) += A(i, j) a block of `run` bytes of A's "
    "column at a time, in bytes of A read and of C read and stored over per second; write, a "
    "store to every word of lines the loop does not read (each "
    "line read for ownership, then written back), in bytes written per second.  Latency: a "
    "pointer chase through the working set's 64-byte lines, "
    "consecutive (unit), `stride` bytes apart (strided), in a random cycle (random) or in the "
    "runs' order, each load waiting for the one before (none for write: no load waits for a "
    "store; none for transpose).  Each figure is the median "
    "of %s samples of at least %s ms; a sample another process interrupted (CPU time under "
    "97%% of the wall time) is taken again: %s.  %s  Time: %.0f s alone, %.0f s together.",
    cc_base, run->quick ? "3" : "7", run->quick ? "3" : "10", noise, procs_text, s1, s2);
  cal_xml_comment (xml, 2, head);
  guint points = write_profile (xml, lines1, 1, &worst, &worst_at);
  if (lines2 != NULL)
    points += write_profile (xml, lines2, o->procs, &worst, &worst_at);
  if (points == 0) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_FAILED,
                 "the memory benchmark printed no figure (its output is in %s)", run->workdir);
    return FALSE;
  }
  g_autofree char *line = cal_strdup_printf (
    "memory profile: %u points in %.0f s; largest spread (quartiles / median) %.1f%% (%s); "
    "%g samples taken again (interrupted)\n", points, s1 + s2, 100 * worst, worst_at, preempted);
  g_string_append (report, line);
  return TRUE;
}
