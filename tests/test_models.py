"""tabular/models.py: the typed input and output of the ingest ops and dataset_get: unknown op
fields are kept (named in ignored_args), options and origins are closed, and the limits SPEC §4
sets are enforced at the boundary."""

from __future__ import annotations

import json
import subprocess
import sys
import typing

import pytest
from pydantic import ValidationError

from tabular.infer.questions import KINDS
from tabular.models import (
    METADATA_BYTES,
    Coverage,
    DatasetGetIn,
    IngestIn,
    IngestOptions,
    IngestStatusOut,
    Origin,
    QuestionKind,
)


def errors_of(model, body):
    with pytest.raises(ValidationError) as caught:
        model.model_validate(body)
    return {(tuple(e["loc"]), e["type"]) for e in caught.value.errors()}


def test_an_op_keeps_unknown_fields_to_name_them_and_fills_org_and_namespace_later():
    got = IngestIn.model_validate({"upload_id": "u_1", "source_uri": "a.csv", "colour": "red"})
    assert (got.org, got.namespace) == ("", "")
    assert got.model_extra == {"colour": "red"}
    assert got.options == IngestOptions()


def test_ingest_options_are_closed_a_misspelled_option_is_refused():
    assert ((("options", "delimeter"), "extra_forbidden")) in errors_of(
        IngestIn, {"upload_id": "u", "source_uri": "a.csv", "options": {"delimeter": ";"}}
    )


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"delimiter": ";;"}, "delimiter"),
        ({"delimiter": ""}, "delimiter"),
        ({"header_rows": 3}, "header_rows"),
        ({"decimal_mark": ";"}, "decimal_mark"),
        ({"date_order": "DDMMYY"}, "date_order"),
        ({"encoding": "rot13"}, "encoding"),
        ({"encoding": "no-such-codec"}, "encoding"),
    ],
)
def test_an_option_out_of_its_range_is_refused_at_its_field(options, field):
    assert {loc[-1] for loc, _ in errors_of(IngestOptions, options)} == {field}


def test_a_real_text_encoding_is_taken():
    assert IngestOptions(encoding="cp1252").encoding == "cp1252"
    assert IngestOptions(encoding="shift_jis").encoding == "shift_jis"


def test_ingest_limits_are_enforced_at_the_boundary():
    base = {"upload_id": "u", "source_uri": "a.csv"}
    assert (("source_uri",), "string_too_short") in errors_of(IngestIn, {**base, "source_uri": ""})
    assert (("tags",), "too_long") in errors_of(IngestIn, {**base, "tags": ["t"] * 101})
    assert (("expected_revision",), "greater_than_equal") in errors_of(IngestIn, {**base, "expected_revision": -1})
    big = {"blob": "x" * METADATA_BYTES}
    assert (("metadata",), "value_error") in errors_of(IngestIn, {**base, "metadata": big})
    IngestIn.model_validate({**base, "metadata": {"blob": "x" * 1000}})


def test_an_origin_declares_every_key_it_may_carry():
    assert Origin(format="csv").header_rows == 1
    assert ((("secret",), "extra_forbidden")) in errors_of(Origin, {"format": "csv", "secret": 1})


def test_coverage_of_rows_and_of_sheets_counts_what_was_lost():
    assert Coverage.of_rows(5) == {"unit": "rows", "total": 5, "extracted": 5, "failed": 0, "lost": []}
    sheets = Coverage.of_sheets(3, ["Chart1: a chart sheet"])
    assert (sheets["total"], sheets["extracted"], sheets["failed"], sheets["lost"]) == (
        3,
        2,
        1,
        ["Chart1: a chart sheet"],
    )


def test_the_apis_question_kinds_are_the_kinds_infer_asks():
    assert set(typing.get_args(QuestionKind)) == set(KINDS)


def test_dataset_get_samples_at_most_a_thousand_rows():
    assert DatasetGetIn(source_uri="a.csv", sample_rows=1000).sample_rows == 1000
    assert (("sample_rows",), "less_than_equal") in errors_of(
        DatasetGetIn, {"source_uri": "a.csv", "sample_rows": 1001}
    )


def test_a_status_not_found_still_has_its_shape():
    status = IngestStatusOut(found=False, ingestion_id="j_nope")
    assert (status.state, status.coverage.total, status.progress.done, status.ignored_args) == ("", 0, 0, [])


def test_an_ops_models_are_built_when_first_used_not_when_imported():
    # Issue 56: a command runs one op; importing the op modules builds no validator, so `tabular
    # list` does not wait for every op's models. Built at first use, each validates as before.
    code = (
        "import json, tabular.models as m, tabular.ops.lifecycle as life\n"
        "before = [m.DatasetGetIn.__pydantic_complete__, life.ListIn.__pydantic_complete__]\n"
        "life.ListIn.model_validate({'prefix': 'a'})\n"
        "print(json.dumps([before, life.ListIn.__pydantic_complete__, m.DatasetGetIn.__pydantic_complete__]))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [[False, False], True, False]
