#!/usr/bin/env python3
"""The operation-cost kernels really do the operation, at every level.

usage: check-kernels.py GEN-CLC-BENCH.PY CPU-CLC.C KERNELS.C HEADER-DIR [LEVEL...]

Compiles the kernels pticalibrate compiles (the build's clc-kernels.c) with
`cc -OLEVEL` for each LEVEL (default 0 2 3), disassembles them with objdump
and checks, for every cpu-clc code:

  * the 4-statement kernel has 16 more of the statement's characteristic
    x86-64 instruction (addsd, mulss, idiv, comisd, call, a store, a load,
    a setcc...; `gen-clc-bench.py --list` prints them) than the 2-statement
    one, exactly or at least as the list says, in the throughput and in the
    latency kernel, counted in the loop: no statement folded away, none
    hoisted out of the loop;
  * no packed (SIMD) arithmetic appears in the difference: one statement is
    one scalar operation, as the RUDs count them.

Exit 77 (skip) without objdump or on another architecture than x86-64.
"""
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile

PACKED = re.compile(r'^v?(add|sub|mul|div)p[sd]$|^v?p(add|sub|mul)|^v?(min|max)p[sd]$')


def functions(objdump_text):
    """{name: [(address, "mnemonic operands")]} of the k_* functions."""
    funcs, cur = {}, None
    for line in objdump_text.splitlines():
        m = re.match(r'^[0-9a-f]+ <(k_\w+)>:$', line)
        if m:
            cur = funcs.setdefault(m.group(1), [])
            continue
        if re.match(r'^[0-9a-f]+ <', line):
            cur = None
            continue
        m = re.match(r'^\s+([0-9a-f]+):\s+(\S+)\s*([^#<]*)', line)
        if m and cur is not None:
            cur.append((int(m.group(1), 16), (m.group(2) + ' ' + m.group(3).strip()).strip()))
    return funcs


def loop_body(insns):
    """The instructions of the function's main loop: from the target of its
    widest backward jump to that jump, among those whose range holds no
    return (a tail block jumping back is not a loop).  Set-up and the final
    sum, whose register allocation differs between kernels, are left out."""
    best = None
    for addr, text in insns:
        m = re.fullmatch(r'j\w+ ([0-9a-f]+)', text.split('<')[0].strip())
        if not m:
            continue
        target = int(m.group(1), 16)
        if target >= addr or any(target <= a <= addr and t.startswith('ret') for a, t in insns):
            continue
        if best is None or addr - target > best[1] - best[0]:
            best = (target, addr)
    if best is None:
        return []
    return [text for addr, text in insns if best[0] <= addr <= best[1]]


def count(insns, regex):
    return sum(1 for i in insns if regex.fullmatch(i + ' '))


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    gen, clc_c, kernels_c, hdr = sys.argv[1:5]
    levels = sys.argv[5:] or ['0', '2', '3']
    if platform.machine() not in ('x86_64', 'AMD64'):
        print('1..0 # SKIP the instruction checks are written for x86-64')
        return 77
    objdump = shutil.which('objdump')
    cc = os.environ.get('CC', 'cc')
    if objdump is None or shutil.which(cc) is None:
        print('1..0 # SKIP needs objdump and %s' % cc)
        return 77
    listing = subprocess.run([sys.executable, gen, '--list', clc_c], check=True,
                             capture_output=True, text=True).stdout
    codes = []
    for line in listing.splitlines():
        code, kind, _text, expect, mode = line.split('\t')
        codes.append((code, kind, re.compile(expect) if expect else None, mode))
    failures = 0
    n = 0
    print('1..%d' % (len(levels) * len(codes)))
    with tempfile.TemporaryDirectory() as tmp:
        for level in levels:
            obj = os.path.join(tmp, 'k%s.o' % level)
            subprocess.run([cc, '-O' + level, '-I', hdr, '-c', kernels_c, '-o', obj], check=True)
            funcs = functions(subprocess.run([objdump, '-d', '--no-show-raw-insn', obj], check=True,
                                             capture_output=True, text=True).stdout)
            for code, kind, expect, mode in codes:
                n += 1
                problems = []
                if kind == 'lfor':
                    if 'k_LFOR_loop' not in funcs:
                        problems.append('no k_LFOR_loop')
                    elif not loop_body(funcs['k_LFOR_loop']):
                        problems.append('the empty loop has no branch: it was removed')
                for variant in ('thr', 'lat'):
                    a, b = 'k_%s_%s_2' % (code, variant), 'k_%s_%s_4' % (code, variant)
                    if kind == 'lfor' or (a not in funcs and variant == 'lat'):
                        continue
                    if a not in funcs or b not in funcs:
                        problems.append('missing %s or %s' % (a, b))
                        continue
                    f2, f4 = loop_body(funcs[a]), loop_body(funcs[b])
                    d = count(f4, expect) - count(f2, expect)
                    if (d != 16) if mode == 'eq' else (d < 16):
                        problems.append('%s: %d more /%s/ than %s, not %s16'
                                        % (b, d, expect.pattern, a, '' if mode == 'eq' else '>= '))
                    d = sum(1 for i in f4 if PACKED.match(i.split()[0])) \
                        - sum(1 for i in f2 if PACKED.match(i.split()[0]))
                    if d != 0:
                        problems.append('%s: %d packed SIMD instructions more than %s' % (b, d, a))
                if problems:
                    failures += 1
                    print('not ok %d - -O%s %s: %s' % (n, level, code, '; '.join(problems)))
                else:
                    print('ok %d - -O%s %s' % (n, level, code))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
