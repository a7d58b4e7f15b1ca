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
