/* Point-to-point matching, the eager and rendezvous protocols, and the loop
 * that runs one process.
 *
 * A process runs inline through its computations (no queue operation per
 * computation); at its next communication it yields with a RESUME at its
 * own clock unless that clock is the current time.  So every interaction (a
 * send posted, a receive posted, a transfer started) happens in global time
 * order, which is what a model that keeps state between transfers needs
 * (LogGP's gap; contention).
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
#include "core-private.h"

static inline const PtiNetOps *
ops (const PtiModelInstance *model)
{
  return model->desc->net;
}

/* The system's one routing rule (pti_system_route), between the
 * processors two ranks are placed on. */
const PtiModelInstance *
pti_route (const PtiEngine *e, guint a, guint b, guint32 *port_a, guint32 *port_b)
{
  return pti_system_route (e->system, e->procs[a].processor, e->procs[b].processor, port_a,
                           port_b);
}

/* Move @bytes of @m now, forwards (sender to receiver) or back, on a cost model. */
static void
transfer (PtiEngine *e, const Msg *m, gboolean back, guint64 bytes, PtiTransfer *out)
{
  ops (m->model)->transfer (m->model->state, back ? m->dst_port : m->src_port,
                            back ? m->src_port : m->dst_port, bytes, e->now, out);
}

static void request_done (PtiEngine *e, guint rank, guint32 slot, double ready, double busy_from);

/* The rendezvous answer leaves the receiver now. */
static void
send_reply (PtiEngine *e, Msg *m)
{
  if (m->flow_net) {
    pti_flow_start (e, m, STAGE_REPLY);
    return;
  }
  PtiTransfer tr;
  transfer (e, m, TRUE, 0, &tr);
  pti_queue_push (e, tr.arrived, ITEM_REPLY_ARRIVE, m->src, m);
}

/* A receive's message has arrived and is matched: the receive is complete. */
static void
recv_complete (PtiEngine *e, Msg *m)
{
  guint32 rank = m->dst, slot = m->recv_slot;
  double arrived = m->arrived;
  Proc *p = &e->procs[rank];
  p->reqs[slot].msg = NULL;
  ReqTrace *t = pti_req_trace (p, slot);
  if (t != NULL) {
    t->entered = m->entered;
    t->arrived = arrived;
  }
  pti_msg_free (e, m);
  request_done (e, rank, slot, arrived, arrived);
}

static inline gboolean
wants (const Req *q, const Msg *m)
{
  return q->comm == m->comm && (q->peer == PTI_ENGINE_ANY_SOURCE || q->peer == m->src)
         && (q->tag == PTI_ENGINE_ANY_TAG || q->tag == m->tag);
}

/* Pair message @m with receive request @slot of its receiver. */
static void
match (PtiEngine *e, Msg *m, guint32 slot)
{
  Req *rq = &e->procs[m->dst].reqs[slot];
  if (G_UNLIKELY (m->bytes > rq->bytes) && e->error == NULL)
    g_set_error (&e->error, PTI_ERROR, PTI_ERROR_INVALID,
                 "message of %" G_GUINT64_FORMAT " bytes from rank %u to rank %u (tag %d) is "
                 "longer than the %" G_GUINT64_FORMAT "-byte receive that matches it "
                 "(at simulated time %.9f s)", m->bytes, m->src, m->dst, m->tag, rq->bytes,
                 e->now);
  m->recv_slot = slot;
  rq->msg = m;
  rq->model = m->model;
  rq->rendezvous = m->rendezvous;
  ReqTrace *t = pti_req_trace (&e->procs[m->dst], slot);
  if (t != NULL) {
    t->actual_peer = m->src;   /* a wildcard receive shows what it got */
    t->actual_tag = m->tag;
    t->msg_id = m->id;
    t->msg_bytes = m->bytes;
  }
  if (m->rendezvous) {
    if (m->request_in)
      send_reply (e, m);
  } else if (m->data_in) {
    recv_complete (e, m);
  }
}

/* The slot of the send or receive at @p's head: its own (non-blocking),
 * or a new one for the time it takes (blocking).  Always inlined: once per
 * message each side, and GCC otherwise splits it into a call. */
static inline __attribute__ ((always_inline)) guint32
post_slot (Proc *p, const Op *op)
{
  if (op->req != NO_SLOT)
    return op->req & REQ_SLOT_MASK;
  guint32 slot = pti_req_alloc (p);
  Req *q = &p->reqs[slot];
  q->blocking = TRUE;
  q->is_recv = op->kind == PTI_OP_RECV;
  q->peer = op->peer;
  q->tag = op->tag;
  q->bytes = op->bytes;
  q->comm = op->comm;
  return slot;
}

