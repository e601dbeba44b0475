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
 * PTI_PROC_NULL:
 *
 * A peer that is no process (MPI_PROC_NULL): a send to it or a receive
 * from it does nothing and takes no time, as in MPI, where it "returns as
 * soon as possible" (MPICH returns before any protocol or network work).
 * A non-blocking one gives PTI_REQUEST_NULL.
 */
#define PTI_PROC_NULL (G_MAXUINT - 1)

/**
 * PtiRequest:
 *
 * A pending non-blocking operation of one rank, made by pti_mpi_isend() or
 * pti_mpi_irecv() and completed by exactly one pti_mpi_wait() or
 * pti_mpi_waitall(), or by the pti_mpi_waitany() that picks it.  Valid only
 * with the rank that made it.
 */
typedef guint PtiRequest;

/**
 * PTI_REQUEST_NULL:
 *
 * A request that is complete already (MPI_REQUEST_NULL): what a
 * non-blocking call with a PTI_PROC_NULL peer gives.  Waits skip it; a
 * waitany over such requests only returns at once.
 */
#define PTI_REQUEST_NULL G_MAXUINT

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

/**
 * PtiPlacement:
 * @PTI_PLACEMENT_BLOCK: rank r on the r-th processor, processors numbered
 *   in connection order with each node's CPUs together (the default): ranks
 *   that are neighbours share nodes.
 * @PTI_PLACEMENT_CYCLIC: ranks dealt round-robin over the nodes: rank r on
 *   the (r mod nodes)-th node, its (r div nodes)-th CPU.
 */
typedef enum {
  PTI_PLACEMENT_BLOCK,
  PTI_PLACEMENT_CYCLIC,
} PtiPlacement;

/**
 * pti_context_set_placement:
 *
 * How pti_context_set_processes() places ranks on processors; call it
 * before.  Processes on one node exchange messages through the node's
 * intra-node model (a network model configured inside its <computer>) if
 * it has one, else through its network port.
 */
PTI_API gboolean pti_context_set_placement (PtiContext *ctx, PtiPlacement placement, GError **error);

/**
 * pti_context_set_placement_map:
 * @n: how many ranks @processors places (the process count to come)
 * @processors: (array length=n): rank r goes on processor @processors[r]
 *   (0-based, in connection order, as `ptieval --json`'s trace header lists)
 *
 * An explicit placement; each processor may be given once.
 */
