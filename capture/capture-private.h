/* The capture library's internals (capture/README.md; format: FORMAT.md).
 * Plain C and PMPI only: this code runs inside the user's MPI program, so it
 * allocates nothing per call, takes no lock unless the program runs
 * MPI_THREAD_MULTIPLE, and keeps everything a signal handler touches in a
 * state it can write out at any instant. */
#pragma once

#include <mpi.h>
#include <signal.h>
#include <sys/types.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

#include "capture-format.h"

#define PTI_CAP_EXPORT __attribute__ ((visibility ("default")))
#define PTI_CAP_LIKELY(x) __builtin_expect (!!(x), 1)
#define PTI_CAP_UNLIKELY(x) __builtin_expect (!!(x), 0)

/* Room always kept free at the end of the buffer for the END record a signal
 * handler appends (and a NAME it may need). */
#define PTI_CAP_END_ROOM 128

typedef enum {
  PTI_CAP_OFF,       /* no PTI_CAPTURE_DIR: every wrapper only forwards */
  PTI_CAP_PRE,       /* before MPI_Init: records go to the buffer, no file yet */
  PTI_CAP_ON,        /* writing rank-R.ptc */
  PTI_CAP_DONE,      /* END written, or the file failed */
} PtiCapPhase;

/* One entry of the writer's request table (MPI_Request handle -> id). */
typedef struct {
  MPI_Request handle;     /* NULL: empty slot */
  uint64_t id;
  uint8_t flags;          /* PTI_CF_* of the creating call */
  uint8_t any_source, any_tag, active, cancel;
} PtiCapReq;

/* One entry of the communicator table (MPI_Comm handle -> local id, key). */
typedef struct {
  MPI_Comm handle;        /* NULL: empty slot */
  uint64_t id, key;
} PtiCapComm;

/* A poll's own arguments as the program passed them (the request handles,
 * iprobe's source, tag and communicator), to tell before the call, without
 * encoding a record, whether it repeats the poll that found nothing just
 * before it (pti_cap_poll_match_reqs, _probe). */
#define PTI_CAP_POLL_REQS 8
typedef struct {
  int code;                          /* 0: none (too many requests) */
  int n;                             /* requests in req */
  int source, tag;
  MPI_Comm comm;
  MPI_Request req[PTI_CAP_POLL_REQS];
} PtiCapPollKey;

