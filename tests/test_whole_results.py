"""Whole results (SPEC §4, issue 17): every row a plan matches, past `limit`, streamed in Arrow
record batches to Polars, Arrow, CSV, Parquet, NDJSON, over Python, HTTP and the CLI, with the
exact types of the snapshot (decimals stay decimals)."""

from __future__ import annotations

import csv
import json
from decimal import Decimal

import polars as pl
import pyarrow as pa
import pytest
from conftest import ROOT

import tabular

ORDERS = ROOT / "fixtures" / "query" / "orders.csv"
WEST = {
    "datasets": [{"source_uri": "orders"}],
    "where": [{"column": "region", "op": "eq", "value": "West"}],
    "limit": 3,
}


def expected_west() -> list[dict]:
    with ORDERS.open(encoding="utf-8") as f:
        return [r for r in csv.DictReader(f) if r["region"] == "West"]


def total_amount(rows: list[dict]) -> Decimal:
    return sum((Decimal(r["amount"]) for r in rows if r["amount"]), Decimal(0))


@pytest.fixture
def orders(ns):
    assert ns.ingest_file(ORDERS, source_uri="orders").state == "ready"
    return ns


def test_to_polars_whole_reads_past_the_limit_with_exact_types(orders):
    answer = orders.query(WEST)
    assert len(answer.rows) == 3 and answer.truncated
    frame = answer.to_polars(whole=True)
    west = expected_west()
    assert frame.height == len(west) > 3
    assert frame.schema["amount"] == pl.Decimal(6, 2)
    assert sum((v for v in frame["amount"].to_list() if v is not None), Decimal(0)) == total_amount(west)
    assert frame["order_id"].to_list() == [int(r["order_id"]) for r in west]  # the rows as read


@pytest.mark.parametrize(
    "ext, load",
    [
        ("parquet", pl.read_parquet),
        ("csv", pl.read_csv),
        ("ndjson", pl.read_ndjson),
        ("arrow", lambda p: pl.from_arrow(pa.ipc.open_stream(p).read_all())),
    ],
)
def test_export_writes_every_row_in_each_format(orders, tmp_path, ext, load):
    path = tmp_path / f"west.{ext}"
    assert orders.export(WEST, path) == len(expected_west())
    frame = load(path)
    assert frame.height == len(expected_west()) and frame.columns == [
        "order_id",
        "customer_id",
        "region",
        "amount",
        "qty",
        "ordered_on",
        "note",
    ]
    amounts = [Decimal(str(v)) for v in frame["amount"].to_list() if v is not None]
    assert sum(amounts, Decimal(0)) == total_amount(expected_west())
    assert not list(tmp_path.glob("*.partial"))


def test_ndjson_carries_decimals_as_text(orders, tmp_path):
    orders.export(WEST, tmp_path / "west.ndjson")
    first = json.loads((tmp_path / "west.ndjson").read_text().splitlines()[0])
    assert first["amount"] == (expected_west()[0]["amount"] or None) and isinstance(first["order_id"], int)


def test_read_is_a_datasets_whole_snapshot(orders):
    frame = orders.read("orders")
    assert frame.shape == (300, 7)


def test_an_unknown_format_is_refused(orders, tmp_path):
    with pytest.raises(ValueError, match="format"):
        orders.export(WEST, tmp_path / "west.xlsx")


def test_cli_query_output_writes_the_file(tmp_path, capsys):
    # The CLI's own entry, in this process (tests/test_cli*.py run it as a command).
    from tabular.cli import main as cli_main

    home = tmp_path / "home"
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"datasets": [{"source_uri": "orders.csv"}], "limit": 1}))
    assert cli_main(["--home", str(home), "ingest", str(ORDERS)]) == 0, capsys.readouterr()
    capsys.readouterr()
    assert cli_main(["--home", str(home), "query", str(plan), "--output", str(tmp_path / "all.parquet")]) == 0
    assert "300 rows written" in capsys.readouterr().out
    assert pl.read_parquet(tmp_path / "all.parquet").height == 300


