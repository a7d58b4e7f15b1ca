"""A measure's window as SQL: rank, dense_rank, row_number, and sums, averages, extremes, counts
and shares over a partition of the result rows (running sums in order)."""

from __future__ import annotations

from sqlglot import exp

from .builders import as_type
from .resolved import MeasureOutput


def window(o: MeasureOutput, sql: dict[str, exp.Expression], ties: list[tuple[str, bool]]) -> exp.Expression:
    """The window of a measure over the result columns (`sql`: each by name), rows tied on its
    order numbered and summed in the result's default order (`ties`), so each run answers alike."""
    w = o.window
    if w is None:
        raise ValueError(f"{o.path}: a measure is an expression or a window")
    partition = [sql[name].copy() for name in w.partition]
    order = [(name, desc) for name, desc in w.order]
    if w.fn in ("row_number", "running_sum"):
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
    of = sql[w.of.name].copy() if w.of is not None else exp.null()
    spec = None
    func: exp.Expression
    if w.fn == "rank":
        func = exp.Rank()
    elif w.fn == "dense_rank":
        func = exp.DenseRank()
    elif w.fn == "row_number":
        func = exp.RowNumber()
    elif w.fn in ("sum", "running_sum", "share"):
        func = exp.Sum(this=of)
        if w.fn == "running_sum":
            spec = exp.WindowSpec(kind="ROWS", start="UNBOUNDED", start_side="PRECEDING", end="CURRENT ROW")
    elif w.fn == "avg":
        shape = w.of.shape if w.of is not None else None
        func = exp.Avg(this=as_type(of, "DOUBLE") if shape is None or shape[0] > 28 else of)
    elif w.fn == "count":
        func = exp.Count(this=of)
    else:
        func = (exp.Min if w.fn == "min" else exp.Max)(this=of)
    over = exp.Window(this=func, partition_by=partition or None, order=ordering if w.fn != "share" else None, spec=spec)
    if w.fn == "share":
        total = exp.Nullif(this=as_type(over, "DOUBLE"), expression=exp.Literal.number(0))
        return exp.Div(this=as_type(of.copy(), "DOUBLE"), expression=total, typed=False, safe=False)
    return over
