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
 * PtiCpuOps.time_cost / flops_cost,
 * PtiNetOps.send_overhead / recv_overhead / transfer / flow_start / flow_next
 * / flow_advance, PtiNetSink's callbacks, PtiIoOps.access / collective,
 * pti_expr_eval.  Also
 * PtiModelDesc.reconfigure with apply TRUE (once per scheduled change).
 * Everything else runs at load time.
 */
#pragma once

#include <glib.h>
#include <libxml/tree.h>

#include <pti/hmi-api.h>

#define PTI_HMI_INSIDE
#include <pti/expr.h>
#undef PTI_HMI_INSIDE
#include <pti/rud.h>

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
 * and line of the offending element in its error.
 *
 * Ranges (bounded predictions): a number read by pti_config_get_number,
 * _get_double, _get_time, _get_bandwidth, _get_flop_rate or
 * pti_config_node_number may be written as a range, its nominal value as
 * the element's text and the ends as `min` and `max` attributes in the same
 * unit: <latency unit="us" min="0.9" max="1.1">1.0</latency>.  The reader
 * returns the end the evaluation chose (ptieval's bound runs: the nominal
 * value otherwise), so a model reads ranges without knowing of them; its
 * schema says which of its numbers accept min and max.  A size
 * (pti_config_get_bytes) takes a single value: a range there is an error. */

/**
 * PtiRangeSense:
 * @PTI_RANGE_SENSE_UNKNOWN: no stated direction: bound runs try both ends
 * @PTI_RANGE_SENSE_SLOWER_WHEN_HIGHER: a higher value never makes a run
 *   faster (a time, a cost per operation, a load)
 * @PTI_RANGE_SENSE_FASTER_WHEN_HIGHER: a higher value never makes a run
 *   slower (a bandwidth, a rate, a speed ratio)
 *
 * Which way a configured number moves predicted times, as far as the model
 * knows it: the lower bound takes each range at its fast end.
 */
typedef enum {
  PTI_RANGE_SENSE_UNKNOWN = 0,
  PTI_RANGE_SENSE_SLOWER_WHEN_HIGHER = 1,
  PTI_RANGE_SENSE_FASTER_WHEN_HIGHER = 2,
} PtiRangeSense;

/**
 * pti_config_node_number:
 * @node: an element whose text is a number (a range with `min`/`max`)
 * @sense: which way it moves predicted times
 * @out: (out): the value, or the end of its range the evaluation chose
 *
 * Returns: FALSE with @error (file, line, element) if the text is not a
 * finite number, or the range is malformed (min above max, the nominal
 * value outside them, one end without the other).
 */
PTI_API gboolean pti_config_node_number (const xmlNode *node, PtiRangeSense sense, double *out,
                                         GError **error);

/**
 * pti_config_get_number:
 * @parent: a configuration element
 * @name: child element whose text is a number (or a range)
 * @sense: which way it moves predicted times
 * @out: (out): the value
 *
 * pti_config_node_number() over the child @name, which is required.
 */
PTI_API gboolean pti_config_get_number (const xmlNode *parent, const char *name,
                                        PtiRangeSense sense, double *out, GError **error);

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
 * pti_config_get_number() with PTI_RANGE_SENSE_UNKNOWN.
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
 * pti_config_get_flop_rate:
 * @parent: a configuration element
 * @name: child element with a positive number and a required `unit`
 *   attribute (`Flop/s`, `KFlop/s`, `MFlop/s`, `GFlop/s`, `TFlop/s`; decimal)
 * @flops_per_second: (out): the value in floating-point operations per second
 */
PTI_API gboolean pti_config_get_flop_rate (const xmlNode *parent, const char *name,
                                           double *flops_per_second, GError **error);

