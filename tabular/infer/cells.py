"""A table's cells in long form, and the statements tally.py counts them with, built by sqlglot:
one row per cell or per distinct text of a column (k, __row_id, raw, t, n), the aggregates that
count them per column, and the temporary tables that hold them. Every name is a quoted identifier
and every value a literal sqlglot writes; a relation given as text (a FROM clause) is parsed."""

from __future__ import annotations

import functools
import re
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import duckdb
from sqlglot import exp

from planner.dialect import DIALECT

from .. import readings as C

# The columns of the long form: the cell column's name, the first row holding the text, the text
# as written, the text as the readings see it (text_of_expr), and how many cells hold it.
K, ROW_ID, RAW, T, N = "k", "__row_id", "raw", "t", "n"


def col(name: str) -> exp.Column:
    """A column by name, quoted (a fresh node each call: a tree holds a node once)."""
    return exp.column(name, quoted=True)


def text_of_expr(cell: exp.Expression, markers: tuple[str, ...], compact: bool = False) -> exp.Expression:
    """A cell as the readings see it: trimmed, with null markers as NULL.

    `compact`: the form for statements of hundreds of columns. DuckDB's common-subexpression
    pass takes time quadratic in the repeated subexpressions of a SELECT (1,000 columns of the
    short form below: 3 s to plan), so there the markers are matched on the raw cell, spaces
    around allowed, and the cell is trimmed once; it runs a little slower per cell."""
    trimmed = exp.Trim(this=cell)
    pattern = "(" + "|".join(re.escape(m) for m in markers) + ")"
    if compact:
        return exp.Case().when(C.matches(cell, f" *{pattern} *"), exp.null()).else_(trimmed)
    # One regex for the markers, tried only on short text: cheaper than an IN list per cell.
    short = exp.LTE(this=exp.Length(this=trimmed), expression=exp.Literal.number(max(len(m) for m in markers)))
    return exp.Case().when(exp.and_(short, C.matches(trimmed, pattern)), exp.null()).else_(trimmed)


@functools.lru_cache(maxsize=256)
def _parsed(sql: str) -> exp.Expression:
    return exp.maybe_parse(sql, into=exp.From, prefix="FROM", dialect=DIALECT).this


def relation(sql: str | exp.Expression) -> exp.Expression:
    """A relation to read: an expression as it is, or a FROM clause given as text, parsed by
    sqlglot (once per text)."""
    return (_parsed(sql) if isinstance(sql, str) else sql).copy()


def table(name: str) -> exp.Table:
    """A table of this connection by name, quoted."""
    return exp.Table(this=exp.to_identifier(name, quoted=True))


def _names(columns: list[str]) -> list[exp.Expression]:
    return [exp.Literal.string(c) for c in columns]


@dataclass(frozen=True)
class Source:
    """Cells to count over. `long`: a table already in long form (k, __row_id, raw, t, n), one
    row per distinct non-null text of a column, k the cell column's name, n how many cells hold
    it, __row_id the first; `sql` its name. Else `sql` is a relation in the extraction's wide
    form (__row_id and one text column per cell column; a FROM clause as text, or a sqlglot
    expression), read as one row per cell (n = 1).

    Counting runs on the long form: a fixed set of expressions per cell, grouped by column, so
    the work grows with the cells counted and the statements stay the same size however wide
    the table is (DuckDB slows down past linear with thousands of aggregates in one SELECT)."""

    sql: str | exp.Expression
    long: bool = False
    # The columns a long table holds, where known: cells asked of all of them read it whole,
    # with no test of each row's column name.
    holds: tuple[str, ...] | None = None

    def relation(self) -> exp.Expression:
        """What the source reads: the long table, or the wide relation."""
        if self.long and isinstance(self.sql, str):
            return table(self.sql)
        return relation(self.sql)

    def cells(self, columns: list[str], markers: tuple[str, ...]) -> exp.Subquery:
        """The long form of `columns`' cells, to read FROM; only those columns are read."""
        if self.long:
            if self.holds is not None and set(self.holds) <= set(columns):
                return exp.select(exp.Star()).from_(self.relation(), copy=False).subquery(copy=False)
            where = col(K).isin(*_names(columns), copy=False)
            return (
                exp.select(exp.Star()).from_(self.relation(), copy=False).where(where, copy=False).subquery(copy=False)
            )
        return cells_select(self.sql, columns, markers).subquery(copy=False)


def cells_select(relation_: str | exp.Expression, columns: list[str], markers: tuple[str, ...]) -> exp.Select:
    """SELECT of the long form (k, __row_id, raw, t, n = 1) of `columns` of a wide relation."""
    t = text_of_expr(col(RAW), markers)
    return exp.select(
        col(K), col(ROW_ID), col(RAW), t.as_(T, quoted=True), exp.Literal.number(1).as_(N, quoted=True)
    ).from_(raw_cells(relation_, columns).subquery(copy=False), copy=False)


