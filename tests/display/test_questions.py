"""Open questions as a person answers them (tabular/display/questions.py): columns asking the same
question with the same options are one entry naming them all, in a notebook and at a terminal,
with one approval that answers them all; the answer itself keeps a question per column (SPEC §4).
Files of several widths and shapes are generated here: 0/1 flags among other columns, with blanks."""

import json
import random
import re
import shlex
from html import unescape

import pytest
from test_cli_surface import call

from tabular.display.questions import answer_kind, asked, open_count, open_said
from tabular.models import QuestionOut


def write(path, header: list[str], rows: list[list[str]]) -> None:
    path.write_text("\n".join(",".join(r) for r in [header, *rows]) + "\n", encoding="utf-8")


def flags_file(path, flags: int, others: int = 3, rows: int = 120, seed: int = 7) -> list[str]:
    """`flags` columns of 0s and 1s (a blank now and then) among an id, names and amounts;
    answers the flag columns' names."""
    rng = random.Random(seed)
    names = [f"flag_{k}" for k in range(flags)]
    header = ["id", *names] + [f"name_{k}" if k % 2 else f"amount_{k}" for k in range(others)]
    body = []
    for i in range(rows):
        cells = [str(i)]
        for k in range(flags):
            # each column holds both values (in its first two rows), blanks elsewhere at random
            cells.append(str((i + k) % 2) if i < 2 else rng.choice(["0", "1", "1", ""]))
        cells += [f"n{i}" if k % 2 else f"{i}.{k}5" for k in range(others)]
        body.append(cells)
    write(path, header, body)
    return names


def question_blocks(html: str) -> list[str]:
    return [b.split("</div>", 1)[0] for b in html.split('<div class="tabular-question"')[1:]]


def shown_call(block: str, option: str) -> str:
    """The ns.approve call the view shows beside an option (as a person copies it)."""
    row = next(r for r in block.split("<tr>") if r.startswith(f"<td>{option}"))
    return unescape(re.search(r"<code>(ns\.approve\(.*?\))</code>", row).group(1))


@pytest.mark.parametrize("flags,others", [(19, 3), (2, 6), (45, 15)])
def test_alike_questions_are_one_entry_and_its_one_call_answers_every_column(ns, tmp_path, flags, others):
    names = flags_file(tmp_path / "flags.csv", flags, others)
    ns.ingest_file(tmp_path / "flags.csv", source_uri="flags.csv")
    got = ns.dataset_get("flags.csv")
    (d,) = got.datasets
    assert sorted(q.column for q in d.questions) == sorted(names)  # the answer keeps one question per column
    assert {q.kind for q in d.questions} == {"bool_or_number"}
    (block,) = question_blocks(got._repr_html_())  # where there were `flags` entries
    assert f"{flags} columns ask the same question</b> (bool_or_number): Every value is 0 or 1." in block
    assert block.count("<td><b>flag_") == flags  # every column named, in the folded table
    call = shown_call(block, "bool")
    assert call.startswith(f"ns.approve('flags.csv', '{d.snapshot_id}', columns=dict.fromkeys([")
    approved = eval(call, {"ns": ns})  # what a person would paste
    assert approved.found and len(approved.changes) == flags
    after = ns.dataset_get("flags.csv").datasets[0]
    types = {c.name: c.type for c in after.columns}
    assert not after.questions and all(types[n] == "bool" for n in names)
    assert types["id"] == "number" and [t for n, t in types.items() if n.startswith("name_")] == ["string"] * (
        others // 2
    )


def test_columns_asking_alike_on_their_own_values_are_one_entry_with_each_ones_words(ns, tmp_path):
    strays = ["n/a?", "x", "see note", "TBD"]
    rows = [[str(i)] + [strays[k] if i == 3 + k else f"{i * (k + 1)}" for k in range(4)] for i in range(40)]
    write(tmp_path / "odd.csv", ["id", "a", "b", "c", "d"], rows)
    ns.ingest_file(tmp_path / "odd.csv", source_uri="odd")
    got = ns.dataset_get("odd")
    d = got.datasets[0]
    assert len({q.question for q in d.questions}) == 4  # each names its own stray value
    (block,) = question_blocks(got._repr_html_())
    assert (
        "4 columns ask alike</b> (mixed_values): string (held now) or number? Each on its own values, e.g. a: " in block
    )
    for q in d.questions:
        assert unescape(q.question) in unescape(block)  # each column's words in the folded table
    approved = eval(shown_call(block, "number"), {"ns": ns})
    assert [c.rows_rejected for c in approved.changes] == [1, 1, 1, 1]
    assert [c.type for c in approved.dataset.columns] == ["number"] * 5


