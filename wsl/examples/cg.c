/* NAS CG (NPB 3.4, MPI) as a C workload program: the same workload as cg.xml,
 * call for call (its header comment gives the event structure and the
 * operation counts), built on the WSL API.  A test checks that both predict
 * the same time with the same number of events.
 *
 *   cg [OPTIONS] SYSTEM.xml             (the options of ptieval: -D, -o, --json)
 *   cg configs/pc_cluster.xml -D class=3 -D procs=16     (class A on 16 ranks)
 *
 * Parameters (-D): class (1..8 = S, W, A, B, C, D, E, F; default 1 = S), which
 * sets the defaults of na, nonzer and niter, each of which may also be given;
 * procs (a power of two, default 16); and, as in sweep3d.c (the program
 * only, not cg.xml), eval_mode, how to evaluate (same prediction every
 * way): 0 all at once, 1 with a partial evaluation after each outer
 * iteration (memory bounded by one iteration), 2 with the timed iterations
 * as one block under analytical repetition. */
#include <pti/wsl.h>

/* NPB's problem classes (workloads.md 4.1); shift does not change the work. */
static const struct {
  char name;
  double na, nonzer, niter;
} cg_classes[] = {
  { 'S', 1400, 7, 15 },       { 'W', 7000, 8, 15 },     { 'A', 14000, 11, 15 },
  { 'B', 75000, 13, 75 },     { 'C', 150000, 15, 75 },  { 'D', 1500000, 21, 100 },
  { 'E', 9000000, 26, 100 },  { 'F', 54000000, 31, 100 },
};

#define CGITMAX 25

/* The RUDs of cg.xml, verbatim in substance, memory signatures included
 * (see the comments there; ws_cg is bound as a parameter below), chains
 * included (RED: a reduction's one carried add): WS for
 * the matrix stream and the vectors last used before the SpMV, WV for the
 * vectors the loops before re-used. */
#define WS "working_set='ws_cg' pattern='unit'"
#define WV "working_set='56 * nc' pattern='unit'"
#define RED "chain='AFDL'"
static const char init_rud[] =
  "<rud device='cpu'>"
  " <loop iter='na + 1' type='clc' of='LFOR,CMLL,INLL' bytes='8' written='40'"
  "       working_set='56 * (na + 2)' pattern='unit'>"
  "  <compute type='clc' of='5*TFDL,7*ARF1'/></loop></rud>";

static const char dot_rr_rud[] =
  "<rud device='cpu'>"
  " <compute type='clc' of='TFDL'/>"
  " <loop iter='nc' type='clc' of='LFOR,CMLL,INLL' " RED " bytes='8' " WV ">"
  "  <compute type='clc' of='MFDL,AFDL,TFDL,2*ARF1'/></loop></rud>";

static const char spmv_rud[] =
  "<rud device='cpu'>"
  " <loop iter='nr' type='clc' of='LFOR,CMLL,INLL' bytes='4' written='8' " WS ">"
  "  <compute type='clc' of='TFDL,2*ARF1'/>"
  "  <loop iter='nzrow * nc / na' type='clc' of='LFOR,CMLL,INLL' " RED " bytes='12' " WS ">"
  "   <compute type='clc' of='MFDL,AFDL,TFDL,3*ARF1'"
  "            bytes='8' working_set='8 * nc' pattern='random'/></loop>"
  "  <compute type='clc' of='TFDL,ARF1'/>"
  " </loop></rud>";

static const char reduce_add_rud[] =
  "<rud device='cpu'>"
  " <loop iter='len' type='clc' of='LFOR,CMLL,INLL' bytes='16' " WV ">"
  "  <compute type='clc' of='AFDL,TFDL,3*ARF1'/></loop></rud>";

static const char pq_rud[] =
  "<rud device='cpu'>"
  " <case type='clc' of='IFBR'><branch exprob='L == 0'>"
  "  <loop iter='nc' type='clc' of='LFOR,CMLL,INLL' bytes='8' written='8' " WV ">"
  "   <compute type='clc' of='TFDL,2*ARF1'/></loop>"
  " </branch></case>"
  " <loop iter='max(nr, nc)' type='clc' of='LFOR,CMLL,INLL' bytes='0' written='8' " WV ">"
  "  <compute type='clc' of='TFDL,ARF1'/></loop>"
  " <compute type='clc' of='TFDL'/>"
  " <loop iter='nc' type='clc' of='LFOR,CMLL,INLL' " RED " bytes='16' " WV ">"
  "  <compute type='clc' of='MFDL,AFDL,TFDL,2*ARF1'/></loop></rud>";

