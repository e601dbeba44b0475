/* pti expressions: a recursive-descent parser that builds a small tree, folds
 * constants in it, and flattens it into postfix code with jumps for `&&`,
 * `||` and `?:`.  Evaluation is a loop over that code with a fixed-size
 * stack: no allocation, no parsing.
 *
 * Unbound slots hold NaN.  Every operator propagates NaN (comparisons and
 * logical operators included, which C would otherwise turn into 0 or 1), so
 * an expression that reads an unbound slot evaluates to NaN and
 * pti_expr_check() can name the slot.
 */
#include <pti/hmi.h>
#include "expr-private.h"

#include <math.h>
#include <string.h>

/* ---- symbols ------------------------------------------------------------ */


PtiSymbols *
pti_symbols_new (void)
{
  PtiSymbols *s = g_new0 (PtiSymbols, 1);
  s->index = g_hash_table_new (g_str_hash, g_str_equal);
  s->names = g_ptr_array_new_with_free_func (g_free);
  s->values = g_array_new (FALSE, FALSE, sizeof (double));
  return s;
}

void
pti_symbols_free (PtiSymbols *symbols)
{
  if (symbols == NULL)
    return;
  g_hash_table_destroy (symbols->index);
  g_ptr_array_unref (symbols->names);
  g_array_unref (symbols->values);
  g_free (symbols);
}

guint
pti_symbols_intern (PtiSymbols *symbols, const char *name)
{
  g_return_val_if_fail (symbols != NULL && name != NULL, 0);
  gpointer v = g_hash_table_lookup (symbols->index, name);
  if (v != NULL)
    return GPOINTER_TO_UINT (v) - 1;
  guint slot = symbols->names->len;
  char *copy = g_strdup (name);
  g_ptr_array_add (symbols->names, copy);
  double nan = NAN;
  g_array_append_val (symbols->values, nan);
  g_hash_table_insert (symbols->index, copy, GUINT_TO_POINTER (slot + 1));
  return slot;
}

gboolean
pti_symbols_lookup (const PtiSymbols *symbols, const char *name, guint *slot)
{
  g_return_val_if_fail (symbols != NULL && name != NULL, FALSE);
  gpointer v = g_hash_table_lookup (symbols->index, name);
  if (v == NULL)
    return FALSE;
  if (slot != NULL)
    *slot = GPOINTER_TO_UINT (v) - 1;
  return TRUE;
}

const char *
pti_symbols_name (const PtiSymbols *symbols, guint slot)
{
  g_return_val_if_fail (symbols != NULL && slot < symbols->names->len, NULL);
  return g_ptr_array_index (symbols->names, slot);
}

guint
pti_symbols_count (const PtiSymbols *symbols)
{
  g_return_val_if_fail (symbols != NULL, 0);
  return symbols->names->len;
}

void
pti_symbols_set (PtiSymbols *symbols, guint slot, double value)
{
  g_return_if_fail (symbols != NULL && slot < symbols->values->len);
  g_array_index (symbols->values, double, slot) = value;
}

double
pti_symbols_get (const PtiSymbols *symbols, guint slot)
{
  g_return_val_if_fail (symbols != NULL && slot < symbols->values->len, NAN);
  return g_array_index (symbols->values, double, slot);
}

void
pti_symbols_gather (const PtiSymbols *symbols, guint n, const guint *slots, double *out)
{
  const double *v = (const double *) symbols->values->data;
  for (guint i = 0; i < n; i++)
    out[i] = v[slots[i]];
}

void
pti_symbols_scatter (PtiSymbols *symbols, guint n, const guint *slots, const double *values)
{
  double *v = (double *) symbols->values->data;
  for (guint i = 0; i < n; i++)
    v[slots[i]] = values[i];
}

const double *
pti_symbols_values (const PtiSymbols *symbols)
{
  g_return_val_if_fail (symbols != NULL, NULL);
  return (const double *) symbols->values->data;
}

/* ---- operations ----------------------------------------------------------- */

