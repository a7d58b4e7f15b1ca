"""Zones on datetimes written by position (31/12/2024 10:15 UTC) read as TIMESTAMPTZ, as ISO ones
do; a zone abbreviation (EST, CST, CEST) names more than one zone and is asked (time_zone), never
resolved: held as text, or read as the local times written, the abbreviation kept in the format."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

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


def _table(path, delimiter, values):
    """A file of three columns (id, when, amount) split by `delimiter`: the zones are read in a
    table, not a lone list."""
    rows = [delimiter.join(("id", "when", "amount"))]
    rows += [delimiter.join((str(i), v, f"{i}.5")) for i, v in enumerate(values, 1)]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def _read_back(ns, uri):
    plan = {"datasets": [{"source_uri": uri}], "select": [{"column": "id"}, {"column": "when"}]}
    got = ns.query(plan | {"order_by": [{"column": "id"}]})
    return [row[1] for row in got.typed_rows()]


def _utc(text):
    return datetime.fromisoformat(text).astimezone(UTC)


# (delimiter, values written, the region words the question names, the instants they are)
PAIRS = {
    "iso-est-edt": (
        ",",
        ["2024-03-09 10:00:00 EST", "2024-03-11 10:00:00 EDT", "2024-11-04 09:30:00 EST"],
        "US Eastern",
        ["2024-03-09T10:00:00-05:00", "2024-03-11T10:00:00-04:00", "2024-11-04T09:30:00-05:00"],
    ),
    "dmy-cet-cest": (
        ";",
        ["30/03/2024 10:15 CET", "01/04/2024 10:15 CEST", "28/10/2024 23:59 CET"],
        "Central European",
        ["2024-03-30T10:15:00+01:00", "2024-04-01T10:15:00+02:00", "2024-10-28T23:59:00+01:00"],
    ),
    "mdy-ampm-pst-pdt": (
        "\t",
        ["03/09/2024 9:00 PM PST", "03/11/2024 9:00 AM PDT", "12/31/2024 11:59 PM PST"],
        "US Pacific",
        ["2024-03-09T21:00:00-08:00", "2024-03-11T09:00:00-07:00", "2024-12-31T23:59:00-08:00"],
    ),
    "iso-t-aest-aedt": (
        "|",
        ["2024-04-06T10:00 AEDT", "2024-04-08T10:00 AEST", "2024-10-07T02:30 AEDT"],
        "Australian Eastern",
        ["2024-04-06T10:00:00+11:00", "2024-04-08T10:00:00+10:00", "2024-10-07T02:30:00+11:00"],
    ),
    "fraction-est-edt": (
        ",",
        ["2024-03-09 10:15:30.250 EST", "2024-03-11 10:15:30.000001 EDT", "2024-03-12 10:15:30.5 EDT"],
        "US Eastern",
        ["2024-03-09T10:15:30.250-05:00", "2024-03-11T10:15:30.000001-04:00", "2024-03-12T10:15:30.5-04:00"],
    ),
}


@pytest.mark.parametrize(("delimiter", "values", "region", "instants"), PAIRS.values(), ids=PAIRS)
def test_a_standard_and_daylight_pair_is_asked_and_read_with_its_offsets_once_answered(
    ns, tmp_path, delimiter, values, region, instants
):
    _, dataset = ingest(ns, _table(tmp_path / "pair.csv", delimiter, values * 6))
    assert columns(dataset)["when"].type == "string"  # held as text until asked
    (question,) = dataset.questions
    assert question.kind == "time_zone" and region in question.question
    keep, zoned, local = question.options
    assert keep.type == "string" and zoned.type == "datetime" and local.type == "datetime"
    answer = ns.approve("pair.csv", dataset.snapshot_id, columns={"when": "datetime"}, formats={"when": zoned.format})
    assert answer.retyped
    (after,) = ns.dataset_get("pair.csv").datasets
    col = columns(after)["when"]
    assert (col.physical, col.format, after.rows_rejected, after.questions) == ("TIMESTAMPTZ", zoned.format, 0, [])
    assert _read_back(ns, "pair.csv") == [_utc(i) for i in instants] * 6


def test_a_pair_two_regions_write_is_asked_with_each_region(ns, tmp_path):
    values = ["2024-03-09 10:00 CST", "2024-03-11 10:00 CDT"] * 6
    _, dataset = ingest(ns, _table(tmp_path / "c.csv", ",", values))
    (question,) = dataset.questions
    assert question.kind == "time_zone" and "US Central" in question.question and "Cuba" in question.question
    keep, central, cuba, local = question.options
    ns.approve("c.csv", dataset.snapshot_id, columns={"when": "datetime"}, formats={"when": cuba.format})
    assert _read_back(ns, "c.csv")[:2] == [_utc("2024-03-09T10:00-05:00"), _utc("2024-03-11T10:00-04:00")]


def test_abbreviations_of_no_one_region_are_asked_and_read_as_local_times_once_answered(ns, tmp_path):
    values = ["2024-01-02 10:15 EST", "2024-01-02 16:15 CET", "2024-01-03 08:00 EST"] * 6
    _, dataset = ingest(ns, _table(tmp_path / "m.csv", ",", values))
    assert columns(dataset)["when"].type == "string"
    (question,) = dataset.questions
    assert question.kind == "time_zone" and "'CET'" in question.question and "'EST'" in question.question
    keep, local = question.options
    ns.approve("m.csv", dataset.snapshot_id, columns={"when": "datetime"}, formats={"when": local.format})
    (after,) = ns.dataset_get("m.csv").datasets
    assert (columns(after)["when"].physical, after.rows_rejected) == ("TIMESTAMP", 0)
    assert _read_back(ns, "m.csv")[:3] == [
        datetime(2024, 1, 2, 10, 15),
        datetime(2024, 1, 2, 16, 15),
        datetime(2024, 1, 3, 8),
    ]


FRACTIONS = {
    "iso-utc": ("2024-01-02 10:15:30.250 UTC", "%Y-%m-%dT%H:%M:%S%z", "2024-01-02T10:15:30.250+00:00"),
    "iso-t-offset": ("2024-01-02T10:15:30.123456+01:00", "%Y-%m-%dT%H:%M:%S%z", "2024-01-02T10:15:30.123456+01:00"),
    "dmy-utc": ("31/12/2024 10:15:30.250 UTC", "%d/%m/%Y %H:%M:%S.%f %Z", "2024-12-31T10:15:30.250+00:00"),
    "dotted-offset": ("12.03.2024 09:00:00.5 +01:00", "%d.%m.%Y %H:%M:%S.%f %z", "2024-03-12T09:00:00.5+01:00"),
}


def test_fractions_of_a_second_beside_a_zone_are_read_exactly(ns, tmp_path):
    """Each way of writing them in a column of its own, in one table (one ingest for the four)."""
    names = [f"when {case}" for case in FRACTIONS]
    rows = [";".join(["id", *names])]
    rows += [";".join([str(i), *(value for value, _, _ in FRACTIONS.values())]) for i in range(1, 13)]
    (tmp_path / "f.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    _, dataset = ingest(ns, tmp_path / "f.csv")
    assert dataset.questions == []
    plan = {"datasets": [{"source_uri": "f.csv"}], "select": [{"column": c} for c in ["id", *names]]}
    got = ns.query(plan | {"order_by": [{"column": "id"}]}).typed_rows()
    for k, (name, (_, fmt, instant)) in enumerate(zip(names, FRACTIONS.values()), 1):
        col = columns(dataset)[name]
        assert (col.type, col.physical, col.format) == ("datetime", "TIMESTAMPTZ", fmt), name
        assert [row[k] for row in got] == [_utc(instant)] * 12, name


def test_a_fraction_finer_than_a_microsecond_is_not_cut(ns, tmp_path):
    values = [f"2024-01-02T10:15:30.12345678{d}+01:00" for d in range(10)]
    _, dataset = ingest(ns, _table(tmp_path / "n.csv", ",", values))
    assert columns(dataset)["when"].type == "string"
    assert _read_back(ns, "n.csv") == values


def test_a_fraction_beside_one_abbreviation_is_asked_and_kept(ns, tmp_path):
    values = [f"2024-01-{d:02d} 10:15:30.{d:03d} EST" for d in range(1, 13)]
    _, dataset = ingest(ns, _table(tmp_path / "e.csv", "|", values))
    (question,) = dataset.questions
    keep, local = question.options
    assert question.kind == "time_zone" and local.format == "%Y-%m-%d %H:%M:%S.%f EST"
    ns.approve("e.csv", dataset.snapshot_id, columns={"when": "datetime"}, formats={"when": local.format})
    assert _read_back(ns, "e.csv") == [datetime(2024, 1, d, 10, 15, 30, d * 1000) for d in range(1, 13)]


MIXED = {
    "iso": ("2024-01-02 10:15 UTC", "2024-01-02T10:15:00+01:00", "2024-01-02 10:15"),
    "dmy": ("31/12/2024 10:15 UTC", "31/12/2024 10:15 +01:00", "31/12/2024 10:15"),
    "dmy-seconds-gmt": ("31/12/2024 10:15:00 GMT", "31/12/2024 10:15:00 -0500", "31/12/2024 10:15:00"),
}


@pytest.mark.parametrize(("utc", "offset", "bare"), MIXED.values(), ids=MIXED)
def test_utc_beside_offsets_beside_no_zone_is_asked_and_no_value_is_shifted(ns, tmp_path, utc, offset, bare):
    _, dataset = ingest(ns, _table(tmp_path / "x.csv", ",", [utc, offset, bare] * 5))
    (question,) = dataset.questions
    assert question.kind == "mixed_values" and "UTC" in question.question
    assert [o.rows_rejected for o in question.options] == [0, 0]
    zoned = next(o for o in question.options if o.type == "datetime")
    ns.approve("x.csv", dataset.snapshot_id, columns={"when": "datetime"}, formats={"when": zoned.format})
    (after,) = ns.dataset_get("x.csv").datasets
    assert (columns(after)["when"].physical, after.rows_rejected) == ("TIMESTAMPTZ", 0)
    day = _utc(offset.replace(" +", "+").replace(" -", "-")) if "T" in offset else None
    got = _read_back(ns, "x.csv")[:3]
    local = got[2].replace(tzinfo=None)
    assert got[0] == local.replace(tzinfo=UTC)  # UTC as written
    assert got[2] == local.replace(tzinfo=UTC)  # no zone: read as UTC, as the question said
    hours = 1 if "+01" in offset else -5
    assert got[1] == (local - timedelta(hours=hours)).replace(tzinfo=UTC)  # the offset applied
    assert day is None or got[1] == day


OUT_OF_RANGE = {
    "iso-plus-15": "2024-01-02T10:15:00+15:00",
    "iso-minus-13-30": "2024-01-02 10:15:00-13:30",
    "dmy-plus-1500": "02/01/2024 10:15 +1500",
}


@pytest.mark.parametrize("bad", OUT_OF_RANGE.values(), ids=OUT_OF_RANGE)
def test_an_offset_past_any_real_zone_is_refused(ns, tmp_path, bad):
    good = bad[:-6] + "+14:00" if bad[-3] == ":" else bad[:-5] + "-1200"
    _, dataset = ingest(ns, _table(tmp_path / "o.csv", ",", [good] * 11 + [bad]))
    col = columns(dataset)["when"]
    assert col.type == "string"  # held: the value is never read with an offset no zone has
    assert [q.kind for q in dataset.questions] in ([], ["mixed_values"])
    assert _read_back(ns, "o.csv")[-1] == bad


def test_the_last_real_offsets_are_read(ns, tmp_path):
    values = ["2024-01-02T10:15:00+14:00", "2024-01-02T10:15:00-12:00", "2024-01-02T10:15:00+05:45"] * 4
    _, dataset = ingest(ns, _table(tmp_path / "r.csv", ",", values))
    assert (columns(dataset)["when"].physical, dataset.questions) == ("TIMESTAMPTZ", [])
    assert _read_back(ns, "r.csv")[:3] == [_utc(v) for v in values[:3]]
