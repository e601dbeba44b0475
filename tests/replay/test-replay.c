/* Replayed traces (wsl/replay-ti.c, wsl/replay-dim.c, wsl/REPLAY.md):
 * closed forms worked out by hand, every action against the same workload
 * built with the WSL's calls, the layouts of a TI trace, errors naming the
 * file and line, notes of what is not replayed.
 *
 * System (written by system ()): 4 nodes with cpu-time, flop rate 1
 * GFlop/s and speed ratio 2 (a measured second takes 0.5 s); net-simple
 * with L = 10 us, B = 100 MB/s (1000 bytes take 10 us), o_s = 2 us,
 * o_r = 3 us, eager up to 16384 bytes.  One eager hop of n bytes takes
 * S(n) = 15 us + n / B. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "replay.h"
#include "coll-private.h"

#define US 1e-6

static char *tmpdir;

static char *
write_file (const char *name, const char *text)
{
  char *path = g_build_filename (tmpdir, name, NULL);
  g_autofree char *dir = g_path_get_dirname (path);
  g_mkdir_with_parents (dir, 0700);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  return path;
}

static const char *
system_path (void)
{
  static char *path;
  if (path == NULL)
    path = write_file ("system.xml",
      "<system name='replay'>\n"
      "  <computer name='node' count='4'>\n"
      "    <cpu_time><speed_ratio>2</speed_ratio><flop_rate unit='GFlop/s'>1</flop_rate></cpu_time>\n"
      "  </computer>\n"
      "  <network name='net'><net_simple><latency unit='us'>10</latency>"
      "<bandwidth unit='MB/s'>100</bandwidth><send_overhead unit='us'>2</send_overhead>"
      "<recv_overhead unit='us'>3</recv_overhead><eager_limit unit='B'>16384</eager_limit>"
      "</net_simple></network>\n"
      "  <connect computer='node' nodes='1-4' network='net' ports='1-4'/>\n"
      "</system>\n");
  return path;
}

static PtiContext *
context (void)
{
  g_autoptr (GError) error = NULL;
  PtiContext *ctx = pti_context_new (system_path (), NULL, &error);
  g_assert_no_error (error);
  return ctx;
}

/* Replays @path and evaluates it with a pending limit of @pending events (0:
 * the automatic rule), which a pulled trace must not depend on; @notes may
 * be NULL. */
