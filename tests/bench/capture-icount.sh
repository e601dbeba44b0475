#!/usr/bin/env bash
# Benchmark: the instructions one MPI call costs with the capture library
# (capture/README.md, "cost per call"), counted by callgrind, so that the
# figure holds on a loaded host where timings do not.
#
#   tests/bench/capture-icount.sh [--count N] [--kinds LIST] [BUILD_DIR]
#
# BUILD_DIR defaults to build-bench (configured here, --buildtype=release).
# Runs tests/bench/capture/calls.c on 1 rank under callgrind, N calls
# (default 100,000) of each kind (comma-separated, default: every kind
# below), once without and once with the capture library, and counts the
# instructions of the loop that makes the calls (calls_loop).  Prints per
# kind the instructions per call without and with capture and the
# difference, which is what the capture adds.  Needs Open MPI and valgrind.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
count=100000 kinds=testany,test,testall,testsome,iprobe,comm-rank,send-null
while [ $# -gt 0 ]; do
  case $1 in
    --count) count=$2; shift 2 ;;
    --kinds) kinds=$2; shift 2 ;;
    -*) echo "capture-icount.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
build=${1:-$root/build-bench}
command -v valgrind >/dev/null || { echo "capture-icount.sh: needs valgrind" >&2; exit 1; }
if [ ! -f "$build/build.ninja" ]; then
  meson setup "$build" "$root" --buildtype=release >/dev/null
fi
meson compile -C "$build" capture/pticapture:shared_module >/dev/null   # the library alone
build=$(cd "$build" && pwd)
lib=$build/capture/libpticapture.so
[ -f "$lib" ] || { echo "no $lib: pti was built without MPI" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Open MPI as root (CI), shared memory only; hwloc's x86 backend does not
# work under valgrind
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
export HWLOC_COMPONENTS=-x86
mpicc -O2 -o "$tmp/calls" "$root/tests/bench/capture/calls.c"

# instructions KIND [PRELOAD]: those of calls_loop, summed over the
# processes callgrind followed (the singleton MPI_Init starts helpers)
instructions () {
  rm -rf "$tmp"/cg.* "$tmp/trace"
  mkdir "$tmp/trace"
  local pre=()
  [ -n "${2:-}" ] && pre=(env PTI_CAPTURE_DIR="$tmp/trace" LD_PRELOAD="$2")
  (cd "$tmp" && valgrind --tool=callgrind --trace-children=yes --toggle-collect=calls_loop \
     --callgrind-out-file="$tmp/cg.%p" "${pre[@]}" ./calls "$1" "$count" 1 >/dev/null 2>&1)
  awk '/^totals:/ { s += $2 } END { print s + 0 }' "$tmp"/cg.*
}

echo "== instructions per MPI call (callgrind, $count calls on 1 rank)"
printf '  %-10s %8s %8s %8s\n' call plain capture added
for kind in ${kinds//,/ }; do
  plain=$(instructions "$kind")
  cap=$(instructions "$kind" "$lib")
  awk -v k="$kind" -v p="$plain" -v c="$cap" -v n="$count" \
    'BEGIN { printf "  %-10s %8.1f %8.1f %8.1f\n", k, p / n, c / n, (c - p) / n }'
done
