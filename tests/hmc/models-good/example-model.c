/* A third-party CPU model built as its own shared object, as a model author
 * outside pti would build it: it includes only <pti/hmi.h>, links only
 * libpti-hmi, and exports its descriptor with PTI_MODEL_DEFINE.  The HMC
 * tests load it through the model path.
 *
 * Model: every element of a CPU RUD costs <op> seconds; the RUD is compiled
 * once into that count.
 *
 * Built again in tests/hmc/models-extra as two broken variants:
 * EXAMPLE_CLASH takes another name but the same HMC element, which the
 * loader must refuse when both are on the model path; EXAMPLE_BADSCHEMA is
 * configured by an element its schema does not declare, which must be
 * refused when an HMC file uses it.  And in tests/hmc/models-hugesize as
 * EXAMPLE_HUGE, which declares an instance of 2^60 bytes: the loader must
 * refuse it (allocating it aborted in GLib). */
#include <pti/hmi.h>

#if defined(EXAMPLE_CLASH)
#define EXAMPLE_NAME "example-clash"
#define EXAMPLE_ELEMENT "example_cpu"
#elif defined(EXAMPLE_HUGE)
#define EXAMPLE_NAME "example-huge"
#define EXAMPLE_ELEMENT "example_cpu"
#elif defined(EXAMPLE_BADSCHEMA)
#define EXAMPLE_NAME "example-badschema"
#define EXAMPLE_ELEMENT "example_badschema"
#else
#define EXAMPLE_NAME "example-cpu"
#define EXAMPLE_ELEMENT "example_cpu"
#endif

typedef struct {
  double op;               /* s per RUD element */
} ExampleCpu;

static const char example_cpu_xsd[] =
  "<xs:schema xmlns:xs='http://www.w3.org/2001/XMLSchema'>\n"
  "  <xs:element name='example_cpu'>\n"
  "    <xs:complexType>\n"
  "      <xs:sequence>\n"
  "        <xs:element name='op'>\n"
  "          <xs:complexType>\n"
  "            <xs:simpleContent>\n"
  "              <xs:extension base='xs:decimal'>\n"
  "                <xs:attribute name='unit' type='xs:string' use='required'/>\n"
  "              </xs:extension>\n"
  "            </xs:simpleContent>\n"
  "          </xs:complexType>\n"
  "        </xs:element>\n"
  "      </xs:sequence>\n"
  "    </xs:complexType>\n"
  "  </xs:element>\n"
  "</xs:schema>\n";

static gboolean
example_configure (gpointer instance, const xmlNode *config, GError **error)
{
  ExampleCpu *self = instance;
  return pti_config_get_time (config, "op", &self->op, error);
}

static guint
count_elements (const xmlNode *node)
{
  guint n = node->type == XML_ELEMENT_NODE;
  for (const xmlNode *c = node->children; c != NULL; c = c->next)
    n += count_elements (c);
  return n;
}

static gpointer
example_rud_compile (const xmlNode *rud, PtiSymbols *symbols, GError **error)
{
  guint *n = g_new (guint, 1);
  *n = count_elements (rud);
  return n;
}

static gboolean
example_cost (gconstpointer instance, gconstpointer compiled, const PtiSymbols *values,
              double *seconds, GError **error)
{
  *seconds = ((const ExampleCpu *) instance)->op * *(const guint *) compiled;
  return TRUE;
}

static const PtiCpuOps example_cpu_ops = {
  .version = PTI_CPU_OPS_VERSION,
  .rud_compile = example_rud_compile,
  .rud_free = g_free,
  .cost = example_cost,
};

static const PtiModelParam example_params[] = {
  { "op", "time (unit attribute)", NULL, "cost of one RUD element" },
  { NULL },
};

static const PtiTraceRecordDesc example_records[] = {
  { "tick", "time count", "one record per priced RUD; count is its number of elements" },
  { NULL },
};

static const PtiModelDesc example_cpu = {
  .abi_version = PTI_HMI_ABI_VERSION,
  .struct_size = sizeof (PtiModelDesc),
  .name = EXAMPLE_NAME,
  .kind = "cpu",
  .config_element = EXAMPLE_ELEMENT,
  .summary = "test model: a fixed cost per RUD element",
  .description = "cost = op x (number of elements in the RUD)",
  .config_schema = example_cpu_xsd,
  .params = example_params,
  .records = example_records,
  .records_namespace = "urn:pti:test:example-cpu",
#if defined(EXAMPLE_HUGE)
  .instance_size = (gsize) 1 << 60,
#else
  .instance_size = sizeof (ExampleCpu),
#endif
  .configure = example_configure,
  .cpu = &example_cpu_ops,
};

PTI_MODEL_DEFINE (example_cpu)
