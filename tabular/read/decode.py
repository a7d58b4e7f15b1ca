"""Bytes to text: undo gzip/zip, refuse binary, and settle the encoding (BOM, UTF-8, detected)."""

from __future__ import annotations

import codecs
import gzip
import io
import lzma
import re
import struct
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, BinaryIO, NamedTuple

from ..errors import IngestFailed
from .pages import best_alphabet, decodes, latin_reading, latin_rival, misplaced, mixes_scripts

HEAD_BYTES = 1 << 20

# An OLE2 / Compound File Binary container: an .xls workbook, and also an encrypted
# (password-protected) .xlsx, which the xls reader tells apart and refuses as such.
CFB_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
ZIP_MAGIC = b"PK\x03\x04"

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le", "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32-be", "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig", "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le", "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16-be", "utf-16"),
)


@dataclass(frozen=True)
class Decoded:
    """How to read a file as text: its container (none, gzip, zip member) and its encoding."""

    path: Path
    container: str  # "", "gzip" or "zip:<member>"
    encoding: str  # the codec Python reads it with
    reported: str  # what origin.encoding says
    bom_bytes: int
    # "replace" when the encoding is settled (a BOM, or text that is UTF-8 but for a few bytes)
    # and bytes that do not decode under it are read as U+FFFD, their rows named (read/extraction.py).
    errors: str = "strict"
    # Where another Latin page fits the text as well and reads it otherwise: what it would say
    # instead, for the dataset's warnings ("" when no rival is worth saying: latin_rival).
    rival: str = ""
    # Where a file read on a legacy page holds lines written in UTF-8 (two encodings in one
    # file): the warning naming them and what they read as (utf8_lines), "" when none.
    mixed: str = ""

    @property
    def lenient(self) -> Decoded:
        """The same reading with undecodable bytes replaced instead of refused."""
        return Decoded(
            self.path, self.container, self.encoding, self.reported, self.bom_bytes, "replace", self.rival, self.mixed
        )

    def open_binary(self, budget: Budget) -> BinaryIO | _Capped:
        raw = self.path.open("rb")
        if self.container == "gzip":
            return _Capped(gzip.GzipFile(fileobj=raw), budget, raw.tell)
        if self.container.startswith("zip:"):
            archive = zipfile.ZipFile(raw)
            member = archive.getinfo(self.container[4:])
            start = member.header_offset
            return _Capped(archive.open(member), budget, lambda: raw.tell() - start)
        return raw

    def open_text(self, budget: Budget) -> io.TextIOBase:
        """The file as text, BOM removed, newlines untouched (the csv module wants newline='')."""
        stream = self.open_binary(budget)
        if self.bom_bytes:
            stream.read(self.bom_bytes)
        codec = {"utf-8-sig": "utf-8", "utf-16": self.encoding, "utf-32": self.encoding}.get(
            self.encoding, self.encoding
        )
        return io.TextIOWrapper(stream, encoding=codec, errors=self.errors, newline="")


class Budget(NamedTuple):
    """How far a compressed file may inflate: bytes in all (max_inflated_bytes), and times the
    compressed bytes read so far, once past RATIO_AFTER bytes (max_inflate_ratio). Text
    compresses 5 to 20 times; a file of blank lines a thousand: read to 4 GiB, it held a worker
    ten minutes. Read so far, not in all: a bomb shows itself in its first megabytes."""

    bytes: int
    ratio: int


# Inflated bytes after which the ratio is checked (a small file may inflate any amount).
RATIO_AFTER = 8 << 20
# How far ahead gzip reads the compressed file (128 KiB from Python 3.12, 8 KiB before): what the
# ratio check counts as read may run ahead of what has inflated by this much.
READ_AHEAD = 128 << 10


