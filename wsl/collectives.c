/* Collectives expanded into point-to-point messages, so that the network
 * model sees the real traffic (DESIGN.md 4.3; wsl/COLLECTIVES.md has the
 * algorithms, the selection rules and the closed-form costs).
 *
 * Each rank's share of a collective is derived from its own rank, the
 * communicator and the arguments alone, which is what lets a workload emit
 * ranks one after another.  The algorithms are the textbook ones MPICH
 * implements (Thakur, Rabenseifner and Gropp, "Optimization of Collective
 * Communication Operations in MPICH", IJHPCA 19(1), 2005), written here
 * from their descriptions; the choice among them by message size and
 * process count follows MPICH 3.x's defaults (the MPIR_*_intra_auto
 * functions of src/mpi/coll/ and the MPIR_CVAR_* thresholds quoted below).
 *
 * Messages.  A step that exchanges data with a partner is MPICH's
 * MPIC_Sendrecv: irecv, isend, waitall, so neither side's rendezvous waits
 * for the other's.  Tree algorithms use blocking sends and receives, as
 * MPICH's do.  Collective traffic uses the communicator's collective
 * matching context (comm.c) and a tag per collective, so it never matches
 * point-to-point traffic.  A rank's own block is a local copy, not a
 * message, and local copies are not priced.
 *
 * Reductions.  Every combine step of n bytes is a use of the cpu device
 * with the RUD <compute type="clc" of="E*AFDL"/>, E = ceil(n / 8) (the data
 * are taken to be doubles and the operation a sum), priced by the rank's
 * CPU model at stage 1 like any use; a CPU model that prices no RUDs
 * (cpu-time) prices it as E flops. */
#include "coll-private.h"

#include <string.h>

/* MPICH 3.x defaults (MPIR_CVAR_<NAME>, in bytes). */
#define BCAST_SHORT_MSG_SIZE 12288
#define BCAST_LONG_MSG_SIZE 524288
#define BCAST_MIN_PROCS 8
#define REDUCE_SHORT_MSG_SIZE 2048
#define ALLREDUCE_SHORT_MSG_SIZE 2048
#define ALLGATHER_SHORT_MSG_SIZE 81920
#define ALLGATHER_LONG_MSG_SIZE 524288
#define ALLTOALL_SHORT_MSG_SIZE 256
#define ALLTOALL_MEDIUM_MSG_SIZE 32768
#define ALLTOALL_THROTTLE 32
#define REDSCAT_COMMUTATIVE_LONG_MSG_SIZE 524288
#define GATHERV_INTER_SSEND_MIN_PROCS 32
#define ALLGATHERV_PIPELINE_MSG_SIZE 32768

/* Bytes per element of a reduction: doubles. */
#define ELEMENT_BYTES 8

#define COMBINE_PARAM "__pti_reduce_elements"
#define COMBINE_RUD \
  "<rud device='cpu'><compute type='clc' of='" COMBINE_PARAM "*AFDL'/></rud>"

static const char *const alg_names[ALG_N] = {
  "auto", "dissemination", "binomial", "scatter_recursive_doubling_allgather",
  "scatter_ring_allgather", "reduce_scatter_gather", "recursive_doubling",
  "reduce_scatter_allgather", "ring", "brucks", "scattered", "pairwise", "recursive_halving",
  "linear",
};

/* The algorithms of each collective, 0-terminated (schemas/hmc.xsd and
 * schemas/workload.xsd list the same). */
static const guint8 algorithms_of[COLL_N][4] = {
  [COLL_BARRIER] = { ALG_DISSEMINATION, ALG_BINOMIAL },
  [COLL_BCAST] = { ALG_BINOMIAL, ALG_SCATTER_RD_ALLGATHER, ALG_SCATTER_RING_ALLGATHER },
  [COLL_REDUCE] = { ALG_BINOMIAL, ALG_REDUCE_SCATTER_GATHER },
  [COLL_ALLREDUCE] = { ALG_RECURSIVE_DOUBLING, ALG_REDUCE_SCATTER_ALLGATHER, ALG_RING },
  [COLL_GATHER] = { ALG_BINOMIAL },
  [COLL_SCATTER] = { ALG_BINOMIAL },
  [COLL_ALLGATHER] = { ALG_RECURSIVE_DOUBLING, ALG_BRUCKS, ALG_RING },
  [COLL_ALLTOALL] = { ALG_BRUCKS, ALG_SCATTERED, ALG_PAIRWISE },
  [COLL_ALLTOALLV] = { ALG_SCATTERED, ALG_PAIRWISE },
  [COLL_SCAN] = { ALG_RECURSIVE_DOUBLING },
  [COLL_EXSCAN] = { ALG_RECURSIVE_DOUBLING },
  [COLL_REDUCE_SCATTER] = { ALG_RECURSIVE_HALVING, ALG_PAIRWISE },
  [COLL_REDUCE_SCATTER_BLOCK] = { ALG_RECURSIVE_HALVING, ALG_PAIRWISE },
  [COLL_GATHERV] = { ALG_LINEAR },
  [COLL_SCATTERV] = { ALG_LINEAR },
  [COLL_ALLGATHERV] = { ALG_RECURSIVE_DOUBLING, ALG_BRUCKS, ALG_RING },
};

/* The same, non-blocking (kind | COLL_NB). */
static const char *const nb_kind_names[COLL_N] = {
  "ibarrier", "ibcast", "ireduce", "iallreduce", "igather", "iscatter", "iallgather",
  "ialltoall", "ialltoallv", "iscan", "iexscan", "ireduce_scatter", "ireduce_scatter_block",
  "igatherv", "iscatterv", "iallgatherv",
};

const char *
pti_coll_kind_name (CollKind kind)
{
  if (kind & COLL_NB)
    return COLL_BASE (kind) < COLL_N ? nb_kind_names[COLL_BASE (kind)] : "?";
  return pti_trace_call_name ((PtiTraceCall) kind);
}

const char *
pti_coll_alg_name (CollAlg alg)
{
  return alg < ALG_N ? alg_names[alg] : "?";
}

/* ---- names and the state ------------------------------------------------------ */

static gboolean
parse_choice (const char *collective, const char *algorithm, CollKind *kind, guint8 *alg,
              GError **error)
{
  guint k = pti_trace_call_from_name (collective);
  if (k == COLL_N) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "unknown collective '%s' (known: " PTI_TRACE_CALL_LIST ")",
                 collective ? collective : "(null)");
    return FALSE;
  }
  *kind = k;
  if (algorithm == NULL) {
    *alg = ALG_UNSET;
    return TRUE;
  }
  if (strcmp (algorithm, "auto") == 0) {
    *alg = ALG_AUTO;
    return TRUE;
  }
  g_autoptr (GString) known = g_string_new ("auto");
  for (guint i = 0; algorithms_of[k][i] != 0; i++) {
    if (strcmp (algorithm, alg_names[algorithms_of[k][i]]) == 0) {
      *alg = algorithms_of[k][i];
      return TRUE;
    }
    g_string_append_printf (known, ", %s", alg_names[algorithms_of[k][i]]);
  }
  g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
               "%s has no algorithm '%s' (its algorithms: %s)", collective, algorithm, known->str);
  return FALSE;
}

/* In comm.c. */
void pti_comm_free_all (PtiCollState *st);
PtiComm *pti_comm_new_world (PtiContext *ctx);

PtiCollState *
pti_coll_state (PtiContext *ctx)
{
  if (ctx->coll != NULL)
    return ctx->coll;
  PtiCollState *st = g_new0 (PtiCollState, 1);
  st->world = pti_comm_new_world (ctx);
  st->splits = g_ptr_array_new ();
  memset (st->hmc_alg, ALG_UNSET, sizeof st->hmc_alg);
  memset (st->wsl_alg, ALG_UNSET, sizeof st->wsl_alg);
  st->reqs = g_array_new (FALSE, FALSE, sizeof (guint32));
  st->counts = g_array_new (FALSE, FALSE, sizeof (guint64));
  const PtiSystem *sys = pti_session_system (pti_wsl_session (ctx));
  for (guint i = 0; i < pti_system_n_mpi_algorithms (sys); i++) {
    const char *collective, *algorithm;
    int line;
    pti_system_mpi_algorithm (sys, i, &collective, &algorithm, &line);
    CollKind kind;
    guint8 alg;
    GError *local = NULL;
    if (parse_choice (collective, algorithm, &kind, &alg, &local)) {
      st->hmc_alg[kind] = alg;
    } else if (st->hmc_error == NULL) {
      g_prefix_error (&local, "%s:%d: <mpi>: ", pti_system_path (sys), line);
      st->hmc_error = local;
    } else {
      g_error_free (local);
    }
  }
  ctx->coll = st;
  return st;
}

void
pti_coll_state_free (PtiCollState *st)
{
  if (st == NULL)
    return;
  pti_comm_free_all (st);
  pti_rud_unref (st->combine);
  g_array_unref (st->reqs);
  g_array_unref (st->counts);
  g_free (st->site_file);
  g_free (st->comm_made);
  g_clear_error (&st->hmc_error);
  if (st->nbc != NULL)
    g_hash_table_unref (st->nbc);
  g_free (st);
}

void
pti_coll_set_arithmetic (PtiContext *ctx, gboolean priced)
{
  pti_coll_state (ctx)->no_arithmetic = !priced;
}

