/* HPC Challenge's PTRANS (C = A^T + C, PTRANS/pdtrans.c) on a 1 x Q grid,
 * its accesses reproduced loop for loop and each phase timed apart, to say
 * what the transpose spends its time on (issue 13; wsl/examples/
 * hpcc-ptrans.xml models it).  Columns are dealt in blocks of nb, block b
 * to rank b % Q (numroc); A and C are n x (the rank's columns), column-major,
 * leading dimension n.  As pdtrans does on a 1 x Q grid:
 *
 *   local   on Q = 1 one block of the whole matrix, else blocks of nb x nb:
 *           for each of the rank's row blocks of A, each of its columns jj,
 *           each row k of the block:  C(col jj's global index, k) += A(k, jj)
 *           (A read down a column, C written across its columns, ldc apart);
 *   pack    for each peer: each of the peer's row blocks of A, each of the
 *           rank's columns jj, each row k: T(jj, k) = A(k, jj), T of leading
 *           dimension nl (the padded buffer, nl = ceil(ceil(n/nb)/Q) nb);
 *   xchg    one MPI_Sendrecv of the nl x nl buffer each way;
 *   unpack  for each of the peer's row blocks of C, each of the rank's
 *           columns jj, each row k of the block: C(k, jj) += R(k, jj), runs
 *           of nb doubles of C and of the received buffer R.
 *
 * Before each transpose A and C are written again (hpcc regenerates them,
 * so they start where pdmatgen leaves them: in the caches as far as they
 * fit), then a barrier; the span is timed from it, as PTRANS_time is.
 *
 * With PRIVATE = 1 each transpose first packs the same part into a buffer
 * no other process reads (phase pack-private, not in the span): what the
 * pack costs when its lines are not the ones the other CPU read in the
 * last exchange.
 *
 *   mpirun -np Q ptrans-phases N [NB [REPS [PRIVATE]]]
 * prints per phase the median, least and largest over REPS transposes of the
 * slowest rank's time and rank 0's ns per element of the phase, then each
 * rank's own median (the exchange holds the wait for the later rank):
 *   phase=local|pack|xchg|unpack|span|pack-private us=.. min_us=.. max_us=.. elements=..
 *         ns_per_element=..
 *   rank=R local_us=.. pack_us=.. xchg_us=.. unpack_us=.. span_us=.. pack-private_us=.. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timing.h"

/* the columns of rank r (numroc) */
static int
columns_of (int n, int nb, int r, int q)
{
  int c = 0;
  for (int b = 0; b * nb < n; b++)
    if (b % q == r)
      c += (n - b * nb < nb) ? n - b * nb : nb;
  return c;
}

/* the global index of local column j of rank r */
static int
global_of (int j, int nb, int r, int q)
{
  return ((j / nb) * q + r) * nb + j % nb;
}

enum { LOCAL, PACK, XCHG, UNPACK, SPAN, PRIVATE, PHASES };
static const char *names[PHASES] = { "local", "pack", "xchg", "unpack", "span", "pack-private" };

/* The pack of pdtrans's dtr2bf_ on a 1 x Q grid: rank @to's row blocks of
 * A (n x mine, leading dimension ld) into @t (leading dimension nl),
 * transposed.  Returns the elements packed. */
