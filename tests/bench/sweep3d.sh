#!/usr/bin/env bash
# Benchmark: the PTI paper's Sweep3D case on the paper's 16-node cluster.
#
#   tests/bench/sweep3d.sh [BUILD_DIR]
#
# BUILD_DIR defaults to build-bench, configured here with --buildtype=release.
# Runs the workload file through ptieval and the C workload program, each 5
# times, and prints the best wall time, events/s and peak memory, without and
# with the XML output trace.  Paper: 386,233 events in 3.437 s on a 450 MHz
# Pentium III (112,375 events/s), without output traces.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build-bench}
if [ ! -f "$build/build.ninja" ]; then
  meson setup "$build" "$root" --buildtype=release >/dev/null
fi
meson compile -C "$build" >/dev/null

# The paper's case: 4x4 processes, 50x50x200 cells each (200x200x200 in all),
# k-blocks of 10 planes, S6 (6 angles per octant) in blocks of 3, 12 iterations.
params=(-D npe_i=4 -D npe_j=4 -D it=50 -D jt=50 -D kt=200 -D mk=10 -D mm=6 -D mmi=3 -D iterations=12)
system="$root/configs/pc_cluster.xml"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

best() {  # best LABEL CMD... : run 5 times, keep the fastest JSON
  local label=$1; shift
  for i in 1 2 3 4 5; do "$@" --json >"$tmp/run$i.json"; done
  python3 - "$label" "$tmp"/run*.json <<'PY'
import json, sys
runs = [json.load(open(p)) for p in sys.argv[2:]]
r = min(runs, key=lambda r: r["wall_s"])
print(f"{sys.argv[1]:<34} predicted {r['predicted_time_s']:.6f} s  events {r['events']:>9,}  "
      f"wall {r['wall_s']*1e3:7.1f} ms (build {r['build_s']*1e3:6.1f}, evaluate {r['evaluate_s']*1e3:6.1f})  "
      f"{r['events_per_s']/1e6:6.2f} M events/s  (evaluate only {r['events']/r['evaluate_s']/1e6:6.1f} M/s)  "
      f"peak RSS {r['peak_rss_bytes']/2**20:6.1f} MiB")
PY
}

echo "pti Sweep3D benchmark: $(nproc) cores, $(uname -m), best of 5 runs"
best "ptieval sweep3d.xml"            "$build/cli/ptieval" "${params[@]}" "$system" "$root/wsl/examples/sweep3d.xml"
best "sweep3d (C program)"            "$build/wsl/examples/sweep3d" "${params[@]}" "$system"
best "ptieval sweep3d.xml -o trace"   "$build/cli/ptieval" "${params[@]}" -o "$tmp/trace.xml" "$system" "$root/wsl/examples/sweep3d.xml"
best "sweep3d (C program) -o trace"   "$build/wsl/examples/sweep3d" "${params[@]}" -o "$tmp/trace.xml" "$system"
echo "trace size: $(du -h "$tmp/trace.xml" | cut -f1)"
echo "paper (PTI prototype, PIII 450 MHz): 386,233 events, 3.437 s, 0.112 M events/s, no trace"
