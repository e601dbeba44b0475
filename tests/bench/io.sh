#!/usr/bin/env bash
# Benchmark: the io device and io-pfs against this machine's disk.
#
#   tests/bench/io.sh [BUILD_DIR] [DIR] [TOTAL_MIB]
#
# BUILD_DIR defaults to build; DIR (default: a temporary directory under
# /var/tmp, on the disk, not a tmpfs) holds the files written; TOTAL_MIB
# (default 512) is the size of the MPI-IO program's file.  Needs Open MPI.
#
# 1. Calibration: dd writes and reads requests of 64 KiB ... 16 MiB with
#    O_DIRECT (the guest's page cache bypassed), and writes them through
#    the page cache followed by fsync (what the program below does); each
#    size's time per request is fitted by least squares with
#    t(b) = latency + b / bandwidth.  The one-server io-pfs "local disk"
#    (DIR/local-disk.xml, on the host2 system of tests/capture/data) takes
#    the buffered+fsync fit for writes and the O_DIRECT one for reads.
# 2. The MPI-IO program tests/bench/io/mpiio.c on 1 and 2 ranks, blocks of
#    4 MiB, independent (MPI_File_write_at) and collective
#    (MPI_File_write_at_all), and the same writes through the C library
#    (posix: open, pwrite, fsync, recorded by pticapture since format 1.3),
#    captured by pticapture and replayed by ptieval on that system.
#    Measured: the program's write phase (a barrier, the writes,
#    MPI_File_sync or fsync, the slowest rank's).  Predicted: from the first write's start to the
#    last write's end in the replay's trace.  The model writes through to
#    the disk; the real writes land in the page cache and MPI_File_sync
#    flushes them, so only the whole phase compares, not single calls.
#
# Where this is not meaningful, and why: reads (after the writes, the page
# cache serves them; MPI-IO has no O_DIRECT here); striping and contention
# between servers (one local disk); and absolute figures on a VM, whose
# virtio disk may sit on the host's page cache: dd's O_DIRECT bypasses the
# guest's cache only.  The machine is shared (2 cores, other jobs): timings
# are noisy, each is the median of 3 runs.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
dir=${2:-}
total_mib=${3:-512}
[ -f "$build/build.ninja" ] || meson setup "$build" "$root" >/dev/null
meson compile -C "$build" >/dev/null
[ -f "$build/capture/libpticapture.so" ] || { echo "pti was built without MPI" >&2; exit 1; }
export PTI_CAPTURE_LIBRARY=$build/capture/libpticapture.so
if [ -z "$dir" ]; then
  dir=$(mktemp -d /var/tmp/pti-io-bench.XXXXXX)
  trap 'rm -rf "$dir"' EXIT
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader

median3 () { sort -g | sed -n 2p; }

echo "== 1. the disk (dd), median of 3 runs: seconds per request"
echo "   direct: O_DIRECT (no guest page cache); buffered: through the page cache, then fsync"
echo "   (conv=fsync), the path of MPI_File_write_at + MPI_File_sync"
printf '  %-8s %8s %14s %14s %14s\n' size requests "direct write" "direct read" "buffered write"
: > "$dir/fit.txt"
for kib in 64 256 1024 4096 16384; do
  count=$(( 262144 / kib ))          # 256 MiB per size
  dd_s () { sed -n 's/.* copied, \([0-9.e-]*\) s.*/\1/p'; }
  w=$(for i in 1 2 3; do
        dd if=/dev/zero of="$dir/dd" bs=${kib}K count=$count oflag=direct conv=fsync 2>&1 | dd_s
      done | median3)
  r=$(for i in 1 2 3; do
        dd if="$dir/dd" of=/dev/null bs=${kib}K count=$count iflag=direct 2>&1 | dd_s
      done | median3)
  b=$(for i in 1 2 3; do
        rm -f "$dir/dd"
        dd if=/dev/zero of="$dir/dd" bs=${kib}K count=$count conv=fsync 2>&1 | dd_s
      done | median3)
  echo "$kib $count $w $r $b" >> "$dir/fit.txt"
  awk -v k=$kib -v c=$count -v w=$w -v r=$r -v b=$b \
    'BEGIN { printf "  %5dKiB %8d %14.6f %14.6f %14.6f\n", k, c, w / c, r / c, b / c }'
