"""TestState: one state run on its own, with the same state code as executions, kept in memory.

The state runs in a throw-away runtime whose commits stay in a list and whose task calls are made
inline. Retriers are not waited on: an error a retrier would take is reported as RETRIABLE, an
error a catcher takes as CAUGHT_ERROR with the catcher's Next, others as FAILED.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Generator
from typing import Any

from onceflow.sfn.asl.errors import StatesError
from onceflow.sfn.asl.retry import error_matches
from onceflow.sfn.engine.clock import SYSTEM
from onceflow.sfn.engine.events import Event
from onceflow.sfn.engine.runner import Runtime
from onceflow.sfn.engine.state import History
from onceflow.sfn.engine.states import HANDLERS
from onceflow.sfn.engine.states.common import Scope

FAILURE_EVENTS = {"TaskFailed", "TaskTimedOut", "LambdaFunctionFailed", "LambdaFunctionTimedOut",
                  "MapStateFailed", "ParallelStateFailed", "TaskStartFailed"}
# A TestState call holds a request thread: an expression that never returns ends after this long
# with States.Timeout (TestState has no TimeoutSeconds of its own).
TEST_STATE_LIMIT_S = 60.0


class _InlineEngine:
    """Just enough engine for one state: nothing persists, calls run in the caller's thread."""

    scale = 1e9  # a Wait state does not wait in TestState
    draining = False
    skip_waits = False
    long_lane = None  # one state on the caller's thread: no other evaluation to take turns with
    clock = SYSTEM

    def __init__(self, engine: Any) -> None:
        self.stack = engine.stack
        self.events: list[Event] = []
        self._engine = engine
        self.closed: tuple[str | None, str | None] | None = None  # (error, cause) when ended from outside

    @property
    def halting(self) -> bool:  # the server shuts down: a looping expression ends
        return bool(getattr(self._engine, "halting", False))

    def release_seat(self) -> None:
        return None

    def commit(self, rt: Runtime, timer: Any, final: bool) -> bool:
        self.events += rt.pending
        return True

    def submit_invoke(self, rt: Runtime, fib: Any, eff: Any) -> None:
        try:
            value, exc = eff.call(), None
        except Exception as e:  # delivered to the fiber
            value, exc = None, e
        rt.completions.append((fib, eff, value, exc))

    def poll_token(self, eff: Any, now: float) -> Any:
        return ("TIMEOUT",)  # nobody can answer a token in TestState

    def heartbeat_due(self, eff: Any) -> float:
        return time.time()

    def fiber_events(self, arn: str, key: str) -> list[Event]:
        return [e for e in self.events if e.fiber == key or e.fiber.startswith(key + ".")]

    def terminate(self, arn: str, event_type: str, status: str, error: str | None, cause: str | None,
                  **_: Any) -> bool:
        self.closed = (error, cause)
        return True

    def insert_token(self, conn: Any, token: str, arn: str, ts: float) -> None:
        return None  # nothing persists

    def time_out_token(self, conn: Any, token: str) -> None:
        return None


def run_test_state(engine: Any, account: str, region: str, state: dict[str, Any], name: str, role_arn: str,
                   state_input: Any, variables: dict[str, Any], query_language: str) -> dict[str, Any]:
    inline = _InlineEngine(engine)
    now = time.time()
    row = {
        "arn": f"arn:aws:states:{region}:{account}:execution:TestStateMachine:{uuid.uuid4()}",
        "sm_arn": f"arn:aws:states:{region}:{account}:stateMachine:TestStateMachine", "account": account,
        "region": region, "name": "TestState", "input": json.dumps(state_input), "start": now,
        "role_arn": role_arn, "redrive_count": 0, "definition": json.dumps({"StartAt": name, "States": {}}),
    }
    inline.events.append(Event(1, 0, "ExecutionStarted", now, None, "r"))
    tested = {k: v for k, v in state.items() if k != "Retry"}
    outcome: dict[str, Any] = {}

    def root(rt: Runtime) -> Generator[Any, Any, None]:
        rt.emit("r", "ExecutionStarted", None, update=False)
        scope = Scope(rt, "r", dict(variables), query_language, HANDLERS)
        try:
            outcome["next"], outcome["output"] = yield from HANDLERS[state["Type"]](scope, name, tested, state_input)
        except StatesError as e:
            outcome["error"], outcome["cause"] = e.error or None, e.cause or None
        outcome["variables"] = scope.variables

    rt = Runtime(inline, row, History(list(inline.events)), root)
    rt.deadline = now + TEST_STATE_LIMIT_S
    while rt.drive() == "inflight":
        pass
    if inline.closed is not None and "error" not in outcome:
        outcome["error"], outcome["cause"] = inline.closed
    return _result(state, state_input, outcome, inline.events)


def _result(state: dict[str, Any], state_input: Any, outcome: dict[str, Any], events: list[Event]) -> dict[str, Any]:
    failure = next((e for e in events if e.type in FAILURE_EVENTS), None)
    error = outcome.get("error") or ((failure.details or {}).get("error") if failure else None)
    cause = outcome.get("cause") or ((failure.details or {}).get("cause") if failure else None)
    inspection: dict[str, Any] = {"input": json.dumps(state_input, separators=(",", ":"))}
    succeeded = next((e for e in events if e.type in ("TaskSucceeded", "LambdaFunctionSucceeded")), None)
    if succeeded is not None and succeeded.details:
        inspection["result"] = succeeded.details.get("output")
    if outcome.get("variables"):
        inspection["variables"] = json.dumps(outcome["variables"], separators=(",", ":"))
    out: dict[str, Any] = {}
    retriable = failure is not None and any(
        error_matches(r.get("ErrorEquals", []), error or "") and r.get("MaxAttempts", 3) > 0
        for r in state.get("Retry", []))
    if retriable:
        out.update({"error": error, "cause": cause, "status": "RETRIABLE"})
    elif "error" in outcome or ("output" not in outcome):
        out.update({k: v for k, v in (("error", error), ("cause", cause)) if v is not None})
        out["status"] = "FAILED"
    else:
        out["output"] = json.dumps(outcome["output"], separators=(",", ":"))
        if outcome.get("next"):
            out["nextState"] = outcome["next"]
        if failure is not None:
            out.update({k: v for k, v in (("error", error), ("cause", cause)) if v is not None})
            out["status"] = "CAUGHT_ERROR"
        else:
            inspection["afterResultPath"] = out["output"]
            out["status"] = "SUCCEEDED"
    out["inspectionData"] = inspection
    return out


__all__ = ["run_test_state"]
