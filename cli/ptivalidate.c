/* ptivalidate: modelling assertions (seed 004) checked against real runs.
 *
 *   ptivalidate [OPTIONS] WORKLOAD.xml CAPTURE...
 *
 * Every <term phase name value bound/> of the workload is evaluated, rank by
 * rank, with the parameters each capture recorded (pti_region_param), and
 * compared with what the program measured in the region of that name: the
 * counter `name` summed over the region's entries, or messages, bytes,
 * calls, time, entries.  The report gives every point (capture, rank, model,
 * measured, relative error), each term's largest error and whether it stays
 * within its bound; text on stdout, JSON (--json) and one plot per term
 * (--plots DIR: model against measured over the captures).  Exit 0 when
 * every term is within its bound, 4 when one is not, 1 on an error. */
#include "capture-reader.h"
#include "wsl-private.h"
#include "xml.h"
#include "cli-options.h"

#include <cairo.h>
#include <cairo-svg.h>
#include <errno.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- what a capture measured ---- */

typedef struct {
  char *dir;
  guint n_ranks;
  GPtrArray *param_names;       /* char *, in the order first set (rank 0) */
  GArray *param_values;         /* double */
  GHashTable *sums;             /* "phase\x1fname" -> double[n_ranks] */
} Measured;

static void
measured_free (Measured *m)
{
  g_free (m->dir);
  g_ptr_array_unref (m->param_names);
  g_array_unref (m->param_values);
  g_hash_table_destroy (m->sums);
  g_free (m);
}

static double *
sum_slot (Measured *m, const char *phase, const char *name)
{
  g_autofree char *key = g_strdup_printf ("%s\x1f%s", phase, name);
  double *v = g_hash_table_lookup (m->sums, key);
  if (v == NULL) {
    v = g_new0 (double, m->n_ranks);
    g_hash_table_insert (m->sums, g_steal_pointer (&key), v);
  }
  return v;
}

typedef struct {
  Measured *m;
  guint rank;
  GArray *begins;               /* guint64 t of the open regions */
} RankMarks;

static gboolean
on_mark (const PtiCaptureMark *k, gpointer data, GError **error)
{
  (void) error;
  RankMarks *rm = data;
  Measured *m = rm->m;
  switch (k->kind) {
  case PTI_CAPTURE_MARK_BEGIN:
    g_array_append_val (rm->begins, k->t);
    break;
  case PTI_CAPTURE_MARK_END: {
    guint64 t0 = g_array_index (rm->begins, guint64, rm->begins->len - 1);
    g_array_set_size (rm->begins, rm->begins->len - 1);
    sum_slot (m, k->name, "time")[rm->rank] += (double) (k->t - t0) * 1e-9;
    sum_slot (m, k->name, "entries")[rm->rank] += 1;
    sum_slot (m, k->name, "calls")[rm->rank] += (double) k->calls;
    sum_slot (m, k->name, "messages")[rm->rank] += (double) k->messages;
    sum_slot (m, k->name, "bytes")[rm->rank] += (double) k->bytes;
    break;
  }
  case PTI_CAPTURE_MARK_PARAM:
    if (rm->rank == 0) {
      guint i;
      for (i = 0; i < m->param_names->len; i++)
        if (strcmp (g_ptr_array_index (m->param_names, i), k->name) == 0)
          break;
      if (i == m->param_names->len) {
        g_ptr_array_add (m->param_names, g_strdup (k->name));
        g_array_append_val (m->param_values, k->value);
      } else
        g_array_index (m->param_values, double, i) = k->value;
    }
    break;
  default:
    break;
  }
  return TRUE;
}

/* COUNT records name their region by id, which the rank's reader knows. */
typedef struct {
  RankMarks base;
  PtiCaptureRank *reader;
} CountMarks;

