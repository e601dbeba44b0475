#!/bin/sh
# The io events through the trace's tools: the trace of the checkpoint
# workload validates against schemas/trace.xsd, the reader takes it
# (ptitrace summary), and the Paraver conversion shows each rank's
# collective write as Extrae's MPI_File_write_at_all (type 50000005, value
# 150) with state 12 (I/O), and its open as MPI_File_open (141).
#   trace-io.sh PTIEVAL PTITRACE SOURCE_ROOT
set -eu
ptieval=$1 ptitrace=$2 root=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$ptieval" "$root/tests/io/data/pfs4.xml" "$root/tests/io/data/checkpoint.xml" -o "$tmp/t.xml" >/dev/null
xmllint --noout --schema "$root/schemas/trace.xsd" "$tmp/t.xml"
"$ptitrace" summary "$tmp/t.xml" | grep -q "predicted: 0.049943040 s; 4 processes, 12 events"
"$ptitrace" paraver "$tmp/t.xml" -o "$tmp/p" >/dev/null
for task in 1 2 3 4; do
  # collective write: from 0.002 s (2000000 ns), the end of open_all
  grep -q "^2:$task:1:$task:1:2000000:50000005:150\$" "$tmp/p.prv"
  grep -q "^2:$task:1:$task:1:0:50000005:141\$" "$tmp/p.prv"
done
grep -q "^1:1:1:1:1:2000000:[0-9]*:12\$" "$tmp/p.prv"
grep -q "^150 MPI_File_write_at_all\$" "$tmp/p.pcf"
grep -q "^12   I/O\$" "$tmp/p.pcf"
echo "ok: io events validate, read back and convert to Paraver"
