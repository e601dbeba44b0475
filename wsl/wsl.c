/* The workload specification library: a thin, checked facade over the
 * session (engine/session.h).  Every user mistake becomes a GError naming
 * the rank, RUD or parameter; valid calls go straight to the session.  The
 * per-use path does no parsing and no allocation beyond the windows'
 * amortised growth.
 *
 * Messages, the world's and every communicator's, user traffic and the
 * traffic collectives expand into, take one path into the engine:
 * pti_wsl_message (comm.c). */
#include "pti-config.h"
#include "wsl-private.h"
#include "coll-private.h"

#include "xml.h"

#include <math.h>
#include <string.h>

PtiContext *
pti_context_new (const char *system_path, const char *model_path, GError **error)
{
  return pti_context_new_with_models (system_path, model_path, NULL, error);
}

PtiContext *
pti_context_new_with_models (const char *system_path, const char *model_path,
                             const char *const *uses, GError **error)
{
  return pti_context_new_ranged (system_path, model_path, uses, NULL, error);
}

PtiContext *
pti_context_new_ranged (const char *system_path, const char *model_path,
                        const char *const *uses, PtiRanges *ranges, GError **error)
{
  g_return_val_if_fail (system_path != NULL, NULL);
  PtiSession *session = pti_session_new_ranged (system_path, model_path, uses, ranges, error);
  if (session == NULL)
    return NULL;
  PtiContext *ctx = g_new0 (PtiContext, 1);
  ctx->session = session;
  ctx->pull_rank = G_MAXUINT;
  return ctx;
}

void
pti_context_free (PtiContext *ctx)
{
  if (ctx == NULL)
    return;
  if (ctx->source_destroy != NULL)
    ctx->source_destroy (ctx->source_data);
  pti_coll_state_free (ctx->coll);   /* before the RUDs' models and symbols */
  if (ctx->terms != NULL)
    g_ptr_array_unref (ctx->terms);
  if (ctx->io_files != NULL)
    g_ptr_array_unref (ctx->io_files);
  g_clear_pointer (&ctx->io_names, g_hash_table_unref);
  pti_session_free (ctx->session);
  pti_changes_stream_free (ctx->stream);
  g_free (ctx);
}

void
pti_context_set_workload (PtiContext *ctx, const char *name, const char *file)
{
  g_return_if_fail (ctx != NULL && name != NULL);
  pti_session_set_workload (ctx->session, name, file);
}

gboolean
pti_context_set_processes (PtiContext *ctx, guint n, GError **error)
{
  g_return_val_if_fail (ctx != NULL, FALSE);
  if (!pti_session_set_processes (ctx->session, n, error))
    return FALSE;
  ctx->n_procs = n;
  return TRUE;
}

gboolean
pti_context_set_placement (PtiContext *ctx, PtiPlacement placement, GError **error)
{
  g_return_val_if_fail (ctx != NULL, FALSE);
  return pti_session_set_placement (ctx->session, placement == PTI_PLACEMENT_CYCLIC
                                                    ? PTI_SESSION_PLACE_CYCLIC
                                                    : PTI_SESSION_PLACE_BLOCK, error);
}

gboolean
pti_context_set_placement_map (PtiContext *ctx, guint n, const guint *processors, GError **error)
{
  g_return_val_if_fail (ctx != NULL && (n == 0 || processors != NULL), FALSE);
  return pti_session_set_placement_map (ctx->session, n, processors, error);
}

guint
pti_context_get_processes (const PtiContext *ctx)
{
  return ctx->n_procs;
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
                 name && g_utf8_validate (name, -1, NULL) ? name : "(not text)");
  return ok;
}

gboolean
pti_context_override_param (PtiContext *ctx, const char *name, const char *value, GError **error)
{
  g_return_val_if_fail (ctx != NULL && value != NULL, FALSE);
  return check_param_name (name, error)
         && pti_text_check (value, -1, PTI_WSL_TEXT_MAX, "the value", error)
         && pti_session_override_param (ctx->session, name, value, error);
}