static inline double
apply_unary (Op op, double a)
{
  switch (op)
    {
    case OP_NEG:   return -a;
    case OP_NOT:   return isnan (a) ? a : (a == 0 ? 1.0 : 0.0);
    case OP_BOOL:  return isnan (a) ? a : (a != 0 ? 1.0 : 0.0);
    case OP_FLOOR: return floor (a);
    case OP_CEIL:  return ceil (a);
    case OP_ROUND: return round (a);
    case OP_ABS:   return fabs (a);
    case OP_LOG2:  return log2 (a);
    case OP_SQRT:  return sqrt (a);
    default:       return NAN;
    }
}

/* min/max that propagate NaN (fmin/fmax would drop it). */
static inline double
apply_minmax (Op op, const double *v, guint n)
{
  double r = v[0];
  for (guint i = 1; i < n; i++)
    {
      if (isnan (v[i]) || isnan (r))
        return NAN;
      if (op == OP_MIN ? v[i] < r : v[i] > r)
        r = v[i];
    }
  return r;
}

static gboolean
op_is_unary (Op op)
{
  return op >= OP_NEG && op <= OP_SQRT;
}

static gboolean
op_is_binary (Op op)
{
  return op >= OP_ADD && op <= OP_NE;
}

/* ---- tree ---------------------------------------------------------------- */

typedef struct Node Node;
struct Node {
  Op     op;
  double k;                     /* OP_CONST */
  guint  slot;                  /* OP_LOAD */
  guint  n;                     /* number of kids */
  Node **kids;
};

static Node *
node_const (double k)
{
  Node *n = g_new0 (Node, 1);
  n->op = OP_CONST;
  n->k = k;
  return n;
}

static void
node_free (Node *n)
{
  if (n == NULL)
    return;
  for (guint i = 0; i < n->n; i++)
    node_free (n->kids[i]);
  g_free (n->kids);
  g_free (n);
}

/* Steals @kids (an array of @nkids nodes) and folds constants. */
static Node *
node_new (Op op, Node **kids, guint nkids)
{
  gboolean all_const = TRUE;
  for (guint i = 0; i < nkids; i++)
    all_const = all_const && kids[i]->op == OP_CONST;

  /* Short-circuit operators fold on their first operand alone. */
  if (op == OP_AND || op == OP_OR || op == OP_COND)
    {
      if (kids[0]->op == OP_CONST)
        {
          double c = kids[0]->k;
          Node *keep = NULL;
          if (isnan (c))
            keep = node_const (NAN);
          else if (op == OP_AND && c == 0)
            keep = node_const (0);
          else if (op == OP_OR && c != 0)
            keep = node_const (1);
          else if (op == OP_COND)
            {
              guint pick = c != 0 ? 1 : 2;
              keep = kids[pick];
              kids[pick] = NULL;
            }
          else
            {
              /* (true && b) and (false || b) are bool(b) */
              Node *b = kids[1];
              kids[1] = NULL;
              keep = node_new (OP_BOOL, g_memdup2 (&b, sizeof b), 1);
            }
          for (guint i = 0; i < nkids; i++)
            node_free (kids[i]);
          g_free (kids);
          return keep;
        }
    }
  else if (all_const)
    {
      double v;
      if (op_is_unary (op))
        v = apply_unary (op, kids[0]->k);
      else if (op_is_binary (op))
        v = apply_binary (op, kids[0]->k, kids[1]->k);
      else
        {
          double *vals = g_new (double, nkids);
          for (guint i = 0; i < nkids; i++)
            vals[i] = kids[i]->k;
          v = apply_minmax (op, vals, nkids);
          g_free (vals);
        }
      for (guint i = 0; i < nkids; i++)
        node_free (kids[i]);
      g_free (kids);
      return node_const (v);
    }

  Node *n = g_new0 (Node, 1);
  n->op = op;
  n->n = nkids;
  n->kids = kids;
  return n;
}

static Node *
node1 (Op op, Node *a)
{
  Node **k = g_new (Node *, 1);
  k[0] = a;
  return node_new (op, k, 1);
}