class _Capped(io.RawIOBase):
    """A stream that refuses to inflate past its budget (a compression bomb stops here)."""

    def __init__(self, inner: IO[bytes] | gzip.GzipFile, budget: Budget, consumed: Callable[[], int]):
        self._inner, self._left = inner, budget.bytes
        self._budget, self._consumed, self._read = budget, consumed, 0

    @property
    def name(self) -> str:
        """The inner stream's (the file's, or the zip member's): a TextIOWrapper's name is its buffer's."""
        return self._inner.name

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        try:
            data = self._inner.read(min(len(buffer), self._left + 1))
        # BadGzipFile is an OSError; a zip member may be deflated, bzip2'd (an OSError) or LZMA'd.
        except (OSError, EOFError, zlib.error, lzma.LZMAError, zipfile.BadZipFile) as err:
            raise IngestFailed("format_unavailable", f"the compressed file is damaged or cut short ({err})") from None
        if len(data) > self._left:
            raise IngestFailed("too_large", "the compressed file inflates past max_inflated_bytes")
        self._left -= len(data)
        self._read += len(data)
        if self._read > RATIO_AFTER and self._read > self._budget.ratio * max(self._consumed(), 1):
            raise IngestFailed(
                "too_large",
                f"the compressed file inflates more than {self._budget.ratio} times its size (max_inflate_ratio): a compression bomb, not read on",
            )
        buffer[: len(data)] = data
        return len(data)

    def inflate_ahead(self) -> None:
        """Inflate the first megabytes of a compressed file, in C, for the ratio check: a bomb is
        refused here in milliseconds, not line by line by the reader (a gzip of blank lines was
        8 Mi lines read, 9 s of CPU, or 31 Mi lines from Python 3.12, whose gzip reads further
        ahead). Stops at the end of the file, at a refusal, or once past RATIO_AFTER with more
        than twice gzip's read-ahead read (the ratio then checked is the file's own)."""
        left = RATIO_AFTER + self._budget.ratio * READ_AHEAD + (1 << 20)
        while left > 0 and (chunk := self.read(min(left, 1 << 20))):
            left -= len(chunk)
            if self._read > RATIO_AFTER and self._consumed() > 2 * READ_AHEAD:
                return

    def close(self) -> None:
        self._inner.close()
        super().close()


def detect(
    path: Path, encoding: str | None = None, budget: Budget = Budget(1 << 32, 250), max_zip_entries: int = 1_000
) -> Decoded:
    """Find the container and encoding of a delimited text file; `encoding` overrides the guess."""
    container = _container(path, max_zip_entries)
    probe = Decoded(path, container, "latin-1", "", 0)
    with probe.open_binary(budget) as stream:
        head = stream.read(HEAD_BYTES)
        if isinstance(stream, _Capped):
            stream.inflate_ahead()
    if not head.strip(b"\x00 \t\r\n"):
        raise IngestFailed("no_text", "the file is empty" if not head else "the file holds only blank space")
    bom = _bom_of(head)
    if encoding:
        try:
            declared = codecs.lookup(encoding).name
        except LookupError:
            raise IngestFailed("encoding", f"unknown encoding {encoding!r} in options") from None
        if bom is None:
            return Decoded(path, container, encoding, encoding, 0)
        # A BOM is the file's own mark of its encoding, never text: under the encoding it marks
        # it is removed (it was the first column's name, '\ufeffname'); under another it would
        # be read as letters ('ï»¿name', 'ZÃ¼rich' from a UTF-8 file said to be latin-1).
        if not declared.startswith(bom[2]):
            raise IngestFailed(
                "encoding",
                f"the file starts with the byte order mark of {_reported(bom[1])}, not {encoding} as options.encoding "
                "says: ingest again without options.encoding, or with that encoding",
            )
    if bom is not None:
        return Decoded(path, container, bom[1], _reported(bom[1]), len(bom[0]))
    wide = _bomless_utf16(head)
    if wide:
        return Decoded(path, container, wide, wide, 0)
    if not stray_nuls(head):
        raise IngestFailed("format_unavailable", "the file is binary, not delimited text (it holds NUL bytes)")
    complete = len(head) < HEAD_BYTES
    head = head.replace(b"\x00", b"")
    if _is_utf8(head, complete=complete):
        return Decoded(path, container, "utf-8", "utf-8", 0)
    if mostly_utf8(*utf8_tally(head, complete)):
        return Decoded(path, container, "utf-8", "utf-8", 0, "replace")
    codec, reported, mixed, legacy = _legacy_beside_utf8(head)
    return Decoded(path, container, codec, reported, 0, rival=latin_rival(legacy, codec), mixed=mixed)


# Text with a NUL inside a value: about one NUL a line at most, and this share of other control bytes.
CONTROL_SHARE = 0.001
_CONTROL = bytes(b for b in range(32) if b not in (0, 9, 10, 12, 13))


def _bom_of(head: bytes) -> tuple[bytes, str, str] | None:
    """The BOM the text starts with: (its bytes, the codec that reads past it, the family of
    encodings, as codecs names them, it marks)."""
    return next((entry for entry in _BOMS if head.startswith(entry[0])), None)


