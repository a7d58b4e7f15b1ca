"""Every value DuckDB can hold leaves the engine whole in every format (SPEC §4, issue 53): dates
and timestamps past 9999 and before year 1 in ISO 8601's expanded form, DuckDB's infinities,
NaN and infinite floats, decimals of 38 digits, integers past 2^63, text with control characters
and intervals, through knowledge.query's rows, NDJSON, CSV, Parquet, Arrow, to_polars(whole=True),
HTTP's query_export and the CLI's --output: no stream cut short, no INTERNAL, and each value read
back is the one DuckDB holds (checked against an oracle of Python's calendar, not the writer's).

Examples: VALUE_EDGE_EXAMPLES (2) drawn and EXTREMES in `make test`, 75 under `-m slow`."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import math
import os
import re
from decimal import Decimal

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

import tabular
from tabular.service.http import create_app

EXAMPLES = int(os.environ.get("VALUE_EDGE_EXAMPLES", 2))
EDGES = dict(
    deadline=None, database=None, phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck)
)

# DuckDB's reach: dates are days since 1970 within ±2^31-2 (5877642 BC to 5881580 AD), their
# 'infinity' and '-infinity' one past; timestamps microseconds within about ±2^63.
DAY_REACH = 2**31 - 2
INFINITE_DAY = 2**31 - 1
MICRO_FIRST, MICRO_LAST = -9_223_372_022_400_000_000, 9_223_371_331_200_000_000
INFINITE_MICRO = 2**63 - 1
AROUND = [0, -1, -719_162, -719_163, -719_528, 2_932_896, 2_932_897, -DAY_REACH, DAY_REACH]

# What each column of the edge file is read as in the plan: (computed name, cast type).
CASTS = [
    ("d", "date"),
    ("ts", "datetime"),
    ("f", "number"),
    ("i", "integer"),
    ("dec", "decimal(38,10)"),
    ("iv", "duration"),
    ("shift", "duration"),
]


def days() -> st.SearchStrategy[int]:
    return st.one_of(st.sampled_from([*AROUND, INFINITE_DAY, -INFINITE_DAY]), st.integers(-DAY_REACH, DAY_REACH))


def micros() -> st.SearchStrategy[int]:
    return st.one_of(
        st.sampled_from([0, 253_402_300_800_000_000, -62_135_596_800_000_001, INFINITE_MICRO, -INFINITE_MICRO]),
        st.integers(MICRO_FIRST, MICRO_LAST),
        st.integers(-(10**17), 10**17),
    )


FLOATS = st.one_of(
    st.sampled_from(["nan", "inf", "-inf", "-0.0", "1.7976931348623157e308", "5e-324"]),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
)
INTEGERS = st.integers(-(2**63) + 1, 2**63 - 1)
DECIMALS = st.decimals(
    min_value=Decimal("-" + "9" * 28 + ".9999999999"), max_value=Decimal("9" * 28 + ".9999999999"), places=10
)
# Text with every control character but NUL (a CSV cell cannot carry it), and some that are not ASCII.
TEXT = st.text(st.characters(min_codepoint=1, max_codepoint=0x2FF, exclude_categories=("Cs",)), max_size=12)
# An interval by its parts (months, days, microseconds), each as far as DuckDB's reach. Arrow's
# interval carries microseconds as int64 nanoseconds: past ±ARROW_MICROS (292 years) DuckDB's
# Arrow wrapped them (-9.2e18 µs arrived as 2 µs); every text output writes them whole, and an
# Arrow output is refused naming the column.
ARROW_MICROS = (2**63 - 1) // 1000
INTERVALS = st.tuples(
    st.integers(-(2**31) + 1, 2**31 - 1),
    st.integers(-(2**31) + 1, 2**31 - 1),
    st.one_of(
        st.sampled_from([ARROW_MICROS, ARROW_MICROS + 1, -ARROW_MICROS - 1, 2**63 - 1, -(2**63) + 1]),
        st.integers(-(2**63) + 1, 2**63 - 1),
        st.integers(-ARROW_MICROS, ARROW_MICROS),
    ),
)
# A time zone's timestamp: 2024-01-01 00:00:00+00 moved by microseconds, within DuckDB's reach.
ZONE_BASE = 1_704_067_200_000_000
SHIFTS = st.integers(max(MICRO_FIRST - ZONE_BASE, -(2**63) + 1), MICRO_LAST - ZONE_BASE)
ROW = st.tuples(days(), micros(), FLOATS, INTEGERS, DECIMALS, TEXT, st.integers(-(2**62), 2**62), INTERVALS, SHIFTS)


def oracle_date(day: int) -> str:
    """ISO 8601 text of a count of days since 1970, from Python's calendar and its 400-year
    cycle (146,097 days): astronomical years, 4 digits at least, '+' past 9999, '-' before 0."""
    if abs(day) == INFINITE_DAY:
        return "infinity" if day > 0 else "-infinity"
    cycles, rest = divmod(day, 146_097)
    date = dt.date(1970, 1, 1) + dt.timedelta(days=rest)
    year = date.year + 400 * cycles
    sign = "-" if year < 0 else "+" if year > 9999 else ""
    return f"{sign}{abs(year):04d}-{date.month:02d}-{date.day:02d}"


ISO_DURATION = re.compile(
    r"(-)?P(?:(-?\d+)Y)?(?:(-?\d+)M)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?"
)


def interval_parts(text: str) -> tuple[int, int]:
    """An ISO 8601 duration read back as (months, microseconds of its days and time): the parts
    no reader can tell apart once written (a day is 24 hours in it) are compared as one."""
    sign, years, months, days, hours, minutes, seconds = ISO_DURATION.fullmatch(text).groups()
    total_months = int(years or 0) * 12 + int(months or 0)
    seconds_us = round(Decimal(seconds or 0) * 1_000_000)
    micros = ((int(days or 0) * 24 + int(hours or 0)) * 60 + int(minutes or 0)) * 60_000_000 + seconds_us
    return (-total_months, -micros) if sign else (total_months, micros)


def oracle_timestamp(micro: int) -> str:
    if abs(micro) == INFINITE_MICRO:
        return "infinity" if micro > 0 else "-infinity"
    day, rest = divmod(micro, 86_400_000_000)
    return oracle_date(day) + "T" + (dt.datetime.min + dt.timedelta(microseconds=rest)).time().isoformat()


def rendered(rows: list[tuple]) -> list[tuple[str, str]]:
    """DuckDB's own text of each row's date and timestamp (what its cast reads back)."""
    con = duckdb.connect()

    def text(sql: str, value: int) -> str:
        return con.execute(sql, [value]).fetchone()[0]

    out = []
    for day, micro, *_, (months, days_, us), shift in rows:
        d = (
            ("infinity" if day > 0 else "-infinity")
            if abs(day) == INFINITE_DAY
            else text("SELECT (DATE '1970-01-01' + $1::INTEGER)::VARCHAR", day)
        )
        ts = (
            ("infinity" if micro > 0 else "-infinity")
            if abs(micro) == INFINITE_MICRO
            else text("SELECT make_timestamp($1::BIGINT)::VARCHAR", micro)
        )
        span = con.execute(
            "SELECT (to_months($1::INTEGER) + to_days($2::INTEGER) + to_microseconds($3::BIGINT))::VARCHAR",
            [months, days_, us],
        ).fetchone()[0]
        moved = con.execute("SELECT to_microseconds($1::BIGINT)::VARCHAR", [shift]).fetchone()[0]
        out.append((d, ts, span, moved))
    return out


def edge_file(path, rows: list[tuple]) -> None:
    """A CSV of the rows, each value after 'x:' so the ingest keeps it text for the plan's casts."""
    with path.open("w", newline="", encoding="utf-8") as f:
        out = csv.writer(f)
        out.writerow(["id", "d_", "ts_", "f_", "i_", "dec_", "s", "h", "iv_", "zone", "shift_"])
        for k, (row, (d, ts, span, moved)) in enumerate(zip(rows, rendered(rows))):
            _, _, f_, i_, dec_, s, h, _, _ = row
            zone = "2024-01-01 00:00:00+00:00"
            out.writerow(
                [
                    k,
                    f"x:{d}",
                    f"x:{ts}",
                    f"x:{f_}",
                    f"x:{i_}",
                    f"x:{dec_}",
                    f"x:{s}",
                    h,
                    f"x:{span}",
                    zone,
                    f"x:{moved}",
                ]
            )


