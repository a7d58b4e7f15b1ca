"""What a notebook user sees of an answer (tabular/display/answers.py): headers with their types, as many
rows as the footer says, complete or why not, open questions highlighted, the receipt folded; a
short repr; and Python values (Decimal, int, date) from answers whose JSON carries decimals as text."""

import datetime as dt
import re
from decimal import Decimal
from html import escape

import pytest
from conftest import CSV, ingest

import tabular
from tabular import display
from tabular.display import History
from tabular.ops.query import QueryOut
from tabular.ops.synthesize import SynthesizeOut


def body_rows(html: str, css: str = "") -> int:
    """How many rows the first table of class `css` shows (no class: the answer's rows)."""
    table = html.split(f'<table class="{css}">' if css else "<table>", 1)[1].split("</table>", 1)[0]
    return table.split("<tbody>", 1)[1].count("<tr")


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    """One home for the fixtures the tests only read (hundred, money)."""
    folder = tmp_path_factory.mktemp("answers")
    with tabular.connect(str(folder / "home")) as engine:
        yield folder, engine.namespace("acme", "finance")


@pytest.fixture(scope="module")
def hundred(shared):
    folder, ns = shared
    path = folder / "orders.csv"
    path.write_text(
        "id,customer,amount,placed\n"
        + "".join(f"{i},c<{i % 7}>,{i}.50,2024-01-{i % 28 + 1:02d}\n" for i in range(1, 151))
    )
    assert ns.ingest_file(path, source_uri="orders").state == "ready"
    return ns


def test_a_query_answer_shows_types_under_headers_and_says_how_many_rows_it_shows(hundred):
    answer = hundred.query({"datasets": [{"source_uri": "orders"}], "limit": 100})
    assert len(answer.rows) == 100 and answer.truncated
    html = answer._repr_html_()
    for column, type_ in (("id", "number"), ("customer", "string"), ("amount", "number"), ("placed", "date")):
        assert re.search(rf"<th[^>]*>{column}<br><small[^>]*>{type_}</small></th>", html)
    assert body_rows(html) == display.HTML_ROWS == 50
    assert "showing 50 of 100 rows returned" in html and "more rows matched (truncated" in html
    assert "1.50" in html and "c&lt;1&gt;" in html and "<1>" not in html  # decimals as written, text escaped
    assert '<p class="tabular-complete">' in html and "tabular-incomplete" not in html
    receipt = html.split('<details class="tabular-receipt">', 1)[1]
    assert "SELECT" in receipt and answer.receipt.datasets[0].snapshot_id in receipt  # folded away


def test_a_short_answer_shows_every_row_and_the_footer_matches(hundred):
    answer = hundred.query(
        {"datasets": [{"source_uri": "orders"}], "where": [{"column": "id", "op": "le", "value": 3}], "limit": 10}
    )
    html = answer._repr_html_()
    assert body_rows(html) == 3 and "showing 3 of 3 rows returned" in html and "truncated" not in html
    one = hundred.query({"datasets": [{"source_uri": "orders"}], "aggregates": [{"fn": "count"}]})
    assert "showing 1 of 1 row returned" in one._repr_html_()


def test_the_repr_of_a_hundred_row_answer_is_one_short_line(hundred):
    answer = hundred.query({"datasets": [{"source_uri": "orders"}], "limit": 100})
    said = repr(answer)
    assert said == "<QueryOut 100 rows × 4 columns (id, customer, amount, placed), complete, truncated>"
    assert len(said) < 200 and "\n" not in said
    typo = hundred.query({"datasets": [{"source_uri": "orders"}], "limit": 2, "agent": "x"})
    assert repr(typo).endswith(", truncated, ignored agent>") and "<li>agent</li>" in typo._repr_html_()


def test_an_incomplete_answer_says_why_and_nulls_are_dim(ns):
    ingest(ns, CSV / "ragged.csv", source_uri="ragged")
    answer = ns.query({"datasets": [{"source_uri": "ragged"}]})
    assert not answer.complete
    html = answer._repr_html_()
    block = html.split('<div class="tabular-incomplete"', 1)[1].split("</div>", 1)[0]
    for reason in answer.incomplete:
        assert escape(reason) in block
    assert 'class="tabular-null"' in html
    assert "incomplete (1 reason)" in repr(answer)


