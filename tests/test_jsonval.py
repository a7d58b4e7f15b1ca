"""Result values in their JSON form (SPEC §3): read a column at a time from Arrow, they are the
values read row by row, for every type the fast path takes, nulls and edges included; dates and
times past what Python holds in ISO 8601's expanded form (SPEC §4)."""

import duckdb
import pytest

from tabular.jsonval import arrow_readable, json_columns, json_rows, rows_readable

EDGES = """
SELECT * FROM (VALUES
  (1::HUGEINT, 1.50::DECIMAL(15,2), 5::DECIMAL(10,0), DATE '0005-01-01', 'x', true, 2::BIGINT, 1.5::DOUBLE, 3::INTEGER,
   123456789012345678901234567890.1234::DECIMAL(38,4), 0.5::FLOAT, 0::DECIMAL(15,8), 0.000001::DECIMAL(7,6)),
  (170141183460469231731687303715884105727::HUGEINT, -0.05::DECIMAL(15,2), -7::DECIMAL(10,0), DATE '9999-12-31', '', false,
   9223372036854775807::BIGINT, 'nan'::DOUBLE, (-2147483647 - 1)::INTEGER, -0.0001::DECIMAL(38,4), 'inf'::FLOAT, 0.00000001::DECIMAL(15,8), 0::DECIMAL(7,6)),
  (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  (-9007199254740993::HUGEINT, 0.00::DECIMAL(15,2), 0::DECIMAL(10,0), DATE '2024-02-29', 'é ☃', NULL,
   -9007199254740993::BIGINT, -1e308::DOUBLE, 0::INTEGER, 0::DECIMAL(38,4), NULL, -12.5::DECIMAL(15,8), -0.000001::DECIMAL(7,6))
) AS t(h, d, z, day, s, b, i, f, i4, w, r, tiny, six)
"""


@pytest.mark.parametrize("where", ["", " WHERE false", " WHERE h IS NULL", " WHERE i = 2"])
def test_columns_from_arrow_are_the_values_read_row_by_row(where):
    con = duckdb.connect()
    result = con.sql(EDGES + where)
    types = [str(t) for t in result.types]
    assert arrow_readable(types)
    columns = json_columns(result.to_arrow_table(), types)
    rows = con.execute(EDGES + where).fetchall()
    assert [list(r) for r in zip(*columns)] == json_rows(rows, len(types))
    if not where:  # the edges themselves, as a reader of the JSON sees them
        assert columns[0][1] == "170141183460469231731687303715884105727" and columns[6][1] == "9223372036854775807"
        assert columns[1][:2] == ["1.50", "-0.05"] and columns[7][1] == "nan"
        # many places: every one written, never scientific (Arrow would write 0 as 0E-8)
        assert columns[11] == ["0.00000000", "0.00000001", None, "-12.50000000"]
        assert columns[12] == ["0.000001", "0.000000", None, "-0.000001"]


def test_every_type_a_plan_gives_is_read_from_arrow_and_only_nested_ones_row_by_row():
    scalars = ["INTERVAL", "TIMESTAMP", "TIMESTAMP WITH TIME ZONE", "TIME", "DATE", '"NULL"', "UBIGINT", "BLOB"]
    assert arrow_readable(scalars)
    assert not arrow_readable(["INTEGER[]"]) and not arrow_readable(["STRUCT(a INTEGER)"])


TIMES = """
SELECT * FROM (VALUES
  (TIMESTAMP '2024-02-29 10:00:00', TIMESTAMPTZ '2024-02-29 10:00:00.5+02', TIME '23:59:59.999999', DATE '0001-01-01',
   INTERVAL '14 months 3 days 2 hours', '\\xAA\\x00'::BLOB, 'a'),
  (TIMESTAMP '0001-01-01 00:00:00.000001', TIMESTAMPTZ '9999-12-31 23:59:59+00', TIME '00:00:00', DATE '9999-12-31',
   INTERVAL '-90 minutes', ''::BLOB, NULL),
  (NULL, NULL, NULL, NULL, NULL, NULL, NULL)
) AS t(ts, tz, tm, d, i, b, n)
"""


