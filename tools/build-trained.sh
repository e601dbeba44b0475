#!/usr/bin/env bash
# Build ptieval trained on pti's own workloads: a release build with
# link-time optimisation and GCC's profile feedback (-fprofile-use).
#
#   tools/build-trained.sh [BUILD_DIR]      (default: build-trained)
#
# Three steps: build instrumented (meson's b_pgo=generate); run every
# example workload (wsl/examples/*.xml) on every system (configs/*.xml), so
# that the compiler sees which branches the evaluation takes and which calls
# are hot; build again from those counts (b_pgo=use).  Code the training did
# not run (other workloads' paths, replays, error paths) is compiled as a
# plain -O3 build compiles it (-fprofile-partial-training), not for size.
# The predictions are the same to the last digit as any other build's; only
# the speed differs (figures in engine/README.md).  Takes about twice a
# release build's time plus the training's (~20 s on 2 cores).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-trained}
# Targets the training never runs (tests, other programs) have no counts:
# not an error for them.
flags="['-fprofile-partial-training', '-Wno-missing-profile']"
if [ -f "$build/build.ninja" ]; then
  meson configure "$build" -Db_pgo=generate >/dev/null
else
  meson setup "$build" "$root" --buildtype=release -Db_lto=true -Db_pgo=generate \
    -Dc_args="$flags" >/dev/null
fi
meson compile -C "$build" ptieval >/dev/null
find "$build" -name '*.gcda' -delete

cd "$root"
n=0
for system in configs/*.xml; do
  for workload in wsl/examples/*.xml; do
    # Exit 4 (an assertion of the workload failed on that system) and a
    # refused combination (1) train the paths they take just as well; a
    # signal is a crash and stops the build.
    rc=0
    "$build/cli/ptieval" "$system" "$workload" >/dev/null 2>&1 || rc=$?
    if [ "$rc" -ge 128 ]; then
      echo "build-trained.sh: ptieval $system $workload died (exit $rc)" >&2
      exit 1
    fi
    n=$((n + 1))
  done
done
if [ -z "$(find "$build" -name '*.gcda' -print -quit)" ]; then
  echo "build-trained.sh: the training runs left no profile in $build" >&2
  exit 1
fi

meson configure "$build" -Db_pgo=use >/dev/null
meson compile -C "$build" ptieval >/dev/null
echo "build-trained.sh: $build/cli/ptieval, trained on $n runs"
