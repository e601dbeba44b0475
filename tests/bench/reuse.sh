#!/usr/bin/env bash
# Benchmark: ptireuse (memtrace/, issue 15.3) on real kernels.
#
#   tests/bench/reuse.sh [--quick] [--only LIST] [BUILD_DIR]
#
# Prints three tables (tests/bench/reuse.py):
#   1. the histogram's cost alone from raw address streams: CPU ns per
#      reference and callgrind instructions per reference (whole run and the
#      histogram, pti_reuse_access inclusive);
#   2. the whole tool's slowdown against the kernel's native run (valgrind
#      lackey dominates), and callgrind's for comparison;
#   3. per kernel, size and cache size: predicted misses (ptireuse --region,
#      ptireuse misses) against callgrind's simulated D1 misses in the same
#      marked region, and the error;
#   4. (first, "cachegrind") the triad's whole run against cachegrind's D1
#      misses read with cg_annotate (cachegrind 3.19 has no region).
# Kernels: STREAM's triad (tests/bench/reuse/triad.c: the accuracy suite's
# STREAM is HPC Challenge's binary, without markers), and the accuracy
# suite's CG and Sweep3D wavefront (tests/accuracy/programs/, whose timed
# part is marked), one rank, run as MPI singletons under valgrind.
# --only: hist, cachegrind, triad, cg, sweep3d (comma-separated; default all).
# --quick: fewer sizes and caches, 1 M references a stream.
# Needs valgrind (Debian: valgrind), cc, and mpicc for CG and Sweep3D.
# The machine may be shared: CPU times are noisy, callgrind counts are not.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
quick= only=hist,cachegrind,triad,cg,sweep3d
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=1; shift ;;
    --only) only=$2; shift 2 ;;
    -*) echo "reuse.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
build=${1:-$root/build}
if [ ! -f "$build/build.ninja" ]; then
  meson setup "$build" "$root" >/dev/null
fi
meson compile -C "$build" >/dev/null
for tool in valgrind callgrind_annotate cg_annotate cc; do
  command -v $tool >/dev/null || { echo "reuse.sh: $tool not found (Debian: valgrind, gcc)" >&2; exit 1; }
done
work=$build/reuse-bench
mkdir -p "$work"
cc -O2 -o "$work/triad" "$root/tests/bench/reuse/triad.c"
cc -O2 -o "$work/gen-stream" "$root/tests/bench/reuse/gen-stream.c"
cg= sweep3d=
if command -v mpicc >/dev/null; then
  # -O2 with debugging information: callgrind and ptireuse see the same code.
  for p in sweep3d cg; do
    mpicc -O2 -g -o "$work/$p-real" "$root/tests/accuracy/programs/$p-real.c" -lm
  done
  cg=$work/cg-real sweep3d=$work/sweep3d-real
  if [ "$(id -u)" = 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  fi
else
  echo "# mpicc not found (Debian: libopenmpi-dev): no CG, no Sweep3D" >&2
fi
exec python3 "$root/tests/bench/reuse.py" --ptireuse "$build/cli/ptireuse" --gen "$work/gen-stream" \
  --triad "$work/triad" --cg "$cg" --sweep3d "$sweep3d" --work "$work" --only "$only" ${quick:+--quick}
