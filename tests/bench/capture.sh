#!/usr/bin/env bash
# Benchmark: what pticapture costs real MPI programs, and how big its traces are.
#
#   tests/bench/capture.sh [BUILD_DIR] [RUNS] [OUT_DIR]
#
# BUILD_DIR defaults to build-bench (configured here, --buildtype=release);
# RUNS (default 5) runs of each case without and with capture, alternating,
# so that load from elsewhere hits both alike; OUT_DIR (default: a temporary
# directory, removed) keeps the per-function call tables (pticapture --calls)
# that capture/README.md shows.  Needs Open MPI (mpicc, mpifort, mpirun) and
# the Debian packages hpcc, lammps and lammps-examples, netpipe-openmpi; a
# program that is missing is skipped, saying so.
#
# Prints, per program and size: the wall time of the command (mpirun
# included) without and with capture as median and spread (min-max) over
# RUNS, the overhead (ratio of medians), the calls captured and the trace's
# bytes per call.  First, the cost of one call, from tests/bench/capture/
# calls.c (the fastest of 10 timings of 200,000 calls, the least disturbed
# by other load).  Two cores are shared with other work on the machines this
# runs on: trust the medians, and the spreads say how much.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build-bench}
runs=${2:-5}
out=${3:-}
if [ ! -f "$build/build.ninja" ]; then
  meson setup "$build" "$root" --buildtype=release >/dev/null
fi
meson compile -C "$build" >/dev/null
pticapture=$build/cli/pticapture
export PTI_CAPTURE_LIBRARY=$build/capture/libpticapture.so
[ -f "$PTI_CAPTURE_LIBRARY" ] || { echo "no $PTI_CAPTURE_LIBRARY: pti was built without MPI" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -n "$out" ] && mkdir -p "$out"
# Open MPI as root (CI), shared memory only
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader

mpicc -O2 -o "$tmp/calls" "$root/tests/bench/capture/calls.c"
mpicc -O2 -o "$tmp/stencil" "$root/tests/bench/capture/stencil.c"
have_fortran=no
if command -v mpifort >/dev/null && mpifort -O2 -o "$tmp/stencil-f90" \
     "$root/tests/bench/capture/stencil.f90" 2>/dev/null; then
  have_fortran=yes
fi

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
  python3 - "$name" "$np" "$tmp/plain.txt" "$tmp/cap.txt" "$tmp/check.txt" <<'PY'
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

echo "== wall time without and with capture, median (min-max) of $runs runs; trace size"
bench stencil-c-10k-np1 1 "$tmp" "$tmp/stencil" 10000 4000
bench stencil-c-10k-np2 2 "$tmp" "$tmp/stencil" 10000 4000
bench stencil-c-400k-np2 2 "$tmp" "$tmp/stencil" 400000 400
if [ $have_fortran = yes ]; then
  bench stencil-f90-10k-np2 2 "$tmp" "$tmp/stencil-f90" 10000 4000
  bench stencil-f90-400k-np2 2 "$tmp" "$tmp/stencil-f90" 400000 400
else
  echo "  stencil-f90: skipped (no mpifort)"
fi

if command -v NPopenmpi >/dev/null; then
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
if command -v lmp >/dev/null && [ -f $melt ]; then
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
if command -v hpcc >/dev/null && [ -f $hpccinf ]; then
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
