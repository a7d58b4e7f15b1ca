"""tabular/backends/base.py: one backend per engine, chosen once per open home by query_engine;
a backend that cannot stream hands a whole result to the home's own engine; ops ask what a
backend does (its capabilities), never its name."""

from __future__ import annotations

import gc
import weakref
from dataclasses import replace

import pytest

from planner.targets import TARGETS
from tabular.backends.base import Backend, backend_for, home_backend
from tabular.settings import Settings
from tabular.store.home import Catalog


@pytest.fixture
def home(tmp_path):
    catalog = Catalog(str(tmp_path / "home"))
    yield catalog
    catalog.close()


def test_each_engine_a_backend_of_its_own_chosen_once_per_home(home, tmp_path):
    settings = Settings()
    duck = backend_for(home, settings)
    assert duck is backend_for(home, settings)  # chosen once
    assert duck.name == settings.query_engine and duck.target is TARGETS[duck.name]
    assert duck.engine.startswith(f"{duck.name} ")
    other = Catalog(str(tmp_path / "other"))
    try:
        assert backend_for(other, settings) is not duck  # per open home
    finally:
        other.close()


def test_every_planner_target_has_a_backend_that_meets_the_protocol(home):
    for name in TARGETS:
        made: Backend = backend_for(home, Settings(), name)
        assert made.target is TARGETS[name]
        for method in ("place", "finish", "deadline", "run", "counts", "stream"):
            assert callable(getattr(made, method))


def test_a_backend_that_cannot_stream_hands_a_whole_result_to_the_homes_engine(home):
    settings = replace(Settings(), query_engine="clickhouse")
    chosen = backend_for(home, settings)
    assert not chosen.capabilities.streams
    home_engine = home_backend(home, settings)
    assert backend_for(home, settings, streams=True) is home_engine
    assert home_engine.capabilities.streams and home_engine.capabilities.counts_unread


def test_an_unknown_engine_is_refused_naming_the_choices(home):
    with pytest.raises(ValueError, match="duckdb, clickhouse"):
        backend_for(home, Settings(), "sqlite")


def test_a_homes_backends_do_not_keep_it_open(tmp_path):
    catalog = Catalog(str(tmp_path / "home"))
    backend_for(catalog, Settings())
    catalog.close()
    gone = weakref.ref(catalog)
    del catalog
    gc.collect()
    assert gone() is None
