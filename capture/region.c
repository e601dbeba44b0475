/* libptiregion: regions, counters and performance assertions checked as the
 * program runs (pti/region.h).  Plain C, no MPI: the MPI figures and the
 * records come from libpticapture when it is loaded (region-hooks.h).
 *
 * Fixed-size tables (regions, names, nesting depth) keep begin, count and
 * end free of allocation; going past a limit is a reported misuse. */
#include "region-expr.h"
#include "region-hooks.h"

#include <pti/region.h>

#include <ctype.h>
#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RG_MAX_REGIONS 256
#define RG_MAX_NAMES 128        /* counters and parameters */
#define RG_MAX_DEPTH 64
#define RG_MAX_ASSERTS 256
#define RG_NAME_MAX 64

/* The names every test can read, then the user's names from slot RG_NB. */
enum {
  RG_TIME, RG_CALLS, RG_MESSAGES, RG_BYTES, RG_ENTRY, RG_TOTAL_TIME, RG_RANK, RG_SIZE,
  RG_PREDICTED_TIME, RG_PREDICTED_TOTAL, RG_NB
};
static const char *const rg_builtin[RG_NB] = {
  "time", "calls", "messages", "bytes", "entry", "total_time", "rank", "size",
  "predicted_time", "predicted_total",
};

typedef struct {
  char name[RG_NAME_MAX + 1];
  unsigned long long entries;
  uint64_t total_ns;
  double predicted_time, predicted_total;   /* NaN: not in the prediction */
  int n_asserts;
  int asserts[16];
  int open;                     /* frames of it on the stack */
} RgRegion;

typedef struct {
  char name[RG_NAME_MAX + 1];
  int is_param, is_counter;
  double param;
  int cid;                      /* counters: id in the capture's records, dense from 0 */
} RgName;

typedef struct {
  char name[RG_NAME_MAX + 1];
  char *test;
  int region;
  PtiRegionReaction reaction;
  PtiRxExpr *expr;
  unsigned long long checks, failures;
  double lhs_min, lhs_max;      /* of the first name read */
  int error_said;               /* a name that cannot be read: said once */
} RgAssert;

typedef struct {
  int region;
  uint64_t t0, calls0, messages0, bytes0;
  uint64_t touched[RG_MAX_NAMES / 64];
  double count[RG_MAX_NAMES];
} RgFrame;

static struct {
  int ready;
  const PtiCaptureRegionHooks *hooks;
  int rank, size;
  int reaction_override;        /* -1 none, PTI_REGION_* or 4 off */
  RgRegion regions[RG_MAX_REGIONS];
  int n_regions;
  RgName names[RG_MAX_NAMES];
  int n_names, n_counters;
  RgAssert asserts[RG_MAX_ASSERTS];
  int n_asserts;
  RgFrame stack[RG_MAX_DEPTH];
  int depth;
  double slots[RG_NB + RG_MAX_NAMES];
  PtiRegionHandler handler;
  void *handler_data;
  char error[512];
  int have_prediction;
  char prediction_path[512];
  const char *last_name;        /* the string last looked up, and what it was */
  int last_region;
  const char *last_counter;     /* the same for counters */
  int last_counter_k;
} rg = { .reaction_override = -1 };

/* ---- errors ---- */

static int
rg_misuse (const char *fmt, ...)
{
  char what[400];
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (what, sizeof what, fmt, ap);
  va_end (ap);
  snprintf (rg.error, sizeof rg.error, "pti region: rank %d: %s", rg.rank, what);
  fprintf (stderr, "%s\n", rg.error);
  return PTI_REGION_ERROR;
}

const char *
pti_region_error (void)
{
  return rg.error;
}

static int
rg_is_identifier (const char *s)
{
  if (s == NULL || !(isalpha ((unsigned char) s[0]) || s[0] == '_'))
    return 0;
  size_t n = 0;
  for (; s[n]; n++)
    if (!(isalnum ((unsigned char) s[n]) || s[n] == '_') || n >= RG_NAME_MAX)
      return 0;
  return 1;
}

/* ---- set-up ---- */

static uint64_t
rg_now (void)
{
  if (rg.hooks != NULL)
    return rg.hooks->now ();
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return (uint64_t) t.tv_sec * 1000000000u + (uint64_t) t.tv_nsec;
}

static int
rg_env_int (const char *a, const char *b, int fallback)
{
  const char *v = getenv (a);
  if (v == NULL)
    v = getenv (b);
  return v != NULL && *v ? atoi (v) : fallback;
}

