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
 * layer (overheads, pushing rendezvous data out) is `comm`.
 *
 * Network models.  A cost model (net-simple) prices each transfer when it
 * starts.  A resource model (net-contention) only learns that a flow started;
 * when one ends depends on the flows started later.  The engine keeps one
 * NET_WAKE item per resource model at the time the model says its next flow
 * may end, and advances the model then; the model reports ended flows
 * through a sink whose callbacks only push items (never run a process), so
 * the model is never re-entered while it works.  Scheduled changes of model
 * parameters (pti_engine_add_change) are applied just before the first item
 * at or after their time, so a change never runs ahead of the traffic. */
#include "engine.h"

#include <math.h>
#include <string.h>

typedef struct {
  double start, end;     /* s, set in stage 2 */
  union {
    double duration;     /* compute: stage 1 cost */
    double wait;         /* others: time blocked on a peer, set in stage 2 */
  };
  guint64 bytes;         /* messages */
  guint64 msg;           /* messages: id shared by both ends, set in stage 2 */
  gint32 tag;            /* messages; a receive's actual tag once matched */
  guint32 ref;           /* compute: RUD id; messages: the peer (actual once matched);
                          * waits: first index in the process's wait list */
  guint32 aux;           /* messages: request slot while pending in stage 2;
                          * waits: how many requests */
  guint16 comm;          /* messages: matching context */
  guint8 kind;           /* PtiEventKind, | EV_WAITED once a WAIT names it */
  guint8 rendezvous;     /* messages, set in stage 2 */
} Event;

#define EV_KIND_MASK 0x0f
#define EV_WAITED 0x80   /* an ISEND/IRECV named by a WAIT (checked when building) */
#define NO_SLOT G_MAXUINT32

typedef struct Msg Msg;
struct Msg {
  Msg *next;             /* receiver's unmatched queue, or the free list */
  guint32 src, dst;
  gint32 tag;
  guint32 send_slot;     /* sender's request slot until the send completes */
  guint32 recv_slot;     /* receiver's request slot once matched */
  guint16 comm;
  guint8 rendezvous;
  guint8 request_in;     /* rendezvous request has reached the receiver */
  guint8 data_in;        /* data has reached the receiver */
  guint64 bytes;
  guint64 id;
  double arrived;        /* s, once data_in */
  double reply_at;       /* s: rendezvous answer reached the sender (resource models) */
  const PtiModelInstance *model; /* the network model carrying it */
  guint32 src_port, dst_port;    /* on that model */
  guint8 flow_net;       /* resource model: its index in PtiEngine.nets + 1; 0: cost model */
  guint8 stage;          /* resource model: the Stage of the flow in flight */
};

/* What a message's flow in flight (resource models) carries. */
typedef enum {
  STAGE_EAGER_DATA,
  STAGE_REQUEST,         /* rendezvous request, sender to receiver */
  STAGE_REPLY,           /* rendezvous answer, receiver to sender */
  STAGE_RDV_DATA,
} Stage;

/* A pending send or receive of one process (blocking ones too, for the
 * time they take).  Slots are recycled through a free list. */
typedef struct {
  Msg *msg;              /* send: its message; receive: the matched one */
  const PtiModelInstance *model; /* receive: the model that carried its message */
  double ready;          /* s: when it completed (valid once done) */
  double busy_from;      /* s: from when the rest of its time is the message layer's
                          * work rather than waiting on the peer (rendezvous data out) */
  guint32 event;         /* handle of the event that posted it (see Proc.base) */
  guint32 next;          /* posted-receive queue, or free list */
  guint32 src;           /* receive: wanted source, or PTI_ENGINE_ANY_SOURCE */
  gint32 tag;            /* receive: wanted tag, or PTI_ENGINE_ANY_TAG */
  guint16 comm;
  guint8 is_recv;
  guint8 done;
} Req;

typedef enum {
  PROC_READY,            /* runnable: not started yet, or running */
  PROC_SCHEDULED,        /* its RESUME is in the heap */
  PROC_WAITING,          /* blocked in the event at its cursor until requests complete */
  PROC_STARVED,          /* at the end of its events: finished, unless more are added */
} ProcState;

typedef struct {
  Event *ev;
  guint n, cap;
  guint cursor;          /* next event to resolve */
  guint64 dropped;       /* events resolved, written and freed so far (or repeated) */
  guint stop;            /* a run treats this index as the end of the events */
  GArray *regions;       /* Region: blocks marked for analytical repetition */
  guint32 base;          /* events dropped by partial evaluations before ev[0],
                          * modulo 2^32: an event's handle (a request) is base +
                          * its index, so handles survive the dropping as long
                          * as fewer than 2^32 events of a rank are pending */
  double clock;          /* s: where this process is */
  double wait_from;      /* s: when its current blocking event began to wait
                          * (after a blocking send's overhead) */
  guint8 state;
  Req *reqs;
  guint n_reqs, cap_reqs;
  guint32 free_req;      /* free list of request slots */
  guint live_reqs;       /* slots in use */
  guint32 posted_head, posted_tail;  /* receives posted, not matched, in order */
  Msg *unmatched_head, *unmatched_tail; /* sends posted to this process, not yet matched */
  guint32 *waits;        /* request lists of WAIT/WAITANY events: event handles */
  guint n_waits, cap_waits;
  const PtiModelInstance *cpu;
  const PtiModelInstance *net;
  const PtiModelInstance *intra; /* between processes of its node, or NULL */
  guint32 network, port;
  guint32 node, cpu_index;
  guint32 processor;     /* where it is placed: an index into system->processors */
  double compute, comm, wait;
} Proc;

/* A block of one process's events evaluated `count` times (indices into ev). */
typedef struct {
  guint start, end;
  guint64 count;
} Region;

typedef enum {
  ITEM_RESUME,           /* a process continues at its clock */
  ITEM_INJECT_DATA,      /* eager data enters the network */
  ITEM_INJECT_REQUEST,   /* rendezvous request enters the network */
  ITEM_REQUEST_ARRIVE,
  ITEM_REPLY_ARRIVE,     /* rendezvous answer reaches the sender */
  ITEM_DATA_ARRIVE,
  ITEM_DATA_INJECTED,    /* resource models: rendezvous data has left the sender */
  ITEM_NET_WAKE,         /* resource model `rank` may have a flow ending now */
} ItemType;

typedef struct {
  double t;
  guint64 seq;
  Msg *msg;
  guint32 rank;
  guint32 type;
} Item;

#define MSG_CHUNK 1024

/* A resource network model in use (PtiNetOps.flow_*). */
typedef struct {
  PtiEngine *engine;
  const PtiModelInstance *model;
  const PtiNetOps *ops;
  double wake_at;        /* s: the NET_WAKE in the heap that counts; INFINITY if none */
  gint record_base;      /* index of the model's first record type in the trace, -1 */
  PtiNetSink sink;       /* host = this */
} FlowNet;

/* A model parameter change scheduled at a simulated time. */
typedef struct {
  double t;
  const PtiModelInstance *model;
  char *element, *selector, *value;
  char *origin;          /* "changes.txt:3" or "pti_context_change", for errors */
} Change;

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
  gboolean started;
  gboolean finished;
  double horizon;        /* a partial run resolves nothing at or after this time */
  double predicted;
  guint64 n_events;
  PtiProgressFunc progress;
  gpointer progress_data;
  guint64 progress_every;
  PtiTraceWriter *writer;          /* for the repetitions evaluated, if traced */
  const char *const *rud_names;
  guint64 repetitions_extrapolated;
  guint64 events_derived;          /* events of the repetitions extrapolated */
  guint64 repetitions_evaluated;
  GPtrArray *comm_names;           /* by communicator id (context / 2), or NULL */
  FlowNet *nets;                   /* resource network models of the system */
  guint n_nets;
  GArray *changes;                 /* Change, sorted by time (stable) */
  guint next_change;               /* first change not applied yet */
  PtiTraceWriter *record_writer;   /* where models' records go, or NULL */
};