PLAN = {
    "datasets": [{"source_uri": "edges.csv"}],
    "compute": [
        *({"as": name, "expr": {"cast": [{"substring": [f"{name}_", 3]}, {"value": kind}]}} for name, kind in CASTS),
        {"as": "text", "expr": {"substring": ["s", 3]}},
        {"as": "huge", "expr": {"mul": ["h", {"value": 10**18}]}},  # a HUGEINT past 2^63
        {"as": "tz", "expr": {"date_add": ["zone", "shift"]}},  # a TIMESTAMPTZ
    ],
    "select": [{"column": c} for c in ("id", "d", "ts", "f", "i", "dec", "text", "huge", "iv", "tz")],
    "order_by": [{"column": "id"}],
    "limit": 10_000,
}


def expected(rows: list[tuple]) -> list[dict]:
    """Each row as SPEC §3 writes it in JSON, from the oracle."""
    out = []
    for k, (day, micro, f, i, dec, s, h, (months, days_, us), shift) in enumerate(rows):
        number = float(f)
        out.append(
            {
                "id": k,
                "d": oracle_date(day),
                "ts": oracle_timestamp(micro),
                "f": number if math.isfinite(number) else str(number),
                "i": i if abs(i) <= 2**53 - 1 else str(i),
                "dec": format(dec, "f"),
                "text": s,
                "huge": h * 10**18 if abs(h * 10**18) <= 2**53 - 1 else str(h * 10**18),
                "iv": (months, days_ * 86_400_000_000 + us),
                "tz": oracle_timestamp(ZONE_BASE + shift) + "+00:00",
            }
        )
    return out


