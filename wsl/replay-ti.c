/* SimGrid time-independent (TI) traces, replayed rank by rank
 * (../shared/formats/simgrid-ti.md is the format; wsl/REPLAY.md how each
 * action becomes WSL calls).
 *
 * Streaming.  No trace is loaded whole: each rank keeps where its next line
 * is.  With one file per rank (an index of N files), rank r reads its own
 * file from its offset, through a small cache of open files.  With one
 * shared file, a main reader goes through the file once and keeps, for each
 * rank, the lines it passed that the rank has not read yet (at most
 * QUEUE_LIMIT bytes a rank); a rank whose lines it would have to keep beyond
 * that is read instead by a second handle from its own offset, up to the
 * last of its lines the main reader has seen.  Memory is then bounded by
 * the number of ranks, not by the trace's length, whatever the order of
 * the lines (all of rank 0, then all of rank 1, ... or interleaved).
 *
 * Every number is checked before use; every mistake names the file, the
 * line and the action.  Actions pti cannot model but that can be left out
 * without breaking the rest (one-sided, I/O) are counted in the notes that
 * ptieval prints; the others are errors. */
#include "replay.h"
#include "coll-private.h"
#include "lines.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

/* What SMPI writes for a peer that is not a rank of the communicator: an
 * MPI_PROC_NULL destination, or an MPI_ANY_SOURCE source (MPI_UNDEFINED). */
#define TI_UNDEFINED (-333)
#define QUEUE_LIMIT (64 * 1024)    /* bytes of lines kept for one rank (shared file) */
#define LINE_LIMIT (256u << 20)    /* longest line read: an alltoallv of millions of ranks */
#define ACTIONS_PER_PULL 64
#define MAX_EXACT 9007199254740992.0

typedef struct {
  gint32 src, dst, tag;
  PtiRequest req;
} Pending;

typedef struct {
  char *text;
  gsize len;
  guint64 line;
  gint64 offset;
} QLine;

typedef struct {
  /* where its lines are */
  char *path;              /* its own file; NULL: the shared file */
  gint64 offset;           /* of its next line (own file; shared file while scanning) */
  guint64 line;            /* number of that line */
  FILE *fp;                /* own file, while the cache keeps it open */
  guint64 used;            /* cache clock of its last use */
  GQueue queue;            /* shared file: QLine*, read by the main reader for it */
  gsize queued;            /* bytes in queue */
  gboolean scanning;       /* shared file: read by the second handle from offset */
  gint64 last_seen;        /* shared file: offset of its last line the main reader passed */
  /* replay */
  guint64 dt_default;      /* bytes of the default datatype: 1, or 8 after "init x" */
  gboolean legacy;         /* SimGrid <= 3.19 syntax met */
  gboolean finalized;
  GArray *pending;         /* Pending, in posting order */
} TiRank;

typedef struct {
  PtiContext *ctx;
  PtiReplayNotes *notes;
  guint n;
  TiRank *ranks;
  /* the shared file */
  char *shared;
  FILE *main;
  gint64 main_off;
  guint64 main_line;
  gboolean main_eof;
  FILE *scan;
  gint64 scan_off;         /* where scan is */
  /* own files: the open ones */
  guint *open;             /* ranks whose file is open, up to max_open */
  guint n_open, max_open;
  guint64 clock;
  /* the line being replayed */
  GString *line;
  const char *file;        /* its file, for messages */
  guint64 line_no;
  GPtrArray *tok;          /* its tokens (into line) */
  GArray *sizes;           /* guint64 scratch: vectors of sizes */
  GHashTable *wild;        /* (receiver, tag) -> Wild: what -333 sources are */
} TiReader;

/* Receives from -333 of one (receiver, tag): SMPI writes MPI_UNDEFINED for
 * MPI_ANY_SOURCE and for MPI_PROC_NULL alike (an MPI_Irecv from
 * MPI_PROC_NULL is written, an MPI_Recv is not).  A survey of the trace
 * counts the messages sent to (receiver, tag) and the receives that name
 * their source: the messages left over are for receives from any source;
 * once none is left, a -333 receive is from MPI_PROC_NULL. */
typedef struct {
  gint64 sent;             /* messages sent to it */
  gint64 named;            /* receives naming their source */
  gint64 any_left;         /* -333 receives still to take as MPI_ANY_SOURCE */
} Wild;

#define WILD_KEY(rank, tag) (((guint64) (guint32) (rank) << 32) | (guint32) (tag))

/* ---- errors ---------------------------------------------------------------------- */

G_GNUC_PRINTF (3, 4) static gboolean
ti_error (TiReader *R, GError **error, const char *format, ...)
{
  va_list ap;
  va_start (ap, format);
  g_autofree char *msg = g_strdup_vprintf (format, ap);
  va_end (ap);
  const char *action = R->tok->len > 1 ? g_ptr_array_index (R->tok, 1) : NULL;
  if (action != NULL)
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s:%" G_GUINT64_FORMAT ": %.40s: %s",
                 R->file, R->line_no, action, msg);
  else
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s:%" G_GUINT64_FORMAT ": %s", R->file,
                 R->line_no, msg);
  return FALSE;
}

/* ---- reading lines ------------------------------------------------------------------ */

/* One line of @fp appended to @out (pti_line_read): its bytes, 0 at the
 * end; -1 with @error naming @path and @line. */
static gssize
read_line (FILE *fp, GString *out, const char *path, guint64 line, GError **error)
{
  gssize n = pti_line_read (fp, out, LINE_LIMIT, error);
  if (n < 0) {
    if ((*error)->code == PTI_ERROR_IO)
      g_prefix_error (error, "%s: ", path);
    else
      g_prefix_error (error, "%s:%" G_GUINT64_FORMAT ": ", path, line);
  }
  return n;
}

/* Splits @R->line in place into tokens (runs of spaces and tabs). */
static void
tokenize (TiReader *R)
{
  g_ptr_array_set_size (R->tok, 0);
  char *p = R->line->str;
  for (;;) {
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
      *p++ = '\0';
    if (*p == '\0')
      break;
    g_ptr_array_add (R->tok, p);
    while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n')
      p++;
  }
}

/* Empty, blank or a comment. */
static gboolean
is_blank (const char *s, gsize len)
{
  for (gsize i = 0; i < len; i++) {
    if (s[i] == '#')
      return TRUE;
    if (!g_ascii_isspace (s[i]))
      return FALSE;
  }
  return TRUE;
}

/* The rank a line is for (its first token), or -1 if it has none that is a
 * whole number >= 0 (then the line is an error, reported by the reader). */
static gint64
line_rank (const char *s, gsize len)
{
  gsize i = 0;
  while (i < len && (s[i] == ' ' || s[i] == '\t'))
    i++;
  gint64 r = 0;
  gsize start = i;
  while (i < len && g_ascii_isdigit (s[i]) && r < G_MAXINT32)
    r = r * 10 + (s[i++] - '0');
  if (i == start || (i < len && s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\n'))
    return -1;
  return r;
}

/* A rank's own file, open at its offset (a cache of max_open files). */
static FILE *
own_file (TiReader *R, guint r, GError **error)
{
  TiRank *t = &R->ranks[r];
  t->used = ++R->clock;
  if (t->fp != NULL)
    return t->fp;
  if (R->n_open == R->max_open) {
    guint victim = 0;
    for (guint i = 1; i < R->n_open; i++)
      if (R->ranks[R->open[i]].used < R->ranks[R->open[victim]].used)
        victim = i;
    TiRank *v = &R->ranks[R->open[victim]];
    fclose (v->fp);
    v->fp = NULL;
    R->open[victim] = R->open[--R->n_open];
  }
  FILE *fp = fopen (t->path, "r");
  if (fp == NULL) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_IO, "%s: cannot read (the actions of rank %u): %s",
                 t->path, r, g_strerror (errno));
    return NULL;
  }
  if (t->offset > 0 && fseeko (fp, t->offset, SEEK_SET) != 0) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_IO, "%s: cannot seek: %s", t->path,
                 g_strerror (errno));
    fclose (fp);
    return NULL;
  }
  t->fp = fp;
  R->open[R->n_open++] = r;
  return fp;
}

