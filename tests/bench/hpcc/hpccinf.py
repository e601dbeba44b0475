#!/usr/bin/env python3
"""Write hpcc's input file as tests/bench/accuracy.sh gives it to hpcc
(accuracy.HPCCINF: HPL's N, nb 80, a 1 x Q grid; PTRANS at N / 2), for the
benchmarks that run hpcc beside it (hpcc-2rank.sh, ptrans-phases.sh).

  hpccinf.py N Q FILE
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import accuracy  # noqa: E402


def main():
    if len(sys.argv) != 4:
        sys.exit('usage: hpccinf.py N Q FILE')
    n, q, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    with open(path, 'w', encoding='utf-8') as f:
        f.write(accuracy.HPCCINF.format(n=n, nb=80, q=q))


if __name__ == '__main__':
    main()
