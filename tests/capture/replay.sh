#!/usr/bin/env bash
# Replay of captured runs by ptieval (wsl/replay-capture.c): a stencil
# kernel and replay-calls.c (persistent requests, collectives of every kind
# on split, dup, cartesian and created communicators, non-blocking
# collectives, matched probes, wildcards) captured on 2 ranks, then
# evaluated on a system whose CPU ratio is 1 (cpu-time).  Checks that every
# rank's predicted compute time is the sum of its captured bursts after
# MPI_Init plus its reductions' arithmetic (closed form), that messages
# between the ranks were replayed and nothing was left out, that the
# capture is recognised by its directory, manifest or a rank file, that a
# trace cut short or a manifest saying a rank crashed is refused, and that
# a call the replay cannot model stops it naming rank and call.
# TAP output; skips when Open MPI is missing.
set -u
ptieval=$1 host=$2 stencil=${3:-} kernel=${4:-} calls=${5:-}
echo "1..6"
if [ -z "${MPIRUN:-}" ] || [ -z "$stencil" ]; then
  for i in 1 2 3 4 5 6; do echo "ok $i # SKIP no Open MPI (libopenmpi-dev, openmpi-bin)"; done
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$PTICAPTURE" -q -o "$tmp/st" -- "$MPIRUN" -np 2 "$stencil" 20000 40 >"$tmp/out" 2>&1 ||
  { echo "Bail out! capture failed: $(cat "$tmp/out")"; exit 1; }

# check N TRACE WHAT: ptieval's compute time per rank = the bursts after
# MPI_Init (cpu-time, speed_ratio 1) plus one double combined (1 ns at
# host2.xml's 1 GFlop/s) per 8-byte allreduce; some communication on each
# rank; nothing noted as not replayed but NOTES ("what=count,...").
check () {
  local n=$1 trace=$2 what=$3 notes=${4:-}
  "$ptieval" --json "$host" "$trace" >"$tmp/json" 2>"$tmp/err"
  local rc=$?
  for r in 0 1; do "$PTICAPTURE" --print "$trace" --rank $r >"$tmp/print-$r" || exit 1; done
  python3 - "$tmp" "$rc" "$n" "$what" "$notes" <<'PY'
import json, re, sys
tmp, rc, n, what, notes = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
if rc != 0:
    print("not ok %s - %s: ptieval exit %d: %s" % (n, what, rc, open(tmp + "/err").read().strip())); sys.exit(0)
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
        if f[2] == "MPI_Allreduce":
            if " bytes=8 " not in line + " ": bad.append("rank %d: an allreduce not of 8 bytes" % r)
            allreduces += 1
    p = j["per_process"][r]
    want = total * 1e-9 + allreduces * 1e-9
    if abs(p["compute_s"] - want) > 1e-13 + 1e-12 * want:
        bad.append("rank %d: compute %.12f s, bursts + reductions %.12f s" % (r, p["compute_s"], want))
    if p["comm_s"] <= 0: bad.append("rank %d: no communication time" % r)
    if p["end_s"] < p["compute_s"]: bad.append("rank %d: ends before its computation" % r)
if abs(j["predicted_time_s"] - max(p["end_s"] for p in j["per_process"])) > 1e-12:
    bad.append("predicted time is not the last end")
want_notes = dict((w, int(c)) for w, c in (x.split("=") for x in notes.split(",") if x))
got_notes = dict((x["what"], x["count"]) for x in j["not_replayed"])
if got_notes != want_notes:
    bad.append("not replayed: %s, expected %s" % (got_notes, want_notes))
print(("not ok %s - %s: " % (n, what) + "; ".join(bad)) if bad else
      "ok %s - %s: compute per rank = captured bursts; messages replayed, nothing left out "
      "(predicted %.6f s)" % (n, what, j["predicted_time_s"]))
PY
}
check 1 "$tmp/st" stencil

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

# A directory without rank-0.ptc or a manifest: an error saying so, not a replay.
mkdir "$tmp/empty"
if "$ptieval" "$host" "$tmp/empty" >"$tmp/out" 2>&1; then
  echo "not ok 3 - an empty directory was predicted"
elif grep -q "is a directory, not a pticapture trace: it holds neither rank-0.ptc nor a manifest" "$tmp/out"; then
  echo "ok 3 - an empty directory is an error: $(head -1 "$tmp/out")"
else
  echo "not ok 3 - unexpected: $(cat "$tmp/out")"
fi

# Persistent requests, sub-communicators, every collective: all replayed.
if [ -n "$calls" ]; then
  "$PTICAPTURE" -q -o "$tmp/c" -- "$MPIRUN" -np 2 "$calls" >"$tmp/out" 2>&1 ||
    { echo "not ok 4 - capture of replay-calls failed: $(cat "$tmp/out")"; exit 0; }
  check 4 "$tmp/c" replay-calls "requests the program never completed=2"
else
  echo "ok 4 # SKIP no replay-calls"
fi

# The coverage kernel cancels a posted receive: refused, naming the call.
if [ -n "$kernel" ]; then
  "$PTICAPTURE" -q -o "$tmp/k" -- "$MPIRUN" -np 2 "$kernel" >"$tmp/out" 2>&1 ||
    { echo "not ok 5 - capture of kernel failed: $(cat "$tmp/out")"; exit 0; }
  if "$ptieval" "$host" "$tmp/k" >"$tmp/out" 2>&1; then
    echo "not ok 5 - a cancelled receive was replayed silently"
  elif grep -q "rank [01], call [0-9]* (MPI_Wait): completes a request that MPI_Cancel withdrew" "$tmp/out"; then
    echo "ok 5 - $(head -1 "$tmp/out")"
  else
    echo "not ok 5 - unexpected: $(cat "$tmp/out")"
  fi
else
  echo "ok 5 # SKIP no kernel"
fi

# Recognised by content: the manifest or a rank file names the capture, and
# a manifest that says a rank crashed stops the replay before it starts.
p_dir=$("$ptieval" "$host" "$tmp/st" 2>&1 | grep "^predicted")
p_man=$("$ptieval" "$host" "$tmp/st/manifest" 2>&1 | grep "^predicted")
p_rank=$("$ptieval" "$host" "$tmp/st/rank-1.ptc" 2>&1 | grep "^predicted")
sed 's/^complete=true/complete=false\nproblem=rank 1: the program was stopped by signal 9/' \
  "$tmp/st/manifest" >"$tmp/cut/manifest"
cp "$tmp/st/rank-1.ptc" "$tmp/cut/rank-1.ptc"
"$ptieval" "$host" "$tmp/cut" >"$tmp/out" 2>&1
rc=$?
if [ -z "$p_dir" ] || [ "$p_dir" != "$p_man" ] || [ "$p_dir" != "$p_rank" ]; then
  echo "not ok 6 - directory '$p_dir', manifest '$p_man', rank file '$p_rank'"
elif [ $rc -eq 0 ] || ! grep -q "the capture is incomplete: rank 1: the program was stopped by signal 9" "$tmp/out"; then
  echo "not ok 6 - a manifest saying a rank crashed: exit $rc: $(cat "$tmp/out")"
else
  echo "ok 6 - directory, manifest and rank file replay alike; $(head -1 "$tmp/out")"
fi
