/* Tests of the trace writer (traces/trace-writer.c) and of schemas/trace.xsd.
 *
 * The golden file tests/trace/golden/small.xml holds the exact bytes of the
 * small trace; after an intended format change, regenerate it with
 *   PTI_UPDATE_GOLDEN=1 meson test -C BUILD trace-writer
 * and review the diff.
 *
 * The streaming benchmark (1,000,000 events) runs only in perf mode:
 *   meson test -C BUILD --benchmark --suite trace
 * or  BUILD/tests/trace/test-trace-writer -m perf -p /trace-writer/perf/stream */
#include "trace-writer.h"
#include "xml.h"

#include <pti/hmi.h>

#include <errno.h>
#include <libxml/parser.h>
#include <libxml/xmlreader.h>
#include <libxml/xmlschemas.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>
#include <locale.h>
#include <math.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib/gstdio.h>

#define NS PTI_TRACE_NAMESPACE

/* ---- fixtures ----------------------------------------------------------- */

/* A fresh directory for one test, removed (with the files in it) by rm_dir. */
static char *
make_dir (void)
{
  GError *error = NULL;
  char *dir = g_dir_make_tmp ("pti-trace-XXXXXX", &error);
  g_assert_no_error (error);
  return dir;
}

static void
rm_dir (const char *dir)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  if (d != NULL) {
    const char *name;
    while ((name = g_dir_read_name (d)) != NULL) {
      g_autofree char *p = g_build_filename (dir, name, NULL);
      if (g_file_test (p, G_FILE_TEST_IS_DIR))
        rm_dir (p);
      else
        g_unlink (p);
    }
    g_dir_close (d);
  }
  g_rmdir (dir);
}

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