typedef struct {
  /* What every call touches comes first, in as few cache lines as it
   * takes: a program that sweeps memory between its calls (HPC Challenge's
   * RandomAccess between its polls) pays a miss per line.  The first line
   * holds what a repeated poll touches but its key, which follows. */
  volatile int phase;                /* PtiCapPhase */
  int thread_multiple;               /* serialise recording (pti_cap_lock) */
  /* What a signal handler reports as "the call it was in". */
  volatile int cur_code;
  int run_period, run_next;          /* runs: see hist below */
  bool hist_adjacent;
  /* The block being filled: records [0, len) are complete ("committed");
   * a signal handler writes exactly those. */
  volatile size_t len;
  size_t hist_end;
  /* A signal handler's END record, to take back if the program goes on. */
  volatile int64_t signal_end_at;
  /* Call records written: MPI calls (what regions count, region-hooks.h)
   * and POSIX file calls (1.3); END says their sum. */
  uint64_t calls;
  struct {
    uint64_t count, burst, cpu, dur;
    bool cpu_ok;
  } run[2];
  /* poll[h]: the arguments of hist[h] when it is a poll that found nothing
   * (code 0 if not), which the next poll compares with its own */
  PtiCapPollKey poll[2];

  /* Then what a timed call touches. */
  uint8_t *buf;
  size_t cap;
  uint64_t posix_calls;
  uint64_t t_last_exit;              /* ns since load, when the last call returned */
  uint64_t t_last_flush, flush_interval;
  /* The clock of records once MPI_Init returned: the TSC, when it runs at a
   * constant rate, calibrated against CLOCK_MONOTONIC from load to
   * MPI_Init (ns = ns0 + (tsc - tsc0) * mult / 2^32); mult 0: no TSC. */
  uint64_t tsc0, ns0, tsc_mult;
  /* CPU time of bursts (FORMAT.md 5.3) */
  int cpu_mode;
  volatile const uint32_t *switch_seq;   /* perf_event page's seqlock */
  uint32_t anchor_seq;
  uint64_t anchor_wall, anchor_cpu, cpu_last_exit;
  volatile uint32_t cur_name;        /* with cur_code, for a generic call */

  /* Runs of repeated calls (REPEAT, FORMAT.md 6.6).  hist: the last two
   * call records if they may repeat (code 0: not), [1] the newer;
   * hist_end: the buffer length right after [1]; hist_adjacent: [0] came
   * right before [1]; run: the pending REPEAT, per element (run_period of
   * them, run_next the one a period-2 run expects next). */
  struct {
    int code;
    uint8_t result[32], result_len;
  } hist[2];

  /* Repeat cache: last args bytes per code. */
  uint8_t rep_len[PTI_CAPTURE_CODE_MAX];
  uint8_t rep[PTI_CAPTURE_CODE_MAX][PTI_CAPTURE_REPEAT_MAX];

  int fd;
  int world_rank, world_size;
  pid_t pid;                         /* the process that opened the file */
  char path[4160];
  uint32_t crc_table[256];

  /* Point-to-point sends (not persistent ones), for regions (region-hooks.h). */
  uint64_t msgs_sent, bytes_sent;
  char cpu_note[160];

  /* Tables (open addressing, grown when half full). */
  PtiCapReq *reqs; size_t req_cap, req_n;
  uint64_t last_req;
  PtiCapComm *comms; size_t comm_cap, comm_n;
  uint64_t next_comm;
  uint64_t *seq_keys; uint32_t *seq_counts; size_t seq_cap, seq_n;
  MPI_Op *user_ops; size_t user_ops_n, user_ops_cap;
  MPI_Group world_group;

  uint64_t t0_realtime;
  struct timespec t0;
  char clock_note[96];
  char dur_floor[32];              /* HEADER dur_floor_ns: pti_cap_measure_floor () */
} PtiCap;

extern PtiCap pti_cap;
extern __thread int pti_cap_depth __attribute__ ((tls_model ("initial-exec")));
extern __thread int pti_cap_locked __attribute__ ((tls_model ("initial-exec")));

/* One call in progress. */
typedef struct {
  int code;
  uint64_t t_entry;
  uint64_t burst_cpu;     /* 0: not measured, else 1 + zigzag */
} PtiCall;

/* A record being encoded. */
typedef struct {
  uint8_t *p;
  uint8_t *head;          /* its first byte (R is bit 0) */
  uint8_t *args;          /* where its args start */
  uint8_t *result;        /* where its result starts */
  int code;
  uint64_t burst, cpu, dur;   /* a call record's timing fields */
  const PtiCapPollKey *poll;  /* a poll that found nothing: its arguments (wrap.c), else NULL */
} PtiRec;

/* ---- encoding ---- */

static inline void
pti_put_u (PtiRec *r, uint64_t v)
{
  while (v >= 0x80) {
    *r->p++ = (uint8_t) (v | 0x80);
    v >>= 7;
  }
  *r->p++ = (uint8_t) v;
}

static inline void
pti_put_s (PtiRec *r, int64_t v)
{
  pti_put_u (r, pti_capture_zigzag (v));
}

void pti_cap_put_string (PtiRec *r, const char *s);

/* @n bytes of @p as a string (a file name already cut to its limit). */
static inline void
pti_put_bytes_string (PtiRec *r, const void *p, size_t n)
{
  pti_put_u (r, n);
  memcpy (r->p, p, n);
  r->p += n;
}
void pti_cap_put_list_int (PtiRec *r, int n, const int *counts, MPI_Datatype dt);

/* peer/root per FORMAT.md 4.2 */
static inline void
pti_put_peer (PtiRec *r, int peer)
{
  int64_t v = peer;
  if (peer == MPI_ANY_SOURCE)
    v = PTI_PEER_ANY;
  else if (peer == MPI_PROC_NULL)
    v = PTI_PEER_NULL;
  else if (peer == MPI_ROOT)
    v = PTI_PEER_ROOT;
  pti_put_s (r, v);
}

static inline void
pti_put_tag (PtiRec *r, int tag)
{
  pti_put_s (r, tag == MPI_ANY_TAG ? PTI_TAG_ANY : tag);
}

