/* Analytical repetition (the paper's section 3.2): a block marked on every
 * rank runs `count` times though it is given once.
 *
 * Markers in each window delimit the block.  A block the engine replays
 * (REPEAT_REPLAYED: appended once, by the push API or a C rank program) is
 * kept in the window, pinned, and the head jumps back to its start at the
 * end of each repetition.  A block a source regenerates (a workload file)
 * comes again after each REPEAT_NEXT, and the source skips repetitions when
 * told.
 *
 * Nothing here cuts the evaluation at block boundaries: a fast rank runs
 * into the next repetition while a slow one is still in this one, exactly
 * as if the block had been written out `count` times.  Repetitions are
 * derived instead of evaluated only from a state proven periodic (see
 * pti_repeat_try_jump): the rest of the evaluation is then that state's
 * evolution shifted in time. */
#include "core-private.h"
#include "digest-private.h"

#include <float.h>
#include <stdlib.h>

typedef struct {
  PtiDigest *digest;
  double origin;         /* s: rank 0's clock when it began the repetition */
  guint64 k;             /* which repetition rank 0 had begun */
  guint32 block;
  double *acc;           /* per process: ACC figures (fill_acc) */
  double *phases;        /* per process: phase_width figures (pti_phases_save) */
  guint phase_width;
} Snapshot;

typedef struct {
  GArray *counts;        /* guint64 by block number: as the first rank to begin
                          * each gave it; the others must agree */
  GArray *first;         /* guint: that rank */
  GPtrArray *history;    /* Snapshot*: the last states digested, oldest first */
  double due_origin;     /* the snapshot asked for: rank 0's clock, */
  guint64 due_k;         /* repetition */
  guint32 due_block;     /* and block */
  guint32 epoch;         /* of messages' canonical numbers */
  GPtrArray *msgs;       /* messages of the digest being made, by number - 1 */
  char *why_not;         /* why no repetition can be derived, if so */
} RepeatState;

static void snapshot_free (gpointer s);

static RepeatState *
state_of (PtiEngine *e)
{
  if (e->repeat_state == NULL) {
    RepeatState *st = g_new0 (RepeatState, 1);
    st->counts = g_array_new (FALSE, FALSE, sizeof (guint64));
    st->first = g_array_new (FALSE, FALSE, sizeof (guint));
    st->msgs = g_ptr_array_new ();
    st->history = g_ptr_array_new_with_free_func (snapshot_free);
    e->repeat_state = st;
  }
  return e->repeat_state;
}

void
pti_repeat_free (PtiEngine *e)
{
  RepeatState *st = e->repeat_state;
  if (st == NULL)
    return;
  g_array_unref (st->counts);
  g_array_unref (st->first);
  g_ptr_array_unref (st->msgs);
  g_ptr_array_unref (st->history);
  g_free (st->why_not);
  g_free (st);
}

gboolean
pti_engine_repeat_begin (PtiEngine *e, guint rank, guint64 count, gboolean replayed,
                         GError **error)
{
  Proc *p = &e->procs[rank];
  if (p->open_repeat) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "rank %u: a repeated block is already open (blocks do not nest)", rank);
    return FALSE;
  }
  if (count == 0) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "rank %u: a block repeated 0 times: leave it out instead", rank);
    return FALSE;
  }
  RepeatState *st = state_of (e);
  guint32 block = p->n_blocks++;
  if (block == st->counts->len) {
    g_array_append_val (st->counts, count);
    g_array_append_val (st->first, rank);
  } else if (g_array_index (st->counts, guint64, block) != count) {
    p->n_blocks--;
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "analytical repetition: repeated block %u is repeated %" G_GUINT64_FORMAT
                 " times on rank %u but %" G_GUINT64_FORMAT " times on rank %u", block + 1,
                 count, rank, g_array_index (st->counts, guint64, block),
                 g_array_index (st->first, guint, block));
    return FALSE;
  }
  pti_phases_repeat_begin (e, rank);
  p->open_repeat = TRUE;
  p->open_replayed = replayed;
  p->gen_k = 1;
  p->open_start = p->tail + 1;
  Op *op = pti_proc_append_op (e, p);
  op->kind = OP_REPEAT_BEGIN;
  op->bytes = count;
  op->flags = replayed ? REPEAT_REPLAYED : 0;
  op->peer = block;
  return TRUE;
}

