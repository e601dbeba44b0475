/* ptitrace: converters, summaries and plots of pti output traces.
 * Shared declarations of the subcommands (one file each). */
#pragma once

#include <glib.h>
#include <stdio.h>

#include "decimal.h"
#include "sorter.h"
#include "trace-reader.h"

G_BEGIN_DECLS

enum { PT_EXIT_OK = 0, PT_EXIT_FAILED = 1, PT_EXIT_USAGE = 2, PT_EXIT_INVALID = 3 };

/* Errors of ptitrace itself (the reader has its own domain). */
typedef enum {
  PT_ERROR_USAGE,      /* exit 2 */
  PT_ERROR_INVALID,    /* exit 3: the input cannot give what was asked */
  PT_ERROR_FAILED,     /* exit 1 */
} PtError;
#define PT_ERROR (pt_error_quark ())
GQuark pt_error_quark (void);

int pt_exit_code (const GError *error);

typedef struct {
  gsize memory;            /* bytes of sort buffers, in all */
  const char *output;
  gboolean have_from, have_to;
  guint64 from, to;        /* ns */
  const char *kind;        /* plot: timespace, ba, knee */
  const char *stages;      /* plot ba: "N" or "N-M" or "all" */
  int width, height;       /* plot size in pixels (points for SVG/PDF); 0 = default */
  gboolean path;           /* summary: print the critical path hop by hop */
  gboolean stats;          /* --stats: commands may say more on stderr */
} PtOptions;

int pt_paraver (const char *trace, const PtOptions *o, GError **error);
int pt_sddf (const char *trace, const PtOptions *o, GError **error);
int pt_chrome (const char *trace, const PtOptions *o, GError **error);
int pt_summary (const char *trace, const PtOptions *o, GError **error);
int pt_diff (const char *a, const char *b, const PtOptions *o, GError **error);
int pt_plot (const char *trace, const PtOptions *o, GError **error);

/* ------------------------------------------------------------------------ */
/* Output files: written under a temporary name beside the target and
 * renamed over it by pt_out_commit() only; pt_out_free() of an uncommitted
 * file deletes the temporary.  A failed conversion never leaves a file that
 * looks complete. */

typedef struct {
  char *path;
  char *tmp;
  FILE *fp;
  gboolean committed;
} PtOut;

PtOut *pt_out_open (const char *path, GError **error);
/* Flush, check for write errors, close and rename.  FALSE with @error. */
gboolean pt_out_commit (PtOut *out, GError **error);
void pt_out_free (PtOut *out);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PtOut, pt_out_free)

/* ------------------------------------------------------------------------ */
/* Formatting */

#define PT_SECONDS_LEN 32
/* ns as seconds with nine fraction digits, "12.000000105".  Returns @buf. */
char *pt_seconds (char buf[PT_SECONDS_LEN], guint64 ns);
/* ns as microseconds with three fraction digits, "12.105" (Chrome JSON). */
char *pt_micros (char buf[PT_SECONDS_LEN], guint64 ns);
/* Append to a GString without printf (hot paths). */
void pt_gs_u64 (GString *s, guint64 v);
void pt_gs_i64 (GString *s, gint64 v);
void pt_gs_seconds (GString *s, guint64 ns);   /* "12.000000105" */
void pt_gs_micros (GString *s, guint64 ns);    /* "12.105" */
/* A number of a model record field as plain decimal text with a point and
 * no exponent ("160000000.0", "-0.000001"), valid in SDDF and JSON.
 * FALSE if @text is not a number. */
gboolean pt_number_text (const char *text, GString *out);
/* Append @s to @out as a JSON string literal (with quotes). */
void pt_json_string (GString *out, const char *s);
/* "dd/mm/yyyy at hh:mm" (Paraver) or "yyyy-mm-dd hh:mm:ss" (SDDF) of
 * SOURCE_DATE_EPOCH when set (reproducible outputs), else of now (UTC). */
char *pt_date (gboolean paraver);

