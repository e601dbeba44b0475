/* Decimal digits without printf, for the hot paths that write numbers: the
 * trace writer (trace-writer.c) and ptitrace's converters (ptitrace/).
 * Internal; header only. */
#pragma once

#include <glib.h>

/* @v in decimal at @p, no NUL: the end of what was written (1 to 20
 * bytes).  Inline: called per field of every event. */
static inline char *
pti_put_u64 (char *p, guint64 v)
{
  char tmp[20];
  int n = 0;
  do {
    tmp[n++] = (char) ('0' + v % 10);
    v /= 10;
  } while (v != 0);
  while (n > 0)
    *p++ = tmp[--n];
  return p;
}
