/* pticapture: capture a real MPI run for pti (capture/README.md).
 *   pticapture [OPTIONS] -o TRACE -- COMMAND [ARGS]
 *   pticapture --check TRACE
 *   pticapture --print TRACE [--rank N] [--no-times]
 * Runs COMMAND (typically mpirun -np N PROGRAM ARGS) with libpticapture.so
 * preloaded, then checks the trace (every rank present and ended by
 * MPI_Finalize) and writes TRACE/manifest (capture/FORMAT.md section 8). */
#include "capture-reader.h"

#include <glib/gstdio.h>
#include "pti-config.h"
#include "cli-options.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2, EXIT_INVALID = 3 };

static const char *program = "pticapture";

static int
usage_error (const char *fmt, ...) G_GNUC_PRINTF (1, 2);

static int
usage_error (const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  fprintf (stderr, "%s: error: %s (see --help)\n", program, msg);
  return EXIT_USAGE;
}

static int
fail (int status, const char *fmt, ...) G_GNUC_PRINTF (2, 3);

static int
fail (int status, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  fprintf (stderr, "%s: error: %s\n", program, msg);
  return status;
}

/* ---- the capture library ---- */

/* --library, $PTI_CAPTURE_LIBRARY, the build tree (capture/ beside cli/), or
 * where meson installed it. */
static char *
find_library (const char *given, GError **error)
{
  const char *env = g_getenv ("PTI_CAPTURE_LIBRARY");
  const char *path = given != NULL ? given : env;
  if (path != NULL) {
    if (!g_file_test (path, G_FILE_TEST_IS_REGULAR)) {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT, "%s (%s): no such file", path,
                   given != NULL ? "--library" : "$PTI_CAPTURE_LIBRARY");
      return NULL;
    }
    return g_canonicalize_filename (path, NULL);
  }
  g_autofree char *self = g_file_read_link ("/proc/self/exe", NULL);
  if (self != NULL) {
    g_autofree char *dir = g_path_get_dirname (self);
    g_autofree char *built = g_build_filename (dir, "..", "capture", "libpticapture.so", NULL);
    if (g_file_test (built, G_FILE_TEST_IS_REGULAR))
      return g_canonicalize_filename (built, NULL);
    g_autofree char *rel = g_build_filename (dir, PTI_CAPTURE_LIB_FROM_BINDIR, NULL);
    if (g_file_test (rel, G_FILE_TEST_IS_REGULAR))
      return g_canonicalize_filename (rel, NULL);
  }
  if (g_file_test (PTI_INSTALLED_CAPTURE_LIB, G_FILE_TEST_IS_REGULAR))
    return g_strdup (PTI_INSTALLED_CAPTURE_LIB);
  g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
               "cannot find libpticapture.so (not installed at %s; pti was built without an MPI "
               "library?); give it with --library", PTI_INSTALLED_CAPTURE_LIB);
  return NULL;
}

/* ---- the trace directory ---- */

static gboolean
is_trace_file (const char *name)
{
  return strcmp (name, "manifest") == 0 || strcmp (name, "manifest.tmp") == 0
         || (g_str_has_prefix (name, "rank-") && g_str_has_suffix (name, ".ptc"));
}

static gboolean
prepare_dir (const char *dir, gboolean force, GError **error)
{
  if (g_file_test (dir, G_FILE_TEST_EXISTS)) {
    if (!g_file_test (dir, G_FILE_TEST_IS_DIR)) {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_EXIST,
                   "%s exists and is not a directory: -o names the directory to create", dir);
      return FALSE;
    }
    g_autoptr (GDir) d = g_dir_open (dir, 0, error);
    if (d == NULL)
      return FALSE;
    const char *name;
    g_autoptr (GPtrArray) old = g_ptr_array_new_with_free_func (g_free);
    while ((name = g_dir_read_name (d)) != NULL) {
      if (!force || !is_trace_file (name)) {
        g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_EXIST,
                     force ? "%s holds %s, which is not part of a trace: not replacing it"
                           : "%s exists and is not empty (%s ...): give a new directory, or "
                             "--force to replace the capture in it", dir, name);
        return FALSE;
      }
      g_ptr_array_add (old, g_build_filename (dir, name, NULL));
    }
    for (guint i = 0; i < old->len; i++)
      if (g_unlink (g_ptr_array_index (old, i)) != 0) {
        int e = errno;
        g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (e), "cannot remove %s: %s",
                     (char *) g_ptr_array_index (old, i), g_strerror (e));
        return FALSE;
      }
    return TRUE;
  }
  if (g_mkdir_with_parents (dir, 0755) != 0) {
    int e = errno;
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (e), "cannot create %s: %s", dir,
                 g_strerror (e));
    return FALSE;
  }
  return TRUE;
}

/* ---- checking a trace: every rank read through, counted ---- */

typedef struct {
  gboolean present;
  char *host;
  guint64 pid, calls, bytes;
  gint cpu;
  char *end;                 /* manifest's end= */
  char *problem;             /* NULL when it ended by MPI_Finalize */
} RankCheck;

typedef struct {
  guint n_ranks;
  RankCheck *ranks;
  GHashTable *counts;        /* name -> guint64[n_ranks] */
  guint64 calls, bytes;
  char *problem;             /* the first problem */
  guint n_problems;
  char *format;
} Check;

static void
check_clear (Check *c)
{
  for (guint i = 0; i < c->n_ranks; i++) {
    g_free (c->ranks[i].host);
    g_free (c->ranks[i].end);
    g_free (c->ranks[i].problem);
  }
  g_free (c->ranks);
  if (c->counts != NULL)
    g_hash_table_unref (c->counts);
  g_free (c->problem);
  g_free (c->format);
}

static void
check_problem (Check *c, RankCheck *rk, char *msg)
{
  if (c->problem == NULL)
    c->problem = g_strdup (msg);
  c->n_problems++;
  if (rk != NULL && rk->problem == NULL)
    rk->problem = msg;
  else
    g_free (msg);
}

