/* Sweep3D 2.2b as a C workload program: the same workload as sweep3d.xml,
 * call for call (its header comment gives the event structure), built on the
 * WSL API.  A test checks that both predict the same time with the same
 * number of events.
 *
 *   sweep3d [OPTIONS] SYSTEM.xml        (the options of ptieval: -D, -o, --json)
 *   sweep3d configs/pc_cluster.xml -D iterations=2
 *
 * Parameters (-D): npe_i, npe_j (process grid), it, jt, kt (per-rank grid),
 * mk (k-planes per block), mm (angles per octant), mmi (angles per block),
 * iterations, setup (0: the bare wavefront, without the set-up
 * broadcasts), and eval_mode, how the workload is given and evaluated (the
 * same prediction every way):
 *   0 rank by rank (the default): each rank's program is a function the
 *     evaluation runs as a coroutine, asking for its next device uses when
 *     it needs them, so memory is bounded by what is in flight;
 *   1 pushed phase by phase across ranks, with a partial evaluation after
 *     each iteration (the paper's partial evaluation);
 *   2 rank by rank, with the iterations as one block under analytical
 *     repetition (time nearly independent of the iteration count);
 *   3 pushed all at once, then evaluated (the paper's plain form). */
#include <pti/wsl.h>

#include <math.h>

/* The RUDs of sweep3d.xml, verbatim in substance, memory signatures
 * and chains included (see the comments there). */
static const char source_rud[] =
  "<rud device='cpu'>"
  " <loop iter='kt' type='clc' of='LFOR,CMLL,INLL'>"
  "  <loop iter='jt' type='clc' of='LFOR,CMLL,INLL'>"
  "   <loop iter='it' type='clc' of='LFOR,CMLL,INLL'>"
  "    <compute type='clc' of='4*MFDL,AFDL,9*TFDL,9*ARF4,2*ARF3'"
  "             bytes='40' written='40' working_set='112 * it * jt * kt' pattern='unit'/>"
  "   </loop></loop></loop></rud>";

static const char angle_setup_rud[] =
  "<rud device='cpu'>"
  " <loop iter='it * jt * mmi' type='clc' of='LFOR,CMLL,INLL' chain='AFDL'"
  "       bytes='8' working_set='8 * it * jt * mmi' pattern='unit'>"
  "  <compute type='clc' of='3*MFDL,AFDL,2*TFDL,2*ARF3,3*ARF1'/>"
  " </loop></rud>";