static PtiContext *
replay_partial (const char *path, PtiReplayNotes *notes, PtiSourceFormat expect, guint64 pending)
{
  PtiContext *ctx = context ();
  pti_context_set_pending_limit (ctx, pending);
  g_autoptr (GError) error = NULL;
  PtiSourceFormat format;
  gboolean ok = pti_workload_build (ctx, path, notes, &format, &error)
                && pti_evaluate (ctx, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
  g_assert_cmpint (format, ==, expect);
  return ctx;
}

static PtiContext *
replay (const char *path, PtiReplayNotes *notes, PtiSourceFormat expect)
{
  return replay_partial (path, notes, expect, 0);
}

/* Replaying @path fails with a message holding each of the strings after
 * it (NULL-terminated). */
static void
replay_fails (const char *path, ...)
{
  g_autoptr (PtiContext) ctx = context ();
  g_autoptr (GError) error = NULL;
  g_autoptr (PtiReplayNotes) notes = pti_replay_notes_new ();
  gboolean ok = pti_workload_build (ctx, path, notes, NULL, &error) && pti_evaluate (ctx, &error);
  g_assert_false (ok);
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  va_list ap;
  va_start (ap, path);
  for (const char *s = va_arg (ap, const char *); s != NULL; s = va_arg (ap, const char *))
    if (strstr (error->message, s) == NULL)
      g_error ("message: %s\nlacks: %s", error->message, s);
  va_end (ap);
}

static PtiProcessResult
result (PtiContext *ctx, guint rank)
{
  PtiProcessResult r;
  g_assert_true (pti_result_process (ctx, rank, &r));
  return r;
}

#define assert_time(actual, expected) \
  g_assert_cmpfloat_with_epsilon ((actual), (expected), 1e-12)

static guint64
note_count (const PtiReplayNotes *notes, const char *what)
{
  for (guint i = 0; i < pti_replay_notes_len (notes); i++) {
    const char *w, *why;
    guint64 count;
    pti_replay_notes_get (notes, i, &w, &why, &count);
    if (strcmp (w, what) == 0)
      return count;
  }
  return 0;
}

/* ---- SimGrid TI ----------------------------------------------------------------- */

/* Rank 0 computes 10^6 flops (1 ms), posts 1000 MPI_INTs (4000 B) to rank
 * 1 (in at 1 ms + 2 + 10 + 40 us = 1.052 ms), sleeps 1 ms (not scaled:
 * 2.002 ms), waits for its send (eager: done) and receives 10 bytes.  Rank
 * 1 posts its receive, computes 2 ms, waits (2.003 ms) and sends the 10
 * bytes (MPI_BYTE, the default: in at 2.005 + 10.1 us): rank 0 is done at
 * 2.0151 + 0.003 = 2.0181 ms, rank 1 at 2.005 ms. */
static const char *const ti_rank0 =
  "# rank 0\n"
  "0 init\n"
  "0 compute 1e6\n"
  "0 isend 1 5 1000 1\n"
  "0 sleep 0.001\n"
  "0 waitall 1\n"
  "0 recv 1 6 10\n"
  "0 finalize\n";
static const char *const ti_rank1 =
  "1 init\n"
  "1 irecv 0 5 1000 1\n"
  "1 compute 2e6\n"
  "1 wait 0 1 5\n"
  "1 send 0 6 10\n"
  "1 finalize\n";

static void
check_pingpong (PtiContext *ctx)
{
  assert_time (pti_result_time (ctx), 2018.1 * US);
  assert_time (result (ctx, 0).end, 2018.1 * US);
  assert_time (result (ctx, 1).end, 2005 * US);
  g_assert_cmpuint (result (ctx, 0).events, ==, 5);
  g_assert_cmpuint (result (ctx, 1).events, ==, 4);
}

/* The same trace in every layout: an index of per-rank files (paths from
 * the index's folder), one shared file by its index or directly, its lines
 * interleaved, grouped by rank, or rank 1's first. */
static void
test_ti_layouts (void)
{
  g_autofree char *r0 = write_file ("ti/r0.txt", ti_rank0);
  g_autofree char *r1 = write_file ("ti/r1.txt", ti_rank1);
  g_autofree char *index = write_file ("index.txt", "ti/r0.txt\n\nti/r1.txt\n");
  g_autoptr (PtiContext) a = replay (index, NULL, PTI_SOURCE_TI_INDEX);
  check_pingpong (a);

  g_autofree char *grouped_text = g_strconcat (ti_rank0, ti_rank1, NULL);
  g_autofree char *reversed_text = g_strconcat (ti_rank1, ti_rank0, NULL);
  g_autoptr (GString) mixed = g_string_new (NULL);
  g_auto (GStrv) l0 = g_strsplit (ti_rank0, "\n", -1);
  g_auto (GStrv) l1 = g_strsplit (ti_rank1, "\n", -1);
  for (guint i = 0; l0[i] != NULL || l1[i] != NULL; i++) {
    if (l0[i] != NULL && l0[i][0])
      g_string_append_printf (mixed, "%s\n", l0[i]);
    if (l1[i] != NULL && l1[i][0])
      g_string_append_printf (mixed, "%s\n", l1[i]);
    if (l0[i] == NULL || l1[i] == NULL)
      break;
  }
  g_autofree char *grouped = write_file ("grouped.txt", grouped_text);
  g_autofree char *reversed = write_file ("reversed.txt", reversed_text);
  g_autofree char *interleaved = write_file ("mixed.txt", mixed->str);
  g_autofree char *index1 = write_file ("index1.txt", "mixed.txt\n");
  g_autoptr (PtiContext) b = replay (grouped, NULL, PTI_SOURCE_TI_ACTIONS);
  g_autoptr (PtiContext) c = replay (reversed, NULL, PTI_SOURCE_TI_ACTIONS);
  g_autoptr (PtiContext) d = replay (interleaved, NULL, PTI_SOURCE_TI_ACTIONS);
  g_autoptr (PtiContext) e = replay (index1, NULL, PTI_SOURCE_TI_INDEX);
  check_pingpong (b);
  check_pingpong (c);
  check_pingpong (d);
  check_pingpong (e);
}

/* A shared file grouped by rank, long enough that the lines kept for a
 * rank overflow (64 KiB) and it is read from its own offset instead:
 * the same prediction as the per-rank files, 4 ranks of 7000 computations
 * and a ring of messages. */
static void
test_ti_long_shared (void)
{
  g_autoptr (GString) shared = g_string_new (NULL);
  g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GString) index = g_string_new (NULL);
  for (guint r = 0; r < 4; r++) {
    g_autoptr (GString) own = g_string_new (NULL);
    g_string_append_printf (own, "%u init\n", r);
    for (guint i = 0; i < 7000; i++) {
      g_string_append_printf (own, "%u compute %u\n", r, 1000 + 10 * r + i % 7);
      if (i % 1000 == 999)
        g_string_append_printf (own, "%u sendRecv 8 %u 8 %u 6 6\n", r, (r + 1) % 4, (r + 3) % 4);
    }
    g_string_append_printf (own, "%u finalize\n", r);
    g_string_append (shared, own->str);
    g_autofree char *name = g_strdup_printf ("long/r%u.txt", r);
    g_ptr_array_add (files, write_file (name, own->str));
    g_string_append_printf (index, "%s\n", name);
  }
  g_autofree char *one = write_file ("long/all.txt", shared->str);
  g_autofree char *idx = write_file ("long.idx", index->str);
  g_autoptr (PtiContext) a = replay (one, NULL, PTI_SOURCE_TI_ACTIONS);
  g_autoptr (PtiContext) b = replay (idx, NULL, PTI_SOURCE_TI_INDEX);
  /* and with a pending limit of 500 events: the same (the evaluation pulls) */
  g_autoptr (PtiContext) c = replay_partial (idx, NULL, PTI_SOURCE_TI_INDEX, 500);
  g_assert_cmpuint (pti_result_events (a), ==, pti_result_events (b));
  g_assert_cmpuint (pti_result_events (a), ==, pti_result_events (c));
  g_assert_cmpuint (pti_result_events (a), ==, 4 * (7000 + 7 * 3));
  for (guint r = 0; r < 4; r++) {
    assert_time (result (a, r).end, result (b, r).end);
    assert_time (result (a, r).end, result (c, r).end);
  }
  g_assert_cmpfloat (pti_result_time (a), >, 7e-3);
}

