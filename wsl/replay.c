/* Replaying traces: notes of what is not replayed, the format of ptieval's
 * workload argument recognised by content, and the push loop that drives a
 * per-rank source (replay.h). */
#include "replay.h"
#include "coll-private.h"

#include "xml.h"

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>
#include <string.h>

/* ---- notes ------------------------------------------------------------------- */

typedef struct {
  char *what;
  char *why;
  guint64 count;
} Note;

/* A function's calls, per rank. */
typedef struct {
  guint64 calls;
  double measured_s;
} CallFigures;

typedef struct {
  char *name;
  char *phase;             /* PHASE_PREFIX name */
  GArray *ranks;           /* CallFigures, grown to the highest rank met */
} Call;

/* A phase name the workload's own regions do not take: pti_region names
 * are the program's, and a program may name a region after an MPI
 * function, not with this prefix and a function's name both. */
#define PHASE_PREFIX "call_"

struct _PtiReplayNotes {
  GArray *notes;           /* Note, in the order first met */
  GHashTable *index;       /* what -> position + 1 */
  GArray *calls;           /* Call, in the order first met; NULL: calls not tracked */
  GHashTable *call_index;  /* name -> position + 1 */
};

static void
call_clear (gpointer data)
{
  Call *c = data;
  g_free (c->name);
  g_free (c->phase);
  g_array_unref (c->ranks);
}

static void
note_clear (gpointer data)
{
  Note *n = data;
  g_free (n->what);
  g_free (n->why);
}

PtiReplayNotes *
pti_replay_notes_new (void)
{
  PtiReplayNotes *notes = g_new0 (PtiReplayNotes, 1);
  notes->notes = g_array_new (FALSE, TRUE, sizeof (Note));
  g_array_set_clear_func (notes->notes, note_clear);
  notes->index = g_hash_table_new (g_str_hash, g_str_equal);
  return notes;
}

void
pti_replay_notes_free (PtiReplayNotes *notes)
{
  if (notes == NULL)
    return;
  if (notes->calls != NULL) {
    g_hash_table_unref (notes->call_index);
    g_array_unref (notes->calls);
  }
  g_hash_table_unref (notes->index);
  g_array_unref (notes->notes);
  g_free (notes);
}

void
pti_replay_notes_add (PtiReplayNotes *notes, const char *what, const char *why, guint64 count)
{
  if (notes == NULL)
    return;
  guint at = GPOINTER_TO_UINT (g_hash_table_lookup (notes->index, what));
  if (at == 0) {
    Note n = { g_strdup (what), g_strdup (why), 0 };
    g_array_append_val (notes->notes, n);
    at = notes->notes->len;
    /* the key is the note's own copy, which lives as long as the table */
    g_hash_table_insert (notes->index, g_array_index (notes->notes, Note, at - 1).what,
                         GUINT_TO_POINTER (at));
  }
  g_array_index (notes->notes, Note, at - 1).count += count;
}

guint
pti_replay_notes_len (const PtiReplayNotes *notes)
{
  return notes ? notes->notes->len : 0;
}

void
pti_replay_notes_get (const PtiReplayNotes *notes, guint i, const char **what, const char **why,
                      guint64 *count)
{
  const Note *n = &g_array_index (notes->notes, Note, i);
  *what = n->what;
  *why = n->why;
  *count = n->count;
}

void
pti_replay_notes_track_calls (PtiReplayNotes *notes)
{
  if (notes->calls != NULL)
    return;
  notes->calls = g_array_new (FALSE, TRUE, sizeof (Call));
  g_array_set_clear_func (notes->calls, call_clear);
  notes->call_index = g_hash_table_new (g_str_hash, g_str_equal);
}

gboolean
pti_replay_notes_tracks_calls (const PtiReplayNotes *notes)
{
  return notes != NULL && notes->calls != NULL;
}

guint
pti_replay_notes_call (PtiReplayNotes *notes, const char *name)
{
  guint at = GPOINTER_TO_UINT (g_hash_table_lookup (notes->call_index, name));
  if (at == 0) {
    Call c = { g_strdup (name), g_strconcat (PHASE_PREFIX, name, NULL),
               g_array_new (FALSE, TRUE, sizeof (CallFigures)) };
    g_array_append_val (notes->calls, c);
    at = notes->calls->len;
    g_hash_table_insert (notes->call_index, g_array_index (notes->calls, Call, at - 1).name,
                         GUINT_TO_POINTER (at));
  }
  return at - 1;
}

