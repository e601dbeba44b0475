/* The engine core's private vocabulary: what its files (queue.c, procs.c,
 * protocol.c, netglue.c, repeat.c, diagnose.c, trace-out.c, engine.c)
 * share.  Nothing outside engine/ includes this; the session drives the
 * core through engine.h.
 *
 * The core is streaming: each process has a window, a ring of operations
 * not yet executed.  Operations are appended (by the WSL, on the session's
 * behalf) either ahead of the evaluation (the push form) or when the
 * evaluation needs them (a pull source asked for one rank's next
 * operations).  An operation leaves the window as soon as it is executed;
 * what a request still needs once posted lives in its request slot; what
 * the trace needs is handed to the event sink when the operation finishes.
 * Memory is therefore bounded by what is in flight, not by the workload. */
#pragma once

#include "engine.h"

#include <math.h>
#include <string.h>

G_BEGIN_DECLS

/* ---- operations (the window's contents) ---------------------------------- */

/* Kinds beyond the events of PtiOpKind (engine.h): markers and continuations
 * that are not events of their own. */
enum {
  OP_REQS = PTI_OP_N_KINDS,  /* more request handles of the wait before it */
  OP_REPEAT_BEGIN,           /* bytes: count; flags: REPEAT_REPLAYED if the engine replays */
  OP_REPEAT_NEXT,            /* a regenerating source starts the block's next repetition */
  OP_REPEAT_END,
  OP_N_KINDS
};

#define REQS_PER_OP 7        /* handles one OP_REQS carries */
#define OP_FLAG_ANY_TAG 0x01 /* unused: tags carry PTI_ENGINE_ANY_TAG */
#define REPEAT_REPLAYED 0x02 /* the engine replays the block from its window */
#define OP_FLAG_SYNC 0x04    /* a send or isend by rendezvous whatever its size (ssend) */

/* 32 bytes.  Messages: peer, tag, bytes, comm, req (non-blocking); compute:
 * duration and the RUD id in peer; waits: the number of requests in peer,
 * the first handles in h[] of the OP_REQS that follow; collective markers:
 * the collective in peer, root in tag, bytes, comm. */
typedef union {
  struct {
    guint8 kind;
    guint8 flags;
    guint16 comm;
    guint32 peer;
    gint32 tag;
    guint32 req;
    union {
      double duration;
      guint64 bytes;
    };
  };
  struct {
    guint8 kind_;
    guint8 n;
    guint16 pad_;
    guint32 h[REQS_PER_OP];
  } reqs;
  /* PTI_OP_IO: flags is the PtiIoKind, | OP_IO_COLLECTIVE; the gather is
   * the collective's group (ioglue.c), n its size. */
  struct {
    guint8 kind__;
    guint8 io_kind;
    guint16 pad2_;
    guint32 file;
    guint32 n;
    guint32 gather;
    guint64 bytes_;
    guint64 offset;
  } io;
} Op;
#define OP_IO_COLLECTIVE 0x80

G_STATIC_ASSERT (sizeof (Op) == 32);

/* ---- requests ----------------------------------------------------------- */

/* Handles: a slot of the process's request table and its generation, so that
 * a handle of a request already completed (its slot reused) is recognised. */
#define REQ_SLOT_BITS 22
#define REQ_SLOT_MASK ((1u << REQ_SLOT_BITS) - 1)
#define REQ_MAX_SLOTS (1u << REQ_SLOT_BITS)
#define NO_SLOT G_MAXUINT32

typedef enum {
  REQ_FREE,
  REQ_APPENDED,          /* made by an isend/irecv not executed yet */
  REQ_POSTED,
  REQ_DONE,              /* complete; freed when the wait that names it finishes */
} ReqState;

typedef struct Msg Msg;

/* 80 bytes: what stage 2 and analytical repetition need.  What only the
 * trace needs is in ReqTrace, a parallel table that exists only while a
 * sink is set, so an evaluation without a trace holds half the bytes per
 * request (a collective appended whole holds 2 log2(P) of them per rank). */
