"""Small schemas written by hand for the tests of the built-in reading (a module, not a conftest:
tests import `conftest` by name), and the reading of a task against them."""

from __future__ import annotations

from dataclasses import replace

from tabular.synthesize.reading import read
from tabular.synthesize.schemas import ColumnSchema, DatasetSchema
from tabular.synthesize.spans import spans_of
from tabular.synthesize.text_match import tokens as text_tokens
from tabular.synthesize.vocabulary import light_verbs


def col(name, type_="string", unique=False, distinct=10, lo=None, hi=None, values=()):
    physical = {"string": "VARCHAR", "number": "BIGINT", "bool": "BOOLEAN"}.get(type_, "DATE")
    return ColumnSchema("t", name, type_, physical, unique, distinct, lo, hi, tuple(values))


def table(*columns, alias="t", rows=10, totals=()):
    columns = tuple(replace(c, alias=alias) for c in columns)
    return DatasetSchema(alias, f"{alias}.csv", alias, "s1", rows, columns, tuple(totals))


# A medal table: one row per nation, the nations' names among its values.
MEDALS = table(
    col("Rank", "number", unique=True, lo=1, hi=5),
    col("Nation", unique=True, distinct=5, values=("Norway", "Finland", "Canada (CAN)", "Peru", "Chile")),
    col("Gold", "number", lo=0, hi=9),
    col("Silver", "number", lo=0, hi=9),
    col("Bronze", "number", lo=0, hi=9),
    col("Total", "number", lo=0, hi=27),
)
# Sales by day, with a date column and a text column of regions.
SALES = table(
    col("order_date", "date"),
    col("region", distinct=3, values=("North", "South", "East")),
    col("amount", "number", lo=1, hi=500),
    col("units", "number", lo=1, hi=20),
    col("price", "number", lo=1, hi=50),
    alias="sales",
)


def reading(task: str, *schemas: DatasetSchema):
    """The TaskReading of a task read against these schemas, and the words left unplaced."""
    schemas = list(schemas) or [MEDALS]
    tokens, _ = text_tokens(task)
    return read(tokens, spans_of(tokens, schemas), light_verbs(schemas))
