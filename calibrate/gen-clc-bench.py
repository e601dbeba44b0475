#!/usr/bin/env python3
"""Generate the operation-cost kernels of pticalibrate from cpu-clc's code table.

The cpu-clc operation codes are defined once, in the CLC_CODES table of
models/cpu-clc/cpu-clc.c (read here through gen-xsd.py's reader).  Every code
gets a C statement (the RECIPES below, by family); a code without one stops
the build, so the calibration cannot silently miss a code the model knows.

usage:
  gen-clc-bench.py CPU-CLC.C OUTPUT.c      write the kernels (clc-kernels.c)
  gen-clc-bench.py --list CPU-CLC.C        print code, statement, expected instruction

What a kernel is (calibrate/README.md has the reasoning):

  k_CODE_thr_M  8 independent chains, each doing the statement M times per
                loop iteration (M = 2 or 4): reciprocal throughput;
  k_CODE_lat_M  one chain doing it 8*M times per iteration: latency.

The harness times M = 4 against M = 2 and divides the difference by the 16
extra statements per iteration, so the loop's own overhead cancels.  KEEP()
is an empty asm that makes the compiler forget a variable's value, so it
cannot fold, hoist or combine the statements; it emits no instruction.  At
-O0 nothing is folded anyway and KEEP is empty (an asm operand would add a
load and a store there).  MEM() is an empty asm with a memory clobber: a
global operand is loaded and stored again at every statement.
"""
import importlib.util
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

CTYPE = {'IS': 'short', 'IL': 'long', 'FS': 'float', 'FD': 'double', 'CH': 'char',
         'S': 'short', 'L': 'long', 'F': 'float', 'D': 'double'}
FLOATING = {'float', 'double'}

# What one statement must add to the x86-64 code, for the generated-code
# check (tests/calibrate/check-kernels.py): a regular expression matched
# against objdump's "mnemonic operands", and whether the 4-statement kernel
# must have exactly ('eq') or at least ('ge') 16 more matches than the
# 2-statement one.  The size suffix objdump adds to memory forms (idivq) is
# optional throughout.
SFX = r'[bwlq]?'
# A load: a memory first (source) operand, not addressed through the stack
# (a spilled variable), and not lea.
LOAD = r'(?!lea)\w+ [^,(]*\((?!%rsp|%rbp)[^)]*\),.*'
STORE = r'(mov|movs[sd]|movap[sd]|movup[sd])' + SFX + r' [^(]*,.*\).*'  # memory destination
X86 = {
    ('A', 'double'): (r'v?addsd .*', 'eq'), ('A', 'float'): (r'v?addss .*', 'eq'),
    ('M', 'double'): (r'v?mulsd .*', 'eq'), ('M', 'float'): (r'v?mulss .*', 'eq'),
    ('D', 'double'): (r'v?divsd .*', 'eq'), ('D', 'float'): (r'v?divss .*', 'eq'),
    ('A', 'int'): (r'(add|sub|inc|lea)' + SFX + ' .*', 'eq'),
    ('M', 'int'): (r'i?mul' + SFX + ' .*', 'eq'),
    ('D', 'int'): (r'i?div' + SFX + ' .*', 'eq'),
    ('T', None): (r'mov\w*' + ' .*', 'ge'),
    ('S', None): (STORE, 'eq'),
    ('CM', 'double'): (r'v?u?comisd .*', 'eq'), ('CM', 'float'): (r'v?u?comiss .*', 'eq'),
    ('CM', 'int'): (r'(cmp|test)' + SFX + ' .*', 'eq'),
    ('IN', None): (r'(add|sub|inc|lea)' + SFX + ' .*', 'eq'),
    ('logic', None): (r'(cmp|test|or|and)' + SFX + ' .*', 'ge'),
    ('IFBR', None): (r'j(ne|e|nz|z) .*', 'eq'),
    ('FCAL', None): (r'call' + SFX + ' .*', 'eq'),
    ('ARF', None): (LOAD, 'ge'),
}


def x86(fam, ctype=None):
    if ctype in ('long', 'int', 'short', 'char'):
        ctype = 'int'
    return X86.get((fam, ctype)) or X86.get((fam, None))


def load_codes(c_path):
    spec = importlib.util.spec_from_file_location(
        'gen_xsd', os.path.join(os.path.dirname(os.path.abspath(c_path)), 'gen-xsd.py'))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return [c for c, _origin, _meaning in mod.read_codes(c_path)]


