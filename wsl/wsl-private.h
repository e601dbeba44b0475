/* WSL internals shared inside libpti (the workload-file reader, the CLI
 * driver).  Not installed. */
#pragma once

#include <pti/wsl.h>
#include <libxml/tree.h>

G_BEGIN_DECLS

/* Compile a `<rud device="...">` element already in a document (a workload
 * file).  Same as pti_rud_new() without the parse.  (transfer full) */
PtiRud *pti_rud_new_from_node (PtiContext *ctx, const char *name, const xmlNode *rud,
                               GError **error);

/* Read a workload file (schemas/workload.xsd) and build it in @ctx: declare
 * its parameters (honouring overrides), set the processes, emit every rank's
 * events.  Errors name the file, line and expression.  Defined in
 * workload-file.c. */
gboolean pti_workload_file_build (PtiContext *ctx, const char *path, GError **error);

/* For collectives.c: the checks of a device use (wsl.c). */
gboolean pti_wsl_check_collective (PtiContext *ctx, const char *what, guint rank, GError **error);

/* Collectives and communicators (collectives.c, comm.c; coll-private.h).
 * The state lives in the context (wsl.c holds the pointer and frees it). */
typedef struct _PtiCollState PtiCollState;
void pti_coll_state_free (PtiCollState *state);

/* At pti_evaluate: every member of every communicator made the same number
 * of collective calls on it; otherwise an error naming the collective call
 * some ranks never make, and those ranks. */
gboolean pti_coll_check_complete (PtiContext *ctx, GError **error);

/* For the workload-file reader: @file (copied) and @line of the collective
 * calls that follow, quoted by mismatch errors; NULL @file for none. */
void pti_coll_set_site (PtiContext *ctx, const char *file, guint line);

/* pti_context_new() with @uses ("OWNER=MODEL", NULL-terminated, may be
 * NULL) choosing the active model of networks and computers over the HMC
 * file's `model` attributes (ptieval --use-model). */
PtiContext *pti_context_new_with_models (const char *system_path, const char *model_path,
                                         const char *const *uses, GError **error);

/* pti_context_change_at() with @origin naming where the change comes from
 * in errors ("changes.txt:3"). */
gboolean pti_context_change_at_origin (PtiContext *ctx, double time, const char *target,
                                       const char *element, const char *value,
                                       const char *origin, GError **error);

/* Read a schedule of changes (`ptieval --changes FILE`, wsl/README.md): one
 * per line, "TIME TARGET ELEMENT VALUE", TIME in s or with a unit ("250us"),
 * '#' starts a comment.  Errors name the file and line.  Defined in
 * driver.c. */
gboolean pti_changes_file_load (PtiContext *ctx, const char *path, GError **error);

/* The command line shared by ptieval and C workload programs (driver.c). */
typedef struct {
  const char *program;          /* for messages: "ptieval", "sweep3d" */
  const char *workload_name;    /* NULL: the workload file names itself */
  gboolean workload_file;       /* a WORKLOAD.xml argument follows SYSTEM.xml */
  PtiBuildFunc build;           /* used when !workload_file */
  gpointer user_data;
} PtiDriver;

int pti_driver_main (const PtiDriver *driver, int argc, char **argv);

/* Progress reports, for the CLI driver; may be set at any time (NULL @func:
 * none).  While the workload is built, @func is called every @every device
 * uses with @done = @total = 0 and @sim_time NaN (pti_result_events() then
 * counts the events so far); during pti_evaluate, every @every engine steps
 * as pti_engine_set_progress says.  Returns TRUE. */
gboolean pti_wsl_set_progress (PtiContext *ctx, void (*func) (guint64 done, guint64 total,
                                                             double sim_time, gpointer data),
                               gpointer data, guint64 every);

/* pti_use() without the hint for C programs: on failure, @unbound is the
 * slot of the unbound parameter the price read, or G_MAXUINT (also when the
 * model cannot say).  For the workload-file reader, which gives its own. */
gboolean pti_wsl_use (PtiContext *ctx, guint rank, PtiRud *rud, guint *unbound, GError **error);

/* Appends to @error's message where unbound parameter @slot can be set, in
 * the words of a workload file (@workload_file) or of a C program, and the
 * bound names closest to it.  Does nothing if @error or @slot is unset. */
void pti_wsl_hint_unbound (PtiContext *ctx, guint slot, gboolean workload_file, GError **error);

/* How many repetitions of repeated blocks the evaluation ran through the
 * models and how many it derived (for tests and reports). */
void pti_wsl_repetition_figures (const PtiContext *ctx, guint64 *evaluated, guint64 *extrapolated);

/* The loaded system's name, for the CLI driver. */
const char *pti_wsl_system_name (const PtiContext *ctx);

G_END_DECLS
