"""tabular/read/decode.py: bytes to text: the container (gzip, a one-file zip), the encoding (a
BOM, UTF-8, a legacy code page, an override), and binary, empty or bomb-like files refused."""

from __future__ import annotations

import gzip
import zipfile

import pytest

from tabular.errors import IngestFailed
from tabular.read.decode import Budget, check_zip_listing, detect, mostly_utf8, utf8_tally, zip_listing

BUDGET = Budget(1 << 30, 250)
TEXT = "name,city\nJosé,Zürich\nÅsa,Malmö\n"


def write(tmp_path, data: bytes, name: str = "data.csv"):
    path = tmp_path / name
    path.write_bytes(data)
    return path


def read_back(decoded) -> str:
    with decoded.open_text(BUDGET) as fh:
        return fh.read()


@pytest.mark.parametrize(
    ("data", "reported"),
    [
        (b"\xef\xbb\xbf" + TEXT.encode("utf-8"), "utf-8"),
        (b"\xff\xfe" + TEXT.encode("utf-16-le"), "utf-16-le"),
        (b"\xfe\xff" + TEXT.encode("utf-16-be"), "utf-16-be"),
        (b"\xff\xfe\x00\x00" + TEXT.encode("utf-32-le"), "utf-32-le"),
    ],
)
def test_a_bom_settles_the_encoding_and_is_not_read_as_text(tmp_path, data, reported):
    decoded = detect(write(tmp_path, data))
    assert decoded.reported == reported
    assert read_back(decoded) == TEXT


def test_utf16_without_a_bom_is_recognised_by_its_zero_bytes(tmp_path):
    decoded = detect(write(tmp_path, TEXT.encode("utf-16-le")))
    assert (decoded.reported, decoded.bom_bytes) == ("utf-16-le", 0)
    assert read_back(decoded) == TEXT


def test_plain_utf8_reads_as_utf8_strictly(tmp_path):
    decoded = detect(write(tmp_path, TEXT.encode("utf-8")))
    assert (decoded.encoding, decoded.reported, decoded.errors) == ("utf-8", "utf-8", "strict")
    assert read_back(decoded) == TEXT


def test_a_latin1_file_is_read_as_a_western_code_page_not_as_mojibake(tmp_path):
    decoded = detect(write(tmp_path, (TEXT * 20).encode("latin-1")))
    assert decoded.reported in ("iso-8859-1", "cp1252")
    assert read_back(decoded) == TEXT * 20


def test_cp1252_bytes_name_cp1252_and_read_back_exactly(tmp_path):
    text = "Artikel;Preis;Beschreibung\n" + (
        "Kaffee;5,00 €;Frühstück für zwei – heiß\nTee;4,50 €;Grüner Tee aus Übersee\nKuchen;3,20 €;Käsekuchen „hausgemacht“\n"
        * 10
    )
    decoded = detect(write(tmp_path, text.encode("cp1252")))
    assert decoded.reported == "cp1252"
    assert read_back(decoded) == text


@pytest.mark.parametrize(
    "text",
    [
        "item,price\n" + "Kaffee,5 €\nTee – grün,4 €\n" * 20,
        "article;prix\n" + "Café crème;3,20 €\nThé — menthe;2,90 €\n" * 15,
        "name|note\n" + "Ana|“bom” dia…\nJoão|‘ok’ – sim\n" * 12,
    ],
    ids=["german", "french", "portuguese"],
)
def test_a_short_cp1252_file_keeps_its_euro_signs_and_dashes(tmp_path, text):
    """€, – — “ ” … sit on bytes the DOS pages (cp775, cp850) read as letters; a letter alone
    between spaces is what a wrong page gives, so the Windows page is kept."""
    assert read_back(detect(write(tmp_path, text.encode("cp1252")))) == text


def test_a_dos_file_keeps_its_dos_page(tmp_path):
    """The other way round: é written by cp850 (0x82) is '‚' in cp1252, a mark inside a word."""
    text = "ville,réseau\n" + "Genève,réseau élevé\nZürich,Straße\n" * 20
    assert read_back(detect(write(tmp_path, text.encode("cp850")))) == text


def test_utf8_with_one_stray_byte_stays_utf8_and_replaces_that_byte(tmp_path):
    data = ("Zürich,Malmö\n" * 200).encode("utf-8") + b"bad \xe9 byte\n"
    decoded = detect(write(tmp_path, data))
    assert (decoded.encoding, decoded.errors) == ("utf-8", "replace")
    assert read_back(decoded).endswith("bad \ufffd byte\n")


