"""The web page for the person the engine asks (/ui): the namespace's sources, a dataset with its
questions to answer, and a place to ask it things. Server-rendered (Jinja2, autoescaped), no
script, every asset in the package. The page has no logic of its own: every read and change is
an op of the registry, run by `Service.run` for the signed-in caller as HTTP runs it (the role
check, the org's slots, the audit line), so a page refused an op shows the op's own refusal.

Who: with tokens, a sign-in page takes a token and begins a session held by this process
(sessions.py); the HttpOnly, SameSite=Strict cookie (Secure over https, Path=/ui) holds only the
session's random id, never the token, so sign-out or the token's removal ends it in every copy;
in single-user mode the local user, as the API has. Every change is a POST that carries the
session's CSRF token (an HMAC of the session cookie's id) from a hidden field and comes from this
site's own Origin. Reads are GETs, so a dataset, a question and a plan
each have a URL to share."""

from __future__ import annotations

import base64
import hashlib
import hmac
import io
import json
import re
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import FormData
from starlette.exceptions import HTTPException

from ..display.questions import asked, open_said
from ..errors import AuthInsufficient, AuthInvalid, ErrorItem, TabularError, TooLarge, ValidationFailed
from ..ingest.uploads import store_upload
from ..ops import REGISTRY
from ..results import FORMATS as RESULT_FORMATS
from .auth import Grant
from .calls import Service, Streamed, audit, parse_body, request_id
from .sessions import Sessions

charts: ModuleType | None
try:
    from .. import charts  # optional: the chart of an answer; the page shows none without it
except ImportError:  # pragma: no cover - charts is a sibling module, present in a full checkout
    charts = None

SID = "tabular_session"  # a random id: the CSRF token's key and, once signed in, the session's
# Cookies of earlier versions (path /): the token itself, and the id; removed where still sent.
LEGACY = ("tabular_token", "tabular_sid")
SID_FORM = re.compile(r"[A-Za-z0-9_-]{20,64}")
TYPES = ("string", "number", "bool", "date", "datetime", "time", "duration")
SOURCES_PAGE = 50  # sources per page of /ui/sources (each costs a dataset_get)
SAMPLE_ROWS = 20
UPLOAD_FILES = 20  # files one upload form may send
MAX_ANSWERED = 1000  # columns one answer of alike questions may name
STALE = "someone changed this; reload"

ENV = Environment(loader=PackageLoader("tabular.service", "templates"), autoescape=select_autoescape(default=True))


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


ENV.filters["json"] = _json
ENV.globals.update(asked=asked, open_said=open_said)  # the questions grouped and counted as every view does


@dataclass(frozen=True)
class Visit:
    """Who is looking: their grant (None: must sign in), the session id and its CSRF token, the
    namespace the URL names ('' for the caller's default) and the one shown."""

    grant: Grant | None
    sid: str
    new_sid: bool
    csrf: str
    namespace: str
    shown_namespace: str
    single_user: bool

    def may(self, op: str) -> bool:
        return self.grant is not None and self.grant.may(REGISTRY[op])

    @property
    def signed_in(self) -> Grant:
        """The grant of a visit a route is shown: _guard sends a visit without one to sign in."""
        if self.grant is None:
            raise AuthInvalid("sign in first")
        return self.grant

    def body(self, **fields: Any) -> dict:
        """An op's body: the fields and, when the URL names one, the namespace."""
        return {**fields, **({"namespace": self.namespace} if self.namespace else {})}

    def url(self, path: str, **params: Any) -> str:
        """A page's URL keeping the namespace the visit names."""
        params = {k: v for k, v in {**params, "namespace": self.namespace}.items() if v not in (None, "")}
        return path + ("?" + urlencode(params) if params else "")

    def dataset_url(self, source_uri: str, dataset_id: str = "", **params: Any) -> str:
        return self.url("/ui/datasets/" + quote(source_uri, safe="/"), dataset_id=dataset_id, **params)

    def ask_url(self, plan: Any) -> str:
        return self.url("/ui/ask", plan=plan if isinstance(plan, str) else _json(plan))


def _cookie_values(header: str, name: str) -> list[str]:
    """Each value the Cookie header gives `name`, in the order sent."""
    pairs = (part.strip().partition("=") for part in header.split(";"))
    return [value.strip().strip('"') for key, _, value in pairs if key.strip() == name]


