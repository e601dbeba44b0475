/* ptitrace plot: the PTI paper's figures, drawn with cairo (PNG, SVG, PDF).
 *
 *   timespace  Fig. 7: one line per process, compute / send / receive /
 *              complete / wait coloured, lines joining the two ends of each
 *              message, over a time window (--from, --to).
 *   ba         Fig. 8: bandwidth availability (records <ba>: time msg
 *              bytes_per_s) of the messages of communication stages, under
 *              the time-space diagram of the same window.  A communication
 *              stage is a maximal interval during which at least one message
 *              is in flight (from its send's start to its receive's end).
 *   knee       Fig. 9: knee capacity over time (records <knee>: time
 *              packets_per_s, or bytes_per_s): one step line, coloured by
 *              the bottleneck link the record names (field link).
 *
 * Memory does not grow with the trace: the time-space diagram accumulates,
 * per row and pixel column, the time spent in each kind of event (so a
 * column holding many events shows their proportions, stacked); events and
 * message lines are spooled to the external sorter (temporary files beyond
 * --memory) until the window is known, message ends are paired by the
 * external message sorter, and the knee line is reduced to min / max /
 * first / last per pixel column.  Message lines are drawn only up to
 * MAX_LINES in the window (zoom in to see more); lines that fall on the same
 * pixels are drawn once. */
#include "commands.h"
#include "chart.h"

#include <cairo.h>
#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <errno.h>
#include <math.h>
#include <string.h>

#define MAX_LINES 20000
#define BA_LABELS 24      /* BA steps in a column: at most this many are named */


/* Kinds drawn in the time-space diagram (stacked in this order). */
enum { K_COMPUTE, K_SEND, K_RECV, K_COMPLETE, K_WAIT, K_DERIVED, N_KINDS };
static const char *const kind_labels[N_KINDS] = {
  "compute", "send", "receive", "complete (wait calls)", "wait (blocked on a peer)",
  "derived (analytical repetition)",
};
static const PtRgb kind_colors[N_KINDS] = {
  { 0.306, 0.475, 0.655 },   /* blue */
  { 0.949, 0.557, 0.169 },   /* orange */
  { 0.349, 0.631, 0.310 },   /* green */
  { 0.690, 0.478, 0.631 },   /* purple */
  { 0.882, 0.341, 0.349 },   /* red */
  { 0.780, 0.760, 0.600 },   /* khaki */
};
static const PtRgb idle_color = { 0.93, 0.93, 0.93 };

typedef struct {
  guint64 from, to;    /* ns */
  double x0, x1;       /* device */
} TimeAxis;

static inline double
x_of (const TimeAxis *a, guint64 t)
{
  return a->x0 + ((double) t - (double) a->from) / (double) (a->to - a->from) * (a->x1 - a->x0);
}

static inline double
x_of_d (const TimeAxis *a, double t)
{
  return a->x0 + (t - (double) a->from) / (double) (a->to - a->from) * (a->x1 - a->x0);
}

/* Ticks, labels and vertical grid lines of a time axis at y = @y (bottom of
 * the plot area, which starts at @top), with its label below. */
static void
draw_time_axis (cairo_t *cr, const TimeAxis *a, double top, double y, gboolean labels)
{
  double span = (double) (a->to - a->from);
  double target = MAX ((a->x1 - a->x0) / 110.0, 2.0);
  double step = MAX (pt_nice_step (span / target), 1.0);
  static const struct { double ns; const char *name; } units[] = {
    { 1e9, "s" }, { 1e6, "ms" }, { 1e3, "\xc2\xb5s" }, { 1, "ns" },
  };
  /* Far from 0, label offsets from a round origin. */
  double origin = 0;
  if (a->from > 0 && span < 0.01 * (double) a->to) {
    double big = step * 10;
    origin = floor ((double) a->from / big) * big;
  }
  /* The unit giving the shortest labels (the larger one on a tie). */
  guint u = 0;
  gsize best = G_MAXSIZE;
  for (guint i = 0; i < G_N_ELEMENTS (units); i++) {
    int d = MAX ((int) ceil (-log10 (step / units[i].ns) - 1e-9), 0);
    g_autofree char *l = g_strdup_printf ("%.*f", d, ((double) a->to - origin) / units[i].ns);
    if (strlen (l) < best) {
      best = strlen (l);
      u = i;
    }
  }
  double unit = units[u].ns;
  int decimals = (int) ceil (-log10 (step / unit) - 1e-9);
  cairo_set_line_width (cr, 1);
  double first = ceil ((double) a->from / step) * step;
  for (double t = first; t <= (double) a->to + step * 1e-9; t += step) {
    double x = round (x_of_d (a, t)) + 0.5;
    cairo_set_source_rgb (cr, 0.88, 0.88, 0.88);
    cairo_move_to (cr, x, top);
    cairo_line_to (cr, x, y);
    cairo_stroke (cr);
    cairo_set_source_rgb (cr, 0.2, 0.2, 0.2);
    cairo_move_to (cr, x, y);
    cairo_line_to (cr, x, y + 5);
    cairo_stroke (cr);
    if (labels) {
      g_autofree char *l = pt_num ((t - origin) / unit, decimals);
      pt_text (cr, x, y + 8, 11, FALSE, 0.5, 0, l);
    }
  }
  cairo_set_source_rgb (cr, 0.2, 0.2, 0.2);
  cairo_move_to (cr, a->x0, y + 0.5);
  cairo_line_to (cr, a->x1, y + 0.5);
  cairo_stroke (cr);
  if (labels) {
    g_autofree char *label = NULL;
    if (origin > 0) {
      char b[PT_SECONDS_LEN];
      g_autofree char *o = g_strdup (pt_seconds (b, (guint64) origin));
      char *e = o + strlen (o);
      while (e[-1] == '0')
        *--e = '\0';
      if (e[-1] == '.')
        e[-1] = '\0';
      label = g_strdup_printf ("time (%s after %s s)", units[u].name, o);
    } else {
      label = g_strdup_printf ("time (%s)", units[u].name);
    }
    pt_text (cr, (a->x0 + a->x1) / 2, y + 28, 12, FALSE, 0.5, 0, label);
  }
}

/* ------------------------------------------------------------------------ */
/* Time-space diagram: bins per row and pixel column. */

typedef struct {
  guint64 a, b;        /* ns */
  guint32 rank;
  guint32 kind;
} Interval;

typedef struct {
  float x0, y0, x1, y1;
} Line;

typedef struct {
  guint n;             /* processes */
  guint rows;          /* n, or fewer when ranks share a row */
  guint cols;
  TimeAxis axis;
  float *cov;          /* [rows][cols][N_KINDS]: ns covered / column width / ranks in row */
  gboolean used[N_KINDS];
} Bins;

static inline guint
row_of (const Bins *b, guint rank)
{
  return (guint) ((guint64) rank * b->rows / b->n);
}

static guint
row_ranks (const Bins *b, guint row, guint *first)
{
  /* ranks r with floor(r * rows / n) == row */
  guint lo = (guint) (((guint64) row * b->n + b->rows - 1) / b->rows);
  guint hi = (guint) (((guint64) (row + 1) * b->n + b->rows - 1) / b->rows);
  *first = lo;
  return hi - lo;
}

static void
bins_add (Bins *b, guint rank, guint kind, guint64 t0, guint64 t1)
{
  if (t1 <= b->axis.from || t0 >= b->axis.to || t1 <= t0)
    return;
  t0 = MAX (t0, b->axis.from);
  t1 = MIN (t1, b->axis.to);
  double colw = (double) (b->axis.to - b->axis.from) / b->cols;
  double x0 = (double) (t0 - b->axis.from) / colw, x1 = (double) (t1 - b->axis.from) / colw;
  guint c0 = (guint) x0, c1 = MIN ((guint) ceil (x1), b->cols);
  float *row = b->cov + (gsize) row_of (b, rank) * b->cols * N_KINDS;
  for (guint c = c0; c < c1; c++) {
    double lo = MAX (x0, (double) c), hi = MIN (x1, (double) c + 1);
    if (hi > lo)
      row[(gsize) c * N_KINDS + kind] += (float) (hi - lo);
  }
  b->used[kind] = TRUE;
}

/* Stacked columns; runs of columns with the same heights become one
 * rectangle per kind (keeps SVG and PDF small). */
