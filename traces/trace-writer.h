/* Streaming writer of pti's XML output trace (schemas/trace.xsd).
 * Internal: used by the engine.  Memory does not grow with the trace: records
 * go straight to the file through libxml2's xmlTextWriter.  The trace is
 * written to a temporary file beside the target and renamed over it only by
 * pti_trace_writer_commit(), so a half-written trace never looks finished. */
#pragma once

#include <glib.h>

#include "trace-vocab.h"

G_BEGIN_DECLS

typedef struct _PtiTraceWriter PtiTraceWriter;

/* One model record type, as declared by a model (PtiTraceRecordDesc). */
typedef struct {
  const char *model;       /* model name */
  const char *ns;          /* its XML namespace */
  const char *name;        /* element name */
  const char *fields;      /* space-separated attribute names */
  const char *description;
} PtiTraceRecordType;

typedef struct {
  const char *name;
  const char *value;       /* as given, or as evaluated for derived values */
} PtiTraceParam;

/* A model instance in use. */
typedef struct {
  const char *name;        /* model name, "cpu-clc" */
  const char *owner;       /* "computer pc_node", "network myrinet" */
  const char *config;      /* the configuration's name (HMC `config`), or NULL */
} PtiTraceModel;

/* A process and where it was placed. */
typedef struct {
  guint rank;
  const char *processor;   /* "pc_node[3] cpu 0" */
} PtiTraceProcess;

typedef struct {
  const char *system_name;     /* <system name> */
  const char *system_file;
  const char *workload_name;
  const char *workload_file;   /* NULL for C workload programs */
  const char *generator;       /* "pti 0.1.0" */
  const PtiTraceParam *params; guint n_params;       /* in declaration order */
  const PtiTraceModel *models; guint n_models;
  const PtiTraceRecordType *records; guint n_records;
  const PtiTraceProcess *processes; guint n_processes;
} PtiTraceHeader;

/* A request (or a blocking send's or receive's own message) as completed:
 * what the message turned out to be and when it moved.  The engine knows
 * every field when the completing event ends (traces/README.md). */
typedef struct {
  PtiTraceKind kind;       /* ISEND or IRECV (completed by a wait kind); SEND or RECV
                            * (a blocking event's own) */
  guint64 request;         /* ISEND, IRECV: the request id its posting event gave */
  guint64 msg;             /* message id: the same at both ends */
  guint peer;              /* the other rank, as matched */
  gint tag;                /* as matched */
  guint64 bytes;           /* the message's size */
  gboolean rendezvous;
  double posted;           /* s: when the send or receive was posted (its call started) */
  double injected;         /* s: when the data began to enter the network */
  double done;             /* s: sends, when the data had left the sender (`left`);
                            * receives, when it had arrived (`arrived`) */
} PtiTraceCompletion;

typedef struct {
  PtiTraceKind kind;
  double start, end;       /* s */
  const char *device;      /* "cpu", "mpi" */
  const char *model;       /* model name */
  const char *config;      /* its configuration's name when named (HMC `config`), or NULL */
  const char *rud;         /* RUD name for compute events, or NULL */
  /* isend, irecv: the request as posted */
  guint64 request;         /* id, unique per rank */
  guint peer;              /* destination, or source */
  gboolean any_peer;       /* irecv from any source */
  gint tag;
  gboolean any_tag;        /* irecv of any tag */
  guint64 bytes;           /* isend: the message; irecv: the receive's size */
  guint64 msg;             /* isend: its message id */
  /* send, recv, wait, waitall, waitany */
  double wait;             /* s of [start,end] spent blocked on a peer */
  /* send, recv: exactly one, their message; waits: the requests they
   * completed, in the order they named them */
  const PtiTraceCompletion *done;
  guint n_done;
  /* io: the request (also bytes, wait) */
  guint io_op;             /* PtiIoKind: write, read, open, close */
  guint file;
  guint64 offset;
  gboolean collective;
} PtiTraceEvent;

/* A collective call's begin or end on one rank (zero-duration marker): the
 * events between the two form the rank's share of the call. */
