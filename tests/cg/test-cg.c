/* NAS CG (wsl/examples/cg.c and cg.xml) end to end: the built `cg` program
 * (its path is this test's argument) and `ptieval cg.xml` are spawned on a
 * 64-node system (data/cluster64.xml) and checked against the formulas of
 * workloads.md section 4 and the header of cg.xml:
 *
 *   procs = 2^k, npcols = 2^ceil(k/2), L = log2(npcols);
 *   per rank and outer iteration, S(L) = 79 L + 26 sends for L >= 1 (0 for
 *   L = 0), as many irecvs and waits, C(L) = 106 + 26 L computations:
 *     E(L) = C(L) + 3 S(L) events;
 *   in all, events = procs (niter + 1) E(L) + K(procs), K the events of
 *   CG's three collectives (a 4-byte bcast, a barrier, an 8-byte reduce),
 *   counted here by building just those through the WSL API: how they
 *   expand is wsl/collectives.c's business, checked by its own tests.
 *
 * Per-iteration counts come from traces: a run with niter = 1 minus one with
 * niter = 0, rank by rank, so the set-up and the collectives cancel whatever
 * algorithm they use.  Besides the counts of workloads.md 4.3, each rank's
 * partners and vector lengths are checked against NPB's setup_submatrix_info
 * transcribed here in its own terms (first and last rows and columns), also
 * for an na that no grid divides.  Flops per outer iteration (workloads.md
 * 4.4) are a rank's compute time on data/flops64.xml, where an add or a
 * multiply costs 1 ns and nothing else costs anything.  cg's eval_mode
 * (partial evaluation after each iteration; analytical repetition) must not
 * change the prediction.
 *
 * Assertions are non-fatal: one wrong count does not hide the others.  Under
 * a sanitizer build any report of a child fails the case. */
#include <pti/wsl.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

enum { EXIT_OK = 0, EXIT_INVALID = 3 };

static const char *ptieval, *cg, *source_root;
static char *cg_xml, *system_file, *flops_file;

static const struct {
  const char *name;
  int na, nonzer, niter;
} classes[] = { { "S", 1400, 7, 15 }, { "W", 7000, 8, 15 }, { "A", 14000, 11, 15 },
                { "B", 75000, 13, 75 }, { "C", 150000, 15, 75 } };

static const int PROCS[] = { 1, 2, 4, 8, 16, 32, 64 };

/* ---- the formulas ------------------------------------------------------ */

static int
log2_int (int p)
{
  int k = 0;
  while ((1 << k) < p)
    k++;
  return k;
}

static int l2npcols (int p) { return (log2_int (p) + 1) / 2; }
static int nprows (int p) { return 1 << (log2_int (p) / 2); }
static int npcols (int p) { return 1 << l2npcols (p); }
static guint64 sends_per_iteration (int L) { return L >= 1 ? 79u * L + 26 : 0; }
static guint64 computes_per_iteration (int L) { return 106u + 26u * L; }
static guint64 events_per_iteration (int L)
{
  return computes_per_iteration (L) + 3 * sends_per_iteration (L);
}

/* K(p): the events of bcast(root 0, 4 bytes), barrier and reduce(root 0, 8
 * bytes) on p processes, as pti expands them. */
