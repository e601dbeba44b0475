/* Per-process windows of operations, request slots and the message pool;
 * the append API the session builds workloads with.
 *
 * A window is a ring of operations whose capacity doubles when it is full,
 * so appending costs no allocation per operation.  Indices are 32-bit
 * counters taken modulo the capacity: they wrap harmlessly.  An operation
 * leaves the window once executed, unless a repeated block the engine
 * replays pins it. */
#include "core-private.h"

void
pti_proc_window_grow (Proc *p)
{
  guint32 cap = p->mask == 0 ? 16 : 2 * (p->mask + 1);
  Op *ops = g_new (Op, cap);
  for (guint32 i = p->pin; i != p->tail; i++)
    ops[i & (cap - 1)] = p->ops[i & p->mask];
  g_free (p->ops);
  p->ops = ops;
  p->mask = cap - 1;
}

gboolean
pti_proc_fetch (PtiEngine *e, guint rank)
{
  Proc *p = &e->procs[rank];
  while (p->head == p->tail) {
    if (p->source_done || e->source.pull == NULL || e->error != NULL)
      return FALSE;
    guint32 before = p->tail;
    GError *local = NULL;
    if (!e->source.pull (e->source.data, rank, &local)) {
      if (e->error == NULL)
        g_propagate_error (&e->error, local);
      else
        g_clear_error (&local);
      return FALSE;
    }
    if (p->tail == before && !p->source_done && e->error == NULL) {
      g_set_error (&e->error, PTI_ERROR, PTI_ERROR_FAILED,
                   "rank %u: the workload source gave no operation and did not say it was done",
                   rank);
      return FALSE;
    }
  }
  return TRUE;
}

guint32
pti_wait_handle (const Proc *p, guint i)
{
  return pti_proc_op_at (p, p->head + 1 + i / REQS_PER_OP)->reqs.h[i % REQS_PER_OP];
}

/* ---- request slots ------------------------------------------------------- */

void
pti_req_table_grow (Proc *p)
{
  /* By half again, not double: a rank's peak is usually one collective's
   * 2 log2(P) requests plus one, which doubling would nearly double. */
  p->cap_reqs += MAX (8, p->cap_reqs / 2);
  p->reqs = g_renew (Req, p->reqs, p->cap_reqs);
  if (p->rtrace != NULL)
    p->rtrace = g_renew (ReqTrace, p->rtrace, p->cap_reqs);
}

void
pti_reqs_trace_init (PtiEngine *e)
{
  for (guint r = 0; r < e->n_procs; r++) {
    Proc *p = &e->procs[r];
    if (p->rtrace == NULL && p->cap_reqs > 0)
      p->rtrace = g_new0 (ReqTrace, p->cap_reqs);
    else if (p->rtrace == NULL)
      p->rtrace = g_new0 (ReqTrace, 1);   /* non-NULL: traced; grown with the slots */
  }
}

/* ---- messages ---------------------------------------------------------- */

void
pti_msg_pool_grow (PtiEngine *e)
{
  Msg *chunk = g_new (Msg, MSG_CHUNK);
  g_ptr_array_add (e->msg_chunks, chunk);
  for (guint i = 0; i < MSG_CHUNK; i++) {
    chunk[i].next = e->free_msgs;
    e->free_msgs = &chunk[i];
  }
}

/* ---- appending --------------------------------------------------------- */

void
pti_engine_add_compute (PtiEngine *e, guint rank, double duration, guint32 rud)
{
  Proc *p = &e->procs[rank];
  Op *op = pti_proc_append_op (e, p);
  op->kind = PTI_OP_COMPUTE;
  op->duration = duration;
  op->peer = rud;
  p->n_appended++;
}

void
pti_engine_add_compute_on (PtiEngine *e, guint rank, double duration, guint32 rud,
                           guint choice)
{
  pti_engine_add_compute (e, rank, duration, rud);
  pti_proc_op_at (&e->procs[rank], e->procs[rank].tail - 1)->tag = (gint32) choice;
}

