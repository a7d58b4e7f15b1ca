"""The web page walked in a real browser (issue 37): headless Chromium from the system's packages,
driven by Selenium, against a real `tabular serve`. One browser for the module.

Skipped, saying why, where no Chromium or chromedriver is installed (.ci/run installs both).
With TABULAR_SCREENSHOTS=1 each page is saved to docs/screenshots/ as it is walked."""

from __future__ import annotations

import csv
import json
import os
import shutil
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tabular.display.questions import open_said
from tabular.models import QuestionOut
from tabular.service import ui

from .support import CSV, ROOT, Server, ingest

# TABULAR_CHROMIUM and TABULAR_CHROMEDRIVER name others (a path that is not there: the skip).
CHROMIUM = os.environ.get("TABULAR_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = os.environ.get("TABULAR_CHROMEDRIVER") or shutil.which("chromedriver") or "/usr/bin/chromedriver"
MISSING = [path for path in (CHROMIUM, CHROMEDRIVER) if not Path(path).exists()]
if MISSING:
    pytest.skip(
        f"no browser: {' and '.join(MISSING)} not found (apt-get install chromium chromium-driver)",
        allow_module_level=True,
    )
webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install -e '.[test]')")
from selenium.common.exceptions import (  # noqa: E402
    NoSuchElementException,
    StaleElementReferenceException,
    WebDriverException,
)
from selenium.webdriver.chrome.service import Service as DriverService  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

SHOTS = ROOT / "docs" / "screenshots"
TOKENS = {  # token → entry
    "tok-ui-a": {"name": "ann", "org": "orga", "namespaces": ["*"], "role": "writer"},
    "tok-ui-a-viewer": {"name": "val", "org": "orga", "namespaces": ["*"], "role": "viewer"},
    "tok-ui-b": {"name": "ben", "org": "orgb", "namespaces": ["*"], "role": "writer"},
}


@pytest.fixture(scope="module")
def downloads():
    with tempfile.TemporaryDirectory() as folder:
        yield Path(folder)


