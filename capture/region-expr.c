/* pti expressions without GLib (region-expr.h).  Parsed by recursive
 * descent into a tree in one array, evaluated by walking it. */
#include "region-expr.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
  X_CONST, X_LOAD, X_NEG, X_NOT, X_BOOL, X_FLOOR, X_CEIL, X_ROUND, X_ABS, X_LOG2, X_SQRT,
  X_ADD, X_SUB, X_MUL, X_DIV, X_MOD, X_POW, X_IDIV, X_LT, X_LE, X_GT, X_GE, X_EQ, X_NE,
  X_MIN, X_MAX, X_AND, X_OR, X_COND,
};

#define RX_MAX_NESTING 200
#define RX_MAX_KIDS 64

typedef struct {
  int op, n;          /* n: kids */
  int kid[3];         /* X_MIN/X_MAX: kid[0] first of a list in args, n of them */
  double k;
  int slot;
} RxNode;

struct PtiRxExpr {
  RxNode *nodes;
  int n_nodes, cap, root;
  int *args, n_args, args_cap;
  int *slots, n_slots, slots_cap;
};

typedef struct {
  PtiRxExpr *e;
  const char *text, *p;
  PtiRxInternFunc intern;
  void *data;
  char *err;
  size_t err_len;
  int failed, depth;
} RxParser;

static void
rx_error (RxParser *ps, const char *at, const char *fmt, ...)
{
  if (ps->failed)
    return;
  ps->failed = 1;
  char what[256];
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (what, sizeof what, fmt, ap);
  va_end (ap);
  snprintf (ps->err, ps->err_len, "in '%s' at column %d: %s", ps->text,
            (int) (at - ps->text) + 1, what);
}

static int
rx_node (RxParser *ps, int op, int n, int a, int b, int c)
{
  PtiRxExpr *e = ps->e;
  if (e->n_nodes == e->cap) {
    int cap = e->cap ? 2 * e->cap : 16;
    RxNode *nn = realloc (e->nodes, (size_t) cap * sizeof *nn);
    if (nn == NULL) {
      rx_error (ps, ps->p, "out of memory");
      return -1;
    }
    e->nodes = nn;
    e->cap = cap;
  }
  RxNode *x = &e->nodes[e->n_nodes];
  memset (x, 0, sizeof *x);
  x->op = op;
  x->n = n;
  x->kid[0] = a;
  x->kid[1] = b;
  x->kid[2] = c;
  return e->n_nodes++;
}

static void
rx_space (RxParser *ps)
{
  while (isspace ((unsigned char) *ps->p))
    ps->p++;
}

static int
rx_accept (RxParser *ps, const char *tok)
{
  rx_space (ps);
  size_t len = strlen (tok);
  if (strncmp (ps->p, tok, len) != 0)
    return 0;
  if (len == 1 && (tok[0] == '<' || tok[0] == '>' || tok[0] == '!') && ps->p[1] == '=')
    return 0;
  ps->p += len;
  return 1;
}

static void
rx_describe (const char *p, char *out, size_t n)
{
  if (*p == '\0')
    snprintf (out, n, "end of expression");
  else if (isalnum ((unsigned char) *p) || *p == '_' || *p == '.') {
    const char *e = p;
    while (isalnum ((unsigned char) *e) || *e == '_' || *e == '.')
      e++;
    snprintf (out, n, "'%.*s'", (int) (e - p), p);
  } else
    snprintf (out, n, "'%c'", *p);
}

static int rx_cond (RxParser *ps);
static int rx_unary (RxParser *ps);

static const struct { const char *name; int op, arity; } rx_funcs[] = {
  { "min", X_MIN, -1 }, { "max", X_MAX, -1 }, { "floor", X_FLOOR, 1 }, { "ceil", X_CEIL, 1 },
  { "round", X_ROUND, 1 }, { "abs", X_ABS, 1 }, { "log2", X_LOG2, 1 }, { "sqrt", X_SQRT, 1 },
  { "pow", X_POW, 2 }, { "idiv", X_IDIV, 2 },
};
#define RX_N_FUNCS ((int) (sizeof rx_funcs / sizeof rx_funcs[0]))

