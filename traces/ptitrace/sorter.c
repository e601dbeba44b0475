/* External merge sort of fixed-size records.  See sorter.h.
 *
 * In memory, records are sorted through an array of pointers by a natural
 * merge sort (bottom-up merging of the ascending runs already in the data):
 * the records of a trace arrive mostly in order, one process group after
 * another, so this is O(n log k) for k process groups.  It needs two
 * pointers per record, counted in the budget.  Spilled runs are merged FAN_IN
 * at a time into a new file while more than FAN_IN remain; the last FAN_IN
 * or fewer are merged on the fly as they are read (random access first
 * writes them into one run). */
#include "sorter.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#define FAN_IN 64
#define READ_BUFFER (1u << 20)
#define WRITE_BUFFER (1u << 20)
#define FIRST_BUFFER (64u << 10)

typedef struct {
  guint64 off;    /* in records */
  guint64 n;
} Run;

/* A run being read: a window of it in a buffer. */
typedef struct {
  guint64 next;      /* file index of the next record to load */
  guint64 left;      /* records not loaded yet */
  guint8 *buf;
  gsize n, pos, cap;
} Cursor;

struct _PtiSorter {
  gsize rs;                  /* record size */
  GCompareFunc cmp;          /* NULL: spool */
  gsize budget;
  gsize max_recs;            /* buffer capacity at full budget */

  guint8 *buf;               /* in-memory records */
  gsize cap, n;              /* in records */
  guint8 **ptrs, **aux;      /* sort: pointers into buf */
  guint8 **sorted;           /* after sorting: ptrs or aux */

  int fd;                    /* runs, or -1 */
  GArray *runs;              /* Run */
  guint64 total;
  gboolean finished;

  /* reading */
  guint64 read_index;        /* index of the next record to read */
  guint8 *rbuf;              /* single run: a window of the file */
  gsize rbuf_cap, rbuf_n, rbuf_pos;
  guint64 rbuf_first;
  Cursor *cur;               /* several runs: merged while reading */
  guint *heap;
  guint heap_n;
  guint8 *rec;               /* the record returned by a merged read */
};

static guint64 stat_bytes, stat_runs;
static guint stat_passes;

void
pti_sorter_stats (guint64 *bytes_written, guint64 *runs, guint *merge_passes)
{
  *bytes_written = stat_bytes;
  *runs = stat_runs;
  *merge_passes = stat_passes;
}

/* ------------------------------------------------------------------------ */
/* Natural merge sort of pointers. */

static void
merge_ptrs (guint8 **src, guint8 **dst, gsize lo, gsize mid, gsize hi, GCompareFunc cmp)
{
  gsize i = lo, j = mid, k = lo;
  while (i < mid && j < hi)
    dst[k++] = cmp (src[j], src[i]) < 0 ? src[j++] : src[i++];   /* stable */
  while (i < mid)
    dst[k++] = src[i++];
  while (j < hi)
    dst[k++] = src[j++];
}

/* Sort ptrs[0..n) (aux is scratch of the same size); returns the array
 * holding the result. */
static guint8 **
sort_ptrs (guint8 **ptrs, guint8 **aux, gsize n, GCompareFunc cmp)
{
  if (n < 2)
    return ptrs;
  /* Run boundaries: starts of the ascending runs, as a list in aux's
   * space would clash with merging; use a GArray. */
  GArray *bounds = g_array_new (FALSE, FALSE, sizeof (gsize));
  gsize zero = 0;
  g_array_append_val (bounds, zero);
  for (gsize i = 1; i < n; i++)
    if (cmp (ptrs[i], ptrs[i - 1]) < 0)
      g_array_append_val (bounds, i);
  g_array_append_val (bounds, n);
  guint8 **src = ptrs, **dst = aux;
  while (bounds->len > 2) {
    GArray *next = g_array_new (FALSE, FALSE, sizeof (gsize));
    guint nb = bounds->len - 1;   /* runs */
    for (guint r = 0; r < nb; r += 2) {
      gsize lo = g_array_index (bounds, gsize, r);
      gsize mid = g_array_index (bounds, gsize, r + 1);
      gsize hi = r + 2 <= nb ? g_array_index (bounds, gsize, r + 2) : mid;
      if (hi > mid)
        merge_ptrs (src, dst, lo, mid, hi, cmp);
      else
        memcpy (dst + lo, src + lo, (mid - lo) * sizeof *src);
      g_array_append_val (next, lo);
    }
    g_array_append_val (next, n);
    g_array_unref (bounds);
    bounds = next;
    guint8 **t = src;
    src = dst;
    dst = t;
  }
  g_array_unref (bounds);
  return src;
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
    stat_bytes += (guint64) k;
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
  gsize per = record_size + (compare ? 2 * sizeof (guint8 *) : 0);
  /* At least room for a merge of FAN_IN runs with 16 records per buffer. */
  s->budget = MAX (budget, (FAN_IN + 1) * 16 * per);
  s->max_recs = s->budget / per;
  s->fd = -1;
  s->runs = g_array_new (FALSE, FALSE, sizeof (Run));
  return s;
}

