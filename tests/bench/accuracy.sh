#!/usr/bin/env bash
# Benchmark: pti's predictions against real runs on this host (issue 13.4).
#
#   tests/bench/accuracy.sh [--system FILE] [--alt-system FILE] [--runs N] [--quick]
#                           [--only LIST] [--models LIST] [--measurements FILE]
#                           [--no-state] [BUILD_DIR]
#
# Runs real programs on this host, 1 and 2 ranks, at sizes from in-cache to
# well past the last cache, each --runs times (default 5; 3 with --quick) in
# rounds (every case once a round: the host's drift falls on all alike; the
# table ends with the host's speed round by round),
# and predicts each with ptieval on a calibrated system of this host:
#
#   sweep3d  tests/accuracy/programs/sweep3d-real.c   wsl/examples/sweep3d.xml
#   cg       tests/accuracy/programs/cg-real.c        wsl/examples/cg.xml
#   hpcc     HPC Challenge (Debian's hpcc): STREAM triad, DGEMM, PTRANS, HPL,
#            against the hand-made models wsl/examples/hpcc-*.xml
#   lammps   LAMMPS (Debian's lammps, lammps-examples): melt at 864 and 4000
#            atoms, crack; each captured (pticapture) and its capture
#            replayed, the bursts priced by the CPU model at the system's
#            speed_ratio (1: pticalibrate's file is this host's); measured
#            uncaptured, the span a replay predicts (end of MPI_Init to
#            MPI_Finalize), with tests/bench/capture/span.c preloaded
#
# HPC Challenge is not replayed from captures: hpcc reports each test's
# time from inside one run, and a capture replays the whole run (its
# quiet-host captures replay 16% to 38% short: millions of polls and
# small calls whose own time a replay leaves out, capture/README.md);
# its rows stay hand models.
#
# The real programs are built here with `mpicc -O2`, the level the system's
# operation costs must have been measured at (pticalibrate -O2, the default).
# --system names the calibrated system; without it pticalibrate --quick
# makes one in BUILD_DIR/accuracy/.  --only picks programs (comma-separated).
#
# Prints one table: program, size, working set per rank, ranks, measured
# (median of the runs, seconds), spread ((max - min) / median), predicted,
# error ((predicted - measured) / measured); then the median and the largest
# absolute error.  --models cpu-clc,cpu-mem predicts with each CPU model
# (ptieval --use-model COMPUTER=MODEL for every computer of the system): one
# predicted and error column per model, the before and after of issue 13.2.
# MODEL+units (cpu-clc+units, cpu-mem+units) predicts on a copy of the
# system with overlap="units" on its <cpu_clc> (models/cpu-clc/README.md),
# written in BUILD_DIR/accuracy/.
# --measurements FILE keeps the measured times (JSON) and, when it exists,
# predicts from them without running the programs again; a program of
# --only it has no row of is measured and added to it.  The LAMMPS captures
# are kept beside it (FILE without .json, then .captures/).  Needs mpicc,
# mpirun and, for hpcc and lammps, their packages (skipped, saying so).
# The VM's MPI state: every 2-rank run is bracketed by a short probe of
# this host's MPI (calibrate/mpi-probe.c, one way at 0 B and 16 KiB), and a
# 2-rank row is measured over its runs in the state --system was calibrated
# in (the probe's 16 KiB one way within 25% of what the system prices it);
# --alt-system FILE, the same host calibrated in its other state, adds a
# row of the runs in that state predicted on it (accuracy.py's docstring;
# capture/README.md, "On the Zen 4 host").  --no-state leaves the probes out.
# BUILD_DIR defaults to build (configured and built if missing).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
system= alt_system= runs= quick= only=sweep3d,cg,hpcc,lammps models= measurements= state=1
while [ $# -gt 0 ]; do
  case $1 in
    --system) system=$2; shift 2 ;;
    --alt-system) alt_system=$2; shift 2 ;;
    --no-state) state=; shift ;;
    --runs) runs=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    --only) only=$2; shift 2 ;;
    --models) models=$2; shift 2 ;;
    --measurements) measurements=$2; shift 2 ;;
    -*) echo "accuracy.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
build=${1:-$root/build}
[ -n "$runs" ] || runs=$([ -n "$quick" ] && echo 3 || echo 5)
if [ ! -f "$build/build.ninja" ]; then
  meson setup "$build" "$root" >/dev/null
fi
meson compile -C "$build" >/dev/null
for tool in mpicc mpirun; do
  command -v $tool >/dev/null || { echo "accuracy.sh: $tool not found (Debian: libopenmpi-dev)" >&2; exit 1; }
done
work=$build/accuracy
mkdir -p "$work"
if [ -z "$system" ]; then
  system=$work/host.xml
  echo "# calibrating this host (pticalibrate --quick -O2) into $system" >&2
  "$build/cli/pticalibrate" --quick --no-progress -O2 -o "$system"
fi
for p in sweep3d cg; do
  mpicc -O2 -o "$work/$p-real" "$root/tests/accuracy/programs/$p-real.c" -lm
done
mpicc -O2 -shared -fPIC -o "$work/libptispan.so" "$root/tests/bench/capture/span.c"
probe=
if [ -n "$state" ]; then
  mpicc -O2 -I "$root/calibrate" -o "$work/mpi-probe" "$root/calibrate/mpi-probe.c"
  probe=$work/mpi-probe
fi
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
exec python3 "$root/tests/bench/accuracy.py" --root "$root" --build "$build" --work "$work" \
  --system "$system" --runs "$runs" --only "$only" ${quick:+--quick} \
  --models "$models" --measurements "$measurements" --span-lib "$work/libptispan.so" \
  --state-probe "$probe" --alt-system "$alt_system"
