/* ptireuse's run of a program under valgrind lackey (reuse.h). */
#include "reuse.h"

#include <pti/hmi.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The descriptor lackey writes to in valgrind's process (--log-fd). */
#define LOG_FD 3

static char *
find_program (const char *name)
{
  if (strchr (name, '/') != NULL)
    return g_file_test (name, G_FILE_TEST_IS_REGULAR) && access (name, X_OK) == 0 ? g_strdup (name)
                                                                                  : NULL;
  return g_find_program_in_path (name);
}

/* The end of the child: its wait status.  EINTR is retried. */
static int
reap (pid_t pid)
{
  int status = 0;
  while (waitpid (pid, &status, 0) < 0 && errno == EINTR)
    ;
  return status;
}

gboolean
pti_reuse_run (const char *valgrind, char *const *argv, PtiReuseStream *s, GError **error)
{
  g_autofree char *vg = find_program (valgrind);
  if (vg == NULL) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_IO,
                 "valgrind not found as '%s' (Debian: apt-get install valgrind; or --valgrind=PATH)",
                 valgrind);
    return FALSE;
  }
  g_autofree char *prog = find_program (argv[0]);
  if (prog == NULL) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_IO, "%s: program not found%s", argv[0],
                 strchr (argv[0], '/') != NULL ? " or not executable" : " in PATH");
    return FALSE;
  }
  int fds[2];
  if (pipe2 (fds, O_CLOEXEC) < 0) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_IO, "pipe: %s", g_strerror (errno));
    return FALSE;
  }
  /* A 1 MiB pipe (if allowed): lackey writes small pieces, and each full
   * 64 KiB default pipe costs both processes a switch. */
  (void) fcntl (fds[0], F_SETPIPE_SZ, 1 << 20);
  g_autoptr (GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (args, g_strdup (vg));
  g_ptr_array_add (args, g_strdup ("--tool=lackey"));
  g_ptr_array_add (args, g_strdup ("--trace-mem=yes"));
  /* lackey counts instructions and jumps by default: work for nothing here */
  g_ptr_array_add (args, g_strdup ("--basic-counts=no"));
  g_ptr_array_add (args, g_strdup_printf ("--log-fd=%d", LOG_FD));
  g_ptr_array_add (args, g_strdup (prog));
  for (guint i = 1; argv[i] != NULL; i++)
    g_ptr_array_add (args, g_strdup (argv[i]));
  g_ptr_array_add (args, NULL);
  fflush (NULL);
  pid_t pid = fork ();
  if (pid < 0) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_IO, "fork: %s", g_strerror (errno));
    close (fds[0]);
    close (fds[1]);
    return FALSE;
  }
  if (pid == 0) {
    /* dup2 clears close-on-exec on the copy; if the write end already is
     * LOG_FD (stdin closed), clear it there. */
    if (fds[1] == LOG_FD ? fcntl (LOG_FD, F_SETFD, 0) < 0 : dup2 (fds[1], LOG_FD) < 0)
      _exit (127);
    execv (vg, (char **) args->pdata);
    char msg[256];
    int n = snprintf (msg, sizeof msg, "ptireuse: cannot run %s: %s\n", vg, strerror (errno));
    if (write (STDERR_FILENO, msg, (size_t) MIN (n, (int) sizeof msg - 1)) < 0)
      _exit (127);
    _exit (127);
  }
  close (fds[1]);
  gboolean ok = pti_reuse_stream_read_fd (s, fds[0], "valgrind's trace", error);
  if (!ok)
    kill (pid, SIGKILL);   /* nothing more would be read: do not let it block on the pipe */
  close (fds[0]);
  int status = reap (pid);
  if (!ok)
    return FALSE;
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0) {
    const char *messages = pti_reuse_stream_messages (s);
    g_autofree char *how = WIFEXITED (status) ? g_strdup_printf ("exited with status %d",
                                                                 WEXITSTATUS (status))
                                              : g_strdup_printf ("was killed by signal %d",
                                                                 WTERMSIG (status));
    g_set_error (error, PTI_ERROR, PTI_ERROR_FAILED,
                 "%s under valgrind %s: no histogram written%s%s", argv[0], how,
                 *messages != '\0' ? "; valgrind's last messages:\n" : "", messages);
    return FALSE;
  }
  return pti_reuse_stream_finish (s, error);
}
