/* net-contention: a CCMOD-like network model with link contention and
 * background load (README.md has the equations and the references).
 *
 * The network is a set of directed links (every cable is full duplex: two
 * links) over a topology from the configuration: a crossbar, a generalised
 * fat tree (Clos networks, k-ary n-trees) or a torus, with deterministic
 * routes (up/down, dimension order).  A message is a flow: its bytes cross
 * every link of its route at one rate, the max-min fair share of its
 * bottleneck link; it then arrives after the route's latency.
 *
 * State changes only when a flow starts or ends or a parameter changes.
 * Then the rates are recomputed by water-filling, but only over the flows
 * that can be affected: the connected component, through shared links, of
 * the links that changed.  Every other flow keeps its rate and its end
 * time; flows are settled lazily (remaining bytes computed from the time of
 * their last rate change), and the ends wait in an indexed binary heap.
 * Flows count their hops on shared links and keep their smallest own
 * capacity, so that the components most events make (one flow alone, or
 * the flows of one link that share no other) are solved without a walk.
 *
 * Nothing on the hot path allocates except amortised growth of arrays when
 * more flows are in flight than ever before. */
#include <pti/hmi.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

extern const char pti_net_contention_xsd[];

typedef enum { TOPO_CROSSBAR, TOPO_FAT_TREE, TOPO_TORUS } Topology;

#define MAX_LEVELS 8
#define MAX_DIMS 6
#define NO_POS G_MAXUINT32
#define SMALL_COMPONENT 48   /* links: below this a scan beats a heap */
#define ROUTE_CACHE_SLOTS_PER_PORT 64  /* a rank's partners in a phase, and room */
#define ROUTE_CACHE_MAX_SLOTS (1u << 16)
#define ROUTE_CACHE_MAX_LINKS (1u << 20)  /* 4 MiB of cached links at most */

typedef struct {
  double bandwidth;      /* bytes/s */
  double load;           /* background load, fraction of bandwidth in [0, 1) */
  double capacity;       /* bandwidth * (1 - load), set with them (link_set) */
  guint32 *flows;        /* flows crossing it (any order) */
  guint n_flows, cap_flows;
  guint32 busy_pos;      /* index in NetContention.busy, NO_POS if it carries no flow */
  /* water-filling scratch */
  guint32 mark;          /* epoch of the last component that reached it (or
                          * the open epoch: dirty, waiting for recompute) */
  guint unfixed;
  double left;           /* bandwidth not yet given to fixed flows */
} Link;

typedef struct {
  gpointer cookie;
  guint64 msg;
  guint64 seq;           /* start order: ties between equal end times */
  double remaining;      /* bytes at `last` */
  double last;           /* s: when remaining was settled */
  double rate;           /* bytes/s, 0 until first computed */
  double finish;         /* s: when its last byte leaves, at the current rate */
  double latency;        /* s: route latency */
  double reported;       /* bytes/s in its last BA record, -1 before the first */
  guint32 heap_pos;
  guint32 mark;          /* component epoch */
  guint32 own_link;      /* its links that carry only it (own links): the */
  double own_share;      /* smallest capacity among them (INFINITY if none) */
  guint8 own_ok;         /* own_link and own_share hold for its links as they are */
  guint8 n_shared;       /* hops on links that carry another flow (or it twice) */
  guint8 fixed;          /* water-filling */
  guint8 n_hops;
  guint8 live;
  guint8 pending;        /* in NetContention.pending: its rate changed at `now` */
} Flow;

/* A route computed once for a pair of ports; its links follow in
 * NetContention.route_cache_links. */
typedef struct {
  guint64 pair;          /* src * n_ports + dst + 1; 0: empty */
  double latency;        /* s */
  guint hops;
} RouteSlot;

/* An end in the heap carries its keys, so that ordering reads no flow. */
typedef struct {
  double finish;         /* the flow's finish */
  guint64 seq;           /* the flow's seq */
  guint32 flow;
} HeapEntry;

typedef struct {
  /* configuration */
  Topology topo;
  guint n_ports;
  guint levels;                               /* fat tree */
  guint down[MAX_LEVELS], up[MAX_LEVELS], par[MAX_LEVELS];
  guint64 nodes_at[MAX_LEVELS + 1];           /* fat tree: nodes per level */
  guint64 cable_base[MAX_LEVELS + 1];         /* fat tree: first cable of each level */
  guint n_dims, dims[MAX_DIMS];               /* torus */
  double link_latency, switch_latency;        /* s */
  double send_overhead, recv_overhead;        /* s */
  guint64 eager_limit, packet_size;           /* bytes */
  guint max_hops;
  Link *links;
  guint n_links;
  char **link_names;                          /* NULL-terminated */
  /* Routes of recent pairs: a slot per pair when all fit, else hashed. */
  RouteSlot *route_cache;
  guint32 *route_cache_links;                 /* max_hops per slot */
  guint route_cache_bits;
  gboolean route_cache_direct;

  /* flows */
  Flow *flows;
  guint32 *routes;                            /* max_hops links per flow */
  guint32 *route_pos;                         /* its index in each link's flow list */
  guint n_flows, cap_flows;
  guint32 free_flow;                          /* free list through routes[f * max_hops] */
  guint64 next_seq;
  HeapEntry *heap;                            /* flows by (finish, seq) */
  guint heap_n;
  double now;
  /* scratch for recomputation: the component, seeded by the dirty links.
   * comp_links holds each link at most once (n_links entries), comp_flows
   * each flow (cap_flows entries), so neither grows on the hot path. */
  guint32 epoch;                              /* open: marks dirty links and the component */
  guint32 *comp_links, *comp_flows;
  guint n_comp_links, n_comp_flows;
  guint32 *share_heap;                        /* links by share, lazy */
  double *share_key;
  guint share_n, share_cap;
  guint32 *busy;                              /* links carrying flows (knee) */
  guint n_busy;
  gboolean track_busy;                        /* busy is kept: records were asked for */
  /* record state: what changed at pending_at, reported when the clock moves on */
  guint32 *pending;                           /* flows whose rate changed */
  guint n_pending, cap_pending;
  gboolean knee_pending;
  double pending_at;
  gint last_knee_link;
  double last_knee;
  guint64 changes;                            /* parameter changes applied so far */
} NetContention;

enum { RECORD_BA, RECORD_KNEE };

/* ---- small arrays ----------------------------------------------------- */

/* The smaller of two candidates (share, link): the lower link breaks ties. */
#define CANDIDATE_BEFORE(s, c, key, l) ((s) < (key) || ((s) == (key) && (c) < (l)))

#define GROW(arr, cap, need)                                                   \
  G_STMT_START {                                                               \
    if ((need) > (cap)) {                                                      \
      (cap) = MAX ((need), MAX (16u, (cap) * 2));                              \
      (arr) = g_renew (__typeof__ (*(arr)), (arr), (cap));                     \
    }                                                                          \
  } G_STMT_END

/* ---- topology --------------------------------------------------------- */

static char *
switch_name (const NetContention *self, guint level, guint64 index)
{
  if (level == 0)
    return g_strdup_printf ("h%" G_GUINT64_FORMAT, index + 1);
  return g_strdup_printf ("s%u.%" G_GUINT64_FORMAT, level, index);
}

static char *
router_name (const NetContention *self, guint64 r)
{
  GString *s = g_string_new ("r");
  for (guint j = 0; j < self->n_dims; j++) {
    g_string_append_printf (s, "%s%" G_GUINT64_FORMAT, j ? "." : "", r % self->dims[j]);
    r /= self->dims[j];
  }
  return g_string_free (s, FALSE);
}

static const char dim_letters[] = "xyzuvw";