static void
free_cursors (PtiSorter *s)
{
  if (s->cur != NULL)
    for (guint i = 0; i < s->runs->len; i++)
      g_free (s->cur[i].buf);
  g_clear_pointer (&s->cur, g_free);
  g_clear_pointer (&s->heap, g_free);
  g_clear_pointer (&s->rec, g_free);
  s->heap_n = 0;
}

void
pti_sorter_free (PtiSorter *s)
{
  if (s == NULL)
    return;
  free_cursors (s);
  if (s->fd >= 0)
    close (s->fd);
  g_free (s->buf);
  g_free (s->ptrs);
  g_free (s->aux);
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

static void
sort_buffer (PtiSorter *s)
{
  if (s->cmp == NULL)
    return;
  if (s->ptrs == NULL) {
    s->ptrs = g_new (guint8 *, MAX (s->cap, 1));
    s->aux = g_new (guint8 *, MAX (s->cap, 1));
  }
  for (gsize i = 0; i < s->n; i++)
    s->ptrs[i] = s->buf + i * s->rs;
  s->sorted = sort_ptrs (s->ptrs, s->aux, s->n, s->cmp);
}

/* Sort the buffer and append it to the runs file as one run.  A spool's
 * runs follow each other: together they are one run in adding order. */
static gboolean
spill (PtiSorter *s, GError **error)
{
  if (s->n == 0)
    return TRUE;
  if (s->fd < 0 && (s->fd = temp_fd (error)) < 0)
    return FALSE;
  guint64 off = 0;
  if (s->runs->len > 0) {
    Run *last = &g_array_index (s->runs, Run, s->runs->len - 1);
    off = last->off + last->n;
  }
  if (s->cmp == NULL) {
    if (!write_all (s->fd, off * s->rs, s->buf, s->n * s->rs, error))
      return FALSE;
  } else {
    sort_buffer (s);
    gsize per = MAX (WRITE_BUFFER / s->rs, 1);
    g_autofree guint8 *w = g_malloc (per * s->rs);
    for (gsize i = 0; i < s->n;) {
      gsize k = MIN (per, s->n - i);
      for (gsize j = 0; j < k; j++)
        memcpy (w + j * s->rs, s->sorted[i + j], s->rs);
      if (!write_all (s->fd, (off + i) * s->rs, w, k * s->rs, error))
        return FALSE;
      i += k;
    }
  }
  if (s->cmp == NULL && s->runs->len > 0) {
    g_array_index (s->runs, Run, 0).n += s->n;
  } else {
    Run run = { off, s->n };
    g_array_append_val (s->runs, run);
    stat_runs++;
  }
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
      if (s->ptrs != NULL) {
        s->ptrs = g_renew (guint8 *, s->ptrs, s->cap);
        s->aux = g_renew (guint8 *, s->aux, s->cap);
      }
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

static gboolean
cursor_fill (PtiSorter *s, int fd, Cursor *c, GError **error)
{
  gsize k = (gsize) MIN ((guint64) c->cap, c->left);
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

/* Heap of cursor indices ordered by their current record, then index
 * (earlier runs first: stable). */
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

/* Open cursors on @k runs, each with a buffer of @per records; build the heap. */
static gboolean
cursors_open (PtiSorter *s, int fd, const Run *runs, guint k, gsize per, Cursor **cs_out,
              guint **heap_out, guint *hn_out, GError **error)
{
  Cursor *cs = g_new0 (Cursor, k);
  guint *heap = g_new (guint, k);
  guint hn = 0;
  *cs_out = cs;
  *heap_out = heap;
  *hn_out = 0;
  for (guint i = 0; i < k; i++) {
    cs[i].next = runs[i].off;
    cs[i].left = runs[i].n;
    cs[i].cap = per;
    cs[i].buf = g_malloc (per * s->rs);
    if (!cursor_fill (s, fd, &cs[i], error))
      return FALSE;
    if (cs[i].n > 0)
      heap[hn++] = i;
  }
  for (guint i = hn / 2; i-- > 0;)
    heap_down (s, cs, heap, hn, i);
  *hn_out = hn;
  return TRUE;
}

/* Advance the cursor on top of the heap past its record. */
static gboolean
heap_pop (PtiSorter *s, int fd, Cursor *cs, guint *heap, guint *hn, GError **error)
{
  Cursor *c = &cs[heap[0]];
  if (++c->pos == c->n) {
    if (!cursor_fill (s, fd, c, error))
      return FALSE;
    if (c->n == 0)
      heap[0] = heap[--*hn];
  }
  heap_down (s, cs, heap, *hn, 0);
  return TRUE;
}

/* Merge @k runs of @in into @out at record offset @out_off. */
static gboolean
merge_group (PtiSorter *s, int in, const Run *runs, guint k, int out, guint64 out_off,
             GError **error)
{
  gsize per = MAX (s->max_recs / (k + 1), 16);
  Cursor *cs = NULL;
  guint *heap = NULL, hn = 0;
  guint8 *obuf = g_malloc (per * s->rs);
  gsize on = 0;
  gboolean ok = FALSE;
  if (!cursors_open (s, in, runs, k, per, &cs, &heap, &hn, error))
    goto out;
  while (hn > 0) {
    memcpy (obuf + on * s->rs, cursor_rec (s, &cs[heap[0]]), s->rs);
    if (++on == per) {
      if (!write_all (out, out_off * s->rs, obuf, on * s->rs, error))
        goto out;
      out_off += on;
      on = 0;
    }
    if (!heap_pop (s, in, cs, heap, &hn, error))
      goto out;
  }
  if (on > 0 && !write_all (out, out_off * s->rs, obuf, on * s->rs, error))
    goto out;
  ok = TRUE;
out:
  for (guint i = 0; cs != NULL && i < k; i++)
    g_free (cs[i].buf);
  g_free (cs);
  g_free (heap);
  g_free (obuf);
  return ok;
}

/* Merge passes until at most @max runs remain; counts them in @passes. */
static gboolean
merge_down (PtiSorter *s, guint max, guint *passes, GError **error)
{
  while (s->runs->len > max) {
    ++*passes;
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
  return TRUE;
}

static gboolean reader_start (PtiSorter *s, GError **error);

gboolean
pti_sorter_finish (PtiSorter *s, GError **error)
{
  g_return_val_if_fail (!s->finished, FALSE);
  s->finished = TRUE;
  if (s->fd < 0) {
    sort_buffer (s);   /* everything fits in memory */
    pti_sorter_rewind (s);
    return TRUE;
  }
  if (!spill (s, error))
    return FALSE;
  g_clear_pointer (&s->buf, g_free);
  g_clear_pointer (&s->ptrs, g_free);
  g_clear_pointer (&s->aux, g_free);
  s->cap = 0;
  guint passes = 0;
  if (s->cmp != NULL && !merge_down (s, FAN_IN, &passes, error))
    return FALSE;
  if (s->cmp != NULL && s->runs->len > 1)
    passes++;   /* the last merge happens while reading */
  stat_passes = MAX (stat_passes, passes);
  return reader_start (s, error);
}

/* Set up reading from the first record. */
static gboolean
reader_start (PtiSorter *s, GError **error)
{
  s->read_index = 0;
  s->rbuf_n = s->rbuf_pos = 0;
  s->rbuf_first = 0;
  if (s->fd < 0 || s->cmp == NULL || s->runs->len <= 1)
    return TRUE;
  free_cursors (s);
  guint k = s->runs->len;
  gsize per = MAX (MIN (s->max_recs / (k + 1), READ_BUFFER / s->rs), 16);
  s->rec = g_malloc (s->rs);
  return cursors_open (s, s->fd, &g_array_index (s->runs, Run, 0), k, per, &s->cur, &s->heap,
                       &s->heap_n, error);
}

void
pti_sorter_rewind (PtiSorter *s)
{
  GError *error = NULL;
  if (!reader_start (s, &error)) {
    /* Reported again by the next read. */
    g_clear_error (&error);
    free_cursors (s);
  }
}

const void *
pti_sorter_next (PtiSorter *s, GError **error)
{
  g_return_val_if_fail (s->finished, NULL);
  if (s->read_index >= s->total)
    return NULL;
  if (s->fd < 0)
    return s->cmp ? s->sorted[s->read_index++] : s->buf + (gsize) s->read_index++ * s->rs;
  if (s->cmp != NULL && s->runs->len > 1) {
    if (s->cur == NULL && !reader_start (s, error))
      return NULL;
    if (s->heap_n == 0) {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_IO, "temporary file for sorting: short");
      return NULL;
    }
    memcpy (s->rec, cursor_rec (s, &s->cur[s->heap[0]]), s->rs);
    if (!heap_pop (s, s->fd, s->cur, s->heap, &s->heap_n, error))
      return NULL;
    s->read_index++;
    return s->rec;
  }
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
    memcpy (out, s->cmp ? s->sorted[index] : s->buf + (gsize) index * s->rs, s->rs);
    return TRUE;
  }
  if (s->cmp != NULL && s->runs->len > 1) {
    /* Random access needs one run: merge the rest now. */
    guint passes = 0;
    free_cursors (s);
    if (!merge_down (s, 1, &passes, error) || !reader_start (s, error))
      return FALSE;
  }
  if (s->rbuf != NULL && index >= s->rbuf_first && index < s->rbuf_first + s->rbuf_n) {
    memcpy (out, s->rbuf + (gsize) (index - s->rbuf_first) * s->rs, s->rs);
    return TRUE;
  }
  return read_all (s->fd, index * s->rs, out, s->rs, error);
}
