/* Communicators: the world, MPI_Comm_split, point-to-point within a
 * communicator, and the check that every member of a communicator makes the
 * same collective calls (wsl/COLLECTIVES.md).
 *
 * Matching contexts.  The engine matches a message only with receives of
 * the same context id.  The world uses PTI_COMM_WORLD (0) for point-to-point
 * and PTI_COMM_WORLD_COLLECTIVE (1) for the traffic collectives expand
 * into; split k (1, 2, ...) uses 2k and 2k + 1.  All communicators of one
 * split share their ids, as MPICH gives all of them the context id it
 * agrees on over the parent: their groups are disjoint, so no message can
 * pass from one to another.  The engine keeps ids in 16 bits: 32766 splits.
 *
 * Memory.  A split keeps, per world rank, its group and its rank there, the
 * groups' member lists and a count of collective calls: 20 bytes per
 * process.  The mismatch check keeps, per group, the calls some member has
 * made and some other has not compared yet (32 bytes each): with every rank
 * built one after another that is one rank's sequence of collective calls
 * on that communicator, and with ranks built phase by phase (all ranks'
 * iteration i, then i + 1) a phase's. */
#include "coll-private.h"

#include <stdlib.h>
#include <string.h>

#define MAX_SPLITS 32766u

/* ---- views and checks ------------------------------------------------------ */

gboolean
pti_comm_view (const PtiComm *comm, guint world_rank, CommView *view)
{
  if (comm->group_of == NULL) {
    guint n = pti_context_get_processes (comm->ctx);
    *view = (CommView) { 0, world_rank, n, NULL };
    return world_rank < n;
  }
  if (world_rank >= comm->n_world || comm->group_of[world_rank] == NO_GROUP) {
    *view = (CommView) { NO_GROUP, 0, 0, NULL };
    return FALSE;
  }
  guint g = comm->group_of[world_rank];
  *view = (CommView) {
    g, comm->rank_of[world_rank], comm->group_start[g + 1] - comm->group_start[g],
    comm->members + comm->group_start[g],
  };
  return TRUE;
}

char *
pti_comm_describe_rank (const PtiComm *comm, const CommView *view, guint r)
{
  if (view->members == NULL)
    return g_strdup_printf ("rank %u", r);
  return g_strdup_printf ("rank %u of '%s' (world rank %u)", r, comm->name, view->members[r]);
}

gboolean
pti_comm_check (PtiContext *ctx, const PtiComm *comm, const char *what, guint rank, CommView *view,
                GError **error)
{
  if (!pti_wsl_check_rank (ctx, what, rank, error))
    return FALSE;
  if (comm == NULL)
    comm = pti_comm_world (ctx);
  if (comm->ctx != ctx) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "%s on rank %u: communicator '%s' belongs to another context", what, rank,
                 comm->name);
    return FALSE;
  }
  if (!pti_comm_view (comm, rank, view)) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "%s on rank %u: rank %u belongs to no communicator of '%s' (its colour was "
                 "undefined, or it was not in the communicator split)", what, rank, rank,
                 comm->name);
    return FALSE;
  }
  return TRUE;
}

/* ---- the world and splits ---------------------------------------------------- */

static void
comm_free (PtiComm *comm)
{
  if (comm == NULL)
    return;
  for (guint g = 0; g < comm->n_groups; g++)
    g_free (comm->logs[g].rec);
  g_free (comm->logs);
  g_free (comm->calls);
  g_free (comm->group_of);
  g_free (comm->rank_of);
  g_free (comm->members);
  g_free (comm->group_start);
  g_free (comm->name);
  g_free (comm);
}

/* Called by pti_coll_state_free (collectives.c). */
void pti_comm_free_all (PtiCollState *st);

void
pti_comm_free_all (PtiCollState *st)
{
  comm_free (st->world);
  if (st->splits != NULL)
    for (guint i = 0; i < st->splits->len; i++)
      comm_free (g_ptr_array_index (st->splits, i));
  g_clear_pointer (&st->splits, g_ptr_array_unref);
}

/* Made with the state (collectives.c). */
PtiComm *pti_comm_new_world (PtiContext *ctx);

PtiComm *
pti_comm_new_world (PtiContext *ctx)
{
  PtiComm *w = g_new0 (PtiComm, 1);
  w->ctx = ctx;
  w->name = g_strdup ("world");
  w->id = 0;
  w->n_groups = 1;
  w->logs = g_new0 (CollLog, 1);
  return w;
}

PtiComm *
pti_comm_world (PtiContext *ctx)
{
  g_return_val_if_fail (ctx != NULL, NULL);
  return pti_coll_state (ctx)->world;
}

