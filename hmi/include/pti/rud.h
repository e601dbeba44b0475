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
 *   loop     iter (required), type, of, and the memory behaviour below
 *   compute  of (required), type, and the memory behaviour below
 *   case     type, of
 *   branch   exprob (required)
 * Memory behaviour, read by memory-aware CPU models and ignored by others:
 *   bytes        bytes the element touches per execution (per iteration of a loop)
 *   working_set  bytes of the data it cycles through
 *   pattern      "unit", "strided" or "random"
 *   stride       bytes between successive accesses (pattern="strided")
 */
#pragma once

#ifndef PTI_API
#  define PTI_API __attribute__((visibility("default")))
#endif

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
 * there is none); @attrs every attribute as written, `of` included.
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
};

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