/* Number the links and name them (README.md, "Links"). */
static gboolean
build_links (NetContention *self, const xmlNode *where, GError **error)
{
  guint64 n = 0;
  switch (self->topo) {
  case TOPO_CROSSBAR:
    n = 2 * (guint64) self->n_ports;
    self->max_hops = 2;
    break;
  case TOPO_FAT_TREE: {
    guint64 cables = 0;
    for (guint i = 1; i <= self->levels; i++) {
      self->cable_base[i] = cables;
      cables += self->nodes_at[i - 1] * self->up[i - 1] * self->par[i - 1];
    }
    n = 2 * cables;
    self->max_hops = 2 * self->levels;
    break;
  }
  case TOPO_TORUS: {
    guint hops = 2;
    for (guint j = 0; j < self->n_dims; j++)
      hops += self->dims[j] / 2;
    n = 2 * (guint64) self->n_ports + 2 * (guint64) self->n_ports * self->n_dims;
    self->max_hops = hops;
    break;
  }
  }
  /* About 80 bytes a link (state and name): 2^22 links stay near 300 MiB,
   * so a small configuration cannot ask for gigabytes. */
  if (n > 1u << 22 || self->max_hops > 255)
    return pti_node_error (error, where, "a network of %" G_GUINT64_FORMAT " links and routes of "
                           "up to %u links is larger than net-contention handles (4,194,304 "
                           "links, 255 hops)", n, self->max_hops);
  self->n_links = (guint) n;
  self->links = g_new0 (Link, self->n_links);
  self->link_names = g_new0 (char *, self->n_links + 1);
  self->busy = g_new (guint32, self->n_links);   /* each link at most once */
  self->comp_links = g_new (guint32, self->n_links);
  for (guint l = 0; l < self->n_links; l++)
    self->links[l].busy_pos = NO_POS;

  switch (self->topo) {
  case TOPO_CROSSBAR:
    for (guint p = 0; p < self->n_ports; p++) {
      self->link_names[2 * p] = g_strdup_printf ("h%u:up", p + 1);
      self->link_names[2 * p + 1] = g_strdup_printf ("h%u:down", p + 1);
    }
    break;
  case TOPO_FAT_TREE:
    for (guint i = 1; i <= self->levels; i++) {
      guint w = self->up[i - 1], p = self->par[i - 1];
      guint64 low = 1;                      /* product of w_1 .. w_(i-1) */
      for (guint j = 1; j < i; j++)
        low *= self->up[j - 1];
      for (guint64 x = 0; x < self->nodes_at[i - 1]; x++) {
        g_autofree char *child = switch_name (self, i - 1, x);
        guint64 x_low = x % low, rest = x / low / self->down[i - 1];
        for (guint c = 0; c < w; c++) {
          guint64 parent = x_low + low * c + low * w * rest;
          g_autofree char *pname = switch_name (self, i, parent);
          for (guint k = 0; k < p; k++) {
            guint64 cable = self->cable_base[i] + (x * w + c) * p + k;
            g_autofree char *base = p > 1 ? g_strdup_printf ("%s-%s#%u", child, pname, k)
                                          : g_strdup_printf ("%s-%s", child, pname);
            self->link_names[2 * cable] = g_strconcat (base, ":up", NULL);
            self->link_names[2 * cable + 1] = g_strconcat (base, ":down", NULL);
          }
        }
      }
    }
    break;
  case TOPO_TORUS:
    for (guint r = 0; r < self->n_ports; r++) {
      g_autofree char *rn = router_name (self, r);
      self->link_names[2 * r] = g_strdup_printf ("h%u-%s:up", r + 1, rn);
      self->link_names[2 * r + 1] = g_strdup_printf ("h%u-%s:down", r + 1, rn);
      for (guint j = 0; j < self->n_dims; j++) {
        guint base = 2 * self->n_ports + (r * self->n_dims + j) * 2;
        self->link_names[base] = g_strdup_printf ("%s:+%c", rn, dim_letters[j]);
        self->link_names[base + 1] = g_strdup_printf ("%s:-%c", rn, dim_letters[j]);
      }
    }
    break;
  }
  return TRUE;
}

/* The links from port @src to port @dst (0-based) into @out; returns their
 * number and the switches crossed in @switches. */
static guint
route (const NetContention *self, guint src, guint dst, guint32 *out, guint *switches)
{
  guint n = 0;
  *switches = 0;
  if (src == dst)
    return 0;   /* the interface loops it back */
  switch (self->topo) {
  case TOPO_CROSSBAR:
    out[n++] = 2 * src;
    out[n++] = 2 * dst + 1;
    *switches = 1;
    break;
  case TOPO_FAT_TREE: {
    /* The lowest level whose subtree holds both. */
    guint top = 0;
    guint64 span = 1;
    while (src / span != dst / span) {
      span *= self->down[top];
      top++;
    }
    /* Up: at level i-1 take parent (d / (w_1..w_(i-1))) mod w_i and, among
     * parallel cables, (d / (w_1..w_i)) mod p_i: destination-mod-k, which
     * spreads the destinations of one switch over its up-links. */
    guint64 x = src, low = 1;
    guint choice[MAX_LEVELS];
    for (guint i = 1; i <= top; i++) {
      guint w = self->up[i - 1], p = self->par[i - 1];
      guint c = (guint) ((dst / low) % w);
      guint k = (guint) ((dst / (low * w)) % p);
      choice[i] = c;
      guint64 cable = self->cable_base[i] + (x * w + c) * p + k;
      out[n++] = (guint32) (2 * cable);
      guint64 x_low = x % low, rest = x / low / self->down[i - 1];
      x = x_low + low * c + low * w * rest;
      low *= w;
    }
    /* Down: the child on the destination's side keeps the choices made on
     * the way up (they are the parent's lower digits); among parallel
     * cables, source mod p_i, as SimGrid's FatTreeZone does, so that the
     * messages of one source spread over them as those to one destination
     * do on the way up. */
    guint32 down_links[MAX_LEVELS];
    guint64 low_i = 1;
    for (guint i = 1; i <= top; i++) {
      guint w = self->up[i - 1], p = self->par[i - 1];
      /* the level-(i-1) node on the destination's side: lower digits as on
       * the way up below level i, upper digits the destination's */
      guint64 dlow = 0, mult = 1;
      for (guint j = 1; j < i; j++) {
        dlow += choice[j] * mult;
        mult *= self->up[j - 1];
      }
      guint64 dup = dst;
      for (guint j = 1; j < i; j++)
        dup /= self->down[j - 1];
      guint64 child = dlow + low_i * dup;
      guint64 cable = self->cable_base[i] + (child * w + choice[i]) * p + src % p;
      down_links[i] = (guint32) (2 * cable + 1);
      low_i *= w;
    }
    for (guint i = top; i >= 1; i--)
      out[n++] = down_links[i];
    *switches = 2 * top - 1;
    break;
  }
  case TOPO_TORUS: {
    out[n++] = 2 * src;
    guint64 cur = src, stride = 1;
    for (guint j = 0; j < self->n_dims; j++) {
      guint d = self->dims[j];
      guint a = (guint) ((cur / stride) % d), b = (guint) ((dst / stride) % d);
      /* The shorter way round.  On a tie (d even, b opposite a) + unless a
       * is d/2, as SimGrid's TorusZone decides from the source coordinate. */
      guint half = d / 2;
      gboolean plus = (b > a && b <= a + half) || (a > half && (a + half) % d >= b);
      guint fwd = (b + d - a) % d;
      guint steps = plus ? fwd : (d - fwd) % d;
      for (guint s = 0; s < steps; s++) {
        guint32 base = 2 * self->n_ports + (guint32) ((cur * self->n_dims + j) * 2);
        out[n++] = plus ? base : base + 1;
        guint na = plus ? (a + 1) % d : (a + d - 1) % d;
        cur = cur - (guint64) a * stride + (guint64) na * stride;
        a = na;
      }
      stride *= d;
    }
    out[n++] = 2 * dst + 1;
    *switches = n - 1;
    break;
  }
  }
  return n;
}

/* ---- configuration ---------------------------------------------------- */

static gboolean
parse_list (const xmlNode *el, const char *attr, guint *out, guint max, guint *n,
            GError **error)
{
  g_autofree char *text = (char *) xmlGetProp (el, (const xmlChar *) attr);
  if (text == NULL)
    return pti_node_error (error, el, "attribute %s is required", attr);
  g_auto (GStrv) parts = g_strsplit (text, ",", -1);
  guint count = g_strv_length (parts);
  if (count == 0 || count > max)
    return pti_node_error (error, el, "%s=\"%s\": between 1 and %u numbers", attr, text, max);
  for (guint i = 0; i < count; i++) {
    guint64 v;
    if (!g_ascii_string_to_unsigned (g_strstrip (parts[i]), 10, 1, 1u << 20, &v, NULL))
      return pti_node_error (error, el, "%s=\"%s\": '%s' is not a whole number >= 1", attr,
                             text, parts[i]);
    out[i] = (guint) v;
  }
  *n = count;
  return TRUE;
}

