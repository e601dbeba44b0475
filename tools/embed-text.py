#!/usr/bin/env python3
"""Embed a text file (a model's XSD) as a C string constant.

usage: embed-text.py INPUT OUTPUT SYMBOL
Writes `const char SYMBOL[] = "...";` so built-in models carry their schema
without needing an installed file at run time.
"""
import sys

src, dst, symbol = sys.argv[1:4]
with open(src, encoding='utf-8') as f:
    text = f.read()
out = ['/* generated from %s by embed-text.py; do not edit */' % src.split('/')[-1],
       'const char %s[] =' % symbol]
for line in text.splitlines(keepends=True):
    esc = line.replace('\\', '\\\\').replace('"', '\\"').replace('\n', '\\n')
    out.append('  "%s"' % esc)
out[-1] += ';'
with open(dst, 'w', encoding='utf-8') as f:
    f.write('\n'.join(out) + '\n')
