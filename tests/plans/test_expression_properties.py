"""Property tests of expressions and windows (issue 17): generated expressions and measures run
through the engine and answered by an oracle that reads the CSV with Polars and computes in
Python's decimal arithmetic, never calling tabular.

The oracle states SPEC §4 as read here:
- add, sub, mul, neg, abs, round, floor, ceil of integers and decimals are exact; the result's
  shape (precision, scale) is the exact result's: add/sub keep the wider integer part and scale and
  add a digit, mul adds digits and scales, round to d < s places gives (p - s + d + 1, d), floor
  and ceil (p - s + 1, 0); an integer column has the digits of its widest value; a literal the
  digits it is written with; past 38 digits the plan is refused (422) before it runs;
- div is a DOUBLE and null where the divisor is zero (also -0); a null operand makes a null;
- round is half away from zero; coalesce and case take the wider shape of their values;
- windows: rank / dense_rank / row_number by their order (nulls last; row_number and running
  sums break ties by the groups ascending), running_sum exact, share = value / partition total
  (null when the total is 0 or null).

Default run: FAST examples; `make test-long` (-m slow) runs 2,000.
"""

from __future__ import annotations

import decimal
import math
from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_UP, Decimal

import polars as pl
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import tabular

CTX = decimal.Context(prec=200)
COMMON = dict(
    deadline=None, database=None, phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck)
)

# x: DECIMAL(.., 2) with a negative zero and a 30-digit value; y: integers to the edge of BIGINT;
# z: DECIMAL(.., 4) small; g, h: groups. Nulls in every column.
ROWS = [
    ("1", "a", "p", "12.50", "3", "0.0001"),
    ("2", "a", "q", "-0.00", "0", "-1.5000"),
    ("3", "b", "p", "", "-7", "2.2500"),
    ("4", "b", "q", "999999999999999999999999999.99", "", "0.0000"),
    ("5", "c", "p", "-45.05", "9223372036854775807", ""),
    ("6", "", "q", "0.05", "-9223372036854775807", "3.1416"),
    ("7", "a", "p", "7.25", "12", "-0.5000"),
    ("8", "c", "", "-0.50", "1", "0.5000"),
    ("9", "b", "p", "100.00", "-1", "1.0000"),
    ("10", "a", "q", "0.01", "5", "-2.7182"),
]


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    folder = tmp_path_factory.mktemp("exprprop")
    path = folder / "t.csv"
    path.write_text("id,g,h,x,y,z\n" + "\n".join(",".join(r) for r in ROWS) + "\n", encoding="utf-8")
    with tabular.connect(str(folder / "home")) as engine:
        ns = engine.namespace("prop", "expr")
        assert ns.ingest_file(path, source_uri="t.csv").state == "ready"
        (d,) = ns.dataset_get("t.csv").datasets
        physical = {c.name: c.physical for c in d.columns}
        frame = pl.read_csv(path, infer_schema=False).with_columns(pl.all().replace("", None))
        yield ns, physical, frame.to_dicts()


def shape_of(physical: str, column: str | None) -> tuple[int, int] | None:
    if physical == "BIGINT":
        widest = max((abs(int(r[3 + "xyz".index(column)])) for r in ROWS if r[3 + "xyz".index(column)]), default=0)
        return (len(str(widest)), 0)
    if physical.startswith("DECIMAL"):
        p, s = physical[8:-1].split(",")
        return int(p), int(s)
    return None


# Expressions: (json, oracle function row -> value, shape or None for DOUBLE, error flag) -----------


def leaf(draw, physical):
    kind = draw(st.sampled_from(["x", "y", "z", "int", "dec"]))
    if kind in "xyz":
        return kind, (lambda r, c=kind: None if r[c] is None else Decimal(r[c])), shape_of(physical[kind], kind), False
    if kind == "int":
        v = draw(st.integers(-(10**6), 10**6))
        return v, (lambda r, v=v: Decimal(v)), (max(len(str(abs(v))), 1), 0), False
    text = draw(st.sampled_from(["0.5", "-0.0", "0.05", "1.25", "-3.125", "100.0001", "0.1"]))
    v = Decimal(text)
    sign, digits, exp = v.as_tuple()
    scale = -exp
    whole = max(len(digits) + exp, 0)
    return float(text), (lambda r, v=v: v), (max(whole, 1) + scale, scale), False