/* ------------------------------------------------------------------------ */
/* Model record fields hold numbers or names (traces/README.md): a value that
 * is not a number is a name, such as a link "s1.0-s2.1#0:up".  A field holds
 * one or the other throughout the trace: a number where the field held a
 * name before, or a name where it held a number, is an error naming both
 * lines (a typo such as bytes_per_s="fast" is caught where it meets a
 * number).  Names get ids 1, 2, ... per field in order of first appearance,
 * up to PT_MAX_NAMES (later new names share the id PT_MAX_NAMES + 1), so
 * memory grows with the distinct names (the links of the network), never
 * with the trace. */

#define PT_MAX_NAMES 65535u

typedef enum { PT_FIELD_UNKNOWN, PT_FIELD_NUMBER, PT_FIELD_NAME } PtFieldKind;

typedef struct _PtFields PtFields;

/* @intern: keep the names and their ids (Paraver, plots); else only kinds. */
PtFields *pt_fields_new (PtiTraceReader *reader, gboolean intern);
void pt_fields_free (PtFields *fs);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PtFields, pt_fields_free)
/* Field @f of the record @item: PT_FIELD_NUMBER with *@value, or
 * PT_FIELD_NAME with *@id (0 unless interning); PT_FIELD_UNKNOWN with @error
 * ("FILE:LINE: record <knee> link=\"h3:up\" is not a number, and the field
 * held a number before (line N) ...") when the field held the other kind.
 * @value and @id may be NULL. */
PtFieldKind pt_fields_get (PtFields *fs, const PtiTrItem *item, guint f, double *value, guint *id,
                           GError **error);
/* What field @f of record type @type has held so far (UNKNOWN: no value). */
PtFieldKind pt_fields_kind (const PtFields *fs, guint type, guint f);
/* Names of a name field, by id: pt_fields_name (fs, type, f, 1 .. n). */
guint pt_fields_n_names (const PtFields *fs, guint type, guint f);
const char *pt_fields_name (const PtFields *fs, guint type, guint f, guint id);

/* ------------------------------------------------------------------------ */
/* Processor layout: "pc_node[3] cpu 0" -> node "pc_node[3]", cpu 0.  Nodes are
 * numbered in order of first appearance among the ranks; a node has as many
 * CPUs as its highest CPU index used + 1.  A processor string without a
 * trailing " cpu N" is a node of its own with CPU 0. */
typedef struct {
  guint n_nodes;
  char **node_names;       /* [n_nodes] */
  guint *node_cpus;        /* [n_nodes]: CPUs of each node */
  guint *node_first_cpu;   /* [n_nodes]: global 1-based number of its CPU 0 */
  guint n_cpus;            /* sum of node_cpus */
  guint *rank_node;        /* [ranks]: 0-based node */
  guint *rank_cpu;         /* [ranks]: global 1-based CPU */
} PtLayout;

PtLayout *pt_layout_new (const PtiTrHeader *h);
void pt_layout_free (PtLayout *l);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PtLayout, pt_layout_free)

/* ------------------------------------------------------------------------ */
/* Message pairing with bounded memory: every completed message end (a
 * blocking send or recv, or a request a wait completed) goes into an
 * external sorter keyed by (msg id, side); after the trace, the ends of
 * each message are adjacent.  Memory: the sorter's budget, whatever the
 * number of messages in flight or the distance between the two ends in the
 * file. */

typedef struct {
  guint64 msg;
  guint64 seq;             /* order in the trace */
  guint64 line, element;   /* of the completing event (pti_trace_line_of) */
  guint32 rank, peer;
  guint64 posted, injected, done;   /* ns: done = left (send) or arrived (recv) */
  guint64 unblock;         /* ns: when its completing event stopped waiting */
  guint64 bytes;
  guint64 request;         /* ISEND, IRECV: the request's id */
  gint32 tag;
  guint8 kind;             /* PtiTraceKind: SEND, RECV, ISEND or IRECV */
  guint8 rendezvous;
  guint8 decided;          /* its completing event waited, and for this message
                            * (the one that completed last) */
  guint8 pad;
} PtMsgEnd;

