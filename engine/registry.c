/* Model registry: the built-in models plus shared objects found on the model
 * path.  See registry.h for the contract.
 *
 * Loading a shared object follows the weston rule for versioned structs: the
 * entry point returns the model's own descriptor; we read only its first two
 * fields (abi_version, struct_size) until they are known to be acceptable,
 * then copy exactly struct_size bytes into a zeroed PtiModelDesc that the
 * registry owns.  A descriptor built against an older header (smaller, once
 * fields are appended) thus reads as NULL/0 in the fields it does not know.
 * Everything else the engine uses is read from that copy, never from the
 * model's memory.
 *
 * Objects are opened with G_MODULE_BIND_LOCAL (a model's symbols never
 * satisfy another model's) and made resident once accepted: descriptors,
 * ops tables and strings live in the module, and a model is never unloaded
 * while pti runs.  A refused object is closed again.
 *
 * Search order: the built-in models, the directories given by the caller
 * (--model-path), $PTI_MODEL_PATH, then the installed model directory
 * (PTI_INSTALLED_MODEL_DIR, replaced by $PTI_MODEL_SYSTEM_PATH when that is
 * set, even to nothing).  A model name or HMC element taken twice is an
 * error, except in the installed directory: there a model that one of the
 * earlier places already provides is skipped, so that a model author's
 * working copy on the model path shadows the installed one.
 *
 * The registry is built once, at start-up; the hash tables serve lookups by
 * name and by HMC element, and a name-sorted array serves every listing, so
 * output never depends on hash order. */
#include "pti-config.h"
#include "registry.h"
#include "xml.h"

#include <gmodule.h>
#include <string.h>

#include "builtin-models.h"

/* The descriptor as ABI 1 defined it: everything up to and including `net`.
 * A model may not pass a smaller struct_size. */
#define PTI_MODEL_DESC_V1_SIZE (G_STRUCT_OFFSET (PtiModelDesc, net) + sizeof (gpointer))

/* The most bytes a model instance (instance_size) may ask the engine for:
 * its parameters and fixed tables; anything large is the model's to
 * allocate in configure, where failing is an error and not an abort. */
#define PTI_MODEL_INSTANCE_MAX ((gsize) 16 << 20)

typedef struct {
  PtiModelDesc desc;       /* first: a desc pointer handed out is an Entry pointer */
  PtiNetOps net_ops;       /* the model's net ops as far as its version goes, zero beyond */
  PtiCpuOps cpu_ops;       /* the same for cpu ops */
  PtiIoOps io_ops;         /* the same for io ops */
  char *origin;            /* "built-in" or the shared object's path */
  const char *schema_text; /* what is compiled: config_schema, or a built-in's stripped copy */
  xmlSchema *schema;       /* schema_text compiled, on first use (pti_xml_schema_from_doc's) */
} Entry;

struct _PtiRegistry {
  GPtrArray *entries;      /* Entry*, owned, sorted by name once loading is done */
  GHashTable *by_name;     /* desc.name -> Entry* (keys borrowed from the model) */
  GHashTable *by_element;  /* desc.config_element -> Entry* */
  GPtrArray *sorted;       /* const PtiModelDesc*, name order, for listing */
};

static void
entry_free (gpointer data)
{
  Entry *e = data;
  g_free (e->origin);
  g_free (e);
}

void
pti_registry_free (PtiRegistry *registry)
{
  if (registry == NULL)
    return;
  g_clear_pointer (&registry->by_name, g_hash_table_unref);
  g_clear_pointer (&registry->by_element, g_hash_table_unref);
  g_clear_pointer (&registry->sorted, g_ptr_array_unref);
  g_clear_pointer (&registry->entries, g_ptr_array_unref);
  g_free (registry);
}

/* ---- descriptor checks ------------------------------------------------- */

static gboolean
refuse (GError **error, const char *origin, const char *format, ...) G_GNUC_PRINTF (3, 4);

static gboolean
refuse (GError **error, const char *origin, const char *format, ...)
{
  va_list args;
  va_start (args, format);
  g_autofree char *msg = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, PTI_ERROR, PTI_ERROR_MODEL, "%s: %s", origin, msg);
  return FALSE;
}

