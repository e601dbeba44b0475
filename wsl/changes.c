/* Live changes given as text: the changes file (ptieval --changes) and the
 * change stream (ptieval --changes-stream), one syntax and one parser
 * (tests/fuzz/fuzz-changes.c covers both).
 *
 * A line is `TIME TARGET ELEMENT VALUE` (a change), `until TIME` (the
 * stream's heartbeat: no change before TIME will come), blank, or a
 * comment from `#`.  TIME is a number of seconds or a number with a time
 * unit (250us).
 *
 * The stream protocol (wsl/README.md, "A live sensor feed").  The engine
 * never resolves anything at or after the stream's horizon: the time of
 * the last change read, or of the last `until`, whichever is later; 0
 * before the first line.  When it needs to go further it reads the stream
 * (blocking) until the horizon is past where it wants to be.  A change
 * stamped before the horizon is for a time already passed: an error naming
 * the line, its time and the simulated time.  End of stream means no more
 * changes (horizon infinite); a last line without its newline means the
 * writer stopped in the middle of it: an error. */
#include "pti-config.h"
#include "wsl-private.h"

#include "xml.h"

#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

/* A changes file may hold a long sensor log, not gigabytes. */
#define CHANGES_FILE_MAX ((gsize) 1 << 30)

/* One line of changes text, parsed: @time and, for a change, @words[1..3]
 * (target, element, value; owned by @words).  Returns -1 with @error, 0 for
 * nothing (blank or comment), 1 for a change, 2 for `until TIME`. */
static int
parse_line (const char *text, gsize len, const char *origin, double *time, GStrv *words_out,
            GError **error)
{
  if (!pti_text_check (text, (gssize) len, PTI_WSL_TEXT_MAX, origin, error))
    return -1;
  g_autofree char *line = g_strndup (text, len);
  char *hash = strchr (line, '#');
  if (hash != NULL)
    *hash = '\0';
  g_auto (GStrv) words = g_strsplit_set (g_strstrip (line), " \t\r", -1);
  guint n = 0;
  for (guint w = 0; words[w] != NULL; w++)   /* drop the empty words runs of blanks make */
    if (words[w][0] != '\0')
      words[n++] = words[w];
    else
      g_free (words[w]);
  words[n] = NULL;
  if (n == 0)
    return 0;
  gboolean until = strcmp (words[0], "until") == 0;
  if (until ? n != 2 : n != 4) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 until ? "%s: expected until TIME (e.g. \"until 2ms\"), found %u word%s"
                       : "%s: expected TIME TARGET ELEMENT VALUE (e.g. \"250us myrinet "
                         "background_load 0.3\") or until TIME, found %u word%s",
                 origin, n, n == 1 ? "" : "s");
    return -1;
  }
  /* a bare number is in seconds */
  const char *stamp = words[until ? 1 : 0];
  char *stop = NULL;
  double t = g_ascii_strtod (stamp, &stop);
  if (stop == stamp || *stop != '\0') {
    GError *local = NULL;
    if (!pti_parse_time (stamp, &t, &local)) {
      g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s: time %s", origin, local->message);
      g_error_free (local);
      return -1;
    }
  }
  if (!until && strstr (words[3], "..") != NULL) {   /* what a -D range looks like */
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "%s: %s: a change takes a single value, not a range (ranges are for the "
                 "HMC file's min and max and for -D, which ptieval bounds)", origin, words[3]);
    return -1;
  }
  /* Its range is checked with the change (pti_engine_check_change). */
  *time = t;
  *words_out = g_steal_pointer (&words);
  return until ? 2 : 1;
}

gboolean
pti_changes_file_load (PtiContext *ctx, const char *path, GError **error)
{
  g_autofree char *text = NULL;
  gsize len = 0;
  GError *local = NULL;
  if (!pti_file_read (path, CHANGES_FILE_MAX, &text, &len, &local)) {
    if (local->code == PTI_ERROR_IO)
      g_prefix_error (&local, "cannot read changes file: ");
    g_propagate_error (error, local);
    return FALSE;
  }
  /* Line by line over the bytes read, so that a NUL byte is found (a
   * string function would stop at it and drop the rest of the file). */
  guint number = 0;
  for (gsize start = 0; start < len;) {
    const char *nl = memchr (text + start, '\n', len - start);
    gsize end = nl != NULL ? (gsize) (nl - text) : len;
    g_autofree char *origin = g_strdup_printf ("%s:%u", path, ++number);
    double t = 0;
    g_auto (GStrv) words = NULL;
    int kind = parse_line (text + start, end - start, origin, &t, &words, error);
    start = end + 1;
    if (kind < 0)
      return FALSE;
    /* A file is read whole before the run: `until` says nothing more. */
    if (kind == 1
        && !pti_context_change_at_origin (ctx, t, words[1], words[2], words[3], origin, error))
      return FALSE;
  }
  return TRUE;
}

/* ---- the change stream -------------------------------------------------------- */

struct _PtiChangeStream {
  PtiContext *ctx;
  char *name;            /* as given ("-": "stdin"), for messages */
  int fd;
  GByteArray *buf;       /* bytes read, not yet a whole line */
  guint line;            /* lines read so far */
  double last;           /* time of the last line (change or until) */
  guint last_line;       /* its number, 0 before the first */
  gboolean last_until;   /* it was an until line */
};

