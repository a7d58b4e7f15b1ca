"""Soak: `tabular serve` on loopback under N concurrent clients for a while, then a check that no
acknowledged write was lost.

    python bench/soak.py [--clients 16] [--seconds 120] [--max-requests 0] [--warmup 10] [--json]

Each client (a thread with its own kept-alive connection) loops over a mix: knowledge.query
(50%: a filter, a group and two aggregates over a 300-row CSV), knowledge.dataset_get (25%),
an upload + knowledge.ingest of a small CSV of its own (15%), and knowledge.dataset_approve of
its own source with the snapshot it last saw (10%, alternating a date order so every approval
retypes). Every call has a 60 s client timeout; the run stops at `--seconds` or after
`--max-requests` calls in all.

Reported: calls, throughput, p50/p99 latency per op and overall, answers by code (HTTP status
and SPEC code), the server's RSS at boot, after `--warmup` seconds of the same load (the base
for growth: DuckDB's caches fill in the first seconds) and at the end. Then every acknowledged
ingest (a 200 with an ingestion_id) is followed to its end and must be `ready` with its rows
readable at its revision or a later one; every acknowledged approval (a 200 with a new
snapshot) must be in its source's history. Exit status 1 when an answer was INTERNAL, a write
was lost, or memory grew 10% or more from the warm base.
"""

from __future__ import annotations

import sys
from pathlib import Path

# This file sits beside bench/http.py: keep the folder from shadowing the standard library's `http`.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import random  # noqa: E402
import shutil  # noqa: E402
import socket  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from collections import Counter, defaultdict  # noqa: E402

