"""Fault injection: the server's rules with their counts, and the latest faults injected into this
account and region (from the /aws/onceflow/faults log group). Read-only, as every console page."""

from __future__ import annotations

import json
from typing import Any

from onceflow.console.app import Response, View
from onceflow.console.aws import NotFound

LOG_GROUP = "/aws/onceflow/faults"


def rules(v: View) -> Response:
    faults = v.stack.services.get("faults")
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
