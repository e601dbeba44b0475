/* The MPI library's point-to-point figures between two ranks of this host,
 * from real messages (mpi-probe.c, built with the host's mpicc and run with
 * its mpirun), fitted to net-simple's parameters, with the piecewise fit
 * and the LogGP form beside them. */
#include "calibrate.h"

#include <pti/hmi.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

static char *
size_list (gboolean quick)
{
  if (quick)
    return g_strdup ("0,8,64,256,512,1024,4096,16384,65536,262144,1048576");
  GString *s = g_string_new ("0");
  for (long b = 1; b <= 4L << 20; b *= 2) {
    g_string_append_printf (s, ",%ld", b);
    if (b >= 64 && b + b / 2 < 4L << 20)
      g_string_append_printf (s, ",%ld", b + b / 2);
  }
  return g_string_free (s, FALSE);
}

static int
cmp_size (const void *a, const void *b)
{
  double x = ((const CalSize *) a)->bytes, y = ((const CalSize *) b)->bytes;
  return x < y ? -1 : x > y;
}

static char *
fmt_bytes (double b)
{
  if (b >= 1 << 20 && fmod (b, 1 << 20) == 0)
    return cal_strdup_printf ("%g MiB", b / (1 << 20));
  if (b >= 1024 && fmod (b, 1024) == 0)
    return cal_strdup_printf ("%g KiB", b / 1024);
  return cal_strdup_printf ("%g B", b);
}


/* net-simple's size pieces from the piecewise fit of the one-way times
 * (models/net-simple/README.md): a piece of one-way time a + n b prices a
 * message with L = a - o_s - o_r when eager, less also the two 0-byte
 * handshake messages (2 L of the first piece) when rendezvous, and B =
 * 1/b.  A piece extends to the next one's first size (or the eager limit,
 * where the protocol changes).  A piece whose a leaves a negative L
 * (a below the overheads measured apart and the handshake: 220 ns below
 * for the 1.5-3 KiB piece in the runs of 2026-11-25) keeps L = 0,
 * pricing its messages that much above the fit (its comment says by how
 * much): stopping there, as before, left every larger size to the
 * overall L and B, 2.0-2.4 us for a 12-16 KiB message measured at
 * 5.1-5.5.  They stop at the first piece without a positive cost per
 * byte, above which the overall L and B apply.  Returns how many. */
guint
cal_node_pieces (const CalNet *net, const CalPiece *pieces, guint npieces,
                 CalNodePiece *out)
{
  double overheads = net->send_overhead + net->recv_overhead, l_first = NAN;
  guint written = 0;
  for (guint k = 0; k < npieces; k++) {
    const CalPiece *p = &pieces[k];
    gboolean rendezvous = p->lo > (double) net->eager_limit;
    double rest = p->a - overheads;
    double l = k == 0 ? (rendezvous ? rest / 3 : rest) : (rendezvous ? rest - 2 * l_first : rest);
    if (!(p->b > 0) || isnan (l))
      break;
    double below = l < 0 ? -l : 0;
    l = MAX (l, 0.0);
    if (k == 0)
      l_first = l;
    double up_to = k + 1 < npieces ? pieces[k + 1].lo - 1 : p->hi;
    if (p->hi <= (double) net->eager_limit && up_to > (double) net->eager_limit)
      up_to = (double) net->eager_limit;
    out[written++] = (CalNodePiece) { up_to, l, 1 / p->b, p, rendezvous, NAN, NAN, NAN, 0, 0,
                                      0, below };
  }
  return written;
}

/* A lone message's work in net-node: L + n/B of the piece that prices it
 * (@above: the top-level L and B, for sizes above the last piece). */
static double
lone_work (const CalNodePiece *pc, guint n, const CalNodePiece *above, double bytes)
{
  for (guint k = 0; k < n; k++)
    if (bytes <= pc[k].up_to)
      return pc[k].latency + bytes / pc[k].bandwidth;
  return above->latency + bytes / above->bandwidth;
}

/* Where an exchange of a piece's sizes may stray from what their own
 * share gives it before the piece is cut (cal_share_runs): 4% of its
 * time. */
#define SHARE_TOLERANCE 0.04

/* net-node's share of the node a lone message uses, from the exchanges:
 * both ranks send n bytes at once and each message takes max(1, 2 w)
 * times its lone work D (the handshake and the overheads unchanged), so
 * an exchange measured at t_x against a one-way time t_1 alone gives
 * w = (t_x - t_1 + D) / (2 D).  Within a size piece of the fit w drifts
 * with size (on this kind of VM from 0.69 at 4 KiB to 0.54 at 512 KiB):
 * the piece is cut into runs of sizes that one share serves within
 * SHARE_TOLERANCE of their exchanges (cal_share_runs), each run a piece of
 * its own with the fit's L and B (so a lone message costs what it did)
 * and the median of its w, kept within [0.05, 1] (a share is a fraction of
 * the node; below 1/2 two messages go at full speed anyway); neighbours
 * whose shares come out equal are one piece.  A run extends to the next
 * one's first size.  @pc's @n pieces become the returned number in @out
 * (room for @max_out); above the last piece, the median of the
 * sizes above it, uncut. */
