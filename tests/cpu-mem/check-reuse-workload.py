#!/usr/bin/env python3
"""A reuse-distance histogram as a workload's memory signature, end to end.

  check-reuse-workload.py PTIEVAL DATA_DIR

data/reuse-workload.xml uses twice a RUD whose loop (n = 4 iterations) takes
data/hist-small.xml by <reuse file=... scale="passes"/> (passes = 3);
data/reuse-system.xml is one node of 2 CPUs.  ptieval --use-model
node=cpu-mem must predict the closed form of models/cpu-mem/README.md,
worked here by hand:

  lines: L1 1536 / 64 = 24, L2 8192 / 64 = 128.
  misses m(C) = cold + sum of the bins, bin [lo, hi) counting fully when
  C <= lo and (hi - C) / (hi - lo) of itself when lo < C < hi:
    m(24)  = 20 + 60 * (32 - 24) / (32 - 16) + 40 = 90   (half of [16, 32))
    m(128) = 20 + 40 = 60                                ([128, 256) whole)
  served by L2 90 - 60 = 30, by memory 60; a unit-stride miss costs a line,
  64 bytes (8-byte accesses, 8 a line), at the excess over L1 of the
  working set each level holds (W_2 = 8192 / 2 = 4 KiB; memory: the last
  point):
    1 process:   excess(4 KiB) = 2e-9 - 1e-9 = 1e-9, memory 4e-9 - 1e-9 = 3e-9
                 x = 30 * 64 * 1e-9 + 60 * 64 * 3e-9 = 13.44 us
    2 processes (the node's 2 CPUs shared: the 2-process profile), 4 KiB
                 halfway in log2 between 1 KiB and 16 KiB: 4.5e-9, excess
                 3.5e-9; memory 8e-9 - 1e-9 = 7e-9
                 x = 30 * 64 * 3.5e-9 + 60 * 64 * 7e-9 = 33.6 us
  one use: n (LFOR + MFDL) + n * passes * x = 12 ns + 12 x; two uses:
    1 process:   2 * (12e-9 + 12 * 13.44e-6) = 322.584 us
    2 processes: 2 * (12e-9 + 12 * 33.6e-6)  = 806.424 us (each rank)
  cpu-clc ignores the histogram: 2 * 12 ns = 24 ns.

Then the mistake: a histogram file that does not exist is refused, naming
the workload file and the line of its <reuse>, with a non-zero status."""
import json, os, shutil, subprocess, sys, tempfile

ptieval, data = sys.argv[1], os.path.abspath(sys.argv[2])
system = os.path.join(data, 'reuse-system.xml')
workload = os.path.join(data, 'reuse-workload.xml')
failed = 0


def predict(args):
    r = subprocess.run([ptieval, '--json', '--no-progress'] + args, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit('ptieval %s failed (%d): %s' % (' '.join(args), r.returncode, r.stderr))
    return json.loads(r.stdout)['predicted_time_s']


def check(what, got, want):
    global failed
    ok = abs(got - want) <= 1e-12 * abs(want)
    print('%s %s: predicted %.17g, closed form %.17g' % ('ok' if ok else 'FAIL', what, got, want))
    failed += not ok


mem = ['--use-model', 'node=cpu-mem', system, workload]
check('cpu-mem, 1 process', predict(mem + ['-D', 'procs=1']), 2 * (12e-9 + 12 * 13.44e-6))
check('cpu-mem, 2 processes', predict(mem + ['-D', 'procs=2']), 2 * (12e-9 + 12 * 33.6e-6))
check('cpu-clc, 1 process', predict([system, workload]), 24e-9)

with tempfile.TemporaryDirectory() as tmp:
    bad = os.path.join(tmp, 'missing-hist.xml')
    text = open(workload).read().replace('file="hist-small.xml"', 'file="no-such-hist.xml"')
    open(bad, 'w').write(text)
    line = text[:text.index('file="no-such-hist.xml"')].count('\n') + 1
    r = subprocess.run([ptieval, '--use-model', 'node=cpu-mem', system, bad],
                       capture_output=True, text=True)
    ok = r.returncode != 0 and ('%s:%d:' % (bad, line)) in r.stderr \
        and 'no-such-hist.xml' in r.stderr and 'Traceback' not in r.stderr
    print('%s missing histogram file: exit %d, %s' % ('ok' if ok else 'FAIL', r.returncode,
                                                     r.stderr.strip()))
    failed += not ok
sys.exit(1 if failed else 0)