static gboolean
on_mark_counts (const PtiCaptureMark *k, gpointer data, GError **error)
{
  CountMarks *cm = data;
  if (k->kind == PTI_CAPTURE_MARK_COUNT) {
    const char *region = pti_capture_rank_region_name (cm->reader, k->region);
    sum_slot (cm->base.m, region, k->name)[cm->base.rank] += k->value;
    return TRUE;
  }
  return on_mark (k, &cm->base, error);
}

static Measured *
measure_all (const char *dir, GError **error)
{
  g_autoptr (PtiCaptureTrace) trace = pti_capture_trace_open (dir, error);
  if (trace == NULL)
    return NULL;
  Measured *m = g_new0 (Measured, 1);
  m->dir = g_strdup (dir);
  m->n_ranks = pti_capture_trace_n_ranks (trace);
  m->param_names = g_ptr_array_new_with_free_func (g_free);
  m->param_values = g_array_new (FALSE, FALSE, sizeof (double));
  m->sums = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  for (guint r = 0; r < m->n_ranks; r++) {
    g_autoptr (PtiCaptureRank) rank = pti_capture_rank_open (trace, r, error);
    if (rank == NULL) {
      measured_free (m);
      return NULL;
    }
    CountMarks cm = { .base = { .m = m, .rank = r,
                                .begins = g_array_new (FALSE, FALSE, sizeof (guint64)) },
                      .reader = rank };
    pti_capture_rank_set_mark_func (rank, on_mark_counts, &cm);
    gboolean done = FALSE, ok = TRUE;
    while (ok && !done) {
      PtiCaptureEvent ev;
      ok = pti_capture_rank_next (rank, &ev, &done, error);
    }
    g_array_unref (cm.base.begins);
    if (!ok) {
      measured_free (m);
      return NULL;
    }
  }
  return m;
}

/* ---- the model ---- */

typedef struct {
  guint capture, rank;
  double model, measured, error;
  gboolean passed;
} Point;

typedef struct {
  char *phase, *name, *value, *origin;
  double bound;
  GArray *points;               /* Point */
  double max_error;             /* of |error| */
  gboolean passed;
} TermResult;

static void
term_result_free (gpointer p)
{
  TermResult *t = p;
  g_free (t->phase);
  g_free (t->name);
  g_free (t->value);
  g_free (t->origin);
  g_array_unref (t->points);
  g_free (t);
}

static double
rel_error (double model, double measured)
{
  if (model == measured)
    return 0;
  return (measured - model) / fabs (model);   /* model 0: +-inf, never within a bound */
}

static char *
find_default_system (void)
{
  g_autofree char *xsd = pti_xml_find_schema ("workload.xsd", NULL);
  if (xsd == NULL)
    return NULL;
  g_autofree char *dir = g_path_get_dirname (xsd);
  char *sys = g_build_filename (dir, "..", "configs", "pc_cluster.xml", NULL);
  if (g_file_test (sys, G_FILE_TEST_IS_REGULAR))
    return sys;
  g_free (sys);
  return NULL;
}

/* Evaluates every term for capture @ci and adds its points to @results
 * (made on the first capture; the same file gives the same terms). */
