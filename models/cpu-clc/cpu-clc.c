/* cpu-clc: the PTI paper's C-operation cost model.
 *
 * A computation is described by a CPU RUD: a control-flow tree of loops,
 * computes and cases whose nodes carry counted C-language operations
 * (`of="LFOR,CMLL,INLL"`, `of="2*CMLL,ANDL"`).  Its time is the sum of the
 * operations it performs, each priced at the cost one operation of that code
 * takes on the target CPU (measured by a micro-benchmark and given in the
 * `<cpu_clc>` configuration).  README.md has the equations, the code table
 * and what in it comes from the paper and what is inferred.
 *
 * Compiling.  Because the cost is linear in the operation costs, the tree is
 * folded at compile time: every node whose multiplier (a loop's `iter`, a
 * branch's `exprob`) is a constant dissolves into its parent, its operation
 * counts scaled by that constant and merged into the parent's per-code count
 * vector.  What is left is a tree of blocks, one per node with a multiplier
 * that depends on parameters, stored flat in pre-order:
 *
 *   value(block) = scale * factor * ( sum_k count_k * t(code_k)        constant terms
 *                                   + sum_j s_j * c_j(params) * t(code_j)   counted by expressions
 *                                   + sum value(child block) )
 *
 * A RUD whose only parameter is one loop's `iter` thus costs one expression
 * evaluation and one short dot product per use.
 *
 * Errors on the hot path.  A value out of range (a negative count, an
 * exprob outside [0,1]) is turned into NaN where it is read, and NaN from an
 * unbound parameter or an unconfigured operation (whose cost is NaN)
 * propagates to the total.  So the hot path tests one thing, whether the
 * total is finite, and only then walks the RUD again, slowly, to name the
 * cause with its file and line. */
#include <pti/hmi.h>

#include <math.h>
#include <string.h>

/* The embedded schema (models/cpu-clc/cpu-clc.xsd, generated from the table
 * below by gen-xsd.py). */
extern const char pti_cpu_clc_xsd[];

/* ---- operation codes ---------------------------------------------------- */

/* X (CODE, "origin", "meaning").  gen-xsd.py reads these lines to write the
 * XSD, so keep one entry a line and this exact shape.  Origins: "paper" the
 * code appears in the PTI paper (seed 001); "pattern" derived from the naming
 * rule (operation, operand type, scope); "PACE" recalled from PACE hardware
 * object listings, meaning inferred. */
#define CLC_CODES(X) \
  X (AISL, "pattern", "add or subtract, int short, local") \
  X (AISG, "pattern", "add or subtract, int short, global") \
  X (AILL, "pattern", "add or subtract, int long, local") \
  X (AILG, "pattern", "add or subtract, int long, global") \
  X (AFSL, "paper", "add or subtract, float single, local") \
  X (AFSG, "pattern", "add or subtract, float single, global") \
  X (AFDL, "pattern", "add or subtract, float double, local") \
  X (AFDG, "pattern", "add or subtract, float double, global") \
  X (ACHL, "pattern", "add or subtract, char, local") \
  X (ACHG, "pattern", "add or subtract, char, global") \
  X (MISL, "pattern", "multiply, int short, local") \
  X (MISG, "pattern", "multiply, int short, global") \
  X (MILL, "pattern", "multiply, int long, local") \
  X (MILG, "pattern", "multiply, int long, global") \
  X (MFSL, "paper", "multiply, float single, local") \
  X (MFSG, "pattern", "multiply, float single, global") \
  X (MFDL, "pattern", "multiply, float double, local") \
  X (MFDG, "pattern", "multiply, float double, global") \
  X (MCHL, "pattern", "multiply, char, local") \
  X (MCHG, "pattern", "multiply, char, global") \
  X (DISL, "pattern", "divide, int short, local") \
  X (DISG, "pattern", "divide, int short, global") \
  X (DILL, "pattern", "divide, int long, local") \
  X (DILG, "paper", "divide, int long, global") \
  X (DFSL, "paper", "divide, float single, local") \
  X (DFSG, "pattern", "divide, float single, global") \
  X (DFDL, "pattern", "divide, float double, local") \
  X (DFDG, "pattern", "divide, float double, global") \
  X (DCHL, "pattern", "divide, char, local") \
  X (DCHG, "pattern", "divide, char, global") \
  X (TISL, "pattern", "assignment, int short, local") \
  X (TISG, "pattern", "assignment, int short, global") \
  X (TILL, "pattern", "assignment, int long, local") \
  X (TILG, "pattern", "assignment, int long, global") \
  X (TFSL, "paper", "assignment, float single, local") \
  X (TFSG, "pattern", "assignment, float single, global") \
  X (TFDL, "pattern", "assignment, float double, local") \
  X (TFDG, "pattern", "assignment, float double, global") \
  X (TCHL, "pattern", "assignment, char, local") \
  X (TCHG, "pattern", "assignment, char, global") \
  X (CMSL, "pattern", "compare, int short, local") \
  X (CMSG, "pattern", "compare, int short, global") \
  X (CMLL, "paper", "compare, int long, local") \
  X (CMLG, "pattern", "compare, int long, global") \
  X (CMFL, "pattern", "compare, float single, local") \
  X (CMFG, "pattern", "compare, float single, global") \
  X (CMDL, "pattern", "compare, float double, local") \
  X (CMDG, "pattern", "compare, float double, global") \
  X (INSL, "pattern", "increment or decrement, int short, local") \
  X (INSG, "pattern", "increment or decrement, int short, global") \
  X (INLL, "paper", "increment or decrement, int long, local") \
  X (INLG, "pattern", "increment or decrement, int long, global") \
  X (SISL, "PACE", "store (inferred: scalar store), int short, local") \
  X (SISG, "PACE", "store (inferred: scalar store), int short, global") \
  X (SILL, "PACE", "store (inferred: scalar store), int long, local") \
  X (SILG, "PACE", "store (inferred: scalar store), int long, global") \
  X (SFSL, "PACE", "store (inferred: scalar store), float single, local") \
  X (SFSG, "PACE", "store (inferred: scalar store), float single, global") \
  X (SFDL, "PACE", "store (inferred: scalar store), float double, local") \
  X (SFDG, "PACE", "store (inferred: scalar store), float double, global") \
  X (SCHL, "PACE", "store (inferred: scalar store), char, local") \
  X (SCHG, "PACE", "store (inferred: scalar store), char, global") \
  X (ANDL, "paper", "logical and (&&)") \
  X (ORLL, "pattern", "logical or (||)") \
  X (NOTL, "pattern", "logical not (!)") \
  X (IFBR, "paper", "if: test of the condition and branch") \
  X (LFOR, "paper", "for loop: overhead of one iteration") \
  X (FCAL, "PACE", "function call and return") \
  X (ARF1, "paper", "array element reference, 1 dimension (address computation)") \
  X (ARF2, "paper", "array element reference, 2 dimensions (address computation)") \
  X (ARF3, "pattern", "array element reference, 3 dimensions (address computation)") \
  X (ARF4, "pattern", "array element reference, 4 dimensions (address computation)") \
  X (IADD, "paper", "integer add (named so in the paper's configuration example)")