/* Every collective action, against the same workload built with the WSL's
 * calls (bytes = count x datatype size): the same times, rank by rank. */
static void
test_ti_collectives (void)
{
  g_autoptr (GString) text = g_string_new (NULL);
  for (guint r = 0; r < 4; r++) {
    guint a[4], b[4];
    for (guint j = 0; j < 4; j++) {
      a[j] = 10 * (r + 1) + j;     /* what r sends j (alltoallv) */
      b[j] = 10 * (j + 1) + r;     /* what r receives from j */
    }
    g_string_append_printf (text,
      "%u init\n"
      "%u bcast 100 1 1\n"
      "%u reduce 10 5e5 2 0\n"
      "%u allreduce 3 0 0\n"
      "%u scan 8 0 1\n"
      "%u exscan 8 0 1\n"
      "%u alltoall 4 4 1 1\n"
      "%u alltoallv %u %u %u %u %u %u %u %u %u %u 3 3\n"
      "%u gather 5 5 3 1 1\n"
      "%u allgather 5 5 1 1\n"
      "%u scatter 5 5 0 1 1\n"
      "%u gatherv %u 1 2 3 4 2 1 1\n"
      "%u scatterv 4 3 2 1 %u 1 1 1\n"
      "%u allgatherv 7 7 7 7 7 1 1\n"
      "%u reducescatter 1 2 3 4 1e3 1\n"
      "%u barrier\n"
      "%u sendRecv 3 %u 3 %u 1 1\n"
      "%u ibcast 100 0 1\n"
      "%u iallreduce 6 0 0\n"
      "%u waitall\n"
      "%u finalize\n",
      r, r, r, r, r, r, r, r, a[0] + a[1] + a[2] + a[3], a[0], a[1], a[2], a[3],
      b[0] + b[1] + b[2] + b[3], b[0], b[1], b[2], b[3], r, r, r, r, r + 1, r, 4 - r, r, r, r,
      r, (r + 1) % 4, (r + 3) % 4, r, r, r, r);
  }
  g_autofree char *path = write_file ("colls.txt", text->str);
  g_autoptr (PtiContext) ctx = replay (path, NULL, PTI_SOURCE_TI_ACTIONS);

  g_autoptr (PtiContext) ref = context ();
  g_autoptr (GError) error = NULL;
  g_assert_true (pti_context_set_processes (ref, 4, &error));
  pti_coll_set_arithmetic (ref, FALSE);
  for (guint r = 0; r < 4; r++) {
    guint64 s[4], v[4], g[4] = { 4, 8, 12, 16 }, sc[4] = { 16, 12, 8, 4 }, ag[4] = { 28, 28, 28, 28 };
    guint64 rs[4] = { 4, 8, 12, 16 };
    for (guint j = 0; j < 4; j++) {
      s[j] = 2 * (10 * (r + 1) + j);
      v[j] = 2 * (10 * (j + 1) + r);
    }
    PtiRequest q[2];
    gboolean ok = pti_mpi_bcast (ref, r, 1, 400, &error)
      && pti_mpi_reduce (ref, r, 2, 80, &error) && pti_use_flops (ref, r, 5e5, &error)
      && pti_mpi_allreduce (ref, r, 24, &error)
      && pti_mpi_scan (ref, r, 32, &error) && pti_mpi_exscan (ref, r, 32, &error)
      && pti_mpi_alltoall (ref, r, 16, &error)
      && pti_mpi_alltoallv (ref, r, s, v, &error)
      && pti_mpi_gather (ref, r, 3, 20, &error) && pti_mpi_allgather (ref, r, 20, &error)
      && pti_mpi_scatter (ref, r, 0, 20, &error)
      && pti_mpi_gatherv (ref, r, 2, 4 * (r + 1), g, &error)
      && pti_mpi_scatterv (ref, r, 1, sc, 4 * (4 - r), &error)
      && pti_mpi_allgatherv (ref, r, ag, &error)
      && pti_mpi_reduce_scatter (ref, r, rs, &error) && pti_use_flops (ref, r, 1e3, &error)
      && pti_mpi_barrier (ref, r, &error)
      && pti_mpi_sendrecv (ref, r, (r + 1) % 4, 12, 0, (r + 3) % 4, 12, 0, &error)
      && pti_mpi_ibcast (ref, r, 0, 400, &q[0], &error)
      && pti_mpi_iallreduce (ref, r, 48, &q[1], &error)
      && pti_mpi_waitall (ref, r, 2, q, &error);
    g_assert_no_error (error);
    g_assert_true (ok);
  }
  g_assert_true (pti_evaluate (ref, &error));
  g_assert_cmpuint (pti_result_events (ctx), ==, pti_result_events (ref));
  for (guint r = 0; r < 4; r++)
    assert_time (result (ctx, r).end, result (ref, r).end);
}

