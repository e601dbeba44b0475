/* The evaluation engine: one event list per process, stage 2 resolution.
 * Internal: the WSL builds event lists through this API and ptieval drives it.
 *
 * Events carry the paper's Table 1 fields in compact form: the event list is
 * the process, the device and model follow from the kind and the process's
 * placement, the RUD is an index into the context's RUD table, the
 * inter-event relation is the message id shared by a send and its receive,
 * the duration comes from the model (stage 1 for computations, stage 2 for
 * messages). */
#pragma once

#include <pti/hmi.h>
#include "system.h"
#include "trace-writer.h"

G_BEGIN_DECLS

typedef struct _PtiEngine PtiEngine;

typedef enum {
  PTI_EV_COMPUTE = 0,
  PTI_EV_SEND,           /* blocking: post and wait in one event */
  PTI_EV_RECV,
  PTI_EV_ISEND,          /* post only; completed by a later WAIT or WAITANY */
  PTI_EV_IRECV,
  PTI_EV_WAIT,           /* every request it names */
  PTI_EV_WAITANY,        /* the first of the requests it names to complete */
} PtiEventKind;

/* Wildcards of a receive (MPI_ANY_SOURCE, MPI_ANY_TAG). */
#define PTI_ENGINE_ANY_SOURCE G_MAXUINT32
#define PTI_ENGINE_ANY_TAG (-1)

/* Matching contexts: messages match only within one.  User point-to-point
 * traffic is in PTI_COMM_WORLD, the traffic collectives expand into in
 * PTI_COMM_WORLD_COLLECTIVE, so neither can take the other's messages. */
#define PTI_COMM_WORLD 0u
#define PTI_COMM_WORLD_COLLECTIVE 1u

/* Place @nprocs processes: rank r on processor @placement[r] of @system, or
 * on processor r if @placement is NULL (the system must outlive the engine).
 * (transfer full) or NULL with @error. */
PtiEngine *pti_engine_new (const PtiSystem *system, guint nprocs, const guint *placement,
                           GError **error);
void pti_engine_free (PtiEngine *engine);

guint pti_engine_n_procs (const PtiEngine *engine);
/* The CPU model instance of @rank's processor. */
const PtiModelInstance *pti_engine_cpu (const PtiEngine *engine, guint rank);

/* Append to @rank's list (rank checked by the caller).  Amortised O(1); the
 * list grows geometrically, so there is no allocation per event. */
void pti_engine_add_compute (PtiEngine *engine, guint rank, double duration, guint32 rud);
/* Messages.  FALSE with @error if no network connects the two processes.
 * @src may be PTI_ENGINE_ANY_SOURCE and a receive's @tag PTI_ENGINE_ANY_TAG
 * (then any rank of the communicator may send). */
gboolean pti_engine_add_send (PtiEngine *engine, guint rank, guint dst, guint64 bytes, gint tag,
                              guint comm, GError **error);
gboolean pti_engine_add_recv (PtiEngine *engine, guint rank, guint src, guint64 bytes, gint tag,
                              guint comm, GError **error);
/* Non-blocking: @request receives the request's handle, valid for one
 * pti_engine_add_wait of the same rank. */
gboolean pti_engine_add_isend (PtiEngine *engine, guint rank, guint dst, guint64 bytes, gint tag,
                               guint comm, guint32 *request, GError **error);
gboolean pti_engine_add_irecv (PtiEngine *engine, guint rank, guint src, guint64 bytes, gint tag,
                               guint comm, guint32 *request, GError **error);
/* Wait for all (@any FALSE) or the first (@any TRUE) of @n requests of
 * @rank.  A request may be named by one WAIT, or by WAITANYs until one of
 * them completes it; FALSE with @error for an unknown or finished request. */
gboolean pti_engine_add_wait (PtiEngine *engine, guint rank, guint n, const guint32 *requests,
                              gboolean any, GError **error);

/* Called from pti_engine_run about every @every resolved engine steps with
 * the events resolved so far, the total, and the simulated time reached. */
typedef void (*PtiProgressFunc) (guint64 done, guint64 total, double sim_time, gpointer data);
void pti_engine_set_progress (PtiEngine *engine, PtiProgressFunc func, gpointer data, guint64 every);

/* Stage 2.  With @final, resolves every event in simulated-time order.  Deterministic:
 * ties are broken by insertion order.  Fails with PTI_ERROR_DEADLOCK naming
 * blocked ranks and their pending operations, or PTI_ERROR_INVALID for a
 * message nobody receives or one longer than its receive. */
gboolean pti_engine_run (PtiEngine *engine, gboolean final, GError **error);

/* After a partial run (@final FALSE above: it resolves what it can, stopping
 * short of the earliest clock of a process that has run out of events and
 * keeping messages in flight): write the resolved events as one <events>
 * chunk to @writer (may be NULL) and free them.  Events are appended after
 * it as before; request handles stay valid. */
gboolean pti_engine_flush (PtiEngine *engine, PtiTraceWriter *writer,
                           const char *const *rud_names, GError **error);

/* Analytical repetition: the events @rank appends between begin and end
 * form a block evaluated @count times (>= 1).  Every rank marks the same
 * number of blocks with the same counts, in the same order; a block must be
 * self-contained (its messages received and its requests completed in the
 * same repetition).  The final run evaluates repetitions until two in a row
 * advance every process by the same time, then extrapolates the rest. */
gboolean pti_engine_repeat_begin (PtiEngine *engine, guint rank, guint64 count, GError **error);
gboolean pti_engine_repeat_end (PtiEngine *engine, guint rank, GError **error);
gboolean pti_engine_has_repetition (const PtiEngine *engine);
void pti_engine_repetition_figures (const PtiEngine *engine, guint64 *evaluated,
                                    guint64 *extrapolated);

/* Where the final run writes the repetitions it evaluates (and the events
 * it drops on the way), if a trace is wanted; both must outlive the run. */
void pti_engine_set_trace (PtiEngine *engine, PtiTraceWriter *writer,
                           const char *const *rud_names);

/* Schedule a change of a model parameter at simulated time @t (s): @target
 * is a network name, or "computer:NAME" for a computer's intra-node model;
 * @element, @selector (may be NULL) and @value are passed to the model's
 * reconfigure, which checks them now.  @origin names where the change comes
 * from in errors ("changes.txt:3").  Changes at one time apply in the order
 * they were added, before any traffic at that time. */
gboolean pti_engine_add_change (PtiEngine *engine, double t, const char *target,
                                const char *element, const char *selector, const char *value,
                                const char *origin, GError **error);

/* Name the communicator whose matching contexts are 2 @id and 2 @id + 1
 * (its point-to-point and collective traffic), for error reports. */
void pti_engine_set_comm_name (PtiEngine *engine, guint id, const char *name);

/* Events held in memory (appended and not yet flushed). */
guint64 pti_engine_n_pending (const PtiEngine *engine);

double pti_engine_predicted_time (const PtiEngine *engine);
guint64 pti_engine_n_events (const PtiEngine *engine);
void pti_engine_process_summary (const PtiEngine *engine, guint rank, PtiTraceProcessSummary *out);

/* Write the events still held and the summary of a trace (after the final run).
 * @rud_names maps RUD ids to names (may contain NULL). */
gboolean pti_engine_write_events (const PtiEngine *engine, PtiTraceWriter *writer,
                                  const char *const *rud_names, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PtiEngine, pti_engine_free)

G_END_DECLS
