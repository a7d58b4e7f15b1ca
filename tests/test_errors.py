"""tabular/errors.py: the stable codes and statuses of SPEC §2, the JSON path of a pydantic
location, and an error item as JSON carries it."""

from __future__ import annotations

import json
import re
import typing
from pathlib import Path

import pytest
from conftest import ROOT

from tabular import errors
from tabular.errors import ErrorItem, ValidationFailed, close_names, json_path

CODES = [
    (errors.ValidationFailed, "VALIDATION_FAILED", 422),
    (errors.NotFound, "RESOURCE_NOT_FOUND", 404),
    (errors.PreconditionFailed, "PRECONDITION_FAILED", 409),
    (errors.TooLarge, "TOO_LARGE", 413),
    (errors.BackendTimeout, "BACKEND_TIMEOUT", 504),
    (errors.AuthInvalid, "AUTH_INVALID", 401),
    (errors.AuthInsufficient, "AUTH_INSUFFICIENT", 403),
    (errors.RateLimited, "RATE_LIMITED", 429),
    (errors.Overloaded, "OVERLOADED", 503),
    (errors.MethodNotAllowed, "METHOD_NOT_ALLOWED", 405),
    (errors.PathNotFound, "PATH_NOT_FOUND", 404),
    (errors.PathNotAllowed, "PATH_NOT_ALLOWED", 403),
    (errors.DiskRoot, "DISK_ROOT", 422),
    (errors.StorageDamaged, "STORAGE_DAMAGED", 500),
    (errors.StorageUnwritable, "STORAGE_UNWRITABLE", 503),
    (errors.Internal, "INTERNAL", 500),
]
# The folder limits: 413 each, with the count and the limit (below).
LIMITS = [
    (errors.TooManyFiles, "TOO_MANY_FILES"),
    (errors.FolderTooLarge, "FOLDER_TOO_LARGE"),
    (errors.TooManyLinks, "TOO_MANY_LINKS"),
]


@pytest.mark.parametrize(("cls", "code", "status"), CODES)
def test_each_error_kind_carries_the_code_and_status_of_spec_section_2(cls, code, status):
    error = cls("something")
    assert (error.code, error.status) == (code, status)
    assert isinstance(error, errors.TabularError)
    assert error.to_detail("req-1") == {"code": code, "message": "something", "request_id": "req-1"}


def every_code() -> set[str]:
    """The codes errors.py defines: each kind of TabularError's (the folder limits' on their own)."""
    kinds = [v for v in vars(errors).values() if isinstance(v, type) and issubclass(v, errors.TabularError)]
    return {kind.code for kind in kinds if kind is not errors.OverLimit}


def test_every_code_errors_py_defines_is_in_the_table_above_or_the_folder_limits():
    """A code added to errors.py (STORAGE_UNWRITABLE was) is a test of its status here, or fails."""
    tested = {code for _, code, _ in CODES} | {code for _, code in LIMITS}
    assert every_code() == tested


def test_every_code_a_person_can_act_on_says_what_to_do_next_in_the_cli():
    """The CLI says a refusal in one line and what to do next; a home that cannot be written said
    only what broke. A code without a next step is one whose message already says it all."""
    from tabular.cli import NEXT_STEP

    said_by_the_message = {
        "METHOD_NOT_ALLOWED",  # HTTP only: a route called with a method it does not serve
        "INTERNAL",  # a defect: the CLI says "this is a bug" and how to report it
        "STORAGE_DAMAGED",  # names the damaged file; the rest keeps serving
        "PATH_NOT_FOUND",
        "PATH_NOT_ALLOWED",
        "DISK_ROOT",
        "TOO_MANY_FILES",  # the folder limits: each names its setting (TABULAR_...)
        "FOLDER_TOO_LARGE",
        "TOO_MANY_LINKS",
    }
    assert every_code() - said_by_the_message <= set(NEXT_STEP)
    assert {"remount", "permission"} <= set(NEXT_STEP["STORAGE_UNWRITABLE"].replace(":", " ").split())


# SPEC §2's codes as checked in, compared once with the SPEC's text (2026-12-07): the test reads
# the SPEC itself where the checkout has it beside it (../shared/SPEC.md), this list where not.
SPEC_CODES = {
    "VALIDATION_FAILED", "AUTH_INVALID", "AUTH_INSUFFICIENT", "RESOURCE_NOT_FOUND", "PRECONDITION_FAILED",
    "TOO_LARGE", "BACKEND_TIMEOUT", "RATE_LIMITED", "OVERLOADED", "METHOD_NOT_ALLOWED", "PATH_NOT_FOUND",
    "PATH_NOT_ALLOWED", "DISK_ROOT", "TOO_MANY_FILES", "FOLDER_TOO_LARGE", "TOO_MANY_LINKS", "STORAGE_DAMAGED",
    "INTERNAL",
}  # fmt: skip


def spec_codes() -> set[str]:
    """The codes of SPEC §2's table (`| VALIDATION_FAILED | 422 …`, `| AUTH_INVALID / AUTH_INSUFFICIENT | …`)."""
    for path in (ROOT.parent / "shared" / "SPEC.md", Path("/work/shared/SPEC.md")):
        if path.is_file():
            section = path.read_text(encoding="utf-8").split("| code | status | when |", 1)[1].split("\n\n", 1)[0]
            cells = [line.split("|")[1] for line in section.splitlines() if line.startswith("| ")]
            return {code for cell in cells for code in re.findall(r"[A-Z][A-Z_]+[A-Z]", cell)}
    return SPEC_CODES


