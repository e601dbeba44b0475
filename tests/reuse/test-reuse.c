/* The reuse-distance engine, the stream parsers and the <reuse> document
 * (memtrace/), on address streams whose histograms are worked by hand. */
#include "reuse.h"
#include "reuse-private.h"
#include "xml.h"

#include <pti/hmi.h>
#include <string.h>

/* Bin index of distance d: bin k holds [2^(k-1), 2^k), bin 0 holds 0. */
static guint
bin_of (guint64 d)
{
  return d == 0 ? 0 : 64 - (guint) __builtin_clzll (d);
}

/* The histogram has exactly these (bin index, count) pairs non-zero. */
static void
assert_bins (const PtiReuseHistogram *h, guint64 cold, const guint64 *pairs, guint n_pairs)
{
  g_assert_cmpuint (h->cold, ==, cold);
  guint64 want[PTI_REUSE_MAX_BINS] = { 0 };
  guint64 total = cold;
  for (guint i = 0; i < n_pairs; i++) {
    want[pairs[2 * i]] += pairs[2 * i + 1];
    total += pairs[2 * i + 1];
  }
  g_assert_cmpuint (h->references, ==, total);
  for (guint k = 0; k < PTI_REUSE_MAX_BINS; k++) {
    guint64 got = k < h->n_bins ? h->count[k] : 0;
    if (got != want[k])
      g_error ("bin %u (distance < 2^%u): %" G_GUINT64_FORMAT ", expected %" G_GUINT64_FORMAT, k,
               k, got, want[k]);
    if (k < h->n_bins)
      g_assert_cmpuint (h->upper[k], ==, G_GUINT64_CONSTANT (1) << k);
  }
  /* every bin up to the last non-empty one is written, no more */
  g_assert_true (h->n_bins == 0 || h->count[h->n_bins - 1] != 0);
}

/* A cyclic sweep of k lines, n rounds: k cold, then every reference has
 * k - 1 distinct lines between it and its previous one.  k = 100000 goes
 * through many compactions and doublings of the time axis and the table. */
static void
test_cyclic (void)
{
  const guint64 ks[] = { 1, 2, 3, 5, 64, 1000, 100000 };
  for (guint i = 0; i < G_N_ELEMENTS (ks); i++) {
    guint64 k = ks[i], rounds = 4;
    g_autoptr (PtiReuse) r = pti_reuse_new (64);
    for (guint64 n = 0; n < rounds; n++)
      for (guint64 l = 0; l < k; l++)
        pti_reuse_access (r, 0x10000 + l * 64, 8);
    PtiReuseHistogram h;
    pti_reuse_histogram (r, &h);
    guint64 pair[] = { bin_of (k - 1), k * (rounds - 1) };
    assert_bins (&h, k, pair, 1);
    g_assert_cmpuint (pti_reuse_distinct (r), ==, k);
    /* k a power of two, so d = k - 1 is in the bin [k/2, k): a cache of k
     * lines holds the loop, only the cold references miss; one of k/2
     * lines misses every reference (no interpolation at a bin's edges). */
    if ((k & (k - 1)) == 0) {
      g_assert_cmpfloat (pti_reuse_histogram_misses (&h, k), ==, (double) k);
      if (k > 1)
        g_assert_cmpfloat (pti_reuse_histogram_misses (&h, k / 2), ==, (double) (k * rounds));
    }
  }
}

/* Stride s bytes over 256 lines of 64 bytes, twice: 64 / s references a
 * line per sweep, the first one at distance 255 (cold in the first sweep),
 * the others at distance 0.  A stride of 96 touches every line of 3 / 2 in
 * a pattern worked below. */