const char *
pti_comm_get_name (const PtiComm *comm)
{
  return comm->name;
}

gint
pti_comm_rank (const PtiComm *comm, guint world_rank)
{
  CommView v;
  return comm != NULL && pti_comm_view (comm, world_rank, &v) ? (gint) v.rank : -1;
}

guint
pti_comm_size (const PtiComm *comm, guint world_rank)
{
  CommView v;
  return comm != NULL && pti_comm_view (comm, world_rank, &v) ? v.size : 0;
}

guint
pti_comm_world_rank (const PtiComm *comm, guint world_rank, guint comm_rank)
{
  CommView v;
  if (comm == NULL || !pti_comm_view (comm, world_rank, &v) || comm_rank >= v.size)
    return G_MAXUINT;
  return v.members ? v.members[comm_rank] : comm_rank;
}

typedef struct {
  guint32 parent_group;
  gint colour;
  gint key;
  guint32 parent_rank;
  guint32 world;
} SplitEntry;

static int
compare_entries (const void *pa, const void *pb)
{
  const SplitEntry *a = pa, *b = pb;
  if (a->parent_group != b->parent_group)
    return a->parent_group < b->parent_group ? -1 : 1;
  if (a->colour != b->colour)
    return a->colour < b->colour ? -1 : 1;
  if (a->key != b->key)
    return a->key < b->key ? -1 : 1;
  return a->parent_rank < b->parent_rank ? -1 : a->parent_rank > b->parent_rank;
}

PtiComm *
pti_comm_split (PtiContext *ctx, const PtiComm *parent, const char *name, const gint *colour,
                const gint *key, GError **error)
{
  g_return_val_if_fail (ctx != NULL && colour != NULL, NULL);
  guint n = pti_context_get_processes (ctx);
  if (n == 0) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "split: the processes are not set yet (call pti_context_set_processes first)");
    return NULL;
  }
  PtiCollState *st = pti_coll_state (ctx);
  if (parent == NULL)
    parent = st->world;
  if (parent->ctx != ctx) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "split: communicator '%s' belongs to another context", parent->name);
    return NULL;
  }
  if (st->splits->len >= MAX_SPLITS) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "split '%s': too many communicator splits (at most %u per context)",
                 name ? name : "", MAX_SPLITS);
    return NULL;
  }

  /* Who goes where: sort the members by (parent group, colour, key, parent rank). */
  SplitEntry *e = g_new (SplitEntry, n);
  guint m = 0;
  for (guint w = 0; w < n; w++) {
    CommView v;
    if (colour[w] < 0 || !pti_comm_view (parent, w, &v))
      continue;
    e[m++] = (SplitEntry) { v.group, colour[w], key ? key[w] : 0, v.rank, w };
  }
  qsort (e, m, sizeof *e, compare_entries);

  PtiComm *c = g_new0 (PtiComm, 1);
  c->ctx = ctx;
  c->id = st->splits->len + 1;
  c->name = name ? g_strdup (name) : g_strdup_printf ("split %u", c->id);
  pti_engine_set_comm_name (pti_session_engine (pti_wsl_session (ctx)), c->id, c->name);
  c->n_world = n;
  c->group_of = g_new (guint32, n);
  c->rank_of = g_new0 (guint32, n);
  c->members = g_new (guint32, MAX (m, 1));
  for (guint w = 0; w < n; w++)
    c->group_of[w] = NO_GROUP;
  GArray *starts = g_array_new (FALSE, FALSE, sizeof (guint32));
  for (guint i = 0; i < m; i++) {
    if (i == 0 || e[i].parent_group != e[i - 1].parent_group || e[i].colour != e[i - 1].colour) {
      guint32 start = i;
      g_array_append_val (starts, start);
    }
    guint32 g = starts->len - 1;
    c->group_of[e[i].world] = g;
    c->rank_of[e[i].world] = i - g_array_index (starts, guint32, g);
    c->members[i] = e[i].world;
  }
  c->n_groups = starts->len;
  guint32 end = m;
  g_array_append_val (starts, end);
  c->group_start = (guint32 *) g_array_free (starts, FALSE);
  c->logs = g_new0 (CollLog, MAX (c->n_groups, 1));
  g_free (e);
  g_ptr_array_add (st->splits, c);
  return c;
}

