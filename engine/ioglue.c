/* The io device in stage 2: requests to the file system a process's node
 * mounts (HMC <filesystem>, <mount>), priced by its I/O model.
 *
 * A request runs when its process's clock is the current time (protocol.c
 * yields before it otherwise), so requests reach the model in global time
 * order, which a model of FCFS queues needs: the completion of a request is
 * then known when it arrives.
 *
 * An independent request (open, close, read, write of one rank) takes the
 * process from now to the time the model says.  A collective call
 * (MPI-IO's *_all, MPI_File_open, MPI_File_close) synchronises the ranks
 * of its group as MPI-IO's collective calls do: each rank that arrives
 * waits (PROC_WAITING, `wait` time); when the last arrives the model
 * prices the call as one from that moment (its aggregation: two-phase I/O
 * in io-pfs) and every rank leaves at its end (`io` time). */
#include "core-private.h"

#include <stdlib.h>

typedef struct {
  guint64 stripe_size;
  guint32 stripe_count;
} IoFile;

/* One group of ranks that make collective calls together (a communicator's
 * group): the call being gathered. */
typedef struct {
  guint64 key;
  guint n, arrived;
  guint32 *ranks;        /* arrived so far, then sorted */
  double *arrival;       /* by arrival */
  PtiIoRequest *reqs;    /* scratch: the call's requests in rank order */
} IoGather;

static void
gather_free (gpointer data)
{
  IoGather *g = data;
  g_free (g->ranks);
  g_free (g->arrival);
  g_free (g->reqs);
  g_free (g);
}

void
pti_io_free (PtiEngine *e)
{
  g_clear_pointer (&e->io_files, g_array_unref);
  g_clear_pointer (&e->io_gathers, g_ptr_array_unref);
}

/* A new evaluation: every file system model forgets its queues. */
void
pti_io_reset (PtiEngine *e)
{
  guint n = pti_system_n_instances (e->system);
  for (guint i = 0; i < n; i++) {
    const PtiModelInstance *mi = pti_system_instance (e->system, i);
    if (PTI_MODEL_HAS_IO (mi->desc) && mi->desc->io->reset != NULL)
      mi->desc->io->reset (mi->state);
  }
}

void
pti_engine_io_file (PtiEngine *e, guint32 file, guint64 stripe_size, guint32 stripe_count)
{
  if (e->io_files == NULL)
    e->io_files = g_array_new (FALSE, TRUE, sizeof (IoFile));
  if (e->io_files->len <= file)
    g_array_set_size (e->io_files, file + 1);
  g_array_index (e->io_files, IoFile, file) = (IoFile) { stripe_size, stripe_count };
}

guint32
pti_engine_io_gather (PtiEngine *e, guint64 key)
{
  if (e->io_gathers == NULL)
    e->io_gathers = g_ptr_array_new_with_free_func (gather_free);
  for (guint i = 0; i < e->io_gathers->len; i++)
    if (((IoGather *) g_ptr_array_index (e->io_gathers, i))->key == key)
      return i;
  IoGather *g = g_new0 (IoGather, 1);
  g->key = key;
  g_ptr_array_add (e->io_gathers, g);
  return e->io_gathers->len - 1;
}

gboolean
pti_engine_add_io (PtiEngine *e, guint rank, PtiIoKind kind, guint32 file, guint64 offset,
                   guint64 bytes, guint32 gather, guint n, GError **error)
{
  Proc *p = &e->procs[rank];
  if (p->io == NULL) {
    g_autofree char *where = pti_system_describe_processor (e->system, p->processor);
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "rank %u: its processor %s is on a node that mounts no file system (add a "
                 "<filesystem> and a <mount> to the system)", rank, where);
    return FALSE;
  }
  if (G_MAXUINT64 - offset < bytes) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "rank %u: an access of %" G_GUINT64_FORMAT " bytes at offset %" G_GUINT64_FORMAT
                 " goes past the largest file offset", rank, bytes, offset);
    return FALSE;
  }
  if (gather != PTI_ENGINE_IO_INDEPENDENT) {
    IoGather *g = g_ptr_array_index (e->io_gathers, gather);
    if (g->n == 0) {
      g->n = n;
      g->ranks = g_new (guint32, n);
      g->arrival = g_new (double, n);
      g->reqs = g_new (PtiIoRequest, n);
    }
  }
  if (e->io_files == NULL || file >= e->io_files->len)
    pti_engine_io_file (e, file, 0, 0);
  Op *op = pti_proc_append_op (e, p);
  op->io.kind__ = PTI_OP_IO;
  op->io.io_kind = (guint8) kind;
  op->io.file = file;
  op->io.n = n;
  op->io.gather = gather;
  op->io.bytes_ = bytes;
  op->io.offset = offset;
  p->n_appended++;
  return TRUE;
}

