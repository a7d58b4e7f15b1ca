"""One org attacks while the other works (issue 30's "done when"): while globex sends plan bombs
and links a folder holding a FIFO, acme's queries answer 200 within 1 s and its link_dir within
5 s, every time, and the server stops on SIGTERM."""

from __future__ import annotations

import os
import signal
import threading
import time

import httpx
import pytest
from service.support import Server

from .conftest import TOKENS, tokens_file

ACME, GLOBEX = TOKENS["acme-writer"][0], TOKENS["globex-writer"][0]
CSV = "id,name,amount\n" + "".join(f"{i},n{i},{i}.25\n" for i in range(500))


def chain(steps: int) -> dict:
    compute = [{"as": "c0", "expr": {"add": ["amount", "amount"]}}]
    compute += [{"as": f"c{k}", "expr": {"add": [f"c{k - 1}", f"c{k - 1}"]}} for k in range(1, steps)]
    return {
        "datasets": [{"source_uri": "mine.csv"}],
        "compute": compute,
        "aggregates": [{"fn": "sum", "column": f"c{steps - 1}"}],
    }


FLAT = {
    "datasets": [{"source_uri": "mine.csv"}],
    "compute": [{"as": f"f{k}", "expr": {"add": ["amount", k]}} for k in range(12_000)],
    "limit": 1,
}


def ingest(c: httpx.Client, uri: str) -> None:
    up = c.post("/v1/knowledge.upload", params={"filename": uri}, content=CSV.encode()).json()
    job = c.post("/v1/knowledge.ingest", json={"upload_id": up["upload_id"], "source_uri": uri}).json()
    deadline = time.monotonic() + 60
    while c.post("/v1/knowledge.ingest_status", json={"ingestion_id": job["ingestion_id"]}).json()["state"] != "ready":
        assert time.monotonic() < deadline
        time.sleep(0.05)


@pytest.fixture
def server(tmp_path):
    for org in ("acme", "globex"):
        (tmp_path / "links" / org).mkdir(parents=True)
        (tmp_path / "links" / org / "a.csv").write_text("id,name\n1,one\n")
    os.mkfifo(tmp_path / "links" / "globex" / "pipe.csv")
    srv = Server(tmp_path / "home", tokens=tokens_file(tmp_path), link_roots=str(tmp_path / "links")).start()
    yield srv, tmp_path / "links"
    srv.stop()


def test_a_hostile_org_slows_no_other_and_the_server_stops_on_sigterm(server):
    srv, links = server
    with srv.client(ACME, timeout=30) as acme, srv.client(GLOBEX, timeout=120) as globex:
        ingest(acme, "mine.csv")
        ingest(globex, "mine.csv")
        stop = threading.Event()
        rival_answers: list[int] = []

        def attack() -> None:
            linked = globex.post("/v1/knowledge.link_dir", json={"path": str(links / "globex")})
            rival_answers.append(linked.status_code)
            link_id = linked.json().get("link_id")
            bombs = [chain(18), chain(40), FLAT]
            k = 0
            while not stop.is_set():
                rival_answers.append(globex.post("/v1/knowledge.query", json=bombs[k % 3]).status_code)
                if link_id:
                    rival_answers.append(globex.post("/v1/knowledge.retry_dir", json={"link_id": link_id}).status_code)
                k += 1

        attacker = threading.Thread(target=attack, daemon=True)
        attacker.start()
        slowest_query, slowest_link = 0.0, 0.0
        plan = {"datasets": [{"source_uri": "mine.csv"}], "aggregates": [{"fn": "sum", "column": "amount"}]}
        ended = time.monotonic() + 10
        rounds = 0
        while time.monotonic() < ended:
            started = time.monotonic()
            answer = acme.post("/v1/knowledge.query", json=plan)
            slowest_query = max(slowest_query, time.monotonic() - started)
            assert answer.status_code == 200, answer.text
            assert answer.json()["rows"] == [["124875.00"]]
            if rounds % 10 == 0:
                started = time.monotonic()
                linked = acme.post("/v1/knowledge.link_dir", json={"path": str(links / "acme")})
                slowest_link = max(slowest_link, time.monotonic() - started)
                assert linked.status_code == 200, linked.text
                acme.post("/v1/knowledge.unlink_dir", json={"link_id": linked.json()["link_id"]})
            rounds += 1
            time.sleep(0.1)
        stop.set()
        assert slowest_query < 1.0, f"acme's slowest query took {slowest_query:.2f} s"
        assert slowest_link < 5.0, f"acme's slowest link_dir took {slowest_link:.2f} s"
        # The rival's own calls were answered too, each with a code (no 500, no hang).
        attacker.join(60)
        assert not attacker.is_alive(), "a rival's call never answered"
        assert rival_answers and all(code < 500 or code in (503, 504) for code in rival_answers), rival_answers
        assert 200 in rival_answers[1:] or 413 in rival_answers or 504 in rival_answers

    started = time.monotonic()
    srv.proc.send_signal(signal.SIGTERM)
    srv.proc.wait(30)
    assert time.monotonic() - started < 15, "the server did not stop on SIGTERM within close_seconds"
