#!/usr/bin/env bash
# Replay of captured runs by ptieval (wsl/replay-capture.c): a stencil
# kernel and replay-calls.c (persistent requests, collectives of every kind
# on split, dup, cartesian and created communicators, non-blocking
# collectives, matched probes, wildcards) captured on 2 ranks, then
# evaluated on a system whose CPU ratio is 1 (cpu-time).  Checks that every
# rank's predicted compute time is the sum of its captured bursts after
# MPI_Init, plus its reductions' arithmetic, plus the own time of the
# calls no model prices (local functions, polls that found nothing,
# MPI_PROC_NULL peers, ...: their dur less the capture's dur_floor_ns)
# (closed form; a communicator made over two ranks adds the three
# one-int allreduces that agree on it, wsl/COLLECTIVES.md), that messages
# between the ranks were replayed and nothing was left out, that the
# capture is recognised by its directory, manifest or a rank file, that a
# trace cut short or a manifest saying a rank crashed is refused, and that
# a call the replay cannot model stops it naming rank and call.  Tests 7
# and 8, without MPI: a trace written by hand (make-trace.py) with local
# calls and polls replays their own times as stated, on this host and on
# one 4 times slower; test 9: ptieval --by-call on it reports each
# function's calls, measured and predicted time, and refuses a workload
# file.
# TAP output; tests 1-6 skip when Open MPI is missing.
set -u
ptieval=$1 host=$2 stencil=${3:-} kernel=${4:-} calls=${5:-}
here=$(cd "$(dirname "$0")" && pwd)
echo "1..9"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# make-trace.py's rank: bursts after MPI_Init 1000 + 9000 + 2000 + 19800 +
# 500 + 1 = 32,301 ns; own times, dur less dur_floor_ns (10) per call:
# MPI_Comm_rank (50 - 10) + (450 - 9 x 10) = 400, MPI_Iprobe finding
# nothing (70 - 10) + (6930 - 99 x 10) = 6,000, MPI_Wtime 30 - 10 = 20; so
# 38,721 ns at speed_ratio 1 (one rank: all of it computation), 4 x that =
# 154,884 ns at speed_ratio 0.25, and 32,301 + 7,530 = 39,831 ns from a
# capture without dur_floor_ns (nothing to subtract).
predict () {   # predict SYSTEM MAKE-TRACE-OPTIONS...: the predicted time, or the error
  local sys=$1
  shift
  rm -rf "$tmp/hand"
  python3 "$here/make-trace.py" "$tmp/hand" "$@"
  "$ptieval" "$sys" "$tmp/hand" >"$tmp/hand.out" 2>&1
  sed -n 's/^predicted time: \([0-9.]*\) s$/\1/p' "$tmp/hand.out"
  grep "error" "$tmp/hand.out"
}
synthetic () {
  sed 's|<speed_ratio>1</speed_ratio>|<speed_ratio>0.25</speed_ratio>|' "$host" >"$tmp/slow.xml"
  local a b c d
  a=$(predict "$host") b=$(predict "$tmp/slow.xml") c=$(predict "$host" --no-floor)
  d=$(predict "$host" --floor abc)
  if [ "$a" = 0.000038721 ] && [ "$c" = 0.000039831 ]; then
    echo "ok 7 - own times of local calls and polls, less the capture's floor: $a s (without dur_floor_ns $c s)"
  else
    echo "not ok 7 - predicted '$a' and without dur_floor_ns '$c', expected 0.000038721 and 0.000039831 s"
  fi
  if [ "$b" != 0.000154884 ]; then
    echo "not ok 8 - on a CPU 4 times slower: '$b', expected 0.000154884 s"
  elif [[ "$d" != *"rank 0: HEADER property dur_floor_ns is 'abc', not a time in ns"* ]]; then
    echo "not ok 8 - a dur_floor_ns that is not a number: '$d'"
  else
    echo "ok 8 - 4 times that on a CPU 4 times slower: $b s; a bad dur_floor_ns: ${d#*error: }"
  fi
  by_call
}
# --by-call on make-trace.py's rank, in ns, measured / predicted at
# speed_ratio 1 (4 x predicted at 0.25): computation, its 6 bursts after
# MPI_Init, 32,301; MPI_Iprobe 1 + 99 calls, 6,000; MPI_Comm_rank 1 + 9,
# 400; MPI_Wtime 1, 20 (each dur less dur_floor_ns per call, as test 7);
# the rows add up to the predicted time.
by_call () {
  rm -rf "$tmp/hand"
  python3 "$here/make-trace.py" "$tmp/hand"
  sed 's|<speed_ratio>1</speed_ratio>|<speed_ratio>0.25</speed_ratio>|' "$host" >"$tmp/slow.xml"
  "$ptieval" --json --by-call "$host" "$tmp/hand" >"$tmp/bc1.json" 2>&1
  "$ptieval" --json --by-call "$tmp/slow.xml" "$tmp/hand" >"$tmp/bc4.json" 2>&1
  "$ptieval" --by-call "$host" "$tmp/hand" >"$tmp/bc.txt" 2>&1
  local rc=0
  "$ptieval" --by-call "$host" "$here/../../wsl/examples/pingpong.xml" >"$tmp/bcw.txt" 2>&1 || rc=$?
  python3 - "$tmp" "$rc" <<'PY'
import json, sys
tmp, rc = sys.argv[1], int(sys.argv[2])
want = [("computation", 6, 32301), ("MPI_Iprobe", 100, 6000), ("MPI_Comm_rank", 10, 400),
        ("MPI_Wtime", 1, 20)]
bad = []
for f, speed in (("bc1.json", 1), ("bc4.json", 4)):
    try:
        j = json.load(open("%s/%s" % (tmp, f)))
    except ValueError:
        bad.append("%s: %s" % (f, open("%s/%s" % (tmp, f)).read().strip())); continue
    got = [(c["call"], c["calls"], round(c["measured_s"] * 1e9, 3), round(c["predicted_s"] * 1e9, 3))
           for c in j["by_call"]]
    exp = [(n, k, float(ns), float(ns * speed)) for n, k, ns in want]
    if speed == 1:   # no difference anywhere: the ties go by name
        exp = sorted(exp, key=lambda r: r[0])
    if got != exp:
        bad.append("%s: by_call %s, expected %s" % (f, got, exp))
    if abs(sum(c["predicted_s"] for c in j["by_call"]) - j["predicted_time_s"]) > 1e-15:
        bad.append("%s: the rows do not add up to the predicted time" % f)
    if any(p["name"].startswith("call_") for p in j["phases"]):
        bad.append("%s: the calls' phases are listed as phases" % f)
text = open(tmp + "/bc.txt").read()
if "by call, summed over the 1 rank" not in text or "phase (max over ranks)" in text:
    bad.append("text report: %s" % text[text.find("by call"):][:200])
w = open(tmp + "/bcw.txt").read()
if rc != 2 or "--by-call needs a pticapture trace as WORKLOAD" not in w or "workload file" not in w:
    bad.append("a workload file with --by-call: exit %d, %s" % (rc, w.strip()))
print(("not ok 9 - --by-call: " + "; ".join(bad)) if bad else
      "ok 9 - --by-call: per function, calls, measured and predicted (x4 at speed_ratio 0.25); "
      "a workload file refused: " + w.strip().split("error: ")[-1])
PY
}
if [ -z "${MPIRUN:-}" ] || [ -z "$stencil" ]; then
  for i in 1 2 3 4 5 6; do echo "ok $i # SKIP no Open MPI (libopenmpi-dev, openmpi-bin)"; done
  synthetic
  exit 0