static guint64
collective_events (int p)
{
  static guint64 known[65];
  g_assert (p >= 1 && p <= 64);
  if (known[p] != 0)
    return known[p];
  g_autoptr (GError) error = NULL;
  g_autoptr (PtiContext) ctx = pti_context_new (system_file, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (pti_context_set_processes (ctx, p, &error));
  for (int r = 0; r < p; r++)
    g_assert_true (pti_mpi_bcast (ctx, r, 0, 4, &error) && pti_mpi_barrier (ctx, r, &error)
                   && pti_mpi_reduce (ctx, r, 0, 8, &error));
  g_assert_true (pti_evaluate (ctx, &error));
  return known[p] = pti_result_events (ctx);
}

/* NPB's transpose partner (workloads.md 4.2). */
static int
transpose_partner (int p, int r)
{
  int rows = nprows (p);
  if (rows == npcols (p))
    return (r % rows) * rows + r / rows;
  return 2 * (((r / 2) % rows) * rows + (r / 2) / rows) + r % 2;
}

/* What rank @me of @p holds and exchanges, transcribed from NPB 3.4's
 * setup_submatrix_info (workloads.md 4.2) with its first and last rows and
 * columns (1-based), not from cg.c's closed forms, so that the two check
 * each other.  Lengths are in doubles. */
typedef struct {
  int nr, nc;                      /* local rows; local columns, the vector length */
  int send_len, exch;              /* the transpose: doubles sent, partner */
  int reduce_proc[8], reduce_send[8], reduce_recv[8];   /* [i], i = 1..L */
} Part;

static void
npb_partition (int na, int p, int me, Part *o)
{
  int rows = nprows (p), cols = npcols (p), L = l2npcols (p);
  g_assert (L < (int) G_N_ELEMENTS (o->reduce_proc));
  *o = (Part) { 0 };
  int proc_row = me / cols, proc_col = me - proc_row * cols;
  int firstrow, lastrow, firstcol, lastcol, size;
  if (na / cols * cols == na) {
    size = na / cols;
    firstcol = proc_col * size + 1;
    lastcol = firstcol - 1 + size;
    size = na / rows;
    firstrow = proc_row * size + 1;
    lastrow = firstrow - 1 + size;
  } else {
    int extra = na - na / rows * rows;
    size = na / rows + (proc_row < extra ? 1 : 0);
    firstrow = proc_row < extra ? proc_row * size + 1
                                : extra * (size + 1) + (proc_row - extra) * size + 1;
    lastrow = firstrow - 1 + size;
    /* a non-square grid splits each of its npcols / 2 column blocks in two */
    int blocks = rows == cols ? cols : cols / 2, block = rows == cols ? proc_col : proc_col / 2;
    extra = na - na / blocks * blocks;
    size = na / blocks + (block < extra ? 1 : 0);
    firstcol = block < extra ? block * size + 1 : extra * (size + 1) + (block - extra) * size + 1;
    lastcol = firstcol - 1 + size;
    if (rows != cols) {
      if (me % 2 == 0)
        lastcol = firstcol - 1 + (size - 1) / 2 + 1;
      else {
        firstcol = firstcol + (size - 1) / 2 + 1;
        lastcol = firstcol - 1 + size / 2;
      }
    }
  }
  o->nr = lastrow - firstrow + 1;
  o->nc = lastcol - firstcol + 1;
  o->send_len = rows == cols ? o->nr : me % 2 == 0 ? (1 + o->nr) / 2 : o->nr / 2;
  o->exch = transpose_partner (p, me);
  for (int i = 1, div = cols; i <= L; i++, div /= 2) {
    o->reduce_proc[i] = proc_row * cols + (proc_col + div / 2) % div + proc_col / div * div;
    o->reduce_recv[i] = rows == cols ? o->nr : o->send_len;
    o->reduce_send[i] = rows == cols ? o->send_len : i == L ? o->nr - o->send_len : o->send_len;
  }
}

/* ---- failing without stopping ------------------------------------------ */

G_GNUC_PRINTF (1, 2) static void
failf (const char *format, ...)
{
  va_list ap;
  va_start (ap, format);
  g_autofree char *msg = g_strchomp (g_strdup_vprintf (format, ap));
  va_end (ap);
  g_auto (GStrv) lines = g_strsplit (msg, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    g_test_message ("%s%s", i ? "    " : "", lines[i]);
  g_test_fail_printf ("%s", lines[0]);
}

/* ---- running a program ------------------------------------------------- */

typedef struct {
  int status;
  char *out, *err, *command;
} Run;

static void
run_free (Run *r)
{
  g_free (r->out);
  g_free (r->err);
  g_free (r->command);
  g_free (r);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (Run, run_free)

/* Runs the NULL-terminated @argv (argv[0] a path). */
static Run *
run (const char *const *argv)
{
  Run *r = g_new0 (Run, 1);
  g_autofree char *base = g_path_get_basename (argv[0]);
  g_autofree char *args = g_strjoinv (" ", (char **) argv + 1);
  r->command = g_strdup_printf ("%s %s", base, args);
  g_autoptr (GError) error = NULL;
  int wait_status = 0;
  gboolean ok = g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &r->out,
                              &r->err, &wait_status, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
  r->status = WIFEXITED (wait_status) ? WEXITSTATUS (wait_status)
              : WIFSIGNALED (wait_status) ? 128 + WTERMSIG (wait_status) : -1;
  if (r->out == NULL)
    r->out = g_strdup ("");
  if (r->err == NULL)
    r->err = g_strdup ("");
  if (strstr (r->err, "AddressSanitizer") || strstr (r->err, "LeakSanitizer")
      || strstr (r->err, "runtime error:"))
    failf ("%s: sanitizer report:\n%s", r->command, r->err);
  return r;
}

/* cg (@xml FALSE) or ptieval cg.xml on @system, with the -D assignments of
 * @defs ("class=1", ...), then @extra (NULL-terminated). */
static Run *
run_cg_on (const char *system, gboolean xml, const char *const *defs, const char *const *extra)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_ptr_array_add (argv, (gpointer) (xml ? ptieval : cg));
  for (; defs && *defs; defs++) {
    g_ptr_array_add (argv, "-D");
    g_ptr_array_add (argv, (gpointer) *defs);
  }
  for (; extra && *extra; extra++)
    g_ptr_array_add (argv, (gpointer) *extra);
  g_ptr_array_add (argv, (gpointer) system);
  if (xml)
    g_ptr_array_add (argv, cg_xml);
  g_ptr_array_add (argv, NULL);
  return run ((const char *const *) argv->pdata);
}

/* The same on data/cluster64.xml. */
static Run *
run_cg (gboolean xml, const char *const *defs, const char *const *extra)
{
  return run_cg_on (system_file, xml, defs, extra);
}

/* A problem: class @c with matrix order @na (the class's, or another). */
static char **
problem_defs (int c, int na, int p, int niter)
{
  GPtrArray *defs = g_ptr_array_new ();
  g_ptr_array_add (defs, g_strdup_printf ("class=%d", c + 1));
  if (na != classes[c].na)
    g_ptr_array_add (defs, g_strdup_printf ("na=%d", na));
  g_ptr_array_add (defs, g_strdup_printf ("procs=%d", p));
  g_ptr_array_add (defs, g_strdup_printf ("niter=%d", niter));
  g_ptr_array_add (defs, NULL);
  return (char **) g_ptr_array_free (defs, FALSE);
}

/* The text of the JSON number or string after "@key": in @json (no JSON
 * library: the driver prints one flat object before per_process). */
static char *
json_field (const char *json, const char *key)
{
  g_autofree char *k = g_strdup_printf ("\"%s\": ", key);
  const char *p = strstr (json, k);
  if (p == NULL)
    return NULL;
  p += strlen (k);
  return g_strndup (p, strcspn (p, ",}"));
}

/* ---- xml and c agree; events in closed form ----------------------------- */

typedef struct {
  char *time, *events;
} Result;

static gboolean
run_json (gboolean xml, const char *const *defs, Result *res)
{
  const char *extra[] = { "--json", NULL };
  g_autoptr (Run) r = run_cg (xml, defs, extra);
  if (r->status != EXIT_OK) {
    failf ("%s: exit %d\n%s", r->command, r->status, r->err);
    return FALSE;
  }
  res->time = json_field (r->out, "predicted_time_s");
  res->events = json_field (r->out, "events");
  if (res->time == NULL || res->events == NULL) {
    failf ("%s: no predicted_time_s or events in\n%s", r->command, r->out);
    return FALSE;
  }
  return TRUE;
}

/* cg and cg.xml predict the same time with the same events, which are
 * P (niter + 1) E(L) + K(P). */
static void
check_agree (int c, int na, int niter)
{
  for (guint i = 0; i < G_N_ELEMENTS (PROCS); i++) {
    int p = PROCS[i];
    g_auto (GStrv) defs = problem_defs (c, na, p, niter);
    Result rc = { 0 }, rx = { 0 };
    if (run_json (FALSE, (const char *const *) defs, &rc)
        && run_json (TRUE, (const char *const *) defs, &rx)) {
      if (strcmp (rc.time, rx.time) != 0 || strcmp (rc.events, rx.events) != 0)
        failf ("class %s, na %d, %d procs: cg predicts %s s with %s events, cg.xml %s s with %s "
               "events", classes[c].name, na, p, rc.time, rc.events, rx.time, rx.events);
      int L = l2npcols (p);
      guint64 want = (guint64) p * (niter + 1) * events_per_iteration (L) + collective_events (p);
      guint64 got = g_ascii_strtoull (rc.events, NULL, 10);
      if (got != want)
        failf ("class %s, na %d, %d procs, niter %d: %" G_GUINT64_FORMAT " events, the closed "
               "form P (niter+1) E(L) + K(P) = %d x %d x %" G_GUINT64_FORMAT " + %"
               G_GUINT64_FORMAT " = %" G_GUINT64_FORMAT " (L = %d)", classes[c].name, na, p,
               niter, got, p, niter + 1, events_per_iteration (L), collective_events (p), want,
               L);
    }
    g_free (rc.time);
    g_free (rc.events);
    g_free (rx.time);
    g_free (rx.events);
  }
}

/* Class S as it ships (15 iterations); the larger ones on one timed
 * iteration, since iterations only repeat what the first one does. */
static void
test_agree (gconstpointer data)
{
  int c = GPOINTER_TO_INT (data);
  check_agree (c, classes[c].na, c == 0 ? classes[c].niter : 1);
}

/* An na that no grid divides (class S's 1400 + 1). */
static void
test_agree_uneven (void)
{
  check_agree (0, 1401, 2);
}

/* -D class=N sets the defaults of na, nonzer, niter; explicit values win. */
static void
test_class_defaults (void)
{
  const char *by_class[] = { "class=3", "procs=4", NULL };
  const char *explicit[] = { "na=14000", "nonzer=11", "niter=15", "procs=4", NULL };
  const char *overridden[] = { "class=5", "na=14000", "nonzer=11", "niter=15", "procs=4", NULL };
  for (int xml = 0; xml <= 1; xml++) {
    Result a = { 0 }, b = { 0 }, o = { 0 };
    if (run_json (xml, by_class, &a) && run_json (xml, explicit, &b)
        && run_json (xml, overridden, &o)) {
      if (strcmp (a.time, b.time) != 0 || strcmp (a.time, o.time) != 0)
        failf ("%s: class=3 predicts %s s, na=14000 nonzer=11 niter=15 %s s, class=5 with "
               "those %s s", xml ? "cg.xml" : "cg", a.time, b.time, o.time);
    }
    g_free (a.time), g_free (a.events), g_free (b.time), g_free (b.events);
    g_free (o.time), g_free (o.events);
  }
}

/* cg's eval_mode (the C program's, as sweep3d's): a partial evaluation
 * after each outer iteration (1) gives the same prediction as evaluating
 * all at once (0); analytical repetition of the timed iterations (2) the
 * same events and the same time to 1e-9 relative (net-simple is
 * contention-free). */
static void
test_eval_modes (void)
{
  const int procs[] = { 2, 16, 64 };
  for (guint i = 0; i < G_N_ELEMENTS (procs); i++) {
    g_autofree char *dp = g_strdup_printf ("procs=%d", procs[i]);
    Result res[3] = { 0 };
    gboolean ok = TRUE;
    for (int m = 0; m < 3; m++) {
      g_autofree char *dm = g_strdup_printf ("eval_mode=%d", m);
      const char *defs[] = { "class=3", dp, dm, NULL };
      ok = run_json (FALSE, defs, &res[m]) && ok;
    }
    if (ok) {
      if (strcmp (res[1].time, res[0].time) != 0 || strcmp (res[1].events, res[0].events) != 0)
        failf ("class A, %d procs: eval_mode=1 predicts %s s with %s events, eval_mode=0 %s s "
               "with %s", procs[i], res[1].time, res[1].events, res[0].time, res[0].events);
      double t0 = g_ascii_strtod (res[0].time, NULL), t2 = g_ascii_strtod (res[2].time, NULL);
      if (!(fabs (t2 - t0) <= 1e-9 * t0) || strcmp (res[2].events, res[0].events) != 0)
        failf ("class A, %d procs: eval_mode=2 predicts %s s with %s events, eval_mode=0 %s s "
               "with %s", procs[i], res[2].time, res[2].events, res[0].time, res[0].events);
    }
    for (int m = 0; m < 3; m++)
      g_free (res[m].time), g_free (res[m].events);
  }
}

/* ---- per-iteration counts from traces ---------------------------------- */

typedef struct {
  guint64 compute, send, irecv, wait, recv, other;
  guint64 bytes8, bytes16;         /* sends of 8 and of 16 bytes */
  guint64 vector, nv;              /* other sends; of them, 8 n_v bytes (n_v rounded) */
  guint64 vector_bytes;            /* the bytes of the other sends */
  guint64 vector_recv_bytes;       /* the bytes of irecvs of neither 8 nor 16 bytes */
  guint64 *to;                     /* [peer]: sends to each rank */
} Counts;

static void
counts_free (Counts *c, int p)
{
  for (int r = 0; c && r < p; r++)
    g_free (c[r].to);
  g_free (c);
}

static guint64
attribute (const char *event, const char *name)
{
  g_autofree char *key = g_strdup_printf (" %s=\"", name);
  const char *v = strstr (event, key);
  return v ? g_ascii_strtoull (v + strlen (key), NULL, 10) : G_MAXUINT64;
}

/* Counts each rank's events in the trace at @path (the per-process lists,
 * whichever <events> chunk they are in); a vector send is of 8 n_v bytes
 * if n_v is @nv_min to @nv_max doubles. */
static Counts *
count_trace (const char *path, int p, guint64 nv_min, guint64 nv_max)
{
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;
  if (!g_file_get_contents (path, &text, NULL, &error)) {
    failf ("%s", error->message);
    return NULL;
  }
  Counts *c = g_new0 (Counts, p);
  for (int r = 0; r < p; r++)
    c[r].to = g_new0 (guint64, p);
  int rank = -1;
  char *end = strstr (text, "<summary");
  if (end)
    *end = '\0';
  for (char *line = text; line && *line; ) {
    char *next = strchr (line, '\n');
    if (next)
      *next++ = '\0';
    const char *s;
    if ((s = strstr (line, "<process rank=\"")))
      rank = atoi (s + strlen ("<process rank=\""));
    else if ((s = strstr (line, "<event kind=\"")) && rank >= 0 && rank < p) {
      s += strlen ("<event kind=\"");
      Counts *k = &c[rank];
      guint64 bytes = attribute (s, "bytes");
      if (g_str_has_prefix (s, "compute\""))
        k->compute++;
      else if (g_str_has_prefix (s, "irecv\"")) {
        k->irecv++;
        if (bytes != 8 && bytes != 16)
          k->vector_recv_bytes += bytes;
      } else if (g_str_has_prefix (s, "wait\""))
        k->wait++;
      else if (g_str_has_prefix (s, "recv\""))
        k->recv++;
      else if (g_str_has_prefix (s, "send\"")) {
        k->send++;
        guint64 peer = attribute (s, "peer");
        if (peer < (guint64) p)
          k->to[peer]++;
        if (bytes == 8)
          k->bytes8++;
        else if (bytes == 16)
          k->bytes16++;
        else {
          k->vector++;
          k->vector_bytes += bytes;
          k->nv += bytes >= 8 * nv_min && bytes <= 8 * nv_max;
        }
      } else
        k->other++;
    }
    line = next;
  }
  return c;
}

static Counts *
trace_run (const char *dir, int c, int na, int p, int niter)
{
  g_auto (GStrv) defs = problem_defs (c, na, p, niter);
  g_autofree char *path = g_strdup_printf ("%s/cg-%d-%d-%d-%d.xml", dir, c, na, p, niter);
  const char *extra[] = { "--json", "-o", path, NULL };
  g_autoptr (Run) r = run_cg (FALSE, (const char *const *) defs, extra);
  if (r->status != EXIT_OK) {
    failf ("%s: exit %d\n%s", r->command, r->status, r->err);
    return NULL;
  }
  int cols = npcols (p);
  Counts *counts = count_trace (path, p, na / cols, (na + cols - 1) / cols);
  g_unlink (path);
  return counts;
}

#define EXPECT(what, got, want)                                                               \
  do {                                                                                        \
    if ((guint64) (got) != (guint64) (want))                                                  \
      failf ("class %s, na %d, %d procs, rank %d: %" G_GUINT64_FORMAT " %s per outer "        \
             "iteration, expected %" G_GUINT64_FORMAT, classes[c].name, na, p, r,              \
             (guint64) (got), what, (guint64) (want));                                        \
  } while (0)

/* Rank by rank, the events of one outer iteration (niter = 1 minus
 * niter = 0) against workloads.md 4.3: 79 L + 26 sends, of which 52 L of 8
 * bytes, L of 16 and 26 L + 26 vectors of 8 n_v bytes, n_v = na / npcols
 * rounded down or up; as many irecvs and waits, 106 + 26 L computations and
 * nothing else.  Against NPB's partition: 79 sends to the reduce partner of
 * each step i and 26 to the transpose partner (itself on the diagonal), and
 * the vectors' exact lengths, sent and received. */
static void
check_messages (int c, int na, int p)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("test-cg-XXXXXX", &error);
  g_assert_no_error (error);
  Counts *c0 = trace_run (dir, c, na, p, 0);
  Counts *c1 = trace_run (dir, c, na, p, 1);
  g_rmdir (dir);
  int L = l2npcols (p);
  guint64 sends = sends_per_iteration (L), all = 0;
  g_autofree guint64 *want_to = g_new (guint64, p);
  for (int r = 0; c0 && c1 && r < p; r++) {
    const Counts *a = &c0[r], *b = &c1[r];
    Part part;
    npb_partition (na, p, r, &part);
    EXPECT ("sends", b->send - a->send, sends);
    EXPECT ("irecvs", b->irecv - a->irecv, sends);
    EXPECT ("waits", b->wait - a->wait, sends);
    EXPECT ("blocking receives", b->recv - a->recv, 0);
    EXPECT ("computations", b->compute - a->compute, computes_per_iteration (L));
    EXPECT ("other events", b->other - a->other, 0);
    EXPECT ("8-byte sends", b->bytes8 - a->bytes8, 52 * L);
    EXPECT ("16-byte sends", b->bytes16 - a->bytes16, L);
    EXPECT ("vector sends", b->vector - a->vector, L ? 26 * L + 26 : 0);
    EXPECT ("vector sends of 8 n_v bytes", b->nv - a->nv, L ? 26 * L + 26 : 0);
    guint64 sent = 0, received = 0;
    memset (want_to, 0, p * sizeof *want_to);
    for (int i = 1; i <= L; i++) {
      sent += part.reduce_send[i];
      received += part.reduce_recv[i];
      want_to[part.reduce_proc[i]] += 79;
    }
    if (L > 0) {
      sent += part.send_len;
      received += part.nc;
      want_to[part.exch] += 26;
    }
    EXPECT ("vector bytes sent", b->vector_bytes - a->vector_bytes, 26 * 8 * sent);
    EXPECT ("vector bytes received", b->vector_recv_bytes - a->vector_recv_bytes,
            26 * 8 * received);
    for (int q = 0; q < p; q++)
      if (b->to[q] - a->to[q] != want_to[q])
        failf ("class %s, na %d, %d procs, rank %d: %" G_GUINT64_FORMAT " sends to rank %d per "
               "outer iteration, expected %" G_GUINT64_FORMAT " (reduce partners %d %d %d, "
               "transpose partner %d)", classes[c].name, na, p, r, b->to[q] - a->to[q], q,
               want_to[q], part.reduce_proc[1], part.reduce_proc[2], part.reduce_proc[3],
               part.exch);
    all += b->send - a->send;
  }
  if (c0 && c1 && all != p * sends)
    failf ("class %s, %d procs: %" G_GUINT64_FORMAT " sends per outer iteration in all, "
           "expected %d x %" G_GUINT64_FORMAT, classes[c].name, p, all, p, sends);
  counts_free (c0, p);
  counts_free (c1, p);
}

static void
test_messages (gconstpointer data)
{
  int c = GPOINTER_TO_INT (data);
  for (guint i = 0; i < G_N_ELEMENTS (PROCS); i++)
    check_messages (c, classes[c].na, PROCS[i]);
}

/* An na that no grid divides (class S's 1400 + 1): rows and columns of
 * unequal lengths, split unevenly between the even/odd pairs of a
 * non-square grid. */
static void
test_messages_uneven (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (PROCS); i++)
    check_messages (0, 1401, PROCS[i]);
}

