/* The compiled form of an expression (pti/expr.h), for pti's own hot
 * paths that evaluate one inline: the workload-file interpreter
 * (pti_expr_eval_inline).  Not installed: models call pti_expr_eval. */
#pragma once

#include <pti/expr.h>
#include <math.h>

G_BEGIN_DECLS


typedef enum {
  OP_CONST, OP_LOAD,
  /* unary */
  OP_NEG, OP_NOT, OP_BOOL,
  OP_FLOOR, OP_CEIL, OP_ROUND, OP_ABS, OP_LOG2, OP_SQRT,
  /* binary */
  OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD, OP_POW, OP_IDIV,
  OP_LT, OP_LE, OP_GT, OP_GE, OP_EQ, OP_NE,
  /* n-ary (tree and code) */
  OP_MIN, OP_MAX,
  /* tree only */
  OP_AND, OP_OR, OP_COND,
  /* code only: jumps */
  OP_AND_JZ,                    /* top NaN: keep, jump; 0: top = 0, jump; else pop */
  OP_OR_JNZ,                    /* top NaN: keep, jump; nonzero: top = 1, jump; else pop */
  OP_JZ,                        /* pop; NaN: push NaN, jump t[1]; 0: jump t[0] */
  OP_JMP,
} Op;

static inline double
floored_mod (double a, double b)
{
  double r = fmod (a, b);
  if (r != 0 && ((r < 0) != (b < 0)))
    r += b;
  return r;
}

static inline double
cmp_result (int truth, double a, double b)
{
  if (G_UNLIKELY (isnan (a) || isnan (b)))
    return NAN;
  return truth ? 1.0 : 0.0;
}

static inline double
apply_binary (Op op, double a, double b)
{
  switch (op)
    {
    case OP_ADD:  return a + b;
    case OP_SUB:  return a - b;
    case OP_MUL:  return a * b;
    case OP_DIV:  return a / b;
    case OP_MOD:  return floored_mod (a, b);
    case OP_POW:  return isnan (a) || isnan (b) ? NAN : pow (a, b);
    case OP_IDIV: return floor (a / b);
    case OP_LT:   return cmp_result (a < b, a, b);
    case OP_LE:   return cmp_result (a <= b, a, b);
    case OP_GT:   return cmp_result (a > b, a, b);
    case OP_GE:   return cmp_result (a >= b, a, b);
    case OP_EQ:   return cmp_result (a == b, a, b);
    case OP_NE:   return cmp_result (a != b, a, b);
    default:      return NAN;
    }
}

#define STACK_MAX 64

typedef struct {
  guint32 op;
  union {
    double  k;                  /* OP_CONST */
    guint32 slot;               /* OP_LOAD */
    guint32 n;                  /* OP_MIN, OP_MAX: number of operands */
    guint32 t[2];               /* jumps: targets */
  };
} Insn;

/* Shapes evaluated without the stack machine: most expressions of a
 * workload's statements are a name, or a name compared with or combined
 * with a number or another name. */
typedef enum {
  SHAPE_CODE,                   /* anything else: run the code */
  SHAPE_LOAD,                   /* x */
  SHAPE_LOAD_K,                 /* x OP k */
  SHAPE_LOAD_LOAD,              /* x OP y */
} Shape;

struct _PtiExpr {
  char   *text;
  Insn   *code;
  guint   ncode;
  Shape   shape;
  Op      shape_op;
  guint  *slots;                /* slots read, first occurrence order */
  guint   nslots;
  gboolean constant;
  double   value;               /* when constant */
};


struct _PtiSymbols {
  GHashTable *index;            /* name (owned by names) -> slot + 1 */
  GPtrArray  *names;            /* slot -> name (owned) */
  GArray     *values;           /* slot -> double */
};

/* pti_symbols_values and pti_symbols_set without a call (into another
 * library) or a check, for pti's hot paths, whose slots come from compiled
 * expressions and interned names: valid. */
static inline const double *
pti_symbols_values_inline (const PtiSymbols *symbols)
{
  return (const double *) symbols->values->data;
}

static inline void
pti_symbols_set_inline (PtiSymbols *symbols, guint slot, double value)
{
  ((double *) symbols->values->data)[slot] = value;
}

/* pti_expr_eval's shapes, evaluated here without a call; the rest call.
 * Always inlined: out of line, the call costs as much as the shapes. */
static inline __attribute__ ((always_inline)) double
pti_expr_eval_inline (const PtiExpr *expr, const PtiSymbols *symbols)
{
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
      return expr->constant ? expr->value : pti_expr_eval (expr, symbols);
    }
}

G_END_DECLS
