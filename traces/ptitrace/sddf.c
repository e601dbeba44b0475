/* ptitrace sddf: Pablo SDDF, ASCII flavour (shared/formats/sddf.md).
 *
 * Record descriptors come first, derived from the trace header: the fixed
 * PTI records of sddf.md section 9 and one per model record type declared in
 * header/records (so a new model's records need no code here); a field is a
 * double, or a char[] when it holds names (link names: known once the trace
 * is read, which is before the file is written).  Data records
 * follow in time order: each is formatted during the one pass over the trace
 * and pushed into an external sorter keyed by (time, processor, order in the
 * trace); a line longer than the sorter's fixed record goes to a spool file
 * and is fetched back when written.  Messages (both ends) are paired by a
 * second sorter keyed by message id.  Memory: the sorters' budgets
 * (--memory) plus O(processes + record types). */
#include "pti-config.h"
#include "commands.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#define INLINE_TEXT 136

typedef struct {
  guint64 time;
  guint32 proc;
  guint32 len;
  guint64 seq;
  guint64 spool_off;        /* when len > INLINE_TEXT */
  char text[INLINE_TEXT];
} SddfRec;

static int
cmp_sddf (const void *pa, const void *pb)
{
  const SddfRec *a = pa, *b = pb;
  if (a->time != b->time)
    return a->time < b->time ? -1 : 1;
  if (a->proc != b->proc)
    return a->proc < b->proc ? -1 : 1;
  return a->seq < b->seq ? -1 : a->seq > b->seq;
}

enum {
  TAG_COMPUTE = 1, TAG_SEND, TAG_RECV, TAG_WAIT, TAG_MESSAGE, TAG_REQUEST_WAIT, TAG_POST,
  TAG_COLLECTIVE, TAG_DERIVED,
  TAG_RECORD_BASE = 10,
};

/* The fixed descriptors' names: a model record type may not take one. */
static const char *const fixed_names[] = {
  "PTI Compute", "PTI Send", "PTI Receive", "PTI Wait", "PTI Message", "PTI Request Wait",
  "PTI Post", "PTI Collective", "PTI Derived",
};

typedef struct {
  PtiTraceReader *reader;
  const PtiTrHeader *h;
  PtiSorter *sorter;
  PtMsgJoin *join;
  PtFields *fields;         /* record fields: numbers (double) or names (char[]) */
  guint64 seq;
  guint64 messages;
  char **record_names;      /* SDDF names of the model record types */
  /* spool of long lines */
  int spool_fd;
  FILE *spool;
  guint64 spool_size;
  GString *line;
} Sddf;

/* SDDF strings cannot hold '"' or line breaks (no escapes exist). */
static void
append_string (GString *out, const char *s)
{
  g_string_append_c (out, '"');
  for (const char *c = s; *c; c++)
    g_string_append_c (out, *c == '"' ? '\'' : (*c == '\n' || *c == '\r' || *c == '\t') ? ' ' : *c);
  g_string_append_c (out, '"');
}

/* A char[] value: [strlen+1] { "text" }. */
static void
append_char_array (GString *out, const char *s)
{
  gsize len = strlen (s);
  g_string_append_c (out, '[');
  pt_gs_u64 (out, len + 1);
  g_string_append (out, "] { ");
  append_string (out, s);
  g_string_append (out, " }");
}

static void
append_seconds (GString *out, guint64 ns)
{
  pt_gs_seconds (out, ns);
}

/* ", V" */
static void
comma_u64 (GString *out, guint64 v)
{
  g_string_append (out, ", ");
  pt_gs_u64 (out, v);
}

