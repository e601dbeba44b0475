/* Performance assertions on predictions (seed 000): a named test, an
 * expression over what the evaluation predicted (the time, each rank's
 * compute, communication and wait, messages and bytes, each phase's
 * figures) and the workload's parameters, checked once the evaluation is
 * done.
 *
 * A test is compiled when it is stated (syntax errors then), against a
 * symbol table of its own; its names are resolved after the evaluation,
 * when every phase is known.  The names (one definition, shared by the
 * summary, the JSON, the trace and the documentation in wsl/README.md):
 *
 *   time, ranks, events, efficiency (sum of compute / (ranks x time)),
 *   messages, bytes (sums over ranks);
 *   F_mean, F_max, F_min, F_sum, F_rankN for F in time (a rank's end),
 *   compute, comm, wait, messages, bytes, events;
 *   per phase P (an identifier): P_time (the longest any rank spent in
 *   it), P_compute, P_comm, P_wait (longest), P_messages, P_bytes (sums),
 *   P_entries (most entries of a rank), P_ranks (ranks that entered it),
 *   P_efficiency (compute in it / (P_ranks x P_time)), and
 *   P_F_mean|max|min|sum|rankN for F in time, compute, comm, wait,
 *   messages, bytes, entries (mean and min over the ranks that entered it);
 *   otherwise a parameter or derived value bound when the assertion was
 *   stated.
 * A name that could be read two ways (a parameter and a metric, or two
 * phases) is an error, as is a name that is none of them.
 *
 * Internal to libpti (the session owns one). */
#pragma once

#include <pti/hmi.h>
#include "engine.h"

G_BEGIN_DECLS

typedef struct _PtiAssertions PtiAssertions;

/* One assertion after the check.  Strings and arrays owned by the set. */
typedef struct {
  const char *name;
  const char *test;
  const char *origin;           /* "FILE:LINE" where it was stated, or NULL */
  gboolean passed;              /* the test's value is neither 0 nor NaN */
  guint n_values;
  const char *const *value_names;  /* the names the test reads, first use first */
  const double *values;
} PtiAssertionOutcome;

/* A phase over the ranks that entered it (what the summary, the JSON and
 * the trace show; P_time, P_messages, ... read the same figures). */
typedef struct {
  double time, compute, comm, wait;   /* s: the largest over the ranks */
  guint64 messages, bytes;            /* in all */
  guint64 entries;                    /* the most of a rank */
  guint ranks;                        /* that entered it */
} PtiPhaseTotals;
void pti_phase_totals (const PtiEngine *engine, guint phase, PtiPhaseTotals *out);

/* Parallel efficiency, the one definition every output uses: the compute
 * time of all ranks over ranks x predicted time, of the whole run
 * (@phase G_MAXUINT) or of one phase (its ranks, its longest time).  NaN
 * when no time passed: 0/0 says nothing, and an assertion on it fails. */
double pti_efficiency (const PtiEngine *engine, guint phase);

PtiAssertions *pti_assertions_new (void);
void pti_assertions_free (PtiAssertions *set);

/* States an assertion.  @name: non-empty, printable, unique in the set;
 * @test is compiled now; names bound in @params now (parameters, derived
 * values) keep their present value.  @origin (nullable) prefixes errors. */
gboolean pti_assertions_add (PtiAssertions *set, const char *name, const char *test,
                             const char *origin, const PtiSymbols *params, GError **error);
guint pti_assertions_count (const PtiAssertions *set);

/* Resolves every name against the evaluated @engine and checks each test.
 * FALSE with an error naming the assertion (and its origin) for a name
 * that is unknown, ambiguous or out of range; a failed test is not an
 * error (see the outcomes). */
gboolean pti_assertions_check (PtiAssertions *set, const PtiEngine *engine, GError **error);
/* After the check: the outcome of assertion @i (in the order stated). */
const PtiAssertionOutcome *pti_assertions_outcome (const PtiAssertions *set, guint i);
guint pti_assertions_failed (const PtiAssertions *set);

G_END_DECLS
