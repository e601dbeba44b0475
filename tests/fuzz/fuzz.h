/* What the fuzz harnesses share (tests/fuzz/README.md).  Each harness is a
 * libFuzzer target, LLVMFuzzerTestOneInput, built with clang's
 * -fsanitize=fuzzer or, with any other compiler, with standalone.c. */
#pragma once

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

G_BEGIN_DECLS

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* Before the first input (later calls do nothing): pti finds the source
 * tree's schemas and only its built-in models, and a GLib warning or
 * critical is a crash. */
void fuzz_setup (void);

/* A file of the source tree (FUZZ_SOURCE_ROOT), (transfer full). */
char *fuzz_source_file (const char *relative);

/* The bytes written to this process's input file (the same path every
 * time, removed at exit): for readers that take a path.  (transfer none) */
const char *fuzz_write_file (const uint8_t *data, size_t size);

/* The bytes as a NUL-terminated string (a NUL inside ends it), (transfer full). */
char *fuzz_string (const uint8_t *data, size_t size);

/* A failure must come with a message that is text: it is printed, and
 * written into JSON; aborts otherwise. */
void fuzz_check_error (const GError *error);

G_END_DECLS
