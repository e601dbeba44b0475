/* The HMC loader: an XML system description becomes the graph of the PTI
 * paper's Figure 4 (computers and networks joined by connections), with one
 * configured model instance per model element.  See system.h.
 *
 * Order of work, so that no model ever sees input that is not valid:
 *   1. parse safely (xml.c: no DTD, no entities, no network);
 *   2. validate the whole document against schemas/hmc.xsd, which checks
 *      the structure and skips model elements;
 *   3. for each <computer> and <network>, in document order, and for each
 *      model element inside it: find the model by element name, check its
 *      kind, validate the element against the model's own schema, and only
 *      then hand it to the model's configure;
 *   4. resolve <connect> elements (after all computers and networks are
 *      known, so they may appear anywhere), checking every node and port;
 *   5. number the processors in connection order.
 * Every error names the file, the line and the element (pti_node_error). */
#include "pti-config.h"
#include "system.h"
#include "xml.h"
#include "ranges-private.h"

#include <stdlib.h>
#include <string.h>

/* schemas/hmc.xsd without its documentation, generated at build time: the
 * reader and the schema it validates against come from one build. */
extern const char pti_hmc_xsd[];

/* Bigger systems are refused rather than allocated: a hostile or mistyped
 * count must give an error, not exhaust memory.  DESIGN.md aims at a
 * million simulated ranks; this leaves a factor of 16. */
#define MAX_PROCESSORS (1u << 24)

/* A <computer name count cpus> element: @count identical nodes. */
typedef struct {
  char *name;
  guint count;
  guint cpus;              /* processors per node (default 1) */
  PtiModelInstance *cpu;   /* the computer's CPU model (borrowed from the system) */
  PtiModelInstance *intra; /* network model between its own processors, or NULL
                            * (then they talk through the node's network port) */
  guint first_node;        /* index of its first node in PtiSystem.nodes */
  int line;
} PtiComputer;

typedef struct {
  char *name;
  PtiModelInstance *model; /* the network model (borrowed) */
  guint n_ports;           /* highest port number connected */
  int line;
} PtiNetwork;

/* One computer node of the graph (computer type + 1-based node number). */
typedef struct {
  guint computer;          /* index into PtiSystem.computers */
  guint number;            /* 1..count, as written in the HMC */
  gint network;            /* index into PtiSystem.networks, -1 if unconnected */
  guint port;              /* 1-based port on that network */
  gint filesystem;         /* index into PtiSystem.filesystems, -1 if it mounts none */
  guint client;            /* 1-based client of that file system (mount order) */
} PtiNode;

/* A <filesystem name>: an I/O model instance, and how many nodes mount it. */
typedef struct {
  char *name;
  PtiModelInstance *model; /* the I/O model (borrowed) */
  guint n_clients;
  int line;
} PtiFilesystem;

/* A processor: where one process can be placed, with what routing needs
 * at hand (copied from its node, its computer and its network). */
typedef struct {
  guint node;              /* index into PtiSystem.nodes */
  guint cpu;               /* 0..cpus-1 */
  gint network;            /* its node's network, -1 if unconnected */
  guint port;              /* its node's port on it */
  PtiModelInstance *intra; /* its computer's intra-node model, or NULL */
  PtiModelInstance *net;   /* its network's model, or NULL */
} PtiProcessor;

/* One child of the HMC's <mpi> element: the algorithm the MPI library uses
 * for a collective, e.g. <allreduce algorithm="ring"/> (wsl/COLLECTIVES.md). */
typedef struct {
  char *collective;        /* the element's name: "allreduce" */
  char *algorithm;         /* its algorithm attribute: "ring" */
  int line;
} PtiMpiAlgorithm;

struct _PtiSystem {
  char *name;              /* <system name> */
  char *path;              /* file it was loaded from */
  GPtrArray *instances;    /* PtiModelInstance*, owned, in document order */
  GArray *computers;       /* PtiComputer */
  GArray *networks;        /* PtiNetwork */
  GArray *nodes;           /* PtiNode, computers' nodes in document order */
  GArray *processors;      /* PtiProcessor, placement order: connection order,
                            * i.e. nodes sorted by (network, port), then cpu */
  GArray *mpi_algorithms;  /* PtiMpiAlgorithm, from <mpi>, in document order */
  PtiCommCreateCost comm_create; /* <mpi><comm_create>: zero without one */
  PtiMpiCallCost mpi_call;       /* <mpi><first_collective>, <comm_free> */
  GHashTable *choices;     /* model choice name -> k (>= 1) */
  GPtrArray *choice_names; /* char*, by k - 1 */
  GPtrArray *choice_rows;  /* per k - 1: n_instances PtiModelInstance*, by instance index */
  GArray *filesystems;     /* PtiFilesystem */
};


typedef struct {
  PtiSystem *sys;
  PtiRegistry *registry;
  GHashTable *computers;   /* name -> index + 1 */
  GHashTable *networks;    /* name -> index + 1 */
  GHashTable *filesystems; /* name -> index + 1 */
  GPtrArray *ports;        /* per network: GHashTable port -> node index + 1 */
  GArray *connected_at;    /* per node: line of the <connect> that connected it, 0 if none */
  guint64 processors;      /* so far, to refuse oversized systems early */
  gboolean mpi_seen;       /* an <mpi> element was read */
  const char *const *uses; /* "OWNER=MODEL" overriding model attributes, or NULL */
  guint64 uses_applied;    /* bit i: uses[i] named an owner */
} Loader;

/* ---- freeing ---------------------------------------------------------- */

/* finalize runs even when configure failed: the instance started zeroed, so
 * a model's finalize only ever sees what its configure got to allocate. */
static void
instance_free (gpointer data)
{
  PtiModelInstance *inst = data;
  if (inst->desc->finalize != NULL)
    inst->desc->finalize (inst->state);
  g_free (inst->state);
  g_free (inst->owner);
  g_free (inst->config);
  g_free (inst);
}

static void
computer_clear (gpointer data)
{
  g_free (((PtiComputer *) data)->name);
}

static void
network_clear (gpointer data)
{
  g_free (((PtiNetwork *) data)->name);
}

static void
filesystem_clear (gpointer data)
{
  g_free (((PtiFilesystem *) data)->name);
}

static void
mpi_algorithm_clear (gpointer data)
{
  PtiMpiAlgorithm *a = data;
  g_free (a->collective);
  g_free (a->algorithm);
}

void
pti_system_free (PtiSystem *system)
{
  if (system == NULL)
    return;
  g_clear_pointer (&system->processors, g_array_unref);
  g_clear_pointer (&system->nodes, g_array_unref);
  g_clear_pointer (&system->networks, g_array_unref);
  g_clear_pointer (&system->computers, g_array_unref);
  g_clear_pointer (&system->instances, g_ptr_array_unref);
  g_clear_pointer (&system->mpi_algorithms, g_array_unref);
  g_clear_pointer (&system->choices, g_hash_table_unref);
  g_clear_pointer (&system->choice_names, g_ptr_array_unref);
  g_clear_pointer (&system->choice_rows, g_ptr_array_unref);
  g_clear_pointer (&system->filesystems, g_array_unref);
  g_free (system->name);
  g_free (system->path);
  g_free (system);
}

