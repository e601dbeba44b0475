/* The workload specification library: contexts, parameters, RUDs, device
 * uses, evaluation and results.  A thin, checked layer over the engine: every
 * user mistake becomes a GError naming the rank, RUD or parameter, and the
 * per-use path does no parsing and no allocation beyond the event list's
 * amortised growth. */
#include "pti-config.h"
#include "wsl-private.h"
#include "coll-private.h"

#include "engine.h"
#include "registry.h"
#include "system.h"
#include "xml.h"

#include <math.h>
#include <string.h>

/* A RUD compiled for one CPU model, with the last price it got: a use whose
 * instance and parameter values (those the model says the price depends on)
 * are the same as last time reuses that price instead of re-evaluating the
 * RUD.  Workloads repeat the same use with the same values most of the time
 * (every k-block of a Sweep3D angle block, for instance). */
typedef struct {
  const PtiModelDesc *desc;
  gpointer compiled;
  const guint *slots;    /* NULL if the model cannot say: price every use */
  guint n_slots;
  double *last_values;   /* n_slots values of the last priced use */
  gconstpointer last_instance;
  double last_price;
} RudForm;

struct _PtiRud {
  gint ref;
  char *name;
  char *device;
  guint32 id;            /* index in the context's RUD table once used */
  guint n_forms;
  RudForm forms[];       /* one per distinct CPU model of the system */
};

/* Progress reports (pti_wsl_set_progress): a pointer in the context, so
 * that the checks every device use goes through, which see a const
 * context, can count down. */
typedef struct {
  PtiProgressFunc func;
  gpointer data;
  guint64 every, countdown;
} WslProgress;

typedef struct {
  double time;
  char *target, *element, *value, *origin;
} QueuedChange;

struct _PtiContext {
  GArray *placement;            /* guint processor per rank, or NULL (block) */
  PtiPlacement placement_kind;
  PtiRegistry *registry;
  PtiSystem *system;
  PtiSymbols *symbols;
  guint slot_rank, slot_nprocs;
  PtiEngine *engine;
  GHashTable *overrides;        /* name -> value text, from -D */
  GHashTable *declared;         /* names of declared parameters */
  GPtrArray *param_names;       /* declared parameters, in order */
  GPtrArray *ruds;              /* RUDs used by events (one reference each), by id */
  GPtrArray *cpu_models;        /* distinct CPU model descriptors, document order */
  char *trace_path;
  PtiTraceWriter *writer;       /* open from the first evaluation on, if a trace is wanted */
  guint64 pending_limit;        /* automatic partial evaluation: 0 = off */
  GPtrArray *queued_changes;    /* QueuedChange*, given before the processes were set */
  guint64 appended;             /* events appended since the last partial evaluation */
  char *workload_name;
  char *workload_file;
  gboolean evaluated;
  WslProgress *progress;        /* NULL: no progress reports */
  PtiCollState *coll;           /* communicators and collectives (collectives.c), or NULL */
};

#define NO_RUD_ID G_MAXUINT32

static inline gboolean appended (PtiContext *ctx, gboolean ok, GError **error);

static void
rud_table_unref (gpointer rud)
{
  pti_rud_unref (rud);
}

PtiContext *
pti_context_new (const char *system_path, const char *model_path, GError **error)
{
  return pti_context_new_with_models (system_path, model_path, NULL, error);
}

PtiContext *
pti_context_new_with_models (const char *system_path, const char *model_path,
                             const char *const *uses, GError **error)
{
  g_return_val_if_fail (system_path != NULL, NULL);
  g_autoptr (PtiRegistry) registry = pti_registry_new (model_path, error);
  if (registry == NULL)
    return NULL;
  g_autoptr (PtiSystem) system = pti_system_load_full (system_path, registry, uses, error);
  if (system == NULL)
    return NULL;

  PtiContext *ctx = g_new0 (PtiContext, 1);
  ctx->registry = g_steal_pointer (&registry);
  ctx->system = g_steal_pointer (&system);
  ctx->symbols = pti_symbols_new ();
  ctx->slot_rank = pti_symbols_intern (ctx->symbols, "rank");
  ctx->slot_nprocs = pti_symbols_intern (ctx->symbols, "nprocs");
  ctx->overrides = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  ctx->declared = g_hash_table_new (g_str_hash, g_str_equal);
  ctx->param_names = g_ptr_array_new_with_free_func (g_free);
  ctx->ruds = g_ptr_array_new_with_free_func (rud_table_unref);
  ctx->cpu_models = g_ptr_array_new ();
  for (guint i = 0; i < ctx->system->instances->len; i++) {
    const PtiModelInstance *inst = g_ptr_array_index (ctx->system->instances, i);
    if (inst->desc->cpu != NULL && !g_ptr_array_find (ctx->cpu_models, inst->desc, NULL))
      g_ptr_array_add (ctx->cpu_models, (gpointer) inst->desc);
  }
  ctx->workload_name = g_strdup ("workload");
  return ctx;
}

