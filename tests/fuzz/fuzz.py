#!/usr/bin/env python3
"""Seed corpora and runs of the fuzz targets (tests/fuzz/README.md).

    fuzz.py seeds TARGET OUTDIR SOURCE_ROOT
        write TARGET's seeds into OUTDIR, from the project's own inputs
    fuzz.py smoke BINARY TARGET SOURCE_ROOT RUNS
        a short run: the seeds, then mutations, RUNS executions in all

Targets: hmc, workload, replay (SimGrid TI and Dimemas traces, seeded from
tests/fuzz/seeds/replay only), rud, expr, changes, trace, capture (pticapture's
rank files, seeded from tests/fuzz/seeds/capture only), reuse (ptireuse's
address streams; a seed's first byte picks the format, see fuzz-reuse.c).  The seeds are taken
from the tree as it is (configs, examples, the tests' data files), so they
follow the formats as they change; tests/fuzz/seeds/TARGET holds inputs
written for a target, among them every input a fuzzer found (regress-*).
"""
import glob
import hashlib
import os
import re
import subprocess
import sys
import tempfile

TARGETS = ("hmc", "workload", "replay", "rud", "expr", "changes", "trace", "capture", "reuse")

# Where each target's inputs are in the tree (globs under SOURCE_ROOT).
FILES = {
    "hmc": ["configs/*.xml", "hmi/template/example-system.xml", "tests/fuzz/system.xml",
            "tests/cli/data/*system*.xml", "tests/cg/data/*.xml",
            "tests/collectives/data/system*.xml", "tests/workload/data/*system*.xml",
            "tests/bounds/data/*system*.xml", "tests/io/data/pfs4.xml"],
    "workload": ["wsl/examples/*.xml", "tests/workload/data/*.xml", "tests/cli/data/*.xml",
                 "tests/collectives/data/*.xml", "tests/bounds/data/*.xml",
                 "tests/io/data/checkpoint.xml"],
    "trace": ["tests/trace/samples/*.xml", "tests/trace/golden/*.xml",
              "tests/ptitrace/samples/*.xml"],
}
# Seeds whose files need a first byte (the mode) before them: raw streams.
PREFIXED = {"reuse": (b"\x00", ["tests/reuse/data/*.txt"])}
# Files whose <rud> elements and attribute values seed "rud" and "expr".
XML_SOURCES = ["wsl/examples/*.xml", "tests/workload/data/*.xml", "tests/cli/data/*.xml",
               "tests/collectives/data/*.xml", "tests/conformance/data/*rud*.xml"]


def write(outdir, data):
    name = hashlib.sha1(data).hexdigest()
    with open(os.path.join(outdir, name), "wb") as f:
        f.write(data)


def seeds(target, outdir, root):
    os.makedirs(outdir, exist_ok=True)
    own = os.path.join(root, "tests", "fuzz", "seeds", target)
    paths = sorted(glob.glob(os.path.join(own, "*")))
    for pattern in FILES.get(target, []):
        paths += sorted(glob.glob(os.path.join(root, pattern)))
    for p in paths:
        with open(p, "rb") as f:
            write(outdir, f.read())
    if target in PREFIXED:
        prefix, patterns = PREFIXED[target]
        for pattern in patterns:
            for p in sorted(glob.glob(os.path.join(root, pattern))):
                with open(p, "rb") as f:
                    write(outdir, prefix + f.read())
    if target in ("rud", "expr"):
        for pattern in XML_SOURCES:
            for p in sorted(glob.glob(os.path.join(root, pattern))):
                text = open(p, "rb").read()
                if target == "rud":
                    for m in re.finditer(rb"<rud\b.*?</rud>", text, re.S):
                        write(outdir, m.group(0))
                else:
                    for m in re.finditer(rb'\s[a-z_]+="([^"]*)"', text):
                        write(outdir, m.group(1))
    return len(os.listdir(outdir))


def smoke(binary, target, root, runs):
    """A few thousand executions from the seeds; a crash fails (libFuzzer or
    the standalone driver exits non-zero, the sanitizers abort)."""
    binary = os.path.abspath(binary)
    with tempfile.TemporaryDirectory(prefix="pti-fuzz-") as tmp:
        corpus = os.path.join(tmp, "corpus")
        seed_dir = os.path.join(tmp, "seeds")
        os.mkdir(corpus)
        n = seeds(target, seed_dir, root)
        print(f"# {target}: {n} seeds")
        cmd = [binary, f"-runs={runs}", "-seed=1", "-max_len=65536", "-timeout=60",
               "-rss_limit_mb=4096", "-print_final_stats=1", corpus, seed_dir]
        p = subprocess.run(cmd, cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, errors="replace")
        out = p.stdout
        lines = [l for l in out.splitlines()
                 if l.startswith(("standalone:", "stat::number_of_executed_units", "Done "))]
        for l in lines:
            print("# " + l)
        if p.returncode != 0:
            print(out[-20000:])
            print(f"not ok: {target}: exit status {p.returncode}")
            return 1
        print(f"ok: {target}")
        return 0


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "seeds" and sys.argv[2] in TARGETS:
        print(seeds(sys.argv[2], sys.argv[3], sys.argv[4]))
        return 0
    if len(sys.argv) == 6 and sys.argv[1] == "smoke" and sys.argv[3] in TARGETS:
        return smoke(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
