/* The host's dense floating-point rate (seed 002's machine profile has a
 * floating-point rate beside the memory profile): its BLAS dgemm, timed by
 * flops-bench.c, written as cpu-clc's <flop_rate>, which prices
 * computations given as flops (<use_flops>, models/cpu-time/README.md).
 * The BLAS is dlopen'ed by the probe (calibrate/README.md says why). */
#include "calibrate.h"

#include <pti/hmi.h>

#include <math.h>
#include <string.h>

/* The sizes timed; the rate written is the last one's (README.md). */
#define FLOPS_SIZES_QUICK "512,1024"
#define FLOPS_SIZES_FULL "256,512,1024"

gboolean
cal_flops_measure (const CalRun *run, const char *cc, const char *lib, GString *xml,
                   GString *report, GString *skipped, GError **error)
{
  if (!cal_write_probe (run->workdir, "flops-bench.c", pti_cal_flops_bench_c, error))
    return FALSE;
  const char *build[] = { cc, "-O2", "-o", "flops-bench", "flops-bench.c", "-ldl", "-lm", NULL };
  if (run->progress)
    g_printerr ("pticalibrate: floating-point rate: the BLAS dgemm of %s...\n", lib);
  if (!cal_build (run->workdir, build, "the floating-point probe does not compile", error))
    return FALSE;
  const char *sizes = run->quick ? FLOPS_SIZES_QUICK : FLOPS_SIZES_FULL;
  const char *argv[] = { "./flops-bench", "--lib", lib, "--sizes", sizes,
                         "--reps", run->quick ? "3" : "9",
                         "--budget-s", run->quick ? "10" : "60", NULL };
  g_autoptr (GPtrArray) lines = NULL;
  double seconds;
  if (!cal_run_probe (run, argv, 600, "the floating-point probe failed", "flops-bench.out",
                      &lines, &seconds, error))
    return FALSE;
  g_autoptr (GString) sizes_text = g_string_new (NULL);
  CalStat last = { .med = NAN };
  double last_n = NAN, preempted = 0, dirty = 0;
  for (guint i = 0; i < lines->len; i++) {
    const CalLine *l = g_ptr_array_index (lines, i);
    if (strcmp (l->kind, "noblas") == 0) {
      const char *why = cal_line_get (l, "text");
      g_printerr ("pticalibrate: warning: no floating-point rate: cannot load the BLAS %s (%s).  "
                  "Computations given as flops will be refused on this system; install one "
                  "(Debian: libblas3) or name it with --blas\n", lib, why ? why : "?");
      g_string_append_printf (skipped, "Floating-point rate not measured: the BLAS %s could not "
                              "be loaded (%s); without <flop_rate> computations given as flops "
                              "are refused.\n", lib, why ? why : "?");
      return TRUE;
    }
    if (strcmp (l->kind, "dgemm") != 0)
      continue;
    double check = cal_line_num (l, "check");
    if (!(check < 1e-9)) {
      g_set_error (error, PTI_ERROR, PTI_ERROR_FAILED,
                   "the BLAS %s computed a wrong product (relative error %g at n=%g): its "
                   "rate would mean nothing", lib, check, cal_line_num (l, "n"));
      return FALSE;
    }
    last = cal_stat_from_line (l, "gflops");
    last_n = cal_line_num (l, "n");
    preempted += cal_line_num (l, "preempted");
    dirty += cal_line_num (l, "dirty");
    g_string_append_printf (sizes_text, "%sn = %g: median of %d runs %.4g GFlop/s, quartiles "
                            "%.4g-%.4g (%.1f%%), range %.4g-%.4g",
                            sizes_text->len ? "; " : "", last_n, last.n, last.med, last.q1,
                            last.q3, 100 * cal_stat_spread (last), last.min, last.max);
  }
  if (isnan (last.med) || !(last.med > 0)) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_FAILED,
                 "the floating-point probe printed no rate (its output is in %s)", run->workdir);
    return FALSE;
  }
  g_autofree char *noise = cal_noise_text ("runs", preempted, dirty, "runs");
  g_autofree char *comment = cal_strdup_printf (
    "Floating-point rate: the host's BLAS dgemm (%s, opened by the probe with dlopen), C = A B "
    "for n x n doubles, 2 n^3 flops a product, timed after one warm-up product; the rate of "
    "the largest size is written (its matrices are past the L2 cache, as a program's are).  "
    "%s.  A run counts only if the process had the CPU for 97%% of it: %s.  It prices "
    "computations given as flops (use_flops: f flops take f / flop_rate).",
    lib, sizes_text->str, noise);
  g_autofree char *value = cal_decimal (last.med, 4);
  cal_xml_comment (xml, 6, comment);
  g_string_append_printf (xml, "      <flop_rate unit=\"GFlop/s\">%s</flop_rate>\n", value);
  g_autofree char *line = cal_strdup_printf (
    "floating-point rate: %s GFlop/s (dgemm n=%g, quartiles / median %.1f%%) in %.0f s\n", value,
    last_n, 100 * cal_stat_spread (last), seconds);
  g_string_append (report, line);
  return TRUE;
}