static gboolean
model_capture (const char *system, const char *workload, char **defines, const Measured *m,
               guint ci, double default_bound, GPtrArray *results, GError **error)
{
  g_autoptr (PtiContext) ctx = pti_context_new (system, NULL, error);
  if (ctx == NULL)
    return FALSE;
  for (guint i = 0; i < m->param_names->len; i++) {
    g_autofree char *v = g_strdup_printf ("%.17g", g_array_index (m->param_values, double, i));
    if (!pti_context_override_param (ctx, g_ptr_array_index (m->param_names, i), v, error))
      return FALSE;
  }
  for (char **d = defines; d && *d; d++) {
    const char *eq = strchr (*d, '=');
    g_autofree char *name = g_strndup (*d, eq ? (gsize) (eq - *d) : strlen (*d));
    if (eq == NULL || !pti_context_override_param (ctx, name, eq + 1, error)) {
      if (eq == NULL)
        g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "-D %s: expected NAME=VALUE", *d);
      return FALSE;
    }
  }
  if (!pti_workload_file_build (ctx, workload, error)) {
    g_prefix_error (error, "%s with the parameters of %s: ", workload, m->dir);
    return FALSE;
  }
  if (pti_context_get_processes (ctx) != m->n_ranks) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "%s: %u ranks, but %s with its parameters has %u processes (does the program "
                 "record the parameters that size it, with pti_region_param?)",
                 m->dir, m->n_ranks, workload, pti_context_get_processes (ctx));
    return FALSE;
  }
  const GPtrArray *terms = pti_wsl_terms (ctx);
  if (terms == NULL || terms->len == 0) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "%s states no <term phase name value/>: nothing to validate", workload);
    return FALSE;
  }
  if (results->len == 0)
    for (guint j = 0; j < terms->len; j++) {
      const PtiWslTerm *t = g_ptr_array_index (terms, j);
      TermResult *tr = g_new0 (TermResult, 1);
      tr->phase = g_strdup (t->phase);
      tr->name = g_strdup (t->name);
      tr->value = g_strdup (t->value);
      tr->origin = g_strdup (t->origin);
      tr->bound = isnan (t->bound) ? default_bound : t->bound;
      tr->points = g_array_new (FALSE, FALSE, sizeof (Point));
      tr->passed = TRUE;
      g_ptr_array_add (results, tr);
    }
  PtiSymbols *sym = pti_context_get_symbols (ctx);
  guint slot_rank = pti_symbols_intern (sym, "rank");
  for (guint j = 0; j < terms->len; j++) {
    const PtiWslTerm *t = g_ptr_array_index (terms, j);
    TermResult *tr = g_ptr_array_index (results, j);
    g_autofree char *key = g_strdup_printf ("%s\x1f%s", t->phase, t->name);
    const double *meas = g_hash_table_lookup (m->sums, key);
    if (meas == NULL) {
      g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                   "%s: term %s:%s: %s has no region '%s' with a measure '%s' (a region the "
                   "program never entered, or a counter it never counted there)",
                   t->origin, t->phase, t->name, m->dir, t->phase, t->name);
      return FALSE;
    }
    g_autoptr (PtiExpr) e = pti_expr_compile (t->value, sym, error);
    if (e == NULL)
      return FALSE;
    for (guint r = 0; r < m->n_ranks; r++) {
      pti_symbols_set (sym, slot_rank, r);
      Point p = { .capture = ci, .rank = r, .measured = meas[r] };
      if (!pti_expr_check (e, sym, &p.model, error)) {
        g_prefix_error (error, "%s: term %s:%s, rank %u of %s: ", t->origin, t->phase, t->name,
                        r, m->dir);
        return FALSE;
      }
      p.error = rel_error (p.model, p.measured);
      p.passed = fabs (p.error) <= tr->bound;
      tr->passed = tr->passed && p.passed;
      if (!(fabs (p.error) <= tr->max_error))
        tr->max_error = fabs (p.error);
      g_array_append_val (tr->points, p);
    }
  }
  return TRUE;
}

/* ---- reports ---- */

static double
capture_param (const Measured *m, const char *name)
{
  for (guint i = 0; i < m->param_names->len; i++)
    if (strcmp (g_ptr_array_index (m->param_names, i), name) == 0)
      return g_array_index (m->param_values, double, i);
  return NAN;
}

/* The parameter the plots use as their x axis: @want, or the first one
 * whose value differs between the captures; NULL: the capture's number. */
static const char *
x_param (GPtrArray *caps, const char *want)
{
  if (want != NULL)
    return want;
  const Measured *m0 = g_ptr_array_index (caps, 0);
  for (guint i = 0; i < m0->param_names->len; i++) {
    const char *n = g_ptr_array_index (m0->param_names, i);
    for (guint c = 1; c < caps->len; c++)
      if (capture_param (g_ptr_array_index (caps, c), n) != g_array_index (m0->param_values, double, i))
        return n;
  }
  return NULL;
}