static gboolean
configure_topology (NetContention *self, const xmlNode *topo, GError **error)
{
  const xmlNode *el = NULL;
  for (const xmlNode *c = topo->children; c != NULL; c = c->next)
    if (c->type == XML_ELEMENT_NODE)
      el = c;
  const char *name = (const char *) el->name;
  guint64 ports = 1;
  if (strcmp (name, "crossbar") == 0) {
    guint n = 0, v[1];
    if (!parse_list (el, "ports", v, 1, &n, error))
      return FALSE;
    self->topo = TOPO_CROSSBAR;
    ports = v[0];
  } else if (strcmp (name, "fat_tree") == 0) {
    guint levels, nd, nu, np;
    g_autofree char *lv = (char *) xmlGetProp (el, (const xmlChar *) "levels");
    guint64 l64;
    if (lv == NULL || !g_ascii_string_to_unsigned (lv, 10, 1, MAX_LEVELS, &l64, NULL))
      return pti_node_error (error, el, "levels=\"%s\": a whole number from 1 to %u",
                             lv ? lv : "", MAX_LEVELS);
    levels = (guint) l64;
    if (!parse_list (el, "down", self->down, MAX_LEVELS, &nd, error)
        || !parse_list (el, "up", self->up, MAX_LEVELS, &nu, error)
        || !parse_list (el, "parallel", self->par, MAX_LEVELS, &np, error))
      return FALSE;
    if (nd != levels || nu != levels || np != levels)
      return pti_node_error (error, el, "down, up and parallel need %u numbers each (one per "
                             "level), not %u, %u and %u", levels, nd, nu, np);
    self->topo = TOPO_FAT_TREE;
    self->levels = levels;
    for (guint i = 0; i < levels; i++)
      ports *= self->down[i];
    /* nodes at level i: w_1..w_i times m_(i+1)..m_h */
    for (guint i = 0; i <= levels; i++) {
      guint64 count = 1;
      for (guint j = 0; j < i; j++)
        count *= self->up[j];
      for (guint j = i; j < levels; j++)
        count *= self->down[j];
      self->nodes_at[i] = count;
      if (count > 1u << 24)
        return pti_node_error (error, el, "level %u would have %" G_GUINT64_FORMAT " switches",
                               i, count);
    }
  } else {
    guint n = 0;
    if (!parse_list (el, "dims", self->dims, MAX_DIMS, &n, error))
      return FALSE;
    self->topo = TOPO_TORUS;
    self->n_dims = n;
    for (guint j = 0; j < n; j++)
      ports *= self->dims[j];
  }
  if (ports > 1u << 24)
    return pti_node_error (error, el, "%" G_GUINT64_FORMAT " ports: more than net-contention "
                           "handles (2^24)", ports);
  self->n_ports = (guint) ports;
  return build_links (self, el, error);
}

/* The capacity is computed here once, not at every use: the same product,
 * so the same bits. */
static void
link_set (Link *k, double bandwidth, double load)
{
  k->bandwidth = bandwidth;
  k->load = load;
  k->capacity = bandwidth * (1.0 - load);
}

static gboolean
check_load (double load, GError **error)
{
  if (load >= 0 && load < 1)
    return TRUE;
  g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
               "background load %g is not a fraction in [0, 1): a link with no bandwidth "
               "left would never deliver", load);
  return FALSE;
}

/* Apply @fn to every link whose name matches the glob @pattern; FALSE with
 * @error if none does. */
static gboolean
match_links (NetContention *self, const char *pattern, GArray *out, GError **error)
{
  g_autoptr (GPatternSpec) spec = g_pattern_spec_new (pattern);
  for (guint l = 0; l < self->n_links; l++)
    if (g_pattern_spec_match_string (spec, self->link_names[l]))
      g_array_append_val (out, l);
  if (out->len > 0)
    return TRUE;
  g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
               "no link is called '%s' (links are named like '%s' or '%s'; * and ? match "
               "any characters; `ptieval --model-info net-contention` explains the names)",
               pattern, self->link_names[0], self->link_names[self->n_links - 1]);
  return FALSE;
}

static gboolean
net_contention_configure (gpointer instance, const xmlNode *config, GError **error)
{
  NetContention *self = instance;
  double bandwidth, load = 0;
  self->eager_limit = 65536;
  self->packet_size = 4096;
  self->last_knee_link = -1;
  if (!configure_topology (self, pti_config_child (config, "topology"), error)
      || !pti_config_get_bandwidth (config, "link_bandwidth", &bandwidth, error))
    return FALSE;
  if ((pti_config_child (config, "link_latency")
       && !pti_config_get_time (config, "link_latency", &self->link_latency, error))
      || (pti_config_child (config, "switch_latency")
          && !pti_config_get_time (config, "switch_latency", &self->switch_latency, error))
      || (pti_config_child (config, "send_overhead")
          && !pti_config_get_time (config, "send_overhead", &self->send_overhead, error))
      || (pti_config_child (config, "recv_overhead")
          && !pti_config_get_time (config, "recv_overhead", &self->recv_overhead, error))
      || (pti_config_child (config, "eager_limit")
          && !pti_config_get_bytes (config, "eager_limit", &self->eager_limit, error))
      || (pti_config_child (config, "packet_size")
          && !pti_config_get_bytes (config, "packet_size", &self->packet_size, error)))
    return FALSE;
  if (self->packet_size == 0)
    return pti_node_error (error, pti_config_child (config, "packet_size"),
                           "a packet has at least one byte");
  const xmlNode *bl = pti_config_child (config, "background_load");
  if (bl != NULL) {
    GError *local = NULL;
    if (!pti_config_get_number (config, "background_load",
                                PTI_RANGE_SENSE_SLOWER_WHEN_HIGHER, &load, error))
      return FALSE;
    if (!check_load (load, &local)) {
      pti_node_error (error, bl, "%s", local->message);
      g_error_free (local);
      return FALSE;
    }
  }
  for (guint l = 0; l < self->n_links; l++)
    link_set (&self->links[l], bandwidth, load);
  /* Per-link loads, in document order: a later one wins. */
  g_autoptr (GArray) matched = g_array_new (FALSE, FALSE, sizeof (guint));
  for (const xmlNode *c = config->children; c != NULL; c = c->next) {
    if (c->type != XML_ELEMENT_NODE || strcmp ((const char *) c->name, "link_load") != 0)
      continue;
    g_autofree char *pattern = (char *) xmlGetProp (c, (const xmlChar *) "link");
    double v = 0;
    if (!pti_config_node_number (c, PTI_RANGE_SENSE_SLOWER_WHEN_HIGHER, &v, error))
      return FALSE;
    GError *local = NULL;
    g_array_set_size (matched, 0);
    if (!check_load (v, &local) || !match_links (self, pattern, matched, &local)) {
      pti_node_error (error, c, "%s", local->message);
      g_error_free (local);
      return FALSE;
    }
    for (guint i = 0; i < matched->len; i++) {
      Link *k = &self->links[g_array_index (matched, guint, i)];
      link_set (k, k->bandwidth, v);
    }
  }
  self->free_flow = NO_POS;
  self->epoch = 1;
  /* Messages go between few pairs of ports again and again (neighbours,
   * collectives), and computing a route divides a lot.  Hashed slots: a
   * few per port, so that one phase's pairs rarely collide. */
  guint64 pairs = (guint64) self->n_ports * self->n_ports;
  guint64 want = MIN (pairs, (guint64) ROUTE_CACHE_SLOTS_PER_PORT * self->n_ports);
  guint bits = 0;
  while ((1ull << bits) < want && (1u << bits) < ROUTE_CACHE_MAX_SLOTS
         && (2ull << bits) * self->max_hops <= ROUTE_CACHE_MAX_LINKS)
    bits++;
  self->route_cache_bits = bits;
  self->route_cache_direct = pairs <= 1ull << bits;
  self->route_cache = g_new0 (RouteSlot, 1u << bits);
  self->route_cache_links = g_new (guint32, (gsize) self->max_hops << bits);
  return TRUE;
}

