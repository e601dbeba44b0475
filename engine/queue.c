/* The event queue: timed items handled in (time, seq) order, seq counting
 * insertions, so that items at equal times are handled in the order they
 * were made and every run resolves ties the same way.  (time, seq) is a
 * total order, so any correct priority queue pops the same sequence.
 *
 * A binary heap of whole items.  Measured against it (instructions with
 * callgrind, and wall time paired on Sweep3D with 16 and 1,024 ranks): a
 * 4-ary heap, a heap of 16-byte keys over a slot pool popped bottom-up,
 * and a radix heap, all slower; the radix heap much slower on times that
 * differ in their last bits.  So were, measured again later, a 4-ary heap
 * and a binary one popped bottom-up, both on whole items, and one
 * comparison of (time, seq) as a 128-bit number.
 *
 * A pop leaves a hole at the root and fills it only when it must: handling
 * an item usually pushes another (an injection its arrival), which then
 * goes into the hole and sifts down once, where a pop and a push would
 * sift twice.  With a hole, positions 1 .. n-1 hold the items, each
 * subtree a heap, so the next item is the lesser child of the root. */
#include "core-private.h"

/* Past the last item, position n holds one that follows every item (the
 * latest time, the last insertion number), so that a sift compares a
 * node's two children without asking whether the second exists: a compare
 * and a branch less per level, for a store per push or pop. */
static const Item sentinel = { .t = INFINITY, .seq = G_MAXUINT64 };

/* Sift @it down from @i: the items below @i are in order.  Where it ends. */
static guint
sift_down (PtiQueue *q, guint i, Item it)
{
  Item *h = q->items;
  guint n = q->n;
  for (;;) {
    guint c = 2 * i + 1;
    if (c >= n)
      break;
    if (pti_item_less (&h[c + 1], &h[c]))
      c++;
    if (!pti_item_less (&h[c], &it))
      break;
    h[i] = h[c];
    i = c;
  }
  h[i] = it;
  return i;
}

void
pti_queue_fill_hole (PtiQueue *q)
{
  q->hole = FALSE;
  Item last = q->items[--q->n];
  q->items[q->n] = sentinel;
  if (q->n > 0)
    sift_down (q, 0, last);
}

void
pti_queue_push (PtiEngine *e, double t, ItemType type, guint32 rank, Msg *msg)
{
  PtiQueue *q = &e->queue;
  if (q->hole) {
    q->hole = FALSE;
    Item it = { .t = t, .seq = e->seq++, .msg = msg, .rank = rank, .type = type };
    q->last = sift_down (q, 0, it);
    return;
  }
  if (q->n + 1 >= q->cap) {   /* room for the sentinel */
    q->cap = MAX (64, q->cap * 2);
    q->items = g_renew (Item, q->items, q->cap);
  }
  Item it = { .t = t, .seq = e->seq++, .msg = msg, .rank = rank, .type = type };
  Item *h = q->items;
  guint i = q->n++;
  h[q->n] = sentinel;
  while (i > 0) {
    guint parent = (i - 1) / 2;
    if (!pti_item_less (&it, &h[parent]))
      break;
    h[i] = h[parent];
    i = parent;
  }
  h[i] = it;
  q->last = i;
}

/* A sender that posted a send yields at the time its data is injected
 * (after its overhead): the RESUME would be pushed right after the
 * injection, with the next insertion number and the same time, so it would
 * be handled right after it, nothing between (an item pushed meanwhile has a
 * later number).  Marking the injection instead saves a push and a pop of
 * the heap: a quarter of the items of a wavefront.  The RESUME's insertion
 * number is spent all the same, so every other item keeps its own. */
void
pti_queue_push_resume (PtiEngine *e, double t, guint32 rank)
{
  PtiQueue *q = &e->queue;
  if (q->last != G_MAXUINT) {
    Item *l = &q->items[q->last];
    if (l->seq + 1 == e->seq && l->t == t && l->rank == rank
        && (l->type == ITEM_INJECT_DATA || l->type == ITEM_INJECT_REQUEST)) {
      l->type |= ITEM_THEN_RESUME;
      e->seq++;
      q->last = G_MAXUINT;
      return;
    }
  }
  pti_queue_push (e, t, ITEM_RESUME, rank, NULL);
}

void
pti_queue_collect (const PtiEngine *e, GArray *into)
{
  for (guint i = e->queue.hole; i < e->queue.n; i++) {
    Item it = e->queue.items[i];
    if (it.type & ITEM_THEN_RESUME) {
      it.type &= ITEM_TYPE_MASK;
      g_array_append_val (into, it);
      it = (Item) { .t = it.t, .seq = it.seq + 1, .rank = it.rank, .type = ITEM_RESUME };
    }
    g_array_append_val (into, it);
  }
}

void
pti_queue_shift (PtiEngine *e, double dt, double now)
{
  PtiQueue *q = &e->queue;
  if (q->hole)
    pti_queue_fill_hole (q);
  q->last = G_MAXUINT;
  for (guint i = 0; i < q->n; i++)
    q->items[i].t += dt;
  /* Adding one number keeps the order, unless two times become equal:
   * restore the heap then (the insertion number breaks the tie). */
  for (guint i = q->n; i-- > 0;)
    sift_down (q, i, q->items[i]);
}

void
pti_queue_init (PtiEngine *e)
{
  e->queue.last = G_MAXUINT;
}

void
pti_queue_free (PtiEngine *e)
{
  g_free (e->queue.items);
}
