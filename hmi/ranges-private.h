/* The engine's side of value ranges (bounded predictions, issue 15 point 5).
 * Not installed: a model only reads numbers through the pti_config_*
 * readers, which take the end of a range that the evaluation chose.
 *
 * A PtiRanges is two things for one evaluation: the ranges met while the
 * system and the workload were read (in the order met, each with what it
 * is called and which way it moves the predicted time), and the end each
 * range takes, by key (every range not chosen takes its nominal value).
 * Keys name a range the same way in every run over the same inputs: an HMC
 * element by its document path ("hmc:/system/network[1]/net_simple/latency"),
 * a workload parameter by its name ("param:n").  The readers of libpti-hmi
 * find the PtiRanges of a configuration element through its document's
 * `_private` (pti_ranges_attach): the only way to reach them, since a
 * model's configure gets the element alone. */
#pragma once

#include <pti/hmi.h>

G_BEGIN_DECLS

typedef enum {
  PTI_RANGE_NOMINAL = 0,
  PTI_RANGE_LOW,
  PTI_RANGE_HIGH,
} PtiRangeEnd;

typedef struct {
  char *key;               /* identity across runs (see above) */
  char *label;             /* for users: "FILE:LINE: <element>" or "-D n" */
  char *unit;              /* as written (nullable) */
  double low, nominal, high; /* as written, in @unit */
  PtiRangeSense sense;
} PtiRange;

typedef struct _PtiRanges PtiRanges;

PTI_API PtiRanges *pti_ranges_new (void);
PTI_API void pti_ranges_free (PtiRanges *ranges);

/* Sets the end range @key takes from now on (in a run to come). */
PTI_API void pti_ranges_choose (PtiRanges *ranges, const char *key, PtiRangeEnd end);
/* The end @key takes (NOMINAL if never chosen). */
PTI_API PtiRangeEnd pti_ranges_chosen (const PtiRanges *ranges, const char *key);

/* Checks low <= nominal <= high (all finite), records the range (once per
 * key: a key met again keeps its first record) and returns in @value the
 * end chosen for it.  @ranges may be NULL: then only the check, and
 * @value = @nominal.  FALSE with a PTI_ERROR_INVALID error naming @label. */
PTI_API gboolean pti_ranges_take (PtiRanges *ranges, const char *key, const char *label,
                                  const char *unit, double low, double nominal, double high,
                                  PtiRangeSense sense, double *value, GError **error);

PTI_API guint pti_ranges_count (const PtiRanges *ranges);
/* (transfer none): the @i-th range met. */
PTI_API const PtiRange *pti_ranges_nth (const PtiRanges *ranges, guint i);

/* Makes the readers of libpti-hmi over @doc's elements record their ranges
 * in @ranges and take the ends it chose (NULL detaches).  @ranges must
 * outlive the reading. */
PTI_API void pti_ranges_attach (PtiRanges *ranges, xmlDoc *doc);

PTI_API const char *pti_range_end_name (PtiRangeEnd end);
PTI_API const char *pti_range_sense_name (PtiRangeSense sense);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PtiRanges, pti_ranges_free)

G_END_DECLS
