/* cpu-mem: the memory-aware CPU model (issue 13.2; seed 002, Snavely et al.).
 *
 * A computation's time is its operation counts priced as cpu-clc prices
 * them (the costs of the computer's <cpu_clc>, measured with every array
 * reference in L1), plus what its memory behaviour costs beyond L1: the
 * RUD's memory signature (bytes, working set and pattern of a loop or
 * compute, or a reuse-distance histogram) convolved with the machine
 * profile (bandwidth by working set and access pattern, per number of
 * processes sharing the node).  README.md has the equations.
 *
 * Compiling.  cpu-clc folds the operations (its own compiled form is kept
 * and priced through its ops); this model keeps one term per element with
 * a memory signature: the product of the trip counts and probabilities
 * above it (one expression), and the signature's expressions.
 *
 * Errors on the hot path: as in cpu-clc, a value out of range becomes NaN
 * and only a non-finite total walks the terms again to name the cause. */
#include <pti/hmi.h>

#include <math.h>
#include <string.h>

extern const char pti_cpu_mem_xsd[];
extern const PtiModelDesc pti_model_cpu_clc;

#define MAX_CACHES 8

/* ---- the machine profile ------------------------------------------------- */

/* PAT_WRITE is a profile's store stream only: a RUD states its writes in
 * `written`, not as a pattern. */
typedef enum { PAT_UNIT, PAT_STRIDED, PAT_RANDOM, PAT_RUNS, PAT_TRANSPOSE, PAT_WRITE,
               N_PATTERNS } PatKind;
#define N_RUD_PATTERNS PAT_WRITE
static const char *const pattern_names[] = { "unit", "strided", "random", "runs", "transpose",
                                             "write" };
/* The attribute that sizes a pattern (NULL: none). */
static const char *const pattern_size_attr[] = { NULL, "stride", NULL, "run", "run", NULL };
/* Patterns whose points have no latency: a store stream (nothing waits for
 * a store), a transpose (independent loads over two matrices, no one line
 * order for a chase). */
#define NO_LATENCY(kind) ((kind) == PAT_WRITE || (kind) == PAT_TRANSPOSE)
/* Patterns sized by a run: interpolated between measured runs, the nearest
 * outside them. */
#define BY_RUN(kind) ((kind) == PAT_RUNS || (kind) == PAT_TRANSPOSE)

typedef struct {
  double x;       /* log2 of the working set, bytes */
  double spb;     /* seconds per byte the program asks for (1 / bandwidth) */
} Point;

typedef struct {
  PatKind kind;
  double stride;  /* bytes: strided's stride, runs' run; the access size for unit */
  guint n;
  Point *pts;     /* by increasing x */
  double l1_spb;  /* what the operation costs hold: the 1-process curve's first point */
} Curve;

typedef struct {
  guint processes;
  double access;  /* bytes per access */
  guint n_curves;
  Curve *curves;
} Profile;

typedef struct {
  gpointer clc;                 /* the cpu-clc instance of the computer's <cpu_clc> */
  Profile *profiles;            /* by increasing processes; profiles[0].processes == 1 */
  guint n_profiles;
  double cache[MAX_CACHES];     /* level sizes, bytes, increasing */
  guint n_caches;
  guint cpus;                   /* of the <computer> */
  guint sharing;                /* configured processes sharing memory; 0: min(nprocs, cpus) */
} CpuMem;

static double
attr_number (const xmlNode *n, const char *name, gboolean *present)
{
  xmlChar *v = xmlGetProp (n, (const xmlChar *) name);
  *present = v != NULL;
  if (v == NULL)
    return NAN;
  g_autofree char *s = g_strstrip (g_strdup ((const char *) v));
  xmlFree (v);
  char *end = NULL;
  double d = g_ascii_strtod (s, &end);
  return s[0] != '\0' && end != NULL && *end == '\0' && isfinite (d) ? d : NAN;
}

/* A required positive number attribute. */
static gboolean
positive_attr (const xmlNode *n, const char *name, double *out, GError **error)
{
  gboolean present;
  double v = attr_number (n, name, &present);
  *out = 0;   /* set on every path: GCC cannot see that pti_node_error returns FALSE */
  if (!present)
    return pti_node_error (error, n, "missing required attribute %s", name);
  if (!(v > 0))
    return pti_node_error (error, n, "%s must be a positive number", name);
  *out = v;
  return TRUE;
}

static gboolean
unit_attr (const xmlNode *n, const char *name, const char *const *names, const double *factors,
           gsize count, double *out, GError **error)
{
  xmlChar *v = xmlGetProp (n, (const xmlChar *) name);
  for (gsize i = 0; v != NULL && i < count; i++)
    if (strcmp ((const char *) v, names[i]) == 0) {
      *out = factors[i];
      xmlFree (v);
      return TRUE;
    }
  g_autofree char *list = g_strjoinv (", ", (char **) names);
  pti_node_error (error, n, v ? "%s=\"%s\" is not a known unit (%s)"
                              : "%s%sthe attribute is required (%s): a unit is never guessed",
                  name, v ? (const char *) v : "", list);
  xmlFree (v);
  return FALSE;
}