def launch(downloads: Path, profile: str):
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1280,1000",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(flag)
    options.add_experimental_option(
        "prefs", {"download.default_directory": str(downloads), "download.prompt_for_download": False}
    )
    driver = webdriver.Chrome(service=DriverService(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    return driver


class InThread(Server):
    """The app with a tokens file under uvicorn in a thread of this process: no second
    interpreter to import on a busy machine (the single-user server is a real `tabular serve`)."""

    def start(self) -> InThread:
        import uvicorn

        from tabular.engine import Engine
        from tabular.service import create_app
        from tabular.settings import Settings

        self.engine = Engine(str(self.home), Settings(tokens=self.env["TABULAR_TOKENS"]))
        config = uvicorn.Config(
            create_app(self.engine, mcp=False), host="127.0.0.1", port=self.port, log_level="warning"
        )
        self.uvicorn = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.uvicorn.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.uvicorn.started and time.monotonic() < deadline:
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        self.uvicorn.should_exit = True
        self.thread.join(20)
        self.engine.close()


@pytest.fixture(scope="module")
def started(tmp_path_factory, downloads):
    """The browser, a single-user `tabular serve` and one with tokens for two orgs, started at
    once (each takes seconds on a busy machine)."""
    from tabular.service.auth import token_hash

    folder = tmp_path_factory.mktemp("ui-browser")
    tokens = folder / "tokens.json"
    tokens.write_text(json.dumps({token_hash(t): e for t, e in TOKENS.items()}))
    profile = tempfile.mkdtemp(prefix="tabular-chromium-")
    single, tenants = Server(folder / "single"), InThread(folder / "tenants", tokens=tokens)
    with ThreadPoolExecutor(3) as pool:
        driver = pool.submit(launch, downloads, profile)
        servers = [pool.submit(s.start) for s in (single, tenants)]
        try:
            try:
                browser = driver.result()
            except WebDriverException as err:  # a chromium that is there but will not start (a snap stub)
                pytest.skip(f"{CHROMIUM} did not start under {CHROMEDRIVER}: {err.msg}")
            yield browser, servers[0].result(), servers[1].result()
        finally:
            for s, start in zip((single, tenants), servers):
                if start.exception() is None:  # waits for it: a skip or failure comes before both are up
                    s.stop()
            if driver.exception() is None:
                driver.result().quit()
            shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope="module")
def browser(started):
    return started[0]


@pytest.fixture(scope="module")
def single(started):
    return started[1]


@pytest.fixture(scope="module")
def tenants(started):
    return started[2]


def shot(driver, name: str) -> None:
    if os.environ.get("TABULAR_SCREENSHOTS") == "1":
        SHOTS.mkdir(parents=True, exist_ok=True)
        height = driver.execute_script("return document.documentElement.scrollHeight")
        driver.set_window_size(1280, max(600, min(height + 40, 2400)))
        driver.save_screenshot(str(SHOTS / f"{name}.png"))
        driver.set_window_size(1280, 1000)


def wait(driver, seconds: float = 20):
    """A wait that looks again when the page reloads under it (the ingest status refreshes itself)."""
    return WebDriverWait(
        driver,
        seconds,
        poll_frequency=0.05,
        ignored_exceptions=(NoSuchElementException, StaleElementReferenceException),
    )


def text_of(driver, css: str) -> str:
    """The element's text as the page shows it, found and read in one step of the page's own: a
    page that reloads between finding an element and reading it (the ingest status refreshes
    itself) had answered Chrome's 'Node with given id does not belong to the document'."""
    text = driver.execute_script("const e = document.querySelector(arguments[0]); return e ? e.innerText : null", css)
    if text is None:
        raise NoSuchElementException(css)
    return text.strip()


def test_upload_answer_the_question_and_apply(browser, single):
    assert f"the web page: {single.url}/ui " in single.log.read_text()  # tabular serve says where
    browser.get(single.url + "/")
    assert browser.current_url.endswith("/ui/sources")
    browser.find_element(By.ID, "file").send_keys(str(CSV / "dates_ambiguous.csv"))
    browser.find_element(By.ID, "source_uri").send_keys("dates.csv")
    browser.find_element(By.ID, "upload").click()
    wait(browser).until(lambda d: text_of(d, ".ingest-state") in ("ready", "partial", "failed"))
    assert text_of(browser, ".ingest-state") == "ready"
    row = browser.find_element(By.CSS_SELECTOR, "#sources tbody tr")
    assert "dates.csv" in row.text and "questions open" in row.text
    shot(browser, "sources")

    browser.find_element(By.LINK_TEXT, "dates.csv").click()
    before = text_of(browser, "#snapshot")
    question = browser.find_element(By.CSS_SELECTOR, ".question")
    assert "day/month/year" in question.text and "0 rows rejected" in question.text
    assert text_of(browser, "#approved") == "not yet"
    shot(browser, "dataset")

    question.find_element(By.CSS_SELECTOR, "button[aria-label='Choose date %m/%d/%Y for when']").click()
    wait(browser).until(lambda d: d.find_elements(By.ID, "changes"))  # the preview, once it has loaded
    changes = browser.find_element(By.ID, "changes")
    assert "when" in changes.text and "%d/%m/%Y" in changes.text and "%m/%d/%Y" in changes.text
    assert browser.find_element(By.CSS_SELECTOR, "#changes .rejects").text.startswith("0")
    shot(browser, "preview")

    browser.find_element(By.ID, "apply").click()
    wait(browser).until(lambda d: d.find_elements(By.ID, "approved-by"))
    assert text_of(browser, "#snapshot") != before
    assert text_of(browser, "#approved-by") == "local"
    assert browser.find_elements(By.ID, "no-questions")
    assert "2024-03-04" in text_of(browser, "#sample")  # 03/04/2024 read month first now
    assert "local" in text_of(browser, "#history")


def test_a_typo_is_fixed_by_its_link_and_the_csv_is_the_apis(browser, single, downloads):
    with single.client() as c:
        assert ingest(c, CSV / "sales.csv", "files/sales.csv")["state"] == "ready"
        plan = {
            "datasets": [{"source_uri": "files/sales.csv"}],
            "group_by": [{"column": "regoin"}],
            "aggregates": [{"fn": "sum", "column": "amount", "as": "total"}],
            "order_by": [{"column": "total", "desc": True}],
        }
        api = c.post("/v1/knowledge.query", json={**plan, "group_by": [{"column": "region"}]}).json()
    browser.get(single.url + "/ui/ask")
    editor = browser.find_element(By.ID, "plan")
    editor.clear()
    editor.send_keys(json.dumps(plan))
    browser.find_element(By.ID, "run").click()
    wait(browser).until(lambda d: d.find_elements(By.ID, "plan-errors"))  # the answer page, once it has loaded
    errors = browser.find_element(By.ID, "plan-errors")
    assert "group_by[0].column" in errors.text and "regoin" in errors.text
    browser.find_element(By.CSS_SELECTOR, "a.fix").click()
    wait(browser).until(lambda d: d.find_elements(By.ID, "result"))
    table = browser.find_element(By.ID, "result")
    assert json.loads(browser.find_element(By.ID, "plan").get_attribute("value"))["group_by"] == [{"column": "region"}]
    shown = [
        [td.text for td in tr.find_elements(By.TAG_NAME, "td")]
        for tr in table.find_elements(By.CSS_SELECTOR, "tbody tr")
    ]
    assert shown == [[str(v) for v in row] for row in api["rows"]]
    if ui.charts is not None:
        chart = browser.find_element(By.ID, "chart")
        assert browser.execute_script("return arguments[0].complete && arguments[0].naturalWidth", chart) > 100
    shot(browser, "ask")

    browser.find_element(By.ID, "download-csv").click()
    deadline = time.monotonic() + 15
    while not (done := list(downloads.glob("*.csv"))) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert done, "no CSV was downloaded"
    rows = list(csv.reader(done[0].open(newline="")))
    assert rows[0] == [col["name"] for col in api["columns"]]
    assert rows[1:] == [[str(v) for v in r] for r in api["rows"]]  # decimals as written, exactly


def sign_in(browser, server: Server, token: str) -> None:
    browser.delete_all_cookies()
    browser.get(server.url + "/ui/sources")
    assert "/ui/signin" in browser.current_url
    browser.find_element(By.ID, "token").send_keys(token)
    browser.find_element(By.ID, "signin").click()
    wait(browser).until(lambda d: d.find_elements(By.ID, "who"))


def test_another_org_sees_nothing_and_a_forged_approval_is_refused(browser, tenants):
    with tenants.client("tok-ui-a") as c:
        assert ingest(c, CSV / "dates_ambiguous.csv", "orga-only.csv")["state"] == "ready"
        got = c.post("/v1/knowledge.dataset_get", json={"source_uri": "orga-only.csv"}).json()
        snapshot = got["datasets"][0]["snapshot_id"]
    browser.delete_all_cookies()
    browser.get(tenants.url + "/ui/sources")
    shot(browser, "signin")
    sign_in(browser, tenants, "tok-ui-b")
    assert text_of(browser, "#who") == "ben"
    assert "orga-only" not in browser.page_source and browser.find_elements(By.ID, "no-sources")
    browser.get(tenants.url + "/ui/datasets/orga-only.csv")
    assert browser.find_elements(By.ID, "missing") and snapshot not in browser.page_source

    sign_in(browser, tenants, "tok-ui-a-viewer")
    browser.get(tenants.url + "/ui/datasets/orga-only.csv")
    assert text_of(browser, "#snapshot") == snapshot
    assert not browser.find_elements(By.CSS_SELECTOR, "button.choose")  # a viewer sees no approve button
    forge = """
        const form = document.createElement('form');
        form.method = 'post'; form.action = '/ui/approve';
        for (const [k, v] of Object.entries(arguments[0])) {
          const input = document.createElement('input'); input.type = 'hidden'; input.name = k; input.value = v;
          form.appendChild(input);
        }
        document.body.appendChild(form); form.submit();
    """
    fields = {"source_uri": "orga-only.csv", "snapshot_id": snapshot, "column": "when", "type": "string", "apply": "1"}
    browser.execute_script(forge, fields)  # no CSRF token
    wait(browser).until(lambda d: d.find_elements(By.ID, "error"))
    assert "CSRF token is missing" in text_of(browser, "#error")
    browser.get(tenants.url + "/ui/datasets/orga-only.csv")
    csrf = browser.find_element(By.CSS_SELECTOR, "input[name=csrf]").get_attribute("value")
    browser.execute_script(forge, {**fields, "csrf": csrf})  # the session's token, but a viewer's
    wait(browser).until(lambda d: d.find_elements(By.ID, "error"))
    assert "knowledge.dataset_approve needs the writer role" in text_of(browser, "#error")
    with tenants.client("tok-ui-a") as c:
        after = c.post("/v1/knowledge.dataset_get", json={"source_uri": "orga-only.csv"}).json()["datasets"][0]
    assert after["snapshot_id"] == snapshot and not after["approved"]


LEDGER = (
    "Date,Amount,VAT\n03/04/2024,1.234,2.468\n01/02/2024,2.500,5.000\n12/11/2023,12.750,25.500\n"
    "05/06/2024,7.125,14.250\n07/08/2024,3.333,6.666\n"
)


def test_an_answer_settles_its_question_and_accept_the_rest_settles_the_others(browser, single, tmp_path):
    """Issue 56: three questions (Date; Amount and VAT alike); answering Date leaves the two open,
    counted as the command line counts them; "accept the rest" settles them and says so."""
    path = tmp_path / "ledger.csv"
    path.write_text(LEDGER, encoding="utf-8")
    browser.get(single.url + "/ui/sources")
    browser.find_element(By.ID, "file").send_keys(str(path))
    browser.find_element(By.ID, "source_uri").send_keys("ledger.csv")
    browser.find_element(By.ID, "upload").click()
    wait(browser).until(lambda d: text_of(d, ".ingest-state") in ("ready", "partial", "failed"))
    browser.find_element(By.LINK_TEXT, "ledger.csv").click()
    with single.client() as c:
        asked = c.post("/v1/knowledge.dataset_get", json={"source_uri": "ledger.csv"}).json()["datasets"][0]
    assert sorted(q["column"] for q in asked["questions"]) == ["Amount", "Date", "VAT"]
    count = text_of(browser, "#question-count")
    assert count.startswith("3 open questions, shown as 2")
    assert (
        count.lower() == open_said([QuestionOut.model_validate(q) for q in asked["questions"]]).lower() + "."
    )  # the CLI's words, counted alike
    assert len(browser.find_elements(By.CSS_SELECTOR, ".question")) == 2  # Amount and VAT as one entry

    browser.find_element(By.CSS_SELECTOR, "button[aria-label='Choose date %m/%d/%Y for Date']").click()
    wait(browser).until(lambda d: d.find_elements(By.ID, "settles"))  # the preview, once it has loaded
    settles = text_of(browser, "#settles")
    assert "Date" in settles and "answered" in settles and "Amount" not in settles
    assert "Amount" in text_of(browser, "#left-open") and "VAT" in text_of(browser, "#left-open")
    shot(browser, "preview-one-answer")
    browser.find_element(By.ID, "apply").click()
    wait(browser).until(lambda d: d.find_elements(By.ID, "applied"))
    assert text_of(browser, "#question-count").startswith("2 open questions")
    assert "Still open: Amount, VAT" in text_of(browser, "#applied")
    assert text_of(browser, "#approved") == "not yet"
    assert [e.get_attribute("data-columns") for e in browser.find_elements(By.CSS_SELECTOR, ".question")] == [
        "Amount,VAT"
    ]

    browser.find_element(By.ID, "approve-held").click()  # "Accept the rest as shown": its preview first
    wait(browser).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#settles tr.as-shown"))
    rows = browser.find_elements(By.CSS_SELECTOR, "#settles tr.as-shown")
    assert [r.find_element(By.TAG_NAME, "th").text for r in rows] == ["Amount", "VAT"]
    assert all("decimal_mark=." in r.text and "accepted as shown" in r.text for r in rows)
    shot(browser, "preview-rest")
    browser.find_element(By.ID, "apply").click()
    wait(browser).until(lambda d: d.find_elements(By.ID, "settled-as-shown"))
    assert "Amount:decimal_mark, VAT:decimal_mark" in text_of(browser, "#settled-as-shown")
    assert browser.find_elements(By.ID, "no-questions") and text_of(browser, "#approved-by") == "local"
    with single.client() as c:
        after = c.post("/v1/knowledge.dataset_get", json={"source_uri": "ledger.csv"}).json()["datasets"][0]
    assert after["approved"] and after["questions"] == []
    assert {c["name"]: c["format"] for c in after["columns"]}["Date"] == "%m/%d/%Y"
