/* Streaming reader of pti's XML output trace.  See trace-reader.h. */
#include "trace-reader.h"

#include <errno.h>
#include <math.h>
#include <libxml/xmlreader.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

G_DEFINE_QUARK (pti-trace-reader-error-quark, pti_trace_reader_error)

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

/* A collective call begun on a rank and not ended yet. */
typedef struct {
  gboolean open;
  PtiTraceCall call;
  guint comm;
  guint64 begin;             /* ns */
  guint64 line, element;     /* of its begin marker */
} OpenCall;

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
  GHashTable **outstanding;  /* request id -> Posted: posted, not completed yet (or NULL) */
  OpenCall *open_call;
  guint64 n_open_calls;      /* ranks inside a collective */
  guint64 n_derived;         /* events of the derived spans read */

  /* the completions of the current event */
  PtiTrCompletion *completions;
  guint n_completions, cap_completions;
  PtiTrCompletion own;       /* a blocking event's own */

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

  GString *device, *model, *rud, *config;
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
    g_free (h->models[i].config);
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
  PtiTrParam p = { need_attr (r, PTI_TRACE_A_NAME, error), NULL };
  if (p.name == NULL)
    return FALSE;
  p.value = need_attr (r, PTI_TRACE_A_VALUE, error);
  g_array_append_val (a, p);
  return p.value != NULL;
}

