"""tabular/infer/tally.py: the one vectorised count of a column's cells: what each reading
refutes, the facts of the values (leading zeros, 0/1, '+' identifiers) and the storage type a
number's values need; the readings one set of columns tries are counted in one statement, and
a strptime reading's marks are tested before its conversion, neither changing any count."""

from __future__ import annotations

from datetime import datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from infer_cases import cells_table
from sqlglot import exp

from planner.dialect import DIALECT
from tabular import readings as C
from tabular.infer import tally as tally_module
from tabular.infer.tally import NumberStats, Source, accepts, facts_of, long_table, physical_from, tally, written_marks

MARKERS = ("", "NA", "null")


def test_each_reading_counts_the_values_it_refutes_with_the_first_as_example(con):
    rel = cells_table(con, amount=["12.50", "7", "n/a2", "3.25", "see below"])
    number = C.number_reading()
    (got,) = tally(con, Source(rel), ["amount"], {"amount": [number, C.BOOL]}, MARKERS, examples=True).values()
    assert got.nonnull == 5
    assert [(n.reading, n.fails) for n in got.counts] == [(number, 2), (C.BOOL, 5)]
    assert got.count_of(number).example == "n/a2"


def test_null_markers_and_blanks_are_not_values_and_make_a_column_not_plain(con):
    rel = cells_table(con, a=["1", "NA", "", "2", None], b=["1", "2", "3", "4", "5"], c=[" 1", "2", "3", "4", "5"])
    got = tally(con, Source(rel), ["a", "b", "c"], {"a": [], "b": [], "c": []}, MARKERS)
    assert (got["a"].nonnull, got["a"].plain) == (2, False)
    assert (got["b"].nonnull, got["b"].plain) == (5, True)
    assert (got["c"].nonnull, got["c"].plain) == (5, False)  # surrounding blanks


def test_the_facts_of_the_values_are_counted(con):
    rel = cells_table(
        con,
        ids=["007", "012", "3", "4"],
        phones=["+31205550123", "+4420711111", "5", "6"],
        flags=["0", "1", "1", "0"],
        zeros=["0", "0", "0", "0"],
        signed=["-1", "2", "3", "4"],
    )
    got = tally(
        con,
        Source(rel),
        ["ids", "phones", "flags", "zeros", "signed"],
        dict.fromkeys(["ids", "phones", "flags", "zeros", "signed"], []),
        MARKERS,
    )
    assert got["ids"].leading_zeros == 2
    assert got["phones"].plus_ids == 2
    assert (got["flags"].zero_one, got["flags"].binary) == (True, True)
    assert (got["zeros"].zero_one, got["zeros"].binary) == (False, True)  # both values are needed for the question
    assert got["signed"].negatives and not got["ids"].negatives


def test_a_numbers_scale_and_digits_give_its_storage_type(con):
    rel = cells_table(
        con, money=["1234.50", "7.25", "0.1"], ints=["1", "22", "333"], wide=["12345678901234567890", "1", "2"]
    )
    number = C.number_reading()
    got = tally(
        con, Source(rel), ["money", "ints", "wide"], dict.fromkeys(["money", "ints", "wide"], [number]), MARKERS
    )
    assert got["money"].count_of(number).number == NumberStats(2, 4, 0)
    assert physical_from(number, got["money"].count_of(number).number) == "DECIMAL(6, 2)"
    assert physical_from(number, got["ints"].count_of(number).number) == "BIGINT"
    wide = got["wide"].count_of(number).number
    assert wide.digits == 20  # counted on the text: a DOUBLE cannot count 20 digits exactly
    assert physical_from(number, wide) == "DECIMAL(20, 0)"


@pytest.mark.parametrize(
    ("stats", "physical"),
    [
        (NumberStats(0, 18, 0), "BIGINT"),
        (NumberStats(0, 19, 0), "BIGINT"),
        (NumberStats(0, 19, 1), "DECIMAL(19, 0)"),  # past BIGINT's range
        (NumberStats(2, 0, 0), "DECIMAL(3, 2)"),  # .25: one integer digit kept
        (NumberStats(10, 30, 0), "DOUBLE"),  # past 38 digits
    ],
)
def test_physical_from_follows_spec_section_3(stats, physical):
    assert physical_from(C.number_reading(), stats) == physical


def test_an_exponent_reading_or_one_without_stats_is_double_and_others_their_own_type():
    assert physical_from(C.number_reading(exponent=True), NumberStats(0, 1, 0)) == "DOUBLE"
    assert physical_from(C.number_reading(), None) == "DOUBLE"
    assert physical_from(C.BOOL, None) == "BOOLEAN"


def test_the_long_table_counts_as_the_wide_relation_does_and_is_dropped_after(con):
    rel = cells_table(con, amount=["1", "1", "1", "x", "2.5"])
    number = C.number_reading()
    wide = tally(con, Source(rel), ["amount"], {"amount": [number]}, MARKERS)["amount"]
    with long_table(con, rel, ["amount"], MARKERS) as source:
        long = tally(con, source, ["amount"], {"amount": [number]}, MARKERS)["amount"]
        name = source.sql
    assert (long.nonnull, long.counts) == (wide.nonnull, wide.counts)
    assert not con.execute("SELECT 1 FROM duckdb_tables() WHERE table_name = ?", [name]).fetchall()


