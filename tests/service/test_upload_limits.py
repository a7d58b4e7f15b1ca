"""A streamed upload (tabular/service/upload.py) holds an in-flight slot for its whole stream,
against the real server over HTTP: with max_inflight_per_org=1 one of an org's uploads streams
and the others wait, then get 503, where all four streamed at once (four `.part` files)."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from .support import Server

HANG_GUARD = 60  # seconds; nothing here asserts a time


@pytest.fixture(scope="module")
def one_per_org(tmp_path_factory, tokens_file):
    srv = Server(
        tmp_path_factory.mktemp("svc-inflight") / "home",
        tokens=tokens_file,
        max_inflight_per_org=1,
        overload_wait_seconds=0.5,
    ).start()
    yield srv
    srv.stop()


def parts(srv: Server) -> list:
    return sorted((srv.home / "uploads").glob("*.part"))


def streaming(srv: Server) -> None:
    """Wait until one upload has begun its stream (its part file is there)."""
    deadline = time.monotonic() + HANG_GUARD
    while not parts(srv) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(parts(srv)) == 1


def test_four_streamed_uploads_of_one_org_one_streams_and_the_others_get_503(one_per_org):
    srv = one_per_org
    go_on = threading.Event()

    def held_open():
        yield b"a,b\n" + b"1,2\n" * 1000
        go_on.wait(HANG_GUARD)  # the first upload streams until the others are answered
        yield b"3,4\n"

    def upload(body, name):
        with srv.client("tok-acme-writer", timeout=HANG_GUARD) as http:
            return http.post(
                f"/v1/knowledge.upload?filename={name}&namespace=finance",
                content=body,
                headers={"content-type": "text/csv"},
            )

    with ThreadPoolExecutor(4) as pool:
        first = pool.submit(upload, held_open(), "first.csv")
        streaming(srv)
        others = [pool.submit(upload, b"a,b\n5,6\n", f"other{n}.csv") for n in range(3)]
        refused = [o.result(HANG_GUARD) for o in others]
        # While the first streams, no other of its org's uploads has a part file of its own.
        assert len(parts(srv)) == 1
        go_on.set()
        stored = first.result(HANG_GUARD)
    for got in refused:
        assert got.status_code == 503, got.text
        assert (
            got.json()["detail"]["code"] == "OVERLOADED" and "max_inflight_per_org" in got.json()["detail"]["message"]
        )
        assert int(got.headers["retry-after"]) > 0
    assert stored.status_code == 200 and stored.json()["filename"] == "first.csv"
    assert parts(srv) == []
    # The slot was given back: the org's next upload is served.
    assert upload(b"a,b\n7,8\n", "next.csv").status_code == 200
    assert parts(srv) == []


def test_an_upload_refused_at_its_orgs_slot_does_not_hold_another_orgs(one_per_org):
    srv = one_per_org
    go_on = threading.Event()

    def held_open():
        yield b"a,b\n1,2\n"
        go_on.wait(HANG_GUARD)

    def upload(token, body, name):
        with srv.client(token, timeout=HANG_GUARD) as http:
            return http.post(
                f"/v1/knowledge.upload?filename={name}&namespace=finance",
                content=body,
                headers={"content-type": "text/csv"},
            )

    with ThreadPoolExecutor(2) as pool:
        acme = pool.submit(upload, "tok-acme-writer", held_open(), "a.csv")
        streaming(srv)
        # Another org's upload is served while acme's streams: the per-org slot is acme's alone.
        assert upload("tok-globex-writer", b"a,b\n1,2\n", "g.csv").status_code == 200
        go_on.set()
        assert acme.result(HANG_GUARD).status_code == 200
    assert parts(srv) == []
