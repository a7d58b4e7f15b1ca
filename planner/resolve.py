"""A plan checked against the datasets' schemas: every name resolved, every value read as its
column's type, every rule of SPEC §4 applied; all errors gathered at once, each with its path."""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from .expressions import ExprResolving, column_node, digits_bound, output_node
from .functions import AGGREGATES, BUCKET_TYPES, FILTERS, decimal_median
from .models import QueryFilter, QueryPlan, QueryPlanDataset
from .operators import RExpr, shape_of
from .schema import ColumnInfo, DatasetInfo
from .targets import DUCKDB, Target
from .values import Unreadable, fit, read_value

# How a number is brought to an exact column's scale, per operator (between: low, high).
_ROUNDING = {
    "eq": ("never", "never"),
    "ne": ("never", "never"),
    "in": ("never", "never"),
    "not_in": ("never", "never"),
    "lt": ("up", "up"),
    "ge": ("up", "up"),
    "le": ("down", "down"),
    "gt": ("down", "down"),
    "between": ("up", "down"),
    "is_null": ("never", "never"),
    "not_null": ("never", "never"),
}


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


class _Resolver(ExprResolving):
    def __init__(
        self,
        plan: QueryPlan,
        found: list[list[DatasetInfo]],
        sources_known: list[str],
        limits: Limits,
        target: Target = DUCKDB,
        depth: int = 0,
    ):
        self.plan, self.found, self.known, self.limits = plan, found, sources_known, limits
        self.target = target
        self.depth = depth  # 0: the plan asked; 1 …: a plan as a dataset inside it
        self.problems: list[Problem] = []
        self.sources: list[Source] = []
        self.resolved_log: list[dict] = []
        self.read: dict[str, set[str]] = {}
        # Datasets joined semi or anti: they decide which rows stay, and their columns cannot be read.
        self.deciders: dict[str, str] = {}
        self.computed: dict[str, Ref] = {}
        self.unresolved: set[str] = set()  # computed columns with problems of their own: not reported again where read
        self.aggregated_exprs: list[Ref] = []  # aggregates over an `expr`

    def fail(
        self,
        path: str,
        message: str,
        expected: str | None = None,
        received: Any = None,
        did_you_mean: list[str] | None = None,
    ) -> None:
        self.problems.append(Problem(path, message, expected, received, did_you_mean or None))

    def not_among(self, path: str, message: str, name: str, names: list[str]) -> None:
        """A name that is none of `names`: each of them expected, the close ones offered."""
        self.fail(path, message, expected=" | ".join(names), received=name, did_you_mean=close(name, names))

    def over(self, path: str, message: str, limit: int, received: int) -> None:
        self.problems.append(Problem(path, message, f"≤ {limit}", received, over_limit=True))

    # datasets ------------------------------------------------------------------------------
    def datasets(self) -> None:
        if len(self.plan.datasets) > self.limits.datasets:
            self.over(
                "datasets",
                f"at most {self.limits.datasets} datasets per plan",
                self.limits.datasets,
                len(self.plan.datasets),
            )
        aliases: set[str] = set()
        for i, (wanted, candidates) in enumerate(zip(self.plan.datasets, self.found)):
            path = f"datasets[{i}]"
            if isinstance(wanted, QueryPlanDataset):
                source = self.nested(i, wanted, candidates)
                if source is not None and self.alias_free(path, wanted.alias, aliases):
                    self.sources.append(source)
                continue
            if not candidates:
                self.fail(
                    f"{path}.source_uri",
                    f"no source {wanted.source_uri!r} in this namespace",
                    received=wanted.source_uri,
                    did_you_mean=close(wanted.source_uri, self.known),
                )
                continue
            ids = [d.dataset_id for d in candidates]
            if wanted.dataset_id:
                info = next((d for d in candidates if d.dataset_id == wanted.dataset_id), None)
                if info is None:
                    self.not_among(
                        f"{path}.dataset_id",
                        f"source {wanted.source_uri!r} has no dataset {wanted.dataset_id!r}",
                        wanted.dataset_id,
                        ids,
                    )
                    continue
            elif len(candidates) > 1:
                self.fail(
                    f"{path}.dataset_id",
                    f"source {wanted.source_uri!r} has {len(candidates)} datasets: name one",
                    expected=" | ".join(ids),
                )
                continue
            else:
                info = candidates[0]
            alias = wanted.alias or info.dataset_id
            if self.alias_free(path, alias, aliases, given=bool(wanted.alias)):
                self.sources.append(Source(i, alias, info, pinned=wanted.snapshot_id))

    def alias_free(self, path: str, alias: str, aliases: set[str], given: bool = True) -> bool:
        """Whether `alias` may name a dataset of this plan (no dot, not taken); taken if so."""
        if given and "." in alias:
            # A column is named `alias.column`: an alias with a dot could never be read.
            self.fail(
                f"{path}.alias",
                f"alias {alias!r} has a dot; columns are named alias.column, so an alias holds none",
                expected="a name without '.'",
                received=alias,
            )
            return False
        if alias.lower() in aliases:
            # SQL names ignore case, so `a` and `A` would be one table to the engine.
            self.fail(
                f"{path}.alias",
                f"alias {alias!r} is used twice (aliases ignore case); give each dataset its own",
                received=alias,
            )
            return False
        aliases.add(alias.lower())
        return True

    def nested(self, i: int, wanted: QueryPlanDataset, found: list) -> Source | None:
        """A plan as a dataset: resolved as a plan of its own (its problems at paths inside it),
        its result columns the dataset's columns, with their types and exact shapes."""
        path = f"datasets[{i}].plan"
        if self.depth + 1 > self.limits.nesting:
            self.over(path, f"plans nest at most {self.limits.nesting} deep", self.limits.nesting, self.depth + 1)
            return None
        inner = wanted.plan
        given = inner.model_fields_set
        for key in ("limit", "offset"):
            if key in given and not inner.order_by:
                self.fail(
                    f"{path}.{key}",
                    f"a nested plan's {key} applies only with its order_by (the top N); without one every row is read",
                    expected="order_by beside it, or no limit",
                    received=getattr(inner, key),
                )
        if inner.dry_run:
            self.fail(f"{path}.dry_run", "dry_run belongs to the outer plan", received=True)
        try:
            sub = resolve(inner, found, self.known, self.limits, self.target, depth=self.depth + 1)
        except PlanInvalid as invalid:
            self.problems.extend(replace(p, path=f"{path}.{p.path}" if p.path else path) for p in invalid.problems)
            return None
        for o in sub.outputs:
            if o.name.lower() == ROW_ID:
                self.fail(
                    f"{path}.{o.path}" if o.path else path,
                    f"{ROW_ID} names the row id of a plan's result: give this result column another name",
                    received=o.name,
                )
                return None
        groups = [o for o in sub.outputs if o.kind == "group"]
        one_row = sub.aggregated and not groups
        columns = tuple(
            ColumnInfo(
                o.name,
                o.type,
                o.physical,
                unique=one_row or (len(groups) == 1 and o is groups[0]),
                digits=o.shape[0] if o.shape and o.physical in ("BIGINT", "HUGEINT") else None,
                shape=o.shape,
            )
            for o in sub.outputs
        )
        info = DatasetInfo("", wanted.alias, "", 0, (), sub.rows, 0, False, columns)
        return Source(i, wanted.alias, info, plan=sub)

    # columns -------------------------------------------------------------------------------
    def ref(self, text: str, path: str, within: list[Source] | None = None) -> Ref | None:
        """The column `text` names, or None with a problem at `path` (also when the target
        engine cannot read that column exactly)."""
        found = self._ref(text, path, within)
        if found is not None and not self.readable(found, path):
            return None
        return found

    def readable(self, ref: Ref, path: str) -> bool:
        why = self.target.problem(ref.column)
        if why:
            self.fail(
                path,
                f"the {self.target.name} engine cannot read {ref.alias}.{ref.column.name}: {why}",
                expected=f"a column {self.target.name} reads exactly",
                received=f"{ref.alias}.{ref.column.name}",
            )
        return not why

    def _ref(self, text: str, path: str, within: list[Source] | None = None) -> Ref | None:
        if within is None and text in self.unresolved:
            return None
        if within is None and self.computed:
            hit = self.computed.get(text)
            folded = [r for name, r in self.computed.items() if name.lower() == text.lower()]
            if hit is None and len(folded) == 1:
                hit = folded[0]
                self.resolved_log.append({"input": text, "column": hit.column.name, "how": "case-insensitive"})
            if hit is not None:
                decided = sorted(hit.reads & self.deciders.keys())
                if decided:
                    self.fail(
                        path,
                        f"{hit.column.name!r} reads {decided[0]!r}, which is joined {self.deciders[decided[0]]}: it can only filter that dataset (where)",
                        expected="a column of "
                        + ", ".join(s.alias for s in self.sources if s.alias not in self.deciders),
                        received=text,
                    )
                    return None
                return hit
        pool = within if within is not None else self.sources
        unread = [s for s in pool if s.alias in self.deciders]
        if unread:
            pool = [s for s in pool if s.alias not in self.deciders]
            head = text.partition(".")[0]
            named = [
                s
                for s in unread
                if head == s.alias or (s.info.column(text) is not None and not any(p.info.column(text) for p in pool))
            ]
            if named:
                s = named[0]
                self.fail(
                    path,
                    f"{s.alias!r} is joined {self.deciders[s.alias]}: it decides which rows stay, and its columns cannot be read",
                    expected="a column of " + ", ".join(p.alias for p in pool),
                    received=text,
                )
                return None
        by_alias = {s.alias: s for s in pool}
        head, dot, rest = text.partition(".")
        if dot and head in by_alias:
            return self._in(by_alias[head], rest, text, path)
        exact = [s for s in pool if s.info.column(text) is not None]
        if len(exact) == 1:
            return self._found(exact[0], exact[0].info.column(text), text, "exact")
        if len(exact) > 1:
            self.fail(
                path,
                f"column {text!r} is in several datasets: qualify it",
                expected=" | ".join(f"{s.alias}.{text}" for s in exact),
                received=text,
            )
            return None
        folded = [(s, c) for s in pool for c in s.info.columns if c.name.lower() == text.lower()]
        if dot and not folded:
            aliases = [s.alias for s in pool if s.alias.lower() == head.lower()]
            if len(aliases) == 1:
                return self._in(by_alias[aliases[0]], rest, text, path)
        if len(folded) == 1:
            return self._found(folded[0][0], folded[0][1], text, "case-insensitive")
        counts: dict[str, int] = {}
        for s in pool:
            for c in s.info.columns:
                counts[c.name] = counts.get(c.name, 0) + 1
        names = [c.name if counts[c.name] == 1 else f"{s.alias}.{c.name}" for s in pool for c in s.info.columns]
        if len(folded) > 1:
            self.fail(
                path,
                f"column {text!r} matches several columns without regard to case: qualify it",
                expected=" | ".join(f"{s.alias}.{c.name}" for s, c in folded),
                received=text,
            )
        else:
            self.fail(
                path,
                f"no column {text!r}",
                expected="a column of " + ", ".join(s.alias for s in pool),
                received=text,
                did_you_mean=close(text, names),
            )
        return None

    def _in(self, source: Source, name: str, text: str, path: str) -> Ref | None:
        column = source.info.column(name)
        if column is not None:
            return self._found(source, column, text, "exact")
        folded = [c for c in source.info.columns if c.name.lower() == name.lower()]
        if len(folded) == 1:
            return self._found(source, folded[0], text, "case-insensitive")
        names = [c.name for c in source.info.columns]
        self.fail(
            path,
            f"dataset {source.alias!r} has no column {name!r}",
            expected=f"a column of {source.alias}",
            received=text,
            did_you_mean=[f"{source.alias}.{n}" for n in close(name, names)],
        )
        return None

    def _found(self, source: Source, column: ColumnInfo, text: str, how: str) -> Ref:
        self.read.setdefault(source.alias, set()).add(column.name)
        self.resolved_log.append({"input": text, "column": f"{source.alias}.{column.name}", "how": how})
        return Ref(source.alias, column)

    # filters -------------------------------------------------------------------------------
    def filters(
        self,
        items: list[QueryFilter],
        path: str,
        within: list[Source] | None = None,
        outputs: dict[str, Output] | None = None,
    ) -> list[RFilter]:
        return [
            f for i, item in enumerate(items) if (f := self.filter(item, f"{path}[{i}]", within, outputs)) is not None
        ]

    def filter(self, item: QueryFilter, path: str, within, outputs) -> RFilter | None:
        if item.any is not None or item.all is not None:
            kind = "any" if item.any is not None else "all"
            children = self.filters(item.any if item.any is not None else item.all, f"{path}.{kind}", within, outputs)
            if not children:
                self.fail(f"{path}.{kind}", f"an {kind} group needs at least one filter")
                return None
            return RFilter(kind, children=children)
        spec = FILTERS[item.op]
        if outputs is not None:
            output = self.result_column(item.column, f"{path}.column", outputs)
            if output is None:
                return None
            type_, physical, ref = output.type, output.physical, None
        else:
            ref = self.ref(item.column, f"{path}.column", within)
            if ref is None:
                return None
            type_, physical, output = ref.column.type, ref.column.physical, None
        if type_ not in spec.types:
            self.fail(
                f"{path}.op",
                f"{item.op} does not apply to a {type_} column",
                expected=" | ".join(o for o, f in FILTERS.items() if type_ in f.types),
                received=item.op,
            )
            return None
        if item.ignore_case and type_ != "string":
            self.fail(f"{path}.ignore_case", "ignore_case applies to strings only", received=True)
        if item.other is not None:
            return self.compared(item, path, within, outputs, ref, output, type_)
        values = self.values(item, spec.arity, type_, path)
        if values is None:
            return None
        if type_ == "number":
            values = [fit(v, physical, _ROUNDING[item.op][min(k, 1)]) for k, v in enumerate(values)]
        return RFilter("leaf", ref, item.op, values, item.ignore_case, output=output, path=path)

    def compared(self, item: QueryFilter, path: str, within, outputs, ref, output, type_: str) -> RFilter | None:
        """A filter comparing two columns (`other`): a comparison, their types one as join keys' are."""
        if item.op not in OTHER_OPS:
            self.fail(
                f"{path}.op",
                f"{item.op} compares with a value; another column is compared by " + " ".join(OTHER_OPS),
                expected=" | ".join(OTHER_OPS),
                received=item.op,
            )
            return None
        if outputs is not None:
            other_output = self.result_column(item.other, f"{path}.other", outputs)
            if other_output is None:
                return None
            other, other_type = None, other_output.type
        else:
            other_output, other = None, self.ref(item.other, f"{path}.other", within)
            if other is None:
                return None
            other_type = other.column.type
        if not self.one_type(f"{path}.other", "two columns compared", (item.column, type_), (item.other, other_type)):
            return None
        return RFilter(
            "leaf", ref, item.op, [], item.ignore_case, output=output, other=other, other_output=other_output
        )

    def result_column(self, name: str, path: str, outputs: dict[str, Output]) -> Output | None:
        """A result column named by having (its `column` or its `other`); else the problem at `path`."""
        output = outputs.get(name)
        if output is None:
            self.not_among(path, f"having reads result columns; {name!r} is not one", name, list(outputs))
        return output

    def one_type(self, path: str, what: str, left: tuple[str, str], right: tuple[str, str]) -> bool:
        """Two columns set side by side (join keys, columns compared) have one type (any number
        with any number); a string beside a number suggests retyping one. `left`, `right`: (name, type)."""
        (ln, lt), (rn, rt) = left, right
        if lt == rt:
            return True
        hint = (
            " Retype one with knowledge.dataset_approve so both are numbers or both are strings."
            if {lt, rt} == {"string", "number"}
            else ""
        )
        self.fail(path, f"{what} must have one type: {ln} is {lt}, {rn} is {rt}.{hint}", expected=lt, received=rt)
        return False

    def values(self, item: QueryFilter, arity: str, type_: str, path: str) -> list | None:
        if arity == "none":
            return []
        if arity == "one":
            raw, where = [item.value], [f"{path}.value"]
            if item.op in ("like", "not_like") and isinstance(item.value, str):
                trailing = len(item.value) - len(item.value.rstrip("\\"))
                if trailing % 2:  # a backslash makes the next character plain: there is none
                    self.fail(
                        f"{path}.value",
                        "a like pattern cannot end with a lone backslash (write \\\\ for a backslash)",
                        expected="a pattern: % any run, _ one character, \\ before either for itself",
                        received=item.value,
                    )
                    return None
        else:
            if not item.values:
                self.fail(
                    f"{path}.values",
                    f"{item.op} takes a list of values",
                    expected="[lo, hi]" if arity == "two" else "[v1, v2, …]",
                )
                return None
            if arity == "two" and len(item.values) != 2:
                self.fail(f"{path}.values", "between takes two values", expected="[lo, hi]", received=item.values)
                return None
            if len(item.values) > self.limits.in_values:
                self.over(
                    f"{path}.values", f"at most {self.limits.in_values} values", self.limits.in_values, len(item.values)
                )
                return None
            raw, where = item.values, [f"{path}.values[{k}]" for k in range(len(item.values))]
        out = []
        for value, at in zip(raw, where):
            try:
                out.append(read_value(value, type_))
            except Unreadable as err:
                self.fail(at, f"{value!r} cannot be read as {type_}", expected=str(err), received=value)
                return None
        return out

    def single_source(self, f: RFilter) -> set[str]:
        if f.kind == "leaf":
            return {r.alias for r in (f.ref, f.other) if r is not None}
        return set().union(*(self.single_source(c) for c in f.children))


