/* net-node: messages between the CPUs of one node, which share the node's
 * copy capacity (README.md has the equations).
 *
 * A lone message costs what net-simple's latency/bandwidth form with size
 * pieces says, to the bit: it leaves the sender at t + n/B_k and arrives at
 * t + L_k + n/B_k.  That lone time D = L_k + n/B_k is the message's work;
 * while several messages are in flight on the node each does its work at a
 * speed v <= 1, the speeds shared max-min fairly under two constraints:
 * the node (sum of share * v <= 1, share being the fraction of the node's
 * copy capacity a lone message of its piece uses) and the receiving CPU
 * (sum of v <= 1 over the messages it receives: the receiver copies).
 * Its data has left the sender when the n/B_k part of the work is done;
 * the engine needs its arrival then, so the rest (L_k) goes on at the
 * speed it has at that moment, holding its part of the node until it
 * arrives.  Rendezvous handshakes and 0-byte messages take the first
 * piece's latency and no capacity, as net-simple prices them.
 *
 * A node has a few messages in flight at once: the flows live in a small
 * array scanned linearly, grown geometrically, nothing allocated per
 * message once it has reached its size. */
#include "../net-simple/net-pieces.h"

#include <math.h>
#include <string.h>

extern const char pti_net_node_xsd[];

typedef enum {
  FLOW_DATA,   /* its data is still leaving the sender */
  FLOW_TAIL,   /* reported: its data has left and it arrives at `at` */
} FlowKind;

typedef struct {
  gpointer cookie;
  guint32 dst;          /* receiving port (1-based) */
  guint8 kind;
  gboolean pristine;    /* at speed 1 since it started: priced as net-simple's, to the bit */
  double start;         /* s */
  double latency;       /* s, L_k of its piece */
  double wire;          /* s, n / B_k */
  double share;         /* w, of its piece */
  double left;          /* s of lone time before its data has left (FLOW_DATA) */
  double speed;         /* v */
  double since;         /* when `left` was last settled */
  double at;            /* when it next changes: its data has left (DATA), it arrives (TAIL) */
} Flow;

typedef struct {
  PtiNetPieces f;
  Flow *flows;          /* in the order they started */
  guint n_flows, cap;
  double *port_left;    /* water-filling scratch, per receiving port */
  guint *port_count;
  guint n_ports;
  double next;          /* the earliest `at` */
} NetNode;

static gboolean
net_node_configure (gpointer instance, const xmlNode *config, GError **error)
{
  NetNode *self = instance;
  if (!pti_net_pieces_read (config, &self->f, error))
    return FALSE;
  self->next = INFINITY;
  return TRUE;
}

static void
net_node_finalize (gpointer instance)
{
  NetNode *self = instance;
  g_clear_pointer (&self->flows, g_free);
  g_clear_pointer (&self->port_left, g_free);
  g_clear_pointer (&self->port_count, g_free);
}

static double
net_node_send_overhead (gconstpointer instance, guint64 bytes)
{
  return ((const NetNode *) instance)->f.send_overhead;
}

static double
net_node_recv_overhead (gconstpointer instance, guint64 bytes)
{
  return ((const NetNode *) instance)->f.recv_overhead;
}

static guint64
net_node_eager_limit (gconstpointer instance)
{
  return ((const NetNode *) instance)->f.eager_limit;
}

/* Remaining lone time of every data flow at @now, at the speeds it had. */
static void
settle (NetNode *self, double now)
{
  for (guint i = 0; i < self->n_flows; i++) {
    Flow *fl = &self->flows[i];
    if (fl->kind != FLOW_DATA)
      continue;
    fl->left = fl->pristine ? fl->wire - (now - fl->start) : fl->left - fl->speed * (now - fl->since);
    fl->since = now;
  }
}

/* Max-min fair speeds of the data flows (progressive filling): every flow
 * not fixed yet rises at the same speed until 1, the node's capacity left
 * (1 less share * speed of the fixed flows) or a receiving CPU's (1 less
 * the fixed flows' speeds into it) runs out; the flows of the constraint
 * that ran out are fixed there.  Reported flows (tails) keep theirs.
 * Then each data flow's next time. */
