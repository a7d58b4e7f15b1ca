"""tabular/readings.py: what text can be. Each reading's conversion run in DuckDB on small texts:
what it reads, what it refuses (NULL), and the readings a column's symbols make worth trying."""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal

import duckdb
import pytest
from conftest import ingest
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


# --- other people's files (issue 37): a reading reads a value as written or refuses it ---------


@pytest.mark.parametrize(
    ("reading", "text", "physical"),
    [
        (C.number_reading(",", " "), "012 345 678", "BIGINT"),  # a SIREN, spaced
        (C.number_reading(",", "."), "0.123.456", "BIGINT"),
        (C.number_reading(".", ","), "012,345", "BIGINT"),
        (C.number_reading(".", "'"), "012'345.50", "DECIMAL(8, 2)"),
        (C.ISO_TIMESTAMP, "2024-01-02 24:00:00", "TIMESTAMP"),  # DuckDB: the next day's midnight
        (C.ISO_TIMESTAMPTZ, "2024-01-02T24:00:00Z", "TIMESTAMPTZ"),
        (C.ISO_TIMESTAMP, "0000-01-01T10:00", "TIMESTAMP"),  # DuckDB: 1 BC
        (C.date_reading("%Y-%m-%d"), "0000-01-01", "DATE"),
        (C.date_reading("%d/%m/%Y"), "01/01/0000", "DATE"),
        (C.date_reading("%d/%m/%Y %H:%M %Z", "datetime"), "31/04/2024 10:00 UTC", "TIMESTAMPTZ"),  # 1 May
        (C.date_reading("%m-%d-%Y %H:%M:%S %Z", "datetime"), "02-30-2023 10:00:00 GMT", "TIMESTAMPTZ"),
        (C.date_reading("%d.%m.%Y %H:%M [%z]", "datetime"), "29.02.2023 10:00 UTC", "TIMESTAMPTZ"),
        (C.ISO_8601_DURATION, "PT0.0000001S", "INTERVAL"),  # an INTERVAL keeps microseconds: it was 0
        # A clock time the zone skips (DuckDB read 03:30) or shows twice (DuckDB picked one).
        (C.ISO_TIMESTAMPTZ, "2024-03-10 02:30:00 America/New_York", "TIMESTAMPTZ"),
        (C.ISO_TIMESTAMPTZ, "2024-11-03 01:30:00 America/New_York", "TIMESTAMPTZ"),
        (C.ISO_TIMESTAMPTZ, "2024-03-31T02:30 Europe/Paris", "TIMESTAMPTZ"),
        (C.ISO_TIMESTAMPTZ, "2024-10-27T02:30 Europe/Paris", "TIMESTAMPTZ"),
        # Other zones' shifts: British Summer Time, Lord Howe's half hour, the southern
        # hemisphere's April and October, Troll's two hours.
        (C.ISO_TIMESTAMPTZ, "2024-03-31 01:30 Europe/London", "TIMESTAMPTZ"),
        (C.ISO_TIMESTAMPTZ, "2024-10-27 01:30 Europe/London", "TIMESTAMPTZ"),
        (C.ISO_TIMESTAMPTZ, "2024-04-07 01:45 Australia/Lord_Howe", "TIMESTAMPTZ"),
        (C.ISO_TIMESTAMPTZ, "2024-10-06 02:15 Australia/Lord_Howe", "TIMESTAMPTZ"),
        (C.ISO_TIMESTAMPTZ, "2024-04-07 02:30 Australia/Sydney", "TIMESTAMPTZ"),
        (C.ISO_TIMESTAMPTZ, "2024-10-06 02:30 Australia/Sydney", "TIMESTAMPTZ"),
        (C.ISO_TIMESTAMPTZ, "2024-10-27 01:30 Antarctica/Troll", "TIMESTAMPTZ"),
        # A day the month lacks beside GMT, a fraction of a second, or an offset.
        (C.date_reading("%d/%m/%Y %H:%M:%S.%f %Z", "datetime"), "29/02/2023 10:00:00.5 GMT", "TIMESTAMPTZ"),
        (C.date_reading("%d/%m/%Y %H:%M %z", "datetime"), "31/04/2024 10:00 +02:00", "TIMESTAMPTZ"),
        (C.date_reading("%d/%m/%Y %H:%M [%z]", "datetime"), "31/04/2024 10:00", "TIMESTAMPTZ"),
    ],
)
def test_a_value_a_cast_would_change_is_refused(reading, text, physical):
    assert converted(reading, text, physical) is None


