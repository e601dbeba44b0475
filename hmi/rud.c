/* The parsed CPU RUD (pti/rud.h): XML read once into a tree every CPU
 * model folds, with the structure checked here, once for all models. */
#include <pti/hmi.h>

#include "reuse-private.h"

#include <errno.h>
#include <math.h>
#include <string.h>

/* Built into one block of nodes and strings owned by the root: the root
 * node is the first member, so freeing the root frees the whole. */
typedef struct {
  PtiRudNode root;
  GStringChunk *strings;
  GPtrArray *blocks;         /* arrays of nodes, ops and attrs, freed with the tree */
  GHashTable *reuse;         /* PtiRudNode* -> PtiRudReuse* (in blocks), or NULL */
} Tree;

static const char *const loop_attrs[] = { "iter", "type", "of", "chain", "restart", "bytes",
                                          "written", "working_set", "pattern", "stride", "run",
                                          NULL };
static const char *const compute_attrs[] = { "of", "type", "bytes", "written", "working_set",
                                             "pattern", "stride", "run", NULL };
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

/* The element children of @node into *@n; FALSE on stray text. */
static gboolean
count_elements (const xmlNode *node, guint *n, GError **error)
{
  gboolean bad = FALSE;
  *n = 0;
  for (const xmlNode *c = next_element (node, node->children, &bad, error); c != NULL;
       c = next_element (node, c->next, &bad, error))
    (*n)++;
  return !bad;
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
parse_op_item (Tree *t, const xmlNode *node, const char *attr, char *item, guint index,
               PtiRudOp *op, GError **error)
{
  gsize len = strlen (item);
  gsize start = len;
  while (start > 0 && is_ident_char (item[start - 1]))
    start--;
  const char *code = item + start;
  if (start == len || g_ascii_isdigit (code[0]))
    return pti_node_error (error, node,
                           "%s: item %u '%.80s' does not end with an operation code "
                           "(an item is CODE or COUNT*CODE)", attr, index, item);
  g_autofree char *prefix = g_strstrip (g_strndup (item, start));
  op->code = keep (t, code);
  op->index = index;
  op->item = keep (t, item);
  if (prefix[0] == '\0')
    return TRUE;
  gsize pl = strlen (prefix);
  if (prefix[pl - 1] != '*')
    return pti_node_error (error, node, "%s: item %u '%.80s' is not CODE or COUNT*CODE", attr,
                           index, item);
  prefix[pl - 1] = '\0';
  g_strstrip (prefix);
  if (prefix[0] == '\0')
    return pti_node_error (error, node, "%s: item %u '%.80s' has no count before '*'", attr,
                           index, item);
  op->count = keep (t, prefix);
  return TRUE;
}

/* An operation list (the attribute @attr, `of` or `chain`): items separated
 * by commas outside parentheses; a backslash followed by white space (the
 * paper's `of="ARF1,\ 3*ARF2"`) is white space. */
static gboolean
parse_oplist (Tree *t, const xmlNode *node, const char *attr, const char *text,
              const PtiRudOp **out, guint *n_out, GError **error)
{
  g_autofree char *s = g_strdup (text);
  for (char *p = s; *p; p++)
    if (*p == '\\') {
      if (p[1] != '\0' && !g_ascii_isspace (p[1]))
        return pti_node_error (error, node, "%s: a backslash may only end a line (continuation)",
                               attr);
      *p = ' ';
    }
  if (is_blank ((const xmlChar *) s))
    return pti_node_error (error, node,
                           "%s: empty operation list (omit the attribute for no operations)", attr);
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
        return pti_node_error (error, node, "%s: item %u of \"%.80s\" is empty", attr, index + 1,
                               text);
      if (!parse_op_item (t, node, attr, item, index + 1, &ops[index], error))
        return FALSE;
      index++;
      if (last)
        break;
      item = p + 1;
    }
  }
  *out = ops;
  *n_out = index;
  return TRUE;
}

static gboolean parse_node (Tree *t, const xmlNode *node, const xmlNs *ns, PtiRudKind kind,
                            PtiRudNode *out, GError **error);

/* ---- reuse-distance histograms (<reuse>) ---------------------------------- */

/* Attribute @name of @node without its surrounding white space (transfer
 * full), or NULL. */