static void rg_at_exit (void);
static void rg_load_prediction (const char *path);

static void
rg_setup (void)
{
  if (rg.ready)
    return;
  rg.ready = 1;
  PtiCaptureRegionHooksFunc f
    = (PtiCaptureRegionHooksFunc) dlsym (RTLD_DEFAULT, PTI_CAPTURE_REGION_HOOKS);
  if (f != NULL) {
    const PtiCaptureRegionHooks *h = f ();
    if (h != NULL && h->version == PTI_CAPTURE_REGION_HOOKS_VERSION)
      rg.hooks = h;
  }
  rg.rank = rg_env_int ("OMPI_COMM_WORLD_RANK", "PMI_RANK", 0);
  rg.size = rg_env_int ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", 1);
  const char *r = getenv ("PTI_REGION_REACTION");
  if (r != NULL && *r) {
    static const char *const names[] = { "count", "report", "handler", "abort", "off" };
    for (int i = 0; i < 5; i++)
      if (strcmp (r, names[i]) == 0)
        rg.reaction_override = i;
    if (rg.reaction_override < 0)
      rg_misuse ("PTI_REGION_REACTION=%s: expected count, report, handler, abort or off", r);
  }
  for (int i = 0; i < RG_NB + RG_MAX_NAMES; i++)
    rg.slots[i] = NAN;
  const char *p = getenv ("PTI_PREDICTION");
  if (p != NULL && *p)
    rg_load_prediction (p);
  atexit (rg_at_exit);
}

static int
rg_current_rank (void)
{
  if (rg.hooks != NULL) {
    int r = rg.hooks->rank ();
    if (r >= 0)
      rg.rank = r;
  }
  return rg.rank;
}

/* ---- the prediction: phases of ptieval --json ---- */

/* The number after "key": inside [p, end), NaN if absent. */
static double
rg_json_number (const char *p, const char *end, const char *key)
{
  size_t n = strlen (key);
  for (const char *q = p; q + n + 2 < end; q++)
    if (q[0] == '"' && strncmp (q + 1, key, n) == 0 && q[n + 1] == '"') {
      const char *v = q + n + 2;
      while (v < end && (*v == ' ' || *v == ':' || *v == '\n' || *v == '\t'))
        v++;
      char *e;
      double d = strtod (v, &e);
      return e == v ? NAN : d;
    }
  return NAN;
}

static int rg_region_find (const char *name, int create);

/* ptieval's JSON "phases": [{"name": "P", "time_max_s": T, ..., "entries_max": E, ...}].
 * Phase objects hold no nested objects, so each is the text up to its '}'. */
static void
rg_load_prediction (const char *path)
{
  snprintf (rg.prediction_path, sizeof rg.prediction_path, "%s", path);
  FILE *f = fopen (path, "rb");
  if (f == NULL) {
    rg_misuse ("PTI_PREDICTION=%s: cannot open it", path);
    return;
  }
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc (cap + 1);
  size_t got;
  while (buf != NULL && (got = fread (buf + len, 1, cap - len, f)) > 0) {
    len += got;
    if (len == cap) {
      char *nb = realloc (buf, 2 * cap + 1);
      if (nb == NULL) {
        free (buf);
        buf = NULL;
        break;
      }
      buf = nb;
      cap *= 2;
    }
  }
  fclose (f);
  if (buf == NULL) {
    rg_misuse ("PTI_PREDICTION=%s: out of memory", path);
    return;
  }
  buf[len] = '\0';
  const char *ph = strstr (buf, "\"phases\"");
  const char *p = ph ? strchr (ph, '[') : NULL;
  if (p == NULL) {
    rg_misuse ("PTI_PREDICTION=%s: no \"phases\" (write it with ptieval --json)", path);
    free (buf);
    return;
  }
  rg.have_prediction = 1;
  p++;
  for (;;) {
    while (*p == ' ' || *p == ',' || *p == '\n')
      p++;
    if (*p != '{')
      break;
    const char *end = strchr (p, '}');
    if (end == NULL)
      break;
    const char *nm = strstr (p, "\"name\"");
    char name[RG_NAME_MAX + 1] = "";
    if (nm != NULL && nm < end) {
      const char *q = strchr (nm + 6, '"');
      if (q != NULL && q < end) {
        size_t n = 0;
        for (q++; q < end && *q != '"' && n < RG_NAME_MAX; q++)
          name[n++] = *q;
        name[n] = '\0';
      }
    }
    double t = rg_json_number (p, end, "time_max_s");
    double entries = rg_json_number (p, end, "entries_max");
    if (rg_is_identifier (name)) {
      int i = rg_region_find (name, 1);
      if (i >= 0) {
        rg.regions[i].predicted_total = t;
        rg.regions[i].predicted_time = entries > 0 ? t / entries : NAN;
      }
    }
    p = end + 1;
  }
  free (buf);
}