/* MPI_Comm_dup: the same groups and ranks, a matching context of its own. */
PtiComm *
pti_comm_dup (PtiContext *ctx, const PtiComm *comm, const char *name, GError **error)
{
  g_return_val_if_fail (ctx != NULL, NULL);
  guint n = pti_context_get_processes (ctx);
  if (n == 0) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "dup: the processes are not set yet (call pti_context_set_processes first)");
    return NULL;
  }
  if (comm == NULL)
    comm = pti_comm_world (ctx);
  g_autofree gint *colour = g_new (gint, n);
  g_autofree gint *key = g_new (gint, n);
  for (guint w = 0; w < n; w++) {
    CommView v;
    gboolean in = pti_comm_view (comm, w, &v);
    colour[w] = in ? (gint) v.group : PTI_UNDEFINED;
    key[w] = in ? (gint) v.rank : 0;
  }
  return pti_comm_split (ctx, comm, name, colour, key, error);
}

/* MPI_Group_incl on the world's group, then MPI_Comm_create (or
 * MPI_Comm_create_group) over @parent: one communicator of @members, in
 * that order. */
PtiComm *
pti_comm_create (PtiContext *ctx, const PtiComm *parent, const char *name, guint n_members,
                 const guint *members, GError **error)
{
  g_return_val_if_fail (ctx != NULL && (n_members == 0 || members != NULL), NULL);
  guint n = pti_context_get_processes (ctx);
  const char *what = name ? name : "";
  if (n == 0) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "create '%s': the processes are not set yet (call pti_context_set_processes "
                 "first)", what);
    return NULL;
  }
  if (parent == NULL)
    parent = pti_comm_world (ctx);
  if (n_members == 0) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "create '%s': a communicator needs at least one member", what);
    return NULL;
  }
  g_autofree gint *colour = g_new (gint, n);
  g_autofree gint *key = g_new0 (gint, n);
  for (guint w = 0; w < n; w++)
    colour[w] = PTI_UNDEFINED;
  guint group = NO_GROUP;
  for (guint i = 0; i < n_members; i++) {
    guint w = members[i];
    CommView v;
    if (w >= n || !pti_comm_view (parent, w, &v)) {
      g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                   "create '%s': member %u, world rank %u, is %s", what, i, w,
                   w >= n ? "not a process" : "not in the parent communicator");
      return NULL;
    }
    if (colour[w] == 0) {
      g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                   "create '%s': world rank %u is listed twice", what, w);
      return NULL;
    }
    if (group != NO_GROUP && v.group != group) {
      g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                   "create '%s': world ranks %u and %u are in different communicators of '%s'; "
                   "the members must be a group of one of them", what, members[0], w,
                   parent->name);
      return NULL;
    }
    group = v.group;
    colour[w] = 0;
    key[w] = (gint) i;
  }
  return pti_comm_split (ctx, parent, name, colour, key, error);
}

/* ---- point-to-point: the one message path --------------------------------------- */

gboolean
pti_wsl_ssend (PtiContext *ctx, guint rank, guint peer, guint64 bytes, gint tag, guint context,
               PtiRequest *request, GError **error)
{
  PtiEngine *engine = pti_session_engine (pti_wsl_session (ctx));
  guint32 r = 0;
  gboolean ok = pti_engine_add_ssend (engine, rank, peer, bytes, tag, context,
                                      request ? &r : NULL, error);
  if (request != NULL)
    *request = r;
  return ok && pti_wsl_appended (ctx, error);
}

static gboolean
check_peer (const PtiComm *comm, const CommView *v, const char *what, guint rank, gboolean receive,
            guint peer, gint tag, GError **error)
{
  if (peer >= v->size && !(receive && peer == PTI_ANY_SOURCE) && peer != PTI_PROC_NULL) {
    if (v->members == NULL)
      g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                   "%s on rank %u: %s rank %u out of range (%u processes: ranks 0 to %u)",
                   what, rank, receive ? "source" : "destination", peer, v->size, v->size - 1);
    else
      g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                   "%s on rank %u: %s rank %u out of range (communicator '%s' of rank %u has "
                   "%u ranks: 0 to %u)", what, rank, receive ? "source" : "destination", peer,
                   comm->name, rank, v->size, v->size - 1);
    return FALSE;
  }
  if (tag < 0 && !(receive && tag == PTI_ANY_TAG)) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s on rank %u: tag %d must be >= 0%s",
                 what, rank, tag, receive ? " (or PTI_ANY_TAG)" : "");
    return FALSE;
  }
  return TRUE;
}

static inline guint
world_of (const CommView *v, guint peer)
{
  if (peer == PTI_ANY_SOURCE)
    return PTI_ENGINE_ANY_SOURCE;
  return v->members ? v->members[peer] : peer;
}

/* The point-to-point calls of the user's, on any communicator. */
typedef enum {
  P2P_SEND, P2P_RECV, P2P_ISEND, P2P_IRECV, P2P_SSEND, P2P_ISSEND, P2P_PROBE,
} P2pKind;

