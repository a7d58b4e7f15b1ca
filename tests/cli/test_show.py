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