class Recipe:
    """How to make one code's statement.

    kind: 'binop' (v = v OP w), 'assign' (v = s), 'store' (volatile store),
    'cmp' (r = a < w), 'inc' (v++), 'logic' (r = a && b ...), 'ifbr', 'fcal',
    'arf', 'lfor'.  latency: whether a dependent chain means something.
    """

    def __init__(self, code, kind, ctype=None, scope='L', op=None, dims=0, text='',
                 latency=True, expect=None):
        self.code, self.kind, self.ctype, self.scope = code, kind, ctype, scope
        self.op, self.dims, self.text, self.latency, self.expect = op, dims, text, latency, expect


def recipe(code):
    m = re.fullmatch(r'([AMD])(IS|IL|FS|FD|CH)([LG])', code)
    if m:
        fam, t, scope = m.groups()
        ctype = CTYPE[t]
        op = {'A': '+', 'M': '*', 'D': '/'}[fam]
        where = 'local' if scope == 'L' else 'global'
        return Recipe(code, 'binop', ctype, scope, op,
                      text='%s v = v %s w (v %s)' % (ctype, op, where),
                      expect=x86(fam, ctype))
    m = re.fullmatch(r'T(IS|IL|FS|FD|CH)([LG])', code)
    if m:
        t, scope = m.groups()
        ctype = CTYPE[t]
        return Recipe(code, 'assign', ctype, scope, latency=False,
                      text='%s v = s (v %s)' % (ctype, 'local' if scope == 'L' else 'global'),
                      expect=x86('T'))
    m = re.fullmatch(r'S(IS|IL|FS|FD|CH)([LG])', code)
    if m:
        t, scope = m.groups()
        ctype = CTYPE[t]
        return Recipe(code, 'store', ctype, scope, latency=False,
                      text='store of a %s to a %s in memory' %
                      (ctype, 'stack variable' if scope == 'L' else 'static variable'),
                      expect=x86('S'))
    m = re.fullmatch(r'CM([SLFD])([LG])', code)
    if m:
        t, scope = m.groups()
        ctype = CTYPE[t]
        return Recipe(code, 'cmp', ctype, scope, latency=False,
                      text='int r = (a < w), %s a %s' % (ctype, 'local' if scope == 'L' else 'global'),
                      expect=x86('CM', ctype))
    m = re.fullmatch(r'IN([SL])([LG])', code)
    if m:
        t, scope = m.groups()
        ctype = CTYPE[t]
        return Recipe(code, 'inc', ctype, scope,
                      text='%s v++ (v %s)' % (ctype, 'local' if scope == 'L' else 'global'),
                      expect=x86('IN'))
    if code in ('ANDL', 'ORLL', 'NOTL'):
        expr = {'ANDL': 'a && b', 'ORLL': 'a || b', 'NOTL': '!a'}[code]
        return Recipe(code, 'logic', 'int', op=expr, latency=False,
                      text='int r = %s (both operands evaluated)' % expr
                      if code != 'NOTL' else 'int r = !a', expect=x86('logic'))
    if code == 'IFBR':
        return Recipe(code, 'ifbr', 'int', latency=False,
                      text='if (a) { } : test and a predicted branch', expect=x86('IFBR'))
    if code == 'FCAL':
        return Recipe(code, 'fcal', 'int', latency=False,
                      text='f (x): call of a non-inlined function of one int argument, and return',
                      expect=x86('FCAL'))
    m = re.fullmatch(r'ARF([1-4])', code)
    if m:
        n = int(m.group(1))
        return Recipe(code, 'arf', 'double', dims=n,
                      text='x = a%s, a %d-D double array with run-time extents, in L1; the last '
                      'index varies, the others are fixed in the loop' %
                      (''.join('[i%d]' % d for d in range(n)), n), expect=x86('ARF'))
    if code == 'LFOR':
        return Recipe(code, 'lfor', latency=False,
                      text='one iteration of an empty counted loop, less CMLL and INLL')
    if code == 'IADD':
        return Recipe(code, 'binop', 'int', 'L', '+', text='int v = v + w (v local)',
                      expect=x86('A', 'int'))
    return None


CHAINS = 8


def keep(ctype, var):
    return ('KEEP_F (%s);' if ctype in FLOATING else 'KEEP_I (%s);') % var


