/* Statistics read back from the probes, and the fits of the point-to-point
 * times: net-simple's parameters and a piecewise-linear description. */
#include "calibrate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

CalStat
cal_stat_from_line (const CalLine *l, const char *prefix)
{
  char key[64];
  CalStat s;
#define FIELD(var, suffix, plain)                                                   \
  if (prefix != NULL)                                                               \
    g_snprintf (key, sizeof key, "%s%s", prefix, suffix);                           \
  else                                                                              \
    g_strlcpy (key, plain, sizeof key);                                             \
  var = cal_line_num (l, key);
  FIELD (s.med, "", "t");
  FIELD (s.q1, "_q1", "q1");
  FIELD (s.q3, "_q3", "q3");
  FIELD (s.min, "_min", "min");
  FIELD (s.max, "_max", "max");
#undef FIELD
  double n = cal_line_num (l, "reps");
  if (isnan (n))
    n = cal_line_num (l, "samples");
  s.n = isnan (n) ? 0 : (int) n;
  return s;
}

double
cal_stat_spread (CalStat s)
{
  return s.med > 0 ? (s.q3 - s.q1) / s.med : NAN;
}

double
cal_net_one_way (const CalNet *net, double bytes)
{
  double hops = bytes <= (double) net->eager_limit ? 1 : 3;
  return net->send_overhead + hops * net->latency + bytes / net->bandwidth + net->recv_overhead;
}

/* Weighted least squares of y = p x1 + q x2 (no intercept), weights w. */
static gboolean
solve2 (const double *x1, const double *x2, const double *y, const double *w, guint n, double *p,
        double *q)
{
  double a11 = 0, a12 = 0, a22 = 0, b1 = 0, b2 = 0;
  for (guint i = 0; i < n; i++) {
    a11 += w[i] * x1[i] * x1[i];
    a12 += w[i] * x1[i] * x2[i];
    a22 += w[i] * x2[i] * x2[i];
    b1 += w[i] * x1[i] * y[i];
    b2 += w[i] * x2[i] * y[i];
  }
  double det = a11 * a22 - a12 * a12;
  if (!(fabs (det) > 1e-300))
    return FALSE;
  *p = (b1 * a22 - b2 * a12) / det;
  *q = (a11 * b2 - a12 * b1) / det;
  return TRUE;
}

gboolean
cal_net_fit (CalNet *net, const CalSize *sizes, guint n, double max_bytes)
{
  /* one-way - o_s - o_r = L * hops + n * G: linear in (L, G); weights
   * 1/t^2 make the residuals relative, so small messages count as much as
   * large ones. */
  g_autofree double *x1 = g_new (double, n), *x2 = g_new (double, n), *y = g_new (double, n),
                    *w = g_new (double, n);
  guint m = 0;
  for (guint i = 0; i < n; i++) {
    if (sizes[i].bytes > max_bytes || !(sizes[i].t.med > 0))
      continue;
    double t = sizes[i].t.med * 1e-9;
    x1[m] = sizes[i].bytes <= (double) net->eager_limit ? 1 : 3;
    x2[m] = sizes[i].bytes;
    y[m] = t - net->send_overhead - net->recv_overhead;
    w[m] = 1 / (t * t);
    m++;
  }
  double L, G;
  if (m < 2 || !solve2 (x1, x2, y, w, m, &L, &G))
    return FALSE;
  if (L < 0) {
    /* No latency beyond the overheads: fit G alone. */
    double num = 0, den = 0;
    for (guint i = 0; i < m; i++) {
      num += w[i] * x2[i] * y[i];
      den += w[i] * x2[i] * x2[i];
    }
    L = 0;
    G = den > 0 ? num / den : 0;
  }
  if (!(G > 0))
    return FALSE;
  net->latency = L;
  net->bandwidth = 1 / G;
  return TRUE;
}

/* Straight-line fit of sizes[lo..hi] (inclusive), relative least squares;
 * returns the sum of squared relative residuals. */
static double
line_fit (const CalSize *s, guint lo, guint hi, double *a, double *b, double *max_err)
{
  double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (guint i = lo; i <= hi; i++) {
    double t = s[i].t.med * 1e-9, w = 1 / (t * t);
    sw += w;
    sx += w * s[i].bytes;
    sy += w * t;
    sxx += w * s[i].bytes * s[i].bytes;
    sxy += w * s[i].bytes * t;
  }
  double det = sw * sxx - sx * sx;
  if (hi == lo || !(fabs (det) > 1e-300)) {
    *b = 0;
    *a = sy / sw;
  } else {
    *b = (sw * sxy - sx * sy) / det;
    *a = (sy - *b * sx) / sw;
  }
  double ss = 0;
  *max_err = 0;
  for (guint i = lo; i <= hi; i++) {
    double t = s[i].t.med * 1e-9, r = (*a + *b * s[i].bytes - t) / t;
    ss += r * r;
    *max_err = MAX (*max_err, fabs (r));
  }
  return ss;
}

