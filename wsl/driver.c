/* The command line shared by ptieval and C workload programs: options,
 * exit codes, progress on a terminal, the human summary and the JSON report.
 *
 * Exit codes: 0 ok, 2 usage, 3 invalid input (bad XML, schema, expression,
 * unknown model, deadlock), 4 a performance assertion failed (the report is
 * complete), 1 anything else (I/O while writing, ...). */
#include "pti-config.h"
#include "wsl-private.h"
#include "replay.h"

#include "registry.h"
#include "xml.h"
#include "cli-options.h"
#include "bounds.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <unistd.h>

enum { EXIT_USAGE = 2, EXIT_INVALID = 3, EXIT_ASSERTION = 4 };

static int
exit_code_for (const GError *error)
{
  if (error->domain == G_OPTION_ERROR)
    return EXIT_USAGE;
  if (error->domain != PTI_ERROR)
    return 1;
  switch ((PtiError) error->code) {
  case PTI_ERROR_USAGE:
    return EXIT_USAGE;
  case PTI_ERROR_INVALID:
  case PTI_ERROR_DEADLOCK:
  case PTI_ERROR_MODEL:
    return EXIT_INVALID;
  case PTI_ERROR_IO:
  case PTI_ERROR_FAILED:
  default:
    return 1;
  }
}

static int
fail (const char *program, const GError *error)
{
  fprintf (stderr, "%s: error: %s\n", program, error->message);
  return exit_code_for (error);
}

static guint64
peak_rss_bytes (void)
{
  struct rusage ru;
  if (getrusage (RUSAGE_SELF, &ru) != 0)
    return 0;
  return (guint64) ru.ru_maxrss * 1024u;   /* Linux reports KiB */
}

static void
json_string (GString *s, const char *v)
{
  g_string_append_c (s, '"');
  for (const char *c = v; c && *c; c++) {
    if (*c == '"' || *c == '\\')
      g_string_append_printf (s, "\\%c", *c);
    else if ((unsigned char) *c < 0x20)
      g_string_append_printf (s, "\\u%04x", *c);
    else
      g_string_append_c (s, *c);
  }
  g_string_append_c (s, '"');
}

static void
json_number (GString *s, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_string_append (s, isfinite (v) ? g_ascii_formatd (buf, sizeof buf, "%.17g", v) : "null");
}

typedef struct {
  double build_s, evaluate_s, wall_s;
  guint64 rss;
  PtiSourceFormat format;       /* of the workload argument (ptieval), else UNKNOWN */
  const PtiReplayNotes *notes;  /* what a replayed trace held that was not replayed */
  const PtiRanges *ranges;      /* the ranges met (none: no bounds reported) */
  const PtiBounds *bounds;
  const char *trace_lower, *trace_upper; /* --bounds-traces, or NULL */
} RunFigures;

static void
json_corner (GString *s, const PtiRanges *ranges, const PtiRangeEnd *ends)
{
  g_string_append_c (s, '{');
  for (guint i = 0; i < pti_ranges_count (ranges); i++) {
    g_string_append (s, i ? ", " : "");
    json_string (s, pti_ranges_nth (ranges, i)->key);
    g_string_append (s, ": ");
    json_string (s, pti_range_end_name (ends[i]));
  }
  g_string_append_c (s, '}');
}

/* "bounds" of the JSON report, only when the inputs held ranges. */
static void
json_bounds (GString *s, const RunFigures *f)
{
  const PtiRanges *ranges = f->ranges;
  const PtiBounds *b = f->bounds;
  if (pti_ranges_count (ranges) == 0)
    return;
  g_string_append (s, ", \"bounds\": {\"method\": ");
  json_string (s, pti_bounds_method_name (b->method));
  g_string_append (s, ", \"ranges\": [");
  for (guint i = 0; i < pti_ranges_count (ranges); i++) {
    const PtiRange *r = pti_ranges_nth (ranges, i);
    g_string_append (s, i ? ", {\"key\": " : "{\"key\": ");
    json_string (s, r->key);
    g_string_append (s, ", \"where\": ");
    json_string (s, r->label);
    g_string_append (s, ", \"low\": ");
    json_number (s, r->low);
    g_string_append (s, ", \"nominal\": ");
    json_number (s, r->nominal);
    g_string_append (s, ", \"high\": ");
    json_number (s, r->high);
    g_string_append (s, ", \"unit\": ");
    if (r->unit != NULL)
      json_string (s, r->unit);
    else
      g_string_append (s, "null");
    g_string_append (s, ", \"sense\": ");
    json_string (s, pti_range_sense_name (r->sense));
    g_string_append_c (s, '}');
  }
  g_string_append (s, "]");
  if (b->method != PTI_BOUNDS_NONE) {
    g_string_append (s, ", \"lower_s\": ");
    json_number (s, b->lower);
    g_string_append (s, ", \"upper_s\": ");
    json_number (s, b->upper);
    g_string_append (s, ", \"lower_corner\": ");
    json_corner (s, ranges, b->lower_corner);
    g_string_append (s, ", \"upper_corner\": ");
    json_corner (s, ranges, b->upper_corner);
    g_string_append_printf (s, ", \"runs\": %u, \"runs_wall_s\": ", b->runs);
    json_number (s, b->wall_s);
    g_string_append (s, ", \"warnings\": [");
    for (guint i = 0; i < b->warnings->len; i++) {
      g_string_append (s, i ? ", " : "");
      json_string (s, g_ptr_array_index (b->warnings, i));
    }
    g_string_append (s, "]");
    if (f->trace_lower != NULL) {
      g_string_append (s, ", \"trace_lower\": ");
      json_string (s, f->trace_lower);
      g_string_append (s, ", \"trace_upper\": ");
      json_string (s, f->trace_upper);
    }
  }
  g_string_append (s, "}");
}

