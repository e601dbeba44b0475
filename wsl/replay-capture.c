/* Replay of a pticapture trace (capture/FORMAT.md) as a pull source: each
 * rank's file is read through the capture reader a batch of calls at a
 * time, when the evaluation needs that rank, so memory holds the requests
 * and communicators in flight, never the run.  What each call becomes:
 * capture/README.md, section "Replay". */
#include "replay-capture.h"

#include <string.h>

#include "capture-reader.h"
#include "pti/wsl.h"

#define BATCH 32          /* device uses appended per pull: the WSL's advice */
#define NO_REQUEST G_MAXUINT   /* a request whose peer was MPI_PROC_NULL */

typedef struct {
  PtiCaptureRank *reader;
  GHashTable *requests;   /* capture id -> pti request + 1 (or NO_REQUEST + 1) */
  gboolean started;       /* past MPI_Init: bursts before it are start-up, not the program */
  gboolean ended;         /* the reader said the file is through */
  guint64 t_done;         /* ns: computation replayed up to here */
  GArray *files;          /* PtiFile by the capture's local file id (MPI-IO), or NULL */
  /* for the region marks, set while the rank is pulled */
  struct _CaptureSource *source;
  PtiContext *ctx;
  guint rank;
  guint *appended;
} RankState;

typedef struct _CaptureSource {
  PtiCaptureTrace *trace;
  guint n;
  RankState *ranks;
  PtiRud *burst;
  guint burst_slot;
  guint64 *sbytes, *rbytes;    /* alltoallv rows, n each */
  PtiRequest *reqs;            /* waitall scratch */
  guint n_reqs;
  GHashTable *skipped;         /* call name -> count (not replayed, reported) */
  char *dir;
} CaptureSource;

static void
capture_source_free (gpointer data)
{
  CaptureSource *s = data;
  if (g_hash_table_size (s->skipped) > 0) {
    /* Never dropped silently: the calls that did not take part say so. */
    GHashTableIter it;
    gpointer k, v;
    g_hash_table_iter_init (&it, s->skipped);
    while (g_hash_table_iter_next (&it, &k, &v))
      g_printerr ("pti: %s: %s not replayed (%" G_GUINT64_FORMAT " calls over all ranks)\n",
                  s->dir, (const char *) k, (guint64) GPOINTER_TO_SIZE (v));
  }
  for (guint r = 0; r < s->n; r++) {
    if (s->ranks[r].reader)
      pti_capture_rank_free (s->ranks[r].reader);
    if (s->ranks[r].requests)
      g_hash_table_destroy (s->ranks[r].requests);
    if (s->ranks[r].files)
      g_array_unref (s->ranks[r].files);
  }
  g_free (s->ranks);
  pti_rud_unref (s->burst);
  g_free (s->sbytes);
  g_free (s->rbytes);
  g_free (s->reqs);
  g_hash_table_destroy (s->skipped);
  pti_capture_trace_free (s->trace);
  g_free (s->dir);
  g_free (s);
}

static void
skip (CaptureSource *s, const PtiCaptureEvent *ev)
{
  gpointer old = g_hash_table_lookup (s->skipped, ev->name);
  g_hash_table_insert (s->skipped, (gpointer) g_intern_string (ev->name),
                       GSIZE_TO_POINTER (GPOINTER_TO_SIZE (old) + ev->count));
}

static gboolean
fail (GError **error, const CaptureSource *s, guint rank, const PtiCaptureEvent *ev,
      const char *what)
{
  g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
               "%s: rank %u, call %" G_GUINT64_FORMAT " (%s): %s", s->dir, rank, ev->index,
               ev->name, what);
  return FALSE;
}

/* A communicator whose members are the world in order: collectives on it
 * are the WSL's world collectives. */
static gboolean
is_world (const CaptureSource *s, const PtiCaptureEvent *ev)
{
  const PtiCaptureComm *c = ev->comm_info;
  if (ev->comm == PTI_COMM_WORLD_ID)
    return TRUE;
  if (c == NULL || c->inter || c->n_members != s->n)
    return FALSE;
  for (guint i = 0; i < s->n; i++)
    if (c->members[i] != (gint32) i)
      return FALSE;
  return TRUE;
}

