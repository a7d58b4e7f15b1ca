"""Every row is checked: what a sampling sniffer gets wrong past its sample, we must not."""

import csv
from decimal import Decimal
from pathlib import Path

import duckdb
import pyarrow as pa
import pytest
from conftest import columns, ingest
from sqlglot import exp

import tabular
from tabular import readings as C
from tabular.infer.cells import long_table
from tabular.infer.columns import SAMPLE_HEAD, SAMPLE_SPREAD, _candidates, _sample_tallies, sampled
from tabular.infer.tally import facts_of, tally
from tabular.settings import Settings

ROWS = 40_000


def _write(path, header, rows):
    with path.open("w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(header)
        writer.writerows(rows)
    return path


@pytest.fixture(scope="module")
def late(tmp_path_factory):
    """One file of ROWS rows whose columns each hold a value past the sample that changes their
    type (one ingest for the four tests below: each column is typed on its own values)."""
    folder = tmp_path_factory.mktemp("late")
    rows = [
        [i, 1000 + i, f"{i}.50", f"{(i % 12) + 1:02d}/{(i % 28) % 12 + 1:02d}/2024", f"{i}.5"]
        for i in range(1, ROWS + 1)
    ]
    rows[35_000][1] = "007"
    rows[39_990][2] = "n/a2"
    rows[39_991][2] = "see below"
    rows[38_000][3] = "25/03/2024"  # only day/month reads this one
    rows[39_000][4] = "12345678.125"
    path = _write(folder / "late.csv", ["id", "code", "amount", "when", "x"], rows)
    with tabular.connect(str(folder / "home")) as engine:
        _, dataset = ingest(engine.namespace("acme", "finance"), path)
        yield dataset


def asked(dataset, column: str) -> list:
    return [q for q in dataset.questions if q.column == column]


def test_the_values_past_the_sample_ask_only_their_columns_questions(late):
    assert sorted((q.column, q.kind) for q in late.questions) == [
        ("amount", "mixed_values"),
        ("code", "leading_zeros"),
    ]


def test_leading_zero_past_the_sample_keeps_identifiers_as_text(late):
    code = columns(late)["code"]
    assert code.type == "string"
    assert [q.kind for q in asked(late, "code")] == ["leading_zeros"]
    assert columns(late)["id"].physical == "BIGINT"


def test_text_past_the_sample_is_mixed_values_with_exact_counts(late):
    assert columns(late)["amount"].type == "string"
    (question,) = asked(late, "amount")
    assert question.kind == "mixed_values"
    assert [(o.type, o.rows_rejected) for o in question.options] == [("string", 0), ("number", 2)]
    assert question.options[1].example == "n/a2"


def test_date_order_proven_past_the_sample(late):
    when = columns(late)["when"]
    assert (when.type, when.format) == ("date", "%d/%m/%Y")
    assert asked(late, "when") == []


def test_wider_decimals_past_the_sample_widen_the_scale(late):
    x = columns(late)["x"]
    assert x.physical == "DECIMAL(11, 3)" and x.max == "12345678.125"


@pytest.mark.parametrize("sep", [",", ";"])
@pytest.mark.parametrize(
    "unit_values, bare_at",
    [
        (["$5.00", "$7.25", "$8.00"], 1),  # a bare value among dollars
        (["12 €", "13,5 €", "14 €"], 2),  # after the value, decimal comma
        (["£3", "£4", "£5"], 0),  # the bare value first
    ],
)
def test_a_unit_on_some_values_only_is_kept_as_text_never_given_to_the_rest(ns, tmp_path, sep, unit_values, bare_at):
    """`$5.00` beside a bare `6.00` was a money column: the bare value silently took the dollar,
    where `kg` on some rows kept the column as text. Each value bears the unit, or none is read."""
    values = list(unit_values)
    values.insert(bare_at, "6")
    q = '"' if sep == "," else ""
    path = tmp_path / "prices.csv"
    path.write_text(
        f"id{sep}price\n" + "".join(f"{i}{sep}{q}{v}{q}\n" for i, v in enumerate(values * 30)), encoding="utf-8"
    )
    _, dataset = ingest(ns, path)
    price = columns(dataset)["price"]
    assert price.type == "string" or any(q.column == "price" for q in dataset.questions)
    assert [r["price"] for r in dataset.sample[: len(values)]] == values


@pytest.mark.parametrize(("unit_value", "bare"), [("$5.00", "6.00"), ("12 €", "13"), ("£3", "4")])
def test_a_bare_value_among_many_with_a_unit_is_asked_and_the_unit_reading_rejects_it(ns, tmp_path, unit_value, bare):
    """Where the unit is on most values, the money reading is offered with the bare value among
    the rows it rejects: never read as money without a word."""
    values = [unit_value] * 40 + [bare]
    path = tmp_path / "prices.csv"
    path.write_text("id;price\n" + "".join(f"{i};{v}\n" for i, v in enumerate(values)), encoding="utf-8")
    _, dataset = ingest(ns, path)
    assert columns(dataset)["price"].type == "string"
    (q,) = [q for q in dataset.questions if q.column == "price"]
    assert q.kind == "mixed_values" and [(o.type, o.rows_rejected) for o in q.options] == [("string", 0), ("number", 1)]


def write_ledger(path: Path, rows: int, credits_from: int) -> None:
    """A ledger of `rows` entries of 10.00 whose entries from row `credits_from` on that are odd
    and one past a multiple of 7 are credit notes of (1,000.00)."""
    lines = ["entry,amount"]
    lines += [f'{i},"(1,000.00)"' if credit(i, credits_from) else f"{i},10.00" for i in range(1, rows + 1)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def credit(i: int, credits_from: int) -> bool:
    return i >= credits_from and i % 14 == 1


@pytest.mark.slow
@pytest.mark.parametrize("start", [1, 40_000])
def test_credit_notes_read_in_the_one_pass_and_when_first_met_past_the_sample(ns, tmp_path, start):
    # From row 1: the one pass types on its head and converts every later credit note under
    # the sample's reading. From row 40,000, on odd rows only, which the careful way's sample of
    # 50,000 rows (its head, then every 4th row) never holds: the column the sample misled is
    # surveyed again whole, and reads every value.
    rows = 50_000
    write_ledger(tmp_path / "ledger.csv", rows, start)
    status, dataset = ingest(ns, tmp_path / "ledger.csv")
    assert status.state == "ready" and dataset.rows == rows and dataset.rows_rejected == 0
    column = columns(dataset)["amount"]
    assert (column.type, column.format) == ("number", "decimal_mark=.;group_mark=,;negative=brackets")
    credits = sum(1 for i in range(1, rows + 1) if credit(i, start))
    expected = Decimal("10.00") * (rows - credits) - Decimal("1000.00") * credits
    got = ns.query({"datasets": [{"source_uri": "ledger.csv"}], "aggregates": [{"fn": "sum", "column": "amount"}]})
    assert Decimal(got.rows[0][0]) == expected


def test_the_sample_is_the_first_rows_and_rows_spread_over_the_rest():
    con = duckdb.connect()
    rows = 4 * (SAMPLE_HEAD + SAMPLE_SPREAD)
    con.from_arrow(pa.table({"__row_id": pa.array(range(1, rows + 1), pa.int64())})).create("cells")
    assert sampled("cells", SAMPLE_HEAD + SAMPLE_SPREAD) == "cells"  # a short relation is read whole
    picked = sampled("cells", rows)
    assert isinstance(picked, exp.Subquery)
    got = [
        r
        for (r,) in con.execute(
            exp.select("__row_id").from_(picked).order_by("__row_id").sql(dialect="duckdb")
        ).fetchall()
    ]
    step = (rows - SAMPLE_HEAD) // SAMPLE_SPREAD
    assert got[:SAMPLE_HEAD] == list(range(1, SAMPLE_HEAD + 1))
    assert got[SAMPLE_HEAD:] == [r for r in range(SAMPLE_HEAD + 1, rows + 1) if r % step == 0]


def test_the_sample_tallies_are_every_readings_count_where_one_reads_every_value_and_facts_over_the_sample():
    """The probe rules readings out and each family is counted in one statement; the facts are
    counted once over the whole sample: a column's tally is what counting it alone would say."""
    con = duckdb.connect()
    rows = 300  # more than a probe's cells
    cells = {
        "ints": [str(i * 7 - 900) for i in range(rows)],
        "money": [f"{i}.{i % 100:02d}" for i in range(rows)],
        "dates": [f"2024-{i % 12 + 1:02d}-{i % 28 + 1:02d}" for i in range(rows)],
        "words": ["alpha", "beta", " ", "NA"] * (rows // 4),
        "late": ["1"] * 100 + ["x"] + ["2"] * (rows - 101),  # a word past the probe: mixed
        "codes": ["007", "+31205550123", "1E5", "F"] * (rows // 4),
    }
    table = pa.table(
        {"__row_id": pa.array(range(1, rows + 1), pa.int64())} | {k: pa.array(v) for k, v in cells.items()}
    )
    con.register("sample", table)
    names = list(cells)
    settings = Settings()
    markers = settings.nulls({})
    with long_table(con, '"sample"', names, markers) as sample:
        readings = _candidates(con, sample, names, settings, {})
        got = _sample_tallies(con, sample, names, readings, markers)
        alone = {c: tally(con, sample, [c], {c: readings[c]}, markers)[c] for c in names}
        facts = facts_of(con, sample, names, markers)
    assert readings["ints"] == [r for r in C.candidate_readings(set()) if r.type == "number"]
    for c in names:
        assert [n.reading for n in got[c].counts] == readings[c]
        facts_only = {k: v for k, v in vars(got[c]).items() if k != "counts"}
        assert (
            facts_only
            == {k: v for k, v in vars(facts[c]).items() if k != "counts"}
            == {k: v for k, v in vars(alone[c]).items() if k != "counts"}
        )
        full = [n for n in alone[c].counts if n.fails == 0]
        assert [n for n in got[c].counts if n.fails == 0] == full
    assert [n.fails for n in got["late"].counts] == [n.fails for n in alone["late"].counts]  # mixed: counted whole