static void
qline_free (gpointer data)
{
  QLine *q = data;
  g_free (q->text);
  g_free (q);
}

/* Shared file: rank @q's lines are read by the second handle from now on,
 * from its first line kept (or @off, @line). */
static void
start_scanning (TiReader *R, guint q, gint64 off, guint64 line)
{
  TiRank *t = &R->ranks[q];
  QLine *first = g_queue_peek_head (&t->queue);
  t->offset = first ? first->offset : off;
  t->line = first ? first->line : line;
  g_queue_clear_full (&t->queue, qline_free);
  t->queued = 0;
  t->scanning = TRUE;
}

/* Shared file: the next line of rank @r into R->line; *eof when none is left. */
static gboolean
next_shared (TiReader *R, guint r, gboolean *eof, GError **error)
{
  TiRank *t = &R->ranks[r];
  *eof = FALSE;
  for (;;) {
    QLine *q = g_queue_pop_head (&t->queue);
    if (q != NULL) {
      t->queued -= q->len;
      g_string_truncate (R->line, 0);
      g_string_append_len (R->line, q->text, q->len);
      R->line_no = q->line;
      qline_free (q);
      return TRUE;
    }
    if (t->scanning) {
      /* its lines up to the last the main reader has seen */
      while (t->offset <= t->last_seen) {
        if (R->scan_off != t->offset) {
          if (fseeko (R->scan, t->offset, SEEK_SET) != 0) {
            g_set_error (error, PTI_ERROR, PTI_ERROR_IO, "%s: cannot seek: %s", R->shared,
                         g_strerror (errno));
            return FALSE;
          }
        }
        g_string_truncate (R->line, 0);
        gssize n = read_line (R->scan, R->line, R->shared, t->line, error);
        if (n < 0)
          return FALSE;
        if (n == 0)
          break;
        guint64 no = t->line++;
        t->offset += n;
        R->scan_off = t->offset;
        if (!is_blank (R->line->str, n) && line_rank (R->line->str, n) == r) {
          R->line_no = no;
          return TRUE;
        }
      }
      t->scanning = FALSE;   /* the main reader brings the rest */
    }
    if (R->main_eof) {
      *eof = TRUE;
      return TRUE;
    }
    g_string_truncate (R->line, 0);
    gssize n = read_line (R->main, R->line, R->shared, R->main_line, error);
    if (n < 0)
      return FALSE;
    if (n == 0) {
      R->main_eof = TRUE;
      continue;
    }
    gint64 off = R->main_off;
    guint64 no = R->main_line++;
    R->main_off += n;
    if (is_blank (R->line->str, n))
      continue;
    gint64 q_rank = line_rank (R->line->str, n);
    if (q_rank < 0 || q_rank >= R->n) {
      R->line_no = no;
      R->file = R->shared;
      tokenize (R);
      return ti_error (R, error, "'%s' is not a rank of this trace (0 to %u)",
                       R->tok->len ? (const char *) g_ptr_array_index (R->tok, 0) : "",
                       R->n - 1);
    }
    guint qr = (guint) q_rank;
    TiRank *qt = &R->ranks[qr];
    qt->last_seen = off;
    if (qr == r) {
      R->line_no = no;
      return TRUE;
    }
    if (qt->scanning)
      continue;    /* found by its own scan */
    if (qt->queued + n > QUEUE_LIMIT) {
      start_scanning (R, qr, off, no);
      continue;
    }
    QLine *ql = g_new (QLine, 1);
    *ql = (QLine) { g_memdup2 (R->line->str, n + 1), (gsize) n, no, off };
    g_queue_push_tail (&qt->queue, ql);
    qt->queued += n;
  }
}

/* The next line of rank @r that is not blank, tokenized; *eof if none. */
static gboolean
next_line (TiReader *R, guint r, gboolean *eof, GError **error)
{
  TiRank *t = &R->ranks[r];
  for (;;) {
    if (t->path == NULL) {
      R->file = R->shared;
      if (!next_shared (R, r, eof, error))
        return FALSE;
      if (*eof)
        return TRUE;
    } else {
      FILE *fp = own_file (R, r, error);
      if (fp == NULL)
        return FALSE;
      R->file = t->path;
      g_string_truncate (R->line, 0);
      gssize n = read_line (fp, R->line, t->path, t->line, error);
      if (n < 0)
        return FALSE;
      if (n == 0) {
        *eof = TRUE;
        return TRUE;
      }
      R->line_no = t->line++;
      t->offset += n;
      *eof = FALSE;
    }
    if (is_blank (R->line->str, R->line->len))
      continue;
    tokenize (R);
    return TRUE;
  }
}

/* ---- arguments ------------------------------------------------------------------------- */

static const char *
tok (TiReader *R, guint i)
{
  return i < R->tok->len ? g_ptr_array_index (R->tok, i) : NULL;
}

/* Token @i as a finite number (SimGrid parses sizes and amounts as doubles:
 * "1e6", "1.33722e+07"). */
static gboolean
number (TiReader *R, guint i, const char *what, double *out, GError **error)
{
  const char *s = tok (R, i);
  char *end = NULL;
  *out = 0;   /* set on every path: GCC cannot see that ti_error returns FALSE */
  double v = s ? g_ascii_strtod (s, &end) : NAN;
  if (s == NULL || end == s || *end != '\0' || !isfinite (v))
    return ti_error (R, error, "%s '%s' is not a number", what, s ? s : "");
  *out = v;
  return TRUE;
}

/* A whole number of elements >= 0. */
static gboolean
count_arg (TiReader *R, guint i, const char *what, guint64 *out, GError **error)
{
  double v;
  if (!number (R, i, what, &v, error))
    return FALSE;
  if (v < 0 || v != floor (v) || v > MAX_EXACT)
    return ti_error (R, error, "%s %s is not a whole number of elements >= 0", what, tok (R, i));
  *out = (guint64) v;
  return TRUE;
}

/* An amount of flops or seconds >= 0. */
static gboolean
amount_arg (TiReader *R, guint i, const char *what, double *out, GError **error)
{
  if (!number (R, i, what, out, error))
    return FALSE;
  if (*out < 0)
    return ti_error (R, error, "%s %s is negative", what, tok (R, i));
  return TRUE;
}

static gboolean
int_arg (TiReader *R, guint i, const char *what, gint64 *out, GError **error)
{
  const char *s = tok (R, i);
  char *end = NULL;
  *out = 0;   /* set on every path, as number () */
  errno = 0;
  gint64 v = s ? g_ascii_strtoll (s, &end, 10) : 0;
  if (s == NULL || end == s || *end != '\0' || errno != 0 || v < G_MININT32 || v > G_MAXINT32)
    return ti_error (R, error, "%s '%s' is not a whole number", what, s ? s : "");
  *out = v;
  return TRUE;
}

/* A peer: a rank of the trace, or -333 (SMPI's MPI_UNDEFINED: MPI_PROC_NULL
 * as a destination; as a source MPI_ANY_SOURCE or MPI_PROC_NULL, which
 * wild_source tells apart). */