static void
remember (RankState *st, guint64 id, PtiRequest req)
{
  g_hash_table_insert (st->requests, GSIZE_TO_POINTER (id), GSIZE_TO_POINTER ((gsize) req + 1));
}

/* Completes the requests a wait or test call completed, each by the request
 * MPI says completed (a waitany's pick is known from the capture).  A
 * receive from MPI_ANY_SOURCE was not posted at its Irecv (its source was
 * unknown then): it is posted here, from the source the status gave. */
static gboolean
complete (CaptureSource *s, PtiContext *ctx, guint rank, const PtiCaptureEvent *ev,
          guint *appended, GError **error)
{
  RankState *st = &s->ranks[rank];
  guint n = 0;
  if (s->n_reqs < ev->n_requests) {
    s->n_reqs = ev->n_requests;
    s->reqs = g_renew (PtiRequest, s->reqs, s->n_reqs);
  }
  for (guint i = 0; i < ev->n_requests; i++) {
    const PtiCaptureCompletion *c = &ev->requests[i];
    if (!c->done || c->empty || c->request == 0 || c->request == G_MAXUINT64)
      continue;
    gpointer v;
    if (!g_hash_table_lookup_extended (st->requests, GSIZE_TO_POINTER (c->request), NULL, &v))
      continue;   /* a request of a call not replayed (counted there) */
    gboolean persistent = c->info && c->info->persistent;
    if (!persistent)
      g_hash_table_remove (st->requests, GSIZE_TO_POINTER (c->request));
    guint req = (guint) (GPOINTER_TO_SIZE (v) - 1);
    if (req == NO_REQUEST) {
      if (c->info == NULL || !c->info->is_recv || c->info->peer != PTI_PEER_ANY)
        continue;
      if (c->source_world < 0)
        continue;   /* from MPI_PROC_NULL */
      if (!pti_mpi_irecv (ctx, rank, (guint) c->source_world, c->bytes, c->tag, &req, error))
        return FALSE;
    }
    s->reqs[n++] = req;
  }
  if (n == 0)
    return TRUE;
  *appended += n;
  return n == 1 ? pti_mpi_wait (ctx, rank, s->reqs[0], error)
                : pti_mpi_waitall (ctx, rank, n, s->reqs, error);
}

static gboolean
replay_burst (CaptureSource *s, PtiContext *ctx, guint rank, guint64 ns, guint *appended,
              GError **error)
{
  if (!s->ranks[rank].started || ns == 0)
    return TRUE;
  pti_symbols_set (pti_context_get_symbols (ctx), s->burst_slot, (double) ns);
  if (!pti_use (ctx, rank, s->burst, error))
    return FALSE;
  (*appended)++;
  return TRUE;
}

/* A region of the program (pti/region.h) is a phase of the replay: the
 * computation up to the mark is replayed before it, so the phase holds what
 * the rank did between its begin and end. */
static gboolean
replay_mark (const PtiCaptureMark *m, gpointer data, GError **error)
{
  RankState *st = data;
  if (m->kind != PTI_CAPTURE_MARK_BEGIN && m->kind != PTI_CAPTURE_MARK_END)
    return TRUE;
  if (m->t > st->t_done) {
    if (!replay_burst (st->source, st->ctx, st->rank, m->t - st->t_done, st->appended, error))
      return FALSE;
    st->t_done = m->t;
  }
  (*st->appended)++;
  gboolean ok = m->kind == PTI_CAPTURE_MARK_BEGIN
    ? pti_phase_begin (st->ctx, st->rank, m->name, error)
    : pti_phase_end (st->ctx, st->rank, m->name, error);
  if (!ok)
    g_prefix_error (error, "%s: rank %u, region '%s': ", st->source->dir, st->rank, m->name);
  return ok;
}

/* MPI-IO calls as the io device's: MPI_File_open on the world (or a
 * communicator of every rank in order) is pti_io_open_all, on
 * MPI_COMM_SELF pti_io_open; accesses through the individual file pointer
 * were recorded with the byte offset they started at, so they replay as
 * the explicit-offset calls. */