def _count_filters(items: list[QueryFilter]) -> int:
    return sum(
        _count_filters((i.any or []) + (i.all or [])) if (i.any is not None or i.all is not None) else 1 for i in items
    )


def nested_plans(plan: QueryPlan):
    """The plan and every plan nested in it as a dataset, outermost first."""
    yield plan
    for d in plan.datasets:
        if isinstance(d, QueryPlanDataset):
            yield from nested_plans(d.plan)


def _tree_limits(r: _Resolver, plan: QueryPlan) -> None:
    """The plan limits, counting every nested plan's parts with the plan's own."""
    plans = list(nested_plans(plan))
    datasets = sum(1 for p in plans for d in p.datasets if not isinstance(d, QueryPlanDataset))
    if datasets > r.limits.datasets:
        r.over(
            "datasets",
            f"at most {r.limits.datasets} datasets per plan (nested plans' datasets count)",
            r.limits.datasets,
            datasets,
        )
    total = sum(
        _count_filters(p.where) + _count_filters(p.having) + sum(_count_filters(a.where) for a in p.aggregates)
        for p in plans
    )
    if total > r.limits.filters:
        r.over("where", f"at most {r.limits.filters} filters per plan", r.limits.filters, total)
    computed = sum(len(p.compute) for p in plans)
    if computed > r.limits.computed and len(plans) > 1:  # one plan's own: checked where its columns are read
        r.over(
            "compute",
            f"at most {r.limits.computed} computed columns per plan (nested plans' count)",
            r.limits.computed,
            computed,
        )


