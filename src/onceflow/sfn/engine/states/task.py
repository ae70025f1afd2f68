"""The Task state: parameters, the integration call with its events, Retry, Catch and results.

Effects are appended first (TaskScheduled, TaskStarted and any task-token row go to disk before
the call starts). When replay finds a recorded result it takes it. When it finds a task that was
started but whose result was never recorded (the server stopped mid-call), the engine's hand-over
marks decide: a call never handed to a Lambda worker or a service is made now, as if nothing had
happened; one that was handed over may have run, so its outcome is unknown and the task fails as
AWS does when a service's answer is lost - Retry and Catch decide.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from typing import Any

from onceflow.sfn.asl.errors import StateDataError, StatesError
from onceflow.sfn.asl.intrinsics import java_text
from onceflow.sfn.asl.nodes import State
from onceflow.sfn.asl.paths import resolve_path
from onceflow.sfn.engine import events as ev
from onceflow.sfn.engine.effects import AwaitToken, Fx, Invoke, InvokeTimeout, Mark, token_for
from onceflow.sfn.engine.integrations import UNSUPPORTED_ERROR, Integration, integration, role_principal
from onceflow.sfn.engine.integrations.activity import run_activity
from onceflow.sfn.engine.states.common import (
    Scope,
    context_object,
    enter_state,
    exit_state,
    fail_in_state,
    input_path,
    jsonata_value,
    process_result,
    states_binding,
    template,
    too_large,
    transition,
)
from onceflow.sfn.engine.states.errors import handle_error
from onceflow.sfn.mocks import Mocked

RESULT_TYPES = {"TaskSucceeded", "TaskFailed", "TaskTimedOut", "LambdaFunctionSucceeded", "LambdaFunctionFailed",
                "LambdaFunctionTimedOut", "TaskStartFailed"}
LOST_CAUSE = ("The task's result was not recorded before the service stopped, so the outcome of the call is "
              "unknown (Service: AWSLambda; Status Code: 500; Error Code: ServiceException; Request ID: {rid}; "
              "Proxy: null)")


def task_state(scope: Scope, state: State, raw: Any) -> Fx:
    name = state.name
    entered, raw = enter_state(scope, "Task", name, raw)
    integ = integration(state.resource, state["Resource"])
    ql = state.query_language
    counts = [0] * len(state.retriers)
    attempt = 0
    after: int | None = None  # a retry's events chain on the failure it retries
    while True:
        token = token_for(scope.rt.arn, scope.fiber, entered.id, attempt) if integ.wait_for_token else None
        ctx = context_object(scope, name, entered, attempt, token)
        try:
            params, timeout, heartbeat = _parameters(scope, state, raw, ctx, ql)
        except StatesError as e:
            raise fail_in_state(scope, name, entered, e) from None
        try:
            mocked = mock_answer(scope, name, entered.id, attempt)
            if mocked is not None:  # a mocked test case answers instead of the call
                outcome = run_mocked(scope, integ, params, timeout, heartbeat, mocked, after)
            else:
                outcome = yield from run_integration(scope, integ, params, timeout, heartbeat, token, after)
        except StateDataError as e:  # sfnapi: an integration's runtime failure (a deleted activity)
            raise fail_in_state(scope, name, entered, e) from None
        if outcome[0] == "ok":
            try:
                output, assigned = process_result(scope, state, raw, ctx, outcome[1])
            except StatesError as e:
                raise fail_in_state(scope, name, entered, e) from None
            output = exit_state(scope, "Task", name, output, assigned)
            return transition(state, output)
        _, error, cause, failed = outcome
        decision = yield from handle_error(scope, state, name, raw, ctx, ql, error, cause, counts, failed)
        if decision is None:
            attempt += 1
            after = failed.id if failed is not None else None
            continue
        return decision


def _parameters(scope: Scope, state: State, raw: Any, ctx: dict[str, Any],
                ql: str) -> tuple[Any, int | None, int | None]:
    variables = scope.variables
    if ql == "JSONata":
        states = states_binding(raw, ctx)
        params = jsonata_value(state["Arguments"], states, variables, "Arguments") if "Arguments" in state else raw
        timeout = _number_field(state, "TimeoutSeconds", states, variables)
        heartbeat = _number_field(state, "HeartbeatSeconds", states, variables)
        return params, timeout, heartbeat
    data = input_path(state, raw, ctx, variables)
    params = template(state["Parameters"], data, ctx, variables) if "Parameters" in state else data
    timeout = _path_number(state, "TimeoutSeconds", raw, ctx, variables)
    heartbeat = _path_number(state, "HeartbeatSeconds", raw, ctx, variables)
    return params, timeout, heartbeat


def _number_field(state: State, field: str, states: dict[str, Any], variables: dict[str, Any]) -> int | None:
    value = state.get(field)
    if isinstance(value, str):
        value = jsonata_value(value, states, variables, field)
    return value


def _path_number(state: State, field: str, raw: Any, ctx: dict[str, Any],
                 variables: dict[str, Any]) -> int | None:
    if field in state:
        return state[field]
    path = state.get(f"{field}Path")
    if path is None:
        return None
    value = resolve_path(path, raw, ctx, variables)
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise StateDataError("States.Runtime", f"The {field}Path field refers to value \"{java_text(value)}\" which "
                                               f"is not a valid positive integer: {path}")
    return value


# ---------------------------------------------------------------------- the call and its events
def _task_scheduled(scope: Scope, integ: Integration, params: Any, timeout: int | None,
                    heartbeat: int | None, after: int | None = None) -> ev.Event:
    details: dict[str, Any] = {"resourceType": integ.resource_type, "resource": integ.resource,
                               "region": scope.rt.region, "parameters": ev.dumps(params)}
    if timeout is not None:
        details["timeoutInSeconds"] = timeout
    if heartbeat is not None:
        details["heartbeatInSeconds"] = heartbeat
    return scope.rt.emit(scope.fiber, "TaskScheduled", details, prev=after)


def _schedule(scope: Scope, integ: Integration, params: Any, timeout: int | None, heartbeat: int | None,
              token: str | None, after: int | None = None) -> ev.Event:
    """The scheduling events (and the task token row), in the transaction before the call; returns
    the ...Started event."""
    rt, fiber = scope.rt, scope.fiber
    if integ.bare_lambda:
        details: dict[str, Any] = {"resource": integ.resource, "input": ev.dumps(params),
                                   "inputDetails": {"truncated": False}}
        if timeout is not None:
            details["timeoutInSeconds"] = timeout
        rt.emit(fiber, "LambdaFunctionScheduled", details, prev=after)
        return rt.emit(fiber, "LambdaFunctionStarted", None)
    scheduled = _task_scheduled(scope, integ, params, timeout, heartbeat, after)
    if token is not None and scheduled.id >= rt.first_live_id:
        live_token = token

        def token_row(conn: sqlite3.Connection) -> None:
            rt.engine.insert_token(conn, live_token, rt.arn, scheduled.ts)

        rt.write(token_row)
    return rt.emit(fiber, "TaskStarted", {"resourceType": integ.resource_type, "resource": integ.resource})


def _lost(scope: Scope, integ: Integration, prev: int) -> tuple[Any, ...]:
    """A call started before the server stopped whose answer was never recorded: its outcome is
    unknown, so the task fails with the service's own 'something went wrong' error."""
    rid = str(uuid.uuid4())
    if integ.kind == "dynamodb":
        return _fail(scope, integ, "DynamoDB.InternalServerErrorException",
                     LOST_CAUSE.format(rid=rid).replace("AWSLambda", "AmazonDynamoDBv2").replace(
                         "Error Code: ServiceException", "Error Code: InternalServerError"), prev)
    if integ.kind == "aws_sdk":
        prefix = integ.resource_type.split(":", 1)[1].capitalize()
        return _fail(scope, integ, f"{prefix}.{prefix}Exception",
                     LOST_CAUSE.format(rid=rid).replace("AWSLambda", prefix), prev)
    return _fail(scope, integ, "Lambda.ServiceException", LOST_CAUSE.format(rid=rid), prev)


