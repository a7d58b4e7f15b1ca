"""What a person sees of `answer.plot()` and `tabular query --chart` (tabular/charts.py): real
answers over ingested fixtures drawn to PNG; the kind chosen from the columns' types (bars by a
text column, a line over dates, a scatter of numbers), the values drawn as the answer has them,
the caller's choice, a refusal saying why when nothing can be drawn, and a chart that says what
it leaves out."""

from __future__ import annotations

import datetime as dt
import io
import json
import subprocess
import sys
from decimal import Decimal

import pytest
from conftest import CSV, ROOT

import tabular
from tabular import charts, cli
from tabular.errors import ValidationFailed

SALES = [{"source_uri": "sales.csv"}]
BY_REGION = {
    "datasets": SALES,
    "group_by": [{"column": "region"}],
    "aggregates": [{"fn": "sum", "column": "amount"}, {"fn": "count"}],
}
BY_MONTH = {
    "datasets": SALES,
    "group_by": [{"column": "sold_on", "bucket": "month"}],
    "aggregates": [{"fn": "sum", "column": "amount"}],
}
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    return tmp_path_factory.mktemp("charts") / "home"


@pytest.fixture(scope="module")
def ns(home):
    with tabular.connect(str(home)) as engine:
        ns = engine.namespace("acme", "charts")
        for name in ("sales.csv", "floats.csv", "dates_ambiguous.csv", "times_durations.csv", "nulls.csv"):
            assert ns.ingest_file(CSV / name, source_uri=name).state == "ready"
        for name in ("orders.csv", "customers.csv"):
            assert ns.ingest_file(ROOT / "fixtures" / "query" / name, source_uri=name).state == "ready"
        yield ns


def column(answer, name: str) -> list:
    k = [c.name for c in answer.columns].index(name)
    return [row[k] for row in answer.typed_rows()]


def drawn(values) -> list[float]:
    return [float(v) for v in values]


def png_pixels(data: bytes):
    """The PNG as an array of RGB(A) pixels: it is a picture a viewer opens."""
    from matplotlib.image import imread

    assert data[:8] == PNG_MAGIC
    return imread(io.BytesIO(data), format="png")


def painted(pixels, rgb: tuple[int, int, int]) -> int:
    """How many pixels are (within a shade of) this colour: the bars or lines drawn in it."""
    import numpy as np

    return int((np.abs(pixels[..., :3] * 255 - np.array(rgb)) < 12).all(axis=-1).sum())


BLUE = (31, 119, 180)  # matplotlib's first colour: the first bars, line or points


def test_a_grouped_answer_is_bars_by_its_text_column_at_the_answers_values(ns, tmp_path):
    answer = ns.query(BY_REGION)
    path = tmp_path / "by_region.png"
    fig = answer.plot(path=path)
    ax = fig.axes[0]
    regions = column(answer, "region")
    assert [t.get_text() for t in ax.get_xticklabels()] == regions
    assert len(ax.patches) == 2 * len(regions) and not ax.get_lines() and not ax.collections
    sums = [p.get_height() for p in ax.patches[: len(regions)]]
    assert sums == drawn(column(answer, "sum_amount"))
    assert [p.get_height() for p in ax.patches[len(regions) :]] == drawn(column(answer, "count"))
    # the exact values on the bars, as the answer writes them (a float would say 410.0)
    said = {t.get_text() for t in ax.texts}
    assert {"410.00", "120.50", "580.75"} <= said
    assert fig.get_suptitle() == "sum_amount, count by region — sales.csv"
    assert ax.get_title() == ""  # a complete, whole answer has nothing to own up to
    pixels = png_pixels(path.read_bytes())
    assert pixels.shape[0] > 300 and pixels.shape[1] > 600
    assert painted(pixels, BLUE) > 5_000  # the bars are there, not an empty frame