const char *
pti_replay_notes_call_phase (const PtiReplayNotes *notes, guint call)
{
  return g_array_index (notes->calls, Call, call).phase;
}

void
pti_replay_notes_call_add (PtiReplayNotes *notes, guint call, guint rank, guint64 calls,
                           double measured_s)
{
  GArray *ranks = g_array_index (notes->calls, Call, call).ranks;
  if (rank >= ranks->len)
    g_array_set_size (ranks, rank + 1);
  CallFigures *f = &g_array_index (ranks, CallFigures, rank);
  f->calls += calls;
  f->measured_s += measured_s;
}

guint
pti_replay_notes_n_calls (const PtiReplayNotes *notes)
{
  return pti_replay_notes_tracks_calls (notes) ? notes->calls->len : 0;
}

void
pti_replay_notes_call_get (const PtiReplayNotes *notes, guint call, guint rank,
                           const char **name, guint64 *calls, double *measured_s)
{
  const Call *c = &g_array_index (notes->calls, Call, call);
  *name = c->name;
  const CallFigures *f = rank < c->ranks->len ? &g_array_index (c->ranks, CallFigures, rank)
                                               : NULL;
  *calls = f ? f->calls : 0;
  *measured_s = f ? f->measured_s : 0;
}

gboolean
pti_replay_notes_is_call_phase (const PtiReplayNotes *notes, const char *phase)
{
  return pti_replay_notes_tracks_calls (notes) && g_str_has_prefix (phase, PHASE_PREFIX)
         && g_hash_table_contains (notes->call_index, phase + strlen (PHASE_PREFIX));
}

/* ---- what a file is ------------------------------------------------------------ */

const char *
pti_source_format_name (PtiSourceFormat format)
{
  switch (format) {
  case PTI_SOURCE_WORKLOAD_XML: return "workload file";
  case PTI_SOURCE_TI_INDEX: return "SimGrid time-independent trace (index)";
  case PTI_SOURCE_TI_ACTIONS: return "SimGrid time-independent trace";
  case PTI_SOURCE_DIMEMAS: return "Dimemas trace";
  case PTI_SOURCE_CAPTURE: return "pti capture";
  case PTI_SOURCE_UNKNOWN:
  default: return "unknown";
  }
}

/* A whole number, optionally signed: a TI rank. */
static gboolean
is_integer (const char *s, gsize len)
{
  gsize i = (len > 0 && s[0] == '-') ? 1 : 0;
  if (i == len)
    return FALSE;
  for (; i < len; i++)
    if (!g_ascii_isdigit (s[i]))
      return FALSE;
  return TRUE;
}

/* The rank files of a capture start so (capture/FORMAT.md section 3), its
 * manifest so (section 8). */
#define CAPTURE_MAGIC "\x89PTICAP\n"
#define CAPTURE_MANIFEST_GROUP "[capture]"