static gboolean
is_model_name (const char *name)
{
  if (name[0] == '\0')
    return FALSE;
  for (const char *p = name; *p != '\0'; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-'))
      return FALSE;
  return TRUE;
}

/* The two fields that say how to read the rest. */
static gboolean
check_header (guint32 abi_version, guint32 struct_size, const char *origin, GError **error)
{
  if (abi_version != PTI_HMI_ABI_VERSION)
    return refuse (error, origin,
                   "built for HMI ABI %u, this pti speaks ABI %u; "
                   "rebuild the model against this pti",
                   abi_version, PTI_HMI_ABI_VERSION);
  if (struct_size > sizeof (PtiModelDesc))
    return refuse (error, origin,
                   "its descriptor has %u bytes, more than the %zu this pti knows "
                   "(built against a newer pti); rebuild the model against this pti",
                   struct_size, sizeof (PtiModelDesc));
  if (struct_size < PTI_MODEL_DESC_V1_SIZE)
    return refuse (error, origin,
                   "its descriptor has %u bytes, fewer than the %zu of HMI ABI %u "
                   "(struct_size must be sizeof (PtiModelDesc))",
                   struct_size, (gsize) PTI_MODEL_DESC_V1_SIZE, PTI_HMI_ABI_VERSION);
  return TRUE;
}

#define REQUIRE_FIELD(field)                                                        \
  G_STMT_START {                                                                    \
    if (desc->field == NULL)                                                        \
      return refuse (error, origin, "model '%s' has no " #field, name);             \
  } G_STMT_END

gboolean
pti_registry_check_desc (const PtiModelDesc *desc, const char *origin, GError **error)
{
  if (desc == NULL)
    return refuse (error, origin, "no model descriptor");
  if (!check_header (desc->abi_version, desc->struct_size, origin, error))
    return FALSE;
  if (desc->name == NULL)
    return refuse (error, origin, "the model descriptor has no name");
  const char *name = desc->name;
  if (!is_model_name (name))
    return refuse (error, origin, "model name '%s' must match [a-z0-9-]+", name);
  REQUIRE_FIELD (kind);
  REQUIRE_FIELD (config_element);
  REQUIRE_FIELD (config_schema);
  REQUIRE_FIELD (configure);
  if (desc->instance_size > PTI_MODEL_INSTANCE_MAX)
    return refuse (error, origin,
                   "model '%s' declares an instance of %zu bytes (instance_size), more than the "
                   "%zu a model instance may have; allocate large state in configure",
                   name, desc->instance_size, PTI_MODEL_INSTANCE_MAX);
  if (xmlValidateNCName ((const xmlChar *) desc->config_element, 0) != 0)
    return refuse (error, origin, "model '%s': config_element '%s' is not an XML element name",
                   name, desc->config_element);

  if (strcmp (desc->kind, "cpu") == 0) {
    const PtiCpuOps *ops = desc->cpu;
    if (ops == NULL)
      return refuse (error, origin, "model '%s' is of kind cpu but has no cpu ops", name);
    if (ops->version < 1 || ops->version > PTI_CPU_OPS_VERSION)
      return refuse (error, origin, "model '%s': cpu ops version %u, this pti speaks 1 to %u",
                     name, ops->version, PTI_CPU_OPS_VERSION);
    gboolean ruds = ops->rud_compile != NULL || PTI_CPU_OPS_FOLDS (ops) || ops->rud_free != NULL
                    || ops->cost != NULL;
    gboolean bursts = ops->version >= 2 && (ops->time_cost != NULL || ops->flops_cost != NULL);
    if ((ruds || !bursts) && ((ops->rud_compile == NULL && !PTI_CPU_OPS_FOLDS (ops))
                              || ops->rud_free == NULL || ops->cost == NULL))
      return refuse (error, origin, "model '%s': cpu ops need rud_fold (or rud_compile), "
                     "rud_free and cost%s", name, ops->version >= 2
                     ? " (or none of them, and time_cost or flops_cost for a model of bursts only)"
                     : "");
    if (desc->net != NULL)
      return refuse (error, origin, "model '%s' is of kind cpu but also sets net ops", name);
  } else if (strcmp (desc->kind, "network") == 0) {
    const PtiNetOps *ops = desc->net;
    if (ops == NULL)
      return refuse (error, origin, "model '%s' is of kind network but has no net ops", name);
    if (ops->version < 1 || ops->version > PTI_NET_OPS_VERSION)
      return refuse (error, origin, "model '%s': net ops version %u, this pti speaks 1 to %u",
                     name, ops->version, PTI_NET_OPS_VERSION);
    if (ops->send_overhead == NULL || ops->recv_overhead == NULL || ops->eager_limit == NULL)
      return refuse (error, origin,
                     "model '%s': net ops need send_overhead, recv_overhead and eager_limit",
                     name);
    gboolean flows = ops->version >= 2
                     && (ops->flow_start != NULL || ops->flow_next != NULL
                         || ops->flow_advance != NULL);
    if (flows && !PTI_NET_OPS_HAS_FLOWS (ops))
      return refuse (error, origin,
                     "model '%s': a resource network model needs all of flow_start, "
                     "flow_next and flow_advance", name);
    if (!flows && ops->transfer == NULL)
      return refuse (error, origin,
                     "model '%s': net ops need transfer (a cost model) or flow_start, "
                     "flow_next and flow_advance (a resource model)", name);
    if (desc->cpu != NULL)
      return refuse (error, origin, "model '%s' is of kind network but also sets cpu ops", name);
  } else if (strcmp (desc->kind, "io") == 0) {
    const PtiIoOps *ops = PTI_MODEL_HAS_IO (desc) ? desc->io : NULL;
    if (ops == NULL)
      return refuse (error, origin, "model '%s' is of kind io but has no io ops", name);
    if (ops->version < 1 || ops->version > PTI_IO_OPS_VERSION)
      return refuse (error, origin, "model '%s': io ops version %u, this pti speaks 1 to %u",
                     name, ops->version, PTI_IO_OPS_VERSION);
    if (ops->access == NULL || ops->collective == NULL)
      return refuse (error, origin, "model '%s': io ops need access and collective", name);
    if (desc->cpu != NULL || desc->net != NULL)
      return refuse (error, origin, "model '%s' is of kind io but also sets cpu or net ops",
                     name);
  } else {
    return refuse (error, origin, "model '%s' has kind '%s'; known kinds: cpu, network, io",
                   name, desc->kind);
  }
  if (strcmp (desc->kind, "io") != 0 && PTI_MODEL_HAS_IO (desc))
    return refuse (error, origin, "model '%s' is of kind %s but sets io ops", name, desc->kind);

  if (desc->records != NULL && desc->records[0].name != NULL && desc->records_namespace == NULL)
    return refuse (error, origin,
                   "model '%s' declares trace records but no records_namespace to put them in",
                   name);
  return TRUE;
}

#undef REQUIRE_FIELD

/* ---- building --------------------------------------------------------- */

/* @schema_text: the schema to compile, NULL for desc->config_schema. */
static gboolean
registry_add (PtiRegistry *registry, const PtiModelDesc *desc, const char *origin,
              const char *schema_text, GError **error)
{
  if (!pti_registry_check_desc (desc, origin, error))
    return FALSE;

  /* These two messages name the file themselves, in the middle. */
  Entry *other = g_hash_table_lookup (registry->by_name, desc->name);
  if (other != NULL) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_MODEL, "model '%s' from %s is already provided by %s",
                 desc->name, origin, other->origin);
    return FALSE;
  }
  other = g_hash_table_lookup (registry->by_element, desc->config_element);
  if (other != NULL) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_MODEL,
                 "model '%s' from %s is configured by <%s>, the element of model '%s' from %s",
                 desc->name, origin, desc->config_element, other->desc.name, other->origin);
    return FALSE;
  }

  /* The weston rule: a zeroed descriptor, then only the bytes the model knows. */
  Entry *e = g_new0 (Entry, 1);
  memcpy (&e->desc, desc, desc->struct_size);
  if (desc->net != NULL) {
    /* The same rule for the ops table, whose size its version gives. */
    gsize known = desc->net->version >= 2 ? sizeof (PtiNetOps)
                                          : G_STRUCT_OFFSET (PtiNetOps, reset);
    memcpy (&e->net_ops, desc->net, known);
    e->desc.net = &e->net_ops;
  }
  if (desc->cpu != NULL) {
    gsize known = desc->cpu->version >= 2 ? sizeof (PtiCpuOps)
                                          : G_STRUCT_OFFSET (PtiCpuOps, rud_fold);
    memcpy (&e->cpu_ops, desc->cpu, known);
    e->desc.cpu = &e->cpu_ops;
  }
  if (PTI_MODEL_HAS_IO (desc)) {
    e->io_ops = *desc->io;   /* version 1 is the whole table */
    e->desc.io = &e->io_ops;
  }
  e->origin = g_strdup (origin);
  e->schema_text = schema_text != NULL ? schema_text : desc->config_schema;
  g_ptr_array_add (registry->entries, e);
  g_hash_table_insert (registry->by_name, (gpointer) e->desc.name, e);
  g_hash_table_insert (registry->by_element, (gpointer) e->desc.config_element, e);
  return TRUE;
}

