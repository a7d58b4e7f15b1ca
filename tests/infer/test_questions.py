"""tabular/infer/questions.py: the typing a column gets from its tallies and the question its
values leave open (mixed values, leading zeros and '+', 0/1, decimal mark, date order), and the
questions another column of the same table answers."""

from __future__ import annotations

import pytest
from infer_cases import typed

from tabular import readings as C
from tabular.infer.questions import KINDS, Option, Question, choose, settle_by_evidence
from tabular.infer.tally import ReadingCount, Tally


def ingested(ns, tmp_path, text: str):
    """The dataset a CSV file of `text` becomes, ingested as 'd' (read back with ns.read("d"))."""
    path = tmp_path / "d.csv"
    path.write_text(text)
    assert ns.ingest_file(path, source_uri="d", progress=False).state == "ready"
    (d,) = ns.dataset_get("d").datasets
    return d


def table(delimiter: str, header: str, rows) -> str:
    """The text of a delimited file: `header` (its names joined by `delimiter`), then `rows`."""
    return "".join(delimiter.join(map(str, r)) + "\n" for r in [header.split(","), *rows])


def test_a_column_every_value_reads_as_a_number_gets_no_question():
    typing = typed(["12.50", "7.25", "3.10"])
    assert (typing.reading.type, typing.physical, typing.question) == ("number", "DECIMAL(4, 2)", None)
    assert typing.clean


def test_mostly_numbers_with_a_few_words_is_text_asking_with_the_rows_it_would_reject():
    typing = typed([str(i) for i in range(1, 20)] + ["n/a2"])
    assert typing.reading.type == "string"
    question = typing.question
    assert question.kind == "mixed_values"
    assert [(o.reading.type, o.rows_rejected, o.example) for o in question.options] == [
        ("string", 0, None),
        ("number", 1, "n/a2"),
    ]


def test_too_few_numbers_is_text_without_a_question():
    typing = typed(["1", "Oslo", "Bergen", "Tromsø"])
    assert (typing.reading.type, typing.question) == ("string", None)


@pytest.mark.parametrize(
    ("values", "kind"),
    [(["007", "012", "123"], "leading_zeros"), (["+31205550123", "+4420711111", "+15551234567"], "leading_plus")],
)
def test_identifiers_that_look_like_numbers_are_held_as_text_and_asked(values, kind):
    typing = typed(values)
    assert typing.reading.type == "string"
    assert typing.question.kind == kind
    assert [o.reading.type for o in typing.question.options] == ["string", "number"]


def test_a_column_of_zeros_and_ones_asks_number_or_flag():
    typing = typed(["0", "1", "1", "0"])
    assert (typing.reading.type, typing.question.kind) == ("number", "bool_or_number")
    assert [o.physical for o in typing.question.options] == ["BIGINT", "BOOLEAN"]
    assert typed(["0", "0", "0"]).question is None


def test_a_date_both_orders_read_asks_which_and_a_day_past_12_settles_it():
    both = typed(["03/04/2024", "05/06/2024", "01/02/2024"])
    assert both.question.kind == "date_order"
    assert {o.reading.order for o in both.question.options} == {"DMY", "MDY"}
    settled = typed(["03/04/2024", "25/06/2024", "01/02/2024"])
    assert (settled.reading.format, settled.question) == ("%d/%m/%Y", None)


def test_a_mark_that_may_be_decimal_or_thousands_asks_which():
    typing = typed(["1,234", "2,500", "3,125"])
    assert typing.question is not None
    assert typing.question.kind == "decimal_mark"


def test_another_column_of_the_table_answers_a_date_order_question():
    proven = typed(["25/03/2024", "01/02/2024"])
    open_ = typed(["03/04/2024", "05/06/2024"])
    settled = settle_by_evidence({"a": proven, "b": open_})
    assert settled["b"].question is None
    assert settled["b"].reading.order == "DMY"
    assert settled["a"] == proven


def test_choose_takes_the_first_reading_that_reads_every_value_in_precedence_order():
    first, second = C.number_reading(), C.number_reading(",")
    counted = Tally(nonnull=10, counts=[ReadingCount(C.BOOL, 10), ReadingCount(first, 0), ReadingCount(second, 0)])
    assert choose(counted, 0.8) == (counted.counts[1], [])
    partly = Tally(nonnull=10, counts=[ReadingCount(C.BOOL, 9), ReadingCount(first, 1)])
    assert choose(partly, 0.8) == (None, [partly.counts[1]])
    assert choose(Tally(), 0.8) == (None, [])


def test_each_kind_of_question_is_in_one_table_and_no_other_kind_can_be_made():
    assert {"header_row", "mixed_values", "leading_zeros", "leading_plus", "bool_or_number", "decimal_mark", "group_mark",
            "date_order", "century", "scientific", "precision", "time_zone", "carried_approval", "approval_not_carried"} == set(KINDS)  # fmt: skip
    assert all(k.guard and k.asked_by for k in KINDS.values())
    with pytest.raises(ValueError, match="KINDS"):
        Question("colour", "Which colour?", ())


