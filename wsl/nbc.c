/* Requests that are not the engine's alone: the null request a
 * PTI_PROC_NULL peer gives (complete already, as MPI_REQUEST_NULL), and
 * non-blocking collectives (collectives.c starts them; their algorithm and
 * its limits are described there and in wsl/COLLECTIVES.md).  A wait over
 * such requests waits, in one engine wait, for the engine's requests it
 * names and for everything the named collectives' calls posted; then it
 * makes the rest of each collective, in the order named. */
#include "coll-private.h"

static NbcRecord *
lookup (PtiCollState *st, guint rank, PtiRequest request)
{
  if (st == NULL || st->nbc == NULL)
    return NULL;
  guint64 key = NBC_KEY (rank, request);
  return g_hash_table_lookup (st->nbc, &key);
}

gboolean
pti_nbc_special (PtiContext *ctx, guint rank, guint n, const PtiRequest *requests)
{
  PtiCollState *st = ctx->coll;
  gboolean any_nbc = st != NULL && st->nbc != NULL && g_hash_table_size (st->nbc) > 0;
  for (guint i = 0; i < n; i++)
    if (requests[i] == PTI_REQUEST_NULL || (any_nbc && lookup (st, rank, requests[i]) != NULL))
      return TRUE;
  return FALSE;
}

gboolean
pti_nbc_wait (PtiContext *ctx, const char *what, guint rank, guint n, const PtiRequest *requests,
              gboolean any, GError **error)
{
  PtiCollState *st = ctx->coll;
  g_autoptr (GArray) engine_reqs = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr (GPtrArray) colls = g_ptr_array_new ();
  for (guint i = 0; i < n; i++) {
    if (requests[i] == PTI_REQUEST_NULL)
      continue;
    NbcRecord *rec = lookup (st, rank, requests[i]);
    if (rec == NULL) {
      g_array_append_val (engine_reqs, requests[i]);
      continue;
    }
    if (any) {
      g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                   "%s on rank %u: request %u is a non-blocking %s (call #%" G_GUINT64_FORMAT
                   " on communicator '%s'), which pti completes with wait or waitall only: which "
                   "request a waitany completes is known at evaluation, the rest of a "
                   "collective must be made before", what, rank, requests[i],
                   pti_coll_kind_name (rec->kind | COLL_NB), rec->call + 1, rec->comm->name);
      return FALSE;
    }
    if (g_ptr_array_find (colls, rec, NULL)) {
      g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                   "%s on rank %u: request %u (a non-blocking %s) is named twice", what, rank,
                   requests[i], pti_coll_kind_name (rec->kind | COLL_NB));
      return FALSE;
    }
    g_array_append_vals (engine_reqs, rec->reqs, rec->n_reqs);
    g_ptr_array_add (colls, rec);
  }
  /* MPI_Waitany over null requests only returns at once (MPI_UNDEFINED),
   * and a wait for nothing takes no time: no event either way. */
  if (engine_reqs->len > 0) {
    if (!pti_engine_add_wait (pti_session_engine (pti_wsl_session (ctx)),
                              any ? PTI_OP_WAITANY : PTI_OP_WAITALL, rank, engine_reqs->len,
                              (const guint32 *) engine_reqs->data, error)) {
      g_prefix_error (error, "%s: ", what);
      return FALSE;
    }
    if (!pti_wsl_appended (ctx, error))
      return FALSE;
  }
  for (guint i = 0; i < colls->len; i++)
    if (!pti_coll_nbc_finish (ctx, g_ptr_array_index (colls, i), error))
      return FALSE;
  /* Forget them only now: an error above leaves the context to be freed. */
  for (guint i = 0; i < n; i++) {
    guint64 key = NBC_KEY (rank, requests[i]);
    if (requests[i] != PTI_REQUEST_NULL && st != NULL && st->nbc != NULL)
      g_hash_table_remove (st->nbc, &key);
  }
  return TRUE;
}

/* ---- the calls ---------------------------------------------------------------- */

gboolean
pti_mpi_ibarrier_comm (PtiContext *ctx, const PtiComm *comm, guint rank, PtiRequest *request,
                       GError **error)
{
  return pti_coll_istart (ctx, comm, COLL_BARRIER, rank, 0, 0, NULL, NULL, request, error);
}

gboolean
pti_mpi_ibarrier (PtiContext *ctx, guint rank, PtiRequest *request, GError **error)
{
  return pti_mpi_ibarrier_comm (ctx, NULL, rank, request, error);
}

