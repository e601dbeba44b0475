#!/usr/bin/env python3
"""ptireuse end to end (TAP): goldens from raw streams, misses, error paths,
every output valid against schemas/reuse.xsd (xmllint, independently of
pti's reader), and a real program under valgrind (skipped without it).

    test-cli.py PTIREUSE SWEEP_PROGRAM XMLLINT REUSE_XSD DATA_DIR
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

ptireuse, sweep, xmllint, xsd, data = sys.argv[1:6]
tmp = tempfile.mkdtemp(prefix='pti-reuse-')
results = []


def run(*args, stdin=None, env=None):
    return subprocess.run([ptireuse] + list(args), input=stdin, capture_output=True, text=True,
                          env=env)


def check(name, ok, why=''):
    results.append((name, ok, why))


def expect(name, r, code, stderr_has):
    ok = r.returncode == code and stderr_has in r.stderr
    check(name, ok, 'exit %d (want %d), stderr: %r (want %r)' % (r.returncode, code, r.stderr,
                                                                   stderr_has))


def valid(path):
    r = subprocess.run([xmllint, '--noout', '--schema', xsd, path], capture_output=True,
                       text=True)
    return r.returncode == 0, r.stderr


def read(path):
    with open(path) as f:
        return f.read()


# ---- goldens ----------------------------------------------------------------
out = os.path.join(tmp, 'c.xml')
r = run('-o', out, '--input', os.path.join(data, 'cyclic4.txt'))
check('raw file: exit 0, summary', r.returncode == 0 and
      '12 references, 4 cold; 4 distinct lines' in r.stderr, r.stderr)
check('raw file: golden', r.returncode == 0 and read(out) == read(os.path.join(data, 'cyclic4.xml')))
ok, why = valid(out)
check('raw file: valid against reuse.xsd (xmllint)', ok, why)

r = run('-q', '--line', '128', '-o', '-', '--input', '-', stdin=read(os.path.join(data, 'cyclic4.txt')))
check('stdin, --line 128, -o -: golden', r.returncode == 0 and r.stderr == '' and
      r.stdout == read(os.path.join(data, 'cyclic4-line128.xml')), r.stdout + r.stderr)

r = subprocess.run([ptireuse, 'misses', out, '--cache', '64,128B,192,256,1K'],
                   capture_output=True, text=True)
lines = r.stdout.splitlines(keepends=True)
check('misses: header', r.returncode == 0 and lines[0] == '# %s: 64-byte lines, 12 references, 4 cold\n' % out,
      r.stdout + r.stderr)
check('misses: golden (cold, all, interpolated inside [2,4), cold only)',
      ''.join(lines[1:]) == read(os.path.join(data, 'cyclic4-misses.txt')), r.stdout)

# ---- error paths --------------------------------------------------------------
bad = os.path.join(data, 'bad-line.txt')
expect('bad input line: exit 3, file and line', run('-o', os.path.join(tmp, 'x.xml'), '--input', bad),
       3, "%s:3: not a hexadecimal address: '0x10z0'" % bad)
check('bad input line: no output written', not os.path.exists(os.path.join(tmp, 'x.xml')))
expect('unknown option: exit 2', run('--bogus', '-o', out, '--input', bad), 2, 'Unknown option --bogus')
expect('no -o: exit 2', run('--input', bad), 2, '-o HIST.xml is required')
expect('--line 48: exit 2', run('--line', '48', '-o', out, '--input', bad), 2,
       '--line 48: must be a power of two')
expect('--format bogus: exit 2', run('--format', 'bogus', '-o', out, '--input', bad), 2,
       '--format bogus: must be raw or lackey')
expect('no program and no input: exit 2', run('-o', out), 2, 'no program to run')
expect('--input and a program: exit 2', run('-o', out, '--input', bad, '--', 'true'), 2,
       'give either --input or a program')
expect('--region on a raw stream: exit 2', run('--region', '-o', out, '--input', bad), 2,
       '--region needs the lackey format')
expect('--region without markers: exit 3',
       run('--region', '--format', 'lackey', '-o', out, '--input', '-', stdin=' L 1000,8\n'), 3,
       'no ptireuse-start marker in the trace')
expect('missing input file: exit 1', run('-o', out, '--input', os.path.join(tmp, 'none.txt')), 1,
       'none.txt: No such file or directory')
expect('program not found: exit 1', run('-o', out, '--', 'no-such-program-for-ptireuse'), 1,
       'no-such-program-for-ptireuse: program not found in PATH')
expect('valgrind missing: exit 1, says how to get it',
       run('--valgrind', 'no-such-valgrind-for-ptireuse', '-o', out, '--', 'true'), 1,
       "valgrind not found as 'no-such-valgrind-for-ptireuse' (Debian: apt-get install valgrind")
expect('misses: no --cache: exit 2', subprocess.run([ptireuse, 'misses', out], capture_output=True,
       text=True), 2, 'misses needs --cache')
expect('misses: bad size: exit 2', subprocess.run([ptireuse, 'misses', out, '--cache', '32Q'],
       capture_output=True, text=True), 2, "--cache: '32Q' is not a size")
expect('misses: cache below a line: exit 2', subprocess.run([ptireuse, 'misses', out, '--cache', '32'],
       capture_output=True, text=True), 2, '--cache: 32 is smaller than one 64-byte line')
badxml = os.path.join(tmp, 'bad.xml')
with open(badxml, 'w') as f:
    f.write('<?xml version="1.0"?>\n<reuse line="64" references="5">\n'
            '  <bin distance="1" count="1"/>\n  <cold count="1"/>\n</reuse>\n')
expect('misses: counts not summing: exit 3, file and line',
       subprocess.run([ptireuse, 'misses', badxml, '--cache', '1K'], capture_output=True, text=True),
       3, '%s:2: <reuse>: references="5" but the bins and cold count 2' % badxml)

# ---- a real program under valgrind ---------------------------------------------
valgrind = shutil.which('valgrind')
if valgrind is None:
    results.append(('real program under valgrind', None, 'valgrind not installed (Debian: valgrind)'))
else:
    vout = os.path.join(tmp, 'sweep.xml')
    r = run('--region', '-o', vout, '--', sweep, '3072', '3')
    ok = r.returncode == 0
    check('sweep under valgrind --region: exit 0, program output kept', ok and
          'sum' in r.stdout and '1 regions' in r.stderr, r.stdout + r.stderr)
    if ok:
        v, why = valid(vout)
        check('sweep: valid against reuse.xsd (xmllint)', v, why)
        text = read(vout)
        bins = {int(d): int(c) for d, c in re.findall(r'<bin distance="(\d+)" count="(\d+)"/>', text)}
        cold = int(re.search(r'<cold count="(\d+)"/>', text).group(1))
        total = int(re.search(r'references="(\d+)"', text).group(1))
        # 384 lines, 3 sweeps: 1152 references at distance 383 (bin
        # [256, 512)), 3 x 384 x 7 = 8064 at distance 0; the markers' few
        # others.
        at383, at0 = bins.get(512, 0), bins.get(1, 0)
        check('sweep: 1152 references in the bin of distance 383, up to 8 more',
              1152 <= at383 <= 1152 + 8, text)
        check('sweep: 8064 references at distance 0, up to 32 more', 8064 <= at0 <= 8064 + 32,
              text)
        check('sweep: at most 48 references besides (the markers\' own)',
              total - at383 - at0 <= 48 and cold <= 16, text)
        r = subprocess.run([ptireuse, 'misses', vout, '--cache', '16K,32K,64K'], capture_output=True,
                           text=True)
        m = [float(l.split('\t')[2]) for l in r.stdout.splitlines()[2:]]
        # 16 KiB = 256 lines: every first reference of a line in a sweep
        # misses; 32 KiB = 512 lines holds the array: the cold ones and a
        # few of the markers' (stack lines last used before the sweep that
        # initialised the array).
        check('sweep: misses at 16K >= 1152, at 32K and 64K up to 8 more than cold', len(m) == 3 and
              m[0] >= 1152 and cold <= m[1] <= cold + 8 and cold <= m[2] <= cold + 8, r.stdout)
    rf = run('-o', os.path.join(tmp, 'f.xml'), '--', 'false')
    expect('program failing under valgrind: exit 1, says so', rf, 1,
           'false under valgrind exited with status 1: no histogram written')

shutil.rmtree(tmp)
print('1..%d' % len(results))
failed = 0
for i, (name, ok, why) in enumerate(results, 1):
    if ok is None:
        print('ok %d %s # SKIP %s' % (i, name, why))
    elif ok:
        print('ok %d %s' % (i, name))
    else:
        failed += 1
        print('not ok %d %s' % (i, name))
        for line in str(why).splitlines()[:20]:
            print('#   ' + line)
sys.exit(1 if failed else 0)
