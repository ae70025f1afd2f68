"""The console's proof pages: proofs run with onceflow.prove(...) on a server's data folder show up
in that server's console, each fault point of the graph coloured by its verdict, every run's plan,
outcome, ledger and diff, everything escaped."""

from __future__ import annotations

import html
import json
import re
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "service"))
from console_seed import XSS, Page, fetch
from prove_setup import HERE, orders_lab

from onceflow.prove import prove
from serverproc import ServerProcess, client_factory

ORDER = {"id": "pc-" + XSS, "quantity": 2}


@pytest.fixture(scope="module")
def data_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    proc = ServerProcess(tmp_path_factory.mktemp("proofs") / "data").start()
    yield proc
    proc.stop()


@pytest.fixture(scope="module")
def proved(data_server: ServerProcess) -> dict[str, Any]:
    """A counter worker behind a retried StoreOrder (a lost answer adds twice: duplicated) and the
    protected worker on the seed workflow (no Retry: a lost answer fails the execution, the order stays)."""
    template = json.loads((HERE / "workflow-template.json").read_text(encoding="utf-8"))
    template["States"]["StoreOrder"]["Retry"] = [{"ErrorEquals": ["States.ALL"], "IntervalSeconds": 1,
                                                  "MaxAttempts": 2}]
    counter = orders_lab(data_server.url, "pc-count", "counter", template)
    safe = orders_lab(data_server.url, "pc-safe", "protected")
    unsafe = prove(counter["state_machine"], ORDER, data=data_server.data_dir,
                   ignore_tables=[counter["attempts_table"]], kinds=["lost-response", "re-execution"])
    ok = prove(safe["state_machine"], ORDER, data=data_server.data_dir, ignore_tables=[safe["attempts_table"]],
               kinds=["lost-response", "fail-before"])
    return {"counter": counter, "safe": safe, "unsafe": unsafe, "ok": ok}


def get(server: ServerProcess, path: str) -> Page:
    return fetch(server.url + path)


def node_class(text: str, state: str) -> str:
    found = re.search(rf'<g class="(node[^"]*)" data-state="{re.escape(state)}">', text)
    assert found, f"no graph node for {state}"
    return found.group(1)


def test_each_proof_is_kept_in_the_data_folder(data_server: ServerProcess, proved: dict[str, Any]) -> None:
    for report in (proved["unsafe"], proved["ok"]):
        assert report.id and report.saved == str(data_server.data_dir / "proofs" / f"{report.id}.json")
        kept = json.loads(Path(report.saved).read_text())
        assert kept["id"] == report.id and kept["safe"] == report.safe
        assert json.loads(kept["definition"])["StartAt"] == "CheckQuantity"


def test_the_list_shows_every_proof_with_its_verdict(data_server: ServerProcess, proved: dict[str, Any]) -> None:
    got = get(data_server, "/proofs")
    assert got.status == 200
    unsafe, ok = proved["unsafe"], proved["ok"]
    for report, badge in ((unsafe, "UNSAFE"), (ok, "SAFE")):
        row = re.search(rf'<a href="/proofs/{report.id}">{report.id}</a>.*?</tr>', got.text, re.S)
        assert row and f">{badge}</span>" in row.group(0), badge
    assert XSS not in got.text and html.escape(XSS, quote=False) in got.text.replace("&#34;", '"')
    # One state machine's proofs: the link of its own page.
    arn = proved["counter"]["state_machine_arn"]
    machine = get(data_server, f"/states/{proved['counter']['state_machine']}")
    assert f'href="/proofs?stateMachine={quote(arn, safe="")}"' in machine.text
    only = get(data_server, f"/proofs?stateMachine={quote(arn, safe='')}").text
    assert unsafe.id in only and ok.id not in only


def test_the_proof_page_colours_each_fault_point_by_its_verdict(data_server: ServerProcess,
                                                                proved: dict[str, Any]) -> None:
    unsafe, ok = proved["unsafe"], proved["ok"]
    got = get(data_server, f"/proofs/{unsafe.id}")
    assert got.status == 200, got.text[:400]
    # StoreOrder's lost answer is retried and adds again; ReadSummary (no Retry) writes nothing, but its
    # lost answer fails the execution; CheckQuantity is a Choice: no fault point.
    assert node_class(got.text, "StoreOrder") == "node v-duplicated"
    assert node_class(got.text, "ReadSummary") == "node v-unrecovered"
    assert node_class(got.text, "CheckQuantity") == "node v-none"
    assert "StoreOrder (Task): 1 fault runs: 1 duplicated" in got.text
    # Each run: its plan (the rule list), its executions, its ledger and its diff.
    assert '&#34;rules&#34;' in got.text and "onceflow prove: lost-response at StoreOrder#1" in got.text
    assert "Diff against the baseline" in got.text and "&#34;N&#34;: &#34;4&#34;" in got.text
    lost = next(r for r in unsafe.runs if r.point == "StoreOrder#1")
    request_ids = {e["lambdaRequestId"] for e in lost.ledger}
    assert request_ids and all(rid in got.text for rid in request_ids)
    # Escaped everywhere: the order id carries a script tag.
    assert XSS not in got.text and "&lt;script&gt;alert(1)&lt;/script&gt;" in got.text
    # The seed workflow has no Retry for a lost answer: the order stays, the execution fails.
    safe = get(data_server, f"/proofs/{ok.id}").text
    assert node_class(safe, "StoreOrder") == "node v-unrecovered"
    assert ">SAFE</span>" in safe


def test_a_missing_or_malformed_proof_id_is_404(data_server: ServerProcess, proved: dict[str, Any]) -> None:
    for path in ("/proofs/20260101T000000Z-00000000", "/proofs/nope", "/proofs/..%2F..%2Fonceflow.db",
                 f"/proofs/{proved['ok'].id}?account=111111111111"):
        assert get(data_server, path).status == 404, path


def test_the_execution_page_links_its_state_machines_proofs(data_server: ServerProcess, proved: dict[str, Any]) -> None:
    lab = proved["safe"]
    sfn = client_factory(data_server.url)("stepfunctions")
    arn = sfn.start_execution(stateMachineArn=lab["state_machine_arn"], name="pc-linked",
                              input=json.dumps({"id": "pc-linked", "quantity": 1}))["executionArn"]
    while sfn.describe_execution(executionArn=arn)["status"] == "RUNNING":
        time.sleep(0.05)
    got = get(data_server, f"/states/{lab['state_machine']}/executions/pc-linked")
    assert f'href="/proofs?stateMachine={quote(lab["state_machine_arn"], safe="")}"' in got.text


def test_an_in_memory_server_has_no_proofs(page: Callable[[str], Page]) -> None:
    got = page("/proofs")
    assert got.status == 404 and "--in-memory" in got.text
