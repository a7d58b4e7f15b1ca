"""knowledge.dataset_approve: retyping from the stored extraction, questions settled, optimistic
concurrency, the audit, and what a new revision carries over."""

import shutil
import threading

import pytest
from conftest import CSV, columns, ingest, snapshot_files

import tabular


def approve(engine, uri, snapshot_id, columns=None, formats=None, **extra):
    body = {"org": "acme", "namespace": "finance", "source_uri": uri, "snapshot_id": snapshot_id}
    return engine.call(
        "knowledge.dataset_approve", {**body, "columns": columns or {}, "formats": formats or {}, **extra}
    )


def test_a_date_order_answered_retypes_from_the_extraction(ns, engine):
    _, before = ingest(ns, CSV / "dates_ambiguous.csv", source_uri="d")
    assert [q.kind for q in before.questions] == ["date_order"]
    # The file is gone: approval types again from what the revision stored.
    answer = approve(engine, "d", before.snapshot_id, formats={"when": "MDY"})
    got = answer["dataset"]
    assert answer["found"] and answer["retyped"]
    assert answer["changes"] == [
        {
            "column": "when",
            "before": {"type": "date", "format": "%d/%m/%Y"},
            "after": {"type": "date", "format": "%m/%d/%Y"},
            "rows_rejected": 0,
            "values": 8,
            "examples": [],
        }
    ]
    assert got["snapshot_id"] != before.snapshot_id and got["questions"] == []
    assert got["approved"] and got["approved_by"] == "local" and got["approved_at"]
    after = ns.dataset_get("d", sample_rows=50).datasets[0]
    assert after.sample_row_ids == before.sample_row_ids
    assert [r["when"] for r in after.sample[:2]] == ["2024-03-04", "2024-01-02"]  # 03/04/2024 read month first
    assert [r["when"] for r in before.sample[:2]] == ["2024-04-03", "2024-02-01"]
    assert columns(after)["when"].approved and not columns(after)["qty"].approved


def test_a_strptime_pattern_and_a_decimal_mark_answer_their_questions(ns, engine):
    _, dates = ingest(ns, CSV / "dates_ambiguous.csv", source_uri="d")
    got = approve(engine, "d", dates.snapshot_id, columns={"when": "date"}, formats={"when": "%m/%d/%Y"})["dataset"]
    assert columns(ns.dataset_get("d").datasets[0])["when"].format == "%m/%d/%Y" == got["columns"][1]["format"]
    _, weights = ingest(ns, CSV / "decimal_mark_ambiguous.csv", source_uri="w")
    assert [q.kind for q in weights.questions] == ["decimal_mark"]
    answer = approve(engine, "w", weights.snapshot_id, formats={"weight": "decimal_mark=,"})
    weight = answer["dataset"]["columns"][1]
    assert (weight["type"], weight["physical"], weight["min"]) == ("number", "BIGINT", 1234)
    sample = ns.dataset_get("w", sample_rows=1).datasets[0].sample
    assert sample == [{"id": 1, "weight": 1234}]


def test_a_type_the_values_cannot_take_rejects_rows_and_says_how_many(ns, engine):
    _, before = ingest(ns, CSV / "mixed_values.csv", source_uri="m")
    assert before.rows == 20 and before.rows_rejected == 0
    answer = approve(engine, "m", before.snapshot_id, columns={"amount": "number"})
    got = answer["dataset"]
    assert answer["changes"][0]["rows_rejected"] == 2
    assert (got["rows"], got["rows_rejected"], got["complete"]) == (18, 2, False)
    assert [(r["row_id"], r["value"]) for r in got["rejected"]] == [(6, "see note"), (13, "TBD")]
    after = ns.dataset_get("m", sample_rows=50).datasets[0]
    assert after.sample_row_ids == [i for i in range(1, 21) if i not in (6, 13)]
    total = ns.query(
        {"datasets": [{"source_uri": "m"}], "aggregates": [{"fn": "count"}, {"fn": "sum", "column": "amount"}]}
    )
    assert total.rows[0][0] == 18 and not total.complete


