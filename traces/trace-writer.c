/* Streaming writer of pti's XML output trace (format: schemas/trace.xsd,
 * documented in traces/README.md).
 *
 * Layout of the work:
 *  - the document goes through libxml2's xmlTextWriter into an
 *    xmlOutputBuffer whose write callback copies into our own 1 MiB buffer
 *    and hands full buffers to write(2) on a temporary file beside the
 *    target; pti_trace_writer_commit() renames it over the target;
 *  - header, process groups and summary use the element/attribute API;
 *  - events, the hot path, are formatted into one reusable line buffer
 *    (numbers by hand, strings escaped by hand) and passed to the writer as
 *    raw markup with xmlTextWriterWriteRawLen: no allocation and no printf
 *    per event.  The bytes are the ones the attribute API would produce
 *    (same escaping, same indentation), so the whole file reads as one;
 *  - nothing is kept per event: memory is constant in the trace length.
 *
 * Determinism: times are written as seconds with exactly nine fraction
 * digits, the value "%.9f" gives in the C locale, whatever the process
 * locale.  Strings that are not valid UTF-8 or hold characters XML cannot
 * carry get U+FFFD in their place, so the output is always well-formed.
 *
 * Write errors (disk full, file size limit) are not returned to libxml2,
 * which would print its own message: the callback records errno and drops
 * the data, and the next writer call reports the error with the path. */
#include "trace-writer.h"
#include "decimal.h"

#include "pti-config.h"

#include <pti/hmi.h>

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <libxml/xmlIO.h>
#include <libxml/xmlwriter.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OUT_BUFFER_SIZE (1u << 20)
/* Times must stay below TIME_LIMIT s: with nine fraction digits that is 24
 * significant digits, what xs:decimal validators must (and libxml2 can)
 * handle. */
#define TIME_LIMIT 1e15
/* Room for "%.9f" of a time below TIME_LIMIT, with its NUL. */
#define SECONDS_MAX 40
/* Room an event line needs besides its three strings. */
#define EVENT_FIXED_MAX (6 * (SECONDS_MAX + 16) + 7 * 24 + 320)
/* Room one <request> of a wait needs. */
#define REQUEST_FIXED_MAX (3 * (SECONDS_MAX + 16) + 6 * 24 + 200)

typedef enum {
  STATE_OPEN,      /* file created, nothing written */
  STATE_HEADER,    /* header written; events may follow */
  STATE_PROCESS,   /* inside <process> */
  STATE_BETWEEN,   /* inside <events>, between process groups */
  STATE_SUMMARY,   /* summary written; only commit is left */
  STATE_COMMITTED, /* renamed over the target */
  STATE_FAILED,    /* an I/O error happened; every call reports it */
} WriterState;

struct _PtiTraceWriter {
  char *path;       /* the target */
  char *tmp_path;   /* where the bytes go until commit */
  int fd;           /* on tmp_path, -1 once closed */
  xmlTextWriterPtr xw;
  WriterState state;
  int io_errno;     /* first write error, 0 if none */
  char *out;        /* OUT_BUFFER_SIZE bytes on their way to fd */
  gsize out_len;
  char *line;       /* one event's markup; grows only for huge names */
  gsize line_cap;
  GString *scratch; /* cleaned copies of header strings */
  guint64 group_events; /* events in the open process group */
  guint chunks;         /* <events> chunks opened so far */
  /* Model records: written at the chunk level, after the chunk's process
   * groups, so they wait in a spool (memory up to SPOOL_MEMORY, then an
   * unlinked temporary file) until the chunk closes. */
  guint n_records;
  char **record_model;  /* per record type: model name */
  char **record_open;   /* per record type: "\n    <m:NAME xmlns:m=\"NS\"" */
  char ***record_fields; /* per record type: field names */
  GString *spool;
  FILE *spool_file;
  guint64 spooled;      /* records waiting */
  guint64 derived;      /* events counted by the summary but not written */
  const PtiTracePhase *phases;          /* borrowed: pti_trace_writer_set_results */
  guint n_phases;
  const PtiTraceAssertion *assertions;
  guint n_assertions;
  int tmp_slot;         /* in tmp_slots while tmp_path exists, else -1 */
};

/* ---- temporary files and SIGINT / SIGTERM ---------------------------------
 *
 * Until it is committed a trace lives under a temporary name, which an
 * interrupted run (Ctrl-C, kill) would leave behind, hundreds of MB of it.
 * So the paths of the temporary files are kept in static buffers, and a
 * handler of SIGINT and SIGTERM unlinks them and then dies of the signal as
 * the default action would (async-signal-safe: it only reads the buffers,
 * calls unlink and raises the signal again, the default restored by
 * SA_RESETHAND).  It is installed only where the disposition is the
 * default: a program's own handler, or an ignored signal, is left alone. */

#define TMP_SLOTS 8
#define TMP_PATH_MAX 4096

enum { SLOT_FREE, SLOT_FILLING, SLOT_READY };
static gint tmp_state[TMP_SLOTS];
static char tmp_paths[TMP_SLOTS][TMP_PATH_MAX];

static void
on_fatal_signal (int sig)
{
  int saved = errno;
  for (int i = 0; i < TMP_SLOTS; i++)
    if (g_atomic_int_get (&tmp_state[i]) == SLOT_READY)
      unlink (tmp_paths[i]);
  errno = saved;
  raise (sig);   /* delivered, with the default action, once this returns */
}

static void
install_signal_handlers (void)
{
  static gsize done = 0;
  if (!g_once_init_enter (&done))
    return;
  static const int signals[] = { SIGINT, SIGTERM };
  for (guint i = 0; i < G_N_ELEMENTS (signals); i++) {
    struct sigaction old;
    if (sigaction (signals[i], NULL, &old) != 0 || (old.sa_flags & SA_SIGINFO)
        || old.sa_handler != SIG_DFL)
      continue;
    struct sigaction sa = { .sa_handler = on_fatal_signal, .sa_flags = SA_RESETHAND };
    sigemptyset (&sa.sa_mask);
    sigaction (signals[i], &sa, NULL);
  }
  g_once_init_leave (&done, 1);
}

/* The slot now holding @path, or -1 if none is free (or the path is too
 * long): that file is then not removed on a signal. */