void
pti_context_free (PtiContext *ctx)
{
  if (ctx == NULL)
    return;
  pti_trace_writer_free (ctx->writer);   /* uncommitted: removes the temporary file */
  pti_engine_free (ctx->engine);
  pti_coll_state_free (ctx->coll);   /* before the RUDs' models and symbols */
  if (ctx->placement != NULL)
    g_array_unref (ctx->placement);
  g_ptr_array_unref (ctx->ruds);
  g_ptr_array_unref (ctx->cpu_models);
  g_ptr_array_unref (ctx->param_names);
  g_hash_table_unref (ctx->declared);
  g_hash_table_unref (ctx->overrides);
  pti_symbols_free (ctx->symbols);
  pti_system_free (ctx->system);
  pti_registry_free (ctx->registry);
  g_free (ctx->trace_path);
  g_free (ctx->workload_name);
  g_free (ctx->workload_file);
  g_free (ctx->progress);
  if (ctx->queued_changes != NULL)
    g_ptr_array_unref (ctx->queued_changes);
  g_free (ctx);
}

void
pti_context_set_workload (PtiContext *ctx, const char *name, const char *file)
{
  g_return_if_fail (ctx != NULL && name != NULL);
  g_free (ctx->workload_name);
  g_free (ctx->workload_file);
  ctx->workload_name = g_strdup (name);
  ctx->workload_file = g_strdup (file);
}

gboolean
pti_context_set_processes (PtiContext *ctx, guint n, GError **error)
{
  g_return_val_if_fail (ctx != NULL, FALSE);
  if (ctx->engine != NULL) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "the processes are already set (%u); set them once", pti_engine_n_procs (ctx->engine));
    return FALSE;
  }
  guint np = ctx->system->processors->len;
  if (ctx->placement != NULL && ctx->placement->len != n) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "the placement map places %u ranks, but %u processes were asked for",
                 ctx->placement->len, n);
    return FALSE;
  }
  if (ctx->placement == NULL && ctx->placement_kind == PTI_PLACEMENT_CYCLIC && n <= np) {
    /* Round-robin over nodes: processors ordered by (CPU number, node). */
    ctx->placement = g_array_sized_new (FALSE, FALSE, sizeof (guint), n);
    guint max_cpus = 0;
    for (guint i = 0; i < np; i++)
      max_cpus = MAX (max_cpus, g_array_index (ctx->system->processors, PtiProcessor, i).cpu + 1);
    for (guint cpu = 0; cpu < max_cpus && ctx->placement->len < n; cpu++)
      for (guint i = 0; i < np && ctx->placement->len < n; i++)
        if (g_array_index (ctx->system->processors, PtiProcessor, i).cpu == cpu)
          g_array_append_val (ctx->placement, i);
  }
  ctx->engine = pti_engine_new (ctx->system, n,
                                ctx->placement ? (const guint *) ctx->placement->data : NULL, error);
  if (ctx->engine == NULL)
    return FALSE;
  if (ctx->progress != NULL)
    pti_engine_set_progress (ctx->engine, ctx->progress->func, ctx->progress->data,
                             ctx->progress->every);
  pti_symbols_set (ctx->symbols, ctx->slot_nprocs, n);
  for (guint i = 0; ctx->queued_changes != NULL && i < ctx->queued_changes->len; i++) {
    const QueuedChange *q = g_ptr_array_index (ctx->queued_changes, i);
    if (!pti_context_change_at_origin (ctx, q->time, q->target, q->element, q->value, q->origin,
                                       error))
      return FALSE;
  }
  g_clear_pointer (&ctx->queued_changes, g_ptr_array_unref);
  return TRUE;
}

gboolean
pti_context_set_placement (PtiContext *ctx, PtiPlacement placement, GError **error)
{
  g_return_val_if_fail (ctx != NULL, FALSE);
  if (ctx->engine != NULL) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "the placement must be chosen before the processes are set");
    return FALSE;
  }
  ctx->placement_kind = placement;
  g_clear_pointer (&ctx->placement, g_array_unref);
  return TRUE;
}

gboolean
pti_context_set_placement_map (PtiContext *ctx, guint n, const guint *processors, GError **error)
{
  g_return_val_if_fail (ctx != NULL && (n == 0 || processors != NULL), FALSE);
  if (ctx->engine != NULL) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "the placement must be chosen before the processes are set");
    return FALSE;
  }
  guint np = ctx->system->processors->len;
  g_autofree gboolean *taken = g_new0 (gboolean, np);
  for (guint r = 0; r < n; r++) {
    if (processors[r] >= np || taken[processors[r]]) {
      g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                   processors[r] >= np
                     ? "placement map: rank %u on processor %u, but system '%s' has processors 0 to %u"
                     : "placement map: rank %u on processor %u, which an earlier rank has (system '%s', %u processors)",
                   r, processors[r], ctx->system->name, processors[r] >= np ? np - 1 : np);
      return FALSE;
    }
    taken[processors[r]] = TRUE;
  }
  if (ctx->placement != NULL)
    g_array_unref (ctx->placement);
  ctx->placement = g_array_sized_new (FALSE, FALSE, sizeof (guint), n);
  g_array_append_vals (ctx->placement, processors, n);
  return TRUE;
}

