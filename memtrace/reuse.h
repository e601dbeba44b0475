/* Reuse-distance (stack-distance) histograms of memory reference streams:
 * the measuring side of Delphi's memory model (issue 15.3; README.md).
 * Internal to ptireuse and the tests.
 *
 * Four parts, one per file:
 *   reuse.c         PtiReuse: the LRU stack distance of every reference,
 *                   O(log n) each, binned by powers of two;
 *   reuse-stream.c  PtiReuseStream: text address streams (raw, or valgrind
 *                   lackey's --trace-mem output) pushed in chunks of any
 *                   size, each reference fed to a PtiReuse;
 *   reuse-xml.c     the <reuse> document (schemas/reuse.xsd): writing,
 *                   reading, and the misses it predicts for an LRU cache;
 *   reuse-run.c     a program run under valgrind lackey, its trace piped
 *                   into a stream. */
#pragma once

#include <glib.h>
#include <stdint.h>

G_BEGIN_DECLS

/* Bin k (0..PTI_REUSE_MAX_BINS-1) has distance 2^k: it counts the
 * references whose reuse distance d is in [2^(k-1), 2^k), bin 0 the
 * distance 0 (d in [0, 1)).  Distances are below 2^64. */
#define PTI_REUSE_MAX_BINS 65

/* A histogram as written and read: what a <reuse> element holds.  @upper[i]
 * is bin i's distance (ascending; the bin holds distances from upper[i-1],
 * 0 for i = 0, up to but excluding upper[i]).  The writer emits every power
 * of two from 1 up to the last non-empty bin; a reader accepts any
 * ascending powers of two. */
typedef struct {
  guint line;                /* bytes per cache line, a power of two */
  guint64 references;        /* sum of the bins and cold */
  guint64 cold;              /* first references to a line */
  guint n_bins;
  guint64 upper[PTI_REUSE_MAX_BINS];
  guint64 count[PTI_REUSE_MAX_BINS];
} PtiReuseHistogram;

typedef struct _PtiReuse PtiReuse;

/* A new stack for lines of @line bytes (a power of two, checked by the
 * caller).  (transfer full): pti_reuse_free. */
PtiReuse *pti_reuse_new (guint line);
void pti_reuse_free (PtiReuse *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PtiReuse, pti_reuse_free)

/* Whether references are counted in the histogram.  Uncounted references
 * still move their line to the top of the stack: a region's histogram is
 * that of a cache warmed by everything before it, as a cache simulator
 * running over the whole program and counting in the region sees it.
 * Counting is on in a new PtiReuse. */
void pti_reuse_set_counting (PtiReuse *r, gboolean counting);
gboolean pti_reuse_get_counting (const PtiReuse *r);

/* One reference to the byte range [@addr, @addr + @size) (@size >= 1): one
 * reference per line it touches.  Allocates only when the number of
 * distinct lines or the time axis outgrows its arrays (doubling). */
void pti_reuse_access (PtiReuse *r, guint64 addr, guint64 size);

/* References to @line itself (an address already shifted).  The hot path. */
void pti_reuse_touch (PtiReuse *r, guint64 line);

/* Distinct lines seen so far, counted or not. */
guint64 pti_reuse_distinct (const PtiReuse *r);

/* The counted references binned: *@h filled. */
void pti_reuse_histogram (const PtiReuse *r, PtiReuseHistogram *h);

/* ---- Address streams (reuse-stream.c) ---------------------------------- */

typedef enum {
  /* One reference a line: a hexadecimal address (0x optional), optionally
   * ",SIZE" in decimal bytes (default 1); blank lines and lines starting
   * with '#' are skipped. */
  PTI_REUSE_FORMAT_RAW,
  /* valgrind --tool=lackey --trace-mem=yes: "I  ADDR,SIZE" (instruction,
   * skipped), " L|S|M ADDR,SIZE" (data; a modify is one reference),
   * "==PID== ..." and "--PID-- ..." (valgrind's messages, kept for errors),
   * "**PID** MESSAGE" (VALGRIND_PRINTF: the region markers of
   * include/pti/reuse-region.h; other messages skipped). */
  PTI_REUSE_FORMAT_LACKEY,
} PtiReuseFormat;