/**
 * pti_config_read_xml:
 * @from: the element that names the file (its document's URL is the base
 *   of a relative @href)
 * @href: the file, absolute or relative to @from's document
 * @error: a PTI_ERROR_INVALID error naming @from's file and line, or the
 *   included file and line where it is malformed
 *
 * Reads an XML file a configuration or a RUD includes by reference (a
 * memory profile, a reuse-distance histogram) with the reader pti reads
 * its own inputs with: a regular file of at most 64 MiB, parsed with
 * XML_PARSE_NONET and no entity substitution; a DOCTYPE is refused (with
 * its line) before its internal subset is read; a malformed file is named
 * with the line of its first mistake.
 * Returns: (transfer full) (nullable): the document (xmlFreeDoc), its URL
 * the resolved path, or NULL.
 */
PTI_API xmlDoc *pti_config_read_xml (const xmlNode *from, const char *href, GError **error);

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
 * pti_parse_flop_rate:
 * @text: a number and a flop-rate unit, e.g. "2.5GFlop/s", "450 MFlop/s"
 * @flops_per_second: (out): the value in floating-point operations per second (> 0)
 */
PTI_API gboolean pti_parse_flop_rate (const char *text, double *flops_per_second,
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

/* ---- text from users ---------------------------------------------------- */

/**
 * pti_text_check:
 * @text: bytes from a user: a file, the command line, a caller's string
 * @len: their length, or -1 if @text is NUL-terminated
 * @max_len: the most bytes allowed, or 0 for no limit
 * @what: what @text is, for the message ("changes.txt:3", "-D value"); it
 *   must not quote @text itself, which may not be printable
 *
 * Text is UTF-8 without NUL bytes, at most @max_len bytes long.  Check every
 * string that comes from outside before any GLib string function sees it
 * (some abort on invalid UTF-8) and before it is stored or written.
 *
 * Returns: FALSE with a PTI_ERROR_INVALID @error naming @what and the column
 *   (byte, from 1) of the first offending byte.
 */
PTI_API gboolean pti_text_check (const char *text, gssize len, gsize max_len, const char *what,
                                 GError **error);

/**
 * pti_nearest_names:
 * @name: a name that is not known
 * @known: (array length=n_known): the names that are (NULL entries are skipped)
 * @n_known: their number
 *
 * The hint of every "unknown name" error: up to three known names a typing
 * mistake away from @name (optimal string alignment distance at most half
 * its length, case-insensitive), nearest first; ties go to names sharing
 * more letters, then a longer common prefix, then the order of @known.
 *
 * Returns: (transfer full) (nullable): "A, B, C", or NULL if none is close.
 */
PTI_API char *pti_nearest_names (const char *name, const char *const *known, gsize n_known);

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
  guint32 version; /* PTI_CPU_OPS_VERSION; a version-1 table has the fields up to rud_slots */
  /* RUDs are priced through rud_fold (version 2) or rud_compile (version 1),
   * then rud_free and cost.  A version-2 model of bursts only (cpu-time)
   * sets none of the four and sets time_cost or flops_cost instead
   * (PTI_CPU_OPS_HAS_RUDS tells which). */
  /* Version 1 (models that parse the XML themselves; NULL if rud_fold is
   * set): compile a `<rud device="cpu">` element.  Names used in
   * expressions are interned in @symbols.  Called once per RUD, never per
   * event.  Returns (transfer full) an opaque compiled form, or NULL with
   * @error. */
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

  /* ---- version 2: a parsed RUD to fold; computations given as a time or as flops ---- */

  /* Compile the RUD the HMI parsed (pti/rud.h: its structure is checked;
   * the model reads the attributes and operation codes it knows, compiles
   * their expressions against @symbols, and names what it refuses with
   * pti_rud_error).  The tree is borrowed for the call.  Set this or
   * rud_compile, or neither for a model of bursts only. */
  gpointer (*rud_fold) (const PtiRudNode *rud, PtiSymbols *symbols, GError **error);

  /* A replayed trace gives each burst of computation as the time it took on
   * the host where it was measured (captures, Dimemas) or as a number of
   * floating-point operations (SimGrid TI).  Bursts differ from one event to
   * the next, so they are priced from the number alone, with no RUD. */

  /* Optional (NULL: the model cannot price measured times).  Hot path: the
   * time in s on the CPU @instance describes of a computation that took
   * @measured s (>= 0, finite) on the host where it was measured.  Must not
   * allocate except to report an error; an error (the configuration does
   * not say how the two hosts compare, say) names what to configure. */
  gboolean (*time_cost) (gconstpointer instance, double measured, double *seconds,
                         GError **error);
  /* Optional (NULL: the model cannot price flops).  Hot path: the time in s
   * @flops (>= 0, finite) floating-point operations take on the CPU
   * @instance describes.  Errors as time_cost's. */
  gboolean (*flops_cost) (gconstpointer instance, double flops, double *seconds,
                          GError **error);
} PtiCpuOps;
#define PTI_CPU_OPS_VERSION 2u

