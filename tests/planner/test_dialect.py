"""The dialect constant is the one sqlglot knows as DuckDB's: a statement written with it reads
back the same."""

import sqlglot

from planner.dialect import DIALECT


def test_the_dialect_reads_back_what_it_writes():
    sql = "SELECT \"a b\", COUNT(*) FROM t WHERE x ILIKE '%y%' GROUP BY 1"
    assert sqlglot.transpile(sql, read=DIALECT, write=DIALECT)[0] == sql


def test_the_dialect_is_duckdbs():
    assert sqlglot.Dialect.get_or_raise(DIALECT).__class__.__name__ == "DuckDB"