static long
pack (double *t, long nl, const double *a, size_t ld, int n, int nb, int q, int to, int mine)
{
  long count = 0;
  for (int i0 = to * nb, kb = 0; i0 < n; i0 += q * nb, kb++) {
    int rows = n - i0 < nb ? n - i0 : nb;
    for (int jj = 0; jj < mine; jj++) {
      const double *ac = a + ld * jj + i0;
      double *tr = t + jj + nl * (long) kb * nb;
      for (int k = 0; k < rows; k++)
        tr[nl * k] = ac[k];
    }
    count += (long) rows * mine;
  }
  return count;
}

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  int me, q;
  MPI_Comm_rank (MPI_COMM_WORLD, &me);
  MPI_Comm_size (MPI_COMM_WORLD, &q);
  int n = argc > 1 ? atoi (argv[1]) : 0, nb = argc > 2 ? atoi (argv[2]) : 80;
  int reps = argc > 3 ? atoi (argv[3]) : 20, private = argc > 4 ? atoi (argv[4]) : 0;
  if (n < 1 || nb < 1 || reps < 1 || (private != 0 && private != 1)) {
    if (me == 0)
      fprintf (stderr, "usage: %s N [NB [REPS [PRIVATE]]]  (N, NB, REPS >= 1; PRIVATE 0 or 1)\n",
               argv[0]);
    MPI_Finalize ();
    return 2;
  }
  int mine = columns_of (n, nb, me, q);
  long nl = (long) ((n + nb - 1) / nb + q - 1) / q * nb;
  size_t ld = (size_t) n;
  size_t cells = ld * (mine > 0 ? (size_t) mine : 1);   /* a rank may own no column */
  double *a = malloc (cells * sizeof *a), *c = malloc (cells * sizeof *c);
  double *t = malloc (nl * nl * sizeof *t), *r = malloc (nl * nl * sizeof *r);
  double *own = malloc (nl * nl * sizeof *own);
  double *times = calloc ((size_t) reps * PHASES, sizeof *times);
  if (!a || !c || !t || !r || !own || !times) {
    fprintf (stderr, "ptrans-phases: out of memory for n = %d\n", n);
    MPI_Abort (MPI_COMM_WORLD, 1);
  }
  memset (t, 0, nl * nl * sizeof *t);
  memset (r, 0, nl * nl * sizeof *r);
  memset (own, 0, nl * nl * sizeof *own);
  long elements[PHASES] = { 0 };
  unsigned seed = 12345u + me;
  for (int rep = 0; rep < reps; rep++) {
    for (size_t i = 0; i < ld * mine; i++) {
      seed = seed * 1103515245u + 12345u;
      a[i] = seed / 4294967296.0;
      c[i] = 1.0 - a[i];
    }
    MPI_Barrier (MPI_COMM_WORLD);
    double t0 = now (), *ph = times + (size_t) rep * PHASES;
    long cnt[PHASES] = { 0 };
    /* local: the rank's row blocks of A against its columns */
    int rb = q == 1 ? n : nb;
    for (int i0 = me * nb * (q > 1); i0 < n; i0 += (q == 1 ? n : q * nb)) {
      int rows = n - i0 < rb ? n - i0 : rb, ci = i0 / (q * nb) * nb;  /* C's local column of row i0 */
      if (q == 1)
        ci = 0;
      for (int jj = 0; jj < mine; jj++) {
        const double *ac = a + ld * jj + i0;
        double *cr = c + global_of (jj, nb, me, q) + ld * ci;
        for (int k = 0; k < rows; k++)
          cr[ld * k] += ac[k];
      }
      cnt[LOCAL] += (long) rows * mine;
    }
    ph[LOCAL] = now () - t0;
    for (int d = 1; d < q; d++) {
      int to = (me - d + q) % q, from = (me + d) % q;
      if (private) {
        double t0p = now ();
        cnt[PRIVATE] += pack (own, nl, a, ld, n, nb, q, to, mine);
        ph[PRIVATE] += now () - t0p;
      }
      double t1 = now ();
      cnt[PACK] += pack (t, nl, a, ld, n, nb, q, to, mine);
      double t2 = now ();
      MPI_Sendrecv (t, (int) (nl * nl), MPI_DOUBLE, to, 0, r, (int) (nl * nl), MPI_DOUBLE, from, 0,
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      double t3 = now ();
      cnt[XCHG] += nl * nl;
      /* R(i, j) = the peer's A(row j's global index, its column i): i over the peer's
         columns (C's rows, in the peer's blocks), j over this rank's columns */
      for (int i0 = from * nb, kb = 0; i0 < n; i0 += q * nb, kb++) {
        int rows = n - i0 < nb ? n - i0 : nb;
        for (int jj = 0; jj < mine; jj++) {
          double *cc = c + ld * jj + i0;
          const double *rc = r + (long) kb * nb + nl * jj;
          for (int k = 0; k < rows; k++)
            cc[k] += rc[k];
        }
        cnt[UNPACK] += (long) rows * mine;
      }
      double t4 = now ();
      ph[PACK] += t2 - t1;
      ph[XCHG] += t3 - t2;
      ph[UNPACK] += t4 - t3;
    }
    ph[SPAN] = now () - t0 - ph[PRIVATE];
    cnt[SPAN] = (long) n * mine;
    for (int p = 0; p < PHASES; p++)
      elements[p] = cnt[p];
  }
  /* every rank's times; the slowest rank's per phase and transpose */
  double *all = malloc ((size_t) q * reps * PHASES * sizeof *all);
  double *slow = malloc ((size_t) reps * PHASES * sizeof *slow);
  if (all == NULL || slow == NULL)
    MPI_Abort (MPI_COMM_WORLD, 1);
  MPI_Gather (times, reps * PHASES, MPI_DOUBLE, all, reps * PHASES, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Reduce (times, slow, reps * PHASES, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (me == 0) {
    double sink = 0;
    for (size_t i = 0; i < ld * mine; i++)
      sink += c[i];
    printf ("n=%d nb=%d ranks=%d reps=%d columns=%d buffer=%ld (checksum %.3g)\n", n, nb, q, reps,
            mine, nl, sink);
    double *v = malloc (reps * sizeof *v);
    for (int p = 0; p < PHASES; p++) {
      if ((q == 1 && (p == PACK || p == XCHG || p == UNPACK)) || (p == PRIVATE && (!private || q == 1)))
        continue;
      for (int i = 0; i < reps; i++)
        v[i] = slow[(size_t) i * PHASES + p];
      qsort (v, reps, sizeof *v, cmp_double);
      double med = v[reps / 2];
      printf ("phase=%s us=%.1f min_us=%.1f max_us=%.1f elements=%ld ns_per_element=%.3f\n",
              names[p], med * 1e6, v[0] * 1e6, v[reps - 1] * 1e6, elements[p],
              elements[p] ? med * 1e9 / elements[p] : 0.0);
    }
    for (int rk = 0; rk < q && q > 1; rk++) {
      printf ("rank=%d", rk);
      for (int p = 0; p < PHASES - !private; p++) {
        for (int i = 0; i < reps; i++)
          v[i] = all[((size_t) rk * reps + i) * PHASES + p];
        qsort (v, reps, sizeof *v, cmp_double);
        printf (" %s_us=%.1f", names[p], v[reps / 2] * 1e6);
      }
      printf ("\n");
    }
    free (v);
  }
  free (slow);
  free (all);
  free (times);
  free (a);
  free (c);
  free (t);
  free (r);
  free (own);
  MPI_Finalize ();
  return 0;
}
