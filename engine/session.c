/* The session: registry, system, engine, RUDs and stage 1, parameters,
 * trace and results in one object.  See session.h. */
#include "pti-config.h"
#include "session.h"
#include "assertions.h"

#include "registry.h"
#include "trace-sink.h"
#include "xml.h"
#include "ranges-private.h"
#include "expr-private.h"

#include <math.h>
#include <string.h>

/* A RUD compiled for one CPU model, with prices it got: a use whose
 * instance and parameter values (those the model says the price depends
 * on) are those of an earlier use remembered here reuses that price
 * instead of re-evaluating the RUD.  Workloads repeat the same uses with
 * the same values most of the time (every k-block of a Sweep3D angle block,
 * each rank with its own neighbours, ranks taking turns): PRICES entries,
 * placed by a hash of the values, the last use in each place kept. */
#define PRICES 64

typedef struct {
  gconstpointer instance;      /* NULL: empty */
  double price;
} Price;

typedef struct {
  const PtiModelDesc *desc;
  gpointer compiled;
  const guint *slots;    /* NULL if the model cannot say: price every use */
  guint n_slots;
  double *values;        /* PRICES x n_slots values of the uses priced */
  Price prices[PRICES];
} RudForm;

struct _PtiRud {
  gint ref;
  const PtiSession *session;
  char *name;
  char *device;
  guint32 id;            /* index in the session's RUD table once used */
  guint n_forms;
  RudForm forms[];       /* one per distinct CPU model of the system */
};

#define NO_RUD_ID G_MAXUINT32

/* Each rank's last price, beside the forms' shared places: a rank repeats
 * its own use with its own values (its neighbours' numbers, say) many times
 * in a row, but between two of them the other ranks' uses (pulled in turns)
 * overwrite the shared places.  Only for forms whose price reads at most
 * RANK_PRICE_VALUES values.  A form here belongs to a RUD of the session's
 * table (a RUD priced once is kept there), so its address is never reused. */
#define RANK_PRICE_VALUES 8

typedef struct {
  const RudForm *form;         /* NULL: none yet */
  gconstpointer instance;
  double price;
  double values[RANK_PRICE_VALUES];
} RankPrice;

typedef struct {
  double time;
  char *target, *element, *value, *origin;
} QueuedChange;

/* Automatic partial evaluation of pushed workloads: the first after this
 * many events pending, then whenever as many again are pending as the last
 * run left unresolved (so a workload pushed rank after rank, which no run
 * can resolve early, costs a handful of runs, not one per threshold). */
#define AUTO_PARTIAL_FIRST (1u << 20)

struct _PtiSession {
  PtiRegistry *registry;
  PtiSystem *system;
  PtiSymbols *symbols;
  guint slot_rank, slot_nprocs;
  PtiEngine *engine;
  GArray *placement;            /* guint processor per rank, or NULL (block) */
  PtiSessionPlacement placement_kind;
  PtiRanges *ranges;            /* borrowed: the ends ranges take, those met (may be NULL) */
  GHashTable *overrides;        /* name -> value text, from -D */
  GHashTable *declared;         /* names of declared parameters */
  GPtrArray *param_names;       /* declared parameters, in order */
  GPtrArray *ruds;              /* RUDs used by events (one reference each), by id */
  GPtrArray *cpu_models;        /* distinct CPU model descriptors, document order */
  GPtrArray *queued_changes;    /* QueuedChange*, given before the processes were set */
  char *trace_path;
  PtiTraceWriter *writer;       /* open from the first evaluation on, if a trace is wanted */
  PtiTraceSink *trace;          /* buffers events per process for the writer */
  char *workload_name;
  char *workload_file;
  gboolean evaluated;
  gboolean evaluating;          /* inside the final run: a change stream may add changes */
  gboolean pulling;             /* a pull source is appending */
  guint64 next_partial;         /* pending events that trigger the next automatic run */
  guint64 pending_limit;        /* or a run every so many events appended; 0: automatic */
  guint64 appended;             /* events appended since the last run */
  PtiAssertions *assertions;    /* stated by the workload, checked after the evaluation */
  PtiProgressFunc progress;
  gpointer progress_data;
  guint64 progress_every, progress_countdown;
  PtiEngineFeed feed;           /* a change stream, given to the engine once it exists */
  PtiRud *bursts[PTI_SESSION_BURST_N]; /* trace names of computations given as a
                                 * time, as flops, of sleeps, of communicator
                                 * set-ups and of the MPI library's own time in
                                 * a call (pti_session_use_burst) */
  RankPrice *rank_prices;       /* per rank, made at the first use priced */
};

static void
rud_table_unref (gpointer rud)
{
  pti_session_rud_unref (rud);
}

static void
queued_change_free (gpointer data)
{
  QueuedChange *q = data;
  g_free (q->target);
  g_free (q->element);
  g_free (q->value);
  g_free (q->origin);
  g_free (q);
}

PtiSession *
pti_session_new (const char *system_path, const char *model_path, const char *const *uses,
                 GError **error)
{
  return pti_session_new_ranged (system_path, model_path, uses, NULL, error);
}