static void
net_contention_finalize (gpointer instance)
{
  NetContention *self = instance;
  for (guint l = 0; l < self->n_links; l++)
    g_free (self->links[l].flows);
  g_free (self->links);
  g_strfreev (self->link_names);
  g_free (self->flows);
  g_free (self->routes);
  g_free (self->route_pos);
  g_free (self->heap);
  g_free (self->comp_links);
  g_free (self->comp_flows);
  g_free (self->route_cache);
  g_free (self->route_cache_links);
  g_free (self->pending);
  g_free (self->share_heap);
  g_free (self->share_key);
  g_free (self->busy);
}

static void
net_contention_reset (gpointer instance)
{
  NetContention *self = instance;
  for (guint l = 0; l < self->n_links; l++) {
    self->links[l].n_flows = 0;
    self->links[l].busy_pos = NO_POS;
    self->links[l].mark = 0;
  }
  self->n_busy = 0;
  self->track_busy = FALSE;
  self->n_flows = 0;
  self->free_flow = NO_POS;
  self->heap_n = 0;
  self->now = 0;
  self->next_seq = 0;
  self->epoch = 1;
  self->n_comp_links = self->n_comp_flows = 0;
  self->n_pending = 0;
  self->knee_pending = FALSE;
  self->last_knee_link = -1;
  self->last_knee = 0;
}

/* ---- simple ops --------------------------------------------------------- */

static double
net_contention_send_overhead (gconstpointer instance, guint64 bytes)
{
  return ((const NetContention *) instance)->send_overhead;
}

static double
net_contention_recv_overhead (gconstpointer instance, guint64 bytes)
{
  return ((const NetContention *) instance)->recv_overhead;
}

static guint64
net_contention_eager_limit (gconstpointer instance)
{
  return ((const NetContention *) instance)->eager_limit;
}

static guint32
net_contention_port_count (gconstpointer instance)
{
  return ((const NetContention *) instance)->n_ports;
}

/* ---- the flows' end-time heap ----------------------------------------- */

static inline gboolean
ends_before (const HeapEntry *a, const HeapEntry *b)
{
  return a->finish < b->finish || (a->finish == b->finish && a->seq < b->seq);
}

/* The heap functions (like the water-filling ones) read the model's
 * arrays into locals first: the project builds with -fno-strict-aliasing,
 * so every store would otherwise make the compiler load them again. */

static void
heap_up (NetContention *self, guint i)
{
  HeapEntry *heap = self->heap;
  Flow *flows = self->flows;
  HeapEntry e = heap[i];
  while (i > 0) {
    guint parent = (i - 1) / 2;
    if (!ends_before (&e, &heap[parent]))
      break;
    heap[i] = heap[parent];
    flows[heap[i].flow].heap_pos = i;
    i = parent;
  }
  heap[i] = e;
  flows[e.flow].heap_pos = i;
}

static void
heap_down (NetContention *self, guint i)
{
  HeapEntry *heap = self->heap;
  Flow *flows = self->flows;
  guint n = self->heap_n;
  HeapEntry e = heap[i];
  for (;;) {
    guint c = 2 * i + 1;
    if (c >= n)
      break;
    if (c + 1 < n && ends_before (&heap[c + 1], &heap[c]))
      c++;
    if (!ends_before (&heap[c], &e))
      break;
    heap[i] = heap[c];
    flows[heap[i].flow].heap_pos = i;
    i = c;
  }
  heap[i] = e;
  flows[e.flow].heap_pos = i;
}

static void
heap_push (NetContention *self, guint32 f)
{
  const Flow *fl = &self->flows[f];
  guint i = self->heap_n++;
  self->heap[i] = (HeapEntry) { .finish = fl->finish, .seq = fl->seq, .flow = f };
  heap_up (self, i);
}

/* Flow @f ends at @finish now: it moves only one way. */
static inline void
heap_move (NetContention *self, guint32 f, double finish)
{
  Flow *fl = &self->flows[f];
  guint i = fl->heap_pos;
  gboolean earlier = finish < fl->finish;
  fl->finish = finish;
  self->heap[i].finish = finish;
  if (earlier)
    heap_up (self, i);
  else
    heap_down (self, i);
}

static void
heap_pop (NetContention *self)
{
  self->flows[self->heap[0].flow].heap_pos = NO_POS;
  if (--self->heap_n > 0) {
    self->heap[0] = self->heap[self->heap_n];
    heap_down (self, 0);
  }
}

/* ---- links' flow lists -------------------------------------------------- */

static inline void
busy_add (NetContention *self, guint32 l)
{
  self->links[l].busy_pos = self->n_busy;
  self->busy[self->n_busy++] = l;
}

static inline void
busy_remove (NetContention *self, guint32 l)
{
  guint32 i = self->links[l].busy_pos;
  guint32 last = self->busy[--self->n_busy];
  self->busy[i] = last;
  self->links[last].busy_pos = i;
  self->links[l].busy_pos = NO_POS;
}

/* Flow @f enters link @l at hop @hop of its route; returns the link. */
static inline Link *
link_add_flow (NetContention *self, guint32 f, guint hop, guint32 l)
{
  Link *k = &self->links[l];
  GROW (k->flows, k->cap_flows, k->n_flows + 1);
  self->route_pos[(gsize) f * self->max_hops + hop] = k->n_flows;
  k->flows[k->n_flows++] = f;
  if (k->n_flows >= 2) {
    /* A shared hop of @f (whose own links are found once it is added)
     * and, if the link was another flow's own, of that flow: its smallest
     * own capacity changes only if this link was it. */
    if (k->n_flows == 2) {
      Flow *g = &self->flows[k->flows[0]];
      g->n_shared++;
      if (g->own_link == l)
        g->own_ok = FALSE;
    }
    self->flows[f].n_shared++;
  } else if (self->track_busy) {
    busy_add (self, l);
  }
  return k;
}

/* Swap-remove: the flow moved into the hole learns its new position.
 * Returns the link. */
static inline Link *
link_remove_flow (NetContention *self, guint32 f, guint hop, guint32 l)
{
  Link *k = &self->links[l];
  guint32 pos = self->route_pos[(gsize) f * self->max_hops + hop];
  if (k->n_flows >= 2)
    self->flows[f].n_shared--;
  guint32 moved = k->flows[--k->n_flows];
  if (pos != k->n_flows) {
    k->flows[pos] = moved;
    const guint32 *mr = &self->routes[(gsize) moved * self->max_hops];
    for (guint h = 0; h < self->flows[moved].n_hops; h++)
      if (mr[h] == l) {
        self->route_pos[(gsize) moved * self->max_hops + h] = pos;
        break;
      }
  }
  if (k->n_flows == 1) {
    /* The flow left has an own link more: the smaller of it and the
     * smallest it had is its smallest. */
    Flow *g = &self->flows[k->flows[0]];
    g->n_shared--;
    if (g->own_ok && CANDIDATE_BEFORE (k->capacity, l, g->own_share, g->own_link)) {
      g->own_share = k->capacity;
      g->own_link = l;
    }
  } else if (k->n_flows == 0 && self->track_busy)
    busy_remove (self, l);
  return k;
}

/* ---- water-filling ------------------------------------------------------ */

static inline gboolean
share_less (const NetContention *self, guint i, guint j)
{
  double a = self->share_key[i], b = self->share_key[j];
  return a < b || (a == b && self->share_heap[i] < self->share_heap[j]);
}

static void
share_push (NetContention *self, guint32 l, double key)
{
  if (self->share_n == self->share_cap) {
    self->share_cap = MAX (64, self->share_cap * 2);
    self->share_heap = g_renew (guint32, self->share_heap, self->share_cap);
    self->share_key = g_renew (double, self->share_key, self->share_cap);
  }
  guint i = self->share_n++;
  self->share_heap[i] = l;
  self->share_key[i] = key;
  while (i > 0) {
    guint p = (i - 1) / 2;
    if (!share_less (self, i, p))
      break;
    guint32 tl = self->share_heap[i];
    double tk = self->share_key[i];
    self->share_heap[i] = self->share_heap[p];
    self->share_key[i] = self->share_key[p];
    self->share_heap[p] = tl;
    self->share_key[p] = tk;
    i = p;
  }
}

