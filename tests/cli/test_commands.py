"""tabular/cli/commands.py: the commands over a namespace's data, run through `main` as a person
runs them: what they print and how they exit."""

import json

import pytest
from conftest import held_job

from tabular.cli import main
from tabular.cli.commands import Refused, _pairs, _sources, json_argument

PRICES = "item,amount\npen,1.50\nink,2.25\npad,4.00\n"


@pytest.fixture
def home(tmp_path):
    return ["--home", str(tmp_path / "home"), "--org", "acme", "--namespace", "finance"]


@pytest.fixture
def prices(tmp_path, home, capsys):
    path = tmp_path / "prices.csv"
    path.write_text(PRICES)
    assert main([*home, "ingest", str(path)]) == 0
    capsys.readouterr()
    return path


def test_two_files_of_one_name_keep_their_paths_as_sources(tmp_path):
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "data.csv").write_text("x\n1\n")
    (tmp_path / "one.csv").write_text("x\n1\n")
    got = _sources([str(tmp_path / "a/data.csv"), str(tmp_path / "b/data.csv"), str(tmp_path / "one.csv")], None)
    assert [uri for _, uri in got] == [
        (tmp_path / "a/data.csv").as_posix(),
        (tmp_path / "b/data.csv").as_posix(),
        "one.csv",
    ]
    with pytest.raises(Refused, match="--source-uri names one source"):
        _sources([str(tmp_path / "one.csv"), str(tmp_path / "a/data.csv")], "x")
    with pytest.raises(Refused, match="is a directory"):
        _sources([str(tmp_path / "a")], None)


def test_pairs_split_at_the_first_equals_sign():
    assert _pairs(["when=DD=MM", "qty=number"], "--format") == {"when": "DD=MM", "qty": "number"}
    with pytest.raises(Refused, match="--set takes COLUMN=VALUE"):
        _pairs(["qty"], "--set")


def test_json_arguments_must_be_objects():
    assert json_argument('{"a": 1}', "plan") == {"a": 1}
    with pytest.raises(Refused, match="not JSON"):
        json_argument("{", "plan")
    with pytest.raises(Refused, match="must be a JSON object, not a list"):
        json_argument("[1]", "plan")


def test_ingest_says_ready_and_shows_the_columns(tmp_path, home, capsys):
    path = tmp_path / "prices.csv"
    path.write_text(PRICES)
    assert main([*home, "ingest", str(path)]) == 0
    out = capsys.readouterr().out
    assert "ready" in out and "prices.csv revision 1" in out and "3 rows" in out


def test_query_prints_rows_and_json(home, prices, capsys):
    plan = json.dumps({"datasets": [{"source_uri": "prices.csv"}], "aggregates": [{"fn": "sum", "column": "amount"}]})
    assert main([*home, "query", plan, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["rows"] == [["7.75"]]
    assert main([*home, "query", plan]) == 0
    out = capsys.readouterr().out
    assert "7.75" in out and "1 row" in out


def test_datasets_of_a_missing_source_is_refused_in_one_line(home, prices, capsys):
    assert main([*home, "datasets", "nothing.csv"]) == 2
    err = capsys.readouterr().err
    assert "no live source 'nothing.csv'" in err and "tabular list" in err


def test_a_refused_plan_names_its_path_and_the_close_name(home, prices, capsys):
    plan = json.dumps({"datasets": [{"source_uri": "prices.csv"}], "select": [{"column": "amout"}]})
    assert main([*home, "query", plan]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "VALIDATION_FAILED" in err and "select[0].column" in err and "did you mean amount?" in err


def test_list_delete_and_restore(home, prices, capsys):
    assert main([*home, "list"]) == 0
    assert "prices.csv" in capsys.readouterr().out
    assert main([*home, "delete", "prices.csv"]) == 0
    capsys.readouterr()
    assert main([*home, "datasets", "prices.csv"]) == 2
    assert main([*home, "restore", "prices.csv"]) == 0
    capsys.readouterr()
    assert main([*home, "datasets", "prices.csv", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["found"]


def test_approve_retypes_and_history_shows_it(home, prices, capsys):
    assert main([*home, "approve", "prices.csv", "--set", "amount=string"]) == 0
    assert "approved prices" in capsys.readouterr().out
    assert main([*home, "history", "prices.csv", "--json"]) == 0
    [entry] = json.loads(capsys.readouterr().out)
    assert entry["dataset_id"] == "prices" and [c["column"] for c in entry["changes"]] == ["amount"]


def test_jobs_says_a_running_jobs_progress_as_the_other_views_do(tmp_path, home, capsys, monkeypatch):
    # The jobs table wrote 'read 1200000 of 4000000 bytes'; ingest-status and the notebook say
    # 'read: 1.2 MB of 4.0 MB', and a phase whose total is not known yet 'of ?'.
    from tabular.store.home import Catalog

    catalog = Catalog(str(tmp_path / "home"))
    try:
        for ingestion_id, progress in (
            ("i_reading", {"phase": "read", "unit": "bytes", "total": 4_000_000, "done": 1_200_000}),
            ("i_typing", {"phase": "type", "unit": "rows", "total": 0, "done": 1_500}),
        ):
            held_job(
                catalog,
                ingestion_id,
                namespace="finance",
                source_uri=f"files/{ingestion_id}.csv",
                state="processing",
                stage="",
                filename=f"{ingestion_id}.csv",
                progress=progress,
                warnings=[],
                created_at="2026-01-02T03:04:05.678+00:00",
            )
    finally:
        catalog.close()
    monkeypatch.delenv("COLUMNS", raising=False)  # piped: the table as wide as its values
    assert main([*home, "jobs"]) == 0
    lines = {line.split()[1]: line for line in capsys.readouterr().out.splitlines() if "i_" in line}
    assert "read: 1.2 MB of 4.0 MB" in lines["i_reading"] and "2026-01-02 03:04:05" in lines["i_reading"]
    assert "type: 1,500 of ? rows" in lines["i_typing"]


def test_query_output_names_the_receipt_that_tabular_receipt_answers(tmp_path, home, prices, capsys):
    """`query --output` said only the rows and the file: the receipt of what was read (its SQL,
    its parameters, the snapshots) was kept under an id no one was told."""
    plan = json.dumps(
        {"datasets": [{"source_uri": "prices.csv"}], "where": [{"column": "amount", "op": "gt", "value": 2}]}
    )
    out = tmp_path / "dear.csv"
    assert main([*home, "query", plan, "--output", str(out)]) == 0
    [line] = capsys.readouterr().out.splitlines()
    assert line.startswith(f"2 rows written to {out} (csv); receipt r_")
    receipt_id = line.split("receipt ", 1)[1].split()[0].rstrip(";:,.()")
    assert f"tabular receipt {receipt_id}" in line  # the command that answers it, as a person types it
    assert main([*home, "receipt", receipt_id]) == 0  # its answer is JSON
    got = json.loads(capsys.readouterr().out)
    assert (
        got["found"]
        and got["receipt"]["rows_returned"] == 2
        and got["receipt"]["datasets"][0]["source_uri"] == "prices.csv"
    )
