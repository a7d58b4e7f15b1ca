"""A home made before the catalog moved to SQLite (one `tabular.duckdb` holding the catalog and
every snapshot), copied once into today's layout (store/home.py) when it is first opened."""

from __future__ import annotations

import functools
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb

from planner.dialect import DIALECT

from ..errors import Overloaded
from . import sql
from .catalog import TABLES, insert, rejected_table, snapshot_table, source_count
from .connections import Connections
from .rows import CatalogRows
from .snapshot_files import SnapshotFiles

if TYPE_CHECKING:  # loaded by the copy only: a home with nothing to move loads no sqlglot
    from sqlglot import exp

OLD = "__old"
OLD_COLUMNS = (
    "SELECT column_name FROM duckdb_columns() WHERE database_name = '__old' AND schema_name = 'catalog' AND table_name = ?"
    " ORDER BY column_index"
)
OLD_SNAPSHOTS = "SELECT snapshot_id FROM __old.catalog.snapshots"
OLD_TABLE = (
    "SELECT 1 FROM duckdb_tables() WHERE database_name = '__old' AND schema_name = 'snapshots' AND table_name = ?"
)


@functools.cache
def no_rejected() -> exp.Select:
    """An old snapshot without rejected rows: today's empty rejected table (copy before changing)."""
    from sqlglot import exp  # heavy: sqlglot, for the copy only

    return exp.maybe_parse(
        "SELECT NULL::BIGINT AS row_id, NULL::BIGINT AS line, NULL AS column_name, NULL AS value, NULL AS reason LIMIT 0",
        dialect=DIALECT,
    )


def move_old_home(home: Path, rows: CatalogRows, connections: Connections, snapshots: SnapshotFiles) -> None:
    """A home made before the catalog moved to SQLite (one `tabular.duckdb` holding the catalog
    and every snapshot): copy it into this layout once, then rename the old file aside."""
    old = home / "tabular.duckdb"
    if not old.exists():
        return
    from sqlglot import exp  # heavy: sqlglot, for the copy only (a home moved long ago never comes here)

    cur = connections.cursor()
    try:
        cur.execute(sql.attach(old, OLD, read_only=True))
    except duckdb.IOException as err:
        raise Overloaded(
            f"the home {str(home)!r} is open in an older tabular process ({str(err).splitlines()[0]}); close it there",
            retry_after=2,
        ) from None
    made = []
    try:
        with rows.change() as con:
            if source_count(con):
                # Moved already (the process that moved it stopped before the rename below, or
                # another process moved it first): only the rename is left.
                raise _Moved()
            for table in TABLES:
                columns = [r[0] for r in cur.execute(OLD_COLUMNS, [table]).fetchall()]
                old_rows = exp.select(exp.Star()).from_(exp.table_(table, db="catalog", catalog=OLD, quoted=True))
                for row in cur.execute(old_rows.sql(dialect=DIALECT)).fetchall() if columns else ():
                    insert(con, table, **dict(zip(columns, row)))
            for (snapshot_id,) in cur.execute(OLD_SNAPSHOTS).fetchall():
                snapshots.new(snapshot_id, None)
                made.append(snapshot_id)
                for new_table, legacy in (
                    (snapshot_table(snapshot_id), snapshot_id),
                    (rejected_table(snapshot_id), snapshot_id + ".rejected"),
                ):
                    source: exp.Expression = exp.table_(legacy, db="snapshots", catalog=OLD, quoted=True)
                    if new_table.name == "rejected" and not cur.execute(OLD_TABLE, [legacy]).fetchall():
                        source = no_rejected().subquery()
                    copy = exp.Create(this=new_table, kind="TABLE", expression=exp.select(exp.Star()).from_(source))
                    cur.execute(copy.sql(dialect=DIALECT))
                snapshots.seal(snapshot_id)
    except _Moved:
        pass
    except BaseException:
        for snapshot_id in made:
            snapshots.discard(snapshot_id)
        raise
    finally:
        cur.execute(sql.detach(OLD))
    with suppress(FileNotFoundError):  # another process renamed it first
        old.rename(old.with_name("tabular.duckdb.moved"))


class _Moved(Exception):
    """The old home's rows are in the catalog already."""
