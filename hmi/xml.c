/* Safe XML reading and schema validation.  See xml.h for the rules. */
#include "pti-config.h"
#include "xml.h"

#include <errno.h>
#include <fcntl.h>
#include <libxml/parser.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* libxml2 reports errors through callbacks; keep the first one, with where.
 * The first is the mistake: after it the parser goes on and reports what
 * follows from it (every open tag unclosed at the end, "Extra content"),
 * and its context keeps only the last of them (xmlCtxtGetLastError). */
typedef struct {
  char *message;
  char *file;
  int line;
  gboolean fatal;   /* the message is of a fatal error */
  int code;         /* libxml2's xmlParserErrors */
  char *element;    /* the element it is about, if libxml2 says */
} FirstError;

static void
first_error_cb (void *data, const xmlError *err)
{
  FirstError *fe = data;
  if (err == NULL || err->level == XML_ERR_WARNING)
    return;
  /* A fatal error (one that makes a document not well-formed) wins over an
   * earlier recoverable one (a namespace error), which alone does not. */
  if (fe->message != NULL && (fe->fatal || err->level != XML_ERR_FATAL))
    return;
  g_clear_pointer (&fe->message, g_free);
  g_clear_pointer (&fe->file, g_free);
  g_clear_pointer (&fe->element, g_free);
  fe->fatal = err->level == XML_ERR_FATAL;
  fe->code = err->code;
  if (err->node != NULL && ((xmlNode *) err->node)->type == XML_ELEMENT_NODE)
    fe->element = g_strdup ((const char *) ((xmlNode *) err->node)->name);
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
  g_free (fe->element);
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

/* The parser's structured error channel: its user data is the context,
 * whose _private holds the FirstError. */
static void
parse_error_cb (void *ctx, xmlError *err)
{
  first_error_cb (((xmlParserCtxt *) ctx)->_private, err);
}

static xmlDoc *
check_parsed (xmlParserCtxt *ctxt, xmlDoc *doc, const char *text, gsize len, const char *name,
              const FirstError *fe, GError **error)
{
  /* Stopped at the DOCTYPE (stop_at_doctype), or one that got through. */
  gboolean doctype = (ctxt->intSubName != NULL && ctxt->errNo == XML_ERR_USER_STOP)
                     || (doc != NULL && ctxt->wellFormed
                         && (doc->intSubset != NULL || doc->extSubset != NULL));
  if (doctype) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "%s:%ld: a DOCTYPE declaration is not allowed here "
                 "(entities are never expanded and external files never read)",
                 name, doctype_line (text, len));
    xmlFreeDoc (doc);
    return NULL;
  }
  if (doc == NULL || !ctxt->wellFormed) {
    if (fe->message != NULL) {
      g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s:%d: malformed XML: %s",
                   name, fe->line, fe->message);
    } else {
      g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s: malformed XML", name);
    }
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

int
pti_file_open_regular (const char *path, struct stat *st, GError **error)
{
  /* O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused
   * below like every file that is not regular. */
  int fd = open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) {
    int e = errno;
    g_set_error (error, PTI_ERROR, PTI_ERROR_IO, "%s: cannot read: %s", path, g_strerror (e));
    return -1;
  }
  if (fstat (fd, st) != 0) {
    int e = errno;
    g_set_error (error, PTI_ERROR, PTI_ERROR_IO, "%s: cannot read: %s", path, g_strerror (e));
    close (fd);
    return -1;
  }
  if (!S_ISREG (st->st_mode)) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 S_ISDIR (st->st_mode) ? "%s: a directory, not a file"
                                       : "%s: not a regular file (a FIFO, a device or a socket, "
                                         "which could feed it without end): pti reads its inputs "
                                         "from regular files only", path);
    close (fd);
    return -1;
  }
  return fd;
}

gboolean
pti_file_read (const char *path, gsize max_len, char **contents, gsize *length, GError **error)
{
  struct stat st;
  int fd = pti_file_open_regular (path, &st, error);
  if (fd < 0)
    return FALSE;
  /* The size is only a hint (/proc files say 0, a file may grow while it
   * is read): read to the end, but never more than @max_len bytes. */
  if ((guint64) st.st_size > max_len) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "%s: %" G_GUINT64_FORMAT " bytes, more than the %zu an input may have", path,
                 (guint64) st.st_size, max_len);
    close (fd);
    return FALSE;
  }
  gsize cap = MIN ((gsize) st.st_size + 1, max_len + 1), len = 0;
  char *buf = g_malloc (cap + 1);
  for (;;) {
    if (len == cap) {
      if (cap > max_len) {
        g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                     "%s: more than the %zu bytes an input may have", path, max_len);
        break;
      }
      cap = MIN (cap * 2, max_len + 1);
      buf = g_realloc (buf, cap + 1);
    }
    ssize_t n = read (fd, buf + len, cap - len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      int e = errno;
      g_set_error (error, PTI_ERROR, PTI_ERROR_IO, "%s: cannot read: %s", path, g_strerror (e));
      break;
    }
    if (n == 0) {
      close (fd);
      buf[len] = '\0';
      *contents = buf;
      if (length != NULL)
        *length = len;
      return TRUE;
    }
    len += (gsize) n;
  }
  close (fd);
  g_free (buf);
  return FALSE;
}