def test_a_question_of_its_own_is_shown_as_before_with_its_call(ns, tmp_path):
    write(tmp_path / "one.csv", ["id", "paid", "name"], [[str(i), str(i % 2), f"n{i}"] for i in range(10)])
    ns.ingest_file(tmp_path / "one.csv", source_uri="one")
    got = ns.dataset_get("one")
    (block,) = question_blocks(got._repr_html_())
    assert "open question on paid</b> (bool_or_number" in block and "columns ask the same" not in block
    assert (
        shown_call(block, "bool") == f"ns.approve('one', '{got.datasets[0].snapshot_id}', columns={{'paid': 'bool'}})"
    )


def mixed_file(path) -> None:
    """Three flag columns (one with blanks), two day/month-or-month/day date columns written
    alike, one written with dashes, and a column of leading zeros."""
    rows = [
        [f"{i % 2}", f"{(i + 1) % 2}", "" if i % 3 == 0 else f"{i % 2}"]
        + [f"{1 + i % 12:02d}/{1 + i % 12:02d}/2024", f"{1 + i % 9:02d}/{2 + i % 10:02d}/2023"]
        + [f"{1 + i % 12:02d}-{3 + i % 9:02d}-2024", f"{i:05d}", f"{i}.5"]
        for i in range(24)
    ]
    write(path, ["a", "b", "c", "start", "end", "dashed", "code", "amount"], rows)


def test_several_kinds_make_several_entries_and_the_terminal_shows_one_command_per_entry(ns, tmp_path):
    mixed_file(tmp_path / "mixed.csv")
    ns.ingest_file(tmp_path / "mixed.csv", source_uri="mixed")
    (d,) = ns.dataset_get("mixed").datasets
    groups = asked(d.questions)
    said = sorted((g.first.kind, tuple(g.columns)) for g in groups)
    assert said == [
        ("bool_or_number", ("a", "b", "c")),
        ("date_order", ("dashed",)),
        ("date_order", ("start", "end")),
        ("leading_zeros", ("code",)),
    ]
    # two entries of one kind: --answer would answer both, so each names its own columns
    columns, formats = answer_kind(d.questions, "bool_or_number", "bool")
    assert columns == dict.fromkeys(["a", "b", "c"], "bool") and formats == {}
    with pytest.raises(ValueError, match="names none of the options of dashed"):
        answer_kind(d.questions, "date_order", "%m/%d/%Y")
    with pytest.raises(ValueError, match="no open question of kind 'decimal_mark' here; asked: bool_or_number, "):
        answer_kind(d.questions, "decimal_mark", "number")
    with pytest.raises(ValueError, match="names more than one"):
        answer_kind(d.questions, "date_order", "date")


def test_at_the_terminal_alike_questions_are_one_entry_and_its_command_answers_them_all(tmp_path, capsys, monkeypatch):
    run = lambda home, *args: call(capsys, monkeypatch, home / "home", *args)
    names = flags_file(tmp_path / "wide.csv", 30, 10)
    assert run(tmp_path, "ingest", str(tmp_path / "wide.csv")).returncode == 0
    shown = run(tmp_path, "datasets", "wide.csv").stdout
    entries = [line for line in shown.splitlines() if line.lstrip().startswith("question")]
    assert entries == [
        "  question 30 columns [bool_or_number] ask the same question: Every value is 0 or 1. Is this a number, or a yes/no flag?"
    ]
    assert f"columns: {', '.join(names)}" in shown
    assert "bool 1/0, rejects 0: tabular approve wide.csv --answer bool_or_number=bool" in shown
    done = run(tmp_path, "approve", "wide.csv", "--answer", "bool_or_number=bool", "--set", "flag_0=string")
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("→ bool 1/0") == 29 and "flag_0: number  → string" in done.stdout  # --set names over it
    again = run(tmp_path, "approve", "wide.csv", "--answer", "bool_or_number=bool")
    assert again.returncode == 2 and "no open question of kind 'bool_or_number' here; asked: none" in again.stderr


