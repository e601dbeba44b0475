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
  if (!pti_wsl_check_collective (ctx, what, rank, error))
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
  pti_engine_set_comm_name (pti_wsl_engine (ctx), c->id, c->name);
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

/* ---- point-to-point within a communicator ------------------------------------ */

static gboolean
check_peer (const PtiComm *comm, const CommView *v, const char *what, guint rank, gboolean receive,
            guint peer, gint tag, GError **error)
{
  if (peer >= v->size && !(receive && peer == PTI_ANY_SOURCE)) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "%s on rank %u: %s rank %u out of range (communicator '%s' of rank %u has %u "
                 "ranks: 0 to %u)", what, rank, receive ? "source" : "destination", peer,
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

/* kind: 0 send, 1 recv, 2 isend, 3 irecv */
static gboolean
p2p (PtiContext *ctx, const PtiComm *comm, guint kind, guint rank, guint peer, guint64 bytes,
     gint tag, PtiRequest *request, GError **error)
{
  static const char *const what[] = { "send", "recv", "isend", "irecv" };
  CommView v;
  if (!pti_comm_check (ctx, comm, what[kind], rank, &v, error))
    return FALSE;
  if (comm == NULL)
    comm = pti_comm_world (ctx);
  if (!check_peer (comm, &v, what[kind], rank, kind & 1, peer, tag, error))
    return FALSE;
  PtiEngine *engine = pti_wsl_engine (ctx);
  guint w = world_of (&v, peer);
  guint cid = 2 * comm->id;
  guint32 r = 0;
  gboolean ok;
  switch (kind) {
  case 0: ok = pti_engine_add_send (engine, rank, w, bytes, tag, cid, error); break;
  case 1: ok = pti_engine_add_recv (engine, rank, w, bytes, tag, cid, error); break;
  case 2: ok = pti_engine_add_isend (engine, rank, w, bytes, tag, cid, &r, error); break;
  default: ok = pti_engine_add_irecv (engine, rank, w, bytes, tag, cid, &r, error); break;
  }
  if (ok && request != NULL)
    *request = r;
  return pti_wsl_appended (ctx, ok, error);
}

/* The world goes through the world-only calls, so that both behave the same. */
static inline gboolean
is_world (const PtiComm *comm)
{
  return comm == NULL || comm->group_of == NULL;
}

gboolean
pti_mpi_send_comm (PtiContext *ctx, const PtiComm *comm, guint rank, guint dst, guint64 bytes,
                   gint tag, GError **error)
{
  if (is_world (comm) && (comm == NULL || comm->ctx == ctx))
    return pti_mpi_send (ctx, rank, dst, bytes, tag, error);
  return p2p (ctx, comm, 0, rank, dst, bytes, tag, NULL, error);
}

gboolean
pti_mpi_recv_comm (PtiContext *ctx, const PtiComm *comm, guint rank, guint src, guint64 bytes,
                   gint tag, GError **error)
{
  if (is_world (comm) && (comm == NULL || comm->ctx == ctx))
    return pti_mpi_recv (ctx, rank, src, bytes, tag, error);
  return p2p (ctx, comm, 1, rank, src, bytes, tag, NULL, error);
}

gboolean
pti_mpi_isend_comm (PtiContext *ctx, const PtiComm *comm, guint rank, guint dst, guint64 bytes,
                    gint tag, PtiRequest *request, GError **error)
{
  g_return_val_if_fail (request != NULL, FALSE);
  if (is_world (comm) && (comm == NULL || comm->ctx == ctx))
    return pti_mpi_isend (ctx, rank, dst, bytes, tag, request, error);
  return p2p (ctx, comm, 2, rank, dst, bytes, tag, request, error);
}

gboolean
pti_mpi_irecv_comm (PtiContext *ctx, const PtiComm *comm, guint rank, guint src, guint64 bytes,
                    gint tag, PtiRequest *request, GError **error)
{
  g_return_val_if_fail (request != NULL, FALSE);
  if (is_world (comm) && (comm == NULL || comm->ctx == ctx))
    return pti_mpi_irecv (ctx, rank, src, bytes, tag, request, error);
  return p2p (ctx, comm, 3, rank, src, bytes, tag, request, error);
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
  gboolean sized = r->kind != COLL_BARRIER && r->kind != COLL_ALLTOALLV;
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
    .bytes = (kind == COLL_BARRIER || kind == COLL_ALLTOALLV) ? 0 : bytes,
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
check_comm_complete (const PtiCollState *st, PtiComm *comm, GError **error)
{
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
    for (guint i = 0; i < size; i++) {
      guint w = members ? members[i] : i;
      if (comm->calls[w] > position)
        continue;
      fewest = MIN (fewest, comm->calls[w]);
      if (n_missing++ < 8) {
        g_autofree char *who = pti_comm_describe_rank (comm, &view, i);
        g_string_append_printf (missing, "%s%s", n_missing > 1 ? ", " : "", who);
      }
    }
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
  PtiCollState *st = *pti_wsl_coll_state (ctx);
  if (st == NULL)
    return TRUE;
  if (!check_comm_complete (st, st->world, error))
    return FALSE;
  for (guint i = 0; i < st->splits->len; i++)
    if (!check_comm_complete (st, g_ptr_array_index (st->splits, i), error))
      return FALSE;
  return TRUE;
}
