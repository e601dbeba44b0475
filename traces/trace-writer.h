/* Streaming writer of pti's XML output trace (schemas/trace.xsd).
 * Internal: used by the engine.  Memory does not grow with the trace: records
 * go straight to the file through libxml2's xmlTextWriter.  The trace is
 * written to a temporary file beside the target and renamed over it only by
 * pti_trace_writer_commit(), so a half-written trace never looks finished. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _PtiTraceWriter PtiTraceWriter;

typedef enum {
  PTI_TRACE_COMPUTE,   /* a device use priced by a CPU model */
  PTI_TRACE_SEND,      /* a blocking send (eager or rendezvous) */
  PTI_TRACE_RECV,      /* a blocking receive */
  PTI_TRACE_ISEND,     /* posting a non-blocking send (message attributes) */
  PTI_TRACE_IRECV,     /* posting a non-blocking receive (message attributes) */
  PTI_TRACE_WAIT,      /* waiting for requests (only `wait` among the message fields) */
  PTI_TRACE_WAITANY,
} PtiTraceKind;

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

typedef struct {
  PtiTraceKind kind;
  double start, end;       /* s */
  const char *device;      /* "cpu", "mpi" */
  const char *model;       /* model name */
  const char *rud;         /* RUD name for compute events, or NULL */
  /* messages only: */
  guint peer;              /* the other rank */
  gint tag;
  guint64 bytes;
  guint64 msg;             /* message id: the same at both ends */
  gboolean rendezvous;
  double wait;             /* s of [start,end] spent blocked on the peer */
} PtiTraceEvent;

typedef struct {
  guint rank;
  double end;              /* s: when the process finished */
  double compute, comm, wait; /* s */
  guint64 events;
} PtiTraceProcessSummary;

PtiTraceWriter *pti_trace_writer_open (const char *path, GError **error);
gboolean pti_trace_writer_header (PtiTraceWriter *w, const PtiTraceHeader *h, GError **error);
/* Events are grouped per process, in each process's order. */
gboolean pti_trace_writer_begin_process (PtiTraceWriter *w, guint rank, GError **error);
gboolean pti_trace_writer_event (PtiTraceWriter *w, const PtiTraceEvent *e, GError **error);
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