/* ---- model elements --------------------------------------------------- */

static const char *
kind_label (const char *kind)
{
  return strcmp (kind, "cpu") == 0 ? "CPU" : kind;
}

/* "cpu_clc (cpu-clc), net_simple (net-simple)": the elements of the models
 * of @kind (all models if NULL), in name order. */
static char *
known_elements (const PtiRegistry *registry, const char *kind)
{
  guint n = 0;
  const PtiModelDesc *const *list = pti_registry_list (registry, &n);
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < n; i++)
    if (kind == NULL || strcmp (list[i]->kind, kind) == 0)
      g_string_append_printf (s, "%s%s (%s)", s->len ? ", " : "", list[i]->config_element,
                              list[i]->name);
  if (s->len == 0)
    g_string_append (s, "none");
  return g_string_free (s, FALSE);
}

/* Validate and configure one model element; the instance joins the system
 * (and so is finalized with it) whether or not configure succeeds. */
static PtiModelInstance *
configure_model (Loader *ld, xmlNode *el, const PtiModelDesc *desc, const char *owner,
                 GError **error)
{
  xmlSchema *schema = pti_registry_schema (ld->registry, desc, error);
  if (schema == NULL) {
    /* The model's fault, but say where it was needed. */
    g_prefix_error (error, "%s:%ld: <%s>: ", ld->sys->path, xmlGetLineNo (el),
                    (const char *) el->name);
    return NULL;
  }
  /* The parameters it documents are the children its schema allows. */
  g_autoptr (GPtrArray) known = g_ptr_array_new ();
  for (const PtiModelParam *p = desc->params; p != NULL && p->name != NULL; p++)
    if (p->name[0] != '@')
      g_ptr_array_add (known, (gpointer) p->name);
  /* The configuration's name is pti's, not the model's: taken off before
   * the model's schema sees the element. */
  g_autofree char *config = pti_xml_attr (el, "config");
  if (config != NULL) {
    xmlUnsetProp (el, (const xmlChar *) "config");
    if (!g_regex_match_simple ("^[A-Za-z0-9_][A-Za-z0-9_.\\-]*$", config, 0, 0)
        || strlen (config) > 128) {
      pti_node_error (error, el, "config=\"%s\": a configuration's name is a letter, digit or "
                      "'_', then letters, digits, '_', '-' or '.'", config);
      return NULL;
    }
  }
  g_autofree char *what = g_strdup_printf ("model %s", desc->name);
  if (!pti_xml_validate_element (schema, el, what, (const char *const *) known->pdata,
                                 known->len, error))
    return NULL;

  PtiModelInstance *inst = g_new0 (PtiModelInstance, 1);
  inst->desc = desc;
  inst->state = desc->instance_size ? g_malloc0 (desc->instance_size) : NULL;
  inst->owner = g_strdup (owner);
  inst->config = g_steal_pointer (&config);
  inst->index = ld->sys->instances->len;
  g_ptr_array_add (ld->sys->instances, inst);

  GError *local = NULL;
  if (!desc->configure (inst->state, el, &local)) {
    if (local != NULL)
      g_propagate_error (error, local);
    else
      pti_node_error (error, el, "model %s refused this configuration without saying why",
                      desc->name);
    return NULL;
  }
  g_clear_error (&local);
  return inst;
}

/* The configuration of @present (of @kind, or any if NULL) that @name
 * selects: the one of that config name, else the only one of that model. */
static PtiModelInstance *
find_config (GPtrArray *present, const char *kind, const char *name)
{
  PtiModelInstance *by_model = NULL;
  guint n_by_model = 0;
  for (guint j = 0; j < present->len; j++) {
    PtiModelInstance *inst = g_ptr_array_index (present, j);
    if (kind != NULL && strcmp (inst->desc->kind, kind) != 0)
      continue;
    if (strcmp (PTI_MODEL_INSTANCE_NAME (inst), name) == 0)
      return inst;
    if (strcmp (inst->desc->name, name) == 0) {
      by_model = inst;
      n_by_model++;
    }
  }
  return n_by_model == 1 ? by_model : NULL;
}

/* "cpu-clc, fast (cpu-clc)": the configurations of @present (of @kind, or
 * all if NULL). */
static char *
configs_list (GPtrArray *present, const char *kind)
{
  GString *have = g_string_new (NULL);
  for (guint j = 0; j < present->len; j++) {
    const PtiModelInstance *inst = g_ptr_array_index (present, j);
    if (kind != NULL && strcmp (inst->desc->kind, kind) != 0)
      continue;
    g_string_append_printf (have, "%s%s", have->len ? ", " : "", PTI_MODEL_INSTANCE_NAME (inst));
    if (inst->config != NULL)
      g_string_append_printf (have, " (%s)", inst->desc->name);
  }
  return g_string_free (have, FALSE);
}

/* The configurations of @inst's owner and kind, in document order. */
static GPtrArray *
siblings_of (const PtiSystem *sys, const PtiModelInstance *inst)
{
  GPtrArray *out = g_ptr_array_new ();
  for (guint i = 0; i < sys->instances->len; i++) {
    PtiModelInstance *o = g_ptr_array_index (sys->instances, i);
    if (strcmp (o->owner, inst->owner) == 0 && strcmp (o->desc->kind, inst->desc->kind) == 0)
      g_ptr_array_add (out, o);
  }
  return out;
}

guint
pti_system_choice (PtiSystem *sys, const char *name)
{
  guint k = GPOINTER_TO_UINT (g_hash_table_lookup (sys->choices, name));
  if (k != 0)
    return k;
  guint n = sys->instances->len;
  const PtiModelInstance **row = g_new0 (const PtiModelInstance *, MAX (n, 1));
  for (guint i = 0; i < n; i++) {
    g_autoptr (GPtrArray) sib = siblings_of (sys, g_ptr_array_index (sys->instances, i));
    row[i] = find_config (sib, NULL, name);
  }
  g_ptr_array_add (sys->choice_rows, row);
  g_ptr_array_add (sys->choice_names, g_strdup (name));
  k = sys->choice_names->len;
  g_hash_table_insert (sys->choices, g_strdup (name), GUINT_TO_POINTER (k));
  return k;
}

const char *
pti_system_choice_name (const PtiSystem *sys, guint k)
{
  return k == 0 || k > sys->choice_names->len ? NULL : g_ptr_array_index (sys->choice_names, k - 1);
}

guint
pti_system_n_choices (const PtiSystem *sys)
{
  return sys->choice_names->len;
}