static gboolean
replay_file (CaptureSource *s, PtiContext *ctx, guint rank, const PtiCaptureEvent *ev,
             gboolean world, GError **error)
{
  RankState *st = &s->ranks[rank];
  if (ev->error != 0)
    return TRUE;   /* a call that failed did nothing to the file */
  if (ev->code == PTI_C_File_open) {
    if (!world && ev->comm != PTI_COMM_SELF_ID)
      return fail (error, s, rank, ev, "MPI_File_open on a communicator other than the world "
                   "or MPI_COMM_SELF is not replayed yet");
    PtiFile f;
    if (!(world ? pti_io_open_all (ctx, NULL, rank, ev->file_name, NULL, &f, error)
                : pti_io_open (ctx, rank, ev->file_name, NULL, &f, error)))
      return FALSE;
    if (st->files == NULL)
      st->files = g_array_new (FALSE, TRUE, sizeof (PtiFile));
    if (st->files->len <= ev->file)
      g_array_set_size (st->files, ev->file + 1);
    g_array_index (st->files, PtiFile, ev->file) = f;
    return TRUE;
  }
  if (ev->file == 0 || st->files == NULL || ev->file >= st->files->len)
    return fail (error, s, rank, ev, "the file was not opened by a recorded MPI_File_open");
  PtiFile f = g_array_index (st->files, PtiFile, ev->file);
  switch (ev->code) {
  case PTI_C_File_close:
    return pti_io_close (ctx, rank, f, error);
  case PTI_C_File_write_at: case PTI_C_File_write:
    return pti_io_write_at (ctx, rank, f, ev->offset, ev->bytes, error);
  case PTI_C_File_read_at: case PTI_C_File_read:
    return pti_io_read_at (ctx, rank, f, ev->offset, ev->bytes, error);
  case PTI_C_File_write_at_all: case PTI_C_File_write_all:
    return pti_io_write_at_all (ctx, rank, f, ev->offset, ev->bytes, error);
  default:   /* read_at_all, read_all */
    return pti_io_read_at_all (ctx, rank, f, ev->offset, ev->bytes, error);
  }
}

