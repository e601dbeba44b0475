/* A real Sweep3D-style wavefront transport sweep in C and MPI: the program
 * wsl/examples/sweep3d.xml models, call for call.  Its header comment is the
 * specification this file follows: the same set-up collectives, the same
 * octants, angle blocks and k-blocks, the same receives and sends (peers,
 * tags, sizes: message lengths use mk, not nk), the same global sums, and
 * per cell-angle the arithmetic its RUDs count (source moments, the
 * balance with its divide, flux moments, DSA face currents: 41 flops).
 *
 *   mpirun -np P sweep3d-real [NAME=VALUE...]
 *
 * NAME is a parameter of sweep3d.xml: npe_i npe_j (P = npe_i * npe_j), it jt
 * (cells per rank in I and J), kt, mk, mm (3 or 6 angles per octant), mmi
 * (divides mm), iterations.  Defaults as sweep3d.xml, except npe_i x npe_j,
 * which default to P x 1.
 *
 * Prints, on rank 0, one line:
 *   result program=sweep3d ranks=P time_s=T cpu_s=C busy=B flux=F ...parameters
 * T is the wall time from just after a synchronising barrier (outside the
 * workload) to the end of the last global sum, the largest over the ranks;
 * cpu_s the largest thread CPU time of a rank over the same region and busy
 * the smallest ratio of CPU to wall time (under 1: another process took the
 * CPU for a while); F a checksum of the flux, so that nothing is computed
 * for nothing.  The
 * timed region is bracketed by MPI_Pcontrol (1) and (0): a PMPI tool sees
 * exactly the workload's calls (tests/accuracy/check-pattern.py). */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The timed part is the kernel ptireuse --region measures (tests/bench/reuse.sh). */
#include "../../../memtrace/include/pti/reuse-region.h"

typedef struct {
  int npe_i, npe_j, it, jt, kt, mk, mm, mmi, iterations;
} Params;

enum { NM = 4 };   /* P1 scattering: 4 flux moments */

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
    fprintf (stderr, "sweep3d-real: %s\n", msg);
  MPI_Abort (MPI_COMM_WORLD, 2);
  exit (2);
}

static void
parse (int argc, char **argv, Params *p)
{
  *p = (Params) { .npe_i = nprocs, .npe_j = 1, .it = 50, .jt = 50, .kt = 200, .mk = 10,
                  .mm = 6, .mmi = 3, .iterations = 12 };
  struct { const char *name; int *v; } names[] = {
    { "npe_i", &p->npe_i }, { "npe_j", &p->npe_j }, { "it", &p->it }, { "jt", &p->jt },
    { "kt", &p->kt }, { "mk", &p->mk }, { "mm", &p->mm }, { "mmi", &p->mmi },
    { "iterations", &p->iterations } };
  for (int a = 1; a < argc; a++) {
    char *eq = strchr (argv[a], '=');
    int found = 0;
    for (size_t i = 0; eq != NULL && i < sizeof names / sizeof names[0]; i++)
      if (strlen (names[i].name) == (size_t) (eq - argv[a])
          && strncmp (argv[a], names[i].name, (size_t) (eq - argv[a])) == 0) {
        char *end;
        long v = strtol (eq + 1, &end, 10);
        if (*end != '\0' || v < 0 || v > 1000000)
          die ("a parameter value must be a whole number from 0 to 1000000");
        *names[i].v = (int) v;
        found = 1;
      }
    if (!found) {
      if (me == 0)
        fprintf (stderr, "sweep3d-real: unknown argument '%s' (NAME=VALUE, NAME one of npe_i "
                 "npe_j it jt kt mk mm mmi iterations)\n", argv[a]);
      MPI_Abort (MPI_COMM_WORLD, 2);
    }
  }
  if (p->npe_i * p->npe_j != nprocs)
    die ("npe_i * npe_j must be the number of ranks");
  if (p->it < 1 || p->jt < 1 || p->kt < 1 || p->mk < 1 || p->mk > p->kt || p->mmi < 1
      || (p->mm != 3 && p->mm != 6) || p->mm % p->mmi != 0)
    die ("need it, jt, kt >= 1, 1 <= mk <= kt, mm 3 or 6, mmi dividing mm");
}