def test_a_date_first_column_is_a_line_in_date_order(ns, tmp_path):
    answer = ns.query({**BY_MONTH, "order_by": [{"column": "sum_amount", "desc": True}]})
    months = column(answer, "sold_on_month")
    assert months != sorted(months)  # the answer's order is not the dates'
    fig = answer.plot(path=tmp_path / "by_month.png")
    ax = fig.axes[0]
    (line,) = ax.get_lines()
    assert not ax.patches
    assert list(line.get_xdata()) == sorted(months) and all(isinstance(m, dt.date) for m in months)
    by_month = dict(zip(months, column(answer, "sum_amount")))
    assert list(line.get_ydata()) == [float(by_month[m]) for m in sorted(months)]
    assert ax.get_ylabel() == "sum_amount" and ax.get_xlabel() == "sold_on_month"
    assert painted(png_pixels((tmp_path / "by_month.png").read_bytes()), BLUE) > 300


def test_a_date_and_a_text_column_draw_a_line_per_text_value(ns):
    answer = ns.query({**BY_MONTH, "group_by": [*BY_MONTH["group_by"], {"column": "region"}]})
    ax = answer.plot().axes[0]
    lines = {line.get_label(): line for line in ax.get_lines()}
    assert set(lines) == set(column(answer, "region"))
    north = [(m, s) for m, r, s in answer.typed_rows() if r == "north"]
    assert list(lines["north"].get_ydata()) == [float(s) for _, s in sorted(north)]
    assert {t.get_text() for t in ax.get_legend().get_texts()} == set(lines)


def test_a_text_column_that_makes_a_few_series_over_months_draws_a_line_each(ns):
    answer = ns.query(
        {
            "datasets": [{"source_uri": "orders.csv", "alias": "o"}, {"source_uri": "customers.csv", "alias": "c"}],
            "joins": [{"alias": "c", "on": [{"left": "o.customer_id", "right": "c.customer_id"}]}],
            "group_by": [{"column": "c.segment"}, {"column": "o.ordered_on", "bucket": "month"}],
            "aggregates": [{"fn": "sum", "column": "o.amount"}],
        }
    )
    segments = column(answer, "c.segment")
    assert answer.columns[0].name == "c.segment" and len(set(segments)) < len(segments)
    ax = answer.plot().axes[0]
    lines = {line.get_label(): line for line in ax.get_lines()}
    assert set(lines) == set(segments)
    retail = sorted((m, s) for g, m, s in answer.typed_rows() if g == "Retail" and m is not None)
    assert list(lines["Retail"].get_xdata()) == [m for m, _ in retail]
    assert list(lines["Retail"].get_ydata()) == [float(s) for _, s in retail]
    undated = column(answer, "o.ordered_on_month").count(None)  # orders with no date: said, not drawn
    assert (
        undated and f"{undated} row{'s' if undated > 1 else ''} without o.ordered_on_month left out" in ax.get_title()
    )


def test_numbers_only_are_a_scatter_of_the_first_against_the_others(ns):
    answer = ns.query({"datasets": [{"source_uri": "floats.csv"}]})
    ax = answer.plot().axes[0]
    assert not ax.patches and not ax.get_lines()
    points = {c.get_label(): c.get_offsets() for c in ax.collections}
    assert set(points) == {"x", "y"}
    assert [float(p[0]) for p in points["y"]] == drawn(column(answer, "id"))
    assert [float(p[1]) for p in points["y"]] == drawn(column(answer, "y"))
    assert any(isinstance(v, Decimal) for v in column(answer, "y"))  # exact in the answer, drawn as floats


def test_points_with_an_empty_value_are_not_drawn_and_the_chart_says_how_many(ns):
    answer = ns.query({"datasets": [{"source_uri": "nulls.csv"}], "select": [{"column": "id"}, {"column": "score"}]})
    scores = column(answer, "score")
    ax = answer.plot().axes[0]
    (points,) = ax.collections
    drawn_points = [(float(a), float(b)) for a, b in points.get_offsets() if b == b]  # NaN is not drawn
    assert drawn_points == [(float(i), float(v)) for i, v in zip(column(answer, "id"), scores) if v is not None]
    assert f"{scores.count(None)} rows with an empty value not drawn" in ax.get_title()