guint
pti_context_get_processes (const PtiContext *ctx)
{
  return ctx->engine ? pti_engine_n_procs (ctx->engine) : 0;
}

/* ---- parameters ----------------------------------------------------------- */

static gboolean
check_param_name (const char *name, GError **error)
{
  gboolean ok = name != NULL && (g_ascii_isalpha (name[0]) || name[0] == '_');
  for (const char *c = name; ok && *c; c++)
    ok = g_ascii_isalnum (*c) || *c == '_';
  if (!ok)
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "'%s' is not a valid parameter name (letters, digits and _, not starting with a digit)",
                 name ? name : "(null)");
  return ok;
}

gboolean
pti_context_override_param (PtiContext *ctx, const char *name, const char *value, GError **error)
{
  g_return_val_if_fail (ctx != NULL && value != NULL, FALSE);
  if (!check_param_name (name, error))
    return FALSE;
  g_hash_table_replace (ctx->overrides, g_strdup (name), g_strdup (value));
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
eval_override (PtiContext *ctx, const char *name, const char *text, double *value, GError **error)
{
  g_autoptr (PtiExpr) expr = pti_expr_compile (text, ctx->symbols, error);
  if (expr == NULL || !pti_expr_check (expr, ctx->symbols, value, error)) {
    g_prefix_error (error, "-D %s=%s: ", name, text);
    append_hint (error, "a -D value is a number, or an expression of numbers and of the "
                        "parameters the workload declares before it");
    return FALSE;
  }
  return TRUE;
}

gboolean
pti_context_declare_param (PtiContext *ctx, const char *name, double default_value, GError **error)
{
  g_return_val_if_fail (ctx != NULL, FALSE);
  if (!check_param_name (name, error))
    return FALSE;
  if (g_hash_table_contains (ctx->declared, name)) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "parameter '%s' is declared twice", name);
    return FALSE;
  }
  double value = default_value;
  const char *text = g_hash_table_lookup (ctx->overrides, name);
  if (text != NULL && !eval_override (ctx, name, text, &value, error))
    return FALSE;
  char *copy = g_strdup (name);
  g_ptr_array_add (ctx->param_names, copy);
  g_hash_table_add (ctx->declared, copy);
  pti_symbols_set (ctx->symbols, pti_symbols_intern (ctx->symbols, name), value);
  return TRUE;
}

double
pti_context_get_param (const PtiContext *ctx, const char *name)
{
  guint slot;
  if (!pti_symbols_lookup (ctx->symbols, name, &slot))
    return NAN;
  return pti_symbols_get (ctx->symbols, slot);
}

gboolean
pti_context_set_param (PtiContext *ctx, const char *name, double value, GError **error)
{
  g_return_val_if_fail (ctx != NULL, FALSE);
  if (!check_param_name (name, error))
    return FALSE;
  pti_symbols_set (ctx->symbols, pti_symbols_intern (ctx->symbols, name), value);
  return TRUE;
}

PtiSymbols *
pti_context_get_symbols (PtiContext *ctx)
{
  return ctx->symbols;
}

/* ---- RUDs ------------------------------------------------------------------ */

PtiRud *
pti_rud_new_from_node (PtiContext *ctx, const char *name, const xmlNode *node, GError **error)
{
  g_return_val_if_fail (ctx != NULL && node != NULL, NULL);
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
  if (ctx->cpu_models->len == 0) {
    pti_node_error (error, node, "system %s has no CPU model to price a cpu RUD", ctx->system->path);
    return NULL;
  }
  g_autofree char *attr_name = pti_xml_attr (node, "name");
  PtiRud *rud = g_malloc0 (sizeof (PtiRud) + ctx->cpu_models->len * sizeof (RudForm));
  rud->ref = 1;
  rud->name = g_strdup (name ? name : attr_name ? attr_name : "rud");
  rud->device = g_strdup ("cpu");
  rud->id = NO_RUD_ID;
  for (guint i = 0; i < ctx->cpu_models->len; i++) {
    const PtiModelDesc *desc = g_ptr_array_index (ctx->cpu_models, i);
    gpointer compiled = desc->cpu->rud_compile (node, ctx->symbols, error);
    if (compiled == NULL) {
      g_prefix_error (error, "RUD '%s' (model %s): ", rud->name, desc->name);
      pti_rud_unref (rud);
      return NULL;
    }
    RudForm *form = &rud->forms[rud->n_forms++];
    *form = (RudForm) { .desc = desc, .compiled = compiled };
    if (desc->cpu->rud_slots != NULL) {
      form->slots = desc->cpu->rud_slots (compiled, &form->n_slots);
      form->last_values = g_new (double, MAX (form->n_slots, 1));
    }
  }
  return rud;
}