static void
share_pop (NetContention *self, guint32 *l, double *key)
{
  *l = self->share_heap[0];
  *key = self->share_key[0];
  guint n = --self->share_n;
  self->share_heap[0] = self->share_heap[n];
  self->share_key[0] = self->share_key[n];
  guint i = 0;
  for (;;) {
    guint c = 2 * i + 1;
    if (c >= n)
      break;
    if (c + 1 < n && share_less (self, c + 1, c))
      c++;
    if (!share_less (self, c, i))
      break;
    guint32 tl = self->share_heap[i];
    double tk = self->share_key[i];
    self->share_heap[i] = self->share_heap[c];
    self->share_key[i] = self->share_key[c];
    self->share_heap[c] = tl;
    self->share_key[c] = tk;
    i = c;
  }
}

/* @v (>= 0) with @decimals fraction digits into @buf (48 bytes), by integer
 * arithmetic: records are made per rate change, and printf's floating-point
 * path would be most of their cost.  Values beyond 1e15 use printf. */
static const char *
format_fixed (char *buf, double v, guint decimals)
{
  static const double scale[] = { 1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9 };
  if (!(v >= 0 && v < 1e15) || decimals > 9) {
    g_snprintf (buf, 48, "%.*f", (int) decimals, v);
    return buf;
  }
  guint64 units = (guint64) llround (v * scale[decimals]);
  char tmp[48];
  guint n = 0;
  for (guint d = 0; d < decimals; d++, units /= 10)
    tmp[n++] = (char) ('0' + units % 10);
  if (decimals > 0)
    tmp[n++] = '.';
  do {
    tmp[n++] = (char) ('0' + units % 10);
    units /= 10;
  } while (units > 0);
  for (guint i = 0; i < n; i++)
    buf[i] = tmp[n - 1 - i];
  buf[n] = '\0';
  return buf;
}

static void
emit_ba (NetContention *self, const Flow *f, const PtiNetSink *sink)
{
  char t[48], msg[48], bps[48];
  format_fixed (t, self->pending_at, 9);
  format_fixed (msg, (double) f->msg, 0);
  format_fixed (bps, f->rate, 0);
  const char *values[] = { t, msg, bps };
  sink->record (sink->host, RECORD_BA, values);
}

/* Knee capacity: the packets per second a message gets on the most loaded
 * link, the busy link with the smallest fair share. */
static void
emit_knee (NetContention *self, const PtiNetSink *sink)
{
  if (!self->track_busy) {
    /* Busy links are listed only once records are asked for: the first
     * knee lists them, link_add_flow and link_remove_flow keep the list. */
    for (guint32 l = 0; l < self->n_links; l++)
      if (self->links[l].n_flows > 0)
        busy_add (self, l);
    self->track_busy = TRUE;
  }
  gint best = -1;
  double share = INFINITY;
  for (guint i = 0; i < self->n_busy; i++) {
    guint32 l = self->busy[i];
    double s = self->links[l].capacity / self->links[l].n_flows;
    if (s < share || (s == share && (gint) l < best)) {
      share = s;
      best = (gint) l;
    }
  }
  double pps = best >= 0 ? share / (double) self->packet_size : 0;
  if (best == self->last_knee_link && pps == self->last_knee)
    return;
  self->last_knee_link = best;
  self->last_knee = pps;
  char t[48], v[48];
  format_fixed (t, self->pending_at, 9);
  format_fixed (v, pps, 3);
  const char *values[] = { t, best >= 0 ? self->link_names[best] : "", v };
  sink->record (sink->host, RECORD_KNEE, values);
}

/* Records tell the state that lasts.  At one instant several flows may
 * start (a collective, an incast) and each start recomputes the rates: the
 * first flow alone would be reported at the full bandwidth, then at its
 * share, both at the same time, and the first record would describe a state
 * of no duration.  So a change of rate is only noted (note_rate), and its BA
 * record written with the instant's time once the instant is over: when the
 * model's clock moves on (advance_clock), when the flow ends, or when the
 * network falls idle (settle_if_idle: nothing may follow, and the model is
 * not called at the end of an evaluation).  The knee record likewise.  The
 * instant is pending_at, not `now`: repetition may shift the clock between. */
static inline void
note_rate (NetContention *self, guint32 f)
{
  Flow *fl = &self->flows[f];
  self->pending_at = self->now;
  if (fl->pending)
    return;
  fl->pending = TRUE;
  GROW (self->pending, self->cap_pending, self->n_pending + 1);
  self->pending[self->n_pending++] = f;
}

static inline void
note_knee (NetContention *self)
{
  self->pending_at = self->now;
  self->knee_pending = TRUE;
}

static void
report_flow (NetContention *self, Flow *fl, const PtiNetSink *sink)
{
  fl->pending = FALSE;
  if (fl->rate != fl->reported) {
    emit_ba (self, fl, sink);
    fl->reported = fl->rate;
  }
}

static void
flush_records (NetContention *self, const PtiNetSink *sink)
{
  for (guint i = 0; i < self->n_pending; i++) {
    Flow *fl = &self->flows[self->pending[i]];
    if (fl->live && fl->pending)   /* else reported when it ended, or a stale entry */
      report_flow (self, fl, sink);
  }
  self->n_pending = 0;
  if (self->knee_pending) {
    self->knee_pending = FALSE;
    emit_knee (self, sink);
  }
}

/* Move the clock to @now, after the records of the instant it leaves. */
static inline void
advance_clock (NetContention *self, double now, const PtiNetSink *sink)
{
  if (now > self->now) {
    if (sink != NULL && sink->record != NULL)
      flush_records (self, sink);
    self->now = now;
  }
}

static inline void
settle_if_idle (NetContention *self, const PtiNetSink *sink)
{
  if (self->heap_n == 0 && sink != NULL && sink->record != NULL)
    flush_records (self, sink);
}

/* Open a new epoch once a component is done: marks are compared for
 * equality, so when the counter would wrap they all start again. */
static void
epoch_close (NetContention *self)
{
  self->n_comp_links = self->n_comp_flows = 0;
  if (G_UNLIKELY (self->epoch == G_MAXUINT32 - 1)) {
    for (guint l = 0; l < self->n_links; l++)
      self->links[l].mark = 0;
    for (guint f = 0; f < self->n_flows; f++)
      self->flows[f].mark = 0;
    self->epoch = 0;
  }
  self->epoch++;
}

/* Fix flow @f at @share, the share of link @l: settle its bytes at the old
 * rate, take the new one, give its bandwidth back to the other shared links
 * of its route and move its end time.  On the @last step (no flow is left
 * unfixed after this one's link) no link is looked at again, so the
 * bandwidth is not given back.  Always inlined: it runs for every flow of
 * every component, and out of line its call cost a fifth of it. */
static inline __attribute__ ((always_inline)) void
fix_flow (NetContention *self, guint32 f, guint32 l, double share, gboolean small,
          gboolean last, const PtiNetSink *records)
{
  Flow *fl = &self->flows[f];
  fl->fixed = TRUE;
  fl->remaining = MAX (fl->remaining - fl->rate * (self->now - fl->last), 0.0);
  fl->last = self->now;
  gboolean changed = fl->rate != share;
  fl->rate = share;
  if (!last) {
    const guint32 *r = &self->routes[(gsize) f * self->max_hops];
    for (guint h = 0; h < fl->n_hops; h++) {
      Link *o = &self->links[r[h]];
      if (o->n_flows < 2)
        continue;   /* its own link: nothing else to tell */
      o->unfixed--;
      if (r[h] == l)
        continue;
      o->left -= share;
      if (o->unfixed > 0 && !small)
        share_push (self, r[h], o->left / o->unfixed);
    }
  }
  double finish = share > 0 ? self->now + fl->remaining / share : INFINITY;
  if (finish != fl->finish)
    heap_move (self, f, finish);
  if (changed && records != NULL)
    note_rate (self, f);
}

/* Fix every flow of the shared link @l not fixed yet at @share; returns
 * how many flows.  A route may cross a link twice (counted twice in its
 * unfixed), so the walk goes over every flow of the link rather than
 * stopping after `unfixed` of them.  @records: the sink when records are
 * written, else NULL. */
