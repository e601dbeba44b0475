/* net-simple: point-to-point messages without contention.
 *
 * Two forms of the same model (README.md has the equations):
 *   latency/bandwidth:  injected = t + n/B          arrived = t + L + n/B
 *   LogGP:              t' = max(t, last_t(src) + g)
 *                       injected = t' + (n-1)G       arrived = injected + L
 * The latency/bandwidth form may give size pieces, each its own L and B for
 * messages up to its size (a piecewise fit of measured one-way times).
 * Per-message CPU overheads (o_s, o_r; both o in LogGP) are charged by the
 * engine through send_overhead / recv_overhead.  The gap is the only state:
 * the engine calls transfer() in non-decreasing start order, so remembering
 * the last injection start per port is enough. */
#include "net-pieces.h"

#include <errno.h>
#include <math.h>
#include <string.h>

extern const char pti_net_simple_xsd[];

typedef struct {
  gboolean loggp;
  PtiNetPieces f;         /* L (both forms), B, o_s, o_r (LogGP: both o), pieces, eager limit */
  double gap_per_byte;    /* s/byte (G), LogGP form */
  double gap;             /* s (g), LogGP form */
  double *last_start;     /* per source port: start of the last message (LogGP gap) */
  guint n_ports;
  guint64 changes;        /* parameter changes applied so far */
} NetSimple;

#define DEFAULT_EAGER_LIMIT 65536u

gboolean
pti_net_pieces_read (const xmlNode *config, PtiNetPieces *out, GError **error)
{
  if (!pti_config_get_time (config, "latency", &out->latency, error)
      || !pti_config_get_bandwidth (config, "bandwidth", &out->bandwidth, error))
    return FALSE;
  if (pti_config_child (config, "send_overhead") != NULL
      && !pti_config_get_time (config, "send_overhead", &out->send_overhead, error))
    return FALSE;
  if (pti_config_child (config, "recv_overhead") != NULL
      && !pti_config_get_time (config, "recv_overhead", &out->recv_overhead, error))
    return FALSE;
  out->share = 0;
  const xmlNode *share = pti_config_child (config, "share");
  if (share != NULL) {
    if (!pti_config_node_number (share, PTI_RANGE_SENSE_SLOWER_WHEN_HIGHER, &out->share, error))
      return FALSE;
    if (!(out->share > 0 && out->share <= 1))
      return pti_node_error (error, share, "a share of the node's copy capacity is in (0, 1], "
                             "not %g", out->share);
  }
  for (const xmlNode *c = config->children; c != NULL; c = c->next) {
    if (c->type != XML_ELEMENT_NODE || strcmp ((const char *) c->name, "piece") != 0)
      continue;
    if (out->n_pieces == PTI_NET_MAX_PIECES)
      return pti_node_error (error, c, "more than %d pieces", PTI_NET_MAX_PIECES);
    PtiNetPiece *p = &out->pieces[out->n_pieces];
    xmlChar *up_to = xmlGetProp (c, (const xmlChar *) "up_to");
    char *end = NULL;
    errno = 0;
    p->up_to = up_to != NULL ? g_ascii_strtoull ((const char *) up_to, &end, 10) : 0;
    gboolean bad = up_to == NULL || errno != 0 || end == (char *) up_to || *end != '\0';
    xmlFree (up_to);
    if (bad)
      return pti_node_error (error, c, "up_to must be a number of bytes below 2^64");
    if (out->n_pieces > 0 && p->up_to <= out->pieces[out->n_pieces - 1].up_to)
      return pti_node_error (error, c, "up_to=\"%" G_GUINT64_FORMAT "\" does not follow the "
                             "previous piece's %" G_GUINT64_FORMAT ": pieces go by increasing "
                             "size", p->up_to, out->pieces[out->n_pieces - 1].up_to);
    if (!pti_config_get_time (c, "latency", &p->latency, error)
        || !pti_config_get_bandwidth (c, "bandwidth", &p->bandwidth, error))
      return FALSE;
    p->share = out->share;
    const xmlNode *ps = pti_config_child (c, "share");
    if (ps != NULL) {
      if (!pti_config_node_number (ps, PTI_RANGE_SENSE_SLOWER_WHEN_HIGHER, &p->share, error))
        return FALSE;
      if (!(p->share > 0 && p->share <= 1))
        return pti_node_error (error, ps, "a share of the node's copy capacity is in (0, 1], "
                               "not %g", p->share);
    }
    out->n_pieces++;
  }
  return pti_net_pieces_read_eager_limit (config, out, error);
}

