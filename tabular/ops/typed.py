"""An answer's JSON values (SPEC §3) read back as Python values and exact Arrow arrays: what
QueryOut.typed_rows, records and to_arrow give (ops/query.py)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

from planner.values import read_duration

_NOT_FINITE = {"inf", "+inf", "-inf", "infinity", "+infinity", "-infinity", "nan", "+nan", "-nan"}
_READ = {"date": dt.date.fromisoformat, "datetime": dt.datetime.fromisoformat, "time": dt.time.fromisoformat}


def typed(values: list[Any], type_: str) -> tuple[list[Any], str]:
    """One result column's JSON values (SPEC §3) as Python values, and the kind of column they
    make: "int", "decimal", "float", "text" (numbers that would not read), or the logical type.
    The column decides, not the value: in a decimal column an integer is a Decimal too; in a
    floating-point one ("inf", "nan" come as text) every number is a float."""
    if type_ == "number":
        return _numbers(values)
    try:
        if type_ in _READ:
            read = _READ[type_]
            return [None if v is None else read(v) if isinstance(v, str) else v for v in values], type_
        if type_ == "duration":
            return [None if v is None else read_duration(v) if isinstance(v, str) else v for v in values], type_
    except ValueError:  # a value Python cannot hold (year 0, a month in a duration …): the text as it came
        return list(values), "text"
    return list(values), type_


def _numbers(values: list[Any]) -> tuple[list[Any], str]:
    read: list[Any] = []
    kinds = set()
    for v in values:
        if v is None:
            read.append(None)
        elif isinstance(v, float) or isinstance(v, str) and v.strip().lower() in _NOT_FINITE:
            read.append(float(v))
            kinds.add("float")
        elif isinstance(v, int) and not isinstance(v, bool):
            read.append(v)
            kinds.add("int")
        elif isinstance(v, str) and "." in v:
            try:
                read.append(Decimal(v))
            except ArithmeticError:
                return list(values), "text"
            kinds.add("decimal")
        else:
            try:
                read.append(int(v))  # an integer past 2^53, as text
            except (TypeError, ValueError):
                return list(values), "text"
            kinds.add("int")
    if "float" in kinds:
        return [None if v is None else float(v) for v in read], "float"
    if "decimal" in kinds:
        return [None if v is None else Decimal(v) for v in read], "decimal"
    return read, "int" if kinds else "null"


def arrow_array(values: list[Any], kind: str, as_json: list[Any]):
    """An Arrow array of one typed column: decimals as decimal128(38, the values' largest
    scale), integers as int64 (decimal128(38, 0) past it), the rest by their logical type; a
    column no exact type holds (past 38 digits) as its JSON text."""
    import pyarrow as pa

    types = {
        "string": pa.string(),
        "bool": pa.bool_(),
        "date": pa.date32(),
        "time": pa.time64("us"),
        "duration": pa.duration("us"),
        "float": pa.float64(),
        "null": pa.null(),
    }
    present = [v for v in values if v is not None]
    if kind == "int":
        if all(-(2**63) <= v < 2**63 for v in present):
            return pa.array(values, pa.int64())
        values, kind = [None if v is None else Decimal(v) for v in values], "decimal"
        present = [v for v in values if v is not None]
    if kind == "decimal":
        scale = max((max(0, -v.as_tuple().exponent) for v in present), default=0)
        whole_digits = max((v.adjusted() + 1 for v in present if v), default=1)
        if whole_digits + scale <= 38:
            return pa.array(values, pa.decimal128(38, scale))
        return pa.array([None if v is None else str(v) for v in as_json], pa.string())
    if kind == "datetime" and not present:
        return pa.array(values, pa.timestamp("us"))
    if kind != "text":
        try:
            return pa.array(values, types.get(kind))
        except (pa.ArrowException, TypeError, ValueError):  # datetimes with and without offsets …
            pass
    return pa.array([None if v is None else str(v) for v in as_json], pa.string())