gboolean
pti_context_declare_param (PtiContext *ctx, const char *name, double default_value, GError **error)
{
  g_return_val_if_fail (ctx != NULL, FALSE);
  return check_param_name (name, error)
         && pti_session_declare_param (ctx->session, name, default_value, error);
}

gboolean
pti_context_declare_param_range_at (PtiContext *ctx, const char *name, double low,
                                    double nominal, double high, const char *origin,
                                    GError **error)
{
  g_return_val_if_fail (ctx != NULL, FALSE);
  return check_param_name (name, error)
         && pti_session_declare_param_range (ctx->session, name, low, nominal, high, origin,
                                             error);
}

gboolean
pti_context_declare_param_range (PtiContext *ctx, const char *name, double low, double nominal,
                                 double high, GError **error)
{
  return pti_context_declare_param_range_at (ctx, name, low, nominal, high, NULL, error);
}

double
pti_context_get_param (const PtiContext *ctx, const char *name)
{
  guint slot;
  PtiSymbols *symbols = pti_session_symbols (ctx->session);
  if (!pti_symbols_lookup (symbols, name, &slot))
    return NAN;
  return pti_symbols_get (symbols, slot);
}

gboolean
pti_context_set_param (PtiContext *ctx, const char *name, double value, GError **error)
{
  g_return_val_if_fail (ctx != NULL, FALSE);
  if (!check_param_name (name, error))
    return FALSE;
  PtiSymbols *symbols = pti_session_symbols (ctx->session);
  pti_symbols_set (symbols, pti_symbols_intern (symbols, name), value);
  return TRUE;
}

PtiSymbols *
pti_context_get_symbols (PtiContext *ctx)
{
  return pti_session_symbols (ctx->session);
}

/* ---- RUDs ------------------------------------------------------------------ */

PtiRud *
pti_rud_new_from_node (PtiContext *ctx, const char *name, const xmlNode *node, GError **error)
{
  g_return_val_if_fail (ctx != NULL && node != NULL, NULL);
  return pti_session_rud_new (ctx->session, name, node, error);
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
  return pti_session_rud_ref (rud);
}

void
pti_rud_unref (PtiRud *rud)
{
  pti_session_rud_unref (rud);
}

const char *
pti_rud_get_device (const PtiRud *rud)
{
  return pti_session_rud_device (rud);
}

/* ---- checks ------------------------------------------------------------------- */

gboolean
pti_wsl_check_rank_slow (PtiContext *ctx, const char *what, guint rank, GError **error)
{
  guint n = ctx->n_procs;
  if (n == 0) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "%s: the processes are not set yet (call pti_context_set_processes first)", what);
    return FALSE;
  }
  if (ctx->evaluated && ctx->pull_rank == G_MAXUINT) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s: the workload was already evaluated", what);
    return FALSE;
  }
  if (rank >= n) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "%s: rank %u out of range (%u processes: ranks 0 to %u)", what, rank, n, n - 1);
    return FALSE;
  }
  if (ctx->pull_rank != G_MAXUINT && rank != ctx->pull_rank) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "%s: rank %u's device use while the evaluation asked for rank %u's (a "
                 "workload source appends for the rank it is asked for only)", what, rank,
                 ctx->pull_rank);
    return FALSE;
  }
  if (ctx->progress)
    pti_session_tick (ctx->session);
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