done
rm -f "$dir/dd"
# Least squares of t = a + b x over the sizes: a the latency, 1/b the bandwidth.
fit () {
  awk -v col=$1 '
    { x = $1 * 1024; y = $col / $2; n++; sx += x; sxx += x * x; sy += y; sxy += x * y }
    END { d = n * sxx - sx * sx; b = (n * sxy - sx * sy) / d; a = (sy - b * sx) / n
          if (a < 0) a = 0
          printf "%.9f %.0f\n", a, 1 / b }' "$dir/fit.txt"
}
read -r dlat dbw < <(fit 3)
read -r rlat rbw < <(fit 4)
read -r wlat wbw < <(fit 5)
echo "  fit, direct write:   latency $dlat s, bandwidth $dbw B/s"
echo "  fit, direct read:    latency $rlat s, bandwidth $rbw B/s"
echo "  fit, buffered write: latency $wlat s, bandwidth $wbw B/s (the system's write_bandwidth)"

sed -e '/<connect/a\
  <filesystem name="disk">\
    <io_pfs>\
      <servers>1</servers>\
      <latency unit="s">'"$wlat"'</latency>\
      <write_bandwidth unit="B/s">'"$wbw"'</write_bandwidth>\
      <read_bandwidth unit="B/s">'"$rbw"'</read_bandwidth>\
      <client_bandwidth unit="GB/s">10</client_bandwidth>\
    </io_pfs>\
  </filesystem>\
  <mount computer="core" filesystem="disk"/>' \
  "$root/tests/capture/data/host2.xml" > "$dir/local-disk.xml"

echo
echo "== 2. MPI-IO and POSIX, ${total_mib} MiB in blocks of 4 MiB: write phase, measured vs predicted (s)"
mpicc -O2 -o "$dir/mpiio" "$root/tests/bench/io/mpiio.c"
printf '  %-5s %-12s %10s %10s %8s\n' ranks mode measured predicted error
total=$(( total_mib * 1048576 ))
for np in 1 2; do
  for mode in independent collective posix; do
    meas=""
    for i in 1 2 3; do
      rm -rf "$dir/cap" "$dir/out"
      t=$("$build/cli/pticapture" -q -o "$dir/cap" -- \
            mpirun --oversubscribe -np $np "$dir/mpiio" "$dir/out" $total 4194304 $mode |
          sed -n 's/.*write+sync \([0-9.]*\) s/\1/p')
      meas="$meas $t"
    done
    m=$(echo $meas | tr ' ' '\n' | median3)
    "$build/cli/ptieval" "$dir/local-disk.xml" "$dir/cap" -o "$dir/trace.xml" >/dev/null
    p=$(python3 - "$dir/trace.xml" <<'EOF'
import sys, xml.etree.ElementTree as ET
ns = "{urn:pti:trace:2}"
first, last = None, None
for ev in ET.parse(sys.argv[1]).iter(ns + "event"):
    if ev.get("kind") == "io" and ev.get("op") == "write":
        s, e = float(ev.get("start")), float(ev.get("end"))
        first = s if first is None else min(first, s)
        last = e if last is None else max(last, e)
print("%.6f" % (last - first))
EOF
)
    awk -v n=$np -v mo=$mode -v m=$m -v p=$p \
      'BEGIN { printf "  %-5d %-12s %10.3f %10.3f %+7.0f%%\n", n, mo, m, p, 100 * (p - m) / m }'
  done
done
rm -f "$dir/out"