def resolve(
    plan: QueryPlan,
    found: list,
    sources_known: list[str],
    limits: Limits = Limits(),
    target: Target = DUCKDB,
    depth: int = 0,
) -> Resolved:
    """Check `plan` against the datasets each of its entries names (`found[i]`: the live
    datasets of datasets[i].source_uri, or none; for a plan as a dataset, its own `found`), for
    the engine `target`. Raises PlanInvalid with every problem. `depth`: how deep a nested plan
    this is (the limits over the whole tree are checked at 0)."""
    r = _Resolver(plan, found, sources_known, limits, target, depth)
    if depth == 0:
        if plan.limit > limits.rows:
            r.over("limit", f"at most {limits.rows} rows per answer", limits.rows, plan.limit)
        _tree_limits(r, plan)
        if len(r.problems) > (plan.limit > limits.rows):
            raise PlanInvalid(r.problems)  # nothing is resolved past the tree's limits
    r.datasets()
    if len(r.sources) != len(plan.datasets):
        raise PlanInvalid(r.problems)

    joins = _joins(r, plan)
    _compute(r, plan, joins)

    # where: each filter (and each any/all group) stays inside one dataset; one on a computed
    # column that reads several datasets applies after the joins. It may read a dataset joined
    # semi or anti (which rows of it count as a match).
    deciders, r.deciders = r.deciders, {}
    where: dict[str, list[RFilter]] = {s.alias: [] for s in r.sources}
    after: list[RFilter] = []
    for i, item in enumerate(plan.where):
        f = r.filter(item, f"where[{i}]", None, None)
        if f is None:
            continue
        aliases = r.single_source(f)
        if "" in aliases or (f.kind == "leaf" and len(aliases) > 1):
            # A computed column over several datasets, or two columns of two datasets compared.
            decided = sorted(aliases & deciders.keys())
            if decided:
                r.fail(
                    f"where[{i}]",
                    f"{decided[0]!r} is joined {deciders[decided[0]]}: a filter may read it only with its own columns",
                    received=sorted(aliases - {""}),
                )
                continue
            after.append(f)
        elif len(aliases) > 1:
            r.fail(
                f"where[{i}]",
                "an any/all group must stay inside one dataset (where applies before joins)",
                received=sorted(aliases),
            )
        else:
            where[next(iter(aliases), r.sources[0].alias)].append(f)
    r.deciders = deciders

    outputs = _outputs(r, plan)
    _measures(r, plan, outputs)
    names = [o.name for o in outputs]
    folded = [n.lower() for n in names]
    for k, name in enumerate(names):
        first = folded.index(name.lower())
        if first != k:
            r.fail(
                outputs[k].path,
                f"result column {name!r} is already the name of {outputs[first].path} (result names ignore case): give one an `as`",
                received=name,
            )
    by_name = {o.name: o for o in outputs}
    having, qualify = [], []
    for i, item in enumerate(plan.having):
        f = r.filter(item, f"having[{i}]", None, by_name)
        if f is not None:
            # SQL's order: having before the measures (a share is of the groups kept), and a
            # filter on a measure after them ("rank le 3").
            (qualify if _names_measure(f) else having).append(f)
    order = []
    for i, o in enumerate(plan.order_by):
        if o.column not in by_name:
            r.not_among(f"order_by[{i}].column", f"{o.column!r} is not a result column", o.column, names)
        order.append((o.column, o.desc))
    if r.problems:
        raise PlanInvalid(r.problems)
    aggregated = bool(plan.aggregates or plan.group_by)
    warnings = _join_warnings(joins)
    casts = [n for ref in [*r.computed.values(), *r.aggregated_exprs] for n in ref.expr.walk() if n.op == "cast"]
    if aggregated and not plan.group_by:
        rows = 1
    else:
        rows = _row_bound(r)
        if depth and plan.order_by and "limit" in plan.model_fields_set:
            rows = min(rows, plan.limit)
    return Resolved(
        r.sources,
        where,
        joins,
        outputs,
        having,
        order,
        plan.limit,
        plan.offset,
        aggregated,
        r.resolved_log,
        warnings,
        r.read,
        after=after,
        qualify=qualify,
        computed=list(r.computed.values()),
        casts=casts,
        written_budget=limits.expression_nodes,
        rows=rows,
        top=bool(depth and plan.order_by and "limit" in plan.model_fields_set),
    )


