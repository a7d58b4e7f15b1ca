"""From an extraction and its column typings to a snapshot: typed rows, rejected rows, stats."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import duckdb
import pyarrow as pa
from sqlglot import exp

from planner.dialect import DIALECT, duckdb_function

from .. import readings as C
from ..infer.questions import Typing
from ..infer.tally import string_text, text_of
from ..jsonval import to_json
from ..settings import Settings
from .catalog import rejected_table, snapshot_table


def parquet_relation(path: str) -> str:
    return exp.ReadParquet(expressions=[exp.Literal.string(path)]).sql(dialect=DIALECT)


# A rejected value is kept up to this many characters (a 200 MB line is not kept whole, nor sent
# back whole by every dataset_get): enough to see what it was.
REJECTED_VALUE_CHARS = 1000


# A snapshot's rejected rows: what was refused, where, and why.
REJECTED_COLUMNS = (
    ("row_id", "BIGINT"),
    ("line", "BIGINT"),
    ("column_name", "VARCHAR"),
    ("value", "VARCHAR"),
    ("reason", "VARCHAR"),
)


def write_rejected(cur: duckdb.DuckDBPyConnection, snapshot_id: str, excluded: list[Any]) -> exp.Table:
    """Create the snapshot's rejected-rows table with the rows extraction left out (a total row)."""
    table = rejected_table(snapshot_id)
    columns = [
        exp.ColumnDef(this=exp.to_identifier(name), kind=exp.DataType.build(kind, dialect=DIALECT))
        for name, kind in REJECTED_COLUMNS
    ]
    cur.execute(exp.Create(this=exp.Schema(this=table, expressions=columns), kind="TABLE").sql(dialect=DIALECT))
    if excluded:
        slots = (exp.Placeholder(), exp.Placeholder(), exp.null(), exp.Placeholder(), exp.Placeholder())
        cur.executemany(
            exp.insert(exp.values([slots]), table).sql(dialect=DIALECT),
            [[r.row_id, r.line, _kept(r.text), r.reason] for r in excluded],
        )
    return table


def _kept(text: str | None) -> str | None:
    return text[:REJECTED_VALUE_CHARS] if text is not None and len(text) > REJECTED_VALUE_CHARS else text


def column_names(headers: list[str]) -> list[str]:
    """SPEC §4 names: the header trimmed, `column_<n>` when empty, `_2`, `_3` … for repeats."""
    names: list[str] = []
    seen: set[str] = {"__row_id"}
    for i, header in enumerate(headers):
        base = " ".join(header.split()) or f"column_{i + 1}"
        name, k = base, 1
        while name.lower() in seen:
            k += 1
            name = f"{base}_{k}"
        seen.add(name.lower())
        names.append(name)
    return names


def slug(text: str) -> str:
    out = re.sub(r"[^0-9a-zA-Z]+", "_", text.strip().lower()).strip("_")
    return out or "table"


def value_expr(cell: str, typing: Typing, markers: Any, compact: bool = False) -> exp.Expression:
    if typing.reading.type == "string":
        return string_text(cell, typing.spaces)
    if typing.clean:
        return C.convert(typing.reading, exp.column(cell, quoted=True), typing.physical, checked=True)
    return C.convert(typing.reading, text_of(cell, markers, compact), typing.physical)


def failure_expr(cell: str, typing: Typing, markers: Any, compact: bool = False) -> exp.Condition:
    t = text_of(cell, markers, compact)
    return exp.and_(
        exp.not_(exp.Is(this=t, expression=exp.null())),
        exp.Is(this=value_expr(cell, typing, markers, compact), expression=exp.null()),
    )


WIDE = 64  # columns past which a statement takes the compact text form (infer/cells.text_of_expr)


def _reason(typing: Typing) -> str:
    return f"not a {typing.reading.type}" + (f" ({typing.reading.format})" if typing.reading.format else "")


@dataclass(frozen=True)
class Built:
    rows: int
    rows_rejected: int
    columns: list[dict[str, Any]]


