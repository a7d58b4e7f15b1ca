"""Patterns found in other people's files (issue 14): each is read the one way its file makes
certain, or asked, never silently changed. Each pattern is a small file made here; where a
shared-corpus file shows it, that file is checked too (skipped when the corpus is absent)."""

from __future__ import annotations

import sys

import pytest
from conftest import CORPUS, columns, ingest


def typed(ns, tmp_path, name: str, content: bytes | str, **fields):
    path = tmp_path / name
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    status, dataset = ingest(ns, path, **fields)
    assert status.state == "ready", status.error_message
    return dataset


def kinds(dataset) -> dict[str, str]:
    return {q.column: q.kind for q in dataset.questions}


def corpus_file(relative: str):
    path = CORPUS / relative
    if not path.is_file():
        pytest.skip(f"the shared corpus file {relative} is not here")
    return path


# --- silent damage ------------------------------------------------------------------------------


def test_version_numbers_are_not_dates(ns, tmp_path):
    d = typed(ns, tmp_path, "versions.csv", "version,released\n2.2.2,01.02.2020\n2.2.0,03.04.2021\n1.10.3,05.06.2022\n")
    cols = columns(d)
    assert (cols["version"].type, cols["released"].type) == ("string", "date")
    assert [r["version"] for r in d.sample] == ["2.2.2", "2.2.0", "1.10.3"]
    assert d.sample[0]["released"] == "2020-02-01"


def test_a_year_needs_its_four_digits(ns, tmp_path):
    # %d/%m/%Y would read 1/2/3 as 1 February of the year 3.
    d = typed(ns, tmp_path, "short.csv", "code\n1/2/3\n4/5/6\n7/8/9\n")
    assert columns(d)["code"].type == "string"


def test_phone_numbers_keep_their_plus(ns, tmp_path):
    d = typed(ns, tmp_path, "phones.csv", "phone,delta\n+318855443322,+5\n+12233445567,-3\n+4420123456,+2\n")
    cols = columns(d)
    assert cols["phone"].type == "string" and d.sample[0]["phone"] == "+318855443322"
    assert kinds(d) == {"phone": "leading_plus"}
    # Signed quantities are numbers: a '+' before a short number, or beside negatives, is a sign.
    assert cols["delta"].physical == "BIGINT" and d.sample[1]["delta"] == -3


def test_a_phone_number_past_the_sample_stops_the_one_pass(ns, tmp_path):
    # The one pass types the head; a '+' identifier further down must not lose its '+'.
    rows = "".join(f"{k}\n" for k in range(1, 30_001)) + "+318855443322\n"
    d = typed(ns, tmp_path, "late_plus.csv", "n\n" + rows)
    assert columns(d)["n"].type == "string" and kinds(d) == {"n": "leading_plus"}
    assert not d.origin.one_pass  # the guard stopped the one pass; the careful way counted every row


def test_a_decimal_comma_among_decimal_points_is_asked(ns, tmp_path):
    d = typed(
        ns,
        tmp_path,
        "marks.csv",
        'price,float,ratio,name\n362.10,126.709,"1,7",a\n989.13,101.54,"6,2",b\n287.84,389.83,"5,3",c\n',
    )
    cols = columns(d)
    assert cols["price"].physical == "DECIMAL(5, 2)"
    assert cols["ratio"].type == "string" and kinds(d) == {"ratio": "decimal_mark"}
    assert d.sample[0]["ratio"] == "1,7"
    # As many columns each way: no side is picked silently, each is asked.
    d = typed(ns, tmp_path, "ort.csv", "Ort;Lat;Betrag\nA;52.3702;1,50\nB;48.1351;2,75\n")
    assert kinds(d) == {"Lat": "decimal_mark", "Betrag": "decimal_mark"}
    # A file that uses the comma throughout is read with it, no question.
    d = typed(ns, tmp_path, "commas.csv", "a;b\n1,5;3,25\n2,5;4,5\n")
    assert [c.physical for c in d.columns] == ["DECIMAL(2, 1)", "DECIMAL(3, 2)"] and d.questions == []


def test_the_10x10k_table_asks_about_its_array_column(ns):
    status, d = ingest(ns, corpus_file("frictionless-py/data/table-10x10k.csv"))
    assert columns(d)["array"].type == "string" and kinds(d).get("array") == "decimal_mark"


GREEK = "id,age,name\n1,39,Λεωνίδας\n2,23,Αλέξανδρος\n3,36,Μύρων\n4,28,Ευστόργιος\n"
RUSSIAN = "id,город\n1,Москва\n2,Санкт-Петербург\n3,Новосибирск\n4,Екатеринбург\n"


