/* Ping-pong: rank 0 computes, sends a message to rank 1, and rank 1 sends
 * it back.  The first program of the tutorial (wsl/README.md), which shows
 * this file whole; a test keeps the two identical.
 *
 *   pingpong [OPTIONS] SYSTEM.xml     -D bytes=N  -D rounds=N */
#include <pti/wsl.h>

/* What the computation does, as a RUD: a loop of N iterations, each a
 * double-precision multiply and add (MFDL, AFDL), plus the loop's own
 * branch, compare and increment (LFOR, CMLL, INLL). */
static const char work_rud[] =
  "<rud device='cpu'>"
  "  <loop iter='N' type='clc' of='LFOR,CMLL,INLL'>"
  "    <compute type='clc' of='MFDL,AFDL'/>"
  "  </loop>"
  "</rud>";

static gboolean
build (PtiContext *ctx, gpointer data, GError **error)
{
  if (!pti_context_declare_param (ctx, "bytes", 1024, error)       /* -D bytes=... */
      || !pti_context_declare_param (ctx, "rounds", 1, error)      /* -D rounds=... */
      || !pti_context_set_processes (ctx, 2, error))
    return FALSE;
  guint64 bytes = (guint64) pti_context_get_param (ctx, "bytes");
  guint rounds = (guint) pti_context_get_param (ctx, "rounds");

  g_autoptr (PtiRud) work = pti_rud_new (ctx, "work", work_rud, error);
  if (work == NULL || !pti_context_set_param (ctx, "N", 1e6, error))
    return FALSE;

  for (guint r = 0; r < rounds; r++) {
    if (!pti_use (ctx, 0, work, error)                    /* rank 0 computes, */
        || !pti_mpi_send (ctx, 0, 1, bytes, 0, error)     /* sends to rank 1, */
        || !pti_mpi_recv (ctx, 1, 0, bytes, 0, error)     /* which receives */
        || !pti_mpi_send (ctx, 1, 0, bytes, 0, error)     /* and answers; */
        || !pti_mpi_recv (ctx, 0, 1, bytes, 0, error))    /* rank 0 receives */
      return FALSE;
  }
  return TRUE;
}

int
main (int argc, char **argv)
{
  return pti_main (argc, argv, "pingpong", build, NULL);
}