static gboolean
model_item (PtiTraceReader *r, gpointer data, GError **error)
{
  GArray *a = data;
  PtiTrModel m = { need_attr (r, PTI_TRACE_A_NAME, error), NULL };
  if (m.name == NULL)
    return FALSE;
  m.owner = need_attr (r, PTI_TRACE_A_OWNER, error);
  m.config = m.owner != NULL ? (char *) xmlTextReaderGetAttribute (r->xr,
                                                                    (const xmlChar *) PTI_TRACE_A_CONFIG)
                             : NULL;
  if (m.config != NULL) {
    char *copy = g_strdup (m.config);
    xmlFree (m.config);
    m.config = copy;
  }
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
  if ((tp->model = need_attr (r, PTI_TRACE_A_MODEL, error)) == NULL
      || (tp->ns = need_attr (r, PTI_TRACE_A_NS, error)) == NULL
      || (tp->name = need_attr (r, PTI_TRACE_A_NAME, error)) == NULL
      || (fields = need_attr (r, PTI_TRACE_A_FIELDS, error)) == NULL
      || (tp->description = need_attr (r, PTI_TRACE_A_DESCRIPTION, error)) == NULL)
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
    if (strcmp (*p, PTI_TRACE_A_TIME) == 0)
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
  g_autofree char *rank = need_attr (r, PTI_TRACE_A_RANK, error);
  if (rank == NULL)
    return FALSE;
  guint64 v;
  if (!parse_u64 (rank, &v, G_MAXUINT32) || v != a->len) {
    set_error (r, node_line (r), error,
               "process rank=\"%s\": the header lists ranks 0, 1, 2... in order (expected %u)",
               rank, a->len);
    return FALSE;
  }
  char *processor = need_attr (r, PTI_TRACE_A_PROCESSOR, error);
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
    if (strcmp (name, PTI_TRACE_E_GENERATOR) == 0) {
      xmlChar *text = xmlTextReaderReadString (r->xr);
      g_free (h->generator);
      h->generator = g_strstrip (g_strdup (text ? (const char *) text : ""));
      xmlFree (text);
    } else if ((strcmp (name, PTI_TRACE_E_SYSTEM) == 0 && seen_system)
               || (strcmp (name, PTI_TRACE_E_WORKLOAD) == 0 && seen_workload)) {
      set_error (r, node_line (r), error, "a second <%s> in <header>", name);
      goto out;
    } else if (strcmp (name, PTI_TRACE_E_SYSTEM) == 0) {
      seen_system = TRUE;
      if ((h->system_name = need_attr (r, PTI_TRACE_A_NAME, error)) == NULL
          || (h->system_file = need_attr (r, PTI_TRACE_A_FILE, error)) == NULL)
        goto out;
    } else if (strcmp (name, PTI_TRACE_E_WORKLOAD) == 0) {
      seen_workload = TRUE;
      if ((h->workload_name = need_attr (r, PTI_TRACE_A_NAME, error)) == NULL)
        goto out;
      h->workload_file = dup_attr (r, PTI_TRACE_A_FILE);
    } else if (strcmp (name, PTI_TRACE_E_PARAMETERS) == 0) {
      if (!read_list (r, PTI_TRACE_E_PARAM, param_item, params, error))
        goto out;
      list_done = TRUE;
    } else if (strcmp (name, PTI_TRACE_E_MODELS) == 0) {
      if (!read_list (r, PTI_TRACE_E_MODEL, model_item, models, error))
        goto out;
      list_done = TRUE;
    } else if (strcmp (name, PTI_TRACE_E_RECORDS) == 0) {
      if (!read_list (r, PTI_TRACE_E_RECORD, record_item, records, error))
        goto out;
      list_done = TRUE;
    } else if (strcmp (name, PTI_TRACE_E_PROCESSES) == 0) {
      guint64 line = node_line (r);
      g_autofree char *count = need_attr (r, PTI_TRACE_A_COUNT, error);
      guint64 n;
      if (count == NULL)
        goto out;
      if (!parse_u64 (count, &n, G_MAXUINT32 - 1)) {
        set_error (r, line, error, "processes count=\"%s\" is not a count", count);
        goto out;
      }
      if (!read_list (r, PTI_TRACE_E_PROCESS, process_item, procs, error))
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
    if (!list_done && !xmlTextReaderIsEmptyElement (r->xr) && strcmp (name, PTI_TRACE_E_GENERATOR) != 0
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
  r->config = g_string_new (NULL);

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
  const xmlChar *root_ns = xmlTextReaderConstNamespaceUri (r->xr);
  if (root_ns != NULL && strcmp ((const char *) root_ns, PTI_TRACE_NAMESPACE_1) == 0
      && strcmp (local_name (r), PTI_TRACE_E_TRACE) == 0) {
    set_error (r, node_line (r), error, "trace format version 1 (%s) is not one this reader "
               "knows (" PTI_TRACE_VERSION ", %s): version 1 traces (pti before message timing) "
               "cannot be read; run ptieval again to write the trace anew",
               PTI_TRACE_NAMESPACE_1, PTI_TRACE_NAMESPACE);
    goto fail;
  }
  if (!is_trace_ns (root_ns) || strcmp (local_name (r), PTI_TRACE_E_TRACE)) {
    g_autofree char *label = element_label (r);
    set_error (r, node_line (r), error, "not a pti trace: the root element is %s, not <trace> in %s",
               label, PTI_TRACE_NAMESPACE);
    goto fail;
  }
  {
    g_autofree char *version = dup_attr (r, PTI_TRACE_A_VERSION);
    if (version == NULL || strcmp (version, PTI_TRACE_VERSION) != 0) {
      set_error (r, node_line (r), error,
                 "trace format version \"%s\" is not one this reader knows (" PTI_TRACE_VERSION
                 ")", version ? version : "(missing)");
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
  if (!is_trace_ns (xmlTextReaderConstNamespaceUri (r->xr)) || strcmp (local_name (r), PTI_TRACE_E_HEADER)) {
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
  r->outstanding = g_new0 (GHashTable *, MAX (n, 1));
  r->open_call = g_new0 (OpenCall, MAX (n, 1));
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
  for (guint i = 0; r->outstanding != NULL && i < r->header.n_processes; i++)
    if (r->outstanding[i] != NULL)
      g_hash_table_unref (r->outstanding[i]);
  g_free (r->outstanding);
  g_free (r->open_call);
  g_free (r->completions);
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
  if (r->config)
    g_string_free (r->config, TRUE);
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

guint64
pti_trace_reader_n_derived (const PtiTraceReader *r)
{
  return r->n_derived;
}

/* ------------------------------------------------------------------------ */
/* Events */

/* Attributes of <event> and <request>, as bits. */
enum {
  A_KIND = 1 << 0, A_START = 1 << 1, A_END = 1 << 2, A_DEVICE = 1 << 3, A_MODEL = 1 << 4,
  A_RUD = 1 << 5, A_PEER = 1 << 6, A_TAG = 1 << 7, A_BYTES = 1 << 8, A_MSG = 1 << 9,
  A_PROTOCOL = 1 << 10, A_WAIT = 1 << 11, A_REQUEST = 1 << 12, A_INJECTED = 1 << 13,
  A_LEFT = 1 << 14, A_ARRIVED = 1 << 15, A_ID = 1 << 16, A_POSTED = 1 << 17,
  A_CONFIG = 1 << 18, A_OP = 1 << 19, A_FILE = 1 << 20, A_OFFSET = 1 << 21,
  A_COLLECTIVE = 1 << 22,
};
#define A_COMMON (A_KIND | A_START | A_END | A_DEVICE | A_MODEL)
#define A_COMPLETION (A_PEER | A_TAG | A_BYTES | A_MSG | A_PROTOCOL | A_INJECTED)

static const char *const attr_names[] = {
  PTI_TRACE_A_KIND, PTI_TRACE_A_START, PTI_TRACE_A_END, PTI_TRACE_A_DEVICE, PTI_TRACE_A_MODEL,
  PTI_TRACE_A_RUD, PTI_TRACE_A_PEER, PTI_TRACE_A_TAG, PTI_TRACE_A_BYTES, PTI_TRACE_A_MSG,
  PTI_TRACE_A_PROTOCOL, PTI_TRACE_A_WAIT, PTI_TRACE_A_REQUEST, PTI_TRACE_A_INJECTED,
  PTI_TRACE_A_LEFT, PTI_TRACE_A_ARRIVED, PTI_TRACE_A_ID, PTI_TRACE_A_POSTED,
  PTI_TRACE_A_CONFIG,
  PTI_TRACE_A_OP, PTI_TRACE_A_FILE, PTI_TRACE_A_OFFSET, PTI_TRACE_A_COLLECTIVE,
};

/* The attributes an <event> of each kind carries (beyond A_COMMON and the
 * optional rud), all required. */
static const guint kind_attrs[PTI_TRACE_N_KINDS] = {
  [PTI_TRACE_COMPUTE] = 0,
  [PTI_TRACE_SEND] = A_COMPLETION | A_WAIT | A_LEFT,
  [PTI_TRACE_RECV] = A_COMPLETION | A_WAIT | A_ARRIVED,
  [PTI_TRACE_ISEND] = A_REQUEST | A_PEER | A_TAG | A_BYTES | A_MSG,
  [PTI_TRACE_IRECV] = A_REQUEST | A_PEER | A_TAG | A_BYTES,
  [PTI_TRACE_WAIT] = A_WAIT, [PTI_TRACE_WAITALL] = A_WAIT, [PTI_TRACE_WAITANY] = A_WAIT,
  [PTI_TRACE_IO] = A_OP | A_FILE | A_OFFSET | A_BYTES | A_WAIT,   /* and optional collective */
};

/* The bit of attribute @name, 0 if the format has none so named.  A hot
 * path (every attribute of every event): only the names with its first
 * letter are compared (at most three share one). */
static guint
attr_bit (const char *name)
{
  static guint8 by_letter[26][4];   /* letter -> indices + 1 of its names, 0-terminated */
  static gsize ready;
  if (g_once_init_enter (&ready)) {
    for (guint i = 0; i < G_N_ELEMENTS (attr_names); i++) {
      guint8 *l = by_letter[attr_names[i][0] - 'a'];
      while (*l)
        l++;
      *l = (guint8) (i + 1);
    }
    g_once_init_leave (&ready, 1);
  }
  if (name[0] < 'a' || name[0] > 'z')
    return 0;
  for (const guint8 *l = by_letter[name[0] - 'a']; *l; l++)
    if (strcmp (name, attr_names[*l - 1]) == 0)
      return 1u << (*l - 1);
  return 0;
}

/* The name of the lowest bit of @mask. */
static const char *
attr_name (guint mask)
{
  for (guint i = 0; i < G_N_ELEMENTS (attr_names); i++)
    if (mask & (1u << i))
      return attr_names[i];
  return "?";
}

static gboolean
bad_attr (PtiTraceReader *r, guint64 line, const char *element, const char *name,
          const char *value, const char *what, GError **error)
{
  set_error (r, line, error, "<%s> %s=\"%s\": %s", element, name, value, what);
  return FALSE;
}

/* The attribute values of an <event> or <request> as parsed. */
typedef struct {
  guint seen;
  PtiTraceKind kind;
  guint64 start, end, wait, posted, injected, done;
  guint64 request, msg, bytes, id;
  guint peer;
  gint tag;
  gboolean any_peer, any_tag, rendezvous;
  guint io_op, file;
  guint64 offset;
  gboolean collective;
} Attrs;

#define TIME_SYNTAX "not a time in seconds with nine fraction digits"

/* Parse the attributes of the element the reader is on into @a; every one
 * must be among @allowed (names and strings go to the reader's buffers). */
static gboolean
parse_attrs (PtiTraceReader *r, const char *element, guint64 line, guint allowed, Attrs *a,
             GError **error)
{
  memset (a, 0, sizeof *a);
  while (xmlTextReaderMoveToNextAttribute (r->xr) == 1) {
    if (xmlTextReaderConstNamespaceUri (r->xr) != NULL)
      continue;   /* a model's annotation, or a namespace declaration */
    const char *name = local_name (r);
    const char *v = (const char *) xmlTextReaderConstValue (r->xr);
    if (v == NULL)
      v = "";
    guint bit = attr_bit (name);
    if (!(bit & allowed)) {
      set_error (r, line, error, "<%s> has an attribute the format does not define: %s", element,
                 name);
      return FALSE;
    }
    a->seen |= bit;
    guint64 u;
    guint64 *t = NULL;
    switch (bit) {
    case A_KIND:
      a->kind = pti_trace_kind_from_name (v);
      if (a->kind == PTI_TRACE_N_KINDS)
        return bad_attr (r, line, element, name, v, "unknown kind (" PTI_TRACE_KIND_LIST ")", error);
      break;
    case A_START: t = &a->start; break;
    case A_END: t = &a->end; break;
    case A_WAIT: t = &a->wait; break;
    case A_POSTED: t = &a->posted; break;
    case A_INJECTED: t = &a->injected; break;
    case A_LEFT:
    case A_ARRIVED: t = &a->done; break;
    case A_DEVICE: g_string_assign (r->device, v); break;
    case A_MODEL: g_string_assign (r->model, v); break;
    case A_CONFIG: g_string_assign (r->config, v); break;
    case A_RUD: g_string_assign (r->rud, v); break;
    case A_MSG:
      if (!parse_u64 (v, &a->msg, G_MAXUINT64))
        return bad_attr (r, line, element, name, v, "not a message id (unsigned 64-bit)", error);
      break;
    case A_REQUEST:
    case A_ID:
      if (!parse_u64 (v, bit == A_ID ? &a->id : &a->request, G_MAXUINT64))
        return bad_attr (r, line, element, name, v, "not a request id (unsigned 64-bit)", error);
      break;
    case A_BYTES:
      if (!parse_u64 (v, &a->bytes, G_MAXUINT64))
        return bad_attr (r, line, element, name, v, "not a size in bytes", error);
      break;
    case A_PEER:
      if (strcmp (v, PTI_TRACE_V_ANY) == 0) {
        a->any_peer = TRUE;
        break;
      }
      if (!parse_u64 (v, &u, G_MAXUINT32))
        return bad_attr (r, line, element, name, v, "not a rank", error);
      if (u >= r->header.n_processes)
        return bad_attr (r, line, element, name, v, "no such rank in the header's processes", error);
      a->peer = (guint) u;
      break;
    case A_TAG:
      if (strcmp (v, PTI_TRACE_V_ANY) == 0)
        a->any_tag = TRUE;
      else if (!parse_i32 (v, &a->tag))
        return bad_attr (r, line, element, name, v, "not a tag (signed 32-bit)", error);
      break;
    case A_OP:
      a->io_op = pti_trace_io_op_from_name (v);
      if (a->io_op == PTI_TRACE_IO_N_OPS)
        return bad_attr (r, line, element, name, v, "not an io op (write, read, open, close)",
                         error);
      break;
    case A_FILE:
      if (!parse_u64 (v, &u, G_MAXUINT32))
        return bad_attr (r, line, element, name, v, "not a file number", error);
      a->file = (guint) u;
      break;
    case A_OFFSET:
      if (!parse_u64 (v, &a->offset, G_MAXUINT64))
        return bad_attr (r, line, element, name, v, "not a file offset in bytes", error);
      break;
    case A_COLLECTIVE:
      if (strcmp (v, "yes") != 0)
        return bad_attr (r, line, element, name, v, "only \"yes\" (absent: independent)", error);
      a->collective = TRUE;
      break;
    case A_PROTOCOL:
      if (strcmp (v, PTI_TRACE_V_RENDEZVOUS) == 0)
        a->rendezvous = TRUE;
      else if (strcmp (v, PTI_TRACE_V_EAGER) != 0)
        return bad_attr (r, line, element, name, v, "not a protocol (eager, rendezvous)", error);
      break;
    }
    if (t != NULL && !parse_seconds (v, t, TRUE))
      return bad_attr (r, line, element, name, v, TIME_SYNTAX, error);
  }
  xmlTextReaderMoveToElement (r->xr);
  return TRUE;
}

/* A request posted by isend or irecv and not completed yet. */
typedef struct {
  guint64 id;                /* the key of its table */
  guint64 line, element;     /* of the posting event */
  guint64 posted;            /* ns */
  guint64 bytes;
  guint peer;
  gint tag;
  guint8 kind;               /* PtiTraceKind */
  gboolean any_peer, any_tag;
} Posted;

/* "line N" of a stored position, for messages. */
static guint64
line_at (const PtiTraceReader *r, guint64 line, guint64 element)
{
  return pti_trace_line_of (r->path, line, element);
}

/* The message attributes of a blocking event or a <request> must hold
 * together: its times in order, a wildcard only where it was posted. */
static gboolean
check_completion (PtiTraceReader *r, guint64 line, const char *element, const PtiTrCompletion *c,
                  guint64 end, GError **error)
{
  const char *done = PTI_TRACE_KIND_IS_SENDER (c->kind) ? PTI_TRACE_A_LEFT : PTI_TRACE_A_ARRIVED;
  if ((PTI_TRACE_KIND_IS_SENDER (c->kind) && c->injected < c->posted) || c->done < c->injected) {
    set_error (r, line, error, "<%s> message %" G_GUINT64_FORMAT ": its times are out of order "
               "(posted %.9f s, injected %.9f s, %s %.9f s)", element, c->msg, c->posted / 1e9,
               c->injected / 1e9, done, c->done / 1e9);
    return FALSE;
  }
  if (c->done > end) {
    set_error (r, line, error, "<%s> message %" G_GUINT64_FORMAT ": %s %.9f s is after the end "
               "of the event that completed it (%.9f s)", element, c->msg, done, c->done / 1e9,
               end / 1e9);
    return FALSE;
  }
  return TRUE;
}

/* A <request> child of a wait kind: what the wait completed. */
static gboolean
read_request (PtiTraceReader *r, PtiTrEvent *e, GError **error)
{
  guint64 line = node_line (r);
  Attrs a;
  guint need = A_ID | A_KIND | A_COMPLETION | A_POSTED;
  if (!parse_attrs (r, PTI_TRACE_E_REQUEST, line, need | A_LEFT | A_ARRIVED, &a, error))
    return FALSE;
  if (!(a.seen & A_KIND)) {
    set_error (r, line, error, "<request> lacks the attribute kind");
    return FALSE;
  }
  if (!PTI_TRACE_KIND_IS_POSTING (a.kind)) {
    set_error (r, line, error, "<request> kind=\"%s\": a wait completes requests of isend or irecv",
               pti_trace_kind_name (a.kind));
    return FALSE;
  }
  guint want = need | (a.kind == PTI_TRACE_ISEND ? A_LEFT : A_ARRIVED);
  if ((a.seen & want) != want || a.seen != want) {
    guint bad = (a.seen & want) != want ? want & ~a.seen : a.seen & ~want;
    set_error (r, line, error, "<request kind=\"%s\"> %s the attribute %s", pti_trace_kind_name (a.kind),
               (a.seen & want) != want ? "lacks" : "has", attr_name (bad));
    return FALSE;
  }
  if (a.any_peer || a.any_tag) {
    set_error (r, line, error, "<request> %s=\"any\": a completed request has a peer and a tag",
               a.any_peer ? PTI_TRACE_A_PEER : PTI_TRACE_A_TAG);
    return FALSE;
  }
  if (e->kind != PTI_TRACE_WAITALL && r->n_completions >= 1) {
    set_error (r, line, error, "<event kind=\"%s\"> completes one request at most",
               pti_trace_kind_name (e->kind));
    return FALSE;
  }
  PtiTrCompletion c = { a.kind, a.id, a.msg, a.peer, a.tag, a.bytes, a.rendezvous, a.posted,
                        a.injected, a.done, line & LOC_ELEMENT ? 0 : line, r->n_elements };
  if (!check_completion (r, line, PTI_TRACE_E_REQUEST, &c, e->end, error))
    return FALSE;
  if (c.posted > e->start) {
    set_error (r, line, error, "<request> posted at %.9f s, after the wait began (%.9f s)",
               c.posted / 1e9, e->start / 1e9);
    return FALSE;
  }
  /* It must be one the rank posted and has not completed yet. */
  GHashTable *out = r->outstanding[e->rank];
  Posted *p = out ? g_hash_table_lookup (out, &c.request) : NULL;
  if (p == NULL) {
    set_error (r, line, error, "rank %u: request %" G_GUINT64_FORMAT " is not one this rank posted "
               "and has not completed yet", e->rank, c.request);
    return FALSE;
  }
  const char *why = p->kind != c.kind ? "its kind"
                  : p->posted != c.posted ? "the time it was posted"
                  : (!p->any_peer && p->peer != c.peer) ? "the peer"
                  : (!p->any_tag && p->tag != c.tag) ? "the tag"
                  : (c.kind == PTI_TRACE_ISEND ? p->bytes != c.bytes : c.bytes > p->bytes)
                    ? "the size" : NULL;
  if (why != NULL) {
    set_error (r, line, error, "rank %u: request %" G_GUINT64_FORMAT " disagrees with the %s that "
               "posted it (line %" G_GUINT64_FORMAT ") on %s", e->rank, c.request,
               pti_trace_kind_name (p->kind), line_at (r, p->line, p->element), why);
    return FALSE;
  }
  g_hash_table_remove (out, &c.request);
  if (r->n_completions == r->cap_completions) {
    r->cap_completions = MAX (8, 2 * r->cap_completions);
    r->completions = g_renew (PtiTrCompletion, r->completions, r->cap_completions);
  }
  r->completions[r->n_completions++] = c;
  return TRUE;
}

static gboolean
read_event (PtiTraceReader *r, PtiTrItem *item, GError **error)
{
  PtiTrEvent *e = &item->event;
  guint64 line = item->line ? item->line : LOC_ELEMENT | item->element;
  memset (e, 0, sizeof *e);
  e->rank = (guint) r->cur_rank;
  r->n_completions = 0;

  Attrs a;
  guint any = A_COMMON | A_RUD | A_CONFIG | A_COMPLETION | A_WAIT | A_REQUEST | A_LEFT | A_ARRIVED
              | A_OP | A_FILE | A_OFFSET | A_COLLECTIVE;
  if (!parse_attrs (r, PTI_TRACE_E_EVENT, line, any, &a, error))
    return FALSE;
  if ((a.seen & A_COMMON) != A_COMMON) {
    set_error (r, line, error, "<event> lacks the attribute %s", attr_name (A_COMMON & ~a.seen));
    return FALSE;
  }
  guint want = kind_attrs[a.kind], has = a.seen & ~(A_COMMON | A_RUD | A_CONFIG);
  if (a.kind == PTI_TRACE_IO)
    has &= ~A_COLLECTIVE;   /* optional */
  if ((has & want) != want) {
    set_error (r, line, error, "<event kind=\"%s\"> lacks the attribute %s",
               pti_trace_kind_name (a.kind), attr_name (want & ~has));
    return FALSE;
  }
  if (has & ~want) {
    set_error (r, line, error, "<event kind=\"%s\"> has the attribute %s, which that kind does "
               "not carry", pti_trace_kind_name (a.kind), attr_name (has & ~want));
    return FALSE;
  }
  if ((a.any_peer || a.any_tag) && a.kind != PTI_TRACE_IRECV) {
    set_error (r, line, error, "<event kind=\"%s\"> %s=\"any\": only an irecv may ask for any",
               pti_trace_kind_name (a.kind), a.any_peer ? PTI_TRACE_A_PEER : PTI_TRACE_A_TAG);
    return FALSE;
  }
  e->kind = a.kind;
  e->start = a.start;
  e->end = a.end;
  e->wait = a.wait;
  e->request = a.request;
  e->peer = a.peer;
  e->any_peer = a.any_peer;
  e->tag = a.tag;
  e->any_tag = a.any_tag;
  e->bytes = a.bytes;
  e->msg = a.msg;
  e->io_op = a.io_op;
  e->file = a.file;
  e->offset = a.offset;
  e->collective = a.collective;
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
  if (PTI_TRACE_KIND_IS_BLOCKING (e->kind)) {
    PtiTrCompletion c = { e->kind, 0, a.msg, a.peer, a.tag, a.bytes, a.rendezvous, a.start,
                          a.injected, a.done, item->line, item->element };
    if (!check_completion (r, line, PTI_TRACE_E_EVENT, &c, e->end, error))
      return FALSE;
    r->own = c;
    e->done = &r->own;
    e->n_done = 1;
  } else if (PTI_TRACE_KIND_IS_POSTING (e->kind)) {
    if (r->outstanding[rank] == NULL)
      r->outstanding[rank] = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL, g_free);
    if (g_hash_table_contains (r->outstanding[rank], &e->request)) {
      set_error (r, line, error, "rank %u: request %" G_GUINT64_FORMAT " is posted again before "
                 "a wait completed it", rank, e->request);
      return FALSE;
    }
    Posted *p = g_new (Posted, 1);
    *p = (Posted) { e->request, item->line, item->element, e->start, e->bytes, e->peer, e->tag,
                    (guint8) e->kind, e->any_peer, e->any_tag };
    /* The key lives in the value: a request id, as g_int64_hash wants. */
    g_hash_table_insert (r->outstanding[rank], &p->id, p);
  }
  r->last_start[rank] = e->start;
  r->last_end[rank] = e->end;
  r->max_end = MAX (r->max_end, e->end);
  r->n_events++;
  e->device = r->device->str;
  e->model = r->model->str;
  e->rud = (a.seen & A_RUD) ? r->rud->str : NULL;
  e->config = (a.seen & A_CONFIG) ? r->config->str : NULL;
  if (!xmlTextReaderIsEmptyElement (r->xr)) {
    /* Only a wait kind has content: the requests it completed. */
    int depth = xmlTextReaderDepth (r->xr);
    for (;;) {
      int ret = advance (r, error);
      if (ret <= 0)
        return ret == 0 ? read_failed (r, error) : FALSE;
      int type = xmlTextReaderNodeType (r->xr);
      if (type == XML_READER_TYPE_END_ELEMENT && xmlTextReaderDepth (r->xr) == depth)
        break;
      if (type == XML_READER_TYPE_ELEMENT && PTI_TRACE_KIND_IS_WAIT (e->kind)
          && xmlTextReaderDepth (r->xr) == depth + 1
          && is_trace_ns (xmlTextReaderConstNamespaceUri (r->xr))
          && strcmp (local_name (r), PTI_TRACE_E_REQUEST) == 0) {
        if (!read_request (r, e, error))
          return FALSE;
        if (!xmlTextReaderIsEmptyElement (r->xr)) {
          set_error (r, node_line (r), error, "<request> has content; the format gives it none");
          return FALSE;
        }
        continue;
      }
      if (type == XML_READER_TYPE_ELEMENT || type == XML_READER_TYPE_TEXT) {
        set_error (r, node_line (r), error, PTI_TRACE_KIND_IS_WAIT (e->kind)
                   ? "<event kind=\"%s\"> may hold <request> elements only"
                   : "<event kind=\"%s\"> has content; the format gives it none",
                   pti_trace_kind_name (e->kind));
        return FALSE;
      }
    }
  }
  if (PTI_TRACE_KIND_IS_WAIT (e->kind)) {
    e->done = r->completions;
    e->n_done = r->n_completions;
  }
  return TRUE;
}

/* Every attribute of the element the reader is on (but other namespaces')
 * is among @names. */
static gboolean
only_attrs (PtiTraceReader *r, const char *element, guint64 line, const char *const *names,
            guint n, GError **error)
{
  gboolean ok = TRUE;
  while (ok && xmlTextReaderMoveToNextAttribute (r->xr) == 1) {
    if (xmlTextReaderConstNamespaceUri (r->xr) != NULL)
      continue;
    const char *a = local_name (r);
    guint i = 0;
    while (i < n && strcmp (a, names[i]) != 0)
      i++;
    if (i == n) {
      set_error (r, line, error, "<%s> has an attribute the format does not define: %s", element, a);
      ok = FALSE;
    }
  }
  xmlTextReaderMoveToElement (r->xr);
  return ok;
}

/* <collective phase call comm [root] bytes time> in a process group. */
static gboolean
read_collective (PtiTraceReader *r, PtiTrItem *item, GError **error)
{
  guint64 line = item->line ? item->line : LOC_ELEMENT | item->element;
  PtiTrCollective *c = &item->collective;
  memset (c, 0, sizeof *c);
  c->rank = (guint) r->cur_rank;
  g_autofree char *phase = dup_attr (r, PTI_TRACE_A_PHASE);
  g_autofree char *call = dup_attr (r, PTI_TRACE_A_CALL);
  g_autofree char *comm = dup_attr (r, PTI_TRACE_A_COMM);
  g_autofree char *root = dup_attr (r, PTI_TRACE_A_ROOT);
  g_autofree char *bytes = dup_attr (r, PTI_TRACE_A_BYTES);
  g_autofree char *time = dup_attr (r, PTI_TRACE_A_TIME);
  static const char *const names[] = { PTI_TRACE_A_PHASE, PTI_TRACE_A_CALL, PTI_TRACE_A_COMM,
                                       PTI_TRACE_A_ROOT, PTI_TRACE_A_BYTES, PTI_TRACE_A_TIME };
  if (!only_attrs (r, PTI_TRACE_E_COLLECTIVE, line, names, G_N_ELEMENTS (names), error))
    return FALSE;
  guint64 v;
  if (phase == NULL || (strcmp (phase, PTI_TRACE_V_BEGIN) && strcmp (phase, PTI_TRACE_V_END))) {
    set_error (r, line, error, "<collective> phase=\"%s\": expected begin or end",
               phase ? phase : "(missing)");
    return FALSE;
  }
  c->begin = strcmp (phase, PTI_TRACE_V_BEGIN) == 0;
  c->call = pti_trace_call_from_name (call);
  if (c->call == PTI_TRACE_N_CALLS) {
    set_error (r, line, error, "<collective> call=\"%s\": not a collective (" PTI_TRACE_CALL_LIST
               ")", call ? call : "(missing)");
    return FALSE;
  }
  if (comm == NULL || !parse_u64 (comm, &v, G_MAXUINT32)) {
    set_error (r, line, error, "<collective> comm=\"%s\" is not a communicator id",
               comm ? comm : "(missing)");
    return FALSE;
  }
  c->comm = (guint) v;
  c->has_root = PTI_TRACE_CALL_IS_ROOTED (c->call);
  if (c->has_root != (root != NULL)) {
    set_error (r, line, error, "<collective call=\"%s\"> %s the attribute root", call,
               c->has_root ? "lacks" : "has");
    return FALSE;
  }
  if (root != NULL && (!parse_u64 (root, &v, G_MAXUINT32) || v >= r->header.n_processes)) {
    set_error (r, line, error, "<collective> root=\"%s\" is not a rank of the header", root);
    return FALSE;
  }
  c->root = root ? (guint) v : 0;
  if (bytes == NULL || !parse_u64 (bytes, &c->bytes, G_MAXUINT64)) {
    set_error (r, line, error, "<collective> bytes=\"%s\" is not a size in bytes",
               bytes ? bytes : "(missing)");
    return FALSE;
  }
  if (time == NULL || !parse_seconds (time, &c->time, TRUE)) {
    set_error (r, line, error, "<collective> time=\"%s\": " TIME_SYNTAX, time ? time : "(missing)");
    return FALSE;
  }
  guint rank = c->rank;
  if (c->time < r->last_start[rank]) {
    set_error (r, line, error, "rank %u: this collective marker at %.9f s is before the rank's "
               "previous event (%.9f s)", rank, c->time / 1e9, r->last_start[rank] / 1e9);
    return FALSE;
  }
  OpenCall *o = &r->open_call[rank];
  if (c->begin) {
    if (o->open) {
      set_error (r, line, error, "rank %u: a %s begins inside the %s that began at line %"
                 G_GUINT64_FORMAT " (collectives do not nest)", rank, call,
                 pti_trace_call_name (o->call), line_at (r, o->line, o->element));
      return FALSE;
    }
    *o = (OpenCall) { TRUE, c->call, c->comm, c->time, item->line, item->element };
    r->n_open_calls++;
  } else {
    if (!o->open || o->call != c->call || o->comm != c->comm) {
      set_error (r, line, error, "rank %u: the end of a %s on communicator %u %s", rank, call,
                 c->comm, o->open ? "does not match the collective that began" : "that never began");
      return FALSE;
    }
    c->begin_time = o->begin;
    o->open = FALSE;
    r->n_open_calls--;
  }
  r->last_start[rank] = c->time;
  r->last_end[rank] = MAX (r->last_end[rank], c->time);
  if (!xmlTextReaderIsEmptyElement (r->xr) && !skip_subtree (r, error))
    return FALSE;
  return TRUE;
}

/* <derived start end repetitions events compute comm wait> in a process group. */
static gboolean
read_derived (PtiTraceReader *r, PtiTrItem *item, GError **error)
{
  guint64 line = item->line ? item->line : LOC_ELEMENT | item->element;
  PtiTrDerived *d = &item->derived;
  memset (d, 0, sizeof *d);
  d->rank = (guint) r->cur_rank;
  static const char *const names[] = { PTI_TRACE_A_START, PTI_TRACE_A_END, PTI_TRACE_A_REPETITIONS,
                                       PTI_TRACE_A_EVENTS, PTI_TRACE_A_COMPUTE, PTI_TRACE_A_COMM,
                                       PTI_TRACE_A_WAIT };
  guint64 *dest[] = { &d->start, &d->end, &d->repetitions, &d->events, &d->compute, &d->comm,
                      &d->wait };
  if (!only_attrs (r, PTI_TRACE_E_DERIVED, line, names, G_N_ELEMENTS (names), error))
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (names); i++) {
    g_autofree char *v = dup_attr (r, names[i]);
    gboolean count = i == 2 || i == 3;
    if (v == NULL || !(count ? parse_u64 (v, dest[i], G_MAXUINT64) : parse_seconds (v, dest[i], TRUE))) {
      set_error (r, line, error, "<derived> %s=\"%s\" is not %s", names[i], v ? v : "(missing)",
                 count ? "a count" : "a time in seconds with nine fraction digits");
      return FALSE;
    }
  }
  guint rank = d->rank;
  if (d->end < d->start || d->start < r->last_start[rank]) {
    set_error (r, line, error, "rank %u: a derived span from %.9f s to %.9f s %s", rank,
               d->start / 1e9, d->end / 1e9, d->end < d->start ? "ends before it starts"
                                                              : "starts before the rank's previous event");
    return FALSE;
  }
  r->last_start[rank] = d->start;
  r->last_end[rank] = MAX (r->last_end[rank], d->end);
  r->max_end = MAX (r->max_end, d->end);
  r->n_derived += d->events;
  if (!xmlTextReaderIsEmptyElement (r->xr) && !skip_subtree (r, error))
    return FALSE;
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
  g_autofree char *pt = dup_attr (r, PTI_TRACE_A_PREDICTED_TIME);
  g_autofree char *ev = dup_attr (r, PTI_TRACE_A_EVENTS);
  g_autofree char *derived_attr = dup_attr (r, PTI_TRACE_A_DERIVED);
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
      /* Phases and assertions follow the processes: results for people,
       * which no converter needs (their syntax is trace.xsd's). */
      if (is_trace_ns (xmlTextReaderConstNamespaceUri (r->xr)) && xmlTextReaderDepth (r->xr) == 2
          && (strcmp (local_name (r), PTI_TRACE_E_PHASE) == 0
              || strcmp (local_name (r), PTI_TRACE_E_ASSERTION) == 0)) {
        if (!xmlTextReaderIsEmptyElement (r->xr) && !skip_subtree (r, error))
          return FALSE;
        continue;
      }
      if (!is_trace_ns (xmlTextReaderConstNamespaceUri (r->xr)) || strcmp (local_name (r), PTI_TRACE_E_PROCESS)
          || xmlTextReaderDepth (r->xr) != 2) {
        g_autofree char *label = element_label (r);
        set_error (r, pline, error, "unexpected element %s in <summary>", label);
        return FALSE;
      }
      static const char *const names[] = { PTI_TRACE_A_RANK, PTI_TRACE_A_END, PTI_TRACE_A_COMPUTE,
                                            PTI_TRACE_A_COMM, PTI_TRACE_A_WAIT, PTI_TRACE_A_EVENTS };
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
  if (r->n_derived != derived) {
    set_error (r, line, error, "the summary counts %" G_GUINT64_FORMAT " derived events but the "
               "trace's <derived> spans hold %" G_GUINT64_FORMAT, derived, r->n_derived);
    return FALSE;
  }
  for (guint rank = 0; rank < n; rank++) {
    const OpenCall *o = &r->open_call[rank];
    if (o->open) {
      set_error (r, line_at (r, o->line, o->element), error, "rank %u: this %s never ends",
                 rank, pti_trace_call_name (o->call));
      return FALSE;
    }
    if (r->outstanding[rank] != NULL && g_hash_table_size (r->outstanding[rank]) > 0) {
      GHashTableIter it;
      gpointer key, value;
      const Posted *first = NULL;
      guint64 id = 0;
      g_hash_table_iter_init (&it, r->outstanding[rank]);
      while (g_hash_table_iter_next (&it, &key, &value))
        if (first == NULL || ((const Posted *) value)->element < first->element) {
          first = value;
          id = *(const guint64 *) key;
        }
      set_error (r, line_at (r, first->line, first->element), error, "rank %u: request %"
                 G_GUINT64_FORMAT " (%s) is never completed by a wait", rank, id,
                 pti_trace_kind_name (first->kind));
      return FALSE;
    }
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
        if (trace_ns && strcmp (name, PTI_TRACE_E_EVENTS) == 0) {
          r->chunk++;
          r->in_events = !xmlTextReaderIsEmptyElement (r->xr);
          continue;
        }
        if (trace_ns && strcmp (name, PTI_TRACE_E_SUMMARY) == 0) {
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
      if (depth == 2 && r->in_events && trace_ns && strcmp (name, PTI_TRACE_E_PROCESS) == 0) {
        g_autofree char *rank = dup_attr (r, PTI_TRACE_A_RANK);
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
        if (trace_ns && depth == 3) {
          gboolean ok = TRUE;
          if (strcmp (name, PTI_TRACE_E_EVENT) == 0) {
            item->type = PTI_TR_ITEM_EVENT;
            ok = read_event (r, item, error);
          } else if (strcmp (name, PTI_TRACE_E_COLLECTIVE) == 0) {
            item->type = PTI_TR_ITEM_COLLECTIVE;
            ok = read_collective (r, item, error);
          } else if (strcmp (name, PTI_TRACE_E_DERIVED) == 0) {
            item->type = PTI_TR_ITEM_DERIVED;
            ok = read_derived (r, item, error);
          } else {
            goto unexpected;
          }
          if (!ok) {
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
    unexpected:;
      g_autofree char *label = element_label (r);
      set_error (r, line, error, "unexpected element %s here%s", label,
                 depth == 2 && trace_ns && strcmp (name, PTI_TRACE_E_EVENT) == 0
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