@pytest.mark.parametrize(
    ("reading", "text", "physical", "value"),
    [
        (C.number_reading(".", None, "$"), "$-5", "BIGINT", -5),
        (C.number_reading(".", None, "$"), "-$5", "BIGINT", -5),
        (C.number_reading(".", None, "$"), "-5 $", "BIGINT", -5),
        (C.number_reading(",", " "), "732 829 320", "BIGINT", 732829320),
        (C.number_reading(".", ","), "0.5", "DECIMAL(2, 1)", Decimal("0.5")),
        (C.ISO_TIMESTAMP, "2024-01-02 23:59:59", "TIMESTAMP", dt.datetime(2024, 1, 2, 23, 59, 59)),
        (C.ISO_TIMESTAMP, "2024-01-02T9:05", "TIMESTAMP", dt.datetime(2024, 1, 2, 9, 5)),
        (C.date_reading("%Y-%m-%d"), "0001-01-01", "DATE", dt.date(1, 1, 1)),
        (C.ISO_TIMESTAMPTZ, "2024-11-03 00:59:59 America/New_York", "TIMESTAMPTZ",
         dt.datetime(2024, 11, 3, 4, 59, 59, tzinfo=dt.UTC)),
        (C.ISO_TIMESTAMPTZ, "2024-07-01T10:00:00.5 Europe/Paris", "TIMESTAMPTZ",
         dt.datetime(2024, 7, 1, 8, 0, 0, 500000, tzinfo=dt.UTC)),
        (C.ISO_TIMESTAMPTZ, "2024-07-01T10:00+02:00", "TIMESTAMPTZ", dt.datetime(2024, 7, 1, 8, tzinfo=dt.UTC)),
        (C.date_reading("%d/%m/%Y %H:%M %Z", "datetime"), "30/04/2024 10:00 UTC", "TIMESTAMPTZ",
         dt.datetime(2024, 4, 30, 10, tzinfo=dt.UTC)),
        (C.date_reading("%d/%m/%Y %H:%M %Z", "datetime"), "29/02/2024 10:00   GMT", "TIMESTAMPTZ",
         dt.datetime(2024, 2, 29, 10, tzinfo=dt.UTC)),
        (C.date_reading("%d/%m/%Y %H:%M [%z]", "datetime"), "29/02/2024 23:30 UTC", "TIMESTAMPTZ",
         dt.datetime(2024, 2, 29, 23, 30, tzinfo=dt.UTC)),
        (C.ISO_TIMESTAMPTZ, "2024-10-27 02:00 Europe/London", "TIMESTAMPTZ", dt.datetime(2024, 10, 27, 2, tzinfo=dt.UTC)),
        (C.ISO_TIMESTAMPTZ, "2024-04-07 02:00 Australia/Lord_Howe", "TIMESTAMPTZ",
         dt.datetime(2024, 4, 6, 15, 30, tzinfo=dt.UTC)),
        (C.ISO_TIMESTAMPTZ, "2024-04-07 03:00 Australia/Sydney", "TIMESTAMPTZ",
         dt.datetime(2024, 4, 6, 17, tzinfo=dt.UTC)),
    ],
)  # fmt: skip
def test_the_values_beside_them_still_read(reading, text, physical, value):
    got = converted(reading, text, physical)
    assert got == value and (not isinstance(value, dt.datetime) or got.year == value.year)


def test_every_number_a_gate_passes_converts():
    # A number's gate is its whole test (infer/tally.accepts): text it passes and no cast reads
    # was stored as null without a word. Every way of writing a sign, unit, group and fraction.
    numbers = ["5", "012", "1,234", "1.234,5", "0.123.456", "12 345", "1'234.5", ".5", "1,5", "0,5"]
    texts = [
        f"{a}{u}{b}{n}{v}"
        for a in ("", "+", "-")
        for u in ("", "$", "€", "%")
        for b in ("", "+", "-", " ")
        for n in numbers
        for v in ("", "$", " €", "%")
    ]
    t = exp.column("t")
    con = duckdb.connect()
    for reading in (r for r in C.candidate_readings({"$", "€", "%", ",", ".", " ", "'"}) if r.type == "number"):
        value = C.convert(reading, t, "DECIMAL(38, 10)").sql(dialect="duckdb")
        gate = C.matches(t, reading.gate).sql(dialect="duckdb")
        sql = f"SELECT t FROM (SELECT unnest(?) AS t) WHERE {gate} AND ({value}) IS NULL"
        assert con.execute(sql, [texts]).fetchall() == [], reading.format


def test_a_duration_past_what_an_interval_holds_is_refused_not_an_error():
    # PT99999999999H stopped the ingest: DuckDB's to_hours raised out of range.
    assert converted(C.ISO_8601_DURATION, "PT99999999999H", "INTERVAL") is None
    assert converted(C.ISO_8601_DURATION, "P999999W99999999DT999999999H999999999M999999999.999999S", "INTERVAL")