/* A point-to-point call of the user's, on any communicator (NULL: the
 * world): checks the rank, the peer and the tag, makes nothing for a
 * PTI_PROC_NULL peer (a request PTI_REQUEST_NULL), else appends it. */
static gboolean
p2p (PtiContext *ctx, const PtiComm *comm, P2pKind kind, guint rank, guint peer, guint64 bytes,
     gint tag, PtiRequest *request, GError **error)
{
  static const char *const names[] = {
    [P2P_SEND] = "send", [P2P_RECV] = "recv", [P2P_ISEND] = "isend", [P2P_IRECV] = "irecv",
    [P2P_SSEND] = "ssend", [P2P_ISSEND] = "issend", [P2P_PROBE] = "probe",
  };
  static const PtiOpKind ops[] = {
    [P2P_SEND] = PTI_OP_SEND, [P2P_RECV] = PTI_OP_RECV, [P2P_ISEND] = PTI_OP_ISEND,
    [P2P_IRECV] = PTI_OP_IRECV, [P2P_PROBE] = PTI_OP_PROBE,
  };
  gboolean sync = kind == P2P_SSEND || kind == P2P_ISSEND;
  gboolean receive = kind == P2P_RECV || kind == P2P_IRECV || kind == P2P_PROBE;
  const char *what = names[kind];
  /* The world, the common case: ranks are world ranks. */
  if (G_LIKELY (comm == NULL) && G_LIKELY (pti_wsl_check_rank (ctx, what, rank, NULL))
      && G_LIKELY (peer < ctx->n_procs && tag >= 0))
    return sync ? pti_wsl_ssend (ctx, rank, peer, bytes, tag, PTI_COMM_WORLD, request, error)
                : pti_wsl_message (ctx, ops[kind], rank, peer, bytes, tag, PTI_COMM_WORLD,
                                   request, error);
  CommView v;
  if (!pti_comm_check (ctx, comm, what, rank, &v, error))
    return FALSE;
  if (comm == NULL)
    comm = pti_comm_world (ctx);
  if (!check_peer (comm, &v, what, rank, receive, peer, tag, error))
    return FALSE;
  if (peer == PTI_PROC_NULL) {
    /* MPI: "returns as soon as possible"; MPICH returns before any protocol
     * or network work, with a request that is complete already. */
    if (request != NULL)
      *request = PTI_REQUEST_NULL;
    return TRUE;
  }
  guint w = world_of (&v, peer);
  return sync ? pti_wsl_ssend (ctx, rank, w, bytes, tag, 2 * comm->id, request, error)
              : pti_wsl_message (ctx, ops[kind], rank, w, bytes, tag, 2 * comm->id, request,
                                 error);
}

gboolean
pti_mpi_send_comm (PtiContext *ctx, const PtiComm *comm, guint rank, guint dst, guint64 bytes,
                   gint tag, GError **error)
{
  return p2p (ctx, comm, P2P_SEND, rank, dst, bytes, tag, NULL, error);
}

gboolean
pti_mpi_recv_comm (PtiContext *ctx, const PtiComm *comm, guint rank, guint src, guint64 bytes,
                   gint tag, GError **error)
{
  return p2p (ctx, comm, P2P_RECV, rank, src, bytes, tag, NULL, error);
}

gboolean
pti_mpi_isend_comm (PtiContext *ctx, const PtiComm *comm, guint rank, guint dst, guint64 bytes,
                    gint tag, PtiRequest *request, GError **error)
{
  g_return_val_if_fail (request != NULL, FALSE);
  return p2p (ctx, comm, P2P_ISEND, rank, dst, bytes, tag, request, error);
}

gboolean
pti_mpi_irecv_comm (PtiContext *ctx, const PtiComm *comm, guint rank, guint src, guint64 bytes,
                    gint tag, PtiRequest *request, GError **error)
{
  g_return_val_if_fail (request != NULL, FALSE);
  return p2p (ctx, comm, P2P_IRECV, rank, src, bytes, tag, request, error);
}

gboolean
pti_mpi_send (PtiContext *ctx, guint rank, guint dst, guint64 bytes, gint tag, GError **error)
{
  return p2p (ctx, NULL, P2P_SEND, rank, dst, bytes, tag, NULL, error);
}

gboolean
pti_mpi_recv (PtiContext *ctx, guint rank, guint src, guint64 bytes, gint tag, GError **error)
{
  return p2p (ctx, NULL, P2P_RECV, rank, src, bytes, tag, NULL, error);
}

