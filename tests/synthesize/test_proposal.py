"""What a proposer answers (synthesize/proposal.py)."""

from __future__ import annotations

import dataclasses

import pytest

from tabular.synthesize.proposal import Candidate, Proposal


def test_an_empty_proposal_has_no_candidates_and_says_nothing():
    out = Proposal()
    assert out.candidates == () and out.why == out.question == out.abstain == ""


def test_the_transcript_is_not_part_of_what_a_proposal_says():
    assert Proposal(why="no column", transcript=[{"role": "user"}]) == Proposal(why="no column")
    assert Proposal(why="no column") != Proposal(why="no value")


def test_a_candidate_is_frozen_and_assumes_nothing_by_default():
    candidate = Candidate({"datasets": []})
    assert candidate.assumes == () and candidate.answer == ()
    with pytest.raises(dataclasses.FrozenInstanceError):
        candidate.plan = {}
