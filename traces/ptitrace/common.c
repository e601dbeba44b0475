/* ptitrace: output files, formatting, processor layout, message pairing. */
#include "commands.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

G_DEFINE_QUARK (ptitrace-error-quark, pt_error)

int
pt_exit_code (const GError *error)
{
  if (error == NULL)
    return PT_EXIT_OK;
  if (error->domain == PT_ERROR)
    return error->code == PT_ERROR_USAGE ? PT_EXIT_USAGE
         : error->code == PT_ERROR_INVALID ? PT_EXIT_INVALID : PT_EXIT_FAILED;
  if (error->domain == PTI_TRACE_READER_ERROR)
    return error->code == PTI_TRACE_READER_ERROR_INVALID ? PT_EXIT_INVALID : PT_EXIT_FAILED;
  return PT_EXIT_FAILED;
}

/* ------------------------------------------------------------------------ */

PtOut *
pt_out_open (const char *path, GError **error)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *base = g_path_get_basename (path);
  if (g_file_test (path, G_FILE_TEST_IS_DIR)) {
    g_set_error (error, PT_ERROR, PT_ERROR_FAILED, "%s: is a directory", path);
    return NULL;
  }
  PtOut *o = g_new0 (PtOut, 1);
  o->path = g_strdup (path);
  o->tmp = g_strdup_printf ("%s%s.%s.tmp-XXXXXX", dir, G_DIR_SEPARATOR_S, base);
  int fd = g_mkstemp_full (o->tmp, O_WRONLY, 0666);
  if (fd < 0) {
    int e = errno;
    g_set_error (error, PT_ERROR, PT_ERROR_FAILED, "%s: cannot create (in %s): %s", path, dir,
                 g_strerror (e));
    g_clear_pointer (&o->tmp, g_free);
    pt_out_free (o);
    return NULL;
  }
  o->fp = fdopen (fd, "w");
  if (o->fp == NULL) {
    close (fd);
    g_set_error (error, PT_ERROR, PT_ERROR_FAILED, "%s: cannot open", path);
    pt_out_free (o);
    return NULL;
  }
  setvbuf (o->fp, NULL, _IOFBF, 1 << 20);
  return o;
}

gboolean
pt_out_commit (PtOut *o, GError **error)
{
  int e = 0;
  if (fflush (o->fp) != 0 || ferror (o->fp))
    e = errno ? errno : EIO;
  if (fclose (o->fp) != 0 && e == 0)
    e = errno ? errno : EIO;
  o->fp = NULL;
  if (e == 0 && g_rename (o->tmp, o->path) != 0)
    e = errno;
  if (e != 0) {
    g_set_error (error, PT_ERROR, PT_ERROR_FAILED, "%s: cannot write: %s", o->path, g_strerror (e));
    return FALSE;
  }
  o->committed = TRUE;
  return TRUE;
}

void
pt_out_free (PtOut *o)
{
  if (o == NULL)
    return;
  if (o->fp != NULL)
    fclose (o->fp);
  if (!o->committed && o->tmp != NULL)
    g_unlink (o->tmp);
  g_free (o->tmp);
  g_free (o->path);
  g_free (o);
}

/* ------------------------------------------------------------------------ */

/* "INT.FRAC" with @digits fraction digits of @unit (1e9 or 1e3). */
static char *
put_fixed (char *p, guint64 v, guint64 unit, int digits)
{
  p = pti_put_u64 (p, v / unit);
  *p++ = '.';
  guint64 f = v % unit;
  for (int i = digits - 1; i >= 0; i--) {
    p[i] = (char) ('0' + f % 10);
    f /= 10;
  }
  return p + digits;
}

char *
pt_seconds (char buf[PT_SECONDS_LEN], guint64 ns)
{
  *put_fixed (buf, ns, 1000000000u, 9) = '\0';
  return buf;
}

char *
pt_micros (char buf[PT_SECONDS_LEN], guint64 ns)
{
  *put_fixed (buf, ns, 1000u, 3) = '\0';
  return buf;
}

void
pt_gs_u64 (GString *s, guint64 v)
{
  char b[24];
  g_string_append_len (s, b, pti_put_u64 (b, v) - b);
}

