"""The one SQL dialect tabular writes for its own engine. Every `dialect=` of a sqlglot call that
writes or parses DuckDB SQL names this constant; the ClickHouse backend has its own
(`tabular/backends/clickhouse.py`), and `targets.py` says what it differs in."""

DIALECT = "duckdb"
