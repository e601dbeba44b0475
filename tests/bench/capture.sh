#!/usr/bin/env bash
# Benchmark: what pticapture costs real MPI programs, how big its traces
# are, how fast and in how much memory ptieval replays them, how close the
# replay comes to the run, and what the same runs would do elsewhere
# (issue 12, points 1, 5 and 6).
#
#   tests/bench/capture.sh [--runs N] [--only LIST] [--keep DIR] [--system FILE] [BUILD_DIR]
#   tests/bench/capture.sh --captures DIR [--plain FILE] [--system FILE] [BUILD_DIR]    (sections 3 and 4 only)
#
# --system FILE: the system file describing the host the captures were taken
# on, which section 3 replays them on (default configs/epyc_vm_2cpu.xml, the
# host of 2026-11-24/25; configs/epyc_zen4_vm_2cpu.xml is the Zen 4 host of
# 2026-11-25 09:00 on).  Replaying a capture on another host's file prices
# its messages with the wrong library figures: use the file of the host the
# captures were taken on.
# BUILD_DIR defaults to build-bench (configured here, --buildtype=release).
# --runs (default 5) runs of each case without and with capture,
# alternating, so that load from elsewhere hits both alike.  --only picks
# programs (comma-separated: kernels, netpipe, lammps, hpcc).  --keep DIR
# keeps the per-function call tables (pticapture --calls) and the captures
# (DIR/captures/NAME); --captures DIR replays the captures already in DIR
# (every subdirectory with a manifest) without running anything; --plain
# FILE takes the plain wall times of section 2 from a previous run's
# output (or DIR/../walls.txt, which --keep writes).
# Needs Open MPI (mpicc, mpifort, mpirun) and the Debian packages hpcc,
# lammps and lammps-examples, netpipe-openmpi; a program that is missing is
# skipped, saying so.
#
# Prints:
#  1. the cost of one call, from tests/bench/capture/calls.c (the fastest of
#     10 timings of 200,000 calls, the least disturbed by other load);
#  2. per program and size: the wall time of the command (mpirun included)
#     without and with capture, median and spread (min-max) over the runs,
#     the overhead (ratio of medians, % of the run time), the calls captured
#     and the trace's bytes per call;
#  3. the replay of each program's last capture on the system file
#     (--system: this host, speed_ratio 1): measured (the captured run's longest rank
#     span from the end of MPI_Init to MPI_Finalize) against predicted, the
#     error, the events replayed, replay speed (events/s) and peak memory;
#     the largest capture is marked; past 5% of error, the two functions
#     whose replayed time departs most from the captured one, summed over
#     the ranks (ptieval --by-call).  Then, where section 2's wall times
#     are known, the uncaptured run's span estimated as the captured span
#     less the capture's overhead in that run (its manifest's wall time
#     less the median plain one), and the error against it: meaningful
#     where the run is long against the spread of the plain wall times.
#     The first error is the replay's (the same run, no run-to-run noise);
#     the second is what a user predicting the uncaptured program gets: it
#     also holds what the capture adds to the bursts, which the replay
#     keeps (capture/README.md);
#  4. what-if: the same captures predicted on configs/pc_cluster.xml,
#     fat_tree_1024.xml and torus_512.xml (contention), and the speed ratios
#     of those systems (the geometric mean of epyc_vm_2cpu.xml's operation
#     costs over theirs, configs/README.md; with --system another host's file,
#     also the ratios against that file, which its captures would need).
#
# Two cores are shared with other work on the machines this runs on: trust
# the medians, and the spreads say how much.  On a quiet 2-core host the
# whole run (--runs 5) takes about 18 minutes: NetPIPE and HPC Challenge
# are most of it.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
runs=5 only=kernels,netpipe,lammps,hpcc out= captures= plain= system=$root/configs/epyc_vm_2cpu.xml
while [ $# -gt 0 ]; do
  case $1 in
    --captures) captures=$(cd "$2" && pwd); only=none; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --plain) plain=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift 2 ;;
    --only) only=$2; shift 2 ;;
    --system) system=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift 2 ;;
    --keep) out=$2; shift 2 ;;
    -*) echo "capture.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
build=${1:-$root/build-bench}
[ -f "$system" ] || { echo "capture.sh: no system file $system" >&2; exit 2; }
want () { [[ ",$only," == *",$1,"* ]]; }
if [ ! -f "$build/build.ninja" ]; then
  meson setup "$build" "$root" --buildtype=release >/dev/null
