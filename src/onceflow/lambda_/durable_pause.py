"""Pausing and resuming a durable execution (PauseDurableExecution, ResumeDurableExecution): the rules
on its record, pure (no I/O, no clock but the `now` given).

What the model's documentation says: while paused "Lambda doesn't invoke your function, but pending
operations such as waits and callbacks continue to complete"; with an invocation in progress the
status is PAUSING "until the invocation reaches its next checkpoint, and then changes to PAUSED";
ExecutionTimeoutPaused (default true) extends the timeout by the time spent paused, never past 366
days after the start; a resume of a PAUSING execution "cancels the pause, and the in-progress
invocation continues"; a resume of a PAUSED one invokes the function "if the pause interrupted an
invocation, or an operation completed while the execution was paused". A repeated request with the
same ClientToken and parameters within 15 minutes succeeds and changes nothing.
"""

from __future__ import annotations

from typing import Any

from onceflow.errors import ServiceError
from onceflow.lambda_ import durable, errors
from onceflow.lambda_.durable import Execution


def not_pausable(arn: str, status: str) -> ServiceError:
    # The model lists ResourceConflictException. UNCONFIRMED: the message text.
    return errors.conflict(f"Durable execution {arn} cannot be paused because its status is {status}.")


def not_resumable(arn: str, status: str) -> ServiceError:
    # UNCONFIRMED: the message text (the code is the model's ResourceConflictException).
    return errors.conflict(f"Durable execution {arn} cannot be resumed because its status is {status}.")


def _repeated(execution: Execution, action: str, client_token: str | None, params: dict[str, Any], now: int) -> bool:
    """The same ClientToken and parameters again within 15 minutes: the earlier request's success."""
    last = execution.controls.get(action)
    if not client_token or last is None or last["client"] != client_token or last["params"] != params:
        return False
    return now - int(last["at"]) <= durable.IDEMPOTENCY_WINDOW_MS


def _remember(execution: Execution, action: str, client_token: str | None, params: dict[str, Any], now: int) -> None:
    if client_token:
        execution.controls[action] = {"client": client_token, "params": params, "at": now}


def pause(execution: Execution, now: int, client_token: str | None, reason: str | None, timeout_paused: bool,
          in_flight: bool) -> bool:  # fmt: skip
    """Ask the execution to pause: PAUSING while an invocation runs, else PAUSED at once. True when
    it changed (False: a repeat of the same request)."""
    params = {"Reason": reason, "ExecutionTimeoutPaused": timeout_paused}
    if _repeated(execution, "pause", client_token, params, now):
        return False
    if execution.status != durable.RUNNING:
        raise not_pausable(execution.arn, execution.status)
    execution.pause = {"RequestedMs": now, "TimeoutPaused": timeout_paused, "PausedMs": None}
    if reason is not None:
        execution.pause["Reason"] = reason
    _remember(execution, "pause", client_token, params, now)
    if in_flight:
        execution.status = durable.PAUSING
    else:
        take_effect(execution, now, interrupted=False)
    return True


def take_effect(execution: Execution, now: int, interrupted: bool) -> None:
    """PAUSING becomes PAUSED (at the invocation's checkpoint, or at its end): the ExecutionPaused
    event, and no checkpoint token: the invocation's later checkpoints are refused."""
    pause = execution.pause or {"RequestedMs": now, "TimeoutPaused": True}
    pause["PausedMs"] = now
    execution.pause = pause
    execution.status, execution.interrupted = durable.PAUSED, interrupted
    execution.token = ""
    details: dict[str, Any] = {"PauseRequestTimestamp": pause["RequestedMs"]}
    if pause.get("Reason") is not None:
        details["Reason"] = {"Payload": pause["Reason"]}
    details["ExecutionTimeoutPaused"] = bool(pause["TimeoutPaused"])
    execution.event("ExecutionPaused", {}, now, details)


def resume(execution: Execution, now: int, client_token: str | None, reason: str | None) -> bool:
    """Resume: a PAUSING execution's pause is cancelled (its invocation goes on), a PAUSED one runs
    again. True when the handler must be invoked now (the pause interrupted an invocation, or an
    operation completed meanwhile)."""
    params = {"Reason": reason}
    if _repeated(execution, "resume", client_token, params, now):
        return False
    if execution.status not in (durable.PAUSING, durable.PAUSED):
        raise not_resumable(execution.arn, execution.status)
    _remember(execution, "resume", client_token, params, now)
    pause = execution.pause or {}
    was_paused = execution.status == durable.PAUSED
    execution.status, execution.pause = durable.RUNNING, None
    if not was_paused:  # UNCONFIRMED: a cancelled pause records no event (ExecutionPaused never happened)
        return False
    if pause.get("TimeoutPaused") and pause.get("PausedMs") is not None:
        execution.paused_total_ms += max(0, now - int(pause["PausedMs"]))
    details: dict[str, Any] = {"ResumeRequestTimestamp": now}
    if reason is not None:
        details["Reason"] = {"Payload": reason}
    execution.event("ExecutionResumed", {}, now, details)
    again = execution.interrupted or bool(execution.changed)
    execution.interrupted = False
    return again


def details(execution: Execution, with_data: bool) -> dict[str, Any] | None:
    """GetDurableExecution's PauseDetails: only while PAUSING or PAUSED; the reason only with the data."""
    pause = execution.pause
    if execution.status not in (durable.PAUSING, durable.PAUSED) or pause is None:
        return None
    out: dict[str, Any] = {"PauseRequestTimestamp": pause["RequestedMs"]}
    if with_data and pause.get("Reason") is not None:
        out["Reason"] = pause["Reason"]
    out["ExecutionTimeoutPaused"] = bool(pause["TimeoutPaused"])
    return out
