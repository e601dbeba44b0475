#!/usr/bin/env bash
# Benchmark: ptitrace on a trace of more than a million events.
#
#   tests/bench/ptitrace.sh [BUILD_DIR]
#
# BUILD_DIR defaults to build-bench, configured here with --buildtype=release.
# Writes the PTI paper's Sweep3D case with 48 iterations (1,024,200 events,
# and the ba and knee records of pc_cluster's contention model: about 255 MB
# of XML) with ptieval, then runs every ptitrace command on it (the ba and
# knee plots when the trace has model records) and prints the wall time and
# the peak resident memory of each (Python's resource module).  Memory is flat: it is the sort
# budget (--memory, default 64 MiB) plus a few MiB, whatever the trace's
# length; the last lines show it with --memory 16M and on a trace 12 times
# shorter.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build-bench}
if [ ! -f "$build/build.ninja" ]; then
  meson setup "$build" "$root" --buildtype=release >/dev/null
fi
meson compile -C "$build" ptieval ptitrace >/dev/null
ptieval=$build/cli/ptieval
ptitrace=$build/cli/ptitrace
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TMPDIR=$tmp   # the external sort's temporary files, deleted with it

measure() {  # measure LABEL CMD... : prints LABEL, wall s, peak RSS MiB
  local label=$1; shift
  python3 - "$label" "$@" <<'PY'
import resource, subprocess, sys, time
t = time.monotonic()
p = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
wall = time.monotonic() - t
if p.returncode != 0:
    sys.exit(f"{sys.argv[1]}: exit {p.returncode}: {p.stderr}")
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(f"  {sys.argv[1]:<34} {wall:7.2f} s   peak RSS {rss:7.1f} MiB")
PY
}

system="$root/configs/pc_cluster.xml"
workload="$root/wsl/examples/sweep3d.xml"
"$ptieval" "$system" "$workload" -D iterations=48 -o "$tmp/big.xml" --json > "$tmp/big.json"
"$ptieval" "$system" "$workload" -D iterations=4 -o "$tmp/small.xml" --json > "$tmp/small.json"
events=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["events"])' "$tmp/big.json")
small=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["events"])' "$tmp/small.json")
records=$("$ptitrace" summary "$tmp/big.xml" | sed -n 's/.* \([0-9]*\) model records$/\1/p')
echo "ptitrace benchmark: $(nproc) cores, $(uname -m)"
echo "trace: Sweep3D, 16 processes, 48 iterations: $events events, $records model records," \
  "$(du -h "$tmp/big.xml" | cut -f1) of XML"
measure "paraver"                "$ptitrace" paraver "$tmp/big.xml" -o "$tmp/out"
echo "    outputs: $(du -ch "$tmp"/out.prv "$tmp"/out.pcf "$tmp"/out.row | tail -1 | cut -f1)"
rm -f "$tmp"/out.*
measure "sddf"                   "$ptitrace" sddf "$tmp/big.xml" -o "$tmp/out.sddf"
rm -f "$tmp"/out.*
measure "chrome"                 "$ptitrace" chrome "$tmp/big.xml" -o "$tmp/out.json"
rm -f "$tmp"/out.*
measure "summary (critical path)" "$ptitrace" summary "$tmp/big.xml"
measure "diff (A against itself)" "$ptitrace" diff "$tmp/big.xml" "$tmp/big.xml"
measure "plot timespace PNG"     "$ptitrace" plot "$tmp/big.xml" -o "$tmp/out.png"
measure "plot timespace SVG"     "$ptitrace" plot "$tmp/big.xml" -o "$tmp/out.svg"
if [ "$records" -gt 0 ]; then   # a contention model's <ba> and <knee>
  measure "plot ba PNG"          "$ptitrace" plot "$tmp/big.xml" -o "$tmp/out.png" --kind ba
  measure "plot knee PNG"        "$ptitrace" plot "$tmp/big.xml" -o "$tmp/out.png" --kind knee
fi
rm -f "$tmp"/out.*
echo "flat memory:"
measure "paraver --memory 16M"   "$ptitrace" paraver "$tmp/big.xml" -o "$tmp/out" --memory 16M
rm -f "$tmp"/out.*
measure "paraver, $small events" "$ptitrace" paraver "$tmp/small.xml" -o "$tmp/out"
rm -f "$tmp"/out.*
measure "paraver, $small events --memory 16M" "$ptitrace" paraver "$tmp/small.xml" -o "$tmp/out" --memory 16M