static char *
end_word (const PtiCaptureEnd *e, GError *error)
{
  if (error == NULL)
    return g_strdup ("finalize");
  if (error->code != PTI_CAPTURE_ERROR_INCOMPLETE)
    return g_strdup ("corrupt");
  if (!e->seen)
    return g_strdup ("truncated");
  switch (e->how) {
  case PTI_END_SIGNAL:
    return g_strdup_printf ("signal %u (%s)", e->signal, pti_capture_signal_name (e->signal));
  case PTI_END_ABORT:
    return g_strdup_printf ("abort %" G_GINT64_FORMAT, e->errorcode);
  case PTI_END_EXIT:
    return g_strdup ("exit");
  default:
    return g_strdup ("finalize");
  }
}

static guint64
file_size (const char *path)
{
  GStatBuf st;
  return g_stat (path, &st) == 0 ? (guint64) st.st_size : 0;
}

/* Reads every rank file of @dir whole (streaming).  @decode: every record
 * decoded and counted per function; otherwise a file whose blocks are
 * whole and whose last block is the END of MPI_Finalize alone (what the
 * capture library writes) is taken as complete without decoding it
 * (pti_capture_rank_sealed: 0.67 s for NetPIPE's 382 MB on a loaded host,
 * against 8.5 s of CPU decoded), and any other is decoded to say what is
 * wrong with it. */
static void
check_trace (const char *dir, Check *c, gboolean decode)
{
  memset (c, 0, sizeof *c);
  c->counts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  /* The world size: from rank 0, or any rank file there is. */
  guint size = 0;
  g_autofree char *run0 = NULL;
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  g_autofree char *first = g_build_filename (dir, "rank-0.ptc", NULL);
  g_autoptr (PtiCaptureRank) r0 = pti_capture_rank_open_file (first, NULL);
  while (r0 == NULL && d != NULL && (name = g_dir_read_name (d)) != NULL)
    if (g_str_has_prefix (name, "rank-") && g_str_has_suffix (name, ".ptc")) {
      g_autofree char *p = g_build_filename (dir, name, NULL);
      r0 = pti_capture_rank_open_file (p, NULL);
    }
  if (r0 == NULL) {
    check_problem (c, NULL, g_strdup_printf ("%s: no readable rank file: the command never "
                                             "called MPI_Init, or not under this capture "
                                             "(was it an MPI program built with Open MPI?)", dir));
    return;
  }
  const PtiCaptureHeader *h0 = pti_capture_rank_header (r0);
  size = h0->size;
  for (guint i = 0; h0->prop_keys[i] != NULL; i++)
    if (strcmp (h0->prop_keys[i], "run") == 0)
      run0 = g_strdup (h0->prop_values[i]);
  c->format = g_strdup_printf ("%d.%d", PTI_CAPTURE_MAJOR, PTI_CAPTURE_MINOR);
  c->n_ranks = size;
  c->ranks = g_new0 (RankCheck, size);
  for (guint rank = 0; rank < size; rank++) {
    RankCheck *rk = &c->ranks[rank];
    g_autofree char *fname = g_strdup_printf ("rank-%u.ptc", rank);
    g_autofree char *path = g_build_filename (dir, fname, NULL);
    if (!g_file_test (path, G_FILE_TEST_EXISTS)) {
      rk->end = g_strdup ("missing");
      check_problem (c, rk, g_strdup_printf ("rank %u: %s is missing: that process never "
                                             "called MPI_Init, or could not write its trace",
                                             rank, fname));
      continue;
    }
    rk->present = TRUE;
    g_autoptr (GError) error = NULL;
    g_autoptr (PtiCaptureRank) r = pti_capture_rank_open_file (path, &error);
    if (r == NULL) {
      rk->end = g_strdup (error->code == PTI_CAPTURE_ERROR_INCOMPLETE ? "truncated" : "corrupt");
      check_problem (c, rk, g_strdup (error->message));
      continue;
    }
    const PtiCaptureHeader *h = pti_capture_rank_header (r);
    rk->host = g_strdup (h->host);
    rk->pid = h->pid;
    rk->cpu = h->cpu;
    const char *run = NULL;
    for (guint i = 0; h->prop_keys[i] != NULL; i++)
      if (strcmp (h->prop_keys[i], "run") == 0)
        run = h->prop_values[i];
    if (h->rank != rank || h->size != size || g_strcmp0 (run, run0) != 0) {
      rk->end = g_strdup ("foreign");
      check_problem (c, rk, g_strdup_printf ("rank %u: %s is rank %u of %u of another capture",
                                             rank, fname, h->rank, h->size));
      continue;
    }
    PtiCaptureEvent ev;
    gboolean done = FALSE;
    guint64 read = 0;
    if (!decode && pti_capture_rank_sealed (r, &read)) {
      rk->calls = read;
      rk->end = g_strdup ("finalize");
      rk->bytes = file_size (path);
      c->calls += rk->calls;
      c->bytes += rk->bytes;
      continue;
    }
    while (pti_capture_rank_next (r, &ev, &done, &error) && !done) {
      read = ev.index + ev.count - 1;
      guint64 *v = g_hash_table_lookup (c->counts, ev.name);
      if (v == NULL) {
        v = g_new0 (guint64, size);
        g_hash_table_insert (c->counts, g_strdup (ev.name), v);
      }
      v[rank] += ev.count;
    }
    const PtiCaptureEnd *e = pti_capture_rank_end (r);
    rk->calls = read;
    rk->end = end_word (e, error);
    if (error != NULL)
      check_problem (c, rk, g_strdup (error->message));
    rk->bytes = file_size (path);
    c->calls += rk->calls;
    c->bytes += rk->bytes;
  }
  /* A file beyond the world size is another capture's. */
  g_dir_rewind (d);
  while (d != NULL && (name = g_dir_read_name (d)) != NULL) {
    guint64 k;
    if (sscanf (name, "rank-%" G_GUINT64_FORMAT ".ptc", &k) == 1 && k >= size)
      check_problem (c, NULL, g_strdup_printf ("%s: rank %" G_GUINT64_FORMAT " is beyond the "
                                               "world size %u: a file of another capture",
                                               name, k, size));
  }
}

