"""The one pass's cheap guards (issue 58) read every cell as their slower forms do.

(The module tests onepass.iso_date, tally.string_text and tally.maybe_blank, and the byte test
before duckcsv.regular's regexes.)

A guard's fast way is a few byte comparisons where the slow way trims a cell or writes a value
back as text; each is checked here against the rule it stands for on look-alike cells (spaces of
every kind, dates DuckDB's cast reads leniently), in DuckDB itself, and end to end: a file whose
look-alikes come after the sample publishes what the careful way publishes.
"""

from __future__ import annotations

import itertools
import re

import duckdb
import pytest
from onepass_cases import write_csv
from sqlglot import exp

from planner.dialect import DIALECT
from tabular import readings as C
from tabular.infer.tally import maybe_blank, string_text
from tabular.ingest.onepass import iso_date
from tabular.read import duckcsv

# Characters a blank is made of by DuckDB's trim (a space, Unicode spaces) and ones it is not
# (a tab, a line break, NEL, letters, a zero-width no-break space).
BLANKS = [" ", "\u00a0", "\u1680", "\u2000", "\u2007", "\u202f", "\u205f", "\u3000"]
OTHERS = ["\t", "\n", "\u0085", "\ufeff", "a", "!", "~", "é", "\u0080", "0"]


def _cells() -> list[str]:
    alphabet = BLANKS[:4] + OTHERS[:6]
    short = ["".join(p) for n in range(4) for p in itertools.product(alphabet, repeat=n)]
    return short + [b * 5 for b in BLANKS] + [" " + o for o in OTHERS] + [" " + b + "x" for b in BLANKS]


def _values(con, expressions: list[exp.Expression], cells: list[str]) -> list[tuple]:
    """Each expression over column c of a table of `cells`, row by row."""
    con.execute("CREATE OR REPLACE TEMP TABLE cells (c VARCHAR)")
    con.executemany("INSERT INTO cells VALUES (?)", [[c] for c in cells])
    select = exp.select(exp.column("c"), *expressions).from_("cells")
    return con.execute(select.sql(dialect=DIALECT)).fetchall()


def test_a_text_cell_is_null_exactly_when_empty_or_blank_after_a_leading_space():
    con = duckdb.connect()
    c = exp.column("c", quoted=True)
    blank = exp.EQ(this=exp.func("trim", c), expression=exp.Literal.string(""))
    rule = exp.or_(
        exp.EQ(this=c, expression=exp.Literal.string("")),
        exp.and_(exp.func("starts_with", c, exp.Literal.string(" ")), blank),
    )
    rows = _values(con, [string_text("c"), rule, string_text("c", spaces=True)], _cells())
    assert len(rows) > 1000
    for cell, got, is_null, kept_spaces in rows:
        assert got == (None if is_null else cell), repr(cell)
        assert kept_spaces == (None if cell == "" else cell), repr(cell)


def test_the_byte_test_lets_every_blank_cell_through():
    # maybe_blank may be true of a cell that is no blank; never false of one that is.
    con = duckdb.connect()
    c = exp.column("c", quoted=True)
    blank = exp.and_(
        exp.NEQ(this=c, expression=exp.Literal.string("")),
        exp.EQ(this=exp.func("trim", c), expression=exp.Literal.string("")),
    )
    rows = _values(con, [blank, maybe_blank(c)], _cells())
    assert any(is_blank for _, is_blank, _ in rows) and not all(may for _, _, may in rows)
    for cell, is_blank, may in rows:
        assert may or not is_blank, repr(cell)


LOOK_ALIKES = [
    "2020-01-31",
    "1999-12-01",
    "1000-01-01",
    "9999-12-31",
    "0999-12-01",
    "0042-01-31",
    "2020-1-01 ",
    "2020-01-1 ",
    "2020-1-1  ",
    " 2020-1-01",
    "2020-1-1",
    "02020-1-1",
    "20201-1-01",
    "-2020-1-01",
    "1-1-1 (BC)",
    "2020-001-1",
    "2020/01/31",
    "2020.01.31",
    "2020 01 31",
    "2020-02-30",
    "2020-13-01",
    "2020-01-01T00",
    "+2020-1-01",
    "2020-01-31 ",
]