class Pages:
    """The routes of /ui over one Service."""

    def __init__(self, service: Service):
        self.service = service
        self.tokens = service.tokens
        self.secret = secrets.token_bytes(32)  # CSRF tokens of this process (a restart asks to reload)
        settings = service.settings
        self.sessions = Sessions(self.tokens, settings.ui_session_seconds, settings.ui_sessions_per_token)

    # -- who is looking ------------------------------------------------------------------------

    def visit(self, request: Request) -> Visit:
        # Every session cookie sent (a browser sends one per path or domain that set it, and
        # Starlette keeps the last): a live session among them, else the first as the CSRF key.
        sids = [v for v in _cookie_values(request.headers.get("cookie", ""), SID) if SID_FORM.fullmatch(v)][:4]
        grant: Grant | None = self.tokens.local if self.tokens.single_user else None
        sid = sids[0] if sids else ""
        for given in sids if grant is None else ():
            # The session's token looked up again on every request: removed, it is signed out.
            if (grant := self.sessions.grant(given)) is not None:
                sid = given
                break
        new_sid = not sid
        if new_sid:
            sid = secrets.token_urlsafe(24)
        # Not cut to a length: a namespace the ops refuse is shown refused, not another one opened.
        namespace = request.query_params.get("namespace", "")
        shown = self.tokens.namespace_of(grant, namespace) if grant is not None else namespace
        csrf = hmac.new(self.secret, sid.encode(), hashlib.sha256).hexdigest()
        return Visit(grant, sid, new_sid, csrf, namespace, shown, self.tokens.single_user)

    def check_post(self, request: Request, visit: Visit, csrf: str) -> None:
        """A change comes from this site's own page: its Origin (or Referer) is this host, and it
        carries the session's CSRF token. Else 403, nothing done."""
        host = request.headers.get("host", "")
        origin = request.headers.get("origin") or ""
        source = origin.split("://", 1)[-1] if origin else urlsplit(request.headers.get("referer", "")).netloc
        if source != host:
            raise AuthInsufficient(
                f"this form was sent from {origin or 'an unknown page'!r}, not from this site: nothing was changed",
                [ErrorItem("origin", "not this site", expected=host, received=origin or None)],
            )
        if visit.new_sid or not hmac.compare_digest(csrf, visit.csrf):
            raise AuthInsufficient(
                "the form's CSRF token is missing or stale: reload the page and send it again",
                [ErrorItem("csrf", "missing or stale", expected="the token of this page's session")],
            )

    # -- rendering -------------------------------------------------------------------------------

    def page(
        self, request: Request, visit: Visit, template: str, http_status: int = 200, **context: Any
    ) -> HTMLResponse:
        html = ENV.get_template(template).render(visit=visit, types=TYPES, charts=charts is not None, **context)
        response = HTMLResponse(html, status_code=http_status)
        response.headers["Cache-Control"] = "no-store"
        response.headers["X-Frame-Options"] = "DENY"
        response.headers["Content-Security-Policy"] = (
            "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'"
        )
        if visit.new_sid:
            self.set_cookie(request, response, visit.sid)
        self.forget_legacy(request, response)
        return response

    def set_cookie(self, request: Request, response: Response, sid: str, max_age: int | None = None) -> None:
        """The session cookie: the id alone, for the page's paths only."""
        response.set_cookie(SID, sid, max_age=max_age, path="/ui", **self._flags(request))

    def delete_cookie(self, request: Request, response: Response) -> None:
        response.delete_cookie(SID, path="/ui", **self._flags(request))

    def forget_legacy(self, request: Request, response: Response) -> None:
        """An earlier version's cookies, still sent: removed (one of them held the token itself)."""
        for name in LEGACY:
            if name in request.cookies:
                response.delete_cookie(name, path="/", **self._flags(request))

    @staticmethod
    def _flags(request: Request) -> dict[str, Any]:
        return {"httponly": True, "samesite": "strict", "secure": request.url.scheme == "https"}

    def failed(self, request: Request, visit: Visit, err: TabularError, **context: Any) -> HTMLResponse:
        stale = err.code == "PRECONDITION_FAILED"
        return self.page(request, visit, "error.html", err.status, err=err, stale=stale, STALE=STALE, **context)

    async def run(self, request: Request, visit: Visit, op: str, body: dict) -> Any:
        return await self.service.run(REGISTRY[op], visit.body(**body), visit.signed_in, request_id(request))

    async def run_all(self, request: Request, visit: Visit, op: str, bodies: list[dict]) -> list[Any]:
        """One read op for each body, as `run` runs it (the role and namespace checked for each,
        the org's slot and a slot held), in one trip to a worker thread: a page of 50 sources
        paid a thread hop per source (7 ms each on a busy machine, 1.3 ms in the op)."""
        spec = REGISTRY[op]
        assert not spec.audited, "a change is run one at a time, by run()"
        if not bodies:
            return []
        checked = [self.tokens.authorize(visit.signed_in, spec, visit.body(**b)) for b in bodies]
        release = await self.service.hold(str(checked[0].get("org") or self.service.settings.default_org))
        try:
            engine, caller = self.service.engine, visit.signed_in.name
            return await run_in_threadpool(lambda: [engine.run(spec.name, b, caller) for b in checked])
        finally:
            release()