PtiSession *
pti_session_new_ranged (const char *system_path, const char *model_path, const char *const *uses,
                        PtiRanges *ranges, GError **error)
{
  g_return_val_if_fail (system_path != NULL, NULL);
  g_autoptr (PtiRegistry) registry = pti_registry_new (model_path, error);
  if (registry == NULL)
    return NULL;
  g_autoptr (PtiSystem) system = pti_system_load_ranged (system_path, registry, uses, ranges,
                                                         error);
  if (system == NULL)
    return NULL;

  PtiSession *s = g_new0 (PtiSession, 1);
  s->ranges = ranges;
  s->registry = g_steal_pointer (&registry);
  s->system = g_steal_pointer (&system);
  s->symbols = pti_symbols_new ();
  s->slot_rank = pti_symbols_intern (s->symbols, "rank");
  s->slot_nprocs = pti_symbols_intern (s->symbols, "nprocs");
  s->overrides = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  s->declared = g_hash_table_new (g_str_hash, g_str_equal);
  s->param_names = g_ptr_array_new_with_free_func (g_free);
  s->ruds = g_ptr_array_new_with_free_func (rud_table_unref);
  s->cpu_models = g_ptr_array_new ();
  for (guint i = 0; i < pti_system_n_instances (s->system); i++) {
    const PtiModelInstance *inst = pti_system_instance (s->system, i);
    if (inst->desc->cpu != NULL && !g_ptr_array_find (s->cpu_models, inst->desc, NULL))
      g_ptr_array_add (s->cpu_models, (gpointer) inst->desc);
  }
  s->workload_name = g_strdup ("workload");
  s->next_partial = AUTO_PARTIAL_FIRST;
  s->assertions = pti_assertions_new ();
  return s;
}

void
pti_session_free (PtiSession *s)
{
  if (s == NULL)
    return;
  pti_trace_sink_free (s->trace);
  pti_trace_writer_free (s->writer);   /* uncommitted: removes the temporary file */
  g_free (s->rank_prices);
  pti_engine_free (s->engine);
  for (guint i = 0; i < G_N_ELEMENTS (s->bursts); i++)
    pti_session_rud_unref (s->bursts[i]);
  pti_assertions_free (s->assertions);
  if (s->placement != NULL)
    g_array_unref (s->placement);
  g_ptr_array_unref (s->ruds);
  g_ptr_array_unref (s->cpu_models);
  g_ptr_array_unref (s->param_names);
  g_hash_table_unref (s->declared);
  g_hash_table_unref (s->overrides);
  if (s->queued_changes != NULL)
    g_ptr_array_unref (s->queued_changes);
  pti_symbols_free (s->symbols);
  pti_system_free (s->system);
  pti_registry_free (s->registry);
  g_free (s->trace_path);
  g_free (s->workload_name);
  g_free (s->workload_file);
  g_free (s);
}

const PtiSystem *
pti_session_system (const PtiSession *s)
{
  return s->system;
}

void
pti_session_set_workload (PtiSession *s, const char *name, const char *file)
{
  g_free (s->workload_name);
  g_free (s->workload_file);
  /* Printed and written into the trace: text, whatever the caller passed. */
  s->workload_name = g_utf8_make_valid (name, -1);
  s->workload_file = file ? g_utf8_make_valid (file, -1) : NULL;
}

const char *
pti_session_workload_name (const PtiSession *s)
{
  return s->workload_name;
}

/* ---- parameters ------------------------------------------------------------ */

PtiSymbols *
pti_session_symbols (PtiSession *s)
{
  return s->symbols;
}

gboolean
pti_session_override_param (PtiSession *s, const char *name, const char *value, GError **error)
{
  g_hash_table_replace (s->overrides, g_strdup (name), g_strdup (value));
  return TRUE;
}

/* Appends "; @hint" to @error's message. */
static void
append_hint (GError **error, const char *hint)
{
  if (error == NULL || *error == NULL)
    return;
  char *message = g_strdup_printf ("%s; %s", (*error)->message, hint);
  g_free ((*error)->message);
  (*error)->message = message;
}

static gboolean
eval_override_part (PtiSession *s, const char *name, const char *all, const char *text,
                    double *value, GError **error)
{
  g_autoptr (PtiExpr) expr = pti_expr_compile (text, s->symbols, error);
  if (expr == NULL || !pti_expr_check (expr, s->symbols, value, error)) {
    g_prefix_error (error, "-D %s=%s: ", name, all);
    append_hint (error, "a -D value is a number, or an expression of numbers and of the "
                        "parameters the workload declares before it, or a range LOW..HIGH "
                        "or LOW..NOMINAL..HIGH of those");
    return FALSE;
  }
  return TRUE;
}

/* -D NAME=TEXT: one value, or a range LOW..HIGH (nominal: @declared, the
 * workload's value, which must lie within) or LOW..NOMINAL..HIGH, whose
 * chosen end goes to @value.  ".." never occurs in an expression, so
 * cutting the text there first is unambiguous. */
static gboolean
eval_override (PtiSession *s, const char *name, const char *text, double declared,
               double *value, GError **error)
{
  if (strstr (text, "..") == NULL)
    return eval_override_part (s, name, text, text, value, error);
  g_auto (GStrv) parts = g_strsplit (text, "..", 0);
  guint n = g_strv_length (parts);
  if (n != 2 && n != 3) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "-D %s=%s: a range is LOW..HIGH or LOW..NOMINAL..HIGH", name, text);
    return FALSE;
  }
  double v[3];
  for (guint i = 0; i < n; i++)
    if (!eval_override_part (s, name, text, parts[i], &v[i], error))
      return FALSE;
  double low = v[0], high = v[n - 1], nominal = n == 3 ? v[1] : declared;
  if (n == 2 && low <= high && !(low <= nominal && nominal <= high)) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "-D %s=%s: the workload's value of %s, %.17g, is outside the range: give the "
                 "nominal value too, LOW..NOMINAL..HIGH", name, text, name, declared);
    return FALSE;
  }
  g_autofree char *key = g_strdup_printf ("param:%s", name);
  g_autofree char *label = g_strdup_printf ("-D %s=%s", name, text);
  return pti_ranges_take (s->ranges, key, label, NULL, low, nominal, high,
                          PTI_RANGE_SENSE_UNKNOWN, value, error);
}