uint64_t pti_cap_type_size (MPI_Datatype dt);
void pti_cap_type_forget (MPI_Datatype dt);   /* MPI_Type_free (gen-generic.py) */

/* count × the size of @dt, the format's bytes (FORMAT.md 4.2) */
static inline uint64_t
pti_cap_bytes (int count, MPI_Datatype dt)
{
  return count > 0 ? (uint64_t) count * pti_cap_type_size (dt) : 0;
}

static inline void
pti_put_bytes (PtiRec *r, int count, MPI_Datatype dt)
{
  pti_put_u (r, pti_cap_bytes (count, dt));
}

/* A point-to-point send the program made of @bytes (regions' messages and
 * bytes). */
static inline void
pti_cap_count_send (int rc, int peer, uint64_t bytes)
{
  if (rc == MPI_SUCCESS && peer != MPI_PROC_NULL) {
    pti_cap.msgs_sent++;
    pti_cap.bytes_sent += bytes;
  }
}

/* ---- clocks ---- */

static inline uint64_t
pti_cap_monotonic (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return (uint64_t) (t.tv_sec - pti_cap.t0.tv_sec) * 1000000000u
         + (uint64_t) t.tv_nsec - (uint64_t) pti_cap.t0.tv_nsec;
}

/* ns since load.  clock_gettime costs 25 to 80 ns on a KVM guest (its
 * clock source is kvm-clock); the TSC costs 10. */
static inline uint64_t
pti_cap_now (void)
{
#if defined(__x86_64__)
  if (PTI_CAP_LIKELY (pti_cap.tsc_mult != 0)) {
    uint64_t t = __rdtsc () - pti_cap.tsc0;
    return pti_cap.ns0 + (uint64_t) (((unsigned __int128) t * pti_cap.tsc_mult) >> 32);
  }
#endif
  return pti_cap_monotonic ();
}

uint64_t pti_cap_cpu_exact (uint64_t wall);

#define PTI_CAP_CPU_UNKNOWN UINT64_MAX
/* In switch mode, at most one read of the CPU clock (a system call, 1 to 5
 * us on a loaded VM) per this many ns: a program descheduled at every call
 * (more ranks than cores, or ranks that sleep in MPI) gets bursts of
 * unmeasured CPU time rather than two system calls per MPI call. */
#define PTI_CAP_EXACT_GAP 200000u

/* The thread's CPU time at wall time @wall (ns since load): without a system
 * call while the thread has not been descheduled since the anchor;
 * PTI_CAP_CPU_UNKNOWN when it was and the budget of reads is spent. */
static inline uint64_t
pti_cap_cpu_at (uint64_t wall)
{
  if (pti_cap.cpu_mode == PTI_CPU_SWITCH) {
    if (*pti_cap.switch_seq == pti_cap.anchor_seq && pti_cap.anchor_cpu != PTI_CAP_CPU_UNKNOWN)
      return pti_cap.anchor_cpu + (wall - pti_cap.anchor_wall);
    if (wall - pti_cap.anchor_wall < PTI_CAP_EXACT_GAP) {
      pti_cap.anchor_cpu = PTI_CAP_CPU_UNKNOWN;   /* until the next read */
      return PTI_CAP_CPU_UNKNOWN;
    }
  }
  return pti_cap_cpu_exact (wall);
}

/* ---- the call protocol every wrapper follows ----
 *   PtiCall c;
 *   if (!pti_cap_begin (&c, code)) return REAL (...);
 *   rc = REAL (...);
 *   ...look up communicators (may write COMM records)...
 *   PtiRec r; pti_cap_record (&c, &r, rc, bound);  args...  pti_cap_args_end (&r);
 *   result...  pti_cap_commit (&c, &r);
 */

void pti_cap_lock_slow (void);
void pti_cap_unlock_slow (void);
void pti_cap_after_signal (void);

/* Under MPI_THREAD_MULTIPLE, recording (not the MPI call itself, which may
 * block on another thread) is serialised: every function that touches the
 * buffer or the tables takes the lock, which the call's commit releases. */
