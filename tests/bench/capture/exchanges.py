#!/usr/bin/env python3
"""What each exchange of a 2-rank capture cost, by the computation before it.

    tests/bench/capture/exchanges.py [--pticapture PATH] CAPTURE

CAPTURE is a pticapture trace of 2 ranks whose ranks exchange as LAMMPS
does: each posts MPI_Irecv, computes (packs), then MPI_Send and MPI_Wait
(the k-th such send of rank 0 is matched with the k-th of rank 1).  An
exchange's time is taken from the later rank's MPI_Send to the end of each
rank's MPI_Wait, the mean over the two ranks (the ranks of one host share
its clock: each rank file's start plus its records' times), so the earlier
rank's wait for the later one is left out.  The computation before an
exchange is the larger over the two ranks of the bursts since that rank's
previous exchange (Irecv and Wtime calls do not end it).  Prints the
exchanges' median and quartiles (us) for computation before of under 3 us,
3 to 20 us and more, and for all: whether what ran before an exchange
(the caches it swept) changes its cost, which a probe that exchanges back
to back does not see (capture/README.md, "On the Zen 4 host").
"""
import argparse
import os
import re
import statistics
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..')


def records(pticapture, capture, rank):
    out = subprocess.run([pticapture, '--print=' + capture, '--rank=%d' % rank],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    start = float(re.search(r'\bstart (\d+\.\d+)', out[0]).group(1))
    recs = []
    for line in out[1:]:
        m = re.match(r'\d+ \d+ (\S+)(?: x\d+)? t=(\S+) burst=(\d+)(?: cpu=\d+)? dur=(\d+)(.*)',
                     line)
        if m:
            recs.append((m.group(1), start + float(m.group(2)), int(m.group(3)) * 1e-9,
                         int(m.group(4)) * 1e-9, m.group(5)))
    return recs


def exchanges(recs):
    """[(send start, wait end, computation before, bytes)] of one rank."""
    out, comp = [], 0.0
    for i, (name, t, burst, dur, rest) in enumerate(recs):
        comp += burst
        if name == 'MPI_Send' and i + 1 < len(recs) and recs[i + 1][0] == 'MPI_Wait':
            wait = recs[i + 1]
            out.append((t, wait[1] + wait[3], comp, int(re.search(r'bytes=(\d+)', rest).group(1))))
            comp = 0.0
        elif name not in ('MPI_Irecv', 'MPI_Wtime', 'MPI_Wait'):
            comp = 0.0
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--pticapture', default=os.path.join(ROOT, 'build', 'cli', 'pticapture'))
    ap.add_argument('capture')
    args = ap.parse_args()
    ex = [exchanges(records(args.pticapture, args.capture, r)) for r in (0, 1)]
    n = min(len(ex[0]), len(ex[1]))
    if n < 4:
        sys.exit('exchanges.py: %d exchanges matched in %s' % (n, args.capture))
    rows = []
    for k in range(n):
        s0, e0, c0, b = ex[0][k]
        s1, e1, c1, _ = ex[1][k]
        later = max(s0, s1)
        rows.append(((e0 - later + e1 - later) / 2, max(c0, c1), b))
    print('%d exchanges, %d to %d bytes' % (n, min(r[2] for r in rows), max(r[2] for r in rows)))
    for label, lo, hi in (('under 3 us', 0, 3e-6), ('3-20 us', 3e-6, 20e-6),
                          ('over 20 us', 20e-6, float('inf')), ('all', 0, float('inf'))):
        v = [r[0] for r in rows if lo <= r[1] < hi]
        if len(v) >= 4:
            q = statistics.quantiles(v, n=4)
            print('computation before %-10s: %5d exchanges, median %6.2f us, quartiles %.2f-%.2f'
                  % (label, len(v), statistics.median(v) * 1e6, q[0] * 1e6, q[2] * 1e6))


if __name__ == '__main__':
    main()