def column_shape(column: ColumnInfo):
    """An exact column's shape: an integer column's from the digits its values have (so
    quantity × price is typed by the data's widths, not BIGINT's 19 digits), a plan's result
    column's from what it computes, else its type's."""
    if column.shape is not None:
        return column.shape
    if column.digits is not None and column.physical in ("BIGINT", "HUGEINT"):
        return (max(column.digits, 1), 0)
    return shape_of(column.physical)


def _names_measure(f: RFilter) -> bool:
    if f.kind == "leaf":
        return any(o is not None and o.kind == "measure" for o in (f.output, f.other_output))
    return any(_names_measure(c) for c in f.children)


def _row_term(r: _Resolver) -> Callable[[str, str], RExpr | None]:
    """Names in a row expression: dataset columns and computed ones (inlined)."""

    def term(text: str, path: str) -> RExpr | None:
        ref = r.ref(text, path)
        if ref is None:
            return None
        if ref.expr is not None:
            if ref.expr.op in ("literal", "null"):
                return replace(ref.expr)  # a constant stays one, where an operator wants one (round's digits)
            # Read by name, never spliced: a chain of computed columns, each reading the one
            # before twice, doubled the SQL at every step (issue 30).
            return RExpr("column", ref.column.type, ref.column.physical, ref=ref, shape=ref.expr.shape)
        return column_node(ref, ref.column.type, ref.column.physical, column_shape(ref.column))

    return term