def _reported(codec: str) -> str:
    """The encoding a BOM's codec is reported as: utf-8-sig is UTF-8 read past its BOM."""
    return "utf-8" if codec == "utf-8-sig" else codec


def stray_nuls(head: bytes) -> bool:
    """Whether the NUL bytes of a text's head (none, or a few) leave it text: a NUL inside a
    value keeps the file and its row (extraction takes it out, with a warning), where a binary
    file holds many NULs and other control bytes."""
    nul = head.count(b"\x00")
    if not nul:
        return True
    controls = len(head) - len(head.translate(None, _CONTROL))
    return nul <= head.count(b"\n") + 1 and controls <= CONTROL_SHARE * len(head)


# Bytes of a zip's listing (central directory) allowed per entry its limit allows, on average:
# names of a few hundred characters and their extra fields fit many times over.
LISTING_BYTES_PER_ENTRY = 1024
_EOCD, _EOCD64, _LOCATOR64 = b"PK\x05\x06", b"PK\x06\x06", b"PK\x06\x07"


def zip_listing(path: Path) -> tuple[int, int] | None:
    """(entries, bytes of the listing) a zip's end-of-central-directory record declares (its
    ZIP64 record where there is one), read from the file's last 64 KiB without parsing the
    listing; None when there is no such record (zipfile then says the archive is damaged)."""
    with path.open("rb") as fh:
        size = fh.seek(0, 2)
        start = max(0, size - (22 + 0xFFFF))
        fh.seek(start)
        tail = fh.read()
    at = tail.rfind(_EOCD)
    if at < 0 or len(tail) - at < 22:
        return None
    entries, listing = struct.unpack("<HI", tail[at + 10 : at + 16])
    if at >= 20 and tail[at - 20 : at - 16] == _LOCATOR64:
        at64 = start + at - 20 - 56
        if at64 >= 0:
            with path.open("rb") as fh:
                fh.seek(at64)
                record = fh.read(56)
            if record[:4] == _EOCD64 and len(record) == 56:
                entries64, listing64 = struct.unpack("<QQ", record[32:48])
                entries, listing = max(entries, entries64), max(listing, listing64)
    return entries, listing


def check_zip_listing(path: Path, max_entries: int, setting: str, what: str = "the zip archive") -> None:
    """Refuse (too_large) a zip whose listing is longer than `max_entries` entries allow, before
    zipfile parses it: 3 million entries took 1.4 GB and 13 s to list, only to be refused after."""
    declared = zip_listing(path)
    if declared is None:
        return
    entries, listing = declared
    if entries > max_entries:
        raise IngestFailed("too_large", f"{what} lists {entries} entries; at most {max_entries} are read ({setting})")
    if listing > max(max_entries, 1) * LISTING_BYTES_PER_ENTRY:
        raise IngestFailed(
            "too_large",
            f"{what}'s listing takes {listing} bytes, more than {LISTING_BYTES_PER_ENTRY} for each of "
            f"the {max_entries} entries read ({setting})",
        )


def _container(path: Path, max_entries: int) -> str:
    with path.open("rb") as fh:
        magic = fh.read(4)
    if magic[:2] == b"\x1f\x8b":
        return "gzip"
    if magic == b"PK\x03\x04":
        check_zip_listing(path, max_entries, "max_zip_entries")
        try:
            with zipfile.ZipFile(path) as archive:
                members = [i for i in archive.infolist() if not i.is_dir()]
        except zipfile.BadZipFile:
            raise IngestFailed("format_unavailable", "the file is a damaged zip archive") from None
        if len(members) != 1:
            raise IngestFailed(
                "format_unavailable",
                f"a zip archive is read only when it holds one file; this one holds {len(members)}",
            )
        if members[0].flag_bits & 0x1:
            raise IngestFailed("format_unavailable", "the zip archive is encrypted")
        return "zip:" + members[0].filename
    return ""


def _bomless_utf16(head: bytes) -> str | None:
    sample = head[:4096]
    if len(sample) < 8:
        return None
    even, odd = sample[0::2], sample[1::2]
    if odd.count(0) > 0.4 * len(odd) and even.count(0) < 0.05 * len(even):
        return "utf-16-le"
    if even.count(0) > 0.4 * len(even) and odd.count(0) < 0.05 * len(odd):
        return "utf-16-be"
    return None


