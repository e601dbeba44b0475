#!/usr/bin/env bash
# Benchmark facts: what the real kernels of the accuracy suite execute, by
# valgrind's cache simulator (tests/bench/kernel-counts.py says what is
# printed).  Counts, not times: a busy host gives the same figures.
#
#   tests/bench/kernel-counts.sh [--system FILE] [--quick] [--only LIST] [WORK_DIR]
#
# The programs are built with `mpicc -O2`, as tests/bench/accuracy.sh builds
# them; the cache levels are the <cpu_mem> caches of --system (default
# configs/epyc_vm_2cpu.xml).  Sizes: accuracy.sh's (--quick: its quick
# ones), 1 rank.  Needs mpicc and valgrind.  Under valgrind a run is about
# 50 times slower: Sweep3D 96^3 takes minutes.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
system=$root/configs/epyc_vm_2cpu.xml quick= only=sweep3d,cg
while [ $# -gt 0 ]; do
  case $1 in
    --system) system=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    --only) only=$2; shift 2 ;;
    -*) echo "kernel-counts.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
work=${1:-$root/build/kernel-counts}
for tool in mpicc valgrind; do
  command -v $tool >/dev/null || { echo "kernel-counts.sh: $tool not found" >&2; exit 1; }
done
mkdir -p "$work"
for p in sweep3d cg; do
  mpicc -O2 -o "$work/$p-real" "$root/tests/accuracy/programs/$p-real.c" -lm
done
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
exec python3 "$root/tests/bench/kernel-counts.py" --work "$work" --system "$system" \
  --only "$only" ${quick:+--quick}