typedef struct {
  Msg *msg;              /* send: its message until the data has left;
                          * receive: the matched message until it has arrived */
  const PtiModelInstance *model; /* receive: the model that carried its message */
  double ready;          /* s: when it completed (valid once done) */
  double busy_from;      /* s: from when the rest of its time is the message layer's
                          * work rather than waiting on the peer (rendezvous data out) */
  guint64 bytes;         /* as posted */
  guint64 serial;        /* when it was made: the n-th request of its process */
  guint32 peer;          /* as posted; a receive's may be PTI_ENGINE_ANY_SOURCE */
  gint32 tag;            /* as posted; a receive's may be PTI_ENGINE_ANY_TAG */
  guint32 next;          /* posted-receive queue, or free list */
  guint32 canon;         /* its number in the digest being made (repeat.c) */
  guint16 comm;
  guint16 gen;           /* generation of the slot (handle bits above REQ_SLOT_BITS) */
  guint8 state;          /* ReqState */
  guint8 is_recv;
  guint8 rendezvous;
  guint8 named;          /* a wait or waitall appended so far names it */
  guint8 blocking;       /* made by a blocking send/recv when it executed */
  guint8 pinned;         /* made in a block the engine replays: the slot is kept for
                          * its repetitions (not reused, its handle stays the same) */
  guint8 any_named;      /* a waitany appended so far names it */
} Req;

G_STATIC_ASSERT (sizeof (Req) == 80);

/* What the trace says of a request (trace-out.c), by the same slot. */
typedef struct {
  double entered;        /* s: when its data entered the network */
  double arrived;        /* s: when its data reached the receiver */
  double posted;         /* s: when it was posted */
  double left;           /* s: a send's data had left the sender (`ready`, but not
                          * moved by analytical repetition) */
  guint64 msg_bytes;     /* its message's size, once known */
  guint64 trace_id;      /* isend, irecv: the n-th its process posted */
  guint64 msg_id;        /* once known */
  guint32 actual_peer;   /* once matched */
  gint32 actual_tag;
} ReqTrace;

/* ---- messages ----------------------------------------------------------- */

struct Msg {
  Msg *next;             /* receiver's unmatched queue, or the free list */
  guint32 src, dst;
  gint32 tag;
  guint32 send_slot;     /* sender's request slot until the send completes */
  guint32 recv_slot;     /* receiver's request slot once matched */
  guint16 comm;
  guint8 rendezvous;
  guint8 request_in;     /* rendezvous request has reached the receiver */
  guint8 data_in;        /* data has reached the receiver */
  guint8 flow_net;       /* resource model: its index in PtiEngine.nets + 1; 0: cost model */
  guint8 stage;          /* resource model: the Stage of the flow in flight */
  guint64 bytes;
  guint64 id;
  double arrived;        /* s, once data_in */
  double reply_at;       /* s: rendezvous answer reached the sender (resource models) */
  double entered;        /* s: the data entered the network */
  const PtiModelInstance *model; /* the network model carrying it */
  guint32 src_port, dst_port;    /* on that model */
  guint32 canon, canon_epoch;    /* its number in the digest of that epoch (repeat.c) */
};

/* What a message's flow in flight (resource models) carries. */
typedef enum {
  STAGE_EAGER_DATA,
  STAGE_REQUEST,         /* rendezvous request, sender to receiver */
  STAGE_REPLY,           /* rendezvous answer, receiver to sender */
  STAGE_RDV_DATA,
} Stage;

#define MSG_CHUNK 1024

/* ---- processes ---------------------------------------------------------- */

typedef enum {
  PROC_READY,            /* runnable: not started yet, or running */
  PROC_SCHEDULED,        /* its RESUME is in the queue */
  PROC_WAITING,          /* blocked in the operation at its head until requests complete */
  PROC_STARVED,          /* its window is empty: finished, unless more is appended */
} ProcState;

/* A block being repeated (analytical repetition), on one process. */
typedef struct {
  guint64 count;         /* repetitions in all */
  guint64 k;             /* repetitions begun so far (1 in the first) */
  guint64 pos;           /* operations executed since the current repetition began */
  guint32 start;         /* REPEAT_REPLAYED: window index of the block's first operation */
  guint32 len;           /* REPEAT_REPLAYED: operations in the block (known at its end) */
  guint32 block;         /* the block's number, counted from 0 in the workload */
  guint8 active;
  guint8 replayed;
} Repeat;

/* Fields in the order of use: the first three cache lines hold what
 * running a process, posting and matching touch per event (the main loop
 * prefetches them for the next item's process: with thousands of ranks a
 * process is rarely in cache when its item comes up); the rest after. */