static inline guint32
handle_of (const Proc *p, guint index)
{
  return p->base + (guint32) index;
}

/* The event a handle names (NULL if it is not among the pending events). */
static inline Event *
event_of (const Proc *p, guint32 handle)
{
  guint32 index = handle - p->base;
  return index < p->n ? &p->ev[index] : NULL;
}

static inline guint8
ev_kind (const Event *ev)
{
  return ev->kind & EV_KIND_MASK;
}

static inline gboolean
is_message (guint8 kind)
{
  return kind == PTI_EV_SEND || kind == PTI_EV_RECV || kind == PTI_EV_ISEND || kind == PTI_EV_IRECV;
}

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

/* ---- resource models ---------------------------------------------------- */

static void sink_flow_done (gpointer host, gpointer cookie, double injected, double arrived);
static void sink_record (gpointer host, guint type, const char *const *values);

static void
change_clear (gpointer data)
{
  Change *c = data;
  g_free (c->element);
  g_free (c->selector);
  g_free (c->value);
  g_free (c->origin);
}

static void
nets_init (PtiEngine *e)
{
  GPtrArray *inst = e->system->instances;
  e->nets = g_new0 (FlowNet, inst->len + 1);
  for (guint i = 0; i < inst->len; i++) {
    const PtiModelInstance *mi = g_ptr_array_index (inst, i);
    const PtiNetOps *ops = mi->desc->net;
    if (ops == NULL || !PTI_NET_OPS_HAS_FLOWS (ops) || e->n_nets == G_MAXUINT8 - 1)
      continue;
    FlowNet *f = &e->nets[e->n_nets++];
    *f = (FlowNet) { .engine = e, .model = mi, .ops = ops, .wake_at = INFINITY,
                     .record_base = -1 };
    f->sink = (PtiNetSink) { .host = f, .flow_done = sink_flow_done, .record = NULL };
  }
  e->changes = g_array_new (FALSE, FALSE, sizeof (Change));
  g_array_set_clear_func (e->changes, change_clear);
}

/* Its index + 1 in e->nets if @model is a resource model, else 0. */
static guint8
flow_net_of (const PtiEngine *e, const PtiModelInstance *model)
{
  for (guint i = 0; i < e->n_nets; i++)
    if (e->nets[i].model == model)
      return (guint8) (i + 1);
  return 0;
}

/* ---- building ---------------------------------------------------------- */

PtiEngine *
pti_engine_new (const PtiSystem *system, guint nprocs, const guint *placement, GError **error)
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
    guint where = placement ? placement[r] : r;
    const PtiProcessor *cpu = &g_array_index (system->processors, PtiProcessor, where);
    const PtiNode *node = &g_array_index (system->nodes, PtiNode, cpu->node);
    p->cpu = pti_system_cpu_model (system, where);
    p->intra = g_array_index (system->computers, PtiComputer, node->computer).intra;
    p->node = cpu->node;
    p->cpu_index = cpu->cpu;
    p->processor = where;
    p->network = node->network >= 0 ? (guint32) node->network : G_MAXUINT32;
    p->port = node->port;
    p->net = node->network >= 0
               ? g_array_index (system->networks, PtiNetwork, node->network).model : NULL;
    p->free_req = p->posted_head = p->posted_tail = NO_SLOT;
    p->stop = G_MAXUINT;
  }
  nets_init (e);
  return e;
}

void
pti_engine_free (PtiEngine *e)
{
  if (e == NULL)
    return;
  for (guint r = 0; r < e->n_procs; r++) {
    g_free (e->procs[r].ev);
    g_free (e->procs[r].reqs);
    g_free (e->procs[r].waits);
    if (e->procs[r].regions != NULL)
      g_array_unref (e->procs[r].regions);
  }
  g_free (e->procs);
  g_free (e->heap);
  g_ptr_array_unref (e->msg_chunks);
  if (e->comm_names != NULL)
    g_ptr_array_unref (e->comm_names);
  g_free (e->nets);
  if (e->changes != NULL)
    g_array_unref (e->changes);
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

/* The model that carries messages from @a to @b, and their ports on it:
 * the node's intra-node model between processes of one node (CPU numbers as
 * ports), else the network both nodes are connected to.  NULL if none. */
static const PtiModelInstance *
route (const PtiEngine *e, guint a, guint b, guint32 *port_a, guint32 *port_b)
{
  const Proc *pa = &e->procs[a], *pb = &e->procs[b];
  if (pa->node == pb->node && pa->intra != NULL) {
    *port_a = pa->cpu_index + 1;
    *port_b = pb->cpu_index + 1;
    return pa->intra;
  }
  if (pa->net != NULL && pa->network == pb->network) {
    *port_a = pa->port;
    *port_b = pb->port;
    return pa->net;
  }
  return NULL;
}

static gboolean
check_route (PtiEngine *e, guint a, guint b, GError **error)
{
  guint32 pa, pb;
  if (route (e, a, b, &pa, &pb) != NULL)
    return TRUE;
  g_autofree char *da = pti_system_describe_processor (e->system, e->procs[a].processor);
  g_autofree char *db = pti_system_describe_processor (e->system, e->procs[b].processor);
  g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
               "no network connects rank %u (%s) and rank %u (%s) in %s", a, da, b, db,
               e->system->path);
  return FALSE;
}

static gboolean
add_message (PtiEngine *e, PtiEventKind kind, guint rank, guint peer, guint64 bytes, gint tag,
             guint comm, guint32 *request, GError **error)
{
  /* A receive from any source can only come over the network its process is on. */
  if (peer != PTI_ENGINE_ANY_SOURCE && !check_route (e, rank, peer, error))
    return FALSE;
  if (peer == PTI_ENGINE_ANY_SOURCE && e->procs[rank].net == NULL && !check_route (e, rank, rank, error))
    return FALSE;
  Proc *p = &e->procs[rank];
  if (request != NULL)
    *request = handle_of (p, p->n);
  Event *ev = event_append (p);
  ev->kind = kind;
  ev->ref = peer;
  ev->bytes = bytes;
  ev->tag = tag;
  ev->comm = comm;
  ev->aux = NO_SLOT;
  return TRUE;
}

gboolean
pti_engine_add_send (PtiEngine *e, guint rank, guint dst, guint64 bytes, gint tag, guint comm,
                     GError **error)
{
  return add_message (e, PTI_EV_SEND, rank, dst, bytes, tag, comm, NULL, error);
}

gboolean
pti_engine_add_recv (PtiEngine *e, guint rank, guint src, guint64 bytes, gint tag, guint comm,
                     GError **error)
{
  return add_message (e, PTI_EV_RECV, rank, src, bytes, tag, comm, NULL, error);
}

gboolean
pti_engine_add_isend (PtiEngine *e, guint rank, guint dst, guint64 bytes, gint tag, guint comm,
                      guint32 *request, GError **error)
{
  return add_message (e, PTI_EV_ISEND, rank, dst, bytes, tag, comm, request, error);
}

gboolean
pti_engine_add_irecv (PtiEngine *e, guint rank, guint src, guint64 bytes, gint tag, guint comm,
                      guint32 *request, GError **error)
{
  return add_message (e, PTI_EV_IRECV, rank, src, bytes, tag, comm, request, error);
}

