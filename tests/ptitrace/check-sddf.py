#!/usr/bin/env python3
"""Structural checker of an ASCII SDDF file, written from
shared/formats/sddf.md (the grammar of section 6 and the rules of sections
2 to 5 and 8), independently of ptitrace's code.

    check-sddf.py FILE [TRACE.xml]

Checks: "SDDFA" first, the stream-attribute packet, record descriptors
(unique tags, names and field names; types char/int/float/double) all before
the data, each data packet on one line with one value per field of the
right type (ints in 32 bits, reals with a point and no exponent, char[] as
[strlen+1] { "..." }), strings without quotes or line breaks; and, from the
stream attributes ptitrace writes, that the counts agree with the records
("events" less "derived events", "messages"), processor numbers are below
"processors", no time exceeds "predicted time", and data records are in
time order.  With the pti trace: the event and message counts of the
trace, and every "PTI Message" with the times of its message in the trace
(posted by the sender, entered the network, receive posted, arrived).
Exits 1 with the first problems found."""
import re
import sys
import xml.etree.ElementTree as ET
from decimal import Decimal

errors = []


def fail(msg):
    errors.append(msg)
    if len(errors) >= 20:
        finish()


def finish():
    if errors:
        for e in errors:
            print("check-sddf: " + e, file=sys.stderr)
        sys.exit(1)


TOKEN = re.compile(r'''
    (?P<ws>[ \t\r\n]+)
  | (?P<string>"[^"\n]*")
  | (?P<tag>\#\d+:)
  | (?P<real>-?\d+\.\d*)
  | (?P<int>-?\d+)
  | (?P<semi2>;;)
  | (?P<brackets>\[\])
  | (?P<punct>[{}\[\];,])
  | (?P<word>[A-Za-z]+)
''', re.X)


class Lexer:
    def __init__(self, text):
        self.text = text
        self.pos = 0
        self.line = 1

    def error(self, msg):
        fail(f"line {self.line}: {msg}")
        finish()

    def skip_ws(self):
        while self.pos < len(self.text) and self.text[self.pos] in " \t\r\n":
            if self.text[self.pos] == "\n":
                self.line += 1
            self.pos += 1

    def peek(self):
        self.skip_ws()
        if self.pos >= len(self.text):
            return None, None
        if self.text.startswith("//", self.pos):
            return "attr", None
        if self.text.startswith("/*", self.pos):
            return "open", None
        m = TOKEN.match(self.text, self.pos)
        if not m:
            self.error(f"unexpected text: {self.text[self.pos:self.pos + 20]!r}")
        return m.lastgroup, m.group(0)

    def next(self):
        kind, value = self.peek()
        if kind in ("attr", "open"):
            self.error("unexpected comment")
        if kind is None:
            self.error("unexpected end of file")
        self.pos += len(value)
        return kind, value

    def expect(self, kind, value=None):
        k, v = self.next()
        if k != kind or (value is not None and v != value):
            self.error(f"expected {value or kind}, found {v!r}")
        return v

    def attr_line(self):
        """// "key" "value" up to the end of the line."""
        end = self.text.find("\n", self.pos)
        end = len(self.text) if end < 0 else end
        body = self.text[self.pos + 2:end]
        if not re.fullmatch(r'\s*"[^"\n]*"\s+"[^"\n]*"\s*', body):
            self.error(f"an attribute line is not two strings: {body[:60]!r}")
        self.pos = end


