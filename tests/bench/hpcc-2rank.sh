#!/usr/bin/env bash
# Benchmark: what HPC Challenge's 2-rank runs spend their time on (issue 13).
#
#   tests/bench/hpcc-2rank.sh [--rounds N] [--n N] [BUILD_DIR]
#
# Each round, one after the other so that they see the same host:
#   1. hpcc's timed DGEMM product (bench/hpcc/dgemm-pair.c, n = 407: hpcc's
#      DGEMM_N with 2 ranks at --n 1000) on CPU 0 alone, then beside a copy
#      of itself on CPU 1: the warm products' median rate per CPU-second and
#      the ratio of the two (below 1: the CPUs slow each other's products);
#   2. hpcc at --n (default 1000, nb 80, tests/bench/accuracy.py's input)
#      captured with pticapture on 1 and on 2 ranks: HPL_time, each rank's
#      computation in HPL (its bursts' wall and CPU time: the wall time
#      beyond the CPU time is time other processes had the CPU), its time
#      in MPI (sends waiting for the receiver's probe, receives), the panel
#      messages' receive times, and PTRANS's five transposes part by part
#      (hpcc reports the last one) (tests/bench/hpcc-2rank.py).
# Prints the load average with each round.  The captures are kept in
# BUILD_DIR/hpcc-2rank/.  Needs hpcc, mpirun, a C compiler with the host's
# CBLAS (Debian: libblas-dev) and pti built with MPI (pticapture).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
rounds=3 n=1000
while [ $# -gt 0 ]; do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --n) n=$2; shift 2 ;;
    -*) echo "hpcc-2rank.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
build=$(cd "${1:-$root/build}" && pwd)
for tool in hpcc mpirun cc taskset; do
  command -v $tool >/dev/null || { echo "hpcc-2rank.sh: $tool not found" >&2; exit 1; }
done
[ -x "$build/cli/pticapture" ] || { echo "hpcc-2rank.sh: no $build/cli/pticapture (pti built with MPI)" >&2; exit 1; }
work=$build/hpcc-2rank
mkdir -p "$work"
cc -O2 -o "$work/dgemm-pair" "$root/tests/bench/hpcc/dgemm-pair.c" -lblas
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
# the median warm product's rate per CPU-second of one dgemm-pair run
rate() { awk '/product=warm/ { split($5, g, "="); print g[2] }' | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for round in $(seq 1 "$rounds"); do
  echo "round $round, $(date -u +%H:%M:%S) UTC, load average $(cut -d' ' -f1-3 /proc/loadavg)"
  alone=$(taskset -c 0 "$work/dgemm-pair" 407 5 2>/dev/null | rate)
  taskset -c 1 "$work/dgemm-pair" 407 12 >/dev/null 2>&1 & other=$!
  paired=$(taskset -c 0 "$work/dgemm-pair" 407 5 2>/dev/null | rate)
  wait $other
  echo "  dgemm n 407 per CPU-second: alone $alone GFlop/s, beside another $paired GFlop/s," \
       "ratio $(awk -v a="$alone" -v b="$paired" 'BEGIN { printf "%.2f", b / a }')"
  for ranks in 1 2; do
    d=$work/round$round-np$ranks
    rm -rf "$d"; mkdir -p "$d"
    python3 "$root/tests/bench/hpcc/hpccinf.py" "$n" "$ranks" "$d/hpccinf.txt"
    (cd "$d" && "$build/cli/pticapture" -q -o trace -- mpirun -np "$ranks" hpcc >/dev/null)
    for r in $(seq 0 $((ranks - 1))); do
      "$build/cli/pticapture" --print "$d/trace" --rank "$r" > "$d/p$r.txt"
    done
    echo " $ranks rank(s):"
    python3 "$root/tests/bench/hpcc-2rank.py" "$d" "$ranks"
  done
done
