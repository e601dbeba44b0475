/* ptisweep: evaluate a workload file over the cartesian product of
 * parameter values and systems, and write one table (CSV or JSON).
 *   ptisweep [OPTIONS] SYSTEM.xml... WORKLOAD.xml
 *
 * Every point is evaluated in-process through the WSL (one PtiContext per
 * point, the workload file built with the point's -D values), as ptieval
 * would: -j N forks N worker processes (libxml2 and the models keep
 * process-wide state, so processes, not threads); under `mpirun` the points
 * are dealt over the ranks and rank 0 writes the table.
 *
 * The table is its own journal: rows are appended in point order as they
 * become contiguous, and a run given an existing table skips the points it
 * holds (after checking its columns are this sweep's).  At the end the
 * table is rewritten whole, in point order, under a temporary name renamed
 * over it: the result is the same bytes whatever -j, the ranks, or the
 * interruptions.  Figures that depend on the run (wall time) go to stderr,
 * never into the table. */
#include "pti-config.h"
#include "wsl-private.h"
#include "bounds.h"
#include "xml.h"
#include "cli-options.h"
#include "ptisweep.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <glib/gstdio.h>

#ifdef PTI_HAVE_MPI
#include <mpi.h>
#endif

#define MAX_POINTS 10000000u   /* a guard against a range typed with the wrong step */
#define TAG_ROW 1

static const char *program = "ptisweep";
static int mpi_rank = 0, mpi_size = 1;
static gboolean mpi_on = FALSE;

/* ---- numbers as text ----------------------------------------------------- */

/* The shortest of %.15g..%.17g that reads back as @v: "0.1", not
 * "0.10000000000000001"; the same text for the same double everywhere.
 * Empty for NaN or infinity (a missing figure). */
char *
pti_sweep_number (double v)
{
  if (!isfinite (v))
    return g_strdup ("");
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  for (int digits = 15; digits <= 17; digits++) {
    g_ascii_formatd (buf, sizeof buf, digits == 15 ? "%.15g" : digits == 16 ? "%.16g" : "%.17g", v);
    if (g_ascii_strtod (buf, NULL) == v)
      break;
  }
  return g_strdup (buf);
}

static gboolean
parse_number (const char *text, double *out)
{
  char *end = NULL;
  if (text[0] == '\0' || g_ascii_isspace (text[0]))
    return FALSE;
  errno = 0;
  *out = g_ascii_strtod (text, &end);
  return end != text && *end == '\0' && errno == 0 && isfinite (*out);
}

/* ---- the sweep ----------------------------------------------------------- */

static void
param_free (SweepParam *p)
{
  g_free (p->name);
  g_array_unref (p->values);
  g_strfreev (p->texts);
  g_free (p);
}

/* "NAME=ITEM[,ITEM...]", ITEM a number or START:STOP:STEP (STOP included
 * when the steps land on it). */
static SweepParam *
param_parse (const char *arg, GError **error)
{
  const char *eq = strchr (arg, '=');
  if (eq == NULL || eq == arg) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_USAGE,
                 "-D %s: expected NAME=VALUES, VALUES a list like 2,4,8 or a range START:STOP:STEP",
                 arg);
    return NULL;
  }
  SweepParam *p = g_new0 (SweepParam, 1);
  p->name = g_strndup (arg, eq - arg);
  p->values = g_array_new (FALSE, FALSE, sizeof (double));
  g_auto (GStrv) items = g_strsplit (eq + 1, ",", -1);
  for (guint i = 0; items[i] != NULL; i++) {
    char *item = g_strstrip (items[i]);
    g_auto (GStrv) r = g_strsplit (item, ":", -1);
    guint n = g_strv_length (r);
    double v[3];
    gboolean ok = n >= 1 && n <= 3 && n != 2;
    for (guint k = 0; ok && k < n; k++)
      ok = parse_number (g_strstrip (r[k]), &v[k]);
    if (!ok) {
      g_set_error (error, PTI_ERROR, PTI_ERROR_USAGE,
                   "-D %s: '%s' is neither a number nor a range START:STOP:STEP", arg, item);
      goto fail;
    }
    if (n == 1) {
      g_array_append_val (p->values, v[0]);
      continue;
    }
    if (!(v[2] > 0) || v[1] < v[0]) {
      g_set_error (error, PTI_ERROR, PTI_ERROR_USAGE,
                   "-D %s: range '%s' must have START <= STOP and a STEP above 0", arg, item);
      goto fail;
    }
    double steps = floor ((v[1] - v[0]) / v[2] + 1e-9);
    if (steps + 1 > MAX_POINTS) {
      g_set_error (error, PTI_ERROR, PTI_ERROR_USAGE,
                   "-D %s: range '%s' has %.0f values, more than %u", arg, item, steps + 1, MAX_POINTS);
      goto fail;
    }
    for (double k = 0; k <= steps; k++) {
      /* Decimal steps as the user means them: 0.1 + 2 * 0.1 is 0.3. */
      char buf[G_ASCII_DTOSTR_BUF_SIZE];
      double x = g_ascii_strtod (g_ascii_formatd (buf, sizeof buf, "%.15g", v[0] + k * v[2]), NULL);
      g_array_append_val (p->values, x);
    }
  }
  p->texts = g_new0 (char *, p->values->len + 1);
  for (guint i = 0; i < p->values->len; i++) {
    p->texts[i] = pti_sweep_number (g_array_index (p->values, double, i));
    for (guint j = 0; j < i; j++)
      if (strcmp (p->texts[j], p->texts[i]) == 0) {
        g_set_error (error, PTI_ERROR, PTI_ERROR_USAGE, "-D %s: value %s is given twice", arg,
                     p->texts[i]);
        goto fail;
      }
  }
  return p;
fail:
  param_free (p);
  return NULL;
}

void
pti_sweep_free (Sweep *sw)
{
  if (sw == NULL)
    return;
  g_clear_pointer (&sw->params, g_ptr_array_unref);
  g_strfreev (sw->systems);
  g_free (sw->workload);
  g_clear_pointer (&sw->asserts, g_ptr_array_unref);
  g_clear_pointer (&sw->columns, g_ptr_array_unref);
  g_free (sw->model_path);
  g_free (sw->header);
  g_free (sw);
}

/* The value indices of point @index: systems outermost, then the
 * parameters in the order of their -D options, the last varying fastest. */
void
pti_sweep_point (const Sweep *sw, guint64 index, guint *system, guint *values)
{
  for (guint k = sw->params->len; k-- > 0;) {
    const SweepParam *p = g_ptr_array_index (sw->params, k);
    values[k] = index % p->values->len;
    index /= p->values->len;
  }
  *system = (guint) index;
}

/* What the workload file declares: its parameters and assertions (checked
 * against its schema, so a bad file fails here once, not at every point). */
