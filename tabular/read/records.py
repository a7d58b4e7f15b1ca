"""JSON (an array of objects), NDJSON and Parquet to extractions.

JSON numbers keep their text exactly as written (no float in between, NaN and Infinity too);
nested objects become `a.b` columns, arrays stay as JSON text with their numbers as written. A key
an object holds twice, or two fields that flatten to one name, keep the later value, said. Parquet is already typed: its string columns stay
strings, the rest are read back from their exact text by the same readings as CSV.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
from sqlglot import exp

from planner.dialect import DIALECT, duckdb_function

from .. import readings as C
from ..errors import IngestFailed
from ..jsonval import depth_over, iso_duration_sql
from ..models import Origin
from ..settings import Settings
from .extraction import PARQUET_OPTIONS, Extraction, cells_schema, int64_range

# How DuckDB writes a Parquet file's cells (COPY … TO … WITH (…)): compressed as our own writers do.
PARQUET_COPY = (("FORMAT", "parquet"), ("COMPRESSION", "lz4"))


class _Number(str):
    """A JSON number (or NaN, Infinity) as written: its text, never a float in between."""


def _flatten(obj: dict, prefix: str = "", clashes: set | None = None) -> dict[str, object]:
    """Nested objects as `a.b` fields; `clashes` gathers the names two fields of one record
    would both take ({"a.b": 1, "a": {"b": 2}}: the later is kept)."""
    out: dict[str, object] = {}
    for key, value in obj.items():
        name = f"{prefix}{key}"
        inner = _flatten(value, name + ".", clashes) if isinstance(value, dict) and value else {name: value}
        if clashes is not None:
            clashes.update(inner.keys() & out.keys())
        out.update(inner)
    return out


def _text(value) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, dict)):
        return _dumped(value)
    return str(value)


def _dumped(value) -> str:
    """A nested value as JSON text with its numbers as written ([1, 2.50], not ["1", "2.50"])."""
    if isinstance(value, _Number):
        return str(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k, ensure_ascii=False)}: {_dumped(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_dumped(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def _records_to_extraction(
    records: list, name: str, out: Path, fmt: str, settings: Settings, repeated: list[str]
) -> Extraction:
    """`repeated`: the keys an object of the file held more than once (the last value kept)."""
    if not all(isinstance(r, dict) for r in records):
        raise IngestFailed(
            "format_unavailable", f"{fmt} is read when it holds objects (one per row); this one holds other values"
        )
    clashes: set[str] = set()
    flat = [_flatten(r, "", clashes) for r in records]
    headers: dict[str, None] = {}
    for row in flat:
        headers.update(dict.fromkeys(row))
    names = list(headers)
    if len(names) > settings.max_columns:
        raise IngestFailed(
            "too_large", f"the records have {len(names)} fields; at most {settings.max_columns} are read (max_columns)"
        )
    columns = [pa.array([_text(row.get(n)) for row in flat], pa.string()) for n in names]
    ids = int64_range(1, len(flat))
    pq.write_table(pa.Table.from_arrays([ids, ids, *columns], schema=cells_schema(len(names))), out, **PARQUET_OPTIONS)
    extraction = Extraction(
        name,
        names,
        out,
        len(flat),
        Origin(format=fmt, header_rows=0, encoding="utf-8", parser="json"),
    )
    if repeated:
        shown = ", ".join(repr(k) for k in repeated[:5])
        extraction.notes.append(f"an object holds the key {shown} more than once: the last value of each is kept")
    if clashes:
        shown = ", ".join(repr(k) for k in sorted(clashes)[:5])
        extraction.notes.append(
            f"a field named with a dot and a nested field make the same column {shown}: the later one is kept"
        )
    return extraction


def read_json(path: Path, out: Path, name: str, fmt: str, settings: Settings) -> Extraction:
    """A JSON array of objects, or NDJSON (one object per line; `line` is the file line)."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise IngestFailed("encoding", f"{fmt} must be UTF-8") from None
    if not text.strip():
        raise IngestFailed("no_text", "the file is empty")
    repeated: dict[str, None] = {}

    def pairs(items: list[tuple[str, object]]) -> dict:
        """An object; a key it holds twice keeps its last value, as every JSON parser does, said."""
        found = dict(items)
        if len(found) != len(items):
            repeated.update(dict.fromkeys(k for k, n in Counter(k for k, _ in items).items() if n > 1))
        return found

    def parse(doc: str) -> Any:
        """Numbers as written; NaN and Infinity (which JSON does not have) too, never a silent null."""
        return json.loads(doc, parse_float=_Number, parse_int=_Number, parse_constant=_Number, object_pairs_hook=pairs)

    too_deep = IngestFailed(
        "too_large", f"the {fmt} nests deeper than {settings.max_json_depth} levels (max_json_depth)"
    )
    try:
        if fmt == "ndjson":
            records = [parse(line) for line in text.splitlines() if line.strip()]
        else:
            records = parse(text)
    except json.JSONDecodeError as err:
        raise IngestFailed("format_unavailable", f"the file is not valid {fmt}: {err}") from None
    except RecursionError:  # deeper than Python's parser goes
        raise too_deep from None
    if depth_over(records, settings.max_json_depth):
        raise too_deep
    if isinstance(records, dict):
        # {"rows": [...]}: the one list of objects inside an object.
        lists = [v for v in records.values() if isinstance(v, list)]
        records = lists[0] if len(lists) == 1 else [records]
    if not isinstance(records, list):
        raise IngestFailed("format_unavailable", f"{fmt} is read when it is an array of objects")
    return _records_to_extraction(records, name, out, fmt, settings, list(repeated))


