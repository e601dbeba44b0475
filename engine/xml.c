/* Safe XML reading and schema validation.  See xml.h for the rules. */
#include "pti-config.h"
#include "xml.h"

#include <libxml/parser.h>
#include <string.h>

/* libxml2 reports errors through callbacks; keep the first one, with where. */
typedef struct {
  char *message;
  char *file;
  int line;
} FirstError;

static void
first_error_cb (void *data, const xmlError *err)
{
  FirstError *fe = data;
  if (fe->message != NULL || err == NULL)
    return;
  fe->message = g_strstrip (g_strdup (err->message ? err->message : "unknown XML error"));
  fe->file = g_strdup (err->file);
  fe->line = err->line;
  if (fe->line == 0 && err->node != NULL && ((xmlNode *) err->node)->type == XML_ELEMENT_NODE)
    fe->line = xmlGetLineNo (err->node);
}

static void
first_error_clear (FirstError *fe)
{
  g_free (fe->message);
  g_free (fe->file);
}

#define PARSE_OPTIONS (XML_PARSE_NONET | XML_PARSE_NOCDATA | XML_PARSE_NOWARNING \
                       | XML_PARSE_NOERROR | XML_PARSE_BIG_LINES)

/* libxml2 gives a DTD node no line: find the declaration in the text. */
static long
doctype_line (const char *text, gsize len)
{
  const char *p = g_strstr_len (text, len, "<!DOCTYPE");
  long line = 1;
  for (const char *c = text; p != NULL && c < p; c++)
    line += *c == '\n';
  return line;
}

/* SAX internalSubset: a DOCTYPE stops the parser before its internal subset
 * is read, so no entity is ever declared, let alone expanded. */
static void
stop_at_doctype (void *ctx, const xmlChar *name, const xmlChar *external_id,
                 const xmlChar *system_id)
{
  xmlStopParser ((xmlParserCtxt *) ctx);
}

static xmlDoc *
check_parsed (xmlParserCtxt *ctxt, xmlDoc *doc, const char *text, gsize len, const char *name,
              GError **error)
{
  if (ctxt->intSubName != NULL && ctxt->errNo == XML_ERR_USER_STOP) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "%s:%ld: a DOCTYPE declaration is not allowed here "
                 "(entities are never expanded and external files never read)",
                 name, doctype_line (text, len));
    xmlFreeDoc (doc);
    return NULL;
  }
  if (doc == NULL || !ctxt->wellFormed) {
    const xmlError *err = xmlCtxtGetLastError (ctxt);
    if (err != NULL && err->message != NULL) {
      g_autofree char *msg = g_strstrip (g_strdup (err->message));
      g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s:%d: malformed XML: %s",
                   name, err->line, msg);
    } else {
      g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s: malformed XML", name);
    }
    xmlFreeDoc (doc);
    return NULL;
  }
  if (doc->intSubset != NULL || doc->extSubset != NULL) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "%s:%ld: a DOCTYPE declaration is not allowed here "
                 "(entities are never expanded and external files never read)",
                 name, doctype_line (text, len));
    xmlFreeDoc (doc);
    return NULL;
  }
  if (xmlDocGetRootElement (doc) == NULL) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s: no root element", name);
    xmlFreeDoc (doc);
    return NULL;
  }
  return doc;
}

xmlDoc *
pti_xml_read_file (const char *path, GError **error)
{
  g_autofree char *contents = NULL;
  gsize len = 0;
  g_autoptr (GError) io_error = NULL;

  /* Read the bytes ourselves: a missing file is an I/O problem, not "malformed XML". */
  if (!g_file_get_contents (path, &contents, &len, &io_error)) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s: cannot read: %s", path,
                 io_error->message);
    return NULL;
  }
  return pti_xml_read_memory (contents, (gssize) len, path, error);
}

xmlDoc *
pti_xml_read_memory (const char *text, gssize len, const char *name, GError **error)
{
  if (len < 0)
    len = (gssize) strlen (text);
  if (len > G_MAXINT) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s: text too large", name);
    return NULL;
  }
  xmlParserCtxt *ctxt = xmlNewParserCtxt ();
  if (ctxt == NULL) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_FAILED, "out of memory");
    return NULL;
  }
  ctxt->sax->internalSubset = stop_at_doctype;
  xmlDoc *doc = xmlCtxtReadMemory (ctxt, text, (int) len, name, NULL, PARSE_OPTIONS);
  doc = check_parsed (ctxt, doc, text, (gsize) len, name, error);
  xmlFreeParserCtxt (ctxt);
  return doc;
}

