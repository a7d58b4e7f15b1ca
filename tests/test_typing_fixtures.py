"""What dataset_get reports for each fixture of fixtures/csv: types, formats, questions, rejects."""

import pytest
from conftest import CSV, columns, ingest

import tabular


@pytest.fixture(scope="module")
def published(tmp_path_factory):
    """(status, dataset) of a fixture of fixtures/csv, ingested once in this module's home with
    the default settings: the checks that only read what dataset_get says share it."""
    done: dict[str, tuple] = {}
    with tabular.connect(str(tmp_path_factory.mktemp("typing-fixtures") / "home")) as engine:
        ns = engine.namespace("acme", "finance")

        def get(name: str) -> tuple:
            if name not in done:
                done[name] = ingest(ns, CSV / name)
            return done[name]

        yield get


# file -> {column: (type, physical, format)}
TYPES = {
    "european_numbers.csv": {
        "Artikel": ("string", "VARCHAR", ""),
        "Menge": ("number", "BIGINT", ""),
        "Preis": ("number", "DECIMAL(5, 2)", "decimal_mark=,"),
        "Summe": ("number", "DECIMAL(7, 2)", "decimal_mark=,;group_mark=."),
    },
    "dates_dmy.csv": {"booked": ("date", "DATE", "%d/%m/%Y"), "amount": ("number", "DECIMAL(6, 2)", "decimal_mark=.")},
    "dates_mdy.csv": {"booked": ("date", "DATE", "%m/%d/%Y")},
    "currency.csv": {
        "item": ("string", "VARCHAR", ""),
        "price_usd": ("number", "DECIMAL(6, 2)", "decimal_mark=.;group_mark=,;unit=$"),
        "price_eur": ("number", "DECIMAL(6, 2)", "decimal_mark=,;group_mark=.;unit=€"),
        "price_gbp": ("number", "DECIMAL(5, 2)", "decimal_mark=.;unit=£"),
    },
    "percent.csv": {
        "growth": ("number", "DECIMAL(4, 2)", "decimal_mark=.;unit=%"),
        "share": ("number", "BIGINT", "unit=%"),
    },
    "booleans.csv": {
        "active": ("bool", "BOOLEAN", "true/false"),
        "verified": ("bool", "BOOLEAN", "true/false"),
        "tf": ("bool", "BOOLEAN", "true/false"),
        "flag01": ("number", "BIGINT", ""),
    },
    "nulls.csv": {
        "score": ("number", "DECIMAL(4, 2)", "decimal_mark=."),
        "comment": ("string", "VARCHAR", ""),
        "measured_on": ("date", "DATE", "%Y-%m-%d"),
    },
    "ragged.csv": {"a": ("number", "BIGINT", ""), "c": ("string", "VARCHAR", ""), "d": ("date", "DATE", "%Y-%m-%d")},
    "tabs.tsv": {"id": ("number", "BIGINT", ""), "value": ("number", "DECIMAL(6, 5)", "decimal_mark=.")},
    "floats.csv": {"x": ("number", "DOUBLE", "decimal_mark=."), "y": ("number", "DECIMAL(8, 4)", "decimal_mark=.")},
    "big_integers.csv": {"big": ("number", "BIGINT", ""), "huge": ("number", "DECIMAL(25, 0)", "")},
    "thousands_space.csv": {
        "population": ("number", "BIGINT", "decimal_mark=,;group_mark= "),
        "area": ("number", "DECIMAL(6, 1)", "decimal_mark=,;group_mark= "),
    },
    "times_durations.csv": {
        "start_time": ("time", "TIME", "%H:%M:%S"),
        "elapsed": ("duration", "INTERVAL", "h:mm:ss"),
        "iso_duration": ("duration", "INTERVAL", "ISO 8601"),
        "logged_at": ("datetime", "TIMESTAMP", "%Y-%m-%dT%H:%M:%S"),
        "logged_at_utc": ("datetime", "TIMESTAMPTZ", "%Y-%m-%dT%H:%M:%S%z"),
    },
    "no_header.csv": {
        "column_1": ("number", "BIGINT", ""),
        "column_2": ("date", "DATE", "%Y-%m-%d"),
        "column_3": ("number", "DECIMAL(5, 2)", "decimal_mark=."),
        "column_4": ("string", "VARCHAR", ""),
    },
    "leading_zeros.csv": {"customer_id": ("string", "VARCHAR", ""), "zip": ("string", "VARCHAR", "")},
    "mixed_values.csv": {"amount": ("string", "VARCHAR", "")},
    "laps.csv": {
        "lap": ("duration", "INTERVAL", "m:ss.f"),
        "track": ("duration", "INTERVAL", "m:ss.f"),
        "song": ("time", "TIME", "%H:%M:%S"),
    },
}