/* Is @desc's name or element already taken?  (For the installed directory,
 * where that means "shadowed", not "wrong".) */
static gboolean
registry_taken (const PtiRegistry *registry, const PtiModelDesc *desc)
{
  return g_hash_table_contains (registry->by_name, desc->name)
         || g_hash_table_contains (registry->by_element, desc->config_element);
}

/* A model built outside links libpti-hmi, and the loader opens what a model
 * needs by name unless an object of that name is loaded.  ptieval built
 * with -Dstatic_deps has the HMI inside (and exports it, so a model's calls
 * bind to that copy, found first): open the shared one by name beforehand,
 * found by ptieval's run path as its own libraries would be.  Elsewhere it
 * is loaded already, and this only counts one more user.  Not found: the
 * model's own open says so. */
static void
hmi_library_open (void)
{
  static gsize done = 0;
  if (g_once_init_enter (&done)) {
    GModule *hmi = g_module_open (PTI_HMI_SONAME, G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL);
    if (hmi != NULL)
      g_module_make_resident (hmi);
    g_once_init_leave (&done, 1);
  }
}

static gboolean
load_module (PtiRegistry *registry, const char *path, gboolean shadowable, GError **error)
{
  hmi_library_open ();
  GModule *module = g_module_open (path, G_MODULE_BIND_LOCAL);
  if (module == NULL)
    return refuse (error, path, "not a loadable model: %s", g_module_error ());

  gpointer symbol = NULL;
  if (!g_module_symbol (module, PTI_MODEL_ENTRY_SYMBOL, &symbol) || symbol == NULL) {
    g_module_close (module);
    return refuse (error, path,
                   "not a pti model: it has no symbol '%s' (define it with PTI_MODEL_DEFINE)",
                   PTI_MODEL_ENTRY_SYMBOL);
  }

  const PtiModelDesc *(*describe) (void) = (const PtiModelDesc *(*) (void)) symbol;
  const PtiModelDesc *desc = describe ();
  gboolean ok;
  if (desc == NULL)
    ok = refuse (error, path, "%s() returned no descriptor", PTI_MODEL_ENTRY_SYMBOL);
  else if (!check_header (desc->abi_version, desc->struct_size, path, error))
    ok = FALSE;
  else {
    /* Only now is it safe to read struct_size bytes of the model's descriptor. */
    PtiModelDesc copy = { 0 };
    memcpy (&copy, desc, desc->struct_size);
    if (shadowable && copy.name != NULL && copy.config_element != NULL
        && registry_taken (registry, &copy)) {
      g_debug ("%s: model '%s' skipped: already provided before the installed model directory",
               path, copy.name);
      g_module_close (module);
      return TRUE;
    }
    ok = registry_add (registry, &copy, path, NULL, error);
  }
  if (!ok) {
    g_module_close (module);
    return FALSE;
  }
  g_module_make_resident (module);
  return TRUE;
}

