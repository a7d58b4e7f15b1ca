"""What the typing tests share: a DuckDB connection of their own per test (the long-form cells
and probes they make are temporary tables in it)."""

import duckdb
import pytest


@pytest.fixture
def con():
    con = duckdb.connect()
    yield con
    con.close()
