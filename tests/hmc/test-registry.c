/* The model registry: built-in models, descriptor checks, shared objects
 * from the model path (accepted, refused for their ABI, a missing entry
 * point, an unloadable file, a duplicate name), listing and model info. */
#include "hmc-test.h"
#include "builtin-models.h"

#include <glib/gstdio.h>
#include <stddef.h>
#include <string.h>

/* ---- a valid descriptor to break one field at a time ---------------- */

static gpointer
fake_compile (const xmlNode *rud, PtiSymbols *symbols, GError **error)
{
  return NULL;
}

static gboolean
fake_cost (gconstpointer instance, gconstpointer compiled, const PtiSymbols *values,
           double *seconds, GError **error)
{
  *seconds = 0;
  return TRUE;
}

static gboolean
fake_configure (gpointer instance, const xmlNode *config, GError **error)
{
  return TRUE;
}

static double
fake_overhead (gconstpointer instance, guint64 bytes)
{
  return 0;
}

static guint64
fake_eager (gconstpointer instance)
{
  return 0;
}

static void
fake_transfer (gpointer instance, guint32 src, guint32 dst, guint64 bytes, double start,
               PtiTransfer *out)
{
}

static const PtiCpuOps fake_cpu_ops = { PTI_CPU_OPS_VERSION, fake_compile, g_free, fake_cost };
static gboolean
fake_burst (gconstpointer instance, double amount, double *seconds, GError **error)
{
  *seconds = amount;
  return TRUE;
}

/* A table as a model built against HMI CPU ops version 1 wrote it: no
 * version-2 fields at all. */
typedef struct {
  guint32 version;
  gpointer (*rud_compile) (const xmlNode *, PtiSymbols *, GError **);
  void (*rud_free) (gpointer);
  gboolean (*cost) (gconstpointer, gconstpointer, const PtiSymbols *, double *, GError **);
  const guint *(*rud_slots) (gconstpointer, guint *);
} CpuOpsV1;
static const CpuOpsV1 fake_cpu_ops_v1 = { 1, fake_compile, g_free, fake_cost, NULL };
static const PtiCpuOps fake_cpu_ops_v9 = { 9, fake_compile, g_free, fake_cost };
static const PtiCpuOps fake_cpu_ops_bursts = { .version = 2, .time_cost = fake_burst,
                                               .flops_cost = fake_burst };
static const PtiCpuOps fake_cpu_ops_nothing = { .version = 2 };
static const PtiCpuOps fake_cpu_ops_half = { .version = 2, .rud_compile = fake_compile,
                                             .time_cost = fake_burst };
static const PtiCpuOps fake_cpu_ops_nocost = { PTI_CPU_OPS_VERSION, fake_compile, g_free, NULL };
static const PtiNetOps fake_net_ops = { PTI_NET_OPS_VERSION, fake_overhead, fake_overhead,
                                        fake_eager, fake_transfer };
static const PtiNetOps fake_net_ops_notransfer = { PTI_NET_OPS_VERSION, fake_overhead,
                                                   fake_overhead, fake_eager, NULL };
static const PtiTraceRecordDesc fake_records[] = { { "r", "time", "a record" }, { NULL } };

static PtiModelDesc
fake_cpu (void)
{
  PtiModelDesc d = {
    .abi_version = PTI_HMI_ABI_VERSION,
    .struct_size = sizeof (PtiModelDesc),
    .name = "fake-cpu",
    .kind = "cpu",
    .config_element = "fake_cpu",
    .config_schema = "<x/>",
    .configure = fake_configure,
    .cpu = &fake_cpu_ops,
  };
  return d;
}

static void
test_check_desc_accepts (void)
{
  g_autoptr (GError) error = NULL;
  PtiModelDesc d = fake_cpu ();
  g_assert_true (pti_registry_check_desc (&d, "built-in", &error));
  g_assert_no_error (error);

  /* Version-1 cpu ops (no burst fields) and a model of bursts only. */
  d.cpu = (const PtiCpuOps *) &fake_cpu_ops_v1;
  g_assert_true (pti_registry_check_desc (&d, "built-in", &error));
  g_assert_no_error (error);
  d.cpu = &fake_cpu_ops_bursts;
  g_assert_true (pti_registry_check_desc (&d, "built-in", &error));
  g_assert_no_error (error);

  d.kind = "network";
  d.cpu = NULL;
  d.net = &fake_net_ops;
  g_assert_true (pti_registry_check_desc (&d, "built-in", &error));
  g_assert_no_error (error);
}

