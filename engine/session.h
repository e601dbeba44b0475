/* The session: the one object that evaluates a workload on a system.
 *
 * It owns the model registry, the system (HMC), the engine core, the RUD
 * table with stage-1 pricing and its cache, the workload's parameters, the
 * trace (header and writer) and the results.  The WSL (wsl/) is a checked
 * facade over it: the WSL validates what a workload author gives and names
 * the mistakes; the session assumes valid arguments (ranks in range, tags
 * legal) and does the work.
 *
 * Internal to libpti.  Dependencies point down: WSL -> session -> engine
 * core -> HMI; the trace is written through the session's sink. */
#pragma once

#include <pti/hmi.h>
#include "engine.h"
#include "system.h"
#include "assertions.h"

G_BEGIN_DECLS

typedef struct _PtiSession PtiSession;
/* A compiled RUD (the WSL's public PtiRud): per CPU model in the system,
 * its compiled form and the last price it got. */
typedef struct _PtiRud PtiRud;

/* ---- lifetime ---------------------------------------------------------- */

/* Load the registry (@model_path: extra model directories, may be NULL) and
 * the system file, with @uses ("OWNER=MODEL", NULL-terminated, may be NULL)
 * choosing models over the file's `model` attributes.  (transfer full) */
PtiSession *pti_session_new (const char *system_path, const char *model_path,
                             const char *const *uses, GError **error);
/* pti_session_new(), every range of the system and of the workload's
 * parameters taking the end @ranges chose and recorded there
 * (hmi/ranges-private.h); @ranges (borrowed, may be NULL) must outlive the
 * session. */
typedef struct _PtiRanges PtiRanges;
PtiSession *pti_session_new_ranged (const char *system_path, const char *model_path,
                                    const char *const *uses, PtiRanges *ranges, GError **error);
void pti_session_free (PtiSession *s);

const PtiSystem *pti_session_system (const PtiSession *s);
void pti_session_set_workload (PtiSession *s, const char *name, const char *file);
const char *pti_session_workload_name (const PtiSession *s);

/* ---- parameters ---------------------------------------------------------- */

PtiSymbols *pti_session_symbols (PtiSession *s);
/* -D NAME=VALUE: applied when the workload declares NAME. */
gboolean pti_session_override_param (PtiSession *s, const char *name, const char *value,
                                     GError **error);
gboolean pti_session_declare_param (PtiSession *s, const char *name, double default_value,
                                    GError **error);
/* A parameter whose value is a range: @low <= @nominal <= @high, stated at
 * @origin ("FILE:LINE: <param>", for errors and reports).  It takes the end
 * the session's ranges chose; a -D value replaces the range (a -D range
 * too). */
gboolean pti_session_declare_param_range (PtiSession *s, const char *name, double low,
                                          double nominal, double high, const char *origin,
                                          GError **error);
/* -D names the workload never declared: an error naming them. */
gboolean pti_session_check_overrides_used (PtiSession *s, GError **error);

/* ---- processes ------------------------------------------------------------ */

typedef enum {
  PTI_SESSION_PLACE_BLOCK,
  PTI_SESSION_PLACE_CYCLIC,
} PtiSessionPlacement;

gboolean pti_session_set_placement (PtiSession *s, PtiSessionPlacement kind, GError **error);
gboolean pti_session_set_placement_map (PtiSession *s, guint n, const guint *processors,
                                        GError **error);
/* Creates the engine for @n processes. */
gboolean pti_session_set_processes (PtiSession *s, guint n, GError **error);
/* 0 before set. */
guint pti_session_n_procs (const PtiSession *s);
/* The engine, once the processes are set (NULL before). */
PtiEngine *pti_session_engine (PtiSession *s);
/* The processor @rank is placed on. */
guint pti_session_processor_of (const PtiSession *s, guint rank);

/* ---- RUDs and stage 1 ------------------------------------------------------ */

/* Compile a `<rud device="cpu">` element for every CPU model of the system
 * (the element is read during the call only).  (transfer full) */
PtiRud *pti_session_rud_new (PtiSession *s, const char *name, const xmlNode *rud,
                             GError **error);
PtiRud *pti_session_rud_ref (PtiRud *rud);
void pti_session_rud_unref (PtiRud *rud);
const char *pti_session_rud_name (const PtiRud *rud);
const char *pti_session_rud_device (const PtiRud *rud);
/* The session that made @rud. */
const PtiSession *pti_session_rud_session (const PtiRud *rud);
/* Price @rud on @rank's CPU with the parameters bound now (stage 1) and
 * append the computation.  On failure, @unbound is the slot of the unbound
 * parameter the price read, or G_MAXUINT. */
gboolean pti_session_use (PtiSession *s, guint rank, PtiRud *rud, guint *unbound,
                          GError **error);
/* A model choice's number for @name (a configuration or model name; checked
 * for syntax here, against each computer or network where it is used),
 * given once at load or build time; G_MAXUINT with @error. */
