/* Lines of the text traces pti replays (SimGrid TI, Dimemas): read one at
 * a time, checked as text before any field of them is parsed or quoted. */
#pragma once

#include <glib.h>
#include <stdio.h>

/* Reads one line of @fp, its newline kept if it has one, and appends it to
 * @out: the bytes read (0 at the end of the file), or -1 with @error set.
 * A line is refused (PTI_ERROR_INVALID, the message without a location:
 * callers prefix the file and line) when it is longer than @limit bytes,
 * holds a NUL byte or is not UTF-8; a read error is PTI_ERROR_IO.  @out
 * grows only to the longest line: nothing is allocated per line. */
gssize pti_line_read (FILE *fp, GString *out, gsize limit, GError **error);
