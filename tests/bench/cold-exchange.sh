#!/usr/bin/env bash
# Benchmark: an exchange between the two ranks of this host with a
# computation between the messages, against the back-to-back exchange that
# pticalibrate's probe measures (capture/README.md, "On the Zen 4 host":
# LAMMPS melt's 13-17 KB exchanges cost 1.2-1.7 times the probe's).
#
#   tests/bench/cold-exchange.sh [--bytes N] [--rounds R]
#
# Builds tests/bench/capture/cold-exchange.c with mpicc and runs it R times
# (default 2) at each size of the computation between exchanges, W = 0,
# 64 KiB, 1 MiB and 8 MiB (a streaming update of W bytes per rank), N bytes
# each way (default 15000, melt's); prints each run's median and quartiles
# (us, from the later rank's MPI_Send to MPI_Wait's end).  Run it under the
# host lock: it is a timing.  Needs Open MPI (mpicc, mpirun).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bytes=15000 rounds=2
while [ $# -gt 0 ]; do
  case $1 in
    --bytes) bytes=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    *) echo "cold-exchange.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
mpicc -O2 -o "$tmp/cold-exchange" "$root/tests/bench/capture/cold-exchange.c"
echo "== exchanges of $bytes B each way with W bytes computed between them (us), load $(cut -d' ' -f1 /proc/loadavg)"
for ((r = 0; r < rounds; r++)); do
  for w in 0 65536 1048576 8388608; do
    mpirun -np 2 "$tmp/cold-exchange" "$bytes" "$w" 2000 |
      awk -F'[ =]' '{ printf "  W %8d B: median %7.2f  quartiles %7.2f-%7.2f\n", $4, $6, $8, $10 }'
  done
done