def init_value(r, k):
    """Starting value of chain k: realistic magnitudes (see README)."""
    if r.kind == 'binop' and r.op == '/':
        return {'long': '1000003 + %d' % k, 'int': '1000003 + %d' % k,
                'short': '10007 + %d' % k, 'char': '101 + %d' % k}.get(r.ctype, '1.5 + %d' % k)
    return '1 + %d' % k


def var(r, k):
    """The variable of chain k: a local, or a global of the code's own."""
    return 'v%d' % k if r.scope == 'L' else 'g_%s_%d' % (r.code, k)


def hide(r, k):
    """After (or before) each statement: the compiler forgets what it knew of
    the variable; a global goes back to memory."""
    return keep(r.ctype, var(r, k)) if r.scope == 'L' else 'MEM ();'


def declare(r, chains, init):
    """The chains' variables with their first values."""
    if r.scope == 'L':
        return ['  %s %s;' % (r.ctype, ', '.join('%s = %s' % (var(r, k), init(k))
                                                 for k in range(chains)))]
    return ['  %s = %s;' % (var(r, k), init(k)) for k in range(chains)]


def kernel(r, variant, m):
    """C source of one kernel: variant 'thr' or 'lat', m statements per chain."""
    name = 'k_%s_%s_%d' % (r.code, variant, m)
    chains = CHAINS if variant == 'thr' else 1
    per_chain = m if variant == 'thr' else CHAINS * m
    t = r.ctype
    out = ['static NOINLINE void', '%s (long n)' % name, '{']
    body = []
    post = []
    if r.kind == 'binop':
        out.extend(declare(r, chains, lambda k: '(%s) (in_i + %s)' % (t, init_value(r, k))))
        out.append('  %s w = (%s) in_one;' % (t, t))
        # A divisor the compiler knows nothing about at each statement:
        # -Ofast cannot turn v / w into v * (1 / w).
        kw = keep(t, 'w') + ' ' if r.op == '/' else ''
        body = ['%s%s = %s %s w; %s' % (kw, var(r, k), var(r, k), r.op, hide(r, k))
                for _ in range(per_chain) for k in range(chains)]
        post.append('SINK (%s);' % ' + '.join(var(r, k) for k in range(chains)))
    elif r.kind == 'inc':
        out.extend(declare(r, chains, lambda k: '(%s) in_i' % t))
        body = ['%s++; %s' % (var(r, k), hide(r, k))
                for _ in range(per_chain) for k in range(chains)]
        post.append('SINK (%s);' % ' + '.join(var(r, k) for k in range(chains)))
    elif r.kind == 'assign':
        out.append('  %s s = (%s) in_one;' % (t, t))
        out.extend(declare(r, chains, lambda k: '0'))
        for _ in range(per_chain):
            body.extend('%s = s; %s' % (var(r, k), hide(r, k)) for k in range(chains))
            body.append(keep(t, 's'))
        post.append('SINK (%s);' % ' + '.join(var(r, k) for k in range(chains)))
    elif r.kind == 'store':
        out.append('  %s s = (%s) in_one;' % (t, t))
        if r.scope == 'L':
            out.append('  volatile %s %s;' % (t, ', '.join('v%d' % k for k in range(chains))))
        for _ in range(per_chain):
            for k in range(chains):
                if r.scope == 'L':
                    body.append('v%d = s;' % k)
                else:
                    body.append('gv_%s_%d = s;' % (r.code, k))
            body.append(keep(t, 's'))
        if r.scope == 'L':
            post.append(' '.join('(void) v%d;' % k for k in range(chains)))
    elif r.kind == 'cmp':
        out.extend(declare(r, chains, lambda k: '(%s) (in_i + %d)' % (t, k)))
        out.append('  %s w = (%s) in_one;' % (t, t))
        out.append('  int r = 0, acc = 0;')
        for _ in range(per_chain):
            body.extend('%s r = (%s < w); KEEP_I (r);' % (hide(r, k), var(r, k))
                        for k in range(chains))
        body.append('acc += r;')
        post.append('SINK (acc);')
    elif r.kind == 'logic':
        # a = 1 for &&, 0 for ||: the right operand is always evaluated.
        a0 = '0' if r.code == 'ORLL' else '1'
        out.append('  int %s;' % ', '.join('a%d = in_zero + %s' % (k, a0) for k in range(chains)))
        out.append('  int %sr = 0, acc = 0;' % ('' if r.code == 'NOTL' else 'b = in_one, '))
        for _ in range(per_chain):
            for k in range(chains):
                expr = r.op.replace('a', 'a%d' % k)
                body.append('KEEP_I (a%d); r = %s; KEEP_I (r);' % (k, expr))
        body.append('acc += r;')
        post.append('SINK (acc);')
    elif r.kind == 'ifbr':
        out.append('  int %s;' % ', '.join('a%d = in_one' % k for k in range(chains)))
        for _ in range(per_chain):
            for k in range(chains):
                body.append('KEEP_I (a%d); if (a%d) __asm__ volatile ("");' % (k, k))
    elif r.kind == 'fcal':
        out.append('  int x = in_one;')
        for _ in range(per_chain):
            for k in range(chains):
                body.append('fcal_target (x);')
    elif r.kind == 'arf':
        n = r.dims
        # Extents 7, 9, 11, 13 (not powers of two: the compiler multiplies).
        ext = ['e%d' % d for d in range(1, n)]
        decl = ''.join('[%s]' % e for e in ext)
        for d in range(1, n):
            out.append('  long e%d = in_i + %d;' % (d, [0, 9, 11, 13][d]))
        idx = ['i%d' % d for d in range(n)]
        for d in range(n - 1):
            out.append('  long i%d = in_i + %d;' % (d, d + 1))
        if variant == 'thr':
            out.append('  double (*a)%s = (double (*)%s) arf_data;' % (decl, decl))
            out.append('  long %s;' % ', '.join('j%d = in_i + %d' % (k, k) for k in range(chains)))
            out.append('  double %s;' % ', '.join('x%d = 0' % k for k in range(chains)))
            for _ in range(per_chain):
                for k in range(chains):
                    ref = 'a' + ''.join('[%s]' % i for i in idx[:-1]) + '[j%d]' % k
                    body.append('KEEP_I (j%d); x%d = %s; KEEP_F (x%d);' % (k, k, ref, k))
            post.append('SINK (%s);' % ' + '.join('x%d' % k for k in range(chains)))
        else:
            # A chase: the element loaded is the next last index (arf_chain
            # holds its own index, so the chain stays on one element).
            out.append('  long (*a)%s = (long (*)%s) arf_chain;' % (decl, decl))
            out.append('  long j = in_i + 3;')
            ref = 'a' + ''.join('[%s]' % i for i in idx[:-1]) + '[j]'
            out.append('  %s = j;' % ref)
            out.append('  MEM ();')
            for _ in range(per_chain):
                body.append('j = %s;' % ref)
            post.append('SINK (j);')
    else:
        raise AssertionError(r.kind)
    out.append('  for (long i = 0; i < n; i++) {')
    out.extend('    ' + b for b in body)
    out.append('  }')
    out.extend('  ' + p for p in post)
    out.append('}')
    return '\n'.join(out) + '\n'


