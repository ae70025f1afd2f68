"""Retry and Catch: what a state does with an error (shared by Task, Map and Parallel)."""

from __future__ import annotations

import random
from typing import Any

from onceflow.sfn.asl.paths import apply_result_path
from onceflow.sfn.asl.retry import error_matches, retry_delay_seconds
from onceflow.sfn.engine.effects import Fx, Sleep
from onceflow.sfn.engine.events import Event
from onceflow.sfn.engine.states.common import (
    Scope,
    assign,
    exit_state,
    jsonata_value,
    states_binding,
)
from onceflow.sfn.engine.states.program import Failure


def _matches(error_equals: list[str], error: str | None) -> bool:
    return error_matches(error_equals, error or "")


def _delay(retrier: dict[str, Any], attempt: int, seed: str) -> float:
    # Jitter seeded by execution and event, so a replay computes the same wake-up.
    return retry_delay_seconds(retrier, attempt, random.Random(seed))


def maybe_retry(scope: Scope, state: dict[str, Any], error: str | None, counts: list[int],
                failed: Event | None) -> Fx:
    """Sleep the backoff and return True when a retrier takes the error."""
    for i, retrier in enumerate(state.get("Retry", [])):
        if not _matches(retrier.get("ErrorEquals", []), error):
            continue
        if counts[i] >= retrier.get("MaxAttempts", 3):
            return False
        counts[i] += 1
        ref = failed.ts if failed is not None else scope.rt.last_ts
        seconds = _delay(retrier, counts[i], f"{scope.rt.arn}|{scope.fiber}|{failed.id if failed else 0}")
        yield Sleep(scope.rt.wait_due(ref, ref + seconds))
        return True
    return False


def catch(scope: Scope, state: dict[str, Any], name: str, raw: Any, ctx: dict[str, Any], ql: str,
          error: str | None, cause: str | None, type_: str) -> tuple[str, Any]:
    """The first matching catcher's (next, output), after <Type>StateExited; else raise Failure."""
    for catcher in state.get("Catch", []):
        if not _matches(catcher.get("ErrorEquals", []), error):
            continue
        error_output: dict[str, Any] = {}
        if error is not None:
            error_output["Error"] = error
        if cause is not None:
            error_output["Cause"] = cause
        variables = scope.variables
        if ql == "JSONata":
            states = states_binding(raw, ctx, error_output=error_output)
            assigned = assign(catcher, ql, error_output, ctx, variables, states)
            output = jsonata_value(catcher["Output"], states, variables, "Output") if "Output" in catcher \
                else error_output
        else:
            assigned = assign(catcher, ql, error_output, ctx, variables, None)
            output = apply_result_path(catcher.get("ResultPath", "$"), raw, error_output)
        output = exit_state(scope, type_, name, output, assigned)
        return catcher["Next"], output
    raise Failure(error, cause)


def handle_error(scope: Scope, state: dict[str, Any], name: str, raw: Any, ctx: dict[str, Any], ql: str,
                 error: str | None, cause: str | None, counts: list[int], failed: Event | None,
                 type_: str = "Task") -> Fx:
    """Retry (returns None after the backoff), Catch (returns (next, output)) or raise Failure."""
    if (yield from maybe_retry(scope, state, error, counts, failed)):
        return None
    return catch(scope, state, name, raw, ctx, ql, error, cause, type_)