fi
meson compile -C "$build" >/dev/null
build=$(cd "$build" && pwd)   # the runs happen in a temporary directory
pticapture=$build/cli/pticapture
ptieval=$build/cli/ptieval
export PTI_CAPTURE_LIBRARY=$build/capture/libpticapture.so
[ -f "$PTI_CAPTURE_LIBRARY" ] || { echo "no $PTI_CAPTURE_LIBRARY: pti was built without MPI" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -n "$out" ] && mkdir -p "$out"
# section 2's wall-time lines, which section 3 reads
walls=${out:+$out/walls.txt}
walls=${walls:-$tmp/walls.txt}
: > "$walls"
if [ -n "$plain" ]; then
  cp "$plain" "$tmp/walls.txt"
  walls=$tmp/walls.txt
elif [ -n "$captures" ] && [ -f "$captures/../walls.txt" ]; then
  cp "$captures/../walls.txt" "$tmp/walls.txt"
  walls=$tmp/walls.txt
fi
traces=${out:-$tmp}/captures
if [ -n "$captures" ]; then
  traces=$captures
  for d in "$traces"/*/; do [ -f "$d/manifest" ] && basename "$d"; done > "$tmp/list"
else
  mkdir -p "$traces"
  : > "$tmp/list"
fi
# Open MPI as root (CI), shared memory only
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader

mpicc -O2 -o "$tmp/calls" "$root/tests/bench/capture/calls.c"
mpicc -O2 -o "$tmp/stencil" "$root/tests/bench/capture/stencil.c"
have_fortran=no
if command -v mpifort >/dev/null && mpifort -O2 -o "$tmp/stencil-f90" \
     "$root/tests/bench/capture/stencil.f90" 2>/dev/null; then
  have_fortran=yes
fi

if want kernels; then
echo "== the cost of one MPI call (ns, fastest of 10 x 200,000 calls)"
printf '  %-10s %8s %8s %8s\n' call plain capture added
for kind in send-null comm-rank iprobe pingpong; do
  np=1
  [ "$kind" = pingpong ] && np=2
  count=200000
  [ "$kind" = pingpong ] && count=50000
  plain=$(mpirun -np $np "$tmp/calls" $kind $count 10 | sed 's/.*: \([0-9.]*\) ns.*/\1/')
  rm -rf "$tmp/t"
  cap=$("$pticapture" -q -o "$tmp/t" -- mpirun -np $np "$tmp/calls" $kind $count 10 |
        sed 's/.*: \([0-9.]*\) ns.*/\1/')
  awk -v k="$kind" -v p="$plain" -v c="$cap" 'BEGIN { printf "  %-10s %8.1f %8.1f %8.1f\n", k, p, c, c - p }'
done
fi

now () { date +%s.%N; }

# bench NAME NP WORKDIR CMD...: RUNS plain and captured runs of mpirun -np NP CMD
bench () {
  local name=$1 np=$2 dir=$3
  shift 3
  : > "$tmp/plain.txt"
  : > "$tmp/cap.txt"
  for ((i = 0; i < runs; i++)); do
    local t0 t1
    t0=$(now)
    (cd "$dir" && mpirun -np "$np" "$@" >/dev/null 2>&1)
    t1=$(now)
    awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }' >> "$tmp/plain.txt"
    rm -rf "$tmp/trace"
    t0=$(now)
    (cd "$dir" && "$pticapture" -q -o "$tmp/trace" -- mpirun -np "$np" "$@" >/dev/null 2>&1)
    t1=$(now)
    awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }' >> "$tmp/cap.txt"
  done
  "$pticapture" --check "$tmp/trace" --calls > "$tmp/check.txt"
  [ -n "$out" ] && cp "$tmp/check.txt" "$out/calls-$name.txt"
  rm -rf "$traces/$name"
  mv "$tmp/trace" "$traces/$name"
  echo "$name" >> "$tmp/list"
  python3 - "$name" "$np" "$tmp/plain.txt" "$tmp/cap.txt" "$tmp/check.txt" <<'PY' | tee -a "$walls"