static guint
fix_link_flows (NetContention *self, guint32 l, double share, gboolean small, gboolean last,
                const PtiNetSink *records)
{
  const Link *k = &self->links[l];
  guint fixed = 0;
  for (guint j = 0; j < k->n_flows && k->unfixed > 0; j++) {
    guint32 f = k->flows[j];
    if (self->flows[f].fixed)
      continue;
    fix_flow (self, f, l, share, small, last, records);
    fixed++;
  }
  return fixed;
}

/* The smallest (capacity, link) among the own links of flow @fl (route
 * @r), INFINITY if none: what its own links offer it in water-filling.
 * Kept until one of its links becomes shared or own again, or changes. */
static inline void
own_update (NetContention *self, Flow *fl, const guint32 *r)
{
  if (fl->own_ok)
    return;
  guint32 ol = 0;
  double os = INFINITY;
  for (guint h = 0; h < fl->n_hops; h++) {
    const Link *o = &self->links[r[h]];
    if (o->n_flows == 1 && CANDIDATE_BEFORE (o->capacity, r[h], os, ol)) {
      os = o->capacity;
      ol = r[h];
    }
  }
  fl->own_share = os;
  fl->own_link = ol;
  fl->own_ok = TRUE;
}

/* Water-filling, without a walk, of the two components most events make:
 * the flows of one link @c that share no other link (a star: the first
 * flow of a link joined by a second, or a link left with one flow), and
 * one flow that shares no link.  The steps, shares and arithmetic are
 * recompute's (the same smallest (share, link) fixed at each step, the same
 * subtractions from the link's bandwidth in the same order), so the rates
 * are the same bits.  FALSE, doing nothing, for any other component. */
static gboolean
solve_star (NetContention *self, guint32 c, const PtiNetSink *records)
{
  Link *k = &self->links[c];
  guint n = k->n_flows;
  guint need = n >= 2;   /* shared hops of each flow: this link's, or none */
  Flow *flows = self->flows;
  for (guint j = 0; j < n; j++)
    if (flows[k->flows[j]].n_shared != need)
      return FALSE;
  for (guint j = 0; j < n; j++) {
    guint32 f = k->flows[j];
    flows[f].fixed = FALSE;
    own_update (self, &flows[f], &self->routes[(gsize) f * self->max_hops]);
  }
  if (n == 1) {
    const Flow *fl = &flows[k->flows[0]];
    fix_flow (self, k->flows[0], fl->own_link, MAX (fl->own_share, 0.0), TRUE, TRUE, records);
    return TRUE;
  }
  k->unfixed = n;
  k->left = k->capacity;
  for (guint unfixed = n;; unfixed--) {
    double key = k->left / k->unfixed;
    guint32 l = c, own = NO_POS;
    for (guint j = 0; j < n; j++) {
      const Flow *fl = &flows[k->flows[j]];
      if (!fl->fixed && fl->own_share != INFINITY
          && CANDIDATE_BEFORE (fl->own_share, fl->own_link, key, l)) {
        key = fl->own_share;
        l = fl->own_link;
        own = k->flows[j];
      }
    }
    if (own == NO_POS) {
      fix_link_flows (self, c, MAX (key, 0.0), TRUE, TRUE, records);
      return TRUE;
    }
    fix_flow (self, own, l, MAX (key, 0.0), TRUE, unfixed == 1, records);
    if (unfixed == 1)
      return TRUE;
  }
}

/* Recompute the rates of every flow that shares a link, directly or through
 * other flows, with the dirty links (mark_dirty); settle them at self->now
 * and move their end times.
 *
 * Water-filling: the link with the smallest fair share left / unfixed
 * (ties: the lowest link number) fixes its flows at that share; their
 * bandwidth leaves the other links; repeat.  The order in which links are
 * found does not matter, only that order of selection, so the rates are
 * the same to the last bit however the component is walked.
 *
 * A link that carries one flow only (its own link: most host links) is not
 * walked or scanned as a link: until that flow is fixed, its share is its
 * capacity / 1, its capacity exactly, so the flow stands for the smallest
 * (capacity, link) among its own links, and is fixed alone when that is
 * the smallest share, as the link would fix it. */
static void
recompute (NetContention *self, const PtiNetSink *sink)
{
  if (self->n_comp_links == 0) {
    if (sink != NULL && sink->record != NULL)
      note_knee (self);   /* a flow may have ended alone */
    return;
  }
  guint32 epoch = self->epoch;
  const PtiNetSink *records = sink != NULL && sink->record != NULL ? sink : NULL;
  if (self->n_comp_links == 1 && solve_star (self, self->comp_links[0], records)) {
    epoch_close (self);
    if (records != NULL)
      note_knee (self);
    return;
  }
  /* The component: shared links reach their flows, flows their shared
   * links.  The dirty links are in comp_links already, marked; every link
   * and flow is made ready for water-filling as it is reached, and a link
   * not shared is left with no unfixed flow, out of the scan. */
  guint32 *comp_links = self->comp_links, *comp_flows = self->comp_flows;
  guint n_links = self->n_comp_links, n_flows = 0;
  /* The first step's smallest share, found on the way: nothing is fixed
   * yet, so a shared link's share is its capacity over its flows.  @own:
   * the flow that the smallest stands for, when it is an own link. */
  guint32 l = 0, own = NO_POS;
  double key = INFINITY;
  for (guint li = 0; li < n_links; li++) {
    guint32 c = comp_links[li];
    Link *k = &self->links[c];
    guint n = k->n_flows;
    if (n >= 2) {
      k->unfixed = n;
      k->left = k->capacity;
      double s = k->left / n;
      if (CANDIDATE_BEFORE (s, c, key, l)) {
        key = s;
        l = c;
        own = NO_POS;
      }
    } else {
      k->unfixed = 0;
    }
    for (guint j = 0; j < n; j++) {
      guint32 f = k->flows[j];
      Flow *fl = &self->flows[f];
      if (fl->mark == epoch)
        continue;
      fl->mark = epoch;
      fl->fixed = FALSE;
      comp_flows[n_flows++] = f;
      const guint32 *r = &self->routes[(gsize) f * self->max_hops];
      /* Its shared links join the component, unless the one it was
       * reached through is its only one. */
      if (fl->n_shared > (n >= 2)) {
        for (guint h = 0; h < fl->n_hops; h++) {
          Link *o = &self->links[r[h]];
          if (o->n_flows >= 2 && o->mark != epoch) {
            o->mark = epoch;
            comp_links[n_links++] = r[h];
          }
        }
      }
      own_update (self, fl, r);
      if (fl->own_share != INFINITY && CANDIDATE_BEFORE (fl->own_share, fl->own_link, key, l)) {
        key = fl->own_share;
        l = fl->own_link;
        own = f;
      }
    }
  }
  self->n_comp_links = n_links;
  self->n_comp_flows = n_flows;

  /* Every step fixes at least one flow; once all are, the links are full. */
  guint unfixed = n_flows;
  if (n_links <= SMALL_COMPONENT) {
    /* A small component (the usual case) finds the next smallest share by
     * a scan over the shared links that still have unfixed flows and the
     * unfixed flows with own links, dropping the others as they fill. */
    guint n_active = n_links, n_active_flows = n_flows;
    for (;;) {
      if (own != NO_POS) {
        fix_flow (self, own, l, MAX (key, 0.0), TRUE, unfixed == 1, records);
        unfixed--;
      } else {
        unfixed -= fix_link_flows (self, l, MAX (key, 0.0), TRUE,
                                   self->links[l].unfixed == unfixed, records);
      }
      if (unfixed == 0)
        break;
      key = INFINITY;
      own = NO_POS;
      for (guint li = 0; li < n_active;) {
        guint32 c = comp_links[li];
        const Link *k = &self->links[c];
        if (k->unfixed == 0) {
          comp_links[li] = comp_links[--n_active];
          comp_links[n_active] = c;
          continue;
        }
        double s = k->left / k->unfixed;
        if (CANDIDATE_BEFORE (s, c, key, l)) {
          key = s;
          l = c;
        }
        li++;
      }
      for (guint fi = 0; fi < n_active_flows;) {
        guint32 f = comp_flows[fi];
        const Flow *fl = &self->flows[f];
        if (fl->fixed || fl->own_share == INFINITY) {
          comp_flows[fi] = comp_flows[--n_active_flows];
          comp_flows[n_active_flows] = f;
          continue;
        }
        if (CANDIDATE_BEFORE (fl->own_share, fl->own_link, key, l)) {
          key = fl->own_share;
          l = fl->own_link;
          own = f;
        }
        fi++;
      }
    }
  } else {
    /* A large one through a heap of shares, stale entries skipped. */
    self->share_n = 0;
    for (guint li = 0; li < n_links; li++) {
      const Link *k = &self->links[comp_links[li]];
      if (k->unfixed > 0)
        share_push (self, comp_links[li], k->left / k->unfixed);
    }
    for (guint fi = 0; fi < n_flows; fi++) {
      const Flow *fl = &self->flows[comp_flows[fi]];
      if (fl->own_share != INFINITY)
        share_push (self, fl->own_link, fl->own_share);
    }
    while (unfixed > 0) {
      share_pop (self, &l, &key);
      const Link *k = &self->links[l];
      if (k->n_flows == 1) {
        guint32 f = k->flows[0];
        if (self->flows[f].fixed)
          continue;   /* stale entry */
        fix_flow (self, f, l, MAX (key, 0.0), FALSE, unfixed == 1, records);
        unfixed--;
        continue;
      }
      if (k->unfixed == 0 || key != k->left / k->unfixed)
        continue;   /* stale entry */
      unfixed -= fix_link_flows (self, l, MAX (key, 0.0), FALSE, k->unfixed == unfixed,
                                 records);
    }
  }
  epoch_close (self);
  if (records != NULL)
    note_knee (self);
}