static gboolean
scan_workload (Sweep *sw, GPtrArray *declared, GError **error)
{
  g_autoptr (xmlDoc) doc = pti_workload_file_read (sw->workload, error);
  if (doc == NULL)
    return FALSE;
  xmlNode *root = xmlDocGetRootElement (doc);
  for (xmlNode *c = pti_xml_first_element (root); c != NULL; c = pti_xml_next_element (c))
    if (strcmp ((const char *) c->name, "param") == 0)
      g_ptr_array_add (declared, pti_xml_attr (c, "name"));
  /* Assertions may sit anywhere (phases, the program): document order. */
  GPtrArray *stack = g_ptr_array_new ();
  g_ptr_array_add (stack, root);
  while (stack->len > 0) {
    xmlNode *n = g_ptr_array_steal_index (stack, stack->len - 1);
    if (strcmp ((const char *) n->name, "assert") == 0) {
      char *name = pti_xml_attr (n, "name");
      if (name != NULL && !g_ptr_array_find_with_equal_func (sw->asserts, name, g_str_equal, NULL))
        g_ptr_array_add (sw->asserts, name);
      else
        g_free (name);
    }
    g_autoptr (GPtrArray) kids = g_ptr_array_new ();
    for (xmlNode *c = pti_xml_first_element (n); c != NULL; c = pti_xml_next_element (c))
      g_ptr_array_add (kids, c);
    for (guint i = kids->len; i-- > 0;)
      g_ptr_array_add (stack, kids->pdata[i]);
  }
  g_ptr_array_unref (stack);
  return TRUE;
}

static const char *const figure_columns[] = {
  "predicted_time_s", "events", "processes", "compute_mean_s", "compute_max_s", "comm_mean_s",
  "comm_max_s", "wait_mean_s", "wait_max_s", "efficiency",
};

static void
make_columns (Sweep *sw)
{
  sw->columns = g_ptr_array_new_with_free_func (g_free);
  for (guint k = 0; k < sw->params->len; k++)
    g_ptr_array_add (sw->columns, g_strdup (((SweepParam *) sw->params->pdata[k])->name));
  /* the workload in every row, as the system is: a table says what it
   * predicted, and resuming it with another workload is refused */
  sw->col_workload = sw->columns->len;
  g_ptr_array_add (sw->columns, g_strdup ("workload"));
  sw->col_system = sw->columns->len;
  g_ptr_array_add (sw->columns, g_strdup ("system"));
  sw->col_time = sw->columns->len;
  for (guint i = 0; i < G_N_ELEMENTS (figure_columns); i++)
    g_ptr_array_add (sw->columns, g_strdup (figure_columns[i]));
  sw->col_bounds = sw->columns->len;
  if (sw->bounds != PTI_BOUNDS_NONE) {
    g_ptr_array_add (sw->columns, g_strdup ("time_lower_s"));
    g_ptr_array_add (sw->columns, g_strdup ("time_upper_s"));
  }
  sw->col_assert = sw->columns->len;
  for (guint i = 0; i < sw->asserts->len; i++)
    g_ptr_array_add (sw->columns, g_strconcat ("assert:", (char *) sw->asserts->pdata[i], NULL));
  sw->col_error = sw->columns->len;
  g_ptr_array_add (sw->columns, g_strdup ("error"));
}

/* ---- one point ------------------------------------------------------------ */

/* Pass / fail of each of the workload's assertions into @fields (from
 * sw->col_assert); empty where the evaluation reported none of that name. */
static void
fill_assertions (const Sweep *sw, const PtiContext *ctx, char **fields)
{
  guint n = pti_result_n_assertions (ctx);
  for (guint i = 0; i < n; i++) {
    PtiAssertionResult a;
    if (!pti_result_assertion (ctx, i, &a) || a.name == NULL)
      continue;
    guint col;
    if (g_ptr_array_find_with_equal_func (sw->asserts, a.name, g_str_equal, &col)) {
      g_free (fields[sw->col_assert + col]);
      fields[sw->col_assert + col] = g_strdup (a.passed ? "pass" : "fail");
    }
  }
}

/* Error messages sit in one table cell: no line breaks. */
static char *
one_line (const char *msg)
{
  char *s = g_strdup (msg);
  for (char *c = s; *c; c++)
    if (*c == '\n' || *c == '\r')
      *c = ' ';
  return s;
}

/* One evaluation of a point: system @system, the parameters' texts
 * @values, ranges taking the ends @ranges chose. */
typedef struct {
  const Sweep *sw;
  guint system;
  char **values;
} SweepRun;

static PtiContext *
sweep_run (const SweepRun *r, PtiRanges *ranges, GError **error)
{
  const Sweep *sw = r->sw;
  g_autoptr (PtiContext) ctx = pti_context_new_ranged (sw->systems[r->system], sw->model_path,
                                                       NULL, ranges, error);
  if (ctx == NULL)
    return NULL;
  for (guint k = 0; k < sw->params->len; k++)
    if (!pti_context_override_param (ctx, ((SweepParam *) sw->params->pdata[k])->name,
                                     r->values[k], error))
      return NULL;
  pti_context_set_trace (ctx, NULL);
  if (!pti_workload_file_build (ctx, sw->workload, error) || !pti_evaluate (ctx, error))
    return NULL;
  return g_steal_pointer (&ctx);
}

/* A bound's run (wsl/bounds.h). */
static gboolean
sweep_bound_run (PtiRanges *ranges, const char *trace, double *time, gpointer data,
                 GError **error)
{
  g_autoptr (PtiContext) ctx = sweep_run (data, ranges, error);
  if (ctx == NULL)
    return FALSE;
  *time = pti_result_time (ctx);
  return TRUE;
}

/* Evaluates point @index; returns its row (sw->columns->len fields, owned). */
static char **
pti_sweep_evaluate (const Sweep *sw, guint64 index)
{
  guint ncol = sw->columns->len;
  char **f = g_new0 (char *, ncol + 1);
  g_autofree guint *vi = g_new0 (guint, sw->params->len + 1);
  guint s;
  pti_sweep_point (sw, index, &s, vi);
  for (guint k = 0; k < sw->params->len; k++)
    f[k] = g_strdup (((SweepParam *) sw->params->pdata[k])->texts[vi[k]]);
  f[sw->col_workload] = g_strdup (sw->workload);
  f[sw->col_system] = g_strdup (sw->systems[s]);
  for (guint c = sw->col_system + 1; c < ncol; c++)
    f[c] = g_strdup ("");

  g_autoptr (GError) error = NULL;
  g_autoptr (PtiRanges) ranges = pti_ranges_new ();
  SweepRun run = { .sw = sw, .system = s, .values = f };
  g_autoptr (PtiContext) ctx = sweep_run (&run, ranges, &error);
  PtiBounds bounds = { 0 };
  if (ctx != NULL && sw->bounds != PTI_BOUNDS_NONE
      && pti_bounds_compute (ranges, sw->bounds, sw->bounds_limit, pti_result_time (ctx), NULL,
                             NULL, sweep_bound_run, &run, &bounds, &error)) {
    g_free (f[sw->col_bounds]);
    g_free (f[sw->col_bounds + 1]);
    f[sw->col_bounds] = pti_sweep_number (bounds.lower);
    f[sw->col_bounds + 1] = pti_sweep_number (bounds.upper);
  }
  pti_bounds_clear (&bounds);
  if (error != NULL) {
    g_free (f[sw->col_error]);
    f[sw->col_error] = one_line (error->message);
    return f;
  }
  guint n = pti_context_get_processes (ctx);
  double t = pti_result_time (ctx);
  double sum[3] = { 0 }, max[3] = { 0 };
  for (guint r = 0; r < n; r++) {
    PtiProcessResult pr;
    pti_result_process (ctx, r, &pr);
    double v[3] = { pr.compute, pr.comm, pr.wait };
    for (guint i = 0; i < 3; i++) {
      sum[i] += v[i];
      max[i] = MAX (max[i], v[i]);
    }
  }
  double figures[G_N_ELEMENTS (figure_columns)] = {
    t, (double) pti_result_events (ctx), n, sum[0] / n, max[0], sum[1] / n, max[1], sum[2] / n,
    max[2], pti_result_efficiency (ctx),
  };
  for (guint i = 0; i < G_N_ELEMENTS (figures); i++) {
    g_free (f[sw->col_time + i]);
    f[sw->col_time + i] = i == 1 ? g_strdup_printf ("%" G_GUINT64_FORMAT, pti_result_events (ctx))
                                 : pti_sweep_number (figures[i]);
  }
  fill_assertions (sw, ctx, f);
  return f;
}

