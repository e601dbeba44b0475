/* ptitrace: the companion of ptieval.  Converts pti output traces to Paraver,
 * SDDF and Chrome/Perfetto JSON, summarises and compares them, and plots
 * them.  Every command reads the trace once, streaming.
 *
 *   ptitrace COMMAND [OPTIONS] TRACE.xml...     (ptitrace --help) */
#include "pti-config.h"
#include "cli-options.h"
#include "commands.h"

#include <locale.h>
#include <sys/resource.h>
#include <math.h>
#include <string.h>

typedef struct {
  const char *name;
  const char *args;
  const char *summary;
  int n_traces;
  gboolean needs_output;
} Command;

static const Command commands[] = {
  { "paraver", "TRACE.xml -o PREFIX",
    "Write PREFIX.prv, PREFIX.pcf and PREFIX.row for Paraver: application 1 is the workload, "
    "one task and thread per process; when the trace has model records outside process "
    "groups, application 2 holds them (one task, \"model records\").  States Running / "
    "Blocking Send / Waiting a message / Synchronization (blocked on a peer) / Immediate Send "
    "/ Immediate Receive / Wait/WaitAll / Group Communication (collective calls) / Derived "
    "(analytical repetition) / Idle, one communication record per message (logical and "
    "physical send and receive times), MPI point-to-point and collective events, RUD "
    "events, and model records as events 190TTTFF (see traces/README.md).  Times in integer "
    "nanoseconds, records sorted by time.", 1, TRUE },
  { "sddf", "TRACE.xml -o FILE",
    "Write Pablo SDDF (ASCII): stream attributes, record descriptors (PTI Compute, Send, "
    "Receive, Post, Wait, Request Wait, Message, Collective, Derived, and one per model record "
    "type declared in the trace header), then data records in time order.  Times in "
    "seconds.", 1, TRUE },
  { "chrome", "TRACE.xml -o FILE.json",
    "Write Chrome trace-event JSON for Perfetto (ui.perfetto.dev) and chrome://tracing: one "
    "track per process, a slice per event (blocked part as a nested \"blocked\" slice), a "
    "slice per collective call and per derived span, a flow arrow per message from when its "
    "data entered the network to when it arrived (written after the slices), model records "
    "as counters.  Times in microseconds.", 1, TRUE },
  { "summary", "TRACE.xml",
    "Print per process and in total the time in compute, send, recv, complete (finishing "
    "non-blocking requests) and wait (blocked on a peer), the time analytical repetition "
    "derived, messages and bytes sent and received, and the critical path: walking back "
    "from the last process to finish, an event that waited depends on the message it waited "
    "for last (a receive on its send, a rendezvous send on its receive).", 1, FALSE },
  { "diff", "A.xml B.xml",
    "Compare two predictions (what-if studies): predicted time and totals per kind, then per "
    "process, as A, B, B - A and the relative change.", 2, FALSE },
  { "plot", "TRACE.xml -o FILE.png|FILE.svg|FILE.pdf",
    "Draw with cairo: --kind timespace (default), a time-space diagram (one line per process, "
    "compute / send / receive / wait coloured, lines joining the two ends of each message); "
    "--kind ba, the bandwidth availability of each message per communication stage (records "
    "<ba>); --kind knee, the knee capacity over time (records <knee>).  The format follows the "
    "file name.", 1, TRUE },
};

static void
print_overview (FILE *fp)
{
  fprintf (fp, "Usage:\n  ptitrace COMMAND [OPTION...] TRACE.xml...\n\n"
           "Convert, summarise, compare and plot pti output traces (schemas/trace.xsd), "
           "as written by ptieval -o.\n\nCommands:\n");
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    fprintf (fp, "  %-8s %s\n", commands[i].name, commands[i].args);
  fprintf (fp, "\n\"ptitrace COMMAND --help\" describes a command and its options.\n"
           "Exit status: 0 ok, 2 usage error, 3 invalid input (malformed, truncated or "
           "inconsistent trace, missing model records), 1 other failure.\n"
           "Outputs are written to a temporary file and renamed when complete: a failed run "
           "leaves no output.\n");
}

static gboolean
parse_size (const char *text, gsize *out)
{
  char *end = NULL;
  guint64 v = g_ascii_strtoull (text, &end, 10);
  if (end == text)
    return FALSE;
  guint64 mult = 1u << 20;   /* plain numbers are MiB */
  if (*end == 'k' || *end == 'K')
    mult = 1u << 10, end++;
  else if (*end == 'm' || *end == 'M')
    mult = 1u << 20, end++;
  else if (*end == 'g' || *end == 'G')
    mult = 1u << 30, end++;
  else if (*end == 'b' || *end == 'B')
    mult = 1, end++;
  if (*end == 'i' && mult > 1)
    end++;
  if ((*end == 'B' || *end == 'b') && mult > 1)
    end++;
  if (*end != '\0' || v == 0 || v > G_MAXSIZE / mult)
    return FALSE;
  *out = (gsize) (v * mult);
  return TRUE;
}

