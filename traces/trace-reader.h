/* Streaming reader of pti's XML output trace (schemas/trace.xsd,
 * traces/README.md), built on libxml2's xmlTextReader.
 *
 * Memory does not grow with the trace: the reader keeps the header (which is
 * O(processes + record types)), a few numbers per process (to check the
 * ordering rules) and the node it is on.  Times are converted to integer
 * nanoseconds without floating point (the trace writes exactly nine fraction
 * digits).
 *
 * Every error names the file and the line: malformed or truncated XML (the
 * libxml2 message), a DOCTYPE (refused before its internal subset is read, so
 * no entity is ever declared or expanded), an element or attribute the format
 * does not have, a number that does not parse, and the rules the schema cannot
 * state (ranks listed in the header, message attributes by kind, start <= end,
 * wait <= end - start, start times of a process that do not decrease, one
 * process group per rank per chunk, records declared in the header, the
 * summary's event count).  Pairing the two ends of a message is left to the
 * caller (it needs memory that grows with the trace unless done externally).
 *
 * Uses only GLib and libxml2. */
#pragma once

#include <glib.h>

#include "trace-vocab.h"

G_BEGIN_DECLS

typedef enum {
  PTI_TRACE_READER_ERROR_IO,       /* the file cannot be opened or read */
  PTI_TRACE_READER_ERROR_INVALID,  /* malformed, truncated, or breaks the format's rules */
} PtiTraceReaderError;

#define PTI_TRACE_READER_ERROR (pti_trace_reader_error_quark ())
GQuark pti_trace_reader_error_quark (void);

/* One declared model record type (header/records/record). */
typedef struct {
  char *model;
  char *ns;
  char *name;
  char *description;
  char **fields;       /* NULL-terminated, in declaration order */
  guint n_fields;
  int time_field;      /* index of the field named "time", or -1 */
} PtiTrRecordType;

typedef struct {
  char *name;
  char *value;
} PtiTrParam;

typedef struct {
  char *name;
  char *owner;
  char *config;                 /* NULL when absent */
} PtiTrModel;

typedef struct {
  char *generator;
  char *system_name, *system_file;
  char *workload_name, *workload_file;   /* workload_file may be NULL */
  PtiTrParam *params;           guint n_params;
  PtiTrModel *models;           guint n_models;
  PtiTrRecordType *records;     guint n_records;
  char **processors;            guint n_processes;   /* processors[rank] */
} PtiTrHeader;

/* The trace's own totals (<summary>), in ns. */
typedef struct {
  gboolean present;
  guint64 end, compute, comm, wait, events;
} PtiTrProcSummary;

typedef struct {
  guint64 predicted;            /* ns */
  guint64 events;
  PtiTrProcSummary *procs;      /* [n_processes], by rank */
} PtiTrSummary;

typedef enum {
  PTI_TR_ITEM_EVENT = 1,
  PTI_TR_ITEM_RECORD,
  PTI_TR_ITEM_COLLECTIVE,       /* a collective call's begin or end on one rank */
  PTI_TR_ITEM_DERIVED,          /* a span analytical repetition derived */
  PTI_TR_ITEM_SUMMARY,          /* the last item: pti_trace_reader_summary() is set */
} PtiTrItemType;

/* One message as completed on one rank: by a blocking send or recv (its own
 * message), or by a wait kind (a <request> child). */
typedef struct {
  PtiTraceKind kind;            /* SEND, RECV (blocking) or ISEND, IRECV (completed by a wait) */
  guint64 request;              /* ISEND, IRECV: the request's id */
  guint64 msg;
  guint peer;
  gint tag;
  guint64 bytes;
  gboolean rendezvous;
  guint64 posted;               /* ns: the send or receive was posted (blocking: the event's start) */
  guint64 injected;             /* ns: the data began to enter the network */
  guint64 done;                 /* ns: a send's data had left the sender (left), a
                                 * receive's had arrived (arrived) */
  guint64 line, element;        /* where: its <request>, or the blocking <event> (as in
                                 * PtiTrItem) */
} PtiTrCompletion;

typedef struct {
  PtiTraceKind kind;
  guint rank;
  guint64 start, end;           /* ns */
  guint64 wait;                 /* ns blocked (send, recv and wait kinds; 0 for the others) */
  const char *device, *model;   /* valid until the next call */
  const char *config;           /* the model's configuration when named, else NULL */
  const char *rud;              /* NULL when absent */
  /* isend, irecv, as posted: */
  guint64 request;
  guint peer;
  gboolean any_peer;            /* irecv from any source */
  gint tag;
  gboolean any_tag;             /* irecv of any tag */
  guint64 bytes;
  guint64 msg;                  /* isend */
  /* send, recv: one, their own message (same fields as the event's);
   * wait kinds: the requests completed, in the trace's order.  Valid until
   * the next call. */
  const PtiTrCompletion *done;
  guint n_done;
  /* io (also bytes, wait): the op (PTI_TRACE_IO_N_OPS names them), the
   * file's number, the offset, a collective call */
  guint io_op, file;
  guint64 offset;
  gboolean collective;
} PtiTrEvent;

