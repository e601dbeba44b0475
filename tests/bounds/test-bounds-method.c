/* The corner methods of wsl/bounds.c on synthetic predictions: a run
 * function of the ends chosen, so each bound, corner, run count, warning
 * and refusal is known exactly without evaluating a workload. */
#include "bounds.h"

#include <math.h>
#include <string.h>

/* Three ranges: a time (slower when higher), a bandwidth (faster when
 * higher), a parameter (unknown sense). */
static PtiRanges *
three_ranges (void)
{
  PtiRanges *r = pti_ranges_new ();
  double v;
  g_assert_true (pti_ranges_take (r, "t", "time", "us", 1, 2, 3,
                                  PTI_RANGE_SENSE_SLOWER_WHEN_HIGHER, &v, NULL));
  g_assert_true (pti_ranges_take (r, "b", "bandwidth", "MB/s", 10, 20, 40,
                                  PTI_RANGE_SENSE_FASTER_WHEN_HIGHER, &v, NULL));
  g_assert_true (pti_ranges_take (r, "p", "param p", NULL, 1, 2, 4, PTI_RANGE_SENSE_UNKNOWN, &v,
                                  NULL));
  return r;
}

static double
value (PtiRanges *r, const char *key)
{
  const PtiRange *range = NULL;
  for (guint i = 0; i < pti_ranges_count (r); i++)
    if (strcmp (pti_ranges_nth (r, i)->key, key) == 0)
      range = pti_ranges_nth (r, i);
  PtiRangeEnd end = pti_ranges_chosen (r, key);
  return end == PTI_RANGE_LOW ? range->low : end == PTI_RANGE_HIGH ? range->high : range->nominal;
}

typedef struct {
  guint runs;
  guint traced;
  gboolean contradict;   /* time's sense wrong: a longer time makes it faster */
} Fake;

/* t + 100 / b + 8 / p: monotone in each, slower at the low end of p. */
static gboolean
fake_run (PtiRanges *r, const char *trace, double *time, gpointer data, GError **error)
{
  Fake *f = data;
  f->runs++;
  f->traced += trace != NULL;
  double t = value (r, "t");
  *time = (f->contradict ? 4 - t : t) + 100 / value (r, "b") + 8 / value (r, "p");
  return TRUE;
}

static void
test_directed (void)
{
  g_autoptr (PtiRanges) r = three_ranges ();
  Fake f = { 0 };
  PtiBounds b;
  /* nominal 2 + 5 + 4 = 11; fast corner t = 1, b = 40, p = 4: 1 + 2.5 + 2;
   * slow corner t = 3, b = 10, p = 1: 3 + 10 + 8 */
  g_assert_true (pti_bounds_compute (r, PTI_BOUNDS_DIRECTED, 256, 11, NULL, NULL, fake_run, &f,
                                     &b, NULL));
  g_assert_cmpfloat (b.lower, ==, 5.5);
  g_assert_cmpfloat (b.upper, ==, 21);
  g_assert_cmpuint (b.runs, ==, 4);   /* 2 x 2^1: p's two ends for each bound */
  g_assert_cmpuint (f.runs, ==, 4);
  g_assert_cmpint (b.lower_corner[0], ==, PTI_RANGE_LOW);
  g_assert_cmpint (b.lower_corner[1], ==, PTI_RANGE_HIGH);
  g_assert_cmpint (b.lower_corner[2], ==, PTI_RANGE_HIGH);
  g_assert_cmpint (b.upper_corner[0], ==, PTI_RANGE_HIGH);
  g_assert_cmpint (b.upper_corner[1], ==, PTI_RANGE_LOW);
  g_assert_cmpint (b.upper_corner[2], ==, PTI_RANGE_LOW);
  g_assert_cmpuint (b.warnings->len, ==, 0);
  /* every choice is back to nominal */
  g_assert_cmpint (pti_ranges_chosen (r, "t"), ==, PTI_RANGE_NOMINAL);
  pti_bounds_clear (&b);

  /* Traces: found among 2 corners each, so both corners run again. */
  f = (Fake) { 0 };
  g_assert_true (pti_bounds_compute (r, PTI_BOUNDS_DIRECTED, 256, 11, "l.xml", "u.xml", fake_run,
                                     &f, &b, NULL));
  g_assert_cmpuint (b.runs, ==, 6);
  g_assert_cmpuint (f.traced, ==, 2);
  pti_bounds_clear (&b);
}