import httpx  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
ORDERS = ROOT / "fixtures" / "query" / "orders.csv"
DATES = ROOT / "fixtures" / "csv" / "dates_ambiguous.csv"
QUERY = {
    "datasets": [{"source_uri": "soak/orders.csv"}],
    "where": [{"column": "qty", "op": "ge", "value": 2}],
    "group_by": [{"column": "region"}],
    "aggregates": [{"fn": "sum", "column": "amount"}, {"fn": "count"}],
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.latency: dict[str, list[float]] = defaultdict(list)
        self.codes: Counter = Counter()
        self.ingests: list[tuple[str, str, int]] = []  # (ingestion_id, source_uri, rows)
        self.approvals: list[tuple[str, str]] = []  # (source_uri, new snapshot_id)
        self.calls = 0

    def record(self, op: str, seconds: float, response: httpx.Response | None, error: str = "") -> None:
        if response is None:
            code = f"client:{error}"
        elif response.status_code == 200:
            code = "200"
        else:
            try:
                code = f"{response.status_code} {response.json()['detail']['code']}"
            except Exception:
                code = f"{response.status_code} (no envelope)"
        with self.lock:
            self.calls += 1
            self.latency[op].append(seconds)
            self.codes[code] += 1


def client(url: str, k: int, stop: threading.Event, stats: Stats, budget: list[int]) -> None:
    rng = random.Random(k)
    own = f"soak/approve-{k}.csv"
    snapshot = ""
    formats = ["MDY", "DMY"]
    n = 0
    with httpx.Client(base_url=url, timeout=60) as http:

        def call(op: str, **kw) -> httpx.Response | None:
            started = time.perf_counter()
            try:
                r = http.post(f"/v1/knowledge.{op}", **kw)
            except httpx.HTTPError as err:
                stats.record(op, time.perf_counter() - started, None, type(err).__name__)
                return None
            stats.record(op, time.perf_counter() - started, r)
            return r

        while not stop.is_set():
            with stats.lock:
                if budget[0] and stats.calls >= budget[0]:
                    stop.set()
                    break
            pick = rng.random()
            if pick < 0.50:
                call("query", json=QUERY)
            elif pick < 0.75:
                r = call("dataset_get", json={"source_uri": own})
                if r is not None and r.status_code == 200 and r.json()["datasets"]:
                    snapshot = r.json()["datasets"][0]["snapshot_id"]
            elif pick < 0.90:
                n += 1
                rows = rng.randint(1, 50)
                body = "id,label,amount\n" + "".join(f"{i},c{k}-{n}-{i},{i}.{k:02d}\n" for i in range(rows))
                up = call("upload", params={"filename": f"c{k}-{n}.csv"}, content=body.encode())
                if up is None or up.status_code != 200:
                    continue
                uri = f"soak/ingest-{k}-{n}.csv"
                r = call("ingest", json={"upload_id": up.json()["upload_id"], "source_uri": uri})
                if r is not None and r.status_code == 200:
                    with stats.lock:
                        stats.ingests.append((r.json()["ingestion_id"], uri, rows))
            else:
                if not snapshot:
                    continue
                fmt = formats[n % 2]
                n += 1
                r = call("dataset_approve", json={"source_uri": own, "snapshot_id": snapshot, "formats": {"when": fmt}})
                if r is not None and r.status_code == 200:
                    snapshot = r.json()["dataset"]["snapshot_id"]
                    with stats.lock:
                        stats.approvals.append((own, snapshot))


def wait_job(http: httpx.Client, ingestion_id: str, seconds: float = 300) -> dict:
    deadline = time.monotonic() + seconds
    while True:
        got = http.post("/v1/knowledge.ingest_status", json={"ingestion_id": ingestion_id}).json()
        if got["state"] in ("ready", "partial", "failed", "cancelled") or time.monotonic() > deadline:
            return got
        time.sleep(0.05)


def seed(http: httpx.Client, clients: int) -> None:
    def ingest(path: Path, uri: str) -> None:
        up = http.post("/v1/knowledge.upload", params={"filename": path.name}, content=path.read_bytes()).json()
        job = http.post("/v1/knowledge.ingest", json={"upload_id": up["upload_id"], "source_uri": uri}).json()
        assert wait_job(http, job["ingestion_id"])["state"] == "ready"

    ingest(ORDERS, "soak/orders.csv")
    for k in range(clients):
        ingest(DATES, f"soak/approve-{k}.csv")


def verify(http: httpx.Client, stats: Stats) -> dict:
    """Every acknowledged write readable afterwards; answers what was lost."""
    lost_ingests, lost_approvals = [], []
    for ingestion_id, uri, rows in stats.ingests:
        job = wait_job(http, ingestion_id)
        got = http.post("/v1/knowledge.dataset_get", json={"source_uri": uri}).json()
        if job["state"] != "ready" or not got["found"] or got["revision"] < job["revision"] or got["datasets"][0]["rows"] != rows:
            lost_ingests.append({"ingestion_id": ingestion_id, "job": job.get("state"), "error": job.get("error_code"), "found": got["found"]})
    seen: dict[str, set[str]] = {}
    for uri, snapshot in stats.approvals:
        if uri not in seen:
            history = http.post("/v1/knowledge.get", json={"source_uri": uri}).json().get("history", [])
            seen[uri] = {h["new_snapshot_id"] for h in history}
        if snapshot not in seen[uri]:
            lost_approvals.append({"source_uri": uri, "snapshot_id": snapshot})
    return {"ingests_acknowledged": len(stats.ingests), "approvals_acknowledged": len(stats.approvals),
            "lost_ingests": lost_ingests, "lost_approvals": lost_approvals}


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=120)
    parser.add_argument("--max-requests", type=int, default=0, help="stop after this many calls in all (0: no bound)")
    parser.add_argument("--warmup", type=float, default=10, help="seconds of load before the memory base is taken")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    home = Path(tempfile.mkdtemp(prefix="tabular-soak-"))
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = (home / "server.log").open("wb")
    server = subprocess.Popen([sys.executable, "-m", "tabular.cli", "--home", str(home / "home"), "serve", "--port", str(port)],
                              stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("the server did not start: " + (home / "server.log").read_text()[-2000:])
            time.sleep(0.1)
        with httpx.Client(base_url=url, timeout=120) as http:
            seed(http, args.clients)
        rss_boot = rss_kib(server.pid)
        stats = Stats()
        stop = threading.Event()
        budget = [args.max_requests]
        threads = [threading.Thread(target=client, args=(url, k, stop, stats, budget), daemon=True) for k in range(args.clients)]
        started = time.monotonic()
        for t in threads:
            t.start()
        stop.wait(min(args.warmup, args.seconds))
        rss_warm = rss_kib(server.pid)
        stop.wait(max(0.0, args.seconds - (time.monotonic() - started)))
        stop.set()
        for t in threads:
            t.join(90)
        elapsed = time.monotonic() - started
        rss_end = rss_kib(server.pid)
        with httpx.Client(base_url=url, timeout=120) as http:
            checked = verify(http, stats)
        every = [s for values in stats.latency.values() for s in values]
        report = {
            "clients": args.clients, "seconds": round(elapsed, 1), "calls": stats.calls,
            "calls_per_second": round(stats.calls / elapsed, 1),
            "p50_ms": round(percentile(every, 0.5) * 1000, 1), "p99_ms": round(percentile(every, 0.99) * 1000, 1),
            "by_op": {op: {"calls": len(v), "p50_ms": round(percentile(v, 0.5) * 1000, 1), "p99_ms": round(percentile(v, 0.99) * 1000, 1)}
                      for op, v in sorted(stats.latency.items())},
            "answers": dict(stats.codes.most_common()),
            "rss_mib": {"boot": round(rss_boot / 1024, 1), "warm": round(rss_warm / 1024, 1), "end": round(rss_end / 1024, 1)},
            "rss_growth_from_warm": round((rss_end - rss_warm) / rss_warm, 3) if rss_warm else None,
            **checked,
        }
    finally:
        server.terminate()
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(home, ignore_errors=True)
    # Back-pressure (503 OVERLOADED) is an answer; a 500, an answer without the envelope, or a
    # call the client could not complete is a failure.
    failures = sum(n for code, n in report["answers"].items()
                   if code.startswith("client:") or "no envelope" in code or (code.startswith("5") and "OVERLOADED" not in code and "BACKEND_TIMEOUT" not in code))
    ok = not failures and not report["lost_ingests"] and not report["lost_approvals"] and (report["rss_growth_from_warm"] or 0) < 0.10
    if args.json:
        print(json.dumps({**report, "ok": ok}, indent=2))
    else:
        print(f"{report['clients']} clients, {report['seconds']} s: {report['calls']} calls, {report['calls_per_second']}/s, "
              f"p50 {report['p50_ms']} ms, p99 {report['p99_ms']} ms")
        for op, row in report["by_op"].items():
            print(f"  {op:16} {row['calls']:7} calls  p50 {row['p50_ms']:8} ms  p99 {row['p99_ms']:8} ms")
        print("  answers:", report["answers"])
        print(f"  server RSS MiB: boot {report['rss_mib']['boot']}, warm {report['rss_mib']['warm']}, end {report['rss_mib']['end']}"
              f" (growth from warm {report['rss_growth_from_warm']:.1%})")
        print(f"  acknowledged: {report['ingests_acknowledged']} ingests, {report['approvals_acknowledged']} approvals;"
              f" lost: {len(report['lost_ingests'])} ingests, {len(report['lost_approvals'])} approvals")
        print("OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