gboolean
pti_engine_add_wait (PtiEngine *e, guint rank, guint n, const guint32 *requests, gboolean any,
                     GError **error)
{
  Proc *p = &e->procs[rank];
  for (guint i = 0; i < n; i++) {
    guint32 r = requests[i];
    Event *posted = event_of (p, r);
    if (posted == NULL && r - p->base >= p->n && (guint32) (p->base - r) <= p->base) {
      /* before the pending events: resolved and dropped, so waited already */
      g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                   "rank %u: request %u was already completed by an earlier wait", rank, r);
      return FALSE;
    }
    guint8 kind = posted ? ev_kind (posted) : 0;
    if (kind != PTI_EV_ISEND && kind != PTI_EV_IRECV) {
      g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                   "rank %u: request %u was not made by isend or irecv on this rank", rank, r);
      return FALSE;
    }
    if (posted->kind & EV_WAITED) {
      g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                   "rank %u: request %u (%s) was already completed by an earlier wait", rank, r,
                   kind == PTI_EV_ISEND ? "isend" : "irecv");
      return FALSE;
    }
  }
  /* Only a wait for all is sure to complete each request it names; a
   * waitany completes one, which one is known only in stage 2. */
  if (!any)
    for (guint i = 0; i < n; i++)
      event_of (p, requests[i])->kind |= EV_WAITED;
  if (p->n_waits + n > p->cap_waits) {
    p->cap_waits = MAX (MAX (64, p->cap_waits * 2), p->n_waits + n);
    p->waits = g_renew (guint32, p->waits, p->cap_waits);
  }
  Event *ev = event_append (p);
  ev->kind = any ? PTI_EV_WAITANY : PTI_EV_WAIT;
  ev->ref = p->n_waits;
  ev->aux = n;
  memcpy (p->waits + p->n_waits, requests, n * sizeof (guint32));
  p->n_waits += n;
  return TRUE;
}

/* ---- requests ----------------------------------------------------------- */

static guint32
req_new (Proc *p, guint32 event)
{
  guint32 slot = p->free_req;
  if (slot != NO_SLOT) {
    p->free_req = p->reqs[slot].next;
  } else {
    if (p->n_reqs == p->cap_reqs) {
      p->cap_reqs = MAX (8, p->cap_reqs * 2);
      p->reqs = g_renew (Req, p->reqs, p->cap_reqs);
    }
    slot = p->n_reqs++;
  }
  Req *q = &p->reqs[slot];
  memset (q, 0, sizeof *q);
  p->live_reqs++;
  q->event = event;
  q->next = NO_SLOT;
  return slot;
}

static void
req_free (Proc *p, guint32 slot)
{
  event_of (p, p->reqs[slot].event)->aux = NO_SLOT;
  p->reqs[slot].next = p->free_req;
  p->free_req = slot;
  p->live_reqs--;
}

/* ---- stage 2 ------------------------------------------------------------ */

static void run_proc (PtiEngine *e, guint rank);
static void request_done (PtiEngine *e, guint rank, guint32 slot, double ready, double busy_from);

static inline const PtiNetOps *
ops (const PtiModelInstance *model)
{
  return model->desc->net;
}

/* Move @bytes of @m now, forwards (sender to receiver) or back, on a cost model. */
static void
transfer (PtiEngine *e, const Msg *m, gboolean back, guint64 bytes, PtiTransfer *out)
{
  ops (m->model)->transfer (m->model->state, back ? m->dst_port : m->src_port,
                            back ? m->src_port : m->dst_port, bytes, e->now, out);
}

/* After a resource model was told or asked anything: make sure a NET_WAKE
 * waits at its next flow end.  A later wake already queued is left to be
 * skipped when it comes up (see drain); an earlier one is harmless. */
static inline void
net_reschedule (PtiEngine *e, FlowNet *f)
{
  double t = f->ops->flow_next (f->model->state);
  if (t < f->wake_at) {
    f->wake_at = t;
    heap_push (e, t, ITEM_NET_WAKE, (guint32) (f - e->nets), NULL);
  }
}

/* Start @m's flow of @stage on its resource model now. */
static void
flow_start (PtiEngine *e, Msg *m, Stage stage)
{
  FlowNet *f = &e->nets[m->flow_net - 1];
  gboolean back = stage == STAGE_REPLY;
  PtiFlow flow = {
    .src_port = back ? m->dst_port : m->src_port,
    .dst_port = back ? m->src_port : m->dst_port,
    .bytes = stage == STAGE_EAGER_DATA || stage == STAGE_RDV_DATA ? m->bytes : 0,
    .msg = m->id,
    .cookie = m,
  };
  m->stage = (guint8) stage;
  f->ops->flow_start (f->model->state, &flow, e->now, &f->sink);
  net_reschedule (e, f);
}

/* A resource model reports a flow that left its source at @injected (now)
 * and arrives at @arrived.  Only items are pushed: the model is in the
 * middle of its own work. */
static void
sink_flow_done (gpointer host, gpointer cookie, double injected, double arrived)
{
  FlowNet *f = host;
  PtiEngine *e = f->engine;
  Msg *m = cookie;
  arrived = MAX (arrived, injected);
  switch ((Stage) m->stage) {
  case STAGE_EAGER_DATA:
    heap_push (e, arrived, ITEM_DATA_ARRIVE, m->dst, m);
    break;
  case STAGE_REQUEST:
    heap_push (e, arrived, ITEM_REQUEST_ARRIVE, m->dst, m);
    break;
  case STAGE_REPLY:
    heap_push (e, arrived, ITEM_REPLY_ARRIVE, m->src, m);
    break;
  case STAGE_RDV_DATA:
    /* Pushed first: at equal times it is handled before the arrival, which
     * may free the message. */
    heap_push (e, MAX (injected, e->now), ITEM_DATA_INJECTED, m->src, m);
    heap_push (e, arrived, ITEM_DATA_ARRIVE, m->dst, m);
    break;
  }
}

static void
sink_record (gpointer host, guint type, const char *const *values)
{
  FlowNet *f = host;
  PtiEngine *e = f->engine;
  GError *local = NULL;
  if (e->record_writer != NULL && f->record_base >= 0 && e->error == NULL
      && !pti_trace_writer_record (e->record_writer, (guint) f->record_base + type, values, &local))
    g_propagate_error (&e->error, local);
}

/* The rendezvous answer leaves the receiver now. */
static void
send_reply (PtiEngine *e, Msg *m)
{
  if (m->flow_net) {
    flow_start (e, m, STAGE_REPLY);
    return;
  }
  PtiTransfer tr;
  transfer (e, m, TRUE, 0, &tr);
  heap_push (e, tr.arrived, ITEM_REPLY_ARRIVE, m->src, m);
}

/* A receive's message has arrived and is matched: the receive is complete. */
static void
recv_complete (PtiEngine *e, Msg *m)
{
  guint32 rank = m->dst, slot = m->recv_slot;
  double arrived = m->arrived;
  msg_free (e, m);
  e->procs[rank].reqs[slot].msg = NULL;
  request_done (e, rank, slot, arrived, arrived);
}

static inline gboolean
wants (const Req *q, const Msg *m)
{
  return q->comm == m->comm && (q->src == PTI_ENGINE_ANY_SOURCE || q->src == m->src)
         && (q->tag == PTI_ENGINE_ANY_TAG || q->tag == m->tag);
}

/* Pair message @m with receive request @slot of its receiver. */
static void
match (PtiEngine *e, Msg *m, guint32 slot)
{
  Proc *q = &e->procs[m->dst];
  Req *rq = &q->reqs[slot];
  Event *rv = event_of (q, rq->event);
  if (G_UNLIKELY (m->bytes > rv->bytes) && e->error == NULL)
    g_set_error (&e->error, PTI_ERROR, PTI_ERROR_INVALID,
                 "message of %" G_GUINT64_FORMAT " bytes from rank %u to rank %u (tag %d) is "
                 "longer than the %" G_GUINT64_FORMAT "-byte receive that matches it "
                 "(at simulated time %.9f s)", m->bytes, m->src, m->dst, m->tag, rv->bytes,
                 e->now);
  m->recv_slot = slot;
  rq->msg = m;
  rq->model = m->model;
  rv->ref = m->src;       /* a wildcard receive shows what it got */
  rv->tag = m->tag;
  rv->msg = m->id;
  rv->rendezvous = m->rendezvous;
  if (m->rendezvous) {
    if (m->request_in)
      send_reply (e, m);
  } else if (m->data_in) {
    recv_complete (e, m);
  }
}

