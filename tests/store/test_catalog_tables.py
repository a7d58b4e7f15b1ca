"""tabular/store/catalog_tables.py: every table the schema makes is one a copy of an old home
carries over, and times and flags come back as datetimes and bools."""

from __future__ import annotations

import datetime as dt
import re
import sqlite3

from tabular.store.catalog_tables import FLAG, SCHEMA, TABLES, TIME


def test_every_table_made_is_one_an_old_home_is_copied_into():
    made = re.findall(r"CREATE TABLE IF NOT EXISTS catalog\.(\w+)", SCHEMA)
    assert set(TABLES) == set(made) - {"dropped"}  # dropped snapshots were never in an old home


def test_times_and_flags_come_back_typed():
    con = sqlite3.connect(":memory:", detect_types=sqlite3.PARSE_DECLTYPES)
    con.execute("ATTACH DATABASE ':memory:' AS catalog")
    for statement in SCHEMA.split(";"):
        con.execute(statement)
    when = dt.datetime(2024, 3, 25, 12, 30, tzinfo=dt.UTC)
    con.execute("INSERT INTO catalog.dropped VALUES (?, ?)", ["s_1", when.isoformat()])
    con.execute("INSERT INTO catalog.links (link_id, recursive) VALUES (?, ?)", ["l_1", 0])
    assert con.execute("SELECT dropped_at FROM catalog.dropped").fetchone()[0] == when
    assert con.execute("SELECT recursive FROM catalog.links").fetchone()[0] is False
    assert TIME in SCHEMA and FLAG in SCHEMA