static int
compare_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

static gboolean
load_directory (PtiRegistry *registry, const char *dir, gboolean must_exist, gboolean shadowable,
                GError **error)
{
  g_autoptr (GError) local = NULL;
  GDir *d = g_dir_open (dir, 0, &local);
  if (d == NULL) {
    if (!must_exist)
      return TRUE;
    g_set_error (error, PTI_ERROR, PTI_ERROR_IO, "model path %s: %s", dir, local->message);
    return FALSE;
  }

  /* Sorted, so that the load order, and so which file a duplicate error
   * blames, does not depend on the file system. */
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;
  while ((name = g_dir_read_name (d)) != NULL)
    if (g_str_has_suffix (name, ".so"))
      g_ptr_array_add (names, g_strdup (name));
  g_dir_close (d);
  g_ptr_array_sort (names, compare_strings);

  for (guint i = 0; i < names->len; i++) {
    g_autofree char *path = g_build_filename (dir, g_ptr_array_index (names, i), NULL);
    if (!load_module (registry, path, shadowable, error))
      return FALSE;
  }
  return TRUE;
}

/* Each directory of a colon-separated list, skipping empty entries and
 * directories already scanned (the same directory in the argument and in
 * the environment must not load its models twice). */
static gboolean
load_path (PtiRegistry *registry, const char *list, gboolean must_exist, gboolean shadowable,
           GHashTable *seen, GError **error)
{
  if (list == NULL)
    return TRUE;
  g_auto (GStrv) dirs = g_strsplit (list, G_SEARCHPATH_SEPARATOR_S, -1);
  for (guint i = 0; dirs[i] != NULL; i++) {
    if (dirs[i][0] == '\0')
      continue;
    char *canonical = g_canonicalize_filename (dirs[i], NULL);
    if (!g_hash_table_add (seen, canonical))
      continue;
    if (!load_directory (registry, dirs[i], must_exist, shadowable, error))
      return FALSE;
  }
  return TRUE;
}

