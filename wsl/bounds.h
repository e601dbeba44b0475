/* Bounded predictions (issue 15 point 5; seed 003, Delphi: "if value ranges
 * are included ... the symbolic model can produce bounding estimates").
 * What the bounds mean and when they are guaranteed: wsl/README.md,
 * "Bounded predictions".  Internal to the driver. */
#pragma once

#include "ranges-private.h"

G_BEGIN_DECLS

typedef enum {
  PTI_BOUNDS_NONE,         /* the nominal prediction only */
  PTI_BOUNDS_DIRECTED,     /* ranges with a known sense at their fast (slow) end,
                              both ends of the others: 2 x 2^unknown runs */
  PTI_BOUNDS_EXHAUSTIVE,   /* every corner: 2^ranges runs, directions checked */
} PtiBoundsMethod;

/* One evaluation with @ranges' chosen ends: its predicted time, the trace
 * written to @trace if not NULL. */
typedef gboolean (*PtiBoundsRun) (PtiRanges *ranges, const char *trace, double *time,
                                  gpointer data, GError **error);

typedef struct {
  PtiBoundsMethod method;
  double lower, upper;     /* s: the least and greatest prediction over the corners run */
  guint runs;              /* evaluations made for the bounds (traces' reruns included) */
  double wall_s;           /* their wall time */
  PtiRangeEnd *lower_corner, *upper_corner; /* per range met, in order (owned) */
  GPtrArray *warnings;     /* char *: what the runs showed about monotonicity */
} PtiBounds;

void pti_bounds_clear (PtiBounds *b);

/* "directed", "exhaustive", "none" into @method; FALSE with a usage error. */
const char *pti_bounds_method_name (PtiBoundsMethod method);
gboolean pti_bounds_method_parse (const char *text, PtiBoundsMethod *method, GError **error);

/* The bounds over @ranges (those the nominal run met; its prediction
 * @nominal), with at most @limit evaluations (else a PTI_ERROR_USAGE
 * error saying how many the method needs), writing the traces of the
 * lower and upper corners to @trace_lower and @trace_upper if not NULL. */
gboolean pti_bounds_compute (PtiRanges *ranges, PtiBoundsMethod method, guint limit,
                             double nominal, const char *trace_lower, const char *trace_upper,
                             PtiBoundsRun run, gpointer data, PtiBounds *out, GError **error);

/* FILE.xml -> FILE.lower.xml (or FILE.upper.xml); FILE without .xml gets
 * .lower / .upper appended.  (transfer full) */
char *pti_bounds_trace_name (const char *trace, const char *which);

G_END_DECLS