@pytest.mark.parametrize("name", sorted(TYPES))
def test_column_types(published, name):
    status, dataset = published(name)
    assert status.state == "ready", status.error_message
    got = {n: (c.type, c.physical, c.format) for n, c in columns(dataset).items() if n in TYPES[name]}
    assert got == TYPES[name]


# file -> {column: (kind, [(type, format, rows_rejected)])}
QUESTIONS = {
    "dates_ambiguous.csv": {"when": ("date_order", [("date", "%d/%m/%Y", 0), ("date", "%m/%d/%Y", 0)])},
    "leading_zeros.csv": {
        "customer_id": ("leading_zeros", [("string", "", 0), ("number", "", 0)]),
        "zip": ("leading_zeros", [("string", "", 0), ("number", "", 0)]),
    },
    "booleans.csv": {"flag01": ("bool_or_number", [("number", "", 0), ("bool", "1/0", 0)])},
    "mixed_values.csv": {"amount": ("mixed_values", [("string", "", 0), ("number", "decimal_mark=.", 2)])},
    "decimal_mark_ambiguous.csv": {
        "weight": ("decimal_mark", [("number", "decimal_mark=.", 0), ("number", "decimal_mark=,;group_mark=.", 0)])
    },
    "european_numbers.csv": {},
    "dates_dmy.csv": {},
    "big_integers.csv": {},
    "currency.csv": {},
}


@pytest.mark.parametrize("name", sorted(QUESTIONS))
def test_questions(published, name):
    _, dataset = published(name)
    got = {q.column: (q.kind, [(o.type, o.format, o.rows_rejected) for o in q.options]) for q in dataset.questions}
    assert got == QUESTIONS[name]
    for q in dataset.questions:
        # A column with an open question is held as the option that rejects fewest rows.
        fewest = min(o.rows_rejected for o in q.options)
        assert (q.current.type, q.current.format) in [
            (o.type, o.format) for o in q.options if o.rows_rejected == fewest
        ]
        assert columns(dataset)[q.column].type == q.current.type


def test_mixed_values_names_an_offending_value(published):
    _, dataset = published("mixed_values.csv")
    (question,) = dataset.questions
    assert question.options[1].example in ("see note", "TBD")
    assert dataset.rows == 20 and dataset.rows_rejected == 0


def test_ragged_rows(published):
    _, dataset = published("ragged.csv")
    assert dataset.rows == 7 and dataset.rows_rejected == 1
    (rejected,) = dataset.rejected
    assert (rejected.row_id, rejected.line, rejected.column) == (5, 6, None)
    assert rejected.reason.startswith("too many cells: 6")
    assert rejected.value.count(",") == 5
    assert "2 rows had too few cells and were padded with nulls" in dataset.warnings
    # The padded rows are kept, with nulls where cells were missing.
    assert columns(dataset)["d"].nulls == 2
    assert 5 not in dataset.sample_row_ids and dataset.sample_row_ids == [1, 2, 3, 4, 6, 7, 8]


@pytest.mark.parametrize(
    "name, delimiter, encoding, newline",
    [
        ("european_numbers.csv", ";", "utf-8", "LF"),
        ("semicolons.csv", ";", "utf-8", None),
        ("tabs.tsv", "\t", "utf-8", None),
        ("pipes.txt", "|", "utf-8", None),
        ("latin1.csv", ",", "iso-8859-1", None),
        ("cp1252.csv", ",", "cp1252", None),
        ("shift_jis.csv", ",", "shift_jis", None),
        ("utf16.csv", "\t", "utf-16-le", "CRLF"),
        ("utf16be.csv", ",", "utf-16-be", None),
        ("utf8_bom.csv", ",", "utf-8", "CRLF"),
        ("crlf.csv", ",", "utf-8", "CRLF"),
    ],
)
def test_dialect_and_encoding(published, name, delimiter, encoding, newline):
    _, dataset = published(name)
    origin = dataset.origin.model_dump()
    assert (origin["delimiter"], origin["encoding"]) == (delimiter, encoding)
    if newline:
        assert origin["newline"] == newline


def test_legacy_encodings_read_their_characters(published):
    _, latin = published("latin1.csv")
    assert "Zürich" in [r["ville"] for r in latin.sample]
    _, windows = published("cp1252.csv")
    notes = " ".join(r["note"] for r in windows.sample)
    assert "€" in notes or "“" in notes
    _, japanese = published("shift_jis.csv")
    assert [c.name for c in japanese.columns] == ["商品", "数量", "価格"]
    _, bom = published("utf8_bom.csv")
    assert bom.columns[0].name == "id"


def test_quoted_delimiters_and_newlines_stay_in_their_cell(ns):
    _, semi = ingest(ns, CSV / "semicolons.csv")
    assert any(";" in r["customer"] for r in semi.sample)
    assert any('"' in r["comment"] for r in semi.sample)
    _, multi = ingest(ns, CSV / "quoted_newlines.csv")
    assert multi.rows == 5 and any("\n" in r["note"] for r in multi.sample)