def test_dataset_get_shows_columns_open_questions_with_options_and_sample_rows(ns):
    ingest(ns, CSV / "dates_ambiguous.csv", source_uri="d")
    got = ns.dataset_get("d", sample_rows=3)
    (d,) = got.datasets
    html = got._repr_html_()
    columns = html.split('<table class="tabular-columns">', 1)[1].split("</table>", 1)[0]
    for c in d.columns:
        assert f"<b>{c.name}</b>" in columns and f"<td>{c.type}</td>" in columns
    (q,) = d.questions
    question = html.split('<div class="tabular-question"', 1)[1].split("</div>", 1)[0]
    assert "background:" in question and "when" in question and escape(q.question) in question
    for option in q.options:
        assert escape(option.format) in question
    assert "open question" in html and f"revision {d.revision}" in html and d.snapshot_id in html
    assert body_rows(html, "tabular-sample") == 3 and "showing 3 of 3 sample rows" in html
    assert '<details class="tabular-origin"><summary>origin: csv' in html
    said = repr(got)
    assert said == "<DatasetGetOut revision 1: dates_ambiguous (8 rows × 3 columns, 1 open question)>"


def test_dataset_get_shows_rejected_rows_and_not_found(ns):
    ingest(ns, CSV / "ragged.csv", source_uri="ragged")
    got = ns.dataset_get("ragged")
    (d,) = got.datasets
    html = got._repr_html_()
    assert body_rows(html, "tabular-rejected") == len(d.rejected) > 0
    assert escape(d.rejected[0].reason) in html and "rejected" in repr(got)
    missing = ns.dataset_get("nothing-here")
    assert "not found" in missing._repr_html_() and repr(missing) == "<DatasetGetOut not found>"


def test_a_synthesize_answer_shows_its_text_its_rows_and_folds_the_plan(ns):
    ns.ingest_file(CSV / "currency.csv", source_uri="money")
    out = ns.synthesize("total price_usd", ["money"])
    assert not out.abstain
    html = out._repr_html_()
    assert escape(out.answer) in html and "sum_price_usd<br>" in html and "showing 1 of 1 row returned" in html
    assert '"aggregates"' not in html.split("<details")[0] and "aggregates" in html  # the plan is folded
    assert repr(out).startswith('<SynthesizeOut answer: "') and len(repr(out)) < 200
    [calc] = out.calculations
    reading = html.split('class="tabular-reading"', 1)[1].split("</p>", 1)[0]
    assert (
        "read as" in reading and escape(calc.reading) in reading and calc.reading.startswith("the total of price_usd")
    )
    sure = html.split('class="tabular-confidence"', 1)[1].split("</p>", 1)[0]
    assert f"confidence {calc.confidence.score:.2f}" in sure and escape(calc.confidence.calibrated_on) in sure
    assert repr(out).endswith(f"(confidence {calc.confidence.score:.2f})>")


def test_a_reading_under_its_threshold_shows_the_question_and_the_calculation():
    plan = {"datasets": [{"source_uri": "races.csv"}], "aggregates": [{"fn": "count"}]}
    receipt = {
        "plan_hash": "h",
        "sql": "SELECT count(*)",
        "params": {},
        "engine": "duckdb",
        "datasets": [],
        "resolved": [],
        "warnings": [],
        "rows_returned": 1,
        "elapsed_ms": {"validate": 0, "compile": 0, "execute": 0, "total": 0},
        "computed_at": "2026-12-07T00:00:00Z",
    }
    calc = {
        "id": "knowledge.query#1",
        "task": "how many races",
        "plan": plan,
        "reading": "count the rows of races.csv",
        "confidence": {"score": 0.62, "wrong_bound": 0.02, "calibrated_on": "calibrate (900 questions)"},
        "columns": [{"name": "count", "type": "number"}],
        "rows": [[3]],
        "answer_columns": ["count"],
        "truncated": False,
        "complete": True,
        "incomplete": [],
        "receipt": receipt,
        "note": "count\n3",
    }
    question = "I read this as: count the rows of races.csv (confidence 0.62, below the 0.80 this answer needs): is that what you mean?"
    out = SynthesizeOut.model_validate(
        {
            "answer": "",
            "abstain": True,
            "abstain_reason": "low_confidence",
            "clarification": question,
            "model": "builtin",
            "calculations": [calc],
        }
    )
    html = out._repr_html_()
    block = html.split('<div class="tabular-abstain"', 1)[1].split("</div>", 1)[0]
    assert "low confidence" in block and escape(question) in block
    assert "read as</b>: count the rows of races.csv" in html
    assert "confidence 0.62: at most 2% of answers this sure are wrong (measured on calibrate (900 questions))" in html
    assert repr(out).startswith('<SynthesizeOut abstained (low_confidence): "I read this as: count the rows')