def test_an_encoding_in_options_overrides_the_guess_and_an_unknown_one_is_refused(tmp_path):
    path = write(tmp_path, TEXT.encode("utf-8"))
    assert detect(path, encoding="latin-1").reported == "latin-1"
    with pytest.raises(IngestFailed) as caught:
        detect(path, encoding="no-such-codec")
    assert caught.value.error_code == "encoding"
    assert "no-such-codec" in caught.value.message


@pytest.mark.parametrize("data", [b"", b"  \r\n\t\n", b"\x00\x00\x00"])
def test_an_empty_or_blank_file_is_no_text(tmp_path, data):
    with pytest.raises(IngestFailed) as caught:
        detect(write(tmp_path, data))
    assert caught.value.error_code == "no_text"


@pytest.mark.parametrize(
    "data",
    [
        b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(range(256)) * 4,  # an OLE2 (.xls) container
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)),
    ],
)
def test_a_binary_file_is_refused_as_not_delimited_text(tmp_path, data):
    with pytest.raises(IngestFailed) as caught:
        detect(write(tmp_path, data))
    assert caught.value.error_code == "format_unavailable"


def test_a_gzip_file_is_read_through_its_container(tmp_path):
    decoded = detect(write(tmp_path, gzip.compress(TEXT.encode("utf-8")), "data.csv.gz"))
    assert decoded.container == "gzip"
    assert read_back(decoded) == TEXT


