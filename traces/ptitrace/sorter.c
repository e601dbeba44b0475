/* External merge sort of fixed-size records.  See sorter.h. */
#include "sorter.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#define FAN_IN 64
#define READ_BUFFER (1u << 20)
#define FIRST_BUFFER (64u << 10)

typedef struct {
  guint64 off;    /* in records */
  guint64 n;
} Run;

struct _PtiSorter {
  gsize rs;                  /* record size */
  GCompareFunc cmp;          /* NULL: spool */
  gsize budget;
  gsize max_recs;            /* buffer capacity at full budget */

  guint8 *buf;               /* in-memory records */
  gsize cap, n;              /* in records */

  int fd;                    /* runs, or -1 */
  GArray *runs;              /* Run */
  guint64 total;
  gboolean finished;

  /* reading */
  guint8 *rbuf;
  gsize rbuf_cap, rbuf_n, rbuf_pos;
  guint64 read_index;        /* index of the next record to read */
  guint64 rbuf_first;        /* index of rbuf[0] */
};

/* ------------------------------------------------------------------------ */
/* In-place introsort (no allocation, unlike glibc's qsort, so the memory
 * bound is the buffer). */

static inline void
swap_rec (guint8 *a, guint8 *b, gsize rs)
{
  guint8 tmp[256];
  while (rs > 0) {
    gsize k = MIN (rs, sizeof tmp);
    memcpy (tmp, a, k);
    memcpy (a, b, k);
    memcpy (b, tmp, k);
    a += k;
    b += k;
    rs -= k;
  }
}

#define REC(i) (base + (gsize) (i) * rs)

static void
sift_down (guint8 *base, gsize rs, GCompareFunc cmp, gsize root, gsize n)
{
  for (;;) {
    gsize child = 2 * root + 1;
    if (child >= n)
      return;
    if (child + 1 < n && cmp (REC (child), REC (child + 1)) < 0)
      child++;
    if (cmp (REC (root), REC (child)) >= 0)
      return;
    swap_rec (REC (root), REC (child), rs);
    root = child;
  }
}

static void
heap_sort (guint8 *base, gsize n, gsize rs, GCompareFunc cmp)
{
  if (n < 2)
    return;
  for (gsize i = n / 2; i-- > 0;)
    sift_down (base, rs, cmp, i, n);
  for (gsize end = n - 1; end > 0; end--) {
    swap_rec (REC (0), REC (end), rs);
    sift_down (base, rs, cmp, 0, end);
  }
}

static void
insertion_sort (guint8 *base, gsize n, gsize rs, GCompareFunc cmp)
{
  for (gsize i = 1; i < n; i++)
    for (gsize j = i; j > 0 && cmp (REC (j - 1), REC (j)) > 0; j--)
      swap_rec (REC (j - 1), REC (j), rs);
}

static void
intro_sort (guint8 *base, gsize n, gsize rs, GCompareFunc cmp, int depth)
{
  while (n > 16) {
    if (depth-- == 0) {
      heap_sort (base, n, rs, cmp);
      return;
    }
    /* Median of three into position 0, as the pivot. */
    gsize mid = n / 2;
    if (cmp (REC (mid), REC (0)) < 0)
      swap_rec (REC (mid), REC (0), rs);
    if (cmp (REC (n - 1), REC (0)) < 0)
      swap_rec (REC (n - 1), REC (0), rs);
    if (cmp (REC (n - 1), REC (mid)) < 0)
      swap_rec (REC (n - 1), REC (mid), rs);
    swap_rec (REC (0), REC (mid), rs);
    /* Hoare partition around REC(0). */
    gsize i = 0, j = n;
    for (;;) {
      do
        i++;
      while (i < n && cmp (REC (i), REC (0)) < 0);
      do
        j--;
      while (cmp (REC (j), REC (0)) > 0);
      if (i >= j)
        break;
      swap_rec (REC (i), REC (j), rs);
    }
    swap_rec (REC (0), REC (j), rs);
    /* Recurse into the smaller side, loop on the larger. */
    gsize left = j, right = n - j - 1;
    if (left < right) {
      intro_sort (base, left, rs, cmp, depth);
      base = REC (j + 1);
      n = right;
    } else {
      intro_sort (REC (j + 1), right, rs, cmp, depth);
      n = left;
    }
  }
  insertion_sort (base, n, rs, cmp);
}