typedef struct {
  const char *code;
  const char *origin;
  const char *meaning;
} ClcCode;

#define CLC_ENTRY(c, o, m) { #c, o, m },
static const ClcCode clc_codes[] = { CLC_CODES (CLC_ENTRY) };
#undef CLC_ENTRY

#define N_CODES G_N_ELEMENTS (clc_codes)
/* A compiled RUD counts each code twice: slot k (< N_CODES) the operations
 * it performs (`of`), slot N_CODES + k those on a loop's carried chain
 * (`chain`), priced at the code's latency (overlap="units") or not at all. */
#define N_SLOTS (2 * N_CODES)
#define MASK_WORDS ((N_SLOTS + 63) / 64)

/* ---- execution units (overlap="units") -------------------------------------
 *
 * Operations that run on different units of an out-of-order core overlap;
 * those of one unit follow each other at its reciprocal throughput.  A
 * code's unit is that of the instruction its statement compiles to (the one
 * calibrate/gen-clc-bench.py lists for it and tests/calibrate checks in the
 * generated code): add/sub/inc/lea/cmp/test/and/or on the integer ALUs, imul,
 * idiv, addsd/comisd on the floating-point adders, mulsd, divsd, mov
 * (assignments, often removed by register renaming), loads (array
 * references), stores, branches and calls.  The chain slots form a unit of
 * their own: the latency of the dependences one iteration hands the next. */
typedef enum {
  UNIT_INT, UNIT_IMUL, UNIT_IDIV, UNIT_FADD, UNIT_FMUL, UNIT_FDIV, UNIT_MOVE, UNIT_LOAD,
  UNIT_STORE, UNIT_BRANCH, UNIT_CHAIN, N_UNITS
} ClcUnit;

static ClcUnit
code_unit (const char *code)
{
  gboolean fp = code[1] == 'F';                       /* A?F?, M?F?, D?F?: float, double */
  switch (code[0]) {
  case 'A':
    return strncmp (code, "ARF", 3) == 0 ? UNIT_LOAD : fp ? UNIT_FADD : UNIT_INT;   /* ANDL */
  case 'M':
    return fp ? UNIT_FMUL : UNIT_IMUL;
  case 'D':
    return fp ? UNIT_FDIV : UNIT_IDIV;
  case 'T':
    return UNIT_MOVE;
  case 'S':
    return UNIT_STORE;
  case 'C':                                           /* CM?: compare; F, D on the FP adders */
    return code[2] == 'F' || code[2] == 'D' ? UNIT_FADD : UNIT_INT;
  case 'I':
    return strcmp (code, "IFBR") == 0 ? UNIT_BRANCH : UNIT_INT;   /* IN??, IADD */
  case 'L':
  case 'F':                                           /* LFOR, FCAL */
    return UNIT_BRANCH;
  default:                                            /* ORLL, NOTL */
    return UNIT_INT;
  }
}

static int
code_lookup (const char *name)
{
  for (guint i = 0; i < N_CODES; i++)
    if (strcmp (clc_codes[i].code, name) == 0)
      return (int) i;
  return -1;
}

#define CLC_NAME(c, o, m) #c,
static const char *const clc_names[] = { CLC_CODES (CLC_NAME) };
#undef CLC_NAME

/* " (nearest: X, Y)": up to three known codes close to @name. */
static char *
code_suggestions (const char *name)
{
  g_autofree char *near = pti_nearest_names (name, clc_names, N_CODES);
  if (near == NULL)
    return g_strdup (" (no known code is close; see the cpu-clc README)");
  return g_strdup_printf (" (nearest: %s)", near);
}

/* ---- instance (configuration) ------------------------------------------ */

typedef struct {
  double cost[N_SLOTS];   /* s per operation; NaN if not configured.  Chain slots:
                             the latency (overlap), NaN if not configured; 0 (sum) */
  guint8 exec[N_SLOTS];   /* ClcUnit of each slot */
  gboolean overlap;       /* overlap="units": per block, the busiest unit or the chain */
  double window;          /* operations in flight (the window attribute); 0: none */
  double unit;            /* s per unit of the configuration */
  double speed_ratio;     /* measured times are divided by it; 0 if not configured */
  double flop_rate;       /* flops per s; 0 if not configured */
} CpuClc;

static const struct {
  const char *name;
  double seconds;
} time_units[] = {
  { "s", 1.0 }, { "ms", 1e-3 }, { "us", 1e-6 }, { "ns", 1e-9 }, { "ps", 1e-12 },
};

static gboolean
is_blank (const xmlChar *text)
{
  for (const xmlChar *p = text; p && *p; p++)
    if (!g_ascii_isspace (*p))
      return FALSE;
  return TRUE;
}

/* The attribute @attr of @el as a non-negative number into @out, left as it
 * is when the attribute is absent; @what says what it counts in the error. */
static gboolean
nonnegative_attr (const xmlNode *el, const char *attr, const char *what, double *out,
                  GError **error)
{
  xmlChar *text = xmlGetProp (el, (const xmlChar *) attr);
  if (text == NULL)
    return TRUE;
  char *end = NULL;
  double v = g_ascii_strtod ((const char *) text, &end);
  gboolean ok = end != (char *) text && *end == '\0' && isfinite (v) && v >= 0;
  if (ok)
    *out = v;
  else
    pti_node_error (error, el, "%s '%.32s' is not a non-negative number (%s)", attr,
                    (const char *) text, what);
  xmlFree (text);
  return ok;
}

