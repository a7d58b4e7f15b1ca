"""The error codes of SPEC §2, a closed set (`ErrorCode`), raised the same way on every transport."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from .jsonval import printable
from .settings import SettingInvalid, naming_the_change

# The codes of SPEC §2's table, and no other: an error class whose code is not one of them is a
# type error (mypy), and tests/test_errors.py holds this list to the SPEC's text.
SpecCode = Literal[
    "VALIDATION_FAILED",
    "AUTH_INVALID",
    "AUTH_INSUFFICIENT",
    "RESOURCE_NOT_FOUND",
    "PRECONDITION_FAILED",
    "TOO_LARGE",
    "BACKEND_TIMEOUT",
    "RATE_LIMITED",
    "OVERLOADED",
    "METHOD_NOT_ALLOWED",
    "PATH_NOT_FOUND",
    "PATH_NOT_ALLOWED",
    "DISK_ROOT",
    "TOO_MANY_FILES",
    "FOLDER_TOO_LARGE",
    "TOO_MANY_LINKS",
    "STORAGE_DAMAGED",
    "INTERNAL",
]
# Codes of this engine the SPEC's table does not list, each with its class's reason:
# StorageUnwritable (a disk that refuses writes is no defect), and service/calls.ClientClosed (a
# client gone before its answer: said to the log, answered to no one).
OwnCode = Literal["STORAGE_UNWRITABLE", "CLIENT_CLOSED"]
ErrorCode = Literal[SpecCode, OwnCode]

# planner/models.py's tags: which kind of expression or dataset pydantic tried, never a key.
TAG_PREFIXES = ("expr:", "dataset:")


def json_path(loc: tuple) -> str:
    """A pydantic error location as the JSON path SPEC §2 names (`where[2].value`)."""
    out = ""
    for part in loc:
        if isinstance(part, str) and part.startswith(TAG_PREFIXES):
            continue  # which kind of expression or dataset pydantic tried: not a key
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


@dataclass(frozen=True)
class ErrorItem:
    """One thing wrong with an input: where (JSON path), what was expected, what came."""

    path: str
    message: str
    expected: str | None = None
    received: Any = None
    did_you_mean: list[str] | None = None

    def to_dict(self) -> dict[str, Any]:
        """As JSON carries it: whatever came (a lone surrogate, NaN) is escaped, never a failure to answer."""
        out: dict[str, Any] = {"path": printable(self.path), "message": printable(self.message)}
        if self.expected is not None:
            out["expected"] = printable(self.expected)
        if self.received is not None:
            out["received"] = printable(_shortened(self.received))
        if self.did_you_mean:
            out["did_you_mean"] = printable(self.did_you_mean)
        return out


# What came is echoed up to this many characters (a 10 MB title is not sent back whole).
RECEIVED_CHARS = 200


def _shortened(value: Any) -> Any:
    """What came, as much of it as is worth echoing: a text's first RECEIVED_CHARS characters, a
    list's first ten items (each shortened), an object not at all."""
    if isinstance(value, str):
        return value[:RECEIVED_CHARS] + "…" if len(value) > RECEIVED_CHARS else value
    if isinstance(value, (list, tuple)):
        return [_shortened(v) for v in value[:10]] + (["…"] if len(value) > 10 else [])
    if isinstance(value, dict):
        return None
    return value


class TabularError(Exception):
    """An error a caller can act on: a stable `code`, an HTTP `status`, and `errors` on 422."""

    code: ErrorCode = "INTERNAL"
    status: int = 500
    request_id = ""  # set on errors a remote service answered (tabular.Client)

    def __init__(self, message: str, errors: list[ErrorItem] | None = None):
        super().__init__(message)
        self.message = message
        self.errors = list(errors or [])

    def to_detail(self, request_id: str = "") -> dict[str, Any]:
        detail: dict[str, Any] = {"code": self.code, "message": printable(self.message), "request_id": request_id}
        if self.errors:
            detail["errors"] = [e.to_dict() for e in self.errors]
        return detail


class ValidationFailed(TabularError):
    code: ErrorCode = "VALIDATION_FAILED"
    status = 422


def setting_refused(err: SettingInvalid) -> ValidationFailed:
    """A setting no engine can run with, as every surface answers it at start (connect(), the
    CLI, `tabular serve`, `tabular mcp`): VALIDATION_FAILED at `settings.<name>`, saying what was
    expected and what came."""
    item = ErrorItem(f"settings.{err.name}", str(err), expected=err.expected, received=err.received)
    return ValidationFailed("a setting the engine cannot run with", [item])


