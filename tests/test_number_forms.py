"""tabular/number_forms.py: how a number is written. Negatives in brackets or with a minus after
(accounting and ledger exports) read as negative numbers under their convention, in DuckDB, and
never without one; a column tries a convention only where it writes such a value as an amount.
Then ledgers in several shapes (fixtures/ledgers) ingested whole: a number reading, exact sums."""

from __future__ import annotations

import re
from decimal import Decimal

import duckdb
import pytest
from conftest import ROOT, columns, ingest
from sqlglot import exp

from tabular import number_forms as N
from tabular import readings as C

LEDGERS = ROOT / "fixtures" / "ledgers"


def converted(reading, text, physical="DECIMAL(18, 2)"):
    sql = C.convert(reading, exp.Literal.string(text), physical).sql(dialect="duckdb")
    return duckdb.connect().execute(f"SELECT {sql}").fetchone()[0]


BRACKETS = "brackets"
TRAILING = "trailing"


@pytest.mark.parametrize(
    ("marks", "negative", "text", "value"),
    [
        ((".", None, None), BRACKETS, "(250.00)", "-250.00"),
        ((".", ",", None), BRACKETS, "(1,250.00)", "-1250.00"),
        ((".", None, None), BRACKETS, "-250.00", "-250.00"),  # a minus before still reads
        ((".", None, None), BRACKETS, "250.00", "250.00"),
        ((".", None, "£"), BRACKETS, "(£250.00)", "-250.00"),
        ((".", None, "£"), BRACKETS, "£(250.00)", "-250.00"),
        ((".", None, "£"), BRACKETS, "-£250", "-250.00"),
        ((".", None, "£"), BRACKETS, "£-250", "-250.00"),
        ((".", None, "€"), BRACKETS, "(250.00 €)", "-250.00"),
        ((",", None, "€"), BRACKETS, "(250,00) €", "-250.00"),
        ((",", ".", "€"), BRACKETS, "€ (1.250,00)", "-1250.00"),
        ((",", " ", None), BRACKETS, "(1 250,50)", "-1250.50"),
        ((".", None, "%"), BRACKETS, "(5.25%)", "-5.25"),
        ((".", None, None), TRAILING, "250.00-", "-250.00"),
        ((".", ",", None), TRAILING, "1,250.00-", "-1250.00"),
        ((".", None, None), TRAILING, "-250.00", "-250.00"),
        ((".", None, "£"), TRAILING, "£250.00-", "-250.00"),
        ((",", None, "€"), TRAILING, "250,00 €-", "-250.00"),
        ((",", None, "€"), TRAILING, "250,00- €", "-250.00"),
        ((",", ".", None), TRAILING, "1.250,00", "1250.00"),
    ],
)
def test_a_negative_under_its_convention_reads_as_a_negative_number(marks, negative, text, value):
    reading = C.number_reading(*marks, False, negative)
    assert re.fullmatch(reading.gate, text)
    assert converted(reading, text) == Decimal(value)


@pytest.mark.parametrize(
    ("negative", "text"),
    [
        (BRACKETS, "(-250.00)"),  # two signs: which is meant?
        (BRACKETS, "-(250.00)"),
        (BRACKETS, "(250.00)-"),
        (BRACKETS, "(250.00"),
        (BRACKETS, "250.00)"),
        (BRACKETS, "((250.00))"),
        (BRACKETS, "250.00-"),  # the other convention
        (TRAILING, "-250.00-"),
        (TRAILING, "250.00--"),
        (TRAILING, "(250.00)"),
        ("", "(250.00)"),  # no convention: no negative in brackets
        ("", "250.00-"),
    ],
)
def test_a_value_its_convention_does_not_write_is_refused(negative, text):
    reading = C.number_reading(".", None, None, False, negative)
    assert not re.fullmatch(reading.gate, text)
    assert converted(reading, text) is None


