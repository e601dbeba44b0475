/* The LRU stack distance of each reference in O(log n) (README.md, "How
 * the distance is computed").
 *
 * Every reference gets a time, the next slot of a time axis.  A hash table
 * maps each line to the slot of its last reference; a Fenwick tree over the
 * slots holds 1 where a slot is some line's last reference.  The distance of
 * a reference to a line last seen at slot t is the number of lines whose
 * last reference is later than t: the distinct lines touched since, i.e.
 * the line's depth in the LRU stack.  That is (live slots) - prefix(t), one
 * Fenwick query; then slot t is cleared and the current slot set.
 *
 * The axis has a fixed number of slots; when they run out it is compacted:
 * the live slots (one per distinct line, in time order) are renumbered
 * 0..D-1 and the tree rebuilt in O(slots); if more than half the slots are
 * live, the axis doubles first.  Each compaction frees at least half the
 * axis, so its cost is O(1) per reference amortised. */
#include "reuse.h"

#include <string.h>

#define EMPTY_LINE UINT64_MAX

typedef struct {
  guint64 key;    /* line + 1; 0: empty */
  guint64 slot;   /* slot of the line's last reference */
} Entry;

struct _PtiReuse {
  guint shift;              /* log2 of the line size */
  gboolean counting;
  /* line -> entry: open addressing, linear probing, load <= 1/2 */
  Entry *table;
  guint64 table_mask;
  guint64 distinct;
  /* the time axis: n_slots slots, now the next free one */
  guint64 n_slots;
  guint64 now;
  guint32 *fenwick;         /* 1-based, n_slots + 1 entries */
  guint64 *slot_line;       /* the line whose last reference is the slot, or EMPTY_LINE */
  /* the histogram */
  guint64 bins[PTI_REUSE_MAX_BINS];
  guint64 cold;
};

static inline guint64
hash_line (guint64 line)
{
  /* Fibonacci hashing: consecutive lines (the common stream) spread out. */
  return (line * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15)) >> 17;
}

static Entry *
table_find (const PtiReuse *r, guint64 line, gboolean *found)
{
  guint64 key = line + 1;
  for (guint64 i = hash_line (line) & r->table_mask;; i = (i + 1) & r->table_mask) {
    Entry *e = &r->table[i];
    if (e->key == key || e->key == 0) {
      *found = e->key == key;
      return e;
    }
  }
}

static void
table_grow (PtiReuse *r)
{
  Entry *old = r->table;
  guint64 old_size = r->table_mask + 1;
  r->table_mask = old_size * 2 - 1;
  r->table = g_new0 (Entry, old_size * 2);
  for (guint64 i = 0; i < old_size; i++) {
    if (old[i].key != 0) {
      gboolean found;
      *table_find (r, old[i].key - 1, &found) = old[i];
    }
  }
  g_free (old);
}

static inline void
fenwick_add (guint32 *f, guint64 n, guint64 slot, gint32 delta)
{
  for (guint64 i = slot + 1; i <= n; i += i & -i)
    f[i] += (guint32) delta;
}

static inline guint64
fenwick_prefix (const guint32 *f, guint64 slot)   /* live slots in [0, slot] */
{
  guint64 sum = 0;
  for (guint64 i = slot + 1; i > 0; i -= i & -i)
    sum += f[i];
  return sum;
}

/* Renumber the live slots 0..live-1 in time order, doubling the axis if
 * more than half of it would be live; rebuild the tree. */
static void
compact (PtiReuse *r)
{
  guint64 live = 0;
  for (guint64 s = 0; s < r->now; s++) {
    guint64 line = r->slot_line[s];
    if (line == EMPTY_LINE)
      continue;
    gboolean found;
    Entry *e = table_find (r, line, &found);
    g_assert (found);
    e->slot = live;
    r->slot_line[live++] = line;
  }
  if (live > r->n_slots / 2) {
    r->n_slots *= 2;
    r->slot_line = g_renew (guint64, r->slot_line, r->n_slots);
    g_free (r->fenwick);
    r->fenwick = g_new (guint32, r->n_slots + 1);
  }
  for (guint64 s = live; s < r->n_slots; s++)
    r->slot_line[s] = EMPTY_LINE;
  /* O(n) build: each node passes its sum to its parent. */
  guint32 *f = r->fenwick;
  f[0] = 0;
  for (guint64 i = 1; i <= r->n_slots; i++)
    f[i] = i <= live;
  for (guint64 i = 1; i <= r->n_slots; i++) {
    guint64 parent = i + (i & -i);
    if (parent <= r->n_slots)
      f[parent] += f[i];
  }
  r->now = live;
}