typedef struct _PtiReuseStream PtiReuseStream;

/* A parser feeding @r (transfer none: it must outlive the stream); @name
 * names the input in errors ("FILE:LINE: ...").  With @region, references
 * are counted only between the markers (lackey format; nested pairs
 * allowed); otherwise markers are ignored. */
PtiReuseStream *pti_reuse_stream_new (PtiReuse *r, PtiReuseFormat format, const char *name,
                                      gboolean region);
void pti_reuse_stream_free (PtiReuseStream *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PtiReuseStream, pti_reuse_stream_free)

/* Push @len bytes (lines may be cut anywhere).  FALSE with @error
 * (PTI_ERROR_INVALID, "NAME:LINE: ...") at the first bad line; the stream
 * is then spent. */
gboolean pti_reuse_stream_push (PtiReuseStream *s, const char *data, gsize len, GError **error);
/* Read descriptor @fd to its end, in 1 MiB reads, pushing each: FALSE
 * with @error (PTI_ERROR_IO naming @what, or the push's error).  Does not
 * finish the stream nor close @fd. */
gboolean pti_reuse_stream_read_fd (PtiReuseStream *s, int fd, const char *what, GError **error);
/* The end of input: the last line if it has no newline, and the region's
 * end checks (a start marker never closed is an error). */
gboolean pti_reuse_stream_finish (PtiReuseStream *s, GError **error);

/* Markers seen (start markers), and the last few valgrind messages ("=="
 * lines, newline-separated, for an error when valgrind fails; transfer
 * none, may be empty). */
guint64 pti_reuse_stream_regions (const PtiReuseStream *s);
const char *pti_reuse_stream_messages (const PtiReuseStream *s);

/* ---- The <reuse> document (reuse-xml.c) --------------------------------- */

/* The document, exactly schemas/reuse.xsd's root, as text (transfer full). */
char *pti_reuse_histogram_to_xml (const PtiReuseHistogram *h);

/* Read and check a <reuse> file: schema-valid, bins ascending powers of
 * two, counts summing to references.  FALSE with @error naming the file
 * and line. */
gboolean pti_reuse_histogram_load (const char *path, PtiReuseHistogram *h, GError **error);
/* The same from text; @name stands for the file in errors. */
gboolean pti_reuse_histogram_parse (const char *text, gsize len, const char *name,
                                    PtiReuseHistogram *h, GError **error);

/* Predicted misses of a fully-associative LRU cache of @capacity lines: the
 * cold references, plus those with distance >= @capacity, a bin straddling
 * @capacity contributing the share of its integer distances at or above it
 * (linear interpolation: uniform inside a bin). */
double pti_reuse_histogram_misses (const PtiReuseHistogram *h, guint64 capacity);

G_END_DECLS

/* ---- Running a program under valgrind (reuse-run.c) --------------------- */

/* Run @argv (argv[0] found in PATH as a shell would) under
 * `@valgrind --tool=lackey --trace-mem=yes`, lackey's trace read from a
 * pipe as it is written and pushed into @s (never stored whole); the
 * program's own stdin, stdout and stderr are left alone.  @valgrind: a path
 * or a name looked up in PATH.  FALSE with @error (PTI_ERROR_IO: valgrind
 * or the program not found; PTI_ERROR_INVALID: the stream could not be
 * parsed, the program then killed; PTI_ERROR_FAILED: valgrind or the program
 * failed, with valgrind's last messages); TRUE once the stream is finished. */
gboolean pti_reuse_run (const char *valgrind, char *const *argv, PtiReuseStream *s,
                        GError **error);
