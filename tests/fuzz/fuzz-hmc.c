/* Fuzz target: the HMC loader (engine/system.c): a system file, parsed,
 * validated against hmc.xsd and every model's schema, and configured by the
 * built-in models.  Seeds: configs/ and the tests' system files (with
 * ranges: tests/bounds/data).  A system that loads is loaded again with
 * every range it met at its low end, then at its high end, as the bound
 * runs of ptieval do. */
#include "fuzz.h"

#include "ranges-private.h"
#include "registry.h"
#include "system.h"

static PtiRegistry *registry;

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (registry == NULL) {
    fuzz_setup ();
    g_autoptr (GError) error = NULL;
    registry = pti_registry_new (NULL, &error);
    g_assert_no_error (error);
  }
  const char *path = fuzz_write_file (data, size);
  g_autoptr (GError) error = NULL;
  g_autoptr (PtiRanges) ranges = pti_ranges_new ();
  PtiSystem *sys = pti_system_load_ranged (path, registry, NULL, ranges, &error);
  if (sys == NULL) {
    fuzz_check_error (error);
    return 0;
  }
  for (PtiRangeEnd end = PTI_RANGE_LOW; end <= PTI_RANGE_HIGH; end++) {
    guint met = pti_ranges_count (ranges);
    for (guint i = 0; i < met; i++) {
      const PtiRange *r = pti_ranges_nth (ranges, i);
      g_assert_true (r->low <= r->nominal && r->nominal <= r->high);
      pti_ranges_choose (ranges, r->key, end);
    }
    PtiSystem *again = pti_system_load_ranged (path, registry, NULL, ranges, &error);
    if (again == NULL)   /* an end may be refused where the nominal value is not (min="0") */
      fuzz_check_error (error);
    g_clear_error (&error);
    pti_system_free (again);
    g_assert_cmpuint (pti_ranges_count (ranges), ==, met);
  }
  /* What the engine asks of a system: every processor's CPU model, and a
   * route between the first and the last. */
  guint n = pti_system_n_processors (sys);
  for (guint p = 0; p < n && p < 64; p++) {
    g_autofree char *what = pti_system_describe_processor (sys, p);
    g_assert_true (g_utf8_validate (what, -1, NULL));
    g_assert_nonnull (pti_system_cpu_model (sys, p));
  }
  if (n > 1)
    pti_system_route (sys, 0, n - 1, NULL, NULL);
  pti_system_free (sys);
  return 0;
}
