#!/usr/bin/env bash
# Benchmark: the replay readers' memory (issue 12: streaming readers whose
# memory does not grow with the trace).  Generates a SimGrid TI trace in its
# three layouts (one shared file with the ranks' lines interleaved, one
# shared file with each rank's lines together, an index of per-rank files)
# and a Dimemas trace, each of STEPS and 10 × STEPS steps of 16 ranks (a
# compute, a ring irecv/isend/wait, an allreduce every tenth step), replays
# each with ptieval and prints events, file size, peak memory and wall time.
# Exit 1 if a long trace's peak memory exceeds its short one's by more than
# a quarter: it would then grow with the trace.
#
#   tests/bench/replay.sh [--steps N] [BUILD_DIR]     default: 20000 steps (at least
#                                                     5000), BUILD_DIR build
#
# The evaluation pulls each rank's part of the trace as it needs it (a pull
# source), so the engine holds what is in flight; the readers keep one line
# (or record) per rank and their own counts.  Needs python3 (as meson does) and about 0.6 GB of disk
# at 20000 steps.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)

steps=20000
build=""
while [ $# -gt 0 ]; do
  case $1 in
    --steps) steps=${2:?--steps needs a number}; shift ;;
    *) build=$1 ;;
  esac
  shift
done
# short traces are dominated by start-up memory; 5000 steps are enough
if [ "$steps" -lt 5000 ]; then
  echo "replay.sh: --steps must be at least 5000" >&2
  exit 2
fi
build=${build:-$root/build}
ptieval=$build/cli/ptieval
[ -x "$ptieval" ] || { echo "replay.sh: no ptieval in $build" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/pti-bench-replay.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
ranks=16

cat >"$tmp/system.xml" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<system name="bench_replay">
  <computer name="node" count="$ranks">
    <cpu_time><speed_ratio>1</speed_ratio><flop_rate unit="GFlop/s">1</flop_rate></cpu_time>
  </computer>
  <network name="net">
    <net_simple><latency unit="us">5</latency><bandwidth unit="MB/s">1000</bandwidth>
      <send_overhead unit="us">1</send_overhead><recv_overhead unit="us">1</recv_overhead>
      <eager_limit unit="B">16384</eager_limit></net_simple>
  </network>
  <connect computer="node" nodes="1-$ranks" network="net" ports="1-$ranks"/>
</system>
EOF

# gen.py LAYOUT STEPS OUT: LAYOUT interleaved | grouped | index | dimemas
cat >"$tmp/gen.py" <<'EOF'
import sys
layout, steps, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
P = 16
def ti(r, s):
    L = ["%d init" % r] if s == 0 else []
    L += ["%d compute %d" % (r, 100000 + 1000 * ((r + s) % 7)),
          "%d irecv %d %d 1000 6" % (r, (r - 1) % P, s % 16),
          "%d isend %d %d 1000 6" % (r, (r + 1) % P, s % 16),
          "%d waitall 2" % r]
    if s % 10 == 9:
        L.append("%d allreduce 8 1000 0" % r)
    if s == steps - 1:
        L.append("%d finalize" % r)
    return "\n".join(L) + "\n"
def dim(r, s):
    L = ["1:%d:0:%.9f" % (r, 1e-4 + 1e-6 * ((r + s) % 7)),
         "3:%d:0:%d:-1:1000:%d:1:1" % (r, (r - 1) % P, s % 16),
         "2:%d:0:%d:-1:1000:%d:1:0" % (r, (r + 1) % P, s % 16),
         "3:%d:0:%d:-1:1000:%d:1:2" % (r, (r - 1) % P, s % 16)]
    if s % 10 == 9:
        L.append("10:%d:0:11:1:0:0:8:8:1" % r)
    return "\n".join(L) + "\n"
if layout == "interleaved":
    with open(out, "w") as f:
        for s in range(steps):
            for r in range(P):
                f.write(ti(r, s))
elif layout == "grouped":
    with open(out, "w") as f:
        for r in range(P):
            for s in range(steps):
                f.write(ti(r, s))
elif layout == "index":
    with open(out, "w") as idx:
        for r in range(P):
            name = "%s.r%d" % (out, r)
            idx.write(name + "\n")
            with open(name, "w") as f:
                for s in range(steps):
                    f.write(ti(r, s))
else:
    with open(out, "w") as f:
        f.write('#DIMEMAS:"bench":0:%d(%s),1,0,0\n' % (P, ",".join(["1"] * P)))
        f.write("d:1:1:%d:%s\n" % (P, ":".join(str(i) for i in range(P))))
        for r in range(P):
            for s in range(steps):
                f.write(dim(r, s))
EOF

status=0
printf '%-12s %9s %11s %10s %12s %9s\n' layout steps events "file (MB)" "peak (MiB)" "wall (s)"
for layout in interleaved grouped index dimemas; do
  short_rss=0
  for n in "$steps" $((10 * steps)); do
    out=$tmp/$layout.$n
    python3 "$tmp/gen.py" "$layout" "$n" "$out"
    mb=$(find "$tmp" -maxdepth 1 -name "$layout.$n*" -printf '%s\n' \
         | awk '{ s += $1 } END { printf "%.0f", s / 1e6 }')
    read -r events rss wall < <("$ptieval" --json "$tmp/system.xml" "$out" | python3 -c '
import json, sys
j = json.load(sys.stdin)
print(j["events"], j["peak_rss_bytes"], j["wall_s"])')
    printf '%-12s %9d %11d %10s %12.1f %9.1f\n' "$layout" "$n" "$events" "$mb" \
           "$(echo "$rss" | awk '{print $1 / 1048576}')" "$wall"
    if [ "$short_rss" -eq 0 ]; then
      short_rss=$rss
    elif [ "$rss" -gt $((short_rss + short_rss / 4)) ]; then
      echo "  $layout: peak memory grew from $short_rss to $rss bytes with the trace" >&2
      status=1
    fi
    rm -f "$out" "$out".r*
  done
done
exit $status