void
pti_wsl_hint_unbound (PtiContext *ctx, guint slot, gboolean workload_file, GError **error)
{
  PtiSymbols *symbols = pti_session_symbols (ctx->session);
  if (error == NULL || *error == NULL || slot >= pti_symbols_count (symbols))
    return;
  const char *name = pti_symbols_name (symbols, slot);
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
  /* Bound names a typing mistake away. */
  guint n = pti_symbols_count (symbols);
  g_autofree const char **bound = g_new0 (const char *, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    if (i != slot && !isnan (pti_symbols_get (symbols, i)))
      bound[i] = pti_symbols_name (symbols, i);
  g_autofree char *near = pti_nearest_names (name, bound, n);
  if (near != NULL)
    g_string_append_printf (hint, " (did you mean: %s?)", near);
  append_hint (error, hint->str);
}

/* ---- device uses -------------------------------------------------------------- */

gboolean
pti_use (PtiContext *ctx, guint rank, PtiRud *rud, GError **error)
{
  guint unbound = G_MAXUINT;
  if (pti_wsl_use (ctx, rank, rud, &unbound, error))
    return TRUE;
  pti_wsl_hint_unbound (ctx, unbound, FALSE, error);
  return FALSE;
}

PtiModelChoice
pti_context_model_choice (PtiContext *ctx, const char *name, GError **error)
{
  g_return_val_if_fail (ctx != NULL, PTI_MODEL_CHOICE_INVALID);
  if (name != NULL && !pti_text_check (name, -1, PTI_WSL_TEXT_MAX, "model name", error))
    return PTI_MODEL_CHOICE_INVALID;
  return pti_session_model_choice (ctx->session, name, error);
}

gboolean
pti_use_model (PtiContext *ctx, guint rank, PtiRud *rud, PtiModelChoice model, GError **error)
{
  guint unbound = G_MAXUINT;
  if (pti_wsl_use_on (ctx, rank, rud, model, &unbound, error))
    return TRUE;
  pti_wsl_hint_unbound (ctx, unbound, FALSE, error);
  return FALSE;
}

gboolean
pti_wsl_use (PtiContext *ctx, guint rank, PtiRud *rud, guint *unbound, GError **error)
{
  return pti_wsl_use_on (ctx, rank, rud, PTI_MODEL_DEFAULT, unbound, error);
}

gboolean
pti_wsl_use_on (PtiContext *ctx, guint rank, PtiRud *rud, PtiModelChoice model, guint *unbound,
                GError **error)
{
  g_return_val_if_fail (ctx != NULL && rud != NULL, FALSE);
  if (!pti_wsl_check_rank (ctx, "use", rank, error))
    return FALSE;
  if (G_UNLIKELY (pti_session_rud_session (rud) != ctx->session)) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "rank %u: RUD '%s' was made by another context", rank,
                 pti_session_rud_name (rud));
    return FALSE;
  }
  if (G_UNLIKELY (model == PTI_MODEL_CHOICE_INVALID)) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "rank %u: not a model choice (pti_context_model_choice failed)", rank);
    return FALSE;
  }
  return pti_session_use_on (ctx->session, rank, rud, model, unbound, error)
         && pti_wsl_appended (ctx, error);
}

/* pti_use_time, pti_use_flops and sleeps: priced by the CPU model's
 * time_cost or flops_cost (HMI CPU ops version 2), never through a RUD. */
static gboolean
use_burst (PtiContext *ctx, guint rank, double amount, PtiSessionBurst kind, GError **error)
{
  static const char *const what[] = { "use_time", "use_flops", "sleep", "comm_setup",
                                      "mpi_setup" };
  G_STATIC_ASSERT (G_N_ELEMENTS (what) == PTI_SESSION_BURST_N);
  if (!pti_wsl_check_rank (ctx, what[kind], rank, error))
    return FALSE;
  if (G_UNLIKELY (!(isfinite (amount) && amount >= 0))) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "%s on rank %u: %g is not a %s (a finite number >= 0)", what[kind], rank, amount,
                 kind == PTI_SESSION_BURST_FLOPS ? "number of floating-point operations"
                                                 : "time in seconds");
    return FALSE;
  }
  return pti_session_use_burst (ctx->session, rank, kind, amount, error)
         && pti_wsl_appended (ctx, error);
}

gboolean
pti_wsl_sleep (PtiContext *ctx, guint rank, double seconds, GError **error)
{
  return use_burst (ctx, rank, seconds, PTI_SESSION_BURST_SLEEP, error);
}

gboolean
pti_wsl_comm_setup_time (PtiContext *ctx, guint rank, double seconds, GError **error)
{
  return use_burst (ctx, rank, seconds, PTI_SESSION_BURST_COMM_SETUP, error);
}

