/* pticalibrate's parts: running the probes, fitting their figures, what is
 * known of the host, and writing the system file and the memory profile.
 * Internal to pticalibrate (cli/pticalibrate.c).  README.md says how and
 * why each figure is measured. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* ---- running programs (probe.c) --------------------------------------- */

/* Run @argv (argv[0] looked up in PATH) in @cwd, with a deadline: after
 * @timeout_s seconds its process group is killed and this fails.  Collects
 * stdout and stderr; @status is the exit status (or 128 + signal).
 * Fails (PTI_ERROR_FAILED) only when it cannot start or times out. */
gboolean cal_run (const char *const *argv, const char *cwd, double timeout_s, char **out,
                  char **err, int *status, GError **error);

/* Build with @argv in the run's directory (deadline 10 minutes); a
 * failure is an error saying @what, with the command and its messages. */
gboolean cal_build (const char *workdir, const char *const *argv, const char *what,
                    GError **error);

/* Write the probes' shared header (probe-stats.h) and @name with @text
 * into @workdir. */
gboolean cal_write_probe (const char *workdir, const char *name, const char *text,
                          GError **error);

/* Catch SIGINT, SIGTERM and SIGHUP: the probe running (in a process group
 * of its own, which a terminal's Ctrl-C does not reach) is killed, and
 * cal_run fails with "interrupted", so that the caller can clean up. */
void cal_catch_signals (void);
/* The signal that interrupted, or 0. */
int cal_interrupted (void);

/* The full path of program @name (a path or a name in PATH), or NULL. */
char *cal_find_program (const char *name);

/* One line of a probe's output: "kind key=value key=value ...".  A key
 * "text" takes the rest of the line. */
typedef struct {
  char *kind;
  GHashTable *kv;   /* char* -> char* */
} CalLine;

/* Parse a probe's output.  (transfer full) array of CalLine*. */
GPtrArray *cal_parse_lines (const char *text);
const char *cal_line_get (const CalLine *l, const char *key);
/* The number under @key, or NAN. */
double cal_line_num (const CalLine *l, const char *key);

/* ---- statistics and fits (fit.c) --------------------------------------- */

/* A measured figure: median with quartiles and extremes, over @n samples. */
typedef struct {
  double med, q1, q3, min, max;
  int n;
} CalStat;

/* Read "PREFIX", "PREFIX_q1", ... ("t", "q1" ... when @prefix is NULL). */
CalStat cal_stat_from_line (const CalLine *l, const char *prefix);
/* (q3 - q1) / median, the spread quoted everywhere. */
double cal_stat_spread (CalStat s);

/* One point-to-point size: the one-way time measured (ns). */
typedef struct {
  double bytes;
  CalStat t;
} CalSize;

/* net-simple's parameters (models/net-simple/README.md), SI units. */
typedef struct {
  double latency, bandwidth, send_overhead, recv_overhead;   /* s, B/s, s, s */
  guint64 eager_limit;                                       /* bytes */
} CalNet;

/* The one-way time net-simple predicts for a ping-pong of @bytes:
 * o_s + L + n/B + o_r eagerly, o_s + 3L + n/B + o_r by rendezvous. */
double cal_net_one_way (const CalNet *net, double bytes);

/* Fit L and B (o_s, o_r and the eager limit already in @net) to the
 * one-way times of @sizes up to @max_bytes, least squares on the relative
 * error.  FALSE if the data give no positive bandwidth. */
gboolean cal_net_fit (CalNet *net, const CalSize *sizes, guint n, double max_bytes);

/* A piece of the piecewise fit: one-way time = a + b * bytes over [lo, hi]. */
typedef struct {
  double lo, hi;      /* bytes */
  double a, b;        /* s, s per byte */
  double max_err;     /* largest relative residual */
} CalPiece;