guint pti_session_model_choice (PtiSession *s, const char *name, GError **error);
/* pti_session_use priced by model choice @choice (0: the default) of
 * @rank's computer; an error names the rank and what the computer
 * configures if it has no such configuration.  The price cache keys on the
 * configuration (instance) too. */
gboolean pti_session_use_on (PtiSession *s, guint rank, PtiRud *rud, guint choice,
                             guint *unbound, GError **error);
/* Messages of communicator @id go by model choice @choice (engine.h,
 * pti_engine_set_comm_model); the processes must be set. */
gboolean pti_session_comm_set_model (PtiSession *s, guint id, guint choice, guint n,
                                     const guint *members, GError **error);
/* A computation given by a number rather than a RUD (replayed traces):
 * priced by @rank's CPU model's time_cost or flops_cost (HMI CPU ops
 * version 2; an error naming a model that can if it cannot), or a fixed
 * time of @amount s (a sleep; the MPI library's set-up of a communicator;
 * its own local time in a call beyond the call's messages: a collective
 * function's first call, a communicator freed; wsl/COLLECTIVES.md), and
 * appended.  The trace names it "time", "flops", "sleep", "comm_setup" or
 * "mpi_setup".  @amount is checked by the caller (finite, >= 0). */
typedef enum {
  PTI_SESSION_BURST_TIME,
  PTI_SESSION_BURST_FLOPS,
  PTI_SESSION_BURST_SLEEP,
  PTI_SESSION_BURST_COMM_SETUP,
  PTI_SESSION_BURST_MPI_SETUP,
  PTI_SESSION_BURST_N
} PtiSessionBurst;
gboolean pti_session_use_burst (PtiSession *s, guint rank, PtiSessionBurst kind, double amount,
                                GError **error);

/* ---- progress and automatic partial evaluation ------------------------------ */

/* Called by the WSL after each event appended in push form: runs a partial
 * evaluation now and then, so that a workload pushed phase by phase across
 * ranks is held only a phase at a time (no setting: the threshold grows
 * when a run could resolve little).  FALSE if that evaluation failed. */
gboolean pti_session_appended (PtiSession *s, GError **error);
/* pti_context_set_pending_limit: a partial evaluation (and a trace chunk)
 * after every @events events appended; 0 for the automatic rule. */
void pti_session_set_pending_limit (PtiSession *s, guint64 events);
/* A pull source is appending (the evaluation asked): no partial run. */
void pti_session_set_pulling (PtiSession *s, gboolean pulling);

void pti_session_set_progress (PtiSession *s, PtiProgressFunc func, gpointer data,
                               guint64 every);
/* Counts one appended use for build-time progress reports. */
void pti_session_tick (PtiSession *s);

/* ---- changes -------------------------------------------------------------- */

/* pti_context_change_at with @origin naming the change in errors.  Queued
 * until the processes are set, then checked by the model. */
gboolean pti_session_change_at (PtiSession *s, double time, const char *target,
                                const char *element, const char *value, const char *origin,
                                GError **error);

/* A live change stream (engine.h, PtiEngineFeed): given to the engine now
 * or when the processes are set. */
void pti_session_set_feed (PtiSession *s, const PtiEngineFeed *feed);

/* ---- evaluation ------------------------------------------------------------- */

void pti_session_set_trace (PtiSession *s, const char *path);
void pti_session_set_source (PtiSession *s, const PtiEngineSource *source);
/* The whole evaluation: every operation resolved (pulling from the source
 * if one is set), the results computed, the trace committed. */
gboolean pti_session_evaluate (PtiSession *s, GError **error);
/* A partial evaluation (pti_evaluate_partial). */
gboolean pti_session_evaluate_partial (PtiSession *s, GError **error);
gboolean pti_session_evaluated (const PtiSession *s);

/* ---- assertions -------------------------------------------------------------- */

/* States a performance assertion (assertions.h): @test compiled now, names
 * bound in the session's symbols now read as parameters; checked by
 * pti_session_evaluate once the evaluation is done. */
gboolean pti_session_assert (PtiSession *s, const char *name, const char *test,
                             const char *origin, GError **error);
/* The outcomes once evaluated (pti_assertions_outcome). */
const PtiAssertions *pti_session_assertions (const PtiSession *s);

/* ---- results ---------------------------------------------------------------- */

double pti_session_predicted_time (const PtiSession *s);
double pti_session_efficiency (const PtiSession *s);
/* Events evaluated (after the evaluation), appended so far (before). */
guint64 pti_session_n_events (const PtiSession *s);
gboolean pti_session_process_result (const PtiSession *s, guint rank,
                                     PtiTraceProcessSummary *out);
void pti_session_repetition_figures (const PtiSession *s, guint64 *evaluated,
                                     guint64 *extrapolated);
const char *pti_session_repetition_note (const PtiSession *s);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PtiSession, pti_session_free)

G_END_DECLS