def test_durations_are_written_as_iso_text(ns, tmp_path):
    source = tmp_path / "took.csv"
    source.write_text("id,took\n1,PT1H30M\n2,P1DT2H\n")
    assert ns.ingest_file(source, source_uri="took").state == "ready"
    ns.export({"datasets": [{"source_uri": "took"}]}, tmp_path / "took_out.csv")
    assert pl.read_csv(tmp_path / "took_out.csv")["took"].to_list() == ["PT1H30M", "P1DT2H"]
    import duckdb

    from tabular.jsonval import to_json  # DuckDB's INTERVAL as Arrow gives months apart: a month is not 30 days

    interval = duckdb.sql("SELECT INTERVAL '14 months 3 days 2 hours' AS i").to_arrow_table().column(0)[0].as_py()
    assert to_json(interval) == "P1Y2M3DT2H"


# --- a date past 9999 (issue 53): every row, in every format, on every transport ------------------

FAR_ROWS = 100_001  # past the first record batch (65,536 rows), where the NDJSON stream was cut
FAR = {
    "datasets": [{"source_uri": "far.csv"}],
    "compute": [
        {"as": "next", "expr": {"date_add": ["day", {"value": "P1D", "type": "duration"}]}},
        {"as": "later", "expr": {"date_add": ["day", {"value": "PT1H", "type": "duration"}]}},
        {"as": "after", "expr": {"date_add": ["later", {"value": "P1D", "type": "duration"}]}},
    ],
    "select": [{"column": "id"}, {"column": "next"}, {"column": "after"}],
    "limit": 2,
}
FAR_ROW = {"next": "+10000-01-01", "after": "+10000-01-01T01:00:00"}


@pytest.fixture(scope="module")
def far(tmp_path_factory):
    """A home whose far.csv holds 9999-12-31 in every row: the plan moves it a day on."""
    folder = tmp_path_factory.mktemp("far")
    path = folder / "far.csv"
    path.write_text("id,day\n" + "".join(f"{i},9999-12-31\n" for i in range(FAR_ROWS)))
    home = folder / "home"
    with tabular.connect(str(home)) as engine:
        ns = engine.namespace(engine.settings.default_org, engine.settings.default_namespace)
        assert ns.ingest_file(path, source_uri="far.csv").state == "ready"
        yield engine, ns, home


def test_a_date_past_9999_is_answered_in_iso_8601s_expanded_form(far):
    _, ns, _ = far
    answer = ns.query(FAR)
    assert [dict(zip(["id", "next", "after"], row)) for row in answer.rows] == [
        {"id": 0, **FAR_ROW},
        {"id": 1, **FAR_ROW},
    ]  # the timestamp came as "10000-01-01 01:00:00": no T


def test_an_ndjson_export_past_9999_over_http_is_every_row(far):
    """It answered 200 and was cut after 65,536 rows (an OverflowError in the server's log)."""
    from fastapi.testclient import TestClient

    from tabular.service.http import create_app

    engine, _, _ = far
    with TestClient(create_app(engine, mcp=False), base_url="http://127.0.0.1") as http:
        sent = http.post("/v1/knowledge.query_export", json={**FAR, "format": "ndjson"})
        assert sent.status_code == 200
        lines = sent.text.split("\n")
        assert lines[-1] == "" and len(lines) - 1 == FAR_ROWS
        assert json.loads(lines[-2]) == {"id": FAR_ROWS - 1, **FAR_ROW}
        sheet = http.post("/v1/knowledge.query_export", json={**FAR, "format": "csv"})
        rows = list(csv.DictReader(sheet.text.splitlines()))
        assert len(rows) == FAR_ROWS and rows[-1] == {"id": str(FAR_ROWS - 1), **FAR_ROW}


def test_a_csv_export_past_9999_writes_the_date_not_out_of_range(far, tmp_path):
    _, ns, _ = far
    assert ns.export(FAR, tmp_path / "far.csv") == FAR_ROWS
    text = (tmp_path / "far.csv").read_text()
    assert "out of range" not in text
    assert list(csv.DictReader(text.splitlines()))[0] == {"id": "0", **FAR_ROW}


def test_to_polars_whole_past_9999_keeps_the_dates_typed(far):
    _, ns, _ = far
    frame = ns.query(FAR).to_polars(whole=True)
    assert frame.height == FAR_ROWS and frame.schema["next"] == pl.Date
    assert frame["next"].cast(pl.Int32)[0] == 2_932_897  # days from 1970 to 10000-01-01
    assert str(frame["after"].cast(pl.String)[0]).startswith("+10000-01-01 01:00:00")