const PtiModelInstance *const *
pti_system_choice_row_ (const PtiSystem *sys, guint k)
{
  return g_ptr_array_index (sys->choice_rows, k - 1);
}

char *
pti_system_configs_of (const PtiSystem *sys, const PtiModelInstance *inst)
{
  g_autoptr (GPtrArray) sib = siblings_of (sys, inst);
  return configs_list (sib, NULL);
}

/* Configure every model element under @owner_el (a <computer> or
 * <network>) and choose the active model of @kind: the one its `model`
 * attribute names, else the first.  @what is "computer" or "network". */
static gboolean
configure_models (Loader *ld, xmlNode *owner_el, const char *what, const char *name,
                  const char *kind, PtiModelInstance **active, const char *kind2,
                  PtiModelInstance **active2, GError **error)
{
  g_autofree char *owner = g_strdup_printf ("%s %s", what, name);
  g_autofree char *model_attr = pti_xml_attr (owner_el, "model");
  /* A command-line choice (--use-model NAME=MODEL) replaces the attribute. */
  for (guint i = 0; ld->uses != NULL && ld->uses[i] != NULL && i < 64; i++) {
    const char *eq = strchr (ld->uses[i], '=');
    if (eq != NULL && strncmp (ld->uses[i], name, eq - ld->uses[i]) == 0
        && name[eq - ld->uses[i]] == '\0') {
      g_free (model_attr);
      model_attr = g_strdup (eq + 1);
      ld->uses_applied |= G_GUINT64_CONSTANT (1) << i;
    }
  }
  g_auto (GStrv) wanted = g_strsplit_set (model_attr ? model_attr : "", " \t\r\n", -1);
  g_autoptr (GPtrArray) present = g_ptr_array_new ();   /* PtiModelInstance* */

  *active = NULL;
  if (active2 != NULL)
    *active2 = NULL;
  for (xmlNode *el = pti_xml_first_element (owner_el); el != NULL; el = pti_xml_next_element (el)) {
    const char *element = (const char *) el->name;
    const PtiModelDesc *desc = el->ns == NULL ? pti_registry_find_element (ld->registry, element)
                                              : NULL;
    if (desc == NULL) {
      g_autofree char *known = known_elements (ld->registry, NULL);
      return pti_node_error (error, el, "not a known model configuration element; known: %s",
                             known);
    }
    if (strcmp (desc->kind, kind) != 0 && (kind2 == NULL || strcmp (desc->kind, kind2) != 0)) {
      g_autofree char *known = known_elements (ld->registry, kind);
      return pti_node_error (error, el,
                             "configures %s, a %s model; a <%s> takes %s models: %s",
                             desc->name, kind_label (desc->kind), what, kind_label (kind), known);
    }
    PtiModelInstance *inst = configure_model (ld, el, desc, owner, error);
    if (inst == NULL)
      return FALSE;
    for (guint j = 0; j < present->len; j++) {
      const PtiModelInstance *other = g_ptr_array_index (present, j);
      if (strcmp (PTI_MODEL_INSTANCE_NAME (other), PTI_MODEL_INSTANCE_NAME (inst)) == 0)
        return pti_node_error (error, el, "a second configuration named '%s' in %s: name each "
                               "configuration of one model with a config attribute "
                               "(<%s config=\"fast\">)", PTI_MODEL_INSTANCE_NAME (inst), owner,
                               element);
    }
    g_ptr_array_add (present, inst);
  }

  /* The `model` attribute: each name must be configured here, one per kind. */
  for (guint i = 0; wanted[i] != NULL; i++) {
    if (wanted[i][0] == '\0')
      continue;
    PtiModelInstance *found = find_config (present, NULL, wanted[i]);
    if (found == NULL) {
      g_autofree char *have_s = configs_list (present, NULL);
      return pti_node_error (error, owner_el,
                             "model=\"%s\" names model '%s', which this <%s> does not configure "
                             "(configured here: %s)",
                             model_attr, wanted[i], what, have_s[0] ? have_s : "none");
    }
    PtiModelInstance **slot = strcmp (found->desc->kind, kind) == 0 ? active : active2;
    if (*slot != NULL)
      return pti_node_error (error, owner_el, "model=\"%s\" names two %s models, %s and %s",
                             model_attr, kind_label (found->desc->kind), (*slot)->desc->name,
                             found->desc->name);
    *slot = found;
  }
  /* Without a model attribute the first of each kind is active. */
  for (guint j = 0; j < present->len; j++) {
    PtiModelInstance *inst = g_ptr_array_index (present, j);
    PtiModelInstance **slot = strcmp (inst->desc->kind, kind) == 0 ? active : active2;
    if (*slot == NULL)
      *slot = inst;
  }
  if (*active == NULL) {
    g_autofree char *known = known_elements (ld->registry, kind);
    return pti_node_error (error, owner_el, "%s '%s' has no %s model; add one of: %s", what, name,
                           kind_label (kind), known);
  }
  return TRUE;
}

/* ---- computers and networks ------------------------------------------ */

static gboolean
uint_attr (const xmlNode *el, const char *attr, guint64 fallback, guint64 max, guint64 *out,
           GError **error)
{
  g_autofree char *text = pti_xml_attr (el, attr);
  if (text == NULL) {
    *out = fallback;
    return TRUE;
  }
  g_strstrip (text);
  if (!g_ascii_string_to_unsigned (text, 10, 1, max, out, NULL))
    return pti_node_error (error, el,
                           "%s=\"%s\" must be a whole number from 1 to %" G_GUINT64_FORMAT,
                           attr, text, max);
  return TRUE;
}

static gboolean
load_computer (Loader *ld, xmlNode *el, GError **error)
{
  PtiSystem *sys = ld->sys;
  g_autofree char *name = pti_xml_attr (el, "name");
  guint64 count, cpus;
  if (name == NULL)
    return pti_node_error (error, el, "a computer needs a name");
  if (g_hash_table_contains (ld->computers, name))
    return pti_node_error (error, el, "a computer named '%s' is already defined", name);
  if (!uint_attr (el, "count", 1, MAX_PROCESSORS, &count, error)
      || !uint_attr (el, "cpus", 1, MAX_PROCESSORS, &cpus, error))
    return FALSE;
  /* Checked before anything is configured or allocated.  Nodes never
   * outnumber processors, so this bounds both. */
  ld->processors += count * cpus;
  if (ld->processors > MAX_PROCESSORS)
    return pti_node_error (error, el, "the system would have more than %u processors",
                           MAX_PROCESSORS);

  PtiComputer c = { 0 };
  c.count = (guint) count;
  c.cpus = (guint) cpus;
  c.first_node = sys->nodes->len;
  c.line = (int) xmlGetLineNo (el);
  /* A network model under a computer carries the messages between its own
   * processors (shared memory), with the CPU numbers as ports. */
  if (!configure_models (ld, el, "computer", name, "cpu", &c.cpu, "network", &c.intra, error))
    return FALSE;
  if (c.intra != NULL) {
    const PtiNetOps *ops = c.intra->desc->net;
    guint32 have = ops->version >= 2 && ops->port_count ? ops->port_count (c.intra->state) : 0;
    if (have > 0 && c.cpus > have)
      return pti_node_error (error, el, "computer %s has %u cpus but its intra-node %s model "
                             "has %u ports (one per cpu)", name, c.cpus, c.intra->desc->name, have);
  }

  guint index = sys->computers->len;
  c.name = g_strdup (name);
  g_array_append_val (sys->computers, c);
  g_hash_table_insert (ld->computers, g_steal_pointer (&name), GUINT_TO_POINTER (index + 1));
  for (guint i = 0; i < c.count; i++) {
    PtiNode node = { .computer = index, .number = i + 1, .network = -1, .port = 0,
                     .filesystem = -1 };
    g_array_append_val (sys->nodes, node);
  }
  g_array_set_size (ld->connected_at, sys->nodes->len);
  return TRUE;
}

