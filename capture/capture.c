/* The capture library's core: the block writer, the tables that turn MPI
 * handles into the format's ids, the HEADER and END records, CPU time of
 * bursts, and what happens on a signal or an exit without MPI_Finalize.
 * The wrappers are in wrap.c (detailed) and the generated wrap-generic.c. */
#include "capture-private.h"
#include "region-hooks.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#ifndef PTI_VERSION
#define PTI_VERSION "0"
#endif
#define PTI_CAP_WRITER "pticapture " PTI_VERSION

/* On a line of its own: its first line is what a repeated poll touches. */
PtiCap pti_cap __attribute__ ((aligned (64))) = { .phase = PTI_CAP_OFF, .fd = -1, .signal_end_at = -1 };
__thread int pti_cap_depth __attribute__ ((tls_model ("initial-exec")));
__thread int pti_cap_locked __attribute__ ((tls_model ("initial-exec")));

static pthread_mutex_t pti_cap_mutex = PTHREAD_MUTEX_INITIALIZER;
static volatile sig_atomic_t pti_cap_in_handler;
static volatile size_t pti_cap_written;     /* buffer bytes a signal handler already wrote */
static char pti_cap_dir[4096];

PTI_REAL_DECL (Type_size);
PTI_REAL_DECL (Comm_rank);
PTI_REAL_DECL (Comm_size);
PTI_REAL_DECL (Comm_remote_size);
PTI_REAL_DECL (Comm_test_inter);
PTI_REAL_DECL (Comm_group);
PTI_REAL_DECL (Comm_remote_group);
PTI_REAL_DECL (Group_translate_ranks);
PTI_REAL_DECL (Group_free);
PTI_REAL_DECL (Get_count);
PTI_REAL_DECL (Test_cancelled);
PTI_REAL_DECL (Get_version);
PTI_REAL_DECL (Get_library_version);

/* Messages to the user: plain write(2), no stdio, usable anywhere. */
void
pti_cap_say (const char *a, const char *b, const char *c)
{
  const char *parts[] = { "pticapture: ", a, b, c, "\n" };
  for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
    if (parts[i] != NULL && write (2, parts[i], strlen (parts[i])) < 0)
      return;
}

/* @name in the libraries after this one, or the message and abort: a
 * wrapper without its real function cannot go on. */
static void *
pti_cap_resolve_or_die (const char *lib, const char *name, const char *hint)
{
  void *f = dlsym (RTLD_NEXT, name);
  if (f == NULL) {
    pti_cap_say (lib, name, hint);
    abort ();
  }
  return f;
}

void *
pti_cap_resolve (const char *name)
{
  return pti_cap_resolve_or_die ("the MPI library has no ", name,
                                 ": is this program linked with Open MPI?");
}

void *
pti_cap_resolve_libc (const char *name)
{
  return pti_cap_resolve_or_die ("the C library has no ", name, "");
}

/* ---- the buffer and its blocks ---- */

static bool
pti_cap_write_all (struct iovec *iov, int n)
{
  while (n > 0) {
    ssize_t w = writev (pti_cap.fd, iov, n);
    if (w < 0) {
      if (errno == EINTR)
        continue;
      return false;
    }
    while (n > 0 && (size_t) w >= iov->iov_len) {
      w -= (ssize_t) iov->iov_len;
      iov++;
      n--;
    }
    if (n > 0) {
      iov->iov_base = (uint8_t *) iov->iov_base + w;
      iov->iov_len -= (size_t) w;
    }
  }
  return true;
}

static bool pti_cap_has_sse42;

/* One block; async-signal-safe (a pure CRC and writev). */
static bool
pti_cap_write_block (const uint8_t *p, size_t n)
{
  uint32_t crc = pti_capture_crc32c (0, p, n, pti_cap.crc_table, pti_cap_has_sse42);
  uint8_t hdr[8];
  for (int i = 0; i < 4; i++) {
    hdr[i] = (uint8_t) (n >> (8 * i));
    hdr[4 + i] = (uint8_t) (crc >> (8 * i));
  }
  struct iovec iov[2] = { { hdr, 8 }, { (void *) p, n } };
  return pti_cap_write_all (iov, 2);
}

static sigset_t pti_cap_signals;   /* those we handle */

static void
pti_cap_fail_io (void)
{
  char msg[64];
  snprintf (msg, sizeof msg, "%s", strerror (errno));
  pti_cap_say ("cannot write ", pti_cap.path, "");
  pti_cap_say ("  ", msg, "; the capture of this rank stops here");
  close (pti_cap.fd);
  pti_cap.fd = -1;
  pti_cap.phase = PTI_CAP_DONE;
}

static void
pti_cap_flush (void)
{
  if (pti_cap.phase != PTI_CAP_ON)
    return;
  sigset_t old;
  pthread_sigmask (SIG_BLOCK, &pti_cap_signals, &old);
  size_t from = pti_cap_written, to = pti_cap.len;
  if (to > from && !pti_cap_write_block (pti_cap.buf + from, to - from))
    pti_cap_fail_io ();
  if (pti_cap.hist[1].code != 0 && pti_cap.hist_end == to)
    pti_cap.hist_end = 0;   /* a run may go on in the next block */
  pti_cap.len = 0;
  pti_cap_written = 0;
  pti_cap.t_last_flush = pti_cap.t_last_exit;
  pthread_sigmask (SIG_SETMASK, &old, NULL);
}

static void
pti_cap_grow (size_t need)
{
  size_t cap = pti_cap.cap ? pti_cap.cap : 2 * PTI_CAPTURE_BLOCK_FILL;
  while (cap < need)
    cap *= 2;
  sigset_t old;
  pthread_sigmask (SIG_BLOCK, &pti_cap_signals, &old);
  uint8_t *b = realloc (pti_cap.buf, cap);
  if (b == NULL) {
    pti_cap_say ("out of memory for the trace buffer", "", "");
    abort ();
  }
  pti_cap.buf = b;
  pti_cap.cap = cap;
  pthread_sigmask (SIG_SETMASK, &old, NULL);
}

void
pti_cap_reserve_slow (size_t bound)
{
  pti_cap_flush ();
  size_t need = pti_cap.len + bound + PTI_CAP_END_ROOM;
  if (need > pti_cap.cap)
    pti_cap_grow (need);
}

void
pti_cap_commit_slow (void)
{
  if (pti_cap.phase == PTI_CAP_ON)
    pti_cap_flush ();
}

/* ---- runs of repeated calls (REPEAT) ---- */

/* Encodes the pending REPEAT into @out (at most 1 + 1 + 2 * 40 bytes); 0 if
 * none.  Async-signal-safe. */
static size_t
pti_cap_repeat_encode (uint8_t *out)
{
  if (pti_cap.run_period == 0)
    return 0;
  PtiRec r = { .p = out };
  pti_put_u (&r, PTI_REC_REPEAT << 1);
  pti_put_u (&r, (uint64_t) pti_cap.run_period);
  for (int j = 0; j < pti_cap.run_period; j++) {
    pti_put_u (&r, pti_cap.run[j].count);
    pti_put_u (&r, pti_cap.run[j].burst);
    pti_put_u (&r, pti_cap.run[j].cpu_ok
                     ? 1 + pti_capture_zigzag ((int64_t) (pti_cap.run[j].burst - pti_cap.run[j].cpu))
                     : 0);
    pti_put_u (&r, pti_cap.run[j].dur);
  }
  return (size_t) (r.p - out);
}

static void
pti_cap_hist_clear (void)
{
  pti_cap.hist[0].code = pti_cap.hist[1].code = 0;
  pti_cap.poll[0].code = pti_cap.poll[1].code = 0;
  pti_cap.hist_adjacent = false;
  pti_cap.run_period = 0;
}

/* Before a non-call record: the pending REPEAT goes first, and no run goes
 * on across it. */
static void
pti_cap_run_close (void)
{
  if (pti_cap.run_period != 0) {
    size_t n = pti_cap_repeat_encode (pti_cap.buf + pti_cap.len);
    __atomic_store_n (&pti_cap.len, pti_cap.len + n, __ATOMIC_RELEASE);
  }
  pti_cap_hist_clear ();
}

static inline __attribute__ ((always_inline)) bool
pti_cap_hist_matches (int h, const PtiRec *r, size_t rlen)
{
  return pti_cap.hist[h].code == r->code && (*r->head & 1) && rlen == pti_cap.hist[h].result_len
         && pti_cap_same (r->result, pti_cap.hist[h].result, rlen);
}

