/* Streaming reader of pti's XML output trace.  See trace-reader.h. */
#include "trace-reader.h"

#include <errno.h>
#include <math.h>
#include <libxml/xmlreader.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

G_DEFINE_QUARK (pti-trace-reader-error-quark, pti_trace_reader_error)

static const char *const kind_names[PTI_TR_N_KINDS] = {
  "compute", "send", "recv", "isend", "irecv", "wait", "waitany",
};

const char *
pti_tr_kind_name (PtiTrKind kind)
{
  return kind < PTI_TR_N_KINDS ? kind_names[kind] : "?";
}

/* ------------------------------------------------------------------------ */
/* Input: a FILE read by us, so that the prolog can be checked for a DOCTYPE
 * before libxml2 sees it (no internal subset is ever parsed). */

enum { P_TEXT, P_LT, P_BANG, P_BANG_DASH, P_COMMENT, P_PI, P_PI_Q, P_DOCTYPE };

typedef struct {
  FILE *fp;
  int err;                  /* errno of a failed read, 0 if none */
  gboolean in_prolog;
  int state, idx, dashes;
  guint64 line;             /* line of the prolog scanner */
  gboolean doctype;         /* a DOCTYPE was found: reading stopped */
  guint64 newlines;         /* in everything read */
  gboolean eof;
} Input;

static gboolean
scan_prolog (Input *in, const char *buf, size_t n)
{
  static const char doctype[] = "DOCTYPE";
  for (size_t i = 0; i < n && in->in_prolog; i++) {
    unsigned char c = (unsigned char) buf[i];
    if (c == '\n')
      in->line++;
    switch (in->state) {
    case P_TEXT:
      if (c == '<')
        in->state = P_LT;
      break;
    case P_LT:
      if (c == '!')
        in->state = P_BANG;
      else if (c == '?')
        in->state = P_PI;
      else if (g_ascii_isalpha (c) || c == '_' || c == ':' || c >= 0x80)
        in->in_prolog = FALSE;  /* the root element: libxml2 takes it from here */
      else
        in->state = P_TEXT;
      break;
    case P_BANG:
      if (c == '-')
        in->state = P_BANG_DASH;
      else if (c == 'D') {
        in->state = P_DOCTYPE;
        in->idx = 1;
      } else
        in->state = P_TEXT;
      break;
    case P_BANG_DASH:
      in->state = c == '-' ? P_COMMENT : P_TEXT;
      in->dashes = 0;
      break;
    case P_COMMENT:
      if (c == '-')
        in->dashes++;
      else if (c == '>' && in->dashes >= 2)
        in->state = P_TEXT;
      else
        in->dashes = 0;
      break;
    case P_PI:
      if (c == '?')
        in->state = P_PI_Q;
      break;
    case P_PI_Q:
      if (c == '>')
        in->state = P_TEXT;
      else if (c != '?')
        in->state = P_PI;
      break;
    case P_DOCTYPE:
      if (c != (unsigned char) doctype[in->idx]) {
        in->state = P_TEXT;
        break;
      }
      if (++in->idx == (int) sizeof doctype - 1) {
        in->doctype = TRUE;
        return FALSE;
      }
      break;
    }
  }
  return TRUE;
}

static int
input_read (void *data, char *buf, int len)
{
  Input *in = data;
  if (in->doctype || in->fp == NULL)
    return -1;
  size_t n = fread (buf, 1, (size_t) len, in->fp);
  if (n < (size_t) len && ferror (in->fp)) {
    in->err = errno ? errno : EIO;
    return -1;
  }
  if (in->in_prolog && !scan_prolog (in, buf, n))
    return -1;
  for (const char *p = buf, *end = buf + n; (p = memchr (p, '\n', (size_t) (end - p))) != NULL; p++)
    in->newlines++;
  if (n == 0)
    in->eof = TRUE;
  return (int) n;
}

static int
input_close (void *data)
{
  Input *in = data;
  if (in->fp != NULL)
    fclose (in->fp);
  in->fp = NULL;
  return 0;
}

/* ------------------------------------------------------------------------ */

typedef struct {
  char *message;
  int line;
} XmlError;

struct _PtiTraceReader {
  char *path;
  Input in;
  xmlTextReaderPtr xr;
  XmlError xerr;

  PtiTrHeader header;
  guint max_fields;

  /* per rank */
  guint64 *last_start;       /* start of its last event */
  guint64 *last_end;         /* end of its last event */
  guint64 *chunk_of;         /* last chunk holding a group of it (0: none) */

  guint64 n_events;
  guint64 max_end;
  guint64 chunk;             /* current <events> chunk, 1-based */
  gint64 cur_rank;           /* rank of the open process group, -1 if none */
  guint64 group_line;
  gboolean in_events;
  gboolean summary_read;
  gboolean root_closed;
  gboolean done;             /* end reached, or an error returned */
  guint64 n_elements;        /* elements read so far: the ordinal of the last one */

  PtiTrSummary summary;
  gboolean summary_set;

  GString *device, *model, *rud;
  GString **values;          /* [max_fields] */
  const char **value_ptrs;   /* [max_fields] */
};

static void
xml_error_cb (void *data, xmlErrorPtr err)
{
  XmlError *xe = data;
  if (xe->message != NULL || err == NULL)
    return;
  xe->message = g_strstrip (g_strdup (err->message ? err->message : "unknown XML error"));
  xe->line = err->line;
}

static void
set_error (const PtiTraceReader *r, guint64 line, GError **error, const char *format, ...)
  G_GNUC_PRINTF (4, 5);

/* A location is a line, or LOC_ELEMENT | the element's ordinal when libxml2
 * does not know the line (past 65535): then the file is read again to find
 * that start tag (only to report an error). */
#define LOC_ELEMENT (G_GUINT64_CONSTANT (1) << 63)

static void
set_error (const PtiTraceReader *r, guint64 line, GError **error, const char *format, ...)
{
  va_list ap;
  va_start (ap, format);
  g_autofree char *msg = g_strdup_vprintf (format, ap);
  va_end (ap);
  if (line & LOC_ELEMENT)
    line = pti_trace_line_of (r->path, 0, line & ~LOC_ELEMENT);
  if (line > 0)
    g_set_error (error, PTI_TRACE_READER_ERROR, PTI_TRACE_READER_ERROR_INVALID,
                 "%s:%" G_GUINT64_FORMAT ": %s", r->path, line, msg);
  else
    g_set_error (error, PTI_TRACE_READER_ERROR, PTI_TRACE_READER_ERROR_INVALID, "%s: %s",
                 r->path, msg);
}

void
pti_trace_reader_error_at (const PtiTraceReader *r, guint64 line, guint64 element,
                           GError **error, const char *format, ...)
{
  va_list ap;
  va_start (ap, format);
  g_autofree char *msg = g_strdup_vprintf (format, ap);
  va_end (ap);
  set_error (r, pti_trace_line_of (r->path, line, element), error, "%s", msg);
}

