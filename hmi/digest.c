/* State digests for analytical repetition (PtiDigest in pti/hmi.h; the
 * engine makes and compares them, see engine/repeat.c).  Here so that
 * models, which link libpti-hmi only, can add to them. */
#include "digest-private.h"

#include <math.h>

PtiDigest *
pti_digest_new (double origin, guint64 (*cookie_id) (gpointer cookie, gpointer data),
                gpointer data)
{
  PtiDigest *d = g_new0 (PtiDigest, 1);
  d->origin = origin;
  d->ints = g_array_new (FALSE, FALSE, sizeof (guint64));
  d->times = g_array_new (FALSE, FALSE, sizeof (double));
  d->quantities = g_array_new (FALSE, FALSE, sizeof (double));
  d->cookie_id = cookie_id;
  d->data = data;
  return d;
}

void
pti_digest_free (PtiDigest *d)
{
  if (d == NULL)
    return;
  g_array_unref (d->ints);
  g_array_unref (d->times);
  g_array_unref (d->quantities);
  g_free (d);
}

void
pti_digest_add_int (PtiDigest *d, guint64 value)
{
  g_array_append_val (d->ints, value);
}

void
pti_digest_add_time (PtiDigest *d, double t)
{
  /* Infinite times stay what they are; finite ones become offsets. */
  double rel = isfinite (t) ? t - d->origin : t;
  g_array_append_val (d->times, rel);
}

void
pti_digest_add_quantity (PtiDigest *d, double value)
{
  g_array_append_val (d->quantities, value);
}

guint64
pti_digest_cookie (PtiDigest *d, gpointer cookie)
{
  return d->cookie_id ? d->cookie_id (cookie, d->data) : 0;
}

static gboolean
close_enough (double a, double b, double tolerance)
{
  if (a == b)
    return TRUE;   /* also equal infinities */
  if (!isfinite (a) || !isfinite (b))
    return FALSE;
  return fabs (a - b) <= tolerance;
}

char *
pti_digest_difference (const PtiDigest *a, const PtiDigest *b, double time_tolerance,
                       double relative_tolerance)
{
  if (a->ints->len != b->ints->len || a->times->len != b->times->len
      || a->quantities->len != b->quantities->len)
    return g_strdup_printf ("sizes %u/%u/%u vs %u/%u/%u", a->ints->len, a->times->len,
                            a->quantities->len, b->ints->len, b->times->len, b->quantities->len);
  for (guint i = 0; i < a->ints->len; i++)
    if (g_array_index (a->ints, guint64, i) != g_array_index (b->ints, guint64, i))
      return g_strdup_printf ("int %u: %" G_GUINT64_FORMAT " vs %" G_GUINT64_FORMAT, i,
                              g_array_index (a->ints, guint64, i),
                              g_array_index (b->ints, guint64, i));
  for (guint i = 0; i < a->times->len; i++) {
    double x = g_array_index (a->times, double, i), y = g_array_index (b->times, double, i);
    if (!close_enough (x, y, time_tolerance))
      return g_strdup_printf ("time %u: %.17g vs %.17g (tolerance %g)", i, x, y, time_tolerance);
  }
  for (guint i = 0; i < a->quantities->len; i++) {
    double x = g_array_index (a->quantities, double, i), y = g_array_index (b->quantities, double, i);
    if (!close_enough (x, y, relative_tolerance * MAX (fabs (x), fabs (y))))
      return g_strdup_printf ("quantity %u: %.17g vs %.17g", i, x, y);
  }
  return NULL;
}

gboolean
pti_digest_same (const PtiDigest *a, const PtiDigest *b, double time_tolerance,
                 double relative_tolerance)
{
  if (a->ints->len != b->ints->len || a->times->len != b->times->len
      || a->quantities->len != b->quantities->len)
    return FALSE;
  if (a->ints->len > 0 && memcmp (a->ints->data, b->ints->data, a->ints->len * sizeof (guint64)) != 0)
    return FALSE;
  for (guint i = 0; i < a->times->len; i++)
    if (!close_enough (g_array_index (a->times, double, i), g_array_index (b->times, double, i),
                       time_tolerance))
      return FALSE;
  for (guint i = 0; i < a->quantities->len; i++) {
    double x = g_array_index (a->quantities, double, i), y = g_array_index (b->quantities, double, i);
    if (!close_enough (x, y, relative_tolerance * MAX (fabs (x), fabs (y))))
      return FALSE;
  }
  return TRUE;
}
