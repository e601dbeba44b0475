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
#define MASK_WORDS ((N_CODES + 63) / 64)

static int
code_lookup (const char *name)
{
  for (guint i = 0; i < N_CODES; i++)
    if (strcmp (clc_codes[i].code, name) == 0)
      return (int) i;
  return -1;
}

/* Optimal-string-alignment distance (Levenshtein plus adjacent
 * transposition), case-insensitive.  Inputs here are short. */
static guint
code_distance (const char *a, const char *b)
{
  gsize la = strlen (a), lb = strlen (b);
  if (la > 32 || lb > 32)
    return 99;
  guint d[33][33];
  for (gsize i = 0; i <= la; i++)
    d[i][0] = (guint) i;
  for (gsize j = 0; j <= lb; j++)
    d[0][j] = (guint) j;
  for (gsize i = 1; i <= la; i++)
    for (gsize j = 1; j <= lb; j++) {
      guint sub = g_ascii_toupper (a[i - 1]) != g_ascii_toupper (b[j - 1]);
      guint v = MIN (MIN (d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + sub);
      if (i > 1 && j > 1 && g_ascii_toupper (a[i - 1]) == g_ascii_toupper (b[j - 2])
          && g_ascii_toupper (a[i - 2]) == g_ascii_toupper (b[j - 1]))
        v = MIN (v, d[i - 2][j - 2] + 1);
      d[i][j] = v;
    }
  return d[la][lb];
}

/* Letters two codes share (as multisets): breaks ties between suggestions at
 * the same distance in favour of anagrams (MFLD -> MFSL before MILL). */
static guint
code_overlap (const char *a, const char *b)
{
  guint count[256] = { 0 };
  guint n = 0;
  for (const char *p = a; *p; p++)
    count[(guchar) g_ascii_toupper (*p)]++;
  for (const char *p = b; *p; p++)
    if (count[(guchar) *p] > 0) {
      count[(guchar) *p]--;
      n++;
    }
  return n;
}

/* Length of the common prefix, case-insensitive: same operation first. */
static guint
code_prefix (const char *a, const char *b)
{
  guint n = 0;
  while (a[n] && b[n] && g_ascii_toupper (a[n]) == b[n])
    n++;
  return n;
}

/* Rank of @code as a suggestion for @name: smaller is better. */
static guint
code_rank (const char *name, const char *code)
{
  return code_distance (name, code) * 10000 + (99 - code_overlap (name, code)) * 100
         + (99 - code_prefix (name, code));
}

/* ", nearest: X, Y" style list of up to three known codes close to @name,
 * or "" if nothing is close. */
static char *
code_suggestions (const char *name)
{
  enum { MAX_SUGGESTIONS = 3 };
  guint best[MAX_SUGGESTIONS];
  guint n = 0;
  guint limit = MAX (2, (guint) strlen (name) / 2);

  for (guint i = 0; i < N_CODES; i++) {
    guint d = code_distance (name, clc_codes[i].code);
    if (d > limit)
      continue;
    /* insertion into the top list, sorted by rank then table order */
    guint rank = code_rank (name, clc_codes[i].code);
    guint pos = n;
    while (pos > 0 && code_rank (name, clc_codes[best[pos - 1]].code) > rank)
      pos--;
    if (pos >= MAX_SUGGESTIONS)
      continue;
    guint last = MIN (n, (guint) MAX_SUGGESTIONS - 1);
    for (guint k = last; k > pos; k--)
      best[k] = best[k - 1];
    best[pos] = i;
    if (n < MAX_SUGGESTIONS)
      n++;
  }
  if (n == 0)
    return g_strdup (" (no known code is close; see the cpu-clc README)");
  GString *s = g_string_new (" (nearest: ");
  for (guint k = 0; k < n; k++)
    g_string_append_printf (s, "%s%s", k ? ", " : "", clc_codes[best[k]].code);
  g_string_append_c (s, ')');
  return g_string_free (s, FALSE);
}

/* ---- instance (configuration) ------------------------------------------ */

typedef struct {
  double cost[N_CODES];   /* s per operation; NaN if not configured */
  double unit;            /* s per unit of the configuration */
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

static gboolean
impl_configure (gpointer instance, const xmlNode *config, GError **error)
{
  CpuClc *self = instance;

  for (guint i = 0; i < N_CODES; i++)
    self->cost[i] = NAN;

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
    int code = code_lookup (name);
    if (code < 0) {
      g_autofree char *hint = code_suggestions (name);
      return pti_node_error (error, n, "unknown operation code '%.32s'%s", name, hint);
    }
    if (seen[code])
      return pti_node_error (error, n, "operation code %s is configured twice", name);
    seen[code] = TRUE;

    xmlChar *text = xmlNodeGetContent (n);
    g_autofree char *s = g_strstrip (g_strdup (text ? (const char *) text : ""));
    xmlFree (text);
    char *end = NULL;
    double v = g_ascii_strtod (s, &end);
    if (s[0] == '\0' || end == NULL || *end != '\0' || !isfinite (v) || v < 0)
      return pti_node_error (error, n, "'%s' is not a non-negative number (cost of one %s)",
                             s, name);
    self->cost[code] = v * self->unit;
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
} Block;

typedef struct {
  Block *blocks;
  ConstTerm *terms;
  DynTerm *dyn;
  guint32 n_blocks, n_terms, n_dyn;
  guint64 used[MASK_WORDS];     /* codes the RUD uses */
  Origin first_use[N_CODES];    /* where each used code first appears */
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
  double counts[N_CODES];
  gboolean has[N_CODES];
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
  for (guint k = 0; k < N_CODES; k++)
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
  const xmlNs *ns;               /* namespace of <rud>; children must share it */
  guint64 used[MASK_WORDS];
  Origin first_use[N_CODES];
} CompileCtx;

static guint32
node_line (const xmlNode *node)
{
  long l = xmlGetLineNo (node);
  return l > 0 && l < G_MAXUINT32 ? (guint32) l : 0;
}

static gboolean
same_ns (const xmlNs *a, const xmlNs *b)
{
  if (a == NULL || b == NULL)
    return a == b;
  return g_strcmp0 ((const char *) a->href, (const char *) b->href) == 0;
}

/* Checks the attributes of @node against @allowed (NULL-terminated).
 * Attributes in a namespace (xml:base, foreign extensions) are ignored. */
static gboolean
check_attributes (const xmlNode *node, const char *const *allowed, GError **error)
{
  for (const xmlAttr *a = node->properties; a != NULL; a = a->next) {
    if (a->ns != NULL)
      continue;
    gboolean ok = FALSE;
    for (const char *const *p = allowed; *p && !ok; p++)
      ok = strcmp (*p, (const char *) a->name) == 0;
    if (!ok) {
      g_autofree char *list = g_strjoinv (", ", (char **) allowed);
      return pti_node_error (error, node, "unknown attribute '%s' (allowed: %s)",
                             (const char *) a->name, list);
    }
  }
  return TRUE;
}

static char *
get_attr (const xmlNode *node, const char *name)
{
  xmlChar *v = xmlGetNoNsProp (node, (const xmlChar *) name);
  char *s = v ? g_strdup ((const char *) v) : NULL;
  xmlFree (v);
  return s;
}

static gboolean
check_type (const xmlNode *node, GError **error)
{
  g_autofree char *type = get_attr (node, "type");
  if (type != NULL && strcmp (type, "clc") != 0)
    return pti_node_error (error, node,
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
compile_expr (CompileCtx *cx, const xmlNode *node, const char *attr, const char *text,
              PtiExpr **expr, double *value, GError **error)
{
  g_autoptr (GError) local = NULL;
  PtiExpr *e = pti_expr_compile (text, cx->symbols, &local);
  if (e == NULL)
    return pti_node_error (error, node, "%s: %s", attr,
                           local ? local->message : "invalid expression");
  double v;
  if (pti_expr_is_constant (e, &v)) {
    pti_expr_free (e);
    if (!isfinite (v))
      return pti_node_error (error, node, "%s=\"%s\" is not a finite number", attr, text);
    *expr = NULL;
    *value = v;
  } else {
    *expr = e;
    *value = NAN;
  }
  return TRUE;
}

static gboolean
is_ident_char (char ch)
{
  return g_ascii_isalnum (ch) || ch == '_';
}

/* Parses one OPLIST item, `CODE` or `COUNT*CODE`, into @into. */
static gboolean
parse_op_item (CompileCtx *cx, const xmlNode *node, ElemKind kind, const char *item,
               guint index, TmpBlock *into, GError **error)
{
  Origin origin = { node_line (node), (guint8) kind };
  gsize len = strlen (item);
  gsize start = len;
  while (start > 0 && is_ident_char (item[start - 1]))
    start--;
  const char *code_text = item + start;
  if (start == len || g_ascii_isdigit (code_text[0]))
    return pti_node_error (error, node,
                           "of: item %u '%.80s' does not end with an operation code "
                           "(an item is CODE or COUNT*CODE)", index, item);

  /* What precedes the code: nothing, or a count expression and '*'. */
  g_autofree char *prefix = g_strstrip (g_strndup (item, start));
  g_autofree char *count_text = NULL;
  if (prefix[0] != '\0') {
    gsize pl = strlen (prefix);
    if (prefix[pl - 1] != '*')
      return pti_node_error (error, node,
                             "of: item %u '%.80s' is not CODE or COUNT*CODE", index, item);
    prefix[pl - 1] = '\0';
    count_text = g_strstrip (g_strdup (prefix));
    if (count_text[0] == '\0')
      return pti_node_error (error, node, "of: item %u '%.80s' has no count before '*'",
                             index, item);
  }

  int code = code_lookup (code_text);
  if (code < 0) {
    g_autofree char *hint = code_suggestions (code_text);
    return pti_node_error (error, node, "unknown operation code '%.32s'%s", code_text, hint);
  }
  mark_used (cx, (guint) code, origin);

  if (count_text == NULL) {
    into->counts[code] += 1.0;
    into->has[code] = TRUE;
    return TRUE;
  }

  PtiExpr *expr;
  double value;
  g_autofree char *what = g_strdup_printf ("of: count of %s", code_text);
  if (!compile_expr (cx, node, what, count_text, &expr, &value, error))
    return FALSE;
  if (expr == NULL) {
    if (value < 0)
      return pti_node_error (error, node, "of: count \"%s\" of %s is %g: " NEGATIVE_COUNT,
                             count_text, code_text, value);
    into->counts[code] += value;
    into->has[code] = TRUE;
  } else {
    DynTerm t = { .count = expr, .scale = 1.0, .code = (guint32) code, .origin = origin };
    g_array_append_val (into->dyn, t);
  }
  return TRUE;
}

/* Parses an `of` attribute: items separated by commas outside parentheses;
 * a backslash followed by white space (the paper's line continuation,
 * `of="ARF1,\ 3*ARF2"`) counts as white space. */
static gboolean
parse_oplist (CompileCtx *cx, const xmlNode *node, ElemKind kind, const char *text,
              TmpBlock *into, GError **error)
{
  g_autofree char *s = g_strdup (text);
  for (char *p = s; *p; p++)
    if (*p == '\\') {
      if (p[1] != '\0' && !g_ascii_isspace (p[1]))
        return pti_node_error (error, node,
                               "of: a backslash may only end a line (continuation)");
      *p = ' ';
    }
  if (is_blank ((const xmlChar *) s))
    return pti_node_error (error, node,
                           "of: empty operation list (omit the attribute for no operations)");

  guint index = 1;
  int depth = 0;
  char *item = s;
  for (char *p = s;; p++) {
    if (*p == '(')
      depth++;
    else if (*p == ')')
      depth--;
    if ((*p == ',' && depth == 0) || *p == '\0') {
      gboolean last = *p == '\0';
      *p = '\0';
      g_strstrip (item);
      if (item[0] == '\0')
        return pti_node_error (error, node, "of: item %u of \"%.80s\" is empty", index, text);
      if (!parse_op_item (cx, node, kind, item, index, into, error))
        return FALSE;
      if (last)
        break;
      item = p + 1;
      index++;
    }
  }
  return TRUE;
}

static gboolean compile_body (CompileCtx *cx, const xmlNode *parent, TmpBlock *into,
                              GError **error);

/* Iterates the element children of @parent, refusing stray text. */
static const xmlNode *
next_element (CompileCtx *cx, const xmlNode *parent, const xmlNode *n, gboolean *bad,
              GError **error)
{
  for (; n != NULL; n = n->next) {
    if (n->type == XML_ELEMENT_NODE)
      return n;
    if ((n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE) && !is_blank (n->content)) {
      g_autofree char *t = g_strstrip (g_strdup ((const char *) n->content));
      *bad = TRUE;
      pti_node_error (error, parent, "unexpected text '%.40s'", t);
      return NULL;
    }
    if (n->type == XML_ENTITY_REF_NODE) {
      *bad = TRUE;
      pti_node_error (error, parent, "unexpected entity reference '%s'", (const char *) n->name);
      return NULL;
    }
  }
  return NULL;
}

/* Compiles a <loop> (multiplier iter) or a <branch> (multiplier exprob) into
 * @into.  *@constant is the multiplier if it is a constant, else NaN. */
static gboolean
compile_multiplied (CompileCtx *cx, const xmlNode *node, const char *attr, ElemKind kind,
                    TmpBlock *into, double *constant, GError **error)
{
  static const char *const loop_attrs[] = { "iter", "type", "of", NULL };
  static const char *const branch_attrs[] = { "exprob", NULL };
  gboolean is_loop = kind == ELEM_LOOP;

  if (!check_attributes (node, is_loop ? loop_attrs : branch_attrs, error))
    return FALSE;
  if (is_loop && !check_type (node, error))
    return FALSE;
  g_autofree char *text = get_attr (node, attr);
  if (text == NULL)
    return pti_node_error (error, node, "missing required attribute %s", attr);

  PtiExpr *expr;
  double value;
  if (!compile_expr (cx, node, attr, text, &expr, &value, error))
    return FALSE;
  Origin origin = { node_line (node), (guint8) kind };
  g_autoptr (TmpBlock) child = tmp_block_new (origin);
  child->factor = expr;
  if (expr == NULL) {
    if (is_loop && value < 0)
      return pti_node_error (error, node, "iter=\"%s\" is %g: " NEGATIVE_ITER, text, value);
    if (!is_loop && !(value >= 0 && value <= 1))
      return pti_node_error (error, node, "exprob=\"%s\" is %g: " BAD_PROB, text, value);
  }

  if (is_loop) {
    g_autofree char *of = get_attr (node, "of");
    if (of != NULL && !parse_oplist (cx, node, ELEM_LOOP, of, child, error))
      return FALSE;
  }
  if (!compile_body (cx, node, child, error))
    return FALSE;

  *constant = value;
  if (expr == NULL)
    tmp_block_dissolve (into, g_steal_pointer (&child), value);
  else
    g_ptr_array_add (into->children, g_steal_pointer (&child));
  return TRUE;
}

static gboolean
compile_case (CompileCtx *cx, const xmlNode *node, TmpBlock *into, GError **error)
{
  static const char *const case_attrs[] = { "type", "of", NULL };
  if (!check_attributes (node, case_attrs, error) || !check_type (node, error))
    return FALSE;
  /* The case's own operations (the test) belong to the enclosing block. */
  g_autofree char *of = get_attr (node, "of");
  if (of != NULL && !parse_oplist (cx, node, ELEM_CASE, of, into, error))
    return FALSE;

  guint n_branches = 0;
  double constant_sum = 0;
  gboolean bad = FALSE;
  for (const xmlNode *b = next_element (cx, node, node->children, &bad, error); b != NULL;
       b = next_element (cx, node, b->next, &bad, error)) {
    if (!same_ns (b->ns, cx->ns) || strcmp ((const char *) b->name, "branch") != 0)
      return pti_node_error (error, b, "unexpected element in <case> (only <branch>)");
    double p;
    if (!compile_multiplied (cx, b, "exprob", ELEM_BRANCH, into, &p, error))
      return FALSE;
    if (!isnan (p))
      constant_sum += p;
    n_branches++;
  }
  if (bad)
    return FALSE;
  if (n_branches == 0)
    return pti_node_error (error, node, "a case needs at least one <branch>");
  if (constant_sum > 1.0 + 1e-9)
    return pti_node_error (error, node,
                           "the branch probabilities add up to %g, more than 1 "
                           "(branches of a case exclude each other)", constant_sum);
  return TRUE;
}

static gboolean
compile_compute (CompileCtx *cx, const xmlNode *node, TmpBlock *into, GError **error)
{
  static const char *const compute_attrs[] = { "type", "of", NULL };
  if (!check_attributes (node, compute_attrs, error) || !check_type (node, error))
    return FALSE;
  gboolean bad = FALSE;
  const xmlNode *child = next_element (cx, node, node->children, &bad, error);
  if (bad)
    return FALSE;
  if (child != NULL)
    return pti_node_error (error, child, "a <compute> has no child elements");
  g_autofree char *of = get_attr (node, "of");
  if (of == NULL)
    return pti_node_error (error, node, "missing required attribute of");
  return parse_oplist (cx, node, ELEM_COMPUTE, of, into, error);
}

static gboolean
compile_body (CompileCtx *cx, const xmlNode *parent, TmpBlock *into, GError **error)
{
  gboolean bad = FALSE;
  for (const xmlNode *n = next_element (cx, parent, parent->children, &bad, error); n != NULL;
       n = next_element (cx, parent, n->next, &bad, error)) {
    const char *name = (const char *) n->name;
    gboolean ok;
    if (!same_ns (n->ns, cx->ns))
      return pti_node_error (error, n, "element in an unexpected namespace "
                             "(expected <loop>, <compute> or <case>)");
    double unused;
    if (strcmp (name, "loop") == 0)
      ok = compile_multiplied (cx, n, "iter", ELEM_LOOP, into, &unused, error);
    else if (strcmp (name, "compute") == 0)
      ok = compile_compute (cx, n, into, error);
    else if (strcmp (name, "case") == 0)
      ok = compile_case (cx, n, into, error);
    else
      return pti_node_error (error, n, "unknown element (expected <loop>, <compute> or <case>)");
    if (!ok)
      return FALSE;
  }
  return !bad;
}

/* Returns a code whose folded constant count is not finite, or -1. */
static int
tmp_block_overflow (const TmpBlock *b)
{
  for (guint k = 0; k < N_CODES; k++)
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
  for (guint k = 0; k < N_CODES; k++)
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
  out->const_first = c->n_terms;
  for (guint k = 0; k < N_CODES; k++)
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

static gpointer
impl_rud_compile (const xmlNode *rud, PtiSymbols *symbols, GError **error)
{
  if (rud == NULL || rud->type != XML_ELEMENT_NODE || strcmp ((const char *) rud->name, "rud") != 0)
  {
    pti_node_error (error, rud, "expected a <rud device=\"cpu\"> element");
    return NULL;
  }
  /* The attributes of <rud> itself (name, device, ...) belong to the
   * workload layer; only the device matters here. */
  g_autofree char *device = get_attr (rud, "device");
  if (device != NULL && g_ascii_strcasecmp (device, "cpu") != 0) {
    pti_node_error (error, rud, "device '%s' is not a CPU (cpu-clc prices device=\"cpu\")",
                    device);
    return NULL;
  }

  CompileCtx cx = { .symbols = symbols, .ns = rud->ns };
  Origin root_origin = { node_line (rud), ELEM_RUD };
  g_autoptr (TmpBlock) root = tmp_block_new (root_origin);
  if (!compile_body (&cx, rud, root, error))
    return NULL;

  int overflow = tmp_block_overflow (root);
  if (overflow >= 0) {
    pti_node_error (error, rud, "the number of %s operations overflows",
                    clc_codes[overflow].code);
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
  c->url = g_strdup (rud->doc && rud->doc->URL ? (const char *) rud->doc->URL : "?");
  collect_slots (c);
  return c;
}

/* ---- cost (hot path) ---------------------------------------------------- */

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
  for (guint32 k = b->dyn_first; k < b->dyn_end; k++) {
    const DynTerm *d = &c->dyn[k];
    double n = pti_expr_eval (d->count, values);
    n = n >= 0 ? n : NAN;                      /* negative: caught on the slow path */
    s += d->scale * n * cost[d->code];
  }
  for (guint32 j = i + 1; j < b->end; j = c->blocks[j].end)
    s += block_value (c, cost, values, j);
  if (b->factor != NULL) {
    double f = pti_expr_eval (b->factor, values);
    gboolean ok = b->origin.elem == ELEM_BRANCH ? f >= 0 && f <= 1 : f >= 0;
    s *= ok ? f : NAN;
  }
  return b->scale * s;
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
      g_autofree char *what = g_strdup_printf ("of: count of %s", clc_codes[d->code].code);
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
  for (guint k = 0; k < N_CODES; k++)
    if ((c->used[k / 64] >> (k % 64)) & 1 && isnan (self->cost[k]))
      return rud_error (error, c, c->first_use[k],
                        "operation %s (%s) has no cost in this <cpu_clc> configuration",
                        clc_codes[k].code, clc_codes[k].meaning);
  Origin root = c->blocks[0].origin;
  return rud_error (error, c, root, "the predicted time is not finite (%g s)", total);
}

static gboolean
impl_cost (gconstpointer instance, gconstpointer compiled, const PtiSymbols *values,
           double *seconds, GError **error)
{
  const CpuClc *self = instance;
  const Compiled *c = compiled;
  double total = block_value (c, self->cost, values, 0);
  if (G_LIKELY (isfinite (total))) {
    *seconds = total;
    return TRUE;
  }
  return explain_failure (self, c, values, total, error);
}

/* ---- descriptor --------------------------------------------------------- */

#define COST_UNIT "unit attribute of <cpu_clc> (s, ms, us, ns, ps)"
#define CLC_PARAM(c, o, m) { #c, COST_UNIT, "none: a RUD that uses it is refused", m },
static const PtiModelParam clc_params[] = {
  { "@unit", NULL, NULL, "attribute of <cpu_clc>: the time unit of every cost below "
    "(s, ms, us, ns or ps); required, never guessed" },
  CLC_CODES (CLC_PARAM)
  { NULL, NULL, NULL, NULL },
};
#undef CLC_PARAM

static const PtiCpuOps clc_ops = {
  .version = PTI_CPU_OPS_VERSION,
  .rud_compile = impl_rud_compile,
  .rud_free = impl_rud_free,
  .cost = impl_cost,
  .rud_slots = impl_rud_slots,
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
    "Like the paper's model, it ignores the memory hierarchy, pipelining and\n"
    "overlap: on modern CPUs it over-predicts unless the costs are calibrated on\n"
    "code like the workload's.  Reference: PTI paper (seed 001), sections 3.3 and 4.",
  .config_schema = pti_cpu_clc_xsd,
  .params = clc_params,
  .records = NULL,
  .records_namespace = NULL,
  .instance_size = sizeof (CpuClc),
  .configure = impl_configure,
  .finalize = impl_finalize,
  .cpu = &clc_ops,
  .net = NULL,
};
