""" "More than the average X" (issue 32): the built-in reading compares each row with the column's
average over the rows (a plan of its own, joined beside them), on tables written here in several
shapes: integers and decimals, columns in other orders, other delimiters, a row that totals the
others (left out of the average too). Each expected count is worked out here from the rows in
Python decimals; where other words narrow the rows, whose average is meant is not said, so the
engine abstains."""

from __future__ import annotations

from decimal import Decimal

import pytest
from synth_engine import tables_namespace

TABLES = {
    # name: (header, rows, the measured column, delimiter)
    "points": (
        ["Player", "Team", "Points"],
        [["Ada", "Red", "10"], ["Bob", "Blue", "30"], ["Cy", "Red", "25"], ["Dee", "Blue", "5"]],
        "Points",
        ",",
    ),
    "salaries": (
        ["Salary", "Employee"],
        [["1200.50", "Ana"], ["980.25", "Ben"], ["1500.00", "Caro"], ["1010.10", "Dan"], ["990.00", "Eve"]],
        "Salary",
        ";",
    ),
    "heights": (
        ["Rank", "Mountain", "Height", "Country"],
        [
            ["1", "K-A", "8848", "NP"],
            ["2", "K-B", "8611", "PK"],
            ["3", "K-C", "8586", "NP"],
            ["4", "K-D", "8516", "NP"],
            ["", "Total", "34561", ""],
        ],
        "Height",
        "\t",
    ),
}
PHRASES = {
    "gt": [
        "how many rows have more {col} than the average?",
        "how many rows have a {col} above the average?",
        "how many rows have {col} higher than the average {col}?",
        "how many rows have {col} greater than the mean?",
    ],
    "lt": [
        "how many rows have less {col} than the average?",
        "how many rows have a {col} below the average {col}?",
        "how many rows have {col} lower than average?",
    ],
}


@pytest.fixture(scope="module")
def ns(tmp_path_factory):
    tables = [(name, delimiter, header, rows) for name, (header, rows, _, delimiter) in TABLES.items()]
    with tables_namespace(tmp_path_factory.mktemp("average"), tables) as ns:
        yield ns


def expected(name: str, op: str) -> int:
    header, rows, column, _ = TABLES[name]
    k = header.index(column)
    values = [Decimal(r[k]) for r in rows if "Total" not in r]  # the Total row is no row of its own
    mean = sum(values) / len(values)
    return sum(1 for v in values if (v > mean if op == "gt" else v < mean))


@pytest.mark.parametrize("name", sorted(TABLES))
@pytest.mark.parametrize("op, phrase", [(op, p) for op, ps in PHRASES.items() for p in ps])
def test_rows_compared_with_their_columns_average(ns, name, op, phrase):
    column = TABLES[name][2]
    out = ns.synthesize(phrase.format(col=column.lower()), [f"{name}.csv"])
    assert not out.abstain, (out.abstain_reason, out.clarification)
    (calc,) = out.calculations
    assert calc.rows == [[expected(name, op)]]
    # the average is a plan of its own over every row, beside them (on []), not a number written in
    (join,) = calc.plan["joins"]
    nested = {d["alias"]: d["plan"] for d in calc.plan["datasets"] if "plan" in d}
    assert join["on"] == [] and join["alias"] in nested
    (mean,) = nested[join["alias"]]["aggregates"]
    assert mean["fn"] == "avg" and mean["column"] == column


@pytest.mark.parametrize(
    "task",
    [
        "how many players of team Red have more points than the average?",  # Red's average, or everyone's?
        "how many players have more points than the average in 2020?",
    ],
)
def test_an_average_of_rows_narrowed_otherwise_is_not_guessed(ns, task):
    out = ns.synthesize(task, ["points.csv"])
    assert out.abstain


def test_the_average_itself_is_still_an_average(ns):
    out = ns.synthesize("what is the average points?", ["points.csv"])
    assert not out.abstain and Decimal(str(out.calculations[0].rows[0][0])) == Decimal("17.5")
