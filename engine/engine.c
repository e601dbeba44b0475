/* The evaluation engine: event lists and stage 2.
 *
 * Stage 1 happened when the workload was built: every computation arrived
 * here already priced by its CPU model.  Stage 2 (pti_engine_run) replays the
 * processes in simulated-time order.
 *
 * The loop.  A binary heap holds timed engine events, ordered by (time, seq)
 * where seq is an insertion counter, so equal times resolve in a fixed order
 * and the result is byte-identical run to run.  A process runs inline through
 * its computations (no heap operation per computation); at its next
 * communication it yields with a RESUME at its own clock unless that clock is
 * the current time.  So every interaction (a send posted, a receive posted, a
 * network transfer started) happens in global time order, which is what a
 * model that keeps state between transfers needs (LogGP's gap; contention).
 *
 * Messages.  A send is posted to the receiver when it starts: its envelope
 * joins the receiver's queue of unmatched sends, in posting order, and a
 * receive takes the first with its source and tag, so messages between a
 * pair with one tag never overtake each other.
 *   eager (bytes <= the network's eager limit): the sender spends o_s, the
 *     data enters the network then, and the sender goes on.  The receive
 *     completes o_r after max(arrival, its posting).
 *   rendezvous: after o_s the sender's request (0 bytes) travels to the
 *     receiver; once it has arrived and the receive is posted the receiver
 *     answers (0 bytes); when the answer reaches the sender the data enters
 *     the network.  The sender is done when its data has left (injected), the
 *     receiver o_r after the data has arrived.
 * Time a process spends blocked on its peer is `wait`; time in the message
 * layer (overheads, pushing rendezvous data out) is `comm`. */
#include "engine.h"

#include <math.h>
#include <string.h>

typedef struct {
  double start, end;     /* s, set in stage 2 */
  union {
    double duration;     /* compute: stage 1 cost */
    double wait;         /* messages: time blocked on the peer, set in stage 2 */
  };
  guint64 bytes;         /* messages */
  guint64 msg;           /* messages: id shared by both ends, set in stage 2 */
  gint32 tag;            /* messages */
  guint32 ref;           /* compute: RUD id; messages: the peer rank */
  guint8 kind;           /* PtiEventKind */
  guint8 rendezvous;     /* messages, set in stage 2 */
} Event;

typedef struct Msg Msg;
struct Msg {
  Msg *next;             /* receiver's unmatched queue, or the free list */
  guint32 src, dst;
  gint32 tag;
  guint32 send_ev;       /* index in the sender's list */
  guint32 recv_ev;       /* index in the receiver's list once matched */
  guint64 bytes;
  guint64 id;
  guint8 rendezvous;
  guint8 matched;
  guint8 request_in;     /* rendezvous request has reached the receiver */
  guint8 data_in;        /* data has reached the receiver */
};

typedef enum {
  PROC_READY,            /* runnable (or waiting for its RESUME) */
  PROC_RECV_POSTED,      /* blocked in a receive nothing has matched yet */
  PROC_RECV_MATCHED,     /* blocked in a receive whose message is on its way */
  PROC_SEND_BLOCKED,     /* blocked in a rendezvous send */
  PROC_DONE,
} ProcState;

typedef struct {
  Event *ev;
  guint n, cap;
  guint cursor;          /* next event to resolve */
  double clock;          /* s: where this process is */
  double blocked_since;  /* s */
  guint8 state;
  Msg *pending;          /* the message a blocked process waits on */
  Msg *unmatched_head, *unmatched_tail; /* sends posted to this process, not yet received */
  const PtiModelInstance *cpu;
  const PtiModelInstance *net;
  guint32 network, port;
  double compute, comm, wait;
} Proc;

typedef enum {
  ITEM_RESUME,           /* a process continues at its clock */
  ITEM_INJECT_DATA,      /* eager data enters the network */
  ITEM_INJECT_REQUEST,   /* rendezvous request enters the network */
  ITEM_REQUEST_ARRIVE,
  ITEM_REPLY_ARRIVE,     /* rendezvous answer reaches the sender */
  ITEM_DATA_ARRIVE,
} ItemType;

typedef struct {
  double t;
  guint64 seq;
  Msg *msg;
  guint32 rank;
  guint32 type;
} Item;

#define MSG_CHUNK 1024