static Node *
node2 (Op op, Node *a, Node *b)
{
  Node **k = g_new (Node *, 2);
  k[0] = a;
  k[1] = b;
  return node_new (op, k, 2);
}

/* ---- parser ------------------------------------------------------------ */

#define MAX_NESTING 200
/* The longest expression text: far beyond any written by hand or by a
 * generator, far below what would make parsing slow. */
#define EXPR_TEXT_MAX (1u << 20)

typedef struct {
  const char *text;
  const char *p;
  PtiSymbols *symbols;
  GError    **error;
  gboolean    failed;
  int         depth;
  gboolean  (*is_constant) (guint slot, gpointer data);   /* or NULL */
  gpointer    constant_data;
} Parser;

G_GNUC_PRINTF (3, 4) static void
parse_error (Parser *ps, const char *at, const char *fmt, ...)
{
  if (ps->failed)
    return;
  ps->failed = TRUE;
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (ps->error, PTI_ERROR, PTI_ERROR_INVALID,
               "in expression '%s': column %ld: %s",
               ps->text, (long) (at - ps->text) + 1, msg);
}

static void
skip_space (Parser *ps)
{
  while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')
    ps->p++;
}

/* Consumes @tok (after blanks) if it is next.  A one-character token does
 * not match the start of a two-character one ("<" in "<=", "!" in "!="). */
static gboolean
accept (Parser *ps, const char *tok)
{
  skip_space (ps);
  size_t len = strlen (tok);
  if (strncmp (ps->p, tok, len) != 0)
    return FALSE;
  if (len == 1 && (tok[0] == '<' || tok[0] == '>' || tok[0] == '!') && ps->p[1] == '=')
    return FALSE;
  ps->p += len;
  return TRUE;
}

/* A short description of what is at @p, for "unexpected ..." messages. */
static char *
describe_at (const char *p)
{
  if (*p == '\0')
    return g_strdup ("end of expression");
  if (g_ascii_isalnum (*p) || *p == '_' || *p == '.')
    {
      const char *e = p;
      while (g_ascii_isalnum (*e) || *e == '_' || *e == '.')
        e++;
      return g_strdup_printf ("'%.*s'", (int) (e - p), p);
    }
  return g_strdup_printf ("'%.*s'", (int) (g_utf8_next_char (p) - p), p);   /* a whole character */
}

static Node *parse_cond (Parser *ps);
static Node *parse_unary (Parser *ps);

typedef struct {
  const char *name;
  Op          op;
  int         arity;            /* -1: one or more */
} Func;

static const Func funcs[] = {
  { "min", OP_MIN, -1 },
  { "max", OP_MAX, -1 },
  { "floor", OP_FLOOR, 1 },
  { "ceil", OP_CEIL, 1 },
  { "round", OP_ROUND, 1 },
  { "abs", OP_ABS, 1 },
  { "log2", OP_LOG2, 1 },
  { "sqrt", OP_SQRT, 1 },
  { "pow", OP_POW, 2 },
  { "idiv", OP_IDIV, 2 },
};