/* ---- the table ------------------------------------------------------------- */

static void
csv_field (GString *s, const char *v)
{
  if (strpbrk (v, ",\"\n\r") == NULL && v[0] != ' ') {
    g_string_append (s, v);
    return;
  }
  g_string_append_c (s, '"');
  for (const char *c = v; *c; c++) {
    if (*c == '"')
      g_string_append_c (s, '"');
    g_string_append_c (s, *c);
  }
  g_string_append_c (s, '"');
}

static void
json_string (GString *s, const char *v)
{
  g_string_append_c (s, '"');
  for (const unsigned char *c = (const unsigned char *) v; *c; c++) {
    if (*c == '"' || *c == '\\')
      g_string_append_printf (s, "\\%c", *c);
    else if (*c < 0x20 || *c == 0x7f)
      g_string_append_printf (s, "\\u%04x", *c);
    else
      g_string_append_c (s, (char) *c);
  }
  g_string_append_c (s, '"');
}

/* Columns holding numbers (JSON numbers, null when empty); the others are
 * strings (workload, system, assertions, error). */
static gboolean
numeric_column (const Sweep *sw, guint c)
{
  return c < sw->col_workload || (c >= sw->col_time && c < sw->col_assert);
}

static char *
make_header (const Sweep *sw)
{
  GString *s = g_string_new (NULL);
  if (!sw->json) {
    for (guint c = 0; c < sw->columns->len; c++) {
      if (c)
        g_string_append_c (s, ',');
      csv_field (s, sw->columns->pdata[c]);
    }
  } else {
    g_string_append (s, "{\"workload\": ");
    json_string (s, sw->workload);
    g_string_append (s, ", \"columns\": [");
    for (guint c = 0; c < sw->columns->len; c++) {
      if (c)
        g_string_append (s, ", ");
      json_string (s, sw->columns->pdata[c]);
    }
    g_string_append (s, "], \"rows\": [");
  }
  return g_string_free (s, FALSE);
}

/* One row as a line of the table, without the line end (and, in JSON,
 * without the comma between rows). */
static void
format_row (const Sweep *sw, char **f, GString *s)
{
  if (!sw->json) {
    for (guint c = 0; c < sw->columns->len; c++) {
      if (c)
        g_string_append_c (s, ',');
      csv_field (s, f[c]);
    }
    return;
  }
  g_string_append_c (s, '{');
  for (guint c = 0; c < sw->columns->len; c++) {
    if (c)
      g_string_append (s, ", ");
    json_string (s, sw->columns->pdata[c]);
    g_string_append (s, ": ");
    if (f[c][0] == '\0')
      g_string_append (s, "null");
    else if (numeric_column (sw, c))
      g_string_append (s, f[c]);
    else
      json_string (s, f[c]);
  }
  g_string_append_c (s, '}');
}

/* Parses a line format_row wrote back into fields; FALSE if it is not one. */
static gboolean
parse_csv_row (const char *line, GPtrArray *out)
{
  const char *p = line;
  for (;;) {
    GString *f = g_string_new (NULL);
    if (*p == '"') {
      p++;
      for (;;) {
        if (*p == '\0') {
          g_string_free (f, TRUE);
          return FALSE;
        }
        if (*p == '"' && p[1] == '"') {
          g_string_append_c (f, '"');
          p += 2;
        } else if (*p == '"') {
          p++;
          break;
        } else {
          g_string_append_c (f, *p++);
        }
      }
    } else {
      while (*p != ',' && *p != '\0')
        g_string_append_c (f, *p++);
    }
    g_ptr_array_add (out, g_string_free (f, FALSE));
    if (*p == '\0')
      return TRUE;
    if (*p != ',')
      return FALSE;
    p++;
  }
}

static const char *
skip_blank (const char *p)
{
  while (*p == ' ')
    p++;
  return p;
}

/* A JSON string at @p (after its quote); NULL if malformed. */
static char *
parse_json_string (const char **pp)
{
  const char *p = *pp;
  GString *s = g_string_new (NULL);
  for (;;) {
    if (*p == '\0')
      goto bad;
    if (*p == '"')
      break;
    if (*p == '\\') {
      p++;
      switch (*p) {
      case '"': case '\\': case '/': g_string_append_c (s, *p); p++; break;
      case 'n': g_string_append_c (s, '\n'); p++; break;
      case 't': g_string_append_c (s, '\t'); p++; break;
      case 'r': g_string_append_c (s, '\r'); p++; break;
      case 'u': {
        char hex[5] = { 0 };
        for (int i = 0; i < 4; i++) {
          if (!g_ascii_isxdigit (p[1 + i]))
            goto bad;
          hex[i] = p[1 + i];
        }
        g_string_append_unichar (s, (gunichar) strtoul (hex, NULL, 16));
        p += 5;
        break;
      }
      default:
        goto bad;
      }
    } else {
      g_string_append_c (s, *p++);
    }
  }
  *pp = p + 1;
  return g_string_free (s, FALSE);
bad:
  g_string_free (s, TRUE);
  return NULL;
}

/* A flat JSON object whose keys are @sw's columns in order. */
static gboolean
parse_json_row (const Sweep *sw, const char *line, GPtrArray *out)
{
  const char *p = skip_blank (line);
  if (*p++ != '{')
    return FALSE;
  for (guint c = 0; c < sw->columns->len; c++) {
    p = skip_blank (p);
    if (c > 0 && *p++ != ',')
      return FALSE;
    p = skip_blank (p);
    if (*p++ != '"')
      return FALSE;
    g_autofree char *key = parse_json_string (&p);
    if (key == NULL || strcmp (key, sw->columns->pdata[c]) != 0)
      return FALSE;
    p = skip_blank (p);
    if (*p++ != ':')
      return FALSE;
    p = skip_blank (p);
    char *v;
    if (*p == '"') {
      p++;
      if ((v = parse_json_string (&p)) == NULL)
        return FALSE;
    } else {
      const char *e = p;
      while (*e != ',' && *e != '}' && *e != '\0' && *e != ' ')
        e++;
      v = e - p == 4 && strncmp (p, "null", 4) == 0 ? g_strdup ("") : g_strndup (p, e - p);
      p = e;
    }
    g_ptr_array_add (out, v);
  }
  p = skip_blank (p);
  if (*p++ != '}')
    return FALSE;
  return strcmp (p, "") == 0 || strcmp (p, ",") == 0;
}

