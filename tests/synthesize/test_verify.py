"""The independent check of a reading (synthesize/verify.py), from the plan and its rows alone,
whichever proposer wrote the plan. Each rule is tried on plans of several shapes: the ones it must
refuse and the ones beside them it must let through. The oracle is the rule's own statement."""

from __future__ import annotations

import pytest

from tabular.synthesize.answer import answer_columns
from tabular.synthesize.schemas import ColumnSchema, DatasetSchema
from tabular.synthesize.verify import PLACEHOLDERS, identifier_like, refused


def col(name, type_="string", unique=False, distinct=10, lo=None, hi=None, physical=None):
    physical = physical or {"string": "VARCHAR", "number": "BIGINT"}.get(type_, "DATE")
    return ColumnSchema("t", name, type_, physical, unique, distinct, lo, hi)


def table(*columns, rows=10):
    return [DatasetSchema("t", "t.csv", "t", "s1", rows, tuple(columns))]


ATHLETES = table(
    col("Name", unique=True),
    col("Nation"),
    col("Event"),
    col("No.", "number", unique=True, distinct=10, lo=1, hi=10),
    col("Year", "number", lo=1990, hi=2010),
    col("Points", "number", distinct=9, lo=3, hi=90),
    col("Episodes", "number", distinct=8, lo=1, hi=22),
    col("Pos"),
)
DS = [{"source_uri": "t.csv", "alias": "t"}]


def check(task, plan, names, rows, answer=None, schemas=ATHLETES):
    plan = {"datasets": DS, **plan}
    return refused(task, plan, names, rows, answer or answer_columns(plan, names), schemas)


def test_an_answer_that_repeats_the_filter_it_was_given_is_refused():
    plan = {"where": [{"column": "Event", "op": "eq", "value": "Women's singles"}], "group_by": [{"column": "Event"}]}
    assert "repeat the task" in check(
        "which player competed in women's singles?", plan, ["Event"], [["Women's singles"]]
    )
    # the same column read where the filter is on another column is an answer
    plan = {"where": [{"column": "Name", "op": "eq", "value": "Ann Ray"}], "group_by": [{"column": "Event"}]}
    assert check("which event did ann ray compete in?", plan, ["Event"], [["Women's singles"]]) == ""
    # one of two values named, picked by the rows ("was X from A or B?"), is an answer; both back is an echo
    plan = {
        "where": [
            {"column": "Name", "op": "eq", "value": "Ann Ray"},
            {"column": "Nation", "op": "in", "values": ["Peru", "Chile"]},
        ],
        "group_by": [{"column": "Nation"}],
    }
    assert check("was ann ray from peru or chile?", plan, ["Nation"], [["Peru"]]) == ""
    assert "repeat the task" in check("was ann ray from peru or chile?", plan, ["Nation"], [["Peru"], ["Chile"]])


@pytest.mark.parametrize(
    "column, refuse",
    [("No.", True), ("Year", True), ("Points", False)],
)
def test_identifiers_and_years_are_not_added_up_over_several_rows(column, refuse):
    plan = {
        "where": [{"column": "Nation", "op": "eq", "value": "Peru"}],
        "aggregates": [{"fn": "sum", "column": column}],
    }
    why = check(f"what is the total {column.lower()} for peru?", plan, [f"sum_{column}"], [[55]])
    assert bool(why) is refuse and (not refuse or "names or numbers rows" in why)
    # within one row (a column of unique names groups it) the sum is that row's value
    one = {
        "group_by": [{"column": "Name"}],
        "aggregates": [{"fn": "sum", "column": column}],
        "order_by": [{"column": f"sum_{column}"}],
        "limit": 1,
    }
    assert check("which name has the least?", one, ["Name", f"sum_{column}"], [["Ann", 1]]) == ""


def test_what_is_an_identifier():
    assert identifier_like(col("Pick #", "number", unique=True, distinct=30, lo=1, hi=30))
    assert identifier_like(col("Season", "number", lo=1990, hi=2004))
    assert identifier_like(col("Code", "number", distinct=5, lo=100, hi=900))
    # "No. of Barangays" counts barangays; unique amounts that do not run 1 … n measure something
    assert not identifier_like(col("No. of Barangays", "number", unique=True, distinct=12, lo=8, hi=40))
    assert not identifier_like(col("Population", "number", unique=True, distinct=12, lo=100, hi=90_000))
    assert identifier_like(col("column_1", "number", unique=True, distinct=12, lo=1, hi=12))


