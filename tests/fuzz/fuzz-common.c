/* Helpers of the fuzz harnesses (fuzz.h). */
#include "fuzz.h"

#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *input_path;
static int input_fd = -1;

static void
remove_input (void)
{
  if (input_path != NULL)
    g_unlink (input_path);
}

void
fuzz_setup (void)
{
  static gboolean done;
  if (done)
    return;
  done = TRUE;
  if (g_getenv ("PTI_SCHEMA_DIR") == NULL) {
    g_autofree char *schemas = fuzz_source_file ("schemas");
    g_setenv ("PTI_SCHEMA_DIR", schemas, TRUE);
  }
  g_setenv ("PTI_MODEL_PATH", "", TRUE);
  g_setenv ("PTI_MODEL_SYSTEM_PATH", "", TRUE);
  g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);
}

char *
fuzz_source_file (const char *relative)
{
  const char *root = g_getenv ("PTI_SOURCE_ROOT");
  return g_build_filename (root != NULL ? root : FUZZ_SOURCE_ROOT, relative, NULL);
}

const char *
fuzz_write_file (const uint8_t *data, size_t size)
{
  if (input_fd < 0) {
    g_autoptr (GError) error = NULL;
    input_fd = g_file_open_tmp ("pti-fuzz-XXXXXX.in", &input_path, &error);
    g_assert_no_error (error);
    atexit (remove_input);
  }
  if (ftruncate (input_fd, 0) != 0)
    g_error ("%s: cannot truncate", input_path);
  for (size_t done = 0; done < size;) {
    ssize_t n = pwrite (input_fd, data + done, size - done, (off_t) done);
    if (n <= 0)
      g_error ("%s: cannot write", input_path);
    done += (size_t) n;
  }
  return input_path;
}

char *
fuzz_string (const uint8_t *data, size_t size)
{
  char *s = g_malloc (size + 1);
  memcpy (s, data, size);
  s[size] = '\0';
  return s;
}

void
fuzz_check_error (const GError *error)
{
  if (error == NULL || error->message == NULL || error->message[0] == '\0')
    g_error ("a failure without a message");
  if (!g_utf8_validate (error->message, -1, NULL))
    g_error ("an error message that is not UTF-8 text");
}