/* SMPI writes -333 (MPI_UNDEFINED) for an MPI_PROC_NULL destination and
 * for an MPI_ANY_SOURCE or MPI_PROC_NULL source.  The sends to -333 make
 * nothing (the wait on the isend's key neither).  Rank 1's first receive
 * from -333 with tag 7 is from any source: one message to (1, 7) is left
 * over by the receives naming their source; it receives rank 0's 4 bytes,
 * in at 2 + 10 + 0.04 us, done at 15.04 us.  No message is left for its
 * irecv from -333 with tag 7 (an MPI_Irecv from MPI_PROC_NULL, which SMPI
 * writes): it makes nothing, nor does its wait.  Rank 2 receives rank 0's
 * second message (tag 8) by name; its irecv from -333 with tag 8 is from
 * MPI_PROC_NULL too. */
static void
test_ti_proc_null (void)
{
  g_autofree char *path = write_file ("null.txt",
    "0 init\n"
    "0 send -333 2 1 1\n"
    "0 isend -333 3 1 1\n"
    "0 wait 0 -333 3\n"
    "0 send 1 7 4 6\n"
    "0 send 2 8 4 6\n"
    "0 finalize\n"
    "1 init\n"
    "1 recv -333 7 4 6\n"
    "1 irecv -333 7 4 6\n"
    "1 wait -333 1 7\n"
    "1 finalize\n"
    "2 init\n"
    "2 irecv -333 8 4 6\n"
    "2 recv 0 8 4 6\n"
    "2 wait -333 2 8\n"
    "2 finalize\n");
  g_autoptr (PtiReplayNotes) notes = pti_replay_notes_new ();
  g_autoptr (PtiContext) ctx = replay (path, notes, PTI_SOURCE_TI_ACTIONS);
  assert_time (result (ctx, 1).end, 15.04 * US);
  g_assert_cmpuint (result (ctx, 0).events, ==, 2);
  g_assert_cmpuint (result (ctx, 1).events, ==, 1);
  g_assert_cmpuint (result (ctx, 2).events, ==, 1);
  g_assert_cmpuint (note_count (notes, "receives from -333 taken as MPI_PROC_NULL"), ==, 2);
}

/* SimGrid <= 3.19's syntax: no tags, capitalised Isend/Irecv, camel-case
 * collectives, wait without a key (the last request).  Rank 0 sends 100 B
 * then 50 B; rank 1's Irecv takes the first, its recv the second. */
static void
test_ti_legacy (void)
{
  g_autofree char *path = write_file ("legacy.txt",
    "0 init\n"
    "0 Isend 1 100\n"
    "0 wait\n"
    "0 send 1 50\n"
    "0 allReduce 8 0\n"
    "0 finalize\n"
    "1 init\n"
    "1 Irecv 0 100\n"
    "1 recv 0 50\n"
    "1 wait\n"
    "1 allReduce 8 0\n"
    "1 finalize\n");
  g_autoptr (PtiContext) ctx = replay (path, NULL, PTI_SOURCE_TI_ACTIONS);
  /* rank 0: isend (2), wait, send at 2 (to 4); rank 1: the 50 B are in at
   * 4 + 10 + 0.5 = 14.5, recv done 17.5; the wait: 100 B in at 13, + o_r:
   * 20.5; allreduce of 8 B: rank 0 from 4, rank 1 from 20.5: 20.5 + 15.08 */
  assert_time (pti_result_time (ctx), 35.58 * US);
}

/* What a TI trace may hold that pti leaves out is counted, by name. */
static void
test_ti_notes (void)
{
  g_autofree char *r0 = write_file ("notes/r0.txt",
    "0 init\n"
    "0 comm_size 2\n"
    "0 comm_split\n"
    "0 location foo.c 12\n"
    "0 Win_fence\n"
    "0 Win_fence\n"
    "0 IO - read 100\n"
    "0 compute 10 99\n"
    "0 send 1 0 4 99\n"
    "0 waitAny 2\n"
    "0 testall 2\n"
    "1 compute 5\n"
    "0 finalize\n");
  g_autofree char *r1 = write_file ("notes/r1.txt",
    "1 init\n"
    "1 recv 0 0 4 99\n");
  g_autofree char *index = write_file ("notes.idx", "notes/r0.txt\nnotes/r1.txt\n");
  g_autoptr (PtiReplayNotes) notes = pti_replay_notes_new ();
  g_autoptr (PtiContext) ctx = replay (index, notes, PTI_SOURCE_TI_INDEX);
  g_assert_cmpuint (note_count (notes, "Win_fence"), ==, 2);
  g_assert_cmpuint (note_count (notes, "IO - read"), ==, 1);
  g_assert_cmpuint (note_count (notes, "comm_split"), ==, 1);
  g_assert_cmpuint (note_count (notes, "datatype id 99"), ==, 2);
  g_assert_cmpuint (note_count (notes, "waitAny"), ==, 1);
  g_assert_cmpuint (note_count (notes, "testall"), ==, 1);
  g_assert_cmpuint (note_count (notes, "lines of another rank in a rank's own file"), ==, 1);
  g_assert_cmpuint (note_count (notes, "ranks without finalize"), ==, 1);
  g_assert_cmpuint (pti_replay_notes_len (notes), ==, 8);
}