void
pti_engine_repeat_next (PtiEngine *e, guint rank)
{
  e->procs[rank].gen_k++;
  Op *op = pti_proc_append_op (e, &e->procs[rank]);
  op->kind = OP_REPEAT_NEXT;
}

gboolean
pti_engine_repeat_end (PtiEngine *e, guint rank, GError **error)
{
  Proc *p = &e->procs[rank];
  if (!p->open_repeat) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "rank %u: the end of a repeated block that was never begun", rank);
    return FALSE;
  }
  if (p->open_replayed)
    for (guint32 i = p->open_start; i != p->tail; i++) {
      const Op *op = pti_proc_op_at (p, i);
      if (op->kind != PTI_OP_ISEND && op->kind != PTI_OP_IRECV)
        continue;
      const Req *q = &p->reqs[op->req & REQ_SLOT_MASK];
      if (!q->named && !q->any_named) {
        g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                     "rank %u: request %u (%s) made in a repeated block is not waited for in "
                     "it: a repetition must complete its own requests", rank, op->req,
                     op->kind == PTI_OP_ISEND ? "isend" : "irecv");
        return FALSE;
      }
    }
  if (!pti_phases_repeat_end (e, rank, error))
    return FALSE;
  p->open_repeat = FALSE;
  p->open_replayed = FALSE;
  Op *op = pti_proc_append_op (e, p);
  op->kind = OP_REPEAT_END;
  return TRUE;
}

gboolean
pti_repeat_check_complete (PtiEngine *e, guint rank, GError **error)
{
  const Proc *p = &e->procs[rank];
  guint blocks = e->repeat_state ? ((RepeatState *) e->repeat_state)->counts->len : 0;
  if (p->open_repeat) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "analytical repetition: rank %u has a repeated block that is never ended",
                 rank);
    return FALSE;
  }
  if (p->n_blocks != blocks) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "analytical repetition: rank %u has %u repeated block%s, but rank %u began "
                 "block %u", rank, p->n_blocks, p->n_blocks == 1 ? "" : "s",
                 g_array_index (((RepeatState *) e->repeat_state)->first, guint, p->n_blocks),
                 p->n_blocks + 1);
    return FALSE;
  }
  return TRUE;
}

const char *
pti_engine_repetition_note (const PtiEngine *e)
{
  return e->repeat_state ? ((const RepeatState *) e->repeat_state)->why_not : NULL;
}

void
pti_engine_repetition_figures (const PtiEngine *e, guint64 *evaluated, guint64 *extrapolated)
{
  *evaluated = e->repetitions_evaluated;
  *extrapolated = e->repetitions_extrapolated;
}

/* Replayed block: its requests' slots, released by the waits of the
 * repetition that ended, serve the next one (@rearm) or go back to the free
 * list once the last has ended. */
static void
block_requests (Proc *p, gboolean rearm)
{
  for (guint32 i = p->rep.start; i != p->head; i++) {
    const Op *op = pti_proc_op_at (p, i);
    if (op->kind != PTI_OP_ISEND && op->kind != PTI_OP_IRECV)
      continue;
    guint32 slot = op->req & REQ_SLOT_MASK;
    Req *q = &p->reqs[slot];
    if (rearm) {
      q->state = REQ_APPENDED;
      q->msg = NULL;
      q->model = NULL;
      p->live_reqs++;
    } else {
      q->pinned = FALSE;
      p->live_reqs++;
      pti_req_release (p, slot);
    }
  }
}

