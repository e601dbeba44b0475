/* pti hardware model interface (HMI): what a model author includes.
 *
 * A model is a descriptor (PtiModelDesc) plus an ops table for its family.
 * The engine links built-in models in; third-party models are shared objects
 * found on the model path that export one symbol, `pti_model_describe`
 * (see PTI_MODEL_DEFINE).  The engine checks `abi_version` and `struct_size`
 * before it calls anything in a model.
 *
 * Ownership, in one place:
 *  - descriptors, ops tables, strings in them: owned by the model, static;
 *  - instance memory: allocated zero-filled by the engine (`instance_size`
 *    bytes), freed by the engine after `finalize`; a model frees only what it
 *    allocated itself inside `configure`;
 *  - configuration nodes passed to `configure` and RUD nodes passed to
 *    `rud_compile`: borrowed for the call only; copy what you keep;
 *  - a compiled RUD returned by `rud_compile`: owned by the engine, released
 *    with the model's `rud_free`.
 *
 * Hot path (called once per event, must not allocate or parse): PtiCpuOps.cost,
 * PtiNetOps.send_overhead / recv_overhead / transfer / flow_start / flow_next
 * / flow_advance, PtiNetSink's callbacks, pti_expr_eval.  Also
 * PtiModelDesc.reconfigure with apply TRUE (once per scheduled change).
 * Everything else runs at load time.
 */
#pragma once

#include <glib.h>
#include <libxml/tree.h>

#ifndef PTI_API
#  if defined(_WIN32)
#  define PTI_API __declspec(dllexport)
#  else
#  define PTI_API __attribute__((visibility("default")))
#  endif
#endif

#define PTI_HMI_INSIDE
#include <pti/expr.h>
#undef PTI_HMI_INSIDE

G_BEGIN_DECLS


/**
 * PTI_HMI_ABI_VERSION:
 *
 * Bumped on any incompatible change to PtiModelDesc or an ops table.  A model
 * whose `abi_version` differs is refused.  Fields are only ever appended to
 * the descriptor and ops tables; `struct_size` / `version` tell the engine
 * which of them a model knows.
 */
#define PTI_HMI_ABI_VERSION 1u

/* ---- errors ------------------------------------------------------------ */

/**
 * PTI_ERROR:
 *
 * The GError domain of every recoverable pti error (engine, WSL and models).
 */
#define PTI_ERROR (pti_error_quark ())
PTI_API GQuark pti_error_quark (void);

/**
 * PtiError:
 * @PTI_ERROR_INVALID: the input is wrong: malformed XML, a schema violation,
 *   an unknown name, an unbound parameter, a bad expression, a rank out of
 *   range.  ptieval exits with 3.
 * @PTI_ERROR_DEADLOCK: the workload cannot finish (exit 3).
 * @PTI_ERROR_MODEL: a model refused to load (ABI, missing symbol) or failed
 *   at run time (exit 3 when loading, else 1).
 * @PTI_ERROR_USAGE: a command-line mistake (exit 2).
 * @PTI_ERROR_IO: a file could not be read or written (exit 1).
 * @PTI_ERROR_FAILED: anything else (exit 1).
 */
typedef enum {
  PTI_ERROR_INVALID = 1,
  PTI_ERROR_DEADLOCK,
  PTI_ERROR_MODEL,
  PTI_ERROR_USAGE,
  PTI_ERROR_IO,
  PTI_ERROR_FAILED,
} PtiError;

/* ---- configuration helpers -------------------------------------------- */
/* Typed readers over a model's configuration element (already validated
 * against the model's schema when `configure` sees it).  Each names the file
 * and line of the offending element in its error. */

/**
 * pti_config_child:
 * @parent: a configuration element
 * @name: the local name of a child element
 *
 * Returns: (transfer none) (nullable): the first child element called @name.
 */
PTI_API const xmlNode *pti_config_child (const xmlNode *parent, const char *name);

/**
 * pti_config_get_double:
 * @parent: a configuration element
 * @name: child element whose text is a number
 * @out: (out): the value
 *
 * Returns: FALSE with @error set if the child is missing or not a finite number.
 */
PTI_API gboolean pti_config_get_double (const xmlNode *parent, const char *name,
                                        double *out, GError **error);

