#!/usr/bin/env bash
# Benchmark: large workloads.  Sweep3D weak-scaled (50 x 50 x 200 cells per
# rank) on 16, 256, 1,024 and 4,096 ranks and NAS CG class C on 16, 256 and
# 1,024 ranks, each run once; prints events, wall time (build + evaluate),
# events per second and peak memory, in all and per simulated rank.
#
#   tests/bench/scale.sh [OPTIONS] [BUILD_DIR]
#
#   --quick          one iteration each (Sweep3D iterations=1, CG niter=1)
#   --iterations N   Sweep3D iterations=N and CG niter=N (default: as shipped,
#                    12 and class C's 75)
#   --max-ranks N    skip the cases with more than N ranks
#   --eval-mode M    the C programs' eval_mode: 0 all at once (default), 1 a
#                    partial evaluation after each iteration (memory bounded
#                    by one iteration), 2 analytical repetition
#   --xml            run the workload files through ptieval instead of the C
#                    workload programs (eval_mode 0 only)
#
# BUILD_DIR defaults to build-bench, configured here with --buildtype=release.
# The system is configs/pc_cluster.xml grown to as many nodes as ranks, its
# network priced by net-simple (latency, bandwidth, overheads: no
# contention), whatever model the file makes the default: a contention
# model would need a topology of every size.  A case whose estimated peak
# memory (from its event count) exceeds the memory available now is
# skipped, with the estimate (eval_mode 0 only); the others run one at a
# time.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)

iterations=""
max_ranks=0
eval_mode=0
xml=0
build=""
while [ $# -gt 0 ]; do
  case $1 in
    --quick) iterations=1 ;;
    --iterations) iterations=${2:?--iterations needs a number}; shift ;;
    --max-ranks) max_ranks=${2:?--max-ranks needs a number}; shift ;;
    --eval-mode) eval_mode=${2:?--eval-mode needs 0, 1 or 2}; shift ;;
    --xml) xml=1 ;;
    -h|--help) sed -n '2,/^set -e/{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "scale.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) build=$1 ;;
  esac
  shift
done
case $iterations in
  ""|[0-9]|[0-9][0-9]|[0-9][0-9][0-9]) ;;
  *) echo "scale.sh: --iterations wants a whole number up to 999" >&2; exit 2 ;;
esac
case $eval_mode in
  0) ;;
  1|2) if [ "$xml" = 1 ]; then echo "scale.sh: --eval-mode is the C programs' (not with --xml)" >&2; exit 2; fi ;;
  *) echo "scale.sh: --eval-mode wants 0, 1 or 2" >&2; exit 2 ;;
esac
build=${build:-$root/build-bench}
if [ ! -f "$build/build.ninja" ]; then
  meson setup "$build" "$root" --buildtype=release >/dev/null
fi
meson compile -C "$build" ptieval sweep3d cg >/dev/null

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# system_for N: pc_cluster.xml with N nodes on N ports and only its
# net_simple configuration for the network, in $tmp.
system_for() {
  local n=$1 f="$tmp/pc_cluster_$1.xml"
  if [ ! -f "$f" ]; then
    python3 - "$root/configs/pc_cluster.xml" "$n" "$f" <<'PY'
import sys
import xml.etree.ElementTree as ET
src, n, out = sys.argv[1], sys.argv[2], sys.argv[3]
tree = ET.parse(src)
system = tree.getroot()
system.set("name", f"pc_cluster_{n}")
for computer in system.iter("computer"):
    computer.set("count", n)
for network in system.iter("network"):
    if network.find("net_simple") is None:
        sys.exit(f"scale.sh: {src}: network '{network.get('name')}' has no <net_simple>")
    network.attrib.pop("model", None)
    for model in [m for m in network if m.tag != "net_simple"]:
        network.remove(model)
for connect in system.iter("connect"):
    connect.set("nodes", f"1-{n}")
    connect.set("ports", f"1-{n}")
tree.write(out, encoding="UTF-8", xml_declaration=True)
PY
  fi
  echo "$f"
}

avail_bytes() { awk '/^MemAvailable:/ { printf "%.0f\n", $2 * 1024 }' /proc/meminfo; }

# Peak memory is about 64 bytes per event (measured: 58-84) plus 50 MiB.
estimate_bytes() { echo $(( $1 * 64 + 50 * 1048576 )); }

