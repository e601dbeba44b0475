/* A real MPI counterpart of wsl/examples/cg.xml (NAS CG's communication on
 * a 2-D process grid, its vector operations and a sparse matrix-vector
 * product over a random CSR block), instrumented with pti regions: each
 * outer iteration is the region `solve`, whose flops the program counts as
 * it does them.  Usage: cg NA NONZER NITER [TIME_LIMIT_S]
 * The row lengths are random (mean nzrow*nc/na, as cg.xml assumes), so the
 * flops differ a little from the model; messages and bytes do not. */
#include <mpi.h>
#include <pti/region.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t seed = 12345;

static double
rnd (void)
{
  seed = seed * 6364136223846793005ull + 1442695040888963407ull;
  return (double) (seed >> 11) / 9007199254740992.0;
}

static int np_rows, np_cols, L, square, rank;
static int nr, nc, send_len, exch, proc_row, proc_col;

static int
partner (int i)
{
  int half = 1 << (L - i);
  return proc_row * np_cols + (proc_col + half) % (2 * half) + (proc_col / (2 * half)) * 2 * half;
}

/* NPB's pairwise swap: irecv, send, wait */
static void
xchg (int p, const double *s, int ns, double *r, int nrecv, int tag)
{
  MPI_Request req;
  MPI_Irecv (r, nrecv, MPI_DOUBLE, p, tag, MPI_COMM_WORLD, &req);
  MPI_Send (s, ns, MPI_DOUBLE, p, tag, MPI_COMM_WORLD);
  MPI_Wait (&req, MPI_STATUS_IGNORE);
}