static gboolean
parse_pattern (const xmlNode *el, double bw_unit, double access, Curve *c, GError **error)
{
  xmlChar *name = xmlGetProp (el, (const xmlChar *) "name");
  c->kind = N_PATTERNS;
  for (guint k = 0; name != NULL && k < N_PATTERNS; k++)
    if (strcmp ((const char *) name, pattern_names[k]) == 0)
      c->kind = (PatKind) k;
  if (c->kind == N_PATTERNS) {
    pti_node_error (error, el, name ? "unknown pattern '%s' (unit, strided, random, runs, "
                                      "transpose or write)"
                                    : "%smissing required attribute name (unit, strided, random, "
                                      "runs, transpose or write)",
                    name ? (const char *) name : "");
    xmlFree (name);
    return FALSE;
  }
  xmlFree (name);
  gboolean has_stride, has_run, has_streams;
  attr_number (el, "stride", &has_stride);
  attr_number (el, "run", &has_run);
  double streams = attr_number (el, "streams", &has_streams);
  if (has_stride && c->kind != PAT_STRIDED)
    return pti_node_error (error, el, "stride is only for pattern strided");
  if (has_run && !BY_RUN (c->kind))
    return pti_node_error (error, el, "run is only for patterns runs and transpose");
  if (has_streams && c->kind != PAT_RUNS)
    return pti_node_error (error, el, "streams is only for pattern runs");
  if (has_streams && !(streams >= 1 && streams == floor (streams)))
    return pti_node_error (error, el, "streams must be a whole number of at least 1");
  if (pattern_size_attr[c->kind] != NULL) {
    if (!positive_attr (el, pattern_size_attr[c->kind], &c->stride, error))
      return FALSE;
  } else {
    c->stride = c->kind == PAT_UNIT || c->kind == PAT_WRITE ? access : INFINITY;
  }
  guint n = 0;
  for (const xmlNode *p = el->children; p != NULL; p = p->next)
    n += p->type == XML_ELEMENT_NODE;
  if (n == 0)
    return pti_node_error (error, el, "a pattern needs at least one <point>");
  c->pts = g_new0 (Point, n);
  for (const xmlNode *p = el->children; p != NULL; p = p->next) {
    if (p->type != XML_ELEMENT_NODE)
      continue;
    if (strcmp ((const char *) p->name, "point") != 0)
      return pti_node_error (error, p, "unknown element in <pattern> (expected <point>)");
    /* a store stream has no latency (nothing waits for a store) */
    double bytes, bw, lat;
    if (!positive_attr (p, "bytes", &bytes, error) || !positive_attr (p, "bandwidth", &bw, error)
        || (!NO_LATENCY (c->kind) && !positive_attr (p, "latency", &lat, error)))
      return FALSE;
    if (NO_LATENCY (c->kind) && xmlHasProp (p, (const xmlChar *) "latency"))
      return pti_node_error (error, p, c->kind == PAT_WRITE
                             ? "a write pattern's points have no latency (nothing waits for a "
                               "store)"
                             : "a transpose pattern's points have no latency (its loads are "
                               "independent)");
    double x = log2 (bytes);
    if (c->n > 0 && !(x > c->pts[c->n - 1].x))
      return pti_node_error (error, p, "bytes=\"%g\" does not follow the previous point's: points "
                             "go by increasing working set", bytes);
    c->pts[c->n++] = (Point) { x, 1.0 / (bw * bw_unit) };
  }
  return TRUE;
}

static gboolean
parse_profile (const xmlNode *el, Profile *prof, GError **error)
{
  static const char *const bw_names[] = { "B/s", "KB/s", "MB/s", "GB/s", NULL };
  static const double bw_factors[] = { 1, 1e3, 1e6, 1e9 };
  static const char *const lat_names[] = { "s", "ms", "us", "ns", "ps", NULL };
  static const double lat_factors[] = { 1, 1e-3, 1e-6, 1e-9, 1e-12 };
  double processes, bw_unit, lat_unit;
  if (!positive_attr (el, "processes", &processes, error)
      || !positive_attr (el, "access", &prof->access, error)
      || !unit_attr (el, "bandwidth_unit", bw_names, bw_factors, 4, &bw_unit, error)
      || !unit_attr (el, "latency_unit", lat_names, lat_factors, 5, &lat_unit, error))
    return FALSE;
  if (processes != floor (processes) || processes > 65536)
    return pti_node_error (error, el, "processes must be a whole number from 1 to 65536");
  prof->processes = (guint) processes;
  guint n = 0;
  for (const xmlNode *p = el->children; p != NULL; p = p->next)
    n += p->type == XML_ELEMENT_NODE;
  prof->curves = g_new0 (Curve, MAX (n, 1));
  for (const xmlNode *p = el->children; p != NULL; p = p->next) {
    if (p->type != XML_ELEMENT_NODE)
      continue;
    if (strcmp ((const char *) p->name, "pattern") != 0)
      return pti_node_error (error, p, "unknown element in <profile> (expected <pattern>)");
    Curve *c = &prof->curves[prof->n_curves++];
    if (!parse_pattern (p, bw_unit, prof->access, c, error))
      return FALSE;
    for (guint i = 0; i + 1 < prof->n_curves; i++)
      if (prof->curves[i].kind == c->kind && prof->curves[i].stride == c->stride)
        return pti_node_error (error, p, "pattern %s%s is given twice in this profile",
                               pattern_names[c->kind], c->kind == PAT_STRIDED ? " (this stride)"
                                                       : BY_RUN (c->kind) ? " (this run)" : "");
  }
  return TRUE;
}

