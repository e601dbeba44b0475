/* ptitrace paraver: PREFIX.prv, .pcf and .row (shared/formats/paraver.md).
 *
 * One pass over the trace turns every event into Paraver records (states,
 * MPI enter/exit events, RUD events) pushed into an external sorter keyed by
 * (time, task, class, order in the trace); message ends go to a second
 * sorter keyed by message id, which pairs them into communication records
 * afterwards.  The body is written from the merged, time-sorted stream.
 * Memory: the two sorters' budgets (--memory) plus O(processes). */
#include "commands.h"

#include <math.h>
#include <string.h>

/* States of the Extrae/Dimemas table (paraver.md section 6), and one of our
 * own for what analytical repetition derived (neither Idle nor work). */
enum {
  ST_IDLE = 0, ST_RUNNING = 1, ST_WAITING_MESSAGE = 3, ST_BLOCKING_SEND = 4, ST_SYNC = 5,
  ST_WAIT_ALL = 8, ST_IMMEDIATE_SEND = 10, ST_IMMEDIATE_RECV = 11, ST_IO = 12, ST_GROUP = 13,
  ST_DERIVED = 100,
};

#define TYPE_MPI_P2P 50000001u
#define TYPE_MPI_COLL 50000002u
#define TYPE_MPI_IO 50000005u
#define TYPE_COLL_SEND_SIZE 50100001u
#define TYPE_COLL_RECV_SIZE 50100002u
#define TYPE_COLL_ROOT 50100003u
#define TYPE_COLL_COMM 50100004u
#define TYPE_RUD 18000001u
#define TYPE_DERIVED 18000002u
#define TYPE_RECORD_BASE 19000000u
#define MAX_RUDS 65535u

enum { CLS_EVENT = 0, CLS_STATE = 1, CLS_COMM = 2 };

typedef struct {
  guint64 time;
  guint32 task;            /* 0-based rank; n for the model-records task */
  guint8 cls;
  guint8 pad[3];
  guint64 seq;
  guint64 a, b, c;         /* state: end, code; event: type, value; comm: psend, lrecv, precv */
  guint64 size;
  guint32 peer;
  gint32 tag;
} PrvRec;

