/* Names of the trace's event kinds and collective calls.  See trace-vocab.h. */
#include "trace-vocab.h"

#include <string.h>

static const char *const kind_names[PTI_TRACE_N_KINDS] = {
  [PTI_TRACE_COMPUTE] = "compute", [PTI_TRACE_SEND] = "send", [PTI_TRACE_RECV] = "recv",
  [PTI_TRACE_ISEND] = "isend", [PTI_TRACE_IRECV] = "irecv", [PTI_TRACE_WAIT] = "wait",
  [PTI_TRACE_WAITALL] = "waitall", [PTI_TRACE_WAITANY] = "waitany", [PTI_TRACE_IO] = "io",
};

static const char *const io_op_names[PTI_TRACE_IO_N_OPS] = { "write", "read", "open", "close" };

static const char *const call_names[PTI_TRACE_N_CALLS] = {
  [PTI_TRACE_BARRIER] = "barrier", [PTI_TRACE_BCAST] = "bcast", [PTI_TRACE_REDUCE] = "reduce",
  [PTI_TRACE_ALLREDUCE] = "allreduce", [PTI_TRACE_GATHER] = "gather",
  [PTI_TRACE_SCATTER] = "scatter", [PTI_TRACE_ALLGATHER] = "allgather",
  [PTI_TRACE_ALLTOALL] = "alltoall", [PTI_TRACE_ALLTOALLV] = "alltoallv",
  [PTI_TRACE_SCAN] = "scan", [PTI_TRACE_EXSCAN] = "exscan",
  [PTI_TRACE_REDUCE_SCATTER] = "reduce_scatter",
  [PTI_TRACE_REDUCE_SCATTER_BLOCK] = "reduce_scatter_block", [PTI_TRACE_GATHERV] = "gatherv",
  [PTI_TRACE_SCATTERV] = "scatterv", [PTI_TRACE_ALLGATHERV] = "allgatherv",
};

/* The index of @name among @n @names, or @n. */
static guint
index_of (const char *const *names, guint n, const char *name)
{
  guint i = 0;
  while (i < n && g_strcmp0 (name, names[i]) != 0)
    i++;
  return i;
}

const char *
pti_trace_kind_name (PtiTraceKind kind)
{
  return (guint) kind < PTI_TRACE_N_KINDS ? kind_names[kind] : "?";
}

PtiTraceKind
pti_trace_kind_from_name (const char *name)
{
  return (PtiTraceKind) index_of (kind_names, PTI_TRACE_N_KINDS, name);
}

const char *
pti_trace_call_name (PtiTraceCall call)
{
  return (guint) call < PTI_TRACE_N_CALLS ? call_names[call] : "?";
}

PtiTraceCall
pti_trace_call_from_name (const char *name)
{
  return (PtiTraceCall) index_of (call_names, PTI_TRACE_N_CALLS, name);
}

const char *
pti_trace_io_op_name (guint op)
{
  return op < PTI_TRACE_IO_N_OPS ? io_op_names[op] : "?";
}

guint
pti_trace_io_op_from_name (const char *name)
{
  return index_of (io_op_names, PTI_TRACE_IO_N_OPS, name);
}