/* ---- tables ---- */

static int
rg_region_find (const char *name, int create)
{
  /* a program names a region by the same literal each time */
  if (name == rg.last_name && name != NULL && strcmp (rg.regions[rg.last_region].name, name) == 0)
    return rg.last_region;
  for (int i = 0; i < rg.n_regions; i++)
    if (strcmp (rg.regions[i].name, name) == 0) {
      rg.last_name = name;
      rg.last_region = i;
      return i;
    }
  if (!create)
    return -1;
  if (!rg_is_identifier (name)) {
    rg_misuse ("region name '%s' is not an identifier ([A-Za-z_][A-Za-z0-9_]*, at most %d)",
               name ? name : "(null)", RG_NAME_MAX);
    return -2;
  }
  if (rg.n_regions == RG_MAX_REGIONS) {
    rg_misuse ("region '%s': more than %d regions", name, RG_MAX_REGIONS);
    return -2;
  }
  RgRegion *g = &rg.regions[rg.n_regions];
  memset (g, 0, sizeof *g);
  snprintf (g->name, sizeof g->name, "%s", name);
  g->predicted_time = g->predicted_total = NAN;
  if (rg.hooks != NULL)
    rg.hooks->define (PTI_DEF_REGION, (uint32_t) rg.n_regions, name, NULL, 0);
  return rg.n_regions++;
}

static int
rg_name_find (const char *name, size_t len, int create)
{
  for (int i = 0; i < rg.n_names; i++)
    if (strlen (rg.names[i].name) == len && strncmp (rg.names[i].name, name, len) == 0)
      return i;
  if (!create || rg.n_names == RG_MAX_NAMES || len > RG_NAME_MAX)
    return -1;
  RgName *n = &rg.names[rg.n_names];
  memset (n, 0, sizeof *n);
  memcpy (n->name, name, len);
  n->name[len] = '\0';
  return rg.n_names++;
}

static int
rg_intern (const char *name, size_t len, void *data, char *why, size_t why_len)
{
  (void) data;
  for (int i = 0; i < RG_NB; i++)
    if (strlen (rg_builtin[i]) == len && strncmp (rg_builtin[i], name, len) == 0)
      return i;
  int k = rg_name_find (name, len, 1);
  if (k < 0) {
    snprintf (why, why_len, "more than %d counters and parameters", RG_MAX_NAMES);
    return -1;
  }
  return RG_NB + k;
}

/* ---- the API ---- */

int
pti_region_param (const char *name, double value)
{
  rg_setup ();
  if (!rg_is_identifier (name))
    return rg_misuse ("parameter name '%s' is not an identifier", name ? name : "(null)");
  for (int i = 0; i < RG_NB; i++)
    if (strcmp (rg_builtin[i], name) == 0)
      return rg_misuse ("parameter '%s': the name of a measured figure", name);
  int k = rg_name_find (name, strlen (name), 1);
  if (k < 0)
    return rg_misuse ("parameter '%s': more than %d counters and parameters", name, RG_MAX_NAMES);
  if (rg.names[k].is_counter)
    return rg_misuse ("parameter '%s': already a counter (pti_region_count)", name);
  rg.names[k].is_param = 1;
  rg.names[k].param = value;
  if (rg.hooks != NULL)
    rg.hooks->param (name, value);
  return PTI_REGION_OK;
}

