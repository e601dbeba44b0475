/* pti workload specification library (WSL): what a workload author includes.
 *
 * A workload is what each process does, as device uses: computations on the
 * `cpu` device described by a RUD (resource usage data) and messages on the
 * `mpi` device.  The author writes ordinary C: a loop over ranks that calls
 * the functions below in each process's program order.  Nothing here says
 * how long anything takes: the models configured in the system (HMC) file do.
 *
 *   g_autoptr (PtiContext) ctx = pti_context_new ("configs/pc_cluster.xml", NULL, &error);
 *   pti_context_set_processes (ctx, 2, &error);
 *   g_autoptr (PtiRud) work = pti_rud_new (ctx, "block",
 *       "<rud device='cpu'><loop iter='N' type='clc' of='LFOR,CMLL,INLL'>"
 *       "<compute type='clc' of='MFDL,AFDL'/></loop></rud>", &error);
 *   pti_context_set_param (ctx, "N", 1000, &error);
 *   pti_use (ctx, 0, work, &error);               // rank 0 computes
 *   pti_mpi_send (ctx, 0, 1, 4096, 7, &error);    // then sends 4 KiB to rank 1
 *   pti_mpi_recv (ctx, 1, 0, 4096, 7, &error);    // which receives it
 *   pti_evaluate (ctx, &error);
 *   printf ("%g s\n", pti_result_time (ctx));
 *
 * Every function that can fail because of a user mistake (an unknown name, a
 * rank out of range, a RUD that fails its schema, an unbound parameter)
 * returns FALSE or NULL and sets @error (domain PTI_ERROR); none aborts.
 * Errors name the rank, the RUD and the parameter concerned.
 *
 * Memory: events are stored compactly (tens of bytes each) until
 * pti_evaluate(); a RUD is parsed and compiled once by pti_rud_new() and may
 * be used any number of times.
 */
#pragma once

#include <pti/hmi.h>

G_BEGIN_DECLS

/**
 * PtiContext:
 *
 * A system (loaded from an HMC file), its models, the workload being built
 * on it, and, after pti_evaluate(), the results.
 */
typedef struct _PtiContext PtiContext;

/**
 * PtiRud:
 *
 * A compiled RUD: parsed and compiled once, reference-counted, usable for
 * any number of device uses in the context that made it.
 */
typedef struct _PtiRud PtiRud;

/**
 * PTI_ANY_SOURCE:
 *
 * A receive's source that matches a message from any rank (MPI_ANY_SOURCE).
 */
#define PTI_ANY_SOURCE G_MAXUINT

/**
 * PTI_ANY_TAG:
 *
 * A receive's tag that matches any tag (MPI_ANY_TAG).  Tags of sends, and
 * of receives otherwise, are >= 0.
 */
#define PTI_ANY_TAG (-1)

/**
 * PtiRequest:
 *
 * A pending non-blocking operation of one rank, made by pti_mpi_isend() or
 * pti_mpi_irecv() and completed by exactly one pti_mpi_wait() or
 * pti_mpi_waitall(), or by the pti_mpi_waitany() that picks it.  Valid only
 * with the rank that made it.
 */
typedef guint PtiRequest;

/* ---- context --------------------------------------------------------- */

/**
 * pti_context_new:
 * @system_path: an HMC (system) XML file
 * @model_path: (nullable): extra directories with model shared objects,
 *   colon-separated, searched before $PTI_MODEL_PATH
 *
 * Loads, validates and configures the system.
 * Returns: (transfer full): a new context, or NULL with @error set.
 */
PTI_API PtiContext *pti_context_new (const char *system_path, const char *model_path,
                                     GError **error);

/** pti_context_free: frees @ctx and everything it owns; NULL is allowed. */
PTI_API void pti_context_free (PtiContext *ctx);

/**
 * pti_context_set_workload:
 * @name: the workload's name, written in the trace header
 * @file: (nullable): the workload file it came from
 */
PTI_API void pti_context_set_workload (PtiContext *ctx, const char *name, const char *file);

/**
 * pti_context_set_processes:
 * @n: the number of processes (ranks 0..n-1)
 *
 * Declares the processes and places rank r on the r-th processor of the
 * system (processors are numbered in connection order).  Binds the parameter
 * `nprocs` to @n.  Must be called once, before any device use.
 * Returns: FALSE if @n is 0 or exceeds the system's processors.
 */
PTI_API gboolean pti_context_set_processes (PtiContext *ctx, guint n, GError **error);

/** pti_context_get_processes: Returns: the number of processes (0 before set). */
PTI_API guint pti_context_get_processes (const PtiContext *ctx);

/* ---- parameters ------------------------------------------------------- */

/**
 * pti_context_override_param:
 * @name: a parameter name
 * @value: its value as text (an expression of numbers)
 *
 * Records a user override (ptieval's `-D name=value`), applied when the
 * workload declares @name with pti_context_declare_param().  An override
 * whose name the workload never declares is reported by pti_evaluate().
 */
