"""Rules of the built-in reading tried on tables written here in several shapes and languages
(issue 31): rows that total the others left out whatever language labels them, "first" and
"last" that must agree with the rows' time, a place won read from a column of places as text,
"the same … as X" answered with one of what X is, and the answer's own columns said first.
Each expected answer is worked out by hand from the table above it."""

from __future__ import annotations

import pytest

import tabular

# One medal table per language; its last row totals the others (Gold 12, Silver 10, Bronze 7).
TOTAL_LABELS = [
    "Total",
    "Totals:",
    "Gesamt",
    "Insgesamt",
    "Totaal",
    "Totale",
    "Итого",
    "Всего",
    "Razem",
    "合計",
    "Toplam",
]
WEAK_LABELS = ["Overall", "All", "Combined"]


def medals(label: str, delimiter: str = ",") -> str:
    rows = [
        ["Nation", "Gold", "Silver", "Bronze"],
        ["Norway", "5", "3", "2"],
        ["Germany", "4", "4", "1"],
        ["Canada", "2", "1", "4"],
        ["Italy", "1", "2", "0"],
        [label, "12", "10", "7"],
    ]
    return "\n".join(delimiter.join(r) for r in rows) + "\n"


# Albums listed newest first: the first listed is the latest, not the first released.
NEWEST_FIRST = "Year,Album\n2012,Echoes\n2008,Rivers\n2003,Dawn\n"
OLDEST_FIRST = "Year,Album\n2003,Dawn\n2008,Rivers\n2012,Echoes\n"
# A results table whose Pos column writes the places as text.
RACE = "Pos,Driver,Team\n1,Jim Clark,Lotus\n2,Graham Hill,BRM\nRet,John Surtees,Ferrari\n"
RETIRED_FIRST = "Pos,Driver,Team\nRet,John Surtees,Ferrari\n1,Jim Clark,Lotus\n2,Graham Hill,BRM\n"
DELEGATES = "Represent,Age,Contestant\nAlta Verapaz,22,Ana Paz\nChimaltenango,19,Wendy Cid\nEscuintla,19,Rita Meda\nPeten,24,Lia Soto\n"
RIDERS = "Rider,Team,Points\nA. Rossi,Yamaha,20\nB. Marquez,Honda,16\nC. Lorenzo,Ducati,11\n"


@pytest.fixture(scope="module")
def ns(tmp_path_factory):
    folder = tmp_path_factory.mktemp("rules")
    tables = {f"medals_{k}.csv": medals(label) for k, label in enumerate(TOTAL_LABELS + WEAK_LABELS)}
    tables["medals_semicolon.csv"] = medals("Gesamt", ";")
    tables["medals_all_category.csv"] = medals("All").replace("All,12,10,7", "All,1,1,1")
    tables.update(
        {
            "newest.csv": NEWEST_FIRST,
            "oldest.csv": OLDEST_FIRST,
            "race.csv": RACE,
            "retired.csv": RETIRED_FIRST,
            "delegates.csv": DELEGATES,
            "riders.csv": RIDERS,
        }
    )
    with tabular.connect(str(folder / "home")) as engine:
        ns = engine.namespace("acme", "rules")
        for name, text in tables.items():
            (folder / name).write_text(text, encoding="utf-8")
            assert ns.ingest_file(folder / name, source_uri=name).state == "ready", name
        yield ns


def answered(ns, task, source):
    out = ns.synthesize(task, [source])
    assert not out.abstain, (task, source, out.abstain_reason, out.clarification)
    (calc,) = out.calculations
    names = [c.name for c in calc.columns]
    return [[row[names.index(a)] for a in calc.answer_columns] for row in calc.rows], out


@pytest.mark.parametrize("k", range(len(TOTAL_LABELS)))
def test_a_row_labelled_total_in_any_language_is_left_out(ns, k):
    source = f"medals_{k}.csv"
    assert answered(ns, "what is the total gold?", source)[0] == [[12]]
    assert answered(ns, "how many nations have more than 1 gold?", source)[0] == [[3]]


def test_a_total_row_is_found_whatever_the_delimiter(ns):
    assert answered(ns, "what is the total gold?", "medals_semicolon.csv")[0] == [[12]]


@pytest.mark.parametrize("k", range(len(TOTAL_LABELS), len(TOTAL_LABELS) + len(WEAK_LABELS)))
def test_a_weak_label_is_a_total_only_where_its_numbers_sum_the_others(ns, k):
    assert answered(ns, "what is the total gold?", f"medals_{k}.csv")[0] == [[12]]


