/* The <reuse> document (schemas/reuse.xsd) and the misses it predicts. */
#include "reuse.h"

#include "reuse-private.h"
#include "xml.h"

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

/* The schema, then the one histogram reader (hmi/reuse-private.h), which
 * checks the numbers as RUDs' histograms are checked, whole ones here. */
static gboolean
check_doc (xmlDoc *doc, PtiReuseHistogram *h, GError **error)
{
  g_autofree char *xsd = pti_xml_find_schema ("reuse.xsd", error);
  if (xsd == NULL)
    return FALSE;
  xmlSchema *schema = pti_xml_schema_from_file (xsd, error);
  if (schema == NULL || !pti_xml_validate_doc (schema, doc, "reuse.xsd", error))
    return FALSE;
  PtiReuseValues v;
  if (!pti_reuse_read (xmlDocGetRootElement (doc), PTI_REUSE_WHOLE, &v, error))
    return FALSE;
  /* Ascending powers of two below 2^64: at most 64 bins. */
  g_assert (v.n_bins <= PTI_REUSE_MAX_BINS);
  memset (h, 0, sizeof *h);
  h->line = v.line_bytes;
  h->references = v.whole_references;
  h->cold = v.whole_cold;
  h->n_bins = v.n_bins;
  for (guint i = 0; i < v.n_bins; i++) {
    h->upper[i] = v.bins[i].whole_distance;
    h->count[i] = v.bins[i].whole_count;
  }
  g_free (v.bins);
  return TRUE;
}

gboolean
pti_reuse_histogram_load (const char *path, PtiReuseHistogram *h, GError **error)
{
  g_autoptr (xmlDoc) doc = pti_xml_read_file (path, error);
  return doc != NULL && check_doc (doc, h, error);
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
  return doc != NULL && check_doc (doc, h, error);
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
