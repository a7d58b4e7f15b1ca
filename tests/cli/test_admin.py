"""tabular/cli/admin.py: the operator's commands (call, link, links, dir-files, unlink, export,
token), run through `main`."""

import json
import os
import time

import pytest

from tabular.cli import main
from tabular.service.auth import token_hash


@pytest.fixture
def home(tmp_path):
    return ["--home", str(tmp_path / "home")]


def test_call_runs_any_op_with_an_inline_body(home, capsys):
    assert main([*home, "call", "knowledge.get", '{"source_uri": "nothing"}']) == 0
    assert json.loads(capsys.readouterr().out)["found"] is False


def test_call_reads_the_body_from_a_file(home, tmp_path, capsys):
    body = tmp_path / "body.json"
    body.write_text('{"source_uri": "nothing"}')
    assert main([*home, "call", "knowledge.get", str(body)]) == 0
    assert json.loads(capsys.readouterr().out)["found"] is False


def test_call_of_an_unknown_op_is_a_usage_error(home, capsys):
    with pytest.raises(SystemExit) as err:
        main([*home, "call", "knowledge.nope"])
    assert err.value.code == 2


def test_a_token_and_its_entry_for_the_tokens_file(capsys):
    assert main(["token", "--org", "acme", "--name", "bot", "--role", "viewer"]) == 0
    lines = capsys.readouterr().out.splitlines()
    token = lines[1].strip()
    entry = json.loads("\n".join(lines[3:]))
    assert entry == {token_hash(token): {"name": "bot", "org": "acme", "namespaces": ["*"], "role": "viewer"}}


def test_link_learns_a_folder_and_unlink_lets_it_go(home, tmp_path, capsys, monkeypatch):
    folder = tmp_path / "sales"
    folder.mkdir()
    (folder / "jan.csv").write_text("id,amount\n1,2.50\n")
    then = time.time() - 60
    os.utime(folder / "jan.csv", (then, then))
    monkeypatch.setenv("TABULAR_LINK_ROOTS", str(tmp_path))
    assert main([*home, "link", str(folder), "--json"]) == 0
    link = json.loads(capsys.readouterr().out)
    assert link["prefix"] == "sales/" and [f["state"] for f in link["files_detail"]] == ["learned"]
    assert main([*home, "links"]) == 0
    assert link["link_id"] in capsys.readouterr().out
    assert main([*home, "dir-files", link["link_id"]]) == 0
    assert "sales/jan.csv" in capsys.readouterr().out
    assert main([*home, "unlink", link["link_id"]]) == 0
    capsys.readouterr()
    assert main([*home, "call", "knowledge.get", '{"source_uri": "sales/jan.csv"}']) == 0
    assert json.loads(capsys.readouterr().out)["found"]  # its source stays


def test_export_writes_every_live_snapshot(home, tmp_path, capsys):
    (tmp_path / "a.csv").write_text("x\n1\n2\n")
    assert main([*home, "ingest", str(tmp_path / "a.csv")]) == 0
    capsys.readouterr()
    assert main([*home, "export", str(tmp_path / "out"), "--json"]) == 0
    [exported] = json.loads(capsys.readouterr().out)
    assert (exported["source_uri"], exported["rows"]) == ("a.csv", 2)
    assert (tmp_path / "out" / "manifest.json").exists()