typedef struct {
  /* the window: ops[head & mask] .. ops[(tail - 1) & mask]; a replayed
   * repeated block keeps the slots from `pin` on */
  Op *ops;
  guint32 mask;          /* capacity - 1 (a power of two), or 0 before the first op */
  guint32 head, tail, pin;
  guint8 state;          /* ProcState */
  guint8 source_done;    /* its source has nothing more (or it has no source) */
  guint8 open_repeat;    /* appending: a repeated block is open */
  guint8 open_replayed;  /* appending: ... and the engine will replay it */
  guint32 blocking_slot; /* the request of the send or receive at its head */
  double clock;          /* s: where this process is */
  double wait_from;      /* s: when its current blocking operation began to wait */
  double op_start;       /* s: when the operation at its head began */
  guint32 processor;     /* where it is placed (pti_system_route takes it from there) */
  guint32 free_req;      /* free list of request slots */
  /* second line */
  Req *reqs;
  ReqTrace *rtrace;      /* by slot, while a sink is set; else NULL */
  guint32 n_reqs, live_reqs;     /* slots made, and in use */
  guint32 posted_head, posted_tail;  /* receives posted, not matched, in order */
  Msg *unmatched_head, *unmatched_tail; /* sends posted to this process, not yet matched */
  guint64 n_events;      /* events executed (or derived) so far */
  guint64 n_appended;    /* events appended so far */
  /* third line */
  Repeat rep;
  double compute, comm, wait;
  /* the rest */
  guint64 sent, sent_bytes;      /* messages sent so far, and their bytes */
  guint64 req_serial;    /* requests made so far */
  guint64 n_posted;      /* isend and irecv posted so far (executed or derived): the
                          * next one's id in the trace */
  const PtiModelInstance *cpu;   /* its processor's CPU model */
  const PtiModelInstance *net;   /* its node's network's model, or NULL */
  const PtiModelInstance *intra; /* its node's intra-node model, or NULL */
  const PtiModelInstance *io;    /* its node's file system's I/O model, or NULL */
  double io_time;        /* s in the io device: its requests, after a collective's last arrival */
  guint32 cap_reqs;
  guint32 io_client;     /* its node's client number on that file system */
  guint16 open_phases;   /* appending: phases begun and not ended, */
  guint16 phases_at_repeat;      /* ... of which so many before the open repeated block */
  guint32 n_blocks;      /* appending: repeated blocks begun so far */
  guint32 *open_phase_ids;       /* ... which (phases.c) */
  gpointer phase_stack;  /* executing: the phases it is in, innermost last (phases.c) */
  guint64 phase_serial;  /* executing: phases it entered so far */
  guint16 in_phases, cap_phases;
  guint32 open_start;    /* appending: window index of its first operation */
  guint64 gen_k;         /* appending: repetitions a regenerating source has begun */
} Proc;

#if GLIB_SIZEOF_VOID_P == 8
G_STATIC_ASSERT (G_STRUCT_OFFSET (Proc, reqs) == 64);
G_STATIC_ASSERT (G_STRUCT_OFFSET (Proc, rep) == 128);
G_STATIC_ASSERT (sizeof (Proc) == 320);   /* five lines; procs are allocated 64-byte aligned */
#endif

/* ---- the event queue -------------------------------------------------------- */

typedef enum {
  ITEM_RESUME,           /* a process continues at its clock */
  ITEM_INJECT_DATA,      /* eager data enters the network */
  ITEM_INJECT_REQUEST,   /* rendezvous request enters the network */
  ITEM_REQUEST_ARRIVE,
  ITEM_REPLY_ARRIVE,     /* rendezvous answer reaches the sender */
  ITEM_DATA_ARRIVE,
  ITEM_DATA_INJECTED,    /* resource models: rendezvous data has left the sender */
  ITEM_NET_WAKE,         /* resource model `rank` may have a flow ending now */
} ItemType;

/* An INJECT_DATA or INJECT_REQUEST item with this bit also stands for the
 * RESUME of its sender that was pushed right after it, at the same time
 * (queue.c, pti_queue_push_resume): the two are handled one after the other
 * with nothing between, so they share one place in the queue. */
#define ITEM_THEN_RESUME 0x100u
#define ITEM_TYPE_MASK 0xffu

typedef struct {
  double t;
  guint64 seq;
  Msg *msg;
  guint32 rank;
  guint32 type;
} Item;

