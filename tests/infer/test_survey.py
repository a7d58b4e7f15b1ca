"""tabular/infer/survey.py: a column's first elimination: the unit symbols and marks its values
hold at all, and the reading families enough of them could belong to; each cheap gate before a
regex lets through every text the regex reads."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from infer_cases import cells_table
from sqlglot import exp

from planner.dialect import DIALECT
from tabular import number_forms as N
from tabular import readings as C
from tabular.infer.cells import T, col
from tabular.infer.survey import SYMBOLS, family_gate, survey, symbols_of
from tabular.infer.tally import Source

MARKERS = ("", "NA", "null")


def test_the_survey_finds_the_symbols_and_the_families_enough_values_belong_to(con):
    rel = cells_table(con, price=["€1.234,50", "€7,00", "€3,10", "oops"], when=["2024-01-02", "2024-02-03", "x", "y"])
    got = survey(con, Source(rel), ["price", "when"], MARKERS, 0.7)
    assert {"€", ",", "."} <= got["price"].symbols
    assert "number" in got["price"].families
    assert "date" not in got["when"].families  # only half of the values look like dates
    assert symbols_of(con, Source(rel), ["when"], MARKERS)["when"] == set()


def test_the_survey_says_where_a_column_writes_a_negative_as_an_amount_in_brackets_or_with_a_minus_after(con):
    rel = cells_table(
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


GATED = [f for f in C.FAMILIES if family_gate(f) is not None]


def test_the_families_gated_are_those_with_a_cheap_test():
    assert GATED == ["bool", "datetime", "time", "duration"]


def check_gate(con, family, data):
    pattern = C.FAMILIES[family].removeprefix("(?i)")
    text = data.draw(st.from_regex(pattern, fullmatch=True).filter(lambda s: "\x00" not in s))
    if family == "bool":
        text = data.draw(st.sampled_from([text, text.upper(), text.title()]))
    gate = family_gate(family)
    assert gate is not None
    matched = exp.select(C.matches(col(T), C.FAMILIES[family]), gate).from_(
        exp.select(exp.Literal.string(text).as_(T, quoted=True)).subquery()
    )
    row = con.execute(matched.sql(dialect=DIALECT)).fetchone()
    assert row is not None
    reads, passes = row
    assert passes or not reads, text


GATE_SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


# 50 texts per family in the default run (issue 57: the suite's time), 600 in the _long twin.
@pytest.mark.parametrize("family", GATED)
@settings(max_examples=50, **GATE_SETTINGS)
@given(data=st.data())
def test_every_text_a_familys_regex_reads_passes_its_gate(con, family, data):
    """The gate only spares the regex texts it cannot read: any text the family's pattern
    matches whole passes it (else the survey would miss a family and drop its readings)."""
    check_gate(con, family, data)


@pytest.mark.slow
@pytest.mark.parametrize("family", GATED)
@settings(max_examples=600, **GATE_SETTINGS)
@given(data=st.data())
def test_every_text_a_familys_regex_reads_passes_its_gate_long(con, family, data):
    check_gate(con, family, data)


def test_every_symbol_is_found_past_ascii_or_not_beside_text_of_any_kind(con):
    cells = {f"c{i}": ["plain", f"12{s}5", None, "1 2"] for i, s in enumerate(SYMBOLS)}
    got = survey(con, Source(cells_table(con, **cells)), list(cells), MARKERS, 0.5)
    norm = {"\u00a0": " ", "\u202f": " ", "’": "'"}
    for i, s in enumerate(SYMBOLS):
        assert norm.get(s, s) in got[f"c{i}"].symbols, s
    ascii_only = cells_table(con, a=["12", "abc", "1-2"])
    assert symbols_of(con, Source(ascii_only), ["a"], MARKERS)["a"] == set()
