/* Buffering finished events per process for the trace writer.  See
 * trace-sink.h. */
#include "trace-sink.h"

#include <math.h>

/* Events buffered (all processes) before a chunk is written: about 6 MB. */
#define CHUNK_EVENTS (1u << 16)

/* What a process group holds, in the process's order. */
typedef enum { ITEM_EVENT, ITEM_COLLECTIVE, ITEM_DERIVED } ItemKind;

/* One buffered item.  An event's completions wait in the process's own
 * array (their pointer is set when the chunk is written, since the array
 * may move as it grows). */
typedef struct {
  guint8 kind;           /* ItemKind */
  guint32 first_done;    /* events: index of their first completion */
  union {
    PtiTraceEvent ev;
    PtiTraceCollective coll;
    PtiTraceDerived derived;
  };
} Item;

typedef struct {
  GArray *items;         /* Item */
  GArray *done;          /* PtiTraceCompletion */
} Buffer;

struct _PtiTraceSink {
  PtiTraceWriter *writer;          /* borrowed */
  guint n_procs;
  Buffer *buffers;                 /* per process; arrays made at the first item */
  guint64 buffered;
  guint64 chunk;                   /* events per chunk */
  guint64 derived;                 /* events derived in all (summary/@derived) */
  const char *(*rud_name) (gpointer data, guint32 id);
  gpointer data;
  GError *error;                   /* the first write error, reported at the next flush */
};

PtiTraceSink *
pti_trace_sink_new (PtiTraceWriter *writer, guint n_procs,
                    const char *(*rud_name) (gpointer data, guint32 id), gpointer data)
{
  PtiTraceSink *t = g_new0 (PtiTraceSink, 1);
  t->writer = writer;
  t->n_procs = n_procs;
  t->buffers = g_new0 (Buffer, n_procs);
  t->rud_name = rud_name;
  t->data = data;
  t->chunk = CHUNK_EVENTS;
  return t;
}

void
pti_trace_sink_free (PtiTraceSink *t)
{
  if (t == NULL)
    return;
  for (guint r = 0; r < t->n_procs; r++) {
    if (t->buffers[r].items != NULL)
      g_array_unref (t->buffers[r].items);
    if (t->buffers[r].done != NULL)
      g_array_unref (t->buffers[r].done);
  }
  g_free (t->buffers);
  g_clear_error (&t->error);
  g_free (t);
}

static gboolean
write_item (PtiTraceSink *t, const Buffer *b, Item *it, GError **error)
{
  switch ((ItemKind) it->kind) {
  case ITEM_COLLECTIVE:
    return pti_trace_writer_collective (t->writer, &it->coll, error);
  case ITEM_DERIVED:
    return pti_trace_writer_derived (t->writer, &it->derived, error);
  case ITEM_EVENT:
  default:
    if (it->ev.n_done > 0)
      it->ev.done = &g_array_index (b->done, PtiTraceCompletion, it->first_done);
    return pti_trace_writer_event (t->writer, &it->ev, error);
  }
}

gboolean
pti_trace_sink_flush (PtiTraceSink *t, GError **error)
{
  if (t->error != NULL) {
    g_propagate_error (error, g_steal_pointer (&t->error));
    return FALSE;
  }
  if (t->buffered == 0)
    return TRUE;
  for (guint r = 0; r < t->n_procs; r++) {
    Buffer *b = &t->buffers[r];
    if (b->items == NULL || b->items->len == 0)
      continue;
    if (!pti_trace_writer_begin_process (t->writer, r, error))
      return FALSE;
    for (guint i = 0; i < b->items->len; i++)
      if (!write_item (t, b, &g_array_index (b->items, Item, i), error))
        return FALSE;
    if (!pti_trace_writer_end_process (t->writer, error))
      return FALSE;
    g_array_set_size (b->items, 0);
    g_array_set_size (b->done, 0);
  }
  t->buffered = 0;
  return pti_trace_writer_end_chunk (t->writer, error);
}

void
pti_trace_sink_set_chunk (PtiTraceSink *t, guint64 events)
{
  t->chunk = events > 0 ? events : CHUNK_EVENTS;
}

/* The next item of @rank's buffer (grown geometrically, kept between chunks). */
static Item *
next_item (PtiTraceSink *t, guint rank)
{
  Buffer *b = &t->buffers[rank];
  if (G_UNLIKELY (b->items == NULL)) {
    b->items = g_array_sized_new (FALSE, FALSE, sizeof (Item), 64);
    b->done = g_array_sized_new (FALSE, FALSE, sizeof (PtiTraceCompletion), 64);
  }
  g_array_set_size (b->items, b->items->len + 1);
  return &g_array_index (b->items, Item, b->items->len - 1);
}

static void
add_done (Buffer *b, const PtiEngineDone *d)
{
  g_array_set_size (b->done, b->done->len + 1);
  g_array_index (b->done, PtiTraceCompletion, b->done->len - 1) = (PtiTraceCompletion) {
    .kind = d->blocking ? (d->recv ? PTI_TRACE_RECV : PTI_TRACE_SEND)
                        : (d->recv ? PTI_TRACE_IRECV : PTI_TRACE_ISEND),
    .request = d->request, .msg = d->msg, .peer = d->peer, .tag = d->tag, .bytes = d->bytes,
    .rendezvous = d->rendezvous, .posted = d->posted, .injected = d->entered,
    .done = d->recv ? d->arrived : d->ready,
  };
}

