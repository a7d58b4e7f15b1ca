"""ops/typed: an answer's JSON values read back as Python values and exact Arrow arrays."""

import datetime as dt
from decimal import Decimal

import pyarrow as pa

from tabular.ops.typed import arrow_array, typed


def test_the_column_decides_the_kind_not_the_value():
    assert typed(["1.50", 2, None], "number") == ([Decimal("1.50"), Decimal(2), None], "decimal")
    assert typed([1.5, "inf", 2], "number")[1] == "float"
    assert typed(["9007199254740993", 1], "number") == ([9007199254740993, 1], "int")
    assert typed(["2024-03-01", None], "date") == ([dt.date(2024, 3, 1), None], "date")


def test_a_value_python_cannot_hold_stays_text():
    """Year 10000 (SPEC §4's expanded form) is no Python date: the column comes back as its text."""
    assert typed(["+10000-01-01", "2024-01-01"], "date") == (["+10000-01-01", "2024-01-01"], "text")
    assert typed(["12abc"], "number") == (["12abc"], "text")


def test_arrow_arrays_are_exact():
    values, kind = typed(["1.50", "2.25"], "number")
    assert arrow_array(values, kind, ["1.50", "2.25"]).type == pa.decimal128(38, 2)
    big = ["1" * 39]
    values, kind = typed(big, "number")
    assert arrow_array(values, kind, big).to_pylist() == big  # past 38 digits: its text
    assert arrow_array([2**63], "int", [str(2**63)]).type == pa.decimal128(38, 0)


def test_an_answers_rows_come_back_typed(ns):
    from conftest import CSV

    assert ns.ingest_file(CSV / "currency.csv", source_uri="money").state == "ready"
    answer = ns.query({"datasets": [{"source_uri": "money"}], "aggregates": [{"fn": "sum", "column": "price_usd"}]})
    (record,) = answer.records()
    assert isinstance(record["sum_price_usd"], Decimal) and answer.to_arrow().num_rows == 1