def run_integration(scope: Scope, integ: Integration, params: Any, timeout: int | None, heartbeat: int | None,
                    token: str | None, after: int | None = None) -> Fx:
    """Make (or replay) the call; returns ('ok', result) or ('err', error, cause, failed_event)."""
    rt, fiber = scope.rt, scope.fiber
    if not integ.supported:
        return _not_run(scope, integ, params, timeout, heartbeat, after)
    if integ.kind == "activity":  # an activity's own events and waits
        return (yield from run_activity(scope, integ, params, timeout, heartbeat, after))
    mark: Mark | None = rt.mark()
    started = _schedule(scope, integ, params, timeout, heartbeat, token, after)
    live = started.id >= rt.first_live_id
    handed = started.id in rt.dispatched
    recorded = rt.peek(fiber)
    # The attempt's own events chain on each other (a Map's iterations interleave in the history).
    anchor = started
    if recorded is not None and recorded.type == "TaskSubmitted":
        anchor = rt.emit(fiber, "TaskSubmitted", None)
        recorded, handed = rt.peek(fiber), True
    if recorded is not None and recorded.type in RESULT_TYPES:
        return _recorded_outcome(rt.emit(fiber, recorded.type, None))
    due = rt.scaled_due(started.ts, started.ts + timeout) if timeout is not None else None
    if not live and not handed:
        # Started before the server stopped, but never handed to a worker or service: the call
        # provably did not run, so it is made now (its events are on disk: nothing to roll back).
        live, mark = True, None
    if not live and not integ.wait_for_token:
        return _lost(scope, integ, started.id)
    if live:
        try:
            call = integ.make_call(rt.engine.stack, role_principal(rt), rt.region, params, rt.arn, token)
            result = yield Invoke(call, due, mark, started.id)
        except InvokeTimeout:
            return _timed_out(scope, integ, prev=started.id)
        except StatesError as e:
            return _fail(scope, integ, e.error, e.cause, started.id)
        if not integ.wait_for_token:
            return _succeed(scope, integ, result, started.id)
        anchor = rt.emit(fiber, "TaskSubmitted", {"resourceType": integ.resource_type, "resource": integ.resource,
                                                  "output": ev.dumps(result), "outputDetails": {"truncated": False}},
                         prev=started.id)
    hb = rt.scale_seconds(heartbeat) if heartbeat is not None else None
    answer = yield AwaitToken(token or "", due, hb)
    if answer[0] == "SUCCEEDED":
        return _succeed(scope, integ, json.loads(answer[1]), anchor.id)
    if answer[0] == "FAILED":
        return _fail(scope, integ, answer[1], answer[2], anchor.id)
    if token is not None:  # a late SendTask* now gets TaskTimedOut
        rt.write(lambda conn: rt.engine.time_out_token(conn, token))
    return _timed_out(scope, integ, "States.HeartbeatTimeout" if answer[0] == "HEARTBEAT" else "States.Timeout",
                      anchor.id)