static gboolean
push_line (Sddf *s, guint64 time, guint32 proc, GError **error)
{
  SddfRec r;
  memset (&r, 0, sizeof r);
  r.time = time;
  r.proc = proc;
  r.seq = s->seq++;
  r.len = (guint32) s->line->len;
  if (s->line->len <= INLINE_TEXT) {
    memcpy (r.text, s->line->str, s->line->len);
  } else {
    if (s->spool == NULL) {
      g_autofree char *name = NULL;
      s->spool_fd = g_file_open_tmp ("ptitrace-sddf-XXXXXX", &name, error);
      if (s->spool_fd < 0)
        return FALSE;
      g_unlink (name);
      s->spool = fdopen (s->spool_fd, "w+");
      if (s->spool == NULL) {
        g_set_error (error, PT_ERROR, PT_ERROR_FAILED, "temporary file: %s", g_strerror (errno));
        return FALSE;
      }
    }
    r.spool_off = s->spool_size;
    if (fwrite (s->line->str, 1, s->line->len, s->spool) != s->line->len) {
      g_set_error (error, PT_ERROR, PT_ERROR_FAILED, "writing a temporary file (in %s): %s",
                   g_get_tmp_dir (), g_strerror (errno));
      return FALSE;
    }
    s->spool_size += s->line->len;
  }
  return pti_sorter_add (s->sorter, &r, error);
}

/* ", -1" or ", V" */
static void
comma_or_any (GString *out, gboolean any, gint64 v)
{
  g_string_append (out, ", ");
  if (any)
    g_string_append (out, "-1");
  else
    pt_gs_i64 (out, v);
}

static gboolean
on_event (Sddf *s, const PtiTrItem *item, GError **error)
{
  const PtiTrEvent *e = &item->event;
  GString *l = s->line;
  g_string_truncate (l, 0);
  switch (e->kind) {
  case PTI_TRACE_COMPUTE:
    g_string_append (l, "\"PTI Compute\" { ");
    break;
  case PTI_TRACE_SEND:
    g_string_append (l, "\"PTI Send\" { ");
    break;
  case PTI_TRACE_RECV:
    g_string_append (l, "\"PTI Receive\" { ");
    break;
  case PTI_TRACE_ISEND:
  case PTI_TRACE_IRECV:
    g_string_append (l, "\"PTI Post\" { ");
    break;
  default:
    g_string_append (l, "\"PTI Request Wait\" { ");
    break;
  }
  append_seconds (l, e->start);
  g_string_append (l, ", ");
  append_seconds (l, e->end - e->start);
  comma_u64 (l, e->rank);
  if (e->kind == PTI_TRACE_COMPUTE) {
    g_string_append (l, ", ");
    append_char_array (l, e->rud ? e->rud : "");
  } else if (PTI_TRACE_KIND_IS_BLOCKING (e->kind)) {
    const PtiTrCompletion *c = e->done;
    comma_u64 (l, c->peer);
    g_string_append (l, ", ");
    pt_gs_i64 (l, c->tag);
    comma_u64 (l, c->bytes);
    g_string_append (l, ".0");
    comma_u64 (l, c->msg);
    g_string_append (l, ".0");
    comma_u64 (l, c->rendezvous ? 1 : 0);
  } else if (PTI_TRACE_KIND_IS_POSTING (e->kind)) {
    comma_u64 (l, e->kind == PTI_TRACE_IRECV);
    comma_u64 (l, e->request);
    g_string_append (l, ".0");
    comma_or_any (l, e->any_peer, e->peer);
    g_string_append (l, ", ");
    pt_gs_i64 (l, e->tag);
    comma_u64 (l, e->any_tag);
    comma_u64 (l, e->bytes);
    g_string_append (l, ".0");
    if (e->kind == PTI_TRACE_ISEND) {
      comma_u64 (l, e->msg);
      g_string_append (l, ".0");
    } else {
      g_string_append (l, ", -1.0");
    }
  } else {
    g_string_append (l, ", ");
    append_char_array (l, pti_trace_kind_name (e->kind));
    comma_u64 (l, e->n_done);
  }
  g_string_append (l, " };;");
  if (!push_line (s, e->start, e->rank, error))
    return FALSE;
  if (e->wait > 0) {
    g_string_truncate (l, 0);
    g_string_append (l, "\"PTI Wait\" { ");
    append_seconds (l, e->start);
    g_string_append (l, ", ");
    append_seconds (l, e->wait);
    comma_u64 (l, e->rank);
    g_string_append (l, " };;");
    if (!push_line (s, e->start, e->rank, error))
      return FALSE;
  }
  return pt_msgjoin_add (s->join, item, &s->seq, error);
}

