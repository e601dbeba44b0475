#!/usr/bin/env python3
"""What one captured hpcc run spends its time on (tests/bench/hpcc-2rank.sh
runs this; it captures hpcc and passes the directory).

  hpcc-2rank.py DIR RANKS

DIR holds hpccoutf.txt and p0.txt .. p(RANKS-1).txt, the ranks' `pticapture
--print` output.  Prints, per rank, for HPL (from the MPI_Wtime that starts
HPL's timer to the pair that ends it): the span, the bursts' wall and CPU
time (the computation, and how much of it the rank had the CPU for), the
time in MPI calls, and the panels' receive times in order; for PTRANS
(each transpose from the MPI_Wtime after its barrier to the next
MPI_Wtime): its time and its parts (bursts over 5 us, the MPI_Sendrecv
with its bytes).
"""
import re
import sys


def field(line, name):
    m = re.search(r'\b%s=([^ ]+)' % name, line)
    return m.group(1) if m else None


def calls(path):
    return [l for l in open(path).read().splitlines() if l and not l.startswith('#')]


def name(line):
    return line.split()[2]


def hpl(lines):
    w = [i for i, l in enumerate(lines) if name(l) == 'MPI_Wtime']
    end = w[-2]
    start = max(i for i in w if i < end - 1)
    seg = lines[start:end + 1]
    span = float(field(seg[-1], 't')) - float(field(seg[0], 't'))
    burst = sum(int(field(l, 'burst')) for l in seg[1:]) / 1e9
    cpu = sum(int(field(l, 'cpu') or 0) for l in seg[1:]) / 1e9
    mpi = sum(int(field(l, 'dur')) for l in seg[1:-1]) / 1e9
    recvs = ['%.2f' % (int(field(l, 'dur')) / 1e6) for l in seg
             if name(l) == 'MPI_Recv' and int(field(l, 'bytes')) > 10000]
    return span, burst, cpu, mpi, recvs


def ptrans(lines):
    out = []
    for i, l in enumerate(lines[:-1]):
        if name(l) != 'MPI_Barrier' or name(lines[i + 1]) != 'MPI_Wtime':
            continue
        j = i + 2
        while j < len(lines) and name(lines[j]) != 'MPI_Wtime':
            j += 1
        seg = lines[i + 1:j + 1]
        if j - i > 40 or not any(name(s) == 'MPI_Sendrecv' for s in seg):
            continue
        parts = []
        for s in seg[1:]:
            b = int(field(s, 'burst'))
            if b > 5000:
                parts.append('compute %.1f' % (b / 1e3))
            if name(s) == 'MPI_Sendrecv':
                parts.append('sendrecv %s B %.1f' % (field(s, 'sbytes'), int(field(s, 'dur')) / 1e3))
        t = (float(field(seg[-1], 't')) - float(field(seg[0], 't'))) * 1e6
        out.append('%.1f us (%s)' % (t, ', '.join(parts)))
    return out


def main():
    d, ranks = sys.argv[1], int(sys.argv[2])
    text = open(d + '/hpccoutf.txt', errors='replace').read()
    summary = dict(re.findall(r'^(HPL_time|PTRANS_time|PTRANS_n)=(\S+)$', text, re.M))
    print('  hpcc: HPL_time %s s, PTRANS_time %s s (n %s)' % (
        summary.get('HPL_time'), summary.get('PTRANS_time'), summary.get('PTRANS_n')))
    for r in range(ranks):
        lines = calls('%s/p%d.txt' % (d, r))
        span, burst, cpu, mpi, recvs = hpl(lines)
        print('  rank %d HPL: span %.4f s, computing %.4f s (CPU %.4f s), in MPI %.4f s%s' % (
            r, span, burst, cpu, mpi,
            ('; panel receives (ms) ' + ' '.join(recvs)) if recvs else ''))
        for k, p in enumerate(ptrans(lines), 1):
            print('  rank %d PTRANS transpose %d: %s' % (r, k, p))


if __name__ == '__main__':
    main()