gboolean
pti_context_set_collective_algorithm (PtiContext *ctx, const char *collective,
                                      const char *algorithm, GError **error)
{
  g_return_val_if_fail (ctx != NULL, FALSE);
  CollKind kind;
  guint8 alg;
  if (!parse_choice (collective, algorithm, &kind, &alg, error))
    return FALSE;
  pti_coll_state (ctx)->wsl_alg[kind] = alg;
  return TRUE;
}

/* ---- choosing ------------------------------------------------------------------- */

static inline gboolean
is_pof2 (guint p)
{
  return (p & (p - 1)) == 0;
}

/* The largest power of two <= p (p >= 1). */
static inline guint
pof2_floor (guint p)
{
  guint m = 1;
  while (m <= p / 2)
    m <<= 1;
  return m;
}

static inline guint64
elements (guint64 bytes)
{
  return bytes / ELEMENT_BYTES + (bytes % ELEMENT_BYTES != 0);
}

/* MPICH 3.x's MPIR_<Coll>_intra_auto, with n the bytes of the call (the
 * block size for gather, scatter, allgather and alltoall). */
static CollAlg
auto_algorithm (CollKind kind, guint p, guint64 n)
{
  switch (kind) {
  case COLL_BARRIER:
    return ALG_DISSEMINATION;
  case COLL_BCAST:
    if (n < BCAST_SHORT_MSG_SIZE || p < BCAST_MIN_PROCS)
      return ALG_BINOMIAL;
    return n < BCAST_LONG_MSG_SIZE && is_pof2 (p) ? ALG_SCATTER_RD_ALLGATHER
                                                   : ALG_SCATTER_RING_ALLGATHER;
  case COLL_REDUCE:
    return n > REDUCE_SHORT_MSG_SIZE && elements (n) >= pof2_floor (p) ? ALG_REDUCE_SCATTER_GATHER
                                                                       : ALG_BINOMIAL;
  case COLL_ALLREDUCE:
    return n <= ALLREDUCE_SHORT_MSG_SIZE || elements (n) < pof2_floor (p)
             ? ALG_RECURSIVE_DOUBLING : ALG_REDUCE_SCATTER_ALLGATHER;
  case COLL_GATHER:
  case COLL_SCATTER:
    return ALG_BINOMIAL;
  case COLL_ALLGATHER: {
    guint64 total = n * p;
    if (total < ALLGATHER_LONG_MSG_SIZE && is_pof2 (p))
      return ALG_RECURSIVE_DOUBLING;
    return total < ALLGATHER_SHORT_MSG_SIZE ? ALG_BRUCKS : ALG_RING;
  }
  case COLL_ALLTOALL:
    if (n <= ALLTOALL_SHORT_MSG_SIZE && p >= 8)
      return ALG_BRUCKS;
    return n <= ALLTOALL_MEDIUM_MSG_SIZE ? ALG_SCATTERED : ALG_PAIRWISE;
  case COLL_SCAN:
  case COLL_EXSCAN:
    return ALG_RECURSIVE_DOUBLING;
  case COLL_REDUCE_SCATTER:
  case COLL_REDUCE_SCATTER_BLOCK:
    /* MPIR_Reduce_scatter(_block)_intra_auto, commutative operation: n is
     * the whole vector's bytes */
    return n < REDSCAT_COMMUTATIVE_LONG_MSG_SIZE ? ALG_RECURSIVE_HALVING : ALG_PAIRWISE;
  case COLL_GATHERV:
  case COLL_SCATTERV:
    return ALG_LINEAR;
  case COLL_ALLGATHERV:
    /* MPIR_Allgatherv_intra_auto: allgather's rule on the total bytes */
    if (n < ALLGATHER_LONG_MSG_SIZE && is_pof2 (p))
      return ALG_RECURSIVE_DOUBLING;
    return n < ALLGATHER_SHORT_MSG_SIZE ? ALG_BRUCKS : ALG_RING;
  case COLL_ALLTOALLV:
  default:
    return ALG_SCATTERED;
  }
}

/* The workload's choice, else the system's, else MPICH's; an algorithm that
 * needs a power-of-two count falls back on others (COLLECTIVES.md). */
static CollAlg
choose (const PtiCollState *st, CollKind kind, guint p, guint64 n)
{
  guint8 a = st->wsl_alg[kind] != ALG_UNSET ? st->wsl_alg[kind] : st->hmc_alg[kind];
  if (a == ALG_UNSET || a == ALG_AUTO)
    a = auto_algorithm (kind, p, n);
  if (!is_pof2 (p)) {
    if ((kind == COLL_ALLGATHER || kind == COLL_ALLGATHERV) && a == ALG_RECURSIVE_DOUBLING)
      a = auto_algorithm (kind, p, n);
    else if (kind == COLL_BCAST && a == ALG_SCATTER_RD_ALLGATHER)
      a = ALG_SCATTER_RING_ALLGATHER;
  }
  return a;
}

/* ---- one rank's messages ---------------------------------------------------------- */

typedef struct {
  PtiContext *ctx;
  PtiEngine *engine;
  PtiCollState *st;
  const guint32 *members;  /* world rank of each comm rank; NULL: the same */
  guint size;              /* ranks in the communicator */
  guint me;                /* this rank in it */
  guint world_me;
  guint cid;               /* the communicator's collective matching context */
  gint tag;
  const char *what;
  GError **error;
  /* Non-blocking collectives (see "non-blocking" below): the same
   * algorithm run twice, first at the call (RUN_PREFIX) up to the first
   * step that needs data to arrive, then at the wait (RUN_REST) from
   * there.  Every step below is one operation, counted in op. */
  guint8 mode;
  gboolean stopped;        /* RUN_PREFIX: reached a step that must wait */
  guint op;                /* operations met so far */
  guint resume;            /* RUN_PREFIX: where RUN_REST begins; RUN_REST: ops before it are done */
} Coll;

enum { RUN_ALL, RUN_PREFIX, RUN_REST };

static inline guint
world_of (const Coll *c, guint r)
{
  return c->members ? c->members[r] : r;
}

/* Counts one operation; FALSE if it is not to be made: done at the call
 * (RUN_REST) or after the call stopped (RUN_PREFIX). */
static inline gboolean
op_made (Coll *c)
{
  guint i = c->op++;
  if (G_LIKELY (c->mode == RUN_ALL))
    return TRUE;
  return c->mode == RUN_REST ? i >= c->resume : !c->stopped;
}

/* RUN_PREFIX: stop here; the wait goes on from operation @from. */
static inline void
op_stop (Coll *c, guint from)
{
  c->stopped = TRUE;
  c->resume = from;
}

static gboolean
c_isend (Coll *c, guint to, guint64 bytes)
{
  if (!op_made (c))
    return TRUE;
  PtiRequest r;
  if (!pti_wsl_message (c->ctx, PTI_OP_ISEND, c->world_me, world_of (c, to), bytes, c->tag,
                        c->cid, &r, c->error))
    return FALSE;
  g_array_append_val (c->st->reqs, r);
  return TRUE;
}

static gboolean
c_irecv (Coll *c, guint from, guint64 bytes)
{
  if (!op_made (c))
    return TRUE;
  PtiRequest r;
  if (!pti_wsl_message (c->ctx, PTI_OP_IRECV, c->world_me, world_of (c, from), bytes, c->tag,
                        c->cid, &r, c->error))
    return FALSE;
  g_array_append_val (c->st->reqs, r);
  return TRUE;
}

/* Every message takes the WSL's one path (pti_wsl_message).
 * At a non-blocking collective's call a blocking send is posted as an isend
 * (MPICH's schedule posts it and goes on), a receive as an irecv that ends
 * the call's part. */
static gboolean
c_send (Coll *c, guint to, guint64 bytes)
{
  if (c->mode == RUN_PREFIX)
    return c_isend (c, to, bytes);
  if (!op_made (c))
    return TRUE;
  return pti_wsl_message (c->ctx, PTI_OP_SEND, c->world_me, world_of (c, to), bytes, c->tag,
                          c->cid, NULL, c->error);
}

static gboolean
c_recv (Coll *c, guint from, guint64 bytes)
{
  if (c->mode == RUN_PREFIX) {
    gboolean made = !c->stopped;
    if (!c_irecv (c, from, bytes))
      return FALSE;
    if (made)
      op_stop (c, c->op);   /* what follows needs its data */
    return TRUE;
  }
  if (!op_made (c))
    return TRUE;
  return pti_wsl_message (c->ctx, PTI_OP_RECV, c->world_me, world_of (c, from), bytes, c->tag,
                          c->cid, NULL, c->error);
}

static gboolean
c_waitall (Coll *c)
{
  GArray *reqs = c->st->reqs;
  if (!op_made (c))
    return TRUE;
  if (reqs->len == 0)
    return TRUE;          /* nothing posted: MPICH's schedule goes on at once */
  if (c->mode == RUN_PREFIX) {
    op_stop (c, c->op);   /* the wait completes what was posted */
    return TRUE;
  }
  gboolean ok = pti_engine_add_wait (c->engine, PTI_OP_WAITALL, c->world_me, reqs->len,
                                     (guint32 *) reqs->data, c->error);
  g_array_set_size (reqs, 0);
  return ok && pti_wsl_appended (c->ctx, c->error);
}

