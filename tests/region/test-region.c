/* libptiregion without MPI or a capture (region.c compiled in, under the
 * sanitizers): closed forms of counters and nesting, assertions passing and
 * failing with each reaction, the prediction, and every misuse.  TAP. */
#include <pti/region.h>

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int n_test, n_fail;

static void
ok (int cond, const char *what)
{
  n_test++;
  if (!cond)
    n_fail++;
  printf ("%sok %d - %s\n", cond ? "" : "not ", n_test, what);
}

/* the last failure the handler saw */
static char last_names[256];
static double last_values[8];
static int n_handled;

static void
handler (const PtiRegionFailure *f, void *data)
{
  (void) data;
  n_handled++;
  last_names[0] = '\0';
  for (int i = 0; i < f->n_values && i < 8; i++) {
    strcat (last_names, f->names[i]);
    strcat (last_names, " ");
    last_values[i] = f->values[i];
  }
}

/* stderr of @fn, into @out */
static void
capture_stderr (void (*fn) (void), char *out, size_t n)
{
  fflush (stderr);
  char path[] = "/tmp/pti-region-XXXXXX";
  int fd = mkstemp (path);
  int saved = dup (2);
  dup2 (fd, 2);
  fn ();
  fflush (stderr);
  dup2 (saved, 2);
  close (saved);
  lseek (fd, 0, SEEK_SET);
  ssize_t got = read (fd, out, n - 1);
  out[got > 0 ? got : 0] = '\0';
  close (fd);
  unlink (path);
}

static void
fail_report (void)
{
  pti_region_begin ("rep");
  pti_region_count ("work", 5);
  pti_region_end ("rep");
}

static void
misuse_end (void)
{
  pti_region_end ("nothing");
}

static void
misuse_unbalanced (void)
{
  pti_region_begin ("u_outer");
  pti_region_begin ("u_inner");
  pti_region_end ("u_outer");
  pti_region_end ("u_inner");
  pti_region_end ("u_outer");
  pti_region_end ("u_outer");
}

static void
unknown_name (void)
{
  pti_region_begin ("typo");
  pti_region_end ("typo");
}

static int
prediction_child (void)
{
  pti_region_set_handler (handler, NULL);
  pti_region_assert ("pp", "pp_pred", "predicted_time == 2 && predicted_total == 8 && time < 0",
                     PTI_REACT_HANDLER);
  pti_region_begin ("pp");
  pti_region_end ("pp");
  /* the test fails on time < 0 only: the first two held */
  return n_handled == 1 && last_values[0] == 2 && last_values[1] == 8 ? 0 : 1;
}

