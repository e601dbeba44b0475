#!/usr/bin/env python3
"""The HPC Challenge hand models (wsl/examples/hpcc-*.xml) price what their
comments say, on data/hpcc-system.xml's round figures (suite cpu-mem).

  check-hpcc-models.py PTIEVAL EXAMPLES_DIR DATA_DIR

Closed forms worked by hand (ns; flop_rate 1 GFlop/s: a flop is 1 ns; a
loop header h = LFOR + CMLL + INLL = 112):

  DGEMM, n = 10: 2 n^3 + 2 n^2 = 2200 flops = 2200 ns, on each of 1 and 2
  processes (each its own product).

  HPL, n = 200, nb = 80, 1 process: panels k = 0, 1, 2 with m = 200, 120,
  40 rows left, w = 80, 80, 40 columns and cols = 120, 40, 0 trailing
  columns:
    panel   m w^2 - w^3/3 - w^2/2 + 5w/6:  1106200 + 594200 + 41900
    update  cols (nb^2 + 2 nb (m - nb)):    120 (6400 + 19200) + 40 (6400 + 6400) + 0
                                            = 3072000 + 512000
    solve   n^2:                            40000
    = 1742300 + 3584000 + 40000 = 5366300 flops, and the row swaps as
    cpu-clc assignments,
    cols (h + nb (h + TFDL + 2 ARF2)) = 120 (112 + 80 * 132) + 40 (112 + 80 * 132)
    = 1280640 + 426880 = 1707520 ns: 7073820 ns.

  STREAM, n = 1024, 1 process, working set 24 n = 24576 bytes (past the
  last point, 16 KiB: reads 4e-9 s/B, excess over L1 (1 KiB: 1e-9) 3e-9;
  stores 8e-9, excess 7e-9), per element
    copy, scale  ARF1 + SFDL = 3 ns,   8 bytes read, 8 written
    add, triad   2 ARF1 + SFDL = 4 ns, 16 bytes read, 8 written
  cpu-clc, the references only:   triad alone n 4 = 4096;
                                  all four, twice: 2 n (3 + 3 + 4 + 4) = 28672
  cpu-mem, plus the reads' and the stores' excess:
                                  triad alone 4096 + n (16 * 3 + 8 * 7) = 110592;
                                  all four, twice: 28672 + 2 n (80 + 80 + 104 + 104)
                                  = 28672 + 753664 = 782336

  PTRANS, n = 40, nb = 80, 1 process: mine = 1600 elements, each
  h + AFDL + TFDL + 2 ARF2 = 112 + 128 + 4 + 16 = 260 ns: 416000 ns
  (cpu-clc); cpu-mem adds 16 bytes an element at the runs curve's excess
  (run 8 nb = 640, longer than the 512 measured: its curve) over
  16 * 1600 = 25600 bytes, past the last point: 1e-8 - 1e-9 = 9e-9 s/B,
  1600 * 16 * 9 = 230400 ns: 646400 ns.
"""
import json
import os
import subprocess
import sys

ptieval, examples, data = sys.argv[1], sys.argv[2], sys.argv[3]
system = os.path.join(data, 'hpcc-system.xml')
results = []


def predict(workload, *defines, model=None):
    args = [ptieval, '--json', system, os.path.join(examples, workload)]
    if model:
        args += ['--use-model', 'node=' + model]
    for d in defines:
        args += ['-D', d]
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        return None, r.stderr.strip()
    return json.loads(r.stdout)['predicted_time_s'], ''


def check(what, workload, defines, want_ns, model=None):
    got, err = predict(workload, *defines, model=model)
    want = want_ns * 1e-9
    ok = got is not None and abs(got - want) <= 1e-9 * want
    results.append((what, ok, 'predicted %s s, closed form %s s %s' % (got, want, err)))


check('DGEMM n=10, 1 process: 2 n^3 + 2 n^2 flops', 'hpcc-dgemm.xml', ['n=10'], 2200)
check('DGEMM n=10, 2 processes: the same on each', 'hpcc-dgemm.xml', ['n=10', 'procs=2'], 2200)
check('DGEMM n=10 on cpu-mem: the same (flops at cpu-clc\'s rate)', 'hpcc-dgemm.xml', ['n=10'],
      2200, model='cpu-mem')
check('HPL n=200 nb=80, 1 process: 5366300 flops + the swaps 1707520 ns', 'hpcc-hpl.xml',
      ['n=200', 'nb=80'], 5366300 + 1707520)
check('STREAM triad n=1024, cpu-clc: the references, n (2 ARF1 + SFDL)', 'hpcc-stream.xml',
      ['n=1024', 'ntimes=1', 'kernels=1'], 4096)
check('STREAM four kernels twice, cpu-clc', 'hpcc-stream.xml',
      ['n=1024', 'ntimes=2', 'kernels=4'], 28672)
check('STREAM triad n=1024, cpu-mem: plus 16 n bytes read and 8 n written at their excess',
      'hpcc-stream.xml', ['n=1024', 'ntimes=1', 'kernels=1'], 110592, model='cpu-mem')
check('STREAM four kernels twice, cpu-mem', 'hpcc-stream.xml',
      ['n=1024', 'ntimes=2', 'kernels=4'], 782336, model='cpu-mem')
check('PTRANS n=40, 1 process, cpu-clc: the transpose\'s operations', 'hpcc-ptrans.xml',
      ['n=40', 'nb=80'], 416000)
check('PTRANS n=40, 1 process, cpu-mem: plus 16 bytes an element at the runs excess',
      'hpcc-ptrans.xml', ['n=40', 'nb=80'], 646400, model='cpu-mem')

print('1..%d' % len(results))
failed = 0
for i, (what, ok, detail) in enumerate(results, 1):
    print('%s %d - %s' % ('ok' if ok else 'not ok', i, what))
    if not ok:
        failed += 1
        print('#   ' + detail)
sys.exit(1 if failed else 0)
