/* Fuzz target: ptireuse's address-stream parsers (memtrace/reuse-stream.c)
 * and the <reuse> document.  The first byte picks the format (raw or
 * lackey), --region, the line size and the chunk size the rest is pushed
 * in; the histogram of whatever was read is written as XML, read back and
 * must come out the same.  Seeds: the raw streams of tests/reuse/data and
 * tests/fuzz/seeds/reuse. */
#include "fuzz.h"

#include "reuse.h"

#include <string.h>

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  fuzz_setup ();
  if (size == 0)
    return 0;
  guint8 mode = data[0];
  PtiReuseFormat format = mode & 1 ? PTI_REUSE_FORMAT_LACKEY : PTI_REUSE_FORMAT_RAW;
  gboolean region = format == PTI_REUSE_FORMAT_LACKEY && (mode & 2);
  guint line = 1u << ((mode >> 2) & 7);                    /* 1 .. 128 bytes */
  gsize chunk = (gsize) 1 << ((mode >> 5) & 7);            /* 1 .. 128 bytes */
  data++;
  size--;
  g_autoptr (PtiReuse) r = pti_reuse_new (line);
  g_autoptr (PtiReuseStream) s = pti_reuse_stream_new (r, format, "fuzz", region);
  GError *error = NULL;
  gboolean ok = TRUE;
  for (gsize off = 0; ok && off < size; off += chunk)
    ok = pti_reuse_stream_push (s, (const char *) data + off, MIN (chunk, size - off), &error);
  if (ok)
    ok = pti_reuse_stream_finish (s, &error);
  if (!ok) {
    fuzz_check_error (error);
    g_error_free (error);
    return 0;
  }
  PtiReuseHistogram h, back;
  pti_reuse_histogram (r, &h);
  g_autofree char *xml = pti_reuse_histogram_to_xml (&h);
  if (!pti_reuse_histogram_parse (xml, strlen (xml), "fuzz.xml", &back, &error))
    g_error ("the written histogram does not read back: %s", error->message);
  g_assert_cmpmem (&back, sizeof back, &h, sizeof h);
  return 0;
}
