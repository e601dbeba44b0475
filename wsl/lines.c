/* Lines of the text traces pti replays (lines.h). */
#include "lines.h"

#include <pti/hmi.h>

#include <errno.h>
#include <string.h>

/* No byte of @s is beyond ASCII: a word at a time, so that the usual line
 * costs a few instructions and only others go through the UTF-8 check. */
static gboolean
is_ascii (const char *s, gsize n)
{
  guint64 any = 0;
  gsize i = 0;
  for (; i + 8 <= n; i += 8) {
    guint64 w;
    memcpy (&w, s + i, 8);
    any |= w;
  }
  for (; i < n; i++)
    any |= (guchar) s[i];
  return (any & G_GUINT64_CONSTANT (0x8080808080808080)) == 0;
}

gssize
pti_line_read (FILE *fp, GString *out, gsize limit, GError **error)
{
  gsize start = out->len;
  char chunk[128];
  for (;;) {
    /* fgets gives no length, and a NUL byte it reads ends the string it
     * makes.  The chunk is laid with newlines first: fgets stops after a
     * newline it reads, so the last NUL in the chunk is the one it wrote
     * after its bytes.  The usual chunk (a whole line, or full) needs only
     * strlen. */
    memset (chunk, '\n', sizeof chunk);
    if (fgets (chunk, sizeof chunk, fp) == NULL)
      break;
    gsize len = strlen (chunk);
    if (!(len > 0 && chunk[len - 1] == '\n') && len != sizeof chunk - 1)
      len = (gsize) ((const char *) memrchr (chunk, '\0', sizeof chunk) - chunk);
    g_string_append_len (out, chunk, (gssize) len);
    if (len > 0 && chunk[len - 1] == '\n')
      break;
    if (out->len - start > limit) {
      g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "a line longer than %zu bytes", limit);
      return -1;
    }
  }
  if (ferror (fp)) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_IO, "cannot read: %s", g_strerror (errno));
    return -1;
  }
  gsize n = out->len - start;
  const char *line = out->str + start;
  if (G_UNLIKELY (memchr (line, '\0', n) != NULL
                  || (!is_ascii (line, n) && !g_utf8_validate_len (line, n, NULL)))) {
    pti_text_check (line, (gssize) n, 0, "this line", error);
    return -1;
  }
  return (gssize) n;
}