import re, statistics, sys
name, np = sys.argv[1], sys.argv[2]
plain = [float(x) for x in open(sys.argv[3])]
cap = [float(x) for x in open(sys.argv[4])]
check = open(sys.argv[5]).read()
m = re.search(r"(\d+) calls, (\d+) bytes .*?, (complete|INCOMPLETE)", check)
calls, size, state = int(m.group(1)), int(m.group(2)), m.group(3)
mp, mc = statistics.median(plain), statistics.median(cap)
print(f"  {name:<22} np {np}  plain {mp:7.2f} s ({min(plain):6.2f}-{max(plain):6.2f})  "
      f"capture {mc:7.2f} s ({min(cap):6.2f}-{max(cap):6.2f})  overhead {100 * (mc / mp - 1):+6.1f}%  "
      f"{calls:>11,} calls {size / max(calls, 1):6.2f} B/call  {size / 1e6:7.2f} MB  {state}")
PY
}

[ -z "$captures" ] && echo "== wall time without and with capture, median (min-max) of $runs runs; trace size"
if want kernels; then
bench stencil-c-10k-np1 1 "$tmp" "$tmp/stencil" 10000 4000
bench stencil-c-10k-np2 2 "$tmp" "$tmp/stencil" 10000 4000
bench stencil-c-400k-np2 2 "$tmp" "$tmp/stencil" 400000 400
if [ $have_fortran = yes ]; then
  bench stencil-f90-10k-np2 2 "$tmp" "$tmp/stencil-f90" 10000 4000
  bench stencil-f90-400k-np2 2 "$tmp" "$tmp/stencil-f90" 400000 400
else
  echo "  stencil-f90: skipped (no mpifort)"
fi
fi

if ! want netpipe; then
  :
elif command -v NPopenmpi >/dev/null; then
  bench netpipe-64k 2 "$tmp" NPopenmpi -u 65536 -o "$tmp/np.out"
  # NetPIPE's own latency, 1 byte, and bandwidth, 64 KiB: its 3rd column (s)
  # and 2nd (Mbps), without and with capture
  (cd "$tmp" && mpirun -np 2 NPopenmpi -u 65536 -o np-plain.out >/dev/null 2>&1)
  rm -rf "$tmp/trace"
  (cd "$tmp" && "$pticapture" -q -o "$tmp/trace" -- mpirun -np 2 NPopenmpi -u 65536 \
     -o np-cap.out >/dev/null 2>&1)
  awk 'NR == FNR { p[$1] = $0; next } ($1 == 1 || $1 == 65536) && ($1 in p) {
         split(p[$1], a); printf "  netpipe %6d B: latency %.2f us -> %.2f us, bandwidth %.0f -> %.0f Mbps\n",
         $1, a[3] * 1e6, $3 * 1e6, a[2], $2 }' "$tmp/np-plain.out" "$tmp/np-cap.out"
else
  echo "  netpipe: skipped (apt-get install netpipe-openmpi)"
fi

melt=/usr/share/lammps/examples/melt/in.melt
if ! want lammps; then
  :
elif command -v lmp >/dev/null && [ -f $melt ]; then
  mkdir -p "$tmp/lmp"
  sed 's/region\t\tbox block 0 10 0 10 0 10/region\t\tbox block 0 6 0 6 0 6/' $melt > "$tmp/lmp/in.melt6"
  cp $melt "$tmp/lmp/in.melt10"
  grep -q "block 0 6 0 6 0 6" "$tmp/lmp/in.melt6" || { echo "in.melt changed: its box not found" >&2; exit 1; }
  bench lammps-melt-864-np1 1 "$tmp/lmp" lmp -in in.melt6 -log none -screen none
  bench lammps-melt-864-np2 2 "$tmp/lmp" lmp -in in.melt6 -log none -screen none
  bench lammps-melt-4000-np2 2 "$tmp/lmp" lmp -in in.melt10 -log none -screen none
  crack=/usr/share/lammps/examples/crack/in.crack
  [ -f $crack ] && cp $crack "$tmp/lmp/" && bench lammps-crack-np2 2 "$tmp/lmp" lmp -in in.crack -log none -screen none
else
  echo "  lammps: skipped (apt-get install lammps lammps-examples)"
fi

hpccinf=/usr/share/doc/hpcc/examples/_hpccinf.txt
if ! want hpcc; then
  :