guint64
pti_trace_line_of (const char *path, guint64 line, guint64 element)
{
  if (line > 0 || element == 0)
    return line;
  /* Count start tags (skipping comments, processing instructions, CDATA,
   * declarations, end tags and quoted attribute values) and newlines. */
  FILE *fp = fopen (path, "rb");
  if (fp == NULL)
    return 0;
  enum { TEXT, LT, TAG, QUOTE, BANG, COMMENT, CDATA, DECL, PI } st = TEXT;
  guint64 n = 0, at = 1;
  int quote = 0, k = 0;
  char buf[65536];
  size_t got;
  while ((got = fread (buf, 1, sizeof buf, fp)) > 0) {
    for (size_t i = 0; i < got; i++) {
      unsigned char c = (unsigned char) buf[i];
      switch (st) {
      case TEXT:
        if (c == '<')
          st = LT;
        break;
      case LT:
        if (c == '!') {
          st = BANG;
          k = 0;
        } else if (c == '?') {
          st = PI;
          k = 0;
        } else if (c == '/') {
          st = TAG;
        } else {
          if (++n == element) {
            fclose (fp);
            return at;
          }
          st = TAG;
        }
        break;
      case TAG:
        if (c == '"' || c == '\'') {
          quote = c;
          st = QUOTE;
        } else if (c == '>') {
          st = TEXT;
        }
        break;
      case QUOTE:
        if (c == quote)
          st = TAG;
        break;
      case BANG:   /* after "<!": "--" (comment), "[CDATA[", or a declaration */
        if (k == 0 && c == '-') {
          k = 1;
        } else if (k == 1 && c == '-') {
          st = COMMENT;
          k = 0;
        } else if (k == 0 && c == '[') {
          st = CDATA;
        } else {
          st = c == '>' ? TEXT : DECL;
        }
        break;
      case COMMENT:
        if (c == '-')
          k++;
        else if (c == '>' && k >= 2)
          st = TEXT;
        else
          k = 0;
        break;
      case CDATA:
        if (c == ']')
          k++;
        else if (c == '>' && k >= 2)
          st = TEXT;
        else
          k = 0;
        break;
      case DECL:
        if (c == '>')
          st = TEXT;
        break;
      case PI:
        if (c == '>' && k)
          st = TEXT;
        k = c == '?';
        break;
      }
      if (c == '\n')
        at++;
    }
  }
  fclose (fp);
  return 0;
}

/* The location of the node the reader is on.  libxml2 keeps element lines
 * in 16 bits: past 65535 an element is located by its ordinal (see
 * LOC_ELEMENT); other nodes by the parser's line, which may be a few lines
 * ahead (the parser reads 512-byte chunks). */
static guint64
node_line (const PtiTraceReader *r)
{
  xmlNodePtr node = xmlTextReaderCurrentNode (r->xr);
  long line = node != NULL ? xmlGetLineNo (node) : -1;
  if (line > 0 && line < 65535)
    return (guint64) line;
  if (xmlTextReaderNodeType (r->xr) == XML_READER_TYPE_ELEMENT && r->n_elements > 0)
    return LOC_ELEMENT | r->n_elements;
  int pline = xmlTextReaderGetParserLineNumber (r->xr);
  return pline > 0 ? (guint64) pline : 0;
}

/* A failed xmlTextReaderRead: the DOCTYPE, a read error, or libxml2's message. */
static gboolean
read_failed (PtiTraceReader *r, GError **error)
{
  r->done = TRUE;
  if (r->in.doctype) {
    set_error (r, r->in.line, error,
               "a DOCTYPE declaration is not allowed in a trace "
               "(entities are never expanded and external files never read)");
  } else if (r->in.err != 0) {
    g_set_error (error, PTI_TRACE_READER_ERROR, PTI_TRACE_READER_ERROR_IO, "%s: cannot read: %s",
                 r->path, g_strerror (r->in.err));
  } else if (r->xerr.message != NULL) {
    /* An error on the last line, once the whole file was read: most likely
     * a file cut short. */
    gboolean premature = strstr (r->xerr.message, "end of data") != NULL
                         || strstr (r->xerr.message, "not closed") != NULL
                         || strstr (r->xerr.message, "Document is empty") != NULL;
    gboolean at_end = r->in.eof && r->xerr.line > 0 && (guint64) r->xerr.line >= r->in.newlines;
    set_error (r, r->xerr.line > 0 ? (guint64) r->xerr.line : 0, error,
               "malformed XML: %s%s", r->xerr.message,
               premature ? " (the trace is truncated)"
                         : at_end ? " (where the file ends: truncated?)" : "");
  } else {
    set_error (r, 0, error, "malformed XML");
  }
  return FALSE;
}

/* Read the next node.  1: on a node; 0: end of document; -1: error (set). */
static int
advance (PtiTraceReader *r, GError **error)
{
  int ret = xmlTextReaderRead (r->xr);
  if (ret < 0 || r->xerr.message != NULL || r->in.doctype) {
    read_failed (r, error);
    return -1;
  }
  if (ret == 1 && xmlTextReaderNodeType (r->xr) == XML_READER_TYPE_ELEMENT)
    r->n_elements++;
  return ret;
}

/* Skip the subtree of the element the reader is on (not empty). */
static gboolean
skip_subtree (PtiTraceReader *r, GError **error)
{
  /* Read through it (rather than xmlTextReaderNext) to count its elements. */
  int depth = xmlTextReaderDepth (r->xr);
  for (;;) {
    int ret = advance (r, error);
    if (ret <= 0)
      return ret == 0 ? read_failed (r, error) : FALSE;
    if (xmlTextReaderNodeType (r->xr) == XML_READER_TYPE_END_ELEMENT
        && xmlTextReaderDepth (r->xr) == depth)
      return TRUE;
  }
}

static gboolean
is_trace_ns (const xmlChar *ns)
{
  return ns != NULL && strcmp ((const char *) ns, PTI_TRACE_NAMESPACE) == 0;
}

static const char *
local_name (const PtiTraceReader *r)
{
  const xmlChar *n = xmlTextReaderConstLocalName (r->xr);
  return n ? (const char *) n : "";
}

/* "<name>" or "<{ns}name>" for messages. */
static char *
element_label (const PtiTraceReader *r)
{
  const xmlChar *ns = xmlTextReaderConstNamespaceUri (r->xr);
  if (ns == NULL)
    return g_strdup_printf ("<%s> (no namespace; expected %s)", local_name (r), PTI_TRACE_NAMESPACE);
  if (is_trace_ns (ns))
    return g_strdup_printf ("<%s>", local_name (r));
  return g_strdup_printf ("<{%s}%s>", (const char *) ns, local_name (r));
}

/* ------------------------------------------------------------------------ */
/* Numbers */

static gboolean
parse_digits_u64 (const char **pp, guint64 *out, guint64 max)
{
  const char *p = *pp;
  guint64 v = 0;
  if (!g_ascii_isdigit (*p))
    return FALSE;
  for (; g_ascii_isdigit (*p); p++) {
    guint d = (guint) (*p - '0');
    if (v > (max - d) / 10)
      return FALSE;
    v = v * 10 + d;
  }
  *pp = p;
  *out = v;
  return TRUE;
}