static void
on_event (gpointer data, guint rank, const PtiEngineEvent *ev)
{
  static const PtiTraceKind kinds[] = {
    [PTI_OP_COMPUTE] = PTI_TRACE_COMPUTE, [PTI_OP_SEND] = PTI_TRACE_SEND,
    [PTI_OP_RECV] = PTI_TRACE_RECV, [PTI_OP_ISEND] = PTI_TRACE_ISEND,
    [PTI_OP_IRECV] = PTI_TRACE_IRECV, [PTI_OP_WAIT] = PTI_TRACE_WAIT,
    [PTI_OP_WAITALL] = PTI_TRACE_WAITALL, [PTI_OP_WAITANY] = PTI_TRACE_WAITANY,
    [PTI_OP_PROBE] = PTI_TRACE_WAIT,   /* a wait for a message, without a request */
    [PTI_OP_IO] = PTI_TRACE_IO,
  };
  PtiTraceSink *t = data;
  if (ev->kind == PTI_OP_PHASE_BEGIN || ev->kind == PTI_OP_PHASE_END)
    return;   /* phases are not in trace format 2 */
  Item *it = next_item (t, rank);
  Buffer *b = &t->buffers[rank];
  switch (ev->kind) {
  case PTI_OP_COLL_BEGIN:
  case PTI_OP_COLL_END:
    it->kind = ITEM_COLLECTIVE;
    it->coll = (PtiTraceCollective) { .begin = ev->kind == PTI_OP_COLL_BEGIN,
                                      .call = (PtiTraceCall) ev->coll, .comm = ev->comm,
                                      .root = ev->root, .bytes = ev->bytes, .time = ev->start };
    break;
  case PTI_OP_DERIVED:
    it->kind = ITEM_DERIVED;
    it->derived = (PtiTraceDerived) { .start = ev->start, .end = ev->end,
                                      .repetitions = ev->repetitions,
                                      .events = ev->derived_events, .compute = ev->derived_compute,
                                      .comm = ev->derived_comm, .wait = ev->wait };
    t->derived += ev->derived_events;
    break;
  default:
    it->kind = ITEM_EVENT;
    it->first_done = b->done->len;
    it->ev = (PtiTraceEvent) { .kind = kinds[ev->kind], .start = ev->start, .end = ev->end,
                               .model = ev->model->desc->name, .config = ev->model->config,
                               .device = "mpi" };
    switch (ev->kind) {
    case PTI_OP_COMPUTE:
      it->ev.device = "cpu";
      it->ev.rud = t->rud_name (t->data, ev->rud);
      break;
    case PTI_OP_IO:
      it->ev.device = "io";
      it->ev.io_op = ev->io_kind;
      it->ev.file = ev->file;
      it->ev.offset = ev->offset;
      it->ev.bytes = ev->bytes;
      it->ev.wait = ev->wait;
      it->ev.collective = ev->collective;
      break;
    case PTI_OP_ISEND:
    case PTI_OP_IRECV:
      it->ev.request = ev->request;
      it->ev.peer = ev->peer;
      it->ev.any_peer = ev->peer == PTI_ENGINE_ANY_SOURCE;
      it->ev.tag = ev->tag;
      it->ev.any_tag = ev->kind == PTI_OP_IRECV && ev->tag == PTI_ENGINE_ANY_TAG;
      it->ev.bytes = ev->bytes;
      it->ev.msg = ev->msg;
      break;
    default:   /* send, recv, the wait kinds: what they completed */
      it->ev.wait = ev->wait;
      for (guint i = 0; i < ev->n_done; i++)
        add_done (b, &ev->done[i]);
      it->ev.n_done = ev->n_done;
      break;
    }
    break;
  }
  if (++t->buffered >= t->chunk && t->error == NULL)
    pti_trace_sink_flush (t, &t->error);
}

static void
on_record (gpointer data, const PtiModelInstance *model, guint type, const char *const *values)
{
  PtiTraceSink *t = data;
  gint base = pti_trace_writer_record_base (t->writer, model->desc->name);
  if (base >= 0 && t->error == NULL)
    pti_trace_writer_record (t->writer, (guint) base + type, values, &t->error);
}

void
pti_trace_sink_engine_sink (PtiTraceSink *t, PtiEngineSink *out)
{
  *out = (PtiEngineSink) { .event = on_event, .record = on_record, .data = t };
}

gboolean
pti_trace_sink_finish (PtiTraceSink *t, double predicted, guint64 events,
                       const PtiTraceProcessSummary *procs, guint n, GError **error)
{
  pti_trace_writer_set_derived (t->writer, t->derived);
  return pti_trace_sink_flush (t, error)
         && pti_trace_writer_summary (t->writer, predicted, events, procs, n, error);
}
