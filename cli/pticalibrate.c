/* pticalibrate: measure this host and write a pti system file for it.
 *
 *   pticalibrate [-o FILE] [--quick] [-O LEVEL] [OPTIONS]
 *
 * The system file (schemas/hmc.xsd) holds one computer with this host's
 * CPUs: its cpu-clc operation costs, measured at the optimisation level
 * named, its dense floating-point rate (the host BLAS's dgemm), and the
 * MPI library's point-to-point figures between two of its ranks as the
 * computer's intra-node net-node model.  The memory profile
 * (models/cpu-mem/cpu-mem.xsd) goes to a file of its own until the
 * memory-aware model that reads it exists.  Every number carries a comment
 * saying how it was measured.  calibrate/README.md explains the method.
 *
 * Exit status: 0 written (a part that could not be measured, such as the MPI
 * figures without mpicc, is skipped with a warning saying so), 2 usage,
 * 1 failure (an output that cannot be written, no compiler, a probe that
 * fails), 128 + N after signal N (the probe killed, nothing left behind). */
#include "pti-config.h"
#include "calibrate.h"
#include "registry.h"
#include "system.h"
#include "xml.h"
#include "cli-options.h"

#include <glib/gstdio.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum { EXIT_USAGE = 2 };

static const char *levels[] = { "0", "1", "2", "3", "s", "g", "z", "fast", NULL };

typedef struct {
  char *path;       /* where it goes, or NULL for standard output */
  char *tmp;        /* the temporary beside it, renamed when complete */
} Output;

static void
output_clear (Output *o)
{
  if (o->tmp != NULL)
    g_unlink (o->tmp);
  g_clear_pointer (&o->tmp, g_free);
  g_clear_pointer (&o->path, g_free);
}

/* Open a temporary file beside @path at once, so that an output that
 * cannot be written fails before minutes of measuring, not after. */
static gboolean
output_prepare (Output *o, const char *path, GError **error)
{
  o->path = g_strdup (path);
  o->tmp = g_strdup_printf ("%s.XXXXXX", path);
  int fd = g_mkstemp (o->tmp);
  if (fd < 0) {
    int e = errno;
    g_clear_pointer (&o->tmp, g_free);
    g_set_error (error, PTI_ERROR, PTI_ERROR_IO, "cannot write %s: %s", path, g_strerror (e));
    return FALSE;
  }
  close (fd);
  return TRUE;
}

static gboolean
output_commit (Output *o, const char *text, GError **error)
{
  GError *e = NULL;
  if (!g_file_set_contents (o->tmp, text, -1, &e) || g_rename (o->tmp, o->path) != 0) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_IO, "cannot write %s: %s", o->path,
                 e ? e->message : g_strerror (errno));
    g_clear_error (&e);
    return FALSE;
  }
  g_clear_pointer (&o->tmp, g_free);
  return TRUE;
}

/* A system name from the host name: an identifier of hmc.xsd. */
static char *
system_name (const char *host)
{
  GString *s = g_string_new (NULL);
  for (const char *p = host; p && *p && s->len < 100; p++)
    g_string_append_c (s, g_ascii_isalnum (*p) || *p == '_' || *p == '-' || *p == '.' ? *p : '_');
  if (s->len == 0 || !(g_ascii_isalpha (s->str[0]) || s->str[0] == '_'))
    g_string_prepend (s, "host_");
  return g_string_free (s, FALSE);
}

static gboolean
is_identifier (const char *s)
{
  if (s == NULL || !(g_ascii_isalpha (*s) || *s == '_') || strlen (s) > 128)
    return FALSE;
  for (const char *p = s; *p; p++)
    if (!(g_ascii_isalnum (*p) || *p == '_' || *p == '-' || *p == '.'))
      return FALSE;
  return TRUE;
}

/* The file written must load as pti loads it: schema, model schemas, models. */
static gboolean
check_system (const char *path, GError **error)
{
  g_autoptr (GError) e = NULL;
  PtiRegistry *reg = pti_registry_new (NULL, &e);
  PtiSystem *sys = reg ? pti_system_load (path, reg, &e) : NULL;
  if (sys != NULL)
    pti_system_free (sys);
  if (reg != NULL)
    pti_registry_free (reg);
  if (sys == NULL) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_FAILED,
                 "the system file written does not load (a bug in pticalibrate): %s",
                 e->message);
    return FALSE;
  }
  return TRUE;
}

