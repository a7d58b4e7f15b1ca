"""tabular/infer/kinds.py: the one table of question kinds. Each entry holds its detection (the
ask that finds it on a column, or the stage that asks it), its options and words, and the one
pass's guard; a column is asked the kinds in the table's order, and a kind added to the table
is asked with no other change."""

from __future__ import annotations

from dataclasses import replace

import pytest
from infer_cases import typed

from tabular import readings as C
from tabular.infer import kinds
from tabular.infer.kinds import KINDS, Kind
from tabular.infer.questions import settle_by_evidence
from tabular.infer.tally import Tally
from tabular.infer.typings import Ask, Typing


def test_every_kind_says_what_it_asks_how_the_one_pass_is_guarded_and_who_asks_it():
    for kind in KINDS.values():
        assert kind.words and kind.guard, kind.name
        # An entry asks itself, or names the stage that does (the header before typing, the
        # carried approvals after the whole revision is stored).
        assert (kind.ask is not None) != (kind.asked_by != "infer/kinds.py"), kind.name
    assert {k.asked_by for k in KINDS.values() if k.ask is None} == {"ingest/pipeline.py", "infer/retype.py"}


@pytest.mark.parametrize(
    ("values", "kind", "held"),
    [
        (["7", "12", "n/a2", *map(str, range(20, 40))], "mixed_values", "string"),
        (["007", "012", "123"], "leading_zeros", "string"),
        (["0", "1", "1", "0"], "bool_or_number", "number"),
        (["1,234", "2,500", "3,125"], "decimal_mark", "number"),
        (["03/04/2024", "05/06/2024"], "date_order", "date"),
        (["05/06/60", "07/08/61"], "century", "string"),
        (["12E3", "4E5", "7E2"], "scientific", "string"),
    ],
)
def test_each_kind_that_asks_a_column_finds_its_question_with_options_and_a_held_typing(values, kind, held):
    typing = typed(values)
    assert typing.question is not None and typing.question.kind == kind
    assert typing.reading.type == held
    assert len(typing.question.options) >= 2 and typing.question.text.endswith("?")
    # The column is held as one of the options it offers.
    assert (typing.reading, typing.physical) in {(o.reading, o.physical) for o in typing.question.options}


def test_a_column_two_kinds_would_ask_is_asked_the_first_in_the_tables_order():
    """Two-digit years past next year that read in both orders: the century is asked (it holds
    the column as text), not the order; the table's order is the order asked."""
    order = list(KINDS)
    assert order.index("century") < order.index("date_order")
    assert typed(["05/06/60", "07/08/61", "03/04/62"]).question.kind == "century"


def test_a_kind_put_in_the_table_is_asked_with_no_other_change(monkeypatch):
    """An entry's ask is all it takes: here one that asks every number column whether it is
    money, put first in the table (under an existing kind's name, the API's names being closed)."""

    def money(column) -> Ask | None:
        if not column.is_number():
            return None
        return kinds.text_or(column.reading, column.physical, "Are these amounts of money?")

    asked = Kind("precision", "amounts of money?", "none", money)
    monkeypatch.setattr(kinds, "KINDS", {"precision": asked, **{k: v for k, v in KINDS.items() if k != "precision"}})
    monkeypatch.setattr("tabular.infer.questions.KINDS", kinds.KINDS)
    typing = typed(["0", "1", "1", "0"])  # bool_or_number's column, asked the new kind first
    assert (typing.question.kind, typing.question.text, typing.reading.type) == (
        "precision",
        "Are these amounts of money?",
        "string",
    )
    assert typed(["Oslo", "Bergen"]).question is None


def test_a_kind_taken_out_of_the_table_is_asked_no_more(monkeypatch):
    monkeypatch.setitem(KINDS, "bool_or_number", replace(KINDS["bool_or_number"], ask=None))
    typing = typed(["0", "1", "1", "0"])
    assert (typing.reading.type, typing.physical, typing.question) == ("number", "BIGINT", None)


def test_the_table_asks_and_settles_across_columns_through_its_entries():
    """decimal_mark's `across` asks a column whose mark the table's other numbers contradict;
    date_order's settles a column's order another column proves."""
    dot = typed(["1.50", "2.25", "3.75"])
    comma = typed(["1,5", "2,25", "3,75"])
    settled = settle_by_evidence({"a": dot, "b": dot, "c": comma})
    assert settled["c"].question is not None and settled["c"].question.kind == "decimal_mark"
    assert settled["c"].reading.type == "string" and settled["a"] == dot
    open_order = typed(["03/04/2024", "05/06/2024"])
    proven = typed(["25/03/2024", "01/02/2024"])
    assert settle_by_evidence({"open": open_order, "proven": proven})["open"].reading.order == "DMY"
    assert {k for k, v in KINDS.items() if v.across is not None} == {"decimal_mark", "date_order"}


def test_the_one_pass_guard_of_a_kind_says_when_rows_past_a_sample_could_raise_it():
    zeros_ones = typed(["0", "1", "0"])
    flag_guard = KINDS["bool_or_number"].open_past_sample
    binary = Tally(binary=True)
    assert flag_guard(Typing(zeros_ones.reading, "BIGINT"), binary)
    assert not flag_guard(Typing(C.STRING, "VARCHAR"), binary)
    assert not any(k.open_past_sample(Typing(C.STRING, "VARCHAR"), binary) for k in KINDS.values())