static guint32
post_send (PtiEngine *e, guint rank, const Op *op)
{
  Proc *p = &e->procs[rank];
  guint32 slot = post_slot (p, op);
  Msg *m = pti_msg_new (e);
  m->src = rank;
  m->dst = op->peer;
  m->tag = op->tag;
  m->comm = op->comm;
  m->bytes = op->bytes;
  m->send_slot = slot;
  m->recv_slot = NO_SLOT;
  m->id = e->next_msg_id++;
  m->model = pti_route_comm (e, rank, m->dst, op->comm, &m->src_port, &m->dst_port);
  m->flow_net = e->n_nets > 0 ? pti_flow_net_of (e, m->model) : 0;
  m->rendezvous = (op->flags & OP_FLAG_SYNC)
                  || op->bytes > ops (m->model)->eager_limit (m->model->state);
  Req *q = &p->reqs[slot];
  q->state = REQ_POSTED;
  q->msg = m;
  q->rendezvous = m->rendezvous;
  ReqTrace *t = pti_req_trace (p, slot);
  if (t != NULL) {
    t->msg_id = m->id;
    t->msg_bytes = m->bytes;
    t->actual_peer = m->dst;
    t->actual_tag = m->tag;
  }

  p->sent++;
  p->sent_bytes += op->bytes;
  double o_s = ops (m->model)->send_overhead (m->model->state, op->bytes);
  p->comm += o_s;
  p->clock = e->now + o_s;
  pti_queue_push (e, p->clock, m->rendezvous ? ITEM_INJECT_REQUEST : ITEM_INJECT_DATA, rank, m);
  if (!m->rendezvous) {
    /* Eager: the data is the network's now; the send is complete. */
    q->msg = NULL;
    m->send_slot = NO_SLOT;
    q->state = REQ_DONE;
    q->ready = q->busy_from = m->entered = p->clock;
    if (t != NULL)
      t->entered = t->left = p->clock;
  }

  Proc *d = &e->procs[m->dst];
  guint32 prev = NO_SLOT;
  for (guint32 r = d->posted_head; r != NO_SLOT; prev = r, r = d->reqs[r].next) {
    if (!wants (&d->reqs[r], m))
      continue;
    if (prev != NO_SLOT)
      d->reqs[prev].next = d->reqs[r].next;
    else
      d->posted_head = d->reqs[r].next;
    if (d->posted_tail == r)
      d->posted_tail = prev;
    match (e, m, r);
    return slot;
  }
  m->next = NULL;
  if (d->unmatched_tail != NULL)
    d->unmatched_tail->next = m;
  else
    d->unmatched_head = m;
  d->unmatched_tail = m;
  return slot;
}

static guint32
post_recv (PtiEngine *e, guint rank, const Op *op)
{
  Proc *q = &e->procs[rank];
  guint32 slot = post_slot (q, op);
  Req *rq = &q->reqs[slot];
  rq->state = REQ_POSTED;
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
    return slot;
  }
  if (q->posted_tail != NO_SLOT)
    q->reqs[q->posted_tail].next = slot;
  else
    q->posted_head = slot;
  q->posted_tail = slot;
  return slot;
}

/* The blocking operation at @p's head completes: it waited from @from for
 * requests @done (n_done of them), the latest (or chosen) @ready, with the
 * message layer busy from @busy_from; receives cost @o_r more.  Always
 * inlined: its two callers pass constants (one request) and locals that a
 * call would spill. */
static inline __attribute__ ((always_inline)) void
wait_complete (PtiEngine *e, guint rank, Proc *p, const Op *op, double from, double ready,
               double busy_from, double o_r, const guint32 *done, guint n_done)
{
  double end = MAX (ready, from);
  double busy = end - MAX (busy_from, from);
  busy = busy > 0 ? busy : 0;
  double wait = (end - from) - busy;
  double op_end = end + o_r;
  p->wait += wait;
  p->comm += busy + o_r;
  p->clock = op_end;
  if (e->sink.event != NULL) {
    if (op->kind == PTI_OP_SEND || op->kind == PTI_OP_RECV)
      pti_out_blocking (e, rank, op, p->blocking_slot, p->op_start, op_end, wait);
    else
      pti_out_wait (e, rank, op, p->op_start, op_end, wait, done, n_done);
  }
  for (guint i = 0; i < n_done; i++)
    pti_req_release (p, done[i]);
  p->n_events++;
  p->rep.pos++;
  pti_proc_consume (e, p);
  p->state = PROC_READY;
}