static const char update_rud[] =
  "<rud device='cpu'>"
  " <compute type='clc' of='DFDL,3*TFDL'/>"
  " <loop iter='nc' type='clc' of='LFOR,CMLL,INLL' bytes='16' " WS ">"
  "  <compute type='clc' of='2*MFDL,2*AFDL,2*TFDL,6*ARF1' bytes='16' " WV "/></loop>"
  " <compute type='clc' of='TFDL'/>"
  " <loop iter='nc' type='clc' of='LFOR,CMLL,INLL' " RED " bytes='8' " WV ">"
  "  <compute type='clc' of='MFDL,AFDL,TFDL,2*ARF1'/></loop></rud>";

static const char p_update_rud[] =
  "<rud device='cpu'>"
  " <compute type='clc' of='DFDL,2*TFDL'/>"
  " <loop iter='nc' type='clc' of='LFOR,CMLL,INLL' bytes='16' " WV ">"
  "  <compute type='clc' of='MFDL,AFDL,TFDL,3*ARF1'/></loop></rud>";

static const char residual_rud[] =
  "<rud device='cpu'>"
  " <case type='clc' of='IFBR'><branch exprob='L == 0'>"
  "  <loop iter='nc' type='clc' of='LFOR,CMLL,INLL' bytes='8' written='8' " WV ">"
  "   <compute type='clc' of='TFDL,2*ARF1'/></loop>"
  " </branch></case>"
  " <compute type='clc' of='TFDL'/>"
  " <loop iter='nc' type='clc' of='LFOR,CMLL,INLL' " RED " bytes='8' " WS ">"
  "  <compute type='clc' of='MFDL,2*AFDL,2*TFDL,2*ARF1' bytes='8' " WV "/></loop></rud>";

static const char norms_rud[] =
  "<rud device='cpu'>"
  " <compute type='clc' of='2*TFDL'/>"
  " <loop iter='nc' type='clc' of='LFOR,CMLL,INLL' " RED " bytes='16' " WV ">"
  "  <compute type='clc' of='2*MFDL,2*AFDL,2*TFDL,4*ARF1'/></loop></rud>";

static const char normalize_rud[] =
  "<rud device='cpu'>"
  " <compute type='clc' of='FCAL,DFDL,TFDL'/>"
  " <loop iter='nc' type='clc' of='LFOR,CMLL,INLL' bytes='8' written='8' " WV ">"
  "  <compute type='clc' of='MFDL,TFDL,2*ARF1'/></loop></rud>";

typedef struct {
  PtiRud *init, *dot_rr, *spmv, *reduce_add, *pq, *update, *p_update, *residual, *norms,
      *normalize;
  /* symbol slots the RUDs read, bound per rank and per reduce step */
  guint nr, nc, len;
  /* the process grid */
  int nprows, npcols, l2npcols;
} Cg;

/* What rank r exchanges with whom, and how much (in doubles): NPB's
 * setup_submatrix_info.  Row and column blocks are as even as na allows. */
typedef struct {
  int proc_row, proc_col;
  int nr, nc;                  /* local rows; local columns (vector length) */
  int send_len;                /* the part of w this rank sends on transposing */
  int exch_proc;               /* transpose partner (may be r itself) */
  int reduce_proc[32];         /* [i], i = 1..l2npcols: partner of step i */
  int reduce_send[32], reduce_recv[32];
} Rank;

static void
cg_clear (Cg *cg)
{
  PtiRud **ruds[] = { &cg->init, &cg->dot_rr, &cg->spmv, &cg->reduce_add, &cg->pq,
                      &cg->update, &cg->p_update, &cg->residual, &cg->norms, &cg->normalize };
  for (size_t i = 0; i < G_N_ELEMENTS (ruds); i++)
    g_clear_pointer (ruds[i], pti_rud_unref);
}

/* Declare a parameter with its default and read back its value (after any
 * -D override), insisting on a whole number from @min to @max. */
static gboolean
param (PtiContext *ctx, const char *name, double def, double min, double max, double *out,
       GError **error)
{
  if (!pti_context_declare_param (ctx, name, def, error))
    return FALSE;
  double v = pti_context_get_param (ctx, name);
  if (!(v >= min && v <= max && v == (double) (gint64) v)) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "parameter %s = %g must be a whole number from %g to %g", name, v, min, max);
    return FALSE;
  }
  *out = v;
  return TRUE;
}

