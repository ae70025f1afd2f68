"""Start onceflow, then (in a thread) provision the example and run both labs, print the report,
and keep serving until Ctrl-C."""

from __future__ import annotations

import json
import threading
import time
import traceback
from typing import Any

import boto3

from onceflow.config import Settings
from onceflow.demo.labs import ExecutionRecord, LabRunner
from onceflow.demo.report import render
from onceflow.examples.orders.provision import provision
from onceflow.server import Server
from onceflow.stack import Stack

IDEMPOTENCY = [("after-write-order", {"id": "protected-order", "quantity": 4, "mode": "after-write"}),
               ("repeated-order", {"id": "protected-order", "quantity": 4, "mode": "after-write"}),
               ("different-order", {"id": "different-order", "quantity": 1, "mode": "normal"})]
RETRY = [("retry-order", {"id": "retry-order", "quantity": 2, "mode": "flaky"}),
         ("permanent-order", {"id": "permanent-order", "quantity": 2, "mode": "permanent"})]
DENIED = ("denied-order", {"id": "denied-order", "quantity": 2, "mode": "flaky"})


def _clients(settings: Settings) -> dict[str, Any]:
    session = boto3.session.Session(aws_access_key_id="test", aws_secret_access_key="test",
                                    region_name=settings.default_region)
    return {name: session.client(name, endpoint_url=settings.endpoint_url)
            for name in ("sts", "iam", "dynamodb", "lambda", "stepfunctions", "logs")}


def run_labs(settings: Settings) -> str:
    clients = _clients(settings)
    session = boto3.session.Session(aws_access_key_id="test", aws_secret_access_key="test")
    account = provision("labex-ev05", endpoint_url=settings.endpoint_url, session=session,
                        region=settings.default_region)["account"]
    provision("labex-ev04", endpoint_url=settings.endpoint_url, session=session, region=settings.default_region)
    records: list[ExecutionRecord] = []
    orders: dict[str, dict[str, Any]] = {}
    notes = []

    # Execution names stay unique per state machine for 90 days on AWS, even across a delete and
    # re-create: a repeated demo run gives its executions a suffix.
    suffix = ""
    lab = LabRunner(clients, "labex-ev05", account, settings.default_region)
    if lab.clean_earlier_run(["protected-order", "different-order"]):
        notes.append("labex-ev05: removed the workflow an earlier demo run left")
        suffix = time.strftime("-%H%M%S")
    lab.deploy_worker("protected")
    lab.create_workflow()
    for name, order in IDEMPOTENCY:
        records.append(lab.execute("Idempotency lab (labex-ev05): retries never repeat a business write",
                                   name + suffix, order))
    logs = lab.worker_log_lines()
    _count(orders, records, lab, logs, ["protected-order", "different-order"])

    retry = LabRunner(clients, "labex-ev04", account, settings.default_region)
    if retry.clean_earlier_run(["retry-order", "permanent-order", "denied-order"]):
        notes.append("labex-ev04: removed the workflow an earlier demo run left")
        suffix = suffix or time.strftime("-%H%M%S")
    retry.create_workflow()
    title = "Retry lab (labex-ev04): selective retry, a permanent failure, a denied invoke"
    for name, order in RETRY:
        records.append(retry.execute(title, name + suffix, order))
    retry.revoke_invoke()
    denied = retry.execute(title, DENIED[0] + suffix, DENIED[1])
    records.append(denied)
    retry.grant_invoke()
    retry_logs = retry.worker_log_lines()
    _count(orders, records, retry, retry_logs, ["retry-order", "permanent-order", "denied-order"])
    logs += retry_logs
    denied_cause = next((e["taskFailedEventDetails"].get("cause") for e in denied.events
                         if e["type"] == "TaskFailed"), None)
    report = render(records, orders, logs, denied_cause)
    return "\n".join([*notes, report])


def _count(orders: dict[str, dict[str, Any]], records: list[ExecutionRecord], lab: LabRunner,
           log_lines: list[str], order_ids: list[str]) -> None:
    """Invocations are what the worker logged (a denied call never reaches it); writes are items."""
    invoked = [json.loads(line[len("WORKFLOW "):]).get("id") for line in log_lines if line.startswith("WORKFLOW ")]
    for order_id in order_ids:
        mine = [r for r in records if r.order_id == order_id]
        invocations = invoked.count(order_id)
        duplicates = sum('"duplicate":true' in (e.get("taskSucceededEventDetails") or {}).get("output", "")
                         .replace(" ", "") for r in mine for e in r.events)
        orders[order_id] = {"invocations": invocations, "writes": int(lab.item("orders", order_id) is not None),
                            "duplicates": duplicates}


def run_demo(settings: Settings) -> int:
    def on_ready(ready: Settings, stack: Stack) -> None:
        where = "in memory" if ready.in_memory else str(ready.data_dir)
        print(f"onceflow ready at {ready.endpoint_url} (data: {where})", flush=True)
        threading.Thread(target=_drive, args=(ready,), daemon=True, name="onceflow-demo").start()

    Server(settings, on_ready=on_ready).run()
    return 0


def _drive(settings: Settings) -> None:
    try:
        print(run_labs(settings), flush=True)
    except Exception:
        print("onceflow demo: the labs did not complete:", flush=True)
        traceback.print_exc()
    print(f"\nConsole:  {settings.endpoint_url}/", flush=True)
    print(f"Use it:   export AWS_ENDPOINT_URL={settings.endpoint_url} AWS_ACCESS_KEY_ID=test "
          f"AWS_SECRET_ACCESS_KEY=test AWS_DEFAULT_REGION={settings.default_region} "
          "AWS_DISABLE_HOST_PREFIX_INJECTION=true", flush=True)
    print("Serving until Ctrl-C.", flush=True)
