#!/usr/bin/env bash
# Benchmark facts: where the real CG's time goes, kernel by kernel, against
# what pti prices for the same kernels (models/cpu-mem/README.md, "CG,
# kernel by kernel").  Times, so the host should be quiet: runs another
# process interrupted are dropped (CPU time under 95% of the wall time), not
# those that shared the caches with one; the load average is printed before
# and after.
#
#   tests/bench/cg-kernels.sh [--runs N] [--class 1,2,3,4] [--probe]
#                             [--system FILE] BUILDDIR
#
# Builds tests/accuracy/programs/cg-real.c with -DCG_KERNEL_TIMES (timers
# around each of cg.xml's RUDs and exchanges; without the macro the program
# is the accuracy suite's, instruction for instruction) with `mpicc -O2`
# as accuracy.sh does, runs it N times (default 5) on 1 rank for each class
# (S, W, A, B; B with 3 outer iterations), and prints per kernel the median
# seconds, spread, time per element, and pti's price of it with cpu-clc and
# cpu-mem, both with cpu-clc's overlap="units", on FILE (default
# configs/epyc_vm_2cpu.xml).  --probe adds the SpMV alone
# (tests/bench/cg-kernels/spmv-probe.c): its time per non-zero against the
# row length and at the four classes' shapes.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
args=()
while [ $# -gt 1 ]; do
  args+=("$1")
  shift
done
[ $# -eq 1 ] || { echo "usage: cg-kernels.sh [--runs N] [--class LIST] [--probe] [--system FILE] BUILDDIR" >&2; exit 2; }
build=$(cd "$1" && pwd)
for tool in mpicc mpirun python3; do
  command -v "$tool" >/dev/null || { echo "cg-kernels.sh: $tool not found" >&2; exit 2; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mpicc -O2 -DCG_KERNEL_TIMES -o "$work/cg-kernels" "$root/tests/accuracy/programs/cg-real.c" -lm
"${CC:-cc}" -std=c17 -O2 -o "$work/spmv-probe" "$root/tests/bench/cg-kernels/spmv-probe.c"
exec python3 "$root/tests/bench/cg-kernels.py" --bin "$work" ${args[@]+"${args[@]}"} "$build"