elif command -v hpcc >/dev/null && [ -f $hpccinf ]; then
  for cfg in "1000 1 1" "1000 1 2" "2000 1 2"; do
    read -r n p q <<<"$cfg"
    d="$tmp/hpcc-$n-$((p * q))"
    mkdir -p "$d"
    # one problem size N on a P x Q grid; the rest as the example file
    sed -e "s/^1000  *Ns/$n         Ns/" -e "s/^2  *Ps/$p            Ps/" -e "s/^2  *Qs/$q            Qs/" \
      $hpccinf > "$d/hpccinf.txt"
    grep -q "^$n  *Ns" "$d/hpccinf.txt" || { echo "hpccinf.txt changed: Ns not found" >&2; exit 1; }
    bench "hpcc-n$n-np$((p * q))" $((p * q)) "$d" hpcc
  done
else
  echo "  hpcc: skipped (apt-get install hpcc)"
fi

# ---- 3. replay on this host, 4. what-if -------------------------------------------
configs=$root/configs
echo "== replay of each last capture on $(basename "$system") (this host, speed_ratio 1)"
echo "   measured: the captured run's longest rank span, end of MPI_Init to MPI_Finalize"
echo "   plain: that span less the capture's overhead in that run (its wall time less section 2's plain median), when known"
printf '  %-22s %11s %11s %8s %11s %8s %12s %7s %11s %11s %9s\n' program measured predicted error \
  plain error calls "B/call" events "events/s" "peak MiB"
largest= largest_bytes=0
while read -r name; do
  t=$traces/$name
  bytes=$(du -sbL "$t" | cut -f1)
  if [ "$bytes" -gt "$largest_bytes" ]; then largest=$name largest_bytes=$bytes; fi
  # each rank's span from its own clock, and its host, its start (time 0,
  # the wall clock: one clock for the ranks of one host) and its MPI_Init
  # end and MPI_Finalize start on its clock: "host start init_end fin" per rank
  for r in $(seq 0 $(( $(ls "$t"/rank-*.ptc | wc -l) - 1 ))); do
    "$pticapture" --print "$t" --rank "$r" | awk '
      NR == 1 { for (i = 1; i < NF; i++) {
                  if ($i == "host") { host = $(i + 1); sub(",", "", host) }
                  if ($i == "start") { st = $(i + 1); sub(",", "", st) } } }
      $3 == "MPI_Init" || $3 == "MPI_Init_thread" {
        split($4, a, "="); split($NF, d, "="); s = a[2] + d[2] / 1e9 }
      $3 == "MPI_Finalize" { split($4, a, "="); printf "%s %s %.9f %.9f\n", host, st, s, a[2] }'
  done > "$tmp/spans"
  measured=$(awk '{ print $4 - $3 }' "$tmp/spans" | sort -g | tail -1)
  # The launch skew: how much later than the first rank the last one left
  # MPI_Init (the replay starts every rank at once, as the run did from the
  # last rank's MPI_Init on), and the run from then to the last
  # MPI_Finalize; nothing when the ranks ran on several hosts.
  skew=$(awk '{ hosts[$1] = 1; n++; e = $2 + $3; f = $2 + $4
                if (n == 1 || e < lo) lo = e; if (n == 1 || e > hi) hi = e
                if (n == 1 || f > fin) fin = f }
              END { if (length (hosts) == 1 && n > 1) printf "%.9f %.9f\n", hi - lo, fin - hi }' \
         "$tmp/spans")
  "$ptieval" --json "$system" "$t" > "$tmp/replay.json" 2> "$tmp/replay.err" ||
    { echo "  $name: ptieval failed: $(cat "$tmp/replay.err")"; continue; }
  python3 - "$name" "$measured" "$tmp/replay.json" "$t/manifest" "$walls" "$ptieval" \
      "$system" "$t" "$skew" <<'PY'
import json, re, subprocess, sys
name, measured, j = sys.argv[1], float(sys.argv[2]), json.load(open(sys.argv[3]))
skew = [float(x) for x in sys.argv[9].split()]
# section 2's line of this program: the median plain wall time; the
# capture's own wall time from its manifest
plain_col = "%11s %8s" % ("-", "-")
wall = float(re.search(r"^wall_s=([\d.]+)", open(sys.argv[4]).read(), re.M).group(1))
for line in open(sys.argv[5]):
    m = re.match(r"\s+(\S+)\s+np \d+\s+plain\s+([\d.]+) s ", line)
    if m and m.group(1) == name:
        est = measured - (wall - float(m.group(2)))
        if est > 0:
            plain_col = "%10.4fs %+7.1f%%" % (est, 100 * (j["predicted_time_s"] / est - 1))