#undef REC

static void
sort_records (guint8 *base, gsize n, gsize rs, GCompareFunc cmp)
{
  int depth = 0;
  for (gsize k = n; k > 1; k >>= 1)
    depth += 2;
  intro_sort (base, n, rs, cmp, depth);
}

/* ------------------------------------------------------------------------ */
/* Files */

static int
temp_fd (GError **error)
{
  g_autofree char *name = NULL;
  int fd = g_file_open_tmp ("ptitrace-sort-XXXXXX", &name, error);
  if (fd < 0) {
    g_prefix_error (error, "temporary file for sorting: ");
    return -1;
  }
  g_unlink (name);   /* anonymous from now on: nothing is left behind */
  return fd;
}

static gboolean
write_all (int fd, guint64 off, const void *data, gsize len, GError **error)
{
  const guint8 *p = data;
  while (len > 0) {
    ssize_t k = pwrite (fd, p, MIN (len, (gsize) 1 << 30), (off_t) off);
    if (k < 0 && errno == EINTR)
      continue;
    if (k <= 0) {
      int e = k < 0 ? errno : ENOSPC;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (e),
                   "writing a temporary file for sorting (in %s): %s", g_get_tmp_dir (),
                   g_strerror (e));
      return FALSE;
    }
    p += k;
    off += (guint64) k;
    len -= (gsize) k;
  }
  return TRUE;
}

static gboolean
read_all (int fd, guint64 off, void *data, gsize len, GError **error)
{
  guint8 *p = data;
  while (len > 0) {
    ssize_t k = pread (fd, p, MIN (len, (gsize) 1 << 30), (off_t) off);
    if (k < 0 && errno == EINTR)
      continue;
    if (k <= 0) {
      int e = k < 0 ? errno : EIO;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (e),
                   "reading a temporary file for sorting: %s",
                   k < 0 ? g_strerror (e) : "unexpected end of file");
      return FALSE;
    }
    p += k;
    off += (guint64) k;
    len -= (gsize) k;
  }
  return TRUE;
}

/* ------------------------------------------------------------------------ */

PtiSorter *
pti_sorter_new (gsize record_size, GCompareFunc compare, gsize budget)
{
  g_return_val_if_fail (record_size > 0, NULL);
  PtiSorter *s = g_new0 (PtiSorter, 1);
  s->rs = record_size;
  s->cmp = compare;
  /* At least room for a merge of FAN_IN runs with 16 records per buffer. */
  s->budget = MAX (budget, (FAN_IN + 1) * 16 * record_size);
  s->max_recs = s->budget / record_size;
  s->fd = -1;
  s->runs = g_array_new (FALSE, FALSE, sizeof (Run));
  return s;
}

void
pti_sorter_free (PtiSorter *s)
{
  if (s == NULL)
    return;
  if (s->fd >= 0)
    close (s->fd);
  g_free (s->buf);
  g_free (s->rbuf);
  g_array_unref (s->runs);
  g_free (s);
}

guint64
pti_sorter_count (const PtiSorter *s)
{
  return s->total;
}

gboolean
pti_sorter_spilled (const PtiSorter *s)
{
  return s->fd >= 0;
}

/* Sort the buffer and append it to the runs file as one run. */
static gboolean
spill (PtiSorter *s, GError **error)
{
  if (s->n == 0)
    return TRUE;
  if (s->fd < 0 && (s->fd = temp_fd (error)) < 0)
    return FALSE;
  if (s->cmp != NULL)
    sort_records (s->buf, s->n, s->rs, s->cmp);
  guint64 off = 0;
  if (s->runs->len > 0) {
    Run *last = &g_array_index (s->runs, Run, s->runs->len - 1);
    off = last->off + last->n;
  }
  if (!write_all (s->fd, off * s->rs, s->buf, s->n * s->rs, error))
    return FALSE;
  Run run = { off, s->n };
  g_array_append_val (s->runs, run);
  s->n = 0;
  return TRUE;
}

