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
 * CPU model at stage 1 like any use. */
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

/* Bytes per element of a reduction: doubles. */
#define ELEMENT_BYTES 8

#define COMBINE_PARAM "__pti_reduce_elements"
#define COMBINE_RUD \
  "<rud device='cpu'><compute type='clc' of='" COMBINE_PARAM "*AFDL'/></rud>"

static const char *const kind_names[COLL_N] = {
  "barrier", "bcast", "reduce", "allreduce", "gather", "scatter", "allgather", "alltoall",
  "alltoallv",
};

static const char *const alg_names[ALG_N] = {
  "auto", "dissemination", "binomial", "scatter_recursive_doubling_allgather",
  "scatter_ring_allgather", "reduce_scatter_gather", "recursive_doubling",
  "reduce_scatter_allgather", "ring", "brucks", "scattered", "pairwise",
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
};

const char *
pti_coll_kind_name (CollKind kind)
{
  return kind < COLL_N ? kind_names[kind] : "?";
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
  guint k = 0;
  while (k < COLL_N && g_strcmp0 (collective, kind_names[k]) != 0)
    k++;
  if (k == COLL_N) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "unknown collective '%s' (known: barrier, bcast, reduce, allreduce, gather, "
                 "scatter, allgather, alltoall, alltoallv)", collective ? collective : "(null)");
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
  PtiCollState **slot = pti_wsl_coll_state (ctx);
  if (*slot != NULL)
    return *slot;
  PtiCollState *st = g_new0 (PtiCollState, 1);
  st->world = pti_comm_new_world (ctx);
  st->splits = g_ptr_array_new ();
  memset (st->hmc_alg, ALG_UNSET, sizeof st->hmc_alg);
  memset (st->wsl_alg, ALG_UNSET, sizeof st->wsl_alg);
  st->reqs = g_array_new (FALSE, FALSE, sizeof (guint32));
  const PtiSystem *sys = pti_wsl_system (ctx);
  for (guint i = 0; sys->mpi_algorithms != NULL && i < sys->mpi_algorithms->len; i++) {
    const PtiMpiAlgorithm *a = &g_array_index (sys->mpi_algorithms, PtiMpiAlgorithm, i);
    CollKind kind;
    guint8 alg;
    GError *local = NULL;
    if (parse_choice (a->collective, a->algorithm, &kind, &alg, &local)) {
      st->hmc_alg[kind] = alg;
    } else if (st->hmc_error == NULL) {
      g_prefix_error (&local, "%s:%d: <mpi>: ", sys->path, a->line);
      st->hmc_error = local;
    } else {
      g_error_free (local);
    }
  }
  *slot = st;
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
  g_free (st->site_file);
  g_clear_error (&st->hmc_error);
  g_free (st);
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
    if (kind == COLL_ALLGATHER && a == ALG_RECURSIVE_DOUBLING)
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
} Coll;

static inline guint
world_of (const Coll *c, guint r)
{
  return c->members ? c->members[r] : r;
}

/* Every event goes through pti_wsl_appended (automatic partial evaluation). */
static gboolean
c_send (Coll *c, guint to, guint64 bytes)
{
  return pti_wsl_appended (c->ctx, pti_engine_add_send (c->engine, c->world_me, world_of (c, to),
                                                        bytes, c->tag, c->cid, c->error),
                           c->error);
}

static gboolean
c_recv (Coll *c, guint from, guint64 bytes)
{
  return pti_wsl_appended (c->ctx, pti_engine_add_recv (c->engine, c->world_me,
                                                        world_of (c, from), bytes, c->tag, c->cid,
                                                        c->error),
                           c->error);
}

static gboolean
c_isend (Coll *c, guint to, guint64 bytes)
{
  guint32 r;
  if (!pti_engine_add_isend (c->engine, c->world_me, world_of (c, to), bytes, c->tag, c->cid, &r,
                             c->error))
    return FALSE;
  g_array_append_val (c->st->reqs, r);
  return pti_wsl_appended (c->ctx, TRUE, c->error);
}

static gboolean
c_irecv (Coll *c, guint from, guint64 bytes)
{
  guint32 r;
  if (!pti_engine_add_irecv (c->engine, c->world_me, world_of (c, from), bytes, c->tag, c->cid,
                             &r, c->error))
    return FALSE;
  g_array_append_val (c->st->reqs, r);
  return pti_wsl_appended (c->ctx, TRUE, c->error);
}

static gboolean
c_waitall (Coll *c)
{
  GArray *reqs = c->st->reqs;
  if (reqs->len == 0)
    return TRUE;
  gboolean ok = pti_engine_add_wait (c->engine, c->world_me, reqs->len, (guint32 *) reqs->data,
                                     FALSE, c->error);
  g_array_set_size (reqs, 0);
  return pti_wsl_appended (c->ctx, ok, c->error);
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
  if (bytes == 0)
    return TRUE;
  PtiCollState *st = c->st;
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
  default:
    g_assert_not_reached ();
  }
}

static gboolean
collective (PtiContext *ctx, const PtiComm *comm, CollKind kind, guint rank, guint root,
            guint64 n, const guint64 *sendv, const guint64 *recvv, GError **error)
{
  const char *what = kind_names[kind];
  CommView v;
  if (!pti_comm_check (ctx, comm, what, rank, &v, error))
    return FALSE;
  PtiCollState *st = pti_coll_state (ctx);
  if (st->hmc_error != NULL) {
    g_propagate_error (error, g_error_copy (st->hmc_error));
    return FALSE;
  }
  PtiComm *cm = comm ? (PtiComm *) comm : st->world;
  gboolean rooted = kind == COLL_BCAST || kind == COLL_REDUCE || kind == COLL_GATHER
                    || kind == COLL_SCATTER;
  if (rooted && root >= v.size) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "%s on rank %u: root %u out of range (communicator '%s' of rank %u has %u "
                 "rank%s: 0 to %u)", what, rank, root, cm->name, rank, v.size,
                 v.size == 1 ? "" : "s", v.size - 1);
    return FALSE;
  }
  if (kind == COLL_ALLTOALLV && (sendv == NULL || recvv == NULL)) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "alltoallv on rank %u: the send and receive sizes are both required", rank);
    return FALSE;
  }
  if ((kind == COLL_GATHER || kind == COLL_SCATTER || kind == COLL_ALLGATHER
       || kind == COLL_ALLTOALL) && n > G_MAXUINT64 / v.size) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "%s on rank %u: %" G_GUINT64_FORMAT " bytes per rank times %u ranks is too "
                 "large", what, rank, n, v.size);
    return FALSE;
  }
  CollAlg alg = choose (st, kind, v.size, n);
  if (!pti_coll_record (ctx, st, cm, &v, rank, kind, alg, rooted ? root : NO_ROOT, n, error))
    return FALSE;
  /* Nothing to send: alone, or (as MPICH) a zero-byte data collective. */
  if (v.size == 1 || (n == 0 && kind != COLL_BARRIER && kind != COLL_ALLTOALLV))
    return TRUE;
  Coll c = {
    .ctx = ctx, .engine = pti_wsl_engine (ctx), .st = st, .members = v.members, .size = v.size,
    .me = v.rank, .world_me = rank, .cid = 2 * cm->id + 1, .tag = (gint) kind + 1,
    .what = what, .error = error,
  };
  g_array_set_size (st->reqs, 0);
  return run (&c, kind, alg, root, n, sendv, recvv);
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
