/* ptitrace chrome: Chrome trace-event JSON (the "JSON Object Format" that
 * Perfetto and chrome://tracing open).
 *
 * One pass: viewers sort events themselves, so each event becomes a JSON
 * object at once.  A process is a track: pid = tid = rank, named "rank N"
 * with its processor as the thread name.  An event is a complete ("X")
 * slice; the part blocked on a peer is a nested slice of category "blocked".
 * Model records are counters ("C") on the process's track, or on an extra
 * "model records" process when outside any process group; their name fields
 * (links) become the counter's id, one series per name.  A message is a
 * flow, "s" then "f" binding to the enclosing slices (flow ends must not
 * precede their starts, so both ends are needed): the ends go to the
 * external message sorter and the flows are written after the events, from
 * the physical send (the data entered the network) to the physical receive
 * (it had arrived), the times Paraver's communication record has.  A
 * collective call is a slice ("collective") around its messages on each
 * rank, a span analytical repetition derived a slice "derived".  Memory:
 * the sorter's budget.  Times are microseconds with three decimals (exact
 * nanoseconds). */
#include "pti-config.h"
#include "commands.h"

#include <string.h>

typedef struct {
  PtiTraceReader *reader;
  const PtiTrHeader *h;
  FILE *fp;
  GString *s;
  gboolean pseudo;
  PtMsgJoin *join;
  guint64 seq;
  PtFields *fields;     /* record fields: numbers or names */
  GString *args, *id;   /* of the record being written */
} Chrome;

static void
emit (Chrome *c)
{
  /* Every event line but the first starts with ",\n". */
  fwrite (c->s->str, 1, c->s->len, c->fp);
  g_string_truncate (c->s, 0);
  g_string_append (c->s, ",\n");
}

static void
ts_field (GString *s, const char *name, guint64 ns)
{
  g_string_append (s, ",\"");
  g_string_append (s, name);
  g_string_append (s, "\":");
  pt_gs_micros (s, ns);
}

/* ,"pid":P,"tid":P */
static void
pid_tid (GString *s, guint pid)
{
  g_string_append (s, ",\"pid\":");
  pt_gs_u64 (s, pid);
  g_string_append (s, ",\"tid\":");
  pt_gs_u64 (s, pid);
}

/* {"name":NAME,"cat":CAT,"ph":"X",... from @t0 to @t1, "args":{ */
static void
slice_open (GString *s, const char *name, const char *cat, guint rank, guint64 t0, guint64 t1)
{
  g_string_append (s, "{\"name\":");
  pt_json_string (s, name);
  g_string_append (s, ",\"cat\":");
  pt_json_string (s, cat);
  g_string_append (s, ",\"ph\":\"X\"");
  pid_tid (s, rank);
  ts_field (s, "ts", t0);
  ts_field (s, "dur", t1 - t0);
  g_string_append (s, ",\"args\":{");
}