@pytest.mark.parametrize(
    "task",
    ["is norway above 5 points?", "did norway score 12 points?", "were norway's points 12?", "has norway 12 points?"],
)
def test_a_yes_or_no_task_is_not_answered_with_a_value(task):
    plan = {
        "where": [{"column": "Nation", "op": "eq", "value": "Norway"}],
        "aggregates": [{"fn": "sum", "column": "Points"}],
    }
    assert "yes or no" in check(task, plan, ["sum_Points"], [[12]])
    said = {**plan, "measures": [{"as": "answer", "expr": {"value": "yes"}}]}
    assert check(task, said, ["sum_Points", "answer"], [[12, "yes"]]) == ""


def test_which_of_two_is_answered_with_one_of_the_two():
    plan = {
        "where": [{"column": "Nation", "op": "in", "values": ["Peru", "Chile"]}],
        "aggregates": [{"fn": "max", "column": "Points"}],
    }
    why = check("did he score more points with peru or with chile?", plan, ["max_Points"], [[18]])
    assert "which of two" in why
    ranked = {
        **plan,
        "group_by": [{"column": "Nation"}],
        "order_by": [{"column": "max_Points", "desc": True}],
        "limit": 1,
    }
    assert (
        check("did he score more points with peru or with chile?", ranked, ["Nation", "max_Points"], [["Peru", 18]])
        == ""
    )


@pytest.mark.parametrize("value", [42, "1:24.10", "−11 (72-68-67-70=277)", "2004-05-01"])
def test_who_is_not_answered_with_a_number_a_score_or_a_date(value):
    plan = {"select": [{"column": "Points"}], "order_by": [{"column": "Points", "desc": True}], "limit": 1}
    assert "asks who" in check("who had the top score?", plan, ["Points"], [[value]])
    assert check("who had the top score?", plan, ["Points"], [["Calvin Johnson†"]]) == ""


def test_counting_the_cells_of_a_number_column_is_refused_counting_rows_is_not():
    where = [{"column": "Name", "op": "eq", "value": "Nash Bridges"}]
    plan = {"where": where, "aggregates": [{"fn": "count", "column": "Episodes"}]}
    assert "may itself be how many" in check("how many episodes of nash bridges?", plan, ["count_Episodes"], [[3]])
    rows = {"where": where, "aggregates": [{"fn": "count"}]}
    assert check("how many times is nash bridges listed?", rows, ["count"], [[3]]) == ""
    # a column of years counts the rows that have one: "how many years …"
    years = {"where": where, "aggregates": [{"fn": "count", "column": "Year"}]}
    assert check("how many years was nash bridges on?", years, ["count_Year"], [[6]]) == ""


@pytest.mark.parametrize("word, refuse", [("largest", True), ("longest", True), ("most", False), ("most often", False)])
def test_a_size_word_does_not_rank_by_how_often_a_value_comes(word, refuse):
    plan = {
        "group_by": [{"column": "Event"}],
        "aggregates": [{"fn": "count"}],
        "order_by": [{"column": "count", "desc": True}],
        "limit": 1,
    }
    why = check(f"which event was the {word}?", plan, ["Event", "count"], [["Shot put", 4]])
    assert bool(why) is refuse


@pytest.mark.parametrize(
    "task, refuse",
    [
        ("how many times is astm d 638 listed as the test method?", True),
        ("how many times is astm d 638 or test method listed?", False),
        ("how many are astm d 638, test method and iso 527?", False),
        ("how many more are astm d 638 than test method?", False),
    ],
)
def test_values_taken_together_must_be_joined_by_the_task(task, refuse):
    values = ["ASTM D 638", "Test method"] + (["ISO 527"] if "iso" in task else [])
    plan = {"where": [{"column": "Event", "op": "in", "values": values}], "aggregates": [{"fn": "count"}]}
    assert bool(check(task, plan, ["count"], [[4]])) is refuse


@pytest.mark.parametrize("cell", sorted(PLACEHOLDERS - {""}) + [" – "])
def test_a_placeholder_cell_is_no_answer(cell):
    plan = {"where": [{"column": "Name", "op": "eq", "value": "Ann Ray"}], "group_by": [{"column": "Pos"}]}
    assert "stands for no value" in check("what was ann ray's pos?", plan, ["Pos"], [[cell]])
    assert check("what was ann ray's pos?", plan, ["Pos"], [["5th"]]) == ""