/* workloads.md 4.3's worked example: class A on 16 processes (4 x 4, L = 2):
 * per process and outer iteration 104 x 8 B, 2 x 16 B and 78 x 28,000 B;
 * 2,944 sends in all; the 4 diagonal ranks send 26 to themselves. */
static void
test_worked_example (void)
{
  g_assert_cmpint (nprows (16), ==, 4);
  g_assert_cmpint (npcols (16), ==, 4);
  g_assert_cmpuint (sends_per_iteration (2), ==, 184);
  g_assert_cmpuint (8ull * classes[2].na / npcols (16), ==, 28000);
  g_assert_cmpint (transpose_partner (16, 5), ==, 5);
  g_assert_cmpint (transpose_partner (16, 1), ==, 4);
  Part part;
  npb_partition (classes[2].na, 16, 6, &part);
  g_assert_cmpint (part.nr, ==, 3500);
  g_assert_cmpint (part.nc, ==, 3500);
  g_assert_cmpint (part.exch, ==, 9);
  g_assert_cmpint (part.reduce_proc[1], ==, 4);     /* rank 6 is row 1, column 2 */
  g_assert_cmpint (part.reduce_proc[2], ==, 7);
  check_messages (2, classes[2].na, 16);
}

/* ---- flops per iteration ------------------------------------------------ */

