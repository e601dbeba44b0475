/* Loading HMC files: the paper's cluster, placement order, routes, the two
 * connection forms, model selection, a model from a shared object, and one
 * test per error, each checking the file, the line and the culprit. */
#include "hmc-test.h"
#include "xml.h"

#include <math.h>
#include <string.h>
#include <sys/stat.h>

static PtiRegistry *registry;   /* built-ins + the example model */

/* Minimal valid model elements. */
#define CPU "    <cpu_clc unit=\"ns\"><IADD>1</IADD></cpu_clc>\n"
#define NET "    <net_simple><latency unit=\"us\">1</latency>" \
            "<bandwidth unit=\"Gb/s\">1</bandwidth></net_simple>\n"

static PtiSystem *
load_text (const char *name, const char *text, GError **error)
{
  g_autofree char *path = hmc_write (name, text);
  return pti_system_load (path, registry, error);
}

static PtiComputerInfo
computer (const PtiSystem *s, guint i)
{
  return pti_system_computer_info (s, i);
}

static PtiNetworkInfo
network (const PtiSystem *s, guint i)
{
  return pti_system_network_info (s, i);
}

static PtiNodeInfo
node_of (const PtiSystem *s, guint processor)
{
  PtiProcessorInfo info;
  g_assert_true (pti_system_processor_info (s, processor, &info));
  return pti_system_node_info (s, info.node);
}

/* ---- the paper's cluster --------------------------------------------- */

static void
test_pc_cluster (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = hmc_source ("configs/pc_cluster.xml");
  g_autoptr (PtiSystem) sys = pti_system_load (path, registry, &error);
  g_assert_no_error (error);

  g_assert_cmpstr (pti_system_name (sys), ==, "pc_cluster");
  g_assert_cmpstr (pti_system_path (sys), ==, path);
  g_assert_cmpuint (pti_system_n_computers (sys), ==, 1);
  g_assert_cmpstr (computer (sys, 0).name, ==, "pc_node");
  g_assert_cmpuint (computer (sys, 0).count, ==, 16);
  g_assert_cmpuint (computer (sys, 0).cpus, ==, 1);
  g_assert_cmpuint (pti_system_n_nodes (sys), ==, 16);
  g_assert_cmpuint (pti_system_n_processors (sys), ==, 16);
  g_assert_cmpuint (pti_system_n_networks (sys), ==, 1);
  g_assert_cmpstr (network (sys, 0).name, ==, "myrinet");
  g_assert_cmpuint (network (sys, 0).n_ports, ==, 16);
  g_assert_cmpuint (pti_system_n_instances (sys), ==, 3);   /* cpu-clc, net-contention, net-simple */

  for (guint p = 0; p < 16; p++) {
    PtiNodeInfo n = node_of (sys, p);
    g_assert_cmpuint (n.number, ==, p + 1);
    g_assert_cmpint (n.network, ==, 0);
    g_assert_cmpuint (n.port, ==, p + 1);
    const PtiModelInstance *cpu = pti_system_cpu_model (sys, p);
    g_assert_nonnull (cpu);
    g_assert_cmpstr (cpu->desc->name, ==, "cpu-clc");
    g_assert_cmpstr (cpu->owner, ==, "computer pc_node");
  }
  g_autofree char *d = pti_system_describe_processor (sys, 2);
  g_assert_cmpstr (d, ==, "pc_node[3] cpu 0");

  guint pa = 0, pb = 0;
  const PtiModelInstance *net = pti_system_route (sys, 0, 15, &pa, &pb);
  g_assert_nonnull (net);
  g_assert_cmpstr (net->desc->name, ==, "net-contention");   /* model="net-contention" */
  g_assert_cmpstr (net->owner, ==, "network myrinet");
  g_assert_cmpuint (pa, ==, 1);
  g_assert_cmpuint (pb, ==, 16);
  g_assert_cmpuint (net->desc->net->port_count (net->state), ==, 16);

  /* net-simple is configured beside it, for --use-model myrinet=net-simple. */
  net = NULL;
  for (guint i = 0; i < pti_system_n_instances (sys); i++) {
    const PtiModelInstance *mi = pti_system_instance (sys, i);
    if (strcmp (mi->desc->name, "net-simple") == 0)
      net = mi;
  }
  g_assert_nonnull (net);

  /* The numbers README.md derives, as the models read them. */
  const PtiNetOps *ops = net->desc->net;
  g_assert_cmpfloat_with_epsilon (ops->send_overhead (net->state, 0), 4.5e-6, 1e-15);
  g_assert_cmpfloat_with_epsilon (ops->recv_overhead (net->state, 0), 4.5e-6, 1e-15);
  g_assert_cmpuint (ops->eager_limit (net->state), ==, 16384);
  PtiTransfer t;
  ops->transfer (net->state, 1, 16, 160000, 0.0, &t);   /* 160 kB at 160 MB/s: 1 ms */
  g_assert_cmpfloat_with_epsilon (t.injected, 1e-3, 1e-12);
  g_assert_cmpfloat_with_epsilon (t.arrived, 1e-3 + 1.0e-6, 1e-12);

  const PtiModelInstance *cpu = pti_system_cpu_model (sys, 0);
  g_autoptr (xmlDoc) rud = pti_xml_read_memory (
    "<rud device=\"cpu\"><compute of=\"DILG,IADD,2*MFDL,ARF3\"/></rud>", -1, "RUD", &error);
  g_assert_no_error (error);
  g_autoptr (PtiSymbols) symbols = pti_symbols_new ();
  gpointer compiled = pti_cpu_rud_compile (cpu->desc->cpu, xmlDocGetRootElement (rud), symbols, &error);
  g_assert_no_error (error);
  double seconds = 0;
  g_assert_true (cpu->desc->cpu->cost (cpu->state, compiled, symbols, &seconds, &error));
  /* reciprocal throughputs: 40 + 1 + 2 x 2 + 3 cycles of 10/3 ns */
  g_assert_cmpfloat_with_epsilon (seconds, (133.333 + 3.333 + 2 * 6.667 + 10.0) * 1e-9, 1e-15);
  cpu->desc->cpu->rud_free (compiled);
}

