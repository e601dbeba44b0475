/* io-pfs: a striped parallel file system as queues (README.md has the
 * equations and why each choice).
 *
 *   servers    k servers, each a FCFS queue that serves one request at a time:
 *              a request of b bytes takes latency + b / bandwidth once the
 *              server is free (Delphi's queueing models of disks);
 *   striping   a file's byte x lives on server (f + floor(x / S) mod c) mod k,
 *              f = file number mod k, S the stripe size, c the stripe count;
 *              the bytes of one request that fall on one server are one
 *              request to it (they are contiguous in its object);
 *   clients    each client node's link moves a request's bytes at its
 *              bandwidth, FCFS too; link and servers work as a pipeline, so a
 *              request ends with the later of the two;
 *   metadata   opens and closes queue at one metadata server;
 *   collective two-phase I/O (ROMIO's): one aggregator per client node.
 *
 * Requests come in non-decreasing order of time (the engine's guarantee),
 * so FCFS completion is known when a request arrives: the state is when
 * each queue empties. */
#include <pti/hmi.h>

#include <math.h>
#include <string.h>

extern const char pti_io_pfs_xsd[];

typedef struct {
  guint n_servers;
  double latency;          /* s per request at a server */
  double write_bw;         /* bytes/s per server */
  double read_bw;
  double client_bw;        /* bytes/s per client link */
  guint64 stripe_size;     /* default for files that do not set theirs */
  guint stripe_count;
  double md_latency;       /* s per open or close at the metadata server */
  guint aggregators;       /* most aggregators of a collective call; 0: one per node */
  double *server_free;     /* per server: when its queue is empty */
  double md_free;
  double *client_free;     /* per client (1-based index): when its link is free */
  double *client_out, *client_in;   /* collective scratch: bytes leaving / entering */
  guint32 *agg_client;     /* collective scratch: the aggregators' clients */
  guint n_clients;         /* entries of the client arrays */
} IoPfs;

#define DEFAULT_STRIPE_SIZE (1u << 20)

static gboolean
io_pfs_configure (gpointer instance, const xmlNode *config, GError **error)
{
  IoPfs *self = instance;
  double servers = 0, count = 1, aggregators = 0;
  if (!pti_config_get_double (config, "servers", &servers, error)
      || !pti_config_get_time (config, "latency", &self->latency, error)
      || !pti_config_get_bandwidth (config, "write_bandwidth", &self->write_bw, error)
      || !pti_config_get_bandwidth (config, "read_bandwidth", &self->read_bw, error)
      || !pti_config_get_bandwidth (config, "client_bandwidth", &self->client_bw, error))
    return FALSE;
  self->n_servers = (guint) servers;
  self->stripe_size = DEFAULT_STRIPE_SIZE;
  if (pti_config_child (config, "stripe_size") != NULL
      && !pti_config_get_bytes (config, "stripe_size", &self->stripe_size, error))
    return FALSE;
  if (self->stripe_size == 0)
    return pti_node_error (error, pti_config_child (config, "stripe_size"),
                           "the stripe size must be at least one byte");
  if (pti_config_child (config, "stripe_count") != NULL
      && !pti_config_get_double (config, "stripe_count", &count, error))
    return FALSE;
  self->stripe_count = (guint) count;
  if (self->stripe_count > self->n_servers)
    return pti_node_error (error, pti_config_child (config, "stripe_count"),
                           "stripe_count %u is more than the %u servers", self->stripe_count,
                           self->n_servers);
  if (pti_config_child (config, "metadata_latency") != NULL
      && !pti_config_get_time (config, "metadata_latency", &self->md_latency, error))
    return FALSE;
  if (pti_config_child (config, "aggregators") != NULL
      && !pti_config_get_double (config, "aggregators", &aggregators, error))
    return FALSE;
  self->aggregators = (guint) aggregators;
  self->server_free = g_new (double, self->n_servers);
  for (guint i = 0; i < self->n_servers; i++)
    self->server_free[i] = -INFINITY;
  self->md_free = -INFINITY;
  return TRUE;
}

static void
io_pfs_finalize (gpointer instance)
{
  IoPfs *self = instance;
  g_clear_pointer (&self->server_free, g_free);
  g_clear_pointer (&self->client_free, g_free);
  g_clear_pointer (&self->client_out, g_free);
  g_clear_pointer (&self->client_in, g_free);
  g_clear_pointer (&self->agg_client, g_free);
}

/* Grows the per-client arrays: once per new highest client, not per request. */
static void
ensure_client (IoPfs *self, guint32 client)
{
  if (client < self->n_clients)
    return;
  guint n = MAX (client + 1, self->n_clients * 2);
  self->client_free = g_renew (double, self->client_free, n);
  self->client_out = g_renew (double, self->client_out, n);
  self->client_in = g_renew (double, self->client_in, n);
  self->agg_client = g_renew (guint32, self->agg_client, n);
  for (guint i = self->n_clients; i < n; i++) {
    self->client_free[i] = -INFINITY;
    self->client_out[i] = self->client_in[i] = 0;
  }
  self->n_clients = n;
}

