"""knowledge.query end to end: exact answers, receipts, pinning, completeness, time limits."""

import csv
import io
import json
import sys
from decimal import Decimal

import pytest
from conftest import CSV, PAIRS

import tabular
from tabular.cli import main

ORDERS_PLAN = {
    "datasets": [{"source_uri": "money"}],
    "aggregates": [{"fn": "sum", "column": "price_usd"}, {"fn": "count"}],
}


@pytest.fixture
def money(ns):
    assert ns.ingest_file(CSV / "currency.csv", source_uri="money").state == "ready"
    return ns


def test_sums_are_exact_decimals_and_big_integers_text(money, tmp_path):
    answer = money.query(ORDERS_PLAN)
    values = list(csv.DictReader(open(CSV / "currency.csv", encoding="utf-8")))
    from decimal import Decimal

    expected = sum(Decimal(v["price_usd"].replace("$", "").replace(",", "")) for v in values)
    assert answer.rows == [[format(expected, "f"), len(values)]]
    big = tmp_path / "big.csv"
    big.write_text("n\n9007199254740993\n9007199254740993\n")
    money.ingest_file(big, source_uri="big")
    total = money.query({"datasets": [{"source_uri": "big"}], "aggregates": [{"fn": "sum", "column": "n"}]})
    assert total.rows == [["18014398509481986"]]  # past 2^53, as text, exact


def test_receipt_says_what_was_read(money):
    answer = money.query({**ORDERS_PLAN, "where": [{"column": "item", "op": "ne", "value": "x'; DROP TABLE y; --"}]})
    receipt = answer.receipt
    (read,) = receipt.datasets
    assert (read.source_uri, read.revision, read.rows) == ("money", 1, 6)
    assert read.columns_read == ["item", "price_usd"]
    assert "x'; DROP TABLE y; --" in receipt.params.values() and "DROP" not in receipt.sql
    assert receipt.engine.startswith("duckdb ") and receipt.rows_returned == 1
    assert receipt.elapsed_ms.total >= receipt.elapsed_ms.execute


def test_plan_hash_ignores_key_order_and_defaults(money):
    a = money.query(ORDERS_PLAN).receipt.plan_hash
    b = money.query(
        {
            "limit": 100,
            "aggregates": [{"column": "price_usd", "fn": "sum"}, {"fn": "count"}],
            "datasets": [{"dataset_id": "", "source_uri": "money"}],
        }
    ).receipt.plan_hash
    c = money.query({**ORDERS_PLAN, "limit": 5}).receipt.plan_hash
    assert a == b != c


def test_dry_run_compiles_and_runs_nothing(money):
    answer = money.query({**ORDERS_PLAN, "dry_run": True})
    ran = money.query(ORDERS_PLAN)
    assert answer.rows == [] and answer.receipt.sql.startswith("SELECT")
    assert ran.rows and answer.receipt.sql == ran.receipt.sql  # the statement a run would execute


def test_rows_row_ids_truncation_and_offset(money):
    page = money.query({"datasets": [{"source_uri": "money"}], "select": [{"column": "item"}], "limit": 2, "offset": 1})
    assert page.row_ids == [[2], [3]] and page.truncated
    last = money.query(
        {"datasets": [{"source_uri": "money"}], "select": [{"column": "item"}], "limit": 10, "offset": 4}
    )
    assert last.row_ids == [[5], [6]] and not last.truncated


def test_a_stale_snapshot_is_409_and_unpinned_reads_the_newest(money, tmp_path):
    first = money.query(ORDERS_PLAN)
    # Other bytes (the same bytes again make no new revision): one more row.
    changed = tmp_path / "currency.csv"
    changed.write_text(
        (CSV / "currency.csv").read_text(encoding="utf-8") + 'Pen,$1.00,"0,92 €",£0.79\n', encoding="utf-8"
    )
    money.ingest_file(changed, source_uri="money")
    with pytest.raises(tabular.PreconditionFailed) as err:
        money.query(
            {**ORDERS_PLAN, "datasets": [{"source_uri": "money", "snapshot_id": first.receipt.datasets[0].snapshot_id}]}
        )
    assert err.value.status == 409 and err.value.errors[0].path == "datasets[0].snapshot_id"
    again = money.query(ORDERS_PLAN)  # the same plan: the new revision's rows, never the old statement's
    assert again.receipt.datasets[0].revision == 2
    assert first.rows[0][1] == 6 and again.rows[0][1] == 7
    assert Decimal(again.rows[0][0]) == Decimal(first.rows[0][0]) + Decimal("1.00")