static void
post_send (PtiEngine *e, guint rank, Event *ev)
{
  Proc *p = &e->procs[rank];
  guint32 slot = req_new (p, handle_of (p, p->cursor));
  Msg *m = msg_new (e);
  m->src = rank;
  m->dst = ev->ref;
  m->tag = ev->tag;
  m->comm = ev->comm;
  m->bytes = ev->bytes;
  m->send_slot = slot;
  m->recv_slot = NO_SLOT;
  m->id = e->next_msg_id++;
  m->model = route (e, rank, m->dst, &m->src_port, &m->dst_port);
  m->flow_net = e->n_nets > 0 ? flow_net_of (e, m->model) : 0;
  m->rendezvous = ev->bytes > ops (m->model)->eager_limit (m->model->state);
  p->reqs[slot].msg = m;
  ev->aux = slot;
  ev->msg = m->id;
  ev->rendezvous = m->rendezvous;

  double o_s = ops (m->model)->send_overhead (m->model->state, ev->bytes);
  p->comm += o_s;
  p->clock = e->now + o_s;
  heap_push (e, p->clock, m->rendezvous ? ITEM_INJECT_REQUEST : ITEM_INJECT_DATA, rank, m);
  if (!m->rendezvous) {
    /* Eager: the data is the network's now; the send is complete. */
    p->reqs[slot].msg = NULL;
    m->send_slot = NO_SLOT;
    p->reqs[slot].done = TRUE;
    p->reqs[slot].ready = p->reqs[slot].busy_from = p->clock;
  }

  Proc *q = &e->procs[m->dst];
  guint32 prev = NO_SLOT;
  for (guint32 r = q->posted_head; r != NO_SLOT; prev = r, r = q->reqs[r].next) {
    if (!wants (&q->reqs[r], m))
      continue;
    if (prev != NO_SLOT)
      q->reqs[prev].next = q->reqs[r].next;
    else
      q->posted_head = q->reqs[r].next;
    if (q->posted_tail == r)
      q->posted_tail = prev;
    match (e, m, r);
    return;
  }
  m->next = NULL;
  if (q->unmatched_tail != NULL)
    q->unmatched_tail->next = m;
  else
    q->unmatched_head = m;
  q->unmatched_tail = m;
}

static void
post_recv (PtiEngine *e, guint rank, Event *ev)
{
  Proc *q = &e->procs[rank];
  guint32 slot = req_new (q, handle_of (q, q->cursor));
  Req *rq = &q->reqs[slot];
  rq->is_recv = TRUE;
  rq->src = ev->ref;
  rq->tag = ev->tag;
  rq->comm = ev->comm;
  ev->aux = slot;
  Msg *prev = NULL;
  for (Msg *m = q->unmatched_head; m != NULL; prev = m, m = m->next) {
    if (!wants (rq, m))
      continue;
    if (prev != NULL)
      prev->next = m->next;
    else
      q->unmatched_head = m->next;
    if (q->unmatched_tail == m)
      q->unmatched_tail = prev;
    match (e, m, slot);
    return;
  }
  if (q->posted_tail != NO_SLOT)
    q->reqs[q->posted_tail].next = slot;
  else
    q->posted_head = slot;
  q->posted_tail = slot;
}

/* The requests the blocking event at @p's cursor waits for. */
static const guint32 *
wait_list (Proc *p, const Event *ev, guint *n, guint32 *single)
{
  guint8 kind = ev_kind (ev);
  if (kind == PTI_EV_SEND || kind == PTI_EV_RECV) {
    *single = handle_of (p, p->cursor);
    *n = 1;
    return single;
  }
  *n = ev->aux;
  return p->waits + ev->ref;
}

/* Try to complete the blocking event at @p's cursor (started at its
 * `start`).  Returns TRUE if it completed: the process may go on. */
static gboolean
try_finish_wait (PtiEngine *e, Proc *p)
{
  Event *ev = &p->ev[p->cursor];
  gboolean any = ev_kind (ev) == PTI_EV_WAITANY;
  guint32 single;
  guint n;
  const guint32 *list = wait_list (p, ev, &n, &single);

  /* all: the latest request decides; any: the earliest completed one.  A
   * waitany skips requests an earlier waitany already completed. */
  double from = p->wait_from;
  double ready = any ? INFINITY : from, busy_from = from;
  guint live = 0;
  gint chosen = -1;
  for (guint i = 0; i < n; i++) {
    guint32 slot = event_of (p, list[i])->aux;
    if (slot == NO_SLOT)
      continue;
    live++;
    const Req *rq = &p->reqs[slot];
    if (!rq->done) {
      if (!any)
        return FALSE;
      continue;
    }
    if (any ? rq->ready < ready : rq->ready >= ready) {
      ready = rq->ready;
      busy_from = rq->busy_from;
      chosen = (gint) i;
    }
  }
  if (any && live > 0 && chosen < 0)
    return FALSE;
  if (chosen < 0)
    ready = busy_from = from;   /* all complete already, or (waitany) nothing left */

  double end = MAX (ready, from);
  double busy = end - MAX (busy_from, from);
  busy = busy > 0 ? busy : 0;
  double o_r = 0;
  for (guint i = 0; i < n; i++) {
    if (any && (gint) i != chosen)
      continue;
    const Event *posted = event_of (p, list[i]);
    guint32 slot = posted->aux;
    if (slot == NO_SLOT)
      continue;
    const Req *rq = &p->reqs[slot];
    if (rq->is_recv)
      o_r += ops (rq->model)->recv_overhead (rq->model->state, posted->bytes);
    req_free (p, slot);
  }
  ev->wait = (end - from) - busy;
  ev->end = end + o_r;
  p->wait += ev->wait;
  p->comm += busy + o_r;
  p->clock = ev->end;
  p->cursor++;
  p->state = PROC_READY;
  return TRUE;
}

static void
request_done (PtiEngine *e, guint rank, guint32 slot, double ready, double busy_from)
{
  Proc *p = &e->procs[rank];
  Req *rq = &p->reqs[slot];
  rq->done = TRUE;
  rq->ready = ready;
  rq->busy_from = busy_from;
  if (p->state == PROC_WAITING && try_finish_wait (e, p))
    run_proc (e, rank);
}

