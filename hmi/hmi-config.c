/* Typed readers over a model's configuration element.  Units are explicit in
 * the configuration (a `unit` attribute) and converted here, once, to SI:
 * seconds, bytes, bytes per second.  A missing or unknown unit is an error:
 * a model never guesses one. */
#include <pti/hmi.h>

#include "ranges-private.h"
#include "xml.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

gboolean
pti_node_error (GError **error, const xmlNode *node, const char *format, ...)
{
  va_list args;
  va_start (args, format);
  g_autofree char *msg = g_strdup_vprintf (format, args);
  va_end (args);
  const char *file = node && node->doc && node->doc->URL ? (const char *) node->doc->URL : "?";
  long line = node ? xmlGetLineNo (node) : 0;
  g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s:%ld: <%s>: %s", file, line,
               node && node->name ? (const char *) node->name : "?", msg);
  return FALSE;
}

const xmlNode *
pti_config_child (const xmlNode *parent, const char *name)
{
  for (const xmlNode *n = parent ? parent->children : NULL; n != NULL; n = n->next)
    if (n->type == XML_ELEMENT_NODE && strcmp ((const char *) n->name, name) == 0)
      return n;
  return NULL;
}

static gboolean
parse_number (const xmlNode *node, const char *s, const char *what, double *out, GError **error)
{
  char *end = NULL;
  errno = 0;
  double v = g_ascii_strtod (s, &end);
  if (s[0] == '\0' || end == NULL || *end != '\0' || errno != 0 || !isfinite (v))
    return pti_node_error (error, node, "%s'%s' is not a number", what, s);
  *out = v;
  return TRUE;
}

/* The number @node holds, or the end of its range the evaluation chose
 * (ranges-private.h): the one place every model's configured numbers
 * come through, so every one of them may be a range. */
static gboolean
node_range (const xmlNode *node, PtiRangeSense sense, gboolean range_allowed, double *out,
            GError **error)
{
  xmlChar *text = xmlNodeGetContent (node);
  g_autofree char *s = g_strstrip (g_strdup (text ? (const char *) text : ""));
  xmlFree (text);
  if (!parse_number (node, s, "", out, error))
    return FALSE;
  xmlChar *min = xmlGetProp (node, (const xmlChar *) "min");
  xmlChar *max = xmlGetProp (node, (const xmlChar *) "max");
  gboolean ok = TRUE;
  if (min != NULL || max != NULL) {
    double lo = 0, hi = 0;
    g_autofree char *smin = g_strstrip (g_strdup (min ? (const char *) min : ""));
    g_autofree char *smax = g_strstrip (g_strdup (max ? (const char *) max : ""));
    xmlChar *unit = xmlGetProp (node, (const xmlChar *) "unit");
    g_autofree char *label = NULL;
    if (!range_allowed)
      ok = pti_node_error (error, node, "takes a single value, not a range (min, max)");
    else if (min == NULL || max == NULL)
      ok = pti_node_error (error, node, "a range needs both min and max (found only %s)",
                           min ? "min" : "max");
    else if (parse_number (node, smin, "min=", &lo, error)
             && parse_number (node, smax, "max=", &hi, error)) {
      const char *file = node->doc && node->doc->URL ? (const char *) node->doc->URL : "?";
      label = g_strdup_printf ("%s:%ld: <%s>", file, xmlGetLineNo (node), (const char *) node->name);
      xmlChar *path = xmlGetNodePath (node);
      g_autofree char *key = g_strdup_printf ("hmc:%s", path ? (const char *) path : "?");
      xmlFree (path);
      PtiRanges *ranges = node->doc ? node->doc->_private : NULL;
      ok = pti_ranges_take (ranges, key, label, (const char *) unit, lo, *out, hi, sense, out,
                            error);
    } else
      ok = FALSE;
    xmlFree (unit);
  }
  xmlFree (min);
  xmlFree (max);
  return ok;
}

static const xmlNode *
required_child (const xmlNode *parent, const char *name, GError **error)
{
  const xmlNode *child = pti_config_child (parent, name);
  if (child == NULL)
    pti_node_error (error, parent, "missing required <%s>", name);
  return child;
}

gboolean
pti_config_node_number (const xmlNode *node, PtiRangeSense sense, double *out, GError **error)
{
  return node_range (node, sense, TRUE, out, error);
}