/* MPIC_Ssend: a synchronous send (gatherv on many ranks). */
static gboolean
c_ssend (Coll *c, guint to, guint64 bytes)
{
  if (!op_made (c))
    return TRUE;
  if (c->mode == RUN_PREFIX) {
    PtiRequest r;
    if (!pti_wsl_ssend (c->ctx, c->world_me, world_of (c, to), bytes, c->tag, c->cid, &r,
                        c->error))
      return FALSE;
    g_array_append_val (c->st->reqs, r);
    return TRUE;
  }
  return pti_wsl_ssend (c->ctx, c->world_me, world_of (c, to), bytes, c->tag, c->cid, NULL,
                        c->error);
}

/* MPIC_Sendrecv: post the receive, send, wait for both. */
static gboolean
c_sendrecv (Coll *c, guint to, guint64 send_bytes, guint from, guint64 recv_bytes)
{
  return c_irecv (c, from, recv_bytes) && c_isend (c, to, send_bytes) && c_waitall (c);
}

/* The arithmetic of combining @bytes received with the local data. */
static gboolean
c_combine (Coll *c, guint64 bytes)
{
  if (bytes == 0 || c->st->no_arithmetic || !op_made (c))
    return TRUE;
  if (c->mode == RUN_PREFIX) {
    op_stop (c, c->op - 1);   /* made at the wait */
    return TRUE;
  }
  PtiCollState *st = c->st;
  const PtiModelInstance *cpu = pti_engine_cpu (c->engine, c->world_me);
  if (!PTI_CPU_OPS_HAS_RUDS (cpu->desc->cpu)) {
    /* A model of bursts only (cpu-time): one flop per element. */
    if (pti_use_flops (c->ctx, c->world_me, (double) elements (bytes), c->error))
      return TRUE;
    g_prefix_error (c->error, "%s on rank %u: the reduction's arithmetic (%" G_GUINT64_FORMAT
                    " doubles, one flop each): ", c->what, c->world_me, elements (bytes));
    return FALSE;
  }
  PtiSymbols *symbols = pti_context_get_symbols (c->ctx);
  if (st->combine == NULL) {
    st->slot_elements = pti_symbols_intern (symbols, COMBINE_PARAM);
    st->combine = pti_rud_new (c->ctx, "mpi_reduce_op", COMBINE_RUD, c->error);
    if (st->combine == NULL) {
      g_prefix_error (c->error, "%s on rank %u: the reduction's arithmetic: ", c->what,
                      c->world_me);
      return FALSE;
    }
  }
  pti_symbols_set (symbols, st->slot_elements, (double) elements (bytes));
  if (!pti_use (c->ctx, c->world_me, st->combine, c->error)) {
    guint64 e = elements (bytes);
    g_prefix_error (c->error, "%s on rank %u: pricing the reduction's arithmetic (%" G_GUINT64_FORMAT
                    " bytes: %" G_GUINT64_FORMAT " double%s at one AFDL each): ", c->what,
                    c->world_me, bytes, e, e == 1 ? "" : "s");
    return FALSE;
  }
  return TRUE;
}

/* ---- trees -------------------------------------------------------------------------- */

/* The smallest power of two >= p. */
static inline guint
pof2_ceil (guint p)
{
  guint m = 1;
  while (m < p)
    m <<= 1;
  return m;
}

/* Binomial broadcast (MPIR_Bcast_intra_binomial): with v the rank relative
 * to the root, v receives from v - 2^k, 2^k its lowest set bit, then sends
 * to v + 2^j for each 2^j below that bit, largest first: ceil(log2 P)
 * rounds. */
static gboolean
bcast_binomial (Coll *c, guint root, guint64 n)
{
  guint p = c->size, v = (c->me + p - root) % p;
  guint low = v == 0 ? pof2_ceil (p) : (v & -v);
  if (v != 0 && !c_recv (c, (v - low + root) % p, n))
    return FALSE;
  for (guint m = low >> 1; m > 0; m >>= 1)
    if (v + m < p && !c_send (c, (v + m + root) % p, n))
      return FALSE;
  return TRUE;
}

/* Binomial reduce (MPIR_Reduce_intra_binomial, commutative): v receives
 * from v + 2^k for each 2^k below its lowest set bit, smallest first,
 * combining each, then sends the result to v - (lowest bit).  The mirror
 * of the broadcast.  @combine FALSE: no arithmetic (barrier). */
static gboolean
reduce_binomial (Coll *c, guint root, guint64 n, gboolean combine)
{
  guint p = c->size, v = (c->me + p - root) % p;
  for (guint m = 1; m < p; m <<= 1) {
    if (v & m)
      return c_send (c, ((v & ~m) + root) % p, n);
    if ((v | m) < p
        && (!c_recv (c, ((v | m) + root) % p, n) || (combine && !c_combine (c, n))))
      return FALSE;
  }
  return TRUE;
}

/* Binomial gather (MPIR_Gather_intra_binomial): as the reduce, but a rank
 * forwards its whole subtree's blocks, so messages grow towards the root:
 * v's subtree is blocks v .. v + 2^k - 1 (clipped to P). */
static gboolean
gather_binomial (Coll *c, guint root, guint64 n)
{
  guint p = c->size, v = (c->me + p - root) % p;
  for (guint m = 1; m < p; m <<= 1) {
    if (v & m)
      return c_send (c, (v - m + root) % p, n * MIN (m, p - v));
    if (v + m < p && !c_recv (c, (v + m + root) % p, n * MIN (m, p - v - m)))
      return FALSE;
  }
  return TRUE;
}

/* Binomial scatter (MPIR_Scatter_intra_binomial): the mirror of the gather. */
static gboolean
scatter_binomial (Coll *c, guint root, guint64 n)
{
  guint p = c->size, v = (c->me + p - root) % p;
  guint low = v == 0 ? pof2_ceil (p) : (v & -v);
  if (v != 0 && !c_recv (c, (v - low + root) % p, n * MIN (low, p - v)))
    return FALSE;
  for (guint m = low >> 1; m > 0; m >>= 1)
    if (v + m < p && !c_send (c, (v + m + root) % p, n * MIN (m, p - v - m)))
      return FALSE;
  return TRUE;
}

/* ---- broadcast by scatter and allgather (van de Geijn) ------------------------------------ */

/* Bytes of blocks [a, b) when @n bytes are cut into blocks of @ss. */
static inline guint64
block_bytes (guint64 n, guint64 ss, guint64 a, guint64 b)
{
  guint64 lo = a * ss, hi = MIN (b * ss, n);
  return hi > lo ? hi - lo : 0;
}

/* MPIR_Bcast_intra_scatter_{recursive_doubling,ring}_allgather: the root's
 * n bytes are cut into P blocks of ceil(n/P); a binomial scatter leaves
 * block v on relative rank v (empty pieces are not sent), then an allgather
 * of the blocks, by recursive doubling (P a power of two) or a ring. */
static gboolean
bcast_scatter_allgather (Coll *c, guint root, guint64 n, gboolean ring)
{
  guint p = c->size, v = (c->me + p - root) % p;
  guint64 ss = n / p + (n % p != 0);
  guint low = v == 0 ? pof2_ceil (p) : (v & -v);
  if (v != 0) {
    guint64 b = block_bytes (n, ss, v, MIN (v + low, p));
    if (b > 0 && !c_recv (c, (v - low + root) % p, b))
      return FALSE;
  }
  for (guint m = low >> 1; m > 0; m >>= 1) {
    if (v + m >= p)
      continue;
    guint64 b = block_bytes (n, ss, v + m, MIN (v + 2 * m, p));
    if (b > 0 && !c_send (c, (v + m + root) % p, b))
      return FALSE;
  }
  if (!ring) {
    for (guint m = 1; m < p; m <<= 1) {
      guint partner = v ^ m;
      guint mine = v & ~(m - 1), theirs = partner & ~(m - 1);
      guint to = (partner + root) % p;
      if (!c_sendrecv (c, to, block_bytes (n, ss, mine, mine + m), to,
                       block_bytes (n, ss, theirs, theirs + m)))
        return FALSE;
    }
    return TRUE;
  }
  guint right = (v + 1) % p, left = (v + p - 1) % p;
  guint j = v, jnext = left;
  for (guint i = 1; i < p; i++) {
    if (!c_sendrecv (c, (right + root) % p, block_bytes (n, ss, j, j + 1), (left + root) % p,
                     block_bytes (n, ss, jnext, jnext + 1)))
      return FALSE;
    j = jnext;
    jnext = (jnext + p - 1) % p;
  }
  return TRUE;
}

/* ---- reductions ------------------------------------------------------------------------ */

/* The non-power-of-two fix-up of MPICH's recursive doubling and
 * Rabenseifner algorithms: with pof2 the largest power of two <= P and
 * rem = P - pof2, each even rank r < 2 rem gives its data to r + 1 and sits
 * out; the others take part as newrank r / 2 (odd r < 2 rem) or r - rem. */
static inline gint
newrank_of (guint r, guint rem)
{
  if (r < 2 * rem)
    return r % 2 ? (gint) (r / 2) : -1;
  return (gint) (r - rem);
}

static inline guint
real_of (guint newrank, guint rem)
{
  return newrank < rem ? newrank * 2 + 1 : newrank + rem;
}

typedef struct {
  guint64 lo, hi;   /* units */
} Span;

/* The part of the data (in units) participant @v holds after the halving
 * steps of masks 1, 2, ..., @upto (none if @upto is 0): at the step of mask
 * m the part is cut in two, the lower half staying with ranks whose bit m is
 * clear.  Two partners v, v ^ m share the part they cut at step m. */
