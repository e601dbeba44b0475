#!/usr/bin/env python3
"""The tables of tests/bench/reuse.sh (run that; it builds what this needs
and passes the paths).

1. The histogram's cost alone, from raw address streams (ptireuse --input):
   CPU time per reference, and callgrind's instruction count per reference,
   of the whole run (reading and parsing included) and of the histogram
   (pti_reuse_access, inclusive).
2. The whole tool's cost on a real kernel: the program's native run against
   ptireuse (valgrind lackey, the trace piped and histogrammed) and against
   callgrind's cache simulation, CPU time of the processes.
3. Predicted misses (ptireuse --region, then ptireuse misses) against
   callgrind's simulated D1 misses in the same marked region
   (--collect-atstart=no; the markers toggle collection; the simulated
   cache stays warm outside the region, as ptireuse's LRU stack does), one
   callgrind run per cache size with D1 set to it, 64-way, 64-byte lines.
"""
import argparse
import os
import re
import resource
import subprocess
import sys
import time

ASSOC = 64


def run(cmd, **kw):
    """Run, return (stdout, stderr, cpu seconds of the children, wall)."""
    r0, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    r1, t1 = resource.getrusage(resource.RUSAGE_CHILDREN), time.monotonic()
    if r.returncode != 0:
        raise RuntimeError('%s failed (%d):\n%s%s' % (' '.join(cmd), r.returncode, r.stdout[-2000:],
                                                      r.stderr[-4000:]))
    cpu = r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime
    return r.stdout, r.stderr, cpu, t1 - t0


def callgrind_events(path):
    """The summary line of a callgrind output file, by event name."""
    events = summary = None
    with open(path) as f:
        for line in f:
            if line.startswith('events:'):
                events = line.split()[1:]
            elif line.startswith('summary:'):
                summary = [int(x) for x in line.split()[1:]]
    if events is None or summary is None:
        raise RuntimeError('%s: no events or summary line' % path)
    return dict(zip(events, summary + [0] * (len(events) - len(summary))))


