"""The plan language of knowledge.query (SPEC §4) as pydantic models.

Field descriptions are written for the caller: they become the JSON schema an LLM reads as its
tool definition, and the MCP tool description.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Discriminator, Field, Tag, WithJsonSchema, model_validator

FilterOp = Literal[
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "between",
    "in",
    "not_in",
    "is_null",
    "not_null",
    "contains",
    "not_contains",
    "starts_with",
    "ends_with",
    "like",
    "not_like",
]
AggregateFn = Literal["count", "count_distinct", "sum", "avg", "min", "max", "median", "stddev", "var", "quantile"]
Bucket = Literal["year", "quarter", "month", "week", "day", "hour", "minute"]
LogicalType = Literal["string", "number", "bool", "date", "datetime", "time", "duration"]
JoinKind = Literal["inner", "left", "semi", "anti"]
WindowFn = Literal["rank", "dense_rank", "row_number", "sum", "avg", "min", "max", "count", "share", "running_sum"]


class PlanModel(BaseModel):
    # Validators are built on first use, not at import: a CLI command that never reads a plan
    # does not pay for building the plan language (issue 56).
    model_config = ConfigDict(extra="forbid", defer_build=True)


class QueryDataset(PlanModel):
    source_uri: str = Field(
        min_length=1,
        description="The source to read, as ingested (knowledge.ingest's source_uri); `source#dataset` names one of "
        "its datasets (a workbook's table by its name).",
    )
    dataset_id: str = Field("", description="Which table of the source; '' when the source has only one.")
    alias: str = Field(
        "", description="The name columns are qualified with (`alias.column`); defaults to the dataset_id."
    )
    snapshot_id: str = Field(
        "", description="Pin a snapshot; '' reads the live one. A pinned snapshot that no longer serves is 409."
    )


class QueryPlanDataset(PlanModel):
    """A plan's result read as a dataset: its result columns, by result name, joinable like any
    dataset's (a total, an average, a grouped result joined back to rows)."""

    plan: QueryPlan = Field(
        description="A plan of its own (it may nest 3 deep); its limit applies only with its order_by (top N).",
        examples=[
            {
                "datasets": [{"source_uri": "orders.csv"}],
                "group_by": [{"column": "customer"}],
                "aggregates": [{"fn": "sum", "column": "amount", "as": "total"}],
            }
        ],
    )
    alias: str = Field(min_length=1, description="The name its result columns are qualified with (`alias.column`).")


def _dataset_kind(v: Any) -> str:
    if isinstance(v, QueryPlanDataset) or (isinstance(v, dict) and "plan" in v):
        return "dataset:plan"
    return "dataset:source"


PlanDataset = Annotated[
    Annotated[QueryDataset, Tag("dataset:source")] | Annotated[QueryPlanDataset, Tag("dataset:plan")],
    Discriminator(
        _dataset_kind,
        custom_error_type="dataset",
        custom_error_message="a dataset: {source_uri, dataset_id?, alias?, snapshot_id?} or {plan, alias}",
    ),
]


class QueryFilter(PlanModel):
    """Either one condition (column, op, value/values/other) or a group: `any` (OR) or `all` (AND)."""

    column: str | None = Field(None, description="`alias.column`, or a bare column name that exactly one dataset has.")
    op: FilterOp | None = Field(
        None,
        description="eq ne lt le gt ge | between (values [lo, hi], inclusive) | in not_in (values) | is_null not_null | contains not_contains starts_with ends_with "
        "| like not_like (strings: % any run, _ one character, \\ escapes them).",
    )
    value: Any = Field(
        None,
        description="The value to compare with, read as the column's type (a date column takes '2024-03-01'; a number column 12.5 or '12.50').",
    )
    values: list[Any] | None = Field(None, description="For between ([lo, hi]) and in / not_in (at most 1,000).")
    other: str | None = Field(
        None,
        description="Instead of value: another column (or computed column; in having, a result column) compared with this one, "
        'e.g. {"column": "l_commitdate", "op": "lt", "other": "l_receiptdate"}. Their types must agree as join keys do.',
        examples=["l_receiptdate"],
    )
    ignore_case: bool = Field(False, description="Strings: compare without regard to case.")
    any: list[QueryFilter] | None = Field(None, description="At least one of these holds (they must read one dataset).")
    all: list[QueryFilter] | None = Field(None, description="All of these hold (they must read one dataset).")

    @model_validator(mode="after")
    def _one_shape(self) -> QueryFilter:
        shapes = [self.column is not None or self.op is not None, self.any is not None, self.all is not None]
        if sum(shapes) != 1:
            raise ValueError("a filter is either {column, op, value} or {any: [...]} or {all: [...]}")
        if shapes[0] and (self.column is None or self.op is None):
            raise ValueError("a filter needs both column and op")
        if self.other is not None and (self.value is not None or self.values is not None):
            raise ValueError("a filter compares with a value, values or another column (other): one of them")
        return self