def refusal_page(err: TabularError) -> HTMLResponse:
    """A refusal made before any route reads the request (a URL past max_url_bytes), shown as
    the page's own error page to whoever asked a page."""
    visit = Visit(None, "", False, "", "", "", False)
    html = ENV.get_template("error.html").render(visit=visit, err=err, stale=False, STALE=STALE)
    return HTMLResponse(html, status_code=err.status, headers={"Cache-Control": "no-store"})


def _path_keys(path: str) -> list[str | int]:
    """`where[2].value` as ["where", 2, "value"]."""
    return [int(k[1:-1]) if k.startswith("[") else k for k in re.findall(r"\[\d+\]|[^.\[\]]+", path)]


def fixed_plan(plan: Any, path: str, received: Any, suggestion: str) -> Any | None:
    """The plan with one did-you-mean taken: the value at `path` replaced, or, when the path
    names a key that is no clause (received is the key itself), the key renamed. None when the
    path does not lead into the plan."""
    keys = _path_keys(path)
    if not keys:
        return None
    fixed = json.loads(json.dumps(plan))
    parent = fixed
    try:
        for key in keys[:-1]:
            parent = parent[key]
        last = keys[-1]
        if isinstance(parent, dict) and isinstance(last, str) and received == last and last in parent:
            parent[suggestion] = parent.pop(last)
        else:
            _ = parent[last]  # the path must lead to a value
            parent[last] = suggestion
    except (KeyError, IndexError, TypeError):
        return None
    return fixed


def _chart(answer: Any) -> tuple[str | None, str | None]:
    """The answer's chart as a PNG data URI, or why there is none."""
    if charts is None:
        return None, None
    try:
        figure = charts.plot(answer)
    except TabularError as err:
        return None, err.message
    out = io.BytesIO()
    figure.savefig(out, format="png", dpi=80)
    return "data:image/png;base64," + base64.b64encode(out.getvalue()).decode(), None


def _guard(pages: Pages, fn: Callable[..., Awaitable[Response]]) -> Callable[..., Awaitable[Response]]:
    """A route: the visitor known (or sent to sign in), an op's refusal shown as a page."""

    async def route(request: Request) -> Response:
        visit = pages.visit(request)
        if visit.grant is None:
            # Back to the very page after signing in: a shared link keeps its plan, task or dataset
            # (a form sent unsigned goes to the sources: its POST cannot be replayed as a GET).
            back = request.url.path + (f"?{request.url.query}" if request.url.query else "")
            return RedirectResponse(
                visit.url("/ui/signin", next=back if request.method == "GET" else ""), status_code=303
            )
        try:
            return await fn(request, visit)
        except TabularError as err:
            return pages.failed(request, visit, err)

    route.__name__ = fn.__name__
    return route


async def _read_form(request: Request, max_files: int, max_fields: int) -> FormData:
    """The posted form; one past its limits (21 files chosen) or malformed is a refusal shown
    as a page, where Starlette's 400 came as the API's JSON."""
    try:
        return await request.form(max_files=max_files, max_fields=max_fields)
    except HTTPException as err:
        failure = ValidationFailed(
            f"the form was not read: {err.detail}",
            [ErrorItem("", str(err.detail), expected=f"at most {max_files} files and {max_fields} fields")],
        )
        failure.status = 400
        raise failure from None


async def _form(request: Request) -> dict[str, str]:
    form = await _read_form(request, max_files=0, max_fields=40)
    return {k: v for k, v in form.items() if isinstance(v, str)}


