#!/usr/bin/env python3
"""Embed a text file (an XSD) as a C string constant.

usage: embed-text.py [--strip-xsd] INPUT OUTPUT SYMBOL
Writes `const char SYMBOL[] = "...";` so pti carries the schema without
needing an installed file at run time.

--strip-xsd leaves out what a validator never reads: xs:annotation (the
documentation, which stays in the source XSD for its readers), comments and
white space between elements.  libxml2 parses the remainder (a third of
workload.xsd) and compiles the same language from it faster.
"""
import sys
import xml.dom.minidom

XS = 'http://www.w3.org/2001/XMLSchema'


def strip_xsd(text):
    doc = xml.dom.minidom.parseString(text.encode('utf-8'))

    def strip(node):
        for child in list(node.childNodes):
            drop = (child.nodeType == child.COMMENT_NODE
                    or (child.nodeType == child.TEXT_NODE and not child.data.strip())
                    or (child.nodeType == child.ELEMENT_NODE
                        and child.namespaceURI == XS and child.localName == 'annotation'))
            if drop:
                node.removeChild(child)
            elif child.nodeType == child.ELEMENT_NODE:
                strip(child)

    strip(doc.documentElement)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + doc.documentElement.toxml() + '\n'


args = sys.argv[1:]
strip = args[0] == '--strip-xsd'
if strip:
    args = args[1:]
src, dst, symbol = args
with open(src, encoding='utf-8') as f:
    text = f.read()
if strip:
    text = strip_xsd(text)
out = ['/* generated from %s by embed-text.py; do not edit */' % src.split('/')[-1],
       'const char %s[] =' % symbol]
# One C literal per line of text; a stripped schema, one line, per element.
pieces = text.replace('><', '>\0<').split('\0') if strip else text.splitlines(keepends=True)
for piece in pieces:
    esc = piece.replace('\\', '\\\\').replace('"', '\\"').replace('\n', '\\n')
    out.append('  "%s"' % esc)
out[-1] += ';'
with open(dst, 'w', encoding='utf-8') as f:
    f.write('\n'.join(out) + '\n')