def alike(got: list[dict], want: list[dict], where: str) -> None:
    """Every row as the oracle has it, saying which value of which row in which output differs."""
    assert len(got) == len(want), f"{where}: {len(got)} rows of {len(want)}"
    for k, (row, expect) in enumerate(zip(got, want)):
        assert same(row, expect), f"{where}, row {k}: " + ", ".join(
            f"{key}: {row.get(key)!r} != {expect[key]!r}"
            for key in expect
            if not same({**row, key: row.get(key)}, {key: expect[key]})
        )


def same(got: dict, want: dict) -> bool:
    """Equal, NaN equal to NaN ("nan" as text in JSON, a float NaN where the format has floats);
    an integer as SPEC §3 writes it in every JSON output, a number within ±(2^53-1) and its
    text past it (a stream's HUGEINT had been text whatever its size)."""
    for key, value in want.items():
        other = got[key]
        if key == "iv":
            other = other if isinstance(other, tuple) else interval_parts(other)
        if value == "nan" and (other == "nan" or (isinstance(other, float) and math.isnan(other))):
            continue
        if other != value:
            return False
    return True


def from_text(row: dict) -> dict:
    """A CSV row's text read as JSON's values: numbers as numbers where JSON has them."""
    out = dict(row)
    out["id"] = int(row["id"])
    for key in ("f", "i", "huge"):
        value = row[key]
        if key == "f":
            number = float(value)
            out[key] = number if math.isfinite(number) else str(number)
        else:
            number = int(value)
            out[key] = number if abs(number) <= 2**53 - 1 else str(number)
    return out