static const char block_rud[] =
  "<rud device='cpu'>"
  " <loop iter='jt + nk + mmi - 2' type='clc' of='LFOR,CMLL,INLL'>"
  "  <compute type='clc' of='2*AILL,2*CMLL,TILL'/>"
  "  <loop iter='mmi' type='clc' of='LFOR,CMLL,INLL'><compute type='clc' of='TILL,ARF1'/></loop>"
  " </loop>"
  " <loop iter='jt * nk * mmi' type='clc' of='LFOR,CMLL,INLL'"
  "       bytes='96 * it / mmi' working_set='112 * it * jt * kt' pattern='runs' run='8 * it'>"
  "  <compute type='clc' of='2*MFDL,3*TFDL,4*ARF1,2*ARF3,3*AILL,2*CMLL'"
  "           bytes='96 * it * (mmi - 1) / mmi' working_set='96 * it * mmi * min(nk, jt)'"
  "           pattern='unit'/>"
  "  <loop iter='it' type='clc' of='LFOR,CMLL,INLL'><compute type='clc' of='TFDL,ARF1,ARF4'/></loop>"
  "  <loop iter='3' type='clc' of='LFOR,CMLL,INLL'>"
  "   <loop iter='it' type='clc' of='LFOR,CMLL,INLL'>"
  "    <compute type='clc' of='MFDL,AFDL,TFDL,2*ARF1,ARF3,ARF4'/></loop></loop>"
  "  <loop iter='it' type='clc' of='LFOR,CMLL,INLL' chain='3*MFDL,4*AFDL'"
  "        bytes='16' working_set='8 * mmi * (mk + jt) * it' pattern='unit'>"
  "   <compute type='clc' of='8*MFDL,9*AFDL,DFDL,9*TFDL,9*ARF1,7*ARF3'/></loop>"
  "  <loop iter='it' type='clc' of='LFOR,CMLL,INLL'>"
  "   <compute type='clc' of='MFDL,AFDL,TFDL,2*ARF1,ARF4'/></loop>"
  "  <loop iter='3' type='clc' of='LFOR,CMLL,INLL'>"
  "   <loop iter='it' type='clc' of='LFOR,CMLL,INLL'>"
  "    <compute type='clc' of='2*MFDL,AFDL,TFDL,2*ARF1,ARF3,ARF4'/></loop></loop>"
  "  <loop iter='it' type='clc' of='LFOR,CMLL,INLL'>"
  "   <compute type='clc' of='3*MFDL,3*AFDL,3*TFDL,3*ARF1,3*ARF4'/></loop>"
  " </loop>"
  " <case type='clc' of='IFBR'><branch exprob='up_ew &lt; 0'>"
  "  <loop iter='jt * nk * mmi' type='clc' of='LFOR,CMLL,INLL'><compute type='clc' of='TFDL,ARF3'/></loop>"
  " </branch></case>"
  " <case type='clc' of='IFBR'><branch exprob='up_ns &lt; 0'>"
  "  <loop iter='it * nk * mmi' type='clc' of='LFOR,CMLL,INLL'><compute type='clc' of='TFDL,ARF3'/></loop>"
  " </branch></case>"
  " <case type='clc' of='IFBR'><branch exprob='dn_ew &lt; 0'>"
  "  <loop iter='jt * nk * mmi' type='clc' of='LFOR,CMLL,INLL' chain='AFDL'>"
  "   <compute type='clc' of='3*MFDL,AFDL,TFDL,ARF3,3*ARF1'/></loop>"
  " </branch></case>"
  " <case type='clc' of='IFBR'><branch exprob='dn_ns &lt; 0'>"
  "  <loop iter='it * nk * mmi' type='clc' of='LFOR,CMLL,INLL' chain='AFDL'>"
  "   <compute type='clc' of='3*MFDL,AFDL,TFDL,ARF3,3*ARF1'/></loop>"
  " </branch></case>"
  "</rud>";

static const char flux_err_rud[] =
  "<rud device='cpu'>"
  " <loop iter='kt' type='clc' of='LFOR,CMLL,INLL'>"
  "  <loop iter='jt' type='clc' of='LFOR,CMLL,INLL'>"
  "   <loop iter='it' type='clc' of='LFOR,CMLL,INLL'>"
  "    <compute type='clc' of='CMDL,IFBR,AFDL,DFDL,CMDL,CMDL,TFDL,2*ARF4'"
  "             bytes='16' working_set='112 * it * jt * kt' pattern='unit'/>"
  "   </loop></loop></loop></rud>";

static const char balance_rud[] =
  "<rud device='cpu'>"
  " <loop iter='kt' type='clc' of='LFOR,CMLL,INLL'>"
  "  <loop iter='jt' type='clc' of='LFOR,CMLL,INLL'>"
  "   <loop iter='it' type='clc' of='LFOR,CMLL,INLL' chain='AFDL'>"
  "    <compute type='clc' of='2*MFDL,4*AFDL,4*TFDL,3*ARF4,ARF3'"
  "             bytes='32' working_set='112 * it * jt * kt' pattern='unit'/>"
  "   </loop></loop></loop></rud>";

typedef struct {
  PtiRud *source, *angle_setup, *block, *flux_err, *balance;
  /* symbol slots the block RUD reads, bound before each use */
  guint nk, up_ew, up_ns, dn_ew, dn_ns;
} Sweep;

