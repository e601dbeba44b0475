/* The cost of every cpu-clc operation code on this host, at the
 * optimisation level the user names.  The kernels (clc-kernels.c, generated
 * from cpu-clc's code table) are compiled here, now, with the host's
 * compiler at that level: the costs of -O0 code (every variable in memory)
 * and of -O2 code (registers) differ several-fold, and only the compiler
 * the user's programs are built with knows what its level does.  The
 * harness is compiled at -O2 whatever the level: it only times. */
#include "calibrate.h"

#include <pti/hmi.h>

#include <math.h>
#include <string.h>

/* The compiler's own name for itself: the first line of `cc --version`. */
static char *
compiler_version (const CalRun *run, const char *cc)
{
  const char *argv[] = { cc, "--version", NULL };
  g_autofree char *out = NULL, *err = NULL;
  int status;
  if (!cal_run (argv, run->workdir, 60, &out, &err, &status, NULL) || status != 0)
    return g_strdup ("version unknown");
  out[strcspn (out, "\n")] = '\0';
  return g_strdup (out);
}

static char *
stat_text (CalStat s, const char *unit)
{
  return cal_strdup_printf ("median of %d runs %.4g %s, quartiles %.4g-%.4g (%.1f%%), "
                            "range %.4g-%.4g", s.n, s.med, unit, s.q1, s.q3,
                            100 * cal_stat_spread (s), s.min, s.max);
}