static inline void
pti_cap_lock (void)
{
  if (PTI_CAP_UNLIKELY (pti_cap.thread_multiple) && !pti_cap_locked)
    pti_cap_lock_slow ();
}

static inline bool
pti_cap_begin (PtiCall *c, int code)
{
  if (PTI_CAP_LIKELY (pti_cap.phase != PTI_CAP_ON && pti_cap.phase != PTI_CAP_PRE) || pti_cap_depth)
    return false;
  pti_cap_depth++;
  if (PTI_CAP_UNLIKELY (pti_cap.signal_end_at >= 0))
    pti_cap_after_signal ();
  c->code = code;
  c->t_entry = pti_cap_now ();
  if (PTI_CAP_UNLIKELY (c->t_entry < pti_cap.t_last_exit))
    c->t_entry = pti_cap.t_last_exit;   /* CPUs' TSCs a few ns apart: time never goes back */
  c->burst_cpu = 0;
  if (pti_cap.cpu_mode != PTI_CPU_NONE && pti_cap.phase == PTI_CAP_ON) {
    /* Under a hypervisor, switch mode counts stolen time as CPU time until
     * the next context switch corrects it: never below 0. */
    uint64_t now_cpu = pti_cap_cpu_at (c->t_entry);
    if (now_cpu != PTI_CAP_CPU_UNKNOWN && pti_cap.cpu_last_exit != PTI_CAP_CPU_UNKNOWN) {
      int64_t cpu = (int64_t) (now_cpu - pti_cap.cpu_last_exit);
      int64_t burst = (int64_t) (c->t_entry - pti_cap.t_last_exit);
      c->burst_cpu = 1 + pti_capture_zigzag (burst - (cpu > 0 ? cpu : 0));
    }
  }
  pti_cap.cur_code = code;
  return true;
}

void pti_cap_reserve_slow (size_t bound);

/* Room for @bound more bytes (and END's): what is buffered is written
 * first when the block is full. */
static inline void
pti_cap_reserve (size_t bound)
{
  if (PTI_CAP_UNLIKELY (pti_cap.len + bound + PTI_CAP_END_ROOM > pti_cap.cap))
    pti_cap_reserve_slow (bound);
}

void pti_cap_error_record (int rc);

/* Starts the call record: ERROR first if the call failed, head and timing.
 * @bound: the most bytes args and result may take. */
static inline void
pti_cap_record (PtiCall *c, PtiRec *r, int rc, size_t bound)
{
  uint64_t t_exit = pti_cap_now ();
  if (PTI_CAP_UNLIKELY (t_exit < c->t_entry))
    t_exit = c->t_entry;
  pti_cap_lock ();
  pti_cap_reserve (bound + 64);
  if (PTI_CAP_UNLIKELY (rc != MPI_SUCCESS))
    pti_cap_error_record (rc);
  r->code = c->code;
  r->p = pti_cap.buf + pti_cap.len;
  r->head = r->p;
  r->burst = c->t_entry - pti_cap.t_last_exit;
  r->cpu = c->burst_cpu;
  r->dur = t_exit - c->t_entry;
  pti_put_u (r, (uint64_t) c->code << 1);
  pti_put_u (r, r->burst);
  pti_put_u (r, r->cpu);
  pti_put_u (r, r->dur);
  r->args = r->p;
  r->result = r->p;
  r->poll = NULL;
  pti_cap.t_last_exit = t_exit;
}

/* memcmp () == 0 for the few bytes of a record, without a call */
static inline bool
pti_cap_same (const uint8_t *a, const uint8_t *b, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (a[i] != b[i])
      return false;
  return true;
}

/* The args are written: repeat them by R if they equal the last ones. */
static inline void
pti_cap_args_end (PtiRec *r)
{
  size_t n = (size_t) (r->p - r->args);
  if (n > PTI_CAPTURE_REPEAT_MAX)
    pti_cap.rep_len[r->code] = 0;   /* what follows cannot repeat these */
  else if (pti_cap.rep_len[r->code] == n + 1 && pti_cap_same (pti_cap.rep[r->code], r->args, n)) {
    *r->head |= 1;
    r->p = r->args;
  } else {
    memcpy (pti_cap.rep[r->code], r->args, n);
    pti_cap.rep_len[r->code] = (uint8_t) (n + 1);   /* 0: none yet */
  }
  r->result = r->p;
}

