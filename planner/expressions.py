"""Expressions of a plan (`compute`, an aggregate's `expr`, `measures`) resolved and typed: each
name found (a dataset column, an earlier computed column, or in measures a result column), each
literal read, each operator checked against its definition (operators.py), every problem with
its path inside the expression (`compute[1].expr.mul[0]`)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from .models import ExprValue, QueryExpr, QueryFilter
from .operators import OPERATORS
from .resolved import CaseNode, ColumnNode, LiteralNode, NullNode, Operation, OutputNode, Ref, RExpr, RFilter, Shape
from .rules import PHYSICAL, Refused, common, exact_physical, literal_shape, shape_of
from .values import Unreadable, read_value

Term = Callable[[str, str], RExpr | None]  # a name in the scope: a column, or a result column
Condition = Callable[[QueryFilter, str], RFilter | None]  # a case's `when`

# Nesting past this is refused (a plan is written by a person or a model, not generated deep).
MAX_DEPTH = 32


class ExprResolving:
    """Mixed into the resolver: `term(name, path)` finds a name in the current scope and
    `condition(filter, path)` resolves a case's `when`; both add their own problems."""

    fail: Callable[..., None]

    def expr(
        self,
        node: Any,
        path: str,
        term: Term,
        condition: Condition,
        depth: int = 0,
    ) -> RExpr | None:
        """The typed expression of `node`, or None with its problems added."""
        if depth > MAX_DEPTH:
            self.fail(
                path, f"the expression nests deeper than {MAX_DEPTH} levels", expected=f"at most {MAX_DEPTH} levels"
            )
            return None
        if isinstance(node, str):
            found = term(node, path)
            if found is not None:
                found.path = path
            return found
        if isinstance(node, ExprValue):
            return self._literal(node.value, node.type, path)
        if isinstance(node, QueryExpr):
            return self._operator(node, path, term, condition, depth)
        return self._literal(node, "number", path)  # a JSON number

    def _literal(self, value: Any, type_: str | None, path: str) -> RExpr | None:
        if value is None:
            if type_ is None:
                self.fail(f"{path}.type", "a null literal needs a type", expected=" | ".join(PHYSICAL))
                return None
            return NullNode(type=type_, physical=PHYSICAL[type_], path=path)
        if type_ is None:
            type_ = "bool" if isinstance(value, bool) else "string" if isinstance(value, str) else "number"
        text = getattr(value, "text", None)  # a JSON number's own digits (service/calls.py)
        try:
            read = read_value(text if text is not None else value, type_)
        except Unreadable as err:
            self.fail(path, f"{value!r} cannot be read as {type_}", expected=str(err), received=value)
            return None
        if type_ == "number":
            exponent = read.as_tuple().exponent if isinstance(read, Decimal) else 0
            if (
                isinstance(read, Decimal)
                and read == read.to_integral_value()
                and isinstance(exponent, int)
                and exponent >= 0
            ):
                read = int(read)
            shape = literal_shape(read)
            return LiteralNode(type="number", physical=exact_physical(shape), value=read, shape=shape, path=path)
        physical = PHYSICAL[type_]
        if type_ == "datetime" and isinstance(read, dt.datetime) and read.tzinfo is not None:
            physical = "TIMESTAMPTZ"
        return LiteralNode(type=type_, physical=physical, value=read, path=path)

    def _operator(self, node: QueryExpr, path: str, term: Term, condition: Condition, depth: int) -> RExpr | None:
        op = node.operator
        spec = OPERATORS[op]
        at = f"{path}.{op}"
        if op == "case":
            return self._case(node, path, term, condition, depth)
        args_in = node.args
        if len(args_in) < spec.least or (spec.most is not None and len(args_in) > spec.most):
            wanted = (
                f"{spec.least}"
                if spec.most == spec.least
                else f"{spec.least} to {spec.most}"
                if spec.most
                else f"at least {spec.least}"
            )
            self.fail(
                at,
                f"{op} takes {wanted} argument(s); this has {len(args_in)}",
                expected=f"{wanted} argument(s)",
                received=len(args_in),
            )
            return None
        args: list[RExpr] = []
        for k, a in enumerate(args_in):
            where = f"{at}[{k}]" if isinstance(getattr(node, op), list) else at
            if k in spec.literal_args and isinstance(a, str):
                # a word: date_diff's unit, cast's type
                args.append(LiteralNode(type="string", physical="VARCHAR", value=a, path=where))
                continue
            resolved = self.expr(a, where, term, condition, depth + 1)
            if resolved is None:
                return None
            args.append(resolved)
        try:
            type_, physical, shape = spec.typed(args)
        except Refused as refused:
            where = f"{at}[{refused.arg}]" if refused.arg is not None and isinstance(getattr(node, op), list) else at
            self.fail(where, str(refused), expected=refused.expected)
            return None
        if type_ == "datetime" and op == "date_add" and args[0].physical == "TIMESTAMPTZ":
            physical = "TIMESTAMPTZ"
        word = str(args[0].value) if op == "date_diff" and isinstance(args[0], LiteralNode) else ""
        return Operation(op=op, type=type_, physical=physical, args=args, shape=shape, word=word, path=at)

    def _case(self, node: QueryExpr, path: str, term: Term, condition: Condition, depth: int) -> RExpr | None:
        whens: list[tuple[RFilter, RExpr]] = []
        for k, w in enumerate(node.case or []):
            at = f"{path}.case[{k}]"
            test = condition(w.when, f"{at}.when")
            then = self.expr(w.then, f"{at}.then", term, condition, depth + 1)
            if test is None or then is None:
                return None
            whens.append((test, then))
        if not whens:
            self.fail(f"{path}.case", "case needs at least one {when, then}")
            return None
        otherwise = (
            self.expr(node.else_, f"{path}.else", term, condition, depth + 1) if node.else_ is not None else None
        )
        values = [then for _, then in whens] + ([otherwise] if otherwise is not None else [])
        try:
            type_, physical, shape = common(values, "case")
        except Refused as refused:
            self.fail(f"{path}.case", str(refused), expected=refused.expected)
            return None
        return CaseNode(type=type_, physical=physical, whens=whens, otherwise=otherwise, shape=shape, path=path)


def column_node(ref: Ref, type_: str, physical: str, shape: Shape | None = None) -> RExpr:
    """A dataset column (or a computed one, `ref.expr` set) as an expression leaf."""
    return ColumnNode(type=type_, physical=physical, ref=ref, shape=shape if shape is not None else shape_of(physical))


def output_node(name: str, type_: str, physical: str, shape: Shape | None) -> RExpr:
    return OutputNode(type=type_, physical=physical, name=name, shape=shape)
