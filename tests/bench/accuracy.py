#!/usr/bin/env python3
"""The accuracy table of tests/bench/accuracy.sh (run that; it builds what
this needs and passes the paths).

For each case: the real program runs --runs times (mpirun -np RANKS), its
own printed time (the largest over the ranks of a region that is exactly
the workload's) is kept; ptieval predicts the same case on --system.  The
cases run in rounds, each case once a round (measure_in_rounds), so that
the host's drift falls on all of them alike; the table ends with the
host's speed round by round.  The
table: program, size, working set per rank, ranks, measured median (s), how
it was measured (wall time of undisturbed runs, or CPU time marked *, and
how many of the runs were undisturbed), spread of the runs ((max - min) /
median), then for each CPU model of --models (default: the system's own
choice) the predicted time (s) and error ((predicted - measured) /
measured).  Then, per model, the median and the largest absolute error,
overall and per program.  --measurements FILE keeps the measured times: a
later run with the same file predicts again without running the programs.

LAMMPS is predicted through captured traces: each case is captured
(pticapture) CAPTURES times, once in each of its first rounds beside its
measured runs, and the capture whose replay is the median is kept; ptieval replays it on --system, the capture's bursts (the time
between its MPI calls, as measured) priced by the CPU model at the
system's speed_ratio (1: this host).  Its measured time is the span the
replay predicts, from the end of MPI_Init to MPI_Finalize (the slowest
rank), taken from uncaptured runs with libptispan.so
(tests/bench/capture/span.c) preloaded.  The captures are kept beside the measurements file
(FILE.captures/), so a rerun with it predicts again from the same traces.

The VM's MPI state.  This host's shared-memory MPI switches, within
seconds, between two states (a 16 KiB message one way 3.4-3.7 us or
5.3-5.6 us; capture/README.md, "On the Zen 4 host"), and a system file
describes the state it was calibrated in.  With --state-probe (the MPI
probe of pticalibrate, calibrate/mpi-probe.c, built by accuracy.sh), every
2-rank run is bracketed by a short probe (one way at 0 B and 16 KiB, 3
samples) and takes the state of the system whose price of that 16 KiB
message (ptieval, a ping-pong without computation) is nearest the probe's,
within 25%: "sys" (--system) or "alt" (--alt-system, the other state's
calibration of the same host); a run whose two probes disagree is "mixed".
A 2-rank row's measured time is then the median of its runs in the
state of the system it is predicted on: one row per state that has runs
(the alt rows predicted on --alt-system); when no run is in either, all of
them on --system, marked ~.  The state column says how many runs each
state had (s sys, a alt, m mixed, ? neither).  With --alt-system a LAMMPS
case on 2 ranks captures in every round, and each state's row replays a
capture of its own state (CASE.alt beside CASE in the captures folder):
the slow state slows the ranks' computation as well as their messages,
and a capture's bursts hold it.
"""
import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import resource
import tempfile
import time
import xml.etree.ElementTree as ET


def human(b):
    if not b:
        return '-'
    for unit, size in (('GiB', 1 << 30), ('MiB', 1 << 20), ('KiB', 1 << 10)):
        if b >= size:
            return '%.3g %s' % (b / size, unit)
    return '%d B' % b


def computers(system):
    """The names of the system's computers (for --use-model NAME=MODEL)."""
    return [c.get('name') for c in ET.parse(system).getroot().iter('computer')]


def width(model):
    """A model's column: 12 characters, wider for a longer name."""
    return max(12, len(model or 'predicted') + 2)


def units_system(args, system):
    """@system with overlap="units" on its <cpu_clc> elements (cpu-clc's
    overlapping operations, models/cpu-clc/README.md), written in the work
    directory once; its memory profile named by absolute path."""
    out = os.path.join(args.work, 'units-' + os.path.basename(system))
    if out not in args.units_made:
        base = os.path.dirname(os.path.abspath(system))
        with open(system, encoding='utf-8') as f:
            text = f.read()
        text = re.sub(r'<cpu_clc(\s)(?![^>]*\boverlap=)', r'<cpu_clc overlap="units"\1', text)
        text = re.sub(r'(<cpu_mem\s[^>]*\bprofile=")([^"]+)"',
                      lambda m: m.group(1) + os.path.join(base, m.group(2)) + '"', text)
        with open(out, 'w', encoding='utf-8') as f:
            f.write(text)
        args.units_made.add(out)
    return out


