#!/bin/sh
# pti regions on real MPI programs at 2 ranks (meson.build): assertions
# checked as the programs run (and firing), the capture carrying the
# regions, ptivalidate on CG and the Sweep3D-style code against
# wsl/examples' terms, the replay's phases, a prediction given to the
# program, the Fortran binding, and ptivalidate's error paths.  TAP.
# Usage: region.sh HOST.xml
set -u
host=$1
root=${PTI_SOURCE_ROOT:?}
n=0
failed=0
ok () {   # ok CONDITION-EXIT-STATUS DESCRIPTION
  n=$((n + 1))
  if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
}
if [ -z "${MPIRUN:-}" ] || [ -z "${CG_REGION:-}" ]; then
  echo "1..0 # SKIP Open MPI (openmpi-bin, libopenmpi-dev) not found"
  exit 77
fi
if [ -z "${PTIVALIDATE:-}" ]; then
  echo "1..0 # SKIP ptivalidate not built (cairo, libcairo2-dev, missing)"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run () {   # run DIR PROGRAM ARGS...: capture at 2 ranks
  d=$1; shift
  "$PTICAPTURE" -q -o "$tmp/$d" -- "$MPIRUN" --allow-run-as-root -np 2 "$@" \
    >"$tmp/$d.out" 2>"$tmp/$d.err"
}

# CG at three sizes: the captures are complete and carry the regions
for na in 1400 2800 4200; do
  run cg-$na "$CG_REGION" $na 7 2
  ok $? "cg na=$na captured"
done
grep -q "failed" "$tmp/cg-1400.err"
ok $((! $?)) "cg: no assertion failed (solve_messages: 79 L + 26 sends per entry)"
"$PTIVALIDATE" --json "$tmp/cg.json" --plots "$tmp/plots" "$root/wsl/examples/cg.xml" \
  "$tmp/cg-1400" "$tmp/cg-2800" "$tmp/cg-4200" >"$tmp/cg.txt" 2>&1
ok $? "ptivalidate cg.xml: every term within its bound"
grep -q '^solve:messages:0:630:630:0:PASS=2:FAIL=0$' "$tmp/cg.txt"
ok $? "cg messages: 3 x (79 + 26) per rank, exact"
grep -q '^solve:bytes:2:' "$tmp/cg.txt" && grep '^solve:bytes:' "$tmp/cg.txt" | grep -qv ':0:PASS=2:FAIL=0$'
ok $((! $?)) "cg bytes: exact at every size"
python3 - "$tmp/cg.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t = {x["name"]: x for x in d["terms"]}
f = t["flops"]
assert d["terms_failed"] == 0 and len(d["captures"]) == 3
assert len(f["points"]) == 6 and 0 < f["max_error"] < f["bound"] == 0.1, f["max_error"]
# the model of capture 0, rank 0: 3 * (26 * (2 * 1400 * 56 * 700 / 1400 + 700) + 260 * 700)
assert f["points"][0]["model"] == 3 * (26 * (2 * 1400 * 56 * 700 / 1400 + 700) + 260 * 700)
PY
ok $? "cg JSON: 3 captures, flops model closed form, error below its bound"
[ -s "$tmp/plots/solve-flops.png" ] && [ -s "$tmp/plots/solve-messages.png" ]
ok $? "a plot per term"

# replay: the regions are the prediction's phases
"$PTIEVAL" --json "$host" "$tmp/cg-1400" >"$tmp/cg-pred.json" 2>"$tmp/cg-pred.err"
ok $? "ptieval replays the capture"
python3 - "$tmp/cg-pred.json" <<'PY'
import json, sys
p = {x["name"]: x for x in json.load(open(sys.argv[1]))["phases"]}
s = p["solve"]
assert s["messages"] == 2 * 315 and s["entries_max"] == 3 and s["ranks"] == 2, s
PY
ok $? "replay: phase solve with the captured messages and entries"

# a failing assertion: solve_time with a limit of 0 s, reported per rank
run cg-slow "$CG_REGION" 1400 7 1 0
grep -q "pti region: rank 1: region 'solve' (entry 2): assertion 'solve_time' failed: time < limit with time=.*, limit=0$" \
  "$tmp/cg-slow.err"
