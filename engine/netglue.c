/* Resource network models in stage 2, and scheduled model changes.
 *
 * A cost model (net-simple) prices a transfer when it starts; the protocol
 * code calls it directly.  A resource model (net-contention) only learns
 * that a flow started; when one ends depends on the flows started later.
 * The engine keeps one NET_WAKE item per resource model at the time the
 * model says its next flow may end, and advances the model then; the model
 * reports ended flows through a sink whose callbacks only push items (never
 * run a process), so the model is never re-entered while it works.  A wake
 * made stale by an earlier one is skipped without moving the clock.
 *
 * Scheduled changes of model parameters wait in a list sorted by time and
 * are applied just before the first item at or after their time, so a
 * change never runs ahead of the traffic, and one beyond the end of the
 * evaluation does nothing. */
#include "core-private.h"

static void sink_flow_done (gpointer host, gpointer cookie, double injected, double arrived);
static void sink_record (gpointer host, guint type, const char *const *values);

static void
change_clear (gpointer data)
{
  Change *c = data;
  g_free (c->element);
  g_free (c->selector);
  g_free (c->value);
  g_free (c->origin);
}

void
pti_nets_init (PtiEngine *e)
{
  guint n = pti_system_n_instances (e->system);
  e->nets = g_new0 (FlowNet, n + 1);
  for (guint i = 0; i < n; i++) {
    const PtiModelInstance *mi = pti_system_instance (e->system, i);
    const PtiNetOps *ops = mi->desc->net;
    if (ops == NULL || !PTI_NET_OPS_HAS_FLOWS (ops) || e->n_nets == G_MAXUINT8 - 1)
      continue;
    FlowNet *f = &e->nets[e->n_nets++];
    *f = (FlowNet) { .engine = e, .model = mi, .ops = ops, .wake_at = INFINITY,
                     .record_base = -1 };
    f->sink = (PtiNetSink) { .host = f, .flow_done = sink_flow_done, .record = NULL };
  }
  e->changes = g_array_new (FALSE, FALSE, sizeof (Change));
  g_array_set_clear_func (e->changes, change_clear);
}

void
pti_nets_free (PtiEngine *e)
{
  g_free (e->nets);
  if (e->changes != NULL)
    g_array_unref (e->changes);
}

guint8
pti_flow_net_of (const PtiEngine *e, const PtiModelInstance *model)
{
  for (guint i = 0; i < e->n_nets; i++)
    if (e->nets[i].model == model)
      return (guint8) (i + 1);
  return 0;
}

/* After a resource model was told or asked anything: make sure a NET_WAKE
 * waits at its next flow end.  A later wake already queued is left to be
 * skipped when it comes up; an earlier one is harmless. */
void
pti_net_reschedule (PtiEngine *e, FlowNet *f)
{
  double t = f->ops->flow_next (f->model->state);
  if (t < f->wake_at) {
    f->wake_at = t;
    pti_queue_push (e, t, ITEM_NET_WAKE, (guint32) (f - e->nets), NULL);
  }
}

void
pti_flow_start (PtiEngine *e, Msg *m, Stage stage)
{
  FlowNet *f = &e->nets[m->flow_net - 1];
  gboolean back = stage == STAGE_REPLY;
  PtiFlow flow = {
    .src_port = back ? m->dst_port : m->src_port,
    .dst_port = back ? m->src_port : m->dst_port,
    .bytes = stage == STAGE_EAGER_DATA || stage == STAGE_RDV_DATA ? m->bytes : 0,
    .msg = m->id,
    .cookie = m,
  };
  m->stage = (guint8) stage;
  f->ops->flow_start (f->model->state, &flow, e->now, &f->sink);
  pti_net_reschedule (e, f);
}

/* A resource model reports a flow that left its source at @injected (now)
 * and arrives at @arrived.  Only items are pushed: the model is in the
 * middle of its own work. */
static void
sink_flow_done (gpointer host, gpointer cookie, double injected, double arrived)
{
  FlowNet *f = host;
  PtiEngine *e = f->engine;
  Msg *m = cookie;
  arrived = MAX (arrived, injected);
  switch ((Stage) m->stage) {
  case STAGE_EAGER_DATA:
    pti_queue_push (e, arrived, ITEM_DATA_ARRIVE, m->dst, m);
    break;
  case STAGE_REQUEST:
    pti_queue_push (e, arrived, ITEM_REQUEST_ARRIVE, m->dst, m);
    break;
  case STAGE_REPLY:
    pti_queue_push (e, arrived, ITEM_REPLY_ARRIVE, m->src, m);
    break;
  case STAGE_RDV_DATA:
    /* Pushed first: at equal times it is handled before the arrival, which
     * may free the message. */
    pti_queue_push (e, MAX (injected, e->now), ITEM_DATA_INJECTED, m->src, m);
    pti_queue_push (e, arrived, ITEM_DATA_ARRIVE, m->dst, m);
    break;
  }
}

