"""store/receipts: receipts kept under the home by org and namespace, expired, bounded in bytes."""

import sqlite3

import pytest

from tabular.errors import Overloaded
from tabular.store import receipts


def test_a_receipt_is_found_by_its_owner_only(tmp_path):
    rid = receipts.new_id()
    assert rid.startswith("r_") and len(rid) == 34 and rid != receipts.new_id()
    receipts.keep(tmp_path, rid, "acme", "finance", '{"x": 1}', 3600, 1_000_000)
    assert receipts.find(tmp_path, rid, "acme", "finance", 3600) == '{"x": 1}'
    assert receipts.find(tmp_path, rid, "globex", "finance", 3600) is None
    assert receipts.find(tmp_path, rid, "acme", "other", 3600) is None
    assert receipts.find(tmp_path, "r_nothing", "acme", "finance", 3600) is None
    # Kept again (the stream's end): replaced, not doubled.
    receipts.keep(tmp_path, rid, "acme", "finance", '{"x": 2}', 3600, 1_000_000)
    assert receipts.find(tmp_path, rid, "acme", "finance", 3600) == '{"x": 2}'


def test_a_home_without_receipts_answers_none_and_writes_nothing(tmp_path):
    assert receipts.find(tmp_path, "r_x", "acme", "finance", 3600) is None
    assert not (tmp_path / receipts.FILE).exists()


def test_the_oldest_go_first_past_the_bytes_bound(tmp_path):
    ids = [receipts.new_id() for _ in range(4)]
    for rid in ids:
        receipts.keep(tmp_path, rid, "acme", "finance", "x" * 100, 3600, 250)
    assert [receipts.find(tmp_path, r, "acme", "finance", 3600) is not None for r in ids] == [False, False, True, True]
    # One past the bound alone is kept alone: the export it belongs to still answers its id.
    big = receipts.new_id()
    receipts.keep(tmp_path, big, "acme", "finance", "x" * 1000, 3600, 250)
    assert receipts.find(tmp_path, big, "acme", "finance", 3600) is not None
    assert all(receipts.find(tmp_path, r, "acme", "finance", 3600) is None for r in ids)


def test_a_busy_receipts_file_is_503_to_retry(tmp_path):
    receipts.keep(tmp_path, receipts.new_id(), "acme", "finance", "{}", 3600, 1_000)
    holder = sqlite3.connect(tmp_path / receipts.FILE, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(Overloaded, match="busy"):
            receipts.keep(tmp_path, receipts.new_id(), "acme", "finance", "{}", 3600, 1_000, wait_seconds=0.1)
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_a_full_disk_is_the_oserror_every_refused_write_is(tmp_path, monkeypatch):
    """SQLite's 'database or disk is full' comes out as ENOSPC, which the engine answers as a
    full disk (never INTERNAL)."""
    import errno

    def full(*args, **kwargs):
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(receipts, "_open", full)
    with pytest.raises(OSError) as refused:
        receipts.keep(tmp_path, receipts.new_id(), "acme", "finance", "{}", 3600, 1_000)
    assert refused.value.errno == errno.ENOSPC