/* Every operation code of the cpu-clc table has a cost in pc_cluster.xml. */
static void
test_pc_cluster_codes (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = hmc_source ("configs/pc_cluster.xml");
  g_autoptr (xmlDoc) doc = pti_xml_read_file (path, &error);
  g_assert_no_error (error);
  xmlNode *clc = NULL;
  xmlNode *root = xmlDocGetRootElement (doc);
  for (xmlNode *c = pti_xml_first_element (root); c; c = pti_xml_next_element (c))
    if (strcmp ((const char *) c->name, "computer") == 0)
      clc = pti_xml_first_element (c);
  g_assert_nonnull (clc);
  g_assert_cmpstr ((const char *) clc->name, ==, "cpu_clc");

  static const char *const arith[] = { "A", "M", "D", "T" };
  static const char *const types[] = { "IS", "IL", "FS", "FD", "CH" };
  static const char *const cmp[] = { "CMS", "CML", "CMF", "CMD", "INS", "INL" };
  static const char *const other[] = { "ANDL", "ORLL", "NOTL", "IFBR", "LFOR", "FCAL",
                                       "ARF1", "ARF2", "ARF3", "ARF4", "IADD" };
  g_autoptr (GPtrArray) codes = g_ptr_array_new_with_free_func (g_free);
  for (guint s = 0; s < 2; s++) {
    const char *scope = s ? "G" : "L";
    for (guint t = 0; t < G_N_ELEMENTS (types); t++) {
      for (guint a = 0; a < G_N_ELEMENTS (arith); a++)
        g_ptr_array_add (codes, g_strconcat (arith[a], types[t], scope, NULL));
      g_ptr_array_add (codes, g_strconcat ("S", types[t], scope, NULL));
    }
    for (guint c = 0; c < G_N_ELEMENTS (cmp); c++)
      g_ptr_array_add (codes, g_strconcat (cmp[c], scope, NULL));
  }
  for (guint o = 0; o < G_N_ELEMENTS (other); o++)
    g_ptr_array_add (codes, g_strdup (other[o]));
  g_assert_cmpuint (codes->len, ==, 73);

  guint given = 0;
  for (xmlNode *c = pti_xml_first_element (clc); c; c = pti_xml_next_element (c))
    given += strcmp ((const char *) c->name, "speed_ratio") != 0;
  g_assert_cmpuint (given, ==, 73);

  /* speed_ratio: the geometric mean over the codes of the capture host's
   * cost (epyc_vm_2cpu.xml, both in ns) over this one's. */
  g_autofree char *host_path = hmc_source ("configs/epyc_vm_2cpu.xml");
  g_autoptr (xmlDoc) host_doc = pti_xml_read_file (host_path, &error);
  g_assert_no_error (error);
  xmlNode *host_clc = NULL;
  for (xmlNode *c = pti_xml_first_element (xmlDocGetRootElement (host_doc)); c;
       c = pti_xml_next_element (c))
    if (strcmp ((const char *) c->name, "computer") == 0)
      host_clc = pti_xml_first_element (c);
  g_assert_nonnull (host_clc);
  g_assert_cmpstr ((const char *) host_clc->name, ==, "cpu_clc");
  double log_sum = 0, ratio = 0;
  for (guint i = 0; i < codes->len; i++) {
    double here = 0, host = 0;
    g_assert_true (pti_config_get_double (clc, g_ptr_array_index (codes, i), &here, &error));
    g_assert_true (pti_config_get_double (host_clc, g_ptr_array_index (codes, i), &host, &error));
    log_sum += log (host / here);
  }
  g_assert_true (pti_config_get_double (clc, "speed_ratio", &ratio, &error));
  g_assert_cmpfloat_with_epsilon (exp (log_sum / codes->len), ratio, 0.5e-5);
  for (guint i = 0; i < codes->len; i++) {
    const char *code = g_ptr_array_index (codes, i);
    const xmlNode *n = pti_config_child (clc, code);
    if (n == NULL)
      g_error ("pc_cluster.xml has no cost for %s", code);
    double v = 0;
    g_assert_true (pti_config_get_double (clc, code, &v, &error));
    /* A whole number of 300 MHz cycles, written to 3 decimals. */
    double cycles = v * 0.3;
    g_assert_cmpfloat_with_epsilon (cycles, round (cycles), 1e-3);
    g_assert_cmpfloat (round (cycles), >=, 1);
  }
}