static gboolean
on_event (Chrome *c, const PtiTrItem *item, GError **error)
{
  const PtiTrEvent *e = &item->event;
  GString *s = c->s;
  slice_open (s, e->kind == PTI_TRACE_COMPUTE && e->rud ? e->rud : pti_trace_kind_name (e->kind),
              e->kind == PTI_TRACE_COMPUTE ? "compute" : "mpi", e->rank, e->start, e->end);
  g_string_append (s, "\"kind\":");
  pt_json_string (s, pti_trace_kind_name (e->kind));
  g_string_append (s, ",\"model\":");
  pt_json_string (s, e->model);
  g_string_append (s, ",\"device\":");
  pt_json_string (s, e->device);
  if (e->rud) {
    g_string_append (s, ",\"rud\":");
    pt_json_string (s, e->rud);
  }
  if (PTI_TRACE_KIND_IS_POSTING (e->kind)) {
    g_string_append (s, ",\"request\":");
    pt_gs_u64 (s, e->request);
    g_string_append (s, ",\"peer\":");
    if (e->any_peer)
      g_string_append (s, "\"any\"");
    else
      pt_gs_u64 (s, e->peer);
    g_string_append (s, ",\"tag\":");
    if (e->any_tag)
      g_string_append (s, "\"any\"");
    else
      pt_gs_i64 (s, e->tag);
    g_string_append (s, ",\"bytes\":");
    pt_gs_u64 (s, e->bytes);
    if (e->kind == PTI_TRACE_ISEND) {
      g_string_append (s, ",\"msg\":");
      pt_gs_u64 (s, e->msg);
    }
  }
  /* What a blocking event's message or a wait's requests turned out to be. */
  if (e->n_done > 0)
    g_string_append (s, PTI_TRACE_KIND_IS_WAIT (e->kind) ? ",\"completed\":[" : ",\"message\":");
  for (guint i = 0; i < e->n_done; i++) {
    const PtiTrCompletion *d = &e->done[i];
    g_string_append (s, i > 0 ? ",{" : "{");
    if (PTI_TRACE_KIND_IS_POSTING (d->kind)) {
      g_string_append (s, "\"request\":");
      pt_gs_u64 (s, d->request);
      g_string_append (s, ",\"kind\":");
      pt_json_string (s, pti_trace_kind_name (d->kind));
      g_string_append_c (s, ',');
    }
    g_string_append (s, "\"msg\":");
    pt_gs_u64 (s, d->msg);
    g_string_append (s, ",\"peer\":");
    pt_gs_u64 (s, d->peer);
    g_string_append (s, ",\"tag\":");
    pt_gs_i64 (s, d->tag);
    g_string_append (s, ",\"bytes\":");
    pt_gs_u64 (s, d->bytes);
    g_string_append (s, d->rendezvous ? ",\"protocol\":\"rendezvous\"" : ",\"protocol\":\"eager\"");
    g_string_append (s, ",\"posted_s\":");
    pt_gs_seconds (s, d->posted);
    g_string_append (s, ",\"injected_s\":");
    pt_gs_seconds (s, d->injected);
    g_string_append (s, PTI_TRACE_KIND_IS_SENDER (d->kind) ? ",\"left_s\":" : ",\"arrived_s\":");
    pt_gs_seconds (s, d->done);
    g_string_append_c (s, '}');
  }
  if (PTI_TRACE_KIND_IS_WAIT (e->kind) && e->n_done > 0)
    g_string_append_c (s, ']');
  if (PTI_TRACE_KIND_IS_BLOCKING (e->kind) || PTI_TRACE_KIND_IS_WAIT (e->kind)) {
    g_string_append (s, ",\"wait_s\":");
    pt_gs_seconds (s, e->wait);
  }
  g_string_append (s, "}}");
  emit (c);

  if (e->wait > 0) {
    g_string_append (s, "{\"name\":\"blocked\",\"cat\":\"blocked\",\"ph\":\"X\"");
    pid_tid (s, e->rank);
    ts_field (s, "ts", e->start);
    ts_field (s, "dur", e->wait);
    g_string_append (s, "}");
    emit (c);
  }
  return pt_msgjoin_add (c->join, item, &c->seq, error);
}

/* A collective call: a slice of its own around its messages, at its end. */
static void
on_collective (Chrome *c, const PtiTrItem *item)
{
  const PtiTrCollective *cl = &item->collective;
  if (cl->begin)
    return;
  GString *s = c->s;
  slice_open (s, pti_trace_call_name (cl->call), "collective", cl->rank, cl->begin_time, cl->time);
  g_string_append (s, "\"comm\":");
  pt_gs_u64 (s, cl->comm);
  if (cl->has_root) {
    g_string_append (s, ",\"root\":");
    pt_gs_u64 (s, cl->root);
  }
  g_string_append (s, ",\"bytes\":");
  pt_gs_u64 (s, cl->bytes);
  g_string_append (s, "}}");
  emit (c);
}

