"""The filters a plan's `where` holds, made from a task's words (synthesize/filters.py)."""

from __future__ import annotations

from synth_schemas import MEDALS, SALES, col, reading

from tabular.synthesize.filters import date_filters, empty_filter, row_filters, value_filter, whole_years
from tabular.synthesize.spans import Span


def test_one_value_is_eq_several_in_and_text_ignores_case():
    nation = col("Nation")
    assert value_filter("Nation", nation, ["Peru"]) == {
        "column": "Nation",
        "op": "eq",
        "value": "Peru",
        "ignore_case": True,
    }
    assert value_filter("Gold", col("Gold", "number"), [1, 2]) == {"column": "Gold", "op": "in", "values": [1, 2]}


def test_a_value_excluded_keeps_the_empty_cells():
    got = value_filter("Nation", col("Nation"), ["Peru"], negated=True)
    assert got == {
        "any": [
            {"column": "Nation", "op": "is_null"},
            {"column": "Nation", "op": "ne", "value": "Peru", "ignore_case": True},
        ]
    }


def test_an_empty_number_is_zero_and_an_empty_written_out_is_asked():
    assert empty_filter(Span(0, 1, "column", [col("Bronze", "number")], "bronze")) == {
        "column": "Bronze",
        "op": "eq",
        "value": 0,
    }
    assert empty_filter(Span(0, 1, "column", [col("Album")], "album")) == {"column": "Album", "op": "is_null"}
    written = col("Album", values=("Non-album single", "Hits"))
    assert "Non-album single" in empty_filter(Span(0, 1, "column", [written], "album"))


def test_whole_years_as_year_numbers_or_none_when_a_year_is_cut():
    assert whole_years("between", ["2008-01-01", "2008-12-31"]) == [("eq", 2008)]
    assert whole_years("between", ["2003-01-01", "2012-12-31"]) == [("ge", 2003), ("le", 2012)]
    assert whole_years("lt", ["2006-01-01"]) == [("lt", 2006)]
    assert whole_years("between", ["2008-03-01", "2008-03-31"]) is None


def test_days_on_a_date_column_and_whole_days_on_a_datetime_column():
    assert date_filters("d", "date", "eq", ["2024-03-01"]) == [{"column": "d", "op": "eq", "value": "2024-03-01"}]
    assert date_filters("d", "datetime", "eq", ["2024-03-01"]) == [
        {"column": "d", "op": "ge", "value": "2024-03-01T00:00:00"},
        {"column": "d", "op": "lt", "value": "2024-03-02T00:00:00"},
    ]
    assert date_filters("d", "datetime", "le", ["2024-02-28"]) == [
        {"column": "d", "op": "lt", "value": "2024-02-29T00:00:00"}
    ]


def test_row_filters_of_a_reading_on_one_dataset():
    r, _ = reading("gold of Norway with more than 2 silver")
    assert row_filters(r, MEDALS) == [
        {"column": "Nation", "op": "eq", "value": "Norway", "ignore_case": True},
        {"column": "Silver", "op": "gt", "value": 2},
    ]
    r, _ = reading("amount in 2024", SALES)
    assert row_filters(r, SALES) == [{"column": "order_date", "op": "between", "values": ["2024-01-01", "2024-12-31"]}]
    r, _ = reading("gold in 2024")
    assert "no one column" in row_filters(r, MEDALS)
