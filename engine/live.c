/* Live changes of CPUs (hmi.h: PTI_CHANGE_SPEED, PTI_CHANGE_AVAILABLE):
 * each node's speed factor and availability over time, and when a
 * computation ends given them.
 *
 * Computations are priced at stage 1, before the evaluation, at the speed
 * the model's configuration says; a change of a node's speed at time T
 * cannot reprice them.  Instead a node has a timeline of phases (from time
 * t on: factor s, available or not), and a computation priced d s that
 * begins at t0 ends when the work it has done, the integral of the rate
 * (s while available, 0 while not) from t0, reaches d.  Without CPU changes
 * none of this runs: a computation ends at t0 + d as before.
 *
 * The change stream (ptieval --changes-stream) may not have said yet what
 * happens during a computation: pti_cpu_finish reads it (PtiEngineFeed)
 * until its horizon is past the computation's end. */
#include "core-private.h"

typedef struct {
  double t;              /* from this time on */
  double speed;          /* the factor (1: as priced) */
  gboolean available;
} CpuPhase;

typedef struct {
  double t;
  PtiChangeEffect effect;
  double value;
} CpuChange;

/* Rebuild @node's timeline from its changes, in time order (stable). */
static void
rebuild (PtiEngine *e, guint node)
{
  GArray *changes = e->node_changes[node];
  GArray *phases = e->node_timeline[node];
  g_array_set_size (phases, 0);
  CpuPhase cur = { -INFINITY, 1.0, TRUE };
  g_array_append_val (phases, cur);
  for (guint i = 0; i < changes->len; i++) {
    const CpuChange *c = &g_array_index (changes, CpuChange, i);
    cur.t = c->t;
    if (c->effect == PTI_CHANGE_SPEED)
      cur.speed = c->value;
    else
      cur.available = c->value != 0;
    CpuPhase *last = &g_array_index (phases, CpuPhase, phases->len - 1);
    if (last->t == cur.t)
      *last = cur;   /* changes at one time: the last one given holds */
    else
      g_array_append_val (phases, cur);
  }
}

void
pti_cpu_change_add (PtiEngine *e, double t, PtiChangeEffect effect, double value, guint node_lo,
                    guint node_hi)
{
  guint n_nodes = pti_system_n_nodes (e->system);
  if (e->node_timeline == NULL) {
    e->node_timeline = g_new0 (GArray *, n_nodes);
    e->node_changes = g_new0 (GArray *, n_nodes);
    e->proc_node = g_new (guint32, e->n_procs);
    for (guint r = 0; r < e->n_procs; r++) {
      PtiProcessorInfo info;
      pti_system_processor_info (e->system, e->procs[r].processor, &info);
      e->proc_node[r] = info.node;
    }
  }
  e->cpu_live = TRUE;
  CpuChange c = { t, effect, value };
  for (guint node = node_lo; node <= node_hi && node < n_nodes; node++) {
    if (e->node_changes[node] == NULL) {
      e->node_changes[node] = g_array_new (FALSE, FALSE, sizeof (CpuChange));
      e->node_timeline[node] = g_array_new (FALSE, FALSE, sizeof (CpuPhase));
    }
    GArray *a = e->node_changes[node];
    guint at = a->len;
    while (at > 0 && g_array_index (a, CpuChange, at - 1).t > t)
      at--;
    g_array_insert_val (a, at, c);
    if (at + 1 < a->len) {
      rebuild (e, node);   /* out of time order: rare (a file's, unsorted) */
      continue;
    }
    /* In time order (a stream, a sorted file): one phase more, O(1). */
    GArray *phases = e->node_timeline[node];
    if (phases->len == 0) {
      CpuPhase first = { -INFINITY, 1.0, TRUE };
      g_array_append_val (phases, first);
    }
    CpuPhase cur = g_array_index (phases, CpuPhase, phases->len - 1);
    gboolean same = cur.t == t;
    cur.t = t;
    if (effect == PTI_CHANGE_SPEED)
      cur.speed = value;
    else
      cur.available = value != 0;
    if (same)
      g_array_index (phases, CpuPhase, phases->len - 1) = cur;
    else
      g_array_append_val (phases, cur);
  }
}

/* Advance a computation at *@now with *@left s of work to do through
 * @phases, no further than @horizon: TRUE with its end in *@end if it ends
 * by then (INFINITY if it never can), else FALSE with *@now = @horizon and
 * *@left what remains. */
static gboolean
integrate (const GArray *phases, double *now, double *left, double horizon, double *end)
{
  /* The phase *@now is in: the last that begins at or before it. */
  guint lo = 0, hi = phases->len;
  while (hi - lo > 1) {
    guint mid = (lo + hi) / 2;
    if (g_array_index (phases, CpuPhase, mid).t <= *now)
      lo = mid;
    else
      hi = mid;
  }
  for (guint i = lo; i < phases->len; i++) {
    const CpuPhase *ph = &g_array_index (phases, CpuPhase, i);
    double rate = ph->available ? ph->speed : 0;
    double next = i + 1 < phases->len ? g_array_index (phases, CpuPhase, i + 1).t : INFINITY;
    if (rate > 0 && *now + *left / rate <= next && *now + *left / rate <= horizon) {
      *end = *now + *left / rate;
      return TRUE;
    }
    double to = MIN (next, horizon);
    if (isinf (to)) {
      *end = INFINITY;
      return TRUE;
    }
    *left -= rate * (to - *now);
    *now = to;
    if (to == horizon)
      return FALSE;
  }
  *end = INFINITY;
  return TRUE;
}

double
pti_cpu_finish (PtiEngine *e, guint rank, double start, double work)
{
  guint node = e->proc_node ? e->proc_node[rank] : 0;
  double now = start, left = work, end = start + work;
  for (;;) {
    const GArray *phases = e->proc_node ? e->node_timeline[node] : NULL;
    /* Every change before the end must be known: what is known is
     * integrated, then the stream read on (the work done so far kept). */
    double horizon = e->feed.more != NULL ? e->known_until : INFINITY;
    gboolean ended;
    if (phases != NULL)
      ended = integrate (phases, &now, &left, horizon, &end);
    else if ((ended = now + left <= horizon))
      end = now + left;
    else {
      now = horizon;   /* full speed so far */
      left = end - horizon;
    }
    if (!ended) {
      GError *local = NULL;
      if (!e->feed.more (e->feed.data, &local)) {
        if (e->error == NULL)
          g_propagate_error (&e->error, local);
        else
          g_clear_error (&local);
        return start;
      }
      continue;
    }
    if (G_UNLIKELY (isinf (end))) {
      g_autofree char *where = pti_system_describe_processor (e->system, e->procs[rank].processor);
      if (e->error == NULL)
        g_set_error (&e->error, PTI_ERROR, PTI_ERROR_INVALID,
                     "rank %u: a computation it begins at %.9f s on %s never ends: the node is "
                     "unavailable from then on (a change 'available 0' and none to make it "
                     "available again)", rank, start, where);
      return start;
    }
    return end;
  }
}

void
pti_live_free (PtiEngine *e)
{
  guint n_nodes = e->node_timeline ? pti_system_n_nodes (e->system) : 0;
  for (guint i = 0; i < n_nodes; i++) {
    if (e->node_timeline[i] != NULL)
      g_array_unref (e->node_timeline[i]);
    if (e->node_changes[i] != NULL)
      g_array_unref (e->node_changes[i]);
  }
  g_free (e->node_timeline);
  g_free (e->node_changes);
  g_free (e->proc_node);
}