static gboolean
impl_configure (gpointer instance, const xmlNode *config, GError **error)
{
  CpuClc *self = instance;

  for (guint i = 0; i < N_CODES; i++) {
    self->cost[i] = NAN;
    self->exec[i] = (guint8) code_unit (clc_codes[i].code);
    self->exec[N_CODES + i] = UNIT_CHAIN;
  }

  xmlChar *overlap = xmlGetProp (config, (const xmlChar *) "overlap");
  gboolean overlap_ok = overlap == NULL || strcmp ((const char *) overlap, "none") == 0
                        || strcmp ((const char *) overlap, "units") == 0;
  self->overlap = overlap != NULL && strcmp ((const char *) overlap, "units") == 0;
  if (!overlap_ok) {
    pti_node_error (error, config, "unknown overlap '%s' (known: none, the paper's sum; units)",
                    (const char *) overlap);
    xmlFree (overlap);
    return FALSE;
  }
  xmlFree (overlap);
  /* The window: how many operations (as a RUD counts them) the core holds in
   * flight, measured by pticalibrate; overlap="units" lets a `restart` loop's
   * chain begin under the previous execution's by that much. */
  self->window = 0;
  if (!nonnegative_attr (config, "window", "operations", &self->window, error))
    return FALSE;
  /* Without overlap a chain costs nothing: the sum already holds its operations. */
  for (guint i = 0; i < N_CODES; i++)
    self->cost[N_CODES + i] = self->overlap ? NAN : 0.0;

  xmlChar *unit = xmlGetProp (config, (const xmlChar *) "unit");
  self->unit = 0;
  for (guint i = 0; unit != NULL && i < G_N_ELEMENTS (time_units); i++)
    if (strcmp ((const char *) unit, time_units[i].name) == 0)
      self->unit = time_units[i].seconds;
  if (self->unit == 0) {
    pti_node_error (error, config,
                    unit ? "unknown unit '%s' (known: s, ms, us, ns, ps)"
                         : "%sthe unit attribute is required (s, ms, us, ns or ps): "
                           "costs are never read in a guessed unit",
                    unit ? (const char *) unit : "");
    xmlFree (unit);
    return FALSE;
  }
  xmlFree (unit);

  gboolean seen[N_CODES] = { FALSE };
  for (const xmlNode *n = config->children; n != NULL; n = n->next) {
    if (n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE) {
      if (!is_blank (n->content))
        return pti_node_error (error, config,
                               "unexpected text; one child element per operation code");
      continue;
    }
    if (n->type != XML_ELEMENT_NODE)
      continue;
    const char *name = (const char *) n->name;
    if (strcmp (name, "speed_ratio") == 0 || strcmp (name, "flop_rate") == 0) {
      gboolean ratio = name[0] == 's';
      if ((ratio ? self->speed_ratio : self->flop_rate) > 0)
        return pti_node_error (error, n, "<%s> is given twice", name);
      double v = 0;
      if (ratio ? !pti_config_get_number (config, name, PTI_RANGE_SENSE_FASTER_WHEN_HIGHER, &v,
                                          error)
                : !pti_config_get_flop_rate (config, name, &v, error))
        return FALSE;
      if (!(isfinite (v) && v > 0))
        return pti_node_error (error, n, "%s must be a positive number, not %g", name, v);
      *(ratio ? &self->speed_ratio : &self->flop_rate) = v;
      continue;
    }
    int code = code_lookup (name);
    if (code < 0) {
      g_autofree char *hint = code_suggestions (name);
      return pti_node_error (error, n, "unknown operation code '%.32s'%s", name, hint);
    }
    if (seen[code])
      return pti_node_error (error, n, "operation code %s is configured twice", name);
    seen[code] = TRUE;

    double v = 0;
    if (!pti_config_node_number (n, PTI_RANGE_SENSE_SLOWER_WHEN_HIGHER, &v, error))
      return FALSE;
    if (v < 0)
      return pti_node_error (error, n, "%g is not a non-negative number (cost of one %s)", v,
                             name);
    self->cost[code] = v * self->unit;

    double l = NAN;
    g_autofree char *of_one = g_strdup_printf ("of one %s", name);
    if (!nonnegative_attr (n, "latency", of_one, &l, error))
      return FALSE;
    if (!isnan (l) && self->overlap)
      self->cost[N_CODES + code] = l * self->unit;
  }
  return TRUE;
}

static void
impl_finalize (gpointer instance)
{
  /* configure allocates nothing */
}

/* ---- compiled RUD ------------------------------------------------------- */

typedef enum {
  ELEM_RUD,
  ELEM_LOOP,
  ELEM_COMPUTE,
  ELEM_CASE,
  ELEM_BRANCH,
} ElemKind;

static const char *const elem_names[] = { "rud", "loop", "compute", "case", "branch" };

/* Where an expression or a block came from, for errors at cost time. */
typedef struct {
  guint32 line;
  guint8 elem;     /* ElemKind */
} Origin;

typedef struct {
  guint32 code;
  double count;    /* constant multiplicity (scaled by folded constants) */
} ConstTerm;

typedef struct {
  const PtiExpr *count; /* owned (freed through the Compiled) */
  double scale;         /* constant multiplier folded from dissolved ancestors */
  guint32 code;
  Origin origin;
} DynTerm;

typedef struct {
  const PtiExpr *factor; /* owned; NULL only for the root */
  double scale;
  guint32 const_first, const_end;
  guint32 dyn_first, dyn_end;
  guint32 end;           /* one past this block's last descendant (pre-order) */
  Origin origin;         /* of the loop (iter) or branch (exprob) */
  gboolean restart;      /* a loop with restart="yes": each execution starts its chain */
} Block;

typedef struct {
  Block *blocks;
  ConstTerm *terms;
  DynTerm *dyn;
  guint32 n_blocks, n_terms, n_dyn;
  guint64 used[MASK_WORDS];     /* codes the RUD uses */
  Origin first_use[N_SLOTS];    /* where each used code first appears */
  char *url;                    /* document of the RUD, for errors */
  guint *slots;                 /* every slot any expression reads (rud_slots) */
  guint n_slots;
} Compiled;

static void
impl_rud_free (gpointer compiled)
{
  Compiled *c = compiled;
  if (c == NULL)
    return;
  for (guint32 i = 0; i < c->n_blocks; i++)
    pti_expr_free ((PtiExpr *) c->blocks[i].factor);
  for (guint32 i = 0; i < c->n_dyn; i++)
    pti_expr_free ((PtiExpr *) c->dyn[i].count);
  g_free (c->blocks);
  g_free (c->terms);
  g_free (c->dyn);
  g_free (c->url);
  g_free (c->slots);
  g_free (c);
}

static void
add_slots (GArray *all, const PtiExpr *e)
{
  guint n;
  const guint *slots = e ? pti_expr_slots (e, &n) : NULL;
  for (guint i = 0; slots && i < n; i++) {
    gboolean seen = FALSE;
    for (guint j = 0; j < all->len && !seen; j++)
      seen = g_array_index (all, guint, j) == slots[i];
    if (!seen)
      g_array_append_val (all, slots[i]);
  }
}