static void
draw_bins (cairo_t *cr, const Bins *b, double top, double row_h, double bar_frac)
{
  double colw = (b->axis.x1 - b->axis.x0) / b->cols;
  double bar_h = row_h * bar_frac;
  for (guint row = 0; row < b->rows; row++) {
    guint first;
    guint k = row_ranks (b, row, &first);
    double yb = top + row * row_h + (row_h + bar_h) / 2;   /* bottom of the bar */
    pt_set_rgb (cr, idle_color);
    cairo_rectangle (cr, b->axis.x0, yb - bar_h, b->axis.x1 - b->axis.x0, bar_h);
    cairo_fill (cr);
    const float *cov = b->cov + (gsize) row * b->cols * N_KINDS;
    int q[N_KINDS], prev[N_KINDS];
    guint run_start = 0;
    for (guint c = 0; c <= b->cols; c++) {
      if (c < b->cols) {
        double sum = 0;
        for (guint j = 0; j < N_KINDS; j++)
          sum += cov[(gsize) c * N_KINDS + j];
        double norm = MAX (sum, (double) k);   /* fractions of the column, at most 1 */
        for (guint j = 0; j < N_KINDS; j++)
          q[j] = (int) lround (cov[(gsize) c * N_KINDS + j] / norm * bar_h * 4);  /* 1/4 px */
      }
      gboolean same = c > 0 && c < b->cols && memcmp (q, prev, sizeof q) == 0;
      if (c > 0 && !same) {
        /* Draw the run [run_start, c) with heights prev. */
        double x0 = b->axis.x0 + run_start * colw, w = (c - run_start) * colw;
        double y = yb;
        for (guint j = 0; j < N_KINDS; j++) {
          if (prev[j] == 0)
            continue;
          double hgt = prev[j] / 4.0;
          pt_set_rgb (cr, kind_colors[j]);
          cairo_rectangle (cr, x0, y - hgt, w, hgt);
          cairo_fill (cr);
          y -= hgt;
        }
        run_start = c;
      }
      if (c < b->cols)
        memcpy (prev, q, sizeof q);
    }
  }
}

static void
draw_row_labels (cairo_t *cr, const Bins *b, double top, double row_h, double x)
{
  cairo_set_source_rgb (cr, 0.15, 0.15, 0.15);
  if (b->n <= 64 && row_h >= 9) {
    /* One label per row, or every few rows. */
    guint every = 1;
    while (row_h * every < 13)
      every++;
    for (guint row = 0; row < b->rows; row += every) {
      guint first;
      row_ranks (b, row, &first);
      g_autofree char *l = g_strdup_printf ("rank %u", first);
      pt_text (cr, x, top + (row + 0.5) * row_h, MIN (11, row_h * every * 0.8), FALSE, 1, 0.5, l);
    }
    return;
  }
  /* Many processes: a rank axis with round ticks. */
  double h = row_h * b->rows;
  double step = MAX (pt_nice_step ((double) b->n / MAX (h / 28, 1)), 1);
  cairo_set_line_width (cr, 1);
  for (double r = 0; r < b->n; r += step) {
    double y = round (top + (row_of (b, (guint) r) + 0.5) * row_h) + 0.5;
    cairo_move_to (cr, x + 3, y);
    cairo_line_to (cr, x + 8, y);
    cairo_stroke (cr);
    g_autofree char *l = g_strdup_printf ("%.0f", r);
    pt_text (cr, x, y, 11, FALSE, 1, 0.5, l);
  }
  cairo_save (cr);
  cairo_translate (cr, x - 50, top + h / 2);
  cairo_rotate (cr, -G_PI / 2);
  pt_text (cr, 0, 0, 12, FALSE, 0.5, 0.5,
        b->rows < b->n ? "rank (rows of several ranks: their mean)" : "rank");
  cairo_restore (cr);
}

static void
draw_lines (cairo_t *cr, PtiSorter *lines, guint64 n, GError **error)
{
  gboolean arrows = n <= 400;
  cairo_set_line_width (cr, n > 1000 ? 0.5 : 0.9);
  cairo_set_source_rgba (cr, 0.12, 0.12, 0.12, n > 1000 ? 0.3 : 0.75);
  pti_sorter_rewind (lines);
  const Line *l;
  while ((l = pti_sorter_next (lines, error)) != NULL) {
    cairo_move_to (cr, l->x0, l->y0);
    cairo_line_to (cr, l->x1, l->y1);
    cairo_stroke (cr);
    if (arrows) {
      double dx = l->x1 - l->x0, dy = l->y1 - l->y0, len = hypot (dx, dy);
      if (len > 8) {
        dx /= len;
        dy /= len;
        cairo_move_to (cr, l->x1, l->y1);
        cairo_line_to (cr, l->x1 - 7 * dx - 3 * dy, l->y1 - 7 * dy + 3 * dx);
        cairo_line_to (cr, l->x1 - 7 * dx + 3 * dy, l->y1 - 7 * dy - 3 * dx);
        cairo_close_path (cr);
        cairo_fill (cr);
      }
    }
  }
}

/* ------------------------------------------------------------------------ */
/* Reading the trace */

typedef struct {
  guint64 msg;
  guint64 time;
  double value;
  guint32 rank;
  guint32 pad;
  guint64 seq;
} BaRec;

static int
cmp_ba_msg (const void *pa, const void *pb)
{
  const BaRec *a = pa, *b = pb;
  if (a->msg != b->msg)
    return a->msg < b->msg ? -1 : 1;
  if (a->time != b->time)
    return a->time < b->time ? -1 : 1;
  return a->seq < b->seq ? -1 : a->seq > b->seq;
}

typedef struct {
  guint64 time;
  double value;
  double series;       /* the link: its number, or its name's id; 0 without link */
  guint32 type;
  guint32 named;       /* series is a name id (pt_fields_name) */
  guint64 seq;
} KneeRec;

static int
cmp_knee (const void *pa, const void *pb)
{
  const KneeRec *a = pa, *b = pb;
  if (a->time != b->time)
    return a->time < b->time ? -1 : 1;
  return a->seq < b->seq ? -1 : a->seq > b->seq;
}

typedef struct {
  const PtOptions *o;
  const char *trace;
  PtiTraceReader *reader;
  const PtiTrHeader *h;
  guint n;
  PtiSorter *intervals;   /* spool of Interval */
  PtMsgJoin *join;
  PtiSorter *ba;          /* BaRec by msg */
  PtiSorter *knee;        /* KneeRec by time */
  int *ba_value;          /* per record type: field index of bytes_per_s, or -1 */
  int *ba_msg;
  int *knee_value;        /* packets_per_s, else bytes_per_s */
  int *knee_link;
  PtFields *fields;       /* link names */
  gboolean knee_packets;  /* the knee values are packets/s (else bytes/s) */
  guint64 predicted;
  guint64 max_time;
  guint64 events, seq;
} Reading;

static void
reading_clear (Reading *r)
{
  pti_sorter_free (r->intervals);
  pt_msgjoin_free (r->join);
  pti_sorter_free (r->ba);
  pti_sorter_free (r->knee);
  g_free (r->ba_value);
  g_free (r->ba_msg);
  g_free (r->knee_value);
  g_free (r->knee_link);
  pt_fields_free (r->fields);
  pti_trace_reader_free (r->reader);
}

static int
field_index (const PtiTrRecordType *t, const char *name)
{
  for (guint i = 0; i < t->n_fields; i++)
    if (strcmp (t->fields[i], name) == 0)
      return (int) i;
  return -1;
}

static gboolean
record_number (Reading *r, const PtiTrItem *item, int field, double *v, GError **error)
{
  const PtiTrRecordType *t = &r->h->records[item->record.type];
  const char *text = item->record.values[field];
  if (!pti_tr_parse_number (text, v)) {
    pti_trace_reader_error_at (r->reader, item->line, item->element, error, "record <%s> %s=\"%s\" is not a number",
                               t->name, t->fields[field], text);
    return FALSE;
  }
  return TRUE;
}

