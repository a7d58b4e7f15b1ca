"""JSON, NDJSON and Parquet become datasets with exact values and their types kept."""

import pytest
from conftest import ROOT, columns

RECORDS = ROOT / "fixtures" / "records"


def dataset(ns, name):
    status = ns.ingest_file(RECORDS / name, source_uri=name)
    assert status.state == "ready", status.error_message
    (found,) = ns.dataset_get(name, sample_rows=10).datasets
    return found


@pytest.mark.parametrize("name", ["people.json", "people.ndjson"])
def test_json_objects_flattened_with_exact_numbers(ns, name):
    people = dataset(ns, name)
    assert [c.name for c in people.columns] == ["id", "name", "amount", "addr.city", "addr.zip", "tags", "joined"]
    types = {c.name: c.type for c in people.columns}
    assert types["joined"] == "date" and types["tags"] == "string" and types["amount"] == "number"
    amounts = [r["amount"] for r in people.sample]
    # No float between the file and the snapshot: 0.1 stays 0.1, a 2^53+1 integer stays whole.
    assert "0.1" in [a.rstrip("0") if isinstance(a, str) and "." in a else a for a in amounts]
    assert any(str(a).startswith("9007199254740993") for a in amounts)
    assert people.sample[0]["tags"] == '["a", "b"]'
    assert columns(people)["addr.zip"].nulls == 1


def test_parquet_keeps_its_types(ns):
    typed = dataset(ns, "typed.parquet")
    got = {c.name: (c.type, c.physical) for c in typed.columns}
    assert got["code"] == ("string", "VARCHAR")  # a string column of digits stays a string
    assert got["price"] == ("number", "DECIMAL(4, 2)")
    assert got["at"][0] == "datetime" and got["day"] == ("date", "DATE") and got["ok"] == ("bool", "BOOLEAN")
    assert got["id"] == ("number", "BIGINT") and got["nested"][0] == "string"
    assert typed.sample[0]["code"] == "007" and typed.sample[0]["price"] == "12.50"
    assert typed.origin.format == "parquet" and typed.rows == 3


@pytest.mark.parametrize("name", ["scalars.json", "broken.json"])
def test_json_that_is_not_records_fails_with_a_code(ns, name):
    status = ns.ingest_file(RECORDS / name, source_uri=name)
    assert (status.state, status.error_code) == ("failed", "format_unavailable")


def _records(ns, tmp_path, text: str, suffix: str):
    path = tmp_path / f"r{suffix}"
    path.write_text(text, encoding="utf-8")
    status = ns.ingest_file(path, source_uri=path.name)
    assert status.state == "ready", status.error_message
    (found,) = ns.dataset_get(path.name, sample_rows=10).datasets
    return found


@pytest.mark.parametrize("suffix", [".json", ".ndjson"])
@pytest.mark.parametrize(
    "nested, shown",
    [
        ("[1, 2.50, -3e2]", "[1, 2.50, -3e2]"),
        ('[{"k": 12345678901234567890, "l": [0.1]}]', '[{"k": 12345678901234567890, "l": [0.1]}]'),
        ('["x", true, null]', '["x", true, null]'),
    ],
)
def test_numbers_inside_arrays_and_objects_stay_numbers_as_written(ns, tmp_path, suffix, nested, shown):
    """An array [1, 2] was kept as ["1", "2"]: its numbers became strings."""
    rows = [f'{{"id": {i}, "v": {nested}, "w": {{}}}}' for i in range(3)]
    text = "\n".join(rows) if suffix == ".ndjson" else "[" + ", ".join(rows) + "]"
    found = _records(ns, tmp_path, text, suffix)
    assert [r["v"] for r in found.sample] == [shown] * 3


@pytest.mark.parametrize(
    "record, said",
    [
        ('{"id": 1, "a": 1, "a": 2}', "key 'a' more than once"),
        ('{"id": 1, "x": {"y": 1, "y": 2}}', "key 'y' more than once"),
        ('{"id": 1, "p.q": 1, "p": {"q": 2}}', "same column 'p.q'"),
        ('{"id": 1, "p": {"q": 2}, "p.q": 1}', "same column 'p.q'"),
    ],
)
def test_a_value_json_drops_is_said_never_silent(ns, tmp_path, record, said):
    """A key an object holds twice keeps its last value in every JSON parser, and two fields that
    flatten to one column keep the later one: the dataset says which."""
    found = _records(ns, tmp_path, "\n".join([record, '{"id": 2}']), ".ndjson")
    assert any(said in w for w in found.warnings)


def test_nan_and_infinity_are_kept_as_written_not_made_empty(ns, tmp_path):
    found = _records(
        ns, tmp_path, '{"id": 1, "v": NaN}\n{"id": 2, "v": Infinity}\n{"id": 3, "v": -Infinity}', ".ndjson"
    )
    assert [r["v"] for r in found.sample] == ["NaN", "Infinity", "-Infinity"]


@pytest.mark.parametrize("unit", ["s", "ms", "us", "ns"])
def test_a_parquet_duration_is_a_duration_not_its_count_of_ticks(ns, tmp_path, unit):
    """30 hours in a Parquet duration column was stored as the number 108000000000."""
    import datetime as dt

    import pyarrow as pa
    import pyarrow.parquet as pq

    spans = [dt.timedelta(hours=30), dt.timedelta(seconds=90), None, dt.timedelta(days=2, minutes=5), dt.timedelta(0)]
    path = tmp_path / "spans.parquet"
    pq.write_table(pa.table({"took": pa.array(spans, pa.duration(unit))}), path)
    assert ns.ingest_file(path, source_uri="spans").state == "ready"
    (found,) = ns.dataset_get("spans", sample_rows=10).datasets
    assert found.columns[0].type == "duration"
    assert [r["took"] for r in found.sample] == ["P1DT6H", "PT1M30S", None, "P2DT5M", "PT0S"]


def test_a_parquet_integer_of_38_digits_is_stored_exact(ns, tmp_path):
    """A 38-digit DECIMAL(38,0), 2^64-1 and -2^63 are stored as their exact text: no float
    between the file and the snapshot. (A HUGEINT DuckDB's COPY wrote is a DOUBLE in the file
    itself, 1.7014118346046923e+38: that is the value the file holds, read as it is.)"""
    from decimal import Decimal

    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "wide.parquet"
    widest = Decimal("9" * 38)
    table = pa.table(
        {
            "d": pa.array([widest, Decimal(-1)], pa.decimal128(38, 0)),
            "u": pa.array([2**64 - 1, 0], pa.uint64()),
            "i": pa.array([-(2**63), 1], pa.int64()),
        }
    )
    pq.write_table(table, path)
    assert ns.ingest_file(path, source_uri="wide").state == "ready"
    (found,) = ns.dataset_get("wide", sample_rows=2).datasets
    assert found.sample[0] == {"d": "9" * 38, "u": str(2**64 - 1), "i": str(-(2**63))}
    assert found.sample[1] == {"d": "-1", "u": "0", "i": 1}
