"""tabular/store/snapshot.py: an extraction and its typings become a snapshot: typed rows, the
rows a type could not read kept with their reason, column statistics, and SPEC §4 names."""

from __future__ import annotations

import datetime as dt
from collections import namedtuple
from decimal import Decimal

import duckdb
import pytest

import tabular
from planner.dialect import DIALECT
from tabular import readings as C
from tabular.infer.questions import Typing
from tabular.store import snapshot
from tabular.store.catalog import rejected_table, snapshot_table
from tabular.store.snapshot import (
    REJECTED_VALUE_CHARS,
    build_snapshot,
    column_names,
    column_stats,
    slug,
    write_rejected,
)

MARKERS = ("", "NA")
Excluded = namedtuple("Excluded", "row_id line text reason")


@pytest.fixture
def con():
    con = duckdb.connect()
    con.execute("ATTACH ':memory:' AS s_1")  # as Catalog.new_snapshot attaches a new snapshot's file
    yield con
    con.close()


def extraction(con, **columns):
    names = list(columns)
    con.execute("CREATE TABLE ex (__row_id BIGINT, __line BIGINT, " + ", ".join(f'"{n}" VARCHAR' for n in names) + ")")
    rows = list(zip(*columns.values()))
    con.executemany(
        f"INSERT INTO ex VALUES (?, ?, {', '.join('?' for _ in names)})",
        [[i + 1, i + 2, *r] for i, r in enumerate(rows)],
    )
    return "ex"


def rows_of(con, table):
    return con.execute(f"SELECT * FROM {table.sql(dialect=DIALECT)} ORDER BY 1").fetchall()


@pytest.mark.parametrize(
    ("headers", "names"),
    [
        (["id", "amount"], ["id", "amount"]),
        ([" Net  amount ", ""], ["Net amount", "column_2"]),
        (["x", "X", "x"], ["x", "X_2", "x_3"]),
        (["__row_id"], ["__row_id_2"]),
    ],
)
def test_column_names_are_trimmed_filled_and_made_unique(headers, names):
    assert column_names(headers) == names


@pytest.mark.parametrize(
    ("text", "out"), [("Sales 2024", "sales_2024"), (" Q1/Q2 ", "q1_q2"), ("€€", "table"), ("", "table")]
)
def test_a_slug_is_lower_case_words_apart_by_underscores(text, out):
    assert slug(text) == out


def test_typed_rows_go_in_and_rows_a_type_refutes_are_kept_with_their_reason(con):
    rel = extraction(con, c1=["12.50", "oops", "3", "NA"], c2=["2024-01-02", "2024-02-03", "2024-03-04", "2024-04-05"])
    typings = {
        "c1": Typing(C.number_reading(), "DECIMAL(4, 2)", rejected=1),
        "c2": Typing(C.date_reading("%Y-%m-%d"), "DATE", clean=True),
    }
    built = build_snapshot(con, rel, "s_1", ["c1", "c2"], ["amount", "when"], typings, MARKERS, [])
    assert (built.rows, built.rows_rejected) == (3, 1)
    assert rows_of(con, snapshot_table("s_1")) == [
        (1, Decimal("12.50"), dt.date(2024, 1, 2)),
        (3, Decimal("3.00"), dt.date(2024, 3, 4)),
        (4, None, dt.date(2024, 4, 5)),
    ]
    assert rows_of(con, rejected_table("s_1")) == [(2, 3, "amount", "oops", "not a number (decimal_mark=.)")]


def test_column_statistics_count_nulls_distinct_values_and_the_range(con):
    rel = extraction(con, c1=["3", "1", "NA", "3"], c2=["Oslo", "Bergen", "Tromsø", "Bodø"])
    typings = {"c1": Typing(C.number_reading(), "BIGINT"), "c2": Typing(C.STRING, "VARCHAR")}
    built = build_snapshot(con, rel, "s_1", ["c1", "c2"], ["n", "city"], typings, MARKERS, [])
    n, city = built.columns
    assert (n["name"], n["type"], n["physical"], n["format"]) == ("n", "number", "BIGINT", "")
    assert (n["nulls"], n["nullable"], n["distinct"], n["unique"], n["min"], n["max"]) == (1, True, 2, False, 1, 3)
    assert (city["nulls"], city["distinct"], city["unique"]) == (0, 4, True)