/* try_finish_wait for a blocking send or receive: its one request. */
static inline gboolean
try_finish_blocking (PtiEngine *e, guint rank, Proc *p, const Op *op)
{
  guint32 slot = p->blocking_slot;
  const Req *rq = &p->reqs[slot];
  if (rq->state != REQ_DONE)
    return FALSE;
  double from = p->wait_from;
  double ready = from, busy_from = from;
  if (rq->ready >= from) {
    ready = rq->ready;
    busy_from = rq->busy_from;
  }
  double o_r = 0;
  if (rq->is_recv)
    o_r += ops (rq->model)->recv_overhead (rq->model->state, rq->bytes);
  wait_complete (e, rank, p, op, from, ready, busy_from, o_r, &slot, 1);
  return TRUE;
}

/* try_finish_wait for a wait, waitall or waitany (or a probe). */
static gboolean
try_finish_waits (PtiEngine *e, guint rank, Proc *p, const Op *op)
{
  if (op->kind == PTI_OP_PROBE)
    return FALSE;   /* woken by probe_wake, not by its process's requests */
  gboolean any = op->kind == PTI_OP_WAITANY;
  guint n = op->peer;

  /* all: the latest request decides; any: the earliest completed one.  A
   * waitany skips requests an earlier waitany already completed. */
  double from = p->wait_from;
  double ready = any ? INFINITY : from, busy_from = from;
  guint live = 0;
  gint chosen = -1;
  for (guint i = 0; i < n; i++) {
    guint32 slot = pti_req_slot (p, pti_wait_handle (p, i));
    if (slot == NO_SLOT)
      continue;
    live++;
    const Req *rq = &p->reqs[slot];
    if (rq->state != REQ_DONE) {
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

  double o_r = 0;
  guint32 *done = PTI_SCRATCH (e, scratch_slots, scratch_slots_cap, MAX (n, 1));
  guint n_done = 0;
  for (guint i = 0; i < n; i++) {
    if (any && (gint) i != chosen)
      continue;
    guint32 slot = pti_req_slot (p, pti_wait_handle (p, i));
    if (slot == NO_SLOT)
      continue;
    const Req *rq = &p->reqs[slot];
    if (rq->is_recv)
      o_r += ops (rq->model)->recv_overhead (rq->model->state, rq->bytes);
    done[n_done++] = slot;
  }
  wait_complete (e, rank, p, op, from, ready, busy_from, o_r, done, n_done);
  return TRUE;
}

/* Try to complete the blocking operation at @p's head (begun at op_start,
 * waiting from wait_from).  TRUE if it completed: the process may go on.
 * Inline: a blocking send or receive, most of them, takes no call. */
static inline gboolean
try_finish_wait (PtiEngine *e, guint rank)
{
  Proc *p = &e->procs[rank];
  const Op *op = pti_proc_op_at (p, p->head);
  if (op->kind == PTI_OP_SEND || op->kind == PTI_OP_RECV)
    return try_finish_blocking (e, rank, p, op);
  return try_finish_waits (e, rank, p, op);
}

static void
request_done (PtiEngine *e, guint rank, guint32 slot, double ready, double busy_from)
{
  Proc *p = &e->procs[rank];
  Req *rq = &p->reqs[slot];
  rq->state = REQ_DONE;
  rq->ready = ready;
  ReqTrace *t = pti_req_trace (p, slot);
  if (t != NULL)
    t->left = ready;
  rq->busy_from = busy_from;
  if (p->state == PROC_WAITING && try_finish_wait (e, rank))
    pti_proc_run (e, rank);
}

/* Probes.  A message not matched yet whose envelope is at its receiver (an
 * eager message's data, a rendezvous message's request) can be received
 * now; a probe waits for one that it wants. */
static inline gboolean
probe_wants (const Op *op, const Msg *m)
{
  return op->comm == m->comm && (op->peer == PTI_ENGINE_ANY_SOURCE || op->peer == m->src)
         && (op->tag == PTI_ENGINE_ANY_TAG || op->tag == m->tag);
}

/* The probe at @rank's head is done now: it found @m. */
static void
probe_done (PtiEngine *e, guint rank, const Msg *m)
{
  Proc *p = &e->procs[rank];
  const Op *op = pti_proc_op_at (p, p->head);
  double end = MAX (e->now, p->wait_from);
  double wait = end - p->wait_from;
  p->wait += wait;
  p->clock = end;
  if (e->sink.event != NULL)
    pti_out_probe (e, rank, op, m, p->op_start, end, wait);
  p->n_events++;
  p->rep.pos++;
  pti_proc_consume (e, p);
  p->state = PROC_READY;
}

/* A probe just begun: done at once if a message it wants is there. */
static gboolean
probe_now (PtiEngine *e, guint rank)
{
  const Proc *p = &e->procs[rank];
  const Op *op = pti_proc_op_at (p, p->head);
  for (const Msg *m = p->unmatched_head; m != NULL; m = m->next)
    if ((m->rendezvous ? m->request_in : m->data_in) && probe_wants (op, m)) {
      probe_done (e, rank, m);
      return TRUE;
    }
  return FALSE;
}

/* Message @m, not matched, has just made its envelope available at its
 * receiver: a probe waiting for it there goes on. */
static void
probe_wake (PtiEngine *e, const Msg *m)
{
  Proc *q = &e->procs[m->dst];
  if (q->state != PROC_WAITING || pti_proc_op_at (q, q->head)->kind != PTI_OP_PROBE
      || !probe_wants (pti_proc_op_at (q, q->head), m))
    return;
  probe_done (e, m->dst, m);
  pti_proc_run (e, m->dst);
}

/* Whether a process that must wait for its clock may go on at once instead
 * of queueing a RESUME at it: when nothing that would be handled first is
 * pending — no item in the queue before that clock, no change or repetition
 * digest due, no partial run's horizon — and nothing waits to run after
 * this process on the stack (@top: the run is the last thing its item's
 * handling does).  Then the RESUME would be the next item taken, and the
 * evaluation is the same without it: half the queue's traffic is these. */
static inline gboolean
may_go_on (PtiEngine *e, gboolean top, double clock)
{
  return top && !e->repeat_snapshot_due && (!e->bounded || clock < e->horizon)
         && (pti_queue_size (e) == 0 || clock < pti_queue_next_time (e))
         && !pti_changes_due (e, clock);
}

/* Run @rank from its head until it blocks, must wait for its clock, or has
 * nothing more. */
void
pti_proc_run (PtiEngine *e, guint rank)
{
  Proc *p = &e->procs[rank];
  gboolean top = e->top;
  e->top = FALSE;   /* what this run sets off runs nested in it */
  p->state = PROC_READY;
  while (e->error == NULL) {
    if (G_UNLIKELY (p->head == p->tail) && !pti_proc_fetch (e, rank))
      break;
    Op *op = pti_proc_op_at (p, p->head);
    switch (op->kind) {
    case PTI_OP_COMPUTE: {
      /* Live CPU changes (live.c) stretch it; else it takes its price. */
      double took = op->duration;
      if (G_UNLIKELY (e->cpu_live))
        took = pti_cpu_finish (e, rank, p->clock, op->duration) - p->clock;
      if (e->sink.event != NULL)
        pti_out_compute (e, rank, op, p->clock, p->clock + took);
      p->clock += took;
      p->compute += took;
      p->n_events++;
      p->rep.pos++;
      pti_proc_consume (e, p);
      continue;
    }
    case PTI_OP_COLL_BEGIN:
    case PTI_OP_COLL_END:
      if (e->sink.event != NULL)
        pti_out_marker (e, rank, op);
      pti_proc_consume (e, p);
      continue;
    case PTI_OP_PHASE_BEGIN:
    case PTI_OP_PHASE_END:
      pti_phase_on_marker (e, rank, op);
      if (e->sink.event != NULL)
        pti_out_marker (e, rank, op);
      pti_proc_consume (e, p);
      continue;
    case OP_REPEAT_BEGIN:
    case OP_REPEAT_NEXT:
    case OP_REPEAT_END:
      pti_repeat_on_marker (e, rank, op);
      if (e->error != NULL || p->state != PROC_READY)
        return;
      continue;
    default:
      break;
    }
    if (p->clock > e->now && !may_go_on (e, top, p->clock)) {
      pti_queue_push_resume (e, p->clock, rank);
      p->state = PROC_SCHEDULED;
      return;
    }
    /* A process acts at its own clock; it is never behind the current time,
     * since every process is resumed in time order. */
    e->now = p->clock;
    p->op_start = e->now;
    switch (op->kind) {
    case PTI_OP_SEND:
    case PTI_OP_ISEND:
      p->blocking_slot = post_send (e, rank, op);
      break;
    case PTI_OP_RECV:
    case PTI_OP_IRECV:
      p->blocking_slot = post_recv (e, rank, op);
      break;
    default:
      break;
    }
    if (op->kind <= PTI_OP_IRECV) {
      /* What the trace says of the request when it completes. */
      ReqTrace *t = pti_req_trace (p, p->blocking_slot);
      guint64 id = op->kind >= PTI_OP_ISEND ? p->n_posted++ : 0;
      if (t != NULL) {
        t->posted = p->op_start;
        t->trace_id = id;
      }
    }
    if (op->kind == PTI_OP_ISEND || op->kind == PTI_OP_IRECV) {
      /* posting: the send's overhead, or nothing */
      if (e->sink.event != NULL)
        pti_out_post (e, rank, op, p->blocking_slot, p->op_start, p->clock);
      p->n_events++;
      p->rep.pos++;
      pti_proc_consume (e, p);
      continue;
    }
    if (op->kind == PTI_OP_IO) {
      if (pti_io_run (e, rank, op))
        continue;
      return;
    }
    if (op->kind == PTI_OP_PROBE) {
      p->wait_from = p->clock;
      if (probe_now (e, rank))
        continue;
      p->state = PROC_WAITING;
      return;
    }
    /* A blocking send's wait begins after its overhead. */
    p->wait_from = p->clock;
    if (!try_finish_wait (e, rank)) {
      p->state = PROC_WAITING;
      return;
    }
  }
  if (e->error == NULL) {
    /* Out of operations: finished, unless a partial evaluation is under
     * way and more will come, which may start at this clock: nothing later
     * may be resolved before they are known. */
    p->state = PROC_STARVED;
    e->horizon = MIN (e->horizon, p->clock);
  }
}

void
pti_item_handle (PtiEngine *e, const Item *it)
{
  Msg *m = it->msg;
  PtiTransfer tr;

  switch ((ItemType) (it->type & ITEM_TYPE_MASK)) {
  case ITEM_RESUME:
    pti_proc_run (e, it->rank);
    break;
  case ITEM_INJECT_DATA:
    /* m->entered was set when the send was posted: the item may have been
     * moved later since, past a derived span (repeat.c). */
    if (m->flow_net) {
      pti_flow_start (e, m, STAGE_EAGER_DATA);
      break;
    }
    transfer (e, m, FALSE, m->bytes, &tr);
    pti_queue_push (e, tr.arrived, ITEM_DATA_ARRIVE, m->dst, m);
    break;
  case ITEM_INJECT_REQUEST:
    if (m->flow_net) {
      pti_flow_start (e, m, STAGE_REQUEST);
      break;
    }
    transfer (e, m, FALSE, 0, &tr);
    pti_queue_push (e, tr.arrived, ITEM_REQUEST_ARRIVE, m->dst, m);
    break;
  case ITEM_REQUEST_ARRIVE:
    m->request_in = TRUE;
    if (m->recv_slot != NO_SLOT)
      send_reply (e, m);
    else
      probe_wake (e, m);
    break;
  case ITEM_REPLY_ARRIVE: {
    /* The sender pushes its data out now; its send completes when it has left. */
    m->entered = e->now;
    if (m->flow_net) {
      m->reply_at = e->now;
      pti_flow_start (e, m, STAGE_RDV_DATA);
      break;
    }
    transfer (e, m, FALSE, m->bytes, &tr);
    pti_queue_push (e, tr.arrived, ITEM_DATA_ARRIVE, m->dst, m);
    guint32 slot = m->send_slot;
    m->send_slot = NO_SLOT;
    Proc *s = &e->procs[m->src];
    s->reqs[slot].msg = NULL;
    ReqTrace *t = pti_req_trace (s, slot);
    if (t != NULL)
      t->entered = e->now;
    request_done (e, m->src, slot, tr.injected, e->now);
    break;
  }
  case ITEM_DATA_ARRIVE:
    m->data_in = TRUE;
    m->arrived = e->now;
    if (m->recv_slot != NO_SLOT)
      recv_complete (e, m);
    else if (!m->rendezvous)
      probe_wake (e, m);
    break;
  case ITEM_DATA_INJECTED: {
    guint32 slot = m->send_slot;
    m->send_slot = NO_SLOT;
    Proc *s = &e->procs[m->src];
    s->reqs[slot].msg = NULL;
    ReqTrace *t = pti_req_trace (s, slot);
    if (t != NULL)
      t->entered = m->entered;
    request_done (e, m->src, slot, e->now, m->reply_at);
    break;
  }
  case ITEM_NET_WAKE: {
    FlowNet *f = &e->nets[it->rank];
    f->wake_at = INFINITY;
    f->ops->flow_advance (f->model->state, e->now, &f->sink);
    pti_net_reschedule (e, f);
    break;
  }
  }
}