def test_incomplete_when_rows_were_rejected_or_a_read_column_has_a_question(ns):
    ns.ingest_file(CSV / "ragged.csv", source_uri="ragged")
    answer = ns.query({"datasets": [{"source_uri": "ragged"}], "aggregates": [{"fn": "count"}]})
    assert not answer.complete and "1 row was rejected" in answer.incomplete[0]
    ns.ingest_file(CSV / "dates_ambiguous.csv", source_uri="amb")
    by_qty = ns.query({"datasets": [{"source_uri": "amb"}], "aggregates": [{"fn": "sum", "column": "qty"}]})
    assert by_qty.complete
    by_date = ns.query({"datasets": [{"source_uri": "amb"}], "aggregates": [{"fn": "max", "column": "when"}]})
    assert not by_date.complete and "date_order" in by_date.incomplete[0]
    assert by_date.receipt.datasets[0].open_questions == ["when: date_order"]


def test_a_query_past_its_time_limit_is_stopped(tmp_path):
    rows = tmp_path / "same.csv"
    rows.write_text("k,v\n" + "".join(f"a,{i}\n" for i in range(30_000)))
    with tabular.connect(str(tmp_path / "home"), query_seconds=0.3) as engine:
        ns = engine.namespace("a", "b")
        ns.ingest_file(rows, source_uri="same")
        plan = {
            "datasets": [{"source_uri": "same", "alias": "x"}, {"source_uri": "same", "alias": "y"}],
            "joins": [{"alias": "y", "on": [{"left": "x.k", "right": "y.k"}]}],
            "aggregates": [{"fn": "count_distinct", "column": "y.v"}, {"fn": "sum", "column": "x.v"}],
        }
        with pytest.raises(tabular.BackendTimeout) as err:
            ns.query(plan)
        assert err.value.status == 504
        # Nothing is left running: the engine answers the next query at once.
        assert ns.query({"datasets": [{"source_uri": "same"}], "aggregates": [{"fn": "count"}]}).rows == [[30_000]]


def test_another_namespace_answers_as_if_nothing_exists(money, engine):
    other = engine.namespace("acme", "elsewhere")
    with pytest.raises(tabular.ValidationFailed) as err:
        other.query(ORDERS_PLAN)
    assert err.value.errors[0].path == "datasets[0].source_uri" and not err.value.errors[0].did_you_mean


def test_results_as_arrow_polars_and_html(money):
    answer = money.query(
        {"datasets": [{"source_uri": "money"}], "select": [{"column": "item"}, {"column": "price_usd"}]}
    )
    frame = answer.to_polars()
    assert frame.columns == ["item", "price_usd"] and frame.height == 6
    assert str(answer.to_arrow().schema.field("price_usd").type).startswith("decimal")
    assert "<table>" in answer._repr_html_()


def test_cli_query(tmp_path, capsys, monkeypatch):
    """The query command, run through `main` as `tabular query` runs it: no interpreter started
    per command (tests/test_cli_surface.py runs `python -m tabular.cli query` in a process)."""
    monkeypatch.setenv("TABULAR_HOME", str(tmp_path / "home"))

    def run(*args: str, stdin: str | None = None) -> tuple[int, str, str]:
        capsys.readouterr()
        if stdin is not None:
            monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        code = main(list(args))
        out = capsys.readouterr()
        return code, out.out, out.err

    assert run("ingest", str(CSV / "currency.csv"), "--source-uri", "money")[0] == 0
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(ORDERS_PLAN))
    as_json = json.loads(run("query", str(plan), "--json")[1])
    assert as_json["rows"][0][1] == 6
    assert run("query", str(plan), "--sql")[1].startswith("SELECT")
    code, table, _ = run("query", str(plan))
    assert "sum_price_usd" in table and code == 0
    code, _, err = run("query", "-", stdin='{"datasets": [{"source_uri": "mony"}]}')
    assert code == 2 and "did you mean" in err.lower() and "money" in err


