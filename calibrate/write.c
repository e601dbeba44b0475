/* Small writing helpers: XML comments, C-locale numbers, files, errors. */
#include "calibrate.h"

#include <pti/hmi.h>

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void
cal_xml_comment (GString *out, int indent, const char *text)
{
  /* "--" may not appear in a comment, nor a '-' right before "-->". */
  GString *clean = g_string_new (NULL);
  for (const char *p = text; *p; p++) {
    g_string_append_c (clean, *p);
    if (*p == '-' && (p[1] == '-' || p[1] == '\0'))
      g_string_append_c (clean, ' ');
  }
  const int width = 92;
  g_auto (GStrv) paragraphs = g_strsplit (clean->str, "\n", -1);
  g_string_free (clean, TRUE);
  g_string_append_printf (out, "%*s<!--", indent, "");
  gboolean one_line = g_strv_length (paragraphs) == 1
                      && indent + 10 + (int) strlen (paragraphs[0]) <= width;
  if (one_line) {
    g_string_append_printf (out, " %s -->\n", paragraphs[0]);
    return;
  }
  g_string_append_c (out, '\n');
  for (char **par = paragraphs; *par != NULL; par++) {
    if (**par == '\0') {
      g_string_append_c (out, '\n');
      continue;
    }
    /* A line that starts with two spaces is preformatted (a table row,
     * code): as it is, unwrapped. */
    int lead = (int) strspn (*par, " ");
    if (lead >= 2) {
      g_string_append_printf (out, "%*s%s\n", indent + 2, "", *par);
      continue;
    }
    g_auto (GStrv) words = g_strsplit (*par + lead, " ", -1);
    int col = 0;
    for (char **w = words; *w != NULL; w++) {
      if (**w == '\0')
        continue;
      int len = (int) strlen (*w);
      if (col > 0 && col + 1 + len > width) {
        g_string_append_c (out, '\n');
        col = 0;
      }
      if (col == 0) {
        g_string_append_printf (out, "%*s%*s", indent + 2, "", lead, "");
        col = indent + 2 + lead;
      } else {
        g_string_append_c (out, ' ');
        col++;
      }
      g_string_append (out, *w);
      col += len;
    }
    g_string_append_c (out, '\n');
  }
  g_string_append_printf (out, "%*s-->\n", indent, "");
}

char *
cal_strdup_printf (const char *format, ...)
{
  /* The probes' numbers and the files' numbers are C-locale decimals
   * whatever LC_NUMERIC says. */
  locale_t c = newlocale (LC_NUMERIC_MASK, "C", (locale_t) 0);
  locale_t old = c != (locale_t) 0 ? uselocale (c) : (locale_t) 0;
  va_list ap;
  va_start (ap, format);
  char *s = g_strdup_vprintf (format, ap);
  va_end (ap);
  if (c != (locale_t) 0) {
    uselocale (old);
    freelocale (c);
  }
  return s;
}

char *
cal_decimal (double v, int digits)
{
  if (!isfinite (v) || v == 0)
    return g_strdup ("0");
  int mag = (int) floor (log10 (fabs (v)));
  int decimals = MAX (0, digits - 1 - mag);
  char *s = cal_strdup_printf ("%.*f", decimals, v);
  /* trailing zeros of the fraction say nothing */
  if (strchr (s, '.') != NULL) {
    char *end = s + strlen (s) - 1;
    while (*end == '0')
      *end-- = '\0';
    if (*end == '.')
      *end = '\0';
  }
  return s;
}

char *
cal_noise_text (const char *what, double preempted, double dirty, const char *cpu_what)
{
  g_autofree char *kept =
    dirty <= 0 ? g_strdup ("")
    : cpu_what ? cal_strdup_printf ("; %g %s never undisturbed within the time allowed were counted "
                                    "in the CPU time the process did get", dirty, cpu_what)
               : cal_strdup_printf ("; %g never undisturbed within the time allowed were kept as "
                                    "they were", dirty);
  return cal_strdup_printf ("%g %s were taken again because another process interrupted them%s",
                            preempted, what, kept);
}

gboolean
cal_write_file (const char *dir, const char *name, const char *text, GError **error)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  GError *e = NULL;
  if (!g_file_set_contents (path, text, -1, &e)) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_IO, "cannot write %s: %s", path, e->message);
    g_error_free (e);
    return FALSE;
  }
  return TRUE;
}

void
cal_set_command_error (GError **error, const char *what, const char *const *argv, int status,
                       const char *err_text)
{
  g_autofree char *cmd = g_strjoinv (" ", (char **) argv);
  GString *tail = g_string_new (NULL);
  g_auto (GStrv) lines = g_strsplit (err_text ? err_text : "", "\n", -1);
  guint shown = 0;
  for (char **l = lines; *l != NULL && shown < 15; l++)
    if (**l != '\0') {
      g_string_append_printf (tail, "\n  %s", *l);
      shown++;
    }
  g_set_error (error, PTI_ERROR, PTI_ERROR_FAILED, "%s: `%s` failed (exit status %d)%s%s", what,
               cmd, status, tail->len ? ":" : "", tail->str);
  g_string_free (tail, TRUE);
}