PtiReuse *
pti_reuse_new (guint line)
{
  g_return_val_if_fail (line > 0 && (line & (line - 1)) == 0, NULL);
  PtiReuse *r = g_new0 (PtiReuse, 1);
  r->shift = (guint) g_bit_nth_lsf (line, -1);
  r->counting = TRUE;
  r->table_mask = 1024 - 1;
  r->table = g_new0 (Entry, r->table_mask + 1);
  r->n_slots = 1024;
  r->fenwick = g_new0 (guint32, r->n_slots + 1);
  r->slot_line = g_new (guint64, r->n_slots);
  for (guint64 s = 0; s < r->n_slots; s++)
    r->slot_line[s] = EMPTY_LINE;
  return r;
}

void
pti_reuse_free (PtiReuse *r)
{
  if (r == NULL)
    return;
  g_free (r->table);
  g_free (r->fenwick);
  g_free (r->slot_line);
  g_free (r);
}

void
pti_reuse_set_counting (PtiReuse *r, gboolean counting)
{
  r->counting = counting;
}

gboolean
pti_reuse_get_counting (const PtiReuse *r)
{
  return r->counting;
}

void
pti_reuse_touch (PtiReuse *r, guint64 line)
{
  gboolean found;
  Entry *e = table_find (r, line, &found);
  if (found) {
    guint64 d = r->distinct - fenwick_prefix (r->fenwick, e->slot);
    if (r->counting)
      r->bins[d == 0 ? 0 : 64 - __builtin_clzll (d)]++;
    fenwick_add (r->fenwick, r->n_slots, e->slot, -1);
    r->slot_line[e->slot] = EMPTY_LINE;
  } else {
    if (r->counting)
      r->cold++;
    e->key = line + 1;
    r->distinct++;
    if (r->distinct * 2 > r->table_mask + 1) {
      table_grow (r);
      e = table_find (r, line, &found);
    }
  }
  if (r->now == r->n_slots)
    compact (r);        /* the entry keeps its address: the table is not touched */
  e->slot = r->now;
  r->slot_line[r->now] = line;
  fenwick_add (r->fenwick, r->n_slots, r->now, 1);
  r->now++;
}

void
pti_reuse_access (PtiReuse *r, guint64 addr, guint64 size)
{
  guint64 first = addr >> r->shift;
  /* The last byte, saturating: a range running past 2^64 ends there. */
  guint64 end = size - 1 > G_MAXUINT64 - addr ? G_MAXUINT64 : addr + size - 1;
  guint64 last = end >> r->shift;
  for (guint64 line = first;; line++) {
    pti_reuse_touch (r, line);
    if (line == last)
      break;
  }
}

guint64
pti_reuse_distinct (const PtiReuse *r)
{
  return r->distinct;
}

void
pti_reuse_histogram (const PtiReuse *r, PtiReuseHistogram *h)
{
  memset (h, 0, sizeof *h);
  h->line = 1u << r->shift;
  h->cold = r->cold;
  h->references = r->cold;
  guint last = 0;
  for (guint k = 0; k < PTI_REUSE_MAX_BINS; k++) {
    h->references += r->bins[k];
    if (r->bins[k] != 0)
      last = k + 1;
  }
  /* Bin 64 (distance 2^64) cannot occur: fewer than 2^64 lines exist. */
  h->n_bins = MIN (last, PTI_REUSE_MAX_BINS - 1);
  for (guint k = 0; k < h->n_bins; k++) {
    h->upper[k] = G_GUINT64_CONSTANT (1) << k;
    h->count[k] = r->bins[k];
  }
}
