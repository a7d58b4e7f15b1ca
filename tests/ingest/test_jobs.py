"""tabular/ingest/jobs.py: the pool of ingest jobs: a stored request read back as admitted, room
checked per org, a pending job cancelled at once, and jobs a dead process left taken up (or
failed once they have had their starts)."""

from __future__ import annotations

import pytest
from conftest import DEAD_OWNER, held_job

import tabular
from tabular.errors import Overloaded
from tabular.ingest.jobs import JobPool, admitted
from tabular.settings import Settings
from tabular.store import catalog as C
from tabular.store.home import Catalog

DEAD = DEAD_OWNER


@pytest.fixture
def home(tmp_path):
    catalog = Catalog(str(tmp_path / "home"))
    yield catalog
    catalog.close()


def pool_of(home, **settings):
    pool = JobPool(home, Settings(**settings), workers=1)
    return pool


def add_job(home, ingestion_id, state="pending", attempts=0, owner=DEAD, cancel=False, org="acme"):
    held_job(home, ingestion_id, state=state, attempts=attempts, owner=owner, cancel_requested=cancel, org=org)


def test_a_stored_request_reads_back_as_it_was_admitted_even_when_todays_checks_refuse_it():
    ok = admitted({"upload_id": "u", "source_uri": "a.csv", "options": {"delimiter": ";"}})
    assert ok.options.delimiter == ";"
    old = admitted(
        {"upload_id": "u", "source_uri": "a.csv", "title": "t" * 5000, "options": {"delimiter": ";", "gone": 1}}
    )
    assert (old.title, old.options.delimiter) == ("t" * 5000, ";")
    assert not hasattr(old.options, "gone")


def test_an_org_past_its_share_of_the_queue_is_overloaded_with_a_retry_after(home):
    pool = pool_of(home, job_queue_per_org=0)
    try:
        with pytest.raises(Overloaded) as caught:
            pool.check_room("acme")
        assert "job_queue_per_org" in caught.value.message
        assert caught.value.retry_after >= 1
    finally:
        pool.close()


def test_a_pending_job_is_cancelled_at_once_and_an_unknown_one_is_not_found(home):
    add_job(home, "j1", owner=None)
    pool = pool_of(home)
    try:
        out = pool.cancel("j1", "acme", "fin")
        assert (out.found, out.state, out.cancelled) == (True, "cancelled", True)
        assert C.job_state(home.conn(), "j1", "acme", "fin") == "cancelled"
        assert pool.cancel("j1", "rival", "fin").found is False  # another org's job is no job
        assert pool.cancel("nope", "acme", "fin").found is False
    finally:
        pool.close()


def test_a_job_left_running_by_a_dead_process_past_its_starts_fails_retries_exhausted(home):
    add_job(home, "j1", state="processing", attempts=3)
    add_job(home, "j2", state="processing", attempts=1, cancel=True)
    pool = pool_of(home, take_up_jobs=True, job_attempts=3)
    try:
        first = C.job_status(home.conn(), "j1", "acme", "fin")
        assert (first["state"], first["error_code"]) == ("failed", "retries_exhausted")
        assert C.job_state(home.conn(), "j2", "acme", "fin") == "cancelled"
        assert C.job_owner(home.conn(), "j1") == (True, home.owner)
    finally:
        pool.close()


def test_a_job_whose_owner_lives_is_not_taken(home):
    add_job(home, "j1", state="processing", attempts=1, owner=home.owner)
    pool = pool_of(home)
    try:
        assert not pool.take("j1")
        assert not pool.take("nope")
    finally:
        pool.close()


def test_a_job_runs_to_ready_through_the_pool(tmp_path):
    path = tmp_path / "a.csv"
    path.write_text("id,amount\n1,2.50\n", encoding="utf-8")
    with tabular.connect(str(tmp_path / "home2")) as engine:
        status = engine.namespace("acme", "fin").ingest_file(path, source_uri="a.csv")
        assert (status.state, status.attempts, status.revision) == ("ready", 1, 1)
        assert C.unfinished_jobs(engine.catalog.conn()) == []


def test_pandas_is_warmed_only_beside_a_reader_that_converts_python_values(tmp_path):
    """pyarrow imports pandas at its first conversion of a Python value (0.3 s): the pool warms it
    on its own thread beside the careful reader and the workbooks', and a file the one pass takes
    whole, which converts none, pays nothing."""
    import subprocess
    import sys

    rows = [f"{i},{i % 50}.{i % 100:02d},2024-01-{1 + i % 28:02d}" for i in range(1, 3000)]
    (tmp_path / "steady.csv").write_text("id,amount,day\n" + "\n".join(rows) + "\n", encoding="utf-8")
    (tmp_path / "ragged.csv").write_text("id,amount\n1,2\n3\n", encoding="utf-8")
    # One process ingests the file the one pass takes whole first, then the ragged one: what it
    # says after each is what a process that ingested only that file says.
    probe = (
        "import sys, tabular\n"
        f"with tabular.connect({str(tmp_path / 'home')!r}, fast_path_bytes=0, typing_sample_cells=40) as e:\n"
        "    ns = e.namespace('acme', 'one')\n"
        "    for name in sys.argv[1:]:\n"
        f"        status = ns.ingest_file({str(tmp_path)!r} + '/' + name, source_uri=name)\n"
        "        origin = ns.dataset_get(name).datasets[0].origin\n"
        "        print(name, status.state, bool(origin.one_pass), e.jobs.warm is not None, 'pandas' in sys.modules)\n"
    )
    names = ["steady.csv", "ragged.csv"]
    seen = subprocess.run([sys.executable, "-c", probe, *names], capture_output=True, text=True, check=True).stdout
    assert seen.splitlines() == ["steady.csv ready True False False", "ragged.csv ready False True True"]