static gboolean
read_trace (Reading *r, gboolean want_ba, gboolean want_knee, GError **error)
{
  const PtOptions *o = r->o;
  if ((r->reader = pti_trace_reader_open (r->trace, error)) == NULL)
    return FALSE;
  r->h = pti_trace_reader_header (r->reader);
  r->fields = pt_fields_new (r->reader, TRUE);
  r->n = r->h->n_processes;
  guint nt = r->h->n_records;
  r->ba_value = g_new (int, MAX (nt, 1));
  r->ba_msg = g_new (int, MAX (nt, 1));
  r->knee_value = g_new (int, MAX (nt, 1));
  r->knee_link = g_new (int, MAX (nt, 1));
  gboolean any_ba = FALSE, any_knee = FALSE, packets = FALSE, bytes = FALSE;
  for (guint t = 0; t < nt; t++) {
    const PtiTrRecordType *rt = &r->h->records[t];
    r->ba_value[t] = r->ba_msg[t] = r->knee_value[t] = r->knee_link[t] = -1;
    if (strcmp (rt->name, "ba") == 0 && rt->time_field >= 0) {
      r->ba_value[t] = field_index (rt, "bytes_per_s");
      r->ba_msg[t] = field_index (rt, "msg");
      if (r->ba_value[t] < 0 || r->ba_msg[t] < 0)
        r->ba_value[t] = r->ba_msg[t] = -1;
      any_ba |= r->ba_value[t] >= 0;
    }
    if (strcmp (rt->name, "knee") == 0 && rt->time_field >= 0) {
      int p = field_index (rt, "packets_per_s"), b = field_index (rt, "bytes_per_s");
      r->knee_value[t] = p >= 0 ? p : b;
      r->knee_link[t] = field_index (rt, "link");
      packets |= p >= 0;
      bytes |= p < 0 && b >= 0;
      any_knee |= r->knee_value[t] >= 0;
    }
  }
  if (want_ba && !any_ba) {
    g_set_error (error, PT_ERROR, PT_ERROR_INVALID,
                 "%s: no model declares a record <ba> with fields time, msg and bytes_per_s in "
                 "the header, so there is no bandwidth availability to plot (a contention model "
                 "emits it; see traces/README.md)", r->trace);
    return FALSE;
  }
  if (want_knee && !any_knee) {
    g_set_error (error, PT_ERROR, PT_ERROR_INVALID,
                 "%s: no model declares a record <knee> with fields time and packets_per_s (or "
                 "bytes_per_s) in the header, so there is no knee capacity to plot (a contention "
                 "model emits it; see traces/README.md)", r->trace);
    return FALSE;
  }
  if (want_knee && packets && bytes) {
    g_set_error (error, PT_ERROR, PT_ERROR_INVALID,
                 "%s: some <knee> records give packets_per_s and others only bytes_per_s: "
                 "cannot plot them on one axis", r->trace);
    return FALSE;
  }
  r->knee_packets = packets;

  gsize budget = o->memory / 4;
  r->intervals = pti_sorter_new (sizeof (Interval), NULL, budget);
  r->join = pt_msgjoin_new (r->trace, budget);
  if (want_ba)
    r->ba = pti_sorter_new (sizeof (BaRec), cmp_ba_msg, budget);
  if (want_knee)
    r->knee = pti_sorter_new (sizeof (KneeRec), cmp_knee, budget);
  gboolean spans = !want_knee;   /* the knee plot needs no events */

  PtiTrItem item;
  GError *local = NULL;
  while (pti_trace_reader_next (r->reader, &item, &local)) {
    if (item.type == PTI_TR_ITEM_EVENT) {
      const PtiTrEvent *e = &item.event;
      r->events++;
      r->max_time = MAX (r->max_time, e->end);
      if (!spans)
        continue;
      Interval iv = { e->start, e->end, e->rank, K_COMPUTE };
      if (e->kind != PTI_TRACE_COMPUTE) {
        guint64 mid = e->start + e->wait;
        if (e->wait > 0) {
          Interval w = { e->start, mid, e->rank, K_WAIT };
          if (!pti_sorter_add (r->intervals, &w, &local))
            break;
        }
        iv.a = mid;
        iv.kind = PTI_TRACE_KIND_IS_SENDER (e->kind) ? K_SEND
                : PTI_TRACE_KIND_IS_MESSAGE (e->kind) ? K_RECV : K_COMPLETE;
      }
      if (iv.b > iv.a && !pti_sorter_add (r->intervals, &iv, &local))
        break;
      if (!pt_msgjoin_add (r->join, &item, &r->seq, &local))
        break;
    } else if (item.type == PTI_TR_ITEM_DERIVED) {
      const PtiTrDerived *d = &item.derived;
      r->max_time = MAX (r->max_time, d->end);
      Interval iv = { d->start, d->end, d->rank, K_DERIVED };
      if (spans && iv.b > iv.a && !pti_sorter_add (r->intervals, &iv, &local))
        break;
    } else if (item.type == PTI_TR_ITEM_RECORD) {
      guint t = item.record.type;
      r->max_time = MAX (r->max_time, item.record.time);
      if (want_ba && r->ba_value[t] >= 0) {
        BaRec b = { 0 };
        double m;
        if (!record_number (r, &item, r->ba_value[t], &b.value, &local)
            || !record_number (r, &item, r->ba_msg[t], &m, &local))
          break;
        b.msg = (guint64) m;
        b.time = item.record.time;
        b.rank = item.record.in_process ? item.record.rank : G_MAXUINT32;
        b.seq = r->seq++;
        if (!pti_sorter_add (r->ba, &b, &local))
          break;
      }
      if (want_knee && r->knee_value[t] >= 0) {
        KneeRec k = { 0 };
        if (!record_number (r, &item, r->knee_value[t], &k.value, &local))
          break;
        if (r->knee_link[t] >= 0) {
          guint id;
          PtFieldKind kind = pt_fields_get (r->fields, &item, (guint) r->knee_link[t], &k.series,
                                            &id, &local);
          if (kind == PT_FIELD_UNKNOWN)
            break;
          if (kind == PT_FIELD_NAME) {
            k.series = id;
            k.named = 1;
          }
        }
        k.time = item.record.time;
        k.type = t;
        k.seq = r->seq++;
        if (!pti_sorter_add (r->knee, &k, &local))
          break;
      }
    }
  }
  if (local != NULL) {
    g_propagate_error (error, local);
    return FALSE;
  }
  r->predicted = pti_trace_reader_summary (r->reader)->predicted;
  r->max_time = MAX (r->max_time, r->predicted);
  return pti_sorter_finish (r->intervals, error);
}

/* ------------------------------------------------------------------------ */
/* Time-space panel */

typedef struct {
  Bins bins;
  double top, row_h;
  PtiSorter *lines;       /* spool of Line */
  guint64 messages;       /* in the window */
  GHashTable *seen;       /* pixel keys of lines already spooled */
} Panel;

static void
panel_clear (Panel *p)
{
  g_free (p->bins.cov);
  pti_sorter_free (p->lines);
  if (p->seen)
    g_hash_table_unref (p->seen);
}

static gboolean
panel_bins (Panel *p, Reading *r, GError **error)
{
  Bins *b = &p->bins;
  b->cov = g_new0 (float, (gsize) b->rows * b->cols * N_KINDS);
  pti_sorter_rewind (r->intervals);
  const Interval *iv;
  GError *local = NULL;
  while ((iv = pti_sorter_next (r->intervals, &local)) != NULL)
    bins_add (b, iv->rank, iv->kind, iv->a, iv->b);
  if (local != NULL) {
    g_propagate_error (error, local);
    return FALSE;
  }
  return TRUE;
}

static double
row_center (const Panel *p, guint rank)
{
  return p->top + (row_of (&p->bins, rank) + 0.5) * p->row_h;
}

static gboolean
panel_line (Panel *p, guint src, guint dst, guint64 t0, guint64 t1, GError **error)
{
  const TimeAxis *a = &p->bins.axis;
  if (t1 < a->from || t0 > a->to)
    return TRUE;
  p->messages++;
  Line l = { (float) x_of (a, t0), (float) row_center (p, src), (float) x_of (a, t1),
             (float) row_center (p, dst) };
  /* Clip to the window horizontally, keeping the line's slope. */
  if (l.x1 != l.x0) {
    double lo = a->x0, hi = a->x1;
    double s = (l.y1 - l.y0) / (l.x1 - l.x0);
    if (l.x0 < lo) {
      l.y0 += (float) (s * (lo - l.x0));
      l.x0 = (float) lo;
    }
    if (l.x1 > hi) {
      l.y1 -= (float) (s * (l.x1 - hi));
      l.x1 = (float) hi;
    }
  }
  guint64 key = ((guint64) (guint32) lround (l.x0 * 2) << 44) ^ ((guint64) (guint32) lround (l.x1 * 2) << 24)
                ^ ((guint64) (guint32) lround (l.y0 * 2) << 12) ^ (guint64) (guint32) lround (l.y1 * 2);
  if (g_hash_table_size (p->seen) < 4000000) {
    if (g_hash_table_contains (p->seen, &key))
      return TRUE;
    guint64 *k = g_new (guint64, 1);
    *k = key;
    g_hash_table_add (p->seen, k);
  }
  if (pti_sorter_count (p->lines) >= MAX_LINES)
    return TRUE;   /* counted, not drawn */
  return pti_sorter_add (p->lines, &l, error);
}

static gboolean
panel_message (Panel *p, const PtMessage *m, GError **error)
{
  return panel_line (p, m->send.rank, m->recv.rank, pt_msg_psend (m), pt_msg_precv (m), error);
}

static gboolean
panel_on_message (const PtMessage *m, gpointer data, GError **error)
{
  return panel_message (data, m, error);
}

/* Rows and geometry for @n processes in @avail_h pixels. */
static void
panel_layout (Panel *p, guint n, double top, double avail_h)
{
  p->bins.n = MAX (n, 1);
  guint rows = MAX (n, 1);
  guint max_rows = (guint) MAX (avail_h / 3, 1);
  if (rows > max_rows)
    rows = max_rows;
  p->bins.rows = rows;
  p->top = top;
  p->row_h = avail_h / rows;
}

static void
panel_draw (cairo_t *cr, Panel *p, double label_x, GError **error)
{
  draw_bins (cr, &p->bins, p->top, p->row_h, p->row_h >= 8 ? 0.62 : 0.85);
  draw_row_labels (cr, &p->bins, p->top, p->row_h, label_x);
  if (p->messages <= MAX_LINES)
    draw_lines (cr, p->lines, p->messages, error);
}

/* ------------------------------------------------------------------------ */