def test_durations_sum_and_average_exactly(ns):
    """A duration column sums to the exact total (DuckDB has no sum of INTERVAL: it is summed in
    microseconds), as ISO 8601 text, and the where of an aggregate applies to it."""
    assert ns.ingest_file(CSV / "times_durations.csv", source_uri="jobs").state == "ready"
    rows = list(csv.DictReader(open(CSV / "times_durations.csv", encoding="utf-8")))
    import datetime as dt

    def seconds(text: str) -> int:
        h, m, s = (int(x) for x in text.split(":"))
        return h * 3600 + m * 60 + s

    total = dt.timedelta(seconds=sum(seconds(r["elapsed"]) for r in rows))
    backups = dt.timedelta(seconds=sum(seconds(r["elapsed"]) for r in rows if r["task"] == "Backup"))
    answer = ns.query(
        {
            "datasets": [{"source_uri": "jobs"}],
            "aggregates": [
                {"fn": "sum", "column": "elapsed"},
                {
                    "fn": "sum",
                    "column": "elapsed",
                    "as": "backups",
                    "where": [{"column": "task", "op": "eq", "value": "Backup"}],
                },
                {
                    "fn": "sum",
                    "column": "elapsed",
                    "as": "none",
                    "where": [{"column": "task", "op": "eq", "value": "no such task"}],
                },
            ],
        }
    )
    assert [c.type for c in answer.columns] == ["duration", "duration", "duration"]
    got_total, got_backups, got_none = answer.rows[0]
    assert got_none is None
    assert _iso_seconds(got_total) == total.total_seconds() and _iso_seconds(got_backups) == backups.total_seconds()


def _iso_seconds(text: str) -> float:
    """Seconds of an ISO 8601 duration as the answers write them (P1DT2H15M10S)."""
    import re

    m = re.fullmatch(r"(-)?P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:([\d.]+)S)?)?", text)
    assert m, text
    sign, d, h, mi, s = m.groups()
    value = int(d or 0) * 86400 + int(h or 0) * 3600 + int(mi or 0) * 60 + float(s or 0)
    return -value if sign else value


def test_plan_limits_are_413_and_stray_fields_422_never_500(money):
    """SPEC §2: a plan over the plan limits is TOO_LARGE; `q` on an aggregate that takes none and
    an offset past any row count are the plan's errors, at their paths (they reached DuckDB
    before: a parameter-count mismatch, a UBIGINT conversion)."""
    with pytest.raises(tabular.TabularError) as over:
        money.query({**ORDERS_PLAN, "limit": 10_001})
    assert (over.value.code, over.value.status) == ("TOO_LARGE", 413) and [e.path for e in over.value.errors] == [
        "limit"
    ]
    with pytest.raises(tabular.ValidationFailed) as stray:
        money.query(
            {"datasets": [{"source_uri": "money"}], "aggregates": [{"fn": "sum", "column": "price_usd", "q": 0.5}]}
        )
    assert [e.path for e in stray.value.errors] == ["aggregates[0].q"]
    with pytest.raises(tabular.ValidationFailed) as far:
        money.query({**ORDERS_PLAN, "offset": 2**70})
    assert [e.path for e in far.value.errors] == ["offset"]
    with pytest.raises(tabular.ValidationFailed) as both:  # a limit beside a real error: the 422 that says both
        money.query({**ORDERS_PLAN, "limit": 10_001, "where": [{"column": "nope", "op": "eq", "value": 1}]})
    assert {e.path for e in both.value.errors} == {"limit", "where[0].column"}