static gboolean
peer_arg (TiReader *R, guint i, gboolean source, guint *out, GError **error)
{
  gint64 v;
  *out = 0;   /* set on every path, as number () */
  if (!int_arg (R, i, source ? "source" : "destination", &v, error))
    return FALSE;
  if (v == TI_UNDEFINED) {
    *out = source ? PTI_ANY_SOURCE : PTI_PROC_NULL;
    return TRUE;
  }
  if (v < 0 || v >= R->n)
    return ti_error (R, error, "%s %" G_GINT64_FORMAT " is not a rank of this trace (0 to %u, "
                     "or -333)", source ? "source" : "destination", v, R->n - 1);
  *out = (guint) v;
  return TRUE;
}

/* Rank @r's receive from -333 with tag @tag: from any source while
 * messages to (r, tag) are left over by the receives naming their source,
 * else from MPI_PROC_NULL (counted in the notes). */
static guint
wild_source (TiReader *R, guint r, gint tag)
{
  Wild *w = R->wild ? g_hash_table_lookup (R->wild, &(guint64) { WILD_KEY (r, tag) }) : NULL;
  if (tag == PTI_ANY_TAG || (w != NULL && w->any_left > 0)) {
    if (w != NULL && w->any_left > 0)
      w->any_left--;
    return PTI_ANY_SOURCE;
  }
  pti_replay_notes_add (R->notes, "receives from -333 taken as MPI_PROC_NULL",
                        "SMPI writes -333 for MPI_PROC_NULL and MPI_ANY_SOURCE alike; no message "
                        "to these receives is left over by the receives that name their source",
                        1);
  return PTI_PROC_NULL;
}

static gboolean
tag_arg (TiReader *R, guint i, gboolean receive, gint *out, GError **error)
{
  gint64 v;
  if (!int_arg (R, i, "tag", &v, error))
    return FALSE;
  if (v < 0 && !receive)
    return ti_error (R, error, "tag %" G_GINT64_FORMAT " is negative", v);
  *out = v < 0 ? PTI_ANY_TAG : (gint) v;
  return TRUE;
}

/* SimGrid's predefined datatypes (smpi_datatype.cpp, x86-64): bytes by id,
 * 0 for ids that name none. */
static const guint8 datatype_size[60] = {
  [0] = 8, [1] = 4, [2] = 1, [3] = 2, [4] = 8, [5] = 4, [6] = 1, [7] = 8, [8] = 1, [9] = 1,
  [10] = 2, [11] = 4, [12] = 8, [13] = 8, [14] = 16, [15] = 4, [16] = 1, [17] = 1, [18] = 2,
  [19] = 4, [20] = 8, [21] = 1, [22] = 2, [23] = 4, [24] = 8, [25] = 8, [26] = 16, [34] = 8,
  [36] = 16, [38] = 4, [40] = 8, [47] = 4, [48] = 8, [57] = 1, [59] = 8,
};

/* The bytes of one element of datatype token @i, or of the rank's default
 * datatype if the line has no token @i. */
static gboolean
dt_arg (TiReader *R, TiRank *t, guint i, guint64 *size, GError **error)
{
  if (tok (R, i) == NULL) {
    *size = t->dt_default;
    return TRUE;
  }
  gint64 id;
  if (!int_arg (R, i, "datatype", &id, error))
    return FALSE;
  if (id >= 0 && id < (gint64) G_N_ELEMENTS (datatype_size) && datatype_size[id] > 0) {
    *size = datatype_size[id];
    return TRUE;
  }
  /* SimGrid's replay would crash; the format note says: assume one byte */
  g_autofree char *what = g_strdup_printf ("datatype id %" G_GINT64_FORMAT, id);
  pti_replay_notes_add (R->notes, what, "not one of SimGrid's predefined datatypes: taken as "
                        "1 byte an element", 1);
  *size = 1;
  return TRUE;
}

static gboolean
bytes_of (TiReader *R, guint64 count, guint64 size, guint64 *bytes, GError **error)
{
  if (size != 0 && count > G_MAXUINT64 / size)
    return ti_error (R, error, "%" G_GUINT64_FORMAT " elements of %" G_GUINT64_FORMAT " bytes "
                     "are too many bytes", count, size);
  *bytes = count * size;
  return TRUE;
}

/* @n counts from token @i on, into R->sizes (from index @at), in elements. */
static gboolean
counts_arg (TiReader *R, guint i, guint at, GError **error)
{
  g_array_set_size (R->sizes, MAX (R->sizes->len, at + R->n));
  for (guint j = 0; j < R->n; j++)
    if (!count_arg (R, i + j, "count", &g_array_index (R->sizes, guint64, at + j), error))
      return FALSE;
  return TRUE;
}

static gboolean
scale_counts (TiReader *R, guint at, guint64 size, GError **error)
{
  for (guint j = 0; j < R->n; j++) {
    guint64 *v = &g_array_index (R->sizes, guint64, at + j);
    if (!bytes_of (R, *v, size, v, error))
      return FALSE;
  }
  return TRUE;
}

static gboolean
need_args (TiReader *R, guint n, const char *form, GError **error)
{
  if (R->tok->len >= 2 + n)
    return TRUE;
  return ti_error (R, error, "%u argument%s where at least %u are needed (%s)",
                   R->tok->len - 2, R->tok->len == 3 ? "" : "s", n, form);
}

/* ---- requests ------------------------------------------------------------------------- */

static void
pending_add (TiRank *t, gint32 src, gint32 dst, gint32 tag, PtiRequest req)
{
  Pending p = { src, dst, tag, req };
  g_array_append_val (t->pending, p);
}

/* The key of a non-blocking collective's request: none a point-to-point
 * request has, so only waitall and finalize complete it. */
#define COLL_KEY G_MININT32

/* Waits for every pending request of rank @r (waitall, finalize). */
static gboolean
wait_all (TiReader *R, guint r, GError **error)
{
  TiRank *t = &R->ranks[r];
  if (t->pending->len == 0)
    return TRUE;
  g_autofree PtiRequest *reqs = g_new (PtiRequest, t->pending->len);
  for (guint i = 0; i < t->pending->len; i++)
    reqs[i] = g_array_index (t->pending, Pending, i).req;
  guint n = t->pending->len;
  g_array_set_size (t->pending, 0);
  return pti_mpi_waitall (R->ctx, r, n, reqs, error);
}

/* ---- actions ---------------------------------------------------------------------------- */

typedef gboolean (*ActionFunc) (TiReader *R, guint r, TiRank *t, GError **error);

static gboolean
act_init (TiReader *R, guint r, TiRank *t, GError **error)
{
  t->dt_default = tok (R, 2) != NULL ? 8 : 1;   /* "init x": MPI_DOUBLE */
  return TRUE;
}

static gboolean
act_finalize (TiReader *R, guint r, TiRank *t, GError **error)
{
  t->finalized = TRUE;
  return wait_all (R, r, error);
}

static gboolean
act_compute (TiReader *R, guint r, TiRank *t, GError **error)
{
  double flops = 0;
  return need_args (R, 1, "compute FLOPS", error) && amount_arg (R, 2, "flops", &flops, error)
         && pti_use_flops (R->ctx, r, flops, error);
}

static gboolean
act_sleep (TiReader *R, guint r, TiRank *t, GError **error)
{
  double s;
  return need_args (R, 1, "sleep SECONDS", error) && amount_arg (R, 2, "seconds", &s, error)
         && pti_wsl_sleep (R->ctx, r, s, error);
}

/* send, isend, Ssend, ISsend, bsend, ibsend, recv, irecv: "PEER TAG COUNT
 * [DT]", or in the legacy syntax "PEER COUNT [DT]". */
