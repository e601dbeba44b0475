/* Communicators and collectives: what comm.c and collectives.c share.
 * Internal to the WSL; see wsl/COLLECTIVES.md for the design. */
#pragma once

#include "wsl-private.h"
#include "engine.h"
#include "system.h"

G_BEGIN_DECLS

/* The collectives: the trace's calls (trace-vocab.h), by the same numbers. */
typedef enum {
  COLL_BARRIER = PTI_TRACE_BARRIER,
  COLL_BCAST = PTI_TRACE_BCAST,
  COLL_REDUCE = PTI_TRACE_REDUCE,
  COLL_ALLREDUCE = PTI_TRACE_ALLREDUCE,
  COLL_GATHER = PTI_TRACE_GATHER,
  COLL_SCATTER = PTI_TRACE_SCATTER,
  COLL_ALLGATHER = PTI_TRACE_ALLGATHER,
  COLL_ALLTOALL = PTI_TRACE_ALLTOALL,
  COLL_ALLTOALLV = PTI_TRACE_ALLTOALLV,
  COLL_SCAN = PTI_TRACE_SCAN,
  COLL_EXSCAN = PTI_TRACE_EXSCAN,
  COLL_REDUCE_SCATTER = PTI_TRACE_REDUCE_SCATTER,
  COLL_REDUCE_SCATTER_BLOCK = PTI_TRACE_REDUCE_SCATTER_BLOCK,
  COLL_GATHERV = PTI_TRACE_GATHERV,
  COLL_SCATTERV = PTI_TRACE_SCATTERV,
  COLL_ALLGATHERV = PTI_TRACE_ALLGATHERV,
  COLL_N = PTI_TRACE_N_CALLS
} CollKind;

/* A non-blocking collective's kind in its mismatch record: kind | COLL_NB
 * (iallreduce and allreduce are different calls). */
#define COLL_NB 0x40
#define COLL_BASE(kind) ((CollKind) ((kind) & ~COLL_NB))

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
  ALG_RECURSIVE_HALVING,
  ALG_LINEAR,
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

/* A non-blocking collective of one rank between its call and its wait
 * (collectives.c, nbc.c): what it is, and what its call posted. */
typedef struct {
  PtiComm *comm;
  guint world_rank;
  guint8 kind;             /* CollKind */
  guint8 alg;              /* CollAlg */
  guint root;
  guint64 n;
  guint64 *sendv, *recvv;  /* copies of the call's vectors, or NULL */
  guint64 call;            /* its number among the communicator's calls, from 0 */
  gint tag;
  guint resume;            /* the wait makes the algorithm's operations from this one */
  guint32 *reqs;           /* the requests the call posted */
  guint n_reqs;
} NbcRecord;

struct _PtiCollState {
  PtiComm *world;
  GPtrArray *splits;     /* PtiComm*, owned; splits->pdata[k-1] has id k */
  guint8 hmc_alg[COLL_N];   /* from the system's <mpi>, ALG_UNSET if none */
  guint8 wsl_alg[COLL_N];   /* from pti_context_set_collective_algorithm */
  PtiRud *combine;       /* the reduction's combine step, made at first use */
  guint slot_elements;   /* its dynamic parameter */
  GArray *reqs;          /* scratch: requests of one waitall */
  GArray *counts;        /* scratch: guint64 block sizes of one call */
  char *site_file;       /* pti_coll_set_site: where the next call comes from */
  guint32 site_line;
  GError *hmc_error;     /* the system's <mpi> names an algorithm unknown here */
  GHashTable *nbc;       /* (world rank << 32 | request) -> NbcRecord*, owned; NULL if none yet */
  guint spare;           /* the next spare handle to try (pti_engine_spare_handle) */
  gboolean no_arithmetic;   /* reductions' combines are not priced (pti_coll_set_arithmetic) */
  guint8 *comm_made;     /* per world rank: COMM_MADE_*, COMM_FREED and COLL_CALLED bits
                          * (pti_mpi_comm_setup, pti_mpi_call_setup); NULL if none yet */
};

/* Whether the reductions' arithmetic is priced (the default) or not: a
 * SimGrid TI trace states a reduction's computation itself, as flops made
 * after the communication, so its replay prices that instead. */
void pti_coll_set_arithmetic (PtiContext *ctx, gboolean priced);

/* Key of a non-blocking collective's request in PtiCollState.nbc. */
#define NBC_KEY(rank, request) (((guint64) (rank) << 32) | (guint32) (request))

/* Starts a non-blocking collective (nbc.c's pti_mpi_i* calls): checks it as
 * the blocking one, posts what MPICH's schedule posts at the call, and
 * gives its request (PTI_REQUEST_NULL if it has nothing to do). */
gboolean pti_coll_istart (PtiContext *ctx, const PtiComm *comm, CollKind kind, guint rank,
                          guint root, guint64 n, const guint64 *sendv, const guint64 *recvv,
                          PtiRequest *request, GError **error);
/* A blocking collective of any kind, with the arguments pti_coll_istart
 * takes (the pti_mpi_*_comm calls in one: a replay that reads the kind from
 * its trace calls this instead of a switch over them). */
gboolean pti_coll_call (PtiContext *ctx, const PtiComm *comm, CollKind kind, guint rank,
                        guint root, guint64 n, const guint64 *sendv, const guint64 *recvv,
                        GError **error);
/* Makes the rest of @rec's algorithm, once what its call posted is waited
 * for (nbc.c). */
gboolean pti_coll_nbc_finish (PtiContext *ctx, const NbcRecord *rec, GError **error);
void pti_nbc_record_free (gpointer rec);

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

/* Waits over requests that are not all the engine's (nbc.c): TRUE if one
 * of @requests is PTI_REQUEST_NULL or a non-blocking collective's; then
 * pti_nbc_wait makes the wait (@what names it in errors). */
gboolean pti_nbc_special (PtiContext *ctx, guint rank, guint n, const PtiRequest *requests);
gboolean pti_nbc_wait (PtiContext *ctx, const char *what, guint rank, guint n,
                       const PtiRequest *requests, gboolean any, GError **error);

G_END_DECLS
