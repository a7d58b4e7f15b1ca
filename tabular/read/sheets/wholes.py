"""Whole numbers past 2**53 on the fast path, with the digits the sheet holds.

fastexcel reads every number cell as a double, and every double at or past 2**53 is a whole
number that may be another one than the cell's: 9007199254740993 reads as 9007199254740992,
12345678901234567891 as 12345678901234567000, on the typed read and the text read alike. The
openpyxl reader keeps the digits (a cell without a point is an int). So a column whose text holds
such a number (the double's own text, the shortest or in full) takes, for each such cell, the
digits its number cell holds in the sheet's XML, read once for the sheet where any is found. A
cell the XML does not show in the plain form (` r="B7"`, `<v>digits</v>`, after any formula) keeps
the double's digits, and its column says so.
"""

from __future__ import annotations

import re
import zipfile

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .rules import column_letter
from .typed import EXACT_DOUBLES, WHOLE_TEXT, number_texts


def _whole_xml(letters: list[bytes]) -> re.Pattern:
    """A number cell (no t="s", "str", "b" …) of these columns whose value is written as a whole
    number of 16 digits or more, or with a positive exponent (Excel writes 1.2345678901234568E+17),
    after any formula: (letters, row, value). The columns named first: a cell of another column
    fails at its letters."""
    return re.compile(
        rb'<c r="(' + b"|".join(letters) + rb')([1-9][0-9]{0,6})"(?![^>]*\st="(?:s|str|inlineStr|b|e|d)")[^>]*>'
        rb"(?:<f\b[^>]*/>|<f\b[^>]*>[^<]*</f>)?<v>(-?[0-9]{16,}|-?[0-9](?:\.[0-9]+)?[eE]\+?[0-9]+)</v>"
    )


def _text_xml(letters: list[bytes]) -> re.Pattern:
    """A text cell (t="s", "str", "inlineStr") of these columns: (letters, row). Its digits are the
    cell's own text, never a double's."""
    return re.compile(rb'<c r="(' + b"|".join(letters) + rb')([1-9][0-9]{0,6})"[^>]*\st="(?:s|str|inlineStr)"')


_CARRY = 1 << 16  # at most this much of a cell cut by a chunk's end is carried to the next


def _long_wholes(texts: pa.Array) -> pa.Array | None:
    """Where a column's text is a whole number past 2**53 (a double's text may have changed its
    digits); None where no cell is."""
    long = pc.greater_equal(pc.binary_length(texts), 16)
    if len(texts) == 0 or not pc.any(long).as_py():
        return None  # most columns: one pass over the lengths
    if not pc.any(pc.and_(long, pc.ascii_is_decimal(pc.utf8_ltrim(texts, "-")))).as_py():
        return None  # long texts, none of digits alone: cheaper than the regex below
    whole = pc.fill_null(pc.match_substring_regex(texts, f"^{WHOLE_TEXT.pattern}$"), False)
    if not pc.any(whole).as_py():
        return None
    numbers = pc.cast(pc.if_else(whole, texts, "0"), pa.float64())
    big = pc.and_(whole, pc.greater_equal(pc.abs(numbers), float(EXACT_DOUBLES)))
    if not pc.any(big).as_py():
        return None
    # A double's own text, the shortest or in full (fastexcel's text read below 1E+17, which
    # maybe_cut leaves): a text cell of other digits (an id kept as text) is exact already.
    full = pc.cast(pc.if_else(pc.less(pc.abs(numbers), 2.0**63), numbers, 0.0), pa.int64()).cast(pa.string())
    shown = pc.or_(pc.equal(number_texts(numbers), texts), pc.equal(full, texts))
    big = pc.and_(big, pc.fill_null(shown, False))
    return big if pc.any(big).as_py() else None