def test_a_string_column_keeps_its_text_as_written_and_only_blanks_are_null(con):
    rel = extraction(con, c1=["  padded ", "NA", "", "   "])
    built = build_snapshot(con, rel, "s_1", ["c1"], ["note"], {"c1": Typing(C.STRING, "VARCHAR")}, MARKERS, [])
    assert [r[1] for r in rows_of(con, snapshot_table("s_1"))] == ["  padded ", "NA", None, None]
    assert built.rows_rejected == 0


def test_rows_the_extraction_left_out_are_in_the_rejected_table_cut_to_a_readable_length(con):
    excluded = [Excluded(7, 9, "Total,30", "a total row"), Excluded(8, 10, "x" * 5000, "too long")]
    table = write_rejected(con, "s_1", excluded)
    got = rows_of(con, table)
    assert got[0] == (7, 9, None, "Total,30", "a total row")
    assert len(got[1][3]) == REJECTED_VALUE_CHARS


# 400,000 rows: past a lowered exact_distinct_values, and holding more distinct values than an
# estimate's sample (snapshot.SAMPLED_DISTINCT), so the estimate is the one a long table gets.
LONG = 400_000


@pytest.fixture
def long_columns(con):
    con.execute(
        f"""CREATE TABLE ex AS SELECT i AS __row_id, i + 1 AS __line,
        (i % 300000)::VARCHAR AS repeats, ('id-' || i) AS ids, (i % 10)::VARCHAR AS few,
        CASE WHEN i <= 500 THEN (i % 7)::VARCHAR END AS sparse
        FROM range(1, {LONG + 1}) AS t(i)"""
    )
    typings = {
        "repeats": Typing(C.number_reading(), "BIGINT"),
        "ids": Typing(C.STRING, "VARCHAR"),
        "few": Typing(C.number_reading(), "BIGINT"),
        "sparse": Typing(C.number_reading(), "BIGINT"),
    }
    cells = list(typings)
    built = build_snapshot(con, "ex", "s_1", cells, cells, typings, MARKERS, [], exact_distinct_values=1000)
    return {c["name"]: c for c in built.columns}


def test_a_long_column_has_its_distinct_values_estimated_within_two_percent(long_columns):
    repeats = long_columns["repeats"]
    assert repeats["distinct_estimated"] is True
    assert abs(repeats["distinct"] - 300_000) <= 0.02 * 300_000
    assert repeats["unique"] is False
    assert (repeats["nulls"], repeats["min"], repeats["max"]) == (0, 0, 299_999)


def test_a_long_unique_column_is_unique_with_its_distinct_values_counted_exactly(long_columns):
    ids = long_columns["ids"]
    assert (ids["distinct"], ids["distinct_estimated"], ids["unique"]) == (LONG, False, True)


def test_a_column_of_few_values_or_few_non_null_ones_is_counted_exactly(long_columns):
    few, sparse = long_columns["few"], long_columns["sparse"]
    assert (few["distinct"], few["distinct_estimated"], few["unique"]) == (10, False, False)
    assert (sparse["nulls"], sparse["distinct"], sparse["distinct_estimated"]) == (LONG - 500, 7, False)


def test_a_short_table_counts_distinct_values_exactly(con):
    rel = extraction(con, c1=["3", "1", "3"])
    (n,) = build_snapshot(
        con, rel, "s_1", ["c1"], ["n"], {"c1": Typing(C.number_reading(), "BIGINT")}, MARKERS, []
    ).columns
    assert (n["distinct"], n["distinct_estimated"]) == (2, False)