PtiRud *
pti_rud_new (PtiContext *ctx, const char *name, const char *xml, GError **error)
{
  g_return_val_if_fail (ctx != NULL && xml != NULL, NULL);
  /* libxml2 keeps the name as a URL (escaping spaces and quotes), so keep it plain. */
  g_autofree char *label = g_strdup_printf ("rud:%s", name ? name : "unnamed");
  g_autoptr (xmlDoc) doc = pti_xml_read_memory (xml, -1, label, error);
  if (doc == NULL)
    return NULL;
  return pti_rud_new_from_node (ctx, name, xmlDocGetRootElement (doc), error);
}

PtiRud *
pti_rud_ref (PtiRud *rud)
{
  g_return_val_if_fail (rud != NULL, NULL);
  g_atomic_int_inc (&rud->ref);
  return rud;
}

void
pti_rud_unref (PtiRud *rud)
{
  if (rud == NULL || !g_atomic_int_dec_and_test (&rud->ref))
    return;
  for (guint i = 0; i < rud->n_forms; i++) {
    rud->forms[i].desc->cpu->rud_free (rud->forms[i].compiled);
    g_free (rud->forms[i].last_values);
  }
  g_free (rud->name);
  g_free (rud->device);
  g_free (rud);
}

const char *
pti_rud_get_device (const PtiRud *rud)
{
  return rud->device;
}

/* ---- device uses ------------------------------------------------------------- */

static G_GNUC_NO_INLINE void
build_progress (WslProgress *p)
{
  p->countdown = p->every;
  p->func (0, 0, NAN, p->data);
}

static gboolean
check_rank (const PtiContext *ctx, const char *what, guint rank, GError **error)
{
  if (ctx->engine == NULL) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "%s: the processes are not set yet (call pti_context_set_processes first)", what);
    return FALSE;
  }
  if (ctx->evaluated) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s: the workload was already evaluated", what);
    return FALSE;
  }
  guint n = pti_engine_n_procs (ctx->engine);
  if (rank >= n) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "%s: rank %u out of range (%u processes: ranks 0 to %u)", what, rank, n, n - 1);
    return FALSE;
  }
  if (G_UNLIKELY (ctx->progress != NULL) && --ctx->progress->countdown == 0)
    build_progress (ctx->progress);
  return TRUE;
}

static inline gboolean
form_price_reusable (const RudForm *form, gconstpointer instance, const PtiSymbols *symbols,
                     double *price)
{
  if (form->slots == NULL || form->last_instance != instance)
    return FALSE;
  const double *values = pti_symbols_values (symbols);
  for (guint i = 0; i < form->n_slots; i++)
    if (values[form->slots[i]] != form->last_values[i])   /* NaN never matches */
      return FALSE;
  *price = form->last_price;
  return TRUE;
}

static inline void
form_price_remember (RudForm *form, gconstpointer instance, const PtiSymbols *symbols, double price)
{
  if (form->slots == NULL)
    return;
  const double *values = pti_symbols_values (symbols);
  for (guint i = 0; i < form->n_slots; i++)
    form->last_values[i] = values[form->slots[i]];
  form->last_instance = instance;
  form->last_price = price;
}

/* Levenshtein distance, for "did you mean": names are short. */
static guint
edit_distance (const char *a, const char *b)
{
  gsize la = strlen (a), lb = strlen (b);
  g_autofree guint *row = g_new (guint, lb + 1);
  for (gsize j = 0; j <= lb; j++)
    row[j] = (guint) j;
  for (gsize i = 1; i <= la; i++) {
    guint diagonal = row[0];
    row[0] = (guint) i;
    for (gsize j = 1; j <= lb; j++) {
      guint up = row[j];
      row[j] = MIN (MIN (row[j] + 1, row[j - 1] + 1), diagonal + (a[i - 1] != b[j - 1]));
      diagonal = up;
    }
  }
  return row[lb];
}

