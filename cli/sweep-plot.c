/* ptisweep's plots: predicted time, speedup and efficiency against one
 * swept parameter (--plot PARAM), one line per system and combination of
 * the other parameters, drawn with the chart helpers ptitrace's plots use.
 *
 * Speedup of a point is T(x0) / T(x), x0 the smallest value of PARAM in its
 * line; efficiency is speedup x x0 / x, the strong-scaling efficiency when
 * PARAM counts processes.  Points that could not be evaluated are left out
 * of their line. */
#include "ptisweep.h"
#include "chart.h"

#include <pti/hmi.h>

#include <math.h>
#include <string.h>

#define WIDTH 820
#define HEIGHT 520
#define LEGEND_MAX 12   /* entries shown; the rest are counted */

typedef struct {
  char *label;
  GArray *x, *t;        /* double, sorted by x once filled */
} Series;

static void
series_free (Series *s)
{
  g_free (s->label);
  g_array_unref (s->x);
  g_array_unref (s->t);
  g_free (s);
}

static guint
plot_param_index (const Sweep *sw, const char *name)
{
  for (guint k = 0; k < sw->params->len; k++)
    if (strcmp (((SweepParam *) sw->params->pdata[k])->name, name) == 0)
      return k;
  return G_MAXUINT;
}

gboolean
pti_sweep_plot_check (const Sweep *sw, const SweepPlot *o, GError **error)
{
  if (o->param == NULL) {
    if (o->prefix != NULL || o->format != NULL) {
      g_set_error (error, PTI_ERROR, PTI_ERROR_USAGE,
                   "--plot-output and --plot-format need --plot PARAM");
      return FALSE;
    }
    return TRUE;
  }
  guint k = plot_param_index (sw, o->param);
  if (k == G_MAXUINT) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_USAGE,
                 "--plot %s: not a swept parameter (give it with -D %s=VALUES)", o->param, o->param);
    return FALSE;
  }
  if (((SweepParam *) sw->params->pdata[k])->values->len < 2) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_USAGE,
                 "--plot %s: the parameter has one value; a plot needs two or more", o->param);
    return FALSE;
  }
  if (o->format != NULL && strcmp (o->format, "png") != 0 && strcmp (o->format, "svg") != 0) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_USAGE, "--plot-format %s: expected png or svg",
                 o->format);
    return FALSE;
  }
  return TRUE;
}