def test_the_closed_set_of_codes_is_the_spec_table_and_the_engines_own():
    """A code the SPEC lists is in `SpecCode`, and `SpecCode` names no other: a code that is not
    the SPEC's is one of `OwnCode`, each said apart."""
    assert set(typing.get_args(errors.SpecCode)) == spec_codes() == SPEC_CODES
    own = {"STORAGE_UNWRITABLE", "CLIENT_CLOSED"}
    assert set(typing.get_args(errors.OwnCode)) == own and not own & spec_codes()
    assert set(typing.get_args(errors.ErrorCode)) == spec_codes() | own


def test_every_error_class_of_the_engine_says_a_code_of_the_closed_set():
    import tabular.service.calls  # noqa: F401  (its ClientClosed is a kind of error too)

    kinds, todo = [], [errors.TabularError]
    while todo:
        kinds.append(todo.pop())
        todo += kinds[-1].__subclasses__()
    assert {"CLIENT_CLOSED", "STORAGE_UNWRITABLE", "INTERNAL"} <= {k.code for k in kinds}
    assert {k.code for k in kinds if k.__module__.startswith("tabular")} <= set(typing.get_args(errors.ErrorCode))


def test_a_setting_refused_is_validation_failed_at_its_name_with_what_was_expected():
    from tabular.settings import Settings

    with pytest.raises(ValueError) as raised:
        Settings(query_seconds=float("nan"))
    detail = errors.setting_refused(raised.value).to_detail()
    assert detail["code"] == "VALIDATION_FAILED"
    assert detail["errors"] == [
        {
            "path": "settings.query_seconds",
            "message": "setting query_seconds is nan; it must be a finite number (TABULAR_QUERY_SECONDS)",
            "expected": "a finite number",
            "received": "nan",
        }
    ]


@pytest.mark.parametrize(("cls", "code"), LIMITS)
def test_a_folder_past_a_limit_is_413_and_says_the_limit_and_the_count_on_path(cls, code):
    error = cls("too many", count=12_345, limit=10_000)
    detail = error.to_detail()
    assert (detail["code"], error.status) == (code, 413)
    assert detail["errors"] == [
        {"path": "path", "message": "too many", "expected": "at most 10,000", "received": 12345}
    ]


@pytest.mark.parametrize(
    ("loc", "path"),
    [
        (("where", 2, "value"), "where[2].value"),
        (("select",), "select"),
        ((0, "name"), "[0].name"),
        (("datasets", 0, "dataset:table", "filters", 1, "expr:compare", "left"), "datasets[0].filters[1].left"),
        ((), ""),
    ],
)
def test_a_pydantic_location_reads_as_a_json_path_without_union_tags(loc, path):
    assert json_path(loc) == path


def test_an_error_item_leaves_out_the_parts_it_does_not_have():
    assert ErrorItem("limit", "must be positive").to_dict() == {"path": "limit", "message": "must be positive"}
    full = ErrorItem("limit", "must be positive", expected="an integer >= 1", received=-3, did_you_mean=["limits"])
    assert full.to_dict() == {
        "path": "limit",
        "message": "must be positive",
        "expected": "an integer >= 1",
        "received": -3,
        "did_you_mean": ["limits"],
    }


def test_a_long_received_value_is_shortened_and_an_object_is_not_echoed():
    long_text = "x" * 10_000
    assert ErrorItem("title", "too long", received=long_text).to_dict()["received"] == "x" * errors.RECEIVED_CHARS + "…"
    many = ErrorItem("tags", "bad", received=list(range(25))).to_dict()["received"]
    assert many == [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, "…"]
    assert ErrorItem("options", "bad", received={"a": 1}).to_dict().get("received") is None


def test_what_json_cannot_carry_is_escaped_not_a_failure_to_answer():
    item = ErrorItem("name\ud800", "bad \ud800", received=float("nan"))
    detail = ValidationFailed("bad input \udfff", [item]).to_detail()
    text = json.dumps(detail, allow_nan=False)  # would raise on a NaN or fail to encode as UTF-8
    text.encode("utf-8")
    assert detail["errors"][0]["received"] == "nan"
    assert "\\ud800" in detail["errors"][0]["path"]


def test_rate_limited_carries_its_retry_after():
    assert errors.RateLimited("slow down", retry_after=7).retry_after == 7
    assert errors.Overloaded("busy").retry_after == 1


def test_storage_damaged_names_the_file_and_ingest_failed_its_code():
    assert errors.StorageDamaged("cut short", path="snapshots/abc.duckdb").path == "snapshots/abc.duckdb"
    failed = errors.IngestFailed("PARSE_FAILED", "no rows")
    assert (failed.error_code, failed.message, str(failed)) == ("PARSE_FAILED", "no rows", "no rows")


@pytest.mark.parametrize(
    ("name", "candidates", "expected"),
    [
        ("amout", ["amount", "account", "date"], ["amount"]),
        ("Region", ["region", "regions", "reason"], ["region", "regions"]),
        ("zzz", ["amount", "date"], []),
        ("anything", [], []),
    ],
)
def test_close_names_offers_at_most_three_near_names_in_their_own_spelling(name, candidates, expected):
    got = close_names(name, candidates)
    assert got[: len(expected)] == expected
    assert len(got) <= 3
    assert set(got) <= set(candidates)
