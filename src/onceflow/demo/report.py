"""Turn execution histories into the demo's short, readable report."""

from __future__ import annotations

import json
from typing import Any

from onceflow.demo.labs import ExecutionRecord


def path_through_states(events: list[dict[str, Any]]) -> str:
    """`CheckQuantity -> StoreOrder [TransientOrderError, ok] -> ReadSummary [ok]`."""
    steps: list[str] = []
    attempts: list[str] = []
    current = ""
    for event in events:
        kind = event["type"]
        if kind.endswith("StateEntered"):
            current = event["stateEnteredEventDetails"]["name"]
            attempts = []
        elif kind == "TaskFailed":
            attempts.append(event["taskFailedEventDetails"].get("error", "failed"))
        elif kind == "TaskSucceeded":
            attempts.append("ok")
        elif kind.endswith("StateExited") or kind == "FailStateEntered":
            pass
        if kind.endswith("StateExited") or kind in ("ExecutionFailed", "ExecutionSucceeded"):
            if current:
                steps.append(f"{current} [{', '.join(attempts)}]" if attempts else current)
                current = ""
    return " -> ".join(steps)


def _store_outcomes(record: ExecutionRecord) -> list[str]:
    """What each StoreOrder attempt did, from the worker's results in the history."""
    outcomes = []
    in_store = False
    for event in record.events:
        if event["type"] == "TaskStateEntered":
            in_store = event["stateEnteredEventDetails"]["name"] == "StoreOrder"
        elif in_store and event["type"] == "TaskFailed":
            outcomes.append(f"failed ({event['taskFailedEventDetails'].get('error')})")
        elif in_store and event["type"] == "TaskSucceeded":
            payload = json.loads(event["taskSucceededEventDetails"]["output"]).get("Payload", {})
            if "duplicate" in payload:
                outcomes.append("found its duplicate" if payload["duplicate"] else "wrote the order")
            else:
                outcomes.append("wrote the order")
    return outcomes


def render(records: list[ExecutionRecord], orders: dict[str, dict[str, Any]], log_lines: list[str],
           denied_cause: str | None) -> str:
    lines = ["", "onceflow demo: the seed labs on onceflow", "=" * 41]
    lab = ""
    for record in records:
        if record.lab != lab:
            lab = record.lab
            lines += ["", lab]
        outcome = json.dumps(record.output, sort_keys=True) if record.status == "SUCCEEDED" else record.error
        lines.append(f"  {record.name:<18} {record.status:<9} {outcome}")
        lines.append(f"  {'':<18} path: {path_through_states(record.events)}")
        stores = _store_outcomes(record)
        if stores:
            lines.append(f"  {'':<18} store attempts: {'; '.join(stores)}")
    lines += ["", "Worker invocations versus business writes, per order:"]
    for order_id, info in orders.items():
        lines.append(f"  {order_id:<16} {info['invocations']} invocation(s), {info['writes']} order item(s), "
                     f"{info['duplicates']} duplicate decision(s)")
    starts = sum(line.startswith("START RequestId") for line in log_lines)
    lines.append(f"  worker log: {starts} START lines in /aws/lambda/<prefix>-worker")
    if denied_cause:
        lines += ["", "The denied call (the workflow role without lambda:InvokeFunction):", f"  {denied_cause}"]
    return "\n".join(lines)