JoinOp = Literal["eq", "ne", "lt", "le", "gt", "ge"]


class QueryOn(PlanModel):
    left: str = Field(description="A column of a dataset earlier in the plan.")
    right: str = Field(description="A column of the dataset being joined.")
    op: JoinOp = Field(
        "eq",
        description="left op right: eq (default) ne lt le gt ge; each join has at least one eq.",
        examples=["ne"],
    )


class QueryJoin(PlanModel):
    alias: str = Field(
        description="The dataset (by alias) this join brings in; every dataset after the first has exactly one join."
    )
    on: list[QueryOn] = Field(
        description="Conditions between its columns and columns of datasets before it, at least one an equality; "
        "[] only for a plan dataset that gives one row (aggregates, no group_by): its values beside every row.",
    )
    kind: JoinKind = Field(
        "inner",
        description="inner keeps matching rows only; left keeps every row of the datasets before it (the joined columns null where nothing "
        "matched); semi keeps the rows before it that have a match, each once; anti keeps those that have none. After semi or anti the "
        "joined dataset's columns cannot be read (it only decides which rows stay).",
    )


class QueryGroup(PlanModel):
    column: str = Field(description="A column to group by.")
    bucket: Bucket | None = Field(
        None, description="For dates and datetimes: group by year, quarter, month, week, day, hour or minute."
    )
    as_: str | None = Field(None, alias="as", description="The result column's name.")


class QueryAggregate(PlanModel):
    fn: AggregateFn = Field(
        description="count (column optional: rows), count_distinct, sum, avg, min, max, median, stddev, var, quantile."
    )
    column: str | None = Field(None, description="The column aggregated (count without one counts rows).")
    expr: Expr | None = Field(
        None,
        description='Instead of column: an expression computed per row and aggregated, e.g. {"mul": ["qty", "price"]}.',
    )
    q: float | None = Field(None, ge=0, le=1, description="quantile only: which one, in [0, 1].")
    where: list[QueryFilter] = Field(
        default_factory=list, description="Only rows passing these filters count toward this aggregate."
    )
    as_: str | None = Field(
        None, alias="as", description="The result column's name (default `<fn>_<column>`, `<fn>_expr`, or `count`)."
    )

    @model_validator(mode="after")
    def _column_or_expr(self) -> QueryAggregate:
        if self.column is not None and self.expr is not None:
            raise ValueError("an aggregate reads either a column or an expr, not both")
        return self


class QueryColumn(PlanModel):
    column: str = Field(description="A column to return.")
    as_: str | None = Field(None, alias="as", description="The result column's name.")


class QueryOrder(PlanModel):
    column: str = Field(description="A result column's name.")
    desc: bool = False


def _number(v: Any) -> Any:
    if isinstance(v, bool) or v is None:
        raise ValueError(f'{v!r} is not a number; any other literal is written {{"value": …}}')
    if isinstance(v, float) and not math.isfinite(v):
        raise ValueError("a number must be finite")
    if not isinstance(v, (int, float, Decimal)):
        raise ValueError("a number")
    return v  # kept as given: a JSON number's own text reaches the resolver (JsonNumber)


def _expr_kind(v: Any) -> str | None:
    if isinstance(v, str):
        return "expr:column"
    if isinstance(v, (bool, int, float, Decimal)) or v is None:
        return "expr:number"
    if isinstance(v, ExprValue) or (isinstance(v, dict) and "value" in v):
        return "expr:value"
    if isinstance(v, (dict, QueryExpr)):
        return "expr:op"
    return None


Expr = Annotated[
    Annotated[str, Tag("expr:column")]
    | Annotated[Any, AfterValidator(_number), Tag("expr:number"), WithJsonSchema({"type": "number"})]
    | Annotated["ExprValue", Tag("expr:value")]
    | Annotated["QueryExpr", Tag("expr:op")],
    Discriminator(
        _expr_kind,
        custom_error_type="expr",
        custom_error_message='an expression: a column name, a number, {"value": …} or {operator: [arguments]}',
    ),
]


