"""A measure's window as SQL: rank, dense_rank, row_number, and sums, averages, extremes, counts
and shares over a partition of the result rows (running sums in order)."""

from __future__ import annotations

from sqlglot import exp

from .operators import WINDOWS
from .resolved import MeasureOutput


def window(o: MeasureOutput, sql: dict[str, exp.Expression], ties: list[tuple[str, bool]]) -> exp.Expression:
    """The window of a measure over the result columns (`sql`: each by name), rows tied on its
    order numbered and summed in the result's default order (`ties`), so each run answers alike."""
    w = o.window
    if w is None:
        raise ValueError(f"{o.path}: a measure is an expression or a window")
    partition = [sql[name].copy() for name in w.partition]
    order = [(name, desc) for name, desc in w.order]
    if WINDOWS[w.fn].order == "takes":
        # Rows tied on the order are numbered (summed) in the result's own default order, so the
        # answer is the same on every run.
        named = {name for name, _ in order}
        order += [(name, desc) for name, desc in ties if name not in named]
    ordering = (
        exp.Order(
            expressions=[
                exp.Ordered(
                    this=sql[name].copy() if name in sql else exp.column(name, quoted=True),
                    desc=desc,
                    nulls_first=False,
                )
                for name, desc in order
            ]
        )
        if order
        else None
    )
    spec = WINDOWS[w.fn]
    frame = (
        exp.WindowSpec(kind="ROWS", start="UNBOUNDED", start_side="PRECEDING", end="CURRENT ROW")
        if spec.running
        else None
    )

    def over(func: exp.Expression) -> exp.Expression:
        return exp.Window(this=func, partition_by=[p.copy() for p in partition] or None, order=ordering, spec=frame)

    of = sql[w.of.name].copy() if w.of is not None else exp.null()
    return spec.sql(of, w.of, over)