def _row_condition(r: _Resolver):
    return lambda item, path: r.filter(item, path, None, None)


def _computed_ref(r: _Resolver, name: str, node: RExpr, nulled: frozenset[str] = frozenset()) -> Ref:
    """`nulled`: the datasets joined left (their rows may be null-extended after the join)."""
    reads = {n.ref.alias for n in node.walk() if n.op == "column"}
    for n in node.walk():
        for test, _ in n.whens:
            reads |= r.single_source(test)
        if n.op == "column" and n.ref is not None:
            reads |= n.ref.reads
    reads.discard("")
    if not reads and r.sources:
        # values alone (`{"sub": [2, 2]}`): a column of the first dataset's rows, which no join
        # null-extends, not an expression written out wherever it is read (a chain doubles)
        reads = {r.sources[0].alias}
    alias = next(iter(reads)) if len(reads) == 1 else ""
    placed = bool(alias) and alias not in nulled
    return Ref(alias, ColumnInfo(name, node.type, node.physical), expr=node, reads=frozenset(reads), placed=placed)


def computed_reads(node: RExpr):
    """The names of the computed columns an expression reads by name (its case tests too)."""
    for n in node.walk():
        if n.op == "column" and n.ref is not None and n.ref.expr is not None:
            yield n.ref.column.name
        tests = [test for test, _ in n.whens]
        while tests:
            f = tests.pop()
            tests.extend(f.children)
            if f.kind == "leaf" and f.ref is not None and f.ref.expr is not None:
                yield f.ref.column.name


def written_size(node: RExpr, sizes: dict[int, int]) -> int:
    """The nodes `node` takes once written into SQL: a computed column read by name is one, one
    written out where it is read (not placed) its own size; `sizes` remembers those by id."""
    total = 1
    for n in node.walk():
        if n.op == "column" and n.ref is not None and n.ref.expr is not None and not n.ref.placed:
            key = id(n.ref)
            if key not in sizes:
                sizes[key] = written_size(n.ref.expr, sizes)
            total += sizes[key]
        else:
            total += 1
    return total