/* Each rank's compute_s, in rank order, from a --json report. */
static double *
json_compute (const char *json, int p)
{
  double *v = g_new0 (double, p);
  const char *s = json;
  for (int r = 0; r < p; r++) {
    s = s ? strstr (s, "\"compute_s\": ") : NULL;
    if (s == NULL) {
      g_free (v);
      return NULL;
    }
    s += strlen ("\"compute_s\": ");
    v[r] = g_ascii_strtod (s, NULL);
  }
  return v;
}

static double *
flops_run (gboolean xml, int c, int na, int p, int niter)
{
  g_auto (GStrv) defs = problem_defs (c, na, p, niter);
  const char *extra[] = { "--json", NULL };
  g_autoptr (Run) r = run_cg_on (flops_file, xml, (const char *const *) defs, extra);
  if (r->status != EXIT_OK) {
    failf ("%s: exit %d\n%s", r->command, r->status, r->err);
    return NULL;
  }
  double *v = json_compute (r->out, p);
  if (v == NULL)
    failf ("%s: no compute_s for %d ranks in\n%s", r->command, p, r->out);
  return v;
}

/* workloads.md 4.4 per rank and outer iteration: 26 SpMVs of 2 nnz_p flops
 * (nnz_p = nr nonzer (nonzer + 1) nc / na, the rank's share of NPB's count),
 * 25 x 10 nc of vector work in the CG iterations, 2 + 3 + 4 + 1 nc in the
 * outer iteration (r.r, residual, x.z and z.z, normalise), and one add per
 * value received in each step of a row sum (26 row sums).  Divides and the
 * square root are not flops here. */
