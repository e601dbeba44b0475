#!/usr/bin/env python3
"""A schema takes any number of children in one element.

    big-block.py XMLLINT XSD workload|trace

Streams a document through `xmllint --stream --schema XSD` (libxml2's
validator, as pti uses it, in constant memory): for workload.xsd,
5,000,002 <use/> in <program>, then as many in an <if>; for trace.xsd,
5,000,002 events in one process group.  A content model that repeats a
choice took 5,000,001 children and refused the next ("This element is not
expected": libxml2's limit of 10,000,000 rollback points per content model);
schemas/README.md says how the schemas avoid it."""
import subprocess
import sys

xmllint, xsd, kind = sys.argv[1:4]
N = 5_000_002
CHUNK = 100_000

TRACE_HEAD = """<?xml version="1.0" encoding="UTF-8"?>
<trace xmlns="urn:pti:trace:2" version="2">
  <header>
    <generator>pti</generator>
    <system name="s" file="s.xml"/>
    <workload name="w" file="w.xml"/>
    <parameters/>
    <models>
      <model name="cpu-clc" owner="computer node"/>
    </models>
    <records/>
    <processes count="1">
      <process rank="0" processor="node[1] cpu 0"/>
    </processes>
  </header>
  <events>
    <process rank="0">
"""
TRACE_TAIL = """    </process>
  </events>
  <summary predicted_time="0.000000000" events="%d">
    <process rank="0" end="0.000000000" compute="0.000000000" comm="0.000000000" wait="0.000000000" events="%d"/>
  </summary>
</trace>
""" % (N, N)
EVENT = ('<event kind="compute" start="0.000000000" end="0.000000000" device="cpu" '
         'model="cpu-clc" rud="r"/>\n')

if kind == "workload":
    head = '<workload name="big"><processes count="1"/><rud name="w" device="cpu"/><program>'
    cases = [("<program>", head, '<use rud="w"/>', "</program></workload>\n"),
             ("<if>", head + '<if test="rank == 0">', '<use rud="w"/>',
              "</if></program></workload>\n")]
elif kind == "trace":
    cases = [("<process>", TRACE_HEAD, EVENT, TRACE_TAIL)]
else:
    sys.exit(__doc__)

failed = False
for where, head, child, tail in cases:
    p = subprocess.Popen([xmllint, "--noout", "--nonet", "--stream", "--schema", xsd, "-"],
                         stdin=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdin.write(head.encode())
    block = (child * CHUNK).encode()
    for _ in range(N // CHUNK):
        p.stdin.write(block)
    p.stdin.write((child * (N % CHUNK) + tail).encode())
    p.stdin.close()
    err = p.stderr.read().decode(errors="replace")
    if p.wait() != 0:
        print(f"not ok: {N} children of {where}: {err.strip()[:2000]}")
        failed = True
    else:
        print(f"ok: {N} children of {where} validate")
sys.exit(1 if failed else 0)
