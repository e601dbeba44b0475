#!/usr/bin/env bash
# Replay of captured runs by ptieval (wsl/replay-capture.c): a stencil
# kernel captured on 2 ranks, then evaluated on a system whose CPU ratio is
# 1.  Checks that every rank's predicted compute time is the sum of its
# captured bursts after MPI_Init plus its reductions' arithmetic (closed
# form), that messages between the ranks were replayed, that a trace cut
# short is refused, and that a call the replay cannot model stops it naming
# rank and call.
# TAP output; skips when Open MPI is missing.
set -u
ptieval=$1 host=$2 stencil=${3:-} kernel=${4:-}
echo "1..4"
if [ -z "${MPIRUN:-}" ] || [ -z "$stencil" ]; then
  for i in 1 2 3 4; do echo "ok $i # SKIP no Open MPI (libopenmpi-dev, openmpi-bin)"; done
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$PTICAPTURE" -q -o "$tmp/st" -- "$MPIRUN" -np 2 "$stencil" 20000 40 >"$tmp/out" 2>&1 ||
  { echo "Bail out! capture failed: $(cat "$tmp/out")"; exit 1; }

"$ptieval" --json "$host" "$tmp/st" >"$tmp/json" 2>"$tmp/err"
rc=$?
for r in 0 1; do "$PTICAPTURE" --print "$tmp/st" --rank $r >"$tmp/print-$r" || exit 1; done
python3 - "$tmp" "$rc" <<'PY'
import json, re, sys
tmp, rc = sys.argv[1], int(sys.argv[2])
if rc != 0:
    print("not ok 1 - ptieval exit %d: %s" % (rc, open(tmp + "/err").read().strip())); sys.exit(0)
j = json.load(open(tmp + "/json"))
bad = []
for r in (0, 1):
    started, total, allreduces = False, 0, 0
    for line in open("%s/print-%d" % (tmp, r)):
        if line.startswith("#"): continue
        f = line.split()
        m = re.search(r" burst=(\d+)", line)
        if started and m: total += int(m.group(1))
        if f[2] in ("MPI_Init", "MPI_Init_thread"): started = True
        if f[2] == "MPI_Allreduce": allreduces += 1
    p = j["per_process"][r]
    # host2.xml: IADD 1 ns per burst ns; each 8-byte allreduce on 2 ranks
    # adds one double (AFDL, 0.3 ns) on each rank
    want = total * 1e-9 + allreduces * 0.3e-9
    if abs(p["compute_s"] - want) > 1e-13 + 1e-12 * want:
        bad.append("rank %d: compute %.12f s, bursts + reductions %.12f s" % (r, p["compute_s"], want))
    # 80 sendrecvs and 40 allreduces: some time in messages on each rank
    if p["comm_s"] <= 0: bad.append("rank %d: no communication time" % r)
    if p["end_s"] < p["compute_s"]: bad.append("rank %d: ends before its computation" % r)
if abs(j["predicted_time_s"] - max(p["end_s"] for p in j["per_process"])) > 1e-12:
    bad.append("predicted time is not the last end")
print(("not ok 1 - " + "; ".join(bad)) if bad else
      "ok 1 - compute per rank = captured bursts; messages replayed (predicted %.6f s)" % j["predicted_time_s"])
PY

# Cut rank 1 after a few KiB: the trace is refused, naming the rank.
cp -r "$tmp/st" "$tmp/cut"
head -c 700 "$tmp/st/rank-1.ptc" >"$tmp/cut/rank-1.ptc"
if "$ptieval" "$host" "$tmp/cut" >"$tmp/out" 2>&1; then
  echo "not ok 2 - a cut trace was predicted"
elif grep -q "rank 1" "$tmp/out" && grep -qi "incomplete\|crashed\|killed\|without MPI_Finalize" "$tmp/out"; then
  echo "ok 2 - a cut trace is refused: $(head -1 "$tmp/out")"
else
  echo "not ok 2 - unexpected error: $(cat "$tmp/out")"
fi

# A directory without rank-0.ptc is read as a workload file: an error, not a replay.
mkdir "$tmp/empty"
if "$ptieval" "$host" "$tmp/empty" >"$tmp/out" 2>&1; then
  echo "not ok 3 - an empty directory was predicted"
else
  echo "ok 3 - an empty directory is an error: $(head -1 "$tmp/out")"
fi

# The coverage kernel uses persistent requests: not replayed yet, said by name.
if [ -n "$kernel" ]; then
  "$PTICAPTURE" -q -o "$tmp/k" -- "$MPIRUN" -np 2 "$kernel" >"$tmp/out" 2>&1 ||
    { echo "not ok 4 - capture of kernel failed: $(cat "$tmp/out")"; exit 0; }
  if "$ptieval" "$host" "$tmp/k" >"$tmp/out" 2>&1; then
    echo "not ok 4 - a persistent request was replayed silently"
  elif grep -q "rank [01], call [0-9]* (MPI_\(Send\|Recv\)_init): persistent" "$tmp/out"; then
    echo "ok 4 - $(head -1 "$tmp/out")"
  else
    echo "not ok 4 - unexpected: $(cat "$tmp/out")"
  fi
else
  echo "ok 4 # SKIP no kernel"
fi