static void
sweep_clear (Sweep *s)
{
  g_clear_pointer (&s->source, pti_rud_unref);
  g_clear_pointer (&s->angle_setup, pti_rud_unref);
  g_clear_pointer (&s->block, pti_rud_unref);
  g_clear_pointer (&s->flux_err, pti_rud_unref);
  g_clear_pointer (&s->balance, pti_rud_unref);
}

/* Declare a parameter with its default and read back its value (after any
 * -D override), insisting on a whole number of at least @min: 1 for the
 * process grid and the divisors mk and mmi, 0 elsewhere (as sweep3d.xml,
 * where zero iterations or cells simply emit nothing). */
static gboolean
param (PtiContext *ctx, const char *name, double def, int min, int *out, GError **error)
{
  if (!pti_context_declare_param (ctx, name, def, error))
    return FALSE;
  double v = pti_context_get_param (ctx, name);
  if (!(v >= min && v <= 1e9 && v == floor (v))) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "sweep3d: parameter %s = %g must be a whole number >= %d", name, v, min);
    return FALSE;
  }
  *out = (int) v;
  return TRUE;
}

/* The problem, as every rank sees it. */
typedef struct {
  int npe_i, npe_j, it, jt, kt, mk, mmi, mmo, kb, iterations, eval_mode, setup;
} Problem;

/* Rank @r's neighbours; -1 where there is none. */
static void
neighbours (const Problem *pb, int r, int *east, int *west, int *north, int *south)
{
  int mype_i = r % pb->npe_i, mype_j = r / pb->npe_i;
  *east = mype_i < pb->npe_i - 1 ? r + 1 : -1;
  *west = mype_i > 0 ? r - 1 : -1;
  *north = mype_j < pb->npe_j - 1 ? r + pb->npe_i : -1;
  *south = mype_j > 0 ? r - pb->npe_i : -1;
}

static gboolean
emit_setup (PtiContext *ctx, const Problem *pb, int r, GError **error)
{
  int p = pb->npe_i * pb->npe_j;
  if (pb->setup
      && !(pti_mpi_bcast (ctx, r, 0, 4, error) && pti_mpi_bcast (ctx, r, 0, 4ull * p, error)
           && pti_mpi_barrier (ctx, r, error) && pti_mpi_bcast (ctx, r, 0, 64, error)
           && pti_mpi_bcast (ctx, r, 0, 32, error)))
    return FALSE;
  return pti_mpi_barrier (ctx, r, error) && pti_phase_begin (ctx, r, "sweep", error);
}

