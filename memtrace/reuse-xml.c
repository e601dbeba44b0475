/* The <reuse> document (schemas/reuse.xsd) and the misses it predicts. */
#include "reuse.h"

#include "xml.h"

#include <errno.h>
#include <string.h>

char *
pti_reuse_histogram_to_xml (const PtiReuseHistogram *h)
{
  GString *out = g_string_new ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  g_string_append_printf (out, "<reuse line=\"%u\" references=\"%" G_GUINT64_FORMAT "\">\n",
                          h->line, h->references);
  for (guint i = 0; i < h->n_bins; i++)
    g_string_append_printf (out,
                            "  <bin distance=\"%" G_GUINT64_FORMAT "\" count=\"%" G_GUINT64_FORMAT
                            "\"/>\n", h->upper[i], h->count[i]);
  g_string_append_printf (out, "  <cold count=\"%" G_GUINT64_FORMAT "\"/>\n</reuse>\n", h->cold);
  return g_string_free (out, FALSE);
}

static gboolean
node_error (const xmlNode *node, const char *name, GError **error, const char *fmt, ...)
    G_GNUC_PRINTF (4, 5);

static gboolean
node_error (const xmlNode *node, const char *name, GError **error, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s:%ld: <%s>: %s", name,
               xmlGetLineNo ((xmlNode *) node), (const char *) node->name, msg);
  return FALSE;
}

/* An attribute the schema made an unsigned integer: the schema has checked
 * its form, not that it fits 64 bits. */
static gboolean
attr_u64 (const xmlNode *node, const char *attr, const char *name, guint64 *value, GError **error)
{
  g_autofree char *text = pti_xml_attr (node, attr);
  char *end;
  errno = 0;
  *value = g_ascii_strtoull (text, &end, 10);
  if (errno != 0 || end == text || *end != '\0')
    return node_error (node, name, error, "%s=\"%s\" is not a count below 2^64", attr, text);
  return TRUE;
}

static gboolean
check_doc (xmlDoc *doc, const char *name, PtiReuseHistogram *h, GError **error)
{
  g_autofree char *xsd = pti_xml_find_schema ("reuse.xsd", error);
  if (xsd == NULL)
    return FALSE;
  xmlSchema *schema = pti_xml_schema_from_file (xsd, error);
  if (schema == NULL || !pti_xml_validate_doc (schema, doc, "reuse.xsd", error))
    return FALSE;
  memset (h, 0, sizeof *h);
  xmlNode *root = xmlDocGetRootElement (doc);
  /* The schema is shared with RUDs' inline histograms, which may scale
   * counts or name a file instead; a histogram document states its own. */
  static const char *const required[] = { "line", "references" };
  for (guint i = 0; i < G_N_ELEMENTS (required); i++)
    if (!xmlHasProp (root, (const xmlChar *) required[i]))
      return node_error (root, name, error, "%s= is required in a histogram file", required[i]);
  static const char *const rud_only[] = { "scale", "file" };
  for (guint i = 0; i < G_N_ELEMENTS (rud_only); i++)
    if (xmlHasProp (root, (const xmlChar *) rud_only[i]))
      return node_error (root, name, error, "%s= belongs in a RUD's <reuse>, not in a histogram "
                         "file", rud_only[i]);
  guint64 line;
  if (!attr_u64 (root, "line", name, &line, error) || !attr_u64 (root, "references", name,
                                                                 &h->references, error))
    return FALSE;
  if (line == 0 || (line & (line - 1)) != 0 || line > G_MAXUINT / 2 + 1)
    return node_error (root, name, error, "line=\"%" G_GUINT64_FORMAT "\" is not a power of two",
                       line);
  h->line = (guint) line;
  guint64 sum = 0;
  for (xmlNode *n = pti_xml_first_element (root); n != NULL; n = pti_xml_next_element (n)) {
    guint64 count;
    if (!attr_u64 (n, "count", name, &count, error))
      return FALSE;
    if (count > G_MAXUINT64 - sum)
      return node_error (n, name, error, "the counts overflow 64 bits");
    sum += count;
    if (strcmp ((const char *) n->name, "cold") == 0) {
      h->cold = count;
      continue;
    }
    guint64 d;
    if (!attr_u64 (n, "distance", name, &d, error))
      return FALSE;
    if (d == 0 || (d & (d - 1)) != 0)
      return node_error (n, name, error, "distance=\"%" G_GUINT64_FORMAT "\" is not a power of two",
                         d);
    if (h->n_bins > 0 && d <= h->upper[h->n_bins - 1])
      return node_error (n, name, error,
                         "distance=\"%" G_GUINT64_FORMAT "\" does not follow the previous bin's %"
                         G_GUINT64_FORMAT ": bins ascend", d, h->upper[h->n_bins - 1]);
    /* Ascending powers of two below 2^64: at most 64 of them. */
    h->upper[h->n_bins] = d;
    h->count[h->n_bins++] = count;
  }
  if (sum != h->references)
    return node_error (root, name, error,
                       "references=\"%" G_GUINT64_FORMAT "\" but the bins and cold count %"
                       G_GUINT64_FORMAT, h->references, sum);
  return TRUE;
}

gboolean
pti_reuse_histogram_load (const char *path, PtiReuseHistogram *h, GError **error)
{
  g_autoptr (xmlDoc) doc = pti_xml_read_file (path, error);
  return doc != NULL && check_doc (doc, path, h, error);
}

gboolean
pti_reuse_histogram_parse (const char *text, gsize len, const char *name, PtiReuseHistogram *h,
                           GError **error)
{
  if (len > G_MAXINT) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s: too large", name);
    return FALSE;
  }
  g_autoptr (xmlDoc) doc = pti_xml_read_memory (text, (gssize) len, name, error);
  return doc != NULL && check_doc (doc, name, h, error);
}

double
pti_reuse_histogram_misses (const PtiReuseHistogram *h, guint64 capacity)
{
  double misses = (double) h->cold;
  guint64 lower = 0;
  for (guint i = 0; i < h->n_bins; lower = h->upper[i++]) {
    guint64 upper = h->upper[i];
    if (capacity <= lower)
      misses += (double) h->count[i];
    else if (capacity < upper)
      /* distances lower..upper-1, those >= capacity: upper - capacity of them */
      misses += (double) h->count[i] * (double) (upper - capacity) / (double) (upper - lower);
  }
  return misses;
}
