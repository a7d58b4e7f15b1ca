"""tabular/backends/duckdb.py: plans run on the catalog's DuckDB with bound parameters, rows as
tuples or JSON values, results streamed as Arrow; a statement past its deadline is 504, an exact
answer past 38 digits is refused, not rounded."""

from __future__ import annotations

import pytest

from tabular.backends.duckdb import Stream, over_share, run, with_interval_parts
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


def test_a_streams_fields_carry_duckdbs_types(home):
    """Arrow gives a HUGEINT and a DECIMAL(38,0) one type; the stream names which it is."""
    sql = "SELECT 5::HUGEINT AS h, 5::DECIMAL(38, 0) AS d"
    schema = Stream(home, SETTINGS, sql, {}, ["h", "d"]).reader.schema
    assert [f.metadata[b"duckdb_type"] for f in schema] == [b"HUGEINT", b"DECIMAL(38,0)"]


def test_an_intervals_parts_come_whole_and_in_the_statements_order(home):
    """Arrow wraps an interval's microseconds past 292 years; its parts do not, nor do they reorder."""
    sql = with_interval_parts(
        "SELECT range AS k, to_microseconds(-9223372036854775807 + range) AS iv FROM range(3) ORDER BY range DESC",
        ["iv"],
    )
    rows = run(home, SETTINGS, sql, {}, 30, as_json=True, intervals=[1])
    assert rows == [
        [2, "-P106751991DT4H54.775805S"],
        [1, "-P106751991DT4H54.775806S"],
        [0, "-P106751991DT4H54.775807S"],
    ]
    stream = Stream(home, SETTINGS, sql, {}, ["k", "iv"], intervals=[1], interval_text=True)
    assert stream.reader.read_all()["iv"].to_pylist() == [r[1] for r in rows]
    with pytest.raises(ValidationFailed, match="'iv'"):
        Stream(home, SETTINGS, sql, {}, ["k", "iv"], intervals=[1]).reader.read_all()


@pytest.mark.parametrize(
    "sql, says",
    [
        ("SELECT DATE '5881580-07-10' + INTERVAL 1 DAY", "leaves the range DuckDB holds"),
        ("SELECT 9223372036854775807::BIGINT * 2", "passes the range of its integer type"),
        ("SELECT (9223372036854775808::HUGEINT)::BIGINT", "passes the range of its integer type"),
        ("SELECT 170141183460469231731687303715884105727::HUGEINT + 1", "an exact number of 38 digits"),
    ],
)
def test_a_value_past_its_types_range_is_refused_saying_which(home, sql, says):
    """Each was 'does not fit an exact number of 38 digits'."""
    with pytest.raises(ValidationFailed, match=says):
        run(home, SETTINGS, sql, {}, 30, as_json=True)
    with pytest.raises(ValidationFailed, match=says):
        Stream(home, SETTINGS, sql, {}, ["x"]).reader.read_all()
