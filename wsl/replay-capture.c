/* Replay of a pticapture trace (capture/FORMAT.md) as a pull source: each
 * rank's file is read through the capture reader a batch of calls at a
 * time, when the evaluation needs that rank, so memory holds the requests
 * and communicators in flight, never the run.  What each call becomes:
 * capture/README.md, section "Replay". */
#include "replay.h"
#include "coll-private.h"

#include <string.h>

#include "capture-reader.h"
#include "pti/wsl.h"

#define BATCH 32          /* device uses appended per pull: the WSL's advice */

/* What a captured request is in the replay, kept per rank by its capture
 * id: REQ_ACTIVE with the pti request that stands for it; REQ_NONE active
 * with nothing to wait for (a peer MPI_PROC_NULL, a collective of one
 * rank, a receive from MPI_ANY_SOURCE, posted when its completion says
 * from where); REQ_IDLE a persistent request not started. */
enum { REQ_ACTIVE, REQ_NONE, REQ_IDLE };
#define REQ_PACK(state, req) ((gpointer) (gsize) ((((guint64) (req)) << 2 | (state)) + 1))
#define REQ_STATE(v) ((guint) (((gsize) (v) - 1) & 3))
#define REQ_PTI(v) ((PtiRequest) (((gsize) (v) - 1) >> 2))

typedef struct {
  PtiCaptureRank *reader;
  GHashTable *requests;   /* capture id -> REQ_PACK */
  GArray *orphans;        /* PtiRequest: freed by MPI_Request_free while active */
  gboolean started;       /* past MPI_Init: bursts before it are start-up, not the program */
  gboolean ended;         /* the reader said the file is through */
  guint64 t_done;         /* ns: computation replayed up to here */
  guint32 mprobe_comm;    /* the communicator of the last matched probe (MPI_Mrecv has none) */
  GArray *files;          /* PtiFile by the capture's local file id (MPI-IO), or NULL */
  GArray *posix_files;    /* the same for the POSIX files, an id space of their own */
  gint8 mounted;          /* its node mounts a file system: 1 yes, -1 no, 0 not asked yet */
  double dur_floor_ns;    /* what the capture adds to each call's dur (HEADER dur_floor_ns) */
  guint64 coll_called;    /* bit kind (+ 32 non-blocking): collective functions called */
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
  GHashTable *comms;           /* communicator key (guint64 *) -> PtiComm *, shared by its ranks */
  PtiRequest *reqs;            /* waitall scratch */
  guint n_reqs;
  PtiReplayNotes *notes;       /* what is not replayed, by name (outlives the source) */
  char *dir;
} CaptureSource;

/* Where a call communicates: @comm (NULL: the world) with peers given as
 * ranks of it, or, with @by_world, the world with peers given as world
 * ranks (MPI_COMM_SELF and inter-communicators); @size its ranks. */
typedef struct {
  const PtiComm *comm;
  gboolean by_world, inter;
  guint size;
} Where;