/* The process at its head has reached a repetition marker. */
void
pti_repeat_on_marker (PtiEngine *e, guint rank, Op *op)
{
  Proc *p = &e->procs[rank];
  Repeat *rp = &p->rep;
  gboolean begun = op->kind != OP_REPEAT_END;
  switch (op->kind) {
  case OP_REPEAT_BEGIN:
    *rp = (Repeat) { .active = TRUE, .count = op->bytes, .k = 1,
                     .replayed = (op->flags & REPEAT_REPLAYED) != 0, .block = op->peer };
    pti_proc_consume (e, p);
    if (rp->replayed)
      rp->start = p->head;
    break;
  case OP_REPEAT_NEXT:
    rp->k++;
    rp->pos = 0;
    pti_proc_consume (e, p);
    break;
  case OP_REPEAT_END:
    if (rp->replayed && rp->k < rp->count) {
      block_requests (p, TRUE);
      rp->k++;
      rp->pos = 0;
      p->head = rp->start;
      begun = TRUE;
      break;
    }
    if (rp->replayed)
      block_requests (p, FALSE);
    rp->active = FALSE;
    pti_proc_consume (e, p);
    break;
  default:
    g_assert_not_reached ();
  }
  if (rank == 0 && begun) {
    e->repetitions_evaluated++;
    /* Digest the state at the next safe point (not now: callers up the
     * stack may be in the middle of an operation). */
    RepeatState *st = state_of (e);
    e->repeat_snapshot_due = TRUE;
    st->due_origin = p->clock;
    st->due_k = rp->k;
    st->due_block = rp->block;
  }
}

/* ---- proving a state periodic ------------------------------------------- */

/* Figures kept per process and snapshot. */
enum { A_CLOCK, A_COMPUTE, A_COMM, A_WAIT, A_EVENTS, A_SENT, A_BYTES, A_PHASE_SERIAL, A_POSTED,
       ACC };

/* A state may repeat only every few repetitions (a pipeline whose pattern
 * spans several): so many of the last digests are kept to compare with. */
#define HISTORY 16

static void
snapshot_free (gpointer data)
{
  Snapshot *s = data;
  pti_digest_free (s->digest);
  g_free (s->acc);
  g_free (s->phases);
  g_free (s);
}

static guint64
msg_canon (PtiEngine *e, RepeatState *st, Msg *m)
{
  if (m == NULL)
    return 0;
  if (m->canon_epoch != st->epoch) {
    m->canon_epoch = st->epoch;
    m->canon = st->msgs->len + 1;
    g_ptr_array_add (st->msgs, m);
  }
  return m->canon;
}

static guint64
cookie_canon (gpointer cookie, gpointer data)
{
  PtiEngine *e = data;
  return msg_canon (e, e->repeat_state, cookie);
}

static int
compare_items (const void *a, const void *b)
{
  const Item *x = a, *y = b;
  return pti_item_less (x, y) ? -1 : pti_item_less (y, x) ? 1 : 0;
}

static int
compare_serials (const void *a, const void *b, void *data)
{
  const Proc *p = data;
  guint64 x = p->reqs[*(const guint32 *) a].serial, y = p->reqs[*(const guint32 *) b].serial;
  return x < y ? -1 : x > y;
}

/* Everything that decides what the evaluation does next, relative to
 * @origin in time and to rank 0's repetition in count: two states with the
 * same digest evolve alike, shifted. */