manifest = open(sys.argv[4]).read().split("[rank")[0]
calls = int(re.search(r"^calls=(\d+)", manifest, re.M).group(1))
size = int(re.search(r"^bytes=(\d+)", manifest, re.M).group(1))
p = j["predicted_time_s"]
notes = ", ".join("%s %d" % (n["what"], n["count"]) for n in j["not_replayed"])
print(f"  {name:<22} {measured:10.4f}s {p:10.4f}s {100 * (p / measured - 1):+7.1f}% {plain_col} {calls:>12,} "
      f"{size / max(calls, 1):7.2f} {j['events']:>11,} "
      f"{j['events_per_s']:>11,.0f} {j['peak_rss_bytes'] / 1048576:9.1f}" + (f"  notes: {notes}" if notes else ""))
# a launch skew of 1% of the run or more: the span from the last rank's start
if skew and skew[0] >= 0.01 * measured:
    print("  %-22s launch skew %.2f ms (the ranks left MPI_Init that far apart; the replay starts them "
          "at once): from the last rank's start %.4fs, error %+.1f%%" % (
              "", 1e3 * skew[0], skew[1], 100 * (p / skew[1] - 1)))
# past 5%: where the replay departs from the run, its two largest
# differences by function (ptieval --by-call)
if abs(p / measured - 1) > 0.05:
    out = subprocess.run([sys.argv[6], "--json", "--by-call", sys.argv[7], sys.argv[8]],
                         capture_output=True, text=True)
    if out.returncode == 0:
        rows = json.loads(out.stdout)["by_call"][:2]
        print("  %-22s departs most in: %s" % ("", "; ".join(
            "%s %+.1f ms (measured %.1f, predicted %.1f, %d calls)" % (
                r["call"], 1e3 * (r["predicted_s"] - r["measured_s"]), 1e3 * r["measured_s"],
                1e3 * r["predicted_s"], r["calls"]) for r in rows)))
PY
done < "$tmp/list"
[ -n "$largest" ] && echo "  largest capture: $largest ($((largest_bytes / 1000)) kB)"

echo "== what-if: the same captures predicted elsewhere (s)"
python3 - "$configs" "$system" <<'PY'
import math, os, re, sys
def costs(p):
    s = open(p).read()
    b = re.sub(r"<!--.*?-->", "", s[s.index("<cpu_clc"):s.index("</cpu_clc>")], flags=re.S)
    return {m.group(1): float(m.group(2)) for m in re.finditer(r"<([A-Z][A-Z0-9]{3})(?:\s[^>]*)?>([0-9.eE+-]+)</\1>", b)}
hosts = [sys.argv[1] + "/epyc_vm_2cpu.xml"]
if os.path.realpath(sys.argv[2]) != os.path.realpath(hosts[0]):
    hosts.append(sys.argv[2])
for h in hosts:
    host, hn = costs(h), os.path.basename(h)[:-4]
    for f in ("pc_cluster", "fat_tree_1024", "torus_512"):
        t = costs("%s/%s.xml" % (sys.argv[1], f))
        common = sorted(set(host) & set(t))
        g = math.exp(sum(math.log(host[c] / t[c]) for c in common) / len(common))
        print(f"  speed ratio of {f}.xml: geometric mean of {hn}'s cost over its, {len(common)} codes: {g:.5f}")
if len(hosts) > 1:
    print("  (the files hold epyc_vm_2cpu's ratios: captures of the other host replay there at those)")
PY
sysname=$(basename "$system" .xml)
printf '  %-22s %12s %12s %12s %12s\n' program "$sysname" pc_cluster fat_tree_1024 torus_512
while read -r name; do
  row=$(printf '  %-22s' "$name")
  for sys in "$system" pc_cluster fat_tree_1024 torus_512; do
    [ "$sys" = "$system" ] || sys=$configs/$sys.xml
    p=$("$ptieval" --json "$sys" "$traces/$name" 2>/dev/null |
        python3 -c 'import json, sys; print("%.4f" % json.load(sys.stdin)["predicted_time_s"])' || echo failed)
    row+=$(printf ' %12s' "$p")
  done
  echo "$row"
done < "$tmp/list"