def wide(shape) -> bool:
    return shape is not None and shape[0] > 38


@st.composite
def expressions(draw, physical, depth=0):
    """(plan JSON, oracle row -> value, shape (None: DOUBLE), whether any node passes 38 digits)."""
    if depth >= 3 or draw(st.integers(0, 2)) == 0:
        return leaf(draw, physical)
    op = draw(
        st.sampled_from(
            ["add", "sub", "mul", "div", "neg", "abs", "round", "floor", "ceil", "coalesce", "nullif", "case"]
        )
    )
    a = draw(expressions(physical, depth + 1))
    if op in ("neg", "abs", "floor", "ceil"):
        f = {
            "neg": CTX.minus,
            "abs": CTX.abs,
            "floor": lambda v: v.to_integral_value(ROUND_FLOOR, CTX),
            "ceil": lambda v: v.to_integral_value(ROUND_CEILING, CTX),
        }[op]
        shape = a[2]
        if shape is not None and op in ("floor", "ceil") and shape[1]:
            shape = (shape[0] - shape[1] + 1, 0)
        fn = lambda r, f=f, a=a: (
            None if (v := a[1](r)) is None else (f(v) if a[2] is not None else float(f(Decimal(v))))
        )
        if a[2] is None:
            f2 = {"neg": lambda v: -v, "abs": abs, "floor": math.floor, "ceil": math.ceil}[op]
            fn = lambda r, f2=f2, a=a: None if (v := a[1](r)) is None else float(f2(v))
        return {op: a[0]}, fn, shape, a[3] or wide(shape)
    if op == "round":
        d = draw(st.integers(0, 3))
        shape = a[2]
        if shape is not None and d < shape[1]:
            shape = (shape[0] - shape[1] + d + 1, d)
        if a[2] is None:
            # A double at a decimal tie (-45.05 is -45.04999… in binary) may round either way: both are right.
            fn = lambda r, a=a, d=d: (
                None
                if (v := a[1](r)) is None
                else Tie(
                    float(Decimal(str(v)).quantize(Decimal(1).scaleb(-d), ROUND_HALF_UP)),
                    float(Decimal(v).quantize(Decimal(1).scaleb(-d), ROUND_HALF_UP)),
                )
            )
        else:
            fn = lambda r, a=a, d=d: (
                None
                if (v := a[1](r)) is None
                else (
                    v.quantize(Decimal(1).scaleb(-d), ROUND_HALF_UP, context=CTX) if d < -v.as_tuple().exponent else v
                )
            )
        return {"round": [a[0], d]}, fn, shape, a[3] or wide(shape)
    b = draw(expressions(physical, depth + 1))
    if op == "div":

        def div(r, a=a, b=b):
            x, y = a[1](r), b[1](r)
            if x is None or y is None or float(y) == 0:
                return None
            return float(x) / float(y)

        return {"div": [a[0], b[0]]}, div, None, a[3] or b[3]
    if op in ("add", "sub", "mul"):
        if a[2] is None or b[2] is None:
            shape = None
        elif op == "mul":
            shape = (a[2][0] + b[2][0], a[2][1] + b[2][1])
        else:
            s = max(a[2][1], b[2][1])
            shape = (max(a[2][0] - a[2][1], b[2][0] - b[2][1]) + s + 1, s)
        f = {"add": CTX.add, "sub": CTX.subtract, "mul": CTX.multiply}[op]

        def arith(r, a=a, b=b, f=f, exact=shape is not None, op=op):
            x, y = a[1](r), b[1](r)
            if x is None or y is None:
                return None
            if exact:
                return f(x, y)
            return {"add": float(x) + float(y), "sub": float(x) - float(y), "mul": float(x) * float(y)}[op]

        return {op: [a[0], b[0]]}, arith, shape, a[3] or b[3] or wide(shape)
    # coalesce, nullif, case: values that stand for each other
    if a[2] is None or b[2] is None:
        common = None
    else:
        s = max(a[2][1], b[2][1])
        common = (max(a[2][0] - a[2][1], b[2][0] - b[2][1]) + s, s)
    if op == "coalesce":
        return (
            {"coalesce": [a[0], b[0]]},
            (lambda r, a=a, b=b: v if (v := a[1](r)) is not None else b[1](r)),
            common,
            a[3] or b[3] or wide(common),
        )
    if op == "nullif":

        def nullif(r, a=a, b=b):
            x, y = a[1](r), b[1](r)
            return (
                None
                if x is not None
                and y is not None
                and Decimal(repr(x) if isinstance(x, float) else x) == Decimal(repr(y) if isinstance(y, float) else y)
                else x
            )

        return {"nullif": [a[0], b[0]]}, nullif, a[2], a[3] or b[3] or wide(common)
    column = draw(st.sampled_from(["x", "y", "z"]))
    bound = draw(st.sampled_from(["0", "1", "-1.5"]))
    when = {"column": column, "op": "gt", "value": bound}
    return (
        {"case": [{"when": when, "then": a[0]}], "else": b[0]},
        (
            lambda r, a=a, b=b, c=column, lo=Decimal(bound): (
                a[1](r) if r[c] is not None and Decimal(r[c]) > lo else b[1](r)
            )
        ),
        common,
        a[3] or b[3] or wide(common),
    )