/* The arrays of one rank (x fastest: i, then j, then k, then moment). */
typedef struct {
  int it, jt, kt;
  double *src, *flux, *pflux, *sigt, *qext, *face;
  double *phiib, *phijb, *phikb;   /* faces: [mmi][mk][jt], [mmi][mk][it], [mmi][jt][it] */
  double *phi, *phii;              /* one I-line */
  double *mu, *eta, *tsi, *w, *pn; /* angles: [mm], pn[mm][NM][8] */
  double *hi, *hj, *hk;
  double leak;
} Grid;

#define CELL(g, i, j, k) (((size_t) (k) * (g)->jt + (j)) * (g)->it + (i))
#define SRC(g, i, j, k, n) (g)->src[(size_t) (n) * (g)->it * (g)->jt * (g)->kt + CELL (g, i, j, k)]
#define FLUX(g, i, j, k, n) (g)->flux[(size_t) (n) * (g)->it * (g)->jt * (g)->kt + CELL (g, i, j, k)]
#define FACE(g, d, i, j, k) (g)->face[(size_t) (d) * (g)->it * (g)->jt * (g)->kt + CELL (g, i, j, k)]

static double *
alloc (size_t n)
{
  double *p = calloc (n ? n : 1, sizeof *p);
  if (p == NULL)
    die ("out of memory");
  return p;
}

/* Fault in every page of @a (@n doubles): calloc leaves large arrays as
 * untouched zero pages, whose first write would otherwise fault inside the
 * timed part (a 64^3 run of one iteration took 0.33 s so on this kind of
 * VM, 0.18 s with its pages touched first), which the workload does not
 * model: Sweep3D sets its arrays up before it iterates.  Volatile: a store
 * of the zero calloc already gave is not removed. */
static void
touch (double *a, size_t n)
{
  for (size_t x = 0; x < n; x += 512)
    ((volatile double *) a)[x] = 0.0;
}

static void
grid_init (Grid *g, const Params *p)
{
  g->it = p->it;
  g->jt = p->jt;
  g->kt = p->kt;
  size_t cells = (size_t) p->it * p->jt * p->kt;
  g->src = alloc (NM * cells);
  g->flux = alloc (NM * cells);
  g->pflux = alloc (cells);
  g->sigt = alloc (cells);
  g->qext = alloc (cells);
  g->face = alloc (3 * cells);
  g->phiib = alloc ((size_t) p->mmi * p->mk * p->jt);
  g->phijb = alloc ((size_t) p->mmi * p->mk * p->it);
  g->phikb = alloc ((size_t) p->mmi * p->jt * p->it);
  g->phi = alloc ((size_t) p->it);
  g->phii = alloc ((size_t) p->it);
  g->mu = alloc ((size_t) p->mm);
  g->eta = alloc ((size_t) p->mm);
  g->tsi = alloc ((size_t) p->mm);
  g->w = alloc ((size_t) p->mm);
  g->pn = alloc ((size_t) p->mm * NM * 8);
  g->hi = alloc ((size_t) p->it);
  g->hj = alloc ((size_t) p->jt);
  g->hk = alloc ((size_t) p->kt);
  /* every page touched here, before the timed part */
  touch (g->src, NM * cells);
  touch (g->flux, NM * cells);
  touch (g->pflux, cells);
  touch (g->face, 3 * cells);
  touch (g->phiib, (size_t) p->mmi * p->mk * p->jt);
  touch (g->phijb, (size_t) p->mmi * p->mk * p->it);
  touch (g->phikb, (size_t) p->mmi * p->jt * p->it);
  for (size_t c = 0; c < cells; c++) {
    g->sigt[c] = 1.0 + 0.1 * (double) (c % 7);
    g->qext[c] = 1.0;
  }
  for (int m = 0; m < p->mm; m++) {
    /* direction cosines in (0, 1), mu^2 + eta^2 + tsi^2 close to 1 */
    g->mu[m] = 0.2 + 0.6 * (m + 0.5) / p->mm;
    g->eta[m] = sqrt (0.5 * (1 - g->mu[m] * g->mu[m]));
    g->tsi[m] = g->eta[m];
    g->w[m] = 1.0 / (8 * p->mm);
    for (int n = 0; n < NM; n++)
      for (int q = 0; q < 8; q++)
        g->pn[(m * NM + n) * 8 + q] = n == 0 ? 1.0 : (q & (1 << (n - 1)) ? -1 : 1) * 0.3 * g->mu[m];
  }
  for (int i = 0; i < p->it; i++)
    g->hi[i] = 2.0 / 0.1;
  for (int j = 0; j < p->jt; j++)
    g->hj[j] = 2.0 / 0.1;
  for (int k = 0; k < p->kt; k++)
    g->hk[k] = 2.0 / 0.1;
}