static int
tmp_register (const char *path)
{
  gsize len = strlen (path);
  if (len >= TMP_PATH_MAX)
    return -1;
  install_signal_handlers ();
  for (int i = 0; i < TMP_SLOTS; i++)
    if (g_atomic_int_compare_and_exchange (&tmp_state[i], SLOT_FREE, SLOT_FILLING)) {
      memcpy (tmp_paths[i], path, len + 1);
      g_atomic_int_set (&tmp_state[i], SLOT_READY);
      return i;
    }
  return -1;
}

static void
tmp_release (int *slot)
{
  if (*slot >= 0)
    g_atomic_int_set (&tmp_state[*slot], SLOT_FREE);
  *slot = -1;
}

#define SPOOL_MEMORY (1u << 20)

/* ---- output ------------------------------------------------------------- */

static gboolean
write_all (PtiTraceWriter *w, const char *buf, gsize len)
{
  while (len > 0) {
    ssize_t n = write (w->fd, buf, len);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      w->io_errno = errno;
      return FALSE;
    }
    buf += n;
    len -= (gsize) n;
  }
  return TRUE;
}

static gboolean
flush_out (PtiTraceWriter *w)
{
  gboolean ok = w->io_errno == 0 && w->fd >= 0 && write_all (w, w->out, w->out_len);
  w->out_len = 0;
  return ok;
}

/* xmlOutputBuffer write callback: libxml2 calls it with about 4 KB at a
 * time; batch that into OUT_BUFFER_SIZE writes.  Never fails towards libxml2
 * (see the top of the file). */
static int
out_write (void *context, const char *buf, int len)
{
  PtiTraceWriter *w = context;
  gsize n = (gsize) len;
  if (w->io_errno != 0 || w->fd < 0 || len <= 0)
    return len;
  if (w->out_len + n > OUT_BUFFER_SIZE && !flush_out (w))
    return len;
  if (n >= OUT_BUFFER_SIZE)
    write_all (w, buf, n);
  else {
    memcpy (w->out + w->out_len, buf, n);
    w->out_len += n;
  }
  return len;
}

/* ---- errors ------------------------------------------------------------- */

/* Report why the trace cannot be written; the writer is dead afterwards. */
static gboolean
fail (PtiTraceWriter *w, GError **error)
{
  w->state = STATE_FAILED;
  if (w->io_errno != 0)
    g_set_error (error, PTI_ERROR, PTI_ERROR_IO, "cannot write trace '%s' (temporary file '%s'): %s",
                 w->path, w->tmp_path, g_strerror (w->io_errno));
  else
    g_set_error (error, PTI_ERROR, PTI_ERROR_IO,
                 "cannot write trace '%s' (temporary file '%s'): XML writer failed", w->path,
                 w->tmp_path);
  return FALSE;
}

/* After a batch of libxml2 calls: all of them succeeded and no write failed. */
static gboolean
check (PtiTraceWriter *w, gboolean ok, GError **error)
{
  if (!ok || w->io_errno != 0)
    return fail (w, error);
  return TRUE;
}

/* ---- numbers ------------------------------------------------------------ */

/* Decimal digits of @v at @buf, no NUL; returns their number (1..20). */
static inline gsize
format_u64 (char *buf, guint64 v)
{
  return (gsize) (pti_put_u64 (buf, v) - buf);
}

static inline gsize
format_i64 (char *buf, gint64 v)
{
  if (v >= 0)
    return format_u64 (buf, (guint64) v);
  buf[0] = '-';
  return 1 + format_u64 (buf + 1, (guint64) 0 - (guint64) v);
}

/* @t (finite, >= 0) as "%.9f" in the C locale, at @buf (SECONDS_MAX bytes),
 * no NUL; returns the length.  Fast path: round t*1e9 to an integer and
 * prove with an exact residual (fma) that it is the correctly rounded
 * value; near a tie, or for huge values, ask the C library. */
static gsize
format_seconds (char *buf, double t)
{
  double x = t * 1e9;
  if (x < 4e15) {
    double n = nearbyint (x);
    double r = fma (t, 1e9, -n); /* t*1e9 - n, one rounding */
    if (fabs (r) < 0.4999) {
      guint64 ns = (guint64) n;
      gsize len = format_u64 (buf, ns / 1000000000u);
      guint32 frac = (guint32) (ns % 1000000000u);
      buf[len] = '.';
      for (int i = 9; i >= 1; i--) {
        buf[len + (gsize) i] = (char) ('0' + frac % 10);
        frac /= 10;
      }
      return len + 10;
    }
  }
  g_ascii_formatd (buf, SECONDS_MAX, "%.9f", t);
  return strlen (buf);
}

/* ---- strings ------------------------------------------------------------ */

static const char REPLACEMENT[] = "\xEF\xBF\xBD"; /* U+FFFD */

/* Length of the valid, XML-legal UTF-8 character at @p (at most @left bytes),
 * or 0 if it is not one. */
static gsize
utf8_char_len (const char *p, gsize left)
{
  gunichar c = g_utf8_get_char_validated (p, (gssize) MIN (left, 4));
  if (c == (gunichar) -1 || c == (gunichar) -2 || c == 0xFFFE || c == 0xFFFF)
    return 0;
  return (gsize) g_unichar_to_utf8 (c, NULL);
}

/* Append @s (@len bytes) to @dst as the value of an attribute: escaped as
 * libxml2 escapes attributes, with U+FFFD for bytes XML cannot carry.  @dst
 * has room for 6 * @len bytes.  Returns the bytes written. */
static gsize
escape_attr (char *dst, const char *s, gsize len)
{
  char *d = dst;
  const char *p = s, *stop = s + len;
  for (;;) {
    unsigned char c = (unsigned char) *p;
    if (c >= 0x80) {
      gsize n = utf8_char_len (p, (gsize) (stop - p));
      if (n == 0) {
        memcpy (d, REPLACEMENT, 3);
        d += 3;
        p++;
      } else {
        memcpy (d, p, n);
        d += n;
        p += n;
      }
      continue;
    }
    const char *rep = NULL;
    switch (c) {
    case '\0': return (gsize) (d - dst);
    case '&': rep = "&amp;"; break;
    case '<': rep = "&lt;"; break;
    case '>': rep = "&gt;"; break;
    case '"': rep = "&quot;"; break;
    case '\t': rep = "&#9;"; break;
    case '\n': rep = "&#10;"; break;
    case '\r': rep = "&#13;"; break;
    default:
      if (c < 0x20)
        rep = REPLACEMENT;
      break;
    }
    if (rep != NULL) {
      gsize n = strlen (rep);
      memcpy (d, rep, n);
      d += n;
    } else {
      *d++ = (char) c;
    }
    p++;
  }
}