/**
 * pti_config_get_time:
 * @parent: a configuration element
 * @name: child element with a number and a required `unit` attribute
 *   (one of `s`, `ms`, `us`, `ns`, `ps`)
 * @seconds: (out): the value in seconds
 *
 * A unit is never guessed: a missing or unknown `unit` is an error.
 */
PTI_API gboolean pti_config_get_time (const xmlNode *parent, const char *name,
                                      double *seconds, GError **error);

/**
 * pti_config_get_bandwidth:
 * @parent: a configuration element
 * @name: child element with a number and a required `unit` attribute
 *   (`B/s`, `KB/s`, `MB/s`, `GB/s` decimal bytes; `b/s`, `Kb/s`, `Mb/s`, `Gb/s` bits)
 * @bytes_per_second: (out): the value in bytes per second
 */
PTI_API gboolean pti_config_get_bandwidth (const xmlNode *parent, const char *name,
                                           double *bytes_per_second, GError **error);

/**
 * pti_config_get_bytes:
 * @parent: a configuration element
 * @name: child element with a whole number and an optional `unit` attribute
 *   (`B` default, `KiB`, `MiB`, `KB`, `MB`)
 * @bytes: (out): the value in bytes
 */
PTI_API gboolean pti_config_get_bytes (const xmlNode *parent, const char *name,
                                       guint64 *bytes, GError **error);

/**
 * pti_parse_time:
 * @text: a number and a time unit, e.g. "250us", "1.5 ms"
 * @seconds: (out): the value in seconds
 *
 * For values given as strings (live changes, reconfigure).
 * Returns: FALSE with @error naming @text and the known units.
 */
PTI_API gboolean pti_parse_time (const char *text, double *seconds, GError **error);

/**
 * pti_parse_bandwidth:
 * @text: a number and a bandwidth unit, e.g. "1.28Gb/s", "160 MB/s"
 * @bytes_per_second: (out): the value in bytes per second (> 0)
 */
PTI_API gboolean pti_parse_bandwidth (const char *text, double *bytes_per_second,
                                      GError **error);

/**
 * pti_node_error:
 * @error: (out) (optional): where to put the error
 * @node: the element the error is about; its document URL and line are named
 * @format: printf-style message
 *
 * Sets a PTI_ERROR_INVALID error prefixed with `FILE:LINE: <element>: `.
 * Always returns FALSE, so `return pti_node_error (...)` reads well.
 */
PTI_API gboolean pti_node_error (GError **error, const xmlNode *node,
                                 const char *format, ...) G_GNUC_PRINTF (3, 4);

/* ---- model descriptor --------------------------------------------------- */

/**
 * PtiModelParam:
 *
 * One documented configuration parameter, printed by `ptieval --model-info`.
 */
typedef struct {
  const char *name;          /* element name inside the model's config element */
  const char *unit;          /* e.g. "s (unit attribute)", "bytes"; NULL if none */
  const char *default_value; /* NULL if required */
  const char *description;   /* one sentence */
} PtiModelParam;

/**
 * PtiTraceRecordDesc:
 *
 * A record type a model may add to the output trace, in the model's own XML
 * namespace.  Declared up front so the trace header can list every record
 * type before any appears, and converters can work from the header alone.
 */
typedef struct {
  const char *name;        /* element name, e.g. "ba" */
  const char *fields;      /* space-separated attribute names, e.g. "time msg bytes_per_s" */
  const char *description; /* one sentence, with units */
} PtiTraceRecordDesc;

/**
 * PtiCpuOps:
 *
 * Operations of a CPU cost model: it compiles a CPU RUD once and prices it
 * many times with the current parameter values (stage 1 of the evaluation).
 */
typedef struct {
  guint32 version; /* PTI_CPU_OPS_VERSION; a version-1 table has every field below */
  /* Compile a `<rud device="cpu">` element.  Names used in expressions are
   * interned in @symbols.  Called once per RUD, never per event.
   * Returns (transfer full) an opaque compiled form, or NULL with @error. */
  gpointer (*rud_compile) (const xmlNode *rud, PtiSymbols *symbols, GError **error);
  /* Release what rud_compile returned. */
  void (*rud_free) (gpointer compiled);
  /* Hot path: the time in seconds one use of @compiled takes on the CPU that
   * @instance describes, with parameter values from @values.  Must not
   * allocate except to report an error (an unbound parameter, a negative or
   * non-finite result), which it must name. */
  gboolean (*cost) (gconstpointer instance, gconstpointer compiled,
                    const PtiSymbols *values, double *seconds, GError **error);
  /* Optional (NULL: every use is priced).  The slots whose values, with the
   * instance's configuration, fully determine cost(): the engine reuses the
   * last price of @compiled on an instance while none of them has changed,
   * which saves re-evaluating a RUD in the many uses that repeat it.
   * (transfer none), valid as long as @compiled. */
  const guint *(*rud_slots) (gconstpointer compiled, guint *n_slots);
} PtiCpuOps;
#define PTI_CPU_OPS_VERSION 1u

