"""tabular/ops/addresses.py: `source#dataset` names one dataset wherever a source is named, and
"name one" lists the datasets. Through the Python API (dataset_get, get) and the function
knowledge.query finds a plan's datasets with (found)."""

from __future__ import annotations

import pytest
from openpyxl import Workbook
from openpyxl.worksheet.table import Table

import tabular
from planner.models import QueryPlan
from tabular.errors import ValidationFailed
from tabular.ops.addresses import found, name_one, resolve


def workbook(path):
    """orders (an Excel table), users (a sheet), Notes 2024 (a sheet whose name is no slug)."""
    wb = Workbook()
    ws = wb.active
    ws.title = "Data"
    for row in (["id", "region", "amount"], [1, "north", 10], [2, "south", 20]):
        ws.append(row)
    ws.add_table(Table(displayName="orders", ref="A1:C3"))
    users = wb.create_sheet("users")
    for row in (["id", "name"], [1, "ann"]):
        users.append(row)
    notes = wb.create_sheet("Notes 2024")
    for row in (["day", "text"], ["2024-01-01", "opened"]):
        notes.append(row)
    wb.save(path)
    return path


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """One home for the module: the tests only read the workbook's datasets."""
    folder = tmp_path_factory.mktemp("addresses")
    with tabular.connect(str(folder / "home")) as engine:
        ns = engine.namespace("acme", "finance")
        assert ns.ingest_file(workbook(folder / "report.xlsx"), source_uri="report.xlsx").state == "ready"
        yield ns


def plan(*datasets) -> QueryPlan:
    return QueryPlan.model_validate({"datasets": list(datasets), "aggregates": [{"fn": "count"}]})


def test_an_address_names_one_dataset_by_id_by_name_or_in_any_case(report):
    ctx = report.engine.context
    for written, meant in [("orders", "orders"), ("Notes 2024", "notes_2024"), ("USERS", "users")]:
        address = resolve(ctx, "acme", "finance", f"report.xlsx#{written}")
        assert (address.source_uri, address.dataset_id, address.found) == ("report.xlsx", meant, True)
    assert resolve(ctx, "acme", "finance", "report.xlsx").ids == ("orders", "users", "notes_2024")


def test_dataset_get_takes_an_address(report):
    got = report.dataset_get("report.xlsx#orders")
    assert got.found and [d.dataset_id for d in got.datasets] == ["orders"]
    missing = report.dataset_get("report.xlsx#ordrs")
    assert not missing.found and missing.did_you_mean[0] == "orders"
    # the source as ever: every dataset
    assert [d.dataset_id for d in report.dataset_get("report.xlsx").datasets] == ["orders", "users", "notes_2024"]


def test_an_address_and_a_dataset_id_that_disagree_are_refused(report):
    with pytest.raises(ValidationFailed) as err:
        report.dataset_get("report.xlsx#orders", dataset_id="users")
    assert err.value.errors[0].path == "dataset_id"
    # said twice, alike, is one dataset
    assert [d.dataset_id for d in report.dataset_get("report.xlsx#orders", dataset_id="orders").datasets] == ["orders"]


def test_a_source_whose_own_name_has_a_mark_is_that_source(ns, tmp_path):
    path = tmp_path / "a.csv"
    path.write_text("x\n1\n")
    assert ns.ingest_file(path, source_uri="notes#2.csv").state == "ready"
    assert [d.dataset_id for d in ns.dataset_get("notes#2.csv").datasets] == ["a"]
    assert ns.call("knowledge.get", {"source_uri": "notes#2.csv"})["found"]


def test_get_answers_the_source_of_an_address(report):
    out = report.call("knowledge.get", {"source_uri": "report.xlsx#users"})
    assert (out["found"], out["source_uri"], out["datasets"]) == (
        True,
        "report.xlsx",
        ["orders", "users", "notes_2024"],
    )
    assert not report.call("knowledge.get", {"source_uri": "report.xlsx#nothing"})["found"]


def test_a_plan_finds_the_dataset_its_address_names(report):
    ctx = report.engine.context
    [[info]] = found(ctx, "acme", "finance", plan({"source_uri": "report.xlsx#orders"}))
    assert (info.source_uri, info.dataset_id) == ("report.xlsx", "orders")
    nested = plan(
        {"plan": {"datasets": [{"source_uri": "report.xlsx#users"}], "select": [{"column": "id"}]}, "alias": "u"}
    )
    [[[info]]] = found(ctx, "acme", "finance", nested)
    assert info.dataset_id == "users"


def test_name_one_lists_every_dataset_of_the_source(report):
    ctx = report.engine.context
    with pytest.raises(ValidationFailed) as err:
        found(ctx, "acme", "finance", plan({"source_uri": "x.csv"}, {"source_uri": "report.xlsx"}))
    message = err.value.message
    assert "has 3 datasets: name one of orders, users, notes_2024" in message and "report.xlsx#orders" in message
    assert err.value.errors[0].path == "datasets[1].dataset_id"
    with pytest.raises(ValidationFailed) as err:
        found(ctx, "acme", "finance", plan({"source_uri": "report.xlsx#ordrs"}))
    assert "no dataset 'ordrs'" in err.value.message and "orders, users, notes_2024" in err.value.message
    assert err.value.errors[0].did_you_mean[0] == "orders"


def test_name_one_counts_what_it_does_not_list():
    ids = [f"t{k}" for k in range(25)]
    message = name_one("big.xlsx", ids).message
    assert "t19 and 5 more" in message and "t20" not in message