def test_first_and_last_are_of_time_or_the_list_not_of_another_number():
    plan = {"aggregates": [{"fn": "min", "column": "Points"}]}
    assert "no time" in check("what was the first album released?", plan, ["min_Points"], [[6]])
    assert check("what was the lowest points?", plan, ["min_Points"], [[6]]) == ""
    years = {"aggregates": [{"fn": "min", "column": "Year"}]}
    assert check("what was the first year?", years, ["min_Year"], [[1990]]) == ""


def test_the_number_of_the_one_row_is_no_count():
    plan = {
        "where": [{"column": "Nation", "op": "eq", "value": "Slovakia"}],
        "aggregates": [{"fn": "count", "column": "Name"}],
    }
    assert "number the player has" in check(
        "what is the number of the player from slovakia?", plan, ["count_Name"], [[1]]
    )
    assert check("what is the number of players from slovakia?", plan, ["count_Name"], [[1]]) == ""


def test_a_heading_repeated_inside_a_column_of_numbers_is_no_value():
    schemas = table(col("Year", lo="1990", hi="2010"), col("Name"))
    plan = {"where": [{"column": "Year", "op": "eq", "value": "ChairPerson"}], "aggregates": [{"fn": "count"}]}
    assert "heading" in check("how many chairpersons?", plan, ["count"], [[6]], schemas=schemas)
    plan = {"where": [{"column": "Year", "op": "eq", "value": "1999"}], "aggregates": [{"fn": "count"}]}
    assert check("how many in 1999?", plan, ["count"], [[6]], schemas=schemas) == ""


@pytest.mark.parametrize(
    "task, plan, rows, left",
    [
        (
            "how many times was ucla national champion?",
            {"where": [{"column": "Nation", "op": "eq", "value": "UCLA"}], "aggregates": [{"fn": "count"}]},
            [[1]],
            "champion",
        ),
        (
            "who was the first republican representative?",
            {"select": [{"column": "Name"}], "order_by": [{"column": "Year"}], "limit": 1},
            [["Bill Young"]],
            "republican",
        ),
        ("how many episodes were directed by peru?", None, [[3]], "directed"),
        (
            "how many players from peru are goalkeepers?",
            {"where": [{"column": "Nation", "op": "eq", "value": "Peru"}], "aggregates": [{"fn": "count"}]},
            [[3]],
            "goalkeepers",
        ),
    ],
)
def test_a_content_word_the_plan_does_not_place_is_refused(task, plan, rows, left):
    plan = plan or PERU
    names = ["count"] if "aggregates" in plan else ["Name"]
    assert f"'{left}'" in check(task, plan, names, rows)


PERU = {"where": [{"column": "Nation", "op": "eq", "value": "Peru"}], "aggregates": [{"fn": "count"}]}


@pytest.mark.parametrize(
    "task, plan, names",
    [
        ("how many players are from peru?", PERU, ["count"]),
        ("what is the number of athletes from peru?", PERU, ["count"]),
        ("how many players from peru are in this competition?", PERU, ["count"]),
        (
            "how many more points did peru win than chile?",
            {
                "aggregates": [
                    {
                        "fn": "sum",
                        "column": "Points",
                        "where": [{"column": "Nation", "op": "eq", "value": "Peru"}],
                        "as": "first",
                    },
                    {
                        "fn": "sum",
                        "column": "Points",
                        "where": [{"column": "Nation", "op": "eq", "value": "Chile"}],
                        "as": "second",
                    },
                ],
                "measures": [{"as": "difference", "expr": {"sub": ["first", "second"]}}],
            },
            ["first", "second", "difference"],
        ),
        (
            "which nation comes right after peru?",
            {"select": [{"column": "Nation"}], "where": [{"column": "Nation", "op": "ne", "value": "Peru"}]},
            ["Nation"],
        ),
    ],
)
def test_grammar_the_rows_noun_and_the_tables_subject_need_no_place(task, plan, names):
    assert check(task, plan, names, [[f"v{k}" for k in range(len(names))]]) == ""


@pytest.mark.parametrize(
    "task, answer, refuse",
    [
        ("which building was the first completed?", [["1958"]], True),
        ("what team scored first?", [["2004-05-01"]], True),
        ("which year was the first completed?", [["1958"]], False),
        ("what score did he finish with?", [["−11"]], False),
        ("which building was the first completed?", [["Lindsay Chapel"]], False),
    ],
)
def test_which_thing_is_not_answered_with_a_number_unless_the_thing_is_one(task, answer, refuse):
    plan = {"select": [{"column": "Pos"}], "order_by": [{"column": "Year"}], "limit": 1}
    assert bool(check(task, plan, ["Pos"], answer)) is refuse


