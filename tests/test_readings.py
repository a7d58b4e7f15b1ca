"""tabular/readings.py: what text can be. Each reading's conversion run in DuckDB on small texts:
what it reads, what it refuses (NULL), and the readings a column's symbols make worth trying."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import duckdb
import pytest
from sqlglot import exp

from tabular import readings as C


def converted(reading, text, physical=None):
    physical = physical or C.physical_of(reading)
    sql = C.convert(reading, exp.Literal.string(text), physical).sql(dialect="duckdb")
    return duckdb.connect().execute(f"SELECT {sql}").fetchone()[0]


@pytest.mark.parametrize(
    ("reading", "text", "physical", "value"),
    [
        (C.number_reading(), "12.50", "DECIMAL(5, 2)", Decimal("12.50")),
        (C.number_reading(",", "."), "1.234,5", "DECIMAL(6, 1)", Decimal("1234.5")),
        (C.number_reading(".", ","), "1,234.5", "DECIMAL(6, 1)", Decimal("1234.5")),
        (C.number_reading(".", None, "$"), "$12", "BIGINT", 12),
        (C.number_reading(".", None, "%"), "12.5%", "DECIMAL(4, 1)", Decimal("12.5")),
        (C.number_reading(".", None, None, True), "1e3", "DOUBLE", 1000.0),
        (C.BOOL, "Yes", "BOOLEAN", True),
        (C.BOOL, "no", "BOOLEAN", False),
        (C.date_reading("%d/%m/%Y"), "25/03/2024", "DATE", dt.date(2024, 3, 25)),
        (C.date_reading("%m/%d/%Y"), "03/25/2024", "DATE", dt.date(2024, 3, 25)),
        (C.ISO_TIMESTAMP, "2024-03-25T10:15:00", "TIMESTAMP", dt.datetime(2024, 3, 25, 10, 15)),
        (C.CLOCK_TIME, "10:15", "TIME", dt.time(10, 15)),
        (C.ISO_8601_DURATION, "PT1H30M", "INTERVAL", dt.timedelta(hours=1, minutes=30)),
        (C.CLOCK_DURATION, "1:30:00", "INTERVAL", dt.timedelta(hours=1, minutes=30)),
    ],
)
def test_a_reading_converts_the_text_it_reads(reading, text, physical, value):
    assert converted(reading, text, physical) == value


@pytest.mark.parametrize(
    ("reading", "text", "physical"),
    [
        (C.number_reading(), "12 kg", "DOUBLE"),
        (C.number_reading(), "1,234", "BIGINT"),  # no group mark in this reading
        (C.BOOL, "maybe", "BOOLEAN"),
        (C.date_reading("%d/%m/%Y"), "03/25/2024", "DATE"),  # no 25th month
        (C.date_reading("%d.%m.%Y"), "2.2.2", "DATE"),  # a version number, not the year 2
        (C.CLOCK_TIME, "25:00", "TIME"),
    ],
)
def test_a_reading_refuses_text_it_does_not_read(reading, text, physical):
    assert converted(reading, text, physical) is None


def test_a_date_reading_knows_its_order():
    assert C.date_reading("%d/%m/%Y").order == "DMY"
    assert C.date_reading("%m/%d/%Y").order == "MDY"
    assert C.date_reading("%Y-%m-%d").order == "YMD"
    assert C.date_reading("%d %b %Y").order == ""


def test_a_number_reading_says_its_marks_and_unit_in_its_format():
    assert C.number_reading().format == "decimal_mark=."
    assert C.number_reading(",", ".", "€").format == "decimal_mark=,;group_mark=.;unit=€"
    assert C.format_of(C.number_reading(), "BIGINT") == ""
    assert C.format_of(C.number_reading(".", None, "$"), "BIGINT") == "unit=$"
    assert C.format_of(C.number_reading(), "DECIMAL(5, 2)") == "decimal_mark=."


@pytest.mark.parametrize(
    ("type_", "fmt"),
    [("number", "decimal_mark=,;group_mark=.;unit=€"), ("date", "%d/%m/%Y"), ("bool", "1/0"), ("duration", "ISO 8601")],
)
def test_a_reading_a_person_names_is_the_reading_with_that_format(type_, fmt):
    reading = C.reading_from(type_, fmt)
    assert (reading.type, reading.format) == (type_, fmt)


def test_an_unknown_type_named_is_an_error():
    with pytest.raises(ValueError, match="colour"):
        C.reading_from("colour", "")


def test_candidates_try_only_the_marks_and_units_the_values_hold():
    plain = [r for r in C.candidate_readings(set()) if r.type == "number"]
    assert [r.format for r in plain] == ["decimal_mark=."]
    euro = [r.format for r in C.candidate_readings({",", ".", "€"}) if r.type == "number"]
    assert "decimal_mark=,;group_mark=.;unit=€" in euro
    assert not any("unit=$" in f for f in euro)
    assert C.candidate_readings(set())[0] is C.BOOL  # most specific first


def test_a_date_order_given_narrows_the_date_candidates():
    dates = [r for r in C.candidate_readings(set(), date_order="DMY") if r.type == "date"]
    assert {r.order for r in dates} <= {"DMY", ""}
    assert any(r.format == "%d/%m/%Y" for r in dates)


@pytest.mark.parametrize(
    ("value", "kind"),
    [("12", "int"), ("-3", "int"), ("1,234.50", "number"), ("12%", "number"), ("2024-03-25", "date"),
     ("10:15", "time"), ("true", "bool"), ("y", "text"), ("Oslo", "text"), ("  ", "empty")],
)  # fmt: skip
def test_quick_kind_tells_a_header_word_from_a_value(value, kind):
    assert C.quick_kind(value) == kind


@pytest.mark.parametrize(
    ("reading", "physical"),
    [(C.STRING, "VARCHAR"), (C.BOOL, "BOOLEAN"), (C.date_reading("%Y-%m-%d"), "DATE"), (C.CLOCK_TIME, "TIME"),
     (C.ISO_TIMESTAMP, "TIMESTAMP"), (C.ISO_TIMESTAMPTZ, "TIMESTAMPTZ"), (C.CLOCK_DURATION, "INTERVAL")],
)  # fmt: skip
def test_each_type_has_its_storage_type(reading, physical):
    assert C.physical_of(reading) == physical