def test_a_weak_label_whose_numbers_do_not_sum_is_a_row_like_the_others(ns):
    # "All" here is a nation-like category with 1 of each: it counts (12 + 1 = 13)
    assert answered(ns, "what is the total gold?", "medals_all_category.csv")[0] == [[13]]


def test_the_first_listed_is_the_first_only_when_it_is_also_the_earliest(ns):
    assert answered(ns, "what was the first album?", "oldest.csv")[0] == [["Dawn"]]
    assert answered(ns, "what was the last album?", "oldest.csv")[0] == [["Echoes"]]
    for task in ("what was the first album?", "what was the last album?"):
        out = ns.synthesize(task, ["newest.csv"])
        # newest first: the first listed is the latest; never answered with the wrong end
        assert out.abstain or answered(ns, task, "newest.csv")[0] == [["Dawn" if "first" in task else "Echoes"]]
    # "listed" asks for the list's own order
    assert answered(ns, "what is the first album listed?", "newest.csv")[0] == [["Echoes"]]


def test_a_place_won_is_read_from_a_column_of_places_written_as_text(ns):
    assert answered(ns, "who came in first?", "race.csv")[0] == [["Jim Clark"]]
    out = ns.synthesize("who came in first?", ["retired.csv"])  # the first listed retired: not the winner
    assert out.abstain or answered(ns, "who came in first?", "retired.csv")[0] == [["Jim Clark"]]


def test_the_same_as_a_named_row_answers_with_one_of_what_that_row_is(ns):
    rows, _ = answered(ns, "what contestant is the same age as rita meda?", "delegates.csv")
    assert rows == [["Wendy Cid"]]


def test_the_answer_says_its_own_columns_first_and_the_evidence_after(ns):
    rows, out = answered(ns, "who is the last rider listed?", "riders.csv")
    assert rows == [["C. Lorenzo"]] and out.calculations[0].answer_columns == ["Rider"]
    assert "Rider is C. Lorenzo (row 3 of 3)" in out.answer
    rows, out = answered(ns, "which team has the most points?", "riders.csv")
    assert rows == [["Yamaha"]] and out.calculations[0].answer_columns == ["Team"]


def test_the_same_text_as_a_named_row_is_the_same_whatever_its_case(ns, tmp_path):
    squad = "Player,Position\nArdo Kreek,Middle blocker\nSiim Ennemuist,Middle blocker\nAndri Aganits,Middle Blocker\nKert Toobal,Setter\n"
    (tmp_path / "squad.csv").write_text(squad, encoding="utf-8")
    assert ns.ingest_file(tmp_path / "squad.csv", source_uri="squad.csv").state == "ready"
    rows, _ = answered(ns, "which players played the same position as ardo kreek?", "squad.csv")
    assert sorted(r[0] for r in rows) == ["Andri Aganits", "Siim Ennemuist"]


@pytest.mark.parametrize("separator", [", ", " & ", " and ", " / "])
def test_a_count_of_cells_that_hold_several_names_is_asked(ns, tmp_path, separator):
    crew = f'Film,Director\nDawn,Ann Lee\nDusk,"Bo Ray{separator}Cy Dunn"\nNoon,Bo Ray\n'
    name = f"crew{len(separator)}{separator.strip() or 'x'}.csv".replace("/", "slash").replace("&", "amp")
    (tmp_path / name).write_text(crew, encoding="utf-8")
    assert ns.ingest_file(tmp_path / name, source_uri=name).state == "ready"
    out = ns.synthesize("how many different directors are there?", [name])
    assert out.abstain and out.abstain_reason == "ambiguous" and "'Bo Ray'" in out.clarification
    # a name with a comma or an "and" in it, none of whose parts is a cell of its own, is one name
    solo = f'Film,Director\nDawn,Ann Lee\nDusk,"Miami{separator}Ohio"\nNoon,Ann Lee\n'
    (tmp_path / "solo.csv").write_text(solo, encoding="utf-8")
    assert ns.ingest_file(tmp_path / "solo.csv", source_uri="solo.csv").state == "ready"
    assert answered(ns, "how many different directors are there?", "solo.csv")[0] == [[2]]


def test_first_or_last_in_time_is_not_read_off_the_list_when_the_dates_are_text(ns, tmp_path):
    # Dates written without a year stay text: they cannot say which event came last
    events = "Event,Date\nSprint,September 27\nRelay,September 12\nMarathon,September 30\n"
    (tmp_path / "events.csv").write_text(events, encoding="utf-8")
    assert ns.ingest_file(tmp_path / "events.csv", source_uri="events.csv").state == "ready"
    out = ns.synthesize("what was the last event held?", ["events.csv"])
    assert out.abstain and "holds its dates as text" in out.clarification
    assert answered(ns, "what is the last event listed?", "events.csv")[0] == [["Marathon"]]
