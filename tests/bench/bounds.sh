#!/usr/bin/env bash
# Benchmark: bounded predictions on the paper's case (issue 15, point 5).
#
#   tests/bench/bounds.sh [BUILD_DIR]
#
# BUILD_DIR defaults to build (any build type).  Makes two copies of
# configs/pc_cluster.xml whose network costs are ranges of +-10 % around the
# paper's values (min and max attributes; the text stays the nominal value):
#   contention: net_contention's link_bandwidth, link_latency, switch_latency,
#               send_overhead, recv_overhead (the file's active model);
#   simple:     net_simple's latency, bandwidth, send_overhead, recv_overhead
#               (evaluated with --use-model myrinet=net-simple);
# and the same copy with the cpu_clc costs +-10 % as well (46 ranges).  For
# each it runs ptieval --json on wsl/examples/sweep3d.xml, directed and
# exhaustive where the corners are few, and prints the nominal, lower and
# upper predictions, the runs and their wall time next to one nominal run's.
# Wall times on a shared machine follow the load: the run counts say what
# the bounds cost (each run is one evaluation like the nominal one).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
meson compile -C "$build" >/dev/null
ptieval=$build/cli/ptieval
export PTI_SCHEMA_DIR=$root/schemas PTI_MODEL_SYSTEM_PATH=
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$root/configs/pc_cluster.xml" "$tmp" <<'PY'
import re, sys
src, out = sys.argv[1], sys.argv[2]
text = open(src).read()
def ranged(text, section, names, pct=0.10):
    head, rest = text.split('<%s>' % section, 1)
    body, tail = rest.split('</%s>' % section, 1)
    def one(m):
        v = float(m.group(3))
        return '<%s%s min="%.6g" max="%.6g">%s</%s>' % (m.group(1), m.group(2), v * (1 - pct),
                                                       v * (1 + pct), m.group(3), m.group(1))
    for n in names:
        body = re.sub(r'<(%s)((?: unit="[^"]*")?)>([0-9.]+)</%s>' % (n, n), one, body)
    return head + '<%s>' % section + body + '</%s>' % section + tail
c = ranged(text, 'net_contention', ['link_bandwidth', 'link_latency', 'switch_latency',
                                    'send_overhead', 'recv_overhead'])
open(out + '/contention.xml', 'w').write(c)
s = ranged(text, 'net_simple', ['latency', 'bandwidth', 'send_overhead', 'recv_overhead'])
open(out + '/simple.xml', 'w').write(s)
head, rest = c.split('<cpu_clc unit="ns">', 1)
body, tail = rest.split('</cpu_clc>', 1)
body = re.sub(r'<([A-Z0-9]+)>([0-9.]+)</\1>',
              lambda m: '<%s min="%.6g" max="%.6g">%s</%s>' % (m.group(1), float(m.group(2)) * 0.9,
                                                             float(m.group(2)) * 1.1, m.group(2), m.group(1)),
              body)
open(out + '/all.xml', 'w').write(head + '<cpu_clc unit="ns">' + body + '</cpu_clc>' + tail)
PY
workload=$root/wsl/examples/sweep3d.xml
report () {   # LABEL SYSTEM ARGS...
  local label=$1 system=$2
  shift 2
  "$ptieval" --json "$system" "$workload" "$@" > "$tmp/out.json"
  python3 - "$label" "$tmp/out.json" <<'PY'
import json, sys
label, path = sys.argv[1], sys.argv[2]
r = json.load(open(path))
b = r.get('bounds')
if b is None:
    print('%-44s nominal %.6f s  (no ranges)  one run %.3f s wall' % (label, r['predicted_time_s'], r['wall_s']))
else:
    lo, hi, t = b['lower_s'], b['upper_s'], r['predicted_time_s']
    print('%-44s nominal %.6f s  lower %.6f s (%+.2f %%)  upper %.6f s (%+.2f %%)  %d ranges, %d runs, %.3f s wall (nominal run %.3f s)%s'
          % (label, t, lo, 100 * (lo / t - 1), hi, 100 * (hi / t - 1), len(b['ranges']), b['runs'],
             b['runs_wall_s'], r['wall_s'], ''.join('\n    warning: ' + w for w in b['warnings'])))
PY
}
report "pc_cluster (no ranges)" "$root/configs/pc_cluster.xml"
report "net-contention +-10%, directed" "$tmp/contention.xml"
report "net-contention +-10%, exhaustive" "$tmp/contention.xml" --bounds=exhaustive
report "net-simple +-10%, directed" "$tmp/simple.xml" --use-model myrinet=net-simple
report "net-simple +-10%, exhaustive" "$tmp/simple.xml" --use-model myrinet=net-simple --bounds=exhaustive
report "net-contention and cpu_clc +-10%, directed" "$tmp/all.xml"
report "net-contention +-10%, -D kt=150..250" "$tmp/contention.xml" -D kt=150..250
report "net-contention +-10%, -D npe_i=2..4, npe_j=2..4" "$tmp/contention.xml" -D npe_i=2..4 -D npe_j=2..4