/* The key of a row: its parameter values and system. */
static char *
row_key (const Sweep *sw, char **f)
{
  GString *s = g_string_new (NULL);
  for (guint c = 0; c <= sw->col_system; c++) {
    g_string_append (s, f[c]);
    g_string_append_c (s, '\x1f');
  }
  return g_string_free (s, FALSE);
}

/* Reads an existing table: checks its columns are this sweep's and files
 * every complete row under its point in @rows.  A last line cut short (the
 * sweep was interrupted while writing it) is dropped: *@keep is the length
 * of the file up to it, where appending resumes.  In a JSON table that was
 * finished, the closing line is dropped the same way. */
static gboolean
journal_load (Sweep *sw, char ***rows, goffset *keep, GError **error)
{
  g_autofree char *text = NULL;
  gsize len = 0;
  *keep = 0;
  if (!g_file_test (sw->output, G_FILE_TEST_EXISTS))
    return TRUE;
  if (!g_file_get_contents (sw->output, &text, &len, error)) {
    g_prefix_error (error, "cannot resume from -o %s: ", sw->output);
    return FALSE;
  }
  if (len == 0)
    return TRUE;
  if (memchr (text, '\0', len) != NULL) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "%s: not a ptisweep table (binary data); give another -o or remove it",
                 sw->output);
    return FALSE;
  }
  /* Its lines are quoted in the messages below: text first. */
  const char *bad = NULL;
  if (!g_utf8_validate_len (text, len, &bad)) {
    guint line = 1;
    for (const char *c = text; c < bad; c++)
      line += *c == '\n';
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "%s:%u: not a ptisweep table (not UTF-8 text: byte 0x%02X); give another -o or "
                 "remove it", sw->output, line, (guchar) *bad);
    return FALSE;
  }
  /* The points by key, to file the rows under. */
  g_autoptr (GHashTable) index = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  {
    g_autofree guint *vi = g_new0 (guint, sw->params->len + 1);
    char **f = g_new0 (char *, sw->col_system + 2);
    for (guint64 i = 0; i < sw->n_points; i++) {
      guint s;
      pti_sweep_point (sw, i, &s, vi);
      for (guint k = 0; k < sw->params->len; k++)
        f[k] = ((SweepParam *) sw->params->pdata[k])->texts[vi[k]];
      f[sw->col_workload] = sw->workload;
      f[sw->col_system] = sw->systems[s];
      g_hash_table_insert (index, row_key (sw, f), GSIZE_TO_POINTER ((gsize) i + 1));
    }
    g_free (f);
  }
  const char *p = text, *end = text + len;
  guint lineno = 0;
  while (p < end) {
    const char *nl = memchr (p, '\n', end - p);
    if (nl == NULL)
      break;   /* cut short: dropped */
    lineno++;
    g_autofree char *line = g_strndup (p, nl - p);
    if (lineno == 1) {
      if (strcmp (line, sw->header) != 0) {
        g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                     "%s:1: its columns are not this sweep's (it has \"%.200s\", this sweep "
                     "writes \"%.200s\"): the parameters, systems or workload differ; give "
                     "another -o or remove it", sw->output, line, sw->header);
        return FALSE;
      }
      p = nl + 1;
      *keep = p - text;
      continue;
    }
    if (sw->json && strcmp (line, "]}") == 0)
      break;   /* the end of a finished table: rows are appended before it */
    g_autoptr (GPtrArray) f = g_ptr_array_new_with_free_func (g_free);
    gboolean ok = sw->json ? parse_json_row (sw, line, f) : parse_csv_row (line, f);
    if (!ok || f->len != sw->columns->len) {
      g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                   "%s:%u: not a row of this sweep (expected %u columns: %s, ...); give "
                   "another -o or remove it", sw->output, lineno, sw->columns->len,
                   (char *) sw->columns->pdata[0]);
      return FALSE;
    }
    g_ptr_array_add (f, NULL);
    char **fields = (char **) f->pdata;
    g_autofree char *key = row_key (sw, fields);
    gsize at = GPOINTER_TO_SIZE (g_hash_table_lookup (index, key));
    if (at == 0) {
      g_autoptr (GString) desc = g_string_new (NULL);
      for (guint c = 0; c <= sw->col_system; c++)
        g_string_append_printf (desc, "%s%s=%s", c ? " " : "", (char *) sw->columns->pdata[c],
                                fields[c]);
      g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                   "%s:%u: row %s is not a point of this sweep (its -D values, workload or "
                   "systems differ); give another -o or remove it", sw->output, lineno, desc->str);
      return FALSE;
    }
    if (rows[at - 1] != NULL) {
      g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s:%u: a second row for one point",
                   sw->output, lineno);
      return FALSE;
    }
    rows[at - 1] = (char **) g_ptr_array_free (g_steal_pointer (&f), FALSE);
    p = nl + 1;
    *keep = p - text;
  }
  return TRUE;
}

/* ---- running the points ------------------------------------------------------ */

typedef struct {
  Sweep *sw;
  char ***rows;         /* by point: its fields once known */
  guint64 *order;       /* the points to evaluate, in point order */
  guint64 n_order;
  guint64 flushed;      /* order[0 .. flushed) are in the journal */
  FILE *journal;        /* rank 0 */
  guint64 received;
  gboolean write_failed;
} Run;

/* Rank 0: appends the rows now contiguous from the start of what is left. */
static void
run_flush (Run *run)
{
  g_autoptr (GString) s = g_string_new (NULL);
  while (run->flushed < run->n_order && run->rows[run->order[run->flushed]] != NULL) {
    g_string_truncate (s, 0);
    format_row (run->sw, run->rows[run->order[run->flushed]], s);
    g_string_append (s, run->sw->json ? ",\n" : "\n");
    if (fwrite (s->str, 1, s->len, run->journal) != s->len)
      run->write_failed = TRUE;
    run->flushed++;
  }
  if (fflush (run->journal) != 0)
    run->write_failed = TRUE;
}

/* Fields travel as one buffer: the point's index, then the fields, each
 * ending with a NUL. */
static GByteArray *
pack_row (guint64 index, char **f, guint n)
{
  GByteArray *b = g_byte_array_new ();
  g_byte_array_append (b, (const guint8 *) &index, sizeof index);
  for (guint c = 0; c < n; c++)
    g_byte_array_append (b, (const guint8 *) f[c], strlen (f[c]) + 1);
  return b;
}