static gboolean
check_profile (const char *path, GError **error)
{
  g_autoptr (GError) e = NULL;
  /* compiled once per process, owned by the XML layer */
  xmlSchema *schema = pti_xml_schema_from_memory (pti_cal_cpu_mem_xsd, "cpu-mem.xsd", &e);
  g_autoptr (xmlDoc) doc = schema ? pti_xml_read_file (path, &e) : NULL;
  if (doc == NULL || !pti_xml_validate_doc (schema, doc, "cpu-mem.xsd", &e)) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_FAILED,
                 "the memory profile written does not validate (a bug in pticalibrate): %s",
                 e->message);
    return FALSE;
  }
  return TRUE;
}

static char *
default_profile_path (const char *system_path)
{
  if (g_str_has_suffix (system_path, ".xml"))
    return g_strdup_printf ("%.*s.memory.xml", (int) strlen (system_path) - 4, system_path);
  return g_strdup_printf ("%s.memory.xml", system_path);
}

/* The system file's <cpu_mem>: the profile by reference (relative to the
 * system file when they share a directory, as cpu-mem resolves it;
 * absolute otherwise, or when @system_path is NULL: standard output) and
 * the data caches the host reports, for reuse-distance histograms. */
static void
append_cpu_mem (GString *doc, const char *system_path, const char *profile_path,
                const CalHost *host)
{
  g_autofree char *sys_dir = system_path ? g_path_get_dirname (system_path) : NULL;
  g_autofree char *prof_dir = g_path_get_dirname (profile_path);
  g_autofree char *reference = sys_dir != NULL && strcmp (sys_dir, prof_dir) == 0
                                 ? g_path_get_basename (profile_path)
                                 : g_canonicalize_filename (profile_path, NULL);
  cal_xml_comment (doc, 4, "The memory-aware CPU model (models/cpu-mem/README.md): the operation "
                           "costs above plus the workloads' memory signatures priced by the "
                           "profile measured with this file.  Not the active model (the first, "
                           "cpu-clc, is): choose it with ptieval's option use-model, "
                           "host=cpu-mem.  Cache levels: the data caches as the system reports "
                           "them; check the last against the profile's unit-stride bandwidth, "
                           "which falls past it (a virtual machine may report a cache it does "
                           "not have).");
  g_autofree char *escaped = g_markup_escape_text (reference, -1);
  g_string_append_printf (doc, "    <cpu_mem profile=\"%s\">\n", escaped);
  for (guint i = 0; i < G_N_ELEMENTS (host->data_cache_bytes); i++)
    if (host->data_cache_bytes[i] > 0)
      g_string_append_printf (doc, "      <cache name=\"L%u\" bytes=\"%" G_GUINT64_FORMAT "\"/>\n",
                              i + 1, host->data_cache_bytes[i]);
  g_string_append (doc, "    </cpu_mem>\n");
}

static int
fail (GError *error)
{
  g_printerr ("pticalibrate: error: %s\n", error->message);
  int code = error->domain == G_OPTION_ERROR
                 || (error->domain == PTI_ERROR && error->code == PTI_ERROR_USAGE)
             ? EXIT_USAGE
             : 1;
  g_error_free (error);
  return code;
}

typedef struct {
  const char *output;        /* system file, or NULL: standard output */
  const char *profile_path;  /* memory profile, or NULL: none */
  const char *level, *cflags, *name, *workdir, *skip;
  const char *cc_opt, *mpicc_opt, *mpirun_opt, *blas;
  gboolean quick, latency, do_cpu, do_memory, do_mpi, progress;
  guint64 mem_max;
  Output *sys_out, *mem_out;
} Options;

/* The MPI part: measured into @net_xml and @mpi_xml, or skipped with a
 * warning and a note in @skipped.  Never fatal: the rest of the file is
 * still useful. */
