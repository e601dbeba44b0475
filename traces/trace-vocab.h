/* The vocabulary of pti's output trace, defined once: the format version,
 * the namespace, element and attribute names, event kinds and collective
 * calls with their names.  The engine, the writer, the reader and ptitrace
 * all use these (traces/README.md describes what each one means).
 *
 * Names are string literals, so that hot paths can paste them into raw
 * markup at compile time: "\" " PTI_TRACE_A_START "=\"".
 *
 * Uses only GLib. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Format version 2: message timing (requests completed by waits), wait,
 * waitall and waitany apart, collective markers, derived spans.  An
 * incompatible version gets a namespace of its own (schemas/README.md). */
#define PTI_TRACE_VERSION "2"
#define PTI_TRACE_NAMESPACE "urn:pti:trace:2"
/* Version 1's, recognised only to say it is too old. */
#define PTI_TRACE_NAMESPACE_1 "urn:pti:trace:1"

/* ---- elements ---------------------------------------------------------- */

#define PTI_TRACE_E_TRACE "trace"
#define PTI_TRACE_E_HEADER "header"
#define PTI_TRACE_E_GENERATOR "generator"
#define PTI_TRACE_E_SYSTEM "system"
#define PTI_TRACE_E_WORKLOAD "workload"
#define PTI_TRACE_E_PARAMETERS "parameters"
#define PTI_TRACE_E_PARAM "param"
#define PTI_TRACE_E_MODELS "models"
#define PTI_TRACE_E_MODEL "model"
#define PTI_TRACE_E_RECORDS "records"
#define PTI_TRACE_E_RECORD "record"
#define PTI_TRACE_E_PROCESSES "processes"
#define PTI_TRACE_E_PROCESS "process"       /* in header/processes, events and summary */
#define PTI_TRACE_E_EVENTS "events"
#define PTI_TRACE_E_EVENT "event"
#define PTI_TRACE_E_REQUEST "request"       /* a request a wait completed: child of <event> */
#define PTI_TRACE_E_COLLECTIVE "collective" /* begin or end of a collective call */
#define PTI_TRACE_E_DERIVED "derived"       /* a span analytical repetition derived */
#define PTI_TRACE_E_SUMMARY "summary"
#define PTI_TRACE_E_PHASE "phase"           /* in summary: a named phase's figures */
#define PTI_TRACE_E_ASSERTION "assertion"   /* in summary: a performance assertion */
#define PTI_TRACE_E_VALUE "value"           /* in assertion: a name its test read */

/* ---- attributes -------------------------------------------------------- */

/* <trace>, header */
#define PTI_TRACE_A_XMLNS "xmlns"
#define PTI_TRACE_A_VERSION "version"
#define PTI_TRACE_A_NAME "name"
#define PTI_TRACE_A_FILE "file"
#define PTI_TRACE_A_VALUE "value"
#define PTI_TRACE_A_OWNER "owner"
#define PTI_TRACE_A_NS "ns"
#define PTI_TRACE_A_FIELDS "fields"
#define PTI_TRACE_A_DESCRIPTION "description"
#define PTI_TRACE_A_COUNT "count"
#define PTI_TRACE_A_RANK "rank"
#define PTI_TRACE_A_PROCESSOR "processor"
/* <event> */
#define PTI_TRACE_A_KIND "kind"
#define PTI_TRACE_A_START "start"
#define PTI_TRACE_A_END "end"
#define PTI_TRACE_A_DEVICE "device"
#define PTI_TRACE_A_MODEL "model"
#define PTI_TRACE_A_CONFIG "config"         /* also header/models/model: a named configuration */
#define PTI_TRACE_A_RUD "rud"
#define PTI_TRACE_A_PEER "peer"
#define PTI_TRACE_A_TAG "tag"
#define PTI_TRACE_A_BYTES "bytes"
#define PTI_TRACE_A_MSG "msg"
#define PTI_TRACE_A_PROTOCOL "protocol"
#define PTI_TRACE_A_WAIT "wait"
#define PTI_TRACE_A_REQUEST "request"       /* isend, irecv: the request they post */
#define PTI_TRACE_A_INJECTED "injected"
#define PTI_TRACE_A_LEFT "left"             /* sends */
#define PTI_TRACE_A_ARRIVED "arrived"       /* receives */
/* io events (also file, bytes, wait) */
#define PTI_TRACE_A_OP "op"                 /* write, read, open, close */
#define PTI_TRACE_A_OFFSET "offset"
#define PTI_TRACE_A_COLLECTIVE "collective" /* "yes" for a collective call */
#define PTI_TRACE_A_IO "io"                 /* summary/process: time in the io device */
/* <request> (also kind, msg, peer, tag, bytes, protocol, injected, left, arrived) */
#define PTI_TRACE_A_ID "id"
#define PTI_TRACE_A_POSTED "posted"
/* <collective> (also bytes) */
#define PTI_TRACE_A_PHASE "phase"
#define PTI_TRACE_A_CALL "call"
#define PTI_TRACE_A_COMM "comm"             /* also in summary/process: time in the message layer */
#define PTI_TRACE_A_ROOT "root"
#define PTI_TRACE_A_TIME "time"
/* <derived> (also start, end, compute, comm, wait) */
#define PTI_TRACE_A_REPETITIONS "repetitions"
#define PTI_TRACE_A_EVENTS "events"         /* also in summary and summary/process */
#define PTI_TRACE_A_COMPUTE "compute"
/* summary (also events, rank, end, compute, comm, wait) */
#define PTI_TRACE_A_PREDICTED_TIME "predicted_time"
#define PTI_TRACE_A_TEST "test"
#define PTI_TRACE_A_PASSED "passed"
#define PTI_TRACE_A_ORIGIN "origin"
#define PTI_TRACE_A_MESSAGES "messages"
#define PTI_TRACE_A_ENTRIES "entries"
#define PTI_TRACE_A_RANKS "ranks"
#define PTI_TRACE_A_DERIVED "derived"

