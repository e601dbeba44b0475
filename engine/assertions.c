/* Performance assertions: stated, then checked after the evaluation.  The
 * names a test may read are defined in assertions.h. */
#include "assertions.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  char *name, *test, *origin;
  PtiSymbols *symbols;          /* the test's own names */
  PtiExpr *expr;
  double *params;               /* per slot: the parameter's value when stated, or NaN */
  const char **value_names;     /* per slot, owned by symbols */
  double *values;
  gboolean passed;
} Assertion;

struct _PtiAssertions {
  GPtrArray *list;              /* Assertion*, in the order stated */
  GHashTable *names;            /* name -> TRUE: unique */
  PtiAssertionOutcome *outcomes;
  guint failed;
};

static void
assertion_free (gpointer data)
{
  Assertion *a = data;
  g_free (a->name);
  g_free (a->test);
  g_free (a->origin);
  pti_expr_free (a->expr);
  pti_symbols_free (a->symbols);
  g_free (a->params);
  g_free (a->value_names);
  g_free (a->values);
  g_free (a);
}

PtiAssertions *
pti_assertions_new (void)
{
  PtiAssertions *set = g_new0 (PtiAssertions, 1);
  set->list = g_ptr_array_new_with_free_func (assertion_free);
  set->names = g_hash_table_new (g_str_hash, g_str_equal);
  return set;
}

void
pti_assertions_free (PtiAssertions *set)
{
  if (set == NULL)
    return;
  g_hash_table_unref (set->names);
  g_ptr_array_unref (set->list);
  g_free (set->outcomes);
  g_free (set);
}

guint
pti_assertions_count (const PtiAssertions *set)
{
  return set->list->len;
}

/* "assertion 'NAME' (ORIGIN)": how errors name an assertion. */
static void
prefix_assertion (GError **error, const Assertion *a)
{
  if (a->origin != NULL)
    g_prefix_error (error, "%s: assertion '%s': ", a->origin, a->name);
  else
    g_prefix_error (error, "assertion '%s': ", a->name);
}

/* An assertion's name appears in summaries, JSON, CSV columns and traces:
 * printable text of a sensible length. */
static gboolean
check_name (const char *name, GError **error)
{
  if (name == NULL || *name == '\0') {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "an assertion needs a non-empty name");
    return FALSE;
  }
  if (!g_utf8_validate (name, -1, NULL) || strlen (name) > 200) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "an assertion's name must be valid UTF-8 text of at most 200 bytes");
    return FALSE;
  }
  for (const char *c = name; *c; c++)
    if ((unsigned char) *c < 0x20 || *c == 0x7f || *c == '"' || *c == ',') {
      g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                   "assertion name '%s': control characters, quotes and commas are not "
                   "allowed (it names a column of tables)", name);
      return FALSE;
    }
  return TRUE;
}

gboolean
pti_assertions_add (PtiAssertions *set, const char *name, const char *test, const char *origin,
                    const PtiSymbols *params, GError **error)
{
  if (!check_name (name, error)) {
    if (origin != NULL)
      g_prefix_error (error, "%s: ", origin);
    return FALSE;
  }
  g_autoptr (GError) local = NULL;
  Assertion *a = g_new0 (Assertion, 1);
  a->name = g_strdup (name);
  a->origin = g_strdup (origin);
  if (g_hash_table_contains (set->names, name)) {
    g_set_error (&local, PTI_ERROR, PTI_ERROR_INVALID, "stated twice (names are unique)");
    goto fail;
  }
  if (test == NULL || !g_utf8_validate (test, -1, NULL)) {
    g_set_error (&local, PTI_ERROR, PTI_ERROR_INVALID, "the test must be UTF-8 text");
    goto fail;
  }
  a->test = g_strdup (test);
  a->symbols = pti_symbols_new ();
  a->expr = pti_expr_compile (test, a->symbols, &local);
  if (a->expr == NULL)
    goto fail;
  guint n = pti_symbols_count (a->symbols);
  a->params = g_new (double, MAX (n, 1));
  a->value_names = g_new (const char *, MAX (n, 1));
  a->values = g_new0 (double, MAX (n, 1));
  for (guint i = 0; i < n; i++) {
    a->value_names[i] = pti_symbols_name (a->symbols, i);
    guint slot;
    a->params[i] = params != NULL && pti_symbols_lookup (params, a->value_names[i], &slot)
                   ? pti_symbols_get (params, slot) : NAN;
  }
  g_hash_table_add (set->names, a->name);
  g_ptr_array_add (set->list, a);
  return TRUE;

fail:
  g_propagate_error (error, g_steal_pointer (&local));
  prefix_assertion (error, a);
  assertion_free (a);
  return FALSE;
}