static void
share_out (NetNode *self, double now)
{
  if (self->n_flows == 1 && self->flows[0].kind == FLOW_DATA) {
    /* alone, the common case: full speed (what the filling below gives) */
    Flow *fl = &self->flows[0];
    fl->speed = 1.0;
    fl->at = fl->pristine ? fl->start + fl->wire : now + MAX (fl->left, 0.0);
    self->next = fl->at;
    return;
  }
  double node_left = 1.0;
  guint unfixed = 0;
  for (guint p = 0; p < self->n_ports; p++) {
    self->port_left[p] = 1.0;
    self->port_count[p] = 0;
  }
  for (guint i = 0; i < self->n_flows; i++) {
    Flow *fl = &self->flows[i];
    if (fl->kind == FLOW_TAIL) {
      node_left -= fl->share * fl->speed;
      self->port_left[fl->dst] -= fl->speed;
    } else {
      fl->speed = -1;   /* not fixed yet */
      self->port_count[fl->dst]++;
      unfixed++;
    }
  }
  while (unfixed > 0) {
    double weight = 0, level = 1.0;
    for (guint i = 0; i < self->n_flows; i++)
      if (self->flows[i].kind == FLOW_DATA && self->flows[i].speed < 0)
        weight += self->flows[i].share;
    gboolean node_binds = weight > 0 && MAX (node_left, 0.0) / weight < level;
    if (node_binds)
      level = MAX (node_left, 0.0) / weight;
    guint32 port = 0;   /* 0: no CPU binds */
    for (guint p = 1; p < self->n_ports; p++)
      if (self->port_count[p] > 0 && MAX (self->port_left[p], 0.0) / self->port_count[p] < level) {
        level = MAX (self->port_left[p], 0.0) / self->port_count[p];
        port = p;
      }
    for (guint i = 0; i < self->n_flows; i++) {
      Flow *fl = &self->flows[i];
      if (fl->kind != FLOW_DATA || fl->speed >= 0 || (port != 0 && fl->dst != port))
        continue;
      fl->speed = level;
      node_left -= fl->share * level;
      self->port_left[fl->dst] -= level;
      self->port_count[fl->dst]--;
      unfixed--;
    }
  }
  self->next = INFINITY;
  for (guint i = 0; i < self->n_flows; i++) {
    Flow *fl = &self->flows[i];
    if (fl->kind == FLOW_DATA) {
      if (fl->speed < 1.0)
        fl->pristine = FALSE;
      fl->at = fl->pristine ? fl->start + fl->wire
               : fl->speed > 0 ? now + MAX (fl->left, 0.0) / fl->speed : INFINITY;
    }
    self->next = MIN (self->next, fl->at);
  }
}

static void
ensure_port (NetNode *self, guint32 port)
{
  if (port < self->n_ports)
    return;
  guint n = MAX (port + 1, self->n_ports * 2);
  self->port_left = g_renew (double, self->port_left, n);
  self->port_count = g_renew (guint, self->port_count, n);
  self->n_ports = n;
}

static void net_node_flow_advance (gpointer instance, double now, const PtiNetSink *sink);

static void
net_node_flow_start (gpointer instance, const PtiFlow *flow, double now, const PtiNetSink *sink)
{
  NetNode *self = instance;
  const PtiNetPiece *p = pti_net_pieces_find (&self->f, flow->bytes);
  double latency = p ? p->latency : self->f.latency;
  if (flow->bytes == 0) {
    /* a handshake or an empty message: latency only, as net-simple */
    sink->flow_done (sink->host, flow->cookie, now, now + latency);
    return;
  }
  net_node_flow_advance (self, now, sink);
  settle (self, now);
  if (self->n_flows == self->cap) {
    self->cap = MAX (8u, self->cap * 2);
    self->flows = g_renew (Flow, self->flows, self->cap);
  }
  ensure_port (self, flow->dst_port);
  double wire = (double) flow->bytes / (p ? p->bandwidth : self->f.bandwidth);
  self->flows[self->n_flows++] = (Flow) {
    .cookie = flow->cookie, .dst = flow->dst_port, .kind = FLOW_DATA, .pristine = TRUE,
    .start = now, .latency = latency, .wire = wire, .share = p ? p->share : self->f.share,
    .left = wire, .speed = 1.0, .since = now, .at = now + wire,
  };
  share_out (self, now);
}

