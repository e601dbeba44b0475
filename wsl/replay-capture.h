/* Captured MPI runs (pticapture, capture/FORMAT.md) as a workload source. */
#pragma once

#include <glib.h>

#include "pti/wsl.h"

/* TRUE if @path is a pticapture trace directory (it holds rank-0.ptc). */
gboolean pti_capture_looks_like (const char *path);

/* Sets @ctx's processes to the trace's ranks and makes the trace its pull
 * source: each rank's file is read as the evaluation needs it. */
gboolean pti_capture_replay_build (PtiContext *ctx, const char *dir, GError **error);
