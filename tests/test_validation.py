"""tabular/validation.py: pydantic's errors and keys no model takes, as VALIDATION_FAILED items
in words: the JSON path, what was expected, what came, and the close names of a wrong name."""

from __future__ import annotations

from typing import ClassVar, Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tabular.errors import ValidationFailed
from tabular.validation import MISSING, misspelling_of, one_of, refused_keys, validation_failed, validation_items


class Filter(BaseModel):
    model_config = ConfigDict(extra="forbid")
    column: str
    op: Literal["eq", "ne", "lt", "gt"]
    value: int


class Query(BaseModel):
    model_config = ConfigDict(extra="forbid")
    dataset: str
    where: list[Filter] = []
    limit: int = Field(100, ge=1, le=1000)


class Plan(BaseModel):
    closed: ClassVar[bool] = True  # a plan is closed: every unknown key is refused (SPEC §2)
    filters: list = []
    aggregates: list = []


class Ingest(BaseModel):
    source_uri: str
    title: str = ""


def items(body):
    with pytest.raises(ValidationError) as caught:
        Query.model_validate(body)
    return {i.path: i for i in validation_items(caught.value.errors(), Query, "knowledge.query")}


def test_a_wrong_choice_is_named_at_its_json_path_with_the_choices_and_a_close_one():
    got = items(
        {"dataset": "a", "where": [{"column": "x", "op": "eq", "value": 1}, {"column": "y", "op": "gtt", "value": 2}]}
    )
    item = got["where[1].op"]
    assert item.expected == "one of: eq, ne, lt, gt"
    assert item.received == "gtt"
    assert item.did_you_mean == ["gt"]


def test_a_wrong_type_says_what_was_expected_in_words():
    got = items({"dataset": "a", "where": [{"column": "x", "op": "eq", "value": "many"}]})
    item = got["where[0].value"]
    assert (item.expected, item.received) == ("an integer", "many")


def test_a_value_out_of_bounds_says_the_bound():
    assert items({"dataset": "a", "limit": 0})["limit"].expected == "at least 1"
    assert items({"dataset": "a", "limit": 5000})["limit"].expected == "at most 1000"


def test_a_missing_field_is_said_once_and_a_misspelled_key_is_said_at_the_key():
    assert items({})["dataset"].message == MISSING
    got = items({"datset": "a"})
    assert set(got) == {"datset"}  # not also 'dataset' missing: one problem, said once
    assert got["datset"].did_you_mean == ["dataset"]
    assert got["datset"].expected == "one of: dataset, where, limit"


def test_an_unknown_key_in_a_nested_object_names_its_parent():
    got = items({"dataset": "a", "where": [{"column": "x", "op": "eq", "value": 1, "colour": "red"}]})
    item = got["where[0].colour"]
    assert item.expected == "one of: column, op, value"
    assert item.received == "colour"


def test_a_plan_refuses_every_key_that_is_no_clause_but_not_identity_fields():
    refused = refused_keys({"filter": [], "org": "acme", "request_id": "r1", "aggregates": []}, Plan, "")
    assert [(i.path, i.did_you_mean) for i in refused] == [("filter", ["filters"])]


def test_elsewhere_only_a_close_misspelling_is_refused_and_other_keys_are_served():
    refused = refused_keys(
        {"source_ur": "a.csv", "comment": "hello", "source_uri": "a.csv"}, Ingest, "knowledge.ingest"
    )
    assert [(i.path, i.did_you_mean) for i in refused] == [("source_ur", ["source_uri"])]


@pytest.mark.parametrize(
    ("key", "field"),
    [("aggregate", "aggregates"), ("Limit", "limit"), ("compute", "computed"), ("comment", None), ("zzz", None)],
)
def test_a_misspelling_is_one_letter_off_not_a_merely_similar_word(key, field):
    assert misspelling_of(key, ["aggregates", "limit", "computed", "columns"]) == field


def test_choices_that_are_not_plain_words_are_quoted():
    assert one_of(["count", "sum"]) == "one of: count, sum"
    assert one_of([".", ","]) == "one of: '.', ','"


def test_the_error_names_its_first_problem():
    error = validation_failed(list(items({"dataset": "a", "limit": 0}).values()))
    assert isinstance(error, ValidationFailed) and error.status == 422
    assert error.message.startswith("1 problem(s) with the input: ")
    assert error.to_detail()["errors"][0]["path"] == "limit"