static PtiDigest *
take_digest (PtiEngine *e, RepeatState *st, double origin, guint64 k0)
{
  PtiDigest *d = pti_digest_new (origin, cookie_canon, e);
  st->epoch++;
  g_ptr_array_set_size (st->msgs, 0);
  pti_digest_add_time (d, e->now);
  g_autoptr (GArray) live = g_array_new (FALSE, FALSE, sizeof (guint32));
  for (guint r = 0; r < e->n_procs; r++) {
    Proc *p = &e->procs[r];
    pti_digest_add_int (d, p->state);
    pti_digest_add_int (d, p->rep.active);
    pti_digest_add_int (d, p->rep.block);
    pti_digest_add_int (d, p->rep.k - k0);
    pti_digest_add_int (d, p->rep.pos);
    pti_digest_add_time (d, p->clock);
    pti_phases_digest (e, r, d);
    if (p->state == PROC_WAITING) {
      pti_digest_add_time (d, p->wait_from);
      pti_digest_add_time (d, p->op_start);
    }
    /* Requests by age, not by slot: slots are only where they are stored. */
    g_array_set_size (live, 0);
    for (guint32 slot = 0; slot < p->n_reqs && live->len < p->live_reqs; slot++)
      if (p->reqs[slot].state != REQ_FREE)
        g_array_append_val (live, slot);
    g_array_sort_with_data (live, compare_serials, p);
    pti_digest_add_int (d, live->len);
    for (guint i = 0; i < live->len; i++) {
      Req *q = &p->reqs[g_array_index (live, guint32, i)];
      q->canon = i;
      pti_digest_add_int (d, q->state | q->is_recv << 4 | q->blocking << 5 | q->rendezvous << 6
                               | q->named << 7 | q->any_named << 8);
      pti_digest_add_int (d, q->peer);
      pti_digest_add_int (d, (guint32) q->tag);
      pti_digest_add_int (d, q->comm);
      pti_digest_add_int (d, q->bytes);
      pti_digest_add_int (d, msg_canon (e, st, q->msg));
      if (q->state == REQ_DONE) {
        pti_digest_add_time (d, q->ready);
        pti_digest_add_time (d, q->busy_from);
      }
    }
    for (guint32 slot = p->posted_head; slot != NO_SLOT; slot = p->reqs[slot].next)
      pti_digest_add_int (d, p->reqs[slot].canon);
    pti_digest_add_int (d, G_MAXUINT64);
    for (Msg *m = p->unmatched_head; m != NULL; m = m->next)
      pti_digest_add_int (d, msg_canon (e, st, m));
    pti_digest_add_int (d, G_MAXUINT64);
  }
  /* The queue, in the order it will be handled; stale wakes left out. */
  g_autoptr (GArray) all = g_array_new (FALSE, FALSE, sizeof (Item));
  pti_queue_collect (e, all);
  Item *items = (Item *) all->data;
  qsort (items, all->len, sizeof (Item), compare_items);
  for (guint i = 0; i < all->len; i++) {
    const Item *it = &items[i];
    if (it->type == ITEM_NET_WAKE && it->t != e->nets[it->rank].wake_at)
      continue;
    pti_digest_add_time (d, it->t);
    pti_digest_add_int (d, it->type);
    pti_digest_add_int (d, it->rank);
    pti_digest_add_int (d, msg_canon (e, st, it->msg));
  }
  for (guint i = 0; i < e->n_nets; i++) {
    FlowNet *f = &e->nets[i];
    pti_digest_add_time (d, f->wake_at);
    f->ops->digest (f->model->state, d);
  }
  for (guint i = 0; i < pti_system_n_instances (e->system); i++) {
    const PtiModelInstance *mi = pti_system_instance (e->system, i);
    if (mi->desc->net != NULL && !PTI_NET_OPS_HAS_FLOWS (mi->desc->net))
      mi->desc->net->digest (mi->state, d);
  }
  /* Every message referred to, in the order first met. */
  for (guint i = 0; i < st->msgs->len; i++) {
    const Msg *m = g_ptr_array_index (st->msgs, i);
    pti_digest_add_int (d, m->src);
    pti_digest_add_int (d, m->dst);
    pti_digest_add_int (d, (guint32) m->tag);
    pti_digest_add_int (d, m->comm);
    pti_digest_add_int (d, m->bytes);
    pti_digest_add_int (d, m->rendezvous | m->request_in << 1 | m->data_in << 2
                             | m->stage << 3 | (guint) m->flow_net << 8);
    pti_digest_add_int (d, m->send_slot != NO_SLOT ? e->procs[m->src].reqs[m->send_slot].canon
                                                   : G_MAXUINT64);
    pti_digest_add_int (d, m->recv_slot != NO_SLOT ? e->procs[m->dst].reqs[m->recv_slot].canon
                                                   : G_MAXUINT64);
    if (m->data_in)
      pti_digest_add_time (d, m->arrived);
    if (m->flow_net && m->stage == STAGE_RDV_DATA)
      pti_digest_add_time (d, m->reply_at);
  }
  return d;
}

/* Whether every network model's state can be digested and shifted; if
 * not, why (kept for the report). */