static void
print_bounds (const RunFigures *f)
{
  const PtiRanges *ranges = f->ranges;
  const PtiBounds *b = f->bounds;
  guint n = pti_ranges_count (ranges);
  if (n == 0)
    return;
  if (b->method == PTI_BOUNDS_NONE) {
    printf ("bounds: not computed (--bounds=none); %u range%s at nominal values\n", n,
            n == 1 ? "" : "s");
    return;
  }
  printf ("lower bound: %.9f s\nupper bound: %.9f s\n", b->lower, b->upper);
  printf ("bounds: %s corners of %u range%s, %u evaluation%s (%.3f s wall)\n",
          pti_bounds_method_name (b->method), n, n == 1 ? "" : "s", b->runs, b->runs == 1 ? "" : "s",
          b->wall_s);
  for (guint i = 0; i < n; i++) {
    const PtiRange *r = pti_ranges_nth (ranges, i);
    printf ("  %s: %.9g..%.9g%s%s (nominal %.9g), %s; lower at %s, upper at %s\n", r->label,
            r->low, r->high, r->unit ? " " : "", r->unit ? r->unit : "", r->nominal,
            pti_range_sense_name (r->sense), pti_range_end_name (b->lower_corner[i]),
            pti_range_end_name (b->upper_corner[i]));
  }
  for (guint i = 0; i < b->warnings->len; i++)
    printf ("bounds: warning: %s\n", (char *) g_ptr_array_index (b->warnings, i));
  if (f->trace_lower != NULL)
    printf ("bound traces: %s (lower), %s (upper)\n", f->trace_lower, f->trace_upper);
}

static PtiPhaseTotals
phase_totals (PtiContext *ctx, guint phase)
{
  PtiPhaseTotals t;
  pti_phase_totals (pti_session_engine (pti_wsl_session (ctx)), phase, &t);
  return t;
}

/* --by-call: per function of a captured trace, the calls and the time the
 * capture measured inside them, against what the replay predicted for the
 * same calls (their phases), per rank and summed over the ranks. */
typedef struct {
  const char *name;
  guint64 calls;
  double measured, predicted;
  double *rank_measured, *rank_predicted;   /* n_ranks each */
  guint64 *rank_calls;
} CallRow;

static int
by_difference (const void *a, const void *b)
{
  const CallRow *x = a, *y = b;
  /* to the ns the report prints: rounding below it does not reorder rows */
  long long dx = llabs (llround ((x->predicted - x->measured) * 1e9));
  long long dy = llabs (llround ((y->predicted - y->measured) * 1e9));
  if (dx != dy)
    return dx < dy ? 1 : -1;
  return strcmp (x->name, y->name);
}

/* The rows, largest difference first (ties by name: the same order run to
 * run); NULL if calls were not tracked.  Free with call_rows_free. */
static CallRow *
call_rows (PtiContext *ctx, const PtiReplayNotes *notes, guint *n_rows)
{
  guint n = pti_replay_notes_n_calls (notes), ranks = pti_context_get_processes (ctx);
  *n_rows = n;
  if (n == 0)
    return NULL;
  const PtiEngine *e = pti_session_engine (pti_wsl_session (ctx));
  CallRow *rows = g_new0 (CallRow, n);
  for (guint c = 0; c < n; c++) {
    CallRow *row = &rows[c];
    row->rank_measured = g_new0 (double, ranks);
    row->rank_predicted = g_new0 (double, ranks);
    row->rank_calls = g_new0 (guint64, ranks);
    guint phase;
    for (guint r = 0; r < ranks; r++) {
      pti_replay_notes_call_get (notes, c, r, &row->name, &row->rank_calls[r],
                                 &row->rank_measured[r]);
      row->calls += row->rank_calls[r];
      row->measured += row->rank_measured[r];
    }
    PtiPhaseFigures fig;
    if (pti_engine_phase_lookup (e, pti_replay_notes_call_phase (notes, c), &phase))
      for (guint r = 0; r < ranks; r++)
        if (pti_engine_phase_figures (e, phase, r, &fig)) {
          row->rank_predicted[r] = fig.time;
          row->predicted += fig.time;
        }
  }
  qsort (rows, n, sizeof *rows, by_difference);
  return rows;
}

static void
call_rows_free (CallRow *rows, guint n)
{
  for (guint c = 0; c < n; c++) {
    g_free (rows[c].rank_measured);
    g_free (rows[c].rank_predicted);
    g_free (rows[c].rank_calls);
  }
  g_free (rows);
}

static void
json_by_call (GString *s, PtiContext *ctx, const PtiReplayNotes *notes)
{
  guint n;
  CallRow *rows = call_rows (ctx, notes, &n);
  if (rows == NULL)
    return;
  guint ranks = pti_context_get_processes (ctx);
  g_string_append (s, ", \"by_call\": [");
  for (guint c = 0; c < n; c++) {
    g_string_append (s, c ? ", {\"call\": " : "{\"call\": ");
    json_string (s, rows[c].name);
    g_string_append_printf (s, ", \"calls\": %" G_GUINT64_FORMAT ", \"measured_s\": ",
                            rows[c].calls);
    json_number (s, rows[c].measured);
    g_string_append (s, ", \"predicted_s\": ");
    json_number (s, rows[c].predicted);
    g_string_append (s, ", \"per_process\": [");
    for (guint r = 0; r < ranks; r++) {
      g_string_append_printf (s, "%s{\"rank\": %u, \"calls\": %" G_GUINT64_FORMAT
                              ", \"measured_s\": ", r ? ", " : "", r, rows[c].rank_calls[r]);
      json_number (s, rows[c].rank_measured[r]);
      g_string_append (s, ", \"predicted_s\": ");
      json_number (s, rows[c].rank_predicted[r]);
      g_string_append_c (s, '}');
    }
    g_string_append (s, "]}");
  }
  g_string_append_c (s, ']');
  call_rows_free (rows, n);
}

