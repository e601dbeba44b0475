/* Tests of the cpu-clc model: closed-form costs worked out by hand, errors
 * that name their cause and line, the configuration schema, and a small
 * benchmark of the hot path.
 *
 * Benchmark: `test-cpu-clc -m perf -p /cpu-clc/bench` (or CPU_CLC_BENCH=1)
 * runs it long enough to be meaningful; otherwise it runs briefly and its
 * figure is a TAP comment. */
#include <pti/hmi.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "builtin-models.h"
#include "xml.h"

extern const char pti_cpu_clc_xsd[];

static const PtiModelDesc *const model = &pti_model_cpu_clc;

/* ---- helpers ------------------------------------------------------------ */

#define assert_close(a, b)                                                       \
  G_STMT_START {                                                                 \
    double a_ = (a), b_ = (b);                                                   \
    if (!(fabs (a_ - b_) <= 1e-12 * MAX (fabs (a_), fabs (b_))))                  \
      g_error ("%s = %.17g, expected %s = %.17g", #a, a_, #b, b_);               \
  } G_STMT_END

static xmlDoc *
parse (const char *xml, const char *url)
{
  /* pti's one safe reader (hmi/xml.h), as the engine reads configurations */
  g_autoptr (GError) error = NULL;
  xmlDoc *doc = pti_xml_read_memory (xml, -1, url, &error);
  g_assert_no_error (error);
  return doc;
}

/* A configured instance, as the engine makes one. */
static gpointer
instance_new (const char *config_xml, GError **error)
{
  xmlDoc *doc = parse (config_xml, "config.xml");
  gpointer inst = g_malloc0 (model->instance_size);
  gboolean ok = model->configure (inst, xmlDocGetRootElement (doc), error);
  xmlFreeDoc (doc);
  if (!ok) {
    if (model->finalize)
      model->finalize (inst);
    g_free (inst);
    return NULL;
  }
  return inst;
}

static void
instance_free (gpointer inst)
{
  if (inst == NULL)
    return;
  if (model->finalize)
    model->finalize (inst);
  g_free (inst);
}

/* Compiles a RUD; the document is freed before the result is used, as the
 * engine may do (a RUD node is borrowed for the call only). */
static gpointer
compile (const char *rud_xml, PtiSymbols *symbols, GError **error)
{
  xmlDoc *doc = parse (rud_xml, "rud.xml");
  gpointer c = pti_cpu_rud_compile (model->cpu, xmlDocGetRootElement (doc), symbols, error);
  xmlFreeDoc (doc);
  return c;
}

static gpointer
compile_ok (const char *rud_xml, PtiSymbols *symbols)
{
  g_autoptr (GError) error = NULL;
  gpointer c = compile (rud_xml, symbols, &error);
  g_assert_no_error (error);
  g_assert_nonnull (c);
  return c;
}

static double
cost_ok (gconstpointer inst, gconstpointer compiled, const PtiSymbols *symbols)
{
  g_autoptr (GError) error = NULL;
  double s = -1;
  gboolean ok = model->cpu->cost (inst, compiled, symbols, &s, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
  return s;
}

static void
bind (PtiSymbols *symbols, const char *name, double value)
{
  pti_symbols_set (symbols, pti_symbols_intern (symbols, name), value);
}

/* Asserts that compiling @rud_xml fails with a message containing every
 * string of the NULL-terminated list. */
static void
assert_compile_error (const char *rud_xml, ...)
{
  g_autoptr (PtiSymbols) symbols = pti_symbols_new ();
  g_autoptr (GError) error = NULL;
  gpointer c = compile (rud_xml, symbols, &error);
  g_assert_null (c);
  g_assert_error (error, PTI_ERROR, PTI_ERROR_INVALID);
  va_list ap;
  va_start (ap, rud_xml);
  for (const char *s = va_arg (ap, const char *); s != NULL; s = va_arg (ap, const char *))
    if (strstr (error->message, s) == NULL)
      g_error ("error '%s' does not contain '%s'", error->message, s);
  va_end (ap);
  g_test_message ("expected error: %s", error->message);
}

static void
assert_message (const GError *error, const char *const *parts)
{
  g_assert_nonnull (error);
  for (; *parts; parts++)
    if (strstr (error->message, *parts) == NULL)
      g_error ("error '%s' does not contain '%s'", error->message, *parts);
  g_test_message ("expected error: %s", error->message);
}

/* ---- descriptor --------------------------------------------------------- */

static void
test_descriptor (void)
{
  g_assert_cmpuint (model->abi_version, ==, PTI_HMI_ABI_VERSION);
  g_assert_cmpuint (model->struct_size, ==, sizeof (PtiModelDesc));
  g_assert_cmpstr (model->name, ==, "cpu-clc");
  g_assert_cmpstr (model->kind, ==, "cpu");
  g_assert_cmpstr (model->config_element, ==, "cpu_clc");
  g_assert_true (model->config_schema == pti_cpu_clc_xsd);
  g_assert_nonnull (model->summary);
  g_assert_nonnull (strstr (model->description, "exprob"));
  g_assert_nonnull (model->cpu);
  g_assert_null (model->net);
  g_assert_cmpuint (model->cpu->version, ==, PTI_CPU_OPS_VERSION);
  g_assert_true (PTI_CPU_OPS_FOLDS (model->cpu));
  g_assert_nonnull (model->cpu->rud_free);
  g_assert_nonnull (model->cpu->cost);
  g_assert_cmpuint (model->instance_size, >, 0);

  guint n = 0;
  for (const PtiModelParam *p = model->params; p->name; p++, n++)
    g_assert_nonnull (p->description);
  g_assert_cmpuint (n, ==, 79); /* @unit, @overlap, @window, @latency, speed_ratio, flop_rate + 73 codes */
  g_assert_nonnull (model->cpu->time_cost);
  g_assert_nonnull (model->cpu->flops_cost);
}

/* ---- closed forms -------------------------------------------------------- */

static void
test_single_compute (void)
{
  g_autoptr (PtiSymbols) symbols = pti_symbols_new ();
  gpointer inst = instance_new ("<cpu_clc unit='us'><MFDL>0.0167</MFDL><AFDL>0.01</AFDL>"
                                "</cpu_clc>", NULL);
  gpointer c = compile_ok ("<rud device='cpu'><compute type='clc' of='2*MFDL,AFDL'/></rud>",
                           symbols);
  /* 2 * 0.0167 us + 0.01 us = 0.0434 us */
  assert_close (cost_ok (inst, c, symbols), 0.0434e-6);
  model->cpu->rud_free (c);

  /* the same code twice adds up; type may be omitted; device "CPU" (the paper's spelling) */
  c = compile_ok ("<rud device='CPU'><compute of='MFDL, MFDL,AFDL'/><compute of='AFDL'/></rud>",
                  symbols);
  assert_close (cost_ok (inst, c, symbols), (2 * 0.0167 + 2 * 0.01) * 1e-6);
  model->cpu->rud_free (c);

  /* an empty RUD costs nothing */
  c = compile_ok ("<rud device='cpu'/>", symbols);
  g_assert_cmpfloat (cost_ok (inst, c, symbols), ==, 0.0);
  model->cpu->rud_free (c);
  instance_free (inst);
}

/* The ADI example of the paper (seed 001, section 3.3), verbatim but for the
 * two <compute> elements the paper leaves unclosed, with its backslash line
 * continuation inside of="". */
static const char adi_rud[] =
  "<!-- RUD for CPU model -->\n"
  "<rud device=\"CPU\">\n"
  "<loop iter=\"MY_SIZE\" type=\"clc\"\n"
  "   of=\"LFOR,CMLL,INLL\">\n"
  "   <compute type=\"clc\" of=\"2*CMLL,ANDL\"/>\n"
  "   <case type=\"clc\" of=\"IFBR\">\n"
  "   <branch exprob=\"0.9\">\n"
  "     <compute type=\"clc\" of=\"ARF1,\\\n"
  "        3*ARF2,DFSL,2*TFSL,MFSL,AFSL\"/>\n"
  "   </branch>\n"
  "   </case>\n"
  "</loop>\n"
  "</rud>\n";

static const char adi_config[] =
  "<cpu_clc unit=\"us\">\n"
  "  <LFOR>0.05</LFOR> <CMLL>0.01</CMLL> <INLL>0.02</INLL> <ANDL>0.015</ANDL>\n"
  "  <IFBR>0.03</IFBR> <ARF1>0.04</ARF1> <ARF2>0.06</ARF2> <DFSL>0.2</DFSL>\n"
  "  <TFSL>0.005</TFSL> <MFSL>0.07</MFSL> <AFSL>0.025</AFSL>\n"
  "</cpu_clc>\n";

static void
test_adi_example (void)
{
  g_autoptr (PtiSymbols) symbols = pti_symbols_new ();
  g_autoptr (GError) error = NULL;
  gpointer inst = instance_new (adi_config, &error);
  g_assert_no_error (error);
  gpointer c = compile_ok (adi_rud, symbols);

  /* By hand, in us:
   *   loop header  H = LFOR + CMLL + INLL              = 0.05 + 0.01 + 0.02         = 0.08
   *   compute        = 2*CMLL + ANDL                   = 0.02 + 0.015               = 0.035
   *   branch body  B = ARF1 + 3*ARF2 + DFSL + 2*TFSL + MFSL + AFSL
   *                  = 0.04 + 0.18 + 0.2 + 0.01 + 0.07 + 0.025                     = 0.525
   *   case           = IFBR + 0.9 * B                  = 0.03 + 0.4725              = 0.5025
   *   per iteration  = 0.08 + 0.035 + 0.5025                                        = 0.6175
   *   MY_SIZE = 100: 61.75 us;  MY_SIZE = 250: 154.375 us. */
  bind (symbols, "MY_SIZE", 100);
  assert_close (cost_ok (inst, c, symbols), 61.75e-6);
  /* rebinding a parameter changes the cost without recompiling */
  bind (symbols, "MY_SIZE", 250);
  assert_close (cost_ok (inst, c, symbols), 154.375e-6);
  bind (symbols, "MY_SIZE", 0);
  g_assert_cmpfloat (cost_ok (inst, c, symbols), ==, 0.0);

  model->cpu->rud_free (c);
  instance_free (inst);
}

static const char nested_config[] =
  "<cpu_clc unit='ns'><LFOR>5</LFOR><CMLL>1</CMLL><INLL>2</INLL><MFDL>3</MFDL>"
  "<AFDL>4</AFDL></cpu_clc>";

static void
test_nested_loops (void)
{
  g_autoptr (PtiSymbols) symbols = pti_symbols_new ();
  gpointer inst = instance_new (nested_config, NULL);
  gpointer dyn = compile_ok (
    "<rud device='cpu'>\n"
    "  <loop iter='N' type='clc' of='LFOR,CMLL,INLL'>\n"
    "    <loop iter='M' type='clc' of='LFOR,CMLL'>\n"
    "      <compute type='clc' of='MFDL,2*AFDL'/>\n"
    "    </loop>\n"
    "  </loop>\n"
    "</rud>", symbols);
  gpointer folded = compile_ok (
    "<rud device='cpu'>\n"
    "  <loop iter='7' type='clc' of='LFOR,CMLL,INLL'>\n"
    "    <loop iter='13' type='clc' of='LFOR,CMLL'>\n"
    "      <compute type='clc' of='MFDL,2*AFDL'/>\n"
    "    </loop>\n"
    "  </loop>\n"
    "</rud>", symbols);
  gpointer mixed = compile_ok (
    "<rud device='cpu'>\n"
    "  <loop iter='7' of='LFOR,CMLL,INLL'>\n"
    "    <loop iter='M' of='LFOR,CMLL'><compute of='MFDL,2*AFDL'/></loop>\n"
    "  </loop>\n"
    "</rud>", symbols);

  /* N*(H + M*(H2 + body)), ns: H = 5+1+2 = 8, H2 = 5+1 = 6, body = 3 + 2*4 = 11.
   * N=7, M=13: 7 * (8 + 13 * 17) = 7 * 229 = 1603 ns. */
  bind (symbols, "N", 7);
  bind (symbols, "M", 13);
  assert_close (cost_ok (inst, dyn, symbols), 1603e-9);
  assert_close (cost_ok (inst, folded, symbols), 1603e-9);
  assert_close (cost_ok (inst, mixed, symbols), 1603e-9);
  /* N=2, M=1000: 2 * (8 + 1000 * 17) = 34016 ns; mixed (N fixed at 7): 7 * 17008 */
  bind (symbols, "N", 2);
  bind (symbols, "M", 1000);
  assert_close (cost_ok (inst, dyn, symbols), 34016e-9);
  assert_close (cost_ok (inst, mixed, symbols), 7 * 17008e-9);
  /* a fractional trip count is a mean: N=2.5, M=0.5 -> 2.5 * (8 + 8.5) = 41.25 ns */
  bind (symbols, "N", 2.5);
  bind (symbols, "M", 0.5);
  assert_close (cost_ok (inst, dyn, symbols), 41.25e-9);

  model->cpu->rud_free (dyn);
  model->cpu->rud_free (folded);
  model->cpu->rud_free (mixed);
  instance_free (inst);
}

static void
test_case_branches (void)
{
  g_autoptr (PtiSymbols) symbols = pti_symbols_new ();
  gpointer inst = instance_new ("<cpu_clc unit='ns'><IFBR>2</IFBR><MFDL>3</MFDL>"
                                "<DFDL>40</DFDL><CMDL>1</CMDL></cpu_clc>", NULL);
  gpointer c = compile_ok (
    "<rud device='cpu'>\n"
    "  <compute of='CMDL'/>\n"
    "  <case type='clc' of='IFBR'>\n"
    "    <branch exprob='0.25'><compute of='3*MFDL'/></branch>\n"
    "    <branch exprob='P'><compute of='DFDL'/><compute of='MFDL'/></branch>\n"
    "  </case>\n"
    "</rud>", symbols);
  /* CMDL + IFBR + 0.25 * 3*MFDL + P * (DFDL + MFDL)
   * P = 0.75: 1 + 2 + 2.25 + 0.75 * 43 = 37.5 ns;  P = 0: 5.25 ns; P = 0.5: 26.75 ns */
  bind (symbols, "P", 0.75);
  assert_close (cost_ok (inst, c, symbols), 37.5e-9);
  bind (symbols, "P", 0);
  assert_close (cost_ok (inst, c, symbols), 5.25e-9);
  bind (symbols, "P", 0.5);
  assert_close (cost_ok (inst, c, symbols), 26.75e-9);
  model->cpu->rud_free (c);

  /* a case inside a loop, both probabilities constant: folded completely.
   * 10 * (IFBR + 0.5*3*MFDL + 0.5*DFDL) = 10 * (2 + 4.5 + 20) = 265 ns */
  c = compile_ok ("<rud device='cpu'><loop iter='10'><case of='IFBR'>"
                  "<branch exprob='0.5'><compute of='3*MFDL'/></branch>"
                  "<branch exprob='1/2'><compute of='DFDL'/></branch>"
                  "</case></loop></rud>", symbols);
  assert_close (cost_ok (inst, c, symbols), 265e-9);
  model->cpu->rud_free (c);
  instance_free (inst);
}

static void
test_count_expressions (void)
{
  g_autoptr (PtiSymbols) symbols = pti_symbols_new ();
  gpointer inst = instance_new ("<cpu_clc unit='ns'><AFDL>1</AFDL><MFDL>10</MFDL>"
                                "<TFDL>100</TFDL><IADD>1000</IADD></cpu_clc>", NULL);
  gpointer c = compile_ok (
    "<rud device='cpu'><compute of='(N+1)*AFDL, N*N*MFDL ,\n"
    "   max(N, 2)*TFDL, max(2,3) * IADD, 2*3*AFDL'/></rud>", symbols);
  /* N=3: 4*1 + 9*10 + 3*100 + 3*1000 + 6*1 = 3400 ns */
  bind (symbols, "N", 3);
  assert_close (cost_ok (inst, c, symbols), 3400e-9);
  /* N=1: 2 + 10 + 200 + 3000 + 6 = 3218 ns */
  bind (symbols, "N", 1);
  assert_close (cost_ok (inst, c, symbols), 3218e-9);
  model->cpu->rud_free (c);

  /* a count inside a dynamic loop, and a loop whose iter is an expression:
   * idiv(N, 2) * (K*MFDL + AFDL), N=9, K=4: 4 * 41 = 164 ns */
  c = compile_ok ("<rud device='cpu'><loop iter='idiv(N, 2)' of='AFDL'>"
                  "<compute of='K*MFDL'/></loop></rud>", symbols);
  bind (symbols, "N", 9);
  bind (symbols, "K", 4);
  assert_close (cost_ok (inst, c, symbols), 164e-9);
  model->cpu->rud_free (c);
  instance_free (inst);
}

static void
test_units (void)
{
  static const char rud[] = "<rud device='cpu'><loop iter='1000' of='LFOR'>"
                            "<compute of='2*MFDL'/></loop></rud>";
  static const char *const configs[] = {
    "<cpu_clc unit='s'><LFOR>2e-9</LFOR><MFDL>0.0000000167</MFDL></cpu_clc>",
    "<cpu_clc unit='ms'><LFOR>0.000002</LFOR><MFDL>0.0000167</MFDL></cpu_clc>",
    "<cpu_clc unit='us'><LFOR>0.002</LFOR><MFDL>0.0167</MFDL></cpu_clc>",
    "<cpu_clc unit='ns'><LFOR>2</LFOR><MFDL>16.7</MFDL></cpu_clc>",
    "<cpu_clc unit='ps'><LFOR>2000</LFOR><MFDL>16700</MFDL></cpu_clc>",
  };
  g_autoptr (PtiSymbols) symbols = pti_symbols_new ();
  gpointer c = compile_ok (rud, symbols);
  /* 1000 * (2 ns + 2 * 16.7 ns) = 35400 ns */
  for (guint i = 0; i < G_N_ELEMENTS (configs); i++) {
    g_autoptr (GError) error = NULL;
    gpointer inst = instance_new (configs[i], &error);
    g_assert_no_error (error);
    assert_close (cost_ok (inst, c, symbols), 35400e-9);
    instance_free (inst);
  }
  model->cpu->rud_free (c);

  /* a unit is required and never guessed */
  static const char *const bad[][2] = {
    { "<cpu_clc><MFDL>1</MFDL></cpu_clc>", "unit attribute is required" },
    { "<cpu_clc unit='sec'><MFDL>1</MFDL></cpu_clc>", "unknown unit 'sec'" },
    { "<cpu_clc unit='us'><MFLD>1</MFLD></cpu_clc>", "unknown operation code 'MFLD'" },
    { "<cpu_clc unit='us'><MFDL>-1</MFDL></cpu_clc>", "not a non-negative number" },
    { "<cpu_clc unit='us'><MFDL>fast</MFDL></cpu_clc>", "'fast'" },
    { "<cpu_clc unit='us'><MFDL>1</MFDL>\n<MFDL>2</MFDL></cpu_clc>", "config.xml:2: <MFDL>" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    g_autoptr (GError) error = NULL;
    g_assert_null (instance_new (bad[i][0], &error));
    const char *parts[] = { bad[i][1], NULL };
    g_assert_error (error, PTI_ERROR, PTI_ERROR_INVALID);
    assert_message (error, parts);
  }
}

/* ---- errors --------------------------------------------------------------- */

/* ---- overlap="units": execution units at once, carried chains ----------- */

/* Units (models/cpu-clc/README.md): LFOR branch; CMLL, INLL integer ALU;
 * MFDL FP multiply; AFDL FP add; ARF1 load; TFDL move. */
#define OVERLAP_COSTS                                                         \
  "<LFOR>1</LFOR><CMLL>1</CMLL><INLL>1</INLL><MFDL latency='5'>2</MFDL>"      \
  "<AFDL latency='4'>3</AFDL><ARF1 latency='2'>1</ARF1><TFDL>0.5</TFDL>"
static const char overlap_config[] = "<cpu_clc unit='ns' overlap='units'>" OVERLAP_COSTS
                                     "</cpu_clc>";
static const char sum_config[] = "<cpu_clc unit='ns'>" OVERLAP_COSTS "</cpu_clc>";

static void
test_overlap (void)
{
  g_autoptr (PtiSymbols) symbols = pti_symbols_new ();
  g_autoptr (GError) error = NULL;
  gpointer units = instance_new (overlap_config, &error);
  g_assert_no_error (error);
  gpointer sum = instance_new (sum_config, &error);
  g_assert_no_error (error);
  gpointer none = instance_new ("<cpu_clc unit='ns' overlap='none'>" OVERLAP_COSTS "</cpu_clc>",
                                &error);
  g_assert_no_error (error);

  /* Per iteration: FP multiply 2*2 = 4, FP add 3*3 = 9, load 4*1 = 4, move
   * 0.5, branch 1, integer ALU 1 + 1 = 2: the busiest unit, the adder, 9 ns;
   * N = 10: 90 ns.  The paper's sum: 4 + 9 + 4 + 0.5 + 1 + 2 = 20.5 ns an
   * iteration, 205 ns. */
  gpointer thr = compile_ok ("<rud device='cpu'><loop iter='N' of='LFOR,CMLL,INLL'>"
                             "<compute of='2*MFDL,3*AFDL,4*ARF1,TFDL'/></loop></rud>", symbols);
  /* The same with a carried chain of a multiply and two adds: 5 + 2*4 = 13 ns
   * an iteration, longer than the adder's 9: 130 ns.  The sum ignores it. */
  gpointer chain = compile_ok ("<rud device='cpu'><loop iter='N' of='LFOR,CMLL,INLL' "
                               "chain='MFDL,2*AFDL'>"
                               "<compute of='2*MFDL,3*AFDL,4*ARF1,TFDL'/></loop></rud>", symbols);
  bind (symbols, "N", 10);
  assert_close (cost_ok (units, thr, symbols), 90e-9);
  assert_close (cost_ok (units, chain, symbols), 130e-9);
  assert_close (cost_ok (sum, thr, symbols), 205e-9);
  assert_close (cost_ok (sum, chain, symbols), 205e-9);
  assert_close (cost_ok (none, chain, symbols), 205e-9);

  /* Nested blocks follow each other.  Outer iteration: branch 1, ALU 2, load
   * 1: 2 ns.  Inner iteration: branch 1, ALU 2, adder 3, load 1, chain 4:
   * 4 ns.  N*(2 + M*4) = 3 * (2 + 5*4) = 66 ns.  A chain count may be an
   * expression: chain K*AFDL with K = 2 makes the inner 8 ns: 3 * 42. */
  gpointer nested = compile_ok ("<rud device='cpu'><loop iter='N' of='LFOR,CMLL,INLL'>"
                                "<compute of='ARF1'/>"
                                "<loop iter='M' of='LFOR,CMLL,INLL' chain='K*AFDL'>"
                                "<compute of='AFDL,ARF1'/></loop></loop></rud>", symbols);
  bind (symbols, "N", 3);
  bind (symbols, "M", 5);
  bind (symbols, "K", 1);
  assert_close (cost_ok (units, nested, symbols), 66e-9);
  bind (symbols, "K", 2);
  assert_close (cost_ok (units, nested, symbols), 126e-9);

  /* A loop of constant count folds into the block around it, its chain
   * scaled with its operations: the outer iteration holds branch 1 + 2*1,
   * ALU 2 + 2*2, load 1, adder 2*3, chain 2*4 = 8: the chain, 8 ns; N = 3:
   * 24 ns. */
  gpointer folded = compile_ok ("<rud device='cpu'><loop iter='N' of='LFOR,CMLL,INLL'>"
                                "<compute of='ARF1'/>"
                                "<loop iter='2' of='LFOR,CMLL,INLL' chain='AFDL'>"
                                "<compute of='AFDL'/></loop></loop></rud>", symbols);
  assert_close (cost_ok (units, folded, symbols), 24e-9);

  /* A chain's code without a latency is refused when priced (overlap only),
   * naming the code and the loop; so is a negative chain count. */
  gpointer nolat = compile_ok ("<rud device='cpu'>\n<loop iter='N' of='LFOR' chain='TFDL'>"
                               "<compute of='TFDL'/></loop></rud>", symbols);
  double s = -1;
  g_assert_false (model->cpu->cost (units, nolat, symbols, &s, &error));
  const char *no_latency[] = { "rud.xml:2: <loop>", "chain: operation TFDL", "no latency",
                               "<TFDL latency=", NULL };
  assert_message (error, no_latency);
  g_clear_error (&error);
  assert_close (cost_ok (sum, nolat, symbols), 3 * 1.5e-9);
  bind (symbols, "K", -1);
  g_assert_false (model->cpu->cost (units, nested, symbols, &s, &error));
  const char *negative[] = { "chain: count of AFDL \"K\" is -1", NULL };
  assert_message (error, negative);
  g_clear_error (&error);

  /* compile errors in a chain name it */
  assert_compile_error ("<rud device='cpu'><loop iter='3' chain='AFLD'/></rud>",
                        "<loop>", "chain: unknown operation code 'AFLD'", "AFDL", NULL);
  assert_compile_error ("<rud device='cpu'><loop iter='3' chain=' '/></rud>",
                        "chain: empty operation list", NULL);
  assert_compile_error ("<rud device='cpu'><loop iter='3' chain='-2*AFDL'/></rud>",
                        "chain: count \"-2\" of AFDL is -2", NULL);
  assert_compile_error ("<rud device='cpu'><compute of='AFDL' chain='AFDL'/></rud>",
                        "unknown attribute 'chain'", NULL);

  /* configuration errors */
  g_assert_null (instance_new ("<cpu_clc unit='ns' overlap='ports'/>", &error));
  const char *bad_overlap[] = { "unknown overlap 'ports'", "none", "units", NULL };
  assert_message (error, bad_overlap);
  g_clear_error (&error);
  g_assert_null (instance_new ("<cpu_clc unit='ns'><AFDL latency='x'>1</AFDL></cpu_clc>",
                               &error));
  const char *bad_latency[] = { "<AFDL>", "latency 'x' is not a non-negative number", NULL };
  assert_message (error, bad_latency);
  g_clear_error (&error);

  model->cpu->rud_free (thr);
  model->cpu->rud_free (chain);
  model->cpu->rud_free (nested);
  model->cpu->rud_free (folded);
  model->cpu->rud_free (nolat);
  instance_free (units);
  instance_free (sum);
  instance_free (none);
}

/* restart="yes" and the window (models/cpu-clc/README.md): a restart
 * loop's chain begins under the previous execution's by
 * k = min(M, max(0, (window - around) / ops)) iterations. */
static void
test_restart (void)
{
  g_autoptr (PtiSymbols) symbols = pti_symbols_new ();
  g_autoptr (GError) error = NULL;
  /* Outer iteration: LFOR, CMLL, INLL and ARF1, 4 operations (around); its
   * units branch 1, ALU 2, load 1: 2 ns.  Inner iteration: LFOR, CMLL, INLL,
   * AFDL, ARF1, 5 operations; branch 1, ALU 2, adder 3, load 1: 3 ns; chain
   * 4 ns.  N = 3, M = 5. */
  const char *rud = "<rud device='cpu'><loop iter='N' of='LFOR,CMLL,INLL'>"
                    "<compute of='ARF1'/>"
                    "<loop iter='M' of='LFOR,CMLL,INLL' chain='AFDL' restart='yes'>"
                    "<compute of='AFDL,ARF1'/></loop></loop></rud>";
  gpointer restart = compile_ok (rud, symbols);
  gpointer fixed = compile_ok ("<rud device='cpu'><loop iter='N' of='LFOR,CMLL,INLL'>"
                               "<compute of='ARF1'/>"
                               "<loop iter='5' of='LFOR,CMLL,INLL' chain='AFDL' restart='yes'>"
                               "<compute of='AFDL,ARF1'/></loop></loop></rud>", symbols);
  gpointer plain = compile_ok ("<rud device='cpu'><loop iter='N' of='LFOR,CMLL,INLL'>"
                               "<compute of='ARF1'/>"
                               "<loop iter='M' of='LFOR,CMLL,INLL' chain='AFDL' restart='no'>"
                               "<compute of='AFDL,ARF1'/></loop></loop></rud>", symbols);
  bind (symbols, "N", 3);
  bind (symbols, "M", 5);
  static const struct {
    const char *window;
    double ns;
  } cases[] = {
    /* no window, or one no larger than the outer iteration's 4 operations:
     * k = 0, the chain each iteration, N (2 + M 4) = 3 (2 + 20) = 66 */
    { NULL, 66 }, { "0", 66 }, { "2", 66 }, { "4", 66 },
    /* 9: k = (9 - 4) / 5 = 1, the chain 4 (1 - 1/5) = 3.2 an iteration, over
     * the adder's 3: 3 (2 + 5 3.2) = 54 */
    { "9", 54 },
    /* 14: k = 2, the chain 2.4 an iteration, under the adder's 3: 3 (2 + 15)
     * = 51; so for any larger window, k at most M = 5 (1000: the chain 0) */
    { "14", 51 }, { "1000", 51 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    g_autofree char *units_cfg =
      g_strdup_printf ("<cpu_clc unit='ns' overlap='units'%s%s%s>" OVERLAP_COSTS "</cpu_clc>",
                       cases[i].window ? " window='" : "", cases[i].window ? cases[i].window : "",
                       cases[i].window ? "'" : "");
    g_autofree char *sum_cfg =
      g_strdup_printf ("<cpu_clc unit='ns'%s%s%s>" OVERLAP_COSTS "</cpu_clc>",
                       cases[i].window ? " window='" : "", cases[i].window ? cases[i].window : "",
                       cases[i].window ? "'" : "");
    gpointer units = instance_new (units_cfg, &error);
    g_assert_no_error (error);
    gpointer sum = instance_new (sum_cfg, &error);
    g_assert_no_error (error);
    assert_close (cost_ok (units, restart, symbols), cases[i].ns * 1e-9);
    assert_close (cost_ok (units, fixed, symbols), cases[i].ns * 1e-9);
    /* restart="no", the default: the chain every iteration */
    assert_close (cost_ok (units, plain, symbols), 66e-9);
    /* the sum ignores chains and the window: 3 (4 + 5 (1 + 1 + 1 + 3 + 1)) = 117 */
    assert_close (cost_ok (sum, restart, symbols), 117e-9);
    assert_close (cost_ok (sum, fixed, symbols), 117e-9);
    instance_free (units);
    instance_free (sum);
  }
  /* The overlap is per execution: M = 1 with window 1000, k = 1, no chain
   * left: 3 (2 + 3) = 15; M = 0: the outer iterations alone, 6. */
  gpointer units = instance_new ("<cpu_clc unit='ns' overlap='units' window='1000'>"
                                 OVERLAP_COSTS "</cpu_clc>", &error);
  g_assert_no_error (error);
  bind (symbols, "M", 1);
  assert_close (cost_ok (units, restart, symbols), 15e-9);
  bind (symbols, "M", 0);
  assert_close (cost_ok (units, restart, symbols), 6e-9);
  /* a negative trip count is still refused, naming it */
  bind (symbols, "M", -1);
  double s = -1;
  g_assert_false (model->cpu->cost (units, restart, symbols, &s, &error));
  const char *negative[] = { "iter \"M\" is -1", NULL };
  assert_message (error, negative);
  g_clear_error (&error);
  instance_free (units);

  /* errors: the value; a restart without a chain; a restart loop that is
   * not the only loop of an enclosing loop; the window */
  assert_compile_error ("<rud device='cpu'><loop iter='3'><loop iter='N' chain='AFDL' "
                        "restart='maybe'/></loop></rud>",
                        "<loop>", "restart=\"maybe\": yes or no", NULL);
  assert_compile_error ("<rud device='cpu'><loop iter='3'><loop iter='N' restart='yes'/></loop>"
                        "</rud>", "restart=\"yes\" on a loop without a chain", NULL);
  assert_compile_error ("<rud device='cpu'><loop iter='N' chain='AFDL' restart='yes'/></rud>",
                        "restart=\"yes\" needs the loop to be the only", NULL);
  assert_compile_error ("<rud device='cpu'><loop iter='3'><loop iter='N' chain='AFDL' "
                        "restart='yes'/><loop iter='N'/></loop></rud>",
                        "restart=\"yes\" needs the loop to be the only", NULL);
  assert_compile_error ("<rud device='cpu'><loop iter='3'><case><branch exprob='0.5'>"
                        "<loop iter='N' chain='AFDL' restart='yes'/></branch></case></loop>"
                        "</rud>", "restart=\"yes\" needs the loop to be the only", NULL);
  g_assert_null (instance_new ("<cpu_clc unit='ns' overlap='units' window='-1'/>", &error));
  const char *bad_window[] = { "window '-1' is not a non-negative number", NULL };
  assert_message (error, bad_window);
  g_clear_error (&error);

  model->cpu->rud_free (restart);
  model->cpu->rud_free (fixed);
  model->cpu->rud_free (plain);
}

static void
test_compile_errors (void)
{
  /* unknown code: named, with its line and the nearest known codes */
  assert_compile_error ("<rud device='cpu'>\n<loop iter='3' of='LFOR'>\n"
                        "  <compute of='2*MFLD, AFDL'/>\n</loop></rud>",
                        "rud.xml:3: <compute>", "unknown operation code 'MFLD'",
                        "nearest: MFDL", NULL);
  assert_compile_error ("<rud device='cpu'><compute of='ARF5'/></rud>",
                        "'ARF5'", "nearest: ARF1", NULL);
  assert_compile_error ("<rud device='cpu'><compute of='mfdl'/></rud>",
                        "'mfdl'", "nearest: MFDL", NULL);
  assert_compile_error ("<rud device='cpu'><compute of='XYZZYQ'/></rud>",
                        "'XYZZYQ'", "no known code is close", NULL);
  /* type must be clc */
  assert_compile_error ("<rud device='cpu'>\n<compute type='foo' of='MFDL'/></rud>",
                        "rud.xml:2:", "type 'foo'", NULL);
  assert_compile_error ("<rud device='cpu'><loop iter='2' type='pace' of='LFOR'/></rud>",
                        "type 'pace'", NULL);
  /* constant values out of range are compile errors */
  assert_compile_error ("<rud device='cpu'>\n\n<loop iter='-1' of='LFOR'/></rud>",
                        "rud.xml:3: <loop>", "negative", NULL);
  assert_compile_error ("<rud device='cpu'><case of='IFBR'>\n"
                        "<branch exprob='1.5'><compute of='MFDL'/></branch></case></rud>",
                        "rud.xml:2: <branch>", "exprob=\"1.5\" is 1.5", "[0, 1]", NULL);
  assert_compile_error ("<rud device='cpu'><case of='IFBR'>"
                        "<branch exprob='0.6'><compute of='MFDL'/></branch>"
                        "<branch exprob='0.6'><compute of='AFDL'/></branch></case></rud>",
                        "add up to 1.2", NULL);
  assert_compile_error ("<rud device='cpu'><compute of='-2*MFDL'/></rud>",
                        "count \"-2\" of MFDL is -2", "negative", NULL);
  /* operation lists */
  assert_compile_error ("<rud device='cpu'><compute of='MFDL,,AFDL'/></rud>",
                        "item 2", "is empty", NULL);
  assert_compile_error ("<rud device='cpu'><compute of='MFDL,'/></rud>", "item 2", "empty", NULL);
  assert_compile_error ("<rud device='cpu'><compute of='  '/></rud>",
                        "empty operation list", NULL);
  assert_compile_error ("<rud device='cpu'><compute of='MFDL*3'/></rud>",
                        "does not end with an operation code", NULL);
  assert_compile_error ("<rud device='cpu'><compute of='*MFDL'/></rud>", "no count", NULL);
  assert_compile_error ("<rud device='cpu'><compute of='3 MFDL'/></rud>",
                        "not CODE or COUNT*CODE", NULL);
  assert_compile_error ("<rud device='cpu'>\n<compute of='(2+*MFDL'/></rud>",
                        "rud.xml:2: <compute>", "count of MFDL", NULL);
  assert_compile_error ("<rud device='cpu'><compute of='MFDL,\\x AFDL'/></rud>",
                        "backslash", NULL);
  /* structure */
  assert_compile_error ("<rud device='cpu'>\n<loops iter='2'/></rud>",
                        "rud.xml:2: <loops>", "unknown element", NULL);
  assert_compile_error ("<rud device='cpu'><compute of='MFDL' iters='3'/></rud>",
                        "unknown attribute 'iters'", NULL);
  assert_compile_error ("<rud device='cpu'><loop of='LFOR'/></rud>",
                        "missing required attribute iter", NULL);
  assert_compile_error ("<rud device='cpu'><compute/></rud>",
                        "missing required attribute of", NULL);
  assert_compile_error ("<rud device='cpu'><case of='IFBR'><compute of='MFDL'/></case></rud>",
                        "only <branch>", NULL);
  assert_compile_error ("<rud device='cpu'><case of='IFBR'/></rud>", "at least one <branch>", NULL);
  assert_compile_error ("<rud device='cpu'><case><branch><compute of='MFDL'/></branch>"
                        "</case></rud>", "missing required attribute exprob", NULL);
  assert_compile_error ("<rud device='cpu'><compute of='MFDL'><compute of='AFDL'/>"
                        "</compute></rud>", "no child elements", NULL);
  assert_compile_error ("<rud device='cpu'>MFDL</rud>", "unexpected text", NULL);
  assert_compile_error ("<rud device='network'/>", "device 'network'", NULL);
  assert_compile_error ("<cpu device='cpu'/>", "expected a <rud", NULL);
  assert_compile_error ("<rud device='cpu'><loop iter='N +' of='LFOR'/></rud>",
                        "<loop>", "iter", NULL);
}

static void
test_cost_errors (void)
{
  g_autoptr (PtiSymbols) symbols = pti_symbols_new ();
  g_autoptr (GError) error = NULL;
  gpointer inst = instance_new (adi_config, &error);
  g_assert_no_error (error);
  gpointer c = compile_ok (adi_rud, symbols);
  double s = 42;

  /* unbound parameter: named, with the line of the loop (libxml2 gives an
   * element the line where its start tag ends, as pti_node_error says) */
  g_assert_false (model->cpu->cost (inst, c, symbols, &s, &error));
  const char *unbound[] = { "rud.xml:4: <loop>", "MY_SIZE", NULL };
  assert_message (error, unbound);
  g_assert_error (error, PTI_ERROR, PTI_ERROR_INVALID);
  g_clear_error (&error);

  /* negative loop count */
  bind (symbols, "MY_SIZE", -5);
  g_assert_false (model->cpu->cost (inst, c, symbols, &s, &error));
  const char *negative[] = { "rud.xml:4: <loop>", "iter \"MY_SIZE\" is -5", "negative", NULL };
  assert_message (error, negative);
  g_clear_error (&error);

  /* after rebinding, it works again */
  bind (symbols, "MY_SIZE", 100);
  assert_close (cost_ok (inst, c, symbols), 61.75e-6);
  model->cpu->rud_free (c);

  /* dynamic exprob outside [0, 1] and a negative dynamic count */
  c = compile_ok ("<rud device='cpu'><case of='IFBR'>\n\n"
                  "<branch exprob='P'><compute of='MFSL'/></branch></case>\n"
                  "<compute of='K*MFSL'/></rud>", symbols);
  bind (symbols, "K", 1);
  bind (symbols, "P", 1.2);
  g_assert_false (model->cpu->cost (inst, c, symbols, &s, &error));
  const char *prob[] = { "rud.xml:3: <branch>", "exprob \"P\" is 1.2", "[0, 1]", NULL };
  assert_message (error, prob);
  g_clear_error (&error);
  bind (symbols, "P", -0.1);
  g_assert_false (model->cpu->cost (inst, c, symbols, &s, &error));
  g_clear_error (&error);
  bind (symbols, "P", 1);
  bind (symbols, "K", -3);
  g_assert_false (model->cpu->cost (inst, c, symbols, &s, &error));
  const char *count[] = { "rud.xml:4: <compute>", "count of MFSL \"K\" is -3", "negative",
                          NULL };
  assert_message (error, count);
  g_clear_error (&error);
  bind (symbols, "K", 3);
  /* IFBR + 1 * MFSL + 3 * MFSL = 0.03 + 4 * 0.07 us */
  assert_close (cost_ok (inst, c, symbols), 0.31e-6);
  model->cpu->rud_free (c);

  /* a code the configuration does not price: named, at its first use,
   * even inside a loop that runs zero times */
  c = compile_ok ("<rud device='cpu'><compute of='MFSL'/>\n"
                  "<loop iter='N' of='LFOR'><compute of='2*DFDL'/></loop></rud>", symbols);
  bind (symbols, "N", 0);
  g_assert_false (model->cpu->cost (inst, c, symbols, &s, &error));
  const char *missing[] = { "rud.xml:2: <compute>", "DFDL", "no cost", NULL };
  assert_message (error, missing);
  g_clear_error (&error);
  model->cpu->rud_free (c);

  /* a non-finite total that is nobody's mistake but overflow */
  c = compile_ok ("<rud device='cpu'><loop iter='N'><loop iter='N'><compute of='MFSL'/>"
                  "</loop></loop></rud>", symbols);
  bind (symbols, "N", 1e200);
  g_assert_false (model->cpu->cost (inst, c, symbols, &s, &error));
  const char *overflow[] = { "not finite", NULL };
  assert_message (error, overflow);
  g_clear_error (&error);
  model->cpu->rud_free (c);

  g_assert_cmpfloat (s, ==, 42); /* never written on error */
  instance_free (inst);
}

/* A naive reference: walks the XML tree and evaluates every expression
 * afresh, straight from the equations (no folding).  NaN for any value out
 * of range or unbound.  Costs from the table below, in ns. */
static double
ref_value (const char *text, PtiSymbols *symbols)
{
  g_autoptr (PtiExpr) e = pti_expr_compile (text, symbols, NULL);
  g_assert_nonnull (e);
  return pti_expr_eval (e, symbols);
}

static double
ref_ops (const char *of, PtiSymbols *symbols)
{
  static const struct { const char *code; double ns; } costs[] = {
    { "MFDL", 1 }, { "AFDL", 2 }, { "IADD", 3 }, { "ARF3", 4 },
  };
  if (of == NULL)
    return 0;
  g_autofree char *s = g_strdup (of);
  for (char *p = s; *p; p++)
    if (*p == '\\')
      *p = ' ';
  double sum = 0;
  int depth = 0;
  char *item = s;
  for (char *p = s;; p++) {
    depth += *p == '(' ? 1 : *p == ')' ? -1 : 0;
    if ((*p == ',' && depth == 0) || *p == '\0') {
      gboolean last = *p == '\0';
      *p = '\0';
      char *star = strrchr (item, '*');
      char *code = g_strstrip (star ? star + 1 : item);
      double n = 1;
      if (star != NULL) {
        *star = '\0';
        n = ref_value (item, symbols);
      }
      double t = NAN;
      for (guint k = 0; k < G_N_ELEMENTS (costs); k++)
        if (strcmp (costs[k].code, code) == 0)
          t = costs[k].ns * 1e-9;
      sum += (n >= 0 ? n : NAN) * t;
      if (last)
        break;
      item = p + 1;
    }
  }
  return sum;
}

static double
ref_body (const xmlNode *parent, PtiSymbols *symbols)
{
  double sum = 0;
  for (const xmlNode *n = parent->children; n != NULL; n = n->next) {
    if (n->type != XML_ELEMENT_NODE)
      continue;
    g_autofree char *of = (char *) xmlGetProp (n, (const xmlChar *) "of");
    if (strcmp ((const char *) n->name, "compute") == 0) {
      sum += ref_ops (of, symbols);
    } else if (strcmp ((const char *) n->name, "loop") == 0) {
      g_autofree char *iter = (char *) xmlGetProp (n, (const xmlChar *) "iter");
      double N = ref_value (iter, symbols);
      sum += (N >= 0 ? N : NAN) * (ref_ops (of, symbols) + ref_body (n, symbols));
    } else {
      sum += ref_ops (of, symbols);
      for (const xmlNode *b = n->children; b != NULL; b = b->next) {
        if (b->type != XML_ELEMENT_NODE)
          continue;
        g_autofree char *exprob = (char *) xmlGetProp (b, (const xmlChar *) "exprob");
        double p = ref_value (exprob, symbols);
        sum += (p >= 0 && p <= 1 ? p : NAN) * ref_body (b, symbols);
      }
    }
  }
  return sum;
}

/* Random operation lists and nestings (fixed seed): compiling either
 * succeeds or fails with an error; pricing succeeds exactly when the
 * reference gives a finite number, and then agrees with it; nothing crashes
 * or leaks (run it under the sanitizers). */
static void
test_random_ruds (void)
{
  static const char *const tokens[] = {
    "MFDL", "AFDL", "IADD", "MFLD", "N", "2", "0.5", "*", "*", ",", ",", "(", ")", " ",
    "\\ ", "\\", "+", "-", "max(N,2)", "idiv(N,", "1e400", "0", "\n", "K", "ARF3",
  };
  static const char *const items[] = {
    "MFDL", "2*AFDL", "N*IADD", "(K+1)*ARF3", "max(N,2)*MFDL", "0.5 * AFDL", "K*K*IADD",
  };
  static const char *const opens[] = {
    "<loop iter='%s' of='%s'>", "<case of='%s'><branch exprob='%s'>", "<compute of='%s%s'/>",
  };
  g_autoptr (GRand) rand = g_rand_new_with_seed (20240601);
  gpointer inst = instance_new ("<cpu_clc unit='ns'><MFDL>1</MFDL><AFDL>2</AFDL><IADD>3</IADD>"
                                "<ARF3>4</ARF3></cpu_clc>", NULL);
  guint compiled = 0, priced = 0;

  for (guint round = 0; round < 3000; round++) {
    g_autoptr (GString) xml = g_string_new ("<rud device='cpu'>");
    g_autoptr (GPtrArray) closers = g_ptr_array_new ();
    guint n_nodes = g_rand_int_range (rand, 1, 6);
    for (guint k = 0; k < n_nodes; k++) {
      GString *ops = g_string_new (NULL);
      guint n_tokens = g_rand_int_range (rand, 1, 7);
      gboolean valid = g_rand_int_range (rand, 0, 4) > 0;
      for (guint t = 0; t < n_tokens; t++)
        if (valid)
          g_string_append_printf (ops, "%s%s", t ? (g_rand_boolean (rand) ? "," : ",\\\n ") : "",
                                  items[g_rand_int_range (rand, 0, G_N_ELEMENTS (items))]);
        else
          g_string_append (ops, tokens[g_rand_int_range (rand, 0, G_N_ELEMENTS (tokens))]);
      const char *mult = (const char *[]) { "N", "3", "0.5", "P", "-1", "2*K", "N/4", "0" }
        [g_rand_int_range (rand, 0, 8)];
      guint kind = g_rand_int_range (rand, 0, 3);
      g_autofree char *escaped = g_markup_escape_text (ops->str, -1);
      g_string_free (ops, TRUE);
      if (kind == 0)
        g_string_append_printf (xml, opens[0], mult, escaped);
      else if (kind == 1)
        g_string_append_printf (xml, opens[1], escaped, mult);
      else
        g_string_append_printf (xml, opens[2], escaped, "");
      if (kind == 0)
        g_ptr_array_add (closers, "</loop>");
      else if (kind == 1)
        g_ptr_array_add (closers, "</branch></case>");
      if (kind != 2 && g_rand_boolean (rand) && closers->len > 0) {
        g_string_append (xml, g_ptr_array_index (closers, closers->len - 1));
        g_ptr_array_remove_index (closers, closers->len - 1);
      }
    }
    while (closers->len > 0) {
      g_string_append (xml, g_ptr_array_index (closers, closers->len - 1));
      g_ptr_array_remove_index (closers, closers->len - 1);
    }
    g_string_append (xml, "</rud>");

    g_autoptr (PtiSymbols) symbols = pti_symbols_new ();
    g_autoptr (GError) error = NULL;
    gpointer c = compile (xml->str, symbols, &error);
    if (c == NULL) {
      g_assert_nonnull (error);
      continue;
    }
    g_assert_no_error (error);
    compiled++;
    xmlDoc *doc = parse (xml->str, "rud.xml");
    for (guint v = 0; v < 4; v++) {
      bind (symbols, "N", g_rand_double_range (rand, -1, 10));
      bind (symbols, "K", g_rand_double_range (rand, -1, 10));
      bind (symbols, "P", g_rand_double_range (rand, -0.2, 1.2));
      double s = NAN;
      double expected = ref_body (xmlDocGetRootElement (doc), symbols);
      if (model->cpu->cost (inst, c, symbols, &s, &error)) {
        g_assert_true (isfinite (s) && s >= 0);
        if (!(fabs (s - expected) <= 1e-12 * fabs (expected)))
          g_error ("%s: cost %.17g, reference %.17g", xml->str, s, expected);
        priced++;
      } else {
        g_assert_nonnull (error);
        if (isfinite (expected))
          g_error ("%s: %s, but the reference gives %g", xml->str, error->message, expected);
        g_clear_error (&error);
      }
    }
    xmlFreeDoc (doc);
    model->cpu->rud_free (c);
  }
  g_test_message ("%u of 3000 random RUDs compiled, %u pricings succeeded", compiled, priced);
  g_assert_cmpuint (compiled, >, 100);
  g_assert_cmpuint (priced, >, 100);
  instance_free (inst);
}

/* ---- schema --------------------------------------------------------------- */

static xmlSchema *
load_schema (void)
{
  /* compiled once per process by the reader the registry uses: not freed */
  g_autoptr (GError) error = NULL;
  xmlSchema *schema = pti_xml_schema_from_memory (pti_cpu_clc_xsd, "cpu-clc.xsd", &error);
  g_assert_no_error (error);
  return schema;
}

static gboolean
validates (xmlSchema *schema, const char *xml)
{
  xmlDoc *doc = parse (xml, "config.xml");
  xmlSchemaValidCtxt *vc = xmlSchemaNewValidCtxt (schema);
  xmlSchemaSetValidErrors (vc, NULL, NULL, NULL); /* quiet */
  int rc = xmlSchemaValidateDoc (vc, doc);
  xmlSchemaFreeValidCtxt (vc);
  xmlFreeDoc (doc);
  return rc == 0;
}

static void
quiet_errors (void *ctx, const char *msg, ...)
{
}

static void
test_schema (void)
{
  xmlSetGenericErrorFunc (NULL, quiet_errors);
  xmlSchema *schema = load_schema ();

  g_assert_true (validates (schema, adi_config));
  g_assert_true (validates (schema, "<cpu_clc unit='ns'/>"));
  g_assert_true (validates (schema, "<cpu_clc unit='us'><IADD>0.127</IADD>"
                                    "<DILG>0.043</DILG></cpu_clc>"));
  g_assert_false (validates (schema, "<cpu_clc unit='us'><MFLD>1</MFLD></cpu_clc>"));
  g_assert_false (validates (schema, "<cpu_clc><MFDL>1</MFDL></cpu_clc>"));
  g_assert_false (validates (schema, "<cpu_clc unit='sec'><MFDL>1</MFDL></cpu_clc>"));
  g_assert_false (validates (schema, "<cpu_clc unit='us'><MFDL>-1</MFDL></cpu_clc>"));
  g_assert_false (validates (schema, "<cpu_clc unit='us'><MFDL>x</MFDL></cpu_clc>"));
  g_assert_false (validates (schema, "<cpu_clc unit='us'><MFDL>1</MFDL><MFDL>1</MFDL></cpu_clc>"));
  g_assert_false (validates (schema, "<cpu_clc unit='us' speed='2'/>"));
  /* overlap and the codes' latencies */
  g_assert_true (validates (schema, "<cpu_clc unit='ns' overlap='units'>"
                                    "<AFDL latency='0.61'>0.14</AFDL></cpu_clc>"));
  g_assert_true (validates (schema, "<cpu_clc unit='ns' overlap='none'/>"));
  g_assert_false (validates (schema, "<cpu_clc unit='ns' overlap='ports'/>"));
  g_assert_false (validates (schema, "<cpu_clc unit='ns'><AFDL latency='-1'>1</AFDL></cpu_clc>"));
  /* The optional prices of computations given as a time or as flops. */
  g_assert_true (validates (schema, "<cpu_clc unit='us'><speed_ratio>0.5</speed_ratio>"
                                    "<flop_rate unit='MFlop/s'>300</flop_rate></cpu_clc>"));
  g_assert_false (validates (schema, "<cpu_clc unit='us'><flop_rate>3</flop_rate></cpu_clc>"));
  g_assert_false (validates (schema, "<cpu_clc unit='us'><flop_rate unit='GHz'>3</flop_rate>"
                                     "</cpu_clc>"));
  g_assert_false (validates (schema, "<cpu_clc unit='us'><speed_ratio>0</speed_ratio></cpu_clc>"));
  g_assert_false (validates (schema, "<cpu_clc unit='us'><speed_ratio>-1</speed_ratio></cpu_clc>"));
  {
    /* configure refuses them too, without the schema */
    g_autoptr (GError) error = NULL;
    g_assert_null (instance_new ("<cpu_clc unit='us'><flop_rate>3</flop_rate></cpu_clc>", &error));
    g_assert_nonnull (strstr (error->message, "a unit attribute is required (one of Flop/s, "
                                              "KFlop/s, MFlop/s, GFlop/s, TFlop/s)"));
    g_clear_error (&error);
    g_assert_null (instance_new ("<cpu_clc unit='us'><speed_ratio>0</speed_ratio></cpu_clc>",
                                 &error));
    g_assert_nonnull (strstr (error->message, "speed_ratio must be a positive number"));
  }

  /* Every documented code validates and configures; the schema declares
   * exactly the codes of the model's table. */
  guint n_codes = 0;
  for (const PtiModelParam *p = model->params; p->name; p++) {
    if (p->name[0] == '@')
      continue;
    gboolean rate = strcmp (p->name, "flop_rate") == 0;
    g_autofree char *xml = g_strdup_printf ("<cpu_clc unit='ns'><%s%s>1.5</%s></cpu_clc>",
                                            p->name, rate ? " unit='GFlop/s'" : "", p->name);
    g_assert_true (validates (schema, xml));
    g_autoptr (GError) error = NULL;
    gpointer inst = instance_new (xml, &error);
    g_assert_no_error (error);
    instance_free (inst);
    g_autofree char *decl = g_strdup_printf ("<xs:element name=\"%s\" ", p->name);
    g_assert_nonnull (strstr (pti_cpu_clc_xsd, decl));
    n_codes++;
  }
  guint n_decls = 0;
  for (const char *s = pti_cpu_clc_xsd; (s = strstr (s, "<xs:element name=\"")) != NULL; s++)
    n_decls++;
  g_assert_cmpuint (n_decls, ==, n_codes + 1); /* + cpu_clc itself */
  g_assert_cmpuint (n_codes, ==, 73 + 2);   /* the codes, speed_ratio, flop_rate */

  xmlSetGenericErrorFunc (NULL, NULL);
}

/* ---- benchmark ------------------------------------------------------------ */

/* A Sweep3D-like block: a loop over the I-lines of a block (JT*MK*MMI of
 * them), each with a loop over its IT cells; per cell the balance step
 * (8 mul, 9 add, 1 div, 9 stores, 16 array references: 43 operations) and a
 * fix-up test taken with probability P_FIX. */
static const char sweep_rud[] =
  "<rud device='cpu'>\n"
  "  <loop iter='JT*MK*MMI' type='clc' of='LFOR,CMLL,INLL'>\n"
  "    <compute type='clc' of='2*MFDL,3*AILL,ARF3'/>\n"
  "    <loop iter='IT' type='clc' of='LFOR,CMLL,INLL'>\n"
  "      <compute type='clc' of='8*MFDL,9*AFDL,DFDL,9*TFDL,9*ARF1,7*ARF3'/>\n"
  "      <case type='clc' of='3*CMDL,3*IFBR'>\n"
  "        <branch exprob='P_FIX'><compute type='clc' of='2*AFDL,DFDL,3*MFDL,TFDL'/></branch>\n"
  "      </case>\n"
  "    </loop>\n"
  "  </loop>\n"
  "</rud>\n";

static const char sweep_config[] =
  "<cpu_clc unit='ns'><LFOR>1</LFOR><CMLL>0.5</CMLL><INLL>0.5</INLL><AILL>0.5</AILL>"
  "<MFDL>2</MFDL><AFDL>1.5</AFDL><DFDL>20</DFDL><TFDL>0.7</TFDL><ARF1>0.3</ARF1>"
  "<ARF3>0.9</ARF3><CMDL>1.2</CMDL><IFBR>0.8</IFBR></cpu_clc>";

/* ns per cost() call, best of @rounds rounds of @n calls, varying JT so
 * that nothing could be cached between calls. */
static double
time_cost (gconstpointer inst, gconstpointer c, PtiSymbols *symbols, guint rounds, guint n)
{
  guint jt = pti_symbols_intern (symbols, "JT");
  double best = G_MAXDOUBLE, sink = 0;
  for (guint r = 0; r < rounds; r++) {
    /* the machine is shared: the minimum is the figure */
    gint64 t0 = g_get_monotonic_time ();
    for (guint i = 0; i < n; i++) {
      double s;
      pti_symbols_set (symbols, jt, 5 + (i & 7));
      model->cpu->cost (inst, c, symbols, &s, NULL);
      sink += s;
    }
    best = MIN (best, (double) (g_get_monotonic_time () - t0) * 1e3 / n);
  }
  g_assert_cmpfloat (sink, >, 0);
  pti_symbols_set (symbols, jt, 5);
  return best;
}

static void
test_bench (void)
{
  g_autoptr (PtiSymbols) symbols = pti_symbols_new ();
  g_autoptr (GError) error = NULL;
  gpointer inst = instance_new (sweep_config, &error);
  g_assert_no_error (error);
  gpointer c = compile_ok (sweep_rud, symbols);
  bind (symbols, "JT", 5);
  bind (symbols, "MK", 2);
  bind (symbols, "MMI", 3);
  bind (symbols, "IT", 5);
  bind (symbols, "P_FIX", 0.004);

  /* By hand, ns:
   *  line header LFOR+CMLL+INLL = 2;  line compute 2*2 + 3*0.5 + 0.9 = 6.4
   *  cell header 2; balance 16 + 13.5 + 20 + 6.3 + 2.7 + 6.3 = 64.8
   *  case 3*1.2 + 3*0.8 = 6, fix-up 3 + 20 + 6 + 0.7 = 29.7 with p = 0.004: 0.1188
   *  per cell 2 + 64.8 + 6 + 0.1188 = 72.9188
   *  per line 2 + 6.4 + 5 * 72.9188 = 8.4 + 364.594 = 372.994
   *  block: JT*MK*MMI = 30 lines * 372.994 = 11189.82 ns */
  assert_close (cost_ok (inst, c, symbols), 11189.82e-9);

  /* the same with a constant fix-up probability: the branch folds away */
  g_autofree char *folded_rud = g_strdup (sweep_rud);
  char *p = strstr (folded_rud, "'P_FIX'");
  memcpy (p, "'0.004'", 7);
  gpointer folded = compile_ok (folded_rud, symbols);
  assert_close (cost_ok (inst, folded, symbols), 11189.82e-9);

  gboolean long_run = g_test_perf () || g_getenv ("CPU_CLC_BENCH") != NULL;
  guint rounds = long_run ? 20 : 4, n = long_run ? 1000000 : 50000;
  double ns = time_cost (inst, c, symbols, rounds, n);
  double ns_folded = time_cost (inst, folded, symbols, rounds, n);
  g_autofree char *msg = g_strdup_printf (
    "cpu-clc cost(), Sweep3D-like block RUD: %.1f ns per call; %.1f ns with a constant "
    "fix-up probability (best of %u rounds of %u calls)", ns, ns_folded, rounds, n);
  g_test_message ("%s", msg);
  if (long_run)
    g_printerr ("%s\n", msg);
  g_test_minimized_result (ns, "%.1f ns per cost() call", ns);

  model->cpu->rud_free (c);
  model->cpu->rud_free (folded);
  instance_free (inst);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cpu-clc/descriptor", test_descriptor);
  g_test_add_func ("/cpu-clc/single-compute", test_single_compute);
  g_test_add_func ("/cpu-clc/adi-example", test_adi_example);
  g_test_add_func ("/cpu-clc/nested-loops", test_nested_loops);
  g_test_add_func ("/cpu-clc/case-branches", test_case_branches);
  g_test_add_func ("/cpu-clc/count-expressions", test_count_expressions);
  g_test_add_func ("/cpu-clc/units", test_units);
  g_test_add_func ("/cpu-clc/overlap", test_overlap);
  g_test_add_func ("/cpu-clc/restart", test_restart);
  g_test_add_func ("/cpu-clc/compile-errors", test_compile_errors);
  g_test_add_func ("/cpu-clc/cost-errors", test_cost_errors);
  g_test_add_func ("/cpu-clc/random-ruds", test_random_ruds);
  g_test_add_func ("/cpu-clc/schema", test_schema);
  g_test_add_func ("/cpu-clc/bench", test_bench);
  int rc = g_test_run ();
  xmlCleanupParser ();
  return rc;
}