static void
test_stride (void)
{
  const guint64 strides[] = { 8, 16, 32, 64 };
  for (guint i = 0; i < G_N_ELEMENTS (strides); i++) {
    guint64 s = strides[i], per_line = 64 / s;
    g_autoptr (PtiReuse) r = pti_reuse_new (64);
    for (int sweep = 0; sweep < 2; sweep++)
      for (guint64 a = 0; a < 256 * 64; a += s)
        pti_reuse_access (r, a, 8);
    PtiReuseHistogram h;
    pti_reuse_histogram (r, &h);
    guint64 pairs[] = { 0, 2 * 256 * (per_line - 1), bin_of (255), 256 };
    assert_bins (&h, 256, per_line > 1 ? pairs : pairs + 2, per_line > 1 ? 2 : 1);
  }
  /* Stride 128 with 64-byte lines: every other line, 128 of 256, then the
   * same again: 128 cold, 128 at distance 127. */
  g_autoptr (PtiReuse) r = pti_reuse_new (64);
  for (int sweep = 0; sweep < 2; sweep++)
    for (guint64 a = 0; a < 256 * 64; a += 128)
      pti_reuse_access (r, a, 8);
  PtiReuseHistogram h;
  pti_reuse_histogram (r, &h);
  guint64 pair[] = { bin_of (127), 128 };
  assert_bins (&h, 128, pair, 1);
}

/* Forwards then backwards over k lines: the j-th reference of the second
 * pass (line k-1-j) has the j lines after it in the first pass in between,
 * which are the lines before it in the second: distance j.  So one
 * reference at each distance 0..k-1: bin 0 has 1, bin b >= 1 has 2^(b-1). */
static void
test_reverse (void)
{
  guint64 k = 1024;
  g_autoptr (PtiReuse) r = pti_reuse_new (32);
  for (guint64 l = 0; l < k; l++)
    pti_reuse_touch (r, l);
  for (guint64 l = k; l-- > 0;)
    pti_reuse_touch (r, l);
  PtiReuseHistogram h;
  pti_reuse_histogram (r, &h);
  guint64 pairs[22];
  guint n = 0;
  for (guint b = 0; b <= bin_of (k - 1); b++) {
    pairs[2 * n] = b;
    pairs[2 * n++ + 1] = b == 0 ? 1 : G_GUINT64_CONSTANT (1) << (b - 1);
  }
  assert_bins (&h, k, pairs, n);
  g_assert_cmpuint (h.line, ==, 32);
}

/* Random references over k lines, checked against a plain LRU stack (a
 * list searched from the top: O(n) a reference, obviously right).  The
 * cold count is the number of distinct lines drawn, known from a bitmap. */
static void
test_random_against_stack (void)
{
  const guint k = 3000, n = 200000;
  GRand *rand = g_rand_new_with_seed (15);
  g_autoptr (PtiReuse) r = pti_reuse_new (64);
  guint *stack = g_new (guint, k);
  guint depth = 0;
  guint64 bins[PTI_REUSE_MAX_BINS] = { 0 }, cold = 0;
  guint8 *seen = g_new0 (guint8, k);
  guint distinct = 0;
  for (guint i = 0; i < n; i++) {
    /* A skewed draw: half the references go to the first tenth. */
    guint line = g_rand_boolean (rand) ? g_rand_int_range (rand, 0, k / 10)
                                       : g_rand_int_range (rand, 0, k);
    pti_reuse_touch (r, line);
    distinct += !seen[line];
    seen[line] = 1;
    guint pos = 0;
    while (pos < depth && stack[pos] != line)
      pos++;
    if (pos == depth) {
      cold++;
      depth++;
    } else {
      bins[bin_of (pos)]++;
    }
    memmove (stack + 1, stack, pos * sizeof *stack);
    stack[0] = line;
  }
  PtiReuseHistogram h;
  pti_reuse_histogram (r, &h);
  g_assert_cmpuint (h.cold, ==, cold);
  g_assert_cmpuint (cold, ==, distinct);
  g_assert_cmpuint (h.references, ==, n);
  for (guint b = 0; b < PTI_REUSE_MAX_BINS; b++)
    g_assert_cmpuint (b < h.n_bins ? h.count[b] : 0, ==, bins[b]);
  g_free (stack);
  g_free (seen);
  g_rand_free (rand);
}

/* Three lines, a million references: the time axis is compacted again and
 * again without growing; every reference after the first three is at
 * distance 2. */
