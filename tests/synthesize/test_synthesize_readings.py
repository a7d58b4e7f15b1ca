"""Three readings of the built-in proposer (issue 32), each a rule asked of tables written here in
several shapes (integers and decimals, columns in other orders, delimiters ',' ';' and tab, a row
that totals the others in English or German, names with accents and with the characters a `like`
pattern reads), in several wordings; every expected answer is worked out here from the rows:

- a text in the cells, "names containing 'son'", "towns ending in 'burg'", "'United' in their
  name": a `like` filter, case ignored, with `%`, `_` and `\\` in the text taken as written;
- a part of a total, "what share of the total points did Ada have", "what percentage of …": the
  total of the rows named over the total of every row. The share is the plan language's `div`, a
  DOUBLE: it equals Python's float(part) / float(whole) of the two exact totals (asserted exactly,
  the totals as Decimal), and "percentage" answers float(part * 100) / float(whole);
- rows against a row the task names, "how many players have more points than Bob", "which peaks
  are higher than Lhotse": the named row must be exactly one row.

Where the words leave the answer open (no column said, a word that may describe rather than
quote, other words narrowing the rows, a named value of several rows or of none, a column that
is no number), the engine must abstain."""

from __future__ import annotations

from decimal import Decimal

import pytest
from synth_engine import tables_namespace

TABLES = {
    # name: (delimiter, header, rows); a row whose label is Total or Gesamt totals the others
    "players": (
        ",",
        ["Player", "Team", "Points"],
        [
            ["Ada Wilson", "Red", "10"],
            ["Bob Jackson", "Blue", "30"],
            ["Cy Dunn", "Red", "25"],
            ["Dee Sonny", "Green", "5"],
            ["Eve Adams", "Blue", "18"],
            ["Fay Ross", "Green", "18"],
            ["Total", "", "106"],
        ],
    ),
    "towns": (
        ";",
        ["Area", "Town", "Region"],
        [
            ["12.50", "Hamburg", "North"],
            ["3.75", "Augsburg", "South"],
            ["8.20", "Oldenburg", "North"],
            ["1.10", "Bremen", "North"],
            ["5.05", "Freiburg", "South"],
            ["30.60", "Gesamt", ""],
        ],
    ),
    "peaks": (
        "\t",
        ["Rank", "Peak", "Height", "Range"],
        [
            ["1", "Everest", "8848", "Mahalangur"],
            ["2", "K2", "8611", "Karakoram"],
            ["3", "Kangchenjunga", "8586", "Kangchenjunga"],
            ["4", "Lhotse", "8516", "Mahalangur"],
            ["5", "Makalu", "8485", "Mahalangur"],
        ],
    ),
    "clubs": (
        ",",
        ["Club", "Country", "Goals", "Titles"],
        [
            ["Bayern München", "Germany", "80.5", "Bundesliga"],
            ["Borussia Dortmund", "Germany", "64.25", "Bundesliga"],
            ["Saint-Étienne", "France", "41.0", "Ligue 1"],
            ["FC Zürich", "Switzerland", "37.75", "Super League"],
            ["Grasshopper Club Zürich", "Switzerland", "29.5", "Super League"],
        ],
    ),
    "codes": (
        ",",
        ["Code", "Offer", "Stock"],
        [
            ["A_1", "50% off", "4"],
            ["A11", "500 off", "7"],
            ["B\\2", "Half price", "2"],
            ["B2", "10% off", "9"],
        ],
    ),
}
# Each table's words: its rows' noun (the label column's), the label column, a number column and
# the word for it, a column of groups.
WORDS = {
    "players": ("players", "Player", "Points", "points", "Team"),
    "towns": ("towns", "Town", "Area", "area", "Region"),
    "peaks": ("peaks", "Peak", "Height", "height", "Range"),
    "clubs": ("clubs", "Club", "Goals", "goals", "Country"),
    "codes": ("codes", "Code", "Stock", "stock", "Offer"),
}
TOTAL_LABELS = {"total", "gesamt"}


@pytest.fixture(scope="module")
def ns(tmp_path_factory):
    tables = [(name, delimiter, header, rows) for name, (delimiter, header, rows) in TABLES.items()]
    with tables_namespace(tmp_path_factory.mktemp("readings"), tables) as ns:
        yield ns


