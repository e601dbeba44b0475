/* The engine core: one window of operations per process, stage 2.
 * Internal: the session (session.h) drives it; nothing else does.
 *
 * Operations carry the paper's Table 1 fields in compact form: the event
 * list is the process, the device and model follow from the kind and the
 * process's placement, the RUD is an index into the session's RUD table,
 * the inter-event relation is the message id shared by a send and its
 * receive, the duration comes from the model (stage 1 for computations,
 * given when they are appended; stage 2 for messages).
 *
 * Streaming.  Operations are appended to a process's window either ahead
 * of the evaluation (push) or when the evaluation runs out of them and asks
 * the source for that process's next ones (pull).  Each leaves the window
 * when it has been executed; its outcome goes to the sink at once.  Memory
 * is bounded by what is in flight. */
#pragma once

#include <pti/hmi.h>
#include "system.h"
#include "trace-writer.h"   /* PtiTraceProcessSummary */

G_BEGIN_DECLS

typedef struct _PtiEngine PtiEngine;

/* What a process does, event by event. */
typedef enum {
  PTI_OP_COMPUTE = 0,
  PTI_OP_SEND,           /* blocking: post and wait in one event */
  PTI_OP_RECV,
  PTI_OP_ISEND,          /* post only; completed by a later wait */
  PTI_OP_IRECV,
  PTI_OP_WAIT,           /* one request */
  PTI_OP_WAITALL,        /* every request it names */
  PTI_OP_WAITANY,        /* the first of the requests it names to complete */
  PTI_OP_PROBE,          /* blocks until a matching message can be received (MPI_Probe) */
  PTI_OP_COLL_BEGIN,     /* the messages that follow, to COLL_END, are one collective call */
  PTI_OP_COLL_END,
  PTI_OP_DERIVED,        /* a span of repetitions derived by analytical repetition */
  PTI_OP_PHASE_BEGIN,    /* the events that follow, to PHASE_END, belong to a named phase */
  PTI_OP_PHASE_END,
  PTI_OP_IO,             /* a request to the file system of the process's node (io device) */
  PTI_OP_N_KINDS
} PtiOpKind;

/* Wildcards of a receive (MPI_ANY_SOURCE, MPI_ANY_TAG). */
#define PTI_ENGINE_ANY_SOURCE G_MAXUINT32
#define PTI_ENGINE_ANY_TAG (-1)

/* Matching contexts: messages match only within one.  User point-to-point
 * traffic of communicator id k is in context 2k, the traffic collectives
 * expand into in 2k + 1, so neither can take the other's messages. */
#define PTI_COMM_WORLD 0u
#define PTI_COMM_WORLD_COLLECTIVE 1u

/* A pull source: appends the next operations of @rank (at least one), or
 * calls pti_engine_source_done (@rank).  Called while the engine runs,
 * whenever a process's window is empty. */
typedef struct {
  gboolean (*pull) (gpointer data, guint rank, GError **error);
  /* Optional: @rank's source skips @n repetitions of the repeated block it
   * is generating (analytical repetition derived them).  NULL: the source
   * regenerates no block (markers it emits are REPLAYED by the engine). */
  void (*skip) (gpointer data, guint rank, guint64 n);
  gpointer data;
} PtiEngineSource;

/* A request a wait (or a blocking send or receive) completed: what the
 * trace says of its message (traces/README.md, <request>). */
typedef struct {
  guint64 request;       /* isend, irecv: the request's id (the n-th the rank posted) */
  guint64 msg;           /* the message id both ends carry */
  guint32 peer;          /* the actual peer (a wildcard receive's sender) */
  gint32 tag;            /* the actual tag */
  guint64 bytes;         /* the message's size */
  gboolean recv;
  gboolean blocking;     /* a blocking send or receive's own */
  gboolean rendezvous;
  double posted;         /* s: the send or receive was posted */
  double entered;        /* s: the data entered the network */
  double arrived;        /* s: receives: the data reached this process */
  double ready;          /* s: the request was complete (a send's data had left) */
  /* (Times before a span analytical repetition derived are not moved by it.) */
} PtiEngineDone;