def utf8_tally(data: bytes, complete: bool, decoder=None) -> tuple[int, int]:
    """(characters of two to four bytes that read as UTF-8, bytes that do not) in `data`, at C
    speed: undecodable bytes become lone surrogates, which an 'ignore' encode then drops."""
    decoder = decoder or codecs.getincrementaldecoder("utf-8")("surrogateescape")
    text = decoder.decode(data, final=complete)
    high = len(data) - len(data.translate(None, _HIGH_BYTES))  # bytes 0x80-0xFF
    invalid = len(text) - len(text.encode("utf-8", "ignore").decode("utf-8"))
    ascii_chars = len(data) - high
    return len(text) - ascii_chars - invalid, invalid


_HIGH_BYTES = bytes(range(0x80, 0x100))


def mostly_utf8(valid: int, invalid: int) -> bool:
    """Text is UTF-8 with a few bytes flagged when its UTF-8 characters outnumber the bytes that
    are no UTF-8: a legacy code page's letters make a valid UTF-8 pair only by chance, so a
    Latin-1 file has next to none, where one stray byte among 2,000 umlauts is a damaged row, not
    a reason to read every umlaut as mojibake."""
    return valid > invalid


def _is_utf8(head: bytes, complete: bool) -> bool:
    try:
        codecs.getincrementaldecoder("utf-8")("strict").decode(head, final=complete)
    except UnicodeDecodeError:
        return False
    return True


# Among encodings that read the bytes about equally well, the ones people actually save in.
PREFERRED = (
    "cp1252",
    "latin_1",
    "iso8859_15",
    "cp932",
    "shift_jis",
    "euc_jp",
    "gb18030",
    "big5",
    "euc_kr",
    "cp1251",
    "koi8_r",
    "cp1250",
    "cp1253",
    "cp1254",
    "cp1255",
    "cp1256",
    "cp1257",
)
CHAOS_SLACK = 0.05
MULTI_BYTE = {
    "cp932",
    "shift_jis",
    "euc_jp",
    "gb18030",
    "gb2312",
    "gbk",
    "big5",
    "big5hkscs",
    "euc_kr",
    "johab",
    "cp949",
    "cp950",
    "hz",
    "iso2022_jp",
    "iso2022_kr",
}


def _legacy(head: bytes) -> tuple[str, str]:
    """(codec, reported name) of a text that is not UTF-8, by charset-normalizer and preference."""
    import charset_normalizer  # heavy: only for bytes that are not UTF-8

    matches = list(charset_normalizer.from_bytes(head))
    if not matches:
        raise IngestFailed("encoding", "the file's text encoding could not be recognised")
    if not any(m.encoding == "cp1252" for m in matches):
        # charset-normalizer may offer only rarer Latin pages for a Western file (mac_latin2 …).
        matches += list(charset_normalizer.from_bytes(head, cp_isolation=["cp1252"]))
    floor = min(m.chaos for m in matches)
    # A multi-byte page must read the bytes at least as well as the best: a lone é before a
    # letter makes a valid Shift-JIS pair by chance.
    close = [m.encoding for m in matches if m.chaos <= floor + (0 if m.encoding in MULTI_BYTE else CHAOS_SLACK)]
    ranked = sorted(close, key=lambda e: PREFERRED.index(e) if e in PREFERRED else len(PREFERRED))
    name = _best_placed(head, ranked[0], [m.encoding for m in matches if m.encoding not in MULTI_BYTE])
    name = best_alphabet(head, name)
    # Capital Greek and Cyrillic letters sit on the bytes of Shift-JIS's half-width katakana,
    # which real files hardly use: МОСКВА read as ﾌﾎﾑﾊﾂﾀ.
    if (
        name in ALPHABETS
        or name in ("iso8859_5", "mac_cyrillic")
        or name in ("cp932", "shift_jis")
        and _mostly_half_width_kana(head, name)
    ):
        name = _most_wordlike(head, name)
    if name in ALPHABETS and mixes_scripts(head.decode(name, errors="replace")):
        # 'ZЭrich', 'Genиve', 'Krakуw': Latin words with a Cyrillic or Greek letter inside are
        # Latin letters read on the wrong page: the Latin page whose letters fit, else Western.
        latin = latin_reading(head, name)
        name = latin if latin != name else "cp1252" if decodes(head, "cp1252") else name
    if name in MULTI_BYTE and mixes_scripts(head.decode(name, errors="replace"), least=1):
        # 'K㝀烟' where cp1254 wrote 'Kılıç': a multi-byte page's pairs took a Latin page's
        # letters and the ASCII letters after them.
        name = latin_reading(head, name)
    if name in ("cp1252", "latin_1", "iso8859_15"):
        # No byte in 0x80-0x9F: latin-1 and cp1252 read it alike; call it by the older name.
        return ("cp1252", "cp1252") if any(0x80 <= b <= 0x9F for b in head) else ("latin-1", "iso-8859-1")
    if name == "cp932":
        try:
            head.decode("shift_jis")
            return "shift_jis", "shift_jis"
        except UnicodeDecodeError:
            return "cp932", "cp932"
    return name, name


