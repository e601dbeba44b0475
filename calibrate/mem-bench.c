/* pticalibrate's memory probe: a MAPS-like machine profile (seed 002,
 * Snavely et al.), bandwidth and latency by working-set size and access
 * pattern.  Written out and compiled on the host being calibrated, at -O2
 * without vectorisation (8-byte scalar loads, as the cpu-clc RUDs count
 * them).  Plain C17 + POSIX.
 *
 *   mem-bench --sizes B1,B2,... [--patterns unit,strided:512,random,runs:512,transpose:512,write]
 *             [--reps N] [--target-ms MS] [--procs P] [--budget-s S]
 *
 * One line per pattern and size, key=value (bandwidth in bytes/s of data
 * the program asked for, 8 bytes per access; latency in ns per access;
 * stride is the run of runs; streams those of this size, streams_max the
 * pattern's):
 *   mem pattern=unit stride=8 streams=1 streams_max=1 procs=1 bytes=4096 bw=.. bw_q1=.. bw_q3=..
 *       bw_min=.. bw_max=.. lat=.. lat_q1=.. lat_q3=.. lat_min=.. lat_max=.. reps=..
 *
 * Patterns:
 *   unit       bandwidth: sum of every 8-byte word, 8 independent sums;
 *              latency: a pointer chase through consecutive 64-byte lines;
 *   strided:S  bandwidth: one 8-byte word every S bytes; latency: a chase
 *              visiting lines S bytes apart (then the next offset);
 *   random     bandwidth: sum of words at random indices (read from an index
 *              array, as a sparse matrix-vector product reads x(col(k)));
 *              latency: a chase through a random cyclic permutation of the
 *              lines (Sattolo's algorithm), so each load waits for the last;
 *   runs:R     bandwidth: RUNS_STREAMS sequential streams read in turn, R
 *              bytes of each before the next (every word, 8 independent
 *              sums): a loop nest that walks many arrays or planes a short
 *              run at a time, as a wavefront sweep reads its I-lines, too
 *              many streams for the hardware prefetcher to follow; a working
 *              set too small for 2 runs a stream has fewer streams;
 *              latency: a chase through the lines in the same order;
 *   transpose:R  bandwidth: a blocked transpose-add of two square matrices
 *              of the working set, C(j, i) += A(i, j), A's columns read down
 *              R bytes at a time (bw_transpose: a distributed transpose's
 *              local part and pack); 16 bytes an element (A's word, C's
 *              word read and stored over); no latency (lat=nan);
 *   write      bandwidth: a store to every 8-byte word, in order, of lines the
 *              loop does not read (each line is read for ownership, then
 *              written back: what a loop's writes cost, STREAM's copy
 *              without its reads); bytes written per second; no latency
 *              (lat=nan: nothing waits for a store).
 *
 * Each sample runs for at least --target-ms; the figure is the median of
 * --reps samples.  A sample during which another process took the CPU
 * (thread CPU time under 97% of the wall time) is taken again, up to
 * PROBE_TRIES times while the budget (--budget-s) lasts; one never
 * undisturbed is counted in CPU time.  The last line counts them ("noise
 * preempted=.. dirty=..").  With --procs P, P processes (forked after nothing is
 * allocated) measure the same thing at the same time, each on its own
 * arrays, started together before every sample: what one process gets when
 * P share the memory system (MAPS's SMP curves).  The line reports their
 * mean. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "probe-stats.h"

#define LINE 64

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t
rng (void)
{
  /* xorshift64* */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 0x2545F4914F6CDD1Dull;
}

static volatile uint64_t sink;

/* The streams of the runs pattern: more than a core's prefetcher follows
 * (tried on the EPYC VM of configs/: with 8 interleaved streams a line of
 * runs of 512 bytes costs what a unit stream's does, with 16 to 128 three
 * to four times as much, with no trend; calibrate/README.md). */
#define RUNS_STREAMS 64

/* The streams of runs of @run bytes over @bytes: RUNS_STREAMS, or fewer so
 * that each stream has at least 2 runs (at least 1 stream). */
static size_t
runs_streams (size_t bytes, size_t run)
{
  size_t s = bytes / (2 * run);
  return s < 1 ? 1 : s > RUNS_STREAMS ? RUNS_STREAMS : s;
}