/* Link @l carries flows whose rates may change: it seeds the next
 * component (once). */
static inline void
mark_dirty (NetContention *self, guint32 l)
{
  Link *k = &self->links[l];
  if (k->mark == self->epoch)
    return;
  k->mark = self->epoch;
  self->comp_links[self->n_comp_links++] = l;
}

/* ---- flows -------------------------------------------------------------- */

/* The route from port @src to port @dst (0-based), from the cache or
 * computed into it. */
static const RouteSlot *
route_lookup (NetContention *self, guint src, guint dst)
{
  guint64 pair = (guint64) src * self->n_ports + dst;
  guint slot = self->route_cache_direct
                 ? (guint) pair
                 : (guint) ((pair * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15))
                            >> (64 - self->route_cache_bits));
  RouteSlot *rs = &self->route_cache[slot];
  if (G_UNLIKELY (rs->pair != pair + 1)) {
    guint switches;
    rs->hops = route (self, src, dst, &self->route_cache_links[(gsize) slot * self->max_hops],
                      &switches);
    rs->latency = rs->hops * self->link_latency + switches * self->switch_latency;
    rs->pair = pair + 1;
  }
  return rs;
}

static guint32
flow_alloc (NetContention *self)
{
  guint32 f = self->free_flow;
  if (f != NO_POS) {
    self->free_flow = self->routes[(gsize) f * self->max_hops];
    return f;
  }
  if (self->n_flows == self->cap_flows) {
    guint cap = MAX (64u, self->cap_flows * 2);
    self->flows = g_renew (Flow, self->flows, cap);
    self->routes = g_renew (guint32, self->routes, (gsize) cap * self->max_hops);
    self->route_pos = g_renew (guint32, self->route_pos, (gsize) cap * self->max_hops);
    self->heap = g_renew (HeapEntry, self->heap, cap);
    self->comp_flows = g_renew (guint32, self->comp_flows, cap);
    self->cap_flows = cap;
  }
  return self->n_flows++;
}

static void
flow_release (NetContention *self, guint32 f)
{
  self->flows[f].live = FALSE;
  self->routes[(gsize) f * self->max_hops] = self->free_flow;
  self->free_flow = f;
}

static void
net_contention_flow_start (gpointer instance, const PtiFlow *flow, double now,
                           const PtiNetSink *sink)
{
  NetContention *self = instance;
  advance_clock (self, now, sink);
  const RouteSlot *rs = route_lookup (self, flow->src_port - 1, flow->dst_port - 1);
  guint hops = rs->hops;
  double latency = rs->latency;
  if (flow->bytes == 0 || hops == 0) {
    /* Nothing to share: it has left at once. */
    sink->flow_done (sink->host, flow->cookie, self->now, self->now + latency);
    return;
  }
  guint32 f = flow_alloc (self);
  Flow *fl = &self->flows[f];
  /* Water-filling readies the rest when it reaches the flow. */
  fl->mark = 0;   /* no epoch: 0 is never open */
  fl->cookie = flow->cookie;
  fl->msg = flow->msg;
  fl->seq = self->next_seq++;
  fl->remaining = (double) flow->bytes;
  fl->last = self->now;
  fl->rate = 0;
  fl->finish = INFINITY;
  fl->latency = latency;
  fl->reported = -1;
  fl->pending = FALSE;
  fl->n_hops = (guint8) hops;
  fl->n_shared = 0;
  fl->own_ok = FALSE;
  fl->live = TRUE;
  guint32 *r = &self->routes[(gsize) f * self->max_hops];
  const guint32 *cached = &self->route_cache_links[(gsize) (rs - self->route_cache)
                                                   * self->max_hops];
  double rate = INFINITY;
  for (guint h = 0; h < hops; h++) {
    r[h] = cached[h];
    const Link *k = link_add_flow (self, f, h, r[h]);
    rate = MIN (rate, k->capacity);
  }
  if (fl->n_shared == 0) {
    /* Its links carry nothing else: no other rate changes, and its own is
     * the smallest capacity on the way (what water-filling would find). */
    fl->rate = rate;
    fl->finish = self->now + fl->remaining / rate;
    heap_push (self, f);
    if (sink->record != NULL) {
      note_rate (self, f);
      note_knee (self);
    }
    return;
  }
  heap_push (self, f);   /* at INFINITY, after every other end */
  /* Its own links reach no other flow: the shared ones reach it. */
  for (guint h = 0; h < hops; h++)
    if (self->links[r[h]].n_flows > 1)
      mark_dirty (self, r[h]);
  recompute (self, sink);
}

static double
net_contention_flow_next (gconstpointer instance)
{
  const NetContention *self = instance;
  return self->heap_n > 0 ? self->heap[0].finish : INFINITY;
}

/* End the flows whose last byte has left by @now. */
static void
finish_flows (NetContention *self, const PtiNetSink *sink)
{
  while (self->heap_n > 0 && self->heap[0].finish <= self->now) {
    guint32 f = self->heap[0].flow;
    Flow *fl = &self->flows[f];
    heap_pop (self);
    const guint32 *r = &self->routes[(gsize) f * self->max_hops];
    for (guint h = 0; h < fl->n_hops; h++)
      if (link_remove_flow (self, f, h, r[h])->n_flows > 0)
        mark_dirty (self, r[h]);   /* the flows left on it may speed up */
    gpointer cookie = fl->cookie;
    double latency = fl->latency;
    if (fl->pending)
      report_flow (self, fl, sink);   /* its rate held from its instant until now */
    flow_release (self, f);
    sink->flow_done (sink->host, cookie, self->now, self->now + latency);
  }
}

static void
net_contention_flow_advance (gpointer instance, double now, const PtiNetSink *sink)
{
  NetContention *self = instance;
  advance_clock (self, now, sink);
  finish_flows (self, sink);
  recompute (self, sink);
  settle_if_idle (self, sink);
}

/* ---- live changes ------------------------------------------------------- */