def _best_placed(head: bytes, chosen: str, offered: list[str]) -> str:
    """A single-byte page charset-normalizer did not rank first, when its characters sit clearly
    better among the text (misplaced): a short Western file's '€' and '–' are letters in the DOS
    pages (cp775, cp850), which it may score best, and cp1251's '€' is a box-drawing '┤' on
    cp864. Ties keep `chosen`; between Cyrillic and Greek pages _most_wordlike weighs after."""
    if chosen in MULTI_BYTE or chosen in ALPHABETS:
        return chosen
    try:
        if misplaced(head.decode(chosen)) < 3:
            return chosen  # too little out of place to weigh other pages (each is a pass over the head)
    except (UnicodeDecodeError, LookupError):
        pass
    scores: dict[str, int] = {}
    # The pages people save in are weighed even where charset-normalizer offered only multi-byte
    # ones ('€|' on cp1251 is a valid johab pair).
    weighed = [*offered, *(e for e in PREFERRED if e not in MULTI_BYTE)]
    for codec in dict.fromkeys(
        [chosen, *sorted(weighed, key=lambda e: PREFERRED.index(e) if e in PREFERRED else len(PREFERRED))]
    ):
        try:
            scores[codec] = misplaced(head.decode(codec))
        except (UnicodeDecodeError, LookupError):
            continue
    best = min(scores, key=scores.__getitem__)
    return best if scores[best] * 2 < scores.get(chosen, 0) and scores[chosen] >= 3 else chosen


# Single-byte code pages of Cyrillic and Greek put their letters on the same bytes: a short Greek
# file reads as Cyrillic without a decoding error, and charset-normalizer may not try Greek at
# all. Words of any alphabet are about 40% vowels and are written lower, Capitalised or UPPER;
# a wrong code page's letters rarely are either.
ALPHABETS = {
    "cp1251": "аеёиоуыэюяіїєАЕЁИОУЫЭЮЯІЇЄ",
    "koi8_r": "аеёиоуыэюяАЕЁИОУЫЭЮЯ",
    "cp1253": "αεηιουωάέήίόύώϊϋΐΰΑΕΗΙΟΥΩΆΈΉΊΌΎΏ",
    "iso8859_7": "αεηιουωάέήίόύώϊϋΐΰΑΕΗΙΟΥΩΆΈΉΊΌΎΏ",
}
_WORD = re.compile(r"[^\W\d_]{2,}")


def _unlikeness(head: bytes, codec: str) -> float:
    """How far the text's non-ASCII words are from looking like words (0: alike)."""
    words = [w for w in _WORD.findall(head.decode(codec, errors="replace")) if any(ord(ch) > 127 for ch in w)]
    letters = "".join(words)
    if len(letters) < 8:
        return 1.0
    vowels = sum(ch in ALPHABETS[codec] for ch in letters) / len(letters)
    odd_case = sum(not (w.islower() or w.isupper() or w[0].isupper() and w[1:].islower()) for w in words) / len(words)
    return abs(vowels - 0.42) + odd_case


def _mostly_half_width_kana(head: bytes, codec: str) -> bool:
    wide = [ch for ch in head.decode(codec, errors="replace") if ord(ch) > 127]
    return bool(wide) and sum("\uff61" <= ch <= "\uff9f" for ch in wide) * 2 > len(wide)


def _most_wordlike(head: bytes, chosen: str) -> str:
    """Among the Cyrillic and Greek code pages, the one whose words look most like words, when it
    looks clearly more so than `chosen`."""
    scores = {codec: _unlikeness(head, codec) for codec in ALPHABETS}
    best = min(scores, key=lambda codec: (scores[codec], codec != chosen))
    return best if scores[best] + 0.1 < scores.get(chosen, 1.0) else chosen


# How much of a file the legacy detection looks at after a late decode error.
LEGACY_SAMPLE = 64 << 20


