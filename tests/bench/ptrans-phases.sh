#!/usr/bin/env bash
# Benchmark: what HPC Challenge's PTRANS spends its time on (issue 13;
# wsl/examples/hpcc-ptrans.xml models it).
#
#   tests/bench/ptrans-phases.sh [--rounds N] [--n LIST] [--reps N] [--private]
#                                [--states] [BUILD_DIR]
#
# Each round, for each n of --n (default 500,1000: PTRANS's sizes in
# tests/bench/accuracy.sh, hpcc run at HPL's N = 2 n) and 1 and 2 ranks, one
# after the other so that they see the same host:
#   1. hpcc itself (Debian's, accuracy.py's input, nb 80, a 1 x ranks grid):
#      its PTRANS_time (the last of its 5 transposes, the slowest rank);
#   2. bench/hpcc/ptrans-phases.c, pdtrans's loops reproduced on the same
#      grid, --reps transposes (default 20): per phase (the local part, the
#      pack, the exchange, the add-in) and the whole transpose, the median
#      and least over the transposes of the slowest rank's time, and each
#      rank's median; with --private, also the same pack into a buffer no
#      other process reads (pack-private: before the pack, not in the span);
#   3. with --states, on 2 ranks, bench/hpcc/exchange-states.c: the
#      exchange of PTRANS's buffer (8 buffer^2 bytes) with its buffers warm
#      (pticalibrate's ping-pong), just written by the sender, pushed out
#      by 16 MiB of other work, or both, and the copy of a buffer in that
#      state within one process, whole and 4 KiB at a time.
# Prints the load average with each round.  Needs hpcc, mpicc and mpirun.
# (BUILD_DIR, default build, holds the work files in ptrans-phases/.)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
rounds=5 sizes=500,1000 reps=20 private=0 states=
while [ $# -gt 0 ]; do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --n) sizes=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --private) private=1; shift ;;
    --states) states=1; shift ;;
    -*) echo "ptrans-phases.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
build=$(cd "${1:-$root/build}" && pwd)
for tool in hpcc mpicc mpirun; do
  command -v $tool >/dev/null || { echo "ptrans-phases.sh: $tool not found" >&2; exit 1; }
done
work=$build/ptrans-phases
mkdir -p "$work"
mpicc -O2 -o "$work/ptrans-phases" "$root/tests/bench/hpcc/ptrans-phases.c"
mpicc -O2 -o "$work/exchange-states" "$root/tests/bench/hpcc/exchange-states.c"
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
for round in $(seq 1 "$rounds"); do
  echo "round $round, $(date -u +%H:%M:%S) UTC, load average $(cut -d' ' -f1-3 /proc/loadavg)"
  for n in ${sizes//,/ }; do
    for ranks in 1 2; do
      d=$work/n$n-np$ranks
      rm -rf "$d"; mkdir -p "$d"
      python3 "$root/tests/bench/hpcc/hpccinf.py" "$((2 * n))" "$ranks" "$d/hpccinf.txt"
      (cd "$d" && mpirun -np "$ranks" hpcc >/dev/null 2>&1)
      t=$(sed -n 's/^PTRANS_time=//p' "$d/hpccoutf.txt")
      echo "  n $n, $ranks rank(s): hpcc PTRANS_time $(awk -v t="$t" 'BEGIN { printf "%.1f", t * 1e6 }') us"
      mpirun -np "$ranks" "$work/ptrans-phases" "$n" 80 "$reps" "$private" \
        | awk '/^phase=/ { split($1, p, "="); split($2, m, "="); split($3, l, "=");
                           printf "    kernel %-6s median %7s us, least %7s us\n", p[2], m[2], l[2] }
               /^rank=/ { gsub(/_us=/, " "); print "    kernel " $0 " (us, this rank median)" }'
      if [ -n "$states" ] && [ "$ranks" = 2 ]; then
        buffer=$(( ( (n + 79) / 80 + 1) / 2 * 80 ))
        mpirun -np 2 "$work/exchange-states" $((8 * buffer * buffer)) "$reps" \
          | sed 's/^/    exchange /'
      fi
    done
  done
done
