/* Text address streams pushed in chunks: raw lines or valgrind lackey's
 * --trace-mem output (reuse.h).  Lines are parsed where they lie in the
 * chunk; only a line cut by the chunk's end is copied (into a fixed
 * buffer), so nothing is allocated per line or per reference. */
#include "reuse.h"
#include "include/pti/reuse-region.h"

#include <pti/hmi.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

/* Longer lines are refused: no format here has them, and a binary file fed
 * by mistake must not grow a buffer without end. */
#define MAX_LINE 4096
/* A reference's size at most: far above any real access (64 bytes for
 * AVX-512), low enough that a mistaken size cannot loop for hours. */
#define MAX_SIZE 65536
/* valgrind messages kept for an error report. */
#define N_MESSAGES 8

struct _PtiReuseStream {
  PtiReuse *reuse;
  PtiReuseFormat format;
  char *name;
  gboolean region;
  guint depth;              /* open start markers */
  guint64 regions;
  guint64 line_no;
  gboolean failed;
  gsize partial_len;
  char partial[MAX_LINE];
  char *messages[N_MESSAGES];
  guint n_messages;
  GString *joined;
};

PtiReuseStream *
pti_reuse_stream_new (PtiReuse *r, PtiReuseFormat format, const char *name, gboolean region)
{
  PtiReuseStream *s = g_new0 (PtiReuseStream, 1);
  s->reuse = r;
  s->format = format;
  s->name = g_strdup (name);
  s->region = region;
  if (region)
    pti_reuse_set_counting (r, FALSE);
  s->joined = g_string_new (NULL);
  return s;
}

void
pti_reuse_stream_free (PtiReuseStream *s)
{
  if (s == NULL)
    return;
  for (guint i = 0; i < N_MESSAGES; i++)
    g_free (s->messages[i]);
  g_string_free (s->joined, TRUE);
  g_free (s->name);
  g_free (s);
}

guint64
pti_reuse_stream_regions (const PtiReuseStream *s)
{
  return s->regions;
}

const char *
pti_reuse_stream_messages (const PtiReuseStream *s)
{
  PtiReuseStream *m = (PtiReuseStream *) s;
  g_string_truncate (m->joined, 0);
  guint first = s->n_messages > N_MESSAGES ? s->n_messages - N_MESSAGES : 0;
  for (guint i = first; i < s->n_messages; i++) {
    g_string_append (m->joined, s->messages[i % N_MESSAGES]);
    g_string_append_c (m->joined, '\n');
  }
  return m->joined->str;
}

/* The line quoted in an error: printable, at most 60 bytes. */
static char *
quote (const char *p, gsize len)
{
  GString *q = g_string_new ("'");
  for (gsize i = 0; i < len && i < 60; i++)
    g_string_append_c (q, g_ascii_isprint (p[i]) ? p[i] : '?');
  g_string_append (q, len > 60 ? "...'" : "'");
  return g_string_free (q, FALSE);
}

static gboolean
fail (PtiReuseStream *s, const char *p, gsize len, const char *why, GError **error)
{
  g_autofree char *q = quote (p, len);
  g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s:%" G_GUINT64_FORMAT ": %s: %s", s->name,
               s->line_no, why, q);
  s->failed = TRUE;
  return FALSE;
}

/* A hexadecimal number at *p (0x optional) up to @end: FALSE if there is
 * none or it has more than 16 digits. */
static gboolean
parse_hex (const char **p, const char *end, guint64 *value)
{
  const char *q = *p;
  if (end - q > 2 && q[0] == '0' && (q[1] == 'x' || q[1] == 'X'))
    q += 2;
  guint64 v = 0;
  int digits = 0;
  for (; q < end; q++, digits++) {
    /* inline, not g_ascii_xdigit_value: two calls a character were a third
     * of the cost of a raw reference */
    unsigned char c = (unsigned char) *q;
    int x = (unsigned) (c - '0') < 10u ? c - '0' : (unsigned) ((c | 0x20) - 'a') < 6u ? (c | 0x20) - 'a' + 10 : -1;
    if (x < 0)
      break;
    if (digits == 16)
      return FALSE;
    v = v << 4 | (guint64) x;
  }
  if (digits == 0)
    return FALSE;
  *p = q;
  *value = v;
  return TRUE;
}

/* ",SIZE" in decimal, 1..MAX_SIZE, ending the line. */
static gboolean
parse_size (const char *p, const char *end, guint64 *size)
{
  if (p == end || *p != ',' || ++p == end)
    return FALSE;
  guint64 v = 0;
  for (; p < end; p++) {
    if (!g_ascii_isdigit (*p))
      return FALSE;
    v = v * 10 + (guint64) (*p - '0');
    if (v > MAX_SIZE)
      return FALSE;
  }
  *size = v;
  return v >= 1;
}

static gboolean
raw_line (PtiReuseStream *s, const char *p, const char *end, GError **error)
{
  const char *line = p;
  while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
    end--;
  while (p < end && (*p == ' ' || *p == '\t'))
    p++;
  if (p == end || *p == '#')
    return TRUE;
  guint64 addr, size = 1;
  if (!parse_hex (&p, end, &addr) || (p != end && *p != ','))
    return fail (s, line, end - line, "not a hexadecimal address", error);
  if (p != end && !parse_size (p, end, &size))
    return fail (s, line, end - line,
                 "expected ADDRESS or ADDRESS,SIZE (SIZE a decimal byte count, 1 to 65536)", error);
  pti_reuse_access (s->reuse, addr, size);
  return TRUE;
}