gboolean
pti_sorter_add (PtiSorter *s, const void *record, GError **error)
{
  g_return_val_if_fail (!s->finished, FALSE);
  if (s->n == s->cap) {
    if (s->cap < s->max_recs) {
      gsize cap = s->cap == 0 ? MAX (FIRST_BUFFER / s->rs, 1) : s->cap * 2;
      s->cap = MIN (cap, s->max_recs);
      s->buf = g_realloc (s->buf, s->cap * s->rs);
    } else if (!spill (s, error)) {
      return FALSE;
    }
  }
  memcpy (s->buf + s->n * s->rs, record, s->rs);
  s->n++;
  s->total++;
  return TRUE;
}

/* Merging */

typedef struct {
  guint64 next;      /* file index of the next record to load */
  guint64 left;      /* records not loaded yet */
  guint8 *buf;
  gsize n, pos;
} Cursor;

static gboolean
cursor_fill (PtiSorter *s, int fd, Cursor *c, gsize cap, GError **error)
{
  gsize k = (gsize) MIN ((guint64) cap, c->left);
  c->pos = 0;
  c->n = k;
  if (k == 0)
    return TRUE;
  if (!read_all (fd, c->next * s->rs, c->buf, k * s->rs, error))
    return FALSE;
  c->next += k;
  c->left -= k;
  return TRUE;
}

static inline const guint8 *
cursor_rec (PtiSorter *s, Cursor *c)
{
  return c->buf + c->pos * s->rs;
}

/* Heap of cursor indices ordered by their current record, then index. */
static inline gboolean
cursor_less (PtiSorter *s, Cursor *cs, guint a, guint b)
{
  int c = s->cmp (cursor_rec (s, &cs[a]), cursor_rec (s, &cs[b]));
  return c < 0 || (c == 0 && a < b);
}

static void
heap_down (PtiSorter *s, Cursor *cs, guint *heap, guint n, guint i)
{
  for (;;) {
    guint l = 2 * i + 1, m = i;
    if (l < n && cursor_less (s, cs, heap[l], heap[m]))
      m = l;
    if (l + 1 < n && cursor_less (s, cs, heap[l + 1], heap[m]))
      m = l + 1;
    if (m == i)
      return;
    guint t = heap[i];
    heap[i] = heap[m];
    heap[m] = t;
    i = m;
  }
}

/* Merge runs[first .. first+k) of @in into @out at record offset @out_off. */
static gboolean
merge_group (PtiSorter *s, int in, const Run *runs, guint k, int out, guint64 out_off,
             GError **error)
{
  gsize per = MAX (s->max_recs / (k + 1), 16);
  Cursor *cs = g_new0 (Cursor, k);
  guint *heap = g_new (guint, k);
  guint8 *obuf = g_malloc (per * s->rs);
  gsize on = 0;
  guint hn = 0;
  gboolean ok = FALSE;
  for (guint i = 0; i < k; i++) {
    cs[i].next = runs[i].off;
    cs[i].left = runs[i].n;
    cs[i].buf = g_malloc (per * s->rs);
    if (!cursor_fill (s, in, &cs[i], per, error))
      goto out;
    if (cs[i].n > 0)
      heap[hn++] = i;
  }
  for (guint i = hn / 2; i-- > 0;)
    heap_down (s, cs, heap, hn, i);
  while (hn > 0) {
    Cursor *c = &cs[heap[0]];
    memcpy (obuf + on * s->rs, cursor_rec (s, c), s->rs);
    if (++on == per) {
      if (!write_all (out, out_off * s->rs, obuf, on * s->rs, error))
        goto out;
      out_off += on;
      on = 0;
    }
    if (++c->pos == c->n) {
      if (!cursor_fill (s, in, c, per, error))
        goto out;
      if (c->n == 0)
        heap[0] = heap[--hn];
    }
    heap_down (s, cs, heap, hn, 0);
  }
  if (on > 0 && !write_all (out, out_off * s->rs, obuf, on * s->rs, error))
    goto out;
  ok = TRUE;
out:
  for (guint i = 0; i < k; i++)
    g_free (cs[i].buf);
  g_free (cs);
  g_free (heap);
  g_free (obuf);
  return ok;
}

