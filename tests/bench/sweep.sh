#!/usr/bin/env bash
# Benchmark: ptisweep over 1,080 points, alone (-j 1), on two workers
# (-j 2) and on two Open MPI ranks (mpirun -np 2, -j 1 each).
#
#   tests/bench/sweep.sh [BUILD_DIR] [REPEATS]
#
# BUILD_DIR defaults to build-bench, configured here with --buildtype=release;
# REPEATS (default 3) runs of each form, the fastest wall time kept.  The
# sweep: Sweep3D (wsl/examples/sweep3d.xml, one iteration) over process
# grids npe_i, npe_j in {1, 2, 4}, it = jt in 10..60 step 10 (jt stays 50:
# only it is swept), kt in 20..200 step 20, on configs/pc_cluster.xml and
# configs/fast_cluster.xml: 3 x 3 x 6 x 10 x 2 = 1,080 points.  Prints per
# form the wall time, the CPU time (user + system of ptisweep and its
# workers or ranks), points per second of wall time and of CPU time, and
# checks that the three tables are byte-identical.  On a shared machine
# wall times follow the load; the CPU times say what the work costs.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build-bench}
repeats=${2:-3}
if [ ! -f "$build/build.ninja" ]; then
  meson setup "$build" "$root" --buildtype=release >/dev/null
fi
meson compile -C "$build" -j 2 >/dev/null
sweep=$build/cli/ptisweep
export PTI_SCHEMA_DIR=$root/schemas
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
args=(-q -D npe_i=1,2,4 -D npe_j=1,2,4 -D it=10:60:10 -D kt=20:200:20 -D iterations=1
      "$root/configs/pc_cluster.xml" "$root/configs/fast_cluster.xml"
      "$root/wsl/examples/sweep3d.xml")
mpi=(mpirun --oversubscribe)
[ "$(id -u)" -eq 0 ] && mpi+=(--allow-run-as-root)

run() {  # run LABEL TABLE CMD...: REPEATS runs from scratch, the fastest kept
  local label=$1 table=$2; shift 2
  local best=""
  for ((i = 0; i < repeats; i++)); do
    rm -f "$table"
    # Exit 4: Sweep3D's assertions fail at some points; a result, not an error.
    /usr/bin/time -f "%e %U %S" -o "$tmp/time" "$@" -o "$table" || [ $? -eq 4 ]
    read -r wall user sys < "$tmp/time"
    if [ -z "$best" ] || awk -v a="$wall" -v b="${best%% *}" 'BEGIN { exit !(a < b) }'; then
      best="$wall $user $sys"
    fi
  done
  read -r wall user sys <<< "$best"
  local points
  points=$(($(wc -l < "$table") - 1))
  awk -v l="$label" -v n="$points" -v w="$wall" -v u="$user" -v s="$sys" 'BEGIN {
    c = u + s
    printf "%-28s %5d points  wall %7.2f s  %7.1f points/s   cpu %7.2f s  %7.1f points/cpu-s\n",
           l, n, w, n / w, c, n / c }'
}

echo "ptisweep $("$sweep" --version | sed 's/^ptisweep //'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
run "-j 1" "$tmp/j1.csv" "$sweep" "${args[@]}"
run "-j 2" "$tmp/j2.csv" "$sweep" -j 2 "${args[@]}"
if command -v mpirun > /dev/null && "$sweep" --version | grep -q "with MPI"; then
  run "mpirun -np 2" "$tmp/mpi.csv" "${mpi[@]}" -np 2 "$sweep" "${args[@]}"
  run "mpirun -np 1" "$tmp/mpi1.csv" "${mpi[@]}" -np 1 "$sweep" "${args[@]}"
  cmp "$tmp/j1.csv" "$tmp/mpi.csv" && echo "mpirun -np 2 table identical to -j 1"
fi
cmp "$tmp/j1.csv" "$tmp/j2.csv" && echo "-j 2 table identical to -j 1"
