"""A sheet held by its filled cells, never by its extent: a few values 300,000 rows apart cost
what they hold. Each run of empty rows (or columns) between filled ones is cut to GAP on a
compact grid, which splits into the same tables as the whole grid would (tables are separated
by one empty row or column or more), and each compact row and column remembers where it
stands on the sheet, for the datasets' ranges and row numbers."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass

from ...errors import IngestFailed
from ...settings import Settings
from .rules import Cell, column_letter

# Empty rows (columns) kept of a longer run: more than a table's header rows (two at most) reach.
GAP = 2
# Cells apart from a sheet's tables named in its note, and the characters of each shown; the rest are counted.
SHOWN = 5
SHOWN_CHARS = 60


@dataclass
class Compact:
    """A sheet's filled cells on a grid, `rows[i]` and `cols[j]` the sheet's (0-based) row and
    column of its row i and column j."""

    grid: list[list[Cell]]
    rows: list[int]
    cols: list[int]

    def ref(self, i: int, j: int) -> str:
        """The sheet's reference (A1) of the compact cell (i, j)."""
        return f"{column_letter(self.cols[j] + 1)}{self.rows[i] + 1}"

    def merged(self, ranges) -> list[tuple[int, int, int, int]]:
        """Merged ranges of the sheet, (top, left, bottom, right) 0-based, on the compact grid: a
        range past the last filled row or column reaches as far past it; one wholly within a
        cut run of empty rows or columns is no range here."""
        out = []
        for r0, c0, r1, c1 in ranges:
            i0, i1 = _first(self.rows, r0), _last(self.rows, r1)
            j0, j1 = _first(self.cols, c0), _last(self.cols, c1)
            if i0 <= i1 and j0 <= j1:
                out.append((i0, j0, i1, j1))
        return out


def _first(axis: list[int], at: int) -> int:
    """The compact index of the first kept row (column) at or after `at`."""
    return bisect_left(axis, at) if not axis or at <= axis[-1] else len(axis) - 1 + at - axis[-1]


def _last(axis: list[int], at: int) -> int:
    """The compact index of the last kept row (column) at or before `at`."""
    return bisect_right(axis, at) - 1 if not axis or at <= axis[-1] else len(axis) - 1 + at - axis[-1]


def _axis(filled: list[int]) -> list[int]:
    """The sheet's rows (or columns) a compact grid keeps: every filled one, every empty one
    from the first to the last filled one, and GAP of each longer run of empty ones."""
    out: list[int] = []
    before = -1
    for at in filled:
        out.extend(range(before + 1, min(at, before + 1 + GAP)))
        out.append(at)
        before = at
    return out


def compact(filled: dict[tuple[int, int], Cell], sheet: str, settings: Settings) -> Compact:
    """The cells (by 0-based row and column) on a compact grid; refused (too_large) past
    max_sheet_cells, before the grid is made (values spread so that no empty row or column
    separates them)."""
    rows = _axis(sorted({r for r, _ in filled}))
    cols = _axis(sorted({c for _, c in filled}))
    if len(rows) * len(cols) > settings.max_sheet_cells:
        raise IngestFailed(
            "too_large",
            f"sheet {sheet!r} holds {len(filled)} values spread over {len(rows)} rows by {len(cols)} columns "
            f"with no empty row or column between them, over max_sheet_cells ({settings.max_sheet_cells}) as a grid",
        )
    empty = Cell(None, "")
    grid = [[empty] * len(cols) for _ in rows]
    row_at = {r: i for i, r in enumerate(rows)}
    col_at = {c: j for j, c in enumerate(cols)}
    for (r, c), cell in filled.items():
        grid[row_at[r]][col_at[c]] = cell
    return Compact(grid, rows, cols)


def from_rows(rows, end: tuple[int, int] | None, cell) -> Compact:
    """calamine's rows (an iterator: a row at a time, as wide as the sheet) on a compact grid of
    rows: an empty row is passed over at C speed (a run of them cut to GAP), a filled one made
    whole, each value by `cell(value)` (calamine has made the whole grid already: its columns
    cost no more here). The rows end at `end` (the sheet's last row and column, 0-based); where
    they start is counted back from there, as calamine starts them at A1 or at the first filled
    row or column."""
    grid: list[list[Cell]] = []
    kept: list[int] = []
    empty = Cell(None, "")
    n = width = 0
    before = -1
    for i, row in enumerate(rows):
        n, width = i + 1, len(row)
        if row.count("") == width:
            continue
        for gap in range(before + 1, min(i, before + 1 + GAP)):
            kept.append(gap)
            grid.append([empty] * width)
        kept.append(i)
        grid.append([empty if value == "" else cell(value) for value in row])
        before = i
    if not kept or end is None:
        return Compact([], [], [])
    top, left = end[0] - (n - 1), end[1] - (width - 1)
    return Compact(grid, [top + r for r in kept], list(range(left, left + width)))


def apart_note(sheet: str, left_out: list[tuple[str, str]]) -> str:
    """The warning for values apart from a sheet's tables (a lone cell far below or beside
    them), which are left out of its datasets: (reference, text) of each."""
    shown = ", ".join(f"{ref} ({_short(text)!r})" for ref, text in left_out[:SHOWN])
    more = f" and {len(left_out) - SHOWN} more" if len(left_out) > SHOWN else ""
    one = len(left_out) == 1
    return (
        f"sheet {sheet!r}: {len(left_out)} {'cell' if one else 'cells'} apart from its tables "
        f"({'a lone value' if one else 'lone values'} below or beside them) {'was' if one else 'were'} left out: "
        f"{shown}{more}"
    )


def _short(text: str) -> str:
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 1] + "…"