/* TRUE if @ops folds the HMI's parsed RUD (else it parses the XML itself,
 * or prices no RUD). */
#define PTI_CPU_OPS_FOLDS(ops) ((ops)->version >= 2u && (ops)->rud_fold != NULL)

/* TRUE if @ops (as the engine holds it: fields beyond its version NULL)
 * prices RUDs (by rud_fold or rud_compile); FALSE for a model of bursts only. */
#define PTI_CPU_OPS_HAS_RUDS(ops) ((ops)->rud_compile != NULL || PTI_CPU_OPS_FOLDS (ops))

/**
 * pti_cpu_rud_compile:
 * @ops: a CPU model's operations
 * @rud: a `<rud device="cpu">` element, borrowed for the call
 *
 * Compiles @rud for the model the way the engine does: parsed into the
 * HMI's tree and folded (rud_fold), or handed over as XML to a version-1
 * model (rud_compile).  For model tests and tools.  A model that prices no
 * RUD (!PTI_CPU_OPS_HAS_RUDS) refuses it with an error naming the model's
 * way (time_cost, flops_cost).
 * Returns: (transfer full): the compiled form (free with ops->rud_free), or
 * NULL with @error.
 */
PTI_API gpointer pti_cpu_rud_compile (const PtiCpuOps *ops, const xmlNode *rud,
                                      PtiSymbols *symbols, GError **error);

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
 * PtiDigest:
 *
 * What a model tells analytical repetition about its state (see
 * PtiNetOps.digest).  The engine sums up its whole state this way at the
 * start of repetitions of a repeated block; when two such digests are the
 * same but for a shift in time, the evaluation is periodic from there on
 * and repetitions can be derived without calling the models.  Owned by the
 * engine; valid for the call it is passed to.  Hot path: no (once per
 * repetition).
 */
typedef struct _PtiDigest PtiDigest;

/* A discrete part of the state (a count, a port, an index, a flag): must be
 * equal for two states to be the same. */
PTI_API void pti_digest_add_int (PtiDigest *digest, guint64 value);
/* A point in simulated time (s): compared relative to the digest's origin,
 * so that a state shifted in time is the same state.  Infinite values are
 * allowed (a time that never comes). */
PTI_API void pti_digest_add_time (PtiDigest *digest, double t);
/* Any other number (bytes left, a rate): compared as it is, to rounding. */
PTI_API void pti_digest_add_quantity (PtiDigest *digest, double value);
/* A cookie the engine gave the model (PtiFlow.cookie): its canonical
 * number in this digest, which is what to add (as an int). */
PTI_API guint64 pti_digest_cookie (PtiDigest *digest, gpointer cookie);

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

  /* ---- version 3 ---- */

  /* Optional, both or neither (a model without them is never shifted, and
   * repeated blocks on its network are evaluated in full).  Analytical
   * repetition: @digest adds to @d everything in the state that shapes what
   * the model will do (times through pti_digest_add_time, flows by their
   * cookies), in an order that does not depend on memory addresses; @shift
   * moves every time in the state by @dt (s), as if the same state had come
   * about @dt later.  A model whose results depend on absolute time (not
   * only on differences of times) must not set them. */
  void (*digest) (gconstpointer instance, PtiDigest *d);
  void (*shift) (gpointer instance, double dt);
} PtiNetOps;
#define PTI_NET_OPS_VERSION 3u