void pti_cap_commit_slow (void);
bool pti_cap_run_step (PtiRec *r, bool repeatable);

/* The end of every call recorded, its record committed or absorbed. */
static inline void
pti_cap_commit_end (PtiCall *c)
{
  if (PTI_CAP_UNLIKELY (PTI_CAPTURE_IS_POSIX (c->code)))
    pti_cap.posix_calls++;
  else
    pti_cap.calls++;
  pti_cap.cur_code = 0;
  if (pti_cap.cpu_mode != PTI_CPU_NONE && pti_cap.phase == PTI_CAP_ON)
    pti_cap.cpu_last_exit = pti_cap_cpu_at (pti_cap.t_last_exit);
  if (PTI_CAP_UNLIKELY (pti_cap.len >= PTI_CAPTURE_BLOCK_FILL
                        || pti_cap.t_last_exit - pti_cap.t_last_flush >= pti_cap.flush_interval))
    pti_cap_commit_slow ();
  if (PTI_CAP_UNLIKELY (pti_cap_locked))
    pti_cap_unlock_slow ();
  pti_cap_depth--;
}

/* Commit a call record.  @repeatable: it changes nothing a reader tracks
 * (a call recorded by name, a poll that found nothing), so a run of
 * identical ones becomes one record and a REPEAT. */
static inline void
pti_cap_commit_rep (PtiCall *c, PtiRec *r, bool repeatable)
{
  if (PTI_CAP_UNLIKELY (repeatable || pti_cap.hist[1].code != 0) && pti_cap_run_step (r, repeatable))
    r->p = r->head;   /* absorbed by the run */
  __atomic_store_n (&pti_cap.len, (size_t) (r->p - pti_cap.buf), __ATOMIC_RELEASE);
  pti_cap_commit_end (c);
}

static inline void
pti_cap_commit (PtiCall *c, PtiRec *r)
{
  pti_cap_commit_rep (c, r, false);
}

/* ---- polls that find nothing again, untimed (FORMAT.md 6.6) ----
 * HPC Challenge's RandomAccess calls MPI_Testany 4 million times a second,
 * nearly all finding nothing and absorbed by a REPEAT.  Such a repetition is
 * known before the call (its arguments equal those of the poll that found
 * nothing just before it, nothing recorded since), so the wrapper makes the
 * call and, if it finds nothing again, only counts it: no clock read, no
 * record.  Its time, and that of the computation before it, goes to the
 * burst of the next timed call, which the replay prices as computation just
 * as it priced the poll's own time.  The wrapper's protocol:
 *   int h = pti_cap_poll_match_reqs (code, n, reqs);   (or _probe)
 *   if (h >= 0) {
 *     pti_cap_poll_enter (code); rc = REAL (...); pti_cap_poll_leave ();
 *     if (rc == MPI_SUCCESS && found nothing) { pti_cap_poll_again (h); return rc; }
 *     (the handles before the call are pti_cap.poll[h].req)
 *     if (!pti_cap_begin (&c, code)) return rc;   (timed from its return: dur ~ 0)
 *   } else { the usual begin and call }
 *   ... record, with r.poll = its key (pti_cap_poll_key_*) when it found
 *   nothing, then commit.
 * A repeat is told by comparing the arguments as passed with the stored key
 * of hist[h] in place: the wrapper builds a key only for a poll it records.
 * poll[h].code is 0 or hist[h].code (pti_cap_run_step sets and clears them
 * together), and a key's code says which arguments it holds. */

/* Nothing stands in the way of an untimed repeat: recording is on, not
 * nested, single-threaded, no signal's END pending, nothing recorded since
 * hist[1]. */
static inline __attribute__ ((always_inline)) bool
pti_cap_poll_quiet (void)
{
  return pti_cap.phase == PTI_CAP_ON && !pti_cap_depth && !pti_cap.thread_multiple
         && pti_cap.signal_end_at < 0 && pti_cap.hist_end == pti_cap.len;
}

static inline __attribute__ ((always_inline)) bool
pti_cap_poll_same_reqs (int h, int code, int n, const MPI_Request *reqs)
{
  const PtiCapPollKey *p = &pti_cap.poll[h];
  if (p->code != code || p->n != n)
    return false;
  for (int i = 0; i < n; i++)
    if (p->req[i] != reqs[i])
      return false;
  return true;
}