static gboolean
unpack_row (const guint8 *data, gsize len, guint n, guint64 *index, char ***fields)
{
  if (len < sizeof *index)
    return FALSE;
  memcpy (index, data, sizeof *index);
  char **f = g_new0 (char *, n + 1);
  gsize at = sizeof *index;
  for (guint c = 0; c < n; c++) {
    const guint8 *nul = at < len ? memchr (data + at, '\0', len - at) : NULL;
    if (nul == NULL) {
      g_strfreev (f);
      return FALSE;
    }
    f[c] = g_strdup ((const char *) data + at);
    at = nul - data + 1;
  }
  *fields = f;
  return at == len;
}

/* A row is done: filed (and flushed) on rank 0, sent to rank 0 elsewhere. */
static void
run_deliver (Run *run, guint64 index, char **f)
{
  if (mpi_rank != 0) {
#ifdef PTI_HAVE_MPI
    g_autoptr (GByteArray) b = pack_row (index, f, run->sw->columns->len);
    MPI_Send (b->data, (int) b->len, MPI_BYTE, 0, TAG_ROW, MPI_COMM_WORLD);
#endif
    g_strfreev (f);
    return;
  }
  run->rows[index] = f;
  run->received++;
  run_flush (run);
}

/* Rank 0: takes the rows other ranks have sent (@block: wait for one). */
static gboolean
run_receive (Run *run, gboolean block, GError **error)
{
#ifdef PTI_HAVE_MPI
  if (!mpi_on || mpi_rank != 0)
    return TRUE;
  for (;;) {
    int flag = 0;
    MPI_Status st;
    if (block) {
      MPI_Probe (MPI_ANY_SOURCE, TAG_ROW, MPI_COMM_WORLD, &st);
      flag = 1;
      block = FALSE;
    } else {
      MPI_Iprobe (MPI_ANY_SOURCE, TAG_ROW, MPI_COMM_WORLD, &flag, &st);
    }
    if (!flag)
      return TRUE;
    int len = 0;
    MPI_Get_count (&st, MPI_BYTE, &len);
    g_autofree guint8 *buf = g_malloc (MAX (len, 1));
    MPI_Recv (buf, len, MPI_BYTE, st.MPI_SOURCE, TAG_ROW, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    guint64 index;
    char **f;
    if (!unpack_row (buf, len, run->sw->columns->len, &index, &f) || index >= run->sw->n_points
        || run->rows[index] != NULL) {
      g_set_error (error, PTI_ERROR, PTI_ERROR_FAILED, "rank %d sent a malformed row",
                   st.MPI_SOURCE);
      return FALSE;
    }
    run_deliver (run, index, f);
  }
#else
  (void) run;
  (void) block;
  (void) error;
  return TRUE;
#endif
}

/* ---- worker processes (-j) ---------------------------------------------------- */

typedef struct {
  pid_t pid;
  int cmd, res;          /* parent's ends: point indices out, rows in */
  gboolean busy;
  guint64 point;
  GByteArray *in;        /* a row being read */
} Worker;

static gboolean
write_all (int fd, const void *data, gsize len)
{
  const guint8 *p = data;
  while (len > 0) {
    ssize_t w = write (fd, p, len);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return FALSE;
    p += w;
    len -= w;
  }
  return TRUE;
}

static gboolean
read_all (int fd, void *data, gsize len)
{
  guint8 *p = data;
  while (len > 0) {
    ssize_t r = read (fd, p, len);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      return FALSE;
    p += r;
    len -= r;
  }
  return TRUE;
}

/* A worker: evaluates the points it is sent until its input closes. */
G_GNUC_NORETURN static void
worker_main (const Sweep *sw, int cmd, int res)
{
  guint64 index;
  while (read_all (cmd, &index, sizeof index)) {
    char **f = pti_sweep_evaluate (sw, index);
    g_autoptr (GByteArray) b = pack_row (index, f, sw->columns->len);
    g_strfreev (f);
    guint32 len = b->len;
    if (!write_all (res, &len, sizeof len) || !write_all (res, b->data, b->len))
      _exit (1);
  }
  _exit (0);
}

static gboolean
workers_start (Sweep *sw, Worker *w, guint n, GError **error)
{
  fflush (NULL);
  for (guint i = 0; i < n; i++) {
    int cmd[2], res[2];
    if (pipe (cmd) != 0 || pipe (res) != 0) {
      g_set_error (error, PTI_ERROR, PTI_ERROR_FAILED, "cannot make a pipe: %s", g_strerror (errno));
      return FALSE;
    }
    pid_t pid = fork ();
    if (pid < 0) {
      g_set_error (error, PTI_ERROR, PTI_ERROR_FAILED, "cannot fork worker %u: %s", i,
                   g_strerror (errno));
      return FALSE;
    }
    if (pid == 0) {
      close (cmd[1]);
      close (res[0]);
      for (guint k = 0; k < i; k++) {
        close (w[k].cmd);
        close (w[k].res);
      }
      worker_main (sw, cmd[0], res[1]);
    }
    close (cmd[0]);
    close (res[1]);
    w[i] = (Worker) { .pid = pid, .cmd = cmd[1], .res = res[0], .in = g_byte_array_new () };
  }
  return TRUE;
}

static void
workers_stop (Worker *w, guint n)
{
  for (guint i = 0; i < n; i++) {
    if (w[i].cmd >= 0)
      close (w[i].cmd);
    if (w[i].res >= 0)
      close (w[i].res);
    if (w[i].pid > 0)
      waitpid (w[i].pid, NULL, 0);
    if (w[i].in)
      g_byte_array_unref (w[i].in);
  }
}

/* Why worker @w stopped, for the error naming its point. */
static char *
worker_death (Worker *w)
{
  int status = 0;
  pid_t pid = w->pid;
  w->pid = 0;
  if (waitpid (pid, &status, 0) == pid && WIFSIGNALED (status))
    return g_strdup_printf ("killed by signal %d (%s)", WTERMSIG (status),
                            g_strsignal (WTERMSIG (status)));
  return g_strdup_printf ("exited with status %d", WIFEXITED (status) ? WEXITSTATUS (status) : -1);
}

static char *
point_text (const Sweep *sw, guint64 index)
{
  g_autofree guint *vi = g_new0 (guint, sw->params->len + 1);
  guint s;
  pti_sweep_point (sw, index, &s, vi);
  GString *d = g_string_new (NULL);
  for (guint k = 0; k < sw->params->len; k++) {
    const SweepParam *p = sw->params->pdata[k];
    g_string_append_printf (d, "%s=%s ", p->name, p->texts[vi[k]]);
  }
  g_string_append_printf (d, "system=%s", sw->systems[s]);
  return g_string_free (d, FALSE);
}

/* Evaluates @mine (point indices) on @jobs processes, delivering each row. */
static gboolean
run_points (Run *run, const guint64 *mine, guint64 n_mine, guint jobs, GError **error)
{
  Sweep *sw = run->sw;
  if (jobs <= 1 || n_mine <= 1) {
    for (guint64 i = 0; i < n_mine; i++) {
      run_deliver (run, mine[i], pti_sweep_evaluate (sw, mine[i]));
      if (!run_receive (run, FALSE, error))
        return FALSE;
    }
    return TRUE;
  }
  jobs = (guint) MIN ((guint64) jobs, n_mine);
  g_autofree Worker *w = g_new0 (Worker, jobs);
  for (guint i = 0; i < jobs; i++)
    w[i].cmd = w[i].res = -1;
  gboolean ok = workers_start (sw, w, jobs, error);
  guint64 next = 0, done = 0;
  g_autofree struct pollfd *pfd = g_new0 (struct pollfd, jobs);
  while (ok && done < n_mine) {
    for (guint i = 0; i < jobs && next < n_mine; i++)
      if (!w[i].busy) {
        w[i].point = mine[next++];
        w[i].busy = TRUE;
        if (!write_all (w[i].cmd, &w[i].point, sizeof w[i].point)) {
          g_autofree char *why = worker_death (&w[i]);
          g_autofree char *pt = point_text (sw, w[i].point);
          g_set_error (error, PTI_ERROR, PTI_ERROR_FAILED, "worker %u %s before point %s", i,
                       why, pt);
          ok = FALSE;
          break;
        }
      }
    if (!ok)
      break;
    for (guint i = 0; i < jobs; i++)
      pfd[i] = (struct pollfd) { .fd = w[i].busy ? w[i].res : -1, .events = POLLIN };
    int rc = poll (pfd, jobs, mpi_on ? 5 : -1);
    if (rc < 0 && errno != EINTR) {
      g_set_error (error, PTI_ERROR, PTI_ERROR_FAILED, "poll: %s", g_strerror (errno));
      ok = FALSE;
      break;
    }
    for (guint i = 0; ok && rc > 0 && i < jobs; i++) {
      if (!(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      guint8 buf[65536];
      ssize_t r = read (w[i].res, buf, sizeof buf);
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0) {
        g_autofree char *why = worker_death (&w[i]);
        g_autofree char *pt = point_text (sw, w[i].point);
        g_set_error (error, PTI_ERROR, PTI_ERROR_FAILED,
                     "the worker evaluating point %s %s; the rows before it are kept in %s",
                     pt, why, sw->output);
        ok = FALSE;
        break;
      }
      g_byte_array_append (w[i].in, buf, r);
      guint32 len;
      if (w[i].in->len >= sizeof len) {
        memcpy (&len, w[i].in->data, sizeof len);
        g_assert (w[i].in->len <= sizeof len + (gsize) len);
        if (w[i].in->len == sizeof len + (gsize) len) {
          guint64 index;
          char **f;
          if (!unpack_row (w[i].in->data + sizeof len, len, sw->columns->len, &index, &f)
              || index != w[i].point) {
            g_set_error (error, PTI_ERROR, PTI_ERROR_FAILED, "worker %u sent a malformed row", i);
            ok = FALSE;
            break;
          }
          g_byte_array_set_size (w[i].in, 0);
          w[i].busy = FALSE;
          done++;
          run_deliver (run, index, f);
        }
      }
    }
    if (ok && !run_receive (run, FALSE, error))
      ok = FALSE;
  }
  workers_stop (w, jobs);
  return ok;
}

/* ---- main ------------------------------------------------------------------ */

static int
exit_code_for (const GError *error)
{
  if (error->domain == G_OPTION_ERROR)
    return 2;
  if (error->domain != PTI_ERROR)
    return 1;
  switch ((PtiError) error->code) {
  case PTI_ERROR_USAGE:
    return 2;
  case PTI_ERROR_INVALID:
  case PTI_ERROR_DEADLOCK:
  case PTI_ERROR_MODEL:
    return 3;
  default:
    return 1;
  }
}

/* Every rank checks the command line and the inputs alike and fails alike,
 * so a mistake found before the points are dealt ends each rank on its own;
 * a failure while they run (a worker killed, a write refused) is one rank's,
 * and takes the others down with it rather than leaving rank 0 waiting. */
static gboolean points_dealt = FALSE;

static int
finish (int code)
{
#ifdef PTI_HAVE_MPI
  if (mpi_on) {
    if (code != 0 && points_dealt && mpi_size > 1)
      MPI_Abort (MPI_COMM_WORLD, code);
    MPI_Finalize ();
  }
#endif
  return code;
}

static int
fail (const GError *error)
{
  if (mpi_rank == 0)
    fprintf (stderr, "%s: error: %s\n", program, error->message);
  return finish (exit_code_for (error));
}

/* Rewrites the table whole, in point order, and renames it over -o. */
static gboolean
table_write (const Sweep *sw, char ***rows, GError **error)
{
  g_autofree char *tmp = g_strdup_printf ("%s.tmp%d", sw->output, (int) getpid ());
  FILE *fp = fopen (tmp, "w");
  if (fp == NULL) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_IO, "cannot write %s: %s", tmp, g_strerror (errno));
    return FALSE;
  }
  g_autoptr (GString) s = g_string_new (sw->header);
  g_string_append_c (s, '\n');
  for (guint64 i = 0; i < sw->n_points; i++) {
    format_row (sw, rows[i], s);
    g_string_append (s, sw->json && i + 1 < sw->n_points ? ",\n" : "\n");
    if (s->len > 65536 || i + 1 == sw->n_points) {
      fwrite (s->str, 1, s->len, fp);
      g_string_truncate (s, 0);
    }
  }
  if (sw->json)
    g_string_append (s, "]}\n");
  fwrite (s->str, 1, s->len, fp);
  gboolean ok = !ferror (fp);
  ok = fclose (fp) == 0 && ok;
  if (!ok || g_rename (tmp, sw->output) != 0) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_IO, "cannot write %s: %s", sw->output,
                 g_strerror (errno));
    g_unlink (tmp);
    return FALSE;
  }
  return TRUE;
}