/* The <profile> children of @el into @self (appended). */
static gboolean
parse_profiles (CpuMem *self, const xmlNode *el, GError **error)
{
  for (const xmlNode *p = el->children; p != NULL; p = p->next) {
    if (p->type != XML_ELEMENT_NODE || strcmp ((const char *) p->name, "profile") != 0)
      continue;
    self->profiles = g_renew (Profile, self->profiles, self->n_profiles + 1);
    Profile *prof = &self->profiles[self->n_profiles++];
    memset (prof, 0, sizeof *prof);
    if (!parse_profile (p, prof, error))
      return FALSE;
    for (guint i = 0; i + 1 < self->n_profiles; i++)
      if (self->profiles[i].processes == prof->processes)
        return pti_node_error (error, p, "a profile for %u processes is given twice",
                               prof->processes);
  }
  return TRUE;
}

static int
profile_cmp (gconstpointer a, gconstpointer b)
{
  const Profile *x = a, *y = b;
  return (x->processes > y->processes) - (x->processes < y->processes);
}

/* The L1 time the operation costs already hold, per curve.  pticalibrate
 * measured every cpu-clc cost in one process alone, its data in L1, so a
 * curve of p processes starts its excess from the 1-process curve of the
 * same pattern (stride, run): the L1 is each core's own, and a p-process
 * curve's L1 point is the same rate measured with more to disturb it
 * (README, "Processes").  A pattern the 1-process profile lacks keeps its
 * own first point. */
static void
set_l1_references (CpuMem *self)
{
  const Profile *one = &self->profiles[0];
  for (guint i = 0; i < self->n_profiles; i++)
    for (guint j = 0; j < self->profiles[i].n_curves; j++) {
      Curve *c = &self->profiles[i].curves[j];
      c->l1_spb = c->pts[0].spb;
      for (guint k = 0; k < one->n_curves; k++)
        if (one->curves[k].kind == c->kind && one->curves[k].stride == c->stride)
          c->l1_spb = one->curves[k].pts[0].spb;
    }
}

static gboolean
impl_configure (gpointer instance, const xmlNode *config, GError **error)
{
  CpuMem *self = instance;
  /* The operation costs: the computer's <cpu_clc>, configured again here
   * (one definition of the costs in the system file). */
  const xmlNode *computer = config->parent;
  const xmlNode *clc = computer && computer->type == XML_ELEMENT_NODE
                         ? pti_config_child (computer, "cpu_clc") : NULL;
  if (clc == NULL)
    return pti_node_error (error, config, "cpu-mem prices operations at the costs of the "
                           "computer's <cpu_clc>: add one beside this <cpu_mem>");
  self->clc = g_malloc0 (pti_model_cpu_clc.instance_size);
  if (!pti_model_cpu_clc.configure (self->clc, clc, error))
    return FALSE;

  self->cpus = 1;
  if (computer->type == XML_ELEMENT_NODE) {
    gboolean present;
    double cpus = attr_number (computer, "cpus", &present);
    if (present && cpus >= 1 && cpus == floor (cpus) && cpus <= 65536)
      self->cpus = (guint) cpus;
  }
  gboolean has_sharing;
  double sharing = attr_number (config, "sharing", &has_sharing);
  if (has_sharing) {
    if (!(sharing >= 1 && sharing == floor (sharing) && sharing <= 65536))
      return pti_node_error (error, config, "sharing must be a whole number from 1 to 65536");
    self->sharing = (guint) sharing;
  }

  for (const xmlNode *n = config->children; n != NULL; n = n->next) {
    if (n->type != XML_ELEMENT_NODE)
      continue;
    const char *name = (const char *) n->name;
    if (strcmp (name, "cache") == 0) {
      double bytes;
      if (!positive_attr (n, "bytes", &bytes, error))
        return FALSE;
      if (self->n_caches == MAX_CACHES)
        return pti_node_error (error, n, "at most %d cache levels", MAX_CACHES);
      if (self->n_caches > 0 && !(bytes > self->cache[self->n_caches - 1]))
        return pti_node_error (error, n, "bytes=\"%g\" is not larger than the level before: "
                               "levels go from the first (smallest) out", bytes);
      self->cache[self->n_caches++] = bytes;
    } else if (strcmp (name, "profile") != 0) {
      return pti_node_error (error, n, "unknown element (expected <cache> or <profile>)");
    }
  }

  xmlChar *href = xmlGetProp (config, (const xmlChar *) "profile");
  gboolean ok;
  if (href != NULL) {
    if (pti_config_child (config, "profile") != NULL) {
      xmlFree (href);
      return pti_node_error (error, config, "the profile is either inline (<profile>) or in the "
                             "file its profile attribute names, not both");
    }
    xmlDoc *doc = pti_config_read_xml (config, (const char *) href, error);
    xmlFree (href);
    if (doc == NULL)
      return FALSE;
    xmlNode *root = xmlDocGetRootElement (doc);
    if (strcmp ((const char *) root->name, "cpu_mem") != 0)
      ok = pti_node_error (error, root, "the root of a memory profile file must be <cpu_mem> "
                           "(models/cpu-mem/cpu-mem.xsd)");
    else
      ok = parse_profiles (self, root, error);
    if (ok && self->n_profiles == 0)
      ok = pti_node_error (error, root, "no <profile> in this file");
    xmlFreeDoc (doc);
  } else {
    ok = parse_profiles (self, config, error);
    if (ok && self->n_profiles == 0)
      ok = pti_node_error (error, config, "no profile: give <profile> elements, or a file "
                           "written by pticalibrate in the profile attribute");
  }
  if (!ok)
    return FALSE;
  qsort (self->profiles, self->n_profiles, sizeof (Profile), profile_cmp);
  if (self->profiles[0].processes != 1)
    return pti_node_error (error, config, "the profile for 1 process (processes=\"1\") is missing: "
                           "it is the one every other count falls back on");
  set_l1_references (self);
  return TRUE;
}

