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
  e->known_until = INFINITY;
  e->next_change_t = INFINITY;
}

void
pti_nets_free (PtiEngine *e)
{
  g_free (e->nets);
  g_free (e->comm_choice);
  pti_live_free (e);
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
  return e->next_change_t;
}

void
pti_changes_update_next (PtiEngine *e)
{
  double t = e->next_change < e->changes->len
               ? g_array_index (e->changes, Change, e->next_change).t : INFINITY;
  e->next_change_t = MIN (t, e->known_until);
}

/* Apply the scheduled changes due at or before @t, each at its own time,
 * after reading the change stream (if any) past @t. */
gboolean
pti_changes_apply (PtiEngine *e, double t)
{
  for (;;) {
    if (e->known_until <= t && e->feed.more != NULL) {
      GError *local = NULL;
      if (!e->feed.more (e->feed.data, &local)) {
        g_propagate_error (&e->error, local);
        return FALSE;
      }
      continue;
    }
    if (e->next_change >= e->changes->len)
      break;
    const Change *c = &g_array_index (e->changes, Change, e->next_change);
    if (c->t > t)
      break;
    e->next_change++;
    e->now = MAX (e->now, c->t);
    if (c->effect != PTI_CHANGE_RECONFIGURE)
      continue;   /* in its nodes' timelines since it was given */
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
  pti_changes_update_next (e);
  return TRUE;
}

/* What a checked change does: its model, its effect, and for the CPU
 * effects the value and the system nodes it applies to. */
typedef struct {
  const PtiModelInstance *model;
  PtiChangeEffect effect;
  double number;
  guint node_lo, node_hi;  /* system node indices, inclusive */
} Checked;

/* "3" or "1-4" within 1..@count. */
static gboolean
parse_nodes (const char *selector, guint count, guint *lo, guint *hi)
{
  guint64 a, b;
  g_auto (GStrv) parts = g_strsplit (selector, "-", 3);
  if (parts[0] == NULL || !g_ascii_string_to_unsigned (parts[0], 10, 1, count, &a, NULL))
    return FALSE;
  b = a;
  if (parts[1] != NULL
      && (parts[2] != NULL || !g_ascii_string_to_unsigned (parts[1], 10, a, count, &b, NULL)))
    return FALSE;
  *lo = (guint) a;
  *hi = (guint) b;
  return TRUE;
}

static gboolean
check_change (const PtiSystem *sys, double t, const char *target, const char *element,
              const char *selector, const char *value, const char *origin, Checked *out,
              GError **error)
{
  GError *local = NULL;
  if (!(isfinite (t) && t >= 0)) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s: the time of a change must be a "
                 "finite number of seconds >= 0, not %g", origin, t);
    return FALSE;
  }
  const PtiModelInstance *mi = pti_system_change_target (sys, target, &local);
  if (mi == NULL) {
    g_propagate_prefixed_error (error, local, "%s: ", origin);
    return FALSE;
  }
  *out = (Checked) { .model = mi, .effect = PTI_CHANGE_RECONFIGURE };
  const PtiChangeKey *keys = PTI_MODEL_CHANGES (mi->desc), *key = NULL;
  for (guint i = 0; keys != NULL && keys[i].name != NULL && key == NULL; i++)
    if (strcmp (keys[i].name, element) == 0)
      key = &keys[i];
  if (keys != NULL && key == NULL) {
    g_autoptr (GString) known = g_string_new (NULL);
    for (guint i = 0; keys[i].name != NULL; i++)
      g_string_append_printf (known, "%s%s", i ? ", " : "", keys[i].name);
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "%s: model '%s' of %s accepts changes of %s, not '%s'", origin, mi->desc->name,
                 mi->owner, known->len ? known->str : "nothing", element);
    return FALSE;
  }
  if (key != NULL && key->effect != PTI_CHANGE_RECONFIGURE) {
    /* The engine's to apply, on the nodes of a computer's CPU. */
    PtiComputerInfo ci = { 0 };
    gboolean found = FALSE;
    for (guint i = 0; i < pti_system_n_computers (sys) && !found; i++) {
      ci = pti_system_computer_info (sys, i);
      found = ci.cpu == mi;
    }
    if (!found || mi->desc->cpu == NULL) {
      g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s: '%s' changes a CPU; name it as "
                   "cpu:COMPUTER", origin, element);
      return FALSE;
    }
    guint lo = 1, hi = ci.count;
    if (selector != NULL && !parse_nodes (selector, ci.count, &lo, &hi)) {
      g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s: %s[%s]: expected node numbers of "
                   "%s, \"N\" or \"N-M\" from 1 to %u", origin, element, selector, ci.name,
                   ci.count);
      return FALSE;
    }
    char *stop = NULL;
    double v = g_ascii_strtod (value, &stop);
    gboolean bad = stop == value || *stop != '\0' || !isfinite (v)
                   || (key->effect == PTI_CHANGE_SPEED ? !(v > 0) : (v != 0 && v != 1));
    if (bad) {
      g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s: %s %s: expected %s", origin,
                   element, value, key->value);
      return FALSE;
    }
    *out = (Checked) { mi, key->effect, v, ci.first_node + lo - 1, ci.first_node + hi - 1 };
    return TRUE;
  }
  if (!PTI_MODEL_CAN_RECONFIGURE (mi->desc)) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "%s: model '%s' of %s cannot change its parameters during an evaluation",
                 origin, mi->desc->name, mi->owner);
    return FALSE;
  }
  if (!mi->desc->reconfigure (mi->state, element, selector, value, FALSE, t, NULL, &local)) {
    g_propagate_prefixed_error (error, local, "%s: %s: ", origin, mi->owner);
    return FALSE;
  }
  return TRUE;
}