/* Run @rank from its cursor until it blocks, must wait for its clock, or ends. */
static void
run_proc (PtiEngine *e, guint rank)
{
  Proc *p = &e->procs[rank];
  guint end = MIN (p->n, p->stop);
  p->state = PROC_READY;
  while (p->cursor < end && e->error == NULL) {
    Event *ev = &p->ev[p->cursor];
    guint8 kind = ev_kind (ev);
    if (kind == PTI_EV_COMPUTE) {
      ev->start = p->clock;
      p->clock += ev->duration;
      ev->end = p->clock;
      p->compute += ev->duration;
      p->cursor++;
      continue;
    }
    if (p->clock > e->now) {
      heap_push (e, p->clock, ITEM_RESUME, rank, NULL);
      p->state = PROC_SCHEDULED;
      return;
    }
    /* A process acts at its own clock.  It is behind the current time only
     * when it resumes after a cut (analytical repetition), where the others
     * were taken to the cut first: then time steps back to it, which is
     * exact for models without state carried between messages. */
    e->now = p->clock;
    ev->start = e->now;
    switch (kind) {
    case PTI_EV_SEND:
    case PTI_EV_ISEND:
      post_send (e, rank, ev);
      break;
    case PTI_EV_RECV:
    case PTI_EV_IRECV:
      post_recv (e, rank, ev);
      break;
    default:
      break;
    }
    if (kind == PTI_EV_ISEND || kind == PTI_EV_IRECV) {
      ev->end = p->clock;      /* posting: the send's overhead, or nothing */
      ev->wait = 0;
      p->cursor++;
      continue;
    }
    /* A blocking send's wait begins after its overhead. */
    p->wait_from = p->clock;
    if (!try_finish_wait (e, p)) {
      p->state = PROC_WAITING;
      return;
    }
  }
  if (p->cursor == end && e->error == NULL) {
    /* Out of events: finished, unless a partial evaluation is under way and
     * more will come, which may start at this clock: nothing later may be
     * resolved before they are known. */
    p->state = PROC_STARVED;
    e->horizon = MIN (e->horizon, p->clock);
  }
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
    if (m->flow_net) {
      flow_start (e, m, STAGE_EAGER_DATA);
      break;
    }
    transfer (e, m, FALSE, m->bytes, &tr);
    heap_push (e, tr.arrived, ITEM_DATA_ARRIVE, m->dst, m);
    break;
  case ITEM_INJECT_REQUEST:
    if (m->flow_net) {
      flow_start (e, m, STAGE_REQUEST);
      break;
    }
    transfer (e, m, FALSE, 0, &tr);
    heap_push (e, tr.arrived, ITEM_REQUEST_ARRIVE, m->dst, m);
    break;
  case ITEM_REQUEST_ARRIVE:
    m->request_in = TRUE;
    if (m->recv_slot != NO_SLOT)
      send_reply (e, m);
    break;
  case ITEM_REPLY_ARRIVE: {
    /* The sender pushes its data out now; its send completes when it has left. */
    if (m->flow_net) {
      m->reply_at = e->now;
      flow_start (e, m, STAGE_RDV_DATA);
      break;
    }
    transfer (e, m, FALSE, m->bytes, &tr);
    heap_push (e, tr.arrived, ITEM_DATA_ARRIVE, m->dst, m);
    guint32 slot = m->send_slot;
    m->send_slot = NO_SLOT;
    e->procs[m->src].reqs[slot].msg = NULL;
    request_done (e, m->src, slot, tr.injected, e->now);
    break;
  }
  case ITEM_DATA_ARRIVE:
    m->data_in = TRUE;
    m->arrived = e->now;
    if (m->recv_slot != NO_SLOT)
      recv_complete (e, m);
    break;
  case ITEM_DATA_INJECTED: {
    guint32 slot = m->send_slot;
    m->send_slot = NO_SLOT;
    e->procs[m->src].reqs[slot].msg = NULL;
    request_done (e, m->src, slot, e->now, m->reply_at);
    break;
  }
  case ITEM_NET_WAKE: {
    FlowNet *f = &e->nets[it->rank];
    f->wake_at = INFINITY;
    f->ops->flow_advance (f->model->state, e->now, &f->sink);
    net_reschedule (e, f);
    break;
  }
  }
}

static const char *
kind_name (guint8 kind)
{
  static const char *const names[] = { "compute", "send", "recv", "isend", "irecv", "wait", "waitany" };
  return kind < G_N_ELEMENTS (names) ? names[kind] : "?";
}

void
pti_engine_set_comm_name (PtiEngine *e, guint id, const char *name)
{
  if (e->comm_names == NULL)
    e->comm_names = g_ptr_array_new_with_free_func (g_free);
  if (e->comm_names->len <= id)
    g_ptr_array_set_size (e->comm_names, id + 1);
  g_free (g_ptr_array_index (e->comm_names, id));
  g_ptr_array_index (e->comm_names, id) = g_strdup (name);
}

/* ", communicator rows, collective traffic" and the like; nothing for the
 * world's point-to-point traffic. */
static void
describe_comm (GString *s, const PtiEngine *e, guint comm)
{
  guint id = comm / 2;
  if (id > 0) {
    const char *name = e->comm_names && id < e->comm_names->len
                         ? g_ptr_array_index (e->comm_names, id) : NULL;
    if (name)
      g_string_append_printf (s, ", communicator '%s'", name);
    else
      g_string_append_printf (s, ", communicator #%u", id);
  }
  if (comm % 2 == 1)
    g_string_append (s, ", collective traffic");
}

static void
describe_request (GString *s, const PtiEngine *e, const Proc *p, guint32 event)
{
  const Event *ev = &p->ev[event];
  guint8 kind = ev_kind (ev);
  gboolean recv = kind == PTI_EV_RECV || kind == PTI_EV_IRECV;
  g_string_append_printf (s, "%s %s ", kind_name (kind), recv ? "from" : "to");
  const Req *rq = ev->aux != NO_SLOT ? &p->reqs[ev->aux] : NULL;
  guint32 peer = recv && rq ? rq->src : ev->ref;
  gint32 tag = recv && rq ? rq->tag : ev->tag;
  if (peer == PTI_ENGINE_ANY_SOURCE)
    g_string_append (s, "any rank");
  else
    g_string_append_printf (s, "rank %u", peer);
  if (tag == PTI_ENGINE_ANY_TAG)
    g_string_append (s, ", any tag");
  else
    g_string_append_printf (s, ", tag %d", tag);
  g_string_append_printf (s, ", %" G_GUINT64_FORMAT " bytes", ev->bytes);
  describe_comm (s, e, ev->comm);
  g_string_append (s, rq && !recv && ev->rendezvous ? ", rendezvous: its receive is never posted"
                      : rq && recv && rq->msg == NULL ? ": no matching send" : "");
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
    if (p->state == PROC_STARVED)
      continue;
    blocked++;
    const Event *ev = &p->ev[p->cursor];
    latest = MAX (latest, p->wait_from);
    if (blocked > 32)
      continue;
    g_string_append_printf (s, "\n  rank %u: blocked since %.9f s in ", r, p->wait_from);
    guint8 kind = ev_kind (ev);
    if (kind == PTI_EV_SEND || kind == PTI_EV_RECV) {
      describe_request (s, e, p, p->cursor);
    } else {
      g_string_append_printf (s, "%s for", kind_name (kind));
      guint32 single;
      guint n;
      const guint32 *list = wait_list (p, ev, &n, &single);
      for (guint i = 0, shown = 0; i < n; i++) {
        guint32 slot = event_of (p, list[i])->aux;
        if (slot == NO_SLOT || p->reqs[slot].done || shown++ >= 4)
          continue;
        g_string_append (s, shown > 1 ? "; " : " ");
        describe_request (s, e, p, list[i] - p->base);
      }
    }
    g_string_append_printf (s, " (event %u of %u)", p->cursor + 1, p->n);
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
      if (n++ < 32) {
        g_string_append_printf (s, "\n  rank %u -> rank %u, tag %d, %" G_GUINT64_FORMAT " bytes",
                                m->src, m->dst, m->tag, m->bytes);
        describe_comm (s, e, m->comm);
      }
  if (n == 0)
    return TRUE;
  if (n > 32)
    g_string_append_printf (s, "\n  ... and %u more", n - 32);
  g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
               "%u message%s sent but never received (every rank finished):%s", n,
               n == 1 ? " was" : "s were", s->str);
  return FALSE;
}

/* MPI requires every request to be completed; one never waited for is a
 * mistake in the workload. */
