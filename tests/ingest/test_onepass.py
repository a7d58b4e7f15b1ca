"""The one pass (tabular/ingest/onepass.py) publishes exactly what the careful way publishes: its
guards, typing on a sample and checking every row past it.

Every check ingests the same file twice (`homes.same`, tests/ingest/conftest.py: homes the
module's tests share): once the careful way (extract every cell, count every row, build), once
through the fast reader and the one pass with a tiny sample, so the rows after the sample are
what the guards must catch. Types, formats, questions, rejected rows, statistics and every value
must agree. The other files test_onepass_*.py hold the same comparison for the fixtures and
random columns, the readers, odd lines, notes after a table, stored extractions and the job's
progress and cancel.
"""

from __future__ import annotations

import random

import pytest
from both_ways import CAREFUL, one_pass, published
from onepass_cases import SAME_TYPE, TURNS, write_csv

import tabular
from tabular.ingest import onepass
from tabular.read.extraction import open_fast
from tabular.settings import Settings

# Turns whose guard another turn of the default run meets too (named after each): `make
# test-long` takes them.
LONG_ONLY = {
    "int_then_decimal": "more_decimals",
    "empty_then_numbers": "empty_then_dates",
    "bool_then_text": "text_later",
    "text_then_numbers": "numbers_lift_a_text_column",
    "two_digit_years_mdy_then_doubtful": "two_digit_years_then_doubtful",
    "one_letter_then_a_word": "one_letter_then_its_other",
}


def turn_cases() -> list:
    return [pytest.param(t, id=t, marks=(pytest.mark.slow,) if t in LONG_ONLY else ()) for t in sorted(TURNS)]


def test_each_turn_left_to_the_long_run_has_its_twin_in_the_default_one():
    assert set(LONG_ONLY) <= set(TURNS) - SAME_TYPE and set(LONG_ONLY.values()) <= set(TURNS) - set(LONG_ONLY)


@pytest.mark.parametrize("turn", turn_cases())
def test_a_value_past_the_sample_types_the_column_as_the_careful_way_does(tmp_path, homes, turn):
    head, tail = TURNS[turn]
    rows = [[str(i), v] for i, v in enumerate(head * 4 + tail + head, start=1)]
    path = write_csv(tmp_path / f"{turn}.csv", ["id", "value"], rows)
    got = homes.same(path, 2 * len(head))
    assert not got["one_pass"] or turn in SAME_TYPE, "a turn the guards should have caught was published in one pass"


def test_text_that_passes_the_number_gate_but_no_reading_keeps_the_one_pass(tmp_path, homes):
    # Phone numbers and version strings look like numbers to the family gate; no reading reads
    # them, so the careful way keeps them as text and the one pass need not give way.
    rows = [[str(i), f"020 79{10 + i % 90} {1000 + i * 7 % 9000}", f"1.{i % 7}.{i % 13}"] for i in range(1, 500)]
    path = write_csv(tmp_path / "codes.csv", ["id", "phone", "version"], rows)
    got = homes.same(path, 30)
    assert got["one_pass"] and [c["type"] for c in got["dataset"]["columns"]][1:] == ["string", "string"]


def test_a_file_whose_sample_holds_publishes_in_one_pass(tmp_path, homes):
    rows = [[str(i), f"{i % 50}.{i % 100:02d}", f"2024-01-{1 + i % 28:02d}", f"n{i}"] for i in range(1, 500)]
    path = write_csv(tmp_path / "steady.csv", ["id", "amount", "day", "note"], rows)
    assert homes.same(path, 40)["one_pass"]


def test_a_wide_regular_file_is_typed_on_a_sample_and_checked_whole(tmp_path, homes):
    rng = random.Random(7)
    header = [f"col{j}" for j in range(60)]
    rows = [
        [
            str(rng.randint(1, 999))
            if j % 3 == 0
            else f"{rng.randint(0, 99)}.{rng.randint(0, 99):02d}"
            if j % 3 == 1
            else "abc"
            for j in range(60)
        ]
        for _ in range(300)
    ]
    rows[-1][1] = "12.345"  # past the sample: the column needs three decimals
    path = write_csv(tmp_path / "wide.csv", header, rows)
    careful = homes.same(path, 600)
    assert not careful["one_pass"]  # the guard stopped it at the last row
    physical = {c["name"]: c["physical"] for c in careful["dataset"]["columns"]}
    assert physical["col1"] == "DECIMAL(5, 3)"