void
pti_wsl_hint_unbound (PtiContext *ctx, guint slot, gboolean workload_file, GError **error)
{
  if (error == NULL || *error == NULL || slot >= pti_symbols_count (ctx->symbols))
    return;
  const char *name = pti_symbols_name (ctx->symbols, slot);
  g_autoptr (GString) hint = g_string_new (NULL);
  if (workload_file)
    g_string_append_printf (hint, "declare it with <param name=\"%s\" value=\"...\"/> (which "
                            "-D %s=VALUE overrides) before it is used, or set it in <program> "
                            "with <let name=\"%s\" value=\"...\"/>", name, name, name);
  else
    g_string_append_printf (hint, "bind it with pti_context_set_param (ctx, \"%s\", value) "
                            "before this call, or declare it with pti_context_declare_param "
                            "(ctx, \"%s\", default) so that -D %s=VALUE can set it",
                            name, name, name);
  /* Bound names a typing mistake away: within a third of the name's length. */
  guint best = MAX (1, (guint) strlen (name) / 3) + 1;
  g_autoptr (GString) near = g_string_new (NULL);
  for (guint i = 0; i < pti_symbols_count (ctx->symbols); i++) {
    if (i == slot || isnan (pti_symbols_get (ctx->symbols, i)))
      continue;
    const char *other = pti_symbols_name (ctx->symbols, i);
    guint d = edit_distance (name, other);
    if (d < best) {
      best = d;
      g_string_assign (near, other);
    } else if (d == best && near->len > 0) {
      g_string_append_printf (near, "', '%s", other);
    }
  }
  if (near->len > 0)
    g_string_append_printf (hint, " (did you mean '%s'?)", near->str);
  append_hint (error, hint->str);
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

gboolean
pti_use (PtiContext *ctx, guint rank, PtiRud *rud, GError **error)
{
  guint unbound = G_MAXUINT;
  if (pti_wsl_use (ctx, rank, rud, &unbound, error))
    return TRUE;
  pti_wsl_hint_unbound (ctx, unbound, FALSE, error);
  return FALSE;
}

gboolean
pti_wsl_use (PtiContext *ctx, guint rank, PtiRud *rud, guint *unbound, GError **error)
{
  g_return_val_if_fail (ctx != NULL && rud != NULL, FALSE);
  if (!check_rank (ctx, "use", rank, error))
    return FALSE;
  const PtiModelInstance *cpu = pti_engine_cpu (ctx->engine, rank);
  RudForm *form = NULL;
  for (guint i = 0; i < rud->n_forms && form == NULL; i++)
    if (rud->forms[i].desc == cpu->desc)
      form = &rud->forms[i];
  if (G_UNLIKELY (form == NULL)) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "rank %u: RUD '%s' was made by another context", rank, rud->name);
    return FALSE;
  }
  pti_symbols_set (ctx->symbols, ctx->slot_rank, rank);
  double seconds;
  if (!form_price_reusable (form, cpu->state, ctx->symbols, &seconds)) {
    if (G_UNLIKELY (!cpu->desc->cpu->cost (cpu->state, form->compiled, ctx->symbols, &seconds,
                                            error))) {
      g_prefix_error (error, "rank %u, RUD '%s' on %s: ", rank, rud->name, cpu->owner);
      form->last_instance = NULL;
      *unbound = first_unbound (form, ctx->symbols);
      return FALSE;
    }
    form_price_remember (form, cpu->state, ctx->symbols, seconds);
  }
  if (G_UNLIKELY (rud->id == NO_RUD_ID)) {
    rud->id = ctx->ruds->len;
    g_ptr_array_add (ctx->ruds, pti_rud_ref (rud));
  }
  pti_engine_add_compute (ctx->engine, rank, seconds, rud->id);
  return appended (ctx, TRUE, error);
}

gboolean
pti_use_xml (PtiContext *ctx, guint rank, const char *xml, GError **error)
{
  g_autoptr (PtiRud) rud = pti_rud_new (ctx, NULL, xml, error);
  return rud != NULL && pti_use (ctx, rank, rud, error);
}

static gboolean
check_message (const PtiContext *ctx, const char *what, guint rank, gboolean receive, guint peer,
               gint tag, GError **error)
{
  if (!check_rank (ctx, what, rank, error))
    return FALSE;
  guint n = pti_engine_n_procs (ctx->engine);
  if (peer >= n && !(receive && peer == PTI_ANY_SOURCE)) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "%s on rank %u: %s rank %u out of range (%u processes: ranks 0 to %u)",
                 what, rank, receive ? "source" : "destination", peer, n, n - 1);
    return FALSE;
  }
  if (tag < 0 && !(receive && tag == PTI_ANY_TAG)) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s on rank %u: tag %d must be >= 0%s",
                 what, rank, tag, receive ? " (or PTI_ANY_TAG)" : "");
    return FALSE;
  }
  return TRUE;
}

gboolean
pti_mpi_send (PtiContext *ctx, guint rank, guint dst, guint64 bytes, gint tag, GError **error)
{
  return appended (ctx, check_message (ctx, "send", rank, FALSE, dst, tag, error)
                       && pti_engine_add_send (ctx->engine, rank, dst, bytes, tag,
                                               PTI_COMM_WORLD, error), error);
}

gboolean
pti_mpi_recv (PtiContext *ctx, guint rank, guint src, guint64 bytes, gint tag, GError **error)
{
  return appended (ctx, check_message (ctx, "recv", rank, TRUE, src, tag, error)
                       && pti_engine_add_recv (ctx->engine, rank, src, bytes, tag,
                                               PTI_COMM_WORLD, error), error);
}