/* The names in @dir, sorted, space-separated ("" if empty). */
static char *
list_dir (const char *dir)
{
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  GDir *d = g_dir_open (dir, 0, NULL);
  g_assert_nonnull (d);
  const char *name;
  while ((name = g_dir_read_name (d)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_dir_close (d);
  g_ptr_array_sort (names, compare_names);
  g_ptr_array_add (names, NULL);
  return g_strjoinv (" ", (char **) names->pdata);
}

/* ---- the small trace ---------------------------------------------------- */

static const PtiTraceParam small_params[] = {
  { "N", "4" },            /* declaration order, not sorted */
  { "MSG_SIZE", "1048576" },
  { "cond", "N<8 && M>\"2\"" },
};

static const PtiTraceModel small_models[] = {
  { "cpu-clc", "computer pc_node" },
  { "net-simple", "network myrinet" },
};

static const PtiTraceRecordType small_records[] = {
  { "net-contention", "urn:pti:model:net-contention", "ba", "time msg bytes_per_s",
    "bandwidth availability of the message's bottleneck link: time (s), msg id, bytes/s" },
};

static const PtiTraceProcess small_procs[] = {
  { 0, "pc_node[0] cpu 0" },
  { 1, "pc_node[1] cpu 0" },
};

static const PtiTraceHeader small_header = {
  .system_name = "pc_cluster",
  .system_file = "configs/pc_cluster.xml",
  .workload_name = "pingpong",
  .workload_file = "workloads/pingpong.xml",
  .generator = "pti 0.1.0",
  .params = small_params, .n_params = G_N_ELEMENTS (small_params),
  .models = small_models, .n_models = G_N_ELEMENTS (small_models),
  .records = small_records, .n_records = G_N_ELEMENTS (small_records),
  .processes = small_procs, .n_processes = G_N_ELEMENTS (small_procs),
};

static PtiTraceEvent
compute (double start, double end, const char *rud)
{
  return (PtiTraceEvent) { .kind = PTI_TRACE_COMPUTE, .start = start, .end = end,
                           .device = "cpu", .model = "cpu-clc", .rud = rud };
}

/* A blocking send or receive of message @msg, which @c (the caller's)
 * completes: the data entered the network at @injected, and had left or
 * arrived at @done. */
static PtiTraceEvent
message (PtiTraceCompletion *c, PtiTraceKind kind, double start, double end, guint peer, gint tag,
         guint64 bytes, guint64 msg, gboolean rendezvous, double wait, double injected, double done)
{
  *c = (PtiTraceCompletion) { .kind = kind, .msg = msg, .peer = peer, .tag = tag, .bytes = bytes,
                              .rendezvous = rendezvous, .posted = start, .injected = injected,
                              .done = done };
  return (PtiTraceEvent) { .kind = kind, .start = start, .end = end, .device = "mpi",
                           .model = "net-simple", .wait = wait, .done = c, .n_done = 1 };
}

/* Posting a non-blocking send or receive (@any: from any rank, any tag). */
static PtiTraceEvent
posting (PtiTraceKind kind, double start, double end, guint64 request, guint peer, gint tag,
         gboolean any, guint64 bytes, guint64 msg)
{
  return (PtiTraceEvent) { .kind = kind, .start = start, .end = end, .device = "mpi",
                           .model = "net-simple", .request = request, .peer = peer,
                           .any_peer = any, .tag = tag, .any_tag = any, .bytes = bytes,
                           .msg = msg };
}

/* Rank 0 computes, sends 1 KiB eagerly (msg 0) and 1 MiB by rendezvous
 * (msg 1) to rank 1, which computes and receives both; then rank 0 isends
 * 64 B (msg 2, its request 0) and waits for it (waitall), and rank 1
 * receives them with an irecv from any rank of any tag and a wait. */
static void
write_small_events (PtiTraceWriter *w)
{
  GError *error = NULL;
  PtiTraceCompletion c[4];
  const PtiTraceCompletion isent = {
    .kind = PTI_TRACE_ISEND, .request = 0, .msg = 2, .peer = 1, .tag = 9, .bytes = 64,
    .posted = 0.009265, .injected = 0.00927, .done = 0.00927,
  };
  const PtiTraceCompletion ireceived = {
    .kind = PTI_TRACE_IRECV, .request = 0, .msg = 2, .peer = 0, .tag = 9, .bytes = 64,
    .posted = 0.00928, .injected = 0.00927, .done = 0.009275,
  };
  PtiTraceEvent waitall = { .kind = PTI_TRACE_WAITALL, .start = 0.00927, .end = 0.00927,
                            .device = "mpi", .model = "net-simple", .done = &isent, .n_done = 1 };
  PtiTraceEvent wait = { .kind = PTI_TRACE_WAIT, .start = 0.00928, .end = 0.00929, .device = "mpi",
                         .model = "net-simple", .done = &ireceived, .n_done = 1 };
  const PtiTraceEvent ev0[] = {
    compute (0.0, 0.0001, "init&setup"),
    message (&c[0], PTI_TRACE_SEND, 0.0001, 0.000105, 1, 7, 1024, 0, FALSE, 0.0, 0.000105,
             0.000105),
    message (&c[1], PTI_TRACE_SEND, 0.000105, 0.009265, 1, 8, 1048576, 1, TRUE, 0.000115,
             0.00022, 0.009265),
    posting (PTI_TRACE_ISEND, 0.009265, 0.00927, 0, 1, 9, FALSE, 64, 2),
    waitall,
  };
  const PtiTraceEvent ev1[] = {
    compute (0.0, 0.0002, "init&setup"),
    message (&c[2], PTI_TRACE_RECV, 0.0002, 0.000215, 0, 7, 1024, 0, FALSE, 0.0, 0.000105,
             0.00011),
    message (&c[3], PTI_TRACE_RECV, 0.000215, 0.00928, 0, 8, 1048576, 1, TRUE, 0.009055, 0.00022,
             0.00927),
    posting (PTI_TRACE_IRECV, 0.00928, 0.00928, 0, 0, 0, TRUE, 1024, 0),
    wait,
  };
  g_assert_true (pti_trace_writer_begin_process (w, 0, &error));
  for (guint i = 0; i < G_N_ELEMENTS (ev0); i++)
    g_assert_true (pti_trace_writer_event (w, &ev0[i], &error));
  g_assert_true (pti_trace_writer_end_process (w, &error));
  g_assert_true (pti_trace_writer_begin_process (w, 1, &error));
  for (guint i = 0; i < G_N_ELEMENTS (ev1); i++)
    g_assert_true (pti_trace_writer_event (w, &ev1[i], &error));
  g_assert_true (pti_trace_writer_end_process (w, &error));
  g_assert_no_error (error);
}

static void
write_small_summary (PtiTraceWriter *w)
{
  GError *error = NULL;
  const PtiTraceProcessSummary sum[] = {
    { 0, 0.00927, 0.0001, 0.009055, 0.000115, 5 },
    { 1, 0.00929, 0.0002, 0.000035, 0.009055, 5 },
  };
  g_assert_true (pti_trace_writer_summary (w, 0.00929, 10, sum, G_N_ELEMENTS (sum), &error));
  g_assert_no_error (error);
}

static void
write_small (const char *path)
{
  GError *error = NULL;
  g_autoptr (PtiTraceWriter) w = pti_trace_writer_open (path, &error);
  g_assert_no_error (error);
  g_assert_true (pti_trace_writer_header (w, &small_header, &error));
  write_small_events (w);
  write_small_summary (w);
  g_assert_true (pti_trace_writer_commit (w, &error));
  g_assert_no_error (error);
}

/* ---- schema validation -------------------------------------------------- */

static void
collect_error (void *data, xmlErrorPtr err)
{
  g_string_append_printf (data, "line %d: %s", err->line, err->message);
}

static xmlSchemaPtr schema;   /* (transfer none): pti_xml_schema_from_file's */

static xmlSchemaPtr
trace_schema (void)
{
  if (schema != NULL)
    return schema;
  const char *dir = g_getenv ("PTI_SCHEMA_DIR");
  g_assert_nonnull (dir);
  g_autofree char *path = g_build_filename (dir, "trace.xsd", NULL);
  g_autoptr (GError) error = NULL;
  schema = pti_xml_schema_from_file (path, &error);
  if (schema == NULL)
    g_error ("%s", error->message);
  return schema;
}

/* NULL if @doc is valid, else the messages. */
static char *
validate_doc (xmlDocPtr doc)
{
  g_assert_nonnull (doc);
  xmlSchemaValidCtxtPtr vc = xmlSchemaNewValidCtxt (trace_schema ());
  GString *errors = g_string_new (NULL);
  xmlSchemaSetValidStructuredErrors (vc, collect_error, errors);
  int rc = xmlSchemaValidateDoc (vc, doc);
  xmlSchemaFreeValidCtxt (vc);
  if (rc == 0) {
    g_string_free (errors, TRUE);
    return NULL;
  }
  return g_string_free (errors, FALSE);
}

static xmlDocPtr
read_doc (const char *path)
{
  /* pti's one safe reader (hmi/xml.h) */
  g_autoptr (GError) error = NULL;
  xmlDocPtr doc = pti_xml_read_file (path, &error);
  g_assert_no_error (error);
  return doc;
}

static void
assert_valid_file (const char *path)
{
  xmlDocPtr doc = read_doc (path);
  g_autofree char *errors = validate_doc (doc);
  xmlFreeDoc (doc);
  if (errors != NULL)
    g_error ("%s is not valid: %s", path, errors);
}

/* ---- XPath helpers ------------------------------------------------------ */

typedef struct {
  xmlDocPtr doc;
  xmlXPathContextPtr xp;
} Parsed;

static Parsed
parse (const char *path)
{
  Parsed p = { read_doc (path), NULL };
  p.xp = xmlXPathNewContext (p.doc);
  xmlXPathRegisterNs (p.xp, (const xmlChar *) "t", (const xmlChar *) NS);
  return p;
}

static void
parsed_free (Parsed *p)
{
  xmlXPathFreeContext (p->xp);
  xmlFreeDoc (p->doc);
}

static char *
xp_string (Parsed *p, const char *expr)
{
  g_autofree char *wrapped = g_strdup_printf ("string(%s)", expr);
  xmlXPathObjectPtr o = xmlXPathEvalExpression ((const xmlChar *) wrapped, p->xp);
  g_assert_nonnull (o);
  char *s = g_strdup ((const char *) o->stringval);
  xmlXPathFreeObject (o);
  return s;
}

static double
xp_number (Parsed *p, const char *expr)
{
  xmlXPathObjectPtr o = xmlXPathEvalExpression ((const xmlChar *) expr, p->xp);
  g_assert_nonnull (o);
  double v = xmlXPathCastToNumber (o);
  xmlXPathFreeObject (o);
  return v;
}

#define assert_xp_str(p, expr, expected)                                      \
  G_STMT_START {                                                              \
    g_autofree char *s_ = xp_string ((p), (expr));                            \
    g_assert_cmpstr (s_, ==, (expected));                                     \
  } G_STMT_END

static char *
prop (xmlNodePtr n, const char *name)
{
  xmlChar *v = xmlGetProp (n, (const xmlChar *) name);
  char *s = g_strdup ((const char *) v);
  xmlFree (v);
  return s;
}

/* ---- tests: content ----------------------------------------------------- */

static void
test_small_valid (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *path = g_build_filename (dir, "small.xml", NULL);
  write_small (path);
  assert_valid_file (path);

  Parsed p = parse (path);
  /* header */
  assert_xp_str (&p, "/t:trace/@version", PTI_TRACE_VERSION);
  assert_xp_str (&p, "/t:trace/t:header/t:generator", "pti 0.1.0");
  assert_xp_str (&p, "/t:trace/t:header/t:system/@name", "pc_cluster");
  assert_xp_str (&p, "/t:trace/t:header/t:system/@file", "configs/pc_cluster.xml");
  assert_xp_str (&p, "/t:trace/t:header/t:workload/@file", "workloads/pingpong.xml");
  for (guint i = 0; i < G_N_ELEMENTS (small_params); i++) {
    g_autofree char *e = g_strdup_printf ("/t:trace/t:header/t:parameters/t:param[%u]/@name", i + 1);
    g_autofree char *v = g_strdup_printf ("/t:trace/t:header/t:parameters/t:param[%u]/@value", i + 1);
    assert_xp_str (&p, e, small_params[i].name);
    assert_xp_str (&p, v, small_params[i].value);
  }
  assert_xp_str (&p, "/t:trace/t:header/t:models/t:model[2]/@owner", "network myrinet");
  assert_xp_str (&p, "/t:trace/t:header/t:records/t:record/@ns", "urn:pti:model:net-contention");
  assert_xp_str (&p, "/t:trace/t:header/t:records/t:record/@fields", "time msg bytes_per_s");
  assert_xp_str (&p, "/t:trace/t:header/t:processes/@count", "2");
  assert_xp_str (&p, "/t:trace/t:header/t:processes/t:process[2]/@processor", "pc_node[1] cpu 0");

  /* events */
  g_assert_cmpfloat (xp_number (&p, "count(//t:event)"), ==, 10);
  g_assert_cmpfloat (xp_number (&p, "count(/t:trace/t:events/t:process[@rank='0']/t:event)"), ==, 5);
  assert_xp_str (&p, "//t:process[@rank='0']/t:event[1]/@rud", "init&setup");
  assert_xp_str (&p, "//t:process[@rank='0']/t:event[1]/@end", "0.000100000");
  g_assert_cmpfloat (xp_number (&p, "count(//t:event[@kind='compute'][@msg or @peer or @wait])"), ==, 0);

  /* both ends of every message share its msg id, and agree */
  xmlXPathObjectPtr sends = xmlXPathEvalExpression (
    (const xmlChar *) "/t:trace/t:events/t:process/t:event[@kind='send']", p.xp);
  g_assert_cmpint (sends->nodesetval->nodeNr, ==, 2);
  for (int i = 0; i < sends->nodesetval->nodeNr; i++) {
    xmlNodePtr s = sends->nodesetval->nodeTab[i];
    g_autofree char *msg = prop (s, "msg");
    g_autofree char *from = prop (s->parent, "rank");
    g_autofree char *to = prop (s, "peer");
    g_autofree char *q = g_strdup_printf ("/t:trace/t:events/t:process/t:event[@kind='recv'][@msg='%s']", msg);
    xmlXPathObjectPtr recvs = xmlXPathEvalExpression ((const xmlChar *) q, p.xp);
    g_assert_cmpint (recvs->nodesetval->nodeNr, ==, 1);
    xmlNodePtr r = recvs->nodesetval->nodeTab[0];
    g_autofree char *r_rank = prop (r->parent, "rank");
    g_autofree char *r_peer = prop (r, "peer");
    g_assert_cmpstr (r_rank, ==, to);
    g_assert_cmpstr (r_peer, ==, from);
    const char *same[] = { "tag", "bytes", "protocol" };
    for (guint k = 0; k < G_N_ELEMENTS (same); k++) {
      g_autofree char *a = prop (s, same[k]);
      g_autofree char *b = prop (r, same[k]);
      g_assert_cmpstr (a, ==, b);
    }
    xmlXPathFreeObject (recvs);
  }
  xmlXPathFreeObject (sends);
  assert_xp_str (&p, "//t:event[@msg='0'][@kind='send']/@protocol", "eager");
  assert_xp_str (&p, "//t:event[@msg='1'][@kind='recv']/@protocol", "rendezvous");
  assert_xp_str (&p, "//t:event[@msg='1'][@kind='recv']/@wait", "0.009055000");
  assert_xp_str (&p, "//t:event[@msg='1'][@kind='send']/@bytes", "1048576");
  /* the times of a blocking message: data in the network, left, arrived */
  assert_xp_str (&p, "//t:event[@msg='1'][@kind='send']/@injected", "0.000220000");
  assert_xp_str (&p, "//t:event[@msg='1'][@kind='send']/@left", "0.009265000");
  assert_xp_str (&p, "//t:event[@msg='1'][@kind='recv']/@injected", "0.000220000");
  assert_xp_str (&p, "//t:event[@msg='1'][@kind='recv']/@arrived", "0.009270000");
  g_assert_cmpfloat (xp_number (&p, "count(//t:event[@kind='send'][@arrived or @posted])"), ==, 0);
  /* non-blocking: posted as asked, completed by the wait with what it got */
  assert_xp_str (&p, "//t:event[@kind='isend']/@request", "0");
  assert_xp_str (&p, "//t:event[@kind='isend']/@msg", "2");
  assert_xp_str (&p, "//t:event[@kind='irecv']/@peer", "any");
  assert_xp_str (&p, "//t:event[@kind='irecv']/@tag", "any");
  g_assert_cmpfloat (xp_number (&p, "count(//t:event[@kind='irecv'][@msg or @protocol])"), ==, 0);
  assert_xp_str (&p, "//t:event[@kind='waitall']/t:request/@left", "0.009270000");
  assert_xp_str (&p, "//t:event[@kind='wait']/t:request[@kind='irecv']/@peer", "0");
  assert_xp_str (&p, "//t:event[@kind='wait']/t:request/@tag", "9");
  assert_xp_str (&p, "//t:event[@kind='wait']/t:request/@arrived", "0.009275000");
  assert_xp_str (&p, "//t:event[@kind='wait']/t:request/@posted", "0.009280000");

  /* summary */
  assert_xp_str (&p, "/t:trace/t:summary/@predicted_time", "0.009290000");
  assert_xp_str (&p, "/t:trace/t:summary/@events", "10");
  assert_xp_str (&p, "/t:trace/t:summary/t:process[@rank='1']/@end", "0.009290000");
  assert_xp_str (&p, "/t:trace/t:summary/t:process[@rank='1']/@comm", "0.000035000");
  assert_xp_str (&p, "/t:trace/t:summary/t:process[@rank='0']/@wait", "0.000115000");
  assert_xp_str (&p, "/t:trace/t:summary/t:process[@rank='0']/@events", "5");
  parsed_free (&p);
  rm_dir (dir);
}

static void
test_small_golden (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *path = g_build_filename (dir, "small.xml", NULL);
  write_small (path);
  g_autofree char *golden = g_test_build_filename (G_TEST_DIST, "trace", "golden", "small.xml", NULL);

  g_autofree char *got = NULL, *want = NULL;
  gsize got_len = 0, want_len = 0;
  g_assert_true (g_file_get_contents (path, &got, &got_len, NULL));
  if (g_strcmp0 (g_getenv ("PTI_UPDATE_GOLDEN"), "1") == 0) {
    g_assert_true (g_file_set_contents (golden, got, (gssize) got_len, NULL));
    g_test_message ("rewrote %s", golden);
  }
  g_assert_true (g_file_get_contents (golden, &want, &want_len, NULL));
  if (got_len != want_len || memcmp (got, want, got_len) != 0) {
    g_test_message ("written trace differs from %s:\n%s", golden, got);
    g_test_fail ();
  }
  /* twice in one process gives the same bytes too */
  g_autofree char *path2 = g_build_filename (dir, "again.xml", NULL);
  write_small (path2);
  g_autofree char *again = NULL;
  gsize again_len = 0;
  g_assert_true (g_file_get_contents (path2, &again, &again_len, NULL));
  g_assert_cmpmem (again, again_len, got, got_len);
  rm_dir (dir);
}

/* No processes: the trace still has an (empty) events section and is valid. */
static void
test_empty (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *path = g_build_filename (dir, "empty.xml", NULL);
  GError *error = NULL;
  PtiTraceHeader h = { .system_name = "s", .system_file = "s.xml", .workload_name = "w" };
  PtiTraceWriter *w = pti_trace_writer_open (path, &error);
  g_assert_no_error (error);
  g_assert_true (pti_trace_writer_header (w, &h, &error));
  g_assert_true (pti_trace_writer_summary (w, 0.0, 0, NULL, 0, &error));
  g_assert_true (pti_trace_writer_commit (w, &error));
  pti_trace_writer_free (w);
  assert_valid_file (path);
  Parsed p = parse (path);
  g_assert_cmpfloat (xp_number (&p, "count(/t:trace/t:events)"), ==, 1);
  g_assert_cmpfloat (xp_number (&p, "count(/t:trace/t:header/t:workload/@file)"), ==, 0);
  /* no generator given: the writer names itself */
  g_autofree char *gen = xp_string (&p, "/t:trace/t:header/t:generator");
  g_assert_true (g_str_has_prefix (gen, "pti "));
  parsed_free (&p);
  rm_dir (dir);
}

/* An empty process group is written as <process rank="r"/>, and groups with
 * events after it still indent like the golden file. */
static void
test_empty_group (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *path = g_build_filename (dir, "groups.xml", NULL);
  GError *error = NULL;
  g_autoptr (PtiTraceWriter) w = pti_trace_writer_open (path, &error);
  g_assert_true (pti_trace_writer_header (w, &small_header, &error));
  g_assert_true (pti_trace_writer_begin_process (w, 0, &error));
  g_assert_true (pti_trace_writer_end_process (w, &error));
  g_assert_true (pti_trace_writer_begin_process (w, 1, &error));
  PtiTraceEvent e = compute (0, 1, NULL);
  g_assert_true (pti_trace_writer_event (w, &e, &error));
  g_assert_true (pti_trace_writer_end_process (w, &error));
  write_small_summary (w);
  g_assert_true (pti_trace_writer_commit (w, &error));
  g_assert_no_error (error);
  assert_valid_file (path);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "\n    <process rank=\"0\"/>\n    <process rank=\"1\">\n"
                                  "      <event kind=\"compute\" start=\"0.000000000\" end=\"1.000000000\""
                                  " device=\"cpu\" model=\"cpu-clc\"/>\n    </process>\n  </events>\n"));
  rm_dir (dir);
}

