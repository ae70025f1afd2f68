"""EventBridge: the rules of every bus with their targets, and one rule with each target's last
delivery (onceflow's own record: AWS shows it in CloudWatch metrics, which onceflow lacks)."""

from __future__ import annotations

from typing import Any

from onceflow.console.app import HttpError, Response, View


def _overview(v: View) -> list[dict[str, Any]]:
    service = v.stack.ports.events.get()
    if service is None:
        raise HttpError(501, "Not available", "EventBridge is not served by this onceflow.")
    return service.rules.overview((v.account, v.region))


def rules(v: View) -> Response:
    found = _overview(v)
    return v.page("events_rules.html", title="EventBridge rules", rules=found,
                  pending=v.stack.ports.events().pending())


def rule(v: View) -> Response:
    bus = v.arg("bus", "default")
    found = [r for r in _overview(v) if r["Name"] == v.match["name"] and r["EventBusName"] == bus]
    if not found:
        raise HttpError(404, "Not found", f"Rule {v.match['name']} does not exist on EventBus {bus}.")
    return v.page("events_rule.html", title=found[0]["Name"], rule=found[0])
