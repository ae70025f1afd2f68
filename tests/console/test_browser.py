"""The console in a real headless Chromium (Debian's `chromium`, driven by Playwright; no browser
is downloaded): the seed workflow's pages, a live update, hostile values that must not run, and
screenshots of the main pages saved under artifacts/console/."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from console_seed import TRUST, Lab

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "console"

if not CHROMIUM.exists():
    pytest.skip("browser tests need Debian's chromium at /usr/bin/chromium (apt-get install -y chromium)",
                allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="browser tests need the playwright package")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield chromium
        chromium.close()


class Tab:
    """A page that records console errors, CSP violations and any dialog (an alert means XSS ran)."""

    def __init__(self, browser: Any, base: str) -> None:
        self.context = browser.new_context(viewport={"width": 1400, "height": 900})
        self.page = self.context.new_page()
        self.base = base
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("dialog", self._dialog)

    def _dialog(self, dialog: Any) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def open(self, path: str) -> Any:
        response = self.page.goto(self.base + path)
        assert response is not None and response.status == 200, path
        return self.page

    def shot(self, name: str) -> Path:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        return path

    def close(self) -> None:
        assert self.errors == [], self.errors
        assert self.dialogs == [], self.dialogs
        self.context.close()


@pytest.fixture
def tab(browser: Any, endpoint: str) -> Iterator[Tab]:
    opened = Tab(browser, endpoint)
    yield opened
    opened.close()


def test_execution_graph_shows_the_retried_task_and_the_history(tab: Tab, seeded: dict[str, Lab]) -> None:
    lab = seeded["idempotency"]
    page = tab.open(f"/states/{lab.machine}/executions/after-write-order")
    store = page.locator('svg.graph g.node[data-state="StoreOrder"]')
    assert "st-succeeded" in (store.get_attribute("class") or "")
    assert store.locator("g.attempts text").text_content() == "×2"
    assert "st-not-reached" in (page.locator('g.node[data-state="Rejected"]').get_attribute("class") or "")
    failed = page.locator("tr.ev-TaskFailed")
    assert failed.count() == 1 and "TransientOrderError" in failed.inner_text()
    assert page.locator("tr.ev-TaskSucceeded").count() == 2
    started = page.locator("tr.ev-ExecutionStarted details")
    started.locator("summary").click()  # console.js indents the compact JSON once it is opened
    indented = started.locator("pre.json:not([data-json])").first  # the toggle event comes a task later
    indented.wait_for()
    assert '{\n  "id": "protected-order",' in indented.inner_text()
    first_attempt = page.locator("table.attempts details").first
    first_attempt.locator("summary").click()
    assert "Result delivery failed after the write" in first_attempt.locator("pre.log").inner_text()
    tab.shot("execution-after-write")


def test_execution_graph_shows_the_caught_failure(tab: Tab, seeded: dict[str, Lab]) -> None:
    lab = seeded["retry"]
    page = tab.open(f"/states/{lab.machine}/executions/permanent-order")
    assert "st-caught" in (page.locator('g.node[data-state="StoreOrder"]').get_attribute("class") or "")
    assert "st-failed" in (page.locator('g.node[data-state="Rejected"]').get_attribute("class") or "")
    assert page.locator("path.edge-catch.taken").count() == 1
    assert "InvalidOrder" in page.locator("tr.ev-TaskFailed").inner_text()
    tab.shot("execution-permanent-caught")
    page = tab.open(f"/states/{lab.machine}/executions/flaky-order")
    assert page.locator('g.node[data-state="StoreOrder"] g.attempts text').text_content() == "×2"
    tab.shot("execution-flaky")


def test_orders_table_logs_and_other_pages(tab: Tab, seeded: dict[str, Lab]) -> None:
    lab = seeded["idempotency"]
    page = tab.open(f"/dynamodb/{lab.prefix}-orders")
    rows = page.locator("table.items tbody tr")
    assert rows.count() == 2
    assert {rows.nth(i).locator("td").nth(1).inner_text() for i in range(2)} == {"protected-order", "different-order"}
    tab.shot("dynamodb-orders")
    page = tab.open(f"/lambda/{lab.prefix}-worker")
    assert page.locator("table.invocations tbody tr").count() == 7
    tab.shot("lambda-worker")
    page = tab.open(f"/logs/group?name=/aws/lambda/{lab.prefix}-worker")
    starts = page.locator("table.log-events pre.log", has_text="START RequestId")
    assert starts.count() == 7
    page.fill("input[name=filter]", "RESULT")
    page.click("form.filter button")
    page.wait_for_url("**filter=RESULT**")
    assert page.locator("table.log-events pre.log").count() == 6
    tab.shot("logs-worker-filtered")
    page = tab.open(f"/states/{lab.machine}/executions/after-write-order/idempotency")
    # The effect ledger's view: attempt 1 wrote, attempt 2's attempt counter repeated its write.
    assert [page.locator("span.decision").nth(i).inner_text() for i in range(2)] == ["wrote", "repeated a write"]
    tab.shot("idempotency-after-write")
    for name, path in (("overview", "/"), ("state-machine", f"/states/{lab.machine}"),
                       ("role", f"/iam/roles/{lab.role}")):
        tab.open(path)
        tab.shot(name)


def test_a_running_execution_updates_live(tab: Tab, aws: Callable[..., Any]) -> None:
    iam, sfn = aws("iam"), aws("stepfunctions")
    tag = uuid.uuid4().hex[:8]
    role = iam.create_role(RoleName=f"live-{tag}", AssumeRolePolicyDocument=json.dumps(TRUST))["Role"]["Arn"]
    definition = {"StartAt": "Hold", "States": {"Hold": {"Type": "Wait", "Seconds": 8, "Next": "Done"},
                                                 "Done": {"Type": "Pass", "End": True}}}
    arn = sfn.create_state_machine(name=f"live-{tag}", roleArn=role, definition=json.dumps(definition))
    execution = sfn.start_execution(stateMachineArn=arn["stateMachineArn"], name="slow")["executionArn"]
    # StartExecution answers before the engine enters the first state; the page is opened once it has.
    deadline = time.monotonic() + 30
    while not any(e["type"] == "WaitStateEntered"
                  for e in sfn.get_execution_history(executionArn=execution)["events"]):
        assert time.monotonic() < deadline, "the execution never entered Hold"
        time.sleep(0.02)
    page = tab.open(f"/states/live-{tag}/executions/slow")
    assert page.locator(".badge.s-running").count() == 1
    assert "st-running" in (page.locator('g.node[data-state="Hold"]').get_attribute("class") or "")
    page.evaluate("window.__notReloaded = true")
    page.wait_for_selector(".badge.s-succeeded", timeout=60_000)
    assert page.evaluate("window.__notReloaded") is True  # updated in place, not by a reload
    assert "st-succeeded" in (page.locator('g.node[data-state="Done"]').get_attribute("class") or "")
    assert page.locator("tr.ev-ExecutionSucceeded").count() == 1


def test_hostile_values_do_not_run_in_the_browser(tab: Tab, hostile: dict[str, Any]) -> None:
    page = tab.open(f"/dynamodb/{hostile['table']}")
    page.locator("table.items a", has_text="JSON").first.click()
    page.wait_for_load_state()
    assert "<script>alert(1)</script>" in page.locator("pre.json").inner_text()
    for path in (f"/states/{hostile['machine']}", f"/states/{hostile['machine']}/executions/hostile-input",
                 f"/logs/group?name={hostile['group']}", f"/iam/roles/{hostile['role']}"):
        page = tab.open(path)
        assert page.locator("main").inner_text().count("<script>alert(1)</script>") >= 1, path
        if "/executions/" in path:
            tab.shot("hostile-execution")
    # close() asserts that no dialog opened and no script error happened