static void
capture_source_free (gpointer data)
{
  CaptureSource *s = data;
  for (guint r = 0; r < s->n; r++) {
    if (s->ranks[r].reader)
      pti_capture_rank_free (s->ranks[r].reader);
    g_hash_table_destroy (s->ranks[r].requests);
    g_array_unref (s->ranks[r].orphans);
    if (s->ranks[r].files)
      g_array_unref (s->ranks[r].files);
    if (s->ranks[r].posix_files)
      g_array_unref (s->ranks[r].posix_files);
  }
  g_free (s->ranks);
  g_hash_table_destroy (s->comms);
  g_free (s->reqs);
  pti_capture_trace_free (s->trace);
  g_free (s->dir);
  g_free (s);
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

/* The pti communicator of captured communicator @c (first seen by @rank in
 * call @ev): one per key, made at its first sight by any member, over the
 * world ranks the capture gives; its name says where it came from. */
static gboolean
where_of (CaptureSource *s, PtiContext *ctx, guint rank, const PtiCaptureEvent *ev,
          guint32 id, const PtiCaptureComm *c, Where *w, GError **error)
{
  *w = (Where) { .size = s->n };
  if (id == PTI_COMM_WORLD_ID)
    return TRUE;
  if (c == NULL)
    return fail (error, s, rank, ev, "its communicator is not one the trace defines");
  if (c->inter) {
    *w = (Where) { .by_world = TRUE, .inter = TRUE, .size = c->n_members };
    return TRUE;
  }
  if (c->n_members <= 1) {
    *w = (Where) { .by_world = TRUE, .size = c->n_members };
    return TRUE;
  }
  PtiComm *pc = g_hash_table_lookup (s->comms, &c->key);
  if (pc == NULL) {
    guint *members = g_new (guint, c->n_members);
    for (guint i = 0; i < c->n_members; i++) {
      if (c->members[i] < 0 || (guint) c->members[i] >= s->n) {
        g_free (members);
        return fail (error, s, rank, ev, "its communicator has a member outside MPI_COMM_WORLD "
                     "(a spawned or connected process): not replayed");
      }
      members[i] = (guint) c->members[i];
    }
    g_autofree char *name = g_strdup_printf ("communicator %u of rank %u", id, rank);
    pc = pti_comm_create (ctx, NULL, name, c->n_members, members, error);
    g_free (members);
    if (pc == NULL) {
      g_prefix_error (error, "%s: rank %u, call %" G_GUINT64_FORMAT " (%s): ", s->dir, rank,
                      ev->index, ev->name);
      return FALSE;
    }
    g_hash_table_insert (s->comms, g_memdup2 (&c->key, sizeof c->key), pc);
  }
  *w = (Where) { .comm = pc, .size = c->n_members };
  return TRUE;
}

static gboolean
where_of_event (CaptureSource *s, PtiContext *ctx, guint rank, const PtiCaptureEvent *ev,
                Where *w, GError **error)
{
  return where_of (s, ctx, rank, ev, ev->comm, ev->comm_info, w, error);
}

static inline guint
peer_in (const Where *w, gint32 peer, gint32 peer_world)
{
  return (guint) (w->by_world ? peer_world : peer);
}

static void
remember (RankState *st, guint64 id, guint state, PtiRequest req)
{
  g_hash_table_insert (st->requests, GSIZE_TO_POINTER (id), REQ_PACK (state, req));
}

/* Posts a send or receive of request @q (a non-blocking call, or a
 * persistent request started) and remembers it under @id. */
static gboolean
post (CaptureSource *s, PtiContext *ctx, guint rank, const PtiCaptureEvent *ev, guint64 id,
      const PtiCaptureRequest *q, guint *appended, GError **error)
{
  RankState *st = &s->ranks[rank];
  if (q->peer < 0) {   /* MPI_PROC_NULL; MPI_ANY_SOURCE, posted at its completion */
    remember (st, id, REQ_NONE, 0);
    return TRUE;
  }
  const PtiCaptureComm *c = q->comm == ev->comm ? ev->comm_info
                                                : pti_capture_rank_comm (st->reader, q->comm);
  Where w;
  if (!where_of (s, ctx, rank, ev, q->comm, c, &w, error))
    return FALSE;
  gint32 world = w.by_world ? (q->comm == PTI_COMM_WORLD_ID ? q->peer
                               : (c->inter ? c->remote[q->peer] : c->members[q->peer]))
                            : q->peer;
  guint peer = (guint) world;
  PtiRequest req;
  gboolean ok;
  if (q->is_recv)
    ok = pti_mpi_irecv_comm (ctx, w.comm, rank, peer, q->bytes, q->tag, &req, error);
  else if (q->code == PTI_C_Issend || q->code == PTI_C_Ssend_init)
    ok = pti_mpi_issend_comm (ctx, w.comm, rank, peer, q->bytes, q->tag, &req, error);
  else
    ok = pti_mpi_isend_comm (ctx, w.comm, rank, peer, q->bytes, q->tag, &req, error);
  if (!ok)
    return FALSE;
  (*appended)++;
  remember (st, id, REQ_ACTIVE, req);
  return TRUE;
}

/* Completes the requests a wait or test call completed, each by the request
 * MPI says completed (a waitany's pick is known from the capture).  A
 * receive from MPI_ANY_SOURCE (or MPI_Imrecv) was not posted at its call
 * (its source was unknown then): it is posted here, from the source the
 * status gave. */
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
      continue;   /* a request of a call not replayed (noted there) */
    gboolean persistent = c->info && c->info->persistent;
    if (persistent)
      remember (st, c->request, REQ_IDLE, 0);
    else
      g_hash_table_remove (st->requests, GSIZE_TO_POINTER (c->request));
    if (c->cancelled) {
      /* It took no message.  One posted from MPI_ANY_SOURCE was not posted
       * yet: nothing to do.  The engine cannot withdraw one it has. */
      if (REQ_STATE (v) == REQ_ACTIVE)
        return fail (error, s, rank, ev, "completes a request that MPI_Cancel withdrew: pti "
                     "cannot withdraw a posted send or receive, so this run is not replayed");
      pti_replay_notes_add (s->notes, "cancelled requests", "MPI_Cancel withdrew them before "
                            "they took a message: nothing to replay", 1);
      continue;
    }
    PtiRequest req = REQ_PTI (v);
    if (REQ_STATE (v) != REQ_ACTIVE) {
      if (c->info == NULL || !c->info->is_recv || c->info->peer != PTI_PEER_ANY
          || c->source_world < 0 || !c->has_bytes)
        continue;   /* nothing to wait for, or from MPI_PROC_NULL */
      guint32 cid = c->info->code == PTI_C_Imrecv ? st->mprobe_comm : c->info->comm;
      const PtiCaptureComm *cc = cid == ev->comm ? ev->comm_info
                                                 : pti_capture_rank_comm (st->reader, cid);
      Where w;
      if (!where_of (s, ctx, rank, ev, cid, cc, &w, error))
        return FALSE;
      if (!pti_mpi_irecv_comm (ctx, w.comm, rank, peer_in (&w, c->source, c->source_world),
                               c->bytes, c->tag, &req, error))
        return FALSE;
      (*appended)++;
    }
    s->reqs[n++] = req;
  }
  if (n == 0)
    return TRUE;
  *appended += 1;
  return n == 1 ? pti_mpi_wait (ctx, rank, s->reqs[0], error)
                : pti_mpi_waitall (ctx, rank, n, s->reqs, error);
}

/* MPI_Start(all): each persistent request posts what it was made for. */
static gboolean
start (CaptureSource *s, PtiContext *ctx, guint rank, const PtiCaptureEvent *ev,
       guint *appended, GError **error)
{
  for (guint i = 0; i < ev->n_requests; i++) {
    const PtiCaptureCompletion *c = &ev->requests[i];
    if (c->info == NULL || !c->info->persistent)
      return fail (error, s, rank, ev, "starts a request that is not persistent");
    if (!post (s, ctx, rank, ev, c->request, c->info, appended, error))
      return FALSE;
  }
  return TRUE;
}

