"""Fixtures: the real server (single-user, with tokens, with tiny limits) and a slow-to-ingest CSV."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tabular.service.auth import token_hash

from .support import TOKENS, Server


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    """A single-user server (no tokens file), shared by the modules: each uses its own sources."""
    srv = Server(tmp_path_factory.mktemp("svc") / "home").start()
    yield srv
    srv.stop()


@pytest.fixture(scope="session")
def http(server):
    with server.client() as c:
        yield c


@pytest.fixture(scope="module")
def tokens_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("tokens") / "tokens.json"
    entries = {
        token_hash(tok): {"name": name, "org": org, "namespaces": nss, "role": role}
        for name, (tok, org, nss, role) in TOKENS.items()
    }
    path.write_text(json.dumps(entries))
    return path


@pytest.fixture(scope="module")
def authed(tmp_path_factory, tokens_file):
    """A server with a tokens file."""
    srv = Server(tmp_path_factory.mktemp("svc-auth") / "home", tokens=tokens_file).start()
    yield srv
    srv.stop()


@pytest.fixture(scope="session")
def big_csv(tmp_path_factory) -> Path:
    """A CSV that takes a couple of seconds to ingest, so a test can act while its job runs."""
    path = tmp_path_factory.mktemp("big") / "big.csv"
    with path.open("w") as f:
        f.write("id,name,amount,day,flag\n")
        f.writelines(
            f"{i},name {i % 977},{i % 1000}.{i % 100:02d},2024-{i % 12 + 1:02d}-{i % 28 + 1:02d},{'true' if i % 2 else 'false'}\n"
            for i in range(500_000)
        )
    return path