static Span
halved (guint64 units, guint v, guint upto)
{
  Span s = { 0, units };
  for (guint m = 1; m != 0 && m <= upto; m <<= 1) {
    guint64 mid = s.lo + (s.hi - s.lo) / 2;
    if (v & m)
      s.lo = mid;
    else
      s.hi = mid;
  }
  return s;
}

static inline guint64
span_bytes (Span s, guint64 unit)
{
  return (s.hi - s.lo) * unit;
}

/* Reduce-scatter by recursive halving among the pof2 participants (newrank
 * v): at the step of mask m (1, 2, ..., pof2/2) partners v and v ^ m cut the
 * part they share in two, swap the halves they give away and combine the
 * half they keep. */
static gboolean
reduce_scatter_halving (Coll *c, guint v, guint pof2, guint rem, guint64 units, guint64 unit)
{
  for (guint m = 1; m < pof2; m <<= 1) {
    Span before = halved (units, v, m >> 1), keep = halved (units, v, m);
    Span give = (v & m) ? (Span) { before.lo, keep.lo } : (Span) { keep.hi, before.hi };
    guint partner = real_of (v ^ m, rem);
    if (!c_sendrecv (c, partner, span_bytes (give, unit), partner, span_bytes (keep, unit))
        || !c_combine (c, span_bytes (keep, unit)))
      return FALSE;
  }
  return TRUE;
}

/* Allgather by recursive doubling, undoing the halving: mask pof2/2 first. */
static gboolean
allgather_doubling_parts (Coll *c, guint v, guint pof2, guint rem, guint64 units, guint64 unit)
{
  for (guint m = pof2 >> 1; m > 0; m >>= 1) {
    guint partner = real_of (v ^ m, rem);
    if (!c_sendrecv (c, partner, span_bytes (halved (units, v, m), unit), partner,
                     span_bytes (halved (units, v ^ m, m), unit)))
      return FALSE;
  }
  return TRUE;
}

/* Data are cut in units of one element when they are whole doubles. */
static inline guint64
unit_of (guint64 n)
{
  return n % ELEMENT_BYTES == 0 ? ELEMENT_BYTES : 1;
}

/* MPIR_Allreduce_intra_recursive_doubling: after the fix-up, log2(pof2)
 * exchanges of all n bytes with the partner newrank ^ 2^k, each followed by
 * the combine; then the fix-up's ranks get the result back. */
static gboolean
allreduce_recursive_doubling (Coll *c, guint64 n)
{
  guint p = c->size, r = c->me, pof2 = pof2_floor (p), rem = p - pof2;
  gint v = newrank_of (r, rem);
  if (r < 2 * rem) {
    if (r % 2 == 0 ? !c_send (c, r + 1, n) : (!c_recv (c, r - 1, n) || !c_combine (c, n)))
      return FALSE;
  }
  if (v >= 0)
    for (guint m = 1; m < pof2; m <<= 1) {
      guint partner = real_of ((guint) v ^ m, rem);
      if (!c_sendrecv (c, partner, n, partner, n) || !c_combine (c, n))
        return FALSE;
    }
  if (r < 2 * rem)
    return r % 2 ? c_send (c, r - 1, n) : c_recv (c, r + 1, n);
  return TRUE;
}

/* MPIR_Allreduce_intra_reduce_scatter_allgather (Rabenseifner): the fix-up,
 * a reduce-scatter by recursive halving, an allgather by recursive
 * doubling, the fix-up's ranks served last. */
static gboolean
allreduce_rabenseifner (Coll *c, guint64 n)
{
  guint p = c->size, r = c->me, pof2 = pof2_floor (p), rem = p - pof2;
  guint64 unit = unit_of (n), units = n / unit;
  gint v = newrank_of (r, rem);
  if (r < 2 * rem) {
    if (r % 2 == 0 ? !c_send (c, r + 1, n) : (!c_recv (c, r - 1, n) || !c_combine (c, n)))
      return FALSE;
  }
  if (v >= 0 && (!reduce_scatter_halving (c, (guint) v, pof2, rem, units, unit)
                 || !allgather_doubling_parts (c, (guint) v, pof2, rem, units, unit)))
    return FALSE;
  if (r < 2 * rem)
    return r % 2 ? c_send (c, r - 1, n) : c_recv (c, r + 1, n);
  return TRUE;
}

/* Ring allreduce (MPICH 4's MPIR_Allreduce_intra_ring; Patarasuk and Yuan,
 * JPDC 69(2), 2009): the data cut into P blocks; P - 1 steps of a
 * reduce-scatter around the ring (send block r - s to r + 1, receive and
 * combine block r - s - 1 from r - 1), then P - 1 steps of an allgather
 * around it. */
static gboolean
allreduce_ring (Coll *c, guint64 n)
{
  guint p = c->size, r = c->me, right = (r + 1) % p, left = (r + p - 1) % p;
  guint64 unit = unit_of (n), units = n / unit;
#define BLOCK(j) ((units / p + ((guint64) (j) < units % p)) * unit)
  for (guint s = 0; s + 1 < p; s++) {
    guint send = (r + p - s) % p, recv = (r + 2 * p - s - 1) % p;
    if (!c_sendrecv (c, right, BLOCK (send), left, BLOCK (recv)) || !c_combine (c, BLOCK (recv)))
      return FALSE;
  }
  for (guint s = 0; s + 1 < p; s++) {
    guint send = (r + 1 + p - s) % p, recv = (r + p - s) % p;
    if (!c_sendrecv (c, right, BLOCK (send), left, BLOCK (recv)))
      return FALSE;
  }
#undef BLOCK
  return TRUE;
}

/* MPIR_Reduce_intra_reduce_scatter_gather (Rabenseifner): the fix-up, a
 * reduce-scatter by recursive halving, then a binomial gather of the parts
 * to the root's participant, undoing the halving (mask pof2/2 first); a
 * root that sat out the fix-up gets the result from its partner r + 1. */
static gboolean
reduce_rabenseifner (Coll *c, guint root, guint64 n)
{
  guint p = c->size, r = c->me, pof2 = pof2_floor (p), rem = p - pof2;
  guint64 unit = unit_of (n), units = n / unit;
  gint v = newrank_of (r, rem);
  /* The participant that ends with the result: the root, or its partner. */
  guint root_v = root < 2 * rem ? root / 2 : root - rem;
  if (r < 2 * rem) {
    if (r % 2 == 0 ? !c_send (c, r + 1, n) : (!c_recv (c, r - 1, n) || !c_combine (c, n)))
      return FALSE;
  }
  if (v >= 0) {
    if (!reduce_scatter_halving (c, (guint) v, pof2, rem, units, unit))
      return FALSE;
    guint u = (guint) v ^ root_v;
    for (guint m = pof2 >> 1; m > 0; m >>= 1) {
      guint partner = real_of ((guint) v ^ m, rem);
      if (u & m) {
        if (!c_send (c, partner, span_bytes (halved (units, (guint) v, m), unit)))
          return FALSE;
        break;
      }
      if (!c_recv (c, partner, span_bytes (halved (units, (guint) v ^ m, m), unit)))
        return FALSE;
    }
  }
  if (root < 2 * rem && root % 2 == 0) {
    if (r == root + 1)
      return c_send (c, root, n);
    if (r == root)
      return c_recv (c, root + 1, n);
  }
  return TRUE;
}

/* ---- allgather ----------------------------------------------------------------------------- */

/* MPIR_Allgather_intra_recursive_doubling (P a power of two): at the step
 * of mask m, swap the m blocks held with partner r ^ m. */
static gboolean
allgather_recursive_doubling (Coll *c, guint64 n)
{
  for (guint m = 1; m < c->size; m <<= 1) {
    guint partner = c->me ^ m;
    if (!c_sendrecv (c, partner, n * m, partner, n * m))
      return FALSE;
  }
  return TRUE;
}

/* MPIR_Allgather_intra_brucks: ceil(log2 P) steps; at the step of 2^k send
 * the first min(2^k, P - 2^k) blocks held to r - 2^k and receive as many
 * from r + 2^k. */
static gboolean
allgather_brucks (Coll *c, guint64 n)
{
  guint p = c->size, r = c->me;
  for (guint k = 1; k < p; k <<= 1) {
    guint64 count = MIN (k, p - k);
    if (!c_sendrecv (c, (r + p - k) % p, n * count, (r + k) % p, n * count))
      return FALSE;
  }
  return TRUE;
}

/* MPIR_Allgather_intra_ring: P - 1 steps, each passing one block to the
 * right and taking one from the left. */
static gboolean
allgather_ring (Coll *c, guint64 n)
{
  guint p = c->size, r = c->me;
  for (guint i = 1; i < p; i++)
    if (!c_sendrecv (c, (r + 1) % p, n, (r + p - 1) % p, n))
      return FALSE;
  return TRUE;
}

/* ---- all-to-all --------------------------------------------------------------------------- */

/* Blocks j in [0, p) with bit k set. */
static inline guint64
with_bit (guint p, guint k)
{
  guint64 full = (guint64) (p / (2 * (guint64) k)) * k, rest = p % (2 * (guint64) k);
  return full + (rest > k ? rest - k : 0);
}

