#!/usr/bin/env python3
"""ptitrace end to end (TAP).

    test-ptitrace.py PTITRACE

Golden outputs of every format for the samples in samples/ (two real
ptieval traces, a real halo2d trace with non-blocking messages and an
allreduce, the issue's non-blocking reproduction isend4 and the collectives
of colls4, both from workloads/, and a hand-written trace with the
contention model's records), regenerated with PTITRACE_REGENERATE=1; the structural checkers (check-paraver.py,
check-sddf.py) on them and on a live Sweep3D trace, also through the
external sort (--memory small: identical bytes); the JSON parses and its
flows pair up; plots in PNG, SVG and PDF; truncated and invalid traces give
exit 3 with FILE:LINE and leave no output; usage errors exit 2.
Environment: PTIEVAL and PTI_SOURCE_ROOT (set by tests/meson.build) for the
live trace; that case is skipped without them."""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLES = os.path.join(HERE, "samples")
GOLDEN = os.path.join(HERE, "golden")
PTITRACE = os.path.abspath(sys.argv[1])
REGEN = os.environ.get("PTITRACE_REGENERATE") == "1"
ENV = dict(os.environ, SOURCE_DATE_EPOCH="0", LC_ALL="C")
# Sanitizer builds: fontconfig's configuration is never freed (lsan.supp).
ENV["LSAN_OPTIONS"] = ":".join(filter(None, [os.environ.get("LSAN_OPTIONS"),
                                             "suppressions=" + os.path.join(HERE, "lsan.supp"),
                                             "print_suppressions=0"]))
SAMPLE_NAMES = ["pingpong", "pingpong-rendezvous", "halo2d", "contention", "isend4", "colls4"]

tests = []


def test(f):
    tests.append(f)
    return f


