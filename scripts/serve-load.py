#!/usr/bin/env python3
"""Bounded load and fault run against `urlkey serve` (docs/security.md, "serve under load
and faults"): do stalled sockets get closed, does memory stay bounded. Loopback only.

Starts the given binary as `BIN serve --addr 127.0.0.1:0 [SERVE FLAGS]`, then:

1. big bodies: --big concurrent POSTs of --big-mib MiB each to /api/key (admitted or
   refused whole; measures the held-body memory);
2. load: --clients keep-alive clients for --duration seconds (at most --max-requests
   requests): small /api/key and /api/inspect, /api/map with bodies of 1 KB to
   --map-max-kb KB, malformed JSON to /api/map, a wrong Content-Type (415) followed by
   another request on the same connection, while --stalled sockets stall (half in the
   request head, half in the body);
3. prints requests, status counts (conn-error = the connection broke under the client),
   p50/p99 latency (all, and of the cheap errors alone), the server's peak RSS (VmHWM),
   and how many stalled sockets the server still held open at the end.

It stops by itself (every loop is bounded in count and time) and kills the server it
started. It refuses any address but loopback: the server is started on 127.0.0.1.

    python3 scripts/serve-load.py target/release/urlkey            # defaults
    python3 scripts/serve-load.py target/release/urlkey --duration 10 -- --header-timeout 2
"""

import argparse
import http.client
import json
import os
import random
import socket
import subprocess
import sys
import threading
import time
from collections import Counter


def peak_rss_mib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return float("nan")


def rss_mib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return float("nan")


def open_fds(pid):
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return -1


def map_text(n_bytes, rng):
    lines, size, i = [], 0, 0
    while size < n_bytes:
        u = f"https://www.example{rng.randrange(50)}.com/p/{i}?utm_source=x&id={rng.randrange(1000)}"
        lines.append(u)
        size += len(u) + 1
        i += 1
    return "\n".join(lines)


def percentile(sorted_ms, p):
    if not sorted_ms:
        return float("nan")
    k = min(len(sorted_ms) - 1, int(round(p / 100.0 * (len(sorted_ms) - 1))))
    return sorted_ms[k]


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.status = Counter()
        self.lat = []
        self.cheap_lat = []
        self.map_queued = 0

    def add(self, status, ms, cheap=False, queued=False):
        with self.lock:
            self.status[status] += 1
            self.lat.append(ms)
            if cheap:
                self.cheap_lat.append(ms)
            if queued:
                self.map_queued += 1


def request(conn, method, path, body, ctype="application/json"):
    headers = {"Content-Type": ctype} if body is not None else {}
    conn.request(method, path, body=body, headers=headers)
    r = conn.getresponse()
    data = r.read()
    return r.status, data, r.getheader("Connection", "")


def client(host, port, deadline, budget, stats, bodies, rng_seed):
    rng = random.Random(rng_seed)
    conn = http.client.HTTPConnection(host, port, timeout=60)
    while time.monotonic() < deadline:
        with budget["lock"]:
            if budget["left"] <= 0:
                break
            budget["left"] -= 1
        kind = rng.random()
        cheap = False
        if kind < 0.35:
            path, body = "/api/key", json.dumps({"input": f"https://a.example/{rng.randrange(10**6)}?utm_source=x"})
        elif kind < 0.55:
            path, body = "/api/inspect", json.dumps({"input": "https://Example.com:443/a/../b?gclid=1"})
        elif kind < 0.75:
            path, body = "/api/map", rng.choice(bodies)
        elif kind < 0.90:
            path, body, cheap = "/api/map", '{"text": "x", oops', True
        else:
            path, body, cheap = "/api/key", "x" * rng.choice([100, 65536]), True
        ctype = "text/plain" if kind >= 0.90 else "application/json"
        t0 = time.monotonic()
        try:
            status, data, connection = request(conn, "POST", path, body, ctype)
            queued = False
            if path == "/api/map" and status == 200:
                try:
                    queued = bool(json.loads(data).get("queue", {}).get("waited"))
                except ValueError:
                    pass
            stats.add(status, (time.monotonic() - t0) * 1000.0, cheap, queued)
            if connection.lower() == "close":
                conn.close()
                conn = http.client.HTTPConnection(host, port, timeout=60)
        except (OSError, http.client.HTTPException):
            stats.add("conn-error", (time.monotonic() - t0) * 1000.0, cheap)
            conn.close()
            conn = http.client.HTTPConnection(host, port, timeout=60)
    conn.close()


