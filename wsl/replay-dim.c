/* Dimemas .dim traces, replayed task by task (../shared/formats/dimemas.md
 * is the format; wsl/REPLAY.md how each record becomes WSL calls).
 *
 * Streaming.  The file is never loaded: its records are sorted by task and
 * thread, so each task's first record is found by a binary search over the
 * file (as Dimemas does without an offset table), and each task then keeps
 * the offset of its next record.  One file handle serves every task.
 *
 * Collectives.  A global-operation record says only this task's share: the
 * bytes it sends and receives and whether it is the root.  pti's algorithms
 * need the root on every rank, and the vector collectives every rank's
 * sizes: at such a record a task reads ahead in the other members' records
 * (each task has a scan offset, ahead of or at its replay offset, up to
 * which its collective records are registered) until the call's root or
 * sizes are known.  What is kept is one entry per collective call
 * registered and not yet made by every member.
 *
 * Every mistake names the file and line (counted only then, from the
 * start: offsets are what the reader keeps). */
#include "replay.h"
#include "coll-private.h"
#include "lines.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define LINE_LIMIT (16u << 20)
#define RECORDS_PER_PULL 64
#define MAX_FIELDS 64

typedef struct {
  gint64 id;               /* as in the trace */
  guint n;
  guint32 *tasks;          /* world ranks in communicator-rank order */
  gint32 *rank_of;         /* per task: its rank in this communicator, -1 if none */
  PtiComm *comm;           /* NULL: the world (every task in order) */
} DimComm;

/* One collective call of a communicator, between its first and last member. */
typedef struct {
  gint64 comm;             /* id */
  guint64 call;            /* its number among the communicator's calls */
  guint glop;
  gint root;               /* communicator rank of the root, -1 if not read yet */
  guint registered, made;  /* members that have read their record, made the call */
  guint64 *sent, *recv;    /* per communicator rank (vector collectives) */
} DimColl;

typedef struct {
  gint64 offset;           /* of its next record; -1 until found */
  gint64 start, end;       /* where its records begin, and the first line after them */
  gboolean done;
  GArray *irecvs;          /* Irecv waiting for their RTYPE 2 */
  GArray *isends;          /* requests of immediate sends (no record completes them) */
  GArray *icolls;          /* non-blocking collectives waiting for their SYNCH 2 */
  GHashTable *calls;       /* comm id -> collective calls made (guint64*) */
  gint64 scan;             /* of its next record not registered yet; -1 until found */
  GHashTable *scanned;     /* comm id -> collective calls registered (guint64*) */
} DimTask;

typedef struct {
  guint32 src;
  gint tag;
  gint64 comm;
  PtiRequest req;
} Irecv;

typedef struct {
  guint glop;
  gint64 comm;
  PtiRequest req;
} Icoll;

typedef struct {
  PtiContext *ctx;
  PtiReplayNotes *notes;
  char *path;
  FILE *fp;
  gint64 pos;              /* where fp is */
  gint64 data_start, data_end;  /* the records (data_end: the offset table or the end) */
  guint n;
  DimTask *tasks;
  GPtrArray *comms;        /* DimComm* */
  GHashTable *colls;       /* (comm, call) key string -> DimColl* */
  GString *line;
  gint64 line_offset;      /* of the record in line */
  char *field[MAX_FIELDS];
  guint n_fields;
  guint done;              /* tasks replayed to their end */
  GArray *sizes;           /* scratch */
} DimReader;

/* ---- errors and lines -------------------------------------------------------------- */

/* The line number of byte @offset: counted from the start (errors only). */
static guint64
line_of (DimReader *D, gint64 offset)
{
  FILE *fp = fopen (D->path, "rb");
  if (fp == NULL)
    return 0;
  guint64 line = 1;
  char buf[65536];
  gint64 at = 0;
  while (at < offset) {
    gsize want = (gsize) MIN ((gint64) sizeof buf, offset - at);
    gsize got = fread (buf, 1, want, fp);
    if (got == 0)
      break;
    for (gsize i = 0; i < got; i++)
      line += buf[i] == '\n';
    at += got;
  }
  fclose (fp);
  return line;
}

G_GNUC_PRINTF (4, 5) static gboolean
dim_error (DimReader *D, gint64 offset, GError **error, const char *format, ...)
{
  va_list ap;
  va_start (ap, format);
  g_autofree char *msg = g_strdup_vprintf (format, ap);
  va_end (ap);
  g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s:%" G_GUINT64_FORMAT ": %s", D->path,
               line_of (D, offset), msg);
  return FALSE;
}

/* The line at @offset into D->line (without its newline): its length with
 * the newline, 0 at the end. */
static gssize
read_at (DimReader *D, gint64 offset, GError **error)
{
  if (D->pos != offset) {
    if (fseeko (D->fp, offset, SEEK_SET) != 0) {
      g_set_error (error, PTI_ERROR, PTI_ERROR_IO, "%s: cannot seek: %s", D->path,
                   g_strerror (errno));
      return -1;
    }
    D->pos = offset;
  }
  g_string_truncate (D->line, 0);
  if (pti_line_read (D->fp, D->line, LINE_LIMIT, error) < 0) {
    if ((*error)->code == PTI_ERROR_IO)
      g_prefix_error (error, "%s: ", D->path);
    else
      g_prefix_error (error, "%s:%" G_GUINT64_FORMAT ": ", D->path, line_of (D, offset));
    return -1;
  }
  gssize n = (gssize) D->line->len;
  D->pos += n;
  D->line_offset = offset;
  while (D->line->len > 0 && (D->line->str[D->line->len - 1] == '\n'
                              || D->line->str[D->line->len - 1] == '\r'
                              || D->line->str[D->line->len - 1] == ' '))
    g_string_truncate (D->line, D->line->len - 1);
  return n;
}