fi
"$PTICAPTURE" -q -o "$tmp/st" -- "$MPIRUN" -np 2 "$stencil" 20000 40 >"$tmp/out" 2>&1 ||
  { echo "Bail out! capture failed: $(cat "$tmp/out")"; exit 1; }

# check N TRACE WHAT: ptieval's compute time per rank = the bursts after
# MPI_Init (cpu-time, speed_ratio 1) plus one double combined (1 ns at
# host2.xml's 1 GFlop/s) per 8-byte allreduce plus the own time of the
# calls no model prices (capture/README.md, "Replay"), each its dur less
# the rank's dur_floor_ns (read from its file's HEADER); some communication on each
# rank; nothing noted as not replayed but NOTES ("what=count,...").
check () {
  local n=$1 trace=$2 what=$3 notes=${4:-}
  "$ptieval" --json "$host" "$trace" >"$tmp/json" 2>"$tmp/err"
  local rc=$?
  for r in 0 1; do "$PTICAPTURE" --print "$trace" --rank $r >"$tmp/print-$r" || exit 1; done
  python3 - "$tmp" "$rc" "$n" "$what" "$notes" "$trace" <<'PY'
import json, re, sys
tmp, rc, n, what, notes, trace = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6]
def floor_of(r):   # HEADER property dur_floor_ns: its length byte, then the digits
    d = open("%s/rank-%d.ptc" % (trace, r), "rb").read(65536)
    i = d.index(b"dur_floor_ns") + len("dur_floor_ns")
    return float(d[i + 1:i + 1 + d[i]])
