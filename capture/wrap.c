/* The MPI calls recorded in detail (FORMAT.md section 7).  Each wrapper is
 * exported as MPI_NAME and PMPI_NAME: C programs call the first, Open MPI's
 * Fortran bindings (mpif.h, use mpi, use mpi_f08) the second.  The protocol
 * of a wrapper is in capture-private.h. */
#include "capture-private.h"

PTI_REAL_DECL (Comm_rank);
PTI_REAL_DECL (Comm_size);
PTI_REAL_DECL (Comm_remote_size);
PTI_REAL_DECL (Comm_test_inter);
PTI_REAL_DECL (Query_thread);

/* ---- helpers shared by the layouts ---- */

static void
pti_req_done (PtiCapReq *e)
{
  if (e == NULL)
    return;
  if (e->flags & PTI_CF_PERSISTENT)
    e->active = 0;
  else
    pti_cap_req_remove (e);
}

/* Commit, after registering the request the call created. */
static void
pti_commit_req (PtiCall *c, PtiRec *r, int rc, MPI_Request *req, int flags, int source, int tag)
{
  if (req != NULL && rc == MPI_SUCCESS)
    pti_cap_req_created (*req, flags | PTI_CF_REQ, source, tag);
  pti_cap_commit (c, r);
}

static bool
pti_is_root (int root, MPI_Comm comm)
{
  if (root == MPI_ROOT)
    return true;
  int inter = 0, me = -1;
  PTI_REAL (Comm_test_inter) (comm, &inter);
  if (inter)
    return false;
  PTI_REAL (Comm_rank) (comm, &me);
  return me == root;
}

/* Elements of a v-collective's count arrays: the group, or the remote group. */
static int
pti_coll_n (MPI_Comm comm)
{
  int inter = 0, n = 0;
  PTI_REAL (Comm_test_inter) (comm, &inter);
  if (inter)
    PTI_REAL (Comm_remote_size) (comm, &n);
  else
    PTI_REAL (Comm_size) (comm, &n);
  return n;
}

static MPI_Status *
pti_status_or_local (MPI_Status *st, MPI_Status *local)
{
  return st == MPI_STATUS_IGNORE ? local : st;
}

/* ---- point-to-point sends: SEND ---- */

static void
pti_rec_send (PtiCall *c, int rc, int count, MPI_Datatype dt, int peer, int tag, MPI_Comm comm,
              MPI_Request *req, int flags)
{
  uint64_t cid = pti_cap_comm_id (comm);
  PtiRec r;
  pti_cap_record (c, &r, rc, 48);
  pti_put_peer (&r, peer);
  pti_put_tag (&r, tag);
  uint64_t bytes = pti_cap_bytes (count, dt);
  pti_put_u (&r, bytes);
  pti_cap_put_comm (&r, cid);
  pti_cap_args_end (&r);
  if (!(flags & PTI_CF_PERSISTENT))
    pti_cap_count_send (rc, peer, bytes);
  pti_commit_req (c, &r, rc, req, flags, peer, tag);
}

