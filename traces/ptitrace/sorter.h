/* An external merge sort of fixed-size records, with bounded memory.
 *
 * Records are appended to an in-memory buffer of at most @budget bytes.  A
 * sorter that never fills its buffer sorts in memory and touches no file.
 * When the buffer fills, it is sorted and written as a run to an anonymous
 * temporary file (created in $TMPDIR and unlinked at once, so nothing is left
 * behind whatever happens).  pti_sorter_finish() merges the runs, at most
 * FAN_IN at a time (several passes if there are more), into one sorted run,
 * which can then be read in order any number of times, or by index.
 *
 * Memory: the buffer (<= budget) while adding; while merging, FAN_IN + 1
 * read/write buffers sharing the same budget; while reading, one buffer of at
 * most 1 MiB.  Plus 16 bytes per run (one run per @budget bytes of records).
 * Disk: twice the records' size at most.
 *
 * With @compare NULL the sorter is a spool: records come back in the order
 * they were added (no sorting, no merging). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _PtiSorter PtiSorter;

PtiSorter *pti_sorter_new (gsize record_size, GCompareFunc compare, gsize budget);
void pti_sorter_free (PtiSorter *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PtiSorter, pti_sorter_free)

/* Copy one record in.  FALSE with @error if a run cannot be written. */
gboolean pti_sorter_add (PtiSorter *s, const void *record, GError **error);
guint64 pti_sorter_count (const PtiSorter *s);

/* No more records: sort (and merge).  Then read. */
gboolean pti_sorter_finish (PtiSorter *s, GError **error);

/* Read in order from the first record.  next() returns a pointer to the
 * record (valid until the next call) or NULL at the end or with @error. */
void pti_sorter_rewind (PtiSorter *s);
const void *pti_sorter_next (PtiSorter *s, GError **error);
/* Copy record @index (0-based) into @out.  FALSE with @error. */
gboolean pti_sorter_get (PtiSorter *s, guint64 index, void *out, GError **error);

/* Whether runs were written to disk (for tests and statistics). */
gboolean pti_sorter_spilled (const PtiSorter *s);

/* Totals over every sorter of the process: bytes written to temporary
 * files, runs written, and the largest number of merge passes of a sort. */
void pti_sorter_stats (guint64 *bytes_written, guint64 *runs, guint *merge_passes);

G_END_DECLS
