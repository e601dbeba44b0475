/* Fuzz target: the workload-file reader (wsl/workload-file.c): a workload
 * file parsed, validated, compiled and run for every rank, then evaluated,
 * on a small system of 4 nodes with 2 CPUs each (tests/fuzz/system.xml).
 * Seeds: the example workloads and the tests' workload files.  A parameter
 * that is a range (<param min max>) takes its high end, as in a bound run. */
#include "fuzz.h"

#include "ranges-private.h"
#include "wsl-private.h"

static char *system_path;

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (system_path == NULL) {
    fuzz_setup ();
    system_path = fuzz_source_file ("tests/fuzz/system.xml");
  }
  g_autoptr (GError) error = NULL;
  /* Keys of parameters are "param:NAME": choose the high end of every name
   * the seeds use. */
  g_autoptr (PtiRanges) ranges = pti_ranges_new ();
  static const char *const names[] = { "n", "chunk", "bytes", "rounds", "iterations" };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++) {
    g_autofree char *key = g_strdup_printf ("param:%s", names[i]);
    pti_ranges_choose (ranges, key, PTI_RANGE_HIGH);
  }
  g_autoptr (PtiContext) ctx = pti_context_new_ranged (system_path, NULL, NULL, ranges, &error);
  g_assert_no_error (error);
  /* Memory stays bounded by the events between two partial evaluations. */
  pti_context_set_pending_limit (ctx, 1 << 16);
  const char *path = fuzz_write_file (data, size);
  if (!pti_workload_file_build (ctx, path, &error) || !pti_evaluate (ctx, &error)) {
    fuzz_check_error (error);
    return 0;
  }
  g_assert_true (pti_result_time (ctx) >= 0);
  return 0;
}
