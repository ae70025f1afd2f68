"""The fault points of a baseline and the fault-rule list of each run.

Every rule is one `onceflow serve --faults` accepts, so a run can be replayed by hand. A rule that
targets the nth call of a kind (the 2nd Invoke of the worker, the 1st PutItem of its role on the
orders table) counts the earlier ones with `skip` and fires once (`times: 1`)."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from onceflow.faults.rules import MAX_LATENCY_MS

# (the fault kind, the called service) -> the error it answers with: the AWS error of a lost answer
# (the call took effect), and throttling for a call refused before any effect.
LOST_ANSWER = {"lambda": "ServiceException", "dynamodb": "InternalServerError"}
REFUSED = {"lambda": "TooManyRequestsException", "dynamodb": "ThrottlingException"}
# Step Functions' optimized DynamoDB tasks: resource action -> API operation.
DDB_ACTIONS = {"getItem": "GetItem", "putItem": "PutItem", "updateItem": "UpdateItem", "deleteItem": "DeleteItem"}


@dataclass
class TaskCall:
    """One Task attempt of the baseline: the call Step Functions made for it."""

    state: str
    attempt: int  # 1-based, per state
    service: str  # "lambda" | "dynamodb"
    operation: str
    resource: str  # the FunctionName or TableName as the task passed it
    skip: int  # earlier baseline calls the same rule would match
    timeout_s: int | None = None  # the Task's TimeoutSeconds, when it has one
    iteration: int | None = None  # the Map iteration it ran in (the last one started, in history order)

    @property
    def point(self) -> str:
        where = self.state if self.iteration is None else f"{self.state}[{self.iteration}]"
        return f"{where}#{self.attempt}"


@dataclass
class HandlerWrite:
    """One business write a handler made in the baseline (through its worker's role session)."""

    role: str
    k: int  # the kth business write of its invocation
    operation: str
    table: str
    skip: int
    task: str | None = None  # "StoreOrder#2": the Task attempt whose invocation wrote it, when known
    state: str | None = None  # that Task's state

    @property
    def point(self) -> str:
        return f"{self.task or self.role} write {self.k} ({self.operation} {self.table})"


def task_calls(events: list[dict[str, Any]]) -> list[TaskCall]:
    calls: list[TaskCall] = []
    state = "?"
    iteration: int | None = None
    attempts: dict[tuple[str, int | None], int] = {}
    seen: dict[tuple[str, str, str], int] = {}
    for event in events:
        if event["type"].endswith("StateEntered"):
            state = event["stateEnteredEventDetails"]["name"]
        elif event["type"] == "MapIterationStarted":
            iteration = event.get("mapIterationStartedEventDetails", {}).get("index")
        elif event["type"] == "MapStateExited":
            iteration = None
        if event["type"] != "TaskScheduled":
            continue
        details = event["taskScheduledEventDetails"]
        try:
            params = json.loads(details.get("parameters") or "{}")
        except ValueError:
            params = {}
        kind, action = details["resourceType"], details["resource"]
        if kind == "lambda" and isinstance(params.get("FunctionName"), str):
            service, operation, resource = "lambda", "Invoke", params["FunctionName"]
        elif kind == "dynamodb" and action in DDB_ACTIONS and isinstance(params.get("TableName"), str):
            service, operation, resource = "dynamodb", DDB_ACTIONS[action], params["TableName"]
        else:
            continue  # a service onceflow prove does not fault yet
        attempts[(state, iteration)] = attempts.get((state, iteration), 0) + 1
        key = (service, operation, resource)
        calls.append(TaskCall(state, attempts[(state, iteration)], service, operation, resource, seen.get(key, 0),
                              details.get("timeoutInSeconds"), iteration))
        seen[key] = seen.get(key, 0) + 1
    return calls


def handler_writes(ledger: list[dict[str, Any]], business: set[str], sfn_roles: set[str]) -> list[HandlerWrite]:
    """The baseline's business writes made by handlers (role sessions other than the state machine's)."""
    out: list[HandlerWrite] = []
    per_invocation: dict[str, int] = {}
    seen: dict[tuple[str, str, str], int] = {}
    calls = {}
    for entry in ledger:  # one call (request id) may write several items: fault the call once
        calls.setdefault(entry["requestId"], entry)
    for entry in calls.values():
        role = role_of(entry["caller"])
        if role is None or role in sfn_roles or entry["table"] not in business:
            continue
        invocation = entry.get("lambdaRequestId") or role
        per_invocation[invocation] = per_invocation.get(invocation, 0) + 1
        task = None
        if entry.get("state"):
            where = entry["state"] if entry.get("iteration") is None else f"{entry['state']}[{entry['iteration']}]"
            task = f"{where}#{entry['attempt']}"
        key = (role, entry["via"], entry["table"])
        out.append(HandlerWrite(role, per_invocation[invocation], entry["via"], entry["table"], seen.get(key, 0),
                                task, entry.get("state")))
        seen[key] = seen.get(key, 0) + 1
    return out


def role_of(caller: str) -> str | None:
    """arn:aws:sts::123:assumed-role/ROLE/SESSION -> ROLE."""
    _, _, rest = caller.partition(":assumed-role/")
    return rest.split("/", 1)[0] if rest else None


def _task_rule(call: TaskCall, when: str, code: str | None, kind: str | None, what: str) -> dict[str, Any]:
    rule: dict[str, Any] = {"service": call.service, "operation": call.operation, "resource": call.resource,
                            "when": when, "skip": call.skip, "times": 1,
                            "description": f"onceflow prove: {what} at {call.point}"}
    if code is not None:
        rule["error"] = {"code": code}
    if kind is not None:
        rule["kind"] = kind
    return rule


def lost_response(call: TaskCall) -> list[dict[str, Any]]:
    return [_task_rule(call, "after", LOST_ANSWER[call.service], None, "lost-response")]


def fail_before(call: TaskCall) -> list[dict[str, Any]]:
    return [_task_rule(call, "before", REFUSED[call.service], None, "fail-before")]


def timeout(call: TaskCall, time_scale: float) -> list[dict[str, Any]] | None:
    """The call takes effect, then its answer is held past the Task's TimeoutSeconds: the task
    times out (States.Timeout) after its effect. The hold is the timeout as the server scales it,
    plus a fifth and 50 ms (`latency_ms` is not scaled), so replay it with the same --time-scale.
    A Task without a TimeoutSeconds never times out, on AWS either: it is no timeout point."""
    if call.timeout_s is None:
        return None
    rule = _task_rule(call, "after", None, None, "timeout")
    rule["latency_ms"] = min(MAX_LATENCY_MS, math.ceil(call.timeout_s * 1200 / time_scale) + 50)
    rule["description"] += f" (held {rule['latency_ms']} ms: for --time-scale {time_scale:g})"
    return [rule]


def duplicate_delivery(call: TaskCall) -> list[dict[str, Any]] | None:
    if call.service != "lambda":
        return None  # a DynamoDB task has no handler to run twice
    return [_task_rule(call, "after", None, "duplicate", "duplicate-delivery")]


def fail_after_write(write: HandlerWrite) -> list[dict[str, Any]]:
    """The kth write takes effect and the handler gets an error for it. The status is 400 so the
    SDK in the worker does not retry it (it retries 5xx): the handler fails right after the write,
    as the issue's "the next SDK call fails" wants, instead of the SDK hiding the fault."""
    return [{"service": "dynamodb", "operation": write.operation, "resource": write.table,
             "caller": f"arn:aws:sts::*:assumed-role/{write.role}/*", "when": "after", "skip": write.skip,
             "times": 1, "error": {"code": LOST_ANSWER["dynamodb"], "statusCode": 400},
             "description": f"onceflow prove: fail-after-write at {write.point}"}]