static int
rx_call (RxParser *ps, const char *name, size_t len)
{
  int f = -1;
  for (int i = 0; i < RX_N_FUNCS; i++)
    if (strlen (rx_funcs[i].name) == len && strncmp (rx_funcs[i].name, name, len) == 0)
      f = i;
  if (f < 0) {
    rx_error (ps, name, "unknown function '%.*s' (known: min, max, floor, ceil, round, abs, "
              "log2, sqrt, pow, idiv)", (int) len, name);
    return -1;
  }
  int kids[RX_MAX_KIDS], n = 0;
  if (!rx_accept (ps, ")")) {
    do {
      int a = rx_cond (ps);
      if (a < 0)
        return -1;
      if (n == RX_MAX_KIDS) {
        rx_error (ps, ps->p, "more than %d arguments", RX_MAX_KIDS);
        return -1;
      }
      kids[n++] = a;
    } while (rx_accept (ps, ","));
    if (!rx_accept (ps, ")")) {
      char what[80];
      rx_describe (ps->p, what, sizeof what);
      rx_error (ps, ps->p, "expected ',' or ')' in call of %s(), found %s", rx_funcs[f].name, what);
      return -1;
    }
  }
  int arity = rx_funcs[f].arity;
  if (arity < 0 ? n < 1 : n != arity) {
    if (arity < 0)
      rx_error (ps, name, "function '%s' takes at least 1 argument, got 0", rx_funcs[f].name);
    else
      rx_error (ps, name, "function '%s' takes %d argument%s, got %d", rx_funcs[f].name, arity,
                arity == 1 ? "" : "s", n);
    return -1;
  }
  int op = rx_funcs[f].op;
  if (op == X_MIN || op == X_MAX) {
    PtiRxExpr *e = ps->e;
    if (e->n_args + n > e->args_cap) {
      int cap = e->args_cap * 2 + n + 8;
      int *na = realloc (e->args, (size_t) cap * sizeof *na);
      if (na == NULL) {
        rx_error (ps, ps->p, "out of memory");
        return -1;
      }
      e->args = na;
      e->args_cap = cap;
    }
    int first = e->n_args;
    memcpy (e->args + first, kids, (size_t) n * sizeof *kids);
    e->n_args += n;
    return rx_node (ps, op, n, first, 0, 0);
  }
  return rx_node (ps, op, n, kids[0], n > 1 ? kids[1] : 0, 0);
}

static int
rx_add_slot (RxParser *ps, int slot)
{
  PtiRxExpr *e = ps->e;
  for (int i = 0; i < e->n_slots; i++)
    if (e->slots[i] == slot)
      return 1;
  if (e->n_slots == e->slots_cap) {
    int cap = e->slots_cap ? 2 * e->slots_cap : 8;
    int *ns = realloc (e->slots, (size_t) cap * sizeof *ns);
    if (ns == NULL)
      return 0;
    e->slots = ns;
    e->slots_cap = cap;
  }
  e->slots[e->n_slots++] = slot;
  return 1;
}

static int
rx_atom (RxParser *ps)
{
  rx_space (ps);
  const char *start = ps->p;
  if (isdigit ((unsigned char) *start) || (*start == '.' && isdigit ((unsigned char) start[1]))) {
    const char *e = start;
    while (isdigit ((unsigned char) *e))
      e++;
    if (*e == '.') {
      e++;
      while (isdigit ((unsigned char) *e))
        e++;
    }
    if (*e == 'e' || *e == 'E') {
      const char *x = e + 1;
      if (*x == '+' || *x == '-')
        x++;
      if (!isdigit ((unsigned char) *x)) {
        rx_error (ps, start, "malformed number '%.*s'", (int) (x - start), start);
        return -1;
      }
      while (isdigit ((unsigned char) *x))
        x++;
      e = x;
    }
    if (isalpha ((unsigned char) *e) || *e == '_' || *e == '.') {
      const char *x = e;
      while (isalnum ((unsigned char) *x) || *x == '_' || *x == '.')
        x++;
      rx_error (ps, start, "malformed number '%.*s'", (int) (x - start), start);
      return -1;
    }
    /* strtod reads the locale's decimal point; copy with '.' only */
    char num[128];
    size_t len = (size_t) (e - start);
    if (len >= sizeof num) {
      rx_error (ps, start, "number too long");
      return -1;
    }
    memcpy (num, start, len);
    num[len] = '\0';
    ps->p = e;
    int n = rx_node (ps, X_CONST, 0, 0, 0, 0);
    if (n >= 0)
      ps->e->nodes[n].k = strtod (num, NULL);
    return n;
  }
  if (isalpha ((unsigned char) *start) || *start == '_') {
    const char *e = start;
    while (isalnum ((unsigned char) *e) || *e == '_')
      e++;
    ps->p = e;
    if (rx_accept (ps, "("))
      return rx_call (ps, start, (size_t) (e - start));
    char why[200] = "";
    int slot = ps->intern (start, (size_t) (e - start), ps->data, why, sizeof why);
    if (slot < 0) {
      rx_error (ps, start, "%s", why[0] ? why : "unknown name");
      return -1;
    }
    if (!rx_add_slot (ps, slot)) {
      rx_error (ps, start, "out of memory");
      return -1;
    }
    int n = rx_node (ps, X_LOAD, 0, 0, 0, 0);
    if (n >= 0)
      ps->e->nodes[n].slot = slot;
    return n;
  }
  if (rx_accept (ps, "(")) {
    int n = rx_cond (ps);
    if (n < 0)
      return -1;
    if (!rx_accept (ps, ")")) {
      char what[80];
      rx_describe (ps->p, what, sizeof what);
      rx_error (ps, ps->p, "expected ')', found %s", what);
      return -1;
    }
    return n;
  }
  if (*start == '\0' || strchr ("+-*/%^<>=!&|?:,)", *start) != NULL)
    rx_error (ps, start, "expected a value");
  else
    rx_error (ps, start, "unexpected character '%c'", *start);
  return -1;
}