gboolean
pti_wsl_mpi_setup_time (PtiContext *ctx, guint rank, double seconds, GError **error)
{
  return use_burst (ctx, rank, seconds, PTI_SESSION_BURST_MPI_SETUP, error);
}

gboolean
pti_use_time (PtiContext *ctx, guint rank, double seconds, GError **error)
{
  g_return_val_if_fail (ctx != NULL, FALSE);
  return use_burst (ctx, rank, seconds, PTI_SESSION_BURST_TIME, error);
}

gboolean
pti_use_flops (PtiContext *ctx, guint rank, double flops, GError **error)
{
  g_return_val_if_fail (ctx != NULL, FALSE);
  return use_burst (ctx, rank, flops, PTI_SESSION_BURST_FLOPS, error);
}

gboolean
pti_use_xml (PtiContext *ctx, guint rank, const char *xml, GError **error)
{
  g_autoptr (PtiRud) rud = pti_rud_new (ctx, NULL, xml, error);
  return rud != NULL && pti_use (ctx, rank, rud, error);
}

/* ---- waits ----------------------------------------------------------------------- */

static gboolean
add_wait (PtiContext *ctx, const char *what, PtiOpKind kind, guint rank, guint n,
          const PtiRequest *requests, GError **error)
{
  if (!pti_wsl_check_rank (ctx, what, rank, error))
    return FALSE;
  /* Requests that are not the engine's: complete ones, non-blocking
   * collectives (nbc.c). */
  if (G_UNLIKELY (pti_nbc_special (ctx, rank, n, requests)))
    return pti_nbc_wait (ctx, what, rank, n, requests, kind == PTI_OP_WAITANY, error);
  G_STATIC_ASSERT (sizeof (PtiRequest) == sizeof (guint32));
  if (!pti_engine_add_wait (pti_session_engine (ctx->session), kind, rank, n,
                            (const guint32 *) requests, error)) {
    g_prefix_error (error, "%s: ", what);
    return FALSE;
  }
  return pti_wsl_appended (ctx, error);
}

gboolean
pti_mpi_wait (PtiContext *ctx, guint rank, PtiRequest request, GError **error)
{
  return add_wait (ctx, "wait", PTI_OP_WAIT, rank, 1, &request, error);
}

gboolean
pti_mpi_waitall (PtiContext *ctx, guint rank, guint n, const PtiRequest *requests, GError **error)
{
  return add_wait (ctx, "waitall", PTI_OP_WAITALL, rank, n, requests, error);
}

gboolean
pti_mpi_waitany (PtiContext *ctx, guint rank, guint n, const PtiRequest *requests, GError **error)
{
  return add_wait (ctx, "waitany", PTI_OP_WAITANY, rank, n, requests, error);
}

/* ---- evaluation ---------------------------------------------------------------- */

void
pti_context_set_trace (PtiContext *ctx, const char *path)
{
  pti_session_set_trace (ctx->session, path);
}

/* The engine asks for @rank's next operations: the user's source appends
 * them through the usual calls, which check that they are @rank's. */
static gboolean
pull_rank (gpointer data, guint rank, GError **error)
{
  PtiContext *ctx = data;
  gboolean done = FALSE;
  ctx->pull_rank = rank;
  pti_session_set_pulling (ctx->session, TRUE);
  gboolean ok = ctx->source (ctx, rank, ctx->source_data, &done, error);
  pti_session_set_pulling (ctx->session, FALSE);
  ctx->pull_rank = G_MAXUINT;
  if (ok && done)
    pti_engine_source_done (pti_session_engine (ctx->session), rank);
  return ok;
}

static void
skip_repetitions (gpointer data, guint rank, guint64 n)
{
  PtiContext *ctx = data;
  if (ctx->skip != NULL)
    ctx->skip (ctx, rank, ctx->source_data, n);
}