/* One iteration of rank @r: source, the sweep over 8 octants, the two global reductions. */
static gboolean
emit_iteration (PtiContext *ctx, Sweep *s, const Problem *pb, int r, GError **error)
{
  PtiSymbols *sym = pti_context_get_symbols (ctx);
  int east, west, north, south;
  neighbours (pb, r, &east, &west, &north, &south);
  guint64 bytes_ew = 8ull * pb->jt * pb->mk * pb->mmi, bytes_ns = 8ull * pb->it * pb->mk * pb->mmi;

  if (!pti_use (ctx, r, s->source, error))
    return FALSE;
  for (int iq = 1; iq <= 8; iq++) {
    int i2 = iq >= 5 ? 1 : -1;
    int j2 = ((iq - 1) / 2) % 2 == 1 ? 1 : -1;
    int up_ew = i2 > 0 ? west : east, dn_ew = i2 > 0 ? east : west;
    int up_ns = j2 > 0 ? south : north, dn_ns = j2 > 0 ? north : south;
    int tag_ew = i2 > 0 ? 1000 * iq : 3000 * iq;
    int tag_ns = j2 > 0 ? 2000 * iq : 4000 * iq;
    pti_symbols_set (sym, s->up_ew, up_ew);
    pti_symbols_set (sym, s->dn_ew, dn_ew);
    pti_symbols_set (sym, s->up_ns, up_ns);
    pti_symbols_set (sym, s->dn_ns, dn_ns);
    for (int mo = 1; mo <= pb->mmo; mo++) {
      if (!pti_use (ctx, r, s->angle_setup, error))
        return FALSE;
      for (int kk = 1; kk <= pb->kb; kk++) {
        pti_symbols_set (sym, s->nk, MIN (pb->mk, pb->kt - (kk - 1) * pb->mk));
        if (up_ew >= 0 && !pti_mpi_recv (ctx, r, up_ew, bytes_ew, tag_ew, error))
          return FALSE;
        if (up_ns >= 0 && !pti_mpi_recv (ctx, r, up_ns, bytes_ns, tag_ns, error))
          return FALSE;
        if (!pti_use (ctx, r, s->block, error))
          return FALSE;
        if (dn_ew >= 0 && !pti_mpi_send (ctx, r, dn_ew, bytes_ew, tag_ew, error))
          return FALSE;
        if (dn_ns >= 0 && !pti_mpi_send (ctx, r, dn_ns, bytes_ns, tag_ns, error))
          return FALSE;
      }
    }
  }
  return pti_mpi_allreduce (ctx, r, 4, error) && pti_use (ctx, r, s->flux_err, error)
         && pti_mpi_allreduce (ctx, r, 8, error);
}

/* The timed part is the phase "sweep": from the barrier after the set-up
 * to the barrier after the last iteration. */
static gboolean
emit_end (PtiContext *ctx, Sweep *s, int r, GError **error)
{
  if (!pti_mpi_barrier (ctx, r, error) || !pti_phase_end (ctx, r, "sweep", error)
      || !pti_use (ctx, r, s->balance, error))
    return FALSE;
  for (int n = 0; n < 8; n++)
    if (!pti_mpi_allreduce (ctx, r, 8, error))
      return FALSE;
  return TRUE;
}

/* Every rank's events pushed phase by phase (set-up, each iteration, the
 * end) rather than rank by rank: stage 2 does not care, and a partial
 * evaluation between phases (eval_mode 1) can then free them, so memory
 * stays bounded however many iterations there are. */
static gboolean
emit (PtiContext *ctx, Sweep *s, const Problem *pb, GError **error)
{
  int p = pb->npe_i * pb->npe_j;
  for (int r = 0; r < p; r++)
    if (!emit_setup (ctx, pb, r, error))
      return FALSE;
  for (int its = 1; its <= pb->iterations; its++) {
    for (int r = 0; r < p; r++)
      if (!emit_iteration (ctx, s, pb, r, error))
        return FALSE;
    if (pb->eval_mode == 1 && !pti_evaluate_partial (ctx, error))
      return FALSE;
  }
  for (int r = 0; r < p; r++)
    if (!emit_end (ctx, s, r, error))
      return FALSE;
  return TRUE;
}

/* The workload rank by rank (eval_mode 0 and 2): one rank's whole program,
 * which the evaluation runs as it needs its events. */
typedef struct {
  Sweep s;
  Problem pb;
} Program;

static gboolean
rank_program (PtiContext *ctx, guint rank, gpointer data, GError **error)
{
  Program *pr = data;
  int r = (int) rank;
  if (!emit_setup (ctx, &pr->pb, r, error))
    return FALSE;
  if (pr->pb.eval_mode == 2 && pr->pb.iterations > 0) {
    if (!pti_repeat_begin (ctx, rank, pr->pb.iterations, error)
        || !emit_iteration (ctx, &pr->s, &pr->pb, r, error) || !pti_repeat_end (ctx, rank, error))
      return FALSE;
  } else {
    for (int its = 1; its <= pr->pb.iterations; its++)
      if (!emit_iteration (ctx, &pr->s, &pr->pb, r, error))
        return FALSE;
  }
  return emit_end (ctx, &pr->s, r, error);
}

