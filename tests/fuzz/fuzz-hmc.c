/* Fuzz target: the HMC loader (engine/system.c): a system file, parsed,
 * validated against hmc.xsd and every model's schema, and configured by the
 * built-in models.  Seeds: configs/ and the tests' system files. */
#include "fuzz.h"

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
  PtiSystem *sys = pti_system_load (path, registry, &error);
  if (sys == NULL) {
    fuzz_check_error (error);
    return 0;
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
