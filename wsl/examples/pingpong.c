/* A ping-pong after a computation: the example of wsl/README.md (keep the
 * two identical).  pingpong [OPTIONS] SYSTEM.xml  -D bytes=N */
#include <pti/wsl.h>

static gboolean
build (PtiContext *ctx, gpointer data, GError **error)
{
  if (!pti_context_declare_param (ctx, "bytes", 1024, error)     /* -D bytes=... */
      || !pti_context_set_processes (ctx, 2, error))
    return FALSE;
  guint64 n = (guint64) pti_context_get_param (ctx, "bytes");
  g_autoptr (PtiRud) work = pti_rud_new (ctx, "work",
      "<rud device='cpu'><loop iter='N' type='clc' of='LFOR,CMLL,INLL'>"
      "<compute type='clc' of='MFDL,AFDL'/></loop></rud>", error);
  return work != NULL
      && pti_context_set_param (ctx, "N", 1e6, error)   /* the RUD's dynamic parameter */
      && pti_use (ctx, 0, work, error)                   /* rank 0 computes ... */
      && pti_mpi_send (ctx, 0, 1, n, 0, error)           /* ... and sends */
      && pti_mpi_recv (ctx, 1, 0, n, 0, error)
      && pti_mpi_send (ctx, 1, 0, n, 0, error)           /* rank 1 answers */
      && pti_mpi_recv (ctx, 0, 1, n, 0, error);
}

int
main (int argc, char **argv)
{
  return pti_main (argc, argv, "pingpong", build, NULL);
}
