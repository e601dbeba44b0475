/* Charts drawn with cairo, shared by ptitrace's plots (plot.c) and
 * ptisweep's: a canvas writing PNG, SVG or PDF through a PtOut (temporary
 * file renamed when complete), text, a value axis, legends and a palette. */
#pragma once

#include "commands.h"

#include <cairo.h>

G_BEGIN_DECLS

#define PT_FONT "DejaVu Sans"
#define PT_MAX_SERIES 10

typedef struct { double r, g, b; } PtRgb;

/* Series colours; [PT_MAX_SERIES] is the grey of "other". */
extern const PtRgb pt_series_colors[PT_MAX_SERIES + 1];

typedef enum { PT_FMT_PNG, PT_FMT_SVG, PT_FMT_PDF } PtFormat;

typedef struct {
  PtFormat fmt;
  PtOut *out;
  cairo_surface_t *surface;
  cairo_t *cr;
  int w, h;
  gboolean write_failed;
} PtCanvas;

/* The format named by @path's extension (.png, .svg, .pdf); else an error
 * naming -o. */
gboolean pt_format_of (const char *path, PtFormat *fmt, GError **error);
/* A white canvas of @w x @h pixels (points for SVG/PDF) writing to @path. */
gboolean pt_canvas_open (PtCanvas *c, const char *path, PtFormat fmt, int w, int h, GError **error);
/* Writes the file and renames it over the target; pt_canvas_clear() follows
 * either way. */
gboolean pt_canvas_finish (PtCanvas *c, GError **error);
/* Frees what is left (after a failure: the temporary file is deleted). */
void pt_canvas_clear (PtCanvas *c);

void pt_set_rgb (cairo_t *cr, PtRgb c);
/* Draws @s with its anchor (ax, ay) in [0,1]x[0,1] of its box at (x, y);
 * returns its width. */
double pt_text (cairo_t *cr, double x, double y, double size, gboolean bold, double ax, double ay,
                const char *s);
double pt_text_width (cairo_t *cr, double size, gboolean bold, const char *s);
/* 1, 2 or 5 times a power of ten, near @raw. */
double pt_nice_step (double raw);
/* @v with @decimals, trailing zeros trimmed.  (transfer full) */
char *pt_num (double v, int decimals);
/* SI prefix for values up to @vmax: returns the divisor and sets @prefix. */
double pt_si_scale (double vmax, const char **prefix);

typedef struct {
  double vmax;
  double y0, y1;       /* device: bottom (value 0), top (vmax) */
} PtValueAxis;

static inline double
pt_y_of (const PtValueAxis *a, double v)
{
  return a->y0 - v / a->vmax * (a->y0 - a->y1);
}

/* Y axis at x = @x with horizontal grid lines to @right; rounds a->vmax up
 * to a whole step; @unit like "B/s" (SI-prefixed). */
void pt_draw_value_axis (cairo_t *cr, PtValueAxis *a, double x, double right, const char *quantity,
                         const char *unit, gboolean labels);

/* A legend entry at *@x (advanced past it): a box, or a line if @line. */
void pt_legend_box (cairo_t *cr, double *x, double y, PtRgb c, const char *label, gboolean line);
double pt_legend_width (cairo_t *cr, const char *label);
/* A title and a subtitle at the top left. */
void pt_title (PtCanvas *c, const char *main, const char *sub);

G_END_DECLS
