/* A 2-D halo exchange: the second program of the tutorial (wsl/README.md).
 *
 * A Jacobi-style solver on a grid of px x py processes, each owning nx x ny
 * cells of doubles.  Every step, each process updates its cells (a
 * five-point stencil), swaps its boundary rows and columns with its four
 * neighbours, and joins an allreduce of one double (the residual).
 *
 *   halo2d [OPTIONS] SYSTEM.xml     -D px=4 -D py=4 -D nx=256 -D ny=256 -D steps=100 */
#include <pti/wsl.h>

/* One step's computation on one process.  Per cell: four neighbours read
 * from a 2-D array (ARF2), three adds, a multiply by 1/4, a store (TFDL),
 * inside two loops whose headers count their own branch, compare and
 * increment.  nx and ny are the workload's parameters: the RUD reads their
 * values when it is used. */
static const char stencil_rud[] =
  "<rud device='cpu'>"
  "  <loop iter='ny' type='clc' of='LFOR,CMLL,INLL'>"
  "    <loop iter='nx' type='clc' of='LFOR,CMLL,INLL'>"
  "      <compute type='clc' of='4*ARF2,3*AFDL,MFDL,TFDL'/>"
  "    </loop>"
  "  </loop>"
  "</rud>";

/* Swaps halos along one line of @n processes, in which this @rank sits at
 * position @pos and its neighbours are @stride ranks away.  Two phases pair
 * the neighbours (0,1) (2,3) ... and then (1,2) (3,4) ...; in each pair the
 * left one sends first and the right one receives first.  Blocking sends
 * then never wait on each other in a cycle, even for messages long enough
 * to use the rendezvous protocol. */
static gboolean
swap_halos (PtiContext *ctx, guint rank, guint pos, guint n, guint stride, guint64 bytes,
            GError **error)
{
  for (guint phase = 0; phase < 2; phase++) {
    if (pos % 2 == phase && pos + 1 < n) {          /* left of a pair */
      if (!pti_mpi_send (ctx, rank, rank + stride, bytes, 0, error)
          || !pti_mpi_recv (ctx, rank, rank + stride, bytes, 0, error))
        return FALSE;
    } else if (pos % 2 != phase && pos >= 1) {      /* right of a pair */
      if (!pti_mpi_recv (ctx, rank, rank - stride, bytes, 0, error)
          || !pti_mpi_send (ctx, rank, rank - stride, bytes, 0, error))
        return FALSE;
    }
  }
  return TRUE;
}

static gboolean
build (PtiContext *ctx, gpointer data, GError **error)
{
  if (!pti_context_declare_param (ctx, "px", 4, error)        /* processes in x */
      || !pti_context_declare_param (ctx, "py", 4, error)     /* processes in y */
      || !pti_context_declare_param (ctx, "nx", 256, error)   /* cells per process in x */
      || !pti_context_declare_param (ctx, "ny", 256, error)   /* cells per process in y */
      || !pti_context_declare_param (ctx, "steps", 100, error))
    return FALSE;
  guint px = (guint) pti_context_get_param (ctx, "px");
  guint py = (guint) pti_context_get_param (ctx, "py");
  guint64 nx = (guint64) pti_context_get_param (ctx, "nx");
  guint64 ny = (guint64) pti_context_get_param (ctx, "ny");
  guint steps = (guint) pti_context_get_param (ctx, "steps");
  if (!pti_context_set_processes (ctx, px * py, error))
    return FALSE;

  g_autoptr (PtiRud) stencil = pti_rud_new (ctx, "stencil", stencil_rud, error);
  if (stencil == NULL)
    return FALSE;

  /* Rank r is at (i, j) = (r % px, r / px): x neighbours are 1 rank away,
   * y neighbours px ranks.  A halo is a column (ny doubles) or a row (nx). */
  for (guint r = 0; r < px * py; r++) {
    for (guint s = 0; s < steps; s++) {
      if (!pti_use (ctx, r, stencil, error)
          || !swap_halos (ctx, r, r % px, px, 1, ny * sizeof (double), error)
          || !swap_halos (ctx, r, r / px, py, px, nx * sizeof (double), error)
          || !pti_mpi_allreduce (ctx, r, sizeof (double), error))
        return FALSE;
    }
  }
  return TRUE;
}

int
main (int argc, char **argv)
{
  return pti_main (argc, argv, "halo2d", build, NULL);
}