gboolean
pti_source_sniff (const char *path, PtiSourceFormat *format, GError **error)
{
  *format = PTI_SOURCE_UNKNOWN;
  if (g_file_test (path, G_FILE_TEST_IS_DIR)) {
    g_autofree char *rank0 = g_build_filename (path, "rank-0.ptc", NULL);
    g_autofree char *manifest = g_build_filename (path, "manifest", NULL);
    if (g_file_test (rank0, G_FILE_TEST_EXISTS) || g_file_test (manifest, G_FILE_TEST_EXISTS)) {
      *format = PTI_SOURCE_CAPTURE;
      return TRUE;
    }
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s is a directory, not a pticapture "
                 "trace: it holds neither rank-0.ptc nor a manifest", path);
    return FALSE;
  }
  struct stat st;
  int fd = pti_file_open_regular (path, &st, error);
  if (fd < 0) {
    if (error != NULL && *error != NULL)
      (*error)->code = PTI_ERROR_INVALID;   /* a workload that cannot be read: bad input */
    return FALSE;
  }
  FILE *fp = fdopen (fd, "rb");
  if (fp == NULL) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_IO, "%s: cannot read: %s", path, g_strerror (errno));
    close (fd);
    return FALSE;
  }
  char buf[4096];
  gsize n = fread (buf, 1, sizeof buf - 1, fp);
  fclose (fp);
  buf[n] = '\0';
  if (n >= sizeof CAPTURE_MAGIC - 1 && memcmp (buf, CAPTURE_MAGIC, sizeof CAPTURE_MAGIC - 1) == 0) {
    *format = PTI_SOURCE_CAPTURE;   /* a rank file: its directory is the trace */
    return TRUE;
  }
  if (memchr (buf, '\0', n) != NULL)
    return TRUE;   /* binary: nothing pti reads */
  const char *p = buf;
  if (n >= 3 && (guchar) p[0] == 0xef && (guchar) p[1] == 0xbb && (guchar) p[2] == 0xbf)
    p += 3;
  while (*p && g_ascii_isspace (*p))
    p++;
  if (g_str_has_prefix (p, "#DIMEMAS")) {
    *format = PTI_SOURCE_DIMEMAS;
    return TRUE;
  }
  if (g_str_has_prefix (p, CAPTURE_MANIFEST_GROUP)) {
    *format = PTI_SOURCE_CAPTURE;
    return TRUE;
  }
  if (*p == '<') {
    *format = PTI_SOURCE_WORKLOAD_XML;
    return TRUE;
  }
  /* TI: the first line that is neither empty nor a comment */
  while (*p) {
    const char *end = strchr (p, '\n');
    gsize len = end ? (gsize) (end - p) : strlen (p);
    const char *q = p;
    while (q < p + len && (*q == ' ' || *q == '\t' || *q == '\r'))
      q++;
    if (q == p + len || *q == '#') {
      p = end ? end + 1 : p + len;
      continue;
    }
    /* "RANK ACTION ...": an action file; otherwise a file name: an index */
    const char *t = q;
    while (t < p + len && *t != ' ' && *t != '\t')
      t++;
    const char *a = t;
    while (a < p + len && (*a == ' ' || *a == '\t'))
      a++;
    if (is_integer (q, t - q) && a < p + len && g_ascii_isalpha (*a))
      *format = PTI_SOURCE_TI_ACTIONS;
    else if (end != NULL || len < sizeof buf - 1)
      *format = PTI_SOURCE_TI_INDEX;
    return TRUE;
  }
  return TRUE;
}

/* ---- ptieval's workload argument --------------------------------------------------- */

/* A capture given by its directory, its manifest or one of its rank files.
 * A manifest that says the capture is incomplete (a rank crashed, was
 * killed or never wrote its file) stops it here, saying why; without a
 * manifest the reader finds the same at the end of the rank that stops. */
static gboolean
capture_build (PtiContext *ctx, const char *path, PtiReplayNotes *notes, GError **error)
{
  g_autofree char *dir = g_file_test (path, G_FILE_TEST_IS_DIR) ? g_strdup (path)
                                                                 : g_path_get_dirname (path);
  g_autofree char *manifest = g_build_filename (dir, "manifest", NULL);
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  if (g_file_test (manifest, G_FILE_TEST_IS_REGULAR)
      && g_key_file_load_from_file (kf, manifest, G_KEY_FILE_NONE, NULL)
      && g_key_file_has_key (kf, "capture", "complete", NULL)
      && !g_key_file_get_boolean (kf, "capture", "complete", NULL)) {
    g_autofree char *problem = g_key_file_get_string (kf, "capture", "problem", NULL);
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s: the capture is incomplete: %s; pti "
                 "predicts only complete runs (pticapture --check %s says more)", dir,
                 problem ? problem : "its manifest says so", dir);
    return FALSE;
  }
  return pti_replay_capture (ctx, dir, notes, error);
}

gboolean
pti_workload_build (PtiContext *ctx, const char *path, PtiReplayNotes *notes,
                    PtiSourceFormat *format_out, GError **error)
{
  PtiSourceFormat format;
  if (!pti_source_sniff (path, &format, error))
    return FALSE;
  if (format_out != NULL)
    *format_out = format;
  switch (format) {
  case PTI_SOURCE_WORKLOAD_XML:
    return pti_workload_file_build (ctx, path, error);
  case PTI_SOURCE_TI_INDEX:
  case PTI_SOURCE_TI_ACTIONS:
    return pti_replay_ti (ctx, path, format == PTI_SOURCE_TI_INDEX, notes, error);
  case PTI_SOURCE_DIMEMAS:
    return pti_replay_dimemas (ctx, path, notes, error);
  case PTI_SOURCE_CAPTURE:
    return capture_build (ctx, path, notes, error);
  case PTI_SOURCE_UNKNOWN:
  default:
    break;
  }
  g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
               "%s is not a workload pti reads: not a workload file (XML), a SimGrid "
               "time-independent trace (an index of action files, or an action file whose lines "
               "are \"RANK ACTION ...\"), a Dimemas trace (\"#DIMEMAS:...\") nor a pticapture "
               "trace (its directory, manifest or rank files)", path);
  return FALSE;
}