@pytest.mark.parametrize(
    "values, shown, total",
    [
        (["P1M", "P1Y2M3DT4H", "PT5M", "P2D"], None, "P1Y3M5DT4H5M"),
        (["P12M", "P1Y", "P30D"], ["P1Y", "P1Y", "P30D"], "P2Y30D"),
        (["P3M", "PT36H", "P10D", "PT0.5S"], ["P3M", "P1DT12H", "P10D", "PT0.5S"], "P3M11DT12H0.5S"),
    ],
)
def test_durations_with_months_keep_their_months(ns, tmp_path, values, shown, total):
    """A month has no fixed length: a duration of months is answered, summed, described and read
    with its months (P1M, never P30D; a year never 360 days), and an average, which can only count
    a month as 30 days, says so in the receipt."""
    path = tmp_path / "spans.csv"
    path.write_text("label;span\n" + "".join(f"r{k};{v}\n" for k, v in enumerate(values)), encoding="utf-8")
    assert ns.ingest_file(path, source_uri="spans").state == "ready"
    [dataset] = ns.dataset_get("spans", sample_rows=10).datasets
    assert dataset.columns[1].type == "duration"
    values = shown or values  # twelve months are a year
    assert [row["span"] for row in dataset.sample] == values
    assert {dataset.columns[1].min, dataset.columns[1].max} <= set(values)
    answer = ns.query({"datasets": [{"source_uri": "spans"}], "order_by": [{"column": "label"}]})
    assert [row[1] for row in answer.rows] == values
    assert ns.read("spans")["span"].to_list() == values
    assert answer.to_polars()["span"].to_list() == values
    summed = ns.query({"datasets": [{"source_uri": "spans"}], "aggregates": [{"fn": "sum", "column": "span"}]})
    assert summed.rows == [[total]] and summed.receipt.warnings == []
    mean = ns.query({"datasets": [{"source_uri": "spans"}], "aggregates": [{"fn": "avg", "column": "span"}]})
    assert any("30 days" in w for w in mean.receipt.warnings)


@pytest.mark.parametrize("sep", [",", ";", "\t"])
@pytest.mark.parametrize(
    "values, total",
    [(["-PT5H", "PT1H", "", "-P1DT2H"], "-P1DT6H"), (["PT30M", "-PT45M", "PT0S"], "-PT15M"), (["-P1M", "P3M"], "P2M")],
)
def test_a_negative_duration_reads_as_answers_write_it(ns, tmp_path, sep, values, total):
    """Answers write a negative duration -PT5H, but a file holding one was kept as text; and an
    empty cell in an ISO duration column read from Parquet or JSON had become PT0S."""
    path = tmp_path / "signed.csv"
    path.write_text(f"k{sep}span\n" + "".join(f"{i}{sep}{v}\n" for i, v in enumerate(values)), encoding="utf-8")
    assert ns.ingest_file(path, source_uri="signed").state == "ready"
    [dataset] = ns.dataset_get("signed", sample_rows=10).datasets
    assert dataset.columns[1].type == "duration" and dataset.columns[1].nulls == values.count("")
    assert [r["span"] for r in dataset.sample] == [v or None for v in values]
    summed = ns.query({"datasets": [{"source_uri": "signed"}], "aggregates": [{"fn": "sum", "column": "span"}]})
    assert summed.rows == [[total]]


# --- whole results: the engine's order, receipts by id, cancelling (issue 53) -----------------


def test_a_whole_join_streams_unsorted_unless_asked(pairs, engine):
    """A join's whole result was sorted over both sides' row ids before its first row (memory
    the size of the result); it now streams in the engine's order, every row all the same, and
    whole_order 'stable' gives the answer's order (source order) at a sort's cost."""
    streamed = engine.stream({**PAIRS, "org": "acme", "namespace": "finance"})
    assert "ORDER BY" not in streamed.receipt.sql
    rows = streamed.reader.read_all()
    assert rows.num_rows == 40_000
    stable = pairs.query({**PAIRS, "whole_order": "stable"}).to_arrow(whole=True)
    answer = pairs.query({**PAIRS, "limit": 10_000})
    assert stable.slice(0, 10_000).to_pylist() == answer.to_arrow().to_pylist()  # the answer's order
    assert sorted(tuple(r.values()) for r in stable.to_pylist()) == sorted(tuple(r.values()) for r in rows.to_pylist())
    # An order_by orders the whole result as it orders an answer.
    ordered = pairs.query({**PAIRS, "order_by": [{"column": "b.v", "desc": True}]}).to_arrow(whole=True)
    assert ordered.column("b.v").to_pylist() == sorted(ordered.column("b.v").to_pylist(), reverse=True)


def test_cancelling_a_whole_result_stops_its_statement(pairs, engine):
    """A reader that goes away (an HTTP client's disconnect) stops the statement: the next batch
    raises, the statement's watch is let go, and the next query runs."""
    from tabular.backends.duckdb import Cancelled

    whole = engine.stream({**PAIRS, "org": "acme", "namespace": "finance"})
    whole.reader.read_next_batch()
    whole.cancel()
    with pytest.raises(Cancelled):
        whole.reader.read_all()
    assert whole.done
    assert pairs.query({**PAIRS, "aggregates": [{"fn": "count"}]}).rows == [[40_000]]
