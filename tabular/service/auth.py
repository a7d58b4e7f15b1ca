"""Who is calling: a bearer token, looked up by its sha256 in the tokens file, grants one org,
some namespaces of it and a role. Without a tokens file the service has one user, who may do
everything (and so it listens on loopback unless told otherwise).

The tokens file (`TABULAR_TOKENS`) is JSON, one entry per token, keyed by the token's sha256 in
hex, so the file holds no secret:

    {
      "9f86d081884c7d65...": {"name": "finance-bot", "org": "acme", "namespaces": ["finance"], "role": "writer"},
      "60303ae22b998861...": {"org": "acme", "namespaces": ["*"], "role": "viewer"}
    }

An entry may also say `"link_roots": ["/srv/acme/shared", …]`: the folders its org may link
(knowledge.link_dir), in place of the deployment's `link_roots` setting. An org's roots are those
of all its entries that say any; an org none of whose entries do keeps the deployment's. The home
is never linkable, whatever the roots.

`namespaces` lists the namespaces the token may use (`*`: every one of the org); a call without a
namespace gets the first one listed (or the install's default for `*`). `role` is `viewer` (reads),
`writer` (also upload, ingest, cancel, approve) or `admin` (everything). `name` is who the audit log
and `approved_by` name (default `token:<first 8 hex of the hash>`). `expires_at` (ISO 8601, with an
offset) ends a token. `tabular token` makes a token and prints its entry.

The file is read again within `tokens_check_seconds` of a change: a token removed stops working
then, without a restart. A file that no longer reads keeps the entries read before (and says so
in the log); at start it stops the service.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, ValidationError

from ..errors import AuthInsufficient, AuthInvalid, ErrorItem
from ..ops import Op
from ..settings import Settings

ROLES = {"viewer": 0, "writer": 1, "admin": 2}


class TokenEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    org: str = Field(min_length=1)
    namespaces: list[str] = Field(min_length=1)
    role: Literal["viewer", "writer", "admin"]
    name: str = ""
    expires_at: AwareDatetime | None = Field(
        None, description="After this (ISO 8601 with an offset) the token is refused."
    )
    link_roots: list[Annotated[str, Field(min_length=1)]] | None = Field(
        None, description="The folders this org may link, in place of the deployment's link_roots."
    )


@dataclass(frozen=True)
class Grant:
    """What one caller may do."""

    name: str
    org: str
    namespaces: tuple[str, ...]  # "*" is every namespace of the org
    role: str

    def allows(self, namespace: str) -> bool:
        return "*" in self.namespaces or namespace in self.namespaces

    def may(self, op: Op) -> bool:
        """The role is the op's or above (the org and namespace are authorize's to check)."""
        return ROLES[self.role] >= ROLES[op.role]


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    return "tab_" + secrets.token_urlsafe(32)


log = logging.getLogger("tabular.service")


def _read(path: Path) -> dict[str, TokenEntry]:
    """The entries of a tokens file; ValueError saying what is wrong with it."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as err:
        raise ValueError(f"tokens file {path}: {err}") from None
    if not isinstance(raw, dict):
        raise ValueError(f"tokens file {path}: expected an object of sha256 hex → entry")
    entries = {}
    for key, value in raw.items():
        if len(key) != 64 or any(c not in "0123456789abcdef" for c in key.lower()):
            raise ValueError(f"tokens file {path}: {key!r} is not a sha256 in hex")
        try:
            entries[key.lower()] = TokenEntry.model_validate(value)
        except ValidationError as err:
            raise ValueError(f"tokens file {path}: entry {key[:8]}…: {err}") from None
    return entries


def _stamp(path: Path) -> tuple:
    try:
        found = path.stat()
    except OSError:
        return ()
    return (found.st_mtime_ns, found.st_size, found.st_ino)