static void
test_compaction (void)
{
  g_autoptr (PtiReuse) r = pti_reuse_new (64);
  for (guint i = 0; i < 1000000; i++)
    pti_reuse_touch (r, i % 3);
  PtiReuseHistogram h;
  pti_reuse_histogram (r, &h);
  guint64 pair[] = { bin_of (2), 1000000 - 3 };
  assert_bins (&h, 3, pair, 1);
}

/* An access straddling a line boundary references both lines; one at the
 * top of the address space stops there. */
static void
test_straddle (void)
{
  g_autoptr (PtiReuse) r = pti_reuse_new (64);
  pti_reuse_access (r, 60, 8);          /* lines 0 and 1: cold, cold */
  pti_reuse_access (r, 0, 64);          /* line 0: line 1 since, distance 1 */
  pti_reuse_access (r, 64, 1);          /* line 1: line 0 since, distance 1 */
  pti_reuse_access (r, G_MAXUINT64 - 3, 8);   /* the last line only: cold */
  PtiReuseHistogram h;
  pti_reuse_histogram (r, &h);
  guint64 pair[] = { 1, 2 };
  assert_bins (&h, 3, pair, 1);
}

/* Uncounted references warm the stack: a sweep of 10 lines outside the
 * region, then the same 10 inside: no cold reference, 10 at distance 9. */
static void
test_counting (void)
{
  g_autoptr (PtiReuse) r = pti_reuse_new (64);
  pti_reuse_set_counting (r, FALSE);
  for (guint l = 0; l < 10; l++)
    pti_reuse_touch (r, l);
  pti_reuse_set_counting (r, TRUE);
  for (guint l = 0; l < 10; l++)
    pti_reuse_touch (r, l);
  PtiReuseHistogram h;
  pti_reuse_histogram (r, &h);
  guint64 pair[] = { bin_of (9), 10 };
  assert_bins (&h, 0, pair, 1);
}

/* Misses with interpolation: a bin [4, 8) of 8 references and 2 cold. */
static void
test_misses (void)
{
  PtiReuseHistogram h = { .line = 64, .references = 13, .cold = 2, .n_bins = 4,
                          .upper = { 1, 2, 4, 8 }, .count = { 1, 0, 2, 8 } };
  g_assert_cmpfloat (pti_reuse_histogram_misses (&h, 1), ==, 2 + 0 + 2 + 8);
  g_assert_cmpfloat (pti_reuse_histogram_misses (&h, 3), ==, 2 + 2 * 0.5 + 8);
  g_assert_cmpfloat (pti_reuse_histogram_misses (&h, 4), ==, 2 + 8);
  /* distances 4..7, those >= 6: 6 and 7, half the bin */
  g_assert_cmpfloat (pti_reuse_histogram_misses (&h, 6), ==, 2 + 8 * 0.5);
  g_assert_cmpfloat (pti_reuse_histogram_misses (&h, 8), ==, 2);
  g_assert_cmpfloat (pti_reuse_histogram_misses (&h, 1 << 20), ==, 2);
  /* A reader's sparse bins: [2, 16) of 14 references, capacity 9: 7 of 14 */
  PtiReuseHistogram s = { .line = 64, .references = 14, .n_bins = 2, .upper = { 2, 16 },
                          .count = { 0, 14 } };
  g_assert_cmpfloat (pti_reuse_histogram_misses (&s, 9), ==, 7);
}

/* ---- streams ------------------------------------------------------------- */

static gboolean
push_all (PtiReuseStream *s, const char *text, gsize chunk, GError **error)
{
  gsize len = strlen (text);
  for (gsize off = 0; off < len; off += chunk)
    if (!pti_reuse_stream_push (s, text + off, MIN (chunk, len - off), error))
      return FALSE;
  return pti_reuse_stream_finish (s, error);
}