/* Under mpirun (Open MPI sets these), else alone without calling MPI. */
static void
mpi_start (int *argc, char ***argv)
{
#ifdef PTI_HAVE_MPI
  if (g_getenv ("OMPI_COMM_WORLD_SIZE") == NULL && g_getenv ("PMIX_RANK") == NULL
      && g_getenv ("PMI_RANK") == NULL)
    return;
  MPI_Init (argc, argv);
  mpi_on = TRUE;
  MPI_Comm_rank (MPI_COMM_WORLD, &mpi_rank);
  MPI_Comm_size (MPI_COMM_WORLD, &mpi_size);
#else
  (void) argc;
  (void) argv;
#endif
}

int
main (int argc, char **argv)
{
  g_auto (GStrv) defines = NULL;
  g_autofree char *output = NULL, *model_path = NULL, *plot = NULL, *plot_prefix = NULL;
  g_autofree char *plot_format = NULL;
  g_autofree char *bounds = NULL;
  gint jobs = 1;
  gint64 bounds_limit = 256;
  gboolean version = FALSE, quiet = FALSE;
  GOptionEntry entries[] = {
    { "define", 'D', 0, G_OPTION_ARG_STRING_ARRAY, &defines,
      "Sweep workload parameter NAME (one the workload file declares with <param>) over "
      "VALUES: a comma-separated list of numbers and ranges START:STOP:STEP (STOP included "
      "when a step lands on it), e.g. npe_i=2,4,8 or n=100:1000:100; repeatable; the table "
      "holds the cartesian product; default: the workload's value", "NAME=VALUES" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      "Write the table to FILE, CSV (.csv) or JSON (.json); an existing FILE of the same "
      "sweep is resumed: its points are not evaluated again; required", "FILE" },
    { "jobs", 'j', 0, G_OPTION_ARG_INT, &jobs,
      "Evaluate N points at a time, in N worker processes; default: 1 (in this process)", "N" },
    { "plot", 0, 0, G_OPTION_ARG_STRING, &plot,
      "Draw the predicted time, speedup and efficiency against swept parameter PARAM, one "
      "line per system and combination of the other parameters; default: no plots", "PARAM" },
    { "plot-output", 0, 0, G_OPTION_ARG_FILENAME, &plot_prefix,
      "Write the plots to PREFIX-time, PREFIX-speedup and PREFIX-efficiency; default: -o's "
      "FILE without its extension", "PREFIX" },
    { "plot-format", 0, 0, G_OPTION_ARG_STRING, &plot_format,
      "png or svg; default: png", "FORMAT" },
    { "model-path", 0, 0, G_OPTION_ARG_FILENAME, &model_path,
      "Load models from the shared objects in DIR (colon-separated), searched before "
      "$PTI_MODEL_PATH; default: none", "DIR" },
    { "bounds", 0, 0, G_OPTION_ARG_STRING, &bounds,
      "Add the columns time_lower_s and time_upper_s: each point's bounds over the ranges "
      "of its system and workload (min/max in the files), as ptieval --bounds=METHOD finds "
      "them (directed, exhaustive); default: none (no such columns)", "METHOD" },
    { "bounds-limit", 0, 0, G_OPTION_ARG_INT64, &bounds_limit,
      "The most evaluations a point's bounds may take (more: the point's error); default: 256",
      "N" },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet,
      "Print nothing on success (default: the points, their rate and the outcome on stderr)",
      NULL },
    { "version", 0, 0, G_OPTION_ARG_NONE, &version, "Print the version and exit", NULL },
    { NULL },
  };
  mpi_start (&argc, &argv);
  g_autoptr (GOptionContext) oc = g_option_context_new ("SYSTEM.xml... WORKLOAD.xml");
  g_option_context_add_main_entries (oc, entries, NULL);
  g_option_context_set_summary (oc,
    "Predict WORKLOAD on every SYSTEM for every combination of the -D values, and write one "
    "table of the predictions.");
  g_option_context_set_description (oc,
    "Rows: systems outermost, then the -D parameters in their order, the last varying fastest.\n"
    "Columns: the parameters, workload, system, predicted_time_s, events, processes,\n"
    "compute_mean_s, compute_max_s, comm_mean_s, comm_max_s, wait_mean_s, wait_max_s (s, over\n"
    "the ranks), "
    "efficiency (compute over processes x predicted time), with --bounds time_lower_s and\n"
    "time_upper_s, assert:NAME (pass/fail), error.\n"
    "Under mpirun -np N the points are dealt over the ranks; rank 0 writes the table.\n\n"
    "Exit status: 0 ok, 2 usage error, 3 invalid input or a point that could not be evaluated\n"
    "(its error column says why), 4 an assertion failed, 1 other failure.");
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) args = pti_cli_split_attached (PTI_CLI_GROUPS (entries), argc, argv);
  gboolean parsed = g_option_context_parse_strv (oc, &args, &error);
  argc = (int) g_strv_length (args);
  argv = args;
  if (!parsed) {
    g_prefix_error (&error, "%s", "");
    error->domain = PTI_ERROR;
    error->code = PTI_ERROR_USAGE;
    g_prefix_error (&error, "%s", "");
    if (mpi_rank == 0)
      fprintf (stderr, "%s: error: %s (see --help)\n", program, error->message);
    return finish (2);
  }
  if (version) {
    if (mpi_rank == 0)
      printf ("%s (pti %s, %s)\n", program, PTI_VERSION,
#ifdef PTI_HAVE_MPI
              "with MPI"
#else
              "without MPI"
#endif
              );
    return finish (0);
  }
  Sweep *sw = g_new0 (Sweep, 1);
  g_autoptr (Sweep) sweep_owner = sw;
  sw->params = g_ptr_array_new_with_free_func ((GDestroyNotify) param_free);
  sw->asserts = g_ptr_array_new_with_free_func (g_free);
  sw->model_path = g_steal_pointer (&model_path);
  PtiBoundsMethod method = PTI_BOUNDS_NONE;
  if (bounds != NULL && !pti_bounds_method_parse (bounds, &method, &error))
    return fail (error);
  sw->bounds = method;
  if (bounds_limit < 1 || bounds_limit > G_MAXUINT) {
    g_set_error (&error, PTI_ERROR, PTI_ERROR_USAGE,
                 "--bounds-limit %" G_GINT64_FORMAT ": expected 1 or more evaluations",
                 bounds_limit);
    return fail (error);
  }
  sw->bounds_limit = (guint) bounds_limit;
  if (argc < 3) {
    g_set_error (&error, PTI_ERROR, PTI_ERROR_USAGE,
                 "expected one or more SYSTEM.xml then WORKLOAD.xml (see --help)");
    return fail (error);
  }
  if (jobs < 1 || jobs > 1024) {
    g_set_error (&error, PTI_ERROR, PTI_ERROR_USAGE, "-j %d: expected 1 to 1024 processes", jobs);
    return fail (error);
  }
  if (output == NULL) {
    g_set_error (&error, PTI_ERROR, PTI_ERROR_USAGE,
                 "-o FILE.csv or -o FILE.json is required (the table, and the journal a "
                 "sweep resumes from)");
    return fail (error);
  }
  {
    g_autofree char *lower = g_ascii_strdown (output, -1);
    if (g_str_has_suffix (lower, ".json"))
      sw->json = TRUE;
    else if (!g_str_has_suffix (lower, ".csv")) {
      g_set_error (&error, PTI_ERROR, PTI_ERROR_USAGE,
                   "-o %s: the file name must end in .csv or .json", output);
      return fail (error);
    }
  }
  sw->output = output;
  sw->workload = g_strdup (argv[argc - 1]);
  sw->systems = g_new0 (char *, argc - 1);
  for (int i = 1; i < argc - 1; i++) {
    for (int k = 1; k < i; k++)
      if (strcmp (argv[k], argv[i]) == 0) {
        g_set_error (&error, PTI_ERROR, PTI_ERROR_USAGE, "system %s is given twice", argv[i]);
        return fail (error);
      }
    sw->systems[i - 1] = g_strdup (argv[i]);
  }
  sw->n_systems = argc - 2;

  g_autoptr (GPtrArray) declared = g_ptr_array_new_with_free_func (g_free);
  if (!scan_workload (sw, declared, &error))
    return fail (error);
  sw->n_points = sw->n_systems;
  for (guint i = 0; defines && defines[i]; i++) {
    SweepParam *p = param_parse (defines[i], &error);
    if (p == NULL)
      return fail (error);
    g_ptr_array_add (sw->params, p);
    if (!g_ptr_array_find_with_equal_func (declared, p->name, g_str_equal, NULL)) {
      g_autofree char *list = NULL;
      g_ptr_array_add (declared, NULL);
      list = g_strjoinv (", ", (char **) declared->pdata);
      g_set_error (&error, PTI_ERROR, PTI_ERROR_USAGE,
                   "-D %s: %s declares no parameter '%s' (it declares: %s)", defines[i],
                   sw->workload, p->name, declared->len > 1 ? list : "none");
      return fail (error);
    }
    for (guint k = 0; k + 1 < sw->params->len; k++)
      if (strcmp (((SweepParam *) sw->params->pdata[k])->name, p->name) == 0) {
        g_set_error (&error, PTI_ERROR, PTI_ERROR_USAGE,
                     "-D %s: parameter '%s' is given twice (list all its values in one -D)",
                     defines[i], p->name);
        return fail (error);
      }
    if (sw->n_points * p->values->len > MAX_POINTS) {
      g_set_error (&error, PTI_ERROR, PTI_ERROR_USAGE, "-D %s: the sweep would have more than "
                   "%u points", defines[i], MAX_POINTS);
      return fail (error);
    }
    sw->n_points *= p->values->len;
  }
  SweepPlot plot_opts = { .param = plot, .prefix = plot_prefix, .format = plot_format };
  if (!pti_sweep_plot_check (sw, &plot_opts, &error))
    return fail (error);
  /* Each system once here: a missing or invalid one is a mistake of the
   * command line, not of its points. */
  for (guint s = 0; s < sw->n_systems; s++) {
    g_autoptr (PtiContext) ctx = pti_context_new (sw->systems[s], sw->model_path, &error);
    if (ctx == NULL)
      return fail (error);
  }
  make_columns (sw);
  sw->header = make_header (sw);

  gint64 t0 = g_get_monotonic_time ();
  char ***rows = g_new0 (char **, sw->n_points);
  goffset keep = 0;
  /* Rank 0 reads the journal; every rank learns which points are left. */
  guint8 *left = g_new0 (guint8, sw->n_points);
  int status = 0;
  if (mpi_rank == 0) {
    if (!journal_load (sw, rows, &keep, &error))
      status = exit_code_for (error);
    for (guint64 i = 0; i < sw->n_points; i++)
      left[i] = rows[i] == NULL;
  }