/* ---- metrics ------------------------------------------------------------ */

typedef enum {
  F_TIME, F_COMPUTE, F_COMM, F_WAIT, F_MESSAGES, F_BYTES, F_EVENTS, F_ENTRIES, N_FIELDS
} Field;

static const char *const field_names[N_FIELDS] = {
  "time", "compute", "comm", "wait", "messages", "bytes", "events", "entries",
};

typedef enum { AGG_MEAN, AGG_MAX, AGG_MIN, AGG_SUM, AGG_RANK } Agg;

#define WHOLE_RUN G_MAXUINT

/* @field of @rank, over the whole run or inside @phase; *entered: the rank
 * counts towards a phase's mean and min (it entered it). */
static double
rank_value (const PtiEngine *e, guint phase, Field field, guint rank, gboolean *entered)
{
  *entered = TRUE;
  if (phase == WHOLE_RUN) {
    PtiTraceProcessSummary s;
    pti_engine_process_summary (e, rank, &s);
    guint64 messages, bytes;
    pti_engine_sent (e, rank, &messages, &bytes);
    switch (field) {
    case F_TIME: return s.end;
    case F_COMPUTE: return s.compute;
    case F_COMM: return s.comm;
    case F_WAIT: return s.wait;
    case F_MESSAGES: return (double) messages;
    case F_BYTES: return (double) bytes;
    case F_EVENTS: return (double) s.events;
    default: g_assert_not_reached ();
    }
  }
  PtiPhaseFigures p;
  pti_engine_phase_figures (e, phase, rank, &p);
  *entered = p.entries > 0;
  switch (field) {
  case F_TIME: return p.time;
  case F_COMPUTE: return p.compute;
  case F_COMM: return p.comm;
  case F_WAIT: return p.wait;
  case F_MESSAGES: return (double) p.messages;
  case F_BYTES: return (double) p.bytes;
  case F_ENTRIES: return (double) p.entries;
  default: g_assert_not_reached ();
  }
}

/* Over the ranks (those that entered @phase, for a phase's mean and min). */
static double
aggregate (const PtiEngine *e, guint phase, Field field, Agg agg)
{
  guint n = pti_engine_n_procs (e), counted = 0;
  double sum = 0, max = 0, min = INFINITY;
  for (guint r = 0; r < n; r++) {
    gboolean entered;
    double v = rank_value (e, phase, field, r, &entered);
    if (!entered)
      continue;
    counted++;
    sum += v;
    max = MAX (max, v);
    min = MIN (min, v);
  }
  switch (agg) {
  case AGG_SUM: return sum;
  case AGG_MAX: return max;
  case AGG_MIN: return counted ? min : 0;
  case AGG_MEAN: return counted ? sum / counted : 0;
  default: g_assert_not_reached ();
  }
}

static guint
ranks_in (const PtiEngine *e, guint phase)
{
  guint n = pti_engine_n_procs (e), counted = 0;
  for (guint r = 0; r < n; r++) {
    gboolean entered;
    rank_value (e, phase, F_TIME, r, &entered);
    counted += entered;
  }
  return counted;
}

/* FIELD_AGG (FIELD_mean, FIELD_rank3): TRUE and the value if @text is one
 * for @phase; FALSE with @error only for a rank out of range. */
