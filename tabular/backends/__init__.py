"""Where plans run besides the catalog's DuckDB: ClickHouse (chdb)."""