static Node *
parse_call (Parser *ps, const char *name_at, size_t name_len)
{
  const Func *f = NULL;
  for (guint i = 0; i < G_N_ELEMENTS (funcs); i++)
    if (strlen (funcs[i].name) == name_len && strncmp (funcs[i].name, name_at, name_len) == 0)
      f = &funcs[i];
  if (f == NULL)
    {
      GString *known = g_string_new (NULL);
      for (guint i = 0; i < G_N_ELEMENTS (funcs); i++)
        g_string_append_printf (known, "%s%s", i ? ", " : "", funcs[i].name);
      parse_error (ps, name_at, "unknown function '%.*s' (known: %s)",
                   (int) name_len, name_at, known->str);
      g_string_free (known, TRUE);
      return NULL;
    }

  GPtrArray *args = g_ptr_array_new ();
  if (!accept (ps, ")"))
    {
      do
        {
          Node *a = parse_cond (ps);
          if (a == NULL)
            goto fail;
          g_ptr_array_add (args, a);
        }
      while (accept (ps, ","));
      if (!accept (ps, ")"))
        {
          g_autofree char *what = describe_at (ps->p);
          parse_error (ps, ps->p, "expected ',' or ')' in call of %s(), found %s", f->name, what);
          goto fail;
        }
    }

  if (f->arity < 0 ? args->len < 1 : args->len != (guint) f->arity)
    {
      if (f->arity < 0)
        parse_error (ps, name_at, "function '%s' takes at least 1 argument, got 0", f->name);
      else
        parse_error (ps, name_at, "function '%s' takes %d argument%s, got %u",
                     f->name, f->arity, f->arity == 1 ? "" : "s", args->len);
      goto fail;
    }

  guint n = args->len;
  return node_new (f->op, (Node **) g_ptr_array_free (args, FALSE), n);

fail:
  g_ptr_array_set_free_func (args, (GDestroyNotify) node_free);
  g_ptr_array_unref (args);
  return NULL;
}

static Node *
parse_atom (Parser *ps)
{
  skip_space (ps);
  const char *start = ps->p;

  if (g_ascii_isdigit (*start) || (*start == '.' && g_ascii_isdigit (start[1])))
    {
      const char *e = start;
      while (g_ascii_isdigit (*e))
        e++;
      if (*e == '.')
        {
          e++;
          while (g_ascii_isdigit (*e))
            e++;
        }
      if (*e == 'e' || *e == 'E')
        {
          const char *x = e + 1;
          if (*x == '+' || *x == '-')
            x++;
          if (!g_ascii_isdigit (*x))
            {
              parse_error (ps, start, "malformed number '%.*s'", (int) (x - start), start);
              return NULL;
            }
          while (g_ascii_isdigit (*x))
            x++;
          e = x;
        }
      if (g_ascii_isalpha (*e) || *e == '_' || *e == '.')
        {
          const char *x = e;
          while (g_ascii_isalnum (*x) || *x == '_' || *x == '.')
            x++;
          parse_error (ps, start, "malformed number '%.*s'", (int) (x - start), start);
          return NULL;
        }
      g_autofree char *num = g_strndup (start, e - start);
      ps->p = e;
      return node_const (g_ascii_strtod (num, NULL));
    }

  if (g_ascii_isalpha (*start) || *start == '_')
    {
      const char *e = start;
      while (g_ascii_isalnum (*e) || *e == '_')
        e++;
      ps->p = e;
      if (accept (ps, "("))
        return parse_call (ps, start, e - start);
      g_autofree char *name = g_strndup (start, e - start);
      guint slot = pti_symbols_intern (ps->symbols, name);
      /* A name fixed for good is its value, so that what depends on it
       * only folds too (pti_expr_compile_folded). */
      if (ps->is_constant != NULL && ps->is_constant (slot, ps->constant_data)
          && !isnan (pti_symbols_get (ps->symbols, slot)))
        return node_const (pti_symbols_get (ps->symbols, slot));
      Node *n = g_new0 (Node, 1);
      n->op = OP_LOAD;
      n->slot = slot;
      return n;
    }

  if (accept (ps, "("))
    {
      Node *n = parse_cond (ps);
      if (n == NULL)
        return NULL;
      if (!accept (ps, ")"))
        {
          g_autofree char *what = describe_at (ps->p);
          parse_error (ps, ps->p, "expected ')', found %s", what);
          node_free (n);
          return NULL;
        }
      return n;
    }

  if (*start == '\0' || strchr ("+-*/%^<>=!&|?:,)", *start) != NULL)
    parse_error (ps, start, "expected a value");
  else
    parse_error (ps, start, "unexpected character '%.*s'",
                 (int) (g_utf8_next_char (start) - start), start);   /* a whole character */
  return NULL;
}

static Node *
parse_pow (Parser *ps)
{
  Node *a = parse_atom (ps);
  if (a == NULL)
    return NULL;
  if (!accept (ps, "^"))
    return a;
  Node *b = parse_unary (ps);
  if (b == NULL)
    {
      node_free (a);
      return NULL;
    }
  return node2 (OP_POW, a, b);
}

