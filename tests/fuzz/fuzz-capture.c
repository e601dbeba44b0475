/* Fuzz harness for the pticapture trace reader (capture/capture-reader.c):
 * any bytes as a rank file must give records and a clean end or an error,
 * never a crash, a hang or unbounded memory.
 *
 * libFuzzer:  clang -g -fsanitize=fuzzer,address,undefined -Icapture \
 *               tests/fuzz/fuzz-capture.c capture/capture-reader.c \
 *               $(pkg-config --cflags --libs glib-2.0) -o fuzz-capture
 *             ./fuzz-capture tests/fuzz/seeds/capture
 * The test suite runs it as every other target (fuzz.py smoke; with gcc,
 * standalone.c replays the seeds and mutations of them). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* memfd_create */
#endif
#include "capture-reader.h"

#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  int fd = memfd_create ("fuzz-capture", MFD_CLOEXEC);
  if (fd < 0)
    return 0;
  size_t done = 0;
  while (done < size) {
    ssize_t w = write (fd, data + done, size - done);
    if (w <= 0)
      break;
    done += (size_t) w;
  }
  char path[64];
  g_snprintf (path, sizeof path, "/proc/self/fd/%d", fd);
  GError *error = NULL;
  PtiCaptureRank *r = pti_capture_rank_open_file (path, &error);
  if (r != NULL) {
    PtiCaptureEvent ev;
    gboolean done_reading = FALSE;
    guint64 n = 0;
    while (pti_capture_rank_next (r, &ev, &done_reading, &error) && !done_reading) {
      /* touch what the reader hands out: arrays and communicators */
      for (guint i = 0; i < ev.n_requests; i++)
        n += ev.requests[i].request + (ev.requests[i].info ? ev.requests[i].info->id : 0);
      for (guint i = 0; i < ev.n_rcounts; i++)
        n += ev.rcounts[i];
      if (ev.newcomm != NULL && ev.newcomm->members != NULL)
        for (guint i = 0; i < ev.newcomm->n_members; i++)
          n += (guint64) ev.newcomm->members[i];
      n += ev.name[0];
    }
    (void) n;
    /* after the end, next() repeats it */
    if (error != NULL) {
      GError *again = NULL;
      g_assert_false (pti_capture_rank_next (r, &ev, &done_reading, &again));
      g_assert_nonnull (again);
      g_error_free (again);
    }
    pti_capture_rank_free (r);
  }
  if (error != NULL) {
    g_assert_true (error->domain == PTI_CAPTURE_ERROR);
    g_error_free (error);
  }
  close (fd);
  return 0;
}