def build_snapshot(
    cur: duckdb.DuckDBPyConnection,
    relation: str,
    snapshot_id: str,
    cells: list[str],
    names: list[str],
    typings: dict[str, Typing],
    markers: Any,
    excluded: list[Any],
    exact_distinct_values: int = Settings.exact_distinct_values,
) -> Built:
    """CREATE the snapshot table and its rejected-rows table in the snapshot's new file (Catalog.new_snapshot)."""
    compact = len(cells) > WIDE
    failing = [c for c in cells if typings[c].rejected > 0 and typings[c].reading.type != "string"]
    rejected_where = exp.or_(*[failure_expr(c, typings[c], markers, compact) for c in failing]) if failing else None
    # One builder call for every column, and no copies (copy=False): the values are built here
    # for this statement alone, and a wide table's are a large tree that each copy walks whole.
    values = [
        exp.alias_(value_expr(cell, typings[cell], markers, compact), name, quoted=True, copy=False)
        for cell, name in zip(cells, names)
    ]
    select = exp.select(exp.column("__row_id", quoted=True), *values, copy=False).from_(relation, copy=False)
    if rejected_where is not None:
        select = select.where(exp.not_(exp.paren(rejected_where)), copy=False)
    # No ORDER BY: the extraction is written in row id order and DuckDB keeps insertion order.
    table = snapshot_table(snapshot_id)
    cur.execute(exp.Create(this=table, kind="TABLE", expression=select).sql(dialect=DIALECT, copy=False))
    rejected_rows = write_rejected(cur, snapshot_id, excluded)
    for cell, name in zip(cells, names):
        if cell not in failing:
            continue
        rows = (
            exp.select(
                exp.column("__row_id", quoted=True),
                exp.column("__line", quoted=True),
                exp.Literal.string(name),
                exp.Substring(
                    this=exp.column(cell, quoted=True),
                    start=exp.Literal.number(1),
                    length=exp.Literal.number(REJECTED_VALUE_CHARS),
                ),
                exp.Literal.string(_reason(typings[cell])),
            )
            .from_(relation)
            .where(failure_expr(cell, typings[cell], markers))
        )
        cur.execute(exp.insert(rows, rejected_rows).sql(dialect=DIALECT))
    kept = _one(cur, exp.select(exp.Count(this=exp.Star())).from_(table))
    rows_rejected = exp.Count(this=exp.Distinct(expressions=[exp.column("row_id")]))
    rejected = _one(cur, exp.select(rows_rejected).from_(rejected_rows))
    stats = column_stats(cur, table, names, [typings[c] for c in cells], kept, exact_distinct_values)
    return Built(kept, rejected, stats)


STATS_CELLS = 2_000_000  # cells one grouped statistics query reads at most
STATS_BATCH = 25  # columns per statement of counts, minima and maxima on a long table
# Distinct values an estimate counts exactly in its hash sample (store/snapshot._sampled): its
# relative standard error is about 1/sqrt(that count), so 2^16 (the least a sample may keep)
# puts 2% five standard errors away. DuckDB's approx_count_distinct alone is not within 2% (on
# TPC-H lineitem SF1 it is off by 5.6% on l_suppkey, 4.6% on l_shipdate): it only sizes the sample.
SAMPLED_DISTINCT = 1 << 17