class Tie(float):
    """A double rounded at a decimal tie: either way is right. Arithmetic on it gives a plain float."""

    def __new__(cls, value: float, other: float):
        made = super().__new__(cls, value)
        made.other = other
        return made


def matches(got, want, exact: bool) -> bool:
    if want is None or got is None:
        return got is None and want is None
    if isinstance(want, Tie):
        return matches(got, float(want), exact) or matches(got, want.other, exact)
    if exact:
        return Decimal(str(got)) == Decimal(want)
    return math.isclose(float(got), float(want), rel_tol=1e-9, abs_tol=1e-12)


def check_expression(env, data):
    ns, physical, rows = env
    expr, fn, shape, too_wide = data.draw(expressions(physical))
    plan = {
        "datasets": [{"source_uri": "t.csv"}],
        "compute": [{"as": "e", "expr": expr}],
        "select": [{"column": "id"}, {"column": "e"}],
    }
    if too_wide:
        with pytest.raises(tabular.ValidationFailed) as err:
            ns.query(plan)
        assert err.value.errors[0].path.startswith("compute[0].expr") and "38" in err.value.errors[0].message
        return
    answer = ns.query(plan)
    (computed,) = answer.receipt.computed
    if isinstance(expr, str):
        assert computed.physical == physical[expr]  # a column as it is stored
    elif shape is None:
        assert computed.physical == "DOUBLE", (expr, computed)
    else:
        p, s = shape
        wanted = {f"DECIMAL({p}, {s})"} if s else {"BIGINT"} if p <= 18 else {"HUGEINT"}
        if (p, s) == (19, 0):
            wanted.add("BIGINT")  # a BIGINT column's own values (nullif, coalesce of it) fit it
        assert computed.physical in wanted, (expr, computed)
    for (row_id, got), row in zip(answer.rows, rows):
        assert int(row_id) == int(row["id"])
        want = fn(row)
        assert matches(got, want, shape is not None), (expr, row, got, want)


@settings(max_examples=75, **COMMON)
@given(data=st.data())
def test_expressions_are_exact_or_refused_before_running(env, data):
    with decimal.localcontext(CTX):
        check_expression(env, data)


@pytest.mark.slow
@settings(max_examples=2_000, **COMMON)
@given(data=st.data())
def test_expressions_are_exact_or_refused_before_running_long(env, data):
    with decimal.localcontext(CTX):
        check_expression(env, data)


