"""Which code page a text is on, judged by its letters: the alphabets of the Latin-script
languages (a text's letters come from one), characters a wrong page puts out of place, and
what another page would read instead (for a warning). decode.py asks; nothing here opens files."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter

_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_LETTERS = re.compile(r"[^\W\d_]+")
_C1 = re.compile("[\x80-\x9f]")  # control characters no text holds: a page that reads them is wrong
WESTERN = ("cp1252", "latin-1", "latin_1", "iso8859_15")


def decodes(head: bytes, codec: str) -> bool:
    try:
        head.decode(codec)
    except UnicodeDecodeError:
        return False
    return True


def mixes_scripts(text: str, least: int = 2) -> bool:
    """Whether most words holding a letter beyond ASCII (`least` of them or more) also hold
    ASCII letters ('ZЭrich'): a Cyrillic, Greek, Chinese or Japanese text's words are written
    in their own script alone."""
    words = [w for w in _LETTERS.findall(text) if _NON_ASCII.search(w)]
    mixed = sum(1 for w in words if re.search(r"[A-Za-z]", w))
    return len(words) >= least and mixed * 2 > len(words)


# How well a Latin page's letters must fit one alphabet to displace a multi-byte reading.
LATIN_OVER_MULTI_BYTE = 0.8


def latin_reading(head: bytes, chosen: str) -> str:
    """The Latin page whose letters fit one alphabet best, when one reads the text with no
    misplaced character and fits LATIN_OVER_MULTI_BYTE or better; `chosen` otherwise."""
    fits = {}
    for codec in LATIN_PAGES:
        if decodes(head, codec) and not _C1.search(text := head.decode(codec)) and not misplaced(text):
            fits[codec] = alphabet_fit(text)
    best = max(fits, key=lambda c: (fits[c], -LATIN_PAGES.index(c)), default=None)
    return best if best and fits[best] >= LATIN_OVER_MULTI_BYTE else chosen


def latin_rival(head: bytes, codec: str) -> str:
    """What another Latin page would read where its letters fit one alphabet as well as the
    chosen page's ('Gyõr' beside 'Győr': Portuguese and Hungarian both write them), for a
    warning: the two pages hold different letters on the same bytes and nothing in the text
    decides; and, in a text with few bytes beyond ASCII, what a Chinese, Japanese or Korean page
    would read. "" when no page is as good and reads otherwise."""
    ours = head.decode(codec, errors="replace")
    said, readings = [], {ours}
    latin = codec in LATIN_PAGES or codec in WESTERN
    fit = alphabet_fit(ours)
    for other in [*_multi_byte_rivals(head, codec), *_word_rivals(head, codec)]:
        theirs = head.decode(other)
        if theirs not in readings:
            readings.add(theirs)
            at = next(i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b)
            said.append((other, _word_at(theirs, at), _word_at(ours, at)))
    for other in LATIN_PAGES if latin else ():
        if other == codec or codec in WESTERN and other in WESTERN or not decodes(head, other):
            continue
        theirs = head.decode(other)
        # Western (cp1252) is said even where another page's letters fit one alphabet better: it is
        # the page most files are in, and a few letters of two languages ('Œuvre' beside 'Señor')
        # made cp1250's 'Śuvre', 'Seńor' without a word.
        if theirs in readings or _C1.search(theirs) or alphabet_fit(theirs) < fit and other not in WESTERN:
            continue
        if misplaced(theirs) > misplaced(ours):
            continue  # 'Ł12' where '£12' is read: a letter where a symbol stands
        readings.add(theirs)
        at = next(i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b)
        said.append((other, _word_at(theirs, at), _word_at(ours, at)))
    if not said:
        return ""
    # Every page that reads as well, each by the first word it reads otherwise ('Ayşe' is
    # Turkish on cp1254, Romanian 'Ayţe' on cp1250, Icelandic 'Ayþe' on latin-1).
    other, theirs, word = said[0]
    more = "".join(f", as {o} {t!r}" for o, t, _ in said[1:])
    return f"read as {other} it would say {theirs!r}{more} where it says {word!r}"


# Under this many bytes beyond ASCII, Chinese, Japanese and Korean pages cannot be told apart
# (nor from a Latin page's letters written apart from words: '»O¥_' is big5's '臺北').
FEW_BYTES = 64
CJK_PAGES = ("shift_jis", "gb18030", "big5", "euc_kr")
SAME_PAGE = {"cp932": "shift_jis", "cp949": "euc_kr", "big5hkscs": "big5", "gbk": "gb18030", "gb2312": "gb18030"}


def _word_rivals(head: bytes, codec: str) -> list[str]:
    """Cyrillic and Greek pages that read a text with few bytes beyond ASCII as words of their own
    script written as words are (lower, Capitalised or UPPER), with no ASCII letter inside
    ('Щука' read as cp1257's 'Łóźą'): too few letters to weigh. Latin words hold ASCII ones."""
    if codec in WORD_PAGES:
        return []
    if sum(1 for b in head if b > 127) >= FEW_BYTES:
        return []
    out = []
    for other in WORD_PAGES:
        if not decodes(head, other) or _C1.search(text := head.decode(other)) or mixes_scripts(text, least=1):
            continue
        words = [w for w in _LETTERS.findall(text) if _NON_ASCII.search(w)]
        if words and all(w.islower() or w.isupper() or w[0].isupper() and w[1:].islower() for w in words):
            out.append(other)
    return out


WORD_PAGES = ("cp1251", "cp1253")


def _multi_byte_rivals(head: bytes, codec: str) -> list[str]:
    """The Chinese, Japanese and Korean pages other than `codec` that read a text with few bytes
    beyond ASCII (FEW_BYTES) strictly, as words of their own script alone (mixes_scripts)."""
    if sum(1 for b in head if b > 127) >= FEW_BYTES:
        return []
    own = SAME_PAGE.get(codec, codec)
    out = []
    for other in CJK_PAGES:
        if other != own and decodes(head, other) and not mixes_scripts(head.decode(other), least=1):
            out.append(other)
    return out


def _word_at(text: str, at: int) -> str:
    """The word around position `at` (the character there, and the letters and digits beside it)."""
    start, end = at, at + 1
    while start > 0 and text[start - 1].isalnum() and at - start < 40:
        start -= 1
    while end < len(text) and text[end].isalnum() and end - at < 40:
        end += 1
    return text[start:end]


def misplaced(text: str) -> int:
    """Non-ASCII characters where a code page put the wrong ones: a letter with no letter beside
    it ('5 Ć' where '5 €' was meant), or a mark or symbol between two letters ('r‚seau' where
    'réseau' was meant). The right page can have some too ('à la'); a wrong one has more."""
    count = 0
    for found in _NON_ASCII.finditer(text):
        i = found.start()
        if _odd(text[i]):
            count += 1
            continue
        before = text[i - 1].isalpha() if i else False
        after = text[i + 1].isalpha() if i + 1 < len(text) else False
        if text[i].isalpha() and not (before or after) or not text[i].isalpha() and before and after:
            count += 1
    return count


def _odd(ch: str) -> bool:
    """A character no cell of a table is written with: a box-drawing line or block ('┤', DOS
    pages' bytes where Windows pages hold '€'), a spacing accent or modifier ('ˆ', 'ˇ'), a C1
    control (latin-1's reading of those bytes), or a code point with no character."""
    return "\x80" <= ch <= "\x9f" or "\u2500" <= ch <= "\u259f" or unicodedata.category(ch) in ("Sk", "Lm", "Co", "Cn")


def _latin_script(text: str) -> bool:
    """Whether most letters beyond ASCII are Latin letters (a DOS or Mac Latin page's reading)."""
    letters = [ch for ch in text if ord(ch) > 127 and ch.isalpha()]
    return sum(1 for ch in letters if unicodedata.name(ch, "").startswith("LATIN")) * 2 > len(letters)


# The letters beyond ASCII each Latin-script language writes. A text's letters come from one
# language (or a few close ones): read on the wrong Latin page they scatter over several
# (Dvořák read as cp1252 is Dvoøák, an ø beside Czech á; Genève read as cp1250 is Genčve).
LATIN_ALPHABETS = {
    "French": "àâæçéèêëîïôœùûüÿ",
    "German": "äöüß",
    "Spanish": "áéíñóúü",
    "Portuguese": "ãâáàçéêíõóôú",
    "Italian": "àèéìíîòóùú",
    "Catalan": "àçèéíïòóúü",
    "Dutch": "éëïóöü",
    "Danish/Norwegian": "æøåéó",
    "Swedish/Finnish": "åäöé",
    "Icelandic": "áðéíóúýþæö",
    "Czech": "áčďéěíňóřšťúůýž",
    "Slovak": "áäčďéíĺľňóôŕšťúýž",
    "Polish": "ąćęłńóśźż",
    "Hungarian": "áéíóöőúüű",
    "Romanian": "ăâîșțşţ",
    "Croatian/Slovenian": "čćđšž",
    "Turkish": "çğıöşü",
    "Latvian": "āčēģīķļņšūž",
    "Lithuanian": "ąčęėįšųūž",
    "Estonian": "äöõüšž",
}
# The single-byte Latin pages weighed by the alphabets, Western first (it wins a tie).
LATIN_PAGES = ("cp1252", "cp1250", "cp1257", "cp1254", "iso8859_2", "iso8859_13", "iso8859_16")
# How much better a page's letters must fit one alphabet to displace the page chosen.
ALPHABET_MARGIN = 0.1


def alphabet_fit(text: str) -> float:
    """The share of the text's letters beyond ASCII that the best single alphabet writes (1.0
    when there are none)."""
    letters = Counter(ch for ch in text.lower() if ord(ch) > 127 and ch.isalpha())
    total = sum(letters.values())
    if not total:
        return 1.0
    return max(sum(letters[ch] for ch in alphabet) for alphabet in LATIN_ALPHABETS.values()) / total


def best_alphabet(head: bytes, chosen: str) -> str:
    """Among the single-byte Latin pages, the one whose letters fit one language's alphabet
    clearly better than the chosen page's (ALPHABET_MARGIN); `chosen` otherwise, or when it is
    no Latin page (a DOS or Mac page whose letters are Latin ones is weighed too)."""
    if chosen not in LATIN_PAGES and chosen not in WESTERN and not _latin_script(head.decode(chosen, errors="replace")):
        return chosen
    fits = {}
    for codec in dict.fromkeys((chosen, *LATIN_PAGES)):
        if decodes(head, codec) and (codec == chosen or not _C1.search(head.decode(codec))):
            fits[codec] = alphabet_fit(head.decode(codec))
    best = max(fits, key=lambda c: (fits[c], c == chosen, -LATIN_PAGES.index(c) if c in LATIN_PAGES else 0))
    return best if fits[best] >= fits.get(chosen, 0.0) + ALPHABET_MARGIN else chosen