#define MIN_PIECE 3

/* The squared relative residuals of straight lines through sizes[lo..hi]
 * cut before each of @cuts[0..k-1]. */
static double
pieces_error (const CalSize *sizes, guint lo, guint hi, const guint *cuts, guint k)
{
  double a, b, e, ss = 0;
  guint start = lo;
  for (guint q = 0; q < k; q++) {
    ss += line_fit (sizes, start, cuts[q] - 1, &a, &b, &e);
    start = cuts[q];
  }
  return ss + line_fit (sizes, start, hi, &a, &b, &e);
}

/* The best set of k breaks so far, per k. */
typedef struct {
  double err[4];
  guint cut[4][3];
} Best;

static void
consider (const CalSize *sizes, guint lo, guint hi, const guint *cuts, guint k, Best *best)
{
  double ss = pieces_error (sizes, lo, hi, cuts, k);
  if (ss < best->err[k]) {
    best->err[k] = ss;
    memcpy (best->cut[k], cuts, k * sizeof *cuts);
  }
}

guint
cal_piecewise_fit (const CalSize *sizes, guint n, double eager_limit, guint extra,
                   CalPiece *pieces)
{
  if (n == 0)
    return 0;
  /* sizes are in increasing order; split the eager ones off first */
  guint first_rdv = 0;
  while (first_rdv < n && sizes[first_rdv].bytes <= eager_limit)
    first_rdv++;
  guint count = 0;
  if (first_rdv > 0) {
    CalPiece *p = &pieces[count++];
    p->lo = sizes[0].bytes;
    p->hi = sizes[first_rdv - 1].bytes;
    line_fit (sizes, 0, first_rdv - 1, &p->a, &p->b, &p->max_err);
  }
  if (first_rdv >= n)
    return count;
  /* Rendezvous sizes: try every set of up to @extra breaks (each piece at
   * least MIN_PIECE sizes), keep the one with the least squared error; a
   * break must cut the error by a quarter to be worth a piece. */
  guint lo = first_rdv, hi = n - 1;
  Best best = { { pieces_error (sizes, lo, hi, NULL, 0), INFINITY, INFINITY, INFINITY } };
  /* every set of up to three breaks, each piece at least MIN_PIECE sizes:
   * n is a few dozen, so trying them all is cheap */
  const guint m = MIN_PIECE;
  guint c[3];
  for (c[0] = lo + m; c[0] + m <= hi + 1; c[0]++) {
    consider (sizes, lo, hi, c, 1, &best);
    for (c[1] = c[0] + m; c[1] + m <= hi + 1 && extra >= 2; c[1]++) {
      consider (sizes, lo, hi, c, 2, &best);
      for (c[2] = c[1] + m; c[2] + m <= hi + 1 && extra >= 3; c[2]++)
        consider (sizes, lo, hi, c, 3, &best);
    }
  }
  /* one more break only where it cuts the error by a quarter */
  guint best_k = 0;
  for (guint k = 1; k <= MIN (extra, 3u); k++)
    if (best.err[k] < 0.75 * best.err[best_k])
      best_k = k;
  const guint *best_cut = best.cut[best_k];
  guint starts[4] = { lo, best_k > 0 ? best_cut[0] : 0, best_k > 1 ? best_cut[1] : 0,
                      best_k > 2 ? best_cut[2] : 0 };
  for (guint k = 0; k <= best_k; k++) {
    guint s = starts[k], t = k == best_k ? hi : starts[k + 1] - 1;
    CalPiece *p = &pieces[count++];
    p->lo = sizes[s].bytes;
    p->hi = sizes[t].bytes;
    line_fit (sizes, s, t, &p->a, &p->b, &p->max_err);
  }
  return count;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

double
cal_median (double *v, guint n)
{
  if (n == 0)
    return NAN;
  qsort (v, n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Whether sizes [from, to) fit one share: each within @tol of the median's
 * exchange. */
static gboolean
share_run_fits (const double *w, const double *sens, guint from, guint to, double tol)
{
  double v[64];
  guint m = 0;
  for (guint i = from; i < to && m < G_N_ELEMENTS (v); i++)
    v[m++] = w[i];
  if (m < to - from)
    return FALSE;   /* longer than any piece the probe measures: start a new run */
  double med = cal_median (v, m);
  for (guint i = from; i < to; i++)
    if (!(fabs (w[i] - med) * sens[i] <= tol))
      return FALSE;
  return TRUE;
}

guint
cal_share_runs (const double *w, const double *sens, guint n, double tol, guint *start)
{
  guint runs = 0;
  for (guint i = 0; i < n; i++)
    if (runs == 0 || !share_run_fits (w, sens, start[runs - 1], i + 1, tol))
      start[runs++] = i;
  return runs;
}