def mock_answer(scope: Scope, name: str, entered_id: int, attempt: int) -> Mocked | None:
    """The mocked answer of this attempt of state `name`, None when the execution runs no test case
    or the case does not mock the state. Invocations count per state per execution, from 0."""
    case = scope.rt.mock_case
    if case is None or name not in case.states:
        return None
    calls = scope.rt.mock_calls.setdefault(name, {})
    number = calls.setdefault((scope.fiber, entered_id, attempt), len(calls))
    try:
        return case.answer(name, number)
    except LookupError as e:
        raise StateDataError("States.Runtime", str(e)) from None


def run_mocked(scope: Scope, integ: Integration, params: Any, timeout: int | None, heartbeat: int | None,
               mocked: Mocked, after: int | None) -> tuple[Any, ...]:
    """The task's events as Step Functions Local records a mocked task (scheduled, started, then
    succeeded with the Return or failed with the Throw); no call is made, no token is waited for."""
    started = _schedule(scope, integ, params, timeout, heartbeat, None, after)
    recorded = scope.rt.peek(scope.fiber)
    if recorded is not None and recorded.type in RESULT_TYPES:  # replay
        return _recorded_outcome(scope.rt.emit(scope.fiber, recorded.type, None))
    if mocked.throws:
        return _fail(scope, integ, mocked.error, mocked.cause, started.id)
    return _succeed(scope, integ, mocked.result, started.id)


