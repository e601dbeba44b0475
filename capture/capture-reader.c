/* Reader of pticapture traces: capture-reader.h, capture/FORMAT.md. */
#include "capture-reader.h"
#include "region-hooks.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

G_DEFINE_QUARK (pti-capture-error-quark, pti_capture_error)

#define CHUNK 4096
#define DEFAULT_MAX_OPEN 64

/* ---- the code table ---- */

typedef struct {
  const char *name;
  PtiCaptureLayout layout;
  int flags;
  gboolean known;
} CallInfo;

static CallInfo calls[PTI_CAPTURE_CODE_MAX];

static void
calls_init (void)
{
  static gsize once;
  if (g_once_init_enter (&once)) {
#define FILL(code, nm, lay, fl) calls[code] = (CallInfo) { "MPI_" #nm, PTI_L_##lay, fl, TRUE };
    PTI_CAPTURE_CALLS (FILL)
#undef FILL
#define FILL(code, nm, lay, fl) calls[code] = (CallInfo) { #nm, PTI_L_##lay, fl, TRUE };
    PTI_CAPTURE_POSIX_CALLS (FILL)
#undef FILL
    g_once_init_leave (&once, 1);
  }
}

const char *
pti_capture_call_name (guint code)
{
  calls_init ();
  return code < PTI_CAPTURE_CODE_MAX && calls[code].known && code != PTI_C_generic
           ? calls[code].name : NULL;
}