gboolean
pti_net_pieces_read_eager_limit (const xmlNode *config, PtiNetPieces *out, GError **error)
{
  out->eager_limit = DEFAULT_EAGER_LIMIT;
  return pti_config_child (config, "eager_limit") == NULL
         || pti_config_get_bytes (config, "eager_limit", &out->eager_limit, error);
}

static gboolean
net_simple_configure (gpointer instance, const xmlNode *config, GError **error)
{
  NetSimple *self = instance;
  const xmlNode *loggp = pti_config_child (config, "loggp");

  if (loggp == NULL)
    return pti_net_pieces_read (config, &self->f, error);
  self->loggp = TRUE;
  if (!pti_config_get_time (loggp, "L", &self->f.latency, error)
      || !pti_config_get_time (loggp, "o", &self->f.send_overhead, error)
      || !pti_config_get_time (loggp, "g", &self->gap, error)
      || !pti_config_get_time (loggp, "G", &self->gap_per_byte, error))
    return FALSE;
  self->f.recv_overhead = self->f.send_overhead;
  return pti_net_pieces_read_eager_limit (config, &self->f, error);
}

static void
net_simple_finalize (gpointer instance)
{
  NetSimple *self = instance;
  g_clear_pointer (&self->last_start, g_free);
}

static double
net_simple_send_overhead (gconstpointer instance, guint64 bytes)
{
  return ((const NetSimple *) instance)->f.send_overhead;
}

static double
net_simple_recv_overhead (gconstpointer instance, guint64 bytes)
{
  return ((const NetSimple *) instance)->f.recv_overhead;
}

static guint64
net_simple_eager_limit (gconstpointer instance)
{
  return ((const NetSimple *) instance)->f.eager_limit;
}

/* Grows the per-port gap state; happens once per new highest port, not per
 * message. */
static void
ensure_port (NetSimple *self, guint32 port)
{
  if (port < self->n_ports)
    return;
  guint n = MAX (port + 1, self->n_ports * 2);
  self->last_start = g_renew (double, self->last_start, n);
  for (guint i = self->n_ports; i < n; i++)
    self->last_start[i] = -INFINITY;
  self->n_ports = n;
}

static void
net_simple_transfer (gpointer instance, guint32 src_port, guint32 dst_port, guint64 bytes,
                     double start, PtiTransfer *out)
{
  NetSimple *self = instance;

  if (!self->loggp) {
    const PtiNetPiece *p = pti_net_pieces_find (&self->f, bytes);
    double latency = p ? p->latency : self->f.latency;
    double bandwidth = p ? p->bandwidth : self->f.bandwidth;
    double wire = (double) bytes / bandwidth;
    out->injected = start + wire;
    out->arrived = start + latency + wire;
    return;
  }
  ensure_port (self, src_port);
  double t = MAX (start, self->last_start[src_port] + self->gap);
  self->last_start[src_port] = t;
  out->injected = t + (bytes > 0 ? (double) (bytes - 1) * self->gap_per_byte : 0.0);
  out->arrived = out->injected + self->f.latency;
}

/* Live changes apply to the transfers that start afterwards: a message
 * priced at its start keeps its price. */
static gboolean
net_simple_reconfigure (gpointer instance, const char *element, const char *selector,
                        const char *value, gboolean apply, double now,
                        const PtiNetSink *sink, GError **error)
{
  NetSimple *self = instance;
  double v = 0;
  double *target = NULL;
  if (selector != NULL) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "net-simple has no parts to choose: '%s[%s]' takes no [...]", element, selector);
    return FALSE;
  }
  if (self->f.n_pieces > 0
      && (strcmp (element, "bandwidth") == 0 || strcmp (element, "latency") == 0)) {
    /* which piece a sensor's one figure would be for is not known */
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "net-simple with size pieces cannot change '%s' during an evaluation (it has "
                 "a latency and a bandwidth per piece); it can change send_overhead and "
                 "recv_overhead", element);
    return FALSE;
  }
  if (strcmp (element, "bandwidth") == 0 && !self->loggp) {
    if (!pti_parse_bandwidth (value, &v, error))
      return FALSE;
    target = &self->f.bandwidth;
  } else if (strcmp (element, "latency") == 0 || strcmp (element, "send_overhead") == 0
             || strcmp (element, "recv_overhead") == 0) {
    if (!pti_parse_time (value, &v, error))
      return FALSE;
    target = element[0] == 'l' ? &self->f.latency
             : element[0] == 's' ? &self->f.send_overhead : &self->f.recv_overhead;
  } else {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "net-simple cannot change '%s' during an evaluation; it can change %s", element,
                 self->loggp ? "latency, send_overhead and recv_overhead"
                             : "latency, bandwidth, send_overhead and recv_overhead");
    return FALSE;
  }
  if (apply) {
    *target = v;
    self->changes++;
  }
  return TRUE;
}