def test_counting_plural_things_does_not_add_a_column_named_for_one_of_them():
    schemas = table(col("Election", "number", distinct=8, lo=1976, hi=2004), col("Goals", "number", lo=0, hi=9))
    plan = {"aggregates": [{"fn": "sum", "column": "Election"}]}
    assert "count the rows" in check(
        "what is the total number of elections?", plan, ["sum_Election"], [[15805]], schemas=schemas
    )
    goals = {"aggregates": [{"fn": "sum", "column": "Goals"}]}
    assert check("how many goals were scored?", goals, ["sum_Goals"], [[24]], schemas=schemas) == ""


def test_who_did_it_is_read_from_the_column_named_for_the_doing():
    schemas = table(col("Title", unique=True), col("Producer"), col("Length"))
    plan = {"select": [{"column": "Title"}], "measures": [{"as": "position", "window": {"fn": "row_number"}}]}
    assert "Producer says it" in check(
        "who produced the last track?", plan, ["Title", "position"], [["Thug", 17]], ["Title"], schemas
    )
    plan = {"select": [{"column": "Producer"}], "measures": [{"as": "position", "window": {"fn": "row_number"}}]}
    assert (
        check("who produced the last track?", plan, ["Producer", "position"], [["Al West", 17]], ["Producer"], schemas)
        == ""
    )
    # no column is named for the verb: nothing to read it from instead
    assert check("who finished last?", plan, ["Producer", "position"], [["Al West", 17]], ["Producer"], schemas) == ""


SONGS = table(
    col("No.", "number", unique=True, distinct=3, lo=1, hi=3),
    col("Title", unique=True),
    col("Original Album"),
    col("Studio album"),
    col("Artist"),
)


def _after(column, value, read):
    """The plan of "the one after X" (kinds/row_order.py's shape): X's row found by a case in a measure."""
    return {
        "select": [{"column": read}],
        "measures": [
            {"as": "position", "window": {"fn": "row_number"}},
            {
                "as": "anchor",
                "expr": {"case": [{"when": {"column": column, "op": "eq", "value": value}, "then": "position"}]},
            },
        ],
        "having": [{"column": "position", "op": "eq", "value": 2}],
    }


def test_an_answer_cell_of_several_lines_is_refused():
    plan = {"where": [{"column": "Name", "op": "eq", "value": "Ann Ray"}], "group_by": [{"column": "Event"}]}
    for cell in ("South Kynouria\n(Notia Kynouria)", "Idaho Power Building\n\n\n\nin Downtown Boise", "A\r\nB"):
        assert "several lines" in check("what event did ann ray compete in?", plan, ["Event"], [[cell]])
    # one line, or a line break with nothing after it, is one value
    for cell in ("South Kynouria", "Idaho Power Building\n", "  \nMesseturm"):
        assert check("what event did ann ray compete in?", plan, ["Event"], [[cell]]) == ""
    # an evidence column of several lines is not the answer
    plan = {
        "where": [{"column": "Name", "op": "eq", "value": "Ann Ray"}],
        "select": [{"column": "Event"}, {"column": "Pos"}],
    }
    assert check("what event did ann ray compete in?", plan, ["Event", "Pos"], [["Relay", "1\n2"]], ["Event"]) == ""


