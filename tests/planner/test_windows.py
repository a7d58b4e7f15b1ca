"""planner/windows.py: a measure's window as SQL over the result columns, ties broken in the
result's default order where the window numbers or sums rows in order."""

from sqlglot import exp

from planner.resolved import MeasureOutput, RowOutput, Window
from planner.windows import window

SQL: dict[str, exp.Expression] = {name: exp.column(name, quoted=True) for name in ("region", "total")}
TOTAL = RowOutput(name="total", type="number", physical="DECIMAL(38, 2)", shape=(20, 2), ref=None)  # type: ignore[arg-type]


def measure(fn: str, of=None, partition=(), order=()) -> MeasureOutput:
    return MeasureOutput(name="m", type="number", window=Window(fn, of, list(partition), list(order)))


def test_a_rank_orders_by_the_result_columns_it_names():
    sql = window(measure("rank", order=[("total", True)]), SQL, []).sql("duckdb")
    assert sql == 'RANK() OVER (ORDER BY "total" DESC)'


def test_row_numbers_break_ties_in_the_results_default_order():
    sql = window(measure("row_number", order=[("total", True)]), SQL, [("region", False)]).sql("duckdb")
    assert sql == 'ROW_NUMBER() OVER (ORDER BY "total" DESC, "region" ASC)'


def test_a_share_divides_by_the_partitions_sum_never_by_zero():
    sql = window(measure("share", of=TOTAL, partition=["region"]), SQL, []).sql("duckdb")
    assert "NULLIF(" in sql and 'PARTITION BY "region"' in sql and "/ " in sql


def test_a_running_sum_runs_in_order_up_to_the_current_row():
    sql = window(measure("running_sum", of=TOTAL, order=[("region", False)]), SQL, []).sql("duckdb")
    assert "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW" in sql