/* <filesystem name>: its I/O model; nodes join it with <mount>. */
static gboolean
load_filesystem (Loader *ld, xmlNode *el, GError **error)
{
  PtiSystem *sys = ld->sys;
  g_autofree char *name = pti_xml_attr (el, "name");
  if (name == NULL)
    return pti_node_error (error, el, "a file system needs a name");
  if (g_hash_table_contains (ld->filesystems, name))
    return pti_node_error (error, el, "a file system named '%s' is already defined", name);
  PtiFilesystem fs = { .line = (int) xmlGetLineNo (el) };
  if (!configure_models (ld, el, "filesystem", name, "io", &fs.model, NULL, NULL, error))
    return FALSE;
  guint index = sys->filesystems->len;
  fs.name = g_strdup (name);
  g_array_append_val (sys->filesystems, fs);
  g_hash_table_insert (ld->filesystems, g_steal_pointer (&name), GUINT_TO_POINTER (index + 1));
  return TRUE;
}

static gboolean
load_network (Loader *ld, xmlNode *el, GError **error)
{
  PtiSystem *sys = ld->sys;
  g_autofree char *name = pti_xml_attr (el, "name");
  if (name == NULL)
    return pti_node_error (error, el, "a network needs a name");
  if (g_hash_table_contains (ld->networks, name))
    return pti_node_error (error, el, "a network named '%s' is already defined", name);

  PtiNetwork n = { 0 };
  n.line = (int) xmlGetLineNo (el);
  if (!configure_models (ld, el, "network", name, "network", &n.model, NULL, NULL, error))
    return FALSE;

  guint index = sys->networks->len;
  n.name = g_strdup (name);
  g_array_append_val (sys->networks, n);
  g_hash_table_insert (ld->networks, g_steal_pointer (&name), GUINT_TO_POINTER (index + 1));
  g_ptr_array_add (ld->ports, g_hash_table_new (g_direct_hash, g_direct_equal));
  return TRUE;
}

/* ---- connections ------------------------------------------------------ */

typedef struct {
  guint64 lo, hi;
} Span;

/* "1-4,9,12-16" -> spans; @total receives how many numbers they list. */
static gboolean
parse_ranges (const xmlNode *el, const char *attr, const char *text, GArray *spans,
              guint64 *total, GError **error)
{
  g_auto (GStrv) parts = g_strsplit (text, ",", -1);
  *total = 0;
  for (guint i = 0; parts[i] != NULL; i++) {
    g_strstrip (parts[i]);
    char *dash = strchr (parts[i], '-');
    Span s;
    if (dash != NULL)
      *dash = '\0';
    const char *hi = dash ? dash + 1 : parts[i];
    if (!g_ascii_string_to_unsigned (parts[i], 10, 1, G_MAXUINT32, &s.lo, NULL)
        || !g_ascii_string_to_unsigned (hi, 10, 1, G_MAXUINT32, &s.hi, NULL))
      return pti_node_error (error, el,
                             "%s=\"%s\": expected numbers from 1 to %u, "
                             "as \"3\", \"1-16\" or \"1-4,9-12\"",
                             attr, text, G_MAXUINT32);
    if (s.hi < s.lo)
      return pti_node_error (error, el,
                             "%s=\"%s\": the range %" G_GUINT64_FORMAT "-%" G_GUINT64_FORMAT
                             " goes down; write ranges from low to high", attr, text, s.lo, s.hi);
    g_array_append_val (spans, s);
    *total += s.hi - s.lo + 1;
  }
  return TRUE;
}

/* Iterates the numbers of a span list. */
typedef struct {
  const GArray *spans;
  guint span;
  guint64 next;
} SpanIter;

static guint64
span_next (SpanIter *it)
{
  const Span *s = &g_array_index (it->spans, Span, it->span);
  guint64 v = it->next;
  if (v == s->hi && it->span + 1 < it->spans->len) {
    it->span++;
    it->next = g_array_index (it->spans, Span, it->span).lo;
  } else {
    it->next++;
  }
  return v;
}

static int
compare_strings (const void *a, const void *b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* The keys of a name table, sorted and comma-separated, for messages. */
static char *
names_of (GHashTable *table)
{
  guint n = 0;
  g_autofree gpointer *keys = g_hash_table_get_keys_as_array (table, &n);
  qsort (keys, n, sizeof (gpointer), compare_strings);
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < n; i++)
    g_string_append_printf (s, "%s%s", i ? ", " : "", (const char *) keys[i]);
  return g_string_free (s, FALSE);
}