static gboolean
check_requests_waited (PtiEngine *e, GError **error)
{
  for (guint r = 0; r < e->n_procs; r++) {
    Proc *p = &e->procs[r];
    for (guint i = 0; i < p->n; i++) {
      guint8 kind = ev_kind (&p->ev[i]);
      if ((kind == PTI_EV_ISEND || kind == PTI_EV_IRECV) && p->ev[i].aux != NO_SLOT) {
        g_autoptr (GString) s = g_string_new (NULL);
        describe_request (s, e, p, i);
        g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                     "rank %u: request %u (%s) is never completed by a wait", r,
                     handle_of (p, i), s->str);
        return FALSE;
      }
    }
  }
  return TRUE;
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

/* Apply the scheduled changes due at or before @t, each at its own time. */
static gboolean
apply_changes (PtiEngine *e, double t)
{
  while (e->next_change < e->changes->len) {
    const Change *c = &g_array_index (e->changes, Change, e->next_change);
    if (c->t > t)
      break;
    e->next_change++;
    e->now = MAX (e->now, c->t);
    guint8 fi = flow_net_of (e, c->model);
    FlowNet *f = fi ? &e->nets[fi - 1] : NULL;
    GError *local = NULL;
    if (!c->model->desc->reconfigure (c->model->state, c->element, c->selector, c->value, TRUE,
                                      e->now, f ? &f->sink : NULL, &local)) {
      g_propagate_prefixed_error (&e->error, local, "%s: change at %.9f s: ", c->origin, c->t);
      return FALSE;
    }
    if (f != NULL)
      net_reschedule (e, f);
  }
  return TRUE;
}

static gboolean write_process_events (const PtiEngine *e, guint r, guint first, guint end,
                                      PtiTraceWriter *w, const char *const *rud_names,
                                      GError **error);

/* Resolve what can be: resume the processes that can go on, then handle
 * timed events in order; @bounded stops short of the horizon (a partial
 * run).  FALSE if an error was raised (left in e->error). */
static gboolean
drain (PtiEngine *e, gboolean bounded)
{
  e->horizon = INFINITY;
  for (guint r = 0; r < e->n_procs && e->error == NULL; r++) {
    Proc *p = &e->procs[r];
    if (p->state == PROC_READY || (p->state == PROC_STARVED && p->cursor < MIN (p->n, p->stop)))
      run_proc (e, r);
    else if (p->state == PROC_STARVED)
      e->horizon = MIN (e->horizon, p->clock);
  }
  guint64 countdown = e->progress_every;
  while (e->heap_n > 0 && e->error == NULL) {
    /* A partial run stops short of the earliest clock at which a starved
     * process may yet act: what lies at or beyond it waits for the next run. */
    if (bounded && !(e->heap[0].t < e->horizon))
      break;
    Item it = heap_pop (e);
    if (it.type == ITEM_NET_WAKE && it.t != e->nets[it.rank].wake_at)
      continue;   /* superseded by an earlier wake */
    if (G_UNLIKELY (e->next_change < e->changes->len)
        && g_array_index (e->changes, Change, e->next_change).t <= it.t
        && !apply_changes (e, it.t))
      break;
    e->now = it.t;
    handle (e, &it);
    if (G_UNLIKELY (e->progress != NULL && --countdown == 0)) {
      report_progress (e);
      countdown = e->progress_every;
    }
  }
  return e->error == NULL;
}

/* Resolve everything up to each process's stop, which must leave a clean
 * cut: every process there, no message in flight, no request pending. */
static gboolean
cut (PtiEngine *e, const char *where, GError **error)
{
  if (!drain (e, FALSE)) {
    g_propagate_error (error, g_steal_pointer (&e->error));
    return FALSE;
  }
  for (guint r = 0; r < e->n_procs; r++) {
    Proc *p = &e->procs[r];
    const char *why = NULL;
    if (p->state != PROC_STARVED)
      why = "is still blocked";
    else if (p->unmatched_head != NULL || p->posted_head != NO_SLOT)
      why = "has a message in flight across it";
    else if (p->live_reqs > 0)
      why = "has a request pending across it";
    if (why == NULL)
      continue;
    g_autoptr (GError) local = NULL;
    if (p->state != PROC_STARVED)
      report_deadlock (e, &local);
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "analytical repetition: rank %u %s %s (at simulated time %.9f s): a repeated "
                 "block must be self-contained, its messages sent and received and its "
                 "requests completed within one repetition%s%s", r, why, where, p->clock,
                 local ? "; " : "", local ? local->message : "");
    return FALSE;
  }
  return TRUE;
}

static gboolean
write_block (PtiEngine *e, guint i, GError **error)
{
  for (guint r = 0; r < e->n_procs; r++) {
    const Region *rg = &g_array_index (e->procs[r].regions, Region, i);
    if (!write_process_events (e, r, rg->start, rg->end, e->writer, e->rud_names, error))
      return FALSE;
  }
  return pti_trace_writer_end_chunk (e->writer, error);
}

static inline gboolean
same (double a, double b)
{
  return fabs (a - b) <= 1e-10 * MAX (fabs (a), fabs (b)) + 1e-18;
}

/* How many of the @rest repetitions left may be extrapolated with the
 * per-process advance @delta (4 figures per process, the clock first):
 * all of them, unless a scheduled model change comes first; then those
 * that end before it, so that the change happens in a repetition
 * evaluated through the models. */
static guint64
extrapolable (const PtiEngine *e, guint64 rest, const double *delta)
{
  if (e->next_change >= e->changes->len)
    return rest;
  double tc = g_array_index (e->changes, Change, e->next_change).t;
  guint64 jump = rest;
  for (guint r = 0; r < e->n_procs; r++) {
    double room = tc - e->procs[r].clock, d = delta[4 * r];
    if (room <= 0)
      return 0;
    if (d > 0)
      jump = MIN (jump, (guint64) MIN (floor (room / d), (double) rest));
  }
  return jump;
}

/* Evaluate region @i of every process its count of times.  The block's
 * events are reused in place (restored from a copy); once two successive
 * repetitions advance every process by the same amount, the rest follow by
 * max-plus homogeneity (a block that maps clocks x to A(x) maps x + c to
 * A(x) + c) and are extrapolated without calling any model. */
static gboolean
repeat_region (PtiEngine *e, guint i, GError **error)
{
  guint n = e->n_procs;
  guint64 count = g_array_index (e->procs[0].regions, Region, i).count;
  g_autofree Event **copy = g_new0 (Event *, n);
  g_autofree double *prev = g_new (double, 4 * n), *delta = g_new (double, 4 * n);
  gboolean have_delta = FALSE, ok = TRUE;
  for (guint r = 0; r < n; r++) {
    Proc *p = &e->procs[r];
    const Region *rg = &g_array_index (p->regions, Region, i);
    copy[r] = g_memdup2 (p->ev + rg->start, (rg->end - rg->start) * sizeof (Event));
    p->stop = rg->end;
  }
  for (guint64 k = 1; k <= count && ok; k++) {
    for (guint r = 0; r < n; r++) {
      Proc *p = &e->procs[r];
      const Region *rg = &g_array_index (p->regions, Region, i);
      if (k > 1) {
        memcpy (p->ev + rg->start, copy[r], (rg->end - rg->start) * sizeof (Event));
        p->cursor = rg->start;
      }
      double now[4] = { p->clock, p->compute, p->comm, p->wait };
      memcpy (prev + 4 * r, now, sizeof now);
    }
    if (!(ok = cut (e, "at the end of a repeated block", error)))
      break;
    e->repetitions_evaluated++;
    gboolean periodic = have_delta;
    for (guint r = 0; r < n; r++) {
      Proc *p = &e->procs[r];
      double now[4] = { p->clock, p->compute, p->comm, p->wait };
      for (guint j = 0; j < 4; j++) {
        double d = now[j] - prev[4 * r + j];
        periodic = periodic && same (d, delta[4 * r + j]);
        delta[4 * r + j] = d;
      }
      periodic = periodic && same (delta[4 * r], delta[0]);
    }
    have_delta = TRUE;
    if (periodic && k < count) {
      guint64 jump = extrapolable (e, count - k, delta);
      double rest = (double) jump;
      for (guint r = 0; r < n; r++) {
        Proc *p = &e->procs[r];
        const Region *rg = &g_array_index (p->regions, Region, i);
        p->clock += rest * delta[4 * r];
        p->compute += rest * delta[4 * r + 1];
        p->comm += rest * delta[4 * r + 2];
        p->wait += rest * delta[4 * r + 3];
        p->dropped += jump * (rg->end - rg->start);
        e->events_derived += jump * (rg->end - rg->start);
      }
      e->repetitions_extrapolated += jump;
      k += jump;
      if (k == count)
        break;
      /* A scheduled change lies ahead: evaluate through it, then learn the
       * period again. */
      have_delta = FALSE;
    }
    /* Every repetition but the last lives on only in the trace. */
    if (k < count) {
      if (e->writer != NULL && !(ok = write_block (e, i, error)))
        break;
      for (guint r = 0; r < n; r++) {
        const Region *rg = &g_array_index (e->procs[r].regions, Region, i);
        e->procs[r].dropped += rg->end - rg->start;
      }
    }
  }
  for (guint r = 0; r < n; r++)
    g_free (copy[r]);
  return ok;
}

