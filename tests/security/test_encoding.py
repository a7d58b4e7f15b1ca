"""A BOM settles the encoding, and text that is UTF-8 but for a few bytes is UTF-8 (issue 30,
defect 7): the bytes that do not decode are the rows they are in, read as U+FFFD and named in
the dataset's warnings, never a reason to read the whole file as a legacy code page (every
`Müller` as `MĂĽller`, the BOM as `ď»ż` in the first header)."""

from __future__ import annotations

import codecs

import pytest
from conftest import ingest

import tabular

ROWS = 2000

# (language, a value in it, a stray byte or two of a legacy code page standing for it)
TEXTS = [
    ("german", "Müller", b"M\xfcller"),  # ü in Latin-1
    ("czech", "Dvořák", b"Dvo\xf8\xe1k"),  # ř á in cp1250
    ("japanese", "東京", b"\x93\x8c\x8b\x9e"),  # 東京 in Shift-JIS
]


def _file(value: str, stray: bytes, delimiter: str, where: str, bom: bytes = b"", codec: str = "utf-8") -> bytes:
    """ROWS rows of `value`, one of which holds the stray bytes instead, at `where`."""
    header = f"name{delimiter}n\n".encode(codec)
    rows = [f"{value} {i}{delimiter}{i}\n".encode(codec) for i in range(ROWS)]
    at = {"first": 0, "middle": ROWS // 2, "last": ROWS - 1}[where]
    rows[at] = stray + f" {at}{delimiter}{at}\n".encode(codec)
    return bom + header + b"".join(rows)


def _read(ns, tmp_path, name: str, data: bytes):
    path = tmp_path / name
    path.write_bytes(data)
    status, dataset = ingest(ns, path)
    assert status.state == "ready", status.error_message
    return status, dataset


def _values(ns, name: str) -> list[str]:
    return [
        r[0] for r in ns.query({"datasets": [{"source_uri": name}], "select": [{"column": "name"}], "limit": ROWS}).rows
    ]


DELIMITERS = {"comma": ",", "semicolon": ";", "tab": "\t"}
BOMS = {"bom": codecs.BOM_UTF8, "no_bom": b""}
# The default run reads 9 of the 54 files: every pair of two settings (delimiter, BOM, where the
# stray bytes are, language) in at least one of them; make test-long reads every one.
PAIRWISE = {
    ("comma", "bom", "first", "german"),
    ("semicolon", "bom", "middle", "german"),
    ("tab", "no_bom", "last", "german"),
    ("semicolon", "no_bom", "first", "czech"),
    ("tab", "bom", "middle", "czech"),
    ("comma", "bom", "last", "czech"),
    ("tab", "bom", "first", "japanese"),
    ("comma", "no_bom", "middle", "japanese"),
    ("semicolon", "bom", "last", "japanese"),
}
STRAYS = [
    pytest.param(
        language,
        value,
        stray,
        where,
        BOMS[bom],
        DELIMITERS[delimiter],
        id=f"{delimiter}-{bom}-{where}-{language}",
        marks=() if (delimiter, bom, where, language) in PAIRWISE else pytest.mark.slow,
    )
    for language, value, stray in TEXTS
    for where in ("first", "middle", "last")
    for bom in BOMS
    for delimiter in DELIMITERS
]


@pytest.mark.parametrize("language, value, stray, where, bom, delimiter", STRAYS)
def test_a_stray_byte_is_its_row_not_the_files_encoding(ns, tmp_path, language, value, stray, where, bom, delimiter):
    status, dataset = _read(ns, tmp_path, "people.csv", _file(value, stray, delimiter, where, bom))
    assert dataset.origin.encoding == "utf-8"
    assert [c.name for c in dataset.columns] == ["name", "n"]  # the BOM is no part of the header
    names = _values(ns, "people.csv")
    at = {"first": 0, "middle": ROWS // 2, "last": ROWS - 1}[where]
    assert names[at].startswith("\ufffd") or "\ufffd" in names[at]
    assert sum(value in n for n in names) == ROWS - 1  # every other row reads as it was written
    line = at + 2  # the header is line 1
    assert any(f"(line {line})" in w and "not utf-8" in w for w in dataset.warnings), dataset.warnings
    assert any(f"(line {line})" in w for w in status.warnings)


@pytest.mark.parametrize("codec, bom", [("utf-16-le", codecs.BOM_UTF16_LE), ("utf-16-be", codecs.BOM_UTF16_BE)])
def test_utf16_with_a_bom_keeps_its_encoding_past_a_broken_pair(ns, tmp_path, codec, bom):
    lone = "\ud800".encode(codec, "surrogatepass")  # half a surrogate pair: no UTF-16 character
    data = _file("Müller", lone + "x".encode(codec), ",", "middle", bom, codec)
    _, dataset = _read(ns, tmp_path, "wide.csv", data)
    assert dataset.origin.encoding == codec
    names = _values(ns, "wide.csv")
    assert sum("Müller" in n for n in names) == ROWS - 1 and "\ufffd" in names[ROWS // 2]
    assert any(f"(line {ROWS // 2 + 2})" in w for w in dataset.warnings), dataset.warnings


def test_several_damaged_lines_are_counted_and_the_first_named(ns, tmp_path):
    rows = [f"Müller {i},{i}\n".encode() for i in range(ROWS)]
    for at in range(0, 70, 10):
        rows[at] = b"M\xfcller,0\n"
    _, dataset = _read(ns, tmp_path, "several.csv", b"name,n\n" + b"".join(rows))
    [note] = [w for w in dataset.warnings if "not utf-8" in w]
    assert note.startswith("7 lines (lines 2, 12, 22, 32, 42, …) hold bytes")


def test_the_one_pass_hands_a_late_stray_byte_to_the_careful_reader(tmp_path):
    data = _file("Müller", b"M\xfcller", ",", "last")
    path = tmp_path / "big.csv"
    path.write_bytes(data)
    with tabular.connect(str(tmp_path / "home"), fast_path_bytes=0) as engine:
        ns = engine.namespace("acme", "finance")
        status, dataset = ingest(ns, path)
        assert status.state == "ready" and dataset.origin.encoding == "utf-8"
        assert sum("Müller" in n for n in _values(ns, "big.csv")) == ROWS - 1
        assert any(f"(line {ROWS + 1})" in w for w in dataset.warnings)


@pytest.mark.parametrize("where", ["first", "last"])
def test_a_legacy_file_is_still_read_in_its_code_page(ns, tmp_path, where):
    # Latin-1 throughout (no valid UTF-8 character in it): a code page, not UTF-8 with damage.
    rows = [f"Basel {i},{i}\n" for i in range(ROWS)]
    rows[0 if where == "first" else ROWS - 1] = "Zürich,0\n"
    _, dataset = _read(ns, tmp_path, "legacy.csv", ("ville,n\n" + "".join(rows)).encode("latin-1"))
    assert dataset.origin.encoding in ("iso-8859-1", "cp1252")
    assert not any("not utf-8" in w for w in dataset.warnings)
    values = [
        r[0]
        for r in ns.query(
            {"datasets": [{"source_uri": "legacy.csv"}], "select": [{"column": "ville"}], "limit": ROWS}
        ).rows
    ]
    assert sum(v.startswith("Zürich") for v in values) == 1


def test_a_clean_utf8_file_has_no_warning(ns, tmp_path):
    _, dataset = _read(ns, tmp_path, "clean.csv", codecs.BOM_UTF8 + ("name,n\n" + "Müller,1\n" * 50).encode())
    assert dataset.warnings == [] and [c.name for c in dataset.columns] == ["name", "n"]
