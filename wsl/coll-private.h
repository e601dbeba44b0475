/* Communicators and collectives: what comm.c and collectives.c share.
 * Internal to the WSL; see wsl/COLLECTIVES.md for the design. */
#pragma once

#include "wsl-private.h"
#include "engine.h"
#include "system.h"

G_BEGIN_DECLS

/* The collectives, in the order of the tables in collectives.c. */
typedef enum {
  COLL_BARRIER,
  COLL_BCAST,
  COLL_REDUCE,
  COLL_ALLREDUCE,
  COLL_GATHER,
  COLL_SCATTER,
  COLL_ALLGATHER,
  COLL_ALLTOALL,
  COLL_ALLTOALLV,
  COLL_N
} CollKind;

/* Algorithms (names in collectives.c). */
typedef enum {
  ALG_AUTO = 0,
  ALG_DISSEMINATION,
  ALG_BINOMIAL,
  ALG_SCATTER_RD_ALLGATHER,
  ALG_SCATTER_RING_ALLGATHER,
  ALG_REDUCE_SCATTER_GATHER,
  ALG_RECURSIVE_DOUBLING,
  ALG_REDUCE_SCATTER_ALLGATHER,
  ALG_RING,
  ALG_BRUCKS,
  ALG_SCATTERED,
  ALG_PAIRWISE,
  ALG_N,
  ALG_UNSET = 0xff       /* no choice made at this level */
} CollAlg;

/* One collective call as the first member of a communicator to make it
 * recorded it; later members compare theirs.  Dropped once every member
 * has compared. */
typedef struct {
  guint64 bytes;
  guint32 root;          /* comm rank, or NO_ROOT */
  guint32 line;          /* workload-file line of the first call, 0 if none */
  guint32 remaining;     /* members that have not compared yet */
  guint32 first;         /* comm rank that recorded it */
  guint8 kind;           /* CollKind */
  guint8 alg;            /* CollAlg actually used */
} CollRecord;

#define NO_ROOT G_MAXUINT32
#define NO_GROUP G_MAXUINT32

/* The records of one communicator (group) not yet compared by every member:
 * rec[head..n) hold calls base, base + 1, ... */
typedef struct {
  CollRecord *rec;
  guint head, n, cap;
  guint64 base;
} CollLog;

/* A communicator family: the world (one group, identity maps), or the
 * result of one split (disjoint groups sharing matching contexts, since no
 * message can pass between two of them). */
struct _PtiComm {
  PtiContext *ctx;
  char *name;
  guint id;              /* matching contexts 2 id (point-to-point), 2 id + 1 (collectives) */
  guint n_world;         /* processes when made (world: 0, ask the context) */
  guint n_groups;
  guint32 *group_of;     /* per world rank: its group or NO_GROUP (NULL: world) */
  guint32 *rank_of;      /* per world rank: its rank in its group (NULL: world) */
  guint32 *members;      /* world ranks, by group then rank (NULL: world) */
  guint32 *group_start;  /* n_groups + 1 offsets into members (NULL: world) */
  guint64 *calls;        /* per world rank: collective calls made on it so far */
  CollLog *logs;         /* per group */
};

struct _PtiCollState {
  PtiComm *world;
  GPtrArray *splits;     /* PtiComm*, owned; splits->pdata[k-1] has id k */
  guint8 hmc_alg[COLL_N];   /* from the system's <mpi>, ALG_UNSET if none */
  guint8 wsl_alg[COLL_N];   /* from pti_context_set_collective_algorithm */
  PtiRud *combine;       /* the reduction's combine step, made at first use */
  guint slot_elements;   /* its dynamic parameter */
  GArray *reqs;          /* scratch: requests of one waitall */
  char *site_file;       /* pti_coll_set_site: where the next call comes from */
  guint32 site_line;
  GError *hmc_error;     /* the system's <mpi> names an algorithm unknown here */
};

/* The context's collective state, made at first use (reading the system's
 * <mpi> choices; one the WSL does not know, which hmc.xsd should have
 * refused, is kept in hmc_error for the collectives to report). */
PtiCollState *pti_coll_state (PtiContext *ctx);

/* @comm's family member @world_rank belongs to: its group (NO_GROUP if
 * none), its rank and size there, and the group's members (NULL: identity).
 * The world needs @ctx's process count. */
typedef struct {
  guint group;
  guint rank;
  guint size;
  const guint32 *members;
} CommView;

gboolean pti_comm_view (const PtiComm *comm, guint world_rank, CommView *view);

/* Describe comm rank @r of @view for messages: "rank 3" in the world,
 * "rank 1 of 'rows' (world rank 5)" otherwise. (transfer full) */
char *pti_comm_describe_rank (const PtiComm *comm, const CommView *view, guint r);

/* Checks @rank (a process, not evaluated yet) and its membership of @comm
 * (NULL: the world); fills @view.  @what names the call for errors. */
gboolean pti_comm_check (PtiContext *ctx, const PtiComm *comm, const char *what, guint rank,
                         CommView *view, GError **error);

/* Mismatch check: compares @rank's next collective call on @comm with the
 * first member's, or records it if it is the first.  Error names both. */
gboolean pti_coll_record (PtiContext *ctx, PtiCollState *st, PtiComm *comm, const CommView *view,
                          guint world_rank, CollKind kind, CollAlg alg, guint32 root,
                          guint64 bytes, GError **error);

const char *pti_coll_kind_name (CollKind kind);
const char *pti_coll_alg_name (CollAlg alg);

/* The engine and system of a context (wsl.c). */
PtiEngine *pti_wsl_engine (PtiContext *ctx);
const PtiSystem *pti_wsl_system (const PtiContext *ctx);
PtiCollState **pti_wsl_coll_state (PtiContext *ctx);
/* To call after appending an event to the engine directly (@ok: it was
 * appended): counts it for the automatic partial evaluation, which it may
 * run.  Returns @ok, or FALSE if that evaluation failed. */
gboolean pti_wsl_appended (PtiContext *ctx, gboolean ok, GError **error);

G_END_DECLS