def test_a_zip_of_one_file_is_read_and_a_zip_of_two_is_refused(tmp_path):
    one = tmp_path / "one.zip"
    with zipfile.ZipFile(one, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("inner/data.csv", TEXT)
    decoded = detect(one)
    assert decoded.container == "zip:inner/data.csv"
    assert read_back(decoded) == TEXT

    two = tmp_path / "two.zip"
    with zipfile.ZipFile(two, "w") as archive:
        archive.writestr("a.csv", TEXT)
        archive.writestr("b.csv", TEXT)
    with pytest.raises(IngestFailed, match="holds 2"):
        detect(two)


def test_a_damaged_zip_is_refused_as_such(tmp_path):
    with pytest.raises(IngestFailed) as caught:
        detect(write(tmp_path, b"PK\x03\x04" + b"\x00" * 200, "bad.zip"))
    assert caught.value.error_code == "format_unavailable"


def test_a_gzip_past_its_inflate_budget_is_too_large(tmp_path):
    path = write(tmp_path, gzip.compress(b"a,b\n" + b"1,2\n" * 100_000), "big.csv.gz")
    decoded = detect(path)
    with pytest.raises(IngestFailed) as caught:
        with decoded.open_binary(Budget(1000, 250)) as stream:
            stream.read()
    assert caught.value.error_code == "too_large"


def test_a_gzip_cut_short_is_damaged_not_a_crash(tmp_path):
    whole = gzip.compress(TEXT.encode("utf-8") * 1000)
    with pytest.raises(IngestFailed) as caught:
        read_back(detect(write(tmp_path, whole[: len(whole) // 2], "cut.csv.gz")))
    assert caught.value.error_code == "format_unavailable"


def test_a_zip_listing_declares_its_entries_and_too_many_are_refused_before_listing(tmp_path):
    path = tmp_path / "many.zip"
    with zipfile.ZipFile(path, "w") as archive:
        for i in range(5):
            archive.writestr(f"f{i}.csv", "a\n1\n")
    entries, listing = zip_listing(path)
    assert entries == 5 and listing > 0
    check_zip_listing(path, 5, "max_zip_entries")
    with pytest.raises(IngestFailed) as caught:
        check_zip_listing(path, 4, "max_zip_entries")
    assert caught.value.error_code == "too_large"
    assert "max_zip_entries" in caught.value.message
    assert zip_listing(write(tmp_path, b"not a zip at all")) is None


def test_utf8_tally_counts_utf8_characters_against_bytes_that_are_not():
    assert utf8_tally("Zürich €".encode(), complete=True) == (2, 0)
    assert utf8_tally("Zürich".encode("latin-1"), complete=True) == (0, 1)
    assert mostly_utf8(2, 1) and not mostly_utf8(0, 1)


def test_a_nul_inside_a_value_leaves_the_file_text_and_a_binary_file_stays_refused(tmp_path):
    from tabular.read.decode import stray_nuls

    text = "id;name\n" + "".join(f"{i};Zoë{i}\n" for i in range(50))
    one = text.replace("Zoë7", "Zo\x00ë7").encode("utf-8")
    assert stray_nuls(one) and stray_nuls(text.encode("cp1252")) and stray_nuls(b"a,b\n1,x\x00y\n")
    assert detect(write(tmp_path, one)).encoding == "utf-8"
    assert not stray_nuls(bytes(range(256)) * 64)  # control bytes throughout: binary
    assert not stray_nuls(b"\x00" * 4096 + b"a,b\n")  # NULs far more than its lines
    with pytest.raises(IngestFailed) as caught:
        detect(write(tmp_path, bytes(range(256)) * 64))
    assert caught.value.error_code == "format_unavailable"


# Names and places in each Latin-script language, written in the code page its files use.
LATIN_TEXTS = {
    "czech": ("jméno;město\nJiří Dvořák;České Budějovice\nŠárka Nováková;Plzeň\n", "cp1250"),
    "polish": ("imię;miasto\nŁukasz Wójcik;Łódź\nZofia Kowalska;Kraków\n", "cp1250"),
    "hungarian": ("név;város\nKovács Péter;Győr\nSzűcs Ödön;Kőszeg\n", "cp1250"),
    "croatian": ("ime;grad\nĐurđa Čačić;Đakovo\nMiloš Šarić;Rijeka\n", "cp1250"),
    "turkish": ("ad;şehir\nAyşe Yılmaz;İstanbul\nÇağrı Öztürk;Eskişehir\n", "cp1254"),
    "lithuanian": ("vardas;miestas\nJonas Žukauskas;Šiauliai\nRūta Kazlauskienė;Klaipėda\n", "cp1257"),
    "french": ("nom;ville\nÉlève Dupré;Genève\nFrançois Lefèvre;Besançon\n", "latin-1"),
    "spanish": ("nombre;ciudad\nJosé Núñez;Cádiz\nMaría Peña;Logroño\n", "cp1252"),
    "nordic": ("navn;by\nSøren Ærø;Århus\nÅse Øvrebø;Tromsø\n", "latin-1"),
    "italian": ("nome;città\nNiccolò;Forlì\nPerché;Cantù\n", "latin-1"),
}


@pytest.mark.parametrize("language", sorted(LATIN_TEXTS))
@pytest.mark.parametrize("repeat", [1, 10])
def test_a_latin_page_is_the_one_whose_letters_one_language_writes(tmp_path, language, repeat):
    text, codec = LATIN_TEXTS[language]
    header, body = text.split("\n", 1)
    data = (header + "\n" + body * repeat).encode(codec)
    decoded = detect(write(tmp_path, data), budget=BUDGET)
    assert read_back(decoded) == header + "\n" + body * repeat


def test_where_two_latin_pages_read_as_well_the_warning_says_what_the_other_would_read(tmp_path):
    # Győr and Pécs: Hungarian in cp1250, or Portuguese-like õ in cp1252; nothing in the text decides.
    data = "név;város\nKovács Péter;Győr\nSzabó Erzsébet;Pécs\n".encode("cp1250")
    decoded = detect(write(tmp_path, data), budget=BUDGET)
    held = read_back(decoded)
    other = "Gyõr" if "Győr" in held else "Győr"
    assert f"would say {other!r}" in decoded.rival and decoded.reported in ("cp1250", "iso-8859-1", "cp1252")


def test_latin_words_with_a_cyrillic_letter_inside_are_a_western_page(tmp_path):
    data = ("nom;ville\n" + "Zürich;Genève\nKöln;Besançon\n" * 5).encode("latin-1")
    assert read_back(detect(write(tmp_path, data), budget=BUDGET)).endswith("Köln;Besançon\n")
    russian = ("имя;город\n" + "Иван Петров;Москва\nOlga iPhone;Санкт-Петербург\n" * 5).encode("cp1251")
    assert "Москва" in read_back(detect(write(tmp_path, russian, "ru.csv"), budget=BUDGET))


# Short files of Latin names whose bytes also pair into valid multi-byte characters.
PAIRED = {
    "turkish": ("name,city\nAli,Ankara\nKılıç,Izmir\nMehmet,Bursa\nCan,Adana\nEce,Konya\n", "cp1254"),
    "turkish tab": ("ad\tşehir\nKılıç\tAydın\nOğuz\tMuğla\n", "cp1254"),
    "polish": ("imie;miasto\nŁukasz;Łódź\nŻaneta;Kraków\n", "cp1250"),
    "czech": ("jmeno|mesto\nJiří|Brno\nŠárka|Plzeň\n", "cp1250"),
}


@pytest.mark.parametrize("name", sorted(PAIRED))
def test_latin_words_a_multi_byte_page_would_pair_read_on_their_latin_page(tmp_path, name):
    text, codec = PAIRED[name]
    assert read_back(detect(write(tmp_path, text.encode(codec)), budget=BUDGET)) == text


@pytest.mark.parametrize(
    ("text", "codec"),
    [
        ("名前,都市\n田中,東京\n鈴木,大阪\nTシャツ,x\n", "shift_jis"),
        ("名前,都市\n田中,東京\n鈴木,大阪\n", "big5"),
        ("名前,都市\n田中,东京\n铃木,大阪\n", "gb18030"),
    ],
)
def test_chinese_and_japanese_text_keeps_its_multi_byte_page(tmp_path, text, codec):
    assert read_back(detect(write(tmp_path, text.encode(codec)), budget=BUDGET)) == text


def test_the_tie_warning_names_every_page_that_reads_as_well(tmp_path):
    # 'Ayşe' alone: Turkish on cp1254, Romanian 'Ayţe' on cp1250, Icelandic 'Ayþe' on latin-1.
    data = "name,city\nAyşe,Ankara\nMehmet,Bursa\n".encode("cp1254")
    decoded = detect(write(tmp_path, data), budget=BUDGET)
    words = {"Ayşe", "Ayţe", "Ayþe"} - {read_back(decoded).split("\n")[1].split(",")[0]}
    assert all(repr(word) in decoded.rival for word in words)


@pytest.mark.parametrize("d", ["|", "\t", ";"])
@pytest.mark.parametrize("rows", [5, 400])
def test_euro_amounts_on_cp1251_keep_their_euro_sign(tmp_path, d, rows):
    # cp1251 writes '€' at 0x88: a DOS page reads it as a box-drawing '┤', cp1252 as 'ˆ'.
    text = f"amount{d}flag\n" + "".join(f"{1000 + i * 37},{i % 100:02d} €{d}{i % 2}\n" for i in range(rows))
    assert read_back(detect(write(tmp_path, text.encode("cp1251")), budget=BUDGET)) == text


@pytest.mark.parametrize("d", [",", "\t", ";"])
def test_polish_and_czech_names_together_read_on_their_windows_page(tmp_path, d):
    names = ["Ústí", "Łódź", "Kraków", "Žluťoučký", "Škoda", "Gdańsk"]
    text = f"id{d}name\n" + "".join(f"{i}{d}{n}\n" for i, n in enumerate(names))
    assert read_back(detect(write(tmp_path, text.encode("cp1250")), budget=BUDGET)) == text


@pytest.mark.parametrize(
    ("data", "declared", "reported"),
    [
        (b"\xef\xbb\xbf" + TEXT.encode("utf-8"), "utf-8", "utf-8"),
        (b"\xef\xbb\xbf" + TEXT.encode("utf-8"), "UTF8", "utf-8"),
        (b"\xff\xfe" + TEXT.encode("utf-16-le"), "utf-16-le", "utf-16-le"),
        (b"\xff\xfe" + TEXT.encode("utf-16-le"), "utf-16", "utf-16-le"),
        (b"\xfe\xff" + TEXT.encode("utf-16-be"), "utf-16-le", "utf-16-be"),  # the BOM says the byte order
    ],
)
def test_a_bom_under_its_own_declared_encoding_is_no_text(tmp_path, data, declared, reported):
    # Declared, the BOM was read as a character: the first column was named '\ufeffname'.
    decoded = detect(write(tmp_path, data), encoding=declared)
    assert decoded.reported == reported
    assert read_back(decoded) == TEXT


@pytest.mark.parametrize(
    ("data", "declared", "marked"),
    [
        (b"\xef\xbb\xbf" + TEXT.encode("utf-8"), "latin-1", "utf-8"),  # 'ï»¿name', 'ZÃ¼rich'
        (b"\xef\xbb\xbf" + TEXT.encode("utf-8"), "cp1252", "utf-8"),
        (b"\xff\xfe" + TEXT.encode("utf-16-le"), "utf-8", "utf-16-le"),
        (b"\xff\xfe\x00\x00" + TEXT.encode("utf-32-le"), "utf-16", "utf-32-le"),
    ],
)
def test_a_declared_encoding_a_bom_contradicts_is_refused_saying_the_bom(tmp_path, data, declared, marked):
    with pytest.raises(IngestFailed) as caught:
        detect(write(tmp_path, data), encoding=declared)
    assert caught.value.error_code == "encoding"
    assert marked in caught.value.message and declared in caught.value.message


def test_a_bom_declared_away_fails_the_ingest_and_a_bom_declared_right_names_the_column(ns, tmp_path):
    path = write(tmp_path, b"\xef\xbb\xbf" + ("name,city\n" + "Ann,Z\u00fcrich\n" * 6).encode("utf-8"))
    status = ns.ingest_file(path, source_uri="bom.csv", options={"encoding": "latin-1"}, progress=False)
    assert status.state == "failed" and status.error_code == "encoding"
    status = ns.ingest_file(path, source_uri="bom.csv", options={"encoding": "utf-8"}, progress=False)
    got = ns.dataset_get("bom.csv", sample_rows=1).datasets[0]
    assert [c.name for c in got.columns] == ["name", "city"] and got.sample[0]["city"] == "Z\u00fcrich"


# Two encodings in one file: a few lines saved as UTF-8 among lines in a legacy page, and the
# reverse, with the delimiter, the page and where the UTF-8 lines stand varied.
MIXED = [
    # (legacy page, delimiter, legacy rows, UTF-8 rows, UTF-8 rows first)
    ("latin-1", ",", ["Genève", "Malmö"], ["Zürich"], True),
    ("latin-1", ";", ["Genève", "Malmö", "Ålesund"], ["Zürich"], False),
    ("cp1252", "\t", ["España – “x”", "Señor €5", "Mañana"], ["Café", "Ñandú"], False),
    ("cp1250", "|", ["Łódź", "Kraków", "Gdańsk"], ["Brno Žižkov"], True),
]


@pytest.mark.parametrize(("page", "delimiter", "legacy", "utf8", "first"), MIXED)
def test_lines_in_utf8_among_legacy_lines_are_named_and_the_page_fits_the_rest(
    ns, tmp_path, page, delimiter, legacy, utf8, first
):
    head = f"id{delimiter}city\n".encode()
    old = b"".join(f"{i}{delimiter}{c}\n".encode(page) for i, c in enumerate(legacy, start=1))
    new = b"".join(f"{i}{delimiter}{c}\n".encode() for i, c in enumerate(utf8, start=len(legacy) + 1))
    path = write(tmp_path, head + (new + old if first else old + new))
    ns.ingest_file(path, source_uri="mixed.csv", progress=False)
    got = ns.dataset_get("mixed.csv", sample_rows=10).datasets[0]
    cities = [row["city"] for row in got.sample]
    # The legacy lines read as written: the UTF-8 bytes no longer choose their page.
    assert all(c in cities for c in legacy)
    # The UTF-8 lines are read on the legacy page, and the warning names them and what they read as.
    lines = [2 + i for i in range(len(utf8))] if first else [2 + len(legacy) + i for i in range(len(utf8))]
    (said,) = [w for w in got.warnings if "written in UTF-8" in w]
    assert f"line{'s' if len(lines) > 1 else ''} {', '.join(map(str, lines))})" in said
    assert "mixes two encodings" in said


@pytest.mark.parametrize(
    ("text", "page"),
    [
        ("id,city\n1,Genève\n2,Malmö\n3,Señor ß\n", "latin-1"),
        ("id;city\n1;Вінниця\n2;Київ\n3;Львів\n", "cp1251"),
        ("id\tcity\n1\tŁódź\n2\tKraków\n", "cp1250"),
    ],
)
def test_a_file_wholly_in_one_legacy_page_names_no_utf8_lines(tmp_path, text, page):
    decoded = detect(write(tmp_path, text.encode(page)))
    assert decoded.mixed == "" and read_back(decoded) == text


@pytest.mark.parametrize(
    ("rows", "western"),
    [
        (["Œuvre – “x”", "Señor"], "Œuvre"),  # French and Spanish letters: cp1250's Polish 'Śuvre', 'Seńor'
        (["Ÿvonne", "Señor"], "Ÿvonne"),
        (["Œil", "Añasco"], "Œil"),
    ],
)
def test_a_short_western_text_read_on_another_page_says_what_cp1252_reads(tmp_path, rows, western):
    decoded = detect(write(tmp_path, "".join(f"{i};{r}\n" for i, r in enumerate(rows)).encode("cp1252")))
    said = "cp1252" in decoded.rival and repr(western) in decoded.rival
    assert decoded.reported in ("cp1252", "iso-8859-1") or said


@pytest.mark.parametrize("at", [0, 3, 5])
@pytest.mark.parametrize("utf8", ["Zürich", "東京", "€5 und ü"])
def test_what_another_page_reads_is_said_of_the_legacy_lines_not_the_utf8_one(tmp_path, at, utf8):
    """The page is chosen on the lines that are not UTF-8, and so is the rival it names: a
    short cp1252 file read as cp1250 with a UTF-8 'Zürich' among its lines said nothing of
    cp1252 (its bytes decided), or named the UTF-8 line's 'ZĂĽrich' as the other reading."""
    rows = [f"{i};{w}\n".encode("cp1252") for i, w in enumerate(["Genève", "Malmö", "Señor", "Café crème", "Ålesund"])]
    rows.insert(at, f"9;{utf8}\n".encode())
    decoded = detect(write(tmp_path, b"id;city\n" + b"".join(rows)))
    assert f"line {at + 2})" in decoded.mixed
    legacy = detect(write(tmp_path, b"id;city\n" + b"".join(r for k, r in enumerate(rows) if k != at), "legacy.csv"))
    assert (decoded.reported, decoded.rival) == (legacy.reported, legacy.rival) and "Genève" in decoded.rival


def test_a_gzip_bomb_is_refused_when_its_container_is_first_looked_at(tmp_path):
    """A gzip of blank lines (16 MiB in a few KiB) is refused by the first look at the file, which
    inflates its first megabytes in C, not after the reader has taken its first 8 MiB line by line
    (8 Mi blank lines, seconds of CPU); a real compressed file is read as before."""
    bomb = tmp_path / "blank.csv.gz"
    with gzip.open(bomb, "wb") as out:
        for _ in range(16):
            out.write(b"\n" * (1 << 20))
    with pytest.raises(IngestFailed) as refused:
        detect(bomb, budget=Budget(1 << 32, 250))
    assert refused.value.error_code == "too_large" and "max_inflate_ratio" in str(refused.value)
    real = tmp_path / "real.csv.gz"
    real.write_bytes(gzip.compress(b"id,name\n" + b"".join(b"%d,row %d\n" % (i, i) for i in range(400_000))))
    assert detect(real, budget=Budget(1 << 32, 250)).container == "gzip"


# The damaged member's rows: 20,000 (about 560 KB, within the first look's megabyte) by default,
# a tenth of LZMA's work writing them; 200,000 (past it) in `make test-long`.
MEMBER_ROWS = [pytest.param(20_000, id="small"), pytest.param(200_000, id="large", marks=pytest.mark.slow)]


@pytest.mark.parametrize("rows", MEMBER_ROWS)
@pytest.mark.parametrize("method", [zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA])
def test_a_damaged_zip_member_is_damaged_not_a_crash_however_it_was_compressed(tmp_path, method, rows):
    """A zip member's bytes overwritten mid-stream: format_unavailable whatever compressed it (an
    LZMA member's damage raised lzma's own error, an internal one)."""
    path = tmp_path / "damaged.zip"
    lines = "".join(f"{i},row {i},{i * 7 % 1000}.{i % 100:02d}\n" for i in range(rows))
    with zipfile.ZipFile(path, "w", compression=method) as archive:
        archive.writestr("data.csv", "id,name,amount\n" + lines)
    data = bytearray(path.read_bytes())
    middle = len(data) // 3
    data[middle : middle + 64] = bytes(range(64))
    path.write_bytes(bytes(data))
    with pytest.raises(IngestFailed) as caught:
        read_back(detect(path))
    assert caught.value.error_code == "format_unavailable"