/* A collective call, written at its end (from its begin). */
static gboolean
on_collective (Sddf *s, const PtiTrItem *item, GError **error)
{
  const PtiTrCollective *c = &item->collective;
  if (c->begin)
    return TRUE;
  GString *l = s->line;
  g_string_truncate (l, 0);
  g_string_append (l, "\"PTI Collective\" { ");
  append_seconds (l, c->begin_time);
  g_string_append (l, ", ");
  append_seconds (l, c->time - c->begin_time);
  comma_u64 (l, c->rank);
  g_string_append (l, ", ");
  append_char_array (l, pti_trace_call_name (c->call));
  comma_u64 (l, c->comm);
  comma_or_any (l, !c->has_root, c->root);
  comma_u64 (l, c->bytes);
  g_string_append (l, ".0 };;");
  return push_line (s, c->begin_time, c->rank, error);
}

static gboolean
on_derived (Sddf *s, const PtiTrItem *item, GError **error)
{
  const PtiTrDerived *d = &item->derived;
  GString *l = s->line;
  g_string_truncate (l, 0);
  g_string_append (l, "\"PTI Derived\" { ");
  append_seconds (l, d->start);
  g_string_append (l, ", ");
  append_seconds (l, d->end - d->start);
  comma_u64 (l, d->rank);
  comma_u64 (l, d->repetitions);
  g_string_append (l, ".0");
  comma_u64 (l, d->events);
  g_string_append (l, ".0");
  guint64 t[] = { d->compute, d->comm, d->wait };
  for (guint i = 0; i < G_N_ELEMENTS (t); i++) {
    g_string_append (l, ", ");
    append_seconds (l, t[i]);
  }
  g_string_append (l, " };;");
  return push_line (s, d->start, d->rank, error);
}

static gboolean
on_record (Sddf *s, const PtiTrItem *item, GError **error)
{
  const PtiTrRecord *rec = &item->record;
  const PtiTrRecordType *t = &s->h->records[rec->type];
  GString *l = s->line;
  g_string_truncate (l, 0);
  append_string (l, s->record_names[rec->type]);
  g_string_append (l, " { ");
  append_seconds (l, rec->time);
  if (rec->in_process)
    comma_u64 (l, rec->rank);
  else
    g_string_append (l, ", -1");
  for (guint f = 0; f < t->n_fields; f++) {
    if ((int) f == t->time_field)
      continue;
    g_string_append (l, ", ");
    PtFieldKind kind = pt_fields_get (s->fields, item, f, NULL, NULL, error);
    if (kind == PT_FIELD_UNKNOWN)
      return FALSE;
    if (kind == PT_FIELD_NAME)
      append_char_array (l, rec->values[f]);
    else
      pt_number_text (rec->values[f], l);
  }
  g_string_append (l, " };;");
  return push_line (s, rec->time, rec->in_process ? rec->rank : G_MAXUINT32, error);
}

