"""What resolution gives: the plan's sources, references, filters, outputs and joins, typed and
checked (Resolved), the limits it was checked under, and the problems it found (PlanInvalid)."""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, cast

from .models import AggregateFn, JoinKind, WindowFn
from .schema import ColumnInfo, DatasetInfo

Shape = tuple[int, int]  # (precision, scale) of an exact number: the most digits a value can have


@dataclass(frozen=True)
class Problem:
    path: str
    message: str
    expected: str | None = None
    received: Any = None
    did_you_mean: list[str] | None = None
    over_limit: bool = False  # a plan limit of SPEC §5 (TOO_LARGE when it is the only kind)


class PlanInvalid(Exception):
    def __init__(self, problems: list[Problem]):
        super().__init__(f"{len(problems)} problem(s) with the plan")
        self.problems = problems


ROW_ID = "__row_id"  # every snapshot's hidden column: the order rows were read in
# The operators that compare a column with another (`other`); the rest take values.
OTHER_OPS = ("eq", "ne", "lt", "le", "gt", "ge")


@dataclass(frozen=True)
class Limits:
    datasets: int = 16  # ingested datasets read, nested plans' counted
    filters: int = 100
    in_values: int = 1_000
    rows: int = 10_000
    computed: int = 500  # computed columns per plan
    computed_depth: int = 32  # computed columns reading computed columns, this many deep at most
    # Nodes of one expression as written into SQL: a computed column another reads by name
    # counts once, one written out where it is read (see Ref.placed) counts its whole size.
    expression_nodes: int = 10_000
    nesting: int = 3  # plans as datasets inside plans, this many deep at most


@dataclass
class Source:
    index: int
    alias: str
    info: DatasetInfo
    plan: Resolved | None = None  # a plan as a dataset: its result (info.columns are its result columns)
    pinned: str = ""  # the snapshot the plan names ('' reads the live one)


@dataclass(kw_only=True)
class ExprNode:
    """What every node of a typed expression has: its logical and DuckDB types, the most digits
    an exact value of it can have (`shape`), and where the plan writes it (errors point there)."""

    type: str
    physical: str
    shape: Shape | None = None
    path: str = ""

    def walk(self) -> Iterator[RExpr]:
        """This node and every node below it."""
        yield cast("RExpr", self)  # every node is one of RExpr's kinds
        for child in self.children():
            yield from child.walk()

    def children(self) -> list[RExpr]:
        return []


@dataclass(kw_only=True)
class ColumnNode(ExprNode):
    """A dataset column, or a computed column read by name (`ref.expr` set)."""

    ref: Ref
    op: ClassVar[str] = "column"


@dataclass(kw_only=True)
class OutputNode(ExprNode):
    """A result column, by name (in measures)."""

    name: str
    op: ClassVar[str] = "output"


@dataclass(kw_only=True)
class LiteralNode(ExprNode):
    """A value of the plan, bound as a parameter (or a word an operator writes itself: a unit, a type)."""

    value: Any
    op: ClassVar[str] = "literal"


@dataclass(kw_only=True)
class NullNode(ExprNode):
    """A null of a given type."""

    op: ClassVar[str] = "null"


@dataclass(kw_only=True)
class Operation(ExprNode):
    """An operator of the table (operators.py) over its arguments."""

    op: str
    args: list[RExpr] = field(default_factory=list)
    word: str = ""  # date_diff's unit

    def children(self) -> list[RExpr]:
        return list(self.args)


@dataclass(kw_only=True)
class CaseNode(ExprNode):
    """The `then` of the first `when` that holds, else `otherwise` (null without one)."""

    whens: list[tuple[RFilter, RExpr]]
    otherwise: RExpr | None = None
    op: ClassVar[str] = "case"

    def children(self) -> list[RExpr]:
        return [then for _, then in self.whens] + ([self.otherwise] if self.otherwise is not None else [])


RExpr = ColumnNode | OutputNode | LiteralNode | NullNode | Operation | CaseNode


@dataclass(frozen=True)
class Ref:
    """A dataset column, or a computed column (`expr` set; `alias` the one dataset it reads, or
    '' when it reads several or none: a filter on it then applies after the joins)."""

    alias: str
    column: ColumnInfo
    expr: RExpr | None = None
    reads: frozenset[str] = frozenset()  # computed: the datasets it reads
    # computed: a column of its dataset's rows (compile.py computes it there once, and every
    # expression reads it by name), where that dataset's rows are never null-extended by a
    # left join; else it is written out where it is read, its size bounded (Limits).
    placed: bool = False


@dataclass
class FilterLeaf:
    """One condition: a column (`ref`, or in having a result column, `output`) compared with
    values, or with another column (`other` / `other_output`)."""

    ref: Ref | None
    op: str
    values: list[Any] = field(default_factory=list)
    ignore_case: bool = False
    output: Output | None = None  # having: the result column filtered
    other: Ref | None = None  # compared with another column instead of values
    other_output: Output | None = None  # having: compared with another result column
    path: str = ""  # where the plan writes it: its values' parameters are named by it (compile.py)
    kind: ClassVar[str] = "leaf"

    def leaves(self) -> Iterator[FilterLeaf]:
        yield self


@dataclass
class FilterGroup:
    """Conditions of which any (or all) must hold."""

    kind: Literal["any", "all"]
    children: list[RFilter]

    def leaves(self) -> Iterator[FilterLeaf]:
        for c in self.children:
            yield from c.leaves()


RFilter = FilterLeaf | FilterGroup