class Tokens:
    """The tokens file, read at start and again after it changes; `None` entries means the
    single-user service."""

    def __init__(self, settings: Settings, entries: dict[str, TokenEntry] | None = None, path: Path | None = None):
        self.settings = settings
        self.entries = entries
        self.local = Grant("local", "", ("*",), "admin")
        self.path = path
        self._stamp = _stamp(path) if path else ()
        self._checked = time.monotonic()
        self._lock = threading.Lock()
        self._listeners: list[Callable[[dict[str, TokenEntry]], None]] = []

    @classmethod
    def load(cls, settings: Settings) -> Tokens:
        """Read `settings.tokens` (a path; empty: single user). A bad file stops the service at start."""
        if not settings.tokens:
            return cls(settings)
        path = Path(settings.tokens)
        try:
            return cls(settings, _read(path), path)
        except ValueError as err:
            raise SystemExit(str(err)) from None

    def _fresh(self) -> None:
        """Read the file again if it changed (looked at every `tokens_check_seconds`)."""
        if self.path is None or time.monotonic() - self._checked < self.settings.tokens_check_seconds:
            return
        with self._lock:
            self._checked = time.monotonic()
            stamp = _stamp(self.path)
            if stamp == self._stamp:
                return
            self._stamp = stamp
            try:
                self.entries = _read(self.path)
            except ValueError as err:
                log.error("%s; the tokens read before still serve", err)
                return
            for listener in self._listeners:
                listener(self.entries)

    def on_change(self, listener: Callable[[dict[str, TokenEntry]], None]) -> None:
        """Call `listener(entries)` each time the file is read anew (the page's sessions end
        with a token removed, even one put back before they are next looked at)."""
        self._listeners.append(listener)

    def link_roots(self, org: str) -> tuple[str, ...] | None:
        """The folders `org` may link: its entries' `link_roots` together; None when none of its
        entries says any (the deployment's setting then)."""
        self._fresh()
        said = [e.link_roots for e in (self.entries or {}).values() if e.org == org and e.link_roots is not None]
        return None if not said else tuple(dict.fromkeys(r for roots in said for r in roots))

    @property
    def single_user(self) -> bool:
        return self.entries is None

    def identify(self, authorization: str | None) -> Grant:
        """The grant of an `Authorization: Bearer <token>` header; AUTH_INVALID when none fits."""
        if self.entries is None:
            return self.local
        self._fresh()
        if not authorization:
            raise AuthInvalid("this service needs a token: send Authorization: Bearer <token>")
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise AuthInvalid("the Authorization header is not 'Bearer <token>'")
        return self.grant_of(token_hash(token.strip()))

    def grant_of(self, digest: str) -> Grant:
        """The grant of the token whose sha256 is `digest`, as the file says now (a sign-in of
        the page holds the digest, never the token); AUTH_INVALID when it is gone or expired."""
        if self.entries is None:
            return self.local
        self._fresh()
        entry = self.entries.get(digest)
        if entry is None:
            raise AuthInvalid("the token is not known to this service")
        if entry.expires_at is not None and entry.expires_at <= dt.datetime.now(dt.UTC):
            raise AuthInvalid(f"the token expired at {entry.expires_at.isoformat()}")
        return Grant(entry.name or f"token:{digest[:8]}", entry.org, tuple(entry.namespaces), entry.role)

    def namespace_of(self, grant: Grant, named):
        """The namespace a call that names `named` (or none) uses: it, else the grant's first
        (the install's default for `*`, and in single-user mode)."""
        return named or (grant.namespaces[0] if grant.namespaces[0] != "*" else self.settings.default_namespace)

    def authorize(self, grant: Grant, op: Op, body: dict) -> dict:
        """The body with org and namespace filled from the grant; AUTH_INSUFFICIENT when the
        role is below the op's or the org/namespace is not the grant's. (Another org's data is
        never reachable; a source of an allowed namespace that does not exist answers as missing.)"""
        if not grant.may(op):
            raise AuthInsufficient(f"{op.name} needs the {op.role} role; this token is {grant.role}")
        if self.entries is None:
            return body
        org = body.get("org") or grant.org
        if not isinstance(org, str) or org != grant.org:
            raise AuthInsufficient(
                "this token may not use that org",
                [ErrorItem("org", "not this token's org", expected=grant.org, received=org)],
            )
        namespace = self.namespace_of(grant, body.get("namespace"))
        if not isinstance(namespace, str) or not grant.allows(namespace):
            allowed = [n for n in grant.namespaces if n != "*"]
            raise AuthInsufficient(
                "this token may not use that namespace",
                [
                    ErrorItem(
                        "namespace",
                        "not allowed for this token",
                        expected=" | ".join(allowed) or None,
                        received=namespace,
                    )
                ],
            )
        return {**body, "org": org, "namespace": namespace}