static int
compare_entries (gconstpointer a, gconstpointer b)
{
  const Entry *ea = *(const Entry *const *) a;
  const Entry *eb = *(const Entry *const *) b;
  return strcmp (ea->desc.name, eb->desc.name);
}

PtiRegistry *
pti_registry_new (const char *model_path, GError **error)
{
  g_autoptr (PtiRegistry) registry = g_new0 (PtiRegistry, 1);
  registry->entries = g_ptr_array_new_with_free_func (entry_free);
  registry->by_name = g_hash_table_new (g_str_hash, g_str_equal);
  registry->by_element = g_hash_table_new (g_str_hash, g_str_equal);
  registry->sorted = g_ptr_array_new ();

  for (guint i = 0; pti_builtin_models[i] != NULL; i++)
    if (!registry_add (registry, pti_builtin_models[i], "built-in", pti_builtin_model_schemas[i],
                       error))
      return NULL;

  /* A directory the caller names must exist; PTI_MODEL_PATH and the
   * installed directory are search paths, where missing directories are
   * normal. */
  const char *system_path = g_getenv ("PTI_MODEL_SYSTEM_PATH");
  if (system_path == NULL)
    system_path = PTI_INSTALLED_MODEL_DIR;
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  if (!load_path (registry, model_path, TRUE, FALSE, seen, error)
      || !load_path (registry, g_getenv ("PTI_MODEL_PATH"), FALSE, FALSE, seen, error)
      || !load_path (registry, system_path, FALSE, TRUE, seen, error))
    return NULL;

  g_ptr_array_sort (registry->entries, compare_entries);
  for (guint i = 0; i < registry->entries->len; i++) {
    Entry *e = g_ptr_array_index (registry->entries, i);
    g_ptr_array_add (registry->sorted, &e->desc);
  }
  return g_steal_pointer (&registry);
}

/* ---- queries ---------------------------------------------------------- */

static Entry *
entry_of (const PtiRegistry *registry, const PtiModelDesc *desc)
{
  return desc != NULL && desc->name != NULL ? g_hash_table_lookup (registry->by_name, desc->name)
                                            : NULL;
}

const PtiModelDesc *
pti_registry_find (const PtiRegistry *registry, const char *name)
{
  g_return_val_if_fail (registry != NULL && name != NULL, NULL);
  Entry *e = g_hash_table_lookup (registry->by_name, name);
  return e ? &e->desc : NULL;
}

