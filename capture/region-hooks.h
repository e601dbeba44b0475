/* What libpticapture offers the region library (libptiregion, region.c)
 * when both are in one process: the PMPI counters it keeps and the records
 * it writes for regions (FORMAT.md section 6.8).  libptiregion finds it with
 * dlsym (RTLD_DEFAULT, PTI_CAPTURE_REGION_HOOKS) once, so neither library
 * links the other: a program linked with -lptiregion runs with or without
 * pticapture, and pticapture captures programs that do not use regions.
 * Plain C: both sides are loaded into the user's MPI program. */
#pragma once

#include <stdint.h>

#define PTI_CAPTURE_REGION_HOOKS "pti_capture_region_hooks"
#define PTI_CAPTURE_REGION_HOOKS_VERSION 1

/* Kinds of a DEFINE record (FORMAT.md 6.8). */
enum { PTI_DEF_REGION = 0, PTI_DEF_COUNTER = 1, PTI_DEF_ASSERTION = 2 };

typedef struct {
  int version;                       /* PTI_CAPTURE_REGION_HOOKS_VERSION */
  /* Running totals of the rank's MPI calls, and of the messages and bytes
   * its point-to-point sends sent (Send, Ssend, Bsend, Rsend, their
   * non-blocking forms, Sendrecv, Sendrecv_replace); read as the region
   * begins and ends. */
  const volatile uint64_t *calls, *messages, *bytes;
  int (*rank) (void);                /* world rank, -1 before MPI_Init */
  uint64_t (*now) (void);            /* ns since time 0: the records' clock */
  /* Records (dropped when the capture is off or done).  @extra: an
   * assertion's test; @region: the region an assertion belongs to. */
  void (*define) (int kind, uint32_t id, const char *name, const char *extra, uint32_t region);
  void (*begin) (uint32_t region, uint64_t t);
  void (*end) (uint32_t region, uint64_t t, uint64_t calls, uint64_t messages, uint64_t bytes);
  void (*count) (uint32_t region, uint32_t counter, double value);
  void (*check) (uint32_t assertion, int passed, int n, const double *values);
  void (*param) (const char *name, double value);
} PtiCaptureRegionHooks;

typedef const PtiCaptureRegionHooks *(*PtiCaptureRegionHooksFunc) (void);