/* source(): per cell 4 mul, 1 add, 5 stores of Src/Pflux, 4 zeroing stores. */
static void
source (Grid *g)
{
  const double sigs0 = 0.5, sigs1 = 0.1;
  for (int k = 0; k < g->kt; k++)
    for (int j = 0; j < g->jt; j++)
      for (int i = 0; i < g->it; i++) {
        SRC (g, i, j, k, 0) = g->qext[CELL (g, i, j, k)] + sigs0 * FLUX (g, i, j, k, 0);
        SRC (g, i, j, k, 1) = sigs1 * FLUX (g, i, j, k, 1);
        SRC (g, i, j, k, 2) = sigs1 * FLUX (g, i, j, k, 2);
        SRC (g, i, j, k, 3) = sigs1 * FLUX (g, i, j, k, 3);
        g->pflux[CELL (g, i, j, k)] = FLUX (g, i, j, k, 0);
        FLUX (g, i, j, k, 0) = 0;
        FLUX (g, i, j, k, 1) = 0;
        FLUX (g, i, j, k, 2) = 0;
        FLUX (g, i, j, k, 3) = 0;
      }
}

/* Per octant and angle block: the K-outflow leakage of the face (3 mul,
 * 1 add), then the face zeroed as the vacuum K inflow. */
static void
angle_setup (Grid *g, const Params *p, int m0)
{
  for (int mi = 0; mi < p->mmi; mi++)
    for (int j = 0; j < g->jt; j++)
      for (int i = 0; i < g->it; i++) {
        double *f = &g->phikb[((size_t) mi * g->jt + j) * g->it + i];
        g->leak += g->w[m0 + mi] * g->tsi[m0 + mi] * g->hi[i] * *f;
        *f = 0;
      }
}

/* One block: nk planes from k-block kk, mmi angles from m0, swept along the
 * JK diagonals in the octant's directions. */