int
pti_region_assert (const char *region, const char *name, const char *test,
                   PtiRegionReaction reaction)
{
  rg_setup ();
  if (name == NULL || !*name || strlen (name) > RG_NAME_MAX)
    return rg_misuse ("assertion: a name (1 to %d characters) is required", RG_NAME_MAX);
  for (int i = 0; i < rg.n_asserts; i++)
    if (strcmp (rg.asserts[i].name, name) == 0)
      return rg_misuse ("assertion '%s' is stated twice", name);
  if ((unsigned) reaction > PTI_REACT_ABORT)
    return rg_misuse ("assertion '%s': unknown reaction %d", name, (int) reaction);
  if (test == NULL)
    return rg_misuse ("assertion '%s': no test", name);
  int g = rg_region_find (region, 1);
  if (g < 0)
    return rg_misuse ("assertion '%s': bad region", name);
  if (rg.n_asserts == RG_MAX_ASSERTS || rg.regions[g].n_asserts == 16)
    return rg_misuse ("assertion '%s': too many assertions", name);
  char err[400];
  PtiRxExpr *e = pti_rx_compile (test, rg_intern, NULL, err, sizeof err);
  if (e == NULL)
    return rg_misuse ("region '%s': assertion '%s': %s", region, name, err);
  RgAssert *a = &rg.asserts[rg.n_asserts];
  memset (a, 0, sizeof *a);
  snprintf (a->name, sizeof a->name, "%s", name);
  a->test = strdup (test);
  a->region = g;
  a->reaction = reaction;
  a->expr = e;
  a->lhs_min = INFINITY;
  a->lhs_max = -INFINITY;
  rg.regions[g].asserts[rg.regions[g].n_asserts++] = rg.n_asserts;
  if (rg.hooks != NULL)
    rg.hooks->define (PTI_DEF_ASSERTION, (uint32_t) rg.n_asserts, name, test, (uint32_t) g);
  rg.n_asserts++;
  return PTI_REGION_OK;
}

int
pti_region_begin (const char *name)
{
  rg_setup ();
  int g = rg_region_find (name, 1);
  if (g < 0)
    return PTI_REGION_ERROR;
  if (rg.depth == RG_MAX_DEPTH)
    return rg_misuse ("region '%s': nested more than %d deep", name, RG_MAX_DEPTH);
  RgFrame *f = &rg.stack[rg.depth++];
  f->region = g;
  memset (f->touched, 0, sizeof f->touched);
  rg.regions[g].open++;
  const PtiCaptureRegionHooks *h = rg.hooks;
  f->t0 = rg_now ();
  if (h != NULL) {
    f->calls0 = *h->calls;
    f->messages0 = *h->messages;
    f->bytes0 = *h->bytes;
    h->begin ((uint32_t) g, f->t0);
  }
  return PTI_REGION_OK;
}

/* Adds @value to counter @k of frame @f (a counter's first use in a frame
 * starts it at 0: frames are not cleared at begin). */
static inline void
rg_add (RgFrame *f, int k, double value)
{
  uint64_t bit = (uint64_t) 1 << (k % 64);
  if (!(f->touched[k / 64] & bit)) {
    f->touched[k / 64] |= bit;
    f->count[k] = 0;
  }
  f->count[k] += value;
}

int
pti_region_count (const char *counter, double value)
{
  rg_setup ();
  if (rg.depth == 0)
    return rg_misuse ("counter '%s': counted outside every region", counter ? counter : "(null)");
  /* a program counts by the same literal each time */
  if (counter == rg.last_counter && counter != NULL
      && strcmp (rg.names[rg.last_counter_k].name, counter) == 0) {
    rg_add (&rg.stack[rg.depth - 1], rg.last_counter_k, value);
    return PTI_REGION_OK;
  }
  if (!rg_is_identifier (counter))
    return rg_misuse ("counter name '%s' is not an identifier", counter ? counter : "(null)");
  size_t len = strlen (counter);
  int k = rg_name_find (counter, len, 1);
  if (k < 0)
    return rg_misuse ("counter '%s': more than %d counters and parameters", counter, RG_MAX_NAMES);
  RgName *n = &rg.names[k];
  if (!n->is_counter) {
    for (int i = 0; i < RG_NB; i++)
      if (strcmp (rg_builtin[i], counter) == 0)
        return rg_misuse ("counter '%s': the name of a measured figure", counter);
    if (n->is_param)
      return rg_misuse ("counter '%s': already a parameter (pti_region_param)", counter);
    n->is_counter = 1;
    n->cid = rg.n_counters++;
    if (rg.hooks != NULL)
      rg.hooks->define (PTI_DEF_COUNTER, (uint32_t) n->cid, counter, NULL, 0);
  }
  rg.last_counter = counter;
  rg.last_counter_k = k;
  rg_add (&rg.stack[rg.depth - 1], k, value);
  return PTI_REGION_OK;
}

void
pti_region_set_handler (PtiRegionHandler handler, void *data)
{
  rg.handler = handler;
  rg.handler_data = data;
}

