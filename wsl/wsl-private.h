/* WSL internals shared inside libpti (the workload-file reader, the CLI
 * driver).  Not installed. */
#pragma once

#include <pti/wsl.h>
#include <libxml/tree.h>

#include "session.h"

G_BEGIN_DECLS

typedef struct _PtiCollState PtiCollState;

/* A workload source's way to skip @n repetitions of the block it is
 * regenerating for @rank (analytical repetition derived them). */
typedef void (*PtiWslSkipFunc) (PtiContext *ctx, guint rank, gpointer data, guint64 n);

struct _PtiContext {
  PtiSession *session;          /* everything the evaluation needs */
  guint n_procs;                /* the session's, once set: read on every call */
  gboolean evaluated;           /* pti_evaluate has run */
  gboolean progress;            /* build-time progress reports are wanted */
  PtiCollState *coll;           /* communicators and collectives (collectives.c), or NULL */
  PtiRankPullFunc source;       /* the workload's source, or NULL (push) */
  PtiWslSkipFunc skip;
  gpointer source_data;
  GDestroyNotify source_destroy;
  guint pull_rank;              /* the rank a source is appending for, or G_MAXUINT */
  gboolean regenerating;        /* the source regenerates repeated blocks itself */
  gpointer programs;            /* rank programs (ranks.c), or NULL */
  gboolean in_collective;       /* expanding a collective: no rank program yields */
  GPtrArray *terms;             /* PtiWslTerm: a workload file's <term>s, or NULL */
  struct _PtiChangeStream *stream; /* ptieval --changes-stream (changes.c), or NULL */
  GPtrArray *io_files;          /* the io device's files (io.c), by PtiFile, or NULL */
  GHashTable *io_names;         /* file name -> PtiFile + 1 */
};

/* A modelling assertion (seed 004): the model of what each rank does in
 * a phase, stated by a workload file's <term phase name value bound/> and
 * checked against captured runs by ptivalidate.  @value: an expression of
 * the parameters, derived values, rank and nprocs. */
typedef struct {
  char *phase, *name, *value;
  double bound;                 /* largest relative error allowed; NaN: the validator's default */
  char *origin;                 /* "FILE:LINE" */
} PtiWslTerm;

/* The terms stated so far (transfer none; NULL if none). */
const GPtrArray *pti_wsl_terms (const PtiContext *ctx);
gboolean pti_wsl_term_add (PtiContext *ctx, const char *phase, const char *name,
                           const char *value, double bound, const char *origin, GError **error);

/* Compile a `<rud device="...">` element already in a document (a workload
 * file).  Same as pti_rud_new() without the parse.  (transfer full) */
PtiRud *pti_rud_new_from_node (PtiContext *ctx, const char *name, const xmlNode *rud,
                               GError **error);

/* Read a workload file (schemas/workload.xsd) and build it in @ctx: declare
 * its parameters (honouring overrides), set the processes, emit every rank's
 * events.  Errors name the file, line and expression.  Defined in
 * workload-file.c. */
gboolean pti_workload_file_build (PtiContext *ctx, const char *path, GError **error);

/* Read a workload file and validate it against schemas/workload.xsd (what
 * pti_workload_file_build() starts with; ptisweep reads the declared
 * parameters from it).  (transfer full) or NULL with @error. */
xmlDoc *pti_workload_file_read (const char *path, GError **error);

/* The checks every device use goes through: the processes are set, the
 * workload is not evaluated, @rank is a process (and the one a source is
 * asked for).  @what names the call in errors. */
gboolean pti_wsl_check_rank_slow (PtiContext *ctx, const char *what, guint rank, GError **error);
static inline gboolean
pti_wsl_check_rank (PtiContext *ctx, const char *what, guint rank, GError **error)
{
  /* The common case in a few comparisons; the rest names the mistake. */
  if (G_LIKELY (rank < ctx->n_procs && !ctx->progress
                && (ctx->pull_rank == rank || (ctx->pull_rank == G_MAXUINT && !ctx->evaluated))))
    return TRUE;
  return pti_wsl_check_rank_slow (ctx, what, rank, error);
}

/* ranks.c: the running rank program yields if its batch is complete. */
void pti_wsl_rank_yield (PtiContext *ctx);
/* To call after each event appended: in push form the automatic partial
 * evaluation (FALSE if it failed); in a rank program, the coroutine's
 * yield once it has appended a batch.  Inline: while a source appends
 * (pull_rank set, the session's pulling) it is a compare. */