gboolean
pti_sorter_finish (PtiSorter *s, GError **error)
{
  g_return_val_if_fail (!s->finished, FALSE);
  s->finished = TRUE;
  if (s->fd < 0) {
    /* Everything fits in memory. */
    if (s->cmp != NULL)
      sort_records (s->buf, s->n, s->rs, s->cmp);
    pti_sorter_rewind (s);
    return TRUE;
  }
  if (!spill (s, error))
    return FALSE;
  g_clear_pointer (&s->buf, g_free);
  s->cap = 0;
  if (s->cmp != NULL) {
    while (s->runs->len > 1) {
      int out = temp_fd (error);
      if (out < 0)
        return FALSE;
      GArray *next = g_array_new (FALSE, FALSE, sizeof (Run));
      guint64 off = 0;
      for (guint i = 0; i < s->runs->len; i += FAN_IN) {
        guint k = MIN (FAN_IN, s->runs->len - i);
        const Run *group = &g_array_index (s->runs, Run, i);
        guint64 n = 0;
        for (guint j = 0; j < k; j++)
          n += group[j].n;
        if (!merge_group (s, s->fd, group, k, out, off, error)) {
          close (out);
          g_array_unref (next);
          return FALSE;
        }
        Run run = { off, n };
        g_array_append_val (next, run);
        off += n;
      }
      close (s->fd);
      s->fd = out;
      g_array_unref (s->runs);
      s->runs = next;
    }
  }
  pti_sorter_rewind (s);
  return TRUE;
}

void
pti_sorter_rewind (PtiSorter *s)
{
  s->read_index = 0;
  s->rbuf_n = s->rbuf_pos = 0;
  s->rbuf_first = 0;
}

const void *
pti_sorter_next (PtiSorter *s, GError **error)
{
  g_return_val_if_fail (s->finished, NULL);
  if (s->read_index >= s->total)
    return NULL;
  if (s->fd < 0)
    return s->buf + (gsize) s->read_index++ * s->rs;
  if (s->rbuf_pos == s->rbuf_n) {
    if (s->rbuf == NULL) {
      s->rbuf_cap = MAX (READ_BUFFER / s->rs, 1);
      s->rbuf = g_malloc (s->rbuf_cap * s->rs);
    }
    gsize k = (gsize) MIN ((guint64) s->rbuf_cap, s->total - s->read_index);
    if (!read_all (s->fd, s->read_index * s->rs, s->rbuf, k * s->rs, error))
      return NULL;
    s->rbuf_first = s->read_index;
    s->rbuf_n = k;
    s->rbuf_pos = 0;
  }
  s->read_index++;
  return s->rbuf + s->rbuf_pos++ * s->rs;
}

gboolean
pti_sorter_get (PtiSorter *s, guint64 index, void *out, GError **error)
{
  g_return_val_if_fail (s->finished && index < s->total, FALSE);
  if (s->fd < 0) {
    memcpy (out, s->buf + (gsize) index * s->rs, s->rs);
    return TRUE;
  }
  if (s->rbuf != NULL && index >= s->rbuf_first && index < s->rbuf_first + s->rbuf_n) {
    memcpy (out, s->rbuf + (gsize) (index - s->rbuf_first) * s->rs, s->rs);
    return TRUE;
  }
  return read_all (s->fd, index * s->rs, out, s->rs, error);
}
