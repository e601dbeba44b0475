/* ptitrace summary and diff.
 *
 * Totals are accumulated per process while streaming (O(processes)).  The
 * critical path needs the message dependencies: message ends are paired by
 * the external message sorter; each end that waited gives a dependency edge
 * (a receive that waited depends on its send, from when the send's data
 * started to travel; a send that waited, on its receive being posted), and
 * the edges are sorted externally by (rank, time).  The walk starts at the
 * end of the last process to finish and repeatedly takes the latest edge of
 * the current process at or before the current time, by binary search in the
 * sorted edges (reads from the temporary file when they did not fit in
 * memory).  Time strictly decreases at each hop, so the walk ends.  Memory:
 * the sorters' budgets plus O(processes). */
#include "commands.h"

#include <string.h>

const char *const pt_time_kind_names[PT_N_TIMES] = { "compute", "send", "recv", "complete", "wait" };

typedef struct {
  guint32 rank;         /* the process that waited */
  guint32 to_rank;      /* the process it waited for */
  guint64 at;           /* when it stopped waiting */
  guint64 to_time;      /* where the path continues on to_rank */
  guint64 seq;
} Edge;

static int
cmp_edge (const void *pa, const void *pb)
{
  const Edge *a = pa, *b = pb;
  if (a->rank != b->rank)
    return a->rank < b->rank ? -1 : 1;
  if (a->at != b->at)
    return a->at < b->at ? -1 : 1;
  return a->seq < b->seq ? -1 : a->seq > b->seq;
}

typedef struct {
  PtiSorter *edges;
  guint64 seq;
} EdgeCtx;

static gboolean
add_edge (EdgeCtx *c, guint32 rank, guint64 at, guint32 to_rank, guint64 to_time, GError **error)
{
  if (to_time >= at)
    return TRUE;   /* no progress backwards: not a dependency we can follow */
  Edge e = { rank, to_rank, at, to_time, c->seq++ };
  return pti_sorter_add (c->edges, &e, error);
}

/* A completing event that waited depends on the message it waited for
 * last: a receive on its send, from when the data entered the network; a
 * rendezvous send on its receive being posted. */
static gboolean
on_message (const PtMessage *m, gpointer data, GError **error)
{
  EdgeCtx *c = data;
  if (m->recv.decided
      && !add_edge (c, m->recv.rank, m->recv.unblock, m->send.rank, pt_msg_psend (m), error))
    return FALSE;
  if (m->send.decided && m->send.rendezvous
      && !add_edge (c, m->send.rank, m->send.unblock, m->recv.rank, pt_msg_lrecv (m), error))
    return FALSE;
  return TRUE;
}

typedef struct {
  guint32 rank;
  guint32 from_rank;   /* where the message came from (for hops), or rank */
  guint64 begin, end;  /* on the path on rank */
  guint64 sent;        /* when the message left from_rank */
} Hop;