PTI_API gboolean pti_context_override_param (PtiContext *ctx, const char *name,
                                             const char *value, GError **error);

/**
 * pti_context_declare_param:
 * @name: a workload parameter (npe_i, iterations, ...)
 * @default_value: its value unless overridden
 *
 * Declares a workload parameter; it is listed in the trace header.
 * Returns: FALSE if @name was already declared.
 */
PTI_API gboolean pti_context_declare_param (PtiContext *ctx, const char *name,
                                            double default_value, GError **error);

/**
 * pti_context_get_param:
 * Returns: the current value of parameter @name, or NaN if unbound.
 */
PTI_API double pti_context_get_param (const PtiContext *ctx, const char *name);

/**
 * pti_context_set_param:
 *
 * Binds a (dynamic) parameter, such as a RUD's `MY_SIZE`, to @value for the
 * device uses that follow.  RUD costs are computed at the device use, with
 * the values bound then.
 */
PTI_API gboolean pti_context_set_param (PtiContext *ctx, const char *name, double value,
                                        GError **error);

/**
 * pti_context_get_symbols:
 *
 * Returns: (transfer none): the symbol table holding every parameter; use
 * pti_symbols_intern() once and pti_symbols_set() in loops to avoid looking
 * names up per use.  `rank` is bound by the WSL at each device use.
 */
PTI_API PtiSymbols *pti_context_get_symbols (PtiContext *ctx);

/* ---- RUDs and device uses -------------------------------------------- */

/**
 * pti_rud_new:
 * @name: (nullable): a name for the trace and for errors
 * @xml: a `<rud device="...">` document
 *
 * Parses, validates and compiles a RUD for the system's models of that
 * device.  Names in its expressions become parameters of the context.
 * Returns: (transfer full): the RUD, or NULL with @error.
 */
PTI_API PtiRud *pti_rud_new (PtiContext *ctx, const char *name, const char *xml, GError **error);

/** pti_rud_ref: Returns: (transfer full): @rud with one more reference. */
PTI_API PtiRud *pti_rud_ref (PtiRud *rud);
/** pti_rud_unref: drops a reference; NULL is allowed. */
PTI_API void pti_rud_unref (PtiRud *rud);
/** pti_rud_get_device: Returns: (transfer none): the device the RUD is for ("cpu"). */
PTI_API const char *pti_rud_get_device (const PtiRud *rud);

/**
 * pti_use:
 * @rank: the process that uses the device
 * @rud: a RUD made by this context
 *
 * Appends one use of @rud's device to @rank's event list.  A single-device
 * use (a computation) is priced now by the processor's model (stage 1),
 * with the parameter values bound now.
 */
PTI_API gboolean pti_use (PtiContext *ctx, guint rank, PtiRud *rud, GError **error);

/**
 * pti_use_xml:
 *
 * Like pti_use() with a RUD given as text; parses it every call, so prefer
 * pti_rud_new() for anything used more than once.
 */
PTI_API gboolean pti_use_xml (PtiContext *ctx, guint rank, const char *xml, GError **error);

/* ---- the mpi device --------------------------------------------------- */

/**
 * pti_mpi_send:
 * @rank: the sender
 * @dst: the receiver
 * @bytes: message length
 * @tag: a tag >= 0
 *
 * A blocking standard-mode send.  Messages up to the network model's eager
 * limit are sent eagerly (the sender continues after its send overhead);
 * larger ones use rendezvous (the sender waits for the matching receive).
 */
PTI_API gboolean pti_mpi_send (PtiContext *ctx, guint rank, guint dst, guint64 bytes, gint tag,
                               GError **error);

/**
 * pti_mpi_recv:
 * @rank: the receiver
 * @src: the sender, or PTI_ANY_SOURCE
 * @bytes: the receive buffer's length (a longer matching message is an error)
 * @tag: a tag >= 0, or PTI_ANY_TAG
 *
 * A blocking receive.  Matching is by source and tag, in order
 * (non-overtaking, as MPI).
 */
PTI_API gboolean pti_mpi_recv (PtiContext *ctx, guint rank, guint src, guint64 bytes, gint tag,
                               GError **error);

/**
 * pti_mpi_isend:
 * @request: (out): the request, to be completed by a wait
 *
 * A non-blocking send: the rank spends its send overhead and goes on.  An
 * eager message's request is complete at once; a rendezvous message's when
 * its data has left, after the receiver has answered.
 */
PTI_API gboolean pti_mpi_isend (PtiContext *ctx, guint rank, guint dst, guint64 bytes, gint tag,
                                PtiRequest *request, GError **error);

/**
 * pti_mpi_irecv:
 * @src: the sender, or PTI_ANY_SOURCE
 * @tag: a tag >= 0, or PTI_ANY_TAG
 * @request: (out): the request, to be completed by a wait
 *
 * A non-blocking receive.  Posted receives are matched in the order they
 * were posted, as MPI does; the receive overhead is spent by the wait that
 * completes it.
 */