static gboolean
declare_param (PtiSession *s, const char *name, gboolean ranged, double low, double nominal,
               double high, const char *origin, GError **error)
{
  if (g_hash_table_contains (s->declared, name)) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "parameter '%s' is declared twice", name);
    return FALSE;
  }
  double value = nominal;
  const char *text = g_hash_table_lookup (s->overrides, name);
  if (text != NULL) {
    if (!eval_override (s, name, text, nominal, &value, error))
      return FALSE;
  } else if (ranged) {
    g_autofree char *key = g_strdup_printf ("param:%s", name);
    if (!pti_ranges_take (s->ranges, key, origin, NULL, low, nominal, high,
                          PTI_RANGE_SENSE_UNKNOWN, &value, error))
      return FALSE;
  }
  char *copy = g_strdup (name);
  g_ptr_array_add (s->param_names, copy);
  g_hash_table_add (s->declared, copy);
  pti_symbols_set (s->symbols, pti_symbols_intern (s->symbols, name), value);
  return TRUE;
}

gboolean
pti_session_declare_param (PtiSession *s, const char *name, double default_value,
                           GError **error)
{
  return declare_param (s, name, FALSE, default_value, default_value, default_value, NULL, error);
}

gboolean
pti_session_declare_param_range (PtiSession *s, const char *name, double low, double nominal,
                                 double high, const char *origin, GError **error)
{
  g_autofree char *where = origin ? NULL : g_strdup_printf ("parameter %s", name);
  return declare_param (s, name, TRUE, low, nominal, high, origin ? origin : where, error);
}

gboolean
pti_session_check_overrides_used (PtiSession *s, GError **error)
{
  g_autoptr (GPtrArray) unused = g_ptr_array_new ();
  GHashTableIter it;
  gpointer key;
  g_hash_table_iter_init (&it, s->overrides);
  while (g_hash_table_iter_next (&it, &key, NULL))
    if (!g_hash_table_contains (s->declared, key))
      g_ptr_array_add (unused, key);
  if (unused->len == 0)
    return TRUE;
  g_ptr_array_sort (unused, (GCompareFunc) g_strcmp0);
  g_autoptr (GString) names = g_string_new (NULL);
  for (guint i = 0; i < s->param_names->len; i++)
    g_string_append_printf (names, "%s%s", i ? ", " : "",
                            (char *) g_ptr_array_index (s->param_names, i));
  g_set_error (error, PTI_ERROR, PTI_ERROR_USAGE,
               "-D %s: workload '%s' has no such parameter (its parameters: %s)",
               *(char **) unused->pdata, s->workload_name, names->len ? names->str : "none");
  return FALSE;
}

/* ---- processes ---------------------------------------------------------------- */

gboolean
pti_session_set_placement (PtiSession *s, PtiSessionPlacement kind, GError **error)
{
  if (s->engine != NULL) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "the placement must be chosen before the processes are set");
    return FALSE;
  }
  s->placement_kind = kind;
  g_clear_pointer (&s->placement, g_array_unref);
  return TRUE;
}

gboolean
pti_session_set_placement_map (PtiSession *s, guint n, const guint *processors, GError **error)
{
  if (s->engine != NULL) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "the placement must be chosen before the processes are set");
    return FALSE;
  }
  guint np = pti_system_n_processors (s->system);
  g_autofree gboolean *taken = g_new0 (gboolean, np);
  for (guint r = 0; r < n; r++) {
    if (processors[r] >= np || taken[processors[r]]) {
      g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                   processors[r] >= np
                     ? "placement map: rank %u on processor %u, but system '%s' has processors 0 to %u"
                     : "placement map: rank %u on processor %u, which an earlier rank has (system '%s', %u processors)",
                   r, processors[r], pti_system_name (s->system),
                   processors[r] >= np ? np - 1 : np);
      return FALSE;
    }
    taken[processors[r]] = TRUE;
  }
  if (s->placement != NULL)
    g_array_unref (s->placement);
  s->placement = g_array_sized_new (FALSE, FALSE, sizeof (guint), n);
  g_array_append_vals (s->placement, processors, n);
  return TRUE;
}

/* Round-robin over nodes: processors ordered by (CPU number, node). */
static GArray *
cyclic_placement (const PtiSystem *sys, guint n)
{
  guint np = pti_system_n_processors (sys);
  GArray *placement = g_array_sized_new (FALSE, FALSE, sizeof (guint), n);
  guint max_cpus = 0;
  PtiProcessorInfo info;
  for (guint i = 0; i < np; i++) {
    pti_system_processor_info (sys, i, &info);
    max_cpus = MAX (max_cpus, info.cpu_index + 1);
  }
  for (guint cpu = 0; cpu < max_cpus && placement->len < n; cpu++)
    for (guint i = 0; i < np && placement->len < n; i++) {
      pti_system_processor_info (sys, i, &info);
      if (info.cpu_index == cpu)
        g_array_append_val (placement, i);
    }
  return placement;
}

gboolean
pti_session_set_processes (PtiSession *s, guint n, GError **error)
{
  if (s->engine != NULL) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "the processes are already set (%u); set them once",
                 pti_engine_n_procs (s->engine));
    return FALSE;
  }
  guint np = pti_system_n_processors (s->system);
  if (s->placement != NULL && s->placement->len != n) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "the placement map places %u ranks, but %u processes were asked for",
                 s->placement->len, n);
    return FALSE;
  }
  if (s->placement == NULL && s->placement_kind == PTI_SESSION_PLACE_CYCLIC && n <= np)
    s->placement = cyclic_placement (s->system, n);
  s->engine = pti_engine_new (s->system, n,
                              s->placement ? (const guint *) s->placement->data : NULL, error);
  if (s->engine == NULL)
    return FALSE;
  if (s->progress != NULL)
    pti_engine_set_progress (s->engine, s->progress, s->progress_data, s->progress_every);
  pti_symbols_set (s->symbols, s->slot_nprocs, n);
  for (guint i = 0; s->queued_changes != NULL && i < s->queued_changes->len; i++) {
    const QueuedChange *q = g_ptr_array_index (s->queued_changes, i);
    if (!pti_session_change_at (s, q->time, q->target, q->element, q->value, q->origin, error))
      return FALSE;
  }
  g_clear_pointer (&s->queued_changes, g_ptr_array_unref);
  if (s->feed.more != NULL)
    pti_engine_set_feed (s->engine, &s->feed);
  return TRUE;
}