static void
print_text (const char *workload, GPtrArray *caps, GPtrArray *results)
{
  printf ("validation of %s against %u capture%s\n", workload, caps->len, caps->len == 1 ? "" : "s");
  for (guint c = 0; c < caps->len; c++) {
    const Measured *m = g_ptr_array_index (caps, c);
    printf ("  [%u] %s: %u ranks", c, m->dir, m->n_ranks);
    for (guint i = 0; i < m->param_names->len; i++)
      printf (" %s=%.10g", (const char *) g_ptr_array_index (m->param_names, i),
              g_array_index (m->param_values, double, i));
    printf ("\n");
  }
  /* seed 004's model validation lines, one per term and capture (sums
   * over the ranks; PASS and FAIL count ranks) */
  printf ("\nphase:term:capture:model:measured:error:passes:failures\n");
  for (guint j = 0; j < results->len; j++) {
    const TermResult *t = g_ptr_array_index (results, j);
    for (guint c = 0; c < caps->len; c++) {
      double model = 0, meas = 0;
      guint pass = 0, fail = 0;
      for (guint k = 0; k < t->points->len; k++) {
        const Point *p = &g_array_index (t->points, Point, k);
        if (p->capture != c)
          continue;
        model += p->model;
        meas += p->measured;
        p->passed ? pass++ : fail++;
      }
      printf ("%s:%s:%u:%.10g:%.10g:%.4g:PASS=%u:FAIL=%u\n", t->phase, t->name, c, model, meas,
              rel_error (model, meas), pass, fail);
    }
  }
  printf ("\n%-28s %7s %12s %10s  %s\n", "term", "points", "max |error|", "bound", "result");
  for (guint j = 0; j < results->len; j++) {
    const TermResult *t = g_ptr_array_index (results, j);
    g_autofree char *id = g_strdup_printf ("%s:%s", t->phase, t->name);
    printf ("%-28s %7u %11.4g%% %9.4g%%  %s\n", id, t->points->len, 100 * t->max_error,
            100 * t->bound, t->passed ? "PASS" : "FAIL");
  }
}

static void
json_str (GString *s, const char *v)
{
  g_string_append_c (s, '"');
  for (const char *p = v; *p; p++) {
    if (*p == '"' || *p == '\\')
      g_string_append_printf (s, "\\%c", *p);
    else if ((unsigned char) *p < 0x20)
      g_string_append_printf (s, "\\u%04x", *p);
    else
      g_string_append_c (s, *p);
  }
  g_string_append_c (s, '"');
}

static void
json_num (GString *s, double v)
{
  if (isfinite (v))
    g_string_append_printf (s, "%.17g", v);
  else
    g_string_append (s, "null");
}

