#!/usr/bin/env python3
"""`pticalibrate --quick` writes files that validate, load in pti and mean
what they say (suite calibrate).

usage: check-quick.py PTICALIBRATE PTIEVAL SOURCE_ROOT

One quick calibration of this host (about half a minute; its figures are
not checked, only what was written), then, as TAP:

  * it finishes with status 0 within the minute --quick promises (a loaded
    CI host gets twice that);
  * the system file follows schemas/hmc.xsd and its model elements their
    models' schemas, with xmllint; the memory profile follows
    models/cpu-mem/cpu-mem.xsd;
  * every cpu-clc operation code has a cost, a non-negative decimal, and
    every number of the files has a comment before it saying how it was
    measured;
  * pti loads it and uses its numbers: a loop of n multiply-adds predicts
    exactly n (LFOR + CMLL + INLL + MFDL + AFDL), f flops and a burst
    measured as t s exactly f / flop_rate + t (speed_ratio 1; the rate
    from the host's BLAS, its check skipped without one), and an 8-byte message
    between the node's two CPUs exactly o_s + L + 8/B + o_r, read back from
    the file (closed forms, tests/calibrate/data);
  * the memory profile covers 4 KiB to 64 MiB for unit, strided, random,
    runs and write access, its points in increasing order, a runs pattern
    says its run and its streams, and the write pattern's points (a store
    stream) have no latency where every other point has one.

Without mpicc the MPI part is skipped by pticalibrate; the checks that need
it are then skipped here, saying so.
"""
import os
import re
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

results = []


def check(name, ok, detail=''):
    results.append((name, bool(ok), detail))


def skip(name, why):
    results.append((name, None, why))


def xmllint(schema, doc):
    r = subprocess.run(['xmllint', '--noout', '--schema', schema, doc], capture_output=True,
                       text=True)
    return r.returncode == 0, r.stderr.strip()[-400:]


def element_file(root, tag, path):
    el = root.find('.//' + tag)
    if el is None:
        return False
    ET.ElementTree(el).write(path, encoding='unicode')
    return True


def preceded_by_comments(text, tags):
    """Every element of @tags in @text comes right after a comment."""
    missing = []
    for m in re.finditer(r'<(%s)\b' % '|'.join(tags), text):
        before = text[:m.start()].rstrip()
        if not before.endswith('-->'):
            missing.append(m.group(1))
    return missing


def predicted(ptieval, system, workload, *defines, options=()):
    args = [ptieval, *options, system, workload, '--json']
    for d in defines:
        args += ['-D', d]
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        return None, r.stderr.strip()
    m = re.search(r'"predicted_time_s": ([0-9.eE+-]+)', r.stdout)
    return float(m.group(1)), ''


