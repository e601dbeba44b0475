/* A real NAS CG (NPB 3.4, MPI) in C: the program wsl/examples/cg.xml
 * models, call for call.  Its header comment is the specification this
 * file follows: the same 2-D process grid, the same recursive-doubling row
 * sums and transpose exchanges (MPI_Irecv, MPI_Send, MPI_Wait with the same
 * partners, tags and sizes), the same loops with the arithmetic its RUDs
 * count, the warm-up iteration and its barrier, the final reduce.
 *
 *   mpirun -np P cg-real [NAME=VALUE...]       (P a power of two)
 *
 * NAME: class (1..8 = S, W, A, B, C, D, E, F; default 1), which sets the
 * defaults of na, nonzer and niter, each of which may be given too.
 *
 * The matrix.  NPB's makea builds a random sparse symmetric matrix as a sum
 * of outer products of random sparse vectors; this builds an honest
 * equivalent with the same structure where it matters to time: each row has
 * nonzer (nonzer + 1) nonzeros on average (the count of NPB's operation
 * formula, and of class A's real matrix: 1,853,104 / 14,000 = 132 = 11 x
 * 12), at columns spread at random over the whole matrix (so x(col(k)) is a
 * random gather, as in NPB), symmetric and diagonally dominant (so CG
 * converges and nothing overflows).  Row r chooses nzrow / 2 columns c by a
 * hash of (r, t); each choice sets a(r, c) and a(c, r) to the same negative
 * value; the diagonal is the row's sum of magnitudes plus one and a bit.
 *
 * Prints, on rank 0, one line:
 *   result program=cg ranks=P time_s=T cpu_s=C busy=B zeta=Z rnorm=R na=.. ...
 * T is the wall time from just after a synchronising barrier (outside the
 * workload) to the end of the final reduce, the largest over the ranks; C
 * the largest thread CPU time of a rank in it, B the smallest ratio of CPU
 * to wall time (under 1: another process took the CPU for a while).  The
 * timed region is bracketed by MPI_Pcontrol (1) and (0). */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The timed part is the kernel ptireuse --region measures (tests/bench/reuse.sh). */
#include "../../../memtrace/include/pti/reuse-region.h"

#define CGITMAX 25

/* Kernel timers (tests/bench/cg-kernels.sh builds with -DCG_KERNEL_TIMES):
 * the seconds each of the workload's RUDs and exchanges took, summed over
 * the timed region, printed by rank 0 after the result line.  Without the
 * macro they are empty: the accuracy suite's program is unchanged. */
enum { K_INIT, K_DOT_RR, K_SPMV, K_REDUCE_ADD, K_XCHG, K_PQ, K_UPDATE, K_P_UPDATE,
       K_RESIDUAL, K_NORMS, K_NORMALIZE, K_XCHG_L, K_N };
#ifdef CG_KERNEL_TIMES
static const char *const kt_name[K_N] = { "init", "dot_rr", "spmv", "reduce_add", "xchg",
                                          "pq", "update", "p_update", "residual", "norms",
                                          "normalize", "xchg_l" };
static double kt_sum[K_N], kt_t0;
static long kt_calls[K_N];
#define KT_START() (kt_t0 = MPI_Wtime ())
#define KT_STOP(k) (kt_sum[k] += MPI_Wtime () - kt_t0, kt_calls[k]++)
#else
#define KT_START() ((void) 0)
#define KT_STOP(k) ((void) 0)
#endif

static const struct {
  long na;
  int nonzer, niter;
  double shift;
} classes[] = {
  { 1400, 7, 15, 10 },      { 7000, 8, 15, 12 },      { 14000, 11, 15, 20 },
  { 75000, 13, 75, 60 },    { 150000, 15, 75, 110 },  { 1500000, 21, 100, 500 },
  { 9000000, 26, 100, 1500 }, { 54000000, 31, 100, 5000 },
};

static int me, nprocs;

/* The CPU time of this thread: with the wall time, whether another process
 * took the CPU during the run (tests/bench/accuracy.sh keeps runs where no
 * rank lost more than 5% of it). */
