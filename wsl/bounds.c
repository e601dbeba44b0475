/* Bounded predictions: which corners of the ranges to evaluate, and what
 * their predictions show (bounds.h; wsl/README.md says what is a bound). */
#include "bounds.h"

#include <math.h>
#include <string.h>

void
pti_bounds_clear (PtiBounds *b)
{
  g_clear_pointer (&b->lower_corner, g_free);
  g_clear_pointer (&b->upper_corner, g_free);
  g_clear_pointer (&b->warnings, g_ptr_array_unref);
}

static const struct {
  const char *name;
  PtiBoundsMethod method;
} methods[] = {
  { "directed", PTI_BOUNDS_DIRECTED }, { "exhaustive", PTI_BOUNDS_EXHAUSTIVE },
  { "none", PTI_BOUNDS_NONE } };

const char *
pti_bounds_method_name (PtiBoundsMethod method)
{
  for (guint i = 0; i < G_N_ELEMENTS (methods); i++)
    if (methods[i].method == method)
      return methods[i].name;
  return "?";
}

gboolean
pti_bounds_method_parse (const char *text, PtiBoundsMethod *method, GError **error)
{
  for (guint i = 0; i < G_N_ELEMENTS (methods); i++)
    if (strcmp (text, methods[i].name) == 0) {
      *method = methods[i].method;
      return TRUE;
    }
  g_set_error (error, PTI_ERROR, PTI_ERROR_USAGE,
               "--bounds=%s: expected directed, exhaustive or none", text);
  return FALSE;
}

char *
pti_bounds_trace_name (const char *trace, const char *which)
{
  if (g_str_has_suffix (trace, ".xml") && strlen (trace) > 4)
    return g_strdup_printf ("%.*s.%s.xml", (int) (strlen (trace) - 4), trace, which);
  return g_strdup_printf ("%s.%s", trace, which);
}

/* The end of @r that makes a run fastest (@slow: slowest), as its sense says. */
static PtiRangeEnd
directed_end (const PtiRange *r, gboolean slow)
{
  gboolean high_is_slow = r->sense == PTI_RANGE_SENSE_SLOWER_WHEN_HIGHER;
  return high_is_slow == slow ? PTI_RANGE_HIGH : PTI_RANGE_LOW;
}

/* Corner @mask over the ranges in @free (bit i: free[i] at its high end),
 * the others at their directed end (@slow). */
static void
corner_fill (PtiRanges *ranges, const GArray *free, guint64 mask, gboolean slow, PtiRangeEnd *ends)
{
  guint n = pti_ranges_count (ranges);
  for (guint i = 0; i < n; i++)
    ends[i] = directed_end (pti_ranges_nth (ranges, i), slow);
  for (guint b = 0; b < free->len; b++)
    ends[g_array_index (free, guint, b)] = (mask >> b) & 1 ? PTI_RANGE_HIGH : PTI_RANGE_LOW;
}

static gboolean
run_corner (PtiRanges *ranges, const PtiRangeEnd *ends, const char *trace, PtiBoundsRun run,
            gpointer data, double *time, GError **error)
{
  guint n = pti_ranges_count (ranges);
  for (guint i = 0; i < n; i++)
    pti_ranges_choose (ranges, pti_ranges_nth (ranges, i)->key, ends[i]);
  gboolean ok = run (ranges, trace, time, data, error);
  for (guint i = 0; i < n; i++)   /* leave them as found: nominal */
    pti_ranges_choose (ranges, pti_ranges_nth (ranges, i)->key, PTI_RANGE_NOMINAL);
  return ok;
}

/* Two predictions equal to rounding: analytical repetition and summation
 * order leave a few ulps between equal quantities. */
static gboolean
same_time (double a, double b)
{
  return fabs (a - b) <= 1e-9 * fmax (fabs (a), fabs (b));
}

