/* The parsed CPU RUD (pti/rud.h): XML read once into a tree every CPU
 * model folds, with the structure checked here, once for all models. */
#include <pti/hmi.h>

#include <string.h>

/* Built into one block of nodes and strings owned by the root: the root
 * node is the first member, so freeing the root frees the whole. */
typedef struct {
  PtiRudNode root;
  GStringChunk *strings;
  GPtrArray *blocks;         /* arrays of nodes, ops and attrs, freed with the tree */
} Tree;

static const char *const loop_attrs[] = { "iter", "type", "of", "bytes", "working_set",
                                          "pattern", "stride", NULL };
static const char *const compute_attrs[] = { "of", "type", "bytes", "working_set", "pattern",
                                             "stride", NULL };
static const char *const case_attrs[] = { "type", "of", NULL };
static const char *const branch_attrs[] = { "exprob", NULL };
static const char *const rud_attrs[] = { "device", "name", NULL };

static gboolean
is_blank (const xmlChar *s)
{
  for (; s != NULL && *s; s++)
    if (!g_ascii_isspace (*s))
      return FALSE;
  return TRUE;
}

static gboolean
same_ns (const xmlNs *a, const xmlNs *b)
{
  if (a == NULL || b == NULL)
    return a == b;
  return g_strcmp0 ((const char *) a->href, (const char *) b->href) == 0;
}

static const char *
keep (Tree *t, const char *s)
{
  return s ? g_string_chunk_insert (t->strings, s) : NULL;
}

static gpointer
block (Tree *t, gsize size)
{
  gpointer p = g_malloc0 (MAX (size, 1));
  g_ptr_array_add (t->blocks, p);
  return p;
}