def _compute(r: _Resolver, plan: QueryPlan, joins: list[Join]) -> None:
    if len(plan.compute) > r.limits.computed:
        r.over(
            "compute", f"at most {r.limits.computed} computed columns per plan", r.limits.computed, len(plan.compute)
        )
        raise PlanInvalid(r.problems)  # unread, their names would be unknown everywhere else
    taken = {c.name.lower() for s in r.sources for c in s.info.columns}
    nulled = frozenset(j.source.alias for j in joins if j.kind == "left")
    sizes: dict[int, int] = {}
    depths: dict[str, int] = {}
    term, condition = _row_term(r), _row_condition(r)
    # A computed column may read a dataset joined semi or anti, to filter it before the join
    # (where); anywhere else reading it is refused (_ref).
    deciders, r.deciders = r.deciders, {}
    for i, c in enumerate(plan.compute):
        path = f"compute[{i}]"
        if c.as_.lower() in taken or c.as_.lower() == ROW_ID:
            r.fail(
                f"{path}.as",
                f"{c.as_!r} is already the name of a column (names ignore case): give the computed column its own",
                received=c.as_,
            )
            continue
        node = r.expr(c.expr, f"{path}.expr", term, condition)
        if node is None or not _supported(r, node, f"{path}.expr"):
            r.unresolved.add(c.as_)
            continue
        ref = _computed_ref(r, c.as_, node, nulled)
        depth = 1 + max((depths.get(name, 0) for name in computed_reads(node)), default=0)
        if depth > r.limits.computed_depth:
            r.over(
                f"{path}.expr",
                f"computed columns may read computed columns {r.limits.computed_depth} deep at most (each is a layer of the query)",
                r.limits.computed_depth,
                depth,
            )
            r.unresolved.add(c.as_)
            continue
        depths[c.as_] = depth
        size = written_size(node, sizes)
        if size > r.limits.expression_nodes:
            r.over(
                f"{path}.expr",
                f"at most {r.limits.expression_nodes} expression nodes once the computed columns it reads are written "
                f"out (those over several datasets, or one joined left, are written where they are read)",
                r.limits.expression_nodes,
                size,
            )
            r.unresolved.add(c.as_)
            continue
        if ref.reads & deciders.keys() and len(ref.reads) > 1:
            r.fail(
                f"{path}.expr",
                f"a computed column over a dataset joined {deciders[sorted(ref.reads & deciders.keys())[0]]} may read only that dataset",
                received=sorted(ref.reads),
            )
            continue
        taken.add(c.as_.lower())
        r.computed[c.as_] = ref
    r.deciders = deciders


def _supported(r: _Resolver, node: RExpr, path: str) -> bool:
    for n in node.walk():
        why = r.target.cannot(n.op, n)
        if why:
            r.fail(
                n.path or path,
                f"the {r.target.name} engine cannot compute {n.op}: {why}",
                expected=f"an operator {r.target.name} computes exactly",
                received=n.op,
            )
            return False
    return True


def _joins(r: _Resolver, plan: QueryPlan) -> list[Join]:
    by_alias = {s.alias: s for s in r.sources}
    position = {s.alias: k for k, s in enumerate(r.sources)}
    seen: dict[str, int] = {}
    joins: list[Join] = []
    for i, j in enumerate(plan.joins):
        path = f"joins[{i}]"
        target = by_alias.get(j.alias)
        if target is None:
            r.not_among(f"{path}.alias", f"no dataset with alias {j.alias!r}", j.alias, list(by_alias))
            continue
        if position[j.alias] == 0:
            r.fail(
                f"{path}.alias", "the first dataset is where the plan starts; join the others to it", received=j.alias
            )
            continue
        if j.alias in seen:
            r.fail(
                f"{path}.alias",
                f"{j.alias!r} is joined twice (also joins[{seen[j.alias]}]); put every key in one `on`",
                received=j.alias,
            )
            continue
        seen[j.alias] = i
        before = r.sources[: position[j.alias]]
        pairs, conditions = [], []
        if not j.on:
            one_row = target.plan is not None and target.plan.aggregated and target.info.rows == 1
            if not one_row:
                r.fail(
                    f"{path}.on",
                    "a join needs conditions (at least one eq); on: [] joins only a plan that gives one row "
                    "(aggregates without group_by), its values beside every row",
                    expected="[{left, right, op?}]",
                    received=[],
                )
                continue
            if j.kind not in ("inner", "left"):
                r.fail(f"{path}.kind", "a one-row plan joined with on: [] is joined inner or left", received=j.kind)
                continue
        elif not any(on.op == "eq" for on in j.on):
            r.fail(
                f"{path}.on",
                "a join needs at least one equality (op eq) among its conditions",
                expected="a condition with op eq",
                received=[on.op for on in j.on],
            )
            continue
        for k, on in enumerate(j.on):
            left = r.ref(on.left, f"{path}.on[{k}].left", before)
            right = r.ref(on.right, f"{path}.on[{k}].right", [target])
            if left is None or right is None:
                continue
            if not r.one_type(
                f"{path}.on[{k}]",
                "join keys",
                (f"{left.alias}.{left.column.name}", left.column.type),
                (f"{right.alias}.{right.column.name}", right.column.type),
            ):
                continue
            if on.op == "eq":
                pairs.append((left, right))
            else:
                conditions.append((left, on.op, right))
        if len(pairs) + len(conditions) == len(j.on):
            joins.append(Join(target, j.kind, pairs, conditions))
        if j.kind in ("semi", "anti"):
            r.deciders[j.alias] = j.kind
    for s in r.sources[1:]:
        if s.alias not in seen:
            r.fail(
                f"datasets[{s.index}]",
                f"dataset {s.alias!r} has no join: add one to joins (alias {s.alias!r}, on its keys)",
                expected="one join per dataset after the first",
            )
    order = {s.alias: k for k, s in enumerate(r.sources)}
    return sorted(joins, key=lambda j: order[j.source.alias])


