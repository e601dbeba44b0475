/* Fuzz target: the RUD compiler (pti_rud_new, cpu-clc's rud_compile) and
 * the pricing of a use (cpu-clc's cost) on tests/fuzz/system.xml, with the
 * parameters the examples' RUDs read bound.  Seeds: every <rud> of the
 * project's workload files and tests. */
#include "fuzz.h"

#include <pti/wsl.h>

static PtiContext *ctx;
static guint uses;

static void
context_make (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *system = fuzz_source_file ("tests/fuzz/system.xml");
  ctx = pti_context_new (system, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (pti_context_set_processes (ctx, 1, &error));
  static const char *const names[] = { "N", "MY_SIZE", "SIZE_J", "P", "nx", "ny", "it", "jt",
                                       "kt", "mk", "mm", "mmi", "len", "n", "na", "nz" };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    g_assert_true (pti_context_set_param (ctx, names[i], i % 4 == 3 ? 0.25 : 3 + i, &error));
  uses = 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (ctx == NULL) {
    fuzz_setup ();
    context_make ();
  }
  g_autofree char *text = fuzz_string (data, size);
  g_autoptr (GError) error = NULL;
  g_autoptr (PtiRud) rud = pti_rud_new (ctx, "fuzz", text, &error);
  if (rud == NULL) {
    fuzz_check_error (error);
    return 0;
  }
  if (!pti_use (ctx, 0, rud, &error))
    fuzz_check_error (error);
  /* Free the events now and then: the context lives for the whole run. */
  if (++uses == 4096) {
    g_clear_pointer (&rud, pti_rud_unref);
    pti_context_free (ctx);
    context_make ();
  }
  return 0;
}