static void
impl_finalize (gpointer instance)
{
  CpuMem *self = instance;
  if (self->clc != NULL) {
    pti_model_cpu_clc.finalize (self->clc);
    g_free (self->clc);
  }
  for (guint i = 0; i < self->n_profiles; i++) {
    for (guint j = 0; j < self->profiles[i].n_curves; j++)
      g_free (self->profiles[i].curves[j].pts);
    g_free (self->profiles[i].curves);
  }
  g_free (self->profiles);
}

/* ---- reading the profile (hot path) --------------------------------------- */

/* Seconds per byte at working set @ws: linear in log2(ws) between measured
 * points, the end points' values outside them. */
static double
curve_spb (const Curve *c, double ws)
{
  double x = log2 (MAX (ws, 1.0));
  if (x <= c->pts[0].x)
    return c->pts[0].spb;
  if (x >= c->pts[c->n - 1].x)
    return c->pts[c->n - 1].spb;
  guint lo = 0, hi = c->n - 1;
  while (hi - lo > 1) {
    guint mid = (lo + hi) / 2;
    if (c->pts[mid].x <= x)
      lo = mid;
    else
      hi = mid;
  }
  double f = (x - c->pts[lo].x) / (c->pts[hi].x - c->pts[lo].x);
  return c->pts[lo].spb + f * (c->pts[hi].spb - c->pts[lo].spb);
}

/* What a byte costs beyond L1, spb(ws) - spb(smallest working set), on one
 * curve (never below 0: a measured curve's noise does not make memory
 * faster than L1). */
static double
curve_excess (const Curve *c, double ws)
{
  return MAX (0.0, curve_spb (c, ws) - c->l1_spb);
}

/* The profile for @p processes sharing the node's memory: the one for the
 * largest count <= p. */
static guint
profile_index (const CpuMem *self, double p)
{
  guint i = 0;
  while (i + 1 < self->n_profiles && self->profiles[i + 1].processes <= p)
    i++;
  return i;
}

/* Excess seconds per byte of @kind (stride or run @stride) at @ws, in
 * profile @pi or, if it lacks the pattern, the next profile of fewer
 * processes.  A stride between measured ones is interpolated in
 * log2(stride), unit counting as stride = access; past the largest, the
 * largest.  A run likewise between measured runs; outside them, the
 * nearest.  NaN if no profile has the pattern. */
static double
pattern_excess (const CpuMem *self, guint pi, PatKind kind, double stride, double ws)
{
  for (int p = (int) pi; p >= 0; p--) {
    const Profile *prof = &self->profiles[p];
    if (kind == PAT_STRIDED && stride <= prof->access)
      kind = PAT_UNIT;
    gboolean sized = kind == PAT_STRIDED || BY_RUN (kind);
    const Curve *below = NULL, *above = NULL;
    for (guint i = 0; i < prof->n_curves; i++) {
      const Curve *c = &prof->curves[i];
      if (!sized) {
        if (c->kind == kind)
          return curve_excess (c, ws);
        continue;
      }
      /* strided interpolates down to unit; runs between runs only */
      if (kind == PAT_STRIDED ? c->kind != PAT_STRIDED && c->kind != PAT_UNIT : c->kind != kind)
        continue;
      if (c->stride <= stride && (below == NULL || c->stride > below->stride))
        below = c;
      if (c->stride > stride && (above == NULL || c->stride < above->stride))
        above = c;
    }
    if (!sized)
      continue;
    if (below != NULL && above != NULL) {
      double f = (log2 (stride) - log2 (below->stride)) / (log2 (above->stride) - log2 (below->stride));
      return (1 - f) * curve_excess (below, ws) + f * curve_excess (above, ws);
    }
    if (below != NULL && below->kind == kind)
      return curve_excess (below, ws);
    if (BY_RUN (kind) && above != NULL)
      return curve_excess (above, ws);
    /* only unit (or nothing) measured here: look at fewer processes */
  }
  return NAN;
}

/* ---- compiled RUD -------------------------------------------------------- */

typedef struct {
  PtiExpr *mult;        /* product of the trip counts and probabilities above, or NULL (1) */
  PtiExpr *bytes;       /* bytes form: bytes per execution, or NULL for a histogram */
  PtiExpr *written;     /* bytes form: bytes written to lines not read, or NULL (0) */
  PtiExpr *ws;
  PtiExpr *stride;      /* strided's stride or runs' run; NULL for the others */
  PatKind pattern;
  /* histogram form */
  PtiExpr *scale;       /* or NULL (1) */
  double *dist, *count; /* bins */
  guint n_bins;
  double cold, line;
  int line_no;          /* of the element, for errors */
  const char *element;  /* "loop" or "compute" (static) */
} MemTerm;

typedef struct {
  gpointer clc;         /* cpu-clc's compiled RUD */
  MemTerm *terms;
  guint n_terms;
  guint nprocs;         /* slot of nprocs */
  char *url;
  guint *slots;
  guint n_slots;
} Compiled;