def past_38_digits(detail: str) -> ValidationFailed:
    """An exact answer past 38 digits (a sum of very wide decimals), refused, not rounded; `detail`
    is the backend's own first line."""
    return ValidationFailed(
        "the answer does not fit an exact number of 38 digits",
        [
            ErrorItem(
                "aggregates",
                f"an exact result past 38 digits cannot be given: {detail}",
                expected="results within DECIMAL(38)",
            )
        ],
    )


class MethodNotAllowed(TabularError):
    """An HTTP method a route does not take (ops are POST): its own code, so a client can tell
    it from a bad body."""

    code: ErrorCode = "METHOD_NOT_ALLOWED"
    status = 405


class NotFound(TabularError):
    code: ErrorCode = "RESOURCE_NOT_FOUND"
    status = 404


class PreconditionFailed(TabularError):
    code: ErrorCode = "PRECONDITION_FAILED"
    status = 409


class TooLarge(TabularError):
    """Past a limit; the message names the setting, and says how to change it."""

    code: ErrorCode = "TOO_LARGE"
    status = 413

    def __init__(self, message: str, errors: list[ErrorItem] | None = None):
        super().__init__(naming_the_change(message), errors)


class BackendTimeout(TabularError):
    code: ErrorCode = "BACKEND_TIMEOUT"
    status = 504


class AuthInvalid(TabularError):
    code: ErrorCode = "AUTH_INVALID"
    status = 401


class AuthInsufficient(TabularError):
    code: ErrorCode = "AUTH_INSUFFICIENT"
    status = 403


class RateLimited(TabularError):
    """Back-pressure: `retry_after` seconds is sent as the Retry-After header (whole seconds, as
    the server says them; the client's error holds what the header said, which may be 1.5)."""

    code: ErrorCode = "RATE_LIMITED"
    status = 429

    def __init__(self, message: str, retry_after: float = 1, errors: list[ErrorItem] | None = None):
        super().__init__(message, errors)
        self.retry_after = retry_after


class Overloaded(RateLimited):
    code: ErrorCode = "OVERLOADED"
    status = 503


class Internal(TabularError):
    code: ErrorCode = "INTERNAL"
    status = 500


class StorageUnwritable(TabularError):
    """The home's disk refused a write for want of a writable disk (read-only, permission denied):
    no defect and no bad input; nothing was changed. Not in SPEC §2's table (store/faults.py)."""

    code: ErrorCode = "STORAGE_UNWRITABLE"
    status = 503


class StorageDamaged(TabularError):
    """A stored file failed its checks (a snapshot's DuckDB file cut short or overwritten): the
    file is named, relative to the home (`path`), and everything else keeps serving."""

    code: ErrorCode = "STORAGE_DAMAGED"
    status = 500

    def __init__(self, message: str, path: str = ""):
        super().__init__(message)
        self.path = path


# -- linked folders (links.py): a link refused, and nothing watched --------------------------


class PathNotFound(TabularError):
    code: ErrorCode = "PATH_NOT_FOUND"
    status = 404


class PathNotAllowed(TabularError):
    """Outside the folders this deployment lets links watch (the link_roots setting)."""

    code: ErrorCode = "PATH_NOT_ALLOWED"
    status = 403


class DiskRoot(TabularError):
    code: ErrorCode = "DISK_ROOT"
    status = 422


class OverLimit(TabularError):
    """A folder (or a namespace's links) past a limit: how many, and the limit, on `path`."""

    status = 413

    def __init__(self, message: str, count: int, limit: int):
        message = naming_the_change(message)
        super().__init__(message, [ErrorItem("path", message, expected=f"at most {limit:,}", received=count)])
        self.count, self.limit = count, limit


class TooManyFiles(OverLimit):
    code: ErrorCode = "TOO_MANY_FILES"


class FolderTooLarge(OverLimit):
    code: ErrorCode = "FOLDER_TOO_LARGE"


class TooManyLinks(OverLimit):
    code: ErrorCode = "TOO_MANY_LINKS"


class IngestFailed(Exception):
    """An ingest that cannot publish: `error_code` is one of SPEC §4 ingest_status's codes."""

    def __init__(self, error_code: str, message: str):
        message = naming_the_change(message) if error_code == "too_large" else message
        super().__init__(message)
        self.error_code = error_code
        self.message = message


def close_names(name: str, candidates: list[str]) -> list[str]:
    """Up to three candidates closest to `name`, for `did_you_mean` (the planner's rule)."""
    from planner.resolved import close  # heavy: the planner loads sqlglot; only a refused name asks

    return close(name, candidates)