static gboolean
replay_one (CaptureSource *s, PtiContext *ctx, guint rank, const PtiCaptureEvent *ev,
            guint *appended, GError **error)
{
  RankState *st = &s->ranks[rank];
  /* what of the burst a region mark has not replayed already */
  guint64 burst = ev->t_start - st->t_done < ev->burst_ns ? ev->t_start - st->t_done : ev->burst_ns;
  st->t_done = ev->t_end;
  if (!replay_burst (s, ctx, rank, burst, appended, error))
    return FALSE;
  if (ev->code == PTI_C_Init || ev->code == PTI_C_Init_thread) {
    st->started = TRUE;
    return TRUE;
  }
  if (ev->count > 1)
    return TRUE;   /* a REPEAT: polls and name-only calls, nothing to replay but their time */
  gboolean world = is_world (s, ev);
  gboolean ok = TRUE;
  PtiRequest req;
  guint64 bytes;
  switch (ev->code) {
  case PTI_C_Send: case PTI_C_Ssend: case PTI_C_Bsend: case PTI_C_Rsend:
    if (ev->peer_world >= 0) {
      ok = pti_mpi_send (ctx, rank, (guint) ev->peer_world, ev->bytes, ev->tag, error);
      (*appended)++;
    }
    break;
  case PTI_C_Recv: case PTI_C_Mrecv: {
    gint32 src = ev->has_status && ev->status.has_bytes ? ev->status.source_world : ev->peer_world;
    bytes = ev->has_status && ev->status.has_bytes ? ev->status.bytes : ev->bytes;
    gint32 tag = ev->has_status && ev->status.has_bytes ? ev->status.tag : ev->tag;
    if (src >= 0) {
      ok = pti_mpi_recv (ctx, rank, (guint) src, bytes, tag, error);
      (*appended)++;
    }
    break;
  }
  case PTI_C_Isend: case PTI_C_Issend: case PTI_C_Ibsend: case PTI_C_Irsend:
    req = NO_REQUEST;
    if (ev->peer_world >= 0) {
      ok = pti_mpi_isend (ctx, rank, (guint) ev->peer_world, ev->bytes, ev->tag, &req, error);
      (*appended)++;
    }
    remember (st, ev->request, req);
    break;
  case PTI_C_Irecv:
    req = NO_REQUEST;
    if (ev->peer_world >= 0) {
      ok = pti_mpi_irecv (ctx, rank, (guint) ev->peer_world, ev->bytes, ev->tag, &req, error);
      (*appended)++;
    }
    remember (st, ev->request, req);
    break;
  case PTI_C_Wait: case PTI_C_Waitall: case PTI_C_Waitany: case PTI_C_Waitsome:
  case PTI_C_Test: case PTI_C_Testall: case PTI_C_Testany: case PTI_C_Testsome:
  case PTI_C_Request_get_status:
    ok = complete (s, ctx, rank, ev, appended, error);
    break;
  case PTI_C_Sendrecv: case PTI_C_Sendrecv_replace: {
    /* Both halves in flight at once, as MPI_Sendrecv does. */
    PtiRequest pair[2];
    guint k = 0;
    gint32 src = ev->has_status && ev->status.has_bytes ? ev->status.source_world : ev->rpeer_world;
    bytes = ev->has_status && ev->status.has_bytes ? ev->status.bytes : ev->rbytes;
    if (src >= 0)
      ok = pti_mpi_irecv (ctx, rank, (guint) src, bytes, ev->rtag, &pair[k++], error);
    if (ok && ev->peer_world >= 0)
      ok = pti_mpi_isend (ctx, rank, (guint) ev->peer_world, ev->bytes, ev->tag, &pair[k++], error);
    if (ok && k > 0) {
      ok = pti_mpi_waitall (ctx, rank, k, pair, error);
      *appended += k + 1;
    }
    break;
  }
  case PTI_C_Probe: case PTI_C_Iprobe: case PTI_C_Mprobe: case PTI_C_Improbe:
    break;   /* the receive that follows carries the message */
  case PTI_C_Barrier: case PTI_C_Bcast: case PTI_C_Reduce: case PTI_C_Allreduce:
  case PTI_C_Gather: case PTI_C_Scatter: case PTI_C_Allgather: case PTI_C_Alltoall:
  case PTI_C_Alltoallv:
    if (!world) {
      skip (s, ev);   /* collectives on other communicators: not yet (issue 12) */
      break;
    }
    (*appended)++;
    switch (ev->code) {
    case PTI_C_Barrier: ok = pti_mpi_barrier (ctx, rank, error); break;
    case PTI_C_Bcast: ok = pti_mpi_bcast (ctx, rank, (guint) ev->peer_world, ev->bytes, error); break;
    case PTI_C_Reduce: ok = pti_mpi_reduce (ctx, rank, (guint) ev->peer_world, ev->bytes, error); break;
    case PTI_C_Allreduce: ok = pti_mpi_allreduce (ctx, rank, ev->bytes, error); break;
    case PTI_C_Gather: ok = pti_mpi_gather (ctx, rank, (guint) ev->peer_world, ev->bytes, error); break;
    case PTI_C_Scatter: ok = pti_mpi_scatter (ctx, rank, (guint) ev->peer_world, ev->rbytes, error); break;
    case PTI_C_Allgather: ok = pti_mpi_allgather (ctx, rank, ev->bytes, error); break;
    case PTI_C_Alltoall: ok = pti_mpi_alltoall (ctx, rank, ev->bytes, error); break;
    default:
      if (ev->n_scounts != s->n || ev->n_rcounts != s->n)
        return fail (error, s, rank, ev, "count arrays are not one per rank");
      memcpy (s->sbytes, ev->scounts, s->n * sizeof (guint64));
      memcpy (s->rbytes, ev->rcounts, s->n * sizeof (guint64));
      ok = pti_mpi_alltoallv (ctx, rank, s->sbytes, s->rbytes, error);
    }
    if (!ok)
      return FALSE;
    break;
  case PTI_C_Send_init: case PTI_C_Ssend_init: case PTI_C_Bsend_init: case PTI_C_Rsend_init:
  case PTI_C_Recv_init: case PTI_C_Start: case PTI_C_Startall: case PTI_C_Imrecv:
    return fail (error, s, rank, ev, "persistent and matched-probe requests are not replayed yet");
  case PTI_C_Abort:
    return fail (error, s, rank, ev, "the program called MPI_Abort: nothing to predict after it");
  case PTI_C_File_open: case PTI_C_File_close: case PTI_C_File_write_at: case PTI_C_File_read_at:
  case PTI_C_File_write_at_all: case PTI_C_File_read_at_all: case PTI_C_File_write:
  case PTI_C_File_read: case PTI_C_File_write_all: case PTI_C_File_read_all:
    (*appended)++;
    ok = replay_file (s, ctx, rank, ev, world, error);
    break;
  default:
    if (ev->layout >= PTI_L_BARRIER && ev->layout <= PTI_L_REDUCE_SCATTER_BLOCK)
      skip (s, ev);   /* a collective the WSL does not have yet */
    break;           /* no communication (rank, size, info, communicator set-up) */
  }
  if (!ok)
    g_prefix_error (error, "%s: rank %u, call %" G_GUINT64_FORMAT " (%s): ", s->dir, rank,
                    ev->index, ev->name);
  return ok;
}