static inline __attribute__ ((always_inline)) void
pti_cap_run_absorb (int j, const PtiRec *r)
{
  pti_cap.run[j].count++;
  pti_cap.run[j].burst += r->burst;
  pti_cap.run[j].dur += r->dur;
  if (r->cpu == 0)
    pti_cap.run[j].cpu_ok = false;
  else
    pti_cap.run[j].cpu += r->burst - (uint64_t) pti_capture_unzigzag (r->cpu - 1);
}

static void
pti_cap_run_start (int period)
{
  memset (pti_cap.run, 0, sizeof pti_cap.run);
  pti_cap.run[0].cpu_ok = pti_cap.run[1].cpu_ok = true;
  pti_cap.run_period = period;
}

/* A call record is about to be committed: true if it joins the run (it is
 * not written); otherwise the pending REPEAT goes before it, and it becomes
 * the newest of the calls a run may repeat. */
bool
pti_cap_run_step (PtiRec *r, bool repeatable)
{
  size_t rlen = (size_t) (r->p - r->result);
  if (repeatable && pti_cap.hist_end == pti_cap.len) {   /* nothing since hist[1] */
    if (pti_cap.run_period == 1 && pti_cap_hist_matches (1, r, rlen)) {
      pti_cap_run_absorb (0, r);
      return true;
    }
    if (pti_cap.run_period == 2 && pti_cap_hist_matches (pti_cap.run_next, r, rlen)) {
      pti_cap_run_absorb (pti_cap.run_next, r);
      pti_cap.run_next ^= 1;
      return true;
    }
    if (pti_cap.run_period == 0 && pti_cap_hist_matches (1, r, rlen)) {
      pti_cap_run_start (1);
      pti_cap_run_absorb (0, r);
      return true;
    }
    if (pti_cap.run_period == 0 && pti_cap.hist_adjacent && pti_cap.hist[1].code != 0
        && pti_cap_hist_matches (0, r, rlen)) {
      pti_cap_run_start (2);
      pti_cap_run_absorb (0, r);
      pti_cap.run_next = 1;
      return true;
    }
  }
  bool adjacent = pti_cap.hist[1].code != 0 && pti_cap.hist_end == pti_cap.len;
  if (pti_cap.run_period != 0) {   /* REPEAT, then this record */
    uint8_t rep[96];
    size_t k = pti_cap_repeat_encode (rep);
    memmove (r->head + k, r->head, (size_t) (r->p - r->head));
    memcpy (r->head, rep, k);
    r->head += k;
    r->args += k;
    r->result += k;
    r->p += k;
    pti_cap.run_period = 0;
    adjacent = false;
  }
  if (repeatable && rlen <= sizeof pti_cap.hist[1].result) {
    pti_cap.hist[0] = pti_cap.hist[1];
    pti_cap.poll[0] = pti_cap.poll[1];
    if (!adjacent)
      pti_cap.hist[0].code = pti_cap.poll[0].code = 0;
    if (r->poll != NULL)
      pti_cap.poll[1] = *r->poll;
    else
      pti_cap.poll[1].code = 0;
    pti_cap.hist_adjacent = adjacent;
    pti_cap.hist[1].code = r->code;
    memcpy (pti_cap.hist[1].result, r->result, rlen);
    pti_cap.hist[1].result_len = (uint8_t) rlen;
    pti_cap.hist_end = (size_t) (r->p - pti_cap.buf);
  } else
    pti_cap_hist_clear ();
  return false;
}

/* The first untimed repeat of hist[@h] starts a run: of period 1 if it
 * repeats the newest call, else of the two adjacent ones, its element 0
 * being hist[0]. */
void
pti_cap_poll_run_start (int h)
{
  pti_cap_run_start (h == 1 ? 1 : 2);
  pti_cap.run_next = 1;
}

void
pti_cap_poll_tick (void)
{
  uint64_t now = pti_cap_now ();
  if (now - pti_cap.t_last_flush >= pti_cap.flush_interval) {
    if (pti_cap.len > 0)
      pti_cap_flush ();
    pti_cap.t_last_flush = now;
  }
}

/* A non-call record: begin at the end of the buffer, commit when written. */
static void
pti_cap_rec_start (PtiRec *r, int code, size_t bound)
{
  pti_cap_reserve (bound + 64);
  pti_cap_run_close ();
  r->code = code;
  r->p = r->head = r->args = pti_cap.buf + pti_cap.len;
  pti_put_u (r, (uint64_t) code << 1);
}

static void
pti_cap_rec_commit (PtiRec *r)
{
  __atomic_store_n (&pti_cap.len, (size_t) (r->p - pti_cap.buf), __ATOMIC_RELEASE);
}

void
pti_cap_error_record (int rc)
{
  PtiRec r;
  pti_cap_rec_start (&r, PTI_REC_ERROR, 16);
  pti_put_s (&r, rc);
  pti_cap_rec_commit (&r);
}

void
pti_cap_put_string (PtiRec *r, const char *s)
{
  size_t n = s ? strlen (s) : 0;
  if (n > PTI_CAPTURE_STRING_MAX)
    n = PTI_CAPTURE_STRING_MAX;
  pti_put_u (r, n);
  memcpy (r->p, s, n);
  r->p += n;
}

static void
pti_cap_put_list_u64 (PtiRec *r, int n, const int *v)
{
  pti_put_u (r, (uint64_t) n);
  for (int i = 0; i < n; i++)
    if (i == 0)
      pti_put_u (r, (uint64_t) v[0]);
    else
      pti_put_s (r, (int64_t) v[i] - v[i - 1]);
}

/* A list of counts in bytes (count × size of dt). */
void
pti_cap_put_list_int (PtiRec *r, int n, const int *counts, MPI_Datatype dt)
{
  uint64_t size = pti_cap_type_size (dt);
  pti_put_u (r, (uint64_t) n);
  int64_t prev = 0;
  for (int i = 0; i < n; i++) {
    int64_t b = counts[i] > 0 ? (int64_t) counts[i] * (int64_t) size : 0;
    if (i == 0)
      pti_put_u (r, (uint64_t) b);
    else
      pti_put_s (r, b - prev);
    prev = b;
  }
}

/* Sizes of the datatypes last used, by handle: a call costs 30
 * instructions in Open MPI, a hit 5.  MPI_Type_free forgets its type (the
 * handle may come back for another). */
static struct {
  MPI_Datatype handle;
  uint64_t size;
} pti_cap_tsize[64];

static size_t
pti_cap_tsize_slot (MPI_Datatype dt)
{
  return (size_t) (((uint64_t) (uintptr_t) dt * 0x9E3779B97F4A7C15u) >> 58);
}

uint64_t
pti_cap_type_size (MPI_Datatype dt)
{
  size_t i = pti_cap_tsize_slot (dt);
  if (pti_cap_tsize[i].handle == dt && dt != NULL && !pti_cap.thread_multiple)
    return pti_cap_tsize[i].size;
  int s = 0;
  if (dt == MPI_DATATYPE_NULL || PTI_REAL (Type_size) (dt, &s) != MPI_SUCCESS || s < 0)
    return 0;
  pti_cap_tsize[i].handle = dt;
  pti_cap_tsize[i].size = (uint64_t) s;
  return (uint64_t) s;
}

void
pti_cap_type_forget (MPI_Datatype dt)
{
  size_t i = pti_cap_tsize_slot (dt);
  if (pti_cap_tsize[i].handle == dt)
    pti_cap_tsize[i].handle = NULL;
}

/* ---- locking (MPI_THREAD_MULTIPLE only) ---- */

void
pti_cap_lock_slow (void)
{
  pthread_mutex_lock (&pti_cap_mutex);
  pti_cap_locked = 1;
}

void
pti_cap_unlock_slow (void)
{
  pti_cap_locked = 0;
  pthread_mutex_unlock (&pti_cap_mutex);
}

void
pti_cap_cancel (PtiCall *c)
{
  (void) c;
  pti_cap.cur_code = 0;
  if (pti_cap_locked)
    pti_cap_unlock_slow ();
  pti_cap_depth--;
}

/* ---- CPU time of bursts ---- */

uint64_t
pti_cap_cpu_exact (uint64_t wall)
{
  uint32_t seq = pti_cap.switch_seq ? *pti_cap.switch_seq : 0;
  struct timespec t;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &t);
  uint64_t cpu = (uint64_t) t.tv_sec * 1000000000u + (uint64_t) t.tv_nsec;
  pti_cap.anchor_seq = seq;
  pti_cap.anchor_wall = wall;
  pti_cap.anchor_cpu = cpu;
  return cpu;
}

