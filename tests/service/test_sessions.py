"""The page's sign-in is a session held by the server (issue 53): its cookie holds a random id,
never the token, so a copied cookie ends with sign-out, with its token, and after
`ui_session_seconds`. The cookie had been the bearer token itself, good in any copy until the
token was removed. Through HTTP with cookies, as a browser sends them; the same with a real
`tabular serve` and its tokens file is tests/security/test_ui_session.py."""

from __future__ import annotations

import json
import re

import pytest
from fastapi.testclient import TestClient

from tabular.engine import Engine
from tabular.service.auth import TokenEntry, Tokens, token_hash
from tabular.service.http import create_app
from tabular.settings import Settings

BASE = "http://127.0.0.1:8000"
ORIGIN = {"Origin": BASE}
TOKENS = {
    "tok-a-writer": {"name": "alice", "org": "orga", "namespaces": ["*"], "role": "writer"},
    "tok-b-writer": {"name": "bob", "org": "orgb", "namespaces": ["*"], "role": "writer"},
}


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    settings = Settings(ui_sessions_per_token=2)
    engine = Engine(str(tmp_path_factory.mktemp("ui-sessions") / "home"), settings)
    tokens = Tokens(settings, {token_hash(t): TokenEntry(**e) for t, e in TOKENS.items()})
    yield create_app(engine, tokens, mcp=False)
    engine.close()


def csrf_of(page: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', page).group(1)


def sign_in(app, token: str, **cookies) -> TestClient:
    c = TestClient(app, base_url=BASE, cookies=cookies)
    page = c.get("/ui/signin").text
    r = c.post("/ui/signin", data={"csrf": csrf_of(page), "token": token}, headers=ORIGIN, follow_redirects=False)
    assert r.status_code == 303, r.text
    return c


def copy_of(c: TestClient, app) -> TestClient:
    """Another browser holding every cookie of `c`'s (one copied off a shared machine)."""
    return TestClient(app, base_url=BASE, cookies=dict(c.cookies.items()))


def who(c: TestClient) -> str | None:
    r = c.get("/ui/sources", follow_redirects=False)
    if r.status_code == 303:
        assert r.headers["location"].startswith("/ui/signin"), r.headers
        return None
    assert r.status_code == 200, r.text
    return re.search(r'id="who">([^<]+)<', r.text).group(1)


def sign_out(c: TestClient) -> None:
    page = c.get("/ui/sources").text
    r = c.post("/ui/signout", data={"csrf": csrf_of(page)}, headers=ORIGIN, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/ui/signin", r.text


def test_the_cookie_holds_a_random_id_and_never_the_token(app):
    c = sign_in(app, "tok-a-writer")
    assert who(c) == "alice"
    values = list(c.cookies.values())
    assert values and not any("tok-a-writer" in v or token_hash("tok-a-writer") in v for v in values)
    assert len(c.cookies["tabular_session"]) >= 40  # secrets.token_urlsafe(32)


def test_a_copied_cookie_ends_at_sign_out(app):
    alice = sign_in(app, "tok-a-writer")
    copied = copy_of(alice, app)
    assert who(copied) == "alice"
    sign_out(alice)
    assert who(alice) is None
    assert who(copied) is None  # the session is over in every copy of its cookie


def test_a_cookie_holding_the_token_signs_nobody_in(app):
    """What an earlier version's cookie held: the token. It is removed, never honoured."""
    c = TestClient(app, base_url=BASE, cookies={"tabular_token": "tok-a-writer"})
    r = c.get("/ui/signin")
    assert any(
        v.startswith("tabular_token=") and "Max-Age=0" in v for k, v in r.headers.multi_items() if k == "set-cookie"
    )
    assert who(TestClient(app, base_url=BASE, cookies={"tabular_token": "tok-a-writer"})) is None


def test_a_session_id_planted_before_sign_in_is_not_the_session(app):
    planted = "planted-by-someone-else-0123456789"
    c = sign_in(app, "tok-a-writer", tabular_session=planted)
    assert c.cookies.get("tabular_session", path="/ui") != planted
    assert who(c) == "alice"  # the planted cookie is sent too, and changes nothing
    assert who(TestClient(app, base_url=BASE, cookies={"tabular_session": planted})) is None


def test_a_session_ends_after_ui_session_seconds(app):
    sessions = app.state.pages.sessions
    c = sign_in(app, "tok-b-writer")
    assert who(c) == "bob"
    clock = sessions.clock
    later = clock() + app.state.service.settings.ui_session_seconds + 1
    sessions.clock = lambda: later
    try:
        assert who(c) is None
    finally:
        sessions.clock = clock


def test_a_token_holds_at_most_ui_sessions_per_token_and_a_new_one_ends_its_oldest(app):
    first, second, third = (sign_in(app, "tok-b-writer") for _ in range(3))
    assert who(first) is None  # ui_sessions_per_token=2 here
    assert who(second) == who(third) == "bob"
    assert who(sign_in(app, "tok-a-writer")) == "alice"  # another token's sessions are its own


def test_a_token_removed_from_the_file_ends_its_sessions_even_once_put_back(tmp_path):
    path = tmp_path / "tokens.json"
    entries = {token_hash(t): e for t, e in TOKENS.items()}
    path.write_text(json.dumps(entries))
    settings = Settings(tokens=str(path), tokens_check_seconds=0)
    engine = Engine(str(tmp_path / "home"), settings)
    try:
        app = create_app(engine, mcp=False)
        alice = sign_in(app, "tok-a-writer")
        assert who(alice) == "alice"
        path.write_text(json.dumps({k: v for k, v in entries.items() if v["name"] != "alice"}))
        # bob's API call reads the file anew: alice's token is gone, and with it her sessions
        api = TestClient(app, base_url=BASE, headers={"Authorization": "Bearer tok-b-writer"})
        assert api.post("/v1/knowledge.list", json={}).status_code == 200
        path.write_text(json.dumps(entries, indent=1))  # put back (another size: read anew)
        assert api.post("/v1/knowledge.list", json={}).status_code == 200
        assert who(alice) is None
        assert who(sign_in(app, "tok-a-writer")) == "alice"  # the token serves again: a new sign-in
    finally:
        engine.close()