typedef struct {
  int w, h;
  double left, right, top, bottom;
} Geometry;

/* A time for people: "22.113 s", "150 \xc2\xb5s", "302.5 ms". */
static char *
human_time (guint64 ns)
{
  static const struct { double ns; const char *name; } units[] = {
    { 1e9, "s" }, { 1e6, "ms" }, { 1e3, "\xc2\xb5s" }, { 1, "ns" },
  };
  guint u = 0;
  while (u + 1 < G_N_ELEMENTS (units) && (double) ns < units[u].ns)
    u++;
  g_autofree char *v = pt_num ((double) ns / units[u].ns, ns == 0 ? 0 : 6);
  return g_strdup_printf ("%s %s", v, units[u].name);
}

static char *
window_text (guint64 from, guint64 to, guint64 predicted)
{
  g_autofree char *a = human_time (from), *b = human_time (to), *c = human_time (predicted);
  if (from == 0 && to == predicted)
    return g_strdup_printf ("the whole run, %s predicted", c);
  return g_strdup_printf ("%s to %s of %s predicted", a, b, c);
}

static int
plot_timespace (Reading *r, PtFormat fmt, GError **error)
{
  const PtOptions *o = r->o;
  guint64 from = o->have_from ? o->from : 0;
  guint64 to = o->have_to ? o->to : MAX (r->max_time, from + 1);
  if (to <= from) {
    g_set_error (error, PT_ERROR, PT_ERROR_USAGE,
                 "--from is after the end of the trace (%.9f s)", r->max_time / 1e9);
    return PT_EXIT_USAGE;
  }
  Geometry g = { o->width ? o->width : 1400, 0, 96, 24, 62, 92 };
  double row_h = r->n <= 16 ? 30 : r->n <= 64 ? 16 : 8;
  double plot_h = o->height ? 0 : MIN (row_h * MAX (r->n, 1), 1200);
  g.h = o->height ? o->height : (int) (g.top + plot_h + g.bottom);
  plot_h = g.h - g.top - g.bottom;

  Panel p = { 0 };
  panel_layout (&p, r->n, g.top, plot_h);
  p.bins.axis = (TimeAxis) { from, to, g.left, g.w - g.right };
  p.bins.cols = (guint) MAX (g.w - g.left - g.right, 1);
  p.lines = pti_sorter_new (sizeof (Line), NULL, o->memory / 4);
  p.seen = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  PtCanvas c = { 0 };
  int rc = PT_EXIT_FAILED;
  GError *local = NULL;
  g_autofree char *main = NULL, *win = NULL, *sub = NULL;
  if (!panel_bins (&p, r, &local) || !pt_msgjoin_run (r->join, panel_on_message, &p, &local)
      || !pti_sorter_finish (p.lines, &local))
    goto out;
  g_clear_pointer (&r->join, pt_msgjoin_free);
  if (!pt_canvas_open (&c, o->output, fmt, g.w, g.h, &local))
    goto out;
  cairo_t *cr = c.cr;
  main = g_strdup_printf ("%s on %s: time-space diagram", r->h->workload_name,
                          r->h->system_name);
  win = window_text (from, to, r->predicted);
  sub = p.messages > MAX_LINES
    ? g_strdup_printf ("%u processes; %s; %" G_GUINT64_FORMAT " messages in the window, too many "
                       "to draw (at most %u): zoom in with --from/--to", r->n, win, p.messages,
                       MAX_LINES)
    : g_strdup_printf ("%u processes; %s; %" G_GUINT64_FORMAT " messages drawn", r->n, win,
                       p.messages);
  pt_title (&c, main, sub);
  if (r->o->stats)   /* what the figure says, for scripts */
    fprintf (stderr, "ptitrace plot: %s\n", sub);
  draw_time_axis (cr, &p.bins.axis, g.top, g.top + plot_h, TRUE);
  panel_draw (cr, &p, g.left - 8, &local);
  if (local != NULL)
    goto out;
  /* Legend, centred under the axis label. */
  double lw = 0;
  for (guint k = 0; k < N_KINDS; k++)
    if (p.bins.used[k] || k == K_COMPUTE || k == K_SEND || k == K_RECV || k == K_WAIT)
      lw += pt_legend_width (cr, kind_labels[k]);
  lw += pt_legend_width (cr, "no event") + pt_legend_width (cr, "message");
  double lx = MAX ((g.w - lw) / 2, 10), ly = g.h - 18;
  for (guint k = 0; k < N_KINDS; k++)
    if (p.bins.used[k] || k == K_COMPUTE || k == K_SEND || k == K_RECV || k == K_WAIT)
      pt_legend_box (cr, &lx, ly, kind_colors[k], kind_labels[k], FALSE);
  pt_legend_box (cr, &lx, ly, idle_color, "no event", FALSE);
  pt_legend_box (cr, &lx, ly, (PtRgb) { 0.12, 0.12, 0.12 }, "message", TRUE);
  if (!pt_canvas_finish (&c, &local))
    goto out;
  rc = PT_EXIT_OK;
out:
  pt_canvas_clear (&c);
  panel_clear (&p);
  if (local != NULL) {
    rc = pt_exit_code (local);
    g_propagate_error (error, local);
  }
  return rc;
}

/* ------------------------------------------------------------------------ */
/* Bandwidth availability per communication stage */

typedef struct {
  guint64 lsend, precv;
  guint64 msg, seq;
  guint64 psend;
  guint32 src, dst;
} MsgSpan;