/* Collective markers and derived spans: their exact lines, valid. */
static void
test_markers (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *path = g_build_filename (dir, "markers.xml", NULL);
  GError *error = NULL;
  g_autoptr (PtiTraceWriter) w = pti_trace_writer_open (path, &error);
  g_assert_true (pti_trace_writer_header (w, &small_header, &error));
  g_assert_true (pti_trace_writer_begin_process (w, 1, &error));
  PtiTraceCollective c = { TRUE, PTI_TRACE_REDUCE, 2, 0, 800, 0.5 };
  g_assert_true (pti_trace_writer_collective (w, &c, &error));
  PtiTraceEvent e = compute (0.5, 0.75, "combine");
  g_assert_true (pti_trace_writer_event (w, &e, &error));
  c.begin = FALSE;
  c.time = 0.75;
  g_assert_true (pti_trace_writer_collective (w, &c, &error));
  PtiTraceCollective b = { TRUE, PTI_TRACE_BARRIER, 0, 7, 0, 0.75 };  /* no root written */
  g_assert_true (pti_trace_writer_collective (w, &b, &error));
  b.begin = FALSE;
  g_assert_true (pti_trace_writer_collective (w, &b, &error));
  PtiTraceDerived d = { 0.75, 2.75, 8, 24, 1.5, 0.25, 0.25 };
  g_assert_true (pti_trace_writer_derived (w, &d, &error));
  g_assert_true (pti_trace_writer_end_process (w, &error));
  g_assert_true (pti_trace_writer_summary (w, 2.75, 25, NULL, 0, &error));
  g_assert_true (pti_trace_writer_commit (w, &error));
  g_assert_no_error (error);
  assert_valid_file (path);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  const char *want =
    "\n    <process rank=\"1\">"
    "\n      <collective phase=\"begin\" call=\"reduce\" comm=\"2\" root=\"0\" bytes=\"800\""
    " time=\"0.500000000\"/>"
    "\n      <event kind=\"compute\" start=\"0.500000000\" end=\"0.750000000\" device=\"cpu\""
    " model=\"cpu-clc\" rud=\"combine\"/>"
    "\n      <collective phase=\"end\" call=\"reduce\" comm=\"2\" root=\"0\" bytes=\"800\""
    " time=\"0.750000000\"/>"
    "\n      <collective phase=\"begin\" call=\"barrier\" comm=\"0\" bytes=\"0\""
    " time=\"0.750000000\"/>"
    "\n      <collective phase=\"end\" call=\"barrier\" comm=\"0\" bytes=\"0\""
    " time=\"0.750000000\"/>"
    "\n      <derived start=\"0.750000000\" end=\"2.750000000\" repetitions=\"8\" events=\"24\""
    " compute=\"1.500000000\" comm=\"0.250000000\" wait=\"0.250000000\"/>"
    "\n    </process>\n";
  if (strstr (text, want) == NULL)
    g_error ("markers written as:\n%s", text);
  rm_dir (dir);
}