def test_an_identifier_can_be_read_as_a_number_and_back(ns, engine):
    _, codes = ingest(ns, CSV / "leading_zeros.csv", source_uri="c")
    got = approve(engine, "c", codes.snapshot_id, columns={"zip": "number"})["dataset"]
    assert columns(ns.dataset_get("c").datasets[0])["zip"].type == "number"
    back = approve(engine, "c", got["snapshot_id"], columns={"zip": "string"})["dataset"]
    sample = ns.dataset_get("c", sample_rows=1).datasets[0].sample
    assert sample[0]["zip"] == "02139" and back["columns"][1]["type"] == "string"


def test_song_lengths_read_as_times_of_day_can_be_minutes_and_seconds(ns, engine):
    # 2:34 fits a clock, so it is typed a time of day; a person says it is a length.
    _, laps = ingest(ns, CSV / "laps.csv", source_uri="laps")
    assert columns(laps)["song"].type == "time"
    got = approve(engine, "laps", laps.snapshot_id, columns={"song": "duration"}, formats={"song": "m:ss.f"})
    song = columns(ns.dataset_get("laps").datasets[0])["song"]
    assert got["retyped"] and (song.type, song.format, song.max) == ("duration", "m:ss.f", "PT4M5S")


def test_every_problem_is_named_with_its_path_and_close_names(ns, engine):
    _, dataset = ingest(ns, CSV / "dates_ambiguous.csv", source_uri="d")
    with pytest.raises(tabular.ValidationFailed) as err:
        approve(
            engine,
            "d",
            dataset.snapshot_id,
            columns={"wehn": "date", "qty": "nmber"},
            formats={"when": "%Q", "id": "decimal_mark=;"},
        )
    problems = {e.path: e for e in err.value.errors}
    assert set(problems) == {"columns.wehn", "columns.qty", "formats.when", "formats.id"}
    assert problems["columns.wehn"].did_you_mean == ["when"]
    assert problems["columns.qty"].did_you_mean == ["number"]
    assert err.value.status == 422
    # Nothing changed.
    assert ns.dataset_get("d").datasets[0].snapshot_id == dataset.snapshot_id


def test_missing_things_answer_found_false_and_bad_bodies_are_422(ns, engine):
    _, dataset = ingest(ns, CSV / "dates_ambiguous.csv", source_uri="d")
    assert approve(engine, "nothing", "s_x")["found"] is False
    assert approve(engine, "d", dataset.snapshot_id, dataset_id="nope")["found"] is False
    with pytest.raises(tabular.ValidationFailed) as err:
        engine.call("knowledge.dataset_approve", {"source_uri": "d", "columns": {"when": 3}})
    assert {e.path for e in err.value.errors} == {"snapshot_id", "columns.when"}


