#!/usr/bin/env bash
# Benchmark of evaluation control (issue 3, points 5 and 6), with the C
# Sweep3D program on the paper's cluster:
#  - partial evaluation: peak memory with eval_mode=0 (everything held until
#    the end), eval_mode=1 (a partial evaluation after each iteration) and
#    the automatic mode (--pending-limit, every 100,000 events) while the
#    iteration count grows tenfold;
#  - analytical repetition: wall time of eval_mode=0 (every iteration built
#    and evaluated) against eval_mode=2 (built once, repeated) for 100 and
#    10,000 iterations, and the predicted times, which must agree.
#
#   tests/bench/evaluation.sh [BUILD_DIR]     (default build-bench, release)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build-bench}
if [ ! -f "$build/build.ninja" ]; then
  meson setup "$build" "$root" --buildtype=release >/dev/null
fi
meson compile -C "$build" >/dev/null
sweep="$build/wsl/examples/sweep3d"
system="$root/configs/pc_cluster.xml"

run() {  # run LABEL ARGS... : one JSON line summarised
  local label=$1; shift
  "$sweep" "$system" "$@" --json | python3 -c '
import json, sys
r = json.load(sys.stdin)
print("%-52s predicted %16.6f s  events %12s  wall %8.3f s  peak RSS %7.1f MiB" % (
      sys.argv[1], r["predicted_time_s"], format(r["events"], ","), r["wall_s"],
      r["peak_rss_bytes"] / 2**20))' "$label"
}

echo "== partial evaluation: memory as iterations grow tenfold (4x4 ranks, 50x50x200 each)"
for it in 12 120; do
  run "iterations=$it eval_mode=0 (all at once)" -D iterations=$it -D eval_mode=0
  run "iterations=$it eval_mode=1 (partial each iteration)" -D iterations=$it -D eval_mode=1
  run "iterations=$it --pending-limit 100000 (automatic)" -D iterations=$it --pending-limit 100000
done
echo
echo "== analytical repetition: time as iterations grow (4x4 ranks)"
for it in 100 10000; do
  if [ "$it" -le 1000 ] || [ "${FULL:-0}" = 1 ]; then
    run "iterations=$it eval_mode=0 (every iteration)" -D iterations=$it -D eval_mode=0
  fi
  run "iterations=$it eval_mode=1 (partial, every iteration)" -D iterations=$it -D eval_mode=1
  run "iterations=$it eval_mode=2 (repetition)" -D iterations=$it -D eval_mode=2
done
echo "(eval_mode=0 at 10,000 iterations holds ~210 M events, ~11 GiB: FULL=1 runs it)"