def rows_of(name: str) -> list[dict]:
    """The table's rows as dicts, without the row that totals the others."""
    _, header, rows = TABLES[name]
    return [dict(zip(header, r)) for r in rows if not any(cell.lower() in TOTAL_LABELS for cell in r)]


def answered(ns, name: str, task: str):
    out = ns.synthesize(task, [f"{name}.csv"])
    assert not out.abstain, (task, out.abstain_reason, out.clarification)
    (calc,) = out.calculations
    return calc


def listed(ns, name: str, task: str) -> list:
    """The rows a "which …" task lists, sorted; none is an abstention that says no row matched."""
    out = ns.synthesize(task, [f"{name}.csv"])
    if out.abstain_reason == "empty_answer":
        return []
    assert not out.abstain, (task, out.abstain_reason, out.clarification)
    return sorted(answer(out.calculations[0]))


def answer(calc) -> list:
    """The values of the answer column, one per result row."""
    k = [c.name for c in calc.columns].index(calc.answer_columns[0])
    return [row[k] for row in calc.rows]


# 1. a text in the cells -----------------------------------------------------------------------

HOLDS = {
    "contains": lambda cell, text: text in cell,
    "starts": lambda cell, text: cell.startswith(text),
    "ends": lambda cell, text: cell.endswith(text),
}
# (test, negated, wording); {noun} the rows, {text} the text as the task writes it
LIKE_WORDINGS = [
    ("contains", False, "how many {noun} have names containing '{text}'?"),
    ("contains", False, 'which {noun} have "{text}" in their name?'),
    ("contains", False, "list the {noun} whose names contain ‘{text}’"),
    ("contains", True, "how many {noun} do not contain '{text}'?"),
    ("contains", True, "which {noun} don't have '{text}' in their name?"),
    ("starts", False, "how many {noun} start with '{text}'?"),
    ("starts", False, "which {noun} begin with the letters “{text}”?"),
    ("starts", True, "how many {noun} do not start with '{text}'?"),
    ("ends", False, "list the {noun} ending in '{text}'"),
    ("ends", False, "how many {noun} have names that end with '{text}'?"),
    ("ends", True, "which {noun} don't end in '{text}'?"),
]
# The texts tested in each table (inputs; the answers are worked out from the rows).
TEXTS = {
    "players": {"contains": ["son", "JACK", "y"], "starts": ["e", "Bob J"], "ends": ["n", "Sonny"]},
    "towns": {"contains": ["en"], "starts": ["Ham", "Au"], "ends": ["burg"]},
    "peaks": {"contains": ["ng", "2"], "starts": ["K"], "ends": ["u"]},
    "clubs": {"contains": ["Zürich", "ü", "dort"], "starts": ["Borussia"], "ends": ["ich"]},
    # characters a like pattern reads: each must be taken as written
    "codes": {"contains": ["_1", "\\"], "starts": ["A_"], "ends": ["\\2", "_1"]},
}


def like_cases():
    for name, tests in TEXTS.items():
        for op, texts in tests.items():
            for text in texts:
                for wording_op, negated, wording in LIKE_WORDINGS:
                    if wording_op == op:
                        yield name, op, negated, wording, text


def matching(name: str, op: str, negated: bool, text: str) -> list[str]:
    label = WORDS[name][1]
    return sorted(r[label] for r in rows_of(name) if HOLDS[op](r[label].lower(), text.lower()) != negated)


@pytest.mark.parametrize("name, op, negated, wording, text", list(like_cases()))
def test_rows_whose_names_hold_a_text(ns, name, op, negated, wording, text):
    task = wording.format(noun=WORDS[name][0], text=text)
    want = matching(name, op, negated, text)
    if not task.startswith("how many"):
        assert listed(ns, name, task) == want, task
        return
    calc = answered(ns, name, task)
    assert answer(calc) == [len(want)], task
    tests = [f for f in calc.plan["where"] for f in (f.get("any") or [f]) if f.get("op") in ("like", "not_like")]
    assert [t["ignore_case"] for t in tests] == [True], "text compares without case, as equality does"


