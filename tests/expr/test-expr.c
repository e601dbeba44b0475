/* Unit tests for pti expressions and symbol tables (hmi/expr.c). */
#include <pti/hmi.h>

#include <math.h>
#include <string.h>

/* Compiles @text against @sym (asserting success) and evaluates it. */
static double
ev (PtiSymbols *sym, const char *text)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (PtiExpr) e = pti_expr_compile (text, sym, &error);
  g_assert_no_error (error);
  g_assert_nonnull (e);
  g_assert_cmpstr (pti_expr_text (e), ==, text);
  return pti_expr_eval (e, sym);
}

/* Evaluates a constant expression: it must also be detected as constant. */
static double
evc (const char *text)
{
  g_autoptr (PtiSymbols) sym = pti_symbols_new ();
  g_autoptr (GError) error = NULL;
  g_autoptr (PtiExpr) e = pti_expr_compile (text, sym, &error);
  g_assert_no_error (error);
  double k = NAN;
  g_assert_true (pti_expr_is_constant (e, &k));
  double v = pti_expr_eval (e, sym);
  g_assert_true ((isnan (k) && isnan (v)) || k == v);
  return v;
}

#define assert_val(text, expected) g_assert_cmpfloat_with_epsilon (evc (text), (expected), 1e-12)

/* Compile error: the message must contain every given fragment. */
static void
assert_compile_error (const char *text, const char *frag1, const char *frag2)
{
  g_autoptr (PtiSymbols) sym = pti_symbols_new ();
  g_autoptr (GError) error = NULL;
  g_autoptr (PtiExpr) e = pti_expr_compile (text, sym, &error);
  g_assert_null (e);
  g_assert_error (error, PTI_ERROR, PTI_ERROR_INVALID);
  g_autofree char *quoted = g_strdup_printf ("in expression '%s'", text);
  if (strstr (error->message, quoted) == NULL || strstr (error->message, frag1) == NULL
      || (frag2 != NULL && strstr (error->message, frag2) == NULL))
    g_error ("for '%s' got message \"%s\", wanted \"%s\" and \"%s\"",
             text, error->message, frag1, frag2 ? frag2 : "");
}

static void
test_numbers (void)
{
  assert_val ("12", 12);
  assert_val ("1.5", 1.5);
  assert_val ("2e-3", 2e-3);
  assert_val ("2E+3", 2000);
  assert_val (".25", 0.25);
  assert_val ("  7  ", 7);
  assert_val ("3.", 3);
}

static void
test_precedence (void)
{
  assert_val ("1 + 2 * 3", 7);
  assert_val ("(1 + 2) * 3", 9);
  assert_val ("2 * 3 ^ 2", 18);
  assert_val ("-2 ^ 2", -4);         /* unary minus binds looser than ^ */
  assert_val ("2 ^ -1", 0.5);
  assert_val ("1 + 2 < 4", 1);       /* + before < */
  assert_val ("1 < 2 == 1", 1);      /* (1<2)==1, comparisons share a level */
  assert_val ("1 || 0 && 0", 1);     /* && before || */
  assert_val ("0 && 1 || 1", 1);
  assert_val ("1 ? 2 : 3 + 10", 2);  /* ?: is the lowest */
  assert_val ("10 - 4 % 3", 9);
  assert_val ("!0 + 1", 2);          /* ! is unary */
  assert_val ("-(3)", -3);
  assert_val ("+4", 4);
  assert_val ("--4", 4);
}

static void
test_associativity (void)
{
  assert_val ("10 - 3 - 2", 5);
  assert_val ("64 / 4 / 2", 8);
  assert_val ("2 ^ 3 ^ 2", 512);     /* right-associative */
  assert_val ("100 % 7 % 3", 2);     /* (100%7)%3 = 2%3 */
  assert_val ("3 > 2 > 1", 0);       /* (3>2)>1 = 1>1 */
  assert_val ("0 ? 1 : 0 ? 2 : 3", 3);
  assert_val ("1 ? 0 ? 5 : 6 : 7", 6);
}