static void
test_known_senses_only (void)
{
  g_autoptr (PtiRanges) r = pti_ranges_new ();
  double v;
  g_assert_true (pti_ranges_take (r, "t", "time", "us", 1, 2, 3,
                                  PTI_RANGE_SENSE_SLOWER_WHEN_HIGHER, &v, NULL));
  g_assert_true (pti_ranges_take (r, "b", "bandwidth", "MB/s", 10, 20, 40,
                                  PTI_RANGE_SENSE_FASTER_WHEN_HIGHER, &v, NULL));
  g_assert_true (pti_ranges_take (r, "p", "param p", NULL, 2, 2, 2, PTI_RANGE_SENSE_SLOWER_WHEN_HIGHER,
                                  &v, NULL));
  Fake f = { 0 };
  PtiBounds b;
  /* One corner per bound: each run writes its trace, no rerun. */
  g_assert_true (pti_bounds_compute (r, PTI_BOUNDS_DIRECTED, 256, 11, "l.xml", "u.xml", fake_run,
                                     &f, &b, NULL));
  g_assert_cmpuint (b.runs, ==, 2);
  g_assert_cmpuint (f.traced, ==, 2);
  g_assert_cmpfloat (b.lower, ==, 1 + 2.5 + 4);
  g_assert_cmpfloat (b.upper, ==, 3 + 10 + 4);
  pti_bounds_clear (&b);
}

static void
test_exhaustive_checks_senses (void)
{
  g_autoptr (PtiRanges) r = three_ranges ();
  Fake f = { .contradict = TRUE };
  PtiBounds b;
  /* 4 - t: the time's stated sense is wrong.  Fastest corner t = 3,
   * b = 40, p = 4: 1 + 2.5 + 2 = 5.5; those agreeing with the senses
   * (t = 1) give at best 3 + 2.5 + 2 = 7.5. */
  g_assert_true (pti_bounds_compute (r, PTI_BOUNDS_EXHAUSTIVE, 256, 11, NULL, NULL, fake_run, &f,
                                     &b, NULL));
  g_assert_cmpuint (b.runs, ==, 8);
  g_assert_cmpfloat (b.lower, ==, 5.5);
  g_assert_cmpfloat (b.upper, ==, 3 + 10 + 8);
  g_assert_cmpint (b.lower_corner[0], ==, PTI_RANGE_HIGH);
  g_assert_cmpuint (b.warnings->len, ==, 2);
  g_assert_nonnull (strstr (g_ptr_array_index (b.warnings, 0), "fastest corner (5.5 s)"));
  g_assert_nonnull (strstr (g_ptr_array_index (b.warnings, 0), "(7.5 s); it differs from them "
                                                               "in time (slower-when-higher)"));
  pti_bounds_clear (&b);
  /* directed cannot see it: it trusts the senses */
  f = (Fake) { .contradict = TRUE };
  g_assert_true (pti_bounds_compute (r, PTI_BOUNDS_DIRECTED, 256, 11, NULL, NULL, fake_run, &f,
                                     &b, NULL));
  g_assert_cmpfloat (b.lower, ==, 7.5);
  g_assert_cmpuint (b.warnings->len, ==, 0);
  pti_bounds_clear (&b);
}

static void
test_nominal_outside (void)
{
  g_autoptr (PtiRanges) r = three_ranges ();
  Fake f = { 0 };
  PtiBounds b;
  /* A nominal prediction of 30 is above every corner: the upper bound is it. */
  g_assert_true (pti_bounds_compute (r, PTI_BOUNDS_DIRECTED, 256, 30, NULL, NULL, fake_run, &f,
                                     &b, NULL));
  g_assert_cmpfloat (b.upper, ==, 30);
  g_assert_cmpint (b.upper_corner[0], ==, PTI_RANGE_NOMINAL);
  g_assert_cmpuint (b.warnings->len, ==, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (b.warnings, 0), "not monotone"));
  pti_bounds_clear (&b);
}

