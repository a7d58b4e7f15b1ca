"""A small knowledge.query over HTTP beside the same call through engine.call in process.

    python bench/http.py [--requests 2000] [--concurrency 8] [--seconds 10]

One run on loopback: a 1,000-row CSV is ingested into a fresh home (not timed); the plan (a
filter, a group, two aggregates) runs `--requests` times through `engine.call` in process, then
the same number of times over HTTP against `tabular serve` in a subprocess, one request after
another on a kept-alive connection (latency: p50, p99). Throughput is then `--concurrency`
connections sending as fast as answers come for `--seconds`, from one asyncio client that
writes raw HTTP/1.1 (so the load generator takes little of the machine's CPU). Figures are
printed; the targets of issue 6 are p50 overhead <= 3 ms and >= 300 queries/s.
"""

from __future__ import annotations

from common import ROOT, use_working_tree

use_working_tree()  # this file is bench/http.py: its folder must not shadow the standard library's http

import argparse  # noqa: E402
import asyncio  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import shutil  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import httpx  # noqa: E402

import tabular  # noqa: E402

PLAN = {
    "datasets": [{"source_uri": "sales.csv"}],
    "where": [{"column": "amount", "op": "gt", "value": 10}],
    "group_by": [{"column": "region"}],
    "aggregates": [{"fn": "sum", "column": "amount"}, {"fn": "count"}],
}
OVERHEAD_TARGET_MS = 3.0
THROUGHPUT_TARGET = 300.0


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def make_home(home: Path) -> None:
    csv = home.parent / "sales.csv"
    regions = ("north", "south", "east", "west")
    csv.write_text("region,amount\n" + "".join(f"{regions[i % 4]},{i % 97}.{i % 100:02d}\n" for i in range(1000)))
    with tabular.connect(str(home)) as engine:
        status = engine.namespace("default", "default").ingest_file(csv, source_uri="sales.csv")
        assert status.state == "ready", status


def in_process(home: Path, n: int) -> list[float]:
    with tabular.connect(str(home)) as engine:
        for _ in range(50):
            engine.call("knowledge.query", PLAN)
        times = []
        for _ in range(n):
            start = time.perf_counter()
            engine.call("knowledge.query", PLAN)
            times.append(time.perf_counter() - start)
    return times


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(home: Path, port: int) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, "-m", "tabular.cli", "--home", str(home), "serve", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=ROOT,
    )
    for _ in range(600):
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return proc
        except httpx.TransportError:
            time.sleep(0.1)
    proc.kill()
    sys.exit("the server did not start")


def over_http(port: int, n: int) -> list[float]:
    with httpx.Client(base_url=f"http://127.0.0.1:{port}") as client:
        for _ in range(50):
            client.post("/v1/knowledge.query", json=PLAN).raise_for_status()
        times = []
        for _ in range(n):
            start = time.perf_counter()
            client.post("/v1/knowledge.query", json=PLAN).raise_for_status()
            times.append(time.perf_counter() - start)
    return times


async def throughput(port: int, concurrency: int, seconds: float) -> tuple[int, int]:
    """(answers, failures) from `concurrency` kept-alive connections for `seconds`."""
    body = json.dumps(PLAN).encode()
    request = (
        f"POST /v1/knowledge.query HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode() + body
    deadline = time.monotonic() + seconds
    done = [0, 0]

    async def connection() -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        while time.monotonic() < deadline:
            writer.write(request)
            head = await reader.readuntil(b"\r\n\r\n")
            length = next(
                int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")
            )
            await reader.readexactly(length)
            done[0 if head.startswith(b"HTTP/1.1 200") else 1] += 1
        writer.close()

    await asyncio.gather(*(connection() for _ in range(concurrency)))
    return done[0], done[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="tabular-bench-http-"))
    try:
        home = work / "home"
        make_home(home)
        local = in_process(home, args.requests)
        port = free_port()
        server = start_server(home, port)
        try:
            remote = over_http(port, args.requests)
            answered, failed = asyncio.run(throughput(port, args.concurrency, args.seconds))
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(30)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    ms = 1000.0
    rows = [
        ("engine.call in process", statistics.median(local) * ms, percentile(local, 0.99) * ms),
        ("HTTP on loopback", statistics.median(remote) * ms, percentile(remote, 0.99) * ms),
    ]
    print(f"knowledge.query, 1,000 rows, {args.requests} calls each, {os.cpu_count()} cores")
    print(f"{'':26} {'p50 ms':>8} {'p99 ms':>8}")
    for name, p50, p99 in rows:
        print(f"{name:26} {p50:8.2f} {p99:8.2f}")
    overhead = rows[1][1] - rows[0][1]
    rate = answered / args.seconds
    print(
        f"HTTP overhead at p50: {overhead:.2f} ms (target <= {OVERHEAD_TARGET_MS} ms: {'met' if overhead <= OVERHEAD_TARGET_MS else 'NOT met'})"
    )
    print(
        f"throughput: {rate:.0f} queries/s over {args.concurrency} connections for {args.seconds:.0f} s, {failed} failed "
        f"(target >= {THROUGHPUT_TARGET:.0f}/s: {'met' if rate >= THROUGHPUT_TARGET and not failed else 'NOT met'})"
    )


if __name__ == "__main__":
    main()
