#!/usr/bin/env python3
"""Every prediction of the corpus, to the last digit.

  check-predictions.py PTIEVAL SOURCE_ROOT            compare with golden.txt
  check-predictions.py PTIEVAL SOURCE_ROOT --write    write golden.txt anew

Each case of corpus.txt runs through `ptieval --json`; its predicted time
and every rank's end, compute, communication and wait times (printed with
17 significant digits, so a double round-trips) and event counts must equal
golden.txt's exactly.  golden.txt was first written by the engine before
its rebuild (issue 11): a change to it is a change of predictions, to be
explained in the commit that makes it."""
import json, os, subprocess, sys

here = os.path.dirname(os.path.abspath(__file__))
ptieval, root = os.path.abspath(sys.argv[1]), sys.argv[2]
write = '--write' in sys.argv[3:]

def figures(args):
    out = subprocess.run([ptieval, '--json'] + args, cwd=root, capture_output=True, text=True)
    if out.returncode != 0:
        return ['exit %d: %s' % (out.returncode, out.stderr.strip().splitlines()[-1:])]
    d = json.loads(out.stdout)
    lines = ['predicted %r events %d' % (d['predicted_time_s'], d['events'])]
    for p in d['per_process']:
        lines.append('  rank %d end %r compute %r comm %r wait %r events %d'
                     % (p['rank'], p['end_s'], p['compute_s'], p['comm_s'], p['wait_s'],
                        p['events']))
    return lines

cases = []
for line in open(os.path.join(here, 'corpus.txt')):
    line = line.strip()
    if line and not line.startswith('#'):
        words = line.split()
        cases.append((line, words[2:] + [words[0], words[1]]))

got = []
for line, args in cases:
    got.append('case ' + line)
    got.extend(figures(args))
text = '\n'.join(got) + '\n'
golden = os.path.join(here, 'golden.txt')
if write:
    open(golden, 'w').write(text)
    print('wrote %s (%d cases)' % (golden, len(cases)))
    sys.exit(0)
want = open(golden).read().splitlines()
bad = 0
for i, (a, b) in enumerate(zip(want, got)):
    if a != b:
        bad += 1
        if bad <= 20:
            print('line %d:\n  golden: %s\n  now:    %s' % (i + 1, a, b))
if len(want) != len(got):
    print('golden has %d lines, now %d' % (len(want), len(got)))
    bad += 1
print('%d cases, %d lines differ' % (len(cases), bad))
sys.exit(1 if bad else 0)
