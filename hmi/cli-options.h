/* What pti's command-line programs share about their arguments.  Header
 * only (static inline): a program includes it and links nothing for it.
 * Not installed. */
#pragma once

#include <glib.h>
#include <string.h>

/* The option entries of a program, as the arrays it adds to its
 * GOptionContext (each ended by an entry without a long name), NULL after
 * the last: PTI_CLI_GROUPS (entries) for one array. */
#define PTI_CLI_GROUPS(...) ((const GOptionEntry *const[]) { __VA_ARGS__, NULL })

/* Whether @arg is an option of @groups whose value is the next argument:
 * `--cflags` before `-O3` makes -O3 a value, not an option. */
static inline gboolean
pti_cli_option_takes_value (const GOptionEntry *const *groups, const char *arg)
{
  if (arg[0] != '-')
    return FALSE;
  for (const GOptionEntry *const *g = groups; *g != NULL; g++)
    for (const GOptionEntry *e = *g; e->long_name != NULL; e++) {
      if (e->arg == G_OPTION_ARG_NONE || e->arg == G_OPTION_ARG_CALLBACK)
        continue;
      if ((arg[1] == '-' && strcmp (arg + 2, e->long_name) == 0)
          || (e->short_name != 0 && arg[1] == e->short_name && arg[2] == '\0'))
        return TRUE;
    }
  return FALSE;
}

/* The arguments with every "-XVALUE", X a short option of @groups that
 * takes a value, given as "-X" "VALUE", the way compilers and most tools
 * read them (-DNAME=VALUE, -O2, -oFILE): GOption takes a short option's
 * value only from the next argument and reads -Dn=4 as the options D, n,
 * = and 4.  An argument that is the value of the option before it, and
 * everything after "--", are left as they are.  Returns a new vector to
 * parse with g_option_context_parse_strv (free it with g_strfreev). */
static inline char **
pti_cli_split_attached (const GOptionEntry *const *groups, int argc, char **argv)
{
  char **args = g_new0 (char *, 2 * (gsize) argc + 1);
  int k = 0;
  gboolean rest = FALSE;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    gboolean split = FALSE;
    if (!rest && i > 0 && a[0] == '-' && a[1] != '-' && a[1] != '\0' && a[2] != '\0'
        && !pti_cli_option_takes_value (groups, argv[i - 1])) {
      char opt[3] = { '-', a[1], '\0' };
      split = pti_cli_option_takes_value (groups, opt);
    }
    if (split) {
      args[k++] = g_strndup (a, 2);
      args[k++] = g_strdup (a + 2);
    } else {
      args[k++] = g_strdup (a);
    }
    rest = rest || strcmp (a, "--") == 0;
  }
  return args;
}
