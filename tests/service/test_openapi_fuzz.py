"""schemathesis against the served OpenAPI: every route of every op, with inputs generated from
its schema (valid, and invalid: schemathesis' negative mode). Every answer is an op's answer or SPEC §2's envelope with a SPEC
code; never a 500, never a hang (each call is bounded by a client timeout).

Examples per route and mode: OPENAPI_EXAMPLES (4) in `make test`, 150 (or 10 times OPENAPI_EXAMPLES)
under `-m slow`.
"""

from __future__ import annotations

import os

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis.checks import not_a_server_error
from schemathesis.core.errors import InvalidSchema

from .support import Server

SPEC_CODES = {
    "VALIDATION_FAILED",
    "AUTH_INVALID",
    "AUTH_INSUFFICIENT",
    "RESOURCE_NOT_FOUND",
    "PRECONDITION_FAILED",
    "TOO_LARGE",
    "BACKEND_TIMEOUT",
    "RATE_LIMITED",
    "OVERLOADED",
    # linked folders (issue 20)
    "PATH_NOT_FOUND",
    "PATH_NOT_ALLOWED",
    "DISK_ROOT",
    "TOO_MANY_FILES",
    "FOLDER_TOO_LARGE",
    "TOO_MANY_LINKS",
}
# Examples per route and kind of input: a few in the default run, 150 in `make test-long`'s
# (OPENAPI_EXAMPLES=n runs n, and ten times n in the long run).
EXAMPLES = int(os.environ.get("OPENAPI_EXAMPLES", 4))
LONG_EXAMPLES = EXAMPLES * 10 if "OPENAPI_EXAMPLES" in os.environ else 150
FUZZ = dict(
    deadline=None, database=None, phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck)
)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    srv = Server(tmp_path_factory.mktemp("svc-openapi") / "home", query_seconds=5).start()
    yield srv
    srv.stop()


def fuzz_every_route(served, examples: int) -> None:
    # schemathesis' own pytest plugin does not run under pytest 9 ('Function' has no '_nodeid'),
    # so each operation's hypothesis strategy is driven here.
    api = schemathesis.openapi.from_url(served.url + "/openapi.json")
    operations = [result.ok() for result in api.get_all_operations()]
    assert len(operations) >= 13
    for operation, mode in [(op, mode) for op in operations for mode in schemathesis.GenerationMode]:

        @given(case=operation.as_strategy(mode))
        @settings(max_examples=examples, **FUZZ)
        def route(case):
            answered_by_the_contract(case, served)

        try:
            route()
        except Unsatisfiable:
            assert mode is schemathesis.GenerationMode.NEGATIVE  # a route with no input has no invalid one
        except InvalidSchema as err:
            # A plan holds plans (datasets[].plan): on that recursive schema schemathesis' negative
            # generator sometimes cannot build a list and gives up, before any request is sent.
            # Invalid plans are drawn by tests/test_fuzz_query.py's grammar instead (nested ones
            # included); the valid inputs of every route, and every other route's invalid ones, run here.
            assert mode is schemathesis.GenerationMode.NEGATIVE and "Cannot generate an array" in str(err), err
        except Exception as err:
            raise AssertionError(f"{operation.method.upper()} {operation.path} ({mode.value} inputs): {err}") from err


def answered_by_the_contract(case, served) -> None:
    response = case.call(base_url=served.url, timeout=60)
    case.validate_response(response, checks=[not_a_server_error])
    if response.status_code >= 400:
        detail = response.json()["detail"]
        assert detail["code"] in SPEC_CODES, (case.path, response.status_code, detail)
        echoed = response.headers["x-request-id"]  # schemathesis lists a header's values
        assert [detail["request_id"]] == (echoed if isinstance(echoed, list) else [echoed])


def test_every_route_answers_by_the_contract(served):
    fuzz_every_route(served, EXAMPLES)


@pytest.mark.slow
def test_every_route_answers_by_the_contract_long(served):
    fuzz_every_route(served, LONG_EXAMPLES)