gboolean
pti_mpi_isend (PtiContext *ctx, guint rank, guint dst, guint64 bytes, gint tag,
               PtiRequest *request, GError **error)
{
  g_return_val_if_fail (request != NULL, FALSE);
  guint32 r;
  if (!check_message (ctx, "isend", rank, FALSE, dst, tag, error)
      || !pti_engine_add_isend (ctx->engine, rank, dst, bytes, tag, PTI_COMM_WORLD, &r, error))
    return FALSE;
  *request = r;
  return appended (ctx, TRUE, error);
}

gboolean
pti_mpi_irecv (PtiContext *ctx, guint rank, guint src, guint64 bytes, gint tag,
               PtiRequest *request, GError **error)
{
  g_return_val_if_fail (request != NULL, FALSE);
  guint32 r;
  if (!check_message (ctx, "irecv", rank, TRUE, src, tag, error)
      || !pti_engine_add_irecv (ctx->engine, rank, src, bytes, tag, PTI_COMM_WORLD, &r, error))
    return FALSE;
  *request = r;
  return appended (ctx, TRUE, error);
}

static gboolean
add_wait (PtiContext *ctx, const char *what, guint rank, guint n, const PtiRequest *requests,
          gboolean any, GError **error)
{
  if (!check_rank (ctx, what, rank, error))
    return FALSE;
  G_STATIC_ASSERT (sizeof (PtiRequest) == sizeof (guint32));
  if (!pti_engine_add_wait (ctx->engine, rank, n, (const guint32 *) requests, any, error)) {
    g_prefix_error (error, "%s: ", what);
    return FALSE;
  }
  return appended (ctx, TRUE, error);
}

gboolean
pti_mpi_wait (PtiContext *ctx, guint rank, PtiRequest request, GError **error)
{
  return add_wait (ctx, "wait", rank, 1, &request, FALSE, error);
}

gboolean
pti_mpi_waitall (PtiContext *ctx, guint rank, guint n, const PtiRequest *requests, GError **error)
{
  return add_wait (ctx, "waitall", rank, n, requests, FALSE, error);
}

gboolean
pti_mpi_waitany (PtiContext *ctx, guint rank, guint n, const PtiRequest *requests, GError **error)
{
  return add_wait (ctx, "waitany", rank, n, requests, TRUE, error);
}

gboolean
pti_wsl_check_collective (PtiContext *ctx, const char *what, guint rank, GError **error)
{
  return check_rank (ctx, what, rank, error);
}


/* ---- evaluation -------------------------------------------------------------- */

void
pti_context_set_trace (PtiContext *ctx, const char *path)
{
  g_free (ctx->trace_path);
  ctx->trace_path = g_strdup (path);
}

/* -D names the workload never declared are mistakes, not silently ignored. */
static gboolean
check_overrides_used (PtiContext *ctx, GError **error)
{
  g_autoptr (GPtrArray) unused = g_ptr_array_new ();
  GHashTableIter it;
  gpointer key;
  g_hash_table_iter_init (&it, ctx->overrides);
  while (g_hash_table_iter_next (&it, &key, NULL))
    if (!g_hash_table_contains (ctx->declared, key))
      g_ptr_array_add (unused, key);
  if (unused->len == 0)
    return TRUE;
  g_ptr_array_sort (unused, (GCompareFunc) g_strcmp0);
  g_autoptr (GString) names = g_string_new (NULL);
  for (guint i = 0; i < ctx->param_names->len; i++)
    g_string_append_printf (names, "%s%s", i ? ", " : "", (char *) g_ptr_array_index (ctx->param_names, i));
  g_set_error (error, PTI_ERROR, PTI_ERROR_USAGE,
               "-D %s: workload '%s' has no such parameter (its parameters: %s)",
               *(char **) unused->pdata, ctx->workload_name, names->len ? names->str : "none");
  return FALSE;
}

static char *
format_number (double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  return g_strdup (g_ascii_formatd (buf, sizeof buf, "%.15g", v));
}

