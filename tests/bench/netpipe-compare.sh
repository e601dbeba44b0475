#!/usr/bin/env bash
# Benchmark: pticalibrate's ping-pong against NetPIPE's, on this host.
#
#   tests/bench/netpipe-compare.sh [BUILD_DIR]
#
# Runs NetPIPE 3.7's MPI ping-pong (Debian's netpipe-openmpi, NPopenmpi)
# between two ranks, and pticalibrate's MPI probe (--skip cpu,memory), and
# prints, at every size both measured, the one-way time each found (NetPIPE:
# the time it reports for a message, half its best round trip; pticalibrate:
# the median of its samples, with their quartiles) and how far apart they
# are.  BUILD_DIR defaults to build.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
command -v NPopenmpi >/dev/null || { echo "netpipe-compare.sh: NPopenmpi not found (Debian: netpipe-openmpi)" >&2; exit 1; }
meson compile -C "$build" >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
(cd "$tmp" && mpirun -np 2 NPopenmpi -u 4194304 -o np.out >/dev/null)
"$build/cli/pticalibrate" --no-progress --skip cpu,memory --keep "$tmp/probe" -o "$tmp/mpi.xml"
python3 - "$tmp/np.out" "$tmp/probe/mpi-probe.out" <<'PY'
import re, sys
np_t = {}
for line in open(sys.argv[1]):
    w = line.split()
    if len(w) >= 3:
        np_t[int(float(w[0]))] = float(w[2]) * 1e9   # bytes, Mb/s, seconds (one way)
pp = {}
for line in open(sys.argv[2]):
    if line.startswith('pp '):
        kv = dict(re.findall(r'(\w+)=([0-9.eE+-]+)', line))
        pp[int(kv['bytes'])] = (float(kv['t']), float(kv['q1']), float(kv['q3']))
print('%10s %14s %24s %9s' % ('bytes', 'NetPIPE ns', 'pticalibrate ns [q1-q3]', 'apart'))
for b in sorted(set(np_t) & set(pp)):
    t, q1, q3 = pp[b]
    print('%10d %14.5g %11.5g [%.5g-%.5g] %+8.1f%%' % (b, np_t[b], t, q1, q3,
                                                    100 * (t - np_t[b]) / np_t[b]))
PY