struct _PtiEngine {
  const PtiSystem *system;
  Proc *procs;
  guint n_procs;
  Item *heap;
  guint heap_n, heap_cap;
  guint64 seq;
  double now;
  guint64 next_msg_id;
  Msg *free_msgs;
  GPtrArray *msg_chunks;
  GError *error;         /* first error raised inside the loop */
  gboolean ran;
  double predicted;
  guint64 n_events;
  PtiProgressFunc progress;
  gpointer progress_data;
  guint64 progress_every;
};

/* ---- heap ------------------------------------------------------------- */

static inline gboolean
item_less (const Item *a, const Item *b)
{
  return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static void
heap_push (PtiEngine *e, double t, ItemType type, guint32 rank, Msg *msg)
{
  if (e->heap_n == e->heap_cap) {
    e->heap_cap = MAX (64, e->heap_cap * 2);
    e->heap = g_renew (Item, e->heap, e->heap_cap);
  }
  Item it = { .t = t, .seq = e->seq++, .msg = msg, .rank = rank, .type = type };
  guint i = e->heap_n++;
  while (i > 0) {
    guint parent = (i - 1) / 2;
    if (!item_less (&it, &e->heap[parent]))
      break;
    e->heap[i] = e->heap[parent];
    i = parent;
  }
  e->heap[i] = it;
}

static Item
heap_pop (PtiEngine *e)
{
  Item top = e->heap[0];
  Item last = e->heap[--e->heap_n];
  guint i = 0, n = e->heap_n;
  for (;;) {
    guint c = 2 * i + 1;
    if (c >= n)
      break;
    if (c + 1 < n && item_less (&e->heap[c + 1], &e->heap[c]))
      c++;
    if (!item_less (&e->heap[c], &last))
      break;
    e->heap[i] = e->heap[c];
    i = c;
  }
  if (n > 0)
    e->heap[i] = last;
  return top;
}

/* ---- message pool ------------------------------------------------------ */

static Msg *
msg_new (PtiEngine *e)
{
  if (e->free_msgs == NULL) {
    Msg *chunk = g_new (Msg, MSG_CHUNK);
    g_ptr_array_add (e->msg_chunks, chunk);
    for (guint i = 0; i < MSG_CHUNK; i++) {
      chunk[i].next = e->free_msgs;
      e->free_msgs = &chunk[i];
    }
  }
  Msg *m = e->free_msgs;
  e->free_msgs = m->next;
  memset (m, 0, sizeof *m);
  return m;
}

static void
msg_free (PtiEngine *e, Msg *m)
{
  m->next = e->free_msgs;
  e->free_msgs = m;
}

/* ---- building ---------------------------------------------------------- */

PtiEngine *
pti_engine_new (const PtiSystem *system, guint nprocs, GError **error)
{
  if (nprocs == 0 || nprocs > system->processors->len) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "%u processes requested but system '%s' (%s) has %u processors",
                 nprocs, system->name, system->path, system->processors->len);
    return NULL;
  }
  PtiEngine *e = g_new0 (PtiEngine, 1);
  e->system = system;
  e->n_procs = nprocs;
  e->procs = g_new0 (Proc, nprocs);
  e->msg_chunks = g_ptr_array_new_with_free_func (g_free);
  for (guint r = 0; r < nprocs; r++) {
    Proc *p = &e->procs[r];
    const PtiProcessor *cpu = &g_array_index (system->processors, PtiProcessor, r);
    const PtiNode *node = &g_array_index (system->nodes, PtiNode, cpu->node);
    p->cpu = pti_system_cpu_model (system, r);
    p->network = node->network >= 0 ? (guint32) node->network : G_MAXUINT32;
    p->port = node->port;
    p->net = node->network >= 0
               ? g_array_index (system->networks, PtiNetwork, node->network).model : NULL;
  }
  return e;
}

void
pti_engine_free (PtiEngine *e)
{
  if (e == NULL)
    return;
  for (guint r = 0; r < e->n_procs; r++)
    g_free (e->procs[r].ev);
  g_free (e->procs);
  g_free (e->heap);
  g_ptr_array_unref (e->msg_chunks);
  g_clear_error (&e->error);
  g_free (e);
}

guint
pti_engine_n_procs (const PtiEngine *e)
{
  return e->n_procs;
}

const PtiModelInstance *
pti_engine_cpu (const PtiEngine *e, guint rank)
{
  return e->procs[rank].cpu;
}

