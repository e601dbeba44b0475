/* The io device: files opened, read and written by ranks (POSIX-like and
 * MPI-IO-like calls, wsl.h).  The WSL checks what a program could get
 * wrong (a file not open on the rank, a collective call on a file opened
 * alone) and hands each call to the engine as an io operation
 * (engine/ioglue.c), priced in stage 2 by the I/O model of the file system
 * the rank's node mounts. */
#include "coll-private.h"
#include "wsl-private.h"

#include <string.h>

enum { CLOSED, OPEN_ALONE, OPEN_TOGETHER };

typedef struct {
  char *name;
  guint8 *state;         /* per rank: CLOSED, OPEN_ALONE, OPEN_TOGETHER */
  guint32 *gather;       /* per rank: the engine's group of its collective calls */
  guint *group_size;     /* per rank: that group's size */
} WslFile;

static void
file_free (gpointer data)
{
  WslFile *f = data;
  g_free (f->name);
  g_free (f->state);
  g_free (f->gather);
  g_free (f->group_size);
  g_free (f);
}

static PtiEngine *
engine_of (PtiContext *ctx)
{
  return pti_session_engine (pti_wsl_session (ctx));
}

/* The file called @name, made (and its layout given to the engine) at its
 * first open. */
static PtiFile
file_by_name (PtiContext *ctx, const char *name, const PtiIoHints *hints)
{
  if (ctx->io_files == NULL) {
    ctx->io_files = g_ptr_array_new_with_free_func (file_free);
    ctx->io_names = g_hash_table_new (g_str_hash, g_str_equal);
  }
  guint known = GPOINTER_TO_UINT (g_hash_table_lookup (ctx->io_names, name));
  if (known != 0)
    return known - 1;
  WslFile *f = g_new0 (WslFile, 1);
  f->name = g_strdup (name);
  f->state = g_new0 (guint8, ctx->n_procs);
  f->gather = g_new0 (guint32, ctx->n_procs);
  f->group_size = g_new0 (guint, ctx->n_procs);
  g_ptr_array_add (ctx->io_files, f);
  PtiFile file = ctx->io_files->len - 1;
  g_hash_table_insert (ctx->io_names, f->name, GUINT_TO_POINTER (file + 1));
  pti_engine_io_file (engine_of (ctx), file, hints ? hints->stripe_size : 0,
                      hints ? hints->stripe_count : 0);
  return file;
}

static gboolean
check_name (const char *what, guint rank, const char *name, GError **error)
{
  if (name == NULL || name[0] == '\0') {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s on rank %u: a file needs a name",
                 what, rank);
    return FALSE;
  }
  return pti_text_check (name, -1, 4096, what, error);
}

static gboolean
open_common (PtiContext *ctx, const PtiComm *comm, guint rank, const char *name,
             const PtiIoHints *hints, PtiFile *file, GError **error)
{
  const char *what = comm != NULL ? "io_open_all" : "io_open";
  CommView view = { 0 };
  if (comm != NULL ? !pti_comm_check (ctx, comm, what, rank, &view, error)
                   : !pti_wsl_check_rank (ctx, what, rank, error))
    return FALSE;
  if (!check_name (what, rank, name, error))
    return FALSE;
  PtiFile f = file_by_name (ctx, name, hints);
  WslFile *wf = g_ptr_array_index (ctx->io_files, f);
  if (wf->state[rank] != CLOSED) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "%s on rank %u: file '%s' is already open on that rank", what, rank, name);
    return FALSE;
  }
  guint32 gather = PTI_ENGINE_IO_INDEPENDENT;
  guint n = 1;
  if (comm != NULL) {
    gather = pti_engine_io_gather (engine_of (ctx), ((guint64) comm->id << 32) | view.group);
    n = view.size;
  }
  if (!pti_engine_add_io (engine_of (ctx), rank, PTI_IO_OPEN, f, 0, 0, gather, n, error))
    return FALSE;
  wf->state[rank] = comm != NULL ? OPEN_TOGETHER : OPEN_ALONE;
  wf->gather[rank] = gather;
  wf->group_size[rank] = n;
  *file = f;
  return pti_wsl_appended (ctx, error);
}