typedef void (*Breaker) (PtiModelDesc *d);

#define BREAK(id, body) static void break_##id (PtiModelDesc *d) { body; }
BREAK (abi, d->abi_version = 99)
BREAK (too_big, d->struct_size = sizeof (PtiModelDesc) + 8)
BREAK (too_small, d->struct_size = offsetof (PtiModelDesc, configure))
BREAK (no_name, d->name = NULL)
BREAK (bad_name, d->name = "Fake_CPU")
BREAK (empty_name, d->name = "")
BREAK (no_kind, d->kind = NULL)
BREAK (bad_kind, d->kind = "gpu")
BREAK (no_element, d->config_element = NULL)
BREAK (bad_element, d->config_element = "fake cpu")
BREAK (no_schema, d->config_schema = NULL)
BREAK (no_configure, d->configure = NULL)
BREAK (cpu_no_ops, d->cpu = NULL)
BREAK (cpu_ops_version, d->cpu = &fake_cpu_ops_v9)
BREAK (cpu_no_cost, d->cpu = &fake_cpu_ops_nocost)
BREAK (cpu_nothing, d->cpu = &fake_cpu_ops_nothing)
BREAK (cpu_half, d->cpu = &fake_cpu_ops_half)
BREAK (cpu_and_net, d->net = &fake_net_ops)
BREAK (net_no_ops, d->kind = "network"; d->cpu = NULL)
BREAK (net_missing_op, d->kind = "network"; d->cpu = NULL; d->net = &fake_net_ops_notransfer)
BREAK (records_no_ns, d->records = fake_records)
#undef BREAK