static int
cmp_prv (const void *pa, const void *pb)
{
  const PrvRec *a = pa, *b = pb;
  if (a->time != b->time)
    return a->time < b->time ? -1 : 1;
  if (a->task != b->task)
    return a->task < b->task ? -1 : 1;
  if (a->cls != b->cls)
    return a->cls < b->cls ? -1 : 1;
  return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* MPI call ids of the Extrae/Dimemas encoding (paraver.md section 7). */
static const guint mpi_call[PTI_TRACE_N_KINDS] = {
  [PTI_TRACE_SEND] = 1, [PTI_TRACE_RECV] = 2, [PTI_TRACE_ISEND] = 3, [PTI_TRACE_IRECV] = 4,
  [PTI_TRACE_WAIT] = 5, [PTI_TRACE_WAITALL] = 6, [PTI_TRACE_WAITANY] = 59,
};
static const char *const mpi_call_label[PTI_TRACE_N_KINDS] = {
  [PTI_TRACE_SEND] = "MPI_Send", [PTI_TRACE_RECV] = "MPI_Recv", [PTI_TRACE_ISEND] = "MPI_Isend",
  [PTI_TRACE_IRECV] = "MPI_Irecv", [PTI_TRACE_WAIT] = "MPI_Wait",
  [PTI_TRACE_WAITALL] = "MPI_Waitall", [PTI_TRACE_WAITANY] = "MPI_Waitany",
};
/* io events as Extrae's MPI I/O calls (type 50000005, the values of its
 * MPIVal enum): by op (write, read, open, close), independent then
 * collective.  The trace's accesses all carry their offset, so the
 * explicit-offset calls stand for them. */
static const guint io_call[PTI_TRACE_IO_N_OPS][2] = {
  { 149, 150 }, { 147, 148 }, { 141, 141 }, { 142, 142 },
};
static const char *const io_call_label[PTI_TRACE_IO_N_OPS][2] = {
  { "MPI_File_write_at", "MPI_File_write_at_all" },
  { "MPI_File_read_at", "MPI_File_read_at_all" },
  { "MPI_File_open", "MPI_File_open" },
  { "MPI_File_close", "MPI_File_close" },
};
static const guint comm_state[PTI_TRACE_N_KINDS] = {
  ST_RUNNING, ST_BLOCKING_SEND, ST_WAITING_MESSAGE, ST_IMMEDIATE_SEND, ST_IMMEDIATE_RECV,
  ST_WAIT_ALL, ST_WAIT_ALL, ST_WAIT_ALL,
};
static const guint coll_call[PTI_TRACE_N_CALLS] = {
  [PTI_TRACE_BARRIER] = 8, [PTI_TRACE_BCAST] = 7, [PTI_TRACE_REDUCE] = 9,
  [PTI_TRACE_ALLREDUCE] = 10, [PTI_TRACE_GATHER] = 13, [PTI_TRACE_SCATTER] = 15,
  [PTI_TRACE_ALLGATHER] = 17, [PTI_TRACE_ALLTOALL] = 11, [PTI_TRACE_ALLTOALLV] = 12,
  [PTI_TRACE_SCAN] = 30, [PTI_TRACE_EXSCAN] = 214, [PTI_TRACE_REDUCE_SCATTER] = 80,
  /* Extrae's table (formats/paraver.md) has no value of its own for
   * MPI_Reduce_scatter_block: the next free one, labelled in the .pcf. */
  [PTI_TRACE_REDUCE_SCATTER_BLOCK] = 81, [PTI_TRACE_GATHERV] = 14, [PTI_TRACE_SCATTERV] = 16,
  [PTI_TRACE_ALLGATHERV] = 18,
};
static const char *const coll_call_label[PTI_TRACE_N_CALLS] = {
  [PTI_TRACE_BARRIER] = "MPI_Barrier", [PTI_TRACE_BCAST] = "MPI_Bcast",
  [PTI_TRACE_REDUCE] = "MPI_Reduce", [PTI_TRACE_ALLREDUCE] = "MPI_Allreduce",
  [PTI_TRACE_GATHER] = "MPI_Gather", [PTI_TRACE_SCATTER] = "MPI_Scatter",
  [PTI_TRACE_ALLGATHER] = "MPI_Allgather", [PTI_TRACE_ALLTOALL] = "MPI_Alltoall",
  [PTI_TRACE_ALLTOALLV] = "MPI_Alltoallv", [PTI_TRACE_SCAN] = "MPI_Scan",
  [PTI_TRACE_EXSCAN] = "MPI_Exscan", [PTI_TRACE_REDUCE_SCATTER] = "MPI_Reduce_scatter",
  [PTI_TRACE_REDUCE_SCATTER_BLOCK] = "MPI_Reduce_scatter_block",
  [PTI_TRACE_GATHERV] = "MPI_Gatherv", [PTI_TRACE_SCATTERV] = "MPI_Scatterv",
  [PTI_TRACE_ALLGATHERV] = "MPI_Allgatherv",
};

typedef struct {
  PtiTraceReader *reader;
  const PtiTrHeader *h;
  PtiSorter *sorter;
  PtMsgJoin *join;
  PtFields *fields;         /* record fields: numbers or names */
  guint n;
  guint64 *last_end;
  /* Per task, the exit event (value 0) of its last event, not pushed yet: it
   * is dropped when the next event enters the same type at the same time
   * (one value change instead of 0 and a value at one instant). */
  guint64 *exit_time;
  guint32 *exit_type;        /* 0: none */
  guint8 *in_coll;           /* per task: inside a collective call */
  gboolean has_io;           /* io events seen: the .pcf declares their type and state */
  guint64 seq;
  guint64 max_time;
  gboolean pseudo;          /* records outside process groups: an extra task */
  GHashTable *ruds;         /* name -> id */
  GPtrArray *rud_names;     /* id-1 -> name */
  gboolean rud_overflow;
  guint64 comms;
} Prv;

static gboolean
push (Prv *p, guint64 time, guint32 task, guint8 cls, guint64 a, guint64 b, GError **error)
{
  PrvRec r;
  memset (&r, 0, sizeof r);
  r.time = time;
  r.task = task;
  r.cls = cls;
  r.seq = p->seq++;
  r.a = a;
  r.b = b;
  return pti_sorter_add (p->sorter, &r, error);
}

static gboolean
push_state (Prv *p, guint32 task, guint64 begin, guint64 end, guint state, GError **error)
{
  if (end <= begin)
    return TRUE;   /* zero-length states are useless (paraver.md 5.1) */
  return push (p, begin, task, CLS_STATE, end, state, error);
}

static guint
rud_id (Prv *p, const char *name)
{
  gpointer v = g_hash_table_lookup (p->ruds, name);
  if (v != NULL)
    return GPOINTER_TO_UINT (v);
  if (p->rud_names->len >= MAX_RUDS) {
    p->rud_overflow = TRUE;
    return MAX_RUDS + 1;
  }
  char *key = g_strdup (name);
  g_ptr_array_add (p->rud_names, key);
  g_hash_table_insert (p->ruds, key, GUINT_TO_POINTER (p->rud_names->len));
  return p->rud_names->len;
}

static gboolean
flush_exit (Prv *p, guint32 task, GError **error)
{
  if (p->exit_type[task] == 0)
    return TRUE;
  guint32 type = p->exit_type[task];
  p->exit_type[task] = 0;
  return push (p, p->exit_time[task], task, CLS_EVENT, type, 0, error);
}

/* Enter @type with @value at @time on @task, after its pending exit. */
static gboolean
enter (Prv *p, guint32 task, guint64 time, guint32 type, guint64 value, GError **error)
{
  if (p->exit_type[task] == type && p->exit_time[task] == time)
    p->exit_type[task] = 0;   /* replaced by the new value */
  else if (!flush_exit (p, task, error))
    return FALSE;
  return push (p, time, task, CLS_EVENT, type, value, error);
}

/* Idle from the task's last activity to @t. */
static gboolean
idle_until (Prv *p, guint32 task, guint64 t, GError **error)
{
  guint64 *last = &p->last_end[task];
  if (t > *last && !push_state (p, task, *last, t, ST_IDLE, error))
    return FALSE;
  *last = MAX (*last, t);
  p->max_time = MAX (p->max_time, t);
  return TRUE;
}

static gboolean
on_event (Prv *p, const PtiTrItem *item, GError **error)
{
  const PtiTrEvent *e = &item->event;
  guint32 task = e->rank;
  guint64 *last = &p->last_end[task];
  if (e->start > *last && !push_state (p, task, *last, e->start, ST_IDLE, error))
    return FALSE;
  /* Events of a process do not overlap; if they did, clip so that states
   * never do. */
  guint64 begin = MAX (e->start, *last);
  guint64 end = MAX (e->end, begin);
  guint64 unblocked = MIN (MAX (e->start + e->wait, begin), end);
  if (p->in_coll[task]) {
    /* Inside a collective call, as Extrae shows one: Group Communication
     * (the blocked part Synchronization), no point-to-point call events;
     * the messages keep their communication records. */
    if (!push_state (p, task, begin, unblocked, ST_SYNC, error)
        || !push_state (p, task, unblocked, end, ST_GROUP, error))
      return FALSE;
  } else {
    gboolean io = e->kind == PTI_TRACE_IO;
    guint32 type = e->kind == PTI_TRACE_COMPUTE ? TYPE_RUD : io ? TYPE_MPI_IO : TYPE_MPI_P2P;
    guint value = e->kind == PTI_TRACE_COMPUTE ? (e->rud ? rud_id (p, e->rud) : 0)
                  : io ? io_call[e->io_op][e->collective ? 1 : 0] : mpi_call[e->kind];
    p->has_io |= io;
    if (value != 0) {
      if (!enter (p, task, e->start, type, value, error))
        return FALSE;
    } else if (!flush_exit (p, task, error)) {
      return FALSE;
    }
    if (e->kind == PTI_TRACE_COMPUTE) {
      if (!push_state (p, task, begin, end, ST_RUNNING, error))
        return FALSE;
    } else if (!push_state (p, task, begin, unblocked, ST_SYNC, error)
               || !push_state (p, task, unblocked, end, io ? ST_IO : comm_state[e->kind],
                               error)) {
      return FALSE;
    }
    if (value != 0) {
      p->exit_time[task] = e->end;
      p->exit_type[task] = type;
    }
  }
  if (!pt_msgjoin_add (p->join, item, &p->seq, error))
    return FALSE;
  *last = MAX (*last, end);
  p->max_time = MAX (p->max_time, end);
  return TRUE;
}

/* A collective call: MPI Collective Comm = the call at its begin (with its
 * sizes, communicator and, on the root, root = 1), 0 at its end. */
static gboolean
on_collective (Prv *p, const PtiTrItem *item, GError **error)
{
  const PtiTrCollective *c = &item->collective;
  guint32 task = c->rank;
  if (!idle_until (p, task, c->time, error))
    return FALSE;
  if (!c->begin) {
    if (!flush_exit (p, task, error))
      return FALSE;
    p->exit_time[task] = c->time;
    p->exit_type[task] = TYPE_MPI_COLL;
    p->in_coll[task] = FALSE;
    return TRUE;
  }
  p->in_coll[task] = TRUE;
  return enter (p, task, c->time, TYPE_MPI_COLL, coll_call[c->call], error)
         && push (p, c->time, task, CLS_EVENT, TYPE_COLL_SEND_SIZE, c->bytes, error)
         && push (p, c->time, task, CLS_EVENT, TYPE_COLL_RECV_SIZE, c->bytes, error)
         && (!c->has_root || c->root != c->rank
             || push (p, c->time, task, CLS_EVENT, TYPE_COLL_ROOT, 1, error))
         && push (p, c->time, task, CLS_EVENT, TYPE_COLL_COMM, (guint64) c->comm + 1, error);
}

/* A derived span: a state of its own, and the repetitions it stands for. */
static gboolean
on_derived (Prv *p, const PtiTrItem *item, GError **error)
{
  const PtiTrDerived *d = &item->derived;
  guint32 task = d->rank;
  if (!idle_until (p, task, d->start, error)
      || !enter (p, task, d->start, TYPE_DERIVED, d->repetitions, error))
    return FALSE;
  guint64 begin = MAX (d->start, p->last_end[task]), end = MAX (d->end, begin);
  if (!push_state (p, task, begin, end, ST_DERIVED, error))
    return FALSE;
  p->exit_time[task] = d->end;
  p->exit_type[task] = TYPE_DERIVED;
  p->last_end[task] = end;
  p->max_time = MAX (p->max_time, end);
  return TRUE;
}

static guint
record_type (guint type, guint field)
{
  return TYPE_RECORD_BASE + 100 * (type + 1) + field;
}

/* The fields of a record type that become Paraver event types: all but
 * "time"; a record with no other field gets a marker (field number 0). */
static gboolean
record_has_values (const PtiTrRecordType *t)
{
  return t->n_fields > (t->time_field >= 0 ? 1u : 0u);
}

static gboolean
on_record (Prv *p, const PtiTrItem *item, GError **error)
{
  const PtiTrRecord *rec = &item->record;
  const PtiTrRecordType *t = &p->h->records[rec->type];
  guint32 task = rec->in_process ? rec->rank : p->n;
  if (!rec->in_process)
    p->pseudo = TRUE;
  p->max_time = MAX (p->max_time, rec->time);
  if (!record_has_values (t))
    return push (p, rec->time, task, CLS_EVENT, record_type (rec->type, 0), 1, error);
  for (guint f = 0; f < t->n_fields; f++) {
    if ((int) f == t->time_field)
      continue;
    const char *text = rec->values[f];
    double d;
    guint id;
    gint64 v;
    PtFieldKind kind = pt_fields_get (p->fields, item, f, &d, &id, error);
    if (kind == PT_FIELD_UNKNOWN)
      return FALSE;
    if (kind == PT_FIELD_NAME) {
      v = id;   /* the .pcf lists the names by value */
    } else if (!pti_tr_parse_int64 (text, &v)) {
      if (!(fabs (d) < 9.2e18)) {
        pti_trace_reader_error_at (p->reader, item->line, item->element, error,
                                   "record <%s> %s=\"%s\" is too large for a Paraver value",
                                   t->name, t->fields[f], text);
        return FALSE;
      }
      v = (gint64) llround (d);
    }
    if (!push (p, rec->time, task, CLS_EVENT, record_type (rec->type, f + 1), (guint64) v, error))
      return FALSE;
  }
  return TRUE;
}

static gboolean
on_message (const PtMessage *m, gpointer data, GError **error)
{
  Prv *p = data;
  PrvRec r;
  memset (&r, 0, sizeof r);
  r.time = pt_msg_lsend (m);
  r.task = m->send.rank;
  r.cls = CLS_COMM;
  r.seq = m->send.seq;
  r.a = pt_msg_psend (m);
  r.b = pt_msg_lrecv (m);
  r.c = pt_msg_precv (m);
  r.size = m->send.bytes;
  r.peer = m->recv.rank;
  r.tag = m->send.tag;
  p->comms++;
  return pti_sorter_add (p->sorter, &r, error);
}

/* ------------------------------------------------------------------------ */
/* Writing */

static inline char *
put_i64 (char *p, gint64 v)
{
  if (v < 0) {
    *p++ = '-';
    return pti_put_u64 (p, (guint64) 0 - (guint64) v);
  }
  return pti_put_u64 (p, (guint64) v);
}

/* "CPU:APPL:TASK:THREAD" of a task. */
static inline char *
put_object (char *p, const PtLayout *l, guint n, guint32 task)
{
  if (task < n) {
    p = pti_put_u64 (p, l->rank_cpu[task]);
    p = memcpy (p, ":1:", 3) + 3;
    p = pti_put_u64 (p, task + 1);
  } else {
    p = memcpy (p, "0:2:1", 5) + 5;
  }
  return memcpy (p, ":1", 2) + 2;
}

static gboolean
write_prv (Prv *p, const PtLayout *l, guint64 ftime, FILE *fp, GError **error)
{
  g_autofree char *date = pt_date (TRUE);
  GString *hdr = g_string_new (NULL);
  g_string_append_printf (hdr, "#Paraver (%s):%" G_GUINT64_FORMAT "_ns:%u(", date, ftime, l->n_nodes);
  for (guint i = 0; i < l->n_nodes; i++)
    g_string_append_printf (hdr, "%s%u", i ? "," : "", l->node_cpus[i]);
  g_string_append_printf (hdr, "):%u:%u(", p->pseudo ? 2 : 1, p->n);
  for (guint r = 0; r < p->n; r++)
    g_string_append_printf (hdr, "%s1:%u", r ? "," : "", l->rank_node[r] + 1);
  g_string_append (hdr, ")");
  if (p->pseudo)
    g_string_append (hdr, ",1(1:1)");
  g_string_append (hdr, ",1\nc:1:1:");
  g_string_append_printf (hdr, "%u", p->n);
  for (guint r = 0; r < p->n; r++)
    g_string_append_printf (hdr, ":%u", r + 1);
  g_string_append_c (hdr, '\n');
  fwrite (hdr->str, 1, hdr->len, fp);
  g_string_free (hdr, TRUE);

  /* Consecutive events of one object at one time share a line. */
  char line[4096];
  char *lp = NULL;            /* end of the pending event line, or NULL */
  guint64 ev_time = 0;
  guint32 ev_task = 0;
  guint32 types[32];          /* event types on the pending line: one value each */
  guint n_types = 0;
  const PrvRec *r;
  GError *local = NULL;
  while ((r = pti_sorter_next (p->sorter, &local)) != NULL) {
    gboolean repeat = FALSE;
    for (guint i = 0; i < n_types && r->cls == CLS_EVENT; i++)
      repeat |= types[i] == (guint32) r->a;
    if (lp != NULL && (r->cls != CLS_EVENT || r->time != ev_time || r->task != ev_task || repeat
                       || n_types == G_N_ELEMENTS (types))) {
      *lp++ = '\n';
      fwrite (line, 1, (gsize) (lp - line), fp);
      lp = NULL;
    }
    if (r->cls == CLS_EVENT) {
      if (lp == NULL) {
        lp = line;
        lp = memcpy (lp, "2:", 2) + 2;
        lp = put_object (lp, l, p->n, r->task);
        *lp++ = ':';
        lp = pti_put_u64 (lp, r->time);
        ev_time = r->time;
        ev_task = r->task;
        n_types = 0;
      }
      types[n_types++] = (guint32) r->a;
      *lp++ = ':';
      lp = pti_put_u64 (lp, r->a);
      *lp++ = ':';
      lp = put_i64 (lp, (gint64) r->b);
      continue;
    }
    char buf[512];
    char *q = buf;
    if (r->cls == CLS_STATE) {
      q = memcpy (q, "1:", 2) + 2;
      q = put_object (q, l, p->n, r->task);
      *q++ = ':';
      q = pti_put_u64 (q, r->time);
      *q++ = ':';
      q = pti_put_u64 (q, r->a);
      *q++ = ':';
      q = pti_put_u64 (q, r->b);
    } else {
      q = memcpy (q, "3:", 2) + 2;
      q = put_object (q, l, p->n, r->task);
      *q++ = ':';
      q = pti_put_u64 (q, r->time);
      *q++ = ':';
      q = pti_put_u64 (q, r->a);
      *q++ = ':';
      q = put_object (q, l, p->n, r->peer);
      *q++ = ':';
      q = pti_put_u64 (q, r->b);
      *q++ = ':';
      q = pti_put_u64 (q, r->c);
      *q++ = ':';
      q = pti_put_u64 (q, r->size);
      *q++ = ':';
      q = put_i64 (q, r->tag);
    }
    *q++ = '\n';
    fwrite (buf, 1, (gsize) (q - buf), fp);
  }
  if (local != NULL) {
    g_propagate_error (error, local);
    return FALSE;
  }
  if (lp != NULL) {
    *lp++ = '\n';
    fwrite (line, 1, (gsize) (lp - line), fp);
  }
  return TRUE;
}

/* .pcf labels: one line, no tabs or line breaks. */
static char *
label (const char *s)
{
  char *l = g_strdup (s);
  for (char *c = l; *c; c++)
    if (*c == '\n' || *c == '\r' || *c == '\t')
      *c = ' ';
  return g_strstrip (l);
}

static void
write_pcf (Prv *p, FILE *fp)
{
  static const struct { guint code; const char *label; const char *rgb; } states[] = {
    { ST_IDLE, "Idle", "{117,195,255}" },
    { ST_RUNNING, "Running", "{0,0,255}" },
    { ST_WAITING_MESSAGE, "Waiting a message", "{255,0,0}" },
    { ST_BLOCKING_SEND, "Blocking Send", "{255,0,174}" },
    { ST_SYNC, "Synchronization", "{179,0,0}" },
    { ST_WAIT_ALL, "Wait/WaitAll", "{235,0,0}" },
    { ST_IMMEDIATE_SEND, "Immediate Send", "{255,0,255}" },
    { ST_IMMEDIATE_RECV, "Immediate Receive", "{100,100,177}" },
    { ST_GROUP, "Group Communication", "{255,144,26}" },
    { ST_DERIVED, "Derived (analytical repetition)", "{190,160,220}" },
    { ST_IO, "I/O", "{172,174,41}" },   /* last: only with io events */
  };
  guint n_states = G_N_ELEMENTS (states) - (p->has_io ? 0 : 1);
  fputs ("DEFAULT_OPTIONS\n\n"
         "LEVEL               THREAD\n"
         "UNITS               NANOSEC\n"
         "LOOK_BACK           100\n"
         "SPEED               1\n"
         "FLAG_ICONS          ENABLED\n"
         "NUM_OF_STATE_COLORS 1000\n"
         "YMAX_SCALE          37\n\n\n"
         "DEFAULT_SEMANTIC\n\n"
         "THREAD_FUNC          State As Is\n\n\n", fp);
  fputs ("# pti states: Running = compute events; Synchronization = the part of a message\n"
         "# or wait event blocked on a peer (the trace's wait attribute, placed at the\n"
         "# start of the event); the rest of a send, recv, isend, irecv, wait, waitall or\n"
         "# waitany is Blocking Send, Waiting a message, Immediate Send, Immediate Receive\n"
         "# or Wait/WaitAll; everything inside a collective call but its blocked parts is\n"
         "# Group Communication; Derived = a span analytical repetition derived without\n"
         "# evaluating it (its events are not in the trace).\n", fp);
  fputs ("STATES\n", fp);
  for (guint i = 0; i < n_states; i++)
    fprintf (fp, "%-4u %s\n", states[i].code, states[i].label);
  fputs ("\n\nSTATES_COLOR\n", fp);
  for (guint i = 0; i < n_states; i++)
    fprintf (fp, "%-4u %s\n", states[i].code, states[i].rgb);
  fprintf (fp, "\n\nEVENT_TYPE\n0    %u    MPI Point-to-point\nVALUES\n0   Outside MPI\n",
           TYPE_MPI_P2P);
  for (guint k = 0; k < PTI_TRACE_N_KINDS; k++)
    if (mpi_call[k] != 0)
      fprintf (fp, "%-3u %s\n", mpi_call[k], mpi_call_label[k]);
  fprintf (fp, "\n\nEVENT_TYPE\n0    %u    MPI Collective Comm\nVALUES\n0   Outside MPI\n",
           TYPE_MPI_COLL);
  for (guint c = 0; c < PTI_TRACE_N_CALLS; c++)
    fprintf (fp, "%-3u %s\n", coll_call[c], coll_call_label[c]);
  if (p->has_io) {
    fprintf (fp, "\n\nEVENT_TYPE\n0    %u    MPI I/O\nVALUES\n0   Outside MPI\n", TYPE_MPI_IO);
    for (guint o = 0; o < PTI_TRACE_IO_N_OPS; o++)
      for (guint c = 0; c < (o < 2 ? 2u : 1u); c++)
        fprintf (fp, "%-3u %s\n", io_call[o][c], io_call_label[o][c]);
  }
  fprintf (fp, "\n\n# at a collective's begin: its bytes, 1 on its root, its communicator (1 the world)\n"
           "EVENT_TYPE\n0    %u    Send Size in MPI Global OP\n0    %u    Recv Size in MPI Global OP\n"
           "0    %u    Root in MPI Global OP\n0    %u    Communicator in MPI Global OP\n",
           TYPE_COLL_SEND_SIZE, TYPE_COLL_RECV_SIZE, TYPE_COLL_ROOT, TYPE_COLL_COMM);
  fprintf (fp, "\n\n# value = the repetitions a derived span stands for, 0 at its end\n"
           "EVENT_TYPE\n0    %u    Derived repetitions (analytical repetition)\n", TYPE_DERIVED);
  fprintf (fp, "\n\n# value = the compute event's RUD, in order of first appearance; 0 at its end\n"
           "EVENT_TYPE\n0    %u    Compute block (RUD)\nVALUES\n0   End\n", TYPE_RUD);
  for (guint i = 0; i < p->rud_names->len; i++) {
    g_autofree char *l = label (p->rud_names->pdata[i]);
    fprintf (fp, "%-3u %s\n", i + 1, *l ? l : "(empty name)");
  }
  if (p->rud_overflow)
    fprintf (fp, "%-3u (other RUD names: more than %u)\n", MAX_RUDS + 1, MAX_RUDS);
  for (guint t = 0; t < p->h->n_records; t++) {
    const PtiTrRecordType *rt = &p->h->records[t];
    g_autofree char *desc = label (rt->description);
    fprintf (fp, "\n\n# model %s, record {%s}%s: %s\n# values are the fields' numbers rounded to "
             "integers, at the record's time; a field holding names\n# (links...) has one value "
             "per name, listed under its own EVENT_TYPE\n", rt->model, rt->ns, rt->name, desc);
    if (!record_has_values (rt))
      fprintf (fp, "EVENT_TYPE\n0    %u    %s %s\n", record_type (t, 0), rt->model, rt->name);
    gboolean block = FALSE;   /* an EVENT_TYPE block holds at least one type */
    for (guint f = 0; f < rt->n_fields; f++)
      if ((int) f != rt->time_field && pt_fields_kind (p->fields, t, f) != PT_FIELD_NAME) {
        if (!block)
          fputs ("EVENT_TYPE\n", fp);
        block = TRUE;
        fprintf (fp, "0    %u    %s %s: %s\n", record_type (t, f + 1), rt->model, rt->name,
                 rt->fields[f]);
      }
    /* Paraver attaches VALUES to the EVENT_TYPE block before it, so each
     * name field gets a block of its own. */
    for (guint f = 0; f < rt->n_fields; f++) {
      if ((int) f == rt->time_field || pt_fields_kind (p->fields, t, f) != PT_FIELD_NAME)
        continue;
      fprintf (fp, "\n\nEVENT_TYPE\n0    %u    %s %s: %s\nVALUES\n", record_type (t, f + 1),
               rt->model, rt->name, rt->fields[f]);
      guint names = pt_fields_n_names (p->fields, t, f);
      for (guint id = 1; id <= names; id++) {
        g_autofree char *l = label (pt_fields_name (p->fields, t, f, id));
        fprintf (fp, "%-3u %s\n", id, *l ? l : "(empty name)");
      }
      if (names >= PT_MAX_NAMES)
        fprintf (fp, "%-3u (other names: more than %u)\n", PT_MAX_NAMES + 1, PT_MAX_NAMES);
    }
  }
  fputc ('\n', fp);
}

static void
write_row (Prv *p, const PtLayout *l, FILE *fp)
{
  fprintf (fp, "LEVEL CPU SIZE %u\n", l->n_cpus);
  for (guint i = 0; i < l->n_nodes; i++)
    for (guint c = 0; c < l->node_cpus[i]; c++) {
      g_autofree char *n = label (l->node_names[i]);
      fprintf (fp, "%s cpu %u\n", n, c);
    }
  fprintf (fp, "\nLEVEL NODE SIZE %u\n", l->n_nodes);
  for (guint i = 0; i < l->n_nodes; i++) {
    g_autofree char *n = label (l->node_names[i]);
    fprintf (fp, "%s\n", n);
  }
  guint tasks = p->n + (p->pseudo ? 1 : 0);
  fprintf (fp, "\nLEVEL THREAD SIZE %u\n", tasks);
  for (guint r = 0; r < p->n; r++)
    fprintf (fp, "rank %u\n", r);
  if (p->pseudo)
    fputs ("model records\n", fp);
  fprintf (fp, "\nLEVEL TASK SIZE %u\n", tasks);
  for (guint r = 0; r < p->n; r++)
    fprintf (fp, "rank %u\n", r);
  if (p->pseudo)
    fputs ("model records\n", fp);
  g_autofree char *w = label (p->h->workload_name);
  fprintf (fp, "\nLEVEL APPL SIZE %u\n%s\n", p->pseudo ? 2 : 1, w);
  if (p->pseudo)
    fputs ("model records (no process)\n", fp);
}

int
pt_paraver (const char *trace, const PtOptions *o, GError **error)
{
  g_autoptr (PtiTraceReader) reader = pti_trace_reader_open (trace, error);
  if (reader == NULL)
    return pt_exit_code (*error);
  const PtiTrHeader *h = pti_trace_reader_header (reader);
  if (h->n_processes == 0) {
    g_set_error (error, PT_ERROR, PT_ERROR_INVALID,
                 "%s: the trace has no processes: nothing for Paraver to show", trace);
    return PT_EXIT_INVALID;
  }
  if (h->n_processes >= 65535) {
    g_set_error (error, PT_ERROR, PT_ERROR_FAILED,
                 "%s: %u processes: Paraver holds at most 65534 tasks", trace, h->n_processes);
    return PT_EXIT_FAILED;
  }
  if (h->n_records >= 9999) {
    g_set_error (error, PT_ERROR, PT_ERROR_FAILED, "%s: too many record types for Paraver", trace);
    return PT_EXIT_FAILED;
  }
  for (guint t = 0; t < h->n_records; t++)
    if (h->records[t].n_fields >= 100) {
      g_set_error (error, PT_ERROR, PT_ERROR_FAILED,
                   "%s: record type %s has more than 99 fields", trace, h->records[t].name);
      return PT_EXIT_FAILED;
    }
  g_autoptr (PtLayout) layout = pt_layout_new (h);
  if (layout->n_cpus >= 65535) {
    g_set_error (error, PT_ERROR, PT_ERROR_FAILED, "%s: too many CPUs for Paraver", trace);
    return PT_EXIT_FAILED;
  }

  Prv p = { 0 };
  p.reader = reader;
  p.h = h;
  p.n = h->n_processes;
  p.sorter = pti_sorter_new (sizeof (PrvRec), cmp_prv, o->memory / 2);
  p.join = pt_msgjoin_new (trace, o->memory / 2);
  p.last_end = g_new0 (guint64, MAX (p.n, 1));
  p.exit_time = g_new0 (guint64, MAX (p.n, 1));
  p.exit_type = g_new0 (guint32, MAX (p.n, 1));
  p.in_coll = g_new0 (guint8, MAX (p.n, 1));
  p.fields = pt_fields_new (reader, TRUE);
  p.ruds = g_hash_table_new (g_str_hash, g_str_equal);
  p.rud_names = g_ptr_array_new_with_free_func (g_free);
  int rc = PT_EXIT_FAILED;
  PtOut *prv = NULL, *pcf = NULL, *row = NULL;
  g_autofree char *prefix = NULL, *prv_path = NULL, *pcf_path = NULL, *row_path = NULL;

  guint64 ftime = 0;
  PtiTrItem item;
  GError *local = NULL;
  while (pti_trace_reader_next (reader, &item, &local)) {
    gboolean ok = TRUE;
    if (item.type == PTI_TR_ITEM_EVENT)
      ok = on_event (&p, &item, &local);
    else if (item.type == PTI_TR_ITEM_RECORD)
      ok = on_record (&p, &item, &local);
    else if (item.type == PTI_TR_ITEM_COLLECTIVE)
      ok = on_collective (&p, &item, &local);
    else if (item.type == PTI_TR_ITEM_DERIVED)
      ok = on_derived (&p, &item, &local);
    if (!ok)
      break;
  }
  if (local != NULL)
    goto out;
  ftime = MAX (MAX (pti_trace_reader_summary (reader)->predicted, p.max_time), 1);
  for (guint r = 0; r < p.n; r++)
    if (!flush_exit (&p, r, &local) || !push_state (&p, r, p.last_end[r], ftime, ST_IDLE, &local))
      goto out;
  if (p.pseudo && !push_state (&p, p.n, 0, ftime, ST_IDLE, &local))
    goto out;
  if (!pt_msgjoin_run (p.join, on_message, &p, &local))
    goto out;
  g_clear_pointer (&p.join, pt_msgjoin_free);
  if (!pti_sorter_finish (p.sorter, &local))
    goto out;

  prefix = g_str_has_suffix (o->output, ".prv")
    ? g_strndup (o->output, strlen (o->output) - 4) : g_strdup (o->output);
  prv_path = g_strconcat (prefix, ".prv", NULL);
  pcf_path = g_strconcat (prefix, ".pcf", NULL);
  row_path = g_strconcat (prefix, ".row", NULL);
  if ((prv = pt_out_open (prv_path, &local)) == NULL || (pcf = pt_out_open (pcf_path, &local)) == NULL
      || (row = pt_out_open (row_path, &local)) == NULL)
    goto out;
  if (!write_prv (&p, layout, ftime, prv->fp, &local))
    goto out;
  write_pcf (&p, pcf->fp);
  write_row (&p, layout, row->fp);
  /* The .prv last: it is what Paraver opens. */
  if (!pt_out_commit (pcf, &local) || !pt_out_commit (row, &local) || !pt_out_commit (prv, &local))
    goto out;
  rc = PT_EXIT_OK;
out:
  if (local != NULL) {
    rc = pt_exit_code (local);
    g_propagate_error (error, local);
  }
  pt_out_free (prv);
  pt_out_free (pcf);
  pt_out_free (row);
  pti_sorter_free (p.sorter);
  pt_msgjoin_free (p.join);
  g_free (p.last_end);
  g_free (p.exit_time);
  g_free (p.exit_type);
  g_free (p.in_coll);
  pt_fields_free (p.fields);
  g_hash_table_unref (p.ruds);
  g_ptr_array_unref (p.rud_names);
  return rc;
}