const char *
pti_capture_signal_name (guint sig)
{
  static const struct { int sig; const char *name; } names[] = {
    { SIGSEGV, "SIGSEGV" }, { SIGBUS, "SIGBUS" }, { SIGABRT, "SIGABRT" }, { SIGFPE, "SIGFPE" },
    { SIGILL, "SIGILL" }, { SIGTERM, "SIGTERM" }, { SIGINT, "SIGINT" }, { SIGQUIT, "SIGQUIT" },
    { SIGHUP, "SIGHUP" }, { SIGPIPE, "SIGPIPE" }, { SIGXCPU, "SIGXCPU" }, { SIGUSR1, "SIGUSR1" },
    { SIGUSR2, "SIGUSR2" }, { SIGKILL, "SIGKILL" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (names); i++)
    if ((guint) names[i].sig == sig)
      return names[i].name;
  return "signal";
}

/* ---- structures ---- */

struct _PtiCaptureTrace {
  char *dir;
  guint n_ranks;
  PtiCaptureHeader *headers;
  guint max_open, n_open;
  guint64 tick;
  GPtrArray *open_ranks;        /* PtiCaptureRank with an fd */
};

typedef struct {
  PtiCaptureComm comm;
  gboolean used;
} CommSlot;

struct _PtiCaptureRank {
  PtiCaptureTrace *trace;
  char *path, *label;
  int fd;
  guint64 lru;
  guint64 pos;                  /* next file offset to read */
  gboolean in_block, blk_partial;
  guint64 blk_len, blk_loaded, blk_payload_off, blk_declared;
  guint32 blk_crc, crc;
  guint8 *buf;
  gsize cap, len, off;          /* buf[off, len): loaded, not yet decoded */
  guint32 crc_table[256];
  gboolean crc_hw;              /* SSE4.2's crc32 instruction */

  PtiCaptureHeader header;
  gboolean header_read;
  GPtrArray *names;             /* char *, by id - 1 */
  GPtrArray *comms;             /* PtiCaptureComm *, by id - 1 */
  GHashTable *requests;         /* id -> PtiCaptureRequest */
  GPtrArray *dead;              /* requests completed by the last call, freed at the next */
  guint64 last_req;
  guint8 *rep[PTI_CAPTURE_CODE_MAX];
  guint8 rep_len[PTI_CAPTURE_CODE_MAX];   /* 0: none; else length + 1 */
  gboolean pending_error;
  gint error_code;
  guint64 calls, t_end;
  guint last_code;
  guint32 last_name;
  PtiCaptureEnd end;
  gboolean finished;
  GError *final_error;          /* repeated by next() after the end */

  GArray *completions, *scounts, *rcounts, *dims, *periods;
  char *file_name;              /* the last open's name (MPI_File_open 1.2, open 1.3) */
  /* The last two calls (last[1] the newer), for REPEAT: their events, with
   * their own copy of the requests; chain: call records since the last
   * record of another kind (at most 2). */
  struct {
    PtiCaptureEvent ev;
    GArray *reqs;
    gboolean repeatable;
  } last[2];
  guint chain;
  PtiCaptureEvent pending;      /* a REPEAT's second element, yielded next */
  gboolean has_pending;
  /* regions (format 1.1) */
  GPtrArray *def[3];            /* names by id: regions, counters, assertions */
  GArray *assert_region;        /* guint by assertion id */
  GPtrArray *assert_test;
  GArray *open_regions;         /* guint: the region stack */
  PtiCaptureMark mark;
  GArray *mark_values;
  char *mark_name;
  PtiCaptureMarkFunc mark_func;
  gpointer mark_data;
  PtiCaptureComm newcomm;       /* decoded, added when the call is applied */
  GArray *new_members, *new_remote;
};

/* ---- a cursor over loaded bytes ---- */

typedef enum { CUR_OK, CUR_SHORT, CUR_BAD } CurState;

typedef struct {
  const guint8 *p, *start, *end;
  guint64 block_left;           /* bytes of the block from start on, loaded or not */
  CurState state;
  const char *why;
} Cur;

static gboolean
cur_bad (Cur *c, const char *why)
{
  if (c->state == CUR_OK) {
    c->state = CUR_BAD;
    c->why = why;
  }
  return FALSE;
}

static gboolean
cur_short (Cur *c)
{
  if (c->state == CUR_OK)
    c->state = (guint64) (c->end - c->start) < c->block_left ? CUR_SHORT : CUR_BAD;
  if (c->state == CUR_BAD && c->why == NULL)
    c->why = "record runs past the end of its block";
  return FALSE;
}

static gboolean
get_u (Cur *c, guint64 *v)
{
  guint64 x = 0;
  for (int i = 0; i < 10; i++) {
    if (c->p >= c->end)
      return cur_short (c);
    guint8 b = *c->p++;
    if (i == 9 && b > 1)
      return cur_bad (c, "varint over 64 bits");
    x |= (guint64) (b & 0x7f) << (7 * i);
    if (!(b & 0x80)) {
      *v = x;
      return TRUE;
    }
  }
  return cur_bad (c, "varint over 64 bits");
}

static gboolean
get_s (Cur *c, gint64 *v)
{
  guint64 u;
  if (!get_u (c, &u))
    return FALSE;
  *v = pti_capture_unzigzag (u);
  return TRUE;
}

static gboolean
get_u32 (Cur *c, guint32 *v, guint64 max, const char *what)
{
  guint64 u;
  if (!get_u (c, &u))
    return FALSE;
  if (u > max)
    return cur_bad (c, what);
  *v = (guint32) u;
  return TRUE;
}

static gboolean
get_s32 (Cur *c, gint32 *v, const char *what)
{
  gint64 s;
  if (!get_s (c, &s))
    return FALSE;
  if (s < G_MININT32 || s > G_MAXINT32)
    return cur_bad (c, what);
  *v = (gint32) s;
  return TRUE;
}

/* How many elements of at least one byte each can still follow. */
static gboolean
check_count (Cur *c, guint64 n)
{
  guint64 left = c->block_left - (guint64) (c->p - c->start);
  if (n > left)
    return cur_bad (c, "list longer than its block");
  return TRUE;
}

static gboolean
get_string (Cur *c, char **out)
{
  guint64 n;
  if (!get_u (c, &n))
    return FALSE;
  if (n > PTI_CAPTURE_STRING_MAX)
    return cur_bad (c, "string longer than 65536 bytes");
  if (!check_count (c, n))
    return FALSE;
  if ((guint64) (c->end - c->p) < n)
    return cur_short (c);
  *out = g_strndup ((const char *) c->p, n);
  c->p += n;
  return TRUE;
}

/* list: n, first as varint, then svarint deltas; into @out (guint64 or gint32). */
static gboolean
get_list_u64 (Cur *c, GArray *out)
{
  guint64 n;
  g_array_set_size (out, 0);
  if (!get_u (c, &n) || !check_count (c, n))
    return FALSE;
  guint64 prev = 0;
  for (guint64 i = 0; i < n; i++) {
    guint64 v;
    if (i == 0) {
      if (!get_u (c, &v))
        return FALSE;
    } else {
      gint64 d;
      if (!get_s (c, &d))
        return FALSE;
      v = prev + (guint64) d;
      if ((d < 0 && v > prev) || (d > 0 && v < prev))
        return cur_bad (c, "list value out of range");
    }
    g_array_append_val (out, v);
    prev = v;
  }
  return TRUE;
}

/* ---- errors ---- */

static gboolean
rank_corrupt (PtiCaptureRank *r, GError **error, guint64 offset, const char *fmt, ...)
  G_GNUC_PRINTF (4, 5);

static gboolean
rank_corrupt (PtiCaptureRank *r, GError **error, guint64 offset, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *what = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (error, PTI_CAPTURE_ERROR, PTI_CAPTURE_ERROR_CORRUPT,
               "%s (%s): offset %" G_GUINT64_FORMAT ", after call %" G_GUINT64_FORMAT ": %s",
               r->label, r->path, offset, r->calls, what);
  return FALSE;
}

static const char *
last_call_name (PtiCaptureRank *r)
{
  if (r->calls == 0)
    return NULL;
  if (r->last_code == PTI_C_generic)
    return r->last_name >= 1 && r->last_name <= r->names->len
             ? g_ptr_array_index (r->names, r->last_name - 1) : "an MPI function";
  return pti_capture_call_name (r->last_code);
}

static char *
after_call (PtiCaptureRank *r)
{
  if (r->calls == 0)
    return g_strdup ("before any MPI call was recorded");
  return g_strdup_printf ("after call %" G_GUINT64_FORMAT " (%s)", r->calls, last_call_name (r));
}

/* The file ended without END. */
static gboolean
rank_cut (PtiCaptureRank *r, GError **error)
{
  g_autofree char *where = after_call (r);
  r->end.seen = FALSE;
  r->end.last_call = r->calls;
  r->end.last_name = last_call_name (r);
  if (r->calls > 0 && r->last_code == PTI_C_Finalize)
    g_set_error (error, PTI_CAPTURE_ERROR, PTI_CAPTURE_ERROR_INCOMPLETE,
                 "%s: trace ends %s without its END record: the program was killed as it "
                 "finished", r->label, where);
  else
    g_set_error (error, PTI_CAPTURE_ERROR, PTI_CAPTURE_ERROR_INCOMPLETE,
                 "%s: trace ends %s without MPI_Finalize: the program crashed or was killed",
                 r->label, where);
  return FALSE;
}

static gboolean
rank_ended_early (PtiCaptureRank *r, GError **error)
{
  g_autofree char *where = after_call (r);
  PtiCaptureEnd *e = &r->end;
  if (e->how == PTI_END_SIGNAL) {
    g_autofree char *in = e->in_code == 0
      ? g_strdup ("during computation")
      : g_strdup_printf ("in %s", e->in_name ? e->in_name : "an MPI call");
    g_set_error (error, PTI_CAPTURE_ERROR, PTI_CAPTURE_ERROR_INCOMPLETE,
                 "%s: the program was stopped by signal %u (%s) %s, %s: the trace is incomplete",
                 r->label, e->signal, pti_capture_signal_name (e->signal), in, where);
  } else if (e->how == PTI_END_ABORT)
    g_set_error (error, PTI_CAPTURE_ERROR, PTI_CAPTURE_ERROR_INCOMPLETE,
                 "%s: the program called MPI_Abort (error code %" G_GINT64_FORMAT ") at call %"
                 G_GUINT64_FORMAT ": the trace is incomplete", r->label, e->errorcode, r->calls);
  else if (e->in_code != 0)
    g_set_error (error, PTI_CAPTURE_ERROR, PTI_CAPTURE_ERROR_INCOMPLETE,
                 "%s: the program exited in %s (an error handler that ends the program?), %s: "
                 "the trace is incomplete", r->label, e->in_name ? e->in_name : "an MPI call",
                 where);
  else
    g_set_error (error, PTI_CAPTURE_ERROR, PTI_CAPTURE_ERROR_INCOMPLETE,
                 "%s: the program exited without calling MPI_Finalize, %s: the trace is incomplete",
                 r->label, where);
  return FALSE;
}

/* ---- file access: pread, at most max_open descriptors per trace ---- */

static gboolean
rank_fd (PtiCaptureRank *r, GError **error)
{
  if (r->trace != NULL)
    r->lru = ++r->trace->tick;
  if (r->fd >= 0)
    return TRUE;
  PtiCaptureTrace *t = r->trace;
  if (t != NULL && t->n_open >= t->max_open) {
    PtiCaptureRank *oldest = NULL;
    guint at = 0;
    for (guint i = 0; i < t->open_ranks->len; i++) {
      PtiCaptureRank *o = g_ptr_array_index (t->open_ranks, i);
      if (oldest == NULL || o->lru < oldest->lru) {
        oldest = o;
        at = i;
      }
    }
    close (oldest->fd);
    oldest->fd = -1;
    g_ptr_array_remove_index_fast (t->open_ranks, at);
    t->n_open--;
  }
  r->fd = open (r->path, O_RDONLY | O_CLOEXEC);
  if (r->fd < 0) {
    int e = errno;
    g_set_error (error, PTI_CAPTURE_ERROR,
                 e == ENOENT ? PTI_CAPTURE_ERROR_MISSING : PTI_CAPTURE_ERROR_IO,
                 "%s: cannot open %s: %s", r->label, r->path, g_strerror (e));
    return FALSE;
  }
  if (t != NULL) {
    g_ptr_array_add (t->open_ranks, r);
    t->n_open++;
  }
  return TRUE;
}

/* Reads up to @n bytes at r->pos; returns how many (0 at the end). */
static gboolean
rank_read (PtiCaptureRank *r, void *dst, gsize n, gsize *got, GError **error)
{
  if (!rank_fd (r, error))
    return FALSE;
  gsize done = 0;
  while (done < n) {
    ssize_t k = pread (r->fd, (guint8 *) dst + done, n - done, (off_t) (r->pos + done));
    if (k < 0) {
      if (errno == EINTR)
        continue;
      int e = errno;
      g_set_error (error, PTI_CAPTURE_ERROR, PTI_CAPTURE_ERROR_IO, "%s: cannot read %s: %s",
                   r->label, r->path, g_strerror (e));
      return FALSE;
    }
    if (k == 0)
      break;
    done += (gsize) k;
  }
  r->pos += done;
  *got = done;
  return TRUE;
}

/* Starts the next block; *eof at a clean end of file (or a cut header). */
static gboolean
block_start (PtiCaptureRank *r, gboolean *eof, gboolean *cut, GError **error)
{
  guint8 hdr[8];
  gsize got;
  guint64 at = r->pos;
  *eof = *cut = FALSE;
  if (!rank_read (r, hdr, 8, &got, error))
    return FALSE;
  if (got == 0) {
    *eof = TRUE;
    return TRUE;
  }
  if (got < 8) {
    *cut = TRUE;
    return TRUE;
  }
  guint32 len = hdr[0] | hdr[1] << 8 | hdr[2] << 16 | (guint32) hdr[3] << 24;
  r->blk_crc = hdr[4] | hdr[5] << 8 | hdr[6] << 16 | (guint32) hdr[7] << 24;
  if (len == 0 || len > PTI_CAPTURE_BLOCK_MAX)
    return rank_corrupt (r, error, at, "block length %u (1 to %u)", len, PTI_CAPTURE_BLOCK_MAX);
  r->in_block = TRUE;
  r->blk_partial = FALSE;
  r->blk_len = r->blk_declared = len;
  r->blk_loaded = 0;
  r->blk_payload_off = r->pos;
  r->crc = 0;
  r->off = r->len = 0;
  return TRUE;
}

/* Loads more of the current block, keeping buf[off, len). */
static gboolean
block_load (PtiCaptureRank *r, GError **error)
{
  if (r->off > 0) {
    memmove (r->buf, r->buf + r->off, r->len - r->off);
    r->len -= r->off;
    r->off = 0;
  }
  if (r->len == r->cap) {
    r->cap *= 2;
    r->buf = g_realloc (r->buf, r->cap);
  }
  gsize want = MIN (r->cap - r->len, r->blk_len - r->blk_loaded);
  gsize got;
  if (!rank_read (r, r->buf + r->len, want, &got, error))
    return FALSE;
  r->crc = pti_capture_crc32c (r->crc, r->buf + r->len, got, r->crc_table, r->crc_hw);
  r->len += got;
  r->blk_loaded += got;
  if (got < want) {   /* the file ends inside this block */
    r->blk_partial = TRUE;
    r->blk_len = r->blk_loaded;
  }
  return TRUE;
}

static Cur
cur_make (PtiCaptureRank *r)
{
  Cur c = { .p = r->buf + r->off, .start = r->buf + r->off, .end = r->buf + r->len,
            .block_left = r->blk_len - (r->blk_loaded - (r->len - r->off)) };
  return c;
}

/* ---- communicators and requests ---- */

static const PtiCaptureComm *
comm_get (PtiCaptureRank *r, guint32 id)
{
  if (id == 0 || id > r->comms->len)
    return NULL;
  return g_ptr_array_index (r->comms, id - 1);
}

const PtiCaptureComm *
pti_capture_rank_comm (PtiCaptureRank *r, guint32 id)
{
  return comm_get (r, id);
}

static gboolean
get_comm (PtiCaptureRank *r, Cur *c, guint32 *id, gboolean allow_null)
{
  guint64 v;
  if (!get_u (c, &v))
    return FALSE;
  if (v == 0 && allow_null) {
    *id = 0;
    return TRUE;
  }
  const PtiCaptureComm *cm = v <= G_MAXUINT32 ? comm_get (r, (guint32) v) : NULL;
  if (cm == NULL)
    return cur_bad (c, "communicator id that no record introduced");
  if (cm->freed)
    return cur_bad (c, "communicator used after MPI_Comm_free");
  *id = (guint32) v;
  return TRUE;
}

/* World rank of @peer on communicator @id (negative specials pass through). */
static gboolean
to_world (PtiCaptureRank *r, Cur *c, guint32 id, gint32 peer, gint32 *world)
{
  if (peer < 0 || id == 0) {
    *world = peer;
    if (peer < PTI_PEER_ROOT)
      return cur_bad (c, "negative rank that is none of ANY_SOURCE, PROC_NULL, ROOT");
    return TRUE;
  }
  const PtiCaptureComm *cm = comm_get (r, id);
  guint n = cm->inter ? cm->n_remote : cm->n_members;
  if ((guint) peer >= n)
    return cur_bad (c, "rank outside its communicator");
  const gint32 *m = cm->inter ? cm->remote : cm->members;
  *world = m != NULL ? m[peer] : peer;   /* NULL: MPI_COMM_WORLD */
  return TRUE;
}

static PtiCaptureComm *
comm_new (guint32 id, guint64 key, guint n, const gint32 *members)
{
  PtiCaptureComm *cm = g_new0 (PtiCaptureComm, 1);
  cm->id = id;
  cm->key = key;
  cm->n_members = n;
  cm->members = members != NULL ? g_memdup2 (members, n * sizeof (gint32)) : NULL;
  return cm;
}

static void
comm_free (gpointer p)
{
  PtiCaptureComm *cm = p;
  g_free (cm->members);
  g_free (cm->remote);
  g_free (cm);
}

/* newcomm without its leading flag, into r->newcomm. */
static gboolean
get_newcomm (PtiCaptureRank *r, Cur *c)
{
  if ((guint64) (c->end - c->p) < 8)
    return c->block_left - (guint64) (c->p - c->start) < 8 ? cur_bad (c, "key cut short")
                                                            : cur_short (c);
  guint64 key = 0;
  for (int i = 0; i < 8; i++)
    key |= (guint64) c->p[i] << (8 * i);
  c->p += 8;
  guint64 inter;
  if (!get_u (c, &inter))
    return FALSE;
  if (inter > 1)
    return cur_bad (c, "inter flag not 0 or 1");
  GArray *lists[2] = { r->new_members, r->new_remote };
  g_array_set_size (r->new_remote, 0);
  for (guint k = 0; k < 1 + inter; k++) {
    g_autoptr (GArray) v = g_array_new (FALSE, FALSE, sizeof (guint64));
    if (!get_list_u64 (c, v))
      return FALSE;
    g_array_set_size (lists[k], v->len);
    for (guint i = 0; i < v->len; i++) {
      guint64 w = g_array_index (v, guint64, i);
      if (w > r->header.size)   /* = size: a process outside MPI_COMM_WORLD */
        return cur_bad (c, "member beyond the world size");
      g_array_index (lists[k], gint32, i) = (gint32) w;
    }
  }
  r->newcomm.id = r->comms->len + 1;
  r->newcomm.key = key;
  r->newcomm.inter = inter != 0;
  r->newcomm.n_members = r->new_members->len;
  r->newcomm.members = (gint32 *) (void *) r->new_members->data;
  r->newcomm.n_remote = r->new_remote->len;
  r->newcomm.remote = (gint32 *) (void *) r->new_remote->data;
  return TRUE;
}

static void
comm_add_new (PtiCaptureRank *r)
{
  PtiCaptureComm *cm = comm_new (r->newcomm.id, r->newcomm.key, r->newcomm.n_members,
                                 r->newcomm.members);
  cm->inter = r->newcomm.inter;
  cm->n_remote = r->newcomm.n_remote;
  if (cm->inter)
    cm->remote = g_memdup2 (r->newcomm.remote, cm->n_remote * sizeof (gint32));
  g_ptr_array_add (r->comms, cm);
}

/* A request ref into a completion entry (not yet done). */
static gboolean
get_ref (PtiCaptureRank *r, Cur *c, PtiCaptureCompletion *e)
{
  guint64 v;
  memset (e, 0, sizeof *e);
  if (!get_u (c, &v))
    return FALSE;
  if (v == PTI_REQ_REF_NULL)
    return TRUE;
  if (v == PTI_REQ_REF_UNTRACKED) {
    e->request = G_MAXUINT64;
    return TRUE;
  }
  if (v - 2 >= r->last_req)
    return cur_bad (c, "request ref before the first request");
  e->request = r->last_req + 2 - v;
  e->info = g_hash_table_lookup (r->requests, &e->request);
  if (e->info == NULL)
    return cur_bad (c, "request ref to a request already completed or freed");
  return TRUE;
}

/* status (FORMAT.md 5.1) into @e; @posted_*: what to report when the status
 * does not carry them. */
static gboolean
get_status (PtiCaptureRank *r, Cur *c, PtiCaptureCompletion *e, guint32 comm, gint32 posted_src,
            gint32 posted_tag)
{
  guint64 flags;
  if (!get_u (c, &flags))
    return FALSE;
  if (flags > 31)
    return cur_bad (c, "unknown status flags");
  e->done = TRUE;
  e->empty = (flags & PTI_ST_EMPTY) != 0;
  e->cancelled = (flags & PTI_ST_CANCELLED) != 0;
  e->source = posted_src;
  e->tag = posted_tag;
  if ((flags & PTI_ST_SOURCE) && !get_s32 (c, &e->source, "source out of range"))
    return FALSE;
  if ((flags & PTI_ST_TAG) && !get_s32 (c, &e->tag, "tag out of range"))
    return FALSE;
  e->has_bytes = (flags & PTI_ST_BYTES) != 0;
  if (e->has_bytes && !get_u (c, &e->bytes))
    return FALSE;
  if (!e->has_bytes) {
    e->source = e->source_world = PTI_PEER_NULL;
    e->tag = 0;
    return TRUE;
  }
  return to_world (r, c, comm, e->source, &e->source_world);
}

/* A completion of a request with a ref: posted values from its creation. */
static gboolean
get_req_status (PtiCaptureRank *r, Cur *c, PtiCaptureCompletion *e)
{
  const PtiCaptureRequest *q = e->info;
  return get_status (r, c, e, q ? q->comm : 0, q ? q->peer : PTI_PEER_NULL, q ? q->tag : 0);
}

/* ---- args and results by layout ---- */

static gboolean
get_peer (PtiCaptureRank *r, Cur *c, gint32 *peer)
{
  (void) r;
  return get_s32 (c, peer, "rank out of range");
}

static gboolean
get_refs (PtiCaptureRank *r, Cur *c)
{
  guint64 n;
  if (!get_u (c, &n) || !check_count (c, n))
    return FALSE;
  g_array_set_size (r->completions, n);
  for (guint64 i = 0; i < n; i++)
    if (!get_ref (r, c, &g_array_index (r->completions, PtiCaptureCompletion, i)))
      return FALSE;
  return TRUE;
}

/* The name of an open (MPI_File_open, open), valid until the next one. */
static gboolean
get_file_name (PtiCaptureRank *r, Cur *c, PtiCaptureEvent *ev)
{
  g_clear_pointer (&r->file_name, g_free);
  if (!get_string (c, &r->file_name))
    return FALSE;
  if (strlen (r->file_name) > PTI_CAPTURE_FILE_NAME_MAX)
    return cur_bad (c, "file name longer than 1024 bytes");
  ev->file_name = r->file_name;
  return TRUE;
}

static gboolean
decode_args (PtiCaptureRank *r, Cur *c, PtiCaptureEvent *ev)
{
  g_array_set_size (r->completions, 0);
  g_array_set_size (r->scounts, 0);
  g_array_set_size (r->rcounts, 0);
  guint64 u;
  switch (ev->layout) {
  case PTI_L_GENERIC:
    if (!get_u32 (c, &r->last_name, G_MAXUINT32, "name id"))
      return FALSE;
    if (r->last_name == 0 || r->last_name > r->names->len)
      return cur_bad (c, "name id that no NAME record defined");
    ev->name = g_ptr_array_index (r->names, r->last_name - 1);
    return TRUE;
  case PTI_L_NONE:
    return TRUE;
  case PTI_L_INIT_THREAD:
    return get_u (c, &u) && (ev->value = (gint64) MIN (u, 3), TRUE);
  case PTI_L_ABORT:
    return get_comm (r, c, &ev->comm, TRUE) && get_s (c, &ev->value);
  case PTI_L_SEND:
  case PTI_L_RECV:
  case PTI_L_POST_RECV:
    return get_peer (r, c, &ev->peer) && get_s32 (c, &ev->tag, "tag out of range")
           && get_u (c, &ev->bytes) && get_comm (r, c, &ev->comm, FALSE)
           && to_world (r, c, ev->comm, ev->peer, &ev->peer_world);
  case PTI_L_SENDRECV:
    return get_peer (r, c, &ev->peer) && get_s32 (c, &ev->tag, "tag out of range")
           && get_u (c, &ev->bytes) && get_peer (r, c, &ev->rpeer)
           && get_s32 (c, &ev->rtag, "tag out of range") && get_u (c, &ev->rbytes)
           && get_comm (r, c, &ev->comm, FALSE)
           && to_world (r, c, ev->comm, ev->peer, &ev->peer_world)
           && to_world (r, c, ev->comm, ev->rpeer, &ev->rpeer_world);
  case PTI_L_PROBE:
  case PTI_L_IPROBE:
    return get_peer (r, c, &ev->peer) && get_s32 (c, &ev->tag, "tag out of range")
           && get_comm (r, c, &ev->comm, FALSE)
           && to_world (r, c, ev->comm, ev->peer, &ev->peer_world);
  case PTI_L_MRECV:
  case PTI_L_MPOST:
    return get_u (c, &ev->bytes);
  case PTI_L_WAIT:
  case PTI_L_TEST:
  case PTI_L_START:
  case PTI_L_REQUEST:
    g_array_set_size (r->completions, 1);
    return get_ref (r, c, &g_array_index (r->completions, PtiCaptureCompletion, 0));
  case PTI_L_WAITALL:
  case PTI_L_WAITANY:
  case PTI_L_WAITSOME:
  case PTI_L_TESTALL:
  case PTI_L_TESTANY:
  case PTI_L_STARTALL:
    return get_refs (r, c);
  case PTI_L_BARRIER:
    return get_comm (r, c, &ev->comm, FALSE);
  case PTI_L_BCAST:
    return get_u (c, &ev->bytes) && get_peer (r, c, &ev->peer)
           && get_comm (r, c, &ev->comm, FALSE)
           && to_world (r, c, ev->comm, ev->peer, &ev->peer_world);
  case PTI_L_REDUCE:
    return get_u (c, &u) && (ev->in_place = u != 0, TRUE) && get_u (c, &ev->bytes)
           && get_u32 (c, &ev->op, G_MAXUINT32, "op") && get_peer (r, c, &ev->peer)
           && get_comm (r, c, &ev->comm, FALSE)
           && to_world (r, c, ev->comm, ev->peer, &ev->peer_world);
  case PTI_L_ALLREDUCE:
    return get_u (c, &u) && (ev->in_place = u != 0, TRUE) && get_u (c, &ev->bytes)
           && get_u32 (c, &ev->op, G_MAXUINT32, "op") && get_comm (r, c, &ev->comm, FALSE);
  case PTI_L_REDUCE_LOCAL:
    return get_u (c, &ev->bytes) && get_u32 (c, &ev->op, G_MAXUINT32, "op");
  case PTI_L_GATHER:
    return get_u (c, &u) && (ev->in_place = u != 0, TRUE) && get_u (c, &ev->bytes)
           && get_u (c, &ev->rbytes) && get_peer (r, c, &ev->peer)
           && get_comm (r, c, &ev->comm, FALSE)
           && to_world (r, c, ev->comm, ev->peer, &ev->peer_world);
  case PTI_L_ALLGATHER:
    return get_u (c, &u) && (ev->in_place = u != 0, TRUE) && get_u (c, &ev->bytes)
           && get_u (c, &ev->rbytes) && get_comm (r, c, &ev->comm, FALSE);
  case PTI_L_GATHERV:
    return get_u (c, &u) && (ev->in_place = u != 0, TRUE) && get_u (c, &ev->bytes)
           && get_list_u64 (c, r->rcounts) && get_peer (r, c, &ev->peer)
           && get_comm (r, c, &ev->comm, FALSE)
           && to_world (r, c, ev->comm, ev->peer, &ev->peer_world);
  case PTI_L_SCATTERV:
    return get_u (c, &u) && (ev->in_place = u != 0, TRUE) && get_list_u64 (c, r->scounts)
           && get_u (c, &ev->rbytes) && get_peer (r, c, &ev->peer)
           && get_comm (r, c, &ev->comm, FALSE)
           && to_world (r, c, ev->comm, ev->peer, &ev->peer_world);
  case PTI_L_ALLGATHERV:
    return get_u (c, &u) && (ev->in_place = u != 0, TRUE) && get_u (c, &ev->bytes)
           && get_list_u64 (c, r->rcounts) && get_comm (r, c, &ev->comm, FALSE);
  case PTI_L_ALLTOALLV:
    return get_u (c, &u) && (ev->in_place = u != 0, TRUE) && get_list_u64 (c, r->scounts)
           && get_list_u64 (c, r->rcounts) && get_comm (r, c, &ev->comm, FALSE);
  case PTI_L_REDUCE_SCATTER:
    return get_u (c, &u) && (ev->in_place = u != 0, TRUE)
           && get_u32 (c, &ev->op, G_MAXUINT32, "op") && get_list_u64 (c, r->rcounts)
           && get_comm (r, c, &ev->comm, FALSE);
  case PTI_L_REDUCE_SCATTER_BLOCK:
    return get_u (c, &u) && (ev->in_place = u != 0, TRUE) && get_u (c, &ev->rbytes)
           && get_u32 (c, &ev->op, G_MAXUINT32, "op") && get_comm (r, c, &ev->comm, FALSE);
  case PTI_L_COMM_NEW:
  case PTI_L_COMM:
    return get_comm (r, c, &ev->comm, FALSE);
  case PTI_L_COMM_SPLIT:
    return get_comm (r, c, &ev->comm, FALSE) && get_s (c, &ev->color) && get_s (c, &ev->key);
  case PTI_L_COMM_CREATE_GROUP:
    return get_comm (r, c, &ev->comm, FALSE) && get_s32 (c, &ev->tag, "tag out of range");
  case PTI_L_CART_CREATE:
    if (!get_comm (r, c, &ev->comm, FALSE) || !get_u (c, &u) || !check_count (c, 2 * u))
      return FALSE;
    g_array_set_size (r->dims, u);
    g_array_set_size (r->periods, u);
    for (guint64 i = 0; i < u; i++)
      if (!get_u (c, &g_array_index (r->dims, guint64, i)))
        return FALSE;
    for (guint64 i = 0; i < u; i++)
      if (!get_u (c, &g_array_index (r->periods, guint64, i)))
        return FALSE;
    ev->ndims = (guint) u;
    ev->dims = (const guint64 *) (void *) r->dims->data;
    ev->periods = (const guint64 *) (void *) r->periods->data;
    return get_u (c, &u) && (ev->value = u != 0, TRUE);
  case PTI_L_INTERCOMM_CREATE: {
    gint32 ll, rl;
    return get_comm (r, c, &ev->comm, FALSE) && get_peer (r, c, &ll)
           && (ev->value2 = ll, get_comm (r, c, &ev->comm2, TRUE)) && get_peer (r, c, &rl)
           && (ev->peer = rl, get_s32 (c, &ev->tag, "tag out of range"));
  }
  case PTI_L_INTERCOMM_MERGE:
    return get_comm (r, c, &ev->comm, FALSE) && get_s (c, &ev->value);
  case PTI_L_OP_CREATE:
    return get_u (c, &u) && (ev->value = u != 0, TRUE);
  case PTI_L_OP:
    return get_u32 (c, &ev->op, G_MAXUINT32, "op");
  case PTI_L_FILE_OPEN:
    return get_comm (r, c, &ev->comm, FALSE) && get_u (c, &ev->file)
           && get_file_name (r, c, ev);
  case PTI_L_FILE:
    return get_u (c, &ev->file);
  case PTI_L_FILE_ACCESS:
    return get_u (c, &ev->file) && get_u (c, &ev->offset) && get_u (c, &ev->bytes);
  case PTI_L_POSIX_OPEN:
    if (!get_u (c, &ev->file) || !get_u (c, &u))
      return FALSE;
    if (u > PTI_OPEN_FLAGS_ALL)
      return cur_bad (c, "unknown open flags");
    ev->value = (gint64) u;
    return get_file_name (r, c, ev);
  case PTI_L_POSIX_ACCESS:
    /* bytes asked for in @value, until the result says what moved */
    if (!get_u (c, &ev->file) || !get_u (c, &ev->offset) || !get_u (c, &u))
      return FALSE;
    if (u > G_MAXINT64)
      return cur_bad (c, "byte count out of range");
    ev->value = (gint64) u;
    return TRUE;
  }
  return cur_bad (c, "unknown layout");
}

static gboolean
get_index (Cur *c, guint n, guint64 *index)
{
  if (!get_u (c, index))
    return FALSE;
  if (*index > n)
    return cur_bad (c, "index beyond the requests of the call");
  return TRUE;
}

static gboolean
decode_result (PtiCaptureRank *r, Cur *c, PtiCaptureEvent *ev)
{
  if (ev->layout == PTI_L_POSIX_ACCESS) {
    if (!get_u (c, &ev->bytes))
      return FALSE;
    if (ev->bytes > (guint64) ev->value)
      return cur_bad (c, "more bytes transferred than asked for");
    return TRUE;
  }
  guint64 u, idx;
  guint n = r->completions->len;
  PtiCaptureCompletion *cs = (PtiCaptureCompletion *) (void *) r->completions->data;
  switch (ev->layout) {
  case PTI_L_INIT_THREAD:
    return get_u (c, &u) && (ev->value2 = (gint64) MIN (u, 3), TRUE);
  case PTI_L_RECV:
    ev->has_status = TRUE;
    return get_status (r, c, &ev->status, ev->comm, ev->peer, ev->tag);
  case PTI_L_SENDRECV:
    ev->has_status = TRUE;
    return get_status (r, c, &ev->status, ev->comm, ev->rpeer, ev->rtag);
  case PTI_L_PROBE:
    ev->has_status = TRUE;
    return get_status (r, c, &ev->status, ev->comm, ev->peer, ev->tag);
  case PTI_L_IPROBE:
    if (!get_u (c, &u))
      return FALSE;
    ev->flag = u != 0;
    ev->has_status = ev->flag;
    return !ev->flag || get_status (r, c, &ev->status, ev->comm, ev->peer, ev->tag);
  case PTI_L_MRECV:
    ev->has_status = TRUE;
    return get_status (r, c, &ev->status, 0, PTI_PEER_NULL, 0);
  case PTI_L_WAIT:
    return get_req_status (r, c, &cs[0]);
  case PTI_L_WAITALL:
    for (guint i = 0; i < n; i++)
      if (!get_req_status (r, c, &cs[i]))
        return FALSE;
    return TRUE;
  case PTI_L_WAITANY:
    if (!get_index (c, n, &idx))
      return FALSE;
    ev->flag = idx > 0;
    return idx == 0 || get_req_status (r, c, &cs[idx - 1]);
  case PTI_L_WAITSOME:
    if (!get_index (c, n + 1, &u))
      return FALSE;
    ev->flag = u > 1;
    for (guint64 k = 0; u > 0 && k < u - 1; k++) {
      if (!get_u (c, &idx))
        return FALSE;
      if (idx >= n)
        return cur_bad (c, "index beyond the requests of the call");
      if (cs[idx].done)
        return cur_bad (c, "request completed twice in one call");
      if (!get_req_status (r, c, &cs[idx]))
        return FALSE;
    }
    return TRUE;
  case PTI_L_TEST:
    if (!get_u (c, &u))
      return FALSE;
    ev->flag = u != 0;
    return !ev->flag || get_req_status (r, c, &cs[0]);
  case PTI_L_TESTALL:
    if (!get_u (c, &u))
      return FALSE;
    ev->flag = u != 0;
    for (guint i = 0; ev->flag && i < n; i++)
      if (!get_req_status (r, c, &cs[i]))
        return FALSE;
    return TRUE;
  case PTI_L_TESTANY:
    if (!get_index (c, n, &idx) || !get_u (c, &u))
      return FALSE;
    ev->flag = u != 0;
    return idx == 0 || get_req_status (r, c, &cs[idx - 1]);
  case PTI_L_COMM_NEW:
  case PTI_L_COMM_SPLIT:
  case PTI_L_COMM_CREATE_GROUP:
  case PTI_L_CART_CREATE:
  case PTI_L_INTERCOMM_CREATE:
  case PTI_L_INTERCOMM_MERGE:
    if (!get_u (c, &u))
      return FALSE;
    if (u > 1)
      return cur_bad (c, "newcomm flag not 0 or 1");
    ev->has_newcomm = TRUE;
    return u == 0 || get_newcomm (r, c);
  default:
    return TRUE;
  }
}

/* ---- records ---- */

static void
event_reset (PtiCaptureEvent *ev)
{
  memset (ev, 0, sizeof *ev);
  ev->count = 1;
  ev->peer = ev->peer_world = ev->rpeer = ev->rpeer_world = PTI_PEER_NULL;
}

static gboolean
decode_header (PtiCaptureRank *r, Cur *c, PtiCaptureHeader *h)
{
  guint64 v, n;
  memset (h, 0, sizeof *h);
  if (!get_string (c, &h->writer) || !get_u32 (c, &h->rank, G_MAXINT32, "rank")
      || !get_u32 (c, &h->size, G_MAXINT32, "size") || !get_u (c, &h->pid)
      || !get_string (c, &h->host) || !get_u (c, &v))
    return FALSE;
  if (h->size == 0 || h->rank >= h->size)
    return cur_bad (c, "rank not below the world size");
  h->cpu = v > 0 && v <= G_MAXINT32 ? (gint) v - 1 : -1;
  if (!get_string (c, &h->affinity) || !get_u32 (c, &h->mpi_major, 1000, "MPI version")
      || !get_u32 (c, &h->mpi_minor, 1000, "MPI version") || !get_string (c, &h->library)
      || !get_u32 (c, &h->thread_required, 3, "thread level")
      || !get_u32 (c, &h->thread_provided, 3, "thread level") || !get_u (c, &h->start_ns)
      || !get_u32 (c, &h->cpu_mode, 2, "cpu mode") || !get_u (c, &n) || !check_count (c, n))
    return FALSE;
  h->argv = g_new0 (char *, n + 1);
  for (guint64 i = 0; i < n; i++)
    if (!get_string (c, &h->argv[i]))
      return FALSE;
  if (!get_u (c, &n) || !check_count (c, 2 * n))
    return FALSE;
  h->prop_keys = g_new0 (char *, n + 1);
  h->prop_values = g_new0 (char *, n + 1);
  for (guint64 i = 0; i < n; i++)
    if (!get_string (c, &h->prop_keys[i]) || !get_string (c, &h->prop_values[i]))
      return FALSE;
  (void) r;
  return TRUE;
}

static void
header_clear (PtiCaptureHeader *h)
{
  g_free (h->writer);
  g_free (h->host);
  g_free (h->affinity);
  g_free (h->library);
  g_strfreev (h->argv);
  g_strfreev (h->prop_keys);
  g_strfreev (h->prop_values);
  memset (h, 0, sizeof *h);
}

/* Kind of what decode_record found. */
typedef enum { REC_CALL, REC_OTHER, REC_END, REC_REPEAT, REC_MARK } RecKind;

/* May a REPEAT follow @ev (FORMAT.md 6.6)? */
static gboolean
repeatable (const PtiCaptureEvent *ev)
{
  if (ev->error != 0)
    return FALSE;
  switch (ev->code) {
  case PTI_C_generic:
    return TRUE;
  case PTI_C_Test: case PTI_C_Request_get_status: case PTI_C_Testall: case PTI_C_Testany:
  case PTI_C_Iprobe: case PTI_C_Improbe: case PTI_C_Testsome:
    return !ev->flag;
  default:
    return FALSE;
  }
}

static gboolean
get_f64 (Cur *c, double *v)
{
  if ((gsize) (c->end - c->p) < 8)
    return cur_short (c);
  guint64 b = 0;
  for (int i = 0; i < 8; i++)
    b |= (guint64) c->p[i] << (8 * i);
  c->p += 8;
  memcpy (v, &b, sizeof b);
  return TRUE;
}

static const char *
mark_def (PtiCaptureRank *r, guint kind, guint64 id)
{
  GPtrArray *a = r->def[kind];
  return id < a->len ? g_ptr_array_index (a, id) : NULL;
}

/* DEFINE, REGION, COUNT, CHECK, PARAM (FORMAT.md 6.8).  State changes only
 * once the whole record is read: a short read is retried from its start. */
static gboolean
decode_mark (PtiCaptureRank *r, Cur *c, guint code, RecKind *kind)
{
  PtiCaptureMark *m = &r->mark;
  memset (m, 0, sizeof *m);
  switch (code) {
  case PTI_REC_DEFINE: {
    guint64 k, id, region = 0;
    char *name = NULL, *test = NULL;
    if (!get_u (c, &k) || !get_u (c, &id))
      return FALSE;
    if (k > PTI_DEF_ASSERTION)
      return cur_bad (c, "unknown DEFINE kind");
    if (!get_string (c, &name))
      return FALSE;
    if (k == PTI_DEF_ASSERTION && (!get_u (c, &region) || !get_string (c, &test))) {
      g_free (name);
      return FALSE;
    }
    if (id != r->def[k]->len || (k == PTI_DEF_ASSERTION && mark_def (r, PTI_DEF_REGION, region) == NULL)) {
      g_free (name);
      g_free (test);
      return cur_bad (c, id != r->def[k]->len ? "DEFINE ids out of order"
                                               : "assertion of a region no DEFINE record defined");
    }
    g_ptr_array_add (r->def[k], name);
    if (k == PTI_DEF_ASSERTION) {
      guint g = (guint) region;
      g_array_append_val (r->assert_region, g);
      g_ptr_array_add (r->assert_test, test);
    }
    *kind = REC_OTHER;
    return TRUE;
  }
  case PTI_REC_REGION: {
    guint64 what, id, t, ncalls_ = 0, msgs = 0, bytes = 0;
    if (!get_u (c, &what) || !get_u (c, &id) || !get_u (c, &t))
      return FALSE;
    if (what > 1)
      return cur_bad (c, "REGION neither begin nor end");
    if (what == 1 && (!get_u (c, &ncalls_) || !get_u (c, &msgs) || !get_u (c, &bytes)))
      return FALSE;
    if (mark_def (r, PTI_DEF_REGION, id) == NULL)
      return cur_bad (c, "region no DEFINE record defined");
    if (t < r->t_end)
      return cur_bad (c, "region mark before the end of the call before it");
    guint g = (guint) id;
    if (what == 1) {
      if (r->open_regions->len == 0
          || g_array_index (r->open_regions, guint, r->open_regions->len - 1) != g)
        return cur_bad (c, "region ends that is not the innermost one begun");
      g_array_set_size (r->open_regions, r->open_regions->len - 1);
    } else
      g_array_append_val (r->open_regions, g);
    m->kind = what ? PTI_CAPTURE_MARK_END : PTI_CAPTURE_MARK_BEGIN;
    m->region = g;
    m->name = mark_def (r, PTI_DEF_REGION, id);
    m->t = t;
    m->calls = ncalls_;
    m->messages = msgs;
    m->bytes = bytes;
    break;
  }
  case PTI_REC_COUNT: {
    guint64 region, counter;
    double v;
    if (!get_u (c, &region) || !get_u (c, &counter) || !get_f64 (c, &v))
      return FALSE;
    if (mark_def (r, PTI_DEF_REGION, region) == NULL || mark_def (r, PTI_DEF_COUNTER, counter) == NULL)
      return cur_bad (c, "COUNT of a region or counter no DEFINE record defined");
    m->kind = PTI_CAPTURE_MARK_COUNT;
    m->region = (guint) region;
    m->counter = (guint) counter;
    m->name = mark_def (r, PTI_DEF_COUNTER, counter);
    m->value = v;
    break;
  }
  case PTI_REC_CHECK: {
    guint64 a, passed, n;
    if (!get_u (c, &a) || !get_u (c, &passed) || !get_u (c, &n))
      return FALSE;
    if (mark_def (r, PTI_DEF_ASSERTION, a) == NULL)
      return cur_bad (c, "CHECK of an assertion no DEFINE record defined");
    if (passed > 1 || n > 64)
      return cur_bad (c, "CHECK out of range");
    g_array_set_size (r->mark_values, (guint) n);
    for (guint64 i = 0; i < n; i++)
      if (!get_f64 (c, &g_array_index (r->mark_values, double, i)))
        return FALSE;
    m->kind = PTI_CAPTURE_MARK_CHECK;
    m->assertion = (guint) a;
    m->region = g_array_index (r->assert_region, guint, a);
    m->name = mark_def (r, PTI_DEF_ASSERTION, a);
    m->test = g_ptr_array_index (r->assert_test, a);
    m->passed = passed == 1;
    m->n_values = (guint) n;
    m->values = (const double *) r->mark_values->data;
    break;
  }
  case PTI_REC_PARAM: {
    char *name = NULL;
    double v;
    if (!get_string (c, &name))
      return FALSE;
    if (!get_f64 (c, &v)) {
      g_free (name);
      return FALSE;
    }
    g_free (r->mark_name);
    r->mark_name = name;
    m->kind = PTI_CAPTURE_MARK_PARAM;
    m->name = name;
    m->value = v;
    break;
  }
  default:
    return cur_bad (c, "unknown record code");
  }
  m->depth = r->open_regions->len;
  *kind = REC_MARK;
  return TRUE;
}

void
pti_capture_rank_set_mark_func (PtiCaptureRank *r, PtiCaptureMarkFunc func, gpointer data)
{
  r->mark_func = func;
  r->mark_data = data;
}

const char *
pti_capture_rank_region_name (PtiCaptureRank *r, guint id)
{
  return mark_def (r, PTI_DEF_REGION, id);
}

static gboolean
decode_record (PtiCaptureRank *r, Cur *c, PtiCaptureEvent *ev, RecKind *kind)
{
  guint64 head;
  if (!get_u (c, &head))
    return FALSE;
  guint64 code = head >> 1;
  gboolean R = head & 1;
  if (code < PTI_REC_FIRST_CALL) {
    if (R)
      return cur_bad (c, "repeat flag on a record that is not a call");
    *kind = REC_OTHER;
    switch (code) {
    case PTI_REC_HEADER:
      return cur_bad (c, "second HEADER record");
    case PTI_REC_NAME: {
      guint64 id;
      char *name = NULL;
      if (!get_u (c, &id) || !get_string (c, &name))
        return FALSE;
      if (id != r->names->len + 1) {
        g_free (name);
        return cur_bad (c, "NAME ids out of order");
      }
      g_ptr_array_add (r->names, name);
      return TRUE;
    }
    case PTI_REC_DEFINE:
    case PTI_REC_REGION:
    case PTI_REC_COUNT:
    case PTI_REC_CHECK:
    case PTI_REC_PARAM:
      return decode_mark (r, c, (guint) code, kind);
    case PTI_REC_COMM:
      if (!get_newcomm (r, c))
        return FALSE;
      comm_add_new (r);
      return TRUE;
    case PTI_REC_ERROR: {
      gint64 e;
      if (!get_s (c, &e))
        return FALSE;
      if (e == 0 || e < G_MININT || e > G_MAXINT)
        return cur_bad (c, "ERROR record without an error code");
      r->pending_error = TRUE;
      r->error_code = (gint) e;
      return TRUE;
    }
    case PTI_REC_REPEAT: {
      guint64 period;
      if (!get_u (c, &period))
        return FALSE;
      if (period < 1 || period > 2)
        return cur_bad (c, "REPEAT period not 1 or 2");
      if (r->chain < period || !r->last[1].repeatable || (period == 2 && !r->last[0].repeatable))
        return cur_bad (c, "REPEAT after a record that cannot repeat");
      PtiCaptureEvent out[2];
      guint64 total = 0, t = r->t_end;
      for (guint64 j = 0; j < period; j++) {
        guint64 count, burst, cpu, dur;
        if (!get_u (c, &count) || !get_u (c, &burst) || !get_u (c, &cpu) || !get_u (c, &dur))
          return FALSE;
        if (count > G_MAXUINT64 - r->calls - total)
          return cur_bad (c, "REPEAT count out of range");
        if (burst > G_MAXINT64 || burst > G_MAXUINT64 - t || dur > G_MAXUINT64 - t - burst)
          return cur_bad (c, "time beyond 2^63 ns");
        gint64 d = cpu > 0 ? pti_capture_unzigzag (cpu - 1) : 0;
        if (cpu > 0 && (d > (gint64) burst || (d < 0 && -(d + 1) >= G_MAXINT64 - (gint64) burst)))
          return cur_bad (c, "CPU time of a burst below 0 or beyond 2^63 ns");
        out[j] = r->last[2 - period + j].ev;
        out[j].index = r->calls + total + 1;
        out[j].count = count;
        out[j].burst_ns = burst;
        out[j].burst_cpu_ns = cpu > 0 ? (gint64) burst - d : -1;
        out[j].t_start = t + burst;
        out[j].t_end = out[j].t_start + dur;
        t = out[j].t_end;
        total += count;
      }
      if (total == 0)
        return cur_bad (c, "REPEAT of nothing");
      /* elements with count 0 are not yielded */
      guint first = out[0].count > 0 ? 0 : 1;
      *ev = out[first];
      r->has_pending = period == 2 && first == 0 && out[1].count > 0;
      r->pending = out[1];
      r->calls += total;
      r->t_end = t;
      *kind = REC_REPEAT;
      return TRUE;
    }
    case PTI_REC_END: {
      PtiCaptureEnd *e = &r->end;
      guint64 how, ncalls, burst, v;
      if (!get_u (c, &how) || !get_u (c, &ncalls) || !get_u (c, &burst))
        return FALSE;
      if (how > PTI_END_ABORT)
        return cur_bad (c, "unknown END kind");
      if (ncalls != r->calls)
        return cur_bad (c, "END counts another number of calls than the file holds");
      e->how = (guint) how;
      e->calls = ncalls;
      if (!get_u32 (c, &e->in_code, PTI_CAPTURE_CODE_MAX - 1, "call code"))
        return FALSE;
      if (e->in_code != 0 && (e->in_code < PTI_REC_FIRST_CALL || !calls[e->in_code].known))
        return cur_bad (c, "unknown call code");
      e->in_name = pti_capture_call_name (e->in_code);
      if (e->in_code == PTI_C_generic) {
        if (!get_u (c, &v))
          return FALSE;
        if (v == 0 || v > r->names->len)
          return cur_bad (c, "name id that no NAME record defined");
        e->in_name = g_ptr_array_index (r->names, v - 1);
      }
      if (how == PTI_END_SIGNAL) {
        if (!get_u (c, &v))
          return FALSE;
        if (v == 0 || v > 64)
          return cur_bad (c, "signal number");
        e->signal = (guint) v;
      }
      if (how == PTI_END_ABORT && !get_s (c, &e->errorcode))
        return FALSE;
      e->seen = TRUE;
      e->last_call = r->calls;
      e->last_name = last_call_name (r);
      *kind = REC_END;
      return TRUE;
    }
    default:
      return cur_bad (c, "unknown record code (a newer format?)");
    }
  }
  if (code >= PTI_CAPTURE_CODE_MAX || !calls[code].known)
    return cur_bad (c, "unknown call code (a newer format?)");
  *kind = REC_CALL;
  event_reset (ev);
  ev->code = (guint) code;
  ev->name = calls[code].name;
  ev->layout = calls[code].layout;
  guint64 burst, cpu, dur;
  if (!get_u (c, &burst) || !get_u (c, &cpu) || !get_u (c, &dur))
    return FALSE;
  if (burst > G_MAXUINT64 - r->t_end || dur > G_MAXUINT64 - r->t_end - burst)
    return cur_bad (c, "time beyond 2^64 ns");
  ev->burst_ns = burst;
  ev->burst_cpu_ns = -1;
  if (cpu > 0) {   /* CPU time may exceed the wall time a little: two clocks */
    gint64 d = pti_capture_unzigzag (cpu - 1);
    if (burst > G_MAXINT64 || d > (gint64) burst || (d < 0 && -(d + 1) >= G_MAXINT64 - (gint64) burst))
      return cur_bad (c, "CPU time of a burst below 0 or beyond 2^63 ns");
    ev->burst_cpu_ns = (gint64) burst - d;
  }
  ev->t_start = r->t_end + burst;
  ev->t_end = ev->t_start + dur;
  if (r->pending_error)
    ev->error = r->error_code;

  const guint8 *args_at = c->p;
  if (R) {
    if (r->rep_len[code] == 0)
      return cur_bad (c, "repeat flag without a record to repeat");
    Cur rc = { .p = r->rep[code], .start = r->rep[code], .end = r->rep[code] + r->rep_len[code] - 1,
               .block_left = r->rep_len[code] - 1u };
    if (!decode_args (r, &rc, ev) || rc.p != rc.end) {
      c->state = CUR_BAD;
      c->why = rc.why ? rc.why : "repeated arguments do not decode";
      return FALSE;
    }
  } else if (!decode_args (r, c, ev))
    return FALSE;
  gsize args_len = (gsize) (c->p - args_at);
  if (!r->pending_error && !decode_result (r, c, ev))
    return FALSE;
  if (!R) {   /* the cache, as the writer keeps it */
    if (args_len <= PTI_CAPTURE_REPEAT_MAX) {
      if (r->rep[code] == NULL)
        r->rep[code] = g_malloc (PTI_CAPTURE_REPEAT_MAX);
      memcpy (r->rep[code], args_at, args_len);
      r->rep_len[code] = (guint8) (args_len + 1);
    } else
      r->rep_len[code] = 0;
  }
  return TRUE;
}

/* After a call record decoded whole: what it does to requests and comms. */
static void
apply_call (PtiCaptureRank *r, PtiCaptureEvent *ev)
{
  g_ptr_array_set_size (r->dead, 0);
  gboolean ok = !r->pending_error;
  r->pending_error = FALSE;
  r->calls++;
  r->last_code = ev->code;
  r->t_end = ev->t_end;
  ev->index = r->calls;
  ev->comm_info = comm_get (r, ev->comm);
  ev->n_requests = r->completions->len;
  ev->requests = (const PtiCaptureCompletion *) (void *) r->completions->data;
  ev->n_scounts = r->scounts->len;
  ev->scounts = (const guint64 *) (void *) r->scounts->data;
  ev->n_rcounts = r->rcounts->len;
  ev->rcounts = (const guint64 *) (void *) r->rcounts->data;
  if (!ok)
    return;
  int flags = calls[ev->code].flags;
  if (flags & PTI_CF_REQ) {
    PtiCaptureRequest *q = g_new0 (PtiCaptureRequest, 1);
    q->id = ++r->last_req;
    q->code = ev->code;
    q->peer = ev->peer;
    q->tag = ev->tag;
    q->bytes = ev->bytes;
    q->comm = ev->comm;
    q->persistent = (flags & PTI_CF_PERSISTENT) != 0;
    q->is_recv = (flags & PTI_CF_RECV) != 0;
    q->active = !q->persistent;
    if (ev->layout == PTI_L_MPOST)
      q->peer = PTI_PEER_ANY, q->tag = PTI_TAG_ANY;
    g_hash_table_insert (r->requests, &q->id, q);
    ev->request = q->id;
  }
  PtiCaptureCompletion *cs = (PtiCaptureCompletion *) (void *) r->completions->data;
  for (guint i = 0; i < r->completions->len; i++) {
    PtiCaptureRequest *q = (PtiCaptureRequest *) cs[i].info;
    if (q == NULL)
      continue;
    if (ev->code == PTI_C_Start || ev->code == PTI_C_Startall)
      q->active = TRUE;
    else if (ev->code == PTI_C_Request_free
             || (cs[i].done && !q->persistent && ev->code != PTI_C_Request_get_status)) {
      /* the event still points at it; a request named twice goes once */
      if (g_hash_table_steal (r->requests, &q->id))
        g_ptr_array_add (r->dead, q);
    } else if (cs[i].done && ev->code != PTI_C_Request_get_status)
      q->active = FALSE;
  }
  if (ev->has_newcomm && r->newcomm.id != 0) {
    comm_add_new (r);
    ev->newcomm = g_ptr_array_index (r->comms, r->comms->len - 1);
    r->newcomm.id = 0;
  }
  if (ev->layout == PTI_L_COMM)
    ((PtiCaptureComm *) comm_get (r, ev->comm))->freed = TRUE;
}

/* The newest call becomes last[1], with a copy of its requests. */
static void
remember_call (PtiCaptureRank *r, const PtiCaptureEvent *ev)
{
  GArray *spare = r->last[0].reqs;
  r->last[0] = r->last[1];
  r->last[1].reqs = spare;
  g_array_set_size (spare, 0);
  g_array_append_vals (spare, ev->requests, ev->n_requests);
  r->last[1].ev = *ev;
  r->last[1].ev.requests = (const PtiCaptureCompletion *) (void *) spare->data;
  r->last[1].repeatable = repeatable (ev);
  r->chain = MIN (r->chain + 1, 2);
}

gboolean
pti_capture_rank_next (PtiCaptureRank *r, PtiCaptureEvent *ev, gboolean *done, GError **error)
{
  *done = FALSE;
  if (r->has_pending) {
    r->has_pending = FALSE;
    *ev = r->pending;
    return TRUE;
  }
  if (r->finished) {
    if (r->final_error != NULL) {
      g_propagate_error (error, g_error_copy (r->final_error));
      return FALSE;
    }
    *done = TRUE;
    return TRUE;
  }
  GError *err = NULL;
  for (;;) {
    if (!r->in_block || (r->off == r->len && r->blk_loaded == r->blk_len)) {
      if (r->in_block && !r->blk_partial && r->crc != r->blk_crc) {
        rank_corrupt (r, &err, r->blk_payload_off - 8, "block checksum mismatch");
        break;
      }
      if (r->in_block && r->blk_partial) {
        rank_cut (r, &err);
        break;
      }
      r->in_block = FALSE;
      gboolean eof, cut;
      if (!block_start (r, &eof, &cut, &err))
        break;
      if (eof || cut) {
        rank_cut (r, &err);
        break;
      }
      continue;
    }
    if (r->off == r->len && !block_load (r, &err))
      break;
    Cur c = cur_make (r);
    RecKind kind = REC_OTHER;
    if (!decode_record (r, &c, ev, &kind)) {
      if (c.state == CUR_SHORT && r->blk_loaded < r->blk_len) {
        if (!block_load (r, &err))
          break;
        continue;
      }
      if (r->blk_partial && (c.state == CUR_SHORT || r->blk_loaded == r->blk_len)
          && c.why != NULL && strcmp (c.why, "record runs past the end of its block") == 0) {
        rank_cut (r, &err);   /* cut inside a record: the last block is incomplete */
        break;
      }
      rank_corrupt (r, &err, r->blk_payload_off + (r->blk_loaded - (r->len - r->off)), "%s",
                    c.why ? c.why : "malformed record");
      break;
    }
    r->off += (gsize) (c.p - c.start);
    if (kind == REC_CALL) {
      apply_call (r, ev);
      remember_call (r, ev);
      return TRUE;
    }
    r->chain = 0;   /* a REPEAT repeats only the calls right before it */
    if (kind == REC_MARK) {
      if (r->mark_func != NULL && !r->mark_func (&r->mark, r->mark_data, &err))
        break;
      continue;
    }
    if (kind == REC_REPEAT)
      return TRUE;
    if (kind == REC_END) {
      if (r->blk_partial) {   /* END was written whole: the length is wrong */
        rank_corrupt (r, &err, r->blk_payload_off - 8, "block length %" G_GUINT64_FORMAT
                      " runs past the end of the file", r->blk_declared);
        break;
      }
      if (r->off != r->len || r->blk_loaded != r->blk_len) {
        rank_corrupt (r, &err, r->pos, "data after the END record");
        break;
      }
      if (!r->blk_partial && r->crc != r->blk_crc) {
        rank_corrupt (r, &err, r->blk_payload_off - 8, "block checksum mismatch");
        break;
      }
      guint8 b;
      gsize got;
      if (!rank_read (r, &b, 1, &got, &err))
        break;
      if (got != 0) {
        rank_corrupt (r, &err, r->pos - 1, "data after the END record");
        break;
      }
      if (r->end.how != PTI_END_FINALIZE) {
        rank_ended_early (r, &err);
        break;
      }
      r->finished = TRUE;
      *done = TRUE;
      return TRUE;
    }
  }
  r->finished = TRUE;
  r->final_error = g_error_copy (err);
  g_propagate_error (error, err);
  return FALSE;
}

/* Whether the file is whole and ended by MPI_Finalize, without decoding
 * its records: every block's length and CRC-32C right up to the end of
 * the file, and the last block holding nothing but END (how 0), as the
 * capture library writes it (FORMAT.md 3).  Reads the file with a cursor
 * of its own, so the records can still be read after it. */
gboolean
pti_capture_rank_sealed (PtiCaptureRank *r, guint64 *n_calls)
{
  if (!rank_fd (r, NULL))
    return FALSE;
  guint64 at = PTI_CAPTURE_MAGIC_LEN + 2;
  gsize cap = 64 * 1024;
  g_autofree guint8 *buf = g_malloc (cap);
  guint64 last_len = 0;
  for (;;) {
    guint8 hdr[8];
    ssize_t k = pread (r->fd, hdr, 8, (off_t) at);
    if (k == 0)
      break;
    if (k != 8)
      return FALSE;
    guint32 len = hdr[0] | hdr[1] << 8 | hdr[2] << 16 | (guint32) hdr[3] << 24;
    guint32 crc = hdr[4] | hdr[5] << 8 | hdr[6] << 16 | (guint32) hdr[7] << 24;
    if (len == 0 || len > PTI_CAPTURE_BLOCK_MAX)
      return FALSE;
    if (len > cap) {
      cap = len;
      g_free (buf);
      buf = g_malloc (cap);
    }
    for (gsize done = 0; done < len;) {
      k = pread (r->fd, buf + done, len - done, (off_t) (at + 8 + done));
      if (k <= 0 && !(k < 0 && errno == EINTR))
        return FALSE;
      done += k > 0 ? (gsize) k : 0;
    }
    if (pti_capture_crc32c (0, buf, len, r->crc_table, r->crc_hw) != crc)
      return FALSE;
    at += 8 + (guint64) len;
    last_len = len;
  }
  /* buf holds the last block: END finalize, alone */
  Cur c = { .p = buf, .start = buf, .end = buf + last_len, .block_left = last_len };
  guint64 head, how, n, burst, in;
  if (last_len == 0 || !get_u (&c, &head) || head != PTI_REC_END << 1 || !get_u (&c, &how)
      || how != PTI_END_FINALIZE || !get_u (&c, &n) || !get_u (&c, &burst) || !get_u (&c, &in)
      || in != 0 || c.p != c.end)
    return FALSE;
  *n_calls = n;
  return TRUE;
}

const PtiCaptureEnd *
pti_capture_rank_end (PtiCaptureRank *r)
{
  return &r->end;
}

const PtiCaptureHeader *
pti_capture_rank_header (PtiCaptureRank *r)
{
  return &r->header;
}

/* ---- opening ---- */

static PtiCaptureRank *
rank_new (PtiCaptureTrace *trace, const char *path, const char *label)
{
  calls_init ();
  PtiCaptureRank *r = g_new0 (PtiCaptureRank, 1);
  r->trace = trace;
  r->path = g_strdup (path);
  r->label = g_strdup (label);
  r->fd = -1;
  r->cap = CHUNK;
  r->buf = g_malloc (r->cap);
  pti_capture_crc32c_table (r->crc_table);
#if defined(__x86_64__)
  __builtin_cpu_init ();
  r->crc_hw = __builtin_cpu_supports ("sse4.2");
#endif
  r->names = g_ptr_array_new_with_free_func (g_free);
  for (int i = 0; i < 3; i++)
    r->def[i] = g_ptr_array_new_with_free_func (g_free);
  r->assert_region = g_array_new (FALSE, FALSE, sizeof (guint));
  r->assert_test = g_ptr_array_new_with_free_func (g_free);
  r->open_regions = g_array_new (FALSE, FALSE, sizeof (guint));
  r->mark_values = g_array_new (FALSE, TRUE, sizeof (double));
  r->comms = g_ptr_array_new_with_free_func (comm_free);
  r->requests = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL, g_free);
  r->dead = g_ptr_array_new_with_free_func (g_free);
  r->completions = g_array_new (FALSE, TRUE, sizeof (PtiCaptureCompletion));
  r->scounts = g_array_new (FALSE, TRUE, sizeof (guint64));
  r->rcounts = g_array_new (FALSE, TRUE, sizeof (guint64));
  r->dims = g_array_new (FALSE, TRUE, sizeof (guint64));
  r->periods = g_array_new (FALSE, TRUE, sizeof (guint64));
  r->new_members = g_array_new (FALSE, TRUE, sizeof (gint32));
  r->new_remote = g_array_new (FALSE, TRUE, sizeof (gint32));
  for (int i = 0; i < 2; i++)
    r->last[i].reqs = g_array_new (FALSE, TRUE, sizeof (PtiCaptureCompletion));
  return r;
}