def column_stats(
    cur: duckdb.DuckDBPyConnection,
    table: exp.Table,
    names: list[str],
    typings: list[Typing],
    rows: int,
    exact_distinct_values: int = Settings.exact_distinct_values,
) -> list[dict[str, Any]]:
    """nulls, distinct, unique, min and max of every column; `distinct` is estimated (and
    `distinct_estimated` true) on a column of more than `exact_distinct_values` non-null values
    that is not unique, `unique` always exact.

    A table of at most `exact_distinct_values` rows is counted STATS_CELLS cells a statement,
    each statement one scan of its columns with every aggregate of each (`_wide_stats`); a
    statement holds at most STATS_BATCH columns, for DuckDB's time for one SELECT of many
    DISTINCT aggregates grows faster than their number (500 columns in one: 15 s), and a wide
    table's columns of one storage type go in long form instead (one value column, grouped by
    the column's position: `_long_stats`), so that one statement of a fixed size serves any
    number of them. A longer table takes one scan per STATS_BATCH columns for counts, minima,
    maxima and rough distinct counts, then one more for the distinct values of every column
    whose count is small or sampled (`_distinct_counts`)."""
    per_query = STATS_CELLS // max(rows, 1)
    estimated: set[int] = set()
    if per_query < 2 or rows > exact_distinct_values:
        found = _plain_stats(cur, table, names, typings)
        estimated = _distinct_counts(cur, table, names, found, exact_distinct_values)
    elif len(names) <= WIDE:
        found = _wide_stats(cur, table, names, typings, min(per_query, STATS_BATCH))
    else:
        found = {}
        groups: dict[str, list[int]] = {}
        for k, typing in enumerate(typings):
            groups.setdefault(typing.physical, []).append(k)
        for members in groups.values():
            ordered = typings[members[0]].reading.type != "bool"
            for start in range(0, len(members), per_query):
                chunk = members[start : start + per_query]
                found.update(
                    _long_stats(cur, table, [names[k] for k in chunk], chunk, ordered, typings[members[0]].physical)
                )
    out = []
    for k, (name, typing) in enumerate(zip(names, typings)):
        nonnull, distinct, lo, hi = found.get(k, (0, 0, None, None))
        out.append(
            {
                "name": name,
                "type": typing.reading.type,
                "physical": typing.physical,
                "format": C.format_of(typing.reading, typing.physical),
                "nullable": nonnull < rows,
                "nulls": rows - nonnull,
                "distinct": distinct,
                "distinct_estimated": k in estimated,
                # An estimated column is one its sample proved has a repeated value.
                "unique": distinct == nonnull and rows > 0 and k not in estimated,
                "min": to_json(_months_kept(lo)),
                "max": to_json(_months_kept(hi)),
                "approved": typing.forced,
            }
        )
    return out


