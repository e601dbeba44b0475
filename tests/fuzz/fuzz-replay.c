/* Fuzz target: the trace readers that ptieval picks by content
 * (wsl/replay.c's pti_workload_build): SimGrid time-independent traces,
 * an action file or an index of them (wsl/replay-ti.c), and Dimemas traces
 * (wsl/replay-dim.c), each read, replayed for every rank and evaluated on
 * tests/fuzz/system.xml (its cpu_clc prices computations given as a time
 * and as flops), with the notes of what a replay leaves out kept as
 * ptieval --by-call keeps them.  Seeds: tests/fuzz/seeds/replay (TI
 * layouts, every TI collective, MPI_PROC_NULL peers, SimGrid 3.19's
 * syntax, Dimemas point-to-point and collectives).  An index names its
 * action files relative to itself, and the input is alone in its directory
 * (fuzz_write_file): an index that names the input itself reads it as an
 * action file; any other name is a file that is not there, an error. */
#include "fuzz.h"

#include "replay.h"
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
  g_autoptr (PtiContext) ctx = pti_context_new (system_path, NULL, &error);
  g_assert_no_error (error);
  /* Memory stays bounded by the events between two partial evaluations. */
  pti_context_set_pending_limit (ctx, 1 << 16);
  g_autoptr (PtiReplayNotes) notes = pti_replay_notes_new ();
  pti_replay_notes_track_calls (notes);
  const char *path = fuzz_write_file (data, size);
  PtiSourceFormat format = PTI_SOURCE_UNKNOWN;
  if (!pti_workload_build (ctx, path, notes, &format, &error) || !pti_evaluate (ctx, &error)) {
    fuzz_check_error (error);
    return 0;
  }
  g_assert_true (pti_result_time (ctx) >= 0);
  return 0;
}
