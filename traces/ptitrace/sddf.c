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
#include "ptitrace.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#define INLINE_TEXT 104

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
  TAG_COMPUTE = 1, TAG_SEND, TAG_RECV, TAG_WAIT, TAG_MESSAGE, TAG_REQUEST_WAIT,
  TAG_RECORD_BASE = 10,
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

static gboolean
on_event (Sddf *s, const PtiTrItem *item, GError **error)
{
  const PtiTrEvent *e = &item->event;
  GString *l = s->line;
  g_string_truncate (l, 0);
  switch (e->kind) {
  case PTI_TR_COMPUTE:
    g_string_append (l, "\"PTI Compute\" { ");
    break;
  case PTI_TR_SEND:
  case PTI_TR_ISEND:
    g_string_append (l, "\"PTI Send\" { ");
    break;
  case PTI_TR_RECV:
  case PTI_TR_IRECV:
    g_string_append (l, "\"PTI Receive\" { ");
    break;
  default:
    g_string_append (l, "\"PTI Request Wait\" { ");
    break;
  }
  append_seconds (l, e->start);
  g_string_append (l, ", ");
  append_seconds (l, e->end - e->start);
  comma_u64 (l, e->rank);
  if (e->kind == PTI_TR_COMPUTE) {
    g_string_append (l, ", ");
    append_char_array (l, e->rud ? e->rud : "");
  } else if (PTI_TR_KIND_IS_MESSAGE (e->kind)) {
    comma_u64 (l, e->peer);
    g_string_append (l, ", ");
    pt_gs_i64 (l, e->tag);
    comma_u64 (l, e->bytes);
    g_string_append (l, ".0");
    comma_u64 (l, e->msg);
    g_string_append (l, ".0");
    comma_u64 (l, e->kind == PTI_TR_SEND || e->kind == PTI_TR_RECV);
    comma_u64 (l, e->rendezvous ? 1 : 0);
  } else {
    comma_u64 (l, e->kind == PTI_TR_WAITANY);
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
  if (PTI_TR_KIND_IS_MESSAGE (e->kind) && !pt_msgjoin_add (s->join, item, s->seq++, error))
    return FALSE;
  return TRUE;
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
  append_seconds (l, pt_msg_lsend (m));
  g_string_append (l, ", ");
  append_seconds (l, pt_msg_precv (m));
  comma_u64 (l, m->send.rank);
  comma_u64 (l, m->recv.rank);
  g_string_append (l, ", ");
  pt_gs_i64 (l, m->send.tag);
  comma_u64 (l, m->send.bytes);
  g_string_append (l, ".0");
  comma_u64 (l, m->send.msg);
  g_string_append (l, ".0 };;");
  s->messages++;
  /* Ordered with the sender's records, after its send. */
  SddfRec r;
  memset (&r, 0, sizeof r);
  r.time = pt_msg_lsend (m);
  r.proc = m->send.rank;
  r.seq = m->send.seq;
  r.len = (guint32) l->len;
  memcpy (r.text, l->str, MIN (l->len, INLINE_TEXT));
  if (l->len > INLINE_TEXT) {
    g_set_error (error, PT_ERROR, PT_ERROR_FAILED, "internal: message record too long");
    return FALSE;
  }
  return pti_sorter_add (s->sorter, &r, error);
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

  descriptor_start (fp, TAG_SEND, "PTI Send",
                    "A process spends Seconds..Seconds+Duration in a send (blocking) or in "
                    "posting a non-blocking send");
  common_fields (fp);
  field (fp, "int", "Destination", "Dest", "0-based destination rank");
  field (fp, "int", "Tag", "Tag", "Message tag");
  field (fp, "double", "Bytes", "Bytes", "Message size in bytes");
  field (fp, "double", "Message", "Message", "Message id, the same at both ends");
  field (fp, "int", "Blocking", "Blocking", "1 for send, 0 for isend");
  field (fp, "int", "Rendezvous", "Rendezvous", "1 for the rendezvous protocol, 0 for eager");
  fputs ("};;\n\n", fp);

  descriptor_start (fp, TAG_RECV, "PTI Receive",
                    "A process spends Seconds..Seconds+Duration in a receive (blocking) or in "
                    "posting a non-blocking receive");
  common_fields (fp);
  field (fp, "int", "Source", "Source", "0-based source rank");
  field (fp, "int", "Tag", "Tag", "Message tag");
  field (fp, "double", "Bytes", "Bytes", "Message size in bytes");
  field (fp, "double", "Message", "Message", "Message id, the same at both ends");
  field (fp, "int", "Blocking", "Blocking", "1 for recv, 0 for irecv");
  field (fp, "int", "Rendezvous", "Rendezvous", "1 for the rendezvous protocol, 0 for eager");
  fputs ("};;\n\n", fp);

  descriptor_start (fp, TAG_WAIT, "PTI Wait",
                    "The part of a send, receive or request wait blocked on a peer "
                    "(synchronisation delay), taken at the start of that event");
  common_fields (fp);
  fputs ("};;\n\n", fp);

  descriptor_start (fp, TAG_MESSAGE, "PTI Message",
                    "One message: sent at Send Seconds (the send's start), available to the "
                    "receiver at Arrival Seconds (the receive's end)");
  field (fp, "double", "Send Seconds", "Send", "Start of the send (s)");
  field (fp, "double", "Arrival Seconds", "Arrival", "End of the receive (s)");
  field (fp, "int", "Source", "Source", "0-based sending rank");
  field (fp, "int", "Destination", "Dest", "0-based receiving rank");
  field (fp, "int", "Tag", "Tag", "Message tag");
  field (fp, "double", "Bytes", "Bytes", "Message size in bytes");
  field (fp, "double", "Message", "Message", "Message id");
  fputs ("};;\n\n", fp);

  descriptor_start (fp, TAG_REQUEST_WAIT, "PTI Request Wait",
                    "A process waits for non-blocking requests from Seconds to Seconds+Duration "
                    "(MPI_Wait/Waitall, or MPI_Waitany when Any is 1)");
  common_fields (fp);
  field (fp, "int", "Any", "Any", "1 for waitany, 0 for wait (all)");
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
    char *name = g_strdup_printf ("%s %s", h->records[t].model, h->records[t].name);
    for (guint k = 2;; k++) {
      gboolean dup = strncmp (name, "PTI ", 4) == 0;
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