static gboolean
load_connect (Loader *ld, xmlNode *el, GError **error)
{
  PtiSystem *sys = ld->sys;
  xmlNode *c_el = el, *n_el = el;   /* where each half is written, for errors */
  g_autofree char *computer = pti_xml_attr (el, "computer");
  g_autofree char *nodes = pti_xml_attr (el, "nodes");
  g_autofree char *network = pti_xml_attr (el, "network");
  g_autofree char *ports = pti_xml_attr (el, "ports");
  const char *nodes_attr = "nodes", *ports_attr = "ports";
  xmlNode *child = pti_xml_first_element (el);

  if (child != NULL) {
    /* The paper's form: <computer name node/><network name port/>. */
    if (computer || nodes || network || ports)
      return pti_node_error (error, el,
                             "use either the attributes computer/nodes/network/ports or the "
                             "<computer>/<network> children, not both");
    c_el = child;
    n_el = pti_xml_next_element (child);
    if (n_el == NULL || strcmp ((const char *) c_el->name, "computer") != 0
        || strcmp ((const char *) n_el->name, "network") != 0)
      return pti_node_error (error, el, "expected <computer name node/> then <network name port/>");
    computer = pti_xml_attr (c_el, "name");
    nodes = pti_xml_attr (c_el, "node");
    network = pti_xml_attr (n_el, "name");
    ports = pti_xml_attr (n_el, "port");
    nodes_attr = "node";
    ports_attr = "port";
  }
  if (computer == NULL || nodes == NULL || network == NULL || ports == NULL)
    return pti_node_error (error, el,
                           "a <connect> needs computer, nodes, network and ports, e.g. "
                           "<connect computer=\"pc_node\" nodes=\"1-16\" "
                           "network=\"myrinet\" ports=\"1-16\"/>");

  guint ci = GPOINTER_TO_UINT (g_hash_table_lookup (ld->computers, computer));
  if (ci == 0) {
    g_autofree char *known = names_of (ld->computers);
    return pti_node_error (error, c_el, "no computer named '%s'; computers: %s", computer, known);
  }
  guint ni = GPOINTER_TO_UINT (g_hash_table_lookup (ld->networks, network));
  if (ni == 0) {
    g_autofree char *known = names_of (ld->networks);
    return pti_node_error (error, n_el, "no network named '%s'; networks: %s", network,
                           known[0] ? known : "none");
  }
  const PtiComputer *comp = &g_array_index (sys->computers, PtiComputer, ci - 1);
  PtiNetwork *net = &g_array_index (sys->networks, PtiNetwork, ni - 1);
  GHashTable *used = g_ptr_array_index (ld->ports, ni - 1);

  g_autoptr (GArray) node_spans = g_array_new (FALSE, FALSE, sizeof (Span));
  g_autoptr (GArray) port_spans = g_array_new (FALSE, FALSE, sizeof (Span));
  guint64 n_nodes, n_ports;
  if (!parse_ranges (c_el, nodes_attr, nodes, node_spans, &n_nodes, error)
      || !parse_ranges (n_el, ports_attr, ports, port_spans, &n_ports, error))
    return FALSE;
  for (guint i = 0; i < node_spans->len; i++) {
    const Span *s = &g_array_index (node_spans, Span, i);
    if (s->hi > comp->count)
      return pti_node_error (error, c_el, "%s has %u node%s (count=\"%u\"); there is no node %"
                             G_GUINT64_FORMAT, comp->name, comp->count, comp->count == 1 ? "" : "s",
                             comp->count, MAX (s->lo, (guint64) comp->count + 1));
  }
  if (n_nodes != n_ports)
    return pti_node_error (error, el,
                           "%s=\"%s\" lists %" G_GUINT64_FORMAT " node%s but %s=\"%s\" lists %"
                           G_GUINT64_FORMAT " port%s; nodes and ports are paired in order",
                           nodes_attr, nodes, n_nodes, n_nodes == 1 ? "" : "s", ports_attr, ports,
                           n_ports, n_ports == 1 ? "" : "s");

  /* A model that knows its ports (a topology) refuses the ones it has not. */
  const PtiNetOps *ops = net->model->desc->net;
  guint32 have = ops->version >= 2 && ops->port_count ? ops->port_count (net->model->state) : 0;
  const Span *last_port = &g_array_index (port_spans, Span, port_spans->len - 1);
  if (have > 0 && last_port->hi > have)
    return pti_node_error (error, n_el, "network %s has ports 1 to %u (its %s model's "
                           "topology, line %d); there is no port %" G_GUINT64_FORMAT,
                           net->name, have, net->model->desc->name, net->line,
                           MAX (last_port->lo, (guint64) have + 1));

  int line = (int) xmlGetLineNo (el);
  SpanIter ni_it = { node_spans, 0, g_array_index (node_spans, Span, 0).lo };
  SpanIter pi_it = { port_spans, 0, g_array_index (port_spans, Span, 0).lo };
  for (guint64 k = 0; k < n_nodes; k++) {
    guint number = (guint) span_next (&ni_it);
    guint port = (guint) span_next (&pi_it);
    guint index = comp->first_node + number - 1;
    PtiNode *node = &g_array_index (sys->nodes, PtiNode, index);
    int *at = &g_array_index (ld->connected_at, int, index);
    if (*at != 0)
      return pti_node_error (error, c_el, "%s node %u is already connected (line %d)",
                             comp->name, number, *at);
    guint other = GPOINTER_TO_UINT (g_hash_table_lookup (used, GUINT_TO_POINTER (port)));
    if (other != 0) {
      const PtiNode *o = &g_array_index (sys->nodes, PtiNode, other - 1);
      const PtiComputer *oc = &g_array_index (sys->computers, PtiComputer, o->computer);
      return pti_node_error (error, n_el, "port %u of %s is already taken by %s node %u (line %d)",
                             port, net->name, oc->name, o->number,
                             g_array_index (ld->connected_at, int, other - 1));
    }
    g_hash_table_insert (used, GUINT_TO_POINTER (port), GUINT_TO_POINTER (index + 1));
    node->network = (gint) (ni - 1);
    node->port = port;
    *at = line;
    net->n_ports = MAX (net->n_ports, port);
  }
  return TRUE;
}

/* <mount computer="c" nodes="1-4" filesystem="pfs"/>: those nodes are
 * clients of the file system, numbered 1, 2, ... in mount order. */
static gboolean
load_mount (Loader *ld, xmlNode *el, GError **error)
{
  PtiSystem *sys = ld->sys;
  g_autofree char *computer = pti_xml_attr (el, "computer");
  g_autofree char *nodes = pti_xml_attr (el, "nodes");
  g_autofree char *filesystem = pti_xml_attr (el, "filesystem");
  if (computer == NULL || filesystem == NULL)
    return pti_node_error (error, el, "a <mount> needs computer and filesystem, e.g. "
                           "<mount computer=\"pc_node\" nodes=\"1-16\" filesystem=\"pfs\"/>");
  guint ci = GPOINTER_TO_UINT (g_hash_table_lookup (ld->computers, computer));
  if (ci == 0) {
    g_autofree char *known = names_of (ld->computers);
    return pti_node_error (error, el, "no computer named '%s'; computers: %s", computer, known);
  }
  guint fi = GPOINTER_TO_UINT (g_hash_table_lookup (ld->filesystems, filesystem));
  if (fi == 0) {
    g_autofree char *known = names_of (ld->filesystems);
    return pti_node_error (error, el, "no file system named '%s'; file systems: %s", filesystem,
                           known[0] ? known : "none");
  }
  const PtiComputer *comp = &g_array_index (sys->computers, PtiComputer, ci - 1);
  PtiFilesystem *fs = &g_array_index (sys->filesystems, PtiFilesystem, fi - 1);
  g_autoptr (GArray) spans = g_array_new (FALSE, FALSE, sizeof (Span));
  guint64 n_nodes;
  if (nodes == NULL) {
    Span all = { 1, comp->count };
    g_array_append_val (spans, all);
    n_nodes = comp->count;
  } else if (!parse_ranges (el, "nodes", nodes, spans, &n_nodes, error)) {
    return FALSE;
  }
  for (guint i = 0; i < spans->len; i++) {
    const Span *sp = &g_array_index (spans, Span, i);
    if (sp->hi > comp->count)
      return pti_node_error (error, el, "%s has %u node%s (count=\"%u\"); there is no node %"
                             G_GUINT64_FORMAT, comp->name, comp->count, comp->count == 1 ? "" : "s",
                             comp->count, MAX (sp->lo, (guint64) comp->count + 1));
  }
  SpanIter it = { spans, 0, g_array_index (spans, Span, 0).lo };
  for (guint64 k = 0; k < n_nodes; k++) {
    guint number = (guint) span_next (&it);
    PtiNode *node = &g_array_index (sys->nodes, PtiNode, comp->first_node + number - 1);
    if (node->filesystem >= 0)
      return pti_node_error (error, el, "%s node %u already mounts file system %s", comp->name,
                             number, g_array_index (sys->filesystems, PtiFilesystem,
                                                    node->filesystem).name);
    node->filesystem = (gint) (fi - 1);
    node->client = ++fs->n_clients;
  }
  return TRUE;
}