/* queue.c: sorted runs of items, and a binary heap for what fits none. */
#define QUEUE_RUNS 5   /* measured: queue.c */
typedef struct {
  Item *buf;             /* a ring: mask + 1 places (0 before the first item) */
  guint head, n, mask;
} QueueRun;
typedef struct {
  const Item *top;       /* the next item, while n > 0 */
  guint n;               /* items, runs and heap */
  guint top_src;         /* where top is: a run, or QUEUE_RUNS: the heap */
  /* Each run's first and last times, INFINITY and -INFINITY if it is
   * empty, so that choosing a run or the next item reads no ring. */
  double head_t[QUEUE_RUNS], tail_t[QUEUE_RUNS];
  Item *lastp;           /* the last item pushed, while nothing has moved since (else NULL) */
  QueueRun runs[QUEUE_RUNS];
  Item *heap;
  guint heap_n, heap_cap;
} PtiQueue;

/* ---- resource models and changes -------------------------------------------- */

typedef struct {
  PtiEngine *engine;
  const PtiModelInstance *model;
  const PtiNetOps *ops;
  double wake_at;        /* s: the NET_WAKE in the queue that counts; INFINITY if none */
  gint record_base;      /* index of the model's first record type in the trace, -1 */
  PtiNetSink sink;       /* host = this */
} FlowNet;

typedef struct {
  double t;
  const PtiModelInstance *model;
  char *element, *selector, *value;
  char *origin;          /* "changes.txt:3" or "pti_context_change", for errors */
  guint8 effect;         /* PtiChangeEffect: RECONFIGURE is the model's to apply; the
                          * CPU effects are in the nodes' timelines (live.c) already */
} Change;

/* ---- the engine ---------------------------------------------------------- */

struct _PtiEngine {
  const PtiSystem *system;
  Proc *procs;
  guint n_procs;
  gboolean one_network;  /* every process's node is on one network: every pair has a route */
  PtiQueue queue;
  guint64 seq;
  double now;
  guint64 next_msg_id;
  guint64 held;          /* operations held in windows (appended, not released) */
  Msg *free_msgs;
  GPtrArray *msg_chunks;
  GError *error;         /* first error raised inside the loop */
  gboolean started;
  gboolean finished;
  gboolean running;      /* inside pti_engine_run: appends come from a pull */
  gboolean top;          /* the next pti_proc_run is the last thing its item's handling does */
  gboolean bounded;      /* a partial run: nothing at or after the horizon */
  double horizon;        /* a partial run resolves nothing at or after this time */
  double predicted;
  PtiProgressFunc progress;
  gpointer progress_data;
  guint64 progress_every;
  PtiEngineSource source;          /* pull source, or pull == NULL */
  PtiEngineSink sink;              /* where finished events go, or event == NULL */
  guint64 repetitions_extrapolated;
  guint64 repetitions_evaluated;
  guint64 events_derived;
  GPtrArray *comm_names;           /* by communicator id (context / 2), or NULL */
  guint16 *comm_choice;            /* by communicator id: its network model choice
                                    * (pti_system_choice), 0 the default; NULL if none */
  guint n_comm_choice;
  FlowNet *nets;                   /* resource network models of the system */
  guint n_nets;
  GArray *changes;                 /* Change, sorted by time (stable) */
  guint next_change;               /* first change not applied yet */
  double next_change_t;            /* min (its time, known_until): pti_changes_due's one compare */
  double known_until;              /* a change stream may still give changes at or after
                                    * this time, none before: nothing at or after it is
                                    * resolved until the stream says more (INFINITY: none) */
  PtiEngineFeed feed;              /* the change stream, or more == NULL */
  GArray **node_timeline;          /* per system node: CpuPhase (live.c), or NULL; NULL if
                                    * no CPU change was ever given */
  GArray **node_changes;           /* per system node: its CPU changes as given (live.c) */
  guint32 *proc_node;              /* per rank: its system node, once CPU changes exist */
  gboolean cpu_live;               /* CPU changes or a change stream: computations end
                                    * by pti_cpu_finish */
  gpointer repeat_state;           /* repeat.c's, or NULL */
  gboolean repeat_snapshot_due;    /* rank 0 began a repetition: digest at the next safe point */
  GArray *phases;                  /* Phase, by phase number (phases.c), or NULL */
  GPtrArray *phase_names;          /* char*, by phase number, or NULL */
  GHashTable *phase_ids;           /* name -> number + 1 */
  guint32 *scratch_slots;          /* reused: the requests one wait completed */
  guint scratch_slots_cap;
  PtiEngineDone *scratch_done;     /* reused: what the sink is told of them */
  guint scratch_done_cap;
  GArray *io_files;                /* IoFile by file number (ioglue.c), or NULL */
  GPtrArray *io_gathers;           /* IoGather* by gather number (ioglue.c), or NULL */
};