#define PTI_WRAP_SEND(name) \
  PTI_REAL_DECL (name); \
  static int pti_w_##name (const void *buf, int count, MPI_Datatype dt, int dest, int tag, \
                           MPI_Comm comm) \
  { \
    PtiCall c; \
    if (!pti_cap_begin (&c, PTI_C_##name)) \
      return PTI_REAL (name) (buf, count, dt, dest, tag, comm); \
    int rc = PTI_REAL (name) (buf, count, dt, dest, tag, comm); \
    pti_rec_send (&c, rc, count, dt, dest, tag, comm, NULL, 0); \
    return rc; \
  } \
  PTI_EXPORT_AS (name, pti_w_##name);

#define PTI_WRAP_ISEND(name, flags) \
  PTI_REAL_DECL (name); \
  static int pti_w_##name (const void *buf, int count, MPI_Datatype dt, int dest, int tag, \
                           MPI_Comm comm, MPI_Request *req) \
  { \
    PtiCall c; \
    if (!pti_cap_begin (&c, PTI_C_##name)) \
      return PTI_REAL (name) (buf, count, dt, dest, tag, comm, req); \
    int rc = PTI_REAL (name) (buf, count, dt, dest, tag, comm, req); \
    pti_rec_send (&c, rc, count, dt, dest, tag, comm, req, flags); \
    return rc; \
  } \
  PTI_EXPORT_AS (name, pti_w_##name);

PTI_WRAP_SEND (Send)
PTI_WRAP_SEND (Ssend)
PTI_WRAP_SEND (Bsend)
PTI_WRAP_SEND (Rsend)
PTI_WRAP_ISEND (Isend, 0)
PTI_WRAP_ISEND (Issend, 0)
PTI_WRAP_ISEND (Ibsend, 0)
PTI_WRAP_ISEND (Irsend, 0)
PTI_WRAP_ISEND (Send_init, PTI_CF_PERSISTENT)
PTI_WRAP_ISEND (Ssend_init, PTI_CF_PERSISTENT)
PTI_WRAP_ISEND (Bsend_init, PTI_CF_PERSISTENT)
PTI_WRAP_ISEND (Rsend_init, PTI_CF_PERSISTENT)

/* ---- receives: RECV, POST_RECV ---- */

static void
pti_put_posted (PtiRec *r, int peer, int tag, int count, MPI_Datatype dt, uint64_t cid)
{
  pti_put_peer (r, peer);
  pti_put_tag (r, tag);
  pti_put_bytes (r, count, dt);
  pti_cap_put_comm (r, cid);
  pti_cap_args_end (r);
}

PTI_REAL_DECL (Recv);
static int
pti_w_Recv (void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
            MPI_Status *status)
{
  PtiCall c;
  if (!pti_cap_begin (&c, PTI_C_Recv))
    return PTI_REAL (Recv) (buf, count, dt, source, tag, comm, status);
  MPI_Status local, *st = pti_status_or_local (status, &local);
  int rc = PTI_REAL (Recv) (buf, count, dt, source, tag, comm, st);
  uint64_t cid = pti_cap_comm_id (comm);
  PtiRec r;
  pti_cap_record (&c, &r, rc, 80);
  pti_put_posted (&r, source, tag, count, dt, cid);
  if (rc == MPI_SUCCESS)
    pti_cap_put_status_direct (&r, source, tag, st, true);
  pti_cap_commit (&c, &r);
  return rc;
}
PTI_EXPORT_AS (Recv, pti_w_Recv);

#define PTI_WRAP_IRECV(name, flags) \
  PTI_REAL_DECL (name); \
  static int pti_w_##name (void *buf, int count, MPI_Datatype dt, int source, int tag, \
                           MPI_Comm comm, MPI_Request *req) \
  { \
    PtiCall c; \
    if (!pti_cap_begin (&c, PTI_C_##name)) \
      return PTI_REAL (name) (buf, count, dt, source, tag, comm, req); \
    int rc = PTI_REAL (name) (buf, count, dt, source, tag, comm, req); \
    uint64_t cid = pti_cap_comm_id (comm); \
    PtiRec r; \
    pti_cap_record (&c, &r, rc, 48); \
    pti_put_posted (&r, source, tag, count, dt, cid); \
    pti_commit_req (&c, &r, rc, req, (flags) | PTI_CF_RECV, source, tag); \
    return rc; \
  } \
  PTI_EXPORT_AS (name, pti_w_##name);

PTI_WRAP_IRECV (Irecv, 0)
PTI_WRAP_IRECV (Recv_init, PTI_CF_PERSISTENT)

PTI_REAL_DECL (Sendrecv);
static int
pti_w_Sendrecv (const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag, void *rbuf,
                int rcount, MPI_Datatype rtype, int source, int rtag, MPI_Comm comm,
                MPI_Status *status)
{
  PtiCall c;
  if (!pti_cap_begin (&c, PTI_C_Sendrecv))
    return PTI_REAL (Sendrecv) (sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag,
                                comm, status);
  MPI_Status local, *st = pti_status_or_local (status, &local);
  int rc = PTI_REAL (Sendrecv) (sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag,
                                comm, st);
  uint64_t cid = pti_cap_comm_id (comm);
  PtiRec r;
  pti_cap_record (&c, &r, rc, 120);
  pti_put_peer (&r, dest);
  pti_put_tag (&r, stag);
  uint64_t sbytes = pti_cap_bytes (scount, stype);
  pti_put_u (&r, sbytes);
  pti_cap_count_send (rc, dest, sbytes);
  pti_put_posted (&r, source, rtag, rcount, rtype, cid);
  if (rc == MPI_SUCCESS)
    pti_cap_put_status_direct (&r, source, rtag, st, true);
  pti_cap_commit (&c, &r);
  return rc;
}
PTI_EXPORT_AS (Sendrecv, pti_w_Sendrecv);

PTI_REAL_DECL (Sendrecv_replace);
static int
pti_w_Sendrecv_replace (void *buf, int count, MPI_Datatype dt, int dest, int stag, int source,
                        int rtag, MPI_Comm comm, MPI_Status *status)
{
  PtiCall c;
  if (!pti_cap_begin (&c, PTI_C_Sendrecv_replace))
    return PTI_REAL (Sendrecv_replace) (buf, count, dt, dest, stag, source, rtag, comm, status);
  MPI_Status local, *st = pti_status_or_local (status, &local);
  int rc = PTI_REAL (Sendrecv_replace) (buf, count, dt, dest, stag, source, rtag, comm, st);
  uint64_t cid = pti_cap_comm_id (comm);
  PtiRec r;
  pti_cap_record (&c, &r, rc, 120);
  pti_put_peer (&r, dest);
  pti_put_tag (&r, stag);
  uint64_t sbytes = pti_cap_bytes (count, dt);
  pti_put_u (&r, sbytes);
  pti_cap_count_send (rc, dest, sbytes);
  pti_put_posted (&r, source, rtag, count, dt, cid);
  if (rc == MPI_SUCCESS)
    pti_cap_put_status_direct (&r, source, rtag, st, true);
  pti_cap_commit (&c, &r);
  return rc;
}
PTI_EXPORT_AS (Sendrecv_replace, pti_w_Sendrecv_replace);

/* ---- probes: PROBE, IPROBE, MRECV, MPOST ---- */

/* A poll's wrapper comes in two parts, so that the frequent case runs in a
 * small frame of its own.  pti_w_NAME (PARAMS), made by PTI_POLL_FAST,
 * makes the call itself only when MATCH says it may repeat the last poll
 * (capture-private.h, "polls that find nothing again"): into @st (ST, which
 * may use @local, room for the statuses of as many requests as a key
 * holds, so as many as the poll has) by CALL; when it finds nothing again (NOTHING) it is only
 * counted.  Anything else goes to pti_p_NAME (h, rc, st, ...) (the
 * macro's last arguments: those of pti_w_NAME), the
 * wrapper proper: with @h >= 0 and @st, the call was made (returning @rc),
 * and PTI_POLL_RESUME begins it, timed from its return, after FOUND (the
 * handles before the call are still those of pti_cap.poll[h]); with @h < 0
 * (@st NULL), PTI_POLL_RESUME begins the call and makes it by SLOW_CALL,
 * or returns PLAIN (the call as the program made it) if it is not
 * recorded. */
#define PTI_POLL_FAST(name, params, MATCH, ST, CALL, NOTHING, ...) \
  PTI_POLL_ENTRIES (name, params, __VA_ARGS__) \
  static int pti_w_##name params \
  { \
    int h = MATCH; \
    if (h < 0) \
      return pti_s_##name (__VA_ARGS__); \
    MPI_Status local[PTI_CAP_POLL_REQS], *st = ST; \
    (void) local; \
    pti_cap_poll_enter (PTI_C_##name); \
    int rc = CALL; \
    pti_cap_poll_leave (); \
    if (PTI_CAP_LIKELY (rc == MPI_SUCCESS && (NOTHING))) { \
      pti_cap_poll_again (h); \
      return rc; \
    } \
    return pti_f_##name (h, rc, st, __VA_ARGS__); \
  } \
  PTI_EXPORT_AS (name, pti_w_##name);

/* The two ways into pti_p_NAME, out of the fast part's way: the poll made
 * and not only counted (pti_f_), the usual call (pti_s_, a tail call). */
#define PTI_POLL_ENTRIES(name, params, ...) \
  static __attribute__ ((noinline)) int pti_f_##name (int h, int rc, MPI_Status *st, \
                                                      PTI_UNPAREN params) \
  { \
    return pti_p_##name (h, rc, st, __VA_ARGS__); \
  } \
  static __attribute__ ((noinline)) int pti_s_##name params \
  { \
    return pti_p_##name (-1, 0, NULL, __VA_ARGS__); \
  }

#define PTI_UNPAREN(...) __VA_ARGS__

#define PTI_POLL_RESUME(c, code, h, rc, found, slow_call, plain) \
  if ((h) >= 0) { \
    found; \
    if (!pti_cap_begin (&(c), code)) \
      return rc; \
  } else { \
    if (!pti_cap_begin (&(c), code)) \
      return plain; \
    rc = slow_call; \
  }

static void
pti_rec_probe (PtiCall *c, int rc, int source, int tag, MPI_Comm comm, const int *flag,
               const MPI_Status *st)
{
  uint64_t cid = pti_cap_comm_id (comm);
  PtiRec r;
  pti_cap_record (c, &r, rc, 64);
  pti_put_peer (&r, source);
  pti_put_tag (&r, tag);
  pti_cap_put_comm (&r, cid);
  pti_cap_args_end (&r);
  if (rc == MPI_SUCCESS) {
    if (flag != NULL)
      pti_put_u (&r, *flag != 0);
    if (flag == NULL || *flag)
      pti_cap_put_status_direct (&r, source, tag, st, true);
  }
  bool nothing = rc == MPI_SUCCESS && flag != NULL && !*flag;
  PtiCapPollKey k;
  if (nothing) {
    pti_cap_poll_key_probe (&k, c->code, source, tag, comm);
    r.poll = &k;
  }
  pti_cap_commit_rep (c, &r, nothing);
}

/* Probe, Mprobe (@flag NULL) */
#define PTI_WRAP_PROBE(name, params, args) \
  PTI_REAL_DECL (name); \
  static int pti_w_##name params \
  { \
    PtiCall c; \
    if (!pti_cap_begin (&c, PTI_C_##name)) \
      return PTI_REAL (name) args; \
    MPI_Status local, *st = pti_status_or_local (status, &local); \
    MPI_Status *status_in = status; \
    status = st; \
    int rc = PTI_REAL (name) args; \
    status = status_in; \
    pti_rec_probe (&c, rc, source, tag, comm, NULL, st); \
    return rc; \
  } \
  PTI_EXPORT_AS (name, pti_w_##name);

/* Iprobe, Improbe: polls */
#define PTI_WRAP_IPROBE(name, params, args) \
  PTI_REAL_DECL (name); \
  static inline __attribute__ ((always_inline)) int pti_p_##name (int h, int rc, MPI_Status *st, \
                                                                  PTI_UNPAREN params) \
  { \
    PtiCall c; \
    MPI_Status local; \
    MPI_Status *status_in = status; \
    if (st == NULL) \
      st = pti_status_or_local (status, &local); \
    PTI_POLL_RESUME (c, PTI_C_##name, h, rc, (void) 0, \
                     (status = st, PTI_REAL (name) args), PTI_REAL (name) args) \
    status = status_in; \
    pti_rec_probe (&c, rc, source, tag, comm, flag, st); \
    return rc; \
  } \
  PTI_POLL_FAST (name, params, pti_cap_poll_match_probe (PTI_C_##name, source, tag, comm), \
                 pti_status_or_local (status, local), (status = st, PTI_REAL (name) args), \
                 !*flag, PTI_UNPAREN args)

PTI_WRAP_PROBE (Probe, (int source, int tag, MPI_Comm comm, MPI_Status *status),
                (source, tag, comm, status))
PTI_WRAP_IPROBE (Iprobe, (int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status),
                 (source, tag, comm, flag, status))
PTI_WRAP_PROBE (Mprobe, (int source, int tag, MPI_Comm comm, MPI_Message *message,
                         MPI_Status *status),
                (source, tag, comm, message, status))
PTI_WRAP_IPROBE (Improbe, (int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                           MPI_Status *status),
                 (source, tag, comm, flag, message, status))

PTI_REAL_DECL (Mrecv);
static int
pti_w_Mrecv (void *buf, int count, MPI_Datatype dt, MPI_Message *message, MPI_Status *status)
{
  PtiCall c;
  if (!pti_cap_begin (&c, PTI_C_Mrecv))
    return PTI_REAL (Mrecv) (buf, count, dt, message, status);
  MPI_Status local, *st = pti_status_or_local (status, &local);
  int rc = PTI_REAL (Mrecv) (buf, count, dt, message, st);
  PtiRec r;
  pti_cap_record (&c, &r, rc, 64);
  pti_put_bytes (&r, count, dt);
  pti_cap_args_end (&r);
  if (rc == MPI_SUCCESS)
    pti_cap_put_status_direct (&r, MPI_ANY_SOURCE, MPI_ANY_TAG, st, true);
  pti_cap_commit (&c, &r);
  return rc;
}
PTI_EXPORT_AS (Mrecv, pti_w_Mrecv);

PTI_REAL_DECL (Imrecv);
static int
pti_w_Imrecv (void *buf, int count, MPI_Datatype dt, MPI_Message *message, MPI_Request *req)
{
  PtiCall c;
  if (!pti_cap_begin (&c, PTI_C_Imrecv))
    return PTI_REAL (Imrecv) (buf, count, dt, message, req);
  int rc = PTI_REAL (Imrecv) (buf, count, dt, message, req);
  PtiRec r;
  pti_cap_record (&c, &r, rc, 32);
  pti_put_bytes (&r, count, dt);
  pti_cap_args_end (&r);
  pti_commit_req (&c, &r, rc, req, PTI_CF_RECV, MPI_ANY_SOURCE, MPI_ANY_TAG);
  return rc;
}
PTI_EXPORT_AS (Imrecv, pti_w_Imrecv);

/* ---- completion: WAIT ... TESTANY, START, STARTALL, REQUEST ---- */

/* Handles before the call (which sets completed ones to MPI_REQUEST_NULL). */
static MPI_Request *
pti_copy_reqs (int n, const MPI_Request *reqs)
{
  MPI_Request *h = pti_cap_scratch_reqs (n > 0 ? (size_t) n : 1);
  if (n > 0)
    memcpy (h, reqs, (size_t) n * sizeof *h);
  return h;
}

static void
pti_put_refs (PtiRec *r, int n, const MPI_Request *h)
{
  pti_put_u (r, (uint64_t) (n > 0 ? n : 0));
  for (int i = 0; i < n; i++)
    pti_put_u (r, pti_cap_req_ref (h[i]));
  pti_cap_args_end (r);
}

static void
pti_put_completed (PtiRec *r, MPI_Request h, const MPI_Status *st)
{
  PtiCapReq *e = pti_cap_req_find (h);
  pti_cap_put_status (r, e, st);
  pti_req_done (e);
}

/* The statuses a wait/test family call fills: scratch when ignored. */
static MPI_Status *
pti_statuses_or_scratch (int count, MPI_Status *statuses)
{
  return statuses == MPI_STATUSES_IGNORE ? pti_cap_scratch_status (count > 0 ? (size_t) count : 1)
                                         : statuses;
}

/* Commit a poll's record; one that found nothing (@nothing) keeps its
 * requests before the call (@n of @h) as key @k, which the next poll
 * compares with its own (capture-private.h). */
static void
pti_commit_poll (PtiCall *c, PtiRec *r, bool nothing, PtiCapPollKey *k, int n,
                 const MPI_Request *h)
{
  if (nothing) {
    pti_cap_poll_key_reqs (k, c->code, n, h);
    r->poll = k;
  }
  pti_cap_commit_rep (c, r, nothing);
}

PTI_REAL_DECL (Wait);
static int
pti_w_Wait (MPI_Request *request, MPI_Status *status)
{
  PtiCall c;
  if (!pti_cap_begin (&c, PTI_C_Wait))
    return PTI_REAL (Wait) (request, status);
  MPI_Request h = *request;
  MPI_Status local, *st = pti_status_or_local (status, &local);
  int rc = PTI_REAL (Wait) (request, st);
  PtiRec r;
  pti_cap_record (&c, &r, rc, 64);
  pti_put_u (&r, pti_cap_req_ref (h));
  pti_cap_args_end (&r);
  if (rc == MPI_SUCCESS)
    pti_put_completed (&r, h, st);
  pti_cap_commit (&c, &r);
  return rc;
}
PTI_EXPORT_AS (Wait, pti_w_Wait);

PTI_REAL_DECL (Test);
static inline __attribute__ ((always_inline)) int
pti_p_Test (int pti_h_, int rc, MPI_Status *st, MPI_Request *request, int *flag, MPI_Status *status)
{
  PtiCall c;
  PtiCapPollKey k;
  MPI_Status local;
  MPI_Request h = pti_h_ >= 0 ? pti_cap.poll[pti_h_].req[0] : *request;
  if (st == NULL)
    st = pti_status_or_local (status, &local);
  PTI_POLL_RESUME (c, PTI_C_Test, pti_h_, rc, (void) 0, PTI_REAL (Test) (request, flag, st),
                   PTI_REAL (Test) (request, flag, status))
  PtiRec r;
  pti_cap_record (&c, &r, rc, 64);
  pti_put_u (&r, pti_cap_req_ref (h));
  pti_cap_args_end (&r);
  if (rc == MPI_SUCCESS) {
    pti_put_u (&r, *flag != 0);
    if (*flag)
      pti_put_completed (&r, h, st);
  }
  pti_commit_poll (&c, &r, rc == MPI_SUCCESS && !*flag, &k, 1, &h);
  return rc;
}
PTI_POLL_FAST (Test, (MPI_Request *request, int *flag, MPI_Status *status),
               pti_cap_poll_match_reqs (PTI_C_Test, 1, request),
               pti_status_or_local (status, local), PTI_REAL (Test) (request, flag, st), !*flag,
               request, flag, status)

PTI_REAL_DECL (Request_get_status);
static inline __attribute__ ((always_inline)) int
pti_p_Request_get_status (int pti_h_, int rc, MPI_Status *st, MPI_Request request, int *flag,
                          MPI_Status *status)
{
  PtiCall c;
  PtiCapPollKey k;
  MPI_Status local;
  if (st == NULL)
    st = pti_status_or_local (status, &local);
  PTI_POLL_RESUME (c, PTI_C_Request_get_status, pti_h_, rc, (void) 0,
                   PTI_REAL (Request_get_status) (request, flag, st),
                   PTI_REAL (Request_get_status) (request, flag, status))
  PtiRec r;
  pti_cap_record (&c, &r, rc, 64);
  pti_put_u (&r, pti_cap_req_ref (request));
  pti_cap_args_end (&r);
  if (rc == MPI_SUCCESS) {
    pti_put_u (&r, *flag != 0);
    if (*flag)   /* the request stays: not done */
      pti_cap_put_status (&r, pti_cap_req_find (request), st);
  }
  pti_commit_poll (&c, &r, rc == MPI_SUCCESS && !*flag, &k, 1, &request);
  return rc;
}
PTI_POLL_FAST (Request_get_status, (MPI_Request request, int *flag, MPI_Status *status),
               pti_cap_poll_match_reqs (PTI_C_Request_get_status, 1, &request),
               pti_status_or_local (status, local),
               PTI_REAL (Request_get_status) (request, flag, st), !*flag, request, flag, status)

PTI_REAL_DECL (Waitall);
static int
pti_w_Waitall (int count, MPI_Request reqs[], MPI_Status statuses[])
{
  PtiCall c;
  if (!pti_cap_begin (&c, PTI_C_Waitall))
    return PTI_REAL (Waitall) (count, reqs, statuses);
  MPI_Request *h = pti_copy_reqs (count, reqs);
  MPI_Status *st = pti_statuses_or_scratch (count, statuses);
  int rc = PTI_REAL (Waitall) (count, reqs, st);
  PtiRec r;
  pti_cap_record (&c, &r, rc, 16 + (size_t) (count > 0 ? count : 0) * 48);
  pti_put_refs (&r, count, h);
  if (rc == MPI_SUCCESS)
    for (int i = 0; i < count; i++)
      pti_put_completed (&r, h[i], &st[i]);
  pti_cap_commit (&c, &r);
  return rc;
}
PTI_EXPORT_AS (Waitall, pti_w_Waitall);

PTI_REAL_DECL (Testall);
static inline __attribute__ ((always_inline)) int
pti_p_Testall (int pti_h_, int rc, MPI_Status *st, int count, MPI_Request reqs[], int *flag,
               MPI_Status statuses[])
{
  PtiCall c;
  PtiCapPollKey k;
  MPI_Request *h = NULL;
  PTI_POLL_RESUME (c, PTI_C_Testall, pti_h_, rc, h = pti_copy_reqs (count, pti_cap.poll[pti_h_].req),
                   (h = pti_copy_reqs (count, reqs), st = pti_statuses_or_scratch (count, statuses),
                    PTI_REAL (Testall) (count, reqs, flag, st)),
                   PTI_REAL (Testall) (count, reqs, flag, statuses))
  PtiRec r;
  pti_cap_record (&c, &r, rc, 16 + (size_t) (count > 0 ? count : 0) * 48);
  pti_put_refs (&r, count, h);
  if (rc == MPI_SUCCESS) {
    pti_put_u (&r, *flag != 0);
    if (*flag)
      for (int i = 0; i < count; i++)
        pti_put_completed (&r, h[i], &st[i]);
  }
  pti_commit_poll (&c, &r, rc == MPI_SUCCESS && !*flag, &k, count, h);
  return rc;
}
PTI_POLL_FAST (Testall, (int count, MPI_Request reqs[], int *flag, MPI_Status statuses[]),
               pti_cap_poll_match_reqs (PTI_C_Testall, count, reqs),
               statuses == MPI_STATUSES_IGNORE ? local : statuses,
               PTI_REAL (Testall) (count, reqs, flag, st),
               !*flag, count, reqs, flag, statuses)

PTI_REAL_DECL (Waitany);
static int
pti_w_Waitany (int count, MPI_Request reqs[], int *index, MPI_Status *status)
{
  PtiCall c;
  if (!pti_cap_begin (&c, PTI_C_Waitany))
    return PTI_REAL (Waitany) (count, reqs, index, status);
  MPI_Request *h = pti_copy_reqs (count, reqs);
  MPI_Status local, *st = pti_status_or_local (status, &local);
  int rc = PTI_REAL (Waitany) (count, reqs, index, st);
  PtiRec r;
  pti_cap_record (&c, &r, rc, 64 + (size_t) (count > 0 ? count : 0) * 10);
  pti_put_refs (&r, count, h);
  if (rc == MPI_SUCCESS) {
    bool some = *index != MPI_UNDEFINED && *index >= 0 && *index < count;
    pti_put_u (&r, some ? (uint64_t) *index + 1 : 0);
    if (some)
      pti_put_completed (&r, h[*index], st);
  }
  pti_cap_commit (&c, &r);
  return rc;
}
PTI_EXPORT_AS (Waitany, pti_w_Waitany);

PTI_REAL_DECL (Testany);
static inline __attribute__ ((always_inline)) int
pti_p_Testany (int pti_h_, int rc, MPI_Status *st, int count, MPI_Request reqs[], int *index,
               int *flag, MPI_Status *status)
{
  PtiCall c;
  PtiCapPollKey k;
  MPI_Request *h = NULL;
  MPI_Status local;
  if (st == NULL)
    st = pti_status_or_local (status, &local);
  PTI_POLL_RESUME (c, PTI_C_Testany, pti_h_, rc, h = pti_copy_reqs (count, pti_cap.poll[pti_h_].req),
                   (h = pti_copy_reqs (count, reqs), PTI_REAL (Testany) (count, reqs, index, flag, st)),
                   PTI_REAL (Testany) (count, reqs, index, flag, status))
  PtiRec r;
  pti_cap_record (&c, &r, rc, 64 + (size_t) (count > 0 ? count : 0) * 10);
  pti_put_refs (&r, count, h);
  if (rc == MPI_SUCCESS) {
    bool some = *flag && *index != MPI_UNDEFINED && *index >= 0 && *index < count;
    pti_put_u (&r, some ? (uint64_t) *index + 1 : 0);
    pti_put_u (&r, *flag != 0);
    if (some)
      pti_put_completed (&r, h[*index], st);
  }
  pti_commit_poll (&c, &r, rc == MPI_SUCCESS && !*flag, &k, count, h);
  return rc;
}
PTI_POLL_FAST (Testany, (int count, MPI_Request reqs[], int *index, int *flag, MPI_Status *status),
               pti_cap_poll_match_reqs (PTI_C_Testany, count, reqs),
               pti_status_or_local (status, local),
               PTI_REAL (Testany) (count, reqs, index, flag, st), !*flag,
               count, reqs, index, flag, status)

/* Waitsome too: it never repeats a poll (its records are not kept as
 * one), so it always goes to the wrapper proper. */
#define PTI_WRAP_SOME(name) \
  PTI_REAL_DECL (name); \
  static inline __attribute__ ((always_inline)) int pti_p_##name (int pti_h_, int rc, MPI_Status *st, \
                                                                  int count, MPI_Request reqs[], \
                                                                  int *outcount, int indices[], \
                                                                  MPI_Status statuses[]) \
  { \
    PtiCall c; \
    PtiCapPollKey key; \
    MPI_Request *h = NULL; \
    PTI_POLL_RESUME (c, PTI_C_##name, pti_h_, rc, \
                     h = pti_copy_reqs (count, pti_cap.poll[pti_h_].req), \
                     (h = pti_copy_reqs (count, reqs), st = pti_statuses_or_scratch (count, statuses), \
                      PTI_REAL (name) (count, reqs, outcount, indices, st)), \
                     PTI_REAL (name) (count, reqs, outcount, indices, statuses)) \
    PtiRec r; \
    pti_cap_record (&c, &r, rc, 16 + (size_t) (count > 0 ? count : 0) * 58); \
    pti_put_refs (&r, count, h); \
    if (rc == MPI_SUCCESS) { \
      bool some = *outcount != MPI_UNDEFINED && *outcount >= 0 && *outcount <= count; \
      pti_put_u (&r, some ? (uint64_t) *outcount + 1 : 0); \
      for (int k = 0; some && k < *outcount; k++) { \
        int i = indices[k]; \
        pti_put_u (&r, (uint64_t) i); \
        pti_put_completed (&r, i >= 0 && i < count ? h[i] : MPI_REQUEST_NULL, &st[k]); \
      } \
    } \
    /* Testsome finding nothing is a poll that may repeat */ \
    pti_commit_poll (&c, &r, PTI_C_##name == PTI_C_Testsome && rc == MPI_SUCCESS \
                               && *outcount == 0, &key, count, h); \
    return rc; \
  } \
  PTI_POLL_FAST (name, (int count, MPI_Request reqs[], int *outcount, int indices[], \
                        MPI_Status statuses[]), \
                 pti_cap_poll_match_reqs (PTI_C_##name, count, reqs), \
                 statuses == MPI_STATUSES_IGNORE ? local : statuses, \
                 PTI_REAL (name) (count, reqs, outcount, indices, st), *outcount == 0, \
                 count, reqs, outcount, indices, statuses)

PTI_WRAP_SOME (Waitsome)
PTI_WRAP_SOME (Testsome)

PTI_REAL_DECL (Start);
static int
pti_w_Start (MPI_Request *request)
{
  PtiCall c;
  if (!pti_cap_begin (&c, PTI_C_Start))
    return PTI_REAL (Start) (request);
  int rc = PTI_REAL (Start) (request);
  PtiRec r;
  pti_cap_record (&c, &r, rc, 16);
  pti_put_u (&r, pti_cap_req_ref (*request));
  pti_cap_args_end (&r);
  PtiCapReq *e = rc == MPI_SUCCESS ? pti_cap_req_find (*request) : NULL;
  if (e != NULL)
    e->active = 1;
  pti_cap_commit (&c, &r);
  return rc;
}
PTI_EXPORT_AS (Start, pti_w_Start);

PTI_REAL_DECL (Startall);
static int
pti_w_Startall (int count, MPI_Request reqs[])
{
  PtiCall c;
  if (!pti_cap_begin (&c, PTI_C_Startall))
    return PTI_REAL (Startall) (count, reqs);
  int rc = PTI_REAL (Startall) (count, reqs);
  PtiRec r;
  pti_cap_record (&c, &r, rc, 16 + (size_t) (count > 0 ? count : 0) * 10);
  pti_put_refs (&r, count, reqs);
  for (int i = 0; rc == MPI_SUCCESS && i < count; i++) {
    PtiCapReq *e = pti_cap_req_find (reqs[i]);
    if (e != NULL)
      e->active = 1;
  }
  pti_cap_commit (&c, &r);
  return rc;
}
PTI_EXPORT_AS (Startall, pti_w_Startall);

PTI_REAL_DECL (Request_free);
static int
pti_w_Request_free (MPI_Request *request)
{
  PtiCall c;
  if (!pti_cap_begin (&c, PTI_C_Request_free))
    return PTI_REAL (Request_free) (request);
  MPI_Request h = *request;
  int rc = PTI_REAL (Request_free) (request);
  PtiRec r;
  pti_cap_record (&c, &r, rc, 16);
  pti_put_u (&r, pti_cap_req_ref (h));
  pti_cap_args_end (&r);
  PtiCapReq *e = rc == MPI_SUCCESS ? pti_cap_req_find (h) : NULL;
  if (e != NULL)
    pti_cap_req_remove (e);
  pti_cap_commit (&c, &r);
  return rc;
}
PTI_EXPORT_AS (Request_free, pti_w_Request_free);

PTI_REAL_DECL (Cancel);
static int
pti_w_Cancel (MPI_Request *request)
{
  PtiCall c;
  if (!pti_cap_begin (&c, PTI_C_Cancel))
    return PTI_REAL (Cancel) (request);
  int rc = PTI_REAL (Cancel) (request);
  PtiRec r;
  pti_cap_record (&c, &r, rc, 16);
  pti_put_u (&r, pti_cap_req_ref (*request));
  pti_cap_args_end (&r);
  PtiCapReq *e = rc == MPI_SUCCESS ? pti_cap_req_find (*request) : NULL;
  if (e != NULL)
    e->cancel = 1;
  pti_cap_commit (&c, &r);
  return rc;
}
PTI_EXPORT_AS (Cancel, pti_w_Cancel);

/* ---- collectives ---- */

#define PTI_REQ_PARAM , MPI_Request *req
#define PTI_REQ_ARG , req
#define PTI_REQ_PTR req
#define PTI_NOREQ_PARAM
#define PTI_NOREQ_ARG
#define PTI_NOREQ_PTR NULL

/* X (name, REQ) for a blocking call and its non-blocking twin. */
#define PTI_BOTH(X, blocking, nonblocking) X (blocking, NOREQ) X (nonblocking, REQ)

/* The shape of every collective's wrapper: forward, then @pre (locals the
 * record needs, after the call), the record with @body's fields before the
 * communicator, and the request of a non-blocking twin.  @params and @args
 * are parenthesised lists. */
#define PTI_COLL(name, R, params, args, pre, bound, body) \
  PTI_REAL_DECL (name); \
  static int pti_w_##name params \
  { \
    PtiCall c; \
    if (!pti_cap_begin (&c, PTI_C_##name)) \
      return PTI_REAL (name) args; \
    int rc = PTI_REAL (name) args; \
    pre \
    uint64_t cid = pti_cap_comm_id (comm); \
    PtiRec r; \
    pti_cap_record (&c, &r, rc, bound); \
    body \
    pti_cap_put_comm (&r, cid); \
    pti_cap_args_end (&r); \
    pti_commit_req (&c, &r, rc, PTI_##R##_PTR, 0, 0, 0); \
    return rc; \
  } \
  PTI_EXPORT_AS (name, pti_w_##name);

/* bytes, or 0 for a buffer that is MPI_IN_PLACE */
static void
pti_put_bytes_unless (PtiRec *r, bool in_place, int count, MPI_Datatype dt)
{
  if (in_place)
    pti_put_u (r, 0);
  else
    pti_put_bytes (r, count, dt);
}

#define PTI_WRAP_BARRIER(name, R) \
  PTI_COLL (name, R, (MPI_Comm comm PTI_##R##_PARAM), (comm PTI_##R##_ARG), , 16, )
PTI_BOTH (PTI_WRAP_BARRIER, Barrier, Ibarrier)

#define PTI_WRAP_BCAST(name, R) \
  PTI_COLL (name, R, (void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm PTI_##R##_PARAM), \
            (buf, count, dt, root, comm PTI_##R##_ARG), , 40, \
            pti_put_bytes (&r, count, dt); pti_put_peer (&r, root);)
PTI_BOTH (PTI_WRAP_BCAST, Bcast, Ibcast)

#define PTI_WRAP_REDUCE(name, R) \
  PTI_COLL (name, R, (const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, \
                      int root, MPI_Comm comm PTI_##R##_PARAM), \
            (sbuf, rbuf, count, dt, op, root, comm PTI_##R##_ARG), , 56, \
            pti_put_u (&r, sbuf == MPI_IN_PLACE); pti_put_bytes (&r, count, dt); \
            pti_put_u (&r, pti_cap_op_id (op)); pti_put_peer (&r, root);)
PTI_BOTH (PTI_WRAP_REDUCE, Reduce, Ireduce)

#define PTI_WRAP_ALLREDUCE(name, R) \
  PTI_COLL (name, R, (const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, \
                      MPI_Comm comm PTI_##R##_PARAM), \
            (sbuf, rbuf, count, dt, op, comm PTI_##R##_ARG), , 48, \
            pti_put_u (&r, sbuf == MPI_IN_PLACE); pti_put_bytes (&r, count, dt); \
            pti_put_u (&r, pti_cap_op_id (op));)
PTI_BOTH (PTI_WRAP_ALLREDUCE, Allreduce, Iallreduce)
PTI_BOTH (PTI_WRAP_ALLREDUCE, Scan, Iscan)
PTI_BOTH (PTI_WRAP_ALLREDUCE, Exscan, Iexscan)

PTI_REAL_DECL (Reduce_local);
static int
pti_w_Reduce_local (const void *in, void *inout, int count, MPI_Datatype dt, MPI_Op op)
{
  PtiCall c;
  if (!pti_cap_begin (&c, PTI_C_Reduce_local))
    return PTI_REAL (Reduce_local) (in, inout, count, dt, op);
  int rc = PTI_REAL (Reduce_local) (in, inout, count, dt, op);
  PtiRec r;
  pti_cap_record (&c, &r, rc, 32);
  pti_put_bytes (&r, count, dt);
  pti_put_u (&r, pti_cap_op_id (op));
  pti_cap_args_end (&r);
  pti_cap_commit (&c, &r);
  return rc;
}
PTI_EXPORT_AS (Reduce_local, pti_w_Reduce_local);

/* GATHER layout, for gather (@scatter false) and scatter: the root-only side
 * is 0 elsewhere, the in-place side 0 at the root. */
#define PTI_WRAP_GATHER(name, R, scatter) \
  PTI_COLL (name, R, (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, \
                      MPI_Datatype rtype, int root, MPI_Comm comm PTI_##R##_PARAM), \
            (sbuf, scount, stype, rbuf, rcount, rtype, root, comm PTI_##R##_ARG), \
            bool is_root = rc == MPI_SUCCESS && pti_is_root (root, comm); \
            bool in_place = scatter ? rbuf == MPI_IN_PLACE : sbuf == MPI_IN_PLACE;, 64, \
            pti_put_u (&r, in_place); \
            pti_put_bytes_unless (&r, scatter ? !is_root : in_place, scount, stype); \
            pti_put_bytes_unless (&r, scatter ? in_place : !is_root, rcount, rtype); \
            pti_put_peer (&r, root);)
PTI_WRAP_GATHER (Gather, NOREQ, false)
PTI_WRAP_GATHER (Igather, REQ, false)
PTI_WRAP_GATHER (Scatter, NOREQ, true)
PTI_WRAP_GATHER (Iscatter, REQ, true)

#define PTI_WRAP_ALLGATHER(name, R) \
  PTI_COLL (name, R, (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, \
                      MPI_Datatype rtype, MPI_Comm comm PTI_##R##_PARAM), \
            (sbuf, scount, stype, rbuf, rcount, rtype, comm PTI_##R##_ARG), , 56, \
            pti_put_u (&r, sbuf == MPI_IN_PLACE); \
            pti_put_bytes_unless (&r, sbuf == MPI_IN_PLACE, scount, stype); \
            pti_put_bytes (&r, rcount, rtype);)
PTI_BOTH (PTI_WRAP_ALLGATHER, Allgather, Iallgather)
PTI_BOTH (PTI_WRAP_ALLGATHER, Alltoall, Ialltoall)

/* v-collectives: the count lists have one element per rank (of the remote
 * group of an inter-communicator); rooted ones have them at the root only. */
#define PTI_WRAP_GATHERV(name, R) \
  PTI_COLL (name, R, (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, \
                      const int rcounts[], const int displs[], MPI_Datatype rtype, int root, \
                      MPI_Comm comm PTI_##R##_PARAM), \
            (sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm PTI_##R##_ARG), \
            int n = rc == MPI_SUCCESS && pti_is_root (root, comm) ? pti_coll_n (comm) : 0;, \
            64 + 10 * (size_t) n, \
            pti_put_u (&r, sbuf == MPI_IN_PLACE); \
            pti_put_bytes_unless (&r, sbuf == MPI_IN_PLACE, scount, stype); \
            pti_cap_put_list_int (&r, n, rcounts, rtype); pti_put_peer (&r, root);)
PTI_BOTH (PTI_WRAP_GATHERV, Gatherv, Igatherv)

#define PTI_WRAP_SCATTERV(name, R) \
  PTI_COLL (name, R, (const void *sbuf, const int scounts[], const int displs[], \
                      MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, int root, \
                      MPI_Comm comm PTI_##R##_PARAM), \
            (sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm PTI_##R##_ARG), \
            int n = rc == MPI_SUCCESS && pti_is_root (root, comm) ? pti_coll_n (comm) : 0;, \
            64 + 10 * (size_t) n, \
            pti_put_u (&r, rbuf == MPI_IN_PLACE); pti_cap_put_list_int (&r, n, scounts, stype); \
            pti_put_bytes_unless (&r, rbuf == MPI_IN_PLACE, rcount, rtype); \
            pti_put_peer (&r, root);)
PTI_BOTH (PTI_WRAP_SCATTERV, Scatterv, Iscatterv)

#define PTI_WRAP_ALLGATHERV(name, R) \
  PTI_COLL (name, R, (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, \
                      const int rcounts[], const int displs[], MPI_Datatype rtype, \
                      MPI_Comm comm PTI_##R##_PARAM), \
            (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm PTI_##R##_ARG), \
            int n = rc == MPI_SUCCESS ? pti_coll_n (comm) : 0;, 64 + 10 * (size_t) n, \
            pti_put_u (&r, sbuf == MPI_IN_PLACE); \
            pti_put_bytes_unless (&r, sbuf == MPI_IN_PLACE, scount, stype); \
            pti_cap_put_list_int (&r, n, rcounts, rtype);)
PTI_BOTH (PTI_WRAP_ALLGATHERV, Allgatherv, Iallgatherv)

#define PTI_WRAP_ALLTOALLV(name, R) \
  PTI_COLL (name, R, (const void *sbuf, const int scounts[], const int sdispls[], \
                      MPI_Datatype stype, void *rbuf, const int rcounts[], const int rdispls[], \
                      MPI_Datatype rtype, MPI_Comm comm PTI_##R##_PARAM), \
            (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm PTI_##R##_ARG), \
            int n = rc == MPI_SUCCESS ? pti_coll_n (comm) : 0;, 64 + 20 * (size_t) n, \
            pti_put_u (&r, sbuf == MPI_IN_PLACE); \
            pti_cap_put_list_int (&r, sbuf == MPI_IN_PLACE ? 0 : n, scounts, stype); \
            pti_cap_put_list_int (&r, n, rcounts, rtype);)
PTI_BOTH (PTI_WRAP_ALLTOALLV, Alltoallv, Ialltoallv)

/* A list of per-element byte counts, each with its own datatype. */
static void
pti_put_list_w (PtiRec *r, int n, const int *counts, const MPI_Datatype *types)
{
  pti_put_u (r, (uint64_t) n);
  int64_t prev = 0;
  for (int i = 0; i < n; i++) {
    int64_t b = counts[i] > 0 ? counts[i] * (int64_t) pti_cap_type_size (types[i]) : 0;
    if (i == 0)
      pti_put_u (r, (uint64_t) b);
    else
      pti_put_s (r, b - prev);
    prev = b;
  }
}

#define PTI_WRAP_ALLTOALLW(name, R) \
  PTI_COLL (name, R, (const void *sbuf, const int scounts[], const int sdispls[], \
                      const MPI_Datatype stypes[], void *rbuf, const int rcounts[], \
                      const int rdispls[], const MPI_Datatype rtypes[], \
                      MPI_Comm comm PTI_##R##_PARAM), \
            (sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm PTI_##R##_ARG), \
            int n = rc == MPI_SUCCESS ? pti_coll_n (comm) : 0;, 64 + 20 * (size_t) n, \
            pti_put_u (&r, sbuf == MPI_IN_PLACE); \
            pti_put_list_w (&r, sbuf == MPI_IN_PLACE ? 0 : n, scounts, stypes); \
            pti_put_list_w (&r, n, rcounts, rtypes);)
PTI_BOTH (PTI_WRAP_ALLTOALLW, Alltoallw, Ialltoallw)

#define PTI_WRAP_REDUCE_SCATTER(name, R) \
  PTI_COLL (name, R, (const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype dt, \
                      MPI_Op op, MPI_Comm comm PTI_##R##_PARAM), \
            (sbuf, rbuf, rcounts, dt, op, comm PTI_##R##_ARG), \
            int n = 0; if (rc == MPI_SUCCESS) PTI_REAL (Comm_size) (comm, &n);, \
            64 + 10 * (size_t) n, \
            pti_put_u (&r, sbuf == MPI_IN_PLACE); pti_put_u (&r, pti_cap_op_id (op)); \
            pti_cap_put_list_int (&r, n, rcounts, dt);)
PTI_BOTH (PTI_WRAP_REDUCE_SCATTER, Reduce_scatter, Ireduce_scatter)

#define PTI_WRAP_REDUCE_SCATTER_BLOCK(name, R) \
  PTI_COLL (name, R, (const void *sbuf, void *rbuf, int rcount, MPI_Datatype dt, MPI_Op op, \
                      MPI_Comm comm PTI_##R##_PARAM), \
            (sbuf, rbuf, rcount, dt, op, comm PTI_##R##_ARG), , 48, \
            pti_put_u (&r, sbuf == MPI_IN_PLACE); pti_put_bytes (&r, rcount, dt); \
            pti_put_u (&r, pti_cap_op_id (op));)
PTI_BOTH (PTI_WRAP_REDUCE_SCATTER_BLOCK, Reduce_scatter_block, Ireduce_scatter_block)

/* ---- communicators ---- */

/* Records a creation call: args written by @put_args (after the comm id),
 * then newcomm. */
static void
pti_rec_comm_new (PtiCall *c, int rc, MPI_Comm parent, const MPI_Comm *newcomm, MPI_Comm group_of,
                  int64_t extra, bool per_group, const int64_t *args, int nargs, MPI_Request *req)
{
  uint64_t cid = pti_cap_comm_id (parent);
  MPI_Comm nc = rc == MPI_SUCCESS ? *newcomm : MPI_COMM_NULL;
  if (nc != MPI_COMM_NULL && group_of == MPI_COMM_NULL)
    group_of = nc;
  size_t bound = 64 + 10 * (size_t) nargs + (nc != MPI_COMM_NULL ? pti_cap_comm_bound (group_of) : 0);
  PtiRec r;
  pti_cap_record (c, &r, rc, bound);
  pti_cap_put_comm (&r, cid);
  for (int i = 0; i < nargs; i++)
    pti_put_s (&r, args[i]);
  pti_cap_args_end (&r);
  if (rc == MPI_SUCCESS)
    pti_cap_comm_created (&r, c->code, parent, nc, group_of, extra, per_group);
  pti_commit_req (c, &r, rc, req, 0, 0, 0);
}

#define PTI_COMM_NEW(name, params, args) \
  PTI_REAL_DECL (name); \
  static int pti_w_##name params \
  { \
    PtiCall c; \
    if (!pti_cap_begin (&c, PTI_C_##name)) \
      return PTI_REAL (name) args; \
    int rc = PTI_REAL (name) args; \
    pti_rec_comm_new (&c, rc, comm, newcomm, MPI_COMM_NULL, 0, false, NULL, 0, NULL); \
    return rc; \
  } \
  PTI_EXPORT_AS (name, pti_w_##name);

PTI_COMM_NEW (Comm_dup, (MPI_Comm comm, MPI_Comm *newcomm), (comm, newcomm))
PTI_COMM_NEW (Comm_dup_with_info, (MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm),
              (comm, info, newcomm))
PTI_COMM_NEW (Comm_create, (MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm),
              (comm, group, newcomm))
PTI_COMM_NEW (Cart_sub, (MPI_Comm comm, const int remain[], MPI_Comm *newcomm),
              (comm, remain, newcomm))
PTI_COMM_NEW (Graph_create, (MPI_Comm comm, int nnodes, const int index[], const int edges[],
                             int reorder, MPI_Comm *newcomm),
              (comm, nnodes, index, edges, reorder, newcomm))
PTI_COMM_NEW (Dist_graph_create, (MPI_Comm comm, int n, const int nodes[], const int degrees[],
                                  const int targets[], const int weights[], MPI_Info info,
                                  int reorder, MPI_Comm *newcomm),
              (comm, n, nodes, degrees, targets, weights, info, reorder, newcomm))
PTI_COMM_NEW (Dist_graph_create_adjacent,
              (MPI_Comm comm, int indegree, const int sources[], const int sourceweights[],
               int outdegree, const int dests[], const int destweights[], MPI_Info info,
               int reorder, MPI_Comm *newcomm),
              (comm, indegree, sources, sourceweights, outdegree, dests, destweights, info,
               reorder, newcomm))

PTI_REAL_DECL (Comm_idup);
static int
pti_w_Comm_idup (MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *req)
{
  PtiCall c;
  if (!pti_cap_begin (&c, PTI_C_Comm_idup))
    return PTI_REAL (Comm_idup) (comm, newcomm, req);
  int rc = PTI_REAL (Comm_idup) (comm, newcomm, req);
  /* The new communicator is usable only once the request completes: its
   * groups are the parent's. */
  pti_rec_comm_new (&c, rc, comm, newcomm, comm, 0, false, NULL, 0, req);
  return rc;
}
PTI_EXPORT_AS (Comm_idup, pti_w_Comm_idup);

PTI_REAL_DECL (Comm_split);
static int
pti_w_Comm_split (MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
  PtiCall c;
  if (!pti_cap_begin (&c, PTI_C_Comm_split))
    return PTI_REAL (Comm_split) (comm, color, key, newcomm);
  int rc = PTI_REAL (Comm_split) (comm, color, key, newcomm);
  int64_t args[2] = { color == MPI_UNDEFINED ? -1 : color, key };
  pti_rec_comm_new (&c, rc, comm, newcomm, MPI_COMM_NULL, 0, false, args, 2, NULL);
  return rc;
}
PTI_EXPORT_AS (Comm_split, pti_w_Comm_split);

PTI_REAL_DECL (Comm_split_type);
static int
pti_w_Comm_split_type (MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm *newcomm)
{
  PtiCall c;
  if (!pti_cap_begin (&c, PTI_C_Comm_split_type))
    return PTI_REAL (Comm_split_type) (comm, type, key, info, newcomm);
  int rc = PTI_REAL (Comm_split_type) (comm, type, key, info, newcomm);
  int64_t args[2] = { type == MPI_UNDEFINED ? -1 : type, key };
  pti_rec_comm_new (&c, rc, comm, newcomm, MPI_COMM_NULL, 0, false, args, 2, NULL);
  return rc;
}
PTI_EXPORT_AS (Comm_split_type, pti_w_Comm_split_type);

PTI_REAL_DECL (Comm_create_group);
static int
pti_w_Comm_create_group (MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
  PtiCall c;
  if (!pti_cap_begin (&c, PTI_C_Comm_create_group))
    return PTI_REAL (Comm_create_group) (comm, group, tag, newcomm);
  int rc = PTI_REAL (Comm_create_group) (comm, group, tag, newcomm);
  int64_t args[1] = { tag };
  pti_rec_comm_new (&c, rc, comm, newcomm, MPI_COMM_NULL, tag, true, args, 1, NULL);
  return rc;
}
PTI_EXPORT_AS (Comm_create_group, pti_w_Comm_create_group);

PTI_REAL_DECL (Cart_create);
static int
pti_w_Cart_create (MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder,
                   MPI_Comm *newcomm)
{
  PtiCall c;
  if (!pti_cap_begin (&c, PTI_C_Cart_create))
    return PTI_REAL (Cart_create) (comm, ndims, dims, periods, reorder, newcomm);
  int rc = PTI_REAL (Cart_create) (comm, ndims, dims, periods, reorder, newcomm);
  uint64_t cid = pti_cap_comm_id (comm);
  MPI_Comm nc = rc == MPI_SUCCESS ? *newcomm : MPI_COMM_NULL;
  int nd = ndims > 0 ? ndims : 0;
  PtiRec r;
  pti_cap_record (&c, &r, rc, 64 + 20 * (size_t) nd + pti_cap_comm_bound (nc));
  pti_cap_put_comm (&r, cid);
  pti_put_u (&r, (uint64_t) nd);
  for (int i = 0; i < nd; i++)
    pti_put_u (&r, (uint64_t) (dims[i] > 0 ? dims[i] : 0));
  for (int i = 0; i < nd; i++)
    pti_put_u (&r, periods[i] != 0);
  pti_put_u (&r, reorder != 0);
  pti_cap_args_end (&r);
  if (rc == MPI_SUCCESS)
    pti_cap_comm_created (&r, c.code, comm, nc, nc, 0, false);
  pti_cap_commit (&c, &r);
  return rc;
}
PTI_EXPORT_AS (Cart_create, pti_w_Cart_create);

PTI_REAL_DECL (Intercomm_create);
static int
pti_w_Intercomm_create (MPI_Comm local, int local_leader, MPI_Comm bridge, int remote_leader,
                        int tag, MPI_Comm *newcomm)
{
  PtiCall c;
  if (!pti_cap_begin (&c, PTI_C_Intercomm_create))
    return PTI_REAL (Intercomm_create) (local, local_leader, bridge, remote_leader, tag, newcomm);
  int rc = PTI_REAL (Intercomm_create) (local, local_leader, bridge, remote_leader, tag, newcomm);
  int me = -1;
  PTI_REAL (Comm_rank) (local, &me);
  bool leader = rc == MPI_SUCCESS && me == local_leader;
  uint64_t bid = leader ? pti_cap_comm_id (bridge) : 0;
  /* peer_comm and remote_leader are significant only at the leader. */
  uint64_t cid = pti_cap_comm_id (local);
  MPI_Comm nc = rc == MPI_SUCCESS ? *newcomm : MPI_COMM_NULL;
  PtiRec r;
  pti_cap_record (&c, &r, rc, 96 + pti_cap_comm_bound (nc));
  pti_cap_put_comm (&r, cid);
  pti_put_peer (&r, local_leader);
  pti_cap_put_comm (&r, bid);
  pti_put_peer (&r, leader ? remote_leader : 0);
  pti_put_tag (&r, tag);
  pti_cap_args_end (&r);
  if (rc == MPI_SUCCESS)
    pti_cap_comm_created (&r, c.code, local, nc, nc, tag, true);
  pti_cap_commit (&c, &r);
  return rc;
}
PTI_EXPORT_AS (Intercomm_create, pti_w_Intercomm_create);

PTI_REAL_DECL (Intercomm_merge);
static int
pti_w_Intercomm_merge (MPI_Comm comm, int high, MPI_Comm *newcomm)
{
  PtiCall c;
  if (!pti_cap_begin (&c, PTI_C_Intercomm_merge))
    return PTI_REAL (Intercomm_merge) (comm, high, newcomm);
  int rc = PTI_REAL (Intercomm_merge) (comm, high, newcomm);
  int64_t args[1] = { high != 0 };
  pti_rec_comm_new (&c, rc, comm, newcomm, MPI_COMM_NULL, 0, false, args, 1, NULL);
  return rc;
}
PTI_EXPORT_AS (Intercomm_merge, pti_w_Intercomm_merge);

#define PTI_WRAP_COMM_FREE(name) \
  PTI_REAL_DECL (name); \
  static int pti_w_##name (MPI_Comm *comm) \
  { \
    PtiCall c; \
    if (!pti_cap_begin (&c, PTI_C_##name)) \
      return PTI_REAL (name) (comm); \
    MPI_Comm h = *comm; \
    uint64_t cid = pti_cap_comm_id (h);   /* before it is gone */ \
    int rc = PTI_REAL (name) (comm); \
    PtiRec r; \
    pti_cap_record (&c, &r, rc, 16); \
    pti_cap_put_comm (&r, cid); \
    pti_cap_args_end (&r); \
    if (rc == MPI_SUCCESS) \
      pti_cap_comm_freed (h); \
    pti_cap_commit (&c, &r); \
    return rc; \
  } \
  PTI_EXPORT_AS (name, pti_w_##name);
PTI_WRAP_COMM_FREE (Comm_free)
PTI_WRAP_COMM_FREE (Comm_disconnect)

/* ---- operations ---- */

PTI_REAL_DECL (Op_create);
static int
pti_w_Op_create (MPI_User_function *fn, int commute, MPI_Op *op)
{
  PtiCall c;
  if (!pti_cap_begin (&c, PTI_C_Op_create))
    return PTI_REAL (Op_create) (fn, commute, op);
  int rc = PTI_REAL (Op_create) (fn, commute, op);
  PtiRec r;
  pti_cap_record (&c, &r, rc, 16);
  pti_put_u (&r, commute != 0);
  pti_cap_args_end (&r);
  if (rc == MPI_SUCCESS)
    pti_cap_op_created (*op);
  pti_cap_commit (&c, &r);
  return rc;
}
PTI_EXPORT_AS (Op_create, pti_w_Op_create);

PTI_REAL_DECL (Op_free);
static int
pti_w_Op_free (MPI_Op *op)
{
  PtiCall c;
  if (!pti_cap_begin (&c, PTI_C_Op_free))
    return PTI_REAL (Op_free) (op);
  MPI_Op h = *op;
  int rc = PTI_REAL (Op_free) (op);
  PtiRec r;
  pti_cap_record (&c, &r, rc, 16);
  pti_put_u (&r, pti_cap_op_id (h));
  pti_cap_args_end (&r);
  if (rc == MPI_SUCCESS)
    pti_cap_op_freed (h);
  pti_cap_commit (&c, &r);
  return rc;
}
PTI_EXPORT_AS (Op_free, pti_w_Op_free);

/* ---- lifecycle ---- */

PTI_REAL_DECL (Init);
static int
pti_w_Init (int *argc, char ***argv)
{
  PtiCall c;
  if (!pti_cap_begin (&c, PTI_C_Init))
    return PTI_REAL (Init) (argc, argv);
  int rc = PTI_REAL (Init) (argc, argv);
  int provided = MPI_THREAD_SINGLE;
  if (rc == MPI_SUCCESS) {
    PTI_REAL (Query_thread) (&provided);
    pti_cap_open (MPI_THREAD_SINGLE, provided);
  }
  PtiRec r;
  pti_cap_record (&c, &r, rc, 8);
  pti_cap_args_end (&r);
  pti_cap_commit (&c, &r);
  return rc;
}
PTI_EXPORT_AS (Init, pti_w_Init);

PTI_REAL_DECL (Init_thread);
static int
pti_w_Init_thread (int *argc, char ***argv, int required, int *provided)
{
  PtiCall c;
  if (!pti_cap_begin (&c, PTI_C_Init_thread))
    return PTI_REAL (Init_thread) (argc, argv, required, provided);
  int rc = PTI_REAL (Init_thread) (argc, argv, required, provided);
  if (rc == MPI_SUCCESS)
    pti_cap_open (required, *provided);
  PtiRec r;
  pti_cap_record (&c, &r, rc, 24);
  pti_put_u (&r, (uint64_t) (required > 0 ? required : 0));
  pti_cap_args_end (&r);
  if (rc == MPI_SUCCESS)
    pti_put_u (&r, (uint64_t) (*provided > 0 ? *provided : 0));
  pti_cap_commit (&c, &r);
  return rc;
}
PTI_EXPORT_AS (Init_thread, pti_w_Init_thread);

PTI_REAL_DECL (Finalize);
static int
pti_w_Finalize (void)
{
  PtiCall c;
  if (!pti_cap_begin (&c, PTI_C_Finalize))
    return PTI_REAL (Finalize) ();
  int rc = PTI_REAL (Finalize) ();
  PtiRec r;
  pti_cap_record (&c, &r, rc, 8);
  pti_cap_args_end (&r);
  pti_cap_commit (&c, &r);
  pti_cap_end (PTI_END_FINALIZE, 0);
  return rc;
}
PTI_EXPORT_AS (Finalize, pti_w_Finalize);

PTI_REAL_DECL (Abort);
static int
pti_w_Abort (MPI_Comm comm, int errorcode)
{
  PtiCall c;
  if (!pti_cap_begin (&c, PTI_C_Abort))
    return PTI_REAL (Abort) (comm, errorcode);
  /* MPI_Abort does not return: record it, and END, first. */
  uint64_t cid = pti_cap_comm_id (comm);
  PtiRec r;
  pti_cap_record (&c, &r, MPI_SUCCESS, 24);
  pti_cap_put_comm (&r, cid);
  pti_put_s (&r, errorcode);
  pti_cap_args_end (&r);
  pti_cap_commit (&c, &r);
  pti_cap_end (PTI_END_ABORT, errorcode);
  return PTI_REAL (Abort) (comm, errorcode);
}
PTI_EXPORT_AS (Abort, pti_w_Abort);

/* ---- MPI-IO (format 1.2) ---- */

/* Files get local ids 1, 2, ... in the order this rank opened them (0: a
 * handle no recorded open made).  Programs hold few files open at once: a
 * small table searched linearly, touched under the recording lock. */
#define PTI_FILES_MAX 256
static struct {
  MPI_File fh;
  uint64_t id;
} pti_files[PTI_FILES_MAX];
static uint64_t pti_files_opened;

static uint64_t
pti_file_id (MPI_File fh)
{
  for (int i = 0; i < PTI_FILES_MAX; i++)
    if (pti_files[i].id != 0 && pti_files[i].fh == fh)
      return pti_files[i].id;
  return 0;
}

PTI_REAL_DECL (File_get_byte_offset);
PTI_REAL_DECL (File_get_position);

/* @offset (etypes, relative to the view) as an absolute byte offset. */
static uint64_t
pti_file_byte (MPI_File fh, MPI_Offset offset)
{
  MPI_Offset byte = 0;
  if (PTI_REAL (File_get_byte_offset) (fh, offset, &byte) != MPI_SUCCESS || byte < 0)
    return 0;
  return (uint64_t) byte;
}

PTI_REAL_DECL (File_open);
static int
pti_w_File_open (MPI_Comm comm, const char *name, int amode, MPI_Info info, MPI_File *fh)
{
  PtiCall c;
  if (!pti_cap_begin (&c, PTI_C_File_open))
    return PTI_REAL (File_open) (comm, name, amode, info, fh);
  int rc = PTI_REAL (File_open) (comm, name, amode, info, fh);
  uint64_t cid = pti_cap_comm_id (comm);
  size_t n = name != NULL ? strnlen (name, PTI_CAPTURE_FILE_NAME_MAX) : 0;
  PtiRec r;
  pti_cap_record (&c, &r, rc, 48 + n);
  uint64_t id = 0;
  if (rc == MPI_SUCCESS) {
    id = ++pti_files_opened;
    for (int i = 0; i < PTI_FILES_MAX; i++)
      if (pti_files[i].id == 0) {
        pti_files[i].fh = *fh;
        pti_files[i].id = id;
        break;
      }
  }
  pti_cap_put_comm (&r, cid);
  pti_put_u (&r, id);
  pti_put_bytes_string (&r, name, n);
  pti_cap_args_end (&r);
  pti_cap_commit (&c, &r);
  return rc;
}
PTI_EXPORT_AS (File_open, pti_w_File_open);

PTI_REAL_DECL (File_close);
static int
pti_w_File_close (MPI_File *fh)
{
  PtiCall c;
  if (!pti_cap_begin (&c, PTI_C_File_close))
    return PTI_REAL (File_close) (fh);
  MPI_File was = *fh;
  int rc = PTI_REAL (File_close) (fh);
  PtiRec r;
  pti_cap_record (&c, &r, rc, 24);
  uint64_t id = pti_file_id (was);
  pti_put_u (&r, id);
  if (rc == MPI_SUCCESS)
    for (int i = 0; i < PTI_FILES_MAX; i++)
      if (pti_files[i].id == id)
        pti_files[i].id = 0;
  pti_cap_args_end (&r);
  pti_cap_commit (&c, &r);
  return rc;
}
PTI_EXPORT_AS (File_close, pti_w_File_close);

/* The record of an access: file, byte offset, bytes (FILE_ACCESS). */
static int
pti_file_access_commit (PtiCall *c, int rc, MPI_File fh, uint64_t byte, int count,
                        MPI_Datatype dt)
{
  PtiRec r;
  pti_cap_record (c, &r, rc, 40);
  pti_put_u (&r, pti_file_id (fh));
  pti_put_u (&r, byte);
  pti_put_bytes (&r, count, dt);
  pti_cap_args_end (&r);
  pti_cap_commit (c, &r);
  return rc;
}

/* Explicit offsets (MPI_File_write_at ...). */
#define PTI_WRAP_FILE_AT(name, bufdecl) \
  PTI_REAL_DECL (name); \
  static int pti_w_##name (MPI_File fh, MPI_Offset offset, bufdecl buf, int count, \
                           MPI_Datatype dt, MPI_Status *status) \
  { \
    PtiCall c; \
    if (!pti_cap_begin (&c, PTI_C_##name)) \
      return PTI_REAL (name) (fh, offset, buf, count, dt, status); \
    uint64_t byte = pti_file_byte (fh, offset); \
    int rc = PTI_REAL (name) (fh, offset, buf, count, dt, status); \
    return pti_file_access_commit (&c, rc, fh, byte, count, dt); \
  } \
  PTI_EXPORT_AS (name, pti_w_##name);

/* The individual file pointer (MPI_File_write ...): its position before
 * the call, as a byte offset, so the record is the same as an _at call's. */
#define PTI_WRAP_FILE_PTR(name, bufdecl) \
  PTI_REAL_DECL (name); \
  static int pti_w_##name (MPI_File fh, bufdecl buf, int count, MPI_Datatype dt, \
                           MPI_Status *status) \
  { \
    PtiCall c; \
    if (!pti_cap_begin (&c, PTI_C_##name)) \
      return PTI_REAL (name) (fh, buf, count, dt, status); \
    MPI_Offset pos = 0; \
    uint64_t byte = PTI_REAL (File_get_position) (fh, &pos) == MPI_SUCCESS \
                      ? pti_file_byte (fh, pos) : 0; \
    int rc = PTI_REAL (name) (fh, buf, count, dt, status); \
    return pti_file_access_commit (&c, rc, fh, byte, count, dt); \
  } \
  PTI_EXPORT_AS (name, pti_w_##name);

PTI_WRAP_FILE_AT (File_write_at, const void *)
PTI_WRAP_FILE_AT (File_read_at, void *)
PTI_WRAP_FILE_AT (File_write_at_all, const void *)
PTI_WRAP_FILE_AT (File_read_at_all, void *)
PTI_WRAP_FILE_PTR (File_write, const void *)
PTI_WRAP_FILE_PTR (File_read, void *)
PTI_WRAP_FILE_PTR (File_write_all, const void *)
PTI_WRAP_FILE_PTR (File_read_all, void *)