static inline Event *
event_append (Proc *p)
{
  if (G_UNLIKELY (p->n == p->cap)) {
    p->cap = MAX (16, p->cap * 2);
    p->ev = g_renew (Event, p->ev, p->cap);
  }
  Event *ev = &p->ev[p->n++];
  memset (ev, 0, sizeof *ev);
  return ev;
}

void
pti_engine_add_compute (PtiEngine *e, guint rank, double duration, guint32 rud)
{
  Event *ev = event_append (&e->procs[rank]);
  ev->kind = PTI_EV_COMPUTE;
  ev->duration = duration;
  ev->ref = rud;
}

static gboolean
check_route (PtiEngine *e, guint a, guint b, GError **error)
{
  const Proc *pa = &e->procs[a], *pb = &e->procs[b];
  if (pa->net != NULL && pa->network == pb->network)
    return TRUE;
  g_autofree char *da = pti_system_describe_processor (e->system, a);
  g_autofree char *db = pti_system_describe_processor (e->system, b);
  g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
               "no network connects rank %u (%s) and rank %u (%s) in %s", a, da, b, db,
               e->system->path);
  return FALSE;
}

static gboolean
add_message (PtiEngine *e, PtiEventKind kind, guint rank, guint peer, guint64 bytes, gint tag,
             GError **error)
{
  if (!check_route (e, rank, peer, error))
    return FALSE;
  Event *ev = event_append (&e->procs[rank]);
  ev->kind = kind;
  ev->ref = peer;
  ev->bytes = bytes;
  ev->tag = tag;
  return TRUE;
}

gboolean
pti_engine_add_send (PtiEngine *e, guint rank, guint dst, guint64 bytes, gint tag, GError **error)
{
  return add_message (e, PTI_EV_SEND, rank, dst, bytes, tag, error);
}

gboolean
pti_engine_add_recv (PtiEngine *e, guint rank, guint src, guint64 bytes, gint tag, GError **error)
{
  return add_message (e, PTI_EV_RECV, rank, src, bytes, tag, error);
}

/* ---- stage 2 ------------------------------------------------------------ */

static void run_proc (PtiEngine *e, guint rank);

static inline const PtiNetOps *
net_ops (const Proc *p)
{
  return p->net->desc->net;
}

static void
transfer (PtiEngine *e, guint32 from, guint32 to, guint64 bytes, PtiTransfer *out)
{
  const Proc *ps = &e->procs[from];
  net_ops (ps)->transfer (ps->net->state, ps->port, e->procs[to].port, bytes, e->now, out);
}

/* The receive of @m completes: its data became available at @available. */
static void
complete_recv (PtiEngine *e, Msg *m, double available)
{
  Proc *q = &e->procs[m->dst];
  Event *ev = &q->ev[m->recv_ev];
  double o_r = net_ops (q)->recv_overhead (q->net->state, m->bytes);
  double ready = MAX (available, ev->start);
  ev->wait = ready - ev->start;
  ev->end = ready + o_r;
  ev->msg = m->id;
  ev->rendezvous = m->rendezvous;
  q->wait += ev->wait;
  q->comm += o_r;
  q->clock = ev->end;
  q->cursor++;
  q->state = PROC_READY;
  q->pending = NULL;
  guint32 rank = m->dst;
  msg_free (e, m);
  run_proc (e, rank);
}

/* The rendezvous answer leaves the receiver now. */
static void
send_reply (PtiEngine *e, Msg *m)
{
  PtiTransfer tr;
  transfer (e, m->dst, m->src, 0, &tr);
  heap_push (e, tr.arrived, ITEM_REPLY_ARRIVE, m->src, m);
}

/* Match @m with the receive at @q's cursor.  Returns TRUE if the receive
 * completed at once (the process may go on). */
static gboolean
match (PtiEngine *e, Msg *m, Proc *q)
{
  Event *rv = &q->ev[q->cursor];
  if (G_UNLIKELY (m->bytes > rv->bytes)) {
    if (e->error == NULL)
      g_set_error (&e->error, PTI_ERROR, PTI_ERROR_INVALID,
                   "message of %" G_GUINT64_FORMAT " bytes from rank %u to rank %u (tag %d) is "
                   "longer than the %" G_GUINT64_FORMAT "-byte receive that matches it "
                   "(at simulated time %.9f s)", m->bytes, m->src, m->dst, m->tag, rv->bytes,
                   e->now);
    return FALSE;
  }
  m->matched = TRUE;
  m->recv_ev = q->cursor;
  q->pending = m;
  q->state = PROC_RECV_MATCHED;
  if (m->rendezvous) {
    if (m->request_in)
      send_reply (e, m);
    return FALSE;
  }
  if (m->data_in) {
    /* Completed inline by the caller, which is already running q. */
    return TRUE;
  }
  return FALSE;
}

