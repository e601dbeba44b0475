#!/usr/bin/env python3
"""What hpcc's HPL spends its time on, BLAS routine by routine: one hpcc run
on 1 rank with tests/bench/hpcc/blas-time.c preloaded (hpcc-hpl-blas.sh
runs this and passes the directory).

  hpcc-hpl-blas.py DIR [FLOP_RATE]

DIR holds hpccoutf.txt and the preload's blas.PID.log.  HPL's window:
from the first cblas_idamax after hpcc's own DGEMM test (its products of
DGEMM_N, which hpcc runs before HPL; the panel factorisation of HPL's
first panel begins with a pivot search) for HPL_time.  Prints each kind
of call in the window: calls, seconds, share of HPL_time, and for dgemm
(NN or NT, inner dimension nb or less) and dtrsm (Left or Right) the
flops (2 m n k; m^2 n for a left solve of m rows, n^2 m for a right one)
and their rate; then the time outside the BLAS, and hpcc's DGEMM test
products with their rates.  With FLOP_RATE (GFlop/s, a system's
<flop_rate>), each routine's flops at that rate beside it.
"""
import collections
import glob
import os
import re
import sys


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit('usage: hpcc-hpl-blas.py DIR [FLOP_RATE]')
    d = sys.argv[1]
    rate = float(sys.argv[2]) * 1e9 if len(sys.argv) == 3 else None
    text = open(os.path.join(d, 'hpccoutf.txt'), encoding='utf-8', errors='replace').read()
    hpl_time = float(re.search(r'HPL_time=(\S+)', text).group(1))
    dn = int(re.search(r'DGEMM_N=(\d+)', text).group(1))
    nb = int(re.search(r'HPL_NB=(\d+)', text).group(1))
    calls = []
    for path in glob.glob(os.path.join(d, 'blas.*.log')):
        for line in open(path):
            p = line.split()
            calls.append((p[0], float(p[1]), float(p[2]), p[3:]))
    calls.sort(key=lambda c: c[1])

    def square(c):
        return c[0] == 'G' and int(c[3][3]) == int(c[3][4]) == int(c[3][5]) == dn

    dgemm_test = [c for c in calls if square(c)]
    if not dgemm_test:
        sys.exit('hpcc-hpl-blas.py: no product of DGEMM_N = %d in the log' % dn)
    after = max(c[1] + c[2] for c in dgemm_test)
    starts = [c[1] for c in calls if c[1] > after and c[0] == 'B' and c[3][0] == 'cblas_idamax']
    if not starts:
        sys.exit('hpcc-hpl-blas.py: no cblas_idamax after hpcc\'s DGEMM test')
    start = starts[0]
    kinds = collections.defaultdict(lambda: [0, 0.0, 0.0])
    for kind, t, dt, p in calls:
        if not start <= t < start + hpl_time:
            continue
        if kind == 'G':
            tb, m, n, k = int(p[2]), int(p[3]), int(p[4]), int(p[5])
            key = 'dgemm %s k %s' % ('NN' if tb == 111 else 'NT', '= nb' if k == nb else '< nb')
            flops = 2.0 * m * n * k
        elif kind == 'T':
            side, m, n = int(p[1]), int(p[5]), int(p[6])
            key = 'dtrsm %s' % ('Left' if side == 141 else 'Right')
            flops = float(m * m * n if side == 141 else n * n * m)
        else:
            key, flops = p[0], 0.0
        kinds[key][0] += 1
        kinds[key][1] += dt
        kinds[key][2] += flops
    print('HPL_time %.4f s, nb %d; window from %.4f s after the DGEMM test' % (
        hpl_time, nb, start - after))
    total = 0.0
    for key, (n, dt, flops) in sorted(kinds.items(), key=lambda kv: -kv[1][1]):
        total += dt
        line = '  %-16s %6d calls %9.5f s %5.1f%%' % (key, n, dt, 100 * dt / hpl_time)
        if flops > 0:
            line += '  %10.4g flops %6.3f GFlop/s' % (flops, flops / dt / 1e9)
            if rate:
                line += '  at flop_rate %9.5f s' % (flops / rate)
        print(line)
    print('  %-16s %6s       %9.5f s %5.1f%%' % ('outside the BLAS', '', hpl_time - total,
                                               100 * (hpl_time - total) / hpl_time))
    for c in dgemm_test:
        print('  hpcc DGEMM n %d: %.5f s, %.3f GFlop/s' % (dn, c[2], 2.0 * dn ** 3 / c[2] / 1e9))


if __name__ == '__main__':
    main()