void
pti_session_set_feed (PtiSession *s, const PtiEngineFeed *feed)
{
  s->feed = *feed;
  if (s->engine != NULL)
    pti_engine_set_feed (s->engine, feed);
}

guint
pti_session_n_procs (const PtiSession *s)
{
  return s->engine ? pti_engine_n_procs (s->engine) : 0;
}

PtiEngine *
pti_session_engine (PtiSession *s)
{
  return s->engine;
}

guint
pti_session_processor_of (const PtiSession *s, guint rank)
{
  return s->placement ? g_array_index (s->placement, guint, rank) : rank;
}

/* ---- RUDs --------------------------------------------------------------------- */

PtiRud *
pti_session_rud_new (PtiSession *s, const char *name, const xmlNode *node, GError **error)
{
  if (strcmp ((const char *) node->name, "rud") != 0) {
    pti_node_error (error, node, "a RUD must be a <rud device=\"...\"> element");
    return NULL;
  }
  g_autofree char *device = pti_xml_attr (node, "device");
  if (device == NULL) {
    pti_node_error (error, node, "the device attribute is required (device=\"cpu\")");
    return NULL;
  }
  if (g_ascii_strcasecmp (device, "cpu") != 0) {
    pti_node_error (error, node,
                    g_ascii_strcasecmp (device, "mpi") == 0
                      ? "device '%s' takes no RUD: use the mpi calls (pti_mpi_send, <send>, ...)"
                      : "unknown device '%s' (known devices: cpu, mpi)", device);
    return NULL;
  }
  guint n_rud_models = 0;
  for (guint i = 0; i < s->cpu_models->len; i++)
    n_rud_models += PTI_CPU_OPS_HAS_RUDS (((const PtiModelDesc *) g_ptr_array_index (s->cpu_models, i))->cpu);
  if (n_rud_models == 0) {
    pti_node_error (error, node, "system %s has no CPU model to price a cpu RUD%s",
                    pti_system_path (s->system), s->cpu_models->len > 0
                      ? " (its CPU models price computations given as a time or as flops "
                        "only: configure a RUD model such as <cpu_clc> for its computers)" : "");
    return NULL;
  }
  g_autofree char *attr_name = pti_xml_attr (node, "name");
  PtiRud *rud = g_malloc0 (sizeof (PtiRud) + n_rud_models * sizeof (RudForm));
  rud->ref = 1;
  rud->session = s;
  rud->name = g_strdup (name ? name : attr_name ? attr_name : "rud");
  rud->device = g_strdup ("cpu");
  rud->id = NO_RUD_ID;
  /* Parsed once for every model that folds the tree. */
  g_autoptr (PtiRudNode) tree = NULL;
  for (guint i = 0; i < s->cpu_models->len; i++) {
    const PtiModelDesc *desc = g_ptr_array_index (s->cpu_models, i);
    gpointer compiled = NULL;
    if (!PTI_CPU_OPS_HAS_RUDS (desc->cpu))
      continue;   /* a model of bursts only: uses of this RUD on it are refused */
    if (PTI_CPU_OPS_FOLDS (desc->cpu)) {
      if (tree == NULL && (tree = pti_rud_parse (node, error)) == NULL) {
        g_prefix_error (error, "RUD '%s': ", rud->name);
        pti_session_rud_unref (rud);
        return NULL;
      }
      compiled = desc->cpu->rud_fold (tree, s->symbols, error);
    } else {
      compiled = desc->cpu->rud_compile (node, s->symbols, error);
    }
    if (compiled == NULL) {
      g_prefix_error (error, "RUD '%s' (model %s): ", rud->name, desc->name);
      pti_session_rud_unref (rud);
      return NULL;
    }
    RudForm *form = &rud->forms[rud->n_forms++];
    *form = (RudForm) { .desc = desc, .compiled = compiled };
    if (desc->cpu->rud_slots != NULL) {
      form->slots = desc->cpu->rud_slots (compiled, &form->n_slots);
      form->values = g_new (double, PRICES * MAX (form->n_slots, 1));
    }
  }
  return rud;
}

PtiRud *
pti_session_rud_ref (PtiRud *rud)
{
  g_atomic_int_inc (&rud->ref);
  return rud;
}

void
pti_session_rud_unref (PtiRud *rud)
{
  if (rud == NULL || !g_atomic_int_dec_and_test (&rud->ref))
    return;
  for (guint i = 0; i < rud->n_forms; i++) {
    rud->forms[i].desc->cpu->rud_free (rud->forms[i].compiled);
    g_free (rud->forms[i].values);
  }
  g_free (rud->name);
  g_free (rud->device);
  g_free (rud);
}

const char *
pti_session_rud_name (const PtiRud *rud)
{
  return rud->name;
}

const char *
pti_session_rud_device (const PtiRud *rud)
{
  return rud->device;
}

const PtiSession *
pti_session_rud_session (const PtiRud *rud)
{
  return rud->session;
}

/* Where the price of a use with these values on @instance is kept. */
static inline guint
form_place (const RudForm *form, gconstpointer instance, const double *values)
{
  guint64 h = (guint64) (guintptr) instance;
  for (guint i = 0; i < form->n_slots; i++) {
    guint64 bits;
    memcpy (&bits, &values[form->slots[i]], sizeof bits);
    h = (h ^ bits) * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15);
  }
  return (guint) (h >> 58);   /* the top 6 bits: PRICES = 64 places */
}