def _xml_wholes(
    archive_path, part: str, columns: set[int]
) -> tuple[dict[int, tuple[list[int], list[str]]], dict[int, list[int]]]:
    """Per sheet column (0-based) of `columns`: the rows (0-based) and digits of its number cells
    written as whole numbers of 16 digits or more, and the rows of its text cells, a chunk of
    the sheet's XML at a time."""
    numbers: dict[int, tuple[list[int], list[str]]] = {}
    texts: dict[int, list[int]] = {}
    letters = {column_letter(j + 1).encode(): j for j in columns}
    by_length = sorted(letters, key=len, reverse=True)
    number_cell, text_cell = _whole_xml(by_length), _text_xml(by_length)
    with zipfile.ZipFile(archive_path) as archive, archive.open(part) as stream:
        carry = b""
        while chunk := stream.read(1 << 20):
            text = carry + chunk
            for column, row, digits in number_cell.findall(text):
                if column in letters:
                    rows, found = numbers.setdefault(letters[column], ([], []))
                    rows.append(int(row) - 1)
                    found.append(digits.decode())
            for column, row in text_cell.findall(text):
                if column in letters:
                    texts.setdefault(letters[column], []).append(int(row) - 1)
            cut = text.rfind(b"<c ")
            carry = text[cut:] if cut >= 0 and len(text) - cut <= _CARRY else b""
    return numbers, texts


def _text_cells(column: pa.Array, mask: np.ndarray, rows: list[int]) -> np.ndarray:
    """The mask without the text cells (the XML's, at `rows`) whose text is their double's full
    digits: an id kept as text ('9007199254740994') is its own text, exact, nothing to look for.
    A text cell whose text is other digits stays in the mask, and its column says it may differ:
    typed.exact_numbers took '1152921504606847232', a double's full digits, for a number cell and
    wrote the double's shortest text, '1152921504606847200' (its own text is not at hand here)."""
    at = np.unique(np.asarray(rows, dtype=np.int64))
    at = at[at < len(mask)]
    at = at[mask[at]]
    if not at.size:
        return mask
    texts = pc.take(column, pa.array(at))
    values = texts.cast(pa.float64())
    fits = pc.less(pc.abs(values), 2.0**63)
    full = pc.cast(pc.if_else(fits, values, 0.0), pa.int64()).cast(pa.string())
    own = pc.fill_null(pc.and_(fits, pc.equal(full, texts)), False).to_numpy(zero_copy_only=False)
    mask = mask.copy()
    mask[at[own]] = False
    return mask


def exact_wholes(batch: pa.RecordBatch, first: int, archive_path, part: str | None) -> tuple[pa.RecordBatch, set[int]]:
    """The sheet's text batch (rows from the sheet's first, columns from its column `first`,
    0-based) with each number cell past 2**53 written with the digits the XML holds, where the
    double's text had others; and the batch columns where such a cell was not found in the XML
    (it keeps the double's digits, and the dataset says so)."""
    wanted = {k: m for k, c in enumerate(batch.columns) if (m := _long_wholes(c)) is not None}
    if not wanted:
        return batch, set()
    found, text_rows = _xml_wholes(archive_path, part, {first + k for k in wanted}) if part else ({}, {})
    columns, inexact = list(batch.columns), set()
    for k, big in wanted.items():
        rows, digits = found.get(first + k, ([], []))
        mask = _text_cells(columns[k], big.to_numpy(zero_copy_only=False), text_rows.get(first + k, []))
        at = np.asarray(rows, dtype=np.int64)
        keep = at < len(mask)
        keep[keep] = mask[at[keep]]  # a cell of the batch whose text is such a number
        texts, at = pa.array(digits, pa.string()).filter(pa.array(keep)), at[keep]
        # The XML's digits where they read as the double the column holds (the same cell).
        same = pc.equal(pc.cast(texts, pa.float64()), pc.cast(pc.take(columns[k], pa.array(at)), pa.float64()))
        texts, at = texts.filter(same), at[same.to_numpy(zero_copy_only=False)]
        # A value written with an exponent is the double itself: found, its text the column's own.
        written = pc.match_substring_regex(texts, "[eE]")
        texts = pc.if_else(written, pc.take(columns[k], pa.array(at)), texts)
        unique = np.unique(at, return_index=True)  # in row order, a cell written twice once
        hit = np.zeros(len(mask), dtype=bool)
        hit[unique[0]] = True
        columns[k] = pc.replace_with_mask(columns[k], pa.array(hit), pc.take(texts, pa.array(unique[1])))
        if (mask & ~hit).any():
            inexact.add(k)
    return pa.RecordBatch.from_arrays(columns, names=batch.schema.names), inexact