/* ---- bandwidth kernels: return the number of 8-byte accesses made ---- */

static uint64_t
bw_unit (const uint64_t *p, size_t n, long passes)
{
  uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
  for (long r = 0; r < passes; r++)
    for (size_t i = 0; i + 8 <= n; i += 8) {
      s0 += p[i];
      s1 += p[i + 1];
      s2 += p[i + 2];
      s3 += p[i + 3];
      s4 += p[i + 4];
      s5 += p[i + 5];
      s6 += p[i + 6];
      s7 += p[i + 7];
    }
  sink = s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7;
  return (uint64_t) passes * (n / 8 * 8);
}

static uint64_t
bw_strided (const uint64_t *p, size_t n, size_t step, long passes)
{
  uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  size_t count = n / step / 4 * 4;
  for (long r = 0; r < passes; r++)
    for (size_t k = 0; k < count; k += 4) {
      s0 += p[k * step];
      s1 += p[(k + 1) * step];
      s2 += p[(k + 2) * step];
      s3 += p[(k + 3) * step];
    }
  sink = s0 + s1 + s2 + s3;
  return (uint64_t) passes * count;
}

static uint64_t
bw_random (const uint64_t *p, const uint32_t *idx, size_t m, long passes)
{
  uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
  for (long r = 0; r < passes; r++)
    for (size_t i = 0; i + 8 <= m; i += 8) {
      s0 += p[idx[i]];
      s1 += p[idx[i + 1]];
      s2 += p[idx[i + 2]];
      s3 += p[idx[i + 3]];
      s4 += p[idx[i + 4]];
      s5 += p[idx[i + 5]];
      s6 += p[idx[i + 6]];
      s7 += p[idx[i + 7]];
    }
  sink = s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7;
  return (uint64_t) passes * (m / 8 * 8);
}

static uint64_t
bw_runs (const uint64_t *p, size_t n, size_t run_words, size_t streams, long passes)
{
  uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
  size_t per = n / streams / run_words * run_words, runs = per / run_words;
  for (long r = 0; r < passes; r++)
    for (size_t k = 0; k < runs; k++)
      for (size_t s = 0; s < streams; s++) {
        const uint64_t *q = p + s * per + k * run_words;
        for (size_t i = 0; i + 8 <= run_words; i += 8) {
          s0 += q[i];
          s1 += q[i + 1];
          s2 += q[i + 2];
          s3 += q[i + 3];
          s4 += q[i + 4];
          s5 += q[i + 5];
          s6 += q[i + 6];
          s7 += q[i + 7];
        }
      }
  sink = s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7;
  return (uint64_t) passes * (streams * runs * (run_words / 8 * 8));
}

/* A blocked transpose-add, as a distributed transpose's local part is
 * (HPC Challenge's PTRANS, dtr2mx_): the working set holds two m x m
 * matrices of words, A and C, column-major with leading dimension ld >= m;
 * for each block of @rows rows of A, for each column jj, for each row k of
 * the block: C(jj, i0 + k) += A(i0 + k, jj).  A is read down its columns a
 * run of @rows words at a time; C is read and written across its columns,
 * ld words apart: @rows lines of C in flight, each touched again by the
 * next 7 columns jj (a line holds 8 words of one of C's columns).  ld is m
 * rounded up to an odd number of lines (transpose_ld): a power-of-two
 * distance would put every line of a row of C in the same cache sets, a
 * curve of conflict misses (20 times slower at 4 and 16 MiB, tried on the
 * EPYC VM of 2026-11-25) rather than of the working set.  Returns the
 * accesses asked for: 2 an element, A's word read and C's word read and
 * stored over (a word read and stored over counts once, as in the runs
 * pattern). */
static uint64_t
bw_transpose (uint64_t *p, size_t m, size_t ld, size_t rows, long passes)
{
  uint64_t *a = p, *c = p + m * ld;
  for (long r = 0; r < passes; r++)
    for (size_t i0 = 0; i0 < m; i0 += rows) {
      size_t nr = m - i0 < rows ? m - i0 : rows;
      for (size_t jj = 0; jj < m; jj++) {
        const uint64_t *ac = a + jj * ld + i0;
        uint64_t *cr = c + i0 * ld + jj;
        for (size_t k = 0; k < nr; k++)
          cr[k * ld] += ac[k];
      }
    }
  return (uint64_t) passes * (m * m) * 2;
}

