#!/usr/bin/env python3
"""Where the real CG's time goes, kernel by kernel, against pti's price of
the same kernels (run by cg-kernels.sh, which builds the programs).

For each class: tests/accuracy/programs/cg-real.c built with
-DCG_KERNEL_TIMES runs --runs times on 1 rank (mpirun -np 1; class B with
3 outer iterations, as accuracy.sh runs it); each kernel's seconds (summed
over the timed region), the median over the runs whose rank kept the CPU
for 95% of the wall time (accuracy.sh's rule), its spread (max - min over
the median) and time per element (per non-zero for the SpMV, per vector
value for the others).  Beside it, the seconds pti gives the same kernel:
wsl/examples/cg.xml with each <use> in a phase of its RUD's name (ptieval
--json's per-phase compute time) on the system file, for cpu-clc and
cpu-mem with cpu-clc's overlap="units" (accuracy.sh's MODEL+units).

--probe also runs tests/bench/cg-kernels/spmv-probe.c: the SpMV alone on
rows of N non-zeros, for N from 16 to 1000 at 1 MiB, then at the four
classes' row lengths, gathered vectors and matrices (1 rank)."""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import accuracy  # noqa: E402  (CG_CLASSES, units_system, mpirun: one definition)

KERNELS = ('init', 'dot_rr', 'spmv', 'reduce_add', 'xchg', 'pq', 'update', 'p_update',
           'residual', 'norms', 'normalize', 'xchg_l')


def measure(binary, cls, niter, runs):
    """Per kernel the list of seconds of the undisturbed runs; the run count
    and the nnz and nc of rank 0."""
    clean, dirty = [], []
    nnz = na = 0
    for _ in range(runs):
        out = accuracy.mpirun(1, [binary, 'class=%d' % cls, 'niter=%d' % niter])
        res = re.search(r'^result .*', out, re.M).group(0)
        fig = dict(kv.split('=', 1) for kv in res.split()[1:])
        nnz, na = int(fig['nnz_rank0']), int(fig['na'])
        (clean if float(fig['busy']) >= 0.95 else dirty).append(out)
    per = {k: [] for k in KERNELS}
    for out in clean or dirty:     # none undisturbed: all of them, said so
        for m in re.finditer(r'^kernel (\w+) calls=(\d+) time_s=(\S+)', out, re.M):
            per[m.group(1)].append((int(m.group(2)), float(m.group(3))))
    return per, len(clean), nnz, na


def priced(args, system, model, cls, niter):
    """pti's seconds per kernel (the phases of a copy of cg.xml)."""
    cmd = [os.path.join(args.build, 'cli', 'ptieval'), '--json', '--use-model',
           'host=%s' % model, system, args.phased, '-D', 'class=%d' % cls,
           '-D', 'niter=%d' % niter, '-D', 'procs=1']
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError('ptieval failed: %s\n%s' % (' '.join(cmd), r.stderr))
    return {p['name']: p['compute_max_s'] for p in json.loads(r.stdout)['phases']}


def phased_workload(root, out):
    """cg.xml with each <use rud="X"/> in <phase name="X"> (its own phase
    `solve` and the assertions on it dropped: phases do not nest)."""
    with open(os.path.join(root, 'wsl', 'examples', 'cg.xml'), encoding='utf-8') as f:
        text = f.read()
    text = text.replace('<phase name="solve">', '').replace('</phase>', '')
    text = re.sub(r'<term [^>]*/>', '', text, flags=re.S)
    text = re.sub(r'<use rud="(\w+)"/>', r'<phase name="\1"><use rud="\1"/></phase>', text)
    with open(out, 'w', encoding='utf-8') as f:
        f.write(text)


def probe(binary):
    print('\nSpMV alone (spmv-probe: smallest CPU time of 7 samples), ns per non-zero:')
    print('%-34s %9s %11s' % ('case', 'ws MiB', 'ns/nnz'))
    cases = [('rows of %d, 1 MiB, gather 112 KiB' % n, n, 80000, 14000)
             for n in (16, 32, 57, 73, 96, 133, 183, 256, 1000)]
    for cls in (1, 2, 3, 4):
        name, na, nonzer, _ = accuracy.CG_CLASSES[cls]
        n = nonzer * (nonzer + 1) + 1
        cases.append(('class %s shape (rows of %d)' % (name, n), n, na * n, na))
    for label, n, nnz, nc in cases:
        out = subprocess.run([binary, str(n), str(nnz), str(nc)], capture_output=True,
                             text=True, check=True).stdout
        fig = dict(kv.split('=', 1) for kv in out.split())
        print('%-34s %9s %11s' % (label, fig['ws_mib'], fig['ns_per_nnz']))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--runs', type=int, default=5)
    ap.add_argument('--class', dest='classes', default='1,2,3,4',
                    help='comma-separated classes, 1..4 = S, W, A, B')
    ap.add_argument('--system', default=None)
    ap.add_argument('--probe', action='store_true')
    ap.add_argument('--bin', required=True, help='directory of the built programs')
    ap.add_argument('build')
    args = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    system = args.system or os.path.join(root, 'configs', 'epyc_vm_2cpu.xml')
    args.work = tempfile.mkdtemp()
    args.units_made = set()
    args.phased = os.path.join(args.work, 'cg-phased.xml')
    phased_workload(root, args.phased)
    units = accuracy.units_system(args, system)
    models = ('cpu-clc', 'cpu-mem')
    print('load average before: %s' % open('/proc/loadavg').read().split()[0])
    for cls in (int(c) for c in args.classes.split(',')):
        name, na, nonzer, niter = accuracy.CG_CLASSES[cls]
        if cls == 4:
            niter = 3
        per, kept, nnz, na = measure(os.path.join(args.bin, 'cg-kernels'), cls, niter, args.runs)
        price = {m: priced(args, units, m, cls, niter) for m in models}
        print('\nclass %s, %d its, 1 rank: %d of %d runs undisturbed%s; nnz %d (%.2f a row)'
              % (name, niter, kept, args.runs, '' if kept else ' (the medians of all, disturbed)',
                 nnz, nnz / na))
        print('%-11s %6s %11s %7s %9s %14s %7s %14s %7s'
              % ('kernel', 'calls', 'measured s', 'spread', 'ns/elem', 'cpu-clc+units',
                 'error', 'cpu-mem+units', 'error'))
        total = {m: 0.0 for m in ('measured',) + models}
        for k in KERNELS:
            if not per[k] or per[k][0][0] == 0:
                continue
            times = [t for _, t in per[k]]
            med = statistics.median(times)
            calls = per[k][0][0]
            elems = nnz if k == 'spmv' else na
            row = '%-11s %6d %11.6f %6.1f%% %9.3f' % (
                k, calls, med, 100 * (max(times) - min(times)) / med if med else 0,
                med / calls / elems * 1e9)
            total['measured'] += med
            for m in models:
                p = price[m].get(k)
                if p is None:
                    row += ' %14s %7s' % ('-', '-')
                    continue
                total[m] += p
                row += ' %14.6f %+6.1f%%' % (p, 100 * (p - med) / med)
            print(row)
        print('%-11s %6s %11.6f %7s %9s' % ('sum', '', total['measured'], '', '')
              + ''.join(' %14.6f %+6.1f%%' % (total[m], 100 * (total[m] - total['measured'])
                                              / total['measured']) for m in models))
    if args.probe:
        probe(os.path.join(args.bin, 'spmv-probe'))
    print('\nload average after: %s' % open('/proc/loadavg').read().split()[0])


if __name__ == '__main__':
    main()