/* ---- values ------------------------------------------------------------ */

#define PTI_TRACE_V_EAGER "eager"
#define PTI_TRACE_V_RENDEZVOUS "rendezvous"
#define PTI_TRACE_V_ANY "any"               /* irecv peer and tag: MPI_ANY_SOURCE, MPI_ANY_TAG */
#define PTI_TRACE_V_BEGIN "begin"
#define PTI_TRACE_V_END "end"

/* ---- event kinds (<event kind>) ---------------------------------------- */

typedef enum {
  PTI_TRACE_COMPUTE,   /* a device use priced by a CPU model */
  PTI_TRACE_SEND,      /* a blocking send: posts and completes its message */
  PTI_TRACE_RECV,      /* a blocking receive: posts and completes its message */
  PTI_TRACE_ISEND,     /* posting a non-blocking send */
  PTI_TRACE_IRECV,     /* posting a non-blocking receive */
  PTI_TRACE_WAIT,      /* MPI_Wait: one request */
  PTI_TRACE_WAITALL,   /* MPI_Waitall: every request it names */
  PTI_TRACE_WAITANY,   /* MPI_Waitany: the first of the requests it names */
  PTI_TRACE_IO,        /* a request to a file system (io device): write, read, open, close */
  PTI_TRACE_N_KINDS
} PtiTraceKind;

/* "compute", "send", ...; "?" out of range. */
const char *pti_trace_kind_name (PtiTraceKind kind);
/* The kind named @name, or PTI_TRACE_N_KINDS. */
PtiTraceKind pti_trace_kind_from_name (const char *name);
/* "compute, send, recv, ..." for error messages. */
#define PTI_TRACE_KIND_LIST "compute, send, recv, isend, irecv, wait, waitall, waitany, io"

/* The op of an io event, numbered as the HMI's PtiIoKind. */
#define PTI_TRACE_IO_N_OPS 4
/* "write", "read", "open", "close"; "?" out of range. */
const char *pti_trace_io_op_name (guint op);
/* The op named @name, or PTI_TRACE_IO_N_OPS. */
guint pti_trace_io_op_from_name (const char *name);

/* Blocking send and recv: the event is its message's whole life on that rank. */
#define PTI_TRACE_KIND_IS_BLOCKING(k) ((k) == PTI_TRACE_SEND || (k) == PTI_TRACE_RECV)
/* isend and irecv: they post a request that a wait kind completes. */
#define PTI_TRACE_KIND_IS_POSTING(k) ((k) == PTI_TRACE_ISEND || (k) == PTI_TRACE_IRECV)
/* send, recv, isend, irecv. */
#define PTI_TRACE_KIND_IS_MESSAGE(k) ((k) >= PTI_TRACE_SEND && (k) <= PTI_TRACE_IRECV)
/* wait, waitall, waitany. */
#define PTI_TRACE_KIND_IS_WAIT(k) ((k) >= PTI_TRACE_WAIT && (k) <= PTI_TRACE_WAITANY)
/* send and isend: the sending end of a message. */
#define PTI_TRACE_KIND_IS_SENDER(k) ((k) == PTI_TRACE_SEND || (k) == PTI_TRACE_ISEND)

/* ---- collective calls (<collective call>) ------------------------------ */

/* In this order; the WSL's collectives use the same numbers. */
typedef enum {
  PTI_TRACE_BARRIER,
  PTI_TRACE_BCAST,
  PTI_TRACE_REDUCE,
  PTI_TRACE_ALLREDUCE,
  PTI_TRACE_GATHER,
  PTI_TRACE_SCATTER,
  PTI_TRACE_ALLGATHER,
  PTI_TRACE_ALLTOALL,
  PTI_TRACE_ALLTOALLV,
  PTI_TRACE_SCAN,
  PTI_TRACE_EXSCAN,
  PTI_TRACE_REDUCE_SCATTER,
  PTI_TRACE_REDUCE_SCATTER_BLOCK,
  PTI_TRACE_GATHERV,
  PTI_TRACE_SCATTERV,
  PTI_TRACE_ALLGATHERV,
  PTI_TRACE_N_CALLS
} PtiTraceCall;

const char *pti_trace_call_name (PtiTraceCall call);
PtiTraceCall pti_trace_call_from_name (const char *name);
#define PTI_TRACE_CALL_LIST \
  "barrier, bcast, reduce, allreduce, gather, scatter, allgather, alltoall, alltoallv, scan, " \
  "exscan, reduce_scatter, reduce_scatter_block, gatherv, scatterv, allgatherv"
/* Calls with a root (the <collective> marker carries root). */
#define PTI_TRACE_CALL_IS_ROOTED(c) \
  ((c) == PTI_TRACE_BCAST || (c) == PTI_TRACE_REDUCE || (c) == PTI_TRACE_GATHER \
   || (c) == PTI_TRACE_SCATTER || (c) == PTI_TRACE_GATHERV || (c) == PTI_TRACE_SCATTERV)

G_END_DECLS