/* A derived span: a slice of its own (its events are not in the trace). */
static void
on_derived (Chrome *c, const PtiTrItem *item)
{
  const PtiTrDerived *d = &item->derived;
  GString *s = c->s;
  slice_open (s, "derived", "derived", d->rank, d->start, d->end);
  g_string_append (s, "\"repetitions\":");
  pt_gs_u64 (s, d->repetitions);
  g_string_append (s, ",\"events\":");
  pt_gs_u64 (s, d->events);
  g_string_append (s, ",\"compute_s\":");
  pt_gs_seconds (s, d->compute);
  g_string_append (s, ",\"comm_s\":");
  pt_gs_seconds (s, d->comm);
  g_string_append (s, ",\"wait_s\":");
  pt_gs_seconds (s, d->wait);
  g_string_append (s, "}}");
  emit (c);
}

static gboolean
on_message (const PtMessage *m, gpointer data, GError **error)
{
  Chrome *c = data;
  GString *s = c->s;
  const PtMsgEnd *snd = &m->send, *rcv = &m->recv;
  /* From when the data entered the network to when it had arrived. */
  guint64 ts_s = pt_msg_psend (m), ts_f = pt_msg_precv (m);
  for (int end = 0; end < 2; end++) {
    const PtMsgEnd *me = end ? rcv : snd;
    g_string_append (s, end ? "{\"name\":\"message\",\"cat\":\"mpi\",\"ph\":\"f\",\"bp\":\"e\",\"id\":"
                            : "{\"name\":\"message\",\"cat\":\"mpi\",\"ph\":\"s\",\"bp\":\"e\",\"id\":");
    pt_gs_u64 (s, snd->msg);
    pid_tid (s, me->rank);
    ts_field (s, "ts", end ? ts_f : ts_s);
    g_string_append (s, "}");
    emit (c);
  }
  return TRUE;
}

static gboolean
on_record (Chrome *c, const PtiTrItem *item, GError **error)
{
  const PtiTrRecord *rec = &item->record;
  const PtiTrRecordType *t = &c->h->records[rec->type];
  GString *s = c->s;
  guint pid = rec->in_process ? rec->rank : c->h->n_processes;
  if (!rec->in_process)
    c->pseudo = TRUE;
  /* Counter values must be numbers; name fields (a link) say which series
   * the record belongs to, through the counter's id ("link=h3:up"), which
   * viewers join to the name: one counter track per link. */
  GString *args = c->args, *id = c->id;
  g_string_truncate (args, 0);
  g_string_truncate (id, 0);
  for (guint f = 0; f < t->n_fields; f++) {
    if ((int) f == t->time_field)
      continue;
    PtFieldKind kind = pt_fields_get (c->fields, item, f, NULL, NULL, error);
    if (kind == PT_FIELD_UNKNOWN)
      return FALSE;
    if (kind == PT_FIELD_NAME) {
      if (id->len > 0)
        g_string_append_c (id, ' ');
      g_string_append (id, t->fields[f]);
      g_string_append_c (id, '=');
      g_string_append (id, rec->values[f]);
      continue;
    }
    if (args->len > 0)
      g_string_append_c (args, ',');
    pt_json_string (args, t->fields[f]);
    g_string_append_c (args, ':');
    pt_number_text (rec->values[f], args);
  }
  g_string_append (s, "{\"name\":");
  pt_json_string (s, t->name);
  g_string_append (s, ",\"cat\":");
  pt_json_string (s, t->model);
  g_string_append (s, ",\"ph\":\"C\"");
  if (id->len > 0) {
    g_string_append (s, ",\"id\":");
    pt_json_string (s, id->str);
  }
  pid_tid (s, pid);
  ts_field (s, "ts", rec->time);
  g_string_append (s, ",\"args\":{");
  g_string_append (s, args->len > 0 ? args->str : "\"count\":1");
  g_string_append (s, "}}");
  emit (c);
  return TRUE;
}