def test_a_stale_snapshot_is_409_and_two_racing_approvals_have_one_winner(ns, engine):
    _, dataset = ingest(ns, CSV / "dates_ambiguous.csv", source_uri="d")
    answers, barrier = [], threading.Barrier(2)

    def race(order):
        barrier.wait()
        try:
            answers.append(approve(engine, "d", dataset.snapshot_id, formats={"when": order})["dataset"]["snapshot_id"])
        except tabular.PreconditionFailed as err:
            answers.append(err)

    threads = [threading.Thread(target=race, args=(o,)) for o in ("MDY", "DMY")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    won = [a for a in answers if isinstance(a, str)]
    lost = [a for a in answers if not isinstance(a, str)]
    assert len(won) == 1 and len(lost) == 1
    assert lost[0].status == 409 and lost[0].errors[0].path == "snapshot_id"
    assert ns.dataset_get("d").datasets[0].snapshot_id == won[0]
    assert len(ns.history("d")) == 1


def test_a_snapshot_of_an_earlier_revision_is_409_and_a_deleted_source_is_not_found(ns, engine):
    _, first = ingest(ns, CSV / "dates_ambiguous.csv", source_uri="d")
    ingest(ns, CSV / "dates_dmy.csv", source_uri="d")  # other bytes: a new revision
    with pytest.raises(tabular.PreconditionFailed):
        approve(engine, "d", first.snapshot_id)
    ns.call("knowledge.delete", {"source_uri": "d"})
    assert approve(engine, "d", first.snapshot_id) == {
        "ignored_args": [],
        "did_you_mean": [],
        "found": False,
        "dataset": None,
        "retyped": False,
        "changes": [],
        "answered": [],
        "settled": [],
        "left_open": [],
        "dry_run": False,
    }


def test_a_snapshot_published_before_typings_were_stored_is_typed_again_alike(ns, engine):
    _, before = ingest(ns, CSV / "dates_ambiguous.csv", source_uri="d")
    engine.catalog.conn().execute("DELETE FROM catalog.typings")
    got = approve(engine, "d", before.snapshot_id, formats={"when": "MDY"})["dataset"]
    assert [(c["name"], c["type"], c["format"]) for c in got["columns"]] == [
        ("id", "number", ""),
        ("when", "date", "%m/%d/%Y"),
        ("qty", "number", ""),
    ]


def test_a_query_pinned_to_the_old_snapshot_is_409_and_an_unpinned_one_reads_the_new(ns, engine):
    _, dataset = ingest(ns, CSV / "dates_ambiguous.csv", source_uri="d")
    plan = {
        "datasets": [{"source_uri": "d", "snapshot_id": dataset.snapshot_id}],
        "aggregates": [{"fn": "min", "column": "when"}],
    }
    assert ns.query(plan).rows == [["2023-11-12"]] and not ns.query(plan).complete  # an open date_order question
    new = approve(engine, "d", dataset.snapshot_id, formats={"when": "MDY"})["dataset"]["snapshot_id"]
    with pytest.raises(tabular.PreconditionFailed):
        ns.query(plan)
    answer = ns.query({**plan, "datasets": [{"source_uri": "d"}]})
    assert answer.rows == [["2023-12-11"]] and answer.complete
    assert answer.receipt.datasets[0].snapshot_id == new


def test_approving_without_changes_settles_the_questions_as_held(ns, engine):
    _, dataset = ingest(ns, CSV / "dates_ambiguous.csv", source_uri="d")
    answer = approve(engine, "d", dataset.snapshot_id)
    got = answer["dataset"]
    assert answer["retyped"] is False and answer["changes"] == []
    assert got["questions"] == [] and got["approved"] and got["columns"][1]["format"] == "%d/%m/%Y"
    assert got["columns"][1]["approved"] and not got["columns"][2]["approved"]
    (entry,) = ns.history("d")
    assert entry.settled == ["when:date_order"] and entry.old_snapshot_id == dataset.snapshot_id
    assert entry.new_snapshot_id == got["snapshot_id"]


def test_the_audit_says_who_when_and_what_changed(ns, engine):
    _, dataset = ingest(ns, CSV / "mixed_values.csv", source_uri="m")
    body = {
        "org": "acme",
        "namespace": "finance",
        "source_uri": "m",
        "snapshot_id": dataset.snapshot_id,
        "columns": {"amount": "number"},
    }
    first = engine.run("knowledge.dataset_approve", body, caller="alice")
    assert first.dataset.approved_by == "alice"
    engine.run(
        "knowledge.dataset_approve",
        {**body, "snapshot_id": first.dataset.snapshot_id, "columns": {"amount": "string"}},
        caller="bob",
    )
    history = ns.call("knowledge.get", {"source_uri": "m"})["history"]
    assert [(h["approved_by"], h["changes"][0]["after"]["type"]) for h in history] == [
        ("alice", "number"),
        ("bob", "string"),
    ]
    assert history[0]["new_snapshot_id"] == history[1]["old_snapshot_id"]
    assert history[0]["changes"][0]["before"] == {"type": "string", "format": ""}


def test_old_snapshots_past_the_retention_setting_are_dropped(tmp_path):
    with tabular.connect(str(tmp_path / "home"), snapshots_kept=2, dropped_grace_seconds=0) as engine:
        ns = engine.namespace("acme", "finance")
        _, dataset = ingest(ns, CSV / "dates_ambiguous.csv", source_uri="d")
        snapshot = dataset.snapshot_id
        for order in ("MDY", "DMY", "MDY"):
            snapshot = approve(engine, "d", snapshot, formats={"when": order})["dataset"]["snapshot_id"]
        tables = snapshot_files(engine)
        assert len(tables) == 2 and snapshot in tables and dataset.snapshot_id not in tables
        assert ns.dataset_get("d", sample_rows=1).datasets[0].sample[0]["when"] == "2024-03-04"


def _ingest_as(ns, tmp_path, fixture, uri="books"):
    """Ingest `fixture`'s content under one file name, so every revision has the same dataset_id."""
    path = tmp_path / "books.csv"
    shutil.copy(CSV / fixture, path)
    return ingest(ns, path, source_uri=uri)


def test_a_new_revision_keeps_a_person_set_type_that_still_reads_without_a_question(ns, engine, tmp_path):
    _, first = _ingest_as(ns, tmp_path, "dates_ambiguous.csv")
    approve(engine, "books", first.snapshot_id, formats={"when": "MDY"})
    # Other bytes (a row more), still read both ways: the person's month-first order stands.
    path = tmp_path / "books.csv"
    path.write_text(path.read_text(encoding="utf-8") + "9,04/05/2024,11\n", encoding="utf-8")
    status, second = ingest(ns, path, source_uri="books")
    assert status.revision == 2 and second.dataset_id == first.dataset_id == "books"
    when = columns(second)["when"]
    assert (when.format, when.approved) == ("%m/%d/%Y", True)
    assert second.questions == [] and second.rows == 9
    got = ns.query({"datasets": [{"source_uri": "books"}], "where": [{"column": "id", "op": "eq", "value": 9}]})
    assert str(got.rows[0][1]) == "2024-04-05"  # 04/05/2024 read month first


def test_a_person_set_type_that_no_longer_reads_is_not_carried(ns, engine, tmp_path):
    _, first = _ingest_as(ns, tmp_path, "dates_ambiguous.csv")
    approve(engine, "books", first.snapshot_id, formats={"when": "MDY"})
    _, second = _ingest_as(ns, tmp_path, "dates_dmy.csv")  # the new file has 17/01/2024: not month first
    assert columns(second).get("when") is None  # that file names its date column `booked`
    approve(engine, "books", second.snapshot_id, formats={"booked": "DMY"})
    _, third = _ingest_as(ns, tmp_path, "dates_mdy.csv")
    booked = columns(third)["booked"]
    assert (booked.format, booked.approved, third.rows_rejected) == ("%m/%d/%Y", False, 0)
    (question,) = third.questions
    assert question.kind == "approval_not_carried"
    assert [(o.format, o.rows_rejected > 0) for o in question.options] == [("%m/%d/%Y", False), ("%d/%m/%Y", True)]


def test_a_carried_type_the_engine_would_choose_alone_asks_nothing(ns, engine, tmp_path):
    _, first = _ingest_as(ns, tmp_path, "dates_dmy.csv")
    approve(engine, "books", first.snapshot_id, columns={"booked": "date"})
    _, second = _ingest_as(ns, tmp_path, "dates_dmy.csv")
    assert second.questions == [] and columns(second)["booked"].approved


def dashed_dates(path, rows=40):
    """A column of dates written dd-mm-yy (31-12-13), as a spreadsheet export may write them."""
    lines = ["Date;Amount"] + [f"{1 + i % 28:02d}-{1 + i % 12:02d}-13;{i}" for i in range(rows)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_an_approval_that_would_reject_most_of_a_column_is_refused_with_the_count_and_examples(ns, engine, tmp_path):
    _, d = ingest(ns, dashed_dates(tmp_path / "dashed.csv"), source_uri="t")
    with pytest.raises(tabular.ValidationFailed) as refused:
        approve(engine, "t", d.snapshot_id, columns={"Date": "date"}, formats={"Date": "%d/%m/%Y"})
    (problem,) = refused.value.errors
    assert problem.path == "formats.Date" and "would reject 40 of the column's 40 non-empty values" in problem.message
    assert "'01-01-13'" in problem.message and "allow_rejects" in problem.message
    # Nothing changed: the same snapshot serves, unapproved.
    (still,) = ns.dataset_get("t").datasets
    assert still.snapshot_id == d.snapshot_id and not still.approved
    # Typed to a type alone (no format), the refusal is said at the column's type.
    with pytest.raises(tabular.ValidationFailed) as refused:
        approve(engine, "t", d.snapshot_id, columns={"Amount": "bool"})
    assert refused.value.errors[0].path == "columns.Amount"


def test_a_dry_run_answers_the_counts_and_changes_nothing(ns, engine, tmp_path):
    _, d = ingest(ns, dashed_dates(tmp_path / "dashed.csv"), source_uri="t")
    answer = approve(engine, "t", d.snapshot_id, columns={"Date": "date"}, formats={"Date": "%d/%m/%Y"}, dry_run=True)
    assert answer["dry_run"] and answer["found"] and not answer["retyped"] and answer["dataset"] is None
    (change,) = answer["changes"]
    assert (change["rows_rejected"], change["values"]) == (40, 40)
    assert change["examples"] == ["01-01-13", "02-02-13", "03-03-13", "04-04-13", "05-05-13"]
    (still,) = ns.dataset_get("t").datasets
    assert still.snapshot_id == d.snapshot_id and not still.approved


def test_allow_rejects_applies_an_approval_that_rejects_most_of_a_column(ns, engine, tmp_path):
    _, d = ingest(ns, dashed_dates(tmp_path / "dashed.csv"), source_uri="t")
    answer = approve(
        engine, "t", d.snapshot_id, columns={"Date": "date"}, formats={"Date": "%d/%m/%Y"}, allow_rejects=True
    )
    assert answer["retyped"] and answer["dataset"]["rows"] == 0 and answer["dataset"]["rows_rejected"] == 40


@pytest.mark.parametrize(
    ("order", "written", "pattern"),
    [
        ("DMY", "{d:02d}-{m:02d}-13", "%d-%m-%y"),
        ("DMY", "{d}.{m}.2013", "%d.%m.%Y"),
        ("DMY", "{d:02d} {m:02d} 2013", "%d %m %Y"),
        ("MDY", "{m:02d}-{d:02d}-13", "%m-%d-%y"),
        ("MDY", "{m}/{d}/2013", "%m/%d/%Y"),
        ("YMD", "13.{m:02d}.{d:02d}", "%y.%m.%d"),
    ],
)
def test_a_date_order_reads_the_columns_own_separators_and_year_width(ns, engine, tmp_path, order, written, pattern):
    lines = ["when,qty"] + [f"{written.format(d=1 + i % 28, m=1 + i % 12)},{i}" for i in range(30)]
    (tmp_path / "d.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    _, d = ingest(ns, tmp_path / "d.csv", source_uri="d")
    answer = approve(engine, "d", d.snapshot_id, columns={"when": "date"}, formats={"when": order})
    (change,) = [c for c in answer["changes"] if c["column"] == "when"] or [None]
    got = columns(ns.dataset_get("d").datasets[0])["when"]
    assert (got.type, got.format, answer["dataset"]["rows_rejected"]) == ("date", pattern, 0)
    assert change is None or change["rows_rejected"] == 0
    first = ns.query({"datasets": [{"source_uri": "d"}], "select": [{"column": "when"}], "limit": 1}).rows[0][0]
    assert str(first) == "2013-01-01"