static inline __attribute__ ((always_inline)) bool
pti_cap_poll_same_probe (int h, int code, int source, int tag, MPI_Comm comm)
{
  const PtiCapPollKey *p = &pti_cap.poll[h];
  return p->code == code && p->source == source && p->tag == tag && p->comm == comm;
}

/* The candidate a poll may repeat: the element a period-2 run expects next,
 * else hist[1]; hist[0] only as the second of two adjacent calls before any
 * run (pti_cap_poll_match_*). */
static inline __attribute__ ((always_inline)) int
pti_cap_poll_first (void)
{
  return pti_cap.run_period == 2 ? pti_cap.run_next : 1;
}

static inline __attribute__ ((always_inline)) bool
pti_cap_poll_second (void)
{
  return pti_cap.run_period == 0 && pti_cap.hist_adjacent;
}

/* Which of hist[0], hist[1] the request-array poll @code on @n handles
 * @reqs would repeat, -1 if none or if it must be recorded the usual way. */
static inline __attribute__ ((always_inline)) int
pti_cap_poll_match_reqs (int code, int n, const MPI_Request *reqs)
{
  int h = pti_cap_poll_first ();
  if (!pti_cap_poll_same_reqs (h, code, n, reqs)
      && (h = 0, !pti_cap_poll_second () || !pti_cap_poll_same_reqs (0, code, n, reqs)))
    return -1;
  return pti_cap_poll_quiet () ? h : -1;
}

/* The same for an iprobe of @source, @tag on @comm. */
static inline __attribute__ ((always_inline)) int
pti_cap_poll_match_probe (int code, int source, int tag, MPI_Comm comm)
{
  int h = pti_cap_poll_first ();
  if (!pti_cap_poll_same_probe (h, code, source, tag, comm)
      && (h = 0, !pti_cap_poll_second () || !pti_cap_poll_same_probe (0, code, source, tag, comm)))
    return -1;
  return pti_cap_poll_quiet () ? h : -1;
}

static inline void
pti_cap_poll_enter (int code)
{
  pti_cap_depth++;
  pti_cap.cur_code = code;
}

static inline void
pti_cap_poll_leave (void)
{
  pti_cap.cur_code = 0;
  pti_cap_depth--;
}

void pti_cap_poll_run_start (int h);
void pti_cap_poll_tick (void);

/* A poll that repeated hist[@h] (pti_cap_poll_match_*) and found nothing
 * again: one more in the run, untimed (burst and dur 0 in its element,
 * FORMAT.md 6.6); the time it took stays in the next timed call's burst.
 * Once every 1,024 calls (timed or not) the clock is read here
 * (pti_cap_poll_tick), so that the flush interval holds in a program that
 * only polls: a timed call looks at it itself (pti_cap_commit_rep). */
static inline __attribute__ ((always_inline)) void
pti_cap_poll_again (int h)
{
  int j = 0;
  if (PTI_CAP_UNLIKELY (pti_cap.run_period != 1)) {
    if (pti_cap.run_period == 0)
      pti_cap_poll_run_start (h);
    else {
      j = h;
      pti_cap.run_next ^= 1;
    }
  }
  pti_cap.run[j].count++;
  if (PTI_CAP_UNLIKELY ((++pti_cap.calls & 1023) == 0))
    pti_cap_poll_tick ();
}

/* A request-array poll's key: code 0 (recorded the usual way) for more
 * requests than it holds. */
static inline void
pti_cap_poll_key_reqs (PtiCapPollKey *k, int code, int n, const MPI_Request *reqs)
{
  k->code = n >= 0 && n <= PTI_CAP_POLL_REQS ? code : 0;
  k->n = k->code != 0 ? n : 0;
  k->source = k->tag = 0;
  k->comm = MPI_COMM_NULL;
  for (int i = 0; i < k->n; i++)
    k->req[i] = reqs[i];
}

/* An iprobe's key: its source, tag and communicator. */
static inline void
pti_cap_poll_key_probe (PtiCapPollKey *k, int code, int source, int tag, MPI_Comm comm)
{
  k->code = code;
  k->n = 0;
  k->source = source;
  k->tag = tag;
  k->comm = comm;
}

