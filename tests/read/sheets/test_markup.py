"""tabular/read/sheets/markup.py: a workbook part's XML is refused for a DTD or a markup token
past LONG_TOKEN, wherever the chunks it is fed in happen to split it."""

from __future__ import annotations

import io

import pytest

from tabular.errors import IngestFailed
from tabular.read.sheets import markup
from tabular.read.sheets.markup import GuardedStream, MarkupGuard

SHEET = b'<?xml version="1.0"?><worksheet><sheetData><row r="1"><c r="A1"><v>1</v></c></row></sheetData></worksheet>'


def feed_in_chunks(data: bytes, size: int, part: str = "xl/worksheets/sheet1.xml") -> None:
    guard = MarkupGuard(part)
    for at in range(0, len(data), size):
        guard.feed(data[at : at + size])


@pytest.mark.parametrize("size", [1, 7, 4096])
def test_an_ordinary_part_passes_however_it_is_chunked(size):
    feed_in_chunks(SHEET * 50, size)


@pytest.mark.parametrize("size", [1, 3, 4096])
def test_a_dtd_is_refused_even_when_split_across_chunks(size):
    data = b'<?xml version="1.0"?><!DOCTYPE lol [<!ENTITY a "aaaa">]><worksheet/>'
    with pytest.raises(IngestFailed) as caught:
        feed_in_chunks(data, size)
    assert caught.value.error_code == "format_unavailable"
    assert "xl/worksheets/sheet1.xml" in caught.value.message
    assert "DTD" in caught.value.message


@pytest.mark.parametrize("opener", [b"<!--", b"<![CDATA[", b"<c r="])
def test_a_token_left_open_past_the_limit_is_refused(opener):
    data = b"<worksheet>" + opener + b"x" * (markup.LONG_TOKEN + 10)
    with pytest.raises(IngestFailed) as caught:
        feed_in_chunks(data, 64 * 1024)
    assert caught.value.error_code == "format_unavailable"
    assert "over" in caught.value.message


def test_long_text_between_short_tags_is_not_a_long_token():
    data = b"<worksheet><v>" + b"x" * (markup.LONG_TOKEN + 10) + b"</v></worksheet>"
    feed_in_chunks(data, 64 * 1024)


def test_a_long_comment_that_closes_in_time_passes():
    data = b"<worksheet><!--" + b"x" * (markup.LONG_TOKEN - 100) + b"--></worksheet>"
    feed_in_chunks(data, 64 * 1024)


def test_a_guarded_stream_reads_what_the_stream_holds_and_checks_it():
    stream = GuardedStream(io.BytesIO(SHEET), "xl/worksheets/sheet1.xml")
    assert stream.read(10) + stream.read() == SHEET
    assert stream.read() == b""
    bad = GuardedStream(io.BytesIO(b"<!DOCTYPE x><worksheet/>"), "xl/sharedStrings.xml")
    with pytest.raises(IngestFailed, match="sharedStrings"):
        bad.read()
