/* What the host says about itself: CPU model, processors, memory, caches.
 * Only for the comments of the files written (and the cache sizes for the
 * memory profile's range); every figure in the model elements is measured. */
#include "calibrate.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

static char *
read_trimmed (const char *path)
{
  char *text = NULL;
  if (!g_file_get_contents (path, &text, NULL, NULL))
    return NULL;
  return g_strstrip (text);
}

static char *
cpuinfo_field (const char *cpuinfo, const char *name)
{
  g_auto (GStrv) lines = g_strsplit (cpuinfo, "\n", -1);
  for (char **l = lines; *l != NULL; l++) {
    char *colon = strchr (*l, ':');
    if (colon == NULL)
      continue;
    g_autofree char *key = g_strstrip (g_strndup (*l, (gsize) (colon - *l)));
    if (strcmp (key, name) == 0)
      return g_strstrip (g_strdup (colon + 1));
  }
  return NULL;
}

static char *
human_bytes (guint64 b)
{
  if (b >= ((guint64) 1 << 30) && b % ((guint64) 1 << 30) == 0)
    return g_strdup_printf ("%" G_GUINT64_FORMAT " GiB", b >> 30);
  if (b >= ((guint64) 1 << 20) && b % ((guint64) 1 << 20) == 0)
    return g_strdup_printf ("%" G_GUINT64_FORMAT " MiB", b >> 20);
  if (b >= 1024 && b % 1024 == 0)
    return g_strdup_printf ("%" G_GUINT64_FORMAT " KiB", b >> 10);
  return g_strdup_printf ("%" G_GUINT64_FORMAT " B", b);
}

/* sysfs sizes: "48K", "1024K", "32768K". */
static guint64
parse_size (const char *s)
{
  if (s == NULL)
    return 0;
  char *end;
  guint64 v = g_ascii_strtoull (s, &end, 10);
  if (*end == 'K')
    v <<= 10;
  else if (*end == 'M')
    v <<= 20;
  return v;
}