/* Piecewise-linear fit of the one-way times: a break at the eager limit,
 * then up to @extra (at most 3) more where they most reduce the squared
 * relative residuals, each by a quarter at least, every piece at least 3
 * sizes.  Returns the number of pieces written to @pieces (at most 2 +
 * @extra). */
guint cal_piecewise_fit (const CalSize *sizes, guint n, double eager_limit, guint extra,
                         CalPiece *pieces);

/* A size piece as the model prices it: messages of up to @up_to bytes
 * cost L + n/B alone (models/net-simple/README.md); @share is net-node's
 * (models/net-node/README.md), NAN where no exchange was measured. */
typedef struct {
  double up_to, latency, bandwidth;
  const CalPiece *fit;
  gboolean rendezvous;
  double share, share_lo, share_hi;
  guint share_n;
  double first_bytes, last_bytes;   /* the sizes whose exchanges gave the share */
  double below;                      /* how far the fit's L fell below 0 (kept at 0), or 0 */
} CalNodePiece;

/* net-node's size pieces from the piecewise fit (the rules are beside its
 * definition in mpi.c): their share fields NAN and 0, to be filled from
 * the exchanges.  Returns how many of @npieces were written to @out. */
guint cal_node_pieces (const CalNet *net, const CalPiece *pieces, guint npieces,
                       CalNodePiece *out);

/* net-node's share within one size piece (models/net-node/README.md), run
 * by run: @w[i] is the share size i's exchange gives, @sens[i] how much
 * that exchange moves, relative to its time, per unit of share (2 D / t_x),
 * sizes in increasing order.  Consecutive sizes form a run while every one
 * of them stays within @tol of what the run's median share gives it
 * (|w_i - median| sens_i <= @tol), greedily from the smallest.  Writes the
 * first index of each run to @start and returns how many runs (0 if @n is
 * 0, else at least 1). */
guint cal_share_runs (const double *w, const double *sens, guint n, double tol, guint *start);
/* The median of @v (sorted in place; NAN if @n is 0). */
double cal_median (double *v, guint n);

/* ---- the host (host.c) ------------------------------------------------- */

typedef struct {
  char *cpu_model;        /* /proc/cpuinfo "model name" */
  char *cpu_id;           /* "family 26 model 2 stepping 1" */
  gboolean virtual_machine;
  guint cpus_online;
  guint sockets;
  guint threads_per_core;
  guint64 memory_bytes;
  char *caches;           /* "L1d 48 KiB, L1i 32 KiB, L2 1 MiB, L3 ..." */
  guint64 last_cache_bytes;
  guint64 data_cache_bytes[4]; /* data or unified caches, level 1 up, as reported; 0: none */
  char *kernel;           /* uname -srm */
  char *hostname;
  char *thp;              /* transparent huge pages setting */
} CalHost;

void cal_host_read (CalHost *host);
void cal_host_clear (CalHost *host);
/* The 1-minute load average, or NAN. */
double cal_load_average (void);

/* ---- the probes' sources, embedded at build time ---------------------- */

extern const char pti_cal_probe_stats_h[];   /* probe-stats.h */
extern const char pti_cal_clc_harness_c[];   /* clc-harness.c */
extern const char pti_cal_clc_kernels_h[];   /* clc-kernels.h */
extern const char pti_cal_clc_kernels_c[];   /* generated by gen-clc-bench.py */
extern const char pti_cal_mem_bench_c[];     /* mem-bench.c */
extern const char pti_cal_mpi_probe_c[];     /* mpi-probe.c */
extern const char pti_cal_flops_bench_c[];   /* flops-bench.c */
extern const char pti_cal_cpu_mem_xsd[];     /* models/cpu-mem/cpu-mem.xsd */

/* ---- writing (write.c) ------------------------------------------------- */

/* An XML comment at @indent spaces, the text wrapped at about 92 columns;
 * "--" cannot appear in a comment and is broken up. */