static void
enqueue_unmatched (Proc *q, Msg *m)
{
  m->next = NULL;
  if (q->unmatched_tail != NULL)
    q->unmatched_tail->next = m;
  else
    q->unmatched_head = m;
  q->unmatched_tail = m;
}

/* Post the send at @p's cursor.  Returns TRUE if the process may go on. */
static gboolean
post_send (PtiEngine *e, guint rank)
{
  Proc *p = &e->procs[rank];
  Event *ev = &p->ev[p->cursor];
  Msg *m = msg_new (e);
  m->src = rank;
  m->dst = ev->ref;
  m->tag = ev->tag;
  m->bytes = ev->bytes;
  m->send_ev = p->cursor;
  m->id = e->next_msg_id++;
  m->rendezvous = ev->bytes > net_ops (p)->eager_limit (p->net->state);

  double o_s = net_ops (p)->send_overhead (p->net->state, ev->bytes);
  ev->start = e->now;
  ev->msg = m->id;
  ev->rendezvous = m->rendezvous;
  p->comm += o_s;
  p->clock = e->now + o_s;

  Proc *q = &e->procs[m->dst];
  gboolean receiver_waits = q->state == PROC_RECV_POSTED
                            && q->ev[q->cursor].ref == rank && q->ev[q->cursor].tag == m->tag;
  if (m->rendezvous) {
    heap_push (e, p->clock, ITEM_INJECT_REQUEST, rank, m);
    p->state = PROC_SEND_BLOCKED;
    p->pending = m;
    p->blocked_since = p->clock;
  } else {
    heap_push (e, p->clock, ITEM_INJECT_DATA, rank, m);
    ev->end = p->clock;
    ev->wait = 0;
    p->cursor++;
  }
  if (receiver_waits)
    match (e, m, q);   /* cannot complete now: the data is not in yet */
  else
    enqueue_unmatched (q, m);
  return !m->rendezvous;
}

/* Post the receive at @q's cursor.  Returns TRUE if the process may go on. */
static gboolean
post_recv (PtiEngine *e, guint rank)
{
  Proc *q = &e->procs[rank];
  Event *ev = &q->ev[q->cursor];
  ev->start = e->now;
  q->blocked_since = e->now;
  Msg *prev = NULL;
  for (Msg *m = q->unmatched_head; m != NULL; prev = m, m = m->next) {
    if (m->src != ev->ref || m->tag != ev->tag)
      continue;
    if (prev != NULL)
      prev->next = m->next;
    else
      q->unmatched_head = m->next;
    if (q->unmatched_tail == m)
      q->unmatched_tail = prev;
    if (!match (e, m, q))
      return FALSE;
    /* Eager data already here: complete without recursing into run_proc. */
    double o_r = net_ops (q)->recv_overhead (q->net->state, m->bytes);
    ev->wait = 0;
    ev->end = e->now + o_r;
    ev->msg = m->id;
    ev->rendezvous = FALSE;
    q->comm += o_r;
    q->clock = ev->end;
    q->cursor++;
    q->state = PROC_READY;
    q->pending = NULL;
    msg_free (e, m);
    return TRUE;
  }
  q->state = PROC_RECV_POSTED;
  return FALSE;
}

/* Run @rank from its cursor until it blocks, must wait for its clock, or ends. */
static void
run_proc (PtiEngine *e, guint rank)
{
  Proc *p = &e->procs[rank];
  while (p->cursor < p->n) {
    Event *ev = &p->ev[p->cursor];
    if (ev->kind == PTI_EV_COMPUTE) {
      ev->start = p->clock;
      p->clock += ev->duration;
      ev->end = p->clock;
      p->compute += ev->duration;
      p->cursor++;
      continue;
    }
    if (p->clock > e->now) {
      heap_push (e, p->clock, ITEM_RESUME, rank, NULL);
      return;
    }
    gboolean go_on = ev->kind == PTI_EV_SEND ? post_send (e, rank) : post_recv (e, rank);
    if (!go_on || e->error != NULL)
      return;
  }
  p->state = PROC_DONE;
}