static inline gboolean
form_price_reusable (const RudForm *form, gconstpointer instance, const PtiSymbols *symbols,
                     double *price, guint *place)
{
  if (form->slots == NULL)
    return FALSE;
  const double *values = pti_symbols_values_inline (symbols);
  guint k = *place = form_place (form, instance, values);
  if (form->prices[k].instance != instance)
    return FALSE;
  const double *seen = form->values + k * form->n_slots;
  for (guint i = 0; i < form->n_slots; i++)
    if (values[form->slots[i]] != seen[i])   /* NaN never matches */
      return FALSE;
  *price = form->prices[k].price;
  return TRUE;
}

static inline void
form_price_remember (RudForm *form, gconstpointer instance, const PtiSymbols *symbols,
                     guint place, double price)
{
  if (form->slots == NULL)
    return;
  const double *values = pti_symbols_values_inline (symbols);
  double *seen = form->values + place * form->n_slots;
  for (guint i = 0; i < form->n_slots; i++)
    seen[i] = values[form->slots[i]];
  form->prices[place] = (Price) { instance, price };
}

/* @rank's last price, if it was of @form on @instance with these values. */
static inline gboolean
rank_price_reusable (const RankPrice *rp, const RudForm *form, gconstpointer instance,
                     const PtiSymbols *symbols, double *price)
{
  if (rp->form != form || rp->instance != instance)
    return FALSE;
  const double *values = pti_symbols_values_inline (symbols);
  for (guint i = 0; i < form->n_slots; i++)
    if (values[form->slots[i]] != rp->values[i])   /* NaN never matches */
      return FALSE;
  *price = rp->price;
  return TRUE;
}

static inline void
rank_price_remember (RankPrice *rp, const RudForm *form, gconstpointer instance,
                     const PtiSymbols *symbols, double price)
{
  const double *values = pti_symbols_values_inline (symbols);
  rp->form = form;
  rp->instance = instance;
  rp->price = price;
  for (guint i = 0; i < form->n_slots; i++)
    rp->values[i] = values[form->slots[i]];
}

/* The first parameter @form's price reads that is unbound, or G_MAXUINT
 * (also when the model cannot say which it reads). */
static guint
first_unbound (const RudForm *form, const PtiSymbols *symbols)
{
  const double *values = pti_symbols_values (symbols);
  for (guint i = 0; form->slots != NULL && i < form->n_slots; i++)
    if (isnan (values[form->slots[i]]))
      return form->slots[i];
  return G_MAXUINT;
}

guint
pti_session_model_choice (PtiSession *s, const char *name, GError **error)
{
  if (name == NULL || !g_regex_match_simple ("^[A-Za-z0-9_][A-Za-z0-9_.\\-]*$", name, 0, 0)
      || strlen (name) > 128) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "'%s' is not a model or configuration name (a letter, digit or '_', then "
                 "letters, digits, '_', '-' or '.')", name ? name : "(null)");
    return G_MAXUINT;
  }
  if (pti_system_n_choices (s->system) >= G_MAXUINT16 - 1) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "model '%s': more than %u model names "
                 "chosen in one workload", name, G_MAXUINT16 - 1);
    return G_MAXUINT;
  }
  return pti_system_choice (s->system, name);
}

/* The CPU configuration choice @choice selects for @rank, or NULL with
 * @error naming the rank, the computer and what it configures. */
static const PtiModelInstance *
chosen_cpu (PtiSession *s, guint rank, guint choice, GError **error)
{
  const PtiModelInstance *dflt = pti_engine_cpu (s->engine, rank);
  const PtiModelInstance *cpu = pti_system_choice_instance (s->system, choice, dflt);
  if (G_UNLIKELY (cpu == NULL)) {
    g_autofree char *have = pti_system_configs_of (s->system, dflt);
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "rank %u: model '%s' is not configured for the CPU of %s (configured there: "
                 "%s)", rank, pti_system_choice_name (s->system, choice), dflt->owner, have);
  }
  return cpu;
}

gboolean
pti_session_use (PtiSession *s, guint rank, PtiRud *rud, guint *unbound, GError **error)
{
  return pti_session_use_on (s, rank, rud, 0, unbound, error);
}

gboolean
pti_session_use_on (PtiSession *s, guint rank, PtiRud *rud, guint choice, guint *unbound,
                    GError **error)
{
  const PtiModelInstance *cpu = choice == 0 ? pti_engine_cpu (s->engine, rank)
                                            : chosen_cpu (s, rank, choice, error);
  if (G_UNLIKELY (cpu == NULL))
    return FALSE;
  RudForm *form = NULL;
  for (guint i = 0; i < rud->n_forms && form == NULL; i++)
    if (rud->forms[i].desc == cpu->desc)
      form = &rud->forms[i];
  if (G_UNLIKELY (form == NULL)) {
    if (!PTI_CPU_OPS_HAS_RUDS (cpu->desc->cpu))
      g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                   "rank %u, RUD '%s': the CPU model of %s, %s, prices computations given as "
                   "a time or as flops only (pti_use_time, pti_use_flops), not RUDs; configure "
                   "a RUD model such as <cpu_clc> for it", rank, rud->name, cpu->owner,
                   cpu->desc->name);
    else
      g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                   "rank %u: RUD '%s' was made by another context", rank, rud->name);
    return FALSE;
  }
  pti_symbols_set_inline (s->symbols, s->slot_rank, rank);
  double seconds;
  guint place = 0;
  RankPrice *rp = NULL;
  if (form->slots != NULL && form->n_slots <= RANK_PRICE_VALUES) {
    if (G_UNLIKELY (s->rank_prices == NULL))
      s->rank_prices = g_new0 (RankPrice, pti_engine_n_procs (s->engine));
    rp = &s->rank_prices[rank];
  }
  if (rp == NULL || !rank_price_reusable (rp, form, cpu->state, s->symbols, &seconds)) {
    if (!form_price_reusable (form, cpu->state, s->symbols, &seconds, &place)) {
      if (G_UNLIKELY (!cpu->desc->cpu->cost (cpu->state, form->compiled, s->symbols, &seconds,
                                              error))) {
        g_prefix_error (error, "rank %u, RUD '%s' on %s: ", rank, rud->name, cpu->owner);
        *unbound = first_unbound (form, s->symbols);
        return FALSE;
      }
      form_price_remember (form, cpu->state, s->symbols, place, seconds);
    }
    if (rp != NULL)
      rank_price_remember (rp, form, cpu->state, s->symbols, seconds);
  }
  if (G_UNLIKELY (rud->id == NO_RUD_ID)) {
    rud->id = s->ruds->len;
    g_ptr_array_add (s->ruds, pti_session_rud_ref (rud));
  }
  if (choice == 0)
    pti_engine_add_compute (s->engine, rank, seconds, rud->id);
  else
    pti_engine_add_compute_on (s->engine, rank, seconds, rud->id, choice);
  return TRUE;
}