def ptieval(args, system, workload, defines, model=None):
    # MODEL+units: the model on the system with overlap="units"
    if model and model.endswith('+units'):
        system, model = units_system(args, system), model[:-len('+units')]
    cmd = [os.path.join(args.build, 'cli', 'ptieval'), system, workload, '--json']
    for name in (computers(system) if model else []):
        cmd += ['--use-model', '%s=%s' % (name, model)]
    for k, v in defines.items():
        cmd += ['-D', '%s=%s' % (k, v)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    # 4: a performance assertion of the workload failed (Sweep3D's
    # efficiency with one k-block a sweep); the prediction stands.
    if r.returncode not in (0, 4):
        raise RuntimeError('ptieval failed: %s\n%s' % (' '.join(cmd), r.stderr))
    return json.loads(r.stdout)['predicted_time_s']


def mpirun(ranks, argv, cwd=None):
    cmd = ['mpirun', '-np', str(ranks)] + argv
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd)
    if r.returncode != 0:
        raise RuntimeError('%s failed (%d):\n%s%s' % (' '.join(cmd), r.returncode, r.stdout,
                                                      r.stderr))
    return r.stdout


# ---- Sweep3D and CG: the real programs print their time -------------------

def sweep3d_cases(quick):
    cases = []
    # Iterations: enough to be timed, few enough blocks (each a message with
    # 2 ranks) that a run ends in seconds on a busy host.
    iterations = {8: 12, 16: 6, 32: 2, 64: 1, 96: 1}
    for n in ((8, 32, 64) if quick else (8, 16, 32, 64, 96)):
        its = iterations[n]
        mk = min(10, n)
        for ranks in (1, 2):
            params = {'npe_i': ranks, 'npe_j': 1, 'it': n, 'jt': n, 'kt': n, 'mk': mk,
                      'mm': 6, 'mmi': 3, 'iterations': its}
            # per rank: src, flux (4 moments each), pflux, sigt, qext, 3 faces
            cases.append(('sweep3d', '%d^3, %d its' % (n, its), 14 * 8 * n ** 3, ranks, params))
    return cases


CG_CLASSES = {1: ('S', 1400, 7, 15), 2: ('W', 7000, 8, 15), 3: ('A', 14000, 11, 15),
              4: ('B', 75000, 13, 75)}


def cg_cases(quick):
    cases = []
    for cls in ((1, 3) if quick else (1, 2, 3, 4)):
        name, na, nonzer, niter = CG_CLASSES[cls]
        if cls == 4:
            niter = 3          # class B's 75 outer iterations: 10 minutes here
        for ranks in (1, 2):
            nnz = na * nonzer * (nonzer + 1) / ranks
            ws = nnz * 12 + 7 * 8 * (na + 2)
            params = {'class': cls, 'niter': niter, 'procs': ranks}
            cases.append(('cg', 'class %s, %d its' % (name, niter), ws, ranks, params))
    return cases


class Job:
    """One thing the benchmark runs again and again: a Sweep3D or CG case,
    an hpcc run at one size and rank count (the rows of its four tests), a
    LAMMPS case.  once() runs it and returns (value, undisturbed); the
    rounds of measure_in_rounds() collect the values."""

    def __init__(self, name, once, seconds):
        self.name, self.once, self.seconds = name, once, seconds
        self.clean, self.dirty = [], []      # [(round, value)]
        self.states = {}                     # round -> MPI state (2-rank runs, --state-probe)

    def tries(self):
        return len(self.clean) + len(self.dirty)


def measure_in_rounds(args, jobs):
    """Run every job once a round, all of them in the same order, until each
    has --runs undisturbed runs or 2 --runs tries.  This VM's speed drifts by
    a fifth or more within minutes: measured case after case, a slow spell
    would fall on a few cases only and read as their model's error; in
    rounds it falls on every case alike, and shows as the round's speed
    (host_drift()).  Returns the rounds' wall times."""
    walls = []
    for r in range(2 * args.runs):
        todo = [j for j in jobs if len(j.clean) < args.runs and j.tries() < 2 * args.runs]
        if not todo:
            break
        t0 = time.monotonic()
        for j in todo:
            if getattr(j, 'ranks', 1) == 2 and args.state_probe:
                before = mpi_state(args)
                value, ok = j.once()
                after = mpi_state(args)
                j.states[r] = before if before == after else 'mixed'
                # a capture this run took was taken in the same state
                tagged = getattr(j, 'capture_states', [])
                new = len(getattr(j, 'captures', [])) - len(tagged)
                j.capture_states = tagged + [j.states[r]] * new
            else:
                value, ok = j.once()
            (j.clean if ok else j.dirty).append((r, value))
        walls.append(time.monotonic() - t0)
        print('# round %d: %d runs in %.1f s' % (r + 1, len(todo), walls[-1]),
              file=sys.stderr, flush=True)
    return walls