/* A scratch array of at least @n elements, grown geometrically and kept. */
#define PTI_SCRATCH(e, field, cap_field, n)                                   \
  (G_UNLIKELY ((n) > (e)->cap_field)                                          \
     ? ((e)->cap_field = MAX ((n), 2 * (e)->cap_field),                       \
        (e)->field = g_renew (__typeof__ (*(e)->field), (e)->field, (e)->cap_field)) \
     : (e)->field)

/* queue.c */
static inline gboolean
pti_item_less (const Item *a, const Item *b)
{
  return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}
void pti_queue_push_slow (PtiQueue *q, Item it, guint k, gboolean first);
/* Queue an item at @t.  Inline: the usual case, an append to a run. */
static inline void
pti_queue_push (PtiEngine *e, double t, ItemType type, guint32 rank, Msg *msg)
{
  PtiQueue *q = &e->queue;
  Item it = { .t = t, .seq = e->seq++, .msg = msg, .rank = rank, .type = type };
  /* The new item has the greatest seq: it goes before the next item only
   * if it is earlier, and after a run's last item if it is not. */
  gboolean first = q->n == 0 || t < q->top->t;
  guint k;
#pragma GCC unroll 8
  for (k = 0; k < QUEUE_RUNS; k++)
    if (q->tail_t[k] <= t)
      break;
  QueueRun *r = &q->runs[k];
  if (G_UNLIKELY (k == QUEUE_RUNS || r->n == r->mask + (r->buf != NULL))) {
    pti_queue_push_slow (q, it, k, first);   /* the heap, or the ring is full or missing */
    return;
  }
  Item *slot = &r->buf[(r->head + r->n++) & r->mask];
  *slot = it;
  q->lastp = slot;
  q->tail_t[k] = t;
  if (r->n == 1)
    q->head_t[k] = t;
  q->n++;
  if (first) {
    q->top_src = k;
    q->top = slot;
  }
}
/* A sender that posted a send yields at the time its data is injected
 * (after its overhead): the RESUME would be pushed right after the
 * injection, with the next insertion number and the same time, so it would
 * be handled right after it, nothing between (an item pushed meanwhile has a
 * later number).  Marking the injection instead saves a push and a pop:
 * a quarter of the items of a wavefront.  The RESUME's insertion number is
 * spent all the same, so every other item keeps its own.  Inline: once
 * per computation that ends after the current time. */
static inline void
pti_queue_push_resume (PtiEngine *e, double t, guint32 rank)
{
  PtiQueue *q = &e->queue;
  Item *l = q->lastp;
  if (l != NULL && l->seq + 1 == e->seq && l->t == t && l->rank == rank
      && (l->type == ITEM_INJECT_DATA || l->type == ITEM_INJECT_REQUEST)) {
    l->type |= ITEM_THEN_RESUME;
    e->seq++;
    q->lastp = NULL;
    return;
  }
  pti_queue_push (e, t, ITEM_RESUME, rank, NULL);
}

/* The first item of run @k, or with QUEUE_RUNS the heap's root. */
static inline const Item *
pti_queue_source_head (const PtiQueue *q, guint k)
{
  if (k < QUEUE_RUNS)
    return &q->runs[k].buf[q->runs[k].head];
  return &q->heap[0];
}

/* The next item after top was taken (n > 0): the least of the runs'
 * heads and the heap's root.  Inline: once per item. */
static inline void
pti_queue_find_top (PtiQueue *q)
{
  guint src = QUEUE_RUNS;
  double best = q->heap_n > 0 ? q->heap[0].t : INFINITY;
#pragma GCC unroll 8
  for (guint k = 0; k < QUEUE_RUNS; k++) {
    double t = q->head_t[k];
    /* One compare for a head that is later, the usual case. */
    if (t <= best) {
      if (t < best) {
        best = t;
        src = k;
      } else if (q->runs[k].n > 0
                 && ((src == QUEUE_RUNS && q->heap_n == 0)
                     || pti_queue_source_head (q, k)->seq < pti_queue_source_head (q, src)->seq)) {
        src = k;   /* a tie of times: the insertion numbers decide */
      }
    }
  }
  q->top = pti_queue_source_head (q, src);
  q->top_src = src;
}