static void
fill_request (const PtiEngine *e, guint rank, const Op *op, PtiIoRequest *req)
{
  const Proc *p = &e->procs[rank];
  const IoFile *f = &g_array_index (e->io_files, IoFile, op->io.file);
  *req = (PtiIoRequest) {
    .kind = (PtiIoKind) op->io.io_kind, .client = p->io_client, .rank = rank,
    .file = op->io.file, .stripe_count = f->stripe_count, .stripe_size = f->stripe_size,
    .offset = op->io.offset, .bytes = op->io.bytes_,
  };
}

/* @rank's I/O operation at its head is over at @end, begun at @start, of
 * which @wait blocked on other ranks. */
static void
io_finish (PtiEngine *e, guint rank, double start, double end, double wait)
{
  Proc *p = &e->procs[rank];
  const Op *op = pti_proc_op_at (p, p->head);
  p->wait += wait;
  p->io_time += (end - start) - wait;
  p->clock = end;
  if (e->sink.event != NULL)
    pti_out_io (e, rank, op, start, end, wait);
  p->n_events++;
  p->rep.pos++;
  pti_proc_consume (e, p);
}

static int
compare_ranks (const void *a, const void *b)
{
  guint32 x = *(const guint32 *) a, y = *(const guint32 *) b;
  return x < y ? -1 : x > y;
}

static const char *const io_kind_names[] = { "write", "read", "open", "close" };

gboolean
pti_io_run (PtiEngine *e, guint rank, const Op *op)
{
  Proc *p = &e->procs[rank];
  const PtiIoOps *ops = p->io->desc->io;
  if (op->io.gather == PTI_ENGINE_IO_INDEPENDENT) {
    PtiIoRequest req;
    fill_request (e, rank, op, &req);
    /* (MAX evaluates its arguments twice: the model is called once.) */
    double end = ops->access (p->io->state, &req, e->now);
    end = MAX (end, e->now);
    io_finish (e, rank, e->now, end, 0);
    return TRUE;
  }

  IoGather *g = g_ptr_array_index (e->io_gathers, op->io.gather);
  g->ranks[g->arrived] = rank;
  g->arrival[g->arrived] = e->now;
  g->arrived++;
  if (g->arrived < g->n) {
    p->wait_from = e->now;
    p->state = PROC_WAITING;
    return FALSE;
  }
  /* The last rank is here: the call, as one, from now. */
  g->arrived = 0;
  for (guint i = 0; i < g->n; i++)
    e->procs[g->ranks[i]].wait_from = g->arrival[i];
  qsort (g->ranks, g->n, sizeof (guint32), compare_ranks);
  for (guint i = 0; i < g->n; i++) {
    guint32 r = g->ranks[i];
    const Proc *q = &e->procs[r];
    const Op *qo = pti_proc_op_at (q, q->head);
    if (q->io != p->io || qo->io.io_kind != op->io.io_kind || qo->io.file != op->io.file) {
      g_set_error (&e->error, PTI_ERROR, PTI_ERROR_INVALID,
                   "collective I/O at %.9f s: rank %u calls %s on file %u (%s) while rank %u "
                   "calls %s on file %u (%s): the ranks of a collective call must make the "
                   "same call on the same file system", e->now, rank,
                   io_kind_names[op->io.io_kind], op->io.file, p->io->owner, r,
                   io_kind_names[qo->io.io_kind], qo->io.file, q->io->owner);
      return FALSE;
    }
    fill_request (e, r, qo, &g->reqs[i]);
  }
  double end = ops->collective (p->io->state, g->n, g->reqs, e->now);
  end = MAX (end, e->now);
  for (guint i = 0; i < g->n; i++) {
    guint32 r = g->ranks[i];
    Proc *q = &e->procs[r];
    io_finish (e, r, q->wait_from, end, e->now - q->wait_from);
    if (r != rank) {
      q->state = PROC_SCHEDULED;
      pti_queue_push (e, end, ITEM_RESUME, r, NULL);
    }
  }
  return TRUE;
}
