"""tabular/infer/cells.py: a table's cells in long form and the statements over them, built by
sqlglot: any column name is a quoted identifier, a relation may be text or an expression, a
temporary table is dropped after, and counts weigh each distinct text by its cells."""

from __future__ import annotations

import pyarrow as pa
import pytest
from sqlglot import exp

from tabular.infer.cells import (
    RAW,
    K,
    Source,
    T,
    col,
    count,
    gated,
    grouped,
    long_table,
    not_null,
    relation,
    temp_table,
)

MARKERS = ("", "NA")
# Names a statement built by splicing text would break on, or read as SQL.
NAMES = ('say "hi"', "select", "Mixed Case", "a'b", 'x" IS NULL OR "y')


def wide(con, cells: dict[str, list[str | None]]) -> str:
    """A wide relation (__row_id and one VARCHAR column per name) from lists of cells."""
    rows = len(next(iter(cells.values())))
    ids = pa.array(range(1, rows + 1), pa.int64())
    con.from_arrow(pa.table({"__row_id": ids} | {n: pa.array(v, pa.string()) for n, v in cells.items()})).create(
        "cells"
    )
    return "cells"


def counted(con, source: Source, columns: list[str]) -> dict[str, dict]:
    """Per column: its non-null texts (weighed by n), and its texts with how many cells hold each."""
    cells = source.cells(columns, MARKERS)
    got = grouped(con, cells, {"nonnull": count(not_null(col(T)))})
    listed = exp.select(col(K), col(RAW), col("n")).from_(source.cells(columns, MARKERS)).order_by(col(K), col(RAW))
    texts: dict[str, list] = {}
    for k, raw, n in con.execute(listed.sql(dialect="duckdb")).fetchall():
        texts.setdefault(k, []).append((raw, n))
    return {k: {"nonnull": got[k]["nonnull"], "texts": texts.get(k, [])} for k in got}


def test_any_column_name_is_read_as_a_name_in_the_wide_and_the_long_form(con):
    rel = wide(con, {name: ["1", "1", "NA", None, name] for name in NAMES})
    from_wide = counted(con, Source(rel), list(NAMES))
    with long_table(con, rel, list(NAMES), MARKERS) as source:
        from_long = counted(con, source, list(NAMES))
    assert set(from_wide) == set(NAMES)
    for name in NAMES:
        # Three values (NA is a null marker, None no cell); the long form holds each text once.
        assert from_wide[name]["nonnull"] == from_long[name]["nonnull"] == 3
        assert sorted(from_long[name]["texts"]) == sorted([("1", 2), ("NA", 1), (name, 1)])
        assert sorted(from_wide[name]["texts"]) == sorted([("1", 1), ("1", 1), ("NA", 1), (name, 1)])


def test_one_column_is_read_alone_as_many_are(con):
    rel = wide(con, {"a": ["1", "2"], "b": ["x", None]})
    assert counted(con, Source(rel), ["b"]) == {"b": {"nonnull": 1, "texts": [("x", 1)]}}
    assert counted(con, Source(rel), ["a", "b"])["b"] == {"nonnull": 1, "texts": [("x", 1)]}


def test_a_relation_as_text_or_as_an_expression_reads_the_same_rows(con):
    wide(con, {"a": ["1", "2", "3", "4"]})
    text = "(SELECT * FROM cells WHERE __row_id > 1)"
    parsed = relation(text)
    assert isinstance(parsed, exp.Subquery)
    assert relation(text) is not relation(text)  # a copy each time: a statement may change its own
    as_text = counted(con, Source(text), ["a"])
    as_expression = counted(con, Source(parsed), ["a"])
    assert as_text == as_expression == {"a": {"nonnull": 3, "texts": [("2", 1), ("3", 1), ("4", 1)]}}


def test_a_temporary_table_is_dropped_after_even_on_an_error(con):
    def tables() -> list:
        return con.execute("SELECT table_name FROM duckdb_tables() WHERE temporary").fetchall()

    with pytest.raises(RuntimeError), temp_table(con, "__t_", exp.select(exp.Literal.number(1).as_("x"))) as name:
        assert con.execute(exp.select("x").from_(exp.to_table(name, quoted=True)).sql()).fetchall() == [(1,)]
        assert len(tables()) == 1
        raise RuntimeError
    assert tables() == []


def test_a_long_table_asked_for_all_its_columns_is_read_whole_and_for_some_only_theirs(con):
    rel = wide(con, {"a": ["1", "2"], "b": ["x", None], "c": ["y", "z"]})
    with long_table(con, rel, ["a", "b", "c"], MARKERS) as source:
        assert source.holds == ("a", "b", "c")
        assert "WHERE" not in source.cells(["c", "b", "a"], MARKERS).sql(dialect="duckdb")
        assert counted(con, source, ["a", "b", "c"]) == counted(con, Source(rel), ["a", "b", "c"])
        assert set(counted(con, source, ["a", "c"])) == {"a", "c"}
        assert counted(con, source, ["b"]) == {"b": {"nonnull": 1, "texts": [("x", 1)]}}
    unknown = Source(source.sql, long=True)  # what it holds unknown: every read names its columns
    assert "WHERE" in unknown.cells(["a", "b", "c"], MARKERS).sql(dialect="duckdb")


@pytest.mark.parametrize("null", [False, True])
def test_a_gated_test_is_the_test_where_the_gate_holds_false_elsewhere_and_null_kept_when_asked(con, null):
    rows = [exp.select(exp.Literal.string(t).as_(T, quoted=True)) for t in ("abc", "xbz", "q")] + [
        exp.select(exp.cast(exp.null(), "VARCHAR").as_(T, quoted=True))
    ]
    union = rows[0]
    for r in rows[1:]:
        union = exp.union(union, r, distinct=False)
    test = exp.EQ(this=col(T), expression=exp.Literal.string("abc"))
    gate = exp.func("starts_with", col(T), exp.Literal.string("a"))
    picked = exp.select(col(T), gated(gate, test, null=null).as_("g")).from_(union.subquery()).order_by(col(T))
    got = con.execute(picked.sql(dialect="duckdb")).fetchall()
    assert got == [("abc", True), ("q", False), ("xbz", False), (None, None if null else False)]
