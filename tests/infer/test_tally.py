"""tabular/infer/tally.py: the one vectorised count of a column's cells: what each reading
refutes, the facts of the values (leading zeros, 0/1, '+' identifiers), the storage type a
number's values need, and the first elimination by symbols and families."""

from __future__ import annotations

import duckdb
import pytest

from tabular import number_forms as N
from tabular import readings as C
from tabular.infer.tally import NumberStats, Source, long_table, physical_from, survey, symbols_of, tally

MARKERS = ("", "NA", "null")


@pytest.fixture
def con():
    con = duckdb.connect()
    yield con
    con.close()


def table(con, **columns):
    """A wide extraction relation (__row_id and one text column per name) from lists of cells."""
    names = list(columns)
    rows = list(zip(*columns.values()))
    con.execute("CREATE OR REPLACE TABLE cells (__row_id BIGINT, " + ", ".join(f'"{n}" VARCHAR' for n in names) + ")")
    con.executemany(
        f"INSERT INTO cells VALUES (?, {', '.join('?' for _ in names)})", [[i + 1, *r] for i, r in enumerate(rows)]
    )
    return "cells"


def test_each_reading_counts_the_values_it_refutes_with_the_first_as_example(con):
    rel = table(con, amount=["12.50", "7", "n/a2", "3.25", "see below"])
    number = C.number_reading()
    (got,) = tally(con, Source(rel), ["amount"], {"amount": [number, C.BOOL]}, MARKERS, examples=True).values()
    assert got.nonnull == 5
    assert [(n.reading, n.fails) for n in got.counts] == [(number, 2), (C.BOOL, 5)]
    assert got.count_of(number).example == "n/a2"


def test_null_markers_and_blanks_are_not_values_and_make_a_column_not_plain(con):
    rel = table(con, a=["1", "NA", "", "2", None], b=["1", "2", "3", "4", "5"], c=[" 1", "2", "3", "4", "5"])
    got = tally(con, Source(rel), ["a", "b", "c"], {"a": [], "b": [], "c": []}, MARKERS)
    assert (got["a"].nonnull, got["a"].plain) == (2, False)
    assert (got["b"].nonnull, got["b"].plain) == (5, True)
    assert (got["c"].nonnull, got["c"].plain) == (5, False)  # surrounding blanks


def test_the_facts_of_the_values_are_counted(con):
    rel = table(
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
    rel = table(con, money=["1234.50", "7.25", "0.1"], ints=["1", "22", "333"], wide=["12345678901234567890", "1", "2"])
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


def test_the_survey_finds_the_symbols_and_the_families_enough_values_belong_to(con):
    rel = table(con, price=["€1.234,50", "€7,00", "€3,10", "oops"], when=["2024-01-02", "2024-02-03", "x", "y"])
    got = survey(con, Source(rel), ["price", "when"], MARKERS, 0.7)
    assert {"€", ",", "."} <= got["price"].symbols
    assert "number" in got["price"].families
    assert "date" not in got["when"].families  # only half of the values look like dates
    assert symbols_of(con, Source(rel), ["when"], MARKERS)["when"] == set()


def test_the_survey_says_where_a_column_writes_a_negative_as_an_amount_in_brackets_or_with_a_minus_after(con):
    rel = table(
        con,
        credits=["400.00 €", "(250.00) €", "12.30 €", "7.00 €"],
        groups=["1,250", "(1,100)", "300", "12"],
        trailing=["400.00", "250.00-", "12.30", "7.00"],
        notes=["12", "(3)", "15", "7"],  # a note's number: no amount
        errors=["1.234", "(0.023)", "0.815", "(0.101)"],  # standard errors under coefficients
        dates=["2024-01-02", "2024-01-", "2024-02-03", "2024-03-04"],
    )
    got = {c: s.symbols for c, s in survey(con, Source(rel), list(C_COLUMNS), MARKERS, 0.7).items()}
    assert [c for c in C_COLUMNS if N.BRACKETED in got[c]] == ["credits", "groups"]
    assert [c for c in C_COLUMNS if N.TRAILING in got[c]] == ["trailing"]


C_COLUMNS = ("credits", "groups", "trailing", "notes", "errors", "dates")


def test_the_long_table_counts_as_the_wide_relation_does_and_is_dropped_after(con):
    rel = table(con, amount=["1", "1", "1", "x", "2.5"])
    number = C.number_reading()
    wide = tally(con, Source(rel), ["amount"], {"amount": [number]}, MARKERS)["amount"]
    with long_table(con, rel, ["amount"], MARKERS) as source:
        long = tally(con, source, ["amount"], {"amount": [number]}, MARKERS)["amount"]
        name = source.sql
    assert (long.nonnull, long.counts) == (wide.nonnull, wide.counts)
    assert not con.execute("SELECT 1 FROM duckdb_tables() WHERE table_name = ?", [name]).fetchall()