static guint
node_shares (const CalNodePiece *pc, guint n, CalNodePiece *above, const CalSize *pp,
             guint npp, const CalSize *xch, guint nx, CalNodePiece *out, guint max_out)
{
  guint written = 0;
  for (guint k = 0; k <= n; k++) {
    const CalNodePiece *piece = k < n ? &pc[k] : above;
    double lo = k == 0 ? 0 : pc[k - 1].up_to, hi = k < n ? pc[k].up_to : INFINITY;
    double w[64], sens[64], bytes[64];
    guint m = 0;
    for (guint i = 0; i < nx && m < G_N_ELEMENTS (w); i++) {
      if (!(xch[i].bytes > lo && xch[i].bytes <= hi))
        continue;
      for (guint j = 0; j < npp; j++)
        if (pp[j].bytes == xch[i].bytes) {
          double d = lone_work (pc, n, above, xch[i].bytes);
          bytes[m] = xch[i].bytes;
          sens[m] = 2 * d / (xch[i].t.med * 1e-9);
          w[m++] = ((xch[i].t.med - pp[j].t.med) * 1e-9 + d) / (2 * d);
        }
    }
    guint start[65] = { 0 };
    guint runs = k < n ? cal_share_runs (w, sens, m, SHARE_TOLERANCE, start) : m > 0;
    if (runs == 0 && k < n && written < max_out)
      out[written++] = *piece;   /* no exchange measured: the share above */
    start[runs] = m;
    for (guint r = 0; r < runs; r++) {
      double v[64];
      guint from = start[r], count = start[r + 1] - from;
      memcpy (v, w + from, count * sizeof *v);
      double share = CLAMP (cal_median (v, count), 0.05, 1.0);
      CalNodePiece *o;
      if (k == n)
        o = above;
      else if (written > 0 && out[written - 1].fit == piece->fit && out[written - 1].share == share)
        o = &out[written - 1];   /* the same share as its neighbour: one piece */
      else if (written < max_out) {
        o = &out[written++];
        *o = *piece;
        o->share_n = 0;
        o->first_bytes = bytes[from];
      } else {   /* more runs than net-node reads pieces: the last one reaches on */
        out[written - 1].up_to = piece->up_to;
        break;
      }
      if (k < n)
        o->up_to = r + 1 < runs ? bytes[start[r + 1]] - 1 : piece->up_to;
      o->share = share;
      o->share_lo = o->share_n == 0 ? v[0] : MIN (o->share_lo, v[0]);
      o->share_hi = o->share_n == 0 ? v[count - 1] : MAX (o->share_hi, v[count - 1]);
      o->share_n += count;
      o->last_bytes = bytes[from + count - 1];
    }
  }
  if (isnan (above->share)) {   /* no size above the last piece: the largest piece's */
    for (guint k = written; k-- > 0 && isnan (above->share);)
      if (!isnan (out[k].share))
        above->share = out[k].share;
    if (isnan (above->share))
      above->share = 1;
  }
  return written;
}

static void
append_share (GString *xml, const CalNodePiece *pc, int indent)
{
  if (isnan (pc->share))
    return;
  g_autofree char *d = cal_decimal (pc->share, 3);
  g_string_append_printf (xml, "%*s<share>%s</share>", indent, "", d);
}