/* Times are "%.9f" of the value, whatever the value: ties, values just
 * around a tie, large and tiny values, random ones. */
static void
test_times (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *path = g_build_filename (dir, "times.xml", NULL);
  GError *error = NULL;

  g_autoptr (GArray) values = g_array_new (FALSE, FALSE, sizeof (double));
  const double fixed[] = {
    0.0, -0.0, 1e-10, 4.9e-10, 5e-10, 5.000000001e-10, 1.5e-9, 2.5e-9, 0.1, 0.2, 0.3,
    0.0009765625, /* 2^-10: t*1e9 ends in exactly .5 */
    0.0009765625 * 3, 1.0 / 3.0, 2.0 / 3.0, 0.123456789, 0.1234567895, 0.12345678949999,
    1.0, 59.999999999, 59.9999999995, 1e3, 86400.0000000005, 4e6, 4.5e6, 1e7 + 1e-9, 1e12,
    123456789.987654321, 1e14 + 0.5e-9, 999999999999999.875, 5e-324,
  };
  g_array_append_vals (values, fixed, G_N_ELEMENTS (fixed));
  /* every multiple of 2^-k below 1 ms, k = 11..13: many exact .5 ties */
  for (int k = 11; k <= 13; k++)
    for (int i = 0; i < 40; i++) {
      double v = ldexp (i, -k);
      g_array_append_val (values, v);
    }
  /* neighbours of ties */
  for (int i = 1; i < 200; i++) {
    double tie = (i + 0.5) * 1e-9;
    double a = nextafter (tie, 0), b = nextafter (tie, 1);
    g_array_append_val (values, tie);
    g_array_append_val (values, a);
    g_array_append_val (values, b);
  }
  GRand *rand = g_rand_new_with_seed (42);
  for (int i = 0; i < 20000; i++) {
    double v = g_rand_double (rand) * pow (10, g_rand_int_range (rand, -9, 8));
    g_array_append_val (values, v);
  }
  g_rand_free (rand);

  g_autoptr (PtiTraceWriter) w = pti_trace_writer_open (path, &error);
  g_assert_true (pti_trace_writer_header (w, &small_header, &error));
  g_assert_true (pti_trace_writer_begin_process (w, 0, &error));
  for (guint i = 0; i < values->len; i++) {
    double v = g_array_index (values, double, i);
    PtiTraceEvent e = compute (v, v, NULL);
    g_assert_true (pti_trace_writer_event (w, &e, &error));
  }
  g_assert_true (pti_trace_writer_end_process (w, &error));
  write_small_summary (w);
  g_assert_true (pti_trace_writer_commit (w, &error));
  g_assert_no_error (error);

  /* read back in a streaming way, as a converter would */
  xmlTextReaderPtr r = xmlReaderForFile (path, NULL, XML_PARSE_NONET);
  g_assert_nonnull (r);
  guint i = 0;
  while (xmlTextReaderRead (r) == 1) {
    if (xmlTextReaderNodeType (r) != XML_READER_TYPE_ELEMENT
        || strcmp ((const char *) xmlTextReaderConstLocalName (r), "event") != 0)
      continue;
    g_assert_cmpuint (i, <, values->len);
    double v = g_array_index (values, double, i);
    char want[400];
    g_ascii_formatd (want, sizeof want, "%.9f", v);
    if (strcmp (want, "-0.000000000") == 0)
      strcpy (want, "0.000000000");
    xmlChar *got = xmlTextReaderGetAttribute (r, (const xmlChar *) "start");
    if (g_strcmp0 ((const char *) got, want) != 0)
      g_error ("time %.17g written as %s, expected %s", v, got, want);
    xmlFree (got);
    i++;
  }
  xmlFreeTextReader (r);
  g_assert_cmpuint (i, ==, values->len);
  assert_valid_file (path);
  rm_dir (dir);
}