const PtiModelDesc *
pti_registry_find_element (const PtiRegistry *registry, const char *element)
{
  g_return_val_if_fail (registry != NULL && element != NULL, NULL);
  Entry *e = g_hash_table_lookup (registry->by_element, element);
  return e ? &e->desc : NULL;
}

const PtiModelDesc *const *
pti_registry_list (const PtiRegistry *registry, guint *n)
{
  g_return_val_if_fail (registry != NULL, NULL);
  if (n != NULL)
    *n = registry->sorted->len;
  return (const PtiModelDesc *const *) registry->sorted->pdata;
}

const char *
pti_registry_origin (const PtiRegistry *registry, const PtiModelDesc *desc)
{
  g_return_val_if_fail (registry != NULL, NULL);
  Entry *e = entry_of (registry, desc);
  return e ? e->origin : NULL;
}

char *
pti_registry_names (const PtiRegistry *registry)
{
  g_return_val_if_fail (registry != NULL, NULL);
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < registry->sorted->len; i++) {
    const PtiModelDesc *d = g_ptr_array_index (registry->sorted, i);
    g_string_append_printf (s, "%s%s", i ? ", " : "", d->name);
  }
  return g_string_free (s, FALSE);
}

/* Does the schema (@doc, the text the registry compiles, parsed) declare
 * @element globally, without a target namespace?  Checked before compiling
 * so a model with a wrong schema gets a clear message instead of libxml2's
 * "no matching global declaration" at the first HMC that uses it. */
static gboolean
schema_declares (const PtiModelDesc *desc, xmlDoc *doc, const char *name, GError **error)
{
  xmlNode *root = xmlDocGetRootElement (doc);
  if (xmlHasProp (root, (const xmlChar *) "targetNamespace") != NULL) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_MODEL,
                 "%s: has a targetNamespace; a model's configuration element has no namespace",
                 name);
    return FALSE;
  }
  for (xmlNode *n = pti_xml_first_element (root); n != NULL; n = pti_xml_next_element (n)) {
    if (strcmp ((const char *) n->name, "element") != 0)
      continue;
    g_autofree char *el = pti_xml_attr (n, "name");
    if (el != NULL && strcmp (el, desc->config_element) == 0)
      return TRUE;
  }
  g_set_error (error, PTI_ERROR, PTI_ERROR_MODEL,
               "%s: does not declare the global element <%s> that model '%s' is configured by",
               name, desc->config_element, desc->name);
  return FALSE;
}

xmlSchema *
pti_registry_schema (PtiRegistry *registry, const PtiModelDesc *desc, GError **error)
{
  g_return_val_if_fail (registry != NULL && desc != NULL, NULL);
  Entry *e = entry_of (registry, desc);
  if (e == NULL) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "model '%s' is not registered",
                 desc->name ? desc->name : "?");
    return NULL;
  }
  if (e->schema == NULL) {
    g_autofree char *name = g_strdup_printf ("schema of model %s", e->desc.name);
    g_autoptr (xmlDoc) doc = pti_xml_read_memory (e->schema_text, -1, name, error);
    if (doc == NULL || !schema_declares (&e->desc, doc, name, error))
      return NULL;
    e->schema = pti_xml_schema_from_doc (doc, e->schema_text, name, error);
  }
  return e->schema;
}

/* ---- printing --------------------------------------------------------- */

static const char *
origin_label (const Entry *e)
{
  const char *slash = strrchr (e->origin, '/');
  return slash != NULL ? slash + 1 : e->origin;
}

static const char *
or_empty (const char *s)
{
  return s ? s : "";
}