/* The parameters a price depends on: those of every iter, exprob and count. */
static void
collect_slots (Compiled *c)
{
  GArray *all = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint32 i = 0; i < c->n_blocks; i++)
    add_slots (all, c->blocks[i].factor);
  for (guint32 i = 0; i < c->n_dyn; i++)
    add_slots (all, c->dyn[i].count);
  c->n_slots = all->len;
  c->slots = (guint *) g_array_free (all, FALSE);
}

static const guint *
impl_rud_slots (gconstpointer compiled, guint *n_slots)
{
  const Compiled *c = compiled;
  *n_slots = c->n_slots;
  return c->slots;
}

/* ---- compiling ---------------------------------------------------------- */

#define NEGATIVE_ITER "a trip count cannot be negative"
#define NEGATIVE_COUNT "an operation count cannot be negative"
#define BAD_PROB "a probability must lie in [0, 1]"

/* A block while compiling: dense count vector, owned expressions. */
typedef struct _TmpBlock TmpBlock;
struct _TmpBlock {
  PtiExpr *factor;
  double scale;
  Origin origin;
  gboolean restart;
  double counts[N_SLOTS];
  gboolean has[N_SLOTS];
  GArray *dyn;          /* DynTerm, count owned */
  GPtrArray *children;  /* TmpBlock * */
};

static void tmp_block_free (TmpBlock *b);

static TmpBlock *
tmp_block_new (Origin origin)
{
  TmpBlock *b = g_new0 (TmpBlock, 1);
  b->scale = 1.0;
  b->origin = origin;
  b->dyn = g_array_new (FALSE, FALSE, sizeof (DynTerm));
  b->children = g_ptr_array_new_with_free_func ((GDestroyNotify) tmp_block_free);
  return b;
}

static void
tmp_block_free (TmpBlock *b)
{
  if (b == NULL)
    return;
  pti_expr_free (b->factor);
  for (guint i = 0; i < b->dyn->len; i++)
    pti_expr_free ((PtiExpr *) g_array_index (b->dyn, DynTerm, i).count);
  g_array_free (b->dyn, TRUE);
  g_ptr_array_free (b->children, TRUE);
  g_free (b);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TmpBlock, tmp_block_free)

/* Merges @child, whose multiplier is the constant @f, into @parent and frees
 * it: cost is linear, so f * (a + b) = f*a + f*b term by term. */
static void
tmp_block_dissolve (TmpBlock *parent, TmpBlock *child, double f)
{
  double s = f * child->scale;
  for (guint k = 0; k < N_SLOTS; k++)
    if (child->has[k]) {
      parent->counts[k] += s * child->counts[k];
      parent->has[k] = TRUE;
    }
  for (guint i = 0; i < child->dyn->len; i++) {
    DynTerm t = g_array_index (child->dyn, DynTerm, i);
    t.scale *= s;
    g_array_append_val (parent->dyn, t);
  }
  g_array_set_size (child->dyn, 0);
  for (guint i = 0; i < child->children->len; i++) {
    TmpBlock *g = g_ptr_array_index (child->children, i);
    g->scale *= s;
    g_ptr_array_add (parent->children, g);
  }
  g_ptr_array_set_free_func (child->children, NULL);
  g_ptr_array_set_size (child->children, 0);
  g_ptr_array_set_free_func (child->children, (GDestroyNotify) tmp_block_free);
  tmp_block_free (child);
}

typedef struct {
  PtiSymbols *symbols;
  guint64 used[MASK_WORDS];
  Origin first_use[N_SLOTS];
} CompileCtx;

static guint32
node_line (const PtiRudNode *node)
{
  return node->line > 0 ? (guint32) node->line : 0;
}

static gboolean
check_type (const PtiRudNode *node, GError **error)
{
  const char *type = pti_rud_attr (node, "type");
  if (type != NULL && strcmp (type, "clc") != 0)
    return pti_rud_error (error, node,
                          "type '%s' is not supported by cpu-clc (only type=\"clc\")", type);
  return TRUE;
}

static void
mark_used (CompileCtx *cx, guint code, Origin origin)
{
  guint64 bit = G_GUINT64_CONSTANT (1) << (code % 64);
  if (!(cx->used[code / 64] & bit)) {
    cx->used[code / 64] |= bit;
    cx->first_use[code] = origin;
  }
}

/* Compiles an attribute holding an expression.  A constant is returned in
 * @value with *@expr NULL; otherwise *@expr is the compiled expression. */
static gboolean
compile_expr (CompileCtx *cx, const PtiRudNode *node, const char *attr, const char *text,
              PtiExpr **expr, double *value, GError **error)
{
  g_autoptr (GError) local = NULL;
  PtiExpr *e = pti_expr_compile (text, cx->symbols, &local);
  if (e == NULL)
    return pti_rud_error (error, node, "%s: %s", attr,
                          local ? local->message : "invalid expression");
  double v;
  if (pti_expr_is_constant (e, &v)) {
    pti_expr_free (e);
    if (!isfinite (v))
      return pti_rud_error (error, node, "%s=\"%s\" is not a finite number", attr, text);
    *expr = NULL;
    *value = v;
  } else {
    *expr = e;
    *value = NAN;
  }
  return TRUE;
}

/* The operations of @node's `of` list into @into; with @chain, those of
 * its `chain` list, into the chain slots. */
static gboolean
fold_ops (CompileCtx *cx, const PtiRudNode *node, ElemKind kind, gboolean chain, TmpBlock *into,
          GError **error)
{
  Origin origin = { node_line (node), (guint8) kind };
  const char *attr = chain ? "chain" : "of";
  guint n_ops = chain ? node->n_chain : node->n_ops;
  for (guint i = 0; i < n_ops; i++) {
    const PtiRudOp *op = chain ? &node->chain[i] : &node->ops[i];
    int code = code_lookup (op->code);
    if (code < 0) {
      g_autofree char *hint = code_suggestions (op->code);
      return pti_rud_error (error, node, "%sunknown operation code '%.32s'%s",
                            chain ? "chain: " : "", op->code, hint);
    }
    if (chain)
      code += (int) N_CODES;
    mark_used (cx, (guint) code, origin);
    if (op->count == NULL) {
      into->counts[code] += 1.0;
      into->has[code] = TRUE;
      continue;
    }
    PtiExpr *expr;
    double value;
    g_autofree char *what = g_strdup_printf ("%s: count of %s", attr, op->code);
    if (!compile_expr (cx, node, what, op->count, &expr, &value, error))
      return FALSE;
    if (expr == NULL) {
      if (value < 0)
        return pti_rud_error (error, node, "%s: count \"%s\" of %s is %g: " NEGATIVE_COUNT,
                              attr, op->count, op->code, value);
      into->counts[code] += value;
      into->has[code] = TRUE;
    } else {
      DynTerm t = { .count = expr, .scale = 1.0, .code = (guint32) code, .origin = origin };
      g_array_append_val (into->dyn, t);
    }
  }
  return TRUE;
}