static gboolean
point_to_point (TiReader *R, guint r, TiRank *t, gboolean receive, gboolean nonblocking,
                gboolean sync, GError **error)
{
  if (R->tok->len == 4 && !t->legacy)
    t->legacy = TRUE;    /* "send 1 100": SimGrid <= 3.19 wrote no tag */
  guint c = t->legacy ? 3 : 4;   /* token of the count */
  if (!need_args (R, t->legacy ? 2 : 3, t->legacy ? "PEER COUNT [DATATYPE]"
                                                  : "PEER TAG COUNT [DATATYPE]", error))
    return FALSE;
  guint peer;
  gint tag = 0;
  guint64 count = 0, size = 0, bytes = 0;
  if (!peer_arg (R, 2, receive, &peer, error)
      || (!t->legacy && !tag_arg (R, 3, receive, &tag, error)))
    return FALSE;
  if (receive && peer == PTI_ANY_SOURCE)
    peer = wild_source (R, r, tag);
  /* a receive of a negative count: SimGrid probes for the size; any
   * message the receive matches is then accepted */
  double v = 0;
  if (receive && number (R, c, "count", &v, NULL) && v < 0)
    bytes = G_MAXUINT64;
  else if (!count_arg (R, c, "count", &count, error) || !dt_arg (R, t, c + 1, &size, error)
           || !bytes_of (R, count, size, &bytes, error))
    return FALSE;
  PtiContext *ctx = R->ctx;
  if (!nonblocking) {
    if (receive)
      return pti_mpi_recv (ctx, r, peer, bytes, tag, error);
    return sync ? pti_mpi_ssend (ctx, r, peer, bytes, tag, error)
                : pti_mpi_send (ctx, r, peer, bytes, tag, error);
  }
  PtiRequest req;
  gboolean ok = receive ? pti_mpi_irecv (ctx, r, peer, bytes, tag, &req, error)
              : sync ? pti_mpi_issend (ctx, r, peer, bytes, tag, &req, error)
                     : pti_mpi_isend (ctx, r, peer, bytes, tag, &req, error);
  if (!ok)
    return FALSE;
  /* the key SMPI's wait names: (sender, receiver, tag) as written */
  gint64 p = 0;
  int_arg (R, 2, "peer", &p, NULL);
  pending_add (t, receive ? (gint32) p : (gint32) r, receive ? (gint32) r : (gint32) p,
               t->legacy ? 0 : tag == PTI_ANY_TAG ? -1 : tag, req);
  return TRUE;
}

static gboolean act_send (TiReader *R, guint r, TiRank *t, GError **e)
{ return point_to_point (R, r, t, FALSE, FALSE, FALSE, e); }
static gboolean act_ssend (TiReader *R, guint r, TiRank *t, GError **e)
{ return point_to_point (R, r, t, FALSE, FALSE, TRUE, e); }
static gboolean act_isend (TiReader *R, guint r, TiRank *t, GError **e)
{ return point_to_point (R, r, t, FALSE, TRUE, FALSE, e); }
static gboolean act_issend (TiReader *R, guint r, TiRank *t, GError **e)
{ return point_to_point (R, r, t, FALSE, TRUE, TRUE, e); }
static gboolean act_recv (TiReader *R, guint r, TiRank *t, GError **e)
{ return point_to_point (R, r, t, TRUE, FALSE, FALSE, e); }
static gboolean act_irecv (TiReader *R, guint r, TiRank *t, GError **e)
{ return point_to_point (R, r, t, TRUE, TRUE, FALSE, e); }

/* wait SRC DST TAG: the oldest pending request with that key (none: it was
 * completed by a test, as SimGrid assumes).  Legacy "wait": the last one. */
static gboolean
act_wait (TiReader *R, guint r, TiRank *t, GError **error)
{
  GArray *pend = t->pending;
  guint found = G_MAXUINT;
  if (R->tok->len == 2) {
    t->legacy = TRUE;
    if (pend->len > 0)
      found = pend->len - 1;
  } else {
    gint64 src, dst, tag;
    if (!need_args (R, 3, "wait SRC DST TAG", error) || !int_arg (R, 2, "source", &src, error)
        || !int_arg (R, 3, "destination", &dst, error) || !int_arg (R, 4, "tag", &tag, error))
      return FALSE;
    for (guint i = 0; i < pend->len && found == G_MAXUINT; i++) {
      const Pending *p = &g_array_index (pend, Pending, i);
      /* a receive from any source (-333) is waited for by its source as
       * written then, or by the one it got */
      if ((p->src == src || p->src == TI_UNDEFINED) && p->dst == dst
          && (p->tag == tag || p->tag == -1))
        found = i;
    }
  }
  if (found == G_MAXUINT)
    return TRUE;
  PtiRequest req = g_array_index (pend, Pending, found).req;
  g_array_remove_index (pend, found);
  return pti_mpi_wait (R->ctx, r, req, error);
}

/* test SRC DST TAG: whether it succeeded is SimGrid's to find out in its
 * simulation, and is not written: the request stays pending, completed by
 * a later wait on it, waitall or finalize (a test that fails). */
static gboolean
act_test (TiReader *R, guint r, TiRank *t, GError **error)
{
  if (R->tok->len == 2)
    t->legacy = TRUE;
  return TRUE;
}

static gboolean
act_waitall (TiReader *R, guint r, TiRank *t, GError **error)
{
  return wait_all (R, r, error);
}

/* sendRecv SENDCOUNT DST RECVCOUNT SRC DT1 DT2 (tags 0, as SimGrid's replay) */
static gboolean
act_sendrecv (TiReader *R, guint r, TiRank *t, GError **error)
{
  guint dst = 0, src = 0;
  guint64 sc = 0, rc = 0, s1 = 0, s2 = 0, sb = 0, rb = 0;
  if (!need_args (R, 6, "sendRecv SENDCOUNT DST RECVCOUNT SRC DT1 DT2", error)
      || !count_arg (R, 2, "send count", &sc, error) || !peer_arg (R, 3, FALSE, &dst, error)
      || !count_arg (R, 4, "receive count", &rc, error) || !peer_arg (R, 5, TRUE, &src, error)
      || !dt_arg (R, t, 6, &s1, error) || !dt_arg (R, t, 7, &s2, error)
      || !bytes_of (R, sc, s1, &sb, error) || !bytes_of (R, rc, s2, &rb, error))
    return FALSE;
  if (src == PTI_ANY_SOURCE)
    src = wild_source (R, r, 0);
  return pti_mpi_sendrecv (R->ctx, r, dst, sb, 0, src, rb, 0, error);
}

static gboolean
act_barrier (TiReader *R, guint r, TiRank *t, GError **error)
{
  return pti_mpi_barrier (R->ctx, r, error);
}

/* A root argument, 0 if absent. */
static gboolean
root_arg (TiReader *R, guint i, guint *root, GError **error)
{
  *root = 0;
  if (tok (R, i) == NULL)
    return TRUE;
  gint64 v;
  if (!int_arg (R, i, "root", &v, error))
    return FALSE;
  if (v < 0 || v >= R->n)
    return ti_error (R, error, "root %" G_GINT64_FORMAT " is not a rank of this trace (0 to %u)",
                     v, R->n - 1);
  *root = (guint) v;
  return TRUE;
}

/* A reduction's computation (flops), made after the communication as
 * SimGrid makes it. */
static gboolean
reduction_flops (TiReader *R, guint r, double flops, GError **error)
{
  return flops <= 0 || pti_use_flops (R->ctx, r, flops, error);
}

/* The non-blocking form of the collective on this line ("ibcast"): its
 * request waits in the pending list for waitall or finalize. */
static gboolean
nonblocking (TiReader *R)
{
  const char *a = tok (R, 1);
  return a[0] == 'i';
}

static gboolean
coll_done (TiReader *R, guint r, TiRank *t, gboolean ok, PtiRequest req, GError **error)
{
  if (ok && nonblocking (R))
    pending_add (t, COLL_KEY, COLL_KEY, COLL_KEY, req);
  return ok;
}