static gboolean
capture_pull (PtiContext *ctx, guint rank, gpointer data, gboolean *done, GError **error)
{
  CaptureSource *s = data;
  RankState *st = &s->ranks[rank];
  if (st->reader == NULL) {
    st->reader = pti_capture_rank_open (s->trace, rank, error);
    if (st->reader == NULL)
      return FALSE;
    pti_capture_rank_set_mark_func (st->reader, replay_mark, st);
  }
  guint appended = 0;
  st->source = s;
  st->ctx = ctx;
  st->rank = rank;
  st->appended = &appended;
  if (st->ended) {
    *done = TRUE;
    return TRUE;
  }
  while (appended < BATCH) {
    PtiCaptureEvent ev;
    gboolean end = FALSE;
    if (!pti_capture_rank_next (st->reader, &ev, &end, error))
      return FALSE;   /* INCOMPLETE among them: a cut trace is never a prediction */
    if (end) {
      st->ended = TRUE;
      *done = appended == 0;
      return TRUE;
    }
    if (!replay_one (s, ctx, rank, &ev, &appended, error))
      return FALSE;
  }
  return TRUE;
}

gboolean
pti_capture_looks_like (const char *path)
{
  g_autofree char *rank0 = g_build_filename (path, "rank-0.ptc", NULL);
  return g_file_test (path, G_FILE_TEST_IS_DIR) && g_file_test (rank0, G_FILE_TEST_EXISTS);
}

gboolean
pti_capture_replay_build (PtiContext *ctx, const char *dir, GError **error)
{
  PtiCaptureTrace *trace = pti_capture_trace_open (dir, error);
  if (trace == NULL)
    return FALSE;
  guint n = pti_capture_trace_n_ranks (trace);
  if (!pti_context_set_processes (ctx, n, error)) {
    pti_capture_trace_free (trace);
    return FALSE;
  }
  /* A burst is priced by the CPU model as its measured wall time in ns,
   * times the cost of one IADD: a system whose cpu-clc says IADD costs 1 ns
   * replays at the capture host's speed (CPU ratio 1). */
  PtiRud *burst = pti_rud_new (ctx, "capture burst",
                               "<rud device='cpu'><compute of='pti_burst_ns*IADD'/></rud>", error);
  if (burst == NULL) {
    pti_capture_trace_free (trace);
    return FALSE;
  }
  CaptureSource *s = g_new0 (CaptureSource, 1);
  s->trace = trace;
  s->n = n;
  s->dir = g_strdup (dir);
  s->ranks = g_new0 (RankState, n);
  for (guint r = 0; r < n; r++)
    s->ranks[r].requests = g_hash_table_new (g_direct_hash, g_direct_equal);
  s->burst = burst;
  s->burst_slot = pti_symbols_intern (pti_context_get_symbols (ctx), "pti_burst_ns");
  s->sbytes = g_new (guint64, n);
  s->rbytes = g_new (guint64, n);
  s->skipped = g_hash_table_new (g_direct_hash, g_direct_equal);
  if (!pti_context_set_source (ctx, capture_pull, s, capture_source_free, error)) {
    capture_source_free (s);   /* not taken: the context frees it only once set */
    return FALSE;
  }
  return TRUE;
}