def test_every_negative_a_gate_passes_converts_and_is_negative():
    # The gate is the whole test of a number (infer/tally.accepts): each text it passes converts,
    # and to a negative number exactly when it is written as one.
    numbers = ["5", "1,234", "1.234,5", "12 345", "1'234.5", ".5", "1,5", "250.00"]
    units = ("", "$", "€", "%")
    texts = [
        form.format(n=n, u=u, s=s)
        for n in numbers
        for u in units
        for s in ("", " ")
        for form in ("({u}{s}{n})", "({n}{s}{u})", "{u}{s}({n})", "({n}){s}{u}", "{n}-", "{u}{s}{n}-", "{n}{s}{u}-")
        + ("{n}-{s}{u}", "-{u}{s}{n}", "{u}{s}{n}", "{n}{s}{u}", "(-{n})", "-{n}-")
    ]
    t = exp.column("t")
    con = duckdb.connect()
    for reading in (r for r in C.candidate_readings({"$", "€", "%", ",", ".", " ", "'", N.BRACKETED, N.TRAILING})):
        if reading.type != "number" or not reading.negative:
            continue
        value = C.convert(reading, t, "DECIMAL(38, 10)").sql(dialect="duckdb")
        gate = C.matches(t, reading.gate).sql(dialect="duckdb")
        sql = f"SELECT t, {value} FROM (SELECT unnest(?) AS t) WHERE {gate}"
        read = con.execute(sql, [texts]).fetchall()
        assert read, reading.format
        wrong = [(t, v) for t, v in read if v is None or (v < 0) != ("-" in t or "(" in t)]
        assert wrong == [], reading.format


def test_the_narrowed_gate_of_the_one_pass_keeps_the_convention():
    # Past the sample a value must keep to the sample's scale: brackets and all.
    decimals = C.number_reading(".", ",", None, False, BRACKETS)
    tight = C.number_gate(decimals, 2, False)
    assert re.fullmatch(tight, "(1,250.00)") and re.fullmatch(tight, "(3.5)")
    assert not re.fullmatch(tight, "(250.001)")
    whole = C.number_reading(".", None, None, False, TRAILING)
    tight = C.number_gate(whole, 0, True)
    assert re.fullmatch(tight, "250-") and re.fullmatch(tight, "-250") and re.fullmatch(tight, "0")
    assert not re.fullmatch(tight, "0250-") and not re.fullmatch(tight, "250.5-")


def test_the_format_names_the_convention_and_a_person_can_name_it():
    reading = C.number_reading(",", ".", "€", False, BRACKETS)
    assert reading.format == "decimal_mark=,;group_mark=.;unit=€;negative=brackets"
    assert C.reading_from("number", reading.format) == reading
    trailing = C.number_reading(".", None, None, False, TRAILING)
    assert C.format_of(trailing, "BIGINT") == "negative=trailing"
    assert C.reading_from("number", "negative=trailing") == trailing


def test_a_convention_is_tried_only_after_every_plain_number_and_only_where_the_values_show_it():
    plain = [r for r in C.candidate_readings({",", "."}) if r.type == "number"]
    assert not any(r.negative for r in plain)
    tried = [r for r in C.candidate_readings({",", ".", N.BRACKETED}) if r.type == "number"]
    assert [r for r in tried if not r.negative] == plain
    first = next(i for i, r in enumerate(tried) if r.negative)
    assert all(r.negative == BRACKETS for r in tried[first:]) and len(tried) == 2 * len(plain)
    both = {r.negative for r in C.candidate_readings({N.BRACKETED, N.TRAILING}) if r.type == "number"}
    assert both == {"", BRACKETS, TRAILING}


@pytest.mark.parametrize(
    ("text", "amount"),
    [
        ("(250.00)", True),
        ("(1,250)", True),
        ("(£3)", True),
        ("€ (1.250,00)", True),
        ("250.00-", True),
        ("(3)", False),  # a note's number
        ("(0.023)", False),  # a standard error under a coefficient
        ("(250)", False),
        ("2024-01-", False),
    ],
)
def test_a_value_written_as_an_amount_has_a_currency_two_decimals_or_a_group(text, amount):
    got = duckdb.connect().execute("SELECT regexp_full_match(?, ?)", [text, N.AMOUNT]).fetchone()[0]
    assert got is amount