static Node *
parse_unary (Parser *ps)
{
  skip_space (ps);
  if (++ps->depth > MAX_NESTING)
    {
      parse_error (ps, ps->p, "expression nested too deeply");
      return NULL;
    }
  Node *r;
  if (accept (ps, "-"))
    {
      Node *a = parse_unary (ps);
      r = a ? node1 (OP_NEG, a) : NULL;
    }
  else if (accept (ps, "+"))
    r = parse_unary (ps);
  else if (accept (ps, "!"))
    {
      Node *a = parse_unary (ps);
      r = a ? node1 (OP_NOT, a) : NULL;
    }
  else
    r = parse_pow (ps);
  ps->depth--;
  return r;
}

typedef struct {
  const char *tok;
  Op          op;
} BinTok;

/* One left-associative precedence level. */
static Node *
parse_level (Parser *ps, Node *(*sub) (Parser *), const BinTok *toks, guint ntoks)
{
  Node *a = sub (ps);
  while (a != NULL)
    {
      const BinTok *hit = NULL;
      for (guint i = 0; i < ntoks && hit == NULL; i++)
        if (accept (ps, toks[i].tok))
          hit = &toks[i];
      if (hit == NULL)
        break;
      Node *b = sub (ps);
      if (b == NULL)
        {
          node_free (a);
          return NULL;
        }
      a = node2 (hit->op, a, b);
    }
  return a;
}

static Node *
parse_prod (Parser *ps)
{
  static const BinTok t[] = { { "*", OP_MUL }, { "/", OP_DIV }, { "%", OP_MOD } };
  return parse_level (ps, parse_unary, t, G_N_ELEMENTS (t));
}

static Node *
parse_sum (Parser *ps)
{
  static const BinTok t[] = { { "+", OP_ADD }, { "-", OP_SUB } };
  return parse_level (ps, parse_prod, t, G_N_ELEMENTS (t));
}

static Node *
parse_cmp (Parser *ps)
{
  static const BinTok t[] = {
    { "<=", OP_LE }, { ">=", OP_GE }, { "==", OP_EQ }, { "!=", OP_NE },
    { "<", OP_LT }, { ">", OP_GT },
  };
  return parse_level (ps, parse_sum, t, G_N_ELEMENTS (t));
}

static Node *
parse_and (Parser *ps)
{
  static const BinTok t[] = { { "&&", OP_AND } };
  return parse_level (ps, parse_cmp, t, G_N_ELEMENTS (t));
}

static Node *
parse_or (Parser *ps)
{
  static const BinTok t[] = { { "||", OP_OR } };
  return parse_level (ps, parse_and, t, G_N_ELEMENTS (t));
}

static Node *
parse_cond (Parser *ps)
{
  if (++ps->depth > MAX_NESTING)
    {
      parse_error (ps, ps->p, "expression nested too deeply");
      return NULL;
    }
  Node *c = parse_or (ps);
  if (c != NULL && accept (ps, "?"))
    {
      Node *x = parse_cond (ps), *y = NULL;
      if (x != NULL)
        {
          if (accept (ps, ":"))
            y = parse_cond (ps);
          else
            {
              g_autofree char *what = describe_at (ps->p);
              parse_error (ps, ps->p, "expected ':', found %s", what);
            }
        }
      if (y == NULL)
        {
          node_free (c);
          node_free (x);
          c = NULL;
        }
      else
        {
          Node **k = g_new (Node *, 3);
          k[0] = c;
          k[1] = x;
          k[2] = y;
          c = node_new (OP_COND, k, 3);
        }
    }
  ps->depth--;
  return c;
}

/* ---- code ---------------------------------------------------------------- */

typedef struct {
  GArray *code;
  int     depth, max_depth;
} Emitter;

static guint
emit (Emitter *em, Insn insn, int delta)
{
  g_array_append_val (em->code, insn);
  em->depth += delta;
  em->max_depth = MAX (em->max_depth, em->depth);
  return em->code->len - 1;
}

