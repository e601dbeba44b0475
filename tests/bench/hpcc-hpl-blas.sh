#!/usr/bin/env bash
# Benchmark: what HPC Challenge's HPL spends its time on, BLAS routine by
# routine, against what wsl/examples/hpcc-hpl.xml prices (issue 13).
#
#   tests/bench/hpcc-hpl-blas.sh [--runs N] [--n LIST] [--system FILE] [BUILD_DIR]
#
# Each run, one after the other (--runs, default 3, at each size of --n,
# default 1000,2000; nb 80, 1 rank, tests/bench/accuracy.py's input): hpcc
# with tests/bench/hpcc/blas-time.c preloaded, which times every CBLAS
# call (hpcc calls its BLAS through CBLAS only); tests/bench/hpcc-hpl-blas.py
# prints HPL's time by routine (dgemm of the update and of the panel, dtrsm,
# the BLAS-1 and -2 calls) with each routine's rate, and the time outside
# the BLAS (HPL's own row swaps and copies, MPI).  With --system, each
# routine's flops at that system's <flop_rate> beside it: the price
# hpcc-hpl.xml gives them.  Then tests/bench/hpcc/blas-rates.c: the
# library's own rates for the update's dgemm (NoTrans NoTrans), the
# panel's (NoTrans Trans), each also at the other's shape, and the solve's
# dtrsm (Left Upper Trans Unit) at each size, and of pticalibrate's
# 1024 x 1024 product.  Prints the
# load average with each run.  Its files are kept in BUILD_DIR/hpcc-hpl-blas/
# (BUILD_DIR defaults to build; pti itself is not needed).  Needs hpcc,
# mpirun and a C compiler with the host's CBLAS (Debian: libblas-dev).
# Time it under the host's measurement lock, as the other benchmarks.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
runs=3 sizes=1000,2000 system=
while [ $# -gt 0 ]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --n) sizes=$2; shift 2 ;;
    --system) system=$2; shift 2 ;;
    -*) echo "hpcc-hpl-blas.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
build=${1:-$root/build}
for tool in hpcc mpirun cc; do
  command -v $tool >/dev/null || { echo "hpcc-hpl-blas.sh: $tool not found" >&2; exit 1; }
done
rate=
if [ -n "$system" ]; then
  rate=$(sed -n 's:.*<flop_rate unit="GFlop/s">\([^<]*\)</flop_rate>.*:\1:p' "$system" | head -1)
  [ -n "$rate" ] || { echo "hpcc-hpl-blas.sh: no <flop_rate unit=\"GFlop/s\"> in $system" >&2; exit 1; }
fi
work=$build/hpcc-hpl-blas
mkdir -p "$work"
work=$(cd "$work" && pwd)
cc -O2 -shared -fPIC -o "$work/blas-time.so" "$root/tests/bench/hpcc/blas-time.c" -ldl
cc -O2 -o "$work/blas-rates" "$root/tests/bench/hpcc/blas-rates.c" -lblas
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
for n in ${sizes//,/ }; do
  for run in $(seq 1 "$runs"); do
    d=$work/n$n-run$run
    rm -rf "$d"; mkdir -p "$d"
    python3 "$root/tests/bench/hpcc/hpccinf.py" "$n" 1 "$d/hpccinf.txt"
    echo "n $n, run $run, $(date -u +%H:%M:%S) UTC, load average $(cut -d' ' -f1-3 /proc/loadavg)"
    (cd "$d" && BLAS_TIME_DIR=$d mpirun -np 1 -x LD_PRELOAD="$work/blas-time.so" -x BLAS_TIME_DIR \
       hpcc >/dev/null)
    python3 "$root/tests/bench/hpcc-hpl-blas.py" "$d" $rate
  done
  echo "the library's rates at n $n, $(date -u +%H:%M:%S) UTC, load average $(cut -d' ' -f1-3 /proc/loadavg)"
  "$work/blas-rates" "$n" 80 | sed 's/^/  /'
done