static gboolean fold_body (CompileCtx *cx, const PtiRudNode *parent, TmpBlock *into,
                           GError **error);

/* Folds a <loop> (multiplier iter) or a <branch> (multiplier exprob) into
 * @into.  *@constant is the multiplier if it is a constant, else NaN. */
static gboolean
fold_multiplied (CompileCtx *cx, const PtiRudNode *node, TmpBlock *into, double *constant,
                 GError **error)
{
  gboolean is_loop = node->kind == PTI_RUD_LOOP;
  ElemKind kind = is_loop ? ELEM_LOOP : ELEM_BRANCH;
  const char *attr = is_loop ? "iter" : "exprob";
  if (is_loop && !check_type (node, error))
    return FALSE;
  const char *text = pti_rud_attr (node, attr);
  PtiExpr *expr;
  double value;
  if (!compile_expr (cx, node, attr, text, &expr, &value, error))
    return FALSE;
  Origin origin = { node_line (node), (guint8) kind };
  g_autoptr (TmpBlock) child = tmp_block_new (origin);
  child->factor = expr;   /* owned by the block from here, error paths too */
  if (expr == NULL) {
    if (is_loop && value < 0)
      return pti_rud_error (error, node, "iter=\"%s\" is %g: " NEGATIVE_ITER, text, value);
    if (!is_loop && !(value >= 0 && value <= 1))
      return pti_rud_error (error, node, "exprob=\"%s\" is %g: " BAD_PROB, text, value);
  }
  /* restart="yes": each execution of the loop starts its chain afresh (the
   * accumulator set before it), so it stays a block of its own, whose trip
   * count the price needs, even when that count is a constant. */
  const char *restart = is_loop ? pti_rud_attr (node, "restart") : NULL;
  if (restart != NULL) {
    if (strcmp (restart, "yes") != 0 && strcmp (restart, "no") != 0)
      return pti_rud_error (error, node, "restart=\"%s\": yes or no", restart);
    child->restart = strcmp (restart, "yes") == 0;
    if (child->restart && node->n_chain == 0)
      return pti_rud_error (error, node, "restart=\"yes\" on a loop without a chain (restart "
                            "says that each execution of the loop starts its chain anew)");
    if (child->restart && expr == NULL) {
      expr = child->factor = pti_expr_compile (text, cx->symbols, NULL);
      g_assert (expr != NULL);   /* it compiled above */
    }
  }
  if (is_loop && !(fold_ops (cx, node, ELEM_LOOP, FALSE, child, error)
                   && fold_ops (cx, node, ELEM_LOOP, TRUE, child, error)))
    return FALSE;
  if (!fold_body (cx, node, child, error))
    return FALSE;
  *constant = value;
  if (expr == NULL)
    tmp_block_dissolve (into, g_steal_pointer (&child), value);
  else
    g_ptr_array_add (into->children, g_steal_pointer (&child));
  return TRUE;
}

static gboolean
fold_case (CompileCtx *cx, const PtiRudNode *node, TmpBlock *into, GError **error)
{
  if (!check_type (node, error))
    return FALSE;
  /* The case's own operations (the test) belong to the enclosing block. */
  if (!fold_ops (cx, node, ELEM_CASE, FALSE, into, error))
    return FALSE;
  double constant_sum = 0;
  for (guint i = 0; i < node->n_children; i++) {
    double p;
    if (!fold_multiplied (cx, &node->children[i], into, &p, error))
      return FALSE;
    if (!isnan (p))
      constant_sum += p;
  }
  if (constant_sum > 1.0 + 1e-9)
    return pti_rud_error (error, node,
                          "the branch probabilities add up to %g, more than 1 "
                          "(branches of a case exclude each other)", constant_sum);
  return TRUE;
}

/* A restart loop's chain begins under the previous execution's only if
 * nothing but operations lies between the two: it must be the one loop (or
 * case) of an enclosing <loop>. */
static gboolean
check_restart (const PtiRudNode *parent, GError **error)
{
  guint blocks = 0;
  const PtiRudNode *restart = NULL;
  for (guint i = 0; i < parent->n_children; i++) {
    const PtiRudNode *n = &parent->children[i];
    blocks += n->kind == PTI_RUD_LOOP || n->kind == PTI_RUD_CASE;
    const char *r = n->kind == PTI_RUD_LOOP ? pti_rud_attr (n, "restart") : NULL;
    if (r != NULL && strcmp (r, "yes") == 0 && restart == NULL)
      restart = n;
  }
  if (restart == NULL || (parent->kind == PTI_RUD_LOOP && blocks == 1))
    return TRUE;
  return pti_rud_error (error, restart,
                        "restart=\"yes\" needs the loop to be the only <loop> or <case> of an "
                        "enclosing <loop> (what lies between two executions is that loop's "
                        "operations)");
}

static gboolean
fold_body (CompileCtx *cx, const PtiRudNode *parent, TmpBlock *into, GError **error)
{
  if (!check_restart (parent, error))
    return FALSE;
  for (guint i = 0; i < parent->n_children; i++) {
    const PtiRudNode *n = &parent->children[i];
    double unused;
    gboolean ok;
    switch (n->kind) {
    case PTI_RUD_LOOP:
      ok = fold_multiplied (cx, n, into, &unused, error);
      break;
    case PTI_RUD_COMPUTE:
      ok = check_type (n, error) && fold_ops (cx, n, ELEM_COMPUTE, FALSE, into, error);
      break;
    case PTI_RUD_CASE:
      ok = fold_case (cx, n, into, error);
      break;
    default:
      ok = pti_rud_error (error, n, "unexpected element");
      break;
    }
    if (!ok)
      return FALSE;
  }
  return TRUE;
}

/* Returns a code whose folded constant count is not finite, or -1. */
static int
tmp_block_overflow (const TmpBlock *b)
{
  for (guint k = 0; k < N_SLOTS; k++)
    if (b->has[k] && !isfinite (b->counts[k] * b->scale))
      return (int) k;
  for (guint i = 0; i < b->children->len; i++) {
    int k = tmp_block_overflow (g_ptr_array_index (b->children, i));
    if (k >= 0)
      return k;
  }
  return -1;
}

