"""Fault injection: the server's rules with their counts, and the latest faults injected into this
account and region (from the /aws/onceflow/faults log group). Read-only, as every console page."""

from __future__ import annotations

import json
import time
from typing import Any

from onceflow.console.app import Response, View
from onceflow.console.aws import NotFound
from onceflow.console.render import epoch_ms

LOG_GROUP = "/aws/onceflow/faults"


def rules(v: View) -> Response:
    faults = v.stack.ports.faults.get()
    found = [_row(rule) for rule in faults.views()] if faults is not None else []
    return v.page("faults.html", title="Fault injection", rules=found, events=_recent(v))


def _row(rule: dict[str, Any]) -> dict[str, Any]:
    error = rule.get("error") or {}
    target = " ".join(str(rule[k]) for k in ("service", "operation") if rule.get(k)) or "every call"
    fault = rule.get("kind") or error.get("code") or ("latency" if rule.get("latency_ms") else "ServiceUnavailable")
    filters = [f"{k}={rule[k]}" for k in ("region", "account", "resource", "caller") if rule.get(k)]
    which = [f"{k} {rule[k]}" for k in ("skip", "times", "probability", "seed") if rule.get(k) is not None]
    extra = [f"latency {rule['latency_ms']} ms"] if rule.get("latency_ms") else []
    extra += ["timeout"] if rule.get("timeout") else []
    return {"id": rule["id"], "target": target, "when": rule.get("when", "after" if rule.get("kind") else "before"),
            "fault": fault, "filters": filters, "which": which + extra, "matched": rule["matched"],
            "fired": rule["fired"], "description": rule.get("description", "")}


def _recent(v: View, limit: int = 50) -> list[dict[str, Any]]:
    try:
        out = v.optional(lambda: v.aws.call("logs", "FilterLogEvents", {"logGroupName": LOG_GROUP, "limit": 1000}), {})
    except NotFound:
        return []
    events = []
    for event in (out or {}).get("events", [])[-limit:]:
        try:
            detail = json.loads(event["message"])
        except (ValueError, KeyError, TypeError):
            continue
        if isinstance(detail, dict):
            events.append({"timestamp": event.get("timestamp"), **detail})
    return events[::-1]


def injected(v: View, run: Any, start: Any, stop: Any) -> dict[int, dict[str, Any]]:
    """The task attempts (by TaskScheduled event id) whose failure a fault rule injected: a fault
    logged for the same error, in the attempt's time, on its function when it invokes one."""
    failed = [a for a in run.attempts if a.error and a.started is not None]
    if not failed or v.stack.ports.faults.get() is None:
        return {}
    begin, end = (epoch_ms(start) or 0) - 2000, (epoch_ms(stop) or int(time.time() * 1000)) + 10_000
    params = {"logGroupName": LOG_GROUP, "startTime": max(0, begin), "endTime": end}
    try:
        events = v.optional(lambda: v.aws.all("logs", "FilterLogEvents", params, "events", limit=10_000), []) or []
    except NotFound:
        return {}
    faults = []
    for event in events:
        try:
            detail = json.loads(event["message"])
        except (ValueError, KeyError, TypeError):
            continue
        if isinstance(detail, dict):
            faults.append((int(event.get("timestamp") or 0), detail))
    marks: dict[int, dict[str, Any]] = {}
    claimed: set[int] = set()
    for attempt in failed:
        lo, hi = (epoch_ms(attempt.started) or 0) - 1000, (epoch_ms(attempt.ended) or end) + 1000
        for n, (ts, detail) in enumerate(faults):
            if n in claimed or not lo <= ts <= hi or not _same_error(attempt.error, str(detail.get("fault"))):
                continue
            if attempt.function and attempt.function not in str(detail.get("resource") or ""):
                continue
            marks[attempt.event_id] = detail
            claimed.add(n)
            break
    return marks


def _same_error(error: str, fault: str) -> bool:
    """Step Functions names a service's error `Lambda.<code>`, `DynamoDB.<code>`; a crash fails the
    task with the function's Runtime.ExitError."""
    return error == fault or error.endswith("." + fault) or (fault == "crash" and error == "Runtime.ExitError")