def host_drift(jobs, walls):
    """The host's speed round by round: the median over the jobs measured
    undisturbed in a round of their time in it over their median time (1:
    the session's typical speed; 1.2: that round ran 20% slower)."""
    by_round = {}
    for j in jobs:
        if len(j.clean) < 2:
            continue
        med = statistics.median(j.seconds(v) for _, v in j.clean)
        for r, v in j.clean:
            by_round.setdefault(r, []).append(j.seconds(v) / med)
    return [(r + 1, statistics.median(by_round[r]), len(by_round[r]), walls[r])
            for r in sorted(by_round)]


STATE_BYTES = 16384
STATE_WORKLOAD = """<?xml version="1.0" encoding="UTF-8"?>
<workload name="state-pingpong">
  <processes count="2"/>
  <program>
    <for var="r" from="1" to="100">
      <if test="rank == 0">
        <then><send to="1" bytes="%d"/><recv from="1" bytes="%d"/></then>
        <else><recv from="0" bytes="%d"/><send to="0" bytes="%d"/></else>
      </if>
    </for>
  </program>
</workload>
""" % ((STATE_BYTES,) * 4)


def state_prices(args):
    """What each system prices a message of STATE_BYTES one way (s): a
    ping-pong of 100 round trips without computation, over 200."""
    path = os.path.join(args.work, 'state-pingpong.xml')
    with open(path, 'w') as f:
        f.write(STATE_WORKLOAD)
    out = {'sys': ptieval(args, args.system, path, {}) / 200}
    if args.alt_system:
        out['alt'] = ptieval(args, args.alt_system, path, {}) / 200
    return out


def mpi_state(args):
    """The VM's MPI state now: the short probe's one-way time of
    STATE_BYTES against each system's price of it, the nearest within 25%
    ("sys" or "alt"), else "?"."""
    r = subprocess.run(['mpirun', '-np', '2', args.state_probe, '--sizes', '0,%d' % STATE_BYTES,
                        '--samples', '3', '--reps', '3', '--target-ms', '0.5'],
                       capture_output=True, text=True)
    m = re.search(r'^pp bytes=%d t=([0-9.eE+-]+)' % STATE_BYTES, r.stdout, re.M)
    if r.returncode != 0 or not m:
        raise RuntimeError('the MPI state probe failed (%d):\n%s' % (r.returncode, r.stderr))
    t = float(m.group(1)) * 1e-9
    args.state_log.append(t)
    best, dist = '?', math.log(1.25)
    for name, price in args.state_price.items():
        d = abs(math.log(t / price))
        if d <= dist:
            best, dist = name, d
    return best


def program_job(args, prog, ranks, params):
    """A Sweep3D or CG case: the program prints its time (time_s), its
    largest rank CPU time (cpu_s) and the smallest share of the wall time a
    rank had the CPU (busy); a run is undisturbed when no rank lost more
    than 5% of the CPU to another process."""
    argv = [os.path.join(args.work, prog + '-real')]
    argv += ['%s=%s' % (k, v) for k, v in params.items() if k != 'procs']

    def once():
        out = mpirun(ranks, argv)
        fig = dict(re.findall(r'(\w+)=([0-9.eE+-]+)', out))
        if 'time_s' not in fig:
            raise RuntimeError('no time_s in: %s' % out)
        return (float(fig['time_s']), float(fig['cpu_s'])), float(fig['busy']) >= 0.95
    job = Job('%s %s' % (prog, params), once, lambda v: v[0])
    job.ranks = ranks
    return job


def program_times(job):
    """The measured times of a program job: the wall times of its
    undisturbed runs; without one such run (a host busier than its CPUs),
    the largest rank CPU times, marked: they leave out the time the ranks
    were off the CPU, not what the other processes did to the caches, nor,
    with 2 ranks, a rank's polling while the other one was away."""
    if job.clean:
        return ([v[0] for _, v in job.clean], 'wall %d/%d' % (len(job.clean), job.tries()),
                [job.states.get(r) for r, _ in job.clean])
    return ([v[1] for _, v in job.dirty], 'cpu* 0/%d' % job.tries(),
            [job.states.get(r) for r, _ in job.dirty])


# ---- HPC Challenge: one hpcc run gives every test's figures ---------------

HPCCINF = """HPLinpack benchmark input file
Innovative Computing Laboratory, University of Tennessee
HPL.out      output file name (if any)
8            device out (6=stdout,7=stderr,file)
1            # of problems sizes (N)
{n}          Ns
1            # of NBs
{nb}         NBs
0            PMAP process mapping (0=Row-,1=Column-major)
1            # of process grids (P x Q)
1            Ps
{q}          Qs
16.0         threshold
1            # of panel fact
2            PFACTs (0=left, 1=Crout, 2=Right)
1            # of recursive stopping criterium
4            NBMINs (>= 1)
1            # of panels in recursion
2            NDIVs
1            # of recursive panel fact.
1            RFACTs (0=left, 1=Crout, 2=Right)
1            # of broadcast
1            BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)
1            # of lookahead depth
1            DEPTHs (>=0)
2            SWAP (0=bin-exch,1=long,2=mix)
64           swapping threshold
0            L1 in (0=transposed,1=no-transposed) form
0            U  in (0=transposed,1=no-transposed) form
1            Equilibration (0=no,1=yes)
8            memory alignment in double (> 0)
##### This line (no. 32) is ignored (it serves as a separator). ######
0                      		Number of additional problem sizes for PTRANS
1200 10000 30000        	values of N
0                       	number of additional blocking sizes for PTRANS
40 9 8 13 13 20 16 32 64       	values of NB
"""


