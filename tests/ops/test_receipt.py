"""knowledge.receipt: a whole result's receipt by the id its headers carry (SPEC §4), from any
process sharing the home, to its own org and namespace only, for receipt_seconds."""

import time
from pathlib import Path

from conftest import CSV
from conftest import PAIRS as SELF_JOIN

import tabular
from tabular.store import receipts

PAIRS = {**SELF_JOIN, "org": "acme", "namespace": "finance"}


def test_a_whole_results_receipt_is_answered_by_its_id_from_another_process(pairs, engine, tmp_path):
    """knowledge.receipt answers what a query_export read, by the id its headers carry, from any
    process sharing the home (a CLI call after `tabular serve` streamed), to its namespace only."""
    whole = engine.stream(PAIRS)
    assert whole.reader.read_all().num_rows == 40_000
    with tabular.connect(str(engine.catalog.home)) as other:
        got = other.namespace("acme", "finance").run("knowledge.receipt", {"receipt_id": whole.receipt_id})
        assert got.found and got.receipt.sql == whole.receipt.sql and got.receipt.rows_returned == 40_000
        assert [c.name for c in got.columns] == ["a.k", "a.v", "b.k", "b.v"]
        elsewhere = other.namespace("acme", "other").run("knowledge.receipt", {"receipt_id": whole.receipt_id})
        assert not elsewhere.found and elsewhere.receipt is None
        assert not other.call("knowledge.receipt", {"receipt_id": whole.receipt_id, "org": "globex"})["found"]


def test_receipts_expire_and_are_bounded(pairs, tmp_path):
    """A receipt is answered for receipt_seconds; past receipts_max_bytes the oldest go first."""
    home = str(tmp_path / "bounded")
    with tabular.connect(home, receipt_seconds=0.5) as short:
        assert short.namespace("acme", "finance").ingest_file(CSV / "currency.csv", source_uri="m").state == "ready"
        plan = {"datasets": [{"source_uri": "m"}], "org": "acme", "namespace": "finance"}
        whole = short.stream(plan)
        whole.reader.read_all()
        ask = {"receipt_id": whole.receipt_id, "org": "acme", "namespace": "finance"}
        assert short.call("knowledge.receipt", ask)["found"]
        time.sleep(0.6)
        assert not short.call("knowledge.receipt", ask)["found"]
    size = len(receipts.find(Path(home), whole.receipt_id, "acme", "finance", 3600).encode())
    with tabular.connect(home, receipts_max_bytes=int(size * 2.5)) as small:  # two of them fit
        ids = []
        for _ in range(5):
            whole = small.stream(plan)
            whole.reader.read_all()
            ids.append(whole.receipt_id)
        found = [small.call("knowledge.receipt", {**ask, "receipt_id": i})["found"] for i in ids]
        assert found == [False, False, False, True, True]  # the newest kept, the oldest gone


def test_a_disk_that_refuses_the_receipt_still_streams_the_rows(pairs, engine, monkeypatch):
    """A full or read-only home refuses the receipt's write, not the rows: they stream, and the
    answer names no receipt id to ask for."""
    import errno

    def refused(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(receipts, "keep", refused)
    whole = engine.stream(PAIRS)
    assert whole.reader.read_all().num_rows == 40_000 and not whole.receipt_kept
    assert whole.receipt.rows_returned == 40_000