static void
test_modulo (void)
{
  assert_val ("7 % 3", 1);
  assert_val ("-7 % 3", 2);
  assert_val ("7 % -3", -2);
  assert_val ("-7 % -3", -1);
  assert_val ("6 % 3", 0);
  assert_val ("-6 % 3", 0);
  assert_val ("5.5 % 2", 1.5);
  assert_val ("-0.5 % 2", 1.5);

  /* (rank - 1) % P stays in 0..P-1 */
  g_autoptr (PtiSymbols) sym = pti_symbols_new ();
  guint rank = pti_symbols_intern (sym, "rank");
  guint P = pti_symbols_intern (sym, "P");
  pti_symbols_set (sym, P, 4);
  g_autoptr (PtiExpr) e = pti_expr_compile ("(rank - 1) % P", sym, NULL);
  const double expect[] = { 3, 0, 1, 2 };
  for (int r = 0; r < 4; r++)
    {
      pti_symbols_set (sym, rank, r);
      g_assert_cmpfloat (pti_expr_eval (e, sym), ==, expect[r]);
    }
  g_assert_true (isnan (evc ("1 % 0")));
}

static void
test_functions (void)
{
  assert_val ("min(3, 1, 2)", 1);
  assert_val ("max(3, 1, 2)", 3);
  assert_val ("min(5)", 5);
  assert_val ("max(-1, -2)", -1);
  assert_val ("floor(2.7)", 2);
  assert_val ("floor(-2.5)", -3);
  assert_val ("ceil(2.1)", 3);
  assert_val ("ceil(-2.5)", -2);
  assert_val ("ceil(200 / 10)", 20);
  assert_val ("ceil(205 / 10)", 21);
  assert_val ("round(2.5)", 3);
  assert_val ("round(-2.5)", -3);
  assert_val ("round(2.4)", 2);
  assert_val ("abs(-3.5)", 3.5);
  assert_val ("abs(2)", 2);
  assert_val ("log2(1024)", 10);
  assert_val ("sqrt(16)", 4);
  assert_val ("pow(2, 10)", 1024);
  assert_val ("pow(9, 0.5)", 3);
  assert_val ("idiv(7, 2)", 3);
  assert_val ("idiv(-7, 2)", -4);
  assert_val ("idiv(7, -2)", -4);
  assert_val ("max(min(4, 9), 2) * 2", 8);
  assert_val ("min(1 + 1, 3 ? 5 : 6)", 2);
  assert_val ("floor ( 3.5 )", 3);

  /* with variables, not folded */
  g_autoptr (PtiSymbols) sym = pti_symbols_new ();
  pti_symbols_set (sym, pti_symbols_intern (sym, "mk"), 10);
  pti_symbols_set (sym, pti_symbols_intern (sym, "kt"), 205);
  pti_symbols_set (sym, pti_symbols_intern (sym, "kk"), 21);
  g_assert_cmpfloat (ev (sym, "min(mk, kt - (kk - 1) * mk)"), ==, 5);
  g_assert_cmpfloat (ev (sym, "max(mk, kt, kk)"), ==, 205);
  g_assert_cmpfloat (ev (sym, "min(mk, kt, kk)"), ==, 10);
  g_assert_cmpfloat (ev (sym, "ceil(kt / mk)"), ==, 21);
  g_assert_cmpfloat (ev (sym, "idiv(kt, mk)"), ==, 20);
  g_assert_cmpfloat (ev (sym, "pow(mk, 2) + sqrt(mk * 10) + log2(mk - 2)"), ==, 113);
  g_assert_cmpfloat (ev (sym, "abs(mk - kt) + round(kk / 2) + floor(kk / 2)"), ==, 195 + 11 + 10);
  g_assert_cmpfloat (ev (sym, "kt % mk"), ==, 5);
}