def test_an_iso_date_read_by_the_cast_is_the_date_the_reading_reads():
    """Where the comparisons take the cast's value, it is the reading's: every look-alike reads
    the same both ways (or neither reads it)."""
    con = duckdb.connect()
    c = exp.column("c", quoted=True)
    reading = C.reading_from("date", "%Y-%m-%d")
    strict = exp.func("coalesce", C.convert(reading, c, "DATE"), C.convert(reading, exp.func("trim", c), "DATE"))
    rows = _values(con, [iso_date(c, strict), strict, iso_date(c, exp.null())], LOOK_ALIKES)
    fast = [cell for cell, _, _, by_cast in rows if by_cast is not None]
    assert "2020-01-31" in fast and "0999-12-01" not in fast and "2020-1-01 " not in fast
    for cell, got, want, _ in rows:
        assert got == want, cell


@pytest.mark.parametrize(
    "tail",
    [
        ["2020-1-01 ", "0999-12-01", "2020-01-31"],
        ["02020-1-1"],
        ["1-1-1 (BC)"],
        ["2020/01/31"],
    ],
)
def test_a_date_look_alike_past_the_sample_publishes_what_the_careful_way_does(tmp_path, homes, tail):
    head = [f"2024-{1 + i % 12:02d}-{1 + i % 28:02d}" for i in range(40)]
    rows = [[str(i), v, "x"] for i, v in enumerate(head + tail + head, start=1)]
    path = write_csv(tmp_path / "dates.csv", ["id", "day", "note"], rows)
    homes.same(path, 60)


def test_text_that_starts_with_spaces_past_the_sample_publishes_what_the_careful_way_does(tmp_path, homes):
    head = [f"note {i}" for i in range(40)]
    tail = [" leading", "  two", " \u00a0", "\u00a0 x", " ", "\u3000", " !"]
    rows = [[str(i), v, "abc"[i % 3]] for i, v in enumerate(head + tail + head, start=1)]
    rows += [[str(len(rows) + 1), "z", "\u00a0"]]
    path = write_csv(tmp_path / "texts.csv", ["id", "text", "letter"], rows)
    homes.same(path, 60)


def test_the_fast_reader_stops_at_the_rows_it_stopped_at_before_its_byte_test():
    """DuckDB's reader stops (duckcsv.IRREGULAR) at a row whose first cell starts with `#` after
    any whitespace or whose every cell is blank, whatever the byte test lets through first."""
    con = duckdb.connect()
    space = r"[\s\p{Zs}\x{0B}\x{1C}-\x{1F}\x{85}\x{2028}\x{2029}]"  # whitespace as Arrow's trim sees it
    c = exp.column("c", quoted=True)
    rule = exp.or_(
        exp.func("regexp_matches", c, exp.Literal.string(f"^{space}*#")),
        exp.func("regexp_full_match", c, exp.Literal.string(f"{space}*")),
    )
    cells = _cells() + ["#", " #x", "\u3000#", "\x0b", "\x1c#", "\u2028", "$", "!x", '"#', "~", "\x7f", "x#"]
    stopped = {cell for cell, stops in _values(con, [rule], cells) if stops}
    assert {"", "#", " ", "\u3000#"} <= stopped and "x#" not in stopped
    # The check is made row by row: every cell the rule lets through goes through it in one
    # statement, and each cell the rule stops stops a statement of its own.
    con.execute("CREATE OR REPLACE TEMP TABLE one (c VARCHAR)")
    check = exp.select(duckcsv.regular(["c"])).from_("one").sql(dialect=DIALECT)
    passing = [cell for cell in cells if cell not in stopped]
    con.executemany("INSERT INTO one VALUES (?)", [[cell] for cell in passing])
    assert con.execute(check).fetchall() == [(True,)] * len(passing)
    cell = exp.alias_(exp.cast(exp.Placeholder(), "VARCHAR"), "c", quoted=True)
    check_one = exp.select(duckcsv.regular(["c"])).from_(exp.select(cell).subquery("one")).sql(dialect=DIALECT)
    for stops in stopped:
        with pytest.raises(duckdb.Error, match=re.escape(duckcsv.IRREGULAR)):
            con.execute(check_one, [stops]).fetchall()