/* Splits D->line at ':' into fields; FALSE if there are too many. */
static gboolean
split (DimReader *D)
{
  D->n_fields = 0;
  char *p = D->line->str;
  for (;;) {
    if (D->n_fields == MAX_FIELDS)
      return FALSE;
    D->field[D->n_fields++] = p;
    char *c = strchr (p, ':');
    if (c == NULL)
      return TRUE;
    *c = '\0';
    p = c + 1;
  }
}

static gboolean
int_field (DimReader *D, guint i, const char *what, gint64 *out, GError **error)
{
  const char *s = i < D->n_fields ? D->field[i] : NULL;
  char *end = NULL;
  *out = 0;   /* set on every path: GCC cannot see that dim_error returns FALSE */
  errno = 0;
  gint64 v = s ? g_ascii_strtoll (s, &end, 10) : 0;
  if (s == NULL || end == s || *end != '\0' || errno != 0)
    return dim_error (D, D->line_offset, error, "%s '%s' is not a whole number", what,
                      s ? s : "(missing)");
  *out = v;
  return TRUE;
}

static gboolean
bytes_field (DimReader *D, guint i, const char *what, guint64 *out, GError **error)
{
  gint64 v;
  if (!int_field (D, i, what, &v, error))
    return FALSE;
  if (v < 0)
    return dim_error (D, D->line_offset, error, "%s %" G_GINT64_FORMAT " is negative", what, v);
  *out = (guint64) v;
  return TRUE;
}

/* The task and thread of the record in D->line (split), G_MAXINT64 for the
 * offset table or anything after the records. */
static gint64
record_task (DimReader *D, gint64 *thread)
{
  *thread = 0;
  if (D->n_fields < 3 || strcmp (D->field[0], "s") == 0)
    return G_MAXINT64;
  char *end = NULL;
  gint64 t = g_ascii_strtoll (D->field[1], &end, 10);
  if (end == D->field[1] || *end != '\0')
    return G_MAXINT64;
  *thread = g_ascii_strtoll (D->field[2], NULL, 10);
  return t;
}

/* ---- finding a task's records ---------------------------------------------------------- */

/* The first line at or after byte @pos (a line start), and its task. */
static gboolean
probe (DimReader *D, gint64 pos, gint64 *line_start, gint64 *task, GError **error)
{
  gint64 at = pos;
  if (pos > D->data_start) {
    /* skip the rest of the line that holds byte pos - 1 */
    gssize n = read_at (D, pos - 1, error);
    if (n < 0)
      return FALSE;
    at = pos - 1 + n;
  }
  for (;;) {
    if (at >= D->data_end) {
      *line_start = D->data_end;
      *task = G_MAXINT64;
      return TRUE;
    }
    gssize n = read_at (D, at, error);
    if (n < 0)
      return FALSE;
    if (n == 0) {
      *line_start = D->data_end;
      *task = G_MAXINT64;
      return TRUE;
    }
    if (D->line->len == 0) {   /* empty lines between records */
      at += n;
      continue;
    }
    split (D);
    gint64 thread;
    *line_start = at;
    *task = record_task (D, &thread);
    return TRUE;
  }
}

/* Task @r's first record: the first line whose task is >= r. */
static gboolean
find_task (DimReader *D, guint r, GError **error)
{
  gint64 lo = D->data_start, hi = D->data_end;
  while (lo < hi) {
    gint64 mid = lo + (hi - lo) / 2, start, task;
    if (!probe (D, mid, &start, &task, error))
      return FALSE;
    if (task >= r)
      hi = mid;
    else
      lo = mid + 1;
  }
  gint64 start, task;
  if (!probe (D, lo, &start, &task, error))
    return FALSE;
  D->tasks[r].offset = D->tasks[r].start = start;
  return TRUE;
}

/* ---- communicators and collective calls ------------------------------------------------- */

static DimComm *
comm_of (DimReader *D, gint64 id)
{
  for (guint i = 0; i < D->comms->len; i++) {
    DimComm *c = g_ptr_array_index (D->comms, i);
    if (c->id == id)
      return c;
  }
  return NULL;
}

static gboolean
need_comm (DimReader *D, gint64 id, guint task, DimComm **out, GError **error)
{
  *out = comm_of (D, id);
  if (*out == NULL)
    return dim_error (D, D->line_offset, error, "communicator %" G_GINT64_FORMAT " is not "
                      "defined (a d:1 line of the header)", id);
  if ((*out)->rank_of[task] < 0)
    return dim_error (D, D->line_offset, error, "task %u is not a member of communicator %"
                      G_GINT64_FORMAT, task, id);
  return TRUE;
}

static void
dim_comm_free (gpointer data)
{
  DimComm *c = data;
  g_free (c->tasks);
  g_free (c->rank_of);
  g_free (c);
}

static void
dim_coll_free (gpointer data)
{
  DimColl *c = data;
  g_free (c->sent);
  g_free (c->recv);
  g_free (c);
}

static char *
coll_key (gint64 comm, guint64 call)
{
  return g_strdup_printf ("%" G_GINT64_FORMAT ":%" G_GUINT64_FORMAT, comm, call);
}

/* ---- records -------------------------------------------------------------------------------- */

/* Global operation ids (DimCollectiveOp): 0-15 blocking, 16-31 the same
 * non-blocking. */
static const char *const glop_names[16] = {
  "barrier", "bcast", "gather", "gatherv", "scatter", "scatterv", "allgather", "allgatherv",
  "alltoall", "alltoallv", "reduce", "allreduce", "reduce_scatter", "reduce_scatter_block",
  "scan", "alltoallw",
};

/* Collectives that need what other members' records say: the root, or
 * every member's sizes. */
static gboolean
glop_rooted (guint g)
{
  return g == 1 || g == 2 || g == 3 || g == 4 || g == 5 || g == 10;
}

