/* Text from users: the check every string passes before pti uses it, and
 * the "nearest known names" hint every unknown-name error shares. */
#include <pti/hmi.h>

#include <string.h>

gboolean
pti_text_check (const char *text, gssize len, gsize max_len, const char *what, GError **error)
{
  gsize n = len < 0 ? strlen (text) : (gsize) len;
  const char *nul = memchr (text, '\0', n);
  if (nul != NULL) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s: a NUL byte at column %zu: not text",
                 what, (gsize) (nul - text) + 1);
    return FALSE;
  }
  const char *end = NULL;
  if (!g_utf8_validate_len (text, n, &end)) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID,
                 "%s: not UTF-8 text (byte 0x%02X at column %zu)", what, (guchar) *end,
                 (gsize) (end - text) + 1);
    return FALSE;
  }
  if (max_len > 0 && n > max_len) {
    g_set_error (error, PTI_ERROR, PTI_ERROR_INVALID, "%s: %zu bytes, more than the %zu allowed",
                 what, n, max_len);
    return FALSE;
  }
  return TRUE;
}

/* ---- nearest names -------------------------------------------------------- */

#define NAME_MAX_LEN 32
#define FAR 99u

/* Optimal-string-alignment distance (Levenshtein plus adjacent
 * transposition), case-insensitive.  Names longer than NAME_MAX_LEN are FAR
 * from everything: hints are for typing mistakes in short names. */
static guint
name_distance (const char *a, const char *b)
{
  gsize la = strlen (a), lb = strlen (b);
  if (la > NAME_MAX_LEN || lb > NAME_MAX_LEN)
    return FAR;
  guint d[NAME_MAX_LEN + 1][NAME_MAX_LEN + 1];
  for (gsize i = 0; i <= la; i++)
    d[i][0] = (guint) i;
  for (gsize j = 0; j <= lb; j++)
    d[0][j] = (guint) j;
  for (gsize i = 1; i <= la; i++)
    for (gsize j = 1; j <= lb; j++) {
      guint sub = g_ascii_toupper (a[i - 1]) != g_ascii_toupper (b[j - 1]);
      guint v = MIN (MIN (d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + sub);
      if (i > 1 && j > 1 && g_ascii_toupper (a[i - 1]) == g_ascii_toupper (b[j - 2])
          && g_ascii_toupper (a[i - 2]) == g_ascii_toupper (b[j - 1]))
        v = MIN (v, d[i - 2][j - 2] + 1);
      d[i][j] = v;
    }
  return d[la][lb];
}

/* Letters two names share (as multisets, case-insensitive): breaks ties
 * between suggestions at the same distance in favour of anagrams (MFLD ->
 * MFSL before MILL). */
static guint
name_overlap (const char *a, const char *b)
{
  guint count[256] = { 0 };
  guint n = 0;
  for (const char *p = a; *p; p++)
    count[(guchar) g_ascii_toupper (*p)]++;
  for (const char *p = b; *p; p++)
    if (count[(guchar) g_ascii_toupper (*p)] > 0) {
      count[(guchar) g_ascii_toupper (*p)]--;
      n++;
    }
  return MIN (n, FAR);
}

/* Length of the common prefix, case-insensitive: the same operation first. */
static guint
name_prefix (const char *a, const char *b)
{
  guint n = 0;
  while (a[n] && b[n] && g_ascii_toupper (a[n]) == g_ascii_toupper (b[n]) && n < FAR)
    n++;
  return n;
}

/* Rank of @known as a suggestion for @name: smaller is better. */
static guint
name_rank (const char *name, const char *known)
{
  return name_distance (name, known) * 10000 + (FAR - name_overlap (name, known)) * 100
         + (FAR - name_prefix (name, known));
}

char *
pti_nearest_names (const char *name, const char *const *known, gsize n_known)
{
  enum { MAX_SUGGESTIONS = 3 };
  g_return_val_if_fail (name != NULL && (known != NULL || n_known == 0), NULL);
  gsize best[MAX_SUGGESTIONS];
  guint n = 0;
  guint limit = MAX (2, (guint) strlen (name) / 2);

  for (gsize i = 0; i < n_known; i++) {
    if (known[i] == NULL || name_distance (name, known[i]) > limit)
      continue;
    /* insertion into the top list, sorted by rank then by order in @known */
    guint rank = name_rank (name, known[i]);
    guint pos = n;
    while (pos > 0 && name_rank (name, known[best[pos - 1]]) > rank)
      pos--;
    if (pos >= MAX_SUGGESTIONS)
      continue;
    for (guint k = MIN (n, (guint) MAX_SUGGESTIONS - 1); k > pos; k--)
      best[k] = best[k - 1];
    best[pos] = i;
    if (n < MAX_SUGGESTIONS)
      n++;
  }
  if (n == 0)
    return NULL;
  GString *s = g_string_new (NULL);
  for (guint k = 0; k < n; k++)
    g_string_append_printf (s, "%s%s", k ? ", " : "", known[best[k]]);
  return g_string_free (s, FALSE);
}
