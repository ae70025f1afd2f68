"""The effect ledger of an ordinary `onceflow serve`: a workflow's writes attributed to the task
attempt that made them (concurrent Map iterations and Parallel branches each to their own), shown
on the execution's idempotency page with repeated writes flagged, and nothing recorded for writes
no workflow made."""

from __future__ import annotations

import html
import json
import re
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[1] / "console"))
from console_seed import fetch
from faults_client import set_rules
from prove_setup import concurrent_template, orders_lab


def rows(text: str) -> list[tuple[str, str, str, list[str]]]:
    """(decision, state, attempt, the written items' ids) per row of the idempotency table."""
    body = text.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    out = []
    for found in re.finditer(r'<tr class="d-([a-z-]+)">\s*<td>([^<]*)</td><td>(\d+)</td>(.*?)</tr>', body, re.S):
        keys = [json.loads(html.unescape(k))["id"]["S"] for k in re.findall(r'<span class="mono">(\{[^<]*\})</span>',
                                                                             found.group(4))]
        out.append((found.group(1), found.group(2), found.group(3), keys))
    return out


def run(aws: Callable[..., Any], arn: str, name: str, payload: Any) -> None:
    sfn = aws("stepfunctions")
    execution = sfn.start_execution(stateMachineArn=arn, name=name, input=json.dumps(payload))["executionArn"]
    deadline = time.monotonic() + 120
    while sfn.describe_execution(executionArn=execution)["status"] == "RUNNING" and time.monotonic() < deadline:
        time.sleep(0.05)
    assert sfn.describe_execution(executionArn=execution)["status"] == "SUCCEEDED"


def test_concurrent_writes_are_attributed_to_their_own_iteration_and_branch(aws: Callable[..., Any],
                                                                             endpoint: str) -> None:
    prefix = f"lg{uuid.uuid4().hex[:6]}"
    lab = orders_lab(endpoint, prefix, "counter", concurrent_template())
    orders = {"orders": [{"id": "c-1", "quantity": 1}, {"id": "c-2", "quantity": 2}]}
    # The first Store invocation's answer is lost after its write: the Retry writes again.
    set_rules(endpoint, [{"service": "lambda", "operation": "Invoke", "resource": f"{prefix}-worker",
                          "when": "after", "times": 1, "error": {"code": "ServiceException"}}])
    run(aws, lab["state_machine_arn"], "first", orders)
    page = fetch(f"{endpoint}/states/{lab['state_machine']}/executions/first/idempotency")
    assert page.status == 200, page.text[:300]
    got = rows(page.text)
    stores = sorted((attempt, keys[0], decision) for decision, state, attempt, keys in got if state == "Store")
    # Each iteration's writes land on its own attempts: the faulted one wrote twice, the retry flagged.
    faulted = next(k for a, k, _ in stores if a == "2")
    assert stores == sorted([("1", "c-1", "wrote"), ("1", "c-2", "wrote"), ("2", faulted, "repeated")])
    assert {(state, tuple(keys)) for _, state, _, keys in got if state != "Store"} == {("Audit", ("audit",)),
                                                                                        ("Bill", ("bill",))}
    assert "attempt 1 of Store wrote this item first" in page.text
    assert "<b>5</b> business writes" in page.text and "<b>1</b> repeated writes" in page.text
    # A request id per invocation, from the ledger.
    assert len(set(re.findall(r'<td class="mono">([0-9a-f-]{36})', page.text))) == 5

    # The same order again under a new name: each write names the execution that wrote the item first.
    run(aws, lab["state_machine_arn"], "again", orders)
    again = fetch(f"{endpoint}/states/{lab['state_machine']}/executions/again/idempotency").text
    assert again.count('<span class="also">') == 4 and ">first</a>" in again
    first = f"{endpoint}/states/{lab['state_machine']}/executions/first/idempotency"
    assert fetch(first).text.count('<span class="also">') == 5 and ">again</a>" in fetch(first).text
    # A write no workflow made (a script's PutItem, as root) is not in the ledger.
    aws("dynamodb").put_item(TableName=lab["orders_table"], Item={"id": {"S": "audit"}, "total": {"N": "0"}})
    assert fetch(first).text.count('<span class="also">') == 5
