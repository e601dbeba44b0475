#!/bin/sh
# ptisweep under Open MPI (TAP): 2 ranks write the same table as one
# process, and resume a cut one.  Skipped (exit 77) when ptisweep was built
# without MPI or mpirun is not installed.  $1 is ptisweep.
set -u
sweep=$1
if ! "$sweep" --version | grep -q "with MPI" || ! command -v mpirun >/dev/null; then
  echo "1..0 # SKIP ptisweep built without MPI, or no mpirun"
  exit 77
fi
data=$(cd "$(dirname "$0")/data" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$data"/*.xml "$work"/
cd "$work" || exit 1
# Open MPI's own allocations are not ours to check.
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
# Root in containers and CI; more ranks than cores on small machines.
mpi="mpirun -np 2 --oversubscribe"
[ "$(id -u)" -eq 0 ] && mpi="$mpi --allow-run-as-root"

n=0
failed=0
ok () { n=$((n + 1)); echo "ok $n - $1"; }
not_ok () { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; shift; for l in "$@"; do echo "# $l"; done; }

AXES="-D p=2,4,8 -D n=1200,2400 -D bytes=100:10000:4950"
if "$sweep" -q $AXES -o one.csv sys-a.xml sys-b.xml scaling.xml 2>err.txt; then ok "alone"; else not_ok "alone" "$(cat err.txt)"; fi
if $mpi "$sweep" $AXES -o two.csv sys-a.xml sys-b.xml scaling.xml >out.txt 2>err.txt \
   && grep -q "36 points (36 evaluated, 0 resumed from two.csv).*2 ranks" err.txt; then
  ok "2 ranks"
else
  not_ok "2 ranks" "$(cat out.txt err.txt)"
fi
if cmp -s one.csv two.csv; then ok "2 ranks write the same table"; else not_ok "2 ranks write the same table" "$(diff one.csv two.csv | head -5)"; fi
head -c 3000 one.csv > cut.csv
if $mpi "$sweep" -j 2 $AXES -o cut.csv sys-a.xml sys-b.xml scaling.xml >out.txt 2>err.txt \
   && grep -q "resumed from cut.csv" err.txt && cmp -s one.csv cut.csv; then
  ok "2 ranks x 2 jobs resume a cut table"
else
  not_ok "2 ranks x 2 jobs resume a cut table" "$(cat out.txt err.txt)"
fi
$mpi "$sweep" -D q=1 -o e.csv sys-a.xml scaling.xml >out.txt 2>err.txt
st=$?
if [ $st -ne 0 ] && [ "$(grep -c "declares no parameter 'q'" err.txt)" -eq 1 ]; then
  ok "a mistake is reported once, non-zero exit"
else
  not_ok "a mistake is reported once, non-zero exit" "exit $st" "$(cat err.txt)"
fi
echo "1..$n"
[ "$failed" -eq 0 ]