def human(b):
    for unit, size in (('GiB', 1 << 30), ('MiB', 1 << 20), ('KiB', 1 << 10)):
        if b >= size and b % size == 0:
            return '%d%s' % (b // size, unit)
        if b >= size:
            return '%.3g%s' % (b / size, unit)
    return '%dB' % b


# ---- 1. the histogram alone -----------------------------------------------

def histogram_cost(args):
    refs = 1000000 if args.quick else 4000000
    streams = [('cyclic', 1000), ('cyclic', 1000000), ('random', 65536), ('random', 4000000)]
    print('## 1. Histogram cost alone: ptireuse --input on raw streams of %d references' % refs)
    print('#    cpu: ptireuse\'s CPU time (parse + histogram) per reference;')
    print('#    Ir: callgrind instructions per reference, whole run / pti_reuse_access inclusive')
    print('#    (lines: the range drawn from; footprint: the distinct lines it touched, 64 B each)')
    print('%-8s %9s %10s %10s %10s %12s' % ('stream', 'lines', 'cpu ns/ref', 'Ir/ref', 'hist Ir/ref',
                                           'footprint'))
    for kind, lines in streams:
        path = os.path.join(args.work, 'stream-%s-%d.txt' % (kind, lines))
        if not os.path.exists(path):
            with open(path + '.tmp', 'w') as f:
                subprocess.run([args.gen, kind, str(lines), str(refs)], stdout=f, check=True)
            os.rename(path + '.tmp', path)
        cmd = [args.ptireuse, '-o', os.devnull, '--input', path]
        cpus = []
        for _ in range(3):
            _, err, cpu, _ = run(cmd)
            cpus.append(cpu)
        cpu = min(cpus)
        distinct = int(re.search(r'(\d+) distinct lines', err).group(1))
        out = os.path.join(args.work, 'callgrind.hist.out')
        run(['valgrind', '--tool=callgrind', '--callgrind-out-file=' + out] + cmd)
        total = callgrind_events(out)['Ir']
        ann, _, _, _ = run(['callgrind_annotate', '--inclusive=yes', out])
        m = re.search(r'^\s*([\d,]+)\s.*\bpti_reuse_access\b', ann, re.M)
        hist = int(m.group(1).replace(',', '')) if m else float('nan')
        print('%-8s %9d %10.1f %10.1f %10.1f %12s' % (kind, lines, 1e9 * cpu / refs, total / refs,
                                                   hist / refs, human(distinct * 64)))
    print()


# ---- kernels ------------------------------------------------------------------

def kernels(args):
    """(name, size label, argv) of each real kernel, in-cache to past the last cache."""
    ks = []
    if 'triad' in args.only:
        for n in ((2048, 65536, 1 << 20) if args.quick else (2048, 16384, 131072, 1 << 20)):
            ks.append(('triad', '3x%s' % human(8 * n), [args.triad, str(n), '2']))
    if 'cg' in args.only and args.cg:
        for cls in ((1,) if args.quick else (1, 2)):
            ks.append(('cg', 'class %s, 1 it' % 'SW'[cls - 1], [args.cg, 'class=%d' % cls, 'niter=1']))
    if 'sweep3d' in args.only and args.sweep3d:
        for n in ((8,) if args.quick else (8, 16)):
            ks.append(('sweep3d', '%d^3, 1 it' % n,
                       [args.sweep3d, 'npe_i=1', 'npe_j=1', 'it=%d' % n, 'jt=%d' % n, 'kt=%d' % n,
                        'mk=%d' % min(10, n), 'mm=6', 'mmi=3', 'iterations=1']))
    return ks


CACHES_QUICK = (32 << 10, 1 << 20, 16 << 20)
CACHES = (32 << 10, 256 << 10, 2 << 20, 16 << 20)


def callgrind_misses(args, argv, cache, tag):
    out = os.path.join(args.work, 'callgrind.%s.%d.out' % (tag, cache))
    run(['valgrind', '--tool=callgrind', '--collect-atstart=no', '--cache-sim=yes',
         '--D1=%d,%d,64' % (cache, ASSOC), '--I1=32768,8,64', '--LL=%d,16,64' % (64 << 20),
         '--callgrind-out-file=' + out] + argv)
    e = callgrind_events(out)
    return e.get('D1mr', 0) + e.get('D1mw', 0), e.get('Dr', 0) + e.get('Dw', 0)


def slowdown(args, ks):
    print('## 2. Whole-tool cost: CPU time of the kernel\'s program natively, under ptireuse')
    print('#    (valgrind lackey piped into the histogram) and under callgrind --cache-sim=yes')
    print('%-8s %-16s %10s %10s %9s %10s %9s' % ('kernel', 'size', 'native s', 'ptireuse s', 'x',
                                                 'callgrind s', 'x'))
    rows = []
    for name, size, argv in ks:
        hist = os.path.join(args.work, 'hist.%s.%s.xml' % (name, re.sub(r'\W+', '_', size)))
        native = min(run(argv)[2] for _ in range(3))
        _, err, tool, _ = run([args.ptireuse, '--region', '-o', hist, '--'] + argv)
        _, _, cg, _ = run(['valgrind', '--tool=callgrind', '--collect-atstart=no', '--cache-sim=yes',
                           '--callgrind-out-file=' + os.path.join(args.work, 'callgrind.time.%s.out' % name)]
                          + argv)
        print('%-8s %-16s %10.3f %10.2f %9.0f %10.2f %9.0f' % (name, size, native, tool,
                                                             tool / native, cg, cg / native))
        rows.append((name, size, argv, hist, err.strip().splitlines()[-1]))
    print()
    return rows


def misses_table(args, rows):
    caches = CACHES_QUICK if args.quick else CACHES
    print('## 3. Predicted misses (fully-associative LRU, from the histogram) against callgrind\'s')
    print('#    simulated D1 misses (%d-way LRU, 64-byte lines) in the same marked region' % ASSOC)
    print('%-8s %-16s %8s %12s %12s %12s %8s' % ('kernel', 'size', 'cache', 'references',
                                                  'predicted', 'callgrind', 'error'))
    errors = []
    for name, size, argv, hist, summary in rows:
        out, _, _, _ = run([args.ptireuse, 'misses', hist, '--cache',
                            ','.join(str(c) for c in caches)])
        refs = int(re.search(r'(\d+) references', out).group(1))
        predicted = [float(l.split('\t')[2]) for l in out.splitlines()[2:]]
        for cache, pred in zip(caches, predicted):
            cgm, cgrefs = callgrind_misses(args, argv, cache, name)
            err = (pred - cgm) / cgm if cgm else float('nan')
            if cgm:
                errors.append(abs(err))
            shown = '%+7.1f%%' % (100 * err) if cgm else ('  exact' if pred == 0 else '      -')
            print('%-8s %-16s %8s %12d %12.0f %12d %8s' % (name, size, human(cache), refs, pred, cgm,
                                                        shown))
        print('#   %s %s: %s' % (name, size, summary))
    if errors:
        errors.sort()
        print('# |error| median %.1f%%, largest %.1f%% (rows with callgrind misses > 0)' % (
            100 * errors[len(errors) // 2], 100 * errors[-1]))


def cachegrind_whole(args):
    """Table 4: a whole run (no region) against cachegrind, read through
    cg_annotate: cachegrind 3.19 cannot restrict itself to a region (its
    client requests came with 3.22), so the comparison is the whole
    program, the loader and libc included."""
    caches = CACHES_QUICK if args.quick else CACHES
    n = 65536
    argv = [args.triad, str(n), '2']
    hist = os.path.join(args.work, 'hist.triad-whole.xml')
    run([args.ptireuse, '-q', '-o', hist, '--'] + argv)
    out, _, _, _ = run([args.ptireuse, 'misses', hist, '--cache', ','.join(str(c) for c in caches)])
    refs = int(re.search(r'(\d+) references', out).group(1))
    predicted = [float(l.split('\t')[2]) for l in out.splitlines()[2:]]
    print('## 4. Whole run (no region) against cachegrind\'s D1 misses (cg_annotate), %d-way' % ASSOC)
    print('%-8s %-16s %8s %12s %12s %12s %8s' % ('kernel', 'size', 'cache', 'references',
                                                  'predicted', 'cachegrind', 'error'))
    for cache, pred in zip(caches, predicted):
        cgout = os.path.join(args.work, 'cachegrind.%d.out' % cache)
        run(['valgrind', '--tool=cachegrind', '--D1=%d,%d,64' % (cache, ASSOC), '--I1=32768,8,64',
             '--LL=%d,16,64' % (64 << 20), '--cachegrind-out-file=' + cgout] + argv)
        ann, _, _, _ = run(['cg_annotate', cgout])
        # the PROGRAM TOTALS line, in the order of its "Events shown" line
        ev = re.search(r'^Events shown:\s+(.*)$', ann, re.M).group(1).split()
        line = re.search(r'^(.*)PROGRAM TOTALS', ann, re.M).group(1)
        tot = re.sub(r'\([^)]*\)', ' ', line).split()      # counts, without the percentages
        e = dict(zip(ev, (int(x.replace(',', '')) for x in tot)))
        cgm = e['D1mr'] + e['D1mw']
        err = (pred - cgm) / cgm if cgm else float('nan')
        print('%-8s %-16s %8s %12d %12.0f %12d %+7.1f%%' % ('triad', '3x%s whole' % human(8 * n),
                                                         human(cache), refs, pred, cgm, 100 * err))
    print('#   data references: ptireuse %d (lines touched), cachegrind %d (Dr + Dw)' % (
        refs, e['Dr'] + e['Dw']))
    print()


def main():
    ap = argparse.ArgumentParser()
    for a in ('ptireuse', 'gen', 'triad', 'cg', 'sweep3d', 'work'):
        ap.add_argument('--' + a, default='')
    ap.add_argument('--quick', action='store_true')
    ap.add_argument('--only', default='hist,cachegrind,triad,cg,sweep3d')
    args = ap.parse_args()
    args.only = args.only.split(',')
    with open('/proc/loadavg') as f:
        load = f.read().split()[:3]
    print('# reuse.sh: load average %s on %d CPUs: CPU times are noisy under load (other' % (
        ' '.join(load), os.cpu_count()))
    print('# processes evict the caches and take the CPU); callgrind counts are not.')
    print()
    if 'hist' in args.only:
        histogram_cost(args)
    if 'cachegrind' in args.only:
        cachegrind_whole(args)
    ks = kernels(args)
    if ks:
        rows = slowdown(args, ks)
        misses_table(args, rows)


if __name__ == '__main__':
    sys.exit(main())