static void
measure_mpi (const Options *o, const CalRun *run, const CalHost *host, GString *net_xml,
             GString *mpi_xml, GString *placement, GString *report, GString *skipped)
{
  const char *env_mpicc = g_getenv ("MPICC");
  const char *mpicc_name = o->mpicc_opt ? o->mpicc_opt
                           : env_mpicc && *env_mpicc ? env_mpicc : "mpicc";
  const char *mpirun_name = o->mpirun_opt ? o->mpirun_opt : "mpirun";
  g_autofree char *mpicc = cal_find_program (mpicc_name);
  g_autofree char *mpirun = cal_find_program (mpirun_name);
  g_autofree char *why = NULL;
  if (mpicc == NULL)
    why = g_strdup_printf ("'%s' is not an executable or not in PATH (install an MPI library "
                           "with its compiler wrapper, e.g. Debian's libopenmpi-dev, or name one "
                           "with --mpicc or MPICC)", mpicc_name);
  else if (mpirun == NULL)
    why = g_strdup_printf ("'%s' is not an executable or not in PATH (name the launcher with "
                           "--mpirun)", mpirun_name);
  else if (host->cpus_online < 2)
    why = g_strdup ("this host has one CPU: no two ranks to measure between");
  if (why == NULL) {
    /* Open MPI refuses to run as root unless told; being root here is
     * the user's choice already. */
    g_autofree char *vout = NULL, *verr = NULL;
    int st;
    const char *vargv[] = { mpirun, "--version", NULL };
    gboolean open_mpi = cal_run (vargv, o->workdir, 60, &vout, &verr, &st, NULL)
                        && strstr (vout, "Open MPI") != NULL;
    CalMpiOptions mo = { .mpicc = mpicc, .mpirun = mpirun,
                         .allow_root = open_mpi && geteuid () == 0
                                       && g_getenv ("OMPI_ALLOW_RUN_AS_ROOT") == NULL };
    g_autoptr (GError) e = NULL;
    if (!cal_mpi_measure (run, &mo, net_xml, mpi_xml, placement, report, &e)) {
      why = g_strdup (e->message);
      g_string_truncate (net_xml, 0);
      g_string_truncate (mpi_xml, 0);
      g_string_truncate (placement, 0);
    }
  }
  if (why != NULL) {
    g_printerr ("pticalibrate: warning: skipped the MPI point-to-point parameters: %s.  The "
                "system file has no model for messages between its CPUs.\n", why);
    g_string_append_printf (skipped, "MPI parameters not measured: %s.  Without them this "
                            "system has no model for messages between its CPUs: a workload "
                            "that sends any is refused.\n", why);
  }
}

/* The command, for the files' comments, which cannot hold "--": short
 * options, and the long-only ones in words. */
static char *
command_text (const Options *o)
{
  GString *cmd = g_string_new ("pticalibrate");
  if (o->output)
    g_string_append_printf (cmd, " -o %s", o->output);
  if (o->quick)
    g_string_append (cmd, " -q");
  g_string_append_printf (cmd, " -O%s", o->level);
  GString *words = g_string_new (NULL);
  if (o->cflags)
    g_string_append_printf (words, ", compiler flags \"%s\"", o->cflags);
  if (o->latency)
    g_string_append (words, ", costs as latencies");
  if (o->skip)
    g_string_append_printf (words, ", leaving out %s", o->skip);
  g_string_append_printf (cmd, "`%s", words->str);
  g_string_free (words, TRUE);
  g_string_prepend_c (cmd, '`');
  return g_string_free (cmd, FALSE);
}