/* Open the trace and write its header, once, at the first evaluation. */
static gboolean
open_trace (PtiContext *ctx, GError **error)
{
  if (ctx->trace_path == NULL || ctx->writer != NULL)
    return TRUE;
  g_autoptr (PtiTraceWriter) w = pti_trace_writer_open (ctx->trace_path, error);
  if (w == NULL)
    return FALSE;

  guint np = ctx->param_names->len;
  g_autofree PtiTraceParam *params = g_new0 (PtiTraceParam, np + 1);
  g_autoptr (GPtrArray) strings = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < np; i++) {
    params[i].name = g_ptr_array_index (ctx->param_names, i);
    char *v = format_number (pti_context_get_param (ctx, params[i].name));
    g_ptr_array_add (strings, v);
    params[i].value = v;
  }
  /* The instances in use: a model configured but not chosen (an HMC
   * element's other model, --use-model) is not in the trace. */
  const PtiSystem *sys = ctx->system;
  g_autoptr (GPtrArray) active = g_ptr_array_new ();
  for (guint i = 0; i < sys->computers->len; i++) {
    const PtiComputer *c = &g_array_index (sys->computers, PtiComputer, i);
    g_ptr_array_add (active, c->cpu);
    if (c->intra != NULL)
      g_ptr_array_add (active, c->intra);
  }
  for (guint i = 0; i < sys->networks->len; i++)
    g_ptr_array_add (active, g_array_index (sys->networks, PtiNetwork, i).model);
  GPtrArray *inst = sys->instances;
  g_autofree PtiTraceModel *models = g_new0 (PtiTraceModel, inst->len + 1);
  guint n_models = 0;
  g_autoptr (GArray) records = g_array_new (FALSE, TRUE, sizeof (PtiTraceRecordType));
  g_autoptr (GPtrArray) seen = g_ptr_array_new ();
  for (guint i = 0; i < inst->len; i++) {
    const PtiModelInstance *mi = g_ptr_array_index (inst, i);
    if (!g_ptr_array_find (active, mi, NULL))
      continue;
    models[n_models++] = (PtiTraceModel) { mi->desc->name, mi->owner };
    if (mi->desc->records == NULL || g_ptr_array_find (seen, mi->desc, NULL))
      continue;
    g_ptr_array_add (seen, (gpointer) mi->desc);
    for (const PtiTraceRecordDesc *r = mi->desc->records; r->name != NULL; r++) {
      PtiTraceRecordType t = { mi->desc->name, mi->desc->records_namespace, r->name, r->fields,
                               r->description };
      g_array_append_val (records, t);
    }
  }
  guint n = pti_engine_n_procs (ctx->engine);
  g_autofree PtiTraceProcess *procs = g_new0 (PtiTraceProcess, n);
  for (guint r = 0; r < n; r++) {
    char *where = pti_system_describe_processor (
      ctx->system, ctx->placement ? g_array_index (ctx->placement, guint, r) : r);
    g_ptr_array_add (strings, where);
    procs[r] = (PtiTraceProcess) { r, where };
  }
  g_autofree char *generator = g_strdup_printf ("pti %s", PTI_VERSION);
  PtiTraceHeader h = {
    .system_name = ctx->system->name,
    .system_file = ctx->system->path,
    .workload_name = ctx->workload_name,
    .workload_file = ctx->workload_file,
    .generator = generator,
    .params = params, .n_params = np,
    .models = models, .n_models = n_models,
    .records = (PtiTraceRecordType *) records->data, .n_records = records->len,
    .processes = procs, .n_processes = n,
  };
  if (!pti_trace_writer_header (w, &h, error))
    return FALSE;
  ctx->writer = g_steal_pointer (&w);
  return TRUE;
}

/* RUD names by id, for the trace: (transfer container). */
static const char **
rud_names (PtiContext *ctx)
{
  const char **names = g_new0 (const char *, ctx->ruds->len + 1);
  for (guint i = 0; i < ctx->ruds->len; i++)
    names[i] = ((PtiRud *) g_ptr_array_index (ctx->ruds, i))->name;
  return names;
}

gboolean
pti_evaluate (PtiContext *ctx, GError **error)
{
  g_return_val_if_fail (ctx != NULL, FALSE);
  if (ctx->evaluated) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "the workload was already evaluated");
    return FALSE;
  }
  if (!check_overrides_used (ctx, error))
    return FALSE;
  if (ctx->engine == NULL) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "workload '%s' declares no processes", ctx->workload_name);
    return FALSE;
  }
  if (!pti_coll_check_complete (ctx, error))
    return FALSE;
  ctx->evaluated = TRUE;
  g_autofree const char **names = rud_names (ctx);
  if (!open_trace (ctx, error))
    return FALSE;
  pti_engine_set_trace (ctx->engine, ctx->writer, names);
  if (!pti_engine_run (ctx->engine, TRUE, error))
    return FALSE;
  return ctx->writer == NULL
         || (pti_engine_write_events (ctx->engine, ctx->writer, names, error)
             && pti_trace_writer_commit (ctx->writer, error));
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