@pytest.mark.parametrize(
    ("delimiter", "values", "lone"),
    [
        (";", ["7,5", "8,25", "7.125", "9,5"], "7.125"),  # German decimals, one '7.125'
        (",", ['"7.5"', "8.25", '"7,125"', "9.5"], "7,125"),  # English decimals, one '7,125'
        (";", ["€ 7,50", "€ 8,25", "€ 7.125", "€ 9,00"], "€ 7.125"),  # with a unit
    ],
)
def test_one_group_mark_and_no_decimal_mark_among_decimals_is_asked_not_read_as_thousands(
    ns, tmp_path, delimiter, values, lone
):
    """7.125 beside 7,5 was stored as 7125 without a word: a thousands separator or a decimal
    written the other way? The column keeps the reading that rejects none, the question open."""
    d = ingested(ns, tmp_path, table(delimiter, "id,v", enumerate(values)))
    answer = ns.query({"datasets": [{"source_uri": "d"}], "aggregates": [{"fn": "sum", "column": "v"}]})
    (q,) = d.questions
    assert q.kind == "group_mark" and repr(lone) in q.question
    assert [o.rows_rejected for o in q.options] == [0, 3, 0] and q.options[2].type == "string"
    assert not answer.complete and "group_mark" in " ".join(answer.incomplete)


@pytest.mark.parametrize(
    "text",
    [
        "id;v\n1;1.234,5\n2;8,25\n3;1.234.567,00\n4;12.345,10\n",  # several group marks, or decimals too
        'id,v\n1,123.5\n2,"1,204"\n3,55.6\n4,"3,238"\n5,812.25\n',  # thousands of the others' size
        "id;v\n1;312,5\n2;1.204\n3;55,6\n",
    ],
)
def test_a_group_mark_that_keeps_to_the_columns_size_or_beside_decimals_is_no_question(ns, tmp_path, text):
    """1,204 beside 123.5 (a density, a land area) is a thousands mark: only a value a thousand
    times every other one is in doubt (WTQ tables asked it where the answer was right)."""
    d = ingested(ns, tmp_path, text)
    assert d.questions == [] and "group_mark" in d.columns[1].format


@pytest.mark.parametrize(
    ("values", "held", "offered"),
    [
        (["31-12-13", "15-01-14", "28-02-14"], "%d-%m-%y", ["%d-%m-%y", "%y-%m-%d"]),  # dd-mm-yy
        (["13-12-21", "14-01-15", "14-02-20"], "%d-%m-%y", ["%d-%m-%y", "%y-%m-%d"]),  # yy-mm-dd reads both ways
        (["01-02-03", "04-05-06"], "%d-%m-%y", ["%d-%m-%y", "%m-%d-%y", "%y-%m-%d"]),  # three orders
        (["12-31-13", "01-15-14"], "%m-%d-%y", []),  # only month first reads
        (["03/04/2024", "05/06/2024"], "%d/%m/%Y", ["%d/%m/%Y", "%m/%d/%Y"]),
        (["2024-01-02", "2024-03-04"], "%Y-%m-%d", []),
    ],
)
def test_dates_with_a_two_digit_year_are_dates_and_every_order_that_reads_them_is_asked(
    ns, tmp_path, values, held, offered
):
    """'31-12-13' was left as text with no question; read as a date, a two-digit year first
    (2031-12-13) reads it too, so the orders are asked, never picked silently."""
    d = ingested(ns, tmp_path, table(";", "id,d", enumerate(values)))
    assert (d.columns[1].type, d.columns[1].format) == ("date", held)
    asked = [q for q in d.questions if q.kind == "date_order"]
    assert [o.format for o in asked[0].options] == offered if offered else asked == []


@pytest.mark.parametrize(
    ("values", "delimiter", "formats"),
    [
        (["01/02/68", "03/04/69", "05/06/70"], ",", ["%d/%m/%y", "%m/%d/%y"]),  # DuckDB's pivot: 68 is 2068
        (["13/01/55", "25/12/99", "01/07/03"], ";", ["%d/%m/%y"]),  # birth dates: 1955 read as 2055
        (["12-31-45", "01-15-80"], "\t", ["%m-%d-%y"]),
        (["68-01-31", "12-05-20"], "|", ["%y-%m-%d"]),
        (["5-Mar-60", "9-Dec-01"], ",", ["%d-%b-%y"]),  # a named month
        # The year after next, whatever today is: next year is counted from the day of the ingest.
        ([f"01/02/{(C.doubtful_year_after() + 1) % 100:02d}", "03/04/21"], ",", ["%d/%m/%y", "%m/%d/%y"]),
    ],
)
def test_a_two_digit_year_read_past_next_year_is_asked_not_read_silently(ns, tmp_path, values, delimiter, formats):
    """DuckDB reads a two-digit year 00-68 as 2000-2068: `05/06/60`, a birth date of 1960
    perhaps, was stored as 2060 without a word. Held as text, asked (century)."""
    d = ingested(ns, tmp_path, table(delimiter, "id,born", enumerate(values)))
    assert (d.columns[1].type, d.columns[1].physical) == ("string", "VARCHAR")
    (asked,) = [q for q in d.questions if q.column == "born"]
    assert asked.kind == "century" and str(C.doubtful_year_after()) in asked.question
    assert asked.options[0].type == "string" and all(o.type == "date" for o in asked.options[1:])
    assert [o.format for o in asked.options[1:]] == formats
    # The person may still read them as written: approved, the years are DuckDB's.
    date_option = asked.options[1]
    ns.approve("d", d.snapshot_id, {"born": "date"}, {"born": date_option.format})
    years = sorted(r[1].year for r in ns.read("d").rows())
    assert max(years) > C.doubtful_year_after()