#define INSN_AT(em, i) (&g_array_index ((em)->code, Insn, (i)))

static void
emit_node (Emitter *em, const Node *n)
{
  Insn in = { .op = n->op };
  switch (n->op)
    {
    case OP_CONST:
      in.k = n->k;
      emit (em, in, +1);
      return;
    case OP_LOAD:
      in.slot = n->slot;
      emit (em, in, +1);
      return;
    case OP_AND:
    case OP_OR:
      {
        emit_node (em, n->kids[0]);
        in.op = n->op == OP_AND ? OP_AND_JZ : OP_OR_JNZ;
        guint j = emit (em, in, -1);
        emit_node (em, n->kids[1]);
        emit (em, (Insn) { .op = OP_BOOL }, 0);
        INSN_AT (em, j)->t[0] = em->code->len;
        return;
      }
    case OP_COND:
      {
        emit_node (em, n->kids[0]);
        guint jz = emit (em, (Insn) { .op = OP_JZ }, -1);
        emit_node (em, n->kids[1]);
        guint jmp = emit (em, (Insn) { .op = OP_JMP }, -1);
        INSN_AT (em, jz)->t[0] = em->code->len;
        emit_node (em, n->kids[2]);
        INSN_AT (em, jmp)->t[0] = em->code->len;
        INSN_AT (em, jz)->t[1] = em->code->len;
        return;
      }
    default:
      for (guint i = 0; i < n->n; i++)
        emit_node (em, n->kids[i]);
      if (n->op == OP_MIN || n->op == OP_MAX)
        {
          if (n->n == 1)
            return;             /* min(x) is x */
          in.n = n->n;
        }
      emit (em, in, 1 - (int) n->n);
      return;
    }
}

static void
collect_slots (const Node *n, GArray *slots)
{
  if (n->op == OP_LOAD)
    {
      for (guint i = 0; i < slots->len; i++)
        if (g_array_index (slots, guint, i) == n->slot)
          return;
      g_array_append_val (slots, n->slot);
      return;
    }
  for (guint i = 0; i < n->n; i++)
    collect_slots (n->kids[i], slots);
}

PtiExpr *
pti_expr_compile (const char *text, PtiSymbols *symbols, GError **error)
{
  return pti_expr_compile_folded (text, symbols, NULL, NULL, error);
}

PtiExpr *
pti_expr_compile_folded (const char *text, PtiSymbols *symbols,
                         gboolean (*is_constant) (guint slot, gpointer data), gpointer data,
                         GError **error)
{
  g_return_val_if_fail (text != NULL && symbols != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  /* Messages quote the text: it must be text (as every attribute libxml2
   * parsed is; a caller's string may not be). */
  if (!pti_text_check (text, -1, EXPR_TEXT_MAX, "expression", error))
    return NULL;

  Parser ps = { .text = text, .p = text, .symbols = symbols, .error = error,
                .is_constant = is_constant, .constant_data = data };
  Node *root = parse_cond (&ps);
  if (root != NULL)
    {
      skip_space (&ps);
      if (*ps.p != '\0')
        {
          g_autofree char *what = describe_at (ps.p);
          parse_error (&ps, ps.p, "unexpected %s", what);
          node_free (root);
          root = NULL;
        }
    }
  if (root == NULL)
    {
      if (!ps.failed)
        parse_error (&ps, ps.p, "invalid expression");
      return NULL;
    }

  Emitter em = { .code = g_array_new (FALSE, TRUE, sizeof (Insn)) };
  emit_node (&em, root);
  if (em.max_depth > STACK_MAX)
    {
      g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                   "in expression '%s': too complex (needs a stack of %d, the limit is %d)",
                   text, em.max_depth, STACK_MAX);
      g_array_unref (em.code);
      node_free (root);
      return NULL;
    }
  g_assert (em.depth == 1);

  GArray *slots = g_array_new (FALSE, FALSE, sizeof (guint));
  collect_slots (root, slots);

  PtiExpr *e = g_new0 (PtiExpr, 1);
  e->text = g_strdup (text);
  e->constant = root->op == OP_CONST;
  e->value = e->constant ? root->k : NAN;
  e->ncode = em.code->len;
  e->code = (Insn *) g_array_free (em.code, FALSE);
  e->nslots = slots->len;
  e->slots = (guint *) g_array_free (slots, FALSE);
  e->shape = SHAPE_CODE;
  if (e->ncode == 1 && e->code[0].op == OP_LOAD)
    e->shape = SHAPE_LOAD;
  else if (e->ncode == 3 && e->code[0].op == OP_LOAD && op_is_binary ((Op) e->code[2].op)
           && (e->code[1].op == OP_CONST || e->code[1].op == OP_LOAD))
    {
      e->shape = e->code[1].op == OP_CONST ? SHAPE_LOAD_K : SHAPE_LOAD_LOAD;
      e->shape_op = (Op) e->code[2].op;
    }
  node_free (root);
  return e;
}