/* ---- placement and routes -------------------------------------------- */

static const char placement_hmc[] =
  "<system name=\"two\">\n"
  "  <computer name=\"fat\" count=\"2\" cpus=\"2\">\n" CPU "  </computer>\n"
  "  <computer name=\"thin\" count=\"4\">\n" CPU "  </computer>\n"
  "  <network name=\"a\">\n" NET "  </network>\n"
  "  <network name=\"b\">\n" NET "  </network>\n"
  "  <connect computer=\"thin\" nodes=\"1-3\" network=\"b\" ports=\"3,1,2\"/>\n"
  "  <connect computer=\"fat\" nodes=\"2,1\" network=\"a\" ports=\"5-6\"/>\n"
  "</system>\n";

static void
test_placement (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (PtiSystem) sys = load_text ("placement.xml", placement_hmc, &error);
  g_assert_no_error (error);

  /* Network a (document order first): fat[2] on port 5, fat[1] on port 6,
   * two cpus each; then network b: thin[2] port 1, thin[3] port 2,
   * thin[1] port 3; then the unconnected thin[4]. */
  static const char *const expect[] = {
    "fat[2] cpu 0", "fat[2] cpu 1", "fat[1] cpu 0", "fat[1] cpu 1",
    "thin[2] cpu 0", "thin[3] cpu 0", "thin[1] cpu 0", "thin[4] cpu 0",
  };
  g_assert_cmpuint (pti_system_n_processors (sys), ==, G_N_ELEMENTS (expect));
  for (guint p = 0; p < G_N_ELEMENTS (expect); p++) {
    g_autofree char *d = pti_system_describe_processor (sys, p);
    g_assert_cmpstr (d, ==, expect[p]);
  }
  g_autofree char *none = pti_system_describe_processor (sys, 8);
  g_assert_cmpstr (none, ==, "processor 8 (no such processor)");

  /* Nodes stay in document order, with the computer's first node. */
  g_assert_cmpuint (pti_system_n_nodes (sys), ==, 6);
  g_assert_cmpuint (computer (sys, 1).first_node, ==, 2);
  g_assert_cmpuint (network (sys, 0).n_ports, ==, 6);
  g_assert_cmpuint (network (sys, 1).n_ports, ==, 3);
  g_assert_cmpint (pti_system_node_info (sys, 5).network, ==, -1);

  guint pa = 0, pb = 0;
  const PtiModelInstance *net = pti_system_route (sys, 0, 3, &pa, &pb);
  g_assert_nonnull (net);
  g_assert_cmpstr (net->owner, ==, "network a");
  g_assert_cmpuint (pa, ==, 5);
  g_assert_cmpuint (pb, ==, 6);
  /* Two cpus of one node: the same port. */
  net = pti_system_route (sys, 0, 1, &pa, &pb);
  g_assert_nonnull (net);
  g_assert_cmpuint (pa, ==, 5);
  g_assert_cmpuint (pb, ==, 5);
  net = pti_system_route (sys, 6, 4, &pa, &pb);
  g_assert_cmpstr (net->owner, ==, "network b");
  g_assert_cmpuint (pa, ==, 3);
  g_assert_cmpuint (pb, ==, 1);
  /* Different networks, an unconnected node, out of range: no route. */
  g_assert_null (pti_system_route (sys, 0, 4, &pa, &pb));
  g_assert_null (pti_system_route (sys, 4, 7, &pa, &pb));
  g_assert_null (pti_system_route (sys, 7, 7, NULL, NULL));
  g_assert_null (pti_system_route (sys, 0, 8, NULL, NULL));
  g_assert_null (pti_system_cpu_model (sys, 8));
  g_assert_nonnull (pti_system_cpu_model (sys, 7));
  g_assert_true (pti_system_cpu_model (sys, 0) != pti_system_cpu_model (sys, 7));
  g_assert_true (pti_system_cpu_model (sys, 0) == computer (sys, 0).cpu);
}

