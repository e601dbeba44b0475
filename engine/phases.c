/* Phases: named regions of the ranks' programs, and what each rank does
 * inside them (time, compute, communication, wait, messages and bytes
 * sent), for performance assertions (seed 000: "a phase below 2 s").
 *
 * A rank entering a phase remembers where it stood (an entry on its phase
 * stack); leaving, it adds the difference to the phase's figures for that
 * rank.  Phases nest; a phase entered several times (inside a loop) adds
 * every entry. */
#include "core-private.h"
#include "digest-private.h"

#include <string.h>

/* Figures kept per phase and rank, in this order. */
enum { F_TIME, F_COMPUTE, F_COMM, F_WAIT, F_MESSAGES, F_BYTES, F_ENTRIES, N_FIGURES };

typedef struct {
  double *figures;       /* n_procs x N_FIGURES */
} Phase;

/* Where a rank stood when it entered a phase. */
typedef struct {
  guint32 phase;
  guint64 serial;        /* the rank's how-many-th entry into any phase */
  double clock, compute, comm, wait, sent, bytes;
} Entry;

static Phase *
phase_of (PtiEngine *e, guint phase)
{
  if (e->phases == NULL)
    e->phases = g_array_new (FALSE, TRUE, sizeof (Phase));
  if (phase >= e->phases->len)
    g_array_set_size (e->phases, phase + 1);
  Phase *ph = &g_array_index (e->phases, Phase, phase);
  if (ph->figures == NULL)
    ph->figures = g_new0 (double, (gsize) e->n_procs * N_FIGURES);
  return ph;
}

void
pti_phase_on_marker (PtiEngine *e, guint rank, const Op *op)
{
  Proc *p = &e->procs[rank];
  Entry *stack = (Entry *) p->phase_stack;
  if (op->kind == PTI_OP_PHASE_BEGIN) {
    if (p->in_phases == p->cap_phases) {
      p->cap_phases = MAX (4, 2 * p->cap_phases);
      p->phase_stack = g_renew (Entry, p->phase_stack, p->cap_phases);
      stack = (Entry *) p->phase_stack;
    }
    phase_of (e, op->peer);
    stack[p->in_phases++] = (Entry) { op->peer, p->phase_serial++, p->clock, p->compute,
                                      p->comm, p->wait, (double) p->sent,
                                      (double) p->sent_bytes };
    return;
  }
  const Entry *en = &stack[--p->in_phases];
  double *f = phase_of (e, en->phase)->figures + (gsize) rank * N_FIGURES;
  f[F_TIME] += p->clock - en->clock;
  f[F_COMPUTE] += p->compute - en->compute;
  f[F_COMM] += p->comm - en->comm;
  f[F_WAIT] += p->wait - en->wait;
  f[F_MESSAGES] += (double) p->sent - en->sent;
  f[F_BYTES] += (double) p->sent_bytes - en->bytes;
  f[F_ENTRIES] += 1;
}

gboolean
pti_engine_phase_figures (const PtiEngine *e, guint phase, guint rank, PtiPhaseFigures *out)
{
  if (phase >= pti_engine_n_phases (e) || rank >= e->n_procs)
    return FALSE;
  const Phase *ph = e->phases && phase < e->phases->len
                    ? &g_array_index (e->phases, Phase, phase) : NULL;
  if (ph == NULL || ph->figures == NULL) {
    *out = (PtiPhaseFigures) { 0 };
    return TRUE;
  }
  const double *f = ph->figures + (gsize) rank * N_FIGURES;
  *out = (PtiPhaseFigures) { f[F_TIME], f[F_COMPUTE], f[F_COMM], f[F_WAIT],
                             (guint64) f[F_MESSAGES], (guint64) f[F_BYTES],
                             (guint64) f[F_ENTRIES] };
  return TRUE;
}