def test_long_labels_are_drawn_across_first_row_at_the_top(ns):
    answer = ns.query(
        {"datasets": SALES, "select": [{"column": "product"}, {"column": "region"}, {"column": "amount"}]}
    )
    ax = answer.plot().axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == [f"{p} · {r}" for p, r, _ in answer.typed_rows()]
    assert [p.get_width() for p in ax.patches] == drawn(column(answer, "amount"))
    assert ax.yaxis_inverted()


def test_durations_are_drawn_in_hours_and_labelled_as_written(ns):
    answer = ns.query(
        {"datasets": [{"source_uri": "times_durations.csv"}], "select": [{"column": "task"}, {"column": "elapsed"}]}
    )
    ax = answer.plot(kind="bar").axes[0]
    elapsed = column(answer, "elapsed")
    assert [p.get_height() for p in ax.patches] == [e.total_seconds() / 3600 for e in elapsed]
    assert ax.get_ylabel() == "elapsed (hours)"
    assert {str(e) for e in elapsed} <= {t.get_text() for t in ax.texts}


def test_the_caller_chooses_the_kind_and_the_columns(ns):
    answer = ns.query(BY_REGION)
    ax = answer.plot(kind="bar", x="region", y=["count"]).axes[0]
    assert [p.get_height() for p in ax.patches] == drawn(column(answer, "count"))
    assert ax.get_ylabel() == "count"
    ax = answer.plot(kind="scatter", x="sum_amount", y="count").axes[0]
    (points,) = ax.collections
    assert [list(map(float, p)) for p in points.get_offsets()] == [
        [float(s), float(c)] for s, c in zip(column(answer, "sum_amount"), column(answer, "count"))
    ]
    ax = answer.plot(y="count").axes[0]  # the rest as the rule has it: bars by region
    assert [t.get_text() for t in ax.get_xticklabels()] == column(answer, "region")
    assert answer.plot(title="Sales by region").get_suptitle() == "Sales by region"


@pytest.mark.parametrize(
    "asked, path, said",
    [
        ({"x": "regoin"}, "x", ["region"]),
        ({"y": ["count", "sum_amont"]}, "y[1]", ["sum_amount"]),
        ({"kind": "lines"}, "kind", ["line"]),
    ],
)
def test_a_wrong_name_is_refused_with_the_close_names(ns, asked, path, said):
    with pytest.raises(ValidationFailed) as refused:
        ns.query(BY_REGION).plot(**asked)
    assert refused.value.code == "VALIDATION_FAILED"
    (item,) = refused.value.errors
    assert item.path == path and item.did_you_mean == said


@pytest.mark.parametrize(
    "asked, path",
    [({"kind": "scatter", "x": []}, "x"), ({"kind": "line", "x": []}, "x"), ({"x": []}, "x"), ({"y": []}, "y")],
)
def test_an_empty_list_of_columns_is_refused_naming_the_argument(ns, asked, path):
    # x=[] with kind scatter or line was an IndexError; alone it drew bars under a title 'sum_amount by '.
    with pytest.raises(ValidationFailed, match=f"{path} names no column") as refused:
        ns.query(BY_REGION).plot(**asked)
    (item,) = refused.value.errors
    assert item.path == path and "region" in item.expected


def test_a_chart_the_columns_cannot_draw_says_why(ns, tmp_path):
    answer = ns.query(BY_REGION)
    with pytest.raises(ValidationFailed, match="region is string, not a number"):
        answer.plot(y="region")
    with pytest.raises(ValidationFailed, match="a scatter's x is a number"):
        answer.plot(kind="scatter", x="region")
    with pytest.raises(ValidationFailed, match=r"\.png, \.svg, \.pdf"):
        answer.plot(path=tmp_path / "chart.jpg")
    assert not (tmp_path / "chart.jpg").exists()