const PtiModelInstance *
pti_engine_check_change (const PtiSystem *sys, double t, const char *target,
                         const char *element, const char *selector, const char *value,
                         const char *origin, GError **error)
{
  Checked c;
  return check_change (sys, t, target, element, selector, value, origin, &c, error) ? c.model
                                                                                       : NULL;
}

gboolean
pti_engine_add_change (PtiEngine *e, double t, const char *target, const char *element,
                       const char *selector, const char *value, const char *origin,
                       GError **error)
{
  Checked ck;
  if (!check_change (e->system, t, target, element, selector, value, origin, &ck, error))
    return FALSE;
  if (e->started && t < e->now) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s: a change at %.9f s is in the past: "
                 "the evaluation has reached %.9f s", origin, t, e->now);
    return FALSE;
  }
  Change c = { t, ck.model, g_strdup (element), g_strdup (selector), g_strdup (value),
               g_strdup (origin), (guint8) ck.effect };
  guint at = e->changes->len;
  while (at > e->next_change && g_array_index (e->changes, Change, at - 1).t > t)
    at--;
  g_array_insert_val (e->changes, at, c);
  if (ck.effect != PTI_CHANGE_RECONFIGURE)
    pti_cpu_change_add (e, t, ck.effect, ck.number, ck.node_lo, ck.node_hi);
  pti_changes_update_next (e);
  return TRUE;
}

void
pti_engine_set_feed (PtiEngine *e, const PtiEngineFeed *feed)
{
  e->feed = feed ? *feed : (PtiEngineFeed) { 0 };
  e->known_until = e->feed.more != NULL ? 0 : INFINITY;
  e->cpu_live = e->cpu_live || e->feed.more != NULL;
  pti_changes_update_next (e);
}

void
pti_engine_changes_known (PtiEngine *e, double until)
{
  e->known_until = MAX (e->known_until, until);
  pti_changes_update_next (e);
}

double
pti_engine_changes_known_until (const PtiEngine *e)
{
  return e->known_until;
}

/* ---- model choices of communicators ---------------------------------------- */

gboolean
pti_engine_set_comm_model (PtiEngine *e, guint id, guint choice, guint n, const guint *members,
                           GError **error)
{
  /* Every route a message of the communicator may take: each member's
   * network, and its node's intra-node model where two members share a node. */
  g_autoptr (GHashTable) nodes = g_hash_table_new (g_direct_hash, g_direct_equal);
  for (guint i = 0; i < n; i++) {
    const Proc *p = &e->procs[members[i]];
    PtiProcessorInfo info;
    pti_system_processor_info (e->system, p->processor, &info);
    gboolean shared = !g_hash_table_add (nodes, GUINT_TO_POINTER (info.node + 1));
    const PtiModelInstance *need[2] = { p->net, NULL };
    if (shared || n == 1)
      need[1] = p->intra;
    for (guint j = 0; j < 2; j++)
      if (need[j] != NULL && pti_system_choice_instance (e->system, choice, need[j]) == NULL) {
        g_autofree char *have = pti_system_configs_of (e->system, need[j]);
        g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                     "rank %u: model '%s' is not configured for the %s of %s (configured "
                     "there: %s)", members[i], pti_system_choice_name (e->system, choice),
                     j == 0 ? "network" : "intra-node messages", need[j]->owner, have);
        return FALSE;
      }
  }
  if (id >= e->n_comm_choice) {
    guint cap = MAX (id + 1, 2 * e->n_comm_choice);
    e->comm_choice = g_renew (guint16, e->comm_choice, cap);
    memset (e->comm_choice + e->n_comm_choice, 0, (cap - e->n_comm_choice) * sizeof (guint16));
    e->n_comm_choice = cap;
  }
  e->comm_choice[id] = (guint16) choice;
  return TRUE;
}