HEADER = r'''/* Generated by calibrate/gen-clc-bench.py from the CLC_CODES table of
 * models/cpu-clc/cpu-clc.c: do not edit.
 *
 * The operation-cost kernels pticalibrate compiles at the optimisation level
 * the user names, then times with clc-harness.c.  One statement per cpu-clc
 * code; see calibrate/README.md for how each is kept from being folded. */
#include <stddef.h>
#include "clc-kernels.h"

#if defined(__OPTIMIZE__)
# if defined(__x86_64__) || defined(__i386__)
#  define KEEP_F(v) __asm__ volatile ("" : "+x" (v))
# elif defined(__aarch64__)
#  define KEEP_F(v) __asm__ volatile ("" : "+w" (v))
# else
#  define KEEP_F(v) __asm__ volatile ("" : "+g" (v))
# endif
# define KEEP_I(v) __asm__ volatile ("" : "+r" (v))
#else
/* -O0 folds nothing and keeps every variable in memory: no asm needed. */
# define KEEP_F(v) ((void) 0)
# define KEEP_I(v) ((void) 0)
#endif
#define MEM() __asm__ volatile ("" ::: "memory")
#define NOINLINE __attribute__ ((noinline, noclone))

/* Opaque inputs: the compiler cannot know their values. */
volatile long in_i_v = 0, in_one_v = 1, in_zero_v = 0;
#define in_i (in_i_v)
#define in_one (in_one_v)
#define in_zero (in_zero_v)
volatile double sink_v;
#define SINK(x) (sink_v = (double) (x))

double arf_data[8192];
long arf_chain[8192];

__attribute__ ((noinline, noclone, noipa)) void
fcal_target (int x)
{
  __asm__ volatile ("" : : "r" (x));
}

'''

