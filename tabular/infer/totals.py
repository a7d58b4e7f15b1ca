"""A total row's numbers against the sums of the rows above it, once the columns are typed
(issue 54). The reader leaves a total row out by its shape (read/totals.py); here its stated
numbers are compared, as exact decimals, with its columns' sums: one statement of one `sum` per
number column, whatever the rows. A total that does not match is said so: it stays out of the
rows (a row labelled "Total" alone is no data row), but a person should look at it."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

import duckdb
from sqlglot import exp

from planner.dialect import DIALECT

from .. import readings as C
from ..read.extraction import Extraction
from .questions import Typing
from .tally import text_of


@dataclass(frozen=True)
class Differs:
    """One column where a total row states another number than its rows sum to."""

    column: str
    stated: str
    summed: str


def decimals(text: str, mark: str) -> int:
    """The decimals a number is written with (`24,708.55` with `.` as the mark: 2)."""
    found = re.search(re.escape(mark) + r"(\d+)\D*$", text)
    return len(found.group(1)) if found else 0


def differing(
    cur: duckdb.DuckDBPyConnection,
    relation: str,
    cells: list[str],
    names: list[str],
    typings: dict[str, Typing],
    stated: tuple,
    markers: tuple[str, ...],
) -> list[Differs] | None:
    """The number columns whose sum is not what the total row states, each compared at the
    decimals the total is written with; None where no number column has a stated number that
    its reading reads (nothing to compare)."""
    compared = []
    for k, cell in enumerate(cells):
        typing = typings.get(cell)
        said = stated[k].strip() if k < len(stated) and stated[k] else ""
        if not said or typing is None or typing.reading.type != "number":
            continue
        scale = min(decimals(said, typing.reading.decimal_mark or "."), 18)
        decimal = exp.DataType(
            this=exp.DataType.Type.DECIMAL,
            expressions=[exp.DataTypeParam(this=exp.Literal.number(p)) for p in (38, scale)],
        )
        value = C.convert(typing.reading, text_of(cell, markers), typing.physical)
        total = C.convert(typing.reading, exp.Literal.string(said), typing.physical)
        compared.append(
            (
                names[k],
                said,
                exp.TryCast(this=exp.func("sum", value), to=decimal),
                exp.TryCast(this=total, to=decimal),
            )
        )
    if not compared:
        return None
    select = exp.select(
        *[exp.alias_(e, f"v{i}") for i, (_, _, summed, total) in enumerate(compared) for e in (summed, total)]
    ).from_(relation)
    row = cur.execute(select.sql(dialect=DIALECT)).fetchall()[0]
    pairs = [(row[2 * i], row[2 * i + 1]) for i in range(len(compared))]
    if all(total is None for _, total in pairs):
        return None
    return [
        Differs(name, said, "nothing" if summed is None else str(summed))
        for (name, said, _, _), (summed, total) in zip(compared, pairs)
        if total is not None and summed != total
    ]


def said(differs: list[Differs], shown: int = 3) -> str:
    """`amount: it says 24,708.55, the rows above sum to 12354.27; …`"""
    parts = [f"{d.column}: it says {d.stated}, the rows above sum to {d.summed}" for d in differs[:shown]]
    more = f"; and {len(differs) - shown} more columns" if len(differs) > shown else ""
    return "; ".join(parts) + more


# The reason a total row whose numbers are not its columns' sums is left out with (ingest/pipeline.py words it).
DIFFERS = "total; sums differ: "


def weigh(
    cur: duckdb.DuckDBPyConnection,
    relation: str,
    extraction: Extraction,
    names: list[str],
    typings: dict[str, Typing],
    markers: tuple[str, ...],
) -> None:
    """Each total row the reader left out (read/totals.py, a workbook's too) against the sums of
    the rows above it, now that the columns are typed: where they differ, its reason says so."""
    for k, e in enumerate(extraction.left_out):
        if e.reason not in ("total", "total_row") or not e.cells:
            continue
        differs = differing(cur, relation, extraction.cell_columns, names, typings, e.cells, markers)
        if differs:
            extraction.left_out[k] = replace(e, reason=DIFFERS + said(differs))