static gboolean
calibrate (const Options *o, GError **error)
{
  CalHost host;
  cal_host_read (&host);
  g_autoptr (GString) report = g_string_new (NULL), cpu_xml = g_string_new (NULL),
                      net_xml = g_string_new (NULL), mem_xml = g_string_new (NULL),
                      mpi_xml = g_string_new (NULL),
                      placement = g_string_new (NULL), skipped = g_string_new (NULL);
  gint64 t_start = g_get_monotonic_time ();
  double load_before = cal_load_average ();
  CalRun run = { .quick = o->quick, .workdir = o->workdir, .progress = o->progress };

  const char *env_cc = g_getenv ("CC");
  const char *cc_name = o->cc_opt ? o->cc_opt : env_cc && *env_cc ? env_cc : "cc";
  g_autofree char *cc = cal_find_program (cc_name);
  if (cc == NULL && (o->do_cpu || o->do_memory)) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_FAILED,
                 "no C compiler: '%s' is not an executable or not in PATH.  pticalibrate "
                 "compiles its benchmarks on this host, the operation costs at the level you "
                 "name (-O%s): install one (gcc) or name it with --cc or CC", cc_name, o->level);
    cal_host_clear (&host);
    return FALSE;
  }
  gboolean ok = TRUE;
  if (o->do_mpi)
    measure_mpi (o, &run, &host, net_xml, mpi_xml, placement, report, skipped);
  else
    g_string_append (skipped, "MPI parameters not measured (--skip mpi).\n");
  if (cal_interrupted ()) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_FAILED, "interrupted (signal %d)", cal_interrupted ());
    cal_host_clear (&host);
    return FALSE;
  }
  if (o->do_cpu) {
    CalCpuOptions co = { .cc = cc, .level = o->level, .cflags = o->cflags, .latency = o->latency };
    ok = cal_cpu_measure (&run, &co, cpu_xml, report, error);
    /* This file describes this host: a computation measured here (a
     * pticapture trace taken on it) replays at its own speed.  The rates
     * go first in <cpu_clc>, before the operation codes. */
    g_autoptr (GString) rates = g_string_new (NULL);
    cal_xml_comment (rates, 6, "Computations given as a measured time (pticapture and Dimemas "
                               "traces, use_time) take t / speed_ratio: 1, this host's own "
                               "captures replay at their own speed.");
    g_string_append (rates, "      <speed_ratio>1</speed_ratio>\n");
    ok = ok && cal_flops_measure (&run, cc, o->blas, rates, report, skipped, error);
    /* after the start tag, whatever its attributes (unit, window) */
    const char *open_tag = ok ? strstr (cpu_xml->str, "<cpu_clc unit=\"ns\"") : NULL;
    const char *tag_end = open_tag != NULL ? strstr (open_tag, ">\n") : NULL;
    if (tag_end != NULL)
      g_string_insert (cpu_xml, tag_end - cpu_xml->str + strlen (">\n"), rates->str);
  } else
    g_string_append (skipped, "Operation costs not measured (--skip cpu): the cpu_clc element "
                              "is empty, and pricing any computation fails.\n");
  if (ok && o->do_memory) {
    CalMemOptions mo = { .cc = cc, .max_bytes = o->mem_max,
                         .procs = o->quick || host.cpus_online < 2 ? 0 : host.cpus_online };
    ok = cal_memory_measure (&run, &mo, mem_xml, report, error);
  }
  if (!ok) {
    cal_host_clear (&host);
    return FALSE;
  }
  double load_after = cal_load_average ();
  double seconds = (g_get_monotonic_time () - t_start) / 1e6;

  /* ---- the system file ---- */
  g_autoptr (GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *date = g_date_time_format (now, "%Y-%m-%d %H:%M %Z");
  g_autofree char *sysname = o->name ? g_strdup (o->name) : system_name (host.hostname);
  g_autofree char *machine = cal_strdup_printf (
    "Machine: %s (%s)%s; %u CPUs online, %u socket%s, %u thread%s per core; %.1f GiB of "
    "memory; caches (as the system reports them) %s; %s; transparent huge pages %s.",
    host.cpu_model, host.cpu_id ? host.cpu_id : "?",
    host.virtual_machine ? ", a virtual machine" : "", host.cpus_online, host.sockets,
    host.sockets == 1 ? "" : "s", host.threads_per_core, host.threads_per_core == 1 ? "" : "s",
    host.memory_bytes / 1073741824.0, host.caches, host.kernel, host.thp);
  g_autofree char *load_text = cal_strdup_printf (
    "Load average (1 minute) %.2f before and %.2f after, on %u CPUs: %s", load_before,
    load_after, host.cpus_online,
    MAX (load_before, load_after) > 0.5 ? "other processes shared this host while it was "
                                          "measured; runs they interrupted were taken again, and "
                                          "the spreads below show the noise that remained."
                                        : "the host was otherwise idle.");
  g_autofree char *cmd_text = command_text (o);
  g_autofree char *profile_text =
    o->do_memory ? g_strdup_printf ("The memory profile is in %s (models/cpu-mem/cpu-mem.xsd), "
                                    "which the computer's <cpu_mem> names.",
                                    o->profile_path)
                 : g_strdup ("No memory profile was written.");
  g_autofree char *header = cal_strdup_printf (
    "This host as pticalibrate %s measured it on %s (%s run, %.0f s): %s.\n%s\n%s\n%s\n%s",
    PTI_VERSION, date, o->quick ? "quick" : "full", seconds, cmd_text, machine, load_text,
    profile_text, skipped->str);
  g_autoptr (GString) doc = g_string_new ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  cal_xml_comment (doc, 0, header);
  g_string_append_printf (doc, "<system name=\"%s\">\n", sysname);
  g_autofree char *place = cal_strdup_printf (
    "One node of %u CPUs.  pti places rank r on CPU r of the node (connection order); messages "
    "between its CPUs go through the node's intra-node model%s.  As measured: %s",
    host.cpus_online, net_xml->len ? ", the net-node below" : " (none: not measured)",
    placement->len ? placement->str : "MPI not run, no placement seen.");
  cal_xml_comment (doc, 2, place);
  g_string_append_printf (doc, "  <computer name=\"host\" count=\"1\" cpus=\"%u\">\n",
                          host.cpus_online);
  g_string_append (doc, cpu_xml->len ? cpu_xml->str : "    <cpu_clc unit=\"ns\"/>\n");
  if (o->do_memory)
    append_cpu_mem (doc, o->output, o->profile_path, &host);
  g_string_append (doc, net_xml->str);
  g_string_append (doc, "  </computer>\n");
  g_string_append (doc, mpi_xml->str);
  g_string_append (doc, "</system>\n");
  cal_host_clear (&host);

  /* ---- the memory profile: before the system file, which names it ---- */
  if (o->do_memory) {
    g_autoptr (GString) mdoc = g_string_new ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    g_autofree char *mhead = cal_strdup_printf (
      "The memory profile of this host as pticalibrate %s measured it on %s (%s run): %s.\n"
      "%s\n%s\nIts system file: %s.  The memory-aware CPU model (models/cpu-mem/README.md) "
      "reads it through the <cpu_mem profile=...> of the system file's computer.", PTI_VERSION,
      date, o->quick ? "quick" : "full", cmd_text, machine, load_text,
      o->output ? o->output : "standard output");
    cal_xml_comment (mdoc, 0, mhead);
    g_string_append (mdoc, "<cpu_mem>\n");
    g_string_append (mdoc, mem_xml->str);
    g_string_append (mdoc, "</cpu_mem>\n");
    if (!output_commit (o->mem_out, mdoc->str, error) || !check_profile (o->profile_path, error))
      return FALSE;
  }

  if (o->output != NULL) {
    if (!output_commit (o->sys_out, doc->str, error) || !check_system (o->output, error))
      return FALSE;
  } else {
    g_autofree char *tmp = g_build_filename (o->workdir, "system.xml", NULL);
    if (!cal_write_file (o->workdir, "system.xml", doc->str, error)
        || !check_system (tmp, error))
      return FALSE;
    fputs (doc->str, stdout);
    if (fflush (stdout) != 0 || ferror (stdout)) {
      g_set_error (error, PTI_ERROR, PTI_ERROR_IO, "cannot write to standard output: %s",
                   g_strerror (errno));
      return FALSE;
    }
  }

  if (o->progress) {
    g_printerr ("pticalibrate: done in %.0f s (load average %.2f before, %.2f after):\n%s",
                seconds, load_before, load_after, report->str);
    g_printerr ("pticalibrate: wrote %s%s%s\n", o->output ? o->output : "the system",
                o->do_memory ? " and " : "", o->do_memory ? o->profile_path : "");
  }
  return TRUE;
}

