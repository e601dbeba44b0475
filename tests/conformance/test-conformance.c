/* Model conformance: the checks every model passes, built-in or loaded from
 * a shared object (GStreamer's generic element tests are the pattern).  One
 * run checks one model, named on the command line with its inputs:
 *
 *   test-conformance --model NAME [--model-path DIR]
 *                    --config FILE [--config FILE...]   minimal valid configurations
 *                    --bad-config FILE                  one that configure must refuse
 *                    [--rud FILE [--param NAME=VALUE...]] [--bad-rud FILE]   (cpu models)
 *                    [--xsd FILE]                       the model's XSD file, if it has one
 *
 * A FILE of configuration may be the model's element alone or any document
 * holding it (an HMC system): the first element with the model's name is
 * used.  What is checked, in order:
 *
 *   descriptor  the loader's checks (ABI, struct_size, mandatory fields, ops
 *               version), plus: a one-line summary, a description, every
 *               documented parameter with a description, trace records with
 *               fields, a description and a namespace;
 *   schema      compiles, declares the configuration element globally, equals
 *               --xsd; every --config validates and --bad-config does not;
 *   configure   succeeds on every --config (twice, into separate instances);
 *               fails with an error on --bad-config even when called without
 *               the schema; finalize is then safe, as it is on an instance
 *               never configured (ASan and leak checking make "safe" strict);
 *   cpu models  the RUD compiles, prices finite and >= 0, the same twice,
 *               rud_slots are real slots, and with a parameter it reads unbound
 *               the price fails naming it; --bad-rud fails to compile (models
 *               that price RUDs); computations given as a time or as flops
 *               (ops version 2) price finite, >= 0, the same twice, 0 for
 *               nothing and never less for more, or fail with a message
 *               (models without a RUD need neither --rud nor --bad-rud);
 *   net models  overheads finite and >= 0 for sizes from 0 B to 1 GiB;
 *               transfers satisfy start <= injected <= arrived, all finite,
 *               and a longer message never arrives or leaves earlier. */
#include "registry.h"
#include "xml.h"

#include <math.h>
#include <string.h>

static char *opt_model, *opt_model_path, *opt_bad_config, *opt_rud, *opt_bad_rud, *opt_xsd;
static char **opt_configs, **opt_params;

static PtiRegistry *registry;
static const PtiModelDesc *desc;

/* ---- helpers ---------------------------------------------------------- */

static xmlNode *
find_element (xmlNode *node, const char *name)
{
  for (; node != NULL; node = node->next) {
    if (node->type != XML_ELEMENT_NODE)
      continue;
    if (strcmp ((const char *) node->name, name) == 0)
      return node;
    xmlNode *found = find_element (node->children, name);
    if (found != NULL)
      return found;
  }
  return NULL;
}

/* Reads @path and returns (through @doc, owned by the caller) the model's
 * configuration element in it. */
static xmlNode *
load_config (const char *path, xmlDoc **doc)
{
  g_autoptr (GError) error = NULL;
  *doc = pti_xml_read_file (path, &error);
  g_assert_no_error (error);
  xmlNode *el = find_element (xmlDocGetRootElement (*doc), desc->config_element);
  if (el == NULL)
    g_error ("%s holds no <%s>", path, desc->config_element);
  return el;
}

static gpointer
new_instance (void)
{
  return desc->instance_size ? g_malloc0 (desc->instance_size) : NULL;
}

static void
free_instance (gpointer instance)
{
  if (desc->finalize != NULL)
    desc->finalize (instance);
  g_free (instance);
}

