"""tabular/settings.py: every limit a setting with a default (SPEC §5), then TABULAR_<FIELD>
environment variables, then explicit overrides."""

from __future__ import annotations

import dataclasses
import os

import pytest

from tabular.settings import DEFAULT_NULL_MARKERS, Settings


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