static char *
stream_xml (const char *text, PtiReuseFormat format, gboolean region, gsize chunk,
            GError **error)
{
  g_autoptr (PtiReuse) r = pti_reuse_new (64);
  g_autoptr (PtiReuseStream) s = pti_reuse_stream_new (r, format, "in", region);
  if (!push_all (s, text, chunk, error))
    return NULL;
  PtiReuseHistogram h;
  pti_reuse_histogram (r, &h);
  return pti_reuse_histogram_to_xml (&h);
}

/* Raw lines, in chunks of every size from 1 byte: the same histogram,
 * written exactly so. */
static void
test_raw_stream (void)
{
  const char *text = "# a comment\n"
                     "0x1000\n1040\n  0x1080,8  \n\n1000,128\r\n0x10C0\n1000";   /* no final newline */
  /* lines 0x40, 0x41, 0x42; 0x40, 0x41 (128 bytes); 0x43; 0x40 */
  const char *golden = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                       "<reuse line=\"64\" references=\"7\">\n"
                       "  <bin distance=\"1\" count=\"0\"/>\n"
                       "  <bin distance=\"2\" count=\"0\"/>\n"
                       "  <bin distance=\"4\" count=\"3\"/>\n"
                       "  <cold count=\"4\"/>\n"
                       "</reuse>\n";
  for (gsize chunk = 1; chunk <= strlen (text); chunk++) {
    GError *error = NULL;
    g_autofree char *xml = stream_xml (text, PTI_REUSE_FORMAT_RAW, FALSE, chunk, &error);
    g_assert_no_error (error);
    g_assert_cmpstr (xml, ==, golden);
  }
}

static void
assert_stream_error (const char *text, PtiReuseFormat format, gboolean region,
                     const char *message)
{
  GError *error = NULL;
  g_autofree char *xml = stream_xml (text, format, region, 7, &error);
  g_assert_null (xml);
  g_assert_error (error, PTI_ERROR, PTI_ERROR_INVALID);
  if (strstr (error->message, message) == NULL)
    g_error ("'%s' does not contain '%s'", error->message, message);
  g_error_free (error);
}

static void
test_stream_errors (void)
{
  assert_stream_error ("1000\nzz\n", PTI_REUSE_FORMAT_RAW, FALSE,
                       "in:2: not a hexadecimal address: 'zz'");
  assert_stream_error ("1000\n\n1000,0\n", PTI_REUSE_FORMAT_RAW, FALSE,
                       "in:3: expected ADDRESS or ADDRESS,SIZE");
  assert_stream_error ("1000,65537\n", PTI_REUSE_FORMAT_RAW, FALSE, "in:1: expected ADDRESS");
  assert_stream_error ("10000000000000000\n", PTI_REUSE_FORMAT_RAW, FALSE,
                       "in:1: not a hexadecimal address");
  assert_stream_error ("1000 2000\n", PTI_REUSE_FORMAT_RAW, FALSE, "in:1: not a hexadecimal address");
  assert_stream_error ("1000,8x\n", PTI_REUSE_FORMAT_RAW, FALSE, "in:1: expected ADDRESS");
  g_autofree char *lng = g_strnfill (5000, 'a');
  assert_stream_error (lng, PTI_REUSE_FORMAT_RAW, FALSE, "in:1: line longer than 4096 bytes");
  assert_stream_error ("I  0040,3\n L zz,8\n", PTI_REUSE_FORMAT_LACKEY, FALSE,
                       "in:2: a data reference must be ' L|S|M ADDRESS,SIZE'");
  assert_stream_error (" S 1000\n", PTI_REUSE_FORMAT_LACKEY, FALSE, "in:1: a data reference");
  assert_stream_error ("hello\n", PTI_REUSE_FORMAT_LACKEY, FALSE,
                       "in:1: not a line of valgrind lackey's --trace-mem output: 'hello'");
  assert_stream_error ("**12** ptireuse-stop\n", PTI_REUSE_FORMAT_LACKEY, TRUE,
                       "in:1: a region's stop marker without its start");
  assert_stream_error ("**12** ptireuse-start\n L 1000,8\n", PTI_REUSE_FORMAT_LACKEY, TRUE,
                       "in: a region was started (ptireuse-start) and never stopped");
}

