"""Fold an execution's history (GetExecutionHistory events) into what the console shows.

Pure. Per state: entered or not, how it ended (succeeded, failed, caught, running), how many task
attempts it took; per task attempt: the resource, the Lambda function, the outcome and the Lambda
request id (from the invoke result or the error's cause) used to find that invocation's log lines;
and the transitions taken, to highlight the path on the graph.

Events are tied to states through previousEventId: a Task event's state is its cause's state,
and a task event's attempt is its cause's attempt (TaskScheduled <- TaskStarted <- TaskSucceeded
...). That keeps Parallel branches and Map iterations apart even when their events interleave:
two iterations of one Task state each pair their own attempts, and a StateExited that follows a
failed attempt is that entry's Catch.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from onceflow.console.graph import END, START

TERMINAL = {"ExecutionSucceeded", "ExecutionFailed", "ExecutionTimedOut", "ExecutionAborted"}
ATTEMPT_END = {"TaskSucceeded": "succeeded", "TaskFailed": "failed", "TaskTimedOut": "timed-out",
               "TaskStartFailed": "failed", "TaskSubmitFailed": "failed", "LambdaFunctionFailed": "failed",
               "LambdaFunctionSucceeded": "succeeded", "LambdaFunctionTimedOut": "timed-out",
               "LambdaFunctionStartFailed": "failed", "LambdaFunctionScheduleFailed": "failed"}  # fmt: skip
CONTAINER_EVENTS = ("ParallelState", "MapState", "MapIteration", "MapRun")
ATTEMPT_START = {"TaskScheduled", "LambdaFunctionScheduled"}
REQUEST_ID = re.compile(r"Request ID: ([0-9a-fA-F-]{36})")


@dataclass
class Attempt:
    state: str
    number: int  # 1 for the first try of this state entry, 2 for the first retry ...
    event_id: int
    resource_type: str = ""
    resource: str = ""
    function: str = ""  # the Lambda function name, when the task invokes one
    parameters: str = ""
    outcome: str = "running"  # running | succeeded | failed | timed-out
    error: str = ""
    cause: str = ""
    output: str = ""
    request_id: str = ""
    started: Any = None
    ended: Any = None
    payload: Any = None  # the function's result (Payload of lambda:invoke) when it succeeded


@dataclass
class StateRun:
    name: str
    type: str = ""
    status: str = "not-reached"  # running | succeeded | failed | caught | not-reached
    entries: int = 0
    attempts: int = 0  # task attempts in the latest entry
    error: str = ""
    caught: int = 0  # entries whose failure a Catch took (a Map's iterations may differ)

    @property
    def retried(self) -> bool:
        return self.attempts > 1


@dataclass
class Folded:
    status: str = "RUNNING"
    states: dict[str, StateRun] = field(default_factory=dict)
    attempts: list[Attempt] = field(default_factory=list)
    transitions: set[tuple[str, str]] = field(default_factory=set)
    error: str = ""
    cause: str = ""
    last_event_id: int = 0
    step_of: dict[int, str] = field(default_factory=dict)  # event id -> the state it belongs to


def details(event: dict[str, Any]) -> dict[str, Any]:
    """The one *EventDetails member of an event ({} when it has none)."""
    for key, value in event.items():
        if key.endswith("EventDetails") and isinstance(value, dict):
            return value
    return {}


def function_name(value: str) -> str:
    """`name`, `name:alias`, `123456789012:function:name` or a full ARN -> `name`."""
    if ":function:" in value:
        return value.split(":function:", 1)[1].split(":", 1)[0]
    return value.split(":", 1)[0]


def fold(events: list[dict[str, Any]]) -> Folded:
    out = Folded()
    state_of = out.step_of
    attempt_of: dict[int, Attempt] = {}  # a task event's id -> its attempt (by the previousEventId chain)
    exited_from: dict[int, str] = {}  # StateExited event id -> state name
    containers: list[str] = []  # the Parallel and Map states entered and not yet exited
    for event in events:
        eid, prev, kind = int(event.get("id", 0)), int(event.get("previousEventId", 0) or 0), event.get("type", "")
        det = details(event)
        out.last_event_id = max(out.last_event_id, eid)
        if kind.endswith("StateEntered"):
            _entered(out, det.get("name", ""), kind.removesuffix("StateEntered"), prev, exited_from, state_of)
            state_of[eid] = det.get("name", "")
            if kind in ("ParallelStateEntered", "MapStateEntered"):
                containers.append(det.get("name", ""))
            continue
        name = det.get("name") if kind.endswith("StateExited") else state_of.get(prev)
        if kind in ("ParallelStateExited", "MapStateExited") and name in containers:
            containers.remove(name)
        elif kind.startswith(CONTAINER_EVENTS) and containers:
            name = containers[-1]  # ParallelStateSucceeded, MapIterationStarted...: the Map/Parallel state's own
        if name is not None:
            state_of[eid] = name
        if kind.endswith("StateExited") and name:
            exited_from[eid] = name
            _exited(out, name, attempt_of.get(prev))
        elif kind in ATTEMPT_START and name:
            attempt_of[eid] = _attempt_started(out, name, eid, det, event, attempt_of.get(prev))
        elif kind in ("TaskStarted", "TaskSubmitted", "LambdaFunctionStarted") and (
                attempt := attempt_of.get(prev) or _open_attempt(out, name)):
            attempt_of[eid] = attempt
            if kind != "TaskSubmitted":
                attempt.started = event.get("timestamp")
        elif kind in ATTEMPT_END and (attempt := attempt_of.get(prev) or _open_attempt(out, name)):
            attempt_of[eid] = attempt
            _attempt_ended(attempt, ATTEMPT_END[kind], det, event)
        elif kind in TERMINAL:
            _terminal(out, kind, det, prev, exited_from)
    return out


def _entered(out: Folded, name: str, stype: str, prev: int, exited_from: dict[int, str],
             state_of: dict[int, str]) -> None:
    run = out.states.setdefault(name, StateRun(name))
    run.type, run.status, run.entries, run.attempts = stype, "running", run.entries + 1, 0
    if stype == "Fail":
        run.status = "failed"
    if prev == 0:
        out.transitions.add((START, name))
    elif prev in exited_from:
        out.transitions.add((exited_from[prev], name))
    elif prev in state_of and state_of[prev] != name:
        out.transitions.add((state_of[prev], name))


def _open_attempt(out: Folded, name: str | None) -> Attempt | None:
    """For a history whose task events do not chain on their own attempt: the state's oldest one
    still open."""
    return next((a for a in out.attempts if a.state == name and a.ended is None), None)


def _exited(out: Folded, name: str, last: Attempt | None) -> None:
    """`last`: the attempt whose end this exit follows (None for states without tasks)."""
    run = out.states.setdefault(name, StateRun(name))
    failed = last is not None and last.outcome not in ("succeeded", "running")
    if failed and last is not None:
        run.caught += 1
        run.error = last.error
    run.status = "caught" if run.caught else "succeeded"


def _attempt_started(out: Folded, name: str, eid: int, det: dict[str, Any], event: dict[str, Any],
                     previous: Attempt | None) -> Attempt:
    """A new attempt; `previous` is the one whose failure it retries (its cause), else None."""
    run = out.states.setdefault(name, StateRun(name))
    number = previous.number + 1 if previous is not None and previous.state == name else 1
    run.attempts = number
    attempt = Attempt(name, number, eid, det.get("resourceType", "lambda"), det.get("resource", ""))
    attempt.parameters = det.get("parameters") or det.get("input") or ""
    attempt.started = event.get("timestamp")
    attempt.function = _function_of(attempt)
    out.attempts.append(attempt)
    return attempt


def _function_of(attempt: Attempt) -> str:
    if attempt.resource_type != "lambda":
        return ""
    if attempt.resource.startswith("arn:"):
        return function_name(attempt.resource)
    try:
        params = json.loads(attempt.parameters) if attempt.parameters else {}
    except ValueError:
        return ""
    value = params.get("FunctionName") if isinstance(params, dict) else None
    return function_name(value) if isinstance(value, str) else ""


def _attempt_ended(attempt: Attempt, outcome: str, det: dict[str, Any], event: dict[str, Any]) -> None:
    attempt.outcome, attempt.ended = outcome, event.get("timestamp")
    attempt.error, attempt.cause = det.get("error", "") or "", det.get("cause", "") or ""
    attempt.output = det.get("output", "") or ""
    if outcome == "succeeded":
        attempt.request_id, attempt.payload = _from_result(attempt)
    else:
        attempt.request_id = _request_id_of_cause(attempt.cause)


def _from_result(attempt: Attempt) -> tuple[str, Any]:
    try:
        result = json.loads(attempt.output) if attempt.output else None
    except ValueError:
        return "", None
    if attempt.resource.startswith("arn:") or not isinstance(result, dict):
        return "", result  # a Lambda ARN as Resource: the output is the function's result itself
    meta = result.get("SdkResponseMetadata")
    rid = meta.get("RequestId", "") if isinstance(meta, dict) else ""
    if not rid:
        headers = (result.get("SdkHttpMetadata") or {}).get("HttpHeaders") or {}
        rid = headers.get("x-amzn-RequestId", "") if isinstance(headers, dict) else ""
    return str(rid), result.get("Payload")


def _request_id_of_cause(cause: str) -> str:
    """A function error's cause is the runtime's JSON with requestId; an API error names its Request ID
    in the Java SDK's text (which identifies the refused call, not an invocation)."""
    try:
        parsed = json.loads(cause)
        if isinstance(parsed, dict) and isinstance(parsed.get("requestId"), str):
            return parsed["requestId"]
    except ValueError:
        pass
    return ""


def api_request_id(cause: str) -> str:
    found = REQUEST_ID.search(cause)
    return found.group(1) if found else ""


def _terminal(out: Folded, kind: str, det: dict[str, Any], prev: int, exited_from: dict[int, str]) -> None:
    out.status = {"ExecutionSucceeded": "SUCCEEDED", "ExecutionFailed": "FAILED",
                  "ExecutionTimedOut": "TIMED_OUT", "ExecutionAborted": "ABORTED"}[kind]
    out.error, out.cause = det.get("error", "") or "", det.get("cause", "") or ""
    if kind == "ExecutionSucceeded" and prev in exited_from:
        out.transitions.add((exited_from[prev], END))
    for run in out.states.values():
        if run.status == "running":
            run.status = "failed" if kind != "ExecutionAborted" else "aborted"
            last = next((a for a in reversed(out.attempts) if a.state == run.name), None)
            run.error = last.error if last else out.error
    for name, run in out.states.items():
        if run.type == "Fail" and run.status == "failed":
            out.transitions.add((name, END))