/* TRUE if @ops can be digested and shifted for analytical repetition. */
#define PTI_NET_OPS_CAN_SHIFT(ops)                                            \
  ((ops)->version >= 3u && (ops)->digest != NULL && (ops)->shift != NULL)

/* TRUE if @ops describes a resource (flow-level) network model. */
#define PTI_NET_OPS_HAS_FLOWS(ops)                                            \
  ((ops)->version >= 2u && (ops)->flow_start != NULL && (ops)->flow_next != NULL \
   && (ops)->flow_advance != NULL)

/**
 * PtiChangeEffect:
 * @PTI_CHANGE_RECONFIGURE: the model applies the change itself, in
 *   PtiModelDesc.reconfigure (network models: a background load, a link's
 *   bandwidth, applied to the flows in flight).
 * @PTI_CHANGE_SPEED: the engine applies it to a CPU: from the change's time
 *   on, the computations of the node (or nodes) progress at VALUE times the
 *   rate their price assumes (a positive finite number, 1 = as
 *   configured): a computation priced d s that runs while the factor is s
 *   takes d / s s of it, piecewise when the factor changes during it.  For
 *   a model whose prices scale linearly with the speed of the processor
 *   (cpu-clc, cpu-time); the model's reconfigure is not called.
 * @PTI_CHANGE_AVAILABLE: the engine applies it to a CPU: VALUE 0 makes the
 *   node unavailable from the change's time on, 1 available again.  While
 *   it is unavailable its computations make no progress: one running
 *   stops and resumes where it was when the node is back; one that begins
 *   then waits for it.  Messages (overheads priced by network models) are
 *   not held.  A computation that can never end (unavailable with no later
 *   change to come) is an error naming the rank.
 *
 * How a change a model accepts takes effect (PtiChangeKey).
 */
typedef enum {
  PTI_CHANGE_RECONFIGURE = 0,
  PTI_CHANGE_SPEED,
  PTI_CHANGE_AVAILABLE,
} PtiChangeEffect;

/**
 * PtiChangeKey:
 *
 * One parameter a model accepts live changes of (the paper's monitoring
 * sensor, section 3.4): the ELEMENT of `pti_context_change_at` and of a
 * changes file or stream line.  A model lists them in
 * PtiModelDesc.changes; a change of any other element is refused with the
 * list, before the model sees it.  `ptieval --model-info` prints them.
 */
typedef struct {
  const char *name;          /* the change's ELEMENT: "speed", "background_load" */
  PtiChangeEffect effect;
  const char *value;         /* its VALUE's syntax: "a number > 0" */
  const char *selector;      /* what ELEMENT[SELECTOR] may name, or NULL if nothing */
  const char *description;   /* one sentence */
} PtiChangeKey;

/**
 * pti_cpu_timing_changes:
 *
 * The keys of a CPU model whose prices scale with the processor's speed:
 * `speed` (PTI_CHANGE_SPEED) and `available` (PTI_CHANGE_AVAILABLE), each
 * with an optional selector of node numbers (`speed[3]`, `available[1-4]`;
 * all nodes of the computer without).  Terminated by name == NULL.  A
 * model sets `.changes = pti_cpu_timing_changes` (cpu-clc, cpu-time).
 */
PTI_API extern const PtiChangeKey pti_cpu_timing_changes[];

/**
 * PtiIoKind:
 * @PTI_IO_WRITE: write @bytes at @offset
 * @PTI_IO_READ: read @bytes at @offset
 * @PTI_IO_OPEN: open (or create) the file: a metadata request
 * @PTI_IO_CLOSE: close it: a metadata request
 */
typedef enum {
  PTI_IO_WRITE,
  PTI_IO_READ,
  PTI_IO_OPEN,
  PTI_IO_CLOSE,
} PtiIoKind;

/**
 * PtiIoRequest:
 *
 * One rank's request to a file system (an I/O model instance).  Borrowed
 * for the call.
 */
