#!/usr/bin/env bash
# Benchmark: what net-contention costs over net-simple.
#
#   tests/bench/contention.sh [BUILD_DIR]
#
# BUILD_DIR defaults to build-bench, configured here with --buildtype=release.
# Two cases, each through both models of one HMC file (--use-model), each
# run 5 times, best wall time kept:
#   1. the paper's Sweep3D case (4x4 ranks, 50x50x200 cells each, mk=10,
#      mm=6, mmi=3, 12 iterations) on configs/pc_cluster.xml (Myrinet Clos);
#   2. Sweep3D weak-scaled to 1,024 ranks (32x32, 50x50x200 cells each, 2
#      iterations) on configs/fat_tree_1024.xml (4-ary 5-tree).
# Prints the predictions, wall times, events/s and peak memory, and the
# ratio of wall times (issue: contention on costs at most 2x net-simple).
# The C workload program (sweep3d) builds the events, so the figures are
# those of the engine and models rather than of the workload interpreter.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build-bench}
if [ ! -f "$build/build.ninja" ]; then
  meson setup "$build" "$root" --buildtype=release >/dev/null
fi
meson compile -C "$build" >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

best() {  # best LABEL OUT CMD... : run 5 times, keep the fastest JSON in OUT
  local label=$1 out=$2; shift 2
  for i in 1 2 3 4 5; do "$@" --json >"$tmp/run$i.json"; done
  python3 - "$label" "$out" "$tmp"/run*.json <<'PY'
import json, sys
runs = [json.load(open(p)) for p in sys.argv[3:]]
r = min(runs, key=lambda r: r["wall_s"])
json.dump(r, open(sys.argv[2], "w"))
print(f"  {sys.argv[1]:<16} predicted {r['predicted_time_s']:14.9f} s  events {r['events']:>10,}  "
      f"wall {r['wall_s']*1e3:8.1f} ms (evaluate {r['evaluate_s']*1e3:7.1f})  "
      f"{r['events_per_s']/1e6:6.2f} M events/s  peak RSS {r['peak_rss_bytes']/2**20:7.1f} MiB")
PY
}

ratio() {
  python3 - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
print(f"  contention / simple: wall {a['wall_s']/b['wall_s']:.2f}x, evaluate "
      f"{a['evaluate_s']/b['evaluate_s']:.2f}x; prediction differs by "
      f"{(a['predicted_time_s']/b['predicted_time_s']-1)*100:+.4f}%")
PY
}

echo "pti net-contention benchmark: $(nproc) cores, $(uname -m), best of 5 runs"
sweep="$build/wsl/examples/sweep3d"
paper=(-D npe_i=4 -D npe_j=4 -D it=50 -D jt=50 -D kt=200 -D mk=10 -D mm=6 -D mmi=3 -D iterations=12)
echo "Sweep3D, the paper's case, configs/pc_cluster.xml (16 ranks):"
best net-contention "$tmp/c1.json" "$sweep" "$root/configs/pc_cluster.xml" "${paper[@]}" \
  --use-model myrinet=net-contention
best net-simple "$tmp/s1.json" "$sweep" "$root/configs/pc_cluster.xml" "${paper[@]}" \
  --use-model myrinet=net-simple
ratio "$tmp/c1.json" "$tmp/s1.json"

big=(-D npe_i=32 -D npe_j=32 -D it=50 -D jt=50 -D kt=200 -D mk=10 -D mm=6 -D mmi=3 -D iterations=2)
echo "Sweep3D weak-scaled, configs/fat_tree_1024.xml (1,024 ranks, 2 iterations):"
best net-contention "$tmp/c2.json" "$sweep" "$root/configs/fat_tree_1024.xml" "${big[@]}" \
  --use-model fabric=net-contention
best net-simple "$tmp/s2.json" "$sweep" "$root/configs/fat_tree_1024.xml" "${big[@]}" \
  --use-model fabric=net-simple
ratio "$tmp/c2.json" "$tmp/s2.json"