static void
test_limit (void)
{
  g_autoptr (PtiRanges) r = three_ranges ();
  Fake f = { 0 };
  PtiBounds b;
  g_autoptr (GError) error = NULL;
  g_assert_false (pti_bounds_compute (r, PTI_BOUNDS_EXHAUSTIVE, 7, 11, NULL, NULL, fake_run, &f,
                                      &b, &error));
  g_assert_error (error, PTI_ERROR, PTI_ERROR_USAGE);
  g_assert_nonnull (strstr (error->message, "need 8 evaluations (both ends of 3 ranges: time, "
                                            "bandwidth, param p), more than --bounds-limit=7"));
  g_assert_cmpuint (f.runs, ==, 0);
  pti_bounds_clear (&b);
  g_clear_error (&error);
  g_assert_false (pti_bounds_compute (r, PTI_BOUNDS_DIRECTED, 3, 11, NULL, NULL, fake_run, &f,
                                      &b, &error));
  g_assert_nonnull (strstr (error->message, "need 4 evaluations (both ends of 1 range: param p)"));
  pti_bounds_clear (&b);
}

static void
test_ranges_take (void)
{
  g_autoptr (PtiRanges) r = pti_ranges_new ();
  g_autoptr (GError) error = NULL;
  double v = 0;
  g_assert_false (pti_ranges_take (r, "k", "f.xml:3: <x>", NULL, 3, 2, 1,
                                   PTI_RANGE_SENSE_UNKNOWN, &v, &error));
  g_assert_cmpstr (error->message, ==, "f.xml:3: <x>: range 3..1: the low end is above the high end");
  g_clear_error (&error);
  g_assert_false (pti_ranges_take (r, "k", "f.xml:3: <x>", NULL, 1, 5, 3,
                                   PTI_RANGE_SENSE_UNKNOWN, &v, &error));
  g_assert_cmpstr (error->message, ==, "f.xml:3: <x>: the nominal value 5 is outside its range 1..3");
  g_clear_error (&error);
  g_assert_false (pti_ranges_take (r, "k", "f.xml:3: <x>", NULL, NAN, 2, 3,
                                   PTI_RANGE_SENSE_UNKNOWN, &v, &error));
  g_assert_cmpuint (pti_ranges_count (r), ==, 0);
  /* NULL ranges: checked, the nominal value */
  g_assert_true (pti_ranges_take (NULL, "k", "x", NULL, 1, 2, 3, PTI_RANGE_SENSE_UNKNOWN, &v, NULL));
  g_assert_cmpfloat (v, ==, 2);
  /* the end chosen; a key met twice is recorded once */
  pti_ranges_choose (r, "k", PTI_RANGE_HIGH);
  g_assert_true (pti_ranges_take (r, "k", "x", NULL, 1, 2, 3, PTI_RANGE_SENSE_UNKNOWN, &v, NULL));
  g_assert_cmpfloat (v, ==, 3);
  g_assert_true (pti_ranges_take (r, "k", "x", NULL, 1, 2, 3, PTI_RANGE_SENSE_UNKNOWN, &v, NULL));
  g_assert_cmpuint (pti_ranges_count (r), ==, 1);
}

static void
test_trace_names (void)
{
  g_autofree char *a = pti_bounds_trace_name ("out/t.xml", "lower");
  g_autofree char *b = pti_bounds_trace_name ("t", "upper");
  g_autofree char *c = pti_bounds_trace_name (".xml", "lower");
  g_assert_cmpstr (a, ==, "out/t.lower.xml");
  g_assert_cmpstr (b, ==, "t.upper");
  g_assert_cmpstr (c, ==, ".xml.lower");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/bounds/directed", test_directed);
  g_test_add_func ("/bounds/known-senses-only", test_known_senses_only);
  g_test_add_func ("/bounds/exhaustive-checks-senses", test_exhaustive_checks_senses);
  g_test_add_func ("/bounds/nominal-outside", test_nominal_outside);
  g_test_add_func ("/bounds/limit", test_limit);
  g_test_add_func ("/bounds/ranges-take", test_ranges_take);
  g_test_add_func ("/bounds/trace-names", test_trace_names);
  return g_test_run ();
}