void
pti_capture_rank_free (PtiCaptureRank *r)
{
  if (r == NULL)
    return;
  if (r->fd >= 0) {
    close (r->fd);
    if (r->trace != NULL) {
      g_ptr_array_remove_fast (r->trace->open_ranks, r);
      r->trace->n_open--;
    }
  }
  header_clear (&r->header);
  g_free (r->file_name);
  g_free (r->path);
  g_free (r->label);
  g_free (r->buf);
  g_ptr_array_unref (r->names);
  for (int i = 0; i < 3; i++)
    g_ptr_array_unref (r->def[i]);
  g_array_unref (r->assert_region);
  g_ptr_array_unref (r->assert_test);
  g_array_unref (r->open_regions);
  g_array_unref (r->mark_values);
  g_free (r->mark_name);
  g_ptr_array_unref (r->comms);
  g_hash_table_unref (r->requests);
  g_ptr_array_unref (r->dead);
  for (int i = 0; i < PTI_CAPTURE_CODE_MAX; i++)
    g_free (r->rep[i]);
  g_array_unref (r->completions);
  g_array_unref (r->scounts);
  g_array_unref (r->rcounts);
  g_array_unref (r->dims);
  g_array_unref (r->periods);
  g_array_unref (r->new_members);
  g_array_unref (r->new_remote);
  for (int i = 0; i < 2; i++)
    g_array_unref (r->last[i].reqs);
  g_clear_error (&r->final_error);
  g_free (r);
}

