/* Tests of the cpu-mem model: closed-form costs worked by hand from a small
 * profile (numbers chosen so that seconds per byte are round), the
 * reuse-distance histogram, profiles and histograms included from files,
 * and errors naming file and line.
 *
 * The profile below, processes = 1 (seconds per byte, s = 1 / bandwidth):
 *   unit             1 KiB: 1e-9   4 KiB: 2e-9   16 KiB: 4e-9
 *   strided 64       1 KiB: 1e-9                 16 KiB: 1e-8
 *   random           1 KiB: 1e-9                 16 KiB: 1e-7
 *   runs 128         1 KiB: 1e-9                 16 KiB: 2e-8
 *   runs 512         1 KiB: 1e-9                 16 KiB: 5e-9
 *   transpose 512    1 KiB: 1e-9                 16 KiB: 3e-8
 *   transpose 4096   1 KiB: 1e-9                 16 KiB: 9e-9
 *   write            1 KiB: 1e-9                 16 KiB: 5e-9   (bytes written)
 * and processes = 2: unit 1 KiB: 1e-9, 16 KiB: 8e-9; write 1 KiB: 1e-9,
 * 16 KiB: 1e-8.  Excess over L1 (the
 * smallest working set): unit at 8 KiB, halfway in log2 between 4 and 16
 * KiB, 3e-9 - 1e-9 = 2e-9; unit past 16 KiB 3e-9; random past 16 KiB 9.9e-8.
 * Operation costs (ns): LFOR 1, CMLL 1, INLL 1, MFDL 2, AFDL 1, IFBR 1. */
#include <pti/hmi.h>

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "builtin-models.h"
#include "xml.h"

static const PtiModelDesc *const model = &pti_model_cpu_mem;

