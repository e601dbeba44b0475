#!/usr/bin/env python3
"""pticalibrate's mistakes and missing tools: a clear message, the right
exit status, and nothing measured in vain (suite calibrate).

usage: check-errors.py PTICALIBRATE PTIEVAL SOURCE_ROOT

Each case runs pticalibrate as a user would and checks the exit status
(2 usage, 1 failure, 0 written), what standard error says, and that an
output that cannot be written is refused at once, before any measuring.
The cases that reach a measurement leave out the slow parts (--skip), so
the whole takes seconds.
"""
import os
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

results = []


def run(cal, *args, env=None):
    t0 = time.monotonic()
    r = subprocess.run([cal, '--no-progress'] + list(args), capture_output=True, text=True,
                       env=env)
    return r.returncode, r.stderr, time.monotonic() - t0


def case(name, got, status, *needles, within=None):
    rc, err, took = got
    problems = []
    if rc != status:
        problems.append('exit status %d, expected %d' % (rc, status))
    for n in needles:
        if n not in err:
            problems.append('stderr lacks %r' % n)
    if within is not None and took > within:
        problems.append('took %.1f s, more than %g' % (took, within))
    results.append((name, not problems, problems + ['stderr: ' + err.strip()[:600]]))


def cwd_of(pid):
    try:
        return os.readlink('/proc/%s/cwd' % pid)
    except OSError:
        return ''


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    cal, ptieval, src = sys.argv[1:4]
    with tempfile.TemporaryDirectory() as tmp:
        afile = os.path.join(tmp, 'a-file')
        open(afile, 'w').close()
        bad = os.path.join(afile, 'host.xml')    # a path through a regular file

        case('an output that cannot be written: exit 1 at once, naming it',
             run(cal, '-o', bad), 1, 'cannot write ' + bad, within=5)
        case('a memory profile that cannot be written: exit 1 at once, naming it',
             run(cal, '-o', os.path.join(tmp, 'h.xml'), '--memory', bad), 1,
             'cannot write ' + bad, within=5)
        results.append(('nothing left behind after a refused output',
                        sorted(os.listdir(tmp)) == ['a-file'], [str(os.listdir(tmp))]))
        case('-O 9: usage, exit 2', run(cal, '-O', '9'), 2, '-O 9', '0 1 2 3 s g z fast')
        # attached, as compilers (and the README's `pticalibrate -O0`) spell it: the same
        # level, not an unknown option
        case('-O9: usage, exit 2, read as -O 9', run(cal, '-O9'), 2, '-O 9', '0 1 2 3 s g z fast')
        case('-Ofast --version: accepted, exit 0', run(cal, '-Ofast', '--version'), 0)
        # a value that looks like a level stays the value of the option before it
        case('--cost -O3: usage, exit 2, -O3 the kind', run(cal, '--cost', '-O3'), 2,
             'throughput or latency')
        case('--cost fast: usage, exit 2', run(cal, '--cost', 'fast'), 2, 'throughput or latency')
        case('--skip disk: usage, exit 2', run(cal, '--skip', 'cpu,disk'), 2, "'disk'")
        case('--name 9lives: usage, exit 2', run(cal, '--name', '9lives'), 2, '--name 9lives')
        case('--memory-max 10: usage, exit 2', run(cal, '--memory-max', '10'), 2,
             '--memory-max 10')
        case('an unknown option: usage, exit 2', run(cal, '--frobnicate'), 2, 'frobnicate')
        case('an argument: usage, exit 2', run(cal, 'host.xml'), 2, "unexpected argument")

        out = os.path.join(tmp, 'nocc.xml')
        case('no C compiler: exit 1, saying which and what for',
             run(cal, '-o', out, '--cc', '/nonexistent/cc', '--skip', 'mpi'), 1,
             "no C compiler: '/nonexistent/cc'", '--cc', within=10)
        results.append(('no half-written file after a failure', not os.path.exists(out)
                        and not any(f.startswith('nocc.xml') for f in os.listdir(tmp)),
                        [str(os.listdir(tmp))]))
        case('a compiler that fails: exit 1, with its command and status',
             run(cal, '-o', out, '--cc', 'false', '--skip', 'mpi,memory'), 1,
             'the operation-cost kernels do not compile', '-O2', 'exit status 1', within=20)

        # No BLAS: the floating-point rate is skipped, the file still
        # written and valid, without <flop_rate>, saying why.
        noblas = os.path.join(tmp, 'noblas.xml')
        case('a BLAS that cannot be loaded: exit 0, a warning naming it',
             run(cal, '-o', noblas, '--quick', '--blas', 'libpti-no-such-blas.so.9', '--skip',
                 'mpi,memory'), 0,
             'warning: no floating-point rate', 'libpti-no-such-blas.so.9', '--blas', within=90)
        ok = os.path.exists(noblas)
        text = open(noblas, encoding='utf-8').read() if ok else ''
        root = ET.fromstring(text) if ok else None
        results.append(('... the file says so, has <speed_ratio> and no <flop_rate>',
                        ok and 'Floating-point rate not measured' in text
                        and root.find('.//flop_rate') is None
                        and root.find('.//speed_ratio') is not None, [text[:600]]))

        # No mpicc: the MPI part is skipped, the file still written and valid.
        nompi = os.path.join(tmp, 'nompi.xml')
        got = run(cal, '-o', nompi, '--mpicc', '/nonexistent/mpicc', '--skip', 'cpu,memory')
        case('no mpicc: exit 0, a warning naming it and what was skipped', got, 0,
             'warning: skipped the MPI point-to-point parameters', "'/nonexistent/mpicc'",
             'no model for messages between its CPUs', within=10)
        ok = os.path.exists(nompi)
        text = open(nompi, encoding='utf-8').read() if ok else ''
        root = ET.fromstring(text) if ok else None
        results.append(('... the file says so and has no message model',
                        ok and 'MPI parameters not measured' in text
                        and root.find('.//net_node') is None, [text[:400]]))
        env = dict(os.environ, MPICC='/nonexistent/mpicc-env')
        case('MPICC naming no program: the same, naming it',
             run(cal, '-o', nompi, '--skip', 'cpu,memory', env=env), 0,
             "'/nonexistent/mpicc-env'")
        case('an mpirun that fails: exit 0, a warning with its command',
             run(cal, '-o', nompi, '--mpirun', 'false', '--skip', 'cpu,memory'), 0,
             'warning: skipped the MPI point-to-point parameters')
        # Ctrl-C in the middle: the probe (in a process group of its own, out
        # of the terminal's reach) is killed, nothing is left behind.
        work = os.path.join(tmp, 'tmpdir')
        os.mkdir(work)
        out = os.path.join(tmp, 'int.xml')
        p = subprocess.Popen([cal, '--no-progress', '--quick', '-o', out, '--skip', 'mpi'],
                             env=dict(os.environ, TMPDIR=work), stderr=subprocess.PIPE, text=True)
        time.sleep(4)
        p.send_signal(signal.SIGINT)
        err = p.communicate(timeout=60)[1]
        time.sleep(0.5)
        left = [d for d in (os.listdir('/proc') if os.path.isdir('/proc') else [])
                if d.isdigit() and cwd_of(d).startswith(os.path.realpath(work))]
        results.append(('interrupted (SIGINT): exit 130, no probe left running, no file left',
                        p.returncode == 130 and 'interrupted' in err and not left
                        and os.listdir(work) == []
                        and not any(f.startswith('int.xml') for f in os.listdir(tmp)),
                        ['status %s, probes left %s, %s in TMPDIR' % (p.returncode, left,
                                                                       os.listdir(work)), err]))
        xml = os.path.join(tmp, 'msg.xml')
        r = subprocess.run([ptieval, nompi, os.path.join(src, 'tests', 'calibrate', 'data',
                                                         'message.xml')],
                           capture_output=True, text=True)
        results.append(('... and pti refuses a message on it with an error, not a guess',
                        r.returncode != 0 and 'error' in r.stderr, [r.stderr.strip()[:400]]))
        del xml

    print('1..%d' % len(results))
    failed = 0
    for i, (name, ok, detail) in enumerate(results, 1):
        print('%s %d - %s' % ('ok' if ok else 'not ok', i, name))
        if not ok:
            failed += 1
            for d in detail:
                for line in str(d).splitlines():
                    print('#   ' + line)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