static void
append_pieces (GString *xml, const CalNodePiece *pc, guint written, guint n_fitted,
               guint npieces)
{
  if (written == 0)
    return;
  g_autofree char *c = cal_strdup_printf (
    "Size pieces (net-node prices a message with the first piece whose up_to is at least its "
    "size): the piecewise fit in the table below, t = a + n b, as L = a - o_s - o_r for an "
    "eager piece and also less the two 0-byte handshake messages (2 x the first piece's L) for "
    "a rendezvous one, B = 1/b.  %u of the fit's %u pieces, to %.0f bytes; above, L and B "
    "above%s.  The share comes from exchanges (both ranks sending at once) against the "
    "one-way time alone: w = (t_x - t_1 + D) / (2 D), D = L + n/B (models/net-node/README.md); "
    "where w drifts across a piece of the fit, the piece is cut into runs of sizes one share "
    "serves, each exchange within %g%% of what its own w gives, each run a piece with the "
    "fit's L and B and the median of its w.", n_fitted, npieces, pc[written - 1].up_to,
    n_fitted < npieces ? " (the next piece of the fit has no positive cost per byte)"
                       : "", 100 * SHARE_TOLERANCE);
  cal_xml_comment (xml, 6, c);
  for (guint k = 0; k < written; k++) {
    const CalPiece *p = pc[k].fit;
    g_autofree char *d_l = cal_decimal (pc[k].latency * 1e9, 4);
    g_autofree char *d_b = cal_decimal (pc[k].bandwidth / 1e6, 4);
    g_autofree char *lo = fmt_bytes (pc[k].first_bytes), *hi = fmt_bytes (pc[k].last_bytes);
    g_autofree char *sh = isnan (pc[k].share)
      ? g_strdup ("no exchange measured: the share above")
      : pc[k].share_n == 1
      ? cal_strdup_printf ("share %.3g, the exchange of %s", pc[k].share, lo)
      : cal_strdup_printf ("share %.3g, the median of %u sizes, %s to %s (%.3g to %.3g)",
                           pc[k].share, pc[k].share_n, lo, hi, pc[k].share_lo, pc[k].share_hi);
    g_autofree char *kept = pc[k].below > 0
      ? cal_strdup_printf (" (a gives L = %.4g ns: kept at 0, so that its messages cost %.4g "
                           "ns more than the fit)", -pc[k].below * 1e9,
                           pc[k].below * 1e9 * (pc[k].rendezvous && k == 0 ? 3 : 1))
      : g_strdup ("");
    g_autofree char *what = k > 0 && pc[k - 1].fit == p
      ? cal_strdup_printf ("The same fit's L and B; %s", sh)
      : cal_strdup_printf (
        "%s messages of %.0f to %.0f B measured: a = %.4g ns, b = %.4g ps/B (largest error "
        "%.1f%%), so L = %.4g ns%s%s and B = %s MB/s; %s",
        pc[k].rendezvous ? "Rendezvous" : "Eager", p->lo, p->hi, p->a * 1e9, p->b * 1e12,
        100 * p->max_err, pc[k].latency * 1e9,
        k == 0 ? "" : pc[k].rendezvous ? " (less the handshake)" : "", kept, d_b, sh);
    cal_xml_comment (xml, 6, what);
    g_string_append_printf (xml, "      <piece up_to=\"%.0f\"><latency unit=\"ns\">%s</latency>"
                            "<bandwidth unit=\"MB/s\">%s</bandwidth>", pc[k].up_to, d_l, d_b);
    append_share (xml, &pc[k], 0);
    g_string_append (xml, "</piece>\n");
  }
}

/* What making a communicator costs (the probe's --comm): @runs separate
 * mpiruns, as a process makes its first communicator of each kind once.
 * The local set-up is each figure less the three one-int allreduces that
 * pti sends for it (wsl/COLLECTIVES.md, "Communicator creation"), timed in
 * the same run; the median over the runs is written as <mpi><comm_create>
 * in @mpi_xml.  The same runs time MPI_Comm_free (first and later) and the
 * first calls of collective functions (the process's first collective,
 * and the median over seven functions of a first call less a later one):
 * <comm_free> and <first_collective>, medians over the runs. */