/**
 * PtiTransfer:
 *
 * What a network model says about one message.
 */
typedef struct {
  double injected; /* s: the sender's last byte has left (its buffer is free) */
  double arrived;  /* s: the last byte is at the receiver */
} PtiTransfer;

/**
 * PtiFlow:
 *
 * One message (or rendezvous control message) handed to a resource network
 * model (see PtiNetOps.flow_start).  Borrowed for the call only.
 */
typedef struct {
  guint32 src_port, dst_port; /* 1-based ports of the model's network */
  guint64 bytes;              /* 0 for a rendezvous request or answer */
  guint64 msg;                /* the message id the trace shows (both ends carry it) */
  gpointer cookie;            /* the engine's: give it back in PtiNetSink.flow_done */
} PtiFlow;

/**
 * PtiNetSink:
 *
 * How a resource model talks back to the engine during stage 2.  Owned by
 * the engine; valid for the duration of the call it is passed to.
 */
typedef struct {
  gpointer host;
  /* A flow has left its source at @injected (s, the current time of the
   * call) and will arrive at @arrived (>= @injected).  Call it for every
   * flow exactly once, from flow_advance, reconfigure or (for a flow with
   * nothing to wait for) flow_start itself. */
  void (*flow_done) (gpointer host, gpointer cookie, double injected, double arrived);
  /* Emit one trace record of the model's type @type (an index into
   * PtiModelDesc.records), its field values as strings in the order the
   * record declares them.  NULL when no trace is written: then skip the
   * work of making records.  The engine copies the strings. */
  void (*record) (gpointer host, guint type, const char *const *values);
} PtiNetSink;

/**
 * PtiNetOps:
 *
 * Operations of a network model.  Two kinds of network models exist:
 *
 *  - cost models (net-simple) price a message when it starts, with
 *    `transfer`, from the message alone;
 *  - resource models (net-contention) take part in stage 2: they are told
 *    when a flow starts (`flow_start`), tell the engine when the next flow
 *    may end (`flow_next`), are advanced to that time (`flow_advance`) and
 *    report the flows that ended through PtiNetSink.flow_done.  A flow's
 *    duration then depends on every other flow in flight.
 *
 * A resource model sets all three flow_* fields; `transfer` is then never
 * called and may be NULL.  The engine calls `transfer`, `flow_start` and
 * `flow_advance` with non-decreasing times, so a model may keep state
 * between calls (LogGP's gap, flows in flight).
 */
typedef struct {
  guint32 version; /* PTI_NET_OPS_VERSION as built; version 1 ends after transfer */
  /* CPU time in s the sender spends in the message layer per message. */
  double (*send_overhead) (gconstpointer instance, guint64 bytes);
  /* CPU time in s the receiver spends per message after it has arrived. */
  double (*recv_overhead) (gconstpointer instance, guint64 bytes);
  /* Largest message (bytes) sent eagerly; larger ones use rendezvous. */
  guint64 (*eager_limit) (gconstpointer instance);
  /* Cost models: price moving @bytes from network port @src_port to
   * @dst_port, the first byte entering the network at @start (s).  Control
   * messages of the rendezvous protocol are transfers of 0 bytes. */
  void (*transfer) (gpointer instance, guint32 src_port, guint32 dst_port,
                    guint64 bytes, double start, PtiTransfer *out);

  /* ---- version 2 ---- */

  /* Optional.  Forget every message of an earlier evaluation (the gap state,
   * flows in flight): called before the first message of an evaluation. */
  void (*reset) (gpointer instance);
  /* Optional.  The number of ports the network has (ports are 1..n), so the
   * system loader can refuse a <connect> to a port that does not exist.
   * 0 or NULL: any port. */
  guint32 (*port_count) (gconstpointer instance);
  /* Resource models: a flow enters the network now (@now in s). */
  void (*flow_start) (gpointer instance, const PtiFlow *flow, double now,
                      const PtiNetSink *sink);
  /* Resource models: the earliest time (s) at which a flow in flight may
   * end, INFINITY if none is in flight.  Hot path; must be cheap. */
  double (*flow_next) (gconstpointer instance);
  /* Resource models: move the model's clock to @now (>= every earlier time
   * it was given) and report through @sink every flow that has ended. */
  void (*flow_advance) (gpointer instance, double now, const PtiNetSink *sink);
} PtiNetOps;
#define PTI_NET_OPS_VERSION 2u