static void
remove_tree (const char *dir)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  const char *entry;
  while (d != NULL && (entry = g_dir_read_name (d)) != NULL) {
    g_autofree char *p = g_build_filename (dir, entry, NULL);
    g_unlink (p);   /* the probes write files only */
  }
  if (d != NULL)
    g_dir_close (d);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_autofree char *output = NULL, *memory = NULL, *level = NULL, *cflags = NULL, *cost = NULL,
                  *cc_opt = NULL, *mpicc_opt = NULL, *mpirun_opt = NULL, *skip = NULL,
                  *name = NULL, *keep = NULL, *memory_max = NULL, *blas = NULL;
  gboolean quick = FALSE, no_progress = FALSE, version = FALSE;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      "Write the system file to FILE (default: standard output)", "FILE" },
    { "memory", 'm', 0, G_OPTION_ARG_FILENAME, &memory,
      "Write the memory profile to FILE (default: the system file's name ending in "
      ".memory.xml; none when the system goes to standard output)", "FILE" },
    { "quick", 'q', 0, G_OPTION_ARG_NONE, &quick,
      "Fewer sizes and repetitions: about a minute instead of several (tests, CI)", NULL },
    { "optimize", 'O', 0, G_OPTION_ARG_STRING, &level,
      "Optimisation level the operation benchmarks are compiled at, as -OLEVEL: 0 1 2 3 s g z "
      "fast (default 2)", "LEVEL" },
    { "cflags", 0, 0, G_OPTION_ARG_STRING, &cflags,
      "More compiler flags for the operation benchmarks, e.g. \"-march=native\"", "FLAGS" },
    { "cost", 0, 0, G_OPTION_ARG_STRING, &cost,
      "What an operation costs: throughput (its reciprocal throughput, the default) or latency",
      "KIND" },
    { "cc", 0, 0, G_OPTION_ARG_STRING, &cc_opt, "C compiler (default: $CC, else cc)", "CC" },
    { "mpicc", 0, 0, G_OPTION_ARG_STRING, &mpicc_opt,
      "MPI C compiler (default: $MPICC, else mpicc)", "MPICC" },
    { "mpirun", 0, 0, G_OPTION_ARG_STRING, &mpirun_opt, "MPI launcher (default: mpirun)",
      "MPIRUN" },
    { "blas", 0, 0, G_OPTION_ARG_STRING, &blas,
      "BLAS library whose dgemm gives the floating-point rate, opened with dlopen (default "
      "libblas.so.3)", "LIB" },
    { "skip", 0, 0, G_OPTION_ARG_STRING, &skip,
      "Leave parts out, comma-separated: cpu, memory, mpi", "LIST" },
    { "name", 0, 0, G_OPTION_ARG_STRING, &name, "System name (default: the host name)", "NAME" },
    { "memory-max", 0, 0, G_OPTION_ARG_STRING, &memory_max,
      "Largest working set of the memory profile, bytes (default 256 MiB, 64 MiB with --quick)",
      "BYTES" },
    { "keep", 0, 0, G_OPTION_ARG_FILENAME, &keep,
      "Build and run the probes in DIR and keep them there: sources, programs, raw output "
      "(default: a temporary directory, removed)", "DIR" },
    { "no-progress", 0, 0, G_OPTION_ARG_NONE, &no_progress,
      "Report nothing on standard error but warnings and errors", NULL },
    { "version", 0, 0, G_OPTION_ARG_NONE, &version, "Print the version and exit", NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) octx = g_option_context_new ("- measure this host for pti");
  g_option_context_set_summary (octx,
    "Measures this host and writes a pti system file for it: the cost of every cpu-clc "
    "operation code at the optimisation level named, the MPI library's point-to-point figures "
    "between two ranks (net-node, the computer's intra-node model) and the number of CPUs; "
    "and a memory profile (bandwidth and latency by working set and access pattern) for the "
    "memory-aware CPU model, in a file of its own.  Each number carries a comment saying how it "
    "was measured.  A full run takes several minutes; --quick about one.");
  g_option_context_add_main_entries (octx, entries, NULL);
  GError *error = NULL;
  /* -O2 attached, as compilers (and this program's --help and README) write it */
  g_auto (GStrv) args = pti_cli_split_attached (PTI_CLI_GROUPS (entries), argc, argv);
  if (!g_option_context_parse_strv (octx, &args, &error))   /* frees what it takes out */
    return fail (error);
  argc = (int) g_strv_length (args);
  argv = args;
  if (version) {
    printf ("pticalibrate (pti) %s\n", PTI_VERSION);
    return 0;
  }
  if (argc > 1) {
    g_printerr ("pticalibrate: error: unexpected argument '%s' (see --help)\n", argv[1]);
    return EXIT_USAGE;
  }
  Options o = { .level = level ? level : "2", .cflags = cflags, .name = name, .skip = skip,
                .cc_opt = cc_opt, .mpicc_opt = mpicc_opt, .mpirun_opt = mpirun_opt,
                .blas = blas ? blas : "libblas.so.3", .quick = quick, .do_cpu = TRUE,
                .do_memory = TRUE, .do_mpi = TRUE,
                .progress = !no_progress, .mem_max = quick ? 64u << 20 : 256u << 20 };
  if (!g_strv_contains (levels, o.level)) {
    g_printerr ("pticalibrate: error: -O %s: the level must be one of 0 1 2 3 s g z fast\n",
                o.level);
    return EXIT_USAGE;
  }
  if (cost != NULL && strcmp (cost, "latency") == 0)
    o.latency = TRUE;
  else if (cost != NULL && strcmp (cost, "throughput") != 0) {
    g_printerr ("pticalibrate: error: --cost %s: throughput or latency\n", cost);
    return EXIT_USAGE;
  }
  if (skip != NULL) {
    g_auto (GStrv) parts = g_strsplit (skip, ",", -1);
    for (char **p = parts; *p != NULL; p++) {
      const char *s = g_strstrip (*p);
      if (strcmp (s, "cpu") == 0)
        o.do_cpu = FALSE;
      else if (strcmp (s, "memory") == 0)
        o.do_memory = FALSE;
      else if (strcmp (s, "mpi") == 0)
        o.do_mpi = FALSE;
      else {
        g_printerr ("pticalibrate: error: --skip: '%s' is not cpu, memory or mpi\n", s);
        return EXIT_USAGE;
      }
    }
  }
  if (memory_max != NULL
      && !g_ascii_string_to_unsigned (memory_max, 10, 65536, (guint64) 1 << 40, &o.mem_max,
                                      NULL)) {
    g_printerr ("pticalibrate: error: --memory-max %s: a number of bytes from 65536 to 2^40\n",
                memory_max);
    return EXIT_USAGE;
  }
  if (name != NULL && !is_identifier (name)) {
    g_printerr ("pticalibrate: error: --name %s: a letter or '_', then letters, digits, '_', "
                "'-' or '.' (at most 128)\n", name);
    return EXIT_USAGE;
  }

  /* Outputs first: a mistake there must not cost minutes of measuring. */
  Output sys_out = { 0 }, mem_out = { 0 };
  g_autofree char *profile_path = !o.do_memory ? NULL
                                  : memory ? g_strdup (memory)
                                  : output ? default_profile_path (output) : NULL;
  if (o.do_memory && profile_path == NULL) {
    o.do_memory = FALSE;
    g_printerr ("pticalibrate: note: no memory profile (the system goes to standard output; "
                "name a file for it with --memory)\n");
  }
  o.output = output;
  o.profile_path = profile_path;
  o.sys_out = &sys_out;
  o.mem_out = &mem_out;
  if ((output != NULL && !output_prepare (&sys_out, output, &error))
      || (profile_path != NULL && !output_prepare (&mem_out, profile_path, &error))) {
    output_clear (&sys_out);
    output_clear (&mem_out);
    return fail (error);
  }

  cal_catch_signals ();
  g_autofree char *workdir = NULL;
  if (keep != NULL) {
    if (g_mkdir_with_parents (keep, 0755) != 0)
      g_set_error (&error, PTI_ERROR, PTI_ERROR_IO, "--keep %s: %s", keep, g_strerror (errno));
    else
      workdir = g_strdup (keep);
  } else
    workdir = g_dir_make_tmp ("pticalibrate-XXXXXX", &error);
  o.workdir = workdir;
  gboolean ok = workdir != NULL && calibrate (&o, &error);
  if (workdir != NULL && keep == NULL)
    remove_tree (workdir);
  output_clear (&sys_out);
  output_clear (&mem_out);
  if (!ok) {
    if (keep != NULL && workdir != NULL)
      g_printerr ("pticalibrate: the probes and their output are in %s\n", keep);
    int sig = cal_interrupted ();
    int code = fail (error);
    return sig ? 128 + sig : code;
  }
  return 0;
}