def typed(table: pa.Table) -> list[dict]:
    """An Arrow table's rows as JSON's values by the oracle's rules, from the types as stored:
    dates and timestamps by their counts (days, microseconds), so nothing of the writer is used."""
    columns = {}
    for name in table.column_names:
        column = table.column(name)
        if pa.types.is_date32(column.type):
            columns[name] = [oracle_date(v) for v in column.cast(pa.int32()).to_pylist()]
        elif pa.types.is_timestamp(column.type):
            zone = "+00:00" if column.type.tz else ""
            columns[name] = [oracle_timestamp(v) + zone for v in column.cast(pa.int64()).to_pylist()]
        elif pa.types.is_interval(column.type):
            parts = column.to_pylist()
            columns[name] = [(v.months, v.days * 86_400_000_000 + v.nanoseconds // 1000) for v in parts]
        elif pa.types.is_decimal(column.type):
            values = column.to_pylist()
            columns[name] = [int(v) if column.type.scale == 0 else format(v, "f") for v in values]
        else:
            columns[name] = column.to_pylist()
    rows = [dict(zip(columns, values)) for values in zip(*columns.values())]
    for row in rows:
        for key in ("f",):
            if not math.isfinite(row[key]):
                row[key] = str(row[key])
        for key in ("i", "huge"):
            row[key] = row[key] if abs(row[key]) <= 2**53 - 1 else str(row[key])
    return rows


def polars_rows(frame: pl.DataFrame) -> list[dict]:
    """A Polars frame's rows the same way: a typed date or datetime by its count, text as it is."""
    str(frame)  # shown: a value Polars cannot hold would panic here
    table = frame.to_arrow()
    return typed(
        table.cast(
            pa.schema([f.with_type(pa.large_string()) if pa.types.is_string_view(f.type) else f for f in table.schema])
        )
    )


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    with tabular.connect(str(tmp_path_factory.mktemp("edges") / "home")) as e:
        yield e


def default(engine):
    return engine.namespace(engine.settings.default_org, engine.settings.default_namespace)


# Always tried: a HUGEINT of 0 (a number, not "0", in every JSON output), an interval past
# Arrow's 292 years each way.
EXTREMES = [
    (0, 0, "1.5", 1, Decimal("1.0000000000"), "a", 0, (1, -2, 2**63 - 1), 0),
    (1, 1, "2.5", 2, Decimal("2.0000000000"), "b", 1, (0, 0, -(2**63) + 1), 0),
]


@settings(max_examples=EXAMPLES, **EDGES)
@given(rows=st.lists(ROW, min_size=1, max_size=6))
@example(rows=EXTREMES)
def test_every_edge_value_is_written_whole_in_every_format(engine, tmp_path_factory, rows):
    folder = tmp_path_factory.mktemp("out")
    ns = default(engine)
    edge_file(folder / "edges.csv", rows)
    assert ns.ingest_file(folder / "edges.csv", source_uri="edges.csv", progress=False).state == "ready"
    want = expected(rows)
    answer = ns.query(PLAN)
    names = [c.name for c in answer.columns]
    alike([dict(zip(names, row)) for row in answer.rows], want, "knowledge.query")
    for fmt in ("ndjson", "csv", "parquet"):
        assert ns.export(PLAN, folder / f"out.{fmt}") == len(rows)
    if any(abs(us) > ARROW_MICROS for *_, (_, _, us), _ in rows):
        # Arrow's interval cannot carry it: refused, naming the column, never wrapped.
        with pytest.raises(tabular.ValidationFailed, match="'iv'"):
            ns.export(PLAN, folder / "out.arrow")
        arrow = None
    else:
        assert ns.export(PLAN, folder / "out.arrow") == len(rows)
        arrow = pa.ipc.open_stream(folder / "out.arrow").read_all()
    ndjson = [json.loads(line) for line in (folder / "out.ndjson").read_text(encoding="utf-8").splitlines()]
    alike(ndjson, want, "ndjson")
    with (folder / "out.csv").open(newline="", encoding="utf-8") as f:
        alike(list(map(from_text, csv.DictReader(f))), want, "csv")
    alike(typed(pq.read_table(folder / "out.parquet")), want, "parquet")
    if arrow is not None:
        alike(typed(arrow), want, "arrow")
    alike(polars_rows(answer.to_polars(whole=True)), want, "to_polars(whole=True)")
    with TestClient(create_app(engine, mcp=False), base_url="http://127.0.0.1") as http:
        for fmt in ("ndjson", "csv"):
            sent = http.post("/v1/knowledge.query_export", json={**PLAN, "format": fmt})
            assert sent.status_code == 200
            lines = sent.text.splitlines()
            got = (
                [json.loads(x) for x in lines]
                if fmt == "ndjson"
                else list(map(from_text, csv.DictReader(io.StringIO(sent.text))))
            )
            alike(got, want, f"HTTP {fmt}")


@pytest.mark.slow
@settings(max_examples=(EXAMPLES + 1) * 25, **EDGES)
@given(rows=st.lists(ROW, min_size=1, max_size=20))
def test_every_edge_value_is_written_whole_in_every_format_more_examples(engine, tmp_path_factory, rows):
    test_every_edge_value_is_written_whole_in_every_format.hypothesis.inner_test(engine, tmp_path_factory, rows)


def test_a_notebooks_table_shows_control_characters_as_their_pictures(engine, tmp_path):
    """They went into the HTML as they were (NUL, BEL …), which a browser drops or garbles."""
    path = tmp_path / "controls.csv"
    path.write_text('id,s\n1,"x:a\x01b\x1fc\x7fd"\n', encoding="utf-8")
    ns = default(engine)
    assert ns.ingest_file(path, source_uri="controls.csv", progress=False).state == "ready"
    page = ns.query({"datasets": [{"source_uri": "controls.csv"}]})._repr_html_()
    assert "x:a\u2401b\u241fc\u2421d" in page and "\x01" not in page