static gboolean
measure_comm_create (const CalRun *run, const CalMpiOptions *o, GString *mpi_xml,
                     GString *report, GError **error)
{
  const guint runs = run->quick ? 3 : 7;
  const char *n = run->quick ? "10" : "20";
  double first[7], topo[7], later[7], ar[7], ffirst[7], flater[7], cany[7], cfirst[7], ms = 0;
  g_autoptr (GString) rows = g_string_new (NULL), calls = g_string_new (NULL);
  if (run->progress)
    g_printerr ("pticalibrate: MPI: making communicators (%u runs of %s -np 2)...\n", runs,
                o->mpirun);
  for (guint r = 0; r < runs; r++) {
    const char *argv[] = { o->mpirun, "-np", "2", "./mpi-probe", "--comm", n, NULL, NULL };
    if (o->allow_root) {
      memmove (argv + 2, argv + 1, 6 * sizeof *argv);
      argv[1] = "--allow-run-as-root";
    }
    g_autoptr (GPtrArray) lines = NULL;
    g_autofree char *keep = g_strdup_printf ("mpi-comm-%u.out", r);
    double seconds;
    if (!cal_run_probe (run, argv, 300, "the MPI communicator probe failed", keep, &lines,
                        &seconds, error))
      return FALSE;
    ms += seconds;
    const CalLine *l = NULL, *cl = NULL;
    for (guint i = 0; i < lines->len; i++) {
      const CalLine *li = g_ptr_array_index (lines, i);
      if (strcmp (li->kind, "comm") == 0)
        l = li;
      else if (strcmp (li->kind, "colls") == 0)
        cl = li;
    }
    if (l == NULL || cl == NULL || !(cal_line_num (l, "first") >= 0)
        || !(cal_line_num (l, "later") >= 0) || !(cal_line_num (l, "first_topology") >= 0)
        || !(cal_line_num (l, "allreduce") >= 0) || !(cal_line_num (l, "free_first") >= 0)
        || !(cal_line_num (l, "free_later") >= 0) || isnan (cal_line_num (cl, "any"))
        || isnan (cal_line_num (cl, "first"))) {
      g_set_error (error, PTI_ERROR, PTI_ERROR_FAILED, "the MPI communicator probe printed no "
                   "figures (its output is in %s)", run->workdir);
      return FALSE;
    }
    ar[r] = cal_line_num (l, "allreduce");
    first[r] = MAX (0, cal_line_num (l, "first") - 3 * ar[r]);
    topo[r] = MAX (0, cal_line_num (l, "first_topology") - 3 * ar[r]);
    later[r] = MAX (0, cal_line_num (l, "later") - 3 * ar[r]);
    g_string_append_printf (rows, "%s%.4g, %.4g, %.4g (allreduce %.4g)", r ? "; " : "",
                            first[r] / 1e3, topo[r] / 1e3, later[r] / 1e3, ar[r]);
    ffirst[r] = cal_line_num (l, "free_first");
    flater[r] = cal_line_num (l, "free_later");
    /* a first call less a later one: below 0 only by noise */
    cany[r] = MAX (0, cal_line_num (cl, "any"));
    cfirst[r] = MAX (0, cal_line_num (cl, "first"));
    g_string_append_printf (calls, "%s%.4g and %.4g, %.4g and %.4g", r ? "; " : "",
                            cany[r] / 1e3, cfirst[r] / 1e3, ffirst[r] / 1e3, flater[r] / 1e3);
  }
  g_autofree char *launcher = g_path_get_basename (o->mpirun);
  double m_first = cal_median (first, runs), m_topo = cal_median (topo, runs),
         m_later = cal_median (later, runs), m_ar = cal_median (ar, runs);
  g_autofree char *c = cal_strdup_printf (
    "The MPI library's own time to make a communicator on each rank (wsl/COLLECTIVES.md, "
    "\"Communicator creation\"), measured by pticalibrate's probe (calibrate/mpi-probe.c "
    "with its comm option, %u runs of `%s -np 2`, %.1f s in all): each run times, on both "
    "ranks at once after a barrier, the process's first MPI_Comm_dup of the world, its first "
    "MPI_Cart_create (1-D, periodic, not reordered), then %s more of each alternating "
    "(freed; the median of them is a later creation), and %s allreduces of one int (median).  "
    "Each figure is the two ranks' mean less three of that allreduce, which pti sends itself "
    "over the parent (the context id's agreement); the median over the runs is written.  "
    "Per run, first, first topology and later in us: %s.  Median allreduce %.4g ns.  The "
    "first communicator that is not a topology and the first topology cost apart: neither "
    "makes the other's first cheaper.",
    runs, launcher, ms, n, n, rows->str, m_ar);
  cal_xml_comment (mpi_xml, 2, c);
  double m_any = cal_median (cany, runs), m_each = cal_median (cfirst, runs),
         m_ffirst = cal_median (ffirst, runs), m_flater = cal_median (flater, runs);
  g_autofree char *c2 = cal_strdup_printf (
    "The same runs, first: the first call of collective functions (calibrate/mpi-probe.c, "
    "measure_first_calls): the ranks meet by a ping-pong (no collective code run), then the "
    "process's first MPI_Barrier, its first collective, is timed, then the first call of "
    "allreduce, bcast, reduce, scan, allgather, gather and alltoall of one int, each after a "
    "barrier, and %s later calls of each; the times combined at the end, so that no function "
    "runs before its first call is timed.  first_collective's first is the first barrier less "
    "a later one, its other the median over the seven functions of a first call less a later "
    "one; a function's first call on a new communicator costs what its later calls do (it is "
    "the library's code run for the first time).  Then MPI_Comm_free after each creation: the "
    "process's first, and the median of the later ones.  Each figure the two ranks' mean; "
    "the median over the runs is written.  Per run, first and other, then the first and "
    "a later free, in us: %s.",
    n, calls->str);
  cal_xml_comment (mpi_xml, 2, c2);
  g_autofree char *d_f = cal_decimal (m_first / 1e3, 4), *d_t = cal_decimal (m_topo / 1e3, 4),
                  *d_l = cal_decimal (m_later / 1e3, 4), *d_ca = cal_decimal (m_any / 1e3, 4),
                  *d_ce = cal_decimal (m_each / 1e3, 4), *d_ff = cal_decimal (m_ffirst / 1e3, 4),
                  *d_fl = cal_decimal (m_flater / 1e3, 4);
  g_string_append_printf (mpi_xml, "  <mpi>\n    <comm_create><first unit=\"us\">%s</first>"
                          "<first_topology unit=\"us\">%s</first_topology>"
                          "<later unit=\"us\">%s</later></comm_create>\n"
                          "    <comm_free><first unit=\"us\">%s</first>"
                          "<later unit=\"us\">%s</later></comm_free>\n"
                          "    <first_collective><first unit=\"us\">%s</first>"
                          "<other unit=\"us\">%s</other></first_collective>\n  </mpi>\n",
                          d_f, d_t, d_l, d_ff, d_fl, d_ca, d_ce);
  g_autofree char *line = cal_strdup_printf (
    "MPI communicators: first %.4g us, first topology %.4g us, later %.4g us (median of %u "
    "runs, less 3 allreduces of %.4g ns); freed: first %.4g us, later %.4g us; a collective "
    "function's first call: the process's first %.4g us, others %.4g us\n", m_first / 1e3,
    m_topo / 1e3, m_later / 1e3, runs, m_ar, m_ffirst / 1e3, m_flater / 1e3, m_any / 1e3,
    m_each / 1e3);
  g_string_append (report, line);
  return TRUE;
}

