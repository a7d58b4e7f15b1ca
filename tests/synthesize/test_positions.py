"""The reading's rules for a row by its place (synthesize/positions.py): in the list, or won."""

from __future__ import annotations

from synth_schemas import reading


def test_first_or_last_listed():
    assert reading("which nation is listed first")[0].position == ("first", None)
    assert reading("the last nation listed")[0].position == ("last", None)


def test_a_place_won_is_marked_placed():
    r, left = reading("which nation finished third")
    assert left == [] and r.position == (3, None) and r.placed
    r, _ = reading("which nation came in last")
    assert r.position == ("last", None) and r.placed
    r, _ = reading("which nation finished first")
    assert r.position == ("first", None) and r.placed


def test_the_nth_listed_is_a_place_in_the_list_not_won():
    r, _ = reading("the third nation listed")
    assert r.position == (3, None) and not r.placed


def test_the_row_after_or_before_a_value():
    r, left = reading("which nation is listed after Norway")
    assert left == []
    side, span = r.position
    assert side == "after" and span.text == "norway"
    side, span = reading("which nation is listed below Norway")[0].position
    assert side == "after"
    side, span = reading("which nation comes before Finland")[0].position
    assert (side, span.text) == ("before", "finland")


def test_at_the_top_is_the_first_row_unless_the_task_ranks():
    r, _ = reading("which nation is at the top")
    assert r.position == ("first", None)
    r, _ = reading("which nation is at the top with the most gold")
    assert r.position is None


def test_before_or_after_between_two_values_asks_which_comes_first():
    r, _ = reading("was Norway listed before or after Finland")
    assert r.yes_no == "before" and r.position is None
    assert [s.text for s, _ in r.values] == ["norway", "finland"]