def test_an_abstention_is_highlighted_with_its_clarification():
    out = SynthesizeOut(
        answer="",
        abstain=True,
        abstain_reason="needs_clarification",
        model="builtin",
        clarification="column 'when' has an open question <date_order>: answer it with knowledge.dataset_approve",
    )
    html = out._repr_html_()
    block = html.split('<div class="tabular-abstain"', 1)[1]
    assert "background:" in block and "needs clarification" in block and "&lt;date_order&gt;" in block
    assert repr(out).startswith("<SynthesizeOut abstained (needs_clarification): ") and len(repr(out)) < 200


def test_history_shows_who_when_and_what_changed(ns):
    _, d = ingest(ns, CSV / "dates_ambiguous.csv", source_uri="d")
    ns.approve("d", d.snapshot_id, formats={"when": "MDY"})
    entries = History(ns.history("d"))
    (entry,) = entries
    html = entries._repr_html_()
    assert body_rows(html, "tabular-history") == 1
    assert entry.approved_at in html and entry.approved_by in html and "when: date %d/%m/%Y → date %m/%d/%Y" in html
    assert repr(entries).startswith("<History 1 approval; latest: dates_ambiguous by ")
    assert "no approvals" in History()._repr_html_()


# --- Python values from JSON text --------------------------------------------------------------


@pytest.fixture(scope="module")
def money(shared):
    folder, ns = shared
    path = folder / "money.csv"
    path.write_text("item,price,qty\napple,1234.50,3\npear,10.00,5\nfig,,9007199254740993\n")
    assert ns.ingest_file(path, source_uri="money").state == "ready"
    return ns.query({"datasets": [{"source_uri": "money"}]})


def test_decimals_are_text_in_json_and_decimal_in_python(money):
    import polars as pl

    assert money.rows[0] == ["apple", "1234.50", 3]  # SPEC §3: the JSON form is kept
    assert money.model_dump(mode="json")["rows"][2] == ["fig", None, "9007199254740993"]
    assert money.typed_rows() == [
        ["apple", Decimal("1234.50"), 3],
        ["pear", Decimal("10.00"), 5],
        ["fig", None, 9007199254740993],
    ]
    assert money.records()[0] == {"item": "apple", "price": Decimal("1234.50"), "qty": 3}
    frame = money.to_polars()
    assert frame.schema["price"] == pl.Decimal(38, 2) and frame.schema["qty"] == pl.Int64
    assert frame["price"].to_list() == [Decimal("1234.50"), Decimal("10.00"), None]
    assert frame["qty"].to_list() == [3, 5, 9007199254740993]
    assert str(money.to_arrow().schema.field("price").type) == "decimal128(38, 2)"


def test_an_answer_read_back_from_json_gives_the_same_values(money):
    again = QueryOut.model_validate_json(money.model_dump_json())
    assert again.typed_rows() == money.typed_rows() and again.to_arrow().equals(money.to_arrow())