/* lackey's output: instructions skipped, a modify one reference, valgrind's
 * messages kept, references counted inside (nested) regions only, the
 * stack warmed outside. */
static void
test_lackey_region (void)
{
  const char *text = "==7== Lackey, an example Valgrind tool\n"
                     "I  04001e30,3\n"
                     " S 1ffefffd88,8\n"          /* line A, outside: warms */
                     " L 0000002000,8\n"          /* line B, outside */
                     "**7** hello from the program\n"
                     "**7** ptireuse-start\n"
                     "I  04001e33,4\n"
                     " M 1ffefffd80,8\n"          /* A: B since, distance 1 */
                     "**7** ptireuse-start\n"
                     " L 0000003000,4\n"          /* C: cold */
                     "**7** ptireuse-stop\n"
                     " L 0000002008,8\n"          /* B: A, C since: distance 2 */
                     "**7** ptireuse-stop\n"
                     " S 0000004000,8\n"          /* D: outside */
                     "==7== Counted 1 call to main()\n";
  GError *error = NULL;
  g_autoptr (PtiReuse) r = pti_reuse_new (64);
  g_autoptr (PtiReuseStream) s = pti_reuse_stream_new (r, PTI_REUSE_FORMAT_LACKEY, "in", TRUE);
  g_assert_true (push_all (s, text, 5, &error));
  g_assert_no_error (error);
  PtiReuseHistogram h;
  pti_reuse_histogram (r, &h);
  guint64 pairs[] = { 1, 1, 2, 1 };
  assert_bins (&h, 1, pairs, 2);
  g_assert_cmpuint (pti_reuse_stream_regions (s), ==, 2);
  g_assert_cmpuint (pti_reuse_distinct (r), ==, 4);
  g_assert_cmpstr (pti_reuse_stream_messages (s), ==,
                   "==7== Lackey, an example Valgrind tool\n==7== Counted 1 call to main()\n");
  /* Without --region the markers are ignored: everything counted. */
  g_autofree char *xml = stream_xml (text, PTI_REUSE_FORMAT_LACKEY, FALSE, 3, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (xml, "references=\"6\""));
  g_assert_nonnull (strstr (xml, "<cold count=\"4\"/>"));
}

/* ---- the document ---------------------------------------------------------- */

static void
test_xml_round_trip (void)
{
  PtiReuseHistogram h = { .line = 128, .references = 23, .cold = 5, .n_bins = 4,
                          .upper = { 1, 2, 4, 8 }, .count = { 10, 0, 7, 1 } };
  g_autofree char *xml = pti_reuse_histogram_to_xml (&h);
  g_assert_cmpstr (xml, ==,
                   "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                   "<reuse line=\"128\" references=\"23\">\n"
                   "  <bin distance=\"1\" count=\"10\"/>\n"
                   "  <bin distance=\"2\" count=\"0\"/>\n"
                   "  <bin distance=\"4\" count=\"7\"/>\n"
                   "  <bin distance=\"8\" count=\"1\"/>\n"
                   "  <cold count=\"5\"/>\n"
                   "</reuse>\n");
  PtiReuseHistogram back;
  GError *error = NULL;
  g_assert_true (pti_reuse_histogram_parse (xml, strlen (xml), "h.xml", &back, &error));
  g_assert_no_error (error);
  g_assert_cmpmem (&back, sizeof back, &h, sizeof h);
  /* No bins at all: an empty trace. */
  PtiReuseHistogram empty = { .line = 64 };
  g_autofree char *e = pti_reuse_histogram_to_xml (&empty);
  g_assert_true (pti_reuse_histogram_parse (e, strlen (e), "e.xml", &back, &error));
  g_assert_cmpuint (back.n_bins, ==, 0);
  g_assert_cmpfloat (pti_reuse_histogram_misses (&back, 8), ==, 0);
}

