"""tabular/settings.py: every limit a setting with a default (SPEC §5), then TABULAR_<FIELD>
environment variables, then explicit overrides."""

from __future__ import annotations

import dataclasses
import os

import pytest

from tabular.settings import DEFAULT_NULL_MARKERS, Settings, naming_the_change


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for name in list(os.environ):
        if name.startswith("TABULAR_"):
            monkeypatch.delenv(name)


def test_the_defaults_are_the_documented_limits():
    settings = Settings.from_env()
    assert settings == Settings()
    assert (settings.max_upload_bytes, settings.result_limit_max, settings.snapshots_kept) == (
        256 * 1024 * 1024,
        10_000,
        10,
    )
    assert settings.null_markers == DEFAULT_NULL_MARKERS
    assert settings.max_local_file_bytes == 0  # a file read by path: no bound unless one is set


def test_an_environment_variable_overrides_a_default_in_the_fields_own_type(monkeypatch):
    monkeypatch.setenv("TABULAR_MAX_UPLOAD_BYTES", "1024")
    monkeypatch.setenv("TABULAR_QUERY_SECONDS", "2.5")
    monkeypatch.setenv("TABULAR_DEFAULT_ORG", "acme")
    settings = Settings.from_env()
    assert (settings.max_upload_bytes, settings.query_seconds, settings.default_org) == (1024, 2.5, "acme")


@pytest.mark.parametrize(
    ("raw", "value"), [("1", True), ("true", True), (" Yes ", True), ("on", True), ("0", False), ("no", False)]
)
def test_a_flag_from_the_environment_reads_as_people_write_it(monkeypatch, raw, value):
    monkeypatch.setenv("TABULAR_WATCH_LINKS", raw)
    assert Settings.from_env().watch_links is value


def test_an_explicit_override_wins_over_the_environment(monkeypatch):
    monkeypatch.setenv("TABULAR_SNAPSHOTS_KEPT", "3")
    assert Settings.from_env(snapshots_kept=5).snapshots_kept == 5


def test_a_malformed_number_in_the_environment_is_refused_not_ignored(monkeypatch):
    monkeypatch.setenv("TABULAR_MAX_UPLOAD_BYTES", "lots")
    with pytest.raises(ValueError):
        Settings.from_env()


def test_an_unknown_override_is_an_error():
    with pytest.raises(TypeError):
        Settings.from_env(max_upload_megabytes=1)


def test_an_ingests_own_null_values_replace_the_setting():
    settings = Settings(null_markers=("NA",))
    assert settings.nulls({}) == ("NA",)
    assert settings.nulls({"null_values": ["-", "?"]}) == ("-", "?")
    assert settings.nulls({"null_values": []}) == ("NA",)


def test_link_roots_split_on_the_path_separator_and_skip_empty_parts():
    settings = Settings(link_roots=os.pathsep.join(["/data/a", "", "/data/b"]))
    assert settings.link_roots_list() == ("/data/a", "/data/b")
    assert Settings().link_roots_list() == ()


def test_settings_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        Settings().max_upload_bytes = 1


@pytest.mark.parametrize(
    "message, variables",
    [
        ("the upload is over max_upload_bytes (10 bytes)", ["TABULAR_MAX_UPLOAD_BYTES=…"]),
        (
            "sheet 'S' spans 9 rows × 9 columns, over max_columns or max_sheet_cells",
            ["TABULAR_MAX_COLUMNS=…", "TABULAR_MAX_SHEET_CELLS=…"],
        ),
        ("a line is longer than 9 characters (max_line_bytes)", ["TABULAR_MAX_LINE_BYTES=…"]),
        ("the link may hold 3 (link_files_max); link_files_max is a setting", ["TABULAR_LINK_FILES_MAX=…"]),
    ],
    ids=["over-one", "two-named", "in-brackets", "named-twice"],
)
def test_a_refusal_that_names_a_setting_says_the_variable_that_changes_it(message, variables):
    said = naming_the_change(message)
    assert said.startswith(message)
    assert [v for v in variables if said.count(v) == 1] == variables
    assert naming_the_change(said) == said  # said once


def test_a_refusal_that_names_no_setting_is_left_as_it_is():
    # `home` is a setting too, but a word any message may hold.
    assert (
        naming_the_change("no room left at home (No space left on device)")
        == "no room left at home (No space left on device)"
    )


@pytest.mark.parametrize(
    "name, value, least",
    [("ingest_workers", 0, 1), ("job_attempts", 0, 1), ("max_upload_bytes", -1, 0), ("query_seconds", -0.5, 0)],
)
def test_a_limit_that_cannot_hold_is_refused_naming_its_variable(name, value, least):
    with pytest.raises(
        ValueError, match=f"{name} is {value}; it must be at least {least} \\(TABULAR_{name.upper()}\\)"
    ):
        Settings(**{name: value})


def test_an_environment_variable_that_is_no_number_is_refused_naming_it(monkeypatch):
    monkeypatch.setenv("TABULAR_INGEST_WORKERS", "two")
    with pytest.raises(ValueError, match="TABULAR_INGEST_WORKERS='two' is not an integer"):
        Settings.from_env()
    monkeypatch.setenv("TABULAR_INGEST_WORKERS", "0")
    with pytest.raises(ValueError, match="ingest_workers is 0"):
        Settings.from_env()


def test_synthesize_max_wrong_is_a_share_set_like_any_other(monkeypatch):
    assert Settings().synthesize_max_wrong == 0.02
    monkeypatch.setenv("TABULAR_SYNTHESIZE_MAX_WRONG", "0.05")
    assert Settings.from_env().synthesize_max_wrong == 0.05
    with pytest.raises(ValueError, match="synthesize_max_wrong"):
        Settings(synthesize_max_wrong=-0.01)