/* TRUE if @ops describes a resource (flow-level) network model. */
#define PTI_NET_OPS_HAS_FLOWS(ops)                                            \
  ((ops)->version >= 2u && (ops)->flow_start != NULL && (ops)->flow_next != NULL \
   && (ops)->flow_advance != NULL)

/**
 * PtiModelDesc:
 *
 * Everything the engine knows about a model.  Exactly one of @cpu or @net is
 * set, according to @kind.
 */
typedef struct {
  guint32 abi_version;             /* PTI_HMI_ABI_VERSION as built */
  guint32 struct_size;             /* sizeof (PtiModelDesc) as built */
  const char *name;                /* "cpu-clc": [a-z0-9-]+, unique */
  const char *kind;                /* "cpu" or "network" */
  const char *config_element;      /* the HMC element that selects and configures it, "cpu_clc" */
  const char *summary;             /* one line */
  const char *description;         /* paragraphs: equations, units, references */
  const char *config_schema;       /* XSD text declaring @config_element globally, no namespace */
  const PtiModelParam *params;     /* terminated by an entry with name == NULL */
  const PtiTraceRecordDesc *records; /* NULL, or terminated by name == NULL */
  const char *records_namespace;   /* XML namespace of @records, or NULL */
  gsize instance_size;             /* bytes the engine allocates (zeroed) per configured instance */
  /* Read the validated configuration element into @instance. */
  gboolean (*configure) (gpointer instance, const xmlNode *config, GError **error);
  /* Free what configure allocated (not @instance itself).  Called for every
   * instance, also after a configure that failed part-way (the instance
   * started zero-filled, so clear what is set).  May be NULL. */
  void (*finalize) (gpointer instance);
  const PtiCpuOps *cpu;            /* kind "cpu" */
  const PtiNetOps *net;            /* kind "network" */
  /* Appended after the first release (check struct_size before use). */
  /* Optional: change a parameter during an evaluation (paper section 3.4:
   * a monitoring sensor feeding the model), e.g. element "background_load"
   * with @selector NULL, or "link_load" with @selector naming links.  With
   * @apply FALSE only check that the change is valid (before the
   * evaluation starts; @now and @sink are then unused).  With @apply TRUE
   * it happens at simulated time @now (s): a resource model first moves
   * its clock to @now exactly as flow_advance does (reporting ended flows
   * through @sink), then applies the change to the flows in flight.
   * @sink is NULL for models that are not resource network models.
   * Errors name the element and the value. */
  gboolean (*reconfigure) (gpointer instance, const char *element, const char *selector,
                           const char *value, gboolean apply, double now,
                           const PtiNetSink *sink, GError **error);
} PtiModelDesc;

/* TRUE if @desc (of a model that may predate the field) has reconfigure. */
#define PTI_MODEL_CAN_RECONFIGURE(desc)                                          \
  ((desc)->struct_size >= G_STRUCT_OFFSET (PtiModelDesc, reconfigure) + sizeof (gpointer) \
   && (desc)->reconfigure != NULL)

/**
 * PTI_MODEL_DEFINE:
 * @desc: the name of a `static const PtiModelDesc`
 *
 * In a model built as a shared object, exports the one entry point the
 * engine looks up: `const PtiModelDesc *pti_model_describe (void)`.
 */
#define PTI_MODEL_DEFINE(desc)                                              \
  PTI_API const PtiModelDesc *pti_model_describe (void);                    \
  PTI_API const PtiModelDesc *pti_model_describe (void) { return &(desc); }

/** Name of the symbol PTI_MODEL_DEFINE exports. */
#define PTI_MODEL_ENTRY_SYMBOL "pti_model_describe"

G_END_DECLS
