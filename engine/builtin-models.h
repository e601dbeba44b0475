/* The models linked into pti.  Internal. */
#pragma once
#include <pti/hmi.h>

extern const PtiModelDesc pti_model_cpu_clc;
extern const PtiModelDesc pti_model_cpu_mem;
extern const PtiModelDesc pti_model_cpu_time;
extern const PtiModelDesc pti_model_net_simple;
extern const PtiModelDesc pti_model_net_contention;
extern const PtiModelDesc pti_model_io_pfs;

/* NULL-terminated list, in registry order. */
extern const PtiModelDesc *const pti_builtin_models[];