/* XCHG_L: sums @n scalars along the processor row */
static void
xchg_l (double *v, int n)
{
  double in[2];
  for (int i = 1; i <= L; i++) {
    xchg (partner (i), v, n, in, n, i);
    for (int k = 0; k < n; k++)
      v[k] += in[k];
  }
}

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  int procs;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &procs);
  if (argc < 4) {
    if (rank == 0)
      fprintf (stderr, "usage: cg NA NONZER NITER [TIME_LIMIT_S]\n");
    MPI_Finalize ();
    return 2;
  }
  int na = atoi (argv[1]), nonzer = atoi (argv[2]), niter = atoi (argv[3]);
  double limit = argc > 4 ? atof (argv[4]) : 60;
  int k = 0;
  while ((1 << k) < procs)
    k++;
  np_rows = 1 << (k / 2);
  np_cols = 1 << ((k + 1) / 2);
  L = (k + 1) / 2;
  square = np_rows == np_cols;
  int nzrow = nonzer * (nonzer + 1);

  /* what ptivalidate evaluates the model with */
  pti_region_param ("na", na);
  pti_region_param ("nonzer", nonzer);
  pti_region_param ("niter", niter);
  pti_region_param ("procs", procs);
  pti_region_param ("limit", limit);
  /* seed 000: expectations next to the code, checked at every end of solve */
  pti_region_assert ("solve", "solve_messages", "messages == 79 * L_ + 26", PTI_REACT_REPORT);
  pti_region_assert ("solve", "solve_time", "time < limit", PTI_REACT_REPORT);
  pti_region_assert ("solve", "solve_intensity", "flops / (bytes + 1) > 1", PTI_REACT_REPORT);
  if (getenv ("PTI_PREDICTION") != NULL)
    pti_region_assert ("solve", "solve_predicted", "time < 2 * predicted_time", PTI_REACT_REPORT);
  pti_region_param ("L_", L);

  proc_row = rank / np_cols;
  proc_col = rank % np_cols;
  int even = rank % 2 == 0;
  nr = na / np_rows + (proc_row < na % np_rows);
  int pair = na / np_rows + (proc_col / 2 < na % np_rows);
  nc = square ? na / np_cols + (proc_col < na % np_cols) : (even ? (pair + 1) / 2 : pair / 2);
  send_len = square ? nr : (even ? (nr + 1) / 2 : nr / 2);
  exch = square ? (rank % np_rows) * np_rows + rank / np_rows
                : 2 * (((rank / 2) % np_rows) * np_rows + (rank / 2) / np_rows) + rank % 2;

  /* the matrix block: nr rows of random length, mean nzrow*nc/na */
  seed += (uint64_t) rank * 7919;
  double mean = (double) nzrow * nc / na;
  int *rowstr = malloc ((size_t) (nr + 1) * sizeof *rowstr);
  rowstr[0] = 0;
  for (int j = 0; j < nr; j++)
    rowstr[j + 1] = rowstr[j] + (int) floor (2 * mean * rnd () + 0.5);
  int nnz = rowstr[nr];
  int *colidx = malloc ((size_t) (nnz + 1) * sizeof *colidx);
  double *a = malloc ((size_t) (nnz + 1) * sizeof *a);
  for (int i = 0; i < nnz; i++) {
    colidx[i] = (int) (rnd () * nc) % nc;
    a[i] = rnd () / (mean + 1);
  }
  int nv = (nr > nc ? nr : nc) + 1;
  double *x = malloc ((size_t) nv * sizeof (double)), *z = calloc ((size_t) nv, sizeof (double)),
         *p = calloc ((size_t) nv, sizeof (double)), *q = calloc ((size_t) nv, sizeof (double)),
         *r = calloc ((size_t) nv, sizeof (double)), *w = calloc ((size_t) nv, sizeof (double)),
         *buf = calloc ((size_t) nv, sizeof (double));
  for (int j = 0; j < nv; j++)
    x[j] = 1.0;

  int timeron = 0;
  MPI_Bcast (&timeron, 1, MPI_INT, 0, MPI_COMM_WORLD);
  for (int it = 0; it <= niter; it++) {
    pti_region_begin ("solve");
    for (int j = 0; j < nv; j++) {   /* init over na + 1 in NPB; here the local vectors */
      q[j] = z[j] = 0;
      r[j] = p[j] = x[j];
      w[j] = 0;
    }
    double rho[2] = { 0, 0 };
    for (int j = 0; j < nc; j++)
      rho[0] += r[j] * r[j];
    pti_region_count ("flops", 2.0 * nc);
    xchg_l (rho, 1);
    for (int cgit = 1; cgit <= 26; cgit++) {   /* 25 iterations, then A.z */
      double *v = cgit <= 25 ? p : z;
      for (int j = 0; j < nr; j++) {   /* spmv */
        double sum = 0;
        for (int kk = rowstr[j]; kk < rowstr[j + 1]; kk++)
          sum += a[kk] * v[colidx[kk]];
        w[j] = sum;
      }
      pti_region_count ("flops", 2.0 * nnz);
      for (int i = L; i >= 1; i--) {   /* row reduction */
        int len = square ? nr : send_len;
        int ns = square ? nr : (i == L ? nr - send_len : send_len);
        xchg (partner (i), w + (square || i != L || !even ? 0 : 0), ns, buf, len, i);
        for (int j = 0; j < len; j++)
          w[j] += buf[j];
        pti_region_count ("flops", len);
      }
      if (L > 0) {   /* transpose */
        xchg (exch, w, send_len, buf, nc, 1);
        memcpy (q, buf, (size_t) nc * sizeof *q);
      }
      if (cgit == 26)
        break;
      double d[2] = { 0, 0 };
      for (int j = 0; j < nc; j++)
        d[0] += p[j] * q[j];
      pti_region_count ("flops", 2.0 * nc);
      xchg_l (d, 1);
      double alpha = rho[0] / (d[0] + 1e-300), rho0 = rho[0];
      rho[0] = 0;
      for (int j = 0; j < nc; j++) {
        z[j] += alpha * p[j];
        r[j] -= alpha * q[j];
        rho[0] += r[j] * r[j];
      }
      pti_region_count ("flops", 6.0 * nc);
      xchg_l (rho, 1);
      double beta = rho[0] / (rho0 + 1e-300);
      for (int j = 0; j < nc; j++)
        p[j] = r[j] + beta * p[j];
      pti_region_count ("flops", 2.0 * nc);
    }
    double sum[2] = { 0, 0 };
    for (int j = 0; j < nc; j++) {
      double dd = x[j] - q[j];
      sum[0] += dd * dd;
    }
    pti_region_count ("flops", 3.0 * nc);
    xchg_l (sum, 1);
    double nrm[2] = { 0, 0 };
    for (int j = 0; j < nc; j++) {
      nrm[0] += x[j] * z[j];
      nrm[1] += z[j] * z[j];
    }
    pti_region_count ("flops", 4.0 * nc);
    xchg_l (nrm, 2);
    double norm = 1 / sqrt (nrm[1] + 1e-300);
    for (int j = 0; j < nc; j++)
      x[j] = norm * z[j];
    pti_region_count ("flops", 1.0 * nc);
    pti_region_end ("solve");
    if (it == 0)
      MPI_Barrier (MPI_COMM_WORLD);
  }
  double t = 0, tmax;
  MPI_Reduce (&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf ("cg: na %d nonzer %d niter %d on %d ranks: x[0] = %.6g\n", na, nonzer, niter, procs,
            x[0]);
  free (rowstr), free (colidx), free (a), free (x), free (z), free (p), free (q), free (r), free (w),
    free (buf);
  MPI_Finalize ();
  return 0;
}