void
pti_engine_sent (const PtiEngine *e, guint rank, guint64 *messages, guint64 *bytes)
{
  *messages = e->procs[rank].sent;
  *bytes = e->procs[rank].sent_bytes;
}

void
pti_phases_free (PtiEngine *e)
{
  for (guint i = 0; e->phases != NULL && i < e->phases->len; i++)
    g_free (g_array_index (e->phases, Phase, i).figures);
  if (e->phases != NULL)
    g_array_unref (e->phases);
  if (e->phase_names != NULL)
    g_ptr_array_unref (e->phase_names);
  if (e->phase_ids != NULL)
    g_hash_table_unref (e->phase_ids);
  for (guint r = 0; r < e->n_procs; r++) {
    g_free (e->procs[r].phase_stack);
    g_free (e->procs[r].open_phase_ids);
  }
}

/* ---- names, and appending markers ------------------------------------------ */

guint
pti_engine_phase_intern (PtiEngine *e, const char *name)
{
  if (e->phase_ids == NULL) {
    e->phase_ids = g_hash_table_new (g_str_hash, g_str_equal);
    e->phase_names = g_ptr_array_new_with_free_func (g_free);
  }
  gpointer id = g_hash_table_lookup (e->phase_ids, name);
  if (id != NULL)
    return GPOINTER_TO_UINT (id) - 1;
  char *copy = g_strdup (name);
  g_ptr_array_add (e->phase_names, copy);
  g_hash_table_insert (e->phase_ids, copy, GUINT_TO_POINTER (e->phase_names->len));
  return e->phase_names->len - 1;
}

guint
pti_engine_n_phases (const PtiEngine *e)
{
  return e->phase_names ? e->phase_names->len : 0;
}

const char *
pti_engine_phase_name (const PtiEngine *e, guint phase)
{
  return phase < pti_engine_n_phases (e) ? g_ptr_array_index (e->phase_names, phase) : NULL;
}

gboolean
pti_engine_phase_lookup (const PtiEngine *e, const char *name, guint *phase)
{
  gpointer id = e->phase_ids ? g_hash_table_lookup (e->phase_ids, name) : NULL;
  if (id == NULL)
    return FALSE;
  *phase = GPOINTER_TO_UINT (id) - 1;
  return TRUE;
}

void
pti_engine_add_phase_begin (PtiEngine *e, guint rank, guint phase)
{
  Proc *p = &e->procs[rank];
  /* Room for the next one whenever the count reaches a power of 2. */
  if ((p->open_phases & (p->open_phases - 1)) == 0)
    p->open_phase_ids = g_renew (guint32, p->open_phase_ids, MAX (2, 2 * p->open_phases));
  p->open_phase_ids[p->open_phases++] = phase;
  Op *op = pti_proc_append_op (e, p);
  op->kind = PTI_OP_PHASE_BEGIN;
  op->peer = phase;
}

gboolean
pti_engine_add_phase_end (PtiEngine *e, guint rank, guint phase, GError **error)
{
  Proc *p = &e->procs[rank];
  if (p->open_phases == 0 || (p->open_repeat && p->open_phases == p->phases_at_repeat)) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 p->open_phases == 0 ? "rank %u: the end of phase '%s', which it is not in"
                                     : "rank %u: the end of phase '%s' inside a repeated block "
                                       "that began inside the phase (a phase begun outside a "
                                       "block ends outside it)",
                 rank, pti_engine_phase_name (e, phase));
    return FALSE;
  }
  guint32 inner = p->open_phase_ids[p->open_phases - 1];
  if (inner != phase) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "rank %u: the end of phase '%s' inside phase '%s' (phases nest: '%s' ends "
                 "first)", rank, pti_engine_phase_name (e, phase),
                 pti_engine_phase_name (e, inner), pti_engine_phase_name (e, inner));
    return FALSE;
  }
  p->open_phases--;
  Op *op = pti_proc_append_op (e, p);
  op->kind = PTI_OP_PHASE_END;
  op->peer = phase;
  return TRUE;
}

