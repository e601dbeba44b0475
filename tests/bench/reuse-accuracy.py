#!/usr/bin/env python3
"""The table of tests/bench/reuse-accuracy.sh (run that; it builds what this
needs and passes the paths): NAS CG's time predicted by cpu-mem with a
measured reuse-distance histogram as its memory signature (issue 15.3),
against the measured time, cpu-clc, and cpu-mem with cg.xml's bytes /
working_set / pattern signatures.

The histogram.  ptireuse --region measures the data references of the
accuracy suite's CG (tests/accuracy/programs/cg-real.c), whose marked
region is the whole solve: niter + 1 outer iterations (the warm-up
included), each one conj_grad (init, 26 SpMVs and the vector loops) and
the norms, the same work every time.  By default (--niters 0) one run with
niter = 0: the region is the first outer iteration alone, and its
histogram, scale 1, is every outer iteration's.  What that leaves out: the
warm-up meets the lines makea and the set-up left (not cold: they are in
the LRU stack, but at distances set by the set-up's order), the later
iterations the lines the previous one left.  --niters N divides the
histogram of a run of niter = N by its N + 1 iterations (class S: N = 1
changes the prediction by 0.03%).  The difference of two runs, H(N2) -
H(N1), would be the steady state alone, but the runs are not identical
but for their iterations: class S's niter = 1 has one cold reference and
a few at distance 16K-32K lines fewer than niter = 0 (references outside
the kernel's loops differ), so the difference is not a histogram.
lackey's cost is what decides: class S's first iteration alone took 9
minutes on the shared host.

The workload.  The variant is made from wsl/examples/cg.xml itself, so its
messages and operation counts are cg.xml's by construction: every
bytes / working_set / pattern / stride attribute of its RUDs is removed
(the histogram replaces them all; keeping them would count the memory twice)
and the first <compute> of the RUD `normalize`, which runs once per outer
iteration and rank, takes <reuse file="..." scale="..."/>.  cpu-mem prices
the histogram as one unit-stride stream (models/cpu-mem/README.md): most of
CG's misses are the matrix's streams (a, colidx); the gather p(colidx(k))
misses too once p outgrows L1, and is priced as a stream as well.

The histogram is measured on 1 rank (valgrind lackey runs one process); the
rows with 2 ranks have no histogram column.  The measured times are
accuracy.sh's (--measurements FILE, its JSON), or measured here
(accuracy.py's rounds: the median wall time of --runs undisturbed runs,
the cases interleaved).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import accuracy  # noqa: E402  (the measured cases, ptieval, the native runs)

CLASS_NAMES = {name: cls for cls, (name, _, _, _) in accuracy.CG_CLASSES.items()}
MEMORY_ATTRS = ('bytes', 'working_set', 'pattern', 'stride')


# ---- histograms ----------------------------------------------------------------

def read_hist(path):
    """(line, {distance: count}, cold) of a ptireuse document."""
    root = ET.parse(path).getroot()
    if root.tag != 'reuse':
        raise RuntimeError('%s: root is <%s>, not <reuse>' % (path, root.tag))
    bins = {int(b.get('distance')): int(b.get('count')) for b in root.iter('bin')}
    cold = sum(int(c.get('count')) for c in root.iter('cold'))
    return int(root.get('line')), bins, cold


def measure_hist(args, cls, niter):
    """ptireuse --region on cg-real, kept in --work (reused with --keep)."""
    out = os.path.join(args.work, 'cg-%s-niter%d.xml' % (accuracy.CG_CLASSES[cls][0], niter))
    if args.keep and os.path.exists(out):
        print('# %s: kept' % out, file=sys.stderr)
        return out, read_hist(out)
    cmd = [args.ptireuse, '--region', '-q', '-o', out, '--', args.cg, 'class=%d' % cls,
           'niter=%d' % niter]
    t0 = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError('%s failed (%d):\n%s' % (' '.join(cmd), r.returncode, r.stderr[-4000:]))
    print('# %s: %.0f s under ptireuse' % (' '.join(cmd[6:]), time.monotonic() - t0),
          file=sys.stderr)
    return out, read_hist(out)


def iteration_hist(args, cls):
    """The histogram file of a run of niter = --niters, and the iterations
    its scale divides by."""
    path, (_, bins, cold) = measure_hist(args, cls, args.niters)
    iters = args.niters + 1
    print('# class %s: %d references an outer iteration, %s'
          % (accuracy.CG_CLASSES[cls][0], (sum(bins.values()) + cold) // iters, path),
          file=sys.stderr)
    return path, iters


# ---- the workload variant --------------------------------------------------------

def histogram_workload(cg_xml, hist, iters, out):
    """cg.xml with its RUDs' memory attributes replaced by the histogram
    (one outer iteration's) on normalize's first <compute>."""
    tree = ET.parse(cg_xml)
    root = tree.getroot()
    target = None
    for rud in root.iter('rud'):
        for el in rud.iter():
            for a in MEMORY_ATTRS:
                el.attrib.pop(a, None)
        if rud.get('name') == 'normalize':
            target = rud.find('compute')
    if target is None or len(target):
        raise RuntimeError('%s: no childless <compute> in the RUD normalize' % cg_xml)
    ET.SubElement(target, 'reuse', {'file': os.path.basename(hist),
                                    'scale': '1' if iters == 1 else '1 / %d' % iters})
    root.insert(0, ET.Comment(' Made by tests/bench/reuse-accuracy.py from %s: its memory '
                              'signatures replaced by a measured reuse-distance histogram. '
                              % os.path.basename(cg_xml)))
    tree.write(out, encoding='UTF-8', xml_declaration=True)


# ---- the table ----------------------------------------------------------------------

def measured_rows(args):
    """(class, ranks, median time, defines) of the CG cases."""
    if args.measurements:
        rows = [r for r in json.load(open(args.measurements)) if r[0] == 'cg']
        print('# measured times from %s' % args.measurements, file=sys.stderr)
    else:
        rows = []
        cases = [(c, accuracy.program_job(args, c[0], c[3], c[4]))
                 for c in accuracy.cg_cases(False)]
        accuracy.measure_in_rounds(args, [j for _, j in cases])
        for (prog, size, ws, ranks, params), job in cases:
            times, how = accuracy.program_times(job)
            rows.append((prog, size, ws, ranks, times, how, (None, params)))
            print('# measured cg %s, %d ranks: %s, %s' % (size, ranks, times, how), file=sys.stderr)
    return [(int(r[6][1]['class']), r[3], statistics.median(r[4]), r[6][1]) for r in rows]


def main():
    ap = argparse.ArgumentParser()
    for a in ('root', 'build', 'work', 'system', 'ptireuse', 'cg'):
        ap.add_argument('--' + a, required=True)
    ap.add_argument('--classes', default='S,W', help='classes whose histogram is measured')
    ap.add_argument('--niters', type=int, default=0,
                    help='measure runs of niter = N: one outer iteration is H(N) / (N + 1)')
    ap.add_argument('--measurements', default='')
    ap.add_argument('--runs', type=int, default=5)
    ap.add_argument('--keep', action='store_true', help='reuse the histograms in --work')
    args = ap.parse_args()
    if args.niters < 0:
        ap.error('--niters: a whole number, 0 or more')
    try:
        wanted = [CLASS_NAMES[c] for c in args.classes.split(',')]
    except KeyError as e:
        ap.error('--classes: unknown class %s (known: %s)' % (e, ','.join(CLASS_NAMES)))
    cg_xml = os.path.join(args.root, 'wsl', 'examples', 'cg.xml')

    variants = {}
    for cls in wanted:
        hist, iters = iteration_hist(args, cls)
        out = os.path.join(args.work, 'cg-reuse-%s-workload.xml' % accuracy.CG_CLASSES[cls][0])
        histogram_workload(cg_xml, hist, iters, out)
        variants[cls] = out

    cols = ('cpu-clc', 'cpu-mem pattern', 'cpu-mem histo')
    print('%-5s %5s %11s %11s %8s %11s %8s %11s %8s' % (
        'class', 'ranks', 'measured s', cols[0], 'error', cols[1], 'error', cols[2], 'error'))
    errors = {c: [] for c in cols}
    histo_rows = {c: [] for c in cols}     # the rows with a histogram, every column
    for cls, ranks, measured, params in measured_rows(args):
        defines = dict(params, procs=ranks)
        preds = [accuracy.ptieval(args, args.system, cg_xml, defines, 'cpu-clc'),
                 accuracy.ptieval(args, args.system, cg_xml, defines, 'cpu-mem')]
        # the histogram is one rank's: 2 ranks have half a matrix each
        preds.append(accuracy.ptieval(args, args.system, variants[cls], defines, 'cpu-mem')
                     if cls in variants and ranks == 1 else None)
        line = '%-5s %5d %11.5g' % (accuracy.CG_CLASSES[cls][0], ranks, measured)
        for c, p in zip(cols, preds):
            if p is None:
                line += ' %11s %8s' % ('-', '')
                continue
            err = (p - measured) / measured
            errors[c].append(abs(err))
            if preds[-1] is not None:
                histo_rows[c].append(abs(err))
            line += ' %11.5g %+7.1f%%' % (p, 100 * err)
        print(line)
    for what, errs in (('all rows', errors), ('rows with a histogram', histo_rows)):
        for c in cols:
            if errs[c]:
                print('# %-21s %-16s median |error| %5.1f%%, largest %5.1f%% (%d rows)'
                      % (what, c, 100 * statistics.median(errs[c]), 100 * max(errs[c]),
                         len(errs[c])))


if __name__ == '__main__':
    main()
