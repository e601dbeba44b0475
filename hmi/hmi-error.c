/* The PTI_ERROR domain, shared by the engine, the WSL and every model.  It
 * lives in libpti-hmi so that models loaded from shared objects and the
 * engine agree on it. */
#include <pti/hmi.h>

G_DEFINE_QUARK (pti-error-quark, pti_error)