@pytest.mark.parametrize(
    "plan, why",
    [
        (
            {"datasets": SALES, "select": [{"column": "region"}, {"column": "sold_on"}]},
            "no column of the answer is a number",
        ),
        ({"datasets": SALES, "where": [{"column": "region", "op": "eq", "value": "nowhere"}]}, "no rows"),
        ({"datasets": SALES, "aggregates": [{"fn": "sum", "column": "amount"}]}, "nothing to draw it against"),
        ({"datasets": SALES, "aggregates": [{"fn": "sum", "column": "amount"}, {"fn": "count"}]}, "one row of numbers"),
    ],
)
def test_an_answer_with_nothing_to_draw_is_refused_saying_what_would(ns, plan, why):
    answer = ns.query(plan)
    with pytest.raises(ValidationFailed, match=f"nothing to chart: .*{why}") as refused:
        answer.plot()
    assert not refused.value.errors  # no argument was wrong: the answer has nothing to draw


def test_a_truncated_answer_and_bars_left_out_are_said_on_the_chart(ns):
    answer = ns.query({"datasets": SALES, "select": [{"column": "region"}, {"column": "amount"}], "limit": 3})
    assert answer.truncated
    ax = answer.plot().axes[0]
    assert len(ax.patches) == 3
    assert "the first 3 rows of more" in ax.get_title()
    ax = ns.query(BY_REGION).plot(y="sum_amount", max_bars=2).axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == column(ns.query(BY_REGION), "region")[:2]
    assert "the first 2 of 4 rows as bars" in ax.get_title()


def test_an_incomplete_answer_says_why_on_the_chart(ns):
    answer = ns.query(
        {"datasets": [{"source_uri": "dates_ambiguous.csv"}], "select": [{"column": "when"}, {"column": "qty"}]}
    )
    assert not answer.complete
    ax = answer.plot().axes[0]
    assert ax.get_lines()
    title = " ".join(ax.get_title().split())
    assert title.startswith("incomplete: ") and "open questions on when" in title


def test_a_notebook_shows_it_and_svg_is_written(ns, tmp_path):
    fig = ns.query(BY_MONTH).plot(path=tmp_path / "by_month.svg")
    assert fig._repr_png_()[:8] == PNG_MAGIC  # what Jupyter draws for the returned Figure
    svg = (tmp_path / "by_month.svg").read_text()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg and "sum_amount" in svg


def test_importing_tabular_does_not_import_matplotlib():
    code = "import sys, tabular; print('matplotlib' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "False", done.stderr


# --- tabular query --chart --------------------------------------------------------------------


