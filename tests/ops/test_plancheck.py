"""A plan checked against the live snapshots (ops/plancheck.py): a source not there is 422 with
the close names, a plan over a limit only is 413, and the time checking took counts against
query_seconds."""

import pytest
from conftest import CSV

import tabular
from planner.resolved import PlanInvalid, Problem
from tabular.ops.plancheck import refused, time_left


def test_a_source_not_there_is_422_naming_the_close_ones(ns):
    assert ns.ingest_file(CSV / "currency.csv", source_uri="money").state == "ready"
    with pytest.raises(tabular.ValidationFailed) as err:
        ns.query({"datasets": [{"source_uri": "mony"}], "aggregates": [{"fn": "count"}]})
    assert err.value.status == 422 and "money" in (err.value.errors[0].did_you_mean or [])


def test_only_limits_passed_is_413_and_any_other_problem_is_422():
    over = Problem("limit", "at most 10 rows", over_limit=True)
    wrong = Problem("where[0].column", "no such column")
    assert refused(PlanInvalid([over])).status == 413
    assert refused(PlanInvalid([over, wrong])).status == 422


def test_checking_past_query_seconds_runs_nothing():
    assert time_left(1.0, 30.0) == 29.0
    with pytest.raises(tabular.BackendTimeout):
        time_left(31.0, 30.0)
