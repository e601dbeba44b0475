/* The command line shared by ptieval and C workload programs: options,
 * exit codes, the human summary and the JSON report.
 *
 * Exit codes: 0 ok, 2 usage, 3 invalid input (bad XML, schema, expression,
 * unknown model, deadlock), 1 anything else (I/O while writing, ...). */
#include "pti-config.h"
#include "wsl-private.h"

#include "registry.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

enum { EXIT_USAGE = 2, EXIT_INVALID = 3 };

static int
exit_code_for (const GError *error)
{
  if (error->domain == G_OPTION_ERROR)
    return EXIT_USAGE;
  if (error->domain != PTI_ERROR)
    return 1;
  switch ((PtiError) error->code) {
  case PTI_ERROR_USAGE:
    return EXIT_USAGE;
  case PTI_ERROR_INVALID:
  case PTI_ERROR_DEADLOCK:
  case PTI_ERROR_MODEL:
    return EXIT_INVALID;
  case PTI_ERROR_IO:
  case PTI_ERROR_FAILED:
  default:
    return 1;
  }
}

static int
fail (const char *program, const GError *error)
{
  fprintf (stderr, "%s: error: %s\n", program, error->message);
  return exit_code_for (error);
}

static guint64
peak_rss_bytes (void)
{
  struct rusage ru;
  if (getrusage (RUSAGE_SELF, &ru) != 0)
    return 0;
  return (guint64) ru.ru_maxrss * 1024u;   /* Linux reports KiB */
}

static void
json_string (GString *s, const char *v)
{
  g_string_append_c (s, '"');
  for (const char *c = v; c && *c; c++) {
    if (*c == '"' || *c == '\\')
      g_string_append_printf (s, "\\%c", *c);
    else if ((unsigned char) *c < 0x20)
      g_string_append_printf (s, "\\u%04x", *c);
    else
      g_string_append_c (s, *c);
  }
  g_string_append_c (s, '"');
}

static void
json_number (GString *s, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_string_append (s, isfinite (v) ? g_ascii_formatd (buf, sizeof buf, "%.12g", v) : "null");
}

typedef struct {
  double build_s, evaluate_s, wall_s;
  guint64 rss;
} RunFigures;

static void
print_json (PtiContext *ctx, const char *system_file, const char *workload, const RunFigures *f)
{
  guint n = pti_context_get_processes (ctx);
  guint64 events = pti_result_events (ctx);
  g_autoptr (GString) s = g_string_new ("{");
  g_string_append (s, "\"system\": ");
  json_string (s, system_file);
  g_string_append (s, ", \"workload\": ");
  json_string (s, workload);
  g_string_append (s, ", \"predicted_time_s\": ");
  json_number (s, pti_result_time (ctx));
  g_string_append_printf (s, ", \"events\": %" G_GUINT64_FORMAT ", \"processes\": %u", events, n);
  g_string_append (s, ", \"wall_s\": ");
  json_number (s, f->wall_s);
  g_string_append (s, ", \"build_s\": ");
  json_number (s, f->build_s);
  g_string_append (s, ", \"evaluate_s\": ");
  json_number (s, f->evaluate_s);
  g_string_append (s, ", \"events_per_s\": ");
  json_number (s, f->wall_s > 0 ? events / f->wall_s : NAN);
  g_string_append_printf (s, ", \"peak_rss_bytes\": %" G_GUINT64_FORMAT ", \"per_process\": [", f->rss);
  for (guint r = 0; r < n; r++) {
    PtiProcessResult pr;
    pti_result_process (ctx, r, &pr);
    g_string_append_printf (s, "%s{\"rank\": %u, \"end_s\": ", r ? ", " : "", r);
    json_number (s, pr.end);
    g_string_append (s, ", \"compute_s\": ");
    json_number (s, pr.compute);
    g_string_append (s, ", \"comm_s\": ");
    json_number (s, pr.comm);
    g_string_append (s, ", \"wait_s\": ");
    json_number (s, pr.wait);
    g_string_append_printf (s, ", \"events\": %" G_GUINT64_FORMAT "}", pr.events);
  }
  g_string_append (s, "]}\n");
  fputs (s->str, stdout);
}