void
cal_host_read (CalHost *h)
{
  memset (h, 0, sizeof *h);
  g_autofree char *cpuinfo = NULL;
  g_file_get_contents ("/proc/cpuinfo", &cpuinfo, NULL, NULL);
  if (cpuinfo != NULL) {
    h->cpu_model = cpuinfo_field (cpuinfo, "model name");
    g_autofree char *fam = cpuinfo_field (cpuinfo, "cpu family");
    g_autofree char *mod = cpuinfo_field (cpuinfo, "model");
    g_autofree char *step = cpuinfo_field (cpuinfo, "stepping");
    if (fam != NULL && mod != NULL)
      h->cpu_id = g_strdup_printf ("family %s model %s stepping %s", fam, mod,
                                   step ? step : "?");
    g_autofree char *flags = cpuinfo_field (cpuinfo, "flags");
    h->virtual_machine = flags != NULL && strstr (flags, " hypervisor") != NULL;
    /* sockets: distinct "physical id" values */
    GHashTable *ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
    g_auto (GStrv) lines = g_strsplit (cpuinfo, "\n", -1);
    for (char **l = lines; *l != NULL; l++)
      if (g_str_has_prefix (*l, "physical id")) {
        char *colon = strchr (*l, ':');
        if (colon != NULL)
          g_hash_table_add (ids, g_strstrip (g_strdup (colon + 1)));
      }
    h->sockets = MAX (1u, g_hash_table_size (ids));
    g_hash_table_unref (ids);
  }
  if (h->cpu_model == NULL)
    h->cpu_model = g_strdup ("unknown CPU");
  long n = sysconf (_SC_NPROCESSORS_ONLN);
  h->cpus_online = n > 0 ? (guint) n : 1;
  long pages = sysconf (_SC_PHYS_PAGES), page = sysconf (_SC_PAGESIZE);
  h->memory_bytes = pages > 0 && page > 0 ? (guint64) pages * (guint64) page : 0;

  g_autofree char *siblings = read_trimmed ("/sys/devices/system/cpu/cpu0/topology/thread_siblings_list");
  h->threads_per_core = 1;
  if (siblings != NULL) {
    /* "0", "0-1" or "0,32" */
    guint count = 0;
    g_auto (GStrv) parts = g_strsplit (siblings, ",", -1);
    for (char **p = parts; *p != NULL; p++) {
      unsigned a, b;
      if (sscanf (*p, "%u-%u", &a, &b) == 2 && b >= a)
        count += b - a + 1;
      else
        count++;
    }
    h->threads_per_core = MAX (1u, count);
  }

  GString *caches = g_string_new (NULL);
  for (int i = 0; i < 8; i++) {
    g_autofree char *dir = g_strdup_printf ("/sys/devices/system/cpu/cpu0/cache/index%d", i);
    g_autofree char *lp = g_build_filename (dir, "level", NULL);
    g_autofree char *tp = g_build_filename (dir, "type", NULL);
    g_autofree char *sp = g_build_filename (dir, "size", NULL);
    g_autofree char *level = read_trimmed (lp), *type = read_trimmed (tp), *size = read_trimmed (sp);
    if (level == NULL || size == NULL)
      continue;
    guint64 bytes = parse_size (size);
    g_autofree char *hb = human_bytes (bytes);
    const char *t = type == NULL ? "" : strcmp (type, "Data") == 0 ? "d"
                                      : strcmp (type, "Instruction") == 0 ? "i" : "";
    g_string_append_printf (caches, "%sL%s%s %s", caches->len ? ", " : "", level, t, hb);
    if (type == NULL || strcmp (type, "Instruction") != 0) {
      h->last_cache_bytes = MAX (h->last_cache_bytes, bytes);
      guint64 lv = g_ascii_strtoull (level, NULL, 10);
      if (lv >= 1 && lv <= G_N_ELEMENTS (h->data_cache_bytes))
        h->data_cache_bytes[lv - 1] = bytes;
    }
  }
  if (caches->len == 0) {
    /* No sysfs cache directory (some virtual machines): what the C
     * library reads from the CPU itself. */
    static const struct { int name; const char *label; int level; } levels[] = {
      { _SC_LEVEL1_DCACHE_SIZE, "L1d", 1 }, { _SC_LEVEL1_ICACHE_SIZE, "L1i", 0 },
      { _SC_LEVEL2_CACHE_SIZE, "L2", 2 }, { _SC_LEVEL3_CACHE_SIZE, "L3", 3 },
      { _SC_LEVEL4_CACHE_SIZE, "L4", 4 } };
    for (guint i = 0; i < G_N_ELEMENTS (levels); i++) {
      long v = sysconf (levels[i].name);
      if (v <= 0)
        continue;
      g_autofree char *hb = human_bytes ((guint64) v);
      g_string_append_printf (caches, "%s%s %s", caches->len ? ", " : "", levels[i].label, hb);
      if (levels[i].level > 0) {
        h->last_cache_bytes = MAX (h->last_cache_bytes, (guint64) v);
        h->data_cache_bytes[levels[i].level - 1] = (guint64) v;
      }
    }
  }
  h->caches = g_string_free (caches, caches->len == 0);
  if (h->caches == NULL)
    h->caches = g_strdup ("not reported");

  struct utsname u;
  h->kernel = uname (&u) == 0 ? g_strdup_printf ("%s %s %s", u.sysname, u.release, u.machine)
                              : g_strdup ("unknown");
  h->hostname = g_strdup (g_get_host_name ());
  g_autofree char *thp = read_trimmed ("/sys/kernel/mm/transparent_hugepage/enabled");
  h->thp = thp ? g_strdup (thp) : g_strdup ("unknown");
}

void
cal_host_clear (CalHost *h)
{
  g_free (h->cpu_model);
  g_free (h->cpu_id);
  g_free (h->caches);
  g_free (h->kernel);
  g_free (h->hostname);
  g_free (h->thp);
  memset (h, 0, sizeof *h);
}

double
cal_load_average (void)
{
  g_autofree char *text = read_trimmed ("/proc/loadavg");
  if (text == NULL)
    return NAN;
  return g_ascii_strtod (text, NULL);
}
