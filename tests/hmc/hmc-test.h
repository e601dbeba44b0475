/* Shared helpers of the hmc test programs: command-line folders of the test
 * models, a scratch folder for generated files, and error assertions. */
#pragma once

#include <glib.h>

#include "registry.h"
#include "system.h"

/* Folders of the test models, from the command line (tests/hmc/meson.build). */
typedef struct {
  const char *good;        /* libpti-model-example.so */
  const char *badabi;      /* a model built for HMI ABI 99 */
  const char *nosym;       /* a shared object without the entry point */
  const char *extra;       /* example-clash (<example_cpu> too), example-badschema */
  const char *hugesize;    /* example-huge: an instance of 2^60 bytes */
} HmcModelDirs;

extern HmcModelDirs hmc_dirs;

/* Takes --models-good/-badabi/-nosym/-extra DIR out of argv, then
 * g_test_init; makes the scratch folder. */
void hmc_test_init (int *argc, char ***argv);
/* Runs the tests, removes the scratch folder. */
int hmc_test_run (void);

/* (transfer full) a path in the scratch folder; hmc_write also writes @text. */
char *hmc_scratch (const char *name);
char *hmc_write (const char *name, const char *text);
/* (transfer full) a file of the source tree, e.g. "configs/pc_cluster.xml". */
char *hmc_source (const char *relative);

/* 1-based line of the first occurrence of @needle in @text (asserts it is there). */
int hmc_line_of (const char *text, const char *needle);

/* Asserts @error is PTI_ERROR/@code and its message contains every string
 * of the NULL-terminated list; prints the message on failure. */
void hmc_assert_error (const GError *error, int code, ...) G_GNUC_NULL_TERMINATED;
/* Asserts the message does not contain @needle. */
void hmc_assert_error_lacks (const GError *error, const char *needle);