gboolean
pti_mpi_isend (PtiContext *ctx, guint rank, guint dst, guint64 bytes, gint tag,
               PtiRequest *request, GError **error)
{
  g_return_val_if_fail (request != NULL, FALSE);
  return p2p (ctx, NULL, P2P_ISEND, rank, dst, bytes, tag, request, error);
}

gboolean
pti_mpi_irecv (PtiContext *ctx, guint rank, guint src, guint64 bytes, gint tag,
               PtiRequest *request, GError **error)
{
  g_return_val_if_fail (request != NULL, FALSE);
  return p2p (ctx, NULL, P2P_IRECV, rank, src, bytes, tag, request, error);
}

gboolean
pti_mpi_ssend_comm (PtiContext *ctx, const PtiComm *comm, guint rank, guint dst, guint64 bytes,
                    gint tag, GError **error)
{
  return p2p (ctx, comm, P2P_SSEND, rank, dst, bytes, tag, NULL, error);
}

gboolean
pti_mpi_issend_comm (PtiContext *ctx, const PtiComm *comm, guint rank, guint dst, guint64 bytes,
                     gint tag, PtiRequest *request, GError **error)
{
  g_return_val_if_fail (request != NULL, FALSE);
  return p2p (ctx, comm, P2P_ISSEND, rank, dst, bytes, tag, request, error);
}

gboolean
pti_mpi_probe_comm (PtiContext *ctx, const PtiComm *comm, guint rank, guint src, gint tag,
                    GError **error)
{
  return p2p (ctx, comm, P2P_PROBE, rank, src, 0, tag, NULL, error);
}

gboolean
pti_mpi_ssend (PtiContext *ctx, guint rank, guint dst, guint64 bytes, gint tag, GError **error)
{
  return pti_mpi_ssend_comm (ctx, NULL, rank, dst, bytes, tag, error);
}

gboolean
pti_mpi_issend (PtiContext *ctx, guint rank, guint dst, guint64 bytes, gint tag,
                PtiRequest *request, GError **error)
{
  return pti_mpi_issend_comm (ctx, NULL, rank, dst, bytes, tag, request, error);
}

gboolean
pti_mpi_probe (PtiContext *ctx, guint rank, guint src, gint tag, GError **error)
{
  return pti_mpi_probe_comm (ctx, NULL, rank, src, tag, error);
}

/* MPI_Sendrecv as MPICH makes it (MPIR_Sendrecv_impl): the receive posted,
 * the send posted, both waited for. */
gboolean
pti_mpi_sendrecv_comm (PtiContext *ctx, const PtiComm *comm, guint rank, guint dst,
                       guint64 send_bytes, gint send_tag, guint src, guint64 recv_bytes,
                       gint recv_tag, GError **error)
{
  PtiRequest reqs[2];
  return pti_mpi_irecv_comm (ctx, comm, rank, src, recv_bytes, recv_tag, &reqs[0], error)
         && pti_mpi_isend_comm (ctx, comm, rank, dst, send_bytes, send_tag, &reqs[1], error)
         && pti_mpi_waitall (ctx, rank, 2, reqs, error);
}

gboolean
pti_mpi_sendrecv (PtiContext *ctx, guint rank, guint dst, guint64 send_bytes, gint send_tag,
                  guint src, guint64 recv_bytes, gint recv_tag, GError **error)
{
  return pti_mpi_sendrecv_comm (ctx, NULL, rank, dst, send_bytes, send_tag, src, recv_bytes,
                                recv_tag, error);
}

/* MPI_Sendrecv_replace: MPICH receives into a temporary buffer while it
 * sends from the user's, so the traffic is a sendrecv's. */
gboolean
pti_mpi_sendrecv_replace_comm (PtiContext *ctx, const PtiComm *comm, guint rank, guint dst,
                               gint send_tag, guint src, gint recv_tag, guint64 bytes,
                               GError **error)
{
  return pti_mpi_sendrecv_comm (ctx, comm, rank, dst, bytes, send_tag, src, bytes, recv_tag,
                                error);
}

gboolean
pti_mpi_sendrecv_replace (PtiContext *ctx, guint rank, guint dst, gint send_tag, guint src,
                          gint recv_tag, guint64 bytes, GError **error)
{
  return pti_mpi_sendrecv_replace_comm (ctx, NULL, rank, dst, send_tag, src, recv_tag, bytes,
                                        error);
}

/* ---- matching collective calls ---------------------------------------------- */

void
pti_coll_set_site (PtiContext *ctx, const char *file, guint line)
{
  PtiCollState *st = pti_coll_state (ctx);
  if (g_strcmp0 (file, st->site_file) != 0) {
    g_free (st->site_file);
    st->site_file = g_strdup (file);
  }
  st->site_line = file ? line : 0;
}

