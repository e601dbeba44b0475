/* Value ranges: what was met, and which end each takes (ranges-private.h). */
#include "ranges-private.h"

#include <math.h>

struct _PtiRanges {
  GPtrArray *met;          /* PtiRange *, in the order met */
  GHashTable *by_key;      /* key (borrowed from met) -> index + 1 */
  GHashTable *choice;      /* key (owned) -> end + 1 */
};

static void
range_free (gpointer data)
{
  PtiRange *r = data;
  g_free (r->key);
  g_free (r->label);
  g_free (r->unit);
  g_free (r);
}

PtiRanges *
pti_ranges_new (void)
{
  PtiRanges *r = g_new0 (PtiRanges, 1);
  r->met = g_ptr_array_new_with_free_func (range_free);
  r->by_key = g_hash_table_new (g_str_hash, g_str_equal);
  r->choice = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  return r;
}

void
pti_ranges_free (PtiRanges *ranges)
{
  if (ranges == NULL)
    return;
  g_hash_table_unref (ranges->by_key);
  g_hash_table_unref (ranges->choice);
  g_ptr_array_unref (ranges->met);
  g_free (ranges);
}

void
pti_ranges_choose (PtiRanges *ranges, const char *key, PtiRangeEnd end)
{
  g_hash_table_replace (ranges->choice, g_strdup (key), GINT_TO_POINTER (end + 1));
}

PtiRangeEnd
pti_ranges_chosen (const PtiRanges *ranges, const char *key)
{
  gpointer v = ranges ? g_hash_table_lookup (ranges->choice, key) : NULL;
  return v ? (PtiRangeEnd) (GPOINTER_TO_INT (v) - 1) : PTI_RANGE_NOMINAL;
}

gboolean
pti_ranges_take (PtiRanges *ranges, const char *key, const char *label, const char *unit,
                 double low, double nominal, double high, PtiRangeSense sense, double *value,
                 GError **error)
{
  if (!(isfinite (low) && isfinite (nominal) && isfinite (high))) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "%s: the ends of a range must be finite numbers", label);
    return FALSE;
  }
  if (!(low <= high)) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "%s: range %.17g..%.17g: the low end is above the high end", label, low, high);
    return FALSE;
  }
  if (!(low <= nominal && nominal <= high)) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "%s: the nominal value %.17g is outside its range %.17g..%.17g", label, nominal,
                 low, high);
    return FALSE;
  }
  PtiRangeEnd end = pti_ranges_chosen (ranges, key);
  *value = end == PTI_RANGE_LOW ? low : end == PTI_RANGE_HIGH ? high : nominal;
  if (ranges == NULL || g_hash_table_contains (ranges->by_key, key))
    return TRUE;
  PtiRange *r = g_new0 (PtiRange, 1);
  r->key = g_strdup (key);
  r->label = g_strdup (label);
  r->unit = g_strdup (unit);
  r->low = low;
  r->nominal = nominal;
  r->high = high;
  r->sense = sense;
  g_ptr_array_add (ranges->met, r);
  g_hash_table_insert (ranges->by_key, r->key, GUINT_TO_POINTER (ranges->met->len));
  return TRUE;
}

guint
pti_ranges_count (const PtiRanges *ranges)
{
  return ranges ? ranges->met->len : 0;
}

const PtiRange *
pti_ranges_nth (const PtiRanges *ranges, guint i)
{
  g_return_val_if_fail (ranges != NULL && i < ranges->met->len, NULL);
  return g_ptr_array_index (ranges->met, i);
}

void
pti_ranges_attach (PtiRanges *ranges, xmlDoc *doc)
{
  doc->_private = ranges;
}

const char *
pti_range_end_name (PtiRangeEnd end)
{
  return end == PTI_RANGE_LOW ? "low" : end == PTI_RANGE_HIGH ? "high" : "nominal";
}

const char *
pti_range_sense_name (PtiRangeSense sense)
{
  switch (sense) {
  case PTI_RANGE_SENSE_SLOWER_WHEN_HIGHER:
    return "slower-when-higher";
  case PTI_RANGE_SENSE_FASTER_WHEN_HIGHER:
    return "faster-when-higher";
  default:
    return "unknown";
  }
}