gboolean
pti_session_comm_set_model (PtiSession *s, guint id, guint choice, guint n,
                            const guint *members, GError **error)
{
  return pti_engine_set_comm_model (s->engine, id, choice, n, members, error);
}

/* The RUD table's entry that names computations of @kind in the trace: a
 * RUD with no forms, made once. */
static guint32
burst_rud_id (PtiSession *s, PtiSessionBurst kind)
{
  static const char *const names[] = { "time", "flops", "sleep", "comm_setup", "mpi_setup" };
  G_STATIC_ASSERT (G_N_ELEMENTS (names) == PTI_SESSION_BURST_N);
  PtiRud **slot = &s->bursts[kind];
  if (*slot == NULL) {
    PtiRud *rud = g_malloc0 (sizeof (PtiRud));
    rud->ref = 1;
    rud->session = s;
    rud->name = g_strdup (names[kind]);
    rud->device = g_strdup ("cpu");
    rud->id = s->ruds->len;
    g_ptr_array_add (s->ruds, pti_session_rud_ref (rud));
    *slot = rud;
  }
  return (*slot)->id;
}

gboolean
pti_session_use_burst (PtiSession *s, guint rank, PtiSessionBurst kind, double amount,
                       GError **error)
{
  static const char *const what[] = { "use_time", "use_flops" };
  double seconds = amount;
  if (kind == PTI_SESSION_BURST_TIME || kind == PTI_SESSION_BURST_FLOPS) {
    const PtiModelInstance *cpu = pti_engine_cpu (s->engine, rank);
    const PtiCpuOps *ops = cpu->desc->cpu;
    gboolean flops = kind == PTI_SESSION_BURST_FLOPS;
    gboolean (*price) (gconstpointer, double, double *, GError **)
      = ops->version < 2 ? NULL : flops ? ops->flops_cost : ops->time_cost;
    if (G_UNLIKELY (price == NULL)) {
      g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                   "%s on rank %u: the CPU model of %s, %s, cannot price a computation given "
                   "as %s; configure a model that can, such as <cpu_time> (models/cpu-time)",
                   what[kind], rank, cpu->owner, cpu->desc->name,
                   flops ? "a number of floating-point operations" : "a measured time");
      return FALSE;
    }
    seconds = NAN;
    if (G_UNLIKELY (!price (cpu->state, amount, &seconds, error))) {
      g_prefix_error (error, "%s on rank %u (%s, model %s): ", what[kind], rank, cpu->owner,
                      cpu->desc->name);
      return FALSE;
    }
    if (G_UNLIKELY (!(isfinite (seconds) && seconds >= 0))) {
      g_set_error (error, PTI_ERROR, PTI_ERROR_MODEL,
                   "%s on rank %u: model %s of %s priced %g %s at %g s, not a finite time >= 0",
                   what[kind], rank, cpu->desc->name, cpu->owner, amount, flops ? "flops" : "s",
                   seconds);
      return FALSE;
    }
  }
  pti_engine_add_compute (s->engine, rank, seconds, burst_rud_id (s, kind));
  return TRUE;
}

/* ---- progress and automatic partial evaluation ------------------------------ */

void
pti_session_set_progress (PtiSession *s, PtiProgressFunc func, gpointer data, guint64 every)
{
  s->progress = func;
  s->progress_data = data;
  s->progress_every = s->progress_countdown = MAX (every, 1);
  if (s->engine != NULL)
    pti_engine_set_progress (s->engine, func, data, every);
}

void
pti_session_tick (PtiSession *s)
{
  if (G_UNLIKELY (s->progress != NULL) && !s->pulling && --s->progress_countdown == 0) {
    s->progress_countdown = s->progress_every;
    s->progress (0, 0, NAN, s->progress_data);
  }
}

void
pti_session_set_pulling (PtiSession *s, gboolean pulling)
{
  s->pulling = pulling;
}

static gboolean open_trace (PtiSession *s, GError **error);

static gboolean
run_partial (PtiSession *s, GError **error)
{
  if (!open_trace (s, error) || !pti_engine_run (s->engine, FALSE, error))
    return FALSE;
  return s->trace == NULL || pti_trace_sink_flush (s->trace, error);
}

void
pti_session_set_pending_limit (PtiSession *s, guint64 events)
{
  s->pending_limit = events;
  s->appended = 0;
  if (s->trace != NULL)
    pti_trace_sink_set_chunk (s->trace, events);
}

gboolean
pti_session_appended (PtiSession *s, GError **error)
{
  if (G_LIKELY (s->pulling || s->engine == NULL))
    return TRUE;
  if (s->pending_limit > 0) {
    if (++s->appended < s->pending_limit)
      return TRUE;
    s->appended = 0;
    return run_partial (s, error);
  }
  guint64 pending = pti_engine_n_pending (s->engine);
  if (G_LIKELY (pending < s->next_partial))
    return TRUE;
  if (!open_trace (s, error) || !pti_engine_run (s->engine, FALSE, error))
    return FALSE;
  s->next_partial = MAX (AUTO_PARTIAL_FIRST, 2 * pti_engine_n_pending (s->engine));
  return TRUE;
}