def seconds_ns(text):
    whole, frac = text.split(".")
    return int(whole) * 10**9 + int(frac)


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    raw = open(sys.argv[1], "rb").read()
    if not raw.startswith(b"SDDFA\n"):
        fail("the file does not start with 'SDDFA' and a newline")
        finish()
    text = raw.decode("utf-8")
    lx = Lexer(text)
    lx.pos = 5
    # Stream attribute packet.
    lx.skip_ws()
    if not text.startswith("/*", lx.pos):
        lx.error("no stream-attribute packet after SDDFA")
    end = text.find("*/", lx.pos)
    if end < 0:
        lx.error("unterminated attribute packet")
    strings = re.findall(r'"([^"\n]*)"', text[lx.pos:end])
    if len(strings) % 2:
        lx.error("the attribute packet has an odd number of strings")
    attrs = dict(zip(strings[::2], strings[1::2]))
    lx.line += text[lx.pos:end].count("\n")
    lx.pos = end + 2
    lx.expect("semi2")

    records = {}   # name -> [(type, name, dims)]
    tags = set()
    data_seen = False
    counts = {}
    messages_seen = []
    last_time = None
    procs = int(attrs.get("processors", "0"))
    predicted = Decimal(attrs["predicted time"]) if "predicted time" in attrs else None
    while True:
        kind, value = lx.peek()
        if kind is None:
            break
        if kind == "tag":
            if data_seen:
                lx.error("a record descriptor after data records")
            lx.next()
            tag = int(value[1:-1])
            if tag in tags:
                lx.error(f"descriptor tag {tag} used twice")
            tags.add(tag)
            while lx.peek()[0] == "attr":
                lx.attr_line()
            name = lx.expect("string")[1:-1]
            if name in records:
                lx.error(f"record name {name!r} declared twice")
            lx.expect("punct", "{")
            fields = []
            while True:
                while lx.peek()[0] == "attr":
                    lx.attr_line()
                k, v = lx.peek()
                if k == "punct" and v == "}":
                    lx.next()
                    break
                ftype = lx.expect("word")
                if ftype not in ("char", "int", "float", "double"):
                    lx.error(f"unknown field type {ftype}")
                fname = lx.expect("string")[1:-1]
                dims = 0
                while lx.peek()[0] == "brackets":
                    lx.next()
                    dims += 1
                lx.expect("punct", ";")
                if any(f[1] == fname for f in fields):
                    lx.error(f"field {fname!r} twice in record {name!r}")
                fields.append((ftype, fname, dims))
            if not fields:
                lx.error(f"record {name!r} has no field")
            lx.expect("semi2")
            records[name] = fields
            continue
        if kind != "string":
            lx.error(f"expected a descriptor or a data packet, found {value!r}")
        # Data packet, on one line.
        data_seen = True
        start_line = lx.line
        name = lx.next()[1][1:-1]
        if name not in records:
            lx.error(f"data for an undeclared record {name!r}")
        fields = records[name]
        lx.expect("punct", "{")
        values = []
        for i, (ftype, fname, dims) in enumerate(fields):
            if i:
                lx.expect("punct", ",")
            if dims == 0:
                k, v = lx.next()
                if ftype == "int":
                    if k != "int" or not -2**31 <= int(v) < 2**31:
                        lx.error(f"{name}.{fname}: {v!r} is not a 32-bit int")
                elif ftype in ("float", "double"):
                    if k != "real":
                        lx.error(f"{name}.{fname}: {v!r} is not a real with a decimal point")
                else:
                    if k != "int":
                        lx.error(f"{name}.{fname}: a scalar char is an integer code")
                values.append(v)
            else:
                sizes = []
                for _ in range(dims):
                    lx.expect("punct", "[")
                    sizes.append(int(lx.expect("int")))
                    lx.expect("punct", "]")
                lx.expect("punct", "{")
                items = []
                while True:
                    k, v = lx.peek()
                    if k == "punct" and v == "}":
                        lx.next()
                        break
                    if items:
                        lx.expect("punct", ",")
                    items.append(lx.next()[1])
                if ftype == "char" and dims == 1:
                    if len(items) != 1 or not items[0].startswith('"'):
                        lx.error(f"{name}.{fname}: a char[] value is one string")
                    elif sizes[0] < len(items[0][1:-1].encode()) + 1:
                        lx.error(f"{name}.{fname}: [{sizes[0]}] is shorter than the string + NUL")
                    values.append(items[0][1:-1])
                else:
                    total = 1
                    for s in sizes:
                        total *= s
                    if len(items) != total:
                        lx.error(f"{name}.{fname}: {len(items)} elements for sizes {sizes}")
                    values.append(items)
        lx.expect("punct", "}")
        lx.expect("semi2")
        if lx.line != start_line:
            fail(f"line {start_line}: data packet spans lines")
        counts[name] = counts.get(name, 0) + 1
        # ptitrace's conventions: time first, then processor numbers.
        names = [f[1] for f in fields]
        if name == "PTI Message":
            v = dict(zip(names, values))
            messages_seen.append(tuple(int(Decimal(v[k]) * 10**9) for k in
                                       ("Send Seconds", "Injected Seconds", "Receive Seconds",
                                        "Arrival Seconds"))
                                 + (int(v["Source"]), int(v["Destination"]), int(v["Tag"]),
                                    int(Decimal(v["Bytes"]))))
        t = Decimal(values[0])
        if last_time is not None and t < last_time:
            fail(f"line {start_line}: data not in time order ({t} after {last_time})")
        last_time = t
        end_time = t + (Decimal(values[names.index("Duration")]) if "Duration" in names else 0)
        if "Arrival Seconds" in names:
            end_time = Decimal(values[names.index("Arrival Seconds")])
        if predicted is not None and end_time > predicted:
            fail(f"line {start_line}: time {end_time} after the predicted time {predicted}")
        for pf in ("Processor Number", "Source", "Destination"):
            if pf in names:
                p = int(values[names.index(pf)])
                if not (-1 if pf == "Processor Number" else 0) <= p < procs:
                    fail(f"line {start_line}: {pf} {p} not below 'processors' {procs}")
    if not records:
        fail("no record descriptor")
    events = sum(counts.get(n, 0) for n in ("PTI Compute", "PTI Send", "PTI Receive", "PTI Post",
                                            "PTI Request Wait"))
    messages = counts.get("PTI Message", 0)
    derived = int(attrs.get("derived events", "0"))
    if "events" in attrs and int(attrs["events"]) - derived != events:
        fail(f"the attribute 'events' says {attrs['events']} ({derived} derived), the file has "
             f"{events} event records")
    if "messages" in attrs and int(attrs["messages"]) != messages:
        fail(f"the attribute 'messages' says {attrs['messages']}, the file has {messages}")
    extra = ""
    if len(sys.argv) == 3:
        n_ev = n_msg = 0
        sends, recvs = {}, {}
        rank = None
        for ev, el in ET.iterparse(sys.argv[2], events=("start", "end")):
            tag = el.tag.split("}")[-1]
            if ev == "start":
                if tag == "process" and el.get("processor") is None and el.get("compute") is None:
                    rank = int(el.get("rank"))
                continue
            if tag != "event":
                continue
            n_ev += 1
            n_msg += el.get("kind") in ("send", "isend")
            ends = [(el.get("kind"), el, el.get("start"))] if el.get("kind") in ("send", "recv") else []
            ends += [("send" if q.get("kind") == "isend" else "recv", q, q.get("posted")) for q in el]
            for side, e, posted in ends:
                t = e.get("left" if side == "send" else "arrived")
                rec = (rank, int(e.get("peer")), seconds_ns(posted), seconds_ns(e.get("injected")),
                       seconds_ns(t), int(e.get("tag")), int(e.get("bytes")))
                (sends if side == "send" else recvs)[e.get("msg")] = rec
            el.clear()
        if n_ev != events or n_msg != messages:
            fail(f"the trace has {n_ev} events and {n_msg} messages; the SDDF {events} and {messages}")
        want = sorted((s[2], s[3], r[2], r[4], s[0], r[0], s[5], s[6])
                      for m, s in sends.items() for r in [recvs.get(m)] if r)
        if sorted(messages_seen) != want:
            fail(f"PTI Message records differ from the trace's messages: expected "
                 f"{[w for w in want if w not in messages_seen][:3]}, found "
                 f"{[x for x in messages_seen if x not in want][:3]}")
        extra = "; counts and message times agree with the trace"
    finish()
    print(f"check-sddf: {sys.argv[1]}: ok: {len(records)} descriptors, "
          f"{sum(counts.values())} data records ({events} events, {messages} messages){extra}")


main()