static void
check_flops (gboolean xml, int c, int na, int p)
{
  g_autofree double *f0 = flops_run (xml, c, na, p, 0);
  g_autofree double *f1 = flops_run (xml, c, na, p, 1);
  if (f0 == NULL || f1 == NULL)
    return;
  double nzrow = (double) classes[c].nonzer * (classes[c].nonzer + 1);
  for (int r = 0; r < p; r++) {
    Part part;
    npb_partition (na, p, r, &part);
    double adds = 0;
    for (int i = 1; i <= l2npcols (p); i++)
      adds += part.reduce_recv[i];
    double want = 26 * 2 * (part.nr * nzrow * part.nc / na) + 260.0 * part.nc + 26 * adds;
    double got = (f1[r] - f0[r]) * 1e9;
    if (!(fabs (got - want) <= 1e-9 * want))
      failf ("%s, class %s, na %d, %d procs, rank %d: %.3f flops per outer iteration, expected "
             "%.3f (nr %d, nc %d, %g row-sum adds)", xml ? "cg.xml" : "cg", classes[c].name, na,
             p, r, got, want, part.nr, part.nc, adds);
  }
}

static void
test_flops (gconstpointer data)
{
  int c = GPOINTER_TO_INT (data);
  for (int xml = 0; xml <= 1; xml++)
    for (guint i = 0; i < G_N_ELEMENTS (PROCS); i++)
      check_flops (xml, c, classes[c].na, PROCS[i]);
}