def _outputs(r: _Resolver, plan: QueryPlan) -> list[Output]:
    several = len(r.sources) > 1
    out: list[Output] = []

    def base(ref: Ref) -> str:
        return f"{ref.alias}.{ref.column.name}" if several and ref.expr is None else ref.column.name

    def shape(ref: Ref):
        return ref.expr.shape if ref.expr is not None else column_shape(ref.column)

    rows = _row_bound(r)

    for i, g in enumerate(plan.group_by):
        ref = r.ref(g.column, f"group_by[{i}].column")
        if ref is None:
            continue
        if g.bucket and g.bucket not in BUCKET_TYPES.get(ref.column.type, ()):
            r.fail(
                f"group_by[{i}].bucket",
                f"bucket {g.bucket} needs a date or datetime column; {ref.column.name} is {ref.column.type}",
                received=g.bucket,
            )
            continue
        name = g.as_ or (base(ref) + (f"_{g.bucket}" if g.bucket else ""))
        out.append(
            Output(
                name,
                ref.column.type,
                "group",
                ref,
                bucket=g.bucket,
                physical=ref.column.physical,
                path=f"group_by[{i}]",
                shape=None if g.bucket else shape(ref),
            )
        )
    for i, a in enumerate(plan.aggregates):
        spec = AGGREGATES[a.fn]
        ref = None
        if a.expr is not None:
            node = r.expr(a.expr, f"aggregates[{i}].expr", _row_term(r), _row_condition(r))
            if node is None or not _supported(r, node, f"aggregates[{i}].expr"):
                continue
            ref = replace(_computed_ref(r, "expr", node), placed=False)  # written where it is aggregated
            r.aggregated_exprs.append(ref)
        elif a.column is not None:
            ref = r.ref(a.column, f"aggregates[{i}].column")
            if ref is None:
                continue
        if ref is not None:
            if ref.column.type not in spec.types:
                r.fail(
                    f"aggregates[{i}].fn",
                    f"{a.fn} does not apply to a {ref.column.type} {'expression' if a.expr is not None else 'column'}",
                    expected=" | ".join(f for f, s in AGGREGATES.items() if ref.column.type in s.types),
                    received=a.fn,
                )
                continue
        elif spec.needs_column:
            r.fail(f"aggregates[{i}].column", f"{a.fn} needs a column")
            continue
        if (a.fn == "quantile") != (a.q is not None):
            r.fail(
                f"aggregates[{i}].q",
                "quantile needs q in [0, 1]" if a.q is None else f"q is quantile's; {a.fn} takes none",
                received=a.q,
            )
            continue
        where = r.filters(a.where, f"aggregates[{i}].where") if a.where else []
        name = a.as_ or (f"{a.fn}_{ref.column.name}" if ref else "count")
        type_ = spec.result(ref.column.type) if ref else "number"
        physical = _aggregate_physical(a.fn, ref)
        exact = shape(ref) if ref is not None and a.fn in ("sum", "min", "max") else None
        bound = digits_bound(rows, exact) if a.fn == "sum" else exact
        if a.fn in ("count", "count_distinct"):
            bound = (19, 0)
        elif physical.startswith("DECIMAL") and a.fn == "median":
            bound = shape_of(physical)
        out.append(
            Output(
                name,
                type_,
                "aggregate",
                ref,
                fn=a.fn,
                q=a.q,
                where=where,
                physical=physical,
                path=f"aggregates[{i}]",
                shape=bound,
            )
        )
    if plan.select and (plan.aggregates or plan.group_by):
        r.fail(
            "select",
            "select lists rows; with aggregates or groups, group_by names the columns",
            received=len(plan.select),
        )
    elif plan.select:
        for i, c in enumerate(plan.select):
            ref = r.ref(c.column, f"select[{i}].column")
            if ref is not None:
                out.append(
                    Output(
                        c.as_ or base(ref),
                        ref.column.type,
                        "column",
                        ref,
                        physical=ref.column.physical,
                        path=f"select[{i}]",
                        shape=shape(ref),
                    )
                )
    elif not (plan.aggregates or plan.group_by):
        for s in r.sources:
            if s.alias in r.deciders:
                continue
            for c in s.info.columns:
                ref = Ref(s.alias, c)
                if not r.readable(ref, f"datasets[{s.index}]"):
                    continue
                r.read.setdefault(s.alias, set()).add(c.name)
                out.append(
                    Output(base(ref), c.type, "column", ref, physical=c.physical, path="datasets", shape=shape(ref))
                )
        for name, ref in r.computed.items():
            out.append(
                Output(
                    name, ref.column.type, "column", ref, physical=ref.column.physical, path="compute", shape=shape(ref)
                )
            )
    return out


def _measures(r: _Resolver, plan: QueryPlan, outputs: list[Output]) -> None:
    """Measures: expressions and windows over the result rows, each able to read those before it."""
    by_name: dict[str, Output] = {o.name: o for o in outputs}

    def term(text: str, path: str) -> RExpr | None:
        o = by_name.get(text)
        if o is None:
            folded = [v for k, v in by_name.items() if k.lower() == text.lower()]
            o = folded[0] if len(folded) == 1 else None
        if o is None:
            r.not_among(path, f"a measure reads result columns; {text!r} is not one", text, list(by_name))
            return None
        return output_node(o.name, o.type, o.physical, o.shape)

    def condition(item, path):
        return r.filter(item, path, None, by_name)

    for i, m in enumerate(plan.measures):
        path = f"measures[{i}]"
        if m.expr is not None:
            node = r.expr(m.expr, f"{path}.expr", term, condition)
            if node is None or not _supported(r, node, f"{path}.expr"):
                continue
            o = Output(m.as_, node.type, "measure", physical=node.physical, path=path, shape=node.shape, expr=node)
        else:
            o = _window(r, m.window, f"{path}.window", by_name)
            if o is None:
                continue
            o.name = m.as_
        outputs.append(o)
        by_name[o.name] = o