def test_a_number_has_one_sign():
    for reading in (C.number_reading(".", None, "$"), C.number_reading(",", ".", "€")):
        unit = reading.unit
        assert not re.fullmatch(reading.gate, f"-{unit}-5") and not re.fullmatch(reading.gate, f"+{unit}-5")
        assert all(re.fullmatch(reading.gate, t) for t in (f"-{unit}5", f"{unit}-5", f"{unit} +5", f"-5{unit}"))


def write_table(path, sep: str, rows: int, at: int, good, odd: str) -> None:
    """A file of `rows` rows (id, a value, a name) whose value at row `at` is `odd`."""
    lines = [sep.join(("id", "value", "name"))]
    lines += [sep.join((str(i), odd if i == at else good(i), f"n{i}")) for i in range(1, rows + 1)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


# Each shape: values a reading reads, and one a cast would change (two signs read as null, a
# leading zero dropped, 24:00 moved to the next day, the year 0 made 1 BC, 31 April made 1 May).
SHAPES = {
    "two signs": (lambda i: f"${i % 90 + 10}.50", "-$-5.00"),
    "a spaced identifier": (lambda i: f"{100 + i % 800} {i % 1000:03d} {i % 997:03d}", "012 345 678"),
    "dotted groups": (lambda i: f"{1 + i % 9}.{i % 1000:03d}.{i % 997:03d}", "0.123.456"),
    "hour 24": (lambda i: f"2024-01-{1 + i % 28:02d} {i % 24:02d}:30:00", "2024-01-02 24:00:00"),
    "year 0": (lambda i: f"2024-02-{1 + i % 28:02d}", "0000-01-01"),
    "31 April in UTC": (lambda i: f"{1 + i % 30:02d}/04/2024 10:00 UTC", "31/04/2024 10:00 UTC"),
    "hours past an interval": (lambda i: f"PT{i}H{i % 60}M", "PT99999999999H"),
    "a clock the zone skips": (
        lambda i: f"2024-03-{1 + i % 9:02d} 02:{i % 60:02d} America/New_York",
        "2024-03-10 02:30 America/New_York",
    ),
}


# Each shape twice: the odd value first and last, with the four delimiters between them.
VARIANTS = [(",", 5, 1), (";", 6, 6), ("\t", 5, 1), ("|", 6, 6)]


def variant_cases() -> list:
    """Each shape with two variants: the default run takes each shape once, the variants in turn
    (each delimiter, and so the odd value first and last, covered twice); the other half is
    `make test-long`'s."""
    return [
        pytest.param(shape, *VARIANTS[(2 * k + j) % 4], marks=() if j == k // 2 % 2 else (pytest.mark.slow,))
        for k, shape in enumerate(SHAPES)
        for j in (0, 1)
    ]


@pytest.mark.parametrize(("shape", "sep", "rows", "at"), variant_cases())
def test_a_value_read_differently_from_the_file_keeps_its_column_as_text(ns, tmp_path, shape, sep, rows, at):
    good, odd = SHAPES[shape]
    write_table(tmp_path / "t.csv", sep, rows, at, good, odd)
    status, d = ingest(ns, tmp_path / "t.csv")
    assert status.state == "ready"
    value = {c.name: c for c in d.columns}["value"]
    assert value.type == "string", shape
    assert [r["value"] for r in d.sample] == [odd if i == at else good(i) for i in range(1, rows + 1)]


@pytest.mark.parametrize(
    "shape",
    [
        "two signs",
        pytest.param("hour 24", marks=pytest.mark.slow),
        pytest.param("31 April in UTC", marks=pytest.mark.slow),
    ],
)
def test_such_a_value_past_the_sample_is_asked(ns, tmp_path, shape):
    # 50,000 rows, the odd value at row 40,000: past the one pass's head and the careful sample's.
    good, odd = SHAPES[shape]
    write_table(tmp_path / "t.csv", ",", 50_000, 40_000, good, odd)
    status, d = ingest(ns, tmp_path / "t.csv")
    assert status.state == "ready" and d.rows == 50_000
    assert {q.column: q.kind for q in d.questions} == {"value": "mixed_values"}
    assert odd in d.questions[0].question
    got = ns.query({"datasets": [{"source_uri": "t.csv"}], "where": [{"column": "id", "op": "eq", "value": 40_000}]})
    assert got.rows[0][1] == odd


@pytest.mark.parametrize("text", ["yeſ", "YEſ", "falſe", "truе"])  # a long s; a Cyrillic е
def test_a_word_the_bool_gate_folds_into_a_bool_word_is_no_value(text):
    """The bool gate matches case-insensitively as Unicode folds case (ſ is s), so a text can pass
    it and be no bool word: it reads as no value, for a question or a rejected row, never as false."""
    assert converted(C.BOOL, text) is None
    assert [converted(C.BOOL, w) for w in ("Yes", "no", "T", "f")] == [True, False, True, False]