static int
rx_pow (RxParser *ps)
{
  int a = rx_atom (ps);
  if (a < 0 || !rx_accept (ps, "^"))
    return a;
  int b = rx_unary (ps);
  return b < 0 ? -1 : rx_node (ps, X_POW, 2, a, b, 0);
}

static int
rx_unary (RxParser *ps)
{
  rx_space (ps);
  if (++ps->depth > RX_MAX_NESTING) {
    rx_error (ps, ps->p, "expression nested too deeply");
    return -1;
  }
  int r;
  if (rx_accept (ps, "-")) {
    int a = rx_unary (ps);
    r = a < 0 ? -1 : rx_node (ps, X_NEG, 1, a, 0, 0);
  } else if (rx_accept (ps, "+"))
    r = rx_unary (ps);
  else if (rx_accept (ps, "!")) {
    int a = rx_unary (ps);
    r = a < 0 ? -1 : rx_node (ps, X_NOT, 1, a, 0, 0);
  } else
    r = rx_pow (ps);
  ps->depth--;
  return r;
}

typedef struct { const char *tok; int op; } RxTok;

static int
rx_level (RxParser *ps, int (*sub) (RxParser *), const RxTok *toks, int ntoks)
{
  int a = sub (ps);
  while (a >= 0) {
    int hit = -1;
    for (int i = 0; i < ntoks && hit < 0; i++)
      if (rx_accept (ps, toks[i].tok))
        hit = i;
    if (hit < 0)
      break;
    int b = sub (ps);
    if (b < 0)
      return -1;
    a = rx_node (ps, toks[hit].op, 2, a, b, 0);
  }
  return a;
}

static int
rx_prod (RxParser *ps)
{
  static const RxTok t[] = { { "*", X_MUL }, { "/", X_DIV }, { "%", X_MOD } };
  return rx_level (ps, rx_unary, t, 3);
}

static int
rx_sum (RxParser *ps)
{
  static const RxTok t[] = { { "+", X_ADD }, { "-", X_SUB } };
  return rx_level (ps, rx_prod, t, 2);
}

static int
rx_cmp (RxParser *ps)
{
  static const RxTok t[] = { { "<=", X_LE }, { ">=", X_GE }, { "==", X_EQ }, { "!=", X_NE },
                             { "<", X_LT }, { ">", X_GT } };
  return rx_level (ps, rx_sum, t, 6);
}

static int
rx_and (RxParser *ps)
{
  static const RxTok t[] = { { "&&", X_AND } };
  return rx_level (ps, rx_cmp, t, 1);
}

static int
rx_or (RxParser *ps)
{
  static const RxTok t[] = { { "||", X_OR } };
  return rx_level (ps, rx_and, t, 1);
}

static int
rx_cond (RxParser *ps)
{
  if (++ps->depth > RX_MAX_NESTING) {
    rx_error (ps, ps->p, "expression nested too deeply");
    return -1;
  }
  int c = rx_or (ps);
  if (c >= 0 && rx_accept (ps, "?")) {
    int x = rx_cond (ps), y = -1;
    if (x >= 0) {
      if (rx_accept (ps, ":"))
        y = rx_cond (ps);
      else {
        char what[80];
        rx_describe (ps->p, what, sizeof what);
        rx_error (ps, ps->p, "expected ':', found %s", what);
      }
    }
    c = y < 0 ? -1 : rx_node (ps, X_COND, 3, c, x, y);
  }
  ps->depth--;
  return c;
}

