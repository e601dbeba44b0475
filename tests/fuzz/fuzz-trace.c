/* Fuzz target: the trace reader (traces/trace-reader.c) that ptitrace's
 * converters are built on: a trace opened and read item by item to its end.
 * Seeds: the trace samples and golden files of the tests. */
#include "fuzz.h"

#include "trace-reader.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  fuzz_setup ();
  const char *path = fuzz_write_file (data, size);
  g_autoptr (GError) error = NULL;
  g_autoptr (PtiTraceReader) r = pti_trace_reader_open (path, &error);
  if (r == NULL) {
    fuzz_check_error (error);
    return 0;
  }
  PtiTrItem item;
  while (pti_trace_reader_next (r, &item, &error))
    ;
  if (error != NULL)
    fuzz_check_error (error);
  return 0;
}