def seconds(el):
    unit = el.get('unit')
    scale = {'s': 1, 'ms': 1e-3, 'us': 1e-6, 'ns': 1e-9, 'ps': 1e-12}[unit]
    return float(el.text) * scale


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    cal, ptieval, src = sys.argv[1:4]
    schemas = os.path.join(src, 'schemas')
    models = os.path.join(src, 'models')
    with tempfile.TemporaryDirectory() as tmp:
        system = os.path.join(tmp, 'host.xml')
        profile = os.path.join(tmp, 'host.memory.xml')
        t0 = time.monotonic()
        r = subprocess.run([cal, '--quick', '-o', system], capture_output=True, text=True)
        took = time.monotonic() - t0
        check('pticalibrate --quick exits 0 (took %.0f s)' % took, r.returncode == 0,
              r.stderr[-2000:])
        if r.returncode != 0:
            return report()
        # A minute on a quiet host (tests/bench/calibrate-repeat.sh --quick
        # prints each run's time); here only a guard against a run that
        # never settles, wide enough for a sanitizer build on a loaded host.
        check('--quick finishes within 280 s', took < 280)
        mpi = 'skipped the MPI' not in r.stderr
        check('both files are there', os.path.exists(system) and os.path.exists(profile))
        print('# ' + '\n# '.join(r.stderr.strip().splitlines()[-4:]))

        ok, err = xmllint(os.path.join(schemas, 'hmc.xsd'), system)
        check('the system file follows hmc.xsd (xmllint)', ok, err)
        text = open(system, encoding='utf-8').read()
        root = ET.fromstring(text)
        el = os.path.join(tmp, 'el.xml')
        ok = element_file(root, 'cpu_clc', el)
        ok2, err = xmllint(os.path.join(models, 'cpu-clc', 'cpu-clc.xsd'), el) if ok else (0, '')
        check('<cpu_clc> follows cpu-clc.xsd (xmllint)', ok and ok2, err)
        if mpi:
            ok = element_file(root, 'net_node', el)
            ok2, err = xmllint(os.path.join(models, 'net-node', 'net-node.xsd'), el) \
                if ok else (0, 'no <net_node>')
            check('<net_node> follows net-node.xsd (xmllint)', ok and ok2, err)
        else:
            skip('<net_node> follows net-node.xsd', 'no MPI on this host')
        ok, err = xmllint(os.path.join(models, 'cpu-mem', 'cpu-mem.xsd'), profile)
        check('the memory profile follows cpu-mem.xsd (xmllint)', ok, err)

        codes = subprocess.run([sys.executable, os.path.join(src, 'calibrate', 'gen-clc-bench.py'),
                                '--list', os.path.join(models, 'cpu-clc', 'cpu-clc.c')],
                               capture_output=True, text=True, check=True).stdout
        codes = [line.split('\t')[0] for line in codes.splitlines()]
        clc = root.find('.//cpu_clc')
        rates = ('speed_ratio', 'flop_rate')
        got = [c.tag for c in clc if c.tag not in rates]
        bad = [c.tag for c in clc if not re.fullmatch(r'[0-9]+(\.[0-9]+)?', c.text or '')]
        check('every cpu-clc code (%d) has one cost' % len(codes),
              sorted(got) == sorted(codes), 'missing %s, extra %s'
              % (sorted(set(codes) - set(got)), sorted(set(got) - set(codes))))
        check('every cost is a non-negative decimal', not bad, 'not: %s' % bad)
        # a size piece's comment comes before the piece, which holds its two figures
        pieceless = re.sub(r'(<piece\b[^>]*>).*?</piece>', r'\1', text)
        missing = preceded_by_comments(pieceless, codes + list(rates) + ['latency', 'bandwidth', 'send_overhead',
                                                           'recv_overhead', 'eager_limit', 'piece'])
        check('every figure of the system file has a comment before it', not missing,
              'no comment before %s' % missing[:10])
        ptext = open(profile, encoding='utf-8').read()
        missing = preceded_by_comments(ptext, ['point'])
        check('every point of the memory profile has a comment before it', not missing,
              '%d points without' % len(missing))
        check('the system file names no source or build directory',
              src not in text and os.path.dirname(os.path.abspath(cal)) not in text)

        cost = {c.tag: float(c.text) * 1e-9 for c in clc if c.tag not in rates}
        # The rates: speed_ratio 1 (this host's own captures), flop_rate in
        # GFlop/s from the host's BLAS (absent, with a warning, without one).
        sr, fr = clc.find('speed_ratio'), clc.find('flop_rate')
        check('<speed_ratio> is 1', sr is not None and float(sr.text) == 1.0,
              ET.tostring(sr).decode() if sr is not None else 'no <speed_ratio>')
        if 'no floating-point rate' in r.stderr:
            skip('<flop_rate> in GFlop/s, a positive decimal', 'no BLAS on this host')
            check('without a BLAS there is no <flop_rate>', fr is None)
        else:
            check('<flop_rate> in GFlop/s, a positive decimal',
                  fr is not None and fr.get('unit') == 'GFlop/s'
                  and re.fullmatch(r'[0-9]+(\.[0-9]+)?', fr.text or '') and float(fr.text) > 0,
                  ET.tostring(fr).decode() if fr is not None else 'no <flop_rate>')
            rate = float(fr.text) * 1e9 if fr is not None else float('nan')
            f, t = 3e9, 0.25
            want = f / rate + t
            for opts, name in (((), 'cpu-clc'), (('--use-model', 'host=cpu-mem'), 'cpu-mem')):
                got, err = predicted(ptieval, system, os.path.join(
                    src, 'tests', 'calibrate', 'data', 'rates.xml'), 'f=%g' % f, 't=%g' % t,
                    options=opts)
                check('%s prices f flops and a t-second burst at f / flop_rate + t / 1' % name,
                      got is not None and abs(got - want) <= 1e-9 * want,
                      'predicted %s, closed form %s %s' % (got, want, err))
        n = 1000000
        want = n * (cost['LFOR'] + cost['CMLL'] + cost['INLL'] + cost['MFDL'] + cost['AFDL'])
        got, err = predicted(ptieval, system, os.path.join(src, 'tests', 'calibrate', 'data',
                                                           'compute.xml'), 'n=%d' % n)
        check('pti prices n multiply-adds at n (LFOR + CMLL + INLL + MFDL + AFDL) of the file',
              got is not None and abs(got - want) <= 1e-9 * want,
              'predicted %s, closed form %s %s' % (got, want, err))
        # The latencies, as data, on the codes whose kernel chains a result
        # (gen-clc-bench.py's kinds binop, inc, arf); overlap="units" added
        # to the file prices the loop's carried add with it.
        kinds = {line.split('\t')[0]: line.split('\t')[1]
                 for line in subprocess.run(
                     [sys.executable, os.path.join(src, 'calibrate', 'gen-clc-bench.py'), '--list',
                      os.path.join(models, 'cpu-clc', 'cpu-clc.c')],
                     capture_output=True, text=True, check=True).stdout.splitlines()}
        chained = sorted(c for c, k in kinds.items() if k in ('binop', 'inc', 'arf'))
        with_lat = sorted(c.tag for c in clc if c.get('latency') is not None)
        bad = [c.tag for c in clc if c.get('latency') is not None
               and not re.fullmatch(r'[0-9]+(\.[0-9]+)?', c.get('latency'))]
        check('a latency on every code whose kernel chains a result (%d), only there'
              % len(chained), with_lat == chained and not bad,
              'missing %s, extra %s, not decimals %s' % (sorted(set(chained) - set(with_lat)),
                                                        sorted(set(with_lat) - set(chained)), bad))
        # The window (the restarted-chain probe): a positive decimal on
        # <cpu_clc>, the comment before it giving the rows and the line.
        window = clc.get('window')
        check('<cpu_clc window> is a positive decimal, its measurement in the comment before',
              window is not None and re.fullmatch(r'[0-9]+(\.[0-9]+)?', window) is not None
              and float(window) > 0
              and re.search(r'Window \(the operations in flight.*?-->\s*<cpu_clc unit="ns" '
                            r'window="%s">' % re.escape(window or ''), text, re.S) is not None,
              'window %r' % window)
        units = os.path.join(tmp, 'units.xml')       # beside host.memory.xml, which it names
        with open(units, 'w', encoding='utf-8') as f:
            f.write(text.replace('<cpu_clc unit="ns"', '<cpu_clc unit="ns" overlap="units"'))
        afdl_lat = float(clc.find('AFDL').get('latency') or 'nan') * 1e-9
        want = n * max(cost['LFOR'], cost['CMLL'] + cost['INLL'], cost['MFDL'], cost['AFDL'],
                       afdl_lat)
        got, err = predicted(ptieval, units, os.path.join(src, 'tests', 'calibrate', 'data',
                                                          'compute.xml'), 'n=%d' % n)
        check('overlap="units": n * max(LFOR, CMLL + INLL, MFDL, AFDL, AFDL\'s latency)',
              got is not None and abs(got - want) <= 1e-9 * want,
              'predicted %s, closed form %s %s' % (got, want, err))
        # The system names its memory profile for cpu-mem, which loads it:
        # without a memory signature it prices as cpu-clc does.
        cm = root.find('.//cpu_mem')
        caches = [int(c.get('bytes')) for c in cm.findall('cache')] if cm is not None else []
        check('<cpu_mem profile="host.memory.xml"> names the profile, caches ascending',
              cm is not None and cm.get('profile') == 'host.memory.xml'
              and caches == sorted(caches) and len(set(caches)) == len(caches),
              ET.tostring(cm).decode() if cm is not None else 'no <cpu_mem>')
        want = n * (cost['LFOR'] + cost['CMLL'] + cost['INLL'] + cost['MFDL'] + cost['AFDL'])
        got, err = predicted(ptieval, system, os.path.join(src, 'tests', 'calibrate', 'data',
                                                           'compute.xml'), 'n=%d' % n,
                             options=('--use-model', 'host=cpu-mem'))
        check('cpu-mem on the written profile prices the same n multiply-adds (no signature)',
              got is not None and abs(got - want) <= 1e-9 * want,
              'predicted %s, closed form %s %s' % (got, want, err))
        if mpi:
            ns = root.find('.//net_node')
            shares = [float(s.text) for s in ns.iter('share')]
            check('every share of the node is in (0, 1]', shares and all(0 < s <= 1 for s in shares),
                  shares)
            L, B = seconds(ns.find('latency')), float(ns.find('bandwidth').text) * 1e6
            # the first size piece that holds 8 bytes, if any, prices it
            ups = [int(p.get('up_to')) for p in ns.findall('piece')]
            check('size pieces go by increasing up_to', ups == sorted(set(ups)), ups)
            for p in ns.findall('piece'):
                if int(p.get('up_to')) >= 8:
                    L, B = seconds(p.find('latency')), float(p.find('bandwidth').text) * 1e6
                    break
            os_, or_ = seconds(ns.find('send_overhead')), seconds(ns.find('recv_overhead'))
            eager = int(ns.find('eager_limit').text)
            want = os_ + L + 8 / B + or_ if 8 <= eager else os_ + 3 * L + 8 / B + or_
            got, err = predicted(ptieval, system, os.path.join(src, 'tests', 'calibrate', 'data',
                                                               'message.xml'))
            check('pti prices an 8-byte message between the two CPUs at o_s + L + 8/B + o_r',
                  got is not None and abs(got - want) <= 1e-6 * want,
                  'predicted %s, closed form %s %s' % (got, want, err))
            # a piece of the fit cut by share: its runs keep its L and B, and
            # neighbours of the same L and B differ in share (equal ones are one)
            keyed = [(p.find('latency').text, p.find('bandwidth').text, p.find('share').text
                      if p.find('share') is not None else None) for p in ns.findall('piece')]
            same = [(a, b) for a, b in zip(keyed, keyed[1:]) if a[:2] == b[:2]]
            check('pieces cut by share: neighbours with the same L and B have different shares',
                  all(a[2] != b[2] and a[2] is not None for a, b in same), keyed)
            for what, kids in (('comm_free', ('first', 'later')),
                               ('first_collective', ('first', 'other'))):
                el = root.find('./mpi/' + what)
                v = [seconds(el.find(k)) for k in kids] if el is not None else []
                check('<mpi><%s> has its two times (>= 0)' % what,
                      len(v) == 2 and all(x >= 0 for x in v), v)
            cc = root.find('./mpi/comm_create')
            vals = [seconds(cc.find(k)) for k in ('first', 'first_topology', 'later')] \
                if cc is not None else []
            check('<mpi><comm_create> has its three set-up times (>= 0), after a comment, '
                  'the firsts above the later ones',
                  len(vals) == 3 and all(v >= 0 for v in vals) and min(vals[:2]) >= vals[2]
                  and re.search(r'-->\s*<mpi>', text) is not None, vals)
        else:
            skip('an 8-byte message between the two CPUs', 'no MPI on this host')

        proot = ET.parse(profile).getroot()
        prof = proot.find('profile')
        names = []
        ordered = True
        span = True
        for pat in prof.findall('pattern'):
            names.append(pat.get('name'))
            b = [int(p.get('bytes')) for p in pat.findall('point')]
            ordered = ordered and b == sorted(b) and len(set(b)) == len(b)
            span = span and b[0] <= 65536 and b[-1] >= 64 << 20
        check('the profile has unit, strided, random, runs, transpose and write patterns',
              {'unit', 'strided', 'random', 'runs', 'transpose', 'write'} <= set(names), names)
        lat = [(pat.get('name'), p.get('latency') is not None)
               for pat in prof.findall('pattern') for p in pat.findall('point')]
        bare = ('write', 'transpose')
        check('the write and transpose points have no latency, the others have one',
              all(has != (name in bare) for name, has in lat),
              [x for x in lat if x[1] == (x[0] in bare)][:4])
        tps = [p.get('run') for p in prof.findall('pattern') if p.get('name') == 'transpose']
        check('a transpose pattern gives its run (512 with --quick)', tps == ['512'], tps)
        runs = [p for p in prof.findall('pattern') if p.get('name') == 'runs']
        check('a runs pattern gives its run (512 with --quick) and its streams',
              [(p.get('run'), p.get('streams')) for p in runs] == [('512', '64')],
              [(p.get('run'), p.get('streams')) for p in runs])
        check('each pattern goes by increasing working set, to 64 MiB', ordered and span)
    return report()


def report():
    print('1..%d' % len(results))
    failed = 0
    for i, (name, ok, detail) in enumerate(results, 1):
        if ok is None:
            print('ok %d - %s # SKIP %s' % (i, name, detail))
        elif ok:
            print('ok %d - %s' % (i, name))
        else:
            failed += 1
            print('not ok %d - %s' % (i, name))
            for line in str(detail).splitlines():
                print('#   ' + line)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