xmlDoc *
pti_xml_read_file (const char *path, GError **error)
{
  g_autofree char *contents = NULL;
  gsize len = 0;
  GError *local = NULL;

  /* Read the bytes ourselves: a missing file is an I/O problem, not
   * "malformed XML"; for the command line it is still an input mistake. */
  if (!pti_file_read (path, G_MAXINT, &contents, &len, &local)) {
    local->code = PTI_ERROR_INVALID;
    g_propagate_error (error, local);
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
  FirstError fe = { 0 };
  ctxt->sax->internalSubset = stop_at_doctype;
  ctxt->sax->serror = parse_error_cb;
  ctxt->_private = &fe;
  xmlDoc *doc = xmlCtxtReadMemory (ctxt, text, (int) len, name, NULL, PARSE_OPTIONS);
  doc = check_parsed (ctxt, doc, text, (gsize) len, name, &fe, error);
  xmlFreeParserCtxt (ctxt);
  first_error_clear (&fe);
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

/* Compiled schemas are kept for the life of the process: they never
 * change, compiling hmc.xsd takes longer than loading a small system, and a
 * program may make many contexts (a parameter sweep, a fuzzer).  Keyed by
 * "file:PATH" or by "text:" and the text of an embedded schema; only
 * schemas that compile are kept. */
static GMutex schema_lock;
static GHashTable *schema_cache;   /* char * -> xmlSchema *, both owned, never freed */

/* A key holds a whole schema: g_str_hash over every byte, twice a schema,
 * cost ptieval 0.9 M instructions a run.  The length and both ends tell
 * pti's schemas apart; keys that share them only cost a comparison. */
static guint
schema_key_hash (gconstpointer key)
{
  const char *s = key;
  gsize len = strlen (s), n = MIN (len, 128);
  guint h = (guint) len;
  for (gsize i = 0; i < n; i++)
    h = h * 31 + (guchar) s[i];
  for (gsize i = len - n; i < len; i++)
    h = h * 31 + (guchar) s[i];
  return h;
}

static xmlSchema *
schema_cached (const char *kind, const char *source, const char *name, xmlDoc *parsed,
               GError **error)
{
  g_autofree char *key = g_strconcat (kind, ":", source, NULL);
  g_mutex_lock (&schema_lock);
  if (schema_cache == NULL)
    schema_cache = g_hash_table_new (schema_key_hash, g_str_equal);
  xmlSchema *schema = g_hash_table_lookup (schema_cache, key);
  if (schema == NULL) {
    /* Schemas are ours, but parse them through the same safe reader. */
    g_autoptr (xmlDoc) doc = NULL;
    if (parsed == NULL)
      doc = strcmp (kind, "file") == 0 ? pti_xml_read_file (source, error)
                                       : pti_xml_read_memory (source, -1, name, error);
    if (parsed != NULL || doc != NULL)
      schema = schema_from_ctxt (xmlSchemaNewDocParserCtxt (parsed ? parsed : doc), name, error);
    if (schema != NULL)
      g_hash_table_insert (schema_cache, g_steal_pointer (&key), schema);
  }
  g_mutex_unlock (&schema_lock);
  return schema;
}

xmlSchema *
pti_xml_schema_from_file (const char *path, GError **error)
{
  return schema_cached ("file", path, path, NULL, error);
}

xmlSchema *
pti_xml_schema_from_memory (const char *text, const char *name, GError **error)
{
  return schema_cached ("text", text, name, NULL, error);
}

xmlSchema *
pti_xml_schema_from_doc (xmlDoc *doc, const char *text, const char *name, GError **error)
{
  return schema_cached ("text", text, name, doc, error);
}

static gboolean
validation_error (FirstError *fe, const char *fallback_file, const char *what,
                  const char *const *known, gsize n_known, GError **error)
{
  /* A misspelt element: the known names nearest to it, as every unknown
   * name gets them. */
  g_autofree char *message = g_strdup (fe->message ? fe->message : "invalid");
  if (fe->code == XML_SCHEMAV_ELEMENT_CONTENT && fe->element != NULL && n_known > 0) {
    g_autofree char *near = pti_nearest_names (fe->element, known, n_known);
    if (near != NULL) {
      gsize len = strlen (message);
      if (len > 0 && message[len - 1] == '.')
        message[len - 1] = '\0';
      g_autofree char *with = g_strdup_printf ("%s (nearest: %s).", message, near);
      g_free (g_steal_pointer (&message));
      message = g_steal_pointer (&with);
    }
  }
  /* A model element lacking a parameter (or holding a misspelt one): say
   * where every parameter is documented, with its unit and default. */
  g_autofree char *hint = NULL;
  if (g_str_has_prefix (what, "model ") && fe->message != NULL
      && (strstr (fe->message, "Expected is") != NULL
          || strstr (fe->message, "not expected") != NULL))
    hint = g_strdup_printf (" See --model-info %s for the model's parameters, their units "
                            "and defaults.", what + 6);
  g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s:%d: does not follow %s: %s%s",
               fe->file ? fe->file : fallback_file, fe->line, what, message, hint ? hint : "");
  first_error_clear (fe);
  return FALSE;
}

/* Validate @doc, or only @element when it is set. */
static gboolean
validate (xmlSchema *schema, xmlDoc *doc, xmlNode *element, const char *what,
          const char *const *known, gsize n_known, GError **error)
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
  return validation_error (&fe, doc && doc->URL ? (const char *) doc->URL : "?", what, known,
                           n_known, error);
}

gboolean
pti_xml_validate_doc (xmlSchema *schema, xmlDoc *doc, const char *what, GError **error)
{
  return validate (schema, doc, NULL, what, NULL, 0, error);
}

gboolean
pti_xml_validate_element (xmlSchema *schema, xmlNode *element, const char *what,
                          const char *const *known, gsize n_known, GError **error)
{
  return validate (schema, element->doc, element, what, known, n_known, error);
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
