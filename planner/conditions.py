"""A plan's filters resolved (where, having, an aggregate's where, a case's when): each column
found, each operator checked against its column's type (the operator table's), each value read as
that type and brought to an exact column's scale the way that keeps the comparison's answer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from .models import QueryFilter
from .operators import FILTERS
from .resolved import OTHER_OPS, FilterGroup, FilterLeaf, Output, Ref, RFilter, Source
from .resolver import Resolver
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


def conditions(
    r: Resolver,
    items: list[QueryFilter],
    path: str,
    within: list[Source] | None = None,
    outputs: dict[str, Output] | None = None,
) -> list[RFilter]:
    return [f for i, item in enumerate(items) if (f := condition(r, item, f"{path}[{i}]", within, outputs)) is not None]


def condition(
    r: Resolver,
    item: QueryFilter,
    path: str,
    within: list[Source] | None = None,
    outputs: dict[str, Output] | None = None,
) -> RFilter | None:
    """A filter resolved: its column found (in having, among the result columns), its operator
    checked against the column's type, its values read as that type; else None with its problems."""
    if item.any is not None:
        return _group(r, "any", item.any, path, within, outputs)
    if item.all is not None:
        return _group(r, "all", item.all, path, within, outputs)
    op, column = item.op, item.column
    if op is None or column is None:  # QueryFilter takes a leaf only with both (models.py)
        raise ValueError(f"{path}: a filter names its column and its op")
    spec = FILTERS[op]
    if outputs is not None:
        output = _result_column(r, column, f"{path}.column", outputs)
        if output is None:
            return None
        type_, physical, ref = output.type, output.physical, None
    else:
        ref = r.ref(column, f"{path}.column", within)
        if ref is None:
            return None
        type_, physical, output = ref.column.type, ref.column.physical, None
    if type_ not in spec.types:
        r.fail(
            f"{path}.op",
            f"{op} does not apply to a {type_} column",
            expected=" | ".join(o for o, f in FILTERS.items() if type_ in f.types),
            received=op,
        )
        return None
    if item.ignore_case and type_ != "string":
        r.fail(f"{path}.ignore_case", "ignore_case applies to strings only", received=True)
    if item.other is not None:
        return _compared(r, op, (column, item.other), item.ignore_case, path, within, outputs, ref, output, type_)
    values = _values(r, item, op, spec.arity, type_, path)
    if values is None:
        return None
    return FilterLeaf(ref, op, fitted(op, values, type_, physical), item.ignore_case, output=output, path=path)


def _group(
    r: Resolver,
    kind: Literal["any", "all"],
    items: list[QueryFilter],
    path: str,
    within: list[Source] | None,
    outputs: dict[str, Output] | None,
) -> FilterGroup | None:
    children = conditions(r, items, f"{path}.{kind}", within, outputs)
    if not children:
        r.fail(f"{path}.{kind}", f"an {kind} group needs at least one filter")
        return None
    return FilterGroup(kind, children)


def _compared(
    r: Resolver,
    op: str,
    names: tuple[str, str],
    ignore_case: bool,
    path: str,
    within: list[Source] | None,
    outputs: dict[str, Output] | None,
    ref: Ref | None,
    output: Output | None,
    type_: str,
) -> RFilter | None:
    """A filter comparing two columns (`other`): a comparison, their types one as join keys' are."""
    column, other_name = names
    if op not in OTHER_OPS:
        r.fail(
            f"{path}.op",
            f"{op} compares with a value; another column is compared by " + " ".join(OTHER_OPS),
            expected=" | ".join(OTHER_OPS),
            received=op,
        )
        return None
    other: Ref | None
    other_output: Output | None
    if outputs is not None:
        other_output = _result_column(r, other_name, f"{path}.other", outputs)
        if other_output is None:
            return None
        other, other_type = None, other_output.type
    else:
        other_output, other = None, r.ref(other_name, f"{path}.other", within)
        if other is None:
            return None
        other_type = other.column.type
    if not r.one_type(f"{path}.other", "two columns compared", (column, type_), (other_name, other_type)):
        return None
    return FilterLeaf(ref, op, [], ignore_case, output=output, other=other, other_output=other_output)


def _result_column(r: Resolver, name: str, path: str, outputs: dict[str, Output]) -> Output | None:
    """A result column named by having (its `column` or its `other`); else the problem at `path`."""
    output = outputs.get(name)
    if output is None:
        r.not_among(path, f"having reads result columns; {name!r} is not one", name, list(outputs))
    return output


def _values(r: Resolver, item: QueryFilter, op: str, arity: str, type_: str, path: str) -> list[Any] | None:
    if arity == "none":
        return []
    if arity == "one":
        raw, where = [item.value], [f"{path}.value"]
        if lone_backslash(op, item.value):
            r.fail(
                f"{path}.value",
                "a like pattern cannot end with a lone backslash (write \\\\ for a backslash)",
                expected="a pattern: % any run, _ one character, \\ before either for itself",
                received=item.value,
            )
            return None
    else:
        if not item.values:
            r.fail(
                f"{path}.values",
                f"{op} takes a list of values",
                expected="[lo, hi]" if arity == "two" else "[v1, v2, …]",
            )
            return None
        if arity == "two" and len(item.values) != 2:
            r.fail(f"{path}.values", "between takes two values", expected="[lo, hi]", received=item.values)
            return None
        if len(item.values) > r.limits.in_values:
            r.over(f"{path}.values", f"at most {r.limits.in_values} values", r.limits.in_values, len(item.values))
            return None
        raw, where = item.values, [f"{path}.values[{k}]" for k in range(len(item.values))]
    out = []
    for value, at in zip(raw, where):
        try:
            out.append(read_value(value, type_))
        except Unreadable as err:
            r.fail(at, f"{value!r} cannot be read as {type_}", expected=str(err), received=value)
            return None
    return out


def single_source(f: RFilter) -> set[str]:
    """The datasets a filter reads ('' for a computed column over several)."""
    if isinstance(f, FilterLeaf):
        return {ref.alias for ref in (f.ref, f.other) if ref is not None}
    return set().union(*(single_source(c) for c in f.children))


def given_values(item: QueryFilter, arity: str) -> list[Any]:
    """A filter's values as the plan gives them: none, its `value`, or its `values`."""
    return [] if arity == "none" else [item.value] if arity == "one" else list(item.values or [])


def lone_backslash(op: str, value: Any) -> bool:
    """A like pattern ending in a backslash that makes nothing plain (it has no next character)."""
    if op not in ("like", "not_like") or not isinstance(value, str):
        return False
    return (len(value) - len(value.rstrip("\\"))) % 2 == 1


def fitted(op: str, values: list[Any], type_: str, physical: str) -> list[Any]:
    """A filter's values read as its column's type (values.read_value), each number brought to
    an exact column's scale the way that keeps the comparison's answer, or Beyond every value."""
    if type_ != "number":
        return values
    return [fit(v, physical, _ROUNDING[op][min(k, 1)]) for k, v in enumerate(values)]


def row_condition(r: Resolver) -> Callable[[QueryFilter, str], RFilter | None]:
    """A case's `when` over the rows (dataset and computed columns)."""
    return lambda item, path: condition(r, item, path)
