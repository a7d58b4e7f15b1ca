"""A source ingested again (tabular/ingest/again.py, issue 56): the same bytes read the same way
are no new revision (the job says `unchanged`, with the revision that holds them), whatever the
file's format; other bytes or other options are; a person's type that still reads every value
of a new revision is kept without a question."""

import json

import pytest
from conftest import CSV, ingest

from tabular.ingest.again import UNCHANGED


def workbook(path):
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.append(["when", "qty"])
    for i in range(6):
        sheet.append([f"{1 + i:02d}/{2 + i:02d}/2024", i])
    book.save(path)
    return path


def ndjson(path):
    path.write_text("".join(json.dumps({"id": i, "amount": f"{i}.125"}) + "\n" for i in range(8)), encoding="utf-8")
    return path


FILES = {
    "csv": lambda tmp: CSV / "dates_ambiguous.csv",
    "tsv": lambda tmp: CSV / "tabs.tsv",
    "xlsx": lambda tmp: workbook(tmp / "book.xlsx"),
    "ndjson": lambda tmp: ndjson(tmp / "rows.ndjson"),
}


@pytest.mark.parametrize("kind", FILES)
def test_the_same_bytes_twice_are_one_revision_and_no_new_question(ns, tmp_path, kind):
    path = FILES[kind](tmp_path)
    first, before = ingest(ns, path, source_uri="s")
    second, after = ingest(ns, path, source_uri="s")
    assert (first.state, first.revision) == ("ready", 1)
    assert (second.state, second.revision) == ("ready", 1)
    assert second.warnings[0].startswith(f"{UNCHANGED}: the same bytes") and "revision 1" in second.warnings[0]
    assert not any(w.startswith(UNCHANGED) for w in first.warnings)
    assert second.unchanged and not first.unchanged
    got = ns.call("knowledge.get", {"source_uri": "s"})
    assert got["revision"] == 1
    assert after.snapshot_id == before.snapshot_id and after.questions == before.questions


def test_an_approved_dataset_ingested_again_stays_approved_without_a_question(ns, tmp_path):
    _, before = ingest(ns, CSV / "dates_ambiguous.csv", source_uri="d")
    ns.approve("d", before.snapshot_id, formats={"when": "MDY"})
    status, after = ingest(ns, CSV / "dates_ambiguous.csv", source_uri="d")
    assert status.revision == 1 and status.warnings[0].startswith(UNCHANGED)
    assert after.questions == [] and after.approved
    assert next(c for c in after.columns if c.name == "when").format == "%m/%d/%Y"


def test_other_bytes_or_other_options_make_a_new_revision(ns, tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("a;b\n1;2,5\n3;4,5\n", encoding="utf-8")
    assert ingest(ns, path, source_uri="t")[0].revision == 1
    read_otherwise = ns.ingest_file(path, source_uri="t", options={"delimiter": ","})
    assert read_otherwise.revision == 2 and not any(w.startswith(UNCHANGED) for w in read_otherwise.warnings)
    assert not read_otherwise.unchanged
    again = ns.ingest_file(path, source_uri="t", options={"delimiter": ","})
    assert again.revision == 2 and again.unchanged  # the same again
    path.write_text("a;b\n1;2,5\n3;4,5\n5;6,5\n", encoding="utf-8")
    assert ingest(ns, path, source_uri="t")[0].revision == 3


def test_an_expected_revision_that_is_not_live_still_fails_with_the_same_bytes(ns):
    ingest(ns, CSV / "sales.csv", source_uri="s")
    failed = ns.ingest_file(CSV / "sales.csv", source_uri="s", expected_revision=0)
    assert (failed.state, failed.error_code) == ("failed", "revision_conflict")
    assert ns.ingest_file(CSV / "sales.csv", source_uri="s", expected_revision=1).revision == 1


def test_a_deleted_source_ingested_again_is_a_new_revision(ns):
    ingest(ns, CSV / "sales.csv", source_uri="s")
    ns.call("knowledge.delete", {"source_uri": "s"})
    again = ns.ingest_file(CSV / "sales.csv", source_uri="s")
    assert again.revision == 2 and not any(w.startswith(UNCHANGED) for w in again.warnings)


def test_another_namespace_with_the_same_bytes_is_its_own_first_revision(engine):
    ingest(engine.namespace("acme", "finance"), CSV / "sales.csv", source_uri="s")
    other = engine.namespace("acme", "ops").ingest_file(CSV / "sales.csv", source_uri="s")
    assert other.revision == 1 and not any(w.startswith(UNCHANGED) for w in other.warnings)


def test_the_same_bytes_with_new_words_about_the_source_keep_the_revision_and_take_the_words(ns):
    ingest(ns, CSV / "sales.csv", source_uri="s", title="Sales", tags=["q1"])
    again = ns.ingest_file(CSV / "sales.csv", source_uri="s", title="Sales, first quarter", tags=["q1", "eu"])
    got = ns.call("knowledge.get", {"source_uri": "s"})
    assert again.revision == 1 and got["revision"] == 1
    assert (got["title"], got["tags"]) == ("Sales, first quarter", ["q1", "eu"])