static void
io_pfs_reset (gpointer instance)
{
  IoPfs *self = instance;
  for (guint i = 0; i < self->n_servers; i++)
    self->server_free[i] = -INFINITY;
  for (guint i = 0; i < self->n_clients; i++)
    self->client_free[i] = -INFINITY;
  self->md_free = -INFINITY;
}

/* Bytes of [0, x) on the stripe slot @slot (0 .. c-1) of a layout of stripe
 * size @s over @c servers: whole rounds of c stripes give s each, the
 * round cut short gives what of slot's stripe lies before x. */
static inline guint64
slot_bytes_below (guint64 x, guint64 s, guint c, guint slot)
{
  guint64 round = s * c;
  guint64 r = x % round, lo = (guint64) slot * s;
  return (x / round) * s + (r <= lo ? 0 : MIN (r - lo, s));
}

/* One metadata request queued at the metadata server from @now. */
static double
metadata (IoPfs *self, double now)
{
  self->md_free = MAX (now, self->md_free) + self->md_latency;
  return self->md_free;
}

/* A read or write through the client's link and the servers it stripes
 * over, issued at @now; returns when it is complete. */
static double
data_access (IoPfs *self, const PtiIoRequest *req, double now)
{
  if (req->bytes == 0)
    return now;
  ensure_client (self, req->client);
  double bw = req->kind == PTI_IO_WRITE ? self->write_bw : self->read_bw;
  guint64 s = req->stripe_size ? req->stripe_size : self->stripe_size;
  guint c = req->stripe_count ? req->stripe_count : self->stripe_count;
  c = MIN (MAX (c, 1u), self->n_servers);
  guint first = req->file % self->n_servers;

  double link = MAX (now, self->client_free[req->client]) + (double) req->bytes / self->client_bw;
  self->client_free[req->client] = link;
  double done = link;
  guint64 end = req->offset + req->bytes;
  for (guint slot = 0; slot < c; slot++) {
    guint64 b = slot_bytes_below (end, s, c, slot) - slot_bytes_below (req->offset, s, c, slot);
    if (b == 0)
      continue;
    guint server = (first + slot) % self->n_servers;
    double t = MAX (now, self->server_free[server]) + self->latency + (double) b / bw;
    self->server_free[server] = t;
    done = MAX (done, t);
  }
  return done;
}

static double
io_pfs_access (gpointer instance, const PtiIoRequest *req, double now)
{
  IoPfs *self = instance;
  if (req->kind == PTI_IO_OPEN || req->kind == PTI_IO_CLOSE)
    return metadata (self, now);
  return data_access (self, req, now);
}

/* Two-phase collective I/O (ROMIO's generic form).  Aggregators: the first
 * rank of each client node taking part (ROMIO's default cb_config_list
 * "*:1"), at most `aggregators` of them.  The ranks' accessed extent
 * [lo, hi) is cut into A contiguous file domains of ceil((hi - lo) / A)
 * bytes (ADIOI_Calc_file_domains).  Exchange: every byte a rank accesses in
 * another node's domain crosses both nodes' links; the phase lasts as long
 * as the busiest link, in or out (full duplex).  A write exchanges, then
 * each aggregator writes what its domain holds (one request per contiguous
 * run); a read reads, then exchanges.  Every rank leaves when the call is
 * over. */