/* The heap's root taken (queue.c). */
void pti_queue_heap_pop (PtiQueue *q);
/* The next item (the queue is not empty).  Inline: once per item. */
static inline Item
pti_queue_pop (PtiEngine *e)
{
  PtiQueue *q = &e->queue;
  Item top = *q->top;
  q->lastp = NULL;
  guint k = q->top_src;
  if (k < QUEUE_RUNS) {
    QueueRun *r = &q->runs[k];
    r->head = (r->head + 1) & r->mask;
    if (--r->n == 0) {
      q->head_t[k] = INFINITY;
      q->tail_t[k] = -INFINITY;
    } else {
      q->head_t[k] = r->buf[r->head].t;
    }
  } else {
    pti_queue_heap_pop (q);
  }
  if (--q->n > 0)
    pti_queue_find_top (q);
  return top;
}
/* The next item, without taking it (the queue is not empty). */
static inline const Item *
pti_queue_peek (const PtiEngine *e)
{
  return e->queue.top;
}
/* Its time. */
static inline double
pti_queue_next_time (const PtiEngine *e)
{
  return e->queue.top->t;
}
static inline guint
pti_queue_size (const PtiEngine *e)
{
  return e->queue.n;
}
/* Append every item, in no particular order (a folded RESUME as an item
 * of its own, as it was pushed). */
void pti_queue_collect (const PtiEngine *e, GArray *into);
/* Move every item @dt later. */
void pti_queue_shift (PtiEngine *e, double dt);
void pti_queue_init (PtiEngine *e);
void pti_queue_free (PtiEngine *e);


/* procs.c: windows, request slots, messages */
/* Doubles @p's window (it is full, or has none yet). */
void pti_proc_window_grow (Proc *p);
/* A zeroed operation at @p's tail.  Inline: every event appended comes
 * through here. */
static inline Op *
pti_proc_append_op (PtiEngine *e, Proc *p)
{
  if (G_UNLIKELY (p->mask == 0 || p->tail - p->pin == p->mask + 1))
    pti_proc_window_grow (p);
  Op *op = &p->ops[p->tail++ & p->mask];
  memset (op, 0, sizeof *op);
  e->held++;
  return op;
}
static inline guint32
pti_proc_window_len (const Proc *p)
{
  return p->tail - p->head;
}
static inline Op *
pti_proc_op_at (const Proc *p, guint32 index)
{
  return &p->ops[index & p->mask];
}
/* Make sure the operation at @p's head is there: asks its source if the
 * window is empty.  FALSE if it has none (starved or done) or on error. */
gboolean pti_proc_fetch (PtiEngine *e, guint rank);
/* Drop the operation at the head and its continuations.  Inline: once
 * per event. */
static inline void
pti_proc_consume (PtiEngine *e, Proc *p)
{
  const Op *op = pti_proc_op_at (p, p->head);
  guint32 n = 1;
  if (op->kind == PTI_OP_WAIT || op->kind == PTI_OP_WAITALL || op->kind == PTI_OP_WAITANY)
    n += (op->peer + REQS_PER_OP - 1) / REQS_PER_OP;
  p->head += n;
  if (!p->rep.active || !p->rep.replayed) {
    e->held -= p->head - p->pin;
    p->pin = p->head;
  }
}
/* Grows @p's request table (every slot is in use). */
void pti_req_table_grow (Proc *p);
/* A request slot, REQ_APPENDED, its fields zero.  Inline, as the release
 * and the message pool's: a blocking send or receive takes a slot when
 * posted and gives it back when done. */
