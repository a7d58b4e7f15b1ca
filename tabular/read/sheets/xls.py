"""Old binary Excel (.xls): its OLE2 container and BIFF records checked, before calamine reads the
workbook (sheets.read_xls), for what calamine would trust and should not: encryption, damage,
and grids past max_sheet_cells."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np

from ...errors import IngestFailed
from ...settings import Settings
from ..decode import CFB_MAGIC


class _Damaged(Exception):
    """The OLE2 container or its BIFF records contradict themselves."""


# OLE2 (Compound File Binary) sector numbers that are not sectors.
_END_OF_CHAIN = 0xFFFFFFFE
# BIFF record types (MS-XLS 2.3): the ones calamine reads as cells carry (row, column) first.
# formula, number, label, bool/error, rk, label sst, and mulrk (a run of numbers along a row)
_BIFF_CELLS = frozenset((0x0006, 0x0203, 0x0204, 0x0205, 0x027E, 0x00FD, 0x00BD))
_BIFF_MULRK, _BIFF_DIMENSIONS = 0x00BD, 0x0200
_BIFF_EOF, _BIFF_FILEPASS, _BIFF_SST, _BIFF_BOUNDSHEET = 0x000A, 0x002F, 0x00FC, 0x0085
_TWO_U16 = struct.Struct("<HH")
_XLS_SHEET_CELLS = 65536 * 256  # BIFF8's grid: 65,536 rows by 256 columns (IV65536)
_ENCRYPTED_STREAMS = {"encryptedpackage", "encryptioninfo"}


def check_xls(path: Path, settings: Settings) -> tuple[int, int]:
    """Refuse what is not a readable .xls with SPEC codes before calamine sees it.

    calamine reads every sheet of an .xls (hidden ones too) when it opens the file, each into a
    grid as large as the rows and columns its cells span, and sizes what it allocates from the
    file's own numbers (the streams' sizes, the shared strings' count, a sheet's DIMENSIONS). An
    allocation that fails ends the process, not the file; so those numbers are checked here
    against the file, and the grids against max_sheet_cells (all sheets together: calamine
    holds them at once), walking the records once: one step per record, never per byte.

    Answers (cells the sheets' grids span together, cell records they hold)."""
    data = path.read_bytes()
    if not data:
        raise IngestFailed("no_text", "the file is empty")
    if not data.startswith(CFB_MAGIC):
        raise IngestFailed(
            "format_unavailable",
            "the file is not an OLE2 container, as an .xls workbook is (Excel 2–4 workbooks are not read); "
            "save it as .xlsx",
        )
    try:
        streams = _cfb_streams(data)
        if _ENCRYPTED_STREAMS & set(streams):
            raise IngestFailed(
                "format_unavailable",
                "the file is an encrypted (password-protected) workbook; save it unprotected as .xlsx",
            )
        name = next((n for n in ("workbook", "book") if n in streams), None)
        if name is None:
            held = ", ".join(sorted(streams)[:8]) or "none"
            raise IngestFailed(
                "format_unavailable", f"the OLE2 file holds no workbook stream, so it is no .xls (its streams: {held})"
            )
        stream = streams[name]()
        sheets = _biff_globals(stream)
        total = records = 0
        for start in sheets:
            declared, spanned, cells = _biff_sheet_cells(stream, start)
            records += cells
            if declared > _XLS_SHEET_CELLS:
                raise _Damaged(
                    f"a sheet's DIMENSIONS record declares {declared} cells, "
                    f"more than an .xls sheet holds ({_XLS_SHEET_CELLS})"
                )
            if declared > settings.max_sheet_cells:
                raise IngestFailed(
                    "too_large",
                    f"a sheet declares {declared} cells (its DIMENSIONS record), "
                    f"over max_sheet_cells ({settings.max_sheet_cells})",
                )
            total += spanned
            if total > settings.max_sheet_cells:
                raise IngestFailed(
                    "too_large",
                    f"the sheets span {total} or more cells as grids, over max_sheet_cells "
                    f"({settings.max_sheet_cells}); calamine holds every sheet of an .xls at once",
                )
        return total, records
    except (_Damaged, struct.error, IndexError, ValueError) as err:
        raise IngestFailed(
            "format_unavailable",
            "the file is an OLE2 container, as an .xls or an encrypted (password-protected) workbook is, "
            f"and it is damaged: {err}",
        ) from None


def _cfb_streams(data: bytes) -> dict:
    """{lowercased name: a function answering the stream's bytes} of an OLE2 container, every
    number it gives checked against the file's size (MS-CFB)."""
    if len(data) < 512:
        raise _Damaged("shorter than an OLE2 header")
    major, _order, shift, mini_shift = struct.unpack_from("<HHHH", data, 0x1A)
    if shift not in (9, 12) or mini_shift != 6:
        raise _Damaged(f"sector sizes 2^{shift} and 2^{mini_shift} are not OLE2's")
    size = 1 << shift
    n_dir, n_fat, first_dir, _, cutoff, first_mini_fat, n_mini_fat, first_difat, n_difat = struct.unpack_from(
        "<9I", data, 0x28
    )
    sectors = (len(data) - 1) // size  # whole or cut-short sectors after the header's
    if max(n_fat, n_mini_fat, n_difat, n_dir) > sectors:
        raise _Damaged(f"it declares more sectors than its {len(data)} bytes hold")

    def sector(number: int) -> bytes:
        if number >= sectors:
            raise _Damaged(f"sector {number} is past the end of the file")
        return data[(number + 1) * size : (number + 2) * size]

    fat_sectors = list(struct.unpack_from("<109I", data, 0x4C))
    number = first_difat
    for _ in range(n_difat):
        difat = struct.unpack(f"<{size // 4}I", sector(number).ljust(size, b"\0"))
        fat_sectors += difat[:-1]
        number = difat[-1]
    fat = struct.unpack(f"<{n_fat * size // 4}I", b"".join(sector(n).ljust(size, b"\0") for n in fat_sectors[:n_fat]))

    def chain(start: int, table: tuple[int, ...]) -> list[int]:
        out: list[int] = []
        while start != _END_OF_CHAIN:
            if start >= len(table) or len(out) > len(table):
                raise _Damaged("a sector chain runs past the file's tables or loops")
            out.append(start)
            start = table[start]
        return out

    def regular(start: int, length: int) -> bytes:
        return b"".join(sector(n) for n in chain(start, fat))[:length]

    directory = regular(first_dir, len(data))
    entries: list[tuple[str, int, int, int]] = []  # name, kind, first sector, length
    for at in range(0, len(directory) - 127, 128):
        (name_bytes,) = struct.unpack_from("<H", directory, at + 64)
        kind = directory[at + 66]
        start, length = struct.unpack_from("<IQ", directory, at + 116)
        if major == 3:
            length &= 0xFFFFFFFF  # version 3 leaves the high half undefined
        if kind in (1, 2, 5) and length > len(data):
            raise _Damaged(f"a stream declares {length} bytes, more than the file's {len(data)}")
        name = directory[at : at + min(name_bytes, 64)].decode("utf-16-le", "replace").rstrip("\0")
        entries.append((name, kind, start, length))
    if not entries or entries[0][1] != 5:
        raise _Damaged("its directory has no root entry")
    root = entries[0]

    def mini(start: int, length: int) -> bytes:
        stream = regular(root[2], root[3])
        table = regular(first_mini_fat, n_mini_fat * size)
        mini_fat = struct.unpack(f"<{len(table) // 4}I", table[: len(table) // 4 * 4])
        return b"".join(stream[n * 64 : (n + 1) * 64] for n in chain(start, mini_fat))[:length]

    out = {}
    for name, kind, start, length in entries:
        if kind == 2 and name.lower() not in out:
            out[name.lower()] = lambda s=start, n=length: (mini if n < cutoff else regular)(s, n)
    return out


def _biff_globals(stream: bytes) -> list[int]:
    """Where each sheet's records start in the workbook stream (BoundSheet8), after checking
    what calamine sizes from the globals."""
    sheets, pos, end = [], 0, len(stream)
    while pos + 4 <= end:
        kind, length = _TWO_U16.unpack_from(stream, pos)
        body, pos = pos + 4, pos + 4 + length
        if kind == _BIFF_FILEPASS:
            raise IngestFailed(
                "format_unavailable",
                "the .xls workbook is password-protected (encrypted); save it unprotected as .xlsx",
            )
        if kind == _BIFF_SST and length >= 8:
            (count,) = struct.unpack_from("<i", stream, body + 4)
            if not 0 <= count <= end // 3:  # each string takes 3 bytes at least
                raise _Damaged(
                    f"its shared-string table declares {count} strings, more than the workbook's {end} bytes hold"
                )
        elif kind == _BIFF_BOUNDSHEET and length >= 4:
            (start,) = struct.unpack_from("<I", stream, body)
            if start > end:
                raise _Damaged("a sheet starts past the end of the workbook stream")
            sheets.append(start)
        elif kind == _BIFF_EOF:
            break
    return sheets


def _biff_sheet_cells(stream: bytes, pos: int) -> tuple[int, int, int]:
    """(cells the sheet's DIMENSIONS declares, cells its grid spans: from the topmost cell's row
    to the lowest one's, the leftmost cell's column to the rightmost one's, as calamine sizes
    a sheet's grids (at most that: it takes the rows from the first cell written), and its cell
    records).

    The records are walked one Python step each (their lengths chain them); the cells' rows and
    columns are then read together with numpy."""
    end = len(stream)
    unpack = _TWO_U16.unpack_from
    cells: list[int] = []
    found = cells.append
    declared = 0
    while pos + 4 <= end:
        kind, length = unpack(stream, pos)
        if kind in _BIFF_CELLS:
            found(pos)
        elif kind == _BIFF_EOF:
            break
        elif kind == _BIFF_DIMENSIONS:
            declared = _declared(stream[pos + 4 : pos + 4 + length])
        pos += 4 + length
    if not cells:
        return declared, 0, 0
    data = np.frombuffer(stream, dtype=np.uint8)
    at = np.array(cells, dtype=np.int64)

    def u16(offsets: np.ndarray) -> np.ndarray:
        return data[offsets].astype(np.int64) | (data[offsets + 1].astype(np.int64) << 8)

    kinds, lengths = u16(at), u16(at + 2)
    whole = (lengths >= 4) & (at + 4 + lengths <= end)  # calamine refuses a shorter cell record
    at, kinds, lengths = at[whole], kinds[whole], lengths[whole]
    if not len(at):
        return declared, 0, 0
    rows, cols = u16(at + 4), u16(at + 6)
    mulrk = (kinds == _BIFF_MULRK) & (lengths >= 6)
    lasts = cols.copy()
    lasts[mulrk] = u16(at[mulrk] + 4 + lengths[mulrk] - 2)  # a run of numbers ends at its last column
    spanned = (int(rows.max()) - int(rows.min()) + 1) * (
        int(max(cols.max(), lasts.max())) - int(min(cols.min(), lasts.min())) + 1
    )
    return declared, spanned, len(at)


def _declared(record: bytes) -> int:
    """The cells calamine reserves for a sheet's DIMENSIONS record, with its unsigned arithmetic."""
    if len(record) == 10:
        top, bottom, left, right = struct.unpack_from("<HHHH", record)
    elif len(record) == 14:
        top, bottom, left, right = struct.unpack_from("<IIHH", record)
    else:
        return 0  # calamine refuses the sheet
    if bottom < 1 or right < 1:
        return 1
    return (((bottom - 1) - top + 1) % (1 << 32)) * (((right - 1) - left + 1) % (1 << 32))
