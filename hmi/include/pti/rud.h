/* pti's parsed CPU RUD (part of the HMI; include <pti/hmi.h>).
 *
 * A CPU RUD (resource usage data, the PTI paper's section 3.1) describes a
 * code block's control flow and the C operations it performs:
 *
 *   <rud device="cpu">
 *     <loop iter="N" type="clc" of="LFOR,CMLL,INLL">     per-iteration overhead
 *       <compute type="clc" of="2*MFDL,AFDL"/>            the body's operations
 *       <case type="clc" of="IFBR">
 *         <branch exprob="0.3"> ... </branch>             taken with probability 0.3
 *       </case>
 *     </loop>
 *   </rud>
 *
 * The HMI parses it once into this tree, checking its structure (elements,
 * attributes, the `of` lists' syntax), so that every CPU model folds the
 * same tree instead of parsing XML itself (PtiCpuOps.rud_fold).  Values
 * stay text: a model compiles the expressions it reads (pti_expr_compile)
 * and looks up the operation codes it knows.  Everything is owned by the
 * tree and read-only.
 *
 * Attributes, per element (any other is refused with the list of these):
 *   rud      device, name
 *   loop     iter (required), type, of, chain, restart, and the memory behaviour below
 *   compute  of (required), type, and the memory behaviour below
 *   case     type, of
 *   branch   exprob (required)
 * `chain` (a list in the syntax of `of`) is the operations on the longest
 * path of dependences one iteration of the loop carries into the next (a
 * recurrence such as `sum += a[k] * x[k]`: AFDL), read by a CPU model that
 * overlaps operations (cpu-clc's overlap="units") and ignored by others.
 * `restart` ("yes" or "no", the default) says whether each execution of the
 * loop starts its chain afresh (`sum = 0` before a sparse row), so that the
 * core runs the next execution's chain under the current one's (cpu-clc's
 * window); read by cpu-clc, which checks it, and ignored by others.
 * Memory behaviour, read by memory-aware CPU models and ignored by others:
 *   bytes        bytes the element touches per execution (per iteration of a loop)
 *   written      bytes it writes to lines it does not read (each line is read
 *                for ownership; models/cpu-mem/README.md); with bytes
 *   working_set  bytes of the data it cycles through
 *   pattern      "unit", "strided", "random", "runs" or "transpose"
 *   stride       bytes between successive accesses (pattern="strided")
 *   run          bytes read consecutively before the accesses move to
 *                another of many streams (pattern="runs"), or of a block's
 *                column read down before the next (pattern="transpose")
 * and, as the first child of a <loop> or the only child of a <compute>, a
 * reuse-distance histogram (pti_rud_reuse), inline or from a file:
 *   <reuse line="64" references="N" [scale="EXPR"]>
 *     <bin distance="D" count="C"/>...   references whose reuse distance (distinct
 *                                        lines touched since the last reference to
 *                                        the same line) is >= the previous bin's D
 *                                        (0 for the first) and < D; D ascending
 *     <cold count="C"/>                  first references to a line
 *   </reuse>
 *   <reuse file="hist.xml" [scale="EXPR"]/>   the same element as the root of a
 *                                        file (relative to the RUD's document)
 * It counts one execution of the element (one iteration of a loop), times
 * `scale`.  schemas/reuse.xsd is its schema.
 */
#pragma once

#include <pti/hmi-api.h>

#include <glib.h>
#include <libxml/tree.h>

G_BEGIN_DECLS

typedef enum {
  PTI_RUD_ROOT,              /* <rud> */
  PTI_RUD_LOOP,              /* <loop iter="..."> */
  PTI_RUD_COMPUTE,           /* <compute of="..."/> */
  PTI_RUD_CASE,              /* <case> */
  PTI_RUD_BRANCH,            /* <branch exprob="..."> (children of a case only) */
} PtiRudKind;

/**
 * PtiRudOp:
 *
 * One item of an `of` list: `CODE` or `COUNT*CODE`.
 */
