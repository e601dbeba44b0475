#!/usr/bin/env bash
# Benchmark: how far apart repeated calibrations of this host fall.
#
#   tests/bench/calibrate-repeat.sh [--quick] [RUNS] [BUILD_DIR]
#   tests/bench/calibrate-repeat.sh --files SYSTEM.xml...   (compare files made before)
#
# Runs pticalibrate RUNS times (default 3; full runs unless --quick), keeps
# the files in BUILD_DIR/calibrate-repeat/, and prints each run's time, then
# per group of figures (operation costs, memory bandwidth and latency by
# pattern, each MPI parameter) the spread across the runs, (max - min) /
# median of the runs' values, as the median and the largest over the group's
# figures, with the figure that varied most.  Repeated runs "agree to" the
# largest of these.  BUILD_DIR defaults to build (configured if missing).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
quick=
files=()
if [ "${1:-}" = --files ]; then
  shift
  files=("$@")
  set --
elif [ "${1:-}" = --quick ]; then
  quick=--quick
  shift
fi
if [ ${#files[@]} -eq 0 ]; then
  runs=${1:-3}
  build=${2:-$root/build}
  if [ ! -f "$build/build.ninja" ]; then
    meson setup "$build" "$root" >/dev/null
  fi
  meson compile -C "$build" >/dev/null
  out=$build/calibrate-repeat
  rm -rf "$out"
  mkdir -p "$out"
  for i in $(seq 1 "$runs"); do
    start=$(date +%s)
    "$build/cli/pticalibrate" $quick --no-progress -o "$out/run$i.xml"
    echo "run $i: $(( $(date +%s) - start )) s, load average $(cut -d' ' -f1 /proc/loadavg)"
    files+=("$out/run$i.xml")
  done
fi
python3 - "${files[@]}" <<'PY'
import os, re, statistics, sys
import xml.etree.ElementTree as ET

groups = {}   # group -> {figure: [values]}

def add(group, name, value):
    groups.setdefault(group, {}).setdefault(name, []).append(value)

for path in sys.argv[1:]:
    root = ET.parse(path).getroot()
    for c in root.find('.//cpu_clc'):
        add('operation costs (ns)', c.tag, float(c.text))
    ns = root.find('.//net_node')   # net_simple before net-node
    ns = ns if ns is not None else root.find('.//net_simple')
    if ns is not None:
        for c in ns:
            if c.tag != 'piece':      # pieces differ in number from run to run
                add('MPI ' + c.tag, c.tag, float(c.text))
    mempath = re.sub(r'\.xml$', '.memory.xml', path)
    if not os.path.exists(mempath):   # the shipped layout: configs/memory/NAME.xml
        mempath = os.path.join(os.path.dirname(path), 'memory', os.path.basename(path))
    mem = ET.parse(mempath).getroot()
    for prof in mem.findall('profile'):
        for pat in prof.findall('pattern'):
            # strided by its stride, runs and transpose by their run
            size = pat.get('stride') or pat.get('run')
            label = pat.get('name') + (':' + size if size else '')
            for p in pat.findall('point'):
                key = '%s %s B, %s proc' % (label, p.get('bytes'), prof.get('processes'))
                add('memory bandwidth, %s processes' % prof.get('processes'), key,
                    float(p.get('bandwidth')))
                if p.get('latency') is not None:   # none for write and transpose
                    add('memory latency, %s processes' % prof.get('processes'), key,
                        float(p.get('latency')))

print('%-34s %8s %8s  %s' % ('group (figures)', 'median', 'largest', 'figure that varied most'))
for group, figs in groups.items():
    spreads = {}
    for name, vals in figs.items():
        med = statistics.median(vals)
        spreads[name] = (max(vals) - min(vals)) / med if med > 0 else 0.0
    worst = max(spreads, key=spreads.get)
    vals = ', '.join('%.4g' % v for v in figs[worst])
    print('%-34s %7.1f%% %7.1f%%  %s (%s)' % ('%s (%d)' % (group, len(figs)),
          100 * statistics.median(spreads.values()), 100 * spreads[worst], worst, vals))
PY