/* Counts what flattening @b needs. */
static void
tmp_block_count (const TmpBlock *b, guint32 *n_blocks, guint32 *n_terms, guint32 *n_dyn)
{
  (*n_blocks)++;
  for (guint k = 0; k < N_SLOTS; k++)
    *n_terms += b->has[k];
  *n_dyn += b->dyn->len;
  for (guint i = 0; i < b->children->len; i++)
    tmp_block_count (g_ptr_array_index (b->children, i), n_blocks, n_terms, n_dyn);
}

/* Moves @b into @c in pre-order, taking its expressions. */
static void
tmp_block_flatten (TmpBlock *b, Compiled *c)
{
  guint32 self = c->n_blocks++;
  Block *out = &c->blocks[self];
  out->factor = g_steal_pointer (&b->factor);
  out->scale = b->scale;
  out->origin = b->origin;
  out->restart = b->restart;
  out->const_first = c->n_terms;
  for (guint k = 0; k < N_SLOTS; k++)
    if (b->has[k])
      c->terms[c->n_terms++] = (ConstTerm) { .code = k, .count = b->counts[k] };
  out->const_end = c->n_terms;
  out->dyn_first = c->n_dyn;
  for (guint i = 0; i < b->dyn->len; i++)
    c->dyn[c->n_dyn++] = g_array_index (b->dyn, DynTerm, i);
  g_array_set_size (b->dyn, 0);
  out->dyn_end = c->n_dyn;
  for (guint i = 0; i < b->children->len; i++)
    tmp_block_flatten (g_ptr_array_index (b->children, i), c);
  c->blocks[self].end = c->n_blocks;
}

/* Folds the parsed RUD (pti/rud.h): every node whose multiplier is a
 * constant dissolves into its parent (see the top of this file). */
static gpointer
impl_rud_fold (const PtiRudNode *rud, PtiSymbols *symbols, GError **error)
{
  /* The attributes of <rud> itself (name, device) belong to the workload
   * layer; only the device matters here. */
  const char *device = pti_rud_attr (rud, "device");
  if (device != NULL && g_ascii_strcasecmp (device, "cpu") != 0) {
    pti_rud_error (error, rud, "device '%s' is not a CPU (cpu-clc prices device=\"cpu\")",
                   device);
    return NULL;
  }

  CompileCtx cx = { .symbols = symbols };
  Origin root_origin = { node_line (rud), ELEM_RUD };
  g_autoptr (TmpBlock) root = tmp_block_new (root_origin);
  if (!fold_body (&cx, rud, root, error))
    return NULL;

  int overflow = tmp_block_overflow (root);
  if (overflow >= 0) {
    pti_rud_error (error, rud, "the number of %s operations%s overflows",
                   clc_codes[overflow % N_CODES].code, overflow >= (int) N_CODES ? " (chain)" : "");
    return NULL;
  }

  Compiled *c = g_new0 (Compiled, 1);
  guint32 nb = 0, nt = 0, nd = 0;
  tmp_block_count (root, &nb, &nt, &nd);
  c->blocks = g_new0 (Block, nb);
  c->terms = g_new0 (ConstTerm, MAX (nt, 1));
  c->dyn = g_new0 (DynTerm, MAX (nd, 1));
  tmp_block_flatten (root, c);
  g_assert (c->n_blocks == nb && c->n_terms == nt && c->n_dyn == nd);
  memcpy (c->used, cx.used, sizeof c->used);
  memcpy (c->first_use, cx.first_use, sizeof c->first_use);
  c->url = g_strdup (rud->file);
  collect_slots (c);
  return c;
}

/* ---- cost (hot path) ---------------------------------------------------- */

/* A term's count from the parameters; negative: NaN, caught on the slow path. */
static inline double
dyn_count (const DynTerm *d, const PtiSymbols *values)
{
  double n = pti_expr_eval (d->count, values);
  return d->scale * (n >= 0 ? n : NAN);
}

/* @s, a block's body, times the block's multiplier and folded scale; a
 * multiplier out of range: NaN. */
static inline double
block_scaled (const Block *b, const PtiSymbols *values, double s)
{
  if (b->factor != NULL) {
    double f = pti_expr_eval (b->factor, values);
    gboolean ok = b->origin.elem == ELEM_BRANCH ? f >= 0 && f <= 1 : f >= 0;
    s *= ok ? f : NAN;
  }
  return b->scale * s;
}

static double
block_value (const Compiled *c, const double *cost, const PtiSymbols *values, guint32 i)
{
  const Block *b = &c->blocks[i];
  /* Four partial sums: one chain of dependent additions would make the dot
   * product latency-bound (about 4 cycles a term instead of 1). */
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  const ConstTerm *t = c->terms + b->const_first, *te = c->terms + b->const_end;
  for (; te - t >= 4; t += 4) {
    s0 += t[0].count * cost[t[0].code];
    s1 += t[1].count * cost[t[1].code];
    s2 += t[2].count * cost[t[2].code];
    s3 += t[3].count * cost[t[3].code];
  }
  switch (te - t) {
  case 3: s2 += t[2].count * cost[t[2].code]; G_GNUC_FALLTHROUGH;
  case 2: s1 += t[1].count * cost[t[1].code]; G_GNUC_FALLTHROUGH;
  case 1: s0 += t[0].count * cost[t[0].code]; break;
  default: break;
  }
  double s = (s0 + s1) + (s2 + s3);
  for (guint32 k = b->dyn_first; k < b->dyn_end; k++)
    s += dyn_count (&c->dyn[k], values) * cost[c->dyn[k].code];
  for (guint32 j = i + 1; j < b->end; j = c->blocks[j].end)
    s += block_value (c, cost, values, j);
  return block_scaled (b, values, s);
}

/* overlap="units": within one block (one iteration of a loop whose trip
 * count depends on parameters, with the operations of its constant-count
 * loops and constant-probability branches folded in), each unit's
 * operations take the sum of their costs, the units work at once, and the
 * iteration takes the busiest unit's time or its carried chain's latency,
 * whichever is longer.  Child blocks follow each other (added).  A NaN
 * (an unconfigured cost, an out-of-range count) propagates to the total. */
/*
 * A restart loop (restart="yes": each execution starts its chain afresh,
 * the only loop of an enclosing loop) overlaps the execution before it: the
 * core holds `window` operations in flight, so while one execution's chain
 * drains, the operations of the enclosing iteration (@around, per
 * iteration of the enclosing block) and the first k iterations of the next
 * execution are already in the window, their chain under way:
 *
 *   k = min(n, max(0, (window - around) / ops))
 *
 * ops the loop's operations per iteration, n its trip count.  Its chain
 * costs (n - k) iterations of latency instead of n; its units are priced
 * as before, so a loop shorter than the window takes its busiest unit.
 */