@pytest.mark.parametrize(
    "text, codec, name",
    [
        (GREEK, "iso8859_7", "Λεωνίδας"),
        (GREEK, "cp1253", "Λεωνίδας"),
        (RUSSIAN, "cp1251", "Москва"),
        (RUSSIAN, "koi8_r", "Москва"),
    ],
)
def test_greek_and_cyrillic_code_pages_are_told_apart(ns, tmp_path, text, codec, name):
    d = typed(ns, tmp_path, f"{codec}.csv", text.encode(codec))
    values = [v for row in d.sample for v in row.values()]
    assert name in values


def test_the_iso_8859_7_corpus_file_reads_as_greek(ns):
    status, d = ingest(ns, corpus_file("frictionless-py/data/table-infer-iso-8859-7.csv"))
    assert d.sample[0]["name"] == "Λεωνιδας"


# --- shape --------------------------------------------------------------------------------------


def test_a_colon_never_splits_clock_times_or_urls(ns, tmp_path):
    d = typed(ns, tmp_path, "stamps.csv", "2020-01-01 01:02:03\n2020-01-02 04:05:06\n2020-01-03 07:08:09\n")
    assert len(d.columns) == 1 and d.rows == 3 and d.columns[0].type == "datetime"
    d = typed(ns, tmp_path, "urls.csv", "link\nhttp://a.example/x\nhttp://b.example/y\nhttps://c.example/z\n")
    assert len(d.columns) == 1 and d.rows == 3
    # A file that really is colon-separated still reads that way.
    d = typed(ns, tmp_path, "colons.csv", "name:qty\napple:3\npear:5\nplum:7\n")
    assert [c.name for c in d.columns] == ["name", "qty"]


@pytest.mark.parametrize(
    "line, header", [("1,2,3", False), ("1|1.1|bla", None), ("29-Mar-1940,25-Jul-2008", False), ("name,city", True)]
)
def test_a_file_of_one_line_of_numbers_or_dates_is_data(ns, tmp_path, line, header):
    d = typed(ns, tmp_path, "one.csv", line + "\n")
    if header is None:  # numbers beside words: data, and a person is asked
        assert d.rows == 1 and "header_row" in {q.kind for q in d.questions}
    else:
        assert d.rows == (0 if header else 1)


def test_old_mac_line_endings(ns, tmp_path):
    d = typed(ns, tmp_path, "mac.csv", "a,b,c\r1,x,2020-01-01\r2,y,2020-01-02\r#3,z,2020-01-03\r")
    assert [c.name for c in d.columns] == ["a", "b", "c"] and d.rows == 3


def test_the_sheetjs_error_types_file_keeps_its_rows(ns):
    status, d = ingest(ns, corpus_file("sheetjs-test_files/ErrorTypes.csv"))
    assert len(d.columns) == 10 and d.rows == 13 and d.sample[0]["Error"] == "#NULL!"


def test_one_accented_letter_in_a_western_file_is_not_shift_jis(ns, tmp_path):
    # One byte 0xE9 before a letter makes a valid Shift-JIS pair: Ann\xe9e read as "Ann馥".
    text = "Classement;Année;Prix\n3 stars;2013;81,20\n4 stars;2014;111,03\n"
    d = typed(ns, tmp_path, "accents.csv", text.encode("latin-1"))
    assert [c.name for c in d.columns] == ["Classement", "Année", "Prix"]


def test_scientific_notation_beside_plain_numbers_is_a_number(ns, tmp_path):
    d = typed(ns, tmp_path, "sci.csv", "a,b\n3,1\n6,2\n1E-7,3\n-7.4423e-12,4\n1.79769e+308,5\n")
    assert columns(d)["a"].physical == "DOUBLE" and d.sample[2]["a"] == 1e-7


def test_time_zones_by_name_and_offsets_without_a_zone(ns, tmp_path):
    d = typed(
        ns,
        tmp_path,
        "tz.csv",
        "id,stamp\n1,2020-01-01 04:55:03.382494 UTC\n2,2020-01-02 05:00:00 America/New_York\n3,2020-01-03 06:00:00 UTC\n",
    )
    assert columns(d)["stamp"].physical == "TIMESTAMPTZ" and d.sample[1]["stamp"].startswith("2020-01-02T10:00:00")
    # An abbreviation names several zones (BST: London in summer, or Bangladesh): not read.
    d = typed(ns, tmp_path, "bst.csv", "stamp\n2024-07-01 10:00 BST\n2024-07-02 10:00 BST\n")
    assert columns(d)["stamp"].type == "string"
    # Every value with its offset: no question, however many distinct values there are.
    stamps = "".join(f"2024-07-01T{h:02d}:{m:02d}:00Z\n" for h in range(10) for m in range(30))
    d = typed(ns, tmp_path, "zulu.csv", "stamp\n" + stamps)
    assert columns(d)["stamp"].physical == "TIMESTAMPTZ" and d.questions == []
    d = typed(
        ns, tmp_path, "mixed.csv", "stamp\n2020-01-01T15:00:00\n2020-01-01T15:00:00Z\n2020-01-01T15:00:00+03:00\n"
    )
    # The value without an offset is read as UTC, and a person is asked.
    assert columns(d)["stamp"].physical == "TIMESTAMPTZ" and kinds(d) == {"stamp": "mixed_values"}