void
pt_gs_i64 (GString *s, gint64 v)
{
  if (v < 0) {
    g_string_append_c (s, '-');
    pt_gs_u64 (s, (guint64) 0 - (guint64) v);
  } else {
    pt_gs_u64 (s, (guint64) v);
  }
}

void
pt_gs_seconds (GString *s, guint64 ns)
{
  char b[PT_SECONDS_LEN];
  g_string_append_len (s, b, put_fixed (b, ns, 1000000000u, 9) - b);
}

void
pt_gs_micros (GString *s, guint64 ns)
{
  char b[PT_SECONDS_LEN];
  g_string_append_len (s, b, put_fixed (b, ns, 1000u, 3) - b);
}

gboolean
pt_number_text (const char *text, GString *out)
{
  double v;
  if (!pti_tr_parse_number (text, &v))
    return FALSE;
  /* Plain "[-]D+[.D+]" (no '+', no exponent, no bare point) is copied. */
  const char *p = text;
  if (*p == '-')
    p++;
  const char *digits = p;
  while (g_ascii_isdigit (*p))
    p++;
  gboolean plain = p > digits;
  if (plain && *p == '.') {
    const char *f = ++p;
    while (g_ascii_isdigit (*p))
      p++;
    plain = p > f;
  }
  if (plain && *p == '\0') {
    g_string_append (out, text);
    if (strchr (text, '.') == NULL)
      g_string_append (out, ".0");
    return TRUE;
  }
  /* Otherwise print it positionally with 17 significant digits. */
  if (v == 0) {
    g_string_append (out, "0.0");
    return TRUE;
  }
  int exp10 = (int) floor (log10 (fabs (v)));
  int decimals = CLAMP (16 - exp10, 1, 340);
  char buf[512];
  g_snprintf (buf, sizeof buf, "%.*f", decimals, v);
  /* Trim trailing zeros, keeping one digit after the point. */
  char *end = buf + strlen (buf);
  while (end > buf + 2 && end[-1] == '0' && end[-2] != '.')
    *--end = '\0';
  g_string_append (out, buf);
  return TRUE;
}

void
pt_json_string (GString *out, const char *s)
{
  g_string_append_c (out, '"');
  for (const unsigned char *p = (const unsigned char *) s; *p; p++) {
    if (*p == '"' || *p == '\\') {
      g_string_append_c (out, '\\');
      g_string_append_c (out, (char) *p);
    } else if (*p < 0x20 || *p == 0x7f) {
      g_string_append_printf (out, "\\u%04x", *p);
    } else {
      g_string_append_c (out, (char) *p);
    }
  }
  g_string_append_c (out, '"');
}

char *
pt_date (gboolean paraver)
{
  const char *epoch = g_getenv ("SOURCE_DATE_EPOCH");
  gint64 t = -1;
  if (epoch != NULL && !pti_tr_parse_int64 (epoch, &t))
    t = -1;
  g_autoptr (GDateTime) dt = t >= 0 ? g_date_time_new_from_unix_utc (t) : g_date_time_new_now_utc ();
  if (dt == NULL)
    dt = g_date_time_new_now_utc ();
  return g_date_time_format (dt, paraver ? "%d/%m/%Y at %H:%M" : "%Y-%m-%d %H:%M:%S UTC");
}

/* ------------------------------------------------------------------------ */

typedef struct {
  PtFieldKind kind;
  guint64 first_line, first_element;   /* of the value that decided the kind */
  GHashTable *ids;                     /* name -> id (interning only) */
  GPtrArray *names;                    /* id - 1 -> name */
} PtField;

struct _PtFields {
  PtiTraceReader *reader;
  const PtiTrHeader *h;
  gboolean intern;
  PtField **fields;                    /* [type][field] */
};

PtFields *
pt_fields_new (PtiTraceReader *reader, gboolean intern)
{
  PtFields *fs = g_new0 (PtFields, 1);
  fs->reader = reader;
  fs->h = pti_trace_reader_header (reader);
  fs->intern = intern;
  fs->fields = g_new0 (PtField *, MAX (fs->h->n_records, 1));
  for (guint t = 0; t < fs->h->n_records; t++)
    fs->fields[t] = g_new0 (PtField, MAX (fs->h->records[t].n_fields, 1));
  return fs;
}