static void
mem_term_clear (MemTerm *t)
{
  pti_expr_free (t->mult);
  pti_expr_free (t->bytes);
  pti_expr_free (t->written);
  pti_expr_free (t->ws);
  pti_expr_free (t->stride);
  pti_expr_free (t->scale);
  g_free (t->dist);
  g_free (t->count);
}

static void
impl_rud_free (gpointer compiled)
{
  Compiled *c = compiled;
  if (c == NULL)
    return;
  pti_model_cpu_clc.cpu->rud_free (c->clc);
  for (guint i = 0; i < c->n_terms; i++)
    mem_term_clear (&c->terms[i]);
  g_free (c->terms);
  g_free (c->url);
  g_free (c->slots);
  g_free (c);
}

static const guint *
impl_rud_slots (gconstpointer compiled, guint *n_slots)
{
  const Compiled *c = compiled;
  *n_slots = c->n_slots;
  return c->slots;
}

typedef struct {
  const PtiRudNode *root;
  PtiSymbols *symbols;
  GPtrArray *mult;      /* texts of the multipliers above, outermost first */
  GArray *terms;        /* MemTerm */
} FoldCtx;

static gboolean
compile_attr (FoldCtx *cx, const PtiRudNode *node, const char *attr, const char *text,
              PtiExpr **out, GError **error)
{
  g_autoptr (GError) local = NULL;
  *out = pti_expr_compile (text, cx->symbols, &local);
  if (*out == NULL)
    return pti_rud_error (error, node, "%s: %s", attr, local ? local->message : "invalid expression");
  return TRUE;
}


/* The memory signature of a <loop> or <compute>, if it has one. */
static gboolean
fold_signature (FoldCtx *cx, const PtiRudNode *node, GError **error)
{
  const char *bytes = pti_rud_attr (node, "bytes");
  const char *written = pti_rud_attr (node, "written");
  const char *ws = pti_rud_attr (node, "working_set");
  const char *pattern = pti_rud_attr (node, "pattern");
  const char *stride_attr = pti_rud_attr (node, "stride"), *run_attr = pti_rud_attr (node, "run");
  const char *stride = stride_attr ? stride_attr : run_attr;
  const PtiRudReuse *reuse = pti_rud_reuse (cx->root, node);
  if (bytes == NULL && reuse == NULL) {
    const char *stray = ws ? "working_set" : written ? "written" : pattern ? "pattern"
                        : stride_attr ? "stride" : run_attr ? "run" : NULL;
    if (stray != NULL)
      return pti_rud_error (error, node, "%s without bytes or <reuse>: a memory signature states "
                            "the bytes touched (bytes, written, working_set, pattern) or a "
                            "reuse-distance histogram", stray);
    return TRUE;
  }
  if (bytes != NULL && reuse != NULL)
    return pti_rud_error (error, node, "bytes and a <reuse> histogram both describe the memory "
                          "references: give one");
  MemTerm t = { .pattern = PAT_UNIT, .line_no = node->line,
                .element = node->kind == PTI_RUD_LOOP ? "loop" : "compute" };
  if (pattern != NULL) {
    guint k = 0;
    while (k < N_RUD_PATTERNS && strcmp (pattern, pattern_names[k]) != 0)
      k++;
    if (k == N_RUD_PATTERNS)
      return pti_rud_error (error, node, "pattern '%s' is not unit, strided, random, runs or "
                            "transpose", pattern);
    t.pattern = (PatKind) k;
  }
  if (stride_attr != NULL && run_attr != NULL)
    return pti_rud_error (error, node, "stride and run both given: stride is for "
                          "pattern=\"strided\", run for pattern=\"runs\" or \"transpose\"");
  if (t.pattern == PAT_STRIDED && stride_attr == NULL)
    return pti_rud_error (error, node, "pattern strided needs stride (bytes between accesses)");
  if (t.pattern == PAT_RUNS && run_attr == NULL)
    return pti_rud_error (error, node, "pattern runs needs run (the bytes read consecutively "
                          "before the loop moves elsewhere)");
  if (t.pattern == PAT_TRANSPOSE && run_attr == NULL)
    return pti_rud_error (error, node, "pattern transpose needs run (the bytes of a block's "
                          "column read down before the next column)");
  if (stride_attr != NULL && t.pattern != PAT_STRIDED)
    return pti_rud_error (error, node, "stride is only for pattern=\"strided\"");
  if (run_attr != NULL && !BY_RUN (t.pattern))
    return pti_rud_error (error, node, "run is only for pattern=\"runs\" or \"transpose\"");
  if (bytes != NULL && ws == NULL)
    return pti_rud_error (error, node, "bytes needs working_set (the bytes of data the accesses "
                          "range over)");
  if (reuse != NULL && ws != NULL)
    return pti_rud_error (error, node, "working_set is for bytes; a <reuse> histogram gives the "
                          "reuse itself");
  if (reuse != NULL && written != NULL)
    return pti_rud_error (error, node, "written is for bytes; a <reuse> histogram counts the "
                          "references, reads and writes alike");
  if (written != NULL && t.pattern != PAT_UNIT)
    return pti_rud_error (error, node, "written is priced as a unit-stride store stream (the "
                          "profile's write pattern): with pattern=\"%s\" count the written "
                          "doubles in bytes (models/cpu-mem/README.md)", pattern_names[t.pattern]);
  if (cx->mult->len > 0) {
    g_autoptr (GString) text = g_string_new (NULL);
    for (guint i = 0; i < cx->mult->len; i++)
      g_string_append_printf (text, "%s(%s)", i ? " * " : "",
                              (const char *) g_ptr_array_index (cx->mult, i));
    if (!compile_attr (cx, node, "iter/exprob", text->str, &t.mult, error))
      goto fail;
  }
  if ((stride && !compile_attr (cx, node, stride_attr ? "stride" : "run", stride, &t.stride, error))
      || (bytes && !compile_attr (cx, node, "bytes", bytes, &t.bytes, error))
      || (written && !compile_attr (cx, node, "written", written, &t.written, error))
      || (ws && !compile_attr (cx, node, "working_set", ws, &t.ws, error)))
    goto fail;
  if (reuse != NULL) {
    if (reuse->scale && !compile_attr (cx, node, "reuse scale", reuse->scale, &t.scale, error))
      goto fail;
    t.n_bins = reuse->n_bins;
    t.dist = g_new (double, MAX (reuse->n_bins, 1));
    t.count = g_new (double, MAX (reuse->n_bins, 1));
    for (guint i = 0; i < reuse->n_bins; i++) {
      t.dist[i] = reuse->bins[i].distance;
      t.count[i] = reuse->bins[i].count;
    }
    t.cold = reuse->cold;
    t.line = reuse->line_bytes;
  }
  g_array_append_val (cx->terms, t);
  return TRUE;
fail:
  mem_term_clear (&t);
  return FALSE;
}

