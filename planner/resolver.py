"""The resolver: every name of a plan found among its datasets' columns (with did-you-mean), every
filter's values read as its column's type, computed columns and joins resolved and typed."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from .expressions import ExprResolving, column_node
from .models import QueryPlan
from .resolved import ColumnNode, Limits, LiteralNode, NullNode, Problem, Ref, Resolved, RExpr, Shape, Source, close
from .rules import shape_of
from .schema import ColumnInfo, DatasetInfo
from .targets import Target


class Resolver(ExprResolving):
    def __init__(
        self,
        plan: QueryPlan,
        found: list[list[DatasetInfo]],
        sources_known: list[str],
        limits: Limits,
        target: Target,
        depth: int,
        resolve: Callable[..., Resolved],
    ):
        self.plan, self.found, self.known, self.limits = plan, found, sources_known, limits
        self.resolve = resolve  # resolve.resolve, for a plan as a dataset (handed in: it calls this)
        self.target = target
        self.depth = depth  # 0: the plan asked; 1 …: a plan as a dataset inside it
        self.problems: list[Problem] = []
        self.sources: list[Source] = []
        self.resolved_log: list[dict[str, str]] = []
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
        exact = [(s, c) for s in pool if (c := s.info.column(text)) is not None]
        if len(exact) == 1:
            return self._found(*exact[0], text, "exact")
        if len(exact) > 1:
            self.fail(
                path,
                f"column {text!r} is in several datasets: qualify it",
                expected=" | ".join(f"{s.alias}.{text}" for s, _ in exact),
                received=text,
            )
            return None
        matches = [(s, c) for s in pool for c in s.info.columns if c.name.lower() == text.lower()]
        if dot and not matches:
            aliases = [s.alias for s in pool if s.alias.lower() == head.lower()]
            if len(aliases) == 1:
                return self._in(by_alias[aliases[0]], rest, text, path, alias_folded=True)
        if len(matches) == 1:
            return self._found(matches[0][0], matches[0][1], text, "case-insensitive")
        counts: dict[str, int] = {}
        for s in pool:
            for c in s.info.columns:
                counts[c.name] = counts.get(c.name, 0) + 1
        names = [c.name if counts[c.name] == 1 else f"{s.alias}.{c.name}" for s in pool for c in s.info.columns]
        if len(matches) > 1:
            self.fail(
                path,
                f"column {text!r} matches several columns without regard to case: qualify it",
                expected=" | ".join(f"{s.alias}.{c.name}" for s, c in matches),
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


def column_shape(column: ColumnInfo) -> Shape | None:
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
            if isinstance(ref.expr, LiteralNode | NullNode):
                return replace(ref.expr)  # a constant stays one, where an operator wants one (round's digits)
            # Read by name, never spliced: a chain of computed columns, each reading the one
            # before twice, doubled the SQL at every step (issue 30).
            return ColumnNode(type=ref.column.type, physical=ref.column.physical, ref=ref, shape=ref.expr.shape)
        return column_node(ref, ref.column.type, ref.column.physical, column_shape(ref.column))

    return term


def supported(r: Resolver, node: RExpr, path: str) -> bool:
    for n in node.walk():
        why = r.target.cannot(n)
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