def read_parquet(path: Path, out: Path, name: str, settings: Settings) -> Extraction:
    """A Parquet file: every column as its exact text; string columns stay strings."""
    try:
        schema = pq.read_schema(path)
    except (pa.ArrowInvalid, OSError) as err:
        raise IngestFailed("format_unavailable", f"the file is not readable Parquet: {err}") from None
    if len(schema.names) > settings.max_columns:
        raise IngestFailed(
            "too_large",
            f"the file has {len(schema.names)} columns; at most {settings.max_columns} are read (max_columns)",
        )
    con = duckdb.connect()
    try:
        source = exp.ReadParquet(
            expressions=[exp.Literal.string(str(path)), exp.EQ(this=exp.var("file_row_number"), expression=exp.true())]
        )
        row_number = exp.column("file_row_number")
        selects = [
            exp.alias_(exp.Add(this=row_number, expression=exp.Literal.number(1)), "__row_id"),
            exp.alias_(exp.Add(this=row_number, expression=exp.Literal.number(1)), "__line"),
        ]
        # Columns by position: DuckDB names a repeated name apart (x, x_1), and a select by the
        # file's own name would read the first `x` twice.
        describe = exp.Describe(this=exp.select("*").from_(source)).sql(dialect=DIALECT)
        described = [r[0] for r in con.execute(describe).fetchall()]
        for i, (field, known_as) in enumerate(zip(schema, described)):
            column = exp.column(known_as, quoted=True)
            if pa.types.is_duration(field.type):
                value = _iso_duration(column, field.type.unit)
            elif _nested(field.type):
                # DuckDB's to_json by name: sqlglot has no node for it (the one Anonymous here).
                value = duckdb_function("to_json", column)
            else:
                value = column
            selects.append(exp.alias_(exp.cast(value, "VARCHAR"), f"c{i + 1}"))
        query = exp.select(*selects).from_(source).order_by(row_number)
        params = [exp.CopyParameter(this=exp.var(k), expression=exp.var(v)) for k, v in PARQUET_COPY]
        copy = exp.Copy(this=exp.Subquery(this=query), kind=False, files=[exp.Literal.string(str(out))], params=params)
        con.execute(copy.sql(dialect=DIALECT))
        rows = pq.ParquetFile(out).metadata.num_rows
    except duckdb.Error as err:
        raise IngestFailed("format_unavailable", f"the Parquet file cannot be read: {err}") from None
    finally:
        con.close()
    extraction = Extraction(
        name,
        list(schema.names),
        out,
        rows,
        Origin(format="parquet", header_rows=0, parser="duckdb"),
    )
    extraction.forced = {
        f"c{i + 1}": C.STRING
        for i, f in enumerate(schema)
        if pa.types.is_string(f.type) or pa.types.is_large_string(f.type)
    }
    return extraction


_PER_MICROSECOND = {"s": 1_000_000, "ms": 1_000, "us": 1, "ns": 0.001}


def _iso_duration(column: exp.Expression, unit: str) -> exp.Expression:
    """A Parquet duration column as ISO 8601 text, where it was its bare count of ticks (30 hours
    stored as the number 108000000000); nanoseconds past the microsecond are dropped."""
    scale = _PER_MICROSECOND[unit]
    micros = (
        exp.Mul(this=column, expression=exp.Literal.number(scale))
        if scale >= 1
        else exp.IntDiv(this=column, expression=exp.Literal.number(int(1 / scale)))
    )
    return iso_duration_sql(micros)


def _nested(t: pa.DataType) -> bool:
    return pa.types.is_nested(t)