static void
program_free (gpointer data)
{
  Program *pr = data;
  sweep_clear (&pr->s);
  g_free (pr);
}

static gboolean
build (PtiContext *ctx, gpointer user_data, GError **error)
{
  int npe_i, npe_j, it, jt, kt, mk, mm, mmi, iterations, eval_mode, setup;
  if (!param (ctx, "npe_i", 4, 1, &npe_i, error) || !param (ctx, "npe_j", 4, 1, &npe_j, error)
      || !param (ctx, "it", 50, 0, &it, error) || !param (ctx, "jt", 50, 0, &jt, error)
      || !param (ctx, "kt", 200, 0, &kt, error) || !param (ctx, "mk", 10, 1, &mk, error)
      || !param (ctx, "mm", 6, 0, &mm, error) || !param (ctx, "mmi", 3, 1, &mmi, error)
      || !param (ctx, "iterations", 12, 0, &iterations, error)
      || !param (ctx, "setup", 1, 0, &setup, error)
      || !param (ctx, "eval_mode", 0, 0, &eval_mode, error))
    return FALSE;
  if (eval_mode > 3) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "sweep3d: eval_mode = %d: 0 (rank by rank), 1 (pushed, partial evaluation), "
                 "2 (rank by rank, repetition) or 3 (pushed all at once)", eval_mode);
    return FALSE;
  }
  if (mm % mmi != 0) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "sweep3d: mmi = %d must divide mm = %d (angles per block)", mmi, mm);
    return FALSE;
  }
  int mmo = mm / mmi, kb = (kt + mk - 1) / mk;
  if (!pti_context_set_processes (ctx, (guint) (npe_i * npe_j), error))
    return FALSE;
  /* The performance assertions of sweep3d.xml (which explains them); they
   * read the derived values mmo and kb as parameters. */
  if (!pti_context_set_param (ctx, "mmo", mmo, error) || !pti_context_set_param (ctx, "kb", kb, error)
      || !pti_assert (ctx, "sweep_efficiency", "sweep_efficiency > 0.6", error)
      || !pti_assert (ctx, "sweep_messages", "sweep_messages >= iterations * 8 * mmo * kb * "
                      "(npe_i * (npe_j - 1) + npe_j * (npe_i - 1))", error))
    return FALSE;

  Program *pr = g_new0 (Program, 1);
  Sweep *s = &pr->s;
  PtiSymbols *sym = pti_context_get_symbols (ctx);
  s->nk = pti_symbols_intern (sym, "nk");
  s->up_ew = pti_symbols_intern (sym, "up_ew");
  s->up_ns = pti_symbols_intern (sym, "up_ns");
  s->dn_ew = pti_symbols_intern (sym, "dn_ew");
  s->dn_ns = pti_symbols_intern (sym, "dn_ns");
  gboolean ok = (s->source = pti_rud_new (ctx, "source", source_rud, error)) != NULL
                && (s->angle_setup = pti_rud_new (ctx, "angle_setup", angle_setup_rud, error)) != NULL
                && (s->block = pti_rud_new (ctx, "block", block_rud, error)) != NULL
                && (s->flux_err = pti_rud_new (ctx, "flux_err", flux_err_rud, error)) != NULL
                && (s->balance = pti_rud_new (ctx, "balance", balance_rud, error)) != NULL;
  pr->pb = (Problem) { npe_i, npe_j, it, jt, kt, mk, mmi, mmo, kb, iterations, eval_mode,
                       setup != 0 };
  if (ok && (eval_mode == 0 || eval_mode == 2))
    return pti_context_set_rank_program (ctx, rank_program, pr, program_free, error)
           || (program_free (pr), FALSE);
  ok = ok && emit (ctx, s, &pr->pb, error);
  program_free (pr);
  return ok;
}

int
main (int argc, char **argv)
{
  return pti_main (argc, argv, "sweep3d", build, NULL);
}
