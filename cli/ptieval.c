/* ptieval: predict a workload file on a system.
 *   ptieval [OPTIONS] SYSTEM.xml WORKLOAD   (a workload file or a trace: wsl/REPLAY.md)
 * The options and output are the WSL driver's (wsl/driver.c), shared with C
 * workload programs so both behave the same. */
#include "wsl-private.h"

int
main (int argc, char **argv)
{
  PtiDriver d = { .program = "ptieval", .workload_file = TRUE };
  return pti_driver_main (&d, argc, argv);
}