static gboolean
act_bcast (TiReader *R, guint r, TiRank *t, GError **error)
{
  guint64 count = 0, size = 0, bytes = 0;
  guint root = 0;
  PtiRequest req = 0;
  if (!need_args (R, 1, "bcast COUNT [ROOT [DATATYPE]]", error)
      || !count_arg (R, 2, "count", &count, error) || !root_arg (R, 3, &root, error)
      || !dt_arg (R, t, 4, &size, error) || !bytes_of (R, count, size, &bytes, error))
    return FALSE;
  gboolean ok = nonblocking (R) ? pti_mpi_ibcast (R->ctx, r, root, bytes, &req, error)
                                : pti_mpi_bcast (R->ctx, r, root, bytes, error);
  return coll_done (R, r, t, ok, req, error);
}

/* reduce COUNT FLOPS [ROOT [DT]], allreduce/scan/exscan COUNT FLOPS [DT] */
static gboolean
act_reduction (TiReader *R, guint r, TiRank *t, GError **error)
{
  const char *a = tok (R, 1) + nonblocking (R);
  gboolean rooted = strcmp (a, "reduce") == 0;
  guint64 count = 0, size = 0, bytes = 0;
  double flops = 0;
  guint root = 0;
  if (!need_args (R, 2, rooted ? "reduce COUNT FLOPS [ROOT [DATATYPE]]"
                                : "COUNT FLOPS [DATATYPE]", error)
      || !count_arg (R, 2, "count", &count, error) || !amount_arg (R, 3, "flops", &flops, error)
      || (rooted && !root_arg (R, 4, &root, error))
      || !dt_arg (R, t, rooted ? 5 : 4, &size, error) || !bytes_of (R, count, size, &bytes, error))
    return FALSE;
  PtiContext *ctx = R->ctx;
  PtiRequest req = 0;
  gboolean nb = nonblocking (R), ok;
  if (rooted)
    ok = nb ? pti_mpi_ireduce (ctx, r, root, bytes, &req, error)
            : pti_mpi_reduce (ctx, r, root, bytes, error);
  else if (strcmp (a, "allreduce") == 0)
    ok = nb ? pti_mpi_iallreduce (ctx, r, bytes, &req, error)
            : pti_mpi_allreduce (ctx, r, bytes, error);
  else if (strcmp (a, "scan") == 0)
    ok = nb ? pti_mpi_iscan (ctx, r, bytes, &req, error) : pti_mpi_scan (ctx, r, bytes, error);
  else
    ok = nb ? pti_mpi_iexscan (ctx, r, bytes, &req, error) : pti_mpi_exscan (ctx, r, bytes, error);
  return coll_done (R, r, t, ok, req, error) && reduction_flops (R, r, flops, error);
}

/* alltoall SENDCOUNT RECVCOUNT [DT1 [DT2]]: a block of SENDCOUNT DT1 to each */
static gboolean
act_alltoall (TiReader *R, guint r, TiRank *t, GError **error)
{
  guint64 sc = 0, rc = 0, size = 0, bytes = 0;
  PtiRequest req = 0;
  if (!need_args (R, 2, "alltoall SENDCOUNT RECVCOUNT [DT1 [DT2]]", error)
      || !count_arg (R, 2, "send count", &sc, error) || !count_arg (R, 3, "receive count", &rc, error)
      || !dt_arg (R, t, 4, &size, error) || !bytes_of (R, sc, size, &bytes, error))
    return FALSE;
  gboolean ok = nonblocking (R) ? pti_mpi_ialltoall (R->ctx, r, bytes, &req, error)
                                : pti_mpi_alltoall (R->ctx, r, bytes, error);
  return coll_done (R, r, t, ok, req, error);
}

/* alltoallv SENDBUF SC_0..SC_n-1 RECVBUF RC_0..RC_n-1 [DT1 [DT2]] */
static gboolean
act_alltoallv (TiReader *R, guint r, TiRank *t, GError **error)
{
  guint n = R->n;
  guint64 s1, s2;
  PtiRequest req = 0;
  if (!need_args (R, 2 * n + 2, "alltoallv SENDBUF SENDCOUNTS... RECVBUF RECVCOUNTS... "
                  "[DT1 [DT2]], a count for every rank", error)
      || !counts_arg (R, 3, 0, error) || !counts_arg (R, 4 + n, n, error)
      || !dt_arg (R, t, 4 + 2 * n, &s1, error) || !dt_arg (R, t, 5 + 2 * n, &s2, error)
      || !scale_counts (R, 0, s1, error) || !scale_counts (R, n, s2, error))
    return FALSE;
  const guint64 *v = (const guint64 *) R->sizes->data;
  gboolean ok = nonblocking (R) ? pti_mpi_ialltoallv (R->ctx, r, v, v + n, &req, error)
                                : pti_mpi_alltoallv (R->ctx, r, v, v + n, error);
  return coll_done (R, r, t, ok, req, error);
}

/* gather/scatter SENDCOUNT RECVCOUNT [ROOT [DT1 [DT2]]]; allgather without
 * ROOT.  A rank's block: SENDCOUNT DT1 (gather, allgather: meaningful on
 * every rank) or RECVCOUNT DT2 (scatter). */
static gboolean
act_gather (TiReader *R, guint r, TiRank *t, GError **error)
{
  const char *a = tok (R, 1) + nonblocking (R);
  gboolean all = strcmp (a, "allgather") == 0, scatter = strcmp (a, "scatter") == 0;
  guint64 sc = 0, rc = 0, s1 = 0, s2 = 0, bytes = 0;
  guint root = 0;
  guint d = all ? 4 : 5;   /* first datatype token */
  PtiRequest req = 0;
  if (!need_args (R, 2, all ? "allgather SENDCOUNT RECVCOUNT [DT1 [DT2]]"
                            : "SENDCOUNT RECVCOUNT [ROOT [DT1 [DT2]]]", error)
      || !count_arg (R, 2, "send count", &sc, error) || !count_arg (R, 3, "receive count", &rc, error)
      || (!all && !root_arg (R, 4, &root, error))
      || !dt_arg (R, t, d, &s1, error) || !dt_arg (R, t, d + 1, &s2, error)
      || !bytes_of (R, scatter ? rc : sc, scatter ? s2 : s1, &bytes, error))
    return FALSE;
  PtiContext *ctx = R->ctx;
  gboolean nb = nonblocking (R), ok;
  if (all)
    ok = nb ? pti_mpi_iallgather (ctx, r, bytes, &req, error)
            : pti_mpi_allgather (ctx, r, bytes, error);
  else if (scatter)
    ok = nb ? pti_mpi_iscatter (ctx, r, root, bytes, &req, error)
            : pti_mpi_scatter (ctx, r, root, bytes, error);
  else
    ok = nb ? pti_mpi_igather (ctx, r, root, bytes, &req, error)
            : pti_mpi_gather (ctx, r, root, bytes, error);
  return coll_done (R, r, t, ok, req, error);
}

/* gatherv SENDCOUNT RC_0..RC_n-1 [ROOT [DT1 [DT2]]] */
static gboolean
act_gatherv (TiReader *R, guint r, TiRank *t, GError **error)
{
  guint n = R->n;
  guint64 sc = 0, s1 = 0, s2 = 0, mine = 0;
  guint root = 0;
  PtiRequest req = 0;
  if (!need_args (R, n + 1, "gatherv SENDCOUNT RECVCOUNTS... [ROOT [DT1 [DT2]]], a count for "
                  "every rank", error)
      || !count_arg (R, 2, "send count", &sc, error) || !counts_arg (R, 3, 0, error)
      || !root_arg (R, 3 + n, &root, error) || !dt_arg (R, t, 4 + n, &s1, error)
      || !dt_arg (R, t, 5 + n, &s2, error) || !bytes_of (R, sc, s1, &mine, error)
      || !scale_counts (R, 0, s2, error))
    return FALSE;
  const guint64 *v = (const guint64 *) R->sizes->data;
  gboolean ok = nonblocking (R) ? pti_mpi_igatherv (R->ctx, r, root, mine, v, &req, error)
                                : pti_mpi_gatherv (R->ctx, r, root, mine, v, error);
  return coll_done (R, r, t, ok, req, error);
}

