/* A model built for another HMI ABI: the loader must refuse it, naming the
 * file and both versions, before calling anything but its entry point. */
#include <pti/hmi.h>

static gboolean
never_called (gpointer instance, const xmlNode *config, GError **error)
{
  g_error ("the configure of a refused model was called");
  return FALSE;
}

static const PtiModelDesc badabi = {
  .abi_version = 99,
  .struct_size = sizeof (PtiModelDesc),
  .name = "badabi",
  .kind = "cpu",
  .config_element = "badabi",
  .config_schema = "",
  .configure = never_called,
};

PTI_MODEL_DEFINE (badabi)