/* @s, or a copy in w->scratch with U+FFFD for what XML cannot carry
 * (libxml2 escapes the rest).  Valid until the next call. */
static const xmlChar *
clean (PtiTraceWriter *w, const char *s)
{
  if (s == NULL)
    s = "";
  gboolean ok = g_utf8_validate (s, -1, NULL);
  for (const char *p = s; ok && *p != '\0'; p++) {
    unsigned char c = (unsigned char) *p;
    ok = (c >= 0x20 || c == '\t' || c == '\n' || c == '\r')
         && !(c == 0xEF && (unsigned char) p[1] == 0xBF && ((unsigned char) p[2] & 0xFE) == 0xBE);
  }
  if (ok)
    return (const xmlChar *) s;
  g_string_truncate (w->scratch, 0);
  const char *stop = s + strlen (s);
  for (const char *p = s; *p != '\0';) {
    unsigned char c = (unsigned char) *p;
    gsize n = c >= 0x80 ? utf8_char_len (p, (gsize) (stop - p)) : 1;
    if (n == 0 || (c < 0x20 && c != '\t' && c != '\n' && c != '\r')) {
      g_string_append (w->scratch, REPLACEMENT);
      p++;
    } else {
      g_string_append_len (w->scratch, p, (gssize) n);
      p += n;
    }
  }
  return (const xmlChar *) w->scratch->str;
}

/* ---- attribute helpers for the cold parts ------------------------------- */

static gboolean
start (PtiTraceWriter *w, const char *element)
{
  return xmlTextWriterStartElement (w->xw, (const xmlChar *) element) >= 0;
}

static gboolean
end (PtiTraceWriter *w)
{
  return xmlTextWriterEndElement (w->xw) >= 0;
}

static gboolean
attr (PtiTraceWriter *w, const char *name, const char *value)
{
  return xmlTextWriterWriteAttribute (w->xw, (const xmlChar *) name, clean (w, value)) >= 0;
}

static gboolean
attr_u64 (PtiTraceWriter *w, const char *name, guint64 v)
{
  char buf[24];
  buf[format_u64 (buf, v)] = '\0';
  return xmlTextWriterWriteAttribute (w->xw, (const xmlChar *) name, (const xmlChar *) buf) >= 0;
}

static gboolean
attr_seconds (PtiTraceWriter *w, const char *name, double t)
{
  char buf[SECONDS_MAX + 1];
  buf[format_seconds (buf, t)] = '\0';
  return xmlTextWriterWriteAttribute (w->xw, (const xmlChar *) name, (const xmlChar *) buf) >= 0;
}

static inline gboolean
time_ok (double t)
{
  return isfinite (t) && t >= 0;
}

/* A time beyond TIME_LIMIT is not a bug in the caller but absurd input (a
 * bandwidth of 1e-9 B/s), so it is an error, not a critical. */
static gboolean
time_range_error (PtiTraceWriter *w, double t, GError **error)
{
  g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
               "cannot write trace '%s': time %g s is beyond the trace format's range (< %g s)",
               w->path, t, TIME_LIMIT);
  return FALSE;
}

/* ---- API ---------------------------------------------------------------- */

PtiTraceWriter *
pti_trace_writer_open (const char *path, GError **error)
{
  g_return_val_if_fail (path != NULL && path[0] != '\0', NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  /* The trace is renamed into place, which would replace a device, a FIFO or
   * a symbolic link instead of writing through it: follow a link to the file
   * it names, and refuse anything that is not a regular file. */
  g_autofree char *real = NULL;
  struct stat st;
  if (lstat (path, &st) == 0) {
    if (S_ISLNK (st.st_mode)) {
      real = realpath (path, NULL);
      if (real == NULL || stat (real, &st) != 0) {
        g_set_error (error, PTI_ERROR, PTI_ERROR_IO,
                     "cannot write trace '%s': it is a symbolic link to nothing", path);
        return NULL;
      }
    }
    if (!S_ISREG (st.st_mode)) {
      g_set_error (error, PTI_ERROR, PTI_ERROR_IO,
                   "cannot write trace '%s': not a regular file (a trace is written to a "
                   "temporary file and renamed into place)", path);
      return NULL;
    }
  }
  PtiTraceWriter *w = g_new0 (PtiTraceWriter, 1);
  w->tmp_slot = -1;
  w->path = g_strdup (real ? real : path);
  w->tmp_path = g_strdup_printf ("%s.tmp-XXXXXX", w->path);
  /* No signal between the file's creation and its registration. */
  sigset_t fatal, before;
  sigemptyset (&fatal);
  sigaddset (&fatal, SIGINT);
  sigaddset (&fatal, SIGTERM);
  pthread_sigmask (SIG_BLOCK, &fatal, &before);
  w->fd = g_mkstemp_full (w->tmp_path, O_WRONLY | O_CLOEXEC, 0666);
  int saved = errno;
  if (w->fd >= 0)
    w->tmp_slot = tmp_register (w->tmp_path);
  pthread_sigmask (SIG_SETMASK, &before, NULL);
  if (w->fd < 0) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_IO,
                 "cannot create a temporary file for trace '%s': %s", w->path, g_strerror (saved));
    g_free (w->tmp_path);
    w->tmp_path = NULL;
    pti_trace_writer_free (w);
    return NULL;
  }
  w->out = g_malloc (OUT_BUFFER_SIZE);
  w->line_cap = EVENT_FIXED_MAX + 1024;
  w->line = g_malloc (w->line_cap);
  w->scratch = g_string_sized_new (64);

  xmlOutputBufferPtr ob = xmlOutputBufferCreateIO (out_write, NULL, w, NULL);
  w->xw = ob != NULL ? xmlNewTextWriter (ob) : NULL;
  if (w->xw == NULL) {
    if (ob != NULL)
      xmlOutputBufferClose (ob);
    g_set_error (error, PTI_ERROR, PTI_ERROR_IO, "cannot write trace '%s': out of memory", path);
    pti_trace_writer_free (w);
    return NULL;
  }
  xmlTextWriterSetIndent (w->xw, 1);
  xmlTextWriterSetIndentString (w->xw, (const xmlChar *) "  ");
  w->state = STATE_OPEN;
  return w;
}