static double
cpu_s (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void
die (const char *msg)
{
  if (me == 0)
    fprintf (stderr, "cg-real: %s\n", msg);
  MPI_Abort (MPI_COMM_WORLD, 2);
  exit (2);
}

static void *
xcalloc (size_t n, size_t size)
{
  void *p = calloc (n ? n : 1, size);
  if (p == NULL)
    die ("out of memory");
  return p;
}

/* Fault in every page of @a (@n doubles) before the timed part: calloc
 * leaves large vectors as untouched zero pages, whose first write would
 * fault inside it, which the workload does not model (sweep3d-real.c says
 * what that cost there).  Volatile: a store of the zero calloc already
 * gave is not removed. */
static void
touch (double *a, size_t n)
{
  for (size_t x = 0; x < n; x += 512)
    ((volatile double *) a)[x] = 0.0;
}

/* The process grid and what this rank holds and exchanges (NPB's
 * setup_submatrix_info, as wsl/examples/cg.c writes it). */
typedef struct {
  int nprows, npcols, L;
  long firstrow, nr, firstcol, nc;
  long send_len, keep;                 /* the part of w this rank keeps and sends */
  int exch;                            /* transpose partner (may be this rank) */
  int partner[32];                     /* [i], i = 1..L */
  long send[32], recv[32], send_off[32];
} Grid;

static long
block_first (long na, int parts, int b)
{
  return b * (na / parts) + (b < na % parts ? b : na % parts);
}

static long
block_size (long na, int parts, int b)
{
  return na / parts + (b < na % parts ? 1 : 0);
}

static void
grid_init (Grid *g, long na)
{
  int k = 0;
  while ((1 << k) < nprocs)
    k++;
  if ((1 << k) != nprocs)
    die ("the number of ranks must be a power of two");
  g->nprows = 1 << (k / 2);
  g->npcols = 1 << ((k + 1) / 2);
  g->L = (k + 1) / 2;
  int proc_row = me / g->npcols, proc_col = me % g->npcols;
  int square = g->nprows == g->npcols, even = me % 2 == 0;
  g->firstrow = block_first (na, g->nprows, proc_row);
  g->nr = block_size (na, g->nprows, proc_row);
  if (square) {
    g->firstcol = block_first (na, g->npcols, proc_col);
    g->nc = block_size (na, g->npcols, proc_col);
    g->send_len = g->nr;
    g->keep = 0;
    g->exch = (me % g->nprows) * g->nprows + me / g->nprows;
  } else {
    /* npcols = 2 nprows: column block c is half c % 2 of row block c / 2,
     * and the even rank of a pair keeps the first half of its row block's
     * sums, the odd one the second */
    long pair_first = block_first (na, g->nprows, proc_col / 2);
    long pair = block_size (na, g->nprows, proc_col / 2);
    g->firstcol = even ? pair_first : pair_first + (pair + 1) / 2;
    g->nc = even ? (pair + 1) / 2 : pair / 2;
    g->send_len = even ? (g->nr + 1) / 2 : g->nr / 2;
    g->keep = even ? 0 : (g->nr + 1) / 2;
    g->exch = 2 * (((me / 2) % g->nprows) * g->nprows + (me / 2) / g->nprows) + me % 2;
  }
  for (int i = 1; i <= g->L; i++) {
    int half = 1 << (g->L - i);
    g->partner[i] = proc_row * g->npcols + (proc_col + half) % (2 * half)
                    + proc_col / (2 * half) * 2 * half;
    g->recv[i] = square ? g->nr : g->send_len;
    g->send[i] = square ? g->nr : i == g->L ? g->nr - g->send_len : g->send_len;
    /* the first step of the non-square case sends the half this rank gives up */
    g->send_off[i] = square ? 0 : i == g->L ? (even ? g->send_len : 0) : g->keep;
  }
}

/* ---- the matrix ---- */

static uint64_t
mix (uint64_t x)
{
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}

typedef struct {
  long *rowstr;   /* nr + 1 */
  int *colidx;    /* local column */
  double *a;
} Csr;

/* The value of the pair {r, c}, the same both ways: in [-1, -0.5). */
static double
pair_value (long r, long c)
{
  long lo = r < c ? r : c, hi = r < c ? c : r;
  return -0.5 - 0.5 * (double) (mix ((uint64_t) lo * 0x9E3779B97F4A7C15ull ^ (uint64_t) hi) >> 11)
                    / 9007199254740992.0;
}

static void
makea (const Grid *g, long na, int nonzer, Csr *m)
{
  long picks = (long) nonzer * (nonzer + 1) / 2;
  long *count = xcalloc ((size_t) g->nr, sizeof *count);
  double *diag = xcalloc ((size_t) g->nr, sizeof *diag);
  /* Two passes over every row's choices: count, then fill.  An entry
   * (r, c) is ours when r is one of our rows and c one of our columns. */
  for (int pass = 0; pass < 2; pass++) {
    long *fill = pass ? xcalloc ((size_t) g->nr, sizeof *fill) : NULL;
    for (long r = 0; r < na; r++)
      for (long t = 0; t < picks; t++) {
        long c = (long) (mix ((uint64_t) r * 1000003u + (uint64_t) t) % (uint64_t) na);
        if (c == r)
          continue;
        double v = pair_value (r, c);
        long ends[2][2] = { { r, c }, { c, r } };
        for (int e = 0; e < 2; e++) {
          long row = ends[e][0] - g->firstrow, col = ends[e][1] - g->firstcol;
          if (row < 0 || row >= g->nr)
            continue;
          if (pass == 0)
            diag[row] += fabs (v);
          if (col < 0 || col >= g->nc)
            continue;
          if (pass == 0)
            count[row]++;
          else {
            long at = m->rowstr[row] + fill[row]++;
            m->colidx[at] = (int) col;
            m->a[at] = v;
          }
        }
      }
    if (pass == 0) {
      m->rowstr = xcalloc ((size_t) g->nr + 1, sizeof *m->rowstr);
      for (long j = 0; j < g->nr; j++) {
        long gr = g->firstrow + j;
        int has_diag = gr >= g->firstcol && gr < g->firstcol + g->nc;
        m->rowstr[j + 1] = m->rowstr[j] + count[j] + has_diag;
      }
      m->colidx = xcalloc ((size_t) m->rowstr[g->nr], sizeof *m->colidx);
      m->a = xcalloc ((size_t) m->rowstr[g->nr], sizeof *m->a);
    } else {
      for (long j = 0; j < g->nr; j++) {
        long gr = g->firstrow + j;
        if (gr >= g->firstcol && gr < g->firstcol + g->nc) {
          long at = m->rowstr[j] + fill[j]++;
          m->colidx[at] = (int) (gr - g->firstcol);
          /* one plus up to a half more: x = 1 is no eigenvector, so CG has
           * work to do in every iteration (and no residual underflows) */
          m->a[at] = diag[j] + 1.0 + 0.5 * (double) (mix ((uint64_t) gr) >> 11)
                                         / 9007199254740992.0;
        }
      }
      free (fill);
    }
  }
  free (count);
  free (diag);
}

/* ---- communication: NPB's pairwise swap and the scalar sums ---- */

static void
xchg (int peer, double *send, long nsend, double *recv, long nrecv, int tag)
{
  MPI_Request rq;
  MPI_Irecv (recv, (int) nrecv, MPI_DOUBLE, peer, tag, MPI_COMM_WORLD, &rq);
  MPI_Send (send, (int) nsend, MPI_DOUBLE, peer, tag, MPI_COMM_WORLD);
  MPI_Wait (&rq, MPI_STATUS_IGNORE);
}

/* XCHG_L: sum @n doubles over the processor row by recursive doubling. */
static void
xchg_l (const Grid *g, double *v, int n)
{
  KT_START ();
  for (int i = 1; i <= g->L; i++) {
    double in[2];
    xchg (g->partner[i], v, n, in, n, i);
    for (int k = 0; k < n; k++)
      v[k] += in[k];
  }
  KT_STOP (K_XCHG_L);
}

typedef struct {
  double *x, *z, *p, *q, *r, *w, *buf;
} Vectors;

/* MATVEC: out = A.v, summed over the processor row, then transposed into
 * @out (with one process: left in w, copied by the caller as NPB does). */
static void
matvec (const Grid *g, const Csr *m, double *v, Vectors *vec, double *out)
{
  double *w = vec->w;
  KT_START ();
  for (long j = 0; j < g->nr; j++) {
    double sum = 0;
    for (long k = m->rowstr[j]; k < m->rowstr[j + 1]; k++)
      sum += m->a[k] * v[m->colidx[k]];
    w[j] = sum;
  }
  KT_STOP (K_SPMV);
  for (int i = g->L; i >= 1; i--) {
    long len = g->recv[i];
    KT_START ();
    xchg (g->partner[i], w + g->send_off[i], g->send[i], vec->buf, len, i);
    KT_STOP (K_XCHG);
    KT_START ();
    double *dst = w + g->keep;
    for (long j = 0; j < len; j++)
      dst[j] = dst[j] + vec->buf[j];
    KT_STOP (K_REDUCE_ADD);
  }
  if (g->L > 0) {
    KT_START ();
    xchg (g->exch, w + g->keep, g->send_len, out, g->nc, 1);
    KT_STOP (K_XCHG);
  }
}

static void
parse (int argc, char **argv, long *na, int *nonzer, int *niter, double *shift)
{
  long cls = 1, v_na = -1, v_nonzer = -1, v_niter = -1;
  for (int a = 1; a < argc; a++) {
    char *eq = strchr (argv[a], '=');
    char *end;
    long v = eq ? strtol (eq + 1, &end, 10) : 0;
    if (eq == NULL || *end != '\0' || v < 0)
      die ("arguments are NAME=VALUE, NAME one of class na nonzer niter, VALUE a whole number");
    size_t len = (size_t) (eq - argv[a]);
    if (len == 5 && strncmp (argv[a], "class", 5) == 0)
      cls = v;
    else if (len == 2 && strncmp (argv[a], "na", 2) == 0)
      v_na = v;
    else if (len == 6 && strncmp (argv[a], "nonzer", 6) == 0)
      v_nonzer = v;
    else if (len == 5 && strncmp (argv[a], "niter", 5) == 0)
      v_niter = v;
    else
      die ("unknown parameter (class, na, nonzer, niter)");
  }
  if (cls < 1 || cls > 8)
    die ("class must be 1..8 (S, W, A, B, C, D, E, F)");
  *na = v_na >= 0 ? v_na : classes[cls - 1].na;
  *nonzer = v_nonzer >= 0 ? (int) v_nonzer : classes[cls - 1].nonzer;
  *niter = v_niter >= 0 ? (int) v_niter : classes[cls - 1].niter;
  *shift = classes[cls - 1].shift;
  if (*na < 2 || *na > 1L << 30 || *nonzer < 1 || *nonzer > 1000)
    die ("na must be 2..2^30 and nonzer 1..1000");
}

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &me);
  MPI_Comm_size (MPI_COMM_WORLD, &nprocs);
  long na;
  int nonzer, niter;
  double shift;
  parse (argc, argv, &na, &nonzer, &niter, &shift);
  Grid g;
  grid_init (&g, na);
  Csr m;
  makea (&g, na, nonzer, &m);
  Vectors vec;
  size_t vlen = (size_t) na + 2;      /* init runs over na + 1 values, as NPB's */
  vec.x = xcalloc (vlen, sizeof (double));
  vec.z = xcalloc (vlen, sizeof (double));
  vec.p = xcalloc (vlen, sizeof (double));
  vec.q = xcalloc (vlen, sizeof (double));
  vec.r = xcalloc (vlen, sizeof (double));
  vec.w = xcalloc (vlen, sizeof (double));
  vec.buf = xcalloc (vlen, sizeof (double));
  for (size_t j = 0; j < vlen; j++)
    vec.x[j] = 1.0;
  double *const zeroed[] = { vec.z, vec.p, vec.q, vec.r, vec.w, vec.buf };
  for (size_t v = 0; v < sizeof zeroed / sizeof zeroed[0]; v++)
    touch (zeroed[v], vlen);
  const long nc = g.nc, nr = g.nr, nmax = nr > nc ? nr : nc;
  double *x = vec.x, *z = vec.z, *p = vec.p, *q = vec.q, *r = vec.r, *w = vec.w;
  double zeta = 0, rnorm = 0;

  MPI_Barrier (MPI_COMM_WORLD);   /* synchronise the clocks: not in the workload */
  MPI_Pcontrol (1);
  double t0 = MPI_Wtime (), c0 = cpu_s ();
  int timeron = 0;
  MPI_Bcast (&timeron, 1, MPI_INT, 0, MPI_COMM_WORLD);
  PTI_REUSE_START ();
  for (int it = 0; it <= niter; it++) {   /* it = 0: the untimed warm-up */
    /* ---- conj_grad ---- */
    KT_START ();
    for (long j = 0; j < na + 1; j++) {   /* init */
      q[j] = 0;
      z[j] = 0;
      r[j] = x[j];
      p[j] = r[j];
      w[j] = 0;
    }
    KT_STOP (K_INIT);
    KT_START ();
    double rho = 0;                        /* dot_rr */
    for (long j = 0; j < nc; j++)
      rho += r[j] * r[j];
    KT_STOP (K_DOT_RR);
    xchg_l (&g, &rho, 1);
    for (int cgit = 1; cgit <= CGITMAX; cgit++) {
      matvec (&g, &m, p, &vec, q);
      KT_START ();
      if (g.L == 0)                        /* pq */
        for (long j = 0; j < nc; j++)
          q[j] = w[j];
      for (long j = 0; j < nmax; j++)
        w[j] = 0;
      double sum = 0;
      for (long j = 0; j < nc; j++)
        sum += p[j] * q[j];
      KT_STOP (K_PQ);
      xchg_l (&g, &sum, 1);
      KT_START ();
      double d = sum, alpha = rho / d, rho0 = rho;   /* update */
      for (long j = 0; j < nc; j++) {
        z[j] = z[j] + alpha * p[j];
        r[j] = r[j] - alpha * q[j];
      }
      rho = 0;
      for (long j = 0; j < nc; j++)
        rho += r[j] * r[j];
      KT_STOP (K_UPDATE);
      xchg_l (&g, &rho, 1);
      KT_START ();
      double beta = rho / rho0;            /* p_update */
      for (long j = 0; j < nc; j++)
        p[j] = r[j] + beta * p[j];
      KT_STOP (K_P_UPDATE);
    }
    matvec (&g, &m, z, &vec, r);           /* A.z */
    KT_START ();
    if (g.L == 0)                          /* residual */
      for (long j = 0; j < nc; j++)
        r[j] = w[j];
    double sum = 0;
    for (long j = 0; j < nc; j++) {
      double d = x[j] - r[j];
      sum += d * d;
    }
    KT_STOP (K_RESIDUAL);
    xchg_l (&g, &sum, 1);
    rnorm = sqrt (sum);
    /* ---- norms and the new x ---- */
    KT_START ();
    double norm[2] = { 0, 0 };
    for (long j = 0; j < nc; j++) {
      norm[0] += x[j] * z[j];
      norm[1] += z[j] * z[j];
    }
    KT_STOP (K_NORMS);
    xchg_l (&g, norm, 2);
    zeta = shift + 1.0 / norm[0];
    KT_START ();
    double scale = 1.0 / sqrt (norm[1]);   /* normalize */
    for (long j = 0; j < nc; j++)
      x[j] = scale * z[j];
    KT_STOP (K_NORMALIZE);
    if (it == 0)
      MPI_Barrier (MPI_COMM_WORLD);
  }
  PTI_REUSE_STOP ();
  double t = MPI_Wtime () - t0, tmax;
  MPI_Reduce (&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  t = MPI_Wtime () - t0;                   /* the reduce is the workload's last call */
  double busy[2] = { cpu_s () - c0, 0 }, cpu[2];
  MPI_Pcontrol (0);
  MPI_Reduce (&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  busy[1] = -busy[0] / t;   /* max of -(cpu / wall): the least busy rank */
  MPI_Reduce (busy, cpu, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (me == 0)
    printf ("result program=cg ranks=%d time_s=%.9f cpu_s=%.9f busy=%.4f zeta=%.12g rnorm=%.6g "
            "na=%ld nonzer=%d niter=%d nnz_rank0=%ld\n", nprocs, tmax, cpu[0], -cpu[1], zeta,
            rnorm, na, nonzer, niter, m.rowstr[g.nr]);
#ifdef CG_KERNEL_TIMES
  if (me == 0)
    for (int k = 0; k < K_N; k++)
      printf ("kernel %s calls=%ld time_s=%.9f\n", kt_name[k], kt_calls[k], kt_sum[k]);
#endif
  MPI_Finalize ();
  return 0;
}