/* The process locale does not change the bytes. */
static void
test_locale (void)
{
  const char *locales[] = { "de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8", "nl_NL.UTF-8" };
  const char *found = NULL;
  g_autofree char *old = g_strdup (setlocale (LC_NUMERIC, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (locales) && found == NULL; i++)
    if (setlocale (LC_NUMERIC, locales[i]) != NULL)
      found = locales[i];
  if (found == NULL) {
    g_test_skip ("no locale with a decimal comma is installed");
    return;
  }
  g_autofree char *dir = make_dir ();
  g_autofree char *path = g_build_filename (dir, "small.xml", NULL);
  write_small (path);
  setlocale (LC_NUMERIC, old);
  g_autofree char *golden = g_test_build_filename (G_TEST_DIST, "trace", "golden", "small.xml", NULL);
  g_autofree char *got = NULL, *want = NULL;
  gsize got_len, want_len;
  g_assert_true (g_file_get_contents (path, &got, &got_len, NULL));
  g_assert_true (g_file_get_contents (golden, &want, &want_len, NULL));
  g_assert_cmpmem (got, got_len, want, want_len);
  rm_dir (dir);
}

/* Names that are not valid UTF-8 or hold characters XML cannot carry still
 * give a well-formed, valid trace; markup characters round-trip. */
static void
test_strings (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *path = g_build_filename (dir, "strings.xml", NULL);
  GError *error = NULL;
  PtiTraceProcess procs[] = { { 0, "n\xc3\xa9ud <0> \"a\" & 'b'\t\n" } };
  PtiTraceParam params[] = { { "bad\xff", "ctl\x01x" } };
  PtiTraceHeader h = { .system_name = "s", .system_file = "s.xml", .workload_name = "w",
                       .params = params, .n_params = 1, .processes = procs, .n_processes = 1 };
  g_autoptr (PtiTraceWriter) w = pti_trace_writer_open (path, &error);
  g_assert_true (pti_trace_writer_header (w, &h, &error));
  g_assert_true (pti_trace_writer_begin_process (w, 0, &error));
  PtiTraceEvent e = compute (0, 1, "r\xc3\xa9<&>\"\t\n\r\x02\xef\xbf\xbe\xc3");
  e.device = "cpu\xe2\x82\xac";
  g_assert_true (pti_trace_writer_event (w, &e, &error));
  g_assert_true (pti_trace_writer_end_process (w, &error));
  g_assert_true (pti_trace_writer_summary (w, 1, 1, NULL, 0, &error));
  g_assert_true (pti_trace_writer_commit (w, &error));
  g_assert_no_error (error);
  assert_valid_file (path);

  Parsed p = parse (path);
  assert_xp_str (&p, "//t:header/t:processes/t:process/@processor", "n\xc3\xa9ud <0> \"a\" & 'b'\t\n");
  assert_xp_str (&p, "//t:param/@name", "bad\xef\xbf\xbd");
  assert_xp_str (&p, "//t:param/@value", "ctl\xef\xbf\xbdx");
  assert_xp_str (&p, "//t:event/@rud",
                 "r\xc3\xa9<&>\"\t\n\r\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
  assert_xp_str (&p, "//t:event/@device", "cpu\xe2\x82\xac");
  parsed_free (&p);
  rm_dir (dir);
}

/* ---- tests: the schema on hand-written documents ------------------------ */

static const char doc_head[] =
  "<trace xmlns='urn:pti:trace:2' version='2'><header><generator>pti 0.1.0</generator>"
  "<system name='s' file='s.xml'/><workload name='w'/><parameters/><models/>"
  "<records><record model='net-contention' ns='urn:pti:model:net-contention' name='ba'"
  " fields='time msg bytes_per_s' description='d'/></records>"
  "<processes count='1'><process rank='0' processor='p'/></processes></header>";
static const char doc_tail[] =
  "<summary predicted_time='1.000000000' events='1'/></trace>";

static char *
schema_errors (const char *body)
{
  g_autofree char *xml = g_strconcat (doc_head, body, doc_tail, NULL);
  xmlDocPtr doc = pti_xml_read_memory (xml, -1, "mem.xml", NULL);
  char *errors = validate_doc (doc);
  xmlFreeDoc (doc);
  return errors;
}

#define EV_C "<event kind='compute' start='0.000000000' end='1.000000000' device='cpu' model='cpu-clc'/>"

static void
test_schema_accepts (void)
{
  const char *good[] = {
    /* chunks (partial evaluation), records in and between process groups */
    "<events><process rank='0'>" EV_C
    "<nc:ba xmlns:nc='urn:pti:model:net-contention' time='0.5' msg='3' bytes_per_s='1e8'/>"
    "</process></events>"
    "<events><nc:link xmlns:nc='urn:pti:model:net-contention' id='4'/><process rank='0'/></events>",
    /* a message with all its attributes, foreign attribute on an event */
    "<events><process rank='0'><event kind='send' start='0.000000000' end='0.000001000'"
    " device='mpi' model='net-simple' peer='1' tag='-3' bytes='18446744073709551615' msg='9'"
    " protocol='rendezvous' wait='0.000000500' injected='0.000000500' left='0.000001000'"
    " xmlns:x='urn:x' x:note='y'/></process></events>",
    /* non-blocking: posted with wildcards, completed by a waitall; a
     * collective's markers; a derived span */
    "<events><process rank='1'>"
    "<collective phase='begin' call='bcast' comm='0' root='0' bytes='8' time='0.000000000'/>"
    "<event kind='irecv' start='0.000000000' end='0.000000000' device='mpi' model='net-simple'"
    " request='4' peer='any' tag='any' bytes='8'/>"
    "<event kind='waitall' start='0.000000000' end='0.000002000' device='mpi' model='net-simple'"
    " wait='0.000001000'><request id='4' kind='irecv' msg='0' peer='0' tag='1' bytes='8'"
    " protocol='eager' posted='0.000000000' injected='0.000000100' arrived='0.000001000'/></event>"
    "<collective phase='end' call='bcast' comm='0' root='0' bytes='8' time='0.000002000'/>"
    "<derived start='0.000002000' end='0.000010000' repetitions='4' events='12'"
    " compute='0.000006000' comm='0.000001000' wait='0.000001000'/>"
    "</process></events>",
    "<events/>",
  };
  for (guint i = 0; i < G_N_ELEMENTS (good); i++) {
    g_autofree char *errors = schema_errors (good[i]);
    if (errors != NULL)
      g_error ("document %u rejected: %s", i, errors);
  }
  g_autofree char *sample = g_test_build_filename (G_TEST_DIST, "trace", "samples",
                                                   "chunks-and-records.xml", NULL);
  assert_valid_file (sample);
}

static void
test_schema_rejects (void)
{
  const char *bad[] = {
    "", /* no events section */
    "<events><process rank='0'><event kind='sleep' start='0.000000000' end='1.000000000' device='cpu' model='cpu-clc'/></process></events>",
    "<events><process rank='0'><event kind='compute' start='-1.000000000' end='1.000000000' device='cpu' model='cpu-clc'/></process></events>",
    "<events><process rank='0'><event kind='compute' start='0.5' end='1.000000000' device='cpu' model='cpu-clc'/></process></events>",
    "<events><process rank='0'><event kind='compute' start='1e-3' end='1.000000000' device='cpu' model='cpu-clc'/></process></events>",
    "<events><process rank='0'><event kind='compute' start='0.000000000' end='1.000000000' device='cpu'/></process></events>",
    "<events><process rank='0'><event kind='send' start='0.000000000' end='1.000000000' device='mpi' model='net-simple' protocol='lazy'/></process></events>",
    "<events><process rank='0'><event kind='send' start='0.000000000' end='1.000000000' device='mpi' model='net-simple' bytes='-1'/></process></events>",
    "<events><process rank='-1'/></events>",
    "<events><process rank='0'><event kind='waitall' start='0.000000000' end='1.000000000' device='mpi' model='net-simple' wait='0.000000000'><request id='1' kind='send' msg='0' peer='0' tag='1' bytes='8' protocol='eager' posted='0.000000000' injected='0.000000000' left='0.000000000'/></event></process></events>",
    "<events><process rank='0'><event kind='irecv' start='0.000000000' end='1.000000000' device='mpi' model='net-simple' request='0' peer='all' tag='1' bytes='8'/></process></events>",
    "<events><process rank='0'><collective phase='begin' call='allscan' comm='0' bytes='8' time='0.000000000'/></process></events>",
    "<events><process rank='0'><derived start='0.000000000' end='1.000000000' repetitions='2'/></process></events>",
    "<events><process rank='0'><event kind='compute' start='0.000000000' end='1.000000000' device='cpu' model='cpu-clc' bogus='1'/></process></events>",
    "<events><process rank='0'><step xmlns='urn:pti:trace:2'/></process></events>",
    "<events><process rank='0'><nons/></process></events>",
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    g_autofree char *errors = schema_errors (bad[i]);
    if (errors == NULL)
      g_error ("invalid document %u accepted: %s", i, bad[i]);
  }

  /* a record type declared twice */
  const char *rec = strstr (doc_head, "<record ");
  const char *rec_end = strstr (rec, "/>") + 2;
  g_autofree char *twice = g_strdup_printf ("%.*s%.*s%s<events/>%s", (int) (rec_end - doc_head),
                                            doc_head, (int) (rec_end - rec), rec, rec_end, doc_tail);
  xmlDocPtr doc = pti_xml_read_memory (twice, -1, "mem.xml", NULL);
  g_autofree char *errors = validate_doc (doc);
  xmlFreeDoc (doc);
  g_assert_nonnull (errors);
  g_assert_nonnull (strstr (errors, "Duplicate key-sequence"));
}

/* ---- tests: files ------------------------------------------------------- */

/* Until commit only the temporary file exists; commit replaces it by the
 * target (also over an existing file). */
static void
test_temp_then_commit (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *path = g_build_filename (dir, "t.xml", NULL);
  g_assert_true (g_file_set_contents (path, "old", -1, NULL));
  g_unlink (path);
  GError *error = NULL;
  PtiTraceWriter *w = pti_trace_writer_open (path, &error);
  g_assert_no_error (error);
  g_autofree char *l1 = list_dir (dir);
  g_assert_true (g_str_has_prefix (l1, "t.xml.tmp-"));
  g_assert_null (strchr (l1, ' '));
  g_assert_true (pti_trace_writer_header (w, &small_header, &error));
  write_small_events (w);
  write_small_summary (w);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_autofree char *l2 = list_dir (dir);
  g_assert_cmpstr (l2, ==, l1);
  g_assert_true (pti_trace_writer_commit (w, &error));
  g_assert_no_error (error);
  g_autofree char *l3 = list_dir (dir);
  g_assert_cmpstr (l3, ==, "t.xml");
  pti_trace_writer_free (w);
  g_autofree char *l4 = list_dir (dir);
  g_assert_cmpstr (l4, ==, "t.xml");

  /* a second trace replaces the first in one step */
  g_assert_true (g_file_set_contents (path, "previous run", -1, NULL));
  write_small (path);
  g_autofree char *l5 = list_dir (dir);
  g_assert_cmpstr (l5, ==, "t.xml");
  assert_valid_file (path);
  rm_dir (dir);
}

/* Free without commit, at any stage, leaves nothing behind, and keeps an
 * existing target untouched. */
static void
test_free_uncommitted (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *path = g_build_filename (dir, "t.xml", NULL);
  GError *error = NULL;
  for (int stage = 0; stage < 5; stage++) {
    PtiTraceWriter *w = pti_trace_writer_open (path, &error);
    g_assert_no_error (error);
    if (stage >= 1)
      g_assert_true (pti_trace_writer_header (w, &small_header, &error));
    if (stage == 2) {
      g_assert_true (pti_trace_writer_begin_process (w, 0, &error));
      PtiTraceEvent e = compute (0, 1, NULL);
      g_assert_true (pti_trace_writer_event (w, &e, &error));
    }
    if (stage >= 3)
      write_small_events (w);
    if (stage >= 4)
      write_small_summary (w);
    pti_trace_writer_free (w);
    g_autofree char *l = list_dir (dir);
    g_assert_cmpstr (l, ==, "");
  }
  g_assert_true (g_file_set_contents (path, "previous run", -1, NULL));
  PtiTraceWriter *w = pti_trace_writer_open (path, &error);
  g_assert_true (pti_trace_writer_header (w, &small_header, &error));
  pti_trace_writer_free (w);
  g_autofree char *l = list_dir (dir);
  g_assert_cmpstr (l, ==, "t.xml");
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_assert_cmpstr (text, ==, "previous run");
  rm_dir (dir);
}

static void
test_missing_dir (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *path = g_build_filename (dir, "no", "such", "t.xml", NULL);
  GError *error = NULL;
  PtiTraceWriter *w = pti_trace_writer_open (path, &error);
  g_assert_null (w);
  g_assert_error (error, PTI_ERROR, PTI_ERROR_IO);
  g_assert_nonnull (strstr (error->message, path));
  g_assert_nonnull (strstr (error->message, g_strerror (ENOENT)));
  g_test_message ("%s", error->message);
  g_clear_error (&error);
  g_autofree char *l = list_dir (dir);
  g_assert_cmpstr (l, ==, "");
  rm_dir (dir);
}

/* The target became a directory while the trace was written: rename fails,
 * the error names the target, and the temporary file goes away with the
 * writer. */
static void
test_rename_fails (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *path = g_build_filename (dir, "t.xml", NULL);
  GError *error = NULL;
  PtiTraceWriter *w = pti_trace_writer_open (path, &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_mkdir (path, 0755), ==, 0);
  g_assert_true (pti_trace_writer_header (w, &small_header, &error));
  write_small_events (w);
  write_small_summary (w);
  g_assert_false (pti_trace_writer_commit (w, &error));
  g_assert_error (error, PTI_ERROR, PTI_ERROR_IO);
  g_assert_nonnull (strstr (error->message, path));
  g_test_message ("%s", error->message);
  g_clear_error (&error);
  pti_trace_writer_free (w);
  g_autofree char *l = list_dir (dir);
  g_assert_cmpstr (l, ==, "t.xml");
  g_assert_true (g_file_test (path, G_FILE_TEST_IS_DIR));
  rm_dir (dir);
}

/* A target that is not a regular file (a directory, a FIFO, a device) is
 * refused before anything is written: renaming over it would replace it. */
static void
test_target_not_regular (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *sub = g_build_filename (dir, "sub", NULL);
  g_autofree char *fifo = g_build_filename (dir, "fifo", NULL);
  g_assert_cmpint (g_mkdir (sub, 0755), ==, 0);
  g_assert_cmpint (mkfifo (fifo, 0644), ==, 0);
  const char *targets[] = { sub, fifo };
  for (guint i = 0; i < G_N_ELEMENTS (targets); i++) {
    GError *error = NULL;
    g_assert_null (pti_trace_writer_open (targets[i], &error));
    g_assert_error (error, PTI_ERROR, PTI_ERROR_IO);
    g_assert_nonnull (strstr (error->message, "not a regular file"));
    g_clear_error (&error);
  }
  g_autofree char *l = list_dir (dir);
  g_assert_cmpstr (l, ==, "fifo sub");
  g_unlink (fifo);
  g_rmdir (sub);
  rm_dir (dir);
}

/* A symbolic link is written through: the file it names gets the trace. */
static void
test_target_symlink (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *real = g_build_filename (dir, "real.xml", NULL);
  g_autofree char *link = g_build_filename (dir, "link.xml", NULL);
  g_assert_true (g_file_set_contents (real, "old", -1, NULL));
  g_assert_cmpint (symlink ("real.xml", link), ==, 0);
  GError *error = NULL;
  PtiTraceWriter *w = pti_trace_writer_open (link, &error);
  g_assert_no_error (error);
  g_assert_true (pti_trace_writer_header (w, &small_header, &error));
  write_small_events (w);
  write_small_summary (w);
  g_assert_true (pti_trace_writer_commit (w, &error));
  pti_trace_writer_free (w);
  g_assert_true (g_file_test (link, G_FILE_TEST_IS_SYMLINK));
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (real, &text, NULL, NULL));
  g_assert_true (g_str_has_prefix (text, "<?xml"));
  g_unlink (link);
  g_unlink (real);
  rm_dir (dir);
}

/* Disk full, simulated by a file size limit (write fails with EFBIG): the
 * error comes out of the writer call after it, naming the path; every later
 * call reports it too, and free removes the temporary file. */
static void
test_disk_full (void)
{
  if (g_test_subprocess ()) {
    g_autofree char *dir = make_dir ();
    g_autofree char *path = g_build_filename (dir, "t.xml", NULL);
    signal (SIGXFSZ, SIG_IGN);
    struct rlimit lim = { 256 * 1024, 256 * 1024 };
    g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &lim), ==, 0);
    GError *error = NULL;
    PtiTraceWriter *w = pti_trace_writer_open (path, &error);
    g_assert_no_error (error);
    g_assert_true (pti_trace_writer_header (w, &small_header, &error));
    g_assert_true (pti_trace_writer_begin_process (w, 0, &error));
    gboolean ok = TRUE;
    guint i;
    for (i = 0; ok && i < 100000; i++) {
      PtiTraceCompletion c;
      PtiTraceEvent e = message (&c, PTI_TRACE_SEND, i, i + 0.5, 1, 0, 8, i, FALSE, 0, i + 0.5,
                                 i + 0.5);
      ok = pti_trace_writer_event (w, &e, &error);
    }
    g_assert_false (ok);
    g_assert_error (error, PTI_ERROR, PTI_ERROR_IO);
    g_assert_nonnull (strstr (error->message, path));
    g_assert_nonnull (strstr (error->message, g_strerror (EFBIG)));
    g_printerr ("after %u events: %s\n", i, error->message);
    g_clear_error (&error);
    g_assert_false (pti_trace_writer_end_process (w, &error));
    g_assert_error (error, PTI_ERROR, PTI_ERROR_IO);
    g_clear_error (&error);
    g_assert_false (pti_trace_writer_commit (w, &error));
    g_assert_error (error, PTI_ERROR, PTI_ERROR_IO);
    g_clear_error (&error);
    pti_trace_writer_free (w);
    g_autofree char *l = list_dir (dir);
    g_assert_cmpstr (l, ==, "");
    rm_dir (dir);
    return;
  }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stderr ("*after * events: cannot write trace*");
}