static void
block (Grid *g, const Params *p, int iq, int i2, int j2, int k2, int m0, int kk, int nk,
       int up_ew, int up_ns, int dn_ew, int dn_ns)
{
  const int it = g->it, jt = g->jt, mk = p->mk, mmi = p->mmi;
  /* vacuum inflow faces on the boundary ranks */
  if (up_ew < 0)
    for (int x = 0; x < mmi * mk * jt; x++)
      g->phiib[x] = 0;
  if (up_ns < 0)
    for (int x = 0; x < mmi * mk * it; x++)
      g->phijb[x] = 0;
  for (int d = 0; d < jt + nk + mmi - 2; d++)
    for (int mi = 0; mi < mmi; mi++)
      for (int kl = 0; kl < nk; kl++) {
        int jl = d - mi - kl;
        if (jl < 0 || jl >= jt)
          continue;
        int j = j2 > 0 ? jl : jt - 1 - jl;
        int k0 = kk * mk + kl;
        int k = k2 > 0 ? k0 : g->kt - 1 - k0;
        int m = m0 + mi;
        const double *pn = &g->pn[(size_t) m * NM * 8];
        double ck = g->tsi[m] * g->hk[k], cj = g->eta[m] * g->hj[j];
        double *phiib = &g->phiib[((size_t) mi * mk + kl) * jt + j];
        double *phijb = &g->phijb[((size_t) mi * mk + kl) * it];
        double *phikb = &g->phikb[((size_t) mi * jt + j) * it];
        double phiir = *phiib;
        double *phi = g->phi, *phii = g->phii;
        /* source moments */
        for (int i = 0; i < it; i++)
          phi[i] = SRC (g, i, j, k, 0);
        for (int n = 1; n < NM; n++) {
          double c = pn[n * 8 + iq];
          for (int i = 0; i < it; i++)
            phi[i] += c * SRC (g, i, j, k, n);
        }
        /* balance: the I recursion, without fix-ups (18 flops, 1 divide) */
        double mu = g->mu[m];
        for (int ii = 0; ii < it; ii++) {
          int i = i2 > 0 ? ii : it - 1 - ii;
          double ci = mu * g->hi[i];
          double dl = g->sigt[CELL (g, i, j, k)] + ci + cj + ck;
          dl = 1.0 / dl;
          double ql = phi[i] + ci * phiir + cj * phijb[i] + ck * phikb[i];
          phi[i] = ql * dl;
          phiir = 2.0 * phi[i] - phiir;
          phii[i] = phiir;
          phijb[i] = 2.0 * phi[i] - phijb[i];
          phikb[i] = 2.0 * phi[i] - phikb[i];
        }
        /* flux moments */
        double wm = g->w[m];
        for (int i = 0; i < it; i++)
          FLUX (g, i, j, k, 0) += wm * phi[i];
        for (int n = 1; n < NM; n++) {
          double c = pn[n * 8 + iq];
          for (int i = 0; i < it; i++)
            FLUX (g, i, j, k, n) += c * wm * phi[i];
        }
        /* DSA face currents */
        double wmu = wm * mu, weta = wm * g->eta[m], wtsi = wm * g->tsi[m];
        for (int i = 0; i < it; i++) {
          FACE (g, 0, i, j, k) += wmu * phii[i];
          FACE (g, 1, i, j, k) += weta * phi[i];
          FACE (g, 2, i, j, k) += wtsi * phi[i];
        }
        *phiib = phiir;
      }
  /* outflow leakage on the boundary ranks (3 mul, 1 add) */
  if (dn_ew < 0)
    for (int mi = 0; mi < mmi; mi++)
      for (int kl = 0; kl < nk; kl++)
        for (int j = 0; j < jt; j++)
          g->leak += g->w[m0 + mi] * g->mu[m0 + mi] * g->hj[j]
                     * g->phiib[((size_t) mi * mk + kl) * jt + j];
  if (dn_ns < 0)
    for (int mi = 0; mi < mmi; mi++)
      for (int kl = 0; kl < nk; kl++)
        for (int i = 0; i < it; i++)
          g->leak += g->w[m0 + mi] * g->eta[m0 + mi] * g->hi[i]
                     * g->phijb[((size_t) mi * mk + kl) * it + i];
}

/* flux_err(): the largest relative change of the scalar flux. */
static double
flux_err (const Grid *g)
{
  double err = 0;
  size_t cells = (size_t) g->it * g->jt * g->kt;
  for (size_t c = 0; c < cells; c++) {
    double f = g->flux[c];
    if (f != 0) {
      double df = fabs ((f - g->pflux[c]) / f);
      if (df > err)
        err = df;
    }
  }
  return err;
}