void
pt_fields_free (PtFields *fs)
{
  if (fs == NULL)
    return;
  for (guint t = 0; t < fs->h->n_records; t++) {
    for (guint f = 0; f < fs->h->records[t].n_fields; f++) {
      PtField *fd = &fs->fields[t][f];
      if (fd->ids != NULL)
        g_hash_table_unref (fd->ids);
      if (fd->names != NULL)
        g_ptr_array_unref (fd->names);
    }
    g_free (fs->fields[t]);
  }
  g_free (fs->fields);
  g_free (fs);
}

PtFieldKind
pt_fields_get (PtFields *fs, const PtiTrItem *item, guint f, double *value, guint *id,
               GError **error)
{
  const PtiTrRecord *rec = &item->record;
  PtField *fd = &fs->fields[rec->type][f];
  const char *text = rec->values[f];
  double v = 0;
  gboolean number = pti_tr_parse_number (text, &v);
  PtFieldKind kind = number ? PT_FIELD_NUMBER : PT_FIELD_NAME;
  if (fd->kind == PT_FIELD_UNKNOWN) {
    fd->kind = kind;
    fd->first_line = item->line;
    fd->first_element = item->element;
  }
  if (kind != fd->kind) {
    const PtiTrRecordType *t = &fs->h->records[rec->type];
    guint64 first = pti_trace_line_of (pti_trace_reader_path (fs->reader), fd->first_line,
                                       fd->first_element);
    pti_trace_reader_error_at (fs->reader, item->line, item->element, error,
                               "record <%s> %s=\"%s\" is %s, and the field held %s before "
                               "(line %" G_GUINT64_FORMAT "): a field holds numbers or names, "
                               "not both", t->name, t->fields[f], text,
                               number ? "a number" : "not a number",
                               number ? "a name" : "a number", first);
    return PT_FIELD_UNKNOWN;
  }
  if (kind == PT_FIELD_NUMBER) {
    if (value != NULL)
      *value = v;
    return PT_FIELD_NUMBER;
  }
  guint n = 0;
  if (fs->intern) {
    if (fd->ids == NULL) {
      fd->ids = g_hash_table_new (g_str_hash, g_str_equal);
      fd->names = g_ptr_array_new_with_free_func (g_free);
    }
    gpointer known = g_hash_table_lookup (fd->ids, text);
    if (known != NULL) {
      n = GPOINTER_TO_UINT (known);
    } else if (fd->names->len < PT_MAX_NAMES) {
      char *key = g_strdup (text);
      g_ptr_array_add (fd->names, key);
      n = fd->names->len;
      g_hash_table_insert (fd->ids, key, GUINT_TO_POINTER (n));
    } else {
      n = PT_MAX_NAMES + 1;   /* bounded memory: "other names" */
    }
  }
  if (id != NULL)
    *id = n;
  return PT_FIELD_NAME;
}

PtFieldKind
pt_fields_kind (const PtFields *fs, guint type, guint f)
{
  return fs->fields[type][f].kind;
}

guint
pt_fields_n_names (const PtFields *fs, guint type, guint f)
{
  const PtField *fd = &fs->fields[type][f];
  return fd->names != NULL ? fd->names->len : 0;
}

const char *
pt_fields_name (const PtFields *fs, guint type, guint f, guint id)
{
  const PtField *fd = &fs->fields[type][f];
  if (fd->names == NULL || id == 0)
    return "";
  if (id > fd->names->len)
    return "(other names)";
  return fd->names->pdata[id - 1];
}

/* ------------------------------------------------------------------------ */

