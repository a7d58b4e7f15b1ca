"""tabular/ingest/fair.py: waiting work handed out round robin between orgs, never more than
`per_org` pieces of one org at once: one org's backlog never holds another's next piece."""

from __future__ import annotations

from tabular.ingest.fair import FairQueue


def drain(queue: FairQueue) -> list[tuple[str, object]]:
    """Everything the queue hands out, each piece finished as soon as it starts."""
    out = []
    while (taken := queue.pop()) is not None:
        out.append(taken)
        queue.finished(taken[0])
    return out


def test_orgs_take_turns_whatever_the_size_of_their_backlogs():
    queue = FairQueue(per_org=1)
    for i in range(4):
        queue.push("big", f"b{i}")
    queue.push("small", "s0")
    assert [item for _, item in drain(queue)] == ["b0", "s0", "b1", "b2", "b3"]


def test_an_org_at_its_cap_waits_while_another_goes_ahead():
    queue = FairQueue(per_org=2)
    for i in range(3):
        queue.push("a", f"a{i}")
    assert queue.pop() == ("a", "a0")
    assert queue.pop() == ("a", "a1")
    assert queue.pop() is None  # a's third waits for one of its two to finish
    queue.push("b", "b0")
    assert queue.pop() == ("b", "b0")
    queue.finished("a")
    assert queue.pop() == ("a", "a2")


def test_length_and_waiting_count_what_is_not_yet_taken():
    queue = FairQueue(per_org=1)
    queue.push("a", 1)
    queue.push("a", 2)
    queue.push("b", 3)
    assert (len(queue), queue.waiting("a"), queue.waiting("b"), queue.waiting("c")) == (3, 2, 1, 0)
    queue.pop()
    assert (len(queue), queue.waiting("a")) == (2, 1)


def test_a_removed_piece_is_never_handed_out():
    queue = FairQueue(per_org=1)
    queue.push("a", "keep")
    queue.push("b", "cancelled")
    assert queue.remove("cancelled")
    assert not queue.remove("cancelled")
    assert drain(queue) == [("a", "keep")]
    assert len(queue) == 0


def test_a_cap_below_one_still_lets_one_piece_run():
    queue = FairQueue(per_org=0)
    queue.push("a", 1)
    queue.push("a", 2)
    assert queue.pop() == ("a", 1)
    assert queue.pop() is None