static void
test_flops_uneven (void)
{
  for (int xml = 0; xml <= 1; xml++)
    for (guint i = 0; i < G_N_ELEMENTS (PROCS); i++)
      check_flops (xml, 0, 1401, PROCS[i]);
}

/* ---- refusals ----------------------------------------------------------- */

static void
expect_refused (gboolean xml, const char *def, const char *const *fragments)
{
  const char *defs[] = { def, NULL };
  g_autoptr (Run) r = run_cg (xml, defs, NULL);
  if (r->status != EXIT_INVALID)
    failf ("%s: exit %d, expected %d\n%s", r->command, r->status, EXIT_INVALID, r->err);
  for (; *fragments; fragments++)
    if (strstr (r->err, *fragments) == NULL)
      failf ("%s: the message does not say '%s':\n%s", r->command, *fragments, r->err);
}

static void
test_not_power_of_two (void)
{
  const char *const c_says[] = { "cg: error: procs = 6 is not a power of two", NULL };
  const char *const xml_says[] = { "cg.xml:", "<processes count=\"2 ^ floor(log2(procs)) == "
                                   "procs ? procs : 0\">", "not 0", NULL };
  expect_refused (FALSE, "procs=6", c_says);
  expect_refused (TRUE, "procs=6", xml_says);
  const char *const c_says3[] = { "procs = 3 is not a power of two", NULL };
  expect_refused (FALSE, "procs=3", c_says3);
  expect_refused (TRUE, "procs=3", xml_says);
  const char *const c_says_frac[] = { "procs = 2.5 must be a whole number", NULL };
  expect_refused (FALSE, "procs=2.5", c_says_frac);
  expect_refused (TRUE, "procs=2.5", xml_says);
}