static void
handle (PtiEngine *e, const Item *it)
{
  Msg *m = it->msg;
  PtiTransfer tr;

  switch ((ItemType) it->type) {
  case ITEM_RESUME:
    run_proc (e, it->rank);
    break;
  case ITEM_INJECT_DATA:
    transfer (e, m->src, m->dst, m->bytes, &tr);
    heap_push (e, tr.arrived, ITEM_DATA_ARRIVE, m->dst, m);
    break;
  case ITEM_INJECT_REQUEST:
    transfer (e, m->src, m->dst, 0, &tr);
    heap_push (e, tr.arrived, ITEM_REQUEST_ARRIVE, m->dst, m);
    break;
  case ITEM_REQUEST_ARRIVE:
    m->request_in = TRUE;
    if (m->matched)
      send_reply (e, m);
    break;
  case ITEM_REPLY_ARRIVE: {
    /* The sender pushes its data out now and is done when it has left. */
    Proc *p = &e->procs[m->src];
    Event *ev = &p->ev[m->send_ev];
    transfer (e, m->src, m->dst, m->bytes, &tr);
    heap_push (e, tr.arrived, ITEM_DATA_ARRIVE, m->dst, m);
    ev->wait = e->now - p->blocked_since;
    ev->end = tr.injected;
    p->wait += ev->wait;
    p->comm += tr.injected - e->now;
    p->clock = tr.injected;
    p->cursor++;
    p->state = PROC_READY;
    p->pending = NULL;
    run_proc (e, m->src);
    break;
  }
  case ITEM_DATA_ARRIVE:
    m->data_in = TRUE;
    if (m->matched)
      complete_recv (e, m, e->now);
    break;
  }
}

static const char *
kind_name (guint8 kind)
{
  return kind == PTI_EV_SEND ? "send" : kind == PTI_EV_RECV ? "recv" : "compute";
}

/* Name every process that cannot go on, and what it waits for. */
static void
report_deadlock (PtiEngine *e, GError **error)
{
  g_autoptr (GString) s = g_string_new (NULL);
  guint blocked = 0;
  double latest = 0;
  for (guint r = 0; r < e->n_procs; r++) {
    Proc *p = &e->procs[r];
    if (p->state == PROC_DONE)
      continue;
    blocked++;
    latest = MAX (latest, p->blocked_since);
    if (blocked > 32)
      continue;
    const Event *ev = &p->ev[p->cursor];
    g_string_append_printf (s, "\n  rank %u: blocked since %.9f s in %s %s rank %u, tag %d, %"
                            G_GUINT64_FORMAT " bytes%s (event %u of %u)", r, p->blocked_since,
                            kind_name (ev->kind), ev->kind == PTI_EV_SEND ? "to" : "from", ev->ref,
                            ev->tag, ev->bytes,
                            p->state == PROC_SEND_BLOCKED ? ", rendezvous: its receive is never posted"
                            : p->state == PROC_RECV_POSTED ? ": no matching send" : "",
                            p->cursor + 1, p->n);
  }
  if (blocked > 32)
    g_string_append_printf (s, "\n  ... and %u more ranks", blocked - 32);
  g_set_error (error, PTI_ERROR, PTI_ERROR_DEADLOCK,
               "deadlock at simulated time %.9f s: %u of %u ranks cannot finish:%s",
               latest, blocked, e->n_procs, s->str);
}

static gboolean
report_unreceived (PtiEngine *e, GError **error)
{
  g_autoptr (GString) s = g_string_new (NULL);
  guint n = 0;
  for (guint r = 0; r < e->n_procs; r++)
    for (Msg *m = e->procs[r].unmatched_head; m != NULL; m = m->next)
      if (n++ < 32)
        g_string_append_printf (s, "\n  rank %u -> rank %u, tag %d, %" G_GUINT64_FORMAT " bytes",
                                m->src, m->dst, m->tag, m->bytes);
  if (n == 0)
    return TRUE;
  if (n > 32)
    g_string_append_printf (s, "\n  ... and %u more", n - 32);
  g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
               "%u message%s sent but never received (every rank finished):%s", n,
               n == 1 ? " was" : "s were", s->str);
  return FALSE;
}