typedef struct {
  gboolean begin;
  PtiTraceCall call;
  guint comm;              /* communicator id: 0 the world, then splits in creation order */
  guint root;              /* rooted calls: the root's rank (world) */
  guint64 bytes;           /* the call's bytes argument on this rank */
  double time;             /* s */
} PtiTraceCollective;

/* A span of one rank that analytical repetition derived instead of
 * evaluating: @repetitions repetitions of a block, @events events (not in
 * the trace), with the time they add to the rank's totals. */
typedef struct {
  double start, end;       /* s */
  guint64 repetitions, events;
  double compute, comm, wait;   /* s */
} PtiTraceDerived;

typedef struct {
  guint rank;
  double end;              /* s: when the process finished */
  double compute, comm, wait; /* s */
  guint64 events;
  double io;               /* s in the io device (written only when not 0) */
} PtiTraceProcessSummary;

PtiTraceWriter *pti_trace_writer_open (const char *path, GError **error);
gboolean pti_trace_writer_header (PtiTraceWriter *w, const PtiTraceHeader *h, GError **error);
/* Events are grouped per process, in each process's order. */
gboolean pti_trace_writer_begin_process (PtiTraceWriter *w, guint rank, GError **error);
gboolean pti_trace_writer_event (PtiTraceWriter *w, const PtiTraceEvent *e, GError **error);
/* In a process group, in the process's order with its events. */
gboolean pti_trace_writer_collective (PtiTraceWriter *w, const PtiTraceCollective *c,
                                      GError **error);
gboolean pti_trace_writer_derived (PtiTraceWriter *w, const PtiTraceDerived *d, GError **error);
gboolean pti_trace_writer_end_process (PtiTraceWriter *w, GError **error);
/* Model records (header->records): the index of @model's first record type
 * in the header, -1 if it declared none. */
gint pti_trace_writer_record_base (const PtiTraceWriter *w, const char *model);
/* A record of header record type @type, its field values in the order of
 * the type's fields.  Records are written at the chunk level, after the
 * process groups of the chunk open now or opened next (a chunk of records
 * only if no group comes before it closes).  Memory stays bounded: records
 * beyond 1 MiB wait in a temporary file. */
gboolean pti_trace_writer_record (PtiTraceWriter *w, guint type, const char *const *values,
                                  GError **error);
/* Close the current <events> chunk (after a partial evaluation); the next
 * process group opens a new one.  Nothing happens outside a chunk. */
gboolean pti_trace_writer_end_chunk (PtiTraceWriter *w, GError **error);
/* A named phase's figures over the ranks that entered it: the largest
 * time, compute, comm and wait; messages and bytes sent in all; the most
 * entries of a rank. */
typedef struct {
  const char *name;
  double time, compute, comm, wait;   /* s */
  guint64 messages, bytes, entries;
  guint ranks;
} PtiTracePhase;

/* A performance assertion after its check: the values its test read. */
typedef struct {
  const char *name, *test;
  const char *origin;      /* nullable */
  gboolean passed;
  guint n_values;
  const char *const *value_names;
  const double *values;
} PtiTraceAssertion;

/* The phases and assertions the summary lists (borrowed until
 * pti_trace_writer_summary returns). */
void pti_trace_writer_set_results (PtiTraceWriter *w, const PtiTracePhase *phases, guint n_phases,
                                   const PtiTraceAssertion *assertions, guint n_assertions);
/* Of the events the summary will count, @derived are not in the trace
 * (analytical repetition derived them); written as summary/@derived. */
void pti_trace_writer_set_derived (PtiTraceWriter *w, guint64 derived);
gboolean pti_trace_writer_summary (PtiTraceWriter *w, double predicted_time, guint64 events,
                                   const PtiTraceProcessSummary *procs, guint n, GError **error);
/* Close the document, flush, fsync-free rename over the target. */
gboolean pti_trace_writer_commit (PtiTraceWriter *w, GError **error);
/* Drop the temporary file (also done by free if not committed). */
void pti_trace_writer_free (PtiTraceWriter *w);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PtiTraceWriter, pti_trace_writer_free)

G_END_DECLS