/* The leading dimension of an m x m transpose: m rounded up to an odd
 * number of 8-word lines. */
static size_t
transpose_ld (size_t m)
{
  size_t lines = (m + 7) / 8;
  return (lines | 1) * 8;
}

/* Stores to every word: 8 registers stored in turn, each a different
 * value from the last pass (not a byte pattern a compiler could make a
 * memset of, and not a value already there). */
static uint64_t
bw_write (uint64_t *p, size_t n, long passes)
{
  for (long r = 0; r < passes; r++) {
    uint64_t v = (uint64_t) r * 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i + 8 <= n; i += 8) {
      p[i] = v;
      p[i + 1] = v + 1;
      p[i + 2] = v + 2;
      p[i + 3] = v + 3;
      p[i + 4] = v + 4;
      p[i + 5] = v + 5;
      p[i + 6] = v + 6;
      p[i + 7] = v + 7;
    }
  }
  return (uint64_t) passes * (n / 8 * 8);
}

/* ---- latency: a pointer chase, @steps loads each waiting for the last ---- */

static void *
chase (void *p, long steps)
{
  void **q = p;
  for (long i = 0; i < steps; i += 16) {
    q = *q; q = *q; q = *q; q = *q; q = *q; q = *q; q = *q; q = *q;
    q = *q; q = *q; q = *q; q = *q; q = *q; q = *q; q = *q; q = *q;
  }
  return q;
}