gboolean
pti_trace_writer_header (PtiTraceWriter *w, const PtiTraceHeader *h, GError **error)
{
  g_return_val_if_fail (w != NULL && h != NULL, FALSE);
  g_return_val_if_fail (w->state == STATE_OPEN || w->state == STATE_FAILED, FALSE);
  g_return_val_if_fail (h->system_name != NULL && h->system_file != NULL, FALSE);
  g_return_val_if_fail (h->workload_name != NULL, FALSE);
  g_return_val_if_fail (h->n_params == 0 || h->params != NULL, FALSE);
  g_return_val_if_fail (h->n_models == 0 || h->models != NULL, FALSE);
  g_return_val_if_fail (h->n_records == 0 || h->records != NULL, FALSE);
  g_return_val_if_fail (h->n_processes == 0 || h->processes != NULL, FALSE);
  if (w->state == STATE_FAILED)
    return fail (w, error);

  gboolean ok = xmlTextWriterStartDocument (w->xw, NULL, "UTF-8", NULL) >= 0
                && start (w, PTI_TRACE_E_TRACE)
                && attr (w, PTI_TRACE_A_XMLNS, PTI_TRACE_NAMESPACE)
                && attr (w, PTI_TRACE_A_VERSION, PTI_TRACE_VERSION)
                && start (w, PTI_TRACE_E_HEADER)
                && xmlTextWriterWriteElement (w->xw, (const xmlChar *) PTI_TRACE_E_GENERATOR,
                                              clean (w, h->generator != NULL ? h->generator
                                                                           : "pti " PTI_VERSION)) >= 0
                && start (w, PTI_TRACE_E_SYSTEM)
                && attr (w, PTI_TRACE_A_NAME, h->system_name)
                && attr (w, PTI_TRACE_A_FILE, h->system_file)
                && end (w)
                && start (w, PTI_TRACE_E_WORKLOAD)
                && attr (w, PTI_TRACE_A_NAME, h->workload_name)
                && (h->workload_file == NULL || attr (w, PTI_TRACE_A_FILE, h->workload_file))
                && end (w);

  ok = ok && start (w, PTI_TRACE_E_PARAMETERS);
  for (guint i = 0; ok && i < h->n_params; i++)
    ok = start (w, PTI_TRACE_E_PARAM)
         && attr (w, PTI_TRACE_A_NAME, h->params[i].name)
         && attr (w, PTI_TRACE_A_VALUE, h->params[i].value)
         && end (w);
  ok = ok && end (w);

  ok = ok && start (w, PTI_TRACE_E_MODELS);
  for (guint i = 0; ok && i < h->n_models; i++)
    ok = start (w, PTI_TRACE_E_MODEL)
         && attr (w, PTI_TRACE_A_NAME, h->models[i].name)
         && attr (w, PTI_TRACE_A_OWNER, h->models[i].owner)
         && (h->models[i].config == NULL || attr (w, PTI_TRACE_A_CONFIG, h->models[i].config))
         && end (w);
  ok = ok && end (w);

  w->n_records = h->n_records;
  w->record_model = g_new0 (char *, h->n_records + 1);
  w->record_open = g_new0 (char *, h->n_records + 1);
  w->record_fields = g_new0 (char **, h->n_records + 1);
  for (guint i = 0; i < h->n_records; i++) {
    const PtiTraceRecordType *r = &h->records[i];
    w->record_model[i] = g_strdup (r->model);
    g_autofree char *ns = g_markup_escape_text (r->ns, -1);
    w->record_open[i] = g_strdup_printf ("\n    <m:%s xmlns:m=\"%s\"", r->name, ns);
    w->record_fields[i] = g_strsplit_set (r->fields, " ", -1);
  }

  ok = ok && start (w, PTI_TRACE_E_RECORDS);
  for (guint i = 0; ok && i < h->n_records; i++) {
    const PtiTraceRecordType *r = &h->records[i];
    ok = start (w, PTI_TRACE_E_RECORD)
         && attr (w, PTI_TRACE_A_MODEL, r->model)
         && attr (w, PTI_TRACE_A_NS, r->ns)
         && attr (w, PTI_TRACE_A_NAME, r->name)
         && attr (w, PTI_TRACE_A_FIELDS, r->fields)
         && attr (w, PTI_TRACE_A_DESCRIPTION, r->description)
         && end (w);
  }
  ok = ok && end (w);

  ok = ok && start (w, PTI_TRACE_E_PROCESSES) && attr_u64 (w, PTI_TRACE_A_COUNT, h->n_processes);
  for (guint i = 0; ok && i < h->n_processes; i++)
    ok = start (w, PTI_TRACE_E_PROCESS)
         && attr_u64 (w, PTI_TRACE_A_RANK, h->processes[i].rank)
         && attr (w, PTI_TRACE_A_PROCESSOR, h->processes[i].processor)
         && end (w);
  ok = ok && end (w) /* processes */ && end (w) /* header */;

  if (!check (w, ok, error))
    return FALSE;
  w->state = STATE_HEADER;
  return TRUE;
}

gboolean
pti_trace_writer_begin_process (PtiTraceWriter *w, guint rank, GError **error)
{
  g_return_val_if_fail (w != NULL, FALSE);
  g_return_val_if_fail (w->state == STATE_HEADER || w->state == STATE_BETWEEN
                        || w->state == STATE_FAILED, FALSE);
  if (w->state == STATE_FAILED)
    return fail (w, error);

  gboolean ok = w->state == STATE_BETWEEN || (w->chunks++, start (w, PTI_TRACE_E_EVENTS));
  ok = ok && start (w, PTI_TRACE_E_PROCESS) && attr_u64 (w, PTI_TRACE_A_RANK, rank);
  if (!check (w, ok, error))
    return FALSE;
  w->group_events = 0;
  w->state = STATE_PROCESS;
  return TRUE;
}

static void line_reserve (PtiTraceWriter *w, gsize need);

gint
pti_trace_writer_record_base (const PtiTraceWriter *w, const char *model)
{
  for (guint i = 0; i < w->n_records; i++)
    if (strcmp (w->record_model[i], model) == 0)
      return (gint) i;
  return -1;
}