def test_a_header_over_integers_and_decimals_in_one_column_is_a_header(ns, tmp_path):
    # clevercsv/example/milk.csv: 1987 above 14718.2 are both numbers, under a header of words.
    d = typed(
        ns,
        tmp_path,
        "milk.tsv",
        "Year\tProduction million litres\tImports\n1987\t14718.2\t12\n1988\t14398\t13.5\n1989\t14186.4\t11\n",
    )
    assert [c.name for c in d.columns] == ["Year", "Production million litres", "Imports"]
    assert columns(d)["Production million litres"].physical == "DECIMAL(6, 1)" and d.rows == 3


def test_a_header_wider_than_its_ragged_rows_is_a_header_not_a_preamble(ns, tmp_path):
    # frictionless-py/data/invalid.csv: 4 names over rows of 2 and 5 cells.
    d = typed(ns, tmp_path, "ragged_header.csv", "id,name,country,city\n1,english\n1,english\n\n2,german,1,2,3\n")
    assert [c.name for c in d.columns] == ["id", "name", "country", "city"]


def test_a_first_row_of_values_is_data(ns, tmp_path):
    # sheetjs number_format_russian.2.csv: a label, then the row's values.
    d = typed(
        ns, tmp_path, "values_first.csv", "General;1;-1,2;12,3;-12,34\nNumber;1;-1;12;-12\nCurrency;2;-2;13;-13\n"
    )
    assert d.rows == 3 and d.origin.header_rows == 0


@pytest.mark.parametrize("header", ["id,100022,100025,100047", "Museum,2011,2010,2009"])
def test_numbers_as_labels_stay_a_header(ns, tmp_path, header):
    # Numeric labels over flags, and years over amounts, are column names.
    body = (
        "a,TRUE,FALSE,TRUE\nb,FALSE,TRUE,TRUE\n"
        if "100022" in header
        else "Uffizi,23.824,17.518,16.2\nPitti,in restauro,12.1,11.7\n"
    )
    d = typed(ns, tmp_path, "labels.csv", header + "\n" + body)
    assert [c.name for c in d.columns] == header.split(",") and d.rows == 2


def test_several_tables_one_after_another_are_asked_about(ns, tmp_path):
    # xlsx2csv's dumps of a workbook: a separator line before each sheet's table.
    text = "-------- 1 - b\nx,y\n1,2\n3,4\n-------- 2 - a\nx,y\n5,6\n"
    d = typed(ns, tmp_path, "sections.csv", text)
    assert "header_row" in {q.kind for q in d.questions}


# --- the hand verdicts (bench/typing_vs_duckdb.py) ---------------------------------------------


@pytest.fixture(scope="module")
def judged():
    """Every delimited corpus file read by tabular and DuckDB, judged against the hand verdicts."""
    import importlib.util

    from conftest import ROOT

    if not CORPUS.is_dir():
        pytest.skip(f"the shared corpus is not at {CORPUS}")
    spec = importlib.util.spec_from_file_location("typing_vs_duckdb", ROOT / "bench" / "typing_vs_duckdb.py")
    bench = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = bench  # its dataclasses look their module up
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        spec.loader.exec_module(bench)
        files, _ = bench.corpus_files(CORPUS)
        results = bench.run_all(files, CORPUS)
        return bench.judge(bench.load_verdicts(ROOT / "tests" / "typing_real" / "verdicts.json"), results)
    finally:
        if str(ROOT / "bench") in sys.path:  # run_all takes it off itself
            sys.path.remove(str(ROOT / "bench"))


def share_right(verdicts: list[dict]) -> float:
    return sum(v["tabular_ok"] for v in verdicts) / len(verdicts)


@pytest.mark.slow
def test_tabular_is_right_on_nine_in_ten_judged_columns(judged):
    assert len(judged["columns"]) >= 150 and not judged["stale"]
    wrong = [f"{v['file']} :: {v['column']}" for v in judged["columns"] if not v["tabular_ok"]]
    assert share_right(judged["columns"]) >= 0.90, wrong


@pytest.mark.slow
def test_the_shape_matches_nineteen_in_twenty_judged_files(judged):
    wrong = [v["file"] for v in judged["shapes"] if not v["tabular_ok"]]
    assert share_right(judged["shapes"]) >= 0.95, wrong


