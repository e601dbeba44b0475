/* pticalibrate's MPI probe: point-to-point figures of the MPI library
 * between two ranks, from real messages.  Written out and built with the
 * host's mpicc, run with mpirun -np 2.  C17 + MPI + POSIX.
 *
 *   mpi-probe --sizes B1,B2,... [--reps N] [--target-ms MS] [--samples N] [--budget-s S]
 *             [--write 0|1]
 *   mpi-probe --comm N
 *
 * Rank 0 prints key=value lines (times in ns, medians with quartiles and
 * extremes; each figure is explained where it is measured):
 *   library text=...                 MPI_Get_library_version, first line
 *   bind rank=R cpus=LIST now=C      the CPUs a rank may run on, and where it runs
 *   pp bytes=N t=.. ..               one-way time, half a ping-pong round trip
 *   xch bytes=N t=.. ..              time of an exchange: both ranks send N bytes to
 *                                    each other at once (MPI_Sendrecv), per exchange
 *   x2 bytes=N t=.. ..               two messages each way at once (2 MPI_Isend,
 *                                    2 MPI_Irecv, MPI_Waitall), per round
 *   os bytes=N t=.. ..               time in MPI_Send, the receive posted early
 *   or bytes=N t=.. ..               time in MPI_Recv, the message already there
 *   eager bytes=E next=E+1           the largest payload sent eagerly
 *   gap t=.. ..                      time per message of back-to-back 8-byte sends
 *   noise preempted=.. dirty=..      ping-pong samples taken again (see pingpong)
 *   write of=pp|xch|x2 bytes=N t=..  the senders' writes of their buffers per round (the
 *                                    time taken out of the figure of that name)
 * With --comm, only what making and freeing a communicator and a
 * collective function's first call cost (measure_comm, measure_first_calls):
 *   comm first=.. first_topology=.. later=.. allreduce=.. free_first=.. free_later=.. n=N
 *   coll name=F first=.. later=..    one collective function's first call and later ones
 *   colls any=.. first=..            the process's first collective (a barrier) less a
 *                                    later one; the median over the others of first
 *                                    less later
 * The send and receive times are measured up to 64 KiB (OVERHEAD_MAX):
 * beyond the eager limit they hold the whole protocol, not an overhead.
 *
 * Written buffers (the default; --write 0: clean ones, to compare).  A
 * program writes its send buffer just before sending it (it packs halo
 * cells or ghost atoms, or computes the values in place), so the
 * receiver's copy reads lines the sender's core has just modified, which
 * costs more than reading a buffer sent unchanged a thousand times
 * (capture/README.md, "Where melt's exchanges go").  So the sender stores
 * to every word of its send buffer before each message, inside the timed
 * rounds, as the program does, and the stores' own time is measured
 * around them and taken out of the round: a capture records the writing
 * as the program's computation (a burst between two MPI calls), so only
 * what the message costs beyond it belongs to the network's figures.
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe-stats.h"

static void
print_stats (const char *what, long bytes, Stats s, int n)
{
  if (bytes >= 0)
    printf ("%s bytes=%ld", what, bytes);
  else
    printf ("%s", what);
  printf (" t=%.6g q1=%.6g q3=%.6g min=%.6g max=%.6g samples=%d\n", s.med, s.q1, s.q3, s.min,
          s.max, n);
}

static double
now_ns (void)
{
  return MPI_Wtime () * 1e9;
}

static void
spin_ns (double ns)
{
  double t0 = now_ns ();
  while (now_ns () - t0 < ns)
    ;
}

#define OVERHEAD_MAX 65536

static int me;
static char *sbuf, *rbuf;
static int reps = 11, samples = 101;
static double target_ns = 2e6;

static long preempted, dirty;

/* Whether senders write their buffers before each message (write_send),
 * and this rank's time spent writing in the current timed rounds. */
static int write_buffers = 1;
static double write_ns, clock_ns;

/* Store to every word of the @bytes of @buf about to be sent, with values
 * that change from one message to the next, as a program packing its data
 * does: every line becomes modified in this core's cache.  Ordinary
 * stores (a loop, not memset, whose large sizes may bypass the cache as
 * a program's loop does not); timed into write_ns.  Reading the clock
 * twice costs about two clock reads of wall time, of which the interval
 * holds one: the other (clock_ns, measure_clock) is added, so that the
 * timing's own cost is not left in the message's figure. */