/* One finished event, as the engine resolved it. */
typedef struct {
  PtiOpKind kind;
  double start, end;     /* s */
  double wait;           /* s of [start, end] blocked on a peer */
  const PtiModelInstance *model; /* the CPU model, or the network model of the message */
  guint32 rud;           /* compute: the RUD id it was appended with */
  /* isend, irecv (as posted), send, recv: */
  guint32 peer;          /* PTI_ENGINE_ANY_SOURCE: a wildcard not matched yet */
  gint32 tag;
  guint64 bytes;
  guint64 request;       /* isend, irecv: the request's id (the n-th the rank posted) */
  guint64 msg;           /* isend: the message id (irecv: unknown at posting) */
  /* waits, send, recv: the requests completed */
  const PtiEngineDone *done;
  guint n_done;
  /* collective markers: */
  guint coll, comm, root;
  /* io: the request (bytes above), collective or not; model: the I/O model */
  PtiIoKind io_kind;
  guint32 file;
  guint64 offset;
  gboolean collective;
  /* derived spans: how many repetitions and events [start, end] stands for,
   * and the time they add (wait: the wait time) */
  guint64 repetitions, derived_events;
  double derived_compute, derived_comm;
} PtiEngineEvent;

/* Where finished events and models' records go (the trace). */
typedef struct {
  void (*event) (gpointer data, guint rank, const PtiEngineEvent *ev);
  /* Records of a resource network model (PtiNetSink.record). */
  void (*record) (gpointer data, const PtiModelInstance *model, guint type,
                  const char *const *values);
  gpointer data;
} PtiEngineSink;

/* Place @nprocs processes: rank r on processor @placement[r] of @system, or
 * on processor r if @placement is NULL (the system must outlive the engine).
 * (transfer full) or NULL with @error. */
PtiEngine *pti_engine_new (const PtiSystem *system, guint nprocs, const guint *placement,
                           GError **error);
void pti_engine_free (PtiEngine *engine);

guint pti_engine_n_procs (const PtiEngine *engine);
/* The CPU model instance of @rank's processor. */
const PtiModelInstance *pti_engine_cpu (const PtiEngine *engine, guint rank);

void pti_engine_set_source (PtiEngine *engine, const PtiEngineSource *source);
/* @rank's source has nothing more to append. */
void pti_engine_source_done (PtiEngine *engine, guint rank);
void pti_engine_set_sink (PtiEngine *engine, const PtiEngineSink *sink);

/* Append to @rank's window (rank checked by the caller).  Amortised O(1),
 * no allocation per operation. */
void pti_engine_add_compute (PtiEngine *engine, guint rank, double duration, guint32 rud);
/* The same, priced by model choice @choice (pti_system_choice; 0 the
 * default) of @rank's computer: the trace shows that model. */
void pti_engine_add_compute_on (PtiEngine *engine, guint rank, double duration, guint32 rud,
                                guint choice);
/* Messages.  FALSE with @error if no network connects the two processes.
 * @peer of a receive may be PTI_ENGINE_ANY_SOURCE and its @tag
 * PTI_ENGINE_ANY_TAG. */
gboolean pti_engine_add_message (PtiEngine *engine, PtiOpKind kind, guint rank, guint peer,
                                 guint64 bytes, gint tag, guint comm, GError **error);
/* Non-blocking: @request receives the request's handle, valid for the
 * waits of the same rank that follow. */
gboolean pti_engine_add_request (PtiEngine *engine, PtiOpKind kind, guint rank, guint peer,
                                 guint64 bytes, gint tag, guint comm, guint32 *request,
                                 GError **error);
/* Synchronous sends (MPI_Ssend with @request NULL, MPI_Issend otherwise;
 * MPICH's gatherv on many ranks): as add_message / add_request with
 * PTI_OP_SEND / PTI_OP_ISEND, but by the rendezvous protocol whatever the
 * size, so the send completes only once its receive is posted. */
gboolean pti_engine_add_ssend (PtiEngine *engine, guint rank, guint dst, guint64 bytes, gint tag,
                               guint comm, guint32 *request, GError **error);
/* A blocking probe (MPI_Probe): @rank waits until a message from @src (or
 * PTI_ENGINE_ANY_SOURCE) with @tag (or PTI_ENGINE_ANY_TAG) in @comm, not yet
 * matched by a receive, has its envelope at @rank (an eager message's data,
 * a rendezvous message's request).  It receives nothing: a receive follows.
 * Its event (PTI_OP_PROBE) carries the message's peer, tag, bytes and id. */
gboolean pti_engine_add_probe (PtiEngine *engine, guint rank, guint src, gint tag, guint comm,
                               GError **error);
/* Handles no request of any rank ever has (@k < PTI_ENGINE_SPARE_HANDLES):
 * the WSL's own requests (a non-blocking collective that posted nothing at
 * its call) take them. */
#define PTI_ENGINE_SPARE_HANDLES 1023u
guint32 pti_engine_spare_handle (guint k);
/* @kind PTI_OP_WAIT (n = 1), PTI_OP_WAITALL or PTI_OP_WAITANY over @n
 * requests of @rank.  A request may be named by one wait or waitall, or by
 * waitanys until one of them completes it; FALSE with @error for an
 * unknown or already completed request. */
