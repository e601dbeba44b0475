/* A real MPI counterpart of wsl/examples/sweep3d.xml: the KBA wavefront of
 * Sweep3D over an npe_i x npe_j process grid (8 octants, mmo angle blocks,
 * kb k-blocks, pipelined sends and receives of the block faces), with a
 * cell-angle kernel of 41 flops and Sweep3D's flux fix-ups (extra flops
 * for a few cells, which the model leaves out), instrumented with the pti
 * region `sweep` around the timed iterations, as the workload's phase.
 * Usage: sweep NPE_I NPE_J IT JT KT MK MM MMI ITERATIONS */
#include <mpi.h>
#include <pti/region.h>

#include <stdio.h>
#include <stdlib.h>

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  int rank, size;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  if (argc < 10) {
    if (rank == 0)
      fprintf (stderr, "usage: sweep NPE_I NPE_J IT JT KT MK MM MMI ITERATIONS\n");
    MPI_Finalize ();
    return 2;
  }
  int v[9];
  static const char *const names[9] = { "npe_i", "npe_j", "it", "jt", "kt", "mk", "mm", "mmi",
                                         "iterations" };
  for (int i = 0; i < 9; i++) {
    v[i] = atoi (argv[i + 1]);
    pti_region_param (names[i], v[i]);
  }
  int npe_i = v[0], npe_j = v[1], it = v[2], jt = v[3], kt = v[4], mk = v[5], mm = v[6],
      mmi = v[7], iterations = v[8];
  if (npe_i * npe_j != size) {
    if (rank == 0)
      fprintf (stderr, "sweep: npe_i * npe_j = %d, but %d ranks\n", npe_i * npe_j, size);
    MPI_Abort (MPI_COMM_WORLD, 2);
  }
  pti_region_param ("setup", 0);
  int mmo = mm / mmi, kb = (kt + mk - 1) / mk;
  int mype_i = rank % npe_i, mype_j = rank / npe_i;
  int east = mype_i < npe_i - 1 ? rank + 1 : -1, west = mype_i > 0 ? rank - 1 : -1;
  int north = mype_j < npe_j - 1 ? rank + npe_i : -1, south = mype_j > 0 ? rank - npe_i : -1;
  /* one message per k-block and direction to each downstream neighbour */
  pti_region_assert ("sweep", "sweep_sends",
                     "messages == iterations * 4 * mmo_ * kb_ * ((east_ >= 0) + (west_ >= 0) + (north_ >= 0) + (south_ >= 0))",
                     PTI_REACT_REPORT);
  /* with a prediction (PTI_PREDICTION=ptieval's --json of this run's
   * workload or capture), the real sweep may take at most 1.5 times it */
  if (getenv ("PTI_PREDICTION") != NULL)
    pti_region_assert ("sweep", "sweep_vs_prediction", "time < 1.5 * predicted_time",
                       PTI_REACT_REPORT);
  pti_region_param ("mmo_", mmo);
  pti_region_param ("kb_", kb);
  pti_region_param ("east_", east);
  pti_region_param ("west_", west);
  pti_region_param ("north_", north);
  pti_region_param ("south_", south);

  size_t face_ew = (size_t) jt * mk * mmi, face_ns = (size_t) it * mk * mmi;
  double *ew_in = calloc (face_ew, sizeof (double)), *ew_out = calloc (face_ew, sizeof (double));
  double *ns_in = calloc (face_ns, sizeof (double)), *ns_out = calloc (face_ns, sizeof (double));
  double *phi = calloc ((size_t) it * jt * mk, sizeof (double));
  double *src = malloc ((size_t) it * jt * mk * sizeof (double));
  for (size_t i = 0; i < (size_t) it * jt * mk; i++)
    src[i] = 1.0 + (double) (i % 7) * 0.01;

  MPI_Barrier (MPI_COMM_WORLD);
  pti_region_begin ("sweep");
  for (int its = 1; its <= iterations; its++) {
    for (int iq = 1; iq <= 8; iq++) {
      int i2 = iq >= 5 ? 1 : -1, j2 = ((iq - 1) / 2) % 2 == 1 ? 1 : -1;
      int up_ew = i2 > 0 ? west : east, dn_ew = i2 > 0 ? east : west;
      int up_ns = j2 > 0 ? south : north, dn_ns = j2 > 0 ? north : south;
      int tag_ew = i2 > 0 ? 1000 * iq : 3000 * iq, tag_ns = j2 > 0 ? 2000 * iq : 4000 * iq;
      for (int mo = 1; mo <= mmo; mo++)
        for (int kk = 1; kk <= kb; kk++) {
          int nk = mk < kt - (kk - 1) * mk ? mk : kt - (kk - 1) * mk;
          if (up_ew >= 0)
            MPI_Recv (ew_in, (int) face_ew, MPI_DOUBLE, up_ew, tag_ew, MPI_COMM_WORLD,
                      MPI_STATUS_IGNORE);
          if (up_ns >= 0)
            MPI_Recv (ns_in, (int) face_ns, MPI_DOUBLE, up_ns, tag_ns, MPI_COMM_WORLD,
                      MPI_STATUS_IGNORE);
          /* the block: per cell and angle, balance (18 flops), source and
           * flux moments (6 + 11) and DSA face currents (6): 41 */
          double fixups = 0;
          for (int m = 0; m < mmi; m++)
            for (int k = 0; k < nk; k++)
              for (int j = 0; j < jt; j++)
                for (int i = 0; i < it; i++) {
                  size_t c = ((size_t) k * jt + j) * it + i;
                  double s = src[c], a = ew_in[(size_t) (m * mk + k) * jt + j];
                  double b = ns_in[(size_t) (m * mk + k) * it + i];
                  double psi = (s + 0.3 * a + 0.2 * b) / (1.0 + 0.5 + 0.25);
                  double t = psi * 0.5;
                  for (int rep = 0; rep < 6; rep++)
                    t = t * 0.9 + psi * 0.1 + 0.001 * rep;
                  phi[c] += t;
                  if (psi < 0.5751) {   /* a negative-flux fix-up: a few cells */
                    psi = 0.5 * (psi + 0.5751);
                    fixups += 1;
                  }
                  ew_out[(size_t) (m * mk + k) * jt + j] = psi;
                  ns_out[(size_t) (m * mk + k) * it + i] = psi;
                }
          pti_region_count ("flops", 41.0 * mmi * nk * jt * it + 10.0 * fixups);
          if (dn_ew >= 0)
            MPI_Send (ew_out, (int) face_ew, MPI_DOUBLE, dn_ew, tag_ew, MPI_COMM_WORLD);
          if (dn_ns >= 0)
            MPI_Send (ns_out, (int) face_ns, MPI_DOUBLE, dn_ns, tag_ns, MPI_COMM_WORLD);
        }
    }
    int nfixed = 0, all;
    MPI_Allreduce (&nfixed, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    double err = 0, gerr;
    MPI_Allreduce (&err, &gerr, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  }
  MPI_Barrier (MPI_COMM_WORLD);
  pti_region_end ("sweep");
  double total = 0;
  for (size_t i = 0; i < (size_t) it * jt * mk; i++)
    total += phi[i];
  double sums[8] = { total }, out[8];
  for (int n = 0; n < 8; n++)
    MPI_Allreduce (&sums[n], &out[n], 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf ("sweep: %dx%d ranks, %dx%dx%d per rank: %.6g\n", npe_i, npe_j, it, jt, kt, out[0]);
  free (ew_in), free (ew_out), free (ns_in), free (ns_out), free (phi), free (src);
  MPI_Finalize ();
  return 0;
}
