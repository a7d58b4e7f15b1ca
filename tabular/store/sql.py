"""The statements the home runs to keep its files and connections (the catalog's rows have
theirs in store/catalog.py): constants with bound values, or sqlglot builders where a statement
names a file, a snapshot or a setting (DuckDB binds no parameter in ATTACH or DETACH, nor a SET's
name). The builders load sqlglot when first called: a command that runs none does not wait for it."""

from __future__ import annotations

from pathlib import Path

from planner.dialect import DIALECT

# The catalog's SQLite file, attached to every connection under the schema name `catalog`.
ATTACH_CATALOG = "ATTACH DATABASE ? AS catalog"
# Durable across a killed process (every commit is in the WAL); a power cut may lose the last
# commits, never half of one.
SYNCHRONOUS = "PRAGMA catalog.synchronous = NORMAL"
WAL = "PRAGMA catalog.journal_mode = WAL"  # kept by the file from then on
DATA_VERSION = "PRAGMA catalog.data_version"
BEGIN, COMMIT, ROLLBACK = "BEGIN IMMEDIATE", "COMMIT", "ROLLBACK"

UTC = "SET TimeZone = 'UTC'"
# Where DuckDB spills and how much memory it may hold: the value bound (DuckDB binds a SET's
# value), so opening a home builds no statement (setting() loads sqlglot, 0.1 s of a command).
TEMP_DIRECTORY = "SET temp_directory = ?"
MEMORY_LIMIT = "SET memory_limit = ?"
# What running statements hold: hash tables, sorts, materialized rows. Not the cached blocks of
# snapshot files (BASE_TABLE, METADATA), which DuckDB lets go when it must.
MEMORY_USED = (
    "SELECT sum(memory_usage_bytes) FROM duckdb_memory() "
    "WHERE tag IN ('HASH_TABLE', 'ORDER_BY', 'COLUMN_DATA', 'OVERFLOW_STRINGS', 'ALLOCATOR')"
)


def setting(name: str, value: str) -> str:
    """DuckDB's `SET name = 'value'`, the value quoted by sqlglot."""
    from sqlglot import exp  # heavy: sqlglot, for a statement naming a file or a setting

    item = exp.SetItem(this=exp.EQ(this=exp.column(name), expression=exp.Literal.string(value)))
    return exp.Set(expressions=[item]).sql(dialect=DIALECT)


def attach(path: Path, name: str, read_only: bool = False, block_size: int | None = None) -> str:
    """ATTACH a DuckDB file under `name`: READ_ONLY for a sealed snapshot, with its block size
    for a new one; IF NOT EXISTS when read (another thread may have attached it meanwhile)."""
    from sqlglot import exp  # heavy: sqlglot, for a statement naming a file or a setting

    options = [exp.AttachOption(this=exp.var("READ_ONLY"))] if read_only else []
    if block_size is not None:
        options.append(exp.AttachOption(this=exp.var("BLOCK_SIZE"), expression=exp.Literal.number(block_size)))
    alias = exp.alias_(exp.Literal.string(str(path)), exp.to_identifier(name, quoted=True))
    return exp.Attach(this=alias, exists=read_only, expressions=options).sql(dialect=DIALECT)


def detach(name: str, exists: bool = True) -> str:
    """DETACH the database `name` (which checkpoints a file written through it)."""
    from sqlglot import exp  # heavy: sqlglot, for a statement naming a file or a setting

    return exp.Detach(this=exp.to_identifier(name, quoted=True), exists=exists).sql(dialect=DIALECT)


def every_row(database: str, table: str) -> str:
    """Every value of a table of an attached database (a read that meets every block)."""
    from sqlglot import exp  # heavy: sqlglot, for a statement naming a file or a setting

    return (
        exp.select(exp.Star()).from_(exp.table_(table, db="main", catalog=database, quoted=True)).sql(dialect=DIALECT)
    )