gboolean
pti_mpi_ibcast_comm (PtiContext *ctx, const PtiComm *comm, guint rank, guint root, guint64 bytes,
                     PtiRequest *request, GError **error)
{
  return pti_coll_istart (ctx, comm, COLL_BCAST, rank, root, bytes, NULL, NULL, request, error);
}

gboolean
pti_mpi_ibcast (PtiContext *ctx, guint rank, guint root, guint64 bytes, PtiRequest *request,
                GError **error)
{
  return pti_mpi_ibcast_comm (ctx, NULL, rank, root, bytes, request, error);
}

gboolean
pti_mpi_ireduce_comm (PtiContext *ctx, const PtiComm *comm, guint rank, guint root, guint64 bytes,
                      PtiRequest *request, GError **error)
{
  return pti_coll_istart (ctx, comm, COLL_REDUCE, rank, root, bytes, NULL, NULL, request, error);
}

gboolean
pti_mpi_ireduce (PtiContext *ctx, guint rank, guint root, guint64 bytes, PtiRequest *request,
                 GError **error)
{
  return pti_mpi_ireduce_comm (ctx, NULL, rank, root, bytes, request, error);
}

gboolean
pti_mpi_iallreduce_comm (PtiContext *ctx, const PtiComm *comm, guint rank, guint64 bytes,
                         PtiRequest *request, GError **error)
{
  return pti_coll_istart (ctx, comm, COLL_ALLREDUCE, rank, 0, bytes, NULL, NULL, request, error);
}

gboolean
pti_mpi_iallreduce (PtiContext *ctx, guint rank, guint64 bytes, PtiRequest *request, GError **error)
{
  return pti_mpi_iallreduce_comm (ctx, NULL, rank, bytes, request, error);
}

gboolean
pti_mpi_igather_comm (PtiContext *ctx, const PtiComm *comm, guint rank, guint root, guint64 bytes,
                      PtiRequest *request, GError **error)
{
  return pti_coll_istart (ctx, comm, COLL_GATHER, rank, root, bytes, NULL, NULL, request, error);
}

gboolean
pti_mpi_igather (PtiContext *ctx, guint rank, guint root, guint64 bytes, PtiRequest *request,
                 GError **error)
{
  return pti_mpi_igather_comm (ctx, NULL, rank, root, bytes, request, error);
}

gboolean
pti_mpi_iscatter_comm (PtiContext *ctx, const PtiComm *comm, guint rank, guint root, guint64 bytes,
                       PtiRequest *request, GError **error)
{
  return pti_coll_istart (ctx, comm, COLL_SCATTER, rank, root, bytes, NULL, NULL, request, error);
}

gboolean
pti_mpi_iscatter (PtiContext *ctx, guint rank, guint root, guint64 bytes, PtiRequest *request,
                  GError **error)
{
  return pti_mpi_iscatter_comm (ctx, NULL, rank, root, bytes, request, error);
}

gboolean
pti_mpi_iallgather_comm (PtiContext *ctx, const PtiComm *comm, guint rank, guint64 bytes,
                         PtiRequest *request, GError **error)
{
  return pti_coll_istart (ctx, comm, COLL_ALLGATHER, rank, 0, bytes, NULL, NULL, request, error);
}

gboolean
pti_mpi_iallgather (PtiContext *ctx, guint rank, guint64 bytes, PtiRequest *request, GError **error)
{
  return pti_mpi_iallgather_comm (ctx, NULL, rank, bytes, request, error);
}

gboolean
pti_mpi_ialltoall_comm (PtiContext *ctx, const PtiComm *comm, guint rank, guint64 bytes,
                        PtiRequest *request, GError **error)
{
  return pti_coll_istart (ctx, comm, COLL_ALLTOALL, rank, 0, bytes, NULL, NULL, request, error);
}

gboolean
pti_mpi_ialltoall (PtiContext *ctx, guint rank, guint64 bytes, PtiRequest *request, GError **error)
{
  return pti_mpi_ialltoall_comm (ctx, NULL, rank, bytes, request, error);
}

gboolean
pti_mpi_ialltoallv_comm (PtiContext *ctx, const PtiComm *comm, guint rank,
                         const guint64 *send_bytes, const guint64 *recv_bytes, PtiRequest *request,
                         GError **error)
{
  return pti_coll_istart (ctx, comm, COLL_ALLTOALLV, rank, 0, 0, send_bytes, recv_bytes, request,
                          error);
}

gboolean
pti_mpi_ialltoallv (PtiContext *ctx, guint rank, const guint64 *send_bytes,
                    const guint64 *recv_bytes, PtiRequest *request, GError **error)
{
  return pti_mpi_ialltoallv_comm (ctx, NULL, rank, send_bytes, recv_bytes, request, error);
}

