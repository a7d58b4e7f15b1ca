"""One approval model (issue 56): an approval settles the questions it answers; the others stay
open unless the person accepts the rest as shown (settle_rest), which settles them as held and
lists each in `settled`; the preview (dry_run) says every column it would settle and how, and
what it leaves open. Files of several shapes, each asking three questions or more."""

import pytest
from conftest import ingest

import tabular


def ledger(path):
    """Date (day or month first?), Amount and VAT ('.' decimal or thousands?): three questions,
    the two numbers alike."""
    path.write_text(
        "Date,Amount,VAT\n03/04/2024,1.234,2.468\n01/02/2024,2.500,5.000\n12/11/2023,12.750,25.500\n"
        "05/06/2024,7.125,14.250\n07/08/2024,3.333,6.666\n",
        encoding="utf-8",
    )
    return path


def flags(path):
    """A 0/1 flag (a number or a yes/no?), codes with leading zeros, dates of either order."""
    rows = [f"{i % 2},{i:05d},{1 + i % 12:02d}/{1 + i % 12:02d}/2024" for i in range(30)]
    rows[1] = "1,00001,03/04/2024"
    path.write_text("paid,code,when\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return path


SHAPES = {
    "ledger": (ledger, "Date", {"formats": {"Date": "MDY"}}),
    "flags": (flags, "paid", {"columns": {"paid": "bool"}}),
}


def approve(ns, uri, snapshot_id, **body):
    return ns.call("knowledge.dataset_approve", {"source_uri": uri, "snapshot_id": snapshot_id, **body})


@pytest.mark.parametrize("shape", SHAPES)
def test_an_answer_settles_its_question_and_the_others_stay_open(ns, tmp_path, shape):
    make, column, answer = SHAPES[shape]
    _, d = ingest(ns, make(tmp_path / f"{shape}.csv"), source_uri=shape)
    asked = {q.column for q in d.questions}
    assert len(asked) >= 3 and column in asked
    preview = approve(ns, shape, d.snapshot_id, **answer, dry_run=True)
    assert [a["column"] for a in preview["answered"]] == [column] and preview["settled"] == []
    assert {q["column"] for q in preview["left_open"]} == asked - {column}
    assert ns.dataset_get(shape).datasets[0].snapshot_id == d.snapshot_id  # the preview changed nothing

    done = approve(ns, shape, d.snapshot_id, **answer)
    after = ns.dataset_get(shape).datasets[0]
    assert {q.column for q in after.questions} == asked - {column}
    assert {q["column"] for q in done["left_open"]} == asked - {column} and done["settled"] == []
    assert not after.approved  # questions are left
    assert next(c for c in after.columns if c.name == column).approved
    assert not any(c.approved for c in after.columns if c.name != column)
    # The open questions still make an answer over their columns incomplete.
    got = ns.query({"datasets": [{"source_uri": shape}], "limit": 1})
    assert got.complete is False


@pytest.mark.parametrize("shape", SHAPES)
def test_settle_rest_accepts_the_rest_as_shown_and_lists_each(ns, tmp_path, shape):
    make, column, answer = SHAPES[shape]
    _, d = ingest(ns, make(tmp_path / f"{shape}.csv"), source_uri=shape)
    held = {q.column: (q.current.type, q.current.format) for q in d.questions if q.column != column}
    preview = approve(ns, shape, d.snapshot_id, **answer, settle_rest=True, dry_run=True)
    assert {s["column"]: (s["type"], s["format"]) for s in preview["settled"]} == held
    assert preview["left_open"] == [] and [a["column"] for a in preview["answered"]] == [column]

    done = approve(ns, shape, d.snapshot_id, **answer, settle_rest=True)
    assert {s["column"]: (s["type"], s["format"]) for s in done["settled"]} == held
    after = ns.dataset_get(shape).datasets[0]
    assert after.questions == [] and after.approved
    kept = {c.name: (c.type, c.format) for c in after.columns}
    assert {name: kept[name] for name in held} == held  # settled as they were held
    assert ns.query({"datasets": [{"source_uri": shape}], "limit": 1}).complete
    (entry,) = ns.history(shape)
    assert sorted(entry.settled) == sorted(q.id for q in d.questions if q.column != column)


def test_the_rest_is_settled_later_by_an_approval_that_names_nothing(ns, tmp_path):
    _, d = ingest(ns, ledger(tmp_path / "ledger.csv"), source_uri="l")
    first = approve(ns, "l", d.snapshot_id, formats={"Date": "MDY"})
    second = approve(ns, "l", first["dataset"]["snapshot_id"])
    assert [s["column"] for s in second["settled"]] == ["Amount", "VAT"]
    assert second["dataset"]["approved"] and second["dataset"]["questions"] == []
    assert [h.settled for h in ns.history("l")] == [[], ["Amount:decimal_mark", "VAT:decimal_mark"]]


def test_alike_questions_answered_together_leave_the_other_open(ns, tmp_path):
    _, d = ingest(ns, ledger(tmp_path / "ledger.csv"), source_uri="l")
    done = approve(ns, "l", d.snapshot_id, formats=dict.fromkeys(["Amount", "VAT"], "decimal_mark=,"))
    assert [(a["column"], a["format"]) for a in done["answered"]] == [
        ("Amount", "decimal_mark=,;group_mark=."),
        ("VAT", "decimal_mark=,;group_mark=."),
    ]
    assert [q["column"] for q in done["left_open"]] == ["Date"]
    (amount,) = ns.query({"datasets": [{"source_uri": "l"}], "select": [{"column": "Amount"}], "limit": 1}).rows
    assert str(amount[0]) == "1234"


def test_a_stale_snapshot_with_settle_rest_is_still_409(ns, tmp_path):
    _, d = ingest(ns, ledger(tmp_path / "ledger.csv"), source_uri="l")
    approve(ns, "l", d.snapshot_id, formats={"Date": "MDY"})
    with pytest.raises(tabular.PreconditionFailed):
        approve(ns, "l", d.snapshot_id, settle_rest=True)
