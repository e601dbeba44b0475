#!/usr/bin/env python3
"""A real program sends what its workload says, call for call (suite accuracy).

usage: check-pattern.py PROGRAM-COUNT WORKLOAD.xml SYSTEM.xml PTIEVAL RANKS [NAME=VALUE...]

PROGRAM-COUNT is a real program (tests/accuracy/programs) linked with the
PMPI counter (pmpi-count.c), which logs every MPI call it makes in its
timed region, with peer, tag and size.  It runs on RANKS ranks with the
NAME=VALUE parameters; ptieval evaluates WORKLOAD.xml with the same
parameters (-D; and procs=RANKS when the workload has that parameter) and
writes its trace.  Then, for every rank:

  * the collectives the program called (kind, root, bytes, in order) are
    those of every other rank, and pti's trace holds their messages: a
    workload of those collectives alone is evaluated, and its messages
    (pti expands collectives into point-to-point messages) are taken out of
    the full trace — they must all be there;
  * what is left, the workload's own point-to-point messages, is exactly the
    program's: the same multiset of (send or receive, peer, tag, bytes).

TAP, one test per rank.  As root, Open MPI's run-as-root consent is given
through its environment; more ranks than CPUs are allowed (timing is not
checked here).
"""
import collections
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET



def local(tag):
    """An element's name without its namespace (the trace format's version)."""
    return tag.rsplit('}', 1)[-1]


def trace_messages(path):
    """{rank: Counter of (send or recv, peer, tag, bytes)} of a pti trace;
    non-blocking ones count as posted (isend, irecv), as the PMPI log does."""
    out = collections.defaultdict(collections.Counter)
    rank = None
    for event, el in ET.iterparse(path, events=('start', 'end')):
        if event == 'start' and local(el.tag) == 'process' and el.get('rank') is not None:
            rank = int(el.get('rank'))
        elif event == 'end' and local(el.tag) == 'event':
            kind = {'send': 'send', 'isend': 'send', 'recv': 'recv', 'irecv': 'recv'}.get(
                el.get('kind'))
            if kind is not None and rank is not None:
                out[rank][(kind, int(el.get('peer')), int(el.get('tag')),
                           int(el.get('bytes')))] += 1
            el.clear()
    return out


def ptieval(ptieval_bin, system, workload, defines, trace):
    args = [ptieval_bin, system, workload, '-o', trace]
    for d in defines:
        args += ['-D', d]
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit('Bail out! ptieval failed: %s\n%s' % (' '.join(args), r.stderr))


def main():
    if len(sys.argv) < 6:
        sys.exit(__doc__)
    prog, workload, system, ptieval_bin, ranks = sys.argv[1:6]
    params = sys.argv[6:]
    ranks = int(ranks)
    with open(workload, encoding='utf-8') as f:
        wtext = f.read()
    defines = list(params)
    if re.search(r'<param name="procs"', wtext) and not any(p.startswith('procs=') for p in params):
        defines.append('procs=%d' % ranks)
    env = dict(os.environ)
    if os.geteuid() == 0:
        env.update(OMPI_ALLOW_RUN_AS_ROOT='1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM='1')
    with tempfile.TemporaryDirectory() as tmp:
        env['PMPI_COUNT_DIR'] = tmp
        cmd = ['mpirun', '--oversubscribe', '-np', str(ranks), prog] + params
        r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
        if r.returncode != 0:
            sys.exit('Bail out! %s failed (%d):\n%s%s' % (' '.join(cmd), r.returncode, r.stdout,
                                                        r.stderr))
        print('# ' + r.stdout.strip())
        real_p2p, real_coll = {}, {}
        for k in range(ranks):
            p2p, coll = collections.Counter(), []
            with open(os.path.join(tmp, 'rank%d.txt' % k), encoding='utf-8') as f:
                for line in f:
                    w = line.split()
                    if w[0] in ('send', 'recv'):
                        p2p[(w[0], int(w[1]), int(w[2]), int(w[3]))] += 1
                    else:
                        coll.append(tuple(w))
            real_p2p[k], real_coll[k] = p2p, coll

        full = os.path.join(tmp, 'full.xml')
        ptieval(ptieval_bin, system, workload, defines, full)
        # The collectives alone, as rank 0 called them.
        body = []
        for c in real_coll[0]:
            if c[0] == 'barrier':
                body.append('<barrier/>')
            elif c[0] == 'allreduce':
                body.append('<allreduce bytes="%s"/>' % c[1])
            else:
                body.append('<%s root="%s" bytes="%s"/>' % (c[0], c[1], c[2]))
        coll_wl = os.path.join(tmp, 'collectives.xml')
        with open(coll_wl, 'w', encoding='utf-8') as f:
            f.write('<?xml version="1.0" encoding="UTF-8"?>\n<workload name="collectives">\n'
                    '<processes count="%d"/>\n<program>\n%s\n</program>\n</workload>\n'
                    % (ranks, '\n'.join(body)))
        only = os.path.join(tmp, 'collectives-trace.xml')
        ptieval(ptieval_bin, system, coll_wl, [], only)
        pti_full, pti_coll = trace_messages(full), trace_messages(only)

        print('1..%d' % ranks)
        failed = 0
        for k in range(ranks):
            problems = []
            if real_coll[k] != real_coll[0]:
                problems.append('rank %d called other collectives than rank 0: %s'
                                % (k, real_coll[k][:5]))
            missing = pti_coll[k] - pti_full[k]
            if missing:
                problems.append('the trace lacks messages of the collectives: %s'
                                % list(missing.items())[:5])
            model = pti_full[k] - pti_coll[k]
            if model != real_p2p[k]:
                problems.append('workload only: %s' % sorted((model - real_p2p[k]).items())[:6])
                problems.append('program only: %s' % sorted((real_p2p[k] - model).items())[:6])
            sends = sum(v for key, v in real_p2p[k].items() if key[0] == 'send')
            recvs = sum(v for key, v in real_p2p[k].items() if key[0] == 'recv')
            name = 'rank %d: %d sends, %d receives, %d collectives, as the workload' % (
                k, sends, recvs, len(real_coll[k]))
            if problems:
                failed += 1
                print('not ok %d - %s' % (k + 1, name))
                for p in problems:
                    print('#   ' + p)
            else:
                print('ok %d - %s' % (k + 1, name))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