int
main (int argc, char **argv)
{
  if (argc > 1 && strcmp (argv[1], "--prediction") == 0)
    return prediction_child ();
  unsetenv ("PTI_REGION_REACTION");
  pti_region_set_handler (handler, NULL);

  /* closed forms: inclusive counters over nesting */
  ok (pti_region_param ("n", 10) == PTI_REGION_OK, "param");
  ok (pti_region_assert ("outer", "outer_sum", "flops == 3 * n && entry == 1", PTI_REACT_HANDLER) == 0,
      "assert on outer");
  ok (pti_region_assert ("inner", "inner_sum", "flops == n", PTI_REACT_HANDLER) == 0, "assert on inner");
  ok (pti_region_begin ("outer") == PTI_REGION_OK, "begin outer");
  pti_region_count ("flops", 5);
  ok (pti_region_begin ("inner") == PTI_REGION_OK, "begin inner");
  pti_region_count ("flops", 4);
  pti_region_count ("flops", 6);
  ok (pti_region_end ("inner") == PTI_REGION_OK, "inner: flops == n (4 + 6)");
  pti_region_count ("flops", 15);
  ok (pti_region_end ("outer") == PTI_REGION_OK && n_handled == 0,
      "outer: flops == 3 n (5 + inner's 10 + 15), nothing handled");
  /* the second entry fails `entry == 1`: the handler gets the values */
  pti_region_begin ("outer");
  pti_region_count ("flops", 30);
  ok (pti_region_end ("outer") == PTI_REGION_FAILED && n_handled == 1, "second entry fails");
  ok (strcmp (last_names, "flops n entry ") == 0 && last_values[0] == 30 && last_values[1] == 10
      && last_values[2] == 2, "handler: the names read, first use first, and their values");
  unsigned long long checks = 0, failures = 0;
  ok (pti_region_outcome ("outer_sum", &checks, &failures) == 0 && checks == 2 && failures == 1,
      "outcome: 2 checks, 1 failure");
  ok (pti_region_outcome ("nope", &checks, &failures) == PTI_REGION_ERROR, "outcome of an unknown assertion");

  /* report: one line on stderr naming rank, region, assertion, test, values */
  pti_region_assert ("rep", "rep_small", "work < 3", PTI_REACT_REPORT);
  char err[2048];
  capture_stderr (fail_report, err, sizeof err);
  ok (strstr (err, "pti region: rank 0: region 'rep' (entry 1): assertion 'rep_small' failed: "
                   "work < 3 with work=5") != NULL, "report line");
  /* count: nothing said */
  pti_region_assert ("cnt", "cnt_never", "0", PTI_REACT_COUNT);
  pti_region_begin ("cnt");
  fflush (stderr);
  ok (pti_region_end ("cnt") == PTI_REGION_FAILED, "count: failed, silently");

  /* misuse */
  capture_stderr (misuse_end, err, sizeof err);
  ok (strstr (err, "pti_region_end ('nothing') without a region begun") != NULL, "end without begin");
  capture_stderr (misuse_unbalanced, err, sizeof err);
  ok (strstr (err, "pti_region_end ('u_outer'): the innermost region is 'u_inner'") != NULL,
      "unbalanced end names both regions");
  ok (strstr (err, "pti_region_end ('u_outer') without a region begun") != NULL,
      "the begin was not undone by the refused end");
  ok (pti_region_assert ("r", "bad", "time < ", PTI_REACT_REPORT) == PTI_REGION_ERROR
      && strstr (pti_region_error (), "region 'r': assertion 'bad': in 'time < ' at column 8: expected a value") != NULL,
      "bad test: column");
  ok (pti_region_assert ("r", "bad2", "foo(1)", PTI_REACT_REPORT) == PTI_REGION_ERROR
      && strstr (pti_region_error (), "unknown function 'foo'") != NULL, "unknown function");
  ok (pti_region_assert ("r", "outer_sum", "1", PTI_REACT_REPORT) == PTI_REGION_ERROR
      && strstr (pti_region_error (), "assertion 'outer_sum' is stated twice") != NULL, "twice");
  ok (pti_region_begin ("9lives") == PTI_REGION_ERROR
      && strstr (pti_region_error (), "region name '9lives' is not an identifier") != NULL, "bad region name");
  ok (pti_region_count ("x", 1) == PTI_REGION_ERROR
      && strstr (pti_region_error (), "counted outside every region") != NULL, "count outside");
  ok (pti_region_param ("time", 1) == PTI_REGION_ERROR, "param named like a figure");
  ok (pti_region_assert ("r", "bad3", "1", (PtiRegionReaction) 9) == PTI_REGION_ERROR, "bad reaction");
  pti_region_assert ("typo", "typo_a", "flpos > 0", PTI_REACT_REPORT);
  capture_stderr (unknown_name, err, sizeof err);
  ok (strstr (err, "'flpos' is neither a counter counted so far nor a parameter; not checked") != NULL,
      "unknown name: said at the check");
  pti_region_assert ("typo", "typo_b", "bytes > 0", PTI_REACT_REPORT);
  capture_stderr (unknown_name, err, sizeof err);
  ok (strstr (err, "'bytes' is measured only under pticapture") != NULL, "MPI figures need the capture");
  pti_region_assert ("typo", "typo_c", "time < predicted_time", PTI_REACT_REPORT);
  capture_stderr (unknown_name, err, sizeof err);
  ok (strstr (err, "'predicted_time' needs PTI_PREDICTION=FILE") != NULL, "prediction needed");

  /* abort: the process ends by SIGABRT after the report */
  pid_t pid = fork ();
  if (pid == 0) {
    freopen ("/dev/null", "w", stderr);
    pti_region_assert ("ab", "ab_fail", "time < 0", PTI_REACT_ABORT);
    pti_region_begin ("ab");
    pti_region_end ("ab");
    _exit (0);
  }
  int status = 0;
  waitpid (pid, &status, 0);
  ok (WIFSIGNALED (status) && WTERMSIG (status) == SIGABRT, "abort reaction");

  /* PTI_PREDICTION: predicted_time is the phase's time over its entries */
  char pred[] = "/tmp/pti-region-pred-XXXXXX";
  int pfd = mkstemp (pred);
  close (pfd);
  pid = fork ();
  if (pid == 0) {
    FILE *f = fopen (pred, "w");
    fprintf (f, "{\"predicted_time_s\": 9, \"phases\": [{\"name\": \"other\", \"time_max_s\": 1, "
             "\"entries_max\": 1}, {\"name\": \"pp\", \"time_max_s\": 8, \"compute_max_s\": 2, "
             "\"entries_max\": 4, \"ranks\": 2}], \"assertions\": []}\n");
    fclose (f);
    setenv ("PTI_PREDICTION", pred, 1);
    /* the library read the environment on its first call: a new image */
    execl ("/proc/self/exe", "test-region", "--prediction", (char *) NULL);
    _exit (3);
  }
  waitpid (pid, &status, 0);
  unlink (pred);
  ok (WIFEXITED (status) && WEXITSTATUS (status) == 0, "predicted_time = time_max_s / entries_max (2 s)");

  printf ("1..%d\n", n_test);
  return n_fail ? 1 : 0;
}