static gboolean
field_aggregate (const PtiEngine *e, guint phase, const char *text, gboolean *matched,
                 double *value, GError **error)
{
  *matched = FALSE;
  for (guint f = 0; f < N_FIELDS; f++) {
    if ((f == F_EVENTS && phase != WHOLE_RUN) || (f == F_ENTRIES && phase == WHOLE_RUN))
      continue;
    size_t len = strlen (field_names[f]);
    if (strncmp (text, field_names[f], len) != 0 || text[len] != '_')
      continue;
    const char *agg = text + len + 1;
    static const char *const aggs[] = { "mean", "max", "min", "sum" };
    for (guint a = 0; a < G_N_ELEMENTS (aggs); a++)
      if (strcmp (agg, aggs[a]) == 0) {
        *matched = TRUE;
        *value = aggregate (e, phase, f, (Agg) a);
        return TRUE;
      }
    if (strncmp (agg, "rank", 4) == 0 && g_ascii_isdigit (agg[4])) {
      const char *digits = agg + 4;
      if (strspn (digits, "0123456789") != strlen (digits))
        return TRUE;
      *matched = TRUE;
      guint64 r = g_ascii_strtoull (digits, NULL, 10);
      if (r >= pti_engine_n_procs (e) || strlen (digits) > 10) {
        g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                     "'%s' names rank %s, but there are %u ranks (0 to %u)", text, digits,
                     pti_engine_n_procs (e), pti_engine_n_procs (e) - 1);
        return FALSE;
      }
      gboolean entered;
      *value = rank_value (e, phase, f, (guint) r, &entered);
      return TRUE;
    }
  }
  return TRUE;
}

void
pti_phase_totals (const PtiEngine *e, guint phase, PtiPhaseTotals *out)
{
  *out = (PtiPhaseTotals) {
    .time = aggregate (e, phase, F_TIME, AGG_MAX),
    .compute = aggregate (e, phase, F_COMPUTE, AGG_MAX),
    .comm = aggregate (e, phase, F_COMM, AGG_MAX),
    .wait = aggregate (e, phase, F_WAIT, AGG_MAX),
    .messages = (guint64) aggregate (e, phase, F_MESSAGES, AGG_SUM),
    .bytes = (guint64) aggregate (e, phase, F_BYTES, AGG_SUM),
    .entries = (guint64) aggregate (e, phase, F_ENTRIES, AGG_MAX),
    .ranks = ranks_in (e, phase),
  };
}

double
pti_efficiency (const PtiEngine *e, guint phase)
{
  double t = phase == WHOLE_RUN ? pti_engine_predicted_time (e) : aggregate (e, phase, F_TIME, AGG_MAX);
  guint n = phase == WHOLE_RUN ? pti_engine_n_procs (e) : ranks_in (e, phase);
  return t > 0 && n > 0 ? aggregate (e, phase, F_COMPUTE, AGG_SUM) / (n * t) : NAN;
}

/* The metrics of the whole run. */
static gboolean
run_metric (const PtiEngine *e, const char *name, gboolean *matched, double *value,
            GError **error)
{
  *matched = TRUE;
  guint n = pti_engine_n_procs (e);
  double t = pti_engine_predicted_time (e);
  if (strcmp (name, "time") == 0)
    *value = t;
  else if (strcmp (name, "ranks") == 0)
    *value = n;
  else if (strcmp (name, "events") == 0)
    *value = (double) pti_engine_n_events (e);
  else if (strcmp (name, "efficiency") == 0)
    *value = pti_efficiency (e, WHOLE_RUN);
  else if (strcmp (name, "messages") == 0)
    *value = aggregate (e, WHOLE_RUN, F_MESSAGES, AGG_SUM);
  else if (strcmp (name, "bytes") == 0)
    *value = aggregate (e, WHOLE_RUN, F_BYTES, AGG_SUM);
  else
    return field_aggregate (e, WHOLE_RUN, name, matched, value, error);
  return TRUE;
}

/* The metrics of one phase, @text the part after "PHASE_". */
static gboolean
phase_metric (const PtiEngine *e, guint phase, const char *text, gboolean *matched,
              double *value, GError **error)
{
  *matched = TRUE;
  if (strcmp (text, "time") == 0)
    *value = aggregate (e, phase, F_TIME, AGG_MAX);
  else if (strcmp (text, "compute") == 0)
    *value = aggregate (e, phase, F_COMPUTE, AGG_MAX);
  else if (strcmp (text, "comm") == 0)
    *value = aggregate (e, phase, F_COMM, AGG_MAX);
  else if (strcmp (text, "wait") == 0)
    *value = aggregate (e, phase, F_WAIT, AGG_MAX);
  else if (strcmp (text, "messages") == 0)
    *value = aggregate (e, phase, F_MESSAGES, AGG_SUM);
  else if (strcmp (text, "bytes") == 0)
    *value = aggregate (e, phase, F_BYTES, AGG_SUM);
  else if (strcmp (text, "entries") == 0)
    *value = aggregate (e, phase, F_ENTRIES, AGG_MAX);
  else if (strcmp (text, "ranks") == 0)
    *value = ranks_in (e, phase);
  else if (strcmp (text, "efficiency") == 0)
    *value = pti_efficiency (e, phase);
  else
    return field_aggregate (e, phase, text, matched, value, error);
  return TRUE;
}

