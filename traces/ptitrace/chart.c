/* Charts drawn with cairo, shared by ptitrace's plots and ptisweep's
 * (chart.h). */
#include "chart.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <errno.h>
#include <math.h>
#include <string.h>

const PtRgb pt_series_colors[PT_MAX_SERIES + 1] = {
  { 0.306, 0.475, 0.655 }, { 0.949, 0.557, 0.169 }, { 0.882, 0.341, 0.349 },
  { 0.463, 0.718, 0.698 }, { 0.349, 0.631, 0.310 }, { 0.929, 0.788, 0.282 },
  { 0.690, 0.478, 0.631 }, { 1.000, 0.616, 0.655 }, { 0.612, 0.459, 0.373 },
  { 0.729, 0.690, 0.675 }, { 0.400, 0.400, 0.400 },
};

/* ------------------------------------------------------------------------ */
/* PtCanvas: a cairo surface writing into a PtOut (temporary file + rename). */

static cairo_status_t
write_cb (void *closure, const unsigned char *data, unsigned int len)
{
  PtCanvas *c = closure;
  if (fwrite (data, 1, len, c->out->fp) != len) {
    c->write_failed = TRUE;
    return CAIRO_STATUS_WRITE_ERROR;
  }
  return CAIRO_STATUS_SUCCESS;
}

gboolean
pt_format_of (const char *path, PtFormat *fmt, GError **error)
{
  g_autofree char *lower = g_ascii_strdown (path, -1);
  if (g_str_has_suffix (lower, ".png"))
    *fmt = PT_FMT_PNG;
  else if (g_str_has_suffix (lower, ".svg"))
    *fmt = PT_FMT_SVG;
  else if (g_str_has_suffix (lower, ".pdf"))
    *fmt = PT_FMT_PDF;
  else {
    g_set_error (error, PT_ERROR, PT_ERROR_USAGE,
                 "-o %s: the file name must end in .png, .svg or .pdf", path);
    return FALSE;
  }
  return TRUE;
}

gboolean
pt_canvas_open (PtCanvas *c, const char *path, PtFormat fmt, int w, int h, GError **error)
{
  memset (c, 0, sizeof *c);
  c->fmt = fmt;
  c->w = w;
  c->h = h;
  if ((c->out = pt_out_open (path, error)) == NULL)
    return FALSE;
  switch (fmt) {
  case PT_FMT_PNG:
    c->surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, w, h);
    break;
  case PT_FMT_SVG:
    c->surface = cairo_svg_surface_create_for_stream (write_cb, c, w, h);
    break;
  case PT_FMT_PDF:
    c->surface = cairo_pdf_surface_create_for_stream (write_cb, c, w, h);
    break;
  }
  c->cr = cairo_create (c->surface);
  if (cairo_status (c->cr) != CAIRO_STATUS_SUCCESS) {
    g_set_error (error, PT_ERROR, PT_ERROR_FAILED, "%s: cannot draw: %s", path,
                 cairo_status_to_string (cairo_status (c->cr)));
    return FALSE;
  }
  cairo_set_source_rgb (c->cr, 1, 1, 1);
  cairo_paint (c->cr);
  cairo_select_font_face (c->cr, PT_FONT, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  return TRUE;
}

gboolean
pt_canvas_finish (PtCanvas *c, GError **error)
{
  cairo_status_t st = cairo_status (c->cr);
  cairo_destroy (c->cr);
  c->cr = NULL;
  if (st == CAIRO_STATUS_SUCCESS) {
    if (c->fmt == PT_FMT_PNG)
      st = cairo_surface_write_to_png_stream (c->surface, write_cb, c);
    else {
      cairo_surface_finish (c->surface);
      st = cairo_surface_status (c->surface);
    }
  }
  cairo_surface_destroy (c->surface);
  c->surface = NULL;
  if (st != CAIRO_STATUS_SUCCESS || c->write_failed) {
    g_set_error (error, PT_ERROR, PT_ERROR_FAILED, "%s: cannot write: %s", c->out->path,
                 c->write_failed ? g_strerror (errno) : cairo_status_to_string (st));
    return FALSE;
  }
  return pt_out_commit (c->out, error);
}

void
pt_canvas_clear (PtCanvas *c)
{
  if (c->cr)
    cairo_destroy (c->cr);
  if (c->surface) {
    /* Finishing would write to the (discarded) temporary file. */
    cairo_surface_destroy (c->surface);
  }
  pt_out_free (c->out);
  memset (c, 0, sizeof *c);
}

/* ------------------------------------------------------------------------ */
/* Text and axes */

void
pt_set_rgb (cairo_t *cr, PtRgb c)
{
  cairo_set_source_rgb (cr, c.r, c.g, c.b);
}