static void
test_check_desc_refuses (void)
{
  static const struct {
    Breaker breaker;
    const char *expect;
  } cases[] = {
    { break_abi, "built for HMI ABI 99, this pti speaks ABI 1; "
                 "rebuild the model against this pti" },
    { break_too_big, "more than the" },
    { break_too_small, "fewer than the" },
    { break_no_name, "has no name" },
    { break_bad_name, "model name 'Fake_CPU' must match [a-z0-9-]+" },
    { break_empty_name, "must match [a-z0-9-]+" },
    { break_no_kind, "model 'fake-cpu' has no kind" },
    { break_bad_kind, "has kind 'gpu'; known kinds: cpu, network" },
    { break_no_element, "has no config_element" },
    { break_bad_element, "'fake cpu' is not an XML element name" },
    { break_no_schema, "has no config_schema" },
    { break_no_configure, "has no configure" },
    { break_cpu_no_ops, "kind cpu but has no cpu ops" },
    { break_cpu_ops_version, "cpu ops version 9, this pti speaks 1 to 2" },
    { break_cpu_no_cost, "cpu ops need rud_fold (or rud_compile), rud_free and cost (or none of "
                         "them" },
    { break_cpu_nothing, "cpu ops need rud_fold (or rud_compile), rud_free and cost (or none of "
                         "them, and time_cost or flops_cost for a model of bursts only)" },
    { break_cpu_half, "cpu ops need rud_fold (or rud_compile), rud_free and cost" },
    { break_cpu_and_net, "also sets net ops" },
    { break_net_no_ops, "kind network but has no net ops" },
    { break_net_missing_op, "net ops need transfer (a cost model) or flow_start, flow_next and flow_advance" },
    { break_records_no_ns, "no records_namespace" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    g_autoptr (GError) error = NULL;
    PtiModelDesc d = fake_cpu ();
    cases[i].breaker (&d);
    g_assert_false (pti_registry_check_desc (&d, "some/libfake.so", &error));
    hmc_assert_error (error, PTI_ERROR_MODEL, "some/libfake.so: ", cases[i].expect, NULL);
  }
}

/* ---- built-ins -------------------------------------------------------- */

static void
test_builtins (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (PtiRegistry) reg = pti_registry_new (NULL, &error);
  g_assert_no_error (error);

  /* Sorted by name; more built-ins may come, these two are there. */
  guint n = 0;
  const PtiModelDesc *const *list = pti_registry_list (reg, &n);
  g_assert_cmpuint (n, >=, 2);
  for (guint i = 1; i < n; i++)
    g_assert_cmpint (strcmp (list[i - 1]->name, list[i]->name), <, 0);
  for (guint i = 0; i < n; i++)
    g_assert_cmpstr (pti_registry_origin (reg, list[i]), ==, "built-in");

  const PtiModelDesc *clc = pti_registry_find (reg, "cpu-clc");
  const PtiModelDesc *simple = pti_registry_find (reg, "net-simple");
  g_assert_nonnull (clc);
  g_assert_nonnull (simple);
  g_assert_true (pti_registry_find_element (reg, "cpu_clc") == clc);
  g_assert_true (pti_registry_find_element (reg, "net_simple") == simple);
  g_assert_null (pti_registry_find (reg, "cpu_clc"));
  g_assert_null (pti_registry_find_element (reg, "cpu-clc"));
  g_assert_null (pti_registry_find (reg, "example-cpu"));
  g_assert_cmpstr (clc->kind, ==, "cpu");
  g_assert_nonnull (clc->cpu);
  g_assert_null (clc->net);
  g_assert_cmpstr (simple->kind, ==, "network");
  g_assert_nonnull (simple->net);

  /* The registry keeps its own copy of each descriptor, and of its ops
   * table (as far as the table's version goes). */
  g_assert_true (clc != &pti_model_cpu_clc);
  PtiModelDesc copy = *clc;
  g_assert_true (copy.cpu != pti_model_cpu_clc.cpu);
  g_assert_cmpmem (copy.cpu, sizeof (PtiCpuOps), pti_model_cpu_clc.cpu, sizeof (PtiCpuOps));
  copy.cpu = pti_model_cpu_clc.cpu;
  g_assert_cmpmem (&copy, sizeof (PtiModelDesc), &pti_model_cpu_clc, sizeof (PtiModelDesc));

  g_autofree char *names = pti_registry_names (reg);
  GString *expect = g_string_new (NULL);
  for (guint i = 0; i < n; i++)
    g_string_append_printf (expect, "%s%s", i ? ", " : "", list[i]->name);
  g_autofree char *expect_s = g_string_free (expect, FALSE);
  g_assert_cmpstr (names, ==, expect_s);

  /* Model schemas compile once and are cached. */
  struct _xmlSchema *s1 = pti_registry_schema (reg, clc, &error);
  g_assert_no_error (error);
  g_assert_nonnull (s1);
  g_assert_true (pti_registry_schema (reg, clc, &error) == s1);
  g_assert_nonnull (pti_registry_schema (reg, simple, &error));
  g_assert_no_error (error);
}

static void
test_print (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (PtiRegistry) reg = pti_registry_new (hmc_dirs.good, &error);
  g_assert_no_error (error);

  g_autoptr (GString) list = g_string_new (NULL);
  pti_registry_print_list (reg, list);
  g_test_message ("%s", list->str);
  guint n = 0;
  pti_registry_list (reg, &n);
  g_auto (GStrv) lines = g_strsplit (list->str, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, n + 2);   /* header, models, "" */
  g_assert_cmpstr (lines[n + 1], ==, "");
  g_assert_true (g_str_has_prefix (lines[0], "NAME"));
  g_assert_nonnull (strstr (lines[0], "KIND"));
  g_assert_nonnull (strstr (lines[0], "HMC ELEMENT"));
  g_assert_nonnull (strstr (lines[0], "ORIGIN"));
  g_assert_nonnull (strstr (lines[0], "SUMMARY"));
  guint i_clc = 0, i_ex = 0, i_simple = 0;
  for (guint i = 1; i <= n; i++) {
    if (g_str_has_prefix (lines[i], "cpu-clc "))
      i_clc = i;
    else if (g_str_has_prefix (lines[i], "example-cpu "))
      i_ex = i;
    else if (g_str_has_prefix (lines[i], "net-simple "))
      i_simple = i;
  }
  g_assert_cmpuint (i_clc, >, 0);
  g_assert_cmpuint (i_ex, >, i_clc);       /* name order */
  g_assert_cmpuint (i_simple, >, i_ex);
  const char *clc = lines[i_clc], *ex = lines[i_ex], *simple = lines[i_simple];
  g_assert_nonnull (strstr (clc, "<cpu_clc>"));
  g_assert_nonnull (strstr (clc, "built-in"));
  g_assert_nonnull (strstr (ex, " cpu "));
  g_assert_nonnull (strstr (ex, "<example_cpu>"));
  g_assert_nonnull (strstr (ex, " libpti-model-example.so "));
  g_assert_nonnull (strstr (ex, "test model: a fixed cost per RUD element"));
  g_assert_nonnull (strstr (simple, " network "));
  /* Columns line up. */
  gsize col = (gsize) (strstr (lines[0], "ORIGIN") - lines[0]);
  g_assert_true (strncmp (clc + col, "built-in", 8) == 0);
  g_assert_true (strncmp (ex + col, "libpti-model-example.so", 23) == 0);

  g_autoptr (GString) info = g_string_new (NULL);
  g_assert_true (pti_registry_print_info (reg, "example-cpu", info, &error));
  g_assert_no_error (error);
  g_test_message ("%s", info->str);
  static const char *const expect[] = {
    "example-cpu - test model: a fixed cost per RUD element",
    "kind:        cpu",
    "HMC element: <example_cpu>",
    "libpti-model-example.so",
    "cost = op x (number of elements in the RUD)",
    "Parameters (children of <example_cpu>):",
    "  op\n",
    "unit:    time (unit attribute)",
    "default: required",
    "cost of one RUD element",
    "Trace records (namespace urn:pti:test:example-cpu):",
    "<tick time count>",
    "one record per priced RUD",
  };
  for (guint i = 0; i < G_N_ELEMENTS (expect); i++)
    if (strstr (info->str, expect[i]) == NULL)
      g_error ("model info lacks \"%s\":\n%s", expect[i], info->str);

  g_string_truncate (info, 0);
  g_assert_true (pti_registry_print_info (reg, "net-simple", info, &error));
  g_assert_nonnull (strstr (info->str, "Trace records: none"));
  g_assert_nonnull (strstr (info->str, "origin:      built-in"));

  g_string_truncate (info, 0);
  g_assert_false (pti_registry_print_info (reg, "net-simpel", info, &error));
  hmc_assert_error (error, PTI_ERROR_INVALID, "unknown model 'net-simpel'; known models: ",
                    "cpu-clc, ", "example-cpu, ", "net-simple", NULL);
  g_assert_cmpuint (info->len, ==, 0);
}

/* ---- shared objects --------------------------------------------------- */

static void
test_load_good (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (PtiRegistry) reg = pti_registry_new (hmc_dirs.good, &error);
  g_assert_no_error (error);

  const PtiModelDesc *ex = pti_registry_find (reg, "example-cpu");
  g_assert_nonnull (ex);
  g_assert_true (pti_registry_find_element (reg, "example_cpu") == ex);
  g_autofree char *so = g_build_filename (hmc_dirs.good, "libpti-model-example.so", NULL);
  g_assert_cmpstr (pti_registry_origin (reg, ex), ==, so);
  g_assert_nonnull (ex->cpu);
  g_assert_nonnull (pti_registry_schema (reg, ex, &error));
  g_assert_no_error (error);

  /* The same folder in the argument and in PTI_MODEL_PATH loads once. */
  g_setenv ("PTI_MODEL_PATH", hmc_dirs.good, TRUE);
  g_autoptr (PtiRegistry) twice = pti_registry_new (hmc_dirs.good, &error);
  g_unsetenv ("PTI_MODEL_PATH");
  g_assert_no_error (error);
  guint n = 0, n_twice = 0;
  pti_registry_list (reg, &n);
  pti_registry_list (twice, &n_twice);
  g_assert_cmpuint (n_twice, ==, n);
}

static void
test_env_path (void)
{
  g_autoptr (GError) error = NULL;
  /* Empty entries and missing folders in the search path are skipped. */
  g_autofree char *missing = hmc_scratch ("no-such-folder");
  g_autofree char *path = g_strdup_printf ("::%s::%s:", missing, hmc_dirs.good);
  g_setenv ("PTI_MODEL_PATH", path, TRUE);
  g_autoptr (PtiRegistry) reg = pti_registry_new (NULL, &error);
  g_unsetenv ("PTI_MODEL_PATH");
  g_assert_no_error (error);
  g_assert_nonnull (pti_registry_find (reg, "example-cpu"));

  /* A folder named explicitly must exist. */
  g_autoptr (PtiRegistry) none = pti_registry_new (missing, &error);
  g_assert_null (none);
  hmc_assert_error (error, PTI_ERROR_IO, "model path ", "no-such-folder", NULL);
}

static void
test_refuse_abi (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (PtiRegistry) reg = pti_registry_new (hmc_dirs.badabi, &error);
  g_assert_null (reg);
  g_autofree char *so = g_build_filename (hmc_dirs.badabi, "libpti-model-badabi.so", NULL);
  g_autofree char *prefix = g_strdup_printf ("%s: ", so);
  hmc_assert_error (error, PTI_ERROR_MODEL, prefix,
                    "built for HMI ABI 99, this pti speaks ABI 1; "
                    "rebuild the model against this pti",
                    NULL);

  /* Through the environment, after a good folder, the same. */
  g_clear_error (&error);
  g_autofree char *path = g_strdup_printf ("%s:%s", hmc_dirs.good, hmc_dirs.badabi);
  g_setenv ("PTI_MODEL_PATH", path, TRUE);
  g_autoptr (PtiRegistry) reg2 = pti_registry_new (NULL, &error);
  g_unsetenv ("PTI_MODEL_PATH");
  g_assert_null (reg2);
  hmc_assert_error (error, PTI_ERROR_MODEL, prefix, "ABI 99", NULL);
}

/* An absurd instance size is refused when the model is loaded, like a
 * wrong ABI (it aborted in GLib when a system configured the model). */
static void
test_refuse_instance_size (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (PtiRegistry) reg = pti_registry_new (hmc_dirs.hugesize, &error);
  g_assert_null (reg);
  g_autofree char *so = g_build_filename (hmc_dirs.hugesize, "libpti-model-hugesize.so", NULL);
  g_autofree char *want = g_strdup_printf ("%s: model 'example-huge' declares an instance of "
                                           "1152921504606846976 bytes (instance_size), more "
                                           "than the 16777216 a model instance may have; "
                                           "allocate large state in configure", so);
  g_assert_error (error, PTI_ERROR, PTI_ERROR_MODEL);
  g_assert_cmpstr (error->message, ==, want);
}

static void
test_refuse_nosym (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (PtiRegistry) reg = pti_registry_new (hmc_dirs.nosym, &error);
  g_assert_null (reg);
  g_autofree char *so = g_build_filename (hmc_dirs.nosym, "libpti-model-nosym.so", NULL);
  hmc_assert_error (error, PTI_ERROR_MODEL, so, "no symbol 'pti_model_describe'",
                    "PTI_MODEL_DEFINE", NULL);
}

static gboolean
copy_file (const char *from, const char *to)
{
  g_autofree char *bytes = NULL;
  gsize len = 0;
  return g_file_get_contents (from, &bytes, &len, NULL)
         && g_file_set_contents (to, bytes, (gssize) len, NULL);
}

static void
test_refuse_unloadable (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = hmc_scratch ("junk-models");
  g_assert_cmpint (g_mkdir (dir, 0700), ==, 0);
  g_autofree char *junk = g_build_filename (dir, "libjunk.so", NULL);
  g_assert_true (g_file_set_contents (junk, "this is not an ELF file\n", -1, NULL));
  /* Files not ending in .so are not looked at. */
  g_autofree char *readme = g_build_filename (dir, "README.md", NULL);
  g_assert_true (g_file_set_contents (readme, "notes\n", -1, NULL));

  g_autoptr (PtiRegistry) reg = pti_registry_new (dir, &error);
  g_assert_null (reg);
  g_autofree char *prefix = g_strdup_printf ("%s: not a loadable model: ", junk);
  hmc_assert_error (error, PTI_ERROR_MODEL, prefix, NULL);

  g_remove (junk);
  g_autoptr (PtiRegistry) ok = pti_registry_new (dir, &error);
  g_clear_error (&error);
  g_assert_nonnull (ok);
}

static void
test_refuse_duplicate (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = hmc_scratch ("copy-models");
  g_assert_cmpint (g_mkdir (dir, 0700), ==, 0);
  g_autofree char *orig = g_build_filename (hmc_dirs.good, "libpti-model-example.so", NULL);
  g_autofree char *copy = g_build_filename (dir, "libpti-model-example-copy.so", NULL);
  g_assert_true (copy_file (orig, copy));

  g_autofree char *path = g_strdup_printf ("%s:%s", hmc_dirs.good, dir);
  g_autoptr (PtiRegistry) reg = pti_registry_new (path, &error);
  g_assert_null (reg);
  g_autofree char *expect = g_strdup_printf (
    "model 'example-cpu' from %s is already provided by %s", copy, orig);
  hmc_assert_error (error, PTI_ERROR_MODEL, expect, NULL);
  g_remove (copy);

  /* Another name, but the same HMC element. */
  g_clear_error (&error);
  g_autofree char *path2 = g_strdup_printf ("%s:%s", hmc_dirs.good, hmc_dirs.extra);
  g_autoptr (PtiRegistry) reg2 = pti_registry_new (path2, &error);
  g_assert_null (reg2);
  g_autofree char *clash = g_build_filename (hmc_dirs.extra, "libpti-model-clash.so", NULL);
  g_autofree char *expect2 = g_strdup_printf (
    "model 'example-clash' from %s is configured by <example_cpu>, the element of model "
    "'example-cpu' from %s", clash, orig);
  hmc_assert_error (error, PTI_ERROR_MODEL, expect2, NULL);

  /* Alone, the clashing model is fine. */
  g_clear_error (&error);
  g_autoptr (PtiRegistry) reg3 = pti_registry_new (hmc_dirs.extra, &error);
  g_assert_no_error (error);
  g_assert_nonnull (pti_registry_find (reg3, "example-clash"));
}

/* A model whose schema does not declare its element loads, but its schema
 * is refused at first use, naming the model and the element. */
static void
test_refuse_schema (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (PtiRegistry) reg = pti_registry_new (hmc_dirs.extra, &error);
  g_assert_no_error (error);
  const PtiModelDesc *bad = pti_registry_find (reg, "example-badschema");
  g_assert_nonnull (bad);
  g_assert_null (pti_registry_schema (reg, bad, &error));
  hmc_assert_error (error, PTI_ERROR_MODEL, "schema of model example-badschema: ",
                    "does not declare the global element <example_badschema>", NULL);

  /* And so is an HMC file that uses it, before the model sees anything. */
  g_clear_error (&error);
  g_autofree char *path = hmc_write ("badschema.xml",
    "<system name=\"s\">\n"
    "  <computer name=\"pc\">\n"
    "    <example_badschema><op unit=\"ns\">1</op></example_badschema>\n"
    "  </computer>\n"
    "</system>\n");
  g_autoptr (PtiSystem) sys = pti_system_load (path, reg, &error);
  g_assert_null (sys);
  g_autofree char *where = g_strdup_printf ("%s:3: <example_badschema>: schema of model "
                                            "example-badschema: does not declare", path);
  hmc_assert_error (error, PTI_ERROR_MODEL, where, NULL);
}

int
main (int argc, char **argv)
{
  hmc_test_init (&argc, &argv);
  g_assert_nonnull (hmc_dirs.good);
  g_assert_nonnull (hmc_dirs.badabi);
  g_assert_nonnull (hmc_dirs.nosym);
  g_assert_nonnull (hmc_dirs.extra);
  g_assert_nonnull (hmc_dirs.hugesize);
  g_unsetenv ("PTI_MODEL_PATH");

  g_test_add_func ("/registry/check-desc/accepts", test_check_desc_accepts);
  g_test_add_func ("/registry/check-desc/refuses", test_check_desc_refuses);
  g_test_add_func ("/registry/builtins", test_builtins);
  g_test_add_func ("/registry/print", test_print);
  g_test_add_func ("/registry/so/good", test_load_good);
  g_test_add_func ("/registry/so/env-path", test_env_path);
  g_test_add_func ("/registry/so/refuse-abi", test_refuse_abi);
  g_test_add_func ("/registry/so/refuse-instance-size", test_refuse_instance_size);
  g_test_add_func ("/registry/so/refuse-nosym", test_refuse_nosym);
  g_test_add_func ("/registry/so/refuse-unloadable", test_refuse_unloadable);
  g_test_add_func ("/registry/so/refuse-duplicate", test_refuse_duplicate);
  g_test_add_func ("/registry/so/refuse-schema", test_refuse_schema);
  return hmc_test_run ();
}