static gboolean
on_message (const PtMessage *m, gpointer data, GError **error)
{
  Sddf *s = data;
  GString *l = s->line;
  g_string_truncate (l, 0);
  g_string_append (l, "\"PTI Message\" { ");
  guint64 times[] = { pt_msg_lsend (m), pt_msg_psend (m), pt_msg_lrecv (m), pt_msg_precv (m) };
  for (guint i = 0; i < G_N_ELEMENTS (times); i++) {
    if (i > 0)
      g_string_append (l, ", ");
    append_seconds (l, times[i]);
  }
  comma_u64 (l, m->send.rank);
  comma_u64 (l, m->recv.rank);
  g_string_append (l, ", ");
  pt_gs_i64 (l, m->send.tag);
  comma_u64 (l, m->send.bytes);
  g_string_append (l, ".0");
  comma_u64 (l, m->send.msg);
  g_string_append (l, ".0");
  comma_or_any (l, m->send.kind != PTI_TRACE_ISEND, (gint64) m->send.request);
  g_string_append (l, ".0");
  comma_or_any (l, m->recv.kind != PTI_TRACE_IRECV, (gint64) m->recv.request);
  g_string_append (l, ".0 };;");
  s->messages++;
  /* Ordered with the sender's records, at its send's start. */
  return push_line (s, pt_msg_lsend (m), m->send.rank, error);
}

/* ------------------------------------------------------------------------ */

static void
field (FILE *fp, const char *type, const char *name, const char *key, const char *value)
{
  if (key != NULL)
    fprintf (fp, "\t// \"%s\" \"%s\"\n", key, value);
  fprintf (fp, "\t%s\t\"%s\"%s;\n", type, name, strcmp (type, "char") == 0 ? "[]" : "");
}

static void
descriptor_start (FILE *fp, int tag, const char *name, const char *description)
{
  GString *d = g_string_new (NULL);
  append_string (d, description);
  GString *n = g_string_new (NULL);
  append_string (n, name);
  fprintf (fp, "#%d:\n// \"description\" %s\n%s {\n", tag, d->str, n->str);
  g_string_free (d, TRUE);
  g_string_free (n, TRUE);
}

static void
common_fields (FILE *fp)
{
  field (fp, "double", "Seconds", "Seconds", "Interval start (s)");
  field (fp, "double", "Duration", "Duration", "Interval length (s)");
  field (fp, "int", "Processor Number", "Processor", "0-based rank of the process");
}

static void
write_head (Sddf *s, const char *trace, FILE *fp)
{
  const PtiTrHeader *h = s->h;
  const PtiTrSummary *sum = pti_trace_reader_summary (s->reader);
  g_autofree char *date = pt_date (FALSE);
  g_autofree char *base = g_path_get_basename (trace);
  char b[PT_SECONDS_LEN];
  GString *a = g_string_new ("SDDFA\n/*\n");
#define PAIR(k, v) do { g_string_append (a, " * "); append_string (a, k); \
    g_string_append_c (a, ' '); append_string (a, v); g_string_append_c (a, '\n'); } while (0)
  PAIR ("creation program", "ptitrace (pti " PTI_VERSION ")");
  PAIR ("creation date", date);
  PAIR ("trace", base);
  PAIR ("generator", h->generator ? h->generator : "");
  PAIR ("system", h->system_name);
  PAIR ("system file", h->system_file);
  PAIR ("workload", h->workload_name);
  if (h->workload_file)
    PAIR ("workload file", h->workload_file);
  for (guint i = 0; i < h->n_params; i++) {
    g_autofree char *k = g_strdup_printf ("parameter %s", h->params[i].name);
    PAIR (k, h->params[i].value);
  }
  for (guint i = 0; i < h->n_models; i++) {
    g_autofree char *k = g_strdup_printf ("model %u", i + 1);
    g_autofree char *v = g_strdup_printf ("%s (%s)", h->models[i].name, h->models[i].owner);
    PAIR (k, v);
  }
  PAIR ("time unit", "seconds");
  g_autofree char *np = g_strdup_printf ("%u", h->n_processes);
  PAIR ("processors", np);
  PAIR ("predicted time", pt_seconds (b, sum->predicted));
  g_autofree char *ne = g_strdup_printf ("%" G_GUINT64_FORMAT, sum->events);
  PAIR ("events", ne);
  g_autofree char *nd = g_strdup_printf ("%" G_GUINT64_FORMAT, pti_trace_reader_n_derived (s->reader));
  PAIR ("derived events", nd);
  g_autofree char *nm = g_strdup_printf ("%" G_GUINT64_FORMAT, s->messages);
  PAIR ("messages", nm);