async def _answer_form(request: Request) -> tuple[dict[str, str], list[str]]:
    """An answer's form, and the columns it answers (one, or every column of alike questions)."""
    form = await _read_form(request, max_files=0, max_fields=40 + MAX_ANSWERED)
    columns = [v for v in form.getlist("column") if isinstance(v, str) and v][:MAX_ANSWERED]
    return {k: v for k, v in form.items() if isinstance(v, str) and k != "column"}, columns


def _sources_routes(pages: Pages, router: APIRouter) -> None:
    async def sources(request: Request, visit: Visit) -> Response:
        # The jobs first, then the sources: a job read as ready has its source in the list read after it.
        ingestions = [i for i in request.query_params.get("ingestion", "").split(",") if i][:UPLOAD_FILES]
        statuses = await pages.run_all(
            request, visit, "knowledge.ingest_status", [{"ingestion_id": i} for i in ingestions]
        )
        cursor = request.query_params.get("cursor", "")
        listed = await pages.run(request, visit, "knowledge.list", {"limit": SOURCES_PAGE, "cursor": cursor})
        live = [row.source_uri for row in listed.rows if not row.deleted]
        got = await pages.run_all(request, visit, "knowledge.dataset_get", [{"source_uri": uri} for uri in live])
        datasets = {uri: answer.datasets if answer.found else [] for uri, answer in zip(live, got)}
        rows = [(row, datasets.get(row.source_uri, [])) for row in listed.rows]
        return pages.page(request, visit, "sources.html", rows=rows, next_cursor=listed.next_cursor, statuses=statuses)

    async def upload(request: Request, visit: Visit) -> Response:
        """Chosen (or dropped) files: each stored as knowledge.upload stores it (streamed,
        max_upload_bytes, the org's storage quota), then knowledge.ingest under the name it was
        stored by; the page follows the jobs by ingest_status. Every refusal is audited, as the
        API's upload route audits it."""
        op = REGISTRY["knowledge.upload"]
        body = visit.body()
        try:
            limit = pages.service.settings.max_upload_bytes
            declared = request.headers.get("content-length", "")
            if not declared.isdigit() or int(declared) > limit + 65536:
                said = f"{int(declared):,} bytes" if declared.isdigit() else "of no declared length"
                raise TooLarge(
                    f"the files sent together are {said}, over max_upload_bytes ({limit:,} bytes): send fewer at once"
                )
            form = await _read_form(request, max_files=UPLOAD_FILES, max_fields=10)
            pages.check_post(request, visit, str(form.get("csrf", "")))
            body = pages.tokens.authorize(visit.signed_in, op, body)
            chosen = [(f, f.filename) for f in form.getlist("file") if not isinstance(f, str) and f.filename]
            if not chosen:
                raise ValidationFailed("choose a file to upload", [ErrorItem("file", "missing", expected="a file")])
            org = body.get("org") or pages.service.settings.default_org
            namespace = body.get("namespace") or pages.service.settings.default_namespace
            stored = []
            for one, filename in chosen:
                kept = await run_in_threadpool(
                    store_upload,
                    pages.service.engine.catalog,
                    pages.service.settings,
                    org,
                    namespace,
                    one.file,
                    filename,
                    one.content_type or "application/octet-stream",
                )
                audit(op, visit.grant, body, request_id(request), 200, None)
                stored.append(kept)
        except TabularError as err:
            audit(op, visit.grant, body, request_id(request), err.status, err.code)
            raise
        # One file may be named; else each is the source of the name it was stored by (its last
        # part: a name sent as '../../x.csv' is x.csv, as the upload keeps it).
        named = str(form.get("source_uri") or "").strip() if len(stored) == 1 else ""
        started = []
        for kept in stored:
            ingest = {"upload_id": kept.upload_id, "source_uri": named or kept.filename}
            started.append((await pages.run(request, visit, "knowledge.ingest", ingest)).ingestion_id)
        return RedirectResponse(visit.url("/ui/sources", ingestion=",".join(started)), status_code=303)

    async def lifecycle(request: Request, visit: Visit) -> Response:
        """Delete (admin) or restore (writer) a source, as the form says."""
        form = await _form(request)
        pages.check_post(request, visit, form.get("csrf", ""))
        action = form.get("action", "")
        if action not in ("delete", "restore"):
            raise ValidationFailed("no such action", [ErrorItem("action", "unknown", expected="delete | restore")])
        body: dict[str, Any] = {"source_uri": form.get("source_uri", "")}
        if action == "delete" and form.get("expected_revision", "").isdigit():
            body["expected_revision"] = int(form["expected_revision"])
        answer = await pages.run(request, visit, f"knowledge.{action}", body)
        if not answer.found:  # gone meanwhile, or a name sent by hand: said, not a silent reload
            return pages.page(request, visit, "missing.html", 404, source_uri=body["source_uri"], answer=answer)
        return RedirectResponse(visit.url("/ui/sources"), status_code=303)

    router.add_route("/ui/sources", _guard(pages, sources), methods=["GET"])
    router.add_route("/ui/upload", _guard(pages, upload), methods=["POST"])
    router.add_route("/ui/sources/change", _guard(pages, lifecycle), methods=["POST"])