/* ptieval prints the notes in its summary and its JSON, and says what it
 * replayed. */
static void
test_ti_ptieval (void)
{
  const char *ptieval = g_getenv ("PTIEVAL");
  if (ptieval == NULL) {
    g_test_skip ("PTIEVAL is not set");
    return;
  }
  g_autofree char *r0 = write_file ("cli/r0.txt", "0 init\n0 Win_fence\n0 compute 1e6\n0 finalize\n");
  g_autofree char *r1 = write_file ("cli/r1.txt", "1 init\n1 IO - write_all 8\n1 finalize\n");
  g_autofree char *index = write_file ("cli.idx", "cli/r0.txt\ncli/r1.txt\n");
  const char *argv_text[] = { ptieval, "--no-progress", system_path (), index, NULL };
  const char *argv_json[] = { ptieval, "--json", system_path (), index, NULL };
  g_autofree char *out = NULL, *json = NULL;
  gint status = 0;
  g_autoptr (GError) error = NULL;
  g_assert_true (g_spawn_sync (NULL, (char **) argv_text, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL,
                               NULL, &out, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_cmpint (status, ==, 0);
  g_assert_nonnull (strstr (out, "replayed: SimGrid time-independent trace (index)\n"
                                 "predicted time: 0.001000000 s\n"));
  g_assert_nonnull (strstr (out, "not replayed (in the trace, left out of the prediction):\n"
                                 "  Win_fence                             1  one-sided"));
  g_assert_nonnull (strstr (out, "  IO - write_all                        1  MPI-IO"));
  g_assert_true (g_spawn_sync (NULL, (char **) argv_json, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL,
                               NULL, &json, NULL, &status, &error));
  g_assert_cmpint (status, ==, 0);
  g_assert_nonnull (strstr (json, "\"workload_format\": \"SimGrid time-independent trace "
                                  "(index)\", \"not_replayed\": [{\"what\": \"Win_fence\", "
                                  "\"count\": 1, \"why\": \"one-sided"));
  g_assert_nonnull (strstr (json, "{\"what\": \"IO - write_all\", \"count\": 1"));
}

/* Mistakes name the file, the line and the action. */
static void
test_ti_errors (void)
{
  static const struct {
    const char *text;
    const char *expect;
  } cases[] = {
    { "0 init\n0 frobnicate 1\n", "e.txt:2: frobnicate: unknown action" },
    { "0 init\n\n# c\n0 send 1\n1 finalize\n",
      "e.txt:4: send: 1 argument where at least 3 are needed (PEER TAG COUNT [DATATYPE])" },
    { "0 compute abc\n1 init\n", "e.txt:1: compute: flops 'abc' is not a number" },
    { "0 compute -5\n1 init\n", "e.txt:1: compute: flops -5 is negative" },
    { "0 send 7 0 1\n1 init\n", "send: destination 7 is not a rank of this trace (0 to 1, or -333)" },
    { "0 recv 1 0 1.5\n1 init\n", "recv: count 1.5 is not a whole number of elements >= 0" },
    { "0 finalize\n0 compute 1\n1 init\n", "e.txt:2: compute: an action of rank 0 after its finalize" },
    { "0 init\nfoo bar\n", "e.txt:2: 'foo bar' does not begin with a rank" },
    { "0 Start\n1 init\n", "e.txt:1: Start: persistent requests" },
    { "0 bcast 10 5\n1 init\n", "e.txt:1: bcast: root 5 is not a rank of this trace (0 to 1)" },
    { "0 alltoallv 4 1 2 3\n1 init\n",
      "alltoallv: 4 arguments where at least 6 are needed" },
    { "0 init\n", NULL },    /* one rank: fine (0 events) */
    { "0 init\n1 init\n0 finalize\n\xd0 finalize\n",
      "e.txt:4: this line: not UTF-8 text (byte 0xD0 at column 1)" },
    /* a rank beyond what the lines can hold: refused before the ranks'
     * tables are made (a fuzzer's 184,467,440 ranks asked for 20 GB) */
    { "0 init\n184467440 init\n1 init\n",
      "e.txt: a line names rank 184467440, but the file holds 3 actions: ranks 0 to 184467440 "
      "cannot all have theirs" },
    { "# nothing\n", "no action in the file" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    g_autofree char *path = write_file ("e.txt", cases[i].text);
    if (cases[i].expect == NULL) {
      g_autoptr (PtiContext) ctx = replay (path, NULL, PTI_SOURCE_TI_ACTIONS);
      continue;
    }
    if (g_str_has_prefix (cases[i].text, "#")) {
      /* nothing but a comment: neither an index nor actions that are read */
      g_autoptr (PtiContext) ctx = context ();
      g_autoptr (GError) error = NULL;
      g_assert_false (pti_replay_ti (ctx, path, FALSE, NULL, &error));
      g_assert_nonnull (strstr (error->message, cases[i].expect));
      continue;
    }
    replay_fails (path, cases[i].expect, NULL);
  }
  /* A NUL byte in a line is not text: it would have cut the line short
   * (the bytes after it lost, the next line joined to it).  In the first
   * 4 KiB it makes the file binary, nothing pti reads: after them here. */
  g_autoptr (GString) nul_text = g_string_new ("0 init\n1 init\n");
  for (guint i = 0; i < 400; i++)
    g_string_append (nul_text, "0 compute 1\n");
  g_string_append_len (nul_text, "0 compute 1\0002\n1 finalize\n0 finalize\n", 36);
  g_autofree char *nul = g_build_filename (tmpdir, "nul.txt", NULL);
  g_assert_true (g_file_set_contents (nul, nul_text->str, (gssize) nul_text->len, NULL));
  replay_fails (nul, "nul.txt:403: this line: a NUL byte at column 12: not text", NULL);
  /* An index naming a file that is not there, and one naming none. */
  g_autofree char *missing = write_file ("missing.idx", "ti/r0.txt\nti/none.txt\n");
  g_autofree char *r0 = write_file ("ti/r0.txt", ti_rank0);
  replay_fails (missing, "none.txt: cannot read (the actions of rank 1)", NULL);
  /* A mistake deep in a long shared file, read by a rank's own scan. */
  g_autoptr (GString) text = g_string_new (NULL);
  for (guint i = 0; i < 9000; i++)
    g_string_append (text, "0 compute 1000\n");
  g_string_append (text, "0 compute x\n");
  for (guint i = 0; i < 9000; i++)
    g_string_append (text, "1 compute 1000\n");
  g_autofree char *deep = write_file ("deep.txt", text->str);
  replay_fails (deep, "deep.txt:9001: compute: flops 'x' is not a number", NULL);
}

/* ---- Dimemas -------------------------------------------------------------------- */

/* dimemas.md section 7's example.  Task 0: 150 us burst (75 us at speed
 * ratio 2), sends 4096 B to task 1 (in at 77 + 10 + 40.96 = 127.96 us), 10
 * us, then the allreduce of 8 B.  Task 1 posts its receive at 50 us,
 * computes 150 us, waits (done at 200 + 3).  The allreduce on 3 ranks
 * (MPICH's fix-up): task 0 (at 87) sends its 8 B to task 1, which gets them
 * at 203 + 3 and combines them (one flop: 1 ns), swaps them with task 2's
 * (in long before) from 206.001: done at 211.002; task 2 gets task 1's at
 * 218.081, done at 221.082; task 1 sends the result to task 0 at 211.002
 * (done 213.002): in at 223.082, task 0 done at 226.082 us. */
static const char *const dim_example =
  "#DIMEMAS:\"ring_example\":0:3(1,1,1),1,0,0\n"
  "d:1:1:3:0:1:2\n"
  "1:0:0:0.000150000\n"
  "20:0:0:50000001:1\n"
  "2:0:0:1:-1:4096:7:1:0\n"
  "20:0:0:50000001:0\n"
  "1:0:0:0.000020000\n"
  "20:0:0:50000002:10\n"
  "10:0:0:11:1:0:0:8:8:1\n"
  "20:0:0:50000002:0\n"
  "1:1:0:0.000100000\n"
  "20:1:0:50000001:4\n"
  "3:1:0:0:-1:4096:7:1:1\n"
  "20:1:0:50000001:0\n"
  "1:1:0:0.000300000\n"
  "20:1:0:50000001:5\n"
  "3:1:0:0:-1:4096:7:1:2\n"
  "20:1:0:50000001:0\n"
  "20:1:0:50000002:10\n"
  "10:1:0:11:1:0:0:8:8:1\n"
  "20:1:0:50000002:0\n"
  "1:2:0:0.000050000\n"
  "20:2:0:50000002:10\n"
  "10:2:0:11:1:0:0:8:8:1\n"
  "20:2:0:50000002:0\n";

static void
test_dim_example (void)
{
  g_autofree char *path = write_file ("ex.dim", dim_example);
  g_autoptr (PtiContext) ctx = replay (path, NULL, PTI_SOURCE_DIMEMAS);
  assert_time (result (ctx, 0).end, 226.082 * US);
  assert_time (result (ctx, 1).end, 213.002 * US);
  assert_time (result (ctx, 2).end, 221.082 * US);
  /* with an offset table at the end and an unquoted name (Extrae's) */
  g_autofree char *t = g_strconcat (dim_example, "s:0:64\ns:1:300\ns:2:600\n", NULL);
  char *p = strstr (t, "\"ring_example\"");
  memmove (p, p + 1, strlen (p + 1) + 1);
  p = strstr (t, "ring_example\"");
  memmove (p + strlen ("ring_example"), p + strlen ("ring_example") + 1,
           strlen (p + strlen ("ring_example") + 1) + 1);
  g_autofree char *path2 = write_file ("ex2.dim", t);
  g_autoptr (PtiContext) ctx2 = replay (path2, NULL, PTI_SOURCE_DIMEMAS);
  assert_time (result (ctx2, 0).end, 226.082 * US);
}

/* Collectives whose records say only a task's share: a bcast rooted at
 * task 2, a gatherv to task 3 (each task's bytes), a non-blocking bcast
 * from task 1 started and waited for (SYNCH 0 and 2), messages on a
 * communicator of tasks 1 and 3, a thread-1 record and a GPU burst (both
 * counted, not replayed): the same times as the workload built with the
 * WSL's calls. */
static void
test_dim_collectives (void)
{
  g_autofree char *path = write_file ("colls.dim",
    "#DIMEMAS:\"colls\":0:4(1,1,2,1),2\n"
    "d:1:1:4:0:1:2:3\n"
    "d:1:7:2:1:3\n"
    "1:0:0:0.001\n"
    "10:0:0:1:1:0:0:0:1000:1\n"
    "10:0:0:3:1:0:0:100:0:1\n"
    "10:0:0:17:1:0:0:0:500:0\n"
    "1:0:0:0.0001\n"
    "10:0:0:17:1:0:0:0:500:2\n"
    "10:1:0:1:1:0:0:0:1000:1\n"
    "10:1:0:3:1:0:0:200:0:1\n"
    "10:1:0:17:1:1:0:500:0:0\n"
    "10:1:0:17:1:1:0:500:0:2\n"
    "2:1:0:3:-1:64:5:7:0\n"
    "11:1:0:0.5\n"
    "10:2:0:1:1:1:0:1000:0:1\n"
    "10:2:0:3:1:0:0:300:0:1\n"
    "10:2:0:17:1:0:0:0:500:0\n"
    "10:2:0:17:1:0:0:0:500:2\n"
    "1:2:1:0.3\n"
    "10:3:0:1:1:0:0:0:1000:1\n"
    "10:3:0:3:1:1:0:400:1000:1\n"
    "10:3:0:17:1:0:0:0:500:0\n"
    "10:3:0:17:1:0:0:0:500:2\n"
    "3:3:0:1:-1:64:5:7:0\n");
  g_autoptr (PtiReplayNotes) notes = pti_replay_notes_new ();
  g_autoptr (PtiContext) ctx = replay (path, notes, PTI_SOURCE_DIMEMAS);
  g_assert_cmpuint (note_count (notes, "records of threads other than 0"), ==, 1);
  g_assert_cmpuint (note_count (notes, "GPU bursts"), ==, 1);

  g_autoptr (PtiContext) ref = context ();
  g_autoptr (GError) error = NULL;
  g_assert_true (pti_context_set_processes (ref, 4, &error));
  const guint pair[] = { 1, 3 };
  PtiComm *c7 = pti_comm_create (ref, NULL, "communicator 7", 2, pair, &error);
  g_assert_no_error (error);
  const guint64 gv[4] = { 100, 200, 300, 400 };
  for (guint r = 0; r < 4; r++) {
    PtiRequest q;
    gboolean ok = (r != 0 || pti_use_time (ref, r, 0.001, &error))
      && pti_mpi_bcast (ref, r, 2, 1000, &error)
      && pti_mpi_gatherv (ref, r, 3, gv[r], gv, &error)
      && pti_mpi_ibcast (ref, r, 1, 500, &q, &error)
      && (r != 0 || pti_use_time (ref, r, 0.0001, &error))
      && pti_mpi_wait (ref, r, q, &error)
      && (r != 1 || pti_mpi_send_comm (ref, c7, r, 1, 64, 5, &error))
      && (r != 3 || pti_mpi_recv_comm (ref, c7, r, 0, 64, 5, &error));
    g_assert_no_error (error);
    g_assert_true (ok);
  }
  g_assert_true (pti_evaluate (ref, &error));
  g_assert_cmpuint (pti_result_events (ctx), ==, pti_result_events (ref));
  for (guint r = 0; r < 4; r++)
    assert_time (result (ctx, r).end, result (ref, r).end);
}

static void
test_dim_errors (void)
{
  static const struct {
    const char *text;
    const char *expect;
  } cases[] = {
    { "#DIMEMAS:\"\":0:1(1),0\n", "e.dim:1: the header's application name is not a non-empty "
                                  "quoted name" },
    { "#DIMEMAS:\"x\":0:2(1),0\n", "e.dim:1: 2 thread counts expected in NTASKS(...)" },
    { "#DIMEMAS:\"x\":0:2(1,1),1\n1:0:0:0.1\n", "e.dim:2: the header announces 1 communicator "
                                                "but 0 are defined" },
    { "#DIMEMAS:\"x\":0:2(1,1),0\n1:1:0:0.1\n1:0:0:0.1\n",
      "e.dim:2: the records are not sorted by task (or a line is not a record): task 1's "
      "records do not begin where task 0's end" },
    { "#DIMEMAS:\"x\":0:2(1,1),0\n1:0:0:0.1\n1:1:0:0.1\n1:0:0:0.1\n",
      "e.dim:3: the records are not sorted by task" },
    { "#DIMEMAS:\"x\":0:2(1,1),0\n1:0:0:abc\n", "e.dim:2: CPU burst 'abc' is not a time" },
    { "#DIMEMAS:\"x\":0:2(1,1),0\n2:0:0:1:-1:8:0:1:0\n3:1:0:0:-1:8:0:1:0\n",
      "e.dim:2: communicator 1 is not defined" },
    { "#DIMEMAS:\"x\":0:2(1,1),1\nd:1:1:2:0:1\n3:0:0:1:-1:8:0:1:2\n",
      "e.dim:3: a wait (receive type 2) for a receive from task 1" },
    { "#DIMEMAS:\"x\":0:2(1,1),1\nd:1:1:2:0:1\n3:0:0:1:-1:8:0:1:3\n",
      "receive type 3 is not 0 (blocking), 1 (non-blocking) or 2 (wait)" },
    { "#DIMEMAS:\"x\":0:2(1,1),0\n7:0:0:1\n", "e.dim:2: record type 7 is not one of Dimemas'" },
    { "#DIMEMAS:\"x\":0:2(1,1),1\nd:1:1:2:0:1\n10:0:0:1:1:0:0:0:8:1\n10:1:0:1:1:0:0:0:8:1\n",
      "e.dim:4: call #1 on communicator 1 (bcast) has no root: every member's record has been "
      "read and none has IS_ROOT 1" },
    { "#DIMEMAS:\"x\":0:2(1,1),1\nd:1:1:2:0:1\n10:0:0:3:1:1:0:8:16:1\n1:1:0:0.1\n",
      "e.dim:3: call #1 on communicator 1 (gatherv): task 1's records end before it makes "
      "that call" },
    { "#DIMEMAS:\"x\":0:2(1,1),1\nd:1:1:2:0:1\n1:0:0:0.1\ngarbage\n1:1:0:0.1\n",
      "e.dim:4: 'garbage' is not a record" },
    { "#DIMEMAS:\"x\":0:2(1,1),1\nd:1:1:3:0:1:2\n", "e.dim:2: communicator 1: 3 tasks announced" },
    { "#DIMEMAS:\"x\":0:2(1,1),0\n1:0:0:0.1\n\xd0:0:0:0.1\n",
      "e.dim:3: this line: not UTF-8 text (byte 0xD0 at column 1)" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    g_autofree char *path = write_file ("e.dim", cases[i].text);
    replay_fails (path, cases[i].expect, NULL);
  }
}

/* ---- recognising the format -------------------------------------------------------- */

static void
test_sniff (void)
{
  static const struct {
    const char *text;
    PtiSourceFormat format;
  } cases[] = {
    { "<?xml version='1.0'?><workload/>", PTI_SOURCE_WORKLOAD_XML },
    { "\xef\xbb\xbf  <workload name='x'/>", PTI_SOURCE_WORKLOAD_XML },
    { "#DIMEMAS:\"a\":0:1(1),0\n", PTI_SOURCE_DIMEMAS },
    { "# version: 1.0\n\n0 init\n", PTI_SOURCE_TI_ACTIONS },
    { "3\tcompute 1e6\n", PTI_SOURCE_TI_ACTIONS },
    { "ti/rank-1.txt\nti/rank-2.txt\n", PTI_SOURCE_TI_INDEX },
    { "a\0b", PTI_SOURCE_UNKNOWN },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    g_autofree char *path = g_build_filename (tmpdir, "sniff", NULL);
    gsize len = cases[i].format == PTI_SOURCE_UNKNOWN ? 3 : strlen (cases[i].text);
    g_assert_true (g_file_set_contents (path, cases[i].text, len, NULL));
    PtiSourceFormat f;
    g_autoptr (GError) error = NULL;
    g_assert_true (pti_source_sniff (path, &f, &error));
    g_assert_cmpint (f, ==, cases[i].format);
  }
  g_autofree char *path = g_build_filename (tmpdir, "sniff", NULL);
  replay_fails (path, "is not a workload pti reads", NULL);
  replay_fails ("/nonexistent/x", "/nonexistent/x: cannot read: ", NULL);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_autoptr (GError) error = NULL;
  tmpdir = g_dir_make_tmp ("pti-replay-XXXXXX", &error);
  g_assert_no_error (error);
  g_test_add_func ("/replay/ti/layouts", test_ti_layouts);
  g_test_add_func ("/replay/ti/long-shared", test_ti_long_shared);
  g_test_add_func ("/replay/ti/collectives", test_ti_collectives);
  g_test_add_func ("/replay/ti/proc-null", test_ti_proc_null);
  g_test_add_func ("/replay/ti/legacy", test_ti_legacy);
  g_test_add_func ("/replay/ti/notes", test_ti_notes);
  g_test_add_func ("/replay/ti/errors", test_ti_errors);
  g_test_add_func ("/replay/ti/ptieval", test_ti_ptieval);
  g_test_add_func ("/replay/dim/example", test_dim_example);
  g_test_add_func ("/replay/dim/collectives", test_dim_collectives);
  g_test_add_func ("/replay/dim/errors", test_dim_errors);
  g_test_add_func ("/replay/sniff", test_sniff);
  int rc = g_test_run ();
  g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", tmpdir);
  if (system (cmd) != 0)
    rc = rc ? rc : 1;
  g_free (tmpdir);
  return rc;
}