/* scatterv SC_0..SC_n-1 RECVCOUNT [ROOT [DT1 [DT2]]] */
static gboolean
act_scatterv (TiReader *R, guint r, TiRank *t, GError **error)
{
  guint n = R->n;
  guint64 rc = 0, s1 = 0, s2 = 0, mine = 0;
  guint root = 0;
  PtiRequest req = 0;
  if (!need_args (R, n + 1, "scatterv SENDCOUNTS... RECVCOUNT [ROOT [DT1 [DT2]]], a count for "
                  "every rank", error)
      || !counts_arg (R, 2, 0, error) || !count_arg (R, 2 + n, "receive count", &rc, error)
      || !root_arg (R, 3 + n, &root, error) || !dt_arg (R, t, 4 + n, &s1, error)
      || !dt_arg (R, t, 5 + n, &s2, error) || !scale_counts (R, 0, s1, error)
      || !bytes_of (R, rc, s2, &mine, error))
    return FALSE;
  const guint64 *v = (const guint64 *) R->sizes->data;
  gboolean ok = nonblocking (R) ? pti_mpi_iscatterv (R->ctx, r, root, v, mine, &req, error)
                                : pti_mpi_scatterv (R->ctx, r, root, v, mine, error);
  return coll_done (R, r, t, ok, req, error);
}

/* allgatherv SENDCOUNT RC_0..RC_n-1, then nothing, [DT1 [DT2]], the
 * displacements, or DT1 DT2 and the displacements (SimGrid tells them apart
 * by how many tokens follow the counts, and reads both datatypes from the
 * first; the displacements do not matter). */
static gboolean
act_allgatherv (TiReader *R, guint r, TiRank *t, GError **error)
{
  guint n = R->n;
  guint64 sc, size = t->dt_default;
  PtiRequest req = 0;
  if (!need_args (R, n + 1, "allgatherv SENDCOUNT RECVCOUNTS... [DT1 DT2] [DISPLACEMENTS...], "
                  "a count for every rank", error)
      || !count_arg (R, 2, "send count", &sc, error) || !counts_arg (R, 3, 0, error))
    return FALSE;
  guint extra = R->tok->len - (3 + n);
  if ((extra > n || extra <= 2) && extra > 0 && !dt_arg (R, t, 3 + n, &size, error))
    return FALSE;
  if (!scale_counts (R, 0, size, error))
    return FALSE;
  const guint64 *v = (const guint64 *) R->sizes->data;
  gboolean ok = nonblocking (R) ? pti_mpi_iallgatherv (R->ctx, r, v, &req, error)
                                : pti_mpi_allgatherv (R->ctx, r, v, error);
  return coll_done (R, r, t, ok, req, error);
}

/* reducescatter RC_0..RC_n-1 FLOPS [DT] */
static gboolean
act_reducescatter (TiReader *R, guint r, TiRank *t, GError **error)
{
  guint n = R->n;
  guint64 size;
  double flops = 0;
  PtiRequest req = 0;
  if (!need_args (R, n + 1, "reducescatter RECVCOUNTS... FLOPS [DATATYPE], a count for every "
                  "rank", error)
      || !counts_arg (R, 2, 0, error) || !amount_arg (R, 2 + n, "flops", &flops, error)
      || !dt_arg (R, t, 3 + n, &size, error) || !scale_counts (R, 0, size, error))
    return FALSE;
  const guint64 *v = (const guint64 *) R->sizes->data;
  gboolean ok = nonblocking (R) ? pti_mpi_ireduce_scatter (R->ctx, r, v, &req, error)
                                : pti_mpi_reduce_scatter (R->ctx, r, v, error);
  return coll_done (R, r, t, ok, req, error) && reduction_flops (R, r, flops, error);
}

static gboolean
act_ibarrier (TiReader *R, guint r, TiRank *t, GError **error)
{
  PtiRequest req = 0;
  return coll_done (R, r, t, pti_mpi_ibarrier (R->ctx, r, &req, error), req, error);
}

static gboolean
act_nothing (TiReader *R, guint r, TiRank *t, GError **error)
{
  return TRUE;
}

/* Actions written by SMPI that carry no time, or that pti leaves out and
 * counts (by the note's name; reasons below). */
static gboolean
act_note (TiReader *R, guint r, TiRank *t, GError **error)
{
  static const struct {
    const char *prefix;
    const char *why;
  } reasons[] = {
    { "comm_", "TI traces have no communicators: the collectives that follow are replayed on "
               "all ranks, as SimGrid does" },
    { "Win_", "one-sided communication: pti has no model for it (its traffic is left out)" },
    { "IO", "MPI-IO: pti has no model for it (the I/O is left out)" },
    { "waitAny", "which request completed is not written: the requests complete at the next "
                 "wait on them, waitall or finalize" },
    { "test", "its outcome is not written: the requests complete at the next wait on them, "
              "waitall or finalize" },
  };
  const char *a = tok (R, 1);
  for (guint i = 0; i < G_N_ELEMENTS (reasons); i++)
    if (g_str_has_prefix (a, reasons[i].prefix)) {
      /* "IO - read 100": the name is "IO - read" */
      g_autofree char *what = strcmp (a, "IO") == 0 && tok (R, 3) != NULL
                                ? g_strdup_printf ("IO - %.40s", tok (R, 3)) : g_strdup (a);
      pti_replay_notes_add (R->notes, what, reasons[i].why, 1);
      return TRUE;
    }
  return TRUE;
}

static gboolean
act_refuse (TiReader *R, guint r, TiRank *t, GError **error)
{
  return ti_error (R, error, "persistent requests: a TI trace does not say what a started "
                   "request sends or receives, so pti cannot replay it (neither can SimGrid)");
}

static const struct {
  const char *name;
  ActionFunc func;
} actions[] = {
  { "init", act_init }, { "finalize", act_finalize }, { "compute", act_compute },
  { "sleep", act_sleep }, { "send", act_send }, { "isend", act_isend }, { "recv", act_recv },
  { "irecv", act_irecv }, { "Ssend", act_ssend }, { "ISsend", act_issend },
  { "bsend", act_send }, { "ibsend", act_isend }, { "wait", act_wait }, { "test", act_test },
  { "waitall", act_waitall }, { "sendRecv", act_sendrecv }, { "barrier", act_barrier },
  { "bcast", act_bcast }, { "reduce", act_reduction }, { "allreduce", act_reduction },
  { "scan", act_reduction }, { "exscan", act_reduction }, { "alltoall", act_alltoall },
  { "alltoallv", act_alltoallv }, { "gather", act_gather }, { "allgather", act_gather },
  { "scatter", act_gather }, { "gatherv", act_gatherv }, { "scatterv", act_scatterv },
  { "allgatherv", act_allgatherv }, { "reducescatter", act_reducescatter },
  { "ibarrier", act_ibarrier }, { "ibcast", act_bcast }, { "ireduce", act_reduction },
  { "iallreduce", act_reduction }, { "iscan", act_reduction }, { "iexscan", act_reduction },
  { "ialltoall", act_alltoall }, { "ialltoallv", act_alltoallv }, { "igather", act_gather },
  { "iallgather", act_gather }, { "iscatter", act_gather }, { "igatherv", act_gatherv },
  { "iscatterv", act_scatterv }, { "iallgatherv", act_allgatherv },
  { "ireducescatter", act_reducescatter },
  { "comm_size", act_nothing }, { "location", act_nothing },
  { "comm_split", act_note }, { "comm_dup", act_note },
  { "Win_fence", act_note }, { "Win_post", act_note }, { "Win_start", act_note },
  { "Win_complete", act_note }, { "Win_wait", act_note }, { "Win_lock", act_note },
  { "Win_unlock", act_note }, { "Win_lock_all", act_note }, { "Win_unlock_all", act_note },
  { "Win_flush", act_note }, { "IO", act_note },
  { "waitAny", act_note }, { "testany", act_note }, { "testall", act_note },
  { "testsome", act_note },
  { "Start", act_refuse }, { "Startall", act_refuse },
};