/* ---- manifest ---- */

static gboolean
write_manifest (const char *dir, const Check *c, const char *command, const char *started,
                double wall, const char *exit_word, GError **error)
{
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  g_key_file_set_string (kf, "capture", "format", c->format ? c->format : "1.0");
  g_key_file_set_string (kf, "capture", "writer", "pticapture " PTI_VERSION);
  if (command != NULL)
    g_key_file_set_string (kf, "capture", "command", command);
  if (started != NULL)
    g_key_file_set_string (kf, "capture", "started", started);
  if (wall >= 0) {
    g_autofree char *w = g_strdup_printf ("%.3f", wall);
    g_key_file_set_string (kf, "capture", "wall_s", w);
  }
  if (exit_word != NULL)
    g_key_file_set_string (kf, "capture", "exit", exit_word);
  g_key_file_set_uint64 (kf, "capture", "ranks", c->n_ranks);
  g_key_file_set_boolean (kf, "capture", "complete", c->n_problems == 0);
  g_key_file_set_uint64 (kf, "capture", "calls", c->calls);
  g_key_file_set_uint64 (kf, "capture", "bytes", c->bytes);
  if (c->problem != NULL)
    g_key_file_set_string (kf, "capture", "problem", c->problem);
  for (guint i = 0; i < c->n_ranks; i++) {
    const RankCheck *rk = &c->ranks[i];
    g_autofree char *g = g_strdup_printf ("rank %u", i);
    g_autofree char *f = g_strdup_printf ("rank-%u.ptc", i);
    g_key_file_set_string (kf, g, "file", f);
    if (rk->host != NULL) {
      g_key_file_set_string (kf, g, "host", rk->host);
      g_key_file_set_uint64 (kf, g, "pid", rk->pid);
      g_key_file_set_integer (kf, g, "cpu", rk->cpu);
    }
    g_key_file_set_uint64 (kf, g, "calls", rk->calls);
    g_key_file_set_uint64 (kf, g, "bytes", rk->bytes);
    g_key_file_set_string (kf, g, "end", rk->end ? rk->end : "missing");
    if (rk->problem != NULL)
      g_key_file_set_string (kf, g, "problem", rk->problem);
  }
  g_autofree char *path = g_build_filename (dir, "manifest", NULL);
  return g_key_file_save_to_file (kf, path, error);
}

static void
print_summary (const char *dir, const Check *c, gboolean calls_table)
{
  if (c->n_ranks > 0)
    printf ("%s: %s: %u rank%s, %" G_GUINT64_FORMAT " calls, %" G_GUINT64_FORMAT " bytes "
            "(%.2f bytes per call), %s\n", program, dir, c->n_ranks, c->n_ranks == 1 ? "" : "s",
            c->calls, c->bytes, c->calls ? (double) c->bytes / (double) c->calls : 0.0,
            c->n_problems == 0 ? "complete" : "INCOMPLETE");
  for (guint i = 0; i < c->n_ranks; i++)
    if (c->ranks[i].problem != NULL)
      fprintf (stderr, "%s: %s\n", program, c->ranks[i].problem);
  if (c->n_problems > 0 && (c->n_ranks == 0 || c->problem != NULL)) {
    gboolean listed = FALSE;
    for (guint i = 0; i < c->n_ranks; i++)
      listed |= c->ranks[i].problem != NULL && strcmp (c->ranks[i].problem, c->problem) == 0;
    if (!listed)
      fprintf (stderr, "%s: %s\n", program, c->problem);
  }
  if (!calls_table)
    return;
  g_autoptr (GList) names = g_hash_table_get_keys (c->counts);
  names = g_list_sort (names, (GCompareFunc) strcmp);
  printf ("%-32s %12s %12s %12s\n", "function", "calls", "min/rank", "max/rank");
  for (GList *l = names; l != NULL; l = l->next) {
    const guint64 *v = g_hash_table_lookup (c->counts, l->data);
    guint64 sum = 0, lo = G_MAXUINT64, hi = 0;
    for (guint i = 0; i < c->n_ranks; i++) {
      sum += v[i];
      lo = MIN (lo, v[i]);
      hi = MAX (hi, v[i]);
    }
    printf ("%-32s %12" G_GUINT64_FORMAT " %12" G_GUINT64_FORMAT " %12" G_GUINT64_FORMAT "\n",
            (const char *) l->data, sum, lo, hi);
  }
}

/* ---- --print ---- */

static void
print_peer (GString *s, const char *key, gint32 peer, gint32 world)
{
  if (peer == PTI_PEER_ANY)
    g_string_append_printf (s, " %s=ANY", key);
  else if (peer == PTI_PEER_NULL)
    g_string_append_printf (s, " %s=NULL", key);
  else if (peer == PTI_PEER_ROOT)
    g_string_append_printf (s, " %s=ROOT", key);
  else
    g_string_append_printf (s, " %s=%d(w%d)", key, peer, world);
}

static void
print_tag (GString *s, const char *key, gint32 tag)
{
  if (tag == PTI_TAG_ANY)
    g_string_append_printf (s, " %s=ANY", key);
  else
    g_string_append_printf (s, " %s=%d", key, tag);
}

static void
print_list (GString *s, const char *key, guint n, const guint64 *v)
{
  g_string_append_printf (s, " %s=[", key);
  for (guint i = 0; i < n; i++)
    g_string_append_printf (s, "%s%" G_GUINT64_FORMAT, i ? "," : "", v[i]);
  g_string_append_c (s, ']');
}