/* The names of the ranges of @ends that differ from their directed end. */
static char *
contradicted (PtiRanges *ranges, const PtiRangeEnd *ends, gboolean slow)
{
  g_autoptr (GString) s = g_string_new (NULL);
  for (guint i = 0; i < pti_ranges_count (ranges); i++) {
    const PtiRange *r = pti_ranges_nth (ranges, i);
    if (r->sense != PTI_RANGE_SENSE_UNKNOWN && ends[i] != directed_end (r, slow))
      g_string_append_printf (s, "%s%s (%s)", s->len ? ", " : "", r->label,
                              pti_range_sense_name (r->sense));
  }
  return g_string_free (g_steal_pointer (&s), FALSE);
}

/* Whether @ends has every range of known sense at its end in @directed. */
static gboolean
agrees (PtiRanges *ranges, const PtiRangeEnd *ends, const PtiRangeEnd *directed)
{
  for (guint i = 0; i < pti_ranges_count (ranges); i++)
    if (pti_ranges_nth (ranges, i)->sense != PTI_RANGE_SENSE_UNKNOWN && ends[i] != directed[i])
      return FALSE;
  return TRUE;
}

gboolean
pti_bounds_compute (PtiRanges *ranges, PtiBoundsMethod method, guint limit, double nominal,
                    const char *trace_lower, const char *trace_upper, PtiBoundsRun run,
                    gpointer data, PtiBounds *out, GError **error)
{
  memset (out, 0, sizeof *out);
  out->method = method;
  out->lower = out->upper = nominal;
  out->warnings = g_ptr_array_new_with_free_func (g_free);
  guint n = pti_ranges_count (ranges);
  out->lower_corner = g_new0 (PtiRangeEnd, n + 1);
  out->upper_corner = g_new0 (PtiRangeEnd, n + 1);
  if (method == PTI_BOUNDS_NONE || n == 0)
    return TRUE;

  /* The ranges whose both ends are tried: those of unknown sense, or all. */
  g_autoptr (GArray) free = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 0; i < n; i++)
    if (method == PTI_BOUNDS_EXHAUSTIVE || pti_ranges_nth (ranges, i)->sense == PTI_RANGE_SENSE_UNKNOWN)
      g_array_append_val (free, i);
  /* directed: one set of corners per bound, unless every range is free */
  gboolean shared = free->len == n;
  guint64 corners = free->len < 63 ? G_GUINT64_CONSTANT (1) << free->len : G_MAXUINT64;
  guint64 needed = shared ? corners : (corners > G_MAXUINT64 / 2 ? G_MAXUINT64 : 2 * corners);
  if (needed > limit) {
    g_autoptr (GString) names = g_string_new (NULL);
    for (guint b = 0; b < free->len && b < 8; b++)
      g_string_append_printf (names, "%s%s", b ? ", " : "",
                              pti_ranges_nth (ranges, g_array_index (free, guint, b))->label);
    if (free->len > 8)
      g_string_append_printf (names, " and %u more", free->len - 8);
    g_set_error (error, PTI_ERROR, PTI_ERROR_USAGE,
                 "bounds by %s corners need %s%" G_GUINT64_FORMAT " evaluations (both ends of %u "
                 "range%s: %s), more than --bounds-limit=%u; raise the limit or fix some of "
                 "them (-D NAME=VALUE for a parameter)%s",
                 method == PTI_BOUNDS_EXHAUSTIVE ? "exhaustive" : "directed",
                 needed == G_MAXUINT64 ? "more than " : "", needed, free->len,
                 free->len == 1 ? "" : "s", names->str, limit,
                 method == PTI_BOUNDS_EXHAUSTIVE
                   ? "; --bounds=directed tries both ends only of the ranges of unknown sense" : "");
    return FALSE;
  }

  gint64 t0 = g_get_monotonic_time ();
  g_autofree PtiRangeEnd *ends = g_new0 (PtiRangeEnd, n + 1);
  g_autofree PtiRangeEnd *directed_lo = g_new0 (PtiRangeEnd, n + 1);
  g_autofree PtiRangeEnd *directed_hi = g_new0 (PtiRangeEnd, n + 1);
  for (guint i = 0; i < n; i++) {
    directed_lo[i] = directed_end (pti_ranges_nth (ranges, i), FALSE);
    directed_hi[i] = directed_end (pti_ranges_nth (ranges, i), TRUE);
  }
  double directed_lo_time = NAN, directed_hi_time = NAN;
  gboolean have_lo = FALSE, have_hi = FALSE;
  /* A bound with one candidate corner writes its trace as it runs. */
  gboolean single = corners == 1 && !shared;
  for (int pass = 0; pass < (shared ? 1 : 2); pass++) {
    gboolean slow = pass == 1;
    for (guint64 mask = 0; mask < corners; mask++) {
      corner_fill (ranges, free, mask, slow, ends);
      const char *trace = single ? (slow ? trace_upper : trace_lower) : NULL;
      double t;
      if (!run_corner (ranges, ends, trace, run, data, &t, error)) {
        g_prefix_error (error, "bound run at corner %" G_GUINT64_FORMAT " (%s): ", mask,
                        slow ? "upper" : "lower");
        return FALSE;
      }
      out->runs++;
      if ((shared || !slow) && (!have_lo || t < out->lower)) {
        out->lower = t;
        memcpy (out->lower_corner, ends, n * sizeof *ends);
        have_lo = TRUE;
      }
      if ((shared || slow) && (!have_hi || t > out->upper)) {
        out->upper = t;
        memcpy (out->upper_corner, ends, n * sizeof *ends);
        have_hi = TRUE;
      }
      /* exhaustive: the best of the corners that agree with the senses */
      if (agrees (ranges, ends, directed_lo) && !(directed_lo_time <= t))
        directed_lo_time = t;
      if (agrees (ranges, ends, directed_hi) && !(directed_hi_time >= t))
        directed_hi_time = t;
    }
  }
  /* What the corners show about the assumptions.  The nominal run is a
   * point of the box too: a bound never excludes it. */
  if (nominal < out->lower && !same_time (nominal, out->lower)) {
    g_ptr_array_add (out->warnings, g_strdup_printf (
      "the nominal prediction (%.9g s) is below every corner's (%.9g s): the prediction is not "
      "monotone in these ranges, so the lower bound is the nominal run's and only an estimate",
      nominal, out->lower));
    out->lower = nominal;
    memset (out->lower_corner, 0, n * sizeof *out->lower_corner);   /* all nominal */
  }
  if (nominal > out->upper && !same_time (nominal, out->upper)) {
    g_ptr_array_add (out->warnings, g_strdup_printf (
      "the nominal prediction (%.9g s) is above every corner's (%.9g s): the prediction is not "
      "monotone in these ranges, so the upper bound is the nominal run's and only an estimate",
      nominal, out->upper));
    out->upper = nominal;
    memset (out->upper_corner, 0, n * sizeof *out->upper_corner);
  }
  if (method == PTI_BOUNDS_EXHAUSTIVE) {
    if (isfinite (directed_lo_time) && !same_time (directed_lo_time, out->lower)) {
      g_autofree char *names = contradicted (ranges, out->lower_corner, FALSE);
      g_ptr_array_add (out->warnings, g_strdup_printf (
        "the stated senses do not hold: the fastest corner (%.9g s) is faster than every "
        "corner that agrees with them (%.9g s); it differs from them in %s", out->lower, directed_lo_time, names));
    }
    if (isfinite (directed_hi_time) && !same_time (directed_hi_time, out->upper)) {
      g_autofree char *names = contradicted (ranges, out->upper_corner, TRUE);
      g_ptr_array_add (out->warnings, g_strdup_printf (
        "the stated senses do not hold: the slowest corner (%.9g s) is slower than every "
        "corner that agrees with them (%.9g s); it differs from them in %s", out->upper, directed_hi_time, names));
    }
  }
  /* Traces of bounds found among several corners: their corner again. */
  for (int which = 0; which < 2 && !single; which++) {
    const char *trace = which ? trace_upper : trace_lower;
    if (trace == NULL)
      continue;
    double t;
    if (!run_corner (ranges, which ? out->upper_corner : out->lower_corner, trace, run, data, &t,
                     error))
      return FALSE;
    out->runs++;
  }
  out->wall_s = (g_get_monotonic_time () - t0) / 1e6;
  return TRUE;
}
