"""Zones on datetimes written by position (31/12/2024 10:15 UTC) read as TIMESTAMPTZ, as ISO ones
do; a zone abbreviation (EST, CST, CEST) names more than one zone and is asked (time_zone), never
resolved: held as text, or read as the local times written, the abbreviation kept in the format."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from conftest import columns, ingest


def _write(path, header, values):
    path.write_text("\n".join([header, *values]) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("values", "fmt", "first"),
    [
        (
            [f"{d:02d}/03/2024 10:{d:02d} UTC" for d in range(13, 29)],
            "%d/%m/%Y %H:%M %Z",
            datetime(2024, 3, 13, 10, 13),
        ),
        (
            [f"03/{d:02d}/2024 10:{d:02d} GMT" for d in range(13, 29)],
            "%m/%d/%Y %H:%M %Z",
            datetime(2024, 3, 13, 10, 13),
        ),
        (
            [f"{d:02d}.03.2024 10:{d:02d}:00 +01:00" for d in range(13, 29)],
            "%d.%m.%Y %H:%M:%S %z",
            datetime(2024, 3, 13, 9, 13),
        ),
        (
            [f"{d:02d}-03-2024 22:{d:02d} -0500" for d in range(13, 29)],
            "%d-%m-%Y %H:%M %z",
            datetime(2024, 3, 14, 3, 13),
        ),
    ],
    ids=["dmy-utc", "mdy-gmt", "dotted-offset", "dashed-offset"],
)
def test_a_zone_after_a_datetime_written_by_position_reads_as_timestamptz(ns, tmp_path, values, fmt, first):
    _, dataset = ingest(ns, _write(tmp_path / "z.csv", "Zeitpunkt", values))
    col = columns(dataset)["Zeitpunkt"]
    assert (col.type, col.physical, col.format) == ("datetime", "TIMESTAMPTZ", fmt)
    assert dataset.questions == []
    got = ns.query({"datasets": [{"source_uri": "z.csv"}], "select": [{"column": "Zeitpunkt"}], "limit": 1})
    assert got.typed_rows()[0][0] == first.replace(tzinfo=UTC)


@pytest.mark.parametrize(
    ("values", "abbreviation"),
    [
        ([f"2024-01-{d:02d} 10:{d:02d}:00 EST" for d in range(1, 20)], "EST"),
        ([f"{d:02d}/01/2024 10:{d:02d} CET" for d in range(13, 29)], "CET"),
        ([f"01/{d:02d}/2024 9:{d:02d} PM CST" for d in range(13, 29)], "CST"),
    ],
    ids=["iso-est", "dmy-cet", "mdy-ampm-cst"],
)
def test_a_zone_abbreviation_is_asked_and_read_as_written_once_answered(ns, tmp_path, values, abbreviation):
    _, dataset = ingest(ns, _write(tmp_path / "a.csv", "when", values))
    col = columns(dataset)["when"]
    assert col.type == "string"  # held as text: no zone is picked for it
    (question,) = dataset.questions
    assert question.kind == "time_zone" and abbreviation in question.question
    keep, local = question.options
    assert keep.type == "string" and local.type == "datetime" and local.format.endswith(f" {abbreviation}")
    answer = ns.approve("a.csv", dataset.snapshot_id, columns={"when": "datetime"}, formats={"when": local.format})
    assert answer.retyped and [c.column for c in answer.changes] == ["when"]
    (after,) = ns.dataset_get("a.csv").datasets
    col = columns(after)["when"]
    assert (col.type, col.physical, col.format, after.rows_rejected) == ("datetime", "TIMESTAMP", local.format, 0)
    assert after.questions == []


def test_two_abbreviations_in_one_column_stay_text(ns, tmp_path):
    values = [f"2024-03-{d:02d} 10:00 {'EST' if d < 10 else 'EDT'}" for d in range(1, 20)]
    _, dataset = ingest(ns, _write(tmp_path / "two.csv", "when", values))
    assert columns(dataset)["when"].type == "string"