static char *
attr_text (const xmlNode *node, const char *name)
{
  xmlChar *v = xmlGetProp (node, (const xmlChar *) name);
  char *s = v ? g_strstrip (g_strdup ((const char *) v)) : NULL;
  xmlFree (v);
  return s;
}

/* Attribute @name of @node (required): a non-negative finite number in
 * *@value; with @whole (PTI_REUSE_WHOLE) a whole number below 2^64, also
 * exactly in *@exact. */
static gboolean
reuse_number (const xmlNode *node, const char *name, gboolean whole, double *value,
              guint64 *exact, GError **error)
{
  g_autofree char *s = attr_text (node, name);
  if (s == NULL)
    return pti_node_error (error, node, "missing required attribute %s", name);
  char *end = NULL;
  if (whole) {
    errno = 0;
    guint64 u = g_ascii_strtoull (s, &end, 10);
    /* strtoull would take "-1" for 2^64 - 1 */
    if (!g_ascii_isdigit (s[s[0] == '+']) || errno != 0 || *end != '\0')
      return pti_node_error (error, node, "%s=\"%.40s\" is not a count below 2^64", name, s);
    *exact = u;
    *value = (double) u;
    return TRUE;
  }
  double d = g_ascii_strtod (s, &end);
  if (s[0] == '\0' || end == NULL || *end != '\0' || !isfinite (d) || d < 0)
    return pti_node_error (error, node, "%s=\"%.40s\" is not a non-negative number", name, s);
  *value = d;
  return TRUE;
}

static gboolean
is_power_of_two (guint64 v)
{
  return v != 0 && (v & (v - 1)) == 0;
}

/* The sum of the counts so far plus @count: exactly in *@whole_sum with
 * @whole (FALSE past 2^64), else in *@sum. */
static gboolean
reuse_add (const xmlNode *node, gboolean whole, double count, guint64 whole_count, double *sum,
           guint64 *whole_sum, GError **error)
{
  if (whole && whole_count > G_MAXUINT64 - *whole_sum)
    return pti_node_error (error, node, "the counts overflow 64 bits");
  *whole_sum += whole_count;
  *sum += count;
  return TRUE;
}

/* A RUD's <reuse>: the histogram's attributes, then what only a RUD says. */
static const char *const reuse_inline_attrs[] = { "line", "references", "scale", "file", NULL };