void
pti_registry_print_list (const PtiRegistry *registry, GString *out)
{
  g_return_if_fail (registry != NULL && out != NULL);
  static const char *const heads[] = { "NAME", "KIND", "HMC ELEMENT", "ORIGIN", "SUMMARY" };
  int w[4];
  for (guint c = 0; c < 4; c++)
    w[c] = (int) strlen (heads[c]);
  for (guint i = 0; i < registry->entries->len; i++) {
    const Entry *e = g_ptr_array_index (registry->entries, i);
    w[0] = MAX (w[0], (int) strlen (e->desc.name));
    w[1] = MAX (w[1], (int) strlen (e->desc.kind));
    w[2] = MAX (w[2], (int) strlen (e->desc.config_element) + 2);
    w[3] = MAX (w[3], (int) strlen (origin_label (e)));
  }
  g_string_append_printf (out, "%-*s  %-*s  %-*s  %-*s  %s\n", w[0], heads[0], w[1], heads[1],
                          w[2], heads[2], w[3], heads[3], heads[4]);
  for (guint i = 0; i < registry->entries->len; i++) {
    const Entry *e = g_ptr_array_index (registry->entries, i);
    g_autofree char *element = g_strdup_printf ("<%s>", e->desc.config_element);
    g_string_append_printf (out, "%-*s  %-*s  %-*s  %-*s  %s\n", w[0], e->desc.name, w[1],
                            e->desc.kind, w[2], element, w[3], origin_label (e),
                            or_empty (e->desc.summary));
  }
}

/* Append @text indented by two spaces on every line. */
static void
append_indented (GString *out, const char *text)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    g_string_append_printf (out, lines[i][0] ? "  %s\n" : "%s\n", lines[i]);
}

gboolean
pti_registry_print_info (const PtiRegistry *registry, const char *name, GString *out,
                         GError **error)
{
  g_return_val_if_fail (registry != NULL && name != NULL && out != NULL, FALSE);
  Entry *e = g_hash_table_lookup (registry->by_name, name);
  if (e == NULL) {
    g_autofree char *known = pti_registry_names (registry);
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "unknown model '%s'; known models: %s",
                 name, known);
    return FALSE;
  }
  const PtiModelDesc *d = &e->desc;
  g_string_append_printf (out, "%s - %s\n\n", d->name, or_empty (d->summary));
  g_string_append_printf (out, "  kind:        %s\n", d->kind);
  g_string_append_printf (out, "  HMC element: <%s>\n", d->config_element);
  g_string_append_printf (out, "  origin:      %s\n", e->origin);
  if (d->description != NULL) {
    g_string_append (out, "\nDescription:\n");
    append_indented (out, d->description);
  }

  g_string_append_printf (out, "\nParameters (children of <%s>):\n", d->config_element);
  if (d->params == NULL || d->params[0].name == NULL)
    g_string_append (out, "  (none documented; see the model's schema)\n");
  for (const PtiModelParam *p = d->params; p != NULL && p->name != NULL; p++) {
    g_string_append_printf (out, "  %s\n", p->name);
    if (p->unit != NULL)
      g_string_append_printf (out, "      unit:    %s\n", p->unit);
    g_string_append_printf (out, "      default: %s\n",
                            p->default_value ? p->default_value : "required");
    if (p->description != NULL)
      g_string_append_printf (out, "      %s\n", p->description);
  }

  const PtiChangeKey *keys = PTI_MODEL_CHANGES (d);
  if (keys != NULL) {
    g_string_append (out, "\nLive changes (--changes, --changes-stream, pti_context_change_at):\n");
    for (const PtiChangeKey *k = keys; k->name != NULL; k++) {
      g_string_append_printf (out, "  %s%s\n      value:   %s\n", k->name,
                              k->selector ? "[SELECTOR]" : "", or_empty (k->value));
      if (k->selector != NULL)
        g_string_append_printf (out, "      selector: %s\n", k->selector);
      if (k->description != NULL)
        g_string_append_printf (out, "      %s\n", k->description);
    }
  }

  g_string_append (out, "\nTrace records");
  if (d->records == NULL || d->records[0].name == NULL) {
    g_string_append (out, ": none\n");
    return TRUE;
  }
  g_string_append_printf (out, " (namespace %s):\n", d->records_namespace);
  for (const PtiTraceRecordDesc *r = d->records; r->name != NULL; r++) {
    g_string_append_printf (out, "  <%s %s>\n", r->name, or_empty (r->fields));
    if (r->description != NULL)
      g_string_append_printf (out, "      %s\n", r->description);
  }
  return TRUE;
}