def test_a_second_revision_and_a_carried_approval_read_the_rows_in_memory(tmp_path):
    """A file the fast reader holds whole is typed and built from memory: the same for a second
    revision, and when a person's type is carried over from the first."""
    rows = [[str(i), f"0{i % 9 + 1}/0{i % 9 + 1}/2024"] for i in range(1, 200)]
    path = write_csv(tmp_path / "d.csv", ["id", "day"], rows)
    with tabular.connect(str(tmp_path / "home"), **one_pass(10_000)) as engine:
        ns = engine.namespace("acme", "one")
        assert ns.ingest_file(path, source_uri="d").state == "ready"
        (first,) = ns.dataset_get("d").datasets
        assert first.origin.one_pass and [q.kind for q in first.questions] == ["date_order"]
        ns.approve("d", first.snapshot_id, formats={"day": "MDY"})
        write_csv(path, ["id", "day"], [*rows, ["200", "03/04/2024"]])  # new bytes: a new revision
        second = ns.ingest_file(path, source_uri="d")
        assert second.state == "ready" and second.revision == 2
        (again,) = ns.dataset_get("d").datasets
        day = {c.name: c for c in again.columns}["day"]
        assert (day.type, day.format, day.approved) == ("date", "%m/%d/%Y", True)


def test_a_null_marker_that_reads_as_a_value_is_still_null_through_the_one_pass(tmp_path, homes):
    """A deployment's marker can look like a date (a sentinel 1900-01-01): the guard then tests
    each cell for a marker before converting it, as the careful way does."""
    rows = [[str(i), f"2024-01-{1 + i % 28:02d}"] for i in range(1, 300)]
    rows[250][1] = "1900-01-01"
    path = write_csv(tmp_path / "sentinel.csv", ["id", "day"], rows)
    options = {"null_values": ["1900-01-01", ""]}
    uri = homes.uri()  # the same in every home
    careful = homes.published(path, options, uri=uri, **CAREFUL)
    fast = homes.published(path, options, uri=uri, **one_pass(40))
    assert fast.pop("one_pass") and not careful.pop("one_pass")
    assert fast == careful
    assert fast["rows"][250][1] is None and fast["dataset"]["columns"][1]["nulls"] == 1


@pytest.mark.known_defect  # found by the property test above on 2026-11-30; noted on issue 17's stop note
def test_a_column_mostly_numbers_asks_the_same_question_through_the_one_pass(tmp_path, homes):
    # The one pass types on its sample: "1", "2024-01-02" is half numbers, a plain string. The
    # careful way reads every row: four numbers of five reach mixed_values_share and it asks.
    path = tmp_path / "mostly.csv"
    path.write_text("k0\n1\n2024-01-02\n1\n1\n1\n")
    homes.same(path, 2)


def test_a_kind_whose_question_later_rows_could_raise_sends_its_column_the_careful_way(tmp_path, monkeypatch):
    """The one pass asks the kinds table: a file that goes in one pass goes the careful way once
    some kind says rows past the sample could raise it (here: every decimal column)."""
    from dataclasses import replace

    from tabular.infer import questions

    rows = [[str(i), f"{i % 50}.{i % 100:02d}"] for i in range(1, 300)]
    path = write_csv(tmp_path / "steady.csv", ["id", "amount"], rows)
    assert published(tmp_path / "before", path, **one_pass(40))["one_pass"]
    wary = replace(questions.KINDS["decimal_mark"], open_past_sample=lambda t, _: t.physical.startswith("DECIMAL"))
    monkeypatch.setitem(questions.KINDS, "decimal_mark", wary)
    assert not published(tmp_path / "after", path, **one_pass(40))["one_pass"]