/* Iterates the element children of @parent, refusing stray text. */
static const xmlNode *
next_element (const xmlNode *parent, const xmlNode *n, gboolean *bad, GError **error)
{
  for (; n != NULL; n = n->next) {
    if (n->type == XML_ELEMENT_NODE)
      return n;
    if ((n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE) && !is_blank (n->content)) {
      g_autofree char *text = g_strstrip (g_strdup ((const char *) n->content));
      *bad = TRUE;
      pti_node_error (error, parent, "unexpected text '%.40s'", text);
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

static gboolean
check_attributes (const xmlNode *node, const char *const *allowed, GError **error)
{
  for (const xmlAttr *a = node->properties; a != NULL; a = a->next) {
    if (a->ns != NULL)
      continue;   /* xml:base and other namespaced extensions */
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

static gboolean
is_ident_char (char ch)
{
  return g_ascii_isalnum (ch) || ch == '_';
}

/* One `of` item, `CODE` or `COUNT*CODE`. */
static gboolean
parse_op_item (Tree *t, const xmlNode *node, char *item, guint index, PtiRudOp *op,
               GError **error)
{
  gsize len = strlen (item);
  gsize start = len;
  while (start > 0 && is_ident_char (item[start - 1]))
    start--;
  const char *code = item + start;
  if (start == len || g_ascii_isdigit (code[0]))
    return pti_node_error (error, node,
                           "of: item %u '%.80s' does not end with an operation code "
                           "(an item is CODE or COUNT*CODE)", index, item);
  g_autofree char *prefix = g_strstrip (g_strndup (item, start));
  op->code = keep (t, code);
  op->index = index;
  op->item = keep (t, item);
  if (prefix[0] == '\0')
    return TRUE;
  gsize pl = strlen (prefix);
  if (prefix[pl - 1] != '*')
    return pti_node_error (error, node, "of: item %u '%.80s' is not CODE or COUNT*CODE", index,
                           item);
  prefix[pl - 1] = '\0';
  g_strstrip (prefix);
  if (prefix[0] == '\0')
    return pti_node_error (error, node, "of: item %u '%.80s' has no count before '*'", index,
                           item);
  op->count = keep (t, prefix);
  return TRUE;
}

/* An `of` list: items separated by commas outside parentheses; a backslash
 * followed by white space (the paper's `of="ARF1,\ 3*ARF2"`) is white space. */
static gboolean
parse_oplist (Tree *t, const xmlNode *node, const char *text, PtiRudNode *into, GError **error)
{
  g_autofree char *s = g_strdup (text);
  for (char *p = s; *p; p++)
    if (*p == '\\') {
      if (p[1] != '\0' && !g_ascii_isspace (p[1]))
        return pti_node_error (error, node, "of: a backslash may only end a line (continuation)");
      *p = ' ';
    }
  if (is_blank ((const xmlChar *) s))
    return pti_node_error (error, node,
                           "of: empty operation list (omit the attribute for no operations)");
  guint n = 1;
  int depth = 0;
  for (const char *p = s; *p; p++) {
    depth += *p == '(' ? 1 : *p == ')' ? -1 : 0;
    n += *p == ',' && depth == 0;
  }
  PtiRudOp *ops = block (t, n * sizeof (PtiRudOp));
  guint index = 0;
  depth = 0;
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
        return pti_node_error (error, node, "of: item %u of \"%.80s\" is empty", index + 1, text);
      if (!parse_op_item (t, node, item, index + 1, &ops[index], error))
        return FALSE;
      index++;
      if (last)
        break;
      item = p + 1;
    }
  }
  into->ops = ops;
  into->n_ops = index;
  return TRUE;
}

static gboolean parse_node (Tree *t, const xmlNode *node, const xmlNs *ns, PtiRudKind kind,
                            PtiRudNode *out, GError **error);

/* The element children of @node, each of the kinds @body allows. */
static gboolean
parse_children (Tree *t, const xmlNode *node, const xmlNs *ns, gboolean branches,
                PtiRudNode *out, GError **error)
{
  gboolean bad = FALSE;
  guint n = 0;
  for (const xmlNode *c = next_element (node, node->children, &bad, error); c != NULL;
       c = next_element (node, c->next, &bad, error))
    n++;
  if (bad)
    return FALSE;
  PtiRudNode *kids = block (t, n * sizeof (PtiRudNode));
  guint i = 0;
  for (const xmlNode *c = next_element (node, node->children, &bad, error); c != NULL;
       c = next_element (node, c->next, &bad, error)) {
    const char *name = (const char *) c->name;
    PtiRudKind kind;
    if (!same_ns (c->ns, ns))
      return pti_node_error (error, c, branches ? "unexpected element in <case> (only <branch>)"
                                                : "element in an unexpected namespace "
                                                  "(expected <loop>, <compute> or <case>)");
    if (branches) {
      if (strcmp (name, "branch") != 0)
        return pti_node_error (error, c, "unexpected element in <case> (only <branch>)");
      kind = PTI_RUD_BRANCH;
    } else if (strcmp (name, "loop") == 0) {
      kind = PTI_RUD_LOOP;
    } else if (strcmp (name, "compute") == 0) {
      kind = PTI_RUD_COMPUTE;
    } else if (strcmp (name, "case") == 0) {
      kind = PTI_RUD_CASE;
    } else {
      return pti_node_error (error, c, "unknown element (expected <loop>, <compute> or <case>)");
    }
    if (!parse_node (t, c, ns, kind, &kids[i++], error))
      return FALSE;
  }
  out->children = kids;
  out->n_children = n;
  return TRUE;
}

static gboolean
parse_node (Tree *t, const xmlNode *node, const xmlNs *ns, PtiRudKind kind, PtiRudNode *out,
            GError **error)
{
  static const char *const names[] = { "rud", "loop", "compute", "case", "branch" };
  static const char *const *const allowed[] = { rud_attrs, loop_attrs, compute_attrs,
                                                case_attrs, branch_attrs };
  static const char *const required[] = { NULL, "iter", "of", NULL, "exprob" };
  out->kind = kind;
  out->element = names[kind];
  out->file = keep (t, node->doc && node->doc->URL ? (const char *) node->doc->URL : "?");
  long line = xmlGetLineNo (node);
  out->line = line > 0 && line < G_MAXINT ? (int) line : 0;
  if (!check_attributes (node, allowed[kind], error))
    return FALSE;
  guint n = 0;
  for (const xmlAttr *a = node->properties; a != NULL; a = a->next)
    n += a->ns == NULL;
  PtiRudAttr *attrs = block (t, n * sizeof (PtiRudAttr));
  guint i = 0;
  for (const xmlAttr *a = node->properties; a != NULL; a = a->next) {
    if (a->ns != NULL)
      continue;
    xmlChar *v = xmlNodeListGetString (node->doc, a->children, 1);
    attrs[i++] = (PtiRudAttr) { keep (t, (const char *) a->name), keep (t, v ? (const char *) v : "") };
    xmlFree (v);
  }
  out->attrs = attrs;
  out->n_attrs = n;
  if (required[kind] != NULL && pti_rud_attr (out, required[kind]) == NULL)
    return pti_node_error (error, node, "missing required attribute %s", required[kind]);
  const char *of = pti_rud_attr (out, "of");
  if (of != NULL && kind != PTI_RUD_ROOT && !parse_oplist (t, node, of, out, error))
    return FALSE;
  if (kind == PTI_RUD_COMPUTE) {
    gboolean bad = FALSE;
    const xmlNode *child = next_element (node, node->children, &bad, error);
    if (bad)
      return FALSE;
    if (child != NULL)
      return pti_node_error (error, child, "a <compute> has no child elements");
    return TRUE;
  }
  if (!parse_children (t, node, ns, kind == PTI_RUD_CASE, out, error))
    return FALSE;
  if (kind == PTI_RUD_CASE && out->n_children == 0)
    return pti_node_error (error, node, "a case needs at least one <branch>");
  return TRUE;
}

PtiRudNode *
pti_rud_parse (const xmlNode *rud, GError **error)
{
  if (rud == NULL || rud->type != XML_ELEMENT_NODE || strcmp ((const char *) rud->name, "rud") != 0) {
    pti_node_error (error, rud, "expected a <rud device=\"cpu\"> element");
    return NULL;
  }
  Tree *t = g_new0 (Tree, 1);
  t->strings = g_string_chunk_new (256);
  t->blocks = g_ptr_array_new_with_free_func (g_free);
  if (!parse_node (t, rud, rud->ns, PTI_RUD_ROOT, &t->root, error)) {
    pti_rud_free (&t->root);
    return NULL;
  }
  return &t->root;
}

void
pti_rud_free (PtiRudNode *root)
{
  if (root == NULL)
    return;
  Tree *t = (Tree *) root;
  g_string_chunk_free (t->strings);
  g_ptr_array_unref (t->blocks);
  g_free (t);
}

const char *
pti_rud_attr (const PtiRudNode *node, const char *name)
{
  for (guint i = 0; i < node->n_attrs; i++)
    if (strcmp (node->attrs[i].name, name) == 0)
      return node->attrs[i].value;
  return NULL;
}

gboolean
pti_rud_error (GError **error, const PtiRudNode *node, const char *format, ...)
{
  va_list ap;
  va_start (ap, format);
  g_autofree char *msg = g_strdup_vprintf (format, ap);
  va_end (ap);
  g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s:%d: <%s>: %s", node->file, node->line,
               node->element, msg);
  return FALSE;
}

gpointer
pti_cpu_rud_compile (const PtiCpuOps *ops, const xmlNode *rud, PtiSymbols *symbols,
                     GError **error)
{
  if (!PTI_CPU_OPS_FOLDS (ops))
    return ops->rud_compile (rud, symbols, error);
  g_autoptr (PtiRudNode) tree = pti_rud_parse (rud, error);
  return tree ? ops->rud_fold (tree, symbols, error) : NULL;
}
