/* The engine's side of PtiDigest (pti/hmi.h): making and comparing state
 * digests.  Not installed: models only add to digests. */
#pragma once

#include <pti/hmi.h>
#include <string.h>

G_BEGIN_DECLS

struct _PtiDigest {
  double origin;             /* s: times are kept relative to it */
  GArray *ints;              /* guint64 */
  GArray *times;             /* double, relative to origin */
  GArray *quantities;        /* double */
  guint64 (*cookie_id) (gpointer cookie, gpointer data);
  gpointer data;
};

PTI_API PtiDigest *pti_digest_new (double origin,
                                   guint64 (*cookie_id) (gpointer cookie, gpointer data),
                                   gpointer data);
PTI_API void pti_digest_free (PtiDigest *digest);
/* Equal discrete parts; times within @time_tolerance (s) of each other;
 * quantities within @relative_tolerance of the larger. */
PTI_API gboolean pti_digest_same (const PtiDigest *a, const PtiDigest *b, double time_tolerance,
                                  double relative_tolerance);

/* Where they differ, for reports (transfer full), or NULL if the same. */
PTI_API char *pti_digest_difference (const PtiDigest *a, const PtiDigest *b,
                                     double time_tolerance, double relative_tolerance);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PtiDigest, pti_digest_free)

G_END_DECLS