gboolean pti_engine_add_wait (PtiEngine *engine, PtiOpKind kind, guint rank, guint n,
                              const guint32 *requests, GError **error);
/* Markers around the messages of one collective call of @rank: @coll is the
 * collective's number (the WSL's, the trace's PtiTraceCall), @comm its
 * communicator's id, @root the root's world rank (rooted calls), @bytes the
 * call's argument; the end repeats the begin's. */
void pti_engine_add_coll_begin (PtiEngine *engine, guint rank, guint coll, guint comm,
                                guint root, guint64 bytes);
void pti_engine_add_coll_end (PtiEngine *engine, guint rank, guint coll, guint comm,
                              guint root, guint64 bytes);

/* The io device.  File @file (a number, 0, 1, ...) is striped in
 * @stripe_size bytes over @stripe_count servers (0: the model's default);
 * set before its first request. */
void pti_engine_io_file (PtiEngine *engine, guint32 file, guint64 stripe_size,
                         guint32 stripe_count);
/* A request of @rank to its node's file system.  Collective: @gather names
 * the group of @n ranks that make the call together (the same number on
 * each of them, pti_engine_io_gather); every one of them waits for the
 * last, then the model prices the call as one, and all leave at its end.
 * FALSE with @error if @rank's node mounts no file system, or (collective)
 * its members' nodes mount different ones. */
gboolean pti_engine_add_io (PtiEngine *engine, guint rank, PtiIoKind kind, guint32 file,
                            guint64 offset, guint64 bytes, guint32 gather, guint n,
                            GError **error);
#define PTI_ENGINE_IO_INDEPENDENT G_MAXUINT32
/* The number of the group of collective calls keyed @key (the WSL's
 * communicator and group), made at its first use. */
guint32 pti_engine_io_gather (PtiEngine *engine, guint64 key);

/* Phases: named regions of a rank's program (performance assertions, seed
 * 000).  A name is given a number once (phase_intern, 0, 1, ...); a rank's
 * phases nest, and do not straddle a repeated block's bounds. */
guint pti_engine_phase_intern (PtiEngine *engine, const char *name);
guint pti_engine_n_phases (const PtiEngine *engine);
const char *pti_engine_phase_name (const PtiEngine *engine, guint phase);
/* FALSE if @name was never interned. */
gboolean pti_engine_phase_lookup (const PtiEngine *engine, const char *name, guint *phase);
void pti_engine_add_phase_begin (PtiEngine *engine, guint rank, guint phase);
/* Ends @rank's innermost phase, which must be @phase. */
gboolean pti_engine_add_phase_end (PtiEngine *engine, guint rank, guint phase, GError **error);

/* What a rank did inside a phase, summed over its entries (after the
 * evaluation; zeros if it never entered it).  FALSE if @phase or @rank is
 * out of range. */
typedef struct {
  double time;           /* s between entering and leaving it */
  double compute, comm, wait;
  guint64 messages;      /* messages sent */
  guint64 bytes;         /* bytes sent */
  guint64 entries;       /* times the rank entered it */
} PtiPhaseFigures;
gboolean pti_engine_phase_figures (const PtiEngine *engine, guint phase, guint rank,
                                   PtiPhaseFigures *out);
/* Messages and bytes @rank sent in all. */
void pti_engine_sent (const PtiEngine *engine, guint rank, guint64 *messages, guint64 *bytes);

/* Called from pti_engine_run about every @every resolved engine steps with
 * the events resolved so far, the total appended, and the simulated time. */
typedef void (*PtiProgressFunc) (guint64 done, guint64 total, double sim_time, gpointer data);
void pti_engine_set_progress (PtiEngine *engine, PtiProgressFunc func, gpointer data, guint64 every);

/* Stage 2.  With @final, resolves every operation in simulated-time order,
 * pulling from the source as needed.  Without, resolves only what the
 * operations appended so far determine, stopping short of the earliest
 * clock of a process whose window ran empty (partial evaluation).
 * Deterministic: ties are broken by insertion order.  Fails with
 * PTI_ERROR_DEADLOCK naming blocked ranks and their pending operations, or
 * PTI_ERROR_INVALID for a message nobody receives or one longer than its
 * receive. */
gboolean pti_engine_run (PtiEngine *engine, gboolean final, GError **error);

