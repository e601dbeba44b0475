/* pti regions: performance assertions in real programs (seed 000).
 *
 * A program marks a code region, reports what it did there (counters such
 * as flops), and states expectations that are checked each time the region
 * ends:
 *
 *   pti_region_param ("n", n);                          once, the run's size
 *   pti_region_assert ("sweep", "fast", "time < 0.5 && bytes == 8*n", PTI_REACT_REPORT);
 *   pti_region_begin ("sweep");
 *     ... pti_region_count ("flops", 2.0 * n); ...
 *   pti_region_end ("sweep");                           checks "fast"
 *
 * Link with -lptiregion (libptiregion.so; plain C, no MPI, GLib or libxml2).
 * Run under pticapture, the capture records the regions, counters,
 * parameters and every check with its outcome (capture/FORMAT.md 6.8), and
 * the MPI figures below come from the capture library's PMPI counters.
 *
 * A test is a pti expression (the grammar of pti/expr.h: C operators, ^,
 * min, max, floor, ceil, round, abs, log2, sqrt, pow, idiv) over the names
 *   time        wall-clock seconds of this entry of the region
 *   calls       MPI calls made in it            } under pticapture only;
 *   messages    point-to-point messages sent    } elsewhere reading them
 *   bytes       bytes those messages carried    } is an error
 *   entry       which entry this is (1, 2, ...)
 *   total_time  seconds in the region over every entry so far
 *   rank, size  the MPI world rank and size (from the capture, or
 *               OMPI_COMM_WORLD_RANK/SIZE, PMI_RANK/SIZE; else 0 and 1)
 *   predicted_time, predicted_total
 *               pti's prediction for the region: the phase of the same
 *               name in PTI_PREDICTION (a file written by ptieval --json),
 *               per entry (time_max_s / entries_max) and in all (time_max_s)
 *   NAME        a counter (pti_region_count: what this entry counted,
 *               nested regions included) or a parameter (pti_region_param)
 * Each figure is inclusive: a region's time, calls and counters include
 * those of the regions nested in it.
 *
 * Misuse (an end without its begin, a bad test, an unknown name) is
 * reported on stderr with the rank, region and what is wrong, returns
 * PTI_REGION_ERROR, and changes nothing; pti_region_error() repeats the
 * message.  Not thread-safe: call from the thread that makes MPI calls. */
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define PTI_REGION_API __attribute__ ((visibility ("default")))
#else
#define PTI_REGION_API
#endif

/* What happens when a test is false (seed 000's reactions).  The
 * environment variable PTI_REGION_REACTION (count, report, handler, abort,
 * off) overrides every assertion's choice; off stops checking. */
typedef enum {
  PTI_REACT_COUNT = 0,     /* only count the failure (see pti_region_summary) */
  PTI_REACT_REPORT = 1,    /* one line on stderr: rank, region, assertion, test, values */
  PTI_REACT_HANDLER = 2,   /* call the handler of pti_region_set_handler (report if none) */
  PTI_REACT_ABORT = 3,     /* report, then end the job (MPI_Abort, or abort()) */
} PtiRegionReaction;

enum { PTI_REGION_OK = 0, PTI_REGION_FAILED = 1, PTI_REGION_ERROR = -1 };

/* One failed check, as the handler sees it (valid during the call). */
typedef struct {
  int rank;
  const char *region, *assertion, *test;
  int n_values;
  const char *const *names;   /* the names the test reads, first use first */
  const double *values;
  unsigned long long entry;   /* the region's entry that failed */
} PtiRegionFailure;

typedef void (*PtiRegionHandler) (const PtiRegionFailure *failure, void *data);

/* Begin and end a region.  @name: an identifier ([A-Za-z_][A-Za-z0-9_]*,
 * the name of the matching phase in pti); regions nest, and the innermost
 * must end first.  pti_region_end checks the region's assertions and
 * returns PTI_REGION_FAILED if any failed. */
PTI_REGION_API int pti_region_begin (const char *name);
PTI_REGION_API int pti_region_end (const char *name);

/* Adds @value to counter @counter (an identifier) of the innermost region. */
PTI_REGION_API int pti_region_count (const char *counter, double value);

/* A parameter of the run (a problem size), readable by tests and recorded
 * in the capture for ptivalidate.  Set it before the tests that read it are
 * checked; setting it again changes it. */
PTI_REGION_API int pti_region_param (const char *name, double value);

/* States assertion @name (unique) over region @region (which need not have
 * begun yet), checked at each of its ends.  The test is compiled now. */
PTI_REGION_API int pti_region_assert (const char *region, const char *name, const char *test,
                                      PtiRegionReaction reaction);

PTI_REGION_API void pti_region_set_handler (PtiRegionHandler handler, void *data);

/* How often assertion @name was checked and failed so far (-1: unknown). */
PTI_REGION_API int pti_region_outcome (const char *name, unsigned long long *checks,
                                       unsigned long long *failures);

/* Writes one line per assertion (checks, failures, the least and largest
 * value of its first name) to stderr; also at exit when
 * PTI_REGION_SUMMARY=1 or an assertion failed. */
PTI_REGION_API void pti_region_summary (void);

/* The last misuse's message, "" if none. */
PTI_REGION_API const char *pti_region_error (void);

#ifdef __cplusplus
}
#endif