gboolean
cal_mpi_measure (const CalRun *run, const CalMpiOptions *o, GString *xml, GString *mpi_xml,
                 GString *placement, GString *report, GError **error)
{
  const char *build[] = { o->mpicc, "-O2", "-o", "mpi-probe", "mpi-probe.c", NULL };
  if (run->progress)
    g_printerr ("pticalibrate: MPI: compiling the ping-pong (%s -O2)...\n", o->mpicc);
  if (!cal_write_probe (run->workdir, "mpi-probe.c", pti_cal_mpi_probe_c, error)
      || !cal_build (run->workdir, build, "the MPI probe does not compile", error))
    return FALSE;
  g_autofree char *sizes = size_list (run->quick);
  const char *reps = run->quick ? "5" : "15", *samples = run->quick ? "21" : "41";
  const char *target = run->quick ? "1" : "2", *budget = run->quick ? "15" : "150";
  GPtrArray *argv = g_ptr_array_new ();
  g_ptr_array_add (argv, (char *) o->mpirun);
  if (o->allow_root)
    g_ptr_array_add (argv, "--allow-run-as-root");
  const char *rest[] = { "-np", "2", "./mpi-probe", "--sizes", sizes, "--reps", reps,
                         "--samples", samples, "--target-ms", target, "--budget-s", budget,
                         NULL };
  for (int i = 0; rest[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) rest[i]);
  g_ptr_array_add (argv, NULL);
  if (run->progress)
    g_printerr ("pticalibrate: MPI: ping-pong between 2 ranks (%s -np 2)...\n", o->mpirun);
  g_autoptr (GPtrArray) lines = NULL;
  double seconds;
  gboolean ok = cal_run_probe (run, (const char *const *) argv->pdata, 1800,
                               "the MPI ping-pong failed", "mpi-probe.out", &lines, &seconds,
                               error);
  g_ptr_array_free (argv, TRUE);
  /* for the comment, which cannot hold "--": the launcher and the sizes */
  g_autofree char *launcher = g_path_get_basename (o->mpirun);
  g_autofree char *compiler = g_path_get_basename (o->mpicc);
  g_autofree char *command = g_strdup_printf ("%s -np 2%s", launcher,
                                              o->allow_root ? ", allowed to run as root" : "");
  g_autofree char *size_text = g_strdup (sizes);
  g_strdelimit (size_text, ",", ' ');
  if (!ok)
    return FALSE;

  g_autoptr (GArray) pp = g_array_new (FALSE, FALSE, sizeof (CalSize));
  g_autoptr (GArray) xch = g_array_new (FALSE, FALSE, sizeof (CalSize));
  g_autoptr (GArray) x2 = g_array_new (FALSE, FALSE, sizeof (CalSize));
  CalStat os0 = { NAN }, or0 = { NAN }, gap = { NAN };
  double os0_bytes = INFINITY, or0_bytes = INFINITY, eager = NAN, eager_next = NAN;
  double preempted = 0, dirty = 0;
  const char *library = "an MPI library";
  GString *binding = g_string_new (NULL);
  for (guint i = 0; i < lines->len; i++) {
    const CalLine *l = g_ptr_array_index (lines, i);
    double bytes = cal_line_num (l, "bytes");
    if (strcmp (l->kind, "pp") == 0 && !isnan (bytes)) {
      CalSize s = { bytes, cal_stat_from_line (l, NULL) };
      g_array_append_val (pp, s);
    } else if ((strcmp (l->kind, "xch") == 0 || strcmp (l->kind, "x2") == 0) && !isnan (bytes)) {
      CalSize s = { bytes, cal_stat_from_line (l, NULL) };
      g_array_append_val (l->kind[1] == 'c' ? xch : x2, s);
    } else if (strcmp (l->kind, "os") == 0 && bytes < os0_bytes) {
      os0 = cal_stat_from_line (l, NULL);
      os0_bytes = bytes;
    } else if (strcmp (l->kind, "or") == 0 && bytes < or0_bytes) {
      or0 = cal_stat_from_line (l, NULL);
      or0_bytes = bytes;
    } else if (strcmp (l->kind, "eager") == 0) {
      eager = bytes;
      eager_next = cal_line_num (l, "next");
    } else if (strcmp (l->kind, "gap") == 0)
      gap = cal_stat_from_line (l, NULL);
    else if (strcmp (l->kind, "library") == 0 && cal_line_get (l, "text") != NULL)
      library = cal_line_get (l, "text");
    else if (strcmp (l->kind, "bind") == 0)
      g_string_append_printf (binding, "%srank %s may run on CPU %s (ran on %s)",
                              binding->len ? ", " : "", cal_line_get (l, "rank"),
                              cal_line_get (l, "cpus"), cal_line_get (l, "now"));
    else if (strcmp (l->kind, "noise") == 0) {
      preempted = cal_line_num (l, "preempted");
      dirty = cal_line_num (l, "dirty");
    }
  }
  g_array_sort (pp, cmp_size);
  if (pp->len < 3 || isnan (os0.med) || isnan (or0.med) || isnan (eager)) {
    g_string_free (binding, TRUE);
    g_set_error (error, PTI_ERROR, PTI_ERROR_FAILED,
                 "the MPI ping-pong printed too few figures (its output is in %s)", run->workdir);
    return FALSE;
  }
  CalSize *sz = (CalSize *) pp->data;
  /* The receive's own time includes fetching the message from the other
   * core, which the ping-pong's one-way time holds too: o_r cannot be more
   * than what that time leaves after o_s. */
  double t0_ns = sz[0].t.med;
  double or_ns = MIN (or0.med, MAX (0.0, t0_ns - os0.med));
  CalNet net = { .send_overhead = os0.med * 1e-9, .recv_overhead = or_ns * 1e-9,
                 .eager_limit = (guint64) eager };
  const double fit_max = 1 << 20;
  if (!cal_net_fit (&net, sz, pp->len, fit_max)) {
    g_string_free (binding, TRUE);
    g_set_error (error, PTI_ERROR, PTI_ERROR_FAILED,
                 "the ping-pong times give no positive bandwidth (output in %s)", run->workdir);
    return FALSE;
  }
  CalPiece pieces[5];
  guint npieces = cal_piecewise_fit (sz, pp->len, eager, 3, pieces);
  CalNodePiece fitted[5], pc[64];   /* net-node reads up to 64 pieces */
  CalNodePiece above = { INFINITY, net.latency, net.bandwidth, NULL, TRUE, NAN, NAN, NAN, 0 };
  guint n_fitted = cal_node_pieces (&net, pieces, npieces, fitted);
  g_array_sort (xch, cmp_size);
  g_array_sort (x2, cmp_size);
  guint written = node_shares (fitted, n_fitted, &above, sz, pp->len,
                               (const CalSize *) xch->data, xch->len, pc, G_N_ELEMENTS (pc));

  /* ---- the element ---- */
  g_autofree char *eager_text = isnan (eager_next) || eager_next < 0
    ? cal_strdup_printf ("every size tried (up to %g B) was sent eagerly", eager)
    : cal_strdup_printf ("a send of %g B returned before its receive was posted, one of %g B "
                         "waited for it (5 tries each, receive posted 300 us late, bisected)",
                         eager, eager_next);
  g_autofree char *noise = cal_noise_text ("samples", preempted, dirty, NULL);
  g_autofree char *head = cal_strdup_printf (
    "Messages between the two ranks of this node: %s, measured by pticalibrate's ping-pong "
    "(calibrate/mpi-probe.c, built with `%s -O2`, run with `%s`) in %.0f s, at %s bytes.  "
    "One-way time = half a ping-pong round trip, median of %s samples of at least %s ms each; a "
    "sample in "
    "which either rank lost the CPU (CPU time under 97%% of the wall time; both poll) is taken "
    "again: %s.  The sender stores to every word of its buffer before each message, as a "
    "program packing or computing its data does (the receiver's copy then reads lines the "
    "sender's core has just modified, which costs more than a buffer sent unchanged), and the "
    "stores' own time, which a capture records as the program's computation, is taken out of "
    "every figure (calibrate/README.md, \"Written buffers\").  "
    "net-node prices a lone eager message o_s + L + n/B + o_r and a "
    "rendezvous one o_s + 3L + n/B + o_r as net-simple does (models/net-simple/README.md): o_s, "
    "o_r and the eager limit are measured directly, L and B fitted to the one-way times up to "
    "%g MiB (least squares on the relative error).  Messages in flight at once share the "
    "node (models/net-node/README.md): the share of each size piece comes from exchanges, both "
    "ranks sending n bytes to each other at once (MPI_Sendrecv, the same samples and retakes "
    "as the ping-pong), against the one-way time.  The table after the element compares, with "
    "two messages each way at once (2 MPI_Isend, 2 MPI_Irecv, MPI_Waitall) beside, which no "
    "parameter is fitted to.",
    library, compiler, command, seconds, size_text, reps, target, noise,
    fit_max / (1 << 20));
  cal_xml_comment (xml, 4, head);
  g_string_append (xml, "    <net_node>\n");
  g_autofree char *c_lat = cal_strdup_printf (
    "L, fitted (with B) to the one-way times; %g ns of one-way time at 0 B are o_s + L + o_r",
    sz[0].t.med);
  cal_xml_comment (xml, 6, c_lat);
  g_autofree char *d_lat = cal_decimal (net.latency * 1e9, 4);
  g_autofree char *v_lat = g_strdup_printf ("      <latency unit=\"ns\">%s</latency>\n", d_lat);
  g_string_append (xml, v_lat);
  g_autofree char *c_bw = cal_strdup_printf (
    "B, fitted: %.4g ps per byte; the pieces below show how the cost per byte changes with size",
    1e12 / net.bandwidth);
  cal_xml_comment (xml, 6, c_bw);
  g_autofree char *d_bw = cal_decimal (net.bandwidth / 1e6, 4);
  g_autofree char *v_bw = g_strdup_printf ("      <bandwidth unit=\"MB/s\">%s</bandwidth>\n", d_bw);
  g_string_append (xml, v_bw);
  g_autofree char *c_os = cal_strdup_printf (
    "o_s: time in MPI_Send of %g B with the receive posted beforehand, median of %d: %.4g ns, "
    "quartiles %.4g-%.4g (%.1f%%), range %.4g-%.4g", os0_bytes, os0.n, os0.med, os0.q1, os0.q3,
    100 * cal_stat_spread (os0), os0.min, os0.max);
  cal_xml_comment (xml, 6, c_os);
  g_autofree char *d_os = cal_decimal (os0.med, 4);
  g_autofree char *v_os = g_strdup_printf ("      <send_overhead unit=\"ns\">%s</send_overhead>\n",
                                           d_os);
  g_string_append (xml, v_os);
  g_autofree char *capped =
    or_ns < or0.med ? cal_strdup_printf ("; more than the %.4g ns a 0-byte message takes one way "
                                         "less o_s (the call fetches the message from the other "
                                         "core, which the one-way time holds too): written as "
                                         "the %.4g ns left", t0_ns, or_ns)
                    : g_strdup ("");
  g_autofree char *c_or = cal_strdup_printf (
    "o_r: time in MPI_Recv of %g B once the message has had 20 us to arrive, median of %d: %.4g "
    "ns, quartiles %.4g-%.4g (%.1f%%), range %.4g-%.4g%s", or0_bytes, or0.n, or0.med, or0.q1,
    or0.q3, 100 * cal_stat_spread (or0), or0.min, or0.max, capped);
  cal_xml_comment (xml, 6, c_or);
  g_autofree char *d_or = cal_decimal (or_ns, 4);
  g_autofree char *v_or = g_strdup_printf ("      <recv_overhead unit=\"ns\">%s</recv_overhead>\n",
                                           d_or);
  g_string_append (xml, v_or);
  g_autofree char *sh_how =
    above.share_n > 0 ? cal_strdup_printf ("the median of %u sizes (%.3g to %.3g)", above.share_n,
                                           above.share_lo, above.share_hi)
                      : g_strdup ("no exchange measured above the pieces: the largest piece's");
  g_autofree char *c_sh = cal_strdup_printf (
    "share of the node a lone message above the pieces uses, found as each piece's below: %s",
    sh_how);
  cal_xml_comment (xml, 6, c_sh);
  append_share (xml, &above, 6);
  g_string_append (xml, "\n");
  append_pieces (xml, pc, written, n_fitted, npieces);
  g_autofree char *c_e = cal_strdup_printf ("eager limit: %s", eager_text);
  cal_xml_comment (xml, 6, c_e);
  g_string_append_printf (xml, "      <eager_limit unit=\"B\">%" G_GUINT64_FORMAT "</eager_limit>\n",
                          net.eager_limit);
  g_string_append (xml, "    </net_node>\n");

  /* ---- what the fit gives, size by size, and the pieces ---- */
  GString *t = g_string_new (
    "One-way times (ns): measured median [quartiles], the top-level L and B alone (net-simple "
    "without pieces), error; the piecewise fit, error.\n");
  double worst_net = 0, worst_piece = 0, worst_spread = 0;
  for (guint i = 0; i < pp->len; i++) {
    double n = sz[i].bytes, m = sz[i].t.med, pred = cal_net_one_way (&net, n) * 1e9;
    double piece = NAN;
    for (guint k = 0; k < npieces; k++)
      if (n >= pieces[k].lo && n <= pieces[k].hi)
        piece = (pieces[k].a + pieces[k].b * n) * 1e9;
    double e1 = (pred - m) / m, e2 = (piece - m) / m;
    if (n <= fit_max)
      worst_net = MAX (worst_net, fabs (e1));
    worst_piece = MAX (worst_piece, fabs (e2));
    worst_spread = MAX (worst_spread, cal_stat_spread (sz[i].t));
    g_autofree char *nb = fmt_bytes (n);
    g_autofree char *row = cal_strdup_printf (
      "  %9s %11.5g [%.5g-%.5g]  net-simple %11.5g %+6.1f%%  pieces %11.5g %+6.1f%%\n", nb, m,
      sz[i].t.q1, sz[i].t.q3, pred, 100 * e1, piece, 100 * e2);
    g_string_append (t, row);
  }
  /* net-node on messages at once, from the measured one-way time t_1:
   * each message's work D goes at speed v, so it takes t_1 - D + D/v;
   * an exchange: v = min(1, 1/(2w)); two each way: each CPU receives two
   * (v <= 1/2) and the node holds four (v <= 1/(4w)). */
  if (xch->len > 0) {
    g_string_append (t, "\nMessages at once (ns): an exchange (both ranks send n bytes at once) "
                        "measured [quartiles], net-node, error; two messages each way at once "
                        "(per round), measured, net-node, error.\n");
    for (guint i = 0; i < xch->len; i++) {
      const CalSize *x = &g_array_index (xch, CalSize, i);
      const CalSize *one = NULL, *two = NULL;
      for (guint j = 0; j < pp->len; j++)
        if (sz[j].bytes == x->bytes)
          one = &sz[j];
      for (guint j = 0; j < x2->len; j++)
        if (g_array_index (x2, CalSize, j).bytes == x->bytes)
          two = &g_array_index (x2, CalSize, j);
      if (one == NULL)
        continue;
      double d = lone_work (pc, written, &above, x->bytes) * 1e9, w = above.share;
      for (guint k = 0; k < written; k++)
        if (x->bytes <= pc[k].up_to) {
          w = isnan (pc[k].share) ? above.share : pc[k].share;
          break;
        }
      double px = one->t.med - d + d * MAX (1.0, 2 * w);
      double p2 = one->t.med - d + d / MIN (0.5, 1 / (4 * w));
      g_autofree char *nb = fmt_bytes (x->bytes);
      g_autofree char *row = cal_strdup_printf (
        "  %9s %11.5g [%.5g-%.5g]  net-node %11.5g %+6.1f%%", nb, x->t.med, x->t.q1, x->t.q3, px,
        100 * (px - x->t.med) / x->t.med);
      g_string_append (t, row);
      if (two != NULL) {
        g_autofree char *r2 = cal_strdup_printf ("   two each way %11.5g  net-node %11.5g %+6.1f%%",
                                                 two->t.med, p2,
                                                 100 * (p2 - two->t.med) / two->t.med);
        g_string_append (t, r2);
      }
      g_string_append_c (t, '\n');
    }
  }
  g_string_append (t, "\nPiecewise-linear fit of the one-way time, t = a + n b (breaks at the "
                      "eager limit and where they cut the squared relative error by a quarter; "
                      "PACE's form):\n");
  for (guint k = 0; k < npieces; k++) {
    g_autofree char *lo = fmt_bytes (pieces[k].lo), *hi = fmt_bytes (pieces[k].hi);
    g_autofree char *row = cal_strdup_printf (
      "  %s to %s: a = %.4g ns, b = %.4g ps/B (%.4g MB/s), largest error %.1f%%\n", lo, hi,
      pieces[k].a * 1e9, pieces[k].b * 1e12, pieces[k].b > 0 ? 1e-6 / pieces[k].b : INFINITY,
      100 * pieces[k].max_err);
    g_string_append (t, row);
  }
  double o_mean = (net.send_overhead + net.recv_overhead) / 2;
  double lg_l = MAX (0, sz[0].t.med * 1e-9 - 2 * o_mean);
  g_autofree char *d_lgl = cal_decimal (lg_l * 1e9, 4), *d_o = cal_decimal (o_mean * 1e9, 4),
                  *d_g = cal_decimal (gap.med, 4), *d_G = cal_decimal (1e12 / net.bandwidth, 4);
  g_autofree char *loggp = cal_strdup_printf (
    "\nThe LogGP form of net-simple, from the same figures (o the mean of o_s and o_r; g the "
    "time per message of 64 back-to-back 8-byte sends, median of %d: %.4g ns, quartiles "
    "%.4g-%.4g; G = 1/B; L the 0-byte one-way time less 2o), to use instead of the four "
    "elements above:\n"
    "  <loggp><L unit=\"ns\">%s</L><o unit=\"ns\">%s</o><g unit=\"ns\">%s</g>"
    "<G unit=\"ps\">%s</G></loggp>",
    gap.n, gap.med, gap.q1, gap.q3, d_lgl, d_o, d_g, d_G);
  g_string_append (t, loggp);
  cal_xml_comment (xml, 4, t->str);
  g_string_free (t, TRUE);

  g_string_append_printf (placement, "%s (%s).", binding->str, library);
  g_string_free (binding, TRUE);
  g_autofree char *line = cal_strdup_printf (
    "MPI: %u sizes in %.0f s; L %.3g ns, B %.4g MB/s, o_s %.3g ns, o_r %.3g ns, eager limit %"
    G_GUINT64_FORMAT " B; net-simple within %.0f%% up to %g MiB, pieces within %.0f%%; largest "
    "spread (quartiles / median) %.1f%%; %g samples taken again (interrupted)\n",
    pp->len, seconds, net.latency * 1e9, net.bandwidth / 1e6, os0.med, or_ns, net.eager_limit,
    100 * worst_net, fit_max / (1 << 20), 100 * worst_piece, 100 * worst_spread, preempted);
  g_string_append (report, line);
  return measure_comm_create (run, o, mpi_xml, report, error);
}
