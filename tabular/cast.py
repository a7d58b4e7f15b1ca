"""From an extraction and its column typings to a snapshot: typed rows, rejected rows, stats."""

from __future__ import annotations

import re
from dataclasses import dataclass

import duckdb
from sqlglot import exp

from . import candidates as C
from .infer import Typing, string_text, text_of
from .jsonval import to_json


def parquet_relation(path: str) -> str:
    return exp.Anonymous(this="read_parquet", expressions=[exp.Literal.string(path)]).sql(dialect="duckdb")


def snapshot_table(snapshot_id: str) -> exp.Table:
    return exp.table_(snapshot_id, db="snapshots", quoted=True)


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


def value_expr(cell: str, typing: Typing, markers) -> exp.Expression:
    if typing.reading.type == "string":
        return string_text(cell)
    if typing.clean:
        return C.convert(typing.reading, exp.column(cell, quoted=True), typing.physical, checked=True)
    return C.convert(typing.reading, text_of(cell, markers), typing.physical)


def failure_expr(cell: str, typing: Typing, markers) -> exp.Expression:
    t = text_of(cell, markers)
    return exp.and_(exp.Not(this=exp.Is(this=t, expression=exp.null())), exp.Is(this=value_expr(cell, typing, markers), expression=exp.null()))


def _reason(typing: Typing) -> str:
    return f"not a {typing.reading.type}" + (f" ({typing.reading.format})" if typing.reading.format else "")


@dataclass(frozen=True)
class Built:
    rows: int
    rows_rejected: int
    columns: list[dict]


def build_snapshot(
    cur: duckdb.DuckDBPyConnection,
    relation: str,
    snapshot_id: str,
    cells: list[str],
    names: list[str],
    typings: dict[str, Typing],
    markers,
    excluded: list,
) -> Built:
    """CREATE the snapshot table and its rejected rows inside the caller's transaction."""
    failing = [c for c in cells if typings[c].rejected > 0 and typings[c].reading.type != "string"]
    rejected_where = exp.or_(*[failure_expr(c, typings[c], markers) for c in failing]) if failing else None
    # One builder call for every column: each chained .select() would copy the whole tree.
    values = [exp.alias_(value_expr(cell, typings[cell], markers), name, quoted=True) for cell, name in zip(cells, names)]
    select = exp.select(exp.column("__row_id", quoted=True), *values).from_(relation)
    if rejected_where is not None:
        select = select.where(exp.Not(this=exp.paren(rejected_where)), copy=False)
    # No ORDER BY: the extraction is written in row id order and DuckDB keeps insertion order.
    table = snapshot_table(snapshot_id)
    cur.execute(exp.Create(this=table, kind="TABLE", expression=select).sql(dialect="duckdb"))
    for cell, name in zip(cells, names):
        if cell not in failing:
            continue
        rows = exp.select(
            exp.Literal.string(snapshot_id),
            exp.column("__row_id", quoted=True),
            exp.column("__line", quoted=True),
            exp.Literal.string(name),
            exp.column(cell, quoted=True),
            exp.Literal.string(_reason(typings[cell])),
        ).from_(relation).where(failure_expr(cell, typings[cell], markers))
        cur.execute(f"INSERT INTO catalog.rejected {rows.sql(dialect='duckdb')}")
    for row in excluded:
        cur.execute("INSERT INTO catalog.rejected VALUES (?, ?, ?, NULL, ?, ?)", [snapshot_id, row.row_id, row.line, row.text, row.reason])
    kept = cur.execute(f"SELECT count(*) FROM {table.sql(dialect='duckdb')}").fetchone()[0]
    rejected = cur.execute("SELECT count(DISTINCT row_id) FROM catalog.rejected WHERE snapshot_id = ?", [snapshot_id]).fetchone()[0]
    return Built(kept, rejected, column_stats(cur, table, names, [typings[c] for c in cells], kept))


STATS_BATCH = 25  # columns per statistics query


def column_stats(cur, table: exp.Table, names: list[str], typings: list[Typing], rows: int) -> list[dict]:
    """nulls, distinct, unique, min and max of every column, in one scan of the snapshot."""
    selects = []
    for name, typing in zip(names, typings):
        col = exp.column(name, quoted=True)
        selects += [exp.func("count", col), exp.Count(this=exp.Distinct(expressions=[col]))]
        if typing.reading.type == "bool":
            selects += [exp.null(), exp.null()]
        else:
            selects += [exp.func("min", col), exp.func("max", col)]
    values: list = []
    # A bounded number of columns per statement: DuckDB's time for one SELECT of many DISTINCT
    # aggregates grows faster than their number (500 columns in one: 15 s; in batches: 0.5 s).
    for start in range(0, len(selects), 4 * STATS_BATCH):
        values += cur.execute(exp.select(*selects[start : start + 4 * STATS_BATCH]).from_(table).sql(dialect="duckdb")).fetchone()
    out = []
    for k, (name, typing) in enumerate(zip(names, typings)):
        nonnull, distinct, lo, hi = values[4 * k : 4 * k + 4]
        out.append(
            {
                "name": name,
                "type": typing.reading.type,
                "physical": typing.physical,
                "format": C.format_of(typing.reading, typing.physical),
                "nullable": nonnull < rows,
                "nulls": rows - nonnull,
                "distinct": distinct,
                "unique": distinct == nonnull and rows > 0,
                "min": to_json(lo),
                "max": to_json(hi),
                "approved": typing.forced,
            }
        )
    return out