gboolean
pti_context_change_at_origin (PtiContext *ctx, double time, const char *target,
                              const char *element, const char *value, const char *origin,
                              GError **error)
{
  g_return_val_if_fail (ctx != NULL && target != NULL && element != NULL && value != NULL, FALSE);
  if (ctx->evaluated) {
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
  if (ctx->engine == NULL) {
    /* Checked by the model once the engine exists (pti_context_set_processes). */
    QueuedChange *q = g_new0 (QueuedChange, 1);
    *q = (QueuedChange) { time, g_strdup (target), g_strdup (element), g_strdup (value),
                          g_strdup (origin) };
    if (ctx->queued_changes == NULL)
      ctx->queued_changes = g_ptr_array_new_with_free_func (queued_change_free);
    g_ptr_array_add (ctx->queued_changes, q);
    return TRUE;
  }
  return pti_engine_add_change (ctx->engine, time, target, name, selector, value, origin, error);
}

gboolean
pti_context_change_at (PtiContext *ctx, double time, const char *target, const char *element,
                       const char *value, GError **error)
{
  return pti_context_change_at_origin (ctx, time, target, element, value,
                                       "pti_context_change_at", error);
}

gboolean
pti_evaluate_partial (PtiContext *ctx, GError **error)
{
  g_return_val_if_fail (ctx != NULL, FALSE);
  if (ctx->evaluated) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "the workload was already evaluated");
    return FALSE;
  }
  if (ctx->engine == NULL) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "partial evaluation: the processes are not set yet");
    return FALSE;
  }
  if (pti_engine_has_repetition (ctx->engine)) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "partial evaluation cannot be combined with analytical repetition "
                 "(pti_repeat_begin) in one workload yet");
    return FALSE;
  }
  ctx->appended = 0;
  g_autofree const char **names = rud_names (ctx);
  if (!open_trace (ctx, error))
    return FALSE;
  /* Models' records of this run go to the trace too. */
  pti_engine_set_trace (ctx->engine, ctx->writer, NULL);
  return pti_engine_run (ctx->engine, FALSE, error)
         && pti_engine_flush (ctx->engine, ctx->writer, names, error);
}

void
pti_context_set_pending_limit (PtiContext *ctx, guint64 events)
{
  g_return_if_fail (ctx != NULL);
  ctx->pending_limit = events;
}

/* Called after each event appended: the automatic partial evaluation
 * (suspended in a workload with repeated blocks). */
static inline gboolean
appended (PtiContext *ctx, gboolean ok, GError **error)
{
  if (G_LIKELY (!ok || ctx->pending_limit == 0 || ++ctx->appended < ctx->pending_limit)
      || pti_engine_has_repetition (ctx->engine))
    return ok;
  return pti_evaluate_partial (ctx, error);
}

void
pti_wsl_repetition_figures (const PtiContext *ctx, guint64 *evaluated, guint64 *extrapolated)
{
  *evaluated = *extrapolated = 0;
  if (ctx->engine != NULL)
    pti_engine_repetition_figures (ctx->engine, evaluated, extrapolated);
}

gboolean
pti_repeat_begin (PtiContext *ctx, guint rank, guint64 count, GError **error)
{
  return check_rank (ctx, "repeat", rank, error)
         && pti_engine_repeat_begin (ctx->engine, rank, count, error);
}

gboolean
pti_repeat_end (PtiContext *ctx, guint rank, GError **error)
{
  return check_rank (ctx, "repeat end", rank, error)
         && pti_engine_repeat_end (ctx->engine, rank, error);
}

double
pti_result_time (const PtiContext *ctx)
{
  return ctx->engine && ctx->evaluated ? pti_engine_predicted_time (ctx->engine) : NAN;
}

guint64
pti_result_events (const PtiContext *ctx)
{
  return ctx->engine ? pti_engine_n_events (ctx->engine) : 0;
}

gboolean
pti_result_process (const PtiContext *ctx, guint rank, PtiProcessResult *out)
{
  if (ctx->engine == NULL || !ctx->evaluated || rank >= pti_engine_n_procs (ctx->engine))
    return FALSE;
  PtiTraceProcessSummary s;
  pti_engine_process_summary (ctx->engine, rank, &s);
  *out = (PtiProcessResult) { .end = s.end, .compute = s.compute, .comm = s.comm,
                              .wait = s.wait, .events = s.events };
  return TRUE;
}

gboolean
pti_wsl_set_progress (PtiContext *ctx, PtiProgressFunc func, gpointer data, guint64 every)
{
  g_clear_pointer (&ctx->progress, g_free);
  every = MAX (every, 1);
  if (func != NULL) {
    ctx->progress = g_new0 (WslProgress, 1);
    *ctx->progress = (WslProgress) { func, data, every, every };
  }
  if (ctx->engine != NULL)
    pti_engine_set_progress (ctx->engine, func, data, every);
  return TRUE;
}

const char *
pti_wsl_system_name (const PtiContext *ctx)
{
  return ctx->system->name;
}

/* ---- for communicators and collectives (comm.c, collectives.c) ----------- */

PtiEngine *
pti_wsl_engine (PtiContext *ctx)
{
  return ctx->engine;
}

const PtiSystem *
pti_wsl_system (const PtiContext *ctx)
{
  return ctx->system;
}

PtiCollState **
pti_wsl_coll_state (PtiContext *ctx)
{
  return &ctx->coll;
}

gboolean
pti_wsl_appended (PtiContext *ctx, gboolean ok, GError **error)
{
  return appended (ctx, ok, error);
}