/* Every reading of @name: a run metric, a phase's metric, a parameter.
 * Exactly one must exist. */
static gboolean
resolve (const PtiEngine *e, const Assertion *a, guint slot, double *value, GError **error)
{
  const char *name = a->value_names[slot];
  g_autoptr (GPtrArray) readings = g_ptr_array_new_with_free_func (g_free);
  gboolean matched;
  double v;
  if (!run_metric (e, name, &matched, &v, error))
    return FALSE;
  if (matched) {
    *value = v;
    g_ptr_array_add (readings, g_strdup ("a metric of the whole run"));
  }
  for (guint p = 0; p < pti_engine_n_phases (e); p++) {
    const char *phase = pti_engine_phase_name (e, p);
    size_t len = strlen (phase);
    if (strncmp (name, phase, len) != 0 || name[len] != '_')
      continue;
    if (!phase_metric (e, p, name + len + 1, &matched, &v, error))
      return FALSE;
    if (matched) {
      *value = v;
      g_ptr_array_add (readings, g_strdup_printf ("phase '%s''s %s", phase, name + len + 1));
    }
  }
  if (!isnan (a->params[slot])) {
    *value = a->params[slot];
    g_ptr_array_add (readings, g_strdup ("a parameter"));
  }
  if (readings->len == 1)
    return TRUE;
  if (readings->len > 1) {
    g_autoptr (GString) list = g_string_new (NULL);
    for (guint i = 0; i < readings->len; i++)
      g_string_append_printf (list, "%s%s", i ? (i + 1 == readings->len ? " and " : ", ") : "",
                              (char *) readings->pdata[i]);
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "'%s' is ambiguous: it could be %s (rename the parameter or the phase)", name,
                 list->str);
    return FALSE;
  }
  g_autoptr (GString) phases = g_string_new (NULL);
  for (guint p = 0; p < pti_engine_n_phases (e); p++)
    g_string_append_printf (phases, "%s%s", p ? ", " : "", pti_engine_phase_name (e, p));
  g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
               "unknown name '%s': not a metric (time, ranks, events, efficiency, messages, "
               "bytes, or F_mean|max|min|sum|rankN for F in time, compute, comm, wait, messages, "
               "bytes, events), nor PHASE_METRIC for a phase of the workload (%s), nor a "
               "parameter bound when the assertion was stated", name,
               phases->len ? phases->str : "it has none");
  return FALSE;
}

gboolean
pti_assertions_check (PtiAssertions *set, const PtiEngine *engine, GError **error)
{
  g_free (set->outcomes);
  set->outcomes = g_new0 (PtiAssertionOutcome, MAX (set->list->len, 1));
  set->failed = 0;
  for (guint i = 0; i < set->list->len; i++) {
    Assertion *a = set->list->pdata[i];
    guint n = pti_symbols_count (a->symbols);
    for (guint s = 0; s < n; s++) {
      if (!resolve (engine, a, s, &a->values[s], error)) {
        g_prefix_error (error, "test \"%s\": ", a->test);
        prefix_assertion (error, a);
        return FALSE;
      }
      pti_symbols_set (a->symbols, s, a->values[s]);
    }
    double v = pti_expr_eval (a->expr, a->symbols);
    a->passed = v != 0 && !isnan (v);
    set->failed += !a->passed;
    set->outcomes[i] = (PtiAssertionOutcome) {
      .name = a->name, .test = a->test, .origin = a->origin, .passed = a->passed,
      .n_values = n, .value_names = a->value_names, .values = a->values,
    };
  }
  return TRUE;
}

const PtiAssertionOutcome *
pti_assertions_outcome (const PtiAssertions *set, guint i)
{
  return set->outcomes != NULL && i < set->list->len ? &set->outcomes[i] : NULL;
}

guint
pti_assertions_failed (const PtiAssertions *set)
{
  return set->failed;
}
