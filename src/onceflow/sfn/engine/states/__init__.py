"""State handlers by type, and the root program of an execution."""

from __future__ import annotations

import logging
from collections.abc import Generator
from typing import Any

from onceflow.sfn.asl.errors import StatesError
from onceflow.sfn.engine import events as ev
from onceflow.sfn.engine.runner import Runtime
from onceflow.sfn.engine.states.common import Handler, Scope, data_limit, too_large
from onceflow.sfn.engine.states.fanout import map_state, parallel_state
from onceflow.sfn.engine.states.program import (
    choice_state,
    fail_state,
    pass_state,
    run_program,
    succeed_state,
    wait_state,
)
from onceflow.sfn.engine.states.task import task_state

log = logging.getLogger(__name__)

HANDLERS: dict[str, Handler] = {
    "Pass": pass_state,
    "Choice": choice_state,
    "Wait": wait_state,
    "Succeed": succeed_state,
    "Fail": fail_state,
    "Task": task_state,
    "Map": map_state,
    "Parallel": parallel_state,
}


def run_execution(rt: Runtime) -> Generator[Any, Any, None]:
    """The root fiber: ExecutionStarted, the program, then the terminal event."""
    rt.emit("r", "ExecutionStarted", None, update=False)
    machine = rt.machine
    scope = Scope(rt, "r", {}, machine.query_language, HANDLERS)
    details: dict[str, Any] | None
    try:
        output = yield from run_program(scope, machine.program, rt.exec_input)
    except StatesError as e:
        details = ev.error_cause(e.error or None, e.cause or None)
    except Exception:
        log.exception("execution %s failed inside the engine", rt.arn)
        details = {"error": "States.Runtime", "cause": "An internal error occurred while running the execution."}
    else:
        details = None
    if details is not None:
        rt.emit("r", "ExecutionFailed", details)
        rt.final = {"status": "FAILED", "error": details.get("error"), "cause": details.get("cause")}
        return
    out = scope.encoded(output)
    if too_large(out):
        err = data_limit("execution")
        rt.emit("r", "ExecutionFailed", {"error": err.error, "cause": err.cause})
        rt.final = {"status": "FAILED", "error": err.error, "cause": err.cause}
        return
    rt.emit("r", "ExecutionSucceeded", {"output": out, "outputDetails": {"truncated": False}})
    rt.final = {"status": "SUCCEEDED", "output": out}