static double
io_pfs_collective (gpointer instance, guint n, const PtiIoRequest *reqs, double now)
{
  IoPfs *self = instance;
  if (n == 0)
    return now;
  if (reqs[0].kind == PTI_IO_OPEN || reqs[0].kind == PTI_IO_CLOSE) {
    /* ROMIO opens the file on every process: n requests at the metadata server. */
    double t = now;
    for (guint i = 0; i < n; i++)
      t = metadata (self, now);
    return t;
  }
  guint64 lo = G_MAXUINT64, hi = 0;
  guint32 max_client = 0;
  for (guint i = 0; i < n; i++) {
    max_client = MAX (max_client, reqs[i].client);
    if (reqs[i].bytes == 0)
      continue;
    lo = MIN (lo, reqs[i].offset);
    hi = MAX (hi, reqs[i].offset + reqs[i].bytes);
  }
  if (hi <= lo)
    return now;
  ensure_client (self, max_client);

  /* Aggregators: the client of the first request of each client, in rank
   * order (client_in marks the clients seen meanwhile). */
  guint n_agg = 0;
  guint limit = self->aggregators ? self->aggregators : G_MAXUINT;
  for (guint i = 0; i < n && n_agg < limit; i++)
    if (self->client_in[reqs[i].client] == 0) {
      self->client_in[reqs[i].client] = -1;
      self->agg_client[n_agg++] = reqs[i].client;
    }
  for (guint i = 0; i < n; i++)
    self->client_in[reqs[i].client] = 0;
  const guint32 *agg_client = self->agg_client;
  guint64 fd = (hi - lo + n_agg - 1) / n_agg;

  /* The exchange: for each rank, its bytes in each domain not its node's.
   * Domains are contiguous, so a rank's range meets a run of them. */
  for (guint i = 0; i < n; i++) {
    const PtiIoRequest *r = &reqs[i];
    if (r->bytes == 0)
      continue;
    guint64 from = r->offset, to = r->offset + r->bytes;
    for (guint d = (guint) ((from - lo) / fd); d < n_agg; d++) {
      guint64 d_lo = lo + d * fd, d_hi = MIN (hi, d_lo + fd);
      if (d_lo >= to)
        break;
      guint64 x = MIN (to, d_hi) - MAX (from, d_lo);
      if (agg_client[d] != r->client) {
        self->client_out[r->client] += (double) x;
        self->client_in[agg_client[d]] += (double) x;
      }
    }
  }
  double busiest = 0;
  for (guint i = 0; i < n; i++) {
    guint32 c = reqs[i].client;
    busiest = MAX (busiest, MAX (self->client_out[c], self->client_in[c]));
  }
  for (guint i = 0; i < n; i++)
    self->client_out[reqs[i].client] = self->client_in[reqs[i].client] = 0;
  double exchange = busiest / self->client_bw;

  /* Each aggregator accesses the bytes of its domain the ranks asked for:
   * the ranks' pieces in rank order, one request per run of pieces that
   * follow one another in the file (a dense pattern is one request; holes
   * are not read and rewritten, as ROMIO's data sieving would). */
  gboolean write = reqs[0].kind == PTI_IO_WRITE;
  double start = write ? now + exchange : now, end = start;
  for (guint d = 0; d < n_agg; d++) {
    guint64 d_lo = lo + d * fd, d_hi = MIN (hi, d_lo + fd);
    PtiIoRequest q = reqs[0];
    q.client = agg_client[d];
    q.bytes = 0;
    for (guint i = 0; i <= n; i++) {
      guint64 from = 0, to = 0;
      if (i < n && reqs[i].bytes > 0) {
        from = MAX (reqs[i].offset, d_lo);
        to = MIN (reqs[i].offset + reqs[i].bytes, d_hi);
      }
      if (i < n && to <= from)
        continue;
      if (i < n && q.bytes > 0 && from == q.offset + q.bytes) {
        q.bytes += to - from;
        continue;
      }
      if (q.bytes > 0) {
        double t = data_access (self, &q, start);   /* once: MAX evaluates twice */
        end = MAX (end, t);
      }
      q.offset = from;
      q.bytes = to - from;
    }
  }
  return write ? end : end + exchange;
}

static const PtiIoOps io_pfs_ops = {
  .version = PTI_IO_OPS_VERSION,
  .access = io_pfs_access,
  .collective = io_pfs_collective,
  .reset = io_pfs_reset,
};

static const PtiModelParam io_pfs_params[] = {
  { "servers", NULL, NULL, "data servers k (object storage targets), each a FCFS queue" },
  { "latency", "time (unit attribute: s, ms, us, ns, ps)", NULL,
    "time a server spends per request before moving its bytes (seek, RPC)" },
  { "write_bandwidth", "bandwidth (unit attribute: B/s ... GB/s, b/s ... Gb/s)", NULL,
    "bytes a server writes per second" },
  { "read_bandwidth", "bandwidth", NULL, "bytes a server reads per second" },
  { "client_bandwidth", "bandwidth", NULL,
    "bytes per second through one client node's link to the file system" },
  { "stripe_size", "bytes (unit attribute: B, KiB, MiB, KB, MB)", "1 MiB",
    "stripe size of files that do not set their own" },
  { "stripe_count", NULL, "1", "servers a file is striped over, unless the file sets it" },
  { "metadata_latency", "time", "0", "time the metadata server spends per open or close" },
  { "aggregators", NULL, "one per client node",
    "most aggregators of a collective call (ROMIO's cb_nodes)" },
  { NULL },
};

const PtiModelDesc pti_model_io_pfs = {
  .abi_version = PTI_HMI_ABI_VERSION,
  .struct_size = sizeof (PtiModelDesc),
  .name = "io-pfs",
  .kind = "io",
  .config_element = "io_pfs",
  .summary = "striped parallel file system: FCFS server queues, client links, two-phase collective I/O",
  .description =
    "A request of B bytes at offset o issued at t by a client: its bytes on\n"
    "server s, b_s, as the file's round-robin striping (stripe size S over c\n"
    "servers from server file mod k) deals them, form one request to s, done\n"
    "at T_s = max(t, free_s) + latency + b_s / bandwidth (FCFS, one at a time);\n"
    "the client's link is done at T_l = max(t, free_l) + B / client_bandwidth;\n"
    "the request ends at max(T_l, max_s T_s).  Opens and closes take\n"
    "metadata_latency each at one FCFS metadata server.  A collective call\n"
    "(two-phase I/O): the ranks' extent is cut into one domain per client\n"
    "node; the exchange lasts the busiest link's bytes / client_bandwidth;\n"
    "then each aggregator accesses what its domain holds, one request per\n"
    "contiguous run (reads: first the access, then the exchange).",
  .config_schema = pti_io_pfs_xsd,
  .params = io_pfs_params,
  .instance_size = sizeof (IoPfs),
  .configure = io_pfs_configure,
  .finalize = io_pfs_finalize,
  .io = &io_pfs_ops,
};