static gboolean
write_json (const char *path, const char *workload, GPtrArray *caps, GPtrArray *results,
            GError **error)
{
  GString *s = g_string_new ("{\"workload\": ");
  json_str (s, workload);
  g_string_append (s, ", \"captures\": [");
  for (guint c = 0; c < caps->len; c++) {
    const Measured *m = g_ptr_array_index (caps, c);
    g_string_append (s, c ? ", {\"dir\": " : "{\"dir\": ");
    json_str (s, m->dir);
    g_string_append_printf (s, ", \"ranks\": %u, \"params\": {", m->n_ranks);
    for (guint i = 0; i < m->param_names->len; i++) {
      if (i)
        g_string_append (s, ", ");
      json_str (s, g_ptr_array_index (m->param_names, i));
      g_string_append (s, ": ");
      json_num (s, g_array_index (m->param_values, double, i));
    }
    g_string_append (s, "}}");
  }
  guint failed = 0;
  g_string_append (s, "], \"terms\": [");
  for (guint j = 0; j < results->len; j++) {
    const TermResult *t = g_ptr_array_index (results, j);
    failed += !t->passed;
    g_string_append (s, j ? ", {\"phase\": " : "{\"phase\": ");
    json_str (s, t->phase);
    g_string_append (s, ", \"name\": ");
    json_str (s, t->name);
    g_string_append (s, ", \"value\": ");
    json_str (s, t->value);
    g_string_append (s, ", \"origin\": ");
    json_str (s, t->origin);
    g_string_append (s, ", \"bound\": ");
    json_num (s, t->bound);
    g_string_append (s, ", \"max_error\": ");
    json_num (s, t->max_error);
    g_string_append_printf (s, ", \"passed\": %s, \"points\": [", t->passed ? "true" : "false");
    for (guint k = 0; k < t->points->len; k++) {
      const Point *p = &g_array_index (t->points, Point, k);
      g_string_append_printf (s, "%s{\"capture\": %u, \"rank\": %u, \"model\": ", k ? ", " : "",
                              p->capture, p->rank);
      json_num (s, p->model);
      g_string_append (s, ", \"measured\": ");
      json_num (s, p->measured);
      g_string_append (s, ", \"error\": ");
      json_num (s, p->error);
      g_string_append_printf (s, ", \"passed\": %s}", p->passed ? "true" : "false");
    }
    g_string_append (s, "]}");
  }
  g_string_append_printf (s, "], \"terms_failed\": %u}\n", failed);
  gboolean ok = g_file_set_contents (path, s->str, (gssize) s->len, error);
  g_string_free (s, TRUE);
  return ok;
}

/* One plot per term: the mean over the ranks of model (line) and measured
 * (squares) against the x parameter. */
