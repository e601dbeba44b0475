/* Running the probes: programs with a deadline, and their output read back. */
#include "calibrate.h"

#include <pti/hmi.h>

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

char *
cal_find_program (const char *name)
{
  if (name == NULL || *name == '\0')
    return NULL;
  if (strchr (name, '/') != NULL)
    return g_file_test (name, G_FILE_TEST_IS_EXECUTABLE) && !g_file_test (name, G_FILE_TEST_IS_DIR)
               ? g_strdup (name)
               : NULL;
  return g_find_program_in_path (name);
}

static volatile sig_atomic_t interrupted;

static void
on_signal (int sig)
{
  interrupted = sig;
}

void
cal_catch_signals (void)
{
  struct sigaction sa = { 0 };
  sa.sa_handler = on_signal;
  sigemptyset (&sa.sa_mask);
  sigaction (SIGINT, &sa, NULL);
  sigaction (SIGTERM, &sa, NULL);
  sigaction (SIGHUP, &sa, NULL);
}

int
cal_interrupted (void)
{
  return interrupted;
}

/* The child leads a process group of its own, so a deadline kills what it
 * started too (mpirun's ranks, the compiler's passes). */
static void
child_setup (gpointer data)
{
  setpgid (0, 0);
}

static double
mono_s (void)
{
  return g_get_monotonic_time () / 1e6;
}

gboolean
cal_run (const char *const *argv, const char *cwd, double timeout_s, char **out, char **err,
         int *status, GError **error)
{
  GPid pid;
  int fd_out, fd_err;
  if (!g_spawn_async_with_pipes (cwd, (char **) argv, NULL,
                                 G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD, child_setup,
                                 NULL, &pid, NULL, &fd_out, &fd_err, error))
    return FALSE;
  GString *bufs[2] = { g_string_new (NULL), g_string_new (NULL) };
  struct pollfd fds[2] = { { fd_out, POLLIN, 0 }, { fd_err, POLLIN, 0 } };
  int open_fds = 2;
  double deadline = mono_s () + timeout_s;
  gboolean timed_out = FALSE;
  while (open_fds > 0 && !interrupted) {
    double left = deadline - mono_s ();
    if (left <= 0) {
      timed_out = TRUE;
      break;
    }
    int rc = poll (fds, 2, (int) MIN (left * 1000 + 1, 1000));
    if (rc < 0 && errno != EINTR)
      break;
    for (int i = 0; i < 2; i++) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      char buf[4096];
      ssize_t got = read (fds[i].fd, buf, sizeof buf);
      if (got > 0)
        g_string_append_len (bufs[i], buf, got);
      else if (got == 0 || errno != EINTR) {
        close (fds[i].fd);
        fds[i].fd = -1;
        open_fds--;
      }
    }
  }
  for (int i = 0; i < 2; i++)
    if (fds[i].fd >= 0)
      close (fds[i].fd);
  int ws = 0;
  if (timed_out || interrupted) {
    /* SIGTERM first, so that a compiler removes its temporary files; what
     * is still there two seconds later is killed. */
    kill (-pid, SIGTERM);
    for (int i = 0; i < 40 && waitpid (pid, &ws, WNOHANG) == 0; i++)
      g_usleep (50000);
    kill (-pid, SIGKILL);
  }
  while (waitpid (pid, &ws, 0) < 0 && errno == EINTR)
    ;
  g_spawn_close_pid (pid);
  /* Whatever the group left running (mpirun's orphans) goes too. */
  kill (-pid, SIGKILL);
  *status = WIFEXITED (ws) ? WEXITSTATUS (ws) : WIFSIGNALED (ws) ? 128 + WTERMSIG (ws) : 1;
  *out = g_string_free (bufs[0], FALSE);
  *err = g_string_free (bufs[1], FALSE);
  if (interrupted) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_FAILED, "interrupted (signal %d) while %s ran",
                 (int) interrupted, argv[0]);
    return FALSE;
  }
  if (timed_out) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_FAILED, "%s did not finish within %.0f s: stopped",
                 argv[0], timeout_s);
    return FALSE;
  }
  return TRUE;
}

static void
line_free (gpointer p)
{
  CalLine *l = p;
  g_free (l->kind);
  g_hash_table_unref (l->kv);
  g_free (l);
}

GPtrArray *
cal_parse_lines (const char *text)
{
  GPtrArray *lines = g_ptr_array_new_with_free_func (line_free);
  g_auto (GStrv) rows = g_strsplit (text, "\n", -1);
  for (char **row = rows; *row != NULL; row++) {
    char *s = g_strstrip (*row);
    if (*s == '\0')
      continue;
    CalLine *l = g_new0 (CalLine, 1);
    l->kv = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
    char *space = strchr (s, ' ');
    l->kind = g_strndup (s, space ? (gsize) (space - s) : strlen (s));
    char *p = space;
    while (p != NULL && *p != '\0') {
      while (*p == ' ')
        p++;
      if (*p == '\0')
        break;
      char *eq = strchr (p, '=');
      char *end = strchr (p, ' ');
      if (eq == NULL || (end != NULL && eq > end)) {   /* a word without '=': skipped */
        p = end;
        continue;
      }
      char *key = g_strndup (p, (gsize) (eq - p));
      if (strcmp (key, "text") == 0)
        end = NULL;                                     /* the rest of the line */
      char *value = end ? g_strndup (eq + 1, (gsize) (end - eq - 1)) : g_strdup (eq + 1);
      g_hash_table_replace (l->kv, key, value);
      p = end;
    }
    g_ptr_array_add (lines, l);
  }
  return lines;
}

const char *
cal_line_get (const CalLine *l, const char *key)
{
  return g_hash_table_lookup (l->kv, key);
}

double
cal_line_num (const CalLine *l, const char *key)
{
  const char *v = cal_line_get (l, key);
  if (v == NULL)
    return NAN;
  char *end;
  double d = g_ascii_strtod (v, &end);
  return end != v && *end == '\0' ? d : NAN;
}

gboolean
cal_build (const char *workdir, const char *const *argv, const char *what, GError **error)
{
  g_autofree char *out = NULL, *err = NULL;
  int status;
  if (!cal_run (argv, workdir, 600, &out, &err, &status, error))
    return FALSE;
  if (status != 0) {
    cal_set_command_error (error, what, argv, status, err);
    return FALSE;
  }
  return TRUE;
}

gboolean
cal_run_probe (const CalRun *run, const char *const *argv, double timeout_s, const char *what,
               const char *keep_name, GPtrArray **lines, double *seconds, GError **error)
{
  g_autofree char *out = NULL, *err = NULL;
  int status;
  gint64 t0 = g_get_monotonic_time ();
  if (!cal_run (argv, run->workdir, timeout_s, &out, &err, &status, error))
    return FALSE;
  if (status != 0) {
    cal_set_command_error (error, what, argv, status, err);
    return FALSE;
  }
  *seconds = (g_get_monotonic_time () - t0) / 1e6;
  cal_write_file (run->workdir, keep_name, out, NULL);   /* a copy for --keep: best effort */
  *lines = cal_parse_lines (out);
  return TRUE;
}

gboolean
cal_write_probe (const char *workdir, const char *name, const char *text, GError **error)
{
  return cal_write_file (workdir, "probe-stats.h", pti_cal_probe_stats_h, error)
         && cal_write_file (workdir, name, text, error);
}