static inline guint32
pti_req_alloc (Proc *p)
{
  guint32 slot = p->free_req;
  if (slot != NO_SLOT) {
    p->free_req = p->reqs[slot].next;
  } else {
    if (G_UNLIKELY (p->n_reqs == p->cap_reqs))
      pti_req_table_grow (p);
    slot = p->n_reqs++;
    p->reqs[slot].gen = 0;
  }
  Req *q = &p->reqs[slot];
  guint16 gen = q->gen;
  memset (q, 0, sizeof *q);
  if (p->rtrace != NULL)
    memset (&p->rtrace[slot], 0, sizeof p->rtrace[slot]);
  q->gen = gen;
  q->next = NO_SLOT;
  q->state = REQ_APPENDED;
  q->serial = p->req_serial++;
  p->live_reqs++;
  return slot;
}
/* Give every process a trace table for its request slots (a sink was set). */
void pti_reqs_trace_init (PtiEngine *e);
/* The trace facts of @p's request @slot, or NULL without a sink. */
static inline ReqTrace *
pti_req_trace (const Proc *p, guint32 slot)
{
  return p->rtrace != NULL ? &p->rtrace[slot] : NULL;
}
static inline void
pti_req_release (Proc *p, guint32 slot)
{
  Req *q = &p->reqs[slot];
  p->live_reqs--;
  if (q->pinned) {
    q->state = REQ_FREE;   /* until the block's next repetition re-arms it */
    return;
  }
  q->state = REQ_FREE;
  q->gen = (guint16) ((q->gen + 1) & ((1u << (32 - REQ_SLOT_BITS)) - 1));
  q->next = p->free_req;
  p->free_req = slot;
}
static inline guint32
pti_req_handle (const Proc *p, guint32 slot)
{
  return slot | ((guint32) p->reqs[slot].gen << REQ_SLOT_BITS);
}
/* The slot a handle names if it is still the request it was (not released
 * and reused since), else NO_SLOT. */
static inline guint32
pti_req_slot (const Proc *p, guint32 handle)
{
  guint32 slot = handle & REQ_SLOT_MASK;
  if (slot >= p->n_reqs || p->reqs[slot].state == REQ_FREE
      || p->reqs[slot].gen != (guint16) (handle >> REQ_SLOT_BITS))
    return NO_SLOT;
  return slot;
}
/* Fills the message pool's free list with a new chunk. */
void pti_msg_pool_grow (PtiEngine *e);
/* A zeroed message from the pool. */
static inline Msg *
pti_msg_new (PtiEngine *e)
{
  if (G_UNLIKELY (e->free_msgs == NULL))
    pti_msg_pool_grow (e);
  Msg *m = e->free_msgs;
  e->free_msgs = m->next;
  memset (m, 0, sizeof *m);
  return m;
}
static inline void
pti_msg_free (PtiEngine *e, Msg *m)
{
  m->next = e->free_msgs;
  e->free_msgs = m;
}
/* The handles of the wait at @p's head: @i-th of its n. */
guint32 pti_wait_handle (const Proc *p, guint i);

/* protocol.c: matching, protocols, the process loop */
void pti_proc_run (PtiEngine *e, guint rank);
void pti_item_handle (PtiEngine *e, const Item *it);
const PtiModelInstance *pti_route (const PtiEngine *e, guint a, guint b, guint32 *port_a,
                                   guint32 *port_b);
/* The same for a message of matching context @comm: its communicator's
 * model choice, if it has one, replaces the route's default model. */
static inline const PtiModelInstance *
pti_route_comm (const PtiEngine *e, guint a, guint b, guint comm, guint32 *port_a,
                guint32 *port_b)
{
  const PtiModelInstance *via = pti_route (e, a, b, port_a, port_b);
  if (G_UNLIKELY (e->comm_choice != NULL) && via != NULL && (comm >> 1) < e->n_comm_choice
      && e->comm_choice[comm >> 1] != 0) {
    /* pti_engine_set_comm_model checked that every route of the
     * communicator's members has it. */
    const PtiModelInstance *chosen
      = pti_system_choice_instance (e->system, e->comm_choice[comm >> 1], via);
    if (chosen != NULL)
      via = chosen;
  }
  return via;
}

/* netglue.c: resource models and scheduled changes */
void pti_nets_init (PtiEngine *e);
void pti_nets_free (PtiEngine *e);
guint8 pti_flow_net_of (const PtiEngine *e, const PtiModelInstance *model);
void pti_flow_start (PtiEngine *e, Msg *m, Stage stage);
void pti_net_reschedule (PtiEngine *e, FlowNet *f);
/* A change is due at or before @t, or the change stream must say more
 * before anything at @t is resolved.  Hot path: one compare. */