PTI_API gboolean pti_context_set_placement_map (PtiContext *ctx, guint n, const guint *processors,
                                                GError **error);

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
 * pti_context_declare_param_range:
 * @name: a workload parameter
 * @low: the low end of its range
 * @nominal: its value in the nominal prediction, @low <= @nominal <= @high
 * @high: the high end
 *
 * Declares a parameter known only within a range (bounded predictions,
 * ptieval's bound runs, wsl/README.md): it takes @nominal, or the end the
 * run chose.  A `-D` value replaces the range.
 * Returns: FALSE if @name was already declared or the range is malformed.
 */
PTI_API gboolean pti_context_declare_param_range (PtiContext *ctx, const char *name, double low,
                                                  double nominal, double high, GError **error);

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

/**
 * pti_use_time:
 * @rank: the process that computes
 * @seconds: how long the computation took on the host where it was
 *   measured (a finite number >= 0), e.g. a CPU burst of a captured run or
 *   of a Dimemas trace
 *
 * Appends one use of the `cpu` device given as a measured time rather than
 * a RUD, priced now by the processor's CPU model: cpu-time divides it by
 * the computer's `speed_ratio` (the target's speed relative to the host
 * that measured it, Dimemas' CPU ratio); cpu-clc does the same when its
 * configuration has a `speed_ratio`.  A model that cannot price a time is
 * an error naming what to configure.  No RUD and no allocation per call:
 * bursts differ every event.  The trace names the use's RUD "time".
 */
PTI_API gboolean pti_use_time (PtiContext *ctx, guint rank, double seconds, GError **error);

/**
 * pti_use_flops:
 * @rank: the process that computes
 * @flops: the floating-point operations it performs (a finite number >= 0),
 *   e.g. a `compute` action of a SimGrid time-independent trace
 *
 * Appends one use of the `cpu` device given as a number of floating-point
 * operations, priced now by the processor's CPU model at the computer's
 * flop rate (cpu-time's or cpu-clc's `flop_rate`, SimGrid's host speed).
 * As pti_use_time(); the trace names the use's RUD "flops".
 */
PTI_API gboolean pti_use_flops (PtiContext *ctx, guint rank, double flops, GError **error);

/* ---- a model per use (the paper's Table 1: an event's model) ----------- */

/**
 * PtiModelChoice:
 *
 * A model a device use or a communicator chooses, beside the computer's or
 * network's default: the paper's "a single device can be modeled by many
 * underlying hardware models ... the workload also defines the type of
 * model that should be used" (a fast model for one phase, a detailed one
 * for another).  Made once from a name by pti_context_model_choice(); a
 * number, so that no name is looked up per use.
 */
typedef guint PtiModelChoice;

/** PTI_MODEL_DEFAULT: the default configuration of each computer and network. */
#define PTI_MODEL_DEFAULT 0u
/** PTI_MODEL_CHOICE_INVALID: what pti_context_model_choice() returns on error. */
#define PTI_MODEL_CHOICE_INVALID G_MAXUINT

/**
 * pti_context_model_choice:
 * @name: a configuration's name (an HMC model element's `config`
 *   attribute, `<cpu_clc config="fast">`) or a model's name (`cpu-time`,
 *   selecting the one configuration of that model)
 *
 * Gives @name its number.  Where it is configured is checked where it is
 * used (pti_use_model(), pti_comm_set_model()): computers and networks may
 * configure different sets of models.
 * Returns: the choice, or PTI_MODEL_CHOICE_INVALID with @error if @name is
 *   not a name.
 */
PTI_API PtiModelChoice pti_context_model_choice (PtiContext *ctx, const char *name,
                                                 GError **error);

/**
 * pti_use_model:
 * @model: a choice from pti_context_model_choice(), or PTI_MODEL_DEFAULT
 *
 * pti_use() priced by the configuration @model names on @rank's computer
 * instead of its default; the trace shows that configuration on the
 * event.  Returns: FALSE with @error naming the rank, the computer and the
 * configurations it has if it has no configuration of that name.
 */
PTI_API gboolean pti_use_model (PtiContext *ctx, guint rank, PtiRud *rud, PtiModelChoice model,
                                GError **error);

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
 * @dst may be PTI_PROC_NULL (nothing happens), here and in every
 * point-to-point call; a receive's source too.
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
 * pti_mpi_ssend:
 *
 * A synchronous send (MPI_Ssend): as pti_mpi_send(), but by the rendezvous
 * protocol whatever the size, so it completes only once the receiver has
 * posted the matching receive (and the data has left).
 */
PTI_API gboolean pti_mpi_ssend (PtiContext *ctx, guint rank, guint dst, guint64 bytes, gint tag,
                                GError **error);

/**
 * pti_mpi_issend:
 * @request: (out): the request, to be completed by a wait
 *
 * A non-blocking synchronous send (MPI_Issend): pti_mpi_ssend() posted as
 * pti_mpi_isend() posts.
 */
PTI_API gboolean pti_mpi_issend (PtiContext *ctx, guint rank, guint dst, guint64 bytes, gint tag,
                                 PtiRequest *request, GError **error);

/**
 * pti_mpi_sendrecv:
 * @dst: where @send_bytes go, with tag @send_tag (or PTI_PROC_NULL)
 * @src: where @recv_bytes come from, with tag @recv_tag (PTI_ANY_SOURCE,
 *   PTI_ANY_TAG and PTI_PROC_NULL allowed)
 *
 * MPI_Sendrecv as MPICH makes it: the receive posted, the send posted, both
 * waited for (irecv, isend, waitall: 3 events), so neither side's
 * rendezvous waits for the other's send.
 */
PTI_API gboolean pti_mpi_sendrecv (PtiContext *ctx, guint rank, guint dst, guint64 send_bytes,
                                   gint send_tag, guint src, guint64 recv_bytes, gint recv_tag,
                                   GError **error);

/**
 * pti_mpi_sendrecv_replace:
 * @bytes: the buffer's length, sent to @dst and received from @src
 *
 * MPI_Sendrecv_replace: MPICH receives into a temporary buffer while it
 * sends from the user's, so its traffic and times are pti_mpi_sendrecv()'s
 * with @bytes both ways (the copy back is local and not priced).
 */
PTI_API gboolean pti_mpi_sendrecv_replace (PtiContext *ctx, guint rank, guint dst, gint send_tag,
                                           guint src, gint recv_tag, guint64 bytes,
                                           GError **error);

/**
 * pti_mpi_probe:
 * @src: the sender, PTI_ANY_SOURCE or PTI_PROC_NULL
 * @tag: a tag >= 0, or PTI_ANY_TAG
 *
 * A blocking probe (MPI_Probe): @rank waits until a message it could
 * receive with @src and @tag has reached it (an eager message's data, a
 * rendezvous message's request) and is not taken by a receive posted
 * before; it receives nothing, a receive follows.  A probe of PTI_PROC_NULL
 * returns at once.  An MPI_Iprobe that found a message (as a captured run
 * recorded it) is replayed as this; one that found none as nothing.
 */
PTI_API gboolean pti_mpi_probe (PtiContext *ctx, guint rank, guint src, gint tag,
                                GError **error);

/**
 * pti_mpi_barrier / pti_mpi_bcast / pti_mpi_allreduce / pti_mpi_reduce:
 * @rank: the calling process
 * @root: the rank the data comes from (bcast) or goes to (reduce)
 * @bytes: the buffer's length (the same on every rank)
 *
 * Collectives over all processes, expanded into the point-to-point messages
 * the algorithm an MPI library would use sends, so that the network model
 * sees the real traffic; the reduction's arithmetic is priced by the CPU
 * model.  The algorithm is chosen by message size and process count as
 * MPICH does, unless the system (HMC `<mpi>`) or the workload
 * (pti_context_set_collective_algorithm()) says otherwise: see
 * wsl/COLLECTIVES.md.  Every rank must call the same collectives in the same
 * order with the same root and size; a mismatch is an error naming the
 * ranks.  A 0-byte bcast, reduce or allreduce sends nothing (as MPICH).
 */
PTI_API gboolean pti_mpi_barrier (PtiContext *ctx, guint rank, GError **error);
PTI_API gboolean pti_mpi_bcast (PtiContext *ctx, guint rank, guint root, guint64 bytes,
                                GError **error);
PTI_API gboolean pti_mpi_allreduce (PtiContext *ctx, guint rank, guint64 bytes, GError **error);
/* pti_mpi_reduce: a reduce of @bytes to @root. */
PTI_API gboolean pti_mpi_reduce (PtiContext *ctx, guint rank, guint root, guint64 bytes,
                                 GError **error);

/**
 * pti_mpi_gather / pti_mpi_scatter / pti_mpi_allgather / pti_mpi_alltoall:
 * @rank: the calling process
 * @root: the rank that gathers (gather) or scatters (scatter)
 * @bytes: the size of one rank's block: what each rank contributes (gather,
 *   allgather), receives (scatter), or sends to each rank (alltoall), as
 *   MPI's count times the datatype's size.  The same on every rank.
 *
 * Collectives over all processes, as pti_mpi_bcast().  A 0-byte block sends
 * nothing.
 */
PTI_API gboolean pti_mpi_gather (PtiContext *ctx, guint rank, guint root, guint64 bytes,
                                 GError **error);
PTI_API gboolean pti_mpi_scatter (PtiContext *ctx, guint rank, guint root, guint64 bytes,
                                  GError **error);
PTI_API gboolean pti_mpi_allgather (PtiContext *ctx, guint rank, guint64 bytes, GError **error);
PTI_API gboolean pti_mpi_alltoall (PtiContext *ctx, guint rank, guint64 bytes, GError **error);

/**
 * pti_mpi_alltoallv:
 * @rank: the calling process
 * @send_bytes: (array): for each rank j, the bytes @rank sends to j
 * @recv_bytes: (array): for each rank j, the bytes @rank receives from j
 *
 * An all-to-all with a block size per pair (MPI_Alltoallv).  Both arrays
 * have one entry per process and are read during the call only.  What rank
 * i sends to j must be what j receives from i (as MPI requires); a
 * mismatch is reported by pti_evaluate() as a message longer than its
 * receive, one nobody receives, or a deadlock.  Zero-byte blocks are not
 * sent.
 */
PTI_API gboolean pti_mpi_alltoallv (PtiContext *ctx, guint rank, const guint64 *send_bytes,
                                    const guint64 *recv_bytes, GError **error);

/**
 * pti_mpi_scan / pti_mpi_exscan:
 * @bytes: the buffer's length (the same on every rank)
 *
 * MPI_Scan and MPI_Exscan (a sum of doubles, as the other reductions),
 * by MPICH's recursive doubling (wsl/COLLECTIVES.md).  0 bytes sends nothing.
 */
PTI_API gboolean pti_mpi_scan (PtiContext *ctx, guint rank, guint64 bytes, GError **error);
PTI_API gboolean pti_mpi_exscan (PtiContext *ctx, guint rank, guint64 bytes, GError **error);

/**
 * pti_mpi_reduce_scatter:
 * @recv_bytes: (array): for each rank j, the bytes of the result j gets
 *   (MPI's recvcounts times the datatype's size); the same on every rank
 *
 * MPI_Reduce_scatter: the vector of the sum of @recv_bytes bytes is
 * reduced and rank j gets its j-th block; by recursive halving below
 * 524288 bytes in all, else pairwise, as MPICH.
 */
PTI_API gboolean pti_mpi_reduce_scatter (PtiContext *ctx, guint rank, const guint64 *recv_bytes,
                                         GError **error);

/**
 * pti_mpi_reduce_scatter_block:
 * @bytes: the block every rank gets (the vector is @bytes times the ranks)
 *
 * MPI_Reduce_scatter_block: pti_mpi_reduce_scatter() with equal blocks.
 */
PTI_API gboolean pti_mpi_reduce_scatter_block (PtiContext *ctx, guint rank, guint64 bytes,
                                               GError **error);

/**
 * pti_mpi_gatherv:
 * @send_bytes: what @rank contributes
 * @recv_bytes: (array) (nullable): on the root, for each rank j the bytes
 *   it receives from j (MPI's recvcounts); ignored (may be NULL) elsewhere
 *
 * MPI_Gatherv, linear as MPICH: the root receives every non-empty block,
 * posted in rank order, and waits for all; from 32 ranks on the others
 * send synchronously (MPIR_CVAR_GATHERV_INTER_SSEND_MIN_PROCS).
 */
PTI_API gboolean pti_mpi_gatherv (PtiContext *ctx, guint rank, guint root, guint64 send_bytes,
                                  const guint64 *recv_bytes, GError **error);

/**
 * pti_mpi_scatterv:
 * @send_bytes: (array) (nullable): on the root, for each rank j the bytes
 *   it sends to j (MPI's sendcounts); ignored (may be NULL) elsewhere
 * @recv_bytes: what @rank receives
 *
 * MPI_Scatterv, linear as MPICH: the root sends every non-empty block,
 * posted in rank order, and waits for all.
 */
PTI_API gboolean pti_mpi_scatterv (PtiContext *ctx, guint rank, guint root,
                                   const guint64 *send_bytes, guint64 recv_bytes,
                                   GError **error);

/**
 * pti_mpi_allgatherv:
 * @recv_bytes: (array): for each rank j, the bytes of its block (MPI's
 *   recvcounts); the same on every rank
 *
 * MPI_Allgatherv, by recursive doubling, Bruck's algorithm or a ring,
 * chosen on the total as MPICH chooses allgather's.
 */
PTI_API gboolean pti_mpi_allgatherv (PtiContext *ctx, guint rank, const guint64 *recv_bytes,
                                     GError **error);

/**
 * pti_context_set_collective_algorithm:
 * @collective: "barrier", "bcast", "reduce", "allreduce", "gather",
 *   "scatter", "allgather", "alltoall", "alltoallv", "scan", "exscan",
 *   "reduce_scatter", "reduce_scatter_block", "gatherv", "scatterv" or
 *   "allgatherv"
 * @algorithm: (nullable): an algorithm of that collective (wsl/COLLECTIVES.md
 *   lists them: "recursive_doubling", "ring", "brucks", ...), "auto" for the
 *   MPICH-like choice by size and process count, or NULL to use the
 *   system's choice (HMC `<mpi>`) again
 *
 * Chooses the algorithm of @collective for the calls that follow, in every
 * communicator, over the system's.  Set it before any rank's call of the
 * collectives it should change: ranks that disagree on the algorithm of one
 * collective call are reported as a mismatch.
 * Returns: FALSE for an unknown collective or algorithm.
 */
PTI_API gboolean pti_context_set_collective_algorithm (PtiContext *ctx, const char *collective,
                                                       const char *algorithm, GError **error);

/* ---- communicators ---------------------------------------------------- */

/**
 * PtiComm:
 *
 * A communicator, as seen by every process at once.  The world holds all
 * processes.  A split (pti_comm_split()) is the result of one
 * MPI_Comm_split: a family of disjoint communicators, one per colour, and
 * each process sees the one it belongs to, if any (pti_comm_rank()).
 * Communicators are owned by the context that made them and live as long as
 * it does; each split costs about 20 bytes per process.  Messages of
 * different communicators never match each other, and collective traffic
 * never matches point-to-point traffic.
 *
 * Ranks: the functions below take the calling process as @rank, its rank
 * among all processes (the world rank, as everywhere in this API); peers
 * and roots are ranks within the communicator, as in MPI.  A NULL
 * communicator is the world.
 */
typedef struct _PtiComm PtiComm;

/**
 * PTI_UNDEFINED:
 *
 * A colour for pti_comm_split() that puts the process in no communicator
 * (MPI_UNDEFINED); any negative colour does.
 */
#define PTI_UNDEFINED (-1)

/**
 * pti_comm_world:
 *
 * Returns: (transfer none): the communicator of all processes (MPI_COMM_WORLD).
 */
PTI_API PtiComm *pti_comm_world (PtiContext *ctx);

/**
 * pti_comm_split:
 * @parent: (nullable): the communicator to split; NULL for the world
 * @name: (nullable): a name for messages ("rows"); NULL for "split N"
 * @colour: (array): for each process (by world rank), its colour: processes
 *   of @parent with the same colour form one communicator; a negative colour
 *   (PTI_UNDEFINED) puts the process in none.  Entries of processes outside
 *   @parent are ignored.
 * @key: (array) (nullable): for each process (by world rank), its key: the
 *   ranks of a new communicator are ordered by key, then by rank in @parent
 *   (MPI_Comm_split).  NULL: all keys 0 (the parent's order).
 *
 * Splits @parent as every member process calling MPI_Comm_split with its
 * colour and key would.  The arrays have pti_context_get_processes()
 * entries and are read during the call only.  Making a communicator costs
 * no simulated time: the time each rank spends in the MPI call is
 * pti_mpi_comm_setup()'s, called where the rank makes it.  At most 32766
 * splits per context.
 * Returns: (transfer none): the split, owned by @ctx; NULL with @error if
 *   the processes are not set or @parent belongs to another context.
 */
PTI_API PtiComm *pti_comm_split (PtiContext *ctx, const PtiComm *parent, const char *name,
                                 const gint *colour, const gint *key, GError **error);

/**
 * pti_comm_dup:
 * @comm: (nullable): the communicator to duplicate; NULL for the world
 * @name: (nullable): a name for messages; NULL for "split N"
 *
 * MPI_Comm_dup called by every member of @comm: the same groups, ranks and
 * sizes, with matching contexts of their own (messages of @comm never
 * match the duplicate's).  A split, as pti_comm_split() makes, with the
 * same limits and costs.
 * Returns: (transfer none): the duplicate, owned by @ctx; NULL with @error.
 */
PTI_API PtiComm *pti_comm_dup (PtiContext *ctx, const PtiComm *comm, const char *name,
                               GError **error);

/**
 * pti_comm_create:
 * @parent: (nullable): the communicator the group is taken from; NULL for
 *   the world
 * @name: (nullable): a name for messages
 * @n_members: the group's size (>= 1)
 * @members: (array length=n_members): the group's processes, as world
 *   ranks, in rank order: @members[i] gets rank i
 *
 * MPI_Group_incl then MPI_Comm_create (or MPI_Comm_create_group) over
 * @parent: one communicator of @members; the other processes get none
 * (pti_comm_rank() -1).  The members must be distinct and all in the same
 * communicator of @parent.  Made on top of pti_comm_split().
 * Returns: (transfer none): the communicator, owned by @ctx; NULL with @error.
 */
PTI_API PtiComm *pti_comm_create (PtiContext *ctx, const PtiComm *parent, const char *name,
                                  guint n_members, const guint *members, GError **error);

/**
 * PtiCommSetup:
 * @PTI_COMM_SETUP_PLAIN: MPI_Comm_dup, MPI_Comm_create and the like
 * @PTI_COMM_SETUP_SPLIT: MPI_Comm_split and MPI_Comm_split_type, which
 *   first gather every member's colour and key
 * @PTI_COMM_SETUP_TOPOLOGY: MPI_Cart_create, MPI_Cart_sub and the graph
 *   constructors, whose first call on a rank costs more (the HMC's
 *   `first_topology`)
 * @PTI_COMM_SETUP_ALONE: or'ed with one of the above: @parent holds the
 *   rank alone (MPI_COMM_SELF), or is an inter-communicator whose
 *   agreement pti does not model: no messages, the local set-up only
 *
 * What kind of communicator pti_mpi_comm_setup() makes.
 */
typedef enum {
  PTI_COMM_SETUP_PLAIN = 0,
  PTI_COMM_SETUP_SPLIT = 1,
  PTI_COMM_SETUP_TOPOLOGY = 2,
  PTI_COMM_SETUP_ALONE = 4,
} PtiCommSetup;

/**
 * pti_mpi_comm_setup:
 * @parent: (nullable): the communicator the new one is made over (NULL:
 *   the world); ignored with PTI_COMM_SETUP_ALONE
 * @rank: the calling process (world rank)
 * @kind: a #PtiCommSetup
 *
 * @rank's part in making a communicator over @parent, as Open MPI 4.1
 * makes one (wsl/COLLECTIVES.md, "Communicator creation"): for a split, an
 * allgather of colour and key (8 bytes a rank); then three allreduces of
 * one int (4 bytes) over @parent, through the collectives and the network
 * model (the context id proposed, checked, and the activation); then the
 * library's local set-up, the system's `<mpi><comm_create>`: `first` for
 * the rank's first communicator that is not a topology, `first_topology`
 * for its first topology, `later` for every other, a fixed time not scaled
 * by the CPU model (a use named "comm_setup"); none without the element.
 * Every member of @parent's communicator must call it for the same
 * communicator in the same order, as MPI's own calls.  The communicator
 * itself is made by pti_comm_split() and the like, which cost nothing:
 * this is the time, that is the matching.
 * Returns: FALSE with @error as the collectives' calls do.
 */
PTI_API gboolean pti_mpi_comm_setup (PtiContext *ctx, const PtiComm *parent, guint rank,
                                     PtiCommSetup kind, GError **error);

/**
 * PtiCallSetup:
 * @PTI_CALL_SETUP_FIRST_COLLECTIVE: the rank's first call of a collective
 *   function (the caller knows it is the first: each function once, a
 *   blocking one and its non-blocking form apart)
 * @PTI_CALL_SETUP_COMM_FREE: MPI_Comm_free
 *
 * What pti_mpi_call_setup() prices.
 */
typedef enum {
  PTI_CALL_SETUP_FIRST_COLLECTIVE = 0,
  PTI_CALL_SETUP_COMM_FREE = 1,
} PtiCallSetup;

/**
 * pti_mpi_call_setup:
 * @rank: the calling process (world rank)
 * @what: a #PtiCallSetup
 *
 * The MPI library's own local time in a call on @rank beyond the call's
 * messages (wsl/COLLECTIVES.md, "Communicator creation"): for
 * PTI_CALL_SETUP_FIRST_COLLECTIVE the system's `<mpi><first_collective>`,
 * `first` the first time the rank calls this and `other` every later time
 * (call it before the collective itself); for PTI_CALL_SETUP_COMM_FREE its
 * `<mpi><comm_free>`, `first` for the rank's first free and `later` for
 * every other.  A fixed time not scaled by the CPU model (a use named
 * "mpi_setup"); none without the element.  No messages: MPI_Comm_free
 * does not synchronise the ranks in Open MPI.
 * Returns: FALSE with @error if @rank is not a process or @what not a
 *   #PtiCallSetup.
 */
PTI_API gboolean pti_mpi_call_setup (PtiContext *ctx, guint rank, PtiCallSetup what,
                                     GError **error);

/**
 * pti_comm_rank:
 * @world_rank: a process
 *
 * Returns: @world_rank's rank in the communicator of @comm it belongs to,
 *   or -1 if it belongs to none (or is not a process).
 */
PTI_API gint pti_comm_rank (const PtiComm *comm, guint world_rank);

/**
 * pti_comm_size:
 *
 * Returns: the size of the communicator of @comm that @world_rank belongs
 *   to, or 0 if it belongs to none.
 */
PTI_API guint pti_comm_size (const PtiComm *comm, guint world_rank);

/**
 * pti_comm_world_rank:
 * @world_rank: a process of @comm
 * @comm_rank: a rank in @world_rank's communicator
 *
 * Returns: the world rank of @comm_rank in @world_rank's communicator
 *   (MPI_Group_translate_ranks), or G_MAXUINT if either is out of range.
 */
PTI_API guint pti_comm_world_rank (const PtiComm *comm, guint world_rank, guint comm_rank);

/**
 * pti_comm_set_model:
 * @comm: (nullable): the communicator; NULL for the world
 * @model: a choice from pti_context_model_choice(), or PTI_MODEL_DEFAULT
 *
 * Every message of @comm in the evaluation (whenever it was given) — point-to-point
 * and the traffic its collectives expand into, of every communicator of a
 * split — goes by the configuration @model names on its route (the
 * network of its two processes, or their node's intra-node model) instead
 * of the route's default: the network's model choice is the
 * communicator's, as an MPI program chooses a communicator per phase.
 * Call after pti_context_set_processes(), before the evaluation.
 * Returns: FALSE with @error naming a member rank whose route has no
 *   configuration of that name, and what it has.
 */
PTI_API gboolean pti_comm_set_model (PtiContext *ctx, const PtiComm *comm, PtiModelChoice model,
                                     GError **error);

/** pti_comm_get_name: Returns: (transfer none): "world", or the split's name. */
PTI_API const char *pti_comm_get_name (const PtiComm *comm);

/**
 * pti_mpi_send_comm / pti_mpi_recv_comm / pti_mpi_isend_comm / pti_mpi_irecv_comm:
 * @comm: (nullable): the communicator; NULL for the world
 * @rank: the calling process (world rank), a member of @comm
 * @dst / @src: a rank in @rank's communicator; @src may be PTI_ANY_SOURCE
 *
 * pti_mpi_send() and friends within a communicator: the peer is a rank of
 * it, and the message matches only receives of the same communicator.  The
 * requests are completed by pti_mpi_wait() and friends as any other.
 */
PTI_API gboolean pti_mpi_send_comm (PtiContext *ctx, const PtiComm *comm, guint rank, guint dst,
                                    guint64 bytes, gint tag, GError **error);
PTI_API gboolean pti_mpi_recv_comm (PtiContext *ctx, const PtiComm *comm, guint rank, guint src,
                                    guint64 bytes, gint tag, GError **error);
PTI_API gboolean pti_mpi_isend_comm (PtiContext *ctx, const PtiComm *comm, guint rank, guint dst,
                                     guint64 bytes, gint tag, PtiRequest *request, GError **error);
PTI_API gboolean pti_mpi_irecv_comm (PtiContext *ctx, const PtiComm *comm, guint rank, guint src,
                                     guint64 bytes, gint tag, PtiRequest *request, GError **error);

/**
 * pti_mpi_ssend_comm / pti_mpi_issend_comm / pti_mpi_probe_comm /
 * pti_mpi_sendrecv_comm / pti_mpi_sendrecv_replace_comm:
 * @comm: (nullable): the communicator; NULL for the world
 *
 * The calls above within a communicator: peers are ranks of it.
 */
PTI_API gboolean pti_mpi_ssend_comm (PtiContext *ctx, const PtiComm *comm, guint rank, guint dst,
                                     guint64 bytes, gint tag, GError **error);
PTI_API gboolean pti_mpi_issend_comm (PtiContext *ctx, const PtiComm *comm, guint rank, guint dst,
                                      guint64 bytes, gint tag, PtiRequest *request,
                                      GError **error);
PTI_API gboolean pti_mpi_probe_comm (PtiContext *ctx, const PtiComm *comm, guint rank, guint src,
                                     gint tag, GError **error);
PTI_API gboolean pti_mpi_sendrecv_comm (PtiContext *ctx, const PtiComm *comm, guint rank,
                                        guint dst, guint64 send_bytes, gint send_tag, guint src,
                                        guint64 recv_bytes, gint recv_tag, GError **error);
PTI_API gboolean pti_mpi_sendrecv_replace_comm (PtiContext *ctx, const PtiComm *comm, guint rank,
                                                guint dst, gint send_tag, guint src,
                                                gint recv_tag, guint64 bytes, GError **error);

/**
 * pti_mpi_barrier_comm and the other `_comm` collectives:
 * @comm: (nullable): the communicator; NULL for the world
 * @rank: the calling process (world rank), a member of @comm
 * @root: a rank in @rank's communicator
 *
 * The collectives above on the communicator of @comm that @rank belongs to;
 * sizes, algorithms and rules as there, with the communicator's size as
 * the process count.  @send_bytes and @recv_bytes of alltoallv have one
 * entry per rank of that communicator.
 */
PTI_API gboolean pti_mpi_barrier_comm (PtiContext *ctx, const PtiComm *comm, guint rank,
                                       GError **error);
PTI_API gboolean pti_mpi_bcast_comm (PtiContext *ctx, const PtiComm *comm, guint rank, guint root,
                                     guint64 bytes, GError **error);
PTI_API gboolean pti_mpi_reduce_comm (PtiContext *ctx, const PtiComm *comm, guint rank, guint root,
                                      guint64 bytes, GError **error);
PTI_API gboolean pti_mpi_allreduce_comm (PtiContext *ctx, const PtiComm *comm, guint rank,
                                         guint64 bytes, GError **error);
PTI_API gboolean pti_mpi_gather_comm (PtiContext *ctx, const PtiComm *comm, guint rank, guint root,
                                      guint64 bytes, GError **error);
PTI_API gboolean pti_mpi_scatter_comm (PtiContext *ctx, const PtiComm *comm, guint rank,
                                       guint root, guint64 bytes, GError **error);
PTI_API gboolean pti_mpi_allgather_comm (PtiContext *ctx, const PtiComm *comm, guint rank,
                                         guint64 bytes, GError **error);
PTI_API gboolean pti_mpi_alltoall_comm (PtiContext *ctx, const PtiComm *comm, guint rank,
                                        guint64 bytes, GError **error);
PTI_API gboolean pti_mpi_alltoallv_comm (PtiContext *ctx, const PtiComm *comm, guint rank,
                                         const guint64 *send_bytes, const guint64 *recv_bytes,
                                         GError **error);

PTI_API gboolean pti_mpi_scan_comm (PtiContext *ctx, const PtiComm *comm, guint rank,
                                    guint64 bytes, GError **error);
PTI_API gboolean pti_mpi_exscan_comm (PtiContext *ctx, const PtiComm *comm, guint rank,
                                      guint64 bytes, GError **error);
PTI_API gboolean pti_mpi_reduce_scatter_comm (PtiContext *ctx, const PtiComm *comm, guint rank,
                                              const guint64 *recv_bytes, GError **error);
PTI_API gboolean pti_mpi_reduce_scatter_block_comm (PtiContext *ctx, const PtiComm *comm,
                                                    guint rank, guint64 bytes, GError **error);
PTI_API gboolean pti_mpi_gatherv_comm (PtiContext *ctx, const PtiComm *comm, guint rank,
                                       guint root, guint64 send_bytes, const guint64 *recv_bytes,
                                       GError **error);
PTI_API gboolean pti_mpi_scatterv_comm (PtiContext *ctx, const PtiComm *comm, guint rank,
                                        guint root, const guint64 *send_bytes, guint64 recv_bytes,
                                        GError **error);
PTI_API gboolean pti_mpi_allgatherv_comm (PtiContext *ctx, const PtiComm *comm, guint rank,
                                          const guint64 *recv_bytes, GError **error);

/* ---- non-blocking collectives ---------------------------------------- */

/**
 * pti_mpi_ibarrier and the other non-blocking collectives:
 * @request: (out): the request, completed by pti_mpi_wait() or
 *   pti_mpi_waitall() (not pti_mpi_waitany()), alone or with others;
 *   PTI_REQUEST_NULL if the call has nothing to do (one rank, no data)
 *
 * MPI_Ibarrier, MPI_Ibcast, ... MPI_Iallgatherv: the blocking collective's
 * arguments and algorithm (chosen as for it), made as MPICH makes a
 * non-blocking collective without an asynchronous progress thread.  At the
 * call the rank posts what the algorithm's first steps send and receive,
 * up to the first step that needs data to arrive; the rest is made by the
 * wait, once that has arrived, as the blocking algorithm would.  So the
 * first round overlaps the computation between call and wait, and the
 * later rounds happen in the wait (wsl/COLLECTIVES.md).  Every call has
 * tags of its own, so several may be outstanding on one communicator.
 * Every member calls them in the same order as the other collectives, and
 * an iallreduce is not an allreduce (a mismatch otherwise); a request
 * never waited for is an error of pti_evaluate().  The `_comm` forms take
 * a communicator as the other collectives do.
 */
PTI_API gboolean pti_mpi_ibarrier (PtiContext *ctx, guint rank, PtiRequest *request,
                                   GError **error);
PTI_API gboolean pti_mpi_ibarrier_comm (PtiContext *ctx, const PtiComm *comm, guint rank,
                                        PtiRequest *request, GError **error);
PTI_API gboolean pti_mpi_ibcast (PtiContext *ctx, guint rank, guint root, guint64 bytes,
                                 PtiRequest *request, GError **error);
PTI_API gboolean pti_mpi_ibcast_comm (PtiContext *ctx, const PtiComm *comm, guint rank, guint root,
                                      guint64 bytes, PtiRequest *request, GError **error);
PTI_API gboolean pti_mpi_ireduce (PtiContext *ctx, guint rank, guint root, guint64 bytes,
                                  PtiRequest *request, GError **error);
PTI_API gboolean pti_mpi_ireduce_comm (PtiContext *ctx, const PtiComm *comm, guint rank, guint root,
                                       guint64 bytes, PtiRequest *request, GError **error);
PTI_API gboolean pti_mpi_iallreduce (PtiContext *ctx, guint rank, guint64 bytes,
                                     PtiRequest *request, GError **error);
PTI_API gboolean pti_mpi_iallreduce_comm (PtiContext *ctx, const PtiComm *comm, guint rank,
                                          guint64 bytes, PtiRequest *request, GError **error);
PTI_API gboolean pti_mpi_igather (PtiContext *ctx, guint rank, guint root, guint64 bytes,
                                  PtiRequest *request, GError **error);
PTI_API gboolean pti_mpi_igather_comm (PtiContext *ctx, const PtiComm *comm, guint rank, guint root,
                                       guint64 bytes, PtiRequest *request, GError **error);
PTI_API gboolean pti_mpi_iscatter (PtiContext *ctx, guint rank, guint root, guint64 bytes,
                                   PtiRequest *request, GError **error);
PTI_API gboolean pti_mpi_iscatter_comm (PtiContext *ctx, const PtiComm *comm, guint rank,
                                        guint root, guint64 bytes, PtiRequest *request,
                                        GError **error);
PTI_API gboolean pti_mpi_iallgather (PtiContext *ctx, guint rank, guint64 bytes,
                                     PtiRequest *request, GError **error);
PTI_API gboolean pti_mpi_iallgather_comm (PtiContext *ctx, const PtiComm *comm, guint rank,
                                          guint64 bytes, PtiRequest *request, GError **error);
PTI_API gboolean pti_mpi_ialltoall (PtiContext *ctx, guint rank, guint64 bytes, PtiRequest *request,
                                    GError **error);
PTI_API gboolean pti_mpi_ialltoall_comm (PtiContext *ctx, const PtiComm *comm, guint rank,
                                         guint64 bytes, PtiRequest *request, GError **error);
PTI_API gboolean pti_mpi_ialltoallv (PtiContext *ctx, guint rank, const guint64 *send_bytes,
                                     const guint64 *recv_bytes, PtiRequest *request,
                                     GError **error);
PTI_API gboolean pti_mpi_ialltoallv_comm (PtiContext *ctx, const PtiComm *comm, guint rank,
                                          const guint64 *send_bytes, const guint64 *recv_bytes,
                                          PtiRequest *request, GError **error);
PTI_API gboolean pti_mpi_iscan (PtiContext *ctx, guint rank, guint64 bytes, PtiRequest *request,
                                GError **error);
PTI_API gboolean pti_mpi_iscan_comm (PtiContext *ctx, const PtiComm *comm, guint rank,
                                     guint64 bytes, PtiRequest *request, GError **error);
PTI_API gboolean pti_mpi_iexscan (PtiContext *ctx, guint rank, guint64 bytes, PtiRequest *request,
                                  GError **error);
PTI_API gboolean pti_mpi_iexscan_comm (PtiContext *ctx, const PtiComm *comm, guint rank,
                                       guint64 bytes, PtiRequest *request, GError **error);
PTI_API gboolean pti_mpi_ireduce_scatter (PtiContext *ctx, guint rank, const guint64 *recv_bytes,
                                          PtiRequest *request, GError **error);
PTI_API gboolean pti_mpi_ireduce_scatter_comm (PtiContext *ctx, const PtiComm *comm, guint rank,
                                               const guint64 *recv_bytes, PtiRequest *request,
                                               GError **error);
PTI_API gboolean pti_mpi_ireduce_scatter_block (PtiContext *ctx, guint rank, guint64 bytes,
                                                PtiRequest *request, GError **error);
PTI_API gboolean pti_mpi_ireduce_scatter_block_comm (PtiContext *ctx, const PtiComm *comm,
                                                     guint rank, guint64 bytes, PtiRequest *request,
                                                     GError **error);
PTI_API gboolean pti_mpi_igatherv (PtiContext *ctx, guint rank, guint root, guint64 send_bytes,
                                   const guint64 *recv_bytes, PtiRequest *request, GError **error);
PTI_API gboolean pti_mpi_igatherv_comm (PtiContext *ctx, const PtiComm *comm, guint rank,
                                        guint root, guint64 send_bytes, const guint64 *recv_bytes,
                                        PtiRequest *request, GError **error);
PTI_API gboolean pti_mpi_iscatterv (PtiContext *ctx, guint rank, guint root,
                                    const guint64 *send_bytes, guint64 recv_bytes,
                                    PtiRequest *request, GError **error);
PTI_API gboolean pti_mpi_iscatterv_comm (PtiContext *ctx, const PtiComm *comm, guint rank,
                                         guint root, const guint64 *send_bytes, guint64 recv_bytes,
                                         PtiRequest *request, GError **error);
PTI_API gboolean pti_mpi_iallgatherv (PtiContext *ctx, guint rank, const guint64 *recv_bytes,
                                      PtiRequest *request, GError **error);
PTI_API gboolean pti_mpi_iallgatherv_comm (PtiContext *ctx, const PtiComm *comm, guint rank,
                                           const guint64 *recv_bytes, PtiRequest *request,
                                           GError **error);

/* ---- the io device (files) -------------------------------------------- */

/**
 * PtiFile:
 *
 * A file of the io device: the same number on every rank that opens the
 * same name (files are numbered 0, 1, ... in order of first open; the
 * number also picks the file's first server in striped models).
 */
typedef guint PtiFile;

/**
 * PtiIoHints:
 * @stripe_size: bytes per stripe, or 0 for the file system's default
 * @stripe_count: servers the file is striped over, or 0 for the default
 *
 * A file's layout, as MPI-IO's `striping_unit` and `striping_factor` hints
 * (Lustre's `lfs setstripe`) set it: the first open of a name decides.
 */
typedef struct {
  guint64 stripe_size;
  guint stripe_count;
} PtiIoHints;

/**
 * pti_io_open:
 * @rank: the process that opens
 * @name: the file's name (any text; the same name is the same file)
 * @hints: (nullable): its layout, or NULL for the file system's defaults
 * @file: (out): the file, for the calls below on @rank
 *
 * POSIX open(2) of one rank: a metadata request to the file system that
 * @rank's node mounts (HMC <mount>), priced by its I/O model (io-pfs:
 * `metadata_latency` at one FCFS metadata server).  The file stays open on
 * @rank until pti_io_close().  Every io call fails with an error naming the
 * rank if its node mounts no file system.
 */
PTI_API gboolean pti_io_open (PtiContext *ctx, guint rank, const char *name,
                              const PtiIoHints *hints, PtiFile *file, GError **error);

/**
 * pti_io_open_all:
 * @comm: (nullable): the communicator (NULL: the world) whose ranks open it
 *   together, as MPI_File_open
 *
 * MPI_File_open: a collective call, made by every rank of @rank's group of
 * @comm (each calls it with its own @rank, the same @name).  Collective
 * calls synchronise: each rank waits for the last of its group, then the
 * I/O model prices the call as one (io-pfs: one open per rank at the
 * metadata server) and all leave at its end.  The file's *_all calls are
 * collective over the same group.
 */
PTI_API gboolean pti_io_open_all (PtiContext *ctx, const PtiComm *comm, guint rank,
                                  const char *name, const PtiIoHints *hints, PtiFile *file,
                                  GError **error);

/**
 * pti_io_close:
 *
 * Closes @file on @rank: close(2) for a file pti_io_open() opened, the
 * collective MPI_File_close for one pti_io_open_all() opened.
 */
PTI_API gboolean pti_io_close (PtiContext *ctx, guint rank, PtiFile file, GError **error);

/**
 * pti_io_write_at:
 * @offset: where in the file (bytes)
 * @bytes: how many
 *
 * An independent write of @rank (pwrite(2), MPI_File_write_at): blocks
 * the rank until the file system model says it is done (io-pfs: through
 * the node's link and the servers the bytes are striped over, each a FCFS
 * queue).  A write of 0 bytes takes no time.
 */
PTI_API gboolean pti_io_write_at (PtiContext *ctx, guint rank, PtiFile file, guint64 offset,
                                  guint64 bytes, GError **error);
/** pti_io_read_at: an independent read (pread(2), MPI_File_read_at), as pti_io_write_at(). */
PTI_API gboolean pti_io_read_at (PtiContext *ctx, guint rank, PtiFile file, guint64 offset,
                                 guint64 bytes, GError **error);

/**
 * pti_io_write_at_all:
 *
 * MPI_File_write_at_all: a collective write over the group that opened
 * @file with pti_io_open_all(); each rank gives its own @offset and
 * @bytes (0 allowed).  It synchronises the group as pti_io_open_all() does;
 * io-pfs then models ROMIO's two-phase I/O (models/io-pfs/README.md).
 */
PTI_API gboolean pti_io_write_at_all (PtiContext *ctx, guint rank, PtiFile file, guint64 offset,
                                      guint64 bytes, GError **error);
/** pti_io_read_at_all: MPI_File_read_at_all, as pti_io_write_at_all(). */
PTI_API gboolean pti_io_read_at_all (PtiContext *ctx, guint rank, PtiFile file, guint64 offset,
                                     guint64 bytes, GError **error);

/* ---- live reconfiguration --------------------------------------------- */

/**
 * pti_context_change_at:
 * @time: simulated time in s (>= 0) at which the change happens
 * @target: the network whose model changes (its HMC name, e.g. "myrinet"),
 *   "computer:NAME" for a computer's intra-node model, or "cpu:NAME" for
 *   its CPU ("speed[NODES]" and "available[NODES]" where its model
 *   declares them: cpu-clc, cpu-time; hmi.h PtiChangeKey)
 * @element: the model parameter, as its configuration element is called,
 *   with the links or parts it applies to in brackets where the model takes
 *   them: "background_load", "link_load[s1.*:up]", "link_bandwidth"
 * @value: the new value as text, with a unit where the parameter has one
 *   ("0.3", "2Gb/s")
 *
 * Changes a model parameter during the evaluation, the way a monitoring
 * sensor would feed a measured background load to the model (paper section
 * 3.4).  The model checks the change now; it happens when the evaluation
 * reaches @time, before any traffic at that time, and affects the messages
 * then in flight (net-contention recomputes their rates).  Changes at one
 * time apply in the order given.  Call after pti_context_set_processes().
 * `ptieval --changes FILE` reads a schedule of them.
 */
PTI_API gboolean pti_context_change_at (PtiContext *ctx, double time, const char *target,
                                        const char *element, const char *value,
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

/**
 * pti_evaluate_partial:
 *
 * The paper's partial evaluation (section 3.2): resolves what the events
 * given so far determine, writes those events to the trace (as one
 * `<events>` chunk) and frees them; messages in flight and blocked ranks
 * carry over, and the workload goes on as before.  Memory then stays
 * bounded by the events between two evaluation points — provided the
 * workload is built in phases across ranks (all ranks' iteration i, then
 * partial evaluation, then iteration i+1): a rank built far ahead of the
 * others cannot be resolved before the others catch up.  Results are those
 * of one full pti_evaluate(), which must still end the workload.
 */
PTI_API gboolean pti_evaluate_partial (PtiContext *ctx, GError **error);

/**
 * pti_context_set_pending_limit:
 * @events: 0 (the default) for none
 *
 * The automatic mode of partial evaluation: whenever @events more events
 * have been appended since the last partial evaluation, one is run.  About
 * 56 bytes are held per pending event.
 */
PTI_API void pti_context_set_pending_limit (PtiContext *ctx, guint64 events);

/**
 * pti_repeat_begin:
 * @rank: the rank whose block begins
 * @count: how many times the block runs (>= 1)
 *
 * The paper's analytical repetition (section 3.2): the device uses @rank
 * adds until pti_repeat_end() form a block that runs @count times, though it
 * is given, stored and priced once.  Every rank marks its blocks, with the
 * same counts in the same order.  A block must be self-contained: what it
 * sends is received, and the requests it makes are completed, in the same
 * repetition.  pti_evaluate() evaluates repetitions through the models until
 * two in a row advance every rank by the same time, then derives the rest
 * without calling any model (exact for models without state carried from
 * one repetition to the next, such as net-simple's latency/bandwidth form,
 * or net-contention when no message crosses a block's end).  A scheduled
 * change (pti_context_change_at) stops the extrapolation before it: the
 * repetition it falls in is evaluated through the models.
 * The trace holds the repetitions evaluated; the summary counts them all.
 * Cannot be combined with pti_evaluate_partial() (yet).
 */
PTI_API gboolean pti_repeat_begin (PtiContext *ctx, guint rank, guint64 count, GError **error);

/** pti_repeat_end: ends @rank's block begun by pti_repeat_begin(). */
PTI_API gboolean pti_repeat_end (PtiContext *ctx, guint rank, GError **error);

/** pti_result_time: Returns: the predicted execution time in s (after pti_evaluate). */
PTI_API double pti_result_time (const PtiContext *ctx);

/** pti_result_efficiency: Returns: the parallel efficiency of the run, the
 * compute time of all ranks over ranks x predicted time (what the assertion
 * name `efficiency` reads); NaN before pti_evaluate or when the predicted
 * time is 0. */
PTI_API double pti_result_efficiency (const PtiContext *ctx);

/** pti_result_events: Returns: the number of events evaluated. */
PTI_API guint64 pti_result_events (const PtiContext *ctx);

/**
 * PtiProcessResult:
 *
 * Where one process's time went.  compute + comm + wait + (time - end) = time,
 * and pti_result_io() for workloads that use the io device.
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

/**
 * pti_result_io:
 *
 * The time @rank spent in the io device: its file system requests, and of
 * a collective call the time after its last rank arrived (before, it is
 * the rank's `wait`).  compute + comm + wait + io + (time - end) = time.
 * (A function rather than a field of PtiProcessResult, which programs
 * built against an older pti allocate.)
 * Returns: the time in s, or NaN if @rank is out of range or not yet
 * evaluated.
 */
PTI_API double pti_result_io (const PtiContext *ctx, guint rank);

/* ---- phases and performance assertions (seed 000) ---------------------- */

/**
 * pti_phase_begin:
 * @rank: the process entering the phase
 * @name: the phase's name, an identifier ([A-Za-z_][A-Za-z0-9_]*), which
 *   assertions read as NAME_time, NAME_comm_max, ...
 *
 * Marks where @rank enters a named region of its program.  Phases nest
 * (a rank ends its innermost phase first), may be entered many times (the
 * figures add up), and a phase begun inside a pti_repeat_begin() block
 * ends inside it.  Like a device use, the marker takes its place in
 * @rank's sequence: the phase holds what the rank does between the two
 * markers.  Every phase a rank begins it ends.
 * Returns: FALSE if @rank is out of range or @name is not an identifier.
 */
PTI_API gboolean pti_phase_begin (PtiContext *ctx, guint rank, const char *name, GError **error);

/**
 * pti_phase_end:
 * Ends @rank's innermost phase, which must be @name.
 * Returns: FALSE (naming the rank and both phases) otherwise.
 */
PTI_API gboolean pti_phase_end (PtiContext *ctx, guint rank, const char *name, GError **error);

/**
 * pti_assert:
 * @name: names the assertion in reports and tables (printable text
 *   without quotes or commas, unique in the workload)
 * @test: an expression (the syntax of <pti/expr.h>) that must be non-zero
 *
 * States a performance expectation, checked once pti_evaluate() has
 * predicted the run.  @test reads what was predicted: `time`, `ranks`,
 * `events`, `efficiency` (total compute / (ranks x time)), `messages`,
 * `bytes`; per-rank figures aggregated as F_mean, F_max, F_min, F_sum or
 * F_rankN for F in time (a rank's end), compute, comm, wait, messages,
 * bytes, events; per phase P: P_time, P_compute, P_comm, P_wait (the
 * largest over ranks), P_messages, P_bytes (sums), P_entries, P_ranks,
 * P_efficiency and P_F_mean|max|min|sum|rankN; and parameters bound when
 * pti_assert() is called.  For instance `efficiency > 0.8`,
 * `solve_time < 2`, `comm_sum < 0.1 * time * ranks`.
 * The syntax is checked now; names after the evaluation, which fails with
 * an error naming the assertion if a name is unknown or could be read two
 * ways (a parameter and a metric).  A test that is false is not an error:
 * see pti_result_assertion(); ptieval exits 4.
 * Returns: FALSE for a syntax error, a bad or duplicate name, or after
 * pti_evaluate().
 */
PTI_API gboolean pti_assert (PtiContext *ctx, const char *name, const char *test, GError **error);

/**
 * PtiAssertionResult:
 *
 * An assertion after pti_evaluate().  Strings and arrays are owned by the
 * context and live as long as it.
 */
typedef struct {
  const char *name;
  const char *test;
  const char *origin;              /* "FILE:LINE" for a workload file's <assert>, or NULL */
  gboolean passed;                 /* the test's value was neither 0 nor NaN */
  guint n_values;                  /* the names the test read, in order of first use */
  const char *const *value_names;
  const double *values;            /* their values */
} PtiAssertionResult;

/** pti_result_n_assertions: Returns: the number of assertions stated. */
PTI_API guint pti_result_n_assertions (const PtiContext *ctx);
/** pti_result_assertion: Returns: FALSE if @index is out of range or not yet evaluated. */
PTI_API gboolean pti_result_assertion (const PtiContext *ctx, guint index,
                                       PtiAssertionResult *out);
/** pti_result_assertions_failed: Returns: how many assertions failed (after pti_evaluate). */
PTI_API guint pti_result_assertions_failed (const PtiContext *ctx);

/**
 * PtiPhaseResult:
 *
 * What one rank did inside one phase, summed over its entries.
 */
typedef struct {
  double time;                     /* s between entering and leaving it */
  double compute, comm, wait;      /* s, as in PtiProcessResult */
  guint64 messages, bytes;         /* sent inside it */
  guint64 entries;                 /* times the rank entered it (0: never) */
} PtiPhaseResult;

/** pti_result_n_phases: Returns: the number of phase names used (numbered 0, 1, ... in order of first use). */
PTI_API guint pti_result_n_phases (const PtiContext *ctx);
/** pti_result_phase_name: Returns: (transfer none): phase @phase's name, or NULL. */
PTI_API const char *pti_result_phase_name (const PtiContext *ctx, guint phase);
/** pti_result_phase: Returns: FALSE if @phase or @rank is out of range or not yet evaluated. */
PTI_API gboolean pti_result_phase (const PtiContext *ctx, guint phase, guint rank,
                                   PtiPhaseResult *out);

/* ---- workloads given rank by rank ------------------------------------- */

/**
 * PtiRankPullFunc:
 * @ctx: the context
 * @rank: the process whose next device uses the evaluation needs
 * @data: what pti_context_set_source() was given
 * @done: (out): set to TRUE once @rank has nothing more to do
 *
 * The pull form of a workload: instead of giving every rank's device uses
 * before pti_evaluate(), a workload gives them when the evaluation needs
 * them, rank by rank, so that it is never held whole in memory.  The
 * function appends @rank's next device uses with the usual calls (pti_use,
 * pti_mpi_*, the collectives, with @rank as the calling process, and no
 * other rank) — at least one, or none and *@done set.  A few dozen per call
 * is a good batch.  It is called during pti_evaluate() only.
 * Returns: FALSE with @error to stop the evaluation.
 */
typedef gboolean (*PtiRankPullFunc) (PtiContext *ctx, guint rank, gpointer data,
                                     gboolean *done, GError **error);

/**
 * pti_context_set_source:
 * @pull: the workload, rank by rank
 * @data: given to @pull
 * @destroy: (nullable): frees @data with the context
 *
 * Makes @pull the workload's source.  Call after pti_context_set_processes()
 * and before any device use; then pti_evaluate() asks @pull for each rank's
 * device uses as it needs them.  Memory is then bounded by what is in
 * flight (ranks, messages, requests), not by the workload's length.
 * Returns: FALSE if the processes are not set, a source is already set, or
 * device uses were already given.
 */
PTI_API gboolean pti_context_set_source (PtiContext *ctx, PtiRankPullFunc pull, gpointer data,
                                         GDestroyNotify destroy, GError **error);

/**
 * PtiRankFunc:
 * @ctx: the context
 * @rank: the process this program is
 * @data: what pti_context_set_rank_program() was given
 *
 * One rank's whole program, written as an MPI program is: its device uses
 * in order, with @rank as the calling process of every call (pti_use,
 * pti_mpi_*, the collectives, pti_repeat_begin/end) and no other rank.
 * Returns: FALSE with @error to stop the evaluation.
 */
typedef gboolean (*PtiRankFunc) (PtiContext *ctx, guint rank, gpointer data, GError **error);

/**
 * pti_context_set_rank_program:
 * @func: every rank's program
 * @data: given to @func
 * @destroy: (nullable): frees @data with the context
 *
 * The per-rank form of a C workload: pti_evaluate() runs @func once per
 * rank, each as a coroutine it resumes whenever it needs that rank's next
 * device uses (as SimGrid runs its actors), so the workload is never held
 * whole in memory.  Each rank has its own stack (256 KiB of address space,
 * touched as used; the environment variable PTI_RANK_STACK sets it in KiB)
 * and sees its own values of the parameters it binds (they are saved and
 * restored around its turns).  Call after pti_context_set_processes() and
 * before any device use; analytical repetition (pti_repeat_begin) works
 * inside, the block given once and replayed.
 * Returns: FALSE if the processes are not set, or a source or device uses
 * were already given.
 */
PTI_API gboolean pti_context_set_rank_program (PtiContext *ctx, PtiRankFunc func, gpointer data,
                                               GDestroyNotify destroy, GError **error);

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