typedef struct {
  guint type;                   /* index in header->records */
  gboolean in_process;          /* inside a process group (else directly in <events>) */
  guint rank;                   /* when in_process */
  const char *const *values;    /* [n_fields]; valid until the next call */
  guint64 time;                 /* ns: the "time" field, else the end of the
                                 * process's previous event (0 if none) */
} PtiTrRecord;

typedef struct {
  guint rank;
  gboolean begin;
  PtiTraceCall call;
  guint comm;
  gboolean has_root;            /* rooted calls */
  guint root;
  guint64 bytes;
  guint64 time;                 /* ns */
  guint64 begin_time;           /* ns, at the end: when the call began on this rank */
} PtiTrCollective;

typedef struct {
  guint rank;
  guint64 start, end;           /* ns */
  guint64 repetitions, events;
  guint64 compute, comm, wait;  /* ns */
} PtiTrDerived;

typedef struct {
  PtiTrItemType type;
  guint64 line;                 /* of the element; 0 past line 65535 (libxml2 keeps 16
                                 * bits): pti_trace_line_of() finds it from element */
  guint64 element;              /* 1-based number of the element in the document */
  guint64 chunk;                /* 1-based <events> chunk (0 for the summary) */
  PtiTrEvent event;             /* PTI_TR_ITEM_EVENT */
  PtiTrRecord record;           /* PTI_TR_ITEM_RECORD */
  PtiTrCollective collective;   /* PTI_TR_ITEM_COLLECTIVE */
  PtiTrDerived derived;         /* PTI_TR_ITEM_DERIVED */
} PtiTrItem;

typedef struct _PtiTraceReader PtiTraceReader;

/* Open @path and read its header.  NULL with @error (IO or INVALID). */
PtiTraceReader *pti_trace_reader_open (const char *path, GError **error);
void pti_trace_reader_free (PtiTraceReader *reader);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PtiTraceReader, pti_trace_reader_free)

const PtiTrHeader *pti_trace_reader_header (const PtiTraceReader *reader);
const char *pti_trace_reader_path (const PtiTraceReader *reader);

/* The next item in document order.  TRUE with @item; FALSE at the end of a
 * complete trace (@error unset) or with @error.  The last item of a complete
 * trace is PTI_TR_ITEM_SUMMARY; the end is reported only after the root
 * element closed and the document ended. */
gboolean pti_trace_reader_next (PtiTraceReader *reader, PtiTrItem *item, GError **error);

/* Read to the end, ignoring items (validates the rest). */
gboolean pti_trace_reader_skip_to_end (PtiTraceReader *reader, GError **error);

/* Set once the summary has been read, else NULL. */
const PtiTrSummary *pti_trace_reader_summary (const PtiTraceReader *reader);

/* Number of events read so far. */
guint64 pti_trace_reader_n_events (const PtiTraceReader *reader);
/* Events of the derived spans read so far (not in the trace). */
guint64 pti_trace_reader_n_derived (const PtiTraceReader *reader);

/* An INVALID error "PATH:LINE: MESSAGE" for a problem the caller found in
 * an item (a record field that is not a number, an unpaired message), from
 * the item's line and element. */
void pti_trace_reader_error_at (const PtiTraceReader *reader, guint64 line, guint64 element,
                                GError **error, const char *format, ...) G_GNUC_PRINTF (5, 6);

/* @line if not 0, else the line of the @element-th start tag of the file at
 * @path, found by reading it again (for error messages); 0 if unknown. */
guint64 pti_trace_line_of (const char *path, guint64 line, guint64 element);

/* Helpers for record fields and other numbers written by pti.
 * Seconds "D+[.D{1,9}]" to ns; FALSE if malformed or >= 9.2e9 s. */
gboolean pti_tr_parse_seconds (const char *text, guint64 *ns);
/* A decimal number (C syntax, optional exponent), finite.  FALSE otherwise. */
gboolean pti_tr_parse_number (const char *text, double *value);
/* An integer "[-]D+" fitting in gint64.  FALSE otherwise. */
gboolean pti_tr_parse_int64 (const char *text, gint64 *value);

G_END_DECLS