def hpcc_summary(text):
    """The key=value lines between hpcc's summary markers."""
    m = re.search(r'Begin of Summary section.*?\n(.*?)End of Summary section', text, re.S)
    out = {}
    for line in (m.group(1) if m else '').splitlines():
        if '=' in line:
            k, v = line.split('=', 1)
            try:
                out[k.strip()] = float(v)
            except ValueError:
                out[k.strip()] = v.strip()
    return out


def host_busy_s():
    """Seconds of CPU the whole host has spent busy since boot, every CPU
    (/proc/stat: user, nice, system, irq, softirq, steal; not idle, iowait)."""
    with open('/proc/stat') as f:
        v = [int(x) for x in f.readline().split()[1:9]]
    return (v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / os.sysconf('SC_CLK_TCK')


def hpcc_jobs(args):
    """An hpcc run at each size on 1 and 2 ranks: [(n, ranks, job)].  hpcc
    prints wall times only, and mpirun's start-up and tear-down (a third of
    a short run) leave the CPUs idle, so the ranks' own CPU time cannot say
    whether a run was disturbed: a run counts as undisturbed when the host's
    busy time (/proc/stat, steal included) less what mpirun and its ranks
    used is below 5% of the wall time (no other process took a twentieth
    of a CPU)."""
    out = []
    nb = 80
    for n in ((1000,) if args.quick else (1000, 2000)):
        for ranks in (1, 2):
            def once(n=n, ranks=ranks):
                with tempfile.TemporaryDirectory() as tmp:
                    with open(os.path.join(tmp, 'hpccinf.txt'), 'w') as f:
                        f.write(HPCCINF.format(n=n, nb=nb, q=ranks))
                    r0, b0, t0 = (resource.getrusage(resource.RUSAGE_CHILDREN),
                                  host_busy_s(), time.monotonic())
                    mpirun(ranks, ['hpcc'], cwd=tmp)
                    r1, b1, t1 = (resource.getrusage(resource.RUSAGE_CHILDREN),
                                  host_busy_s(), time.monotonic())
                    ours = r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime
                    others = (b1 - b0) - ours
                    with open(os.path.join(tmp, 'hpccoutf.txt'), encoding='utf-8',
                              errors='replace') as f:
                        return hpcc_summary(f.read()), others < 0.05 * (t1 - t0)
            out.append((n, ranks, Job('hpcc n=%d np%d' % (n, ranks), once,
                                      lambda f: f['HPL_time'])))
    return out


def hpcc_rows(args, ranks, job):
    """The rows of one hpcc job's tests: (test, size, ws, ranks, measured
    times, how, (workload, defines)); its undisturbed runs, else all of
    them, marked."""
    rows = []
    figs = [v for _, v in (job.clean or job.dirty)]
    how = 'wall %d/%d' % (len(job.clean), job.tries()) if job.clean \
        else 'wall* 0/%d' % job.tries()
    ex = os.path.join(args.root, 'wsl', 'examples')
    s = figs[0]
    # STREAM triad, one process alone (Single) and all at once (Star):
    # the time of one triad over the vector, 3 doubles an element.
    vs = int(s['STREAM_VectorSize'])
    key = 'SingleSTREAM_Triad' if ranks == 1 else 'StarSTREAM_Triad'
    meas = [24.0 * vs / (f[key] * 1e9) for f in figs]
    pred = (os.path.join(ex, 'hpcc-stream.xml'),
            {'n': vs, 'procs': ranks, 'ntimes': 1, 'kernels': 1})
    rows.append(('hpcc-stream', 'triad, %d' % vs, 3 * 8 * vs, ranks, meas, how, pred))
    # DGEMM: one n x n product, 2 n^3 flops (Single / Star).  Star is
    # the mean of the ranks' rates, each for one cold product timed on
    # its own (hpcc's DGEMM/onecpu.c, tstdgemm.c): 2 n^3 over it is the
    # harmonic mean of the ranks' times, what the model predicts for each
    dn = int(s['DGEMM_N'])
    key = 'SingleDGEMM_Gflops' if ranks == 1 else 'StarDGEMM_Gflops'
    meas = [2.0 * dn ** 3 / (f[key] * 1e9) for f in figs]
    pred = (os.path.join(ex, 'hpcc-dgemm.xml'),
            {'n': dn, 'procs': ranks})
    rows.append(('hpcc-dgemm', 'n %d' % dn, 3 * 8 * dn * dn, ranks, meas, how, pred))
    # PTRANS: A = A^T + B over the P x Q grid.  hpcc runs 5 transposes
    # and reports the last one's time (the slowest rank's; PTRANS_GBs
    # is the slowest of the 5, the first, which pays for new buffers)
    pn = int(s['PTRANS_n'])
    meas = [f['PTRANS_time'] for f in figs]
    pred = (os.path.join(ex, 'hpcc-ptrans.xml'),
            {'n': pn, 'nb': int(s['PTRANS_nb']), 'procs': ranks})
    rows.append(('hpcc-ptrans', 'n %d' % pn, 2 * 8 * pn * pn // ranks, ranks, meas, how, pred))
    # HPL: LU of n x n with partial pivoting, 1 x Q grid
    hn = int(s['HPL_N'])
    meas = [f['HPL_time'] for f in figs]
    pred = (os.path.join(ex, 'hpcc-hpl.xml'),
            {'n': hn, 'nb': int(s['HPL_NB']), 'procs': ranks})
    rows.append(('hpcc-hpl', 'n %d' % hn, 8 * hn * hn // ranks, ranks, meas, how, pred))
    return rows


# ---- LAMMPS: captured, replayed; measured uncaptured ----------------------

LAMMPS_EXAMPLES = '/usr/share/lammps/examples'
CAPTURES = 3
# shared memory only, as capture.sh runs them
LAMMPS_ENV = dict(os.environ, OMPI_MCA_btl='self,vader')


def lammps_inputs(work):
    """Write the inputs into work/lammps: melt with a box of 6 and of 10 fcc
    cells (864 and 4000 atoms, 250 steps), crack as it is (2-D, 5000
    steps).  Returns [(name, size, input file)]."""
    d = os.path.join(work, 'lammps')
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(LAMMPS_EXAMPLES, 'melt', 'in.melt')) as f:
        melt = f.read()
    box = re.compile(r'(region\s+box\s+block)\s+0 10 0 10 0 10')
    if not box.search(melt):
        raise RuntimeError('in.melt changed: its box "block 0 10 0 10 0 10" not found')
    out = []
    for cells, atoms in ((6, 864), (10, 4000)):
        name = 'in.melt%d' % cells
        with open(os.path.join(d, name), 'w') as f:
            f.write(box.sub(r'\1 0 %d 0 %d 0 %d' % (cells, cells, cells), melt))
        out.append(('melt-%d' % atoms, 'melt, %d atoms' % atoms, name))
    with open(os.path.join(LAMMPS_EXAMPLES, 'crack', 'in.crack')) as f:
        crack = f.read()
    with open(os.path.join(d, 'in.crack'), 'w') as f:
        f.write(crack)
    out.append(('crack', 'crack, 2-D', 'in.crack'))
    return d, out


def lammps_span(args, ranks, cwd, infile):
    """One uncaptured run: the slowest rank's span (end of MPI_Init to
    MPI_Finalize) and whether every rank had the CPU for 95% of it."""
    cmd = ['mpirun', '-np', str(ranks), '-x', 'LD_PRELOAD=' + args.span_lib,
           'lmp', '-in', infile, '-log', 'none', '-screen', 'none']
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, env=LAMMPS_ENV)
    spans = re.findall(r'pti-span rank=\d+ span_s=([0-9.eE+-]+) cpu_s=([0-9.eE+-]+)', r.stderr)
    if r.returncode != 0 or len(spans) != ranks:
        raise RuntimeError('%s failed (%d):\n%s' % (' '.join(cmd), r.returncode, r.stderr[-2000:]))
    span = max(float(s) for s, _ in spans)
    cpu = max(float(c) for _, c in spans)
    busy = min(float(c) / float(s) for s, c in spans)
    return span, cpu, busy >= 0.95


def lammps_ready(args):
    """Whether LAMMPS can be measured and captured here (else why, printed)."""
    if not (os.path.isdir(LAMMPS_EXAMPLES) and subprocess.run(
            ['sh', '-c', 'command -v lmp'], capture_output=True).returncode == 0):
        print('# lammps: skipped (apt-get install lammps lammps-examples)', file=sys.stderr)
        return False
    if not os.path.exists(os.path.join(args.build, 'capture', 'libpticapture.so')):
        print('# lammps: skipped (pti was built without MPI: no pticapture library)',
              file=sys.stderr)
        return False
    return True


def lammps_jobs(args, capdir):
    """Each LAMMPS case on 1 and 2 ranks: [(name, size, infile, ranks, job)].
    A run's value is the uncaptured run's (span, CPU time), undisturbed when
    every rank had the CPU for 95% of its span; in each of the first
    CAPTURES rounds the job also captures the case (pticapture), so that
    its captures see the host as its measured runs do, not as it was at
    another time (job.captures: the trace directories)."""
    d, inputs = lammps_inputs(args.work)
    out = []
    for name, size, infile in (inputs[:2] if args.quick else inputs):
        for ranks in (1, 2):
            case = 'lammps-%s-np%d' % (name, ranks)
            job = Job('lammps %s np%d' % (name, ranks), None, lambda v: v[0])
            job.ranks = ranks
            job.captures = []

            def once(job=job, ranks=ranks, infile=infile, case=case):
                span, cpu, ok = lammps_span(args, ranks, d, infile)
                # with --alt-system, a 2-rank case captures in every round: each
                # state's row replays a capture of its own state
                if len(job.captures) < CAPTURES or (ranks == 2 and args.alt_system):
                    trace = os.path.join(capdir, '%s.%d' % (case, len(job.captures)))
                    subprocess.run(['rm', '-rf', trace], check=True)
                    r = subprocess.run([os.path.join(args.build, 'cli', 'pticapture'), '-q',
                                        '-o', trace, '--', 'mpirun', '-np', str(ranks), 'lmp',
                                        '-in', infile, '-log', 'none', '-screen', 'none'],
                                       capture_output=True, text=True, cwd=d, env=LAMMPS_ENV)
                    if r.returncode != 0:
                        raise RuntimeError('pticapture of %s failed:\n%s'
                                           % (case, r.stderr[-2000:]))
                    job.captures.append(trace)
                return (span, cpu), ok
            job.once = once
            out.append((name, size, infile, ranks, job))
    return out


def lammps_row(args, capdir, name, size, ranks, job):
    """A LAMMPS case's row: its measured spans (the CPU times, marked, when
    no run was undisturbed) and the capture, of those its rounds took,
    whose replay on --system is the median."""
    if job.clean:
        times, how = [v[0] for _, v in job.clean], 'wall %d/%d' % (len(job.clean), job.tries())
        states = [job.states.get(r) for r, _ in job.clean]
    else:
        times, how = [v[1] for _, v in job.dirty], 'cpu* 0/%d' % job.tries()
        states = [job.states.get(r) for r, _ in job.dirty]
    case = 'lammps-%s-np%d' % (name, ranks)
    keep = os.path.join(capdir, case)
    # Each MPI state's row replays a capture taken in that state (the
    # state slows the computation too: a capture's bursts hold it): the
    # state's captures, else all of them for --system; kept as CASE and,
    # for --alt-system, CASE.alt (by_state).
    cstates = getattr(job, 'capture_states', [])
    for key, system, dest in (('sys', args.system, keep), ('alt', args.alt_system, keep + '.alt')):
        subprocess.run(['rm', '-rf', dest], check=True)
        mine = [t for t, st in zip(job.captures, cstates) if st == key]
        if key == 'sys' and not mine:
            mine = [t for t in job.captures if os.path.isdir(t)]
        if not system or not mine:
            continue
        caps = sorted((ptieval(args, system, trace, {}), trace) for trace in mine)
        os.rename(caps[len(caps) // 2][1], dest)
    for trace in job.captures:
        subprocess.run(['rm', '-rf', trace], check=True)
    return ('lammps-' + name.split('-')[0], size, 0, ranks, times, how, (keep, {}), states)


def workload_path(args, path, base):
    """A row's workload as the measurements file keeps it: an example
    relative to the source tree (older files name it absolutely, from the
    tree they ran in), a capture relative to the file's directory."""
    if path.startswith('@examples/'):
        return os.path.join(args.root, 'wsl', 'examples', path[len('@examples/'):])
    if '/wsl/examples/' in path:
        return os.path.join(args.root, 'wsl', 'examples', path.split('/wsl/examples/')[-1])
    return os.path.join(base, path)


def stored_path(args, path, base):
    ex = os.path.join(args.root, 'wsl', 'examples') + os.sep
    if path.startswith(ex):
        return '@examples/' + path[len(ex):]
    return os.path.relpath(path, base)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--root', required=True)
    ap.add_argument('--build', required=True)
    ap.add_argument('--work', required=True)
    ap.add_argument('--system', required=True)
    ap.add_argument('--runs', type=int, default=5)
    ap.add_argument('--only', default='sweep3d,cg,hpcc,lammps')
    ap.add_argument('--span-lib', default='',
                    help='libptispan.so (tests/bench/capture/span.c), for the LAMMPS rows')
    ap.add_argument('--quick', action='store_true')
    ap.add_argument('--models', default='',
                    help='comma-separated CPU models to predict with (ptieval --use-model); '
                         'MODEL+units: on the system with overlap="units" on its <cpu_clc>')
    ap.add_argument('--measurements', default='',
                    help='JSON file of measured times: read if it exists, else written')
    ap.add_argument('--state-probe', default='',
                    help='the MPI probe (calibrate/mpi-probe.c) that brackets each 2-rank run')
    ap.add_argument('--alt-system', default='',
                    help='the same host calibrated in its other MPI state: its 2-rank runs '
                         'predicted on it')
    args = ap.parse_args()
    args.state_log = []
    args.state_price = state_prices(args) if args.state_probe else {}
    args.units_made = set()
    # LAMMPS runs in a directory of its own: the paths it is given must hold there
    args.build, args.span_lib = os.path.abspath(args.build), os.path.abspath(args.span_lib)
    only = set(args.only.split(','))
    ex = os.path.join(args.root, 'wsl', 'examples')
    models = [m for m in args.models.split(',') if m] or [None]

    # rows: (program, size, ws, ranks, measured times, how, (workload, defines))
    base = os.path.dirname(os.path.abspath(args.measurements)) if args.measurements else args.work
    capdir = (os.path.splitext(os.path.abspath(args.measurements))[0] + '.captures'
              if args.measurements else os.path.join(args.work, 'captures'))
    # A measurements file that exists gives its rows; a program of --only
    # it has no row of is measured and added to it (the LAMMPS rows added
    # to a file of the other programs' times).
    kept = []
    if args.measurements and os.path.exists(args.measurements):
        # The workload is this tree's file of the recorded name: the file
        # keeps the path of the tree that measured, which may be gone or
        # hold an older model.
        with open(args.measurements) as f:
            kept = [tuple(r[:6]) + ((workload_path(args, r[6][0], base), r[6][1]),
                                    r[7] if len(r) > 7 else None)
                    for r in json.load(f)]
        print('# measured times from %s' % args.measurements, file=sys.stderr)
    have = {r[0].split('-')[0] for r in kept}
    todo = only - have
    new_rows = []
    cases = []
    if 'sweep3d' in todo:
        cases += sweep3d_cases(args.quick)
    if 'cg' in todo:
        cases += cg_cases(args.quick)
    programs = [(c, program_job(args, c[0], c[3], c[4])) for c in cases]
    hpccs = hpcc_jobs(args) if 'hpcc' in todo else []
    lammps = []
    if 'lammps' in todo and lammps_ready(args):
        os.makedirs(capdir, exist_ok=True)
        lammps = lammps_jobs(args, capdir)
    jobs = [j for _, j in programs] + [j for _, _, j in hpccs] + [c[-1] for c in lammps]
    walls = measure_in_rounds(args, jobs)
    for (prog, size, ws, ranks, params), job in programs:
        times, how, states = program_times(job)
        new_rows.append((prog, size, ws, ranks, times, how,
                         (os.path.join(ex, prog + '.xml'), params), states))
        print_measured(new_rows[-1])
    for n, ranks, job in hpccs:
        for row in hpcc_rows(args, ranks, job):
            new_rows.append(row + (None,))
            print_measured(row)
    for name, size, infile, ranks, job in lammps:
        new_rows.append(lammps_row(args, capdir, name, size, ranks, job))
        print_measured(new_rows[-1])
    drift = host_drift(jobs, walls)
    if args.measurements and new_rows:
        with open(args.measurements, 'w') as f:
            json.dump([r[:6] + ((stored_path(args, r[6][0], base), r[6][1]),)
                       + ((r[7],) if r[7] else ()) for r in kept + new_rows], f, indent=1)
    rows = by_state(args, [r for r in kept + new_rows if r[0].split('-')[0] in only])

    preds = [[ptieval(args, system, wl, defines, m) for m in models]
             for (_, _, _, _, _, _, (wl, defines), _, system) in rows]
    print()
    head = '%-12s %-20s %10s %5s %12s %-11s %-14s %7s' % (
        'program', 'size', 'ws/rank', 'ranks', 'measured s', 'how, runs', 'state', 'spread')
    for m in models:
        head += ' %*s %8s' % (width(m), (m or 'predicted') + ' s', 'error')
    print(head)
    errors = [{} for _ in models]
    for row, pr in zip(rows, preds):
        prog, size, ws, ranks, times, how, _, state, _ = row
        med = statistics.median(times)
        spread = (max(times) - min(times)) / med
        line = '%-12s %-20s %10s %5d %12.5g %-11s %-14s %6.1f%%' % (
            prog, size, human(ws), ranks, med, how, state, 100 * spread)
        for k, p in enumerate(pr):
            line += ' %*.5g %+7.1f%%' % (width(models[k]), p, 100 * (p - med) / med)
            errors[k].setdefault(prog, []).append((p - med) / med)
        print(line)
    notes = []
    if any(r[0].startswith('lammps') for r in rows):
        notes.append('lammps rows: predicted through a capture (pticapture), its computation the '
                     'capture\'s measured bursts priced by the CPU model at the system\'s '
                     'speed_ratio (every CPU model prices a burst alike: t / speed_ratio); '
                     'measured, the span the replay predicts (end of MPI_Init to MPI_Finalize, '
                     'the slowest rank) of uncaptured runs.')
    if any(r[0].startswith('hpcc') for r in rows):
        notes.append('hpcc rows: hand models; DGEMM and HPL as flops at the system\'s '
                     'flop_rate (every CPU model alike), STREAM as its memory references '
                     '(cpu-clc) plus its reads and stores at the memory profile (cpu-mem), '
                     'PTRANS as cpu-clc operations and messages plus its runs of A and C at '
                     'the memory profile (cpu-mem).')
    if any('*' in r[5] for r in rows):
        notes.append('how *: no run was undisturbed (the host was busier than its CPUs); the '
                     'median of the CPU times (hpcc: of the wall times), marked.')
    if any(r[7] != '-' for r in rows):
        notes.append('state: the MPI state of the 2-rank runs (their bracketing probes, 16 KiB '
                     'one way against each system\'s price), s %s (--system), a %s '
                     '(--alt-system), m mixed, ? neither; the row\'s runs are those of its state, '
                     'after the colon (~: none was, all runs).'
                     % tuple(('%.3g us' % (args.state_price[k] * 1e6) if k in args.state_price
                              else '-') for k in ('sys', 'alt')))
        if args.state_log:
            v = sorted(args.state_log)
            notes.append('state probes: %d, 16 KiB one way %.3g to %.3g us, median %.3g.'
                         % (len(v), v[0] * 1e6, v[-1] * 1e6, statistics.median(v) * 1e6))
    if notes:
        print()
        for n in notes:
            print('Note: ' + n)
    for k, m in enumerate(models):
        print()
        if m:
            print('CPU model %s:' % m)
        allerr = [abs(e) for es in errors[k].values() for e in es]
        for prog, es in errors[k].items():
            a = [abs(e) for e in es]
            print('%-12s median |error| %5.1f%%, largest %5.1f%% (%d cases)'
                  % (prog, 100 * statistics.median(a), 100 * max(a), len(a)))
        print('%-12s median |error| %5.1f%%, largest %5.1f%% (%d cases)'
              % ('all', 100 * statistics.median(allerr), 100 * max(allerr), len(allerr)))
    if drift:
        print()
        print('Host speed while measuring, round by round (the median over the jobs of a '
              'round\'s time over the job\'s median time; 1.10: 10% slower):')
        print('  ' + ', '.join('round %d %.3f (%d jobs, %.0f s)' % d for d in drift))


def by_state(args, rows):
    """The table's rows, each with its state column and the system it is
    predicted on: a row without MPI states (1 rank, no --state-probe, an
    older measurements file) as it is, on --system; a 2-rank row with
    states split: its runs in the state of --system and, with
    --alt-system, those in the other state, each on its system (a state
    without runs has no row; when neither state has any, all the runs on
    --system, marked ~)."""
    out = []
    for r in rows:
        states = r[7] if len(r) > 7 else None
        if r[3] != 2 or not states or not any(states):
            out.append(tuple(r[:7]) + ('-', args.system))
            continue
        count = ' '.join('%d%s' % (states.count(k), k[0]) for k in ('sys', 'alt', 'mixed', '?')
                         if states.count(k))
        split = [(key, system, [t for t, st in zip(r[4], states) if st == key])
                 for key, system in (('sys', args.system), ('alt', args.alt_system)) if system]
        if not any(pick for _, _, pick in split):
            out.append(tuple(r[:7]) + ('sys:~' + count, args.system))
        for key, system, pick in split:
            if pick:
                wl = r[6]
                if key == 'alt' and os.path.isdir(wl[0] + '.alt'):
                    wl = (wl[0] + '.alt', wl[1])   # a capture of that state (lammps_row)
                out.append(tuple(r[:4]) + (pick, r[5], wl, key + ':' + count, system))
    return out


def print_measured(row):
    prog, size, ws, ranks, times, how = row[:6]
    med = statistics.median(times)
    print('# %-12s %-20s %10s %5d %12.5g %-11s %6.1f%%' % (
        prog, size, human(ws), ranks, med, how, 100 * (max(times) - min(times)) / med),
        file=sys.stderr, flush=True)


if __name__ == '__main__':
    main()
