/* What the engine says when a workload cannot finish: every blocked rank
 * and what it waits for, messages nobody received, requests nobody waited
 * for.  Cold code: it runs once, at the end. */
#include "core-private.h"

const char *
pti_op_kind_name (guint kind)
{
  static const char *const names[] = {
    [PTI_OP_COMPUTE] = "compute", [PTI_OP_SEND] = "send", [PTI_OP_RECV] = "recv",
    [PTI_OP_ISEND] = "isend", [PTI_OP_IRECV] = "irecv", [PTI_OP_WAIT] = "wait",
    [PTI_OP_WAITALL] = "waitall", [PTI_OP_WAITANY] = "waitany", [PTI_OP_PROBE] = "probe",
    [PTI_OP_COLL_BEGIN] = "collective", [PTI_OP_COLL_END] = "collective end",
    [PTI_OP_IO] = "collective I/O call",
  };
  return kind < G_N_ELEMENTS (names) && names[kind] ? names[kind] : "?";
}

void
pti_engine_set_comm_name (PtiEngine *e, guint id, const char *name)
{
  if (e->comm_names == NULL)
    e->comm_names = g_ptr_array_new_with_free_func (g_free);
  if (e->comm_names->len <= id)
    g_ptr_array_set_size (e->comm_names, id + 1);
  g_free (g_ptr_array_index (e->comm_names, id));
  g_ptr_array_index (e->comm_names, id) = g_strdup (name);
}

/* ", communicator rows, collective traffic" and the like; nothing for the
 * world's point-to-point traffic. */
static void
describe_comm (GString *s, const PtiEngine *e, guint comm)
{
  guint id = comm / 2;
  if (id > 0) {
    const char *name = e->comm_names && id < e->comm_names->len
                         ? g_ptr_array_index (e->comm_names, id) : NULL;
    if (name)
      g_string_append_printf (s, ", communicator '%s'", name);
    else
      g_string_append_printf (s, ", communicator #%u", id);
  }
  if (comm % 2 == 1)
    g_string_append (s, ", collective traffic");
}

/* "irecv from rank 3, tag 7, 100 bytes: no matching send" */
static void
describe_request (GString *s, const PtiEngine *e, const Req *rq, const char *kind)
{
  g_string_append_printf (s, "%s %s ", kind, rq->is_recv ? "from" : "to");
  if (rq->peer == PTI_ENGINE_ANY_SOURCE)
    g_string_append (s, "any rank");
  else
    g_string_append_printf (s, "rank %u", rq->peer);
  if (rq->tag == PTI_ENGINE_ANY_TAG)
    g_string_append (s, ", any tag");
  else
    g_string_append_printf (s, ", tag %d", rq->tag);
  g_string_append_printf (s, ", %" G_GUINT64_FORMAT " bytes", rq->bytes);
  describe_comm (s, e, rq->comm);
  g_string_append (s, !rq->is_recv && rq->rendezvous ? ", rendezvous: its receive is never posted"
                      : rq->is_recv && rq->msg == NULL ? ": no matching send" : "");
}

void
pti_report_deadlock (PtiEngine *e, GError **error)
{
  g_autoptr (GString) s = g_string_new (NULL);
  guint blocked = 0;
  double latest = 0;
  for (guint r = 0; r < e->n_procs; r++) {
    Proc *p = &e->procs[r];
    if (p->state == PROC_STARVED)
      continue;
    blocked++;
    const Op *op = pti_proc_op_at (p, p->head);
    latest = MAX (latest, p->wait_from);
    if (blocked > 32)
      continue;
    g_string_append_printf (s, "\n  rank %u: blocked since %.9f s in ", r, p->wait_from);
    if (op->kind == PTI_OP_SEND || op->kind == PTI_OP_RECV) {
      describe_request (s, e, &p->reqs[p->blocking_slot], pti_op_kind_name (op->kind));
    } else if (op->kind == PTI_OP_PROBE) {
      g_string_append (s, "probe for a message from ");
      if (op->peer == PTI_ENGINE_ANY_SOURCE)
        g_string_append (s, "any rank");
      else
        g_string_append_printf (s, "rank %u", op->peer);
      if (op->tag == PTI_ENGINE_ANY_TAG)
        g_string_append (s, ", any tag");
      else
        g_string_append_printf (s, ", tag %d", op->tag);
      describe_comm (s, e, op->comm);
      g_string_append (s, ": none is sent");
    } else {
      g_string_append_printf (s, "%s for", pti_op_kind_name (op->kind));
      for (guint i = 0, shown = 0; i < op->peer; i++) {
        guint32 slot = pti_req_slot (p, pti_wait_handle (p, i));
        if (slot == NO_SLOT || p->reqs[slot].state == REQ_DONE || shown++ >= 4)
          continue;
        g_string_append (s, shown > 1 ? "; " : " ");
        describe_request (s, e, &p->reqs[slot], p->reqs[slot].is_recv ? "irecv" : "isend");
      }
    }
    g_string_append_printf (s, " (event %" G_GUINT64_FORMAT ")", p->n_events + 1);
  }
  if (blocked > 32)
    g_string_append_printf (s, "\n  ... and %u more ranks", blocked - 32);
  g_set_error (error, PTI_ERROR, PTI_ERROR_DEADLOCK,
               "deadlock at simulated time %.9f s: %u of %u ranks cannot finish:%s",
               latest, blocked, e->n_procs, s->str);
}

gboolean
pti_report_unreceived (PtiEngine *e, GError **error)
{
  g_autoptr (GString) s = g_string_new (NULL);
  guint n = 0;
  for (guint r = 0; r < e->n_procs; r++)
    for (Msg *m = e->procs[r].unmatched_head; m != NULL; m = m->next)
      if (n++ < 32) {
        g_string_append_printf (s, "\n  rank %u -> rank %u, tag %d, %" G_GUINT64_FORMAT " bytes",
                                m->src, m->dst, m->tag, m->bytes);
        describe_comm (s, e, m->comm);
      }
  if (n == 0)
    return TRUE;
  if (n > 32)
    g_string_append_printf (s, "\n  ... and %u more", n - 32);
  g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
               "%u message%s sent but never received (every rank finished):%s", n,
               n == 1 ? " was" : "s were", s->str);
  return FALSE;
}

/* MPI requires every request to be completed; one never waited for is a
 * mistake in the workload. */
gboolean
pti_check_requests_waited (PtiEngine *e, GError **error)
{
  for (guint r = 0; r < e->n_procs; r++) {
    Proc *p = &e->procs[r];
    for (guint32 slot = 0; p->live_reqs > 0 && slot < p->n_reqs; slot++) {
      const Req *rq = &p->reqs[slot];
      if (rq->state == REQ_FREE)
        continue;
      g_autoptr (GString) s = g_string_new (NULL);
      describe_request (s, e, rq, rq->is_recv ? "irecv" : "isend");
      g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                   "rank %u: request %u (%s) is never completed by a wait", r,
                   pti_req_handle (p, slot), s->str);
      return FALSE;
    }
  }
  return TRUE;
}