static int
cmp_double_pair (gconstpointer a, gconstpointer b)
{
  const double *x = a, *y = b;
  return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* The lines: by system and values of the other parameters, in point order. */
static GPtrArray *
collect_series (const Sweep *sw, guint k, const char *const *const *rows)
{
  GPtrArray *series = g_ptr_array_new_with_free_func ((GDestroyNotify) series_free);
  g_autoptr (GHashTable) by_key = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autofree guint *vi = g_new0 (guint, sw->params->len + 1);
  for (guint64 i = 0; i < sw->n_points; i++) {
    guint s;
    pti_sweep_point (sw, i, &s, vi);
    GString *key = g_string_new (NULL);
    if (sw->n_systems > 1)
      g_string_append (key, sw->systems[s]);
    for (guint p = 0; p < sw->params->len; p++) {
      if (p == k)
        continue;
      const SweepParam *sp = sw->params->pdata[p];
      if (sp->values->len > 1)
        g_string_append_printf (key, "%s%s=%s", key->len ? " " : "", sp->name, sp->texts[vi[p]]);
    }
    Series *se = g_hash_table_lookup (by_key, key->str);
    if (se == NULL) {
      se = g_new0 (Series, 1);
      se->label = g_strdup (key->len ? key->str : sw->systems[s]);
      se->x = g_array_new (FALSE, FALSE, sizeof (double) * 2);
      se->t = NULL;
      g_ptr_array_add (series, se);
      g_hash_table_insert (by_key, g_string_free (key, FALSE), se);
    } else {
      g_string_free (key, TRUE);
    }
    double t;
    const char *tt = rows[i][sw->col_time];
    if (tt[0] == '\0' || rows[i][sw->col_error][0] != '\0')
      continue;
    t = g_ascii_strtod (tt, NULL);
    double pair[2] = { g_array_index (((SweepParam *) sw->params->pdata[k])->values, double, vi[k]), t };
    g_array_append_vals (se->x, pair, 1);
  }
  /* Pairs sorted by x, then split into x and t. */
  for (guint i = 0; i < series->len; i++) {
    Series *se = series->pdata[i];
    g_array_sort (se->x, cmp_double_pair);
    GArray *x = g_array_new (FALSE, FALSE, sizeof (double));
    se->t = g_array_new (FALSE, FALSE, sizeof (double));
    for (guint j = 0; j < se->x->len; j++) {
      const double *pair = (const double *) (void *) (se->x->data + j * 2 * sizeof (double));
      g_array_append_val (x, pair[0]);
      g_array_append_val (se->t, pair[1]);
    }
    g_array_unref (se->x);
    se->x = x;
  }
  return series;
}

enum { Y_TIME, Y_SPEEDUP, Y_EFFICIENCY };

static double
y_value (const Series *se, guint j, int what)
{
  double t = g_array_index (se->t, double, j);
  if (what == Y_TIME)
    return t;
  double x0 = g_array_index (se->x, double, 0), t0 = g_array_index (se->t, double, 0);
  double s = t > 0 ? t0 / t : NAN;
  if (what == Y_SPEEDUP)
    return s;
  double x = g_array_index (se->x, double, j);
  return x != 0 ? s * x0 / x : NAN;
}

/* A linear x axis from @lo to @hi over device [x0, x1] at y = @y. */
static double
x_of (double v, double lo, double hi, double x0, double x1)
{
  return hi > lo ? x0 + (v - lo) / (hi - lo) * (x1 - x0) : (x0 + x1) / 2;
}

static void
draw_x_axis (cairo_t *cr, double lo, double hi, double x0, double x1, double top, double y,
             const char *label)
{
  double span = hi > lo ? hi - lo : fabs (hi) + 1;
  double step = pt_nice_step (span / MAX ((x1 - x0) / 90.0, 2.0));
  int decimals = MAX ((int) ceil (-log10 (step) - 1e-9), 0);
  cairo_set_line_width (cr, 1);
  for (double v = ceil (lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step) {
    double x = round (x_of (v, lo, hi, x0, x1)) + 0.5;
    cairo_set_source_rgb (cr, 0.88, 0.88, 0.88);
    cairo_move_to (cr, x, top);
    cairo_line_to (cr, x, y);
    cairo_stroke (cr);
    cairo_set_source_rgb (cr, 0.2, 0.2, 0.2);
    cairo_move_to (cr, x, y);
    cairo_line_to (cr, x, y + 5);
    cairo_stroke (cr);
    g_autofree char *l = pt_num (v, decimals);
    pt_text (cr, x, y + 8, 11, FALSE, 0.5, 0, l);
  }
  cairo_set_source_rgb (cr, 0.2, 0.2, 0.2);
  cairo_move_to (cr, x0, y + 0.5);
  cairo_line_to (cr, x1, y + 0.5);
  cairo_stroke (cr);
  pt_text (cr, (x0 + x1) / 2, y + 28, 12, FALSE, 0.5, 0, label);
}

static gboolean
draw_one (const Sweep *sw, const SweepPlot *o, GPtrArray *series, int what, const char *path,
          PtFormat fmt, GError **error)
{
  static const char *const names[] = { "predicted time", "speedup", "efficiency" };
  static const char *const units[] = { "s", "", "" };
  PtCanvas c;
  if (!pt_canvas_open (&c, path, fmt, WIDTH, HEIGHT, error)) {
    pt_canvas_clear (&c);
    return FALSE;
  }
  cairo_t *cr = c.cr;
  double lo = INFINITY, hi = -INFINITY, vmax = 0;
  for (guint i = 0; i < series->len; i++) {
    const Series *se = series->pdata[i];
    for (guint j = 0; j < se->x->len; j++) {
      double x = g_array_index (se->x, double, j), v = y_value (se, j, what);
      lo = MIN (lo, x);
      hi = MAX (hi, x);
      if (isfinite (v))
        vmax = MAX (vmax, v);
    }
  }
  if (!isfinite (lo))
    lo = hi = 0;
  if (!(vmax > 0))
    vmax = 1;
  /* Times of programs are often below a second: label them in ms or us. */
  double scale = 1;
  const char *unit = units[what];
  if (what == Y_TIME && vmax < 1e-3)
    scale = 1e6, unit = "\xc2\xb5s";
  else if (what == Y_TIME && vmax < 1)
    scale = 1e3, unit = "ms";
  vmax *= scale;
  g_autofree char *main = g_strdup_printf ("%s against %s", names[what], o->param);
  g_autofree char *base = g_path_get_basename (sw->workload);
  g_autofree char *sub = g_strdup_printf ("workload %s, %" G_GUINT64_FORMAT " points%s", base,
                                          sw->n_points, what == Y_TIME ? ""
                                          : what == Y_SPEEDUP ? "; T(first) / T"
                                          : "; speedup x first / value");
  pt_title (&c, main, sub);
  /* Legend rows under the title. */
  double lx = 20, ly = 66;
  guint shown = MIN (series->len, LEGEND_MAX);
  for (guint i = 0; i < shown; i++) {
    const Series *se = series->pdata[i];
    if (lx + pt_legend_width (cr, se->label) > WIDTH - 20) {
      lx = 20;
      ly += 18;
    }
    pt_legend_box (cr, &lx, ly, pt_series_colors[i % PT_MAX_SERIES], se->label, TRUE);
  }
  if (series->len > shown) {
    g_autofree char *more = g_strdup_printf ("and %u more", series->len - shown);
    cairo_set_source_rgb (cr, 0.35, 0.35, 0.35);
    pt_text (cr, lx, ly, 11, FALSE, 0, 0.5, more);
  }
  double left = 90, right = WIDTH - 30, top = ly + 22, bottom = HEIGHT - 56;
  PtValueAxis ya = { .vmax = vmax * 1.05, .y0 = bottom, .y1 = top };
  pt_draw_value_axis (cr, &ya, left, right, names[what], unit, TRUE);
  double pad = hi > lo ? (hi - lo) * 0.03 : 1;
  draw_x_axis (cr, lo - pad, hi + pad, left, right, top, bottom, o->param);
  for (guint i = 0; i < series->len; i++) {
    const Series *se = series->pdata[i];
    pt_set_rgb (cr, pt_series_colors[i % PT_MAX_SERIES]);
    cairo_set_line_width (cr, 2);
    gboolean pen = FALSE;
    for (guint j = 0; j < se->x->len; j++) {
      double v = y_value (se, j, what);
      if (!isfinite (v)) {
        pen = FALSE;
        continue;
      }
      double x = x_of (g_array_index (se->x, double, j), lo - pad, hi + pad, left, right);
      double y = pt_y_of (&ya, v * scale);
      if (pen)
        cairo_line_to (cr, x, y);
      else
        cairo_move_to (cr, x, y);
      pen = TRUE;
    }
    cairo_stroke (cr);
    for (guint j = 0; j < se->x->len; j++) {
      double v = y_value (se, j, what);
      if (!isfinite (v))
        continue;
      double x = x_of (g_array_index (se->x, double, j), lo - pad, hi + pad, left, right);
      cairo_arc (cr, x, pt_y_of (&ya, v * scale), 3, 0, 2 * G_PI);
      cairo_fill (cr);
    }
  }
  gboolean ok = pt_canvas_finish (&c, error);
  pt_canvas_clear (&c);
  return ok;
}

gboolean
pti_sweep_plot (const Sweep *sw, const SweepPlot *o, const char *const *const *rows,
                GError **error)
{
  if (o->param == NULL)
    return TRUE;
  guint k = plot_param_index (sw, o->param);
  g_autoptr (GPtrArray) series = collect_series (sw, k, rows);
  g_autofree char *prefix = NULL;
  if (o->prefix != NULL)
    prefix = g_strdup (o->prefix);
  else {
    const char *dot = strrchr (sw->output, '.');
    prefix = g_strndup (sw->output, dot ? (gsize) (dot - sw->output) : strlen (sw->output));
  }
  gboolean svg = o->format != NULL && strcmp (o->format, "svg") == 0;
  static const char *const what[] = { "time", "speedup", "efficiency" };
  int i;
  for (i = 0; i < 3; i++) {
    g_autofree char *path = g_strdup_printf ("%s-%s.%s", prefix, what[i], svg ? "svg" : "png");
    if (!draw_one (sw, o, series, i, path, svg ? PT_FMT_SVG : PT_FMT_PNG, error))
      break;
  }
  /* Release cairo's font caches (and the fontconfig patterns they hold):
   * nothing is drawn after this, and leak checkers stay quiet. */
  cairo_debug_reset_static_data ();
  return i == 3;
}