class Failure(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Failure(msg)


def run(args, expect=0, cwd=SAMPLES):
    p = subprocess.run([PTITRACE] + args, cwd=cwd, env=ENV, capture_output=True, text=True)
    if expect is not None and p.returncode != expect:
        raise Failure(f"ptitrace {' '.join(args)}: exit {p.returncode}, expected {expect}\n"
                      f"stdout: {p.stdout[-2000:]}\nstderr: {p.stderr[-2000:]}")
    return p


def golden(name, data):
    path = os.path.join(GOLDEN, name)
    if REGEN:
        os.makedirs(GOLDEN, exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        return
    check(os.path.exists(path), f"no golden file {name} (PTITRACE_REGENERATE=1 writes it)")
    want = open(path, "rb").read()
    if want != data:
        a, b = want.decode(errors="replace").splitlines(), data.decode(errors="replace").splitlines()
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                raise Failure(f"{name}: line {i + 1} differs:\n  golden: {x[:200]}\n  output: {y[:200]}")
        raise Failure(f"{name}: {len(b)} lines, golden {len(a)}")


def checker(script, *args):
    p = subprocess.run([sys.executable, os.path.join(HERE, script)] + list(args), capture_output=True,
                       text=True)
    if p.returncode != 0:
        raise Failure(f"{script} {' '.join(args)}:\n{p.stderr}")
    return p.stdout


def listing(d):
    return sorted(os.listdir(d))


# --------------------------------------------------------------------------
# Golden outputs and structure, per sample


def make_golden_test(name):
    trace = name + ".xml"

    def t(tmp):
        prefix = os.path.join(tmp, name)
        run(["paraver", trace, "-o", prefix])
        for ext in ("prv", "pcf", "row"):
            golden(f"{name}.{ext}", open(f"{prefix}.{ext}", "rb").read())
        checker("check-paraver.py", prefix, os.path.join(SAMPLES, trace))
        run(["sddf", trace, "-o", prefix + ".sddf"])
        golden(f"{name}.sddf", open(prefix + ".sddf", "rb").read())
        checker("check-sddf.py", prefix + ".sddf", os.path.join(SAMPLES, trace))
        run(["chrome", trace, "-o", prefix + ".json"])
        data = open(prefix + ".json", "rb").read()
        golden(f"{name}.json", data)
        check_chrome(json.loads(data), os.path.join(SAMPLES, trace))
        out = run(["summary", "--path", trace]).stdout
        golden(f"{name}.summary.txt", out.encode())
    t.__name__ = f"golden and structure: {name}"
    return t


def trace_counts(path):
    import xml.etree.ElementTree as ET
    events = messages = calls = derived = 0
    predicted = None
    for _, el in ET.iterparse(path):
        tag = el.tag.split("}")[-1]
        if tag == "event":
            events += 1
            messages += el.get("kind") in ("send", "isend")
            el.clear()
        elif tag == "collective":
            calls += el.get("phase") == "begin"
        elif tag == "derived":
            derived += 1
        elif tag == "summary":
            predicted = float(el.get("predicted_time"))
    return events, messages, predicted, calls, derived


def check_chrome(doc, trace):
    events, messages, predicted, calls, derived = trace_counts(trace)
    ev = doc["traceEvents"]
    slices = [e for e in ev if e["ph"] == "X" and e.get("cat") not in ("blocked", "collective", "derived")]
    check(len(slices) == events, f"{len(slices)} slices for {events} events")
    check(len([e for e in ev if e.get("cat") == "collective"]) == calls, "a slice per collective call")
    check(len([e for e in ev if e.get("cat") == "derived"]) == derived, "a slice per derived span")
    starts = {e["id"]: e for e in ev if e["ph"] == "s"}
    ends = {e["id"]: e for e in ev if e["ph"] == "f"}
    check(len(starts) == messages and len(ends) == messages and starts.keys() == ends.keys(),
          f"flows: {len(starts)} starts, {len(ends)} ends, {messages} messages")
    for i, f in ends.items():
        check(f.get("bp") == "e", "a flow end does not bind to its enclosing slice")
        check(f["ts"] >= starts[i]["ts"], f"message {i}: the flow ends before it starts")
    for e in ev:
        if "ts" in e:
            check(e["ts"] >= 0 and e["ts"] + e.get("dur", 0) <= predicted * 1e6 + 1e-6,
                  f"event outside [0, predicted]: {e}")
    names = {e["pid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
    check(all(f"rank {r}" == names[r] for r in range(len([n for n in names.values()
                                                           if n.startswith("rank")]))),
          "process names")


for _n in SAMPLE_NAMES:
    test(make_golden_test(_n))


@test
def diff_golden(tmp):
    """diff of two real predictions (eager vs rendezvous pingpong)"""
    out = run(["diff", "pingpong.xml", "pingpong-rendezvous.xml"]).stdout
    golden("pingpong.diff.txt", out.encode())
    check("predicted time" in out and "per process" in out, "diff output lacks sections")
    same = run(["diff", "pingpong.xml", "pingpong.xml"]).stdout
    check("+0.000000000" in same and "-0." not in same, "a trace differs from itself")


@test
def nonblocking_timing(tmp):
    """issue 10: isend/irecv timing in every output, worked out by hand (workloads/isend4.xml)"""
    # Rank 0 posts the isend at 9.999 us; the rendezvous answer reaches it at
    # 15.399 us, when the data enter the network; 100,000 B at 160 MB/s have
    # left at 640.399 us and arrive at rank 1 at 640.849 us (+0.45 us).
    # Rank 1 posted its irecv at 9.999 us.
    prefix = os.path.join(tmp, "i")
    run(["paraver", "isend4.xml", "-o", prefix])
    prv = open(prefix + ".prv").read()
    check("\n3:1:1:1:1:9999:15399:2:1:2:1:9999:640849:100000:0\n" in prv,
          "communication record of message 0:\n" + "".join(l for l in prv.splitlines(True) if l[0] == "3"))
    check("\n3:3:1:3:1:9999:15399:4:1:4:1:9999:640849:100000:0\n" in prv, "message 1")
    # waitall is MPI_Waitall (6), entered when the waitall starts
    check(re.search(r"^2:1:1:1:1:14499:50000001:6$", prv, re.M), "rank 0's MPI_Waitall at 14.499 us")
    check(re.search(r"^2:2:1:2:1:19998:18000001:0:50000001:6$", prv, re.M), "rank 1's MPI_Waitall at 19.998 us")
    check("\n6   MPI_Waitall\n" in open(prefix + ".pcf").read(), "MPI_Waitall in the .pcf")
    run(["sddf", "isend4.xml", "-o", prefix + ".sddf"])
    sddf = open(prefix + ".sddf").read()
    check('"PTI Message" { 0.000009999, 0.000015399, 0.000009999, 0.000640849, 0, 1, 0, 100000.0, 0.0, '
          '0.0, 0.0 };;' in sddf, "SDDF message 0")
    run(["chrome", "isend4.xml", "-o", prefix + ".json"])
    flows = [e for e in json.load(open(prefix + ".json"))["traceEvents"] if e["ph"] in "sf" and e["id"] == 0]
    check([(e["ph"], e["pid"], e["ts"]) for e in flows] == [("s", 0, 15.399), ("f", 1, 640.849)],
          f"Chrome flow of message 0: {flows}")
    out = run(["summary", "isend4.xml"]).stdout
    # Back from rank 1's end (645.349 us): its waitall waited for message 0,
    # which entered the network at 15.399 us on rank 0, whose waitall
    # waited (rendezvous) for rank 1's irecv, posted at 9.999 us.
    check("through 2 waited messages; 0.000014499 s on processes, 0.000630850 s of messages in flight"
          in out, "critical path: " + out[-400:])
    p = run(["plot", "isend4.xml", "--kind", "ba", "-o", prefix + ".png", "--stats"])
    check("stage 1 of 1; 2 BA values shown" in p.stderr, p.stderr)
    p = run(["plot", "isend4.xml", "-o", prefix + ".png", "--stats"])
    check("2 messages drawn" in p.stderr, p.stderr)


@test
def collectives_marked(tmp):
    """collective calls: Paraver's collective events and state, SDDF and Chrome records (colls4)"""
    prefix = os.path.join(tmp, "c")
    run(["paraver", "colls4.xml", "-o", prefix])
    prv = open(prefix + ".prv").read()
    # rank 2 (task 3): bcast from rank 1 at 9.999 us (MPI_Bcast 7, 1000 B,
    # the world), then reduce to itself (MPI_Reduce 9, root: 1)
    check(re.search(r"^2:3:1:3:1:9999:18000001:0:50000002:7:50100001:1000:50100002:1000:50100004:1$",
                    prv, re.M), "rank 2's bcast entry")
    check(re.search(r"^2:3:1:3:1:30749:50000002:9:50100001:1600:50100002:1600:50100003:1:50100004:1$",
                    prv, re.M), "rank 2's reduce entry, as its root")
    check(re.search(r"^2:3:1:3:1:68332:50000002:10:50100001:800:50100002:800:50100004:2$", prv, re.M),
          "rank 2's allreduce on communicator 2 (pairs)")
    check(re.search(r"^2:3:1:3:1:103665:50000002:0$", prv, re.M), "rank 2 leaves the barrier")
    # Group Communication covers the reduce's combine step (50.749-51.416 us)
    check(re.search(r"^1:3:1:3:1:50749:51416:13$", prv, re.M), "combine step inside the reduce")
    check(not re.search(r"^2:3:1:3:1:\d+:50000001:", prv, re.M), "point-to-point calls inside collectives")
    pcf = open(prefix + ".pcf").read()
    check("13   Group Communication" in pcf and "10  MPI_Allreduce" in pcf, "collectives in the .pcf")
    run(["sddf", "colls4.xml", "-o", prefix + ".sddf"])
    sddf = open(prefix + ".sddf").read()
    check('"PTI Collective" { 0.000030749, 0.000037583, 2, [7] { "reduce" }, 0, 2, 1600.0 };;' in sddf,
          "SDDF reduce on rank 2")
    run(["chrome", "colls4.xml", "-o", prefix + ".json"])
    coll = [e for e in json.load(open(prefix + ".json"))["traceEvents"] if e.get("cat") == "collective"]
    check(len(coll) == 16 and {e["name"] for e in coll} == {"bcast", "reduce", "allreduce", "barrier"},
          f"Chrome collective slices: {coll[:3]}")
    out = run(["summary", "colls4.xml"]).stdout
    check("collectives: 16 calls on the processes" in out, out)


@test
def live_samples(tmp):
    """the samples isend4 and colls4 are what ptieval writes for workloads/ today"""
    ptieval, root = os.environ.get("PTIEVAL"), os.environ.get("PTI_SOURCE_ROOT")
    if not ptieval or not root:
        return "skip PTIEVAL or PTI_SOURCE_ROOT not set"
    for name, extra in (("isend4", []), ("colls4", ["--use-model", "myrinet=net-simple"])):
        out = os.path.join(tmp, name + ".xml")
        p = subprocess.run([ptieval, os.path.join("configs", "pc_cluster.xml"),
                            os.path.join("tests", "ptitrace", "workloads", name + ".xml"), "-o", out]
                           + extra, cwd=root, capture_output=True, text=True)
        check(p.returncode == 0, p.stderr)
        check(open(out, "rb").read() == open(os.path.join(SAMPLES, name + ".xml"), "rb").read(),
              f"ptieval writes {name}.xml differently from samples/{name}.xml")


@test
def sddf_model_named_pti(tmp):
    """SDDF: record types of a model named PTI get names of their own, no endless loop"""
    text = open(os.path.join(SAMPLES, "contention.xml")).read()
    for model, name, want in (("PTI", "ba", '"PTI ba"'), ("PTI", "Message", '"PTI Message (2)"')):
        t = text.replace('<record model="net-contention" ns="urn:pti:model:net-contention" name="ba"',
                         f'<record model="{model}" ns="urn:pti:model:net-contention" name="ba"')
        if name != "ba":
            t = t.replace('name="ba"', f'name="{name}"', 1).replace("<nc:ba ", f"<nc:{name} ")
        path = variant(tmp, f"pti-{name}.xml", t)
        try:
            p = subprocess.run([PTITRACE, "sddf", path, "-o", path + ".sddf"], env=ENV,
                               capture_output=True, text=True, timeout=20)
        except subprocess.TimeoutExpired:
            raise Failure(f"ptitrace sddf loops on a model named {model} declaring {name}")
        check(p.returncode == 0, p.stderr)
        sddf = open(path + ".sddf").read()
        check(f"\n{want} {{" in sddf and sddf.count('"PTI Message" {\n') == 1, f"descriptor {want}")
        checker("check-sddf.py", path + ".sddf", path)


@test
def diff_rounding(tmp):
    """diff: no difference from rounding where the engine's totals are equal"""
    text = open(os.path.join(SAMPLES, "pingpong.xml")).read()
    head, tail = text[:text.index("<events>")], text[text.index("<summary"):]
    # One rank: compute 1.4 ns, a waitall of 1.5 ns, compute 1.2 ns (A), or
    # 1.6, 1.5, 1.0 ns (B): the same 2.6 ns of compute (the summary says 3),
    # rounded events 1 + 1 = 2 ns in A and 2 + 1 = 3 ns in B.
    def trace(times):
        t = [f"0.00000000{x}" for x in times]
        ev = (f'<event kind="compute" start="{t[0]}" end="{t[1]}" device="cpu" model="cpu-clc"/>'
              f'<event kind="waitall" start="{t[1]}" end="{t[2]}" device="mpi" model="net-simple" '
              f'wait="0.000000000"/>'
              f'<event kind="compute" start="{t[2]}" end="{t[3]}" device="cpu" model="cpu-clc"/>')
        summary = ('<summary predicted_time="0.000000004" events="3"><process rank="0" '
                   'end="0.000000004" compute="0.000000003" comm="0.000000002" wait="0.000000000" '
                   'events="3"/></summary></trace>\n')
        return (head.replace('<processes count="2">', '<processes count="1">')
                .replace('      <process rank="1" processor="pc_node[2] cpu 0"/>\n', "")
                + f'<events><process rank="0">{ev}</process></events>' + summary)
    a = variant(tmp, "a.xml", trace([0, 1, 3, 4]))
    b = variant(tmp, "b.xml", trace([0, 2, 3, 4]))
    out = run(["diff", a, b]).stdout
    rows = {l[:18].strip(): l[18:].split() for l in out.splitlines() if l[:2] in ("co", "  ", "wa")}
    check(rows["compute (all)"] == ["0.000000003", "0.000000003", "+0.000000000", "+0.00%"],
          f"compute: {rows.get('compute (all)')}\n{out}")
    check(rows["complete (all)"] == ["0.000000002", "0.000000001", "+0.000000000", "+0.00%"],
          f"complete (rounding): {rows.get('complete (all)')}\n{out}")
    check("-0.000000001" not in out and "+0.000000001" not in out, "a rounding difference shows:\n" + out)


@test
def name_fields(tmp):
    """record fields holding names (links): Paraver values, SDDF strings, Chrome counter ids"""
    run(["paraver", "contention.xml", "-o", os.path.join(tmp, "c")])
    pcf = open(os.path.join(tmp, "c.pcf")).read()
    check(re.search(r"EVENT_TYPE\n0 +19000202 +net-contention knee: link\nVALUES\n1 +s1\.0-s2\.1#0:up\n"
                    r"2 +h3:up\n", pcf), "the .pcf does not list the link names:\n" + pcf[-900:])
    prv = open(os.path.join(tmp, "c.prv")).read()
    check(re.search(r"^2:0:2:1:1:125000:.*:19000202:2:19000203:80000$", prv, re.M),
          "knee of h3:up at 125 us")
    run(["sddf", "contention.xml", "-o", os.path.join(tmp, "c.sddf")])
    sddf = open(os.path.join(tmp, "c.sddf")).read()
    check('\tchar\t"link"[];' in sddf and '[6] { "h3:up" }, 80000.0 };;' in sddf, "SDDF link strings")
    run(["chrome", "contention.xml", "-o", os.path.join(tmp, "c.json")])
    knee = [e for e in json.load(open(os.path.join(tmp, "c.json")))["traceEvents"]
            if e.get("name") == "knee"]
    check(len(knee) == 8 and {e["id"] for e in knee} == {"link=s1.0-s2.1#0:up", "link=h3:up", "link="}
          and all(set(e["args"]) == {"packets_per_s"} for e in knee), f"Chrome counters: {knee}")
    # A number where the field held names is an error too, naming both lines.
    text = open(os.path.join(SAMPLES, "contention.xml")).read()
    last = 'time="0.000350000" link="h3:up"'
    path = variant(tmp, "five.xml", text.replace(last, last.replace("h3:up", "5")))
    p = run(["paraver", path, "-o", os.path.join(tmp, "five")], expect=3)
    check(re.search(r'five\.xml:%d: record <knee> link="5" is a number, and the field held a name '
                    r"before \(line %d\)" % (line_of(text, last), line_of(text, 'link="s1.0-s2.1#0:up" p')),
                    p.stderr), p.stderr)


@test
def summary_numbers(tmp):
    """summary of the hand-written trace: totals worked out by hand"""
    out = run(["summary", "contention.xml"]).stdout
    # rank 1: compute 315 us, send 30+3, recv 2, complete 5+10, wait 10+20+5
    row = [l for l in out.splitlines() if l.split()[:1] == ["1"]][0].split()
    check(row[1:7] == ["0.000400000", "0.000315000", "0.000033000", "0.000002000", "0.000015000",
                       "0.000035000"], f"rank 1: {row}")
    check("4 messages, 15 model records" in out, "counts")
    out = run(["summary", "pingpong.xml"]).stdout
    check("processes on the critical path: 0 1" in out, "pingpong critical path: " + out[-300:])


# --------------------------------------------------------------------------
# A live trace from ptieval, through the external sort


@test
def live_sweep3d_external_sort(tmp):
    """a live ptieval trace through the external sort: same bytes, checkers pass"""
    ptieval, root = os.environ.get("PTIEVAL"), os.environ.get("PTI_SOURCE_ROOT")
    if not ptieval or not root:
        return "skip PTIEVAL or PTI_SOURCE_ROOT not set"
    trace = os.path.join(tmp, "sweep3d.xml")
    p = subprocess.run([ptieval, os.path.join(root, "configs", "pc_cluster.xml"),
                        os.path.join(root, "wsl", "examples", "sweep3d.xml"), "-D", "iterations=2",
                        "-o", trace], capture_output=True, text=True)
    check(p.returncode == 0, f"ptieval failed to write the trace (exit {p.returncode}):\n{p.stderr}")
    for cmd, out in (("paraver", "big"), ("sddf", "big.sddf")):
        run([cmd, trace, "-o", os.path.join(tmp, out)], cwd=tmp)
        p = run([cmd, trace, "-o", os.path.join(tmp, "small-" + out), "--memory", "100K", "--stats"],
                cwd=tmp)
        m = re.search(r"(\d+) sorted runs, (\d+) merge passes", p.stderr)
        check(m and int(m.group(1)) > 64 and int(m.group(2)) >= 2,
              f"--memory 100K did not go through a multi-pass external sort: {p.stderr}")
    for ext in ("prv", "pcf", "row"):
        check(open(os.path.join(tmp, "big." + ext), "rb").read()
              == open(os.path.join(tmp, "small-big." + ext), "rb").read(), f".{ext} differs")
    check(open(os.path.join(tmp, "big.sddf"), "rb").read()
          == open(os.path.join(tmp, "small-big.sddf"), "rb").read(), ".sddf differs")
    checker("check-paraver.py", os.path.join(tmp, "big"), trace)
    checker("check-sddf.py", os.path.join(tmp, "big.sddf"), trace)
    a = run(["summary", "--path", trace], cwd=tmp).stdout
    b = run(["summary", "--path", trace, "--memory", "100K"], cwd=tmp).stdout
    check(a == b, "summary differs through the external sort")
    run(["chrome", trace, "-o", os.path.join(tmp, "big.json")], cwd=tmp)
    check_chrome(json.load(open(os.path.join(tmp, "big.json"))), trace)
    run(["plot", trace, "-o", os.path.join(tmp, "ts.png"), "--memory", "100K"], cwd=tmp)
    check_png(os.path.join(tmp, "ts.png"))


@test
def live_cg(tmp):
    """a live ptieval CG trace (non-blocking messages, messages to self): checkers pass"""
    ptieval, root = os.environ.get("PTIEVAL"), os.environ.get("PTI_SOURCE_ROOT")
    if not ptieval or not root:
        return "skip PTIEVAL or PTI_SOURCE_ROOT not set"
    trace = os.path.join(tmp, "cg.xml")
    p = subprocess.run([ptieval, os.path.join(root, "configs", "pc_cluster.xml"),
                        os.path.join(root, "wsl", "examples", "cg.xml"), "-o", trace],
                       capture_output=True, text=True)
    check(p.returncode == 0, f"ptieval failed to write the trace (exit {p.returncode}):\n{p.stderr}")
    run(["paraver", trace, "-o", os.path.join(tmp, "cg")], cwd=tmp)
    checker("check-paraver.py", os.path.join(tmp, "cg"), trace)
    run(["sddf", trace, "-o", os.path.join(tmp, "cg.sddf")], cwd=tmp)
    checker("check-sddf.py", os.path.join(tmp, "cg.sddf"), trace)
    run(["chrome", trace, "-o", os.path.join(tmp, "cg.json")], cwd=tmp)
    check_chrome(json.load(open(os.path.join(tmp, "cg.json"))), trace)
    out = run(["summary", trace], cwd=tmp).stdout
    check("processes on the critical path:" in out, "summary")


@test
def live_repetition(tmp):
    """a trace of analytical repetition (summary/@derived: events counted, not written) converts"""
    sweep3d, root = os.environ.get("SWEEP3D"), os.environ.get("PTI_SOURCE_ROOT")
    if not sweep3d or not root:
        return "skip SWEEP3D or PTI_SOURCE_ROOT not set"
    trace = os.path.join(tmp, "rep.xml")
    p = subprocess.run([sweep3d, os.path.join(root, "configs", "pc_cluster.xml"), "-D", "eval_mode=2",
                        "-D", "iterations=6", "-D", "npe_i=2", "-D", "npe_j=2", "-D", "kt=20",
                        "-o", trace], capture_output=True, text=True)
    check(p.returncode == 0, f"sweep3d failed to write the trace (exit {p.returncode}):\n{p.stderr}")
    text = open(trace).read()
    m = re.search(r'<summary predicted_time="[0-9.]+" events="([0-9]+)" derived="([0-9]+)"', text)
    check(m is not None and int(m.group(2)) > 0, "the summary has no derived count")
    check(text.count("<event ") == int(m.group(1)) - int(m.group(2)), "events - derived != written")
    # One derived span per rank, its events the summary's derived count.
    spans = re.findall(r'<derived start="([0-9.]+)" end="([0-9.]+)" repetitions="(\d+)" events="(\d+)"',
                       text)
    check(len(spans) == 4 and sum(int(s[3]) for s in spans) == int(m.group(2)), f"derived spans {spans}")
    run(["paraver", trace, "-o", os.path.join(tmp, "rep")], cwd=tmp)
    checker("check-paraver.py", os.path.join(tmp, "rep"), trace)   # Derived state = the spans
    pcf = open(os.path.join(tmp, "rep.pcf")).read()
    check("100  Derived (analytical repetition)" in pcf, "the Derived state in the .pcf")
    run(["sddf", trace, "-o", os.path.join(tmp, "rep.sddf")], cwd=tmp)
    checker("check-sddf.py", os.path.join(tmp, "rep.sddf"), trace)
    check(open(os.path.join(tmp, "rep.sddf")).read().count('"PTI Derived" { ') == 4, "SDDF derived")
    run(["chrome", trace, "-o", os.path.join(tmp, "rep.json")], cwd=tmp)
    check_chrome(json.load(open(os.path.join(tmp, "rep.json"))), trace)
    out = run(["summary", trace], cwd=tmp).stdout
    check("processes on the critical path:" in out, "summary")
    check(f"events in the trace and {m.group(2)} derived" in out and "derived: analytical repetition"
          in out, "summary of a repetition trace: " + out[:900])


# --------------------------------------------------------------------------
# Plots


def check_png(path):
    data = open(path, "rb").read()
    check(data[:8] == b"\x89PNG\r\n\x1a\n", f"{path}: not a PNG")
    w, h = struct.unpack(">II", data[16:24])
    check(w >= 200 and h >= 150 and len(data) > 2000, f"{path}: {w}x{h}, {len(data)} bytes")


def check_plot(path):
    data = open(path, "rb").read()
    if path.endswith(".png"):
        check_png(path)
    elif path.endswith(".svg"):
        check(data.startswith(b"<?xml") and b"<svg" in data[:500] and data.rstrip().endswith(b"</svg>")
              and len(data) > 2000, f"{path}: not a complete SVG")
    else:
        check(data.startswith(b"%PDF-") and b"%%EOF" in data[-64:] and len(data) > 1000,
              f"{path}: not a complete PDF")


@test
def plots(tmp):
    """timespace for every sample, ba and knee for the contention sample, PNG/SVG/PDF"""
    for name in SAMPLE_NAMES:
        for ext in ("png", "svg", "pdf"):
            out = os.path.join(tmp, f"{name}.{ext}")
            run(["plot", name + ".xml", "-o", out])
            check_plot(out)
    for kind in ("ba", "knee"):
        for ext in ("png", "svg", "pdf"):
            out = os.path.join(tmp, f"{kind}.{ext}")
            run(["plot", "contention.xml", "--kind", kind, "-o", out])
            check_plot(out)
    out = os.path.join(tmp, "zoom.png")
    run(["plot", "halo2d.xml", "-o", out, "--from", "0.0002", "--to", "0.0003", "--width", "800",
         "--height", "300"])
    check_png(out)
    check(struct.unpack(">II", open(out, "rb").read()[16:24]) == (800, 300), "--width/--height")
    run(["plot", "contention.xml", "--kind", "ba", "--stages", "2", "-o", out])
    run(["plot", "contention.xml", "--kind", "ba", "--stages", "all", "-o", out])
    run(["plot", "contention.xml", "--kind", "knee", "--from", "0.0001", "--to", "0.0003", "-o", out])


def read_png(path):
    """(width, height, rows of (r, g, b)) of an 8-bit RGB or RGBA PNG, as cairo writes them."""
    import zlib
    data = open(path, "rb").read()
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            check(depth == 8 and ctype in (2, 6) and interlace == 0, f"{path}: unexpected PNG kind")
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(w)])
        prev = line
    return w, h, rows


@test
def knee_plot_pixels(tmp):
    """knee plot: a step line coloured by the bottleneck link, a gap where no message is in flight"""
    out = os.path.join(tmp, "knee.png")
    run(["plot", "contention.xml", "--kind", "knee", "-o", out])
    w, h, px = read_png(out)
    check((w, h) == (1400, 640), f"size {w}x{h}")
    # Plot area: x 110..1376 for 0..400 us; y 548 (0) .. 62; axis up to 170k packets/s.
    blue, orange = (78, 121, 167), (242, 142, 43)   # the first two series colours

    def coloured(x):
        """y and colour of the pixels of column x close to a series colour"""
        return [(y, c) for y in range(62, 549) for c, want in (("blue", blue), ("orange", orange))
                if sum(abs(p - q) for p, q in zip(px[y][x], want)) < 60]

    def x_of(us):
        return int(110 + us / 400 * 1266)

    def y_of(pps):
        return 548 - pps / 170000 * 486
    # h3:up (the bottleneck longest: first colour) at 80k packets/s from 125 to 150 us
    hits = coloured(x_of(140))
    check(hits and all(c == "blue" and abs(y - y_of(80000)) <= 2 for y, c in hits), f"140 us: {hits}")
    # no message in flight from 150 to 300 us: nothing drawn
    for us in (160, 200, 290):
        check(coloured(x_of(us)) == [], f"{us} us: the gap is drawn: {coloured(x_of(us))}")
    # s1.0-s2.1#0:up at 100k from 302 to 350 us, h3:up at 150k after
    hits = coloured(x_of(320))
    check(hits and all(c == "orange" and abs(y - y_of(100000)) <= 2 for y, c in hits), f"320 us: {hits}")
    hits = coloured(x_of(380))
    check(hits and all(c == "blue" and abs(y - y_of(150000)) <= 2 for y, c in hits), f"380 us: {hits}")


@test
def plots_without_records(tmp):
    """ba and knee of a trace without those records: exit 3, a clear message, no file"""
    for kind in ("ba", "knee"):
        out = os.path.join(tmp, kind + ".png")
        p = run(["plot", "pingpong.xml", "--kind", kind, "-o", out], expect=3)
        check(f"no model declares a record <{kind}>" in p.stderr, p.stderr)
        check(listing(tmp) == [], f"left {listing(tmp)}")
    p = run(["plot", "contention.xml", "--kind", "ba", "--stages", "5", "-o",
             os.path.join(tmp, "x.png")], expect=2)
    check("has 2 communication stages" in p.stderr, p.stderr)


# --------------------------------------------------------------------------
# Broken input


def variant(tmp, name, text):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def line_of(text, needle):
    return text[:text.index(needle)].count("\n") + 1


ALL_COMMANDS = [["paraver", "-o", "out"], ["sddf", "-o", "out.sddf"], ["chrome", "-o", "out.json"],
                ["plot", "-o", "out.png"], ["summary"]]


def expect_invalid(tmp, trace, pattern, commands=ALL_COMMANDS):
    outdir = os.path.join(tmp, "out")
    os.makedirs(outdir, exist_ok=True)
    # An earlier output must survive a failed conversion.
    with open(os.path.join(outdir, "out.json"), "w") as f:
        f.write("earlier")
    for c in commands:
        args = [c[0], trace] + [os.path.join(outdir, a) if a.startswith("out") else a for a in c[1:]]
        p = run(args, expect=3, cwd=tmp)
        check(re.search(pattern, p.stderr), f"{c[0]}: stderr {p.stderr!r} does not match {pattern!r}")
        check(listing(outdir) == ["out.json"], f"{c[0]} left {listing(outdir)}")
        check(open(os.path.join(outdir, "out.json")).read() == "earlier", "earlier output replaced")


@test
def truncated(tmp):
    """a truncated trace: exit 3, FILE:LINE and 'truncated', no output left, earlier output kept"""
    text = open(os.path.join(SAMPLES, "halo2d.xml")).read()
    cut = text[:len(text) * 3 // 5]
    path = variant(tmp, "cut.xml", cut)
    expect_invalid(tmp, path, r"cut\.xml:%d: malformed XML: .*truncated" % (cut.count("\n") + 1))
    # Cut inside the header, and an empty file.
    expect_invalid(tmp, variant(tmp, "cut2.xml", text[:300]), r"cut2\.xml:\d+: malformed XML")
    expect_invalid(tmp, variant(tmp, "empty.xml", ""), r"empty\.xml:(\d+:)? ", [["summary"]])
    # Cut exactly after the summary: the root is not closed.
    end = text.index("</summary>") + len("</summary>")
    expect_invalid(tmp, variant(tmp, "cut3.xml", text[:end]), r"cut3\.xml:\d+: malformed XML",
                   [["summary"], ["paraver", "-o", "out"]])


@test
def invalid(tmp):
    """invalid traces: exit 3 naming the file and the line of the problem"""
    text = open(os.path.join(SAMPLES, "contention.xml")).read()
    ev = '<event kind="compute" start="0.000105000" end="0.000300000"'
    cases = [
        ("end-before-start", text.replace(ev, ev.replace('end="0.000300000"', 'end="0.000100000"')),
         line_of(text, ev), "ends before it starts"),
        ("kind", text.replace(ev, ev.replace("compute", "bcast")), line_of(text, ev), "unknown kind"),
        ("time-format", text.replace(ev, ev.replace("0.000105000", "1.05e-4")), line_of(text, ev),
         "not a time in seconds"),
        ("undeclared", text.replace("<nc:queue", "<nc:queues"), line_of(text, "<nc:queue"),
         r"not declared in the header"),
        ("summary-count", text.replace('events="23"', 'events="24"'), line_of(text, "<summary"),
         "the summary counts 24 events but the trace holds 23"),
        ("rank", text.replace('<process rank="3">', '<process rank="7">', 1),
         line_of(text, '<process rank="3">'), "not a rank listed in the header"),
        ("order", text.replace('<event kind="compute" start="0.000150000" end="0.000300000"',
                               '<event kind="compute" start="0.000050000" end="0.000300000"'),
         line_of(text, '<event kind="compute" start="0.000150000"'), "before its previous event"),
        ("unpaired", text.replace('peer="0" tag="1" bytes="1024" msg="0"', 'peer="0" tag="1" bytes="1024" msg="9"'),
         line_of(text, 'peer="2" tag="1" bytes="1024" msg="0"'),
         r"message 0 \(send from rank 0 to rank 2\) has no receive"),
        ("mismatch", text.replace('peer="0" tag="1" bytes="1024" msg="0"', 'peer="0" tag="2" bytes="1024" msg="0"'),
         line_of(text, 'peer="0" tag="1" bytes="1024" msg="0"'), "disagree on the tag"),
        ("doctype", text.replace("<trace ", '<!DOCTYPE trace [<!ENTITY a "b">]>\n<trace ', 1),
         line_of(text, "<trace "), "DOCTYPE declaration is not allowed"),
        ("version", text.replace('version="2"', 'version="3"', 1), line_of(text, "<trace "),
         'version "3"'),
        ("version1", text.replace('<trace xmlns="urn:pti:trace:2" version="2">',
                                  '<trace xmlns="urn:pti:trace:1" version="1">'),
         line_of(text, "<trace "),
         r"trace format version 1 \(urn:pti:trace:1\) is not one this reader knows \(2, "
         r"urn:pti:trace:2\): version 1 traces .* cannot be read; run ptieval again"),
        ("not-posted", text.replace('<request id="1" kind="irecv"', '<request id="7" kind="irecv"'),
         line_of(text, '<request id="1" kind="irecv"'),
         "rank 1: request 7 is not one this rank posted and has not completed yet"),
        ("request-peer", text.replace('kind="irecv" peer="1" tag="3"', 'kind="irecv" peer="2" tag="3"'),
         line_of(text, 'kind="irecv" peer="1" tag="3"'),
         r"rank 0: request 0 disagrees with the irecv that posted it \(line %d\) on the peer"
         % line_of(text, 'request="0" peer="1" tag="3"')),
        ("never-waited", text.replace(
            '        <request id="1" kind="isend" peer="1" tag="2" bytes="4096" msg="2" protocol="eager"'
            ' posted="0.000302000" injected="0.000304000" left="0.000304000"/>\n', ""),
         line_of(text, 'request="1" peer="1" tag="2"'),
         r"rank 0: request 1 \(isend\) is never completed by a wait"),
        ("arrived-late", text.replace('injected="0.000304000" arrived="0.000325000"',
                                      'injected="0.000304000" arrived="0.000331000"'),
         line_of(text, 'injected="0.000304000" arrived="0.000325000"'),
         "arrived 0.000331000 s is after the end of the event that completed it"),
        ("wildcard-send", text.replace('request="0" peer="0" tag="3" bytes="2048" msg="3"',
                                       'request="0" peer="any" tag="3" bytes="2048" msg="3"'),
         line_of(text, 'request="0" peer="0" tag="3" bytes="2048" msg="3"'),
         'only an irecv may ask for any'),
        ("injected", text.replace(
            'msg="3" protocol="rendezvous" posted="0.000300000" injected="0.000335000" arrived',
            'msg="3" protocol="rendezvous" posted="0.000300000" injected="0.000336000" arrived'),
         line_of(text, 'msg="3" protocol="rendezvous" posted="0.000300000" injected="0.000335000" arrived'),
         r"message 3: the two ends disagree on when the data entered the network"),
        ("not-xml", text.replace("</header>", "</headr>"), line_of(text, "</header>"),
         "malformed XML"),
    ]
    for name, t, line, msg in cases:
        path = variant(tmp, name + ".xml", t)
        expect_invalid(tmp, path, r"%s\.xml:%d: .*%s" % (re.escape(name), line, msg))
    bad = variant(tmp, "field.xml", text.replace('bytes_per_s="32000000"', 'bytes_per_s="fast"'))
    expect_invalid(tmp, bad, r"field\.xml:%d: record <ba> bytes_per_s=\"fast\" is not a number"
                   % line_of(text, 'bytes_per_s="32000000"'),
                   [["paraver", "-o", "out"], ["sddf", "-o", "out.sddf"], ["chrome", "-o", "out.json"],
                    ["plot", "--kind", "ba", "-o", "out.png"]])
    # A field that held a number cannot hold a name: the line of both.
    first = '<nc:knee xmlns:nc="urn:pti:model:net-contention" time="0.000100000" link="s1.0-s2.1#0:up"'
    mixed = variant(tmp, "mixed.xml", text.replace(first, first.replace("s1.0-s2.1#0:up", "7")))
    expect_invalid(tmp, mixed, r"mixed\.xml:%d: record <knee> link=\"h3:up\" is not a number, and "
                   r"the field held a number before \(line %d\)"
                   % (line_of(text, 'link="h3:up"'), line_of(text, first)),
                   [["paraver", "-o", "out"], ["sddf", "-o", "out.sddf"], ["chrome", "-o", "out.json"],
                    ["plot", "--kind", "knee", "-o", "out.png"]])
    other = variant(tmp, "other.xml", '<?xml version="1.0"?>\n<foo/>\n')
    expect_invalid(tmp, other, r"other\.xml:2: not a pti trace", [["summary"]])
    p = run(["summary", os.path.join(tmp, "missing.xml")], expect=1)
    check("missing.xml: cannot open" in p.stderr, p.stderr)


@test
def usage(tmp):
    """usage errors exit 2; --help exits 0 and states units and defaults"""
    for args, msg in [([], "Usage"), (["frobnicate", "x.xml"], "unknown command"),
                      (["paraver", "pingpong.xml"], "-o PREFIX is required"),
                      (["summary"], "expected TRACE.xml"),
                      (["summary", "a.xml", "b.xml"], "expected TRACE.xml"),
                      (["diff", "pingpong.xml"], "expected A.xml B.xml"),
                      (["plot", "pingpong.xml", "-o", "x.gif"], "must end in .png, .svg or .pdf"),
                      (["plot", "pingpong.xml", "-o", "x.png", "--kind", "pie"], "--kind pie"),
                      (["plot", "pingpong.xml", "-o", "x.png", "--from", "2", "--to", "1"],
                       "--to must be after --from"),
                      (["plot", "pingpong.xml", "-o", "x.png", "--from", "soon"], "--from soon"),
                      (["paraver", "pingpong.xml", "-o", "x", "--memory", "lots"], "--memory lots"),
                      (["summary", "--bogus", "pingpong.xml"], "Unknown option")]:
        p = run(args, expect=2)
        check(msg in p.stderr, f"{args}: {p.stderr!r} lacks {msg!r}")
    check(listing(SAMPLES) == sorted(n + ".xml" for n in SAMPLE_NAMES), "a usage error wrote a file")
    p = run(["--help"])
    check("paraver" in p.stdout and "Exit status" in p.stdout, "overview")
    p = run(["plot", "--help"])
    for s in ("in seconds", "default 0", "default 1400", "default 64M", "timespace (default)"):
        check(s in p.stdout, f"plot --help lacks {s!r}")
    p = run(["paraver", "pingpong.xml", "-o", os.path.join(tmp, "no", "such", "dir", "x")], expect=1)
    check("cannot create" in p.stderr, p.stderr)
    check(listing(tmp) == [], "left files")


@test
def manpage(tmp):
    """every long option of every command's --help is in ptitrace.1"""
    man = open(os.path.join(HERE, "..", "..", "cli", "ptitrace.1")).read()
    missing = set()
    for cmd in ("paraver", "sddf", "chrome", "summary", "diff", "plot"):
        check(re.search(r"^\.B ptitrace %s$" % cmd, man, re.M), f"ptitrace.1 lacks the command {cmd}")
        for opt in set(re.findall(r"--[a-z][a-z-]*", run([cmd, "--help"]).stdout)):
            if opt.replace("-", "\\-") not in man:
                missing.add(opt)
    check(not missing, f"ptitrace.1 does not document {sorted(missing)}")


def main():
    print(f"1..{len(tests)}")
    failed = 0
    for i, t in enumerate(tests, start=1):
        name = (t.__doc__ or t.__name__).strip().splitlines()[0] if t.__doc__ else t.__name__
        tmp = tempfile.mkdtemp(prefix="ptitrace-test-")
        try:
            r = t(tmp)
            if isinstance(r, str) and r.startswith("skip"):
                print(f"ok {i} {name} # SKIP {r[5:]}")
            else:
                print(f"ok {i} {name}")
        except Failure as e:
            failed += 1
            print(f"not ok {i} {name}")
            for line in str(e).splitlines():
                print("# " + line)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        sys.stdout.flush()
    if REGEN:
        print(f"# golden files written to {GOLDEN}")
    return 1 if failed else 0


sys.exit(main())