static int
cmp_span (const void *pa, const void *pb)
{
  const MsgSpan *a = pa, *b = pb;
  if (a->lsend != b->lsend)
    return a->lsend < b->lsend ? -1 : 1;
  return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* A BA value over [t0, t1) of one message, with its message's span. */
typedef struct {
  guint64 lsend, seq;     /* of its message: sort key */
  guint64 t0, t1;
  double value;
  guint64 msg;
} BaSeg;

static int
cmp_seg (const void *pa, const void *pb)
{
  const BaSeg *a = pa, *b = pb;
  if (a->lsend != b->lsend)
    return a->lsend < b->lsend ? -1 : 1;
  if (a->seq != b->seq)
    return a->seq < b->seq ? -1 : 1;
  return a->t0 < b->t0 ? -1 : a->t0 > b->t0;
}

typedef struct {
  guint64 begin, end;
  guint64 number;        /* 1-based */
  guint64 messages, with_ba;
  double ba_min, ba_sum;
  guint64 ba_n;
} Stage;

typedef struct {
  Reading *r;
  PtiSorter *spans;       /* MsgSpan by lsend */
  PtiSorter *segs;        /* BaSeg by (lsend, seq) */
  /* merge-join of messages (by msg) with BA records (by msg) */
  const BaRec *ba;
  GError *ba_error;
} BaJoin;

static gboolean
ba_on_message (const PtMessage *m, gpointer data, GError **error)
{
  BaJoin *j = data;
  MsgSpan s = { pt_msg_lsend (m), pt_msg_precv (m), m->send.msg, m->send.seq, pt_msg_psend (m),
                m->send.rank, m->recv.rank };
  if (!pti_sorter_add (j->spans, &s, error))
    return FALSE;
  /* BA records of messages with lower ids have no message: skip them. */
  while (j->ba != NULL && j->ba->msg < m->send.msg)
    j->ba = pti_sorter_next (j->r->ba, &j->ba_error);
  while (j->ba != NULL && j->ba->msg == m->send.msg) {
    BaRec cur = *j->ba;
    j->ba = pti_sorter_next (j->r->ba, &j->ba_error);
    guint64 t1 = (j->ba != NULL && j->ba->msg == cur.msg) ? j->ba->time : s.precv;
    BaSeg seg = { s.lsend, s.seq, MAX (cur.time, s.lsend), MAX (t1, cur.time), cur.value, cur.msg };
    if (seg.t1 <= seg.t0)
      seg.t1 = seg.t0;
    if (!pti_sorter_add (j->segs, &seg, error))
      return FALSE;
  }
  if (j->ba_error != NULL) {
    g_propagate_error (error, j->ba_error);
    j->ba_error = NULL;
    return FALSE;
  }
  return TRUE;
}

/* Parse --stages: "N", "N-M" or "all". */
static gboolean
parse_stages (const char *s, guint64 *lo, guint64 *hi, GError **error)
{
  if (s == NULL) {
    *lo = 1;
    *hi = 2;
    return TRUE;
  }
  if (strcmp (s, "all") == 0) {
    *lo = 1;
    *hi = G_MAXUINT64;
    return TRUE;
  }
  g_auto (GStrv) parts = g_strsplit (s, "-", 2);
  guint64 a, b;
  if (!g_ascii_string_to_unsigned (parts[0], 10, 1, G_MAXUINT64, &a, NULL)
      || (parts[1] != NULL && !g_ascii_string_to_unsigned (parts[1], 10, 1, G_MAXUINT64, &b, NULL))
      || (parts[1] != NULL && b < a)) {
    g_set_error (error, PT_ERROR, PT_ERROR_USAGE, "--stages %s: expected N, N-M or all", s);
    return FALSE;
  }
  *lo = a;
  *hi = parts[1] != NULL ? b : a;
  return TRUE;
}

/* One column of the figure: the time-space diagram of [from, to] on top,
 * the BA values of the same window below, stage bands across both. */
typedef struct {
  Reading *r;
  BaJoin *j;
  PtiSorter *stages;
  const Geometry *g;
  double ts_h, gap, ba_h;
  double vmax;
  guint64 shown;
  gboolean used[N_KINDS];
} BaFigure;

static gboolean
ba_column (BaFigure *f, cairo_t *cr, guint64 from, guint64 to, double x0, double x1,
           gboolean first, const char *heading, GError **error)
{
  Reading *r = f->r;
  const Geometry *g = f->g;
  double top = g->top + (heading ? 22 : 0);
  double ba_top = top + f->ts_h + f->gap, ba_bottom = ba_top + f->ba_h;
  TimeAxis axis = { from, to, x0, x1 };
  Panel p = { 0 };
  panel_layout (&p, r->n, top, f->ts_h);
  p.bins.axis = axis;
  p.bins.cols = (guint) MAX (x1 - x0, 1);
  p.lines = pti_sorter_new (sizeof (Line), NULL, r->o->memory / 8);
  p.seen = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  gboolean ok = FALSE;
  GError *local = NULL;
  if (!panel_bins (&p, r, &local))
    goto out;
  const MsgSpan *m;
  pti_sorter_rewind (f->j->spans);
  while ((m = pti_sorter_next (f->j->spans, &local)) != NULL)
    if (!panel_line (&p, m->src, m->dst, m->psend, m->precv, &local))
      goto out;
  if (local != NULL || !pti_sorter_finish (p.lines, &local))
    goto out;
  for (guint k = 0; k < N_KINDS; k++)
    f->used[k] |= p.bins.used[k];

  if (heading != NULL) {
    cairo_set_source_rgb (cr, 0.1, 0.1, 0.1);
    pt_text (cr, (x0 + x1) / 2, g->top, 12, TRUE, 0.5, 0, heading);
  }
  /* Stage bands, with the stage's numbers. */
  const Stage *s;
  guint64 i = 0;
  double label_end = -1;
  pti_sorter_rewind (f->stages);
  while ((s = pti_sorter_next (f->stages, &local)) != NULL) {
    i++;
    if (s->end < from || s->begin > to)
      continue;
    double sx0 = MAX (x_of (&axis, s->begin), x0), sx1 = MIN (x_of (&axis, s->end), x1);
    cairo_set_source_rgba (cr, 0.98, 0.93, 0.78, 0.9);
    cairo_rectangle (cr, sx0, ba_top, MAX (sx1 - sx0, 1), f->ba_h);
    cairo_fill (cr);
    cairo_set_source_rgba (cr, 0.85, 0.65, 0.2, 0.9);
    cairo_set_line_width (cr, 1);
    cairo_rectangle (cr, round (sx0) + 0.5, top - 4.5, MAX (round (sx1 - sx0), 1), f->ts_h + 8);
    cairo_stroke (cr);
    const char *prefix;
    double scale = pt_si_scale (s->ba_min, &prefix);
    g_autofree char *l1 = g_strdup_printf ("stage %" G_GUINT64_FORMAT, i);
    g_autofree char *mn = pt_num (s->ba_min / scale, 1);
    g_autofree char *mean = pt_num (s->ba_sum / MAX (s->ba_n, 1) / scale, 1);
    g_autofree char *l2 = g_strdup_printf ("%" G_GUINT64_FORMAT " message%s", s->messages,
                                           s->messages == 1 ? "" : "s");
    g_autofree char *l3 = g_strdup_printf ("BA min %s, mean %s %sB/s", mn, mean, prefix);
    double cx = (sx0 + sx1) / 2;
    double w = MAX (pt_text_width (cr, 10, FALSE, l3), pt_text_width (cr, 11, TRUE, l1));
    cx = CLAMP (cx, x0 + w / 2 + 2, x1 - w / 2 - 2);
    if (heading == NULL && cx - w / 2 > label_end + 6) {
      cairo_set_source_rgba (cr, 1, 1, 1, 0.85);
      cairo_rectangle (cr, cx - w / 2 - 4, ba_top + 3, w + 8, 45);
      cairo_fill (cr);
      cairo_set_source_rgb (cr, 0.45, 0.3, 0.0);
      pt_text (cr, cx, ba_top + 6, 11, TRUE, 0.5, 0, l1);
      pt_text (cr, cx, ba_top + 21, 10, FALSE, 0.5, 0, l2);
      pt_text (cr, cx, ba_top + 35, 10, FALSE, 0.5, 0, l3);
      label_end = cx + w / 2;
    }
  }
  if (local != NULL)
    goto out;

  draw_time_axis (cr, &axis, top, top + f->ts_h, FALSE);
  draw_bins (cr, &p.bins, p.top, p.row_h, p.row_h >= 8 ? 0.62 : 0.85);
  if (first)
    draw_row_labels (cr, &p.bins, p.top, p.row_h, x0 - 8);
  if (p.messages <= MAX_LINES)
    draw_lines (cr, p.lines, p.messages, &local);
  if (local != NULL)
    goto out;

  PtValueAxis va = { f->vmax, ba_bottom, ba_top };
  /* Labels on the first column only; the others share its scale. */
  pt_draw_value_axis (cr, &va, x0, x1, "bandwidth availability", "B/s", first);
  draw_time_axis (cr, &axis, ba_top, ba_bottom, TRUE);
  cairo_save (cr);
  cairo_rectangle (cr, x0, ba_top, x1 - x0, f->ba_h);
  cairo_clip (cr);
  const BaSeg *seg;
  /* Few messages in the window: name each where its first value starts,
   * so a step can be told from the next (labels that would overlap an
   * earlier one are left out). */
  guint64 in_window = 0;
  pti_sorter_rewind (f->j->segs);
  while ((seg = pti_sorter_next (f->j->segs, &local)) != NULL)
    in_window += !(seg->t1 < from || seg->t0 > to);
  gboolean labels = in_window <= BA_LABELS;
  double boxes[BA_LABELS][4];
  guint n_boxes = 0;
  guint64 prev_msg = G_MAXUINT64;
  pti_sorter_rewind (f->j->segs);
  while ((seg = pti_sorter_next (f->j->segs, &local)) != NULL) {
    gboolean first_seg = seg->msg != prev_msg;
    prev_msg = seg->msg;
    if (seg->t1 < from || seg->t0 > to)
      continue;
    f->shown++;
    double sx0 = x_of (&axis, seg->t0), sx1 = MAX (x_of (&axis, seg->t1), sx0 + 1);
    double y = pt_y_of (&va, seg->value);
    pt_set_rgb (cr, kind_colors[K_COMPUTE]);
    cairo_set_line_width (cr, 2.2);
    cairo_move_to (cr, sx0, y);
    cairo_line_to (cr, sx1, y);
    cairo_stroke (cr);
    cairo_arc (cr, sx0, y, 2.8, 0, 2 * G_PI);
    cairo_fill (cr);
    if (labels && first_seg) {
      g_autofree char *l = g_strdup_printf ("msg %" G_GUINT64_FORMAT, seg->msg);
      double w = pt_text_width (cr, 10, FALSE, l), bx = sx0 + 4, by = y - 16;
      gboolean clear = TRUE;
      for (guint b = 0; b < n_boxes && clear; b++)
        clear = bx + w < boxes[b][0] || bx > boxes[b][2] || by + 12 < boxes[b][1]
                || by > boxes[b][3];
      if (clear && n_boxes < BA_LABELS) {
        boxes[n_boxes][0] = bx;
        boxes[n_boxes][1] = by;
        boxes[n_boxes][2] = bx + w;
        boxes[n_boxes][3] = by + 12;
        n_boxes++;
        cairo_set_source_rgb (cr, 0.25, 0.25, 0.25);
        pt_text (cr, bx, by, 10, FALSE, 0, 0, l);
      }
    }
  }
  cairo_restore (cr);
  if (local != NULL)
    goto out;
  ok = TRUE;
out:
  panel_clear (&p);
  if (local != NULL)
    g_propagate_error (error, local);
  return ok;
}

static int
plot_ba (Reading *r, PtFormat fmt, GError **error)
{
  const PtOptions *o = r->o;
  gsize budget = o->memory / 4;
  guint64 st_lo, st_hi;
  if (!parse_stages (o->stages, &st_lo, &st_hi, error))
    return PT_EXIT_USAGE;
  BaJoin j = { r, pti_sorter_new (sizeof (MsgSpan), cmp_span, budget),
               pti_sorter_new (sizeof (BaSeg), cmp_seg, budget), NULL, NULL };
  PtiSorter *stages = pti_sorter_new (sizeof (Stage), NULL, budget);
  PtCanvas c = { 0 };
  int rc = PT_EXIT_FAILED;
  GError *local = NULL;
  g_autofree char *main = NULL, *which = NULL, *sub = NULL, *predicted = NULL;
  char *headings[4] = { NULL, NULL, NULL, NULL };

  if (!pti_sorter_finish (r->ba, &local))
    goto out;
  j.ba = pti_sorter_next (r->ba, &local);
  if (local != NULL || !pt_msgjoin_run (r->join, ba_on_message, &j, &local)
      || !pti_sorter_finish (j.spans, &local) || !pti_sorter_finish (j.segs, &local))
    goto out;
  /* Consumed: give their memory back before the next sorts. */
  g_clear_pointer (&r->join, pt_msgjoin_free);
  g_clear_pointer (&r->ba, pti_sorter_free);
  j.ba = NULL;
  if (pti_sorter_count (j.segs) == 0) {
    g_set_error (&local, PT_ERROR, PT_ERROR_INVALID,
                 "%s: the trace has no <ba> record of a message it holds: nothing to plot",
                 r->trace);
    goto out;
  }

  /* Stages with BA values: sweep the messages by start; the BA segments
   * come in the same order. */
  {
    Stage cur = { 0 };
    gboolean open = FALSE;
    guint64 number = 0;
    pti_sorter_rewind (j.segs);
    const BaSeg *seg = pti_sorter_next (j.segs, &local);
    const MsgSpan *m;
    while ((m = pti_sorter_next (j.spans, &local)) != NULL) {
      if (!open || m->lsend > cur.end) {
        if (open && cur.ba_n > 0 && !pti_sorter_add (stages, &cur, &local))
          goto out;
        number++;
        cur = (Stage) { m->lsend, m->precv, number, 0, 0, G_MAXDOUBLE, 0, 0 };
        open = TRUE;
      }
      cur.end = MAX (cur.end, m->precv);
      cur.messages++;
      while (seg != NULL && (seg->lsend < m->lsend || (seg->lsend == m->lsend && seg->seq <= m->seq))) {
        if (seg->seq == m->seq) {
          cur.ba_min = MIN (cur.ba_min, seg->value);
          cur.ba_sum += seg->value;
          cur.ba_n++;
        }
        seg = pti_sorter_next (j.segs, &local);
      }
    }
    if (local != NULL)
      goto out;
    if (open && cur.ba_n > 0 && !pti_sorter_add (stages, &cur, &local))
      goto out;
  }
  if (!pti_sorter_finish (stages, &local))
    goto out;
  guint64 n_stages = pti_sorter_count (stages);

  /* Columns: one per selected stage (at most 4), or one window. */
  guint64 wins[4][2];
  guint ncols = 0;
  if (o->have_from || o->have_to) {
    wins[0][0] = o->have_from ? o->from : 0;
    wins[0][1] = o->have_to ? o->to : r->max_time;
    ncols = 1;
    which = g_strdup ("time window of --from/--to");
  } else {
    if (st_lo > n_stages) {
      g_set_error (&local, PT_ERROR, PT_ERROR_USAGE,
                   "--stages: the trace has %" G_GUINT64_FORMAT " communication stage%s with "
                   "bandwidth records", n_stages, n_stages == 1 ? "" : "s");
      rc = PT_EXIT_USAGE;
      goto out;
    }
    guint64 hi = MIN (st_hi, n_stages);
    if (hi - st_lo + 1 <= 4) {
      for (guint64 s = st_lo; s <= hi; s++) {
        Stage st;
        if (!pti_sorter_get (stages, s - 1, &st, &local))
          goto out;
        guint64 pad = MAX ((st.end - st.begin) / 10, 1);
        wins[ncols][0] = st.begin > pad ? st.begin - pad : 0;
        wins[ncols][1] = st.end + pad;
        g_autofree char *a = human_time (st.begin), *b = human_time (st.end);
        const char *prefix;
        double scale = pt_si_scale (st.ba_min, &prefix);
        g_autofree char *mn = pt_num (st.ba_min / scale, 1);
        g_autofree char *mean = pt_num (st.ba_sum / MAX (st.ba_n, 1) / scale, 1);
        headings[ncols] = g_strdup_printf ("stage %" G_GUINT64_FORMAT ": %s to %s, %"
                                           G_GUINT64_FORMAT " message%s, BA min %s, mean %s %sB/s",
                                           s, a, b, st.messages, st.messages == 1 ? "" : "s", mn,
                                           mean, prefix);
        ncols++;
      }
    } else {
      Stage a, b;
      if (!pti_sorter_get (stages, st_lo - 1, &a, &local) || !pti_sorter_get (stages, hi - 1, &b, &local))
        goto out;
      guint64 pad = MAX ((b.end - a.begin) / 50, 1);
      wins[0][0] = a.begin > pad ? a.begin - pad : 0;
      wins[0][1] = b.end + pad;
      ncols = 1;
    }
    which = st_lo == hi ? g_strdup_printf ("stage %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT,
                                           st_lo, n_stages)
                        : g_strdup_printf ("stages %" G_GUINT64_FORMAT "-%" G_GUINT64_FORMAT
                                           " of %" G_GUINT64_FORMAT, st_lo, hi, n_stages);
  }
  if (wins[0][1] <= wins[0][0]) {
    g_set_error (&local, PT_ERROR, PT_ERROR_USAGE, "the time window is empty");
    rc = PT_EXIT_USAGE;
    goto out;
  }

  /* A common BA scale over every column. */
  double vmax = 0;
  {
    const BaSeg *seg;
    pti_sorter_rewind (j.segs);
    while ((seg = pti_sorter_next (j.segs, &local)) != NULL)
      for (guint k = 0; k < ncols; k++)
        if (seg->t1 >= wins[k][0] && seg->t0 <= wins[k][1])
          vmax = MAX (vmax, seg->value);
    if (local != NULL)
      goto out;
  }

  Geometry g = { o->width ? o->width : 1400, o->height ? o->height : 0, 110, 24, 62, 92 };
  double heading_h = headings[0] ? 22 : 0;
  double ts_h = MIN (MAX (r->n * 14.0, 120), 420), gap = 40, ba_h = 300;
  if (g.h == 0)
    g.h = (int) (g.top + heading_h + ts_h + gap + ba_h + g.bottom);
  else {
    double avail = g.h - g.top - heading_h - g.bottom - gap;
    ts_h = avail * 0.45;
    ba_h = avail - ts_h;
  }
  if (!pt_canvas_open (&c, o->output, fmt, g.w, g.h, &local))
    goto out;
  cairo_t *cr = c.cr;
  BaFigure fig = { r, &j, stages, &g, ts_h, gap, ba_h, vmax > 0 ? vmax * 1.12 : 1, 0, { FALSE } };
  double col_gap = 36, width = (g.w - g.left - g.right - col_gap * (ncols - 1)) / ncols;
  for (guint k = 0; k < ncols; k++) {
    double x0 = g.left + k * (width + col_gap);
    if (!ba_column (&fig, cr, wins[k][0], wins[k][1], x0, x0 + width, k == 0, headings[k], &local))
      goto out;
  }
  main = g_strdup_printf ("%s on %s: bandwidth availability per communication stage",
                          r->h->workload_name, r->h->system_name);
  predicted = human_time (r->predicted);
  sub = g_strdup_printf ("%s; %" G_GUINT64_FORMAT " BA values shown; a stage is a maximal "
                         "interval with a message in flight (send posted to data arrived); "
                         "%s predicted", which, fig.shown, predicted);
  pt_title (&c, main, sub);
  if (r->o->stats)   /* what the figure says, for scripts */
    fprintf (stderr, "ptitrace plot: %s\n", sub);

  double lw = pt_legend_width (cr, "bandwidth availability of a message while in flight")
              + pt_legend_width (cr, "communication stage") + pt_legend_width (cr, "message");
  for (guint k = 0; k < N_KINDS; k++)
    if (fig.used[k])
      lw += pt_legend_width (cr, kind_labels[k]);
  double lx = MAX ((g.w - lw) / 2, 10), ly = g.h - 18;
  for (guint k = 0; k < N_KINDS; k++)
    if (fig.used[k])
      pt_legend_box (cr, &lx, ly, kind_colors[k], kind_labels[k], FALSE);
  pt_legend_box (cr, &lx, ly, (PtRgb) { 0.12, 0.12, 0.12 }, "message", TRUE);
  pt_legend_box (cr, &lx, ly, (PtRgb) { 0.98, 0.88, 0.6 }, "communication stage", FALSE);
  pt_legend_box (cr, &lx, ly, kind_colors[K_COMPUTE],
              "bandwidth availability of a message while in flight", TRUE);
  if (!pt_canvas_finish (&c, &local))
    goto out;
  rc = PT_EXIT_OK;
out:
  for (guint k = 0; k < G_N_ELEMENTS (headings); k++)
    g_free (headings[k]);
  pt_canvas_clear (&c);
  pti_sorter_free (j.spans);
  pti_sorter_free (j.segs);
  pti_sorter_free (stages);
  if (local != NULL) {
    if (rc == PT_EXIT_FAILED)
      rc = pt_exit_code (local);
    g_propagate_error (error, local);
  }
  return rc;
}

/* ------------------------------------------------------------------------ */
/* Knee capacity over time
 *
 * The <knee> records of a record type are one step line: the knee capacity
 * of the network from a record's time until the next record of that type
 * (the last until the end of the run).  The link field names the bottleneck
 * link of that moment, which changes as messages come and go; it colours the
 * line: the KNEE_LINKS links that are the bottleneck longest in the window
 * get a colour each (the legend gives their share of the time), the others
 * are grey.  A record whose link is an empty name says that no message is in
 * flight: the line stops until the next record.
 *
 * Two passes over the time-sorted records: the first adds up how long each
 * link is the bottleneck (a table per distinct link: the links of the
 * network), the second reduces the line to pixel columns (first, last, min
 * and max value, and time per colour), so memory and the size of SVG and
 * PDF files do not grow with the number of records. */

#define KNEE_LINKS 9          /* coloured links; pt_series_colors[PT_MAX_SERIES] is "other" */
#define KNEE_MAX_KEYS 65536u  /* distinct links counted; beyond, "other" */
#define KNEE_MARKS 300        /* at most this many records in the window: a dot each */

typedef struct {
  guint type;
  guint named;
  double link;
} KneeKey;

typedef struct {
  KneeKey key;
  guint64 held;        /* ns as the bottleneck within the window */
  guint64 first;       /* order of first appearance */
  int cls;             /* colour class, KNEE_LINKS for "other" */
} KneeLink;

static guint
knee_key_hash (gconstpointer p)
{
  const KneeKey *k = p;
  guint64 bits;
  memcpy (&bits, &k->link, sizeof bits);
  return (guint) (bits ^ (bits >> 32)) ^ (k->type * 2654435761u) ^ (k->named << 31);
}

static gboolean
knee_key_equal (gconstpointer a, gconstpointer b)
{
  const KneeKey *x = a, *y = b;
  return x->type == y->type && x->named == y->named && x->link == y->link;
}

typedef struct {
  float first, last, min, max;
  gboolean has;
  gboolean joined;     /* its first value continues the previous column's last */
  float held[KNEE_LINKS + 1];   /* ns per colour class */
} KneeCol;

/* One knee record type: the state of its step line while streaming. */
typedef struct {
  gboolean has;        /* a record was read */
  guint64 time;
  double value;
  KneeKey key;
  gboolean traffic;    /* not an empty link name */
  KneeCol *cols;
  guint64 fed_end;     /* end of the last segment fed to the columns */
} KneeLine;

static gboolean
knee_traffic (Reading *r, const KneeRec *k)
{
  return !k->named || *pt_fields_name (r->fields, k->type, (guint) r->knee_link[k->type],
                                       (guint) k->series) != '\0';
}

static KneeLink *
knee_link (GHashTable *links, const KneeKey *key)
{
  KneeLink *l = g_hash_table_lookup (links, key);
  if (l == NULL && g_hash_table_size (links) < KNEE_MAX_KEYS) {
    l = g_new0 (KneeLink, 1);
    l->key = *key;
    l->first = g_hash_table_size (links);
    l->cls = KNEE_LINKS;
    g_hash_table_insert (links, &l->key, l);
  }
  return l;
}

static int
cmp_knee_links (gconstpointer pa, gconstpointer pb)
{
  const KneeLink *a = *(KneeLink *const *) pa, *b = *(KneeLink *const *) pb;
  if (a->held != b->held)
    return a->held > b->held ? -1 : 1;
  return a->first < b->first ? -1 : a->first > b->first;
}

/* Feed the segment [t0, t1) of @line (its current value) to the columns. */
static void
knee_segment (KneeLine *line, int cls, guint64 t0, guint64 t1, guint64 from, guint64 to,
              guint cols)
{
  t0 = MAX (t0, from);
  t1 = MIN (t1, to);
  if (t1 <= t0)
    return;
  double span = (double) (to - from);
  guint c0 = MIN ((guint) ((double) (t0 - from) / span * cols), cols - 1);
  guint c1 = MIN ((guint) ((double) (t1 - 1 - from) / span * cols), cols - 1);
  float v = (float) line->value;
  /* No gap since the previous segment: the line goes on. */
  gboolean continues = line->fed_end == t0 && t0 > from;
  line->fed_end = t1;
  for (guint c = c0; c <= c1; c++) {
    KneeCol *col = &line->cols[c];
    double a = MAX ((double) t0, from + span * c / cols);
    double b = MIN ((double) t1, from + span * (c + 1) / cols);
    col->held[cls] += (float) MAX (b - a, 0);
    if (!col->has) {
      *col = (KneeCol) { v, v, v, v, TRUE, c > c0 || continues, { 0 } };
      col->held[cls] = (float) MAX (b - a, 0);
    } else {
      col->min = MIN (col->min, v);
      col->max = MAX (col->max, v);
      col->last = v;
    }
  }
}

static int
plot_knee (Reading *r, PtFormat fmt, GError **error)
{
  const PtOptions *o = r->o;
  const PtiTrHeader *h = r->h;
  GError *local = NULL;
  if (!pti_sorter_finish (r->knee, error))
    return PT_EXIT_FAILED;
  if (pti_sorter_count (r->knee) == 0) {
    g_set_error (error, PT_ERROR, PT_ERROR_INVALID, "%s: the trace has no <knee> record: nothing "
                 "to plot", r->trace);
    return PT_EXIT_INVALID;
  }
  guint64 end = MAX (r->max_time, 1);
  guint64 from = o->have_from ? o->from : 0;
  guint64 to = o->have_to ? o->to : MAX (end, from + 1);
  if (to <= from) {
    g_set_error (error, PT_ERROR, PT_ERROR_USAGE, "--from is after the end of the trace");
    return PT_EXIT_USAGE;
  }
  Geometry g = { o->width ? o->width : 1400, o->height ? o->height : 640, 110, 24, 62, 92 };
  TimeAxis axis = { from, to, g.left, g.w - g.right };
  guint cols = (guint) MAX (axis.x1 - axis.x0, 1);
  KneeLine *lines = g_new0 (KneeLine, MAX (h->n_records, 1));
  g_autoptr (GHashTable) links = g_hash_table_new_full (knee_key_hash, knee_key_equal, NULL, g_free);
  g_autoptr (GPtrArray) ranked = g_ptr_array_new ();
  guint64 traffic_ns = 0, in_window = 0, n_links = 0;
  gboolean any_link = FALSE;
  double vmax = 0;
  int rc = PT_EXIT_FAILED;
  PtCanvas c = { 0 };
  GArray *marks = g_array_new (FALSE, FALSE, sizeof (KneeRec));
  g_autofree char *main = NULL, *win = NULL, *sub = NULL;
  const KneeRec *k;

  /* Pass 1: how long each link is the bottleneck within the window. */
  pti_sorter_rewind (r->knee);
  for (int pass = 0; pass < 2; pass++) {
    if (pass == 1) {
      pti_sorter_rewind (r->knee);
      for (guint t = 0; t < h->n_records; t++)
        if (r->knee_value[t] >= 0) {
          lines[t].has = FALSE;
          lines[t].fed_end = 0;
          lines[t].cols = g_new0 (KneeCol, cols);
        }
    }
    for (;;) {
      k = pti_sorter_next (r->knee, &local);
      KneeLine *line = k != NULL ? &lines[k->type] : NULL;
      /* The previous value of this line holds until this record; at the end,
       * every line's last value holds until the end of the run. */
      for (guint t = 0; t < h->n_records; t++) {
        KneeLine *l = &lines[t];
        if (!l->has || !l->traffic || (line != NULL && l != line))
          continue;
        guint64 t1 = k != NULL ? k->time : MAX (end, l->time);
        guint64 a = MAX (l->time, from), b = MIN (t1, to);
        KneeLink *kl = knee_link (links, &l->key);
        if (pass == 0) {
          if (b > a) {
            traffic_ns += b - a;
            if (kl != NULL)
              kl->held += b - a;
          }
        } else {
          knee_segment (l, kl != NULL ? kl->cls : KNEE_LINKS, l->time, t1, from, to, cols);
        }
      }
      if (k == NULL)
        break;
      gboolean traffic = knee_traffic (r, k);
      *line = (KneeLine) { TRUE, k->time, k->value, { k->type, k->named, k->series }, traffic,
                           line->cols, line->fed_end };
      any_link |= r->knee_link[k->type] >= 0;
      if (pass == 0 && traffic)
        knee_link (links, &line->key);
      if (pass == 1 && k->time >= from && k->time <= to) {
        in_window++;
        if (traffic && marks->len <= KNEE_MARKS)
          g_array_append_val (marks, *k);
      }
    }
    if (local != NULL)
      goto out;
    if (pass == 0) {
      GHashTableIter it;
      gpointer v;
      g_hash_table_iter_init (&it, links);
      while (g_hash_table_iter_next (&it, NULL, &v))
        if (((KneeLink *) v)->held > 0)
          g_ptr_array_add (ranked, v);
      g_ptr_array_sort (ranked, cmp_knee_links);
      n_links = ranked->len;
      for (guint i = 0; i < ranked->len && i < KNEE_LINKS; i++)
        ((KneeLink *) ranked->pdata[i])->cls = (int) i;
    }
  }

  for (guint t = 0; t < h->n_records; t++)
    for (guint i = 0; lines[t].cols != NULL && i < cols; i++)
      if (lines[t].cols[i].has)
        vmax = MAX (vmax, lines[t].cols[i].max);
  if (!pt_canvas_open (&c, o->output, fmt, g.w, g.h, &local))
    goto out;
  cairo_t *cr = c.cr;

  /* Legend entries, wrapped on as many rows as they need. */
  GPtrArray *labels = g_ptr_array_new_with_free_func (g_free);
  GArray *colors = g_array_new (FALSE, FALSE, sizeof (PtRgb));
  for (guint i = 0; i < ranked->len && i < KNEE_LINKS; i++) {
    const KneeLink *kl = ranked->pdata[i];
    g_autofree char *pct = pt_num (100.0 * (double) kl->held / (double) MAX (traffic_ns, 1), 1);
    char *label;
    if (!any_link)
      label = g_strdup (h->records[kl->key.type].model);
    else if (r->knee_link[kl->key.type] < 0)
      label = g_strdup_printf ("%s (no link)", h->records[kl->key.type].model);
    else if (kl->key.named)
      label = g_strdup_printf ("%s %s%%", pt_fields_name (r->fields, kl->key.type,
                                                          (guint) r->knee_link[kl->key.type],
                                                          (guint) kl->key.link), pct);
    else {
      g_autofree char *id = pt_num (kl->key.link, 6);
      label = g_strdup_printf ("link %s %s%%", id, pct);
    }
    g_ptr_array_add (labels, label);
    g_array_append_val (colors, pt_series_colors[i]);
  }
  if (n_links > KNEE_LINKS) {
    guint64 rest = traffic_ns;
    for (guint i = 0; i < KNEE_LINKS; i++)
      rest -= ((KneeLink *) ranked->pdata[i])->held;
    g_autofree char *pct = pt_num (100.0 * (double) rest / (double) MAX (traffic_ns, 1), 1);
    g_ptr_array_add (labels, g_strdup_printf ("%" G_GUINT64_FORMAT " other links %s%%",
                                              n_links - KNEE_LINKS, pct));
    g_array_append_val (colors, pt_series_colors[PT_MAX_SERIES]);
  }
  double avail = g.w - 40;
  guint rows = 1;
  {
    double x = 0;
    for (guint i = 0; i < labels->len; i++) {
      double w = pt_legend_width (cr, labels->pdata[i]);
      if (x > 0 && x + w > avail) {
        rows++;
        x = 0;
      }
      x += w;
    }
  }
  double bottom = g.h - g.bottom - 18.0 * (rows - 1), top = g.top;

  PtValueAxis va = { vmax > 0 ? vmax * 1.08 : 1, bottom, top };
  main = g_strdup_printf ("%s on %s: knee capacity of the network", h->workload_name,
                          h->system_name);
  win = window_text (from, to, r->predicted);
  sub = g_strdup_printf ("throughput of the bottleneck link, held until the next record%s; gaps: "
                         "no message in flight; %s; %" G_GUINT64_FORMAT " records in the window",
                         any_link ? ", coloured by that link (legend: share of the time with "
                                    "traffic)" : "", win, in_window);
  pt_title (&c, main, sub);
  if (r->o->stats)   /* what the figure says, for scripts */
    fprintf (stderr, "ptitrace plot: %s\n", sub);
  pt_draw_value_axis (cr, &va, g.left, g.w - g.right, "knee capacity",
                   r->knee_packets ? "packets/s" : "B/s", TRUE);
  draw_time_axis (cr, &axis, top, bottom, TRUE);
  cairo_save (cr);
  cairo_rectangle (cr, axis.x0, top - 2, axis.x1 - axis.x0, bottom - top + 4);
  cairo_clip (cr);
  double colw = (axis.x1 - axis.x0) / cols;
  cairo_set_line_width (cr, 1.8);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_SQUARE);
  for (guint t = 0; t < h->n_records; t++) {
    KneeLine *l = &lines[t];
    if (l->cols == NULL)
      continue;
    /* One path per run of columns of one colour; a column is a step:
     * across at its first value, down and up to its range, across at its
     * last value. */
    int cur = -1;
    gboolean open = FALSE;
    for (guint i = 0; i < cols; i++) {
      const KneeCol *col = &l->cols[i];
      if (!col->has) {
        if (open)
          cairo_stroke (cr);
        open = FALSE;
        continue;
      }
      int cls = 0;
      for (int q = 1; q <= KNEE_LINKS; q++)
        if (col->held[q] > col->held[cls])
          cls = q;
      double x0 = axis.x0 + i * colw, xm = x0 + colw / 2, x1 = x0 + colw;
      if (open && (!col->joined || cls != cur)) {
        double px, py;
        cairo_get_current_point (cr, &px, &py);
        cairo_stroke (cr);
        open = FALSE;
        if (col->joined) {
          cairo_move_to (cr, px, py);   /* the line goes on, in another colour */
          open = TRUE;
        }
      }
      if (!open)
        cairo_move_to (cr, x0, pt_y_of (&va, col->first));
      if (cls != cur || !open)
        pt_set_rgb (cr, pt_series_colors[cls < KNEE_LINKS ? cls : PT_MAX_SERIES]);
      cur = cls;
      open = TRUE;
      cairo_line_to (cr, xm, pt_y_of (&va, col->first));
      if (col->max > col->min) {
        cairo_line_to (cr, xm, pt_y_of (&va, col->first == col->max ? col->min : col->max));
        cairo_line_to (cr, xm, pt_y_of (&va, col->first == col->max ? col->max : col->min));
      }
      cairo_line_to (cr, xm, pt_y_of (&va, col->last));
      cairo_line_to (cr, x1, pt_y_of (&va, col->last));
    }
    if (open)
      cairo_stroke (cr);
  }
  /* Few records: a dot at each. */
  if (in_window <= KNEE_MARKS)
    for (guint i = 0; i < marks->len; i++) {
      const KneeRec *m = &g_array_index (marks, KneeRec, i);
      KneeKey key = { m->type, m->named, m->series };
      const KneeLink *kl = g_hash_table_lookup (links, &key);
      int cls = kl != NULL ? kl->cls : KNEE_LINKS;
      pt_set_rgb (cr, pt_series_colors[cls < KNEE_LINKS ? cls : PT_MAX_SERIES]);
      cairo_arc (cr, x_of (&axis, m->time), pt_y_of (&va, m->value), 2.8, 0, 2 * G_PI);
      cairo_fill (cr);
    }
  cairo_restore (cr);
  /* Legend: rows of entries, centred. */
  {
    guint i = 0;
    double ly = g.h - 18.0 * rows;
    while (i < labels->len) {
      guint j = i;
      double w = 0;
      while (j < labels->len && (j == i || w + pt_legend_width (cr, labels->pdata[j]) <= avail))
        w += pt_legend_width (cr, labels->pdata[j++]);
      double lx = MAX ((g.w - w) / 2, 10);
      for (; i < j; i++)
        pt_legend_box (cr, &lx, ly, g_array_index (colors, PtRgb, i), labels->pdata[i], TRUE);
      ly += 18;
    }
  }
  g_ptr_array_unref (labels);
  g_array_unref (colors);
  if (!pt_canvas_finish (&c, &local))
    goto out;
  rc = PT_EXIT_OK;
out:
  pt_canvas_clear (&c);
  for (guint t = 0; t < h->n_records; t++)
    g_free (lines[t].cols);
  g_free (lines);
  g_array_unref (marks);
  if (local != NULL) {
    rc = pt_exit_code (local);
    g_propagate_error (error, local);
  }
  return rc;
}

int
pt_plot (const char *trace, const PtOptions *o, GError **error)
{
  PtFormat fmt;
  if (!pt_format_of (o->output, &fmt, error))
    return PT_EXIT_USAGE;
  gboolean ba = strcmp (o->kind, "ba") == 0, knee = strcmp (o->kind, "knee") == 0;
  Reading r = { 0 };
  r.o = o;
  r.trace = trace;
  int rc;
  if (!read_trace (&r, ba, knee, error))
    rc = pt_exit_code (*error);
  else if (ba)
    rc = plot_ba (&r, fmt, error);
  else if (knee)
    rc = plot_knee (&r, fmt, error);
  else
    rc = plot_timespace (&r, fmt, error);
  reading_clear (&r);
  /* Release cairo's font caches (and the fontconfig patterns they hold):
   * nothing is drawn after this, and leak checkers stay quiet. */
  cairo_debug_reset_static_data ();
  return rc;
}