def test_dataset_get_serves_which_distinct_counts_are_estimates(tmp_path):
    source = tmp_path / "long.csv"
    source.write_text("id,code\n" + "".join(f"{i},{i % 200_000}\n" for i in range(300_000)), encoding="utf-8")
    with tabular.connect(str(tmp_path / "home"), exact_distinct_values=1000) as engine:
        ns = engine.namespace("acme", "big")
        assert ns.ingest_file(source, source_uri="long.csv").state == "ready"
        ident, code = ns.dataset_get("long.csv").datasets[0].columns
    assert (ident.distinct, ident.distinct_estimated, ident.unique) == (300_000, False, True)
    assert code.distinct_estimated and not code.unique
    assert abs(code.distinct - 200_000) <= 0.02 * 200_000


# Every storage type the statistics treat apart: bools have no range, an interval's range is
# kept by its parts, a double's NaN and -0.0, text, dates, times; and nulls in each.
MIXED = {
    "n": ("BIGINT", Typing(C.number_reading(), "BIGINT"), "CASE WHEN i % 5 = 0 THEN NULL ELSE i % 37 - 9 END"),
    "price": ("DECIMAL(9, 2)", Typing(C.number_reading(), "DECIMAL(9, 2)"), "(i % 101) * 1.25"),
    "x": (
        "DOUBLE",
        Typing(C.number_reading(), "DOUBLE"),
        "CASE i % 4 WHEN 0 THEN 'NaN'::DOUBLE WHEN 1 THEN -0.0 WHEN 2 THEN 0.0 ELSE i / 8 END",
    ),
    "word": ("VARCHAR", Typing(C.STRING, "VARCHAR"), "CASE WHEN i % 3 = 0 THEN NULL ELSE 'w' || (i % 11) END"),
    "day": ("DATE", Typing(C.date_reading("%Y-%m-%d"), "DATE"), "DATE '2020-01-01' + (i % 40)::INTEGER"),
    "flag": ("BOOLEAN", Typing(C.BOOL, "BOOLEAN"), "CASE WHEN i % 7 = 0 THEN NULL ELSE i % 2 = 0 END"),
    "took": (
        "INTERVAL",
        Typing(C.CLOCK_DURATION, "INTERVAL"),
        "to_months(i % 3) + to_days(i % 5) + to_seconds(i % 13)",
    ),
}


def mixed_table(con, rows: int):
    selects = ", ".join(f'({sql})::{physical} AS "{name}"' for name, (physical, _t, sql) in MIXED.items())
    con.execute(f"CREATE TABLE s_1.main.data AS SELECT i AS __row_id, {selects} FROM range(1, {rows + 1}) AS t(i)")
    return snapshot_table("s_1"), list(MIXED), [t for _p, t, _s in MIXED.values()]


@pytest.mark.parametrize("rows", [0, 1, 2_000])
def test_a_narrow_tables_statistics_in_one_scan_per_batch_are_the_long_forms(con, monkeypatch, rows):
    table, names, typings = mixed_table(con, rows)
    wide = column_stats(con, table, names, typings, rows)
    monkeypatch.setattr(snapshot, "WIDE", 0)  # every table in long form, as a wide one is counted
    assert column_stats(con, table, names, typings, rows) == wide
    if rows > 1:
        flag, took = wide[names.index("flag")], wide[names.index("took")]
        assert (flag["min"], flag["distinct"]) == (None, 2)
        assert took["max"] is not None


def test_a_long_tables_columns_of_few_values_are_counted_together_as_each_alone(con, monkeypatch):
    rows = 3_000
    table, names, typings = mixed_table(con, rows)
    statements: list[str] = []

    class Counting:
        def __init__(self, refuse: bool):
            self.refuse = refuse

        def execute(self, sql, *args):
            statements.append(sql)
            if self.refuse and sql.count("COUNT(DISTINCT") > 1:
                raise duckdb.OutOfMemoryException("as a memory limit would")
            return con.execute(sql, *args)

    together = column_stats(Counting(False), table, names, typings, rows, exact_distinct_values=100)
    scans = len(statements)
    statements.clear()
    alone = column_stats(Counting(True), table, names, typings, rows, exact_distinct_values=100)
    assert together == alone
    assert scans == 2 < len(statements)  # counts and ranges, then every distinct count at once
    assert [c["distinct"] for c in together] == [
        con.execute(f'SELECT count(DISTINCT "{n}") FROM s_1.main.data').fetchone()[0] for n in names
    ]