static gboolean
glop_vector (guint g)
{
  return g == 3 || g == 5 || g == 7 || g == 9 || g == 12 || g == 15;
}

static gboolean
point_to_point (DimReader *D, guint r, gboolean send, GError **error)
{
  /* 2:T:TH:PEER_T:PEER_TH:SIZE:TAG:COMM:SYNC, or without PEER_TH */
  gboolean thread_field = D->n_fields >= 9;
  if (D->n_fields < 8)
    return dim_error (D, D->line_offset, error, "a %s record needs %s:T:TH:%s_T:[%s_TH:]SIZE:"
                      "TAG:COMM:%s", send ? "send" : "receive", send ? "2" : "3",
                      send ? "DEST" : "SRC", send ? "DEST" : "SRC", send ? "SYNC" : "RTYPE");
  guint f = thread_field ? 5 : 4;
  gint64 peer = 0, tag = 0, comm = 0, mode = 0;
  guint64 size = 0;
  if (!int_field (D, 3, send ? "destination task" : "source task", &peer, error)
      || !bytes_field (D, f, "size", &size, error) || !int_field (D, f + 1, "tag", &tag, error)
      || !int_field (D, f + 2, "communicator", &comm, error)
      || !int_field (D, f + 3, send ? "synchronism" : "receive type", &mode, error))
    return FALSE;
  DimComm *c;
  if (!need_comm (D, comm, r, &c, error))
    return FALSE;
  guint cpeer;
  if (!send && peer < 0) {
    cpeer = PTI_ANY_SOURCE;
  } else if (peer < 0 || peer >= D->n || c->rank_of[peer] < 0) {
    return dim_error (D, D->line_offset, error, "%s task %" G_GINT64_FORMAT " is not a task of "
                      "communicator %" G_GINT64_FORMAT, send ? "destination" : "source", peer,
                      comm);
  } else {
    cpeer = (guint) c->rank_of[peer];
  }
  if (tag < 0 || tag > G_MAXINT32) {
    if (send || tag != -1)
      return dim_error (D, D->line_offset, error, "tag %" G_GINT64_FORMAT " is not a tag >= 0",
                        tag);
  }
  gint ptag = tag < 0 ? PTI_ANY_TAG : (gint) tag;
  PtiContext *ctx = D->ctx;
  DimTask *t = &D->tasks[r];
  PtiRequest req;
  if (send) {
    if (mode < 0 || mode > 3)
      return dim_error (D, D->line_offset, error, "synchronism %" G_GINT64_FORMAT " is not 0 "
                        "(standard), 1 (synchronous), 2 (immediate) or 3 (immediate "
                        "synchronous)", mode);
    gboolean immediate = mode & 2, sync = mode & 1;
    if (!immediate)
      return sync ? pti_mpi_ssend_comm (ctx, c->comm, r, cpeer, size, ptag, error)
                  : pti_mpi_send_comm (ctx, c->comm, r, cpeer, size, ptag, error);
    if (!(sync ? pti_mpi_issend_comm (ctx, c->comm, r, cpeer, size, ptag, &req, error)
               : pti_mpi_isend_comm (ctx, c->comm, r, cpeer, size, ptag, &req, error)))
      return FALSE;
    g_array_append_val (t->isends, req);   /* completed at the end of the task */
    return TRUE;
  }
  switch (mode) {
  case 0:
    return pti_mpi_recv_comm (ctx, c->comm, r, cpeer, size, ptag, error);
  case 1: {
    if (!pti_mpi_irecv_comm (ctx, c->comm, r, cpeer, size, ptag, &req, error))
      return FALSE;
    Irecv ir = { (guint32) peer, (gint) tag, comm, req };
    g_array_append_val (t->irecvs, ir);
    return TRUE;
  }
  case 2:
    for (guint i = 0; i < t->irecvs->len; i++) {
      Irecv *ir = &g_array_index (t->irecvs, Irecv, i);
      if ((gint64) (gint32) ir->src == (gint64) (gint32) peer && ir->tag == (gint) tag
          && ir->comm == comm) {
        req = ir->req;
        g_array_remove_index (t->irecvs, i);
        return pti_mpi_wait (ctx, r, req, error);
      }
    }
    return dim_error (D, D->line_offset, error, "a wait (receive type 2) for a receive from task %"
                      G_GINT64_FORMAT " with tag %" G_GINT64_FORMAT " on communicator %"
                      G_GINT64_FORMAT " that no receive of type 1 posted", peer, tag, comm);
  default:
    return dim_error (D, D->line_offset, error, "receive type %" G_GINT64_FORMAT " is not 0 "
                      "(blocking), 1 (non-blocking) or 2 (wait)%s", mode,
                      mode == 3 ? "; type 3 (waitall) is defined by Dimemas but not handled "
                                  "by its simulator either" : "");
  }
}

