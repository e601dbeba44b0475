/* Safe XML reading and schema validation: the one reader of every XML
 * document pti parses (the HMC loader, the workload-file reader, RUDs given
 * as text, files a configuration or a RUD includes (pti_config_read_xml),
 * ptireuse's histograms).  In the HMI, the lowest layer, so that the engine,
 * the models' readers and the tools share it; not installed (like
 * digest-private.h): exported from libpti-hmi for pti's own components only.
 *
 * Every document is parsed with XML_PARSE_NONET, without entity substitution
 * and without loading a DTD, and a document that declares a DOCTYPE is
 * refused: so an entity bomb or an external entity is never expanded and
 * never read.  Errors are PTI_ERROR_INVALID and start with `FILE:LINE: `. */
#pragma once

#include <pti/hmi.h>
#include <libxml/xmlschemas.h>

G_BEGIN_DECLS

/* Open @path for reading if it is a regular file: the descriptor (its
 * status in *@st), or -1 with the error pti_file_read gives. */
struct stat;
PTI_API int pti_file_open_regular (const char *path, struct stat *st, GError **error);

/* Read a whole input file into *@contents (NUL-terminated, *@length bytes
 * without it; g_free).  Only a regular file is read (a FIFO or a device
 * could feed it without end), and no more than @max_len bytes.  FALSE
 * with @error naming @path: PTI_ERROR_IO if it cannot be opened or read,
 * PTI_ERROR_INVALID if it is not a regular file or too large. */
PTI_API gboolean pti_file_read (const char *path, gsize max_len, char **contents,
                                gsize *length, GError **error);

/* Parse a file (read by pti_file_read, at most G_MAXINT bytes, what libxml2
 * parses).  (transfer full) or NULL with @error. */
PTI_API xmlDoc *pti_xml_read_file (const char *path, GError **error);
/* Parse text; @name stands for the file in errors (e.g. "RUD text"). */
PTI_API xmlDoc *pti_xml_read_memory (const char *text, gssize len, const char *name,
                                     GError **error);

/* Compile an XSD from a file or from text, once per process: (transfer
 * none), valid until the process ends, or NULL with @error. */
PTI_API xmlSchema *pti_xml_schema_from_file (const char *path, GError **error);
PTI_API xmlSchema *pti_xml_schema_from_memory (const char *text, const char *name,
                                               GError **error);
/* The same for a caller that has looked into the schema's document first:
 * @doc is @text parsed by pti_xml_read_memory (transfer none), compiled
 * unless @text is already, so the text is parsed once. */
PTI_API xmlSchema *pti_xml_schema_from_doc (xmlDoc *doc, const char *text, const char *name,
                                            GError **error);

/* Validate a whole document / one element subtree (the element must be
 * declared globally in @schema).  The first problem becomes the error,
 * naming the file and line of the offending node; @what names the schema
 * in the message ("hmc.xsd", "model cpu-clc").  An element the schema does
 * not expect there gets the nearest of the @n_known names @known (the
 * element names it allows; may be NULL) as a hint. */
PTI_API gboolean pti_xml_validate_doc (xmlSchema *schema, xmlDoc *doc, const char *what,
                                       GError **error);
PTI_API gboolean pti_xml_validate_element (xmlSchema *schema, xmlNode *element, const char *what,
                                           const char *const *known, gsize n_known,
                                           GError **error);

/* Find a schema shipped in schemas/ (e.g. "hmc.xsd"): $PTI_SCHEMA_DIR, the
 * source tree, then the installed location.  (transfer full) path or NULL
 * with @error. */
PTI_API char *pti_xml_find_schema (const char *file, GError **error);

/* Attribute helpers: (transfer full) value or NULL. */
PTI_API char *pti_xml_attr (const xmlNode *node, const char *name);
/* Next element sibling (skipping text and comments), or NULL. */
PTI_API xmlNode *pti_xml_next_element (xmlNode *node);
PTI_API xmlNode *pti_xml_first_element (xmlNode *parent);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (xmlDoc, xmlFreeDoc)

G_END_DECLS
