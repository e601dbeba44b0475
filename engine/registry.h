/* Model registry: built-in models plus shared objects from the model path.
 * Internal to the engine. */
#pragma once

#include <pti/hmi.h>

G_BEGIN_DECLS

typedef struct _PtiRegistry PtiRegistry;

/* Build the registry: the built-in models, then every `*.so` in each
 * directory of @model_path (colon-separated, may be NULL), then of the
 * PTI_MODEL_PATH environment variable, then of the installed model directory
 * (PTI_MODEL_SYSTEM_PATH replaces it when set; empty disables it).  A model
 * in the installed directory whose name or element an earlier one took is
 * skipped (shadowed); anywhere else that is an error.  A shared object that
 * lacks the entry symbol, has another ABI version, a too-large struct_size, a
 * missing mandatory field, an ops table of the wrong version, or a name
 * already taken is refused with a PTI_ERROR_MODEL error naming the file and
 * the reason.
 * Returns (transfer full) or NULL with @error. */
PtiRegistry *pti_registry_new (const char *model_path, GError **error);
void pti_registry_free (PtiRegistry *registry);

/* Check a descriptor as the loader does (exposed for tests and built-ins);
 * @origin names the file or "built-in" in the error. */
gboolean pti_registry_check_desc (const PtiModelDesc *desc, const char *origin, GError **error);

/* (transfer none) the model with that name / configuration element, or NULL. */
const PtiModelDesc *pti_registry_find (const PtiRegistry *registry, const char *name);
const PtiModelDesc *pti_registry_find_element (const PtiRegistry *registry, const char *element);

/* Models sorted by name; (transfer none) array of n descriptors. */
const PtiModelDesc *const *pti_registry_list (const PtiRegistry *registry, guint *n);

/* Where a model came from: "built-in" or the shared object's path. */
const char *pti_registry_origin (const PtiRegistry *registry, const PtiModelDesc *desc);

/* Known model names, comma-separated, for "did you mean" style errors.
 * (transfer full) */
char *pti_registry_names (const PtiRegistry *registry);

/* The compiled XSD of a model's configuration element, compiled on first use
 * and cached.  (transfer none) or NULL with @error. */
struct _xmlSchema;
struct _xmlSchema *pti_registry_schema (PtiRegistry *registry, const PtiModelDesc *desc, GError **error);

/* Print `--list-models` and `--model-info NAME` text to @out. */
void pti_registry_print_list (const PtiRegistry *registry, GString *out);
gboolean pti_registry_print_info (const PtiRegistry *registry, const char *name, GString *out, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PtiRegistry, pti_registry_free)

G_END_DECLS
