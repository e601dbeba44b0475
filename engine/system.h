/* The system: an HMC file loaded into the graph of the paper's Figure 4
 * (computers and networks as nodes, connections as edges), model instances
 * configured, and processors numbered for process placement.
 * Internal to the engine. */
#pragma once

#include <pti/hmi.h>
#include "registry.h"

G_BEGIN_DECLS

/* A configured model: one per model element in the HMC. */
typedef struct {
  const PtiModelDesc *desc;
  gpointer state;          /* desc->instance_size bytes, owned */
  char *owner;             /* "computer pc_node" or "network myrinet" */
  char *config;            /* its configuration's name (the element's `config`
                            * attribute), or NULL: then the model's name */
  guint index;             /* its place in pti_system_instance's order */
} PtiModelInstance;

/* The name a use or a `model` attribute selects @inst by. */
#define PTI_MODEL_INSTANCE_NAME(inst) ((inst)->config ? (inst)->config : (inst)->desc->name)

/* The loaded system.  Opaque: query it with the functions below. */
typedef struct _PtiSystem PtiSystem;

/* Where a processor is and what serves it: everything the engine needs to
 * place a process there. */
typedef struct {
  const PtiModelInstance *cpu;   /* its computer's CPU model */
  const PtiModelInstance *intra; /* between processes of its node, or NULL (they
                                  * talk through the node's network port) */
  const PtiModelInstance *net;   /* its node's network's model, or NULL if unconnected */
  guint node;                    /* the node's index (nodes in document order) */
  guint cpu_index;               /* 0 .. cpus - 1 within the node */
  guint network;                 /* the network's index, G_MAXUINT if unconnected */
  guint port;                    /* 1-based port on that network */
  const PtiModelInstance *io;    /* the I/O model of the file system its node mounts, or NULL */
  guint io_client;               /* 1-based client of that file system (mount order) */
} PtiProcessorInfo;

/* Load, validate (schemas/hmc.xsd, then each model element against its
 * model's XSD), configure models and build the graph.  Errors name the file,
 * line and element.  The parser never touches the network and never expands
 * entities.  Returns (transfer full) or NULL with @error. */
PtiSystem *pti_system_load (const char *path, PtiRegistry *registry, GError **error);
/* The same, with @uses (NULL-terminated "OWNER=MODEL", may be NULL)
 * replacing the `model` attribute of the network or computer OWNER. */
PtiSystem *pti_system_load_full (const char *path, PtiRegistry *registry,
                                 const char *const *uses, GError **error);
/* pti_system_load_full(), the models reading @ranges' choice of range ends
 * and recording the ranges they meet (hmi/ranges-private.h; NULL: every
 * range at its nominal value).  @ranges must outlive the call only. */
typedef struct _PtiRanges PtiRanges;
PtiSystem *pti_system_load_ranged (const char *path, PtiRegistry *registry,
                                   const char *const *uses, PtiRanges *ranges, GError **error);
void pti_system_free (PtiSystem *system);

const char *pti_system_name (const PtiSystem *system);
/* The file it was loaded from. */
const char *pti_system_path (const PtiSystem *system);

/* Processors, numbered in placement order: connection order, i.e. nodes
 * sorted by (network, port), then CPU. */
guint pti_system_n_processors (const PtiSystem *system);
/* FALSE if @processor does not exist. */
gboolean pti_system_processor_info (const PtiSystem *system, guint processor,
                                    PtiProcessorInfo *out);
/* The model instance serving the CPU of @processor, or NULL if none. */
const PtiModelInstance *pti_system_cpu_model (const PtiSystem *system, guint processor);
/* The model that carries messages between processors @a and @b, and their
 * ports on it: the node's intra-node model between processors of one node
 * that has one (CPU numbers + 1 as ports), else the network both nodes are
 * connected to.  NULL if none.  The one routing rule: the engine and the
 * tests use it. */
const PtiModelInstance *pti_system_route (const PtiSystem *system, guint a, guint b,
                                          guint *port_a, guint *port_b);
/* "pc_node[3] cpu 0" for messages, (transfer full). */
char *pti_system_describe_processor (const PtiSystem *system, guint processor);

/* Every configured model instance, in document order (also those an HMC
 * element configures but another model replaces: see is_active). */
guint pti_system_n_instances (const PtiSystem *system);
const PtiModelInstance *pti_system_instance (const PtiSystem *system, guint i);
/* TRUE if @instance serves a computer or network (not an alternative model
 * configured beside the chosen one). */
gboolean pti_system_instance_is_active (const PtiSystem *system,
                                        const PtiModelInstance *instance);

