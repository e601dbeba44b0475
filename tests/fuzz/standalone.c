/* libFuzzer's command line for a harness built without libFuzzer (gcc):
 *
 *   fuzz-TARGET [-runs=N] [-max_total_time=S] [-seed=N] [-max_len=N] CORPUS...
 *
 * Runs the harness on every file of each CORPUS directory (or CORPUS file),
 * then on mutations of them (bit flips, bytes of XML's syntax, deletions,
 * duplications, splices) until -runs executions in all or -max_total_time
 * seconds, whichever comes first (no limit: the corpus once).  Mutations
 * follow a fixed pseudo-random sequence from -seed, so a run repeats
 * exactly.  Other -flag=value options of libFuzzer are accepted and
 * ignored, so scripts drive both builds the same way.  If an input crashes
 * the harness, it is written to ./crash-standalone-PID before the process
 * dies.  Not coverage-guided: a replay and a smoke test, not a fuzzer. */
#include "fuzz.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
  guint8 *data;
  gsize size;
} Unit;

/* The input being run, for the crash handler. */
static const guint8 *volatile current_data;
static volatile gsize current_size;

static void
on_crash (int sig)
{
  char name[64];
  int n = snprintf (name, sizeof name, "crash-standalone-%ld", (long) getpid ());
  if (n > 0 && current_data != NULL) {
    int fd = open (name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd >= 0) {
      gsize done = 0;
      while (done < current_size) {
        ssize_t w = write (fd, (const char *) current_data + done, current_size - done);
        if (w <= 0)
          break;
        done += (gsize) w;
      }
      close (fd);
      static const char msg[] = "standalone: the crashing input is in ./crash-standalone-PID\n";
      if (write (STDERR_FILENO, msg, sizeof msg - 1) < 0) {
        /* nothing more can be done in a dying process */
      }
    }
  }
  signal (sig, SIG_DFL);
  raise (sig);
}

static guint64 rng_state;

static guint64
rng (void)
{
  /* xorshift64*: fixed sequence from the seed, good enough to pick mutations */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * G_GUINT64_CONSTANT (2685821657736338717);
}

static gsize
below (gsize n)
{
  return n > 0 ? (gsize) (rng () % n) : 0;
}

static void
add_file (GPtrArray *units, const char *path, gsize max_len)
{
  g_autofree char *text = NULL;
  gsize len = 0;
  if (!g_file_get_contents (path, &text, &len, NULL))
    return;
  Unit *u = g_new (Unit, 1);
  u->size = MIN (len, max_len);
  u->data = g_memdup2 (text, MAX (u->size, 1));
  g_ptr_array_add (units, u);
}

static void
unit_free (gpointer p)
{
  Unit *u = p;
  g_free (u->data);
  g_free (u);
}

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* The files of @dir in name order, so runs repeat. */
static void
add_dir (GPtrArray *units, const char *dir, gsize max_len)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  if (d == NULL)
    return;
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  for (const char *n; (n = g_dir_read_name (d)) != NULL;)
    g_ptr_array_add (names, g_build_filename (dir, n, NULL));
  g_dir_close (d);
  g_ptr_array_sort (names, compare_names);
  for (guint i = 0; i < names->len; i++)
    if (g_file_test (g_ptr_array_index (names, i), G_FILE_TEST_IS_REGULAR))
      add_file (units, g_ptr_array_index (names, i), max_len);
}

/* Pieces of the inputs' syntax that single-byte changes rarely make. */
static const char *const tokens[] = {
  "<", ">", "/>", "</", "=\"", "\"", "'", "&", "&amp;", "&#0;", "&#x110000;", "<!--", "-->",
  "<![CDATA[", "]]>", "<!DOCTYPE a [<!ENTITY e \"x\">]>", "<?xml version=\"1.0\"?>",
  "xmlns=\"urn:x\"", "xmlns:m=\"urn:pti:model:net-contention\"", "0", "-1", "1e308", "nan",
  "inf", "4294967296", "18446744073709551616", "0.5", "*", "?", "[", "]", ":", "#", "\n",
  "\t", " ", "\xc3\xa9", "\xe2\x80\x9d", "\xff", "\xe6", "\x00", "rank", "nprocs", "LFOR",
  "MFDL", "us", "ms", "Gb/s", "MB/s", "link_load[", "background_load", "myrinet",
};