#undef PAIR
  g_string_append (a, " */ ;;\n\n");
  fwrite (a->str, 1, a->len, fp);
  g_string_free (a, TRUE);

  descriptor_start (fp, TAG_COMPUTE, "PTI Compute",
                    "A process computes from Seconds to Seconds+Duration (a compute event)");
  common_fields (fp);
  field (fp, "char", "RUD", "RUD", "Name of the resource usage data (empty if none)");
  fputs ("};;\n\n", fp);

  for (int recv = 0; recv < 2; recv++) {
    descriptor_start (fp, recv ? TAG_RECV : TAG_SEND, recv ? "PTI Receive" : "PTI Send",
                      recv ? "A process spends Seconds..Seconds+Duration in a blocking receive "
                             "(MPI_Recv)"
                           : "A process spends Seconds..Seconds+Duration in a blocking send "
                             "(MPI_Send)");
    common_fields (fp);
    if (recv)
      field (fp, "int", "Source", "Source", "0-based source rank (as matched)");
    else
      field (fp, "int", "Destination", "Dest", "0-based destination rank");
    field (fp, "int", "Tag", "Tag", recv ? "Message tag (as matched)" : "Message tag");
    field (fp, "double", "Bytes", "Bytes", "Message size in bytes");
    field (fp, "double", "Message", "Message", "Message id, the same at both ends");
    field (fp, "int", "Rendezvous", "Rendezvous", "1 for the rendezvous protocol, 0 for eager");
    fputs ("};;\n\n", fp);
  }

  descriptor_start (fp, TAG_POST, "PTI Post",
                    "A process posts a non-blocking send (MPI_Isend) or receive (MPI_Irecv) "
                    "from Seconds to Seconds+Duration; a later request wait completes it");
  common_fields (fp);
  field (fp, "int", "Receive", "Receive", "0 for isend, 1 for irecv");
  field (fp, "double", "Request", "Request", "Request id, unique per process");
  field (fp, "int", "Peer", "Peer", "0-based destination or source rank, -1 for any source");
  field (fp, "int", "Tag", "Tag", "Message tag as posted (see Any Tag)");
  field (fp, "int", "Any Tag", "Any Tag", "1 for a receive of any tag");
  field (fp, "double", "Bytes", "Bytes", "Message size (isend) or receive size (irecv) in bytes");
  field (fp, "double", "Message", "Message", "Message id of an isend, -1 for an irecv");
  fputs ("};;\n\n", fp);

  descriptor_start (fp, TAG_WAIT, "PTI Wait",
                    "The part of a send, receive or request wait blocked on a peer "
                    "(synchronisation delay), taken at the start of that event");
  common_fields (fp);
  fputs ("};;\n\n", fp);

  descriptor_start (fp, TAG_MESSAGE, "PTI Message",
                    "One message, with the times of a Paraver communication record: posted by "
                    "the sender, entered the network, receive posted, arrived");
  field (fp, "double", "Send Seconds", "Send", "When the send was posted (logical send, s)");
  field (fp, "double", "Injected Seconds", "Injected",
         "When the data began to enter the network (physical send, s)");
  field (fp, "double", "Receive Seconds", "Receive", "When the receive was posted (logical receive, s)");
  field (fp, "double", "Arrival Seconds", "Arrival",
         "When the data had arrived at the receiver (physical receive, s)");
  field (fp, "int", "Source", "Source", "0-based sending rank");
  field (fp, "int", "Destination", "Dest", "0-based receiving rank");
  field (fp, "int", "Tag", "Tag", "Message tag");
  field (fp, "double", "Bytes", "Bytes", "Message size in bytes");
  field (fp, "double", "Message", "Message", "Message id");
  field (fp, "double", "Send Request", "Send Request", "The isend's request id, -1 for a blocking send");
  field (fp, "double", "Receive Request", "Receive Request",
         "The irecv's request id, -1 for a blocking receive");
  fputs ("};;\n\n", fp);

  descriptor_start (fp, TAG_REQUEST_WAIT, "PTI Request Wait",
                    "A process waits for non-blocking requests from Seconds to Seconds+Duration "
                    "(MPI_Wait, MPI_Waitall or MPI_Waitany)");
  common_fields (fp);
  field (fp, "char", "Call", "Call", "wait, waitall or waitany");
  field (fp, "int", "Requests", "Requests", "Number of requests it completed");
  fputs ("};;\n\n", fp);

  descriptor_start (fp, TAG_COLLECTIVE, "PTI Collective",
                    "A process takes part in a collective call from Seconds to Seconds+Duration; "
                    "its records in that interval are the call's point-to-point messages");
  common_fields (fp);
  field (fp, "char", "Call", "Call", "barrier, bcast, reduce, allreduce, gather, scatter, "
                                       "allgather, alltoall or alltoallv");
  field (fp, "int", "Communicator", "Communicator", "Communicator id, 0 for the world");
  field (fp, "int", "Root", "Root", "0-based rank of the root, -1 if the call has none");
  field (fp, "double", "Bytes", "Bytes", "The call's bytes on this process");
  fputs ("};;\n\n", fp);

  descriptor_start (fp, TAG_DERIVED, "PTI Derived",
                    "Analytical repetition derived Seconds..Seconds+Duration of a process "
                    "without evaluating it: its events are not in the trace");
  common_fields (fp);
  field (fp, "double", "Repetitions", "Repetitions", "Repetitions of the block derived");
  field (fp, "double", "Events", "Events", "Events derived (not in the trace)");
  field (fp, "double", "Compute", "Compute", "Of which in compute events (s)");
  field (fp, "double", "Comm", "Comm", "Of which in the message layer (s)");
  field (fp, "double", "Wait", "Wait", "Of which blocked on a peer (s)");
  fputs ("};;\n\n", fp);

  for (guint t = 0; t < h->n_records; t++) {
    const PtiTrRecordType *rt = &h->records[t];
    g_autofree char *desc = g_strdup_printf ("Model %s, record {%s}%s: %s", rt->model, rt->ns,
                                             rt->name, rt->description);
    descriptor_start (fp, TAG_RECORD_BASE + (int) t, s->record_names[t], desc);
    field (fp, "double", "Seconds", "Seconds",
           rt->time_field >= 0 ? "The record's time field (s)"
                               : "End of the event the record follows (s)");
    field (fp, "int", "Processor Number", "Processor",
           "0-based rank of the process group holding the record, -1 if none");
    for (guint f = 0; f < rt->n_fields; f++)
      if ((int) f != rt->time_field)
        field (fp, pt_fields_kind (s->fields, t, f) == PT_FIELD_NAME ? "char" : "double",
               rt->fields[f], rt->fields[f], "Field of the record (see description)");
    fputs ("};;\n\n", fp);
  }
}