static gboolean
reuse_read (const xmlNode *node, PtiReuseForm form, PtiReuseValues *out, GError **error)
{
  static const char *const file_attrs[] = { "line", "references", NULL };
  static const char *const bin_attrs[] = { "distance", "count", NULL };
  static const char *const cold_attrs[] = { "count", NULL };
  gboolean whole = form == PTI_REUSE_WHOLE;
  if (form != PTI_REUSE_INLINE) {
    if (strcmp ((const char *) node->name, "reuse") != 0)
      return pti_node_error (error, node, "the root of a reuse-distance file must be <reuse> "
                             "(schemas/reuse.xsd)");
    /* What a RUD's <reuse> says beside the histogram has no meaning here. */
    for (guint i = 2; reuse_inline_attrs[i] != NULL; i++)
      if (xmlHasProp (node, (const xmlChar *) reuse_inline_attrs[i]))
        return pti_node_error (error, node, "%s= belongs in a RUD's <reuse>, not in a histogram "
                               "file", reuse_inline_attrs[i]);
  }
  if (!check_attributes (node, form == PTI_REUSE_INLINE ? reuse_inline_attrs : file_attrs, error))
    return FALSE;
  double line;
  guint64 whole_line = 0;
  if (!reuse_number (node, "line", whole, &line, &whole_line, error)
      || !reuse_number (node, "references", whole, &out->references, &out->whole_references,
                        error))
    return FALSE;
  if (line < 1 || line > 1 << 20 || line != floor (line)) {
    g_autofree char *text = attr_text (node, "line");
    return pti_node_error (error, node, "line=\"%.40s\" must be a whole number of bytes, "
                           "1 to 1048576", text);
  }
  if (whole && !is_power_of_two (whole_line))
    return pti_node_error (error, node, "line=\"%" G_GUINT64_FORMAT "\" is not a power of two",
                           whole_line);
  out->line_bytes = (guint) line;
  guint n;
  if (!count_elements (node, &n, error))
    return FALSE;
  out->bins = g_new0 (PtiReuseBinValues, MAX (n, 1));
  gboolean bad = FALSE, seen_cold = FALSE;
  double sum = 0;
  guint64 whole_sum = 0;
  const xmlNode *previous = NULL;
  for (const xmlNode *c = next_element (node, node->children, &bad, error); c != NULL;
       c = next_element (node, c->next, &bad, error)) {
    const char *name = (const char *) c->name;
    if (strcmp (name, "bin") == 0) {
      PtiReuseBinValues *b = &out->bins[out->n_bins];
      if (seen_cold)
        return pti_node_error (error, c, "a <bin> after <cold>: the bins come first");
      if (!check_attributes (c, bin_attrs, error)
          || !reuse_number (c, "distance", whole, &b->distance, &b->whole_distance, error)
          || !reuse_number (c, "count", whole, &b->count, &b->whole_count, error))
        return FALSE;
      if (whole && !is_power_of_two (b->whole_distance))
        return pti_node_error (error, c, "distance=\"%" G_GUINT64_FORMAT "\" is not a power of "
                               "two", b->whole_distance);
      g_autofree char *text = attr_text (c, "distance");
      if (previous == NULL && !(b->distance > 0))
        return pti_node_error (error, c, "distance=\"%.40s\" must be above 0", text);
      /* b[-1] is @previous's */
      if (previous != NULL && (whole ? b->whole_distance <= b[-1].whole_distance
                                     : !(b->distance > b[-1].distance))) {
        g_autofree char *before = attr_text (previous, "distance");
        return pti_node_error (error, c, "distance=\"%.40s\" does not follow the previous "
                               "bin's %.40s: bins go by increasing distance", text, before);
      }
      if (!reuse_add (c, whole, b->count, b->whole_count, &sum, &whole_sum, error))
        return FALSE;
      previous = c;
      out->n_bins++;
    } else if (strcmp (name, "cold") == 0) {
      if (seen_cold)
        return pti_node_error (error, c, "<cold> is given twice");
      seen_cold = TRUE;
      if (!check_attributes (c, cold_attrs, error)
          || !reuse_number (c, "count", whole, &out->cold, &out->whole_cold, error)
          || !reuse_add (c, whole, out->cold, out->whole_cold, &sum, &whole_sum, error))
        return FALSE;
    } else {
      return pti_node_error (error, c, "unknown element in <reuse> (expected <bin> or <cold>)");
    }
  }
  if (bad)
    return FALSE;
  g_autofree char *references = attr_text (node, "references");
  if (whole && whole_sum != out->whole_references)
    return pti_node_error (error, node, "references=\"%.40s\" but the bins and cold count %"
                           G_GUINT64_FORMAT, references, whole_sum);
  if (!whole && fabs (sum - out->references) > MAX (0.5, 1e-9 * out->references))
    return pti_node_error (error, node, "references=\"%.40s\" but the bins and cold count %g",
                           references, sum);
  return TRUE;
}

gboolean
pti_reuse_read (const xmlNode *reuse, PtiReuseForm form, PtiReuseValues *out, GError **error)
{
  memset (out, 0, sizeof *out);
  if (reuse_read (reuse, form, out, error))
    return TRUE;
  g_clear_pointer (&out->bins, g_free);
  out->n_bins = 0;
  return FALSE;
}

/* The histogram of a <reuse> element (@node: inline in a RUD, or the root
 * of an included file), kept in the tree. */
static gboolean
parse_reuse_body (Tree *t, const xmlNode *node, PtiReuseForm form, PtiRudReuse *r,
                  GError **error)
{
  PtiReuseValues v;
  if (!pti_reuse_read (node, form, &v, error))
    return FALSE;
  r->line_bytes = v.line_bytes;
  r->references = v.references;
  r->cold = v.cold;
  PtiRudReuseBin *bins = block (t, v.n_bins * sizeof (PtiRudReuseBin));
  for (guint i = 0; i < v.n_bins; i++)
    bins[i] = (PtiRudReuseBin) { v.bins[i].distance, v.bins[i].count };
  r->bins = bins;
  r->n_bins = v.n_bins;
  g_free (v.bins);
  r->file = keep (t, node->doc && node->doc->URL ? (const char *) node->doc->URL : "?");
  long ln = xmlGetLineNo (node);
  r->line = ln > 0 && ln < G_MAXINT ? (int) ln : 0;
  return TRUE;
}