def test_columns_are_typed_as_a_whole(money):
    answer = QueryOut.model_validate(
        {
            **money.model_dump(),
            "columns": [
                {"name": "dec", "type": "number"},
                {"name": "huge", "type": "number"},
                {"name": "dbl", "type": "number"},
                {"name": "at", "type": "datetime"},
                {"name": "took", "type": "duration"},
                {"name": "t", "type": "time"},
                {"name": "none", "type": "number"},
            ],
            "rows": [
                ["1.5", 7, 2.5, "2024-01-02T03:04:05+00:00", "PT1H30M", "10:11:12", None],
                [2, "12345678901234567890", "nan", None, "-P1DT0.25S", None, None],
                [None, None, None, "2024-01-03T00:00:00+00:00", None, "00:00:00.5", None],
            ],
        }
    )
    first, second, third = answer.typed_rows()
    assert first[:2] == [Decimal("1.5"), 7] and second[:2] == [Decimal(2), 12345678901234567890]
    assert first[2] == 2.5 and second[2] != second[2]  # nan
    assert first[3] == dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=dt.UTC)
    assert first[4] == dt.timedelta(hours=1, minutes=30) and second[4] == -dt.timedelta(days=1, microseconds=250_000)
    assert third[5] == dt.time(0, 0, 0, 500_000) and [r[6] for r in (first, second, third)] == [None] * 3
    schema = answer.to_arrow().schema
    assert str(schema.field("dec").type) == "decimal128(38, 1)" and str(schema.field("dbl").type) == "double"
    assert str(schema.field("huge").type) == "decimal128(38, 0)"  # past int64, exact
    assert str(schema.field("took").type) == "duration[us]" and str(schema.field("t").type) == "time64[us]"
    assert str(schema.field("at").type).startswith("timestamp[us, tz=")


def test_an_approval_shows_what_it_changed_and_a_dry_run_says_nothing_changed(ns, tmp_path):
    lines = ["Date;Amount"] + [f"{1 + i % 28:02d}-{1 + i % 12:02d}-13;{i}" for i in range(12)]
    (tmp_path / "dashed.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    _, d = ingest(ns, tmp_path / "dashed.csv", source_uri="t")
    dry = ns.approve("t", d.snapshot_id, {"Date": "date"}, {"Date": "%d/%m/%Y"}, dry_run=True)
    html = dry._repr_html_()
    assert "dry run" in html and "nothing changed" in html and "12 of 12" in html
    assert escape("'01-01-13'") in html and body_rows(html, "tabular-changes") == 1
    assert repr(dry) == (
        "<DatasetApproveOut dry run: Date: date %d-%m-%y → date %d/%m/%Y (12 rows rejected); answers: Date date %d/%m/%Y>"
    )
    done = ns.approve("t", d.snapshot_id, {"Date": "date"}, {"Date": "YMD"})
    html = done._repr_html_()
    assert "approved" in html and done.dataset.snapshot_id in html and "0 of 12" in html
    assert len(repr(done)) < 200 and "%y-%m-%d" in repr(done)


def test_an_approval_shows_what_it_answers_settles_as_shown_and_leaves_open(ns, tmp_path):
    """Date (which order?), Amount and VAT ('.' decimal or thousands?): answering Date leaves the
    two numbers open, and the view says so; accepting the rest names each as it is held."""
    path = tmp_path / "ledger.csv"
    path.write_text(
        "Date,Amount,VAT\n03/04/2024,1.234,2.468\n01/02/2024,2.500,5.000\n12/11/2023,12.750,25.500\n"
        "05/06/2024,7.125,14.250\n07/08/2024,3.333,6.666\n",
        encoding="utf-8",
    )
    _, d = ingest(ns, path, source_uri="l")
    assert {q.column for q in d.questions} >= {"Date", "Amount", "VAT"}
    done = ns.approve("l", d.snapshot_id, formats={"Date": "MDY"})
    html, said = done._repr_html_(), repr(done)
    assert "answers: Date date %m/%d/%Y" in html and "answers: Date date %m/%d/%Y" in said
    assert "not approved while" in html and "settles every" not in html
    left = re.search(r"leaves open: ([^(<]*)", said).group(1)
    assert "Amount" in left and "VAT" in left and "Date" not in left
    assert said.startswith("<DatasetApproveOut answered l")
    rest = ns.approve("l", done.dataset.snapshot_id, settle_rest=True)
    html, said = rest._repr_html_(), repr(rest)
    assert "settles as shown: " in said and "leaves open" not in said
    shown = re.search(r"settles as shown: ([^;>]*)", said).group(1)
    assert "Amount number" in shown and "VAT number" in shown and "Date" not in shown
    assert "<b>approved</b>" in html and escape(shown) in html