/* Seconds below this many fit in a gint64 of nanoseconds. */
#define MAX_SECONDS G_GUINT64_CONSTANT (9223372035)

static gboolean
parse_seconds (const char *text, guint64 *ns, gboolean strict)
{
  const char *p = text;
  guint64 s;
  if (!parse_digits_u64 (&p, &s, MAX_SECONDS))
    return FALSE;
  guint64 frac = 0;
  int digits = 0;
  if (*p == '.') {
    p++;
    for (; g_ascii_isdigit (*p); p++) {
      if (++digits > 9)
        return FALSE;
      frac = frac * 10 + (guint64) (*p - '0');
    }
    if (digits == 0)
      return FALSE;
  }
  if (*p != '\0' || (strict && digits != 9))
    return FALSE;
  for (; digits < 9; digits++)
    frac *= 10;
  *ns = s * G_GUINT64_CONSTANT (1000000000) + frac;
  return TRUE;
}

gboolean
pti_tr_parse_seconds (const char *text, guint64 *ns)
{
  return text != NULL && parse_seconds (text, ns, FALSE);
}

gboolean
pti_tr_parse_number (const char *text, double *value)
{
  if (text == NULL || *text == '\0' || g_ascii_isspace (*text))
    return FALSE;
  /* Plain decimal syntax only: no hex, inf or nan. */
  for (const char *p = text; *p; p++)
    if (!(g_ascii_isdigit (*p) || *p == '.' || *p == '-' || *p == '+' || *p == 'e' || *p == 'E'))
      return FALSE;
  char *end = NULL;
  errno = 0;
  double v = g_ascii_strtod (text, &end);
  if (end == text || *end != '\0' || errno == ERANGE || !isfinite (v))
    return FALSE;
  *value = v;
  return TRUE;
}

gboolean
pti_tr_parse_int64 (const char *text, gint64 *value)
{
  if (text == NULL)
    return FALSE;
  const char *p = text;
  gboolean neg = *p == '-';
  if (neg)
    p++;
  guint64 v;
  if (!parse_digits_u64 (&p, &v, neg ? (guint64) G_MAXINT64 + 1 : (guint64) G_MAXINT64) || *p)
    return FALSE;
  *value = neg ? (gint64) (0 - v) : (gint64) v;
  return TRUE;
}

static gboolean
parse_u64 (const char *text, guint64 *out, guint64 max)
{
  const char *p = text;
  return parse_digits_u64 (&p, out, max) && *p == '\0';
}

