"""A total row's numbers against its columns' sums, once typed (infer/totals.py)."""

from __future__ import annotations

import duckdb
import pyarrow as pa

from tabular import readings as C
from tabular.infer.questions import Typing
from tabular.infer.totals import Differs, decimals, differing, said

MARKERS = ("", "NA")


def _check(stated, typings, columns):
    cur = duckdb.connect()
    cur.register("t", pa.table(columns))
    cells = list(columns)
    return differing(cur, "t", cells, [f"n_{c}" for c in cells], typings, stated, MARKERS)


def test_stated_numbers_that_are_the_column_sums_match():
    grouped = C.number_reading(".", ",")
    typings = {"c1": Typing(C.STRING, "VARCHAR"), "c2": Typing(grouped, "DECIMAL(18,2)")}
    got = _check(("Total", "24,708.55"), typings, {"c1": ["a", "b"], "c2": ["12,354.27", "12,354.28"]})
    assert got == []


def test_a_stated_number_that_is_not_the_sum_is_named():
    grouped = C.number_reading(".", ",")
    typings = {"c1": Typing(C.STRING, "VARCHAR"), "c2": Typing(grouped, "DECIMAL(18,2)")}
    got = _check(("Total", "30,000.00"), typings, {"c1": ["a", "b"], "c2": ["12,354.27", "12,354.28"]})
    assert got == [Differs("n_c2", "30,000.00", "24708.55")]
    assert said(got) == "n_c2: it says 30,000.00, the rows above sum to 24708.55"


def test_floating_point_sums_are_compared_at_the_decimals_the_total_states():
    plain = C.number_reading(".")
    typings = {"c1": Typing(plain, "DOUBLE")}
    assert _check(("0.3",), typings, {"c1": ["0.1", "0.2"]}) == []  # 0.1 + 0.2 is 0.30000000000000004


def test_nothing_to_compare_is_none():
    typings = {"c1": Typing(C.STRING, "VARCHAR")}
    assert _check(("Total",), typings, {"c1": ["a", "b"]}) is None


def test_decimals_as_written():
    assert decimals("24,708.55", ".") == 2
    assert decimals("24708", ".") == 0
    assert decimals("12,5 %", ",") == 1