static void
print_by_call (PtiContext *ctx, const PtiReplayNotes *notes)
{
  guint n;
  CallRow *rows = call_rows (ctx, notes, &n);
  if (rows == NULL)
    return;
  guint ranks = pti_context_get_processes (ctx);
  printf ("\nby call, summed over the %u rank%s (measured: the capture's time inside the calls, "
          "less its own cost per call; computation: the bursts between them, counted as "
          "calls):\n", ranks, ranks == 1 ? "" : "s");
  printf ("%-24s %12s %14s %14s %14s  %s\n", "call", "calls", "measured (s)", "predicted (s)",
          "difference (s)", "largest on a rank (s)");
  double tm = 0, tp = 0;
  for (guint c = 0; c < n; c++) {
    const CallRow *row = &rows[c];
    guint worst = 0;
    for (guint r = 1; r < ranks; r++)
      if (fabs (row->rank_predicted[r] - row->rank_measured[r])
          > fabs (row->rank_predicted[worst] - row->rank_measured[worst]))
        worst = r;
    printf ("%-24s %12" G_GUINT64_FORMAT " %14.9f %14.9f %+14.9f  %+.9f on rank %u\n", row->name,
            row->calls, row->measured, row->predicted, row->predicted - row->measured,
            row->rank_predicted[worst] - row->rank_measured[worst], worst);
    tm += row->measured;
    tp += row->predicted;
  }
  printf ("%-24s %12s %14.9f %14.9f %+14.9f\n", "all", "", tm, tp, tp - tm);
  call_rows_free (rows, n);
}

static void
json_phases (GString *s, PtiContext *ctx, const PtiReplayNotes *notes)
{
  guint n = pti_result_n_phases (ctx);
  g_string_append (s, ", \"phases\": [");
  gboolean first = TRUE;
  for (guint i = 0; i < n; i++) {
    if (pti_replay_notes_is_call_phase (notes, pti_result_phase_name (ctx, i)))
      continue;   /* in "by_call" */
    PtiPhaseTotals t = phase_totals (ctx, i);
    g_string_append (s, first ? "{\"name\": " : ", {\"name\": ");
    first = FALSE;
    json_string (s, pti_result_phase_name (ctx, i));
    g_string_append (s, ", \"time_max_s\": ");
    json_number (s, t.time);
    g_string_append (s, ", \"compute_max_s\": ");
    json_number (s, t.compute);
    g_string_append (s, ", \"comm_max_s\": ");
    json_number (s, t.comm);
    g_string_append (s, ", \"wait_max_s\": ");
    json_number (s, t.wait);
    g_string_append_printf (s, ", \"messages\": %" G_GUINT64_FORMAT ", \"bytes\": %"
                            G_GUINT64_FORMAT ", \"entries_max\": %" G_GUINT64_FORMAT
                            ", \"ranks\": %u}", t.messages, t.bytes, t.entries, t.ranks);
  }
  g_string_append (s, "]");
}

static void
json_assertions (GString *s, PtiContext *ctx)
{
  guint n = pti_result_n_assertions (ctx);
  g_string_append_printf (s, ", \"assertions_failed\": %u, \"assertions\": [",
                          pti_result_assertions_failed (ctx));
  for (guint i = 0; i < n; i++) {
    PtiAssertionResult a;
    if (!pti_result_assertion (ctx, i, &a))
      continue;
    g_string_append (s, i ? ", {\"name\": " : "{\"name\": ");
    json_string (s, a.name);
    g_string_append (s, ", \"test\": ");
    json_string (s, a.test);
    g_string_append (s, ", \"origin\": ");
    if (a.origin != NULL)
      json_string (s, a.origin);
    else
      g_string_append (s, "null");
    g_string_append_printf (s, ", \"passed\": %s, \"values\": {", a.passed ? "true" : "false");
    for (guint v = 0; v < a.n_values; v++) {
      if (v)
        g_string_append (s, ", ");
      json_string (s, a.value_names[v]);
      g_string_append (s, ": ");
      json_number (s, a.values[v]);
    }
    g_string_append (s, "}}");
  }
  g_string_append (s, "]");
}

static void
print_json (PtiContext *ctx, const char *system_file, const char *workload, const RunFigures *f)
{
  guint n = pti_context_get_processes (ctx);
  guint64 events = pti_result_events (ctx);
  g_autoptr (GString) s = g_string_new ("{");
  g_string_append (s, "\"system\": ");
  json_string (s, system_file);
  g_string_append (s, ", \"workload\": ");
  json_string (s, workload);
  g_string_append (s, ", \"predicted_time_s\": ");
  json_number (s, pti_result_time (ctx));
  g_string_append_printf (s, ", \"events\": %" G_GUINT64_FORMAT ", \"processes\": %u", events, n);
  g_string_append (s, ", \"wall_s\": ");
  json_number (s, f->wall_s);
  g_string_append (s, ", \"build_s\": ");
  json_number (s, f->build_s);
  g_string_append (s, ", \"evaluate_s\": ");
  json_number (s, f->evaluate_s);
  g_string_append (s, ", \"events_per_s\": ");
  json_number (s, f->wall_s > 0 ? events / f->wall_s : NAN);
  guint64 evaluated = 0, derived = 0;
  pti_wsl_repetition_figures (ctx, &evaluated, &derived);
  g_string_append_printf (s, ", \"repetitions\": {\"evaluated\": %" G_GUINT64_FORMAT
                          ", \"derived\": %" G_GUINT64_FORMAT "}", evaluated, derived);
  g_string_append_printf (s, ", \"peak_rss_bytes\": %" G_GUINT64_FORMAT, f->rss);
  if (f->format != PTI_SOURCE_UNKNOWN && f->format != PTI_SOURCE_WORKLOAD_XML) {
    g_string_append (s, ", \"workload_format\": ");
    json_string (s, pti_source_format_name (f->format));
  }
  g_string_append (s, ", \"not_replayed\": [");
  for (guint i = 0; i < pti_replay_notes_len (f->notes); i++) {
    const char *what, *why;
    guint64 count;
    pti_replay_notes_get (f->notes, i, &what, &why, &count);
    g_string_append (s, i ? ", {\"what\": " : "{\"what\": ");
    json_string (s, what);
    g_string_append_printf (s, ", \"count\": %" G_GUINT64_FORMAT ", \"why\": ", count);
    json_string (s, why);
    g_string_append_c (s, '}');
  }
  g_string_append (s, "], \"per_process\": [");
  for (guint r = 0; r < n; r++) {
    PtiProcessResult pr;
    pti_result_process (ctx, r, &pr);
    g_string_append_printf (s, "%s{\"rank\": %u, \"end_s\": ", r ? ", " : "", r);
    json_number (s, pr.end);
    g_string_append (s, ", \"compute_s\": ");
    json_number (s, pr.compute);
    g_string_append (s, ", \"comm_s\": ");
    json_number (s, pr.comm);
    g_string_append (s, ", \"wait_s\": ");
    json_number (s, pr.wait);
    g_string_append_printf (s, ", \"events\": %" G_GUINT64_FORMAT "}", pr.events);
  }
  g_string_append (s, "]");
  json_phases (s, ctx, f->notes);
  json_by_call (s, ctx, f->notes);
  json_assertions (s, ctx);
  json_bounds (s, f);
  g_string_append (s, "}\n");
  fputs (s->str, stdout);
}

