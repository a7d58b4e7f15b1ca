"""One column typed as infer/columns.py types it, for the tests of infer/questions.py and
infer/kinds.py: its cells in a DuckDB table, surveyed, tallied and decided."""

from __future__ import annotations

import duckdb

from tabular import readings as C
from tabular.infer.questions import decide
from tabular.infer.tally import Source, survey, tally
from tabular.infer.typings import Typing
from tabular.settings import Settings

SETTINGS = Settings()
MARKERS = SETTINGS.nulls({})


def typed(values: list[str]) -> Typing:
    """The typing one column of these cells gets, as infer/columns.py reaches it."""
    con = duckdb.connect()
    try:
        con.execute("CREATE TABLE cells (__row_id BIGINT, c VARCHAR)")
        con.executemany("INSERT INTO cells VALUES (?, ?)", [[i + 1, v] for i, v in enumerate(values)])
        source = Source("cells")
        (surveyed,) = survey(con, source, ["c"], MARKERS, SETTINGS.mixed_values_share).values()
        readings = [r for r in C.candidate_readings(surveyed.symbols) if r.type in surveyed.families]
        counted = tally(con, source, ["c"], {"c": readings}, MARKERS)["c"]
        return decide(con, source, "c", counted, SETTINGS, MARKERS)
    finally:
        con.close()


def cells_table(con, **columns) -> str:
    """A wide extraction relation `cells` (__row_id and one text column per name) from lists of
    cells, for the tests of infer/tally.py and infer/survey.py."""
    names = list(columns)
    rows = list(zip(*columns.values()))
    con.execute("CREATE OR REPLACE TABLE cells (__row_id BIGINT, " + ", ".join(f'"{n}" VARCHAR' for n in names) + ")")
    con.executemany(
        f"INSERT INTO cells VALUES (?, {', '.join('?' for _ in names)})", [[i + 1, *r] for i, r in enumerate(rows)]
    )
    return "cells"