void
pti_changes_stream_free (PtiChangeStream *cs)
{
  if (cs == NULL)
    return;
  if (cs->fd >= 0)
    close (cs->fd);
  g_byte_array_unref (cs->buf);
  g_free (cs->name);
  g_free (cs);
}

/* Open @path for reading: "-" is standard input, a unix socket is
 * connected to, anything else (a FIFO, a file) opened. */
static int
open_stream (const char *path, GError **error)
{
  if (strcmp (path, "-") == 0)
    return dup (STDIN_FILENO);
  struct stat st;
  if (stat (path, &st) == 0 && S_ISSOCK (st.st_mode)) {
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    if (strlen (path) >= sizeof sa.sun_path) {
      g_set_error (error, PTI_ERROR, PTI_ERROR_IO, "changes stream %s: the socket's path is "
                   "longer than %zu bytes", path, sizeof sa.sun_path - 1);
      return -1;
    }
    strcpy (sa.sun_path, path);
    int fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && connect (fd, (struct sockaddr *) &sa, sizeof sa) == 0)
      return fd;
    int err = errno;
    if (fd >= 0)
      close (fd);
    g_set_error (error, PTI_ERROR, PTI_ERROR_IO, "changes stream %s: cannot connect: %s", path,
                 g_strerror (err));
    return -1;
  }
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    g_set_error (error, PTI_ERROR, PTI_ERROR_IO, "changes stream %s: cannot open: %s", path,
                 g_strerror (errno));
  return fd;
}

/* The engine's PtiEngineFeed.more: read until one line has said something
 * (a change, an until) or the stream has ended. */
static gboolean
stream_more (gpointer data, GError **error)
{
  PtiChangeStream *cs = data;
  PtiEngine *engine = pti_session_engine (cs->ctx->session);
  for (;;) {
    guint8 *nl = cs->buf->len > 0 ? memchr (cs->buf->data, '\n', cs->buf->len) : NULL;
    if (nl != NULL) {
      gsize len = (gsize) (nl - cs->buf->data);
      g_autofree char *origin = g_strdup_printf ("%s:%u", cs->name, ++cs->line);
      double t = 0;
      g_auto (GStrv) words = NULL;
      int kind = parse_line ((const char *) cs->buf->data, len, origin, &t, &words, error);
      g_byte_array_remove_range (cs->buf, 0, (guint) len + 1);
      if (kind < 0)
        return FALSE;
      if (kind == 0)
        continue;
      double known = pti_engine_changes_known_until (engine);
      if (t < known) {
        g_autofree char *after = cs->last_line > 0
          ? g_strdup_printf (" (line %u said %s %.9f s)", cs->last_line,
                             cs->last_until ? "until" : "a change at", cs->last)
          : g_strdup ("");
        g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                     "%s: %s %.9f s is for a time already passed: the stream let the "
                     "evaluation advance to %.9f s%s; simulated time now %.9f s", origin,
                     kind == 2 ? "until" : "a change at", t, known, after,
                     pti_engine_now (engine));
        return FALSE;
      }
      if (kind == 1
          && !pti_context_change_at_origin (cs->ctx, t, words[1], words[2], words[3], origin,
                                            error))
        return FALSE;
      cs->last = t;
      cs->last_line = cs->line;
      cs->last_until = kind == 2;
      pti_engine_changes_known (engine, t);
      return TRUE;
    }
    if (cs->buf->len > PTI_WSL_TEXT_MAX) {
      g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s:%u: a line longer than %u bytes",
                   cs->name, cs->line + 1, PTI_WSL_TEXT_MAX);
      return FALSE;
    }
    guint8 chunk[4096];
    ssize_t got = read (cs->fd, chunk, sizeof chunk);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0) {
      g_set_error (error, PTI_ERROR, PTI_ERROR_IO, "changes stream %s: cannot read: %s",
                   cs->name, g_strerror (errno));
      return FALSE;
    }
    if (got == 0) {
      if (cs->buf->len > 0) {
        g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s:%u: the stream closed in the "
                     "middle of this line (%u bytes without a newline): its writer stopped "
                     "early", cs->name, cs->line + 1, cs->buf->len);
        return FALSE;
      }
      /* End of stream: no more changes. */
      pti_engine_changes_known (engine, INFINITY);
      return TRUE;
    }
    g_byte_array_append (cs->buf, chunk, (guint) got);
  }
}

gboolean
pti_changes_stream_open (PtiContext *ctx, const char *path, GError **error)
{
  g_return_val_if_fail (ctx != NULL && path != NULL, FALSE);
  if (ctx->stream != NULL) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_USAGE, "one changes stream per evaluation");
    return FALSE;
  }
  int fd = open_stream (path, error);
  if (fd < 0)
    return FALSE;
  PtiChangeStream *cs = g_new0 (PtiChangeStream, 1);
  cs->ctx = ctx;
  cs->name = g_strdup (strcmp (path, "-") == 0 ? "stdin" : path);
  cs->fd = fd;
  cs->buf = g_byte_array_new ();
  ctx->stream = cs;
  PtiEngineFeed feed = { stream_more, cs };
  pti_session_set_feed (ctx->session, &feed);
  return TRUE;
}
