/* The session's sink for the engine: finished events, buffered per
 * process and written to the trace in chunks.
 *
 * The engine finishes events in simulated-time order across processes, but
 * the trace groups them per process (traces/README.md: `<events>` chunks of
 * `<process>` groups).  Events wait in one buffer per process; when the
 * buffers hold enough, all of them are written as one chunk and emptied, so
 * memory stays bounded by the chunk size, not by the trace.  Internal to the
 * engine (session.c). */
#pragma once

#include "engine.h"
#include "trace-writer.h"

G_BEGIN_DECLS

typedef struct _PtiTraceSink PtiTraceSink;

/* @rud_name gives the name of a RUD id (for compute events). */
PtiTraceSink *pti_trace_sink_new (PtiTraceWriter *writer, guint n_procs,
                                  const char *(*rud_name) (gpointer data, guint32 id),
                                  gpointer data);
void pti_trace_sink_free (PtiTraceSink *sink);
/* Write a chunk whenever @events events are buffered (0: the default,
 * about 6 MB of events). */
void pti_trace_sink_set_chunk (PtiTraceSink *sink, guint64 events);
/* The callbacks to give the engine (pti_engine_set_sink). */
void pti_trace_sink_engine_sink (PtiTraceSink *sink, PtiEngineSink *out);
/* Write what is buffered as one chunk (a partial evaluation's). */
gboolean pti_trace_sink_flush (PtiTraceSink *sink, GError **error);
/* Flush, then write the summary. */
gboolean pti_trace_sink_finish (PtiTraceSink *sink, double predicted, guint64 events,
                                const PtiTraceProcessSummary *procs, guint n, GError **error);

G_END_DECLS