/* The closing balance: per cell 2 mul, 4 add. */
static double
balance (const Grid *g, double *absorb)
{
  double src = 0, abs_ = 0;
  for (int k = 0; k < g->kt; k++)
    for (int j = 0; j < g->jt; j++)
      for (int i = 0; i < g->it; i++) {
        size_t c = CELL (g, i, j, k);
        src += g->qext[c] * SRC (g, i, j, k, 0);
        abs_ += g->sigt[c] * FLUX (g, i, j, k, 0) + g->face[c] + FLUX (g, i, j, k, 1);
      }
  *absorb = abs_;
  return src;
}

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &me);
  MPI_Comm_size (MPI_COMM_WORLD, &nprocs);
  Params p;
  parse (argc, argv, &p);
  Grid g = { 0 };
  grid_init (&g, &p);
  const int P = nprocs, mmo = p.mm / p.mmi, kb = (p.kt + p.mk - 1) / p.mk;
  const int mype_i = me % p.npe_i, mype_j = me / p.npe_i;
  const int east = mype_i < p.npe_i - 1 ? me + 1 : -1, west = mype_i > 0 ? me - 1 : -1;
  const int north = mype_j < p.npe_j - 1 ? me + p.npe_i : -1;
  const int south = mype_j > 0 ? me - p.npe_i : -1;
  const int n_ew = p.jt * p.mk * p.mmi, n_ns = p.it * p.mk * p.mmi;

  MPI_Barrier (MPI_COMM_WORLD);   /* synchronise the clocks: not in the workload */
  MPI_Pcontrol (1);
  double t0 = MPI_Wtime (), c0 = cpu_s ();

  /* set-up: numtasks, tids, barrier, 16 ints and 4 doubles of input */
  int numtasks = P, input_i[16] = { p.npe_i, p.npe_j, p.mk, p.mmi, 0, p.it, p.jt, p.kt, p.mm, 1 };
  int *tids = calloc ((size_t) P, sizeof *tids);
  double input_d[4] = { 0.1, 0.1, 0.1, -(double) p.iterations };
  MPI_Bcast (&numtasks, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Bcast (tids, P, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Barrier (MPI_COMM_WORLD);
  MPI_Bcast (input_i, 16, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Bcast (input_d, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  free (tids);

  /* timed part */
  MPI_Barrier (MPI_COMM_WORLD);
  double err = 0;
  PTI_REUSE_START ();
  for (int its = 1; its <= p.iterations; its++) {
    source (&g);
    for (int iq = 1; iq <= 8; iq++) {
      int i2 = iq >= 5 ? 1 : -1, j2 = ((iq - 1) / 2) % 2 == 1 ? 1 : -1;
      int k2 = iq % 2 == 0 ? 1 : -1;
      int up_ew = i2 > 0 ? west : east, dn_ew = i2 > 0 ? east : west;
      int up_ns = j2 > 0 ? south : north, dn_ns = j2 > 0 ? north : south;
      int tag_ew = i2 > 0 ? 1000 * iq : 3000 * iq, tag_ns = j2 > 0 ? 2000 * iq : 4000 * iq;
      for (int mo = 1; mo <= mmo; mo++) {
        int m0 = (mo - 1) * p.mmi;
        angle_setup (&g, &p, m0);
        for (int kk = 1; kk <= kb; kk++) {
          int nk = p.kt - (kk - 1) * p.mk < p.mk ? p.kt - (kk - 1) * p.mk : p.mk;
          if (up_ew >= 0)
            MPI_Recv (g.phiib, n_ew, MPI_DOUBLE, up_ew, tag_ew, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          if (up_ns >= 0)
            MPI_Recv (g.phijb, n_ns, MPI_DOUBLE, up_ns, tag_ns, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          block (&g, &p, iq - 1, i2, j2, k2, m0, kk - 1, nk, up_ew, up_ns, dn_ew, dn_ns);
          if (dn_ew >= 0)
            MPI_Send (g.phiib, n_ew, MPI_DOUBLE, dn_ew, tag_ew, MPI_COMM_WORLD);
          if (dn_ns >= 0)
            MPI_Send (g.phijb, n_ns, MPI_DOUBLE, dn_ns, tag_ns, MPI_COMM_WORLD);
        }
      }
    }
    int nfixed = 0, total_fixed;
    MPI_Allreduce (&nfixed, &total_fixed, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    double local = flux_err (&g);
    MPI_Allreduce (&local, &err, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  }
  PTI_REUSE_STOP ();
  MPI_Barrier (MPI_COMM_WORLD);

  /* after the timed part: balance and 8 global sums */
  double absorb, sums[8], totals[8];
  sums[0] = balance (&g, &absorb);
  sums[1] = absorb;
  for (int n = 2; n < 8; n++)
    sums[n] = g.leak / 6;
  for (int n = 0; n < 8; n++)
    MPI_Allreduce (&sums[n], &totals[n], 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);

  double t = MPI_Wtime () - t0, tmax;
  double busy[2] = { cpu_s () - c0, 0 }, cpu[2];
  MPI_Pcontrol (0);
  MPI_Reduce (&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  busy[1] = -busy[0] / t;   /* max of -(cpu / wall): the least busy rank */
  MPI_Reduce (busy, cpu, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  double check = 0;
  size_t cells = (size_t) p.it * p.jt * p.kt;
  for (size_t c = 0; c < cells; c++)
    check += g.flux[c];
  double all;
  MPI_Reduce (&check, &all, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (me == 0)
    printf ("result program=sweep3d ranks=%d time_s=%.9f cpu_s=%.9f busy=%.4f flux=%.12g "
            "err=%.6g source=%.9g npe_i=%d npe_j=%d it=%d jt=%d kt=%d mk=%d mm=%d mmi=%d "
            "iterations=%d\n", P, tmax, cpu[0], -cpu[1], all, err, totals[0], p.npe_i, p.npe_j,
            p.it, p.jt, p.kt, p.mk, p.mm, p.mmi, p.iterations);
  MPI_Finalize ();
  return 0;
}