# Every ledger holds the same entries: Acme's credit note of 250.00 takes its 612.30 to 362.30.
SUMS = {"Acme Supplies": Decimal("362.30"), "Brill & Sons": Decimal("1018.75"), "Cobalt Ltd": Decimal("899.50")}
SHAPES = {
    "brackets.csv": "decimal_mark=.;group_mark=,;negative=brackets",
    "trailing_minus.csv": "decimal_mark=.;group_mark=,;negative=trailing",
    "currency_before.csv": "decimal_mark=.;group_mark=,;unit=£;negative=brackets",
    "currency_after.csv": "decimal_mark=.;group_mark=,;unit=€;negative=brackets",
    "decimal_comma.csv": "decimal_mark=,;group_mark=.;unit=€;negative=brackets",
}


def sums(ns, uri: str, group: str, amount: str) -> dict[str, Decimal]:
    answer = ns.query(
        {
            "datasets": [{"source_uri": uri}],
            "group_by": [{"column": group}],
            "aggregates": [{"fn": "sum", "column": amount}],
        }
    )
    return {g: Decimal(s) for g, s in answer.rows}


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_a_ledger_with_credit_notes_reads_them_as_negative_amounts(ns, name):
    status, dataset = ingest(ns, LEDGERS / name)
    assert status.state == "ready", status.error_message
    group, amount = [c.name for c in dataset.columns][1::2]
    column = columns(dataset)[amount]
    assert (column.type, column.physical, column.format) == ("number", "DECIMAL(6, 2)", SHAPES[name])
    assert dataset.questions == [] or {q.kind for q in dataset.questions} == {"header_row"}
    assert dataset.rows_rejected == 0
    assert sums(ns, name, group, amount) == SUMS


def approve(engine, uri: str, snapshot_id: str, column: str, fmt: str) -> dict:
    """A person's answer through knowledge.dataset_approve: `column` read as a number so."""
    body = {"org": "acme", "namespace": "finance", "source_uri": uri, "snapshot_id": snapshot_id}
    return engine.call("knowledge.dataset_approve", {**body, "columns": {column: "number"}, "formats": {column: fmt}})[
        "dataset"
    ]


def test_a_ledger_with_a_word_among_its_amounts_is_asked_with_the_convention_as_the_option(ns, engine):
    status, dataset = ingest(ns, LEDGERS / "with_notes.csv")
    assert status.state == "ready"
    assert columns(dataset)["amount"].type == "string"
    (question,) = [q for q in dataset.questions if q.column == "amount"]
    assert question.kind == "mixed_values" and "disputed" in question.question
    read = [o for o in question.options if o.type == "number"]
    assert [(o.format, o.rows_rejected) for o in read] == [("decimal_mark=.;group_mark=,;negative=brackets", 1)]
    # Read so (the person's answer), the credit notes are negative and the word's row rejected.
    approved = approve(engine, "with_notes.csv", dataset.snapshot_id, "amount", read[0].format)
    assert approved["rows_rejected"] == 1
    assert sums(ns, "with_notes.csv", "supplier", "amount") == SUMS


def test_whole_numbers_in_brackets_with_no_sign_of_accounts_are_not_made_negative(ns, engine):
    # (3) among counts of staff: a note's number as likely as a negative. Asked as a mix,
    # never read as -3 unless a person names the convention.
    status, dataset = ingest(ns, LEDGERS / "footnotes.csv")
    assert status.state == "ready"
    staff = columns(dataset)["staff"]
    assert staff.type == "string"
    (question,) = [q for q in dataset.questions if q.column == "staff"]
    assert question.kind == "mixed_values"
    assert [(o.type, o.format, o.rows_rejected) for o in question.options] == [("string", "", 0), ("number", "", 2)]
    approved = approve(engine, "footnotes.csv", dataset.snapshot_id, "staff", "negative=brackets")
    assert {c["name"]: c["format"] for c in approved["columns"]}["staff"] == "negative=brackets"
    got = ns.query(
        {"datasets": [{"source_uri": "footnotes.csv"}], "where": [{"column": "staff", "op": "lt", "value": 0}]}
    )
    assert sorted(r[0] for r in got.rows) == ["Central", "South"]