gboolean
pti_trace_writer_record (PtiTraceWriter *w, guint type, const char *const *values,
                         GError **error)
{
  g_return_val_if_fail (w != NULL && values != NULL, FALSE);
  g_return_val_if_fail (type < w->n_records, FALSE);
  g_return_val_if_fail (w->state == STATE_HEADER || w->state == STATE_BETWEEN
                        || w->state == STATE_PROCESS || w->state == STATE_FAILED, FALSE);
  if (w->state == STATE_FAILED)
    return fail (w, error);
  if (w->spool == NULL)
    w->spool = g_string_sized_new (4096);
  g_string_append (w->spool, w->record_open[type]);
  char **fields = w->record_fields[type];
  for (guint i = 0; fields[i] != NULL; i++) {
    if (fields[i][0] == '\0')
      continue;
    const char *v = values[i] != NULL ? values[i] : "";
    gsize len = strlen (v);
    line_reserve (w, 6 * len + 1);
    gsize n = escape_attr (w->line, v, len);
    g_string_append_c (w->spool, ' ');
    g_string_append (w->spool, fields[i]);
    g_string_append_len (w->spool, "=\"", 2);
    g_string_append_len (w->spool, w->line, (gssize) n);
    g_string_append_c (w->spool, '"');
  }
  g_string_append (w->spool, "/>");
  w->spooled++;
  if (w->spool->len >= SPOOL_MEMORY) {
    if (w->spool_file == NULL && (w->spool_file = tmpfile ()) == NULL) {
      w->io_errno = errno;
      return fail (w, error);
    }
    if (fwrite (w->spool->str, 1, w->spool->len, w->spool_file) != w->spool->len) {
      w->io_errno = errno ? errno : EIO;
      return fail (w, error);
    }
    g_string_truncate (w->spool, 0);
  }
  return TRUE;
}

/* Write the spooled records into the open chunk and empty the spool. */
static gboolean
spool_drain (PtiTraceWriter *w)
{
  gboolean ok = TRUE;
  if (w->spool_file != NULL) {
    char buf[65536];
    size_t n;
    rewind (w->spool_file);
    while (ok && (n = fread (buf, 1, sizeof buf, w->spool_file)) > 0)
      ok = xmlTextWriterWriteRawLen (w->xw, (const xmlChar *) buf, (int) n) >= 0;
    ok = ok && !ferror (w->spool_file);
    if (!ok && w->io_errno == 0)
      w->io_errno = EIO;
    fclose (w->spool_file);
    w->spool_file = NULL;
  }
  if (ok && w->spool->len > 0)
    ok = xmlTextWriterWriteRawLen (w->xw, (const xmlChar *) w->spool->str,
                                   (int) w->spool->len) >= 0;
  /* After raw records libxml2 does not indent the end tag. */
  ok = ok && xmlTextWriterWriteRawLen (w->xw, (const xmlChar *) "\n  ", 3) >= 0;
  g_string_truncate (w->spool, 0);
  w->spooled = 0;
  return ok;
}

/* Close the open chunk, its spooled records last; a chunk of records alone
 * is opened for them if no process group came. */
static gboolean
close_chunk (PtiTraceWriter *w)
{
  gboolean ok = TRUE;
  if (w->spooled > 0) {
    if (w->state == STATE_HEADER)
      ok = (w->chunks++, start (w, PTI_TRACE_E_EVENTS));
    ok = ok && spool_drain (w);
  } else if (w->state == STATE_HEADER) {
    return TRUE;
  }
  return ok && end (w);
}

gboolean
pti_trace_writer_end_chunk (PtiTraceWriter *w, GError **error)
{
  g_return_val_if_fail (w != NULL, FALSE);
  g_return_val_if_fail (w->state == STATE_HEADER || w->state == STATE_BETWEEN
                        || w->state == STATE_FAILED, FALSE);
  if (w->state == STATE_FAILED)
    return fail (w, error);
  if (!check (w, close_chunk (w), error))
    return FALSE;
  w->state = STATE_HEADER;
  return TRUE;
}

/* Make room for @need more bytes of the event line (rare: huge names). */
static void
line_reserve (PtiTraceWriter *w, gsize need)
{
  if (need > w->line_cap) {
    w->line_cap = need + need / 2;
    w->line = g_realloc (w->line, w->line_cap);
  }
}

#define PUT(lit) (memcpy (p, lit, sizeof lit - 1), p += sizeof lit - 1)

/* Hand the line formatted up to @p to libxml2, raw: one more element of
 * the open process group. */
static gboolean
put_line (PtiTraceWriter *w, const char *p, GError **error)
{
  int n = xmlTextWriterWriteRawLen (w->xw, (const xmlChar *) w->line, (int) (p - w->line));
  w->group_events++;
  return check (w, n >= 0, error);
}

/* " NAME=\"" for an attribute of the vocabulary, pasted at compile time. */
#define ATTR(name) "\" " name "=\""

/* Times of a completion must be finite, >= 0 and in order: a send is posted
 * before its data enters the network (a receive may be posted later), and
 * the data enters before it has left or arrived. */
static gboolean
completion_ok (const PtiTraceCompletion *c, PtiTraceKind want_a, PtiTraceKind want_b)
{
  return (c->kind == want_a || c->kind == want_b) && time_ok (c->posted) && time_ok (c->injected)
         && time_ok (c->done) && c->injected <= c->done
         && (!PTI_TRACE_KIND_IS_SENDER (c->kind) || c->posted <= c->injected);
}

/* The message of a completion: peer, tag, bytes, msg, protocol. */
static char *
put_message (char *p, const PtiTraceCompletion *c)
{
  PUT (ATTR (PTI_TRACE_A_PEER));
  p += format_u64 (p, c->peer);
  PUT (ATTR (PTI_TRACE_A_TAG));
  p += format_i64 (p, c->tag);
  PUT (ATTR (PTI_TRACE_A_BYTES));
  p += format_u64 (p, c->bytes);
  PUT (ATTR (PTI_TRACE_A_MSG));
  p += format_u64 (p, c->msg);
  if (c->rendezvous)
    PUT (ATTR (PTI_TRACE_A_PROTOCOL) PTI_TRACE_V_RENDEZVOUS);
  else
    PUT (ATTR (PTI_TRACE_A_PROTOCOL) PTI_TRACE_V_EAGER);
  return p;
}

/* When a completion's data entered the network, and had left or arrived. */
static char *
put_times (char *p, const PtiTraceCompletion *c)
{
  PUT (ATTR (PTI_TRACE_A_INJECTED));
  p += format_seconds (p, c->injected);
  if (PTI_TRACE_KIND_IS_SENDER (c->kind))
    PUT (ATTR (PTI_TRACE_A_LEFT));
  else
    PUT (ATTR (PTI_TRACE_A_ARRIVED));
  p += format_seconds (p, c->done);
  return p;
}