def test_at_the_terminal_entries_of_one_kind_name_their_columns_and_dates_are_answered_by_format(
    tmp_path, capsys, monkeypatch
):
    run = lambda home, *args: call(capsys, monkeypatch, home / "home", *args)
    mixed_file(tmp_path / "mixed.csv")
    assert run(tmp_path, "ingest", str(tmp_path / "mixed.csv")).returncode == 0
    shown = run(tmp_path, "datasets", "mixed.csv").stdout
    assert "question 3 columns [bool_or_number] ask the same question" in shown
    assert "tabular approve mixed.csv --answer bool_or_number=bool" in shown
    assert "question 2 columns [date_order]" in shown and "question dashed [date_order]" in shown
    line = next(x for x in shown.splitlines() if "--format start=" in x and "(held now)" not in x)
    command = line.split(": ", 1)[1]
    assert command.startswith("tabular approve mixed.csv --format start=") and "--format end=" in command
    done = run(tmp_path, *command.split()[1:], "--yes")
    assert done.returncode == 0, done.stderr
    changed = [x.split(":")[0].strip() for x in done.stdout.splitlines() if " → " in x and x.startswith("  ")]
    assert changed == ["start", "end"]  # only the columns the command names change


def test_alike_columns_rejecting_different_counts_say_the_least_and_the_most():
    # The notebook and the terminal say one entry's rejects alike: one count, or 'least to most'.
    from types import SimpleNamespace as Q

    def question(column: str, rejected: int):
        options = [Q(type="number", format="", rows_rejected=0), Q(type="bool", format="1/0", rows_rejected=rejected)]
        return Q(
            column=column, kind="bool_or_number", id=f"q_{column}", question="?", current=options[0], options=options
        )

    (group,) = asked([question("a", 2), question("b", 1_500), question("c", 7)])
    assert [group.rejects(0), group.rejects(1)] == ["0", "2 to 1,500"]


@pytest.mark.parametrize(
    ("columns", "count", "said"),
    [
        ([], 0, "no open question"),
        ([("when", "date_order", 0)], 1, "1 open question"),
        (
            [("Date", "date_order", 0), ("Amount", "decimal_mark", 0), ("VAT", "decimal_mark", 0)],
            3,
            "3 open questions, shown as 2 (columns that ask alike are one entry)",
        ),
        ([("a", "decimal_mark", 0), ("b", "decimal_mark", 1)], 2, "2 open questions"),  # other options: two entries
    ],
)
def test_every_view_counts_the_questions_per_column_and_says_how_they_are_shown(columns, count, said):
    def question(column, kind, variant):
        options = [{"type": "number", "format": "decimal_mark=."}, {"type": "number", "format": f"other {variant}"}]
        return QuestionOut(
            id=f"{column}:{kind}",
            column=column,
            kind=kind,
            question="which?",
            current=options[0],
            options=[{**o, "rows_rejected": 0} for o in options],
        )

    questions = [question(*c) for c in columns]
    assert open_count(questions) == count and open_said(questions) == said


def test_at_the_terminal_the_held_option_answers_its_entry_and_no_other(tmp_path, capsys, monkeypatch):
    """Keeping what is held now is an answer too: its command names the entry's columns at their
    reading now (a date's format, a flag's or a code's type, --answer for alike ones), so the
    other questions stay open, where `tabular approve SOURCE` alone settled them all (issue 56)."""
    run = lambda home, *args: call(capsys, monkeypatch, home / "home", *args)
    mixed_file(tmp_path / "mixed.csv")
    assert run(tmp_path, "ingest", str(tmp_path / "mixed.csv")).returncode == 0
    entries = 0
    while True:
        shown = run(tmp_path, "datasets", "mixed.csv").stdout
        held = [x.split(": ", 1)[1] for x in shown.splitlines() if "(held now), rejects" in x]
        if not held:
            break
        before = {
            q["column"]
            for q in json.loads(run(tmp_path, "datasets", "mixed.csv", "--json").stdout)["datasets"][0]["questions"]
        }
        command = held[0]
        assert command.startswith("tabular approve mixed.csv ") and (
            "--format" in command or "--set" in command or "--answer" in command
        )
        done = run(tmp_path, *shlex.split(command)[1:], "--json")
        assert done.returncode == 0, done.stderr
        answer = json.loads(done.stdout)
        answered = {a["column"] for a in answer["answered"]}
        assert answer["changes"] == [] and answer["settled"] == []  # kept as held, nothing else settled
        assert answered and {q["column"] for q in answer["left_open"]} == before - answered
        entries += 1
    assert entries == 4  # bool_or_number, two date_order entries, leading_zeros
    final = json.loads(run(tmp_path, "datasets", "mixed.csv", "--json").stdout)["datasets"][0]
    assert final["questions"] == [] and final["approved"]
