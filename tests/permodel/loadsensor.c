/* loadsensor: a monitoring sensor for ptieval --changes-stream (the PTI
 * paper, section 3.4: "a monitoring sensor can forward the status change to
 * the model").
 *
 *   loadsensor [--stat FILE] [--samples N] [--period S] [--step T] COMPUTER
 *
 * Every --period seconds of real time (default 0.1) it reads this host's
 * CPU counters (FILE, default /proc/stat: the first "cpu" line), computes
 * the share of the CPU that was busy since the last sample, and writes the
 * change a new process on such a host would see:
 *
 *   T cpu:COMPUTER speed S      S = max (0.05, 1 - busy)
 *   until T'                    T' = T + step: the next sample's time
 *
 * sample k (k = 1..N) stamped at simulated time (k - 1) * --step (default
 * 1ms): one second of measured host time per step of simulated time is the
 * user's choice of scale.  After N samples it writes nothing more and
 * closes: the stream's end, no more changes.  Lines are flushed one by one,
 * so ptieval sees each as soon as it is measured.  A counters file that is
 * not /proc/stat's format is an error (exit 1). */
#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* busy and total jiffies of the first cpu line of @path. */
static gboolean
read_counters (const char *path, double *busy, double *total, GError **error)
{
  g_autofree char *text = NULL;
  if (!g_file_get_contents (path, &text, NULL, error))
    return FALSE;
  if (strncmp (text, "cpu ", 4) != 0) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s: no 'cpu' line first", path);
    return FALSE;
  }
  /* user nice system idle iowait irq softirq steal */
  double v[8] = { 0 };
  char *p = text + 4;
  guint n = 0;
  for (; n < 8; n++) {
    char *end = NULL;
    v[n] = g_ascii_strtod (p, &end);
    if (end == p)
      break;
    p = end;
  }
  if (n < 4) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s: the cpu line has %u counters, "
                 "expected at least 4", path, n);
    return FALSE;
  }
  *total = 0;
  for (guint i = 0; i < n; i++)
    *total += v[i];
  *busy = *total - v[3] - (n > 4 ? v[4] : 0);   /* idle and iowait are not busy */
  return TRUE;
}

int
main (int argc, char **argv)
{
  char *stat = NULL;
  gint samples = 10;
  double period = 0.1, step = 1e-3;
  GOptionEntry entries[] = {
    { "stat", 0, 0, G_OPTION_ARG_FILENAME, &stat, "CPU counters (default /proc/stat)", "FILE" },
    { "samples", 0, 0, G_OPTION_ARG_INT, &samples, "samples to send (default 10)", "N" },
    { "period", 0, 0, G_OPTION_ARG_DOUBLE, &period, "real seconds between samples (0.1)", "S" },
    { "step", 0, 0, G_OPTION_ARG_DOUBLE, &step, "simulated seconds between samples (0.001)", "T" },
    { NULL },
  };
  g_autoptr (GOptionContext) oc = g_option_context_new ("COMPUTER");
  g_option_context_add_main_entries (oc, entries, NULL);
  g_autoptr (GError) error = NULL;
  if (!g_option_context_parse (oc, &argc, &argv, &error) || argc != 2 || samples < 1
      || !(period >= 0) || !(step > 0)) {
    fprintf (stderr, "loadsensor: usage: loadsensor [OPTIONS] COMPUTER%s%s\n",
             error ? ": " : "", error ? error->message : "");
    return 2;
  }
  const char *path = stat ? stat : "/proc/stat";
  double busy0, total0;
  if (!read_counters (path, &busy0, &total0, &error)) {
    fprintf (stderr, "loadsensor: %s\n", error->message);
    return 1;
  }
  for (gint k = 0; k < samples; k++) {
    g_usleep ((gulong) (period * G_USEC_PER_SEC));
    double busy, total;
    if (!read_counters (path, &busy, &total, &error)) {
      fprintf (stderr, "loadsensor: %s\n", error->message);
      return 1;
    }
    double share = total > total0 ? (busy - busy0) / (total - total0) : 0;
    double speed = MAX (0.05, 1 - CLAMP (share, 0, 1));
    busy0 = busy;
    total0 = total;
    char t[G_ASCII_DTOSTR_BUF_SIZE], s[G_ASCII_DTOSTR_BUF_SIZE], u[G_ASCII_DTOSTR_BUF_SIZE];
    g_ascii_formatd (t, sizeof t, "%.9g", k * step);
    g_ascii_formatd (s, sizeof s, "%.6g", speed);
    g_ascii_formatd (u, sizeof u, "%.9g", (k + 1) * step);
    printf ("%s cpu:%s speed %s\nuntil %s\n", t, argv[1], s, u);
    fflush (stdout);
  }
  g_free (stat);
  return 0;
}