typedef struct {
  const char *code;          /* the operation code, an identifier, as written */
  const char *count;         /* COUNT as written (an expression), or NULL for 1 */
  guint index;               /* its place in the list, from 1 (for messages) */
  const char *item;          /* the whole item as written (for messages) */
} PtiRudOp;

/** PtiRudAttr: an attribute of an element, as written. */
typedef struct {
  const char *name;
  const char *value;
} PtiRudAttr;

/**
 * PtiRudNode:
 *
 * One element of the RUD.  @ops is the parsed `of` attribute (empty if
 * there is none), @chain the parsed `chain` of a loop (likewise); @attrs
 * every attribute as written, `of` and `chain` included.
 */
typedef struct _PtiRudNode PtiRudNode;
struct _PtiRudNode {
  PtiRudKind kind;
  const char *element;       /* "rud", "loop", "compute", "case", "branch" */
  const PtiRudNode *children;
  guint n_children;
  const PtiRudOp *ops;
  guint n_ops;
  const PtiRudAttr *attrs;
  guint n_attrs;
  const char *file;          /* the document it came from (its URL), for messages */
  int line;
  const PtiRudOp *chain;     /* a loop's `chain` list, as @ops */
  guint n_chain;
};

/** PtiRudReuseBin: one bin of a reuse-distance histogram. */
typedef struct {
  double distance;           /* exclusive upper bound, in cache lines (> the previous bin's) */
  double count;              /* references in [previous distance, distance) */
} PtiRudReuseBin;

/**
 * PtiRudReuse:
 *
 * A reuse-distance histogram (the <reuse> element above), checked: line a
 * positive whole number, counts >= 0, distances ascending, and the bins'
 * and cold counts adding up to @references.  Owned by the tree.
 */
typedef struct {
  guint line_bytes;          /* the `line` attribute: bytes per cache line */
  double references;         /* every reference counted */
  const PtiRudReuseBin *bins;
  guint n_bins;
  double cold;               /* first references (infinite distance) */
  const char *scale;         /* the `scale` expression as written, or NULL (1) */
  const char *file;          /* where the histogram was read (the included file, if any) */
  int line;                  /* and the line of its <reuse> element */
} PtiRudReuse;

/**
 * pti_rud_parse:
 * @rud: a `<rud device="cpu">` element (borrowed for the call only)
 *
 * Parses and checks @rud's structure: known elements in the right places
 * and namespace, known attributes, required attributes present, no stray
 * text, `of` lists of `CODE` and `COUNT*CODE` items (a backslash before
 * white space is the paper's line continuation).  Errors name the file,
 * line and element.
 * Returns: (transfer full): the tree, freed with pti_rud_free(), or NULL.
 */
PTI_API PtiRudNode *pti_rud_parse (const xmlNode *rud, GError **error);

/** pti_rud_free: frees a tree from pti_rud_parse(); NULL is allowed. */
PTI_API void pti_rud_free (PtiRudNode *root);

/**
 * pti_rud_reuse:
 * @root: the tree pti_rud_parse() returned
 * @node: a <loop> or <compute> of it
 *
 * Returns: (transfer none) (nullable): @node's reuse-distance histogram.
 */
PTI_API const PtiRudReuse *pti_rud_reuse (const PtiRudNode *root, const PtiRudNode *node);

/** pti_rud_attr: Returns: (transfer none) (nullable): @node's attribute @name's value. */
PTI_API const char *pti_rud_attr (const PtiRudNode *node, const char *name);

/**
 * pti_rud_error:
 *
 * Sets a PTI_ERROR_INVALID error prefixed with `FILE:LINE: <element>: `
 * (the form of pti_node_error).  Always returns FALSE.
 */
PTI_API gboolean pti_rud_error (GError **error, const PtiRudNode *node, const char *format,
                                ...) G_GNUC_PRINTF (3, 4);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PtiRudNode, pti_rud_free)

G_END_DECLS
