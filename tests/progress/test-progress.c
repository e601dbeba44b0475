/* Progress of long runs (wsl/driver.c): shown on standard error when it is a
 * terminal, never when it is redirected, with --json or --no-progress, and
 * not for runs shorter than the delay.  The programs run with standard error
 * on a pseudo-terminal (openpty) and standard output on a pipe, so both are
 * seen separately, as a user at a terminal piping the summary would.
 *
 * PTI_PROGRESS_DELAY=0 makes progress appear at once, so small workloads
 * suffice; one test keeps the default delay and checks a short run shows
 * nothing. */
#include <glib.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *ptieval, *sweep3d, *source_root;

typedef struct {
  int status;
  GString *out;   /* standard output */
  GString *err;   /* standard error: the terminal, or a pipe */
} Run;

static void
run_free (Run *r)
{
  g_string_free (r->out, TRUE);
  g_string_free (r->err, TRUE);
  g_free (r);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (Run, run_free)

/* Appends what @fd has to @s; FALSE at end of file (or EIO: a terminal
 * whose other side is closed). */
static gboolean
drain (int fd, GString *s)
{
  char buf[4096];
  ssize_t n = read (fd, buf, sizeof buf);
  if (n > 0) {
    g_string_append_len (s, buf, n);
    return TRUE;
  }
  return n < 0 && errno == EINTR;
}

/* Runs @argv (NULL-terminated) in the source root with PTI_PROGRESS_DELAY
 * set to @delay (NULL: unset), standard error on a terminal if @tty. */
static Run *
run (gboolean tty, const char *delay, const char *const *argv)
{
  int master = -1, slave = -1, err_pipe[2] = { -1, -1 }, out_pipe[2];
  if (tty)
    g_assert_cmpint (openpty (&master, &slave, NULL, NULL, NULL), ==, 0);
  else
    g_assert_cmpint (pipe (err_pipe), ==, 0);
  g_assert_cmpint (pipe (out_pipe), ==, 0);

  pid_t pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0) {
    int null = open ("/dev/null", O_RDONLY);
    dup2 (null, STDIN_FILENO);
    dup2 (out_pipe[1], STDOUT_FILENO);
    dup2 (tty ? slave : err_pipe[1], STDERR_FILENO);
    if (chdir (source_root) != 0)
      _exit (127);
    setenv ("TERM", "xterm", 1);
    if (delay != NULL)
      setenv ("PTI_PROGRESS_DELAY", delay, 1);
    else
      unsetenv ("PTI_PROGRESS_DELAY");
    execv (argv[0], (char *const *) argv);
    _exit (127);
  }
  if (tty)
    close (slave);
  else
    close (err_pipe[1]);
  close (out_pipe[1]);

  Run *r = g_new0 (Run, 1);
  r->out = g_string_new (NULL);
  r->err = g_string_new (NULL);
  struct pollfd fds[2] = { { tty ? master : err_pipe[0], POLLIN, 0 }, { out_pipe[0], POLLIN, 0 } };
  GString *into[2] = { r->err, r->out };
  gboolean open_[2] = { TRUE, TRUE };
  while (open_[0] || open_[1]) {
    for (guint i = 0; i < 2; i++)
      fds[i].events = open_[i] ? POLLIN : 0;
    if (poll (fds, 2, -1) < 0) {
      g_assert_cmpint (errno, ==, EINTR);
      continue;
    }
    for (guint i = 0; i < 2; i++)
      if (open_[i] && (fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
        open_[i] = drain (fds[i].fd, into[i]);
  }
  close (fds[0].fd);
  close (fds[1].fd);
  int status;
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  r->status = WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status);
  return r;
}

#define SYSTEM "configs/pc_cluster.xml"
#define WORKLOAD "wsl/examples/sweep3d.xml"

static void
assert_summary (const Run *r)
{
  if (r->status != 0)
    g_error ("exit %d; stderr:\n%s", r->status, r->err->str);
  g_assert_nonnull (strstr (r->out->str, "predicted time: "));
  g_assert_null (strstr (r->out->str, "evaluating"));
}

static void
assert_quiet (const Run *r)
{
  if (r->err->len != 0)
    g_error ("expected nothing on standard error, got:\n%s", r->err->str);
}

/* On a terminal: the evaluation's progress (a workload file is read as the
 * evaluation goes: events so far, no percentage), then the line erased;
 * stdout untouched. */
static void
test_terminal (void)
{
  const char *argv[] = { ptieval, SYSTEM, WORKLOAD, NULL };
  g_autoptr (Run) r = run (TRUE, "0", argv);
  assert_summary (r);
  const char *err = r->err->str;
  g_test_message ("terminal got %zu bytes", r->err->len);
  g_assert_nonnull (strstr (err, "\rptieval: evaluating: "));
  g_assert_null (strstr (err, "% of "));
  g_assert_nonnull (strstr (err, " k events, simulated "));
  g_assert_nonnull (strstr (err, " events/s"));
  g_assert_true (g_str_has_suffix (err, "\r\033[K"));   /* erased before the summary */
}

/* The same through pti_main, in a C workload program. */
static void
test_terminal_program (void)
{
  const char *argv[] = { sweep3d, SYSTEM, NULL };
  g_autoptr (Run) r = run (TRUE, "0", argv);
  assert_summary (r);
  g_assert_nonnull (strstr (r->err->str, "\rsweep3d: evaluating: "));
}

static void
test_redirected (void)
{
  const char *argv[] = { ptieval, SYSTEM, WORKLOAD, NULL };
  g_autoptr (Run) r = run (FALSE, "0", argv);
  assert_summary (r);
  assert_quiet (r);
}

static void
test_json (void)
{
  const char *argv[] = { ptieval, "--json", SYSTEM, WORKLOAD, NULL };
  g_autoptr (Run) r = run (TRUE, "0", argv);
  g_assert_cmpint (r->status, ==, 0);
  g_assert_true (g_str_has_prefix (r->out->str, "{\"system\": "));
  assert_quiet (r);
}

static void
test_no_progress (void)
{
  const char *argv[] = { ptieval, "--no-progress", SYSTEM, WORKLOAD, NULL };
  g_autoptr (Run) r = run (TRUE, "0", argv);
  assert_summary (r);
  assert_quiet (r);
}

/* A run shorter than the delay shows nothing.  Not the default delay
 * (0.5 s): a one-iteration run under a sanitizer on a loaded machine can
 * take longer than that, and the test must not depend on the load. */
static void
test_short_run (void)
{
  const char *argv[] = { ptieval, "-D", "iterations=1", SYSTEM, WORKLOAD, NULL };
  g_autoptr (Run) r = run (TRUE, "3600", argv);
  assert_summary (r);
  assert_quiet (r);
}

/* An error is still reported, on a clean line: the progress line, if one
 * was shown, is erased first. */
static void
test_error (void)
{
  const char *argv[] = { ptieval, "-D", "nosuch=1", SYSTEM, WORKLOAD, NULL };
  g_autoptr (Run) r = run (TRUE, "0", argv);
  g_assert_cmpint (r->status, ==, 2);
  const char *err = r->err->str;
  g_assert_true (g_str_has_prefix (err, "ptieval: error: -D nosuch: ")
                 || strstr (err, "\r\033[Kptieval: error: -D nosuch: ") != NULL);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  ptieval = g_getenv ("PTIEVAL");
  sweep3d = g_getenv ("SWEEP3D");
  source_root = g_getenv ("PTI_SOURCE_ROOT");
  g_assert_nonnull (ptieval);
  g_assert_nonnull (sweep3d);
  g_assert_nonnull (source_root);
  g_test_add_func ("/progress/terminal", test_terminal);
  g_test_add_func ("/progress/terminal-program", test_terminal_program);
  g_test_add_func ("/progress/redirected", test_redirected);
  g_test_add_func ("/progress/json", test_json);
  g_test_add_func ("/progress/no-progress", test_no_progress);
  g_test_add_func ("/progress/short-run", test_short_run);
  g_test_add_func ("/progress/error", test_error);
  return g_test_run ();
}