static void
assert_xml_error (const char *body, const char *message)
{
  g_autofree char *text = g_strconcat ("<?xml version=\"1.0\"?>\n", body, NULL);
  PtiReuseHistogram h;
  GError *error = NULL;
  g_assert_false (pti_reuse_histogram_parse (text, strlen (text), "h.xml", &h, &error));
  g_assert_error (error, PTI_ERROR, PTI_ERROR_INVALID);
  if (strstr (error->message, message) == NULL)
    g_error ("'%s' does not contain '%s'", error->message, message);
  g_error_free (error);
}

static void
test_xml_errors (void)
{
  assert_xml_error ("<reuse line=\"48\" references=\"0\">\n<cold count=\"0\"/></reuse>",
                    "h.xml:2: <reuse>: line=\"48\" is not a power of two");
  /* as ptireuse --line and a RUD's <reuse> */
  assert_xml_error ("<reuse line=\"2097152\" references=\"0\">\n<cold count=\"0\"/></reuse>",
                    "h.xml:2: <reuse>: line=\"2097152\" must be a whole number of bytes, "
                    "1 to 1048576");
  assert_xml_error ("<reuse line=\"64\" references=\"3\">\n<bin distance=\"3\" count=\"1\"/>\n"
                    "<cold count=\"2\"/></reuse>",
                    "h.xml:3: <bin>: distance=\"3\" is not a power of two");
  assert_xml_error ("<reuse line=\"64\" references=\"3\">\n<bin distance=\"4\" count=\"1\"/>\n"
                    "<bin distance=\"2\" count=\"0\"/>\n<cold count=\"2\"/></reuse>",
                    "h.xml:4: <bin>: distance=\"2\" does not follow the previous bin's 4");
  assert_xml_error ("<reuse line=\"64\" references=\"4\">\n<bin distance=\"4\" count=\"1\"/>\n"
                    "<cold count=\"2\"/></reuse>",
                    "h.xml:2: <reuse>: references=\"4\" but the bins and cold count 3");
  assert_xml_error ("<reuse line=\"64\" references=\"1\">\n<bin distance=\"4\" "
                    "count=\"99999999999999999999\"/>\n<cold count=\"2\"/></reuse>",
                    "h.xml:3: <bin>: count=\"99999999999999999999\" is not a count below 2^64");
  /* No cold: none counted, so the bins must add up alone. */
  assert_xml_error ("<reuse line=\"64\" references=\"2\">\n<bin distance=\"4\" count=\"1\"/>"
                    "</reuse>", "h.xml:2: <reuse>: references=\"2\" but the bins and cold count 1");
  /* What only a RUD's <reuse> may say, or leave out. */
  assert_xml_error ("<reuse line=\"64\">\n<cold count=\"0\"/></reuse>",
                    "h.xml:2: <reuse>: missing required attribute references");
  assert_xml_error ("<reuse line=\"64\" references=\"0\" scale=\"n\">\n<cold count=\"0\"/></reuse>",
                    "h.xml:2: <reuse>: scale= belongs in a RUD's <reuse>, not in a histogram file");
  assert_xml_error ("<reuse line=\"64\" references=\"1\">\n<cold count=\"0.5\"/></reuse>",
                    "h.xml:3: <cold>: count=\"0.5\" is not a count below 2^64");
  /* Schema violations: a negative count, another root. */
  assert_xml_error ("<reuse line=\"64\" references=\"0\">\n<cold count=\"-1\"/></reuse>",
                    "h.xml:3");
  assert_xml_error ("<histogram/>", "h.xml:2");
  assert_xml_error ("<reuse", "h.xml");
}

/* ptireuse's reader and a RUD's are one (hmi/reuse-private.h): a histogram
 * file's mistake gets the same message from both, and the numbers of a
 * good one are the same. */