/* A configured instance of the first --config. */
static gpointer
configured_instance (const char *path)
{
  g_autoptr (xmlDoc) doc = NULL;
  xmlNode *el = load_config (path, &doc);
  gpointer instance = new_instance ();
  g_autoptr (GError) error = NULL;
  gboolean ok = desc->configure (instance, el, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
  return instance;
}

/* ---- descriptor -------------------------------------------------------- */

static void
test_descriptor (void)
{
  g_autoptr (GError) error = NULL;
  g_assert_true (pti_registry_check_desc (desc, pti_registry_origin (registry, desc), &error));
  g_assert_no_error (error);

  g_assert_cmpuint (desc->abi_version, ==, PTI_HMI_ABI_VERSION);
  g_assert_cmpuint (desc->struct_size, ==, sizeof (PtiModelDesc));
  g_assert_true (strcmp (desc->kind, "cpu") == 0 || strcmp (desc->kind, "network") == 0
                 || strcmp (desc->kind, "io") == 0);
  g_assert_nonnull (desc->configure);

  g_assert_nonnull (desc->summary);
  g_assert_cmpuint (strlen (desc->summary), >, 0);
  g_assert_cmpuint (strlen (desc->summary), <=, 100);
  g_assert_null (strchr (desc->summary, '\n'));
  g_assert_nonnull (desc->description);
  g_assert_cmpuint (strlen (desc->description), >, 0);

  for (const PtiModelParam *p = desc->params; p != NULL && p->name != NULL; p++) {
    if (p->description == NULL || p->description[0] == '\0')
      g_error ("parameter '%s' has no description", p->name);
  }
  for (const PtiTraceRecordDesc *r = desc->records; r != NULL && r->name != NULL; r++) {
    g_assert_nonnull (desc->records_namespace);
    if (r->fields == NULL || r->description == NULL || r->description[0] == '\0')
      g_error ("trace record '%s' needs fields and a description", r->name);
    g_assert_cmpint (xmlValidateNCName ((const xmlChar *) r->name, 0), ==, 0);
  }

  if (strcmp (desc->kind, "cpu") == 0) {
    g_assert_cmpuint (desc->cpu->version, >=, 1);
    g_assert_cmpuint (desc->cpu->version, <=, PTI_CPU_OPS_VERSION);
    g_assert_true (PTI_CPU_OPS_HAS_RUDS (desc->cpu) || desc->cpu->time_cost != NULL
                   || desc->cpu->flops_cost != NULL);
    g_assert_null (desc->net);
  } else if (strcmp (desc->kind, "io") == 0) {
    g_assert_true (PTI_MODEL_HAS_IO (desc));
    g_assert_cmpuint (desc->io->version, >=, 1);
    g_assert_cmpuint (desc->io->version, <=, PTI_IO_OPS_VERSION);
    g_assert_nonnull (desc->io->access);
    g_assert_nonnull (desc->io->collective);
    g_assert_null (desc->cpu);
    g_assert_null (desc->net);
  } else {
    g_assert_cmpuint (desc->net->version, >=, 1);
    g_assert_cmpuint (desc->net->version, <=, PTI_NET_OPS_VERSION);
    g_assert_true (PTI_NET_OPS_HAS_FLOWS (desc->net) || desc->net->transfer != NULL);
    g_assert_null (desc->cpu);
  }

  /* What --model-info prints must come out. */
  g_autoptr (GString) info = g_string_new (NULL);
  g_assert_true (pti_registry_print_info (registry, desc->name, info, &error));
  g_assert_no_error (error);
  g_assert_nonnull (strstr (info->str, desc->summary));
}

/* ---- schema ---------------------------------------------------------- */

static void
test_schema (void)
{
  g_autoptr (GError) error = NULL;
  xmlSchema *schema = pti_registry_schema (registry, desc, &error);
  g_assert_no_error (error);
  g_assert_nonnull (schema);

  if (opt_xsd != NULL) {
    g_autofree char *text = NULL;
    g_file_get_contents (opt_xsd, &text, NULL, &error);
    g_assert_no_error (error);
    if (strcmp (text, desc->config_schema) != 0)
      g_error ("the schema compiled into model '%s' differs from %s", desc->name, opt_xsd);
  }

  g_autofree char *what = g_strdup_printf ("model %s", desc->name);
  for (guint i = 0; opt_configs[i] != NULL; i++) {
    g_autoptr (xmlDoc) doc = NULL;
    xmlNode *el = load_config (opt_configs[i], &doc);
    g_assert_true (pti_xml_validate_element (schema, el, what, NULL, 0, &error));
    g_assert_no_error (error);
  }
  g_autoptr (xmlDoc) doc = NULL;
  xmlNode *el = load_config (opt_bad_config, &doc);
  if (pti_xml_validate_element (schema, el, what, NULL, 0, &error))
    g_test_message ("note: %s is valid for the schema; configure must refuse it", opt_bad_config);
  else
    g_assert_error (error, PTI_ERROR, PTI_ERROR_INVALID);
}

/* ---- configure and finalize --------------------------------------------- */

static void
test_configure (void)
{
  for (guint i = 0; opt_configs[i] != NULL; i++) {
    gpointer a = configured_instance (opt_configs[i]);
    gpointer b = configured_instance (opt_configs[i]);
    free_instance (a);
    free_instance (b);
  }
}

static void
test_configure_bad (void)
{
  g_autoptr (xmlDoc) doc = NULL;
  xmlNode *el = load_config (opt_bad_config, &doc);
  gpointer instance = new_instance ();
  GError *error = NULL;
  gboolean ok = desc->configure (instance, el, &error);
  g_assert_false (ok);
  g_assert_nonnull (error);
  g_assert_cmpuint (strlen (error->message), >, 0);
  g_test_message ("refused: %s", error->message);
  g_clear_error (&error);
  free_instance (instance);                 /* finalize after a failed configure */
}

static void
test_finalize_unconfigured (void)
{
  free_instance (new_instance ());
}

/* ---- cpu models ----------------------------------------------------------- */

static gpointer
compile_rud (const char *path, PtiSymbols *symbols, GError **error)
{
  g_autoptr (xmlDoc) doc = pti_xml_read_file (path, error);
  if (doc == NULL)
    return NULL;
  return pti_cpu_rud_compile (desc->cpu, xmlDocGetRootElement (doc), symbols, error);
}

static void
bind_params (PtiSymbols *symbols)
{
  for (guint i = 0; opt_params != NULL && opt_params[i] != NULL; i++) {
    const char *eq = strchr (opt_params[i], '=');
    g_assert_nonnull (eq);
    g_autofree char *name = g_strndup (opt_params[i], eq - opt_params[i]);
    pti_symbols_set (symbols, pti_symbols_intern (symbols, name), g_ascii_strtod (eq + 1, NULL));
  }
}

static void
test_cpu (void)
{
  gpointer instance = configured_instance (opt_configs[0]);
  g_autoptr (PtiSymbols) symbols = pti_symbols_new ();
  g_autoptr (GError) error = NULL;
  gpointer compiled = compile_rud (opt_rud, symbols, &error);
  g_assert_no_error (error);
  g_assert_nonnull (compiled);
  bind_params (symbols);

  double t1 = -1, t2 = -1;
  g_assert_true (desc->cpu->cost (instance, compiled, symbols, &t1, &error));
  g_assert_no_error (error);
  g_assert_true (isfinite (t1));
  g_assert_cmpfloat (t1, >=, 0);
  g_assert_true (desc->cpu->cost (instance, compiled, symbols, &t2, &error));
  g_assert_cmpfloat (t1, ==, t2);
  g_test_message ("price of %s: %.9g s", opt_rud, t1);

  if (desc->cpu->rud_slots != NULL) {
    guint n = 0;
    const guint *slots = desc->cpu->rud_slots (compiled, &n);
    g_assert_true (n == 0 || slots != NULL);
    for (guint i = 0; i < n; i++)
      g_assert_cmpuint (slots[i], <, pti_symbols_count (symbols));
    /* Unbind each parameter in turn: the price must fail and name it. */
    for (guint i = 0; i < n; i++) {
      double saved = pti_symbols_get (symbols, slots[i]);
      const char *name = pti_symbols_name (symbols, slots[i]);
      pti_symbols_set (symbols, slots[i], NAN);
      double t = 0;
      g_assert_false (desc->cpu->cost (instance, compiled, symbols, &t, &error));
      g_assert_error (error, PTI_ERROR, PTI_ERROR_INVALID);
      g_autofree char *quoted = g_strdup_printf ("'%s'", name);
      if (strstr (error->message, quoted) == NULL)
        g_error ("unbound %s: the error does not name it: %s", quoted, error->message);
      g_clear_error (&error);
      pti_symbols_set (symbols, slots[i], saved);
    }
  }
  desc->cpu->rud_free (compiled);

  if (opt_bad_rud != NULL) {
    gpointer bad = compile_rud (opt_bad_rud, symbols, &error);
    g_assert_null (bad);
    g_assert_error (error, PTI_ERROR, PTI_ERROR_INVALID);
    g_test_message ("refused: %s", error->message);
  }
  free_instance (instance);
}

/* Computations given as a time or as flops: each configuration either
 * prices them (finite, >= 0, deterministic, 0 for nothing, monotonic) or
 * refuses them with a message. */
static void
test_cpu_bursts (void)
{
  static const double amounts[] = { 0, 1e-9, 1e-3, 1, 2.5, 1e6, 1e12 };
  guint priced = 0;
  for (guint c = 0; opt_configs[c] != NULL; c++) {
    gpointer instance = configured_instance (opt_configs[c]);
    for (guint k = 0; k < 2; k++) {
      gboolean (*price) (gconstpointer, double, double *, GError **)
        = k == 0 ? desc->cpu->time_cost : desc->cpu->flops_cost;
      if (price == NULL)
        continue;
      double prev = 0;
      for (guint i = 0; i < G_N_ELEMENTS (amounts); i++) {
        g_autoptr (GError) error = NULL;
        double t1 = -1, t2 = -1;
        if (!price (instance, amounts[i], &t1, &error)) {
          g_assert_error (error, PTI_ERROR, PTI_ERROR_INVALID);
          g_assert_cmpuint (strlen (error->message), >, 0);
          if (i == 0)
            g_test_message ("%s: %s refused: %s", opt_configs[c], k ? "flops" : "time",
                            error->message);
          continue;
        }
        g_assert_no_error (error);
        g_assert_true (price (instance, amounts[i], &t2, &error));
        g_assert_true (isfinite (t1) && t1 >= 0);
        g_assert_cmpfloat (t1, ==, t2);
        if (i == 0)
          g_assert_cmpfloat (t1, ==, 0);
        g_assert_cmpfloat (t1, >=, prev);
        prev = t1;
        priced++;
      }
    }
    free_instance (instance);
  }
  if (!PTI_CPU_OPS_HAS_RUDS (desc->cpu))
    g_assert_cmpuint (priced, >, 0);   /* a model of bursts only must price some */
}

/* ---- I/O models ------------------------------------------------------------ */

/* Message and request sizes the tests try. */
static const guint64 sizes[] = { 0, 1, 8, 64, 1024, 16384, 16385, 65536, 1u << 20, 1u << 30 };


/* A fixed mix of requests from 3 clients in time order: each completes no
 * earlier than it was issued, at a finite time, and the same mix after
 * reset gives the same times bit for bit (determinism, and reset forgets
 * the queues).  A request of no bytes takes no time; a collective call
 * ends no earlier than its last arrival. */
static void
io_mix (gpointer instance, double *out, guint n)
{
  static const PtiIoKind kinds[] = { PTI_IO_OPEN, PTI_IO_WRITE, PTI_IO_READ, PTI_IO_WRITE,
                                     PTI_IO_CLOSE };
  for (guint i = 0; i < n; i++) {
    PtiIoRequest req = {
      .kind = kinds[i % G_N_ELEMENTS (kinds)], .client = 1 + i % 3, .rank = i % 3,
      .file = i % 2, .stripe_count = i % 4, .stripe_size = i % 5 ? 65536u * (i % 5) : 0,
      .offset = (guint64) i * 100003u, .bytes = sizes[i % G_N_ELEMENTS (sizes)],
    };
    double now = 0.001 * i;
    out[i] = desc->io->access (instance, &req, now);
    g_assert_true (isfinite (out[i]));
    g_assert_cmpfloat (out[i], >=, now);
  }
}

static void
test_io_requests (void)
{
  for (guint c = 0; opt_configs[c] != NULL; c++) {
    gpointer instance = configured_instance (opt_configs[c]);
    double a[40], b[40];
    io_mix (instance, a, G_N_ELEMENTS (a));
    if (desc->io->reset != NULL) {
      desc->io->reset (instance);
      io_mix (instance, b, G_N_ELEMENTS (b));
      g_assert_cmpmem (a, sizeof a, b, sizeof b);
    }
    PtiIoRequest none = { .kind = PTI_IO_WRITE, .client = 1, .offset = 12345 };
    g_assert_cmpfloat (desc->io->access (instance, &none, 7.0), ==, 7.0);
    PtiIoRequest coll[4];
    for (guint i = 0; i < 4; i++)
      coll[i] = (PtiIoRequest) { .kind = PTI_IO_WRITE, .client = 1 + i / 2, .rank = i,
                                 .offset = (guint64) i << 20, .bytes = 1u << 20 };
    double t = desc->io->collective (instance, 4, coll, 10.0);
    g_assert_true (isfinite (t));
    g_assert_cmpfloat (t, >=, 10.0);
    free_instance (instance);
  }
}

/* ---- network models ------------------------------------------------------- */

static void
test_net_overheads (void)
{
  for (guint c = 0; opt_configs[c] != NULL; c++) {
    gpointer instance = configured_instance (opt_configs[c]);
    for (guint i = 0; i < G_N_ELEMENTS (sizes); i++) {
      double os = desc->net->send_overhead (instance, sizes[i]);
      double orr = desc->net->recv_overhead (instance, sizes[i]);
      g_assert_true (isfinite (os) && os >= 0);
      g_assert_true (isfinite (orr) && orr >= 0);
    }
    (void) desc->net->eager_limit (instance);
    free_instance (instance);
  }
}

static void
check_transfer (const PtiTransfer *t, double start, guint64 bytes)
{
  if (!(isfinite (t->injected) && isfinite (t->arrived) && start <= t->injected
        && t->injected <= t->arrived))
    g_error ("%" G_GUINT64_FORMAT " bytes from %g s: injected %g, arrived %g: want "
             "start <= injected <= arrived, all finite", bytes, start, t->injected, t->arrived);
}

/* Resource models: flows reported through a sink. */
typedef struct {
  guint done;
  double injected, arrived;
  guint64 bytes;
} FlowEnd;

static void
on_flow_done (gpointer host, gpointer cookie, double injected, double arrived)
{
  FlowEnd *f = cookie;
  f->done++;
  f->injected = injected;
  f->arrived = arrived;
}

static guint records_seen;

static void
on_record (gpointer host, guint type, const char *const *values)
{
  guint n = 0;
  for (const PtiTraceRecordDesc *r = desc->records; r != NULL && r->name != NULL; r++)
    n++;
  g_assert_cmpuint (type, <, n);
  g_assert_nonnull (values);
  records_seen++;
}

/* Advance @instance from flow end to flow end until nothing is in flight. */
static void
drain_flows (gpointer instance, const PtiNetSink *sink, double *now)
{
  for (guint guard = 0; guard < 100000; guard++) {
    double t = desc->net->flow_next (instance);
    if (!isfinite (t))
      return;
    g_assert_cmpfloat (t, >=, *now);
    *now = t;
    desc->net->flow_advance (instance, t, sink);
  }
  g_error ("flows still in flight after 100000 advances");
}

static void
test_net_flows (void)
{
  PtiNetSink sink = { NULL, on_flow_done, on_record };
  for (guint c = 0; opt_configs[c] != NULL; c++) {
    /* Each size alone on a fresh instance: reported once, never earlier
     * than it started, more bytes never faster. */
    FlowEnd prev = { 0 };
    for (guint i = 0; i < G_N_ELEMENTS (sizes); i++) {
      gpointer instance = configured_instance (opt_configs[c]);
      if (desc->net->reset != NULL)
        desc->net->reset (instance);
      FlowEnd end = { 0, 0, 0, sizes[i] };
      PtiFlow flow = { 1, 2, sizes[i], i, &end };
      double now = 1.0;
      desc->net->flow_start (instance, &flow, now, &sink);
      drain_flows (instance, &sink, &now);
      g_assert_cmpuint (end.done, ==, 1);
      PtiTransfer t = { end.injected, end.arrived };
      check_transfer (&t, 1.0, sizes[i]);
      if (i > 0 && (end.arrived < prev.arrived || end.injected < prev.injected))
        g_error ("%" G_GUINT64_FORMAT " bytes arrive at %g, %" G_GUINT64_FORMAT
                 " bytes at %g: more bytes must never be faster", prev.bytes, prev.arrived,
                 sizes[i], end.arrived);
      prev = end;
      free_instance (instance);
    }
    /* Many flows between a few ports, started as the engine would (at
     * non-decreasing times, interleaved with the ends): each ends once. */
    gpointer instance = configured_instance (opt_configs[c]);
    FlowEnd ends[64] = { 0 };
    double now = 0;
    for (guint i = 0; i < 64; i++) {
      double t = desc->net->flow_next (instance);
      double start = now + ((i % 4 == 0) ? 0 : 1e-6);
      if (isfinite (t) && t <= start) {
        now = t;
        desc->net->flow_advance (instance, now, &sink);
      }
      now = start;
      ends[i].bytes = sizes[i % G_N_ELEMENTS (sizes)] % (1u << 20);
      PtiFlow flow = { 1 + i % 3, 1 + (i + 1) % 3, ends[i].bytes, i, &ends[i] };
      desc->net->flow_start (instance, &flow, now, &sink);
    }
    drain_flows (instance, &sink, &now);
    for (guint i = 0; i < 64; i++) {
      if (ends[i].done != 1)
        g_error ("flow %u of %" G_GUINT64_FORMAT " bytes reported %u times", i, ends[i].bytes,
                 ends[i].done);
      g_assert_cmpfloat (ends[i].arrived, >=, ends[i].injected);
    }
    /* The same again after a reset: nothing of the first run is left. */
    if (desc->net->reset != NULL) {
      desc->net->reset (instance);
      g_assert_true (isinf (desc->net->flow_next (instance)));
    }
    free_instance (instance);
  }
  g_test_message ("%u trace records made", records_seen);
}

static void
test_net_transfer (void)
{
  if (PTI_NET_OPS_HAS_FLOWS (desc->net)) {
    test_net_flows ();
    return;
  }
  for (guint c = 0; opt_configs[c] != NULL; c++) {
    /* Each size on a fresh instance: a model may keep state between calls. */
    PtiTransfer prev = { 0, 0 };
    for (guint i = 0; i < G_N_ELEMENTS (sizes); i++) {
      gpointer instance = configured_instance (opt_configs[c]);
      PtiTransfer t;
      desc->net->transfer (instance, 1, 2, sizes[i], 1.0, &t);
      check_transfer (&t, 1.0, sizes[i]);
      if (i > 0 && (t.arrived < prev.arrived || t.injected < prev.injected))
        g_error ("%" G_GUINT64_FORMAT " bytes arrive at %g, %" G_GUINT64_FORMAT
                 " bytes at %g: more bytes must never be faster", sizes[i - 1], prev.arrived,
                 sizes[i], t.arrived);
      prev = t;
      free_instance (instance);
    }
    /* A stream of messages in non-decreasing start order, as the engine
     * calls, between several ports. */
    gpointer instance = configured_instance (opt_configs[c]);
    double start = 0;
    for (guint i = 0; i < 64; i++) {
      PtiTransfer t;
      guint64 bytes = sizes[i % G_N_ELEMENTS (sizes)] % (1u << 20);
      desc->net->transfer (instance, 1 + i % 3, 1 + (i + 1) % 3, bytes, start, &t);
      check_transfer (&t, start, bytes);
      start += (i % 4 == 0) ? 0 : 1e-6;
    }
    free_instance (instance);
  }
}

/* ---- main ------------------------------------------------------------------ */

int
main (int argc, char **argv)
{
  GOptionEntry entries[] = {
    { "model", 0, 0, G_OPTION_ARG_STRING, &opt_model, "Model to check", "NAME" },
    { "model-path", 0, 0, G_OPTION_ARG_FILENAME, &opt_model_path, "Model path", "DIR" },
    { "config", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &opt_configs, "Valid configuration", "FILE" },
    { "bad-config", 0, 0, G_OPTION_ARG_FILENAME, &opt_bad_config, "Invalid configuration", "FILE" },
    { "rud", 0, 0, G_OPTION_ARG_FILENAME, &opt_rud, "A RUD to price (cpu)", "FILE" },
    { "param", 0, 0, G_OPTION_ARG_STRING_ARRAY, &opt_params, "Parameter for the RUD", "NAME=VALUE" },
    { "bad-rud", 0, 0, G_OPTION_ARG_FILENAME, &opt_bad_rud, "A RUD that must not compile", "FILE" },
    { "xsd", 0, 0, G_OPTION_ARG_FILENAME, &opt_xsd, "The model's XSD file", "FILE" },
    { NULL },
  };
  GOptionContext *oc = g_option_context_new (NULL);
  g_option_context_set_ignore_unknown_options (oc, TRUE);   /* leave --tap to GTest */
  g_option_context_set_help_enabled (oc, FALSE);
  g_option_context_add_main_entries (oc, entries, NULL);
  g_autoptr (GError) error = NULL;
  if (!g_option_context_parse (oc, &argc, &argv, &error))
    g_error ("%s", error->message);
  g_option_context_free (oc);
  g_test_init (&argc, &argv, NULL);
  if (opt_model == NULL || opt_configs == NULL || opt_bad_config == NULL)
    g_error ("usage: --model NAME --config FILE --bad-config FILE [...]");

  registry = pti_registry_new (opt_model_path, &error);
  g_assert_no_error (error);
  desc = pti_registry_find (registry, opt_model);
  if (desc == NULL) {
    g_autofree char *known = pti_registry_names (registry);
    g_error ("no model '%s' (known: %s)", opt_model, known);
  }
  if (strcmp (desc->kind, "cpu") == 0 && PTI_CPU_OPS_HAS_RUDS (desc->cpu) && opt_rud == NULL)
    g_error ("a cpu model that prices RUDs needs --rud");

  g_autofree char *base = g_strdup_printf ("/conformance/%s", opt_model);
  g_autofree char *p1 = g_strconcat (base, "/descriptor", NULL);
  g_autofree char *p2 = g_strconcat (base, "/schema", NULL);
  g_autofree char *p3 = g_strconcat (base, "/configure", NULL);
  g_autofree char *p4 = g_strconcat (base, "/configure-bad", NULL);
  g_autofree char *p5 = g_strconcat (base, "/finalize-unconfigured", NULL);
  g_test_add_func (p1, test_descriptor);
  g_test_add_func (p2, test_schema);
  g_test_add_func (p3, test_configure);
  g_test_add_func (p4, test_configure_bad);
  g_test_add_func (p5, test_finalize_unconfigured);
  g_autofree char *p6 = g_strconcat (base, "/cpu/price", NULL);
  g_autofree char *p7 = g_strconcat (base, "/net/overheads", NULL);
  g_autofree char *p8 = g_strconcat (base, "/net/transfer", NULL);
  g_autofree char *p9 = g_strconcat (base, "/cpu/bursts", NULL);
  g_autofree char *p10 = g_strconcat (base, "/io/requests", NULL);
  if (strcmp (desc->kind, "io") == 0) {
    g_test_add_func (p10, test_io_requests);
  } else if (strcmp (desc->kind, "cpu") == 0) {
    if (PTI_CPU_OPS_HAS_RUDS (desc->cpu))
      g_test_add_func (p6, test_cpu);
    if (desc->cpu->time_cost != NULL || desc->cpu->flops_cost != NULL)
      g_test_add_func (p9, test_cpu_bursts);
  } else {
    g_test_add_func (p7, test_net_overheads);
    g_test_add_func (p8, test_net_transfer);
  }
  int rc = g_test_run ();
  pti_registry_free (registry);
  g_free (opt_model);
  g_free (opt_model_path);
  g_free (opt_bad_config);
  g_free (opt_rud);
  g_free (opt_bad_rud);
  g_free (opt_xsd);
  g_strfreev (opt_configs);
  g_strfreev (opt_params);
  return rc;
}