static gboolean
fold_nodes (FoldCtx *cx, const PtiRudNode *parent, GError **error)
{
  for (guint i = 0; i < parent->n_children; i++) {
    const PtiRudNode *n = &parent->children[i];
    const char *factor = n->kind == PTI_RUD_LOOP ? pti_rud_attr (n, "iter")
                         : n->kind == PTI_RUD_BRANCH ? pti_rud_attr (n, "exprob") : NULL;
    if (factor != NULL)
      g_ptr_array_add (cx->mult, (gpointer) factor);
    gboolean ok = TRUE;
    if (n->kind == PTI_RUD_LOOP || n->kind == PTI_RUD_COMPUTE)
      ok = fold_signature (cx, n, error);
    ok = ok && fold_nodes (cx, n, error);
    if (factor != NULL)
      g_ptr_array_set_size (cx->mult, cx->mult->len - 1);
    if (!ok)
      return FALSE;
  }
  return TRUE;
}

static void
add_slots (GArray *all, const guint *slots, guint n)
{
  for (guint i = 0; i < n; i++) {
    gboolean seen = FALSE;
    for (guint j = 0; j < all->len && !seen; j++)
      seen = g_array_index (all, guint, j) == slots[i];
    if (!seen)
      g_array_append_val (all, slots[i]);
  }
}

static void
add_expr_slots (GArray *all, const PtiExpr *e)
{
  guint n;
  const guint *slots = e ? pti_expr_slots (e, &n) : NULL;
  if (slots != NULL)
    add_slots (all, slots, n);
}

static gpointer
impl_rud_fold (const PtiRudNode *rud, PtiSymbols *symbols, GError **error)
{
  /* cpu-clc checks the operations and the structure first. */
  gpointer clc = pti_model_cpu_clc.cpu->rud_fold (rud, symbols, error);
  if (clc == NULL)
    return NULL;
  FoldCtx cx = { rud, symbols, g_ptr_array_new (), g_array_new (FALSE, TRUE, sizeof (MemTerm)) };
  gboolean ok = fold_nodes (&cx, rud, error);
  g_ptr_array_unref (cx.mult);
  Compiled *c = g_new0 (Compiled, 1);
  c->clc = clc;
  c->n_terms = cx.terms->len;
  c->terms = (MemTerm *) g_array_free (cx.terms, FALSE);
  c->url = g_strdup (rud->file);
  if (!ok) {
    impl_rud_free (c);
    return NULL;
  }
  GArray *all = g_array_new (FALSE, FALSE, sizeof (guint));
  guint n;
  const guint *clc_slots = pti_model_cpu_clc.cpu->rud_slots (clc, &n);
  add_slots (all, clc_slots, n);
  if (c->n_terms > 0) {
    c->nprocs = pti_symbols_intern (symbols, "nprocs");
    add_slots (all, &c->nprocs, 1);
  }
  for (guint i = 0; i < c->n_terms; i++) {
    const MemTerm *t = &c->terms[i];
    add_expr_slots (all, t->mult);
    add_expr_slots (all, t->bytes);
    add_expr_slots (all, t->written);
    add_expr_slots (all, t->ws);
    add_expr_slots (all, t->stride);
    add_expr_slots (all, t->scale);
  }
  c->n_slots = all->len;
  c->slots = (guint *) g_array_free (all, FALSE);
  return c;
}

/* ---- cost (hot path) ----------------------------------------------------- */

/* References of a histogram whose reuse distance is at least @lines (they
 * miss a fully-associative LRU cache of @lines lines), the cold ones
 * included; linear within a bin. */
static double
reuse_misses (const MemTerm *t, double lines)
{
  double m = t->cold, lo = 0;
  for (guint i = 0; i < t->n_bins; i++) {
    double hi = t->dist[i];
    if (lines <= lo)
      m += t->count[i];
    else if (lines < hi)
      m += t->count[i] * (hi - lines) / (hi - lo);
    lo = hi;
  }
  return m;
}

/* Lines one miss of the pattern brings per access that asked for it: a
 * miss serves line/stride accesses of a stride below the line (all of a
 * unit stream's, and a run's, which reads every word), one of a random or
 * wide-strided pattern. */