ok $? "cg: solve_time fires, naming rank, region, entry, test and values"
"$PTICAPTURE" --check="$tmp/cg-slow" >/dev/null 2>&1
ok $? "the capture with failed checks is complete"
"$PTICAPTURE" --print="$tmp/cg-slow" --rank=1 --no-times >"$tmp/cg-slow.print" 2>&1
grep -q "^# 1   assertion solve_time FAILED: time < limit with values .*, 0$" "$tmp/cg-slow.print" \
  && grep -q "^# 1 region solve ends: 315 calls, 105 messages, 291632 bytes sent$" "$tmp/cg-slow.print" \
  && grep -q "^# 1 parameter na = 1400$" "$tmp/cg-slow.print"
ok $? "pticapture --print shows the regions, their MPI figures, parameters and checks"

# Sweep3D-style wavefront at three sizes
for s in 8 12 16; do
  run sw-$s "$SWEEP_REGION" 2 1 $s $s $((2 * s)) 4 6 3 2
  ok $? "sweep it=jt=$s captured"
done
"$PTIVALIDATE" "$root/wsl/examples/sweep3d.xml" "$tmp/sw-8" "$tmp/sw-12" "$tmp/sw-16" \
  >"$tmp/sw.txt" 2>&1
ok $? "ptivalidate sweep3d.xml: every term within its bound"
grep -q '^sweep:messages:0:128:128:0:PASS=2:FAIL=0$' "$tmp/sw.txt"
ok $? "sweep messages: iterations x 4 x mmo x kb = 64 per rank (one neighbour each), exact"
# a prediction given to the program: a sweep 1000 times faster than real fails
"$PTIEVAL" --json "$host" "$tmp/sw-8" >"$tmp/sw-pred.json" 2>/dev/null
python3 - "$tmp/sw-pred.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for p in d["phases"]:
    p["time_max_s"] /= 1000
json.dump(d, open(sys.argv[1], "w"))
PY
PTI_PREDICTION="$tmp/sw-pred.json" run sw-pred "$SWEEP_REGION" 2 1 8 8 16 4 6 3 2
grep -q "assertion 'sweep_vs_prediction' failed: time < 1.5 \* predicted_time with time=.*, predicted_time=" \
  "$tmp/sw-pred.err"
ok $? "sweep: the program's time against pti's prediction (PTI_PREDICTION) fires"

# ptivalidate's errors: a term the capture does not have, a bad bound
sed 's|<term phase="solve" name="messages"|<term phase="solve" name="loads" value="1"/>\n  &|' \
  "$root/wsl/examples/cg.xml" >"$tmp/cg-loads.xml"
"$PTIVALIDATE" "$tmp/cg-loads.xml" "$tmp/cg-1400" >/dev/null 2>"$tmp/loads.err"
[ $? -eq 1 ] && grep -q "term solve:loads: .*cg-1400 has no region 'solve' with a measure 'loads'" "$tmp/loads.err"
ok $? "ptivalidate: a capture missing a term is an error naming it"
"$PTIVALIDATE" "$root/wsl/examples/sweep3d.xml" "$tmp/cg-1400" >/dev/null 2>"$tmp/wrong.err"
[ $? -eq 1 ] && grep -q "cg-1400: 2 ranks, but .*sweep3d.xml with its parameters has 16 processes" "$tmp/wrong.err"
ok $? "ptivalidate: a capture of another program"
sed 's|bound="0.1"|bound="0.001"|' "$root/wsl/examples/cg.xml" >"$tmp/cg-tight.xml"
"$PTIVALIDATE" "$tmp/cg-tight.xml" "$tmp/cg-1400" >"$tmp/tight.txt" 2>&1
[ $? -eq 4 ] && grep -q "^solve:flops .*FAIL$" "$tmp/tight.txt"
ok $? "ptivalidate: a term beyond its bound fails (exit 4)"

# Fortran
if [ -n "${REGION_F:-}" ]; then
  run f "$REGION_F"
  ok $? "Fortran program captured"
  grep -q "fortran rank 1: axpy_flops checks 2 failures 0" "$tmp/f.out" \
    && grep -q "fortran rank 0: axpy_never checks 2 failures 2 last end 1 misuse -1" "$tmp/f.out"
  ok $? "Fortran: counters, passing and failing (counted) assertions, misuse"
  grep -q "pti_region_end ('outer') without a region begun" "$tmp/f.err"
  ok $? "Fortran: the misuse is reported"
else
  echo "ok $((n + 1)) # SKIP gfortran or Open MPI's Fortran bindings missing"
  n=$((n + 1))
fi
echo "1..$n"
exit $failed
