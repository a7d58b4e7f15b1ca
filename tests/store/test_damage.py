"""tabular/store/damage.py: DuckDB's words for a damaged file, and a file read through to tell."""

from __future__ import annotations

import duckdb

from tabular.store.damage import looks_damaged, unreadable


def test_looks_damaged_knows_duckdbs_words_for_a_broken_file():
    assert looks_damaged(duckdb.IOException("Corrupt database file: checksum mismatch"))
    assert looks_damaged(duckdb.IOException("The file is not a valid DuckDB database file!"))
    assert looks_damaged(OSError("Serialization Error: Failed to deserialize"))
    assert not looks_damaged(duckdb.BinderException("Referenced column x not found"))


def test_a_sound_file_reads_through_and_an_overwritten_one_does_not(tmp_path):
    sound = tmp_path / "s_ok.duckdb"
    con = duckdb.connect(str(sound))
    con.execute("CREATE TABLE data AS SELECT range AS n FROM range(1000)")
    con.execute("CREATE TABLE rejected (row_id BIGINT)")
    con.close()
    assert not unreadable(sound)
    broken = tmp_path / "s_bad.duckdb"
    broken.write_bytes(b"no DuckDB file" * 500)
    assert unreadable(broken)