static inline gboolean
pti_changes_due (const PtiEngine *e, double t)
{
  return G_UNLIKELY (e->next_change_t <= t);
}
void pti_changes_update_next (PtiEngine *e);
gboolean pti_changes_apply (PtiEngine *e, double t);
double pti_changes_next_time (const PtiEngine *e);

/* live.c: CPU speed and availability over time (PTI_CHANGE_SPEED,
 * PTI_CHANGE_AVAILABLE), the change stream */
/* When a computation of @work s (priced at full speed) that @rank begins at
 * @start ends, given its node's timeline; reads the change stream as far as
 * it must.  Only called when node_timeline is set. */
double pti_cpu_finish (PtiEngine *e, guint rank, double start, double work);
void pti_live_free (PtiEngine *e);
/* A CPU change joins the timelines of system nodes @node_lo..@node_hi. */
void pti_cpu_change_add (PtiEngine *e, double t, PtiChangeEffect effect, double value,
                         guint node_lo, guint node_hi);

/* ioglue.c: the io device.  Runs the I/O operation at @rank's head now;
 * TRUE if the process goes on, FALSE if it waits for a collective's other
 * ranks (it is then PROC_WAITING). */
gboolean pti_io_run (PtiEngine *e, guint rank, const Op *op);
void pti_io_free (PtiEngine *e);
void pti_io_reset (PtiEngine *e);
void pti_out_io (PtiEngine *e, guint rank, const Op *op, double start, double end, double wait);

/* diagnose.c */
void pti_report_deadlock (PtiEngine *e, GError **error);
gboolean pti_report_unreceived (PtiEngine *e, GError **error);
gboolean pti_check_requests_waited (PtiEngine *e, GError **error);
const char *pti_op_kind_name (guint kind);

/* trace-out.c: finished operations to the sink */
void pti_out_compute (PtiEngine *e, guint rank, const Op *op, double start, double end);
void pti_out_post (PtiEngine *e, guint rank, const Op *op, guint32 slot, double start,
                   double end);
void pti_out_blocking (PtiEngine *e, guint rank, const Op *op, guint32 slot, double start,
                       double end, double wait);
void pti_out_wait (PtiEngine *e, guint rank, const Op *op, double start, double end,
                   double wait, const guint32 *slots, guint n_done);
void pti_out_marker (PtiEngine *e, guint rank, const Op *op);
/* The probe at @rank's head found message @m. */
void pti_out_probe (PtiEngine *e, guint rank, const Op *op, const Msg *m, double start,
                    double end, double wait);

/* phases.c: phase markers and what ranks do inside */
void pti_phase_on_marker (PtiEngine *e, guint rank, const Op *op);
/* A repeated block begins or ends on @rank: phases must not straddle it. */
void pti_phases_repeat_begin (PtiEngine *e, guint rank);
gboolean pti_phases_repeat_end (PtiEngine *e, guint rank, GError **error);
/* @rank has appended everything: every phase it began is ended. */
gboolean pti_phases_check_complete (PtiEngine *e, guint rank, GError **error);
void pti_phases_free (PtiEngine *e);
/* For analytical repetition: every rank's phase figures as one flat array
 * of doubles (so many per rank), and adding @times the difference of two. */
guint pti_phases_width (const PtiEngine *e);
void pti_phases_save (const PtiEngine *e, guint rank, double *out);
void pti_phases_add (PtiEngine *e, guint rank, const double *before, guint before_width,
                     const double *after, double times);
void pti_phases_shift_open (PtiEngine *e, guint rank, guint64 serial_from, double dt,
                            const double delta[5], double times);
void pti_phases_digest (const PtiEngine *e, guint rank, PtiDigest *d);

/* repeat.c */
void pti_repeat_on_marker (PtiEngine *e, guint rank, Op *op);
/* Between two queue items (nothing half done): take the state digest a
 * repetition asked for and derive repetitions if it proves periodic. */
static inline gboolean
pti_repeat_pending (const PtiEngine *e)
{
  return G_UNLIKELY (e->repeat_snapshot_due);
}
void pti_repeat_at_safe_point (PtiEngine *e);
/* @rank will append nothing more: no block left open, and as many blocks
 * as the others. */
gboolean pti_repeat_check_complete (PtiEngine *e, guint rank, GError **error);
void pti_repeat_free (PtiEngine *e);

G_END_DECLS