static void
print_completion (GString *s, const PtiCaptureCompletion *e)
{
  if (e->request == 0)
    g_string_append (s, "null");
  else if (e->request == G_MAXUINT64)
    g_string_append (s, "untracked");
  else
    g_string_append_printf (s, "%" G_GUINT64_FORMAT, e->request);
  if (!e->done)
    return;
  if (e->empty)
    g_string_append (s, ":empty");
  else if (e->has_bytes) {
    g_string_append_printf (s, ":done(src=%d(w%d),tag=%d,bytes=%" G_GUINT64_FORMAT ")", e->source,
                            e->source_world, e->tag, e->bytes);
  } else
    g_string_append (s, ":done");
  if (e->cancelled)
    g_string_append (s, ":cancelled");
}

static void
print_comm_members (GString *s, const PtiCaptureComm *cm)
{
  g_string_append_printf (s, "%u{key=%016" G_GINT64_MODIFIER "x,", cm->id, cm->key);
  for (guint i = 0; i < cm->n_members; i++)
    g_string_append_printf (s, "%s%d", i ? " " : "", cm->members ? cm->members[i] : (gint32) i);
  if (cm->inter) {
    g_string_append (s, "|");
    for (guint i = 0; i < cm->n_remote; i++)
      g_string_append_printf (s, "%s%d", i ? " " : "", cm->remote[i]);
  }
  g_string_append_c (s, '}');
}

static void
print_event (GString *s, guint rank, const PtiCaptureEvent *ev, gboolean times)
{
  g_string_append_printf (s, "%u %" G_GUINT64_FORMAT " %s", rank, ev->index, ev->name);
  if (ev->count > 1)
    g_string_append_printf (s, " x%" G_GUINT64_FORMAT, ev->count);
  if (times) {
    g_string_append_printf (s, " t=%.9f burst=%" G_GUINT64_FORMAT, ev->t_start * 1e-9,
                            ev->burst_ns);
    if (ev->burst_cpu_ns >= 0)
      g_string_append_printf (s, " cpu=%" G_GINT64_FORMAT, ev->burst_cpu_ns);
    g_string_append_printf (s, " dur=%" G_GUINT64_FORMAT, ev->t_end - ev->t_start);
  }
  if (ev->error != 0)
    g_string_append_printf (s, " error=%d", ev->error);
  switch (ev->layout) {
  case PTI_L_SEND: case PTI_L_RECV: case PTI_L_POST_RECV: case PTI_L_PROBE: case PTI_L_IPROBE:
    print_peer (s, "peer", ev->peer, ev->peer_world);
    print_tag (s, "tag", ev->tag);
    if (ev->layout != PTI_L_PROBE && ev->layout != PTI_L_IPROBE)
      g_string_append_printf (s, " bytes=%" G_GUINT64_FORMAT, ev->bytes);
    break;
  case PTI_L_SENDRECV:
    print_peer (s, "dest", ev->peer, ev->peer_world);
    print_tag (s, "stag", ev->tag);
    g_string_append_printf (s, " sbytes=%" G_GUINT64_FORMAT, ev->bytes);
    print_peer (s, "source", ev->rpeer, ev->rpeer_world);
    print_tag (s, "rtag", ev->rtag);
    g_string_append_printf (s, " rbytes=%" G_GUINT64_FORMAT, ev->rbytes);
    break;
  case PTI_L_MRECV: case PTI_L_MPOST: case PTI_L_REDUCE_LOCAL:
    g_string_append_printf (s, " bytes=%" G_GUINT64_FORMAT, ev->bytes);
    break;
  case PTI_L_BCAST:
    g_string_append_printf (s, " bytes=%" G_GUINT64_FORMAT, ev->bytes);
    print_peer (s, "root", ev->peer, ev->peer_world);
    break;
  case PTI_L_REDUCE: case PTI_L_ALLREDUCE:
    g_string_append_printf (s, " bytes=%" G_GUINT64_FORMAT, ev->bytes);
    if (ev->layout == PTI_L_REDUCE)
      print_peer (s, "root", ev->peer, ev->peer_world);
    break;
  case PTI_L_GATHER: case PTI_L_ALLGATHER:
    g_string_append_printf (s, " sbytes=%" G_GUINT64_FORMAT " rbytes=%" G_GUINT64_FORMAT,
                            ev->bytes, ev->rbytes);
    if (ev->layout == PTI_L_GATHER)
      print_peer (s, "root", ev->peer, ev->peer_world);
    break;
  case PTI_L_GATHERV: case PTI_L_ALLGATHERV:
    g_string_append_printf (s, " sbytes=%" G_GUINT64_FORMAT, ev->bytes);
    print_list (s, "rbytes", ev->n_rcounts, ev->rcounts);
    if (ev->layout == PTI_L_GATHERV)
      print_peer (s, "root", ev->peer, ev->peer_world);
    break;
  case PTI_L_SCATTERV:
    print_list (s, "sbytes", ev->n_scounts, ev->scounts);
    g_string_append_printf (s, " rbytes=%" G_GUINT64_FORMAT, ev->rbytes);
    print_peer (s, "root", ev->peer, ev->peer_world);
    break;
  case PTI_L_ALLTOALLV:
    print_list (s, "sbytes", ev->n_scounts, ev->scounts);
    print_list (s, "rbytes", ev->n_rcounts, ev->rcounts);
    break;
  case PTI_L_REDUCE_SCATTER:
    print_list (s, "rbytes", ev->n_rcounts, ev->rcounts);
    break;
  case PTI_L_REDUCE_SCATTER_BLOCK:
    g_string_append_printf (s, " rbytes=%" G_GUINT64_FORMAT, ev->rbytes);
    break;
  case PTI_L_COMM_SPLIT:
    g_string_append_printf (s, " color=%" G_GINT64_FORMAT " key=%" G_GINT64_FORMAT, ev->color,
                            ev->key);
    break;
  case PTI_L_CART_CREATE:
    print_list (s, "dims", ev->ndims, ev->dims);
    print_list (s, "periods", ev->ndims, ev->periods);
    break;
  case PTI_L_INIT_THREAD:
    g_string_append_printf (s, " required=%" G_GINT64_FORMAT " provided=%" G_GINT64_FORMAT,
                            ev->value, ev->value2);
    break;
  case PTI_L_ABORT:
    g_string_append_printf (s, " errorcode=%" G_GINT64_FORMAT, ev->value);
    break;
  case PTI_L_OP_CREATE:
    g_string_append_printf (s, " commute=%" G_GINT64_FORMAT, ev->value);
    break;
  case PTI_L_FILE_OPEN: {
    /* The name is the program's bytes: shown escaped, never raw. */
    g_autofree char *name = g_strescape (ev->file_name, NULL);
    g_string_append_printf (s, " file=%" G_GUINT64_FORMAT " name=\"%s\"", ev->file, name);
    break;
  }
  case PTI_L_POSIX_OPEN: {
    static const char *const words[] = { "read", "write", "create", "trunc", "append", "stdio" };
    g_autofree char *name = g_strescape (ev->file_name, NULL);
    g_string_append_printf (s, " file=%" G_GUINT64_FORMAT " name=\"%s\" flags=", ev->file, name);
    gboolean any = FALSE;
    for (guint i = 0; i < G_N_ELEMENTS (words); i++)
      if (ev->value & (1 << i)) {
        g_string_append_printf (s, "%s%s", any ? "," : "", words[i]);
        any = TRUE;
      }
    if (!any)
      g_string_append (s, "none");
    break;
  }
  case PTI_L_POSIX_ACCESS:
    g_string_append_printf (s, " file=%" G_GUINT64_FORMAT " offset=%" G_GUINT64_FORMAT
                            " count=%" G_GINT64_FORMAT, ev->file, ev->offset, ev->value);
    if (ev->error == 0)
      g_string_append_printf (s, " bytes=%" G_GUINT64_FORMAT, ev->bytes);
    break;
  case PTI_L_FILE:
    g_string_append_printf (s, " file=%" G_GUINT64_FORMAT, ev->file);
    break;
  case PTI_L_FILE_ACCESS:
    g_string_append_printf (s, " file=%" G_GUINT64_FORMAT " offset=%" G_GUINT64_FORMAT
                            " bytes=%" G_GUINT64_FORMAT, ev->file, ev->offset, ev->bytes);
    break;
  default:
    break;
  }
  if (ev->op != 0)
    g_string_append_printf (s, " op=%u", ev->op);
  if (ev->in_place)
    g_string_append (s, " in_place");
  if (ev->comm != 0)
    g_string_append_printf (s, " comm=%u", ev->comm);
  if (ev->request != 0)
    g_string_append_printf (s, " req=%" G_GUINT64_FORMAT, ev->request);
  if (ev->layout == PTI_L_TEST || ev->layout == PTI_L_TESTALL || ev->layout == PTI_L_TESTANY
      || ev->layout == PTI_L_IPROBE)
    g_string_append_printf (s, " flag=%d", ev->flag);
  if (ev->n_requests > 0) {
    g_string_append (s, " reqs=[");
    for (guint i = 0; i < ev->n_requests; i++) {
      if (i)
        g_string_append_c (s, ',');
      print_completion (s, &ev->requests[i]);
    }
    g_string_append_c (s, ']');
  }
  if (ev->has_status)
    g_string_append_printf (s, " status=(src=%d(w%d),tag=%d,bytes=%" G_GUINT64_FORMAT ")",
                            ev->status.source, ev->status.source_world, ev->status.tag,
                            ev->status.bytes);
  if (ev->has_newcomm) {
    g_string_append (s, " newcomm=");
    if (ev->newcomm == NULL)
      g_string_append (s, "NULL");
    else
      print_comm_members (s, ev->newcomm);
  }
  g_string_append_c (s, '\n');
}

