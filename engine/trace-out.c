/* Finished operations, as events, to the sink (the session writes them to
 * the trace).  Called only when a sink is set, so an evaluation without a
 * trace pays nothing here. */
#include "core-private.h"

/* The model a process's non-message events (waits) are shown with: its
 * network's, or its node's if it has no network. */
static const PtiModelInstance *
comm_model (const Proc *p)
{
  return p->net ? p->net : p->intra;
}

static void
fill_done (const Proc *p, guint32 slot, PtiEngineDone *d)
{
  const Req *rq = &p->reqs[slot];
  const ReqTrace *t = &p->rtrace[slot];
  *d = (PtiEngineDone) {
    .request = rq->blocking ? 0 : t->trace_id,
    .msg = t->msg_id, .peer = t->actual_peer, .tag = t->actual_tag, .bytes = t->msg_bytes,
    .recv = rq->is_recv, .blocking = rq->blocking, .rendezvous = rq->rendezvous,
    .posted = t->posted, .entered = t->entered,
    .arrived = rq->is_recv ? t->arrived : NAN, .ready = t->left,
  };
}

void
pti_out_compute (PtiEngine *e, guint rank, const Op *op, double start, double end)
{
  /* A use that chose a model carries its choice in the tag. */
  PtiEngineEvent ev = { .kind = PTI_OP_COMPUTE, .start = start, .end = end,
                        .model = pti_system_choice_instance (e->system, (guint) op->tag,
                                                             e->procs[rank].cpu),
                        .rud = op->peer };
  e->sink.event (e->sink.data, rank, &ev);
}

void
pti_out_post (PtiEngine *e, guint rank, const Op *op, guint32 slot, double start, double end)
{
  const Proc *p = &e->procs[rank];
  const Req *rq = &p->reqs[slot];
  const ReqTrace *t = &p->rtrace[slot];
  guint32 pa, pb;
  const PtiModelInstance *via
    = op->peer < e->n_procs ? pti_route_comm (e, rank, op->peer, op->comm, &pa, &pb) : NULL;
  PtiEngineEvent ev = {
    .kind = op->kind, .start = start, .end = end, .model = via ? via : comm_model (p),
    .peer = op->peer, .tag = op->tag, .bytes = op->bytes, .request = t->trace_id,
    .msg = rq->is_recv ? G_MAXUINT64 : t->msg_id,
  };
  e->sink.event (e->sink.data, rank, &ev);
}

void
pti_out_blocking (PtiEngine *e, guint rank, const Op *op, guint32 slot, double start,
                  double end, double wait)
{
  const Proc *p = &e->procs[rank];
  PtiEngineDone d;
  fill_done (p, slot, &d);
  guint32 pa, pb;
  guint32 peer = d.peer;
  const PtiModelInstance *via
    = peer < e->n_procs ? pti_route_comm (e, rank, peer, op->comm, &pa, &pb) : NULL;
  PtiEngineEvent ev = {
    .kind = op->kind, .start = start, .end = end, .wait = wait,
    .model = via ? via : comm_model (p), .peer = peer, .tag = d.tag, .bytes = op->bytes,
    .msg = d.msg, .done = &d, .n_done = 1,
  };
  e->sink.event (e->sink.data, rank, &ev);
}

void
pti_out_wait (PtiEngine *e, guint rank, const Op *op, double start, double end, double wait,
              const guint32 *slots, guint n_done)
{
  const Proc *p = &e->procs[rank];
  PtiEngineDone *d = PTI_SCRATCH (e, scratch_done, scratch_done_cap, MAX (n_done, 1));
  for (guint i = 0; i < n_done; i++)
    fill_done (p, slots[i], &d[i]);
  PtiEngineEvent ev = {
    .kind = op->kind, .start = start, .end = end, .wait = wait, .model = comm_model (p),
    .done = d, .n_done = n_done,
  };
  e->sink.event (e->sink.data, rank, &ev);
}

void
pti_out_probe (PtiEngine *e, guint rank, const Op *op, const Msg *m, double start, double end,
               double wait)
{
  PtiEngineEvent ev = {
    .kind = op->kind, .start = start, .end = end, .wait = wait, .model = m->model,
    .peer = m->src, .tag = m->tag, .bytes = m->bytes, .msg = m->id,
  };
  e->sink.event (e->sink.data, rank, &ev);
}

void
pti_out_marker (PtiEngine *e, guint rank, const Op *op)
{
  const Proc *p = &e->procs[rank];
  PtiEngineEvent ev = {
    .kind = op->kind, .start = p->clock, .end = p->clock, .model = comm_model (p),
    .coll = op->peer, .comm = op->comm, .root = (guint) op->tag, .bytes = op->bytes,
  };
  e->sink.event (e->sink.data, rank, &ev);
}

void
pti_out_io (PtiEngine *e, guint rank, const Op *op, double start, double end, double wait)
{
  PtiEngineEvent ev = {
    .kind = PTI_OP_IO, .start = start, .end = end, .wait = wait, .model = e->procs[rank].io,
    .bytes = op->io.bytes_, .io_kind = (PtiIoKind) op->io.io_kind, .file = op->io.file,
    .offset = op->io.offset, .collective = op->io.gather != PTI_ENGINE_IO_INDEPENDENT,
  };
  e->sink.event (e->sink.data, rank, &ev);
}