/* Makes a collective whose every member's share is known. */
static gboolean
make_collective (DimReader *D, guint r, DimComm *c, DimColl *e, guint glop, gboolean nb,
                 gint64 synch, guint64 sent, guint64 recv, GError **error)
{
  PtiContext *ctx = D->ctx;
  const PtiComm *comm = c->comm;
  guint n = c->n;
  guint root = e->root < 0 ? 0 : (guint) e->root;
  guint me = (guint) c->rank_of[r];
  g_array_set_size (D->sizes, 2 * (gsize) n);
  guint64 *a = (guint64 *) D->sizes->data, *b = a + n;
  CollKind kind;
  guint64 bytes = 0;
  const guint64 *sendv = NULL, *recvv = NULL;
  switch (glop) {
  case 0: kind = COLL_BARRIER; break;
  case 1: kind = COLL_BCAST; bytes = MAX (sent, recv); break;
  /* A rank's block, from what either side of it says: a root may write
   * the whole vector it sends or receives, the others their block. */
  case 2: kind = COLL_GATHER; bytes = MAX (sent, recv / n); break;
  case 3: kind = COLL_GATHERV; bytes = sent; recvv = e->sent; break;
  case 4: kind = COLL_SCATTER; bytes = MAX (recv, sent / n); break;
  case 5: kind = COLL_SCATTERV; bytes = recv; sendv = e->recv; break;
  case 6: kind = COLL_ALLGATHER; bytes = MAX (sent, recv / n); break;
  case 7: kind = COLL_ALLGATHERV; recvv = e->sent; break;
  case 8: kind = COLL_ALLTOALL; bytes = MAX (sent, recv) / n; break;
  case 9:
  case 15: {
    /* only each member's totals are in the trace: what i sends j is taken
     * in proportion, sent_i x recv_j / (sum of recv), which sender and
     * receiver work out alike */
    kind = COLL_ALLTOALLV;
    long double total = 0;
    for (guint j = 0; j < n; j++)
      total += e->recv[j];
    for (guint j = 0; j < n; j++) {
      a[j] = total > 0 ? (guint64) floorl ((long double) e->sent[me] * e->recv[j] / total) : 0;
      b[j] = total > 0 ? (guint64) floorl ((long double) e->sent[j] * e->recv[me] / total) : 0;
    }
    sendv = a;
    recvv = b;
    pti_replay_notes_add (D->notes, glop == 9 ? "alltoallv" : "alltoallw",
                          "a .dim record has only each task's total: each pair's size is "
                          "taken in proportion to the sender's total and the receiver's", 1);
    break;
  }
  case 10: kind = COLL_REDUCE; bytes = MAX (sent, recv); break;
  case 11: kind = COLL_ALLREDUCE; bytes = MAX (sent, recv); break;
  case 12: kind = COLL_REDUCE_SCATTER; recvv = e->recv; break;
  case 13: kind = COLL_REDUCE_SCATTER_BLOCK; bytes = MAX (recv, sent / n); break;
  case 14: kind = COLL_SCAN; bytes = MAX (sent, recv); break;
  default: g_assert_not_reached ();
  }
  DimTask *t = &D->tasks[r];
  if (nb && synch != 1) {
    PtiRequest req;
    if (!pti_coll_istart (ctx, comm, kind, r, root, bytes, sendv, recvv, &req, error))
      return FALSE;
    Icoll ic = { glop, c->id, req };
    g_array_append_val (t->icolls, ic);
    return TRUE;
  }
  switch (kind) {
  case COLL_BARRIER: return pti_mpi_barrier_comm (ctx, comm, r, error);
  case COLL_BCAST: return pti_mpi_bcast_comm (ctx, comm, r, root, bytes, error);
  case COLL_GATHER: return pti_mpi_gather_comm (ctx, comm, r, root, bytes, error);
  case COLL_GATHERV: return pti_mpi_gatherv_comm (ctx, comm, r, root, bytes, recvv, error);
  case COLL_SCATTER: return pti_mpi_scatter_comm (ctx, comm, r, root, bytes, error);
  case COLL_SCATTERV: return pti_mpi_scatterv_comm (ctx, comm, r, root, sendv, bytes, error);
  case COLL_ALLGATHER: return pti_mpi_allgather_comm (ctx, comm, r, bytes, error);
  case COLL_ALLGATHERV: return pti_mpi_allgatherv_comm (ctx, comm, r, recvv, error);
  case COLL_ALLTOALL: return pti_mpi_alltoall_comm (ctx, comm, r, bytes, error);
  case COLL_ALLTOALLV: return pti_mpi_alltoallv_comm (ctx, comm, r, sendv, recvv, error);
  case COLL_REDUCE: return pti_mpi_reduce_comm (ctx, comm, r, root, bytes, error);
  case COLL_ALLREDUCE: return pti_mpi_allreduce_comm (ctx, comm, r, bytes, error);
  case COLL_REDUCE_SCATTER: return pti_mpi_reduce_scatter_comm (ctx, comm, r, recvv, error);
  case COLL_REDUCE_SCATTER_BLOCK:
    return pti_mpi_reduce_scatter_block_comm (ctx, comm, r, bytes, error);
  case COLL_SCAN: return pti_mpi_scan_comm (ctx, comm, r, bytes, error);
  default: g_assert_not_reached ();
  }
}

/* A global operation record, as read. */
typedef struct {
  gint64 glop, comm, is_root, synch;
  guint64 sent, recv;
} GlopRecord;

/* 10:T:TH:GLOP_ID:COMM:IS_ROOT:ROOT_TH:BYTES_SENT:BYTES_RECV[:SYNCH], from
 * D's fields. */
static gboolean
parse_glop (DimReader *D, GlopRecord *g, GError **error)
{
  if (D->n_fields < 9)
    return dim_error (D, D->line_offset, error, "a global operation record needs 10:T:TH:GLOP_ID:"
                      "COMM:IS_ROOT:ROOT_TH:BYTES_SENT:BYTES_RECV[:SYNCH]");
  *g = (GlopRecord) { .synch = 1 };
  if (!int_field (D, 3, "global operation", &g->glop, error)
      || !int_field (D, 4, "communicator", &g->comm, error)
      || !int_field (D, 5, "root flag", &g->is_root, error)
      || !bytes_field (D, 7, "bytes sent", &g->sent, error)
      || !bytes_field (D, 8, "bytes received", &g->recv, error)
      || (D->n_fields > 9 && !int_field (D, 9, "synchronism", &g->synch, error)))
    return FALSE;
  if (g->glop < 0 || g->glop > 31)
    return dim_error (D, D->line_offset, error, "global operation %" G_GINT64_FORMAT " is not one "
                      "of Dimemas' (0 to 15, and 16 to 31 their non-blocking forms)", g->glop);
  if (g->synch < 0 || g->synch > 2)
    return dim_error (D, D->line_offset, error, "synchronism %" G_GINT64_FORMAT " is not 0 (a "
                      "non-blocking start), 1 (blocking) or 2 (the wait of a non-blocking one)",
                      g->synch);
  return TRUE;
}