/* switch mode: a task-clock perf event of this thread; the seqlock of its
 * mmapped page changes exactly when the thread is scheduled in or out. */
static void
pti_cap_cpu_setup (void)
{
  if (pti_cap.cpu_mode != PTI_CPU_SWITCH)
    return;
  struct perf_event_attr pe;
  memset (&pe, 0, sizeof pe);
  pe.type = PERF_TYPE_SOFTWARE;
  pe.size = sizeof pe;
  pe.config = PERF_COUNT_SW_TASK_CLOCK;
  pe.exclude_kernel = 1;
  pe.exclude_hv = 1;
  long fd = syscall (SYS_perf_event_open, &pe, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
  void *page = MAP_FAILED;
  if (fd >= 0)
    page = mmap (NULL, (size_t) sysconf (_SC_PAGESIZE), PROT_READ, MAP_SHARED, (int) fd, 0);
  if (page == MAP_FAILED) {
    snprintf (pti_cap.cpu_note, sizeof pti_cap.cpu_note,
              "perf_event_open (task clock): %s; CPU time read at both ends of every burst",
              strerror (errno));
    if (fd >= 0)
      close ((int) fd);
    pti_cap.cpu_mode = PTI_CPU_EXACT;
    return;
  }
  pti_cap.switch_seq = &((struct perf_event_mmap_page *) page)->lock;
}

static int
pti_cap_cmp_u64 (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
  return x < y ? -1 : x > y;
}

/* What recording adds to the dur of every call (FORMAT.md 6.1,
 * dur_floor_ns): what a wrapper does between its two clock reads besides
 * the MPI call, which is pti_cap_begin's CPU-time check and the reads
 * themselves, timed with no call between them; the median of 1,001 tries
 * after 100 to warm up.  A replay subtracts it from the own time of the
 * calls it replays as computation.  Measured here, on this rank's CPU and
 * clock, rather than a constant: it is 10 to 20 ns with the TSC and switch
 * mode, a system call more in exact mode, more with CLOCK_MONOTONIC. */
static void
pti_cap_measure_floor (void)
{
  enum { N = 1001, WARM = 100 };
  uint64_t v[N];
  for (int i = -WARM; i < N; i++) {
    uint64_t a = pti_cap_now ();
    if (pti_cap.cpu_mode != PTI_CPU_NONE)
      (void) pti_cap_cpu_at (a);
    uint64_t b = pti_cap_now ();
    if (i >= 0)
      v[i] = b > a ? b - a : 0;
  }
  qsort (v, N, sizeof v[0], pti_cap_cmp_u64);
  snprintf (pti_cap.dur_floor, sizeof pti_cap.dur_floor, "%llu", (unsigned long long) v[N / 2]);
}

/* ---- the constructor: time 0 and the environment pticapture set ---- */

/* Whether the TSC runs at a constant rate in every state (the kernel says
 * so in /proc/cpuinfo): then it is the clock of records. */
static bool
pti_cap_tsc_usable (void)
{
#if defined(__x86_64__)
  int fd = open ("/proc/cpuinfo", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  char buf[8192];
  ssize_t n = read (fd, buf, sizeof buf - 1);
  close (fd);
  if (n <= 0)
    return false;
  buf[n] = '\0';
  char *flags = strstr (buf, "\nflags");
  char *eol = flags ? strchr (flags + 1, '\n') : NULL;
  if (eol != NULL)
    *eol = '\0';
  return flags != NULL && strstr (flags, " constant_tsc") != NULL
         && strstr (flags, " nonstop_tsc") != NULL;
#else
  return false;
#endif
}

/* At MPI_Init: the TSC's rate from load to now (tens of ms at least). */
static void
pti_cap_clock_setup (void)
{
#if defined(__x86_64__)
  uint64_t tsc = __rdtsc (), ns = pti_cap_monotonic ();
  if (getenv ("PTI_CAPTURE_NO_TSC") == NULL && pti_cap_tsc_usable () && ns > 1000000
      && tsc > pti_cap.tsc0) {
    pti_cap.tsc_mult = (uint64_t) (((unsigned __int128) ns << 32) / (tsc - pti_cap.tsc0));
    pti_cap.ns0 = 0;
    snprintf (pti_cap.clock_note, sizeof pti_cap.clock_note,
              "TSC at %.6f GHz, calibrated against CLOCK_MONOTONIC over %.3f s",
              (double) (tsc - pti_cap.tsc0) / (double) ns, (double) ns * 1e-9);
    return;
  }
#endif
  snprintf (pti_cap.clock_note, sizeof pti_cap.clock_note, "CLOCK_MONOTONIC");
}

__attribute__ ((constructor)) static void
pti_cap_load (void)
{
  clock_gettime (CLOCK_MONOTONIC, &pti_cap.t0);
#if defined(__x86_64__)
  pti_cap.tsc0 = __rdtsc ();
#endif
  struct timespec rt;
  clock_gettime (CLOCK_REALTIME, &rt);
  pti_cap.t0_realtime = (uint64_t) rt.tv_sec * 1000000000u + (uint64_t) rt.tv_nsec;
  const char *dir = getenv ("PTI_CAPTURE_DIR");
  if (dir == NULL || *dir == '\0')
    return;
  if (strlen (dir) >= sizeof pti_cap_dir - 32) {
    pti_cap_say ("PTI_CAPTURE_DIR is too long: ", "this process is not captured", "");
    return;
  }
  strcpy (pti_cap_dir, dir);
  const char *cpu = getenv ("PTI_CAPTURE_CPU");
  pti_cap.cpu_mode = PTI_CPU_SWITCH;
  if (cpu != NULL && strcmp (cpu, "exact") == 0)
    pti_cap.cpu_mode = PTI_CPU_EXACT;
  else if (cpu != NULL && strcmp (cpu, "none") == 0)
    pti_cap.cpu_mode = PTI_CPU_NONE;
  const char *fl = getenv ("PTI_CAPTURE_FLUSH");
  double secs = fl != NULL ? strtod (fl, NULL) : 1.0;
  if (!(secs > 0 && secs < 1e6))
    secs = 1.0;
  pti_cap.flush_interval = (uint64_t) (secs * 1e9);
  pti_capture_crc32c_table (pti_cap.crc_table);
#if defined(__x86_64__)
  __builtin_cpu_init ();
  pti_cap_has_sse42 = __builtin_cpu_supports ("sse4.2");
#endif
  sigemptyset (&pti_cap_signals);
  pti_cap_grow (2 * PTI_CAPTURE_BLOCK_FILL);
  pti_cap.next_comm = 3;
  pti_cap.phase = PTI_CAP_PRE;
}

/* ---- tables: pointer-keyed open addressing, backward-shift deletion ---- */

static size_t
pti_cap_hash_ptr (const void *p, size_t cap)
{
  return (size_t) (((uint64_t) (uintptr_t) p * 0x9E3779B97F4A7C15u) >> 20) & (cap - 1);
}

#define PTI_CAP_TABLE_FUNCS(T, field, prefix) \
  static T *prefix##_slot (T *tab, size_t cap, const void *h) \
  { \
    size_t i = pti_cap_hash_ptr (h, cap); \
    while (tab[i].handle != NULL && (const void *) tab[i].handle != h) \
      i = (i + 1) & (cap - 1); \
    return &tab[i]; \
  } \
  static void prefix##_grow (void) \
  { \
    size_t cap = pti_cap.field##_cap ? 2 * pti_cap.field##_cap : 64; \
    T *tab = calloc (cap, sizeof *tab); \
    if (tab == NULL) { pti_cap_say ("out of memory", "", ""); abort (); } \
    for (size_t i = 0; i < pti_cap.field##_cap; i++) \
      if (pti_cap.field##s[i].handle != NULL) \
        *prefix##_slot (tab, cap, (const void *) pti_cap.field##s[i].handle) = pti_cap.field##s[i]; \
    free (pti_cap.field##s); \
    pti_cap.field##s = tab; \
    pti_cap.field##_cap = cap; \
  } \
  static T *prefix##_insert (const void *h) \
  { \
    if (2 * (pti_cap.field##_n + 1) > pti_cap.field##_cap) \
      prefix##_grow (); \
    T *e = prefix##_slot (pti_cap.field##s, pti_cap.field##_cap, h); \
    if (e->handle == NULL) \
      pti_cap.field##_n++; \
    memset (e, 0, sizeof *e); \
    return e; \
  } \
  static T *prefix##_find (const void *h) \
  { \
    if (pti_cap.field##_cap == 0 || h == NULL) \
      return NULL; \
    T *e = prefix##_slot (pti_cap.field##s, pti_cap.field##_cap, h); \
    return e->handle != NULL ? e : NULL; \
  } \
  static void prefix##_remove (T *e) \
  { \
    size_t cap = pti_cap.field##_cap, i = (size_t) (e - pti_cap.field##s); \
    T *tab = pti_cap.field##s; \
    tab[i].handle = NULL; \
    pti_cap.field##_n--; \
    for (size_t j = (i + 1) & (cap - 1); tab[j].handle != NULL; j = (j + 1) & (cap - 1)) { \
      size_t home = pti_cap_hash_ptr ((const void *) tab[j].handle, cap); \
      /* move j back to i if its home is not in (i, j] */ \
      if ((j > i && (home <= i || home > j)) || (j < i && (home <= i && home > j))) { \
        tab[i] = tab[j]; \
        tab[j].handle = NULL; \
        i = j; \
      } \
    } \
  }

PTI_CAP_TABLE_FUNCS (PtiCapReq, req, pti_cap_reqtab)
PTI_CAP_TABLE_FUNCS (PtiCapComm, comm, pti_cap_commtab)

/* ---- requests ---- */

void
pti_cap_req_created (MPI_Request req, int flags, int source, int tag)
{
  pti_cap_lock ();
  if (req == MPI_REQUEST_NULL)
    return;
  PtiCapReq *e = pti_cap_reqtab_insert (req);
  e->handle = req;
  e->id = ++pti_cap.last_req;
  e->flags = (uint8_t) flags;
  e->any_source = source == MPI_ANY_SOURCE;
  e->any_tag = tag == MPI_ANY_TAG;
  e->active = !(flags & PTI_CF_PERSISTENT);
}

PtiCapReq *
pti_cap_req_find (MPI_Request req)
{
  pti_cap_lock ();
  return req == MPI_REQUEST_NULL ? NULL : pti_cap_reqtab_find (req);
}

void
pti_cap_req_remove (PtiCapReq *e)
{
  pti_cap_reqtab_remove (e);
}

uint64_t
pti_cap_req_ref (MPI_Request req)
{
  if (req == MPI_REQUEST_NULL)
    return PTI_REQ_REF_NULL;
  PtiCapReq *e = pti_cap_req_find (req);
  return e != NULL ? pti_cap.last_req + 2 - e->id : PTI_REQ_REF_UNTRACKED;
}

static uint64_t
pti_cap_status_bytes (const MPI_Status *st)
{
  int n = 0;
  if (PTI_REAL (Get_count) (st, MPI_BYTE, &n) != MPI_SUCCESS || n < 0)
    return 0;
  return (uint64_t) n;
}

/* status: flags and the fields they announce. */
static void
pti_cap_put_status_fields (PtiRec *r, unsigned flags, const MPI_Status *st)
{
  pti_put_u (r, flags);
  if (flags & PTI_ST_SOURCE)
    pti_put_peer (r, st->MPI_SOURCE);
  if (flags & PTI_ST_TAG)
    pti_put_tag (r, st->MPI_TAG);
  if (flags & PTI_ST_BYTES)
    pti_put_u (r, pti_cap_status_bytes (st));
}

static unsigned
pti_cap_recv_flags (bool any_source, bool any_tag)
{
  return PTI_ST_BYTES | (any_source ? PTI_ST_SOURCE : 0) | (any_tag ? PTI_ST_TAG : 0);
}

void
pti_cap_put_status_direct (PtiRec *r, int posted_source, int posted_tag, const MPI_Status *st,
                           bool is_recv)
{
  if (!is_recv || posted_source == MPI_PROC_NULL) {
    pti_put_u (r, is_recv ? PTI_ST_BYTES : 0);
    if (is_recv)
      pti_put_u (r, 0);
    return;
  }
  pti_cap_put_status_fields (r, pti_cap_recv_flags (posted_source == MPI_ANY_SOURCE,
                                                    posted_tag == MPI_ANY_TAG), st);
}

/* The completion of request @e (NULL: MPI_REQUEST_NULL or not tracked). */
void
pti_cap_put_status (PtiRec *r, PtiCapReq *e, const MPI_Status *st)
{
  if (e == NULL || !e->active) {
    pti_put_u (r, PTI_ST_EMPTY);
    return;
  }
  unsigned flags = e->flags & PTI_CF_RECV ? pti_cap_recv_flags (e->any_source, e->any_tag) : 0;
  int cancelled = 0;
  if (e->cancel && PTI_REAL (Test_cancelled) (st, &cancelled) == MPI_SUCCESS && cancelled)
    flags |= PTI_ST_CANCELLED;
  pti_cap_put_status_fields (r, flags, st);
}

/* ---- scratch ---- */

/* Per thread: under MPI_THREAD_MULTIPLE, two threads may be in a wait at once. */
#define PTI_CAP_SCRATCH(fn, T, field) \
  static __thread T *field __attribute__ ((tls_model ("initial-exec"))); \
  static __thread size_t field##_cap __attribute__ ((tls_model ("initial-exec"))); \
  T *fn (size_t n) \
  { \
    if (n > field##_cap) { \
      size_t cap = n < 64 ? 64 : 2 * n; \
      T *p = realloc (field, cap * sizeof (T)); \
      if (p == NULL) { pti_cap_say ("out of memory", "", ""); abort (); } \
      field = p; \
      field##_cap = cap; \
    } \
    return field; \
  }
PTI_CAP_SCRATCH (pti_cap_scratch_reqs, MPI_Request, scratch_reqs)
PTI_CAP_SCRATCH (pti_cap_scratch_status, MPI_Status, scratch_st)
PTI_CAP_SCRATCH (pti_cap_scratch_int, int, scratch_int)

/* ---- communicators ---- */

static uint64_t
pti_cap_fnv (uint64_t h, const void *data, size_t n)
{
  const uint8_t *p = data;
  if (h == 0)
    h = 0xcbf29ce484222325u;
  while (n--)
    h = (h ^ *p++) * 0x100000001b3u;
  return h;
}

/* How many times this rank met @key before (the seq of FORMAT.md 5.2). */
static uint32_t
pti_cap_seq_next (uint64_t key)
{
  if (2 * (pti_cap.seq_n + 1) > pti_cap.seq_cap) {
    size_t cap = pti_cap.seq_cap ? 2 * pti_cap.seq_cap : 64;
    uint64_t *keys = calloc (cap, sizeof *keys);
    uint32_t *counts = calloc (cap, sizeof *counts);
    if (keys == NULL || counts == NULL) {
      pti_cap_say ("out of memory", "", "");
      abort ();
    }
    for (size_t i = 0; i < pti_cap.seq_cap; i++)
      if (pti_cap.seq_counts[i]) {
        size_t j = (size_t) (pti_cap.seq_keys[i] * 0x9E3779B97F4A7C15u >> 20) & (cap - 1);
        while (counts[j])
          j = (j + 1) & (cap - 1);
        keys[j] = pti_cap.seq_keys[i];
        counts[j] = pti_cap.seq_counts[i];
      }
    free (pti_cap.seq_keys);
    free (pti_cap.seq_counts);
    pti_cap.seq_keys = keys;
    pti_cap.seq_counts = counts;
    pti_cap.seq_cap = cap;
  }
  size_t j = (size_t) (key * 0x9E3779B97F4A7C15u >> 20) & (pti_cap.seq_cap - 1);
  while (pti_cap.seq_counts[j] && pti_cap.seq_keys[j] != key)
    j = (j + 1) & (pti_cap.seq_cap - 1);
  if (!pti_cap.seq_counts[j]) {
    pti_cap.seq_keys[j] = key;
    pti_cap.seq_n++;
  }
  return pti_cap.seq_counts[j]++;
}

/* World ranks of @comm's group (or remote group) into @out. */
static void
pti_cap_members (MPI_Comm comm, bool remote, int n, int *out)
{
  MPI_Group g;
  if ((remote ? PTI_REAL (Comm_remote_group) (comm, &g) : PTI_REAL (Comm_group) (comm, &g))
      != MPI_SUCCESS) {
    for (int i = 0; i < n; i++)
      out[i] = pti_cap.world_size;
    return;
  }
  int *ranks = malloc ((size_t) (n > 0 ? n : 1) * sizeof (int));
  if (ranks == NULL) {
    pti_cap_say ("out of memory", "", "");
    abort ();
  }
  for (int i = 0; i < n; i++)
    ranks[i] = i;
  if (n > 0 && PTI_REAL (Group_translate_ranks) (g, n, ranks, pti_cap.world_group, out) != MPI_SUCCESS)
    for (int i = 0; i < n; i++)
      out[i] = MPI_UNDEFINED;
  for (int i = 0; i < n; i++)   /* not in MPI_COMM_WORLD: FORMAT.md says "the world size" */
    if (out[i] < 0 || out[i] > pti_cap.world_size)
      out[i] = pti_cap.world_size;
  free (ranks);
  PTI_REAL (Group_free) (&g);
}

static void
pti_cap_comm_sizes (MPI_Comm comm, int *n, int *m, int *inter)
{
  *n = *m = *inter = 0;
  PTI_REAL (Comm_test_inter) (comm, inter);
  PTI_REAL (Comm_size) (comm, n);
  if (*inter)
    PTI_REAL (Comm_remote_size) (comm, m);
}

size_t
pti_cap_comm_bound (MPI_Comm comm)
{
  if (comm == MPI_COMM_NULL)
    return 2;
  int n, m, inter;
  pti_cap_comm_sizes (comm, &n, &m, &inter);
  return 32 + 10 * (size_t) (n + m);
}

/* The world ranks of @comm's group, then of its remote group, in a scratch
 * array; a/na and b/nb: the two lists, the one with the lowest first member
 * first when @canonical (an inter-communicator looks the same from both
 * sides then). */
typedef struct {
  int n, m, inter;
  const int *a, *b;
  int na, nb;
} PtiCapGroups;

static int *
pti_cap_groups (MPI_Comm comm, bool canonical, PtiCapGroups *g)
{
  pti_cap_comm_sizes (comm, &g->n, &g->m, &g->inter);
  int *mem = pti_cap_scratch_int ((size_t) (g->n + g->m) + 1);
  pti_cap_members (comm, false, g->n, mem);
  if (g->inter)
    pti_cap_members (comm, true, g->m, mem + g->n);
  g->a = mem;
  g->na = g->n;
  g->b = mem + g->n;
  g->nb = g->m;
  if (canonical && g->inter && g->m > 0 && (g->n == 0 || mem[g->n] < mem[0])) {
    g->a = mem + g->n;
    g->na = g->m;
    g->b = mem;
    g->nb = g->n;
  }
  return mem;
}

static uint64_t
pti_cap_fnv_groups (uint64_t h, const PtiCapGroups *g)
{
  h = pti_cap_fnv (h, &g->na, sizeof g->na);
  h = pti_cap_fnv (h, g->a, (size_t) g->na * sizeof (int));
  h = pti_cap_fnv (h, &g->nb, sizeof g->nb);
  return pti_cap_fnv (h, g->b, (size_t) g->nb * sizeof (int));
}

/* Writes newcomm (after its 0/1) and registers the communicator.  @seqkey
 * identifies how it was made (FORMAT.md 5.2); @canonical: order the two
 * groups of an inter-communicator so both sides hash the same. */
static void
pti_cap_comm_put_new (PtiRec *r, MPI_Comm comm, MPI_Comm group_of, uint64_t seqkey,
                      bool canonical)
{
  PtiCapGroups g;
  int *mem = pti_cap_groups (group_of, canonical, &g);
  uint32_t count = pti_cap_seq_next (seqkey);
  uint64_t key = pti_cap_fnv_groups (pti_cap_fnv (seqkey, &count, sizeof count), &g);
  if (key <= PTI_COMM_SELF_KEY)
    key += 3;
  for (int i = 0; i < 8; i++)
    *r->p++ = (uint8_t) (key >> (8 * i));
  pti_put_u (r, (uint64_t) (g.inter != 0));
  pti_cap_put_list_u64 (r, g.n, mem);
  if (g.inter)
    pti_cap_put_list_u64 (r, g.m, mem + g.n);
  PtiCapComm *e = pti_cap_commtab_insert (comm);
  e->handle = comm;
  e->id = pti_cap.next_comm++;
  e->key = key;
}

static uint64_t
pti_cap_comm_key (MPI_Comm comm)
{
  if (comm == MPI_COMM_WORLD)
    return PTI_COMM_WORLD_KEY;
  if (comm == MPI_COMM_SELF)
    return PTI_COMM_SELF_KEY;
  PtiCapComm *e = pti_cap_commtab_find (comm);
  return e != NULL ? e->key : 0;
}

uint64_t
pti_cap_comm_id (MPI_Comm comm)
{
  if (comm == MPI_COMM_WORLD)
    return PTI_COMM_WORLD_ID;
  if (comm == MPI_COMM_NULL)
    return PTI_COMM_NULL_ID;
  if (comm == MPI_COMM_SELF)
    return PTI_COMM_SELF_ID;
  pti_cap_lock ();
  PtiCapComm *e = pti_cap_commtab_find (comm);
  if (e != NULL)
    return e->id;
  /* Made by a call recorded by name only: a COMM record introduces it. */
  PtiRec r;
  pti_cap_rec_start (&r, PTI_REC_COMM, pti_cap_comm_bound (comm));
  static const char unknown[] = "unknown";
  pti_cap_comm_put_new (&r, comm, comm, pti_cap_fnv (0, unknown, sizeof unknown), false);
  pti_cap_rec_commit (&r);
  return pti_cap.next_comm - 1;
}

void
pti_cap_put_comm (PtiRec *r, uint64_t id)
{
  pti_put_u (r, id);
}

void
pti_cap_comm_created (PtiRec *r, int code, MPI_Comm parent, MPI_Comm newcomm, MPI_Comm group_of,
                      int64_t extra, bool per_group)
{
  if (newcomm == MPI_COMM_NULL) {
    pti_put_u (r, 0);
    return;
  }
  pti_put_u (r, 1);
  bool intercomm_create = code == PTI_C_Intercomm_create;
  uint64_t seqkey = pti_cap_fnv (0, &code, sizeof code);
  if (!intercomm_create) {
    uint64_t pk = pti_cap_comm_key (parent);
    seqkey = pti_cap_fnv (seqkey, &pk, sizeof pk);
  }
  seqkey = pti_cap_fnv (seqkey, &extra, sizeof extra);
  if (per_group) {   /* only the members make it: count per group, not per parent */
    PtiCapGroups g;
    pti_cap_groups (group_of, true, &g);
    seqkey = pti_cap_fnv_groups (seqkey, &g);
  }
  pti_cap_comm_put_new (r, newcomm, group_of, seqkey, intercomm_create);
}

void
pti_cap_comm_freed (MPI_Comm comm)
{
  pti_cap_lock ();
  PtiCapComm *e = pti_cap_commtab_find (comm);
  if (e != NULL)
    pti_cap_commtab_remove (e);
}

/* ---- reduction operations ---- */

uint64_t
pti_cap_op_id (MPI_Op op)
{
  static const MPI_Op *builtin[14];
  if (builtin[0] == NULL) {
    static MPI_Op ops[14];
    ops[0] = MPI_MAX; ops[1] = MPI_MIN; ops[2] = MPI_SUM; ops[3] = MPI_PROD;
    ops[4] = MPI_LAND; ops[5] = MPI_BAND; ops[6] = MPI_LOR; ops[7] = MPI_BOR;
    ops[8] = MPI_LXOR; ops[9] = MPI_BXOR; ops[10] = MPI_MAXLOC; ops[11] = MPI_MINLOC;
    ops[12] = MPI_REPLACE; ops[13] = MPI_NO_OP;
    for (int i = 0; i < 14; i++)
      builtin[i] = &ops[i];
  }
  for (int i = 0; i < 14; i++)
    if (*builtin[i] == op)
      return (uint64_t) i + 1;
  for (size_t i = 0; i < pti_cap.user_ops_n; i++)
    if (pti_cap.user_ops[i] == op)
      return PTI_OP_USER_FIRST + i;
  return 0;
}

void
pti_cap_op_created (MPI_Op op)
{
  if (pti_cap.user_ops_n == pti_cap.user_ops_cap) {
    size_t cap = pti_cap.user_ops_cap ? 2 * pti_cap.user_ops_cap : 16;
    MPI_Op *p = realloc (pti_cap.user_ops, cap * sizeof *p);
    if (p == NULL) {
      pti_cap_say ("out of memory", "", "");
      abort ();
    }
    pti_cap.user_ops = p;
    pti_cap.user_ops_cap = cap;
  }
  pti_cap.user_ops[pti_cap.user_ops_n++] = op;
}

void
pti_cap_op_freed (MPI_Op op)
{
  /* Its number stays taken (ids are never reused); the handle may come back
   * for another operation, which then gets its own number. */
  for (size_t i = 0; i < pti_cap.user_ops_n; i++)
    if (pti_cap.user_ops[i] == op)
      pti_cap.user_ops[i] = MPI_OP_NULL;
}

/* ---- generic calls ---- */

extern uint32_t pti_cap_generic_ids[];
static uint32_t pti_cap_next_name = 1;

/* The first call of a generic function: its NAME record. */
static __attribute__ ((noinline)) uint32_t
pti_cap_generic_name_new (uint32_t index)
{
  const char *name = pti_cap_generic_names[index];
  PtiRec r;
  pti_cap_rec_start (&r, PTI_REC_NAME, strlen (name) + 24);
  uint32_t id = pti_cap_next_name++;
  pti_put_u (&r, id);
  pti_cap_put_string (&r, name);
  pti_cap_rec_commit (&r);
  pti_cap_generic_ids[index] = id;
  return id;
}

uint32_t
pti_cap_generic_name (uint32_t index)
{
  uint32_t id = pti_cap_generic_ids[index];
  return PTI_CAP_LIKELY (id != 0) ? id : pti_cap_generic_name_new (index);
}

/* A generic call that the pending run of period 1 would absorb: it
 * returned MPI_SUCCESS, the run's element is a generic call (whose args,
 * the name's id, are then those of the repeat cache: every generic record
 * since hist[1] was absorbed) with no result, and the repeat cache holds
 * @id's args as pti_cap_generic writes them.  pti_cap_record,
 * pti_cap_args_end and pti_cap_run_step would encode its record and then
 * drop it into the run; this adds its timing to the run without encoding
 * it, leaving the same state. */
static inline __attribute__ ((always_inline)) bool
pti_cap_generic_absorb (PtiCall *c, uint32_t id, int rc)
{
  if (rc != MPI_SUCCESS || pti_cap.run_period != 1 || pti_cap.hist[1].code != PTI_C_generic
      || pti_cap.hist_end != pti_cap.len || pti_cap.hist[1].result_len != 0)
    return false;
  uint8_t args[16];
  PtiRec a = { .p = args };
  pti_put_u (&a, id);
  size_t n = (size_t) (a.p - args);
  if (pti_cap.rep_len[PTI_C_generic] != n + 1 || !pti_cap_same (pti_cap.rep[PTI_C_generic], args, n))
    return false;
  uint64_t t_exit = pti_cap_now ();
  if (PTI_CAP_UNLIKELY (t_exit < c->t_entry))
    t_exit = c->t_entry;
  PtiRec r = { .burst = c->t_entry - pti_cap.t_last_exit, .cpu = c->burst_cpu,
               .dur = t_exit - c->t_entry };
  pti_cap.t_last_exit = t_exit;
  pti_cap_run_absorb (0, &r);
  pti_cap_commit_end (c);
  return true;
}

void
pti_cap_generic (PtiCall *c, uint32_t index, int rc)
{
  pti_cap_lock ();
  uint32_t id = pti_cap_generic_name (index);
  if (pti_cap_generic_absorb (c, id, rc))
    return;
  PtiRec r;
  pti_cap_record (c, &r, rc, 16);
  pti_put_u (&r, id);
  pti_cap_args_end (&r);
  pti_cap_commit_rep (c, &r, true);
}

/* ---- signals ---- */

static const int pti_cap_sigs[] = { SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL, SIGTERM, SIGINT,
                                    SIGQUIT, SIGHUP, SIGPIPE, SIGXCPU, SIGUSR1, SIGUSR2 };
static struct sigaction pti_cap_old[65];

/* Encodes END plus, if the interrupted call is a generic one not yet named,
 * its NAME, into @out (at least PTI_CAP_END_ROOM + 64 bytes), without
 * touching the buffer: async-signal-safe. */
static size_t
pti_cap_end_encode (uint8_t *out, int how, int sig, int64_t errorcode)
{
  PtiRec r = { .p = out + pti_cap_repeat_encode (out) };
  int code = pti_cap.cur_code;
  uint32_t name = 0;
  if (code == PTI_C_generic) {
    uint32_t index = pti_cap.cur_name - 1;
    name = pti_cap_generic_ids[index];
    if (name == 0) {
      name = pti_cap_next_name;
      pti_put_u (&r, PTI_REC_NAME << 1);
      pti_put_u (&r, name);
      const char *s = pti_cap_generic_names[index];
      size_t n = strlen (s);
      if (n > 64)
        n = 64;
      pti_put_u (&r, n);
      memcpy (r.p, s, n);
      r.p += n;
    }
  }
  pti_put_u (&r, PTI_REC_END << 1);
  pti_put_u (&r, (uint64_t) how);
  pti_put_u (&r, pti_cap.calls + pti_cap.posix_calls);
  pti_put_u (&r, pti_cap_now () - pti_cap.t_last_exit);
  pti_put_u (&r, (uint64_t) code);
  if (code == PTI_C_generic)
    pti_put_u (&r, name);
  if (how == PTI_END_SIGNAL)
    pti_put_u (&r, (uint64_t) sig);
  if (how == PTI_END_ABORT)
    pti_put_s (&r, errorcode);
  return (size_t) (r.p - out);
}

/* Writes what is buffered and END as a block of its own, whose offset is
 * kept so that END can be taken back.  Async-signal-safe. */
static bool
pti_cap_end_now (int how, int sig, int64_t errorcode)
{
  if (pti_cap.phase != PTI_CAP_ON || pti_cap_in_handler || pti_cap.signal_end_at >= 0
      || getpid () != pti_cap.pid)
    return false;
  pti_cap_in_handler = 1;
  size_t from = pti_cap_written, to = __atomic_load_n (&pti_cap.len, __ATOMIC_ACQUIRE);
  if (to > from && pti_cap_write_block (pti_cap.buf + from, to - from))
    pti_cap_written = to;
  off_t at = lseek (pti_cap.fd, 0, SEEK_CUR);
  uint8_t end[PTI_CAP_END_ROOM + 160];
  size_t n = pti_cap_end_encode (end, how, sig, errorcode);
  if (at >= 0 && pti_cap_write_block (end, n))
    pti_cap.signal_end_at = at;
  pti_cap_in_handler = 0;
  return true;
}

static void
pti_cap_on_signal (int sig, siginfo_t *si, void *uc)
{
  int saved = errno;
  pti_cap_end_now (PTI_END_SIGNAL, sig, 0);
  struct sigaction *old = &pti_cap_old[sig];
  if (old->sa_handler == SIG_IGN) {
    errno = saved;
    return;
  }
  if (old->sa_handler == SIG_DFL) {
    /* Die as the program would have: default action, signal re-raised (it
     * is blocked until this handler returns). */
    struct sigaction dfl;
    memset (&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction (sig, &dfl, NULL);
    raise (sig);
  } else if (old->sa_flags & SA_SIGINFO)
    old->sa_sigaction (sig, si, uc);
  else
    old->sa_handler (sig);
  errno = saved;
}

/* The program went on after a signal we wrote END for: take END back. */
void
pti_cap_after_signal (void)
{
  int64_t at = pti_cap.signal_end_at;
  if (at < 0 || pti_cap.fd < 0)
    return;
  if (ftruncate (pti_cap.fd, (off_t) at) != 0 || lseek (pti_cap.fd, (off_t) at, SEEK_SET) < 0)
    pti_cap_fail_io ();
  pti_cap.signal_end_at = -1;
}

static void
pti_cap_signals_install (void)
{
  static uint8_t *altstack;
  if (altstack == NULL) {
    size_t n = 64 * 1024;
    altstack = mmap (NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (altstack != MAP_FAILED) {
      stack_t ss = { .ss_sp = altstack, .ss_size = n };
      sigaltstack (&ss, NULL);
    }
  }
  for (size_t i = 0; i < sizeof pti_cap_sigs / sizeof *pti_cap_sigs; i++) {
    int sig = pti_cap_sigs[i];
    struct sigaction old;
    if (sigaction (sig, NULL, &old) != 0 || old.sa_handler == SIG_IGN)
      continue;   /* ignored: the program goes on, and so does the trace */
    struct sigaction sa;
    memset (&sa, 0, sizeof sa);
    sa.sa_sigaction = pti_cap_on_signal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    sigemptyset (&sa.sa_mask);
    if (sigaction (sig, &sa, &pti_cap_old[sig]) == 0)
      sigaddset (&pti_cap_signals, sig);
  }
}

/* ---- Open MPI's Fortran bindings ----
 * They call PMPI_Comm_size (and PMPI_Cartdim_get) around some calls, to
 * size the arrays they convert: not calls the program made.  Those come
 * from libmpi_mpifh.so's code outside its own comm_size/cartdim_get
 * bindings, which is what pti_cap_fortran_aux tells. */

static uintptr_t pti_cap_fh_lo, pti_cap_fh_hi;
static uintptr_t pti_cap_fh_own_lo[2], pti_cap_fh_own_hi[2];

static int
pti_cap_fh_segment (struct dl_phdr_info *info, size_t size, void *data)
{
  (void) size;
  (void) data;
  if (info->dlpi_name == NULL || strstr (info->dlpi_name, "libmpi_mpifh") == NULL)
    return 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW (Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
      pti_cap_fh_lo = info->dlpi_addr + ph->p_vaddr;
      pti_cap_fh_hi = pti_cap_fh_lo + ph->p_memsz;
    }
  }
  return 1;
}

static void
pti_cap_fortran_setup (void)
{
  dl_iterate_phdr (pti_cap_fh_segment, NULL);
  static const char *const own[2] = { "ompi_comm_size_f", "ompi_cartdim_get_f" };
  for (int i = 0; pti_cap_fh_hi != 0 && i < 2; i++) {
    void *f = dlsym (RTLD_DEFAULT, own[i]);
    Dl_info di;
    const ElfW (Sym) *sym = NULL;
    if (f != NULL && dladdr1 (f, &di, (void **) &sym, RTLD_DL_SYMENT) && sym != NULL) {
      pti_cap_fh_own_lo[i] = (uintptr_t) f;
      pti_cap_fh_own_hi[i] = (uintptr_t) f + sym->st_size;
    }
  }
}

bool
pti_cap_fortran_aux (const void *return_address)
{
  uintptr_t a = (uintptr_t) return_address;
  if (a < pti_cap_fh_lo || a >= pti_cap_fh_hi)
    return false;
  for (int i = 0; i < 2; i++)
    if (a >= pti_cap_fh_own_lo[i] && a < pti_cap_fh_own_hi[i])
      return false;
  return true;
}

/* ---- HEADER, END ---- */

static void
pti_cap_cpulist (char *out, size_t size)
{
  cpu_set_t set;
  out[0] = '\0';
  if (sched_getaffinity (0, sizeof set, &set) != 0)
    return;
  size_t len = 0;
  for (int c = 0; c < CPU_SETSIZE; c++) {
    if (!CPU_ISSET (c, &set))
      continue;
    int e = c;
    while (e + 1 < CPU_SETSIZE && CPU_ISSET (e + 1, &set))
      e++;
    int w = e > c ? snprintf (out + len, size - len, "%s%d-%d", len ? "," : "", c, e)
                  : snprintf (out + len, size - len, "%s%d", len ? "," : "", c);
    if (w < 0 || (size_t) w >= size - len)
      break;
    len += (size_t) w;
    c = e;
  }
}

/* /proc/self/cmdline, at most @max bytes. */
static size_t
pti_cap_cmdline (char *buf, size_t max)
{
  int fd = open ("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  size_t n = 0;
  while (n < max) {
    ssize_t r = read (fd, buf + n, max - n);
    if (r <= 0)
      break;
    n += (size_t) r;
  }
  close (fd);
  return n;
}

/* exit() without MPI_Finalize; also exit() inside an MPI call (an error
 * handler), which is why END says the call. */
static void
pti_cap_at_exit (void)
{
  if (pti_cap.phase != PTI_CAP_ON || getpid () != pti_cap.pid)
    return;
  /* After a signal's END: the process is dying of it (a handler that
   * exits, like Open MPI's), and END says so already. */
  if (pti_cap.signal_end_at < 0)
    pti_cap_end_now (PTI_END_EXIT, 0, 0);
  pti_cap.phase = PTI_CAP_DONE;
}

/* _exit() skips atexit: Open MPI ends a process that way when an error
 * handler is fatal.  The real one is found at MPI_Init. */
static void (*pti_cap_real_exit) (int);

PTI_CAP_EXPORT void _exit (int status);
PTI_CAP_EXPORT void _Exit (int status);

void
_exit (int status)
{
  pti_cap_at_exit ();
  if (pti_cap_real_exit == NULL)
    pti_cap_real_exit = (void (*) (int)) dlsym (RTLD_NEXT, "_exit");
  if (pti_cap_real_exit != NULL)
    pti_cap_real_exit (status);
  syscall (SYS_exit_group, status);   /* not reached */
  __builtin_unreachable ();
}

void
_Exit (int status)
{
  _exit (status);
}

void
pti_cap_open (int required, int provided)
{
  int rank = 0, size = 1;
  PTI_REAL (Comm_rank) (MPI_COMM_WORLD, &rank);
  PTI_REAL (Comm_size) (MPI_COMM_WORLD, &size);
  pti_cap.world_rank = rank;
  pti_cap.world_size = size;
  pti_cap.pid = getpid ();
  pti_cap_real_exit = (void (*) (int)) dlsym (RTLD_NEXT, "_exit");
  PTI_REAL (Comm_group) (MPI_COMM_WORLD, &pti_cap.world_group);
  snprintf (pti_cap.path, sizeof pti_cap.path, "%s/rank-%d.ptc", pti_cap_dir, rank);
  pti_cap.fd = open (pti_cap.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (pti_cap.fd < 0) {
    pti_cap_say ("cannot create ", pti_cap.path, "");
    pti_cap_say ("  ", strerror (errno), "; this rank is not captured");
    pti_cap.phase = PTI_CAP_DONE;
    return;
  }
  pti_cap.thread_multiple = provided == MPI_THREAD_MULTIPLE;
  pti_cap_clock_setup ();
  pti_cap_cpu_setup ();
  pti_cap_measure_floor ();
  pti_cap_fortran_setup ();

  /* HEADER, then the records made before MPI_Init moved behind it. */
  char host[256] = "", cpus[4096], cwd[4096] = "", lib[MPI_MAX_LIBRARY_VERSION_STRING + 1] = "";
  gethostname (host, sizeof host - 1);
  pti_cap_cpulist (cpus, sizeof cpus);
  if (getcwd (cwd, sizeof cwd) == NULL)
    cwd[0] = '\0';
  int major = 0, minor = 0, liblen = 0;
  PTI_REAL (Get_version) (&major, &minor);
  PTI_REAL (Get_library_version) (lib, &liblen);
  lib[sizeof lib - 1] = '\0';
  size_t cmax = 256 * 1024;
  char *cmd = malloc (cmax + 1);
  size_t clen = cmd != NULL ? pti_cap_cmdline (cmd, cmax) : 0;
  const char *props[10][2];
  int nprops = 0;
  const char *lr = getenv ("OMPI_COMM_WORLD_LOCAL_RANK");
  const char *nr = getenv ("OMPI_COMM_WORLD_NODE_RANK");
  const char *run = getenv ("PTI_CAPTURE_RUN");
  if (run != NULL) { props[nprops][0] = "run"; props[nprops++][1] = run; }
  if (lr != NULL) { props[nprops][0] = "OMPI_COMM_WORLD_LOCAL_RANK"; props[nprops++][1] = lr; }
  if (nr != NULL) { props[nprops][0] = "OMPI_COMM_WORLD_NODE_RANK"; props[nprops++][1] = nr; }
  props[nprops][0] = "cwd"; props[nprops++][1] = cwd;
  if (pti_cap.cpu_note[0]) { props[nprops][0] = "cpu_mode_note"; props[nprops++][1] = pti_cap.cpu_note; }
  props[nprops][0] = "clock"; props[nprops++][1] = pti_cap.clock_note;
  props[nprops][0] = "dur_floor_ns"; props[nprops++][1] = pti_cap.dur_floor;

  size_t bound = 512 + sizeof host + sizeof cpus + sizeof cwd + sizeof lib + clen * 2
                 + sizeof pti_cap.cpu_note + sizeof pti_cap.clock_note + sizeof pti_cap.dur_floor;
  uint8_t *h = malloc (bound);
  if (h == NULL) {
    pti_cap_say ("out of memory", "", "");
    abort ();
  }
  PtiRec r = { .p = h };
  pti_put_u (&r, PTI_REC_HEADER << 1);
  pti_cap_put_string (&r, PTI_CAP_WRITER);
  pti_put_u (&r, (uint64_t) rank);
  pti_put_u (&r, (uint64_t) size);
  pti_put_u (&r, (uint64_t) getpid ());
  pti_cap_put_string (&r, host);
  int cpu = sched_getcpu ();
  pti_put_u (&r, cpu >= 0 ? (uint64_t) cpu + 1 : 0);
  pti_cap_put_string (&r, cpus);
  pti_put_u (&r, (uint64_t) major);
  pti_put_u (&r, (uint64_t) minor);
  pti_cap_put_string (&r, lib);
  pti_put_u (&r, (uint64_t) required);
  pti_put_u (&r, (uint64_t) provided);
  pti_put_u (&r, pti_cap.t0_realtime);
  pti_put_u (&r, (uint64_t) pti_cap.cpu_mode);
  uint64_t argc = 0;
  for (size_t i = 0; i < clen; i++)
    argc += cmd[i] == '\0';
  if (clen > 0 && cmd[clen - 1] != '\0') {   /* cut at cmax */
    cmd[clen++] = '\0';
    argc++;
  }
  pti_put_u (&r, argc);
  for (size_t i = 0; i < clen; i += strlen (cmd + i) + 1)
    pti_cap_put_string (&r, cmd + i);
  pti_put_u (&r, (uint64_t) nprops);
  for (int i = 0; i < nprops; i++) {
    pti_cap_put_string (&r, props[i][0]);
    pti_cap_put_string (&r, props[i][1]);
  }
  size_t hlen = (size_t) (r.p - h);
  free (cmd);

  if (write (pti_cap.fd, PTI_CAPTURE_MAGIC, PTI_CAPTURE_MAGIC_LEN) != PTI_CAPTURE_MAGIC_LEN
      || write (pti_cap.fd, (const uint8_t[]) { PTI_CAPTURE_MAJOR, PTI_CAPTURE_MINOR }, 2) != 2) {
    free (h);
    pti_cap_fail_io ();
    return;
  }
  pti_cap_reserve (hlen);
  memmove (pti_cap.buf + hlen, pti_cap.buf, pti_cap.len);
  memcpy (pti_cap.buf, h, hlen);
  pti_cap.len += hlen;
  free (h);

  pti_cap.phase = PTI_CAP_ON;
  pti_cap_signals_install ();
  atexit (pti_cap_at_exit);
  pti_cap_posix_start (pti_cap_dir);
}

/* After the last call record (MPI_Finalize, MPI_Abort): END, flush, close. */
void
pti_cap_end (int how, int64_t errorcode)
{
  if (pti_cap.phase != PTI_CAP_ON)
    return;
  /* END in a block of its own (what is buffered is written first), so that
   * pticapture can check the file by its blocks without decoding it
   * (pti_capture_rank_sealed) */
  pti_cap_flush ();
  pti_cap_reserve (PTI_CAP_END_ROOM + 160);
  pti_cap.cur_code = 0;
  size_t n = pti_cap_end_encode (pti_cap.buf + pti_cap.len, how, 0, errorcode);
  pti_cap_hist_clear ();
  __atomic_store_n (&pti_cap.len, pti_cap.len + n, __ATOMIC_RELEASE);
  pti_cap_flush ();
  if (pti_cap.fd >= 0 && close (pti_cap.fd) != 0)
    pti_cap_say ("cannot write ", pti_cap.path, "");
  pti_cap.fd = -1;
  pti_cap.phase = PTI_CAP_DONE;
}

/* ---- regions (region-hooks.h; FORMAT.md 6.8) ---- */

static int
pti_cap_region_rank (void)
{
  return pti_cap.phase == PTI_CAP_ON || pti_cap.phase == PTI_CAP_DONE ? pti_cap.world_rank : -1;
}

/* A region record may be written now: the capture is on (or buffering
 * before MPI_Init) and no MPI call of this thread is being recorded. */
static bool
pti_cap_region_start (PtiRec *r, int code, size_t bound)
{
  if ((pti_cap.phase != PTI_CAP_ON && pti_cap.phase != PTI_CAP_PRE) || pti_cap_depth)
    return false;
  pti_cap_lock ();
  pti_cap_rec_start (r, code, bound);
  return true;
}

static void
pti_cap_region_commit (PtiRec *r)
{
  pti_cap_rec_commit (r);
  if (PTI_CAP_UNLIKELY (pti_cap.len >= PTI_CAPTURE_BLOCK_FILL))
    pti_cap_commit_slow ();
  if (PTI_CAP_UNLIKELY (pti_cap_locked))
    pti_cap_unlock_slow ();
}

static void
pti_put_f64 (PtiRec *r, double v)
{
  uint64_t b;
  memcpy (&b, &v, sizeof b);
  for (int i = 0; i < 8; i++)
    *r->p++ = (uint8_t) (b >> (8 * i));
}

static void
pti_cap_region_define (int kind, uint32_t id, const char *name, const char *extra, uint32_t region)
{
  PtiRec r;
  size_t n = strlen (name) + (extra ? strlen (extra) : 0);
  if (n > PTI_CAPTURE_STRING_MAX || !pti_cap_region_start (&r, PTI_REC_DEFINE, n + 40))
    return;
  pti_put_u (&r, (uint64_t) kind);
  pti_put_u (&r, id);
  pti_cap_put_string (&r, name);
  if (kind == PTI_DEF_ASSERTION) {
    pti_put_u (&r, region);
    pti_cap_put_string (&r, extra);
  }
  pti_cap_region_commit (&r);
}

static void
pti_cap_region_begin (uint32_t region, uint64_t t)
{
  PtiRec r;
  if (!pti_cap_region_start (&r, PTI_REC_REGION, 32))
    return;
  pti_put_u (&r, 0);
  pti_put_u (&r, region);
  pti_put_u (&r, t < pti_cap.t_last_exit ? pti_cap.t_last_exit : t);
  pti_cap_region_commit (&r);
}

static void
pti_cap_region_end (uint32_t region, uint64_t t, uint64_t calls, uint64_t messages, uint64_t bytes)
{
  PtiRec r;
  if (!pti_cap_region_start (&r, PTI_REC_REGION, 64))
    return;
  pti_put_u (&r, 1);
  pti_put_u (&r, region);
  pti_put_u (&r, t < pti_cap.t_last_exit ? pti_cap.t_last_exit : t);
  pti_put_u (&r, calls);
  pti_put_u (&r, messages);
  pti_put_u (&r, bytes);
  pti_cap_region_commit (&r);
}

static void
pti_cap_region_count (uint32_t region, uint32_t counter, double value)
{
  PtiRec r;
  if (!pti_cap_region_start (&r, PTI_REC_COUNT, 32))
    return;
  pti_put_u (&r, region);
  pti_put_u (&r, counter);
  pti_put_f64 (&r, value);
  pti_cap_region_commit (&r);
}

static void
pti_cap_region_check (uint32_t assertion, int passed, int n, const double *values)
{
  PtiRec r;
  if (n < 0 || n > 64 || !pti_cap_region_start (&r, PTI_REC_CHECK, 32 + 8 * (size_t) n))
    return;
  pti_put_u (&r, assertion);
  pti_put_u (&r, passed != 0);
  pti_put_u (&r, (uint64_t) n);
  for (int i = 0; i < n; i++)
    pti_put_f64 (&r, values[i]);
  pti_cap_region_commit (&r);
}

static void
pti_cap_region_param (const char *name, double value)
{
  PtiRec r;
  size_t n = strlen (name);
  if (n > PTI_CAPTURE_STRING_MAX || !pti_cap_region_start (&r, PTI_REC_PARAM, n + 32))
    return;
  pti_cap_put_string (&r, name);
  pti_put_f64 (&r, value);
  pti_cap_region_commit (&r);
}

static const PtiCaptureRegionHooks pti_cap_region_hooks_table = {
  .version = PTI_CAPTURE_REGION_HOOKS_VERSION,
  .calls = &pti_cap.calls,
  .messages = &pti_cap.msgs_sent,
  .bytes = &pti_cap.bytes_sent,
  .rank = pti_cap_region_rank,
  .now = pti_cap_now,
  .define = pti_cap_region_define,
  .begin = pti_cap_region_begin,
  .end = pti_cap_region_end,
  .count = pti_cap_region_count,
  .check = pti_cap_region_check,
  .param = pti_cap_region_param,
};

PTI_CAP_EXPORT const PtiCaptureRegionHooks *pti_capture_region_hooks (void);

const PtiCaptureRegionHooks *
pti_capture_region_hooks (void)
{
  return &pti_cap_region_hooks_table;
}
