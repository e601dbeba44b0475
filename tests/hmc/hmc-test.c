#include "hmc-test.h"

#include <glib/gstdio.h>
#include <stdarg.h>
#include <string.h>

HmcModelDirs hmc_dirs;
static char *scratch_dir;

void
hmc_test_init (int *argc, char ***argv)
{
  static const struct {
    const char *option;
    const char **dir;
  } options[] = {
    { "--models-good", &hmc_dirs.good },
    { "--models-badabi", &hmc_dirs.badabi },
    { "--models-nosym", &hmc_dirs.nosym },
    { "--models-extra", &hmc_dirs.extra },
    { "--models-hugesize", &hmc_dirs.hugesize },
  };
  char **args = *argv;
  int kept = 1;
  for (int i = 1; i < *argc; i++) {
    gboolean taken = FALSE;
    for (guint o = 0; o < G_N_ELEMENTS (options) && !taken; o++)
      if (strcmp (args[i], options[o].option) == 0 && i + 1 < *argc) {
        *options[o].dir = args[++i];
        taken = TRUE;
      }
    if (!taken)
      args[kept++] = args[i];
  }
  *argc = kept;
  args[kept] = NULL;

  g_test_init (argc, argv, NULL);
  g_autoptr (GError) error = NULL;
  scratch_dir = g_dir_make_tmp ("pti-hmc-XXXXXX", &error);
  g_assert_no_error (error);
}

static void
remove_tree (const char *path)
{
  GDir *d = g_dir_open (path, 0, NULL);
  if (d != NULL) {
    const char *name;
    while ((name = g_dir_read_name (d)) != NULL) {
      g_autofree char *child = g_build_filename (path, name, NULL);
      remove_tree (child);
    }
    g_dir_close (d);
  }
  g_remove (path);
}

int
hmc_test_run (void)
{
  int rc = g_test_run ();
  remove_tree (scratch_dir);
  g_free (scratch_dir);
  return rc;
}

char *
hmc_scratch (const char *name)
{
  return g_build_filename (scratch_dir, name, NULL);
}

char *
hmc_write (const char *name, const char *text)
{
  char *path = hmc_scratch (name);
  g_autoptr (GError) error = NULL;
  g_file_set_contents (path, text, -1, &error);
  g_assert_no_error (error);
  return path;
}

char *
hmc_source (const char *relative)
{
  const char *root = g_getenv ("PTI_SOURCE_ROOT");
  if (root != NULL && root[0] != '\0')
    return g_build_filename (root, relative, NULL);
  return g_test_build_filename (G_TEST_DIST, "..", relative, NULL);
}

int
hmc_line_of (const char *text, const char *needle)
{
  const char *at = strstr (text, needle);
  g_assert_nonnull (at);
  int line = 1;
  for (const char *p = text; p < at; p++)
    line += *p == '\n';
  return line;
}

void
hmc_assert_error (const GError *error, int code, ...)
{
  g_assert_nonnull (error);
  g_test_message ("error: %s", error->message);
  g_assert_error (error, PTI_ERROR, code);
  va_list args;
  va_start (args, code);
  for (const char *s = va_arg (args, const char *); s != NULL; s = va_arg (args, const char *))
    if (strstr (error->message, s) == NULL) {
      g_printerr ("message: %s\nlacks:   %s\n", error->message, s);
      g_assert_not_reached ();
    }
  va_end (args);
}

void
hmc_assert_error_lacks (const GError *error, const char *needle)
{
  g_assert_nonnull (error);
  if (strstr (error->message, needle) != NULL) {
    g_printerr ("message: %s\nshould not contain: %s\n", error->message, needle);
    g_assert_not_reached ();
  }
}
