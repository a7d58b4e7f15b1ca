"""tabular/store/sql.py: the home's own statements, names and paths quoted by sqlglot."""

from __future__ import annotations

from pathlib import Path

import duckdb

from tabular.store import sql


def test_a_path_and_a_name_with_quotes_attach_and_detach(tmp_path):
    odd = tmp_path / 'it\'s a "home"'
    odd.mkdir()
    con = duckdb.connect()
    con.execute(sql.attach(odd / "s.duckdb", 's_"1', block_size=16384))
    con.execute('CREATE TABLE "s_""1".main.data AS SELECT 1 AS n')
    con.execute(sql.detach('s_"1', exists=False))
    con.execute(sql.attach(odd / "s.duckdb", 's_"1', read_only=True))
    con.execute(sql.attach(odd / "s.duckdb", 's_"1', read_only=True))  # once: IF NOT EXISTS
    assert con.execute(sql.every_row('s_"1', "data")).fetchall() == [(1,)]
    con.close()


def test_settings_are_quoted_values():
    con = duckdb.connect()
    con.execute(sql.setting("TimeZone", "UTC"))
    assert con.execute("SELECT current_setting('TimeZone')").fetchone()[0] == "UTC"
    assert sql.setting("temp_directory", "/a'b") == "SET temp_directory = '/a''b'"
    assert "'/x'" in sql.attach(Path("/x"), "s_1")


def test_the_spill_folder_and_the_memory_limit_bound_read_back_as_the_quoted_statement_sets_them(tmp_path):
    odd = str(tmp_path / 'it\'s a "home"')
    bound, quoted = duckdb.connect(), duckdb.connect()
    bound.execute(sql.TEMP_DIRECTORY, [odd])
    bound.execute(sql.MEMORY_LIMIT, ["1GB"])
    quoted.execute(sql.setting("temp_directory", odd))
    quoted.execute(sql.setting("memory_limit", "1GB"))
    read = "SELECT current_setting('temp_directory'), current_setting('memory_limit')"
    assert bound.execute(read).fetchone() == quoted.execute(read).fetchone()
    assert bound.execute(read).fetchone()[0] == odd
    assert bound.execute(read).fetchone()[1] != duckdb.connect().execute(read).fetchone()[1]  # it took