# Windows over a grouped result -------------------------------------------------------------------


def grouped(rows, keys):
    out: dict[tuple, dict] = {}
    for r in rows:
        key = tuple(r[k] for k in keys)
        acc = out.setdefault(key, {"s": None, "n": 0})
        acc["n"] += 1
        if r["x"] is not None:
            acc["s"] = (acc["s"] or Decimal(0)) + Decimal(r["x"])
    return out


def sort_key(key, desc):
    """Nulls last under either direction; `desc` reverses the values only."""
    return (key is None, (-key if desc else key) if key is not None else 0)


def check_window(env, data):
    ns, physical, rows = env
    fn = data.draw(
        st.sampled_from(["rank", "dense_rank", "row_number", "running_sum", "share", "sum", "min", "max", "count"])
    )
    partition = data.draw(st.booleans())
    desc = data.draw(st.booleans())
    window = {"fn": fn}
    if fn in ("rank", "dense_rank", "row_number", "running_sum"):
        window["order_by"] = [{"column": "s", "desc": desc}]
    if fn not in ("rank", "dense_rank", "row_number"):
        window["of"] = "s" if fn != "count" else "n"
    if partition:
        window["partition_by"] = ["g"]
    plan = {
        "datasets": [{"source_uri": "t.csv"}],
        "group_by": [{"column": "g"}, {"column": "h"}],
        "aggregates": [{"fn": "sum", "column": "x", "as": "s"}, {"fn": "count", "as": "n"}],
        "measures": [{"as": "m", "window": window}],
        "limit": 1000,
    }
    answer = ns.query(plan)
    groups = grouped(rows, ["g", "h"])

    # The oracle's windows: each row's partition, ordered by s (nulls last), ties by (g, h) ascending.
    def part(key):
        return [k for k in groups if not partition or k[0] == key[0]]

    def ordered(keys):
        by_group = sorted(keys, key=lambda k: ((k[0] is None, k[0] or ""), (k[1] is None, k[1] or "")))
        return sorted(by_group, key=lambda k: sort_key(groups[k]["s"], desc))

    got = {(r[0], r[1]): r[4] for r in answer.rows}
    assert len(got) == len(groups)
    for key, acc in groups.items():
        mine = part(key)
        if fn in ("rank", "dense_rank"):
            values = [groups[k]["s"] for k in mine]
            here = acc["s"]
            ahead = [v for v in values if sort_key(v, desc) < sort_key(here, desc)]
            want = 1 + (len(ahead) if fn == "rank" else len(set(ahead)))
        elif fn == "row_number":
            want = ordered(mine).index(key) + 1
        elif fn == "running_sum":
            seq = ordered(mine)
            upto = [groups[k]["s"] for k in seq[: seq.index(key) + 1] if groups[k]["s"] is not None]
            want = sum(upto, Decimal(0)) if upto else None
        elif fn in ("sum", "share"):
            values = [groups[k]["s"] for k in mine if groups[k]["s"] is not None]
            total = sum(values, Decimal(0)) if values else None
            if fn == "sum":
                want = total
            else:
                want = None if acc["s"] is None or total is None or total == 0 else float(acc["s"]) / float(total)
        elif fn in ("min", "max"):
            values = [groups[k]["s"] for k in mine if groups[k]["s"] is not None]
            want = (min if fn == "min" else max)(values) if values else None
        else:
            want = len(mine)  # result rows of the partition whose `of` (n) is not null: all
        assert matches(got[key], want, fn != "share"), (window, key, got[key], want)


@settings(max_examples=60, **COMMON)
@given(data=st.data())
def test_windows_agree_with_the_oracle(env, data):
    with decimal.localcontext(CTX):
        check_window(env, data)


@pytest.mark.slow
@settings(max_examples=2_000, **COMMON)
@given(data=st.data())
def test_windows_agree_with_the_oracle_long(env, data):
    with decimal.localcontext(CTX):
        check_window(env, data)
