#!/usr/bin/env python3
"""Structural checker of a Paraver trace (PREFIX.prv, .pcf, .row), written
from shared/formats/paraver.md, independently of ptitrace's code.

    check-paraver.py PREFIX [TRACE.xml]

Checks: the header grammar (section 3) and its counts against the body, the
communicator lines (4), every record's field count, integers only, object
ids and the CPU/node rule (2), times within [0, FTIME] (11.6), states that
neither overlap nor leave gaps on each thread (5.1), communications with
both ends valid and physical send <= physical receive (5.3), records sorted
by time (5.5), every state and event type declared in the .pcf (9) once, the
values of a type with a VALUES list among them (names of RUDs, links), the .row
levels and sizes (10), LF endings and no blank-with-spaces lines.  With the
pti trace: the communication records are exactly the trace's messages with
the times section 5.3 defines (logical send = the send posted, physical send
= its data entered the network, logical receive = the receive posted,
physical receive = the data arrived: the trace's start or posted, injected,
posted and arrived), size and tag; per thread the time in Running is the
trace's compute events outside collective calls, Group Communication the
non-blocked time inside them, Synchronization the time blocked on a peer and
the Derived state the derived spans (within 1 ns per event), and the
summary's compute and wait agree when there is neither; one MPI Collective
Comm event per collective call, one MPI_Waitall (6) per waitall outside
collectives.
Prints what it checked; exits 1 with the first problems found."""
import re
import sys
import xml.etree.ElementTree as ET

errors = []


def fail(msg):
    errors.append(msg)
    if len(errors) >= 20:
        finish()


def finish():
    if errors:
        for e in errors:
            print("check-paraver: " + e, file=sys.stderr)
        sys.exit(1)


def read_lines(path):
    data = open(path, "rb").read()
    if b"\r" in data:
        fail(f"{path}: CR characters (LF line endings only)")
    if data and not data.endswith(b"\n"):
        fail(f"{path}: the last line has no newline")
    return data.decode("ascii" if path.endswith(".prv") else "utf-8").split("\n")[:-1]


HEADER = re.compile(r"^#Paraver \(([^)]*)\):(\d+)(_ns|_us|_ms)?:(.*)$")


def parse_header(line):
    m = HEADER.match(line)
    if not m:
        fail(f"header line does not match '#Paraver (DATE):FTIME_ns:...': {line[:80]}")
        finish()
    ftime, unit, rest = int(m.group(2)), m.group(3), m.group(4)
    if unit != "_ns":
        fail("the header's time unit is not _ns")
    # RESOURCES
    m = re.match(r"^(\d+)(\(([\d,]+)\))?:(.*)$", rest)
    if not m:
        fail(f"bad resources in the header: {rest[:40]}")
        finish()
    nnodes = int(m.group(1))
    cpus = [int(x) for x in m.group(3).split(",")] if m.group(3) else [1] * nnodes
    if len(cpus) != nnodes:
        fail(f"{nnodes} nodes but {len(cpus)} CPU counts")
    if any(c < 1 for c in cpus):
        fail("a node has no CPU")
    rest = m.group(4)
    m = re.match(r"^(\d+):(.*)$", rest)
    nappl, rest = int(m.group(1)), m.group(2)
    apps = []
    for a in range(nappl):
        m = re.match(r"^(\d+)\(([^)]*)\)(.*)$", rest)
        if not m:
            fail(f"application {a + 1}: bad task list")
            finish()
        ntasks = int(m.group(1))
        tasks = []
        for t in m.group(2).split(","):
            th, node = t.split(":")
            tasks.append((int(th), int(node)))
        if len(tasks) != ntasks:
            fail(f"application {a + 1}: {ntasks} tasks declared, {len(tasks)} listed")
        for th, node in tasks:
            if th < 1 or node < 1 or node > nnodes:
                fail(f"application {a + 1}: a task has {th} threads on node {node}")
        apps.append(tasks)
        rest = m.group(3)
        if a + 1 < nappl:
            if not rest or rest[0] not in ",:":
                fail("applications not separated by ',' or ':'")
            rest = rest[1:]
    ncomm = 0
    if rest:
        m = re.match(r"^,(\d+)$", rest)
        if not m:
            fail(f"trailing header text: {rest}")
        else:
            ncomm = int(m.group(1))
    return ftime, cpus, apps, ncomm


def ns(text):
    """Seconds with nine fraction digits to integer ns, exactly."""
    whole, frac = text.split(".")
    return int(whole) * 10**9 + int(frac)