static xmlSchema *
schema_from_ctxt (xmlSchemaParserCtxt *pctxt, const char *name, GError **error)
{
  FirstError fe = { 0 };
  xmlSchemaSetParserStructuredErrors (pctxt, (xmlStructuredErrorFunc) first_error_cb, &fe);
  xmlSchema *schema = xmlSchemaParse (pctxt);
  xmlSchemaFreeParserCtxt (pctxt);
  if (schema == NULL)
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s:%d: invalid schema: %s",
                 fe.file ? fe.file : name, fe.line, fe.message ? fe.message : "cannot compile");
  first_error_clear (&fe);
  return schema;
}

xmlSchema *
pti_xml_schema_from_file (const char *path, GError **error)
{
  /* Schemas are ours, but parse them through the same safe reader. */
  g_autoptr (xmlDoc) doc = pti_xml_read_file (path, error);
  if (doc == NULL)
    return NULL;
  return schema_from_ctxt (xmlSchemaNewDocParserCtxt (doc), path, error);
}

xmlSchema *
pti_xml_schema_from_memory (const char *text, const char *name, GError **error)
{
  g_autoptr (xmlDoc) doc = pti_xml_read_memory (text, -1, name, error);
  if (doc == NULL)
    return NULL;
  return schema_from_ctxt (xmlSchemaNewDocParserCtxt (doc), name, error);
}

static gboolean
validation_error (FirstError *fe, const char *fallback_file, const char *what, GError **error)
{
  /* A model element lacking a parameter (or holding a misspelt one): say
   * where every parameter is documented, with its unit and default. */
  g_autofree char *hint = NULL;
  if (g_str_has_prefix (what, "model ") && fe->message != NULL
      && (strstr (fe->message, "Expected is") != NULL
          || strstr (fe->message, "not expected") != NULL))
    hint = g_strdup_printf (" See --model-info %s for the model's parameters, their units "
                            "and defaults.", what + 6);
  g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s:%d: does not follow %s: %s%s",
               fe->file ? fe->file : fallback_file, fe->line, what,
               fe->message ? fe->message : "invalid", hint ? hint : "");
  first_error_clear (fe);
  return FALSE;
}

/* Validate @doc, or only @element when it is set. */
static gboolean
validate (xmlSchema *schema, xmlDoc *doc, xmlNode *element, const char *what, GError **error)
{
  FirstError fe = { 0 };
  xmlSchemaValidCtxt *vctxt = xmlSchemaNewValidCtxt (schema);
  xmlSchemaSetValidStructuredErrors (vctxt, (xmlStructuredErrorFunc) first_error_cb, &fe);
  int rc = element ? xmlSchemaValidateOneElement (vctxt, element) : xmlSchemaValidateDoc (vctxt, doc);
  xmlSchemaFreeValidCtxt (vctxt);
  if (rc == 0) {
    first_error_clear (&fe);
    return TRUE;
  }
  if (fe.line == 0 && element != NULL)
    fe.line = (int) xmlGetLineNo (element);
  return validation_error (&fe, doc && doc->URL ? (const char *) doc->URL : "?", what, error);
}

gboolean
pti_xml_validate_doc (xmlSchema *schema, xmlDoc *doc, const char *what, GError **error)
{
  return validate (schema, doc, NULL, what, error);
}

gboolean
pti_xml_validate_element (xmlSchema *schema, xmlNode *element, const char *what, GError **error)
{
  return validate (schema, element->doc, element, what, error);
}

char *
pti_xml_find_schema (const char *file, GError **error)
{
  const char *dirs[] = { g_getenv ("PTI_SCHEMA_DIR"), PTI_SOURCE_SCHEMA_DIR,
                         PTI_INSTALLED_SCHEMA_DIR };
  for (guint i = 0; i < G_N_ELEMENTS (dirs); i++) {
    if (dirs[i] == NULL || dirs[i][0] == '\0')
      continue;
    char *path = g_build_filename (dirs[i], file, NULL);
    if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
      return path;
    g_free (path);
  }
  g_set_error (error, PTI_ERROR, PTI_ERROR_IO,
               "schema %s not found (set PTI_SCHEMA_DIR to the folder holding pti's schemas)", file);
  return NULL;
}

char *
pti_xml_attr (const xmlNode *node, const char *name)
{
  xmlChar *v = xmlGetProp (node, (const xmlChar *) name);
  if (v == NULL)
    return NULL;
  char *copy = g_strdup ((const char *) v);
  xmlFree (v);
  return copy;
}

xmlNode *
pti_xml_next_element (xmlNode *node)
{
  for (node = node ? node->next : NULL; node != NULL; node = node->next)
    if (node->type == XML_ELEMENT_NODE)
      return node;
  return NULL;
}

xmlNode *
pti_xml_first_element (xmlNode *parent)
{
  for (xmlNode *n = parent ? parent->children : NULL; n != NULL; n = n->next)
    if (n->type == XML_ELEMENT_NODE)
      return n;
  return NULL;
}
