/* Reader of pticapture traces (capture/FORMAT.md): a trace directory, and
 * each rank's records in order, streamed.  A rank file is read one piece at
 * a time (a few KiB, never the whole file or even a whole block), and at
 * most a bounded number of rank files are open at once, so a replay can
 * pull thousands of ranks side by side.
 *
 * Everything a record says is checked before it is yielded; a trace that a
 * crash or a kill cut short yields its records and then an error
 * (PTI_CAPTURE_ERROR_INCOMPLETE) saying where it stops: it is never
 * presented as complete. */
#pragma once

#include <glib.h>

#include "capture-format.h"

G_BEGIN_DECLS

#define PTI_CAPTURE_ERROR (pti_capture_error_quark ())
GQuark pti_capture_error_quark (void);

typedef enum {
  PTI_CAPTURE_ERROR_IO,          /* cannot open or read a file */
  PTI_CAPTURE_ERROR_FORMAT,      /* not a pticapture file, or a version this reader does not know */
  PTI_CAPTURE_ERROR_CORRUPT,     /* damaged: checksum, impossible value, record that does not fit */
  PTI_CAPTURE_ERROR_INCOMPLETE,  /* the program crashed, was killed, aborted or exited early */
  PTI_CAPTURE_ERROR_MISSING,     /* a rank's file is missing or belongs to another run */
} PtiCaptureErrorCode;

typedef struct {
  char *writer;                 /* "pticapture 0.1.0" */
  guint rank, size;             /* world rank and size */
  guint64 pid;
  char *host;
  gint cpu;                     /* CPU at MPI_Init, -1 unknown */
  char *affinity;               /* "0-1" */
  guint mpi_major, mpi_minor;
  char *library;                /* MPI_Get_library_version */
  guint thread_required, thread_provided;
  guint64 start_ns;             /* time 0, ns since the Unix epoch */
  guint cpu_mode;               /* PTI_CPU_* */
  char **argv;                  /* NULL-terminated */
  char **prop_keys, **prop_values;   /* NULL-terminated, same length */
} PtiCaptureHeader;

typedef struct {
  guint32 id;                   /* local id: 1 world, 2 self, 3 ... */
  guint64 key;                  /* equal across ranks for the same communicator */
  gboolean inter;
  gboolean freed;
  guint n_members;
  gint32 *members;              /* world ranks of the (local) group, by rank */
  guint n_remote;
  gint32 *remote;               /* inter-communicators: the remote group */
} PtiCaptureComm;

/* A request the program created, as the reader tracks it. */
typedef struct {
  guint64 id;
  guint code;                   /* the call that created it */
  gint32 peer, tag;             /* as posted (point-to-point) */
  guint64 bytes;
  guint32 comm;
  gboolean persistent, is_recv, active;
} PtiCaptureRequest;

/* One request in a wait/test call, or a status of a call that has one. */
typedef struct {
  guint64 request;              /* id; 0 MPI_REQUEST_NULL; G_MAXUINT64 untracked */
  const PtiCaptureRequest *info;   /* NULL for null or untracked; valid until the next call */
  gboolean done;                /* this call completed it (or found it null/inactive) */
  gboolean empty;               /* null or inactive: nothing happened */
  gboolean cancelled;
  gboolean has_bytes;           /* a receive: source, tag and bytes are what it received */
  gint32 source, source_world;  /* actual source (from the status, or as posted) */
  gint32 tag;
  guint64 bytes;
} PtiCaptureCompletion;

typedef struct {
  guint64 index;                /* call number, 1 ... (of the first, if count > 1) */
  guint64 count;                /* calls this event stands for: 1, or the count of a REPEAT
                                   (FORMAT.md 6.6), whose times are then totals */
  guint code;                   /* FORMAT.md section 7 (16: recorded by name) */
  const char *name;             /* "MPI_Send", or the generic name */
  PtiCaptureLayout layout;
  guint64 burst_ns;             /* computation before the call, wall clock */
  gint64 burst_cpu_ns;          /* its CPU time, -1 not measured */
  guint64 t_start, t_end;       /* ns since time 0 */
  gint error;                   /* 0, or the MPI error code the call returned */

  guint32 comm;                 /* local id, 0 none */
  const PtiCaptureComm *comm_info;
  /* The first or only peer side: sends, posted receives, probes, bcast,
   * reduce roots (root in @peer), sendrecv's send. */
  gint32 peer, peer_world;      /* PTI_PEER_* when negative */
  gint32 tag;
  guint64 bytes;                /* count × type size; gather/scatter: sbytes */
  /* Sendrecv's receive side; collectives' rbytes. */
  gint32 rpeer, rpeer_world, rtag;
  guint64 rbytes;
  guint op;                     /* FORMAT.md 4.2 */
  gboolean in_place;
  guint64 request;              /* the request this call created, 0 none */
  gboolean flag;                /* tests and iprobes */
  gboolean has_status;          /* recv, sendrecv, probes, mrecv */
  PtiCaptureCompletion status;
  guint n_requests;             /* wait/test family, start(all), request_free, cancel */
  const PtiCaptureCompletion *requests;
  guint n_scounts, n_rcounts;   /* v-collectives, bytes per rank */
  const guint64 *scounts, *rcounts;
  gboolean has_newcomm;         /* creation calls: newcomm NULL for MPI_COMM_NULL */
  const PtiCaptureComm *newcomm;
  gint64 color, key;            /* comm_split(_type) */
  guint ndims;                  /* cart_create */
  const guint64 *dims, *periods;
  gint64 value;                 /* abort: errorcode; init_thread: required; merge: high;
                                   op_create: commute; intercomm_create: tag */
  gint64 value2;                /* init_thread: provided; intercomm_create: local leader */
  guint32 comm2;                /* intercomm_create: peer comm */
  /* MPI-IO (1.2): the file's local id (1, 2, ... in this rank's open order;
   * 0 a file no recorded open made), the byte offset and bytes (@bytes) of
   * an access, the name of an open (valid until the next call).  POSIX
   * calls (1.3) the same, in an id space of their own (the POSIX files of
   * the rank: open's 1 is not MPI_File_open's 1); their access's @bytes is
   * what it transferred (0 after an error) and @value what it asked for,
   * an open's @value its PTI_OPEN_* flags. */
  guint64 file, offset;
  const char *file_name;
} PtiCaptureEvent;