/* Link the lines of @buf (@lines of LINE bytes) in the pattern's order. */
static void
link_lines (char *buf, size_t lines, const char *pattern, size_t stride)
{
  size_t *order = malloc (lines * sizeof *order);
  if (order == NULL) {
    fprintf (stderr, "mem-bench: out of memory\n");
    exit (1);
  }
  if (strcmp (pattern, "runs") == 0) {
    /* the bandwidth kernel's order: run k of every stream, then run k + 1 */
    size_t run = stride < LINE ? 1 : stride / LINE, streams = runs_streams (lines * LINE, stride);
    size_t per = lines / streams / run * run, n = 0;
    for (size_t k = 0; k < per / run; k++)
      for (size_t s = 0; s < streams; s++)
        for (size_t l = 0; l < run; l++)
          order[n++] = s * per + k * run + l;
    for (size_t i = 0; i < n; i++)
      *(void **) (buf + order[i] * LINE) = buf + order[(i + 1) % n] * LINE;
  } else if (strcmp (pattern, "random") == 0) {
    for (size_t i = 0; i < lines; i++)
      order[i] = i;
    /* Sattolo: a random permutation that is one cycle through every line. */
    for (size_t i = lines - 1; i > 0; i--) {
      size_t j = (size_t) (rng () % i);
      size_t t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    for (size_t i = 0; i < lines; i++)
      *(void **) (buf + i * LINE) = buf + order[i] * LINE;
  } else {
    size_t k = strcmp (pattern, "unit") == 0 || stride <= LINE ? 1 : stride / LINE;
    if (k > lines)
      k = lines;
    /* offsets 0, k, 2k, ... then 1, 1 + k, ...: every line, k apart */
    size_t n = 0;
    for (size_t o = 0; o < k; o++)
      for (size_t l = o; l < lines; l += k)
        order[n++] = l;
    for (size_t i = 0; i < lines; i++)
      *(void **) (buf + order[i] * LINE) = buf + order[(i + 1) % lines] * LINE;
  }
  free (order);
}

/* ---- processes started together ---- */

static int nprocs = 1, me = 0;
static int up[64][2], down[64][2];   /* child -> parent (ready, result), parent -> child (go) */

static void
barrier (void)
{
  char c = 'r';
  if (nprocs == 1)
    return;
  if (me == 0) {
    for (int i = 1; i < nprocs; i++)
      if (read (up[i][0], &c, 1) != 1)
        exit (1);
    for (int i = 1; i < nprocs; i++)
      if (write (down[i][1], &c, 1) != 1)
        exit (1);
  } else {
    if (write (up[me][1], &c, 1) != 1 || read (down[me][0], &c, 1) != 1)
      exit (1);
  }
}

/* The mean over the processes of one value each measured. */
static double
combine (double v)
{
  if (nprocs == 1)
    return v;
  if (me != 0) {
    if (write (up[me][1], &v, sizeof v) != sizeof v)
      exit (1);
    return v;
  }
  double sum = v;
  for (int i = 1; i < nprocs; i++) {
    double w;
    if (read (up[i][0], &w, sizeof w) != sizeof w)
      exit (1);
    sum += w;
  }
  return sum / nprocs;
}

/* Whether every process had the CPU for its whole sample (the decision is
 * the same in all of them, so they measure again together). */
static int
all_clean (int clean)
{
  if (nprocs == 1)
    return clean;
  char c = (char) clean;
  if (me != 0) {
    if (write (up[me][1], &c, 1) != 1 || read (down[me][0], &c, 1) != 1)
      exit (1);
    return c;
  }
  for (int i = 1; i < nprocs; i++) {
    char w;
    if (read (up[i][0], &w, 1) != 1)
      exit (1);
    c = (char) (c && w);
  }
  for (int i = 1; i < nprocs; i++)
    if (write (down[i][1], &c, 1) != 1)
      exit (1);
  return c;
}

static long preempted, dirty;   /* samples taken again; kept though never undisturbed */

/* ---- one pattern at one size ---- */

static int reps = 7;
static double target_s = 0.01;

typedef struct {
  const char *pattern;
  size_t stride;   /* bytes: strided, the stride; runs, the run */
} Pattern;

/* One sample: @step (which reports the units of work it did) until the
 * sample lasts target_s (a quarter of it to warm up), taken again while
 * another process interrupted it (PROBE_CLEAN, PROBE_TRIES, the budget);
 * the processes decide together.  Returns units per second: of wall time,
 * or of CPU time for a sample never undisturbed. */
static double
timed_sample (int warm, double (*step) (void *), void *ctx)
{
  double t, c, units;
  for (int tries = 0;; tries++) {
    barrier ();
    double c0 = probe_clock_ns (CLOCK_THREAD_CPUTIME_ID), t0 = probe_clock_ns (CLOCK_MONOTONIC);
    units = 0;
    do {
      units += step (ctx);
      t = (probe_clock_ns (CLOCK_MONOTONIC) - t0) * 1e-9;
    } while (t < (warm ? target_s / 4 : target_s));
    c = (probe_clock_ns (CLOCK_THREAD_CPUTIME_ID) - c0) * 1e-9;
    int clean = c >= PROBE_CLEAN * t;
    if (warm || all_clean (clean))
      break;
    if (!all_clean (probe_may_retry (tries))) {
      dirty++;
      return units / c;   /* never undisturbed: the time the process did run */
    }
    preempted++;
  }
  return units / t;
}

typedef struct {
  uint64_t *p;           /* the array read, or stored to (write) */
  const uint32_t *idx;
  size_t n, m, step;     /* step: words, strided's stride or runs' run, transpose's rows */
  size_t ld;             /* transpose only: the matrices' leading dimension */
  size_t streams;        /* runs only */
  long chunk;            /* passes per clock check */
  int kind;              /* 0 unit, 1 strided, 2 random, 3 runs, 4 write, 5 transpose */
} BwCtx;

/* Bytes read (written, for write) by @chunk passes. */
static double
bw_step (void *ctx)
{
  BwCtx *c = ctx;
  uint64_t acc = c->kind == 5 ? bw_transpose (c->p, c->m, c->ld, c->step, c->chunk)
                 : c->kind == 4 ? bw_write (c->p, c->n, c->chunk)
                 : c->kind == 3 ? bw_runs (c->p, c->n, c->step, c->streams, c->chunk)
                 : c->kind == 2 ? bw_random (c->p, c->idx, c->m, c->chunk)
                 : c->kind == 1 ? bw_strided (c->p, c->n, c->step, c->chunk)
                                : bw_unit (c->p, c->n, c->chunk);
  return acc * 8.0;
}

/* Loads of the chase. */
static double
chase_step (void *ctx)
{
  void **q = ctx;
  *q = chase (*q, 4096);
  return 4096;
}

static void
measure (const Pattern *pat, size_t bytes)
{
  size_t n = bytes / 8;
  uint64_t *p = NULL;
  int strided = strcmp (pat->pattern, "strided") == 0;
  int random = strcmp (pat->pattern, "random") == 0;
  int runs = strcmp (pat->pattern, "runs") == 0;
  int write = strcmp (pat->pattern, "write") == 0;
  int transpose = strcmp (pat->pattern, "transpose") == 0;
  if (posix_memalign ((void **) &p, 4096, bytes) != 0) {
    fprintf (stderr, "mem-bench: cannot allocate %zu bytes\n", bytes);
    exit (1);
  }
  for (size_t i = 0; i < n; i++)
    p[i] = i;
  BwCtx bc = { .p = p, .n = n, .step = strided || runs ? pat->stride / 8 : 1,
               .streams = runs ? runs_streams (bytes, pat->stride) : 1,
               .kind = transpose ? 5 : write ? 4 : runs ? 3 : random ? 2 : strided ? 1 : 0 };
  if (transpose) {
    /* two m x m matrices in the working set; a block of more rows than
     * the matrix has is the whole matrix (a transpose on one process) */
    bc.m = 1;
    while ((bc.m + 1) * transpose_ld (bc.m + 1) * 2 <= n)
      bc.m++;
    bc.ld = transpose_ld (bc.m);
    bc.step = pat->stride / 8 < bc.m ? pat->stride / 8 : bc.m;
  }
  uint32_t *idx = NULL;
  if (random) {
    /* At most 4 Mi random indices: enough to leave no pattern, and the
     * index array stays smaller than the data beyond that. */
    bc.m = n < ((size_t) 1 << 22) ? n : ((size_t) 1 << 22);
    idx = malloc (bc.m * sizeof *idx);
    if (idx == NULL)
      exit (1);
    for (size_t i = 0; i < bc.m; i++)
      idx[i] = (uint32_t) (rng () % n);
    bc.idx = idx;
  }
  /* passes per clock check: at least 64 Ki accesses between checks */
  size_t per_pass = random ? bc.m : strided ? n / bc.step : transpose ? 2 * bc.m * bc.m : n;
  bc.chunk = per_pass >= 65536 ? 1 : (long) (65536 / (per_pass ? per_pass : 1)) + 1;
  /* Once the budget is spent, 3 samples a figure (all processes agree). */
  int n_reps = all_clean (probe_may_retry (0)) ? reps : (reps < 3 ? reps : 3);
  double *bw = malloc ((size_t) reps * sizeof *bw), *lat = malloc ((size_t) reps * sizeof *lat);
  for (int r = -1; r < n_reps; r++) {    /* r = -1: warm-up, not kept */
    double rate = timed_sample (r < 0, bw_step, &bc);
    if (r >= 0)
      bw[r] = combine (rate);
  }
  free (idx);

  /* Latency: the same bytes as lines linked in the pattern's order (none for
   * stores: no load waits for one; none for transpose, whose loads are
   * independent and whose order is two matrices', a chase has no one line
   * order for). */
  if (!write && !transpose) {
    link_lines ((char *) p, bytes / LINE, pat->pattern, strided || runs ? pat->stride : LINE);
    void *q = p;
    for (int r = -1; r < n_reps; r++) {
      double rate = timed_sample (r < 0, chase_step, &q);
      if (r >= 0)
        lat[r] = combine (1e9 / rate);
    }
    sink = (uint64_t) (uintptr_t) q;
  } else {
    for (int r = 0; r < n_reps; r++)
      lat[r] = NAN;
  }
  free (p);
  if (me == 0) {
    Stats b = probe_stats (bw, n_reps), l = probe_stats (lat, n_reps);
    printf ("mem pattern=%s stride=%zu streams=%zu streams_max=%d procs=%d bytes=%zu bw=%.6g "
            "bw_q1=%.6g bw_q3=%.6g bw_min=%.6g bw_max=%.6g lat=%.6g lat_q1=%.6g lat_q3=%.6g lat_min=%.6g "
            "lat_max=%.6g reps=%d\n",
            pat->pattern, strided || runs || transpose ? pat->stride
                                                       : random ? (size_t) 0 : (size_t) 8,
            bc.streams, runs ? RUNS_STREAMS : 1, nprocs, bytes,
            b.med, b.q1, b.q3, b.min, b.max, l.med, l.q1, l.q3, l.min, l.max, n_reps);
    fflush (stdout);
  }
  free (bw);
  free (lat);
}

static void
usage (const char *argv0)
{
  fprintf (stderr,
           "usage: %s --sizes B1,B2,... [--patterns unit,strided:BYTES,random,runs:BYTES,"
           "transpose:BYTES,write] "
           "[--reps N] [--target-ms MS] [--procs P] [--budget-s S]\n", argv0);
  exit (2);
}

int
main (int argc, char **argv)
{
  const char *sizes = NULL, *patterns = "unit,strided:512,random";
  for (int i = 1; i < argc; i++) {
    if (i + 1 >= argc)
      usage (argv[0]);
    if (strcmp (argv[i], "--sizes") == 0)
      sizes = argv[++i];
    else if (strcmp (argv[i], "--patterns") == 0)
      patterns = argv[++i];
    else if (strcmp (argv[i], "--reps") == 0)
      reps = atoi (argv[++i]);
    else if (strcmp (argv[i], "--target-ms") == 0)
      target_s = atof (argv[++i]) / 1e3;
    else if (strcmp (argv[i], "--procs") == 0)
      nprocs = atoi (argv[++i]);
    else if (strcmp (argv[i], "--budget-s") == 0)
      probe_set_budget (atof (argv[++i]));
    else
      usage (argv[0]);
  }
  if (sizes == NULL || reps < 1 || reps > 1000 || !(target_s > 0) || nprocs < 1 || nprocs > 64)
    usage (argv[0]);

  Pattern pats[16];
  int npat = 0;
  char *pl = strdup (patterns);
  for (char *save = NULL, *tok = strtok_r (pl, ",", &save); tok != NULL && npat < 16;
       tok = strtok_r (NULL, ",", &save)) {
    if (strcmp (tok, "unit") == 0 || strcmp (tok, "random") == 0 || strcmp (tok, "write") == 0)
      pats[npat++] = (Pattern) { strcmp (tok, "unit") == 0 ? "unit"
                                 : strcmp (tok, "write") == 0 ? "write" : "random", 0 };
    else if (strncmp (tok, "strided:", 8) == 0 && atol (tok + 8) >= 16 && atol (tok + 8) % 8 == 0)
      pats[npat++] = (Pattern) { "strided", (size_t) atol (tok + 8) };
    else if (strncmp (tok, "runs:", 5) == 0 && atol (tok + 5) >= LINE && atol (tok + 5) % LINE == 0)
      pats[npat++] = (Pattern) { "runs", (size_t) atol (tok + 5) };
    else if (strncmp (tok, "transpose:", 10) == 0 && atol (tok + 10) >= LINE
             && atol (tok + 10) % 8 == 0)
      pats[npat++] = (Pattern) { "transpose", (size_t) atol (tok + 10) };
    else {
      fprintf (stderr, "mem-bench: unknown pattern '%s'\n", tok);
      return 2;
    }
  }

  for (int i = 1; i < nprocs; i++) {
    if (pipe (up[i]) != 0 || pipe (down[i]) != 0) {
      perror ("mem-bench: pipe");
      return 1;
    }
    pid_t pid = fork ();
    if (pid < 0) {
      perror ("mem-bench: fork");
      return 1;
    }
    if (pid == 0) {
      me = i;
      rng_state += (uint64_t) i * 0x1234567ull;
      break;
    }
  }

  for (int k = 0; k < npat; k++) {
    char *sl = strdup (sizes);
    for (char *save = NULL, *tok = strtok_r (sl, ",", &save); tok != NULL;
         tok = strtok_r (NULL, ",", &save)) {
      size_t bytes = (size_t) strtoull (tok, NULL, 10);
      if (bytes < 4096 || bytes % LINE != 0) {
        fprintf (stderr, "mem-bench: size %s: at least 4096 and a multiple of %d\n", tok, LINE);
        return 2;
      }
      /* A stride pattern needs a few accesses per pass, a runs pattern 2 runs. */
      size_t least = strcmp (pats[k].pattern, "runs") == 0 ? 2 : 16;
      if (pats[k].stride != 0 && strcmp (pats[k].pattern, "transpose") != 0
          && bytes / pats[k].stride < least)
        continue;
      measure (&pats[k], bytes);
    }
    free (sl);
  }
  free (pl);
  if (me == 0) {
    for (int i = 1; i < nprocs; i++)
      wait (NULL);
    printf ("noise preempted=%ld dirty=%ld\n", preempted, dirty);
  }
  return 0;
}
