"""The dialect constant is the one sqlglot knows as DuckDB's: a statement written with it reads
back the same."""

import sqlglot

from planner.dialect import DIALECT


def test_the_dialect_reads_back_what_it_writes():
    sql = "SELECT \"a b\", COUNT(*) FROM t WHERE x ILIKE '%y%' GROUP BY 1"
    assert sqlglot.transpile(sql, read=DIALECT, write=DIALECT)[0] == sql


def test_the_dialect_is_duckdbs():
    assert sqlglot.Dialect.get_or_raise(DIALECT).__class__.__name__ == "DuckDB"


def test_a_duckdb_function_without_a_node_is_written_by_its_name_with_every_argument():
    """sqlglot's own REGEXP_EXTRACT drops a group of 1 (answering the whole match); by name, the
    group stays."""
    from sqlglot import exp

    from planner.dialect import duckdb_function

    call = duckdb_function("regexp_extract", exp.column("t"), exp.Literal.string(r"\s(EST)$"), exp.Literal.number(1))
    assert call.sql(dialect=DIALECT) == r"REGEXP_EXTRACT(t, '\s(EST)$', 1)"