static gboolean
write_plot (const char *dir, gboolean svg, const TermResult *t, GPtrArray *caps, const char *xname,
            GError **error)
{
  guint n = caps->len;
  g_autofree double *x = g_new0 (double, n), *ym = g_new0 (double, n), *yv = g_new0 (double, n);
  g_autofree guint *cnt = g_new0 (guint, n);
  for (guint k = 0; k < t->points->len; k++) {
    const Point *p = &g_array_index (t->points, Point, k);
    ym[p->capture] += p->model;
    yv[p->capture] += p->measured;
    cnt[p->capture]++;
  }
  double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
  for (guint c = 0; c < n; c++) {
    x[c] = xname ? capture_param (g_ptr_array_index (caps, c), xname) : c;
    if (cnt[c]) {
      ym[c] /= cnt[c];
      yv[c] /= cnt[c];
    }
    xmin = MIN (xmin, x[c]);
    xmax = MAX (xmax, x[c]);
    ymin = MIN (ymin, MIN (ym[c], yv[c]));
    ymax = MAX (ymax, MAX (ym[c], yv[c]));
  }
  if (!(xmax > xmin)) {
    xmin -= 1;
    xmax += 1;
  }
  ymin = MIN (ymin, 0);
  if (!(ymax > ymin))
    ymax = ymin + 1;
  g_autofree char *file = g_strdup_printf ("%s/%s-%s.%s", dir, t->phase, t->name, svg ? "svg" : "png");
  const double W = 640, H = 420, L = 90, R = 20, T = 40, B = 50;
  cairo_surface_t *surf = svg ? cairo_svg_surface_create (file, W, H)
                              : cairo_image_surface_create (CAIRO_FORMAT_RGB24, (int) W, (int) H);
  cairo_t *cr = cairo_create (surf);
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
#define PX(v) (L + ((v) - xmin) / (xmax - xmin) * (W - L - R))
#define PY(v) (H - B - ((v) - ymin) / (ymax - ymin) * (H - T - B))
  cairo_set_source_rgb (cr, 0, 0, 0);
  cairo_set_line_width (cr, 1);
  cairo_move_to (cr, L, T);
  cairo_line_to (cr, L, H - B);
  cairo_line_to (cr, W - R, H - B);
  cairo_stroke (cr);
  cairo_select_font_face (cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size (cr, 11);
  char buf[256];
  for (int i = 0; i <= 4; i++) {
    double yv_ = ymin + (ymax - ymin) * i / 4, xv = xmin + (xmax - xmin) * i / 4;
    snprintf (buf, sizeof buf, "%.4g", yv_);
    cairo_move_to (cr, 5, PY (yv_) + 4);
    cairo_show_text (cr, buf);
    snprintf (buf, sizeof buf, "%.4g", xv);
    cairo_move_to (cr, PX (xv) - 15, H - B + 16);
    cairo_show_text (cr, buf);
  }
  cairo_move_to (cr, (W - L) / 2 + L - 30, H - 12);
  cairo_show_text (cr, xname ? xname : "capture");
  snprintf (buf, sizeof buf, "%s:%s per rank, mean over ranks: max |error| %.3g%% (bound %.3g%%) %s",
            t->phase, t->name, 100 * t->max_error, 100 * t->bound, t->passed ? "PASS" : "FAIL");
  cairo_move_to (cr, L, 20);
  cairo_show_text (cr, buf);
  /* model: blue line with circles; measured: red squares */
  cairo_set_source_rgb (cr, 0.1, 0.3, 0.8);
  cairo_set_line_width (cr, 2);
  g_autofree guint *order = g_new (guint, n);
  for (guint c = 0; c < n; c++)
    order[c] = c;
  for (guint a = 1; a < n; a++)   /* by x, for the line */
    for (guint b = a; b > 0 && x[order[b - 1]] > x[order[b]]; b--) {
      guint tmp = order[b];
      order[b] = order[b - 1];
      order[b - 1] = tmp;
    }
  for (guint c = 0; c < n; c++)
    (c ? cairo_line_to : cairo_move_to) (cr, PX (x[order[c]]), PY (ym[order[c]]));
  cairo_stroke (cr);
  for (guint c = 0; c < n; c++) {
    cairo_arc (cr, PX (x[c]), PY (ym[c]), 4, 0, 2 * G_PI);
    cairo_stroke (cr);
  }
  cairo_set_source_rgb (cr, 0.85, 0.1, 0.1);
  for (guint c = 0; c < n; c++) {
    cairo_rectangle (cr, PX (x[c]) - 3, PY (yv[c]) - 3, 6, 6);
    cairo_fill (cr);
  }
  cairo_move_to (cr, W - 170, T + 5);
  cairo_show_text (cr, "\xe2\x96\xa0 measured");
  cairo_set_source_rgb (cr, 0.1, 0.3, 0.8);
  cairo_move_to (cr, W - 170, T + 20);
  cairo_show_text (cr, "\xe2\x97\x8b model");
#undef PX
#undef PY
  cairo_destroy (cr);
  cairo_status_t st = svg ? CAIRO_STATUS_SUCCESS : cairo_surface_write_to_png (surf, file);
  cairo_surface_finish (surf);
  if (st == CAIRO_STATUS_SUCCESS)
    st = cairo_surface_status (surf);
  cairo_surface_destroy (surf);
  if (st != CAIRO_STATUS_SUCCESS) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_IO, "%s: %s", file, cairo_status_to_string (st));
    return FALSE;
  }
  return TRUE;
}

