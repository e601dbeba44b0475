#!/usr/bin/env bash
# Benchmark facts: how this host's cores combine a loop's reads and stores
# (models/cpu-mem/README.md, "Reads and writes").  Times, so the host
# should be quiet: the kernels drop samples another process interrupted,
# not those that shared the memory system with one; the load average is
# printed before and after.
#
#   tests/bench/stream.sh [--reps N] [--procs P] [BYTES...]
#
# Builds tests/bench/stream/kernels.c as Debian builds HPC Challenge's
# STREAM (scalar loads and stores: -O2 without vectorisation, and without
# the loop-to-memcpy transformation, so that every kernel is a loop of
# movsd), checks the binary has no non-temporal store, and prints, for
# each BYTES (the three arrays together; default 24 KiB, 6 MiB, 96 MiB,
# 384 MiB: L1, L3, past the last cache), each kernel's time per element
# (median of N undisturbed samples, default 15), then the read bandwidth of
# 1, 2 and 3 streams over the same BYTES (tests/bench/stream/streams.c).
# --procs P runs P copies at once (each its own arrays; StarSTREAM's case)
# and prints each.
# Also prints what the hpcc binary of this host does (non-temporal stores
# in it, and how many).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
reps=15 procs=1
while [ $# -gt 0 ]; do
  case $1 in
    --reps) reps=$2; shift 2 ;;
    --procs) procs=$2; shift 2 ;;
    -*) echo "stream.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || set -- 24576 6291456 100663296 402653184
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc=${CC:-cc}
"$cc" -std=c17 -O2 -fno-tree-vectorize -fno-tree-loop-distribute-patterns -I "$root/calibrate" \
  -o "$work/kernels" "$root/tests/bench/stream/kernels.c"
"$cc" -std=c17 -O2 -fno-tree-vectorize -fno-tree-slp-vectorize -I "$root/calibrate" \
  -o "$work/streams" "$root/tests/bench/stream/streams.c"
if objdump -d "$work/kernels" | grep -qE 'movnt|call.*mem(cpy|set)'; then
  echo "stream.sh: the kernels were compiled to non-temporal stores or library calls" >&2
  exit 1
fi
if command -v hpcc >/dev/null && command -v objdump >/dev/null; then
  hpcc=$(readlink -f "$(command -v hpcc)")
  echo "# $hpcc: $(objdump -d "$hpcc" | grep -c 'movnt' || true) non-temporal store instructions"
fi
echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for bytes in "$@"; do
  for p in $(seq 1 "$procs"); do
    { "$work/kernels" "$bytes" "$reps"; "$work/streams" "$bytes" "$reps"; } \
      | sed "s/^/proc=$p /" > "$work/out.$p" &
  done
  wait
  cat "$work"/out.*
  rm -f "$work"/out.*
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