static gboolean
models_shiftable (PtiEngine *e, RepeatState *st)
{
  for (guint i = 0; i < pti_system_n_instances (e->system); i++) {
    const PtiModelInstance *mi = pti_system_instance (e->system, i);
    /* An I/O model's queues are state it does not digest. */
    if ((mi->desc->net != NULL && !PTI_NET_OPS_CAN_SHIFT (mi->desc->net))
        || PTI_MODEL_HAS_IO (mi->desc)) {
      if (st->why_not == NULL)
        st->why_not = g_strdup_printf ("model '%s' of %s cannot shift its state in time, so "
                                       "no repetition is derived", mi->desc->name, mi->owner);
      return FALSE;
    }
  }
  return TRUE;
}

static void
fill_acc (const PtiEngine *e, Snapshot *s)
{
  s->acc = g_new (double, ACC * e->n_procs);
  s->phase_width = pti_phases_width (e);
  s->phases = s->phase_width ? g_new (double, (gsize) s->phase_width * e->n_procs) : NULL;
  for (guint r = 0; r < e->n_procs; r++) {
    const Proc *p = &e->procs[r];
    double *a = s->acc + ACC * r;
    a[A_CLOCK] = p->clock;
    a[A_COMPUTE] = p->compute;
    a[A_COMM] = p->comm;
    a[A_WAIT] = p->wait;
    a[A_EVENTS] = (double) p->n_events;
    a[A_SENT] = (double) p->sent;
    a[A_BYTES] = (double) p->sent_bytes;
    a[A_PHASE_SERIAL] = (double) p->phase_serial;
    a[A_POSTED] = (double) p->n_posted;
    if (s->phase_width)
      pti_phases_save (e, r, s->phases + (gsize) s->phase_width * r);
  }
}

/* How many periods of @period repetitions and @lambda s may be derived:
 * every process keeps at least one repetition to begin through the models
 * (the block's end is evaluated, not derived), and the derived time ends
 * before the next scheduled change. */
static guint64
derivable (const PtiEngine *e, guint64 period, double lambda)
{
  guint64 jump = G_MAXUINT64;
  double latest = e->now;
  for (guint r = 0; r < e->n_procs; r++) {
    const Proc *p = &e->procs[r];
    guint64 begun = MAX (p->rep.k, p->rep.replayed ? 0 : p->gen_k);
    if (!p->rep.active || begun + 1 >= p->rep.count)
      return 0;
    jump = MIN (jump, (p->rep.count - begun - 1) / period);
    latest = MAX (latest, p->clock);
  }
  g_autoptr (GArray) all = g_array_new (FALSE, FALSE, sizeof (Item));
  pti_queue_collect (e, all);
  for (guint i = 0; i < all->len; i++)
    if (isfinite (g_array_index (all, Item, i).t))
      latest = MAX (latest, g_array_index (all, Item, i).t);
  double tc = pti_changes_next_time (e);
  if (isfinite (tc)) {
    double room = floor ((tc - latest) / lambda);
    if (!(room >= 1))
      return 0;
    jump = MIN (jump, (guint64) room - 1);
  }
  return jump;
}

/* Move the whole evaluation @dt later: as if the state had come about then. */
static void
shift_state (PtiEngine *e, RepeatState *st, double dt)
{
  e->now += dt;
  for (guint r = 0; r < e->n_procs; r++) {
    Proc *p = &e->procs[r];
    p->clock += dt;
    p->wait_from += dt;
    p->op_start += dt;
    for (guint32 slot = 0; slot < p->n_reqs; slot++) {
      Req *q = &p->reqs[slot];
      if (q->state == REQ_FREE)
        continue;
      q->ready += dt;
      q->busy_from += dt;
      /* Not what the trace says of it (posted, entered, arrived, left):
       * what happened before the derived span stays where it happened, so
       * both ends of a message in flight across the span agree on it
       * (traces/README.md). */
    }
  }
  for (guint i = 0; i < st->msgs->len; i++) {
    Msg *m = g_ptr_array_index (st->msgs, i);
    m->arrived += dt;
    m->reply_at += dt;
  }
  pti_queue_shift (e, dt);
  for (guint i = 0; i < e->n_nets; i++)
    e->nets[i].wake_at += dt;
  for (guint i = 0; i < pti_system_n_instances (e->system); i++) {
    const PtiModelInstance *mi = pti_system_instance (e->system, i);
    if (mi->desc->net != NULL)
      mi->desc->net->shift (mi->state, dt);
  }
}