static void
keep_message (PtiReuseStream *s, const char *p, gsize len)
{
  guint i = s->n_messages++ % N_MESSAGES;
  g_free (s->messages[i]);
  s->messages[i] = g_strndup (p, MIN (len, 200));
}

/* "**PID** MESSAGE": a marker, or another VALGRIND_PRINTF of the program. */
static gboolean
client_message (PtiReuseStream *s, const char *p, const char *end, GError **error)
{
  const char *q = p + 2;
  while (q < end && g_ascii_isdigit (*q))
    q++;
  if (end - q < 3 || q[0] != '*' || q[1] != '*' || q[2] != ' ')
    return TRUE;                /* not VALGRIND_PRINTF's form: someone else's text */
  q += 3;
  gsize len = end - q;
  gboolean start = len == strlen (PTI_REUSE_START_MARK) && memcmp (q, PTI_REUSE_START_MARK, len) == 0;
  gboolean stop = len == strlen (PTI_REUSE_STOP_MARK) && memcmp (q, PTI_REUSE_STOP_MARK, len) == 0;
  if (start) {
    s->depth++;
    s->regions++;
  } else if (stop) {
    if (s->depth == 0)
      return fail (s, p, end - p, "a region's stop marker without its start", error);
    s->depth--;
  } else {
    return TRUE;
  }
  if (s->region)
    pti_reuse_set_counting (s->reuse, s->depth > 0);
  return TRUE;
}

static gboolean
lackey_line (PtiReuseStream *s, const char *p, const char *end, GError **error)
{
  if (end > p && end[-1] == '\r')
    end--;
  gsize len = end - p;
  if (len == 0)
    return TRUE;
  if (len >= 3 && p[0] == ' ' && (p[1] == 'L' || p[1] == 'S' || p[1] == 'M') && p[2] == ' ') {
    const char *q = p + 3;
    guint64 addr, size;
    if (!parse_hex (&q, end, &addr) || !parse_size (q, end, &size))
      return fail (s, p, len, "a data reference must be ' L|S|M ADDRESS,SIZE'", error);
    pti_reuse_access (s->reuse, addr, size);
    return TRUE;
  }
  if (p[0] == 'I' && len >= 2 && p[1] == ' ')
    return TRUE;                /* an instruction fetch: not a data reference */
  if (len >= 2 && ((p[0] == '=' && p[1] == '=') || (p[0] == '-' && p[1] == '-'))) {
    keep_message (s, p, len);
    return TRUE;
  }
  if (len >= 2 && p[0] == '*' && p[1] == '*')
    return client_message (s, p, end, error);
  return fail (s, p, len, "not a line of valgrind lackey's --trace-mem output", error);
}

static gboolean
one_line (PtiReuseStream *s, const char *p, const char *end, GError **error)
{
  s->line_no++;
  return s->format == PTI_REUSE_FORMAT_RAW ? raw_line (s, p, end, error)
                                           : lackey_line (s, p, end, error);
}

gboolean
pti_reuse_stream_push (PtiReuseStream *s, const char *data, gsize len, GError **error)
{
  g_return_val_if_fail (!s->failed, FALSE);
  const char *p = data, *end = data + len;
  if (s->partial_len > 0) {
    const char *nl = memchr (p, '\n', len);
    gsize take = nl != NULL ? (gsize) (nl - p) : len;
    if (s->partial_len + take > MAX_LINE) {
      s->line_no++;
      return fail (s, s->partial, s->partial_len, "line longer than 4096 bytes", error);
    }
    memcpy (s->partial + s->partial_len, p, take);
    s->partial_len += take;
    if (nl == NULL)
      return TRUE;
    p = nl + 1;
    gsize plen = s->partial_len;
    s->partial_len = 0;
    if (!one_line (s, s->partial, s->partial + plen, error))
      return FALSE;
  }
  for (;;) {
    const char *nl = memchr (p, '\n', end - p);
    if (nl == NULL)
      break;
    if (!one_line (s, p, nl, error))
      return FALSE;
    p = nl + 1;
  }
  gsize rest = end - p;
  if (rest > MAX_LINE) {
    s->line_no++;
    return fail (s, p, rest, "line longer than 4096 bytes", error);
  }
  memcpy (s->partial, p, rest);
  s->partial_len = rest;
  return TRUE;
}

gboolean
pti_reuse_stream_read_fd (PtiReuseStream *s, int fd, const char *what, GError **error)
{
  enum { CHUNK = 1 << 20 };
  g_autofree char *buf = g_malloc (CHUNK);
  for (;;) {
    ssize_t n = read (fd, buf, CHUNK);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      g_set_error (error, PTI_ERROR, PTI_ERROR_IO, "reading %s: %s", what, g_strerror (errno));
      return FALSE;
    }
    if (n == 0)
      return TRUE;
    if (!pti_reuse_stream_push (s, buf, (gsize) n, error))
      return FALSE;
  }
}

gboolean
pti_reuse_stream_finish (PtiReuseStream *s, GError **error)
{
  g_return_val_if_fail (!s->failed, FALSE);
  if (s->partial_len > 0) {
    gsize plen = s->partial_len;
    s->partial_len = 0;
    if (!one_line (s, s->partial, s->partial + plen, error))
      return FALSE;
  }
  if (s->depth > 0) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "%s: a region was started (" PTI_REUSE_START_MARK ") and never stopped", s->name);
    s->failed = TRUE;
    return FALSE;
  }
  return TRUE;
}