/* "allreduce (8 bytes)", "bcast (root 1, 100 bytes)", with the algorithm if asked. */
static char *
describe_call (const CollRecord *r, gboolean with_alg)
{
  GString *s = g_string_new (pti_coll_kind_name (r->kind));
  CollKind k = COLL_BASE (r->kind);
  gboolean sized = k != COLL_BARRIER && k != COLL_ALLTOALLV && k != COLL_GATHERV
                   && k != COLL_SCATTERV;
  if (r->root != NO_ROOT || sized || with_alg) {
    const char *sep = " (";
    if (r->root != NO_ROOT) {
      g_string_append_printf (s, "%sroot %u", sep, r->root);
      sep = ", ";
    }
    if (sized) {
      g_string_append_printf (s, "%s%" G_GUINT64_FORMAT " bytes", sep, r->bytes);
      sep = ", ";
    }
    if (with_alg)
      g_string_append_printf (s, "%salgorithm %s", sep, pti_coll_alg_name (r->alg));
    g_string_append_c (s, ')');
  }
  return g_string_free (s, FALSE);
}

static char *
describe_site (const PtiCollState *st, guint32 line)
{
  if (line == 0 || st->site_file == NULL)
    return g_strdup ("");
  return g_strdup_printf (" at %s:%u", st->site_file, line);
}

static void
log_push (CollLog *log, const CollRecord *r)
{
  if (log->head > 0 && log->head == log->n) {
    log->head = log->n = 0;
  } else if (log->n == log->cap && log->head > 0 && log->head >= log->cap / 2) {
    memmove (log->rec, log->rec + log->head, (log->n - log->head) * sizeof *log->rec);
    log->n -= log->head;
    log->head = 0;
  }
  if (log->n == log->cap) {
    log->cap = MAX (16, log->cap * 2);
    log->rec = g_renew (CollRecord, log->rec, log->cap);
  }
  log->rec[log->n++] = *r;
}

static void
log_pop_done (CollLog *log)
{
  while (log->head < log->n && log->rec[log->head].remaining == 0) {
    log->head++;
    log->base++;
  }
}

gboolean
pti_coll_record (PtiContext *ctx, PtiCollState *st, PtiComm *comm, const CommView *view,
                 guint world_rank, CollKind kind, CollAlg alg, guint32 root, guint64 bytes,
                 GError **error)
{
  if (comm->calls == NULL) {
    comm->n_world = comm->group_of ? comm->n_world : pti_context_get_processes (ctx);
    comm->calls = g_new0 (guint64, comm->n_world);
  }
  guint64 position = comm->calls[world_rank];
  CollRecord mine = {
    .bytes = (COLL_BASE (kind) == COLL_BARRIER || COLL_BASE (kind) == COLL_ALLTOALLV
              || COLL_BASE (kind) == COLL_GATHERV || COLL_BASE (kind) == COLL_SCATTERV) ? 0 : bytes,
    .root = root, .line = st->site_line, .remaining = view->size - 1, .first = view->rank,
    .kind = kind, .alg = alg,
  };
  CollLog *log = &comm->logs[view->group];
  if (view->size <= 1) {
    comm->calls[world_rank]++;
    return TRUE;
  }
  g_assert (position >= log->base && position <= log->base + (log->n - log->head));
  if (position == log->base + (log->n - log->head)) {
    log_push (log, &mine);
    comm->calls[world_rank]++;
    return TRUE;
  }
  CollRecord *first = &log->rec[log->head + (position - log->base)];
  gboolean same_call = first->kind == mine.kind && first->root == mine.root
                       && first->bytes == mine.bytes;
  if (same_call && first->alg == mine.alg) {
    first->remaining--;
    log_pop_done (log);
    comm->calls[world_rank]++;
    return TRUE;
  }
  g_autofree char *who = pti_comm_describe_rank (comm, view, view->rank);
  g_autofree char *other = pti_comm_describe_rank (comm, view, first->first);
  g_autofree char *a = describe_call (&mine, same_call);
  g_autofree char *b = describe_call (first, same_call);
  g_autofree char *site = describe_site (st, first->line);
  g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
               "mismatched collective: call #%" G_GUINT64_FORMAT " on communicator '%s' is %s "
               "on %s but %s on %s%s; %s", position + 1, comm->name, a, who, b, other, site,
               same_call ? "the collective's algorithm was changed after some ranks had made "
                           "this call (set it before the first rank's call)"
                         : "every member of a communicator must make the same collective calls, "
                           "with the same root and size, in the same order");
  return FALSE;
}