/* MPIR_Alltoall_intra_brucks: ceil(log2 P) steps; at the step of 2^k each
 * rank sends to r + 2^k the blocks whose (rotated) index has bit k set, and
 * receives as many from r - 2^k. */
static gboolean
alltoall_brucks (Coll *c, guint64 n)
{
  guint p = c->size, r = c->me;
  for (guint k = 1; k < p; k <<= 1) {
    guint64 b = n * with_bit (p, k);
    if (!c_sendrecv (c, (r + k) % p, b, (r + p - k) % p, b))
      return FALSE;
  }
  return TRUE;
}

/* MPIR_Alltoall(v)_intra_scattered: receives from r + i and sends to r - i
 * posted ALLTOALL_THROTTLE at a time, each batch completed by a waitall.
 * Blocks to self are copies; empty alltoallv blocks are not sent. */
static gboolean
alltoall_scattered (Coll *c, guint64 n, const guint64 *sendv, const guint64 *recvv)
{
  guint p = c->size, r = c->me;
  for (guint ii = 0; ii < p; ii += ALLTOALL_THROTTLE) {
    guint ss = MIN (p - ii, ALLTOALL_THROTTLE);
    for (guint i = 0; i < ss; i++) {
      guint src = (guint) (((guint64) r + i + ii) % p);
      guint64 b = recvv ? recvv[src] : n;
      if (src != r && b > 0 && !c_irecv (c, src, b))
        return FALSE;
    }
    for (guint i = 0; i < ss; i++) {
      guint dst = (guint) (((guint64) r + 2 * (guint64) p - i - ii) % p);
      guint64 b = sendv ? sendv[dst] : n;
      if (dst != r && b > 0 && !c_isend (c, dst, b))
        return FALSE;
    }
    if (!c_waitall (c))
      return FALSE;
  }
  return TRUE;
}

/* MPIR_Alltoall_intra_pairwise: P - 1 exchanges, with r ^ i when P is a
 * power of two, else sending to r + i while receiving from r - i. */
static gboolean
alltoall_pairwise (Coll *c, guint64 n, const guint64 *sendv, const guint64 *recvv)
{
  guint p = c->size, r = c->me;
  gboolean xor = is_pof2 (p);
  for (guint i = 1; i < p; i++) {
    guint dst = xor ? r ^ i : (r + i) % p, src = xor ? r ^ i : (r + p - i) % p;
    guint64 sb = sendv ? sendv[dst] : n, rb = recvv ? recvv[src] : n;
    if ((rb > 0 || !recvv) && !c_irecv (c, src, rb))
      return FALSE;
    if ((sb > 0 || !sendv) && !c_isend (c, dst, sb))
      return FALSE;
    if (!c_waitall (c))
      return FALSE;
  }
  return TRUE;
}

/* ---- scans ----------------------------------------------------------------------------------- */

/* MPIR_Scan_intra_recursive_doubling (MPICH 3.x/4.x, src/mpi/coll/scan/):
 * at mask m, swap the partial result (n bytes) with r ^ m if it exists; a
 * rank above its partner combines what it got twice (into the partial
 * result and into its own result), one below it once (commutative). */
static gboolean
scan_recursive_doubling (Coll *c, guint64 n, gboolean exclusive)
{
  guint p = c->size, r = c->me;
  gboolean have = FALSE;   /* exscan: the result holds something (a copy made) */
  for (guint m = 1; m < p; m <<= 1) {
    guint dst = r ^ m;
    if (dst >= p)
      continue;
    if (!c_sendrecv (c, dst, n, dst, n) || !c_combine (c, n))
      return FALSE;
    /* MPIR_Exscan_intra_recursive_doubling: the first time a rank gets data
     * from below it is copied (not priced), later combined */
    if (r > dst && (!exclusive || have) && !c_combine (c, n))
      return FALSE;
    have = have || r > dst;
  }
  return TRUE;
}

/* ---- reduce-scatter --------------------------------------------------------------------------- */

static inline guint64
sum_counts (const guint64 *v, guint from, guint to)
{
  guint64 s = 0;
  for (guint i = from; i < to; i++)
    s += v[i];
  return s;
}

/* Block i of a reduce-scatter: rc[i], or @block for all (the _block form). */
static inline guint64
rs_count (const guint64 *rc, guint64 block, guint i)
{
  return rc ? rc[i] : block;
}

/* MPIR_Reduce_scatter_intra_recursive_halving (commutative; the _block
 * variant is the same with equal counts): the non-power-of-two fix-up
 * (even r < 2 rem gives all its data to r + 1), recursive halving over the
 * pof2 participants whose blocks are the counts merged pairwise for the
 * ranks that sat out, then each odd r < 2 rem sends r - 1 its block.  Each
 * step exchanges the halves the partners give away (a send or a receive
 * alone where one half is empty) and combines the half received. */
static gboolean
reduce_scatter_recursive_halving (Coll *c, const guint64 *rc, guint64 block)
{
  guint p = c->size, r = c->me, pof2 = pof2_floor (p), rem = p - pof2;
  guint64 total = rc ? sum_counts (rc, 0, p) : block * p;
  gint newrank = newrank_of (r, rem);
  if (r < 2 * rem) {
    if (r % 2 == 0 ? !c_send (c, r + 1, total)
                   : (!c_recv (c, r - 1, total) || !c_combine (c, total)))
      return FALSE;
  }
  if (newrank >= 0) {
    g_array_set_size (c->st->counts, pof2);
    guint64 *nc = (guint64 *) c->st->counts->data;
    for (guint i = 0; i < pof2; i++) {
      guint old = real_of (i, rem);
      nc[i] = rs_count (rc, block, old) + (old < 2 * rem ? rs_count (rc, block, old - 1) : 0);
    }
    guint send_idx = 0, recv_idx = 0, last_idx = pof2;
    for (guint m = pof2 >> 1; m > 0; m >>= 1) {
      guint newdst = (guint) newrank ^ m, dst = real_of (newdst, rem);
      guint64 sb, rb;
      if ((guint) newrank < newdst) {
        send_idx = recv_idx + m;
        sb = sum_counts (nc, send_idx, last_idx);
        rb = sum_counts (nc, recv_idx, send_idx);
      } else {
        recv_idx = send_idx + m;
        sb = sum_counts (nc, send_idx, recv_idx);
        rb = sum_counts (nc, recv_idx, last_idx);
      }
      gboolean ok = sb && rb ? c_sendrecv (c, dst, sb, dst, rb)
                    : rb ? c_recv (c, dst, rb) : sb ? c_send (c, dst, sb) : TRUE;
      if (!ok || !c_combine (c, rb))
        return FALSE;
      send_idx = recv_idx;
      last_idx = recv_idx + m;
    }
  }
  if (r < 2 * rem) {
    guint64 left = r % 2 == 1 ? rs_count (rc, block, r - 1) : rs_count (rc, block, r);
    if (r % 2 == 1 && left > 0)
      return c_send (c, r - 1, left);
    if (r % 2 == 0 && left > 0)
      return c_recv (c, r + 1, left);
  }
  return TRUE;
}

/* MPIR_Reduce_scatter_intra_pairwise (long vectors): P - 1 steps; at step
 * i send r + i its block and receive this rank's block from r - i (a
 * sendrecv, even of 0 bytes, as MPICH), then combine it. */
static gboolean
reduce_scatter_pairwise (Coll *c, const guint64 *rc, guint64 block)
{
  guint p = c->size, r = c->me;
  for (guint i = 1; i < p; i++) {
    guint dst = (r + i) % p, src = (r + p - i) % p;
    if (!c_sendrecv (c, dst, rs_count (rc, block, dst), src, rs_count (rc, block, r))
        || !c_combine (c, rs_count (rc, block, r)))
      return FALSE;
  }
  return TRUE;
}

/* ---- gatherv, scatterv, allgatherv ------------------------------------------------------------ */

/* MPIR_Gatherv_allcomm_linear: the root posts a receive from every other
 * rank with a non-empty block, in rank order, and waits for all; the
 * others send theirs, synchronously from GATHERV_INTER_SSEND_MIN_PROCS
 * ranks on (MPIR_CVAR_GATHERV_INTER_SSEND_MIN_PROCS, 32). */
static gboolean
gatherv_linear (Coll *c, guint root, guint64 n, const guint64 *rc)
{
  guint p = c->size;
  if (c->me != root) {
    if (n == 0)
      return TRUE;
    return p >= GATHERV_INTER_SSEND_MIN_PROCS ? c_ssend (c, root, n) : c_send (c, root, n);
  }
  for (guint i = 0; i < p; i++)
    if (i != root && rc[i] > 0 && !c_irecv (c, i, rc[i]))
      return FALSE;
  return c_waitall (c);
}

/* MPIR_Scatterv_allcomm_linear: the root posts a send to every other rank
 * with a non-empty block, in rank order, and waits for all; the others
 * receive theirs. */
static gboolean
scatterv_linear (Coll *c, guint root, guint64 n, const guint64 *sc)
{
  guint p = c->size;
  if (c->me != root)
    return n == 0 || c_recv (c, root, n);
  for (guint i = 0; i < p; i++)
    if (i != root && sc[i] > 0 && !c_isend (c, i, sc[i]))
      return FALSE;
  return c_waitall (c);
}

/* MPIR_Allgatherv_intra_recursive_doubling (P a power of two): at mask m
 * swap the blocks of this rank's subtree of size m for the partner's
 * (sendrecv, even of 0 bytes). */