/* Model choices (Table 1's per-event model): a device use or a
 * communicator names a configuration (its `config` name, or the name of the
 * one model of that name configured there).  Each name is given a number
 * once, at load or build time (@name checked by the caller: an identifier);
 * 0 is the default of each computer and network.  Per event the choice is
 * an index: pti_system_choice_instance is two array reads. */
guint pti_system_choice (PtiSystem *system, const char *name);
/* The name of choice @k (k >= 1), (transfer none). */
const char *pti_system_choice_name (const PtiSystem *system, guint k);
guint pti_system_n_choices (const PtiSystem *system);
/* The configuration choice @k selects beside @dflt (an instance a computer or
 * network serves with by default): @dflt itself for k == 0, else the
 * configuration of the same owner and kind that @k names, or NULL if it
 * configures none of that name. */
static inline const PtiModelInstance *
pti_system_choice_instance (const PtiSystem *system, guint k, const PtiModelInstance *dflt);
/* "cpu-clc, fast (cpu-clc)": the configurations of @inst's owner and kind,
 * for errors.  (transfer full) */
char *pti_system_configs_of (const PtiSystem *system, const PtiModelInstance *inst);

/* The model instance a live change names: a network's name,
 * "computer:NAME" for a computer's intra-node model, or "cpu:NAME" for its
 * (default) CPU model.  NULL with @error
 * listing the names it knows. */
const PtiModelInstance *pti_system_change_target (const PtiSystem *system, const char *target,
                                                  GError **error);

/* The graph, for reports and tests: computers (element order), networks
 * (element order), nodes (computers' nodes in document order). */
typedef struct {
  const char *name;
  guint count;                   /* nodes */
  guint cpus;                    /* processors per node */
  const PtiModelInstance *cpu;
  const PtiModelInstance *intra; /* or NULL */
  guint first_node;              /* index of its first node */
} PtiComputerInfo;

typedef struct {
  const char *name;
  const PtiModelInstance *model;
  guint n_ports;                 /* highest port number connected */
} PtiNetworkInfo;

typedef struct {
  guint computer;                /* its computer's index */
  guint number;                  /* 1..count, as written in the HMC */
  gint network;                  /* its network's index, -1 if unconnected */
  guint port;                    /* 1-based port on that network */
} PtiNodeInfo;

guint pti_system_n_computers (const PtiSystem *system);
PtiComputerInfo pti_system_computer_info (const PtiSystem *system, guint i);
guint pti_system_n_networks (const PtiSystem *system);
PtiNetworkInfo pti_system_network_info (const PtiSystem *system, guint i);
guint pti_system_n_nodes (const PtiSystem *system);
PtiNodeInfo pti_system_node_info (const PtiSystem *system, guint i);

/* The HMC's <mpi> choices: the @i-th child, its element name (the
 * collective), algorithm attribute and line. */
guint pti_system_n_mpi_algorithms (const PtiSystem *system);
void pti_system_mpi_algorithm (const PtiSystem *system, guint i, const char **collective,
                               const char **algorithm, int *line);

/* The HMC's <mpi><comm_create>: each rank's local set-up of a new
 * communicator, in seconds, by whether it is the rank's first of its kind
 * (topology communicators, made by MPI_Cart_create and the graph
 * constructors, and the others are counted apart).  All zero, and @set
 * FALSE, when the system has none. */
typedef struct {
  double first, first_topology, later;
  gboolean set;
} PtiCommCreateCost;
const PtiCommCreateCost *pti_system_comm_create_cost (const PtiSystem *system);

/* The HMC's <mpi><first_collective> and <comm_free>: the MPI library's own
 * local time in a call beyond its messages, in seconds: a rank's first
 * call of a collective function (each function once: its code's first
 * run), the rank's very first collective call and the others apart; and
 * MPI_Comm_free, the rank's first and every later one.  @*_set FALSE (and
 * the times zero) where the system has no such element. */
typedef struct {
  double coll_first, coll_other, free_first, free_later;
  gboolean collective_set, free_set;
} PtiMpiCallCost;
const PtiMpiCallCost *pti_system_mpi_call_cost (const PtiSystem *system);

/* Read by the inline accessor only. */
const PtiModelInstance *const *pti_system_choice_row_ (const PtiSystem *system, guint k);

static inline const PtiModelInstance *
pti_system_choice_instance (const PtiSystem *system, guint k, const PtiModelInstance *dflt)
{
  return k == 0 ? dflt : pti_system_choice_row_ (system, k)[dflt->index];
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PtiSystem, pti_system_free)

G_END_DECLS