static void
setup_rank (const Cg *cg, int na, int r, Rank *k)
{
  int nprows = cg->nprows, npcols = cg->npcols, l2 = cg->l2npcols;
  gboolean square = nprows == npcols, even = r % 2 == 0;
  k->proc_row = r / npcols;
  k->proc_col = r % npcols;
  k->nr = na / nprows + (k->proc_row < na % nprows ? 1 : 0);
  if (square) {
    k->nc = na / npcols + (k->proc_col < na % npcols ? 1 : 0);
    k->send_len = k->nr;
    k->exch_proc = (r % nprows) * nprows + r / nprows;
  } else {
    /* npcols = 2 nprows: each row block is split between an even/odd pair */
    int pair = na / nprows + (k->proc_col / 2 < na % nprows ? 1 : 0);
    k->nc = even ? (pair + 1) / 2 : pair / 2;
    k->send_len = even ? (k->nr + 1) / 2 : k->nr / 2;
    k->exch_proc = 2 * (((r / 2) % nprows) * nprows + (r / 2) / nprows) + r % 2;
  }
  for (int i = 1; i <= l2; i++) {
    int half = 1 << (l2 - i);   /* recursive halving: step i flips this bit of proc_col */
    k->reduce_proc[i] = k->proc_row * npcols + (k->proc_col + half) % (2 * half)
                        + k->proc_col / (2 * half) * 2 * half;
    k->reduce_recv[i] = square ? k->nr : k->send_len;
    k->reduce_send[i] = square ? k->nr : i == l2 ? k->nr - k->send_len : k->send_len;
  }
}

/* XCHG(peer): NPB's pairwise swap, MPI_Irecv + blocking MPI_Send + MPI_Wait. */
static gboolean
xchg (PtiContext *ctx, int r, int peer, guint64 send_bytes, guint64 recv_bytes, int tag,
      GError **error)
{
  PtiRequest req;
  return pti_mpi_irecv (ctx, r, peer, recv_bytes, tag, &req, error)
         && pti_mpi_send (ctx, r, peer, send_bytes, tag, error)
         && pti_mpi_wait (ctx, r, req, error);
}

/* XCHG_L: a sum of @bytes over the processor row by recursive doubling. */
static gboolean
xchg_l (PtiContext *ctx, const Cg *cg, const Rank *k, int r, guint64 bytes, GError **error)
{
  for (int i = 1; i <= cg->l2npcols; i++)
    if (!xchg (ctx, r, k->reduce_proc[i], bytes, bytes, i, error))
      return FALSE;
  return TRUE;
}

/* q = A.p (or A.z) summed over the processor row, then transposed. */
static gboolean
matvec (PtiContext *ctx, const Cg *cg, const Rank *k, int r, GError **error)
{
  PtiSymbols *sym = pti_context_get_symbols (ctx);
  if (!pti_use (ctx, r, cg->spmv, error))
    return FALSE;
  for (int i = cg->l2npcols; i >= 1; i--) {
    if (!xchg (ctx, r, k->reduce_proc[i], 8ull * k->reduce_send[i], 8ull * k->reduce_recv[i], i,
               error))
      return FALSE;
    pti_symbols_set (sym, cg->len, k->reduce_recv[i]);
    if (!pti_use (ctx, r, cg->reduce_add, error))
      return FALSE;
  }
  return cg->l2npcols == 0
         || xchg (ctx, r, k->exch_proc, 8ull * k->send_len, 8ull * k->nc, 1, error);
}

/* One outer iteration: conj_grad, then the norms and the new x. */
static gboolean
outer_iteration (PtiContext *ctx, const Cg *cg, const Rank *k, int r, GError **error)
{
  PtiSymbols *sym = pti_context_get_symbols (ctx);
  pti_symbols_set (sym, cg->nr, k->nr);
  pti_symbols_set (sym, cg->nc, k->nc);
  if (!pti_use (ctx, r, cg->init, error) || !pti_use (ctx, r, cg->dot_rr, error)
      || !xchg_l (ctx, cg, k, r, 8, error))
    return FALSE;
  for (int cgit = 1; cgit <= CGITMAX; cgit++)
    if (!matvec (ctx, cg, k, r, error)
        || !pti_use (ctx, r, cg->pq, error) || !xchg_l (ctx, cg, k, r, 8, error)
        || !pti_use (ctx, r, cg->update, error) || !xchg_l (ctx, cg, k, r, 8, error)
        || !pti_use (ctx, r, cg->p_update, error))
      return FALSE;
  return matvec (ctx, cg, k, r, error)
         && pti_use (ctx, r, cg->residual, error) && xchg_l (ctx, cg, k, r, 8, error)
         && pti_use (ctx, r, cg->norms, error) && xchg_l (ctx, cg, k, r, 16, error)
         && pti_use (ctx, r, cg->normalize, error);
}

/* Every rank's events, phase by phase (the bcast, the warm-up with the
 * barrier, each timed iteration, the reduce) rather than rank by rank: stage
 * 2 does not care, and a partial evaluation between phases can then free
 * them, so memory stays bounded by one iteration's events. */