static void
print_phases (PtiContext *ctx, const PtiReplayNotes *notes)
{
  guint n = pti_result_n_phases (ctx), shown = 0;
  for (guint i = 0; i < n; i++) {
    if (pti_replay_notes_is_call_phase (notes, pti_result_phase_name (ctx, i)))
      continue;   /* printed by print_by_call */
    if (shown++ == 0)
      printf ("\n%-20s %14s %14s %14s %14s %10s %14s %8s %6s\n", "phase (max over ranks)",
              "time (s)", "compute (s)", "comm (s)", "wait (s)", "messages", "bytes", "entries",
              "ranks");
    PtiPhaseTotals t = phase_totals (ctx, i);
    printf ("%-20s %14.9f %14.9f %14.9f %14.9f %10" G_GUINT64_FORMAT " %14" G_GUINT64_FORMAT
            " %8" G_GUINT64_FORMAT " %6u\n", pti_result_phase_name (ctx, i), t.time, t.compute,
            t.comm, t.wait, t.messages, t.bytes, t.entries, t.ranks);
  }
}

static void
print_assertions (const PtiContext *ctx)
{
  guint n = pti_result_n_assertions (ctx);
  if (n == 0)
    return;
  guint failed = pti_result_assertions_failed (ctx);
  printf ("\nassertions: %u passed, %u failed\n", n - failed, failed);
  for (guint i = 0; i < n; i++) {
    PtiAssertionResult a;
    if (!pti_result_assertion (ctx, i, &a))
      continue;
    printf ("  %s %s: %s", a.passed ? "pass" : "FAIL", a.name, a.test);
    for (guint v = 0; v < a.n_values; v++)
      printf ("%s%s = %.9g", v ? ", " : "   with ", a.value_names[v], a.values[v]);
    if (a.origin != NULL)
      printf ("   (%s)", a.origin);
    printf ("\n");
  }
}

static void
print_summary (PtiContext *ctx, const char *system_file, const char *workload, const RunFigures *f)
{
  guint n = pti_context_get_processes (ctx);
  guint64 events = pti_result_events (ctx);
  double t = pti_result_time (ctx);
  /* Both by their names, with the file each came from (a C workload
   * program has no file: its name is the program's). */
  const char *name = pti_wsl_workload_name (ctx);
  if (strcmp (name, workload) == 0)
    printf ("pti %s: workload %s on system %s (%s)\n", PTI_VERSION, name,
            pti_wsl_system_name (ctx), system_file);
  else
    printf ("pti %s: workload %s (%s) on system %s (%s)\n", PTI_VERSION, name, workload,
            pti_wsl_system_name (ctx), system_file);
  if (f->format != PTI_SOURCE_UNKNOWN && f->format != PTI_SOURCE_WORKLOAD_XML)
    printf ("replayed: %s\n", pti_source_format_name (f->format));
  printf ("predicted time: %.9f s\n", t);
  print_bounds (f);
  printf ("events: %" G_GUINT64_FORMAT ", processes: %u\n", events, n);
  guint64 evaluated = 0, derived = 0;
  pti_wsl_repetition_figures (ctx, &evaluated, &derived);
  if (evaluated + derived > 0) {
    printf ("repetitions: %" G_GUINT64_FORMAT " evaluated through the models, %" G_GUINT64_FORMAT
            " derived from a state proven periodic (equal to evaluating them, to rounding)\n",
            evaluated, derived);
    const char *note = pti_session_repetition_note (pti_wsl_session (ctx));
    if (note != NULL)
      printf ("repetitions: %s\n", note);
  }
  printf ("\n");
  /* The io column only for workloads that use the io device: the table of
   * every other workload stays as it was. */
  gboolean has_io = FALSE;
  for (guint r = 0; r < n && !has_io; r++)
    has_io = pti_result_io (ctx, r) > 0;
  printf ("%6s %14s %14s %14s %14s", "rank", "end (s)", "compute (s)", "comm (s)", "wait (s)");
  printf (has_io ? " %14s %10s\n" : "%.0s %10s\n", "io (s)", "events");
  double tc = 0, tm = 0, tw = 0, ti = 0;
  for (guint r = 0; r < n; r++) {
    PtiProcessResult pr;
    pti_result_process (ctx, r, &pr);
    tc += pr.compute;
    tm += pr.comm;
    tw += pr.wait;
    ti += pti_result_io (ctx, r);
    /* Hundreds of ranks would drown the summary: show the first and last few. */
    if (n > 40 && r >= 16 && r < n - 8) {
      if (r == 16)
        printf ("%6s\n", "...");
      continue;
    }
    printf ("%6u %14.9f %14.9f %14.9f %14.9f", r, pr.end, pr.compute, pr.comm, pr.wait);
    if (has_io)
      printf (" %14.9f", pti_result_io (ctx, r));
    printf (" %10" G_GUINT64_FORMAT "\n", pr.events);
  }
  if (n > 0 && t > 0) {
    printf ("%6s %14s %13.1f%% %13.1f%% %13.1f%%", "all", "", 100 * tc / (n * t),
            100 * tm / (n * t), 100 * tw / (n * t));
    if (has_io)
      printf (" %13.1f%%", 100 * ti / (n * t));
    printf ("   (share of %u x predicted time)\n", n);
  }
  print_phases (ctx, f->notes);
  print_by_call (ctx, f->notes);
  print_assertions (ctx);
  if (pti_replay_notes_len (f->notes) > 0) {
    printf ("\nnot replayed (in the trace, left out of the prediction):\n");
    for (guint i = 0; i < pti_replay_notes_len (f->notes); i++) {
      const char *what, *why;
      guint64 count;
      pti_replay_notes_get (f->notes, i, &what, &why, &count);
      printf ("  %-28s %10" G_GUINT64_FORMAT "  %s\n", what, count, why);
    }
  }
  printf ("\nevaluation: %.3f s wall (build %.3f s, evaluate %.3f s), %.0f events/s, peak memory %.1f MiB\n",
          f->wall_s, f->build_s, f->evaluate_s, f->wall_s > 0 ? events / f->wall_s : 0.0,
          f->rss / 1048576.0);
}

