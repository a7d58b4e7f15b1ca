"""tabular/backends/duckdb.py: plans run on the catalog's DuckDB with bound parameters, rows as
tuples or JSON values, results streamed as Arrow; a statement past its deadline is 504, an exact
answer past 38 digits is refused, not rounded."""

from __future__ import annotations

import pytest

from tabular.backends import duckdb as duckdb_backend
from tabular.backends.duckdb import FEW_CELLS, Stream, arrow_json, over_share, row_cost, run, with_interval_parts
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


# Every type a few rows are read as Python values by, with their edges (tests/test_jsonval.py's).
FEW = """
SELECT k, (k % 3 - 1)::HUGEINT * 170141183460469231731687303715884105727 AS h, (k * 1.25 - 2)::DECIMAL(15, 2) AS d,
  (k * 0.0000001)::DECIMAL(38, 10) AS many, 'row ' || k AS s, k % 2 = 0 AS b, 9007199254740990 + k AS big,
  CASE WHEN k = 3 THEN 'nan'::DOUBLE ELSE k / 3 END AS f, (k / 7)::FLOAT AS r, (k % 200)::UTINYINT AS u,
  CASE WHEN k % 5 = 0 THEN NULL ELSE k END AS n
FROM range($n) t(k) ORDER BY k
"""


@pytest.mark.parametrize("n", [0, 1, 2, "few", "few + 1", "many"])
def test_a_few_rows_read_as_python_values_are_the_json_arrow_gives(home, n, monkeypatch):
    """Up to FEW_CELLS a result's rows are read as Python values (Arrow costs DuckDB a statement
    more), past them the first few so and the rest as Arrow, and the statement is read as Arrow
    at once after that: the same JSON as Arrow's throughout."""
    monkeypatch.setattr(duckdb_backend, "_MANY", {})
    cur = home.connections.reader()
    types = [str(d[1]) for d in cur.execute(FEW, {"n": 0}).description]
    few = FEW_CELLS // row_cost(types)
    count = {"few": few, "few + 1": few + 1, "many": 3 * few + 2}.get(n, n)
    want = [list(r) for r in zip(*arrow_json(cur.execute(FEW, {"n": count}).to_arrow_table(), types))]
    got = run(home, SETTINGS, FEW, {"n": count}, 30, as_json=True)
    assert got == want and len(got) == count
    assert (hash(FEW) in duckdb_backend._MANY) == (count > few)
    assert run(home, SETTINGS, FEW, {"n": count}, 30, as_json=True) == want  # the way taken again, or Arrow at once
    if count == 3 * few + 2:
        assert (
            got[3][7] == "nan"
            and got[2][2] == "0.50"
            and got[2][1] == str(2**127 - 1)
            and got[2][6] == "9007199254740992"
        )


def test_dates_and_durations_are_read_from_arrow_whatever_the_rows(home):
    """DuckDB's Python values make 'infinity' the date 9999-12-31 and a month 30 days: a result
    holding a date or a duration is read from Arrow, however few its rows."""
    sql = "SELECT 'infinity'::DATE AS d, DATE '10000-01-01' AS far, 1::BIGINT AS k"
    assert run(home, SETTINGS, sql, {}, 30, as_json=True) == [["infinity", "+10000-01-01", 1]]


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
