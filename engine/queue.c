/* The event queue: timed items handled in (time, seq) order, seq counting
 * insertions, so that items at equal times are handled in the order they
 * were made and every run resolves ties the same way.  (time, seq) is a
 * total order, so any correct priority queue pops the same sequence.
 *
 * Sorted runs in front of a binary heap.  Items are mostly pushed in
 * increasing time order within a few streams: the RESUMEs at the end of
 * computations of one length, arrivals after transfers of one size,
 * injections after the send overhead.  So an item goes to the first of
 * QUEUE_RUNS runs (rings, each sorted by (time, seq)) whose last item is
 * not later than it, an append, and only if none takes it into the heap;
 * the next item is the least of the runs' heads and the heap's root, kept
 * in `top`.  Sweep3D on 16 ranks under net-contention puts every item in a
 * run, weak-scaled on 256 ranks all but 2% (11,435 of 540,081), where a
 * binary heap of every item sifted about 8 levels per item.  5 runs: with
 * 3, 4, 6 and 8, more instructions (engine/README.md has the figures):
 * fewer runs send more items to the heap, more make every pop compare
 * more heads.
 *
 * Measured against a binary heap of every item and dropped before: a 4-ary
 * heap, a heap of 16-byte keys over a slot pool popped bottom-up, a radix
 * heap, a binary heap popped bottom-up, one comparison of (time, seq) as a
 * 128-bit number.  The binary heap's own last form (a pop's hole filled by
 * the next push, a sentinel past the last item) went with the runs; a
 * calendar queue in front of it cost more (engine/README.md). */
#include "core-private.h"

/* Sift the heap's item at @i up; where it ends. */
static guint
heap_up (PtiQueue *q, guint i)
{
  Item *h = q->heap;
  Item it = h[i];
  while (i > 0) {
    guint parent = (i - 1) / 2;
    if (!pti_item_less (&it, &h[parent]))
      break;
    h[i] = h[parent];
    i = parent;
  }
  h[i] = it;
  return i;
}

/* Sift @it down from @i: the items below @i are in order. */
static void
heap_down (PtiQueue *q, guint i, Item it)
{
  Item *h = q->heap;
  guint n = q->heap_n;
  for (;;) {
    guint c = 2 * i + 1;
    if (c >= n)
      break;
    if (c + 1 < n && pti_item_less (&h[c + 1], &h[c]))
      c++;
    if (!pti_item_less (&h[c], &it))
      break;
    h[i] = h[c];
    i = c;
  }
  h[i] = it;
}

void
pti_queue_heap_pop (PtiQueue *q)
{
  if (--q->heap_n > 0)
    heap_down (q, 0, q->heap[q->heap_n]);
}

/* Doubles run @r's ring (it is full, or has none yet), its items from 0. */
static void
run_grow (QueueRun *r)
{
  guint cap = r->buf == NULL ? 64 : 2 * (r->mask + 1);
  Item *buf = g_new (Item, cap);
  for (guint i = 0; i < r->n; i++)
    buf[i] = r->buf[(r->head + i) & r->mask];
  g_free (r->buf);
  r->buf = buf;
  r->head = 0;
  r->mask = cap - 1;
}

/* pti_queue_push's other cases: run @k (QUEUE_RUNS: none) must grow first,
 * or the item goes into the heap.  @first: it comes before every item. */
void
pti_queue_push_slow (PtiQueue *q, Item it, guint k, gboolean first)
{
  if (k < QUEUE_RUNS) {
    QueueRun *r = &q->runs[k];
    run_grow (r);
    Item *slot = &r->buf[r->n++];
    *slot = it;
    q->lastp = slot;
    q->tail_t[k] = it.t;
    if (r->n == 1)
      q->head_t[k] = it.t;
    q->n++;
    if (first)
      q->top_src = k;
    q->top = pti_queue_source_head (q, q->top_src);   /* the ring may have held it */
    return;
  }
  if (q->heap_n == q->heap_cap) {
    q->heap_cap = MAX (64, 2 * q->heap_cap);
    q->heap = g_renew (Item, q->heap, q->heap_cap);
  }
  q->heap[q->heap_n] = it;
  q->lastp = &q->heap[heap_up (q, q->heap_n++)];
  q->n++;
  if (first)
    q->top_src = QUEUE_RUNS;
  /* The heap may have moved (grown), with the top in it. */
  q->top = pti_queue_source_head (q, q->top_src);
}

static void
collect_one (GArray *into, Item it)
{
  if (it.type & ITEM_THEN_RESUME) {
    it.type &= ITEM_TYPE_MASK;
    g_array_append_val (into, it);
    it = (Item) { .t = it.t, .seq = it.seq + 1, .rank = it.rank, .type = ITEM_RESUME };
  }
  g_array_append_val (into, it);
}

void
pti_queue_collect (const PtiEngine *e, GArray *into)
{
  const PtiQueue *q = &e->queue;
  for (guint k = 0; k < QUEUE_RUNS; k++)
    for (guint i = 0; i < q->runs[k].n; i++)
      collect_one (into, q->runs[k].buf[(q->runs[k].head + i) & q->runs[k].mask]);
  for (guint i = 0; i < q->heap_n; i++)
    collect_one (into, q->heap[i]);
}

void
pti_queue_shift (PtiEngine *e, double dt)
{
  PtiQueue *q = &e->queue;
  q->lastp = NULL;
  /* Adding one number keeps a run in order: two times may become equal,
   * and their insertion numbers still follow the run's order. */
  for (guint k = 0; k < QUEUE_RUNS; k++) {
    QueueRun *r = &q->runs[k];
    for (guint i = 0; i < r->n; i++)
      r->buf[(r->head + i) & r->mask].t += dt;
    if (r->n > 0) {
      q->head_t[k] = r->buf[r->head].t;
      q->tail_t[k] = r->buf[(r->head + r->n - 1) & r->mask].t;
    }
  }
  for (guint i = 0; i < q->heap_n; i++)
    q->heap[i].t += dt;
  /* The heap's order too, unless two times become equal: restore it then
   * (the insertion number breaks the tie). */
  for (guint i = q->heap_n; i-- > 0;)
    heap_down (q, i, q->heap[i]);
  if (q->n > 0)
    pti_queue_find_top (q);
}

void
pti_queue_init (PtiEngine *e)
{
  PtiQueue *q = &e->queue;
  q->lastp = NULL;
  for (guint k = 0; k < QUEUE_RUNS; k++) {
    q->head_t[k] = INFINITY;
    q->tail_t[k] = -INFINITY;
  }
}

void
pti_queue_free (PtiEngine *e)
{
  for (guint k = 0; k < QUEUE_RUNS; k++)
    g_free (e->queue.runs[k].buf);
  g_free (e->queue.heap);
}