/* The counter of @table (comm id -> guint64*) for communicator @id. */
static guint64 *
call_counter (GHashTable *table, gint64 id)
{
  guint64 *n = g_hash_table_lookup (table, &id);
  if (n == NULL) {
    gint64 *key = g_new (gint64, 1);
    *key = id;
    n = g_new0 (guint64, 1);
    g_hash_table_insert (table, key, n);
  }
  return n;
}

/* Task @r's collective record @g (not a wait), its next call on its
 * communicator: what it says of the call goes into the call's entry. */
static gboolean
register_call (DimReader *D, guint r, const GlopRecord *g, GError **error)
{
  DimComm *c;
  if (!need_comm (D, g->comm, r, &c, error))
    return FALSE;
  guint me = (guint) c->rank_of[r];
  guint gl = (guint) g->glop % 16;
  guint64 k = (*call_counter (D->tasks[r].scanned, c->id))++;
  g_autofree char *key = coll_key (c->id, k);
  DimColl *e = g_hash_table_lookup (D->colls, key);
  if (e == NULL) {
    e = g_new0 (DimColl, 1);
    *e = (DimColl) { .comm = c->id, .call = k, .glop = gl, .root = -1 };
    e->sent = g_new0 (guint64, c->n);
    e->recv = g_new0 (guint64, c->n);
    g_hash_table_insert (D->colls, g_steal_pointer (&key), e);
  }
  if (e->glop != gl)
    return dim_error (D, D->line_offset, error, "call #%" G_GUINT64_FORMAT " on communicator %"
                      G_GINT64_FORMAT " is %s here but %s for another task: every member "
                      "must make the same collective calls", k + 1, c->id, glop_names[gl],
                      glop_names[e->glop]);
  e->sent[me] = g->sent;
  e->recv[me] = g->recv;
  if (g->is_root) {
    if (e->root >= 0 && (guint) e->root != me)
      return dim_error (D, D->line_offset, error, "call #%" G_GUINT64_FORMAT " on communicator %"
                        G_GINT64_FORMAT " (%s) has two roots: tasks %u and %u", k + 1,
                        c->id, glop_names[gl], c->tasks[e->root], r);
    e->root = (gint) me;
  }
  e->registered++;
  if (glop_rooted (gl) && e->root < 0 && e->registered == c->n)
    return dim_error (D, D->line_offset, error, "call #%" G_GUINT64_FORMAT " on communicator %"
                      G_GINT64_FORMAT " (%s) has no root: every member's record has been "
                      "read and none has IS_ROOT 1", k + 1, c->id, glop_names[gl]);
  return TRUE;
}

/* Reads task @r's records ahead, from its scan offset, registering its
 * collective calls, until it has registered call @k on communicator @comm;
 * *@reached FALSE if its records end first.  Other records are checked when
 * they are replayed. */
static gboolean
scan_to (DimReader *D, guint r, gint64 comm, guint64 k, gboolean *reached, GError **error)
{
  DimTask *t = &D->tasks[r];
  if (t->offset < 0 && !find_task (D, r, error))
    return FALSE;
  if (t->scan < 0)
    t->scan = t->offset;
  guint64 *n_calls = call_counter (t->scanned, comm);
  while (*n_calls <= k) {
    gssize n = t->scan >= D->data_end ? 0 : read_at (D, t->scan, error);
    if (n < 0)
      return FALSE;
    if (n == 0)
      break;
    if (D->line->len == 0) {
      t->scan += n;
      continue;
    }
    if (!split (D))
      return dim_error (D, t->scan, error, "more than %u fields", MAX_FIELDS);
    gint64 thread, op;
    gint64 task = record_task (D, &thread);
    if (task != r)
      break;   /* its end (anything else is reported when it is replayed) */
    GlopRecord g;
    if (thread == 0 && int_field (D, 0, "record type", &op, NULL) && op == 10) {
      if (!parse_glop (D, &g, error))
        return FALSE;
      if (g.synch != 2 && !register_call (D, r, &g, error))
        return FALSE;
    }
    t->scan += n;
  }
  *reached = *n_calls > k;
  return TRUE;
}