def test_the_pattern_takes_percent_underscore_and_backslash_as_written(ns):
    # "_" would match any one character ('A11'), "%" any run ('500 off'): escaped, they do not
    assert answer(answered(ns, "codes", "how many codes contain '_1'?")) == [1]
    assert listed(ns, "codes", "which offers contain '0%'?") == sorted(
        r["Offer"] for r in rows_of("codes") if "0%" in r["Offer"]
    )
    assert listed(ns, "codes", "which codes end in '\\2'?") == ["B\\2"]


def test_a_clear_word_unquoted_is_read_as_the_text(ns):
    for task, name, op, text in [
        ("which towns end in burg?", "towns", "ends", "burg"),
        ("how many players start with the letter e?", "players", "starts", "e"),
        ("how many peaks start with a k?", "peaks", "starts", "k"),
        ("how many clubs contain the word zürich?", "clubs", "contains", "zürich"),
    ]:
        want = matching(name, op, False, text)
        if task.startswith("how many"):
            assert answer(answered(ns, name, task)) == [len(want)], task
        else:
            assert listed(ns, name, task) == want, task


def test_a_text_test_with_other_filters_keeps_the_rows_that_pass_both(ns):
    want = [r for r in rows_of("players") if r["Team"] == "Red" and "son" in r["Player"].lower()]
    assert answer(answered(ns, "players", "how many players of team red have names containing 'son'?")) == [len(want)]
    want = [r for r in rows_of("towns") if r["Region"] == "North" and r["Town"].lower().endswith("burg")]
    assert answer(answered(ns, "towns", "how many towns in the north region end in 'burg'?")) == [len(want)]


@pytest.mark.parametrize(
    "name, task",
    [
        ("players", "how many rows contain 'son'?"),  # in which column?
        ("players", "how many have names containing 'son'?"),
        ("players", "how many points contain '1'?"),  # no column of text
        ("players", "how many players have names that begin with a vowel?"),  # a description, not the text
        ("towns", "which towns end in numbers?"),
        ("towns", "how many towns end in 'burg' and have more area than the average?"),  # whose average?
        ("players", "how many players with 'son' in their name have more points than Eve Adams?"),
        ("clubs", "how many clubs have 'saint etienne' in their name?"),  # 'Saint-Étienne': written another way
        ("clubs", "how many clubs start with 'Borussia D' or 'FC'?"),
    ],
)
def test_a_text_test_the_words_leave_open_is_not_guessed(ns, name, task):
    out = ns.synthesize(task, [f"{name}.csv"])
    assert out.abstain, (task, out.calculations and out.calculations[0].rows)


def test_a_text_that_is_a_cell_of_another_column_is_asked_about_unless_the_column_is_named(ns, tmp_path):
    text = "Album,Track\nHelp!,Yesterday\nYesterday and Today,Drive My Car\nRevolver,Taxman\n"
    (tmp_path / "tracks.csv").write_text(text, encoding="utf-8")
    assert ns.ingest_file(tmp_path / "tracks.csv", source_uri="tracks.csv").state == "ready"
    # the album with the track Yesterday, or the one whose title holds the word?
    assert ns.synthesize("which album contains 'yesterday'?", ["tracks.csv"]).abstain_reason == "ambiguous"
    albums = [line.split(",")[0] for line in text.splitlines()[1:]]
    want = sorted(a for a in albums if "yesterday" in a.lower())
    assert listed(ns, "tracks", "which albums have 'yesterday' in their name?") == want


def test_a_word_whole_in_some_cells_and_part_of_others_is_asked_about(ns, tmp_path):
    # 'The' starts 'The Sea' as a word and 'Theory' as letters: which is meant is not said
    (tmp_path / "films.csv").write_text("Title,Year\nThe Sea,1990\nTheory,1991\nNight,1992\n", encoding="utf-8")
    assert ns.ingest_file(tmp_path / "films.csv", source_uri="films.csv").state == "ready"
    out = ns.synthesize("how many titles start with 'The'?", ["films.csv"])
    assert out.abstain_reason == "ambiguous", out.clarification
    # the letters, said so, are letters
    got = answer(answered(ns, "films", "how many titles start with the letters 'the'?"))
    assert got == [sum(1 for t in ("The Sea", "Theory", "Night") if t.lower().startswith("the"))]


# 2. a part of a total -------------------------------------------------------------------------

