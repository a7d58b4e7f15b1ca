"""Issue 56 where a person meets it over HTTP and MCP: a workbook's datasets are named by its
tables (`report.xlsx#orders`), a sheet of prose is a note and no dataset, "name one" lists the
datasets, and an address is taken wherever a source is (dataset_get, get, query, query_export,
synthesize)."""

from __future__ import annotations

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from openpyxl import Workbook
from openpyxl.worksheet.table import Table

from .support import envelope, ingest

URI = "addresses/report.xlsx"
ABOUT = "Orders of 2024, one row each; ask finance for the rest."
IDS = ["orders", "users", "regions"]


@pytest.fixture(scope="module")
def report(http, tmp_path_factory):
    """orders: an Excel table beside nothing else; users: a sheet; regions: a named range over
    a block under a title; About: one sentence."""
    path = tmp_path_factory.mktemp("addresses") / "report.xlsx"
    wb = Workbook()
    ws = wb.active
    ws.title = "Data"
    for row in (["id", "status", "amount"], [1, "paid", 10], [2, "PAID", 20], [3, "open", 5]):
        ws.append(row)
    ws.add_table(Table(displayName="orders", ref="A1:C4"))
    users = wb.create_sheet("users")
    for row in (["id", "name"], [1, "ann"]):
        users.append(row)
    wb.create_sheet("About")["A1"] = ABOUT
    areas = wb.create_sheet("Areas")
    for row in (["region", "manager"], ["north", "ann"], ["south", "bob"]):
        areas.append(row)
    from openpyxl.workbook.defined_name import DefinedName

    wb.defined_names["regions"] = DefinedName("regions", attr_text="Areas!$A$1:$B$3")
    wb.save(path)
    got = ingest(http, path, URI)
    assert got["state"] == "ready", got
    return got


def test_a_workbooks_tables_name_its_datasets_and_its_prose_is_a_note(http, report):
    got = http.post("/v1/knowledge.dataset_get", json={"source_uri": URI}).json()
    assert [d["dataset_id"] for d in got["datasets"]] == IDS
    assert [d["origin"]["sheet"] for d in got["datasets"]] == ["Data", "users", "Areas"]
    [said] = [w for w in report["warnings"] if "'About'" in w]
    assert ABOUT in said and "no dataset" in said


def test_dataset_get_and_get_take_an_address_over_http(http, report):
    got = http.post("/v1/knowledge.dataset_get", json={"source_uri": f"{URI}#orders", "sample_rows": 5}).json()
    assert [d["dataset_id"] for d in got["datasets"]] == ["orders"] and len(got["datasets"][0]["sample"]) == 3
    source = http.post("/v1/knowledge.get", json={"source_uri": f"{URI}#users"}).json()
    assert (source["found"], source["source_uri"], source["datasets"]) == (True, URI, IDS)
    missing = http.post("/v1/knowledge.dataset_get", json={"source_uri": f"{URI}#ordrs"}).json()
    assert missing["found"] is False and missing["did_you_mean"][0] == "orders"
    both = http.post("/v1/knowledge.dataset_get", json={"source_uri": f"{URI}#orders", "dataset_id": "users"})
    assert envelope(both, 422, "VALIDATION_FAILED")["errors"][0]["path"] == "dataset_id"


def test_dataset_get_takes_an_address_over_mcp(server, report):
    async def session_run() -> None:
        async with streamable_http_client(server.url + "/mcp") as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                got = await session.call_tool("loom_knowledge_dataset_get", {"source_uri": f"{URI}#regions"})
                assert not got.is_error
                assert [d["dataset_id"] for d in got.structured_content["datasets"]] == ["regions"]

    anyio.run(session_run)


COUNT = {"aggregates": [{"fn": "count"}, {"fn": "sum", "column": "amount"}]}


def test_query_and_its_export_take_an_address_over_http(http, report):
    got = http.post("/v1/knowledge.query", json={"datasets": [{"source_uri": f"{URI}#orders"}], **COUNT})
    assert got.status_code == 200, got.text
    assert got.json()["rows"] == [[3, 35]]
    assert got.json()["receipt"]["datasets"][0]["source_uri"] == URI
    streamed = http.post(
        "/v1/knowledge.query_export", json={"datasets": [{"source_uri": f"{URI}#Orders"}], **COUNT, "format": "csv"}
    )
    assert streamed.status_code == 200 and streamed.text.splitlines()[1] == "3,35"


def test_name_one_lists_the_datasets_over_http(http, report):
    r = http.post("/v1/knowledge.query", json={"datasets": [{"source_uri": URI}], "aggregates": [{"fn": "count"}]})
    detail = envelope(r, 422, "VALIDATION_FAILED")
    assert "name one of orders, users, regions" in detail["message"] and f"{URI}#orders" in detail["message"]
    wrong = http.post("/v1/knowledge.query", json={"datasets": [{"source_uri": f"{URI}#ordrs"}], **COUNT})
    assert "no dataset 'ordrs'" in envelope(wrong, 422, "VALIDATION_FAILED")["message"]


def test_synthesize_takes_an_address_over_http(http, report):
    got = http.post(
        "/v1/knowledge.synthesize", json={"task": "how many orders are there?", "datasets": [f"{URI}#orders"]}
    )
    assert got.status_code == 200, got.text
    answer = got.json()
    assert not answer["abstain"], answer["clarification"]
    assert answer["calculations"][0]["rows"][0][0] == 3


def test_query_takes_an_address_over_mcp(server, report):
    async def session_run() -> None:
        async with streamable_http_client(server.url + "/mcp") as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                got = await session.call_tool(
                    "loom_knowledge_query", {"datasets": [{"source_uri": f"{URI}#orders"}], **COUNT}
                )
                assert not got.is_error, got.content
                assert got.structured_content["rows"] == [[3, 35]]
                several = await session.call_tool(
                    "loom_knowledge_query", {"datasets": [{"source_uri": URI}], "aggregates": [{"fn": "count"}]}
                )
                assert several.is_error and "orders, users, regions" in several.structured_content["detail"]["message"]

    anyio.run(session_run)
