"""Whether an event bus's resource policy lets another account put events on it (cross-account
PutEvents and bus-to-bus targets). onceflow's IAM evaluator reads identity and trust policies, not
resource policies with both Principal and Resource, so the small subset buses use is read here:
Allow/Deny statements whose Action matches events:PutEvents and whose Principal is "*", an
account id or an account's root ARN; a statement with a Condition is not applied (UNCONFIRMED
beyond that subset: organisation conditions are not evaluated)."""

from __future__ import annotations

import json
from typing import Any

ACTION = "events:PutEvents"


def _listed(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _action_matches(actions: Any) -> bool:
    return any(a in ("*", "events:*", ACTION) or (isinstance(a, str) and a.lower() == ACTION.lower())
               for a in _listed(actions))


def _principal_matches(principal: Any, account: str) -> bool:
    if principal == "*":
        return True
    if not isinstance(principal, dict):
        return False
    return any(p in ("*", account, f"arn:aws:iam::{account}:root") for p in _listed(principal.get("AWS", [])))


def allows(policy_text: str | None, account: str, bus_arn: str) -> bool:
    """True when `account` may put events on the bus whose policy is `policy_text`."""
    if not policy_text:
        return False
    try:
        policy = json.loads(policy_text)
    except ValueError:
        return False
    allowed = False
    for stmt in _listed(policy.get("Statement", [])):
        if not isinstance(stmt, dict) or "Condition" in stmt:
            continue
        resources = _listed(stmt.get("Resource", "*"))
        if not _action_matches(stmt.get("Action")) or not any(r in ("*", bus_arn) for r in resources):
            continue
        if not _principal_matches(stmt.get("Principal"), account):
            continue
        if stmt.get("Effect") == "Deny":
            return False
        allowed = allowed or stmt.get("Effect") == "Allow"
    return allowed
