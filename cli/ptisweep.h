/* ptisweep's parts (cli/ptisweep.c: the sweep and its table; cli/sweep-plot.c:
 * its plots).  Not installed. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  char *name;
  GArray *values;       /* double, in the order given */
  char **texts;         /* the values as the table writes them */
} SweepParam;

typedef struct {
  GPtrArray *params;    /* SweepParam*, in the order of the -D options */
  char **systems;       /* HMC files, as given */
  guint n_systems;
  char *workload;
  char *model_path;
  GPtrArray *asserts;   /* names of the workload's assertions, in document order */
  const char *output;
  gboolean json;
  guint64 n_points;
  GPtrArray *columns;   /* the table's column names */
  guint col_workload, col_system, col_time, col_assert, col_error;
  char *header;         /* the table's first line */
  int bounds;           /* PtiBoundsMethod (wsl/bounds.h): NONE unless --bounds */
  guint bounds_limit;   /* --bounds-limit */
  guint col_bounds;     /* time_lower_s, time_upper_s (with --bounds) */
} Sweep;

void pti_sweep_free (Sweep *sw);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (Sweep, pti_sweep_free)

/* Point @index: its system and the index of each parameter's value. */
void pti_sweep_point (const Sweep *sw, guint64 index, guint *system, guint *values);

/* A number as the table writes it: the shortest text that reads back the
 * same double; "" for NaN or infinity. */
char *pti_sweep_number (double v);

typedef struct {
  const char *param;    /* --plot, or NULL for no plots */
  const char *prefix;   /* --plot-output, or NULL */
  const char *format;   /* --plot-format: png, svg; NULL for png */
} SweepPlot;

/* Checks the plot options against the sweep before anything is evaluated. */
gboolean pti_sweep_plot_check (const Sweep *sw, const SweepPlot *opts, GError **error);

/* Draws time, speedup and efficiency against opts->param from the table's
 * rows (by point: sw->columns->len fields each); nothing if opts->param is
 * NULL. */
gboolean pti_sweep_plot (const Sweep *sw, const SweepPlot *opts, const char *const *const *rows,
                         GError **error);

G_END_DECLS
