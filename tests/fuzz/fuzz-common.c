/* Helpers of the fuzz harnesses (fuzz.h). */
#include "fuzz.h"

#include <glib/gstdio.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *input_dir, *input_path;
static int input_fd = -1;

static void
remove_input (void)
{
  if (input_path != NULL)
    g_unlink (input_path);
  if (input_dir != NULL)
    g_rmdir (input_dir);
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
  /* The input is alone in a directory of its own: a file it names by a
   * relative path (a SimGrid trace's index names its action files so) is
   * never another run's file, and a crash replays alike. */
  if (input_fd < 0) {
    g_autoptr (GError) error = NULL;
    input_dir = g_dir_make_tmp ("pti-fuzz-XXXXXX", &error);
    g_assert_no_error (error);
    input_path = g_build_filename (input_dir, "input", NULL);
    input_fd = g_open (input_path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (input_fd < 0)
      g_error ("%s: cannot create: %s", input_path, g_strerror (errno));
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
