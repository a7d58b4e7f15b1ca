"""The one SQL dialect tabular writes for its own engine. Every `dialect=` of a sqlglot call that
writes or parses DuckDB SQL names this constant; the ClickHouse backend has its own
(`tabular/backends/clickhouse.py`), and `targets.py` says what it differs in."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # named in annotations only: sqlglot loads when a statement is built
    from sqlglot import exp

DIALECT = "duckdb"


def duckdb_function(name: str, *args: exp.Expression) -> exp.Anonymous:
    """A DuckDB function sqlglot has no node for, or whose node sqlglot writes back differently
    (error, datepart of a list of parts, regexp_full_match, try_strptime, to_json, regexp_extract
    with its group), called by its DuckDB name. Only for SQL that runs in tabular's own DuckDB and
    is never transpiled: each caller says why it has no node. The one exp.Anonymous of DuckDB's
    SQL (planner/builders.clickhouse_fn is ClickHouse's)."""
    from sqlglot import exp  # heavy: sqlglot; this module is read by modules that write no SQL

    return exp.Anonymous(this=name, expressions=list(args))
