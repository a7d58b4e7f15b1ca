"""The page's sign-ins (/ui): a session per sign-in, held by the serving process.

Signing in with a token makes a random session id (`secrets.token_urlsafe`); the page's cookie
holds only that id, and the session holds the sha256 of its token, never the token. So a cookie
copied from a browser is worth only what its session is: it ends at sign-out, after
`ui_session_seconds`, and with its token: every request looks the token up again in the tokens
file as it is now (removed or expired: signed out), and a file read anew without the token ends
every session of it at once, so putting the token back later revives none. One token holds at
most `ui_sessions_per_token` sessions; a sign-in past that ends its oldest. (The cookie had held
the bearer token itself, which outlived sign-out in any copy of it.)

Sessions live in this process's memory: a restart signs everyone out, and a page served by
several processes behind one address needs each browser sent to the same one.
"""

from __future__ import annotations

import secrets
import threading
import time
from dataclasses import dataclass

from ..errors import AuthInvalid
from .auth import Grant, TokenEntry, Tokens, token_hash


@dataclass(frozen=True)
class Session:
    digest: str  # the sha256 of the token signed in with
    began: float  # time.monotonic() at sign-in
    ends: float  # time.monotonic() past which it is over


class Sessions:
    """The signed-in sessions of one process, by session id."""

    def __init__(self, tokens: Tokens, seconds: float, per_token: int):
        self.tokens, self.seconds, self.per_token = tokens, seconds, max(1, per_token)
        self._held: dict[str, Session] = {}
        self._lock = threading.Lock()  # never held while the tokens are looked at (they call back)
        self.clock = time.monotonic
        tokens.on_change(self._keep_known)

    def begin(self, token: str) -> str:
        """A new session of `token` (the caller checked it); its id, for the cookie."""
        digest, now = token_hash(token), self.clock()
        sid = secrets.token_urlsafe(32)
        with self._lock:
            self._held = {k: s for k, s in self._held.items() if s.ends > now}
            mine = sorted((s.began, k) for k, s in self._held.items() if s.digest == digest)
            for _, oldest in mine[: max(0, len(mine) - self.per_token + 1)]:
                del self._held[oldest]
            self._held[sid] = Session(digest, now, now + self.seconds)
        return sid

    def grant(self, sid: str) -> Grant | None:
        """Who the session is now: None when there is no such session, it is over, or its token
        no longer serves (then every session of that token ends)."""
        with self._lock:
            session = self._held.get(sid)
            if session is not None and session.ends <= self.clock():
                del self._held[sid]
                session = None
        if session is None:
            return None
        try:
            return self.tokens.grant_of(session.digest)
        except AuthInvalid:
            self._end_token(session.digest)
            return None

    def end(self, sid: str) -> None:
        with self._lock:
            self._held.pop(sid, None)

    def __len__(self) -> int:
        return len(self._held)

    def _end_token(self, digest: str) -> None:
        with self._lock:
            self._held = {k: s for k, s in self._held.items() if s.digest != digest}

    def _keep_known(self, entries: dict[str, TokenEntry]) -> None:
        with self._lock:
            self._held = {k: s for k, s in self._held.items() if s.digest in entries}