/* The first group of @comm whose members did not all make the same number
 * of calls: names the call some never make and them. */
static gboolean
check_comm_complete (PtiContext *ctx, const PtiCollState *st, PtiComm *comm, GError **error)
{
  PtiEngine *engine = pti_session_engine (pti_wsl_session (ctx));
  if (comm->calls == NULL)
    return TRUE;
  for (guint g = 0; g < comm->n_groups; g++) {
    CollLog *log = &comm->logs[g];
    if (log->head == log->n)
      continue;
    const CollRecord *r = &log->rec[log->head];
    guint64 position = log->base;
    guint size = comm->group_of ? comm->group_start[g + 1] - comm->group_start[g] : comm->n_world;
    const guint32 *members = comm->group_of ? comm->members + comm->group_start[g] : NULL;
    CommView view = { g, 0, size, members };
    g_autoptr (GString) missing = g_string_new (NULL);
    guint n_missing = 0;
    guint64 fewest = G_MAXUINT64;
    gboolean certain = FALSE;
    for (guint i = 0; i < size; i++) {
      guint w = members ? members[i] : i;
      if (comm->calls[w] > position)
        continue;
      /* Missing for sure only once the rank has nothing more to give. */
      certain = certain || pti_engine_rank_complete (engine, w);
      fewest = MIN (fewest, comm->calls[w]);
      if (n_missing++ < 8) {
        g_autofree char *who = pti_comm_describe_rank (comm, &view, i);
        g_string_append_printf (missing, "%s%s", n_missing > 1 ? ", " : "", who);
      }
    }
    if (!certain)
      continue;
    if (n_missing > 8)
      g_string_append_printf (missing, " and %u more", n_missing - 8);
    g_autofree char *call = describe_call (r, FALSE);
    g_autofree char *first = pti_comm_describe_rank (comm, &view, r->first);
    g_autofree char *site = describe_site (st, r->line);
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "mismatched collective: call #%" G_GUINT64_FORMAT " on communicator '%s', %s "
                 "made by %s%s, is never made by %s (%s %" G_GUINT64_FORMAT " collective call%s "
                 "on it); every member of a communicator must make the same collective calls",
                 position + 1, comm->name, call, first, site, missing->str,
                 n_missing == 1 ? "which makes only" : "the fewest make", fewest,
                 fewest == 1 ? "" : "s");
    return FALSE;
  }
  return TRUE;
}

gboolean
pti_coll_check_complete (PtiContext *ctx, GError **error)
{
  PtiCollState *st = ctx->coll;
  if (st == NULL)
    return TRUE;
  if (!check_comm_complete (ctx, st, st->world, error))
    return FALSE;
  for (guint i = 0; i < st->splits->len; i++)
    if (!check_comm_complete (ctx, st, g_ptr_array_index (st->splits, i), error))
      return FALSE;
  if (st->nbc != NULL && g_hash_table_size (st->nbc) > 0) {
    /* the lowest rank's first: the same message every run */
    const guint64 *first = NULL;
    const NbcRecord *rec = NULL;
    GHashTableIter it;
    gpointer key, value;
    g_hash_table_iter_init (&it, st->nbc);
    while (g_hash_table_iter_next (&it, &key, &value))
      if (first == NULL || *(const guint64 *) key < *first) {
        first = key;
        rec = value;
      }
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "rank %u: request %u, a non-blocking %s (call #%" G_GUINT64_FORMAT " on "
                 "communicator '%s'), is never completed by a wait (%u such request%s in all)",
                 rec->world_rank, (guint32) *first, pti_coll_kind_name (rec->kind | COLL_NB),
                 rec->call + 1, rec->comm->name, g_hash_table_size (st->nbc),
                 g_hash_table_size (st->nbc) == 1 ? "" : "s");
    return FALSE;
  }
  return TRUE;
}

/* ---- model choice ------------------------------------------------------------ */

gboolean
pti_comm_set_model (PtiContext *ctx, const PtiComm *comm, PtiModelChoice model, GError **error)
{
  g_return_val_if_fail (ctx != NULL, FALSE);
  guint n = pti_context_get_processes (ctx);
  if (n == 0) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "pti_comm_set_model: set the processes first (pti_context_set_processes)");
    return FALSE;
  }
  if (model == PTI_MODEL_CHOICE_INVALID) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "pti_comm_set_model: not a model choice (pti_context_model_choice failed)");
    return FALSE;
  }
  if (comm == NULL)
    comm = pti_comm_world (ctx);
  if (comm->ctx != ctx) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "communicator '%s' belongs to another context", comm->name);
    return FALSE;
  }
  /* Each group's members are checked together: only they talk. */
  if (comm->group_of == NULL) {
    g_autofree guint *all = g_new (guint, n);
    for (guint r = 0; r < n; r++)
      all[r] = r;
    return pti_session_comm_set_model (ctx->session, comm->id, model, n, all, error);
  }
  for (guint g = 0; g < comm->n_groups; g++) {
    guint from = comm->group_start[g], to = comm->group_start[g + 1];
    if (!pti_session_comm_set_model (ctx->session, comm->id, model, to - from,
                                     comm->members + from, error)) {
      g_prefix_error (error, "communicator '%s': ", comm->name);
      return FALSE;
    }
  }
  return TRUE;
}