static gboolean
check_route (PtiEngine *e, guint a, guint b, GError **error)
{
  guint32 pa, pb;
  if (pti_route (e, a, b, &pa, &pb) != NULL)
    return TRUE;
  g_autofree char *da = pti_system_describe_processor (e->system, e->procs[a].processor);
  g_autofree char *db = pti_system_describe_processor (e->system, e->procs[b].processor);
  g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
               "no network connects rank %u (%s) and rank %u (%s) in %s", a, da, b, db,
               pti_system_path (e->system));
  return FALSE;
}

static gboolean
message_route_ok (PtiEngine *e, guint rank, guint peer, GError **error)
{
  /* pti_system_route finds the network for any pair then (append is hot). */
  if (G_LIKELY (e->one_network))
    return TRUE;
  /* A receive from any source can only come over the network its process is on. */
  if (peer != PTI_ENGINE_ANY_SOURCE)
    return check_route (e, rank, peer, error);
  return e->procs[rank].net != NULL || check_route (e, rank, rank, error);
}

gboolean
pti_engine_add_message (PtiEngine *e, PtiOpKind kind, guint rank, guint peer, guint64 bytes,
                        gint tag, guint comm, GError **error)
{
  if (!message_route_ok (e, rank, peer, error))
    return FALSE;
  Proc *p = &e->procs[rank];
  Op *op = pti_proc_append_op (e, p);
  op->kind = kind;
  op->peer = peer;
  op->bytes = bytes;
  op->tag = tag;
  op->comm = (guint16) comm;
  op->req = NO_SLOT;
  p->n_appended++;
  return TRUE;
}

gboolean
pti_engine_add_request (PtiEngine *e, PtiOpKind kind, guint rank, guint peer, guint64 bytes,
                        gint tag, guint comm, guint32 *request, GError **error)
{
  if (!message_route_ok (e, rank, peer, error))
    return FALSE;
  Proc *p = &e->procs[rank];
  if (p->live_reqs >= REQ_MAX_SLOTS - 1) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "rank %u: more than %u requests pending at once", rank, REQ_MAX_SLOTS - 1);
    return FALSE;
  }
  guint32 slot = pti_req_alloc (p);
  Req *q = &p->reqs[slot];
  q->pinned = p->open_replayed;
  q->is_recv = kind == PTI_OP_IRECV;
  q->peer = peer;
  q->tag = tag;
  q->bytes = bytes;
  q->comm = (guint16) comm;
  Op *op = pti_proc_append_op (e, p);
  op->kind = kind;
  op->peer = peer;
  op->bytes = bytes;
  op->tag = tag;
  op->comm = (guint16) comm;
  op->req = pti_req_handle (p, slot);
  *request = op->req;
  p->n_appended++;
  return TRUE;
}

gboolean
pti_engine_add_ssend (PtiEngine *e, guint rank, guint dst, guint64 bytes, gint tag, guint comm,
                      guint32 *request, GError **error)
{
  Proc *p = &e->procs[rank];
  if (request != NULL
        ? !pti_engine_add_request (e, PTI_OP_ISEND, rank, dst, bytes, tag, comm, request, error)
        : !pti_engine_add_message (e, PTI_OP_SEND, rank, dst, bytes, tag, comm, error))
    return FALSE;
  pti_proc_op_at (p, p->tail - 1)->flags |= OP_FLAG_SYNC;
  return TRUE;
}

guint32
pti_engine_spare_handle (guint k)
{
  /* The last slot is never allocated (at most REQ_MAX_SLOTS - 1 live
   * requests); PTI_REQUEST_NULL, all ones, is left out. */
  return REQ_SLOT_MASK | (k << REQ_SLOT_BITS);
}

gboolean
pti_engine_add_probe (PtiEngine *e, guint rank, guint src, gint tag, guint comm, GError **error)
{
  if (!pti_engine_add_message (e, PTI_OP_PROBE, rank, src, 0, tag, comm, error))
    return FALSE;
  return TRUE;
}