# The window probe (pticalibrate's <cpu_clc window>): the rows of a sparse
# matrix-vector product (CSR, tests/accuracy's cg-real), each a chain of
# dependent adds that `sum = 0` starts afresh.  Counted as a RUD counts
# them: per row LFOR,CMLL,INLL, TFDL,2*ARF1 (sum = 0; lo, hi), TFDL,ARF1
# (y[j] = sum), 8 operations; per non-zero LFOR,CMLL,INLL,
# MFDL,AFDL,TFDL,3*ARF1, 9, chain AFDL.  Its data stays in L1.
WINDOW = """/* The window probe: rows of n products summed into a sum each, the sum
 * set to 0 before each row; every row reads n of win_a and win_col from
 * win_lo[r] on (win_hi[r] = win_lo[r] + n, set by the harness), gathering
 * win_x.  16 KiB in all: in L1.  The function starts on a 64-byte line, so
 * where its loop falls against the fetch lines does not depend on the
 * kernels before it (a hot loop across a 64-byte boundary can run 10-20%
 * slower: models/cpu-clc/README.md). */
double win_a[1024], win_x[512], win_y[256];
int win_col[1024];
long win_lo[256], win_hi[256];

NOINLINE __attribute__ ((aligned (64))) void
clc_window (long rows)
{
  for (long j = 0; j < rows; j++) {
    double sum = 0;
    for (long k = win_lo[j & 255]; k < win_hi[j & 255]; k++)
      sum += win_a[k] * win_x[win_col[k]];
    win_y[j & 255] = sum;
  }
}

"""


def main():
    args = sys.argv[1:]
    listing = args and args[0] == '--list'
    if listing:
        args = args[1:]
    if len(args) != (1 if listing else 2):
        sys.exit(__doc__)
    codes = load_codes(args[0])
    recipes = []
    for c in codes:
        r = recipe(c)
        if r is None:
            sys.exit('gen-clc-bench.py: no benchmark recipe for cpu-clc code %s: add one '
                     '(calibrate/gen-clc-bench.py, recipe())' % c)
        recipes.append(r)
    if listing:
        for r in recipes:
            regex, mode = r.expect if r.expect else ('', '')
            print('%s\t%s\t%s\t%s\t%s' % (r.code, r.kind, r.text, regex, mode))
        return
    parts = [HEADER]
    for r in recipes:
        if r.scope == 'G' and r.kind in ('binop', 'inc', 'assign', 'cmp'):
            parts.append('%s %s;\n' % (r.ctype, ', '.join('g_%s_%d' % (r.code, k)
                                                          for k in range(CHAINS))))
        if r.scope == 'G' and r.kind == 'store':
            parts.append('volatile %s %s;\n' % (r.ctype, ', '.join('gv_%s_%d' % (r.code, k)
                                                                   for k in range(CHAINS))))
    parts.append('\n')
    for r in recipes:
        if r.kind == 'lfor':
            continue
        for variant in ('thr', 'lat') if r.latency else ('thr',):
            for m in (2, 4):
                parts.append(kernel(r, variant, m) + '\n')
    # The loop of LFOR: an empty counted loop (the asm keeps it).
    parts.append('static NOINLINE void\nk_LFOR_loop (long n)\n{\n'
                 '  for (long i = 0; i < n; i++)\n    __asm__ volatile ("");\n}\n\n')
    parts.append(WINDOW)
    parts.append('const ClcKernel clc_kernels[] = {\n')
    for r in recipes:
        if r.kind == 'lfor':
            parts.append('  { "%s", "%s", NULL, NULL, NULL, NULL, k_LFOR_loop },\n'
                         % (r.code, r.text.replace('"', '\\"')))
            continue
        lat = ('k_%s_lat_2, k_%s_lat_4' % (r.code, r.code)) if r.latency else 'NULL, NULL'
        parts.append('  { "%s", "%s", k_%s_thr_2, k_%s_thr_4, %s, NULL },\n'
                     % (r.code, r.text.replace('"', '\\"'), r.code, r.code, lat))
    parts.append('  { NULL, NULL, NULL, NULL, NULL, NULL, NULL }\n};\n')
    with open(args[1], 'w', encoding='utf-8') as f:
        f.write(''.join(parts))


if __name__ == '__main__':
    main()
