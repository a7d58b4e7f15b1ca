"""bench/loading.py keeps its word: each generator writes the pollution it names, its truth is what
a clean read of the file gives, and the scorer gives 1.0 to the truth itself and 0 to a header
lost. No reader runs here (the bench measures them)."""

import csv
import importlib.util
import io
import sys
from datetime import date
from decimal import Decimal

import pytest
from conftest import ROOT

# Loaded by path: bench/ on the import path would shadow the standard library's http (bench/http.py).
_spec = importlib.util.spec_from_file_location("loading_bench", ROOT / "bench" / "loading.py")
L = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = L  # its dataclasses look their module up
_spec.loader.exec_module(L)

TINY = [make(6) for make in (L.sample_xy, L.hits, L.villes_fr, L.sales_en, L.lager_de, L.survey_wide)]
CASES = [(t, kind) for t in TINY for kind in L.KINDS if L.KINDS[kind](t) is not None]


def truth_as_read(v):
    return L.Loaded(tables=[(t.header, [tuple(r) for r in t.rows]) for t in v.truth])


@pytest.mark.parametrize(("table", "kind"), CASES, ids=[f"{t.name}-{k}" for t, k in CASES])
def test_the_truth_scores_one_against_itself_and_a_lost_header_zero(table, kind):
    v = L.KINDS[kind](table)
    assert L.score(v, truth_as_read(v)) == (1.0, 1.0, 1.0)
    headerless = L.Loaded(tables=[(None, rows) for _, rows in truth_as_read(v).tables])
    assert L.score(v, headerless) == (0.0, 1.0, 1.0)
    assert L.score(v, L.Loaded(error="failed")) == (0.0, 0.0, 0.0)
    assert kind == "clean" or v.text != L.clean(table).text


def rows_of(text: str, **dialect) -> list[list[str]]:
    return [r for r in csv.reader(io.StringIO(text, newline=""), **dialect) if r]


@pytest.mark.parametrize("table", TINY, ids=[t.name for t in TINY])
def test_the_quoting_kinds_read_back_to_their_truth_with_the_dialect_they_claim(table):
    sep = table.sep
    for kind, dialect in [
        ("clean", {}),
        ("quoted_other_sep", {}),
        ("quotes_in_values", {}),
        ("no_final_newline", {}),
        ("mixed_newlines", {}),
        ("blank_lines", {}),
        ("single_quotes", {"quotechar": "'"}),
        ("sep_space", {"skipinitialspace": True}),
    ]:
        v = L.KINDS[kind](table)
        if v is None:
            continue
        (truth,) = v.truth
        assert rows_of(v.text, delimiter=sep, **dialect) == [truth.header, *truth.rows], kind
    assert rows_of(L.bom(table).text.lstrip("\ufeff"), delimiter=sep) == [table.header, *table.rows]


@pytest.mark.parametrize("table", TINY, ids=[t.name for t in TINY])
def test_each_pollution_is_in_the_file(table):
    sep, width = table.sep, table.width
    first = lambda kind: next(csv.reader(io.StringIO(L.KINDS[kind](table).text), delimiter=sep))
    assert L.bom(table).text.startswith("\ufeff")
    assert not L.no_final_newline(table).text.endswith("\n")
    mixed = L.mixed_newlines(table).text
    assert "\r\n" in mixed and "\n" in mixed.replace("\r\n", "")
    assert L.comment_lines(table).text.startswith("# ")
    assert "\n\n" in L.blank_lines(table).text
    assert first("header_extra_sep").count("") == 1 and len(first("header_extra_sep")) == width + 1
    assert first("header_extra_name") == [*table.header, "Notes"]
    assert len(first("title_wider")) > width and first("title_wider")[0] == "Created as New Dataset"
    assert first("title_padded") == ["Department for Work and Pensions"] + [""] * (width - 1)
    groups = first("header_group")
    assert groups[0] == "" and set(groups) - {""} == set(table.groups) - {""}
    assert L.header_repeated(table).text.startswith(2 * (L.line(table.header, sep) + "\n"))
    assert (sep + " ") in L.sep_space(table).text
    if table.text:
        assert f"{sep}'" in L.single_quotes(table).text
        assert all(line.startswith('"') for line in L.quoted_other_sep(table).text.splitlines())
        assert L.other_sep(table) in "".join(sum(L.quoted_other_sep(table).truth[0].rows, []))
        assert sum('"' in c for r in L.quotes_in_values(table).truth[0].rows for c in r) > 0
    assert any(len(r) < width for r in rows_of(L.ragged_rows(table).text, delimiter=sep))
    assert len(L.several_tables(table).truth) == 2
    assert L.preamble_notes(table).text.startswith("Source:")
    assert L.trailing_notes(table).text.rstrip().endswith("2021")


@pytest.mark.parametrize("table", TINY, ids=[t.name for t in TINY])
def test_a_total_row_states_the_sum_and_scores_below_one_when_kept(table):
    v = L.total_row(table)
    total = rows_of(v.text, delimiter=table.sep)[-1]
    column = [r[table.amount] for r in table.rows]
    assert total[0] == "Total"
    assert L.number_of(total[table.amount], table.decimal_mark) == sum(
        L.number_of(c, table.decimal_mark) for c in column
    )
    kept = L.Loaded(tables=[(table.header, [*table.rows, total])])
    assert L.score(v, kept)[1] < 1


def test_time_stray_has_one_value_that_is_not_a_time():
    (truth,) = L.time_stray(L.hits(6)).truth
    times = [r[-1] for r in truth.rows]
    assert [L.canon(t)[0] for t in times].count("t") == len(times) - 1 and "1" in times


def test_values_are_compared_as_values():
    assert L.canon("1,250.00") == L.canon("1250.00") == L.canon(Decimal("1250")) == L.canon(1250.0)
    assert L.canon("$1,250.00") == L.canon("1250")
    assert L.canon("1.234,56 €", ",") == L.canon(Decimal("1234.56"))
    assert L.canon("03/04/2021", ".", "DMY") == L.canon(date(2021, 4, 3)) != L.canon("03/04/2021", ".", "MDY")
    assert L.canon("  text, trimmed ") == L.canon("text, trimmed") and L.canon("") is None
    assert L.header_key(" Unit Price ") == L.header_key("unit_price")