typedef struct {
  guint rank;
  gboolean times;
} PrintMarks;

/* Region records (FORMAT.md 6.8), as '#' lines between the calls. */
static gboolean
print_mark (const PtiCaptureMark *m, gpointer data, GError **error)
{
  (void) error;
  const PrintMarks *pm = data;
  g_autoptr (GString) s = g_string_new (NULL);
  g_string_printf (s, "# %u ", pm->rank);
  if (pm->times && (m->kind == PTI_CAPTURE_MARK_BEGIN || m->kind == PTI_CAPTURE_MARK_END))
    g_string_append_printf (s, "%.9f ", (double) m->t * 1e-9);
  switch (m->kind) {
  case PTI_CAPTURE_MARK_BEGIN:
    g_string_append_printf (s, "region %s begins", m->name);
    break;
  case PTI_CAPTURE_MARK_END:
    g_string_append_printf (s, "region %s ends: %" G_GUINT64_FORMAT " calls, %" G_GUINT64_FORMAT
                            " messages, %" G_GUINT64_FORMAT " bytes sent", m->name, m->calls,
                            m->messages, m->bytes);
    break;
  case PTI_CAPTURE_MARK_COUNT:
    g_string_append_printf (s, "  counter %s = %.17g", m->name, m->value);
    break;
  case PTI_CAPTURE_MARK_CHECK:
    g_string_append_printf (s, "  assertion %s %s: %s", m->name, m->passed ? "passed" : "FAILED",
                            m->test);
    for (guint i = 0; i < m->n_values; i++)
      g_string_append_printf (s, "%s%.9g", i ? ", " : " with values ", m->values[i]);
    break;
  case PTI_CAPTURE_MARK_PARAM:
    g_string_append_printf (s, "parameter %s = %.17g", m->name, m->value);
    break;
  }
  g_string_append_c (s, '\n');
  fputs (s->str, stdout);
  return TRUE;
}