static void
test_comparisons_logic (void)
{
  assert_val ("1 < 2", 1);
  assert_val ("2 < 1", 0);
  assert_val ("2 <= 2", 1);
  assert_val ("3 <= 2", 0);
  assert_val ("3 > 2", 1);
  assert_val ("2 > 2", 0);
  assert_val ("2 >= 2", 1);
  assert_val ("1 >= 2", 0);
  assert_val ("2 == 2", 1);
  assert_val ("2 == 3", 0);
  assert_val ("2 != 3", 1);
  assert_val ("2 != 2", 0);
  assert_val ("!0", 1);
  assert_val ("!5", 0);
  assert_val ("!!5", 1);
  assert_val ("!(1 != 1)", 1);
  assert_val ("2 && 3", 1);           /* logical results are 0 or 1 */
  assert_val ("2 && 0", 0);
  assert_val ("0 || 0", 0);
  assert_val ("0 || 7", 1);
  assert_val ("7 || 0", 1);
  assert_val ("1 ? 10 : 20", 10);
  assert_val ("0 ? 10 : 20", 20);
  assert_val ("-1 ? 10 : 20", 10);

  g_autoptr (PtiSymbols) sym = pti_symbols_new ();
  guint a = pti_symbols_intern (sym, "a"), b = pti_symbols_intern (sym, "b");
  g_autoptr (PtiExpr) and = pti_expr_compile ("a && b", sym, NULL);
  g_autoptr (PtiExpr) or = pti_expr_compile ("a || b", sym, NULL);
  g_autoptr (PtiExpr) cond = pti_expr_compile ("a > 0 ? a * 10 : b - 1", sym, NULL);
  g_autoptr (PtiExpr) cmp = pti_expr_compile ("(a < b) + (a <= b) * 2 + (a == b) * 4 + (a != b) * 8 + (a > b) * 16 + (a >= b) * 32", sym, NULL);
  const double tt[][2] = { { 0, 0 }, { 0, 3 }, { 2, 0 }, { 2, 3 } };
  for (guint i = 0; i < G_N_ELEMENTS (tt); i++)
    {
      pti_symbols_set (sym, a, tt[i][0]);
      pti_symbols_set (sym, b, tt[i][1]);
      g_assert_cmpfloat (pti_expr_eval (and, sym), ==, (tt[i][0] != 0 && tt[i][1] != 0));
      g_assert_cmpfloat (pti_expr_eval (or, sym), ==, (tt[i][0] != 0 || tt[i][1] != 0));
      g_assert_cmpfloat (pti_expr_eval (cond, sym), ==, tt[i][0] > 0 ? tt[i][0] * 10 : tt[i][1] - 1);
    }
  pti_symbols_set (sym, a, 1);
  pti_symbols_set (sym, b, 2);
  g_assert_cmpfloat (pti_expr_eval (cmp, sym), ==, 1 + 2 + 8);
  pti_symbols_set (sym, a, 2);
  g_assert_cmpfloat (pti_expr_eval (cmp, sym), ==, 2 + 4 + 32);
  pti_symbols_set (sym, a, 3);
  g_assert_cmpfloat (pti_expr_eval (cmp, sym), ==, 8 + 16 + 32);
}