def run_cli(capsys, home, *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = cli.main(["--home", str(home), "--org", "acme", "--namespace", "charts", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_query_chart_writes_the_chart_and_prints_the_answer(ns, home, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(BY_REGION))
    out = tmp_path / "by_region.png"
    code, printed, errors = run_cli(capsys, home, "query", str(plan), "--chart", str(out))
    assert code == 0, errors
    assert "north" in printed and "580.75" in printed and "4 rows" in printed
    assert f"chart written to {out}" in printed.replace("\n", "")
    assert painted(png_pixels(out.read_bytes()), BLUE) > 5_000


def test_query_chart_of_an_answer_with_nothing_to_draw_prints_it_then_says_why(ns, home, tmp_path, capsys):
    plan = json.dumps({"datasets": SALES, "select": [{"column": "region"}]})
    out = tmp_path / "regions.png"
    code, printed, errors = run_cli(capsys, home, "query", plan, "--chart", str(out))
    assert code == 2 and not out.exists()
    assert "north" in printed  # the answer, shown before the refusal
    last = errors.strip().splitlines()[-1]
    assert "VALIDATION_FAILED" in last and "no column of the answer is a number" in last and "Traceback" not in errors


def test_query_chart_refuses_a_file_it_cannot_write_before_running(ns, home, tmp_path, capsys):
    code, printed, errors = run_cli(capsys, home, "query", json.dumps(BY_REGION), "--chart", str(tmp_path / "a.jpg"))
    assert code == 2 and not printed and ".png, .svg, .pdf" in errors
    code, printed, errors = run_cli(capsys, home, "query", json.dumps(BY_REGION), "--sql", "--chart", "a.png")
    assert code == 2 and "--sql runs nothing" in errors


# --- text drawn as text (issue 53) ------------------------------------------------------------

BRACES = "$" + "{" * 200 + "$"
TEX_CELLS = ["$x^y^z$", BRACES, "a\\$b", "plain"]


@pytest.fixture(scope="module")
def tex(ns, tmp_path_factory):
    """A source whose labels look like TeX, and one label of 1,000 characters."""
    path = tmp_path_factory.mktemp("tex") / "tex.csv"
    cells = [*TEX_CELLS, "long " + "x" * 995]
    path.write_text("label,n\n" + "".join(f'"{c}",{k + 1}\n' for k, c in enumerate(cells)), encoding="utf-8")
    assert ns.ingest_file(path, source_uri="tex.csv").state == "ready"
    return ns


def shown(text) -> str:
    """What matplotlib draws for a text: math text is parsed; other text has `\\$` as `$`."""
    from matplotlib import cbook

    assert not cbook.is_math_text(text.get_text()), text.get_text()
    return text.get_text().replace("\\$", "$")


def test_a_cell_or_name_that_looks_like_tex_is_drawn_as_written(tex):
    """`$x^y^z$` (a double superscript), 200 braces (matplotlib's parser recursed) and an `as`
    name with an unknown macro were parsed as math text: drawing raised ValueError."""
    plan = {
        "datasets": [{"source_uri": "tex.csv"}],
        "select": [{"column": "label"}, {"column": "n", "as": "$\\nosuchmacro$"}],
    }
    figure = tex.query({**plan, "limit": 4}).plot()
    out = io.BytesIO()
    figure.savefig(out, format="png")
    assert png_pixels(out.getvalue()).size
    ax = figure.axes[0]
    labels = [shown(t) for t in (ax.get_yticklabels() or ax.get_xticklabels())]
    assert labels == [TEX_CELLS[0], BRACES[:39] + "…", TEX_CELLS[2], TEX_CELLS[3]]
    assert "$\\nosuchmacro$" in (shown(ax.xaxis.label), shown(ax.yaxis.label))


def test_a_long_label_is_cut_with_an_ellipsis(tex):
    answer = tex.query({"datasets": [{"source_uri": "tex.csv"}], "where": [{"column": "n", "op": "eq", "value": 5}]})
    figure = answer.plot()
    ticks = figure.axes[0].get_xticklabels() + figure.axes[0].get_yticklabels()
    [label] = [shown(t) for t in ticks if t.get_text().startswith("long")]
    assert label == "long " + "x" * 34 + "…" and len(label) == charts.LABEL_CHARS


def test_tex_set_on_for_the_process_is_not_used_for_a_chart(tex):
    """A notebook that turned on text.usetex (with no TeX installed here) still gets its chart."""
    import matplotlib

    with matplotlib.rc_context({"text.usetex": True}):
        figure = tex.query({"datasets": [{"source_uri": "tex.csv"}], "limit": 4}).plot()
        out = io.BytesIO()
        figure.savefig(out, format="png")
    assert png_pixels(out.getvalue()).size


def test_the_pages_ask_view_draws_a_column_that_looks_like_tex(tmp_path):
    """Every viewer of the column got INTERNAL from the page's Ask view."""
    from fastapi.testclient import TestClient

    from tabular.service.http import create_app

    path = tmp_path / "tex.csv"
    path.write_text("label,n\n" + "".join(f'"{c}",{k + 1}\n' for k, c in enumerate(TEX_CELLS)), encoding="utf-8")
    with tabular.connect(str(tmp_path / "home")) as engine:
        ns = engine.namespace(engine.settings.default_org, engine.settings.default_namespace)
        assert ns.ingest_file(path, source_uri="tex.csv").state == "ready"
        plan = {
            "datasets": [{"source_uri": "tex.csv"}],
            "select": [{"column": "label"}, {"column": "n", "as": "$\\nosuchmacro$"}],
        }
        with TestClient(create_app(engine, mcp=False), base_url="http://127.0.0.1:8000") as page:
            answer = page.get("/ui/ask", params={"plan": json.dumps(plan)})
    assert answer.status_code == 200 and 'id="chart" src="data:image/png;base64,' in answer.text