/* ---- processors ------------------------------------------------------- */

static int
compare_connected (gconstpointer a, gconstpointer b, gpointer data)
{
  const GArray *nodes = data;
  const PtiNode *na = &g_array_index (nodes, PtiNode, *(const guint *) a);
  const PtiNode *nb = &g_array_index (nodes, PtiNode, *(const guint *) b);
  if (na->network != nb->network)
    return na->network < nb->network ? -1 : 1;
  return na->port < nb->port ? -1 : na->port > nb->port;
}

/* Connection order: connected nodes by (network, port), then unconnected
 * ones in document order; each node's processors in cpu order. */
static void
number_processors (PtiSystem *sys)
{
  g_autoptr (GArray) order = g_array_sized_new (FALSE, FALSE, sizeof (guint), sys->nodes->len);
  for (guint i = 0; i < sys->nodes->len; i++)
    if (g_array_index (sys->nodes, PtiNode, i).network >= 0)
      g_array_append_val (order, i);
  g_array_sort_with_data (order, compare_connected, sys->nodes);
  for (guint i = 0; i < sys->nodes->len; i++)
    if (g_array_index (sys->nodes, PtiNode, i).network < 0)
      g_array_append_val (order, i);

  for (guint i = 0; i < order->len; i++) {
    guint n = g_array_index (order, guint, i);
    const PtiNode *node = &g_array_index (sys->nodes, PtiNode, n);
    const PtiComputer *c = &g_array_index (sys->computers, PtiComputer, node->computer);
    PtiModelInstance *net = node->network >= 0
                              ? g_array_index (sys->networks, PtiNetwork, node->network).model : NULL;
    for (guint cpu = 0; cpu < c->cpus; cpu++) {
      PtiProcessor p = { .node = n, .cpu = cpu, .network = node->network, .port = node->port,
                         .intra = c->intra, .net = net };
      g_array_append_val (sys->processors, p);
    }
  }
}

/* ---- the MPI library ---------------------------------------------------- */

/* <mpi><comm_create>: the MPI library's own time to set up a communicator
 * on each rank, beyond the allreduces that agree on its context id (which
 * the WSL sends through the collectives: wsl/COLLECTIVES.md,
 * "Communicator creation").  All three times are required: a library whose
 * first creation costs what the later ones do says so with equal values. */
static gboolean
load_comm_create (Loader *ld, xmlNode *el, GError **error)
{
  if (ld->sys->comm_create.set)
    return pti_node_error (error, el, "only one <comm_create> element is allowed in <mpi>");
  PtiCommCreateCost *c = &ld->sys->comm_create;
  if (!pti_config_get_time (el, "first", &c->first, error)
      || !pti_config_get_time (el, "first_topology", &c->first_topology, error)
      || !pti_config_get_time (el, "later", &c->later, error))
    return FALSE;
  c->set = TRUE;
  return TRUE;
}

/* <mpi><comm_free>: MPI_Comm_free's own time on a rank, its first and the
 * later ones; <mpi><first_collective>: a collective function's first call,
 * the rank's first of all and the others (a first runs the library's code
 * for the first time).  Both times of each are required. */
static gboolean
load_first_later (xmlNode *el, const char *later_name, double *first, double *later,
                  gboolean *set, GError **error)
{
  if (*set)
    return pti_node_error (error, el, "only one <%s> element is allowed in <mpi>",
                           (const char *) el->name);
  if (!pti_config_get_time (el, "first", first, error)
      || !pti_config_get_time (el, later_name, later, error))
    return FALSE;
  *set = TRUE;
  return TRUE;
}

/* <mpi><allreduce algorithm="ring"/>...</mpi>: hmc.xsd has checked the
 * names; the WSL maps them to its algorithms. */
static gboolean
load_mpi (Loader *ld, xmlNode *el, GError **error)
{
  if (ld->mpi_seen)
    return pti_node_error (error, el, "only one <mpi> element is allowed in a <system>");
  ld->mpi_seen = TRUE;
  for (xmlNode *c = pti_xml_first_element (el); c != NULL; c = pti_xml_next_element (c)) {
    if (strcmp ((const char *) c->name, "comm_create") == 0) {
      if (!load_comm_create (ld, c, error))
        return FALSE;
      continue;
    }
    PtiMpiCallCost *mc = &ld->sys->mpi_call;
    if (strcmp ((const char *) c->name, "comm_free") == 0) {
      if (!load_first_later (c, "later", &mc->free_first, &mc->free_later, &mc->free_set, error))
        return FALSE;
      continue;
    }
    if (strcmp ((const char *) c->name, "first_collective") == 0) {
      if (!load_first_later (c, "other", &mc->coll_first, &mc->coll_other, &mc->collective_set,
                             error))
        return FALSE;
      continue;
    }
    PtiMpiAlgorithm a = {
      .collective = g_strdup ((const char *) c->name),
      .algorithm = pti_xml_attr (c, "algorithm"),
      .line = (int) xmlGetLineNo (c),
    };
    if (a.algorithm == NULL) {
      mpi_algorithm_clear (&a);
      return pti_node_error (error, c, "the algorithm attribute is required");
    }
    g_strstrip (a.algorithm);   /* an xs:token: the schema ignores surrounding blanks */
    g_array_append_val (ld->sys->mpi_algorithms, a);
  }
  return TRUE;
}

/* ---- loading ---------------------------------------------------------- */

static void
loader_clear (Loader *ld)
{
  g_clear_pointer (&ld->computers, g_hash_table_unref);
  g_clear_pointer (&ld->networks, g_hash_table_unref);
  g_clear_pointer (&ld->filesystems, g_hash_table_unref);
  g_clear_pointer (&ld->ports, g_ptr_array_unref);
  g_clear_pointer (&ld->connected_at, g_array_unref);
}