def test_preamble_comments_and_blank_lines(ns):
    _, dataset = ingest(ns, CSV / "preamble.csv")
    assert [c.name for c in dataset.columns] == ["date", "region", "units", "revenue"]
    assert dataset.rows == 10
    assert dataset.origin.header_rows == 1
    assert "1 blank rows were skipped" in dataset.warnings and "2 comment lines were skipped" in dataset.warnings


def test_no_header(ns):
    _, dataset = ingest(ns, CSV / "no_header.csv")
    assert dataset.origin.header_rows == 0 and dataset.rows == 6
    assert [c.header for c in dataset.columns] == ["", "", "", ""]


def test_json_values_are_exact(ns):
    _, money = ingest(ns, CSV / "currency.csv")
    usd = columns(money)["price_usd"]
    assert (usd.min, usd.max) == ("-5.25", "1234.50")
    assert all(isinstance(r["price_usd"], str) for r in money.sample)
    _, big = ingest(ns, CSV / "big_integers.csv")
    cols = columns(big)
    assert cols["big"].max == "9223372036854775807" and cols["big"].min == "-9223372036854775808"
    assert "9007199254740993" in [r["big"] for r in big.sample]
    assert all(isinstance(r["id"], int) for r in big.sample)
    _, times = ingest(ns, CSV / "times_durations.csv")
    cols = columns(times)
    assert cols["elapsed"].max == "P1DT2H15M" and cols["iso_duration"].max == "P1DT2H15M"
    assert cols["logged_at_utc"].min == "2024-03-04T08:15:00+00:00"
    assert times.sample[0]["start_time"].count(":") == 2
    _, laps = ingest(ns, CSV / "laps.csv")
    cols = columns(laps)
    # Minutes and seconds, not hours and minutes: the longest lap is under an hour.
    assert (cols["lap"].min, cols["lap"].max) == ("PT58.04S", "PT59M59.9S")
    assert (cols["track"].min, cols["track"].max) == ("PT59.125S", "PT4M11S")


def test_null_markers(ns):
    _, dataset = ingest(ns, CSV / "nulls.csv")
    cols = columns(dataset)
    assert (cols["score"].nulls, cols["comment"].nulls, cols["measured_on"].nulls) == (7, 4, 2)
    assert cols["score"].nullable and not cols["id"].nullable


def test_options_override_guesses(ns):
    _, dataset = ingest(ns, CSV / "dates_ambiguous.csv", options={"date_order": "MDY"})
    assert columns(dataset)["when"].format == "%m/%d/%Y" and dataset.questions == []
    _, dataset = ingest(ns, CSV / "decimal_mark_ambiguous.csv", source_uri="w2", options={"decimal_mark": ","})
    weight = columns(dataset)["weight"]
    assert weight.physical == "BIGINT" and weight.format == "decimal_mark=,;group_mark=."
    _, dataset = ingest(ns, CSV / "no_header.csv", source_uri="nh", options={"header_rows": 1})
    assert dataset.rows == 5 and dataset.columns[0].name == "1"
    _, dataset = ingest(ns, CSV / "nulls.csv", source_uri="n2", options={"null_values": [""]})
    assert columns(dataset)["score"].type == "string"


@pytest.mark.parametrize(
    "name, code",
    [("empty.csv", "no_text"), ("binary.csv", "format_unavailable")],
)
def test_bad_files_fail_with_a_code(ns, name, code):
    status, _ = ingest(ns, CSV / name)
    assert (status.state, status.error_code) == ("failed", code)
    assert status.error_message
    assert not ns.dataset_get(name).found


@pytest.mark.parametrize("name, compression", [("gzipped.csv.gz", "gzip"), ("zipped_as_csv.csv", "zip")])
def test_compressed_text_is_read(ns, name, compression):
    _, dataset = ingest(ns, CSV / name)
    assert dataset.rows == 5 and dataset.origin.model_dump()["compression"] == compression
    assert columns(dataset)["amount"].physical == "DECIMAL(5, 2)"


def test_header_only(ns):
    status, dataset = ingest(ns, CSV / "header_only.csv")
    assert dataset.rows == 0 and [c.type for c in dataset.columns] == ["string"] * 3


def test_a_blank_header_over_row_numbers_is_an_index_not_a_missing_header(ns, tmp_path):
    # pandas writes its index so: a blank first header cell over 1, 2, 3 …
    path = tmp_path / "indexed.csv"
    path.write_text(",Name,County\n1,Diamond Head,Oahu\n2,Iao Valley,Maui\n3,Kanaha Pond,Maui\n", encoding="utf-8")
    _, dataset = ingest(ns, path, source_uri="indexed")
    assert dataset.origin.header_rows == 1 and dataset.rows == 3
    assert [c.header for c in dataset.columns][1:] == ["Name", "County"]