void
pti_phases_repeat_begin (PtiEngine *e, guint rank)
{
  e->procs[rank].phases_at_repeat = e->procs[rank].open_phases;
}

gboolean
pti_phases_repeat_end (PtiEngine *e, guint rank, GError **error)
{
  Proc *p = &e->procs[rank];
  if (p->open_phases > p->phases_at_repeat) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "rank %u: a repeated block ends inside phase '%s', which began in it (a "
                 "phase begun inside a block ends inside it)", rank,
                 pti_engine_phase_name (e, p->open_phase_ids[p->open_phases - 1]));
    return FALSE;
  }
  return TRUE;
}

gboolean
pti_phases_check_complete (PtiEngine *e, guint rank, GError **error)
{
  Proc *p = &e->procs[rank];
  if (p->open_phases > 0) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "rank %u: phase '%s' is begun and never ended", rank,
                 pti_engine_phase_name (e, p->open_phase_ids[p->open_phases - 1]));
    return FALSE;
  }
  return TRUE;
}

/* ---- analytical repetition ------------------------------------------------ */

guint
pti_phases_width (const PtiEngine *e)
{
  return e->phases ? e->phases->len * N_FIGURES : 0;
}

void
pti_phases_save (const PtiEngine *e, guint rank, double *out)
{
  for (guint i = 0; e->phases != NULL && i < e->phases->len; i++) {
    const Phase *ph = &g_array_index (e->phases, Phase, i);
    double *o = out + i * N_FIGURES;
    if (ph->figures != NULL)
      memcpy (o, ph->figures + (gsize) rank * N_FIGURES, N_FIGURES * sizeof (double));
    else
      memset (o, 0, N_FIGURES * sizeof (double));
  }
}

/* Derived repetitions: the phases the rank entered and left in them add
 * @times the period's increments (@after - @before, as saved; phases
 * first entered within the period were zero before). */
void
pti_phases_add (PtiEngine *e, guint rank, const double *before, guint before_width,
                const double *after, double times)
{
  for (guint i = 0; e->phases != NULL && i < e->phases->len; i++) {
    Phase *ph = &g_array_index (e->phases, Phase, i);
    if (ph->figures == NULL)
      continue;
    double *f = ph->figures + (gsize) rank * N_FIGURES;
    for (guint k = 0; k < N_FIGURES; k++) {
      guint at = i * N_FIGURES + k;
      f[k] += times * (after[at] - (at < before_width ? before[at] : 0));
    }
  }
}

/* ... and a phase the rank is in now, entered within the period (its
 * entry's serial at least @serial_from), was entered @dt later than it
 * was, after @times more of the period's increments @delta (compute, comm,
 * wait, messages, bytes).  Phases entered earlier span the derived time,
 * and leaving them counts it. */
void
pti_phases_shift_open (PtiEngine *e, guint rank, guint64 serial_from, double dt,
                       const double delta[5], double times)
{
  Proc *p = &e->procs[rank];
  Entry *stack = (Entry *) p->phase_stack;
  for (guint i = 0; i < p->in_phases; i++) {
    Entry *en = &stack[i];
    if (en->serial < serial_from)
      continue;
    en->clock += dt;
    en->compute += times * delta[0];
    en->comm += times * delta[1];
    en->wait += times * delta[2];
    en->sent += times * delta[3];
    en->bytes += times * delta[4];
  }
}

/* The phases @rank is in, innermost last, for the state digest: which
 * phases, not when it entered them (that decides no future event). */
void
pti_phases_digest (const PtiEngine *e, guint rank, PtiDigest *d)
{
  const Proc *p = &e->procs[rank];
  const Entry *stack = (const Entry *) p->phase_stack;
  pti_digest_add_int (d, p->in_phases);
  for (guint i = 0; i < p->in_phases; i++)
    pti_digest_add_int (d, stack[i].phase);
}