def big_body(host, port, mib, out, i):
    """One big POST on a raw socket: a server that refuses it (503, 413) answers before
    the body is sent and closes, so the send may fail; the answer is read either way."""
    text = "a" * (mib * 1024 * 1024 - 64)
    body = json.dumps({"input": text}).encode()
    head = (f"POST /api/key HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode()
    try:
        s = socket.create_connection((host, port), timeout=120)
    except OSError as e:
        out[i] = f"connect-error ({e.__class__.__name__})"
        return
    try:
        s.sendall(head)
        s.sendall(body)
    except OSError:
        pass  # refused early: the answer is already there
    data = b""
    try:
        while b"\r\n\r\n" not in data:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    except OSError:
        pass
    finally:
        s.close()
    parts = data.split(b" ", 2)
    out[i] = parts[1].decode() if len(parts) > 1 and data.startswith(b"HTTP/") else "conn-error"


def stalled_sockets(host, port, n):
    socks = []
    for i in range(n):
        try:
            s = socket.create_connection((host, port), timeout=5)
        except OSError:
            continue
        try:
            if i % 2 == 0:
                s.sendall(b"POST /api/key HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Ty")
            else:
                s.sendall(b"POST /api/key HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                          b"Content-Length: 1000\r\n\r\n{\"input\":")
        except OSError:
            pass
        socks.append(s)
    return socks


def still_open(socks):
    n = 0
    for s in socks:
        s.setblocking(False)
        try:
            data = s.recv(65536, socket.MSG_PEEK)
            if data and not data.startswith(b"HTTP/1.1 408"):
                n += 1  # an answer other than a timeout, still open
        except BlockingIOError:
            n += 1  # nothing to read: the server still holds it open
        except OSError:
            pass
        finally:
            s.close()
    return n


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("binary")
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--duration", type=float, default=20.0, help="seconds of load (at most 300)")
    ap.add_argument("--max-requests", type=int, default=50000)
    ap.add_argument("--stalled", type=int, default=100)
    ap.add_argument("--stall-wait", type=float, default=40.0,
                    help="seconds from opening the stalled sockets to checking them (at most 120; "
                         "past serve's default 10 s header and 30 s body timeouts)")
    ap.add_argument("--big", type=int, default=8)
    ap.add_argument("--big-mib", type=int, default=60)
    ap.add_argument("--map-max-kb", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=20)
    ap.add_argument("serve_flags", nargs="*", help="after --: extra flags for `serve`")
    a = ap.parse_args()
    duration = min(a.duration, 300.0)

    proc = subprocess.Popen([a.binary, "serve", "--addr", "127.0.0.1:0", *a.serve_flags],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = proc.stdout.readline()
        url = next((w for w in line.split() if w.startswith("http://")), None)
        if not url:
            sys.exit(f"serve-load: the server printed no URL: {line!r}")
        hostport = url[len("http://"):].rstrip("/")
        host, port = hostport.rsplit(":", 1)
        port = int(port)
        if host not in ("127.0.0.1", "localhost", "[::1]"):
            sys.exit(f"serve-load: refusing {host}: loopback only")
        rng = random.Random(a.seed)
        rss_start = rss_mib(proc.pid)

        big = {}
        threads = [threading.Thread(target=big_body, args=(host, port, a.big_mib, big, i)) for i in range(a.big)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=180)
        rss_after_big = rss_mib(proc.pid)

        sizes = [1000, 10_000, 100_000, 1_000_000, a.map_max_kb * 1000]
        bodies = [json.dumps({"text": map_text(s, rng), "page_size": 10}) for s in sizes]
        stats = Stats()
        socks = stalled_sockets(host, port, a.stalled)
        fds_with_stalled = open_fds(proc.pid)
        budget = {"left": a.max_requests, "lock": threading.Lock()}
        deadline = time.monotonic() + duration
        t0 = time.monotonic()
        threads = [threading.Thread(target=client, args=(host, port, deadline, budget, stats, bodies, a.seed + i))
                   for i in range(a.clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=duration + 120)
        elapsed = time.monotonic() - t0
        stall_wait = min(a.stall_wait, 120.0)
        if elapsed < stall_wait:
            time.sleep(stall_wait - elapsed)
        stalled_for = time.monotonic() - t0
        held = still_open(socks)

        lat = sorted(stats.lat)
        cheap = sorted(stats.cheap_lat)
        total = sum(stats.status.values())
        print(f"serve-load: {a.binary} ({' '.join(a.serve_flags) or 'default flags'}), load average {os.getloadavg()[0]:.2f}")
        print(f"big bodies: {a.big} x {a.big_mib} MiB to /api/key -> {dict(Counter(str(v) for v in big.values()))}; "
              f"RSS {rss_start:.0f} -> {rss_after_big:.0f} MiB")
        print(f"requests: {total} in {elapsed:.1f} s ({total / elapsed:.0f}/s) by {a.clients} keep-alive clients")
        print("status: " + ", ".join(f"{k}={v}" for k, v in sorted(stats.status.items(), key=lambda kv: str(kv[0]))))
        print(f"latency ms: p50 {percentile(lat, 50):.1f}, p99 {percentile(lat, 99):.1f}; "
              f"cheap errors (malformed, 415) p50 {percentile(cheap, 50):.1f}, p99 {percentile(cheap, 99):.1f}")
        print(f"maps that waited for the worker (reported): {stats.map_queued}")
        print(f"stalled sockets: {len(socks)} opened, server fds with them {fds_with_stalled}, "
              f"still open after {stalled_for:.0f} s: {held}")
        print(f"peak RSS (VmHWM): {peak_rss_mib(proc.pid):.0f} MiB; RSS at end {rss_mib(proc.pid):.0f} MiB")
    finally:
        proc.kill()
        proc.wait(timeout=30)


if __name__ == "__main__":
    main()