gboolean
pti_engine_add_wait (PtiEngine *e, PtiOpKind kind, guint rank, guint n, const guint32 *requests,
                     GError **error)
{
  Proc *p = &e->procs[rank];
  gboolean any = kind == PTI_OP_WAITANY;
  for (guint i = 0; i < n; i++) {
    guint32 slot = pti_req_slot (p, requests[i]);
    if (slot == NO_SLOT) {
      guint32 s = requests[i] & REQ_SLOT_MASK;
      gboolean was = s < p->n_reqs && (guint16) (requests[i] >> REQ_SLOT_BITS) != p->reqs[s].gen
                     && requests[i] != G_MAXUINT32;
      g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                   was ? "rank %u: request %u was already completed by an earlier wait"
                       : "rank %u: request %u was not made by isend or irecv on this rank",
                   rank, requests[i]);
      return FALSE;
    }
    const Req *q = &p->reqs[slot];
    if (p->open_replayed && !q->pinned) {
      g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                   "rank %u: request %u was made before the repeated block that waits for it: "
                   "a repetition must wait for its own requests only", rank, requests[i]);
      return FALSE;
    }
    if (q->named || q->blocking) {
      g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                   "rank %u: request %u (%s) was already completed by an earlier wait", rank,
                   requests[i], q->is_recv ? "irecv" : "isend");
      return FALSE;
    }
    for (guint j = 0; j < i; j++)
      if (requests[j] == requests[i]) {
        g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                     "rank %u: request %u is named twice in one wait", rank, requests[i]);
        return FALSE;
      }
  }
  /* Only a wait for all is sure to complete each request it names; a
   * waitany completes one, which one is known only in stage 2. */
  for (guint i = 0; i < n; i++) {
    Req *q = &p->reqs[pti_req_slot (p, requests[i])];
    if (any)
      q->any_named = TRUE;
    else
      q->named = TRUE;
  }
  Op *op = pti_proc_append_op (e, p);
  op->kind = kind;
  op->peer = n;
  Op *more = NULL;
  for (guint i = 0; i < n; i++) {
    if (i % REQS_PER_OP == 0) {
      more = pti_proc_append_op (e, p);
      more->kind = OP_REQS;
    }
    more->reqs.h[i % REQS_PER_OP] = requests[i];
    more->reqs.n++;
  }
  p->n_appended++;
  return TRUE;
}

static void
add_coll_marker (PtiEngine *e, guint rank, guint8 kind, guint coll, guint comm, guint root,
                 guint64 bytes)
{
  Op *op = pti_proc_append_op (e, &e->procs[rank]);
  op->kind = kind;
  op->peer = coll;
  op->tag = (gint32) root;
  op->comm = (guint16) comm;
  op->bytes = bytes;
}

void
pti_engine_add_coll_begin (PtiEngine *e, guint rank, guint coll, guint comm, guint root,
                           guint64 bytes)
{
  add_coll_marker (e, rank, PTI_OP_COLL_BEGIN, coll, comm, root, bytes);
}

void
pti_engine_add_coll_end (PtiEngine *e, guint rank, guint coll, guint comm, guint root,
                         guint64 bytes)
{
  add_coll_marker (e, rank, PTI_OP_COLL_END, coll, comm, root, bytes);
}

guint64
pti_engine_n_pending (const PtiEngine *e)
{
  return e->held;
}

guint64
pti_engine_n_appended (const PtiEngine *e)
{
  guint64 n = 0;
  for (guint r = 0; r < e->n_procs; r++)
    n += e->procs[r].n_appended;
  return n;
}

guint64
pti_engine_rank_appended (const PtiEngine *e, guint rank)
{
  return e->procs[rank].n_appended;
}

const guint64 *
pti_engine_rank_appended_counter (const PtiEngine *e, guint rank)
{
  return &e->procs[rank].n_appended;
}