/* Calls out of order are programming errors: a critical, FALSE, and no harm
 * to the writer. */
static void
test_out_of_order (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *path = g_build_filename (dir, "t.xml", NULL);
  GError *error = NULL;
  PtiTraceWriter *w = pti_trace_writer_open (path, &error);
  PtiTraceEvent e = compute (0, 1, NULL);

  g_test_expect_message (NULL, G_LOG_LEVEL_CRITICAL, "*assertion*failed*");
  g_assert_false (pti_trace_writer_begin_process (w, 0, &error));
  g_test_assert_expected_messages ();
  g_assert_true (pti_trace_writer_header (w, &small_header, &error));
  g_test_expect_message (NULL, G_LOG_LEVEL_CRITICAL, "*assertion*failed*");
  g_assert_false (pti_trace_writer_event (w, &e, &error));
  g_test_assert_expected_messages ();
  g_test_expect_message (NULL, G_LOG_LEVEL_CRITICAL, "*assertion*failed*");
  g_assert_false (pti_trace_writer_end_process (w, &error));
  g_test_assert_expected_messages ();
  g_test_expect_message (NULL, G_LOG_LEVEL_CRITICAL, "*assertion*failed*");
  g_assert_false (pti_trace_writer_commit (w, &error));
  g_test_assert_expected_messages ();
  g_assert_true (pti_trace_writer_begin_process (w, 0, &error));
  g_test_expect_message (NULL, G_LOG_LEVEL_CRITICAL, "*assertion*failed*");
  g_assert_false (pti_trace_writer_summary (w, 1, 0, NULL, 0, &error));
  g_test_assert_expected_messages ();
  PtiTraceEvent bad = compute (2, 1, NULL); /* ends before it starts */
  g_test_expect_message (NULL, G_LOG_LEVEL_CRITICAL, "*assertion*failed*");
  g_assert_false (pti_trace_writer_event (w, &bad, &error));
  g_test_assert_expected_messages ();
  bad = compute (NAN, 1, NULL);
  g_test_expect_message (NULL, G_LOG_LEVEL_CRITICAL, "*assertion*failed*");
  g_assert_false (pti_trace_writer_event (w, &bad, &error));
  g_test_assert_expected_messages ();
  g_assert_true (pti_trace_writer_event (w, &e, &error));
  g_assert_true (pti_trace_writer_end_process (w, &error));
  g_assert_true (pti_trace_writer_summary (w, 1, 1, NULL, 0, &error));
  g_assert_true (pti_trace_writer_commit (w, &error));
  g_assert_no_error (error);
  pti_trace_writer_free (w);
  assert_valid_file (path);
  rm_dir (dir);
}