/* SimGrid <= 3.19's names (simgrid-ti.md section 6). */
static const struct {
  const char *legacy, *name;
} legacy_names[] = {
  { "Isend", "isend" }, { "Irecv", "irecv" }, { "waitAll", "waitall" },
  { "allReduce", "allreduce" }, { "allToAll", "alltoall" }, { "allToAllV", "alltoallv" },
  { "gatherV", "gatherv" }, { "scatterV", "scatterv" }, { "allGather", "allgather" },
  { "allGatherV", "allgatherv" }, { "reduceScatter", "reducescatter" },
};

static gboolean
replay_line (TiReader *R, guint r, GError **error)
{
  TiRank *t = &R->ranks[r];
  if (R->tok->len < 2)
    return ti_error (R, error, "'%s' is not an action: a line is RANK ACTION [ARGUMENTS]",
                     (const char *) g_ptr_array_index (R->tok, 0));
  const char *a = tok (R, 1);
  for (guint i = 0; i < G_N_ELEMENTS (legacy_names); i++)
    if (strcmp (a, legacy_names[i].legacy) == 0) {
      t->legacy = TRUE;
      g_ptr_array_index (R->tok, 1) = (gpointer) legacy_names[i].name;
      a = legacy_names[i].name;
    }
  if (t->finalized)
    return ti_error (R, error, "an action of rank %u after its finalize", r);
  for (guint i = 0; i < G_N_ELEMENTS (actions); i++)
    if (strcmp (a, actions[i].name) == 0) {
      if (!actions[i].func (R, r, t, error)) {
        /* errors of the WSL name the rank, not the line: add it */
        if (error != NULL && *error != NULL && !g_str_has_prefix ((*error)->message, R->file))
          g_prefix_error (error, "%s:%" G_GUINT64_FORMAT ": %.40s: ", R->file, R->line_no, a);
        return FALSE;
      }
      return TRUE;
    }
  return ti_error (R, error, "unknown action (SimGrid's TI actions: init, finalize, compute, "
                   "sleep, send, isend, recv, irecv, wait, test, waitall, sendRecv, barrier, "
                   "bcast, reduce, allreduce, scan, exscan, alltoall, alltoallv, gather, "
                   "allgather, gatherv, allgatherv, scatter, scatterv, reducescatter, ...)");
}

/* The pull function: replays up to ACTIONS_PER_PULL actions of rank @r. */
static gboolean
ti_pull (PtiContext *ctx, guint r, gpointer data, gboolean *done, GError **error)
{
  TiReader *R = data;
  TiRank *t = &R->ranks[r];
  /* At least one event appended (actions may make none), or the end. */
  guint64 before = pti_wsl_rank_appended (ctx, r);
  for (guint k = 0; k < ACTIONS_PER_PULL || pti_wsl_rank_appended (ctx, r) == before; k++) {
    gboolean eof;
    if (!next_line (R, r, &eof, error))
      return FALSE;
    if (eof) {
      if (!t->finalized) {
        pti_replay_notes_add (R->notes, "ranks without finalize",
                              "the actions of these ranks end without finalize (a trace cut "
                              "short?); their pending requests complete at the end", 1);
        if (!wait_all (R, r, error))
          return FALSE;
      }
      *done = TRUE;
      return TRUE;
    }
    /* a line of another rank in a rank's own file: SimGrid skips it */
    gint64 first;
    if (!int_arg (R, 0, "rank", &first, error))
      return FALSE;
    if (first != r) {
      if (t->path == NULL)
        return ti_error (R, error, "a line of rank %" G_GINT64_FORMAT " read as rank %u's "
                         "(pti's mistake)", first, r);
      pti_replay_notes_add (R->notes, "lines of another rank in a rank's own file",
                            "skipped, as SimGrid does", 1);
      continue;
    }
    if (!replay_line (R, r, error))
      return FALSE;
    /* after finalize, the rank reads on to its end: anything more is a
     * mistake, reported by replay_line */
  }
  return TRUE;
}

/* ---- opening --------------------------------------------------------------------- */

static void
reader_free (TiReader *R)
{
  if (R == NULL)
    return;
  for (guint r = 0; R->ranks != NULL && r < R->n; r++) {
    TiRank *t = &R->ranks[r];
    if (t->fp != NULL)
      fclose (t->fp);
    g_free (t->path);
    g_queue_clear_full (&t->queue, qline_free);
    if (t->pending != NULL)
      g_array_unref (t->pending);
  }
  g_free (R->ranks);
  if (R->main != NULL)
    fclose (R->main);
  if (R->scan != NULL)
    fclose (R->scan);
  g_free (R->shared);
  g_free (R->open);
  if (R->line != NULL)
    g_string_free (R->line, TRUE);
  if (R->tok != NULL)
    g_ptr_array_unref (R->tok);
  if (R->sizes != NULL)
    g_array_unref (R->sizes);
  if (R->wild != NULL)
    g_hash_table_unref (R->wild);
  g_free (R);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TiReader, reader_free)

/* A path of the index: as given (from the current folder, as SimGrid opens
 * it), else from the index's folder (as SimGrid's converter does). */
static char *
resolve (const char *index, const char *name)
{
  if (g_path_is_absolute (name) || g_file_test (name, G_FILE_TEST_EXISTS))
    return g_strdup (name);
  g_autofree char *dir = g_path_get_dirname (index);
  char *there = g_build_filename (dir, name, NULL);
  if (g_file_test (there, G_FILE_TEST_EXISTS))
    return there;
  g_free (there);
  return g_strdup (name);
}

/* The index: one path a line (blank lines ignored). */
static gboolean
read_index (const char *path, GPtrArray *files, GError **error)
{
  FILE *fp = fopen (path, "r");
  if (fp == NULL) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_IO, "%s: cannot read: %s", path, g_strerror (errno));
    return FALSE;
  }
  g_autoptr (GString) line = g_string_new (NULL);
  guint64 no = 0;
  gboolean ok = TRUE;
  for (;;) {
    g_string_truncate (line, 0);
    gssize n = read_line (fp, line, path, ++no, error);
    if (n < 0) {
      ok = FALSE;
      break;
    }
    if (n == 0)
      break;
    g_strstrip (line->str);
    if (line->str[0] == '\0')
      continue;
    if (files->len >= G_MAXINT32) {
      g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s: too many ranks", path);
      ok = FALSE;
      break;
    }
    g_ptr_array_add (files, resolve (path, line->str));
  }
  fclose (fp);
  if (ok && files->len == 0) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s: an index of no action file", path);
    ok = FALSE;
  }
  return ok;
}

static void
wild_count (GHashTable *wild, gint64 rank, gint64 tag, gboolean sent)
{
  if (rank < 0 || rank > G_MAXINT32 || tag < G_MININT32 || tag > G_MAXINT32)
    return;
  guint64 key = WILD_KEY (rank, tag);
  Wild *w = g_hash_table_lookup (wild, &key);
  if (w == NULL) {
    w = g_new0 (Wild, 1);
    g_hash_table_insert (wild, g_memdup2 (&key, sizeof key), w);
  }
  if (sent)
    w->sent++;
  else
    w->named++;
}

