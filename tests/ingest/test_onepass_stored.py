"""Stored extractions (JSON, Parquet, large workbooks: text typed on a sample and built in one
guarded pass) come out as the same cells read the careful way."""

from __future__ import annotations

import json

import pytest
from both_ways import CAREFUL
from onepass_cases import SAME_TYPE, TURNS, write_csv

from tabular.infer import columns

# A stored extraction is long past SAMPLE_HEAD + SAMPLE_SPREAD rows (tabular/infer/columns.py, no
# setting): the default run makes both a tenth of their size and its file a tenth as long, which
# goes the same way (the same sample of every row); `make test-long` writes the 21,000 rows.
SIZES = [pytest.param(10, id="tenth"), pytest.param(1, id="whole", marks=pytest.mark.slow)]


@pytest.mark.parametrize("shrink", SIZES)
@pytest.mark.parametrize(
    "turn",
    ["more_decimals", "leading_zero_later", "text_later", "empty_then_numbers", "markers_later", "ambiguous_then_dmy"],
)
def test_a_long_stored_extraction_typed_on_its_sample_matches_the_careful_way(
    tmp_path, homes, monkeypatch, turn, shrink
):
    """JSON, Parquet and large workbooks are stored as text, typed on a sample and built in one
    guarded pass: the same cells as delimited text read the careful way must come out alike."""
    monkeypatch.setattr(columns, "SAMPLE_HEAD", columns.SAMPLE_HEAD // shrink)
    monkeypatch.setattr(columns, "SAMPLE_SPREAD", columns.SAMPLE_SPREAD // shrink)
    head, tail = TURNS[turn]
    values = [head[i % len(head)] for i in range(21_000 // shrink)] + tail + head
    rows = [[str(i), v] for i, v in enumerate(values, start=1)]
    csv_path = write_csv(tmp_path / "same.csv", ["id", "value"], rows)
    ndjson = tmp_path / "same.ndjson"
    ndjson.write_text("".join(json.dumps({"id": i, "value": v}) + "\n" for i, v in rows))
    uri = homes.uri()  # the same in both homes
    careful = homes.published(csv_path, uri=uri, **CAREFUL)
    stored = homes.published(ndjson, uri=uri)
    took_one_pass = stored.pop("one_pass")
    assert took_one_pass or turn not in SAME_TYPE  # nothing past the sample changes the type: no second pass
    assert stored["dataset"]["rows"] > columns.SAMPLE_HEAD + columns.SAMPLE_SPREAD  # long: typed on its sample
    assert not careful.pop("one_pass")
    for seen in (careful, stored):
        origin = seen["dataset"].pop("origin")
        seen["dataset"].pop("rejected")  # NDJSON rows have other line numbers
        assert origin
    assert stored["dataset"]["columns"][1] == careful["dataset"]["columns"][1]
    assert stored["dataset"]["questions"] == careful["dataset"]["questions"]
    assert (
        stored["rows"] == careful["rows"] and stored["dataset"]["rows_rejected"] == careful["dataset"]["rows_rejected"]
    )