def test_an_answer_column_named_in_part_beside_a_row_found_elsewhere_is_refused():
    names = ["Original Album", "position", "anchor"]
    why = check(
        "which album came after sally sendiri?",
        _after("Title", "Sally Sendiri", "Original Album"),
        names,
        [["Romantis", 2, None]],
        ["Original Album"],
        SONGS,
    )
    assert "Original Album" in why and "Title" in why
    # another column name and language of the words: "studio" unsaid, the row found by its Title
    why = check(
        "which album came after rain song?",
        _after("Title", "Rain Song", "Studio album"),
        ["Studio album", "position", "anchor"],
        [["Harbour", 2, None]],
        ["Studio album"],
        SONGS,
    )
    assert "Studio album" in why
    # a lookup the same way: the row found by its Artist
    plan = {"where": [{"column": "Artist", "op": "eq", "value": "Rita"}], "group_by": [{"column": "Original Album"}]}
    assert "Original Album" in check(
        "what album did rita sing on?", plan, ["Original Album"], [["Romantis"]], None, SONGS
    )
    # named whole; the row found in the answer's own column; or no row found by a value: answered
    assert (
        check(
            "which original album came after sally sendiri?",
            _after("Title", "Sally Sendiri", "Original Album"),
            names,
            [["Romantis", 2, None]],
            ["Original Album"],
            SONGS,
        )
        == ""
    )
    assert (
        check(
            "which title came after sally sendiri?",
            _after("Title", "Sally Sendiri", "Title"),
            ["Title", "position", "anchor"],
            [["Topeng", 2, None]],
            ["Title"],
            SONGS,
        )
        == ""
    )
    plan = {
        "select": [{"column": "Original Album"}],
        "measures": [{"as": "position", "window": {"fn": "row_number"}}],
        "having": [{"column": "position", "op": "eq", "value": 1}],
    }
    assert (
        check(
            "which album is listed first?",
            plan,
            ["Original Album", "position"],
            [["Romantis", 1]],
            ["Original Album"],
            SONGS,
        )
        == ""
    )


def test_a_row_beside_a_named_row_among_filtered_rows_is_refused():
    plan = _after("Name", "Nate Boyle", "Name") | {
        "where": [{"column": "Nation", "op": "eq", "value": "United States"}]
    }
    names = ["Name", "position", "anchor"]
    assert "Nation" in check(
        "who finished after nate boyle for the united states?", plan, names, [["Mark Johnston", 2, None]], ["Name"]
    )
    # a number compared keeps rows too
    plan = _after("Name", "Nate Boyle", "Name") | {"where": [{"column": "Year", "op": "ge", "value": 2000}]}
    assert "Year" in check(
        "who finished after nate boyle since 2000?", plan, names, [["Mark Johnston", 2, None]], ["Name"]
    )
    # the same value as a named row (kinds/same_as.py's shape) among filtered rows
    plan = {
        "where": [{"column": "Points", "op": "not_null"}, {"column": "Nation", "op": "eq", "value": "Peru"}],
        "select": [{"column": "Name"}, {"column": "Points"}],
        "measures": [
            {
                "as": "anchor",
                "expr": {"case": [{"when": {"column": "Name", "op": "eq", "value": "Ann Ray"}, "then": "Points"}]},
            },
            {"as": "anchor_value", "window": {"fn": "max", "of": "anchor"}},
        ],
    }
    assert "Nation" in check(
        "who from peru had the same points as ann ray?",
        plan,
        ["Name", "Points", "anchor", "anchor_value"],
        [["Bea Cole", 40, None, 40]],
        ["Name"],
    )
    # no filter but the one that keeps rows that have a value: answered
    assert (
        check(
            "who finished after nate boyle?",
            _after("Name", "Nate Boyle", "Name"),
            names,
            [["Ole Berg", 2, None]],
            ["Name"],
        )
        == ""
    )


def test_a_unit_in_the_answer_column_is_no_part_of_its_name():
    """ "What is the height of Gamma" over Height ft, the row found by its Building: the task names
    the whole column; a unit in a name (ft, km, kg) says how it is measured, not what it is."""
    towers = table(
        col("Building", unique=True),
        col("Height ft", "number", lo=250, hi=410),
        col("Area km2", "number", lo=1, hi=90),
        col("Weight (kg)", "number", lo=1, hi=90),
        col("Roof height", "number", lo=200, hi=400),
    )
    for task, column in (
        ("what is the height of gamma?", "Height ft"),
        ("what is the area of gamma?", "Area km2"),
        ("what is the weight of gamma?", "Weight (kg)"),
    ):
        plan = {"where": [{"column": "Building", "op": "eq", "value": "Gamma"}], "group_by": [{"column": column}]}
        assert check(task, plan, [column], [[300]], [column], towers) == "", task
    # a word of the name that is no unit, unsaid, still leaves the column named in part
    plan = {"where": [{"column": "Building", "op": "eq", "value": "Gamma"}], "group_by": [{"column": "Roof height"}]}
    assert "Roof height" in check("what is the height of gamma?", plan, ["Roof height"], [[300]], None, towers)


