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
} PtiModelInstance;

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
} PtiNode;

/* A processor: where one process can be placed. */
typedef struct {
  guint node;              /* index into PtiSystem.nodes */
  guint cpu;               /* 0..cpus-1 */
} PtiProcessor;

/* One child of the HMC's <mpi> element: the algorithm the MPI library uses
 * for a collective, e.g. <allreduce algorithm="ring"/> (wsl/COLLECTIVES.md). */
typedef struct {
  char *collective;        /* the element's name: "allreduce" */
  char *algorithm;         /* its algorithm attribute: "ring" */
  int line;
} PtiMpiAlgorithm;

typedef struct {
  char *name;              /* <system name> */
  char *path;              /* file it was loaded from */
  GPtrArray *instances;    /* PtiModelInstance*, owned, in document order */
  GArray *computers;       /* PtiComputer */
  GArray *networks;        /* PtiNetwork */
  GArray *nodes;           /* PtiNode, computers' nodes in document order */
  GArray *processors;      /* PtiProcessor, placement order: connection order,
                            * i.e. nodes sorted by (network, port), then cpu */
  GArray *mpi_algorithms;  /* PtiMpiAlgorithm, from <mpi>, in document order */
} PtiSystem;

/* Load, validate (schemas/hmc.xsd, then each model element against its
 * model's XSD), configure models and build the graph.  Errors name the file,
 * line and element.  The parser never touches the network and never expands
 * entities.  Returns (transfer full) or NULL with @error. */
PtiSystem *pti_system_load (const char *path, PtiRegistry *registry, GError **error);
/* The same, with @uses (NULL-terminated "OWNER=MODEL", may be NULL)
 * replacing the `model` attribute of the network or computer OWNER. */
PtiSystem *pti_system_load_full (const char *path, PtiRegistry *registry,
                                 const char *const *uses, GError **error);
void pti_system_free (PtiSystem *system);

/* Model instance serving device @kind ("cpu", "network") for processor @p. */
const PtiModelInstance *pti_system_cpu_model (const PtiSystem *system, guint processor);
/* The network connecting processors @a and @b, or NULL if none; @port_a and
 * @port_b receive their ports on it. */
const PtiModelInstance *pti_system_route (const PtiSystem *system, guint a, guint b,
                                          guint *port_a, guint *port_b);
/* "pc_node[3] cpu 0" for messages, (transfer full). */
char *pti_system_describe_processor (const PtiSystem *system, guint processor);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PtiSystem, pti_system_free)

G_END_DECLS
