#include "builtin-models.h"

const PtiModelDesc *const pti_builtin_models[] = {
  &pti_model_cpu_clc,
  &pti_model_cpu_mem,
  &pti_model_cpu_time,
  &pti_model_io_pfs,
  &pti_model_net_contention,
  &pti_model_net_simple,
  NULL,
};