gboolean
pti_config_get_number (const xmlNode *parent, const char *name, PtiRangeSense sense, double *out,
                       GError **error)
{
  const xmlNode *child = required_child (parent, name, error);
  return child != NULL && node_range (child, sense, TRUE, out, error);
}

gboolean
pti_config_get_double (const xmlNode *parent, const char *name, double *out, GError **error)
{
  return pti_config_get_number (parent, name, PTI_RANGE_SENSE_UNKNOWN, out, error);
}

typedef struct {
  const char *unit;
  double factor;
} UnitFactor;

/* The factor of @unit in @units; FALSE with the known units listed in
 * @known (for the caller's message) if it is not one of them. */
static gboolean
unit_factor (const UnitFactor *units, const char *unit, double *factor, GString *known)
{
  for (const UnitFactor *u = units; u->unit != NULL; u++) {
    if (unit != NULL && strcmp (unit, u->unit) == 0) {
      *factor = u->factor;
      return TRUE;
    }
    g_string_append_printf (known, "%s%s", known->len ? ", " : "", u->unit);
  }
  return FALSE;
}

static gboolean
get_with_unit (const xmlNode *parent, const char *name, const UnitFactor *units,
               gboolean unit_required, PtiRangeSense sense, gboolean range_allowed, double *out,
               GError **error)
{
  const xmlNode *child = required_child (parent, name, error);
  double v = 0;
  if (child == NULL || !node_range (child, sense, range_allowed, &v, error))
    return FALSE;
  xmlChar *unit = xmlGetProp (child, (const xmlChar *) "unit");
  if (unit == NULL && !unit_required) {
    *out = v * units[0].factor;
    return TRUE;
  }
  g_autoptr (GString) known = g_string_new (NULL);
  double factor;
  if (unit_factor (units, (const char *) unit, &factor, known)) {
    xmlFree (unit);
    *out = v * factor;
    return TRUE;
  }
  gboolean ok = pti_node_error (error, child, unit ? "unknown unit '%s' (known: %s)"
                                                   : "%sa unit attribute is required (one of %s)",
                                unit ? (const char *) unit : "", known->str);
  xmlFree (unit);
  return ok;
}

static const UnitFactor time_units[] = {
  { "s", 1.0 }, { "ms", 1e-3 }, { "us", 1e-6 }, { "ns", 1e-9 }, { "ps", 1e-12 }, { NULL, 0 } };
static const UnitFactor bandwidth_units[] = {
  { "B/s", 1.0 }, { "KB/s", 1e3 }, { "MB/s", 1e6 }, { "GB/s", 1e9 },
  { "b/s", 1.0 / 8 }, { "Kb/s", 1e3 / 8 }, { "Mb/s", 1e6 / 8 }, { "Gb/s", 1e9 / 8 },
  { NULL, 0 } };
static const UnitFactor flop_rate_units[] = {
  { "Flop/s", 1.0 }, { "KFlop/s", 1e3 }, { "MFlop/s", 1e6 }, { "GFlop/s", 1e9 },
  { "TFlop/s", 1e12 }, { NULL, 0 } };

gboolean
pti_config_get_time (const xmlNode *parent, const char *name, double *seconds, GError **error)
{
  const UnitFactor *units = time_units;
  if (!get_with_unit (parent, name, units, TRUE, PTI_RANGE_SENSE_SLOWER_WHEN_HIGHER, TRUE,
                      seconds, error))
    return FALSE;
  if (*seconds < 0)
    return pti_node_error (error, pti_config_child (parent, name), "a time cannot be negative");
  return TRUE;
}

gboolean
pti_config_get_bandwidth (const xmlNode *parent, const char *name, double *bytes_per_second,
                          GError **error)
{
  if (!get_with_unit (parent, name, bandwidth_units, TRUE, PTI_RANGE_SENSE_FASTER_WHEN_HIGHER,
                      TRUE, bytes_per_second, error))
    return FALSE;
  if (*bytes_per_second <= 0)
    return pti_node_error (error, pti_config_child (parent, name), "a bandwidth must be positive");
  return TRUE;
}