class ExprValue(PlanModel):
    """A literal other than a plain number: `{"value": "2024-03-01", "type": "date"}`."""

    value: Any = Field(description="The value; null needs a type.")
    type: LogicalType | None = Field(
        None, description="Its type; default: string for text, bool for true/false, number for a number."
    )


class CaseWhen(PlanModel):
    when: QueryFilter = Field(
        description="A condition, as in where (columns: dataset or computed columns; in measures: result columns)."
    )
    then: Expr = Field(description="The value where it holds (the first that holds wins).")


# The operators of an expression, one key per expression node (`case` comes with `else`).
EXPR_OPERATORS = (
    "add",
    "sub",
    "mul",
    "div",
    "neg",
    "abs",
    "round",
    "floor",
    "ceil",
    "coalesce",
    "nullif",
    "case",
    "year",
    "quarter",
    "month",
    "day",
    "weekday",
    "hour",
    "date_diff",
    "date_add",
    "concat",
    "lower",
    "upper",
    "length",
    "substring",
    "cast",
)
Args = list[Expr] | Expr


class QueryExpr(PlanModel):
    """One operator and its arguments: `{"mul": ["qty", "price"]}`. A one-argument operator takes the
    argument alone or in a list (`{"year": "order_date"}`)."""

    add: list[Expr] | None = Field(
        None, description="Numbers: the sum of two or more. Exact for integers and decimals."
    )
    sub: list[Expr] | None = Field(None, description="Numbers: [a, b], a - b. Exact for integers and decimals.")
    mul: list[Expr] | None = Field(
        None, description="Numbers: the product of two or more; exact (scales add up; past 38 digits is 422)."
    )
    div: list[Expr] | None = Field(None, description="Numbers: [a, b], a / b as a DOUBLE; null where b is 0.")
    neg: Args | None = Field(None, description="A number negated.")
    abs: Args | None = Field(None, description="A number's absolute value.")
    round: list[Expr] | None = Field(
        None, description="[number, digits = 0]: rounded half away from zero to `digits` decimals (0 to 38)."
    )
    floor: Args | None = Field(None, description="A number rounded down to an integer.")
    ceil: Args | None = Field(None, description="A number rounded up to an integer.")
    coalesce: list[Expr] | None = Field(None, description="The first argument that is not null (all of one kind).")
    nullif: list[Expr] | None = Field(None, description="[a, b]: null where a equals b, else a.")
    case: list[CaseWhen] | None = Field(
        None, description="[{when, then}, …] with `else`: the `then` of the first `when` that holds."
    )
    else_: Expr | None = Field(
        None, alias="else", description="case only: the value where no `when` holds (default null)."
    )
    year: Args | None = Field(None, description="A date's or datetime's year (an integer).")
    quarter: Args | None = Field(None, description="Its quarter, 1 to 4.")
    month: Args | None = Field(None, description="Its month, 1 to 12.")
    day: Args | None = Field(None, description="Its day of the month, 1 to 31.")
    weekday: Args | None = Field(None, description="Its ISO weekday, 1 (Monday) to 7 (Sunday).")
    hour: Args | None = Field(None, description="A datetime's or time's hour, 0 to 23.")
    date_diff: list[Expr] | None = Field(
        None,
        description="[unit, from, to]: how many unit boundaries (year quarter month week day hour minute second) lie between; an integer.",
    )
    date_add: list[Expr] | None = Field(
        None,
        description='[date or datetime, duration]: the date moved on by the duration ({"value": "P30D", "type": "duration"}).',
    )
    concat: list[Expr] | None = Field(
        None, description="Strings joined, other values as their text; null if any is null."
    )
    lower: Args | None = Field(None, description="A string in lower case.")
    upper: Args | None = Field(None, description="A string in upper case.")
    length: Args | None = Field(None, description="A string's length in characters.")
    substring: list[Expr] | None = Field(None, description="[string, start (from 1), length?]: part of a string.")
    cast: list[Expr] | None = Field(
        None,
        description="[value, type]: read as another type (string number integer bool date datetime time duration, or decimal(p,s)); a value "
        "that cannot be read is null and counted in the receipt's warnings.",
    )

    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)

    @model_validator(mode="after")
    def _one_operator(self) -> QueryExpr:
        given = [name for name in EXPR_OPERATORS if getattr(self, name) is not None]
        if len(given) != 1:
            raise ValueError(
                f"an expression has exactly one operator ({' '.join(EXPR_OPERATORS)}); this one has {len(given) or 'none'}"
                + (f": {', '.join(given)}" if given else "")
            )
        if self.else_ is not None and given != ["case"]:
            raise ValueError("else belongs to case")
        return self

    @property
    def operator(self) -> str:
        return next(name for name in EXPR_OPERATORS if getattr(self, name) is not None)

    @property
    def args(self) -> list[Any]:
        value = getattr(self, self.operator)
        return value if isinstance(value, list) else [value]