/* The compact form and one paper-style <connect> per node build the same graph. */
static void
test_range_equals_per_node (void)
{
  g_autoptr (GError) error = NULL;
  static const char head[] =
    "<system name=\"c\">\n"
    "  <computer name=\"pc\" count=\"16\">\n" CPU "  </computer>\n"
    "  <network name=\"net\">\n" NET "  </network>\n";
  g_autoptr (GString) per_node = g_string_new (head);
  /* Scrambled on purpose: node 9 on port 1 ... node 8 on port 16, written
   * in port order. */
  for (guint port = 1; port <= 16; port++)
    g_string_append_printf (per_node,
                            "  <connect>\n"
                            "    <computer name=\"pc\" node=\"%u\"/>\n"
                            "    <network name=\"net\" port=\"%u\"/>\n"
                            "  </connect>\n", (port + 7) % 16 + 1, port);
  g_string_append (per_node, "</system>\n");
  g_autofree char *compact = g_strconcat (
    head, "  <connect computer=\"pc\" nodes=\"9-16,1-8\" network=\"net\" ports=\"1-16\"/>\n"
    "</system>\n", NULL);
  g_autofree char *compact2 = g_strconcat (
    head, "  <connect computer=\"pc\" nodes=\"1-8\" network=\"net\" ports=\"16-9\"/>\n"
    "</system>\n", NULL);

  g_autoptr (PtiSystem) a = load_text ("per-node.xml", per_node->str, &error);
  g_assert_no_error (error);
  g_autoptr (PtiSystem) b = load_text ("compact.xml", compact, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (pti_system_n_nodes (a), ==, pti_system_n_nodes (b));
  for (guint i = 0; i < pti_system_n_nodes (a); i++) {
    PtiNodeInfo na = pti_system_node_info (a, i), nb = pti_system_node_info (b, i);
    g_assert_cmpmem (&na, sizeof na, &nb, sizeof nb);
  }
  g_assert_cmpuint (pti_system_n_processors (a), ==, pti_system_n_processors (b));
  for (guint p = 0; p < pti_system_n_processors (a); p++) {
    PtiProcessorInfo pa, pb;
    pti_system_processor_info (a, p, &pa);
    pti_system_processor_info (b, p, &pb);
    g_assert_cmpuint (pa.node, ==, pb.node);
    g_assert_cmpuint (pa.cpu_index, ==, pb.cpu_index);
    g_assert_cmpuint (pa.network, ==, pb.network);
    g_assert_cmpuint (pa.port, ==, pb.port);
  }
  g_assert_cmpuint (network (a, 0).n_ports, ==, network (b, 0).n_ports);
  g_autofree char *first = pti_system_describe_processor (a, 0);
  g_assert_cmpstr (first, ==, "pc[9] cpu 0");

  /* "16-9" is a decreasing range: refused, with where. */
  g_autoptr (PtiSystem) c = load_text ("down.xml", compact2, &error);
  g_assert_null (c);
  g_autofree char *where = g_strdup_printf ("down.xml:%d:", hmc_line_of (compact2, "<connect"));
  hmc_assert_error (error, PTI_ERROR_INVALID, where, "ports=\"16-9\"", "goes down", NULL);
}

/* ---- models: selection, shared objects ------------------------------- */

static void
test_model_selection (void)
{
  g_autoptr (GError) error = NULL;
  static const char text[] =
    "<system name=\"m\">\n"
    "  <computer name=\"first\">\n" CPU
    "    <example_cpu><op unit=\"ns\">2</op></example_cpu>\n"
    "  </computer>\n"
    "  <computer name=\"chosen\" model=\"example-cpu\">\n" CPU
    "    <example_cpu><op unit=\"us\">3</op></example_cpu>\n"
    "  </computer>\n"
    "  <network name=\"n\" model=\"net-simple\">\n" NET "  </network>\n"
    "</system>\n";
  g_autoptr (PtiSystem) sys = load_text ("models.xml", text, &error);
  g_assert_no_error (error);
  /* Every model element is configured; the active one serves the cpu. */
  g_assert_cmpuint (pti_system_n_instances (sys), ==, 5);
  g_assert_cmpstr (computer (sys, 0).cpu->desc->name, ==, "cpu-clc");
  g_assert_cmpstr (computer (sys, 1).cpu->desc->name, ==, "example-cpu");
  g_assert_cmpstr (network (sys, 0).model->desc->name, ==, "net-simple");

  /* The example model, loaded from its shared object, prices a RUD. */
  const PtiModelInstance *ex = computer (sys, 1).cpu;
  g_autoptr (xmlDoc) rud = pti_xml_read_memory ("<rud device=\"cpu\"><a/><b/></rud>", -1,
                                                "RUD", &error);
  g_autoptr (PtiSymbols) symbols = pti_symbols_new ();
  gpointer compiled = pti_cpu_rud_compile (ex->desc->cpu, xmlDocGetRootElement (rud), symbols, &error);
  g_assert_no_error (error);
  double seconds = 0;
  g_assert_true (ex->desc->cpu->cost (ex->state, compiled, symbols, &seconds, &error));
  g_assert_cmpfloat_with_epsilon (seconds, 9e-6, 1e-15);
  ex->desc->cpu->rud_free (compiled);
}

/* ---- errors ------------------------------------------------------------ */

typedef struct {
  const char *name;        /* test path and file name */
  const char *text;
  const char *culprit;     /* the error names the line this text is on */
  const char *expect[4];   /* and contains these */
} BadCase;

static const BadCase bad_cases[] = {
  { "unknown-element",
    "<system name=\"s\">\n"
    "  <computer name=\"pc\">\n"
    "    <cpu_cls unit=\"ns\"><IADD>1</IADD></cpu_cls>\n"
    "  </computer>\n"
    "</system>\n",
    "<cpu_cls", { "<cpu_cls>: not a known model configuration element; known: ",
                  "cpu_clc (cpu-clc)", "example_cpu (example-cpu)", "net_simple (net-simple)" } },
  { "computer-without-cpu",
    "<system name=\"s\">\n"
    "  <computer name=\"pc\" count=\"2\"/>\n"
    "</system>\n",
    "<computer", { "<computer>: computer 'pc' has no CPU model; add one of: ",
                   "cpu_clc (cpu-clc)" } },
  { "network-without-model",
    "<system name=\"s\">\n"
    "  <computer name=\"pc\">\n" CPU "  </computer>\n"
    "  <network name=\"net\">\n"
    "  </network>\n"
    "</system>\n",
    "<network", { "<network>: network 'net' has no network model; add one of: ",
                  "net_simple (net-simple)" } },
  { "cpu-under-network",
    "<system name=\"s\">\n"
    "  <computer name=\"pc\">\n"
    "    <example_cpu><op unit=\"ns\">1</op></example_cpu>\n"
    "  </computer>\n"
    "  <network name=\"net\">\n" NET CPU "  </network>\n"
    "</system>\n",
    "<cpu_clc", { "<cpu_clc>: configures cpu-clc, a CPU model; a <network> takes network "
                  "models: ", "net_simple (net-simple)" } },
  { "model-attribute-unknown",
    "<system name=\"s\">\n"
    "  <computer name=\"pc\" model=\"cpu-fast\">\n" CPU "  </computer>\n"
    "</system>\n",
    "<computer", { "model=\"cpu-fast\" names model 'cpu-fast', which this <computer> does not "
                   "configure (configured here: cpu-clc)" } },
  { "model-attribute-two-of-a-kind",
    "<system name=\"s\">\n"
    "  <computer name=\"pc\" model=\"cpu-clc example-cpu\">\n" CPU
    "    <example_cpu><op unit=\"ns\">1</op></example_cpu>\n  </computer>\n"
    "</system>\n",
    "<computer", { "names two CPU models, cpu-clc and example-cpu" } },
  { "connect-unknown-computer",
    "<system name=\"s\">\n"
    "  <computer name=\"pc\">\n" CPU "  </computer>\n"
    "  <network name=\"net\">\n" NET "  </network>\n"
    "  <connect computer=\"pc_nod\" nodes=\"1\" network=\"net\" ports=\"1\"/>\n"
    "</system>\n",
    "<connect", { "<connect>: no computer named 'pc_nod'; computers: pc" } },
  { "connect-unknown-network",
    "<system name=\"s\">\n"
    "  <computer name=\"pc\">\n" CPU "  </computer>\n"
    "  <network name=\"net\">\n" NET "  </network>\n"
    "  <connect>\n"
    "    <computer name=\"pc\" node=\"1\"/>\n"
    "    <network name=\"myrinet\" port=\"1\"/>\n"
    "  </connect>\n"
    "</system>\n",
    "<network name=\"myrinet\"", { "<network>: no network named 'myrinet'; networks: net" } },
  { "node-beyond-count",
    "<system name=\"s\">\n"
    "  <computer name=\"pc\" count=\"2\">\n" CPU "  </computer>\n"
    "  <network name=\"net\">\n" NET "  </network>\n"
    "  <connect computer=\"pc\" nodes=\"1-3\" network=\"net\" ports=\"1-3\"/>\n"
    "</system>\n",
    "<connect", { "pc has 2 nodes (count=\"2\"); there is no node 3" } },
  { "node-connected-twice",
    "<system name=\"s\">\n"
    "  <computer name=\"pc\" count=\"4\">\n" CPU "  </computer>\n"
    "  <network name=\"net\">\n" NET "  </network>\n"
    "  <connect computer=\"pc\" nodes=\"1-2\" network=\"net\" ports=\"1-2\"/>\n"
    "  <connect computer=\"pc\" nodes=\"3,2\" network=\"net\" ports=\"3-4\"/>\n"
    "</system>\n",
    "nodes=\"3,2\"", { "<connect>: pc node 2 is already connected (line 8)" } },
  { "port-used-twice",
    "<system name=\"s\">\n"
    "  <computer name=\"pc\" count=\"4\">\n" CPU "  </computer>\n"
    "  <network name=\"net\">\n" NET "  </network>\n"
    "  <connect>\n"
    "    <computer name=\"pc\" node=\"1\"/>\n"
    "    <network name=\"net\" port=\"7\"/>\n"
    "  </connect>\n"
    "  <connect>\n"
    "    <computer name=\"pc\" node=\"2\"/>\n"
    "    <network name=\"net\" port=\"7\"/>\n"
    "  </connect>\n"
    "</system>\n",
    "port=\"7\"/>\n  </connect>\n</system>",
    { "port 7 of net is already taken by pc node 1 (line 8)" } },
  { "range-length-mismatch",
    "<system name=\"s\">\n"
    "  <computer name=\"pc\" count=\"16\">\n" CPU "  </computer>\n"
    "  <network name=\"net\">\n" NET "  </network>\n"
    "  <connect computer=\"pc\" nodes=\"1-16\" network=\"net\" ports=\"1-8\"/>\n"
    "</system>\n",
    "<connect", { "nodes=\"1-16\" lists 16 nodes but ports=\"1-8\" lists 8 ports" } },
  { "connect-both-forms",
    "<system name=\"s\">\n"
    "  <computer name=\"pc\">\n" CPU "  </computer>\n"
    "  <network name=\"net\">\n" NET "  </network>\n"
    "  <connect computer=\"pc\" nodes=\"1\">\n"
    "    <computer name=\"pc\" node=\"1\"/>\n"
    "    <network name=\"net\" port=\"1\"/>\n"
    "  </connect>\n"
    "</system>\n",
    "<connect", { "either the attributes", "not both" } },
  { "connect-incomplete",
    "<system name=\"s\">\n"
    "  <computer name=\"pc\">\n" CPU "  </computer>\n"
    "  <network name=\"net\">\n" NET "  </network>\n"
    "  <connect computer=\"pc\" nodes=\"1\" network=\"net\"/>\n"
    "</system>\n",
    "<connect", { "a <connect> needs computer, nodes, network and ports" } },
  /* libxml2 gives an element the line its start tag ends on. */
  { "count-not-a-number",
    "<system name=\"s\">\n"
    "  <computer name=\"pc\"\n"
    "            count=\"abc\">\n" CPU "  </computer>\n"
    "</system>\n",
    "count=", { "does not follow hmc.xsd", "count", "'abc'" } },
  { "duplicate-computer",
    "<system name=\"s\">\n"
    "  <computer name=\"pc\">\n" CPU "  </computer>\n"
    "  <computer name=\"pc\">\n" CPU "  </computer>\n"
    "</system>\n",
    "<computer name=\"pc\">\n" CPU "  </computer>\n</system>",
    { "does not follow hmc.xsd", "'pc'" } },
  { "not-a-system",
    "<computer name=\"pc\">\n" CPU "</computer>\n",
    "<computer", { "<computer>: not a system (HMC) file: its root element must be <system>" } },
  { "no-computer",
    "<system name=\"s\">\n"
    "  <network name=\"net\">\n" NET "  </network>\n"
    "</system>\n",
    "<system", { "<system>: a system needs at least one <computer>" } },
  { "too-many-processors",
    "<system name=\"s\">\n"
    "  <computer name=\"pc\" count=\"16777216\" cpus=\"2\">\n" CPU "  </computer>\n"
    "</system>\n",
    "<computer", { "more than 16777216 processors" } },
  { "model-schema-violation",
    "<system name=\"s\">\n"
    "  <computer name=\"pc\">\n"
    "    <cpu_clc unit=\"ns\">\n"
    "      <IADD>1</IADD>\n"
    "      <XADD>1</XADD>\n"
    "    </cpu_clc>\n"
    "  </computer>\n"
    "</system>\n",
    "<XADD", { "does not follow model cpu-clc", "XADD", "See --model-info cpu-clc" } },
  { "model-schema-missing-child",
    "<system name=\"s\">\n"
    "  <computer name=\"pc\">\n" CPU "  </computer>\n"
    "  <network name=\"net\">\n"
    "    <net_simple><latency unit=\"us\">1</latency></net_simple>\n"
    "  </network>\n"
    "</system>\n",
    "<net_simple", { "does not follow model net-simple", "bandwidth",
                     "See --model-info net-simple for the model's parameters" } },
  { "model-unit-refused-by-schema",
    "<system name=\"s\">\n"
    "  <computer name=\"pc\">\n"
    "    <cpu_clc unit=\"fortnights\"><IADD>1</IADD></cpu_clc>\n"
    "  </computer>\n"
    "</system>\n",
    "<cpu_clc", { "does not follow model cpu-clc", "fortnights" } },
  /* Valid for the schema (unit is any string there), refused by configure. */
  { "configure-refuses",
    "<system name=\"s\">\n"
    "  <computer name=\"pc\">\n"
    "    <example_cpu>\n"
    "      <op unit=\"fortnights\">1</op>\n"
    "    </example_cpu>\n"
    "  </computer>\n"
    "</system>\n",
    "<op", { "<op>: unknown unit 'fortnights'" } },
  { "malformed",
    "<system name=\"s\">\n"
    "  <computer name=\"pc\">\n"
    "    <cpu_clc unit=\"ns\"><IADD>1</IADD></cpu_clc>\n"
    "  </computr>\n"
    "</system>\n",
    "</computr>", { "malformed XML" } },
};

static void
test_bad_case (gconstpointer data)
{
  const BadCase *c = data;
  g_autoptr (GError) error = NULL;
  g_autofree char *file = g_strconcat (c->name, ".xml", NULL);
  g_autofree char *path = hmc_write (file, c->text);
  g_autoptr (PtiSystem) sys = pti_system_load (path, registry, &error);
  g_assert_null (sys);
  g_autofree char *where = g_strdup_printf ("%s:%d: ", path, hmc_line_of (c->text, c->culprit));
  hmc_assert_error (error, PTI_ERROR_INVALID, where, NULL);
  g_assert_true (g_str_has_prefix (error->message, where));
  for (guint i = 0; i < G_N_ELEMENTS (c->expect) && c->expect[i] != NULL; i++)
    hmc_assert_error (error, PTI_ERROR_INVALID, c->expect[i], NULL);
}

/* ---- hostile XML ------------------------------------------------------- */

/* A billion laughs, referenced from an attribute and from content: either
 * libxml2's amplification guard or xml.c's DOCTYPE rule refuses it, and
 * nothing is ever expanded into the document. */
static void
test_entity_bomb (gconstpointer data)
{
  const char *use = data;
  g_autoptr (GError) error = NULL;
  GString *t = g_string_new ("<?xml version=\"1.0\"?>\n"
                             "<!DOCTYPE system [\n  <!ENTITY l0 \"lol\">\n");
  for (int i = 1; i < 20; i++) {
    g_string_append_printf (t, "  <!ENTITY l%d \"", i);
    for (int k = 0; k < 10; k++)
      g_string_append_printf (t, "&l%d;", i - 1);
    g_string_append (t, "\">\n");
  }
  g_string_append_printf (t, "]>\n%s\n", use);
  g_autofree char *text = g_string_free (t, FALSE);
  g_autoptr (PtiSystem) sys = load_text ("bomb.xml", text, &error);
  g_assert_null (sys);
  hmc_assert_error (error, PTI_ERROR_INVALID, "bomb.xml:", NULL);
  g_assert_true (strstr (error->message, "DOCTYPE") != NULL
                 || strstr (error->message, "entity") != NULL);
  hmc_assert_error_lacks (error, "lollol");
}

static void
test_external_entity (void)
{
  g_autoptr (GError) error = NULL;
  /* If the entity were read, its text would make a valid system and appear
   * in the name; both must not happen.  The third entity is a FIFO nobody
   * writes to: merely opening it would hang the test until its timeout. */
  g_autofree char *secret = hmc_write ("secret.txt", "SECRET-CONTENTS");
  g_autofree char *fifo = hmc_scratch ("fifo");
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_autofree char *text = g_strdup_printf (
    "<?xml version=\"1.0\"?>\n"
    "<!DOCTYPE system [\n"
    "  <!ENTITY x SYSTEM \"file://%s\">\n"
    "  <!ENTITY p SYSTEM \"file:///etc/passwd\">\n"
    "  <!ENTITY f SYSTEM \"%s\">\n"
    "]>\n"
    "<system name=\"s\">&x;&p;&f;<computer name=\"pc\">" CPU "</computer></system>\n",
    secret, fifo);
  g_autoptr (PtiSystem) sys = load_text ("external.xml", text, &error);
  g_assert_null (sys);
  hmc_assert_error (error, PTI_ERROR_INVALID, "external.xml:", "DOCTYPE", NULL);
  hmc_assert_error_lacks (error, "SECRET");
  hmc_assert_error_lacks (error, "root:");
}

static void
test_missing_file (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = hmc_scratch ("does-not-exist.xml");
  g_autoptr (PtiSystem) sys = pti_system_load (path, registry, &error);
  g_assert_null (sys);
  hmc_assert_error (error, PTI_ERROR_INVALID, path, "cannot read", NULL);
}

int
main (int argc, char **argv)
{
  hmc_test_init (&argc, &argv);
  g_assert_nonnull (hmc_dirs.good);
  g_unsetenv ("PTI_MODEL_PATH");
  g_autoptr (GError) error = NULL;
  registry = pti_registry_new (hmc_dirs.good, &error);
  g_assert_no_error (error);

  g_test_add_func ("/hmc/pc-cluster", test_pc_cluster);
  g_test_add_func ("/hmc/pc-cluster-codes", test_pc_cluster_codes);
  g_test_add_func ("/hmc/placement", test_placement);
  g_test_add_func ("/hmc/range-equals-per-node", test_range_equals_per_node);
  g_test_add_func ("/hmc/model-selection", test_model_selection);
  for (guint i = 0; i < G_N_ELEMENTS (bad_cases); i++) {
    g_autofree char *test_path = g_strconcat ("/hmc/error/", bad_cases[i].name, NULL);
    g_test_add_data_func (test_path, &bad_cases[i], test_bad_case);
  }
  g_test_add_data_func ("/hmc/hostile/entity-bomb/attribute",
                        "<system name=\"&l19;\"><computer name=\"pc\">" CPU "</computer></system>",
                        test_entity_bomb);
  g_test_add_data_func ("/hmc/hostile/entity-bomb/content",
                        "<system name=\"s\">&l19;<computer name=\"pc\">" CPU "</computer></system>",
                        test_entity_bomb);
  g_test_add_func ("/hmc/hostile/external-entity", test_external_entity);
  g_test_add_func ("/hmc/missing-file", test_missing_file);

  int rc = hmc_test_run ();
  pti_registry_free (registry);
  return rc;
}