/* The state now is the state @period repetitions ago, @lambda s later:
 * derive @jump periods. */
static void
derive (PtiEngine *e, RepeatState *st, const Snapshot *then, const Snapshot *now,
        guint64 period, double lambda, guint64 jump)
{
  double dt = (double) jump * lambda;
  guint64 reps = jump * period;
  guint64 events = 0;
  for (guint r = 0; r < e->n_procs; r++) {
    Proc *p = &e->procs[r];
    const double *a = then->acc + ACC * r, *b = now->acc + ACC * r;
    guint64 per = (guint64) (b[A_EVENTS] - a[A_EVENTS]);
    double times = (double) jump;
    double delta[5] = { b[A_COMPUTE] - a[A_COMPUTE], b[A_COMM] - a[A_COMM], b[A_WAIT] - a[A_WAIT],
                        b[A_SENT] - a[A_SENT], b[A_BYTES] - a[A_BYTES] };
    if (e->sink.event != NULL) {
      PtiEngineEvent ev = { .kind = PTI_OP_DERIVED, .start = p->clock, .end = p->clock + dt,
                            .model = p->cpu, .repetitions = reps, .derived_events = jump * per,
                            .derived_compute = times * delta[0], .derived_comm = times * delta[1],
                            .wait = times * delta[2] };
      e->sink.event (e->sink.data, r, &ev);
    }
    if (now->phase_width)
      pti_phases_add (e, r, then->phases ? then->phases + (gsize) then->phase_width * r : NULL,
                      then->phase_width, now->phases + (gsize) now->phase_width * r, times);
    pti_phases_shift_open (e, r, (guint64) a[A_PHASE_SERIAL], dt, delta, times);
    p->compute += times * delta[0];
    p->comm += times * delta[1];
    p->wait += times * delta[2];
    p->sent += jump * (guint64) delta[3];
    p->sent_bytes += jump * (guint64) delta[4];
    p->n_events += jump * per;
    p->n_posted += jump * (guint64) (b[A_POSTED] - a[A_POSTED]);
    events += jump * per;
    p->rep.k += reps;
    if (!p->rep.replayed && e->source.skip != NULL)
      e->source.skip (e->source.data, r, reps);
    if (!p->rep.replayed)
      p->gen_k += reps;
  }
  shift_state (e, st, dt);
  e->repetitions_extrapolated += reps;
  e->events_derived += events;
}

void
pti_repeat_at_safe_point (PtiEngine *e)
{
  RepeatState *st = state_of (e);
  e->repeat_snapshot_due = FALSE;
  if (!models_shiftable (e, st))
    return;
  Snapshot *now = g_new0 (Snapshot, 1);
  *now = (Snapshot) {
    .digest = take_digest (e, st, st->due_origin, st->due_k),
    .origin = st->due_origin, .k = st->due_k, .block = st->due_block,
  };
  fill_acc (e, now);
  /* The most recent earlier state this one repeats, if any: its distance
   * in repetitions is the period. */
  for (guint i = st->history->len; i-- > 0;) {
    const Snapshot *then = g_ptr_array_index (st->history, i);
    if (then->block != now->block || then->k >= now->k)
      break;
    double lambda = now->origin - then->origin;
    double scale = MAX (fabs (now->origin), lambda);
    if (!(lambda > 0)
        || !pti_digest_same (then->digest, now->digest, 64 * DBL_EPSILON * scale, 1e-12))
      continue;
    guint64 period = now->k - then->k;
    guint64 jump = derivable (e, period, lambda);
    if (jump == 0)
      break;
    derive (e, st, then, now, period, lambda, jump);
    /* Learn the period again from the repetitions still to come. */
    g_ptr_array_set_size (st->history, 0);
    snapshot_free (now);
    return;
  }
  if (st->history->len > 0
      && ((Snapshot *) g_ptr_array_index (st->history, st->history->len - 1))->block != now->block)
    g_ptr_array_set_size (st->history, 0);
  if (st->history->len == HISTORY)
    g_ptr_array_remove_index (st->history, 0);
  g_ptr_array_add (st->history, now);
}