gboolean
pti_io_open (PtiContext *ctx, guint rank, const char *name, const PtiIoHints *hints,
             PtiFile *file, GError **error)
{
  g_return_val_if_fail (ctx != NULL && file != NULL, FALSE);
  return open_common (ctx, NULL, rank, name, hints, file, error);
}

gboolean
pti_io_open_all (PtiContext *ctx, const PtiComm *comm, guint rank, const char *name,
                 const PtiIoHints *hints, PtiFile *file, GError **error)
{
  g_return_val_if_fail (ctx != NULL && file != NULL, FALSE);
  return open_common (ctx, comm != NULL ? comm : pti_comm_world (ctx), rank, name, hints, file,
                      error);
}

/* A request of @rank on @file, open on it (collectively if @collective). */
static gboolean
request (PtiContext *ctx, const char *what, guint rank, PtiFile file, PtiIoKind kind,
         gboolean collective, guint64 offset, guint64 bytes, GError **error)
{
  if (!pti_wsl_check_rank (ctx, what, rank, error))
    return FALSE;
  if (ctx->io_files == NULL || file >= ctx->io_files->len) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s on rank %u: no file %u was opened",
                 what, rank, file);
    return FALSE;
  }
  WslFile *wf = g_ptr_array_index (ctx->io_files, file);
  if (wf->state[rank] == CLOSED) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s on rank %u: file '%s' is not open on "
                 "that rank", what, rank, wf->name);
    return FALSE;
  }
  if (collective && wf->state[rank] != OPEN_TOGETHER) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s on rank %u: file '%s' was opened by "
                 "that rank alone (io_open); collective calls need io_open_all", what, rank,
                 wf->name);
    return FALSE;
  }
  gboolean together = collective || (kind == PTI_IO_CLOSE && wf->state[rank] == OPEN_TOGETHER);
  if (!pti_engine_add_io (engine_of (ctx), rank, kind, file, offset, bytes,
                          together ? wf->gather[rank] : PTI_ENGINE_IO_INDEPENDENT,
                          together ? wf->group_size[rank] : 1, error))
    return FALSE;
  if (kind == PTI_IO_CLOSE)
    wf->state[rank] = CLOSED;
  return pti_wsl_appended (ctx, error);
}

gboolean
pti_io_close (PtiContext *ctx, guint rank, PtiFile file, GError **error)
{
  g_return_val_if_fail (ctx != NULL, FALSE);
  return request (ctx, "io_close", rank, file, PTI_IO_CLOSE, FALSE, 0, 0, error);
}

gboolean
pti_io_write_at (PtiContext *ctx, guint rank, PtiFile file, guint64 offset, guint64 bytes,
                 GError **error)
{
  g_return_val_if_fail (ctx != NULL, FALSE);
  return request (ctx, "io_write_at", rank, file, PTI_IO_WRITE, FALSE, offset, bytes, error);
}

gboolean
pti_io_read_at (PtiContext *ctx, guint rank, PtiFile file, guint64 offset, guint64 bytes,
                GError **error)
{
  g_return_val_if_fail (ctx != NULL, FALSE);
  return request (ctx, "io_read_at", rank, file, PTI_IO_READ, FALSE, offset, bytes, error);
}

gboolean
pti_io_write_at_all (PtiContext *ctx, guint rank, PtiFile file, guint64 offset, guint64 bytes,
                     GError **error)
{
  g_return_val_if_fail (ctx != NULL, FALSE);
  return request (ctx, "io_write_at_all", rank, file, PTI_IO_WRITE, TRUE, offset, bytes, error);
}

gboolean
pti_io_read_at_all (PtiContext *ctx, guint rank, PtiFile file, guint64 offset, guint64 bytes,
                    GError **error)
{
  g_return_val_if_fail (ctx != NULL, FALSE);
  return request (ctx, "io_read_at_all", rank, file, PTI_IO_READ, TRUE, offset, bytes, error);
}

gboolean
pti_wsl_io_lookup (PtiContext *ctx, guint rank, const char *what, const char *name, PtiFile *file,
                   GError **error)
{
  guint known = ctx->io_names ? GPOINTER_TO_UINT (g_hash_table_lookup (ctx->io_names, name)) : 0;
  if (known == 0) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "%s on rank %u: no file '%s' was opened", what, rank, name);
    return FALSE;
  }
  *file = known - 1;
  return TRUE;
}
