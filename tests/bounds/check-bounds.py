#!/usr/bin/env python3
"""Bounded predictions (issue 15, point 5): closed forms worked by hand,
error paths and the schemas of ranges (tests/README.md, suite bounds).

    check-bounds.py PTIEVAL SOURCE_ROOT [PTISWEEP]

The inputs are in tests/bounds/data; each file's comment works its numbers.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

ptieval, root = sys.argv[1], os.path.abspath(sys.argv[2])
ptisweep = sys.argv[3] if len(sys.argv) > 3 else None
data = os.path.join(root, "tests", "bounds", "data")
tiny = os.path.join(root, "tests", "cli", "data", "tiny-system.xml")
ranged = os.path.join(data, "ranged-system.xml")
failures = 0
count = 0


def check(ok, what):
    global failures, count
    count += 1
    print(("ok %d - " if ok else "not ok %d - ") % count + what)
    if not ok:
        failures += 1


def run(*args):
    p = subprocess.run([ptieval, *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def evaluate(system, workload, *args):
    rc, out, err = run("--json", system, os.path.join(data, workload), *args)
    if rc != 0:
        check(False, "%s %s %s: exit %d: %s" % (system, workload, " ".join(args), rc, err))
        return None
    return json.loads(out)


def close(a, b):
    return abs(a - b) <= 1e-12 + 1e-9 * abs(b)


def bounds_case(name, system, workload, args, nominal, lower, upper, runs=None,
                lower_corner=None, upper_corner=None):
    r = evaluate(system, workload, *args)
    if r is None:
        return None
    b = r.get("bounds", {})
    check(close(r["predicted_time_s"], nominal),
          "%s: nominal %.9g s, expected %.9g s" % (name, r["predicted_time_s"], nominal))
    check(close(b.get("lower_s", -1), lower),
          "%s: lower %.9g s, expected %.9g s" % (name, b.get("lower_s", -1), lower))
    check(close(b.get("upper_s", -1), upper),
          "%s: upper %.9g s, expected %.9g s" % (name, b.get("upper_s", -1), upper))
    if runs is not None:
        check(b.get("runs") == runs, "%s: %s runs, expected %d" % (name, b.get("runs"), runs))
    for which, want in (("lower_corner", lower_corner), ("upper_corner", upper_corner)):
        for key, end in (want or {}).items():
            got = b.get(which, {}).get(key)
            check(got == end, "%s: %s has %s at %s, expected %s" % (name, which, key, got, end))
    return r


# Ping-pong, L in [1, 3] us (nominal 2), bandwidth in [100, 200] MB/s
# (nominal 125), no overheads: a message of 1000 B takes L + 1000 / bw,
# a round trip two of them.  Nominal 2 x (2 + 8) = 20 us; lower corner
# (L low, bw high) 2 x (1 + 5) = 12 us; upper (L high, bw low) 2 x (3 + 10)
# = 26 us.  The three ranges have known senses: one run per bound.
r = bounds_case("ping-pong", ranged, "pingpong.xml", [], 20e-6, 12e-6, 26e-6, runs=2,
                lower_corner={"hmc:/system/network/net_simple/latency": "low",
                              "hmc:/system/network/net_simple/bandwidth": "high"},
                upper_corner={"hmc:/system/network/net_simple/latency": "high",
                              "hmc:/system/network/net_simple/bandwidth": "low"})
if r is not None:
    senses = {x["key"]: x["sense"] for x in r["bounds"]["ranges"]}
    check(senses.get("hmc:/system/network/net_simple/bandwidth") == "faster-when-higher"
          and senses.get("hmc:/system/network/net_simple/latency") == "slower-when-higher",
          "ping-pong: senses of the network's ranges from their readers")
    check(r["bounds"]["warnings"] == [], "ping-pong: no warning")
# Three round trips: 3 x the above.  Exhaustive: 2^3 corners, same bounds,
# and the senses hold (no warning).
r = bounds_case("ping-pong x3, exhaustive", ranged, "pingpong.xml",
                ["-D", "rounds=3", "--bounds=exhaustive"], 60e-6, 36e-6, 78e-6, runs=8)
if r is not None:
    check(r["bounds"]["warnings"] == [], "ping-pong exhaustive: the senses hold at every corner")

# A loop of n LFOR, n in [100, 300] (nominal 200), LFOR in [0.5, 2] us
# (nominal 1): 200 us, 50 us, 600 us.  n's sense is unknown: both of its
# ends for each bound, 2 x 2 runs.
bounds_case("loop", ranged, "loop.xml", [], 200e-6, 50e-6, 600e-6, runs=4,
            lower_corner={"param:n": "low"}, upper_corner={"param:n": "high"})

# The low end of a parameter gives the upper time: 12000 LFOR + 12000 /
# chunk MFDL, chunk in [100, 400] (tiny system: LFOR 1 us, MFDL 2 us).
bounds_case("chunks", tiny, "chunks.xml", [], 12120e-6, 12060e-6, 12240e-6, runs=2,
            lower_corner={"param:chunk": "high"}, upper_corner={"param:chunk": "low"})
# With LFOR in [0.5, 2] us as well, every corner (2^4, latency and bandwidth
# unused): 6000 + 60 = 6060 us, 24000 + 240 = 24240 us.
bounds_case("chunks, exhaustive", ranged, "chunks.xml", ["--bounds=exhaustive"], 12120e-6,
            6060e-6, 24240e-6, runs=16, lower_corner={"param:chunk": "high"},
            upper_corner={"param:chunk": "low"})

# Ranges on the command line (tiny system: a message of B bytes takes
# 2 + 10 + B / 100 MB/s + 3 us, a round trip twice that):
# bytes 1000..4000 (nominal: the workload's 1000), rounds 1..2..3.
# Nominal 2 x 2 x 25 = 100 us; lower 1 x 2 x 25 = 50 us; upper
# 3 x 2 x (15 + 40) = 330 us.
r = bounds_case("-D ranges", tiny, "pingpong.xml", ["-D", "bytes=1000..4000",
                "-D", "rounds=1..2..3"], 100e-6, 50e-6, 330e-6, runs=4)
if r is not None:
    where = {x["key"]: x["where"] for x in r["bounds"]["ranges"]}
    check(where.get("param:bytes") == "-D bytes=1000..4000", "-D ranges: named as given")
# A single -D value replaces a workload range: n = 150, LFOR's range alone.
bounds_case("-D fixes a range", ranged, "loop.xml", ["-D", "n=150"], 150e-6, 75e-6, 300e-6,
            runs=2)
# A -D range replaces the workload's: n = 50..250 (nominal 200).
bounds_case("-D range over a workload range", ranged, "loop.xml", ["-D", "n=50..250"],
            200e-6, 25e-6, 500e-6, runs=4)

# Not monotone: the nominal run is slower than both corners; the upper
# bound is the nominal run's, with a warning.
r = bounds_case("bump", tiny, "bump.xml", [], 1000e-6, 10e-6, 1000e-6)
if r is not None:
    check(any("not monotone" in w for w in r["bounds"]["warnings"]), "bump: warned")

# No ranges: no bounds in the report, nothing changed.
r = evaluate(tiny, "pingpong.xml")
check(r is not None and "bounds" not in r, "no ranges: no bounds key")
rc, out, _ = run(tiny, os.path.join(data, "pingpong.xml"))
check(rc == 0 and "lower bound" not in out and "bounds:" not in out, "no ranges: the summary has no bound lines")

# --bounds=none: the ranges are listed, no run made.
r = evaluate(ranged, "loop.xml", "--bounds=none")
check(r is not None and "lower_s" not in r["bounds"] and len(r["bounds"]["ranges"]) == 4,
      "--bounds=none: ranges listed, no bounds")

# Text summary.
rc, out, _ = run(ranged, os.path.join(data, "pingpong.xml"))
check(rc == 0 and "lower bound: 0.000012000 s" in out and "upper bound: 0.000026000 s" in out,
      "text summary: lower and upper bound lines")

# Traces of the bounds: FILE.lower.xml and FILE.upper.xml, each the
# prediction of its corner; an -o name without .xml gets .lower/.upper.
with tempfile.TemporaryDirectory() as tmp:
    for wl, name, lo, hi, parameter in (("pingpong.xml", "t.xml", 12e-6, 26e-6, None),
                                        ("loop.xml", "t2", 50e-6, 600e-6, ("n", "100", "300"))):
        out = os.path.join(tmp, name)
        rc, _, err = run(ranged, os.path.join(data, wl), "-o", out, "--bounds-traces")
        check(rc == 0, "bound traces of %s: exit 0 (%s)" % (wl, err.strip()))
        base = out[:-4] if out.endswith(".xml") else out
        ext = ".xml" if out.endswith(".xml") else ""
        for which, want, value in (("lower", lo, parameter and parameter[1]),
                                   ("upper", hi, parameter and parameter[2])):
            path = "%s.%s%s" % (base, which, ext)
            text = open(path).read() if os.path.exists(path) else ""
            m = re.search(r'<summary predicted_time="([0-9.e+-]+)"', text)
            check(m is not None and close(float(m.group(1)), want),
                  "%s trace of %s: predicted %s, expected %g" % (which, wl, m and m.group(1), want))
            if parameter:
                check('<param name="%s" value="%s"/>' % (parameter[0], value) in text,
                      "%s trace of %s: %s = %s in its header" % (which, wl, parameter[0], value))

# Error paths: exit status and a message naming the file, line and element.
errors = [
    ([os.path.join(data, "bad-reversed-system.xml"), "pingpong.xml"], 3,
     "bad-reversed-system.xml:14: <latency>: range 3..1: the low end is above the high end"),
    ([os.path.join(data, "bad-half-system.xml"), "pingpong.xml"], 3,
     "bad-half-system.xml:14: <latency>: a range needs both min and max"),
    ([os.path.join(data, "bad-text-system.xml"), "pingpong.xml"], 3,
     "bad-text-system.xml:14: does not follow model net-simple: Element 'latency', attribute 'min'"),
    ([os.path.join(data, "bad-single-system.xml"), "pingpong.xml"], 3,
     "bad-single-system.xml:16: does not follow model net-simple: Element 'eager_limit', "
     "attribute 'min': The attribute 'min' is not allowed"),
    ([ranged, "bad-nominal.xml"], 3,
     "bad-nominal.xml:6: <param name=\"n\">: the nominal value 400 is outside its range 100..300"),
    ([ranged, "bad-reversed.xml"], 3,
     "bad-reversed.xml:6: <param name=\"n\">: range 300..100: the low end is above the high end"),
    ([ranged, "bad-derive.xml"], 3,
     "bad-derive.xml:15: does not follow workload.xsd: Element 'derive', attribute 'min'"),
    ([ranged, "bad-expr.xml"], 3, "bad-expr.xml:6: <param min=\"1 +\">: in expression '1 +'"),
    ([tiny, "loop.xml", "-D", "n=5..1"], 3, "-D n=5..1: range 5..1: the low end is above"),
    ([tiny, "loop.xml", "-D", "n=1..2..3..4"], 3, "a range is LOW..HIGH or LOW..NOMINAL..HIGH"),
    ([tiny, "loop.xml", "-D", "n=1..10"], 3,
     "the workload's value of n, 200, is outside the range: give the nominal value too"),
    ([tiny, "loop.xml", "--bounds=sideways"], 2, "--bounds=sideways: expected directed, exhaustive or none"),
    ([ranged, "loop.xml", "--bounds=exhaustive", "--bounds-limit=8"], 2,
     "bounds by exhaustive corners need 16 evaluations (both ends of 4 ranges"),
    ([ranged, "loop.xml", "--bounds-traces"], 2, "--bounds-traces needs -o FILE"),
]
changes = os.path.join(tempfile.mkdtemp(), "changes.txt")
with open(changes, "w") as f:
    f.write("5us net latency 1..3us\n")
errors.append(([tiny, "pingpong.xml", "--changes", changes], 3,
               "changes.txt:1: 1..3us: a change takes a single value, not a range"))
for args, want_rc, want in errors:
    args = [os.path.join(data, a) if a.endswith(".xml") and not os.path.isabs(a) else a
            for a in args]
    rc, _, err = run(*args)
    check(rc == want_rc and want in err,
          "error %s: exit %d (want %d): %s" % (" ".join(os.path.basename(a) for a in args), rc,
                                                want_rc, err.strip()))

# The schemas, independently of pti's reader (xmllint): ranges validate
# where a model's schema allows them and nowhere else.
def xmllint(schema, path):
    return subprocess.run(["xmllint", "--noout", "--schema", schema, path],
                          capture_output=True, text=True).returncode == 0


with tempfile.TemporaryDirectory() as tmp:
    for system, valid in (("ranged-system.xml", True), ("bad-single-system.xml", False),
                          ("bad-text-system.xml", False)):
        tree = ET.parse(os.path.join(data, system))
        el = tree.getroot().find("network/net_simple")
        path = os.path.join(tmp, "net_simple.xml")
        ET.ElementTree(el).write(path)
        xsd = os.path.join(root, "models", "net-simple", "net-simple.xsd")
        check(xmllint(xsd, path) == valid, "xmllint: %s's <net_simple> %s" % (system, "valid" if valid else "invalid"))
    el = ET.parse(ranged).getroot().find("computer/cpu_clc")
    path = os.path.join(tmp, "cpu_clc.xml")
    ET.ElementTree(el).write(path)
    check(xmllint(os.path.join(root, "models", "cpu-clc", "cpu-clc.xsd"), path),
          "xmllint: a cpu_clc cost with min and max is valid")
    seed = ET.parse(os.path.join(root, "tests", "fuzz", "seeds", "hmc", "ranges.xml")).getroot()
    for xpath, xsd in (("network/net_contention", "net-contention"), ("computer/cpu_time", "cpu-time")):
        path = os.path.join(tmp, "m.xml")
        ET.ElementTree(seed.find(xpath)).write(path)
        check(xmllint(os.path.join(root, "models", xsd, xsd + ".xsd"), path),
              "xmllint: ranges in <%s> are valid" % xpath.split("/")[1])
    workload_xsd = os.path.join(root, "schemas", "workload.xsd")
    check(xmllint(workload_xsd, os.path.join(data, "loop.xml")), "xmllint: <param min max> valid")
    check(not xmllint(workload_xsd, os.path.join(data, "bad-derive.xml")),
          "xmllint: <derive min max> invalid")

# A file system's costs as ranges (io-pfs): the checkpoint of tests/io on
# pfs4.xml with its server latency in [0.5, 2] ms (nominal 1) and write
# bandwidth in [50, 200] MB/s (nominal 100).  Both senses are known (a time:
# slower when higher; a bandwidth: faster), so one run per bound, and each
# bound is the nominal prediction of the system written at that corner.
pfs4 = open(os.path.join(root, "tests", "io", "data", "pfs4.xml")).read()
checkpoint = os.path.join(root, "tests", "io", "data", "checkpoint.xml")
lat_nominal = '<latency unit="ms">1</latency>'
bw_nominal = '<write_bandwidth unit="MB/s">100</write_bandwidth>'
with tempfile.TemporaryDirectory() as tmp:
    def pfs_system(name, latency, bandwidth):
        path = os.path.join(tmp, name)
        with open(path, "w") as f:
            f.write(pfs4.replace(lat_nominal, latency).replace(bw_nominal, bandwidth))
        return path

    def predicted(system):
        rc, out, err = run("--json", system, checkpoint)
        return json.loads(out)["predicted_time_s"] if rc == 0 else None

    ranged_pfs = pfs_system("ranged.xml", '<latency unit="ms" min="0.5" max="2">1</latency>',
                            '<write_bandwidth unit="MB/s" min="50" max="200">100</write_bandwidth>')
    fast = predicted(pfs_system("fast.xml", '<latency unit="ms">0.5</latency>',
                                '<write_bandwidth unit="MB/s">200</write_bandwidth>'))
    slow = predicted(pfs_system("slow.xml", '<latency unit="ms">2</latency>',
                                '<write_bandwidth unit="MB/s">50</write_bandwidth>'))
    nominal = predicted(os.path.join(root, "tests", "io", "data", "pfs4.xml"))
    check(None not in (fast, slow, nominal) and fast < nominal < slow,
          "io-pfs corners: %s < %s < %s" % (fast, nominal, slow))
    if None not in (fast, slow, nominal):
        rc, out, err = run("--json", ranged_pfs, checkpoint)
        b = json.loads(out).get("bounds", {}) if rc == 0 else {}
        check(rc == 0 and close(json.loads(out)["predicted_time_s"], nominal)
              and close(b.get("lower_s", -1), fast) and close(b.get("upper_s", -1), slow)
              and b.get("runs") == 2,
              "io-pfs ranges: bounds %s..%s in %s runs, expected %s..%s in 2 (%s)"
              % (b.get("lower_s"), b.get("upper_s"), b.get("runs"), fast, slow, err.strip()))

# A change stream is read once, by the nominal run: bounds need more runs.
p = subprocess.run([ptieval, "--changes-stream", "-", ranged, os.path.join(data, "pingpong.xml")],
                   input="", capture_output=True, text=True)
check(p.returncode == 2 and "--changes-stream -: the changes of a stream are read once, but "
      "bounds take more evaluations; use --bounds=none" in p.stderr,
      "ranges with --changes-stream refused: exit %d: %s" % (p.returncode, p.stderr.strip()))
p = subprocess.run([ptieval, "--bounds=none", "--changes-stream", "-", ranged,
                    os.path.join(data, "pingpong.xml")], input="", capture_output=True, text=True)
check(p.returncode == 0, "--bounds=none with --changes-stream: exit %d" % p.returncode)

# ptisweep --bounds: the columns time_lower_s and time_upper_s per point.
# Ping-pong of B bytes on ranged-system.xml: 2 x (L + B / bw); B = 2000:
# 2 x (2 + 16) = 36 us, 2 x (1 + 10) = 22 us, 2 x (3 + 20) = 46 us.
if ptisweep is not None:
    with tempfile.TemporaryDirectory() as tmp:
        table = os.path.join(tmp, "s.json")
        p = subprocess.run([ptisweep, "-q", "--bounds=directed", "-D", "bytes=1000,2000", "-o",
                            table, ranged, os.path.join(data, "pingpong.xml")],
                           capture_output=True, text=True)
        check(p.returncode == 0, "ptisweep --bounds: exit 0 (%s)" % p.stderr.strip())
        rows = json.load(open(table))["rows"] if os.path.exists(table) else []
        want = {1000: (20e-6, 12e-6, 26e-6), 2000: (36e-6, 22e-6, 46e-6)}
        for row in rows if isinstance(rows, list) else []:
            t, lo, hi = want[int(row["bytes"])]
            check(close(row["predicted_time_s"], t) and close(row["time_lower_s"], lo)
                  and close(row["time_upper_s"], hi),
                  "ptisweep --bounds: bytes=%s: %s, %s, %s" % (row["bytes"], row["predicted_time_s"],
                                                                row["time_lower_s"], row["time_upper_s"]))
        check(isinstance(rows, list) and len(rows) == 2, "ptisweep --bounds: two rows")

print("1..%d" % count)
sys.exit(1 if failures else 0)