PtLayout *
pt_layout_new (const PtiTrHeader *h)
{
  PtLayout *l = g_new0 (PtLayout, 1);
  guint n = h->n_processes;
  l->rank_node = g_new0 (guint, MAX (n, 1));
  l->rank_cpu = g_new0 (guint, MAX (n, 1));
  guint *rank_local = g_new0 (guint, MAX (n, 1));
  g_autoptr (GHashTable) nodes = g_hash_table_new (g_str_hash, g_str_equal);
  GPtrArray *names = g_ptr_array_new ();
  GArray *cpus = g_array_new (FALSE, TRUE, sizeof (guint));
  for (guint r = 0; r < n; r++) {
    const char *proc = h->processors[r];
    const char *sep = g_strrstr (proc, " cpu ");
    char *node;
    guint64 cpu = 0;
    const char *num = sep ? sep + 5 : NULL;
    if (num != NULL && *num && strspn (num, "0123456789") == strlen (num)
        && g_ascii_string_to_unsigned (num, 10, 0, 65534, &cpu, NULL)) {
      node = g_strndup (proc, (gsize) (sep - proc));
    } else {
      node = g_strdup (proc);
      cpu = 0;
    }
    gpointer idx;
    guint ni;
    if (g_hash_table_lookup_extended (nodes, node, NULL, &idx)) {
      ni = GPOINTER_TO_UINT (idx);
      g_free (node);
    } else {
      ni = names->len;
      g_ptr_array_add (names, node);
      guint zero = 0;
      g_array_append_val (cpus, zero);
      g_hash_table_insert (nodes, node, GUINT_TO_POINTER (ni));
    }
    guint *nc = &g_array_index (cpus, guint, ni);
    *nc = MAX (*nc, (guint) cpu + 1);
    l->rank_node[r] = ni;
    rank_local[r] = (guint) cpu;
  }
  l->n_nodes = names->len;
  l->node_cpus = (guint *) g_array_free (cpus, FALSE);
  l->node_first_cpu = g_new0 (guint, MAX (l->n_nodes, 1));
  guint next = 1;
  for (guint i = 0; i < l->n_nodes; i++) {
    l->node_first_cpu[i] = next;
    next += l->node_cpus[i];
  }
  l->n_cpus = next - 1;
  for (guint r = 0; r < n; r++)
    l->rank_cpu[r] = l->node_first_cpu[l->rank_node[r]] + rank_local[r];
  g_ptr_array_add (names, NULL);
  l->node_names = (char **) g_ptr_array_free (names, FALSE);
  g_free (rank_local);
  return l;
}

void
pt_layout_free (PtLayout *l)
{
  if (l == NULL)
    return;
  g_strfreev (l->node_names);
  g_free (l->node_cpus);
  g_free (l->node_first_cpu);
  g_free (l->rank_node);
  g_free (l->rank_cpu);
  g_free (l);
}

/* ------------------------------------------------------------------------ */

struct _PtMsgJoin {
  char *path;
  PtiSorter *sorter;
};

static int
cmp_msg_end (const void *pa, const void *pb)
{
  const PtMsgEnd *a = pa, *b = pb;
  if (a->msg != b->msg)
    return a->msg < b->msg ? -1 : 1;
  int sa = !PTI_TRACE_KIND_IS_SENDER (a->kind), sb = !PTI_TRACE_KIND_IS_SENDER (b->kind);
  if (sa != sb)
    return sa - sb;   /* the sending end first */
  return a->seq < b->seq ? -1 : a->seq > b->seq;
}

PtMsgJoin *
pt_msgjoin_new (const char *trace_path, gsize budget)
{
  PtMsgJoin *j = g_new0 (PtMsgJoin, 1);
  j->path = g_strdup (trace_path);
  j->sorter = pti_sorter_new (sizeof (PtMsgEnd), cmp_msg_end, budget);
  return j;
}

void
pt_msgjoin_free (PtMsgJoin *j)
{
  if (j == NULL)
    return;
  pti_sorter_free (j->sorter);
  g_free (j->path);
  g_free (j);
}

guint64
pt_msgjoin_count (const PtMsgJoin *j)
{
  return pti_sorter_count (j->sorter);
}

int
pt_decisive (const PtiTrEvent *e)
{
  if (e->wait == 0 || e->n_done == 0)
    return -1;
  int best = 0;
  for (guint i = 1; i < e->n_done; i++)
    if (e->done[i].done > e->done[best].done)
      best = (int) i;
  return best;
}

gboolean
pt_msgjoin_add (PtMsgJoin *j, const PtiTrItem *item, guint64 *seq, GError **error)
{
  const PtiTrEvent *e = &item->event;
  int decisive = pt_decisive (e);
  for (guint i = 0; i < e->n_done; i++) {
    const PtiTrCompletion *c = &e->done[i];
    PtMsgEnd m;
    memset (&m, 0, sizeof m);
    m.msg = c->msg;
    m.seq = (*seq)++;
    m.line = c->line;
    m.element = c->element;
    m.rank = e->rank;
    m.peer = c->peer;
    m.posted = c->posted;
    m.injected = c->injected;
    m.done = c->done;
    m.unblock = e->start + e->wait;
    m.bytes = c->bytes;
    m.request = c->request;
    m.tag = c->tag;
    m.kind = (guint8) c->kind;
    m.rendezvous = (guint8) (c->rendezvous != 0);
    m.decided = (int) i == decisive;
    if (!pti_sorter_add (j->sorter, &m, error))
      return FALSE;
  }
  return TRUE;
}