/* Replays a global operation record of task @r (in D's fields). */
static gboolean
global_op (DimReader *D, guint r, GError **error)
{
  GlopRecord rec;
  if (!parse_glop (D, &rec, error))
    return FALSE;
  gint64 at = D->line_offset;
  gboolean nb = rec.glop >= 16 || rec.synch != 1;
  guint g = (guint) rec.glop % 16;
  DimTask *t = &D->tasks[r];
  if (rec.synch == 2) {
    /* the wait of an earlier non-blocking start of this operation */
    for (guint i = 0; i < t->icolls->len; i++) {
      Icoll *ic = &g_array_index (t->icolls, Icoll, i);
      if (ic->glop == g && ic->comm == rec.comm) {
        PtiRequest req = ic->req;
        g_array_remove_index (t->icolls, i);
        return pti_mpi_wait (D->ctx, r, req, error);
      }
    }
    return dim_error (D, at, error, "the wait (synchronism 2) of a non-blocking %s "
                      "on communicator %" G_GINT64_FORMAT " that none started", glop_names[g],
                      rec.comm);
  }
  DimComm *c;
  if (!need_comm (D, rec.comm, r, &c, error))
    return FALSE;
  guint64 *made = call_counter (t->calls, c->id);
  guint64 k = *made;
  /* This record is registered by the task's own scan, which reaches it now
   * if it has not gone past it yet; then the other members' scans go on
   * until the call's root (or every member's sizes) is known. */
  gboolean reached;
  if (!scan_to (D, r, c->id, k, &reached, error))
    return FALSE;
  g_autofree char *key = coll_key (c->id, k);
  DimColl *e = g_hash_table_lookup (D->colls, key);
  if (!reached || e == NULL)
    return dim_error (D, at, error, "pti's mistake: call #%" G_GUINT64_FORMAT " of task %u on "
                      "communicator %" G_GINT64_FORMAT " is not registered", k + 1, r, c->id);
  gboolean need_all = glop_vector (g) || g == 2;
  for (guint i = 0; i < c->n; i++) {
    if ((!glop_rooted (g) || e->root >= 0) && (!need_all || e->registered == c->n))
      break;
    guint m = c->tasks[i];
    if (m == r)
      continue;
    if (!scan_to (D, m, c->id, k, &reached, error))
      return FALSE;
    if (!reached)
      return dim_error (D, at, error, "call #%" G_GUINT64_FORMAT " on communicator %"
                        G_GINT64_FORMAT " (%s): task %u's records end before it makes that "
                        "call: every member must make the same collective calls", k + 1, c->id,
                        glop_names[g], m);
  }
  (*made)++;
  D->line_offset = at;
  gboolean ok = make_collective (D, r, c, e, g, nb, rec.synch, rec.sent, rec.recv, error);
  if (++e->made == c->n)
    g_hash_table_remove (D->colls, key);
  return ok;
}

/* The end of a task: what nothing in the trace completes is completed. */
static gboolean
end_task (DimReader *D, guint r, GError **error)
{
  DimTask *t = &D->tasks[r];
  if (t->irecvs->len > 0 || t->icolls->len > 0) {
    Irecv *ir = t->irecvs->len ? &g_array_index (t->irecvs, Irecv, 0) : NULL;
    if (ir != NULL)
      g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s: task %u ends with a receive from "
                   "task %d (tag %d, communicator %" G_GINT64_FORMAT ") posted and never waited "
                   "for (receive type 2)", D->path, r, (gint) ir->src, ir->tag, ir->comm);
    else
      g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s: task %u ends with a non-blocking %s "
                   "started and never waited for (synchronism 2)", D->path, r,
                   glop_names[g_array_index (t->icolls, Icoll, 0).glop]);
    return FALSE;
  }
  t->done = TRUE;
  if (t->isends->len == 0)
    return TRUE;
  gboolean ok = pti_mpi_waitall (D->ctx, r, t->isends->len, (PtiRequest *) t->isends->data, error);
  g_array_set_size (t->isends, 0);
  return ok;
}

static gboolean check_order (DimReader *D, GError **error);

static gboolean
dim_pull (PtiContext *ctx, guint r, gpointer data, gboolean *done, GError **error)
{
  DimReader *D = data;
  DimTask *t = &D->tasks[r];
  if (t->offset < 0 && !find_task (D, r, error))
    return FALSE;
  /* At least one event appended (records may make none), or the end. */
  guint64 before = pti_wsl_rank_appended (ctx, r);
  for (guint k = 0; k < RECORDS_PER_PULL || pti_wsl_rank_appended (ctx, r) == before;) {
    gint64 at = t->offset;
    gssize n = at >= D->data_end ? 0 : read_at (D, at, error);
    if (n < 0)
      return FALSE;
    if (n == 0) {
      *done = TRUE;
      t->end = at;
      return end_task (D, r, error) && (++D->done < D->n || check_order (D, error));
    }
    if (D->line->len == 0) {
      t->offset = at + n;
      continue;
    }
    if (!split (D))
      return dim_error (D, at, error, "more than %u fields", MAX_FIELDS);
    gint64 thread;
    gint64 task = record_task (D, &thread);
    if (task == G_MAXINT64 && strcmp (D->field[0], "s") != 0)
      return dim_error (D, at, error, "'%.40s' is not a record (OP:TASK:THREAD:...)",
                        D->field[0]);
    if (task > r) {
      *done = TRUE;
      t->end = at;
      return end_task (D, r, error) && (++D->done < D->n || check_order (D, error));
    }
    if (task < r)
      return dim_error (D, at, error, "a record of task %" G_GINT64_FORMAT " after task %u's: "
                        "records must be sorted by task, then thread", task, r);
    gint64 op;
    if (!int_field (D, 0, "record type", &op, error))
      return FALSE;
    if (thread != 0) {
      /* pti gives a task one thread: MPI's, the first */
      t->offset = at + n;
      pti_replay_notes_add (D->notes, "records of threads other than 0",
                            "pti replays one thread a task (the one that makes its MPI calls)",
                            1);
      continue;
    }
    gboolean ok = TRUE, made = TRUE;
    switch (op) {
    case 0:   /* nothing to do */
      made = FALSE;
      break;
    case 1: {
      double s = 0;
      char *end = NULL;
      const char *f = D->n_fields > 3 ? D->field[3] : NULL;
      s = f ? g_ascii_strtod (f, &end) : NAN;
      if (f == NULL || end == f || *end != '\0' || !isfinite (s) || s < 0)
        return dim_error (D, at, error, "CPU burst '%s' is not a time in seconds >= 0",
                          f ? f : "(missing)");
      ok = pti_use_time (ctx, r, s, error);
      break;
    }
    case 2:
    case 3:
      ok = point_to_point (D, r, op == 2, error);
      break;
    case 10:
      ok = global_op (D, r, error);
      break;
    case 11:
      pti_replay_notes_add (D->notes, "GPU bursts", "accelerator kernels: pti has no model for "
                            "them (their time is left out)", 1);
      made = FALSE;
      break;
    case 20:
      made = FALSE;   /* Paraver events: annotations, no time */
      break;
    default:
      return dim_error (D, at, error, "record type %" G_GINT64_FORMAT " is not one of Dimemas' "
                        "(0 nothing, 1 CPU burst, 2 send, 3 receive, 10 global operation, 11 GPU "
                        "burst, 20 event)", op);
    }
    if (!ok) {
      if (error != NULL && *error != NULL && !g_str_has_prefix ((*error)->message, D->path))
        g_prefix_error (error, "%s:%" G_GUINT64_FORMAT ": ", D->path, line_of (D, at));
      return FALSE;
    }
    t->offset = at + n;
    k += made;
  }
  return TRUE;
}