@dataclass(kw_only=True)
class OutputColumn:
    """A result column: its name, its type (logical and DuckDB's), the most digits its exact
    values can have, and where the plan asks for it (group_by[0], aggregates[1] …: errors point there)."""

    name: str
    type: str
    physical: str = "DOUBLE"
    path: str = ""
    shape: Shape | None = None


@dataclass(kw_only=True)
class GroupOutput(OutputColumn):
    """A column the rows are grouped by, in a date `bucket` or as it is."""

    ref: Ref
    bucket: str | None = None
    kind: ClassVar[str] = "group"


@dataclass(kw_only=True)
class AggregateOutput(OutputColumn):
    """An aggregate of a column or an expression (`ref`; None: a count of rows), over the rows
    its own `where` keeps."""

    fn: AggregateFn
    ref: Ref | None = None
    q: float | None = None
    where: list[RFilter] = field(default_factory=list)
    kind: ClassVar[str] = "aggregate"


@dataclass(kw_only=True)
class RowOutput(OutputColumn):
    """A column of the rows (without aggregates): a dataset's, or a computed one."""

    ref: Ref
    kind: ClassVar[str] = "column"


@dataclass(kw_only=True)
class MeasureOutput(OutputColumn):
    """A measure over the result rows: an expression over result columns, or a window."""

    expr: RExpr | None = None
    window: Window | None = None
    kind: ClassVar[str] = "measure"


Output = GroupOutput | AggregateOutput | RowOutput | MeasureOutput


@dataclass
class Window:
    fn: WindowFn
    of: Output | None
    partition: list[str]
    order: list[tuple[str, bool]]


@dataclass
class Join:
    source: Source
    kind: JoinKind
    pairs: list[tuple[Ref, Ref]]  # the equalities
    conditions: Sequence[tuple[Ref, str, Ref]] = field(default_factory=list)  # the others: (left, op, right)


@dataclass
class Resolved:
    sources: list[Source]
    where: dict[str, list[RFilter]]
    joins: list[Join]
    outputs: list[Output]
    having: list[RFilter]
    order: list[tuple[str, bool]]
    limit: int
    offset: int
    aggregated: bool
    resolved: list[dict[str, str]] = field(default_factory=list)  # how each name was found (the receipt's)
    warnings: list[str] = field(default_factory=list)
    read: dict[str, set[str]] = field(default_factory=dict)
    after: list[RFilter] = field(
        default_factory=list
    )  # where on computed columns reading several datasets: after the joins
    qualify: list[RFilter] = field(default_factory=list)  # having that names a measure: after the measures
    computed: list[Ref] = field(default_factory=list)
    # Nodes the computed columns written out where they are read may take in all (compile.py
    # counts them as it writes: one read many times is written many times).
    written_budget: int = Limits.expression_nodes
    casts: list[Operation] = field(default_factory=list)  # row casts whose unreadable values the receipt counts
    rows: int = 0  # the most rows the result can have (a plan as a dataset: its row bound)
    # A nested plan that is a top N: it has order_by and says its limit (a limit it does not
    # say is no cut: 100 rows of a nested result would be a silent part of it).
    top: bool = False

    @property
    def measured(self) -> bool:
        return any(isinstance(o, MeasureOutput) for o in self.outputs)

    def read_sources(self, within: str = "") -> Iterator[tuple[str, Source, Resolved]]:
        """(where, source, plan) for every ingested dataset the plan reads, nested plans'
        included, in plan order; `where` is the path of the plan reading it ('' for this one)."""
        for s in self.sources:
            if s.plan is None:
                yield within, s, self
            else:
                yield from s.plan.read_sources(f"{within}{'.' if within else ''}datasets[{s.index}].plan")

    def filters(self) -> Iterator[FilterLeaf]:
        """Every filter leaf of this plan (not of the plans nested in it): where, after the
        joins, having, aggregates' where, and the `when`s of every expression."""
        roots = [f for fs in self.where.values() for f in fs] + self.after + self.having + self.qualify
        roots += [f for o in self.outputs if isinstance(o, AggregateOutput) for f in o.where]
        exprs = [ref.expr for ref in self.computed if ref.expr is not None]
        exprs += [o.expr for o in self.outputs if isinstance(o, MeasureOutput) and o.expr is not None]
        exprs += [
            o.ref.expr
            for o in self.outputs
            if not isinstance(o, MeasureOutput) and o.ref is not None and o.ref.expr is not None
        ]
        for node in (n for e in exprs for n in e.walk()):
            if isinstance(node, CaseNode):
                roots += [test for test, _ in node.whens]
        for root in roots:
            yield from root.leaves()

    def nested(self, within: str = "") -> Iterator[tuple[str, Resolved]]:
        """(path, plan) for every plan nested in this one as a dataset, at any depth."""
        for s in self.sources:
            if s.plan is not None:
                at = f"{within}{'.' if within else ''}datasets[{s.index}].plan"
                yield at, s.plan
                yield from s.plan.nested(at)


def close(name: str, candidates: list[str]) -> list[str]:
    """Up to three names nearest to `name`: the best match and those nearly as close."""
    lowered = {c.lower(): c for c in candidates}
    scored = sorted(((difflib.SequenceMatcher(None, name.lower(), c).ratio(), c) for c in lowered), reverse=True)
    if not scored or scored[0][0] < 0.5:
        return []
    best = scored[0][0]
    return [lowered[c] for score, c in scored[:3] if score >= max(0.5, best - 0.1)]
