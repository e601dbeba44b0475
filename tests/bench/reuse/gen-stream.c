/* Address streams for tests/bench/reuse.sh's cost of the histogram alone:
 *
 *     gen-stream KIND LINES REFS      raw ptireuse lines on standard output
 *
 * KIND cyclic: LINES 64-byte lines swept in order; random: uniformly drawn
 * among LINES (a fixed-seed xorshift, so runs compare). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
main (int argc, char **argv)
{
  if (argc != 4) {
    fprintf (stderr, "usage: gen-stream cyclic|random LINES REFS\n");
    return 2;
  }
  int random = strcmp (argv[1], "random") == 0;
  uint64_t lines = strtoull (argv[2], NULL, 10), refs = strtoull (argv[3], NULL, 10);
  uint64_t x = 88172645463325252ull;
  for (uint64_t i = 0; i < refs; i++) {
    uint64_t line;
    if (random) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      line = x % lines;
    } else {
      line = i % lines;
    }
    printf ("%llx\n", (unsigned long long) (0x10000000ull + line * 64));
  }
  return 0;
}
