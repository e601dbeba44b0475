#!/usr/bin/env python3
"""Writes a one-rank pticapture trace by hand (capture/FORMAT.md), for the
replay's closed forms (tests/capture/replay.sh): DIR/rank-0.ptc holding

  call  record                                   burst ns  dur ns
  1     MPI_Init                                       10     100
  2     MPI_Comm_rank (by name)                      1000      50
        REPEAT of it, 9 more                         9000     450
  3     MPI_Iprobe, found nothing                    2000      70
        REPEAT of it, 99 more                       19800    6930
  4     MPI_Wtime (by name)                           500      30
  5     MPI_Finalize                                    1       2

and, unless --no-floor, the HEADER property dur_floor_ns=FLOOR (default 10).

  make-trace.py DIR [--floor NS | --no-floor]
"""
import os
import sys


def u(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def z(v):   # zigzag, then varint
    return u(v * 2 if v >= 0 else -v * 2 - 1)


def s(text):
    b = text.encode()
    return u(len(b)) + b


def crc32c(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def call(code, burst, dur, args=b"", result=b""):
    return u(code << 1) + u(burst) + u(1) + u(dur) + args + result   # cpu: 1 + zigzag(0)


def main():
    out, floor = sys.argv[1], "10"
    if "--no-floor" in sys.argv:
        floor = None
    elif "--floor" in sys.argv:
        floor = sys.argv[sys.argv.index("--floor") + 1]
    props = [("run", "hand"), ("clock", "TSC")] + ([("dur_floor_ns", floor)] if floor else [])
    p = u(1 << 1) + s("pticapture test") + u(0) + u(1) + u(42) + s("host") + u(1) + s("0")
    p += u(3) + u(1) + s("lib") + u(0) + u(0) + u(1000) + u(2) + u(1) + s("./prog")
    p += u(len(props)) + b"".join(s(k) + s(v) for k, v in props)
    p += call(120, 10, 100)                                     # MPI_Init
    p += u(2 << 1) + u(1) + s("MPI_Comm_rank")                  # NAME 1
    p += call(16, 1000, 50, u(1))                               # generic, name 1
    p += u(6 << 1) + u(1) + u(9) + u(9000) + u(1) + u(450)      # REPEAT x 9 more
    # MPI_Iprobe (MPI_ANY_SOURCE, tag 5, MPI_COMM_WORLD): flag 0
    p += call(32, 2000, 70, z(-1) + z(5) + u(1), u(0))
    p += u(6 << 1) + u(1) + u(99) + u(19800) + u(1) + u(6930)   # REPEAT x 99 more
    p += u(2 << 1) + u(2) + s("MPI_Wtime")                      # NAME 2
    p += call(16, 500, 30, u(2))
    p += call(122, 1, 2)                                        # MPI_Finalize
    p += u(3 << 1) + u(0) + u(1 + 1 + 9 + 1 + 99 + 1 + 1) + u(0) + u(0)   # END finalize
    block = len(p).to_bytes(4, "little") + crc32c(p).to_bytes(4, "little") + p
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "rank-0.ptc"), "wb") as f:
        f.write(b"\x89PTICAP\n" + bytes([1, 3]) + block)


main()
