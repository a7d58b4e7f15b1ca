"""A plan's computed columns resolved: each expression typed, its depth and written size bounded,
and what each reads."""

from __future__ import annotations

from collections.abc import Iterator

from .conditions import row_condition, single_source
from .models import QueryPlan
from .resolved import ROW_ID, CaseNode, ColumnNode, FilterLeaf, Join, PlanInvalid, Ref, RExpr
from .resolver import Resolver, row_term, supported
from .schema import ColumnInfo


def computed_reads(node: RExpr) -> Iterator[str]:
    """The names of the computed columns an expression reads by name (its case tests too)."""
    for n in node.walk():
        if isinstance(n, ColumnNode) and n.ref.expr is not None:
            yield n.ref.column.name
        tests = [test for test, _ in n.whens] if isinstance(n, CaseNode) else []
        while tests:
            f = tests.pop()
            if not isinstance(f, FilterLeaf):
                tests.extend(f.children)
            elif f.ref is not None and f.ref.expr is not None:
                yield f.ref.column.name


def written_size(node: RExpr, sizes: dict[int, int]) -> int:
    """The nodes `node` takes once written into SQL: a computed column read by name is one, one
    written out where it is read (not placed) its own size; `sizes` remembers those by id."""
    total = 1
    for n in node.walk():
        if isinstance(n, ColumnNode) and n.ref.expr is not None and not n.ref.placed:
            key = id(n.ref)
            if key not in sizes:
                sizes[key] = written_size(n.ref.expr, sizes)
            total += sizes[key]
        else:
            total += 1
    return total


def computed_ref(r: Resolver, name: str, node: RExpr, nulled: frozenset[str] = frozenset()) -> Ref:
    """A computed column as a column of the plan: what it reads, and whether it is placed.
    `nulled`: the datasets joined left (their rows may be null-extended after the join)."""
    reads: set[str] = set()
    for n in node.walk():
        if isinstance(n, CaseNode):
            for test, _ in n.whens:
                reads |= single_source(test)
        if isinstance(n, ColumnNode):
            reads |= {n.ref.alias, *n.ref.reads}
    reads.discard("")
    if not reads and r.sources:
        # values alone (`{"sub": [2, 2]}`): a column of the first dataset's rows, which no join
        # null-extends, not an expression written out wherever it is read (a chain doubles)
        reads = {r.sources[0].alias}
    alias = next(iter(reads)) if len(reads) == 1 else ""
    placed = bool(alias) and alias not in nulled
    return Ref(alias, ColumnInfo(name, node.type, node.physical), expr=node, reads=frozenset(reads), placed=placed)


def compute(r: Resolver, plan: QueryPlan, joins: list[Join]) -> None:
    if len(plan.compute) > r.limits.computed:
        r.over(
            "compute", f"at most {r.limits.computed} computed columns per plan", r.limits.computed, len(plan.compute)
        )
        raise PlanInvalid(r.problems)  # unread, their names would be unknown everywhere else
    taken = {c.name.lower() for s in r.sources for c in s.info.columns}
    nulled = frozenset(j.source.alias for j in joins if j.kind == "left")
    sizes: dict[int, int] = {}
    depths: dict[str, int] = {}
    term, condition = row_term(r), row_condition(r)
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
        if node is None or not supported(r, node, f"{path}.expr"):
            r.unresolved.add(c.as_)
            continue
        ref = computed_ref(r, c.as_, node, nulled)
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
