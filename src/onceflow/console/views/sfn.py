"""Step Functions: the state machine list and a state machine's graph, definition and executions."""

from __future__ import annotations

from typing import Any

from onceflow.console import graph
from onceflow.console.app import HttpError, Response, View
from onceflow.console.views import express
from onceflow.console.views.machines import describe, parse_definition

STATUSES = ["RUNNING", "SUCCEEDED", "FAILED", "TIMED_OUT", "ABORTED", "PENDING_REDRIVE"]
PAGE = 50


def machines(v: View) -> Response:
    found = v.optional(lambda: v.aws.all("stepfunctions", "ListStateMachines", {}, "stateMachines"), [])
    return v.page("states.html", title="State machines", machines=found)


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
        listed: dict[str, Any] = {"executions": express.listing(v, described)}
        if status:
            listed["executions"] = [e for e in listed["executions"] if e["status"] == status]
    else:
        listed = v.optional(lambda: v.aws.call("stepfunctions", "ListExecutions", params), {})
    return v.page("state_machine.html", title=name, machine=described, definition=definition,
                  drawing=graph.layout(definition), executions=listed.get("executions", []),
                  next_token=listed.get("nextToken", ""), status=status, statuses=STATUSES,
                  run=None)
