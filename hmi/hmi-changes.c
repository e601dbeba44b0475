/* Change keys shared by models (hmi.h, PtiChangeKey): defined once here so
 * that every CPU model that scales with the processor's speed accepts the
 * same live changes, with the same words. */
#include "pti-config.h"
#include <pti/hmi.h>

const PtiChangeKey pti_cpu_timing_changes[] = {
  { "speed", PTI_CHANGE_SPEED, "a number > 0 (1 = as configured)",
    "node numbers of the computer, \"3\" or \"1-4\"; all its nodes without",
    "the node's computations progress at this factor of the speed their price assumes "
    "from the change's time on (0.5: they take twice as long)" },
  { "available", PTI_CHANGE_AVAILABLE, "0 (unavailable) or 1 (available)",
    "node numbers of the computer, \"3\" or \"1-4\"; all its nodes without",
    "while 0, the node's computations make no progress: one running stops and resumes where "
    "it was, one that begins waits, until 1 again" },
  { NULL, 0, NULL, NULL, NULL },
};
