"""Step Functions: the state machine list and a state machine's graph, definition and executions."""

from __future__ import annotations

import json
from typing import Any

from onceflow.console import graph
from onceflow.console.app import HttpError, Response, View

STATUSES = ["RUNNING", "SUCCEEDED", "FAILED", "TIMED_OUT", "ABORTED", "PENDING_REDRIVE"]
PAGE = 50


def machines(v: View) -> Response:
    found = v.optional(lambda: v.aws.all("stepfunctions", "ListStateMachines", {}, "stateMachines"), [])
    return v.page("states.html", title="State machines", machines=found)


def describe(v: View, name: str) -> dict[str, Any]:
    return v.aws.call("stepfunctions", "DescribeStateMachine", {"stateMachineArn": v.aws.state_machine_arn(name)})


def parse_definition(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def machine(v: View) -> Response:
    name = v.match["name"]
    described = describe(v, name)
    definition = parse_definition(described.get("definition", ""))
    status = v.arg("status")
    if status and status not in STATUSES:
        raise HttpError(400, "Bad status filter", f"The status filter is one of {', '.join(STATUSES)}.")
    params: dict[str, Any] = {"stateMachineArn": described["stateMachineArn"], "maxResults": PAGE}
    if status:
        params["statusFilter"] = status
    if v.arg("next"):
        params["nextToken"] = v.arg("next")
    if described.get("type") == "EXPRESS":
        v.notes.append("EXPRESS executions are not recorded by Step Functions; they have no list or history")
        listed: dict[str, Any] = {}
    else:
        listed = v.optional(lambda: v.aws.call("stepfunctions", "ListExecutions", params), {})
    return v.page("state_machine.html", title=name, machine=described, definition=definition,
                  drawing=graph.layout(definition), executions=listed.get("executions", []),
                  next_token=listed.get("nextToken", ""), status=status, statuses=STATUSES,
                  run=None)