static gboolean
allgatherv_recursive_doubling (Coll *c, const guint64 *rc)
{
  guint p = c->size, r = c->me;
  for (guint m = 1; m < p; m <<= 1) {
    guint dst = r ^ m, mine = r & ~(m - 1), theirs = dst & ~(m - 1);
    if (!c_sendrecv (c, dst, sum_counts (rc, mine, mine + m), dst,
                     sum_counts (rc, theirs, theirs + m)))
      return FALSE;
  }
  return TRUE;
}

/* The blocks of ranks r, r + 1, ..., r + k - 1 (mod p). */
static inline guint64
sum_ring (const guint64 *rc, guint p, guint r, guint k)
{
  guint64 s = 0;
  for (guint i = 0; i < k; i++)
    s += rc[(r + i) % p];
  return s;
}

/* MPIR_Allgatherv_intra_brucks: while 2^k <= P/2, send the 2^k blocks held
 * to r - 2^k and receive 2^k from r + 2^k; then, if P is not a power of
 * two, the remaining P - 2^k blocks the same way. */
static gboolean
allgatherv_brucks (Coll *c, const guint64 *rc)
{
  guint p = c->size, r = c->me, k = 1;
  for (; k <= p / 2; k *= 2) {
    guint src = (r + k) % p, dst = (r + p - k) % p;
    if (!c_sendrecv (c, dst, sum_ring (rc, p, r, k), src, sum_ring (rc, p, src, k)))
      return FALSE;
  }
  guint rest = p - k;
  if (rest > 0) {
    guint src = (r + k) % p, dst = (r + p - k) % p;
    if (!c_sendrecv (c, dst, sum_ring (rc, p, r, rest), src, sum_ring (rc, p, src, rest)))
      return FALSE;
  }
  return TRUE;
}

/* MPIR_Allgatherv_intra_ring: blocks travel around the ring, each step an
 * irecv from the left, a (blocking) send to the right and a wait; blocks
 * larger than ALLGATHERV_PIPELINE_MSG_SIZE bytes (MPIR_CVAR_ALLGATHERV_
 * PIPELINE_MSG_SIZE, 32768) when the largest block exceeds it are sent in
 * pieces of that size (pti counts bytes, so a piece is 32768 bytes
 * whatever the datatype's extent). */
static gboolean
allgatherv_ring (Coll *c, const guint64 *rc)
{
  guint p = c->size, r = c->me, left = (r + p - 1) % p, right = (r + 1) % p;
  guint64 total = sum_counts (rc, 0, p), max = 0;
  for (guint i = 0; i < p; i++)
    max = MAX (max, rc[i]);
  guint64 chunk = max > ALLGATHERV_PIPELINE_MSG_SIZE ? ALLGATHERV_PIPELINE_MSG_SIZE : max;
  guint64 torecv = total - rc[r], tosend = total - rc[right], soffset = 0, roffset = 0;
  guint sidx = r, ridx = left;
  while (tosend > 0 || torecv > 0) {
    guint64 sendnow = MIN (rc[sidx] - soffset, chunk), recvnow = MIN (rc[ridx] - roffset, chunk);
    /* as MPICH: an index that has gone round past its last block sends or
     * receives no more */
    if (tosend == 0)
      sendnow = 0;
    if (torecv == 0)
      recvnow = 0;
    if (recvnow > 0 && !c_irecv (c, left, recvnow))
      return FALSE;
    if (sendnow > 0 && !c_send (c, right, sendnow))
      return FALSE;
    if (recvnow > 0 && !c_waitall (c))
      return FALSE;
    torecv -= recvnow;
    tosend -= sendnow;
    soffset += sendnow;
    roffset += recvnow;
    if (soffset == rc[sidx]) {
      soffset = 0;
      sidx = (sidx + p - 1) % p;
    }
    if (roffset == rc[ridx]) {
      roffset = 0;
      ridx = (ridx + p - 1) % p;
    }
  }
  return TRUE;
}

/* MPIR_Barrier_intra_dissemination: ceil(log2 P) rounds of a 0-byte
 * message to r + 2^k and one from r - 2^k. */
static gboolean
barrier_dissemination (Coll *c)
{
  guint p = c->size, r = c->me;
  for (guint m = 1; m < p; m <<= 1)
    if (!c_sendrecv (c, (guint) (((guint64) r + m) % p), 0, (r + p - m) % p, 0))
      return FALSE;
  return TRUE;
}

/* ---- entry points ---------------------------------------------------------------------------- */

static gboolean
run (Coll *c, CollKind kind, CollAlg alg, guint root, guint64 n, const guint64 *sendv,
     const guint64 *recvv)
{
  switch (kind) {
  case COLL_BARRIER:
    if (alg == ALG_BINOMIAL)
      return reduce_binomial (c, 0, 0, FALSE) && bcast_binomial (c, 0, 0);
    return barrier_dissemination (c);
  case COLL_BCAST:
    if (alg == ALG_BINOMIAL)
      return bcast_binomial (c, root, n);
    return bcast_scatter_allgather (c, root, n, alg == ALG_SCATTER_RING_ALLGATHER);
  case COLL_REDUCE:
    if (alg == ALG_REDUCE_SCATTER_GATHER)
      return reduce_rabenseifner (c, root, n);
    return reduce_binomial (c, root, n, TRUE);
  case COLL_ALLREDUCE:
    if (alg == ALG_RING)
      return allreduce_ring (c, n);
    if (alg == ALG_REDUCE_SCATTER_ALLGATHER)
      return allreduce_rabenseifner (c, n);
    return allreduce_recursive_doubling (c, n);
  case COLL_GATHER:
    return gather_binomial (c, root, n);
  case COLL_SCATTER:
    return scatter_binomial (c, root, n);
  case COLL_ALLGATHER:
    if (alg == ALG_RECURSIVE_DOUBLING)
      return allgather_recursive_doubling (c, n);
    if (alg == ALG_BRUCKS)
      return allgather_brucks (c, n);
    return allgather_ring (c, n);
  case COLL_ALLTOALL:
  case COLL_ALLTOALLV:
    if (alg == ALG_BRUCKS)
      return alltoall_brucks (c, n);
    if (alg == ALG_PAIRWISE)
      return alltoall_pairwise (c, n, sendv, recvv);
    return alltoall_scattered (c, n, sendv, recvv);
  case COLL_SCAN:
  case COLL_EXSCAN:
    return scan_recursive_doubling (c, n, kind == COLL_EXSCAN);
  case COLL_REDUCE_SCATTER:
  case COLL_REDUCE_SCATTER_BLOCK:
    /* the _block form: every count n */
    if (kind == COLL_REDUCE_SCATTER_BLOCK)
      recvv = NULL;
    return alg == ALG_PAIRWISE ? reduce_scatter_pairwise (c, recvv, n)
                               : reduce_scatter_recursive_halving (c, recvv, n);
  case COLL_GATHERV:
    return gatherv_linear (c, root, n, recvv);
  case COLL_SCATTERV:
    return scatterv_linear (c, root, n, sendv);
  case COLL_ALLGATHERV:
    if (alg == ALG_RECURSIVE_DOUBLING)
      return allgatherv_recursive_doubling (c, recvv);
    if (alg == ALG_BRUCKS)
      return allgatherv_brucks (c, recvv);
    return allgatherv_ring (c, recvv);
  default:
    g_assert_not_reached ();
  }
}

/* The sum of @n sizes, FALSE if it overflows. */
static gboolean
checked_sum (const guint64 *v, guint n, guint64 *sum)
{
  *sum = 0;
  for (guint i = 0; i < n; i++) {
    if (v[i] > G_MAXUINT64 - *sum)
      return FALSE;
    *sum += v[i];
  }
  return TRUE;
}

/* One collective call, checked: what every way of making it needs. */
typedef struct {
  CollKind kind;
  CollAlg alg;
  guint root;
  guint64 n;
  const guint64 *sendv, *recvv;
  CommView view;
  PtiComm *comm;
  guint64 call;            /* its number among the communicator's calls of this rank */
  gboolean empty;          /* nothing to send: alone, or no data */
} Call;

/* Collectives with a root. */
static inline gboolean
coll_rooted (CollKind kind)
{
  return kind == COLL_BCAST || kind == COLL_REDUCE || kind == COLL_GATHER
         || kind == COLL_SCATTER || kind == COLL_GATHERV || kind == COLL_SCATTERV;
}