def check_trace(path, comms, comm_records, intervals, values):
    """The Paraver records against the pti trace (format in traces/README.md)."""
    sends, recvs = {}, {}        # msg -> (rank, peer, posted, injected, done, bytes, tag)
    derived = 0
    compute, wait, nev = {}, {}, {}
    run, group, sync, der = {}, {}, {}, {}
    calls = waitalls = 0
    in_coll = {}
    rank = None
    for ev, el in ET.iterparse(path, events=("start", "end")):
        tag = el.tag.split("}")[-1]
        if ev == "start":
            if tag == "process" and el.get("processor") is None and el.get("compute") is None:
                rank = int(el.get("rank"))
            continue
        if tag == "event":
            kind = el.get("kind")
            start, end = ns(el.get("start")), ns(el.get("end"))
            w = ns(el.get("wait")) if el.get("wait") else 0
            inside = in_coll.get(rank, False)
            if kind == "compute":
                if inside:
                    group[rank] = group.get(rank, 0) + end - start
                else:
                    run[rank] = run.get(rank, 0) + end - start
            elif inside:
                group[rank] = group.get(rank, 0) + end - start - w
            sync[rank] = sync.get(rank, 0) + w
            waitalls += kind == "waitall" and not inside
            ends = []
            if kind in ("send", "recv"):
                ends.append((kind, el, start))
            for req in el:
                ends.append(("send" if req.get("kind") == "isend" else "recv", req, ns(req.get("posted"))))
            for side, e, posted in ends:
                done = ns(e.get("left") if side == "send" else e.get("arrived"))
                rec = (rank, int(e.get("peer")), posted, ns(e.get("injected")), done,
                       int(e.get("bytes")), int(e.get("tag")))
                (sends if side == "send" else recvs)[int(e.get("msg"))] = rec
            el.clear()
        elif tag == "collective":
            in_coll[rank] = el.get("phase") == "begin"
            calls += el.get("phase") == "begin"
        elif tag == "derived":
            der[rank] = der.get(rank, 0) + ns(el.get("end")) - ns(el.get("start"))
        elif tag == "summary":
            derived = int(el.get("derived", "0"))
        elif tag == "process" and el.get("compute") is not None:
            r = int(el.get("rank"))
            compute[r] = ns(el.get("compute"))
            wait[r] = ns(el.get("wait"))
            nev[r] = int(el.get("events"))
        elif tag == "process":
            el.clear()
    if sends.keys() != recvs.keys():
        fail(f"the trace's messages do not pair: {sorted(sends.keys() ^ recvs.keys())[:5]}")
    want = sorted((s[0], r[0], s[2], s[3], r[2], r[4], s[5], s[6])
                  for m, s in sends.items() for r in [recvs.get(m)] if r)
    if sorted(comm_records) != want:
        missing = [w for w in want if w not in comm_records][:3]
        extra = [c for c in comm_records if c not in want][:3]
        fail(f"communication records differ from the trace's messages (sender, receiver, "
             f"logical send, physical send, logical receive, physical receive, size, tag): "
             f"expected {missing}, found {extra}")
    for r in nev:
        iv = intervals.get((1, r + 1, 1), [])
        tol = nev[r] + 1
        got = {st: sum(e - b for b, e, s in iv if s == st) for st in (1, 5, 13, 100)}
        for st, name, exp in ((1, "Running", run), (5, "Synchronization", sync),
                              (13, "Group Communication", group), (100, "Derived", der)):
            if abs(got[st] - exp.get(r, 0)) > tol:
                fail(f"rank {r}: {got[st]} ns {name}, the trace's events say {exp.get(r, 0)} ns")
        if derived == 0 and calls == 0:
            if abs(got[1] - compute[r]) > tol:
                fail(f"rank {r}: {got[1]} ns Running, the trace's summary says {compute[r]} ns compute")
            if abs(got[5] - wait[r]) > tol:
                fail(f"rank {r}: {got[5]} ns Synchronization, the trace's summary says {wait[r]} ns wait")
    coll_events = sum(n for (ty, v), n in values.items() if ty == 50000002 and v != 0)
    if coll_events != calls:
        fail(f"{coll_events} MPI Collective Comm events for {calls} collective calls in the trace")
    if values.get((50000001, 6), 0) != waitalls:
        fail(f"{values.get((50000001, 6), 0)} MPI_Waitall events for {waitalls} waitalls in the trace")
    if comms != len(sends):
        fail(f"{comms} communication records for {len(sends)} messages in the trace")
    extra = (f"; {len(sends)} messages with their times, states per rank, {calls} collective calls "
             "agree with the trace")
    if derived:
        extra += f" ({derived} derived events in Derived states)"
    return extra


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    prefix = sys.argv[1]
    if prefix.endswith(".prv"):
        prefix = prefix[:-4]
    prv = read_lines(prefix + ".prv")
    pcf = read_lines(prefix + ".pcf")
    row = read_lines(prefix + ".row")
    if not prv or not prv[0].startswith("#Paraver ("):
        fail("the .prv does not start with '#Paraver ('")
        finish()
    ftime, cpus, apps, ncomm = parse_header(prv[0])
    node_first = []
    n = 1
    for c in cpus:
        node_first.append(n)
        n += c
    ncpus = n - 1
    for i in range(ncomm):
        line = prv[1 + i] if 1 + i < len(prv) else ""
        if not re.match(r"^[cCiI]:\d+(:\d+)+$", line):
            fail(f"communicator line {i + 1} is not a c:/i: line: {line[:60]}")
        elif line[0] in "cC":
            f = [int(x) for x in line.split(":")[1:]]
            appl, ntasks, members = f[0], f[2], f[3:]
            if appl < 1 or appl > len(apps) or len(members) != ntasks:
                fail(f"communicator line {i + 1}: bad application or member count")
            elif any(m < 1 or m > len(apps[appl - 1]) for m in members):
                fail(f"communicator line {i + 1}: a member is not a task of application {appl}")

    # .pcf: states and event types
    states, types = set(), set()
    labelled = {}       # event type -> the values its block's VALUES list names
    block = []          # event types of the current EVENT_TYPE block
    section = None
    in_values = False
    for i, line in enumerate(pcf):
        if line.strip() == "" and line != "":
            fail(f".pcf line {i + 1}: a line of spaces only")
        s = line.strip()
        if s in ("DEFAULT_OPTIONS", "DEFAULT_SEMANTIC", "STATES", "STATES_COLOR", "EVENT_TYPE",
                 "GRADIENT_COLOR", "GRADIENT_NAMES"):
            section, in_values, block = s, False, []
            continue
        if not s or s.startswith("#"):
            continue
        if section == "STATES":
            m = re.match(r"^(\d+)\s+\S", s)
            if not m:
                fail(f".pcf line {i + 1}: bad STATES line")
            else:
                states.add(int(m.group(1)))
        elif section == "STATES_COLOR":
            if not re.match(r"^\d+\s+\{\d+,\d+,\d+\}$", s):
                fail(f".pcf line {i + 1}: bad STATES_COLOR line")
        elif section == "EVENT_TYPE":
            if s == "VALUES":
                in_values = True
                for ty in block:
                    labelled.setdefault(ty, set())
                continue
            if in_values:
                m = re.match(r"^(-?\d+)\s+\S", s)
                if not m or not -2**31 <= int(m.group(1)) < 2**31:
                    fail(f".pcf line {i + 1}: bad value line")
                else:
                    for ty in block:
                        labelled[ty].add(int(m.group(1)))
            else:
                m = re.match(r"^(\d+)\s+(\d+)\s+\S", s)
                if not m:
                    fail(f".pcf line {i + 1}: bad event type line")
                else:
                    if int(m.group(2)) in types:
                        fail(f".pcf line {i + 1}: event type {m.group(2)} declared twice")
                    types.add(int(m.group(2)))
                    block.append(int(m.group(2)))

    # .row
    levels = {}
    i = 0
    while i < len(row):
        line = row[i]
        if line.startswith("LEVEL"):
            m = re.match(r"^LEVEL (CPU|NODE|THREAD|TASK|APPL|WORKLOAD|SYSTEM) SIZE (\d+)$", line)
            if not m:
                fail(f".row line {i + 1}: bad LEVEL line: {line}")
                i += 1
                continue
            size = int(m.group(2))
            names = row[i + 1:i + 1 + size]
            if len(names) != size:
                fail(f".row: level {m.group(1)} has fewer than {size} names")
            levels[m.group(1)] = size
            i += 1 + size
        else:
            if line.strip():
                fail(f".row line {i + 1}: text outside a level block")
            i += 1
    ntasks = sum(len(a) for a in apps)
    nthreads = sum(th for a in apps for th, _ in a)
    expect = {"CPU": ncpus, "NODE": len(cpus), "THREAD": nthreads, "TASK": ntasks, "APPL": len(apps)}
    for level, size in expect.items():
        if level in levels and levels[level] != size:
            fail(f".row: LEVEL {level} SIZE {levels[level]}, the header has {size}")
    for level in ("CPU", "NODE", "THREAD"):
        if level not in levels:
            fail(f".row: no LEVEL {level}")

    # body
    def obj(f, what, lineno):
        cpu, appl, task, thread = f
        if appl < 1 or appl > len(apps) or task < 1 or task > len(apps[appl - 1]):
            fail(f".prv line {lineno}: {what}: no task {appl}:{task}")
            return None
        th, node = apps[appl - 1][task - 1]
        if thread < 1 or thread > th:
            fail(f".prv line {lineno}: {what}: no thread {appl}:{task}:{thread}")
            return None
        if cpu != 0 and not (node_first[node - 1] <= cpu < node_first[node - 1] + cpus[node - 1]):
            fail(f".prv line {lineno}: {what}: CPU {cpu} is not on node {node} of task {appl}:{task}")
        return (appl, task, thread)

    intervals = {}
    comms = 0
    comm_records = []
    values = {}          # (event type, value) -> count
    prev_time = -1
    body = 0
    for lineno, line in enumerate(prv[1 + ncomm:], start=2 + ncomm):
        if line.startswith("#"):
            continue
        body += 1
        if not re.match(r"^\d+(:-?\d+)+$", line):
            fail(f".prv line {lineno}: not colon-separated integers: {line[:60]}")
            continue
        f = [int(x) for x in line.split(":")]
        kind = f[0]
        if kind == 1:
            if len(f) != 8:
                fail(f".prv line {lineno}: a state record has 8 fields")
                continue
            o = obj(f[1:5], "state", lineno)
            begin, end, state = f[5], f[6], f[7]
            if not 0 <= begin < end <= ftime:
                fail(f".prv line {lineno}: state interval [{begin}, {end}) not within [0, {ftime}] "
                     "or empty")
            if state not in states:
                fail(f".prv line {lineno}: state {state} not declared in the .pcf")
            if o:
                intervals.setdefault(o, []).append((begin, end, state))
            t = begin
        elif kind == 2:
            if len(f) < 8 or len(f) % 2:
                fail(f".prv line {lineno}: an event record has 6 + 2k fields")
                continue
            obj(f[1:5], "event", lineno)
            t = f[5]
            if not 0 <= t <= ftime:
                fail(f".prv line {lineno}: event time {t} outside [0, {ftime}]")
            for ty, v in zip(f[6::2], f[7::2]):
                if ty < 0 or ty not in types:
                    fail(f".prv line {lineno}: event type {ty} not declared in the .pcf")
                elif ty in labelled and v not in labelled[ty]:
                    fail(f".prv line {lineno}: value {v} of event type {ty} is not in its VALUES")
                values[(ty, v)] = values.get((ty, v), 0) + 1
        elif kind == 3:
            if len(f) != 15:
                fail(f".prv line {lineno}: a communication record has 15 fields")
                continue
            s = obj(f[1:5], "communication sender", lineno)
            r = obj(f[7:11], "communication receiver", lineno)
            lsend, psend, lrecv, precv, size = f[5], f[6], f[11], f[12], f[13]
            if s is None or r is None:
                fail(f".prv line {lineno}: a communication without both ends")
            for v in (lsend, psend, lrecv, precv):
                if not 0 <= v <= ftime:
                    fail(f".prv line {lineno}: communication time {v} outside [0, {ftime}]")
            if psend > precv:
                fail(f".prv line {lineno}: physical send {psend} after physical receive {precv}")
            if lsend > psend:
                fail(f".prv line {lineno}: logical send after physical send")
            if size < 0:
                fail(f".prv line {lineno}: negative size")
            comms += 1
            if s is not None and r is not None:
                comm_records.append((s[1] - 1, r[1] - 1, lsend, psend, lrecv, precv, size, f[14]))
            t = lsend
        else:
            fail(f".prv line {lineno}: unknown record type {kind}")
            continue
        if t < prev_time:
            fail(f".prv line {lineno}: records not sorted by time ({t} after {prev_time})")
        prev_time = t
    if body == 0:
        fail(".prv: empty body")
    for o, iv in sorted(intervals.items()):
        iv.sort()
        at = 0
        for b, e, _ in iv:
            if b != at:
                fail(f"thread {o}: states {'overlap' if b < at else 'leave a gap'} at {min(b, at)}")
                break
            at = e
        else:
            if at != ftime:
                fail(f"thread {o}: states end at {at}, not at FTIME {ftime}")
    for a, tasks in enumerate(apps, start=1):
        for t, (th, _) in enumerate(tasks, start=1):
            for h in range(1, th + 1):
                if (a, t, h) not in intervals:
                    fail(f"thread {a}:{t}:{h} has no state")

    extra = ""
    if len(sys.argv) == 3:
        extra = check_trace(sys.argv[2], comms, comm_records, intervals, values)
    finish()
    print(f"check-paraver: {prefix}: ok: {len(cpus)} nodes, {ncpus} CPUs, {len(apps)} applications, "
          f"{ntasks} tasks, {body} records ({comms} communications), FTIME {ftime} ns{extra}")


main()