gboolean
pti_mpi_iscan_comm (PtiContext *ctx, const PtiComm *comm, guint rank, guint64 bytes,
                    PtiRequest *request, GError **error)
{
  return pti_coll_istart (ctx, comm, COLL_SCAN, rank, 0, bytes, NULL, NULL, request, error);
}

gboolean
pti_mpi_iscan (PtiContext *ctx, guint rank, guint64 bytes, PtiRequest *request, GError **error)
{
  return pti_mpi_iscan_comm (ctx, NULL, rank, bytes, request, error);
}

gboolean
pti_mpi_iexscan_comm (PtiContext *ctx, const PtiComm *comm, guint rank, guint64 bytes,
                      PtiRequest *request, GError **error)
{
  return pti_coll_istart (ctx, comm, COLL_EXSCAN, rank, 0, bytes, NULL, NULL, request, error);
}

gboolean
pti_mpi_iexscan (PtiContext *ctx, guint rank, guint64 bytes, PtiRequest *request, GError **error)
{
  return pti_mpi_iexscan_comm (ctx, NULL, rank, bytes, request, error);
}

gboolean
pti_mpi_ireduce_scatter_comm (PtiContext *ctx, const PtiComm *comm, guint rank,
                              const guint64 *recv_bytes, PtiRequest *request, GError **error)
{
  return pti_coll_istart (ctx, comm, COLL_REDUCE_SCATTER, rank, 0, 0, NULL, recv_bytes, request,
                          error);
}

gboolean
pti_mpi_ireduce_scatter (PtiContext *ctx, guint rank, const guint64 *recv_bytes,
                         PtiRequest *request, GError **error)
{
  return pti_mpi_ireduce_scatter_comm (ctx, NULL, rank, recv_bytes, request, error);
}

gboolean
pti_mpi_ireduce_scatter_block_comm (PtiContext *ctx, const PtiComm *comm, guint rank, guint64 bytes,
                                    PtiRequest *request, GError **error)
{
  return pti_coll_istart (ctx, comm, COLL_REDUCE_SCATTER_BLOCK, rank, 0, bytes, NULL, NULL, request,
                          error);
}

gboolean
pti_mpi_ireduce_scatter_block (PtiContext *ctx, guint rank, guint64 bytes, PtiRequest *request,
                               GError **error)
{
  return pti_mpi_ireduce_scatter_block_comm (ctx, NULL, rank, bytes, request, error);
}

gboolean
pti_mpi_igatherv_comm (PtiContext *ctx, const PtiComm *comm, guint rank, guint root,
                       guint64 send_bytes, const guint64 *recv_bytes, PtiRequest *request,
                       GError **error)
{
  return pti_coll_istart (ctx, comm, COLL_GATHERV, rank, root, send_bytes, NULL, recv_bytes,
                          request, error);
}

gboolean
pti_mpi_igatherv (PtiContext *ctx, guint rank, guint root, guint64 send_bytes,
                  const guint64 *recv_bytes, PtiRequest *request, GError **error)
{
  return pti_mpi_igatherv_comm (ctx, NULL, rank, root, send_bytes, recv_bytes, request, error);
}

gboolean
pti_mpi_iscatterv_comm (PtiContext *ctx, const PtiComm *comm, guint rank, guint root,
                        const guint64 *send_bytes, guint64 recv_bytes, PtiRequest *request,
                        GError **error)
{
  return pti_coll_istart (ctx, comm, COLL_SCATTERV, rank, root, recv_bytes, send_bytes, NULL,
                          request, error);
}

gboolean
pti_mpi_iscatterv (PtiContext *ctx, guint rank, guint root, const guint64 *send_bytes,
                   guint64 recv_bytes, PtiRequest *request, GError **error)
{
  return pti_mpi_iscatterv_comm (ctx, NULL, rank, root, send_bytes, recv_bytes, request, error);
}

gboolean
pti_mpi_iallgatherv_comm (PtiContext *ctx, const PtiComm *comm, guint rank,
                          const guint64 *recv_bytes, PtiRequest *request, GError **error)
{
  return pti_coll_istart (ctx, comm, COLL_ALLGATHERV, rank, 0, 0, NULL, recv_bytes, request, error);
}

gboolean
pti_mpi_iallgatherv (PtiContext *ctx, guint rank, const guint64 *recv_bytes, PtiRequest *request,
                     GError **error)
{
  return pti_mpi_iallgatherv_comm (ctx, NULL, rank, recv_bytes, request, error);
}