gboolean
pti_trace_writer_event (PtiTraceWriter *w, const PtiTraceEvent *e, GError **error)
{
  g_return_val_if_fail (w != NULL && e != NULL, FALSE);
  g_return_val_if_fail (w->state == STATE_PROCESS || w->state == STATE_FAILED, FALSE);
  g_return_val_if_fail ((guint) e->kind < PTI_TRACE_N_KINDS, FALSE);
  g_return_val_if_fail (e->device != NULL && e->model != NULL, FALSE);
  g_return_val_if_fail (time_ok (e->start) && time_ok (e->end) && e->end >= e->start, FALSE);
  gboolean blocks = PTI_TRACE_KIND_IS_BLOCKING (e->kind) || PTI_TRACE_KIND_IS_WAIT (e->kind);
  g_return_val_if_fail (!blocks || (time_ok (e->wait) && e->wait <= e->end - e->start), FALSE);
  if (PTI_TRACE_KIND_IS_BLOCKING (e->kind))
    g_return_val_if_fail (e->n_done == 1 && completion_ok (e->done, e->kind, e->kind), FALSE);
  else if (PTI_TRACE_KIND_IS_WAIT (e->kind))
    g_return_val_if_fail ((e->n_done <= 1 || e->kind == PTI_TRACE_WAITALL)
                          && (e->n_done == 0 || e->done != NULL), FALSE);
  else
    g_return_val_if_fail (e->n_done == 0, FALSE);
  for (guint i = 0; PTI_TRACE_KIND_IS_WAIT (e->kind) && i < e->n_done; i++)
    g_return_val_if_fail (completion_ok (&e->done[i], PTI_TRACE_ISEND, PTI_TRACE_IRECV), FALSE);
  if (w->state == STATE_FAILED)
    return fail (w, error);
  double latest = blocks ? MAX (e->end, e->wait) : e->end;
  for (guint i = 0; i < e->n_done; i++)
    latest = MAX (latest, e->done[i].done);
  if (G_UNLIKELY (!(latest < TIME_LIMIT)))
    return time_range_error (w, latest, error);

  const char *rud = e->rud;
  gsize dev_len = strlen (e->device), model_len = strlen (e->model);
  gsize rud_len = rud != NULL ? strlen (rud) : 0;
  gsize config_len = e->config != NULL ? strlen (e->config) : 0;
  line_reserve (w, EVENT_FIXED_MAX + (gsize) e->n_done * REQUEST_FIXED_MAX
                     + 6 * (dev_len + model_len + rud_len + config_len) + 16);

  /* The indentation libxml2 gives a child of <process> (depth 3). */
  char *p = w->line;
  PUT ("\n      <" PTI_TRACE_E_EVENT " " PTI_TRACE_A_KIND "=\"");
  const char *kind = pti_trace_kind_name (e->kind);
  gsize kind_len = strlen (kind);
  memcpy (p, kind, kind_len);
  p += kind_len;
  PUT (ATTR (PTI_TRACE_A_START));
  p += format_seconds (p, e->start);
  PUT (ATTR (PTI_TRACE_A_END));
  p += format_seconds (p, e->end);
  PUT (ATTR (PTI_TRACE_A_DEVICE));
  p += escape_attr (p, e->device, dev_len);
  PUT (ATTR (PTI_TRACE_A_MODEL));
  p += escape_attr (p, e->model, model_len);
  if (G_UNLIKELY (e->config != NULL)) {
    PUT (ATTR (PTI_TRACE_A_CONFIG));
    p += escape_attr (p, e->config, config_len);
  }
  if (rud != NULL) {
    PUT (ATTR (PTI_TRACE_A_RUD));
    p += escape_attr (p, rud, rud_len);
  }
  if (PTI_TRACE_KIND_IS_POSTING (e->kind)) {
    PUT (ATTR (PTI_TRACE_A_REQUEST));
    p += format_u64 (p, e->request);
    PUT (ATTR (PTI_TRACE_A_PEER));
    if (e->any_peer)
      PUT (PTI_TRACE_V_ANY);
    else
      p += format_u64 (p, e->peer);
    PUT (ATTR (PTI_TRACE_A_TAG));
    if (e->any_tag)
      PUT (PTI_TRACE_V_ANY);
    else
      p += format_i64 (p, e->tag);
    PUT (ATTR (PTI_TRACE_A_BYTES));
    p += format_u64 (p, e->bytes);
    if (e->kind == PTI_TRACE_ISEND) {
      PUT (ATTR (PTI_TRACE_A_MSG));
      p += format_u64 (p, e->msg);
    }
  } else if (e->kind == PTI_TRACE_IO) {
    PUT (ATTR (PTI_TRACE_A_OP));
    const char *op = pti_trace_io_op_name (e->io_op);
    memcpy (p, op, strlen (op));
    p += strlen (op);
    PUT (ATTR (PTI_TRACE_A_FILE));
    p += format_u64 (p, e->file);
    PUT (ATTR (PTI_TRACE_A_OFFSET));
    p += format_u64 (p, e->offset);
    PUT (ATTR (PTI_TRACE_A_BYTES));
    p += format_u64 (p, e->bytes);
    PUT (ATTR (PTI_TRACE_A_WAIT));
    p += format_seconds (p, e->wait);
    if (e->collective)
      PUT (ATTR (PTI_TRACE_A_COLLECTIVE) "yes");
  } else if (blocks) {
    if (PTI_TRACE_KIND_IS_BLOCKING (e->kind))
      p = put_message (p, e->done);
    PUT (ATTR (PTI_TRACE_A_WAIT));
    p += format_seconds (p, e->wait);
    if (PTI_TRACE_KIND_IS_BLOCKING (e->kind))
      p = put_times (p, e->done);
  }
  if (!PTI_TRACE_KIND_IS_WAIT (e->kind) || e->n_done == 0) {
    PUT ("\"/>");
  } else {
    PUT ("\">");
    for (guint i = 0; i < e->n_done; i++) {
      const PtiTraceCompletion *c = &e->done[i];
      PUT ("\n        <" PTI_TRACE_E_REQUEST " " PTI_TRACE_A_ID "=\"");
      p += format_u64 (p, c->request);
      PUT (ATTR (PTI_TRACE_A_KIND));
      if (c->kind == PTI_TRACE_ISEND)
        PUT ("isend");
      else
        PUT ("irecv");
      p = put_message (p, c);
      PUT (ATTR (PTI_TRACE_A_POSTED));
      p += format_seconds (p, c->posted);
      p = put_times (p, c);
      PUT ("\"/>");
    }
    PUT ("\n      </" PTI_TRACE_E_EVENT ">");
  }

  return put_line (w, p, error);
}