/* A time the format cannot hold (>= 1e15 s) is an input error, not a crash. */
static void
test_time_range (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *path = g_build_filename (dir, "t.xml", NULL);
  GError *error = NULL;
  g_autoptr (PtiTraceWriter) w = pti_trace_writer_open (path, &error);
  g_assert_true (pti_trace_writer_header (w, &small_header, &error));
  g_assert_true (pti_trace_writer_begin_process (w, 0, &error));
  PtiTraceEvent e = compute (0, 1e15, NULL);
  g_assert_false (pti_trace_writer_event (w, &e, &error));
  g_assert_error (error, PTI_ERROR, PTI_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, path));
  g_clear_error (&error);
  PtiTraceCompletion c;
  e = message (&c, PTI_TRACE_RECV, 0, 1, 1, 0, 0, 0, FALSE, INFINITY, 0, 1);
  g_test_expect_message (NULL, G_LOG_LEVEL_CRITICAL, "*assertion*failed*");
  g_assert_false (pti_trace_writer_event (w, &e, &error));
  g_test_assert_expected_messages ();
  g_assert_true (pti_trace_writer_end_process (w, &error));
  PtiTraceProcessSummary sum = { 0, 2e15, 0, 0, 0, 0 };
  g_assert_false (pti_trace_writer_summary (w, 1, 0, &sum, 1, &error));
  g_assert_error (error, PTI_ERROR, PTI_ERROR_INVALID);
  g_clear_error (&error);
  g_clear_pointer (&w, pti_trace_writer_free);
  g_autofree char *l = list_dir (dir);
  g_assert_cmpstr (l, ==, "");
  rm_dir (dir);
}