static double
net_node_flow_next (gconstpointer instance)
{
  return ((const NetNode *) instance)->next;
}

/* Flows whose data has left by @now are reported (their arrival is then
 * known: the rest of their work at the speed they have) and hold their
 * part of the node until they arrive; flows that have arrived leave it.
 * Also called by flow_start, for what fell due before the start and was
 * not advanced to yet. */
static void
net_node_flow_advance (gpointer instance, double now, const PtiNetSink *sink)
{
  NetNode *self = instance;
  if (now < self->next)
    return;
  settle (self, now);
  guint kept = 0;
  for (guint i = 0; i < self->n_flows; i++) {
    Flow *fl = &self->flows[i];
    if (fl->kind == FLOW_DATA && fl->at <= now) {
      double arrived = fl->pristine ? fl->start + fl->latency + fl->wire
                                    : now + fl->latency / fl->speed;
      sink->flow_done (sink->host, fl->cookie, fl->pristine ? fl->start + fl->wire : now, arrived);
      fl->kind = FLOW_TAIL;
      fl->at = arrived;
    }
    if (fl->kind == FLOW_TAIL && fl->at <= now)
      continue;   /* arrived: leaves the node */
    self->flows[kept++] = *fl;
  }
  self->n_flows = kept;
  share_out (self, now);
}

static void
net_node_reset (gpointer instance)
{
  NetNode *self = instance;
  self->n_flows = 0;
  self->next = INFINITY;
}

static const PtiNetOps net_node_ops = {
  .version = PTI_NET_OPS_VERSION,
  .reset = net_node_reset,
  .send_overhead = net_node_send_overhead,
  .recv_overhead = net_node_recv_overhead,
  .eager_limit = net_node_eager_limit,
  .flow_start = net_node_flow_start,
  .flow_next = net_node_flow_next,
  .flow_advance = net_node_flow_advance,
};

static const PtiModelParam net_node_params[] = {
  { "latency", "time (unit attribute: s, ms, us, ns, ps)", NULL,
    "L of a lone message above the last piece" },
  { "bandwidth", "bandwidth (unit attribute: B/s ... GB/s, b/s ... Gb/s)", NULL,
    "B of a lone message above the last piece" },
  { "send_overhead", "time", "0", "CPU time o_s the sender spends per message" },
  { "recv_overhead", "time", "0", "CPU time o_r the receiver spends per message" },
  { "share", "number in (0, 1]", NULL,
    "the fraction of the node's copy capacity a lone message above the last piece uses (and of "
    "every piece that gives none): an exchange of two such messages takes 2 x share x its lone "
    "time when share > 1/2" },
  { "piece[@up_to]/latency, bandwidth, share", "time, bandwidth, number", "share: the one above",
    "size pieces: messages of up_to bytes or fewer (above the previous piece) use their own L, B "
    "and share" },
  { "eager_limit", "bytes (unit attribute: B, KiB, MiB, KB, MB)", "65536",
    "largest message sent eagerly; larger messages use the rendezvous protocol" },
  { NULL },
};

const PtiModelDesc pti_model_net_node = {
  .abi_version = PTI_HMI_ABI_VERSION,
  .struct_size = sizeof (PtiModelDesc),
  .name = "net-node",
  .kind = "network",
  .config_element = "net_node",
  .summary = "messages inside a node: net-simple's size pieces, concurrent messages share the "
             "node's copy capacity",
  .description =
    "A lone message of n bytes costs what net-simple's latency/bandwidth form\n"
    "with size pieces says: it leaves the sender at t + n/B and arrives at\n"
    "t + L + n/B.  That lone time D = L + n/B is its work; while several\n"
    "messages are in flight on the node each works at a speed v <= 1, shared\n"
    "max-min fairly under the node's capacity (sum of share x v <= 1, share\n"
    "the part of the node a lone message of its piece uses) and each\n"
    "receiving CPU's (sum of v <= 1: the receiver copies).  An exchange of\n"
    "two messages of D each takes 2 x share x D when share > 1/2.\n"
    "Rendezvous handshakes take the first piece's latency and no capacity.",
  .config_schema = pti_net_node_xsd,
  .params = net_node_params,
  .instance_size = sizeof (NetNode),
  .configure = net_node_configure,
  .finalize = net_node_finalize,
  .net = &net_node_ops,
};
