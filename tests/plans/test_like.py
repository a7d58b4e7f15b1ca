"""`like` / `not_like` (SPEC §4): SQL patterns, % any run, _ one character, a backslash before
either for itself; ignore_case lowercases both sides; a pattern ending in a lone backslash is
422 at its path. The expected rows are read off the table by hand."""

import pytest

import tabular

NAMES = ["SMALL BRASS", "LARGE brass", "100% cotton", "100 cotton", "a_b", "axb", "back\\slash", None]


@pytest.fixture(scope="module")
def ns(tmp_path_factory):
    folder = tmp_path_factory.mktemp("like")
    path = folder / "parts.csv"
    path.write_text("id,name\n" + "".join(f'{k},"{n or ""}"\n' for k, n in enumerate(NAMES)), encoding="utf-8")
    with tabular.connect(str(folder / "home")) as engine:
        ns = engine.namespace("acme", "like")
        assert ns.ingest_file(path, source_uri="parts.csv").state == "ready"
        yield ns


def names(ns, **f):
    plan = {
        "datasets": [{"source_uri": "parts.csv"}],
        "where": [{"column": "name", **f}],
        "select": [{"column": "name"}],
    }
    return sorted(r[0] for r in ns.query(plan).rows)


@pytest.mark.parametrize(
    "f, want",
    [
        ({"op": "like", "value": "%BRASS"}, ["SMALL BRASS"]),
        ({"op": "like", "value": "%brass", "ignore_case": True}, ["LARGE brass", "SMALL BRASS"]),
        ({"op": "like", "value": "100\\%%"}, ["100% cotton"]),
        ({"op": "like", "value": "100%"}, ["100 cotton", "100% cotton"]),
        ({"op": "like", "value": "a\\_b"}, ["a_b"]),
        ({"op": "like", "value": "a_b"}, ["a_b", "axb"]),
        ({"op": "like", "value": "back\\\\slash"}, ["back\\slash"]),
        ({"op": "not_like", "value": "%a%"}, ["100 cotton", "100% cotton", "SMALL BRASS"]),
    ],
)
def test_patterns(ns, f, want):
    assert names(ns, **f) == want


@pytest.mark.parametrize("pattern", ["ab\\", "\\", "x\\\\\\"])
def test_a_pattern_ending_in_a_lone_backslash_is_refused_at_its_path(ns, pattern):
    with pytest.raises(tabular.TabularError) as err:
        names(ns, op="like", value=pattern)
    assert err.value.code == "VALIDATION_FAILED" and err.value.errors[0].path == "where[0].value"


def test_like_is_for_text(ns):
    plan = {"datasets": [{"source_uri": "parts.csv"}], "where": [{"column": "id", "op": "like", "value": "1%"}]}
    with pytest.raises(tabular.TabularError) as err:
        ns.query({**plan, "aggregates": [{"fn": "count"}]})
    assert err.value.code == "VALIDATION_FAILED" and err.value.errors[0].path.startswith("where[0]")
