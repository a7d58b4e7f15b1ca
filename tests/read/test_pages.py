"""tabular/read/pages.py: which code page a text is on, judged by its letters, and what another
page would read instead."""

from __future__ import annotations

import pytest

from tabular.read.pages import alphabet_fit, latin_rival, misplaced, mixes_scripts


def test_a_texts_letters_fit_the_one_alphabet_that_writes_them():
    assert alphabet_fit("Dvořák, Janáček") == 1.0  # Czech
    assert alphabet_fit("plain ASCII") == 1.0
    assert alphabet_fit("Dvoøák") < 1.0  # a Danish ø beside Czech á: a wrong page


def test_a_letter_alone_or_a_mark_between_letters_is_misplaced():
    assert misplaced("5 Ć") == 1 and misplaced("r‚seau") == 1
    assert misplaced("réseau") == 0 and misplaced("à la") == 1  # the right page has some too


def test_latin_words_with_another_script_inside_are_mixed():
    assert mixes_scripts("ZЭrich GenИve")
    assert mixes_scripts("K㝀烟", least=1)
    assert not mixes_scripts("Москва Киев") and not mixes_scripts("東京 大阪", least=1)


@pytest.mark.parametrize(
    ("text", "codec", "other"),
    [
        ("a|b\n1|テスト\n2|alpha\n", "shift_jis", "gb18030"),
        ("a,b\n1,서울\n2,x\n", "euc_kr", "gb18030"),
        ("a,b\n1,臺北\n2,x\n", "big5", "gb18030"),
    ],
)
def test_a_few_chinese_japanese_or_korean_characters_name_the_other_pages_that_read_them(text, codec, other):
    # Two or three characters: the pages cannot be told apart, so the warning says what each reads.
    assert f"read as {other}" in latin_rival(text.encode(codec), codec)


def test_many_such_characters_or_latin_words_name_no_multi_byte_page():
    long = ("名前,都市\n" + "田中,東京\n鈴木,大阪\n" * 20).encode("shift_jis")
    assert "gb18030" not in latin_rival(long, "shift_jis")
    western = "nom;ville\nZürich;Genève\nKöln;Besançon\n".encode("cp1252")
    assert not any(page in latin_rival(western, "cp1252") for page in ("shift_jis", "gb18030", "big5", "euc_kr"))


@pytest.mark.parametrize(
    ("text", "codec", "word"),
    [
        ("a\tb\n1\tЩука\n2\tЭхо\n", "cp1251", "Щука"),
        ("a;b\n1;Ёлка\n", "cp1251", "Ёлка"),
        ("a,b\n1,Αθήνα\n", "cp1253", "Αθήνα"),
    ],
)
def test_a_few_cyrillic_or_greek_words_read_on_a_latin_page_name_the_page_that_reads_them(text, codec, word):
    data = text.encode(codec)
    for chosen in ("cp1257", "cp1252", "cp1250"):
        try:
            data.decode(chosen)
        except UnicodeDecodeError:
            continue
        assert repr(word) in latin_rival(data, chosen)
