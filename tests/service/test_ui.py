"""The web page (/ui) in-process: what a person sees and may do, made of the ops (issue 37). The
same walk in a real browser is tests/service/test_ui_browser.py."""

from __future__ import annotations

import csv
import html
import io
import json
import logging
import re
import time
from urllib.parse import parse_qs, urlsplit

import pytest
from fastapi.testclient import TestClient

from tabular.engine import Engine
from tabular.service import ui
from tabular.service.auth import TokenEntry, Tokens, token_hash
from tabular.service.http import create_app
from tabular.service.ui import fixed_plan
from tabular.settings import Settings

from .support import CSV

BASE = "http://127.0.0.1:8000"
ORIGIN = {"Origin": BASE}
TOKENS = {
    "tok-a-writer": {"name": "alice", "org": "orga", "namespaces": ["*"], "role": "writer"},
    "tok-a-viewer": {"name": "victor", "org": "orga", "namespaces": ["*"], "role": "viewer"},
    "tok-b-writer": {"name": "bob", "org": "orgb", "namespaces": ["*"], "role": "writer"},
    "tok-a-finance": {"name": "fay", "org": "orga", "namespaces": ["finance", "hr"], "role": "viewer"},
}


def csrf_of(page: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', page).group(1)


def upload(c: TestClient, path, source_uri: str = "", *more) -> str | list[str]:
    """Upload and ingest through the page; each ingestion's final state as the page shows it."""
    token = csrf_of(c.get("/ui/sources").text)
    files = [("file", (p.name, p.read_bytes(), "text/csv")) for p in (path, *more)]
    r = c.post(
        "/ui/upload",
        data={"csrf": token, "source_uri": source_uri},
        files=files,
        headers=ORIGIN,
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    deadline = time.monotonic() + 30
    while True:
        page = c.get(r.headers["location"]).text
        states = re.findall(r'ingest-state">([a-z]+)<', page)
        if not {"pending", "processing"} & set(states) or time.monotonic() > deadline:
            return states[0] if len(states) == 1 else states
        time.sleep(0.05)


@pytest.fixture(scope="module")
def single(tmp_path_factory):
    engine = Engine(str(tmp_path_factory.mktemp("ui") / "home"), Settings())
    with TestClient(create_app(engine, mcp=False), base_url=BASE) as c:
        yield c
    engine.close()


@pytest.fixture(scope="module")
def tenants(tmp_path_factory):
    settings = Settings()
    engine = Engine(str(tmp_path_factory.mktemp("ui-auth") / "home"), settings)
    tokens = Tokens(settings, {token_hash(t): TokenEntry(**e) for t, e in TOKENS.items()})
    app = create_app(engine, tokens, mcp=False)
    yield app
    engine.close()


def signed_in(app, token: str) -> TestClient:
    c = TestClient(app, base_url=BASE)
    page = c.get("/ui/signin").text
    r = c.post("/ui/signin", data={"csrf": csrf_of(page), "token": token}, headers=ORIGIN, follow_redirects=False)
    assert r.status_code == 303, r.text
    return c


def test_root_leads_to_the_sources_page(single):
    r = single.get("/", follow_redirects=True)
    assert r.status_code == 200 and urlsplit(str(r.url)).path == "/ui/sources"
    assert "<h1>Sources</h1>" in r.text
    assert single.get("/ui/static/ui.css").status_code == 200  # the stylesheet is in the package


def test_a_source_named_like_a_script_renders_as_text(single):
    assert upload(single, CSV / "dates_ambiguous.csv", "<script>alert(1)</script>.csv") == "ready"
    page = single.get("/ui/sources").text
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;.csv" in page
    dataset = single.get("/ui/datasets/%3Cscript%3Ealert%281%29%3C/script%3E.csv").text
    assert "<script>" not in dataset and "&lt;script&gt;" in dataset


def test_a_question_is_previewed_then_applied_and_a_stale_apply_says_reload(single):
    assert upload(single, CSV / "dates_ambiguous.csv", "dates.csv") == "ready"
    page = single.get("/ui/datasets/dates.csv").text
    snapshot = re.search(r'id="snapshot">([^<]+)<', page).group(1)
    assert "Every value reads both as day/month/year" in page  # the date_order question
    assert "%m/%d/%Y" in page and "0 rows rejected" in page
    form = {
        "csrf": csrf_of(page),
        "source_uri": "dates.csv",
        "dataset_id": "dates_ambiguous",
        "snapshot_id": snapshot,
        "column": "when",
        "type": "date",
        "format": "%m/%d/%Y",
    }
    preview = single.post("/ui/approve", data=form, headers=ORIGIN)
    assert preview.status_code == 200 and 'id="changes"' in preview.text and 'id="apply"' in preview.text
    assert re.search(r'id="snapshot">([^<]+)<', single.get("/ui/datasets/dates.csv").text).group(1) == snapshot
    applied = single.post("/ui/approve", data={**form, "apply": "1"}, headers=ORIGIN, follow_redirects=True)
    assert applied.status_code == 200
    after = re.search(r'id="snapshot">([^<]+)<', applied.text).group(1)
    assert after != snapshot and 'id="approved-by">local<' in applied.text
    assert 'id="no-questions"' in applied.text
    assert "2024-03-04" in applied.text  # 03/04/2024 now read month first
    stale = single.post("/ui/approve", data={**form, "apply": "1"}, headers=ORIGIN)
    assert stale.status_code == 409 and "Someone changed this; reload" in stale.text
    assert "PRECONDITION_FAILED" in stale.text


def test_a_change_without_the_pages_csrf_token_or_from_another_site_is_refused(single):
    assert upload(single, CSV / "dates_ambiguous.csv", "kept.csv") == "ready"
    page = single.get("/ui/sources").text
    form = {"source_uri": "kept.csv", "action": "delete", "csrf": csrf_of(page)}
    missing = single.post("/ui/sources/change", data={**form, "csrf": ""}, headers=ORIGIN)
    assert missing.status_code == 403 and "CSRF token is missing or stale" in missing.text
    foreign = single.post("/ui/sources/change", data=form, headers={"Origin": "http://evil.example"})
    assert foreign.status_code == 403
    assert "kept.csv" in single.get("/ui/sources").text and "Restore" not in single.get("/ui/sources").text
    deleted = single.post("/ui/sources/change", data=form, headers=ORIGIN, follow_redirects=True)
    assert deleted.status_code == 200 and "Restore" in deleted.text
    restore = {"source_uri": "kept.csv", "action": "restore", "csrf": csrf_of(deleted.text)}
    restored = single.post("/ui/sources/change", data=restore, headers=ORIGIN, follow_redirects=True)
    assert ">Restore<" not in restored.text


def test_in_single_user_mode_the_page_answers_only_this_machines_host(single):
    # A page elsewhere that rebinds its name to 127.0.0.1 would read the page with its own Host.
    assert single.get("/ui/sources", headers={"Host": "evil.example"}).status_code == 403
    refused = single.get("/ui/ask", headers={"Host": "evil.example"})
    assert 'id="error"' in refused.text and "Host 'evil.example' is not this service's" in html.unescape(refused.text)
    assert "source_uri" not in refused.text  # nothing of the page behind it
    assert single.get("/ui/sources").status_code == 200


def test_did_you_mean_rewrites_the_plan_at_its_path():
    plan = {"datasets": [{"source_uri": "a.csv"}], "group_by": [{"column": "qtty"}], "selct": ["id"]}
    assert fixed_plan(plan, "group_by[0].column", "qtty", "qty")["group_by"] == [{"column": "qty"}]
    renamed = fixed_plan(plan, "selct", "selct", "select")
    assert renamed["select"] == ["id"] and "selct" not in renamed
    assert fixed_plan(plan, "where[3].value", "x", "y") is None
    assert plan["group_by"] == [{"column": "qtty"}]  # the plan itself untouched


def test_a_typo_in_a_plan_is_fixed_by_one_link_and_the_csv_is_the_apis_answer(single):
    assert upload(single, CSV / "dates_ambiguous.csv", "asked.csv") == "ready"
    plan = {
        "datasets": [{"source_uri": "asked.csv"}],
        "group_by": [{"column": "idd"}],
        "aggregates": [{"fn": "sum", "column": "qty", "as": "total"}],
        "order_by": [{"column": "id"}],
    }
    page = single.get("/ui/ask", params={"plan": json.dumps(plan)})
    assert page.status_code == 200 and 'id="plan-errors"' in page.text
    assert "group_by[0].column" in page.text and 'id="result"' not in page.text
    fix = html.unescape(re.search(r'class="fix" href="([^"]+)"', page.text).group(1))
    fixed = json.loads(parse_qs(urlsplit(fix).query)["plan"][0])
    assert fixed == {**plan, "group_by": [{"column": "id"}]}
    done = single.get(fix)
    assert 'id="result"' in done.text and 'id="plan-errors"' not in done.text
    if ui.charts is not None:
        assert 'id="chart" src="data:image/png;base64,' in done.text
    api = single.post("/v1/knowledge.query", json=fixed).json()
    link = html.unescape(re.search(r'id="download-csv" href="([^"]+)"', done.text).group(1))
    got = single.get(link)
    assert got.status_code == 200 and "attachment" in got.headers["content-disposition"]
    rows = list(csv.reader(io.StringIO(got.text)))
    assert rows[0] == [c["name"] for c in api["columns"]]
    assert [[int(v) for v in r] for r in rows[1:]] == api["rows"]
    assert len(rows) == 9
    parquet = html.unescape(re.search(r'id="download-parquet" href="([^"]+)"', done.text).group(1))
    assert single.get(parquet).content[:4] == b"PAR1"


def test_a_plan_that_is_not_json_is_refused_in_the_page(single):
    page = single.get("/ui/ask", params={"plan": "{not json"})
    assert page.status_code == 200 and "not JSON" in page.text


def test_without_a_token_the_page_asks_to_sign_in_and_keeps_its_session_httponly(tenants):
    c = TestClient(tenants, base_url=BASE)
    r = c.get("/ui/sources", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"].startswith("/ui/signin")
    page = c.get("/ui/signin").text
    wrong = c.post("/ui/signin", data={"csrf": csrf_of(page), "token": "nope"}, headers=ORIGIN)
    assert wrong.status_code == 401 and "not known" in wrong.text
    r = c.post(
        "/ui/signin", data={"csrf": csrf_of(page), "token": "tok-a-writer"}, headers=ORIGIN, follow_redirects=False
    )
    cookie = next(v for k, v in r.headers.multi_items() if k == "set-cookie" and v.startswith("tabular_session="))
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie.replace("Strict", "strict")
    assert "Path=/ui" in cookie and "tok-a-writer" not in cookie  # the session's id, never the token
    assert "Secure" not in cookie  # served over http here
    assert 'id="who">alice<' in c.get("/ui/sources").text


def test_one_org_sees_nothing_of_another_and_a_viewer_cannot_approve(tenants):
    alice = signed_in(tenants, "tok-a-writer")
    assert upload(alice, CSV / "dates_ambiguous.csv", "secret-a.csv") == "ready"
    page = alice.get("/ui/datasets/secret-a.csv").text
    assert "Choose" in page
    bob = signed_in(tenants, "tok-b-writer")
    assert "secret-a.csv" not in bob.get("/ui/sources").text
    assert bob.get("/ui/datasets/secret-a.csv").status_code == 404
    victor = signed_in(tenants, "tok-a-viewer")
    seen = victor.get("/ui/datasets/secret-a.csv").text
    assert "secret-a.csv" in seen and "Choose" not in seen and "Preview" not in seen
    forged = {
        "csrf": csrf_of(victor.get("/ui/sources").text),
        "source_uri": "secret-a.csv",
        "snapshot_id": re.search(r'id="snapshot">([^<]+)<', seen).group(1),
        "column": "when",
        "type": "string",
        "apply": "1",
    }
    refused = victor.post("/ui/approve", data=forged, headers=ORIGIN)
    assert refused.status_code == 403 and "needs the writer role" in refused.text
    assert "not yet" in alice.get("/ui/datasets/secret-a.csv").text  # nothing approved


def test_a_question_in_words_shows_its_answer_plan_and_citations(single):
    assert upload(single, CSV / "sales.csv", "files/sales.csv") == "ready"
    task = "What is the total amount sold in the north region?"
    page = single.get("/ui/ask", params={"task": task, "sources": "files/sales.csv"}).text
    answered = page.split('id="synthesized"', 1)[1]
    assert "580.75" in answered and "[knowledge.query#1]" in answered
    assert "Answer columns: <code>sum_amount</code>" in answered and "SELECT SUM" in html.unescape(answered)
    plan = html.unescape(re.search(r'href="(/ui/ask\?plan=[^"]+)">open its plan', answered).group(1))
    assert "580.75" in single.get(plan).text  # the plan it ran, runnable from its link


def test_several_files_chosen_at_once_are_each_ingested_under_their_names(single):
    states = upload(single, CSV / "sales.csv", "ignored-for-two.csv", CSV / "dates_ambiguous.csv")
    assert states == ["ready", "ready"]
    page = single.get("/ui/sources").text
    assert ">sales.csv<" in page and ">dates_ambiguous.csv<" in page and "ignored-for-two" not in page


def test_a_namespace_named_in_the_url_is_the_one_shown_and_changed(single):
    assert upload(single, CSV / "dates_ambiguous.csv", "only-here.csv") == "ready"
    other = single.get("/ui/sources", params={"namespace": "elsewhere"}).text
    assert 'value="elsewhere"' in other and "only-here.csv" not in other and 'id="no-sources"' in other
    assert 'action="/ui/upload?namespace=elsewhere"' in other


def test_over_https_the_cookies_are_secure(tenants):
    c = TestClient(tenants, base_url="https://127.0.0.1:8443")
    page = c.get("/ui/signin")
    assert "Secure" in page.headers["set-cookie"]
    r = c.post(
        "/ui/signin",
        data={"csrf": csrf_of(page.text), "token": "tok-a-writer"},
        headers={"Origin": "https://127.0.0.1:8443"},
        follow_redirects=False,
    )
    cookies = [v for k, v in r.headers.multi_items() if k == "set-cookie"]
    assert cookies and all("Secure" in v and "HttpOnly" in v for v in cookies)


def test_a_viewer_sees_no_upload_delete_or_retype(tenants):
    victor = signed_in(tenants, "tok-a-viewer")
    page = victor.get("/ui/sources").text
    assert 'id="upload"' not in page and ">Delete<" not in page
    alice = signed_in(tenants, "tok-a-writer")
    assert 'id="upload"' in alice.get("/ui/sources").text


def test_a_column_retyped_so_most_values_fail_needs_the_box_and_then_shows_its_rejects(single):
    assert upload(single, CSV / "dates_ambiguous.csv", "retyped.csv") == "ready"
    page = single.get("/ui/datasets/retyped.csv").text
    form = {
        "csrf": csrf_of(page),
        "source_uri": "retyped.csv",
        "snapshot_id": re.search(r'id="snapshot">([^<]+)<', page).group(1),
        "column": "when",
        "type": "number",
    }
    preview = single.post("/ui/approve", data=form, headers=ORIGIN).text
    assert "8 of 8 values" in preview and "more than half" in preview
    refused = single.post("/ui/approve", data={**form, "apply": "1"}, headers=ORIGIN)
    assert refused.status_code == 422 and "columns.when" in refused.text and 'id="reload"' in refused.text
    applied = single.post(
        "/ui/approve", data={**form, "apply": "1", "allow_rejects": "1"}, headers=ORIGIN, follow_redirects=True
    ).text
    assert 'id="rows-rejected">8<' in applied and 'id="rows">0<' in applied
    rejected = applied.split('id="rejected"', 1)[1].split("</table>", 1)[0]
    assert rejected.count("<tr>") == 9 and "03/04/2024" in rejected  # a header and each row, with its value


def test_a_download_of_a_plan_that_names_a_format_is_the_format_the_link_asks(single):
    assert upload(single, CSV / "sales.csv", "formatted.csv") == "ready"
    plan = {"datasets": [{"source_uri": "formatted.csv"}], "select": [{"column": "region"}], "format": "json"}
    got = single.get("/ui/export", params={"plan": json.dumps(plan), "format": "csv"})
    assert got.status_code == 200 and got.headers["content-type"].startswith("text/csv")
    assert next(csv.reader(io.StringIO(got.text))) == ["region"]


def test_more_files_than_one_form_takes_is_a_page_saying_so(single):
    token = csrf_of(single.get("/ui/sources").text)
    files = [("file", (f"f{i}.csv", b"a\n1\n", "text/csv")) for i in range(ui.UPLOAD_FILES + 1)]
    r = single.post("/ui/upload", data={"csrf": token}, files=files, headers=ORIGIN)
    assert r.status_code == 400 and r.headers["content-type"].startswith("text/html")
    assert 'id="error"' in r.text and "Too many files" in r.text
    assert "f0.csv" not in single.get("/ui/sources").text  # none of them stored


def test_a_file_sent_with_a_path_is_the_source_of_its_last_part_and_its_link_opens_it(single):
    token = csrf_of(single.get("/ui/sources").text)
    files = [("file", ("../../etc/pathed.csv", (CSV / "sales.csv").read_bytes(), "text/csv"))]
    r = single.post("/ui/upload", data={"csrf": token}, files=files, headers=ORIGIN, follow_redirects=False)
    assert r.status_code == 303
    deadline = time.monotonic() + 30
    while "ready" not in (page := single.get(r.headers["location"]).text) and time.monotonic() < deadline:
        time.sleep(0.05)
    link = re.search(r'href="([^"]+)">pathed.csv</a>', page).group(1)
    assert link == "/ui/datasets/pathed.csv" and single.get(link).status_code == 200
    assert "../" not in single.get("/ui/sources").text


def test_an_upload_refused_by_the_page_is_audited_as_the_apis_is(single, caplog):
    files = [("file", ("audited.csv", b"a\n1\n", "text/csv"))]
    with caplog.at_level(logging.INFO, logger="tabular.audit"):
        r = single.post("/ui/upload", data={"csrf": "forged"}, files=files, headers=ORIGIN)
    assert r.status_code == 403
    [line] = [json.loads(rec.getMessage()) for rec in caplog.records if rec.name == "tabular.audit"]
    assert line["op"] == "knowledge.upload" and line["status"] == 403 and line["code"] == "AUTH_INSUFFICIENT"


def test_a_token_of_some_namespaces_is_shown_its_first_and_refused_another(tenants):
    alice = signed_in(tenants, "tok-a-writer")
    token = csrf_of(alice.get("/ui/sources").text)
    files = [("file", ("ledger.csv", (CSV / "sales.csv").read_bytes(), "text/csv"))]
    r = alice.post("/ui/upload?namespace=finance", data={"csrf": token}, files=files, headers=ORIGIN)
    deadline = time.monotonic() + 30
    while 'ingest-state">ready<' not in r.text and time.monotonic() < deadline:
        r = alice.get(r.url)
    assert 'ingest-state">ready<' in r.text
    fay = signed_in(tenants, "tok-a-finance")
    page = fay.get("/ui/sources").text
    assert 'id="ns" name="namespace" value="finance"' in page and ">ledger.csv<" in page
    refused = fay.get("/ui/sources", params={"namespace": "default"})
    assert refused.status_code == 403 and "may not use that namespace" in refused.text


def test_a_namespace_longer_than_the_ops_take_is_refused_not_cut_to_another(single):
    assert upload(single, CSV / "sales.csv", "in-the-short-one.csv") == "ready"
    single.get("/ui/sources", params={"namespace": "n" * 200})  # a namespace of 200 is served
    long = single.get("/ui/sources", params={"namespace": "n" * 201})
    assert long.status_code == 422 and "VALIDATION_FAILED" in long.text and "namespace" in long.text


def test_a_plan_past_the_url_limit_is_the_pages_error_not_the_apis_json(single):
    long = single.get("/ui/ask", params={"plan": json.dumps({"datasets": [{"source_uri": "x" * 20_000}]})})
    assert long.status_code == 413 and long.headers["content-type"].startswith("text/html")
    assert 'id="error"' in long.text and "TOO_LARGE" in long.text and "max_url_bytes" in long.text


def test_a_shared_link_to_a_plan_opens_that_plan_after_signing_in(tenants):
    c = TestClient(tenants, base_url=BASE)
    plan = json.dumps({"datasets": [{"source_uri": "shared.csv"}], "limit": 5})
    r = c.get("/ui/ask", params={"plan": plan}, follow_redirects=False)
    assert r.status_code == 303
    signin = c.get(r.headers["location"]).text
    target = html.unescape(re.search(r'name="next" value="([^"]*)"', signin).group(1))
    form = {"csrf": csrf_of(signin), "token": "tok-a-writer", "next": target}
    landed = c.post("/ui/signin", data=form, headers=ORIGIN, follow_redirects=True)
    assert urlsplit(str(landed.url)).path == "/ui/ask"
    assert parse_qs(urlsplit(str(landed.url)).query)["plan"] == [plan]
    assert "shared.csv" in html.unescape(landed.text)  # the plan is in the editor (refused: no such source)


def test_a_sign_in_form_past_its_fields_is_the_sign_in_page_saying_so(tenants):
    c = TestClient(tenants, base_url=BASE)
    token = csrf_of(c.get("/ui/signin").text)
    r = c.post("/ui/signin", data={"csrf": token, **{f"f{i}": "x" for i in range(50)}}, headers=ORIGIN)
    assert r.status_code == 400 and 'id="token"' in r.text and "Too many fields" in r.text


def test_with_tokens_a_change_from_another_sites_page_is_refused_even_with_the_csrf_token(tenants):
    alice = signed_in(tenants, "tok-a-writer")
    assert upload(alice, CSV / "sales.csv", "guarded.csv") == "ready"
    form = {"source_uri": "guarded.csv", "action": "delete", "csrf": csrf_of(alice.get("/ui/sources").text)}
    for headers in ({"Origin": "http://evil.example"}, {"Referer": "http://evil.example/x"}, {}):
        refused = alice.post("/ui/sources/change", data=form, headers=headers)
        assert refused.status_code == 403 and "not from this site" in refused.text, headers
    assert 'class="source" href="/ui/datasets/guarded.csv"' in alice.get("/ui/sources").text  # still live
    # A browser that sends no Origin on a same-site form sends its Referer.
    done = alice.post("/ui/sources/change", data=form, headers={"Referer": BASE + "/ui/sources"})
    assert done.status_code == 403 and "needs the admin role" in done.text  # past the site check, to the op's


def test_deleting_a_source_that_is_not_there_says_so(single):
    assert upload(single, CSV / "sales.csv", "present.csv") == "ready"
    form = {"source_uri": "presnt.csv", "action": "delete", "csrf": csrf_of(single.get("/ui/sources").text)}
    r = single.post("/ui/sources/change", data=form, headers=ORIGIN)
    assert r.status_code == 404 and 'id="missing"' in r.text and ">present.csv</a>" in r.text  # did you mean


def test_alike_questions_are_answered_together_and_the_rest_can_be_accepted_from_the_preview(single, tmp_path):
    """Issue 56: Amount and VAT ask alike (one entry, one Choose for both); the preview of that
    answer leaves Date open and offers to accept it as shown; applied so, nothing is left."""
    path = tmp_path / "ledger.csv"
    path.write_text(
        "Date,Amount,VAT\n03/04/2024,1.234,2.468\n01/02/2024,2.500,5.000\n05/06/2024,7.125,14.250\n",
        encoding="utf-8",
    )
    assert upload(single, path, "ledger-alike.csv") == "ready"
    page = single.get("/ui/datasets/ledger-alike.csv").text
    assert "3 open questions, shown as 2" in page and 'data-columns="Amount,VAT"' in page
    form = {
        "csrf": csrf_of(page),
        "source_uri": "ledger-alike.csv",
        "dataset_id": "ledger",
        "snapshot_id": re.search(r'id="snapshot">([^<]+)<', page).group(1),
        "column": ["Amount", "VAT"],  # the entry's one Choose sends both
        "type": "number",
        "format": "decimal_mark=,;group_mark=.",
    }
    preview = single.post("/ui/approve", data=form, headers=ORIGIN).text
    answered = re.findall(r'<tr class="answered"><th scope="row">([^<]+)<', preview)
    assert answered == ["Amount", "VAT"] and "Date (date order)" in html.unescape(preview)
    assert 'id="settle-rest"' in preview
    rest = single.post("/ui/approve", data={**form, "settle_rest": "1"}, headers=ORIGIN).text
    assert re.findall(r'<tr class="as-shown"><th scope="row">([^<]+)<', rest) == ["Date"]
    assert 'id="left-open"' not in rest
    applied = single.post(
        "/ui/approve", data={**form, "settle_rest": "1", "apply": "1"}, headers=ORIGIN, follow_redirects=True
    ).text
    assert 'id="no-questions"' in applied and "settled as shown: Date:date_order" in applied
    assert "1234" in applied  # 1.234 read with a decimal comma: a thousands separator
