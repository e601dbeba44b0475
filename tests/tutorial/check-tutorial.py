#!/usr/bin/env python3
"""Every snippet of a tutorial README is real: checked, compiled and run.

usage: check-tutorial.py README SOURCE_ROOT BUILD_ROOT SANITIZE

Each fenced block of README must follow a marker comment, else the test
fails (an unmarked snippet could rot unnoticed):

  <!-- file: PATH -->     the block is the whole file PATH (relative to
                          SOURCE_ROOT), byte for byte; the reader creates it,
                          so it is copied under its base name into the
                          directory where the commands run
  <!-- excerpt: PATH -->  the block's lines appear, consecutive and exact,
                          in PATH
  <!-- run -->            a terminal session: lines starting with "$ " are
                          commands (a trailing backslash continues one),
                          the lines up to the next command are its output
  <!-- run: numbers -->   the same, for output that measures something
                          real (a captured run's times): every number
                          shown stands for any number, and runs of spaces
                          for any spaces, so the reader sees one real
                          run's figures and the words are still checked

All sessions of the README run, in order, in ONE shell (sh), in a fresh
temporary directory, so variables and files carry over as they would for
the reader; standard error goes with standard output, as on a terminal.
Every command must exit with status 0, and its output must equal the
lines shown, where a line "..." stands for any number of lines and "..."
inside a line for any text (times that change from run to run, paths).

The commands run against the build tree as if pti were installed:
pkg-config finds meson's pti-uninstalled.pc (whose configdir and
exampledir variables are the source tree's), and the libraries are found
through LD_LIBRARY_PATH.  Under a sanitizer build, `cc` is the compiler
with the build's -fsanitize flags: a program built without them cannot
load an instrumented libpti.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

MARKER = re.compile(r'^<!--\s*(file|excerpt|run)\s*(?::\s*(\S+))?\s*-->\s*$')
FENCE = re.compile(r'^```')
SEPARATOR = re.compile(r'@@PTI-TUTORIAL-(\d+)-(\d+)@@\n')


def fail(message):
    print('FAIL: ' + message, file=sys.stderr)
    sys.exit(1)


def blocks(path):
    """(kind, argument, lines, line number) of every fenced block."""
    lines = open(path, encoding='utf-8').read().split('\n')
    out = []
    marker = None
    i = 0
    while i < len(lines):
        line = lines[i]
        m = MARKER.match(line)
        if m:
            marker = (m.group(1), m.group(2), i + 1)
        elif FENCE.match(line):
            start = i + 1
            j = i + 1
            while j < len(lines) and not FENCE.match(lines[j]):
                j += 1
            if j == len(lines):
                fail('%s:%d: a fenced block is not closed' % (path, start))
            if marker is None:
                fail('%s:%d: this snippet has no <!-- file: -->, <!-- excerpt: --> or '
                     '<!-- run --> marker before it, so nothing would test it' % (path, start))
            out.append((marker[0], marker[1], lines[i + 1:j], start))
            marker = None
            i = j
        elif line.strip() and marker is not None:
            fail('%s:%d: marker not followed by a fenced block' % (path, marker[2]))
        i += 1
    return out


def parse_session(lines, where):
    """[(command, [expected output lines])] of a terminal session."""
    steps = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.startswith('$ '):
            fail('%s: output before any command: %r' % (where, line))
        command = line[2:]
        while command.endswith('\\') and i + 1 < len(lines):
            i += 1
            command = command[:-1] + '\n' + lines[i]
        i += 1
        expected = []
        while i < len(lines) and not lines[i].startswith('$ '):
            expected.append(lines[i])
            i += 1
        steps.append((command, expected))
    return steps


NUMBER = re.compile(r'[-+]?(?:\d[\d,]*)?\.?\d+(?:[eE][-+]?\d+)?')
ANY_NUMBER = r'[-+]?(?:\d[\d,]*)?\.?\d+(?:[eE][-+]?\d+)?'


def literal(text, numbers):
    """A regex for @text as it stands, or, with @numbers, with each number
    standing for any number and each run of spaces for any spaces."""
    if not numbers:
        return re.escape(text)
    out, last = [], 0
    for m in NUMBER.finditer(text):
        out.append(re.escape(text[last:m.start()]))
        out.append(ANY_NUMBER)
        last = m.end()
    out.append(re.escape(text[last:]))
    return re.sub(r'(?:\\ )+', r' +', ''.join(out))


def line_matches(pattern, line, numbers=False):
    if '...' not in pattern and not numbers:
        return pattern.rstrip() == line.rstrip()
    regex = '.*'.join(literal(part, numbers) for part in pattern.rstrip().split('...'))
    return re.fullmatch(regex, line.rstrip()) is not None


def output_matches(expected, actual, numbers=False):
    """Lines, with "..." lines matching any number of lines."""
    memo = {}

    def match(e, a):
        if (e, a) in memo:
            return memo[(e, a)]
        if e == len(expected):
            result = a == len(actual)
        elif expected[e].strip() == '...':
            result = any(match(e + 1, k) for k in range(a, len(actual) + 1))
        else:
            result = (a < len(actual) and line_matches(expected[e], actual[a], numbers)
                      and match(e + 1, a + 1))
        memo[(e, a)] = result
        return result

    return match(0, 0)


def main():
    readme, source_root, build_root, sanitize = sys.argv[1:5]
    work = tempfile.mkdtemp(prefix='pti-tutorial-')
    try:
        run(readme, source_root, build_root, sanitize, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run(readme, source_root, build_root, sanitize, work):
    steps = []
    n_files = n_excerpts = 0
    for kind, arg, lines, start in blocks(readme):
        where = '%s:%d' % (readme, start)
        if kind == 'run':
            if arg not in (None, 'numbers'):
                fail('%s: <!-- run: %s -->: the only qualifier is "numbers"' % (where, arg))
            steps += [(where, c, e, arg == 'numbers') for c, e in parse_session(lines, where)]
            continue
        if arg is None:
            fail('%s: <!-- %s: --> needs a path' % (where, kind))
        path = os.path.join(source_root, arg)
        try:
            text = open(path, encoding='utf-8').read()
        except OSError as e:
            fail('%s: %s' % (where, e))
        block = '\n'.join(lines) + '\n'
        if kind == 'file':
            if block != text:
                fail('%s: the snippet differs from %s; they must be the same (copy one into '
                     'the other)' % (where, arg))
            shutil.copy(path, os.path.join(work, os.path.basename(arg)))
            n_files += 1
        else:
            file_lines = text.split('\n')
            n = len(lines)
            if not any(file_lines[k:k + n] == lines for k in range(len(file_lines) - n + 1)):
                fail('%s: the excerpt is not in %s as shown' % (where, arg))
            n_excerpts += 1

    env = dict(os.environ)
    bindir = os.path.join(work, '.bin')
    os.mkdir(bindir)
    if sanitize not in ('', 'none'):
        real_cc = shutil.which('cc')
        wrapper = os.path.join(bindir, 'cc')
        with open(wrapper, 'w') as f:
            f.write('#!/bin/sh\nexec %s -fsanitize=%s -fno-omit-frame-pointer "$@"\n'
                    % (real_cc, sanitize))
        os.chmod(wrapper, 0o755)
    env['PATH'] = os.pathsep.join([bindir, os.path.join(build_root, 'cli'), env.get('PATH', '')])
    env['PKG_CONFIG_PATH'] = os.path.join(build_root, 'meson-uninstalled')
    env.pop('PKG_CONFIG_DISABLE_UNINSTALLED', None)
    env['LD_LIBRARY_PATH'] = os.pathsep.join(
        [os.path.join(build_root, 'wsl'), os.path.join(build_root, 'hmi')]
        + ([env['LD_LIBRARY_PATH']] if env.get('LD_LIBRARY_PATH') else []))
    env['LC_ALL'] = 'C'

    script = ['exec 2>&1']
    for k, (where, command, expected, numbers) in enumerate(steps):
        script.append(command)
        script.append("printf '@@PTI-TUTORIAL-%d-%%d@@\\n' $?" % k)
    proc = subprocess.run(['sh', '-c', '\n'.join(script)], cwd=work, env=env,
                          stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, timeout=120)
    output = proc.stdout.decode('utf-8', 'replace')

    pieces = SEPARATOR.split(output)
    # pieces: text0, k0, status0, text1, k1, status1, ..., trailing
    results = {}
    for i in range(0, len(pieces) - 2, 3):
        results[int(pieces[i + 1])] = (pieces[i], int(pieces[i + 2]))
    for k, (where, command, expected, numbers) in enumerate(steps):
        if k not in results:
            fail('%s: `%s` did not run (the shell stopped before it)\n%s' % (where, command, output))
        text, status = results[k]
        actual = text.split('\n')
        if actual and actual[-1] == '':
            actual.pop()
        if status != 0:
            fail('%s: `%s` exited with status %d; output:\n%s' % (where, command, status, text))
        if not output_matches(expected, actual, numbers):
            fail('%s: `%s`: the output differs from the README.\n--- README:\n%s\n--- actual:\n%s'
                 % (where, command, '\n'.join(expected), '\n'.join(actual)))
    print('%s: %d files and %d excerpts match the sources; %d commands ran with the output shown'
          % (readme, n_files, n_excerpts, len(steps)))


if __name__ == '__main__':
    main()