static void
test_xml_one_reader (void)
{
  static const char *const bodies[] = {
    "<reuse line=\"64\" references=\"3\">\n<bin distance=\"4\" count=\"1\"/>\n"
    "<bin distance=\"2\" count=\"0\"/>\n<cold count=\"2\"/></reuse>",
    "<reuse line=\"64\" references=\"4\">\n<bin distance=\"4\" count=\"1\"/>\n"
    "<cold count=\"2\"/></reuse>",
    "<reuse line=\"64\">\n<cold count=\"0\"/></reuse>",
    "<reuse line=\"64\" references=\"0\" file=\"h.xml\">\n<cold count=\"0\"/></reuse>",
    "<reuse line=\"4194304\" references=\"0\">\n<cold count=\"0\"/></reuse>",
  };
  for (guint i = 0; i < G_N_ELEMENTS (bodies); i++) {
    g_autofree char *text = g_strconcat ("<?xml version=\"1.0\"?>\n", bodies[i], NULL);
    GError *ptireuse = NULL, *rud = NULL;
    PtiReuseHistogram h;
    g_assert_false (pti_reuse_histogram_parse (text, strlen (text), "h.xml", &h, &ptireuse));
    g_autoptr (xmlDoc) doc = pti_xml_read_memory (text, -1, "h.xml", &rud);
    g_assert_no_error (rud);
    PtiReuseValues v;
    g_assert_false (pti_reuse_read (xmlDocGetRootElement (doc), PTI_REUSE_FILE, &v, &rud));
    g_assert_null (v.bins);
    g_assert_error (ptireuse, PTI_ERROR, PTI_ERROR_INVALID);
    g_assert_error (rud, PTI_ERROR, PTI_ERROR_INVALID);
    g_assert_cmpstr (ptireuse->message, ==, rud->message);
    g_error_free (ptireuse);
    g_error_free (rud);
  }
  /* A good one: 64-byte lines, bins [0,1) 3, [1,4) 5, cold 2. */
  const char *good = "<reuse line=\"64\" references=\"10\"><bin distance=\"1\" count=\"3\"/>"
                     "<bin distance=\"4\" count=\"5\"/><cold count=\"2\"/></reuse>";
  GError *error = NULL;
  PtiReuseHistogram h;
  g_assert_true (pti_reuse_histogram_parse (good, strlen (good), "g.xml", &h, &error));
  g_autoptr (xmlDoc) doc = pti_xml_read_memory (good, -1, "g.xml", &error);
  PtiReuseValues v;
  g_assert_true (pti_reuse_read (xmlDocGetRootElement (doc), PTI_REUSE_FILE, &v, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (v.line_bytes, ==, 64);
  g_assert_cmpuint (h.line, ==, 64);
  g_assert_cmpfloat (v.references, ==, 10);
  g_assert_cmpuint (h.references, ==, 10);
  g_assert_cmpfloat (v.cold, ==, 2);
  g_assert_cmpuint (h.cold, ==, 2);
  g_assert_cmpuint (v.n_bins, ==, 2);
  g_assert_cmpuint (h.n_bins, ==, 2);
  g_assert_cmpfloat (v.bins[1].distance, ==, 4);
  g_assert_cmpuint (h.upper[1], ==, 4);
  g_assert_cmpfloat (v.bins[1].count, ==, 5);
  g_assert_cmpuint (h.count[1], ==, 5);
  g_free (v.bins);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/reuse/cyclic", test_cyclic);
  g_test_add_func ("/reuse/stride", test_stride);
  g_test_add_func ("/reuse/reverse", test_reverse);
  g_test_add_func ("/reuse/random-against-stack", test_random_against_stack);
  g_test_add_func ("/reuse/compaction", test_compaction);
  g_test_add_func ("/reuse/straddle", test_straddle);
  g_test_add_func ("/reuse/counting", test_counting);
  g_test_add_func ("/reuse/misses", test_misses);
  g_test_add_func ("/reuse/stream/raw", test_raw_stream);
  g_test_add_func ("/reuse/stream/errors", test_stream_errors);
  g_test_add_func ("/reuse/stream/lackey-region", test_lackey_region);
  g_test_add_func ("/reuse/xml/round-trip", test_xml_round_trip);
  g_test_add_func ("/reuse/xml/errors", test_xml_errors);
  g_test_add_func ("/reuse/xml/one-reader", test_xml_one_reader);
  return g_test_run ();
}