/* A <reuse> child of a RUD's <loop> or <compute>: inline, or file="...". */
static gboolean
parse_reuse (Tree *t, const xmlNode *node, const PtiRudNode *owner, GError **error)
{
  if (!check_attributes (node, reuse_inline_attrs, error))
    return FALSE;
  PtiRudReuse *r = block (t, sizeof (PtiRudReuse));
  xmlChar *scale = xmlGetProp (node, (const xmlChar *) "scale");
  r->scale = keep (t, (const char *) scale);
  xmlFree (scale);
  xmlChar *file = xmlGetProp (node, (const xmlChar *) "file");
  gboolean ok;
  if (file != NULL) {
    gboolean bad = FALSE;
    const xmlNode *child = next_element (node, node->children, &bad, error);
    if (bad || child != NULL || xmlHasProp (node, (const xmlChar *) "line")
        || xmlHasProp (node, (const xmlChar *) "references")) {
      xmlFree (file);
      return bad ? FALSE
                 : pti_node_error (error, node, "a <reuse file=...> takes the histogram from the "
                                   "file: no line, references, <bin> or <cold> beside it");
    }
    xmlDoc *doc = pti_config_read_xml (node, (const char *) file, error);
    xmlFree (file);
    if (doc == NULL)
      return FALSE;
    ok = parse_reuse_body (t, xmlDocGetRootElement (doc), PTI_REUSE_FILE, r, error);
    xmlFreeDoc (doc);
  } else {
    ok = parse_reuse_body (t, node, PTI_REUSE_INLINE, r, error);
  }
  if (!ok)
    return FALSE;
  if (t->reuse == NULL)
    t->reuse = g_hash_table_new (NULL, NULL);
  g_hash_table_insert (t->reuse, (gpointer) owner, r);
  return TRUE;
}

static gboolean
is_reuse (const xmlNode *c, const xmlNs *ns)
{
  return c != NULL && same_ns (c->ns, ns) && strcmp ((const char *) c->name, "reuse") == 0;
}


/* The element children of @node, each of the kinds @body allows. */
static gboolean
parse_children (Tree *t, const xmlNode *node, const xmlNs *ns, gboolean branches,
                PtiRudNode *out, GError **error)
{
  gboolean bad = FALSE;
  guint n;
  if (!count_elements (node, &n, error))
    return FALSE;
  /* A <loop>'s memory signature, <reuse>, comes first. */
  const xmlNode *first = next_element (node, node->children, &bad, error);
  gboolean reuse = !branches && out->kind == PTI_RUD_LOOP && is_reuse (first, ns);
  if (reuse && !parse_reuse (t, first, out, error))
    return FALSE;
  n -= reuse;
  PtiRudNode *kids = block (t, n * sizeof (PtiRudNode));
  guint i = 0;
  for (const xmlNode *c = reuse ? next_element (node, first->next, &bad, error) : first; c != NULL;
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
    } else if (strcmp (name, "reuse") == 0) {
      return pti_node_error (error, c, "a <reuse> comes first in a <loop> or alone in a <compute>");
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
  if (of != NULL && kind != PTI_RUD_ROOT
      && !parse_oplist (t, node, "of", of, &out->ops, &out->n_ops, error))
    return FALSE;
  const char *chain = pti_rud_attr (out, "chain");
  if (chain != NULL && !parse_oplist (t, node, "chain", chain, &out->chain, &out->n_chain, error))
    return FALSE;
  if (kind == PTI_RUD_COMPUTE) {
    gboolean bad = FALSE;
    const xmlNode *child = next_element (node, node->children, &bad, error);
    if (bad)
      return FALSE;
    if (is_reuse (child, ns)) {
      if (!parse_reuse (t, child, out, error))
        return FALSE;
      child = next_element (node, child->next, &bad, error);
      if (bad)
        return FALSE;
    }
    if (child != NULL)
      return pti_node_error (error, child, "a <compute> has no child elements but one <reuse>");
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
  if (t->reuse != NULL)
    g_hash_table_unref (t->reuse);
  g_free (t);
}

const PtiRudReuse *
pti_rud_reuse (const PtiRudNode *root, const PtiRudNode *node)
{
  const Tree *t = (const Tree *) root;
  return t->reuse ? g_hash_table_lookup (t->reuse, node) : NULL;
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
