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
#include "ptitrace.h"

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

static gboolean
on_message (const PtMessage *m, gpointer data, GError **error)
{
  EdgeCtx *c = data;
  if (m->recv.wait > 0
      && !add_edge (c, m->recv.rank, m->recv.start + m->recv.wait, m->send.rank, pt_msg_psend (m),
                    error))
    return FALSE;
  if (m->send.wait > 0
      && !add_edge (c, m->send.rank, m->send.start + m->send.wait, m->recv.rank, m->recv.start,
                    error))
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
    if (item.type != PTI_TR_ITEM_EVENT)
      continue;
    const PtiTrEvent *e = &item.event;
    PtProcStats *p = &st->procs[e->rank];
    guint64 busy = e->end - e->start - e->wait;
    switch (e->kind) {
    case PTI_TR_COMPUTE:
      p->t[PT_COMPUTE] += e->end - e->start;
      break;
    case PTI_TR_SEND:
    case PTI_TR_ISEND:
      p->t[PT_SEND] += busy;
      p->sent++;
      p->sent_bytes += e->bytes;
      break;
    case PTI_TR_RECV:
    case PTI_TR_IRECV:
      p->t[PT_RECV] += busy;
      p->received++;
      p->received_bytes += e->bytes;
      break;
    default:
      p->t[PT_COMPLETE] += busy;
      break;
    }
    p->t[PT_WAIT] += e->wait;
    p->end = MAX (p->end, e->end);
    p->events++;
    if (join != NULL && PTI_TR_KIND_IS_MESSAGE (e->kind)
        && !pt_msgjoin_add (join, &item, seq++, &local))
      break;
  }
  if (local != NULL) {
    g_propagate_error (error, local);
    return NULL;
  }
  st->predicted = pti_trace_reader_summary (reader)->predicted;
  for (guint r = 0; r < st->n; r++) {
    PtProcStats *p = &st->procs[r];
    for (guint k = 0; k < PT_N_TIMES; k++)
      st->total.t[k] += p->t[k];
    st->total.end = MAX (st->total.end, p->end);
    st->total.events += p->events;
    st->total.sent += p->sent;
    st->total.sent_bytes += p->sent_bytes;
    st->total.received += p->received;
    st->total.received_bytes += p->received_bytes;
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
    e[PT_SECONDS_LEN], f[PT_SECONDS_LEN], p1[32];
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
  printf ("predicted: %s s; %u processes, %" G_GUINT64_FORMAT " events, %" G_GUINT64_FORMAT
          " messages, %" G_GUINT64_FORMAT " model records\n\n", pt_seconds (a, st->predicted),
          st->n, st->total.events, st->messages, st->records);

  printf ("%6s %15s %15s %15s %15s %15s %15s %9s %14s %9s %14s\n", "rank", "end (s)", "compute (s)",
          "send (s)", "recv (s)", "complete (s)", "wait (s)", "sent", "bytes sent", "received",
          "bytes received");
  for (guint r = 0; r < st->n; r++) {
    const PtProcStats *p = &st->procs[r];
    printf ("%6u %15s %15s %15s %15s %15s %15s %9" G_GUINT64_FORMAT " %14" G_GUINT64_FORMAT
            " %9" G_GUINT64_FORMAT " %14" G_GUINT64_FORMAT "\n", r, pt_seconds (a, p->end),
            pt_seconds (b, p->t[PT_COMPUTE]), pt_seconds (c, p->t[PT_SEND]),
            pt_seconds (d, p->t[PT_RECV]), pt_seconds (e, p->t[PT_COMPLETE]),
            pt_seconds (f, p->t[PT_WAIT]), p->sent, p->sent_bytes, p->received, p->received_bytes);
  }
  const PtProcStats *t = &st->total;
  printf ("%6s %15s %15s %15s %15s %15s %15s %9" G_GUINT64_FORMAT " %14" G_GUINT64_FORMAT
          " %9" G_GUINT64_FORMAT " %14" G_GUINT64_FORMAT "\n", "all", pt_seconds (a, t->end),
          pt_seconds (b, t->t[PT_COMPUTE]), pt_seconds (c, t->t[PT_SEND]),
          pt_seconds (d, t->t[PT_RECV]), pt_seconds (e, t->t[PT_COMPLETE]),
          pt_seconds (f, t->t[PT_WAIT]), t->sent, t->sent_bytes, t->received, t->received_bytes);
  double whole = (double) st->n * (double) st->predicted;
  printf ("%6s %15s", "share", "");
  for (guint k = 0; k < PT_N_TIMES; k++)
    printf (" %15s", pct (p1, t->t[k], whole));
  printf ("   (of %u x predicted time)\n\n", st->n);

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
  printf ("%-18s %15s %15s %16s %9s\n", "predicted time", pt_seconds (s1, A->predicted),
          pt_seconds (s2, B->predicted), delta (s3, A->predicted, B->predicted),
          change (c, A->predicted, B->predicted));
  for (guint k = 0; k < PT_N_TIMES; k++) {
    g_autofree char *name = g_strdup_printf ("%s (all)", pt_time_kind_names[k]);
    printf ("%-18s %15s %15s %16s %9s\n", name, pt_seconds (s1, A->total.t[k]),
            pt_seconds (s2, B->total.t[k]), delta (s3, A->total.t[k], B->total.t[k]),
            change (c, A->total.t[k], B->total.t[k]));
  }
  printf ("\n%-18s %15s %15s %16s %9s\n", "count", "A", "B", "B - A", "change");
  count_row ("events", A->total.events, B->total.events);
  count_row ("messages", A->messages, B->messages);
  count_row ("bytes sent", A->total.sent_bytes, B->total.sent_bytes);
  count_row ("model records", A->records, B->records);

  guint n = MIN (A->n, B->n);
  if (A->n != B->n)
    printf ("\nA has %u processes and B %u: ranks 0..%u compared below\n", A->n, B->n,
            n ? n - 1 : 0);
  printf ("\nper process: end in A and B, then B - A per kind (s)\n");
  printf ("%6s %15s %15s %16s", "rank", "end A", "end B", "end B - A");
  for (guint k = 0; k < PT_N_TIMES; k++)
    printf (" %16s", pt_time_kind_names[k]);
  printf ("\n");
  for (guint r = 0; r < n; r++) {
    const PtProcStats *a = &A->procs[r], *b = &B->procs[r];
    printf ("%6u %15s %15s %16s", r, pt_seconds (s1, a->end), pt_seconds (s2, b->end),
            delta (s3, a->end, b->end));
    for (guint k = 0; k < PT_N_TIMES; k++)
      printf (" %16s", delta (s3, a->t[k], b->t[k]));
    printf ("\n");
  }
  printf ("\nper process and kind, relative change (B - A) / A\n%6s", "rank");
  for (guint k = 0; k < PT_N_TIMES; k++)
    printf (" %10s", pt_time_kind_names[k]);
  printf (" %10s\n", "end");
  for (guint r = 0; r < n; r++) {
    const PtProcStats *a = &A->procs[r], *b = &B->procs[r];
    printf ("%6u", r);
    for (guint k = 0; k < PT_N_TIMES; k++)
      printf (" %10s", change (c, a->t[k], b->t[k]));
    printf (" %10s\n", change (c, a->end, b->end));
  }
  return PT_EXIT_OK;
}