PtiRxExpr *
pti_rx_compile (const char *text, PtiRxInternFunc intern, void *data, char *err, size_t err_len)
{
  PtiRxExpr *e = calloc (1, sizeof *e);
  if (e == NULL) {
    snprintf (err, err_len, "out of memory");
    return NULL;
  }
  RxParser ps = { .e = e, .text = text, .p = text, .intern = intern, .data = data,
                  .err = err, .err_len = err_len };
  rx_space (&ps);
  if (*ps.p == '\0') {
    rx_error (&ps, ps.p, "empty expression");
    pti_rx_free (e);
    return NULL;
  }
  e->root = rx_cond (&ps);
  if (e->root >= 0) {
    rx_space (&ps);
    if (*ps.p != '\0') {
      char what[80];
      rx_describe (ps.p, what, sizeof what);
      rx_error (&ps, ps.p, "unexpected %s after the expression", what);
    }
  }
  if (ps.failed || e->root < 0) {
    pti_rx_free (e);
    return NULL;
  }
  return e;
}

static double
rx_cmp_result (int truth, double a, double b)
{
  return isnan (a) || isnan (b) ? NAN : truth ? 1.0 : 0.0;
}

static double
rx_eval (const PtiRxExpr *e, int i, const double *v)
{
  const RxNode *x = &e->nodes[i];
  double a, b;
  switch (x->op) {
  case X_CONST: return x->k;
  case X_LOAD: return v[x->slot];
  case X_AND:
    a = rx_eval (e, x->kid[0], v);
    if (isnan (a) || a == 0)
      return isnan (a) ? a : 0;
    b = rx_eval (e, x->kid[1], v);
    return isnan (b) ? b : (b != 0);
  case X_OR:
    a = rx_eval (e, x->kid[0], v);
    if (isnan (a) || a != 0)
      return isnan (a) ? a : 1;
    b = rx_eval (e, x->kid[1], v);
    return isnan (b) ? b : (b != 0);
  case X_COND:
    a = rx_eval (e, x->kid[0], v);
    if (isnan (a))
      return a;
    return rx_eval (e, a != 0 ? x->kid[1] : x->kid[2], v);
  case X_MIN:
  case X_MAX: {
    double r = rx_eval (e, e->args[x->kid[0]], v);
    for (int k = 1; k < x->n; k++) {
      double y = rx_eval (e, e->args[x->kid[0] + k], v);
      if (isnan (y) || isnan (r))
        return NAN;
      if (x->op == X_MIN ? y < r : y > r)
        r = y;
    }
    return r;
  }
  default:
    break;
  }
  a = rx_eval (e, x->kid[0], v);
  switch (x->op) {
  case X_NEG: return -a;
  case X_NOT: return isnan (a) ? a : (a == 0 ? 1.0 : 0.0);
  case X_BOOL: return isnan (a) ? a : (a != 0 ? 1.0 : 0.0);
  case X_FLOOR: return floor (a);
  case X_CEIL: return ceil (a);
  case X_ROUND: return round (a);
  case X_ABS: return fabs (a);
  case X_LOG2: return log2 (a);
  case X_SQRT: return sqrt (a);
  default: break;
  }
  b = rx_eval (e, x->kid[1], v);
  switch (x->op) {
  case X_ADD: return a + b;
  case X_SUB: return a - b;
  case X_MUL: return a * b;
  case X_DIV: return a / b;
  case X_MOD: {
    double r = fmod (a, b);
    if (r != 0 && ((r < 0) != (b < 0)))
      r += b;
    return r;
  }
  case X_POW: return isnan (a) || isnan (b) ? NAN : pow (a, b);
  case X_IDIV: return floor (a / b);
  case X_LT: return rx_cmp_result (a < b, a, b);
  case X_LE: return rx_cmp_result (a <= b, a, b);
  case X_GT: return rx_cmp_result (a > b, a, b);
  case X_GE: return rx_cmp_result (a >= b, a, b);
  case X_EQ: return rx_cmp_result (a == b, a, b);
  case X_NE: return rx_cmp_result (a != b, a, b);
  default: return NAN;
  }
}

double
pti_rx_eval (const PtiRxExpr *e, const double *slots)
{
  return rx_eval (e, e->root, slots);
}

int
pti_rx_n_slots (const PtiRxExpr *e)
{
  return e->n_slots;
}

const int *
pti_rx_slots (const PtiRxExpr *e)
{
  return e->slots;
}

void
pti_rx_free (PtiRxExpr *e)
{
  if (e == NULL)
    return;
  free (e->nodes);
  free (e->args);
  free (e->slots);
  free (e);
}