int
main (int argc, char **argv)
{
  g_autofree char *system = NULL, *json = NULL, *plots = NULL, *xname = NULL;
  g_auto (GStrv) defines = NULL;
  double bound = 0.05;
  gboolean svg = FALSE;
  GOptionEntry entries[] = {
    { "system", 's', 0, G_OPTION_ARG_FILENAME, &system,
      "the system the workload is loaded with (default: pti's configs/pc_cluster.xml)", "FILE" },
    { "json", 'j', 0, G_OPTION_ARG_FILENAME, &json, "write the report as JSON to FILE", "FILE" },
    { "plots", 'p', 0, G_OPTION_ARG_FILENAME, &plots,
      "write one plot per term (PHASE-TERM.png) into DIR", "DIR" },
    { "svg", 0, 0, G_OPTION_ARG_NONE, &svg, "plots as SVG instead of PNG", NULL },
    { "x", 'x', 0, G_OPTION_ARG_STRING, &xname,
      "the parameter on the plots' x axis (default: the first that varies)", "NAME" },
    { "bound", 'b', 0, G_OPTION_ARG_DOUBLE, &bound,
      "relative error a term without bound= may have (default 0.05)", "E" },
    { "define", 'D', 0, G_OPTION_ARG_STRING_ARRAY, &defines,
      "set a parameter for every capture (after the captured ones)", "NAME=VALUE" },
    { NULL }
  };
  g_autoptr (GOptionContext) oc = g_option_context_new ("WORKLOAD.xml CAPTURE...");
  g_option_context_set_summary (oc, "Checks a workload's model terms (<term>) against captured "
                                "runs of the real program (seed 004's modelling assertions).");
  g_option_context_add_main_entries (oc, entries, NULL);
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) args = pti_cli_split_attached (PTI_CLI_GROUPS (entries), argc, argv);
  if (!g_option_context_parse_strv (oc, &args, &error)) {
    g_printerr ("ptivalidate: %s\n", error->message);
    return 1;
  }
  argc = (int) g_strv_length (args);
  argv = args;
  if (argc < 3) {
    g_printerr ("ptivalidate: usage: ptivalidate [OPTIONS] WORKLOAD.xml CAPTURE... (--help)\n");
    return 1;
  }
  if (!(bound >= 0) || isinf (bound)) {
    g_printerr ("ptivalidate: --bound %g: expected a relative error >= 0\n", bound);
    return 1;
  }
  if (system == NULL && (system = find_default_system ()) == NULL) {
    g_printerr ("ptivalidate: no system given and pti's configs/pc_cluster.xml not found "
                "(use --system FILE)\n");
    return 1;
  }
  const char *workload = argv[1];
  g_autoptr (GPtrArray) caps = g_ptr_array_new_with_free_func ((GDestroyNotify) measured_free);
  g_autoptr (GPtrArray) results = g_ptr_array_new_with_free_func (term_result_free);
  for (int i = 2; i < argc; i++) {
    Measured *m = measure_all (argv[i], &error);
    if (m == NULL) {
      g_printerr ("ptivalidate: %s\n", error->message);
      return 1;
    }
    g_ptr_array_add (caps, m);
    if (!model_capture (system, workload, defines, m, caps->len - 1, bound, results, &error)) {
      g_printerr ("ptivalidate: %s\n", error->message);
      return 1;
    }
  }
  print_text (workload, caps, results);
  if (json != NULL && !write_json (json, workload, caps, results, &error)) {
    g_printerr ("ptivalidate: %s\n", error->message);
    return 1;
  }
  if (plots != NULL) {
    if (g_mkdir_with_parents (plots, 0777) != 0) {
      g_printerr ("ptivalidate: cannot make %s: %s\n", plots, g_strerror (errno));
      return 1;
    }
    const char *xp = x_param (caps, xname);
    gboolean ok = TRUE;
    for (guint j = 0; ok && j < results->len; j++)
      ok = write_plot (plots, svg, g_ptr_array_index (results, j), caps, xp, &error);
    /* release cairo's font caches (fontconfig's patterns): leak checkers stay quiet */
    cairo_debug_reset_static_data ();
    if (!ok) {
      g_printerr ("ptivalidate: %s\n", error->message);
      return 1;
    }
  }
  for (guint j = 0; j < results->len; j++)
    if (!((TermResult *) g_ptr_array_index (results, j))->passed)
      return 4;
  return 0;
}
