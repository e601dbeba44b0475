/* Marking the kernel whose reuse distances ptireuse measures (ptireuse
 * --region; memtrace/README.md).  Plain C, header only: include it in the
 * measured program, no library to link.
 *
 *     PTI_REUSE_START ();
 *     kernel (...);
 *     PTI_REUSE_STOP ();
 *
 * Under valgrind each marker is a client request: VALGRIND_PRINTF of a
 * marker line, which valgrind writes into the same stream as lackey's
 * trace, in program order, so ptireuse counts exactly the references in
 * between; and CALLGRIND_TOGGLE_COLLECT, so callgrind run with
 * --collect-atstart=no --cache-sim=yes counts the same region's misses
 * (tests/bench/reuse.sh compares the two).  Outside valgrind, or without
 * valgrind's headers (Debian: valgrind), each marker costs a few
 * instructions or nothing.  Pairs may nest; references outside any pair
 * still warm the LRU stack. */
#ifndef PTI_REUSE_REGION_H
#define PTI_REUSE_REGION_H

/* The marker lines (the text VALGRIND_PRINTF writes after "**PID** "):
 * the contract with ptireuse's stream parser, which includes this file. */
#define PTI_REUSE_START_MARK "ptireuse-start"
#define PTI_REUSE_STOP_MARK "ptireuse-stop"

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>) && __has_include(<valgrind/callgrind.h>)
#define PTI_REUSE_HAVE_VALGRIND 1
#endif
#endif

#ifdef PTI_REUSE_HAVE_VALGRIND
#include <valgrind/valgrind.h>
#include <valgrind/callgrind.h>
#define PTI_REUSE_START()                                   \
  do {                                                      \
    VALGRIND_PRINTF ("%s\n", PTI_REUSE_START_MARK);         \
    CALLGRIND_TOGGLE_COLLECT;                               \
  } while (0)
#define PTI_REUSE_STOP()                                    \
  do {                                                      \
    CALLGRIND_TOGGLE_COLLECT;                               \
    VALGRIND_PRINTF ("%s\n", PTI_REUSE_STOP_MARK);          \
  } while (0)
#else
#define PTI_REUSE_START() do { } while (0)
#define PTI_REUSE_STOP() do { } while (0)
#endif

#endif