/* ---- the header ----------------------------------------------------------------------------- */

/* #DIMEMAS:"NAME":OFFSETS:NTASKS(NTH,...),NCOMMS[,...] (NAME unquoted in
 * Extrae's dialect). */
static gboolean
parse_header (DimReader *D, char **name, guint *ncomms, GError **error)
{
  const char *p = D->line->str;
  if (!g_str_has_prefix (p, "#DIMEMAS:"))
    return dim_error (D, 0, error, "not a Dimemas trace: it must begin with #DIMEMAS:");
  p += strlen ("#DIMEMAS:");
  const char *end;
  if (*p == '"') {
    end = strchr (p + 1, '"');
    if (end == NULL || end == p + 1)
      return dim_error (D, 0, error, "the header's application name is not a non-empty quoted "
                        "name");
    *name = g_strndup (p + 1, end - p - 1);
    p = end + 1;
  } else {
    end = strchr (p, ':');
    if (end == NULL)
      return dim_error (D, 0, error, "the header has no fields after the name");
    *name = g_strndup (p, end - p);
    p = end;
  }
  if (*p != ':')
    return dim_error (D, 0, error, "':' expected after the application name");
  p++;
  /* OFFSETS: 0, or 1,BYTE (only the records' order matters here) */
  char *e = NULL;
  gint64 offsets = g_ascii_strtoll (p, &e, 10);
  if (e == p || (offsets != 0 && offsets != 1))
    return dim_error (D, 0, error, "the offsets field must be 0 or 1,BYTE");
  p = e;
  if (offsets == 1) {
    if (*p != ',')
      return dim_error (D, 0, error, "the offsets field must be 0 or 1,BYTE");
    p++;
    g_ascii_strtoll (p, &e, 10);
    if (e == p)
      return dim_error (D, 0, error, "the offsets field must be 0 or 1,BYTE");
    p = e;
  }
  if (*p != ':')
    return dim_error (D, 0, error, "':' expected after the offsets field");
  p++;
  gint64 ntasks = g_ascii_strtoll (p, &e, 10);
  if (e == p || ntasks < 1 || ntasks > G_MAXINT32 || *e != '(')
    return dim_error (D, 0, error, "NTASKS(THREADS,...) expected, with NTASKS >= 1");
  p = e + 1;
  for (gint64 i = 0; i < ntasks; i++) {
    gint64 th = g_ascii_strtoll (p, &e, 10);
    if (e == p || th < 1)
      return dim_error (D, 0, error, "task %" G_GINT64_FORMAT "'s thread count is not a whole "
                        "number >= 1", i);
    p = e;
    if (*p != (i + 1 < ntasks ? ',' : ')'))
      return dim_error (D, 0, error, "%" G_GINT64_FORMAT " thread counts expected in NTASKS(...)",
                        ntasks);
    p++;
  }
  if (*p != ',')
    return dim_error (D, 0, error, "',NCOMMS' expected after the tasks");
  p++;
  gint64 nc = g_ascii_strtoll (p, &e, 10);
  if (e == p || nc < 0 || nc > 65535)
    return dim_error (D, 0, error, "NCOMMS is not a whole number from 0 to 65535");
  D->n = (guint) ntasks;
  *ncomms = (guint) nc;
  return TRUE;   /* accelerator and OpenMP counts after it do not matter here */
}

/* d:1:ID:N:t_0:...:t_N-1 */
static gboolean
parse_comm (DimReader *D, gint64 at, GError **error)
{
  gint64 kind, id, n;
  if (!int_field (D, 1, "definition type", &kind, error))
    return FALSE;
  if (kind != 1) {
    pti_replay_notes_add (D->notes, kind == 2 ? "file definitions" : "window definitions",
                          "reserved by Dimemas, not used", 1);
    return TRUE;
  }
  if (!int_field (D, 2, "communicator id", &id, error) || !int_field (D, 3, "task count", &n, error))
    return FALSE;
  if (n < 1 || n > D->n || D->n_fields != 4 + (guint) n)
    return dim_error (D, at, error, "communicator %" G_GINT64_FORMAT ": %" G_GINT64_FORMAT " tasks "
                      "announced, %u listed (of %u in the trace)", id, n, D->n_fields - 4, D->n);
  if (comm_of (D, id) != NULL)
    return dim_error (D, at, error, "communicator %" G_GINT64_FORMAT " is defined twice", id);
  DimComm *c = g_new0 (DimComm, 1);
  c->id = id;
  c->n = (guint) n;
  c->tasks = g_new (guint32, n);
  c->rank_of = g_new (gint32, D->n);
  g_ptr_array_add (D->comms, c);
  for (guint i = 0; i < D->n; i++)
    c->rank_of[i] = -1;
  gboolean world = n == D->n;
  for (guint i = 0; i < n; i++) {
    gint64 task;
    if (!int_field (D, 4 + i, "task", &task, error))
      return FALSE;
    if (task < 0 || task >= D->n || c->rank_of[task] >= 0)
      return dim_error (D, at, error, "communicator %" G_GINT64_FORMAT ": task %" G_GINT64_FORMAT
                        " is %s", id, task, task < 0 || task >= D->n ? "not a task of the trace"
                                                                       : "listed twice");
    c->tasks[i] = (guint32) task;
    c->rank_of[task] = (gint32) i;
    world = world && task == i;
  }
  if (world)
    return TRUE;   /* the world's own communicator: c->comm NULL */
  g_autofree char *name = g_strdup_printf ("communicator %" G_GINT64_FORMAT, id);
  c->comm = pti_comm_create (D->ctx, NULL, name, c->n, c->tasks, error);
  if (c->comm == NULL) {
    g_prefix_error (error, "%s:%" G_GUINT64_FORMAT ": ", D->path, line_of (D, at));
    return FALSE;
  }
  return TRUE;
}

