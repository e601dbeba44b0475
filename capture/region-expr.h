/* The expression language of pti/expr.h, without GLib, for the region
 * library that runs inside the user's MPI program (region.c).  Same grammar,
 * operators, functions and NaN rules; tests/region/expr-same.c runs one
 * table of cases through both and requires the same values and the same
 * accepted and refused texts.  A tree compiled once, evaluated without
 * allocating. */
#pragma once

#include <stddef.h>

typedef struct PtiRxExpr PtiRxExpr;

/* Returns the slot of a name (text @name, @len bytes), or -1 to refuse it
 * (the callback writes why into @why, @why_len bytes). */
typedef int (*PtiRxInternFunc) (const char *name, size_t len, void *data, char *why,
                                size_t why_len);

/* NULL on error, with a message quoting @text and the column in @err. */
PtiRxExpr *pti_rx_compile (const char *text, PtiRxInternFunc intern, void *data, char *err,
                           size_t err_len);
double pti_rx_eval (const PtiRxExpr *e, const double *slots);
/* The slots @e reads, first use first. */
int pti_rx_n_slots (const PtiRxExpr *e);
const int *pti_rx_slots (const PtiRxExpr *e);
void pti_rx_free (PtiRxExpr *e);
