/* ptireuse: measure a program's reuse-distance histogram under valgrind, or
 * that of an address stream, and predict LRU cache misses from it (issue
 * 15.3; memtrace/README.md, man ptireuse). */
#include "pti-config.h"
#include "cli-options.h"
#include "reuse.h"
#include "include/pti/reuse-region.h"

#include <pti/hmi.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXIT_USAGE 2
#define EXIT_INVALID 3

static int
fail (GError *error)
{
  g_printerr ("ptireuse: error: %s\n", error->message);
  int code = g_error_matches (error, PTI_ERROR, PTI_ERROR_USAGE)     ? EXIT_USAGE
             : g_error_matches (error, PTI_ERROR, PTI_ERROR_INVALID) ? EXIT_INVALID
             : g_error_matches (error, G_OPTION_ERROR, error->code)   ? EXIT_USAGE
                                                                      : 1;
  g_error_free (error);
  return code;
}

static int
usage (const char *fmt, const char *arg)
{
  g_autofree char *msg = g_strdup_printf (fmt, arg);
  g_printerr ("ptireuse: error: %s (see --help)\n", msg);
  return EXIT_USAGE;
}

/* "4096", "32K", "32KiB", "8M", "1G" (binary multiples): bytes, or 0. */
static guint64
parse_bytes (const char *text)
{
  char *end;
  errno = 0;
  guint64 v = g_ascii_strtoull (text, &end, 10);
  if (errno != 0 || end == text || !g_ascii_isdigit (*text))
    return 0;
  guint shift = 0;
  switch (g_ascii_toupper (*end)) {
  case 'K': shift = 10; end++; break;
  case 'M': shift = 20; end++; break;
  case 'G': shift = 30; end++; break;
  default: break;
  }
  if (shift != 0 && (strcmp (end, "iB") == 0 || strcmp (end, "B") == 0))
    end += strlen (end);
  else if (shift == 0 && strcmp (end, "B") == 0)
    end++;
  if (*end != '\0' || v > (G_MAXUINT64 >> shift))
    return 0;
  return v << shift;
}

static char *
format_bytes (guint64 b)
{
  if (b >= (1u << 30) && b % (1u << 30) == 0)
    return g_strdup_printf ("%" G_GUINT64_FORMAT "GiB", b >> 30);
  if (b >= (1u << 20) && b % (1u << 20) == 0)
    return g_strdup_printf ("%" G_GUINT64_FORMAT "MiB", b >> 20);
  if (b >= (1u << 10) && b % (1u << 10) == 0)
    return g_strdup_printf ("%" G_GUINT64_FORMAT "KiB", b >> 10);
  return g_strdup_printf ("%" G_GUINT64_FORMAT "B", b);
}