@pytest.mark.parametrize(
    "values",
    [
        ["01/02/24", "12/31/23", "06/15/99"],
        ["31.12.05", "01.01.26"],
        ["13-01-70", "14-02-00"],
        [f"01/02/{C.doubtful_year_after() % 100:02d}", "03/04/21"],  # next year, whatever today is
    ],
)
def test_two_digit_years_of_this_century_or_the_last_ask_nothing(ns, tmp_path, values):
    d = ingested(ns, tmp_path, table(",", "id,d", enumerate(values)))
    assert d.columns[1].type == "date" and not [q for q in d.questions if q.kind == "century"]


@pytest.mark.parametrize(
    ("values", "delimiter", "kept"),
    [
        (["F", "F", "", "F"], ",", True),  # a column of women: F was False
        (["N", "N", "N"], ";", True),  # north, or no?
        (["t", "t"], "\t", True),
        (["Y", "", "Y"], "|", True),  # a mark alone says no more than its letter
        (["F", "T", "F"], ",", False),  # a letter beside its other is a flag
        (["y", "N", "Y"], ";", False),
        (["yes", "F", "no"], ",", False),  # beside words of the same meaning
    ],
)
def test_one_letter_of_a_flag_pair_alone_is_kept_as_written(ns, tmp_path, values, delimiter, kept):
    """A column of only 'F' (gender: Female) was stored as false, and of only 'N' as false: one
    side of a pair of letters is no proof of a flag."""
    d = ingested(ns, tmp_path, table(delimiter, "id,sex", enumerate(values, 10)))
    stored = [r[1] for r in ns.read("d").rows()]
    if kept:
        assert d.columns[1].type == "string" and stored == [v or None for v in values]
    else:
        assert d.columns[1].type == "bool" and all(isinstance(v, bool) for v in stored)


@pytest.mark.parametrize(
    ("values", "delimiter", "asked"),
    [
        (["1E5", "10E4", "3E2"], ",", True),  # two codes that read as one number
        (["12E3", "45E7", "0E1"], ";", True),
        (["7e12", "8e01"], "\t", True),
        (["1.5E-7", "2E3", "3"], ",", False),  # floating point as written by software
        (["1e+20", "1e-05"], "|", False),
        (["2E3", "3.25E4"], ";", False),
    ],
)
def test_whole_numbers_with_unsigned_exponents_are_asked_as_codes(ns, tmp_path, values, delimiter, asked):
    """A column of codes like 12E3 was read as floating point: 1E5 and 10E4, two codes,
    were both stored as 100000.0 without a word."""
    d = ingested(ns, tmp_path, table(delimiter, "code,n", [(v, i) for i, v in enumerate(values, 10)]))
    stored = [r[0] for r in ns.read("d").rows()]
    kinds = [q.kind for q in d.questions if q.column == "code"]
    if asked:
        assert kinds == ["scientific"] and stored == values
        (q,) = [q for q in d.questions if q.column == "code"]
        assert [o.type for o in q.options] == ["string", "number"]
    else:
        assert kinds == [] and d.columns[0].physical == "DOUBLE"


@pytest.mark.parametrize(
    "options",
    [
        [(C.STRING, "VARCHAR"), (C.STRING, "VARCHAR")],
        [(C.BOOL_01, "BOOLEAN"), (C.STRING, "VARCHAR"), (C.BOOL_01, "BOOLEAN")],
        [(C.ISO_TIMESTAMP, "TIMESTAMP"), (C.ISO_TIMESTAMP, "TIMESTAMP"), (C.STRING, "VARCHAR"), (C.STRING, "VARCHAR")],
    ],
)
def test_a_question_never_offers_one_reading_twice(options):
    q = Question("mixed_values", "which?", tuple(Option(r, p, 0, None) for r, p in options))
    assert [(o.reading, o.physical) for o in q.options] == list(dict.fromkeys(options))
