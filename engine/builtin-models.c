#include "builtin-models.h"

const PtiModelDesc *const pti_builtin_models[] = {
  &pti_model_cpu_clc,
  &pti_model_cpu_mem,
  &pti_model_cpu_time,
  &pti_model_io_pfs,
  &pti_model_net_contention,
  &pti_model_net_node,
  &pti_model_net_simple,
  NULL,
};

extern const char pti_cpu_clc_xsd_stripped[], pti_cpu_mem_xsd_stripped[],
  pti_cpu_time_xsd_stripped[], pti_io_pfs_xsd_stripped[], pti_net_contention_xsd_stripped[],
  pti_net_node_xsd_stripped[], pti_net_simple_xsd_stripped[];

const char *const pti_builtin_model_schemas[] = {
  pti_cpu_clc_xsd_stripped,
  pti_cpu_mem_xsd_stripped,
  pti_cpu_time_xsd_stripped,
  pti_io_pfs_xsd_stripped,
  pti_net_contention_xsd_stripped,
  pti_net_node_xsd_stripped,
  pti_net_simple_xsd_stripped,
};
G_STATIC_ASSERT (G_N_ELEMENTS (pti_builtin_model_schemas) + 1 == G_N_ELEMENTS (pti_builtin_models));
