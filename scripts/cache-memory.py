#!/usr/bin/env python3
"""Resident memory against the edge cache's accounted bytes, for many small entries.

Starts the given bff binary (release build: `cargo build --release -p bff`) with its embedded
sandbox and a search budget large enough that nothing is evicted, sends N searches for terms
nobody searched before (each one a new, small cache entry, as in the flood of issue 22), and
prints the process's resident memory and the cache's accounted bytes before and after, per entry.
What the entries cost beyond their keys, bodies and tags is what `ENTRY_OVERHEAD_BYTES`
(bff/src/cache/entry.rs) should say.

    python3 scripts/cache-memory.py target/release/bff [N=200000]

Not part of `make test`: it takes a release build and a minute of load.
"""

import http.client
import json
import os
import random
import socket
import string
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

ADMIN_TOKEN = "cache-memory-admin-token"
THREADS = 4


def free_ports(count):
    socks = [socket.socket() for _ in range(count)]
    for sock in socks:
        sock.bind(("127.0.0.1", 0))
    ports = [sock.getsockname()[1] for sock in socks]
    for sock in socks:
        sock.close()
    return ports


def rss_bytes(pid):
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS")


def cache_stats(admin):
    request = urllib.request.Request(
        f"{admin}/admin/cache", headers={"authorization": f"Bearer {ADMIN_TOKEN}"}
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.load(answer)


def search_figures(stats):
    route = next(r for r in stats["routes"] if r["route"] == "search")
    return route["entries"], route["bytes"]


def flood(port, terms):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    for term in terms:
        connection.request("GET", f"/api/search?q={term}")
        answer = connection.getresponse()
        answer.read()
        if answer.status != 200:
            raise RuntimeError(f"search {term}: {answer.status}")


def main():
    binary = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 200_000
    server, admin_port, sandbox = free_ports(3)
    data = tempfile.mkdtemp(prefix="cache-memory-")
    env = {key: value for key, value in os.environ.items() if not key.startswith("BFF__")}
    env.update(
        {
            "BFF__SERVER__LISTEN": f"127.0.0.1:{server}",
            "BFF__ADMIN__LISTEN": f"127.0.0.1:{admin_port}",
            "BFF__SANDBOX__LISTEN": f"127.0.0.1:{sandbox}",
            "BFF__SANDBOX__DATA_DIR": data,
            "BFF__SERVER__PUBLIC_ORIGIN": f"http://127.0.0.1:{server}",
            "BFF__CACHE__SEARCH_CAPACITY_BYTES": str(4 * 1024**3),
            "BFF__RATE_LIMIT__SEARCH_PER_MINUTE": str(10**9),
            "BFF__LOG__FILTER": "warn",
            "BFF_ADMIN_TOKEN": ADMIN_TOKEN,
        }
    )
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    log = open(os.path.join(data, "bff.log"), "wb")
    process = subprocess.Popen([os.path.abspath(binary)], cwd=root, env=env, stdout=log, stderr=log)
    admin = f"http://127.0.0.1:{admin_port}"
    try:
        for _ in range(240):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{server}/readyz", timeout=2)
                break
            except OSError:
                time.sleep(0.25)
        # Warm what every search shares (the price map, the code paths) before the baseline.
        flood(server, ["warmup" + str(i) for i in range(1000)])
        time.sleep(1)
        entries_before, bytes_before = search_figures(cache_stats(admin))
        rss_before = rss_bytes(process.pid)

        rng = random.Random(22)
        terms = ["".join(rng.choices(string.ascii_lowercase, k=12)) for _ in range(count)]
        started = time.monotonic()
        workers = [
            threading.Thread(target=flood, args=(server, terms[i::THREADS])) for i in range(THREADS)
        ]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        elapsed = time.monotonic() - started
        time.sleep(1)
        stats = cache_stats(admin)
        entries_after, bytes_after = search_figures(stats)
        rss_after = rss_bytes(process.pid)
    finally:
        process.terminate()
        process.wait(timeout=30)

    entries = entries_after - entries_before
    accounted = bytes_after - bytes_before
    resident = rss_after - rss_before
    print(f"{count} searches in {elapsed:.0f} s; {entries} new search entries")
    print(f"RSS: {rss_before} -> {rss_after} bytes (+{resident})")
    print(f"accounted (search): {bytes_before} -> {bytes_after} bytes (+{accounted})")
    print(f"whole cache accounted: {stats['bytes']} bytes; RSS / accounted: {rss_after / stats['bytes']:.2f}")
    print(f"per entry: resident {resident / entries:.0f} B, accounted {accounted / entries:.0f} B")


if __name__ == "__main__":
    main()