static inline gboolean
pti_wsl_appended (PtiContext *ctx, GError **error)
{
  if (G_LIKELY (ctx->pull_rank != G_MAXUINT)) {
    if (G_UNLIKELY (ctx->programs != NULL) && !ctx->in_collective)
      pti_wsl_rank_yield (ctx);
    return TRUE;
  }
  return pti_session_appended (ctx->session, error);
}
/* io.c: the file called @name, which must have been opened (for the
 * workload file's <io_*> statements, which name files).  @what names the
 * statement in the error. */
gboolean pti_wsl_io_lookup (PtiContext *ctx, guint rank, const char *what, const char *name,
                            PtiFile *file, GError **error);

/* The one path of every message into the engine: @kind a send, recv,
 * isend, irecv or probe of world rank @rank to or from world rank @peer (or
 * PTI_ENGINE_ANY_SOURCE) in matching context @context; @request receives a
 * non-blocking one's handle.  Checked by the caller.  Inline: most events
 * of most workloads come this way. */
static inline gboolean
pti_wsl_message (PtiContext *ctx, PtiOpKind kind, guint rank, guint peer, guint64 bytes,
                 gint tag, guint context, PtiRequest *request, GError **error)
{
  PtiEngine *engine = pti_session_engine (ctx->session);
  gboolean ok;
  if (kind == PTI_OP_PROBE) {
    ok = pti_engine_add_probe (engine, rank, peer, tag, context, error);
  } else if (kind == PTI_OP_ISEND || kind == PTI_OP_IRECV) {
    guint32 r = 0;
    ok = pti_engine_add_request (engine, kind, rank, peer, bytes, tag, context, &r, error);
    *request = r;
  } else {
    ok = pti_engine_add_message (engine, kind, rank, peer, bytes, tag, context, error);
  }
  return ok && pti_wsl_appended (ctx, error);
}

/* A synchronous send (ssend with @request NULL, else issend) on the same
 * path: by rendezvous whatever its size.  Checked by the caller. */
gboolean pti_wsl_ssend (PtiContext *ctx, guint rank, guint peer, guint64 bytes, gint tag,
                        guint context, PtiRequest *request, GError **error);

/* A pull source (pti_context_set_source) that can also skip repetitions of
 * the blocks it regenerates (@skip may be NULL). */
gboolean pti_wsl_set_source (PtiContext *ctx, PtiRankPullFunc pull, PtiWslSkipFunc skip,
                             gpointer data, GDestroyNotify destroy, GError **error);

/* The session behind @ctx. */
PtiSession *pti_wsl_session (PtiContext *ctx);

/* Collectives and communicators (collectives.c, comm.c; coll-private.h).
 * The state lives in the context (wsl.c holds the pointer and frees it). */
void pti_coll_state_free (PtiCollState *state);

/* At pti_evaluate: every member of every communicator made the same number
 * of collective calls on it; otherwise an error naming the collective call
 * some ranks never make, and those ranks. */
gboolean pti_coll_check_complete (PtiContext *ctx, GError **error);

/* For the workload-file reader: @file (copied) and @line of the collective
 * calls that follow, quoted by mismatch errors; NULL @file for none. */
void pti_coll_set_site (PtiContext *ctx, const char *file, guint line);

/* pti_context_new() with @uses ("OWNER=MODEL", NULL-terminated, may be
 * NULL) choosing the active model of networks and computers over the HMC
 * file's `model` attributes (ptieval --use-model). */
PtiContext *pti_context_new_with_models (const char *system_path, const char *model_path,
                                         const char *const *uses, GError **error);
/* pti_context_new_with_models(), the system's and the parameters' ranges
 * taking the ends @ranges chose (borrowed; must outlive the context; NULL:
 * nominal values), and recorded there (hmi/ranges-private.h; ptieval's
 * bound runs, wsl/bounds.c). */
PtiContext *pti_context_new_ranged (const char *system_path, const char *model_path,
                                    const char *const *uses, PtiRanges *ranges, GError **error);
/* A <param> with min and max: pti_context_declare_param_range() naming
 * where it was stated. */
gboolean pti_context_declare_param_range_at (PtiContext *ctx, const char *name, double low,
                                             double nominal, double high, const char *origin,
                                             GError **error);

/* The longest text the WSL takes from a user in one piece: a command-line
 * argument, a line of a changes file, a change's target, element or value,
 * a -D value. */
#define PTI_WSL_TEXT_MAX 65536

/* pti_context_change_at() with @origin naming where the change comes from
 * in errors ("changes.txt:3"). */
gboolean pti_context_change_at_origin (PtiContext *ctx, double time, const char *target,
                                       const char *element, const char *value,
                                       const char *origin, GError **error);