static gboolean
run_regions (PtiEngine *e, GError **error)
{
  guint n_regions = e->procs[0].regions ? e->procs[0].regions->len : 0;
  for (guint r = 0; r < e->n_procs; r++) {
    const Proc *p = &e->procs[r];
    guint len = p->regions ? p->regions->len : 0;
    gboolean open = len > 0 && g_array_index (p->regions, Region, len - 1).end == G_MAXUINT;
    if (len != n_regions || open) {
      g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                   "analytical repetition: rank %u %s (rank 0 has %u repeated blocks)", r,
                   open ? "has a repeated block that is never ended" : "has another number of repeated blocks",
                   n_regions);
      return FALSE;
    }
    for (guint i = 0; i < len; i++) {
      guint64 c = g_array_index (p->regions, Region, i).count;
      guint64 c0 = g_array_index (e->procs[0].regions, Region, i).count;
      if (c != c0) {
        g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                     "analytical repetition: repeated block %u is repeated %" G_GUINT64_FORMAT
                     " times on rank %u but %" G_GUINT64_FORMAT " times on rank 0", i + 1, c, r, c0);
        return FALSE;
      }
    }
  }
  for (guint i = 0; i < n_regions; i++) {
    for (guint r = 0; r < e->n_procs; r++)
      e->procs[r].stop = g_array_index (e->procs[r].regions, Region, i).start;
    /* Up to the block: then drop what is resolved, so the block starts at 0. */
    if (!cut (e, "where a repeated block begins", error)
        || !pti_engine_flush (e, e->writer, e->rud_names, error)
        || !repeat_region (e, 0, error))
      return FALSE;
    for (guint r = 0; r < e->n_procs; r++)
      e->procs[r].stop = g_array_index (e->procs[r].regions, Region, 0).end;
    if (!pti_engine_flush (e, e->writer, e->rud_names, error))
      return FALSE;
    for (guint r = 0; r < e->n_procs; r++)
      g_array_remove_index (e->procs[r].regions, 0);
  }
  for (guint r = 0; r < e->n_procs; r++)
    e->procs[r].stop = G_MAXUINT;
  return TRUE;
}

gboolean
pti_engine_run (PtiEngine *e, gboolean final, GError **error)
{
  g_return_val_if_fail (!e->finished, FALSE);
  if (!e->started) {
    e->started = TRUE;
    e->now = 0;
    /* Models keep state between transfers; a system may serve several evaluations. */
    GPtrArray *inst = e->system->instances;
    for (guint i = 0; i < inst->len; i++) {
      const PtiModelInstance *mi = g_ptr_array_index (inst, i);
      if (mi->desc->net != NULL && mi->desc->net->version >= 2 && mi->desc->net->reset != NULL)
        mi->desc->net->reset (mi->state);
    }
  }
  if (final && e->procs[0].regions != NULL && !run_regions (e, error))
    return FALSE;
  gboolean ok = drain (e, !final);
  if (e->progress != NULL && ok)
    report_progress (e);
  if (!ok) {
    g_propagate_error (error, g_steal_pointer (&e->error));
    return FALSE;
  }
  if (!final)
    return TRUE;
  e->finished = TRUE;
  for (guint r = 0; r < e->n_procs; r++)
    if (e->procs[r].state != PROC_STARVED) {
      report_deadlock (e, error);
      return FALSE;
    }
  if (!report_unreceived (e, error) || !check_requests_waited (e, error))
    return FALSE;
  e->predicted = 0;
  for (guint r = 0; r < e->n_procs; r++)
    e->predicted = MAX (e->predicted, e->procs[r].clock);
  e->n_events = pti_engine_n_events (e);
  return TRUE;
}

gboolean
pti_engine_repeat_begin (PtiEngine *e, guint rank, guint64 count, GError **error)
{
  Proc *p = &e->procs[rank];
  if (p->regions == NULL)
    p->regions = g_array_new (FALSE, FALSE, sizeof (Region));
  if (p->regions->len > 0 && g_array_index (p->regions, Region, p->regions->len - 1).end == G_MAXUINT) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "rank %u: a repeated block is already open (blocks do not nest)", rank);
    return FALSE;
  }
  if (count == 0) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "rank %u: a block repeated 0 times: leave it out instead", rank);
    return FALSE;
  }
  Region rg = { .start = p->n, .end = G_MAXUINT, .count = count };
  g_array_append_val (p->regions, rg);
  return TRUE;
}

gboolean
pti_engine_repeat_end (PtiEngine *e, guint rank, GError **error)
{
  Proc *p = &e->procs[rank];
  Region *rg = p->regions && p->regions->len > 0
                 ? &g_array_index (p->regions, Region, p->regions->len - 1) : NULL;
  if (rg == NULL || rg->end != G_MAXUINT) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "rank %u: the end of a repeated block that was never begun", rank);
    return FALSE;
  }
  rg->end = p->n;
  return TRUE;
}

gboolean
pti_engine_has_repetition (const PtiEngine *e)
{
  return e->procs[0].regions != NULL;
}

void
pti_engine_set_trace (PtiEngine *e, PtiTraceWriter *writer, const char *const *rud_names)
{
  e->writer = writer;
  e->rud_names = rud_names;
  e->record_writer = writer;
  for (guint i = 0; i < e->n_nets; i++) {
    FlowNet *f = &e->nets[i];
    f->record_base = writer ? pti_trace_writer_record_base (writer, f->model->desc->name) : -1;
    f->sink.record = f->record_base >= 0 ? sink_record : NULL;
  }
}

/* The model instance a change's @target names: a network, or a computer's
 * intra-node model ("computer:NAME"). */
static const PtiModelInstance *
change_target (const PtiEngine *e, const char *target, GError **error)
{
  const PtiSystem *sys = e->system;
  g_autoptr (GString) known = g_string_new (NULL);
  if (g_str_has_prefix (target, "computer:")) {
    const char *name = target + strlen ("computer:");
    for (guint i = 0; i < sys->computers->len; i++) {
      const PtiComputer *c = &g_array_index (sys->computers, PtiComputer, i);
      if (strcmp (c->name, name) == 0 && c->intra != NULL)
        return c->intra;
      if (c->intra != NULL)
        g_string_append_printf (known, "%scomputer:%s", known->len ? ", " : "", c->name);
    }
  } else {
    for (guint i = 0; i < sys->networks->len; i++) {
      const PtiNetwork *n = &g_array_index (sys->networks, PtiNetwork, i);
      if (strcmp (n->name, target) == 0)
        return n->model;
      g_string_append_printf (known, "%s%s", known->len ? ", " : "", n->name);
    }
  }
  g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
               "'%s' is not a network of %s (nor computer:NAME with an intra-node model); "
               "known: %s", target, sys->path, known->len ? known->str : "none");
  return NULL;
}