/* ptireuse misses HIST.xml --cache SIZE[,SIZE...] */
static int
misses_main (int argc, char **argv)
{
  g_autofree char *caches = NULL;
  GOptionEntry entries[] = {
    { "cache", 'c', 0, G_OPTION_ARG_STRING, &caches,
      "Cache sizes, comma-separated, in bytes or with K, M, G (KiB, MiB, GiB): each a "
      "fully-associative LRU cache of the histogram's line size", "SIZE[,SIZE...]" },
    { NULL }
  };
  g_autoptr (GOptionContext) octx = g_option_context_new ("HIST.xml --cache SIZE[,SIZE...]");
  g_option_context_set_summary (octx,
    "Predicts the misses of fully-associative LRU caches from a reuse-distance histogram: "
    "the cold references plus those whose distance is at least the cache's lines (linear "
    "inside the bin holding the capacity).  Prints one line per cache: size, lines, "
    "misses, miss ratio.");
  g_option_context_add_main_entries (octx, entries, NULL);
  GError *error = NULL;
  g_auto (GStrv) args = pti_cli_split_attached (PTI_CLI_GROUPS (entries), argc, argv);
  if (!g_option_context_parse_strv (octx, &args, &error))
    return fail (error);
  argc = (int) g_strv_length (args);
  argv = args;
  if (argc != 2)
    return usage ("misses takes one histogram file%s", argc < 2 ? "" : " (more given)");
  if (caches == NULL)
    return usage ("misses needs --cache SIZE[,SIZE...]%s", "");
  PtiReuseHistogram h;
  if (!pti_reuse_histogram_load (argv[1], &h, &error))
    return fail (error);
  g_auto (GStrv) sizes = g_strsplit (caches, ",", -1);
  g_autoptr (GArray) bytes = g_array_new (FALSE, FALSE, sizeof (guint64));
  for (guint i = 0; sizes[i] != NULL; i++) {
    guint64 b = parse_bytes (g_strstrip (sizes[i]));
    if (b == 0)
      return usage ("--cache: '%s' is not a size (bytes, or a number with K, M or G)", sizes[i]);
    if (b < h.line) {
      g_autofree char *msg = g_strdup_printf ("--cache: %s is smaller than one %u-byte line",
                                              sizes[i], h.line);
      return usage ("%s", msg);
    }
    g_array_append_val (bytes, b);
  }
  printf ("# %s: %u-byte lines, %" G_GUINT64_FORMAT " references, %" G_GUINT64_FORMAT " cold\n",
          argv[1], h.line, h.references, h.cold);
  printf ("cache\tlines\tmisses\tmiss_ratio\n");
  for (guint i = 0; i < bytes->len; i++) {
    guint64 b = g_array_index (bytes, guint64, i);
    guint64 lines = b / h.line;
    double m = pti_reuse_histogram_misses (&h, lines);
    g_autofree char *size = format_bytes (b);
    printf ("%s\t%" G_GUINT64_FORMAT "\t%.0f\t%.6f\n", size, lines, m,
            h.references > 0 ? m / (double) h.references : 0.0);
  }
  return fflush (stdout) == 0 ? 0 : 1;
}

static gboolean
read_input (const char *input, PtiReuseStream *s, GError **error)
{
  int fd = strcmp (input, "-") == 0 ? STDIN_FILENO : open (input, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_IO, "%s: %s", input, g_strerror (errno));
    return FALSE;
  }
  gboolean ok = pti_reuse_stream_read_fd (s, fd, input, error);
  if (fd != STDIN_FILENO)
    close (fd);
  return ok && pti_reuse_stream_finish (s, error);
}

