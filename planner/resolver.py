"""The resolver: every name of a plan found among its datasets' columns (with did-you-mean), every
filter's values read as its column's type, computed columns and joins resolved and typed."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from .expressions import ExprResolving, column_node
from .functions import FILTERS
from .models import QueryFilter, QueryPlan, QueryPlanDataset
from .operators import RExpr, shape_of
from .resolved import OTHER_OPS, ROW_ID, Limits, Output, PlanInvalid, Problem, Ref, RFilter, Source, close
from .schema import ColumnInfo, DatasetInfo
from .targets import Target
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


class Resolver(ExprResolving):
    def __init__(
        self,
        plan: QueryPlan,
        found: list[list[DatasetInfo]],
        sources_known: list[str],
        limits: Limits,
        target: Target,
        depth: int,
        resolve: Callable,
    ):
        self.plan, self.found, self.known, self.limits = plan, found, sources_known, limits
        self.resolve = resolve  # resolve.resolve, for a plan as a dataset (handed in: it calls this)
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
            sub = self.resolve(inner, found, self.known, self.limits, self.target, depth=self.depth + 1)
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
                return self._in(by_alias[aliases[0]], rest, text, path, alias_folded=True)
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

    def _in(self, source: Source, name: str, text: str, path: str, alias_folded: bool = False) -> Ref | None:
        """`name` in one source; `alias_folded`: the source was named without regard to case (O.x for o)."""
        column = source.info.column(name)
        if column is not None:
            return self._found(source, column, text, "case-insensitive" if alias_folded else "exact")
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
        return RFilter(
            "leaf", ref, item.op, fitted(item.op, values, type_, physical), item.ignore_case, output=output, path=path
        )

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
            if lone_backslash(item.op, item.value):
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


def given_values(item: QueryFilter, arity: str) -> list:
    """A filter's values as the plan gives them: none, its `value`, or its `values`."""
    return [] if arity == "none" else [item.value] if arity == "one" else list(item.values or [])


def lone_backslash(op: str, value: Any) -> bool:
    """A like pattern ending in a backslash that makes nothing plain (it has no next character)."""
    if op not in ("like", "not_like") or not isinstance(value, str):
        return False
    return (len(value) - len(value.rstrip("\\"))) % 2 == 1


def fitted(op: str, values: list, type_: str, physical: str) -> list:
    """A filter's values read as its column's type (values.read_value), each number brought to
    an exact column's scale the way that keeps the comparison's answer, or Beyond every value."""
    if type_ != "number":
        return values
    return [fit(v, physical, _ROUNDING[op][min(k, 1)]) for k, v in enumerate(values)]


def column_shape(column: ColumnInfo):
    """An exact column's shape: an integer column's from the digits its values have (so
    quantity × price is typed by the data's widths, not BIGINT's 19 digits), a plan's result
    column's from what it computes, else its type's."""
    if column.shape is not None:
        return column.shape
    if column.digits is not None and column.physical in ("BIGINT", "HUGEINT"):
        return (max(column.digits, 1), 0)
    return shape_of(column.physical)


def row_term(r: Resolver) -> Callable[[str, str], RExpr | None]:
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


def row_condition(r: Resolver):
    return lambda item, path: r.filter(item, path, None, None)


def computed_ref(r: Resolver, name: str, node: RExpr, nulled: frozenset[str] = frozenset()) -> Ref:
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


def supported(r: Resolver, node: RExpr, path: str) -> bool:
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


def row_bound(r: Resolver) -> int:
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
