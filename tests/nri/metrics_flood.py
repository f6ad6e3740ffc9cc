#!/usr/bin/env python3
"""Floods gpu-numa-nri's metrics endpoint as a hostile pod on the pod network would.

  metrics_flood.py HOST PORT CONNECTIONS STOP_FILE

Opens CONNECTIONS connections as fast as the kernel takes them, in three kinds, a third each:
  idle      connects and sends nothing;
  slowloris sends a request line, then one header byte every 0.5 s, never finishing;
  garbage   sends 8 KiB of malformed header (twice the endpoint's header limit), then waits.
Once all are opened it prints "flooding: N connections opened"; it keeps them until STOP_FILE exists (the caller creates it once its GPU pods are done), then
prints one JSON object: per kind, how many connected, how many the endpoint closed, and how many
bytes the endpoint sent on them (any answer to these is a bug: they must get a closed connection
and nothing else). Driven by the caller's file, never by a clock of its own.
"""
import json
import os
import selectors
import socket
import sys
import time

host, port, total, stop_file = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
kinds = ("idle", "slowloris", "garbage")
stats = {k: {"connected": 0, "refused": 0, "closed_by_server": 0, "bytes_received": 0} for k in kinds}
sel = selectors.DefaultSelector()
conns = []  # [socket, kind, open]

for n in range(total):
    kind = kinds[n % 3]
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setblocking(False)
    try:
        s.connect((host, port))
    except BlockingIOError:
        pass
    except OSError:
        stats[kind]["refused"] += 1
        s.close()
        continue
    conns.append([s, kind, True])
    sel.register(s, selectors.EVENT_READ | selectors.EVENT_WRITE, len(conns) - 1)

print("flooding: %d connections opened" % len(conns), flush=True)
GARBAGE = b"GET /metrics HTTP/1.1\r\nX-Flood: " + b"A" * 8192 + b"\r\n"
sent_first = set()
last_drip = time.monotonic()
while not os.path.exists(stop_file):
    for key, events in sel.select(timeout=0.2):
        i = key.data
        s, kind, _ = conns[i]
        if events & selectors.EVENT_WRITE and i not in sent_first:
            sent_first.add(i)
            stats[kind]["connected"] += 1
            try:
                if kind == "slowloris":
                    s.send(b"GET /metrics HTTP/1.1\r\n")
                elif kind == "garbage":
                    s.send(GARBAGE)
            except OSError:
                pass
            sel.modify(s, selectors.EVENT_READ, i)
        if events & selectors.EVENT_READ:
            try:
                data = s.recv(65536)
            except OSError:
                data = b""
            if data:
                stats[kind]["bytes_received"] += len(data)
            else:
                stats[kind]["closed_by_server"] += 1
                sel.unregister(s)
                s.close()
                conns[i][2] = False
    if time.monotonic() - last_drip >= 0.5:  # slowloris: one more header byte each
        last_drip = time.monotonic()
        for i, (s, kind, is_open) in enumerate(conns):
            if is_open and kind == "slowloris" and i in sent_first:
                try:
                    s.send(b"X")
                except OSError:
                    pass
for s, _, is_open in conns:
    if is_open:
        s.close()
print(json.dumps(stats, sort_keys=True))