static void
print_summary (PtiContext *ctx, const char *system_file, const char *workload, const RunFigures *f)
{
  guint n = pti_context_get_processes (ctx);
  guint64 events = pti_result_events (ctx);
  double t = pti_result_time (ctx);
  printf ("pti %s: workload %s on system %s (%s)\n", PTI_VERSION, workload,
          pti_wsl_system_name (ctx), system_file);
  printf ("predicted time: %.9f s\n", t);
  printf ("events: %" G_GUINT64_FORMAT ", processes: %u\n\n", events, n);
  printf ("%6s %14s %14s %14s %14s %10s\n", "rank", "end (s)", "compute (s)", "comm (s)",
          "wait (s)", "events");
  double tc = 0, tm = 0, tw = 0;
  for (guint r = 0; r < n; r++) {
    PtiProcessResult pr;
    pti_result_process (ctx, r, &pr);
    tc += pr.compute;
    tm += pr.comm;
    tw += pr.wait;
    /* Hundreds of ranks would drown the summary: show the first and last few. */
    if (n > 40 && r >= 16 && r < n - 8) {
      if (r == 16)
        printf ("%6s\n", "...");
      continue;
    }
    printf ("%6u %14.9f %14.9f %14.9f %14.9f %10" G_GUINT64_FORMAT "\n", r, pr.end, pr.compute,
            pr.comm, pr.wait, pr.events);
  }
  if (n > 0 && t > 0)
    printf ("%6s %14s %13.1f%% %13.1f%% %13.1f%%   (share of %u x predicted time)\n", "all", "",
            100 * tc / (n * t), 100 * tm / (n * t), 100 * tw / (n * t), n);
  printf ("\nevaluation: %.3f s wall (build %.3f s, evaluate %.3f s), %.0f events/s, peak memory %.1f MiB\n",
          f->wall_s, f->build_s, f->evaluate_s, f->wall_s > 0 ? events / f->wall_s : 0.0,
          f->rss / 1048576.0);
}

