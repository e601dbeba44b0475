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

/* For collectives.c: the checks of a device use, and point-to-point on the
 * tag reserved for collective traffic (wsl.c). */
gboolean pti_wsl_check_collective (PtiContext *ctx, const char *what, guint rank, GError **error);
gboolean pti_wsl_collective_send (PtiContext *ctx, guint rank, guint dst, guint64 bytes, GError **error);
gboolean pti_wsl_collective_recv (PtiContext *ctx, guint rank, guint src, guint64 bytes, GError **error);

/* The command line shared by ptieval and C workload programs (driver.c). */
typedef struct {
  const char *program;          /* for messages: "ptieval", "sweep3d" */
  const char *workload_name;    /* NULL: the workload file names itself */
  gboolean workload_file;       /* a WORKLOAD.xml argument follows SYSTEM.xml */
  PtiBuildFunc build;           /* used when !workload_file */
  gpointer user_data;
} PtiDriver;

int pti_driver_main (const PtiDriver *driver, int argc, char **argv);

/* Progress of pti_evaluate (see pti_engine_set_progress); call after the
 * processes are set.  Returns FALSE if they are not. */
gboolean pti_wsl_set_progress (PtiContext *ctx, void (*func) (guint64 done, guint64 total,
                                                             double sim_time, gpointer data),
                               gpointer data, guint64 every);

/* The loaded system's name, for the CLI driver. */
const char *pti_wsl_system_name (const PtiContext *ctx);

G_END_DECLS