gboolean
pti_wsl_set_source (PtiContext *ctx, PtiRankPullFunc pull, PtiWslSkipFunc skip, gpointer data,
                    GDestroyNotify destroy, GError **error)
{
  g_return_val_if_fail (ctx != NULL && pull != NULL, FALSE);
  if (pti_session_n_procs (ctx->session) == 0) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "a workload source needs the processes set first (pti_context_set_processes)");
    return FALSE;
  }
  if (ctx->source != NULL || pti_session_n_events (ctx->session) > 0) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "a workload has one source, and no device use may come before it");
    return FALSE;
  }
  ctx->source = pull;
  ctx->skip = skip;
  ctx->source_data = data;
  ctx->source_destroy = destroy;
  PtiEngineSource src = { .pull = pull_rank, .skip = skip ? skip_repetitions : NULL,
                          .data = ctx };
  pti_session_set_source (ctx->session, &src);
  return TRUE;
}

gboolean
pti_context_set_source (PtiContext *ctx, PtiRankPullFunc pull, gpointer data,
                        GDestroyNotify destroy, GError **error)
{
  return pti_wsl_set_source (ctx, pull, NULL, data, destroy, error);
}

gboolean
pti_evaluate (PtiContext *ctx, GError **error)
{
  g_return_val_if_fail (ctx != NULL, FALSE);
  if (pti_session_evaluated (ctx->session)) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "the workload was already evaluated");
    return FALSE;
  }
  if (!pti_session_check_overrides_used (ctx->session, error))
    return FALSE;
  if (pti_session_n_procs (ctx->session) > 0 && ctx->source == NULL
      && !pti_coll_check_complete (ctx, error))
    return FALSE;
  GError *local = NULL;
  ctx->evaluated = TRUE;
  if (!pti_session_evaluate (ctx->session, &local)) {
    /* Ranks blocked in a collective that a finished rank never made: that
     * call is the mistake, not the deadlock it causes. */
    if (g_error_matches (local, PTI_ERROR, PTI_ERROR_DEADLOCK) && ctx->source != NULL
        && !pti_coll_check_complete (ctx, error)) {
      g_error_free (local);
      return FALSE;
    }
    g_propagate_error (error, local);
    return FALSE;
  }
  /* A source's collectives are checked as they come; at the end, that none
   * is left half made. */
  return ctx->source == NULL || pti_coll_check_complete (ctx, error);
}

gboolean
pti_context_change_at_origin (PtiContext *ctx, double time, const char *target,
                              const char *element, const char *value, const char *origin,
                              GError **error)
{
  g_return_val_if_fail (ctx != NULL && target != NULL && element != NULL && value != NULL, FALSE);
  /* Models match the parts with GLib's patterns, which abort on bytes that
   * are not UTF-8: the text is checked here, where it enters. */
  static const char *const fields[] = { "the target", "the element", "the value" };
  const char *texts[] = { target, element, value };
  for (guint i = 0; i < G_N_ELEMENTS (texts); i++) {
    g_autofree char *what = g_strdup_printf ("%s: %s", origin, fields[i]);
    if (!pti_text_check (texts[i], -1, PTI_WSL_TEXT_MAX, what, error))
      return FALSE;
  }
  return pti_session_change_at (ctx->session, time, target, element, value, origin, error);
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
  return pti_session_evaluate_partial (ctx->session, error);
}

void
pti_context_set_pending_limit (PtiContext *ctx, guint64 events)
{
  g_return_if_fail (ctx != NULL);
  /* Partial evaluation is automatic; a limit runs it at a fixed pace. */
  pti_session_set_pending_limit (ctx->session, events);
}

void
pti_wsl_repetition_figures (const PtiContext *ctx, guint64 *evaluated, guint64 *extrapolated)
{
  pti_session_repetition_figures (ctx->session, evaluated, extrapolated);
}

gboolean
pti_repeat_begin (PtiContext *ctx, guint rank, guint64 count, GError **error)
{
  return pti_wsl_check_rank (ctx, "repeat", rank, error)
         && pti_engine_repeat_begin (pti_session_engine (ctx->session), rank, count,
                                     !ctx->regenerating, error);
}