static void
test_bad_class (void)
{
  const char *const c_says[] = { "class = 9 must be a whole number from 1 to 8", NULL };
  const char *const xml_says[] = { "cg.xml:", "<param value=\"class == 1 ? 1400", "not finite",
                                   NULL };
  expect_refused (FALSE, "class=9", c_says);
  expect_refused (TRUE, "class=9", xml_says);
}

int
main (int argc, char **argv)
{
  /* the path of the built cg program: the argument that is not an option */
  for (int i = 1; i < argc; i++)
    if (argv[i][0] != '-') {
      cg = argv[i];
      memmove (argv + i, argv + i + 1, (argc - i) * sizeof *argv);
      argc--;
      break;
    }
  g_test_init (&argc, &argv, NULL);
  g_test_set_nonfatal_assertions ();

  ptieval = g_getenv ("PTIEVAL");
  source_root = g_getenv ("PTI_SOURCE_ROOT");
  if (!ptieval || !source_root || !cg) {
    g_printerr ("test-cg: run through meson test (needs PTIEVAL, PTI_SOURCE_ROOT and the path "
                "of cg as an argument)\n");
    return 77;
  }
  cg_xml = g_build_filename (source_root, "wsl", "examples", "cg.xml", NULL);
  system_file = g_test_build_filename (G_TEST_DIST, "cg", "data", "cluster64.xml", NULL);

  flops_file = g_test_build_filename (G_TEST_DIST, "cg", "data", "flops64.xml", NULL);

  for (guint c = 0; c < G_N_ELEMENTS (classes); c++) {
    g_autofree char *name = g_strdup_printf ("/cg/agree/class-%s", classes[c].name);
    g_test_add_data_func (name, GINT_TO_POINTER (c), test_agree);
  }
  g_test_add_func ("/cg/agree/uneven", test_agree_uneven);
  g_test_add_func ("/cg/class-defaults", test_class_defaults);
  g_test_add_func ("/cg/eval-modes", test_eval_modes);
  for (guint c = 0; c < G_N_ELEMENTS (classes); c++) {
    g_autofree char *name = g_strdup_printf ("/cg/messages/class-%s", classes[c].name);
    g_test_add_data_func (name, GINT_TO_POINTER (c), test_messages);
  }
  g_test_add_func ("/cg/messages/uneven", test_messages_uneven);
  g_test_add_func ("/cg/messages/worked-example", test_worked_example);
  for (guint c = 0; c < G_N_ELEMENTS (classes); c++) {
    g_autofree char *name = g_strdup_printf ("/cg/flops/class-%s", classes[c].name);
    g_test_add_data_func (name, GINT_TO_POINTER (c), test_flops);
  }
  g_test_add_func ("/cg/flops/uneven", test_flops_uneven);
  g_test_add_func ("/cg/refused/not-power-of-two", test_not_power_of_two);
  g_test_add_func ("/cg/refused/class", test_bad_class);
  int status = g_test_run ();
  g_free (cg_xml);
  g_free (system_file);
  g_free (flops_file);
  return status;
}
