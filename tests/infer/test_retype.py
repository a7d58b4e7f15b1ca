"""tabular/infer/retype.py: typing a stored extraction again: the reading a person names, an
approval's columns and formats checked with their JSON paths, typings kept and read back, and a
person's type carried to a new revision (or not, and said so)."""

from __future__ import annotations

import json

import pytest

from tabular import readings as C
from tabular.infer.questions import Option, Question, Typing
from tabular.infer.retype import Approved, carry, check_request, dump, format_problem, load, person_set, typing_for

MARKERS = ("", "NA")


def relation(con, name="cells", **columns):
    names = list(columns)
    con.execute(f"CREATE OR REPLACE TABLE {name} (__row_id BIGINT, " + ", ".join(f'"{n}" VARCHAR' for n in names) + ")")
    rows = list(zip(*columns.values()))
    con.executemany(
        f"INSERT INTO {name} VALUES (?, {', '.join('?' for _ in names)})", [[i + 1, *r] for i, r in enumerate(rows)]
    )
    return name


def test_a_named_type_takes_the_reading_that_rejects_fewest_rows(con):
    rel = relation(con, c1=["1.234,50", "7,25", "oops"])
    typing = typing_for(con, rel, "c1", "number", "", MARKERS)
    assert (typing.reading.decimal_mark, typing.reading.group_mark) == (",", ".")
    assert (typing.physical, typing.rejected, typing.forced) == ("DECIMAL(6, 2)", 1, True)


def test_a_date_order_or_pattern_narrows_the_readings_tried(con):
    rel = relation(con, c1=["03/04/2024", "05/06/2024"])
    assert typing_for(con, rel, "c1", "date", "MDY", MARKERS).reading.format == "%m/%d/%Y"
    assert typing_for(con, rel, "c1", "date", "DMY", MARKERS).reading.format == "%d/%m/%Y"
    assert typing_for(con, rel, "c1", "date", "%d/%m/%Y", MARKERS).rejected == 0


def test_string_keeps_every_row(con):
    rel = relation(con, c1=["a", "1"])
    assert typing_for(con, rel, "c1", "string", "", MARKERS) == Typing(C.STRING, "VARCHAR", forced=True)


@pytest.mark.parametrize(
    ("type_", "fmt", "ok"),
    [
        ("string", "", True),
        ("string", "%d", False),
        ("bool", "1/0", True),
        ("bool", "yes/no", False),
        ("number", "decimal_mark=,;group_mark=.", True),
        ("number", "decimal_mark=x", False),
        ("number", "thousands=,", False),
        ("number", "decimal_mark=.;negative=brackets", True),
        ("number", "negative=trailing", True),
        ("number", "negative=red", False),
        ("date", "DMY", True),
        ("time", "DMY", False),
        ("date", "%d/%m/%Y", True),
        ("date", "day first", False),
        ("duration", "ISO 8601", True),
    ],
)
def test_a_format_is_checked_against_its_type(con, type_, fmt, ok):
    assert (format_problem(con, type_, fmt) is None) is ok


def test_an_approval_naming_unknown_columns_and_types_says_where_with_close_names(con):
    current = {"c1": Typing(C.STRING, "VARCHAR"), "c2": Typing(C.STRING, "VARCHAR")}
    cells = {"amount": "c1", "when": "c2"}
    errors = check_request(con, ["amount", "when"], current, cells, {"amuont": "number", "when": "dat"}, {"when": "x"})
    by_path = {e.path: e for e in errors}
    assert set(by_path) == {"columns.amuont", "columns.when"}
    assert by_path["columns.amuont"].did_you_mean == ["amount"]
    assert by_path["columns.when"].did_you_mean == ["date"]
    assert by_path["columns.when"].received == "dat"


def test_a_bad_format_is_named_at_its_path(con):
    current = {"c1": Typing(C.number_reading(), "BIGINT")}
    errors = check_request(con, ["amount"], current, {"amount": "c1"}, {}, {"amount": "decimal_mark=;"})
    assert [(e.path, e.received) for e in errors] == [("formats.amount", "decimal_mark=;")]
    assert check_request(con, ["amount"], current, {"amount": "c1"}, {"amount": "date"}, {"amount": "DMY"}) == []


def test_typings_read_back_as_they_were_kept():
    question = Question(
        "date_order",
        "Which order?",
        (
            Option(C.date_reading("%d/%m/%Y"), "DATE", 0, None),
            Option(C.date_reading("%m/%d/%Y"), "DATE", 2, "13/01/2024"),
        ),
    )
    typings = {
        "c1": Typing(C.number_reading(",", ".", "€"), "DECIMAL(8, 2)", 3, None, True, False),
        "c2": Typing(C.date_reading("%d/%m/%Y"), "DATE", 0, question, False, True),
        "c3": Typing(C.STRING, "VARCHAR"),
    }
    assert load(dump(typings)) == typings


@pytest.mark.parametrize(
    ("values", "person", "engine"),
    [
        (["12", "7", "3"], Typing(C.STRING, "VARCHAR", forced=True), Typing(C.number_reading(), "BIGINT")),
        (["03/04/2024", "01/02/2024"], Typing(C.date_reading("%m/%d/%Y"), "DATE", forced=True), None),
        (["1", "0", "1"], Typing(C.number_reading(), "BIGINT", forced=True), None),
    ],
    ids=["text over numbers", "month first over the engine's question", "a number over a flag"],
)
def test_a_persons_type_that_reads_every_value_carries_without_a_question(con, values, person, engine):
    """The person answered it already (issue 56): kept as set, whatever the engine alone would
    read or ask, with no question to confirm it."""
    rel = relation(con, c1=values)
    before = {"c": Approved(person, 1, "ann")}
    own = {"c1": engine or Typing(C.STRING, "VARCHAR", question=Question("mixed_values", "?", ()))}
    out = carry(con, rel, ["c"], own, before, MARKERS)["c1"]
    assert (out.reading, out.forced, out.rejected, out.question) == (person.reading, True, 0, None)


def test_a_persons_type_the_new_values_refute_is_not_carried_and_is_asked(con):
    rel = relation(con, c1=["12", "seven", "3"])
    before = {"n": Approved(Typing(C.number_reading(), "BIGINT", forced=True), 2, None)}
    own = {"c1": Typing(C.STRING, "VARCHAR")}
    out = carry(con, rel, ["n"], own, before, MARKERS)["c1"]
    assert out.reading == C.STRING
    assert out.question.kind == "approval_not_carried"
    assert [o.rows_rejected for o in out.question.options] == [0, 1]


def test_a_carried_type_the_engine_would_choose_anyway_asks_nothing_and_a_gone_column_is_skipped(con):
    rel = relation(con, c1=["12", "7"])
    before = {
        "n": Approved(Typing(C.number_reading(), "BIGINT", forced=True), 1, "ann"),
        "gone": Approved(Typing(C.STRING, "VARCHAR", forced=True), 1, "ann"),
    }
    out = carry(con, rel, ["n"], {"c1": Typing(C.number_reading(), "BIGINT")}, before, MARKERS)
    assert out["c1"].question is None and out["c1"].forced
    assert list(out) == ["c1"]


def test_person_set_names_only_the_forced_columns():
    typings = {"c1": Typing(C.STRING, "VARCHAR", forced=True), "c2": Typing(C.number_reading(), "BIGINT")}
    row = {"typings": dump(typings), "names": json.dumps(["code", "amount"]), "revision": 3, "approved_by": "ann"}
    assert person_set(row) == {"code": Approved(typings["c1"], 3, "ann")}
    assert person_set(None) == {}