static void
write_send (char *buf, long bytes)
{
  static unsigned long long v;
  if (!write_buffers)
    return;
  double t0 = now_ns ();
  unsigned long long *w = (unsigned long long *) (void *) buf;
  long words = bytes / 8;
  v++;
  for (long i = 0; i < words; i++)
    w[i] = v + (unsigned long long) i;
  for (long i = words * 8; i < bytes; i++)
    buf[i] = (char) v;
  write_ns += now_ns () - t0 + clock_ns;
}

/* The time between two back-to-back reads of the clock: median of 101. */
static void
measure_clock (void)
{
  double v[101];
  for (int i = 0; i < 101; i++) {
    double t0 = now_ns ();
    v[i] = now_ns () - t0;
  }
  clock_ns = probe_stats (v, 101).med;
}

/* What a timed round is: a ping-pong round trip, an exchange (both ranks
 * send at once), or two messages each way at once. */
typedef enum { ROUND_PINGPONG, ROUND_EXCHANGE, ROUND_TWO_EACH_WAY } Round;

static void
one_round (Round kind, long bytes)
{
  int other = 1 - me;
  if (kind == ROUND_PINGPONG) {
    if (me == 0) {
      write_send (sbuf, bytes);
      MPI_Send (sbuf, (int) bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
      MPI_Recv (rbuf, (int) bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv (rbuf, (int) bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      write_send (sbuf, bytes);
      MPI_Send (sbuf, (int) bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
    }
  } else if (kind == ROUND_EXCHANGE) {
    write_send (sbuf, bytes);
    MPI_Sendrecv (sbuf, (int) bytes, MPI_BYTE, other, 11, rbuf, (int) bytes, MPI_BYTE, other,
                  11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    /* the second message's buffers follow the first's (both allocated for it) */
    MPI_Request rq[4];
    write_send (sbuf, 2 * bytes);
    MPI_Irecv (rbuf, (int) bytes, MPI_BYTE, other, 12, MPI_COMM_WORLD, &rq[0]);
    MPI_Irecv (rbuf + bytes, (int) bytes, MPI_BYTE, other, 13, MPI_COMM_WORLD, &rq[1]);
    MPI_Isend (sbuf, (int) bytes, MPI_BYTE, other, 12, MPI_COMM_WORLD, &rq[2]);
    MPI_Isend (sbuf + bytes, (int) bytes, MPI_BYTE, other, 13, MPI_COMM_WORLD, &rq[3]);
    MPI_Waitall (4, rq, MPI_STATUSES_IGNORE);
  }
}

/* The time of one round of @kind with @bytes, averaged over @k rounds
 * (a ping-pong's: half the round trip, the one-way time), less the
 * senders' writes (write_send), into *@write the writes' time per round.
 * Rank 0's clock times the rounds: a ping-pong's round trip holds both
 * ranks' writes, one after the other; in an exchange the ranks write at
 * the same time, so a round holds one write, the two ranks' mean.  Both ranks
 * poll, so each has the CPU all the time unless another process takes it:
 * a sample where either rank was disturbed (PROBE_CLEAN) is taken again
 * (PROBE_TRIES, while the budget lasts; then kept as it is; "preempted"
 * and "dirty" count). */
static double
timed_rounds (Round kind, long bytes, int k, double *write)
{
  double t, written;
  for (int tries = 0;; tries++) {
    write_ns = 0;
    MPI_Barrier (MPI_COMM_WORLD);
    double c0 = probe_clock_ns (CLOCK_THREAD_CPUTIME_ID), t0 = now_ns ();
    for (int i = 0; i < k; i++)
      one_round (kind, bytes);
    t = now_ns () - t0;
    int clean = probe_clock_ns (CLOCK_THREAD_CPUTIME_ID) - c0 >= PROBE_CLEAN * t, all;
    MPI_Allreduce (&clean, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    MPI_Allreduce (&write_ns, &written, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (all)
      break;
    int retry = probe_may_retry (tries);   /* rank 0 decides for both */
    MPI_Bcast (&retry, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!retry) {
      dirty++;
      break;
    }
    preempted++;
  }
  if (kind != ROUND_PINGPONG)
    written /= 2;
  if (write != NULL)
    *write = written / k;
  return (t - written) / ((kind == ROUND_PINGPONG ? 2.0 : 1.0) * k);
}

/* How many samples to take: @normal, or @fewest once the time budget is
 * spent (rank 0's clock decides for both ranks). */
static int
agreed_count (int normal, int fewest)
{
  int n = probe_may_retry (0) ? normal : (normal < fewest ? normal : fewest);
  MPI_Bcast (&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return n;
}

static void
measure_rounds (Round kind, long bytes)
{
  static const char *const name[] = { "pp", "xch", "x2" };
  timed_rounds (kind, bytes, 4, NULL);   /* warm-up: buffers, connection, protocol */
  /* rounds per sample: enough for target_ns (rank 0 decides) */
  double w, one = timed_rounds (kind, bytes, 8, &w) * (kind == ROUND_PINGPONG ? 2 : 1) + w;
  int k = (int) (target_ns / (one > 1 ? one : 1)) + 1;
  MPI_Bcast (&k, 1, MPI_INT, 0, MPI_COMM_WORLD);
  int n = agreed_count (reps, 3);
  double *v = malloc (2 * (size_t) n * sizeof *v);
  for (int r = 0; r < n; r++)
    v[r] = timed_rounds (kind, bytes, k, &v[n + r]);
  if (me == 0) {
    print_stats (name[kind], bytes, probe_stats (v, n), n);
    if (write_buffers) {
      char what[16];
      snprintf (what, sizeof what, "write of=%s", name[kind]);
      print_stats (what, bytes, probe_stats (v + n, n), n);
    }
  }
  free (v);
}

/* The time rank 0 spends in MPI_Send, rank 1's receive posted beforehand. */
static void
measure_send (long bytes)
{
  int n = agreed_count (samples, 11);
  double *v = malloc ((size_t) n * sizeof *v);
  for (int s = -2; s < n; s++) {
    if (me == 0) {
      MPI_Recv (NULL, 0, MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      write_send (sbuf, bytes);
      double t0 = now_ns ();
      MPI_Send (sbuf, (int) bytes, MPI_BYTE, 1, 3, MPI_COMM_WORLD);
      if (s >= 0)
        v[s] = now_ns () - t0;
      MPI_Recv (NULL, 0, MPI_BYTE, 1, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Request rq;
      MPI_Irecv (rbuf, (int) bytes, MPI_BYTE, 0, 3, MPI_COMM_WORLD, &rq);
      MPI_Send (NULL, 0, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
      MPI_Wait (&rq, MPI_STATUS_IGNORE);
      MPI_Send (NULL, 0, MPI_BYTE, 0, 4, MPI_COMM_WORLD);
    }
  }
  if (me == 0)
    print_stats ("os", bytes, probe_stats (v, n), n);
  free (v);
}

/* The time rank 1 spends in MPI_Recv once the message has had time to
 * arrive (it waits @delay_ns after asking for it). */
static void
measure_recv (long bytes, double delay_ns)
{
  int n = agreed_count (samples, 11);
  double *v = malloc ((size_t) n * sizeof *v);
  for (int s = -2; s < n; s++) {
    if (me == 1) {
      MPI_Send (NULL, 0, MPI_BYTE, 0, 5, MPI_COMM_WORLD);
      spin_ns (delay_ns);
      double t0 = now_ns ();
      MPI_Recv (rbuf, (int) bytes, MPI_BYTE, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      double t = now_ns () - t0;
      if (s >= 0)
        v[s] = t;
    } else {
      MPI_Recv (NULL, 0, MPI_BYTE, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      write_send (sbuf, bytes);
      MPI_Send (sbuf, (int) bytes, MPI_BYTE, 1, 6, MPI_COMM_WORLD);
    }
  }
  if (me == 1)
    MPI_Send (v, n, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD);
  else {
    MPI_Recv (v, n, MPI_DOUBLE, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    print_stats ("or", bytes, probe_stats (v, n), n);
  }
  free (v);
}

/* Whether a send of @bytes returns before its receive is posted: rank 1
 * posts it @delay_ns after both have synchronised.  Eager: the send takes
 * microseconds; rendezvous: it waits the delay out.  Median of 5. */
static int
sends_eagerly (long bytes, double delay_ns)
{
  double v[5];
  for (int s = 0; s < 5; s++) {
    MPI_Barrier (MPI_COMM_WORLD);
    if (me == 0) {
      double t0 = now_ns ();
      MPI_Send (sbuf, (int) bytes, MPI_BYTE, 1, 8, MPI_COMM_WORLD);
      v[s] = now_ns () - t0;
    } else {
      spin_ns (delay_ns);
      MPI_Recv (rbuf, (int) bytes, MPI_BYTE, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  }
  int eager = 0;
  if (me == 0) {
    qsort (v, 5, sizeof *v, probe_cmp_double);
    eager = v[2] < delay_ns / 2;
  }
  MPI_Bcast (&eager, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return eager;
}

static void
measure_eager_limit (long max_bytes)
{
  const double delay = 300e3;   /* 300 us: far above any eager send here */
  long lo = 0, hi = -1;         /* lo: sent eagerly; hi: not */
  for (long b = 1; b <= max_bytes; b *= 2) {
    if (sends_eagerly (b, delay))
      lo = b;
    else {
      hi = b;
      break;
    }
  }
  if (hi < 0) {
    if (me == 0)
      printf ("eager bytes=%ld next=-1\n", lo);
    return;
  }
  while (hi - lo > 1) {
    long mid = lo + (hi - lo) / 2;
    if (sends_eagerly (mid, delay))
      lo = mid;
    else
      hi = mid;
  }
  if (me == 0)
    printf ("eager bytes=%ld next=%ld\n", lo, hi);
}

/* LogGP's g: rank 0 sends 64 8-byte messages back to back into receives
 * rank 1 posted beforehand; the time per message. */
static void
measure_gap (void)
{
  enum { K = 64 };
  MPI_Request rq[K];
  double *v = malloc ((size_t) reps * sizeof *v);
  for (int r = -1; r < reps; r++) {
    if (me == 1)
      for (int i = 0; i < K; i++)
        MPI_Irecv (rbuf + 8 * i, 8, MPI_BYTE, 0, 9, MPI_COMM_WORLD, &rq[i]);
    MPI_Barrier (MPI_COMM_WORLD);
    if (me == 0) {
      double t0 = now_ns ();
      for (int i = 0; i < K; i++)
        MPI_Send (sbuf + 8 * i, 8, MPI_BYTE, 1, 9, MPI_COMM_WORLD);
      if (r >= 0)
        v[r] = (now_ns () - t0) / K;
    } else
      MPI_Waitall (K, rq, MPI_STATUSES_IGNORE);
  }
  if (me == 0)
    print_stats ("gap", -1, probe_stats (v, reps), reps);
  free (v);
}

/* What making a communicator costs, on both ranks at once after a
 * barrier: the process's first MPI_Comm_dup of the world, its first
 * MPI_Cart_create (1-D, periodic, not reordered: what a code asking for a
 * grid makes), then @n more of each, alternating, each freed; and @n
 * allreduces of one int (after one not timed), the messages of which three
 * agree on each communicator's context id in Open MPI (the rest is the
 * library's own set-up).  Each figure is the mean of the two ranks' times;
 * "later" the median over the 2n later creations, "allreduce" the median.
 * Each MPI_Comm_free is timed too: the process's first, and the median of
 * the later ones.  A process has one first of each kind: pticalibrate runs
 * this several times. */
static void
measure_comm (int n)
{
  double *later = malloc (2 * (size_t) n * sizeof *later);
  double *freed = malloc (2 * (size_t) n * sizeof *freed);
  double *ar = malloc ((size_t) n * sizeof *ar);
  double first = 0, first_topology = 0, free_first = 0;
  int np = 2, periodic = 1;
  for (int i = -2; i < 2 * n; i++) {
    MPI_Comm c;
    int topology = i == -1 || (i >= 0 && i % 2 == 1);
    MPI_Barrier (MPI_COMM_WORLD);
    double t0 = now_ns ();
    if (topology)
      MPI_Cart_create (MPI_COMM_WORLD, 1, &np, &periodic, 0, &c);
    else
      MPI_Comm_dup (MPI_COMM_WORLD, &c);
    double t = now_ns () - t0, sum;
    MPI_Barrier (MPI_COMM_WORLD);
    double f0 = now_ns ();
    MPI_Comm_free (&c);
    double f = now_ns () - f0, fsum;
    MPI_Allreduce (&t, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce (&f, &fsum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (i == -2) {
      first = sum / 2;
      free_first = fsum / 2;
    } else if (i == -1)
      first_topology = sum / 2;
    else
      later[i] = sum / 2;
    if (i >= 0)
      freed[i] = fsum / 2;
  }
  int one = 1, max;
  MPI_Allreduce (&one, &max, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  for (int i = 0; i < n; i++) {
    MPI_Barrier (MPI_COMM_WORLD);
    double t0 = now_ns ();
    MPI_Allreduce (&one, &max, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    double t = now_ns () - t0, sum;
    MPI_Allreduce (&t, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    ar[i] = sum / 2;
  }
  if (me == 0)
    printf ("comm first=%.6g first_topology=%.6g later=%.6g allreduce=%.6g free_first=%.6g "
            "free_later=%.6g n=%d\n", first, first_topology, probe_stats (later, 2 * n).med,
            probe_stats (ar, n).med, free_first, probe_stats (freed, 2 * n).med, n);
  free (later);
  free (freed);
  free (ar);
}

/* A collective function's first call in the process against its later
 * ones: run before anything else collective.  The ranks meet by a
 * ping-pong (point to point: no collective code run), then the first
 * MPI_Barrier, the process's first collective, is timed; then, each after
 * a barrier, the first call of allreduce, bcast, reduce, scan, allgather,
 * gather and alltoall (one int) and @n more of each (their median).  The
 * times are kept on each rank and combined at the end, so that no
 * function runs before its first call is timed; each figure the two
 * ranks' mean.  "any" is the first barrier less a later one; "first" the
 * median over the seven functions of first less later: a function's
 * first call runs the library's code for it the first time, on any
 * communicator (a first call on a new communicator costs what later ones
 * do). */
static void
measure_first_calls (int n)
{
  enum { BARRIER, ALLREDUCE, BCAST, REDUCE, SCAN, ALLGATHER, GATHER, ALLTOALL, KINDS };
  static const char *const names[KINDS] = { "barrier", "allreduce", "bcast", "reduce", "scan",
                                            "allgather", "gather", "alltoall" };
  int in[2] = { 1, 1 }, out[4], other = 1 - me;
  size_t per = (size_t) n + 1;
  double *t = malloc (KINDS * per * sizeof *t), *sum = malloc (KINDS * per * sizeof *sum);
  if (me == 0) {
    MPI_Send (NULL, 0, MPI_BYTE, other, 11, MPI_COMM_WORLD);
    MPI_Recv (NULL, 0, MPI_BYTE, other, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv (NULL, 0, MPI_BYTE, other, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send (NULL, 0, MPI_BYTE, other, 11, MPI_COMM_WORLD);
  }
  for (int k = 0; k < KINDS; k++)
    for (size_t i = 0; i < per; i++) {
      if (k > 0 || i > 0)
        MPI_Barrier (MPI_COMM_WORLD);
      double t0 = now_ns ();
      switch (k) {
      case BARRIER: MPI_Barrier (MPI_COMM_WORLD); break;
      case ALLREDUCE: MPI_Allreduce (in, out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); break;
      case BCAST: MPI_Bcast (in, 1, MPI_INT, 0, MPI_COMM_WORLD); break;
      case REDUCE: MPI_Reduce (in, out, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD); break;
      case SCAN: MPI_Scan (in, out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); break;
      case ALLGATHER: MPI_Allgather (in, 1, MPI_INT, out, 1, MPI_INT, MPI_COMM_WORLD); break;
      case GATHER: MPI_Gather (in, 1, MPI_INT, out, 1, MPI_INT, 0, MPI_COMM_WORLD); break;
      default: MPI_Alltoall (in, 1, MPI_INT, out, 1, MPI_INT, MPI_COMM_WORLD); break;
      }
      t[k * per + i] = now_ns () - t0;
    }
  MPI_Allreduce (t, sum, (int) (KINDS * per), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  double extra[KINDS], any = 0;
  for (int k = 0; k < KINDS; k++) {
    double *v = sum + k * per, first = v[0] / 2;
    for (size_t i = 1; i < per; i++)
      v[i] /= 2;
    double later = probe_stats (v + 1, n).med;
    extra[k] = first - later;
    if (k == BARRIER)
      any = extra[k];
    if (me == 0)
      printf ("coll name=%s first=%.6g later=%.6g\n", names[k], first, later);
  }
  if (me == 0)
    printf ("colls any=%.6g first=%.6g\n", any, probe_stats (extra + 1, KINDS - 1).med);
  free (t);
  free (sum);
}

static void
print_binding (void)
{
  cpu_set_t set;
  char list[1024] = "";
  if (sched_getaffinity (0, sizeof set, &set) == 0)
    for (int c = 0, len = 0; c < CPU_SETSIZE && len < (int) sizeof list - 16; c++)
      if (CPU_ISSET (c, &set))
        len += snprintf (list + len, sizeof list - (size_t) len, "%s%d", len ? "," : "", c);
  char line[1100];
  snprintf (line, sizeof line, "bind rank=%d cpus=%s now=%d", me, list, sched_getcpu ());
  if (me == 0) {
    printf ("%s\n", line);
    MPI_Recv (line, (int) sizeof line, MPI_CHAR, 1, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf ("%s\n", line);
  } else
    MPI_Send (line, (int) sizeof line, MPI_CHAR, 0, 10, MPI_COMM_WORLD);
}

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  int np;
  MPI_Comm_rank (MPI_COMM_WORLD, &me);
  MPI_Comm_size (MPI_COMM_WORLD, &np);
  const char *sizes = NULL;
  int comm = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp (argv[i], "--sizes") == 0)
      sizes = argv[i + 1];
    else if (strcmp (argv[i], "--comm") == 0)
      comm = atoi (argv[i + 1]);
    else if (strcmp (argv[i], "--reps") == 0)
      reps = atoi (argv[i + 1]);
    else if (strcmp (argv[i], "--samples") == 0)
      samples = atoi (argv[i + 1]);
    else if (strcmp (argv[i], "--target-ms") == 0)
      target_ns = atof (argv[i + 1]) * 1e6;
    else if (strcmp (argv[i], "--budget-s") == 0)
      probe_set_budget (atof (argv[i + 1]));
    else if (strcmp (argv[i], "--write") == 0)
      write_buffers = atoi (argv[i + 1]) != 0;
  }
  if (np == 2 && comm > 0) {
    measure_first_calls (comm);
    measure_comm (comm);
    MPI_Finalize ();
    return 0;
  }
  if (np != 2 || sizes == NULL || reps < 1 || samples < 1 || !(target_ns > 0)) {
    if (me == 0)
      fprintf (stderr, "usage: mpirun -np 2 %s --sizes B1,B2,... [--reps N] [--samples N] "
               "[--target-ms MS], or --comm N (got %d ranks)\n", argv[0], np);
    MPI_Finalize ();
    return 2;
  }
  long max_bytes = 0;
  long list[256];
  int n = 0;
  char *copy = strdup (sizes);
  for (char *save = NULL, *tok = strtok_r (copy, ",", &save); tok != NULL && n < 256;
       tok = strtok_r (NULL, ",", &save)) {
    list[n] = atol (tok);
    if (list[n] < 0 || list[n] > (1L << 30)) {
      if (me == 0)
        fprintf (stderr, "mpi-probe: size %s out of range\n", tok);
      MPI_Finalize ();
      return 2;
    }
    if (list[n] > max_bytes)
      max_bytes = list[n];
    n++;
  }
  free (copy);
  /* two messages' room (ROUND_TWO_EACH_WAY), written once so that no
   * round meets a page for the first time */
  sbuf = calloc (2 * (size_t) max_bytes + 1024, 1);
  rbuf = calloc (2 * (size_t) max_bytes + 1024, 1);
  memset (sbuf, 1, 2 * (size_t) max_bytes + 1024);
  memset (rbuf, 1, 2 * (size_t) max_bytes + 1024);

  if (me == 0) {
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version (version, &len);
    version[strcspn (version, "\n,")] = '\0';
    printf ("library text=%s\n", version);
  }
  print_binding ();
  measure_clock ();
  for (int i = 0; i < n; i++)
    measure_rounds (ROUND_PINGPONG, list[i]);
  /* messages in flight at once, for net-node's share of the node: both
   * ranks sending at once, and two messages each way */
  for (int i = 0; i < n; i++)
    if (list[i] > 0)
      measure_rounds (ROUND_EXCHANGE, list[i]);
  for (int i = 0; i < n; i++)
    if (list[i] > 0)
      measure_rounds (ROUND_TWO_EACH_WAY, list[i]);
  for (int i = 0; i < n; i++)
    if (list[i] <= OVERHEAD_MAX)
      measure_send (list[i]);
  /* 20 us, and 2 ns a byte (500 MB/s, slower than any copy here): time
   * enough for the message to arrive before the receive is called. */
  for (int i = 0; i < n; i++)
    if (list[i] <= OVERHEAD_MAX)
      measure_recv (list[i], 20e3 + 2.0 * (double) list[i]);
  measure_eager_limit (max_bytes < 1024 ? 1024 : max_bytes);
  measure_gap ();
  if (me == 0)
    printf ("noise preempted=%ld dirty=%ld\n", preempted, dirty);
  MPI_Finalize ();
  return 0;
}
