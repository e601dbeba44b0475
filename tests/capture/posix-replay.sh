#!/usr/bin/env bash
# POSIX file calls captured and replayed: posix-io.c on 2 ranks under
# pticapture, replayed by ptieval on data/host2-pfs.xml (one io-pfs server:
# λ = 1 ms a request, B_w = 100 MB/s, B_r = 200 MB/s, client links
# L = 1 GB/s, μ = 0.5 ms an open or close; models/io-pfs/README.md).  The
# ranks take turns, so no request waits for the other rank's at the server
# and every request costs its closed form: an open or close μ; a write of
# b bytes max(b/L, λ + b/B_w) = λ + b/B_w; a read λ + b/B_r; MPI_File_open
# and MPI_File_close on 2 ranks 2μ (one metadata request each, priced
# from when both are there).  Per rank, in seconds:
#   open, close, open (read-only), close, fopen, fclose   6 × 0.0005        = 0.003
#   write 65536 at 0, pwrite 65536 at 131072              2 × (0.001 + 65536/1e8) = 0.00331072
#   read 32768 at 0, pread 32768 (of 65536 asked) at 163840
#                                                         2 × (0.001 + 32768/2e8) = 0.00232768
#   fwrite 100000 at 0                                    0.001 + 100000/1e8 = 0.002
#   MPI_File_open, MPI_File_write_at 65536, MPI_File_close
#                                                         0.001 + 0.00165536 + 0.001 = 0.00365536
#   io time                                               0.01429376
# The failed write (EBADF) and open (ENOENT) are not replayed: 4 noted.
# On a system whose nodes mount no file system (NOFS), the POSIX calls are
# noted, not an error: the replay goes on to the first MPI-IO call, which
# is one.
# TAP output; skips when Open MPI is missing.
#   posix-replay.sh PTIEVAL SYSTEM NOFS POSIX_IO
set -u
ptieval=$1 system=$2 nofs=$3 prog=${4:-}
echo "1..4"
if [ -z "${MPIRUN:-}" ] || [ -z "$prog" ]; then
  for i in 1 2 3 4; do echo "ok $i # SKIP no Open MPI (libopenmpi-dev, openmpi-bin)"; done
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/data"
"$PTICAPTURE" -q -o "$tmp/trace" -- "$MPIRUN" -np 2 "$prog" "$tmp/data" >"$tmp/out" 2>&1 ||
  { echo "Bail out! capture failed: $(cat "$tmp/out")"; exit 1; }
"$ptieval" "$system" "$tmp/trace" -o "$tmp/trace.xml" >"$tmp/eval" 2>&1 ||
  { echo "Bail out! replay failed: $(cat "$tmp/eval")"; exit 1; }
python3 - "$tmp" <<'PY'
import re, sys, xml.etree.ElementTree as ET
tmp = sys.argv[1]
out = open(tmp + "/eval").read()
# 1: each rank's io time, the closed form above (ns: the engine's unit)
io = {int(m.group(1)): m.group(2)
      for m in re.finditer(r"^ +(\d+) +\S+ +\S+ +\S+ +\S+ +(\S+) +\d+$", out, re.M)}
bad = ["rank %d: %s" % (r, io.get(r)) for r in (0, 1) if io.get(r) != "0.014293760"]
print(("ok 1" if not bad else "not ok 1") + " - io time per rank 0.014293760 s"
      + ("" if not bad else ": " + ", ".join(bad) + "\n# " + out.replace("\n", "\n# ")))
# 2: the failed calls are counted, not replayed
m = re.search(r"POSIX file calls that failed +(\d+)", out)
print(("ok 2" if m and m.group(1) == "4" else "not ok 2")
      + " - the 4 failed POSIX calls are noted" + ("" if m else ": no note"))
# 3: the io events of each rank, in order: (op, offset, bytes)
ns = "{urn:pti:trace:2}"
bad = []
for proc in ET.parse(tmp + "/trace.xml").getroot().iter(ns + "process"):
    if proc.get("rank") is None or proc.find(ns + "event") is None:
        continue
    r = int(proc.get("rank"))
    got = [(e.get("op"), e.get("offset"), e.get("bytes"))
           for e in proc.iter(ns + "event") if e.get("kind") == "io"]
    want = [("open", "0", "0"), ("write", "0", "65536"), ("write", "131072", "65536"),
            ("read", "0", "32768"), ("read", "163840", "32768"), ("close", "0", "0"),
            ("open", "0", "0"), ("close", "0", "0"),
            ("open", "0", "0"), ("write", "0", "100000"), ("close", "0", "0"),
            ("open", "0", "0"), ("write", str(r * 65536), "65536"), ("close", "0", "0")]
    if got != want:
        bad.append("rank %d: %s" % (r, got))
print(("ok 3" if not bad else "not ok 3") + " - the io events are the recorded calls"
      + ("" if not bad else ": " + "; ".join(bad)))
PY
"$ptieval" "$nofs" "$tmp/trace" >"$tmp/nofs" 2>&1
if grep -q "rank [01], call 19 (MPI_File_open): .*mounts no file system" "$tmp/nofs"; then
  echo "ok 4 - no file system: POSIX calls noted, the first MPI-IO call is the error"
else
  echo "not ok 4 - no file system: $(cat "$tmp/nofs")"
fi