static gboolean
parse_time (const char *name, const char *text, guint64 *ns, GError **error)
{
  double s;
  if (!pti_tr_parse_number (text, &s) || s < 0 || s >= 9.2e9) {
    g_set_error (error, PT_ERROR, PT_ERROR_USAGE,
                 "%s %s: expected a time in seconds (a non-negative number, e.g. 0.25 or 2e-3)",
                 name, text);
    return FALSE;
  }
  *ns = (guint64) llround (s * 1e9);
  return TRUE;
}

int
main (int argc, char **argv)
{
  setlocale (LC_ALL, "");
  /* Numbers in every output are C-locale; messages may be localised. */
  setlocale (LC_NUMERIC, "C");

  if (argc < 2) {
    print_overview (stderr);
    return PT_EXIT_USAGE;
  }
  if (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0
      || strcmp (argv[1], "help") == 0) {
    print_overview (stdout);
    return PT_EXIT_OK;
  }
  if (strcmp (argv[1], "--version") == 0) {
    printf ("ptitrace (pti %s)\n", PTI_VERSION);
    return PT_EXIT_OK;
  }
  const Command *cmd = NULL;
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    if (strcmp (argv[1], commands[i].name) == 0)
      cmd = &commands[i];
  if (cmd == NULL) {
    fprintf (stderr, "ptitrace: error: unknown command \"%s\" (see ptitrace --help)\n", argv[1]);
    return PT_EXIT_USAGE;
  }

  PtOptions o = { 0 };
  g_autofree char *output = NULL, *memory = NULL, *from = NULL, *to = NULL, *kind = NULL;
  g_autofree char *stages = NULL;
  int width = 0, height = 0;
  gboolean path = FALSE, stats = FALSE;
  GOptionEntry output_entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      strcmp (cmd->name, "paraver") == 0
        ? "Write PREFIX.prv, PREFIX.pcf and PREFIX.row (required)"
        : "Write FILE (required)", strcmp (cmd->name, "paraver") == 0 ? "PREFIX" : "FILE" },
    { NULL },
  };
  GOptionEntry stats_entries[] = {
    { "stats", 0, 0, G_OPTION_ARG_NONE, &stats,
      "Print to standard error the wall time (s), the peak memory (MiB) and how much was sorted "
      "through temporary files", NULL },
    { NULL },
  };
  GOptionEntry memory_entries[] = {
    { "memory", 0, 0, G_OPTION_ARG_STRING, &memory,
      "Memory for sorting and pairing message ends, in MiB or with a suffix K, M, G "
      "(default 64M); beyond it, sorted runs go to temporary files in $TMPDIR", "SIZE" },
    { NULL },
  };
  GOptionEntry plot_entries[] = {
    { "kind", 'k', 0, G_OPTION_ARG_STRING, &kind,
      "timespace (default), ba (bandwidth availability per communication stage) or knee "
      "(knee capacity over time)", "KIND" },
    { "from", 0, 0, G_OPTION_ARG_STRING, &from,
      "Start of the time window, in seconds (default 0)", "S" },
    { "to", 0, 0, G_OPTION_ARG_STRING, &to,
      "End of the time window, in seconds (default: the predicted time; for --kind ba, the "
      "end of the stages shown)", "S" },
    { "stages", 0, 0, G_OPTION_ARG_STRING, &stages,
      "--kind ba: the communication stages to show, N, N-M or all (default 1-2: the first two "
      "stages with bandwidth records); ignored with --from/--to", "N-M" },
    { "width", 0, 0, G_OPTION_ARG_INT, &width,
      "Width in pixels (PNG) or points (SVG, PDF); default 1400", "W" },
    { "height", 0, 0, G_OPTION_ARG_INT, &height,
      "Height; default: from the number of processes (timespace) or 700", "H" },
    { NULL },
  };
  GOptionEntry summary_entries[] = {
    { "path", 0, 0, G_OPTION_ARG_NONE, &path,
      "Also print the critical path hop by hop (rank, from, to)", NULL },
    { NULL },
  };

  g_autoptr (GOptionContext) oc = g_option_context_new (NULL);
  g_option_context_set_summary (oc, cmd->summary);
  g_option_context_set_description (oc,
    "Exit status: 0 ok, 2 usage error, 3 invalid input (malformed, truncated or inconsistent "
    "trace, missing model records), 1 other failure.  Errors name the trace file and line.");
  /* the groups this command takes, also for pti_cli_split_attached */
  const GOptionEntry *groups[6];
  guint n_groups = 0;
  if (cmd->needs_output)
    groups[n_groups++] = output_entries;
  if (strcmp (cmd->name, "diff") != 0)
    groups[n_groups++] = memory_entries;
  if (strcmp (cmd->name, "plot") == 0)
    groups[n_groups++] = plot_entries;
  groups[n_groups++] = stats_entries;
  if (strcmp (cmd->name, "summary") == 0)
    groups[n_groups++] = summary_entries;
  groups[n_groups] = NULL;
  for (guint i = 0; i < n_groups; i++)
    g_option_context_add_main_entries (oc, groups[i], NULL);

  /* GOption wants the program name first: "ptitrace COMMAND". */
  g_autofree char *prog = g_strdup_printf ("ptitrace %s", cmd->name);
  argv[1] = prog;
  argc--;
  argv++;
  g_set_prgname (prog);
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) args = pti_cli_split_attached (groups, argc, argv);
  if (!g_option_context_parse_strv (oc, &args, &error)) {
    fprintf (stderr, "ptitrace %s: error: %s (see ptitrace %s --help)\n", cmd->name,
             error->message, cmd->name);
    return PT_EXIT_USAGE;
  }
  argc = (int) g_strv_length (args);
  argv = args;
  if (argc - 1 != cmd->n_traces) {
    fprintf (stderr, "ptitrace %s: error: expected %s (see ptitrace %s --help)\n", cmd->name,
             cmd->args, cmd->name);
    return PT_EXIT_USAGE;
  }
  if (cmd->needs_output && (output == NULL || *output == '\0')) {
    fprintf (stderr, "ptitrace %s: error: -o %s is required (see ptitrace %s --help)\n",
             cmd->name, strcmp (cmd->name, "paraver") == 0 ? "PREFIX" : "FILE", cmd->name);
    return PT_EXIT_USAGE;
  }
  o.output = output;
  o.memory = 64u << 20;
  if (memory != NULL && !parse_size (memory, &o.memory)) {
    fprintf (stderr, "ptitrace %s: error: --memory %s: expected a size such as 64M, 512K or 1G\n",
             cmd->name, memory);
    return PT_EXIT_USAGE;
  }
  if ((from != NULL && !parse_time ("--from", from, &o.from, &error))
      || (to != NULL && !parse_time ("--to", to, &o.to, &error))) {
    fprintf (stderr, "ptitrace %s: error: %s\n", cmd->name, error->message);
    return PT_EXIT_USAGE;
  }
  o.have_from = from != NULL;
  o.have_to = to != NULL;
  if (o.have_from && o.have_to && o.to <= o.from) {
    fprintf (stderr, "ptitrace %s: error: --to must be after --from\n", cmd->name);
    return PT_EXIT_USAGE;
  }
  o.kind = kind != NULL ? kind : "timespace";
  if (strcmp (o.kind, "timespace") && strcmp (o.kind, "ba") && strcmp (o.kind, "knee")) {
    fprintf (stderr, "ptitrace %s: error: --kind %s: expected timespace, ba or knee\n", cmd->name,
             o.kind);
    return PT_EXIT_USAGE;
  }
  o.stages = stages;
  if ((width != 0 && (width < 200 || width > 20000)) || (height != 0 && (height < 150 || height > 20000))) {
    fprintf (stderr, "ptitrace %s: error: --width must be 200..20000 and --height 150..20000\n",
             cmd->name);
    return PT_EXIT_USAGE;
  }
  o.width = width;
  o.height = height;
  o.path = path;
  o.stats = stats;

  gint64 t0 = g_get_monotonic_time ();
  int rc;
  if (strcmp (cmd->name, "paraver") == 0)
    rc = pt_paraver (argv[1], &o, &error);
  else if (strcmp (cmd->name, "sddf") == 0)
    rc = pt_sddf (argv[1], &o, &error);
  else if (strcmp (cmd->name, "chrome") == 0)
    rc = pt_chrome (argv[1], &o, &error);
  else if (strcmp (cmd->name, "summary") == 0)
    rc = pt_summary (argv[1], &o, &error);
  else if (strcmp (cmd->name, "diff") == 0)
    rc = pt_diff (argv[1], argv[2], &o, &error);
  else
    rc = pt_plot (argv[1], &o, &error);
  if (error != NULL) {
    fprintf (stderr, "ptitrace %s: error: %s\n", cmd->name, error->message);
    if (rc == PT_EXIT_OK)
      rc = pt_exit_code (error);
  }
  if (stats) {
    struct rusage ru;
    getrusage (RUSAGE_SELF, &ru);
    guint64 bytes, runs;
    guint passes;
    pti_sorter_stats (&bytes, &runs, &passes);
    fprintf (stderr, "ptitrace %s: %.3f s, peak memory %.1f MiB, temporary files %.1f MiB "
             "(%" G_GUINT64_FORMAT " sorted runs, %u merge passes)\n", cmd->name,
             (g_get_monotonic_time () - t0) / 1e6, ru.ru_maxrss / 1024.0, bytes / 1048576.0, runs,
             passes);
  }
  return rc;
}