gboolean
pti_repeat_end (PtiContext *ctx, guint rank, GError **error)
{
  return pti_wsl_check_rank (ctx, "repeat end", rank, error)
         && pti_engine_repeat_end (pti_session_engine (ctx->session), rank, error);
}

/* ---- phases and assertions ------------------------------------------------- */

/* A phase's name is read in assertion tests (PHASE_time): an identifier. */
static gboolean
check_phase_name (const char *name, guint rank, GError **error)
{
  gboolean ok = name != NULL && (g_ascii_isalpha (name[0]) || name[0] == '_')
                && strlen (name) <= 100;
  for (const char *c = name; ok && *c; c++)
    ok = g_ascii_isalnum (*c) || *c == '_';
  if (!ok)
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "rank %u: phase name '%s' is not an identifier ([A-Za-z_][A-Za-z0-9_]*, at most "
                 "100 characters): assertions name it in expressions such as NAME_time", rank,
                 name != NULL && g_utf8_validate (name, -1, NULL) ? name : "(not UTF-8)");
  return ok;
}

gboolean
pti_phase_begin (PtiContext *ctx, guint rank, const char *name, GError **error)
{
  if (!pti_wsl_check_rank (ctx, "phase", rank, error) || !check_phase_name (name, rank, error))
    return FALSE;
  PtiEngine *e = pti_session_engine (ctx->session);
  pti_engine_add_phase_begin (e, rank, pti_engine_phase_intern (e, name));
  return TRUE;
}

gboolean
pti_phase_end (PtiContext *ctx, guint rank, const char *name, GError **error)
{
  if (!pti_wsl_check_rank (ctx, "phase end", rank, error) || !check_phase_name (name, rank, error))
    return FALSE;
  PtiEngine *e = pti_session_engine (ctx->session);
  guint phase;
  if (!pti_engine_phase_lookup (e, name, &phase)) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "rank %u: pti_phase_end '%s': no phase of that name was begun", rank, name);
    return FALSE;
  }
  return pti_engine_add_phase_end (e, rank, phase, error);
}

gboolean
pti_assert (PtiContext *ctx, const char *name, const char *test, GError **error)
{
  g_return_val_if_fail (ctx != NULL, FALSE);
  return pti_session_assert (ctx->session, name, test, NULL, error);
}

gboolean
pti_wsl_assert_at (PtiContext *ctx, const char *name, const char *test, const char *origin,
                   GError **error)
{
  return pti_session_assert (ctx->session, name, test, origin, error);
}

guint
pti_result_n_assertions (const PtiContext *ctx)
{
  return pti_assertions_count (pti_session_assertions (ctx->session));
}

gboolean
pti_result_assertion (const PtiContext *ctx, guint index, PtiAssertionResult *out)
{
  const PtiAssertionOutcome *o = pti_assertions_outcome (pti_session_assertions (ctx->session),
                                                         index);
  if (o == NULL || !pti_session_evaluated (ctx->session))
    return FALSE;
  *out = (PtiAssertionResult) {
    .name = o->name, .test = o->test, .origin = o->origin, .passed = o->passed,
    .n_values = o->n_values, .value_names = o->value_names, .values = o->values,
  };
  return TRUE;
}

guint
pti_result_assertions_failed (const PtiContext *ctx)
{
  return pti_assertions_failed (pti_session_assertions (ctx->session));
}

guint
pti_result_n_phases (const PtiContext *ctx)
{
  PtiEngine *e = pti_session_engine (ctx->session);
  return e != NULL ? pti_engine_n_phases (e) : 0;
}

const char *
pti_result_phase_name (const PtiContext *ctx, guint phase)
{
  PtiEngine *e = pti_session_engine (ctx->session);
  return e != NULL && phase < pti_engine_n_phases (e) ? pti_engine_phase_name (e, phase) : NULL;
}