/* Read a schedule of changes (`ptieval --changes FILE`, wsl/README.md): one
 * per line, "TIME TARGET ELEMENT VALUE", TIME in s or with a unit ("250us"),
 * '#' starts a comment; a regular file of UTF-8 text (no NUL byte), lines
 * of at most PTI_WSL_TEXT_MAX bytes.  Errors name the file and line.
 * Defined in driver.c. */
gboolean pti_changes_file_load (PtiContext *ctx, const char *path, GError **error);
/* ptieval --changes-stream PATH: changes read while the evaluation runs,
 * from PATH ("-": standard input; a FIFO, a unix socket, a file), in the
 * syntax of a changes file plus `until TIME` lines (changes.c has the
 * protocol).  Opened now (a FIFO blocks until its writer opens it), read
 * only when the evaluation needs to know what comes next. */
typedef struct _PtiChangeStream PtiChangeStream;
gboolean pti_changes_stream_open (PtiContext *ctx, const char *path, GError **error);
void pti_changes_stream_free (PtiChangeStream *stream);

/* The command line shared by ptieval and C workload programs (driver.c). */
typedef struct {
  const char *program;          /* for messages: "ptieval", "sweep3d" */
  const char *workload_name;    /* NULL: the workload file names itself */
  gboolean workload_file;       /* a WORKLOAD.xml argument follows SYSTEM.xml */
  PtiBuildFunc build;           /* used when !workload_file */
  gpointer user_data;
} PtiDriver;

int pti_driver_main (const PtiDriver *driver, int argc, char **argv);

/* Progress reports, for the CLI driver; may be set at any time (NULL @func:
 * none).  While the workload is built, @func is called every @every device
 * uses with @done = @total = 0 and @sim_time NaN (pti_result_events() then
 * counts the events so far); during pti_evaluate, every @every engine steps
 * as pti_engine_set_progress says.  Returns TRUE. */
/* pti_assert with @origin ("FILE:LINE") naming it in errors and reports. */
gboolean pti_wsl_assert_at (PtiContext *ctx, const char *name, const char *test,
                            const char *origin, GError **error);
gboolean pti_wsl_set_progress (PtiContext *ctx, void (*func) (guint64 done, guint64 total,
                                                             double sim_time, gpointer data),
                               gpointer data, guint64 every);

/* pti_use() without the hint for C programs: on failure, @unbound is the
 * slot of the unbound parameter the price read, or G_MAXUINT (also when the
 * model cannot say).  For the workload-file reader, which gives its own. */
gboolean pti_wsl_use (PtiContext *ctx, guint rank, PtiRud *rud, guint *unbound, GError **error);
/* pti_wsl_use with a model choice (pti_use_model). */
gboolean pti_wsl_use_on (PtiContext *ctx, guint rank, PtiRud *rud, PtiModelChoice model,
                         guint *unbound, GError **error);

/* Appends to @error's message where unbound parameter @slot can be set, in
 * the words of a workload file (@workload_file) or of a C program, and the
 * bound names closest to it.  Does nothing if @error or @slot is unset. */
void pti_wsl_hint_unbound (PtiContext *ctx, guint slot, gboolean workload_file, GError **error);

/* A sleep of @seconds (a SimGrid TI `sleep`): the rank is busy that long
 * whatever its CPU (a use of the cpu device the trace names "sleep", not
 * scaled by the CPU model). */
gboolean pti_wsl_sleep (PtiContext *ctx, guint rank, double seconds, GError **error);
/* The MPI library's local set-up of a communicator on @rank: a fixed time,
 * not scaled by the CPU model, named "comm_setup" (pti_mpi_comm_setup). */
gboolean pti_wsl_comm_setup_time (PtiContext *ctx, guint rank, double seconds, GError **error);
/* The MPI library's own local time in a call beyond its messages on @rank
 * (a collective function's first call, a communicator freed): a fixed
 * time, not scaled by the CPU model, named "mpi_setup" (pti_mpi_call_setup). */
gboolean pti_wsl_mpi_setup_time (PtiContext *ctx, guint rank, double seconds, GError **error);

/* Events appended for @rank so far (a pull source checks it gave one). */
guint64 pti_wsl_rank_appended (PtiContext *ctx, guint rank);

/* How many repetitions of repeated blocks the evaluation ran through the
 * models and how many it derived (for tests and reports). */
void pti_wsl_repetition_figures (const PtiContext *ctx, guint64 *evaluated, guint64 *extrapolated);

/* The loaded system's name, for the CLI driver. */
const char *pti_wsl_system_name (const PtiContext *ctx);
/* The workload's name (a workload file's name=, a program's own). */
const char *pti_wsl_workload_name (const PtiContext *ctx);

G_END_DECLS
