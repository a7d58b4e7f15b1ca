"""A plan's joins resolved: each condition's columns found on its two sides and typed as join keys
are (at least one equality), one-row plans joined on [], semi and anti joins."""

from __future__ import annotations

from .models import QueryPlan
from .resolved import Join
from .resolver import Resolver


def joins_of(r: Resolver, plan: QueryPlan) -> list[Join]:
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