/* Find the last edge of [lo, hi) with at <= t.  FALSE with @error. */
static gboolean
last_edge_before (PtiSorter *s, guint64 lo, guint64 hi, guint64 t, gboolean *found, Edge *out,
                  GError **error)
{
  *found = FALSE;
  while (lo < hi) {
    guint64 mid = lo + (hi - lo) / 2;
    Edge e;
    if (!pti_sorter_get (s, mid, &e, error))
      return FALSE;
    if (e.at <= t) {
      *found = TRUE;
      *out = e;
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return TRUE;
}

static gboolean
walk (PtStats *st, PtiSorter *edges, PtiSorter *hops, GError **error)
{
  guint n = st->n;
  g_autofree guint64 *first = g_new0 (guint64, n + 1);
  /* Per-rank ranges of the sorted edges. */
  g_autofree guint64 *count = g_new0 (guint64, MAX (n, 1));
  const Edge *e;
  GError *local = NULL;
  pti_sorter_rewind (edges);
  while ((e = pti_sorter_next (edges, &local)) != NULL)
    count[e->rank]++;
  if (local != NULL) {
    g_propagate_error (error, local);
    return FALSE;
  }
  for (guint r = 0; r < n; r++)
    first[r + 1] = first[r] + count[r];

  guint last = 0;
  for (guint r = 1; r < n; r++)
    if (st->procs[r].end > st->procs[last].end)
      last = r;
  st->last_rank = last;
  st->have_path = TRUE;
  if (n == 0)
    return TRUE;
  guint r = last;
  guint64 t = st->procs[last].end;
  for (;;) {
    gboolean found;
    Edge edge;
    if (!last_edge_before (edges, first[r], first[r + 1], t, &found, &edge, error))
      return FALSE;
    Hop hop = { r, r, found ? edge.at : 0, t, 0 };
    if (found) {
      hop.from_rank = edge.to_rank;
      hop.sent = edge.to_time;
    }
    if (hops != NULL && !pti_sorter_add (hops, &hop, error))
      return FALSE;
    st->procs[r].path += t - hop.begin;
    if (!found)
      break;
    st->hops++;
    st->path_flight += edge.at - edge.to_time;
    r = edge.to_rank;
    t = edge.to_time;
  }
  return TRUE;
}

void
pt_stats_free (PtStats *s)
{
  if (s == NULL)
    return;
  g_free (s->path);
  g_free (s->system);
  g_free (s->workload);
  g_free (s->generator);
  g_free (s->procs);
  g_free (s);
}

static PtStats *
stats_compute (const char *trace, const PtOptions *o, gboolean critical_path, PtiSorter *hops,
               GError **error)
{
  g_autoptr (PtiTraceReader) reader = pti_trace_reader_open (trace, error);
  if (reader == NULL)
    return NULL;
  const PtiTrHeader *h = pti_trace_reader_header (reader);
  g_autoptr (PtStats) st = g_new0 (PtStats, 1);
  st->path = g_strdup (trace);
  st->n = h->n_processes;
  st->procs = g_new0 (PtProcStats, MAX (st->n, 1));
  st->system = g_strdup (h->system_name);
  st->workload = g_strdup (h->workload_name);
  st->generator = g_strdup (h->generator ? h->generator : "");
  g_autoptr (PtMsgJoin) join = critical_path ? pt_msgjoin_new (trace, o->memory / 2) : NULL;
  guint64 seq = 0;
  PtiTrItem item;
  GError *local = NULL;
  while (pti_trace_reader_next (reader, &item, &local)) {
    if (item.type == PTI_TR_ITEM_RECORD) {
      st->records++;
      continue;
    }
    if (item.type == PTI_TR_ITEM_DERIVED) {
      const PtiTrDerived *d = &item.derived;
      PtProcStats *p = &st->procs[d->rank];
      p->derived += d->end - d->start;
      p->derived_events += d->events;
      p->end = MAX (p->end, d->end);
      continue;
    }
    if (item.type == PTI_TR_ITEM_COLLECTIVE) {
      const PtiTrCollective *c = &item.collective;
      if (!c->begin) {
        st->procs[c->rank].collective += c->time - c->begin_time;
        st->procs[c->rank].calls++;
      }
      continue;
    }
    if (item.type != PTI_TR_ITEM_EVENT)
      continue;
    const PtiTrEvent *e = &item.event;
    PtProcStats *p = &st->procs[e->rank];
    guint64 busy = e->end - e->start - e->wait;
    PtTimeKind k = e->kind == PTI_TRACE_COMPUTE ? PT_COMPUTE
                 : PTI_TRACE_KIND_IS_SENDER (e->kind) ? PT_SEND
                 : PTI_TRACE_KIND_IS_MESSAGE (e->kind) ? PT_RECV : PT_COMPLETE;
    p->t[k] += e->kind == PTI_TRACE_COMPUTE ? e->end - e->start : busy;
    p->count[k]++;
    p->count[PT_WAIT] += e->wait > 0;
    for (guint i = 0; i < e->n_done; i++) {
      if (PTI_TRACE_KIND_IS_SENDER (e->done[i].kind)) {
        p->sent++;
        p->sent_bytes += e->done[i].bytes;
      } else {
        p->received++;
        p->received_bytes += e->done[i].bytes;
      }
    }
    p->t[PT_WAIT] += e->wait;
    p->end = MAX (p->end, e->end);
    p->events++;
    if (join != NULL && !pt_msgjoin_add (join, &item, &seq, &local))
      break;
  }
  if (local != NULL) {
    g_propagate_error (error, local);
    return NULL;
  }
  const PtiTrSummary *sum = pti_trace_reader_summary (reader);
  st->predicted = sum->predicted;
  for (guint r = 0; r < st->n; r++) {
    PtProcStats *p = &st->procs[r];
    for (guint k = 0; k < PT_N_TIMES; k++) {
      st->total.t[k] += p->t[k];
      st->total.count[k] += p->count[k];
    }
    st->total.end = MAX (st->total.end, p->end);
    st->total.events += p->events;
    st->total.sent += p->sent;
    st->total.sent_bytes += p->sent_bytes;
    st->total.received += p->received;
    st->total.received_bytes += p->received_bytes;
    st->total.derived += p->derived;
    st->total.derived_events += p->derived_events;
    st->total.collective += p->collective;
    st->total.calls += p->calls;
    /* The engine's totals, each rounded once; without them (a summary
     * lacking the process), the events' sums. */
    const PtiTrProcSummary *ps = &sum->procs[r];
    p->engine[PT_ENGINE_COMPUTE] = ps->present ? ps->compute : p->t[PT_COMPUTE];
    p->engine[PT_ENGINE_COMM] = ps->present ? ps->comm
                                            : p->t[PT_SEND] + p->t[PT_RECV] + p->t[PT_COMPLETE];
    p->engine[PT_ENGINE_WAIT] = ps->present ? ps->wait : p->t[PT_WAIT];
    for (guint k = 0; k < PT_N_ENGINE; k++)
      st->total.engine[k] += p->engine[k];
  }
  st->messages = st->total.sent;
  if (join != NULL) {
    g_autoptr (PtiSorter) edges = pti_sorter_new (sizeof (Edge), cmp_edge, o->memory / 2);
    EdgeCtx ctx = { edges, 0 };
    if (!pt_msgjoin_run (join, on_message, &ctx, error))
      return NULL;
    g_clear_pointer (&join, pt_msgjoin_free);
    if (!pti_sorter_finish (edges, error) || !walk (st, edges, hops, error))
      return NULL;
    for (guint r = 0; r < st->n; r++)
      st->total.path += st->procs[r].path;
  }
  return g_steal_pointer (&st);
}

PtStats *
pt_stats_compute (const char *trace, const PtOptions *o, gboolean critical_path, GError **error)
{
  return stats_compute (trace, o, critical_path, NULL, error);
}

/* ------------------------------------------------------------------------ */

/* a - b, or 0 (sums of rounded times may pass the engine's total by a ns). */
static guint64
minus (guint64 a, guint64 b)
{
  return a > b ? a - b : 0;
}

static const char *
pct (char buf[32], guint64 part, double whole)
{
  if (whole <= 0)
    return "-";
  g_snprintf (buf, 32, "%.1f%%", 100.0 * (double) part / whole);
  return buf;
}

int
pt_summary (const char *trace, const PtOptions *o, GError **error)
{
  g_autoptr (PtiSorter) hops = o->path ? pti_sorter_new (sizeof (Hop), NULL, o->memory / 4) : NULL;
  g_autoptr (PtStats) st = stats_compute (trace, o, TRUE, hops, error);
  if (st == NULL)
    return pt_exit_code (*error);
  char a[PT_SECONDS_LEN], b[PT_SECONDS_LEN], c[PT_SECONDS_LEN], d[PT_SECONDS_LEN],
    e[PT_SECONDS_LEN], f[PT_SECONDS_LEN], g[PT_SECONDS_LEN], p1[32];
  g_autoptr (PtiTraceReader) reader = pti_trace_reader_open (trace, error);
  if (reader == NULL)
    return pt_exit_code (*error);
  const PtiTrHeader *h = pti_trace_reader_header (reader);
  printf ("trace:     %s (%s)\n", trace, h->generator ? h->generator : "");
  printf ("workload:  %s%s%s%s\n", h->workload_name, h->workload_file ? " (" : "",
          h->workload_file ? h->workload_file : "", h->workload_file ? ")" : "");
  if (h->n_params > 0) {
    printf ("parameters:");
    for (guint i = 0; i < h->n_params; i++)
      printf (" %s=%s", h->params[i].name, h->params[i].value);
    printf ("\n");
  }
  printf ("system:    %s (%s)\n", h->system_name, h->system_file);
  printf ("models:   ");
  for (guint i = 0; i < h->n_models; i++)
    printf (" %s (%s)%s", h->models[i].name, h->models[i].owner, i + 1 < h->n_models ? "," : "");
  printf ("\n");
  const PtProcStats *t = &st->total;
  g_autofree char *derived = t->derived_events > 0
    ? g_strdup_printf (" in the trace and %" G_GUINT64_FORMAT " derived", t->derived_events)
    : g_strdup ("");
  printf ("predicted: %s s; %u processes, %" G_GUINT64_FORMAT " events%s, %" G_GUINT64_FORMAT
          " messages, %" G_GUINT64_FORMAT " model records\n\n", pt_seconds (a, st->predicted),
          st->n, st->total.events, derived, st->messages, st->records);

  printf ("%6s %15s %15s %15s %15s %15s %15s %15s %9s %14s %9s %14s\n", "rank", "end (s)",
          "compute (s)", "send (s)", "recv (s)", "complete (s)", "wait (s)", "derived (s)",
          "sent", "bytes sent", "received", "bytes received");
  for (guint r = 0; r <= st->n; r++) {
    const PtProcStats *p = r < st->n ? &st->procs[r] : t;
    char rank[16];
    g_snprintf (rank, sizeof rank, r < st->n ? "%u" : "all", r);
    printf ("%6s %15s %15s %15s %15s %15s %15s %15s %9" G_GUINT64_FORMAT " %14" G_GUINT64_FORMAT
            " %9" G_GUINT64_FORMAT " %14" G_GUINT64_FORMAT "\n", rank, pt_seconds (a, p->end),
            pt_seconds (b, p->t[PT_COMPUTE]), pt_seconds (c, p->t[PT_SEND]),
            pt_seconds (d, p->t[PT_RECV]), pt_seconds (e, p->t[PT_COMPLETE]),
            pt_seconds (f, p->t[PT_WAIT]), pt_seconds (g, p->derived), p->sent, p->sent_bytes,
            p->received, p->received_bytes);
  }
  double whole = (double) st->n * (double) st->predicted;
  printf ("%6s %15s", "share", "");
  for (guint k = 0; k < PT_N_TIMES; k++)
    printf (" %15s", pct (p1, t->t[k], whole));
  printf (" %15s   (of %u x predicted time)\n", pct (p1, t->derived, whole), st->n);
  if (t->derived_events > 0)
    printf ("derived: analytical repetition derived %s s of the processes' time (%" G_GUINT64_FORMAT
            " events, not in the trace): compute %s s, comm %s s, wait %s s in the totals of the "
            "trace's summary\n", pt_seconds (a, t->derived), t->derived_events,
            pt_seconds (b, minus (t->engine[PT_ENGINE_COMPUTE], t->t[PT_COMPUTE])),
            pt_seconds (c, minus (t->engine[PT_ENGINE_COMM],
                                  t->t[PT_SEND] + t->t[PT_RECV] + t->t[PT_COMPLETE])),
            pt_seconds (d, minus (t->engine[PT_ENGINE_WAIT], t->t[PT_WAIT])));
  if (t->calls > 0)
    printf ("collectives: %" G_GUINT64_FORMAT " calls on the processes, %s s inside them (%s of "
            "the processes' time)\n", t->calls, pt_seconds (a, t->collective),
            pct (p1, t->collective, whole));
  printf ("\n");

  printf ("critical path: walked back from rank %u (ends at %s s) through %" G_GUINT64_FORMAT
          " waited message%s; %s s on processes, %s s of messages in flight\n", st->last_rank,
          pt_seconds (a, st->procs[st->n ? st->last_rank : 0].end), st->hops,
          st->hops == 1 ? "" : "s", pt_seconds (b, st->total.path), pt_seconds (c, st->path_flight));
  printf ("%6s %15s %8s\n", "rank", "on path (s)", "share");
  GString *ranks = g_string_new (NULL);
  for (guint r = 0; r < st->n; r++) {
    if (st->procs[r].path == 0)
      continue;
    printf ("%6u %15s %8s\n", r, pt_seconds (a, st->procs[r].path),
            pct (p1, st->procs[r].path, (double) st->procs[st->last_rank].end));
    g_string_append_printf (ranks, " %u", r);
  }
  printf ("processes on the critical path:%s\n", ranks->len ? ranks->str : " none");
  g_string_free (ranks, TRUE);

  if (hops != NULL) {
    if (!pti_sorter_finish (hops, error))
      return pt_exit_code (*error);
    printf ("\ncritical path, hop by hop (forward in time):\n%6s %15s %15s   %s\n", "rank",
            "from (s)", "to (s)", "then");
    guint64 n = pti_sorter_count (hops);
    for (guint64 i = n; i-- > 0;) {
      Hop hop;
      if (!pti_sorter_get (hops, i, &hop, error))
        return pt_exit_code (*error);
      printf ("%6u %15s %15s", hop.rank, pt_seconds (a, hop.begin), pt_seconds (b, hop.end));
      if (i > 0) {
        Hop next;
        if (!pti_sorter_get (hops, i - 1, &next, error))
          return pt_exit_code (*error);
        printf ("   message to rank %u, arrives %s s", next.rank, pt_seconds (c, next.begin));
      }
      printf ("\n");
    }
  }
  return PT_EXIT_OK;
}

/* ------------------------------------------------------------------------ */

/* Rounding.  A trace holds times with nine fraction digits: a total of
 * the engine's (the trace's summary) is rounded once, a sum of event
 * durations once per time it adds (an event's busy part end - start -
 * wait, three).  Two predictions whose totals are equal can therefore
 * differ by up to the rounding of their sums, and a difference no larger
 * than that is no difference: it is shown as zero.  Bounds in ns: 1 per
 * engine total (per process; n for all), and 2 per event summed (1.5
 * rounded up), for each trace. */
#define PT_ROUNDING_EVENT 2

/* @b, or @a when they differ by no more than @tol ns. */
static guint64
within (guint64 a, guint64 b, guint64 tol)
{
  return (a > b ? a - b : b - a) <= tol ? a : b;
}

/* "+0.000001000" / "-1.500000000" */
static const char *
delta (char buf[PT_SECONDS_LEN + 1], guint64 a, guint64 b)
{
  char s[PT_SECONDS_LEN];
  g_snprintf (buf, PT_SECONDS_LEN + 1, "%c%s", b >= a ? '+' : '-',
              pt_seconds (s, b >= a ? b - a : a - b));
  return buf;
}

static const char *
change (char buf[32], guint64 a, guint64 b)
{
  if (a == 0)
    return b == 0 ? "0.0%" : "new";
  g_snprintf (buf, 32, "%+.2f%%", 100.0 * ((double) b - (double) a) / (double) a);
  return buf;
}

static void
count_row (const char *name, guint64 a, guint64 b)
{
  char c[32];
  gint64 d = (gint64) b - (gint64) a;
  printf ("%-18s %15" G_GUINT64_FORMAT " %15" G_GUINT64_FORMAT " %+16" G_GINT64_FORMAT " %9s\n",
          name, a, b, d, change (c, a, b));
}

static void
time_row (const char *name, guint64 a, guint64 b, guint64 tol)
{
  char s1[PT_SECONDS_LEN], s2[PT_SECONDS_LEN], s3[PT_SECONDS_LEN + 1], c[32];
  guint64 bb = within (a, b, tol);
  printf ("%-18s %15s %15s %16s %9s\n", name, pt_seconds (s1, a), pt_seconds (s2, b),
          delta (s3, a, bb), change (c, a, bb));
}

/* The per-process figures the diff compares, each with its rounding bound
 * (ns) for the two traces together. */
typedef enum { D_COMPUTE, D_COMM, D_SEND, D_RECV, D_COMPLETE, D_WAIT, D_DERIVED, D_N } DiffKind;
static const char *const diff_names[D_N] = {
  "compute", "comm", "  send", "  recv", "  complete", "wait", "derived",
};

static guint64
diff_value (const PtProcStats *p, DiffKind k)
{
  switch (k) {
  case D_COMPUTE: return p->engine[PT_ENGINE_COMPUTE];
  case D_COMM: return p->engine[PT_ENGINE_COMM];
  case D_SEND: return p->t[PT_SEND];
  case D_RECV: return p->t[PT_RECV];
  case D_COMPLETE: return p->t[PT_COMPLETE];
  case D_WAIT: return p->engine[PT_ENGINE_WAIT];
  default: return p->derived;
  }
}

static guint64
diff_tolerance (const PtProcStats *a, const PtProcStats *b, DiffKind k, guint64 procs)
{
  switch (k) {
  case D_SEND: return PT_ROUNDING_EVENT * (a->count[PT_SEND] + b->count[PT_SEND]);
  case D_RECV: return PT_ROUNDING_EVENT * (a->count[PT_RECV] + b->count[PT_RECV]);
  case D_COMPLETE: return PT_ROUNDING_EVENT * (a->count[PT_COMPLETE] + b->count[PT_COMPLETE]);
  default: return procs;   /* engine totals and span ends: rounded once per process */
  }
}

int
pt_diff (const char *pa, const char *pb, const PtOptions *o, GError **error)
{
  g_autoptr (PtStats) A = pt_stats_compute (pa, o, FALSE, error);
  if (A == NULL)
    return pt_exit_code (*error);
  g_autoptr (PtStats) B = pt_stats_compute (pb, o, FALSE, error);
  if (B == NULL)
    return pt_exit_code (*error);
  char s1[PT_SECONDS_LEN], s2[PT_SECONDS_LEN], s3[PT_SECONDS_LEN + 1], c[32];
  printf ("A: %s (%s on %s, %u processes, predicted %s s)\n", A->path, A->workload, A->system,
          A->n, pt_seconds (s1, A->predicted));
  printf ("B: %s (%s on %s, %u processes, predicted %s s)\n\n", B->path, B->workload, B->system,
          B->n, pt_seconds (s1, B->predicted));
  printf ("%-18s %15s %15s %16s %9s\n", "total", "A (s)", "B (s)", "B - A (s)", "change");
  time_row ("predicted time", A->predicted, B->predicted, 1);
  for (guint k = 0; k < D_N; k++) {
    g_autofree char *name = g_strdup_printf ("%s (all)", diff_names[k]);
    time_row (name, diff_value (&A->total, k), diff_value (&B->total, k),
              diff_tolerance (&A->total, &B->total, k, MAX (A->n, B->n)));
  }
  printf ("(compute, comm and wait: the engine's totals; send, recv and complete: the trace's "
          "events, whose sums\n differ from the totals by their rounding to 1 ns: differences "
          "within it are shown as 0)\n");
  printf ("\n%-18s %15s %15s %16s %9s\n", "count", "A", "B", "B - A", "change");
  count_row ("events", A->total.events, B->total.events);
  count_row ("derived events", A->total.derived_events, B->total.derived_events);
  count_row ("messages", A->messages, B->messages);
  count_row ("bytes sent", A->total.sent_bytes, B->total.sent_bytes);
  count_row ("collective calls", A->total.calls, B->total.calls);
  count_row ("model records", A->records, B->records);

  guint n = MIN (A->n, B->n);
  if (A->n != B->n)
    printf ("\nA has %u processes and B %u: ranks 0..%u compared below\n", A->n, B->n,
            n ? n - 1 : 0);
  printf ("\nper process: end in A and B, then B - A per kind (s)\n");
  printf ("%6s %15s %15s %16s", "rank", "end A", "end B", "end B - A");
  for (guint k = 0; k < D_N; k++)
    printf (" %16s", diff_names[k] + strspn (diff_names[k], " "));
  printf ("\n");
  for (guint r = 0; r < n; r++) {
    const PtProcStats *a = &A->procs[r], *b = &B->procs[r];
    printf ("%6u %15s %15s %16s", r, pt_seconds (s1, a->end), pt_seconds (s2, b->end),
            delta (s3, a->end, within (a->end, b->end, 1)));
    for (guint k = 0; k < D_N; k++) {
      guint64 va = diff_value (a, k), vb = within (va, diff_value (b, k),
                                                   diff_tolerance (a, b, k, 1));
      printf (" %16s", delta (s3, va, vb));
    }
    printf ("\n");
  }
  printf ("\nper process and kind, relative change (B - A) / A\n%6s", "rank");
  for (guint k = 0; k < D_N; k++)
    printf (" %10s", diff_names[k] + strspn (diff_names[k], " "));
  printf (" %10s\n", "end");
  for (guint r = 0; r < n; r++) {
    const PtProcStats *a = &A->procs[r], *b = &B->procs[r];
    printf ("%6u", r);
    for (guint k = 0; k < D_N; k++) {
      guint64 va = diff_value (a, k), vb = within (va, diff_value (b, k),
                                                   diff_tolerance (a, b, k, 1));
      printf (" %10s", change (c, va, vb));
    }
    printf (" %10s\n", change (c, a->end, within (a->end, b->end, 1)));
  }
  return PT_EXIT_OK;
}
