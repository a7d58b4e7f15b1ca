"""What resolution gives: the plan's sources, references, filters, outputs and joins, typed and
checked (Resolved), the limits it was checked under, and the problems it found (PlanInvalid)."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any

from .operators import RExpr
from .schema import ColumnInfo, DatasetInfo


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
class RFilter:
    kind: str  # "leaf", "any", "all"
    ref: Ref | None = None
    op: str = ""
    values: list[Any] = field(default_factory=list)
    ignore_case: bool = False
    children: list[RFilter] = field(default_factory=list)
    output: Output | None = None  # having: the result column filtered
    other: Ref | None = None  # compared with another column instead of values
    other_output: Output | None = None  # having: compared with another result column
    path: str = ""  # where the plan writes it: its values' parameters are named by it (compile.py)

    def leaves(self):
        if self.kind == "leaf":
            yield self
        for c in self.children:
            yield from c.leaves()


@dataclass
class Output:
    name: str
    type: str
    kind: str  # "group", "aggregate", "column"
    ref: Ref | None = None
    bucket: str | None = None
    fn: str | None = None
    q: float | None = None
    where: list[RFilter] = field(default_factory=list)
    physical: str = "DOUBLE"
    path: str = ""  # where the plan asks for it (group_by[0], aggregates[1] …): errors point there
    shape: tuple[int, int] | None = None  # exact numbers: the most digits a value can have
    expr: RExpr | None = None  # a measure's expression over result columns
    window: Window | None = None


@dataclass
class Window:
    fn: str
    of: Output | None
    partition: list[str]
    order: list[tuple[str, bool]]


@dataclass
class Join:
    source: Source
    kind: str
    pairs: list[tuple[Ref, Ref]]  # the equalities
    conditions: list[tuple[Ref, str, Ref]] = field(default_factory=list)  # the others: (left, op, right)


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
    resolved: list[dict] = field(default_factory=list)
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
    casts: list[RExpr] = field(default_factory=list)  # row casts whose unreadable values the receipt counts
    rows: int = 0  # the most rows the result can have (a plan as a dataset: its row bound)
    # A nested plan that is a top N: it has order_by and says its limit (a limit it does not
    # say is no cut: 100 rows of a nested result would be a silent part of it).
    top: bool = False

    @property
    def measured(self) -> bool:
        return any(o.kind == "measure" for o in self.outputs)

    def read_sources(self, within: str = ""):
        """(where, source, plan) for every ingested dataset the plan reads, nested plans'
        included, in plan order; `where` is the path of the plan reading it ('' for this one)."""
        for s in self.sources:
            if s.plan is None:
                yield within, s, self
            else:
                yield from s.plan.read_sources(f"{within}{'.' if within else ''}datasets[{s.index}].plan")

    def filters(self):
        """Every filter leaf of this plan (not of the plans nested in it): where, after the
        joins, having, aggregates' where, and the `when`s of every expression."""
        roots = [f for fs in self.where.values() for f in fs] + self.after + self.having + self.qualify
        roots += [f for o in self.outputs for f in o.where]
        exprs = [ref.expr for ref in self.computed] + [o.expr for o in self.outputs if o.expr is not None]
        exprs += [o.ref.expr for o in self.outputs if o.ref is not None and o.ref.expr is not None]
        while exprs:
            node = exprs.pop()
            exprs.extend(node.args)
            for test, then in node.whens:
                roots.append(test)
                exprs.append(then)
        for root in roots:
            yield from root.leaves()

    def nested(self, within: str = ""):
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