static double
accesses_per_line (PatKind kind, double stride, double access, double line)
{
  double step = kind == PAT_UNIT || BY_RUN (kind) ? access : kind == PAT_STRIDED ? stride : line;
  return MAX (1.0, line / MAX (step, access));
}

/* The excess seconds of one execution of a histogram term. */
static double
reuse_excess (const CpuMem *self, guint pi, const MemTerm *t, double stride)
{
  if (self->n_caches == 0)
    return NAN;
  double access = self->profiles[0].access;
  double per_miss = access * accesses_per_line (t->pattern, stride, access, t->line);
  double s = 0, above = reuse_misses (t, self->cache[0] / t->line);
  for (guint k = 1; k <= self->n_caches; k++) {
    /* references that missed level k-1 and hit level k (k = n_caches: memory) */
    double missed = k < self->n_caches ? reuse_misses (t, self->cache[k] / t->line) : 0;
    double ws = k < self->n_caches ? self->cache[k] / 2 : INFINITY;
    s += (above - missed) * per_miss * pattern_excess (self, pi, t->pattern, stride, ws);
    above = missed;
  }
  return s;
}

static double
eval_or_one (const PtiExpr *e, const PtiSymbols *values)
{
  return e ? pti_expr_eval (e, values) : 1.0;
}

static double
term_value (const CpuMem *self, guint pi, const MemTerm *t, const PtiSymbols *values)
{
  double m = eval_or_one (t->mult, values);
  double stride = t->stride ? pti_expr_eval (t->stride, values) : 0;
  if (!(m >= 0) || (t->stride && !(stride > 0)))
    return NAN;
  if (t->bytes != NULL) {
    double b = pti_expr_eval (t->bytes, values), w = pti_expr_eval (t->ws, values);
    if (!(b >= 0 && w >= 0))
      return NAN;
    double x = b * pattern_excess (self, pi, t->pattern, stride, w);
    if (t->written != NULL) {
      /* the stores' own term: reads and write-allocating stores add up, the
       * write-backs drain beside them (README, "Reads and writes") */
      double wr = pti_expr_eval (t->written, values);
      if (!(wr >= 0))
        return NAN;
      x += wr * pattern_excess (self, pi, PAT_WRITE, 0, w);
    }
    return m * x;
  }
  double scale = eval_or_one (t->scale, values);
  if (!(scale >= 0))
    return NAN;
  return m * scale * reuse_excess (self, pi, t, stride);
}

static guint
active_profile (const CpuMem *self, const Compiled *c, const PtiSymbols *values)
{
  double p = self->sharing;
  if (p == 0) {
    double nprocs = pti_symbols_get (values, c->nprocs);
    p = MIN (isfinite (nprocs) && nprocs >= 1 ? nprocs : 1, self->cpus);
  }
  return profile_index (self, p);
}

/* Slow path: name the term whose value is not finite. */
static G_GNUC_NO_INLINE gboolean
explain_failure (const CpuMem *self, const Compiled *c, const PtiSymbols *values, guint pi,
                 GError **error)
{
  for (guint i = 0; i < c->n_terms; i++) {
    const MemTerm *t = &c->terms[i];
    if (isfinite (term_value (self, pi, t, values)))
      continue;
    struct { const PtiExpr *e; const char *what; double lo; } checks[] = {
      { t->mult, "iter/exprob", 0 }, { t->bytes, "bytes", 0 }, { t->written, "written", 0 },
      { t->ws, "working_set", 0 },
      { t->stride, BY_RUN (t->pattern) ? "run" : "stride", 1e-300 },
      { t->scale, "reuse scale", 0 },
    };
    for (guint k = 0; k < G_N_ELEMENTS (checks); k++) {
      double v;
      g_autoptr (GError) local = NULL;
      if (checks[k].e == NULL)
        continue;
      if (!pti_expr_check (checks[k].e, values, &v, &local))
        return pti_rud_error (error, &(PtiRudNode) { .element = t->element, .file = c->url,
                                                     .line = t->line_no },
                              "%s: %s", checks[k].what, local ? local->message : "not finite");
      if (!(v >= checks[k].lo))
        return pti_rud_error (error, &(PtiRudNode) { .element = t->element, .file = c->url,
                                                     .line = t->line_no },
                              "%s \"%s\" is %g: it cannot be negative%s", checks[k].what,
                              pti_expr_text (checks[k].e), v,
                              checks[k].lo > 0 ? " or zero" : "");
    }
    PtiRudNode at = { .element = t->element, .file = c->url, .line = t->line_no };
    if (t->bytes == NULL && self->n_caches == 0)
      return pti_rud_error (error, &at, "a <reuse> histogram is priced level by level: this "
                            "<cpu_mem> has no <cache> levels");
    if (t->written != NULL && isnan (pattern_excess (self, pi, PAT_WRITE, 0, 1)))
      return pti_rud_error (error, &at, "written is priced at the profile's write pattern (a "
                            "store stream), which no profile of this <cpu_mem> measures: "
                            "pticalibrate measures it since its write probe was added");
    return pti_rud_error (error, &at, "no profile of this <cpu_mem> measures pattern %s%s",
                          pattern_names[t->pattern],
                          t->pattern == PAT_STRIDED ? " (nor a stride above unit)" : "");
  }
  PtiRudNode root = { .element = "rud", .file = c->url, .line = 0 };
  return pti_rud_error (error, &root, "the memory time is not finite");
}

