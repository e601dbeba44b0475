/* The one reader of reuse-distance histograms (schemas/reuse.xsd): a RUD's
 * <reuse> (hmi/rud.c, pti_rud_reuse), the file a RUD's <reuse file="..."/>
 * names, and ptireuse's documents (memtrace/reuse-xml.c).  Every check of a
 * histogram's numbers and structure is here, once, with one message each
 * naming the file, line and element.  Not installed (like digest-private.h):
 * exported from libpti-hmi for pti's own components. */
#pragma once

#include <pti/hmi.h>

G_BEGIN_DECLS

/* What a <reuse> element is, hence what it may say. */
typedef enum {
  /* A RUD's <reuse> with the histogram inline: line= and references=
   * required, scale= allowed (the caller reads it; file= is the caller's
   * other form, read with PTI_REUSE_FILE).  Numbers are non-negative
   * decimals (fractional counts allowed), distances ascending. */
  PTI_REUSE_INLINE,
  /* The root of a histogram file: as PTI_REUSE_INLINE, but scale= and
   * file= belong in the RUD, not here, and the root must be <reuse>. */
  PTI_REUSE_FILE,
  /* A histogram file as ptireuse writes and reads it: PTI_REUSE_FILE, and
   * every number a whole count below 2^64 (kept exactly, and summed
   * exactly), line and distances powers of two. */
  PTI_REUSE_WHOLE,
} PtiReuseForm;

/* One bin: references with distance in [previous bin's distance (0 for the
 * first), distance). */
typedef struct {
  double distance;
  double count;
  guint64 whole_distance;    /* PTI_REUSE_WHOLE: the same, exactly; else 0 */
  guint64 whole_count;
} PtiReuseBinValues;

/* A checked histogram: line a whole number of bytes from 1 to 1048576,
 * counts >= 0, distances ascending (> 0), and the bins' and cold counts
 * adding up to @references. */
typedef struct {
  guint line_bytes;
  double references;
  double cold;               /* first references to a line; 0 without <cold> */
  guint64 whole_references;  /* PTI_REUSE_WHOLE: the same, exactly; else 0 */
  guint64 whole_cold;
  guint n_bins;
  PtiReuseBinValues *bins;   /* n_bins of them, ascending (transfer full: g_free) */
} PtiReuseValues;

/**
 * pti_reuse_read:
 * @reuse: the <reuse> element (borrowed for the call only)
 * @form: what it is (what it may say)
 * @out: (out caller-allocates): the histogram; on success the caller owns
 *   @out->bins (g_free), on failure nothing is left to free
 *
 * Reads and checks a histogram: known attributes and children only (<bin>s
 * then at most one <cold>), no stray text, the numbers and sums above.
 * Returns: FALSE with a PTI_ERROR_INVALID error `FILE:LINE: <element>: ...`
 * (pti_node_error).
 */
PTI_API gboolean pti_reuse_read (const xmlNode *reuse, PtiReuseForm form, PtiReuseValues *out,
                                 GError **error);

G_END_DECLS