static double
block_value_overlap (const CpuClc *self, const Compiled *c, const PtiSymbols *values, guint32 i,
                     double around)
{
  const Block *b = &c->blocks[i];
  const double *cost = self->cost;
  double busy[N_UNITS] = { 0 };
  double ops = 0;   /* operations of one execution of the body (chain slots not counted) */
  for (const ConstTerm *t = c->terms + b->const_first; t < c->terms + b->const_end; t++) {
    busy[self->exec[t->code]] += t->count * cost[t->code];
    ops += t->code < N_CODES ? t->count : 0;
  }
  for (guint32 k = b->dyn_first; k < b->dyn_end; k++) {
    double n = dyn_count (&c->dyn[k], values);
    busy[self->exec[c->dyn[k].code]] += n * cost[c->dyn[k].code];
    ops += c->dyn[k].code < N_CODES ? n : 0;
  }
  if (b->restart && self->window > 0 && ops > 0) {
    double n = pti_expr_eval (b->factor, values);
    double k = (self->window - around) / ops;
    k = k < 0 ? 0 : k > n ? n : k;
    if (n > 0)   /* n < 0 or NaN: block_scaled makes the total NaN */
      busy[UNIT_CHAIN] *= 1 - k / n;
  }
  double s = busy[0];
  for (guint u = 1; u < N_UNITS; u++)
    s = busy[u] > s || isnan (busy[u]) ? busy[u] : s;
  for (guint32 j = i + 1; j < b->end; j = c->blocks[j].end)
    s += block_value_overlap (self, c, values, j, ops);
  return block_scaled (b, values, s);
}

/* pti_node_error's format, from what the compiled form kept of the node. */
static gboolean rud_error (GError **error, const Compiled *c, Origin o, const char *format, ...)
  G_GNUC_PRINTF (4, 5);

static gboolean
rud_error (GError **error, const Compiled *c, Origin o, const char *format, ...)
{
  va_list args;
  va_start (args, format);
  g_autofree char *msg = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s:%u: <%s>: %s", c->url, o.line,
               elem_names[o.elem], msg);
  return FALSE;
}

/* Checks one expression on the slow path.  @label names it in the error
 * ("iter", "of: count of MFDL"); @range_error is the reason a value outside
 * [@lo, @hi] is refused. */
static gboolean
check_value (const Compiled *c, const PtiSymbols *values, const PtiExpr *e, Origin o,
             const char *label, double lo, double hi, const char *range_error, GError **error)
{
  double v;
  g_autoptr (GError) local = NULL;
  if (!pti_expr_check (e, values, &v, &local))
    return rud_error (error, c, o, "%s: %s", label, local ? local->message : "not a finite value");
  if (!(v >= lo && v <= hi))
    return rud_error (error, c, o, "%s \"%s\" is %g: %s", label, pti_expr_text (e), v,
                      range_error);
  return TRUE;
}

/* Slow path: the total was not finite.  Names the first cause in compiled
 * (pre-order) order: an unbound parameter or an out-of-range value, then an
 * operation whose cost is not configured. */
static G_GNUC_NO_INLINE gboolean
explain_failure (const CpuClc *self, const Compiled *c, const PtiSymbols *values, double total,
                 GError **error)
{
  for (guint32 i = 0; i < c->n_blocks; i++) {
    const Block *b = &c->blocks[i];
    for (guint32 t = b->dyn_first; t < b->dyn_end; t++) {
      const DynTerm *d = &c->dyn[t];
      g_autofree char *what = g_strdup_printf ("%s: count of %s", d->code < N_CODES ? "of" : "chain",
                                               clc_codes[d->code % N_CODES].code);
      if (!check_value (c, values, d->count, d->origin, what, 0, G_MAXDOUBLE, NEGATIVE_COUNT,
                        error))
        return FALSE;
    }
    if (b->factor != NULL) {
      gboolean branch = b->origin.elem == ELEM_BRANCH;
      if (!check_value (c, values, b->factor, b->origin, branch ? "exprob" : "iter", 0,
                        branch ? 1.0 : G_MAXDOUBLE, branch ? BAD_PROB : NEGATIVE_ITER, error))
        return FALSE;
    }
  }
  for (guint k = 0; k < N_SLOTS; k++)
    if ((c->used[k / 64] >> (k % 64)) & 1 && isnan (self->cost[k]))
      return k < N_CODES
               ? rud_error (error, c, c->first_use[k],
                            "operation %s (%s) has no cost in this <cpu_clc> configuration",
                            clc_codes[k].code, clc_codes[k].meaning)
               : rud_error (error, c, c->first_use[k],
                            "chain: operation %s (%s) has no latency in this <cpu_clc> "
                            "configuration (overlap=\"units\" prices a chain at its codes' "
                            "latencies: <%s latency=\"...\">)",
                            clc_codes[k - N_CODES].code, clc_codes[k - N_CODES].meaning,
                            clc_codes[k - N_CODES].code);
  Origin root = c->blocks[0].origin;
  return rud_error (error, c, root, "the predicted time is not finite (%g s)", total);
}

static gboolean
impl_cost (gconstpointer instance, gconstpointer compiled, const PtiSymbols *values,
           double *seconds, GError **error)
{
  const CpuClc *self = instance;
  const Compiled *c = compiled;
  double total = self->overlap ? block_value_overlap (self, c, values, 0, 0)
                               : block_value (c, self->cost, values, 0);
  if (G_LIKELY (isfinite (total))) {
    *seconds = total;
    return TRUE;
  }
  return explain_failure (self, c, values, total, error);
}

/* ---- computations given as a time or as flops ----------------------------- */

/* Operation costs say nothing about how this CPU compares with the host
 * where a time was measured, nor what a flop costs: the configuration must
 * say so itself (speed_ratio, flop_rate), or the use is refused. */
static gboolean
impl_time_cost (gconstpointer instance, double measured, double *seconds, GError **error)
{
  const CpuClc *self = instance;
  if (G_UNLIKELY (self->speed_ratio <= 0)) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "cpu-clc prices operation counts, not a measured time: add <speed_ratio> "
                 "(this CPU's speed relative to the host that measured it) to its <cpu_clc>, "
                 "or configure <cpu_time>");
    return FALSE;
  }
  *seconds = measured / self->speed_ratio;
  return TRUE;
}

