/* Workload sources that replay traces: SimGrid time-independent traces
 * (replay-ti.c), Dimemas .dim traces (replay-dim.c), recognised by content
 * (replay.c).  Internal to the WSL; wsl/REPLAY.md describes the formats'
 * mapping to pti.
 *
 * Each source is a per-rank pull function (pti_context_set_source): the
 * evaluation asks it for rank r's next device uses when it needs them, and
 * it appends them by calling the WSL, reading r's part of the trace from
 * where it stopped.  So memory stays bounded by what is in flight, not by
 * the trace's length. */
#pragma once

#include "wsl-private.h"

G_BEGIN_DECLS

/* What a trace held that pti does not replay, by name, with a count and
 * the reason: reported in ptieval's summary and JSON, never dropped
 * silently. */
typedef struct _PtiReplayNotes PtiReplayNotes;

PtiReplayNotes *pti_replay_notes_new (void);
void pti_replay_notes_free (PtiReplayNotes *notes);
/* Count @count more of @what (copied; the first call's @why is kept). */
void pti_replay_notes_add (PtiReplayNotes *notes, const char *what, const char *why,
                           guint64 count);
guint pti_replay_notes_len (const PtiReplayNotes *notes);
/* The @i-th note, in the order first met. */
void pti_replay_notes_get (const PtiReplayNotes *notes, guint i, const char **what,
                           const char **why, guint64 *count);

/* Per call, with ptieval --by-call, for a captured trace (the only format
 * that measured each call): the time the capture measured inside each
 * function, per rank, beside which the driver prints what the replay
 * predicted for the same calls.  The replay puts each call it tracks in a
 * phase of its own, named by pti_replay_notes_call_phase, so the engine
 * measures its predicted time as it measures any phase's. */
void pti_replay_notes_track_calls (PtiReplayNotes *notes);
gboolean pti_replay_notes_tracks_calls (const PtiReplayNotes *notes);
/* The index of the function @name (copied at its first call), in the order
 * first met. */
guint pti_replay_notes_call (PtiReplayNotes *notes, const char *name);
/* Its phase's name (owned by @notes). */
const char *pti_replay_notes_call_phase (const PtiReplayNotes *notes, guint call);
/* Add @calls calls that took @measured_s on @rank. */
void pti_replay_notes_call_add (PtiReplayNotes *notes, guint call, guint rank, guint64 calls,
                                double measured_s);
guint pti_replay_notes_n_calls (const PtiReplayNotes *notes);
/* The function's name (owned by @notes), and what @rank measured (0 for a
 * rank that never called it). */
void pti_replay_notes_call_get (const PtiReplayNotes *notes, guint call, guint rank,
                                const char **name, guint64 *calls, double *measured_s);
/* Whether @phase is one of the calls' phases (the driver reports them as
 * calls, not as phases). */
gboolean pti_replay_notes_is_call_phase (const PtiReplayNotes *notes, const char *phase);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PtiReplayNotes, pti_replay_notes_free)

/* What a workload argument of ptieval is, from its first bytes. */
typedef enum {
  PTI_SOURCE_UNKNOWN,
  PTI_SOURCE_WORKLOAD_XML,   /* schemas/workload.xsd */
  PTI_SOURCE_TI_INDEX,       /* SimGrid TI: a list of action files */
  PTI_SOURCE_TI_ACTIONS,     /* SimGrid TI: one action file (all ranks) */
  PTI_SOURCE_DIMEMAS,        /* Dimemas .dim */
  PTI_SOURCE_CAPTURE,        /* pticapture: its directory, its manifest or a rank file */
} PtiSourceFormat;

/* Reads the first bytes of @path (a directory: whether it holds a capture):
 * FALSE with @error if it cannot be read, or is a directory of something
 * else. */
gboolean pti_source_sniff (const char *path, PtiSourceFormat *format, GError **error);
const char *pti_source_format_name (PtiSourceFormat format);

/* The sources: each sets the processes of @ctx from the trace and makes
 * itself @ctx's source; pti_evaluate then replays the trace, adding to
 * @notes what it skips (@notes must outlive the evaluation). */
gboolean pti_replay_ti (PtiContext *ctx, const char *path, gboolean index,
                        PtiReplayNotes *notes, GError **error);
gboolean pti_replay_dimemas (PtiContext *ctx, const char *path, PtiReplayNotes *notes,
                             GError **error);
/* A pticapture trace (@dir, the directory of its rank files); replay-capture.c. */
gboolean pti_replay_capture (PtiContext *ctx, const char *dir, PtiReplayNotes *notes,
                             GError **error);

/* ptieval's WORKLOAD argument, whatever its format: a workload file or a
 * trace, recognised by content.  @format (may be NULL) receives it. */
gboolean pti_workload_build (PtiContext *ctx, const char *path, PtiReplayNotes *notes,
                             PtiSourceFormat *format, GError **error);

G_END_DECLS