/* Analytical repetition: the operations @rank appends between begin and
 * end form a block evaluated @count times (>= 1).  Every rank marks the
 * same blocks with the same counts, in the same order; a block's messages
 * need not be received in the same repetition.  With @replayed the engine
 * keeps the block (appended once) and replays it; otherwise the source
 * regenerates it, marking each new repetition with pti_engine_repeat_next
 * and skipping repetitions when told (PtiEngineSource.skip).
 * Repetitions are evaluated through the models until the whole state of the
 * evaluation is seen to repeat, shifted in time; then as many as can be
 * are derived without calling any model. */
gboolean pti_engine_repeat_begin (PtiEngine *engine, guint rank, guint64 count,
                                  gboolean replayed, GError **error);
void pti_engine_repeat_next (PtiEngine *engine, guint rank);
gboolean pti_engine_repeat_end (PtiEngine *engine, guint rank, GError **error);
void pti_engine_repetition_figures (const PtiEngine *engine, guint64 *evaluated,
                                    guint64 *extrapolated);
/* Why no repetition could be derived (a model that cannot shift its
 * state), or NULL.  (transfer none) */
const char *pti_engine_repetition_note (const PtiEngine *engine);

/* Schedule a change of a model parameter at simulated time @t (s): @target
 * is a network name, or "computer:NAME" for a computer's intra-node model;
 * @element, @selector (may be NULL) and @value are passed to the model's
 * reconfigure, which checks them now.  @origin names where the change comes
 * from in errors ("changes.txt:3").  Changes at one time apply in the order
 * they were added, before any traffic at that time. */
gboolean pti_engine_add_change (PtiEngine *engine, double t, const char *target,
                                const char *element, const char *selector, const char *value,
                                const char *origin, GError **error);
/* Check such a change against @system alone (before any engine exists):
 * its time, its target and the model's own check.  (transfer none) the model
 * instance it changes, or NULL with @error naming @origin. */
const PtiModelInstance *pti_engine_check_change (const PtiSystem *system, double t,
                                                 const char *target, const char *element,
                                                 const char *selector, const char *value,
                                                 const char *origin, GError **error);

/* Messages of communicator @id (contexts 2 @id and 2 @id + 1) go by model
 * choice @choice (0: the default) of the network or intra-node model of
 * their route.  FALSE with @error naming the rank, its computer or network
 * and the configurations there if a route between two of @members (world
 * ranks, @n of them) has no such configuration. */
gboolean pti_engine_set_comm_model (PtiEngine *engine, guint id, guint choice, guint n,
                                    const guint *members, GError **error);

/* A live change stream (ptieval --changes-stream): the engine calls @more
 * when it needs to know the changes up to a time beyond the stream's
 * horizon; @more blocks until the stream gives something, adds the changes
 * it reads (pti_engine_add_change) and moves the horizon
 * (pti_engine_changes_known; INFINITY at the stream's end).  FALSE with
 * @error to stop the evaluation. */
typedef struct {
  gboolean (*more) (gpointer data, GError **error);
  gpointer data;
} PtiEngineFeed;
/* From now on nothing at or after time 0 is resolved before the feed has
 * said so. */
void pti_engine_set_feed (PtiEngine *engine, const PtiEngineFeed *feed);
/* The stream has no change before @until (s): the engine may resolve what
 * lies before it.  Never moves back. */
void pti_engine_changes_known (PtiEngine *engine, double until);
/* The stream's horizon (INFINITY without a stream). */
double pti_engine_changes_known_until (const PtiEngine *engine);

/* Name the communicator whose matching contexts are 2 @id and 2 @id + 1
 * (its point-to-point and collective traffic), for error reports. */
void pti_engine_set_comm_name (PtiEngine *engine, guint id, const char *name);

/* Operations held in windows (appended and not yet executed, or kept for
 * a repeated block's next repetition).  O(1). */
guint64 pti_engine_n_pending (const PtiEngine *engine);
/* Events appended so far (all processes; @rank's). */
guint64 pti_engine_n_appended (const PtiEngine *engine);
guint64 pti_engine_rank_appended (const PtiEngine *engine, guint rank);
/* Where that count of @rank's is kept, for a source that checks it after
 * every statement (valid as long as the engine). */
const guint64 *pti_engine_rank_appended_counter (const PtiEngine *engine, guint rank);
/* @rank will be given nothing more: its source said so, or it has none
 * (push: everything was appended before the evaluation). */
gboolean pti_engine_rank_complete (const PtiEngine *engine, guint rank);
/* The simulated time the evaluation has reached. */
double pti_engine_now (const PtiEngine *engine);

double pti_engine_predicted_time (const PtiEngine *engine);
guint64 pti_engine_n_events (const PtiEngine *engine);
void pti_engine_process_summary (const PtiEngine *engine, guint rank, PtiTraceProcessSummary *out);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PtiEngine, pti_engine_free)

G_END_DECLS