def raw_cells(relation_: str | exp.Expression, columns: list[str]) -> exp.Select:
    """SELECT of (k, __row_id, raw): each non-null cell of `columns` with its column's name."""
    source = relation(relation_)
    if len(columns) == 1:
        (c,) = columns
        name = exp.Literal.string(c).as_(K, quoted=True)
        return (
            exp.select(name, col(ROW_ID), col(c).as_(RAW, quoted=True))
            .from_(source, copy=False)
            .where(exp.not_(col(c).is_(exp.null())), copy=False)
        )
    # Two lists unnested side by side pair each cell with its column's name.
    names = exp.Explode(this=exp.Array(expressions=_names(columns))).as_(K, quoted=True)
    cells = exp.Explode(this=exp.Array(expressions=[col(c) for c in columns])).as_(RAW, quoted=True)
    paired = exp.select(names, col(ROW_ID), cells).from_(source, copy=False).subquery(copy=False)
    return exp.select(exp.Star()).from_(paired, copy=False).where(exp.not_(col(RAW).is_(exp.null())), copy=False)


def count(condition: exp.Expr) -> exp.Expression:
    """The cells where `condition` holds, each counted n times (Source: n is 1, or how many
    cells hold a distinct text)."""
    return exp.Coalesce(this=only_where(exp.Sum(this=col(N)), condition), expressions=[exp.Literal.number(0)])


def only_where(aggregate: exp.Expr, condition: exp.Expr) -> exp.Filter:
    """`aggregate FILTER (WHERE condition)`."""
    return exp.Filter(this=aggregate, expression=exp.Where(this=condition))


def not_null(e: exp.Expression) -> exp.Expression:
    return exp.not_(e.is_(exp.null()))


def gated(gate: exp.Expr, test: exp.Expr, null: bool = False) -> exp.Expression:
    """`test` where the cheap `gate` holds, else false (NULL for a NULL text when `null`: an
    aggregate skips it). `gate` holds wherever `test` can: DuckDB evaluates every operand of an
    AND over all rows, a CASE's result only on the rows its condition selects, so the costly
    test (a regex) runs only on the few cells that could pass it."""
    case = exp.Case()
    if null:
        case = case.when(col(T).is_(exp.null()), exp.null(), copy=False)
    return case.when(gate, test, copy=False).else_(exp.false(), copy=False)


# The least byte string a Unicode space (or any character past ASCII) starts with in UTF-8.
PAST_ASCII = "\u0080"


def grouped(
    con: duckdb.DuckDBPyConnection, source: exp.Expression, selects: Mapping[Any, exp.Expr]
) -> dict[str, dict[Any, Any]]:
    """Run named aggregates per column (k) over long-form cells: {k: {name: value}}."""
    names = list(selects)
    statement = exp.select(col(K), *selects.values(), copy=False).from_(source, copy=False).group_by(col(K), copy=False)
    return {
        k: dict(zip(names, values)) for k, *values in con.execute(statement.sql(dialect=DIALECT, copy=False)).fetchall()
    }


def one_row(
    con: duckdb.DuckDBPyConnection, selects: Sequence[exp.Expr], source: exp.Expression, where: exp.Expr
) -> tuple[Any, ...]:
    """The one row of aggregates `selects` over the cells of `source` where `where` holds."""
    statement = exp.select(*selects, copy=False).from_(source, copy=False).where(where, copy=False)
    row = con.execute(statement.sql(dialect=DIALECT, copy=False)).fetchone()
    assert row is not None  # an aggregate without GROUP BY answers one row
    return tuple(row)


def create_temp(con: duckdb.DuckDBPyConnection, name: str, select: exp.Expression) -> None:
    """CREATE TEMPORARY TABLE `name` AS `select`."""
    temporary = exp.Properties(expressions=[exp.TemporaryProperty()])
    statement = exp.Create(this=table(name), kind="TABLE", expression=select, properties=temporary)
    con.execute(statement.sql(dialect=DIALECT, copy=False))


def drop(con: duckdb.DuckDBPyConnection, name: str) -> None:
    """DROP TABLE IF EXISTS `name`."""
    con.execute(exp.Drop(tables=[table(name)], kind="TABLE", exists=True).sql(dialect=DIALECT, copy=False))


@contextmanager
def temp_table(con: duckdb.DuckDBPyConnection, prefix: str, select: exp.Expression) -> Iterator[str]:
    """A temporary table of `select`'s rows under a new name (`prefix` and a random part),
    dropped after."""
    name = f"{prefix}{uuid.uuid4().hex[:12]}"  # an identifier, quoted where it is written
    create_temp(con, name, select)
    try:
        yield name
    finally:
        drop(con, name)


@contextmanager
def long_table(
    con: duckdb.DuckDBPyConnection, relation_: str | exp.Expression, columns: list[str], markers: tuple[str, ...]
) -> Iterator[Source]:
    """A temporary table of `relation_`'s cells in long form, each cell's text computed once:
    the counts of a sample run on it many times."""
    # Each distinct text of a column once, with how many cells hold it (n) and the first row
    # that does: every count below weighs by n, so a column of repeated values costs its
    # distinct values, not its rows.
    distinct = (
        exp.select(
            col(K),
            exp.Min(this=col(ROW_ID)).as_(ROW_ID, quoted=True),
            col(RAW),
            exp.Count(this=exp.Star()).as_(N, quoted=True),
        )
        .from_(raw_cells(relation_, columns).subquery(copy=False), copy=False)
        .group_by(col(K), col(RAW), copy=False)
    )
    t = text_of_expr(col(RAW), markers).as_(T, quoted=True)
    select = exp.select(col(K), col(ROW_ID), col(RAW), t, col(N)).from_(distinct.subquery(copy=False), copy=False)
    with temp_table(con, "__cells_", select) as name:
        yield Source(name, long=True, holds=tuple(columns))