gboolean
cal_cpu_measure (const CalRun *run, const CalCpuOptions *o, GString *xml, GString *report,
                 GError **error)
{
  if (!cal_write_file (run->workdir, "clc-kernels.h", pti_cal_clc_kernels_h, error)
      || !cal_write_file (run->workdir, "clc-kernels.c", pti_cal_clc_kernels_c, error)
      || !cal_write_probe (run->workdir, "clc-harness.c", pti_cal_clc_harness_c, error))
    return FALSE;

  g_autofree char *opt = g_strdup_printf ("-O%s", o->level);
  g_auto (GStrv) extra = NULL;
  if (o->cflags != NULL && *o->cflags != '\0') {
    GError *e = NULL;
    if (!g_shell_parse_argv (o->cflags, NULL, &extra, &e)) {
      g_set_error (error, PTI_ERROR, PTI_ERROR_USAGE, "--cflags \"%s\": %s", o->cflags,
                   e->message);
      g_error_free (e);
      return FALSE;
    }
  }
  GPtrArray *argv = g_ptr_array_new ();
  g_ptr_array_add (argv, (char *) o->cc);
  g_ptr_array_add (argv, opt);
  for (char **f = extra; f != NULL && *f != NULL; f++)
    g_ptr_array_add (argv, *f);
  const char *tail[] = { "-c", "clc-kernels.c", "-o", "clc-kernels.o", NULL };
  for (int i = 0; tail[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) tail[i]);
  g_ptr_array_add (argv, NULL);
  const char *harness[] = { o->cc, "-O2", "-c", "clc-harness.c", "-o", "clc-harness.o", NULL };
  const char *link[] = { o->cc, "-o", "clc-bench", "clc-harness.o", "clc-kernels.o", NULL };
  if (run->progress)
    g_printerr ("pticalibrate: operation costs: compiling the kernels (%s %s)...\n", o->cc, opt);
  gboolean ok = cal_build (run->workdir, (const char *const *) argv->pdata,
                           "the operation-cost kernels do not compile", error)
                && cal_build (run->workdir, harness, "the timing harness does not compile", error)
                && cal_build (run->workdir, link, "the operation-cost benchmark does not link",
                              error);
  /* for the comment: the compiler's name and the flags that matter */
  g_autofree char *cc_base = g_path_get_basename (o->cc);
  g_autofree char *flags_text = o->cflags && *o->cflags
                                  ? g_strdup_printf ("%s %s %s", cc_base, opt, o->cflags)
                                  : g_strdup_printf ("%s %s", cc_base, opt);
  g_ptr_array_free (argv, TRUE);
  if (!ok)
    return FALSE;

  const char *reps = run->quick ? "5" : "15", *target = run->quick ? "1" : "4";
  /* A time budget: on a host too busy for undisturbed runs the benchmark
   * still ends (the runs it then keeps disturbed count CPU time). */
  const char *budget = run->quick ? "25" : "200";
  const char *bench[] = { "./clc-bench", "--reps", reps, "--target-ms", target,
                          "--budget-s", budget, NULL };
  if (run->progress)
    g_printerr ("pticalibrate: operation costs: timing every code (%s runs each)...\n", reps);
  g_autoptr (GPtrArray) lines = NULL;
  double seconds;
  if (!cal_run_probe (run, bench, 1800, "the operation-cost benchmark failed", "clc-bench.out",
                      &lines, &seconds, error))
    return FALSE;

  double clock_ns = NAN, preempted = 0, dirty = 0, cmll = NAN, inll = NAN;
  /* the window probe's rows: length and time (ns) */
  double win_n[8], win_t[8], win_spread = 0;
  guint n_win = 0;
  for (guint i = 0; i < lines->len; i++) {
    const CalLine *l = g_ptr_array_index (lines, i);
    const char *code = cal_line_get (l, "code");
    if (strcmp (l->kind, "window") == 0 && n_win < G_N_ELEMENTS (win_n)) {
      CalStat row = cal_stat_from_line (l, "row");
      win_n[n_win] = cal_line_num (l, "n");
      win_t[n_win++] = row.med;
      win_spread = MAX (win_spread, cal_stat_spread (row));
    } else if (strcmp (l->kind, "clock") == 0)
      clock_ns = cal_line_num (l, "ns");
    else if (strcmp (l->kind, "noise") == 0) {
      preempted = cal_line_num (l, "preempted");
      dirty = cal_line_num (l, "dirty");
    } else if (strcmp (l->kind, "op") == 0 && code != NULL
               && (strcmp (code, "CMLL") == 0 || strcmp (code, "INLL") == 0)) {
      double v = o->latency && !isnan (cal_line_num (l, "lat")) ? cal_line_num (l, "lat")
                                                                 : cal_line_num (l, "thr");
      *(strcmp (code, "CMLL") == 0 ? &cmll : &inll) = v;
    }
  }
  g_autofree char *version = compiler_version (run, o->cc);
  g_autofree char *clock_text =
    isnan (clock_ns) ? g_strdup ("Clock not measured (not x86).")
                     : cal_strdup_printf ("Clock: 1 cycle = %.4g ns (%.3g GHz), from a chain of "
                                          "dependent integer adds.", clock_ns, 1 / clock_ns);
  g_autofree char *noise = cal_noise_text ("runs", preempted, dirty, "pairs");
  g_autofree char *head = cal_strdup_printf (
    "Operation costs: %s.  Compiler: %s; kernels built with `%s`, the harness at -O2.  Each "
    "code's C statement (in its comment) is repeated in a loop, 8 independent chains doing it "
    "2 or 4 times per iteration; (t(4) - t(2)) / 16 is one statement with the loop's own cost "
    "cancelled.  The cost written is the %s.  A run counts only if the process had the CPU "
    "for 97%% of it (CPU time against wall time): %s.  tests/calibrate/check-kernels.py checks "
    "the generated code: "
    "the 4-statement loop has 16 more of the statement's instruction than the 2-statement one "
    "and no SIMD, at -O0 to -O3, -Os, -Og, -Ofast.  %s  Benchmark time %.0f s.",
    o->latency ? "latencies" : "reciprocal throughputs", version, flags_text,
    o->latency ? "latency of one chain of dependent statements (statements with no result to "
                 "chain, stores, assignments, compares, logic, branches and calls, are given "
                 "their reciprocal throughput)"
               : "reciprocal throughput, how often one can start, as PACE's loop benchmark "
                 "measured (the latency of one dependent chain is in the comment)",
    noise, clock_text, seconds);
  cal_xml_comment (xml, 4, head);
  /* The window: a least-squares line through the probe's rows, t(N) =
   * alpha + beta N; each row's chain ran -alpha / beta iterations under the
   * row before, and a row holds 9 operations an iteration (as a RUD counts
   * them) and 8 of its own: the window is 9 (-alpha / beta) + 8. */
  g_autofree char *window_attr = NULL;
  g_autofree char *window_text = NULL;
  if (n_win >= 2) {
    double mn = 0, mt = 0, sxx = 0, sxy = 0;
    for (guint i = 0; i < n_win; i++) {
      mn += win_n[i] / n_win;
      mt += win_t[i] / n_win;
    }
    for (guint i = 0; i < n_win; i++) {
      sxx += (win_n[i] - mn) * (win_n[i] - mn);
      sxy += (win_n[i] - mn) * (win_t[i] - mt);
    }
    double beta = sxx > 0 ? sxy / sxx : NAN, alpha = mt - beta * mn;
    double k = -alpha / beta, window = 9 * k + 8;
    if (isfinite (window) && beta > 0 && window > 0) {
      g_autofree char *rows = g_strdup ("");
      for (guint i = 0; i < n_win; i++) {
        g_autofree char *prev = rows;
        rows = cal_strdup_printf ("%s%s%.0f: %.4g ns", prev, i ? ", " : "", win_n[i], win_t[i]);
      }
      g_autofree char *value = cal_decimal (window, 3);
      window_attr = g_strdup_printf (" window=\"%s\"", value);
      window_text = cal_strdup_printf (
        "Window (the operations in flight; overlap=\"units\" begins a restart=\"yes\" loop's "
        "chain under the previous execution's by that many): rows of a sparse matrix-vector "
        "product in L1, each a chain of dependent adds that `sum = 0` starts afresh "
        "(clc_window: 9 operations a product, 8 a row, as a RUD counts them), a row of N "
        "products (median of the runs; largest spread %.1f%%) %s; the line through them, "
        "%.4g + %.4g N ns, says each row's chain ran %.3g products under the row before: "
        "9 x %.3g + 8 = %s operations.", 100 * win_spread, rows, alpha, beta, k, k, value);
    }
  }
  if (window_text != NULL)
    cal_xml_comment (xml, 4, window_text);
  g_string_append_printf (xml, "    <cpu_clc unit=\"ns\"%s>\n", window_attr ? window_attr : "");

  guint written = 0, zero = 0;
  double worst_spread = 0;
  const char *worst_code = "";
  for (guint i = 0; i < lines->len; i++) {
    const CalLine *l = g_ptr_array_index (lines, i);
    const char *code = cal_line_get (l, "code");
    const char *text = cal_line_get (l, "text");
    if (code == NULL || (strcmp (l->kind, "op") != 0 && strcmp (l->kind, "loop") != 0))
      continue;
    double cost;
    g_autofree char *how = NULL;
    if (strcmp (l->kind, "loop") == 0) {
      /* LFOR: the loop header of a RUD is LFOR,CMLL,INLL; with LFOR the empty
       * iteration less the other two, the header costs what a loop does. */
      CalStat it = cal_stat_from_line (l, "iter");
      g_autofree char *st = stat_text (it, "ns");
      cost = it.med - cmll - inll;
      how = cal_strdup_printf ("%s: an empty iteration %s, less CMLL %.4g and INLL %.4g%s",
                               text ? text : code, st, cmll, inll,
                               cost < 0 ? "; negative, written as 0" : "");
      if (cal_stat_spread (it) > worst_spread) {
        worst_spread = cal_stat_spread (it);
        worst_code = code;
      }
    } else {
      CalStat thr = cal_stat_from_line (l, "thr"), lat = cal_stat_from_line (l, "lat");
      gboolean has_lat = !isnan (lat.med);
      gboolean use_lat = o->latency && has_lat;
      CalStat used = use_lat ? lat : thr;
      cost = used.med;
      g_autofree char *st = stat_text (used, "ns");
      g_autofree char *cycles =
        isnan (clock_ns) ? g_strdup ("") : cal_strdup_printf (" = %.2f cycles", cost / clock_ns);
      g_autofree char *other =
        use_lat ? cal_strdup_printf ("; throughput %.4g ns", thr.med)
                : has_lat ? cal_strdup_printf ("; latency %.4g ns", lat.med) : g_strdup ("");
      how = cal_strdup_printf ("%s, %s: %s%s%s", text ? text : code,
                               use_lat ? "1 chain" : "8 chains", st, cycles, other);
      if (cal_stat_spread (used) > worst_spread) {
        worst_spread = cal_stat_spread (used);
        worst_code = code;
      }
    }
    if (!(cost > 0)) {
      cost = 0;
      zero++;
    }
    g_autofree char *value = cal_decimal (cost, 4);
    cal_xml_comment (xml, 6, how);
    /* The latency, where a chain of the statement was timed, as data: the
     * overlap="units" model prices a loop's carried chain with it. */
    double lat = strcmp (l->kind, "op") == 0 ? cal_line_num (l, "lat") : NAN;
    g_autofree char *lat_value = lat > 0 ? cal_decimal (lat, 4) : NULL;
    g_autofree char *lat_attr =
      lat_value ? g_strdup_printf (" latency=\"%s\"", lat_value) : g_strdup ("");
    g_string_append_printf (xml, "      <%s%s>%s</%s>\n", code, lat_attr, value, code);
    written++;
  }
  g_string_append (xml, "    </cpu_clc>\n");
  if (written == 0) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_FAILED,
                 "the operation-cost benchmark printed no figure (its output is in %s)",
                 run->workdir);
    return FALSE;
  }
  g_autofree char *zero_text =
    zero ? cal_strdup_printf ("; %u at or below 0, written as 0", zero) : g_strdup ("");
  g_autofree char *line = cal_strdup_printf (
    "operation costs: %u codes at %s in %.0f s; largest spread (quartiles / median) %.1f%% "
    "(%s)%s; %g runs taken again (interrupted)\n", written, opt, seconds, 100 * worst_spread,
    worst_code, zero_text, preempted);
  g_string_append (report, line);
  return TRUE;
}