int
main (int argc, char **argv)
{
  if (argc > 1 && strcmp (argv[1], "misses") == 0)
    return misses_main (argc - 1, argv + 1);
  /* The program's own arguments follow "--": GOption never sees them. */
  int own = argc;
  for (int i = 1; i < argc; i++) {
    if (strcmp (argv[i], "--") == 0) {
      own = i;
      break;
    }
  }
  char **program = own < argc ? argv + own + 1 : NULL;
  argv[own] = NULL;
  int n_args = own;

  g_autofree char *output = NULL, *input = NULL, *format = NULL, *valgrind = NULL;
  int line = 64;
  gboolean region = FALSE, quiet = FALSE, version = FALSE;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      "Write the histogram (schemas/reuse.xsd) to FILE; - for standard output", "FILE" },
    { "line", 'l', 0, G_OPTION_ARG_INT, &line,
      "Cache line size in bytes, a power of two (default 64)", "BYTES" },
    { "region", 'r', 0, G_OPTION_ARG_NONE, &region,
      "Count only references between the program's PTI_REUSE_START and PTI_REUSE_STOP "
      "markers (include/pti/reuse-region.h); the rest still warms the LRU stack", NULL },
    { "input", 'i', 0, G_OPTION_ARG_FILENAME, &input,
      "Read an address stream from FILE (- for standard input) instead of running a program",
      "FILE" },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format,
      "Format of --input: raw (a hexadecimal address a line, optionally ,SIZE; the default) "
      "or lackey (valgrind --tool=lackey --trace-mem=yes output)", "FORMAT" },
    { "valgrind", 0, 0, G_OPTION_ARG_FILENAME, &valgrind,
      "The valgrind to run (default: valgrind, found in PATH)", "PATH" },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "No summary on standard error", NULL },
    { "version", 0, 0, G_OPTION_ARG_NONE, &version, "Print the version and exit", NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) octx =
    g_option_context_new ("-o HIST.xml -- PROGRAM [ARGS]  |  -o HIST.xml --input FILE  |  "
                          "misses HIST.xml --cache SIZE[,SIZE...]");
  g_option_context_set_summary (octx,
    "Measures the reuse-distance histogram of a program's data references at cache-line "
    "granularity: runs PROGRAM under valgrind's lackey tool, reads its memory trace as it is "
    "written, and bins each reference's LRU stack distance (distinct lines touched since the "
    "previous reference to its line) by powers of two, first references apart (cold).  "
    "`ptireuse misses` predicts LRU cache misses from the histogram.");
  g_option_context_add_main_entries (octx, entries, NULL);
  GError *error = NULL;
  g_auto (GStrv) args = pti_cli_split_attached (PTI_CLI_GROUPS (entries), n_args, argv);
  if (!g_option_context_parse_strv (octx, &args, &error))
    return fail (error);
  n_args = (int) g_strv_length (args);
  argv = args;
  if (version) {
    printf ("ptireuse (pti) %s\n", PTI_VERSION);
    return 0;
  }
  if (n_args > 1)
    return usage ("unexpected argument '%s': the program to run follows --", argv[1]);
  if (output == NULL)
    return usage ("-o HIST.xml is required%s", "");
  if (line <= 0 || (line & (line - 1)) != 0 || line > (1 << 20)) {
    g_autofree char *text = g_strdup_printf ("%d", line);
    return usage ("--line %s: must be a power of two from 1 to 1048576", text);
  }
  PtiReuseFormat fmt = PTI_REUSE_FORMAT_RAW;
  if (format != NULL && strcmp (format, "lackey") == 0)
    fmt = PTI_REUSE_FORMAT_LACKEY;
  else if (format != NULL && strcmp (format, "raw") != 0)
    return usage ("--format %s: must be raw or lackey", format);
  if ((input != NULL) == (program != NULL && program[0] != NULL))
    return usage ("%s", input != NULL ? "give either --input or a program after --, not both"
                                      : "no program to run: ptireuse -o HIST.xml -- PROGRAM [ARGS]");
  if (program != NULL && format != NULL)
    return usage ("--format applies to --input only%s", "");
  if (input == NULL)
    fmt = PTI_REUSE_FORMAT_LACKEY;
  if (region && fmt != PTI_REUSE_FORMAT_LACKEY)
    return usage ("--region needs the lackey format (--format lackey)%s", "");

  g_autoptr (PtiReuse) reuse = pti_reuse_new ((guint) line);
  const char *name = input != NULL ? (strcmp (input, "-") == 0 ? "(stdin)" : input)
                                   : "valgrind trace";
  g_autoptr (PtiReuseStream) stream = pti_reuse_stream_new (reuse, fmt, name, region);
  gboolean ok = input != NULL ? read_input (input, stream, &error)
                              : pti_reuse_run (valgrind != NULL ? valgrind : "valgrind", program,
                                               stream, &error);
  if (!ok)
    return fail (error);
  if (region && pti_reuse_stream_regions (stream) == 0) {
    g_printerr ("ptireuse: error: --region: no " PTI_REUSE_START_MARK " marker in the trace: "
                "the program must call PTI_REUSE_START and PTI_REUSE_STOP "
                "(include/pti/reuse-region.h), and be run under valgrind\n");
    return EXIT_INVALID;
  }
  PtiReuseHistogram h;
  pti_reuse_histogram (reuse, &h);
  g_autofree char *xml = pti_reuse_histogram_to_xml (&h);
  if (strcmp (output, "-") == 0) {
    if (fputs (xml, stdout) == EOF || fflush (stdout) != 0) {
      g_printerr ("ptireuse: error: writing standard output: %s\n", g_strerror (errno));
      return 1;
    }
  } else if (!g_file_set_contents (output, xml, -1, &error)) {
    return fail (error);
  }
  if (!quiet) {
    guint64 distinct = pti_reuse_distinct (reuse);
    g_printerr ("ptireuse: %s: %" G_GUINT64_FORMAT " references, %" G_GUINT64_FORMAT
                " cold; %" G_GUINT64_FORMAT " distinct lines (%.1f MiB) touched", output,
                h.references, h.cold, distinct, (double) distinct * line / (1 << 20));
    if (region)
      g_printerr (", %" G_GUINT64_FORMAT " regions", pti_reuse_stream_regions (stream));
    g_printerr ("\n");
  }
  return 0;
}