/* Draw @s with its anchor (ax, ay) in [0,1]x[0,1] of its box at (x, y). */
double
pt_text (cairo_t *cr, double x, double y, double size, gboolean bold, double ax, double ay,
      const char *s)
{
  cairo_select_font_face (cr, PT_FONT, CAIRO_FONT_SLANT_NORMAL,
                          bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size (cr, size);
  cairo_text_extents_t te;
  cairo_font_extents_t fe;
  cairo_text_extents (cr, s, &te);
  cairo_font_extents (cr, &fe);
  double h = fe.ascent * 0.8;   /* cap height, roughly */
  cairo_move_to (cr, x - te.x_advance * ax, y + h * (1 - ay));
  cairo_show_text (cr, s);
  return te.x_advance;
}

double
pt_text_width (cairo_t *cr, double size, gboolean bold, const char *s)
{
  cairo_select_font_face (cr, PT_FONT, CAIRO_FONT_SLANT_NORMAL,
                          bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size (cr, size);
  cairo_text_extents_t te;
  cairo_text_extents (cr, s, &te);
  return te.x_advance;
}

double
pt_nice_step (double raw)
{
  if (!(raw > 0))
    return 1;
  double p = pow (10, floor (log10 (raw)));
  double m = raw / p;
  return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

/* A number with @decimals, trailing zeros trimmed. */
char *
pt_num (double v, int decimals)
{
  char *s = g_strdup_printf ("%.*f", MAX (decimals, 0), v);
  if (strchr (s, '.') != NULL) {
    char *e = s + strlen (s);
    while (e[-1] == '0')
      *--e = '\0';
    if (e[-1] == '.')
      e[-1] = '\0';
  }
  if (strcmp (s, "-0") == 0)
    s[0] = '0', s[1] = '\0';
  return s;
}

/* SI prefix for values up to @vmax: returns the divisor and sets @prefix. */
double
pt_si_scale (double vmax, const char **prefix)
{
  static const struct { double f; const char *p; } si[] = {
    { 1e12, "T" }, { 1e9, "G" }, { 1e6, "M" }, { 1e3, "k" }, { 1, "" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (si); i++)
    if (vmax >= si[i].f * 1.5 || si[i].f == 1) {
      *prefix = si[i].p;
      return si[i].f;
    }
  *prefix = "";
  return 1;
}

/* Y axis at x = @x with horizontal grid lines to @right; @unit like "B/s". */
void
pt_draw_value_axis (cairo_t *cr, PtValueAxis *a, double x, double right, const char *quantity,
                 const char *unit, gboolean labels)
{
  const char *prefix;
  double scale = pt_si_scale (a->vmax, &prefix);
  double step = pt_nice_step (a->vmax / MAX ((a->y0 - a->y1) / 45.0, 2.0));
  /* Round vmax up to a whole step. */
  a->vmax = ceil (a->vmax / step - 1e-9) * step;
  int decimals = (int) ceil (-log10 (step / scale) - 1e-9);
  cairo_set_line_width (cr, 1);
  for (double v = 0; v <= a->vmax + step * 1e-9; v += step) {
    double y = round (pt_y_of (a, v)) + 0.5;
    cairo_set_source_rgb (cr, 0.88, 0.88, 0.88);
    cairo_move_to (cr, x, y);
    cairo_line_to (cr, right, y);
    cairo_stroke (cr);
    cairo_set_source_rgb (cr, 0.2, 0.2, 0.2);
    cairo_move_to (cr, x - 5, y);
    cairo_line_to (cr, x, y);
    cairo_stroke (cr);
    if (labels) {
      g_autofree char *l = pt_num (v / scale, decimals);
      pt_text (cr, x - 8, y, 11, FALSE, 1, 0.5, l);
    }
  }
  cairo_move_to (cr, x + 0.5, a->y0);
  cairo_line_to (cr, x + 0.5, a->y1);
  cairo_stroke (cr);
  if (!labels)
    return;
  g_autofree char *label = prefix[0] || unit[0]   /* a ratio has no unit */
    ? g_strdup_printf ("%s (%s%s)", quantity, prefix, unit) : g_strdup (quantity);
  cairo_save (cr);
  cairo_translate (cr, x - 62, (a->y0 + a->y1) / 2);
  cairo_rotate (cr, -G_PI / 2);
  pt_text (cr, 0, 0, 12, FALSE, 0.5, 0.5, label);
  cairo_restore (cr);
}

void
pt_legend_box (cairo_t *cr, double *x, double y, PtRgb c, const char *label, gboolean line)
{
  pt_set_rgb (cr, c);
  if (line) {
    cairo_set_line_width (cr, 2);
    cairo_move_to (cr, *x, y);
    cairo_line_to (cr, *x + 14, y);
    cairo_stroke (cr);
  } else {
    cairo_rectangle (cr, *x, y - 6, 14, 12);
    cairo_fill (cr);
  }
  cairo_set_source_rgb (cr, 0.15, 0.15, 0.15);
  *x += 20 + pt_text (cr, *x + 20, y, 11, FALSE, 0, 0.5, label) + 18;
}

double
pt_legend_width (cairo_t *cr, const char *label)
{
  return 20 + pt_text_width (cr, 11, FALSE, label) + 18;
}

void
pt_title (PtCanvas *c, const char *main, const char *sub)
{
  cairo_set_source_rgb (c->cr, 0.1, 0.1, 0.1);
  pt_text (c->cr, 20, 18, 15, TRUE, 0, 0, main);
  cairo_set_source_rgb (c->cr, 0.35, 0.35, 0.35);
  pt_text (c->cr, 20, 40, 11, FALSE, 0, 0, sub);
}