/* One line of the survey: counts its point-to-point messages in @wild
 * (lines it cannot read are reported when they are replayed). */
static void
survey_line (GHashTable *wild, char *line)
{
  char *tok[8];
  guint n = 0;
  char *save = NULL;
  for (char *p = strtok_r (line, " \t\r\n", &save); p != NULL && n < G_N_ELEMENTS (tok);
       p = strtok_r (NULL, " \t\r\n", &save))
    tok[n++] = p;
  if (n < 4)
    return;
  const char *a = tok[1];
  gint64 me = g_ascii_strtoll (tok[0], NULL, 10), peer = g_ascii_strtoll (tok[2], NULL, 10);
  gboolean legacy = n == 4 || a[0] == 'I';   /* no tag: 0 */
  gint64 tag = legacy ? 0 : g_ascii_strtoll (tok[3], NULL, 10);
  if (strcmp (a, "send") == 0 || strcmp (a, "isend") == 0 || strcmp (a, "Isend") == 0
      || strcmp (a, "Ssend") == 0 || strcmp (a, "ISsend") == 0 || strcmp (a, "bsend") == 0
      || strcmp (a, "ibsend") == 0) {
    if (peer != TI_UNDEFINED)
      wild_count (wild, peer, tag, TRUE);
  } else if (strcmp (a, "recv") == 0 || strcmp (a, "irecv") == 0 || strcmp (a, "Irecv") == 0) {
    if (peer != TI_UNDEFINED)
      wild_count (wild, me, tag, FALSE);
  } else if (strcmp (a, "sendRecv") == 0 && n >= 6) {
    /* sendRecv SC DST RC SRC ...: tag 0 both ways */
    gint64 dst = g_ascii_strtoll (tok[3], NULL, 10), src = g_ascii_strtoll (tok[5], NULL, 10);
    if (dst != TI_UNDEFINED)
      wild_count (wild, dst, 0, TRUE);
    if (src != TI_UNDEFINED)
      wild_count (wild, me, 0, FALSE);
  }
}

/* One pass over @path, nothing kept but counts: the highest rank of its
 * lines (*max) and their number (*n_actions), for a shared file, and the
 * messages to each (rank, tag). */
static gboolean
survey (const char *path, guint rank, GHashTable *wild, gint64 *max, guint64 *n_actions,
        GError **error)
{
  FILE *fp = fopen (path, "r");
  if (fp == NULL) {
    if (max == NULL)   /* a file of the index: one rank's */
      g_set_error (error, PTI_ERROR, PTI_ERROR_IO, "%s: cannot read (the actions of rank %u): %s",
                   path, rank, g_strerror (errno));
    else
      g_set_error (error, PTI_ERROR, PTI_ERROR_IO, "%s: cannot read: %s", path, g_strerror (errno));
    return FALSE;
  }
  g_autoptr (GString) line = g_string_new (NULL);
  guint64 no = 0;
  gboolean ok = TRUE;
  for (;;) {
    g_string_truncate (line, 0);
    gssize len = read_line (fp, line, path, ++no, error);
    if (len < 0) {
      ok = FALSE;
      break;
    }
    if (len == 0)
      break;
    if (is_blank (line->str, len))
      continue;
    gint64 r = line_rank (line->str, len);
    if (max != NULL && (r < 0 || r >= G_MAXINT32)) {
      g_autofree char *first = g_strndup (line->str, MIN (len, 40));
      g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s:%" G_GUINT64_FORMAT ": '%s' does not "
                   "begin with a rank: a line is RANK ACTION [ARGUMENTS]", path, no,
                   g_strstrip (first));
      ok = FALSE;
      break;
    }
    if (max != NULL) {
      *max = MAX (*max, r);
      (*n_actions)++;
    }
    survey_line (wild, line->str);
  }
  fclose (fp);
  return ok;
}

gboolean
pti_replay_ti (PtiContext *ctx, const char *path, gboolean index, PtiReplayNotes *notes,
               GError **error)
{
  g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  if (index) {
    if (!read_index (path, files, error))
      return FALSE;
  } else {
    g_ptr_array_add (files, g_strdup (path));
  }
  g_autoptr (TiReader) R = g_new0 (TiReader, 1);
  R->ctx = ctx;
  R->notes = notes;
  R->line = g_string_new (NULL);
  R->tok = g_ptr_array_new ();
  R->sizes = g_array_new (FALSE, TRUE, sizeof (guint64));
  gboolean shared = files->len == 1;
  R->wild = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  if (shared) {
    R->shared = g_strdup (g_ptr_array_index (files, 0));
    gint64 max = -1;
    guint64 n_actions = 0;
    if (!survey (R->shared, 0, R->wild, &max, &n_actions, error))
      return FALSE;
    if (max < 0) {
      g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s: no action in the file", R->shared);
      return FALSE;
    }
    /* Every rank has its actions in the file (init and finalize at least,
     * as SMPI writes them): a rank number beyond the count of its lines is
     * a mistake, and would size the ranks' tables for nothing. */
    if ((guint64) max >= n_actions) {
      g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s: a line names rank %" G_GINT64_FORMAT
                   ", but the file holds %" G_GUINT64_FORMAT " action%s: ranks 0 to %"
                   G_GINT64_FORMAT " cannot all have theirs", R->shared, max, n_actions,
                   n_actions == 1 ? "" : "s", max);
      return FALSE;
    }
    R->n = (guint) (max + 1);
    R->main = fopen (R->shared, "r");
    R->scan = R->main ? fopen (R->shared, "r") : NULL;
    if (R->scan == NULL) {
      g_set_error (error, PTI_ERROR, PTI_ERROR_IO, "%s: cannot read: %s", R->shared,
                   g_strerror (errno));
      return FALSE;
    }
    R->main_line = 1;
  } else {
    R->n = files->len;
    for (guint r = 0; r < files->len; r++)
      if (!survey (g_ptr_array_index (files, r), r, R->wild, NULL, NULL, error))
        return FALSE;
  }
  /* what -333 receives are: messages left over by the named receives */
  GHashTableIter it;
  gpointer value;
  g_hash_table_iter_init (&it, R->wild);
  while (g_hash_table_iter_next (&it, NULL, &value)) {
    Wild *w = value;
    w->any_left = MAX (0, w->sent - w->named);
  }
  R->ranks = g_new0 (TiRank, R->n);
  for (guint r = 0; r < R->n; r++) {
    TiRank *t = &R->ranks[r];
    t->path = shared ? NULL : g_strdup (g_ptr_array_index (files, r));
    t->line = 1;
    t->last_seen = -1;
    t->dt_default = 1;
    t->pending = g_array_new (FALSE, FALSE, sizeof (Pending));
    g_queue_init (&t->queue);
  }
  /* files open at once: half the descriptors this process may have, at most 256 */
  struct rlimit rl;
  R->max_open = 64;
  if (getrlimit (RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
    R->max_open = (guint) CLAMP (rl.rlim_cur / 2, 8, 256);
  R->open = g_new (guint, R->max_open);

  g_autofree char *name = g_path_get_basename (path);
  pti_context_set_workload (ctx, name, path);
  if (!pti_context_set_processes (ctx, R->n, error)) {
    g_prefix_error (error, "%s: a trace of %u ranks: ", path, R->n);
    return FALSE;
  }
  /* the trace states each reduction's computation (its flops argument) */
  pti_coll_set_arithmetic (ctx, FALSE);
  /* The evaluation pulls each rank's actions as it needs them. */
  TiReader *reader = g_steal_pointer (&R);
  if (!pti_wsl_set_source (ctx, ti_pull, NULL, reader, (GDestroyNotify) reader_free, error)) {
    reader_free (reader);
    return FALSE;
  }
  return TRUE;
}