static gboolean
build (Loader *ld, xmlNode *root, GError **error)
{
  PtiSystem *sys = ld->sys;

  for (xmlNode *el = pti_xml_first_element (root); el != NULL; el = pti_xml_next_element (el)) {
    const char *name = (const char *) el->name;
    if (strcmp (name, "computer") == 0) {
      if (!load_computer (ld, el, error))
        return FALSE;
    } else if (strcmp (name, "network") == 0) {
      if (!load_network (ld, el, error))
        return FALSE;
    } else if (strcmp (name, "mpi") == 0) {
      if (!load_mpi (ld, el, error))
        return FALSE;
    } else if (strcmp (name, "filesystem") == 0) {
      if (!load_filesystem (ld, el, error))
        return FALSE;
    } else if (strcmp (name, "connect") != 0 && strcmp (name, "mount") != 0) {
      return pti_node_error (error, el, "unexpected element in <system>");
    }
  }
  if (sys->computers->len == 0)
    return pti_node_error (error, root, "a system needs at least one <computer>");

  for (xmlNode *el = pti_xml_first_element (root); el != NULL; el = pti_xml_next_element (el))
    if (strcmp ((const char *) el->name, "connect") == 0 && !load_connect (ld, el, error))
      return FALSE;
  for (xmlNode *el = pti_xml_first_element (root); el != NULL; el = pti_xml_next_element (el))
    if (strcmp ((const char *) el->name, "mount") == 0 && !load_mount (ld, el, error))
      return FALSE;

  number_processors (sys);
  return TRUE;
}

PtiSystem *
pti_system_load (const char *path, PtiRegistry *registry, GError **error)
{
  return pti_system_load_full (path, registry, NULL, error);
}

PtiSystem *
pti_system_load_full (const char *path, PtiRegistry *registry, const char *const *uses,
                      GError **error)
{
  return pti_system_load_ranged (path, registry, uses, NULL, error);
}

PtiSystem *
pti_system_load_ranged (const char *path, PtiRegistry *registry, const char *const *uses,
                        PtiRanges *ranges, GError **error)
{
  g_return_val_if_fail (path != NULL && registry != NULL, NULL);
  for (guint i = 0; uses != NULL && uses[i] != NULL; i++) {
    const char *eq = strchr (uses[i], '=');
    if (eq == NULL || eq == uses[i] || eq[1] == '\0' || i >= 64) {
      g_set_error (error, PTI_ERROR, PTI_ERROR_USAGE,
                   i >= 64 ? "more than 64 model choices" :
                   "model choice '%s' is not OWNER=MODEL (a network or computer name of the "
                   "HMC file, and a model configured in it, e.g. myrinet=net-simple)", uses[i]);
      return NULL;
    }
  }

  g_autoptr (xmlDoc) doc = pti_xml_read_file (path, error);
  if (doc == NULL)
    return NULL;
  if (ranges != NULL)
    pti_ranges_attach (ranges, doc);
  /* The root first: a workload given where the system belongs is a swap of
   * the arguments, which the schema would only call an unknown root. */
  xmlNode *root = xmlDocGetRootElement (doc);
  if (strcmp ((const char *) root->name, "workload") == 0) {
    pti_node_error (error, root, "this is a workload file, not a system (HMC) file: the system "
                    "comes first (ptieval SYSTEM.xml WORKLOAD.xml)");
    return NULL;
  }
  if (strcmp ((const char *) root->name, "system") != 0 || root->ns != NULL) {
    pti_node_error (error, root, "not a system (HMC) file: its root element must be <system> "
                    "without a namespace (schemas/hmc.xsd)");
    return NULL;
  }
  xmlSchema *schema = pti_xml_schema_from_memory (pti_hmc_xsd, "hmc.xsd", error);
  if (schema == NULL || !pti_xml_validate_doc (schema, doc, "hmc.xsd", error))
    return NULL;

  g_autoptr (PtiSystem) sys = g_new0 (PtiSystem, 1);
  sys->name = pti_xml_attr (root, "name");
  sys->path = g_strdup (path);
  sys->instances = g_ptr_array_new_with_free_func (instance_free);
  sys->computers = g_array_new (FALSE, TRUE, sizeof (PtiComputer));
  g_array_set_clear_func (sys->computers, computer_clear);
  sys->networks = g_array_new (FALSE, TRUE, sizeof (PtiNetwork));
  g_array_set_clear_func (sys->networks, network_clear);
  sys->nodes = g_array_new (FALSE, TRUE, sizeof (PtiNode));
  sys->processors = g_array_new (FALSE, TRUE, sizeof (PtiProcessor));
  sys->mpi_algorithms = g_array_new (FALSE, TRUE, sizeof (PtiMpiAlgorithm));
  sys->choices = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  sys->choice_names = g_ptr_array_new_with_free_func (g_free);
  sys->choice_rows = g_ptr_array_new_with_free_func (g_free);
  g_array_set_clear_func (sys->mpi_algorithms, mpi_algorithm_clear);
  sys->filesystems = g_array_new (FALSE, TRUE, sizeof (PtiFilesystem));
  g_array_set_clear_func (sys->filesystems, filesystem_clear);

  Loader ld = {
    .sys = sys,
    .registry = registry,
    .computers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL),
    .networks = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL),
    .filesystems = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL),
    .ports = g_ptr_array_new_with_free_func ((GDestroyNotify) g_hash_table_unref),
    .connected_at = g_array_new (FALSE, TRUE, sizeof (int)),
    .uses = uses,
  };
  gboolean ok = build (&ld, root, error);
  for (guint i = 0; ok && uses != NULL && uses[i] != NULL; i++)
    if (!(ld.uses_applied & (G_GUINT64_CONSTANT (1) << i))) {
      g_autofree char *owner = g_strndup (uses[i], strchr (uses[i], '=') - uses[i]);
      g_set_error (error, PTI_ERROR, PTI_ERROR_USAGE,
                   "model choice '%s': %s has no network or computer named '%s'", uses[i],
                   path, owner);
      ok = FALSE;
    }
  loader_clear (&ld);
  return ok ? g_steal_pointer (&sys) : NULL;
}

/* ---- queries ---------------------------------------------------------- */

const char *
pti_system_name (const PtiSystem *system)
{
  return system->name;
}

const char *
pti_system_path (const PtiSystem *system)
{
  return system->path;
}

guint
pti_system_n_processors (const PtiSystem *system)
{
  return system->processors->len;
}

static const PtiNode *
node_of (const PtiSystem *system, guint processor)
{
  if (system == NULL || processor >= system->processors->len)
    return NULL;
  guint n = g_array_index (system->processors, PtiProcessor, processor).node;
  return &g_array_index (system->nodes, PtiNode, n);
}