_WINDOW_READS = {"sum": "number", "avg": "number", "share": "number", "running_sum": "number"}


def _window(r: _Resolver, w, path: str, by_name: dict[str, Output]) -> Output | None:
    names = list(by_name)

    def named(text: str, at: str) -> Output | None:
        o = by_name.get(text)
        if o is None:
            r.not_among(at, f"{text!r} is not a result column", text, names)
        return o

    ranking = w.fn in ("rank", "dense_rank", "row_number")
    of = None
    if ranking:
        if w.of is not None:
            r.fail(f"{path}.of", f"{w.fn} ranks by order_by; it reads no `of`", received=w.of)
            return None
    else:
        if w.of is None:
            r.fail(f"{path}.of", f"{w.fn} needs `of`: the result column it reads", expected=" | ".join(names))
            return None
        of = named(w.of, f"{path}.of")
        if of is None:
            return None
        wanted = _WINDOW_READS.get(w.fn)
        if (wanted and of.type != wanted) or (w.fn in ("min", "max") and of.type == "bool"):
            r.fail(
                f"{path}.of",
                f"{w.fn} reads {'numbers' if wanted else 'ordered values'}; {of.name} is {of.type}",
                received=w.of,
            )
            return None
    why = r.target.cannot(f"window {w.fn}", of)
    if why:
        r.fail(f"{path}.fn", f"the {r.target.name} engine cannot compute the window {w.fn}: {why}", received=w.fn)
        return None
    partition = [p for k, p in enumerate(w.partition_by) if named(p, f"{path}.partition_by[{k}]") is not None]
    order = [
        (o.column, o.desc)
        for k, o in enumerate(w.order_by)
        if named(o.column, f"{path}.order_by[{k}].column") is not None
    ]
    if len(partition) != len(w.partition_by) or len(order) != len(w.order_by):
        return None
    if w.fn in ("rank", "dense_rank") and not order:
        # row_number and running_sum without order_by follow the result's default order (the
        # groups, or the rows as listed: "the row after X", "the first listed"); a rank needs one.
        r.fail(
            f"{path}.order_by",
            f"{w.fn} needs order_by: the result columns that rank the rows",
            expected="[{column, desc?}]",
        )
        return None
    if not ranking and w.fn != "running_sum" and order:
        r.fail(
            f"{path}.order_by",
            f"{w.fn} covers its whole partition and takes no order_by (running_sum is the ordered total)",
            received=len(order),
        )
        return None
    rows = _row_bound(r)
    if ranking or w.fn == "count":
        type_, physical, shape = "number", "BIGINT", (19, 0)
    elif w.fn in ("sum", "running_sum"):
        physical = (
            "HUGEINT"
            if of.physical in ("BIGINT", "HUGEINT")
            else f"DECIMAL(38, {of.shape[1]})"
            if of.shape
            else "DOUBLE"
        )
        # Groups part the rows, so a total of a sum's groups is a sum over the same rows: its bound.
        type_, shape = "number", of.shape if of.kind == "aggregate" and of.fn == "sum" else digits_bound(rows, of.shape)
    elif w.fn in ("min", "max"):
        type_, physical, shape = of.type, of.physical, of.shape
    else:  # avg, share
        type_, physical, shape = "number", "DOUBLE", None
    return Output(
        "", type_, "measure", physical=physical, path=path, shape=shape, window=Window(w.fn, of, partition, order)
    )


def _row_bound(r: _Resolver) -> int:
    """The most rows the joins can give (a sum over them is bounded by its digits): each join
    multiplies, unless its keys are unique on the joined side (each row before it meets one)."""
    joined = {j.alias: j for j in r.plan.joins}
    rows = max(r.sources[0].info.rows, 1)
    for s in r.sources[1:]:
        j = joined.get(s.alias)
        if j is not None and j.kind in ("semi", "anti"):
            continue
        keys = {
            on.right.partition(".")[2] if on.right.startswith(s.alias + ".") else on.right
            for on in (j.on if j else [])
            if on.op == "eq"
        }
        if s.info.rows == 1 and s.plan is not None and j is not None and not j.on:
            continue  # a one-row plan beside every row
        if not any(c.unique for c in s.info.columns if c.name in keys):
            rows *= max(s.info.rows, 1) + (1 if j is not None and j.kind == "left" else 0)
    return rows


def _aggregate_physical(fn: str, ref: Ref | None) -> str:
    """The storage type DuckDB gives an aggregate (exact ones matter for having's values)."""
    if fn in ("count", "count_distinct"):
        return "BIGINT"
    physical = ref.column.physical if ref else "DOUBLE"
    if fn == "sum" and physical in ("BIGINT", "HUGEINT"):
        return "HUGEINT"
    if fn == "sum" and physical.startswith("DECIMAL"):
        return f"DECIMAL(38, {physical.split(',')[1].strip(' )')})"
    if fn in ("min", "max"):
        return physical
    if fn == "median" and decimal_median(physical):
        return decimal_median(physical)
    return "DOUBLE"


def _join_warnings(joins: list[Join]) -> list[str]:
    out = []
    for j in joins:
        if j.kind in ("semi", "anti") or not j.pairs:
            continue  # each row before it is kept once or not at all (or meets one row): nothing counts twice
        if not any(left.column.unique or right.column.unique for left, right in j.pairs):
            keys = ", ".join(
                f"{left.alias}.{left.column.name} = {right.alias}.{right.column.name}" for left, right in j.pairs
            )
            out.append(f"join {keys}: the key is unique on neither side, so rows may count more than once")
    return out