/* ---- progress ------------------------------------------------------------
 *
 * One line on standard error, rewritten in place ("\r" and erase to end of
 * line), only when standard error is a terminal and the output is not
 * --json; erased before the summary is printed.  It appears once the run
 * has lasted PTI_PROGRESS_DELAY seconds (0.5 by default), so short runs
 * never flicker, and is redrawn at most every REFRESH_US.  The WSL calls
 * progress_update every PROGRESS_EVERY device uses while the workload is
 * pushed before the evaluation (done = total = 0: the driver counts the
 * events itself, rarely) and every PROGRESS_EVERY engine steps while it is
 * evaluated (total = 0 when a source gives the workload as the evaluation
 * goes: no percentage then); reading the clock there costs nothing next to
 * 65536 events. */

#define PROGRESS_EVERY (1u << 16)
#define REFRESH_US (G_USEC_PER_SEC / 4)

typedef struct {
  const char *program;
  PtiContext *ctx;
  gint64 start;            /* us, monotonic: the run's start */
  gint64 delay;            /* us before anything is shown */
  gint64 eval_start;       /* us: when evaluation began, 0 while building */
  gint64 last;             /* us: the last redraw, 0 if none */
  gboolean last_evaluating; /* the phase the last redraw showed */
} Progress;

/* "12345", "123 k", "1.23 M", "45.6 G": three significant digits above 10^4. */
static void
format_count (char *buf, gsize size, double v)
{
  static const char *const prefix[] = { "k", "M", "G", "T" };
  if (v < 1e4) {
    g_snprintf (buf, size, "%.0f", v);
    return;
  }
  guint i = 0;
  v /= 1e3;
  while (v >= 1e3 && i + 1 < G_N_ELEMENTS (prefix)) {
    v /= 1e3;
    i++;
  }
  g_snprintf (buf, size, "%.3g %s", v, prefix[i]);
}

static void
format_duration (char *buf, gsize size, double s)
{
  if (s < 60)
    g_snprintf (buf, size, "%.0f s", ceil (s));
  else if (s < 3600)
    g_snprintf (buf, size, "%.0f min %02.0f s", floor (s / 60), fmod (floor (s), 60));
  else
    g_snprintf (buf, size, "%.0f h %02.0f min", floor (s / 3600), fmod (floor (s / 60), 60));
}

