"""tabular/cli/show.py: what the terminal shows, counts in words, values as a person reads them."""

import io

import pytest
from rich.console import Console

from tabular.cli.show import PlainConsole, cell_text, counted, show_files, show_link


def text_console(width: int = 120) -> Console:
    return Console(file=io.StringIO(), width=width, color_system=None)


def test_counts_are_said_in_words_with_their_plural():
    assert (counted(1, "row"), counted(0, "row"), counted(1234, "file")) == ("1 row", "0 rows", "1,234 files")


def test_cells_show_nothing_for_no_value_and_words_for_bools():
    assert [cell_text(v) for v in (None, True, False, 0, "x")] == ["", "true", "false", "0", "x"]


LINK = {
    "link_id": "l_1",
    "path": "/data/sales",
    "prefix": "sales/",
    "files": 3,
    "states": {"learned": 2, "pending": 0, "failed": 1},
    "missing": False,
    "watching": True,
    "learning_paused": None,
}


def test_a_link_is_one_line_with_its_states_and_status():
    console = text_console()
    show_link(console, LINK)
    line = console.file.getvalue()
    assert "l_1  /data/sales → sales/…  3 files (2 learned, 1 failed)  watching" in line
    missing = text_console()
    show_link(missing, {**LINK, "missing": True})
    assert "missing (retry-dir looks again)" in missing.file.getvalue()


def test_a_paused_link_says_which_limit():
    console = text_console()
    show_link(
        console,
        {**LINK, "watching": False, "learning_paused": {"reason": "too_many_files", "count": 12000, "limit": 10000}},
    )
    said = console.file.getvalue()
    assert "paused" in said and "too_many_files: 12,000 over the limit 10,000" in said


def test_a_failed_file_shows_why():
    console = text_console()
    files = [
        {
            "path": "a.csv",
            "state": "learned",
            "revision": 1,
            "source_uri": "s/a.csv",
            "error_code": None,
            "error_message": None,
        },
        {
            "path": "b.csv",
            "state": "failed",
            "revision": None,
            "source_uri": "s/b.csv",
            "error_code": "NO_TABLE",
            "error_message": "empty",
        },
    ]
    show_files(console, files)
    lines = console.file.getvalue().splitlines()
    assert any("b.csv" in line and "NO_TABLE: empty" in line for line in lines)
    assert any("a.csv" in line and "learned" in line for line in lines)


def test_a_closed_pipe_is_raised_not_swallowed():
    with pytest.raises(BrokenPipeError):
        PlainConsole().on_broken_pipe()


# --- the commands made from the registry show their answers (issue 36, item 7) -------------------------


def test_get_formats_ingest_status_and_cancel_are_readable_and_json_with_json(tmp_path, capsys, monkeypatch):
    import json

    from conftest import CSV
    from test_cli_surface import call

    home = tmp_path / "home"
    run = lambda *args: call(capsys, monkeypatch, home, *args)
    started = json.loads(run("ingest", str(CSV / "currency.csv"), "--source-uri", "money", "--json").stdout)
    status = run("ingest-status", started["ingestion_id"])
    assert status.returncode == 0 and status.stdout.splitlines()[0] == "ready money revision 1  6 of 6 rows read"
    assert started["ingestion_id"] in status.stdout and "{" not in status.stdout
    assert json.loads(run("ingest-status", started["ingestion_id"], "--json").stdout)["state"] == "ready"
    missing = run("ingest-status", "i_nothing")
    assert missing.returncode == 1 and missing.stdout.strip() == "no ingest job i_nothing in this namespace"
    cancel = run("ingest-cancel", started["ingestion_id"])
    assert cancel.stdout.strip() == "not cancelled: the job had already ended (ready)"
    got = run("get", "money")
    lines = got.stdout.splitlines()
    assert (
        lines[0] == "money  revision 1"
        and "  datasets     currency" in lines
        and "  format       csv (parser " in got.stdout
    )
    assert "6 of 6 rows read" in got.stdout and "{" not in got.stdout
    formats = run("formats")
    assert "│ xlsx " in formats.stdout and "uploads up to 268.4 MB (max_upload_bytes)" in formats.stdout
    assert {f["name"] for f in json.loads(run("formats", "--json").stdout)["formats"]} >= {"csv", "xlsx"}
    run("delete", "money")
    assert run("get", "money").stdout.startswith("money  deleted (revision 1 restorable: tabular restore)")


# --- a piped result wider than a line is shown a row at a time ------------------------------------------


def wide_answer(columns: int):
    from types import SimpleNamespace

    return SimpleNamespace(
        columns=[SimpleNamespace(name=f"column_number_{k}", type="number") for k in range(columns)],
        rows=[list(range(columns))],
        truncated=False,
        incomplete=[],
        receipt=SimpleNamespace(warnings=[]),
    )


def test_a_piped_result_wider_than_a_line_is_shown_a_row_at_a_time(monkeypatch):
    # Piped, tables are not cut at 80 columns; a 44-column result was one grid line of 2,000+
    # characters, where `column: value` lines read in `less` and a file.
    from tabular.cli.show import show_answer

    monkeypatch.delenv("COLUMNS", raising=False)
    console = PlainConsole(file=io.StringIO(), color_system=None)
    show_answer(console, wide_answer(44))
    lines = console.file.getvalue().splitlines()
    assert max(len(line) for line in lines) <= 80, max(lines, key=len)
    for k in range(44):
        assert any(line.split()[:3] == [f"column_number_{k}", "number", str(k)] for line in lines), k
    narrow = PlainConsole(file=io.StringIO(), color_system=None)
    show_answer(narrow, wide_answer(3))  # a result that fits a line stays a grid
    grid = [[c.strip() for c in line.split("│")[1:-1]] for line in narrow.file.getvalue().splitlines()]
    assert ["0", "1", "2"] in grid


def test_get_of_a_source_not_there_says_so_and_the_close_names(tmp_path, capsys, monkeypatch):
    # It printed 'mony  revision None' and exited 1 without a word of why.
    from conftest import CSV
    from test_cli_surface import call

    home = tmp_path / "home"
    assert call(capsys, monkeypatch, home, "ingest", str(CSV / "currency.csv"), "--source-uri", "money").returncode == 0
    missing = call(capsys, monkeypatch, home, "get", "mony")
    assert missing.returncode == 1
    assert missing.stdout.strip() == "not found: no such source in this namespace; did you mean 'money'?"