report() {  # report LABEL RANKS JSON
  python3 - "$1" "$2" "$3" <<'PY'
import json, sys
label, ranks, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
r = json.load(open(path))
rss = r["peak_rss_bytes"]
print(f"{label:<22} {ranks:>5} {r['events']:>13,} {r['wall_s']:>8.2f} {r['build_s']:>7.2f} "
      f"{r['evaluate_s']:>8.2f} {r['events_per_s']/1e6:>7.2f} {rss/2**20:>9.1f} "
      f"{rss/ranks/2**10:>9.1f} {rss/r['events']:>6.1f} {r['predicted_time_s']:>11.3f}", flush=True)
PY
}

skip() {  # skip LABEL RANKS WHY
  printf '%-22s %5s %s\n' "$1" "$2" "$3"
}

# run_case LABEL RANKS ESTIMATED_EVENTS CMD...
run_case() {
  local label=$1 ranks=$2 events=$3; shift 3
  if [ "$max_ranks" -gt 0 ] && [ "$ranks" -gt "$max_ranks" ]; then
    skip "$label" "$ranks" "skipped (--max-ranks $max_ranks)"
    return
  fi
  local need avail
  need=$(estimate_bytes "$events")
  avail=$(avail_bytes)
  if [ "$eval_mode" = 0 ] && [ "$need" -gt "$avail" ]; then
    skip "$label" "$ranks" "skipped: about $(( events / 1000000 )) M events would need about $(( need >> 30 )) GiB, $(( avail >> 30 )) GiB available"
    return
  fi
  if "$@" --json >"$tmp/run.json" 2>"$tmp/run.err"; then
    report "$label" "$ranks" "$tmp/run.json"
  else
    skip "$label" "$ranks" "failed: $(tail -n 1 "$tmp/run.err")"
  fi
}

sweep_its=${iterations:-12}
echo "pti scale benchmark: $(nproc) cores, $(uname -m), $(( $(avail_bytes) >> 30 )) GiB available, one run per case"
if [ "$xml" = 1 ]; then
  echo "workloads: wsl/examples/*.xml through ptieval"
else
  echo "workloads: the C programs sweep3d and cg, eval_mode=$eval_mode"
fi
printf '%-22s %5s %13s %8s %7s %8s %7s %9s %9s %6s %11s\n' \
  workload ranks events "wall s" build evaluate "M ev/s" "peak MiB" "KiB/rank" "B/ev" "predicted s"

# Sweep3D: per rank and iteration 8 octants x 2 angle blocks x 20 k-blocks
# of 1 computation and up to 2 receives and 2 sends (about 1,600 events).
for g in 4 16 32 64; do
  n=$(( g * g ))
  params=(-D npe_i=$g -D npe_j=$g -D it=50 -D jt=50 -D kt=200 -D iterations=$sweep_its)
  if [ "$xml" = 1 ]; then
    cmd=("$build/cli/ptieval" "${params[@]}" "$(system_for $n)" "$root/wsl/examples/sweep3d.xml")
  else
    cmd=("$build/wsl/examples/sweep3d" "${params[@]}" -D eval_mode=$eval_mode "$(system_for $n)")
  fi
  run_case "sweep3d ${g}x${g}, $sweep_its its" "$n" $(( n * sweep_its * 1600 )) "${cmd[@]}"
done

# NAS CG class C: P (niter + 1) (184 + 263 L) events, L = log2(npcols).
cg_its=${iterations:-75}
for n in 16 256 1024; do
  k=0; while [ $(( 1 << k )) -lt "$n" ]; do k=$(( k + 1 )); done
  L=$(( (k + 1) / 2 ))
  params=(-D class=5 -D procs=$n -D niter=$cg_its)
  if [ "$xml" = 1 ]; then
    cmd=("$build/cli/ptieval" "${params[@]}" "$(system_for $n)" "$root/wsl/examples/cg.xml")
  else
    cmd=("$build/wsl/examples/cg" "${params[@]}" -D eval_mode=$eval_mode "$(system_for $n)")
  fi
  run_case "cg class C, $cg_its its" "$n" $(( n * (cg_its + 1) * (184 + 263 * L) )) "${cmd[@]}"
done