SHARE_WORDINGS = [
    ("share", "what share of the total {num} did {name} have?"),
    ("share", "what fraction of all {num} does {name} have?"),
    ("share", "what proportion of the {num} did {name} have?"),
    ("percentage", "what percentage of the {num} did {name} have?"),
    ("percentage", "what percent of the total {num} does {name} have?"),
]
# The rows named (a row by its label, or a group by its column), each an input.
SHARED = {
    "players": [("Player", "Ada Wilson"), ("Player", "Eve Adams"), ("Team", "Red"), ("Team", "Blue")],
    "towns": [("Town", "Bremen"), ("Town", "Hamburg"), ("Region", "South")],
    "peaks": [("Peak", "Everest"), ("Range", "Mahalangur")],
    "clubs": [("Club", "Saint-Étienne"), ("Country", "Germany"), ("Country", "Switzerland")],
}


def shares():
    for name, named in SHARED.items():
        for column, value in named:
            for per, wording in SHARE_WORDINGS:
                yield name, column, value, per, wording


@pytest.mark.parametrize("name, column, value, per, wording", list(shares()))
def test_a_rows_part_of_the_whole_columns_total(ns, name, column, value, per, wording):
    _, _, measure, word, _ = WORDS[name]
    calc = answered(ns, name, wording.format(num=word, name=value))
    rows = rows_of(name)
    part = sum((Decimal(r[measure]) for r in rows if r[column].lower() == value.lower()), Decimal(0))
    whole = sum((Decimal(r[measure]) for r in rows), Decimal(0))  # the Total row left out
    (row,) = calc.rows
    got = dict(zip([c.name for c in calc.columns], row))
    assert Decimal(str(got["part"])) == part and Decimal(str(got["whole"])) == whole
    # the quotient is a DOUBLE: exactly the float division of the two exact totals
    want = float(part * 100) / float(whole) if per == "percentage" else float(part) / float(whole)
    assert calc.answer_columns == [per] and got[per] == want
    assert abs(Decimal(got[per]) - (100 if per == "percentage" else 1) * part / whole) < Decimal("1e-12")


@pytest.mark.parametrize(
    "name, task",
    [
        ("players", "what share of the total points did Ada Wilson have in 2020?"),  # of which total?
        ("players", "what share of the points of players with more than 5 points did Ada Wilson have?"),
        ("players", "what share of the total points did Zed Quinn have?"),  # no such row
        ("players", "what share of the total teams did Ada Wilson have?"),  # Team is no number
        ("players", "what share of the total points?"),  # whose part?
        ("players", "what share of the total points did players other than Ada Wilson have?"),
        ("towns", "what share of the total area do towns ending in 'burg' have?"),  # a part named by a text: not read
        ("peaks", "what share of the height does Kangchenjunga have?"),  # a peak and a range
    ],
)
def test_a_share_the_words_leave_open_is_not_guessed(ns, name, task):
    out = ns.synthesize(task, [f"{name}.csv"])
    assert out.abstain, (task, out.calculations and out.calculations[0].rows)


def test_a_table_with_shares_of_its_own_or_negative_values_is_not_divided(ns, tmp_path):
    # an election's table lists its candidates' percentages: its rows may not be every vote cast
    (tmp_path / "poll.csv").write_text("Candidate,Votes,%\nSmith,1200,48.0\nJones,980,39.2\n", encoding="utf-8")
    (tmp_path / "ledger.csv").write_text("Desk,Profit\nNorth,120\nSouth,-40\nWest,70\n", encoding="utf-8")
    for name in ("poll", "ledger"):
        assert ns.ingest_file(tmp_path / f"{name}.csv", source_uri=f"{name}.csv").state == "ready"
    assert ns.synthesize("what percentage of the votes did Smith get?", ["poll.csv"]).abstain
    assert ns.synthesize("what share of the total profit did North have?", ["ledger.csv"]).abstain


def test_each_groups_share_is_still_a_window_and_a_percentage_is_per_hundred(ns):
    rows = rows_of("players")
    whole = sum(Decimal(r["Points"]) for r in rows)
    for task, per in [("share of points by team", "share"), ("percentage of points by team", "percentage")]:
        calc = answered(ns, "players", task)
        names = [c.name for c in calc.columns]
        assert calc.answer_columns[-1] == per
        for row in calc.rows:
            got = dict(zip(names, row))
            part = sum(Decimal(r["Points"]) for r in rows if r["Team"] == got["Team"])
            assert Decimal(str(got["sum_Points"])) == part
            assert abs(Decimal(got[per]) - (100 if per == "percentage" else 1) * part / whole) < Decimal("1e-12")