void
pti_engine_set_progress (PtiEngine *e, PtiProgressFunc func, gpointer data, guint64 every)
{
  e->progress = func;
  e->progress_data = data;
  e->progress_every = MAX (every, 1);
}

/* Summing the cursors costs O(processes): fine every so many thousand steps. */
static void
report_progress (PtiEngine *e)
{
  guint64 done = 0, total = 0;
  for (guint r = 0; r < e->n_procs; r++) {
    done += e->procs[r].cursor;
    total += e->procs[r].n;
  }
  e->progress (done, total, e->now, e->progress_data);
}

gboolean
pti_engine_run (PtiEngine *e, GError **error)
{
  g_return_val_if_fail (!e->ran, FALSE);
  e->ran = TRUE;
  e->now = 0;
  for (guint r = 0; r < e->n_procs && e->error == NULL; r++)
    run_proc (e, r);
  guint64 countdown = e->progress_every;
  while (e->heap_n > 0 && e->error == NULL) {
    Item it = heap_pop (e);
    e->now = it.t;
    handle (e, &it);
    if (G_UNLIKELY (e->progress != NULL && --countdown == 0)) {
      report_progress (e);
      countdown = e->progress_every;
    }
  }
  if (e->progress != NULL && e->error == NULL)
    report_progress (e);
  if (e->error != NULL) {
    g_propagate_error (error, g_steal_pointer (&e->error));
    return FALSE;
  }
  for (guint r = 0; r < e->n_procs; r++)
    if (e->procs[r].state != PROC_DONE) {
      report_deadlock (e, error);
      return FALSE;
    }
  if (!report_unreceived (e, error))
    return FALSE;
  e->predicted = 0;
  e->n_events = 0;
  for (guint r = 0; r < e->n_procs; r++) {
    e->predicted = MAX (e->predicted, e->procs[r].clock);
    e->n_events += e->procs[r].n;
  }
  return TRUE;
}

double
pti_engine_predicted_time (const PtiEngine *e)
{
  return e->predicted;
}

guint64
pti_engine_n_events (const PtiEngine *e)
{
  if (e->ran)
    return e->n_events;
  guint64 n = 0;
  for (guint r = 0; r < e->n_procs; r++)
    n += e->procs[r].n;
  return n;
}

void
pti_engine_process_summary (const PtiEngine *e, guint rank, PtiTraceProcessSummary *out)
{
  const Proc *p = &e->procs[rank];
  out->rank = rank;
  out->end = p->clock;
  out->compute = p->compute;
  out->comm = p->comm;
  out->wait = p->wait;
  out->events = p->n;
}

gboolean
pti_engine_write_events (const PtiEngine *e, PtiTraceWriter *w, const char *const *rud_names,
                         GError **error)
{
  for (guint r = 0; r < e->n_procs; r++) {
    const Proc *p = &e->procs[r];
    if (!pti_trace_writer_begin_process (w, r, error))
      return FALSE;
    for (guint i = 0; i < p->n; i++) {
      const Event *ev = &p->ev[i];
      PtiTraceEvent te = { .start = ev->start, .end = ev->end };
      if (ev->kind == PTI_EV_COMPUTE) {
        te.kind = PTI_TRACE_COMPUTE;
        te.device = "cpu";
        te.model = p->cpu->desc->name;
        te.rud = rud_names != NULL ? rud_names[ev->ref] : NULL;
      } else {
        te.kind = ev->kind == PTI_EV_SEND ? PTI_TRACE_SEND : PTI_TRACE_RECV;
        te.device = "mpi";
        te.model = p->net->desc->name;
        te.peer = ev->ref;
        te.tag = ev->tag;
        te.bytes = ev->bytes;
        te.msg = ev->msg;
        te.rendezvous = ev->rendezvous;
        te.wait = ev->wait;
      }
      if (!pti_trace_writer_event (w, &te, error))
        return FALSE;
    }
    if (!pti_trace_writer_end_process (w, error))
      return FALSE;
  }
  g_autofree PtiTraceProcessSummary *sum = g_new (PtiTraceProcessSummary, e->n_procs);
  for (guint r = 0; r < e->n_procs; r++)
    pti_engine_process_summary (e, r, &sum[r]);
  return pti_trace_writer_summary (w, e->predicted, e->n_events, sum, e->n_procs, error);
}