static gboolean
impl_cost (gconstpointer instance, gconstpointer compiled, const PtiSymbols *values,
           double *seconds, GError **error)
{
  const CpuMem *self = instance;
  const Compiled *c = compiled;
  double ops;
  if (!pti_model_cpu_clc.cpu->cost (self->clc, c->clc, values, &ops, error))
    return FALSE;
  if (c->n_terms == 0) {
    *seconds = ops;
    return TRUE;
  }
  guint pi = active_profile (self, c, values);
  double mem = 0;
  for (guint i = 0; i < c->n_terms; i++)
    mem += term_value (self, pi, &c->terms[i], values);
  if (G_LIKELY (isfinite (mem))) {
    *seconds = ops + mem;
    return TRUE;
  }
  return explain_failure (self, c, values, pi, error);
}

static gboolean
impl_time_cost (gconstpointer instance, double measured, double *seconds, GError **error)
{
  const CpuMem *self = instance;
  return pti_model_cpu_clc.cpu->time_cost (self->clc, measured, seconds, error);
}

static gboolean
impl_flops_cost (gconstpointer instance, double flops, double *seconds, GError **error)
{
  const CpuMem *self = instance;
  return pti_model_cpu_clc.cpu->flops_cost (self->clc, flops, seconds, error);
}

/* ---- descriptor ---------------------------------------------------------- */

static const PtiModelParam mem_params[] = {
  { "@profile", "path (relative to the system file)", "none: the profile is inline",
    "attribute of <cpu_mem>: a memory profile file pticalibrate wrote (root <cpu_mem>, "
    "its <profile> elements); instead of inline <profile> elements" },
  { "@sharing", "processes", "min(nprocs, the computer's cpus)",
    "attribute of <cpu_mem>: how many processes share the node's memory; picks the profile "
    "of the largest processes count not above it" },
  { "cache", "bytes (attribute bytes)", "none: <reuse> histograms are refused",
    "a cache level, first (smallest) to last: a histogram's references are priced by the "
    "level that holds them" },
  { "profile", "bandwidth_unit and latency_unit attributes", "none: required",
    "bandwidth and latency by working set and access pattern (MAPS, seed 002), for "
    "`processes` processes at once; see models/cpu-mem/README.md" },
  { "(operation costs)", "those of the computer's <cpu_clc>", "none: required",
    "cpu-mem prices operation counts as cpu-clc does, at the costs of the <cpu_clc> beside it" },
  { NULL, NULL, NULL, NULL },
};

static const PtiCpuOps mem_ops = {
  .version = PTI_CPU_OPS_VERSION,
  .rud_fold = impl_rud_fold,
  .rud_free = impl_rud_free,
  .cost = impl_cost,
  .rud_slots = impl_rud_slots,
  .time_cost = impl_time_cost,
  .flops_cost = impl_flops_cost,
};

const PtiModelDesc pti_model_cpu_mem = {
  .abi_version = PTI_HMI_ABI_VERSION,
  .struct_size = sizeof (PtiModelDesc),
  .name = "cpu-mem",
  .kind = "cpu",
  .config_element = "cpu_mem",
  .summary = "memory-aware: cpu-clc's costs plus memory signatures convolved with a "
             "bandwidth profile",
  .description =
    "cpu-mem prices a computation as cpu-clc does (the operation costs of the\n"
    "computer's <cpu_clc>, which were measured with every array reference in L1)\n"
    "and adds what its memory behaviour costs beyond L1.  A <loop> or <compute>\n"
    "of the RUD may state, per execution (per iteration of a loop), the bytes it\n"
    "touches, its working set and its pattern (unit, strided with stride, random,\n"
    "runs with run: many streams read a short run at a time; transpose with run:\n"
    "a blocked transpose, columns read down a run at a time), the bytes it\n"
    "stores to lines it does not read (written, unit pattern),\n"
    "or a reuse-distance histogram (<reuse>).  The machine profile gives seconds\n"
    "per byte s_pat(W) by working set W and pattern (1/bandwidth, linear in\n"
    "log2 W between measured points), and s_write(W) of a store stream, for 1,\n"
    "2... processes sharing the node:\n"
    "\n"
    "  t = t_clc + sum over signatures: M * (b * (s_pat(W) - s_pat(W0))\n"
    "                                        + w * (s_write(W) - s_write(W0)))\n"
    "\n"
    "M the product of the trip counts and probabilities above the element, W0\n"
    "the smallest measured working set (L1), read from the 1-process profile\n"
    "for any number of processes (the costs were measured by one process\n"
    "alone; the L1 is each core's own).  A histogram's references are\n"
    "split by the cache level that holds them (fully-associative LRU: reuse\n"
    "distance >= capacity misses) and priced at the level's s_pat(size/2), the\n"
    "misses of the last level at the largest measured working set.  Seed 002's\n"
    "Equation 2: memory operations at the profile's rate plus the computation.\n"
    "Reference: Snavely et al., A Framework for Performance Modeling and\n"
    "Prediction (SC 2002); models/cpu-mem/README.md.",
  .config_schema = pti_cpu_mem_xsd,
  .params = mem_params,
  .records = NULL,
  .records_namespace = NULL,
  .instance_size = sizeof (CpuMem),
  .configure = impl_configure,
  .finalize = impl_finalize,
  .cpu = &mem_ops,
  .net = NULL,
};