/* Magic, version, the first block and its HEADER. */
static gboolean
rank_start (PtiCaptureRank *r, GError **error)
{
  guint8 magic[PTI_CAPTURE_MAGIC_LEN + 2];
  gsize got;
  if (!rank_read (r, magic, sizeof magic, &got, error))
    return FALSE;
  if (got < PTI_CAPTURE_MAGIC_LEN || memcmp (magic, PTI_CAPTURE_MAGIC, PTI_CAPTURE_MAGIC_LEN) != 0) {
    g_set_error (error, PTI_CAPTURE_ERROR, got == 0 ? PTI_CAPTURE_ERROR_INCOMPLETE
                                                    : PTI_CAPTURE_ERROR_FORMAT,
                 got == 0 ? "%s: %s is empty: the program was killed as it started capturing"
                          : "%s: %s is not a pticapture trace file", r->label, r->path);
    return FALSE;
  }
  if (got < sizeof magic) {
    g_set_error (error, PTI_CAPTURE_ERROR, PTI_CAPTURE_ERROR_INCOMPLETE,
                 "%s: %s ends in its header: the program was killed as it started capturing",
                 r->label, r->path);
    return FALSE;
  }
  if (magic[8] != PTI_CAPTURE_MAJOR) {
    g_set_error (error, PTI_CAPTURE_ERROR, PTI_CAPTURE_ERROR_FORMAT,
                 "%s: %s is format %u.%u; this reader knows %d.%d", r->label, r->path, magic[8],
                 magic[9], PTI_CAPTURE_MAJOR, PTI_CAPTURE_MINOR);
    return FALSE;
  }
  gboolean eof, cut;
  if (!block_start (r, &eof, &cut, error))
    return FALSE;
  if (eof || cut) {
    g_set_error (error, PTI_CAPTURE_ERROR, PTI_CAPTURE_ERROR_INCOMPLETE,
                 "%s: %s has no records: the program was killed as it started capturing",
                 r->label, r->path);
    return FALSE;
  }
  for (;;) {
    if (r->off == r->len && !block_load (r, error))
      return FALSE;
    Cur c = cur_make (r);
    guint64 head;
    if (get_u (&c, &head) && head != (PTI_REC_HEADER << 1)) {
      return rank_corrupt (r, error, r->blk_payload_off, "the first record is not HEADER");
    }
    if (c.state == CUR_OK && decode_header (r, &c, &r->header)) {
      r->off += (gsize) (c.p - c.start);
      break;
    }
    header_clear (&r->header);
    if (c.state == CUR_SHORT && r->blk_loaded < r->blk_len)
      continue;
    if (r->blk_partial) {
      g_set_error (error, PTI_CAPTURE_ERROR, PTI_CAPTURE_ERROR_INCOMPLETE,
                   "%s: %s ends in its header: the program was killed as it started capturing",
                   r->label, r->path);
      return FALSE;
    }
    return rank_corrupt (r, error, r->blk_payload_off, "HEADER: %s",
                         c.why ? c.why : "malformed");
  }
  /* MPI_COMM_WORLD (members NULL: the identity) and MPI_COMM_SELF */
  PtiCaptureComm *w = comm_new (PTI_COMM_WORLD_ID, PTI_COMM_WORLD_KEY, r->header.size, NULL);
  gint32 me = (gint32) r->header.rank;
  PtiCaptureComm *s = comm_new (PTI_COMM_SELF_ID, PTI_COMM_SELF_KEY, 1, &me);
  g_ptr_array_add (r->comms, w);
  g_ptr_array_add (r->comms, s);
  return TRUE;
}