def test_times_python_can_hold_are_written_as_python_writes_them():
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")  # as the catalog's connections are
    types = [str(t) for t in con.sql(TIMES).types]
    columns = json_columns(con.sql(TIMES).to_arrow_table(), types)
    rows = [list(r) for r in zip(*columns)]
    as_python = json_rows(con.execute(TIMES).fetchall(), len(types))
    assert [r[:4] for r in rows] == [r[:4] for r in as_python]
    assert [r[:6] for r in rows[:2]] == [
        [
            "2024-02-29T10:00:00",
            "2024-02-29T08:00:00.500000+00:00",
            "23:59:59.999999",
            "0001-01-01",
            "P1Y2M3DT2H",
            "aa00",
        ],
        ["0001-01-01T00:00:00.000001", "9999-12-31T23:59:59+00:00", "00:00:00", "9999-12-31", "-PT1H30M", ""],
    ]
    assert rows[2] == [None] * 7


BEYOND = """
SELECT * FROM (VALUES
  (DATE '9999-12-31' + 1, TIMESTAMP '9999-12-31 23:00:00' + INTERVAL 2 HOUR, TIMESTAMPTZ '9999-12-31 23:30:00+00' + INTERVAL 1 HOUR, TIME '24:00:00'),
  (DATE '0001-12-31 (BC)', TIMESTAMP '0001-01-01 00:00:00' - INTERVAL 1 SECOND, TIMESTAMPTZ '0001-01-01 00:00:00+00' - INTERVAL 2 YEAR, NULL),
  ('infinity'::DATE, 'infinity'::TIMESTAMP, '-infinity'::TIMESTAMPTZ, NULL),
  ('-infinity'::DATE, '-infinity'::TIMESTAMP, 'infinity'::TIMESTAMPTZ, NULL),
  (DATE '5881580-07-10', TIMESTAMP '294246-12-31 23:59:59.999999', NULL, NULL),
  (DATE '5877642-06-25 (BC)', TIMESTAMP '290308-12-22 (BC) 00:00:00', NULL, NULL)
) AS t(d, ts, tz, tm)
"""


def test_dates_and_times_python_cannot_hold_are_iso_8601_in_its_expanded_form():
    """Years past 9999 with a '+', 1 BC as year 0000 and earlier ones with a '-' (ISO 8601's
    astronomical years), DuckDB's infinities as its words: what DuckDB's rows gave as its own
    text (10000-01-01 01:00:00, no T; 0001-12-31 (BC)) or as a wrong date (infinity as 9999-12-31)."""
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    result = con.sql(BEYOND)
    rows = [list(r) for r in zip(*json_columns(result.to_arrow_table(), [str(t) for t in result.types]))]
    assert rows == [
        ["+10000-01-01", "+10000-01-01T01:00:00", "+10000-01-01T00:30:00+00:00", "24:00:00"],
        ["0000-12-31", "0000-12-31T23:59:59", "-0001-01-01T00:00:00+00:00", None],
        ["infinity", "infinity", "-infinity", None],
        ["-infinity", "-infinity", "infinity", None],
        ["+5881580-07-10", "+294246-12-31T23:59:59.999999", None, None],
        ["-5877641-06-25", "-290307-12-22T00:00:00", None, None],
    ]


def test_an_interval_of_any_size_and_mixed_signs_is_iso_text():
    """2^31 - 1 days was past Python's timedelta (an OverflowError: INTERNAL); a month less five
    days was written P1M-P5D, which no reader takes."""
    con = duckdb.connect()
    sql = """SELECT * FROM (VALUES (to_days(2147483647)), (INTERVAL '1 month' - INTERVAL '5 days'),
        (INTERVAL '-1 month' + INTERVAL '5 days'), (INTERVAL '1 month' - INTERVAL '1 second')) AS t(i)"""
    result = con.sql(sql)
    [column] = json_columns(result.to_arrow_table(), [str(t) for t in result.types])
    assert column == ["P2147483647D", "-P-1M5D", "P-1M5D", "-P-1MT1S"]


def test_a_few_rows_are_read_as_python_values_only_where_those_are_written_as_arrows():
    """rows_readable: text, booleans, integers, floating point and decimals (EDGES' types but
    its date); not a date (DuckDB's Python value for 'infinity' is 9999-12-31), a time, an
    interval (a month as 30 days), bytes, UHUGEINT or a nested type."""
    con = duckdb.connect()
    types = [str(t) for t in con.sql(EDGES).types]
    assert not rows_readable(types) and types[3] == "DATE"
    assert rows_readable(types[:3] + types[4:])
    for kind in ["DATE", "TIMESTAMP", "TIME", "INTERVAL", "BLOB", "UHUGEINT", "INTEGER[]", '"NULL"', "VARCHAR[]"]:
        assert not rows_readable(["BIGINT", kind])
    assert rows_readable([]) and rows_readable(["DECIMAL(38,10)", "UBIGINT", "FLOAT"])