static int
print_rank (PtiCaptureRank *r, gboolean times, gboolean *incomplete)
{
  const PtiCaptureHeader *h = pti_capture_rank_header (r);
  g_autofree char *cmd = g_strjoinv (" ", h->argv);
  /* start: time 0 of the records' t=, s since the Unix epoch (ranks on one
   * host share the clock: capture.sh's launch skew) */
  printf ("# rank %u of %u: host %s, pid %" G_GUINT64_FORMAT ", cpu %d (of %s), %s, MPI %u.%u, "
          "thread level %u, cpu time %s, start %" G_GUINT64_FORMAT ".%09u, command: %s\n",
          h->rank, h->size, h->host, h->pid, h->cpu, h->affinity, h->library, h->mpi_major,
          h->mpi_minor, h->thread_provided,
          h->cpu_mode == PTI_CPU_SWITCH ? "switch" : h->cpu_mode == PTI_CPU_EXACT ? "exact" : "none",
          h->start_ns / 1000000000u, (guint) (h->start_ns % 1000000000u), cmd);
  g_autoptr (GString) s = g_string_new (NULL);
  PtiCaptureEvent ev;
  gboolean done = FALSE;
  g_autoptr (GError) error = NULL;
  PrintMarks pm = { h->rank, times };
  pti_capture_rank_set_mark_func (r, print_mark, &pm);
  while (pti_capture_rank_next (r, &ev, &done, &error) && !done) {
    g_string_truncate (s, 0);
    print_event (s, h->rank, &ev, times);
    fputs (s->str, stdout);
  }
  if (error != NULL) {
    fflush (stdout);
    fprintf (stderr, "%s: %s\n", program, error->message);
    *incomplete = TRUE;
    return error->code == PTI_CAPTURE_ERROR_IO ? EXIT_FAIL : EXIT_INVALID;
  }
  printf ("# rank %u: end (MPI_Finalize)\n", h->rank);
  return EXIT_OK;
}

static int
print_trace (const char *path, gint rank, gboolean times)
{
  gboolean incomplete = FALSE;
  int status = EXIT_OK;
  g_autoptr (GError) error = NULL;
  if (!g_file_test (path, G_FILE_TEST_IS_DIR)) {
    g_autoptr (PtiCaptureRank) r = pti_capture_rank_open_file (path, &error);
    if (r == NULL)
      return fail (error->code == PTI_CAPTURE_ERROR_IO ? EXIT_FAIL : EXIT_INVALID, "%s",
                   error->message);
    return print_rank (r, times, &incomplete);
  }
  g_autoptr (PtiCaptureTrace) t = pti_capture_trace_open (path, &error);
  if (t == NULL)
    return fail (error->code == PTI_CAPTURE_ERROR_IO ? EXIT_FAIL : EXIT_INVALID, "%s",
                 error->message);
  guint n = pti_capture_trace_n_ranks (t);
  if (rank >= 0 && (guint) rank >= n)
    return usage_error ("--rank %d: the trace has ranks 0 to %u", rank, n - 1);
  for (guint i = 0; i < n; i++) {
    if (rank >= 0 && (guint) rank != i)
      continue;
    g_autoptr (PtiCaptureRank) r = pti_capture_rank_open (t, i, &error);
    if (r == NULL)
      return fail (EXIT_INVALID, "%s", error->message);
    int st = print_rank (r, times, &incomplete);
    if (st != EXIT_OK && status == EXIT_OK)
      status = st;
  }
  return status;
}

/* ---- running the command ---- */

static volatile sig_atomic_t child_pid;

static void
forward_signal (int sig)
{
  if (child_pid > 0)
    kill ((pid_t) child_pid, sig);
}

/* Open MPI's launcher (orterun, under any of its names): it gets -x for
 * every variable the ranks need, so they reach processes on other hosts
 * too (local ones inherit the environment anyway). */
static gboolean
is_open_mpi_launcher (const char *argv0)
{
  g_autofree char *base = g_path_get_basename (argv0);
  if (strcmp (base, "mpirun") != 0 && strcmp (base, "mpiexec") != 0
      && strcmp (base, "orterun") != 0 && strcmp (base, "oshrun") != 0)
    return FALSE;
  g_autofree char *found = g_find_program_in_path (argv0);
  if (found == NULL)
    return FALSE;
  g_autofree char *real = realpath (found, NULL);
  g_autofree char *rbase = real ? g_path_get_basename (real) : NULL;
  return rbase != NULL && (strcmp (rbase, "orterun") == 0 || strcmp (rbase, "prterun") == 0
                           || strcmp (rbase, "prun") == 0);
}

static const char *const forwarded[] = { "LD_PRELOAD", "PTI_CAPTURE_DIR", "PTI_CAPTURE_CPU",
                                         "PTI_CAPTURE_FLUSH", "PTI_CAPTURE_RUN" };