static void
sink_record (gpointer host, guint type, const char *const *values)
{
  FlowNet *f = host;
  PtiEngine *e = f->engine;
  if (e->sink.record != NULL)
    e->sink.record (e->sink.data, f->model, type, values);
}

void
pti_engine_set_sink (PtiEngine *e, const PtiEngineSink *sink)
{
  e->sink = sink ? *sink : (PtiEngineSink) { 0 };
  if (e->sink.event != NULL)
    pti_reqs_trace_init (e);
  for (guint i = 0; i < e->n_nets; i++)
    e->nets[i].sink.record = e->sink.record != NULL ? sink_record : NULL;
}

/* ---- scheduled changes --------------------------------------------------- */

double
pti_changes_next_time (const PtiEngine *e)
{
  return e->next_change < e->changes->len
           ? g_array_index (e->changes, Change, e->next_change).t : INFINITY;
}

gboolean
pti_changes_due (const PtiEngine *e, double t)
{
  return G_UNLIKELY (e->next_change < e->changes->len)
         && g_array_index (e->changes, Change, e->next_change).t <= t;
}

/* Apply the scheduled changes due at or before @t, each at its own time. */
gboolean
pti_changes_apply (PtiEngine *e, double t)
{
  while (e->next_change < e->changes->len) {
    const Change *c = &g_array_index (e->changes, Change, e->next_change);
    if (c->t > t)
      break;
    e->next_change++;
    e->now = MAX (e->now, c->t);
    guint8 fi = pti_flow_net_of (e, c->model);
    FlowNet *f = fi ? &e->nets[fi - 1] : NULL;
    GError *local = NULL;
    if (!c->model->desc->reconfigure (c->model->state, c->element, c->selector, c->value, TRUE,
                                      e->now, f ? &f->sink : NULL, &local)) {
      g_propagate_prefixed_error (&e->error, local, "%s: change at %.9f s: ", c->origin, c->t);
      return FALSE;
    }
    if (f != NULL)
      pti_net_reschedule (e, f);
  }
  return TRUE;
}

const PtiModelInstance *
pti_engine_check_change (const PtiSystem *sys, double t, const char *target,
                         const char *element, const char *selector, const char *value,
                         const char *origin, GError **error)
{
  GError *local = NULL;
  if (!(isfinite (t) && t >= 0)) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s: the time of a change must be a "
                 "finite number of seconds >= 0, not %g", origin, t);
    return NULL;
  }
  const PtiModelInstance *mi = pti_system_change_target (sys, target, &local);
  if (mi == NULL) {
    g_propagate_prefixed_error (error, local, "%s: ", origin);
    return NULL;
  }
  if (!PTI_MODEL_CAN_RECONFIGURE (mi->desc)) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "%s: model '%s' of %s cannot change its parameters during an evaluation",
                 origin, mi->desc->name, mi->owner);
    return NULL;
  }
  if (!mi->desc->reconfigure (mi->state, element, selector, value, FALSE, t, NULL, &local)) {
    g_propagate_prefixed_error (error, local, "%s: %s: ", origin, mi->owner);
    return NULL;
  }
  return mi;
}

gboolean
pti_engine_add_change (PtiEngine *e, double t, const char *target, const char *element,
                       const char *selector, const char *value, const char *origin,
                       GError **error)
{
  const PtiModelInstance *mi = pti_engine_check_change (e->system, t, target, element, selector,
                                                        value, origin, error);
  if (mi == NULL)
    return FALSE;
  if (e->started && t < e->now) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s: a change at %.9f s is in the past: "
                 "the evaluation has reached %.9f s", origin, t, e->now);
    return FALSE;
  }
  Change c = { t, mi, g_strdup (element), g_strdup (selector), g_strdup (value),
               g_strdup (origin) };
  guint at = e->changes->len;
  while (at > e->next_change && g_array_index (e->changes, Change, at - 1).t > t)
    at--;
  g_array_insert_val (e->changes, at, c);
  return TRUE;
}