gboolean
pti_result_phase (const PtiContext *ctx, guint phase, guint rank, PtiPhaseResult *out)
{
  PtiEngine *e = pti_session_engine (ctx->session);
  PtiPhaseFigures f;
  if (e == NULL || !pti_session_evaluated (ctx->session)
      || !pti_engine_phase_figures (e, phase, rank, &f))
    return FALSE;
  *out = (PtiPhaseResult) { .time = f.time, .compute = f.compute, .comm = f.comm, .wait = f.wait,
                            .messages = f.messages, .bytes = f.bytes, .entries = f.entries };
  return TRUE;
}

double
pti_result_time (const PtiContext *ctx)
{
  return pti_session_predicted_time (ctx->session);
}

double
pti_result_efficiency (const PtiContext *ctx)
{
  return pti_session_efficiency (ctx->session);
}

guint64
pti_result_events (const PtiContext *ctx)
{
  return pti_session_n_events (ctx->session);
}

gboolean
pti_result_process (const PtiContext *ctx, guint rank, PtiProcessResult *out)
{
  PtiTraceProcessSummary s;
  if (!pti_session_process_result (ctx->session, rank, &s))
    return FALSE;
  *out = (PtiProcessResult) { .end = s.end, .compute = s.compute, .comm = s.comm,
                              .wait = s.wait, .events = s.events };
  return TRUE;
}

double
pti_result_io (const PtiContext *ctx, guint rank)
{
  PtiTraceProcessSummary s;
  return pti_session_process_result (ctx->session, rank, &s) ? s.io : NAN;
}

gboolean
pti_wsl_set_progress (PtiContext *ctx, PtiProgressFunc func, gpointer data, guint64 every)
{
  ctx->progress = func != NULL;
  pti_session_set_progress (ctx->session, func, data, MAX (every, 1));
  return TRUE;
}

const char *
pti_wsl_system_name (const PtiContext *ctx)
{
  return pti_system_name (pti_session_system (ctx->session));
}

const char *
pti_wsl_workload_name (const PtiContext *ctx)
{
  return pti_session_workload_name (ctx->session);
}

PtiSession *
pti_wsl_session (PtiContext *ctx)
{
  return ctx->session;
}

guint64
pti_wsl_rank_appended (PtiContext *ctx, guint rank)
{
  return pti_engine_rank_appended (pti_session_engine (ctx->session), rank);
}

/* ---- modelling assertions (seed 004) --------------------------------------- */

static void
term_free (gpointer p)
{
  PtiWslTerm *t = p;
  g_free (t->phase);
  g_free (t->name);
  g_free (t->value);
  g_free (t->origin);
  g_free (t);
}

const GPtrArray *
pti_wsl_terms (const PtiContext *ctx)
{
  return ctx->terms;
}

gboolean
pti_wsl_term_add (PtiContext *ctx, const char *phase, const char *name, const char *value,
                  double bound, const char *origin, GError **error)
{
  if (ctx->terms == NULL)
    ctx->terms = g_ptr_array_new_with_free_func (term_free);
  for (guint i = 0; i < ctx->terms->len; i++) {
    const PtiWslTerm *t = g_ptr_array_index (ctx->terms, i);
    if (strcmp (t->phase, phase) == 0 && strcmp (t->name, name) == 0) {
      g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                   "%s: term %s of phase %s is stated twice (first at %s)", origin, name, phase,
                   t->origin);
      return FALSE;
    }
  }
  /* compiled now for its syntax; evaluated per rank by the validator */
  g_autoptr (GError) err = NULL;
  g_autoptr (PtiExpr) e = pti_expr_compile (value, pti_context_get_symbols (ctx), &err);
  if (e == NULL) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s: <term name=\"%s\">: %s", origin, name,
                 err->message);
    return FALSE;
  }
  PtiWslTerm *t = g_new0 (PtiWslTerm, 1);
  t->phase = g_strdup (phase);
  t->name = g_strdup (name);
  t->value = g_strdup (value);
  t->bound = bound;
  t->origin = g_strdup (origin);
  g_ptr_array_add (ctx->terms, t);
  return TRUE;
}
