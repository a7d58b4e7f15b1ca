"""The web page's load times (issue 37): /ui/sources for a namespace of 1,000 sources and a
dataset's page for a dataset of 1 million rows, served by the real app under uvicorn, beside
the op each page is mostly made of, called over HTTP on the same server (the anchor).

    python bench/ui.py [--sources 1000] [--rows 1000000] [--repeat 15] [--home PATH]

The home is made once (not timed; 11 minutes on 2 busy cores), in PATH when given and kept there
for the next run. Target: each page < 200 ms (the median of --repeat loads
after one warm-up load). The dataset page reads no row past its sample: stats, rejects and the
first rows come from knowledge.dataset_get.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import threading
import time
from pathlib import Path

from common import use_working_tree

TARGET_S = 0.2


def make_home(home: Path, sources: int, rows: int) -> None:
    import tabular

    small = home.parent / "small.csv"
    small.write_text("id,amount,when\n1,2.50,03/04/2024\n2,3.75,01/02/2024\n")
    big = home.parent / "big.csv"
    with big.open("w") as f:
        f.write("id,name,amount,day,flag\n")
        step = 100_000
        for start in range(0, rows, step):
            f.writelines(
                f"{i},name {i % 977},{i % 1000}.{i % 100:02d},2024-{i % 12 + 1:02d}-{i % 28 + 1:02d},{'yes' if i % 2 else 'no'}\n"
                for i in range(start, min(start + step, rows))
            )
    with tabular.connect(str(home), ingest_workers=2, job_queue=sources + 1, job_queue_per_org=sources + 1) as engine:
        many = engine.namespace(engine.settings.default_org, "many")
        upload = many.upload_file(small)["upload_id"]
        started = [
            many.call("knowledge.ingest", {"upload_id": upload, "source_uri": f"files/s{k:04d}.csv"})["ingestion_id"]
            for k in range(sources)
        ]
        one = engine.namespace(engine.settings.default_org, "big")
        started.append(
            one.call("knowledge.ingest", {"upload_id": one.upload_file(big)["upload_id"], "source_uri": "big.csv"})[
                "ingestion_id"
            ]
        )
        for ingestion_id in started:
            engine.jobs.wait(ingestion_id)


def serve(home: Path):
    """The app (HTTP, /ui) under uvicorn on a free loopback port, in a thread."""
    import socket

    import uvicorn

    import tabular
    from tabular.service import create_app

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    engine = tabular.connect(str(home))
    server = uvicorn.Server(
        uvicorn.Config(create_app(engine, mcp=False), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    return f"http://127.0.0.1:{port}", server, thread, engine


def timed(call, repeat: int) -> float:
    call()  # warm-up: the first load attaches the snapshots and fills the caches
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sources", type=int, default=1000)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--home", help="make the home here, or reuse the one made here before")
    args = parser.parse_args()
    use_working_tree()
    import httpx

    with tempfile.TemporaryDirectory(prefix="tabular-ui-") as tmp:
        home = Path(args.home) / "home" if args.home else Path(tmp) / "home"
        if not (home.parent / "made").exists():
            home.mkdir(parents=True, exist_ok=True)
            start = time.perf_counter()
            make_home(home, args.sources, args.rows)
            (home.parent / "made").write_text(f"{args.sources} {args.rows}\n")
            print(
                f"made a home of {args.sources} sources and one of {args.rows:,} rows in {time.perf_counter() - start:.1f} s"
            )
        url, server, thread, engine = serve(home)
        try:
            with httpx.Client(base_url=url, timeout=60) as c:

                def get(path: str, **params) -> None:
                    r = c.get(path, params=params)
                    assert r.status_code == 200, r.text[:500]

                def post(op: str, body: dict) -> None:
                    r = c.post(f"/v1/{op}", json=body)
                    assert r.status_code == 200, r.text[:500]

                big = engine.namespace(engine.settings.default_org, "big").call(
                    "knowledge.dataset_get", {"source_uri": "big.csv"}
                )
                assert big["datasets"][0]["rows"] == args.rows, big["datasets"][0]["rows"]
                results = [
                    (
                        "/ui/sources (first page of 50)",
                        timed(lambda: get("/ui/sources", namespace="many"), args.repeat),
                    ),
                    (
                        "  anchor: knowledge.list limit 50",
                        timed(lambda: post("knowledge.list", {"namespace": "many", "limit": 50}), args.repeat),
                    ),
                    (
                        "  anchor: knowledge.dataset_get x1",
                        timed(
                            lambda: post(
                                "knowledge.dataset_get", {"namespace": "many", "source_uri": "files/s0000.csv"}
                            ),
                            args.repeat,
                        ),
                    ),
                    (
                        f"/ui/datasets/big.csv ({args.rows:,} rows)",
                        timed(lambda: get("/ui/datasets/big.csv", namespace="big"), args.repeat),
                    ),
                    (
                        "  anchor: knowledge.dataset_get sample_rows 20",
                        timed(
                            lambda: post(
                                "knowledge.dataset_get",
                                {"namespace": "big", "source_uri": "big.csv", "sample_rows": 20},
                            ),
                            args.repeat,
                        ),
                    ),
                    ("  anchor: /healthz", timed(lambda: get("/healthz"), args.repeat)),
                ]
        finally:
            server.should_exit = True
            thread.join(10)
            engine.close()
    print(f"\nmedian of {args.repeat} loads after a warm-up, milliseconds")
    ok = True
    for name, seconds in results:
        page = name.startswith("/ui")
        verdict = ("PASS" if seconds < TARGET_S else "FAIL") if page else ""
        ok &= seconds < TARGET_S or not page
        print(f"{name:48} {seconds * 1000:8.1f}  {verdict}")
    print(f"\ntarget: each page < {TARGET_S * 1000:.0f} ms   {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