static gboolean
prepare (PtiContext *ctx, const PtiComm *comm, CollKind kind, gboolean nb, guint rank,
         guint root, guint64 n, const guint64 *sendv, const guint64 *recvv, Call *call,
         GError **error)
{
  const char *what = pti_coll_kind_name (kind | (nb ? COLL_NB : 0));
  CommView v;
  if (!pti_comm_check (ctx, comm, what, rank, &v, error))
    return FALSE;
  PtiCollState *st = pti_coll_state (ctx);
  if (st->hmc_error != NULL) {
    g_propagate_error (error, g_error_copy (st->hmc_error));
    return FALSE;
  }
  PtiComm *cm = comm ? (PtiComm *) comm : st->world;
  gboolean rooted = coll_rooted (kind);
  if (rooted && root >= v.size) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "%s on rank %u: root %u out of range (communicator '%s' of rank %u has %u "
                 "rank%s: 0 to %u)", what, rank, root, cm->name, rank, v.size,
                 v.size == 1 ? "" : "s", v.size - 1);
    return FALSE;
  }
  if (kind == COLL_ALLTOALLV && (sendv == NULL || recvv == NULL)) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "%s on rank %u: the send and receive sizes are both required", what, rank);
    return FALSE;
  }
  if ((kind == COLL_GATHER || kind == COLL_SCATTER || kind == COLL_ALLGATHER
       || kind == COLL_ALLTOALL || kind == COLL_REDUCE_SCATTER_BLOCK) && n > G_MAXUINT64 / v.size) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "%s on rank %u: %" G_GUINT64_FORMAT " bytes per rank times %u ranks is too "
                 "large", what, rank, n, v.size);
    return FALSE;
  }
  /* The vector collectives: the sizes of every rank where MPI wants them
   * (every rank, or the root), and their sum, which MPICH's choice reads. */
  const guint64 *vec = NULL;
  const char *vec_name = NULL;
  if (kind == COLL_REDUCE_SCATTER || kind == COLL_ALLGATHERV
      || (kind == COLL_GATHERV && v.rank == root)) {
    vec = recvv;
    vec_name = kind == COLL_GATHERV ? "the root's receive sizes" : "the receive sizes";
  } else if (kind == COLL_SCATTERV && v.rank == root) {
    vec = sendv;
    vec_name = "the root's send sizes";
  }
  guint64 total = n;
  if (vec_name != NULL && vec == NULL) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "%s on rank %u: %s are required (one per rank of the communicator)", what, rank,
                 vec_name);
    return FALSE;
  }
  if (vec != NULL && !checked_sum (vec, v.size, &total)) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "%s on rank %u: the sizes add up to more than %" G_GUINT64_FORMAT " bytes", what,
                 rank, G_MAXUINT64);
    return FALSE;
  }
  guint64 choice_bytes = kind == COLL_REDUCE_SCATTER_BLOCK ? n * v.size : total;
  CollAlg alg = choose (st, kind, v.size, choice_bytes);
  /* Sizes compared between ranks: what MPI requires to be the same. */
  guint64 compared = kind == COLL_GATHERV || kind == COLL_SCATTERV ? 0 : total;
  guint64 number = cm->calls != NULL ? cm->calls[rank] : 0;
  if (!pti_coll_record (ctx, st, cm, &v, rank, kind | (nb ? COLL_NB : 0), alg,
                        rooted ? root : NO_ROOT, compared, error))
    return FALSE;
  /* Nothing to send: alone, or (as MPICH) a zero-byte data collective. */
  gboolean vector = kind == COLL_ALLTOALLV || kind == COLL_GATHERV || kind == COLL_SCATTERV;
  *call = (Call) {
    .kind = kind, .alg = alg, .root = root, .n = n, .sendv = sendv, .recvv = recvv, .view = v,
    .comm = cm, .call = number,
    .empty = v.size == 1 || (total == 0 && kind != COLL_BARRIER && !vector),
  };
  return TRUE;
}

/* The messages of @call on world rank @rank, from its start. */
static Coll
coll_for (PtiContext *ctx, const Call *call, guint rank, const char *what, GError **error)
{
  PtiCollState *st = pti_coll_state (ctx);
  g_array_set_size (st->reqs, 0);
  return (Coll) {
    .ctx = ctx, .engine = pti_session_engine (pti_wsl_session (ctx)), .st = st, .members = call->view.members,
    .size = call->view.size, .me = call->view.rank, .world_me = rank,
    .cid = 2 * call->comm->id + 1, .tag = (gint) call->kind + 1, .what = what, .error = error,
  };
}

static gboolean
collective (PtiContext *ctx, const PtiComm *comm, CollKind kind, guint rank, guint root,
            guint64 n, const guint64 *sendv, const guint64 *recvv, GError **error)
{
  Call call;
  if (!prepare (ctx, comm, kind, FALSE, rank, root, n, sendv, recvv, &call, error))
    return FALSE;
  /* The trace marks the call around its messages (the root by its world
   * rank, like every rank of the trace; vector calls' bytes: all the rank
   * sends), also a call with nothing to send. */
  PtiEngine *engine = pti_session_engine (pti_wsl_session (ctx));
  guint64 bytes = n;
  for (guint i = 0; (kind == COLL_ALLTOALLV || kind == COLL_SCATTERV) && sendv != NULL
                    && i < call.view.size; i++)
    bytes += sendv[i];
  gboolean rooted = coll_rooted (kind);
  guint world_root = rooted ? (call.view.members ? call.view.members[root] : root) : 0;
  pti_engine_add_coll_begin (engine, rank, kind, call.comm->id, world_root, bytes);
  if (!call.empty) {
    Coll c = coll_for (ctx, &call, rank, pti_coll_kind_name (kind), error);
    /* A rank program does not yield inside (its scratch is shared). */
    ctx->in_collective = TRUE;
    gboolean ok = run (&c, kind, call.alg, root, n, sendv, recvv);
    ctx->in_collective = FALSE;
    if (!ok)
      return FALSE;
  }
  pti_engine_add_coll_end (engine, rank, kind, call.comm->id, world_root, bytes);
  return pti_wsl_appended (ctx, error);
}

gboolean
pti_coll_call (PtiContext *ctx, const PtiComm *comm, CollKind kind, guint rank, guint root,
               guint64 n, const guint64 *sendv, const guint64 *recvv, GError **error)
{
  return collective (ctx, comm, kind, rank, root, n, sendv, recvv, error);
}

/* ---- non-blocking ---------------------------------------------------------------------------
 *
 * MPICH makes a non-blocking collective a schedule of the blocking
 * algorithm's messages, with a barrier wherever a step needs data that an
 * earlier step receives; it starts the schedule at the call, and (without
 * an asynchronous progress thread, the default) advances it only inside
 * MPI calls: in practice in the wait.  pti runs the same algorithm twice:
 * at the call up to the first step that needs data to arrive (everything
 * before is posted: sends as isends, the receive that stops it as an
 * irecv), and at the wait from there, as the blocking algorithm would, once
 * what the call posted is complete.  So the first round overlaps the
 * computation between call and wait, the later rounds do not.  Each call
 * gets a tag of its own (from NBC_TAG_BASE, by its number among the
 * communicator's calls, which every member agrees on), as MPICH gives each
 * schedule one, so two outstanding collectives never take each other's
 * messages.  wsl/COLLECTIVES.md says more, and what this leaves out. */

#define NBC_TAG_BASE 1024
#define NBC_TAGS (1u << 24)

static guint64 *
copy_sizes (const guint64 *v, guint n)
{
  return v ? g_memdup2 (v, n * sizeof (guint64)) : NULL;
}

gboolean
pti_coll_istart (PtiContext *ctx, const PtiComm *comm, CollKind kind, guint rank, guint root,
                 guint64 n, const guint64 *sendv, const guint64 *recvv, PtiRequest *request,
                 GError **error)
{
  g_return_val_if_fail (request != NULL, FALSE);
  Call call;
  if (!prepare (ctx, comm, kind, TRUE, rank, root, n, sendv, recvv, &call, error))
    return FALSE;
  *request = PTI_REQUEST_NULL;
  if (call.empty)
    return TRUE;
  Coll c = coll_for (ctx, &call, rank, nb_kind_names[kind], error);
  c.tag = NBC_TAG_BASE + (gint) (call.call % NBC_TAGS);
  c.mode = RUN_PREFIX;
  ctx->in_collective = TRUE;
  gboolean ok = run (&c, kind, call.alg, root, n, sendv, recvv);
  ctx->in_collective = FALSE;
  if (!ok)
    return FALSE;
  PtiCollState *st = pti_coll_state (ctx);
  /* The call's request: the handle of the first request it posted, which
   * no other request has while the call is outstanding. */
  guint32 handle;
  if (st->reqs->len > 0) {
    handle = g_array_index (st->reqs, guint32, 0);
  } else if (!c.stopped) {
    return TRUE;           /* nothing to do at all */
  } else {
    /* Work left but nothing posted: a handle no engine request has. */
    guint k = 0;
    do {
      handle = pti_engine_spare_handle (st->spare++ % PTI_ENGINE_SPARE_HANDLES);
      guint64 key = NBC_KEY (rank, handle);
      if (st->nbc == NULL || !g_hash_table_contains (st->nbc, &key))
        break;
    } while (++k < PTI_ENGINE_SPARE_HANDLES);
    if (k == PTI_ENGINE_SPARE_HANDLES) {
      g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                   "%s on rank %u: more than %u non-blocking collectives outstanding that "
                   "posted nothing at their call", nb_kind_names[kind], rank,
                   PTI_ENGINE_SPARE_HANDLES);
      return FALSE;
    }
  }
  NbcRecord *rec = g_new0 (NbcRecord, 1);
  guint size = call.view.size;
  *rec = (NbcRecord) {
    .comm = call.comm, .world_rank = rank, .kind = kind, .alg = call.alg, .root = root, .n = n,
    .sendv = copy_sizes (sendv, size), .recvv = copy_sizes (recvv, size), .call = call.call,
    .tag = c.tag, .resume = c.stopped ? c.resume : c.op,
    .reqs = g_memdup2 (st->reqs->data, st->reqs->len * sizeof (guint32)),
    .n_reqs = st->reqs->len,
  };
  if (st->nbc == NULL)
    st->nbc = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, pti_nbc_record_free);
  guint64 *key = g_new (guint64, 1);
  *key = NBC_KEY (rank, handle);
  g_hash_table_insert (st->nbc, key, rec);
  *request = handle;
  return TRUE;
}