static void
rg_report (const RgAssert *a, const PtiRegionFailure *fl)
{
  char vals[600];
  size_t off = 0;
  vals[0] = '\0';
  for (int i = 0; i < fl->n_values && off < sizeof vals - 40; i++)
    off += (size_t) snprintf (vals + off, sizeof vals - off, "%s%s=%.9g", i ? ", " : "",
                              fl->names[i], fl->values[i]);
  fprintf (stderr, "pti region: rank %d: region '%s' (entry %llu): assertion '%s' failed: %s"
           " with %s\n", fl->rank, fl->region, fl->entry, a->name, a->test, vals);
}

/* Checks region @g's assertions with the figures in rg.slots.  Returns
 * PTI_REGION_FAILED if one failed, PTI_REGION_ERROR if one could not be read. */
static int
rg_check (int g, unsigned long long entry)
{
  int result = PTI_REGION_OK;
  RgRegion *rgn = &rg.regions[g];
  for (int j = 0; j < rgn->n_asserts; j++) {
    RgAssert *a = &rg.asserts[rgn->asserts[j]];
    int n = pti_rx_n_slots (a->expr);
    const int *sl = pti_rx_slots (a->expr);
    const char *names[32];
    double values[32];
    int bad = -1;
    for (int i = 0; i < n; i++) {
      int s = sl[i];
      if (s >= RG_NB && !rg.names[s - RG_NB].is_param && !rg.names[s - RG_NB].is_counter)
        bad = i;
      if (i < 32) {
        names[i] = s < RG_NB ? rg_builtin[s] : rg.names[s - RG_NB].name;
        values[i] = rg.slots[s];
      }
      if (isnan (rg.slots[s]) && bad < 0)
        bad = i;
    }
    if (bad >= 0) {
      if (!a->error_said) {
        int s = sl[bad];
        const char *nm = s < RG_NB ? rg_builtin[s] : rg.names[s - RG_NB].name;
        const char *why = "is neither a counter counted so far nor a parameter";
        if (s == RG_CALLS || s == RG_MESSAGES || s == RG_BYTES)
          why = "is measured only under pticapture (the capture library is not loaded)";
        else if (s == RG_PREDICTED_TIME || s == RG_PREDICTED_TOTAL)
          why = rg.have_prediction ? "has no phase of this name in PTI_PREDICTION"
                                   : "needs PTI_PREDICTION=FILE (written by ptieval --json)";
        rg_misuse ("region '%s': assertion '%s' (%s): '%s' %s; not checked", rgn->name, a->name,
                   a->test, nm, why);
        a->error_said = 1;
      }
      result = PTI_REGION_ERROR;
      continue;
    }
    double v = pti_rx_eval (a->expr, rg.slots);
    int passed = v != 0 && !isnan (v);
    a->checks++;
    if (n > 0) {
      if (values[0] < a->lhs_min)
        a->lhs_min = values[0];
      if (values[0] > a->lhs_max)
        a->lhs_max = values[0];
    }
    if (rg.hooks != NULL)
      rg.hooks->check ((uint32_t) (a - rg.asserts), passed, n < 32 ? n : 32, values);
    if (passed)
      continue;
    a->failures++;
    if (result == PTI_REGION_OK)
      result = PTI_REGION_FAILED;
    int reaction = rg.reaction_override >= 0 ? rg.reaction_override : (int) a->reaction;
    PtiRegionFailure fl = { .rank = rg_current_rank (), .region = rgn->name, .assertion = a->name,
                            .test = a->test, .n_values = n < 32 ? n : 32, .names = names,
                            .values = values, .entry = entry };
    if (reaction == PTI_REACT_HANDLER && rg.handler != NULL)
      rg.handler (&fl, rg.handler_data);
    else if (reaction != PTI_REACT_COUNT)
      rg_report (a, &fl);
    if (reaction == PTI_REACT_ABORT) {
      fprintf (stderr, "pti region: rank %d: aborting (assertion '%s', reaction abort)\n",
               fl.rank, a->name);
      fflush (stderr);
      abort ();
    }
  }
  return result;
}

