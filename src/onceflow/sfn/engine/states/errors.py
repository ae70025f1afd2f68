"""Retry and Catch: what a state does with an error (shared by Task, Map and Parallel)."""

from __future__ import annotations

import random
from typing import Any

from onceflow.sfn.asl.nodes import State
from onceflow.sfn.asl.paths import apply_result_path
from onceflow.sfn.asl.retry import catch_output, find_catcher, find_retrier, retry_delay_seconds, should_retry
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


def maybe_retry(scope: Scope, state: State, error: str | None, counts: list[int], failed: Event | None) -> Fx:
    """Sleep the backoff and return True when a retrier takes the error."""
    i = find_retrier(state.retriers, error)
    if i is None or not should_retry(state.retriers[i], counts[i]):
        return False
    counts[i] += 1
    ref = failed.ts if failed is not None else scope.rt.last_ts
    # Jitter seeded by execution and event, so a replay computes the same wake-up.
    rng = random.Random(f"{scope.rt.arn}|{scope.fiber}|{failed.id if failed else 0}")
    seconds = retry_delay_seconds(state.retriers[i], counts[i], rng)
    yield Sleep(scope.rt.wait_due(ref, ref + seconds))
    return True


def catch(scope: Scope, state: State, name: str, raw: Any, ctx: dict[str, Any], ql: str,
          error: str | None, cause: str | None, type_: str) -> tuple[str, Any]:
    """The first matching catcher's (next, output), after <Type>StateExited; else raise Failure."""
    catcher = find_catcher(state.catchers, error)
    if catcher is None:
        raise Failure(error, cause)
    error_output = catch_output(error, cause)
    variables = scope.variables
    if ql == "JSONata":
        states = states_binding(raw, ctx, error_output=error_output)
        assigned = assign(catcher.fields, ql, error_output, ctx, variables, states)
        output = jsonata_value(catcher.fields["Output"], states, variables, "Output") if "Output" in catcher.fields \
            else error_output
    else:
        assigned = assign(catcher.fields, ql, error_output, ctx, variables, None)
        output = apply_result_path(catcher.result_path, raw, error_output)
    output = exit_state(scope, type_, name, output, assigned)
    return catcher.next, output


def handle_error(scope: Scope, state: State, name: str, raw: Any, ctx: dict[str, Any], ql: str,
                 error: str | None, cause: str | None, counts: list[int], failed: Event | None,
                 type_: str = "Task") -> Fx:
    """Retry (returns None after the backoff), Catch (returns (next, output)) or raise Failure."""
    if (yield from maybe_retry(scope, state, error, counts, failed)):
        return None
    return catch(scope, state, name, raw, ctx, ql, error, cause, type_)