int
pti_driver_main (const PtiDriver *d, int argc, char **argv)
{
  g_auto (GStrv) defines = NULL;
  g_autofree char *output = NULL;
  g_autofree char *model_path = NULL;
  g_autofree char *model_info = NULL;
  gboolean json = FALSE, list_models = FALSE, version = FALSE;
  GOptionEntry entries[] = {
    { "define", 'D', 0, G_OPTION_ARG_STRING_ARRAY, &defines,
      "Set workload parameter NAME to VALUE (a number or an expression of numbers); repeatable",
      "NAME=VALUE" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      "Write the XML output trace (schemas/trace.xsd) to FILE; default: no trace", "FILE" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json,
      "Print one JSON object (predicted_time_s, events, processes, wall_s, events_per_s, "
      "peak_rss_bytes, per_process) instead of the summary", NULL },
    { "model-path", 0, 0, G_OPTION_ARG_FILENAME, &model_path,
      "Also load models from the shared objects in DIR (colon-separated list; searched before "
      "$PTI_MODEL_PATH)", "DIR" },
    { "list-models", 0, 0, G_OPTION_ARG_NONE, &list_models,
      "List the models available (built-in and on the model path) and exit", NULL },
    { "model-info", 0, 0, G_OPTION_ARG_STRING, &model_info,
      "Print a model's documentation and parameters and exit", "NAME" },
    { "version", 0, 0, G_OPTION_ARG_NONE, &version, "Print the version and exit", NULL },
    { NULL },
  };
  const char *args = d->workload_file ? "SYSTEM.xml WORKLOAD.xml" : "SYSTEM.xml";
  g_autoptr (GOptionContext) oc = g_option_context_new (args);
  g_option_context_add_main_entries (oc, entries, NULL);
  g_option_context_set_summary (oc, d->workload_file
    ? "Predict the execution time of WORKLOAD (schemas/workload.xsd) on the system SYSTEM (an HMC file, schemas/hmc.xsd)."
    : "Predict the execution time of this workload program on the system SYSTEM (an HMC file, schemas/hmc.xsd).");
  g_option_context_set_description (oc,
    "Exit status: 0 ok, 2 usage error, 3 invalid input (XML, schema, expression, model, deadlock), "
    "1 other failure.\nTimes are in seconds.  Models: see --list-models.");
  g_autoptr (GError) error = NULL;
  if (!g_option_context_parse (oc, &argc, &argv, &error)) {
    fprintf (stderr, "%s: error: %s (see --help)\n", d->program, error->message);
    return EXIT_USAGE;
  }
  if (version) {
    printf ("%s (pti %s, HMI ABI %u)\n", d->program, PTI_VERSION, PTI_HMI_ABI_VERSION);
    return 0;
  }
  if (list_models || model_info != NULL) {
    g_autoptr (PtiRegistry) registry = pti_registry_new (model_path, &error);
    if (registry == NULL)
      return fail (d->program, error);
    g_autoptr (GString) out = g_string_new (NULL);
    if (list_models)
      pti_registry_print_list (registry, out);
    if (model_info != NULL && !pti_registry_print_info (registry, model_info, out, &error))
      return fail (d->program, error);
    fputs (out->str, stdout);
    return 0;
  }
  guint want = d->workload_file ? 3 : 2;
  if ((guint) argc != want) {
    fprintf (stderr, "%s: error: expected %s (see --help)\n", d->program, args);
    return EXIT_USAGE;
  }
  const char *system_file = argv[1];
  const char *workload_file = d->workload_file ? argv[2] : NULL;

  gint64 t0 = g_get_monotonic_time ();
  g_autoptr (PtiContext) ctx = pti_context_new (system_file, model_path, &error);
  if (ctx == NULL)
    return fail (d->program, error);
  for (guint i = 0; defines && defines[i]; i++) {
    const char *eq = strchr (defines[i], '=');
    if (eq == NULL || eq == defines[i]) {
      fprintf (stderr, "%s: error: -D %s: expected NAME=VALUE\n", d->program, defines[i]);
      return EXIT_USAGE;
    }
    g_autofree char *name = g_strndup (defines[i], eq - defines[i]);
    if (!pti_context_override_param (ctx, name, eq + 1, &error)) {
      g_prefix_error (&error, "-D %s: ", defines[i]);
      error->code = PTI_ERROR_USAGE;
      return fail (d->program, error);
    }
  }
  pti_context_set_trace (ctx, output);
  if (d->workload_name != NULL)
    pti_context_set_workload (ctx, d->workload_name, NULL);
  gboolean built = d->workload_file ? pti_workload_file_build (ctx, workload_file, &error)
                                    : d->build (ctx, d->user_data, &error);
  if (!built)
    return fail (d->program, error);
  gint64 t1 = g_get_monotonic_time ();
  if (!pti_evaluate (ctx, &error))
    return fail (d->program, error);
  gint64 t2 = g_get_monotonic_time ();

  RunFigures f = { .build_s = (t1 - t0) / 1e6, .evaluate_s = (t2 - t1) / 1e6,
                   .wall_s = (t2 - t0) / 1e6, .rss = peak_rss_bytes () };
  const char *workload = workload_file ? workload_file : d->workload_name;
  if (json)
    print_json (ctx, system_file, workload, &f);
  else
    print_summary (ctx, system_file, workload, &f);
  return 0;
}

int
pti_main (int argc, char **argv, const char *workload_name, PtiBuildFunc build, gpointer user_data)
{
  g_return_val_if_fail (workload_name != NULL && build != NULL, 1);
  PtiDriver d = {
    .program = g_path_get_basename (argv[0]),
    .workload_name = workload_name,
    .build = build,
    .user_data = user_data,
  };
  int rc = pti_driver_main (&d, argc, argv);
  g_free ((char *) d.program);
  return rc;
}