def test_cli_query_output_ndjson_past_9999_writes_the_file(far, tmp_path, capsys):
    """It said INTERNAL."""
    from tabular.cli import main as cli_main

    _, _, home = far
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(FAR))
    out = tmp_path / "far.ndjson"
    assert cli_main(["--home", str(home), "query", str(plan), "--output", str(out)]) == 0, capsys.readouterr()
    lines = out.read_text().splitlines()
    assert len(lines) == FAR_ROWS and json.loads(lines[0]) == {"id": 0, **FAR_ROW}


# --- a duration past 292 years, a HUGEINT, a date past DuckDB's range (issue 53) ----------------

# DuckDB's own text of its longest durations each way (-9,223,372,036,854,775,807 µs arrived from
# Arrow as 2 µs: its nanoseconds wrapped), a short one, and 2^31-1 days (no time part: it fits).
SPANS = ["-2562047788:00:54.775807", "2562047788:00:54.775807", "01:30:00", "2147483647 days"]
SPANS_ISO = ["-P106751991DT4H54.775807S", "P106751991DT4H54.775807S", "PT1H30M", "P2147483647D"]
SPAN = {
    "datasets": [{"source_uri": "spans.csv"}],
    "compute": [
        {"as": "iv", "expr": {"cast": [{"substring": ["s", 3]}, {"value": "duration"}]}},
        {"as": "huge", "expr": {"mul": ["h", {"value": 10**18}]}},  # a HUGEINT: 0 and 10^36
    ],
    "select": [{"column": "id"}, {"column": "iv"}, {"column": "huge"}],
    "order_by": [{"column": "id"}],
}
SPAN_ROWS = [{"id": k, "iv": iso, "huge": 0 if k % 2 == 0 else str(10**36)} for k, iso in enumerate(SPANS_ISO)]


@pytest.fixture(scope="module")
def spans(tmp_path_factory):
    folder = tmp_path_factory.mktemp("spans")
    path = folder / "spans.csv"
    path.write_text(
        "id,s,h,day\n" + "".join(f"{k},x:{s},{0 if k % 2 == 0 else 10**18},2024-01-01\n" for k, s in enumerate(SPANS))
    )
    with tabular.connect(str(folder / "home")) as engine:
        ns = engine.namespace(engine.settings.default_org, engine.settings.default_namespace)
        assert ns.ingest_file(path, source_uri="spans.csv").state == "ready"
        yield engine, ns


def test_a_duration_past_292_years_is_whole_in_every_text_output(spans, tmp_path):
    """Arrow's interval carries microseconds as int64 nanoseconds: DuckDB's export wrapped them,
    and each output wrote a wrong duration without a word."""
    from fastapi.testclient import TestClient

    from tabular.service.http import create_app

    engine, ns = spans
    answer = ns.query(SPAN)
    assert [dict(zip(["id", "iv", "huge"], row)) for row in answer.rows] == SPAN_ROWS
    assert answer.to_polars(whole=True)["iv"].to_list() == SPANS_ISO
    for fmt in ("ndjson", "csv", "parquet"):
        assert ns.export(SPAN, tmp_path / f"spans.{fmt}") == len(SPANS)
    assert [json.loads(x)["iv"] for x in (tmp_path / "spans.ndjson").read_text().splitlines()] == SPANS_ISO
    assert pl.read_csv(tmp_path / "spans.csv")["iv"].to_list() == SPANS_ISO
    assert pl.read_parquet(tmp_path / "spans.parquet")["iv"].to_list() == SPANS_ISO
    with TestClient(create_app(engine, mcp=False), base_url="http://127.0.0.1") as http:
        sent = http.post("/v1/knowledge.query_export", json={**SPAN, "format": "ndjson"})
        assert sent.status_code == 200
        # A HUGEINT is a number within ±(2^53-1) as in knowledge.query's rows: it was "0".
        assert [json.loads(x) for x in sent.text.splitlines()] == SPAN_ROWS
        # Arrow's type cannot carry it: refused before the answer starts, naming the column.
        refused = http.post("/v1/knowledge.query_export", json={**SPAN, "format": "arrow"})
        assert refused.status_code == 422 and "'iv'" in refused.json()["detail"]["message"]
    with pytest.raises(tabular.ValidationFailed, match="'iv'"):
        ns.export(SPAN, tmp_path / "spans.arrow")


