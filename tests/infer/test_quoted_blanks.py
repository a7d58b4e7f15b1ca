"""A whitespace cell is a value where it was quoted (`" "`): a table of characters, a separator
column, a padding value written on purpose. An empty cell, and an unquoted blank in a column where
nothing was quoted, stay null."""

from __future__ import annotations

import pytest
from conftest import columns, ingest

BLANKS = {"space": " ", "two-spaces": "  ", "tab": "\t"}


@pytest.mark.parametrize("d", [",", ";", "\t", "|"], ids=["comma", "semicolon", "tab", "pipe"])
def test_a_quoted_blank_is_kept_as_the_value_it_is(ns, tmp_path, d):
    """Each blank in a column of its own (one file per delimiter, not one per delimiter and blank)."""
    # a tab inside a tab-separated field is not a blank cell's shape
    blanks = {name: b for name, b in BLANKS.items() if not (b == "\t" and d == "\t")}
    names = [f"Descripción {name}" for name in blanks]
    lines = [d.join(['"Programa"', *(f'"{n}"' for n in names), '"Monto"'])]
    for i in range(1, 40):
        texts = [f'"{b}"' if i % 7 == 0 else f'"Programa número {i}"' if i % 5 else '""' for b in blanks.values()]
        lines.append(d.join([f'"P{i}"', *texts, str(i * 10)]))
    path = tmp_path / "programas.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    _, dataset = ingest(ns, path)
    got = ns.query(
        {"datasets": [{"source_uri": "programas.csv"}], "select": [{"column": c} for c in ["Programa", *names]]}
    )
    empty = [i for i in range(1, 40) if i % 7 and not i % 5]
    for k, (name, blank) in enumerate(zip(names, blanks.values()), 1):
        by_id = {r[0]: r[k] for r in got.rows}
        assert by_id["P7"] == blank and by_id["P14"] == blank, name  # quoted whitespace: the value as written
        assert by_id["P5"] is None  # '""' is an empty cell
        assert by_id["P1"] == "Programa número 1"
        assert columns(dataset)[name].nulls == len(empty)


def test_an_unquoted_blank_where_nothing_was_quoted_stays_a_blank_cell(ns, tmp_path):
    path = tmp_path / "notes.csv"
    path.write_text("id,note\n1,first\n2, \n3,third\n4,\n", encoding="utf-8")
    _, dataset = ingest(ns, path)
    got = ns.query({"datasets": [{"source_uri": "notes.csv"}], "select": [{"column": "note"}]})
    assert [r[0] for r in got.rows] == ["first", None, "third", None]
