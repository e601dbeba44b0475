/* Collectives expanded into point-to-point messages, so the network model
 * sees the real traffic.  Each rank's share is derived from its rank alone,
 * which is what lets a workload program emit ranks one after another.
 *
 * Binomial tree broadcast (as MPICH's MPIR_Bcast_binomial): with v the rank
 * relative to the root, a rank receives from v - 2^k where 2^k is v's lowest
 * set bit, then sends to v + 2^j for every 2^j below that bit (largest
 * first), so P ranks are reached in ceil(log2 P) rounds.  The binomial
 * reduce is its mirror image.  Allreduce and barrier are a reduce to rank 0
 * followed by a broadcast from it (a barrier carries 0 bytes).  The
 * reduction's arithmetic is not priced yet. */
#include "wsl-private.h"

static gboolean
bcast (PtiContext *ctx, guint rank, guint root, guint64 bytes, GError **error)
{
  guint p = pti_context_get_processes (ctx);
  guint v = (rank + p - root) % p;
  guint mask = 1;
  while (mask < p) {
    if (v & mask) {
      if (!pti_wsl_collective_recv (ctx, rank, (v - mask + root) % p, bytes, error))
        return FALSE;
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (v + mask < p && !pti_wsl_collective_send (ctx, rank, (v + mask + root) % p, bytes, error))
      return FALSE;
  return TRUE;
}

static gboolean
reduce (PtiContext *ctx, guint rank, guint root, guint64 bytes, GError **error)
{
  guint p = pti_context_get_processes (ctx);
  guint v = (rank + p - root) % p;
  for (guint mask = 1; mask < p; mask <<= 1) {
    if (v & mask)
      return pti_wsl_collective_send (ctx, rank, ((v & ~mask) + root) % p, bytes, error);
    if ((v | mask) < p && !pti_wsl_collective_recv (ctx, rank, ((v | mask) + root) % p, bytes, error))
      return FALSE;
  }
  return TRUE;
}

gboolean
pti_mpi_bcast (PtiContext *ctx, guint rank, guint root, guint64 bytes, GError **error)
{
  if (!pti_wsl_check_collective (ctx, "bcast", rank, error)
      || !pti_wsl_check_collective (ctx, "bcast root", root, error))
    return FALSE;
  return bcast (ctx, rank, root, bytes, error);
}

gboolean
pti_mpi_reduce (PtiContext *ctx, guint rank, guint root, guint64 bytes, GError **error)
{
  if (!pti_wsl_check_collective (ctx, "reduce", rank, error)
      || !pti_wsl_check_collective (ctx, "reduce root", root, error))
    return FALSE;
  return reduce (ctx, rank, root, bytes, error);
}

gboolean
pti_mpi_allreduce (PtiContext *ctx, guint rank, guint64 bytes, GError **error)
{
  return pti_wsl_check_collective (ctx, "allreduce", rank, error)
         && reduce (ctx, rank, 0, bytes, error) && bcast (ctx, rank, 0, bytes, error);
}

gboolean
pti_mpi_barrier (PtiContext *ctx, guint rank, GError **error)
{
  return pti_wsl_check_collective (ctx, "barrier", rank, error)
         && reduce (ctx, rank, 0, 0, error) && bcast (ctx, rank, 0, 0, error);
}
