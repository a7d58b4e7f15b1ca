"""A home made before the catalog moved to SQLite (one `tabular.duckdb` holding the catalog and
every snapshot), copied once into today's layout (store/home.py) when it is first opened."""

from __future__ import annotations

from contextlib import suppress

import duckdb
from sqlglot import exp

from ..errors import Overloaded
from .catalog import TABLES, insert, rejected_table, snapshot_table, source_count


def move_old_home(catalog) -> None:
    """A home made before the catalog moved to SQLite (one `tabular.duckdb` holding the catalog
    and every snapshot): copy it into this layout once, then rename the old file aside. `catalog`
    is the home.Catalog opening it (not imported here: the home calls this as it opens)."""
    old = catalog.home / "tabular.duckdb"
    if not old.exists():
        return
    cur = catalog.cursor()
    try:
        cur.execute(f"ATTACH {exp.Literal.string(str(old)).sql(dialect='duckdb')} AS __old (READ_ONLY)")
    except duckdb.IOException as err:
        raise Overloaded(
            f"the home {str(catalog.home)!r} is open in an older tabular process ({str(err).splitlines()[0]}); close it there",
            retry_after=2,
        ) from None
    made = []
    try:
        with catalog.change() as con:
            if source_count(con):
                # Moved already (the process that moved it stopped before the rename below, or
                # another process moved it first): only the rename is left.
                raise _Moved()
            for table in TABLES:
                columns = [
                    r[0]
                    for r in cur.execute(
                        "SELECT column_name FROM duckdb_columns() WHERE database_name = '__old' AND schema_name = 'catalog' AND table_name = ?"
                        " ORDER BY column_index",
                        [table],
                    ).fetchall()
                ]
                for row in cur.execute(f'SELECT * FROM __old.catalog."{table}"').fetchall() if columns else ():
                    insert(con, table, **dict(zip(columns, row)))
            for (snapshot_id,) in cur.execute("SELECT snapshot_id FROM __old.catalog.snapshots").fetchall():
                catalog.new_snapshot(snapshot_id, None)
                made.append(snapshot_id)
                for table, legacy in (
                    (snapshot_table(snapshot_id), snapshot_id),
                    (rejected_table(snapshot_id), snapshot_id + ".rejected"),
                ):
                    source = exp.table_(legacy, db="snapshots", catalog="__old", quoted=True).sql(dialect="duckdb")
                    if (
                        table.name == "rejected"
                        and not cur.execute(
                            "SELECT 1 FROM duckdb_tables() WHERE database_name = '__old' AND schema_name = 'snapshots' AND table_name = ?",
                            [legacy],
                        ).fetchall()
                    ):
                        source = "(SELECT NULL::BIGINT AS row_id, NULL::BIGINT AS line, NULL AS column_name, NULL AS value, NULL AS reason LIMIT 0)"
                    cur.execute(f"CREATE TABLE {table.sql(dialect='duckdb')} AS SELECT * FROM {source}")
                catalog.seal(snapshot_id)
    except _Moved:
        pass
    except BaseException:
        for snapshot_id in made:
            catalog.discard(snapshot_id)
        raise
    finally:
        cur.execute("DETACH DATABASE IF EXISTS __old")
    with suppress(FileNotFoundError):  # another process renamed it first
        old.rename(old.with_name("tabular.duckdb.moved"))


class _Moved(Exception):
    """The old home's rows are in the catalog already."""