static gboolean
emit (PtiContext *ctx, const Cg *cg, const Rank *ranks, int procs, int niter, int eval_mode,
      GError **error)
{
  for (int r = 0; r < procs; r++)                       /* timeron */
    if (!pti_mpi_bcast (ctx, r, 0, 4, error))
      return FALSE;
  for (int r = 0; r < procs; r++)                       /* the untimed warm-up, the barrier */
    if (!outer_iteration (ctx, cg, &ranks[r], r, error) || !pti_mpi_barrier (ctx, r, error))
      return FALSE;
  if (eval_mode == 1 && !pti_evaluate_partial (ctx, error))
    return FALSE;
  if (eval_mode == 2 && niter > 0) {
    for (int r = 0; r < procs; r++)
      if (!pti_repeat_begin (ctx, r, niter, error) || !outer_iteration (ctx, cg, &ranks[r], r, error)
          || !pti_repeat_end (ctx, r, error))
        return FALSE;
  } else {
    for (int it = 1; it <= niter; it++) {
      for (int r = 0; r < procs; r++)
        if (!outer_iteration (ctx, cg, &ranks[r], r, error))
          return FALSE;
      if (eval_mode == 1 && !pti_evaluate_partial (ctx, error))
        return FALSE;
    }
  }
  for (int r = 0; r < procs; r++)                       /* the maximum time, to rank 0 */
    if (!pti_mpi_reduce (ctx, r, 0, 8, error))
      return FALSE;
  return TRUE;
}

static gboolean
build (PtiContext *ctx, gpointer user_data, GError **error)
{
  double cls, na, nonzer, niter, procs, eval_mode;
  if (!param (ctx, "class", 1, 1, G_N_ELEMENTS (cg_classes), &cls, error))
    return FALSE;
  int c = (int) cls - 1;
  if (!param (ctx, "na", cg_classes[c].na, 1, G_MAXINT / 2, &na, error)
      || !param (ctx, "nonzer", cg_classes[c].nonzer, 0, 1e6, &nonzer, error)
      || !param (ctx, "niter", cg_classes[c].niter, 0, 1e9, &niter, error)
      || !param (ctx, "procs", 16, 1, 1u << 30, &procs, error)
      || !param (ctx, "eval_mode", 0, 0, 2, &eval_mode, error))
    return FALSE;
  int k = 0;
  while ((double) (1u << k) < procs)
    k++;
  if ((double) (1u << k) != procs) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "procs = %g is not a power of two (NAS CG runs on 2^k processes)", procs);
    return FALSE;
  }
  Cg cg = { .nprows = 1 << (k / 2), .npcols = 1 << ((k + 1) / 2), .l2npcols = (k + 1) / 2 };
  if (!pti_context_set_processes (ctx, (guint) procs, error)
      || !pti_context_set_param (ctx, "L", cg.l2npcols, error)
      || !pti_context_set_param (ctx, "nzrow", nonzer * (nonzer + 1), error)
      || !pti_context_set_param (ctx, "ws_cg",
                                 12 * nonzer * (nonzer + 1) * na / procs + 56 * (na + 2), error))
    return FALSE;

  PtiSymbols *sym = pti_context_get_symbols (ctx);
  cg.nr = pti_symbols_intern (sym, "nr");
  cg.nc = pti_symbols_intern (sym, "nc");
  cg.len = pti_symbols_intern (sym, "len");
  gboolean ok = (cg.init = pti_rud_new (ctx, "init", init_rud, error)) != NULL
                && (cg.dot_rr = pti_rud_new (ctx, "dot_rr", dot_rr_rud, error)) != NULL
                && (cg.spmv = pti_rud_new (ctx, "spmv", spmv_rud, error)) != NULL
                && (cg.reduce_add = pti_rud_new (ctx, "reduce_add", reduce_add_rud, error)) != NULL
                && (cg.pq = pti_rud_new (ctx, "pq", pq_rud, error)) != NULL
                && (cg.update = pti_rud_new (ctx, "update", update_rud, error)) != NULL
                && (cg.p_update = pti_rud_new (ctx, "p_update", p_update_rud, error)) != NULL
                && (cg.residual = pti_rud_new (ctx, "residual", residual_rud, error)) != NULL
                && (cg.norms = pti_rud_new (ctx, "norms", norms_rud, error)) != NULL
                && (cg.normalize = pti_rud_new (ctx, "normalize", normalize_rud, error)) != NULL;
  Rank *ranks = g_new (Rank, (gsize) procs);
  for (int r = 0; r < (int) procs; r++)
    setup_rank (&cg, (int) na, r, &ranks[r]);
  ok = ok && emit (ctx, &cg, ranks, (int) procs, (int) niter, (int) eval_mode, error);
  g_free (ranks);
  cg_clear (&cg);
  return ok;
}

int
main (int argc, char **argv)
{
  return pti_main (argc, argv, "cg", build, NULL);
}