void cal_xml_comment (GString *out, int indent, const char *text);
/* printf into a new string, numbers in the C locale whatever the user's. */
char *cal_strdup_printf (const char *format, ...) G_GNUC_PRINTF (1, 2);
/* @v as an XML Schema decimal (no exponent) with @digits significant
 * digits, at most 6 after the point... unless it needs more to show them. */
char *cal_decimal (double v, int digits);
/* "N runs were taken again because another process interrupted them[; M
 * @cpu_what never undisturbed were counted in CPU time | kept as they
 * were]", with @what for "runs"; @cpu_what NULL: kept as they were. */
char *cal_noise_text (const char *what, double preempted, double dirty, const char *cpu_what);
/* Write @name in @dir with @text.  FALSE with @error (PTI_ERROR_IO). */
gboolean cal_write_file (const char *dir, const char *name, const char *text, GError **error);
/* A compile or run that failed, as an error naming the command, its exit
 * status and the first lines of what it printed. */
void cal_set_command_error (GError **error, const char *what, const char *const *argv,
                            int status, const char *err_text);

/* ---- the three measurements (cpu.c, memory.c, mpi.c) ------------------- */

typedef struct {
  gboolean quick;          /* about a minute in all, rougher figures */
  const char *workdir;     /* where the probes are written, built and run */
  gboolean progress;       /* report progress on stderr */
} CalRun;

/* Run a probe in the run's directory with a deadline of @timeout_s: its
 * output is kept there as @keep_name (for --keep) and parsed into @lines
 * ((transfer full) CalLine*); @seconds is how long it ran.  A probe that
 * fails is an error saying @what, with the command and its messages. */
gboolean cal_run_probe (const CalRun *run, const char *const *argv, double timeout_s,
                        const char *what, const char *keep_name, GPtrArray **lines,
                        double *seconds, GError **error);

typedef struct {
  const char *cc;          /* the C compiler (a name in PATH or a path) */
  const char *level;       /* the optimisation level: "0", "2", "s", "fast"... */
  const char *cflags;      /* more flags for the kernels, or NULL */
  gboolean latency;        /* costs are latencies, not reciprocal throughputs */
} CalCpuOptions;

/* Measure the cost of every cpu-clc code; append a <cpu_clc unit="ns">
 * element with its comments to @xml (indented for a <computer>), and a
 * line for the summary to @report. */
gboolean cal_cpu_measure (const CalRun *run, const CalCpuOptions *o, GString *xml,
                          GString *report, GError **error);

/* Time the dense floating-point rate of the BLAS @lib (dlopen'ed by the
 * probe, built with @cc); append a <flop_rate> element with its comment to
 * @xml (indented for a <cpu_clc>).  A library that cannot be loaded is a
 * warning and a note in @skipped, not a failure: nothing is appended. */
gboolean cal_flops_measure (const CalRun *run, const char *cc, const char *lib, GString *xml,
                            GString *report, GString *skipped, GError **error);

typedef struct {
  const char *cc;
  guint64 max_bytes;       /* the largest working set */
  guint procs;             /* also measure with this many processes at once (>= 2), or 0 */
} CalMemOptions;

/* Measure the memory profile; append the <profile> elements of a
 * <cpu_mem> document to @xml. */
gboolean cal_memory_measure (const CalRun *run, const CalMemOptions *o, GString *xml,
                             GString *report, GError **error);

typedef struct {
  const char *mpicc;
  const char *mpirun;
  gboolean allow_root;     /* add --allow-run-as-root (Open MPI, run by root) */
} CalMpiOptions;

/* Measure the MPI library between two ranks; append a <net_node>
 * element (intra-node model, indented for a <computer>) to @xml, the
 * system's <mpi> element (what making a communicator costs) to @mpi_xml
 * and what was seen of placement to @placement (comment text). */
gboolean cal_mpi_measure (const CalRun *run, const CalMpiOptions *o, GString *xml,
                          GString *mpi_xml, GString *placement, GString *report, GError **error);

G_END_DECLS
