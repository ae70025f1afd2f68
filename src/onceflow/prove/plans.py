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
    iteration: int | None = None  # the Map iteration it ran in
    started_id: int | None = None  # its TaskStarted event: what the ledger names a task call by

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
    lambda_request_id: str | None = None  # the invocation that wrote it
    request_id: str = ""  # the write call's own request id

    @property
    def point(self) -> str:
        return f"{self.task or self.role} write {self.k} ({self.operation} {self.table})"


# Walking back from a state's entry to its Map iteration stops here: outside any iteration.
OUTSIDE_ITERATIONS = ("MapStateStarted", "MapStateExited", "ExecutionStarted")


def task_calls(events: list[dict[str, Any]]) -> list[TaskCall]:
    """The baseline's Task calls in history order. Each TaskScheduled's state and Map iteration
    come from its own chain of previousEventId (concurrent branches and iterations interleave
    in the history, so "the last state entered" could be another branch's)."""
    by_id = {e["id"]: e for e in events}
    started = {e.get("previousEventId"): e["id"] for e in events if e["type"] == "TaskStarted"}
    calls: list[TaskCall] = []
    attempts: dict[tuple[str, int | None], int] = {}
    seen: dict[tuple[str, str, str], int] = {}
    for event in events:
        if event["type"] != "TaskScheduled":
            continue
        state, iteration = _where(by_id, event)
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
                              details.get("timeoutInSeconds"), iteration, started.get(event["id"])))
        seen[key] = seen.get(key, 0) + 1
    return calls


def _where(by_id: dict[int, dict[str, Any]], event: dict[str, Any]) -> tuple[str, int | None]:
    """(the state, the Map iteration index or None) of a TaskScheduled event, by its chain."""
    state: str | None = None
    current: dict[str, Any] | None = event
    for _ in range(len(by_id) + 1):  # a chain never loops; the bound makes sure of it
        current = by_id.get(current.get("previousEventId") or 0) if current is not None else None
        if current is None or current["type"] in OUTSIDE_ITERATIONS:
            break
        if state is None and current["type"].endswith("StateEntered"):
            state = current["stateEnteredEventDetails"]["name"]
        elif state is not None and current["type"] == "MapIterationStarted":
            return state, current.get("mapIterationStartedEventDetails", {}).get("index")
    return state or "?", None


def handler_writes(ledger: list[dict[str, Any]], business: set[str], sfn_roles: set[str]) -> list[HandlerWrite]:
    """The baseline's business writes made by handlers (role sessions other than the state machine's)."""
    out: list[HandlerWrite] = []
    per_invocation: dict[str, int] = {}
    seen: dict[tuple[str, str, str], int] = {}
    calls: dict[str, dict[str, Any]] = {}
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
                                task, entry.get("state"), entry.get("lambdaRequestId"), entry["requestId"]))
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


# The service's own internal error for the call after a write. Answered with status 400: the SDK
# retries a 5xx, and a retry that succeeds would hide the fault (the report says so).
INTERNAL = {"dynamodb": "InternalServerError", "lambda": "ServiceException", "logs": "ServiceUnavailableException",
            "iam": "ServiceFailure"}


def fail_after_write(write: HandlerWrite, calls: list[dict[str, Any]],
                     invocations: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    """The kth write takes effect and its answer arrives; then the handler's NEXT SDK call fails
    before any effect, with its service's internal error (status 400, so the worker's SDK does not
    retry it away), and the handler meets it as it would a real failure. The rule counts that
    call among the baseline's calls of the same operation by the function's role. When no call
    follows the write in the baseline, nothing can fail after it but the handler itself: its
    worker dies as it returns (the Invoke's `crash` kind: the write stands, the answer is
    Runtime.ExitError). None when the write's invocation is unknown."""
    mine = [c for c in calls if c["lambdaRequestId"] == write.lambda_request_id]
    at = next((i for i, c in enumerate(mine) if c["requestId"] == write.request_id), None)
    if write.lambda_request_id is None or at is None:
        return None
    caller = f"arn:aws:sts::*:assumed-role/{write.role}/*"
    what = f"onceflow prove: fail-after-write at {write.point}"
    if at + 1 < len(mine):
        nxt = mine[at + 1]
        op = (nxt["service"], nxt["operation"])
        skip = sum(1 for c in calls[: calls.index(nxt)]
                   if (c["service"], c["operation"]) == op and role_of(c["caller"]) == write.role)
        code = INTERNAL.get(op[0], "InternalFailure")
        return [{"service": op[0], "operation": op[1], "caller": caller, "when": "before", "skip": skip, "times": 1,
                 "error": {"code": code, "statusCode": 400},
                 "description": f"{what}: the handler's next SDK call ({op[1]}) fails with {code} (status 400: "
                                f"not retried by the SDK)"}]
    invocation = next((i for i in invocations if i["requestId"] == write.lambda_request_id), None)
    if invocation is None:
        return None
    function = invocation["function"]
    skip = sum(1 for i in invocations[: invocations.index(invocation)] if i["function"] == function)
    return [{"service": "lambda", "operation": "Invoke", "resource": function, "when": "after", "kind": "crash",
             "skip": skip, "times": 1,
             "description": f"{what}: no SDK call follows this write, so the handler fails as it returns "
                            f"(its worker dies: Runtime.ExitError; the write stands)"}]