/* The evaluation loop.  With @unbound non-NULL it also records the first
 * unbound slot actually read (pti_expr_check); the hot path passes NULL and
 * the compiler drops that code. */
static __attribute__ ((noinline)) double
run (const PtiExpr *e, const double *v, guint *unbound)
{
  /* Direct threading: each instruction jumps straight to the next one's
   * code, one indirect branch per instruction (a switch in a loop costs a
   * bounds check, a jump back and a shared, badly predicted branch). */
  static const void *const labels[] = {
    [OP_CONST] = &&l_const, [OP_LOAD] = &&l_load, [OP_NEG] = &&l_neg,
    [OP_NOT] = &&l_unary, [OP_BOOL] = &&l_unary, [OP_FLOOR] = &&l_unary,
    [OP_CEIL] = &&l_unary, [OP_ROUND] = &&l_unary, [OP_ABS] = &&l_unary, [OP_LOG2] = &&l_unary,
    [OP_SQRT] = &&l_unary, [OP_ADD] = &&l_add, [OP_SUB] = &&l_sub, [OP_MUL] = &&l_mul,
    [OP_DIV] = &&l_div, [OP_MOD] = &&l_binary, [OP_POW] = &&l_binary, [OP_IDIV] = &&l_binary,
    [OP_LT] = &&l_binary, [OP_LE] = &&l_binary, [OP_GT] = &&l_binary, [OP_GE] = &&l_binary,
    [OP_EQ] = &&l_binary, [OP_NE] = &&l_binary, [OP_MIN] = &&l_minmax, [OP_MAX] = &&l_minmax,
    [OP_AND] = &&l_bad, [OP_OR] = &&l_bad, [OP_COND] = &&l_bad,
    [OP_AND_JZ] = &&l_and_jz, [OP_OR_JNZ] = &&l_or_jnz, [OP_JZ] = &&l_jz, [OP_JMP] = &&l_jmp,
  };
  double st[STACK_MAX];
  int sp = -1;
  st[0] = NAN;
  const Insn *code = e->code, *in = code, *end = code + e->ncode;

#define NEXT() do { if (in == end) goto done; goto *labels[in->op]; } while (0)
  NEXT ();
l_const:
  st[++sp] = in->k;
  in++;
  NEXT ();
l_load:
  st[++sp] = v[in->slot];
  if (unbound != NULL && *unbound == G_MAXUINT && isnan (st[sp]))
    *unbound = in->slot;
  in++;
  NEXT ();
l_neg:
  st[sp] = -st[sp];
  in++;
  NEXT ();
l_unary:
  st[sp] = apply_unary ((Op) in->op, st[sp]);
  in++;
  NEXT ();
l_add:
  sp--;
  st[sp] = st[sp] + st[sp + 1];
  in++;
  NEXT ();
l_sub:
  sp--;
  st[sp] = st[sp] - st[sp + 1];
  in++;
  NEXT ();
l_mul:
  sp--;
  st[sp] = st[sp] * st[sp + 1];
  in++;
  NEXT ();
l_div:
  sp--;
  st[sp] = st[sp] / st[sp + 1];
  in++;
  NEXT ();
l_binary:
  sp--;
  st[sp] = apply_binary ((Op) in->op, st[sp], st[sp + 1]);
  in++;
  NEXT ();
l_minmax:
  sp -= (int) in->n - 1;
  st[sp] = apply_minmax ((Op) in->op, &st[sp], in->n);
  in++;
  NEXT ();
l_and_jz:
  if (isnan (st[sp])) {
    in = code + in->t[0];
  } else if (st[sp] == 0) {
    st[sp] = 0;       /* not -0 */
    in = code + in->t[0];
  } else {
    sp--;
    in++;
  }
  NEXT ();
l_or_jnz:
  if (isnan (st[sp])) {
    in = code + in->t[0];
  } else if (st[sp] != 0) {
    st[sp] = 1;
    in = code + in->t[0];
  } else {
    sp--;
    in++;
  }
  NEXT ();
l_jz:
  {
    double c = st[sp--];
    if (isnan (c)) {
      st[++sp] = c;
      in = code + in->t[1];
    } else if (c == 0) {
      in = code + in->t[0];
    } else {
      in++;
    }
  }
  NEXT ();
l_jmp:
  in = code + in->t[0];
  NEXT ();
l_bad:
  g_assert_not_reached ();
#undef NEXT
done:
  return st[0];
}