/* MPI_Request_free: a request freed while active still completes (MPI
 * lets it): its pti request is waited for at MPI_Finalize. */
static void
request_free (CaptureSource *s, guint rank, const PtiCaptureEvent *ev)
{
  RankState *st = &s->ranks[rank];
  for (guint i = 0; i < ev->n_requests; i++) {
    gpointer v;
    guint64 id = ev->requests[i].request;
    if (!g_hash_table_lookup_extended (st->requests, GSIZE_TO_POINTER (id), NULL, &v))
      continue;
    if (REQ_STATE (v) == REQ_ACTIVE) {
      PtiRequest req = REQ_PTI (v);
      g_array_append_val (st->orphans, req);
    }
    g_hash_table_remove (st->requests, GSIZE_TO_POINTER (id));
  }
}

static gint
by_id (gconstpointer a, gconstpointer b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;
  return x < y ? -1 : x > y;
}

/* At MPI_Finalize: the active requests the program never completed join
 * the orphans (in the order they were made), noted by count. */
static gboolean
leaked (CaptureSource *s, guint rank)
{
  RankState *st = &s->ranks[rank];
  g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (guint64));
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init (&it, st->requests);
  while (g_hash_table_iter_next (&it, &k, &v))
    if (REQ_STATE (v) == REQ_ACTIVE) {
      guint64 id = GPOINTER_TO_SIZE (k);
      g_array_append_val (ids, id);
    }
  g_array_sort (ids, by_id);
  for (guint i = 0; i < ids->len; i++) {
    gpointer key = GSIZE_TO_POINTER (g_array_index (ids, guint64, i));
    PtiRequest req = REQ_PTI (g_hash_table_lookup (st->requests, key));
    g_array_append_val (st->orphans, req);
    g_hash_table_remove (st->requests, key);
  }
  if (ids->len > 0)
    pti_replay_notes_add (s->notes, "requests the program never completed", "completed at "
                          "MPI_Finalize, as MPI completes them", ids->len);
  return TRUE;
}

/* The own time of a call that no model prices (capture/README.md,
 * "Replay": a poll that found nothing, a local function, ...), as
 * computation priced like the bursts: its dur less what the capture adds
 * to each call's (the floor the capture library measured, once per call a
 * REPEAT stands for), never below 0. */
static gboolean
replay_own (CaptureSource *s, PtiContext *ctx, guint rank, const PtiCaptureEvent *ev,
            guint *appended, GError **error)
{
  const RankState *st = &s->ranks[rank];
  double ns = (double) (ev->t_end - ev->t_start) - st->dur_floor_ns * (double) ev->count;
  if (!st->started || !(ns > 0))
    return TRUE;
  if (!pti_use_time (ctx, rank, ns * 1e-9, error))
    return FALSE;
  (*appended)++;
  return TRUE;
}

/* With --by-call, what @call_fn replays of @ev goes in the phase of
 * @name, and @ev's measured time (@measured_ns over @calls calls) beside
 * it. */
typedef gboolean (*ReplayFn) (CaptureSource *s, PtiContext *ctx, guint rank,
                              const PtiCaptureEvent *ev, guint *appended, GError **error);

static gboolean
replay_tracked (CaptureSource *s, PtiContext *ctx, guint rank, const char *name, guint64 calls,
                double measured_ns, ReplayFn call_fn, const PtiCaptureEvent *ev,
                guint *appended, GError **error)
{
  guint call = pti_replay_notes_call (s->notes, name);
  const char *phase = pti_replay_notes_call_phase (s->notes, call);
  pti_replay_notes_call_add (s->notes, call, rank, calls, MAX (0.0, measured_ns) * 1e-9);
  if (!pti_phase_begin (ctx, rank, phase, error))
    return FALSE;
  (*appended)++;
  if (!call_fn (s, ctx, rank, ev, appended, error))
    return FALSE;
  (*appended)++;
  return pti_phase_end (ctx, rank, phase, error);
}

static gboolean
replay_burst_time (CaptureSource *s, PtiContext *ctx, guint rank, const PtiCaptureEvent *ev,
                   guint *appended, GError **error)
{
  (void) s;
  /* The wall time between the calls, priced by the computer's CPU model
   * (cpu-time, or cpu-clc with a speed_ratio: t / speed_ratio). */
  if (!pti_use_time (ctx, rank, (double) ev->burst_ns * 1e-9, error))
    return FALSE;
  (*appended)++;
  return TRUE;
}