def fallback_after(path: Path, decoded: Decoded, budget: Budget) -> Decoded:
    """A file that read as UTF-8 at its head but failed later: UTF-8 still, its undecodable
    bytes flagged, when UTF-8 characters outnumber them over the whole file (mostly_utf8); else
    a legacy code page detected from its first LEGACY_SAMPLE bytes."""
    decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")
    valid = invalid = 0
    sample = b""
    with decoded.open_binary(budget) as stream:
        while chunk := stream.read(8 << 20):
            if len(sample) < LEGACY_SAMPLE:
                sample += chunk[: LEGACY_SAMPLE - len(sample)]
            good, bad = utf8_tally(chunk, False, decoder)
            valid, invalid = valid + good, invalid + bad
    invalid += len(decoder.getstate()[0])  # a sequence cut short by the end of the file
    if mostly_utf8(valid, invalid):
        return Decoded(path, decoded.container, "utf-8", "utf-8", 0, "replace")
    codec, reported, mixed, _ = _legacy_beside_utf8(sample)
    return Decoded(path, decoded.container, codec, reported, 0, mixed=mixed)


# A character of two to four bytes written in UTF-8.
_UTF8_CHAR = re.compile(rb"[\xc2-\xdf][\x80-\xbf]|[\xe0-\xef][\x80-\xbf]{2}|[\xf0-\xf4][\x80-\xbf]{3}")
# Lines a warning names by number (as read/lines.py's warnings do).
_NAMED = 5


def whole_utf8_lines(data: bytes) -> tuple[list[int], bytes]:
    """(the numbers of the lines of `data` that are wholly UTF-8 and hold a character past ASCII,
    the other lines): in a file that is not UTF-8 these are lines saved in UTF-8 beside lines in
    a legacy page. A legacy line makes whole UTF-8 only by chance: every byte past ASCII on it
    must pair up ('Ã©' for 'é')."""
    if not _UTF8_CHAR.search(data):
        return [], data
    numbers, rest = [], []
    for number, line in enumerate(data.split(b"\n"), start=1):
        if _UTF8_CHAR.search(line):
            try:
                line.decode("utf-8")
            except UnicodeDecodeError:
                pass
            else:
                numbers.append(number)
                continue
        rest.append(line)
    return numbers, b"\n".join(rest)


def _legacy_beside_utf8(data: bytes) -> tuple[str, str, str, bytes]:
    """The legacy page of a text that is not UTF-8, chosen on its lines that are not UTF-8 (a
    Latin-1 file's 'Genève' beside a UTF-8 'Zürich' was read on cp1257 as 'Genčve'), with the
    warning naming the UTF-8 lines (utf8_lines), and the lines it was chosen on: what another
    page would read is said of those (latin_rival), not of 'Zürich' (read as cp1250 'ZĂĽrich')."""
    numbers, rest = whole_utf8_lines(data)
    legacy = rest if numbers and rest.strip() and not _is_utf8(rest, True) else data
    codec, reported = _legacy(legacy)
    return codec, reported, utf8_lines(data, numbers, codec, reported), legacy


def utf8_lines(data: bytes, numbers: list[int], codec: str, reported: str) -> str:
    """The warning for a text read on a legacy page (`codec`) whose lines `numbers` are wholly
    UTF-8 (whole_utf8_lines): two encodings in one file ('Zürich' saved as UTF-8 in a Latin-1
    file), where the page reads each such letter as two ('ZÃ¼rich'); "" when no line is."""
    if not numbers:
        return ""
    text = data.split(b"\n")[numbers[0] - 1].decode("utf-8")
    at = next(i for i, ch in enumerate(text) if ord(ch) > 0x7F)
    before, after = re.search(r"\w*$", text[:at]), re.match(r"\W?\w*", text[at:])
    assert before is not None and after is not None  # either pattern matches the empty text
    word = before[0] + after[0]
    shown = ", ".join(str(n) for n in numbers[:_NAMED]) + (", …" if len(numbers) > _NAMED else "")
    many = len(numbers) != 1
    return (
        f"{len(numbers)} line{'s' if many else ''} ({'lines' if many else 'line'} {shown}) "
        f"{'are' if many else 'is'} written in UTF-8 in a file read as {reported}: {word!r} reads as "
        f"{word.encode('utf-8').decode(codec, errors='replace')!r} there; the file mixes two encodings, "
        "so values on one side read wrongly"
    )
