/* Polls that find nothing, on 2 ranks, for test-capture.c: the capture
 * counts a poll untimed when its arguments equal those of the poll just
 * before it (capture/capture-private.h), compared in place; these are the
 * cases where they look alike but are not the same poll, each of which must
 * be a record of its own (golden/polls.txt); and calls recorded by name,
 * whose repeats the capture adds to a run without encoding them.  Rank 0
 * polls; rank 1 only takes part in the collectives and, once rank 0 is
 * done polling, sends what its receives wait for.
 *   polls        the cases below
 *   polls spin [testall|testsome]
 *                rank 0 polls one receive with MPI_Testany (or the call
 *                named, its statuses ignored) until rank 1's message
 *                completes it, and prints "polls N" (N calls): the poll
 *                that finds it is made as an untimed repeat would be, and
 *                must be recorded with what it completed. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define CHECK(call) \
  do { \
    if ((call) != MPI_SUCCESS) \
      MPI_Abort (MPI_COMM_WORLD, 3); \
  } while (0)

static void
spin (int rank, const char *call)
{
  int v = 0, index, flag = 0, outcount, indices[1];
  MPI_Request rq;
  long n = 0;
  if (rank == 0)
    CHECK (MPI_Irecv (&v, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, &rq));
  CHECK (MPI_Barrier (MPI_COMM_WORLD));
  if (rank == 1) {
    /* late enough that rank 0 has polled in vain before */
    nanosleep (&(struct timespec) { .tv_nsec = 20000000 }, NULL);
    CHECK (MPI_Send (&v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD));
  } else {
    while (!flag) {
      if (strcmp (call, "testall") == 0)
        CHECK (MPI_Testall (1, &rq, &flag, MPI_STATUSES_IGNORE));
      else if (strcmp (call, "testsome") == 0) {
        CHECK (MPI_Testsome (1, &rq, &outcount, indices, MPI_STATUSES_IGNORE));
        flag = outcount > 0;
      } else
        CHECK (MPI_Testany (1, &rq, &index, &flag, MPI_STATUS_IGNORE));
      n++;
    }
    printf ("polls %ld\n", n);
  }
}

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  int rank, v[16] = { 0 }, index, flag, outcount, indices[9];
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  if (argc > 1 && strcmp (argv[1], "spin") == 0) {
    spin (rank, argc > 2 ? argv[2] : "testany");
    MPI_Finalize ();
    return 0;
  }
  MPI_Request a[1], b[1], c[2], t, many[9];
  if (rank == 0) {
    /* requests 1 to 4, tags 1 to 4, completed at the end */
    CHECK (MPI_Irecv (&v[1], 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &a[0]));
    CHECK (MPI_Irecv (&v[2], 1, MPI_INT, 1, 2, MPI_COMM_WORLD, &b[0]));
    CHECK (MPI_Irecv (&v[3], 1, MPI_INT, 1, 3, MPI_COMM_WORLD, &c[0]));
    CHECK (MPI_Irecv (&v[4], 1, MPI_INT, 1, 4, MPI_COMM_WORLD, &c[1]));

    /* two arrays in turn: a run of period 2, [1] and [2] */
    for (int i = 0; i < 4; i++) {
      CHECK (MPI_Testany (1, a, &index, &flag, MPI_STATUS_IGNORE));
      CHECK (MPI_Testany (1, b, &index, &flag, MPI_STATUS_IGNORE));
    }
    CHECK (MPI_Barrier (MPI_COMM_WORLD));

    /* the same array, its handle changed in place: [1] x3, then [2] x2 */
    for (int i = 0; i < 3; i++)
      CHECK (MPI_Testany (1, a, &index, &flag, MPI_STATUS_IGNORE));
    t = a[0], a[0] = b[0], b[0] = t;
    for (int i = 0; i < 2; i++)
      CHECK (MPI_Testany (1, a, &index, &flag, MPI_STATUS_IGNORE));
    t = a[0], a[0] = b[0], b[0] = t;
    CHECK (MPI_Barrier (MPI_COMM_WORLD));

    /* the same array, fewer requests: [3,4] x2, then [3] x2 */
    for (int i = 0; i < 2; i++)
      CHECK (MPI_Testany (2, c, &index, &flag, MPI_STATUS_IGNORE));
    for (int i = 0; i < 2; i++)
      CHECK (MPI_Testany (1, c, &index, &flag, MPI_STATUS_IGNORE));
    CHECK (MPI_Barrier (MPI_COMM_WORLD));

    /* the second handle changed: [3,4] x2, then [3,1] x2 */
    for (int i = 0; i < 2; i++)
      CHECK (MPI_Testall (2, c, &flag, MPI_STATUSES_IGNORE));
    t = c[1], c[1] = a[0], a[0] = t;
    for (int i = 0; i < 2; i++)
      CHECK (MPI_Testall (2, c, &flag, MPI_STATUSES_IGNORE));
    t = c[1], c[1] = a[0], a[0] = t;
    CHECK (MPI_Barrier (MPI_COMM_WORLD));

    /* the same handle, other calls: Testsome, Test, Testany on [1] x2 each */
    for (int i = 0; i < 2; i++)
      CHECK (MPI_Testsome (1, a, &outcount, indices, MPI_STATUSES_IGNORE));
    for (int i = 0; i < 2; i++)
      CHECK (MPI_Test (&a[0], &flag, MPI_STATUS_IGNORE));
    for (int i = 0; i < 2; i++)
      CHECK (MPI_Testany (1, a, &index, &flag, MPI_STATUS_IGNORE));
    CHECK (MPI_Barrier (MPI_COMM_WORLD));

    /* iprobes: another tag, another source, another communicator */
    MPI_Comm dup;
    CHECK (MPI_Comm_dup (MPI_COMM_WORLD, &dup));
    for (int i = 0; i < 2; i++)
      CHECK (MPI_Iprobe (1, 50, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    for (int i = 0; i < 2; i++)
      CHECK (MPI_Iprobe (1, 51, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    for (int i = 0; i < 2; i++)
      CHECK (MPI_Iprobe (MPI_ANY_SOURCE, 51, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    for (int i = 0; i < 2; i++)
      CHECK (MPI_Iprobe (MPI_ANY_SOURCE, 51, dup, &flag, MPI_STATUS_IGNORE));
    CHECK (MPI_Comm_free (&dup));
    CHECK (MPI_Barrier (MPI_COMM_WORLD));

    /* more requests than a key holds: timed, each a record, x3 by REPEAT */
    many[0] = a[0];
    for (int i = 1; i < 9; i++)
      many[i] = MPI_REQUEST_NULL;
    for (int i = 0; i < 3; i++)
      CHECK (MPI_Testany (9, many, &index, &flag, MPI_STATUS_IGNORE));
    CHECK (MPI_Barrier (MPI_COMM_WORLD));

    /* calls recorded by name repeat the same way (timed): Wtime x3, then
     * Wtick, another name, x3, then Wtime x2 and Comm_size, Comm_rank in
     * turn */
    for (int i = 0; i < 3; i++)
      (void) MPI_Wtime ();
    for (int i = 0; i < 3; i++)
      (void) MPI_Wtick ();
    for (int i = 0; i < 2; i++)
      (void) MPI_Wtime ();
    for (int i = 0; i < 3; i++) {
      CHECK (MPI_Comm_size (MPI_COMM_WORLD, &v[5]));
      CHECK (MPI_Comm_rank (MPI_COMM_WORLD, &v[6]));
    }
    CHECK (MPI_Wait (&c[1], MPI_STATUS_IGNORE));
    CHECK (MPI_Wait (&a[0], MPI_STATUS_IGNORE));
    CHECK (MPI_Wait (&b[0], MPI_STATUS_IGNORE));
    CHECK (MPI_Wait (&c[0], MPI_STATUS_IGNORE));
  } else {
    MPI_Comm dup;
    for (int i = 0; i < 5; i++)
      CHECK (MPI_Barrier (MPI_COMM_WORLD));
    CHECK (MPI_Comm_dup (MPI_COMM_WORLD, &dup));
    CHECK (MPI_Comm_free (&dup));
    for (int i = 0; i < 2; i++)
      CHECK (MPI_Barrier (MPI_COMM_WORLD));
    for (int tag = 4; tag >= 1; tag--)
      CHECK (MPI_Send (&v[0], 1, MPI_INT, 0, tag, MPI_COMM_WORLD));
  }
  MPI_Finalize ();
  return 0;
}
