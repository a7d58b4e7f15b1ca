"""tabular/settings.py: every limit a setting with a default (SPEC §5), then TABULAR_<FIELD>
environment variables, then explicit overrides."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

import tabular
from tabular.errors import ValidationFailed
from tabular.settings import DEFAULT_NULL_MARKERS, SettingInvalid, Settings, naming_the_change


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
    ("raw", "value"),
    [("1", True), ("true", True), (" Yes ", True), ("on", True), ("0", False), ("no", False), ("OFF", False)],
)
def test_a_flag_from_the_environment_reads_as_people_write_it(monkeypatch, raw, value):
    monkeypatch.setenv("TABULAR_WATCH_LINKS", raw)
    assert Settings.from_env().watch_links is value


def test_null_markers_are_set_from_the_environment_as_a_json_list(monkeypatch):
    """TABULAR_NULL_MARKERS was ignored without a word; a list of texts as JSON (a marker may
    hold a comma), anything else refused."""
    monkeypatch.setenv("TABULAR_NULL_MARKERS", '["", "NA", "-", "n, a"]')
    assert Settings.from_env().null_markers == ("", "NA", "-", "n, a")
    for raw in ("NA,-", '{"NA": 1}', "[1, 2]"):
        monkeypatch.setenv("TABULAR_NULL_MARKERS", raw)
        with pytest.raises(SettingInvalid, match="TABULAR_NULL_MARKERS=.* is not a JSON list of texts") as refused:
            Settings.from_env()
        assert refused.value.name == "null_markers"


def test_an_explicit_override_wins_over_the_environment(monkeypatch):
    monkeypatch.setenv("TABULAR_SNAPSHOTS_KEPT", "3")
    assert Settings.from_env(snapshots_kept=5).snapshots_kept == 5


def test_a_malformed_number_in_the_environment_is_refused_not_ignored(monkeypatch):
    monkeypatch.setenv("TABULAR_MAX_UPLOAD_BYTES", "lots")
    with pytest.raises(ValueError):
        Settings.from_env()


def test_an_unknown_override_is_an_error():
    # A SettingInvalid naming it (connect() answers VALIDATION_FAILED), where it was a TypeError.
    with pytest.raises(SettingInvalid, match="max_upload_megabytes"):
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
    "name, value, expected",
    [
        ("ingest_workers", 0, "at least 1"),
        ("job_attempts", 0, "at least 1"),
        ("max_upload_bytes", -1, "at least 1"),
        ("max_local_file_bytes", -1, "at least 0"),
        ("query_seconds", -0.5, "more than 0"),
        ("cancel_wait_seconds", -0.5, "at least 0"),
    ],
)
def test_a_limit_that_cannot_hold_is_refused_naming_its_variable(name, value, expected):
    with pytest.raises(ValueError, match=f"{name} is {value}; it must be {expected} \\(TABULAR_{name.upper()}\\)"):
        Settings(**{name: value})


@pytest.mark.parametrize("raw", ["nan", "NaN", "inf", "-inf"])
@pytest.mark.parametrize("name", ["query_seconds", "job_watch_seconds", "upload_keep_seconds", "mixed_values_share"])
def test_a_number_that_is_no_finite_number_is_refused_from_the_environment(monkeypatch, name, raw):
    """NaN seconds compared false with every clock (a query never timed out); infinity is no
    time either. Every number setting, whatever its bounds."""
    monkeypatch.setenv(f"TABULAR_{name.upper()}", raw)
    with pytest.raises(SettingInvalid, match=f"{name} is {raw.lower().lstrip('-')}|{name} is -inf") as refused:
        Settings.from_env()
    assert (refused.value.name, refused.value.expected) == (name, "a finite number")


@pytest.mark.parametrize("raw", ["ture", "yes please", "2", "", "enabled"])
@pytest.mark.parametrize("name", ["parallel_csv", "watch_links", "take_up_jobs"])
def test_a_flag_in_words_no_one_reads_as_a_flag_is_refused_not_taken_as_false(monkeypatch, name, raw):
    monkeypatch.setenv(f"TABULAR_{name.upper()}", raw)
    with pytest.raises(SettingInvalid, match=f"TABULAR_{name.upper()}={raw!r} is not a flag") as refused:
        Settings.from_env()
    assert refused.value.name == name and "true" in refused.value.expected and "false" in refused.value.expected


@pytest.mark.parametrize(
    "name",
    ["query_seconds", "job_seconds", "take_up_seconds", "link_rescan_seconds", "query_memory_share",
     "csv_chunk_rows", "sniff_bytes", "max_body_bytes", "max_input_depth", "datasets_per_plan", "link_jobs"],
)  # fmt: skip
def test_a_zero_where_the_engine_needs_more_is_refused_from_the_environment_and_as_an_argument(monkeypatch, name):
    """A zero that would time every query out at once, spin a watch that never waits, or
    refuse every file or call: refused, naming the setting and what it needs."""
    with pytest.raises(SettingInvalid, match=f"{name} is 0; it must be") as refused:
        Settings(**{name: 0})
    assert refused.value.expected in ("at least 1", "more than 0", "a share above 0 and at most 1")
    monkeypatch.setenv(f"TABULAR_{name.upper()}", "0")
    with pytest.raises(SettingInvalid, match=f"{name} is 0"):
        Settings.from_env()


@pytest.mark.parametrize(
    "name",
    ["max_local_file_bytes", "upload_keep_seconds", "org_storage_bytes", "compiled_cache_entries", "tokens_check_seconds",
     "job_queue_per_org", "fast_path_bytes", "sheet_fast_bytes", "cancel_wait_seconds", "synthesize_max_wrong"],
)  # fmt: skip
def test_a_zero_that_means_none_is_taken(name):
    """No bound, kept for good, no cache, no wait: a zero the engine runs with."""
    assert getattr(Settings(**{name: 0}), name) == 0


@pytest.mark.parametrize(
    "name, value, expected",
    [
        ("port", 0, "a port from 1 to 65535"),
        ("port", 70_000, "a port from 1 to 65535"),
        ("clickhouse_port", -1, "a port from 1 to 65535"),
        ("mixed_values_share", 1.5, "a share above 0 and at most 1"),
        ("synthesize_max_wrong", 2, "a share from 0 to 1"),
        ("clickhouse_secure", 2, "0 or 1"),
        ("query_engine", "postgres", "one of duckdb, clickhouse"),
        ("duckdb_memory", "lots", "a share of the machine's memory (60%) or a size (512MB, 4GB, 2GiB)"),
        ("duckdb_memory", "0GB", "a share of the machine's memory (60%) or a size (512MB, 4GB, 2GiB)"),
        ("duckdb_memory", "150%", "a share of the machine's memory (60%) or a size (512MB, 4GB, 2GiB)"),
        ("host", " ", "an address to listen on (127.0.0.1, 0.0.0.0, ::1)"),
    ],
)
def test_a_value_outside_what_the_setting_can_be_is_refused_saying_what_it_can_be(name, value, expected):
    with pytest.raises(SettingInvalid) as refused:
        Settings(**{name: value})
    assert (refused.value.name, refused.value.expected, refused.value.received) == (name, expected, value)
    assert f"TABULAR_{name.upper()}" in str(refused.value)


@pytest.mark.parametrize(
    "name, value, expected",
    [
        ("max_upload_bytes", "1024", "an integer"),
        ("max_upload_bytes", 1.5, "an integer"),
        ("ingest_workers", True, "an integer"),
        ("query_seconds", "30", "a finite number"),
        ("parallel_csv", "ture", "true or false"),
        ("parallel_csv", 1, "true or false"),
        ("default_org", 7, "a text"),
        ("null_markers", "NA", "a list of texts"),
        ("null_markers", ["NA", None], "a list of texts"),
    ],
)
def test_an_argument_of_the_wrong_type_is_refused_not_kept_to_fail_later(name, value, expected):
    """connect(parallel_csv="ture") or connect(max_upload_bytes="1024") was kept as given, to
    fail at the first comparison as INTERNAL, or to read as a flag it did not say."""
    with pytest.raises(SettingInvalid) as refused:
        Settings(**{name: value})
    assert (refused.value.name, refused.value.expected) == (name, expected)


def test_an_argument_in_a_kindred_type_is_taken_in_the_settings_own():
    settings = Settings(max_upload_bytes=1e6, query_seconds=2, null_markers=["NA", "-"], duckdb_memory="2 GiB")
    assert (settings.max_upload_bytes, type(settings.max_upload_bytes)) == (1_000_000, int)
    assert (settings.query_seconds, settings.null_markers) == (2, ("NA", "-"))
    assert Settings(duckdb_memory="75%").duckdb_memory == "75%"
    assert Settings(tokens=Path("/etc/tabular/tokens.json")).tokens == "/etc/tabular/tokens.json"


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


@pytest.mark.parametrize("memory", ["60% ", " 4GB", "512", "512B", "4 G"])
def test_a_memory_limit_the_store_cannot_read_is_refused_naming_it(memory):
    """Each of these passed the check and then failed inside connect() (INTERNAL), or gave DuckDB a
    limit of bytes no query fits in."""
    with pytest.raises(ValidationFailed) as refused:
        tabular.connect(":memory:", duckdb_memory=memory)
    assert refused.value.errors[0].path == "settings.duckdb_memory"


def test_a_setting_no_engine_has_is_refused_naming_the_close_ones():
    with pytest.raises(ValidationFailed) as refused:
        tabular.connect(":memory:", query_secnds=3)
    item = refused.value.errors[0]
    assert item.path == "settings.query_secnds" and "query_seconds" in (item.expected or "")


def test_an_integer_past_a_floats_range_is_a_bound_not_an_error():
    with tabular.connect(":memory:", max_upload_bytes=10**400) as engine:
        assert engine.settings.max_upload_bytes == 10**400