gboolean
pti_trace_writer_collective (PtiTraceWriter *w, const PtiTraceCollective *c, GError **error)
{
  g_return_val_if_fail (w != NULL && c != NULL, FALSE);
  g_return_val_if_fail (w->state == STATE_PROCESS || w->state == STATE_FAILED, FALSE);
  g_return_val_if_fail ((guint) c->call < PTI_TRACE_N_CALLS && time_ok (c->time), FALSE);
  if (w->state == STATE_FAILED)
    return fail (w, error);
  if (G_UNLIKELY (!(c->time < TIME_LIMIT)))
    return time_range_error (w, c->time, error);
  char *p = w->line;
  PUT ("\n      <" PTI_TRACE_E_COLLECTIVE " " PTI_TRACE_A_PHASE "=\"");
  if (c->begin)
    PUT (PTI_TRACE_V_BEGIN);
  else
    PUT (PTI_TRACE_V_END);
  PUT (ATTR (PTI_TRACE_A_CALL));
  const char *call = pti_trace_call_name (c->call);
  gsize len = strlen (call);
  memcpy (p, call, len);
  p += len;
  PUT (ATTR (PTI_TRACE_A_COMM));
  p += format_u64 (p, c->comm);
  if (PTI_TRACE_CALL_IS_ROOTED (c->call)) {
    PUT (ATTR (PTI_TRACE_A_ROOT));
    p += format_u64 (p, c->root);
  }
  PUT (ATTR (PTI_TRACE_A_BYTES));
  p += format_u64 (p, c->bytes);
  PUT (ATTR (PTI_TRACE_A_TIME));
  p += format_seconds (p, c->time);
  PUT ("\"/>");
  return put_line (w, p, error);
}

gboolean
pti_trace_writer_derived (PtiTraceWriter *w, const PtiTraceDerived *d, GError **error)
{
  g_return_val_if_fail (w != NULL && d != NULL, FALSE);
  g_return_val_if_fail (w->state == STATE_PROCESS || w->state == STATE_FAILED, FALSE);
  g_return_val_if_fail (time_ok (d->start) && time_ok (d->end) && d->start <= d->end
                        && time_ok (d->compute) && time_ok (d->comm) && time_ok (d->wait), FALSE);
  if (w->state == STATE_FAILED)
    return fail (w, error);
  double latest = MAX (MAX (d->end, d->compute), MAX (d->comm, d->wait));
  if (G_UNLIKELY (!(latest < TIME_LIMIT)))
    return time_range_error (w, latest, error);
  char *p = w->line;
  PUT ("\n      <" PTI_TRACE_E_DERIVED " " PTI_TRACE_A_START "=\"");
  p += format_seconds (p, d->start);
  PUT (ATTR (PTI_TRACE_A_END));
  p += format_seconds (p, d->end);
  PUT (ATTR (PTI_TRACE_A_REPETITIONS));
  p += format_u64 (p, d->repetitions);
  PUT (ATTR (PTI_TRACE_A_EVENTS));
  p += format_u64 (p, d->events);
  PUT (ATTR (PTI_TRACE_A_COMPUTE));
  p += format_seconds (p, d->compute);
  PUT (ATTR (PTI_TRACE_A_COMM));
  p += format_seconds (p, d->comm);
  PUT (ATTR (PTI_TRACE_A_WAIT));
  p += format_seconds (p, d->wait);
  PUT ("\"/>");
  return put_line (w, p, error);
}

gboolean
pti_trace_writer_end_process (PtiTraceWriter *w, GError **error)
{
  g_return_val_if_fail (w != NULL, FALSE);
  g_return_val_if_fail (w->state == STATE_PROCESS || w->state == STATE_FAILED, FALSE);
  if (w->state == STATE_FAILED)
    return fail (w, error);

  /* After raw events libxml2 does not indent the end tag; do it here.  An
   * empty group (no raw write yet) closes as <process rank="r"/>. */
  int n = 0;
  if (w->group_events > 0)
    n = xmlTextWriterWriteRawLen (w->xw, (const xmlChar *) "\n    ", 5);
  gboolean ok = n >= 0 && end (w);
  if (!check (w, ok, error))
    return FALSE;
  w->state = STATE_BETWEEN;
  return TRUE;
}

void
pti_trace_writer_set_derived (PtiTraceWriter *w, guint64 derived)
{
  g_return_if_fail (w != NULL);
  w->derived = derived;
}

void
pti_trace_writer_set_results (PtiTraceWriter *w, const PtiTracePhase *phases, guint n_phases,
                              const PtiTraceAssertion *assertions, guint n_assertions)
{
  g_return_if_fail (w != NULL);
  w->phases = phases;
  w->n_phases = n_phases;
  w->assertions = assertions;
  w->n_assertions = n_assertions;
}

/* An assertion's value may be any number (a parameter, NaN when a test
 * divided by zero): written as %.17g, "nan" or "inf" as C prints them. */
static gboolean
attr_number (PtiTraceWriter *w, const char *name, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_ascii_formatd (buf, sizeof buf, "%.17g", v);
  return xmlTextWriterWriteAttribute (w->xw, (const xmlChar *) name, (const xmlChar *) buf) >= 0;
}

