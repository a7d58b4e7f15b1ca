"""tabular/backends/duckdb.py: plans run on the catalog's DuckDB with bound parameters, rows as
tuples or JSON values, results streamed as Arrow; a statement past its deadline is 504, an exact
answer past 38 digits is refused, not rounded."""

from __future__ import annotations

import pytest

from tabular.backends.duckdb import Stream, over_share, run
from tabular.errors import BackendTimeout, TooLarge, ValidationFailed
from tabular.settings import Settings
from tabular.store.home import Catalog

SETTINGS = Settings()
ENDLESS = "SELECT sum(hash(a.range + b.range)) FROM range(100000000) a, range(100000000) b"


@pytest.fixture
def home(tmp_path):
    catalog = Catalog(str(tmp_path / "home"))
    yield catalog
    catalog.close()


def test_a_statement_runs_with_its_values_bound_as_parameters(home):
    rows = run(home, SETTINGS, "SELECT $name || '!' AS said, $n + 1 AS next", {"name": "O'Brien", "n": 41}, 30)
    assert rows == [("O'Brien!", 42)]


def test_as_json_exact_numbers_travel_as_text_and_dates_as_iso(home):
    sql = (
        "SELECT 12.50::DECIMAL(10, 2) AS amount, DATE '2024-03-25' AS day, 9007199254740993::BIGINT AS big, 7 AS small"
    )
    assert run(home, SETTINGS, sql, {}, 30, as_json=True) == [["12.50", "2024-03-25", "9007199254740993", 7]]


def test_a_statement_past_its_deadline_is_stopped_as_504_and_the_reader_serves_again(home):
    with pytest.raises(BackendTimeout, match="time limit"):
        run(home, SETTINGS, ENDLESS, {}, 0.5)
    assert run(home, SETTINGS, "SELECT 1", {}, 30) == [(1,)]


def test_an_exact_answer_past_38_digits_is_refused_not_rounded(home):
    sql = (
        "SELECT sum(x) FROM (VALUES (99999999999999999999999999999999999999::DECIMAL(38, 0)), (1::DECIMAL(38, 0))) t(x)"
    )
    with pytest.raises(ValidationFailed) as caught:
        run(home, SETTINGS, sql, {}, 30)
    assert caught.value.errors[0].expected == "results within DECIMAL(38)"


def test_a_stream_yields_its_first_columns_under_the_names_given_and_counts_as_it_goes(home):
    counted = []
    stream = Stream(
        home, SETTINGS, "SELECT range AS a, range * 2 AS b, 'hidden' AS c FROM range(5)", {}, ["x", "y"], counted.append
    )
    table = stream.reader.read_all()
    assert table.column_names == ["x", "y"]
    assert table.column("y").to_pylist() == [0, 2, 4, 6, 8]
    assert sum(counted) == 5


def test_a_stream_closed_unread_lets_its_statement_go(home):
    stream = Stream(home, SETTINGS, "SELECT range FROM range(10)", {}, ["n"])
    stream.close()
    stream.close()  # twice is harmless
    assert run(home, SETTINGS, "SELECT 2", {}, 30) == [(2,)]


def test_over_share_names_the_settings_to_change():
    error = over_share(Settings(query_memory_share=0.25, duckdb_memory="2GB"), "the plan")
    assert isinstance(error, TooLarge) and error.status == 413
    assert "query_memory_share 0.25" in error.message and "duckdb_memory 2GB" in error.message