#ifdef PTI_HAVE_MPI
  if (mpi_on) {
    MPI_Bcast (&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    for (guint64 at = 0; status == 0 && at < sw->n_points; at += 1u << 30)
      MPI_Bcast (left + at, (int) MIN (sw->n_points - at, (guint64) 1 << 30), MPI_BYTE, 0,
                 MPI_COMM_WORLD);
  }
#endif
  if (status != 0) {
    if (mpi_rank == 0)
      fprintf (stderr, "%s: error: %s\n", program, error->message);
    g_free (left);
    for (guint64 i = 0; i < sw->n_points; i++)
      g_strfreev (rows[i]);
    g_free (rows);
    return finish (status);   /* every rank knows the status: no abort */
  }
  points_dealt = TRUE;
  Run run = { .sw = sw, .rows = rows };
  run.order = g_new (guint64, sw->n_points + 1);
  for (guint64 i = 0; i < sw->n_points; i++)
    if (left[i])
      run.order[run.n_order++] = i;
  g_free (left);
  guint64 skipped = sw->n_points - run.n_order;
  if (mpi_rank == 0) {
    /* Appending after the last complete row (a new file starts with the header). */
    int fd = g_open (sw->output, O_WRONLY | O_CREAT, 0666);
    if (fd < 0 || ftruncate (fd, keep) != 0 || lseek (fd, keep, SEEK_SET) < 0
        || (run.journal = fdopen (fd, "w")) == NULL) {
      g_set_error (&error, PTI_ERROR, PTI_ERROR_IO, "cannot write %s: %s", sw->output,
                   g_strerror (errno));
      return fail (error);
    }
    if (keep == 0) {
      fputs (sw->header, run.journal);
      fputc ('\n', run.journal);
      fflush (run.journal);
    }
  }
  /* This rank's share: every mpi_size-th point left, so costs that grow
   * along a parameter are spread evenly. */
  g_autofree guint64 *mine = g_new (guint64, run.n_order / mpi_size + 1);
  guint64 n_mine = 0;
  for (guint64 k = mpi_rank; k < run.n_order; k += mpi_size)
    mine[n_mine++] = run.order[k];
  gboolean ok = run_points (&run, mine, n_mine, (guint) jobs, &error);
  while (ok && mpi_rank == 0 && run.received < run.n_order)
    ok = run_receive (&run, TRUE, &error);
  if (!ok) {
    if (run.journal)
      fclose (run.journal);
    return fail (error);
  }
  int code = 0;
  if (mpi_rank == 0) {
    gboolean wf = run.write_failed;
    wf = fclose (run.journal) != 0 || wf;
    if (wf) {
      g_set_error (&error, PTI_ERROR, PTI_ERROR_IO, "cannot write %s: %s", sw->output,
                   g_strerror (errno));
      return fail (error);
    }
    if (!table_write (sw, rows, &error))
      return fail (error);
    guint64 errors = 0, failed = 0;
    for (guint64 i = 0; i < sw->n_points; i++) {
      if (rows[i][sw->col_error][0] != '\0')
        errors++;
      for (guint c = sw->col_assert; c < sw->col_error; c++)
        if (strcmp (rows[i][c], "fail") == 0) {
          failed++;
          break;
        }
    }
    if (!pti_sweep_plot (sw, &plot_opts, (const char *const *const *) rows, &error))
      return fail (error);
    double wall = (g_get_monotonic_time () - t0) / 1e6;
    if (!quiet) {
      fprintf (stderr, "%s: %" G_GUINT64_FORMAT " point%s (%" G_GUINT64_FORMAT " evaluated, %"
               G_GUINT64_FORMAT " resumed from %s) in %.3f s, %.1f points/s, %d rank%s x %d "
               "job%s\n", program, sw->n_points, sw->n_points == 1 ? "" : "s", run.n_order,
               skipped, sw->output, wall,
               wall > 0 ? run.n_order / wall : 0.0, mpi_size, mpi_size == 1 ? "" : "s", jobs,
               jobs == 1 ? "" : "s");
      if (errors > 0)
        fprintf (stderr, "%s: %" G_GUINT64_FORMAT " point%s could not be evaluated (see the "
                 "error column of %s)\n", program, errors, errors == 1 ? "" : "s", sw->output);
      if (failed > 0)
        fprintf (stderr, "%s: %" G_GUINT64_FORMAT " point%s failed an assertion\n", program,
                 failed, failed == 1 ? "" : "s");
    }
    code = errors > 0 ? 3 : failed > 0 ? 4 : 0;
  }
  for (guint64 i = 0; i < sw->n_points; i++)
    g_strfreev (rows[i]);
  g_free (rows);
  g_free (run.order);
#ifdef PTI_HAVE_MPI
  if (mpi_on) {
    MPI_Bcast (&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize ();
  }
#endif
  return code;
}