gboolean
pti_engine_add_change (PtiEngine *e, double t, const char *target, const char *element,
                       const char *selector, const char *value, const char *origin,
                       GError **error)
{
  GError *local = NULL;
  const PtiModelInstance *mi;
  if (!(isfinite (t) && t >= 0)) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s: the time of a change must be a "
                 "finite number of seconds >= 0, not %g", origin, t);
    return FALSE;
  }
  if (e->started && t < e->now) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s: a change at %.9f s is in the past: "
                 "the evaluation has reached %.9f s", origin, t, e->now);
    return FALSE;
  }
  if ((mi = change_target (e, target, &local)) == NULL) {
    g_propagate_prefixed_error (error, local, "%s: ", origin);
    return FALSE;
  }
  if (!PTI_MODEL_CAN_RECONFIGURE (mi->desc)) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "%s: model '%s' of %s cannot change its parameters during an evaluation",
                 origin, mi->desc->name, mi->owner);
    return FALSE;
  }
  if (!mi->desc->reconfigure (mi->state, element, selector, value, FALSE, t, NULL, &local)) {
    g_propagate_prefixed_error (error, local, "%s: %s: ", origin, mi->owner);
    return FALSE;
  }
  Change c = { t, mi, g_strdup (element), g_strdup (selector), g_strdup (value),
               g_strdup (origin) };
  guint at = e->changes->len;
  while (at > e->next_change && g_array_index (e->changes, Change, at - 1).t > t)
    at--;
  g_array_insert_val (e->changes, at, c);
  return TRUE;
}

void
pti_engine_repetition_figures (const PtiEngine *e, guint64 *evaluated, guint64 *extrapolated)
{
  *evaluated = e->repetitions_evaluated;
  *extrapolated = e->repetitions_extrapolated;
}

/* The events of @p before this index are resolved and referenced by nothing
 * pending: everything before its cursor except posted requests not yet
 * completed by a wait (their events are updated when they match). */
static guint
resolved_prefix (const Proc *p)
{
  guint boundary = p->cursor;
  for (guint i = 0; i < boundary; i++) {
    guint8 kind = ev_kind (&p->ev[i]);
    if ((kind == PTI_EV_ISEND || kind == PTI_EV_IRECV) && p->ev[i].aux != NO_SLOT)
      return i;
  }
  return boundary;
}

gboolean
pti_engine_flush (PtiEngine *e, PtiTraceWriter *w, const char *const *rud_names, GError **error)
{
  gboolean wrote = FALSE;
  for (guint r = 0; r < e->n_procs; r++) {
    Proc *p = &e->procs[r];
    guint k = resolved_prefix (p);
    if (k == 0)
      continue;
    if (w != NULL) {
      if (!write_process_events (e, r, 0, k, w, rud_names, error))
        return FALSE;
      wrote = TRUE;
    }
    /* Wait lists are appended in event order: the dropped waits own a prefix. */
    guint first_list = p->n_waits;
    for (guint i = k; i < p->n; i++) {
      guint8 kind = ev_kind (&p->ev[i]);
      if (kind == PTI_EV_WAIT || kind == PTI_EV_WAITANY) {
        first_list = p->ev[i].ref;
        break;
      }
    }
    for (guint i = k; i < p->n; i++) {
      guint8 kind = ev_kind (&p->ev[i]);
      if (kind == PTI_EV_WAIT || kind == PTI_EV_WAITANY)
        p->ev[i].ref -= first_list;
    }
    if (first_list > 0) {
      memmove (p->waits, p->waits + first_list, (p->n_waits - first_list) * sizeof (guint32));
      p->n_waits -= first_list;
    }
    if (k < p->n)
      memmove (p->ev, p->ev + k, (p->n - k) * sizeof (Event));
    p->n -= k;
    p->cursor -= k;
    p->base += (guint32) k;
    p->dropped += k;
    if (p->stop != G_MAXUINT)
      p->stop -= k;
    for (guint i = 0; p->regions != NULL && i < p->regions->len; i++) {
      Region *rg = &g_array_index (p->regions, Region, i);
      rg->start -= k;
      if (rg->end != G_MAXUINT)
        rg->end -= k;
    }
  }
  return !wrote || pti_trace_writer_end_chunk (w, error);
}

double
pti_engine_predicted_time (const PtiEngine *e)
{
  return e->predicted;
}

guint64
pti_engine_n_events (const PtiEngine *e)
{
  guint64 n = 0;
  for (guint r = 0; r < e->n_procs; r++)
    n += e->procs[r].dropped + e->procs[r].n;
  return n;
}

guint64
pti_engine_n_pending (const PtiEngine *e)
{
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
  out->events = p->dropped + p->n;
}

static gboolean
write_process_events (const PtiEngine *e, guint r, guint first, guint end, PtiTraceWriter *w,
                      const char *const *rud_names, GError **error)
{
  static const PtiTraceKind trace_kinds[] = {
    [PTI_EV_COMPUTE] = PTI_TRACE_COMPUTE, [PTI_EV_SEND] = PTI_TRACE_SEND,
    [PTI_EV_RECV] = PTI_TRACE_RECV, [PTI_EV_ISEND] = PTI_TRACE_ISEND,
    [PTI_EV_IRECV] = PTI_TRACE_IRECV, [PTI_EV_WAIT] = PTI_TRACE_WAIT,
    [PTI_EV_WAITANY] = PTI_TRACE_WAITANY,
  };
  const Proc *p = &e->procs[r];
  if (!pti_trace_writer_begin_process (w, r, error))
    return FALSE;
  for (guint i = first; i < end; i++) {
    const Event *ev = &p->ev[i];
    guint8 kind = ev_kind (ev);
    PtiTraceEvent te = { .kind = trace_kinds[kind], .start = ev->start, .end = ev->end };
    if (kind == PTI_EV_COMPUTE) {
      te.device = "cpu";
      te.model = p->cpu->desc->name;
      te.rud = rud_names != NULL ? rud_names[ev->ref] : NULL;
    } else {
      te.device = "mpi";
      te.model = p->net ? p->net->desc->name : p->intra->desc->name;
      te.wait = ev->wait;
      guint32 pa, pb;
      const PtiModelInstance *via = is_message (kind) && ev->ref < e->n_procs
                                      ? route (e, r, ev->ref, &pa, &pb) : NULL;
      if (via != NULL)
        te.model = via->desc->name;
      if (is_message (kind)) {
        te.peer = ev->ref;
        te.tag = ev->tag;
        te.bytes = ev->bytes;
        te.msg = ev->msg;
        te.rendezvous = ev->rendezvous;
      }
    }
    if (!pti_trace_writer_event (w, &te, error))
      return FALSE;
  }
  return pti_trace_writer_end_process (w, error);
}

gboolean
pti_engine_write_events (const PtiEngine *e, PtiTraceWriter *w, const char *const *rud_names,
                         GError **error)
{
  g_return_val_if_fail (e->finished, FALSE);
  for (guint r = 0; r < e->n_procs; r++)
    if (e->procs[r].n > 0 && !write_process_events (e, r, 0, e->procs[r].n, w, rud_names, error))
      return FALSE;
  g_autofree PtiTraceProcessSummary *sum = g_new (PtiTraceProcessSummary, e->n_procs);
  for (guint r = 0; r < e->n_procs; r++)
    pti_engine_process_summary (e, r, &sum[r]);
  pti_trace_writer_set_derived (w, e->events_derived);
  return pti_trace_writer_summary (w, e->predicted, e->n_events, sum, e->n_procs, error);
}