def test_a_question_of_no_known_kind_is_refused_where_it_is_made():
    from tabular.infer.questions import Question

    with pytest.raises(ValueError, match="KINDS"):
        Question("thousands_or_decimal", "?", ())


def test_a_guard_built_once_and_renamed_is_the_guard_built_for_its_cell():
    from tabular import readings as C
    from tabular.infer.tally import text_of
    from tabular.ingest import onepass
    from tabular.settings import Settings

    markers = Settings().nulls({})
    every = C.candidate_readings({",", ".", " ", "'", "%", "€", "$", "e", "E"})[::3]  # each kind, some forms
    # The storage types a reading is built for: a number's by its values, a datetime's with or without
    # its zone, any other's the one C.physical_of gives (a date stored as INTERVAL is built nowhere).
    physical = {"number": ["BIGINT", "DECIMAL(9, 2)", "DOUBLE"], "datetime": ["TIMESTAMP", "TIMESTAMPTZ"]}
    built: dict = {}
    checked = 0
    for reading in every:
        for storage in physical.get(reading.type, [C.physical_of(reading)]):
            for clashes in (False, True):
                for cell in ("c1", "c12"):
                    renamed = onepass._typed(cell, reading, storage, markers, clashes, built)
                    direct = onepass._typed_value(
                        cell, reading, storage, text_of(cell, markers, compact=True), markers, clashes
                    )
                    assert renamed.sql(dialect="duckdb") == direct.sql(dialect="duckdb")
                    checked += 1
    assert checked > 100 and len(built) < checked


def test_rows_that_do_not_add_up_to_the_file_s_lines_fail_as_a_bug(tmp_path):
    from types import SimpleNamespace

    from tabular.errors import Internal
    from tabular.ingest.onepass import accounted

    fast = SimpleNamespace(lines=10, first_line=2, extraction=SimpleNamespace(name="f"))
    accounted(fast, 9)
    accounted(SimpleNamespace(lines=None, first_line=2, extraction=fast.extraction), 3)  # no count: no check
    with pytest.raises(Internal, match="'f' has 10 lines but the one pass accounts for 9"):
        accounted(fast, 8)


def test_a_file_of_exactly_the_samples_rows_is_read_whole_as_a_shorter_one(tmp_path, homes):
    # Its sample is every row, so a column the careful way must count (a value no reading takes:
    # a question) is typed on it and built from memory, as in a shorter file, not sent the careful way.
    rows = [[str(i), "n/k" if i == 17 else f"{i}.5"] for i in range(1, 41)]
    path = write_csv(tmp_path / "forty.csv", ["id", "value"], rows)
    assert homes.same(path, 2 * 40)["one_pass"]
    assert not homes.same(path, 2 * 39)["one_pass"]  # one row past the sample


def test_the_head_ending_right_at_the_sample_hands_on_the_rest_of_the_file(tmp_path):
    path = write_csv(tmp_path / "many.csv", ["id", "note"], [[str(i), f"n{i}"] for i in range(1, 2001)])
    settings = Settings(fast_path_bytes=0, csv_block_bytes=1 << 10)

    def head(rows: int) -> tuple[bool, int, int, list[int]]:
        fast = open_fast(path, "many", {}, settings)
        assert fast is not None
        try:
            got = onepass.read_head(fast, rows)
            ids = [i for b in [*got.table.to_batches(), *got.rest] for i in b.column("__row_id").to_pylist()]
            return got.whole, got.table.num_rows, got.sample.num_rows, ids
        finally:
            fast.close()

    first = head(1)[1]  # the rows of the first batch
    assert first < 2000
    assert head(first) == (False, first, first, list(range(1, 2001)))
    whole, table_rows, sample_rows, ids = head(2000)
    assert (whole, table_rows, sample_rows, ids) == (True, 2000, 2000, list(range(1, 2001)))
    assert head(first - 1)[:3] == (False, first, first - 1)