def test_a_count_kept_to_one_row_by_a_column_of_unique_names_is_refused():
    # a chat model's plan: "how many medals did kenya win" as the rows of Kenya, one row per name
    plan = {"where": [{"column": "Name", "op": "eq", "value": "Kenya"}], "aggregates": [{"fn": "count"}]}
    assert "at most one row" in check("how many medals did kenya win?", plan, ["count"], [[1]])
    plan = {
        "where": [{"column": "Name", "op": "eq", "value": "Ann Ray"}, {"column": "Event", "op": "eq", "value": "Pole"}],
        "aggregates": [{"fn": "count_distinct", "column": "Pos"}],
    }
    assert "Name" in check("how many places did ann ray win in pole?", plan, ["count_distinct_Pos"], [[1]])
    # a column whose names repeat (Nation), or a year, counts rows
    plan = {"where": [{"column": "Nation", "op": "eq", "value": "Kenya"}], "aggregates": [{"fn": "count"}]}
    assert check("how many athletes are from kenya?", plan, ["count"], [[3]]) == ""
    plan = {"where": [{"column": "No.", "op": "eq", "value": 4}], "aggregates": [{"fn": "count"}]}
    assert "at most one row" not in check("how many athletes wore no. 4?", plan, ["count"], [[1]])


SURFACES = [
    DatasetSchema(
        "t",
        "t.csv",
        "t",
        "s1",
        8,
        (
            ColumnSchema("t", "Tournament", "string", "VARCHAR", True, 8),
            ColumnSchema("t", "Surface", "string", "VARCHAR", False, 4, values=("Hard", "Hard (i)", "Clay", "Grass")),
            ColumnSchema("t", "Belag", "string", "VARCHAR", False, 3, values=("Sand", "Rasen", "sand")),
            ColumnSchema(
                "t", "Genre", "string", "VARCHAR", False, 3, values=("Comedy", "Comedy, drama", "Drama\nComedy")
            ),
            ColumnSchema("t", "City", "string", "VARCHAR", False, 3, values=("Lyon [4]", "Lyon (Rhône)", "Nice")),
        ),
    )
]


def test_a_value_found_whole_beside_the_same_value_with_a_note_is_refused():
    plan = {"where": [{"column": "City", "op": "eq", "value": "Lyon (Rhône)"}], "aggregates": [{"fn": "count"}]}
    assert "Lyon [4]" in check("how many tournaments were in lyon?", plan, ["count"], [[2]], ["count"], SURFACES)
    # the row a measure names (the one after X) is a test of a value too
    plan = {
        "measures": [
            {
                "as": "anchor",
                "expr": {"case": [{"when": {"column": "City", "op": "eq", "value": "Lyon [4]"}, "then": 1}]},
            }
        ],
        "select": [{"column": "Tournament"}],
    }
    assert "Lyon (Rhône)" in check("which tournament came after lyon?", plan, ["Tournament"], [["B"]], None, SURFACES)
    plan = {"where": [{"column": "City", "op": "eq", "value": "Nice"}], "aggregates": [{"fn": "count"}]}
    assert "note" not in check("how many tournaments were in nice?", plan, ["count"], [[2]], ["count"], SURFACES)


def test_a_column_compared_with_another_is_no_value_found_whole():
    # {"op": "eq", "other": ...} holds no value (a chat model's plan): no note to look for, no crash
    plan = {"where": [{"column": "City", "op": "eq", "other": "Surface"}], "aggregates": [{"fn": "count"}]}
    why = check(
        "how many tournaments were in a city named as their surface?", plan, ["count"], [[2]], ["count"], SURFACES
    )
    assert "note" not in why


def test_both_spellings_tested_by_the_plan_are_taken_together_already():
    task = "how many tournaments were in lyon (rhône) or lyon [4]?"
    plan = {
        "where": [{"column": "City", "op": "in", "values": ["Lyon (Rhône)", "Lyon [4]"]}],
        "aggregates": [{"fn": "count"}],
    }
    assert check(task, plan, ["count"], [[2]], ["count"], SURFACES) == ""
    # the same as two tests of the column under an any (a chat model's plan)
    either = [{"column": "City", "op": "eq", "value": v} for v in ("Lyon (Rhône)", "Lyon [4]")]
    plan = {"where": [{"any": either}], "aggregates": [{"fn": "count"}]}
    assert check(task, plan, ["count"], [[2]], ["count"], SURFACES) == ""
    # one of them under the any, the other left out, is still refused
    plan = {
        "where": [{"any": either[:1] + [{"column": "City", "op": "eq", "value": "Nice"}]}],
        "aggregates": [{"fn": "count"}],
    }
    assert "Lyon [4]" in check(task, plan, ["count"], [[2]], ["count"], SURFACES)