static void
test_short_circuit (void)
{
  g_autoptr (PtiSymbols) sym = pti_symbols_new ();
  guint z = pti_symbols_intern (sym, "z");
  guint one = pti_symbols_intern (sym, "one");
  pti_symbols_set (sym, z, 0);
  pti_symbols_set (sym, one, 1);

  struct { const char *text; double value; } cases[] = {
    { "0 && (1/0)", 0 },
    { "z && (1/z)", 0 },
    { "z && (1/0)", 0 },
    { "one || (1/z)", 1 },
    { "one || sqrt(-1)", 1 },
    { "z ? 1/z : 5", 5 },
    { "one ? 5 : 1/z", 5 },
    { "z && unknown_one", 0 },      /* the unbound name is never read */
    { "one || unknown_two", 1 },
    { "one ? 3 : unknown_three", 3 },
    { "z ? unknown_four : 4", 4 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (PtiExpr) e = pti_expr_compile (cases[i].text, sym, &error);
      g_assert_no_error (error);
      double v = pti_expr_eval (e, sym);
      g_assert_true (isfinite (v));
      g_assert_cmpfloat (v, ==, cases[i].value);
      double c = -1;
      g_assert_true (pti_expr_check (e, sym, &c, &error));
      g_assert_no_error (error);
      g_assert_cmpfloat (c, ==, cases[i].value);
    }
  /* the short-circuit folds away entirely with a constant left operand */
  g_assert_cmpfloat (evc ("0 && (1/0)"), ==, 0);
  g_assert_cmpfloat (evc ("1 || (1/0)"), ==, 1);
  /* and the other side is evaluated when needed */
  g_assert_cmpfloat (ev (sym, "one && 1/z"), ==, 1);   /* bool(inf) */
  g_assert_cmpfloat (ev (sym, "one ? 1/z : 0"), ==, INFINITY);
}

static void
test_unbound (void)
{
  g_autoptr (PtiSymbols) sym = pti_symbols_new ();
  guint npe_i = pti_symbols_intern (sym, "npe_i");
  pti_symbols_set (sym, npe_i, 4);

  struct { const char *text; const char *name; } cases[] = {
    { "npe_k*2", "npe_k" },
    { "npe_i * npe_j + npe_k", "npe_j" },
    { "npe_i > 0 ? npe_k : npe_j", "npe_k" },
    { "npe_i < 0 ? npe_k : npe_j", "npe_j" },
    { "min(npe_i, npe_q)", "npe_q" },
    { "npe_w < 3", "npe_w" },
    { "npe_w && 1", "npe_w" },
    { "0 || npe_w", "npe_w" },
    { "!npe_w", "npe_w" },
    { "pow(npe_w, 0)", "npe_w" },
    { "npe_w ? 1 : 1", "npe_w" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (PtiExpr) e = pti_expr_compile (cases[i].text, sym, &error);
      g_assert_no_error (error);
      g_assert_false (pti_expr_is_constant (e, NULL));
      g_assert_true (isnan (pti_expr_eval (e, sym)));
      double v = 0;
      g_assert_false (pti_expr_check (e, sym, &v, &error));
      g_assert_error (error, PTI_ERROR, PTI_ERROR_INVALID);
      g_autofree char *want = g_strdup_printf ("unbound parameter '%s' in expression '%s'",
                                               cases[i].name, cases[i].text);
      g_assert_cmpstr (error->message, ==, want);
    }

  /* binding it fixes it */
  g_autoptr (GError) error = NULL;
  g_autoptr (PtiExpr) e = pti_expr_compile ("npe_k*2", sym, &error);
  guint k;
  g_assert_true (pti_symbols_lookup (sym, "npe_k", &k));
  pti_symbols_set (sym, k, 3);
  double v = 0;
  g_assert_true (pti_expr_check (e, sym, &v, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (v, ==, 6);
  /* NaN unbinds */
  pti_symbols_set (sym, k, NAN);
  g_assert_false (pti_expr_check (e, sym, &v, &error));
  g_assert_error (error, PTI_ERROR, PTI_ERROR_INVALID);
}

static void
test_not_finite (void)
{
  g_autoptr (PtiSymbols) sym = pti_symbols_new ();
  pti_symbols_set (sym, pti_symbols_intern (sym, "a"), 1);
  pti_symbols_set (sym, pti_symbols_intern (sym, "b"), 0);
  const char *texts[] = { "a/b", "sqrt(b - a)", "a % b", "log2(b)", "1/0" };
  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (PtiExpr) e = pti_expr_compile (texts[i], sym, &error);
      g_assert_no_error (error);
      g_assert_false (pti_expr_check (e, sym, NULL, &error));
      g_assert_error (error, PTI_ERROR, PTI_ERROR_INVALID);
      g_autofree char *want = g_strdup_printf ("expression '%s' is not finite (division by zero?)", texts[i]);
      g_assert_cmpstr (error->message, ==, want);
    }
}

static void
test_parse_errors (void)
{
  assert_compile_error ("npe_i * (", "column 10: expected a value", NULL);
  assert_compile_error ("", "column 1: expected a value", NULL);
  assert_compile_error ("   ", "column 4: expected a value", NULL);
  assert_compile_error ("1 +", "column 4: expected a value", NULL);
  assert_compile_error ("* 2", "column 1: expected a value", NULL);
  assert_compile_error ("(1 + 2", "column 7: expected ')'", "end of expression");
  assert_compile_error ("1 + 2)", "column 6: unexpected ')'", NULL);
  assert_compile_error ("a b", "column 3: unexpected 'b'", NULL);
  assert_compile_error ("a = 2", "column 3: unexpected '='", NULL);
  assert_compile_error ("a & b", "column 3: unexpected '&'", NULL);
  assert_compile_error ("2 $ 3", "column 3: unexpected '$'", NULL);
  assert_compile_error ("$x", "column 1: unexpected character '$'", NULL);
  assert_compile_error ("1 ? 2", "column 6: expected ':'", NULL);
  assert_compile_error ("1e", "column 1: malformed number '1e'", NULL);
  assert_compile_error ("12abc", "column 1: malformed number '12abc'", NULL);
  assert_compile_error ("1.2.3", "column 1: malformed number", NULL);
  assert_compile_error ("min(1, 2", "column 9: expected ',' or ')'", NULL);
  assert_compile_error ("min(1,)", "column 7: expected a value", NULL);
  assert_compile_error ("x + foo(2)", "column 5: unknown function 'foo'",
                        "min, max, floor, ceil, round, abs, log2, sqrt, pow, idiv");
  assert_compile_error ("pow(2)", "column 1: function 'pow' takes 2 arguments, got 1", NULL);
  assert_compile_error ("floor(1, 2)", "function 'floor' takes 1 argument, got 2", NULL);
  assert_compile_error ("idiv(1, 2, 3)", "function 'idiv' takes 2 arguments, got 3", NULL);
  assert_compile_error ("min()", "function 'min' takes at least 1 argument, got 0", NULL);
  assert_compile_error ("sqrt()", "function 'sqrt' takes 1 argument, got 0", NULL);

  /* a character beyond ASCII is quoted whole, so the message stays text
   * (found by tests/fuzz: the message held its first byte alone) */
  assert_compile_error ("err\u201d-x", "column 4: unexpected '\u201d'", NULL);
  assert_compile_error ("\u00e9", "column 1: unexpected character '\u00e9'", NULL);

  /* text that is not UTF-8 is refused before it is parsed (and quoted) */
  {
    g_autoptr (PtiSymbols) sym = pti_symbols_new ();
    g_autoptr (GError) error = NULL;
    g_autoptr (PtiExpr) e = pti_expr_compile ("2 * n\xe6", sym, &error);
    g_assert_null (e);
    g_assert_error (error, PTI_ERROR, PTI_ERROR_INVALID);
    g_assert_cmpstr (error->message, ==, "expression: not UTF-8 text (byte 0xE6 at column 6)");
  }

  /* deep nesting is refused, not a crash */
  GString *deep = g_string_new (NULL);
  for (int i = 0; i < 5000; i++)
    g_string_append_c (deep, '(');
  g_string_append_c (deep, '1');
  for (int i = 0; i < 5000; i++)
    g_string_append_c (deep, ')');
  g_autoptr (PtiSymbols) sym = pti_symbols_new ();
  g_autoptr (GError) error = NULL;
  g_autoptr (PtiExpr) e = pti_expr_compile (deep->str, sym, &error);
  g_assert_null (e);
  g_assert_error (error, PTI_ERROR, PTI_ERROR_INVALID);
  g_string_free (deep, TRUE);

  /* moderately deep but fine */
  g_autoptr (GError) error2 = NULL;
  g_autoptr (PtiExpr) e2 = pti_expr_compile ("((((((((((x))))))))))+1", sym, &error2);
  g_assert_no_error (error2);
}

static void
test_stack_limit (void)
{
  /* a right-leaning chain needs a deep stack: a + (a + (a + ...)) */
  g_autoptr (PtiSymbols) sym = pti_symbols_new ();
  pti_symbols_set (sym, pti_symbols_intern (sym, "a"), 1);
  GString *s = g_string_new (NULL);
  for (int i = 0; i < 40; i++)
    g_string_append (s, "a + (");
  g_string_append (s, "a");
  for (int i = 0; i < 40; i++)
    g_string_append_c (s, ')');
  g_assert_cmpfloat (ev (sym, s->str), ==, 41);
  g_string_free (s, TRUE);

  s = g_string_new (NULL);
  for (int i = 0; i < 100; i++)
    g_string_append (s, "a + (");
  g_string_append (s, "a");
  for (int i = 0; i < 100; i++)
    g_string_append_c (s, ')');
  g_autoptr (GError) error = NULL;
  g_autoptr (PtiExpr) e = pti_expr_compile (s->str, sym, &error);
  g_assert_null (e);
  g_assert_error (error, PTI_ERROR, PTI_ERROR_INVALID);
  g_string_free (s, TRUE);

  /* a long left-leaning chain needs none */
  s = g_string_new ("a");
  for (int i = 0; i < 1000; i++)
    g_string_append (s, " + a");
  g_assert_cmpfloat (ev (sym, s->str), ==, 1001);
  g_string_free (s, TRUE);
}

static void
test_constant (void)
{
  g_autoptr (PtiSymbols) sym = pti_symbols_new ();
  double v = 0;
  struct { const char *text; gboolean constant; double value; } cases[] = {
    { "2 * (3 + 4)", TRUE, 14 },
    { "ceil(200 / 10) + max(1, 2)", TRUE, 22 },
    { "0 && x", TRUE, 0 },
    { "1 || x", TRUE, 1 },
    { "1 ? 5 : x", TRUE, 5 },
    { "0 ? x : 6", TRUE, 6 },
    { "x", FALSE, 0 },
    { "x * 0", FALSE, 0 },
    { "1 && x", FALSE, 0 },
    { "1 ? x : 2", FALSE, 0 },
    { "min(1, x)", FALSE, 0 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (PtiExpr) e = pti_expr_compile (cases[i].text, sym, NULL);
      g_assert_nonnull (e);
      v = -1;
      g_assert_cmpint (pti_expr_is_constant (e, &v), ==, cases[i].constant);
      if (cases[i].constant)
        {
          g_assert_cmpfloat (v, ==, cases[i].value);
          g_assert_cmpfloat (pti_expr_eval (e, sym), ==, cases[i].value);
        }
    }
  /* "1 && x" is bool(x), "1 ? x : 2" is x */
  pti_symbols_set (sym, pti_symbols_intern (sym, "x"), 7);
  g_assert_cmpfloat (ev (sym, "1 && x"), ==, 1);
  g_assert_cmpfloat (ev (sym, "0 || x"), ==, 1);
  g_assert_cmpfloat (ev (sym, "1 ? x : 2"), ==, 7);
  g_assert_cmpfloat (ev (sym, "!x"), ==, 0);
}

static void
test_symbols (void)
{
  g_autoptr (PtiSymbols) sym = pti_symbols_new ();
  g_assert_cmpuint (pti_symbols_count (sym), ==, 0);
  guint a = pti_symbols_intern (sym, "alpha");
  guint b = pti_symbols_intern (sym, "beta");
  g_assert_cmpuint (a, ==, 0);
  g_assert_cmpuint (b, ==, 1);
  g_assert_cmpuint (pti_symbols_intern (sym, "alpha"), ==, a);
  g_assert_cmpuint (pti_symbols_count (sym), ==, 2);
  g_assert_cmpstr (pti_symbols_name (sym, b), ==, "beta");
  g_assert_true (isnan (pti_symbols_get (sym, a)));

  guint slot = 99;
  g_assert_true (pti_symbols_lookup (sym, "beta", &slot));
  g_assert_cmpuint (slot, ==, b);
  g_assert_false (pti_symbols_lookup (sym, "gamma", &slot));

  pti_symbols_set (sym, a, 2.5);
  g_assert_cmpfloat (pti_symbols_get (sym, a), ==, 2.5);
  g_assert_cmpfloat (pti_symbols_values (sym)[a], ==, 2.5);

  /* compiling interns new names after the existing ones; slots never move */
  g_autoptr (PtiExpr) e = pti_expr_compile ("gamma + alpha * delta", sym, NULL);
  g_assert_cmpuint (pti_symbols_count (sym), ==, 4);
  g_assert_true (pti_symbols_lookup (sym, "gamma", &slot));
  g_assert_cmpuint (slot, ==, 2);
  g_assert_true (pti_symbols_lookup (sym, "delta", &slot));
  g_assert_cmpuint (slot, ==, 3);
  g_assert_cmpuint (pti_symbols_intern (sym, "alpha"), ==, a);
  g_assert_cmpfloat (pti_symbols_get (sym, a), ==, 2.5);

  /* many more names: earlier slots keep their numbers and values, and an
   * expression compiled earlier still evaluates right */
  pti_symbols_set (sym, 2, 1);
  pti_symbols_set (sym, 3, 4);
  for (int i = 0; i < 1000; i++)
    {
      char name[32];
      g_snprintf (name, sizeof name, "v%d", i);
      g_assert_cmpuint (pti_symbols_intern (sym, name), ==, 4 + i);
    }
  g_assert_cmpuint (pti_symbols_count (sym), ==, 1004);
  g_assert_cmpuint (pti_symbols_intern (sym, "beta"), ==, b);
  g_assert_cmpstr (pti_symbols_name (sym, 500), ==, "v496");
  g_assert_true (isnan (pti_symbols_get (sym, 500)));
  g_assert_cmpfloat (pti_expr_eval (e, sym), ==, 1 + 2.5 * 4);

  pti_symbols_free (NULL);
  pti_expr_free (NULL);
}

static void
test_eval_loop (void)
{
  /* the same compiled expression against changing values */
  g_autoptr (PtiSymbols) sym = pti_symbols_new ();
  guint kk = pti_symbols_intern (sym, "kk");
  pti_symbols_set (sym, pti_symbols_intern (sym, "mk"), 10);
  pti_symbols_set (sym, pti_symbols_intern (sym, "kt"), 205);
  g_autoptr (PtiExpr) nk = pti_expr_compile ("min(mk, kt - (kk - 1) * mk)", sym, NULL);
  double total = 0;
  for (int k = 1; k <= 21; k++)
    {
      pti_symbols_set (sym, kk, k);
      total += pti_expr_eval (nk, sym);
    }
  g_assert_cmpfloat (total, ==, 205);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/expr/numbers", test_numbers);
  g_test_add_func ("/expr/precedence", test_precedence);
  g_test_add_func ("/expr/associativity", test_associativity);
  g_test_add_func ("/expr/modulo", test_modulo);
  g_test_add_func ("/expr/functions", test_functions);
  g_test_add_func ("/expr/comparisons-logic", test_comparisons_logic);
  g_test_add_func ("/expr/short-circuit", test_short_circuit);
  g_test_add_func ("/expr/unbound", test_unbound);
  g_test_add_func ("/expr/not-finite", test_not_finite);
  g_test_add_func ("/expr/parse-errors", test_parse_errors);
  g_test_add_func ("/expr/stack-limit", test_stack_limit);
  g_test_add_func ("/expr/constant", test_constant);
  g_test_add_func ("/expr/symbols", test_symbols);
  g_test_add_func ("/expr/eval-loop", test_eval_loop);
  return g_test_run ();
}