/* Abandon a call whose record will not be written (a wrapper's early exit). */
void pti_cap_cancel (PtiCall *c);

/* ---- tables ---- */

uint64_t pti_cap_comm_id (MPI_Comm comm);          /* may write a COMM record */
void pti_cap_put_comm (PtiRec *r, uint64_t id);
size_t pti_cap_comm_bound (MPI_Comm comm);                  /* of newcomm */
/* newcomm for @newcomm, made by call @code from @parent; @group_of: a
 * communicator with its groups (itself, or the parent for MPI_Comm_idup);
 * @extra: what else tells it apart (tag); @per_group: count per group. */
void pti_cap_comm_created (PtiRec *r, int code, MPI_Comm parent, MPI_Comm newcomm,
                           MPI_Comm group_of, int64_t extra, bool per_group);
void pti_cap_comm_freed (MPI_Comm comm);
uint64_t pti_cap_op_id (MPI_Op op);
void pti_cap_op_created (MPI_Op op);
void pti_cap_op_freed (MPI_Op op);

void pti_cap_req_created (MPI_Request req, int flags, int source, int tag);
PtiCapReq *pti_cap_req_find (MPI_Request req);
void pti_cap_req_remove (PtiCapReq *e);
uint64_t pti_cap_req_ref (MPI_Request req);
void pti_cap_put_status (PtiRec *r, PtiCapReq *e, const MPI_Status *st);
void pti_cap_put_status_direct (PtiRec *r, int posted_source, int posted_tag, const MPI_Status *st,
                                bool is_recv);

/* Scratch for the wait/test family and creation calls, grown, never shrunk. */
MPI_Request *pti_cap_scratch_reqs (size_t n);
MPI_Status *pti_cap_scratch_status (size_t n);
int *pti_cap_scratch_int (size_t n);

/* ---- lifecycle ---- */

/* One line on stderr, "pticapture: " a b c, with write(2) only. */
void pti_cap_say (const char *a, const char *b, const char *c);
/* POSIX file calls are recorded from now on, on this thread (posix.c);
 * @capture_dir: where the trace goes, never recorded. */
void pti_cap_posix_start (const char *capture_dir);

void pti_cap_open (int required, int provided);
void pti_cap_end (int how, int64_t errorcode);
void *pti_cap_resolve (const char *name);        /* PMPI_X of the MPI library */
void *pti_cap_resolve_libc (const char *name);   /* the C library's (posix.c) */
uint32_t pti_cap_generic_name (uint32_t index);
void pti_cap_generic (PtiCall *c, uint32_t index, int rc);
static inline bool
pti_cap_begin_generic (PtiCall *c, uint32_t index)
{
  if (!pti_cap_begin (c, PTI_C_generic))
    return false;
  pti_cap.cur_name = index + 1;
  return true;
}
extern const char *const pti_cap_generic_names[];
/* A call Open MPI's Fortran bindings make for themselves (gen-generic.py). */
bool pti_cap_fortran_aux (const void *return_address);

/* The real function behind a wrapper: PMPI_NAME of the next object in the
 * search order (the MPI library), since this library defines PMPI_NAME too,
 * which is how calls from Open MPI's Fortran bindings reach it. */
#define PTI_REAL_DECL(name) \
  static __typeof__ (&PMPI_##name) pti_real_##name; \
  static inline __typeof__ (&PMPI_##name) pti_real_get_##name (void) \
  { \
    if (PTI_CAP_UNLIKELY (pti_real_##name == NULL)) \
      pti_real_##name = (__typeof__ (&PMPI_##name)) pti_cap_resolve ("PMPI_" #name); \
    return pti_real_##name; \
  }
#define PTI_REAL(name) (pti_real_get_##name ())

/* Export the wrapper @fn as both MPI_NAME and PMPI_NAME. */
#define PTI_EXPORT_AS(name, fn) \
  extern __typeof__ (PMPI_##name) MPI_##name __attribute__ ((alias (#fn), visibility ("default"))); \
  extern __typeof__ (PMPI_##name) PMPI_##name __attribute__ ((alias (#fn), visibility ("default")))