gboolean
pti_system_processor_info (const PtiSystem *system, guint processor, PtiProcessorInfo *out)
{
  const PtiNode *node = node_of (system, processor);
  if (node == NULL)
    return FALSE;
  const PtiComputer *c = &g_array_index (system->computers, PtiComputer, node->computer);
  *out = (PtiProcessorInfo) {
    .cpu = c->cpu,
    .intra = c->intra,
    .net = node->network >= 0
             ? g_array_index (system->networks, PtiNetwork, node->network).model : NULL,
    .node = g_array_index (system->processors, PtiProcessor, processor).node,
    .cpu_index = g_array_index (system->processors, PtiProcessor, processor).cpu,
    .network = node->network >= 0 ? (guint) node->network : G_MAXUINT,
    .port = node->port,
    .io = node->filesystem >= 0
            ? g_array_index (system->filesystems, PtiFilesystem, node->filesystem).model : NULL,
    .io_client = node->client,
  };
  return TRUE;
}

const PtiModelInstance *
pti_system_cpu_model (const PtiSystem *system, guint processor)
{
  const PtiNode *node = node_of (system, processor);
  return node ? g_array_index (system->computers, PtiComputer, node->computer).cpu : NULL;
}

const PtiModelInstance *
pti_system_route (const PtiSystem *system, guint a, guint b, guint *port_a, guint *port_b)
{
  if (G_UNLIKELY (a >= system->processors->len || b >= system->processors->len))
    return NULL;
  const PtiProcessor *pa = &g_array_index (system->processors, PtiProcessor, a);
  const PtiProcessor *pb = &g_array_index (system->processors, PtiProcessor, b);
  guint ta, tb;
  const PtiModelInstance *via;
  if (pa->node == pb->node && pa->intra != NULL) {
    ta = pa->cpu + 1;
    tb = pb->cpu + 1;
    via = pa->intra;
  } else if (pa->network >= 0 && pa->network == pb->network) {
    ta = pa->port;
    tb = pb->port;
    via = pa->net;
  } else {
    return NULL;
  }
  if (port_a != NULL)
    *port_a = ta;
  if (port_b != NULL)
    *port_b = tb;
  return via;
}

char *
pti_system_describe_processor (const PtiSystem *system, guint processor)
{
  const PtiNode *node = node_of (system, processor);
  if (node == NULL)
    return g_strdup_printf ("processor %u (no such processor)", processor);
  const PtiComputer *c = &g_array_index (system->computers, PtiComputer, node->computer);
  guint cpu = g_array_index (system->processors, PtiProcessor, processor).cpu;
  return g_strdup_printf ("%s[%u] cpu %u", c->name, node->number, cpu);
}

guint
pti_system_n_instances (const PtiSystem *system)
{
  return system->instances->len;
}

const PtiModelInstance *
pti_system_instance (const PtiSystem *system, guint i)
{
  return g_ptr_array_index (system->instances, i);
}

gboolean
pti_system_instance_is_active (const PtiSystem *system, const PtiModelInstance *instance)
{
  for (guint i = 0; i < system->computers->len; i++) {
    const PtiComputer *c = &g_array_index (system->computers, PtiComputer, i);
    if (c->cpu == instance || c->intra == instance)
      return TRUE;
  }
  for (guint i = 0; i < system->networks->len; i++)
    if (g_array_index (system->networks, PtiNetwork, i).model == instance)
      return TRUE;
  for (guint i = 0; i < system->filesystems->len; i++)
    if (g_array_index (system->filesystems, PtiFilesystem, i).model == instance)
      return TRUE;
  return FALSE;
}

const PtiModelInstance *
pti_system_change_target (const PtiSystem *sys, const char *target, GError **error)
{
  g_autoptr (GString) known = g_string_new (NULL);
  if (g_str_has_prefix (target, "cpu:")) {
    const char *name = target + strlen ("cpu:");
    for (guint i = 0; i < sys->computers->len; i++) {
      const PtiComputer *c = &g_array_index (sys->computers, PtiComputer, i);
      if (strcmp (c->name, name) == 0)
        return c->cpu;
      g_string_append_printf (known, "%scpu:%s", known->len ? ", " : "", c->name);
    }
  } else if (g_str_has_prefix (target, "computer:")) {
    const char *name = target + strlen ("computer:");
    for (guint i = 0; i < sys->computers->len; i++) {
      const PtiComputer *c = &g_array_index (sys->computers, PtiComputer, i);
      if (strcmp (c->name, name) == 0 && c->intra != NULL)
        return c->intra;
      if (c->intra != NULL)
        g_string_append_printf (known, "%scomputer:%s", known->len ? ", " : "", c->name);
    }
  } else {
    for (guint i = 0; i < sys->networks->len; i++) {
      const PtiNetwork *n = &g_array_index (sys->networks, PtiNetwork, i);
      if (strcmp (n->name, target) == 0)
        return n->model;
      g_string_append_printf (known, "%s%s", known->len ? ", " : "", n->name);
    }
  }
  g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
               "'%s' is not a network of %s (nor computer:NAME with an intra-node model, nor "
               "cpu:NAME, a computer's CPU); known: %s", target, sys->path, known->len ? known->str : "none");
  return NULL;
}

guint
pti_system_n_computers (const PtiSystem *system)
{
  return system->computers->len;
}

PtiComputerInfo
pti_system_computer_info (const PtiSystem *system, guint i)
{
  const PtiComputer *c = &g_array_index (system->computers, PtiComputer, i);
  return (PtiComputerInfo) { c->name, c->count, c->cpus, c->cpu, c->intra, c->first_node };
}

guint
pti_system_n_networks (const PtiSystem *system)
{
  return system->networks->len;
}

PtiNetworkInfo
pti_system_network_info (const PtiSystem *system, guint i)
{
  const PtiNetwork *n = &g_array_index (system->networks, PtiNetwork, i);
  return (PtiNetworkInfo) { n->name, n->model, n->n_ports };
}

guint
pti_system_n_nodes (const PtiSystem *system)
{
  return system->nodes->len;
}

PtiNodeInfo
pti_system_node_info (const PtiSystem *system, guint i)
{
  const PtiNode *n = &g_array_index (system->nodes, PtiNode, i);
  return (PtiNodeInfo) { n->computer, n->number, n->network, n->port };
}

guint
pti_system_n_mpi_algorithms (const PtiSystem *system)
{
  return system->mpi_algorithms ? system->mpi_algorithms->len : 0;
}

const PtiCommCreateCost *
pti_system_comm_create_cost (const PtiSystem *system)
{
  return &system->comm_create;
}

const PtiMpiCallCost *
pti_system_mpi_call_cost (const PtiSystem *system)
{
  return &system->mpi_call;
}

void
pti_system_mpi_algorithm (const PtiSystem *system, guint i, const char **collective,
                          const char **algorithm, int *line)
{
  const PtiMpiAlgorithm *a = &g_array_index (system->mpi_algorithms, PtiMpiAlgorithm, i);
  *collective = a->collective;
  *algorithm = a->algorithm;
  *line = a->line;
}