static int
run_command (char **cmd, const char *dir, const char *lib, const char *cpu, double flush,
             gboolean quiet, gboolean calls_table)
{
  g_autofree char *absdir = g_canonicalize_filename (dir, NULL);
  g_auto (GStrv) env = g_get_environ ();
  const char *old = g_environ_getenv (env, "LD_PRELOAD");
  g_autofree char *preload = old != NULL && *old ? g_strconcat (lib, ":", old, NULL)
                                                 : g_strdup (lib);
  g_autofree char *flush_s = g_strdup_printf ("%g", flush);
  g_autofree char *run = g_uuid_string_random ();
  env = g_environ_setenv (env, "LD_PRELOAD", preload, TRUE);
  env = g_environ_setenv (env, "PTI_CAPTURE_DIR", absdir, TRUE);
  env = g_environ_setenv (env, "PTI_CAPTURE_CPU", cpu, TRUE);
  env = g_environ_setenv (env, "PTI_CAPTURE_FLUSH", flush_s, TRUE);
  env = g_environ_setenv (env, "PTI_CAPTURE_RUN", run, TRUE);

  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_ptr_array_add (argv, cmd[0]);
  if (is_open_mpi_launcher (cmd[0]))
    for (gsize i = 0; i < G_N_ELEMENTS (forwarded); i++) {
      g_ptr_array_add (argv, (char *) "-x");
      g_ptr_array_add (argv, (char *) forwarded[i]);
    }
  for (guint i = 1; cmd[i] != NULL; i++)
    g_ptr_array_add (argv, cmd[i]);
  g_ptr_array_add (argv, NULL);

  g_autoptr (GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *started = g_date_time_format (now, "%Y-%m-%dT%H:%M:%SZ");
  g_autofree char *command = NULL;
  {
    g_autoptr (GString) q = g_string_new (NULL);
    for (guint i = 0; cmd[i] != NULL; i++) {
      g_autofree char *w = g_shell_quote (cmd[i]);
      g_string_append_printf (q, "%s%s", i ? " " : "", w);
    }
    command = g_string_free (g_steal_pointer (&q), FALSE);
  }
  gint64 t0 = g_get_monotonic_time ();
  GPid pid;
  g_autoptr (GError) error = NULL;
  if (!g_spawn_async (NULL, (char **) argv->pdata, env,
                      G_SPAWN_SEARCH_PATH_FROM_ENVP | G_SPAWN_DO_NOT_REAP_CHILD
                        | G_SPAWN_CHILD_INHERITS_STDIN,
                      NULL, NULL, &pid, &error))
    return fail (EXIT_FAIL, "cannot run %s: %s", cmd[0], error->message);
  /* Ctrl-C reaches the command (same process group): let it end, then check
   * what it left.  A TERM sent to pticapture alone is passed on. */
  child_pid = pid;
  struct sigaction ign = { .sa_handler = SIG_IGN }, fwd = { .sa_handler = forward_signal };
  struct sigaction old_int, old_quit, old_term;
  sigaction (SIGINT, &ign, &old_int);
  sigaction (SIGQUIT, &ign, &old_quit);
  sigaction (SIGTERM, &fwd, &old_term);
  int wstatus = 0;
  while (waitpid (pid, &wstatus, 0) < 0 && errno == EINTR)
    ;
  child_pid = 0;
  sigaction (SIGINT, &old_int, NULL);
  sigaction (SIGQUIT, &old_quit, NULL);
  sigaction (SIGTERM, &old_term, NULL);
  double wall = (double) (g_get_monotonic_time () - t0) * 1e-6;
  g_autofree char *exit_word = WIFSIGNALED (wstatus)
    ? g_strdup_printf ("signal %d (%s)", WTERMSIG (wstatus),
                       pti_capture_signal_name ((guint) WTERMSIG (wstatus)))
    : g_strdup_printf ("%d", WEXITSTATUS (wstatus));
  gboolean command_ok = WIFEXITED (wstatus) && WEXITSTATUS (wstatus) == 0;

  Check c;
  check_trace (dir, &c, calls_table);
  g_autoptr (GError) merr = NULL;
  if (!write_manifest (dir, &c, command, started, wall, exit_word, &merr))
    fprintf (stderr, "%s: error: cannot write the manifest: %s\n", program, merr->message);
  if (!command_ok)
    fprintf (stderr, "%s: %s ended with %s%s\n", program, cmd[0],
             WIFSIGNALED (wstatus) ? "" : "exit status ", exit_word);
  if (!quiet || c.n_problems > 0)
    print_summary (dir, &c, calls_table);
  int status = c.n_problems > 0 ? EXIT_INVALID : merr != NULL ? EXIT_FAIL
             : command_ok ? EXIT_OK : EXIT_INVALID;
  check_clear (&c);
  return status;
}

int
main (int argc, char **argv)
{
  g_autofree char *output = NULL, *library = NULL, *check = NULL, *print = NULL, *cpu = NULL;
  gboolean force = FALSE, version = FALSE, quiet = FALSE, calls_table = FALSE, no_times = FALSE;
  gint rank = -1;
  double flush = 1.0;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      "Write the trace to directory DIR (created; it must not exist, or be empty)", "DIR" },
    { "force", 'f', 0, G_OPTION_ARG_NONE, &force,
      "Replace the trace already in DIR (its rank-*.ptc files and manifest, nothing else)", NULL },
    { "cpu-time", 0, 0, G_OPTION_ARG_STRING, &cpu,
      "How the CPU time of each computation burst is measured: switch (the thread's CPU clock "
      "read only when the thread was descheduled, detected by a perf_event page, no system "
      "call otherwise), exact (read at both ends of every burst: two system calls per MPI "
      "call), none; default: switch", "MODE" },
    { "flush-interval", 0, 0, G_OPTION_ARG_DOUBLE, &flush,
      "Write buffered records at least every SECONDS (at the next MPI call), so a killed "
      "program loses at most that much; default: 1", "SECONDS" },
    { "library", 0, 0, G_OPTION_ARG_FILENAME, &library,
      "The capture library to preload; default: $PTI_CAPTURE_LIBRARY, else the one built or "
      "installed with pticapture", "FILE" },
    { "calls", 0, 0, G_OPTION_ARG_NONE, &calls_table,
      "After the capture (or with --check), print how many times each MPI function was "
      "called, in total and per rank", NULL },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "Print nothing unless something is wrong", NULL },
    { "check", 0, 0, G_OPTION_ARG_FILENAME, &check,
      "Check the trace in DIR (every rank present, complete and undamaged), rewrite its "
      "manifest and exit", "DIR" },
    { "print", 0, 0, G_OPTION_ARG_FILENAME, &print,
      "Print the records of the trace in DIR (or of one rank file), one line per call, and "
      "exit", "DIR" },
    { "rank", 0, 0, G_OPTION_ARG_INT, &rank, "With --print: only rank N", "N" },
    { "no-times", 0, 0, G_OPTION_ARG_NONE, &no_times,
      "With --print: leave out the times (to compare two runs)", NULL },
    { "version", 0, 0, G_OPTION_ARG_NONE, &version, "Print the version and exit", NULL },
    { NULL },
  };
  g_autoptr (GOptionContext) oc = g_option_context_new ("-o DIR -- COMMAND [ARGS...]");
  g_option_context_add_main_entries (oc, entries, NULL);
  /* options end at COMMAND, "--" or not: its own options are its own */
  g_option_context_set_strict_posix (oc, TRUE);
  g_option_context_set_summary (oc,
    "Run COMMAND, an MPI program built with Open MPI (typically \"mpirun -np N PROGRAM "
    "ARGS\"), with pti's capture library preloaded, and record every MPI call of every rank "
    "and the computation between them into DIR, a trace pti replays (capture/FORMAT.md).  "
    "C and Fortran programs, without recompiling them.");
  g_option_context_set_description (oc,
    "Exit status: 0 ok; 2 usage error; 3 the trace is incomplete or damaged (a rank crashed, "
    "was killed, aborted or never called MPI_Init), or the command failed; 1 other failure.\n"
    "Times in seconds, sizes in bytes.\n\n"
    "Environment:\n"
    "  PTI_CAPTURE_LIBRARY   the capture library, if not --library\n"
    "  LD_PRELOAD            kept: the capture library goes first\n"
    "Open MPI's mpirun/mpiexec gets -x LD_PRELOAD -x PTI_CAPTURE_... so ranks on other hosts "
    "are captured too; other launchers must pass the environment on themselves.");
  g_autoptr (GError) error = NULL;
  /* -oDIR attached; the command after "--" as given */
  g_auto (GStrv) args = pti_cli_split_attached (PTI_CLI_GROUPS (entries), argc, argv);
  if (!g_option_context_parse_strv (oc, &args, &error))
    return usage_error ("%s", error->message);
  argc = (int) g_strv_length (args);
  argv = args;
  if (version) {
    printf ("%s (pti %s, trace format %d.%d)\n", program, PTI_VERSION, PTI_CAPTURE_MAJOR,
            PTI_CAPTURE_MINOR);
    return EXIT_OK;
  }
  int modes = (check != NULL) + (print != NULL) + (output != NULL);
  if (modes != 1)
    return usage_error (modes == 0 ? "expected -o DIR -- COMMAND, --check DIR or --print DIR"
                                   : "-o, --check and --print exclude each other");
  if (rank != -1 && print == NULL)
    return usage_error ("--rank goes with --print");
  if (rank < -1)
    return usage_error ("--rank %d: expected a rank, 0 or more", rank);
  if (no_times && print == NULL)
    return usage_error ("--no-times goes with --print");
  if (print != NULL)
    return argc > 1 ? usage_error ("unexpected %s after --print DIR", argv[1])
                    : print_trace (print, rank, !no_times);
  if (check != NULL) {
    if (argc > 1)
      return usage_error ("unexpected %s after --check DIR", argv[1]);
    if (!g_file_test (check, G_FILE_TEST_IS_DIR))
      return fail (EXIT_INVALID, "%s: not a directory (a trace is the directory -o made)", check);
    Check c;
    check_trace (check, &c, TRUE);
    g_autofree char *mpath = g_build_filename (check, "manifest", NULL);
    /* keep what only the capture knew: command, start, wall, exit */
    g_autoptr (GKeyFile) old = g_key_file_new ();
    gboolean had = g_key_file_load_from_file (old, mpath, G_KEY_FILE_NONE, NULL);
    g_autofree char *command = had ? g_key_file_get_string (old, "capture", "command", NULL) : NULL;
    g_autofree char *started = had ? g_key_file_get_string (old, "capture", "started", NULL) : NULL;
    g_autofree char *exit_word = had ? g_key_file_get_string (old, "capture", "exit", NULL) : NULL;
    double wall = had && g_key_file_has_key (old, "capture", "wall_s", NULL)
                    ? g_key_file_get_double (old, "capture", "wall_s", NULL) : -1;
    int status = c.n_problems > 0 ? EXIT_INVALID : EXIT_OK;
    if (!write_manifest (check, &c, command, started, wall, exit_word, &error)) {
      fprintf (stderr, "%s: error: cannot write the manifest: %s\n", program, error->message);
      status = EXIT_FAIL;
    }
    if (!quiet || c.n_problems > 0)
      print_summary (check, &c, calls_table);
    check_clear (&c);
    return status;
  }
  /* capture */
  if (argc < 2)
    return usage_error ("expected the command to run after -o %s --", output);
  if (argv[1][0] == '-' && strcmp (argv[1], "--") != 0)
    return usage_error ("unknown option %s", argv[1]);
  char **cmd = argv + 1;
  if (strcmp (cmd[0], "--") == 0)
    cmd++;
  if (cmd[0] == NULL)
    return usage_error ("expected the command to run after --");
  if (cpu == NULL)
    cpu = g_strdup ("switch");
  if (strcmp (cpu, "switch") != 0 && strcmp (cpu, "exact") != 0 && strcmp (cpu, "none") != 0)
    return usage_error ("--cpu-time %s: expected switch, exact or none", cpu);
  if (!(flush > 0 && flush <= 3600))
    return usage_error ("--flush-interval %g: expected seconds, more than 0 and at most 3600",
                        flush);
  g_autofree char *lib = find_library (library, &error);
  if (lib == NULL)
    return fail (EXIT_FAIL, "%s", error->message);
  if (!prepare_dir (output, force, &error))
    return fail (EXIT_FAIL, "%s", error->message);
  return run_command (cmd, output, lib, cpu, flush, quiet, calls_table);
}