/* ---- the cost of making one ------------------------------------------------ */

enum { COMM_MADE_PLAIN = 1, COMM_MADE_TOPOLOGY = 2, COMM_FREED = 4, COLL_CALLED = 8 };

/* Open MPI 4.1 (ompi/communicator/comm_cid.c): each member proposes the
 * lowest context id free locally and an allreduce (MAX) of it agrees on
 * one; a second (MIN) checks that every member could take it; the
 * activation's third (MIN) makes sure all have set the communicator up
 * before any message arrives on it.  One int each.  A split first
 * allgathers every member's colour and key (ompi/communicator/comm.c). */
#define CID_ALLREDUCES 3
#define CID_BYTES 4
#define SPLIT_ALLGATHER_BYTES 8

gboolean
pti_mpi_comm_setup (PtiContext *ctx, const PtiComm *parent, guint rank, PtiCommSetup kind,
                    GError **error)
{
  g_return_val_if_fail (ctx != NULL, FALSE);
  guint base = kind & ~(guint) PTI_COMM_SETUP_ALONE;
  if (base > PTI_COMM_SETUP_TOPOLOGY) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "comm_setup on rank %u: %d is not a PtiCommSetup", rank, (int) kind);
    return FALSE;
  }
  if (!pti_wsl_check_rank (ctx, "comm_setup", rank, error))
    return FALSE;
  if (!(kind & PTI_COMM_SETUP_ALONE)) {
    if (base == PTI_COMM_SETUP_SPLIT
        && !pti_mpi_allgather_comm (ctx, parent, rank, SPLIT_ALLGATHER_BYTES, error))
      return FALSE;
    for (guint i = 0; i < CID_ALLREDUCES; i++)
      if (!pti_mpi_allreduce_comm (ctx, parent, rank, CID_BYTES, error))
        return FALSE;
  }
  PtiCollState *st = pti_coll_state (ctx);
  if (st->comm_made == NULL)
    st->comm_made = g_new0 (guint8, ctx->n_procs);
  const PtiCommCreateCost *cost = pti_system_comm_create_cost (
    pti_session_system (pti_wsl_session (ctx)));
  guint8 bit = base == PTI_COMM_SETUP_TOPOLOGY ? COMM_MADE_TOPOLOGY : COMM_MADE_PLAIN;
  double t = (st->comm_made[rank] & bit) ? cost->later
             : bit == COMM_MADE_TOPOLOGY ? cost->first_topology : cost->first;
  st->comm_made[rank] |= bit;
  return !cost->set || pti_wsl_comm_setup_time (ctx, rank, t, error);
}

gboolean
pti_mpi_call_setup (PtiContext *ctx, guint rank, PtiCallSetup what, GError **error)
{
  g_return_val_if_fail (ctx != NULL, FALSE);
  if ((guint) what > PTI_CALL_SETUP_COMM_FREE) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "call_setup on rank %u: %d is not a PtiCallSetup", rank, (int) what);
    return FALSE;
  }
  if (!pti_wsl_check_rank (ctx, "call_setup", rank, error))
    return FALSE;
  const PtiMpiCallCost *cost = pti_system_mpi_call_cost (
    pti_session_system (pti_wsl_session (ctx)));
  PtiCollState *st = pti_coll_state (ctx);
  if (st->comm_made == NULL)
    st->comm_made = g_new0 (guint8, ctx->n_procs);
  guint8 bit = what == PTI_CALL_SETUP_COMM_FREE ? COMM_FREED : COLL_CALLED;
  gboolean later = (st->comm_made[rank] & bit) != 0;
  st->comm_made[rank] |= bit;
  if (what == PTI_CALL_SETUP_COMM_FREE)
    return !cost->free_set
           || pti_wsl_mpi_setup_time (ctx, rank, later ? cost->free_later : cost->free_first,
                                      error);
  return !cost->collective_set
         || pti_wsl_mpi_setup_time (ctx, rank, later ? cost->coll_other : cost->coll_first, error);
}
