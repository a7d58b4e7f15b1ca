"""Floating point or fixed point (SPEC §3: DECIMAL when values are fixed-point, DOUBLE otherwise):
measurements written with many decimals, not all the same number of them, that a DOUBLE holds
as written are DOUBLE; money, fixed scales and values a DOUBLE would round stay DECIMAL."""

from __future__ import annotations

import random
from decimal import Decimal

import pytest
from conftest import columns, ingest

import tabular


def _measurements(count: int, seed: int) -> list[str]:
    """Values as a program writes floats: 9 to 13 decimals, trailing zeros dropped, no exponent."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        x = rng.gauss(0, 1) * 10 ** rng.randint(-1, 2)
        out.append(f"{x:.{rng.randint(9, 13)}f}".rstrip("0").rstrip("."))
    return out


def _write(path, lines: list[str]):
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "delimiter, mark",
    [(",", "."), (";", ","), ("\t", "."), ("|", ",")],
    ids=["comma", "semicolon-decimal-comma", "tab", "pipe-decimal-comma"],
)
def test_measurements_of_varying_scale_are_double_in_any_dialect(ns, tmp_path, delimiter, mark):
    values = _measurements(60, seed=len(delimiter + mark))
    lines = [delimiter.join(["Messung", "Wert"])]
    lines += [delimiter.join([f"m{i}", v.replace(".", mark)]) for i, v in enumerate(values)]
    _, dataset = ingest(ns, _write(tmp_path / "m.csv", lines))
    wert = columns(dataset)["Wert"]
    assert (wert.type, wert.physical) == ("number", "DOUBLE")
    assert dataset.questions == [] and dataset.rows_rejected == 0
    # Every value reads back as written.
    got = ns.query({"datasets": [{"source_uri": "m.csv"}], "select": [{"column": "Wert"}], "limit": 100})
    assert [r[0] for r in got.typed_rows()] == [float(v) for v in values]


def test_a_float_written_with_its_rounding_tail_is_double(ns, tmp_path):
    # 211.83900000000003 is a DOUBLE's own text: a sum written out by a program.
    values = ["216.215", "211.83900000000003", "180.5", "199.125", "205.1"]
    _, dataset = ingest(ns, _write(tmp_path / "areas.csv", ["area", *values]))
    area = columns(dataset)["area"]
    assert area.physical == "DOUBLE"
    assert area.max == 216.215


@pytest.mark.parametrize(
    "values",
    [
        ["12.50", "7.25", "1000.00", "0.99"],  # money
        ["1.000000000000000000", "0.250000000000000000", "12.123456789012345678"],  # wei: one scale
        ["0.123456789", "-4.987654321", "12.000000001"],  # nine decimals every time
        ["0.1234567890123456789", "0.5", "0.25"],  # a DOUBLE would round the first
        ["1.5", "2.75", "3.125"],  # few decimals
    ],
    ids=["money", "fixed-18", "fixed-9", "beyond-double", "short"],
)
def test_fixed_point_and_unholdable_values_stay_decimal(ns, tmp_path, values):
    _, dataset = ingest(ns, _write(tmp_path / "v.csv", ["v", *values]))
    v = columns(dataset)["v"]
    assert v.physical.startswith("DECIMAL"), v.physical
    got = ns.query({"datasets": [{"source_uri": "v.csv"}], "select": [{"column": "v"}]})
    assert [r[0] for r in got.typed_rows()] == [Decimal(x) for x in values]


def test_a_value_past_the_sample_a_double_would_round_keeps_the_column_decimal(ns, tmp_path):
    values = _measurements(40_000, seed=7)
    values[39_500] = "0.12345678901234567891"  # 20 significant digits: no DOUBLE holds it
    _, dataset = ingest(ns, _write(tmp_path / "late.csv", ["x", *values]))
    x = columns(dataset)["x"]
    assert x.physical.startswith("DECIMAL"), x.physical
    got = ns.query(
        {
            "datasets": [{"source_uri": "late.csv"}],
            "select": [{"column": "x"}],
            "where": [{"column": "x", "op": "between", "values": ["0.1234567890123456", "0.1234567890123457"]}],
        }
    )
    assert [r[0] for r in got.rows] == ["0.12345678901234567891"]


@pytest.mark.parametrize(
    "delimiter, values",
    [
        (",", ["1.50", "2.25", "1E3", "12345678901234567.89", "3.10"]),  # one exponent beside long money
        (";", ["0,1234567890123456789", "0,25", "12345678901234567890", "1,5"]),  # past 38 digits
        ("\t", ["1.5", "2.5", "123456789012345678901234567890123456789012"]),  # 42 digits
        ("|", ["6.02214076E23", "1.602176634e-19", "299792458.000000000001"]),
        (",", ["1E400", "2", "3.5"]),  # past a DOUBLE's range: it would be inf
        (";", ["-1E400", "2", "1.5"]),
        ("\t", ["1E-400", "2", "0.5"]),  # below it: it would be 0
        ("|", ["1.5E308", "2.5E308"]),
    ],
    ids=[
        "exponent",
        "decimal-comma-39-digits",
        "tab-42-digits",
        "pipe-physics",
        "inf",
        "minus-inf",
        "zero",
        "overflow",
    ],
)
def test_numbers_no_double_holds_are_kept_as_written_and_asked(ns, tmp_path, delimiter, values):
    lines = [delimiter.join(["id", "v"])] + [delimiter.join([f"r{i}", v]) for i, v in enumerate(values)]
    _, dataset = ingest(ns, _write(tmp_path / "p.csv", lines))
    v = columns(dataset)["v"]
    assert (v.type, v.physical) == ("string", "VARCHAR")
    (question,) = dataset.questions
    assert (question.kind, question.column) == ("precision", "v")
    got = ns.query({"datasets": [{"source_uri": "p.csv"}], "select": [{"column": "v"}]})
    assert [r[0] for r in got.rows] == values


def test_numbers_in_scientific_notation_a_double_holds_stay_double(ns, tmp_path):
    values = ["1E3", "2.5e-3", "7", "-4.75E+2"]
    _, dataset = ingest(ns, _write(tmp_path / "e.csv", ["v", *values]))
    v = columns(dataset)["v"]
    assert v.physical == "DOUBLE" and dataset.questions == []
    got = ns.query({"datasets": [{"source_uri": "e.csv"}], "select": [{"column": "v"}]})
    assert [r[0] for r in got.typed_rows()] == [float(x) for x in values]


@pytest.mark.parametrize("config", [{"fast_path_bytes": 0}, {"fast_path_bytes": 1 << 40}], ids=["one-pass", "careful"])
def test_an_exponent_column_with_a_late_value_no_double_holds_is_asked(tmp_path, config):
    values = [f"{i}.5E{i % 7}" for i in range(40_000)]
    values[39_500] = "12345678901234567.891"
    path = _write(tmp_path / "late.csv", ["x", *values])
    with tabular.connect(str(tmp_path / "home"), **config) as engine:
        ns = engine.namespace("acme", "one")
        _, dataset = ingest(ns, path)
        assert [q.kind for q in dataset.questions] == ["precision"]
        got = ns.query(
            {"datasets": [{"source_uri": "late.csv"}], "where": [{"column": "x", "op": "eq", "value": values[39_500]}]}
        )
        assert [r[0] for r in got.rows] == [values[39_500]]
