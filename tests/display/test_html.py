"""The pieces every view is drawn with (tabular/display/html.py): a value as a person reads it,
escaped; counts and sizes in words."""

from tabular.display import html


def test_a_cell_is_escaped_null_is_dimmed_and_a_long_value_is_cut_with_the_rest_in_its_tooltip():
    assert html.cell("<b>") == "&lt;b&gt;" and html.cell(None) == html.NULL and html.cell(True) == "true"
    assert html.cell({"a": [1, "é"]}) == "{&quot;a&quot;: [1, &quot;é&quot;]}"
    long = "x" * (html.CELL_CHARS + 50)
    cut = html.cell(long)
    assert cut.endswith("x…</span>") and f'title="{long}"' in cut


def test_counts_and_sizes_in_words():
    assert [html.plural(n, "row") for n in (1, 2, 1234)] == ["1 row", "2 rows", "1,234 rows"]
    assert html.plural(2, "match", "matches") == "2 matches"
    assert [html.size(n) for n in (1, 512, 1_200_000, 268_435_456, 3 * 10**12)] == [
        "1 byte",
        "512 bytes",
        "1.2 MB",
        "268.4 MB",
        "3.0 TB",
    ]
    assert html.clip("a  b\nc", 10) == "a b c" and html.clip("abcdefghij", 5) == "abcd…"