# 3. rows against a row the task names ---------------------------------------------------------

THAN_WORDINGS = [
    ("eq", "how many {noun} have the same {num} as {name}?"),
    ("eq", "which {noun} have the same {num} as {name}?"),
    ("gt", "how many {noun} have more {num} than {name}?"),
    ("gt", "which {noun} have a larger {num} than {name}?"),
    ("gt", "how many {noun} have a higher {num} than {name}?"),
    ("lt", "how many {noun} have fewer {num} than {name}?"),
    ("lt", "which {noun} have less {num} than {name}?"),
    ("lt", "which {noun} have a smaller {num} than {name}?"),
]
SIZE_WORDINGS = [
    ("gt", "which peaks are higher than {name}?"),
    ("gt", "how many peaks are taller than {name}?"),
    ("lt", "which peaks are lower than {name}?"),
    ("lt", "how many peaks are shorter than {name}?"),
]
ANCHORS = {
    "players": ["Ada Wilson", "Bob Jackson", "Eve Adams", "Fay Ross"],
    "towns": ["Oldenburg", "Bremen"],
    "peaks": ["Everest", "Lhotse", "K2"],
    "clubs": ["FC Zürich", "Borussia Dortmund"],
}


def compared(name: str, anchor: str, op: str) -> list[str]:
    """The labels of the rows (the named one aside) whose number is the same as (eq), more (gt) or
    less (lt) than the one row named."""
    _, label, measure, _, _ = WORDS[name]
    rows = rows_of(name)
    (value,) = [Decimal(r[measure]) for r in rows if r[label].lower() == anchor.lower()]
    test = {"eq": Decimal.__eq__, "gt": Decimal.__gt__, "lt": Decimal.__lt__}[op]
    return sorted(r[label] for r in rows if r[label].lower() != anchor.lower() and test(Decimal(r[measure]), value))


def than_cases():
    for name, anchors in ANCHORS.items():
        for anchor in anchors:
            for op, wording in THAN_WORDINGS + (SIZE_WORDINGS if name == "peaks" else []):
                yield name, anchor, op, wording


@pytest.mark.parametrize("name, anchor, op, wording", list(than_cases()))
def test_rows_more_or_less_than_a_named_row(ns, name, anchor, op, wording):
    noun, label, _, word, _ = WORDS[name]
    task = wording.format(noun=noun, num=word, name=anchor)
    want = compared(name, anchor, op)
    if task.startswith("how many"):
        assert answer(answered(ns, name, task)) == [len(want)], task
    else:
        assert listed(ns, name, task) == want, task


@pytest.mark.parametrize(
    "name, task",
    [
        ("players", "how many players have more points than Red?"),  # Red is two rows
        ("players", "which players have more points than Blue?"),
        ("players", "how many players have more points than Zed Quinn?"),  # no such row
        ("players", "how many players have more teams than Ada Wilson?"),  # Team is no number
        ("players", "how many players of team red have more points than Eve Adams?"),  # must Eve be Red?
        ("players", "how many players have more points than Eve Adams in 2020?"),
        ("peaks", "how many peaks are higher than Kangchenjunga?"),  # a peak and a range
        ("peaks", "which peaks ranked higher than Lhotse?"),  # a place won, not a height
        ("towns", "how many towns have more population than Bremen?"),  # no such column
    ],
)
def test_a_comparison_the_words_leave_open_is_not_guessed(ns, name, task):
    out = ns.synthesize(task, [f"{name}.csv"])
    assert out.abstain, (task, out.calculations and out.calculations[0].rows)


def test_a_named_row_without_the_value_compares_with_nothing(ns, tmp_path):
    (tmp_path / "gaps.csv").write_text("Player,Points\nAda,10\nBob,\nCy,25\n", encoding="utf-8")
    assert ns.ingest_file(tmp_path / "gaps.csv", source_uri="gaps.csv").state == "ready"
    out = ns.synthesize("how many players have more points than Bob?", ["gaps.csv"])
    assert out.abstain_reason == "empty_answer", out.clarification