static gboolean
net_contention_reconfigure (gpointer instance, const char *element, const char *selector,
                            const char *value, gboolean apply, double now,
                            const PtiNetSink *sink, GError **error)
{
  NetContention *self = instance;
  gboolean is_load = strcmp (element, "background_load") == 0
                     || strcmp (element, "link_load") == 0;
  gboolean is_bw = strcmp (element, "link_bandwidth") == 0;
  if (!is_load && !is_bw) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "net-contention cannot change '%s' during an evaluation; it can change "
                 "background_load, link_load[LINKS] and link_bandwidth[LINKS]", element);
    return FALSE;
  }
  if (strcmp (element, "link_load") == 0 && selector == NULL) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "link_load needs the links it applies to: link_load[NAME], NAME a link name "
                 "or a pattern with * and ?");
    return FALSE;
  }
  if (strcmp (element, "background_load") == 0 && selector != NULL) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "background_load applies to every link: use link_load[%s] for some", selector);
    return FALSE;
  }
  double v;
  if (is_load) {
    char *end = NULL;
    v = g_ascii_strtod (value, &end);
    if (end == value || *end != '\0') {
      g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                   "%s: '%s' is not a number (a fraction of the bandwidth, e.g. 0.3)", element,
                   value);
      return FALSE;
    }
    if (!check_load (v, error))
      return FALSE;
  } else if (!pti_parse_bandwidth (value, &v, error)) {
    return FALSE;
  }
  g_autoptr (GArray) links = g_array_new (FALSE, FALSE, sizeof (guint));
  if (selector != NULL) {
    if (!match_links (self, selector, links, error))
      return FALSE;
  } else {
    for (guint l = 0; l < self->n_links; l++)
      g_array_append_val (links, l);
  }
  if (!apply)
    return TRUE;

  advance_clock (self, now, sink);
  if (sink != NULL)
    finish_flows (self, sink);
  for (guint i = 0; i < links->len; i++) {
    guint l = g_array_index (links, guint, i);
    Link *k = &self->links[l];
    if (is_load)
      link_set (k, k->bandwidth, v);
    else
      link_set (k, v, k->load);
    for (guint j = 0; j < k->n_flows; j++)
      self->flows[k->flows[j]].own_ok = FALSE;   /* its capacity may be theirs */
    if (self->links[l].n_flows > 0)
      mark_dirty (self, l);
  }
  self->changes++;
  recompute (self, sink);
  settle_if_idle (self, sink);
  return TRUE;
}

/* ---- analytical repetition ------------------------------------------------ */

static int
compare_flow_seq (const void *a, const void *b, void *data)
{
  const NetContention *self = data;
  guint64 x = self->flows[*(const guint32 *) a].seq, y = self->flows[*(const guint32 *) b].seq;
  return x < y ? -1 : x > y;
}

/* The flows in flight, in start order (what breaks ties between equal end
 * times), each with its route and progress; the clock; and a count of the
 * parameter changes, which stand for the links' loads and bandwidths. */
static void
net_contention_digest (gconstpointer instance, PtiDigest *d)
{
  const NetContention *self = instance;
  pti_digest_add_time (d, self->now);
  pti_digest_add_int (d, self->changes);
  g_autoptr (GArray) live = g_array_new (FALSE, FALSE, sizeof (guint32));
  for (guint32 f = 0; f < self->n_flows; f++)
    if (self->flows[f].live)
      g_array_append_val (live, f);
  g_array_sort_with_data (live, compare_flow_seq, (gpointer) self);
  pti_digest_add_int (d, live->len);
  for (guint i = 0; i < live->len; i++) {
    guint32 f = g_array_index (live, guint32, i);
    const Flow *fl = &self->flows[f];
    pti_digest_add_int (d, pti_digest_cookie (d, fl->cookie));
    pti_digest_add_int (d, fl->n_hops);
    for (guint h = 0; h < fl->n_hops; h++)
      pti_digest_add_int (d, self->routes[(gsize) f * self->max_hops + h]);
    pti_digest_add_quantity (d, fl->remaining);
    pti_digest_add_quantity (d, fl->rate);
    pti_digest_add_quantity (d, fl->latency);
    pti_digest_add_time (d, fl->last);
    pti_digest_add_time (d, fl->finish);
  }
}

static void
net_contention_shift (gpointer instance, double dt)
{
  NetContention *self = instance;
  self->now += dt;
  for (guint32 f = 0; f < self->n_flows; f++)
    if (self->flows[f].live) {
      self->flows[f].last += dt;
      self->flows[f].finish += dt;
    }
  for (guint i = 0; i < self->heap_n; i++)
    self->heap[i].finish = self->flows[self->heap[i].flow].finish;
}

/* ---- descriptor --------------------------------------------------------- */

static const PtiNetOps net_contention_ops = {
  .version = PTI_NET_OPS_VERSION,
  .send_overhead = net_contention_send_overhead,
  .recv_overhead = net_contention_recv_overhead,
  .eager_limit = net_contention_eager_limit,
  .transfer = NULL,
  .reset = net_contention_reset,
  .port_count = net_contention_port_count,
  .flow_start = net_contention_flow_start,
  .flow_next = net_contention_flow_next,
  .flow_advance = net_contention_flow_advance,
  .digest = net_contention_digest,
  .shift = net_contention_shift,
};

static const PtiModelParam net_contention_params[] = {
  { "topology/crossbar@ports", "count", "none: exactly one topology",
    "one switch joining every port: a route is the source's up link and the "
    "destination's down link" },
  { "topology/fat_tree@levels,down,up,parallel", "counts per level", "none: exactly one topology",
    "generalised fat tree (PGFT): switches of level i have `down` children and "
    "nodes of level i-1 have `up` parents, joined by `parallel` cables; up/down routing" },
  { "topology/torus@dims", "counts, e.g. 4,4,4", "none: exactly one topology",
    "torus of routers, one port each; dimension-order routing, the shorter way round" },
  { "link_bandwidth", "bandwidth (unit attribute)", NULL,
    "bandwidth of every link, each direction of a cable separately" },
  { "link_latency", "time", "0", "latency of every link a message crosses" },
  { "switch_latency", "time", "0", "latency of every switch (or router) a message crosses" },
  { "send_overhead", "time", "0", "CPU time the sender spends per message" },
  { "recv_overhead", "time", "0", "CPU time the receiver spends per message" },
  { "eager_limit", "bytes", "65536",
    "largest message sent eagerly; larger messages use the rendezvous protocol" },
  { "packet_size", "bytes", "4096", "packet size for the knee capacity (packets/s)" },
  { "background_load", "fraction in [0, 1)", "0",
    "share of every link's bandwidth taken by traffic outside the workload" },
  { "link_load@link", "fraction in [0, 1)", NULL,
    "background load of the links named (a glob: * and ?), after background_load" },
  { NULL },
};

static const PtiTraceRecordDesc net_contention_records[] = {
  { "ba", "time msg bytes_per_s",
    "bandwidth availability of a message: the rate (bytes/s) it gets from the bottleneck "
    "link of its route given contention and background load, from time (s) on; one record "
    "when it starts and one at every change" },
  { "knee", "time link packets_per_s",
    "knee capacity from time (s) on: packets/s a message gets through the most loaded "
    "link (the busy link with the smallest fair share), named; empty link: no traffic" },
  { NULL },
};

const PtiModelDesc pti_model_net_contention = {
  .abi_version = PTI_HMI_ABI_VERSION,
  .struct_size = sizeof (PtiModelDesc),
  .name = "net-contention",
  .kind = "network",
  .config_element = "net_contention",
  .summary = "links shared max-min fairly by concurrent messages, with background load (CCMOD-like)",
  .description =
    "Each message is a flow over the directed links of its route through the\n"
    "configured topology (crossbar, fat tree, torus).  A link l of bandwidth B_l\n"
    "with background load b_l offers C_l = B_l (1 - b_l) to the workload; flows\n"
    "in flight share it max-min fairly: every flow gets the fair share of its\n"
    "bottleneck link, computed by water-filling whenever a flow starts or ends\n"
    "or a parameter changes.  A message of n bytes leaves its source when n\n"
    "bytes have gone at the (changing) rate, and arrives after the route latency\n"
    "hops x link_latency + switches x switch_latency.  Overheads and the eager\n"
    "limit are as in net-simple.  Links are named for link_load and live\n"
    "changes: crossbar h<port>:up, h<port>:down; fat tree <child>-<parent>[#k]:up\n"
    "and :down, where hosts are h<port> and switches s<level>.<index>; torus\n"
    "h<port>-r<x.y.z>:up and :down, r<x.y.z>:+x, :-x, :+y, ...  Live changes:\n"
    "background_load, link_load[LINKS], link_bandwidth[LINKS].",
  .config_schema = pti_net_contention_xsd,
  .params = net_contention_params,
  .records = net_contention_records,
  .records_namespace = "urn:pti:model:net-contention",
  .instance_size = sizeof (NetContention),
  .configure = net_contention_configure,
  .finalize = net_contention_finalize,
  .net = &net_contention_ops,
  .reconfigure = net_contention_reconfigure,
};
