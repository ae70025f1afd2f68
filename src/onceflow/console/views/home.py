"""The overview: how many of each resource the account holds in this region."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from onceflow.console.app import Response, View

# (title, page, service, operation, items member, input token, output token)
SECTIONS = [
    ("State machines", "/states", "stepfunctions", "ListStateMachines", "stateMachines", "nextToken", "nextToken"),
    ("DynamoDB tables", "/dynamodb", "dynamodb", "ListTables", "TableNames", "ExclusiveStartTableName",
     "LastEvaluatedTableName"),
    ("Lambda functions", "/lambda", "lambda", "ListFunctions", "Functions", "Marker", "NextMarker"),
    ("IAM roles", "/iam", "iam", "ListRoles", "Roles", "Marker", "Marker"),
    ("Log groups", "/logs", "logs", "DescribeLogGroups", "logGroups", "nextToken", "nextToken"),
]


def overview(v: View) -> Response:
    cards = []
    for title, path, service, op, items, token, out in SECTIONS:
        count = v.optional(lambda s=service, o=op, i=items, t=token, ot=out: len(
            v.aws.all(s, o, {}, i, token=t, out_token=ot)))
        cards.append({"title": title, "path": path, "count": count})
    return v.page("home.html", title="Overview", cards=cards, recent=v.optional(lambda: recent_executions(v), []))


def recent_executions(v: View, machines: int = 50, shown: int = 20) -> list[dict[str, Any]]:
    """The latest executions of every state machine, newest first."""
    found: list[dict[str, Any]] = []
    for machine in v.aws.all("stepfunctions", "ListStateMachines", {}, "stateMachines", limit=machines):
        if machine.get("type") == "EXPRESS":
            continue  # Step Functions keeps no executions of EXPRESS machines to list
        listed = v.aws.call("stepfunctions", "ListExecutions", {"stateMachineArn": machine["stateMachineArn"],
                                                                "maxResults": shown})
        found += [dict(e, machineName=machine["name"]) for e in listed.get("executions", [])]
    found.sort(key=lambda e: _epoch(e.get("startDate")), reverse=True)
    return found[:shown]


def _epoch(value: Any) -> float:
    if isinstance(value, datetime):
        return value.timestamp()
    return float(value) if isinstance(value, int | float) else 0.0