def test_a_family_of_readings_counted_in_one_statement_counts_as_each_alone(con, monkeypatch):
    """Readings tried by the same columns are counted in one pass (FAMILY_MOST at a time):
    every count, example and number statistic is the one a statement per reading gives."""
    rel = cells_table(
        con,
        a=["1.234,5", "7,25", "2024-01-02", "x", "0012", None, "1e3"],
        b=["12/01/2024", "13/01/2024", "01/02/24", "3.5", "", "NA", "2024-01-02"],
        c=["1", "2", "+3", "-4.50", "(5)", "6", "7"],
    )
    columns = ["a", "b", "c"]
    readings = C.candidate_readings({",", ".", "e"}, None, None)
    tried = {"a": readings, "b": readings, "c": readings[:9]}
    together = tally(con, Source(rel), columns, tried, MARKERS, examples=True)
    # A statement per reading, over the columns that try it (columns are counted apart in any one).
    alone: dict[str, list] = {c: [] for c in columns}
    for r in readings:
        by = [c for c in columns if r in tried[c]]
        for c, t in tally(con, Source(rel), by, {c: [r] for c in by}, MARKERS, examples=True).items():
            alone[c].append(t.counts[0])
    for c in columns:
        assert together[c].counts == alone[c]
    monkeypatch.setattr(tally_module, "FAMILY_MOST", 2)
    assert {c: t.counts for c, t in tally(con, Source(rel), columns, tried, MARKERS, examples=True).items()} == {
        c: alone[c] for c in columns
    }


def test_facts_counted_once_are_the_facts_a_tally_counts(con):
    rel = cells_table(con, a=["007", "+31205550123", " 1", "NA", "  ", "1E5"], b=["y", "Y", "t", "", "1", "0"])
    number = C.number_reading()
    known = facts_of(con, Source(rel), ["a", "b"], MARKERS)
    with_known = tally(con, Source(rel), ["a", "b"], {"a": [number], "b": [C.BOOL]}, MARKERS, known=known)
    counted = tally(con, Source(rel), ["a", "b"], {"a": [number], "b": [C.BOOL]}, MARKERS)
    assert with_known == counted
    assert with_known["a"] is not known["a"] and known["a"].counts == []  # the known facts are not changed
    assert (counted["a"].leading_zeros, counted["a"].plus_ids, counted["a"].spaces) == (1, 1, 1)


# Every reading read by strptime whose format writes marks between its fields.
MARKED = [r for r in C.candidate_readings({",", ".", " "}) if written_marks(r)]


def test_the_marks_a_strptime_reading_writes_are_those_between_its_fields():
    assert written_marks(C.date_reading("%d/%m/%Y")) == ["/"]
    assert written_marks(C.date_reading("%d.%m.%Y %H:%M:%S.%f", "datetime")) == [".", ":"]
    assert written_marks(C.date_reading("%d %b %Y")) == []
    assert written_marks(C.number_reading()) == written_marks(C.ISO_TIMESTAMP) == []  # a gate of their own
    assert written_marks(C.date_reading("%d/%m/%Y %H:%M [%z]", "datetime")) == []  # zones listed: not tested so
    assert len(MARKED) > 50


MARKED_TEXTS = dict(
    when=st.datetimes(min_value=datetime(1000, 1, 1), max_value=datetime(9999, 12, 31)),
    reading=st.sampled_from(MARKED),
    at=st.integers(0, 40),
    other=st.sampled_from(["", "/", "-", ".", ":", ",", " ", "x"]),
)
MARKED_SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def check_marks(con, when, reading, at, other) -> None:
    text = when.strftime(reading.format.replace("%z", "+01:00").replace("%Z", "UTC"))
    if at < len(text):
        text = text[:at] + other + text[at + 1 :]
    t = exp.Literal.string(text)
    converted = C.convert(reading, t.copy(), C.physical_of(reading))
    row = con.execute(exp.select(accepts(reading, t), converted.is_(exp.null())).sql(dialect=DIALECT)).fetchone()
    assert row is not None
    read, refused = row
    assert read is (not refused), (reading.format, text)


# 100 texts in the default run (issue 57: the suite's time), 1,500 in the _long twin.
@settings(max_examples=100, **MARKED_SETTINGS)
@given(**MARKED_TEXTS)
def test_a_text_refuted_by_its_marks_is_one_the_conversion_refutes(con, when, reading, at, other):
    """The marks are tested before the conversion: a reading reads exactly the texts it read
    before, whether a text is written in its format or has one character changed."""
    check_marks(con, when, reading, at, other)


@pytest.mark.slow
@settings(max_examples=1_500, **MARKED_SETTINGS)
@given(**MARKED_TEXTS)
def test_a_text_refuted_by_its_marks_is_one_the_conversion_refutes_long(con, when, reading, at, other):
    check_marks(con, when, reading, at, other)