/* ---- perf --------------------------------------------------------------- */

static long
peak_rss_kib (void)
{
  struct rusage ru;
  getrusage (RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

static double
cpu_seconds (void)
{
  struct rusage ru;
  getrusage (RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
}

/* A field of /proc/self/status in KiB ("VmRSS:", "VmHWM:"), -1 if none.
 * VmHWM is the peak RSS of this process image; getrusage's ru_maxrss also
 * remembers the peak of the process that exec'd us (meson, a shell), which
 * can hide a small writer behind a big parent. */
static long
status_kib (const char *field)
{
  g_autofree char *status = NULL;
  if (!g_file_get_contents ("/proc/self/status", &status, NULL, NULL))
    return -1;
  const char *p = strstr (status, field);
  return p != NULL ? strtol (p + strlen (field), NULL, 10) : -1;
}

/* 1,000,000 events, as the engine writes them: 8 ranks, compute and
 * message events alternating.  Peak RSS must not grow with the trace. */
static void
test_perf_stream (void)
{
  const guint n_events = 1000000, n_ranks = 8;
  g_autofree char *dir = make_dir ();
  g_autofree char *path = g_build_filename (dir, "big.xml", NULL);
  GError *error = NULL;
  PtiTraceProcess procs[8];
  g_autofree char *names = g_malloc (8 * 32);
  for (guint r = 0; r < n_ranks; r++) {
    procs[r].rank = r;
    procs[r].processor = names + 32 * r;
    g_snprintf (names + 32 * r, 32, "pc_node[%u] cpu 0", r);
  }
  PtiTraceHeader h = small_header;
  h.processes = procs;
  h.n_processes = n_ranks;

  long peak_before = peak_rss_kib ();
  long hwm_before = status_kib ("VmHWM:");
  double cpu_before = cpu_seconds ();
  long hwm_8th = 0;
  GTimer *timer = g_timer_new ();
  PtiTraceWriter *w = pti_trace_writer_open (path, &error);
  g_assert_true (pti_trace_writer_header (w, &h, &error));
  guint per_rank = n_events / n_ranks;
  for (guint r = 0; r < n_ranks; r++) {
    g_assert_true (pti_trace_writer_begin_process (w, r, &error));
    double t = 0;
    for (guint i = 0; i < per_rank; i++) {
      PtiTraceEvent e;
      PtiTraceCompletion c;
      if (i % 2 == 0) {
        e = compute (t, t + 1.234567e-4, "sweep_block");
      } else {
        gboolean send = (i / 2 + r) % 2 == 0;
        e = message (&c, send ? PTI_TRACE_SEND : PTI_TRACE_RECV, t, t + 3.3e-5,
                     send ? (r + 1) % n_ranks : (r + n_ranks - 1) % n_ranks, 17, 4096,
                     (guint64) r * per_rank + i, FALSE, send ? 0.0 : 1.1e-5, t + 3.3e-5,
                     t + 3.3e-5);
      }
      t = e.end;
      g_assert_true (pti_trace_writer_event (w, &e, &error));
    }
    g_assert_true (pti_trace_writer_end_process (w, &error));
    if (r == 0)
      hwm_8th = status_kib ("VmHWM:");
  }
  g_assert_true (pti_trace_writer_summary (w, 1.0, n_events, NULL, 0, &error));
  g_assert_true (pti_trace_writer_commit (w, &error));
  g_assert_no_error (error);
  pti_trace_writer_free (w);
  double secs = g_timer_elapsed (timer, NULL);
  double cpu_user = cpu_seconds () - cpu_before;
  g_timer_destroy (timer);
  long peak_after = peak_rss_kib ();
  long hwm_after = status_kib ("VmHWM:");

  GStatBuf st;
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_test_message ("wrote %u events (%.1f MB) in %.3f s: %.0f events/s, %.1f MB/s", n_events,
                  st.st_size / 1e6, secs, n_events / secs, st.st_size / 1e6 / secs);
  g_test_message ("user CPU %.3f s: %.0f events/s formatted (the rest is the kernel "
                  "copying into the page cache)", cpu_user, n_events / cpu_user);
  g_test_message ("peak RSS (getrusage) before %ld KiB, after %ld KiB (+%ld KiB)", peak_before,
                  peak_after, peak_after - peak_before);
  g_test_message ("peak RSS of this process (VmHWM) before %ld KiB, after 125,000 events "
                  "%ld KiB, after 1,000,000 events %ld KiB", hwm_before, hwm_8th, hwm_after);
  g_test_minimized_result (peak_after - peak_before, "peak RSS growth %ld KiB",
                           peak_after - peak_before);
  g_test_maximized_result (n_events / secs, "%.0f events/s", n_events / secs);
  /* the writer's own buffers are about 1 MiB; allow the allocator some slack */
  g_assert_cmpint (peak_after - peak_before, <, 4 * 1024);
  if (hwm_before >= 0) {
    g_assert_cmpint (hwm_after - hwm_before, <, 4 * 1024);
    /* flat: the last 875,000 events add (next to) nothing; keeping even 16
     * bytes per event would add 14 MB */
    g_assert_cmpint (hwm_after - hwm_8th, <, 1024);
  }
  rm_dir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/trace-writer/small/valid", test_small_valid);
  g_test_add_func ("/trace-writer/small/golden", test_small_golden);
  g_test_add_func ("/trace-writer/empty", test_empty);
  g_test_add_func ("/trace-writer/empty-group", test_empty_group);
  g_test_add_func ("/trace-writer/times", test_times);
  g_test_add_func ("/trace-writer/locale", test_locale);
  g_test_add_func ("/trace-writer/strings", test_strings);
  g_test_add_func ("/trace-writer/markers", test_markers);
  g_test_add_func ("/trace-writer/schema/accepts", test_schema_accepts);
  g_test_add_func ("/trace-writer/schema/rejects", test_schema_rejects);
  g_test_add_func ("/trace-writer/file/temp-then-commit", test_temp_then_commit);
  g_test_add_func ("/trace-writer/file/free-uncommitted", test_free_uncommitted);
  g_test_add_func ("/trace-writer/file/missing-dir", test_missing_dir);
  g_test_add_func ("/trace-writer/file/rename-fails", test_rename_fails);
  g_test_add_func ("/trace-writer/file/target-not-regular", test_target_not_regular);
  g_test_add_func ("/trace-writer/file/target-symlink", test_target_symlink);
  g_test_add_func ("/trace-writer/file/disk-full", test_disk_full);
  g_test_add_func ("/trace-writer/out-of-order", test_out_of_order);
  g_test_add_func ("/trace-writer/time-range", test_time_range);
  if (g_test_perf ())
    g_test_add_func ("/trace-writer/perf/stream", test_perf_stream);
  /* The schema is the reader's, kept for the process (hmi/xml.h). */
  return g_test_run ();
}