static void
reader_free (DimReader *D)
{
  if (D == NULL)
    return;
  for (guint r = 0; D->tasks != NULL && r < D->n; r++) {
    DimTask *t = &D->tasks[r];
    g_array_unref (t->irecvs);
    g_array_unref (t->isends);
    g_array_unref (t->icolls);
    g_hash_table_unref (t->calls);
    g_hash_table_unref (t->scanned);
  }
  g_free (D->tasks);
  if (D->fp != NULL)
    fclose (D->fp);
  g_free (D->path);
  if (D->comms != NULL)
    g_ptr_array_unref (D->comms);
  if (D->colls != NULL)
    g_hash_table_unref (D->colls);
  if (D->line != NULL)
    g_string_free (D->line, TRUE);
  if (D->sizes != NULL)
    g_array_unref (D->sizes);
  g_free (D);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (DimReader, reader_free)

gboolean
pti_replay_dimemas (PtiContext *ctx, const char *path, PtiReplayNotes *notes, GError **error)
{
  g_autoptr (DimReader) D = g_new0 (DimReader, 1);
  D->ctx = ctx;
  D->notes = notes;
  D->path = g_strdup (path);
  D->line = g_string_new (NULL);
  D->sizes = g_array_new (FALSE, TRUE, sizeof (guint64));
  D->comms = g_ptr_array_new_with_free_func (dim_comm_free);
  D->colls = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, dim_coll_free);
  D->fp = fopen (path, "rb");
  if (D->fp == NULL) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_IO, "%s: cannot read: %s", path, g_strerror (errno));
    return FALSE;
  }
  if (fseeko (D->fp, 0, SEEK_END) != 0) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_IO, "%s: cannot seek: %s", path, g_strerror (errno));
    return FALSE;
  }
  D->data_end = ftello (D->fp);
  D->pos = -1;
  gssize n = read_at (D, 0, error);
  if (n < 0)
    return FALSE;
  g_autofree char *name = NULL;
  guint ncomms = 0;
  if (!parse_header (D, &name, &ncomms, error))
    return FALSE;
  pti_context_set_workload (ctx, name, path);
  if (!pti_context_set_processes (ctx, D->n, error)) {
    g_prefix_error (error, "%s: a trace of %u tasks: ", path, D->n);
    return FALSE;
  }
  /* definitions, up to the first record */
  gint64 at = n;
  for (;;) {
    n = read_at (D, at, error);
    if (n < 0)
      return FALSE;
    if (n == 0 || !g_str_has_prefix (D->line->str, "d:")) {
      if (n > 0 && D->line->len == 0) {
        at += n;
        continue;
      }
      break;
    }
    split (D);
    if (!parse_comm (D, at, error))
      return FALSE;
    at += n;
  }
  D->data_start = at;
  guint defined = 0;
  for (guint i = 0; i < D->comms->len; i++)
    defined++;
  if (defined != ncomms)
    return dim_error (D, at, error, "the header announces %u communicator%s but %u are defined",
                      ncomms, ncomms == 1 ? "" : "s", defined);
  D->tasks = g_new0 (DimTask, D->n);
  for (guint r = 0; r < D->n; r++) {
    DimTask *t = &D->tasks[r];
    t->offset = -1;
    t->irecvs = g_array_new (FALSE, FALSE, sizeof (Irecv));
    t->isends = g_array_new (FALSE, FALSE, sizeof (PtiRequest));
    t->icolls = g_array_new (FALSE, FALSE, sizeof (Icoll));
    t->calls = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
    t->scan = -1;
    t->scanned = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  }
  /* The evaluation pulls each task's records as it needs them. */
  DimReader *reader = g_steal_pointer (&D);
  if (!pti_wsl_set_source (ctx, dim_pull, NULL, reader, (GDestroyNotify) reader_free, error)) {
    reader_free (reader);
    return FALSE;
  }
  return TRUE;
}

/* Once every task is replayed.  Each task was found by a binary search,
 * which trusts the order: every line must belong to exactly one task's
 * run, one after the other, and the last be followed by the offset table
 * or nothing. */
static gboolean
check_order (DimReader *D, GError **error)
{
  gint64 expect, task;
  if (!probe (D, D->data_start, &expect, &task, error))
    return FALSE;
  for (guint r = 0; r < D->n; r++) {
    if (D->tasks[r].start != expect) {
      g_autofree char *where = r == 0 ? g_strdup ("after the definitions")
                                      : g_strdup_printf ("where task %u's end", r - 1);
      return dim_error (D, MIN (expect, D->tasks[r].start), error, "the records are not sorted "
                        "by task (or a line is not a record): task %u's records do not begin "
                        "%s", r, where);
    }
    expect = D->tasks[r].end;
  }
  if (expect < D->data_end) {
    if (read_at (D, expect, error) < 0)
      return FALSE;
    split (D);
    gint64 thread;
    if (strcmp (D->field[0], "s") != 0 || record_task (D, &thread) != G_MAXINT64)
      return dim_error (D, expect, error, "'%.40s' after the last task's records: records "
                        "must be sorted by task, then thread", D->line->str);
  }
  return TRUE;
}