static gboolean
write_data (Sddf *s, FILE *fp, GError **error)
{
  if (s->spool != NULL && fflush (s->spool) != 0) {
    g_set_error (error, PT_ERROR, PT_ERROR_FAILED, "writing a temporary file: %s", g_strerror (errno));
    return FALSE;
  }
  g_autofree char *buf = NULL;
  gsize cap = 0;
  const SddfRec *r;
  GError *local = NULL;
  while ((r = pti_sorter_next (s->sorter, &local)) != NULL) {
    if (r->len <= INLINE_TEXT) {
      fwrite (r->text, 1, r->len, fp);
    } else {
      if (r->len > cap) {
        cap = r->len;
        buf = g_realloc (buf, cap);
      }
      gsize got = 0;
      while (got < r->len) {
        ssize_t k = pread (s->spool_fd, buf + got, r->len - got, (off_t) (r->spool_off + got));
        if (k <= 0) {
          g_set_error (error, PT_ERROR, PT_ERROR_FAILED, "reading a temporary file: %s",
                       k < 0 ? g_strerror (errno) : "short read");
          return FALSE;
        }
        got += (gsize) k;
      }
      fwrite (buf, 1, r->len, fp);
    }
    fputc ('\n', fp);
  }
  if (local != NULL) {
    g_propagate_error (error, local);
    return FALSE;
  }
  return TRUE;
}

