/* Fuzz target: the expression language (hmi/expr.c): compile, check and
 * evaluate with some names bound and one not.  Seeds: the attribute values
 * of the project's workload files. */
#include "fuzz.h"

#include <pti/expr.h>

#include <math.h>

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  fuzz_setup ();
  g_autofree char *text = fuzz_string (data, size);
  g_autoptr (PtiSymbols) symbols = pti_symbols_new ();
  static const struct { const char *name; double value; } bound[] = {
    { "rank", 3 }, { "nprocs", 16 }, { "n", 1000 }, { "x", 0.5 }, { "npe_i", 4 }, { "zero", 0 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bound); i++)
    pti_symbols_set (symbols, pti_symbols_intern (symbols, bound[i].name), bound[i].value);
  pti_symbols_intern (symbols, "unbound");
  g_autoptr (GError) error = NULL;
  PtiExpr *e = pti_expr_compile (text, symbols, &error);
  if (e == NULL) {
    fuzz_check_error (error);
    return 0;
  }
  double value, constant;
  (void) pti_expr_eval (e, symbols);
  if (!pti_expr_check (e, symbols, &value, &error))
    fuzz_check_error (error);
  if (pti_expr_is_constant (e, &constant) && error == NULL && !(isnan (value) && isnan (constant)))
    g_assert_cmpfloat (constant, ==, value);
  guint n = 0;
  const guint *slots = pti_expr_slots (e, &n);
  for (guint i = 0; i < n; i++)
    g_assert_cmpuint (slots[i], <, pti_symbols_count (symbols));
  g_assert_nonnull (pti_expr_text (e));
  pti_expr_free (e);
  return 0;
}
