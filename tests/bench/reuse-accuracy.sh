#!/usr/bin/env bash
# Benchmark: NAS CG's time predicted with a measured reuse-distance
# histogram as cpu-mem's memory signature (issue 15.3, the time check).
#
#   tests/bench/reuse-accuracy.sh [--classes LIST] [--niters N]
#       [--measurements FILE] [--runs N] [--system FILE] [--keep] [BUILD_DIR]
#
# Measures CG's histograms with ptireuse --region (tests/accuracy/programs/
# cg-real.c, 1 rank, an MPI singleton under valgrind lackey) for --classes
# (default S,W), makes the variant of wsl/examples/cg.xml whose memory
# signature is the histogram of one outer iteration (that of a run of
# niter = N divided by its N + 1 iterations; default N = 0, the first
# iteration alone; reuse-accuracy.py says why), and prints
# one table: class, ranks, measured, then cpu-clc, cpu-mem with cg.xml's
# pattern signatures and cpu-mem with the histogram, each with its error.
# --measurements FILE: accuracy.sh's measured times (its JSON); without it
# CG runs here natively, --runs times a case (default 5), classes S to B.
# --system: default configs/epyc_vm_2cpu.xml (its <cpu_mem> has the caches).
# --keep: take the histograms already in BUILD_DIR/reuse-accuracy.
# Slow: lackey slows CG thousands of times, and traces MPI_Init too (class
# S's first iteration took 9 minutes on the shared host, W's 29).
# Needs valgrind, mpicc and mpirun (Debian: valgrind, libopenmpi-dev).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
opts=() system=$root/configs/epyc_vm_2cpu.xml
while [ $# -gt 0 ]; do
  case $1 in
    --classes|--niters|--measurements|--runs) opts+=("$1" "$2"); shift 2 ;;
    --system) system=$2; shift 2 ;;
    --keep) opts+=(--keep); shift ;;
    -*) echo "reuse-accuracy.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
build=${1:-$root/build}
[ -f "$build/build.ninja" ] || meson setup "$build" "$root" >/dev/null
meson compile -C "$build" >/dev/null
for tool in valgrind mpicc mpirun; do
  command -v $tool >/dev/null || { echo "reuse-accuracy.sh: $tool not found (Debian: valgrind, libopenmpi-dev)" >&2; exit 1; }
done
work=$build/reuse-accuracy
mkdir -p "$work"
# -O2, as accuracy.sh builds it and pticalibrate measured the operation costs
mpicc -O2 -o "$work/cg-real" "$root/tests/accuracy/programs/cg-real.c" -lm
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
exec python3 "$root/tests/bench/reuse-accuracy.py" --root "$root" --build "$build" --work "$work" \
  --system "$system" --ptireuse "$build/cli/ptireuse" --cg "$work/cg-real" "${opts[@]}"