int
pti_region_end (const char *name)
{
  uint64_t t = rg_now ();
  rg_setup ();
  if (rg.depth == 0)
    return rg_misuse ("pti_region_end ('%s') without a region begun", name ? name : "(null)");
  RgFrame *f = &rg.stack[rg.depth - 1];
  RgRegion *rgn = &rg.regions[f->region];
  if (name == NULL || strcmp (rgn->name, name) != 0) {
    int known = name != NULL && rg_region_find (name, 0) >= 0;
    return rg_misuse ("pti_region_end ('%s'): the innermost region is '%s'%s",
                      name ? name : "(null)", rgn->name,
                      known ? "" : (name ? ", and no region of that name was begun" : ""));
  }
  rg.depth--;
  rgn->open--;
  rgn->entries++;
  rgn->total_ns += t - f->t0;
  const PtiCaptureRegionHooks *h = rg.hooks;
  uint64_t dc = 0, dm = 0, db = 0;
  if (h != NULL) {
    dc = *h->calls - f->calls0;
    dm = *h->messages - f->messages0;
    db = *h->bytes - f->bytes0;
    h->end ((uint32_t) f->region, t, dc, dm, db);
  }
  /* counters: record them, fold them into the enclosing frame */
  RgFrame *up = rg.depth > 0 ? &rg.stack[rg.depth - 1] : NULL;
  for (int w = 0; w < RG_MAX_NAMES / 64; w++)
    for (uint64_t bits = f->touched[w]; bits; bits &= bits - 1) {
      int k = w * 64 + __builtin_ctzll (bits);
      if (h != NULL)
        h->count ((uint32_t) f->region, (uint32_t) rg.names[k].cid, f->count[k]);
      if (up != NULL)
        rg_add (up, k, f->count[k]);
    }
  if (rgn->n_asserts == 0 || rg.reaction_override == 4)
    return PTI_REGION_OK;
  double *s = rg.slots;
  s[RG_TIME] = (double) (t - f->t0) * 1e-9;
  s[RG_CALLS] = h ? (double) dc : NAN;
  s[RG_MESSAGES] = h ? (double) dm : NAN;
  s[RG_BYTES] = h ? (double) db : NAN;
  s[RG_ENTRY] = (double) rgn->entries;
  s[RG_TOTAL_TIME] = (double) rgn->total_ns * 1e-9;
  s[RG_RANK] = rg_current_rank ();
  s[RG_SIZE] = rg.size;
  s[RG_PREDICTED_TIME] = rgn->predicted_time;
  s[RG_PREDICTED_TOTAL] = rgn->predicted_total;
  for (int k = 0; k < rg.n_names; k++) {
    const RgName *n = &rg.names[k];
    s[RG_NB + k] = n->is_param ? n->param
                   : n->is_counter ? ((f->touched[k / 64] >> (k % 64)) & 1 ? f->count[k] : 0)
                   : NAN;
  }
  return rg_check (f->region, rgn->entries);
}

int
pti_region_outcome (const char *name, unsigned long long *checks, unsigned long long *failures)
{
  for (int i = 0; i < rg.n_asserts; i++)
    if (name != NULL && strcmp (rg.asserts[i].name, name) == 0) {
      if (checks)
        *checks = rg.asserts[i].checks;
      if (failures)
        *failures = rg.asserts[i].failures;
      return PTI_REGION_OK;
    }
  return PTI_REGION_ERROR;
}

void
pti_region_summary (void)
{
  for (int i = 0; i < rg.n_asserts; i++) {
    const RgAssert *a = &rg.asserts[i];
    fprintf (stderr, "pti region: rank %d: assertion '%s' on '%s' (%s): %llu checks, %llu failed",
             rg.rank, a->name, rg.regions[a->region].name, a->test, a->checks, a->failures);
    if (a->checks > 0 && pti_rx_n_slots (a->expr) > 0) {
      int s = pti_rx_slots (a->expr)[0];
      fprintf (stderr, ", %s from %.9g to %.9g", s < RG_NB ? rg_builtin[s] : rg.names[s - RG_NB].name,
               a->lhs_min, a->lhs_max);
    }
    fputc ('\n', stderr);
  }
}

static void
rg_at_exit (void)
{
  int failed = 0;
  for (int i = 0; i < rg.n_asserts; i++)
    failed |= rg.asserts[i].failures > 0;
  const char *s = getenv ("PTI_REGION_SUMMARY");
  if (failed || (s != NULL && strcmp (s, "1") == 0))
    pti_region_summary ();
  for (int i = 0; i < rg.depth; i++)
    fprintf (stderr, "pti region: rank %d: region '%s' never ended\n", rg.rank,
             rg.regions[rg.stack[i].region].name);
  for (int i = 0; i < rg.n_asserts; i++) {
    pti_rx_free (rg.asserts[i].expr);
    free (rg.asserts[i].test);
  }
  rg.n_asserts = 0;
}