/* How a rank file ended (after pti_capture_rank_next returned done or an
 * INCOMPLETE error). */
typedef struct {
  gboolean seen;                /* an END record was read */
  guint how;                    /* PTI_END_* */
  guint64 calls;
  guint signal;
  guint in_code;                /* the call the signal interrupted, 0 computation */
  const char *in_name;
  gint64 errorcode;
  guint64 last_call;            /* number of the last call read */
  const char *last_name;        /* its name, NULL if none */
} PtiCaptureEnd;

typedef struct _PtiCaptureTrace PtiCaptureTrace;
typedef struct _PtiCaptureRank PtiCaptureRank;

/* Opens TRACE (a directory): checks that rank-0.ptc ... rank-(N-1).ptc are
 * there, headers readable and of the same run. */
PtiCaptureTrace *pti_capture_trace_open (const char *dir, GError **error);
guint pti_capture_trace_n_ranks (PtiCaptureTrace *trace);
const PtiCaptureHeader *pti_capture_trace_header (PtiCaptureTrace *trace, guint rank);
/* At most @max rank files open at once (default 64; at least 1). */
void pti_capture_trace_set_max_open (PtiCaptureTrace *trace, guint max);
void pti_capture_trace_free (PtiCaptureTrace *trace);

PtiCaptureRank *pti_capture_rank_open (PtiCaptureTrace *trace, guint rank, GError **error);
/* One rank file alone (pticapture --print FILE, the fuzz harness). */
PtiCaptureRank *pti_capture_rank_open_file (const char *path, GError **error);
const PtiCaptureHeader *pti_capture_rank_header (PtiCaptureRank *r);
/* The next call record into @ev (its arrays valid until the next call), or
 * *done at a clean end.  FALSE with @error otherwise. */
gboolean pti_capture_rank_next (PtiCaptureRank *r, PtiCaptureEvent *ev, gboolean *done,
                                GError **error);
const PtiCaptureEnd *pti_capture_rank_end (PtiCaptureRank *r);
/* TRUE when the file is whole (every block's length and checksum right)
 * and its last block is the END of MPI_Finalize alone, as the capture
 * library writes it since format 1.4; *@n_calls: the calls END counts.
 * Reads every byte but decodes no call record, so it says nothing of them;
 * FALSE tells nothing either: read the file through (rank_next) to know
 * why.  pticapture checks a fresh capture so. */
gboolean pti_capture_rank_sealed (PtiCaptureRank *r, guint64 *n_calls);
/* A live or freed communicator by local id, NULL if none. */
const PtiCaptureComm *pti_capture_rank_comm (PtiCaptureRank *r, guint32 id);
void pti_capture_rank_free (PtiCaptureRank *r);

/* Regions (format 1.1, FORMAT.md 6.8): what libptiregion recorded between
 * the calls, given to a function the consumer sets, in file order relative
 * to the call records (a mark between calls k-1 and k is given before
 * pti_capture_rank_next yields call k).  Strings valid during the call. */
typedef enum {
  PTI_CAPTURE_MARK_BEGIN,       /* region entered at @t */
  PTI_CAPTURE_MARK_END,         /* region left at @t; @calls, @messages, @bytes in this entry */
  PTI_CAPTURE_MARK_COUNT,       /* counter @counter of region @region: @value in the entry just ended */
  PTI_CAPTURE_MARK_CHECK,       /* assertion @assertion checked: @passed, @values */
  PTI_CAPTURE_MARK_PARAM,       /* parameter @name = @value */
} PtiCaptureMarkKind;

typedef struct {
  PtiCaptureMarkKind kind;
  guint region;                 /* id (BEGIN, END, COUNT, CHECK: its region) */
  const char *name;             /* region, counter, assertion or parameter name */
  guint64 t;                    /* ns since time 0 */
  guint64 calls, messages, bytes;
  guint counter;
  double value;
  guint assertion;
  const char *test;             /* CHECK */
  gboolean passed;
  guint n_values;
  const double *values;
  guint depth;                  /* regions open after this mark */
} PtiCaptureMark;

typedef gboolean (*PtiCaptureMarkFunc) (const PtiCaptureMark *mark, gpointer data, GError **error);
/* Marks are checked (ids defined, ends matching begins) whether or not a
 * function is set; without one they are skipped. */
void pti_capture_rank_set_mark_func (PtiCaptureRank *r, PtiCaptureMarkFunc func, gpointer data);
/* The name of region / counter @id, NULL if not defined. */
const char *pti_capture_rank_region_name (PtiCaptureRank *r, guint id);

const char *pti_capture_call_name (guint code);        /* NULL if unknown */
const char *pti_capture_signal_name (guint sig);       /* "SIGSEGV" */

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PtiCaptureTrace, pti_capture_trace_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PtiCaptureRank, pti_capture_rank_free)

G_END_DECLS