PtiCaptureRank *
pti_capture_rank_open_file (const char *path, GError **error)
{
  PtiCaptureRank *r = rank_new (NULL, path, path);
  if (!rank_start (r, error)) {
    pti_capture_rank_free (r);
    return NULL;
  }
  g_free (r->label);
  r->label = g_strdup_printf ("rank %u", r->header.rank);
  return r;
}

PtiCaptureRank *
pti_capture_rank_open (PtiCaptureTrace *t, guint rank, GError **error)
{
  g_return_val_if_fail (rank < t->n_ranks, NULL);
  g_autofree char *name = g_strdup_printf ("rank-%u.ptc", rank);
  g_autofree char *path = g_build_filename (t->dir, name, NULL);
  g_autofree char *label = g_strdup_printf ("rank %u", rank);
  PtiCaptureRank *r = rank_new (t, path, label);
  if (!rank_start (r, error)) {
    pti_capture_rank_free (r);
    return NULL;
  }
  return r;
}

static const char *
header_prop (const PtiCaptureHeader *h, const char *key)
{
  for (guint i = 0; h->prop_keys != NULL && h->prop_keys[i] != NULL; i++)
    if (strcmp (h->prop_keys[i], key) == 0)
      return h->prop_values[i];
  return NULL;
}

PtiCaptureTrace *
pti_capture_trace_open (const char *dir, GError **error)
{
  struct stat st;
  if (stat (dir, &st) != 0) {
    int e = errno;
    g_set_error (error, PTI_CAPTURE_ERROR, PTI_CAPTURE_ERROR_IO, "%s: %s", dir, g_strerror (e));
    return NULL;
  }
  if (!S_ISDIR (st.st_mode)) {
    g_set_error (error, PTI_CAPTURE_ERROR, PTI_CAPTURE_ERROR_FORMAT,
                 "%s: not a directory (a pticapture trace is the directory pticapture -o made)",
                 dir);
    return NULL;
  }
  g_autoptr (PtiCaptureTrace) t = g_new0 (PtiCaptureTrace, 1);
  t->dir = g_strdup (dir);
  t->max_open = DEFAULT_MAX_OPEN;
  t->open_ranks = g_ptr_array_new ();
  g_autofree char *first = g_build_filename (dir, "rank-0.ptc", NULL);
  if (!g_file_test (first, G_FILE_TEST_EXISTS)) {
    g_set_error (error, PTI_CAPTURE_ERROR, PTI_CAPTURE_ERROR_MISSING,
                 "%s: no rank-0.ptc: not a pticapture trace, or rank 0 never called MPI_Init",
                 dir);
    return NULL;
  }
  /* Rank 0 says how many there are; every other must be of the same run. */
  t->n_ranks = 1;
  t->headers = g_new0 (PtiCaptureHeader, 1);
  for (guint i = 0; i < t->n_ranks; i++) {
    g_autofree char *name = g_strdup_printf ("rank-%u.ptc", i);
    g_autofree char *path = g_build_filename (dir, name, NULL);
    g_autofree char *label = g_strdup_printf ("rank %u", i);
    if (!g_file_test (path, G_FILE_TEST_EXISTS)) {
      g_set_error (error, PTI_CAPTURE_ERROR, PTI_CAPTURE_ERROR_MISSING,
                   "rank %u: %s is missing (world size %u): that process never called MPI_Init, "
                   "or could not write its trace", i, path, t->n_ranks);
      return NULL;
    }
    PtiCaptureRank *r = rank_new (NULL, path, label);
    gboolean ok = rank_start (r, error);
    if (ok && i == 0) {
      t->n_ranks = r->header.size;
      t->headers = g_renew (PtiCaptureHeader, t->headers, t->n_ranks);
      memset (t->headers + 1, 0, (t->n_ranks - 1) * sizeof *t->headers);
    }
    if (ok && (r->header.rank != i || r->header.size != t->n_ranks)) {
      g_set_error (error, PTI_CAPTURE_ERROR, PTI_CAPTURE_ERROR_MISSING,
                   "rank %u: %s says it is rank %u of %u, not rank %u of %u: "
                   "files of another capture?", i, path, r->header.rank, r->header.size, i,
                   t->n_ranks);
      ok = FALSE;
    }
    const char *run = ok ? header_prop (&r->header, "run") : NULL;
    const char *run0 = i > 0 ? header_prop (&t->headers[0], "run") : run;
    if (ok && g_strcmp0 (run, run0) != 0) {
      g_set_error (error, PTI_CAPTURE_ERROR, PTI_CAPTURE_ERROR_MISSING,
                   "rank %u: %s is from another capture than rank-0.ptc (run %s, not %s)", i,
                   path, run ? run : "unknown", run0 ? run0 : "unknown");
      ok = FALSE;
    }
    if (ok) {
      t->headers[i] = r->header;
      memset (&r->header, 0, sizeof r->header);
    }
    pti_capture_rank_free (r);
    if (!ok)
      return NULL;
  }
  return g_steal_pointer (&t);
}

guint
pti_capture_trace_n_ranks (PtiCaptureTrace *t)
{
  return t->n_ranks;
}

const PtiCaptureHeader *
pti_capture_trace_header (PtiCaptureTrace *t, guint rank)
{
  g_return_val_if_fail (rank < t->n_ranks, NULL);
  return &t->headers[rank];
}

void
pti_capture_trace_set_max_open (PtiCaptureTrace *t, guint max)
{
  t->max_open = MAX (max, 1);
}

void
pti_capture_trace_free (PtiCaptureTrace *t)
{
  if (t == NULL)
    return;
  for (guint i = 0; t->headers != NULL && i < t->n_ranks; i++)
    header_clear (&t->headers[i]);
  g_free (t->headers);
  g_free (t->dir);
  /* Ranks still open keep their descriptors; they must be freed first. */
  g_ptr_array_unref (t->open_ranks);
  g_free (t);
}
