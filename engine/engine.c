/* The engine core's main loop (stage 2) and its lifetime.
 *
 * Stage 1 happened when operations were appended: every computation arrived
 * already priced by its CPU model.  Stage 2 replays the processes in
 * simulated-time order: a process runs until it blocks or must wait for its
 * clock (protocol.c), and a queue of timed items (queue.c) resumes it,
 * moves messages through their protocol and wakes resource models
 * (netglue.c).  The files of the core, by job:
 *
 *   queue.c      the event queue (sorted runs and a heap: time, then insertion)
 *   procs.c      windows of operations, request slots, messages; appending
 *   protocol.c   matching, eager and rendezvous protocols, running a process
 *   netglue.c    resource network models, scheduled model changes
 *   repeat.c     analytical repetition
 *   diagnose.c   deadlocks, unreceived messages, requests never waited for
 *   trace-out.c  finished events to the sink */
#include "core-private.h"

#include <stdlib.h>

PtiEngine *
pti_engine_new (const PtiSystem *system, guint nprocs, const guint *placement, GError **error)
{
  guint np = pti_system_n_processors (system);
  if (nprocs == 0 || nprocs > np) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "%u processes requested but system '%s' (%s) has %u processors",
                 nprocs, pti_system_name (system), pti_system_path (system), np);
    return NULL;
  }
  PtiEngine *e = g_new0 (PtiEngine, 1);
  e->system = system;
  e->n_procs = nprocs;
  /* Aligned on cache lines: each process's hot fields fill its first lines. */
  gpointer procs = NULL;
  if (posix_memalign (&procs, 64, sizeof (Proc) * (gsize) nprocs) != 0)
    g_error ("%s: failed to allocate %" G_GSIZE_FORMAT " bytes", G_STRLOC,
             sizeof (Proc) * (gsize) nprocs);
  e->procs = memset (procs, 0, sizeof (Proc) * (gsize) nprocs);
  e->msg_chunks = g_ptr_array_new_with_free_func (g_free);
  pti_queue_init (e);
  e->one_network = TRUE;
  guint network = G_MAXUINT;
  for (guint r = 0; r < nprocs; r++) {
    Proc *p = &e->procs[r];
    PtiProcessorInfo info;
    pti_system_processor_info (system, placement ? placement[r] : r, &info);
    p->processor = placement ? placement[r] : r;
    p->cpu = info.cpu;
    p->intra = info.intra;
    p->net = info.net;
    p->io = info.io;
    p->io_client = info.io_client;
    if (r == 0)
      network = info.network;
    e->one_network = e->one_network && info.net != NULL && info.network != G_MAXUINT
                     && info.network == network;
    p->free_req = p->posted_head = p->posted_tail = NO_SLOT;
    p->source_done = TRUE;
  }
  pti_nets_init (e);
  return e;
}

void
pti_engine_free (PtiEngine *e)
{
  if (e == NULL)
    return;
  pti_phases_free (e);
  for (guint r = 0; r < e->n_procs; r++) {
    g_free (e->procs[r].ops);
    g_free (e->procs[r].reqs);
    g_free (e->procs[r].rtrace);
  }
  free (e->procs);
  pti_queue_free (e);
  g_ptr_array_unref (e->msg_chunks);
  if (e->comm_names != NULL)
    g_ptr_array_unref (e->comm_names);
  pti_nets_free (e);
  pti_io_free (e);
  pti_repeat_free (e);
  g_free (e->scratch_slots);
  g_free (e->scratch_done);
  g_clear_error (&e->error);
  g_free (e);
}

guint
pti_engine_n_procs (const PtiEngine *e)
{
  return e->n_procs;
}

const PtiModelInstance *
pti_engine_cpu (const PtiEngine *e, guint rank)
{
  return e->procs[rank].cpu;
}

void
pti_engine_set_source (PtiEngine *e, const PtiEngineSource *source)
{
  e->source = source ? *source : (PtiEngineSource) { 0 };
  for (guint r = 0; r < e->n_procs; r++)
    e->procs[r].source_done = e->source.pull == NULL;
}

void
pti_engine_source_done (PtiEngine *e, guint rank)
{
  e->procs[rank].source_done = TRUE;
  GError *local = NULL;
  gboolean complete = pti_repeat_check_complete (e, rank, &local)
                      && pti_phases_check_complete (e, rank, &local);
  if (!complete && e->error == NULL)
    g_propagate_error (&e->error, local);
  else
    g_clear_error (&local);
}

void
pti_engine_set_progress (PtiEngine *e, PtiProgressFunc func, gpointer data, guint64 every)
{
  e->progress = func;
  e->progress_data = data;
  e->progress_every = MAX (every, 1);
}

/* Summing over the processes costs O(processes): fine every so many
 * thousand steps. */
static void
report_progress (PtiEngine *e)
{
  guint64 done = 0, total = 0;
  for (guint r = 0; r < e->n_procs; r++) {
    done += e->procs[r].n_events;
    total += e->procs[r].n_appended;
  }
  /* A source gives the workload as the evaluation goes: no total then. */
  e->progress (done, e->source.pull != NULL ? 0 : total, e->now, e->progress_data);
}

static inline gboolean
can_run (const PtiEngine *e, const Proc *p)
{
  return p->state == PROC_READY
         || (p->state == PROC_STARVED
             && (p->head != p->tail || (e->source.pull != NULL && !p->source_done)));
}

/* Resolve what can be: resume the processes that can go on, then handle
 * timed items in order; @bounded stops short of the horizon (a partial
 * run).  FALSE if an error was raised (left in e->error). */