static void
metadata (Chrome *c, guint pid, const char *process, const char *thread)
{
  GString *s = c->s;
  g_string_append_printf (s, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,"
                          "\"args\":{\"name\":", pid, pid);
  pt_json_string (s, process);
  g_string_append (s, "}}");
  emit (c);
  g_string_append_printf (s, "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":%u,"
                          "\"tid\":%u,\"args\":{\"sort_index\":%u}}", pid, pid, pid);
  emit (c);
  g_string_append_printf (s, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,"
                          "\"args\":{\"name\":", pid, pid);
  pt_json_string (s, thread);
  g_string_append (s, "}}");
  emit (c);
}

int
pt_chrome (const char *trace, const PtOptions *o, GError **error)
{
  g_autoptr (PtiTraceReader) reader = pti_trace_reader_open (trace, error);
  if (reader == NULL)
    return pt_exit_code (*error);
  const PtiTrHeader *h = pti_trace_reader_header (reader);
  g_autoptr (PtOut) out = pt_out_open (o->output, error);
  if (out == NULL)
    return PT_EXIT_FAILED;
  g_autoptr (PtMsgJoin) join = pt_msgjoin_new (trace, o->memory);
  g_autoptr (PtFields) fields = pt_fields_new (reader, FALSE);
  Chrome c = { reader, h, out->fp, g_string_new (NULL), FALSE, join, 0, fields,
               g_string_new (NULL), g_string_new (NULL) };
  GString *s = c.s;
  g_string_append (s, "{\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"converter\":\"ptitrace (pti "
                   PTI_VERSION ")\",\"generator\":");
  pt_json_string (s, h->generator ? h->generator : "");
  g_string_append (s, ",\"system\":");
  pt_json_string (s, h->system_name);
  g_string_append (s, ",\"workload\":");
  pt_json_string (s, h->workload_name);
  for (guint i = 0; i < h->n_params; i++) {
    g_autofree char *k = g_strdup_printf ("parameter %s", h->params[i].name);
    g_string_append_c (s, ',');
    pt_json_string (s, k);
    g_string_append_c (s, ':');
    pt_json_string (s, h->params[i].value);
  }
  g_string_append (s, ",\"time unit\":\"microseconds\"},\n\"traceEvents\":[\n");
  fwrite (s->str, 1, s->len, c.fp);
  g_string_truncate (s, 0);
  for (guint r = 0; r < h->n_processes; r++) {
    g_autofree char *name = g_strdup_printf ("rank %u", r);
    metadata (&c, r, name, h->processors[r]);
  }
  PtiTrItem item;
  GError *local = NULL;
  while (pti_trace_reader_next (reader, &item, &local)) {
    if (item.type == PTI_TR_ITEM_EVENT) {
      if (!on_event (&c, &item, &local))
        break;
    } else if (item.type == PTI_TR_ITEM_RECORD) {
      if (!on_record (&c, &item, &local))
        break;
    } else if (item.type == PTI_TR_ITEM_COLLECTIVE) {
      on_collective (&c, &item);
    } else if (item.type == PTI_TR_ITEM_DERIVED) {
      on_derived (&c, &item);
    }
  }
  if (local == NULL)
    pt_msgjoin_run (join, on_message, &c, &local);
  if (local == NULL) {
    if (c.pseudo)
      metadata (&c, h->n_processes, "model records", "no process");
    const PtiTrSummary *sum = pti_trace_reader_summary (reader);
    char b[PT_SECONDS_LEN];
    g_string_append (s, "{\"name\":\"end\",\"cat\":\"summary\",\"ph\":\"i\",\"s\":\"g\",\"pid\":0,"
                     "\"tid\":0");
    ts_field (s, "ts", sum->predicted);
    g_string_append_printf (s, ",\"args\":{\"predicted_time_s\":%s,\"events\":%" G_GUINT64_FORMAT
                            "}}\n]}\n", pt_seconds (b, sum->predicted), sum->events);
    fwrite (s->str, 1, s->len, c.fp);
  }
  g_string_free (s, TRUE);
  g_string_free (c.args, TRUE);
  g_string_free (c.id, TRUE);
  if (local != NULL || !pt_out_commit (out, &local)) {
    g_propagate_error (error, local);
    return pt_exit_code (*error);
  }
  return PT_EXIT_OK;
}