#define assert_close(a, b)                                                       \
  G_STMT_START {                                                                 \
    double a_ = (a), b_ = (b);                                                   \
    if (!(fabs (a_ - b_) <= 1e-12 * MAX (fabs (a_), fabs (b_))))                  \
      g_error ("%s = %.17g, expected %s = %.17g", #a, a_, #b, b_);               \
  } G_STMT_END

#define CLC "<cpu_clc unit=\"ns\"><LFOR>1</LFOR><CMLL>1</CMLL><INLL>1</INLL><MFDL>2</MFDL>" \
            "<AFDL>1</AFDL><IFBR>1</IFBR></cpu_clc>\n"
#define PROFILES \
  "<profile processes=\"1\" access=\"8\" bandwidth_unit=\"B/s\" latency_unit=\"ns\">\n"      \
  " <pattern name=\"unit\"><point bytes=\"1024\" bandwidth=\"1000000000\" latency=\"1\"/>"    \
  "  <point bytes=\"4096\" bandwidth=\"500000000\" latency=\"1\"/>"                           \
  "  <point bytes=\"16384\" bandwidth=\"250000000\" latency=\"1\"/></pattern>\n"              \
  " <pattern name=\"strided\" stride=\"64\"><point bytes=\"1024\" bandwidth=\"1000000000\""   \
  "   latency=\"1\"/><point bytes=\"16384\" bandwidth=\"100000000\" latency=\"1\"/></pattern>\n" \
  " <pattern name=\"random\"><point bytes=\"1024\" bandwidth=\"1000000000\" latency=\"1\"/>"  \
  "  <point bytes=\"16384\" bandwidth=\"10000000\" latency=\"1\"/></pattern>\n"               \
  " <pattern name=\"runs\" run=\"128\" streams=\"64\"><point bytes=\"1024\""                 \
  "   bandwidth=\"1000000000\" latency=\"1\"/><point bytes=\"16384\" bandwidth=\"50000000\""  \
  "   latency=\"1\"/></pattern>\n"                                                              \
  " <pattern name=\"runs\" run=\"512\"><point bytes=\"1024\" bandwidth=\"1000000000\""        \
  "   latency=\"1\"/><point bytes=\"16384\" bandwidth=\"200000000\" latency=\"1\"/></pattern>\n" \
  " <pattern name=\"transpose\" run=\"512\"><point bytes=\"1024\" bandwidth=\"1000000000\"/>" \
  "  <point bytes=\"16384\" bandwidth=\"33333333.333333333\"/></pattern>\n"                  \
  " <pattern name=\"transpose\" run=\"4096\"><point bytes=\"1024\" bandwidth=\"1000000000\"/>" \
  "  <point bytes=\"16384\" bandwidth=\"111111111.11111111\"/></pattern>\n"                  \
  " <pattern name=\"write\"><point bytes=\"1024\" bandwidth=\"1000000000\"/>"                \
  "  <point bytes=\"16384\" bandwidth=\"200000000\"/></pattern>\n"                            \
  "</profile>\n"                                                                               \
  "<profile processes=\"2\" access=\"8\" bandwidth_unit=\"B/s\" latency_unit=\"ns\">\n"      \
  " <pattern name=\"unit\"><point bytes=\"1024\" bandwidth=\"1000000000\" latency=\"1\"/>"    \
  "  <point bytes=\"16384\" bandwidth=\"125000000\" latency=\"1\"/></pattern>\n"              \
  " <pattern name=\"write\"><point bytes=\"1024\" bandwidth=\"1000000000\"/>"                \
  "  <point bytes=\"16384\" bandwidth=\"100000000\"/></pattern>\n"                            \
  "</profile>\n"
#define CACHES "<cache name=\"L1\" bytes=\"1024\"/><cache name=\"L2\" bytes=\"8192\"/>\n"
#define SYSTEM(cpu_mem) "<computer name=\"c\" cpus=\"2\">\n" CLC cpu_mem "</computer>\n"

static char *tmpdir;

static xmlDoc *
parse (const char *xml, const char *url)
{
  /* pti's one safe reader (hmi/xml.h), as the engine reads configurations */
  g_autoptr (GError) error = NULL;
  xmlDoc *doc = pti_xml_read_memory (xml, -1, url, &error);
  g_assert_no_error (error);
  return doc;
}

static gpointer
instance_new (const char *system_xml, GError **error)
{
  g_autofree char *url = g_build_filename (tmpdir, "system.xml", NULL);
  xmlDoc *doc = parse (system_xml, url);
  const xmlNode *el = pti_config_child (xmlDocGetRootElement (doc), "cpu_mem");
  g_assert_nonnull (el);
  gpointer inst = g_malloc0 (model->instance_size);
  gboolean ok = model->configure (inst, el, error);
  xmlFreeDoc (doc);
  if (!ok) {
    model->finalize (inst);
    g_free (inst);
    return NULL;
  }
  return inst;
}

static void
instance_free (gpointer inst)
{
  model->finalize (inst);
  g_free (inst);
}

static gpointer
compile (const char *rud_xml, PtiSymbols *symbols, GError **error)
{
  g_autofree char *url = g_build_filename (tmpdir, "rud.xml", NULL);
  xmlDoc *doc = parse (rud_xml, url);
  gpointer c = pti_cpu_rud_compile (model->cpu, xmlDocGetRootElement (doc), symbols, error);
  xmlFreeDoc (doc);
  return c;
}

/* The price of @rud on @system with N, W, P, S bound (and nprocs). */
static double
price (const char *system, const char *rud, double nprocs)
{
  g_autoptr (GError) error = NULL;
  gpointer inst = instance_new (system, &error);
  g_assert_no_error (error);
  PtiSymbols *sym = pti_symbols_new ();
  gpointer c = compile (rud, sym, &error);
  g_assert_no_error (error);
  pti_symbols_set (sym, pti_symbols_intern (sym, "N"), 1000);
  pti_symbols_set (sym, pti_symbols_intern (sym, "W"), 8192);
  pti_symbols_set (sym, pti_symbols_intern (sym, "P"), 0.25);
  pti_symbols_set (sym, pti_symbols_intern (sym, "S"), 3);
  pti_symbols_set (sym, pti_symbols_intern (sym, "nprocs"), nprocs);
  double t = NAN;
  gboolean ok = model->cpu->cost (inst, c, sym, &t, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
  model->cpu->rud_free (c);
  pti_symbols_free (sym);
  instance_free (inst);
  return t;
}

/* The error of configuring @system, or of pricing @rud on it. */
static char *
failure (const char *system, const char *rud)
{
  g_autoptr (GError) error = NULL;
  gpointer inst = instance_new (system, &error);
  if (inst == NULL)
    return g_strdup (error->message);
  PtiSymbols *sym = pti_symbols_new ();
  gpointer c = compile (rud, sym, &error);
  char *msg = NULL;
  if (c == NULL) {
    msg = g_strdup (error->message);
  } else {
    pti_symbols_set (sym, pti_symbols_intern (sym, "N"), 1000);
    pti_symbols_set (sym, pti_symbols_intern (sym, "W"), -1);
    pti_symbols_set (sym, pti_symbols_intern (sym, "nprocs"), 1);
    double t;
    if (!model->cpu->cost (inst, c, sym, &t, &error))
      msg = g_strdup (error->message);
    model->cpu->rud_free (c);
  }
  pti_symbols_free (sym);
  instance_free (inst);
  return msg;
}

#define MEM SYSTEM ("<cpu_mem>" CACHES PROFILES "</cpu_mem>\n")
#define LOOP(attrs) "<rud device=\"cpu\"><loop iter=\"N\" type=\"clc\" of=\"LFOR\" " attrs ">" \
                    "<compute type=\"clc\" of=\"MFDL\"/></loop></rud>"

/* ---- bytes, working set, pattern ------------------------------------------ */

static void
test_unit (void)
{
  /* t = N (LFOR + MFDL) + N * 16 * (s(8 KiB) - s(1 KiB)) = 1000 * 3 ns + 1000 * 16 * 2e-9 */
  assert_close (price (MEM, LOOP ("bytes=\"16\" working_set=\"W\" pattern=\"unit\""), 1),
                3e-6 + 1000 * 16 * 2e-9);
  /* in L1 (and below the first point): cpu-clc's price exactly */
  assert_close (price (MEM, LOOP ("bytes=\"16\" working_set=\"100\""), 1), 3e-6);
  /* past the last point: its value, 3e-9 a byte */
  assert_close (price (MEM, LOOP ("bytes=\"16\" working_set=\"1000000\""), 1),
                3e-6 + 1000 * 16 * 3e-9);
  /* two processes share the node (nprocs 2, cpus 2): unit at 16 KiB 7e-9 */
  assert_close (price (MEM, LOOP ("bytes=\"16\" working_set=\"16384\""), 2),
                3e-6 + 1000 * 16 * 7e-9);
  /* sharing="1" overrides the count */
  assert_close (price (SYSTEM ("<cpu_mem sharing=\"1\">" PROFILES "</cpu_mem>\n"),
                       LOOP ("bytes=\"16\" working_set=\"16384\""), 2),
                3e-6 + 1000 * 16 * 3e-9);
  /* The L1 time the operation costs hold is the 1-process curve's first
   * point (1e-9 a byte), whatever a 2-process curve's first point reads:
   * here 2e-9 (500 MB/s, as a disturbed measurement would).  At 16 KiB
   * 8e-9 a byte: excess 7e-9, not 6e-9; at its own first point, 1e-9 */
  const char *slow_l1 = SYSTEM (
    "<cpu_mem>"
    "<profile processes=\"1\" access=\"8\" bandwidth_unit=\"B/s\" latency_unit=\"ns\">"
    "<pattern name=\"unit\"><point bytes=\"1024\" bandwidth=\"1000000000\" latency=\"1\"/>"
    "<point bytes=\"16384\" bandwidth=\"250000000\" latency=\"1\"/></pattern></profile>"
    "<profile processes=\"2\" access=\"8\" bandwidth_unit=\"B/s\" latency_unit=\"ns\">"
    "<pattern name=\"unit\"><point bytes=\"1024\" bandwidth=\"500000000\" latency=\"1\"/>"
    "<point bytes=\"16384\" bandwidth=\"125000000\" latency=\"1\"/></pattern></profile>"
    "</cpu_mem>");
  assert_close (price (slow_l1, LOOP ("bytes=\"16\" working_set=\"16384\""), 2),
                3e-6 + 1000 * 16 * 7e-9);
  assert_close (price (slow_l1, LOOP ("bytes=\"16\" working_set=\"1024\""), 2),
                3e-6 + 1000 * 16 * 1e-9);
  /* one process: its own curve, excess 3e-9 */
  assert_close (price (slow_l1, LOOP ("bytes=\"16\" working_set=\"16384\""), 1),
                3e-6 + 1000 * 16 * 3e-9);
}

static void
test_strided_random (void)
{
  /* stride 16, between unit (8) and 64: 1/3 of the way in log2;
   * at 16 KiB 2/3 * 3e-9 + 1/3 * 9e-9 = 5e-9 */
  assert_close (price (MEM, LOOP ("bytes=\"8\" working_set=\"16384\" pattern=\"strided\" "
                                  "stride=\"16\""), 1), 3e-6 + 1000 * 8 * 5e-9);
  /* past the widest measured stride: its curve */
  assert_close (price (MEM, LOOP ("bytes=\"8\" working_set=\"16384\" pattern=\"strided\" "
                                  "stride=\"128\""), 1), 3e-6 + 1000 * 8 * 9e-9);
  /* random in a branch of probability P = 0.25: the multiplier is P * N;
   * with 2 processes the 2-process profile has no random curve: the
   * 1-process one is used */
  const char *rud = "<rud device=\"cpu\"><case type=\"clc\" of=\"IFBR\"><branch exprob=\"P\">"
                    "<loop iter=\"N\" type=\"clc\" of=\"LFOR\"><compute type=\"clc\" of=\"AFDL\" "
                    "bytes=\"8\" working_set=\"16384\" pattern=\"random\"/></loop>"
                    "</branch></case></rud>";
  double expected = 1e-9 + 0.25 * 1000 * 2e-9 + 0.25 * 1000 * 8 * 9.9e-8;
  assert_close (price (MEM, rud, 1), expected);
  assert_close (price (MEM, rud, 2), expected);
}

static void
test_runs (void)
{
  /* run 256, halfway in log2 between the runs of 128 and 512; at 16 KiB
   * 0.5 * (2e-8 - 1e-9) + 0.5 * (5e-9 - 1e-9) = 1.15e-8 */
  assert_close (price (MEM, LOOP ("bytes=\"8\" working_set=\"16384\" pattern=\"runs\" "
                                  "run=\"256\""), 1), 3e-6 + 1000 * 8 * 1.15e-8);
  /* at 4 KiB, halfway in log2 between 1 and 16 KiB: run 128's curve is
   * 1e-9 + 0.5 * (2e-8 - 1e-9) = 1.05e-8, excess 9.5e-9 (run = S * 32 + 32) */
  assert_close (price (MEM, LOOP ("bytes=\"8\" working_set=\"4096\" pattern=\"runs\" "
                                  "run=\"S * 32 + 32\""), 1), 3e-6 + 1000 * 8 * 9.5e-9);
  /* shorter than the shortest measured run: its curve, 1.9e-8; longer than
   * the longest: its curve, 4e-9 */
  assert_close (price (MEM, LOOP ("bytes=\"8\" working_set=\"16384\" pattern=\"runs\" "
                                  "run=\"64\""), 1), 3e-6 + 1000 * 8 * 1.9e-8);
  assert_close (price (MEM, LOOP ("bytes=\"8\" working_set=\"16384\" pattern=\"runs\" "
                                  "run=\"4096\""), 1), 3e-6 + 1000 * 8 * 4e-9);
  /* 2 processes: their profile has no runs curve, the 1-process one is used */
  assert_close (price (MEM, LOOP ("bytes=\"8\" working_set=\"16384\" pattern=\"runs\" "
                                  "run=\"256\""), 2), 3e-6 + 1000 * 8 * 1.15e-8);
  /* a 2-process profile with runs of 512 only (16 KiB: 1e-8 a byte, excess
   * 9e-9): any run with 2 processes is read from it, a shorter one and a
   * longer one alike; with 1 process, the 1-process curves (as above) */
  const char *two = SYSTEM (
    "<cpu_mem>"
    "<profile processes=\"1\" access=\"8\" bandwidth_unit=\"B/s\" latency_unit=\"ns\">"
    "<pattern name=\"runs\" run=\"128\"><point bytes=\"1024\" bandwidth=\"1000000000\" "
    "latency=\"1\"/><point bytes=\"16384\" bandwidth=\"50000000\" latency=\"1\"/></pattern>"
    "<pattern name=\"runs\" run=\"512\"><point bytes=\"1024\" bandwidth=\"1000000000\" "
    "latency=\"1\"/><point bytes=\"16384\" bandwidth=\"200000000\" latency=\"1\"/></pattern>"
    "</profile>"
    "<profile processes=\"2\" access=\"8\" bandwidth_unit=\"B/s\" latency_unit=\"ns\">"
    "<pattern name=\"runs\" run=\"512\" streams=\"64\"><point bytes=\"1024\" "
    "bandwidth=\"1000000000\" latency=\"1\"/><point bytes=\"16384\" bandwidth=\"100000000\" "
    "latency=\"1\"/></pattern></profile></cpu_mem>");
  assert_close (price (two, LOOP ("bytes=\"8\" working_set=\"16384\" pattern=\"runs\" "
                                  "run=\"256\""), 2), 3e-6 + 1000 * 8 * 9e-9);
  assert_close (price (two, LOOP ("bytes=\"8\" working_set=\"16384\" pattern=\"runs\" "
                                  "run=\"768\""), 2), 3e-6 + 1000 * 8 * 9e-9);
  assert_close (price (two, LOOP ("bytes=\"8\" working_set=\"16384\" pattern=\"runs\" "
                                  "run=\"256\""), 1), 3e-6 + 1000 * 8 * 1.15e-8);
}

/* A blocked transpose: its own curves, by run as the runs pattern's. */
static void
test_transpose (void)
{
  /* run 512 at 16 KiB: excess 3e-8 - 1e-9 = 2.9e-8 */
  assert_close (price (MEM, LOOP ("bytes=\"16\" working_set=\"16384\" pattern=\"transpose\" "
                                  "run=\"512\""), 1), 3e-6 + 1000 * 16 * 2.9e-8);
  /* run 1024, 1/3 of the way in log2 from 512 to 4096: 2/3 * 2.9e-8 +
   * 1/3 * 8e-9 = 2.2e-8 */
  assert_close (price (MEM, LOOP ("bytes=\"16\" working_set=\"16384\" pattern=\"transpose\" "
                                  "run=\"1024\""), 1), 3e-6 + 1000 * 16 * 2.2e-8);
  /* shorter than the shortest measured run, longer than the longest: the
   * nearest curve; at 4 KiB, halfway in log2 from 1 to 16 KiB: run 512's
   * curve 1e-9 + 0.5 * 2.9e-8, excess 1.45e-8 */
  assert_close (price (MEM, LOOP ("bytes=\"16\" working_set=\"16384\" pattern=\"transpose\" "
                                  "run=\"64\""), 1), 3e-6 + 1000 * 16 * 2.9e-8);
  assert_close (price (MEM, LOOP ("bytes=\"16\" working_set=\"16384\" pattern=\"transpose\" "
                                  "run=\"8000\""), 1), 3e-6 + 1000 * 16 * 8e-9);
  assert_close (price (MEM, LOOP ("bytes=\"16\" working_set=\"4096\" pattern=\"transpose\" "
                                  "run=\"512\""), 1), 3e-6 + 1000 * 16 * 1.45e-8);
  /* 2 processes: their profile has no transpose curve, the 1-process ones */
  assert_close (price (MEM, LOOP ("bytes=\"16\" working_set=\"16384\" pattern=\"transpose\" "
                                  "run=\"1024\""), 2), 3e-6 + 1000 * 16 * 2.2e-8);
  /* not read from the runs curves: the same loop as runs of 512 adds 4e-9 */
  assert_close (price (MEM, LOOP ("bytes=\"16\" working_set=\"16384\" pattern=\"runs\" "
                                  "run=\"512\""), 1), 3e-6 + 1000 * 16 * 4e-9);
}

/* Reads and write-allocating stores add up: bytes at the pattern's curve,
 * written at the write curve (README, "Reads and writes"). */
static void
test_written (void)
{
  /* write curve at 8 KiB, 3/4 of the way in log2 from 1 to 16 KiB:
   * 1e-9 + 0.75 * 4e-9 = 4e-9, excess 3e-9; unit's excess 2e-9 (above):
   * t = N (LFOR + MFDL) + N (16 * 2e-9 + 8 * 3e-9) */
  assert_close (price (MEM, LOOP ("bytes=\"16\" written=\"8\" working_set=\"W\""), 1),
                3e-6 + 1000 * (16 * 2e-9 + 8 * 3e-9));
  /* a store stream alone (bytes 0), written from parameters (S = 3: 24 bytes) */
  assert_close (price (MEM, LOOP ("bytes=\"0\" written=\"8 * S\" working_set=\"W\" "
                                  "pattern=\"unit\""), 1), 3e-6 + 1000 * 24 * 3e-9);
  /* in L1: cpu-clc's price exactly */
  assert_close (price (MEM, LOOP ("bytes=\"16\" written=\"8\" working_set=\"100\""), 1), 3e-6);
  /* 2 processes at 16 KiB: unit excess 7e-9, write excess 9e-9 */
  assert_close (price (MEM, LOOP ("bytes=\"16\" written=\"8\" working_set=\"16384\""), 2),
                3e-6 + 1000 * (16 * 7e-9 + 8 * 9e-9));
  /* a 2-process profile without a write curve: the 1-process one's, 4e-9 at
   * 16 KiB; its unit curve its own, 7e-9 */
  const char *two = SYSTEM (
    "<cpu_mem>"
    "<profile processes=\"1\" access=\"8\" bandwidth_unit=\"B/s\" latency_unit=\"ns\">"
    "<pattern name=\"unit\"><point bytes=\"1024\" bandwidth=\"1000000000\" latency=\"1\"/>"
    "<point bytes=\"16384\" bandwidth=\"250000000\" latency=\"1\"/></pattern>"
    "<pattern name=\"write\"><point bytes=\"1024\" bandwidth=\"1000000000\"/>"
    "<point bytes=\"16384\" bandwidth=\"200000000\"/></pattern></profile>"
    "<profile processes=\"2\" access=\"8\" bandwidth_unit=\"B/s\" latency_unit=\"ns\">"
    "<pattern name=\"unit\"><point bytes=\"1024\" bandwidth=\"1000000000\" latency=\"1\"/>"
    "<point bytes=\"16384\" bandwidth=\"125000000\" latency=\"1\"/></pattern></profile>"
    "</cpu_mem>");
  assert_close (price (two, LOOP ("bytes=\"16\" written=\"8\" working_set=\"16384\""), 2),
                3e-6 + 1000 * (16 * 7e-9 + 8 * 4e-9));
}

/* ---- reuse-distance histograms ---------------------------------------------- */

/* 100 references: 50 at distance [0, 8), 20 at [8, 32), 20 at [32, 256), 10
 * cold; lines of 64 bytes: L1 holds 16 lines, L2 128.  Missing L1: 10 + 20 *
 * (32 - 16) / (32 - 8) + 20; missing L2: 10 + 20 * (256 - 128) / (256 - 32).
 * Random pattern: one access a line; L2 hits at s(4 KiB), memory at the
 * curve's end. */
#define HIST "<bin distance=\"8\" count=\"50\"/><bin distance=\"32\" count=\"20\"/>" \
             "<bin distance=\"256\" count=\"20\"/><cold count=\"10\"/>"

static double
hist_expected (double per_line_accesses, double l2_excess, double mem_excess)
{
  double miss1 = 10 + 20.0 * 16 / 24 + 20, miss2 = 10 + 20.0 * 128 / 224;
  return 8 * per_line_accesses * ((miss1 - miss2) * l2_excess + miss2 * mem_excess);
}

static void
test_reuse (void)
{
  /* random: s(4 KiB) = 1e-9 + (1e-7 - 1e-9) / 2 */
  double l2 = (1e-7 - 1e-9) / 2, mem = 1e-7 - 1e-9;
  const char *rud = "<rud device=\"cpu\"><compute type=\"clc\" of=\"AFDL\" pattern=\"random\">"
                    "<reuse line=\"64\" references=\"100\" scale=\"S\">" HIST "</reuse>"
                    "</compute></rud>";
  assert_close (price (MEM, rud, 1), 1e-9 + 3 * hist_expected (1, l2, mem));
  /* unit: a miss brings 64 / 8 accesses; s(4 KiB) = 2e-9 */
  const char *unit = "<rud device=\"cpu\"><loop iter=\"N\" type=\"clc\" of=\"LFOR\">"
                     "<reuse line=\"64\" references=\"100\">" HIST "</reuse>"
                     "<compute type=\"clc\" of=\"AFDL\"/></loop></rud>";
  assert_close (price (MEM, unit, 1), 1000 * 2e-9 + 1000 * hist_expected (8, 1e-9, 3e-9));

  /* the same histogram from a file, relative to the RUD */
  g_autofree char *path = g_build_filename (tmpdir, "hist.xml", NULL);
  g_assert_true (g_file_set_contents (path, "<reuse line=\"64\" references=\"100\">\n" HIST
                                      "\n</reuse>\n", -1, NULL));
  /* the file is valid for schemas/reuse.xsd */
  g_autofree char *xsd = g_build_filename (g_getenv ("PTI_SCHEMA_DIR"), "reuse.xsd", NULL);
  GError *error = NULL;
  xmlSchema *schema = pti_xml_schema_from_file (xsd, &error);
  g_assert_no_error (error);
  g_autoptr (xmlDoc) hist = pti_xml_read_file (path, &error);
  g_assert_no_error (error);
  g_assert_true (pti_xml_validate_doc (schema, hist, "reuse.xsd", &error));
  g_assert_no_error (error);
  const char *from_file = "<rud device=\"cpu\"><compute type=\"clc\" of=\"AFDL\" "
                          "pattern=\"random\"><reuse file=\"hist.xml\" scale=\"S\"/>"
                          "</compute></rud>";
  assert_close (price (MEM, from_file, 1), 1e-9 + 3 * hist_expected (1, l2, mem));
}

/* The profile read from a file pticalibrate writes gives the same prices. */
static void
test_profile_file (void)
{
  g_autofree char *path = g_build_filename (tmpdir, "memory.xml", NULL);
  g_assert_true (g_file_set_contents (path, "<?xml version=\"1.0\"?>\n<cpu_mem>\n" PROFILES
                                      "</cpu_mem>\n", -1, NULL));
  assert_close (price (SYSTEM ("<cpu_mem profile=\"memory.xml\">" CACHES "</cpu_mem>\n"),
                       LOOP ("bytes=\"16\" working_set=\"W\""), 1),
                3e-6 + 1000 * 16 * 2e-9);
}

/* ---- errors ------------------------------------------------------------------ */

static void
expect (const char *system, const char *rud, const char *where, const char *what)
{
  g_autofree char *msg = failure (system, rud);
  g_assert_nonnull (msg);
  if (strstr (msg, where) == NULL || strstr (msg, what) == NULL)
    g_error ("error \"%s\" lacks \"%s\" or \"%s\"", msg, where, what);
}

/* A RUD whose <reuse> names bad-hist.xml, holding @contents: fails with
 * @where and @what in its message. */
static void
expect_hist_file (const char *contents, const char *where, const char *what)
{
  g_autofree char *path = g_build_filename (tmpdir, "bad-hist.xml", NULL);
  g_assert_true (g_file_set_contents (path, contents, -1, NULL));
  expect (MEM, "<rud device=\"cpu\"><compute type=\"clc\" of=\"AFDL\">"
          "<reuse file=\"bad-hist.xml\"/></compute></rud>", where, what);
}

static void
test_errors (void)
{
  const char *plain = LOOP ("bytes=\"8\" working_set=\"100\"");
  expect (SYSTEM ("<cpu_mem>\n<profile processes=\"1\" access=\"8\" bandwidth_unit=\"B/s\" "
                  "latency_unit=\"ns\">\n<pattern name=\"unit\">\n<point bytes=\"4096\" "
                  "bandwidth=\"1\" latency=\"1\"/>\n<point bytes=\"1024\" bandwidth=\"1\" "
                  "latency=\"1\"/></pattern></profile></cpu_mem>"),
          plain, "system.xml:7: <point>", "increasing working set");
  expect (SYSTEM ("<cpu_mem>" "<profile processes=\"2\" access=\"8\" bandwidth_unit=\"B/s\" "
                  "latency_unit=\"ns\"><pattern name=\"unit\"><point bytes=\"1\" bandwidth=\"1\" "
                  "latency=\"1\"/></pattern></profile></cpu_mem>"),
          plain, "system.xml:", "processes=\"1\") is missing");
  expect (SYSTEM ("<cpu_mem>" PROFILES "<profile processes=\"1\" access=\"8\" bandwidth_unit=\"B/s\" "
                  "latency_unit=\"ns\"><pattern name=\"unit\"><point bytes=\"1\" bandwidth=\"1\" "
                  "latency=\"1\"/></pattern></profile></cpu_mem>"),
          plain, "<profile>", "given twice");
  expect (SYSTEM ("<cpu_mem><profile processes=\"1\" access=\"8\" bandwidth_unit=\"GB/h\" "
                  "latency_unit=\"ns\"/></cpu_mem>"), plain, "<profile>", "not a known unit");
  expect (SYSTEM ("<cpu_mem profile=\"missing.xml\"/>"), plain, "<cpu_mem>", "missing.xml");
  expect ("<computer name=\"c\"><cpu_mem>" PROFILES "</cpu_mem></computer>", plain, "<cpu_mem>",
          "add one beside");
  expect (MEM, LOOP ("bytes=\"8\""), "rud.xml:1: <loop>", "bytes needs working_set");
  expect (MEM, LOOP ("working_set=\"8\""), "rud.xml:1: <loop>", "without bytes");
  expect (MEM, LOOP ("bytes=\"8\" working_set=\"8\" pattern=\"strided\""), "<loop>", "needs stride");
  expect (MEM, LOOP ("bytes=\"8\" working_set=\"8\" pattern=\"zigzag\""), "<loop>", "'zigzag'");
  expect (MEM, LOOP ("bytes=\"8\" working_set=\"8\" pattern=\"runs\""), "<loop>", "needs run");
  expect (MEM, LOOP ("bytes=\"8\" working_set=\"8\" run=\"64\""), "<loop>",
          "run is only for pattern=\"runs\"");
  expect (MEM, LOOP ("bytes=\"8\" working_set=\"8\" pattern=\"runs\" run=\"64\" stride=\"8\""),
          "<loop>", "stride and run both given");
  expect (MEM, LOOP ("working_set=\"8\" pattern=\"runs\" run=\"64\""), "<loop>",
          "without bytes");
  expect (MEM, LOOP ("bytes=\"8\" working_set=\"8\" pattern=\"runs\" run=\"W\""),
          "rud.xml:1: <loop>", "run \"W\" is -1");
  expect (SYSTEM ("<cpu_mem><profile processes=\"1\" access=\"8\" bandwidth_unit=\"B/s\" "
                  "latency_unit=\"ns\"><pattern name=\"unit\"><point bytes=\"1024\" "
                  "bandwidth=\"1\" latency=\"1\"/></pattern></profile></cpu_mem>"),
          LOOP ("bytes=\"8\" working_set=\"8\" pattern=\"runs\" run=\"64\""), "<loop>",
          "no profile of this <cpu_mem> measures pattern runs");
  expect (SYSTEM ("<cpu_mem><profile processes=\"1\" access=\"8\" bandwidth_unit=\"B/s\" "
                  "latency_unit=\"ns\"><pattern name=\"runs\"><point bytes=\"1024\" "
                  "bandwidth=\"1\" latency=\"1\"/></pattern></profile></cpu_mem>"),
          plain, "<pattern>", "missing required attribute run");
  expect (SYSTEM ("<cpu_mem><profile processes=\"1\" access=\"8\" bandwidth_unit=\"B/s\" "
                  "latency_unit=\"ns\"><pattern name=\"unit\" streams=\"4\"><point "
                  "bytes=\"1024\" bandwidth=\"1\" latency=\"1\"/></pattern></profile></cpu_mem>"),
          plain, "<pattern>", "streams is only for pattern runs");
  expect (SYSTEM ("<cpu_mem><profile processes=\"1\" access=\"8\" bandwidth_unit=\"B/s\" "
                  "latency_unit=\"ns\"><pattern name=\"runs\" run=\"64\" streams=\"many\">"
                  "<point bytes=\"1024\" bandwidth=\"1\" latency=\"1\"/></pattern></profile>"
                  "</cpu_mem>"),
          plain, "<pattern>", "streams must be a whole number");
  /* written: the stores of a unit-stride bytes signature, priced at a write curve */
  expect (MEM, LOOP ("written=\"8\""), "rud.xml:1: <loop>", "written without bytes");
  expect (MEM, LOOP ("bytes=\"8\" written=\"8\" working_set=\"8\" pattern=\"runs\" run=\"64\""),
          "rud.xml:1: <loop>", "written is priced as a unit-stride store stream");
  expect (MEM, LOOP ("bytes=\"8\" written=\"8\" working_set=\"8\" pattern=\"write\""),
          "<loop>", "'write' is not unit, strided, random, runs or transpose");
  /* transpose: a run in the RUD and in the profile, no latency */
  expect (MEM, LOOP ("bytes=\"8\" working_set=\"8\" pattern=\"transpose\""), "<loop>",
          "pattern transpose needs run");
  expect (MEM, LOOP ("bytes=\"8\" working_set=\"8\" pattern=\"transpose\" stride=\"64\""),
          "<loop>", "pattern transpose needs run");
  expect (MEM, LOOP ("bytes=\"8\" working_set=\"8\" pattern=\"transpose\" run=\"W\""),
          "rud.xml:1: <loop>", "run \"W\" is -1");
  expect (MEM, LOOP ("bytes=\"8\" written=\"8\" working_set=\"8\" pattern=\"transpose\" "
                     "run=\"64\""), "rud.xml:1: <loop>",
          "written is priced as a unit-stride store stream");
  expect (SYSTEM ("<cpu_mem><profile processes=\"1\" access=\"8\" bandwidth_unit=\"B/s\" "
                  "latency_unit=\"ns\"><pattern name=\"runs\" run=\"64\"><point bytes=\"1024\" "
                  "bandwidth=\"1\" latency=\"1\"/></pattern></profile></cpu_mem>"),
          LOOP ("bytes=\"8\" working_set=\"8\" pattern=\"transpose\" run=\"64\""), "<loop>",
          "no profile of this <cpu_mem> measures pattern transpose");
  expect (SYSTEM ("<cpu_mem><profile processes=\"1\" access=\"8\" bandwidth_unit=\"B/s\" "
                  "latency_unit=\"ns\"><pattern name=\"transpose\"><point bytes=\"1024\" "
                  "bandwidth=\"1\"/></pattern></profile></cpu_mem>"),
          plain, "<pattern>", "missing required attribute run");
  expect (SYSTEM ("<cpu_mem><profile processes=\"1\" access=\"8\" bandwidth_unit=\"B/s\" "
                  "latency_unit=\"ns\"><pattern name=\"transpose\" run=\"512\"><point "
                  "bytes=\"1024\" bandwidth=\"1\" latency=\"1\"/></pattern></profile></cpu_mem>"),
          plain, "<point>", "a transpose pattern's points have no latency");
  expect (SYSTEM ("<cpu_mem><profile processes=\"1\" access=\"8\" bandwidth_unit=\"B/s\" "
                  "latency_unit=\"ns\"><pattern name=\"transpose\" run=\"512\" "
                  "streams=\"4\"><point bytes=\"1024\" bandwidth=\"1\"/></pattern></profile>"
                  "</cpu_mem>"),
          plain, "<pattern>", "streams is only for pattern runs");
  expect (SYSTEM ("<cpu_mem><profile processes=\"1\" access=\"8\" bandwidth_unit=\"B/s\" "
                  "latency_unit=\"ns\"><pattern name=\"transpose\" run=\"0\"><point "
                  "bytes=\"1024\" bandwidth=\"1\"/></pattern></profile></cpu_mem>"),
          plain, "<pattern>", "run must be a positive number");
  expect (MEM, "<rud device=\"cpu\"><compute type=\"clc\" of=\"AFDL\" written=\"8\">"
          "<reuse line=\"64\" references=\"1\"><cold count=\"1\"/></reuse></compute></rud>",
          "rud.xml:1: <compute>", "written is for bytes");
  expect (MEM, LOOP ("bytes=\"8\" written=\"W\" working_set=\"100\""), "rud.xml:1: <loop>",
          "written \"W\" is -1");
  expect (SYSTEM ("<cpu_mem><profile processes=\"1\" access=\"8\" bandwidth_unit=\"B/s\" "
                  "latency_unit=\"ns\"><pattern name=\"unit\"><point bytes=\"1024\" "
                  "bandwidth=\"1\" latency=\"1\"/></pattern></profile></cpu_mem>"),
          LOOP ("bytes=\"8\" written=\"8\" working_set=\"8\""), "rud.xml:1: <loop>",
          "which no profile of this <cpu_mem> measures");
  expect (SYSTEM ("<cpu_mem>\n<profile processes=\"1\" access=\"8\" bandwidth_unit=\"B/s\" "
                  "latency_unit=\"ns\">\n<pattern name=\"write\">\n<point bytes=\"1024\" "
                  "bandwidth=\"1\" latency=\"1\"/></pattern></profile></cpu_mem>"),
          plain, "system.xml:6: <point>", "have no latency");
  expect (SYSTEM ("<cpu_mem>\n<profile processes=\"1\" access=\"8\" bandwidth_unit=\"B/s\" "
                  "latency_unit=\"ns\">\n<pattern name=\"unit\">\n<point bytes=\"1024\" "
                  "bandwidth=\"1\"/></pattern></profile></cpu_mem>"),
          plain, "system.xml:6: <point>", "missing required attribute latency");
  /* a value from parameters out of range, named at pricing */
  expect (MEM, LOOP ("bytes=\"8\" working_set=\"W\""), "rud.xml:1: <loop>", "working_set \"W\" is -1");
  expect (MEM, "<rud device=\"cpu\"><compute type=\"clc\" of=\"AFDL\">\n<reuse line=\"64\" "
          "references=\"5\"><bin distance=\"8\" count=\"1\"/>\n<bin distance=\"4\" count=\"1\"/>"
          "</reuse></compute></rud>", "rud.xml:3: <bin>", "increasing distance");
  expect (MEM, "<rud device=\"cpu\"><compute type=\"clc\" of=\"AFDL\">\n<reuse line=\"64\" "
          "references=\"5\"><bin distance=\"8\" count=\"1\"/><cold count=\"1\"/></reuse>"
          "</compute></rud>", "rud.xml:2: <reuse>", "count 2");
  expect (SYSTEM ("<cpu_mem>" PROFILES "</cpu_mem>"),
          "<rud device=\"cpu\"><compute type=\"clc\" of=\"AFDL\"><reuse line=\"64\" "
          "references=\"1\"><cold count=\"1\"/></reuse></compute></rud>", "<compute>",
          "no <cache> levels");
  expect_hist_file ("<reuse line=\"64\" references=\"1\">\n<bin distance=\"-2\" count=\"1\"/>"
                    "</reuse>\n", "bad-hist.xml:2: <bin>", "not a non-negative number");
  /* what only the RUD's <reuse> says has no place in the file (the reader
   * ptireuse's documents go through says the same) */
  expect_hist_file ("<reuse line=\"64\" references=\"1\" scale=\"2\">\n<cold count=\"1\"/>"
                    "</reuse>\n", "bad-hist.xml:1: <reuse>",
                    "scale= belongs in a RUD's <reuse>, not in a histogram file");
  /* the included file is read by pti's one safe reader: a DOCTYPE is
   * refused before its entities are declared, naming its line */
  expect_hist_file ("<?xml version=\"1.0\"?>\n<!DOCTYPE reuse [\n<!ENTITY n \"1\">]>\n"
                    "<reuse line=\"64\" references=\"&n;\"><cold count=\"1\"/></reuse>\n",
                    "bad-hist.xml:2: a DOCTYPE declaration is not allowed here", "");
  /* malformed: the first mistake, where it is (not the last libxml2 saw) */
  expect_hist_file ("<reuse line=\"64\" references=\"1\">\n<cold count=\"1\"></reuse>\n",
                    "bad-hist.xml:2: malformed XML: ", "mismatch");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  tmpdir = g_dir_make_tmp ("test-cpu-mem-XXXXXX", NULL);
  g_assert_nonnull (tmpdir);
  g_test_add_func ("/cpu-mem/unit", test_unit);
  g_test_add_func ("/cpu-mem/strided-random", test_strided_random);
  g_test_add_func ("/cpu-mem/runs", test_runs);
  g_test_add_func ("/cpu-mem/transpose", test_transpose);
  g_test_add_func ("/cpu-mem/written", test_written);
  g_test_add_func ("/cpu-mem/reuse", test_reuse);
  g_test_add_func ("/cpu-mem/profile-file", test_profile_file);
  g_test_add_func ("/cpu-mem/errors", test_errors);
  int rc = g_test_run ();
  const char *names[] = { "system.xml", "rud.xml", "hist.xml", "memory.xml", "bad-hist.xml" };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++) {
    g_autofree char *p = g_build_filename (tmpdir, names[i], NULL);
    g_unlink (p);
  }
  g_rmdir (tmpdir);
  g_free (tmpdir);
  return rc;
}