double
pti_expr_eval (const PtiExpr *expr, const PtiSymbols *symbols)
{
  if (expr->constant)
    return expr->value;
  const double *v = (const double *) symbols->values->data;
  const Insn *c = expr->code;
  switch (expr->shape)
    {
    case SHAPE_LOAD:
      return v[c[0].slot];
    case SHAPE_LOAD_K:
      return apply_binary (expr->shape_op, v[c[0].slot], c[1].k);
    case SHAPE_LOAD_LOAD:
      return apply_binary (expr->shape_op, v[c[0].slot], v[c[1].slot]);
    default:
      return run (expr, v, NULL);
    }
}

gboolean
pti_expr_check (const PtiExpr *expr, const PtiSymbols *symbols,
                double *value, GError **error)
{
  g_return_val_if_fail (expr != NULL && symbols != NULL, FALSE);
  for (guint i = 0; i < expr->nslots; i++)
    g_return_val_if_fail (expr->slots[i] < symbols->values->len, FALSE);

  guint unbound = G_MAXUINT;
  double r = expr->constant ? expr->value
                            : run (expr, (const double *) symbols->values->data, &unbound);
  if (value != NULL)
    *value = r;
  if (isfinite (r) && unbound == G_MAXUINT)
    return TRUE;
  if (unbound != G_MAXUINT)
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "unbound parameter '%s' in expression '%s'",
                 pti_symbols_name (symbols, unbound), expr->text);
  else
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "expression '%s' is not finite (division by zero?)", expr->text);
  return FALSE;
}

gboolean
pti_expr_is_name (const PtiExpr *expr, guint *slot)
{
  if (expr->shape != SHAPE_LOAD)
    return FALSE;
  *slot = expr->code[0].slot;
  return TRUE;
}

gboolean
pti_expr_is_constant (const PtiExpr *expr, double *value)
{
  g_return_val_if_fail (expr != NULL, FALSE);
  if (expr->constant && value != NULL)
    *value = expr->value;
  return expr->constant;
}

const guint *
pti_expr_slots (const PtiExpr *expr, guint *n)
{
  g_return_val_if_fail (expr != NULL && n != NULL, NULL);
  *n = expr->nslots;
  return expr->slots;
}

const char *
pti_expr_text (const PtiExpr *expr)
{
  g_return_val_if_fail (expr != NULL, NULL);
  return expr->text;
}

void
pti_expr_free (PtiExpr *expr)
{
  if (expr == NULL)
    return;
  g_free (expr->text);
  g_free (expr->code);
  g_free (expr->slots);
  g_free (expr);
}