def _wide_stats(
    cur: duckdb.DuckDBPyConnection, table: exp.Table, names: list[str], typings: list[Typing], batch: int
) -> dict[int, tuple[Any, ...]]:
    """{position: (non-null, distinct, min, max)}, `batch` columns a statement, each read once
    for all four (a column in long form is read, copied and grouped once more)."""
    out: dict[int, tuple[Any, ...]] = {}
    for start in range(0, len(names), batch):
        selects: list[exp.Expression] = []
        for name, typing in zip(names[start : start + batch], typings[start : start + batch]):
            col = exp.column(name, quoted=True)
            ordered = typing.reading.type != "bool"
            selects += [
                exp.Count(this=col),
                exp.Count(this=exp.Distinct(expressions=[col.copy()])),
                _end("min", col.copy(), typing.physical) if ordered else exp.null(),
                _end("max", col.copy(), typing.physical) if ordered else exp.null(),
            ]
        row = cur.execute(exp.select(*selects).from_(table).sql(dialect=DIALECT)).fetchall()[0]
        for j in range(len(selects) // 4):
            out[start + j] = tuple(row[4 * j : 4 * j + 4])
    return out


def _distinct_counts(
    cur: duckdb.DuckDBPyConnection,
    table: exp.Table,
    names: list[str],
    found: dict[int, tuple[Any, ...]],
    exact_distinct_values: int,
) -> set[int]:
    """Each column's rough distinct count in `found` (_plain_stats) replaced by its count, exact
    or estimated from a sample of its values (`_sampled`); answers the positions estimated. The
    columns of few values (a rough count of at most SAMPLED_DISTINCT, counted exactly either
    way) are counted STATS_BATCH a statement; any other column, or a batch DuckDB's memory
    limit refuses, alone (`_distinct` spills)."""
    estimated: set[int] = set()
    few = [k for k in range(len(names)) if found[k][1] <= SAMPLED_DISTINCT]
    counted: set[int] = set()
    for start in range(0, len(few), STATS_BATCH):
        chunk = few[start : start + STATS_BATCH]
        counts = exp.select(
            *[exp.Count(this=exp.Distinct(expressions=[exp.column(names[k], quoted=True)])) for k in chunk]
        )
        try:
            row = cur.execute(counts.from_(table).sql(dialect=DIALECT)).fetchall()[0]
        except duckdb.OutOfMemoryException:
            continue  # each counted alone, below
        for k, distinct in zip(chunk, row):
            nonnull, _rough, lo, hi = found[k]
            found[k] = (nonnull, int(distinct), lo, hi)
            counted.add(k)
    for k, name in enumerate(names):
        if k in counted:
            continue
        nonnull, rough, lo, hi = found[k]
        col = exp.column(name, quoted=True)
        distinct = _sampled(cur, table, col, nonnull, rough) if nonnull > exact_distinct_values else None
        if distinct is None:
            distinct = _distinct(cur, table, col)
        else:
            estimated.add(k)
        found[k] = (nonnull, distinct, lo, hi)
    return estimated


def _long_stats(
    cur: duckdb.DuckDBPyConnection,
    table: exp.Table,
    names: list[str],
    positions: list[int],
    ordered: bool,
    physical: str,
) -> dict[int, tuple[Any, ...]]:
    """{position: (non-null, distinct, min, max)} of same-typed columns, in one statement."""

    def aggregates(v: exp.Expression) -> list[exp.Expression]:
        out: list[exp.Expression] = [exp.Count(this=v), exp.Count(this=exp.Distinct(expressions=[v]))]
        return out + ([_end("min", v, physical), _end("max", v, physical)] if ordered else [exp.null(), exp.null()])

    keys = exp.Array(expressions=[exp.Literal.number(p) for p in positions])
    cols = exp.Array(expressions=[exp.column(n, quoted=True) for n in names])
    inner = exp.select(
        exp.alias_(exp.Unnest(expressions=[keys]), "k"), exp.alias_(exp.Unnest(expressions=[cols]), "v")
    ).from_(table)
    query = (
        exp.select(exp.column("k"), *aggregates(exp.column("v", quoted=True)))
        .from_(inner.subquery("cells"))
        .group_by(exp.column("k"))
    )
    return {row[0]: row[1:] for row in cur.execute(query.sql(dialect=DIALECT)).fetchall()}


_INTERVAL_PARTS = ("year", "month", "day", "hour", "minute", "microseconds")


def _end(fn: str, column: exp.Expression, physical: str) -> exp.Expression:
    """min or max of a column; of an INTERVAL, as its parts (DuckDB's Python value of an
    interval makes a month 30 days: P1Y2M3D came back P423D)."""
    end: exp.Expression = exp.Min(this=column) if fn == "min" else exp.Max(this=column)
    if physical != "INTERVAL":
        return end
    units = exp.Array(expressions=[exp.Literal.string(u) for u in _INTERVAL_PARTS])
    # sqlglot has no node for DuckDB's datepart of a list of parts (a struct of them): by name.
    return duckdb_function("datepart", units, end)


def _months_kept(value: Any) -> Any:
    """An interval's parts (_end) as Arrow's MonthDayNano, which to_json writes with its months."""
    if not isinstance(value, dict):
        return value
    months = value["year"] * 12 + value["month"]
    micros = value["hour"] * 3_600_000_000 + value["minute"] * 60_000_000 + value["microseconds"]
    return pa.MonthDayNano((months, value["day"], micros * 1000))


def _plain_stats(
    cur: duckdb.DuckDBPyConnection, table: exp.Table, names: list[str], typings: list[Typing]
) -> dict[int, tuple[Any, ...]]:
    """{position: (non-null, rough distinct, min, max)}, STATS_BATCH columns a statement; the
    rough count is DuckDB's approx_count_distinct (HyperLogLog), off by several percent."""
    out: dict[int, tuple[Any, ...]] = {}
    for start in range(0, len(names), STATS_BATCH):
        selects = []
        for name, typing in zip(names[start : start + STATS_BATCH], typings[start : start + STATS_BATCH]):
            col = exp.column(name, quoted=True)
            ordered = typing.reading.type != "bool"
            selects += [
                exp.func("count", col),
                exp.func("approx_count_distinct", col),
                _end("min", col, typing.physical) if ordered else exp.null(),
                _end("max", col, typing.physical) if ordered else exp.null(),
            ]
        row = cur.execute(exp.select(*selects).from_(table).sql(dialect=DIALECT)).fetchall()[0]
        for j in range(len(selects) // 4):
            out[start + j] = tuple(row[4 * j : 4 * j + 4])
    return out


def _sampled(cur: duckdb.DuckDBPyConnection, table: exp.Table, col: exp.Column, nonnull: int, rough: int) -> int | None:
    """The column's distinct values estimated from the exact count of those whose hash falls in
    a share of the hash range sized to hold about SAMPLED_DISTINCT of them (every occurrence of a
    value is in the sample or none is: the count is of a random subset of the distinct values,
    scaled up). None, so the caller counts exactly, when a full count is as cheap (few values),
    when the sample kept fewer than half its aim (the rough count was far out), or when no value
    of the sample repeats: the column may be unique, which only an exact count can say."""
    if rough <= SAMPLED_DISTINCT:
        return None
    share = SAMPLED_DISTINCT / rough
    below = int(share * 2**64)
    present = exp.not_(exp.Is(this=col, expression=exp.null()))
    kept = exp.LT(
        this=exp.func("hash", col.copy()),
        expression=exp.cast(exp.Literal.number(below), exp.DataType(this=exp.DataType.Type.UBIGINT)),
    )
    groups = (
        exp.select(exp.alias_(exp.func("count", exp.Star()), "n"))
        .from_(table)
        .where(exp.and_(present, kept))
        .group_by(col.copy())
    )
    query = exp.select(exp.func("count", exp.Star()), exp.func("sum", exp.column("n"))).from_(groups.subquery("v"))
    values, occurrences = cur.execute(query.sql(dialect=DIALECT)).fetchall()[0]
    if values < SAMPLED_DISTINCT // 2 or values == occurrences:
        return None
    # Not unique (a sampled value repeats), so at most nonnull - 1.
    return int(max(values, min(nonnull - 1, round(values * 2**64 / below))))


def _distinct(cur: duckdb.DuckDBPyConnection, table: exp.Table, col: exp.Column) -> int:
    """Distinct non-null values of one column, exactly, within DuckDB's memory limit: through a
    GROUP BY, which spills to disk (an ungrouped DISTINCT of 45 M strings does not), and sorted
    when even that fails (its hash table for tens of millions of groups can need one allocation
    past a small limit; a sort spills)."""
    present = exp.not_(exp.Is(this=col, expression=exp.null()))
    groups = exp.select(col).from_(table).where(present).group_by(col)
    try:
        return _one(cur, exp.select(exp.func("count", exp.Star())).from_(groups.subquery("v")))
    except duckdb.OutOfMemoryException:
        pass
    before = exp.Window(
        this=exp.Lag(this=col.copy()),
        order=exp.Order(expressions=[exp.Ordered(this=col.copy())]),
    )
    ordered = exp.select(exp.alias_(col.copy(), "v"), exp.alias_(before, "prev")).from_(table).where(present)
    changed = exp.NullSafeNEQ(this=exp.column("v"), expression=exp.column("prev"))
    query = exp.select(exp.Count(this=exp.Star()).copy()).from_(ordered.subquery("s")).where(changed)
    return _one(cur, query)


def _one(cur: duckdb.DuckDBPyConnection, query: exp.Expression) -> int:
    """The one number a counting statement answers."""
    row = cur.execute(query.sql(dialect=DIALECT)).fetchone()
    return int(row[0]) if row is not None else 0