gboolean
pti_config_get_flop_rate (const xmlNode *parent, const char *name, double *flops_per_second,
                          GError **error)
{
  if (!get_with_unit (parent, name, flop_rate_units, TRUE, PTI_RANGE_SENSE_FASTER_WHEN_HIGHER,
                      TRUE, flops_per_second, error))
    return FALSE;
  if (*flops_per_second <= 0)
    return pti_node_error (error, pti_config_child (parent, name), "a flop rate must be positive");
  return TRUE;
}

gboolean
pti_config_get_bytes (const xmlNode *parent, const char *name, guint64 *bytes, GError **error)
{
  static const UnitFactor units[] = {
    { "B", 1.0 }, { "KiB", 1024.0 }, { "MiB", 1048576.0 }, { "KB", 1e3 }, { "MB", 1e6 },
    { NULL, 0 } };
  double v = 0;
  if (!get_with_unit (parent, name, units, FALSE, PTI_RANGE_SENSE_UNKNOWN, FALSE, &v, error))
    return FALSE;
  if (v < 0 || v > 1e18 || v != floor (v))
    return pti_node_error (error, pti_config_child (parent, name),
                           "a size must be a whole, non-negative number of bytes");
  *bytes = (guint64) v;
  return TRUE;
}

/* "NUMBER UNIT" (space optional) with a unit from @units. */
static gboolean
parse_quantity (const char *text, const UnitFactor *units, const char *what, double *out,
                GError **error)
{
  char *end = NULL;
  double v = text != NULL ? g_ascii_strtod (text, &end) : NAN;
  if (text == NULL || end == text || !isfinite (v) || v < 0) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "'%s' is not a %s: a non-negative number and a unit, e.g. %s",
                 text ? text : "", what,
                 units == time_units ? "250us" : units == flop_rate_units ? "2.5GFlop/s"
                                                                          : "1.28Gb/s");
    return FALSE;
  }
  while (g_ascii_isspace (*end))
    end++;
  g_autoptr (GString) known = g_string_new (NULL);
  double factor;
  if (unit_factor (units, end, &factor, known)) {
    *out = v * factor;
    return TRUE;
  }
  g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "'%s': %s unit '%s' (known: %s)", text,
               *end ? "unknown" : "missing", end, known->str);
  return FALSE;
}

gboolean
pti_parse_time (const char *text, double *seconds, GError **error)
{
  return parse_quantity (text, time_units, "time", seconds, error);
}

gboolean
pti_parse_bandwidth (const char *text, double *bytes_per_second, GError **error)
{
  if (!parse_quantity (text, bandwidth_units, "bandwidth", bytes_per_second, error))
    return FALSE;
  if (*bytes_per_second > 0)
    return TRUE;
  g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "'%s': a bandwidth must be positive", text);
  return FALSE;
}

gboolean
pti_parse_flop_rate (const char *text, double *flops_per_second, GError **error)
{
  if (!parse_quantity (text, flop_rate_units, "flop rate", flops_per_second, error))
    return FALSE;
  if (*flops_per_second > 0)
    return TRUE;
  g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "'%s': a flop rate must be positive", text);
  return FALSE;
}

/* ---- included files ------------------------------------------------------ */

#define INCLUDE_MAX_BYTES (64u << 20)

xmlDoc *
pti_config_read_xml (const xmlNode *from, const char *href, GError **error)
{
  const char *base = from && from->doc && from->doc->URL ? (const char *) from->doc->URL : NULL;
  g_autofree char *path = NULL;
  if (g_path_is_absolute (href) || base == NULL) {
    path = g_strdup (href);
  } else {
    g_autofree char *dir = g_path_get_dirname (base);
    path = g_build_filename (dir, href, NULL);
  }
  /* Only a regular file: a FIFO or a device could feed the parser without end. */
  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR)) {
    pti_node_error (error, from, "'%s' (%s) is not a readable regular file", href, path);
    return NULL;
  }
  g_autofree char *text = NULL;
  gsize len = 0;
  g_autoptr (GError) local = NULL;
  if (!pti_file_read (path, INCLUDE_MAX_BYTES, &text, &len, &local)) {
    pti_node_error (error, from, "cannot read '%s': %s", href, local->message);
    return NULL;
  }
  /* The one safe reader (xml.h): errors name the included file and line. */
  return pti_xml_read_memory (text, (gssize) len, path, error);
}