def _dataset_routes(pages: Pages, router: APIRouter) -> None:
    async def dataset(request: Request, visit: Visit) -> Response:
        source_uri = request.path_params["source_uri"]
        dataset_id = request.query_params.get("dataset_id", "")
        got = await pages.run(
            request,
            visit,
            "knowledge.dataset_get",
            {"source_uri": source_uri, "dataset_id": dataset_id, "sample_rows": SAMPLE_ROWS},
        )
        if not got.found:
            return pages.page(request, visit, "missing.html", 404, source_uri=source_uri, answer=got)
        source = await pages.run(request, visit, "knowledge.get", {"source_uri": source_uri})
        shown = got.datasets[0]
        others = source.datasets if len(source.datasets) > 1 else []
        history = [h for h in source.history if h.dataset_id == shown.dataset_id]
        # Just applied (the approve route sends here with the new snapshot): what it settled, said.
        applied = request.query_params.get("approved", "")
        done = next((h for h in history if applied and h.new_snapshot_id == applied), None)
        return pages.page(
            request,
            visit,
            "dataset.html",
            source_uri=source_uri,
            source=source,
            d=shown,
            others=others,
            history=history,
            done=done,
        )

    async def approve(request: Request, visit: Visit) -> Response:
        """One answer (a question's option for its column or for every column of alike questions,
        a column retyped, or the rest accepted as shown): a dry run first, shown with what it
        answers, settles and leaves open; Apply runs it against the snapshot that was read."""
        form, columns = await _answer_form(request)
        pages.check_post(request, visit, form.get("csrf", ""))
        type_, format_ = form.get("type", ""), form.get("format", "")
        body: dict[str, Any] = {
            "source_uri": form.get("source_uri", ""),
            "dataset_id": form.get("dataset_id", ""),
            "snapshot_id": form.get("snapshot_id", ""),
            "columns": dict.fromkeys(columns, type_) if type_ else {},
            "formats": dict.fromkeys(columns, format_) if format_ else {},
            "settle_rest": form.get("settle_rest") == "1",
            "allow_rejects": form.get("allow_rejects") == "1",
            "dry_run": form.get("apply") != "1",
        }
        back = visit.dataset_url(body["source_uri"], body["dataset_id"])
        try:
            answer = await pages.run(request, visit, "knowledge.dataset_approve", body)
        except TabularError as err:
            return pages.failed(request, visit, err, back=back)
        if not answer.found:
            return pages.page(request, visit, "missing.html", 404, source_uri=body["source_uri"], answer=answer)
        if body["dry_run"]:
            return pages.page(request, visit, "preview.html", form=form, columns=columns, answer=answer, back=back)
        return RedirectResponse(
            visit.dataset_url(body["source_uri"], body["dataset_id"], approved=answer.dataset.snapshot_id),
            status_code=303,
        )

    router.add_route("/ui/datasets/{source_uri:path}", _guard(pages, dataset), methods=["GET"])
    router.add_route("/ui/approve", _guard(pages, approve), methods=["POST"])


def _plan_of(text: str) -> dict:
    """The plan a URL or the editor holds, as the API reads a body (a refusal at "" when it is not JSON)."""
    return parse_body(text.encode())