PTI_API gboolean pti_mpi_irecv (PtiContext *ctx, guint rank, guint src, guint64 bytes, gint tag,
                                PtiRequest *request, GError **error);

/**
 * pti_mpi_wait:
 *
 * Blocks @rank until @request is complete.
 */
PTI_API gboolean pti_mpi_wait (PtiContext *ctx, guint rank, PtiRequest request, GError **error);

/**
 * pti_mpi_waitall:
 *
 * Blocks @rank until every one of @requests is complete.
 */
PTI_API gboolean pti_mpi_waitall (PtiContext *ctx, guint rank, guint n, const PtiRequest *requests,
                                  GError **error);

/**
 * pti_mpi_waitany:
 *
 * Blocks @rank until one of @requests is complete (the first to complete in
 * simulated time; requests an earlier waitany completed are skipped, as MPI
 * skips null requests) and completes that one only.  Which one it was is
 * known only at evaluation, so a workload waits for a set with as many
 * waitany calls as it has requests, or ends with a waitall.
 */
PTI_API gboolean pti_mpi_waitany (PtiContext *ctx, guint rank, guint n, const PtiRequest *requests,
                                  GError **error);

/**
 * pti_mpi_barrier / pti_mpi_bcast / pti_mpi_allreduce / pti_mpi_reduce:
 *
 * Collectives over all processes, expanded into point-to-point messages that
 * the network model sees: barrier and allreduce as a binomial-tree reduce to
 * rank 0 followed by a binomial-tree broadcast, bcast as a binomial tree from
 * @root.  Every rank must call the same collectives in the same order.
 */
PTI_API gboolean pti_mpi_barrier (PtiContext *ctx, guint rank, GError **error);
PTI_API gboolean pti_mpi_bcast (PtiContext *ctx, guint rank, guint root, guint64 bytes,
                                GError **error);
PTI_API gboolean pti_mpi_allreduce (PtiContext *ctx, guint rank, guint64 bytes, GError **error);
/* pti_mpi_reduce: a binomial-tree reduce of @bytes to @root. */
PTI_API gboolean pti_mpi_reduce (PtiContext *ctx, guint rank, guint root, guint64 bytes,
                                 GError **error);

/* ---- evaluation and results ------------------------------------------- */

/**
 * pti_context_set_trace:
 * @path: (nullable): where pti_evaluate() writes the XML output trace; NULL
 *   for none
 */
PTI_API void pti_context_set_trace (PtiContext *ctx, const char *path);

/**
 * pti_evaluate:
 *
 * Resolves every event in simulated-time order (stage 2: message matching,
 * protocol, network) and computes the results; writes the trace if one was
 * set.  A workload that cannot finish fails with PTI_ERROR_DEADLOCK naming
 * the blocked ranks, their pending operations and the simulated time.
 */
PTI_API gboolean pti_evaluate (PtiContext *ctx, GError **error);

/** pti_result_time: Returns: the predicted execution time in s (after pti_evaluate). */
PTI_API double pti_result_time (const PtiContext *ctx);

/** pti_result_events: Returns: the number of events evaluated. */
PTI_API guint64 pti_result_events (const PtiContext *ctx);

/**
 * PtiProcessResult:
 *
 * Where one process's time went.  compute + comm + wait + (time - end) = time.
 */
typedef struct {
  double end;      /* s: when the process finished */
  double compute;  /* s in device uses priced by CPU models */
  double comm;     /* s in the message layer: send and receive overheads, transfers it waits out as sender */
  double wait;     /* s blocked on another process: a receive before its message arrived, a rendezvous send before its receive */
  guint64 events;  /* events in its list */
} PtiProcessResult;

/** pti_result_process: Returns: FALSE if @rank is out of range or not yet evaluated. */
PTI_API gboolean pti_result_process (const PtiContext *ctx, guint rank, PtiProcessResult *out);

/* ---- ready-made command line ----------------------------------------- */

/**
 * PtiBuildFunc:
 *
 * Builds a workload in @ctx: declares parameters, sets the processes and
 * emits each rank's device uses.
 */
typedef gboolean (*PtiBuildFunc) (PtiContext *ctx, gpointer user_data, GError **error);

/**
 * pti_main:
 * @workload_name: written in the trace header and the summary
 * @build: builds the workload
 *
 * The command line of a C workload program, the same as ptieval's without
 * the workload file: `PROGRAM [OPTIONS] SYSTEM.xml` with `-D name=value`,
 * `-o TRACE.xml`, `--json`, `--model-path DIR`.  Prints the summary (or
 * JSON) and returns the exit code: 0 ok, 2 usage, 3 invalid input, 1 other.
 */
PTI_API int pti_main (int argc, char **argv, const char *workload_name, PtiBuildFunc build,
                      gpointer user_data);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PtiContext, pti_context_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PtiRud, pti_rud_unref)

G_END_DECLS