static void
mutate (GByteArray *b, const GPtrArray *units, gsize max_len)
{
  guint ops = 1 + (guint) below (4);
  for (guint k = 0; k < ops; k++) {
    gsize n = b->len;
    switch (below (8)) {
    case 0:   /* flip a bit */
      if (n > 0)
        b->data[below (n)] ^= (guint8) (1u << below (8));
      break;
    case 1: { /* a random byte */
      guint8 c = (guint8) below (256);
      if (n > 0)
        b->data[below (n)] = c;
      break;
    }
    case 2: { /* insert a token */
      const char *t = tokens[below (G_N_ELEMENTS (tokens))];
      gsize len = t[0] != '\0' ? strlen (t) : 1;
      gsize at = below (n + 1);
      g_byte_array_set_size (b, (guint) (n + len));
      memmove (b->data + at + len, b->data + at, n - at);
      memcpy (b->data + at, t, len);
      break;
    }
    case 3:   /* delete a range */
      if (n > 0) {
        gsize at = below (n), len = 1 + below (MIN (n - at, 64));
        g_byte_array_remove_range (b, (guint) at, (guint) len);
      }
      break;
    case 4:   /* duplicate a range */
      if (n > 0) {
        gsize at = below (n), len = 1 + below (MIN (n - at, 256));
        g_autofree guint8 *copy = g_memdup2 (b->data + at, len);
        gsize to = below (n + 1);
        g_byte_array_set_size (b, (guint) (n + len));
        memmove (b->data + to + len, b->data + to, n - to);
        memcpy (b->data + to, copy, len);
      }
      break;
    case 5: { /* splice: the start of this, the end of another */
      const Unit *o = g_ptr_array_index (units, below (units->len));
      gsize keep = below (n + 1), from = below (o->size + 1);
      g_byte_array_set_size (b, (guint) keep);
      g_byte_array_append (b, o->data + from, (guint) (o->size - from));
      break;
    }
    case 6:   /* truncate */
      g_byte_array_set_size (b, (guint) below (n + 1));
      break;
    default: { /* change a digit: numbers steer every parser here */
      for (gsize tries = 0; tries < 16 && n > 0; tries++) {
        gsize at = below (n);
        if (g_ascii_isdigit (b->data[at])) {
          b->data[at] = (guint8) ('0' + below (10));
          break;
        }
      }
      break;
    }
    }
  }
  if (b->len > max_len)
    g_byte_array_set_size (b, (guint) max_len);
}

static void
run (const guint8 *data, gsize size)
{
  current_size = size;
  current_data = data;
  LLVMFuzzerTestOneInput (data, size);
  current_data = NULL;
}

static gboolean
flag (const char *arg, const char *name, guint64 *value)
{
  gsize len = strlen (name);
  if (strncmp (arg, name, len) != 0 || arg[len] != '=')
    return FALSE;
  *value = g_ascii_strtoull (arg + len + 1, NULL, 10);
  return TRUE;
}

int
main (int argc, char **argv)
{
  guint64 runs = 0, max_time = 0, seed = 1, max_len = 1 << 20;
  g_autoptr (GPtrArray) paths = g_ptr_array_new ();
  for (int i = 1; i < argc; i++) {
    if (argv[i][0] == '-') {
      if (!flag (argv[i], "-runs", &runs) && !flag (argv[i], "-max_total_time", &max_time)
          && !flag (argv[i], "-seed", &seed) && !flag (argv[i], "-max_len", &max_len))
        fprintf (stderr, "standalone: %s ignored (libFuzzer's)\n", argv[i]);
      continue;
    }
    g_ptr_array_add (paths, argv[i]);
  }
  signal (SIGABRT, on_crash);
  signal (SIGSEGV, on_crash);
  signal (SIGBUS, on_crash);
  signal (SIGFPE, on_crash);
  signal (SIGILL, on_crash);
  signal (SIGTRAP, on_crash);

  g_autoptr (GPtrArray) units = g_ptr_array_new_with_free_func (unit_free);
  for (guint i = 0; i < paths->len; i++) {
    const char *p = g_ptr_array_index (paths, i);
    if (g_file_test (p, G_FILE_TEST_IS_DIR))
      add_dir (units, p, max_len);
    else
      add_file (units, p, max_len);
  }
  gint64 start = g_get_monotonic_time ();
  guint64 done = 0;
  for (guint i = 0; i < units->len && (runs == 0 || done < runs); i++, done++) {
    const Unit *u = g_ptr_array_index (units, i);
    run (u->data, u->size);
  }
  rng_state = seed ? seed : 1;
  g_autoptr (GByteArray) b = g_byte_array_new ();
  while (units->len > 0 && (runs > done || (runs == 0 && max_time > 0))
         && (max_time == 0 || g_get_monotonic_time () - start < (gint64) max_time * G_USEC_PER_SEC)) {
    const Unit *u = g_ptr_array_index (units, below (units->len));
    g_byte_array_set_size (b, 0);
    g_byte_array_append (b, u->data, (guint) u->size);
    mutate (b, units, max_len);
    run (b->data, b->len);
    done++;
  }
  double seconds = (g_get_monotonic_time () - start) / 1e6;
  fprintf (stderr, "standalone: %" G_GUINT64_FORMAT " executions (%u seeds) in %.1f s\n", done,
           units->len, seconds);
  return 0;
}