OWN = ("MPI_Iprobe", "MPI_Improbe", "MPI_Request_free", "MPI_Cancel", "MPI_Op_create",
       "MPI_Op_free", "MPI_Reduce_local", "MPI_Send_init", "MPI_Ssend_init", "MPI_Bsend_init",
       "MPI_Rsend_init", "MPI_Recv_init")
POLLS = ("MPI_Test", "MPI_Testany", "MPI_Testall", "MPI_Testsome", "MPI_Request_get_status")
def own_ns(f, line, floor):
    # calls the replay turns into no model's use; recorded by name: no field after dur
    name, count = f[2], 1
    if len(f) > 3 and f[3].startswith("x"): count = int(f[3][1:])
    by_name = not any("=" in x for x in f[f.index(next(x for x in f if x.startswith("dur="))) + 1:])
    own = (by_name and name not in ("MPI_Init", "MPI_Init_thread", "MPI_Finalize")) \
        or name in OWN or count > 1 or (name in POLLS and " flag=0" in line) \
        or (name in ("MPI_Send", "MPI_Ssend", "MPI_Bsend", "MPI_Rsend") and " peer=NULL" in line) \
        or (name in ("MPI_Recv", "MPI_Probe", "MPI_Mprobe", "MPI_Mrecv") and "src=-2" in line)
    if not own: return 0
    dur = int(re.search(r" dur=(\d+)", line).group(1))
    return max(0.0, dur - floor * count)
if rc != 0:
    print("not ok %s - %s: ptieval exit %d: %s" % (n, what, rc, open(tmp + "/err").read().strip())); sys.exit(0)
j = json.load(open(tmp + "/json"))
bad = []
MAKERS = ("MPI_Comm_dup", "MPI_Comm_dup_with_info", "MPI_Comm_idup", "MPI_Comm_split",
          "MPI_Comm_split_type", "MPI_Comm_create", "MPI_Comm_create_group", "MPI_Cart_create",
          "MPI_Cart_sub", "MPI_Graph_create", "MPI_Dist_graph_create",
          "MPI_Dist_graph_create_adjacent", "MPI_Intercomm_create")
for r in (0, 1):
    started, total, allreduces, floor = False, 0, 0, floor_of(r)
    size = {"1": 2}   # communicator id -> ranks; 1 is MPI_COMM_WORLD (2 ranks)
    for line in open("%s/print-%d" % (tmp, r)):
        if line.startswith("#"): continue
        f = line.split()
        made = re.search(r" newcomm=(\d+)\{key=[0-9a-f]+,([-0-9 ]*)\}", line)
        if f[2] in MAKERS and size.get(re.search(r" comm=(\d+)", line).group(1), 1) >= 2:
            allreduces += 3   # the context id's agreement: 3 allreduces of one element
        if made: size[made.group(1)] = len(made.group(2).split())
        m = re.search(r" burst=(\d+)", line)
        if started and m: total += int(m.group(1)) + own_ns(f, line, floor)
        if f[2] in ("MPI_Init", "MPI_Init_thread"): started = True
        if f[2] == "MPI_Allreduce":
            if " bytes=8 " not in line + " ": bad.append("rank %d: an allreduce not of 8 bytes" % r)
            allreduces += 1
    p = j["per_process"][r]
    want = total * 1e-9 + allreduces * 1e-9
    if abs(p["compute_s"] - want) > 1e-13 + 1e-12 * want:
        bad.append("rank %d: compute %.12f s, bursts + reductions + own times %.12f s" % (r, p["compute_s"], want))
    if p["comm_s"] <= 0: bad.append("rank %d: no communication time" % r)
    if p["end_s"] < p["compute_s"]: bad.append("rank %d: ends before its computation" % r)
if abs(j["predicted_time_s"] - max(p["end_s"] for p in j["per_process"])) > 1e-12:
    bad.append("predicted time is not the last end")
want_notes = dict((w, int(c)) for w, c in (x.split("=") for x in notes.split(",") if x))
got_notes = dict((x["what"], x["count"]) for x in j["not_replayed"])
if got_notes != want_notes:
    bad.append("not replayed: %s, expected %s" % (got_notes, want_notes))
print(("not ok %s - %s: " % (n, what) + "; ".join(bad)) if bad else
      "ok %s - %s: compute per rank = captured bursts and own times; messages replayed, nothing left out "
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
synthetic
