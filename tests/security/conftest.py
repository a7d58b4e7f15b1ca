"""A real `tabular serve` with a tokens file: two orgs (acme, globex), each with a writer and a
viewer, for the attacks of issue 16."""

from __future__ import annotations

import json
import time
from collections.abc import Callable

import pytest
from service.support import Server

from tabular.service.auth import token_hash

# name → (token, org, namespaces, role)
TOKENS = {
    "acme-writer": ("tok-acme-writer", "acme", ["*"], "writer"),
    "acme-viewer": ("tok-acme-viewer", "acme", ["*"], "viewer"),
    "globex-writer": ("tok-globex-writer", "globex", ["*"], "writer"),
    "globex-viewer": ("tok-globex-viewer", "globex", ["*"], "viewer"),
}


def tokens_file(folder):
    path = folder / "tokens.json"
    path.write_text(
        json.dumps(
            {
                token_hash(tok): {"name": name, "org": org, "namespaces": nss, "role": role}
                for name, (tok, org, nss, role) in TOKENS.items()
            }
        )
    )
    return path


# One for every module of tests/security/ a process runs: each test here names its own sources
# and asserts only on them, so a fresh server per module (2 s of start-up each) showed nothing more.
@pytest.fixture(scope="session")
def two_orgs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("security")
    srv = Server(folder / "home", tokens=tokens_file(folder)).start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def acme(two_orgs):
    with two_orgs.client(TOKENS["acme-writer"][0]) as c:
        yield c


@pytest.fixture(scope="module")
def globex(two_orgs):
    with two_orgs.client(TOKENS["globex-writer"][0]) as c:
        yield c


def until(done: Callable[[], object], guard: float = 120) -> None:
    """Look at `done()` until it holds. `guard` seconds only stop a hang: the caller then asserts
    what a user sees, so a slow machine is never a failure and a change that never comes is."""
    deadline = time.monotonic() + guard
    while not done() and time.monotonic() < deadline:
        time.sleep(0.05)
