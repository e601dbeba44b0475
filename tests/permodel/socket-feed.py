#!/usr/bin/env python3
"""A monitoring process serving changes on a unix socket, as a sensor
daemon would: `socket-feed.py PATH` listens on PATH, accepts one reader
(ptieval --changes-stream PATH) and forwards its standard input to it as
the lines come, then closes.  With --no-listen it binds PATH and exits
without listening: a socket nobody serves."""
import os
import socket
import sys

path = sys.argv[-1]
server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
server.bind(path + ".tmp")
if "--no-listen" in sys.argv:
    os.rename(path + ".tmp", path)
    sys.exit(0)
server.listen(1)
server.settimeout(30)          # a reader that never comes: fail, do not hang
os.rename(path + ".tmp", path)   # the path appears only once it accepts
conn, _ = server.accept()
for line in sys.stdin.buffer:
    conn.sendall(line)
conn.close()
