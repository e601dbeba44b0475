/* Fuzz target: the changes file (ptieval --changes, wsl/changes.c) on the
 * paper's cluster (configs/pc_cluster.xml: net-contention on a Myrinet
 * Clos, so link selectors reach GLib's patterns), read before the processes
 * are set, as ptieval does, and then applied to a short run; then the same
 * bytes as a change stream (ptieval --changes-stream: the same parser, plus
 * `until` lines, the horizon and the past-time check), read while a run
 * with a computation (so CPU speed and availability changes meet it) and a
 * message evaluates.  Seeds: tests/fuzz/seeds/changes. */
#include "fuzz.h"

#include "wsl-private.h"

static char *system_path;

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (system_path == NULL) {
    fuzz_setup ();
    system_path = fuzz_source_file ("configs/pc_cluster.xml");
  }
  g_autoptr (GError) error = NULL;
  g_autoptr (PtiContext) ctx = pti_context_new (system_path, NULL, &error);
  g_assert_no_error (error);
  const char *path = fuzz_write_file (data, size);
  if (!pti_changes_file_load (ctx, path, &error) || !pti_context_set_processes (ctx, 2, &error)) {
    fuzz_check_error (error);
    return 0;
  }
  /* A message across the network, long enough to meet early changes. */
  if (!pti_mpi_send (ctx, 0, 1, 1 << 20, 0, &error) || !pti_mpi_recv (ctx, 1, 0, 1 << 20, 0, &error)
      || !pti_evaluate (ctx, &error))
    fuzz_check_error (error);

  g_clear_error (&error);
  g_autoptr (PtiContext) live = pti_context_new (system_path, NULL, &error);
  g_assert_no_error (error);
  if (!pti_changes_stream_open (live, path, &error)
      || !pti_context_set_processes (live, 2, &error)
      || !pti_use_xml (live, 0, "<rud device='cpu'><compute type='clc' of='1000*AFDL'/></rud>", &error)
      || !pti_mpi_send (live, 0, 1, 1 << 20, 0, &error)
      || !pti_mpi_recv (live, 1, 0, 1 << 20, 0, &error)
      || !pti_evaluate (live, &error))
    fuzz_check_error (error);
  return 0;
}
