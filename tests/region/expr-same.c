/* The region library's expression evaluator (capture/region-expr.c, no
 * GLib) against pti's (pti/expr.h) on one table of cases: both must accept
 * and refuse the same texts and give the same values (NaN for NaN).  TAP. */
#include <pti/hmi.h>

#include "region-expr.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const names[] = { "a", "b", "n", "zero", "unbound" };
static const double values[] = { 3, -2.5, 1000, 0, NAN };

static int
rx_intern (const char *name, size_t len, void *data, char *why, size_t why_len)
{
  (void) data;
  for (int i = 0; i < 5; i++)
    if (strlen (names[i]) == len && strncmp (names[i], name, len) == 0)
      return i;
  snprintf (why, why_len, "unknown name");
  return -1;
}

static const char *const cases[] = {
  "1", "1 + 2 * 3", "(1 + 2) * 3", "2 ^ 3 ^ 2", "-2 ^ 2", "2 ^ -1", "a - b - 1", "a / b",
  "7 % 3", "-7 % 3", "7 % -3", "-7.5 % 2", "a % 0", "1 / zero", "-1 / zero", "zero / zero",
  "a < b", "a <= 3", "a > b", "a >= 4", "a == 3", "a != 3", "1 < 2 < 3", "3 > 2 > 1",
  "!a", "!zero", "!!b", "a && b", "a && zero", "zero && unbound", "zero || a", "zero || zero",
  "unbound || 1", "unbound && 0", "a ? b : n", "zero ? b : n", "unbound ? 1 : 2", "a ? b ? 1 : 2 : 3",
  "min(a, b, n)", "max(a)", "max(a, unbound)", "floor(b)", "ceil(b)", "round(2.5)", "round(-2.5)",
  "abs(b)", "log2(n)", "sqrt(a)", "sqrt(b)", "pow(2, 10)", "idiv(7, 2)", "idiv(-7, 2)",
  "1e3 + 2.5e-1", ".5 * 4", "n * n * n * n * n * n * n", "unbound + 1", "unbound == unbound",
  "+a", "- -a", "a*(b+1)/(n-1)", "1 ? 2 : unbound", " 1 +\t2 ",
  /* refused by both */
  "", "1 +", "(1", "1)", "a b", "foo(1)", "min()", "pow(1)", "sqrt(1, 2)", "1e", "1.2.3",
  "3x", "a ? 1", "$", "c + 1", "1 +* 2", "floor", "a ==", "=1", "1 & 2", "1 | 2",
};

int
main (void)
{
  int n = 0, failed = 0;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const char *text = cases[i];
    /* pti: every name but the five is refused too (for the comparison) */
    g_autoptr (PtiSymbols) sym = pti_symbols_new ();
    for (int k = 0; k < 5; k++)
      pti_symbols_set (sym, pti_symbols_intern (sym, names[k]), values[k]);
    guint before = pti_symbols_count (sym);
    g_autoptr (GError) err = NULL;
    g_autoptr (PtiExpr) e = pti_expr_compile (text, sym, &err);
    gboolean pti_ok = e != NULL && pti_symbols_count (sym) == before;
    double pv = pti_ok ? pti_expr_eval (e, sym) : NAN;
    char rerr[256];
    PtiRxExpr *x = pti_rx_compile (text, rx_intern, NULL, rerr, sizeof rerr);
    double rv = x ? pti_rx_eval (x, values) : NAN;
    int same = (pti_ok == (x != NULL))
               && (!pti_ok || (isnan (pv) && isnan (rv)) || pv == rv);
    n++;
    if (!same)
      failed++;
    printf ("%sok %d - '%s': pti %s %.17g, region %s %.17g\n", same ? "" : "not ", n, text,
            pti_ok ? "accepts" : "refuses", pv, x ? "accepts" : "refuses", rv);
    pti_rx_free (x);
  }
  printf ("1..%d\n", n);
  return failed != 0;
}