static gboolean
impl_flops_cost (gconstpointer instance, double flops, double *seconds, GError **error)
{
  const CpuClc *self = instance;
  if (G_UNLIKELY (self->flop_rate <= 0)) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "cpu-clc prices operation counts, not flops: add <flop_rate unit=\"GFlop/s\"> "
                 "to its <cpu_clc>, or configure <cpu_time>");
    return FALSE;
  }
  *seconds = flops / self->flop_rate;
  return TRUE;
}

/* ---- descriptor --------------------------------------------------------- */

#define COST_UNIT "unit attribute of <cpu_clc> (s, ms, us, ns, ps)"
#define CLC_PARAM(c, o, m) { #c, COST_UNIT, "none: a RUD that uses it is refused", m },
static const PtiModelParam clc_params[] = {
  { "@unit", NULL, NULL, "attribute of <cpu_clc>: the time unit of every cost below "
    "(s, ms, us, ns or ps); required, never guessed" },
  { "@overlap", NULL, "none (the paper's sum)",
    "attribute of <cpu_clc>: none, or units: the operations of one loop iteration run on the "
    "execution units at once, and the iteration takes its busiest unit's sum or its carried "
    "chain (the loop's chain) at the latencies, whichever is longer" },
  { "@window", "operations (as a RUD counts them)", "0: no overlap of restarted chains",
    "attribute of <cpu_clc>, with overlap=\"units\": the operations the core holds in flight "
    "(pticalibrate measures it); a loop with restart=\"yes\" begins its chain under the "
    "previous execution's by that many operations" },
  { "@latency", COST_UNIT, "none: a chain that uses the code is refused (overlap=\"units\")",
    "attribute of each code's element: the latency of one operation, what a chain of "
    "dependent ones takes each" },
  { "speed_ratio", "ratio (no unit)", "none: computations given as a time are refused",
    "this CPU's speed relative to the host where a computation given as a time was "
    "measured (pti_use_time): t s there take t / speed_ratio s here" },
  { "flop_rate", "flop rate (unit attribute: Flop/s, KFlop/s, MFlop/s, GFlop/s, TFlop/s)",
    "none: computations given as flops are refused",
    "prices computations given as flops (pti_use_flops): f flops take f / flop_rate s" },
  CLC_CODES (CLC_PARAM)
  { NULL, NULL, NULL, NULL },
};
#undef CLC_PARAM

static const PtiCpuOps clc_ops = {
  .version = PTI_CPU_OPS_VERSION,
  .rud_fold = impl_rud_fold,
  .rud_free = impl_rud_free,
  .cost = impl_cost,
  .rud_slots = impl_rud_slots,
  .time_cost = impl_time_cost,
  .flops_cost = impl_flops_cost,
};

const PtiModelDesc pti_model_cpu_clc = {
  .abi_version = PTI_HMI_ABI_VERSION,
  .struct_size = sizeof (PtiModelDesc),
  .name = "cpu-clc",
  .kind = "cpu",
  .config_element = "cpu_clc",
  .summary = "C-operation cost model (PTI/PACE clc): time = sum of counted C operations "
             "times their measured costs",
  .description =
    "cpu-clc prices a computation from the C-language operations it performs, the\n"
    "PACE/CHIP3S 'clc' characterisation used by the PTI paper.  The configuration\n"
    "gives t(op), the time one operation of each code takes on the target CPU\n"
    "(measured by a micro-benchmark); the RUD gives the control flow and the\n"
    "operations each part performs.\n"
    "\n"
    "  cost(compute of=L)           = sum over items c*op of L: c * t(op)\n"
    "  cost(loop iter=N of=H, B...) = N * (cost(H) + sum cost(B))\n"
    "  cost(case of=C, branches)    = cost(C) + sum over branches b: p_b * cost(body_b)\n"
    "  cost(rud)                    = sum cost(children)\n"
    "\n"
    "An item of an operation list is CODE or COUNT*CODE.  Counts c, trip counts N\n"
    "and branch probabilities p_b (exprob) are expressions over the workload's\n"
    "parameters, bound before evaluation: N >= 0 (a fractional N is a mean trip\n"
    "count), 0 <= p_b <= 1, and constant probabilities of one case add up to at\n"
    "most 1.  Units: every cost in <cpu_clc> is in its required unit attribute\n"
    "(s, ms, us, ns or ps); the result is in seconds.  An unknown operation code,\n"
    "an unbound parameter, or a code the RUD uses that the configuration does not\n"
    "price is an error that names it; nothing is silently zero.\n"
    "\n"
    "Computations given as a time t measured on another host (pti_use_time) take\n"
    "t / speed_ratio, and f flops (pti_use_flops) take f / flop_rate, when the\n"
    "configuration has <speed_ratio> and <flop_rate>; otherwise they are refused.\n"
    "\n"
    "Like the paper's model, by default it ignores the memory hierarchy, pipelining\n"
    "and overlap: on modern CPUs it over-predicts unless the costs are calibrated\n"
    "on code like the workload's.  overlap=\"units\" models an out-of-order core:\n"
    "within one block (an iteration of a loop whose trip count depends on\n"
    "parameters, its constant-count loops and branches folded in) the operations\n"
    "of each execution unit (integer ALU, integer multiply, divide, FP add, FP\n"
    "multiply, FP divide, move, load, store, branch) add up, the units work at\n"
    "once, and the block takes max(busiest unit, chain), the chain being its\n"
    "loops' `chain` operations at their latencies (<CODE latency=...>):\n"
    "\n"
    "  cost(block) = factor * (max(max_u sum_{op in u} n_op t(op), sum_chain n_op lat(op))\n"
    "                          + sum cost(child blocks))\n"
    "\n"
    "A loop with restart=\"yes\" (each execution starts its chain afresh, the only\n"
    "loop of an enclosing loop) begins under the previous execution by the core's\n"
    "window (<cpu_clc window=...>, operations in flight, measured by pticalibrate):\n"
    "k = min(n, max(0, (window - a) / o)) of its n iterations of o operations (a:\n"
    "the enclosing iteration's) pay no chain.\n"
    "\n"
    "Reference: PTI paper (seed 001), sections 3.3 and 4.",
  .config_schema = pti_cpu_clc_xsd,
  .params = clc_params,
  .records = NULL,
  .records_namespace = NULL,
  .instance_size = sizeof (CpuClc),
  .configure = impl_configure,
  .finalize = impl_finalize,
  .cpu = &clc_ops,
  .net = NULL,
  /* Its prices are sums of operation costs: they scale with the speed. */
  .changes = pti_cpu_timing_changes,
};