def _not_run(scope: Scope, integ: Integration, params: Any, timeout: int | None,
             heartbeat: int | None, after: int | None) -> tuple[Any, ...]:
    """A resource onceflow does not run: the task is scheduled and fails to start, plainly."""
    _task_scheduled(scope, integ, params, timeout, heartbeat, after)
    cause = integ.unsupported_cause
    failed = scope.rt.emit(scope.fiber, "TaskStartFailed", {
        "resourceType": integ.resource_type, "resource": integ.resource, "error": UNSUPPORTED_ERROR, "cause": cause})
    return ("err", UNSUPPORTED_ERROR, cause, failed)


def _recorded_outcome(got: ev.Event) -> tuple[Any, ...]:
    d = got.details or {}
    if got.type.endswith("Succeeded"):
        return ("ok", json.loads(d["output"]) if "output" in d else None)
    return ("err", d.get("error"), d.get("cause"), got)


def _succeed(scope: Scope, integ: Integration, result: Any, prev: int | None = None) -> tuple[Any, ...]:
    out = ev.dumps(result)
    if too_large(out):
        name = integ.resource if integ.bare_lambda else integ.resource_type
        return _fail(scope, integ, "States.DataLimitExceeded",
                     f"The state/task '{name}' returned a result with a size exceeding the maximum number of bytes "
                     "service limit.", prev)
    if integ.bare_lambda:
        scope.rt.emit(scope.fiber, "LambdaFunctionSucceeded", {"output": out, "outputDetails": {"truncated": False}},
                      prev=prev)
    else:
        scope.rt.emit(scope.fiber, "TaskSucceeded", {"resourceType": integ.resource_type, "resource": integ.resource,
                                                     "output": out, "outputDetails": {"truncated": False}}, prev=prev)
    return ("ok", result)


def _fail(scope: Scope, integ: Integration, error: str | None, cause: str | None,
          prev: int | None = None) -> tuple[Any, ...]:
    if integ.bare_lambda:
        failed = scope.rt.emit(scope.fiber, "LambdaFunctionFailed", ev.error_cause(error, cause), prev=prev)
    else:
        details = {"resourceType": integ.resource_type, "resource": integ.resource, **ev.error_cause(error, cause)}
        failed = scope.rt.emit(scope.fiber, "TaskFailed", details, prev=prev)
    return ("err", error, cause, failed)


def _timed_out(scope: Scope, integ: Integration, error: str = "States.Timeout",
               prev: int | None = None) -> tuple[Any, ...]:
    if integ.bare_lambda:
        failed = scope.rt.emit(scope.fiber, "LambdaFunctionTimedOut", {"error": error}, prev=prev)
    else:
        details = {"resourceType": integ.resource_type, "resource": integ.resource, "error": error}
        failed = scope.rt.emit(scope.fiber, "TaskTimedOut", details, prev=prev)
    return ("err", error, None, failed)


__all__ = ["mock_answer", "run_integration", "run_mocked", "task_state"]