def _ask_routes(pages: Pages, router: APIRouter) -> None:
    async def ask(request: Request, visit: Visit) -> Response:
        text = request.query_params.get("plan", "")
        task = request.query_params.get("task", "").strip()
        context: dict[str, Any] = {"text": text, "task": task, "task_sources": request.query_params.get("sources", "")}
        if text.strip():
            plan = None
            try:
                plan = _plan_of(text)
                context["text"] = json.dumps(plan, indent=2, ensure_ascii=False, default=str)
                answer = await pages.run(request, visit, "knowledge.query", plan)
            except ValidationFailed as err:
                fixes = []
                for item in err.errors:
                    for suggestion in item.did_you_mean or []:
                        fixed = fixed_plan(plan, item.path, item.received, suggestion) if plan is not None else None
                        if fixed is not None:
                            fixes.append((item, suggestion, visit.ask_url(fixed)))
                context.update(error=err, fixes=fixes)
            else:
                chart, no_chart = await run_in_threadpool(_chart, answer)
                context.update(plan=plan, answer=answer, chart=chart, no_chart=no_chart)
        if task:
            sources = [s.strip() for s in context["task_sources"].split(",") if s.strip()]
            body = {"task": task, "datasets": [{"source_uri": s} for s in sources]}
            try:
                context["synth"] = await pages.run(request, visit, "knowledge.synthesize", body)
            except ValidationFailed as err:
                context["synth_error"] = err
        return pages.page(request, visit, "ask.html", **context)

    async def export(request: Request, visit: Visit) -> Response:
        """knowledge.query_export of the plan in the URL, streamed as the file asked."""
        plan = _plan_of(request.query_params.get("plan", ""))
        # The URL's format wins over a `format` the plan may carry (the Ask page's plan is the query's).
        body = visit.body(**{**plan, "format": request.query_params.get("format", "csv")})
        whole, rows = await pages.service.stream(
            REGISTRY["knowledge.query_export"], body, visit.signed_in, gone=request
        )
        name = "answer." + ("arrow" if whole.format == "arrow" else whole.format)
        return Streamed(  # a visitor who goes away stops the statement (calls.Rows)
            rows,
            media_type=RESULT_FORMATS[whole.format],
            headers={"Content-Disposition": f'attachment; filename="{name}"'},
        )

    router.add_route("/ui/ask", _guard(pages, ask), methods=["GET"])
    router.add_route("/ui/export", _guard(pages, export), methods=["GET"])


def _signin_routes(pages: Pages, router: APIRouter) -> None:
    async def signin_page(request: Request) -> Response:
        visit = pages.visit(request)
        return pages.page(request, visit, "signin.html", next=request.query_params.get("next", ""))

    async def signin(request: Request) -> Response:
        visit = pages.visit(request)
        form: dict[str, str] = {}
        try:
            form = await _form(request)
            pages.check_post(request, visit, form.get("csrf", ""))
            pages.tokens.identify("Bearer " + form.get("token", "").strip())
        except TabularError as err:
            return pages.page(request, visit, "signin.html", err.status, error=err, next=form.get("next", ""))
        target = form.get("next", "")
        target = target if target.startswith("/ui/") and not target.startswith("//") else "/ui/sources"
        response = RedirectResponse(target, status_code=303)
        # A new id, so one planted before signing in is never the session (and a new CSRF token).
        sid = pages.sessions.begin(form.get("token", "").strip())
        pages.set_cookie(request, response, sid, max_age=int(pages.service.settings.ui_session_seconds))
        pages.forget_legacy(request, response)
        return response

    async def signout(request: Request) -> Response:
        visit = pages.visit(request)
        try:
            pages.check_post(request, visit, (await _form(request)).get("csrf", ""))
        except TabularError as err:
            return pages.failed(request, visit, err)
        pages.sessions.end(visit.sid)  # the session is over, in every copy of its cookie
        response = RedirectResponse("/ui/signin", status_code=303)
        pages.delete_cookie(request, response)
        pages.forget_legacy(request, response)
        return response

    router.add_route("/ui/signin", signin_page, methods=["GET"])
    router.add_route("/ui/signin", signin, methods=["POST"])
    router.add_route("/ui/signout", signout, methods=["POST"])


def mount(app: FastAPI, service: Service) -> None:
    """/ui and its pages, its assets at /ui/static, and / sent to /ui."""
    pages = Pages(service)
    app.state.pages = pages  # the page's sessions, where tests can look at them
    router = APIRouter(include_in_schema=False)

    async def home(request: Request) -> Response:
        return RedirectResponse("/ui/sources", status_code=307)

    router.add_route("/", home, methods=["GET"])
    router.add_route("/ui", home, methods=["GET"])
    router.add_route("/ui/", home, methods=["GET"])
    _signin_routes(pages, router)
    _sources_routes(pages, router)
    _dataset_routes(pages, router)
    _ask_routes(pages, router)
    app.include_router(router)
    app.mount("/ui/static", StaticFiles(packages=[("tabular.service", "static")]), name="ui-static")
