#!/usr/bin/env python3
"""The HPC Challenge hand models (wsl/examples/hpcc-*.xml) price what their
comments say, on data/hpcc-system.xml's round figures (suite cpu-mem).

  check-hpcc-models.py PTIEVAL EXAMPLES_DIR DATA_DIR

Closed forms worked by hand (ns; flop_rate 1 GFlop/s: a flop is 1 ns; a
loop header h = LFOR + CMLL + INLL = 112):

  DGEMM, n = 10: 2 n^3 + 2 n^2 = 2200 flops = 2200 ns, on each of 1 and 2
  processes (each its own product).

  HPL, n = 200, nb = 80, on [A | b] (201 columns: blocks of 80, 80 and
  41), look-ahead depth 1.  A panel of w columns and m rows: m w^2 - w^3/3
  - w^2/2 + 5w/6 flops, 1106200, 594200, 41900 for (m, w) = (200, 80),
  (120, 80), (40, 40); an update of c columns with the panel of step k - 1
  (mp rows, wp columns): c (wp^2 + 2 wp (mp - wp)) flops, c 25600 with
  panel 0, c 12800 with panel 1, c 1600 with panel 2; its row swaps
  (cpu-clc) c (h + wp (h + TFDL + 2 ARF2)) = c 10672 ns (wp = 80), c 5392
  (wp = 40).
  1 process: panels 1742300; updates: step 1 the look-ahead block 80 and
  the rest 41 with panel 0, step 2 the block 40 and the right-hand side
  with panel 1, at the end the right-hand side with panel 2:
    121 * 25600 + 41 * 12800 + 1600 = 3624000; solve n^2 = 40000;
    swaps 121 * 10672 + 41 * 10672 + 5392 = 1734256:
    5406300 + 1734256 = 7140556 ns.
  2 processes (messages free on data/hpcc-system.xml): process 0 owns
  blocks 0 and 2 (121 columns), process 1 block 1 (80).
    step 0   process 0 factors panel 0: both at 1106200.
    step 1   process 1 (owner): swaps 853760, look-ahead 2048000, panel
             594200, sends at 4602160; it has no columns left.  Process 0
             updates its 41 columns with panel 0 (437552 + 1049600: fewer
             than the ceil((2048000 + 594200) / 2048000) = 2 chunks before
             its probe finds the panel), then waits: both at 4602160.
    step 2   process 0 (owner): swaps 426880, look-ahead 512000, panel
             41900, sends at 5582940, then the right-hand side with panel
             1 (10672 + 12800): 5606412.  Process 1 has nothing to update.
    end      process 0: the right-hand side with panel 2 (5392 + 1600) and
             the solve: 5653404; process 1: 5582940 + 40000.
    = 5653404 ns.

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
  2 processes, n = 200, nb = 80, cpu-clc: process 0 owns blocks 0 and 2
  (120 columns), process 1 block 1 (80).  Process 0: 120^2 = 14400
  elements stay (260 ns each: 3744000), 80 x 120 = 9600 packed (h + TFDL
  + 2 ARF1 = 118: 1132800), one MPI_Sendrecv (of 8 (ceil(3 / 2) 80)^2 =
  204800 bytes, free here) at 4876800, 9600 added in (h + MFDL + AFDL +
  TFDL + 2 ARF1 = 502: 4819200): 9696000 ns; process 1 (6400 stay:
  1664000, then the same pack) waits for it in the exchange and ends
  with it.
  The same on cpu-mem (the 1-process profile: every working set past its
  last point; runs of 640 bytes at its only runs curve, 512: excess 9e-9
  s/B; the unit stream's 3e-9, the store stream's 7e-9): each of the local
  part, the pack and the unpack adds 16 bytes an element at 9e-9, and
  after the exchange each process copies the 160 x 160 buffer, 25600
  doubles read (8 bytes at 3e-9: 614400 ns) and written (8 bytes at 7e-9:
  1433600 ns).  Process 0: local 3744000 + 2073600, pack 1132800 +
  1382400: 8332800 (process 1: 1664000 + 921600 + 2515200 = 5100800, then
  waits); the copy 2048000; the unpack of 9600 elements 4819200 +
  1382400: 16582400 ns, process 1 the same from the exchange on.
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
check('HPL n=200 nb=80, 1 process: 5406300 flops + the swaps 1734256 ns', 'hpcc-hpl.xml',
      ['n=200', 'nb=80'], 5406300 + 1734256)
check('HPL n=200 nb=80, 2 processes: look-ahead, block-cyclic shares, the probe', 'hpcc-hpl.xml',
      ['n=200', 'nb=80', 'procs=2'], 5653404)
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
check('PTRANS n=200 nb=80, 2 processes, cpu-clc: local part, pack, one exchange, add in',
      'hpcc-ptrans.xml', ['n=200', 'nb=80', 'procs=2'], 9696000)
check('PTRANS n=200 nb=80, 2 processes, cpu-mem: plus the runs of each loop and the exchange\'s '
      'copy (read and written)', 'hpcc-ptrans.xml', ['n=200', 'nb=80', 'procs=2'], 16582400,
      model='cpu-mem')

print('1..%d' % len(results))
failed = 0
for i, (what, ok, detail) in enumerate(results, 1):
    print('%s %d - %s' % ('ok' if ok else 'not ok', i, what))
    if not ok:
        failed += 1
        print('#   ' + detail)
sys.exit(1 if failed else 0)