static gboolean
replay_burst (CaptureSource *s, PtiContext *ctx, guint rank, guint64 ns, guint *appended,
              GError **error)
{
  if (!s->ranks[rank].started || ns == 0)
    return TRUE;
  PtiCaptureEvent burst = { .burst_ns = ns };
  if (pti_replay_notes_tracks_calls (s->notes))
    return replay_tracked (s, ctx, rank, "computation", 1, (double) ns, replay_burst_time,
                           &burst, appended, error);
  return replay_burst_time (s, ctx, rank, &burst, appended, error);
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

/* The collective of capture code @code (blocking 53-69, non-blocking 71-87
 * the same order), COLL_N if none. */
static CollKind
coll_kind (guint code)
{
  static const CollKind kinds[] = {
    COLL_BARRIER, COLL_BCAST, COLL_REDUCE, COLL_ALLREDUCE, COLL_GATHER, COLL_GATHERV,
    COLL_SCATTER, COLL_SCATTERV, COLL_ALLGATHER, COLL_ALLGATHERV, COLL_ALLTOALL,
    COLL_ALLTOALLV, COLL_ALLTOALLV /* alltoallw: bytes per peer, as alltoallv */,
    COLL_REDUCE_SCATTER, COLL_REDUCE_SCATTER_BLOCK, COLL_SCAN, COLL_EXSCAN,
  };
  G_STATIC_ASSERT (G_N_ELEMENTS (kinds) == PTI_C_Exscan - PTI_C_Barrier + 1);
  G_STATIC_ASSERT (PTI_C_Iexscan - PTI_C_Ibarrier == PTI_C_Exscan - PTI_C_Barrier);
  if (code >= PTI_C_Barrier && code <= PTI_C_Exscan)
    return kinds[code - PTI_C_Barrier];
  if (code >= PTI_C_Ibarrier && code <= PTI_C_Iexscan)
    return kinds[code - PTI_C_Ibarrier];
  return COLL_N;
}

/* A communicator made by @ev over its parent (the call's communicator):
 * the messages that agree on it and the library's set-up
 * (pti_mpi_comm_setup).  An idup is made at the call, as the blocking
 * dup: what overlaps it is not known until its wait. */
static gboolean
replay_comm_setup (CaptureSource *s, PtiContext *ctx, guint rank, const PtiCaptureEvent *ev,
                   guint *appended, GError **error)
{
  Where w;
  if (!where_of_event (s, ctx, rank, ev, &w, error))
    return FALSE;
  PtiCommSetup kind;
  switch (ev->code) {
  case PTI_C_Comm_split: case PTI_C_Comm_split_type:
    kind = PTI_COMM_SETUP_SPLIT;
    break;
  case PTI_C_Cart_create: case PTI_C_Cart_sub: case PTI_C_Graph_create:
  case PTI_C_Dist_graph_create: case PTI_C_Dist_graph_create_adjacent:
    kind = PTI_COMM_SETUP_TOPOLOGY;
    break;
  default:
    kind = PTI_COMM_SETUP_PLAIN;
  }
  /* MPI_COMM_SELF, one-rank parents: nothing to agree on; an
   * inter-communicator (intercomm_merge): its agreement is not modelled */
  if (w.inter || w.size <= 1)
    kind |= PTI_COMM_SETUP_ALONE;
  if (w.inter)
    pti_replay_notes_add (s->notes, ev->name, "communicators made over an inter-communicator: "
                          "the local set-up only, no agreement messages", 1);
  *appended += 5;
  return pti_mpi_comm_setup (ctx, w.comm, rank, kind, error);
}

/* A collective call: its block size and vectors as pti's collectives take
 * them (pti_coll_istart), from what MPI's arguments were on this rank. */
static gboolean
replay_collective (CaptureSource *s, PtiContext *ctx, guint rank, const PtiCaptureEvent *ev,
                   CollKind kind, guint *appended, GError **error)
{
  RankState *st = &s->ranks[rank];
  gboolean nb = ev->code >= PTI_C_Ibarrier;
  Where w;
  if (!where_of_event (s, ctx, rank, ev, &w, error))
    return FALSE;
  if (w.inter) {
    pti_replay_notes_add (s->notes, ev->name, "collectives on inter-communicators: no model "
                          "(their time is left out)", 1);
    if (nb)
      remember (st, ev->request, REQ_NONE, 0);
    return TRUE;
  }
  if (w.size <= 1) {   /* MPI_COMM_SELF and the like: no traffic, a local call */
    if (nb)
      remember (st, ev->request, REQ_NONE, 0);
    return replay_own (s, ctx, rank, ev, appended, error);
  }
  guint root = ev->peer >= 0 ? (guint) ev->peer : 0;
  guint64 n = 0;
  const guint64 *sendv = NULL, *recvv = NULL;
  switch (kind) {
  case COLL_BARRIER:
    break;
  case COLL_BCAST: case COLL_REDUCE: case COLL_ALLREDUCE: case COLL_SCAN: case COLL_EXSCAN:
    n = ev->bytes;
    break;
  case COLL_GATHER: case COLL_ALLGATHER: case COLL_ALLTOALL:
    /* the block each rank sends; MPI_IN_PLACE leaves the receive side */
    n = ev->in_place ? ev->rbytes : ev->bytes;
    break;
  case COLL_SCATTER:
    /* the block each rank receives; the root in place: the send side */
    n = ev->in_place ? ev->bytes : ev->rbytes;
    break;
  case COLL_REDUCE_SCATTER_BLOCK:
    n = ev->rbytes;
    break;
  case COLL_GATHERV:
    n = ev->bytes;
    recvv = ev->n_rcounts > 0 ? ev->rcounts : NULL;
    break;
  case COLL_SCATTERV:
    n = ev->rbytes;
    sendv = ev->n_scounts > 0 ? ev->scounts : NULL;
    break;
  case COLL_ALLGATHERV: case COLL_REDUCE_SCATTER:
    recvv = ev->rcounts;
    break;
  case COLL_ALLTOALLV:
    sendv = ev->scounts;
    recvv = ev->rcounts;
    if (ev->in_place || ev->n_scounts == 0)
      sendv = ev->rcounts;   /* in place: what a rank receives from j it sends to j */
    break;
  default:
    g_assert_not_reached ();
  }
  if ((sendv != NULL && (sendv == ev->scounts ? ev->n_scounts : ev->n_rcounts) != w.size)
      || (recvv != NULL && ev->n_rcounts != w.size))
    return fail (error, s, rank, ev, "its count arrays are not one per rank of the communicator");
  /* the function's first call in the process runs the library's code for
   * the first time (pti_mpi_call_setup): whatever the communicator */
  G_STATIC_ASSERT (COLL_N <= 32);
  guint64 bit = G_GUINT64_CONSTANT (1) << (kind + (nb ? 32 : 0));
  if (!(st->coll_called & bit)) {
    st->coll_called |= bit;
    (*appended)++;
    if (!pti_mpi_call_setup (ctx, rank, PTI_CALL_SETUP_FIRST_COLLECTIVE, error))
      return FALSE;
  }
  gboolean ok;
  if (nb) {
    PtiRequest req;
    ok = pti_coll_istart (ctx, w.comm, kind, rank, root, n, sendv, recvv, &req, error);
    if (ok)
      remember (st, ev->request, req == PTI_REQUEST_NULL ? REQ_NONE : REQ_ACTIVE, req);
  } else {
    ok = pti_coll_call (ctx, w.comm, kind, rank, root, n, sendv, recvv, error);
  }
  (*appended)++;
  return ok;
}

/* MPI functions recorded by name that make no communication and cannot
 * wait for another rank: their own time is replayed as computation.  Any
 * other function recorded by name is noted. */
static gboolean
is_local (const char *name)
{
  static const char *const prefixes[] = {
    "MPI_Comm_rank", "MPI_Comm_size", "MPI_Comm_remote_size", "MPI_Comm_test_inter",
    "MPI_Comm_compare", "MPI_Comm_group", "MPI_Comm_get_", "MPI_Comm_set_",
    "MPI_Comm_create_keyval", "MPI_Comm_free_keyval", "MPI_Comm_delete_attr",
    "MPI_Comm_create_errhandler", "MPI_Comm_call_errhandler", "MPI_Wtime", "MPI_Wtick",
    "MPI_Type_", "MPI_Get_", "MPI_Group_", "MPI_Cart_coords", "MPI_Cart_get", "MPI_Cart_rank",
    "MPI_Cart_shift", "MPI_Cart_map", "MPI_Cartdim_get", "MPI_Dims_create", "MPI_Graph_get",
    "MPI_Graph_map", "MPI_Graph_neighbors", "MPI_Graphdims_get", "MPI_Dist_graph_neighbors",
    "MPI_Topo_test", "MPI_Errhandler_", "MPI_Error_", "MPI_Add_error_", "MPI_Initialized",
    "MPI_Finalized", "MPI_Query_thread", "MPI_Is_thread_main", "MPI_Info_", "MPI_Attr_",
    "MPI_Keyval_", "MPI_Pack", "MPI_Unpack", "MPI_Address", "MPI_Alloc_mem", "MPI_Free_mem",
    "MPI_Buffer_attach", "MPI_Buffer_detach", "MPI_Status_", "MPI_Test_cancelled",
    "MPI_Op_commutative", "MPI_Pcontrol", "MPI_Request_get_status",
  };
  for (guint i = 0; i < G_N_ELEMENTS (prefixes); i++)
    if (g_str_has_prefix (name, prefixes[i]))
      return TRUE;
  return FALSE;
}

/* @files[@ev->file], which a recorded open (@open_name) of the rank made. */
static gboolean
file_of (GArray *files, const CaptureSource *s, guint rank, const PtiCaptureEvent *ev,
         const char *open_name, PtiFile *f, GError **error)
{
  if (ev->file == 0 || files == NULL || ev->file >= files->len) {
    g_autofree char *what = g_strdup_printf ("the file was not opened by a recorded %s", open_name);
    return fail (error, s, rank, ev, what);
  }
  *f = g_array_index (files, PtiFile, ev->file);
  return TRUE;
}

/* @f as file @id of @files (created when NULL). */
static void
file_set (GArray **files, guint64 id, PtiFile f)
{
  if (*files == NULL)
    *files = g_array_new (FALSE, TRUE, sizeof (PtiFile));
  if ((*files)->len <= id)
    g_array_set_size (*files, id + 1);
  g_array_index (*files, PtiFile, id) = f;
}

/* POSIX file calls (1.3) as the io device's, on the rank alone: open is
 * pti_io_open, write and pwrite pti_io_write_at at the offset they
 * started at, read and pread pti_io_read_at of the bytes they got (a read
 * at the end of the file moved fewer than it asked for), close
 * pti_io_close.  The caller has left out the calls that failed. */
static gboolean
replay_posix (CaptureSource *s, PtiContext *ctx, guint rank, const PtiCaptureEvent *ev,
              GError **error)
{
  RankState *st = &s->ranks[rank];
  if (st->mounted == 0) {
    const PtiSession *ss = pti_wsl_session (ctx);
    PtiProcessorInfo info;
    gboolean ok = pti_system_processor_info (pti_session_system (ss),
                                             pti_session_processor_of (ss, rank), &info);
    st->mounted = ok && info.io != NULL ? 1 : -1;
  }
  if (st->mounted < 0) {
    /* Nearly every program opens a file (LAMMPS its log): on a system
     * without file systems its prediction is its computation and
     * communication, and the notes say what was left out.  MPI-IO calls,
     * which a program makes to do I/O, are an error there instead. */
    pti_replay_notes_add (s->notes, "POSIX file calls on a node that mounts no file system",
                          "add a <filesystem> and a <mount> to the system to predict them", 1);
    return TRUE;
  }
  PtiFile f;
  if (ev->code == PTI_C_posix_open) {
    if (ev->file == 0)
      return fail (error, s, rank, ev, "an open that succeeded without a file id");
    if (!pti_io_open (ctx, rank, ev->file_name, NULL, &f, error))
      return FALSE;
    file_set (&st->posix_files, ev->file, f);
    return TRUE;
  }
  if (!file_of (st->posix_files, s, rank, ev, "open", &f, error))
    return FALSE;
  switch (ev->code) {
  case PTI_C_posix_close:
    return pti_io_close (ctx, rank, f, error);
  case PTI_C_posix_write: case PTI_C_posix_pwrite:
    return pti_io_write_at (ctx, rank, f, ev->offset, ev->bytes, error);
  default:   /* read, pread */
    return pti_io_read_at (ctx, rank, f, ev->offset, ev->bytes, error);
  }
}

/* MPI-IO calls as the io device's: MPI_File_open on a communicator of
 * several ranks is pti_io_open_all over it, on MPI_COMM_SELF (or another
 * one-rank communicator) pti_io_open; accesses through the individual
 * file pointer were recorded with the byte offset they started at, so they
 * replay as the explicit-offset calls. */
static gboolean
replay_file (CaptureSource *s, PtiContext *ctx, guint rank, const PtiCaptureEvent *ev,
             GError **error)
{
  RankState *st = &s->ranks[rank];
  if (ev->error != 0)
    return TRUE;   /* a call that failed did nothing to the file */
  if (ev->code == PTI_C_File_open) {
    Where w;
    if (!where_of_event (s, ctx, rank, ev, &w, error))
      return FALSE;
    if (w.inter)
      return fail (error, s, rank, ev, "MPI_File_open on an inter-communicator is not replayed");
    PtiFile f;
    gboolean alone = w.by_world && w.size <= 1;
    if (!(alone ? pti_io_open (ctx, rank, ev->file_name, NULL, &f, error)
                : pti_io_open_all (ctx, w.comm, rank, ev->file_name, NULL, &f, error)))
      return FALSE;
    file_set (&st->files, ev->file, f);
    return TRUE;
  }
  PtiFile f;
  if (!file_of (st->files, s, rank, ev, "MPI_File_open", &f, error))
    return FALSE;
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

static gboolean replay_call (CaptureSource *s, PtiContext *ctx, guint rank,
                             const PtiCaptureEvent *ev, guint *appended, GError **error);

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
  /* The span measured ends where MPI_Finalize starts (as the replay's
   * prediction does); a call's own time is what the capture adds less, as
   * replay_own takes it. */
  if (!pti_replay_notes_tracks_calls (s->notes) || !st->started || ev->code == PTI_C_Finalize)
    return replay_call (s, ctx, rank, ev, appended, error);
  guint64 calls = MAX (ev->count, 1);
  double own = (double) (ev->t_end - ev->t_start) - st->dur_floor_ns * (double) calls;
  return replay_tracked (s, ctx, rank, ev->name, calls, own, replay_call, ev, appended, error);
}

static gboolean
replay_call (CaptureSource *s, PtiContext *ctx, guint rank, const PtiCaptureEvent *ev,
             guint *appended, GError **error)
{
  RankState *st = &s->ranks[rank];
  if (ev->code == PTI_C_generic) {
    if (is_local (ev->name))
      return replay_own (s, ctx, rank, ev, appended, error);
    pti_replay_notes_add (s->notes, ev->name, "no model for this MPI function: its time on "
                          "the capture host is left out", ev->count);
    return TRUE;
  }
  if (ev->count > 1)   /* a REPEAT of polls that found nothing */
    return replay_own (s, ctx, rank, ev, appended, error);
  if (ev->error != 0) {
    if (PTI_CAPTURE_IS_POSIX (ev->code))
      pti_replay_notes_add (s->notes, "POSIX file calls that failed", "the C library returned "
                            "-1 (the errno in the capture): not replayed", 1);
    else
      pti_replay_notes_add (s->notes, "calls that returned an error", "MPI_ERRORS_RETURN: the "
                            "call did nothing, and is not replayed", 1);
    return TRUE;
  }
  gboolean ok = TRUE;
  gboolean own = FALSE;   /* a call no model prices: its own time is computation */
  guint before = *appended;
  Where w;
  CollKind kind = coll_kind (ev->code);
  switch (kind != COLL_N ? G_MAXUINT : ev->code) {
  case G_MAXUINT:
    ok = replay_collective (s, ctx, rank, ev, kind, appended, error);
    break;
  case PTI_C_Send: case PTI_C_Ssend: case PTI_C_Bsend: case PTI_C_Rsend:
    if (ev->peer < 0) {
      own = TRUE;   /* MPI_PROC_NULL: a local call */
      break;
    }
    if (!where_of_event (s, ctx, rank, ev, &w, error))
      return FALSE;
    ok = ev->code == PTI_C_Ssend
      ? pti_mpi_ssend_comm (ctx, w.comm, rank, peer_in (&w, ev->peer, ev->peer_world), ev->bytes,
                            ev->tag, error)
      : pti_mpi_send_comm (ctx, w.comm, rank, peer_in (&w, ev->peer, ev->peer_world), ev->bytes,
                           ev->tag, error);
    (*appended)++;
    break;
  case PTI_C_Recv: case PTI_C_Mrecv: case PTI_C_Probe: case PTI_C_Mprobe: {
    /* from where, with the tag and bytes the status says (so MPI_ANY_SOURCE
     * and MPI_ANY_TAG are what happened) */
    if (!ev->has_status || !ev->status.has_bytes || ev->status.source < 0) {
      own = TRUE;   /* MPI_PROC_NULL: a local call */
      break;
    }
    guint32 cid = ev->code == PTI_C_Mrecv ? st->mprobe_comm : ev->comm;
    if (ev->code == PTI_C_Mprobe)
      st->mprobe_comm = ev->comm;
    const PtiCaptureComm *cc = cid == ev->comm ? ev->comm_info
                                               : pti_capture_rank_comm (st->reader, cid);
    if (!where_of (s, ctx, rank, ev, cid, cc, &w, error))
      return FALSE;
    guint src = peer_in (&w, ev->status.source, ev->status.source_world);
    ok = ev->code == PTI_C_Recv || ev->code == PTI_C_Mrecv
      ? pti_mpi_recv_comm (ctx, w.comm, rank, src, ev->status.bytes, ev->status.tag, error)
      : pti_mpi_probe_comm (ctx, w.comm, rank, src, ev->status.tag, error);
    (*appended)++;
    break;
  }
  case PTI_C_Iprobe: case PTI_C_Improbe:
    /* a poll: its own time; one that found a message is followed by the
     * receive that takes it, which the network model prices */
    if (ev->code == PTI_C_Improbe && ev->flag)
      st->mprobe_comm = ev->comm;
    own = TRUE;
    break;
  case PTI_C_Isend: case PTI_C_Issend: case PTI_C_Ibsend: case PTI_C_Irsend:
  case PTI_C_Irecv: case PTI_C_Imrecv: {
    PtiCaptureRequest q = {
      .code = ev->code, .peer = ev->code == PTI_C_Imrecv ? PTI_PEER_ANY : ev->peer,
      .tag = ev->tag, .bytes = ev->bytes, .comm = ev->comm,
      .is_recv = ev->code == PTI_C_Irecv || ev->code == PTI_C_Imrecv,
    };
    if (ev->code == PTI_C_Imrecv && st->mprobe_comm == 0)
      return fail (error, s, rank, ev, "no matched probe (MPI_Mprobe, MPI_Improbe) before it");
    ok = post (s, ctx, rank, ev, ev->request, &q, appended, error);
    break;
  }
  case PTI_C_Send_init: case PTI_C_Ssend_init: case PTI_C_Bsend_init: case PTI_C_Rsend_init:
  case PTI_C_Recv_init:
    remember (st, ev->request, REQ_IDLE, 0);   /* posted by each MPI_Start */
    own = TRUE;
    break;
  case PTI_C_Start: case PTI_C_Startall:
    ok = start (s, ctx, rank, ev, appended, error);
    break;
  case PTI_C_Request_free:
    request_free (s, rank, ev);
    own = TRUE;
    break;
  case PTI_C_Wait: case PTI_C_Waitall: case PTI_C_Waitany: case PTI_C_Waitsome:
  case PTI_C_Test: case PTI_C_Testall: case PTI_C_Testany: case PTI_C_Testsome:
  case PTI_C_Request_get_status:
    ok = complete (s, ctx, rank, ev, appended, error);
    own = *appended == before;   /* nothing to wait for: a test that found nothing */
    break;
  case PTI_C_Sendrecv: case PTI_C_Sendrecv_replace: {
    /* Both halves in flight at once, as MPI_Sendrecv does. */
    if (!where_of_event (s, ctx, rank, ev, &w, error))
      return FALSE;
    PtiRequest pair[2];
    guint k = 0;
    if (ev->has_status && ev->status.has_bytes && ev->status.source >= 0)
      ok = pti_mpi_irecv_comm (ctx, w.comm, rank,
                               peer_in (&w, ev->status.source, ev->status.source_world),
                               ev->status.bytes, ev->status.tag, &pair[k++], error);
    if (ok && ev->peer >= 0)
      ok = pti_mpi_isend_comm (ctx, w.comm, rank, peer_in (&w, ev->peer, ev->peer_world),
                               ev->bytes, ev->tag, &pair[k++], error);
    if (ok && k > 0) {
      ok = pti_mpi_waitall (ctx, rank, k, pair, error);
      *appended += k + 1;
    }
    own = k == 0;   /* both sides MPI_PROC_NULL */
    break;
  }
  case PTI_C_Comm_dup: case PTI_C_Comm_dup_with_info: case PTI_C_Comm_idup:
  case PTI_C_Comm_split: case PTI_C_Comm_split_type: case PTI_C_Comm_create:
  case PTI_C_Comm_create_group: case PTI_C_Cart_create: case PTI_C_Cart_sub:
  case PTI_C_Graph_create: case PTI_C_Dist_graph_create: case PTI_C_Dist_graph_create_adjacent:
  case PTI_C_Intercomm_create: case PTI_C_Intercomm_merge:
    /* the pti communicator is made at its first use (where_of), at no
     * cost; the call's time is the set-up's (pti_mpi_comm_setup) */
    ok = replay_comm_setup (s, ctx, rank, ev, appended, error);
    if (ev->code == PTI_C_Comm_idup)
      remember (st, ev->request, REQ_NONE, 0);
    break;
  case PTI_C_Reduce_local:
  case PTI_C_Op_create: case PTI_C_Op_free:
    own = TRUE;   /* arithmetic on this rank; operations made and freed */
    break;
  case PTI_C_Finalize:
    /* requests freed while active complete by now, and so do those the
     * program never completed (HPC Challenge's b_eff overwrites the handle
     * of an isend with the next one's) */
    if (!leaked (s, rank))
      break;
    if (st->orphans->len > 0) {
      ok = pti_mpi_waitall (ctx, rank, st->orphans->len, (PtiRequest *) (void *) st->orphans->data,
                            error);
      g_array_set_size (st->orphans, 0);
      (*appended)++;
    }
    break;
  case PTI_C_Abort:
    return fail (error, s, rank, ev, "the program called MPI_Abort: nothing to predict after it");
  case PTI_C_Cancel:
    own = TRUE;   /* noted at the completion that says it succeeded */
    break;
  case PTI_C_File_open: case PTI_C_File_close: case PTI_C_File_write_at: case PTI_C_File_read_at:
  case PTI_C_File_write_at_all: case PTI_C_File_read_at_all: case PTI_C_File_write:
  case PTI_C_File_read: case PTI_C_File_write_all: case PTI_C_File_read_all:
    (*appended)++;
    ok = replay_file (s, ctx, rank, ev, error);
    break;
  case PTI_C_posix_open: case PTI_C_posix_close: case PTI_C_posix_write: case PTI_C_posix_read:
  case PTI_C_posix_pwrite: case PTI_C_posix_pread:
    (*appended)++;
    ok = replay_posix (s, ctx, rank, ev, error);
    break;
  case PTI_C_Comm_free:
    /* local in Open MPI 4.1 (no messages): the library's own time */
    (*appended)++;
    ok = pti_mpi_call_setup (ctx, rank, PTI_CALL_SETUP_COMM_FREE, error);
    break;
  default:
    break;   /* communicators disconnected: collective, they may wait */
  }
  if (ok && own)
    ok = replay_own (s, ctx, rank, ev, appended, error);
  /* the WSL's errors say what; this says where (fail () said both) */
  if (!ok && error != NULL && *error != NULL && !g_str_has_prefix ((*error)->message, s->dir))
    g_prefix_error (error, "%s: rank %u, call %" G_GUINT64_FORMAT " (%s): ", s->dir, rank,
                    ev->index, ev->name);
  return ok;
}

/* What the capture adds to the dur of every call of @rank: the HEADER
 * property dur_floor_ns (FORMAT.md 6.1), 0 in a capture without it (taken
 * before pticapture measured it: its calls' own times then keep the
 * capture's two clock reads). */
static gboolean
dur_floor (const CaptureSource *s, guint rank, const PtiCaptureHeader *h, double *ns,
           GError **error)
{
  *ns = 0;
  for (guint i = 0; h->prop_keys != NULL && h->prop_keys[i] != NULL; i++) {
    if (strcmp (h->prop_keys[i], "dur_floor_ns") != 0)
      continue;
    char *end;
    *ns = g_ascii_strtod (h->prop_values[i], &end);
    if (end == h->prop_values[i] || *end != '\0' || !(*ns >= 0 && *ns < 1e9)) {
      g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s: rank %u: HEADER property "
                   "dur_floor_ns is '%s', not a time in ns", s->dir, rank, h->prop_values[i]);
      return FALSE;
    }
  }
  return TRUE;
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
    if (!dur_floor (s, rank, pti_capture_rank_header (st->reader), &st->dur_floor_ns, error))
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
    if (!pti_capture_rank_next (st->reader, &ev, &end, error)) {
      /* INCOMPLETE among them: a cut trace is never a prediction */
      if (error != NULL && *error != NULL && (*error)->domain == PTI_CAPTURE_ERROR)
        g_prefix_error (error, "%s: ", s->dir);
      return FALSE;
    }
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
pti_replay_capture (PtiContext *ctx, const char *dir, PtiReplayNotes *notes, GError **error)
{
  PtiCaptureTrace *trace = pti_capture_trace_open (dir, error);
  if (trace == NULL)
    return FALSE;
  guint n = pti_capture_trace_n_ranks (trace);
  if (!pti_context_set_processes (ctx, n, error)) {
    pti_capture_trace_free (trace);
    return FALSE;
  }
  CaptureSource *s = g_new0 (CaptureSource, 1);
  s->trace = trace;
  s->n = n;
  s->dir = g_strdup (dir);
  s->notes = notes;
  s->ranks = g_new0 (RankState, n);
  for (guint r = 0; r < n; r++) {
    s->ranks[r].requests = g_hash_table_new (g_direct_hash, g_direct_equal);
    s->ranks[r].orphans = g_array_new (FALSE, FALSE, sizeof (PtiRequest));
  }
  s->comms = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  if (!pti_context_set_source (ctx, capture_pull, s, capture_source_free, error)) {
    capture_source_free (s);   /* not taken: the context frees it only once set */
    return FALSE;
  }
  return TRUE;
}