int
pt_sddf (const char *trace, const PtOptions *o, GError **error)
{
  g_autoptr (PtiTraceReader) reader = pti_trace_reader_open (trace, error);
  if (reader == NULL)
    return pt_exit_code (*error);
  const PtiTrHeader *h = pti_trace_reader_header (reader);
  if (h->n_processes > (guint) G_MAXINT32) {
    g_set_error (error, PT_ERROR, PT_ERROR_FAILED, "%s: too many processes for SDDF int fields",
                 trace);
    return PT_EXIT_FAILED;
  }
  Sddf s = { 0 };
  s.reader = reader;
  s.h = h;
  s.spool_fd = -1;
  s.sorter = pti_sorter_new (sizeof (SddfRec), cmp_sddf, o->memory / 2);
  s.join = pt_msgjoin_new (trace, o->memory / 2);
  s.line = g_string_new (NULL);
  s.fields = pt_fields_new (reader, FALSE);
  s.record_names = g_new0 (char *, h->n_records + 1);
  for (guint t = 0; t < h->n_records; t++) {
    /* Unique among the fixed descriptors and the earlier record types: a
     * model named PTI may declare "Message", which becomes "PTI Message (2)". */
    char *name = g_strdup_printf ("%s %s", h->records[t].model, h->records[t].name);
    for (guint k = 2;; k++) {
      gboolean dup = FALSE;
      for (guint u = 0; u < G_N_ELEMENTS (fixed_names) && !dup; u++)
        dup = strcmp (fixed_names[u], name) == 0;
      for (guint u = 0; u < t && !dup; u++)
        dup = strcmp (s.record_names[u], name) == 0;
      if (!dup)
        break;
      g_free (name);
      name = g_strdup_printf ("%s %s (%u)", h->records[t].model, h->records[t].name, k);
    }
    s.record_names[t] = name;
  }
  int rc = PT_EXIT_FAILED;
  PtOut *out = NULL;
  PtiTrItem item;
  GError *local = NULL;
  while (pti_trace_reader_next (reader, &item, &local)) {
    gboolean ok = TRUE;
    if (item.type == PTI_TR_ITEM_EVENT)
      ok = on_event (&s, &item, &local);
    else if (item.type == PTI_TR_ITEM_RECORD)
      ok = on_record (&s, &item, &local);
    else if (item.type == PTI_TR_ITEM_COLLECTIVE)
      ok = on_collective (&s, &item, &local);
    else if (item.type == PTI_TR_ITEM_DERIVED)
      ok = on_derived (&s, &item, &local);
    if (!ok)
      break;
  }
  if (local != NULL)
    goto out;
  if (!pt_msgjoin_run (s.join, on_message, &s, &local))
    goto out;
  g_clear_pointer (&s.join, pt_msgjoin_free);
  if (!pti_sorter_finish (s.sorter, &local))
    goto out;
  if ((out = pt_out_open (o->output, &local)) == NULL)
    goto out;
  write_head (&s, trace, out->fp);
  if (!write_data (&s, out->fp, &local) || !pt_out_commit (out, &local))
    goto out;
  rc = PT_EXIT_OK;
out:
  if (local != NULL) {
    rc = pt_exit_code (local);
    g_propagate_error (error, local);
  }
  pt_out_free (out);
  pti_sorter_free (s.sorter);
  pt_msgjoin_free (s.join);
  if (s.spool != NULL)
    fclose (s.spool);
  g_string_free (s.line, TRUE);
  pt_fields_free (s.fields);
  g_strfreev (s.record_names);
  return rc;
}