static gboolean
write_results (PtiTraceWriter *w)
{
  gboolean ok = TRUE;
  for (guint i = 0; ok && i < w->n_phases; i++) {
    const PtiTracePhase *p = &w->phases[i];
    ok = start (w, PTI_TRACE_E_PHASE) && attr (w, PTI_TRACE_A_NAME, p->name)
         && attr_seconds (w, PTI_TRACE_A_TIME, p->time)
         && attr_seconds (w, PTI_TRACE_A_COMPUTE, p->compute)
         && attr_seconds (w, PTI_TRACE_A_COMM, p->comm)
         && attr_seconds (w, PTI_TRACE_A_WAIT, p->wait)
         && attr_u64 (w, PTI_TRACE_A_MESSAGES, p->messages)
         && attr_u64 (w, PTI_TRACE_A_BYTES, p->bytes)
         && attr_u64 (w, PTI_TRACE_A_ENTRIES, p->entries)
         && attr_u64 (w, PTI_TRACE_A_RANKS, p->ranks) && end (w);
  }
  for (guint i = 0; ok && i < w->n_assertions; i++) {
    const PtiTraceAssertion *a = &w->assertions[i];
    ok = start (w, PTI_TRACE_E_ASSERTION) && attr (w, PTI_TRACE_A_NAME, a->name)
         && attr (w, PTI_TRACE_A_TEST, a->test)
         && attr (w, PTI_TRACE_A_PASSED, a->passed ? "true" : "false")
         && (a->origin == NULL || attr (w, PTI_TRACE_A_ORIGIN, a->origin));
    for (guint v = 0; ok && v < a->n_values; v++)
      ok = start (w, PTI_TRACE_E_VALUE) && attr (w, PTI_TRACE_A_NAME, a->value_names[v])
           && attr_number (w, PTI_TRACE_A_VALUE, a->values[v]) && end (w);
    ok = ok && end (w);
  }
  return ok;
}

gboolean
pti_trace_writer_summary (PtiTraceWriter *w, double predicted_time, guint64 events,
                          const PtiTraceProcessSummary *procs, guint n, GError **error)
{
  g_return_val_if_fail (w != NULL, FALSE);
  g_return_val_if_fail (w->state == STATE_HEADER || w->state == STATE_BETWEEN
                        || w->state == STATE_FAILED, FALSE);
  g_return_val_if_fail (n == 0 || procs != NULL, FALSE);
  g_return_val_if_fail (time_ok (predicted_time), FALSE);
  for (guint i = 0; i < n; i++)
    g_return_val_if_fail (time_ok (procs[i].end) && time_ok (procs[i].compute)
                          && time_ok (procs[i].comm) && time_ok (procs[i].wait), FALSE);
  if (w->state == STATE_FAILED)
    return fail (w, error);
  double largest = predicted_time;
  for (guint i = 0; i < n; i++)
    largest = MAX (largest, MAX (MAX (procs[i].end, procs[i].compute),
                                 MAX (procs[i].comm, procs[i].wait)));
  if (!(largest < TIME_LIMIT))
    return time_range_error (w, largest, error);

  /* A trace without process groups still has its (empty) <events>; after
   * chunks closed by pti_trace_writer_end_chunk there is nothing to close. */
  gboolean ok = TRUE;
  if (w->state == STATE_BETWEEN || w->spooled > 0)
    ok = close_chunk (w);
  else if (w->chunks == 0)
    ok = start (w, PTI_TRACE_E_EVENTS) && end (w);
  ok = ok && start (w, PTI_TRACE_E_SUMMARY)
       && attr_seconds (w, PTI_TRACE_A_PREDICTED_TIME, predicted_time)
       && attr_u64 (w, PTI_TRACE_A_EVENTS, events)
       && (w->derived == 0 || attr_u64 (w, PTI_TRACE_A_DERIVED, w->derived));
  for (guint i = 0; ok && i < n; i++) {
    const PtiTraceProcessSummary *s = &procs[i];
    ok = start (w, PTI_TRACE_E_PROCESS)
         && attr_u64 (w, PTI_TRACE_A_RANK, s->rank)
         && attr_seconds (w, PTI_TRACE_A_END, s->end)
         && attr_seconds (w, PTI_TRACE_A_COMPUTE, s->compute)
         && attr_seconds (w, PTI_TRACE_A_COMM, s->comm)
         && attr_seconds (w, PTI_TRACE_A_WAIT, s->wait)
         && attr_u64 (w, PTI_TRACE_A_EVENTS, s->events)
         && (s->io == 0 || attr_seconds (w, PTI_TRACE_A_IO, s->io))
         && end (w);
  }
  ok = ok && write_results (w) && end (w) /* summary */ && end (w) /* trace */;
  if (!check (w, ok, error))
    return FALSE;
  w->state = STATE_SUMMARY;
  return TRUE;
}

gboolean
pti_trace_writer_commit (PtiTraceWriter *w, GError **error)
{
  g_return_val_if_fail (w != NULL, FALSE);
  g_return_val_if_fail (w->state == STATE_SUMMARY || w->state == STATE_FAILED, FALSE);
  if (w->state == STATE_FAILED)
    return fail (w, error);

  gboolean ok = xmlTextWriterEndDocument (w->xw) >= 0 && xmlTextWriterFlush (w->xw) >= 0;
  /* Freeing the xmlTextWriter flushes and frees its output buffer; nothing
   * is written through it afterwards. */
  xmlFreeTextWriter (w->xw);
  w->xw = NULL;
  ok = ok && flush_out (w);
  if (!check (w, ok, error))
    return FALSE;
  int fd = w->fd;
  w->fd = -1;
  if (close (fd) != 0) {
    w->io_errno = errno;
    return fail (w, error);
  }
  if (g_rename (w->tmp_path, w->path) != 0) {
    int saved = errno;
    w->state = STATE_FAILED;
    g_set_error (error, PTI_ERROR, PTI_ERROR_IO, "cannot rename '%s' to trace '%s': %s",
                 w->tmp_path, w->path, g_strerror (saved));
    return FALSE;
  }
  w->state = STATE_COMMITTED;
  tmp_release (&w->tmp_slot);
  return TRUE;
}

void
pti_trace_writer_free (PtiTraceWriter *w)
{
  if (w == NULL)
    return;
  if (w->xw != NULL) {
    w->io_errno = w->io_errno != 0 ? w->io_errno : ECANCELED; /* drop what libxml2 flushes */
    xmlFreeTextWriter (w->xw);
  }
  if (w->fd >= 0)
    close (w->fd);
  if (w->tmp_path != NULL && w->state != STATE_COMMITTED)
    g_unlink (w->tmp_path);
  tmp_release (&w->tmp_slot);
  g_free (w->out);
  g_free (w->line);
  if (w->scratch != NULL)
    g_string_free (w->scratch, TRUE);
  if (w->spool != NULL)
    g_string_free (w->spool, TRUE);
  if (w->spool_file != NULL)
    fclose (w->spool_file);
  for (guint i = 0; i < w->n_records; i++)
    g_strfreev (w->record_fields[i]);
  g_strfreev (w->record_model);
  g_strfreev (w->record_open);
  g_free (w->record_fields);
  g_free (w->tmp_path);
  g_free (w->path);
  g_free (w);
}