static gboolean
join_error (PtMsgJoin *j, const PtMsgEnd *where, GError **error, const char *fmt, ...)
  G_GNUC_PRINTF (4, 5);

static gboolean
join_error (PtMsgJoin *j, const PtMsgEnd *where, GError **error, const char *fmt, ...)
{
  guint64 line = pti_trace_line_of (j->path, where->line, where->element);
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (error, PTI_TRACE_READER_ERROR, PTI_TRACE_READER_ERROR_INVALID,
               "%s:%" G_GUINT64_FORMAT ": %s", j->path, line, msg);
  return FALSE;
}

static gboolean
check_pair (PtMsgJoin *j, const PtMessage *m, GError **error)
{
  const PtMsgEnd *s = &m->send, *r = &m->recv;
  if (s->peer != r->rank || r->peer != s->rank)
    return join_error (j, r, error,
                       "message %" G_GUINT64_FORMAT ": this %s on rank %u from rank %u does not "
                       "match its send on rank %u to rank %u (line %" G_GUINT64_FORMAT ")",
                       r->msg, pti_trace_kind_name (r->kind), r->rank, r->peer, s->rank, s->peer,
                       pti_trace_line_of (j->path, s->line, s->element));
  if (s->tag != r->tag || s->bytes != r->bytes || s->rendezvous != r->rendezvous
      || s->injected != r->injected)
    return join_error (j, r, error,
                       "message %" G_GUINT64_FORMAT ": the two ends disagree on %s "
                       "(send at line %" G_GUINT64_FORMAT ")", r->msg,
                       s->tag != r->tag ? "the tag" : s->bytes != r->bytes ? "the size"
                       : s->rendezvous != r->rendezvous ? "the protocol"
                       : "when the data entered the network (injected)",
                       pti_trace_line_of (j->path, s->line, s->element));
  return TRUE;
}

gboolean
pt_msgjoin_run (PtMsgJoin *j, PtMessageFunc fn, gpointer data, GError **error)
{
  if (!pti_sorter_finish (j->sorter, error))
    return FALSE;
  PtMessage m;
  gboolean have_send = FALSE;
  GError *local = NULL;
  const PtMsgEnd *e;
  while ((e = pti_sorter_next (j->sorter, &local)) != NULL) {
    gboolean sender = PTI_TRACE_KIND_IS_SENDER (e->kind);
    if (have_send && e->msg != m.send.msg)
      return join_error (j, &m.send, error,
                         "message %" G_GUINT64_FORMAT " (%s from rank %u to rank %u) has no "
                         "receive in the trace", m.send.msg, pti_trace_kind_name (m.send.kind),
                         m.send.rank, m.send.peer);
    if (sender) {
      if (have_send)
        return join_error (j, e, error,
                           "message %" G_GUINT64_FORMAT " has a second sending end "
                           "(the first at line %" G_GUINT64_FORMAT ")", e->msg,
                           pti_trace_line_of (j->path, m.send.line, m.send.element));
      m.send = *e;
      have_send = TRUE;
      continue;
    }
    if (!have_send)
      return join_error (j, e, error,
                         "message %" G_GUINT64_FORMAT " (%s on rank %u from rank %u) has no "
                         "send in the trace, or a second receiving end", e->msg,
                         pti_trace_kind_name (e->kind), e->rank, e->peer);
    m.recv = *e;
    have_send = FALSE;
    if (!check_pair (j, &m, error) || !fn (&m, data, error))
      return FALSE;
  }
  if (local != NULL) {
    g_propagate_error (error, local);
    return FALSE;
  }
  if (have_send)
    return join_error (j, &m.send, error,
                       "message %" G_GUINT64_FORMAT " (%s from rank %u to rank %u) has no "
                       "receive in the trace", m.send.msg, pti_trace_kind_name (m.send.kind),
                       m.send.rank, m.send.peer);
  return TRUE;
}