static gboolean
drain (PtiEngine *e, gboolean bounded)
{
  e->horizon = INFINITY;
  e->bounded = bounded;
  e->top = FALSE;
  for (guint r = 0; r < e->n_procs && e->error == NULL; r++) {
    Proc *p = &e->procs[r];
    if (can_run (e, p))
      pti_proc_run (e, r);
    else if (p->state == PROC_STARVED)
      e->horizon = MIN (e->horizon, p->clock);
  }
  guint64 countdown = e->progress_every;
  while (pti_queue_size (e) > 0 && e->error == NULL) {
    if (pti_repeat_pending (e)) {
      pti_repeat_at_safe_point (e);
      continue;
    }
    /* A partial run stops short of the earliest clock at which a starved
     * process may yet act: what lies at or beyond it waits for the next run. */
    const Item *head = pti_queue_peek (e);
    double t = head->t;
    if (bounded && !(t < e->horizon))
      break;
    /* Changes due by then apply first, each at its own time; what they
     * make happen sooner joins the queue before the next item is taken. */
    if (pti_changes_due (e, t)) {
      if (!pti_changes_apply (e, t))
        break;
      continue;
    }
    /* With thousands of ranks a process is rarely in cache when its item
     * comes up.  Its first lines were prefetched when the item became the
     * next (below): now the operation at its window's head, while the
     * queue finds the item after it. */
    if (head->rank < e->n_procs) {
      const Proc *hp = &e->procs[head->rank];
      if (hp->mask != 0)
        __builtin_prefetch (&hp->ops[hp->head & hp->mask]);
    }
    Item it = pti_queue_pop (e);
    /* The next item's process (its hot lines: core-private.h) and message,
     * while this item is handled. */
    if (G_LIKELY (pti_queue_size (e) > 0)) {
      const Item *next = pti_queue_peek (e);
      if (next->rank < e->n_procs) {
        const char *np = (const char *) &e->procs[next->rank];
        __builtin_prefetch (np);
        __builtin_prefetch (np + 64);
        __builtin_prefetch (np + 128);
      }
      if (next->msg != NULL)
        __builtin_prefetch (next->msg);
    }
    if (it.type == ITEM_NET_WAKE && it.t != e->nets[it.rank].wake_at)
      continue;   /* superseded by an earlier wake */
    e->now = it.t;
    e->top = TRUE;
    pti_item_handle (e, &it);
    e->top = FALSE;
    if (G_UNLIKELY (e->progress != NULL && --countdown == 0)) {
      report_progress (e);
      countdown = e->progress_every;
    }
    /* A RESUME folded into the injection (queue.c): it would have been the
     * next item, at the same time, with nothing due between (handling an
     * injection runs no process, applies no change and takes no digest). */
    if ((it.type & ITEM_THEN_RESUME) && e->error == NULL) {
      e->top = TRUE;
      pti_proc_run (e, it.rank);
      e->top = FALSE;
      if (G_UNLIKELY (e->progress != NULL && --countdown == 0)) {
        report_progress (e);
        countdown = e->progress_every;
      }
    }
  }
  return e->error == NULL;
}

gboolean
pti_engine_run (PtiEngine *e, gboolean final, GError **error)
{
  g_return_val_if_fail (!e->finished, FALSE);
  if (!e->started) {
    e->started = TRUE;
    e->now = 0;
    /* Models keep state between transfers; a system may serve several evaluations. */
    guint n = pti_system_n_instances (e->system);
    for (guint i = 0; i < n; i++) {
      const PtiModelInstance *mi = pti_system_instance (e->system, i);
      if (mi->desc->net != NULL && mi->desc->net->version >= 2 && mi->desc->net->reset != NULL)
        mi->desc->net->reset (mi->state);
    }
    pti_io_reset (e);
  }
  /* Pushed workloads are complete when the last evaluation starts. */
  for (guint r = 0; final && e->source.pull == NULL && r < e->n_procs; r++)
    if (!pti_repeat_check_complete (e, r, error) || !pti_phases_check_complete (e, r, error))
      return FALSE;
  e->running = TRUE;
  gboolean ok = drain (e, !final);
  e->running = FALSE;
  if (e->progress != NULL && ok)
    report_progress (e);
  if (!ok) {
    g_propagate_error (error, g_steal_pointer (&e->error));
    return FALSE;
  }
  if (!final)
    return TRUE;
  e->finished = TRUE;
  for (guint r = 0; r < e->n_procs; r++)
    if (e->procs[r].state != PROC_STARVED) {
      pti_report_deadlock (e, error);
      return FALSE;
    }
  if (!pti_report_unreceived (e, error) || !pti_check_requests_waited (e, error))
    return FALSE;
  e->predicted = 0;
  for (guint r = 0; r < e->n_procs; r++)
    e->predicted = MAX (e->predicted, e->procs[r].clock);
  return TRUE;
}

gboolean
pti_engine_rank_complete (const PtiEngine *e, guint rank)
{
  return e->source.pull == NULL || e->procs[rank].source_done;
}

double
pti_engine_now (const PtiEngine *e)
{
  return e->now;
}

double
pti_engine_predicted_time (const PtiEngine *e)
{
  return e->predicted;
}

guint64
pti_engine_n_events (const PtiEngine *e)
{
  guint64 n = 0;
  for (guint r = 0; r < e->n_procs; r++)
    n += e->procs[r].n_events;
  return n;
}

void
pti_engine_process_summary (const PtiEngine *e, guint rank, PtiTraceProcessSummary *out)
{
  const Proc *p = &e->procs[rank];
  out->rank = rank;
  out->end = p->clock;
  out->compute = p->compute;
  out->comm = p->comm;
  out->wait = p->wait;
  out->io = p->io_time;
  out->events = p->n_events;
}