/* A new evaluation: no message has gone yet (LogGP's gap). */
static void
net_simple_reset (gpointer instance)
{
  NetSimple *self = instance;
  for (guint i = 0; i < self->n_ports; i++)
    self->last_start[i] = -INFINITY;
}

/* Analytical repetition: the LogGP gap's memory of each port is all the
 * state there is. */
static void
net_simple_digest (gconstpointer instance, PtiDigest *d)
{
  const NetSimple *self = instance;
  pti_digest_add_int (d, self->changes);
  for (guint i = 0; self->last_start != NULL && i < self->n_ports; i++)
    if (self->last_start[i] > -INFINITY) {
      pti_digest_add_int (d, i);
      pti_digest_add_time (d, self->last_start[i]);
    }
}

static void
net_simple_shift (gpointer instance, double dt)
{
  NetSimple *self = instance;
  for (guint i = 0; self->last_start != NULL && i < self->n_ports; i++)
    self->last_start[i] += dt;   /* -INFINITY (never) stays so */
}

static const PtiNetOps net_simple_ops = {
  .version = PTI_NET_OPS_VERSION,
  .reset = net_simple_reset,
  .send_overhead = net_simple_send_overhead,
  .recv_overhead = net_simple_recv_overhead,
  .eager_limit = net_simple_eager_limit,
  .transfer = net_simple_transfer,
  .digest = net_simple_digest,
  .shift = net_simple_shift,
};

static const PtiModelParam net_simple_params[] = {
  { "latency", "time (unit attribute: s, ms, us, ns, ps)", NULL,
    "end-to-end latency L of a message, independent of its size" },
  { "bandwidth", "bandwidth (unit attribute: B/s ... GB/s, b/s ... Gb/s)", NULL,
    "point-to-point bandwidth B; a message of n bytes occupies the wire for n/B" },
  { "send_overhead", "time", "0", "CPU time o_s the sender spends per message" },
  { "piece[@up_to]/latency, piece[@up_to]/bandwidth", "time, bandwidth", "none",
    "size pieces: messages of up_to bytes or fewer (above the previous piece) use their own L "
    "and B; above the last piece, latency and bandwidth" },
  { "recv_overhead", "time", "0", "CPU time o_r the receiver spends per message" },
  { "loggp/L, loggp/o, loggp/g, loggp/G", "time", NULL,
    "the LogGP form instead: latency, overhead (both ends), gap between messages, gap per byte" },
  { "eager_limit", "bytes (unit attribute: B, KiB, MiB, KB, MB)", "65536",
    "largest message sent eagerly; larger messages use the rendezvous protocol" },
  { NULL },
};

const PtiModelDesc pti_model_net_simple = {
  .abi_version = PTI_HMI_ABI_VERSION,
  .struct_size = sizeof (PtiModelDesc),
  .name = "net-simple",
  .kind = "network",
  .config_element = "net_simple",
  .summary = "point-to-point latency + size/bandwidth (or LogGP), no contention",
  .description =
    "A message of n bytes whose first byte enters the network at t leaves the\n"
    "sender at t + n/B and arrives at t + L + n/B (latency/bandwidth form), or,\n"
    "in the LogGP form, enters at t' = max(t, previous start on that port + g),\n"
    "leaves at t' + (n-1)G and arrives L later.  The sender spends o_s of CPU\n"
    "before the transfer and the receiver o_r after arrival.  Up to eager_limit\n"
    "bytes the send completes after o_s (eager); above it the sender sends a\n"
    "0-byte request, the receiver answers when its receive is posted, and the\n"
    "data follows (rendezvous).  Concurrent messages do not slow each other:\n"
    "use net-contention for that.",
  .config_schema = pti_net_simple_xsd,
  .params = net_simple_params,
  .instance_size = sizeof (NetSimple),
  .configure = net_simple_configure,
  .finalize = net_simple_finalize,
  .net = &net_simple_ops,
  .reconfigure = net_simple_reconfigure,
};
