"""The one rule for a table's total row, whatever the format (issue 54): delimited text
(read/extraction.py), workbooks (read/sheets/) alike. A total row states the sums of the rows
above it; kept as a row it doubles every sum over the table and puts a group `null` (or
"Total") in every answer, so it is left out of the rows with a warning naming its line.

A total row is the table's last row (notes and blank lines may follow it) whose first filled
cell is a total word alone, in one of several languages ("Total", "Totals:", "Grand total",
"Sum", "Gesamt", "Summe", "Total général", "Totale", "Totaal", "Итого", "合计" …, or such a word
with "for …", "of …" after it), and whose other filled cells are numbers. A title that starts
with a total word ("Total Recall", "Total Eclipse") is no total word alone: such a row stays a row.
Whether its numbers are the sums of the rows above is checked once the columns are typed
(infer/totals.py)."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Sequence

_WORD = (
    r"(?:grand\s+|sum\s+)?(?:totals?|sum|sums|subtotal|summe|gesamt|gesamtsumme|insgesamt|"
    r"total\s+(?:général|general|geral|generale|globale)|totale(?:\s+generale)?|totaux|somme|"
    r"totaal|in\s+totaal|totalt|summa|i\s+alt|yhteensä|suma(?:\s+total)?|razem|celkem|összesen|toplam|"
    r"итого|всего|σύνολο|合计|合計|总计|總計|합계)"
)
# A total word alone, or followed by ':' or a phrase saying what it totals ("Total for Danish part").
TOTAL_CELL = re.compile(rf"(?i)\s*{_WORD}\s*(?::.*|\s+(?:for|of|in|für|pour|de|del|des|van|per|по)\b.*|\s*)", re.DOTALL)
# A number as a total states it: a sign or parentheses, a currency, group marks, a percent.
NUMBER = re.compile(r"\(?\s*[-+−]?\s*[$€£¥₹]?\s*[-+−]?\d[\d.,'’\s\u00a0\u202f]*(?:[eE][-+]?\d+)?\s*[%$€£¥₹]?\s*\)?")


# The letters a total word starts with: any other first letter is answered without the pattern.
FIRST_LETTERS = frozenset("tgsircöyивσ合总總합")


def is_total_label(text: str | None) -> bool:
    """Whether a cell is a total word alone (TOTAL_CELL)."""
    if not text:
        return False
    return text.lstrip()[:1].lower() in FIRST_LETTERS and TOTAL_CELL.fullmatch(text) is not None


def is_total_cells(cells: Sequence[str | None]) -> bool:
    """Whether a row of text cells is shaped as a total row: its first filled cell a total word
    alone, every other filled cell a number, and at least one number. The careful reader asks it
    of every row: a row whose first filled cell is no total word (nearly all) is answered by
    that cell alone, its other cells never looked at."""
    at = next((k for k, c in enumerate(cells) if c and not c.isspace()), None)
    if at is None or not is_total_label(cells[at]):
        return False
    filled = [c.strip() for c in cells[at + 1 :] if c and not c.isspace()]
    return bool(filled) and all(NUMBER.fullmatch(c) for c in filled)


def written(cells: Sequence[str | None], delimiter: str) -> str:
    """The row as its file wrote it, for a warning: `Total,,,,"24,708.55",`."""
    out = io.StringIO()
    csv.writer(out, delimiter=delimiter if len(delimiter) == 1 else ",", lineterminator="").writerow(
        ["" if c is None else c for c in cells]
    )
    return out.getvalue()
