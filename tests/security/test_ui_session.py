"""The page's cookie against a real `tabular serve` with a tokens file (issue 53): the cookie had
been the bearer token itself, so a copy of it outlived sign-out. Now it holds a session id the
server ends at sign-out and when the token leaves the tokens file, in every copy."""

from __future__ import annotations

import json
import re

import httpx
from service.support import Server

from tabular.service.auth import token_hash

from .conftest import TOKENS, tokens_file

ACME, GLOBEX = TOKENS["acme-writer"][0], TOKENS["globex-writer"][0]


def csrf_of(page: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', page).group(1)


def signed_in(srv: Server, token: str) -> httpx.Client:
    c = httpx.Client(base_url=srv.url, timeout=30)
    page = c.get("/ui/signin").text
    r = c.post("/ui/signin", data={"csrf": csrf_of(page), "token": token}, headers={"Origin": srv.url})
    assert r.status_code == 303, r.text
    assert token not in r.headers.get("set-cookie", "") and token_hash(token) not in r.headers.get("set-cookie", "")
    return c


def who(c: httpx.Client) -> str | None:
    r = c.get("/ui/sources")
    if r.status_code == 303:
        assert r.headers["location"].startswith("/ui/signin"), r.headers
        return None
    assert r.status_code == 200, r.text
    return re.search(r'id="who">([^<]+)<', r.text).group(1)


def copy_of(srv: Server, c: httpx.Client) -> httpx.Client:
    """Another machine holding the cookies `c` holds (copied off a shared browser)."""
    copied = httpx.Client(base_url=srv.url, timeout=30)
    for cookie in c.cookies.jar:
        copied.cookies.set(cookie.name, cookie.value, domain=cookie.domain, path=cookie.path)
    return copied


def test_a_copied_cookie_ends_at_sign_out_and_with_its_token(tmp_path):
    tokens = tokens_file(tmp_path)
    srv = Server(tmp_path / "home", tokens=tokens, tokens_check_seconds=0).start()
    try:
        acme = signed_in(srv, ACME)
        copied = copy_of(srv, acme)
        assert who(acme) == who(copied) == "acme-writer"
        page = acme.get("/ui/sources").text
        r = acme.post("/ui/signout", data={"csrf": csrf_of(page)}, headers={"Origin": srv.url})
        assert r.status_code == 303, r.text
        assert who(copied) is None  # the copy ended with the sign-out

        acme = signed_in(srv, ACME)
        copied = copy_of(srv, acme)
        assert who(copied) == "acme-writer"
        entries = json.loads(tokens.read_text())
        tokens.write_text(json.dumps({k: v for k, v in entries.items() if k != token_hash(ACME)}))
        with httpx.Client(base_url=srv.url, headers={"Authorization": f"Bearer {GLOBEX}"}) as globex:
            assert globex.post("/v1/knowledge.list", json={}).status_code == 200  # the file read anew
            tokens.write_text(json.dumps(entries, indent=1))  # the token put back
            assert globex.post("/v1/knowledge.list", json={}).status_code == 200
        assert who(copied) is None and who(acme) is None  # its sessions ended with it, for good
        assert who(signed_in(srv, ACME)) == "acme-writer"  # a new sign-in serves
    finally:
        srv.stop()
