"""Result values in their JSON form (SPEC §3): read a column at a time from Arrow, they are the
values read row by row, for every type the fast path takes, nulls and edges included."""

import duckdb
import pytest

from tabular.jsonval import arrow_readable, json_columns, json_rows

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


def test_types_arrow_would_change_are_read_row_by_row():
    assert not arrow_readable(["INTERVAL"]) and not arrow_readable(["TIMESTAMP"]) and not arrow_readable(['"NULL"'])