typedef struct {
  PtiIoKind kind;
  guint32 client;          /* 1-based client of the file system: the node's <mount> */
  guint32 rank;            /* the rank that issues it (world), for collectives' plans */
  guint32 file;            /* the file's number, 0, 1, ... in order of first open */
  guint32 stripe_count;    /* the file's, or 0: the model's default */
  guint64 stripe_size;     /* bytes, the file's, or 0: the model's default */
  guint64 offset, bytes;   /* write, read: where in the file, how much */
} PtiIoRequest;

/**
 * PtiIoOps:
 *
 * Operations of an I/O (file system) model.  Requests reach it in
 * non-decreasing order of time, so a model may keep state between calls
 * (its servers' queues).  Hot path: access and collective (no allocation,
 * deterministic).
 */
typedef struct {
  guint32 version; /* PTI_IO_OPS_VERSION as built */
  /* An independent request issued at @now (s): returns the time (>= @now)
   * at which it is complete for the rank that issued it. */
  double (*access) (gpointer instance, const PtiIoRequest *req, double now);
  /* A collective call of @n ranks (MPI-IO's *_all, open and close), every
   * one arrived by @now (the last arrival): returns when the call is
   * complete; every rank leaves then.  @reqs are in rank order and all of
   * one kind and file.  How the ranks' data is aggregated is the model's
   * (its README says). */
  double (*collective) (gpointer instance, guint n, const PtiIoRequest *reqs, double now);
  /* Optional.  Forget every request of an earlier evaluation. */
  void (*reset) (gpointer instance);
} PtiIoOps;
#define PTI_IO_OPS_VERSION 1u

/**
 * PtiModelDesc:
 *
 * Everything the engine knows about a model.  Exactly one of @cpu, @net or
 * @io is set, according to @kind ("cpu", "network", "io").
 */
typedef struct {
  guint32 abi_version;             /* PTI_HMI_ABI_VERSION as built */
  guint32 struct_size;             /* sizeof (PtiModelDesc) as built */
  const char *name;                /* "cpu-clc": [a-z0-9-]+, unique */
  const char *kind;                /* "cpu", "network" or "io" */
  const char *config_element;      /* the HMC element that selects and configures it, "cpu_clc" */
  const char *summary;             /* one line */
  const char *description;         /* paragraphs: equations, units, references */
  const char *config_schema;       /* XSD text declaring @config_element globally, no namespace */
  const PtiModelParam *params;     /* terminated by an entry with name == NULL */
  const PtiTraceRecordDesc *records; /* NULL, or terminated by name == NULL */
  const char *records_namespace;   /* XML namespace of @records, or NULL */
  gsize instance_size;             /* bytes the engine allocates (zeroed) per configured instance,
                                    * at most 16 MiB (allocate more in configure) */
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
  /* Appended after reconfigure (check struct_size: PTI_MODEL_CHANGES).
   * NULL, or the parameters the model accepts live changes of, terminated
   * by name == NULL.  A model with reconfigure and no list gets every
   * element (as before the list existed); a model with a list gets only
   * those, and those of effect PTI_CHANGE_RECONFIGURE need reconfigure. */
  const PtiChangeKey *changes;
  /* Appended with I/O models (check struct_size before use): kind "io". */
  const PtiIoOps *io;
} PtiModelDesc;

/* TRUE if @desc (of a model that may predate the field) has I/O ops. */
#define PTI_MODEL_HAS_IO(desc)                                                   \
  ((desc)->struct_size >= G_STRUCT_OFFSET (PtiModelDesc, io) + sizeof (gpointer) \
   && (desc)->io != NULL)

/* TRUE if @desc (of a model that may predate the field) has reconfigure. */
#define PTI_MODEL_CAN_RECONFIGURE(desc)                                          \
  ((desc)->struct_size >= G_STRUCT_OFFSET (PtiModelDesc, reconfigure) + sizeof (gpointer) \
   && (desc)->reconfigure != NULL)

/* The change keys of @desc (a model that may predate the field), or NULL. */
#define PTI_MODEL_CHANGES(desc)                                                  \
  ((desc)->struct_size >= G_STRUCT_OFFSET (PtiModelDesc, changes) + sizeof (gpointer) \
   ? (desc)->changes : NULL)

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
