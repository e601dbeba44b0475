#!/usr/bin/env python3
"""What the real kernels of the accuracy suite execute (run
tests/bench/kernel-counts.sh, which builds them as accuracy.sh does).

For each Sweep3D and CG case of accuracy.py (1 rank), valgrind's cache
simulator (cachegrind) runs the program twice at each cache size the
system file's <cpu_mem> names past the first: once as accuracy.sh runs it
and once with no iteration of the timed loop (Sweep3D iterations=0, CG
niter=0), so the difference is exactly the timed loop's work.  Printed per
unit of work, a cell-angle for Sweep3D (it*jt*kt*8*mm per iteration), a
non-zero of one SpMV for CG (26 SpMVs of the rank's non-zeros per outer
iteration, with the vector loops of that iteration):

  Ir      instructions executed
  Dr, Dw  data reads and writes (loads and stores)
  L1      reads that miss the first cache level
  L2..    reads that miss the named level (a cachegrind run whose last
          level is that cache)

These are the facts a RUD's operation counts and a memory signature
(models/cpu-mem/README.md) state: the signature's bytes at a working set
larger than a cache are the reads that miss it.  Counts, not times: the
load of the host does not change them.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from accuracy import cg_cases, sweep3d_cases  # noqa: E402
from reuse import callgrind_events  # noqa: E402  (cachegrind's files have the same lines)


def caches(system):
    """(name, bytes) of the <cpu_mem> cache levels of the system file."""
    out = []
    for c in ET.parse(system).getroot().iter('cache'):
        out.append((c.get('name'), int(c.get('bytes'))))
    if len(out) < 2:
        raise SystemExit('kernel-counts: %s names fewer than 2 <cpu_mem> cache levels' % system)
    return out


def geometry(size, line=64):
    """size,assoc,line for cachegrind: the widest of 16, 12, 8, 4 ways that
    gives a power of two of sets (cachegrind's requirement)."""
    for ways in (16, 12, 8, 4, 2, 1):
        sets = size // (ways * line)
        if sets * ways * line == size and sets & (sets - 1) == 0:
            return '%d,%d,%d' % (size, ways, line)
    raise SystemExit('kernel-counts: no cache geometry for %d bytes' % size)


def cachegrind(argv, d1, ll):
    """The totals of a cachegrind run (events: Ir Dr Dw D1mr DLmr ...)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, 'cg.out')
        cmd = ['valgrind', '--tool=cachegrind', '--cache-sim=yes', '--D1=' + geometry(d1),
               '--LL=' + geometry(ll), '--cachegrind-out-file=' + out] + argv
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError('%s failed:\n%s' % (' '.join(cmd), r.stderr[-2000:]))
        return callgrind_events(out), r.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--work', required=True)
    ap.add_argument('--system', required=True)
    ap.add_argument('--only', default='sweep3d,cg')
    ap.add_argument('--quick', action='store_true')
    args = ap.parse_args()
    levels = caches(args.system)
    only = set(args.only.split(','))
    cases = (sweep3d_cases(args.quick) if 'sweep3d' in only else []) + \
        (cg_cases(args.quick) if 'cg' in only else [])
    head = '%-8s %-18s %8s %8s %8s %8s' % ('program', 'size', 'unit', 'Ir', 'Dr', 'Dw')
    head += ''.join(' %8s' % ('%s miss' % name) for name, _ in levels)
    print(head)
    for prog, size, _, ranks, params in cases:
        if ranks != 1:
            continue
        exe = os.path.join(args.work, prog + '-real')
        if prog == 'sweep3d':
            full = dict(params)
            empty = dict(params, iterations=0)
            units = params['it'] * params['jt'] * params['kt'] * 8 * params['mm'] * params['iterations']
            unit = 'cell-ang'
        else:
            full = {'class': params['class'], 'niter': 1}
            empty = {'class': params['class'], 'niter': 0}
            unit = 'nonzero'
            size = size.split(',')[0] + ', 1 it'
        row = {}
        # level 1 from the first run; each further level from a run whose
        # last level it is
        for k in range(1, len(levels)):
            counts = []
            for p in (full, empty):
                argv = [exe] + ['%s=%s' % kv for kv in p.items()]
                counts.append(cachegrind(argv, levels[0][1], levels[k][1]))
            d = {e: counts[0][0][e] - counts[1][0][e] for e in counts[0][0]}
            if prog == 'cg':
                nnz = int(re.search(r'nnz_rank0=(\d+)', counts[0][1]).group(1))
                units = 26 * nnz
            if k == 1:
                row.update(Ir=d['Ir'], Dr=d['Dr'], Dw=d['Dw'], L1=d['D1mr'])
            row[levels[k][0]] = d['DLmr']
        line = '%-8s %-18s %8s %8.2f %8.2f %8.2f' % (prog, size, unit, row['Ir'] / units,
                                                     row['Dr'] / units, row['Dw'] / units)
        line += ' %8.3f' % (row['L1'] / units)
        line += ''.join(' %8.3f' % (row[name] / units) for name, _ in levels[1:])
        print(line, flush=True)
    print('\nper unit of work: instructions, loads, stores, and reads missing each level '
          '(cachegrind: %s)' % ', '.join('%s %d KiB' % (n, b // 1024) for n, b in levels))


if __name__ == '__main__':
    main()
