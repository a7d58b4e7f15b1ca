"""The plan language of knowledge.query (SPEC §4) as pydantic models.

Field descriptions are written for the caller: they become the JSON schema an LLM reads as its
tool definition, and the MCP tool description.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

FilterOp = Literal[
    "eq", "ne", "lt", "le", "gt", "ge", "between", "in", "not_in",
    "is_null", "not_null", "contains", "not_contains", "starts_with", "ends_with",
]
AggregateFn = Literal["count", "count_distinct", "sum", "avg", "min", "max", "median", "stddev", "var", "quantile"]
Bucket = Literal["year", "quarter", "month", "week", "day", "hour", "minute"]


class PlanModel(BaseModel):
    model_config = ConfigDict(extra="forbid")


class QueryDataset(PlanModel):
    source_uri: str = Field(min_length=1, description="The source to read, as ingested (knowledge.ingest's source_uri).")
    dataset_id: str = Field("", description="Which table of the source; '' when the source has only one.")
    alias: str = Field("", description="The name columns are qualified with (`alias.column`); defaults to the dataset_id.")
    snapshot_id: str = Field("", description="Pin a snapshot; '' reads the live one. A pinned snapshot that no longer serves is 409.")


class QueryFilter(PlanModel):
    """Either one condition (column, op, value/values) or a group: `any` (OR) or `all` (AND)."""

    column: str | None = Field(None, description="`alias.column`, or a bare column name that exactly one dataset has.")
    op: FilterOp | None = Field(None, description="eq ne lt le gt ge | between (values [lo, hi], inclusive) | in not_in (values) | is_null not_null | contains not_contains starts_with ends_with (strings).")
    value: Any = Field(None, description="The value to compare with, read as the column's type (a date column takes '2024-03-01'; a number column 12.5 or '12.50').")
    values: list[Any] | None = Field(None, description="For between ([lo, hi]) and in / not_in (at most 1,000).")
    ignore_case: bool = Field(False, description="Strings: compare without regard to case.")
    any: list[QueryFilter] | None = Field(None, description="At least one of these holds (they must read one dataset).")
    all: list[QueryFilter] | None = Field(None, description="All of these hold (they must read one dataset).")

    @model_validator(mode="after")
    def _one_shape(self) -> "QueryFilter":
        shapes = [self.column is not None or self.op is not None, self.any is not None, self.all is not None]
        if sum(shapes) != 1:
            raise ValueError("a filter is either {column, op, value} or {any: [...]} or {all: [...]}")
        if shapes[0] and (self.column is None or self.op is None):
            raise ValueError("a filter needs both column and op")
        return self


class QueryOn(PlanModel):
    left: str = Field(description="A column of a dataset earlier in the plan.")
    right: str = Field(description="A column of the dataset being joined.")


class QueryJoin(PlanModel):
    alias: str = Field(description="The dataset (by alias) this join brings in; every dataset after the first has exactly one join.")
    on: list[QueryOn] = Field(min_length=1, description="Equalities between its columns and columns of datasets before it.")
    kind: Literal["inner", "left", "semi", "anti"] = Field(
        "inner",
        description="inner keeps matching rows only; left keeps every row of the datasets before it (the joined columns null where nothing "
        "matched); semi keeps the rows before it that have a match, each once; anti keeps those that have none. After semi or anti the "
        "joined dataset's columns cannot be read (it only decides which rows stay).",
    )


class QueryGroup(PlanModel):
    column: str = Field(description="A column to group by.")
    bucket: Bucket | None = Field(None, description="For dates and datetimes: group by year, quarter, month, week, day, hour or minute.")
    as_: str | None = Field(None, alias="as", description="The result column's name.")


class QueryAggregate(PlanModel):
    fn: AggregateFn = Field(description="count (column optional: rows), count_distinct, sum, avg, min, max, median, stddev, var, quantile.")
    column: str | None = Field(None, description="The column aggregated (count without one counts rows).")
    q: float | None = Field(None, ge=0, le=1, description="quantile only: which one, in [0, 1].")
    where: list[QueryFilter] = Field(default_factory=list, description="Only rows passing these filters count toward this aggregate.")
    as_: str | None = Field(None, alias="as", description="The result column's name (default `<fn>_<column>`, or `count`).")


class QueryColumn(PlanModel):
    column: str = Field(description="A column to return.")
    as_: str | None = Field(None, alias="as", description="The result column's name.")


class QueryOrder(PlanModel):
    column: str = Field(description="A result column's name.")
    desc: bool = False


class QueryPlan(PlanModel):
    """A typed query over ingested datasets: no SQL, no value ever spliced into SQL."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    datasets: list[QueryDataset] = Field(min_length=1, description="The datasets read, in order; each after the first needs one join.")
    where: list[QueryFilter] = Field(default_factory=list, description="Row filters, applied inside each dataset before any join.")
    joins: list[QueryJoin] = Field(default_factory=list)
    group_by: list[QueryGroup] = Field(default_factory=list)
    aggregates: list[QueryAggregate] = Field(default_factory=list)
    having: list[QueryFilter] = Field(default_factory=list, description="Filters on result columns (aggregates included), by result name.")
    select: list[QueryColumn] = Field(default_factory=list, description="Without aggregates: the columns to return (default: all).")
    order_by: list[QueryOrder] = Field(default_factory=list, description="Default: groups ascending, or rows in source order.")
    limit: int = Field(100, ge=0, description="Rows returned (at most 10,000).")
    offset: int = Field(0, ge=0, le=2**63 - 1, description="Rows skipped before the first returned (with order_by, for paging).")
    dry_run: bool = Field(False, description="Validate and compile only: the receipt, no rows.")