class QueryCompute(PlanModel):
    as_: str = Field(
        alias="as",
        min_length=1,
        description="The computed column's name, readable wherever a column is (where, select, group_by, aggregates).",
    )
    expr: Expr = Field(
        description="Per row, after the joins: an expression over dataset columns and earlier computed ones."
    )


class QueryWindow(PlanModel):
    fn: WindowFn = Field(
        description="rank dense_rank row_number (by order_by) | sum avg min max count running_sum (of `of`) | share (`of` over its partition's total)."
    )
    of: str | None = Field(None, description="The result column it reads (sum avg min max count share running_sum).")
    partition_by: list[str] = Field(
        default_factory=list, description="Result columns: the window restarts for each of their values."
    )
    order_by: list[QueryOrder] = Field(
        default_factory=list,
        description="Result columns ordering the window (rank and dense_rank need it; "
        "row_number and running_sum without it follow the default order: the groups, or the rows as listed).",
    )


class QueryMeasure(PlanModel):
    as_: str = Field(alias="as", min_length=1, description="The measure's result column name.")
    expr: Expr | None = Field(
        None, description='An expression over result columns (e.g. {"div": ["profit", "revenue"]}).'
    )
    window: QueryWindow | None = Field(None, description="A window over the result rows (ranks, running sums, shares).")

    @model_validator(mode="after")
    def _expr_or_window(self) -> QueryMeasure:
        if (self.expr is None) == (self.window is None):
            raise ValueError("a measure is either {as, expr} or {as, window}")
        return self


class QueryPlan(PlanModel):
    """A typed query over ingested datasets: no SQL, no value ever spliced into SQL."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)
    datasets: list[PlanDataset] = Field(
        min_length=1,
        description="The datasets read, in order; each after the first needs one join. A dataset is an ingested one "
        '({source_uri, …}) or a plan\'s result ({"plan": {…}, "alias": "totals"}).',
    )
    where: list[QueryFilter] = Field(
        default_factory=list,
        description="Row filters, applied inside each dataset before any join (on a computed column "
        "that reads several datasets: after the joins).",
    )
    joins: list[QueryJoin] = Field(default_factory=list)
    compute: list[QueryCompute] = Field(
        default_factory=list, description="Computed columns, per row, after the joins: [{as, expr}]."
    )
    group_by: list[QueryGroup] = Field(default_factory=list)
    aggregates: list[QueryAggregate] = Field(default_factory=list)
    measures: list[QueryMeasure] = Field(
        default_factory=list,
        description="Per result row, after groups and aggregates: expressions and windows over result columns.",
    )
    having: list[QueryFilter] = Field(
        default_factory=list,
        description="Filters on result columns (aggregates and measures included), by result name; one that "
        "names a measure applies after the measures.",
    )
    select: list[QueryColumn] = Field(
        default_factory=list, description="Without aggregates: the columns to return (default: all)."
    )
    order_by: list[QueryOrder] = Field(
        default_factory=list, description="Default: groups ascending, or rows in source order."
    )
    limit: int = Field(100, ge=0, description="Rows returned (at most 10,000).")
    offset: int = Field(
        0, ge=0, le=2**63 - 1, description="Rows skipped before the first returned (with order_by, for paging)."
    )
    dry_run: bool = Field(False, description="Validate and compile only: the receipt, no rows.")
    whole_order: Literal["engine", "stable"] = Field(
        "engine",
        description="The order of a whole result (query_export, to_arrow(whole=True), export) whose plan has no "
        "order_by: 'engine' streams rows as the engine makes them (memory flat in the result; one dataset's rows "
        "still come in source order); 'stable' gives the answer's default order (groups ascending, or rows in "
        "source order), which sorts the whole result before its first row: memory grows with the result (measured: a "
        "self-join of 36 M rows took 884 MiB more, where the engine's order took 60 MiB at most; DuckDB spills past "
        "duckdb_memory). An answer's rows always take the default order.",
    )
