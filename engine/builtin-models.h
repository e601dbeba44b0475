/* The models linked into pti.  Internal. */
#pragma once
#include <pti/hmi.h>

extern const PtiModelDesc pti_model_cpu_clc;
extern const PtiModelDesc pti_model_cpu_mem;
extern const PtiModelDesc pti_model_cpu_time;
extern const PtiModelDesc pti_model_net_node;
extern const PtiModelDesc pti_model_net_simple;
extern const PtiModelDesc pti_model_net_contention;
extern const PtiModelDesc pti_model_io_pfs;

/* NULL-terminated list, in registry order. */
extern const PtiModelDesc *const pti_builtin_models[];
/* Their schemas as the registry compiles them, in the same order: each
 * model's config_schema (its XSD file as installed) without xs:annotation,
 * comments and white space, which libxml2 would parse for nothing
 * (tools/embed-text.py --strip-xsd). */
extern const char *const pti_builtin_model_schemas[];
