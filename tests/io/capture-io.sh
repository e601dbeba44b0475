#!/usr/bin/env bash
# MPI-IO captured and replayed: tests/bench/io/mpiio.c on 2 ranks, 1 MiB in
# blocks of 256 KiB, independent then collective, under pticapture; the
# capture holds each MPI_File_open (with its name) and each write with its
# byte offset and size (FORMAT.md 1.2), and ptieval replays it on
# data/host2-disk.xml as io events: rank r's writes at r x 512 KiB + k x
# 256 KiB, collective="yes" for write_at_all, each independent write
# lasting at least the server's 2 ms + 256 KiB / 100 MB/s.
# TAP output; skips when Open MPI is missing.
#   capture-io.sh PTIEVAL SYSTEM MPIIO
set -u
ptieval=$1 system=$2 mpiio=${3:-}
echo "1..3"
if [ -z "${MPIRUN:-}" ] || [ -z "$mpiio" ]; then
  for i in 1 2 3; do echo "ok $i # SKIP no Open MPI (libopenmpi-dev, openmpi-bin)"; done
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for mode in independent collective; do
  "$PTICAPTURE" -q -o "$tmp/$mode" -- "$MPIRUN" -np 2 "$mpiio" "$tmp/file-$mode" 1048576 262144 \
    $mode >"$tmp/out" 2>&1 || { echo "Bail out! capture failed: $(cat "$tmp/out")"; exit 1; }
  "$PTICAPTURE" --print "$tmp/$mode" --rank 1 --no-times >"$tmp/print-$mode" || exit 1
  "$ptieval" "$system" "$tmp/$mode" -o "$tmp/trace-$mode.xml" >"$tmp/eval-$mode" 2>&1 ||
    { echo "Bail out! replay failed: $(cat "$tmp/eval-$mode")"; exit 1; }
done
python3 - "$tmp" <<'PY'
import re, sys, xml.etree.ElementTree as ET
tmp = sys.argv[1]
ns = "{urn:pti:trace:2}"
# 1: the capture's records
p = open(tmp + "/print-collective").read()
want = ["MPI_File_open file=1 name=\"%s/file-collective\" comm=1" % tmp] + [
    "MPI_File_write_at_all file=1 offset=%d bytes=262144" % (524288 + k * 262144) for k in (0, 1)
] + ["MPI_File_close file=1"]
missing = [w for w in want if w not in p]
print(("ok 1" if not missing else "not ok 1") + " - the capture records opens and writes"
      + ("" if not missing else ": missing " + "; ".join(missing)))
# 2, 3: the replay's io events
for test, mode in ((2, "independent"), (3, "collective")):
    bad = []
    for proc in ET.parse("%s/trace-%s.xml" % (tmp, mode)).getroot().iter(ns + "process"):
        if proc.get("rank") is None or proc.find(ns + "event") is None:
            continue
        r = int(proc.get("rank"))
        writes = [e for e in proc.iter(ns + "event") if e.get("kind") == "io" and e.get("op") == "write"]
        got = [(int(e.get("offset")), int(e.get("bytes")), e.get("collective")) for e in writes]
        exp = [(r * 524288 + k * 262144, 262144, "yes" if mode == "collective" else None)
               for k in (0, 1)]
        if got != exp:
            bad.append("rank %d: %s, not %s" % (r, got, exp))
        for e in writes:
            if mode == "independent" and float(e.get("end")) - float(e.get("start")) < 0.002 + 262144 / 1e8 - 1e-9:
                bad.append("rank %d: a write shorter than the server's time" % r)
        opens = [e for e in proc.iter(ns + "event") if e.get("op") == "open"]
        if len(opens) != 1 or opens[0].get("collective") != "yes":
            bad.append("rank %d: the open is not one collective io event" % r)
    print(("ok %d" % test if not bad else "not ok %d" % test)
          + " - %s writes replayed as io events" % mode + ("" if not bad else ": " + "; ".join(bad)))
PY
