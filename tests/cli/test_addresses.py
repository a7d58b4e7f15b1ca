"""Dataset addresses on the command line (issue 56): `SOURCE#DATASET` names one dataset of a
workbook wherever a command takes a source (ask, query, get, datasets, approve, query --output),
and a command given a source of several datasets lists them, with how to name one. Through the
CLI's process, with a workbook made here."""

import csv
import json

import pytest
from test_cli import run

PLAN = {
    "datasets": [{"source_uri": "report.xlsx#orders"}],
    "group_by": [{"column": "region"}],
    "aggregates": [{"fn": "sum", "column": "amount", "as": "total"}],
    "order_by": [{"column": "region"}],
}


@pytest.fixture(scope="module")
def workbook(tmp_path_factory):
    """report.xlsx: sheets `orders` (north 10 + 5, south 20) and `staff`, ingested."""
    import openpyxl

    tmp = tmp_path_factory.mktemp("addresses")
    book = openpyxl.Workbook()
    orders = book.active
    orders.title = "orders"
    for row in (("region", "amount"), ("north", 10), ("south", 20), ("north", 5)):
        orders.append(row)
    staff = book.create_sheet("staff")
    for row in (("name", "team"), ("ann", "a"), ("bob", "b")):
        staff.append(row)
    book.save(tmp / "report.xlsx")
    done = run(tmp, "ingest", str(tmp / "report.xlsx"))
    assert done.returncode == 0, done.stdout + done.stderr
    return tmp


def test_get_and_datasets_take_an_address(workbook):
    got = run(workbook, "get", "report.xlsx#orders", "--json")
    assert got.returncode == 0 and json.loads(got.stdout)["source_uri"] == "report.xlsx", got.stderr
    shown = json.loads(run(workbook, "datasets", "report.xlsx#staff", "--json").stdout)
    assert [d["dataset_id"] for d in shown["datasets"]] == ["staff"]


def test_approve_of_a_workbook_names_its_datasets_and_how_to_name_one(workbook):
    done = run(workbook, "approve", "report.xlsx", "--set", "amount=string")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "orders" in done.stderr and "staff" in done.stderr and "report.xlsx#orders" in done.stderr


def test_ask_answers_over_one_dataset_of_a_workbook(workbook):
    done = run(workbook, "ask", "total amount by region", "report.xlsx#orders")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "15" in done.stdout and "20" in done.stdout  # north 10 + 5, south 20


def test_ask_over_a_workbook_lists_its_datasets(workbook):
    done = run(workbook, "ask", "total amount by region", "report.xlsx")
    said = done.stdout + done.stderr
    assert done.returncode != 0 and "orders" in said and "staff" in said, said


def test_query_and_its_output_take_an_address(workbook, tmp_path):
    done = run(workbook, "query", json.dumps(PLAN), "--json")
    assert done.returncode == 0, done.stderr
    # a sum of whole numbers is a JSON number (a decimal's would be text): the values are what count here
    assert [[region, str(total)] for region, total in json.loads(done.stdout)["rows"]] == [
        ["north", "15"],
        ["south", "20"],
    ]
    written = run(workbook, "query", json.dumps(PLAN), "--output", str(tmp_path / "t.csv"))
    assert written.returncode == 0, written.stderr
    assert list(csv.reader((tmp_path / "t.csv").open(newline="")))[1:] == [["north", "15"], ["south", "20"]]


def test_a_query_over_a_workbook_without_a_dataset_lists_them(workbook):
    plan = {"datasets": [{"source_uri": "report.xlsx"}]}
    done = run(workbook, "query", json.dumps(plan))
    assert done.returncode == 2 and "orders" in done.stderr and "staff" in done.stderr, done.stderr


def test_approve_takes_an_address(workbook):
    done = run(workbook, "approve", "report.xlsx#staff", "--set", "team=string", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout)["dataset"]["dataset_id"] == "staff"
