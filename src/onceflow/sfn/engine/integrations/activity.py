"""A Task whose Resource is an activity ARN: the task waits for a worker, then for its answer.

Events as AWS records them: ActivityScheduled (input, timeoutInSeconds, heartbeatInSeconds) ->
ActivityStarted (workerName, when GetActivityTask hands the task out) -> ActivitySucceeded /
ActivityFailed / ActivityTimedOut. TimeoutSeconds counts from scheduling; HeartbeatSeconds from the
start and from each SendTaskHeartbeat. Both waits are task-token waits (no thread is held): the
start signal and the answer are rows of sfn_tokens that the API writes (sfn/activities.py).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Generator
from typing import TYPE_CHECKING, Any, cast

from onceflow.sfn.asl.errors import StateDataError
from onceflow.sfn.engine import events as ev
from onceflow.sfn.engine.effects import AwaitToken

if TYPE_CHECKING:
    from onceflow.sfn.engine.integrations import Integration
    from onceflow.sfn.engine.states.common import Scope

Fx = Generator[Any, Any, Any]
RESULTS = ("ActivitySucceeded", "ActivityFailed", "ActivityTimedOut")
START_SUFFIX = "#started"  # the start signal's row in sfn_tokens: the task token plus this


def start_signal(token: str) -> str:
    return token + START_SUFFIX


def activity_token(exec_arn: str, fiber: str, scheduled_id: int) -> str:
    """Deterministic, so that replay finds the token it recorded."""
    digest = hashlib.sha256(f"{exec_arn}|{fiber}|{scheduled_id}|activity".encode()).hexdigest()
    return "AAAAKgAAAAIAAAAA" + digest + digest[::-1][:32]


def run_activity(scope: Scope, integ: Integration, params: Any, timeout: int | None, heartbeat: int | None,
                 after: int | None = None) -> Fx:
    """Returns ('ok', result) or ('err', error, cause, failed_event), as run_integration does."""
    rt, fiber = scope.rt, scope.fiber
    activities = rt.engine.stack.services["stepfunctions"].activities
    details: dict[str, Any] = {"resource": integ.arn, "input": ev.dumps(params), "inputDetails": {"truncated": False}}
    if timeout is not None:
        details["timeoutInSeconds"] = timeout
    if heartbeat is not None:
        details["heartbeatInSeconds"] = heartbeat
    # Activities run only under the durable engine (TestState refuses an unmocked one): it has the store.
    if not rt.replaying(fiber) and cast(Any, rt.engine).store.get_activity(integ.arn) is None:
        # AWS fails the execution at once (no ActivityScheduled; Catch does not apply).
        raise StateDataError("States.Runtime", f"The activity {integ.arn} does not exist.")
    scheduled = rt.emit(fiber, "ActivityScheduled", details, prev=after)
    token = activity_token(rt.arn, fiber, scheduled.id)
    if scheduled.id >= rt.first_live_id:
        text = details["input"]
        rt.write(lambda conn: activities.queue(conn, integ.arn, token, rt.arn, text, scheduled.ts))
    due = rt.scaled_due(scheduled.ts, scheduled.ts + timeout) if timeout is not None else None
    recorded = rt.peek(fiber)
    if recorded is not None and recorded.type in RESULTS:
        return _recorded(rt.emit(fiber, recorded.type, None))
    anchor = scheduled
    if recorded is None:  # not handed out yet (or handed out since the last drive)
        answer = yield AwaitToken(start_signal(token), due, None)
        if answer[0] != "SUCCEEDED":
            return _timed_out(scope, token, "States.Timeout", scheduled.id)
        worker = json.loads(answer[1])
        anchor = rt.emit(fiber, "ActivityStarted", {"workerName": worker} if worker else {}, prev=scheduled.id)
    else:
        anchor = rt.emit(fiber, "ActivityStarted", None)
        recorded = rt.peek(fiber)
        if recorded is not None and recorded.type in RESULTS:
            return _recorded(rt.emit(fiber, recorded.type, None))
    hb = rt.scale_seconds(heartbeat) if heartbeat is not None else None
    answer = yield AwaitToken(token, due, hb)
    if answer[0] == "SUCCEEDED":
        result = json.loads(answer[1])
        rt.emit(fiber, "ActivitySucceeded", ev.output_details(result), prev=anchor.id)
        return ("ok", result)
    if answer[0] == "FAILED":
        failed = rt.emit(fiber, "ActivityFailed", ev.error_cause(answer[1], answer[2]), prev=anchor.id)
        return ("err", answer[1], answer[2], failed)
    return _timed_out(scope, token, "States.HeartbeatTimeout" if answer[0] == "HEARTBEAT" else "States.Timeout",
                      anchor.id)


def _timed_out(scope: Scope, token: str, error: str, prev: int) -> tuple[Any, ...]:
    rt = scope.rt
    store = cast(Any, rt.engine).store

    def close(conn: Any) -> None:  # a late SendTask* (or a poll) now finds the task gone
        store.complete_token(conn, token, "TIMED_OUT", None, None, None)
        store.complete_token(conn, start_signal(token), "TIMED_OUT", None, None, None)

    rt.write(close)
    failed = rt.emit(scope.fiber, "ActivityTimedOut", {"error": error}, prev=prev)
    return ("err", error, None, failed)


def _recorded(got: ev.Event) -> tuple[Any, ...]:
    d = got.details or {}
    if got.type == "ActivitySucceeded":
        return ("ok", json.loads(d["output"]) if "output" in d else None)
    return ("err", d.get("error"), d.get("cause"), got)