typedef struct {
  PtMsgEnd send, recv;
} PtMessage;

/* Times of a message as Paraver's communication record defines them
 * (shared/formats/paraver.md 5.3): logical send = when the send was posted
 * (its call started); physical send = when the data started to travel
 * (entered the network); logical receive = when the receive was posted;
 * physical receive = when the data was completely there (arrived).  Every
 * converter draws messages with these. */
static inline guint64 pt_msg_lsend (const PtMessage *m) { return m->send.posted; }
static inline guint64 pt_msg_psend (const PtMessage *m) { return m->send.injected; }
static inline guint64 pt_msg_lrecv (const PtMessage *m) { return m->recv.posted; }
static inline guint64 pt_msg_precv (const PtMessage *m) { return m->recv.done; }

/* The completion of @e that its waiting was for (the one completed last),
 * or -1 if it did not wait.  Ties: the first. */
int pt_decisive (const PtiTrEvent *e);

typedef struct _PtMsgJoin PtMsgJoin;
typedef gboolean (*PtMessageFunc) (const PtMessage *m, gpointer data, GError **error);

PtMsgJoin *pt_msgjoin_new (const char *trace_path, gsize budget);
void pt_msgjoin_free (PtMsgJoin *j);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PtMsgJoin, pt_msgjoin_free)
/* Add every message @item (an event) completed; @seq counts up per end. */
gboolean pt_msgjoin_add (PtMsgJoin *j, const PtiTrItem *item, guint64 *seq, GError **error);
/* Pair the ends (errors name the trace and line: a message with one end, two
 * sends, ends that disagree on peer, tag, size, protocol or injection time)
 * and call @fn for each message, by message id. */
gboolean pt_msgjoin_run (PtMsgJoin *j, PtMessageFunc fn, gpointer data, GError **error);
guint64 pt_msgjoin_count (const PtMsgJoin *j);   /* message ends added */

/* ------------------------------------------------------------------------ */
/* Per-process totals, shared by summary and diff. */

typedef enum {
  PT_COMPUTE,      /* compute events */
  PT_SEND,         /* send/isend events, not blocked */
  PT_RECV,         /* recv/irecv events, not blocked */
  PT_COMPLETE,     /* wait/waitany events, not blocked (completing requests) */
  PT_WAIT,         /* blocked on a peer, in any event */
  PT_N_TIMES
} PtTimeKind;

extern const char *const pt_time_kind_names[PT_N_TIMES];

/* The engine's own totals, from the trace's summary (each rounded once). */
typedef enum { PT_ENGINE_COMPUTE, PT_ENGINE_COMM, PT_ENGINE_WAIT, PT_N_ENGINE } PtEngineKind;

typedef struct {
  guint64 t[PT_N_TIMES];   /* ns, sums of the events' times */
  guint64 count[PT_N_TIMES]; /* events summed into each (wait: those that waited) */
  guint64 engine[PT_N_ENGINE]; /* ns, the summary's: derived spans included */
  guint64 end;             /* ns: end of its last event or derived span */
  guint64 events;          /* in the trace */
  guint64 derived, derived_events;   /* ns and events analytical repetition derived */
  guint64 collective, calls;         /* ns inside collective calls, and their number */
  guint64 sent, sent_bytes, received, received_bytes;
  guint64 path;            /* ns on the critical path */
} PtProcStats;

typedef struct {
  char *path;
  char *system, *workload, *generator;
  guint n;                 /* processes */
  PtProcStats *procs;      /* [n] */
  PtProcStats total;
  guint64 predicted;       /* ns, from the trace's summary */
  guint64 messages;
  guint64 records;
  /* critical path */
  gboolean have_path;
  guint last_rank;         /* where the walk started */
  guint64 hops;
  guint64 path_flight;     /* ns of messages in flight on the path */
} PtStats;

PtStats *pt_stats_compute (const char *trace, const PtOptions *o, gboolean critical_path,
                           GError **error);
void pt_stats_free (PtStats *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PtStats, pt_stats_free)

G_END_DECLS