/* ---- changes ------------------------------------------------------------------ */

gboolean
pti_session_change_at (PtiSession *s, double time, const char *target, const char *element,
                       const char *value, const char *origin, GError **error)
{
  if (s->evaluated && !s->evaluating) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "%s: the workload was already evaluated", origin);
    return FALSE;
  }
  /* "link_load[s1.*:up]": the element, and the parts it applies to */
  g_autofree char *name = g_strdup (element);
  char *selector = NULL, *open = strchr (name, '[');
  if (open != NULL) {
    gsize len = strlen (open);
    if (len < 3 || open[len - 1] != ']') {
      g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                   "%s: '%s' is not ELEMENT or ELEMENT[PARTS], e.g. link_load[s1.0-s2.*:up]",
                   origin, element);
      return FALSE;
    }
    *open = '\0';
    open[len - 1] = '\0';
    selector = open + 1;
  }
  if (name[0] == '\0') {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s: no element named in '%s'", origin,
                 element);
    return FALSE;
  }
  if (s->engine == NULL) {
    /* Checked now against the system, so that a mistake is blamed on its
     * origin alone; scheduled once the engine exists (pti_session_set_processes). */
    if (pti_engine_check_change (s->system, time, target, name, selector, value, origin,
                                 error) == NULL)
      return FALSE;
    QueuedChange *q = g_new0 (QueuedChange, 1);
    *q = (QueuedChange) { time, g_strdup (target), g_strdup (element), g_strdup (value),
                          g_strdup (origin) };
    if (s->queued_changes == NULL)
      s->queued_changes = g_ptr_array_new_with_free_func (queued_change_free);
    g_ptr_array_add (s->queued_changes, q);
    return TRUE;
  }
  return pti_engine_add_change (s->engine, time, target, name, selector, value, origin, error);
}

/* ---- trace ---------------------------------------------------------------------- */

void
pti_session_set_trace (PtiSession *s, const char *path)
{
  g_free (s->trace_path);
  s->trace_path = g_strdup (path);
}

static char *
format_number (double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  return g_strdup (g_ascii_formatd (buf, sizeof buf, "%.15g", v));
}

static const char *
rud_name_of (gpointer data, guint32 id)
{
  PtiSession *s = data;
  return id < s->ruds->len ? ((PtiRud *) g_ptr_array_index (s->ruds, id))->name : NULL;
}

/* Whether some model choice selects @mi beside a default. */
static gboolean
instance_chosen (const PtiSession *s, const PtiModelInstance *mi)
{
  guint ni = pti_system_n_instances (s->system);
  for (guint k = 1; k <= pti_system_n_choices (s->system); k++)
    for (guint i = 0; i < ni; i++) {
      const PtiModelInstance *d = pti_system_instance (s->system, i);
      if (pti_system_instance_is_active (s->system, d)
          && pti_system_choice_instance (s->system, k, d) == mi)
        return TRUE;
    }
  return FALSE;
}

/* Open the trace and write its header, once, at the first evaluation. */
static gboolean
open_trace (PtiSession *s, GError **error)
{
  if (s->trace_path == NULL || s->writer != NULL)
    return TRUE;
  g_autoptr (PtiTraceWriter) w = pti_trace_writer_open (s->trace_path, error);
  if (w == NULL)
    return FALSE;

  guint np = s->param_names->len;
  g_autofree PtiTraceParam *params = g_new0 (PtiTraceParam, np + 1);
  g_autoptr (GPtrArray) strings = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < np; i++) {
    guint slot;
    params[i].name = g_ptr_array_index (s->param_names, i);
    pti_symbols_lookup (s->symbols, params[i].name, &slot);
    char *v = format_number (pti_symbols_get (s->symbols, slot));
    g_ptr_array_add (strings, v);
    params[i].value = v;
  }
  /* The instances in use: the defaults, and those a use or communicator
   * chose by name; a model configured but never chosen (an HMC element's
   * other model, --use-model) is not in the trace. */
  guint ni = pti_system_n_instances (s->system);
  g_autofree PtiTraceModel *models = g_new0 (PtiTraceModel, ni + 1);
  guint n_models = 0;
  g_autoptr (GArray) records = g_array_new (FALSE, TRUE, sizeof (PtiTraceRecordType));
  g_autoptr (GPtrArray) seen = g_ptr_array_new ();
  for (guint i = 0; i < ni; i++) {
    const PtiModelInstance *mi = pti_system_instance (s->system, i);
    if (!pti_system_instance_is_active (s->system, mi) && !instance_chosen (s, mi))
      continue;
    models[n_models++] = (PtiTraceModel) { mi->desc->name, mi->owner, mi->config };
    if (mi->desc->records == NULL || g_ptr_array_find (seen, mi->desc, NULL))
      continue;
    g_ptr_array_add (seen, (gpointer) mi->desc);
    for (const PtiTraceRecordDesc *r = mi->desc->records; r->name != NULL; r++) {
      PtiTraceRecordType t = { mi->desc->name, mi->desc->records_namespace, r->name, r->fields,
                               r->description };
      g_array_append_val (records, t);
    }
  }
  guint n = pti_engine_n_procs (s->engine);
  g_autofree PtiTraceProcess *procs = g_new0 (PtiTraceProcess, n);
  for (guint r = 0; r < n; r++) {
    char *where = pti_system_describe_processor (s->system, pti_session_processor_of (s, r));
    g_ptr_array_add (strings, where);
    procs[r] = (PtiTraceProcess) { r, where };
  }
  g_autofree char *generator = g_strdup_printf ("pti %s", PTI_VERSION);
  PtiTraceHeader h = {
    .system_name = pti_system_name (s->system),
    .system_file = pti_system_path (s->system),
    .workload_name = s->workload_name,
    .workload_file = s->workload_file,
    .generator = generator,
    .params = params, .n_params = np,
    .models = models, .n_models = n_models,
    .records = (PtiTraceRecordType *) records->data, .n_records = records->len,
    .processes = procs, .n_processes = n,
  };
  if (!pti_trace_writer_header (w, &h, error))
    return FALSE;
  s->writer = g_steal_pointer (&w);
  s->trace = pti_trace_sink_new (s->writer, n, rud_name_of, s);
  pti_trace_sink_set_chunk (s->trace, s->pending_limit);
  PtiEngineSink sink;
  pti_trace_sink_engine_sink (s->trace, &sink);
  pti_engine_set_sink (s->engine, &sink);
  return TRUE;
}