gboolean
pti_coll_nbc_finish (PtiContext *ctx, const NbcRecord *rec, GError **error)
{
  CommView v;
  pti_comm_view (rec->comm, rec->world_rank, &v);
  Call call = {
    .kind = rec->kind, .alg = rec->alg, .root = rec->root, .n = rec->n, .sendv = rec->sendv,
    .recvv = rec->recvv, .view = v, .comm = rec->comm, .call = rec->call,
  };
  Coll c = coll_for (ctx, &call, rec->world_rank, nb_kind_names[rec->kind], error);
  c.tag = rec->tag;
  c.mode = RUN_REST;
  c.resume = rec->resume;
  return run (&c, rec->kind, rec->alg, rec->root, rec->n, rec->sendv, rec->recvv);
}

void
pti_nbc_record_free (gpointer data)
{
  NbcRecord *rec = data;
  g_free (rec->sendv);
  g_free (rec->recvv);
  g_free (rec->reqs);
  g_free (rec);
}

gboolean
pti_mpi_barrier_comm (PtiContext *ctx, const PtiComm *comm, guint rank, GError **error)
{
  return collective (ctx, comm, COLL_BARRIER, rank, 0, 0, NULL, NULL, error);
}

gboolean
pti_mpi_bcast_comm (PtiContext *ctx, const PtiComm *comm, guint rank, guint root, guint64 bytes,
                    GError **error)
{
  return collective (ctx, comm, COLL_BCAST, rank, root, bytes, NULL, NULL, error);
}

gboolean
pti_mpi_reduce_comm (PtiContext *ctx, const PtiComm *comm, guint rank, guint root, guint64 bytes,
                     GError **error)
{
  return collective (ctx, comm, COLL_REDUCE, rank, root, bytes, NULL, NULL, error);
}

gboolean
pti_mpi_allreduce_comm (PtiContext *ctx, const PtiComm *comm, guint rank, guint64 bytes,
                        GError **error)
{
  return collective (ctx, comm, COLL_ALLREDUCE, rank, 0, bytes, NULL, NULL, error);
}

gboolean
pti_mpi_gather_comm (PtiContext *ctx, const PtiComm *comm, guint rank, guint root, guint64 bytes,
                     GError **error)
{
  return collective (ctx, comm, COLL_GATHER, rank, root, bytes, NULL, NULL, error);
}

gboolean
pti_mpi_scatter_comm (PtiContext *ctx, const PtiComm *comm, guint rank, guint root, guint64 bytes,
                      GError **error)
{
  return collective (ctx, comm, COLL_SCATTER, rank, root, bytes, NULL, NULL, error);
}

gboolean
pti_mpi_allgather_comm (PtiContext *ctx, const PtiComm *comm, guint rank, guint64 bytes,
                        GError **error)
{
  return collective (ctx, comm, COLL_ALLGATHER, rank, 0, bytes, NULL, NULL, error);
}

gboolean
pti_mpi_alltoall_comm (PtiContext *ctx, const PtiComm *comm, guint rank, guint64 bytes,
                       GError **error)
{
  return collective (ctx, comm, COLL_ALLTOALL, rank, 0, bytes, NULL, NULL, error);
}

gboolean
pti_mpi_alltoallv_comm (PtiContext *ctx, const PtiComm *comm, guint rank,
                        const guint64 *send_bytes, const guint64 *recv_bytes, GError **error)
{
  return collective (ctx, comm, COLL_ALLTOALLV, rank, 0, 0, send_bytes, recv_bytes, error);
}

gboolean
pti_mpi_scan_comm (PtiContext *ctx, const PtiComm *comm, guint rank, guint64 bytes,
                   GError **error)
{
  return collective (ctx, comm, COLL_SCAN, rank, 0, bytes, NULL, NULL, error);
}

gboolean
pti_mpi_exscan_comm (PtiContext *ctx, const PtiComm *comm, guint rank, guint64 bytes,
                     GError **error)
{
  return collective (ctx, comm, COLL_EXSCAN, rank, 0, bytes, NULL, NULL, error);
}

gboolean
pti_mpi_reduce_scatter_comm (PtiContext *ctx, const PtiComm *comm, guint rank,
                             const guint64 *recv_bytes, GError **error)
{
  return collective (ctx, comm, COLL_REDUCE_SCATTER, rank, 0, 0, NULL, recv_bytes, error);
}

gboolean
pti_mpi_reduce_scatter_block_comm (PtiContext *ctx, const PtiComm *comm, guint rank,
                                   guint64 bytes, GError **error)
{
  return collective (ctx, comm, COLL_REDUCE_SCATTER_BLOCK, rank, 0, bytes, NULL, NULL, error);
}

gboolean
pti_mpi_gatherv_comm (PtiContext *ctx, const PtiComm *comm, guint rank, guint root,
                      guint64 send_bytes, const guint64 *recv_bytes, GError **error)
{
  return collective (ctx, comm, COLL_GATHERV, rank, root, send_bytes, NULL, recv_bytes, error);
}

gboolean
pti_mpi_scatterv_comm (PtiContext *ctx, const PtiComm *comm, guint rank, guint root,
                       const guint64 *send_bytes, guint64 recv_bytes, GError **error)
{
  return collective (ctx, comm, COLL_SCATTERV, rank, root, recv_bytes, send_bytes, NULL, error);
}

gboolean
pti_mpi_allgatherv_comm (PtiContext *ctx, const PtiComm *comm, guint rank,
                         const guint64 *recv_bytes, GError **error)
{
  return collective (ctx, comm, COLL_ALLGATHERV, rank, 0, 0, NULL, recv_bytes, error);
}

gboolean
pti_mpi_scan (PtiContext *ctx, guint rank, guint64 bytes, GError **error)
{
  return pti_mpi_scan_comm (ctx, NULL, rank, bytes, error);
}

gboolean
pti_mpi_exscan (PtiContext *ctx, guint rank, guint64 bytes, GError **error)
{
  return pti_mpi_exscan_comm (ctx, NULL, rank, bytes, error);
}

gboolean
pti_mpi_reduce_scatter (PtiContext *ctx, guint rank, const guint64 *recv_bytes, GError **error)
{
  return pti_mpi_reduce_scatter_comm (ctx, NULL, rank, recv_bytes, error);
}

gboolean
pti_mpi_reduce_scatter_block (PtiContext *ctx, guint rank, guint64 bytes, GError **error)
{
  return pti_mpi_reduce_scatter_block_comm (ctx, NULL, rank, bytes, error);
}

gboolean
pti_mpi_gatherv (PtiContext *ctx, guint rank, guint root, guint64 send_bytes,
                 const guint64 *recv_bytes, GError **error)
{
  return pti_mpi_gatherv_comm (ctx, NULL, rank, root, send_bytes, recv_bytes, error);
}

gboolean
pti_mpi_scatterv (PtiContext *ctx, guint rank, guint root, const guint64 *send_bytes,
                  guint64 recv_bytes, GError **error)
{
  return pti_mpi_scatterv_comm (ctx, NULL, rank, root, send_bytes, recv_bytes, error);
}

gboolean
pti_mpi_allgatherv (PtiContext *ctx, guint rank, const guint64 *recv_bytes, GError **error)
{
  return pti_mpi_allgatherv_comm (ctx, NULL, rank, recv_bytes, error);
}

gboolean
pti_mpi_barrier (PtiContext *ctx, guint rank, GError **error)
{
  return pti_mpi_barrier_comm (ctx, NULL, rank, error);
}

gboolean
pti_mpi_bcast (PtiContext *ctx, guint rank, guint root, guint64 bytes, GError **error)
{
  return pti_mpi_bcast_comm (ctx, NULL, rank, root, bytes, error);
}

gboolean
pti_mpi_reduce (PtiContext *ctx, guint rank, guint root, guint64 bytes, GError **error)
{
  return pti_mpi_reduce_comm (ctx, NULL, rank, root, bytes, error);
}

gboolean
pti_mpi_allreduce (PtiContext *ctx, guint rank, guint64 bytes, GError **error)
{
  return pti_mpi_allreduce_comm (ctx, NULL, rank, bytes, error);
}

gboolean
pti_mpi_gather (PtiContext *ctx, guint rank, guint root, guint64 bytes, GError **error)
{
  return pti_mpi_gather_comm (ctx, NULL, rank, root, bytes, error);
}

gboolean
pti_mpi_scatter (PtiContext *ctx, guint rank, guint root, guint64 bytes, GError **error)
{
  return pti_mpi_scatter_comm (ctx, NULL, rank, root, bytes, error);
}

gboolean
pti_mpi_allgather (PtiContext *ctx, guint rank, guint64 bytes, GError **error)
{
  return pti_mpi_allgather_comm (ctx, NULL, rank, bytes, error);
}

gboolean
pti_mpi_alltoall (PtiContext *ctx, guint rank, guint64 bytes, GError **error)
{
  return pti_mpi_alltoall_comm (ctx, NULL, rank, bytes, error);
}

gboolean
pti_mpi_alltoallv (PtiContext *ctx, guint rank, const guint64 *send_bytes,
                   const guint64 *recv_bytes, GError **error)
{
  return pti_mpi_alltoallv_comm (ctx, NULL, rank, send_bytes, recv_bytes, error);
}