def test_a_hugeint_is_a_number_in_ndjson_as_in_the_rows_within_2_53(spans, tmp_path):
    """SPEC §3: an integer is text only past ±(2^53-1); a stream's HUGEINT was text whatever its
    size (Arrow gives it DECIMAL(38,0)'s type), where knowledge.query's rows gave 0 as 0."""
    _, ns = spans
    plan = {**SPAN, "select": [{"column": "id"}, {"column": "huge"}]}
    want = [{"id": r["id"], "huge": r["huge"]} for r in SPAN_ROWS]
    assert [dict(zip(["id", "huge"], row)) for row in ns.query(plan).rows] == want
    assert ns.export(plan, tmp_path / "huge.ndjson") == len(SPANS)
    assert [json.loads(x) for x in (tmp_path / "huge.ndjson").read_text().splitlines()] == want


def test_a_duration_arrow_holds_keeps_its_arrow_type(spans, tmp_path):
    _, ns = spans
    short = {**SPAN, "where": [{"column": "id", "op": "in", "values": [2, 3]}]}
    table = ns.query(short).to_arrow(whole=True)
    assert table.schema.field("iv").type == pa.month_day_nano_interval()
    assert [(v.months, v.days, v.nanoseconds) for v in table["iv"].to_pylist()] == [
        (0, 0, 5_400_000_000_000),
        (0, 2**31 - 1, 0),
    ]


def test_a_date_past_duckdbs_range_is_refused_saying_so(spans):
    """It was VALIDATION_FAILED 'does not fit an exact number of 38 digits'."""
    from fastapi.testclient import TestClient

    from tabular.service.http import create_app

    engine, ns = spans
    plan = {
        "datasets": [{"source_uri": "spans.csv"}],
        "compute": [
            {"as": "iv", "expr": {"cast": [{"substring": ["s", 3]}, {"value": "duration"}]}},
            {"as": "moved", "expr": {"date_add": ["day", "iv"]}},
        ],
        "select": [{"column": "id"}, {"column": "moved"}],
    }
    with pytest.raises(tabular.ValidationFailed) as caught:
        ns.query(plan)
    assert "leaves the range DuckDB holds" in caught.value.message and "'moved'" in caught.value.message
    assert [e.path for e in caught.value.errors] == ["compute[1]"]
    with TestClient(create_app(engine, mcp=False), base_url="http://127.0.0.1") as http:
        sent = http.post("/v1/knowledge.query_export", json={**plan, "format": "ndjson"})
        assert sent.status_code == 422
        assert sent.json()["detail"]["errors"][0]["path"] == "compute[1]"


def test_a_stored_duration_past_292_years_is_read_whole(ns, tmp_path):
    """A CSV's 2,562,047,788 hours is typed a duration and stored whole; ns.read wrapped it
    through Arrow to -PT0.000001S, and to_arrow(whole=True), whose type cannot hold it, says so."""
    path = tmp_path / "long.csv"
    path.write_text("id,took\n1,2562047788:00:54.775807\n2,01:30:00\n")
    assert ns.ingest_file(path, source_uri="long").state == "ready"
    assert ns.read("long")["took"].to_list() == ["P106751991DT4H54.775807S", "PT1H30M"]
    with pytest.raises(tabular.ValidationFailed, match="'took'"):
        ns.query({"datasets": [{"source_uri": "long"}]}).to_arrow(whole=True)


def test_cli_query_output_writes_a_duration_past_292_years_whole(spans, tmp_path, capsys):
    from tabular.cli import main as cli_main

    engine, _ = spans
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({**SPAN, "select": [{"column": "id"}, {"column": "iv"}]}))
    out = tmp_path / "spans.ndjson"
    home = str(engine.context.catalog.home)
    assert cli_main(["--home", home, "query", str(plan), "--output", str(out)]) == 0, capsys.readouterr()
    assert [json.loads(x)["iv"] for x in out.read_text().splitlines()] == SPANS_ISO