def test_excel_formatted_text_is_read_by_its_columns(ns, tmp_path):
    # Excel's "Formatted Text (Space delimited)" (.prn): columns padded to a width, numbers
    # right-aligned against the next column's start.
    rows = [("north", "12", "1234.50", "first"), ("south", "7", "99.00", ""), ("east", "130", "10250.75", "big order")]
    lines = ["Region    Units     Revenue   Note"] + [f"{r:<10}{u:>10}{v:>10}{n}".rstrip() for r, u, v, n in rows]
    d = typed(ns, tmp_path, "report.prn", "\r\n".join(lines) + "\r\n")
    assert [c.name for c in d.columns] == ["Region", "Units", "Revenue", "Note"] and d.origin.delimiter == "fixed-width"
    assert (columns(d)["Units"].physical, columns(d)["Revenue"].physical) == ("BIGINT", "DECIMAL(7, 2)")
    assert d.sample[2]["Note"] == "big order" and d.sample[1]["Note"] is None


def test_prose_with_double_spaces_is_not_fixed_width(ns, tmp_path):
    text = "Minutes of the meeting  held on Monday  in the hall\nPresent were  the usual people\nNothing was decided.\nThe end.\n"
    d = typed(ns, tmp_path, "minutes.txt", text)
    assert len(d.columns) == 1


def test_a_placeholder_year_one_is_a_date(ns, tmp_path):
    d = typed(ns, tmp_path, "placeholder.csv", "d\n2020-01-01\n0001-01-01\n2021-05-06\n")
    assert columns(d)["d"].physical == "DATE" and d.sample[1]["d"] == "0001-01-01"


def test_a_title_with_commas_over_a_regular_table_stays_a_title(ns, tmp_path):
    text = "Population estimates, by age, sex, region and year, 2020\nregion,age,count\nnorth,10,5\nsouth,20,7\neast,30,9\n"
    d = typed(ns, tmp_path, "title.csv", text)
    assert [c.name for c in d.columns] == ["region", "age", "count"] and d.rows == 3


def test_years_over_counts_are_a_header_but_years_over_years_are_data(ns, tmp_path):
    d = typed(ns, tmp_path, "years.csv", "Country,2019,2020\nFrance,1200,1300\nSpain,900,950\n")
    assert [c.name for c in d.columns] == ["Country", "2019", "2020"]
    d = typed(ns, tmp_path, "people.csv", "Alice,1990,2015\nBob,1985,2010\nCarol,1970,2001\n")
    assert d.rows == 3


def test_a_fixed_width_value_across_a_column_start_is_rejected_not_split(ns, tmp_path):
    rows = [
        f"{name:<10}{qty:>10}{price:>10}"
        for name, qty, price in [
            ("apple", 1, "2.50"),
            ("pear", 2, "3.00"),
            ("plum", 5, "1.25"),
            ("fig", 6, "4.00"),
            ("kiwi", 7, "2.25"),
            ("lime", 8, "0.50"),
            ("nut", 9, "9.00"),
            ("date", 10, "10.00"),
            ("cherry", 11, "1.00"),
            ("melon", 12, "3.50"),
            ("peach", 13, "2.00"),
        ]
    ]
    rows.insert(3, "grape" + " " * 11 + "4123456.50")  # 4 | 123456.50 or 4123456.50: nobody can say
    d = typed(ns, tmp_path, "cross.prn", "\r\n".join(["Item           Qty     Price"] + rows) + "\r\n")
    assert d.origin.delimiter == "fixed-width" and d.rows == 11 and d.rows_rejected == 1
    assert "grape" not in [r["Item"] for r in d.sample]
    assert d.rejected[0].reason == "a value runs across a column start"


def test_a_space_after_each_delimiter_before_the_quote_is_skipped(ns, tmp_path):
    # frictionless-py/data/issue-1109.csv: "int", "number", "string"
    d = typed(
        ns,
        tmp_path,
        "spaced.csv",
        '"int", "number", "string"\n"1", "2.3", "string"\n"", "4.3", "string"\n"3", "3.14", "string"\n',
    )
    assert [c.name for c in d.columns] == ["int", "number", "string"]
    assert (columns(d)["int"].physical, columns(d)["number"].physical) == ("BIGINT", "DECIMAL(3, 2)")


def test_capital_cyrillic_is_not_half_width_katakana(ns, tmp_path):
    # МОСКВА's bytes in cp1251 are half-width katakana in Shift-JIS (ﾌﾎﾑﾊﾂﾀ), which real files hardly use.
    text = "ГОРОД;НАСЕЛЕНИЕ\nМОСКВА;12600000\nКАЗАНЬ;1257000\nОМСК;1154000\n"
    d = typed(ns, tmp_path, "caps.csv", text.encode("cp1251"))
    assert d.sample[0]["ГОРОД"] == "МОСКВА"
    # A choice among look-alike code pages is said, with the way to override it.
    assert any("look-alike" in w and "options.encoding" in w for w in d.warnings)
