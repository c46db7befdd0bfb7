#!/usr/bin/env python3
"""Issue #22's measurement: how fast warmed URLs answer while every upstream is slow.

Starts BFF (a built `bff` binary, e.g. target/release/bff) with config/bff.toml, short ttls and
its embedded sandbox on free ports; warms pages, products and collections; injects
`latencyMs` (default 15000) on every upstream route those answers are made from; then requests
each warmed URL once a second for DURATION seconds and prints p50, p99 and max latency, the
statuses and the Cache-Status details. Stops the BFF by its PID.

    python3 scripts/slow-upstream-p99.py target/release/bff [--duration 60] [--latency-ms 15000]
        [--ttl 1s] [--config FILE]

--ttl is every cached route's ttl and stale-while-revalidate window, as the BFF reads it: a number
with ms or s ("500ms", "1s").
"""

import argparse
import json
import os
import re
import socket
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections import Counter

WARMED = [
    "/api/pages/home",
    "/api/pages/footer",
    "/api/products/summit%20lr",
    "/api/products/vanguard%2015",
    "/api/collections/rifles",
    "/api/collections/pistols",
]
FAULTED_ROUTES = [
    "/strapi/page/{name}",
    "/strapi/products/{title}",
    "/strapi/product-groups/{title}",
    "/Products",
]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url, timeout=60):
    started = time.monotonic()
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            response.read()
            status, cache_status = response.status, response.headers.get("cache-status", "")
    except urllib.error.HTTPError as err:
        status, cache_status = err.code, err.headers.get("cache-status", "")
    except OSError as err:
        status, cache_status = f"error: {err}", ""
    detail = next(
        (part[len("detail="):] for part in cache_status.split("; ") if part.startswith("detail=")),
        "none",
    )
    return time.monotonic() - started, status, detail


def percentile(sorted_values, share):
    index = min(len(sorted_values) - 1, max(0, round(share * len(sorted_values)) - 1))
    return sorted_values[index]


def seconds(duration):
    """"500ms" or "1.5s" -> seconds; None for anything else."""
    match = re.fullmatch(r"(\d+(?:\.\d+)?)(ms|s)", duration.strip())
    if not match:
        return None
    return float(match[1]) / (1000 if match[2] == "ms" else 1)


def ttl_seconds_checked(duration):
    if seconds(duration) is None:
        raise argparse.ArgumentTypeError(f"{duration!r}: a number with ms or s, e.g. 500ms or 1s")
    return duration.strip()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bff")
    parser.add_argument("--duration", type=int, default=60)
    parser.add_argument("--latency-ms", type=int, default=15000)
    parser.add_argument("--ttl", type=ttl_seconds_checked, default="1s")
    parser.add_argument("--config", help="default: config/bff.toml (an older build may need its own)")
    args = parser.parse_args()

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    main_port, admin_port, sandbox_port = free_port(), free_port(), free_port()
    base, sandbox = f"http://127.0.0.1:{main_port}", f"http://127.0.0.1:{sandbox_port}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("BFF") and k != "RUST_LOG"}
    env.update({
        "BFF__SERVER__LISTEN": f"127.0.0.1:{main_port}",
        "BFF__ADMIN__LISTEN": f"127.0.0.1:{admin_port}",
        "BFF__SANDBOX__LISTEN": f"127.0.0.1:{sandbox_port}",
        "BFF__LOG__FILTER": "error",
    })
    for policy in ["PAGES", "PRODUCT", "COLLECTION", "PRICES"]:
        env[f"BFF__CACHE__{policy}__TTL"] = args.ttl
        env[f"BFF__CACHE__{policy}__STALE_WHILE_REVALIDATE"] = args.ttl
        env[f"BFF__CACHE__{policy}__JITTER"] = "0"
    with tempfile.TemporaryDirectory() as data:
        env["BFF__SANDBOX__DATA_DIR"] = data
        bff = subprocess.Popen(
            [args.bff, "--config", args.config or os.path.join(root, "config/bff.toml")],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        try:
            for _ in range(300):
                try:
                    if get(base + "/healthz", timeout=1)[1] == 200:
                        break
                except Exception:
                    pass
                time.sleep(0.1)
            for path in WARMED:
                assert get(base + path)[1] == 200, path
            time.sleep(2 * seconds(args.ttl) + 0.5)
            for route in FAULTED_ROUTES:
                request = urllib.request.Request(
                    sandbox + "/sandbox/faults",
                    data=json.dumps({"route": route, "latencyMs": args.latency_ms}).encode(),
                    headers={"content-type": "application/json"},
                    method="POST",
                )
                urllib.request.urlopen(request).read()

            results, lock, threads = [], threading.Lock(), []

            def one(path):
                result = get(base + path)
                with lock:
                    results.append(result)

            started = time.monotonic()
            for second in range(args.duration):
                for path in WARMED:
                    thread = threading.Thread(target=one, args=(path,))
                    thread.start()
                    threads.append(thread)
                time.sleep(max(0.0, started + second + 1 - time.monotonic()))
            for thread in threads:
                thread.join()
            with urllib.request.urlopen(f"http://127.0.0.1:{admin_port}/metrics") as response:
                breaker_lines = [
                    line for line in response.read().decode().splitlines()
                    if line.startswith("bff_upstream_breaker")
                ]
        finally:
            bff.terminate()
            bff.wait(timeout=60)

    latencies = sorted(result[0] for result in results)
    print(f"{len(results)} requests over {args.duration} s, latency fault {args.latency_ms} ms")
    print(
        f"p50 {percentile(latencies, 0.5) * 1000:.0f} ms, "
        f"p99 {percentile(latencies, 0.99) * 1000:.0f} ms, max {latencies[-1] * 1000:.0f} ms"
    )
    print("status:", dict(Counter(result[1] for result in results)))
    print("cache-status:", dict(Counter(result[2] for result in results)))
    print("\n".join(breaker_lines) or "no breaker metrics (a build without the breaker)")


if __name__ == "__main__":
    main()