static gboolean
parse_i32 (const char *text, gint *out)
{
  gint64 v;
  if (!pti_tr_parse_int64 (text, &v) || v < G_MININT32 || v > G_MAXINT32)
    return FALSE;
  *out = (gint) v;
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* Header */

/* A required attribute of a header element, as a g_malloc'ed string. */
static char *
need_attr (PtiTraceReader *r, const char *name, GError **error)
{
  xmlChar *v = xmlTextReaderGetAttribute (r->xr, (const xmlChar *) name);
  if (v == NULL) {
    set_error (r, node_line (r), error, "<%s> lacks the attribute %s", local_name (r), name);
    return NULL;
  }
  char *s = g_strdup ((const char *) v);
  xmlFree (v);
  return s;
}

static char *
dup_attr (PtiTraceReader *r, const char *name)
{
  xmlChar *v = xmlTextReaderGetAttribute (r->xr, (const xmlChar *) name);
  if (v == NULL)
    return NULL;
  char *s = g_strdup ((const char *) v);
  xmlFree (v);
  return s;
}

static void
header_clear (PtiTrHeader *h)
{
  g_free (h->generator);
  g_free (h->system_name);
  g_free (h->system_file);
  g_free (h->workload_name);
  g_free (h->workload_file);
  for (guint i = 0; i < h->n_params; i++) {
    g_free (h->params[i].name);
    g_free (h->params[i].value);
  }
  g_free (h->params);
  for (guint i = 0; i < h->n_models; i++) {
    g_free (h->models[i].name);
    g_free (h->models[i].owner);
  }
  g_free (h->models);
  for (guint i = 0; i < h->n_records; i++) {
    PtiTrRecordType *t = &h->records[i];
    g_free (t->model);
    g_free (t->ns);
    g_free (t->name);
    g_free (t->description);
    g_strfreev (t->fields);
  }
  g_free (h->records);
  for (guint i = 0; i < h->n_processes; i++)
    g_free (h->processors[i]);
  g_free (h->processors);
  memset (h, 0, sizeof *h);
}

/* Read the children of the list element the reader is on (parameters,
 * models, records, processes), calling @item for each child element named
 * @child.  Other elements are errors. */
typedef gboolean (*ItemFunc) (PtiTraceReader *r, gpointer data, GError **error);

static gboolean
read_list (PtiTraceReader *r, const char *child, ItemFunc item, gpointer data, GError **error)
{
  if (xmlTextReaderIsEmptyElement (r->xr))
    return TRUE;
  int depth = xmlTextReaderDepth (r->xr);
  for (;;) {
    int ret = advance (r, error);
    if (ret < 0)
      return FALSE;
    if (ret == 0)
      return read_failed (r, error);
    int type = xmlTextReaderNodeType (r->xr);
    if (type == XML_READER_TYPE_END_ELEMENT && xmlTextReaderDepth (r->xr) == depth)
      return TRUE;
    if (type != XML_READER_TYPE_ELEMENT)
      continue;
    if (!is_trace_ns (xmlTextReaderConstNamespaceUri (r->xr)) || strcmp (local_name (r), child)) {
      g_autofree char *label = element_label (r);
      set_error (r, node_line (r), error, "unexpected element %s (expected <%s>)", label, child);
      return FALSE;
    }
    if (!item (r, data, error))
      return FALSE;
    if (!xmlTextReaderIsEmptyElement (r->xr) && !skip_subtree (r, error))
      return FALSE;
  }
}

static gboolean
param_item (PtiTraceReader *r, gpointer data, GError **error)
{
  GArray *a = data;
  PtiTrParam p = { need_attr (r, "name", error), NULL };
  if (p.name == NULL)
    return FALSE;
  p.value = need_attr (r, "value", error);
  g_array_append_val (a, p);
  return p.value != NULL;
}

static gboolean
model_item (PtiTraceReader *r, gpointer data, GError **error)
{
  GArray *a = data;
  PtiTrModel m = { need_attr (r, "name", error), NULL };
  if (m.name == NULL)
    return FALSE;
  m.owner = need_attr (r, "owner", error);
  g_array_append_val (a, m);
  return m.owner != NULL;
}

static gboolean
record_item (PtiTraceReader *r, gpointer data, GError **error)
{
  GArray *a = data;
  guint64 line = node_line (r);
  PtiTrRecordType t = { 0 };
  t.time_field = -1;
  g_array_append_val (a, t);   /* freed with the array on error */
  PtiTrRecordType *tp = &g_array_index (a, PtiTrRecordType, a->len - 1);
  g_autofree char *fields = NULL;
  if ((tp->model = need_attr (r, "model", error)) == NULL
      || (tp->ns = need_attr (r, "ns", error)) == NULL
      || (tp->name = need_attr (r, "name", error)) == NULL
      || (fields = need_attr (r, "fields", error)) == NULL
      || (tp->description = need_attr (r, "description", error)) == NULL)
    return FALSE;
  if (strcmp (tp->ns, PTI_TRACE_NAMESPACE) == 0 || tp->ns[0] == '\0') {
    set_error (r, line, error, "record type %s: its namespace must be the model's own, not \"%s\"",
               tp->name, tp->ns);
    return FALSE;
  }
  for (guint i = 0; i + 1 < a->len; i++) {
    PtiTrRecordType *o = &g_array_index (a, PtiTrRecordType, i);
    if (strcmp (o->ns, tp->ns) == 0 && strcmp (o->name, tp->name) == 0) {
      set_error (r, line, error, "record type {%s}%s is declared twice", tp->ns, tp->name);
      return FALSE;
    }
  }
  GPtrArray *f = g_ptr_array_new ();
  char **parts = g_strsplit_set (fields, " \t\r\n", -1);
  for (char **p = parts; *p; p++) {
    if (**p == '\0')
      continue;
    for (guint i = 0; i < f->len; i++)
      if (strcmp (f->pdata[i], *p) == 0) {
        set_error (r, line, error, "record type %s lists the field %s twice", tp->name, *p);
        g_ptr_array_add (f, NULL);
        tp->fields = (char **) g_ptr_array_free (f, FALSE);
        g_strfreev (parts);
        return FALSE;
      }
    if (strcmp (*p, "time") == 0)
      tp->time_field = (int) f->len;
    g_ptr_array_add (f, g_strdup (*p));
  }
  g_strfreev (parts);
  tp->n_fields = f->len;
  g_ptr_array_add (f, NULL);
  tp->fields = (char **) g_ptr_array_free (f, FALSE);
  return TRUE;
}

static gboolean
process_item (PtiTraceReader *r, gpointer data, GError **error)
{
  GPtrArray *a = data;
  g_autofree char *rank = need_attr (r, "rank", error);
  if (rank == NULL)
    return FALSE;
  guint64 v;
  if (!parse_u64 (rank, &v, G_MAXUINT32) || v != a->len) {
    set_error (r, node_line (r), error,
               "process rank=\"%s\": the header lists ranks 0, 1, 2... in order (expected %u)",
               rank, a->len);
    return FALSE;
  }
  char *processor = need_attr (r, "processor", error);
  if (processor == NULL)
    return FALSE;
  g_ptr_array_add (a, processor);
  return TRUE;
}

static gboolean
read_header (PtiTraceReader *r, GError **error)
{
  PtiTrHeader *h = &r->header;
  gboolean seen_processes = FALSE, seen_system = FALSE, seen_workload = FALSE;
  g_autoptr (GArray) params = g_array_new (FALSE, TRUE, sizeof (PtiTrParam));
  g_autoptr (GArray) models = g_array_new (FALSE, TRUE, sizeof (PtiTrModel));
  g_autoptr (GArray) records = g_array_new (FALSE, TRUE, sizeof (PtiTrRecordType));
  g_autoptr (GPtrArray) procs = g_ptr_array_new_with_free_func (g_free);
  gboolean ok = FALSE;

  for (;;) {
    int ret = advance (r, error);
    if (ret < 0)
      goto out;
    if (ret == 0) {
      read_failed (r, error);
      goto out;
    }
    int type = xmlTextReaderNodeType (r->xr);
    int depth = xmlTextReaderDepth (r->xr);
    if (type == XML_READER_TYPE_END_ELEMENT && depth == 1)
      break;
    if (type != XML_READER_TYPE_ELEMENT)
      continue;
    const xmlChar *ns = xmlTextReaderConstNamespaceUri (r->xr);
    const char *name = local_name (r);
    if (!is_trace_ns (ns)) {
      if (ns == NULL) {
        g_autofree char *label = element_label (r);
        set_error (r, node_line (r), error, "unexpected element %s in <header>", label);
        goto out;
      }
      /* A tool's own element: skip it. */
      if (!xmlTextReaderIsEmptyElement (r->xr) && !skip_subtree (r, error))
        goto out;
      continue;
    }
    gboolean list_done = FALSE;
    if (strcmp (name, "generator") == 0) {
      xmlChar *text = xmlTextReaderReadString (r->xr);
      g_free (h->generator);
      h->generator = g_strstrip (g_strdup (text ? (const char *) text : ""));
      xmlFree (text);
    } else if (strcmp (name, "system") == 0) {
      seen_system = TRUE;
      if ((h->system_name = need_attr (r, "name", error)) == NULL
          || (h->system_file = need_attr (r, "file", error)) == NULL)
        goto out;
    } else if (strcmp (name, "workload") == 0) {
      seen_workload = TRUE;
      if ((h->workload_name = need_attr (r, "name", error)) == NULL)
        goto out;
      h->workload_file = dup_attr (r, "file");
    } else if (strcmp (name, "parameters") == 0) {
      if (!read_list (r, "param", param_item, params, error))
        goto out;
      list_done = TRUE;
    } else if (strcmp (name, "models") == 0) {
      if (!read_list (r, "model", model_item, models, error))
        goto out;
      list_done = TRUE;
    } else if (strcmp (name, "records") == 0) {
      if (!read_list (r, "record", record_item, records, error))
        goto out;
      list_done = TRUE;
    } else if (strcmp (name, "processes") == 0) {
      guint64 line = node_line (r);
      g_autofree char *count = need_attr (r, "count", error);
      guint64 n;
      if (count == NULL)
        goto out;
      if (!parse_u64 (count, &n, G_MAXUINT32 - 1)) {
        set_error (r, line, error, "processes count=\"%s\" is not a count", count);
        goto out;
      }
      if (!read_list (r, "process", process_item, procs, error))
        goto out;
      if (procs->len != n) {
        set_error (r, line, error, "processes count=\"%" G_GUINT64_FORMAT "\" but %u are listed",
                   n, procs->len);
        goto out;
      }
      seen_processes = TRUE;
      list_done = TRUE;
    } else {
      set_error (r, node_line (r), error, "unexpected element <%s> in <header>", name);
      goto out;
    }
    if (!list_done && !xmlTextReaderIsEmptyElement (r->xr) && strcmp (name, "generator") != 0
        && !skip_subtree (r, error))
      goto out;
  }
  if (!seen_system || !seen_workload || !seen_processes) {
    set_error (r, node_line (r), error, "<header> lacks <%s>",
               !seen_system ? "system" : !seen_workload ? "workload" : "processes");
    goto out;
  }
  ok = TRUE;
out:
  h->n_params = params->len;
  h->params = (PtiTrParam *) g_array_steal (params, NULL);
  h->n_models = models->len;
  h->models = (PtiTrModel *) g_array_steal (models, NULL);
  h->n_records = records->len;
  h->records = (PtiTrRecordType *) g_array_steal (records, NULL);
  h->n_processes = procs->len;
  g_ptr_array_set_free_func (procs, NULL);
  h->processors = (char **) g_ptr_array_steal (procs, NULL);
  return ok;
}

PtiTraceReader *
pti_trace_reader_open (const char *path, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  FILE *fp = fopen (path, "rb");
  if (fp == NULL) {
    int e = errno;
    g_set_error (error, PTI_TRACE_READER_ERROR, PTI_TRACE_READER_ERROR_IO, "%s: cannot open: %s",
                 path, g_strerror (e));
    return NULL;
  }
  PtiTraceReader *r = g_new0 (PtiTraceReader, 1);
  r->path = g_strdup (path);
  r->in.fp = fp;
  r->in.in_prolog = TRUE;
  r->in.line = 1;
  r->cur_rank = -1;
  r->xr = xmlReaderForIO (input_read, input_close, &r->in, NULL, NULL,
                          XML_PARSE_NONET | XML_PARSE_NOCDATA | XML_PARSE_BIG_LINES
                          | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  if (r->xr == NULL) {
    r->in.fp = NULL;   /* closed by libxml2 */
    g_set_error (error, PTI_TRACE_READER_ERROR, PTI_TRACE_READER_ERROR_IO,
                 "%s: cannot create an XML reader", path);
    pti_trace_reader_free (r);
    return NULL;
  }
  xmlTextReaderSetStructuredErrorHandler (r->xr, xml_error_cb, &r->xerr);
  r->device = g_string_new (NULL);
  r->model = g_string_new (NULL);
  r->rud = g_string_new (NULL);

  /* The root. */
  for (;;) {
    int ret = advance (r, error);
    if (ret < 0)
      goto fail;
    if (ret == 0) {
      if (r->xerr.message == NULL)
        set_error (r, 0, error, "empty document: no <trace> element");
      else
        read_failed (r, error);
      goto fail;
    }
    int type = xmlTextReaderNodeType (r->xr);
    if (type == XML_READER_TYPE_DOCUMENT_TYPE) {
      set_error (r, node_line (r), error, "a DOCTYPE declaration is not allowed in a trace");
      goto fail;
    }
    if (type == XML_READER_TYPE_ELEMENT)
      break;
  }
  if (!is_trace_ns (xmlTextReaderConstNamespaceUri (r->xr)) || strcmp (local_name (r), "trace")) {
    g_autofree char *label = element_label (r);
    set_error (r, node_line (r), error, "not a pti trace: the root element is %s, not <trace> in %s",
               label, PTI_TRACE_NAMESPACE);
    goto fail;
  }
  {
    g_autofree char *version = dup_attr (r, "version");
    if (version == NULL || strcmp (version, "1") != 0) {
      set_error (r, node_line (r), error,
                 "trace format version \"%s\" is not one this reader knows (1)",
                 version ? version : "(missing)");
      goto fail;
    }
  }
  if (xmlTextReaderIsEmptyElement (r->xr)) {
    set_error (r, node_line (r), error, "<trace> is empty: no header");
    goto fail;
  }
  /* The header must come first. */
  for (;;) {
    int ret = advance (r, error);
    if (ret < 0)
      goto fail;
    if (ret == 0) {
      read_failed (r, error);
      goto fail;
    }
    int type = xmlTextReaderNodeType (r->xr);
    if (type == XML_READER_TYPE_ELEMENT)
      break;
    if (type == XML_READER_TYPE_END_ELEMENT) {
      set_error (r, node_line (r), error, "<trace> has no <header>");
      goto fail;
    }
  }
  if (!is_trace_ns (xmlTextReaderConstNamespaceUri (r->xr)) || strcmp (local_name (r), "header")) {
    g_autofree char *label = element_label (r);
    set_error (r, node_line (r), error, "expected <header> first in <trace>, found %s", label);
    goto fail;
  }
  if (xmlTextReaderIsEmptyElement (r->xr)) {
    set_error (r, node_line (r), error, "<header> is empty");
    goto fail;
  }
  if (!read_header (r, error))
    goto fail;

  guint n = r->header.n_processes;
  r->last_start = g_new0 (guint64, MAX (n, 1));
  r->last_end = g_new0 (guint64, MAX (n, 1));
  r->chunk_of = g_new0 (guint64, MAX (n, 1));
  for (guint i = 0; i < r->header.n_records; i++)
    r->max_fields = MAX (r->max_fields, r->header.records[i].n_fields);
  r->values = g_new0 (GString *, MAX (r->max_fields, 1));
  r->value_ptrs = g_new0 (const char *, MAX (r->max_fields, 1));
  for (guint i = 0; i < r->max_fields; i++)
    r->values[i] = g_string_new (NULL);
  return r;

fail:
  pti_trace_reader_free (r);
  return NULL;
}

void
pti_trace_reader_free (PtiTraceReader *r)
{
  if (r == NULL)
    return;
  if (r->xr != NULL)
    xmlFreeTextReader (r->xr);   /* closes the input */
  else if (r->in.fp != NULL)
    fclose (r->in.fp);
  header_clear (&r->header);
  g_free (r->summary.procs);
  g_free (r->last_start);
  g_free (r->last_end);
  g_free (r->chunk_of);
  if (r->values != NULL)
    for (guint i = 0; i < r->max_fields; i++)
      g_string_free (r->values[i], TRUE);
  g_free (r->values);
  g_free (r->value_ptrs);
  if (r->device)
    g_string_free (r->device, TRUE);
  if (r->model)
    g_string_free (r->model, TRUE);
  if (r->rud)
    g_string_free (r->rud, TRUE);
  g_free (r->xerr.message);
  g_free (r->path);
  g_free (r);
}

const PtiTrHeader *
pti_trace_reader_header (const PtiTraceReader *r)
{
  return &r->header;
}

const char *
pti_trace_reader_path (const PtiTraceReader *r)
{
  return r->path;
}

const PtiTrSummary *
pti_trace_reader_summary (const PtiTraceReader *r)
{
  return r->summary_set ? &r->summary : NULL;
}

guint64
pti_trace_reader_n_events (const PtiTraceReader *r)
{
  return r->n_events;
}

/* ------------------------------------------------------------------------ */
/* Events */

enum {
  A_KIND = 1 << 0, A_START = 1 << 1, A_END = 1 << 2, A_DEVICE = 1 << 3, A_MODEL = 1 << 4,
  A_RUD = 1 << 5, A_PEER = 1 << 6, A_TAG = 1 << 7, A_BYTES = 1 << 8, A_MSG = 1 << 9,
  A_PROTOCOL = 1 << 10, A_WAIT = 1 << 11,
};
#define A_MESSAGE (A_PEER | A_TAG | A_BYTES | A_MSG | A_PROTOCOL | A_WAIT)

static const char *
attr_names (guint mask)
{
  static const char *const names[] = { "kind", "start", "end", "device", "model", "rud", "peer",
                                       "tag", "bytes", "msg", "protocol", "wait" };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (mask & (1u << i))
      return names[i];
  return "?";
}

static gboolean
bad_attr (PtiTraceReader *r, guint64 line, const char *name, const char *value, const char *what,
          GError **error)
{
  set_error (r, line, error, "<event> %s=\"%s\": %s", name, value, what);
  return FALSE;
}

static gboolean
read_event (PtiTraceReader *r, PtiTrItem *item, GError **error)
{
  PtiTrEvent *e = &item->event;
  guint64 line = item->line ? item->line : LOC_ELEMENT | item->element;
  guint seen = 0;
  memset (e, 0, sizeof *e);
  e->rank = (guint) r->cur_rank;

  while (xmlTextReaderMoveToNextAttribute (r->xr) == 1) {
    const xmlChar *ns = xmlTextReaderConstNamespaceUri (r->xr);
    if (ns != NULL)
      continue;   /* a model's annotation, or a namespace declaration */
    const char *name = local_name (r);
    const char *v = (const char *) xmlTextReaderConstValue (r->xr);
    if (v == NULL)
      v = "";
    guint bit = 0;
    guint64 u;
    switch (name[0]) {
    case 'k':
      if (strcmp (name, "kind") == 0) {
        bit = A_KIND;
        guint k;
        for (k = 0; k < PTI_TR_N_KINDS; k++)
          if (strcmp (v, kind_names[k]) == 0)
            break;
        if (k == PTI_TR_N_KINDS)
          return bad_attr (r, line, name, v,
                           "unknown kind (compute, send, recv, isend, irecv, wait, waitany)", error);
        e->kind = (PtiTrKind) k;
      }
      break;
    case 's':
      if (strcmp (name, "start") == 0) {
        bit = A_START;
        if (!parse_seconds (v, &e->start, TRUE))
          return bad_attr (r, line, name, v, "not a time in seconds with nine fraction digits", error);
      }
      break;
    case 'e':
      if (strcmp (name, "end") == 0) {
        bit = A_END;
        if (!parse_seconds (v, &e->end, TRUE))
          return bad_attr (r, line, name, v, "not a time in seconds with nine fraction digits", error);
      }
      break;
    case 'w':
      if (strcmp (name, "wait") == 0) {
        bit = A_WAIT;
        if (!parse_seconds (v, &e->wait, TRUE))
          return bad_attr (r, line, name, v, "not a time in seconds with nine fraction digits", error);
      }
      break;
    case 'd':
      if (strcmp (name, "device") == 0) {
        bit = A_DEVICE;
        g_string_assign (r->device, v);
      }
      break;
    case 'm':
      if (strcmp (name, "model") == 0) {
        bit = A_MODEL;
        g_string_assign (r->model, v);
      } else if (strcmp (name, "msg") == 0) {
        bit = A_MSG;
        if (!parse_u64 (v, &e->msg, G_MAXUINT64))
          return bad_attr (r, line, name, v, "not a message id (unsigned 64-bit)", error);
      }
      break;
    case 'r':
      if (strcmp (name, "rud") == 0) {
        bit = A_RUD;
        g_string_assign (r->rud, v);
      }
      break;
    case 'p':
      if (strcmp (name, "peer") == 0) {
        bit = A_PEER;
        if (!parse_u64 (v, &u, G_MAXUINT32))
          return bad_attr (r, line, name, v, "not a rank", error);
        if (u >= r->header.n_processes)
          return bad_attr (r, line, name, v, "no such rank in the header's processes", error);
        e->peer = (guint) u;
      } else if (strcmp (name, "protocol") == 0) {
        bit = A_PROTOCOL;
        if (strcmp (v, "rendezvous") == 0)
          e->rendezvous = TRUE;
        else if (strcmp (v, "eager") != 0)
          return bad_attr (r, line, name, v, "not a protocol (eager, rendezvous)", error);
      }
      break;
    case 't':
      if (strcmp (name, "tag") == 0) {
        bit = A_TAG;
        if (!parse_i32 (v, &e->tag))
          return bad_attr (r, line, name, v, "not a tag (signed 32-bit)", error);
      }
      break;
    case 'b':
      if (strcmp (name, "bytes") == 0) {
        bit = A_BYTES;
        if (!parse_u64 (v, &e->bytes, G_MAXUINT64))
          return bad_attr (r, line, name, v, "not a size in bytes", error);
      }
      break;
    }
    if (bit == 0) {
      set_error (r, line, error, "<event> has an attribute the format does not define: %s", name);
      return FALSE;
    }
    seen |= bit;
  }
  xmlTextReaderMoveToElement (r->xr);

  guint required = A_KIND | A_START | A_END | A_DEVICE | A_MODEL;
  if ((seen & required) != required) {
    set_error (r, line, error, "<event> lacks the attribute %s", attr_names (required & ~seen));
    return FALSE;
  }
  if (PTI_TR_KIND_IS_MESSAGE (e->kind)) {
    if ((seen & A_MESSAGE) != A_MESSAGE) {
      set_error (r, line, error, "<event kind=\"%s\"> lacks the attribute %s",
                 kind_names[e->kind], attr_names (A_MESSAGE & ~seen));
      return FALSE;
    }
  } else if (e->kind == PTI_TR_COMPUTE) {
    if (seen & A_MESSAGE) {
      set_error (r, line, error, "<event kind=\"compute\"> has the message attribute %s",
                 attr_names (seen & A_MESSAGE));
      return FALSE;
    }
  } else {   /* wait, waitany */
    if (!(seen & A_WAIT)) {
      set_error (r, line, error, "<event kind=\"%s\"> lacks the attribute wait", kind_names[e->kind]);
      return FALSE;
    }
    if (seen & (A_MESSAGE & ~A_WAIT)) {
      set_error (r, line, error, "<event kind=\"%s\"> has the message attribute %s",
                 kind_names[e->kind], attr_names (seen & A_MESSAGE & ~A_WAIT));
      return FALSE;
    }
  }
  if (e->end < e->start) {
    set_error (r, line, error, "<event> ends before it starts (start %.9f s, end %.9f s)",
               e->start / 1e9, e->end / 1e9);
    return FALSE;
  }
  if (e->wait > e->end - e->start) {
    set_error (r, line, error, "<event> waits %.9f s, longer than it lasts (%.9f s)",
               e->wait / 1e9, (e->end - e->start) / 1e9);
    return FALSE;
  }
  guint rank = e->rank;
  if (e->start < r->last_start[rank]) {
    set_error (r, line, error,
               "rank %u: this event starts at %.9f s, before its previous event (%.9f s); "
               "a process's events must be in its order", rank, e->start / 1e9,
               r->last_start[rank] / 1e9);
    return FALSE;
  }
  r->last_start[rank] = e->start;
  r->last_end[rank] = e->end;
  r->max_end = MAX (r->max_end, e->end);
  r->n_events++;
  e->device = r->device->str;
  e->model = r->model->str;
  e->rud = (seen & A_RUD) ? r->rud->str : NULL;
  if (!xmlTextReaderIsEmptyElement (r->xr)) {
    /* The format gives events no content; anything but blanks is an error. */
    int depth = xmlTextReaderDepth (r->xr);
    for (;;) {
      int ret = advance (r, error);
      if (ret <= 0)
        return ret == 0 ? read_failed (r, error) : FALSE;
      int type = xmlTextReaderNodeType (r->xr);
      if (type == XML_READER_TYPE_END_ELEMENT && xmlTextReaderDepth (r->xr) == depth)
        break;
      if (type == XML_READER_TYPE_ELEMENT || type == XML_READER_TYPE_TEXT) {
        set_error (r, node_line (r), error, "<event> has content; the format gives it none");
        return FALSE;
      }
    }
  }
  return TRUE;
}

/* The element the reader is on is in another namespace: a model record. */
static gboolean
read_record (PtiTraceReader *r, PtiTrItem *item, GError **error)
{
  guint64 loc = item->line ? item->line : LOC_ELEMENT | item->element;
  const char *ns = (const char *) xmlTextReaderConstNamespaceUri (r->xr);
  const char *name = local_name (r);
  const PtiTrHeader *h = &r->header;
  guint t;
  for (t = 0; t < h->n_records; t++)
    if (strcmp (h->records[t].ns, ns) == 0 && strcmp (h->records[t].name, name) == 0)
      break;
  if (t == h->n_records) {
    set_error (r, loc, error,
               "record <{%s}%s> is not declared in the header's <records>", ns, name);
    return FALSE;
  }
  const PtiTrRecordType *rt = &h->records[t];
  guint64 seen = 0;   /* fields seen, as a bit set (at most 64 checked) */
  for (guint i = 0; i < rt->n_fields; i++)
    r->value_ptrs[i] = NULL;
  while (xmlTextReaderMoveToNextAttribute (r->xr) == 1) {
    if (xmlTextReaderConstNamespaceUri (r->xr) != NULL)
      continue;
    const char *an = local_name (r);
    guint i;
    for (i = 0; i < rt->n_fields; i++)
      if (strcmp (rt->fields[i], an) == 0)
        break;
    if (i == rt->n_fields) {
      set_error (r, loc, error, "record <%s> has the attribute %s, not one of its fields (%s)",
                 name, an, "declared in the header");
      return FALSE;
    }
    const char *v = (const char *) xmlTextReaderConstValue (r->xr);
    g_string_assign (r->values[i], v ? v : "");
    r->value_ptrs[i] = r->values[i]->str;
    if (i < 64)
      seen |= G_GUINT64_CONSTANT (1) << i;
  }
  xmlTextReaderMoveToElement (r->xr);
  for (guint i = 0; i < rt->n_fields; i++)
    if (r->value_ptrs[i] == NULL) {
      set_error (r, loc, error, "record <%s> lacks its field %s", name, rt->fields[i]);
      return FALSE;
    }
  PtiTrRecord *rec = &item->record;
  rec->type = t;
  rec->in_process = r->cur_rank >= 0;
  rec->rank = rec->in_process ? (guint) r->cur_rank : 0;
  rec->values = r->value_ptrs;
  if (rt->time_field >= 0) {
    const char *tv = r->value_ptrs[rt->time_field];
    if (!parse_seconds (tv, &rec->time, FALSE)) {
      set_error (r, loc, error, "record <%s> time=\"%s\" is not a time in seconds", name, tv);
      return FALSE;
    }
  } else {
    rec->time = rec->in_process ? r->last_end[rec->rank] : r->max_end;
  }
  if (!xmlTextReaderIsEmptyElement (r->xr) && !skip_subtree (r, error))
    return FALSE;
  return TRUE;
}

static gboolean
read_summary (PtiTraceReader *r, PtiTrItem *item, GError **error)
{
  guint64 line = node_line (r);
  guint n = r->header.n_processes;
  g_autofree char *pt = dup_attr (r, "predicted_time");
  g_autofree char *ev = dup_attr (r, "events");
  g_autofree char *derived_attr = dup_attr (r, "derived");
  guint64 derived = 0;
  if (pt == NULL || !parse_seconds (pt, &r->summary.predicted, TRUE)) {
    set_error (r, line, error, "<summary> predicted_time=\"%s\" is not a time in seconds",
               pt ? pt : "(missing)");
    return FALSE;
  }
  if (ev == NULL || !parse_u64 (ev, &r->summary.events, G_MAXUINT64)) {
    set_error (r, line, error, "<summary> events=\"%s\" is not a count", ev ? ev : "(missing)");
    return FALSE;
  }
  if (derived_attr != NULL && (!parse_u64 (derived_attr, &derived, G_MAXUINT64)
                               || derived > r->summary.events)) {
    set_error (r, line, error, "<summary> derived=\"%s\" is not a count of at most events",
               derived_attr);
    return FALSE;
  }
  r->summary.procs = g_new0 (PtiTrProcSummary, MAX (n, 1));
  if (!xmlTextReaderIsEmptyElement (r->xr)) {
    for (;;) {
      int ret = advance (r, error);
      if (ret <= 0)
        return ret == 0 ? read_failed (r, error) : FALSE;
      int type = xmlTextReaderNodeType (r->xr);
      if (type == XML_READER_TYPE_END_ELEMENT && xmlTextReaderDepth (r->xr) == 1)
        break;
      if (type == XML_READER_TYPE_TEXT) {
        set_error (r, node_line (r), error, "unexpected text in <summary>");
        return FALSE;
      }
      if (type != XML_READER_TYPE_ELEMENT)
        continue;
      guint64 pline = node_line (r);
      if (!is_trace_ns (xmlTextReaderConstNamespaceUri (r->xr)) || strcmp (local_name (r), "process")
          || xmlTextReaderDepth (r->xr) != 2) {
        g_autofree char *label = element_label (r);
        set_error (r, pline, error, "unexpected element %s in <summary>", label);
        return FALSE;
      }
      static const char *const names[] = { "rank", "end", "compute", "comm", "wait", "events" };
      char *vals[G_N_ELEMENTS (names)];
      gboolean ok = TRUE;
      guint64 rank = 0;
      PtiTrProcSummary ps = { TRUE, 0, 0, 0, 0, 0 };
      guint64 *dest[] = { &rank, &ps.end, &ps.compute, &ps.comm, &ps.wait, &ps.events };
      for (guint i = 0; i < G_N_ELEMENTS (names); i++)
        vals[i] = dup_attr (r, names[i]);
      for (guint i = 0; i < G_N_ELEMENTS (names) && ok; i++) {
        gboolean good = vals[i] != NULL
          && (i == 0 || i == 5 ? parse_u64 (vals[i], dest[i], G_MAXUINT64)
                               : parse_seconds (vals[i], dest[i], TRUE));
        if (!good) {
          set_error (r, pline, error, "<summary> <process> %s=\"%s\" is not %s", names[i],
                     vals[i] ? vals[i] : "(missing)",
                     i == 0 ? "a rank" : i == 5 ? "a count" : "a time in seconds");
          ok = FALSE;
        }
      }
      for (guint i = 0; i < G_N_ELEMENTS (names); i++)
        g_free (vals[i]);
      if (!ok)
        return FALSE;
      if (rank >= n) {
        set_error (r, pline, error, "<summary> lists rank %" G_GUINT64_FORMAT
                   ", which the header does not", rank);
        return FALSE;
      }
      if (r->summary.procs[rank].present) {
        set_error (r, pline, error, "<summary> lists rank %" G_GUINT64_FORMAT " twice", rank);
        return FALSE;
      }
      r->summary.procs[rank] = ps;
      if (!xmlTextReaderIsEmptyElement (r->xr) && !skip_subtree (r, error))
        return FALSE;
    }
  }
  if (r->summary.events - derived != r->n_events) {
    g_autofree char *of = derived ? g_strdup_printf (" (%" G_GUINT64_FORMAT " derived, not "
                                                     "written)", derived) : g_strdup ("");
    set_error (r, line, error,
               "the summary counts %" G_GUINT64_FORMAT " events%s but the trace holds %"
               G_GUINT64_FORMAT " (edited or spliced?)", r->summary.events, of, r->n_events);
    return FALSE;
  }
  if (r->max_end > r->summary.predicted) {
    set_error (r, line, error, "an event ends at %.9f s, after the predicted time %.9f s",
               r->max_end / 1e9, r->summary.predicted / 1e9);
    return FALSE;
  }
  r->summary_set = TRUE;
  item->type = PTI_TR_ITEM_SUMMARY;
  item->line = line & LOC_ELEMENT ? 0 : line;
  item->element = 0;
  item->chunk = 0;
  return TRUE;
}

gboolean
pti_trace_reader_next (PtiTraceReader *r, PtiTrItem *item, GError **error)
{
  g_return_val_if_fail (r != NULL && item != NULL, FALSE);
  if (r->done)
    return FALSE;
  for (;;) {
    int ret = advance (r, error);
    if (ret < 0)
      return FALSE;
    if (ret == 0) {
      r->done = TRUE;
      if (!r->root_closed || !r->summary_read) {
        set_error (r, 0, error, "the trace ends before its %s (truncated?)",
                   r->summary_read ? "end" : "<summary>");
        return FALSE;
      }
      return FALSE;
    }
    int type = xmlTextReaderNodeType (r->xr);
    int depth = xmlTextReaderDepth (r->xr);
    switch (type) {
    case XML_READER_TYPE_ELEMENT: {
      const xmlChar *ns = xmlTextReaderConstNamespaceUri (r->xr);
      const char *name = local_name (r);
      gboolean trace_ns = is_trace_ns (ns);
      guint64 line = node_line (r);
      if (r->summary_read || r->root_closed) {
        g_autofree char *label = element_label (r);
        set_error (r, line, error, "unexpected element %s after <summary>", label);
        r->done = TRUE;
        return FALSE;
      }
      if (depth == 1) {
        if (trace_ns && strcmp (name, "events") == 0) {
          r->chunk++;
          r->in_events = !xmlTextReaderIsEmptyElement (r->xr);
          continue;
        }
        if (trace_ns && strcmp (name, "summary") == 0) {
          if (r->chunk == 0) {
            set_error (r, line, error, "<summary> before any <events>");
            r->done = TRUE;
            return FALSE;
          }
          r->summary_read = TRUE;
          if (!read_summary (r, item, error)) {
            r->done = TRUE;
            return FALSE;
          }
          return TRUE;
        }
        g_autofree char *label = element_label (r);
        set_error (r, line, error, "unexpected element %s in <trace>", label);
        r->done = TRUE;
        return FALSE;
      }
      if (depth == 2 && r->in_events && trace_ns && strcmp (name, "process") == 0) {
        g_autofree char *rank = dup_attr (r, "rank");
        guint64 v;
        if (rank == NULL || !parse_u64 (rank, &v, G_MAXUINT32)
            || v >= r->header.n_processes) {
          set_error (r, line, error, "<process rank=\"%s\">: not a rank listed in the header",
                     rank ? rank : "(missing)");
          r->done = TRUE;
          return FALSE;
        }
        if (r->chunk_of[v] == r->chunk) {
          set_error (r, line, error, "rank %" G_GUINT64_FORMAT
                     " has a second process group in the same <events> chunk", v);
          r->done = TRUE;
          return FALSE;
        }
        r->chunk_of[v] = r->chunk;
        r->cur_rank = xmlTextReaderIsEmptyElement (r->xr) ? -1 : (gint64) v;
        r->group_line = line;
        continue;
      }
      if ((depth == 3 && r->cur_rank >= 0) || (depth == 2 && r->in_events && r->cur_rank < 0)) {
        memset (item, 0, sizeof *item);
        item->line = line & LOC_ELEMENT ? 0 : line;
        item->element = r->n_elements;
        item->chunk = r->chunk;
        if (trace_ns && strcmp (name, "event") == 0 && depth == 3) {
          item->type = PTI_TR_ITEM_EVENT;
          if (!read_event (r, item, error)) {
            r->done = TRUE;
            return FALSE;
          }
          return TRUE;
        }
        if (ns != NULL && !trace_ns) {
          item->type = PTI_TR_ITEM_RECORD;
          if (!read_record (r, item, error)) {
            r->done = TRUE;
            return FALSE;
          }
          return TRUE;
        }
      }
      g_autofree char *label = element_label (r);
      set_error (r, line, error, "unexpected element %s here%s", label,
                 depth == 2 && trace_ns && strcmp (name, "event") == 0
                   ? " (events belong in a <process> group)" : "");
      r->done = TRUE;
      return FALSE;
    }
    case XML_READER_TYPE_END_ELEMENT:
      if (depth == 2 && r->cur_rank >= 0)
        r->cur_rank = -1;
      else if (depth == 1)
        r->in_events = FALSE;
      else if (depth == 0)
        r->root_closed = TRUE;
      continue;
    case XML_READER_TYPE_TEXT:
    case XML_READER_TYPE_CDATA: {
      set_error (r, node_line (r), error, "unexpected text");
      r->done = TRUE;
      return FALSE;
    }
    case XML_READER_TYPE_ENTITY_REFERENCE:
      set_error (r, node_line (r), error, "unexpected entity reference");
      r->done = TRUE;
      return FALSE;
    default:
      continue;   /* blanks, comments, processing instructions */
    }
  }
}

gboolean
pti_trace_reader_skip_to_end (PtiTraceReader *r, GError **error)
{
  PtiTrItem item;
  GError *local = NULL;
  while (pti_trace_reader_next (r, &item, &local))
    ;
  if (local != NULL) {
    g_propagate_error (error, local);
    return FALSE;
  }
  return TRUE;
}