/* ---- evaluation ---------------------------------------------------------------- */

void
pti_session_set_source (PtiSession *s, const PtiEngineSource *source)
{
  pti_engine_set_source (s->engine, source);
}

static gboolean
ready_to_evaluate (PtiSession *s, GError **error)
{
  if (s->evaluated) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "the workload was already evaluated");
    return FALSE;
  }
  if (s->engine == NULL) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "workload '%s' declares no processes", s->workload_name);
    return FALSE;
  }
  return TRUE;
}

gboolean
pti_session_evaluate (PtiSession *s, GError **error)
{
  if (!ready_to_evaluate (s, error) || !pti_session_check_overrides_used (s, error))
    return FALSE;
  s->evaluated = TRUE;
  if (!open_trace (s, error))
    return FALSE;
  s->evaluating = TRUE;
  gboolean ran = pti_engine_run (s->engine, TRUE, error);
  s->evaluating = FALSE;
  if (!ran || !pti_assertions_check (s->assertions, s->engine, error))
    return FALSE;
  if (s->writer == NULL)
    return TRUE;
  guint n = pti_engine_n_procs (s->engine);
  g_autofree PtiTraceProcessSummary *sum = g_new (PtiTraceProcessSummary, n);
  for (guint r = 0; r < n; r++)
    pti_engine_process_summary (s->engine, r, &sum[r]);
  guint n_phases = pti_engine_n_phases (s->engine);
  g_autofree PtiTracePhase *phases = g_new0 (PtiTracePhase, MAX (n_phases, 1));
  for (guint p = 0; p < n_phases; p++) {
    PtiPhaseTotals t;
    pti_phase_totals (s->engine, p, &t);
    phases[p] = (PtiTracePhase) {
      .name = pti_engine_phase_name (s->engine, p), .time = t.time, .compute = t.compute,
      .comm = t.comm, .wait = t.wait, .messages = t.messages, .bytes = t.bytes,
      .entries = t.entries, .ranks = t.ranks,
    };
  }
  guint n_asserts = pti_assertions_count (s->assertions);
  g_autofree PtiTraceAssertion *asserts = g_new0 (PtiTraceAssertion, MAX (n_asserts, 1));
  for (guint i = 0; i < n_asserts; i++) {
    const PtiAssertionOutcome *o = pti_assertions_outcome (s->assertions, i);
    asserts[i] = (PtiTraceAssertion) {
      .name = o->name, .test = o->test, .origin = o->origin, .passed = o->passed,
      .n_values = o->n_values, .value_names = o->value_names, .values = o->values,
    };
  }
  pti_trace_writer_set_results (s->writer, phases, n_phases, asserts, n_asserts);
  guint64 evaluated, derived;
  pti_engine_repetition_figures (s->engine, &evaluated, &derived);
  return pti_trace_sink_finish (s->trace, pti_engine_predicted_time (s->engine),
                                pti_engine_n_events (s->engine), sum, n, error)
         && pti_trace_writer_commit (s->writer, error);
}

gboolean
pti_session_evaluate_partial (PtiSession *s, GError **error)
{
  if (s->evaluated) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "the workload was already evaluated");
    return FALSE;
  }
  if (s->engine == NULL) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "partial evaluation: the processes are not set yet");
    return FALSE;
  }
  return run_partial (s, error);
}

gboolean
pti_session_evaluated (const PtiSession *s)
{
  return s->evaluated;
}

/* ---- phases and assertions ------------------------------------------------------ */

gboolean
pti_session_assert (PtiSession *s, const char *name, const char *test, const char *origin,
                    GError **error)
{
  if (s->evaluated) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "assertion '%s': the workload was already evaluated (state assertions "
                 "before pti_evaluate)", name ? name : "");
    return FALSE;
  }
  return pti_assertions_add (s->assertions, name, test, origin, s->symbols, error);
}

const PtiAssertions *
pti_session_assertions (const PtiSession *s)
{
  return s->assertions;
}

/* ---- results -------------------------------------------------------------------- */

double
pti_session_predicted_time (const PtiSession *s)
{
  return s->engine && s->evaluated ? pti_engine_predicted_time (s->engine) : NAN;
}

double
pti_session_efficiency (const PtiSession *s)
{
  return s->engine && s->evaluated ? pti_efficiency (s->engine, G_MAXUINT) : NAN;
}

guint64
pti_session_n_events (const PtiSession *s)
{
  if (s->engine == NULL)
    return 0;
  return s->evaluated ? pti_engine_n_events (s->engine) : pti_engine_n_appended (s->engine);
}

gboolean
pti_session_process_result (const PtiSession *s, guint rank, PtiTraceProcessSummary *out)
{
  if (s->engine == NULL || !s->evaluated || rank >= pti_engine_n_procs (s->engine))
    return FALSE;
  pti_engine_process_summary (s->engine, rank, out);
  return TRUE;
}

void
pti_session_repetition_figures (const PtiSession *s, guint64 *evaluated, guint64 *extrapolated)
{
  *evaluated = *extrapolated = 0;
  if (s->engine != NULL)
    pti_engine_repetition_figures (s->engine, evaluated, extrapolated);
}

const char *
pti_session_repetition_note (const PtiSession *s)
{
  return s->engine ? pti_engine_repetition_note (s->engine) : NULL;
}
