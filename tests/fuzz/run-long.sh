#!/bin/sh
# Run the fuzz targets for a long time, one after another (tests/fuzz/README.md).
#
#   tests/fuzz/run-long.sh SECONDS [TARGET...]
#
# SECONDS per target; TARGETs among hmc workload rud expr changes trace (all
# by default).  The targets come from a clang build with libFuzzer,
# AddressSanitizer and UndefinedBehaviorSanitizer, made in $PTI_FUZZ_BUILD
# (default: build-fuzz in the source tree) if it is not there yet:
#
#   CC=clang meson setup build-fuzz -Dfuzzing=true -Db_lundef=false \
#     -Db_sanitize=address,undefined --buildtype=debugoptimized
#
# Without clang's libFuzzer (Debian: clang, libclang-rt-14-dev) the build
# falls back to gcc and the standalone driver, which mutates blindly.
#
# Each target starts from its seeds (fuzz.py seeds) and the corpus it grew
# before ($PTI_FUZZ_BUILD/fuzz-corpus/TARGET), runs at nice 10 in libFuzzer's
# fork mode with one job (a slow or huge input, i.e. a big but valid
# workload, is set aside as a timeout or OOM and the run goes on; a crash or
# a leak ends it), and leaves what it found in
# $PTI_FUZZ_BUILD/fuzz-artifacts/TARGET.  The last lines are a table:
# target, executions, seconds, crashes, timeouts, OOMs.  Exit status 1 if
# anything crashed or leaked.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
[ $# -ge 1 ] || { sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
seconds=$1
shift
targets=${*:-hmc workload replay rud expr changes trace}
build=${PTI_FUZZ_BUILD:-$src/build-fuzz}

if [ ! -f "$build/build.ninja" ]; then
  if command -v clang > /dev/null 2>&1; then
    CC=clang meson setup "$build" "$src" -Dfuzzing=true -Db_lundef=false \
      -Db_sanitize=address,undefined --buildtype=debugoptimized > /dev/null
  else
    echo "run-long.sh: no clang: the standalone driver, not libFuzzer" >&2
    meson setup "$build" "$src" -Db_sanitize=address,undefined -Db_lundef=false > /dev/null
  fi
fi
for t in $targets; do
  meson compile -C "$build" -j 2 "tests/fuzz/fuzz-$t" > /dev/null
done

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
report=$(mktemp)
trap 'rm -f "$report"' EXIT
status=0
for t in $targets; do
  corpus=$build/fuzz-corpus/$t
  artifacts=$build/fuzz-artifacts/$t
  seeds=$build/fuzz-seeds/$t
  log=$build/fuzz-$t.log
  rm -rf "$seeds"
  mkdir -p "$corpus" "$artifacts"
  python3 "$here/fuzz.py" seeds "$t" "$seeds" "$src" > /dev/null
  start=$(date +%s)
  # Fork mode with one job: timeouts and OOMs are noted, not fatal.
  (cd "$artifacts" && nice -n 10 "$build/tests/fuzz/fuzz-$t" -max_total_time="$seconds" \
     -timeout=10 -rss_limit_mb=2048 -max_len=65536 -fork=1 -ignore_timeouts=1 \
     -ignore_ooms=1 -artifact_prefix="$artifacts/" -print_final_stats=1 \
     "$corpus" "$seeds") > "$log" 2>&1 || status=1
  elapsed=$(( $(date +%s) - start ))
  # Executions: libFuzzer's final statistics, or its last status line
  # ("#N: ..." in fork mode), or the standalone driver's summary.
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  [ -n "$execs" ] || execs=$(sed -n 's/^#\([0-9][0-9]*\)[: ].*/\1/p' "$log" | tail -n 1)
  [ -n "$execs" ] || execs=$(sed -n 's/^standalone: \([0-9]*\) executions.*/\1/p' "$log" | tail -n 1)
  crashes=$(find "$artifacts" -name 'crash-*' -o -name 'leak-*' | wc -l)
  timeouts=$(find "$artifacts" -name 'timeout-*' -o -name 'slow-unit-*' | wc -l)
  ooms=$(find "$artifacts" -name 'oom-*' | wc -l)
  [ "$crashes" -eq 0 ] || status=1
  printf '%-9s %12s %7s %8s %9s %5s\n' "$t" "${execs:-?}" "$elapsed" "$crashes" "$timeouts" \
    "$ooms" >> "$report"
done
printf '%-9s %12s %7s %8s %9s %5s\n' target executions seconds crashes timeouts ooms
cat "$report"
exit $status