static void
progress_update (guint64 done, guint64 total, double sim_time, gpointer data)
{
  Progress *p = data;
  gint64 now = g_get_monotonic_time ();
  gboolean evaluating = p->eval_start != 0;
  if (now - p->start < p->delay
      || (p->last != 0 && now - p->last < REFRESH_US && evaluating == p->last_evaluating))
    return;   /* a new phase is shown at once, else at most every REFRESH_US */
  p->last = now;
  p->last_evaluating = evaluating;
  char line[256], events[32], rate[32];
  if (!evaluating) {
    format_count (events, sizeof events, (double) pti_result_events (p->ctx));
    g_snprintf (line, sizeof line, "%s: building the workload: %s events so far, %.1f s",
                p->program, events, (now - p->start) / 1e6);
  } else {
    double elapsed = (now - p->eval_start) / 1e6;
    double per_s = elapsed > 0 ? done / elapsed : 0;
    format_count (rate, sizeof rate, per_s);
    if (total == 0) {
      /* Pulled from a source as the evaluation goes: no total to compare with. */
      format_count (events, sizeof events, (double) done);
      g_snprintf (line, sizeof line, "%s: evaluating: %s events, simulated %.6g s, %s events/s",
                  p->program, events, sim_time, rate);
    } else {
      format_count (events, sizeof events, (double) total);
      int n = g_snprintf (line, sizeof line,
                          "%s: evaluating: %.0f%% of %s events, simulated %.6g s, %s events/s",
                          p->program, 100.0 * done / total, events, sim_time, rate);
      if (per_s > 0 && done < total && n > 0 && (gsize) n < sizeof line) {
        char left[32];
        format_duration (left, sizeof left, (total - done) / per_s);
        g_snprintf (line + n, sizeof line - n, ", %s left", left);
      }
    }
  }
  /* A line longer than the terminal would wrap, and "\r" would then only
   * go back to the start of its last row: cut it to the width. */
  struct winsize ws;
  if (ioctl (STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1 && ws.ws_col <= sizeof line)
    line[ws.ws_col - 1] = '\0';
  fprintf (stderr, "\r%s\033[K", line);
  fflush (stderr);
}

static void
progress_clear (Progress *p)
{
  if (p->last != 0) {
    fputs ("\r\033[K", stderr);
    fflush (stderr);
    p->last = 0;
  }
}

/* Whether to show progress, and after how long (us). */
static gboolean
progress_wanted (gboolean json, gboolean no_progress, gint64 *delay)
{
  if (json || no_progress || !isatty (STDERR_FILENO))
    return FALSE;
  const char *term = g_getenv ("TERM");
  if (term != NULL && strcmp (term, "dumb") == 0)
    return FALSE;
  double seconds = 0.5;
  const char *env = g_getenv ("PTI_PROGRESS_DELAY");
  if (env != NULL && env[0] != '\0') {
    char *end = NULL;
    double v = g_ascii_strtod (env, &end);
    if (end != NULL && *end == '\0' && v >= 0 && v < 1e6)
      seconds = v;
  }
  *delay = (gint64) (seconds * G_USEC_PER_SEC);
  return TRUE;
}

/* What one evaluation reads: the same for the nominal run and each bound's. */
typedef struct {
  const PtiDriver *d;
  const char *system_file, *workload_file, *model_path, *changes, *changes_stream;
  const char *const *uses, *const *defines;
  gint64 pending_limit;
} DriverRun;

/* One evaluation of @r with @ranges' chosen ends, its trace to @trace
 * (NULL: none), progress shown if @progress; the context evaluated, or NULL
 * with @error.  @t_built: when the workload was built (us, monotonic). */
static PtiContext *
driver_run (const DriverRun *r, PtiRanges *ranges, const char *trace, Progress *progress,
            PtiReplayNotes *notes, PtiSourceFormat *format, gint64 *t_built, GError **error)
{
  const PtiDriver *d = r->d;
  g_autoptr (PtiContext) ctx = pti_context_new_ranged (r->system_file, r->model_path, r->uses,
                                                       ranges, error);
  if (ctx == NULL)
    return NULL;
  if (r->changes != NULL && !pti_changes_file_load (ctx, r->changes, error))
    return NULL;
  if (r->changes_stream != NULL && !pti_changes_stream_open (ctx, r->changes_stream, error))
    return NULL;
  for (guint i = 0; r->defines && r->defines[i]; i++) {
    const char *eq = strchr (r->defines[i], '=');   /* checked by the caller */
    g_autofree char *name = g_strndup (r->defines[i], eq - r->defines[i]);
    if (!pti_context_override_param (ctx, name, eq + 1, error)) {
      g_prefix_error (error, "-D %s: ", r->defines[i]);
      (*error)->code = PTI_ERROR_USAGE;
      return NULL;
    }
  }
  pti_context_set_trace (ctx, trace);
  pti_context_set_pending_limit (ctx, (guint64) r->pending_limit);
  if (d->workload_name != NULL)
    pti_context_set_workload (ctx, d->workload_name, NULL);
  if (progress != NULL) {
    progress->ctx = ctx;
    pti_wsl_set_progress (ctx, progress_update, progress, PROGRESS_EVERY);
  }
  gboolean built;
  if (!d->workload_file) {
    built = d->build (ctx, d->user_data, error);
  } else {
    built = pti_workload_build (ctx, r->workload_file, notes, format, error);
  }
  *t_built = g_get_monotonic_time ();
  if (progress != NULL)
    progress->eval_start = *t_built;
  if (!built || !pti_evaluate (ctx, error))
    return NULL;
  return g_steal_pointer (&ctx);
}

/* A bound's run: driver_run() without progress, its predicted time. */
static gboolean
bounds_run (PtiRanges *ranges, const char *trace, double *time, gpointer data, GError **error)
{
  const DriverRun *r = data;
  if (r->changes_stream != NULL) {
    /* A stream is read once, by the nominal run: a bound's run cannot replay it. */
    g_set_error (error, PTI_ERROR, PTI_ERROR_USAGE,
                 "--changes-stream %s: the changes of a stream are read once, but bounds take "
                 "more evaluations; use --bounds=none, or save the stream to a file for --changes",
                 r->changes_stream);
    return FALSE;
  }
  g_autoptr (PtiReplayNotes) notes = pti_replay_notes_new ();
  PtiSourceFormat format = PTI_SOURCE_UNKNOWN;
  gint64 t = 0;
  g_autoptr (PtiContext) ctx = driver_run (data, ranges, trace, NULL, notes, &format, &t, error);
  if (ctx == NULL)
    return FALSE;
  *time = pti_result_time (ctx);
  return TRUE;
}

int
pti_driver_main (const PtiDriver *d, int argc, char **argv)
{
  g_auto (GStrv) defines = NULL;
  g_autofree char *output = NULL;
  g_autofree char *model_path = NULL;
  g_autofree char *model_info = NULL;
  g_autofree char *changes = NULL;
  g_autofree char *changes_stream = NULL;
  g_auto (GStrv) uses = NULL;
  gboolean json = FALSE, list_models = FALSE, version = FALSE, no_progress = FALSE;
  gint64 pending_limit = 0, bounds_limit = 256;
  g_autofree char *bounds_method = NULL;
  gboolean bounds_traces = FALSE, by_call = FALSE;
  GOptionEntry entries[] = {
    { "define", 'D', 0, G_OPTION_ARG_STRING_ARRAY, &defines,
      "Set workload parameter NAME to VALUE, a number or an expression of numbers, in the "
      "parameter's own unit (message sizes in bytes, counts as numbers); repeatable; default: "
      "the value the workload declares", "NAME=VALUE" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      "Write the XML output trace (schemas/trace.xsd, times in s) to FILE; FILE is replaced "
      "only once the trace is complete; default: no trace", "FILE" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json,
      "Print one JSON object instead of the text summary: predicted_time_s, wall_s, build_s, "
      "evaluate_s (s), events, processes, events_per_s, peak_rss_bytes (bytes), per_process "
      "(rank, end_s, compute_s, comm_s, wait_s, events); default: the text summary", NULL },
    { "model-path", 0, 0, G_OPTION_ARG_FILENAME, &model_path,
      "Load models from the shared objects (*.so) in DIR, a colon-separated list searched "
      "before $PTI_MODEL_PATH and the installed model directory; default: none", "DIR" },
    { "list-models", 0, 0, G_OPTION_ARG_NONE, &list_models,
      "List the models available (built-in, model path, installed) and exit", NULL },
    { "model-info", 0, 0, G_OPTION_ARG_STRING, &model_info,
      "Print model NAME's documentation and parameters (with units and defaults) and exit",
      "NAME" },
    { "use-model", 0, 0, G_OPTION_ARG_STRING_ARRAY, &uses,
      "Make MODEL the active model of the network (or computer) OWNER, as its model attribute "
      "in the HMC file would, e.g. myrinet=net-simple; the model must be configured there; "
      "repeatable; default: the model attribute, else the first model configured",
      "OWNER=MODEL" },
    { "changes", 0, 0, G_OPTION_ARG_FILENAME, &changes,
      "Apply the model parameter changes scheduled in FILE during the evaluation, one per "
      "line: TIME TARGET ELEMENT VALUE, TIME in s or with a unit (250us), TARGET a network "
      "name, e.g. \"0.5 myrinet background_load 0.3\", or cpu:COMPUTER with speed or available "
      "(wsl/README.md); default: none", "FILE" },
    { "changes-stream", 0, 0, G_OPTION_ARG_FILENAME, &changes_stream,
      "Read changes while evaluating from PATH (- for standard input, a pipe, FIFO or unix "
      "socket fed by a monitoring sensor), in the syntax of --changes plus lines \"until TIME\": "
      "the evaluation never goes past the last time the stream stated and blocks for more; end "
      "of stream means no more changes; a change for a time already passed is an error "
      "(wsl/README.md); default: none", "PATH" },
    { "pending-limit", 0, 0, G_OPTION_ARG_INT64, &pending_limit,
      "Automatic partial evaluation: evaluate and free what is resolved each time N more events "
      "(about 60 bytes each) have been built, so memory stays bounded by about N events if the "
      "workload is built phase by phase across ranks; 0 = never; default: 0 (every event held "
      "until the end)", "N" },
    { "bounds", 0, 0, G_OPTION_ARG_STRING, &bounds_method,
      "When parameters or model costs are ranges (-D n=LOW..HIGH, min/max in the files): how "
      "to find the lower and upper predicted time: directed (ranges of known sense at their "
      "fast or slow end, both ends of the others), exhaustive (every corner, checking the "
      "senses), none; default: directed (wsl/README.md: what is a bound)", "METHOD" },
    { "bounds-limit", 0, 0, G_OPTION_ARG_INT64, &bounds_limit,
      "The most evaluations the bounds may take; more is an error naming the ranges; "
      "default: 256", "N" },
    { "bounds-traces", 0, 0, G_OPTION_ARG_NONE, &bounds_traces,
      "With -o FILE.xml, also write the traces of the lower and upper bounds' corners to "
      "FILE.lower.xml and FILE.upper.xml; default: no such traces", NULL },
    { "by-call", 0, 0, G_OPTION_ARG_NONE, &by_call,
      "For a pticapture trace: also report, per MPI function (and for the computation between "
      "the calls), the calls, the time the capture measured inside them and the time the "
      "replay predicts for the same calls, summed over the ranks, largest difference first "
      "(JSON: by_call, with per_process); where a replay departs from the run it was captured "
      "from.  Each call is then a phase of the evaluation (more events); default: not reported",
      NULL },
    { "no-progress", 0, 0, G_OPTION_ARG_NONE, &no_progress,
      "Never show progress; default: shown on standard error (events, simulated time, rate, "
      "time left) when it is a terminal, without --json, once a run lasts 0.5 s", NULL },
    { "version", 0, 0, G_OPTION_ARG_NONE, &version, "Print the version and exit", NULL },
    { NULL },
  };
  /* Every argument is text before GLib or anything else reads it (file
   * names too: they are printed and written into traces and JSON). */
  for (int i = 1; i < argc; i++) {
    g_autofree char *what = g_strdup_printf ("argument %d", i);
    g_autoptr (GError) local = NULL;
    if (!pti_text_check (argv[i], -1, PTI_WSL_TEXT_MAX, what, &local)) {
      fprintf (stderr, "%s: error: %s (see --help)\n", d->program, local->message);
      return EXIT_USAGE;
    }
  }
  const char *args = d->workload_file ? "SYSTEM.xml WORKLOAD" : "SYSTEM.xml";
  g_autoptr (GOptionContext) oc = g_option_context_new (args);
  g_option_context_add_main_entries (oc, entries, NULL);
  g_option_context_set_summary (oc, d->workload_file
    ? "Predict the execution time of WORKLOAD on the system SYSTEM (an HMC file, schemas/hmc.xsd).  "
      "WORKLOAD is a workload file (schemas/workload.xsd) or a trace to replay, recognised by its content: "
      "a SimGrid time-independent trace (an index of per-rank action files, or one action file), a "
      "Dimemas .dim trace (wsl/REPLAY.md) or a pticapture trace (its directory, manifest or a rank "
      "file; capture/README.md)."
    : "Predict the execution time of this workload program on the system SYSTEM (an HMC file, schemas/hmc.xsd).");
  g_option_context_set_description (oc,
    "Exit status: 0 ok, 2 usage error, 3 invalid input (XML, schema, expression, model, deadlock), "
    "1 other failure.\nTimes are in seconds, sizes in bytes.  Models: see --list-models.\n\n"
    "Environment:\n"
    "  PTI_MODEL_PATH        more model directories (colon-separated), after --model-path\n"
    "  PTI_MODEL_SYSTEM_PATH replaces the installed model directory (" PTI_INSTALLED_MODEL_DIR
    "); empty: none\n"
    "  PTI_SCHEMA_DIR        where reuse.xsd is, if not installed (hmc.xsd and workload.xsd\n"
    "                        are built in)\n"
    "  PTI_PROGRESS_DELAY    seconds before progress appears (default 0.5)");
  g_autoptr (GError) error = NULL;
  /* -DNAME=VALUE attached, as the C compiler takes it */
  g_auto (GStrv) split = pti_cli_split_attached (PTI_CLI_GROUPS (entries), argc, argv);
  if (!g_option_context_parse_strv (oc, &split, &error)) {
    fprintf (stderr, "%s: error: %s (see --help)\n", d->program, error->message);
    return EXIT_USAGE;
  }
  argc = (int) g_strv_length (split);
  argv = split;
  if (pending_limit < 0) {
    fprintf (stderr, "%s: error: --pending-limit %" G_GINT64_FORMAT ": expected a number of "
             "events, 0 or more (see --help)\n", d->program, pending_limit);
    return EXIT_USAGE;
  }
  if (version) {
    printf ("%s (pti %s, HMI ABI %u)\n", d->program, PTI_VERSION, PTI_HMI_ABI_VERSION);
    return 0;
  }
  if (list_models || model_info != NULL) {
    g_autoptr (PtiRegistry) registry = pti_registry_new (model_path, &error);
    if (registry == NULL)
      return fail (d->program, error);
    g_autoptr (GString) out = g_string_new (NULL);
    if (list_models)
      pti_registry_print_list (registry, out);
    if (model_info != NULL && !pti_registry_print_info (registry, model_info, out, &error))
      return fail (d->program, error);
    fputs (out->str, stdout);
    return 0;
  }
  guint want = d->workload_file ? 3 : 2;
  if ((guint) argc != want) {
    fprintf (stderr, "%s: error: expected %s (see --help)\n", d->program, args);
    return EXIT_USAGE;
  }
  const char *system_file = argv[1];
  const char *workload_file = d->workload_file ? argv[2] : NULL;

  for (guint i = 0; defines && defines[i]; i++) {
    const char *eq = strchr (defines[i], '=');
    if (eq == NULL || eq == defines[i]) {
      fprintf (stderr, "%s: error: -D %s: expected NAME=VALUE\n", d->program, defines[i]);
      return EXIT_USAGE;
    }
  }
  PtiBoundsMethod method = PTI_BOUNDS_DIRECTED;
  if (bounds_method != NULL && !pti_bounds_method_parse (bounds_method, &method, &error))
    return fail (d->program, error);
  if (bounds_limit < 1 || bounds_limit > G_MAXUINT) {
    fprintf (stderr, "%s: error: --bounds-limit %" G_GINT64_FORMAT ": expected a number of "
             "evaluations, 1 or more (see --help)\n", d->program, bounds_limit);
    return EXIT_USAGE;
  }
  if (bounds_traces && output == NULL) {
    fprintf (stderr, "%s: error: --bounds-traces needs -o FILE: the traces of the bounds are "
             "named after it (see --help)\n", d->program);
    return EXIT_USAGE;
  }
  if (bounds_traces && method == PTI_BOUNDS_NONE) {
    fprintf (stderr, "%s: error: --bounds-traces with --bounds=none: no bounds to trace "
             "(see --help)\n", d->program);
    return EXIT_USAGE;
  }

  if (by_call) {
    PtiSourceFormat sniffed = PTI_SOURCE_UNKNOWN;
    g_autoptr (GError) local = NULL;
    if (workload_file == NULL
        || (pti_source_sniff (workload_file, &sniffed, &local) && sniffed != PTI_SOURCE_CAPTURE)) {
      fprintf (stderr, "%s: error: --by-call needs a pticapture trace as WORKLOAD (only a "
               "capture measured each call)%s%s (see --help)\n", d->program,
               workload_file ? "; this is a " : "",
               workload_file ? pti_source_format_name (sniffed) : "");
      return EXIT_USAGE;
    }
    /* a WORKLOAD that cannot be read is reported as without --by-call */
  }

  DriverRun run = { .d = d, .system_file = system_file, .workload_file = workload_file,
                    .model_path = model_path, .uses = (const char *const *) uses,
                    .changes = changes, .changes_stream = changes_stream,
                    .defines = (const char *const *) defines,
                    .pending_limit = pending_limit };
  g_autoptr (PtiRanges) ranges = pti_ranges_new ();
  gint64 t0 = g_get_monotonic_time ();
  Progress progress = { .program = d->program, .start = t0 };
  gboolean show = progress_wanted (json, no_progress, &progress.delay);
  g_autoptr (PtiReplayNotes) notes = pti_replay_notes_new ();
  if (by_call)
    pti_replay_notes_track_calls (notes);
  PtiSourceFormat format = PTI_SOURCE_UNKNOWN;
  gint64 t1 = 0;
  g_autoptr (PtiContext) ctx = driver_run (&run, ranges, output, show ? &progress : NULL, notes,
                                           &format, &t1, &error);
  progress_clear (&progress);
  if (ctx == NULL)
    return fail (d->program, error);
  gint64 t2 = g_get_monotonic_time ();

  /* The bounds, when the inputs hold ranges: more runs of the same inputs. */
  PtiBounds bounds = { 0 };
  g_autofree char *trace_lower = bounds_traces ? pti_bounds_trace_name (output, "lower") : NULL;
  g_autofree char *trace_upper = bounds_traces ? pti_bounds_trace_name (output, "upper") : NULL;
  if (!pti_bounds_compute (ranges, method, (guint) bounds_limit, pti_result_time (ctx),
                           trace_lower, trace_upper, bounds_run, &run, &bounds, &error)) {
    pti_bounds_clear (&bounds);
    return fail (d->program, error);
  }
  RunFigures f = { .build_s = (t1 - t0) / 1e6, .evaluate_s = (t2 - t1) / 1e6,
                   .wall_s = (t2 - t0) / 1e6, .rss = peak_rss_bytes (), .format = format,
                   .notes = notes, .ranges = ranges, .bounds = &bounds,
                   .trace_lower = trace_lower, .trace_upper = trace_upper };
  const char *workload = workload_file ? workload_file : d->workload_name;
  if (json)
    print_json (ctx, system_file, workload, &f);
  else
    print_summary (ctx, system_file, workload, &f);
  pti_bounds_clear (&bounds);
  guint failed = pti_result_assertions_failed (ctx);
  if (failed > 0) {
    fflush (stdout);   /* the report first, then why the exit status is 4 */
    fprintf (stderr, "%s: %u performance assertion%s failed\n", d->program, failed,
             failed == 1 ? "" : "s");
    return EXIT_ASSERTION;
  }
  return 0;
}

int
pti_main (int argc, char **argv, const char *workload_name, PtiBuildFunc build, gpointer user_data)
{
  g_return_val_if_fail (workload_name != NULL && build != NULL, 1);
  PtiDriver d = {
    .program = g_path_get_basename (argv[0]),
    .workload_name = workload_name,
    .build = build,
    .user_data = user_data,
  };
  int rc = pti_driver_main (&d, argc, argv);
  g_free ((char *) d.program);
  return rc;
}
