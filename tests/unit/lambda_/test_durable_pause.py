"""Pausing and resuming a durable execution's record (lambda_/durable_pause.py): the timeout that
moves by the time spent paused (never past 366 days), PAUSING until the invocation's checkpoint, the
resume that invokes only when something happened meanwhile, and repeated ClientTokens."""

from __future__ import annotations

import pytest

from onceflow.errors import ServiceError
from onceflow.lambda_ import durable, durable_pause
from onceflow.lambda_.durable import Execution

FN = "arn:aws:lambda:us-east-1:000000000000:function:f"
T0 = 1_700_000_000_000
DAY = 86_400_000


def start(timeout_s: int = 60) -> Execution:
    return Execution.start(FN, ("000000000000", "us-east-1", "f"), "1", "run-1", "{}",
                           {"ExecutionTimeout": timeout_s}, T0)  # fmt: skip


def test_a_paused_timeout_moves_by_the_time_spent_paused() -> None:
    execution = start(60)
    durable_pause.pause(execution, T0 + 10_000, None, "why", True, in_flight=False)
    assert execution.status == durable.PAUSED
    assert execution.timeout_at(T0 + 100_000) == T0 + 60_000 + 90_000  # still paused: it keeps moving
    assert not execution.advance(T0 + 100_000) and execution.status == durable.PAUSED
    durable_pause.resume(execution, T0 + 100_000, None, None)
    assert execution.timeout_at(T0 + 100_000) == T0 + 150_000
    execution.advance(T0 + 150_000)
    assert execution.status == durable.TIMED_OUT


def test_an_unpaused_timeout_runs_out_while_paused() -> None:
    execution = start(60)
    durable_pause.pause(execution, T0 + 10_000, None, None, False, in_flight=False)
    execution.advance(T0 + 60_000)
    assert execution.status == durable.TIMED_OUT


def test_a_paused_timeout_still_ends_366_days_after_the_start() -> None:
    execution = start(300 * 86_400)
    durable_pause.pause(execution, T0 + DAY, None, None, True, in_flight=False)
    assert execution.timeout_at(T0 + 400 * DAY) == T0 + 366 * DAY
    assert execution.next_due() == T0 + 366 * DAY


def test_pausing_until_the_checkpoint_and_a_resume_that_invokes_again() -> None:
    execution = start()
    token = execution.envelope()["CheckpointToken"]
    durable_pause.pause(execution, T0 + 1, None, None, True, in_flight=True)
    assert execution.status == durable.PAUSING and execution.events[-1]["EventType"] == "ExecutionStarted"
    execution.checkpoint(token, [{"Id": "s", "Type": "STEP", "Action": "START"}], T0 + 2)  # still taken
    durable_pause.take_effect(execution, T0 + 2, interrupted=True)
    assert (execution.status, execution.token) == (durable.PAUSED, "")
    assert execution.events[-1]["ExecutionPausedDetails"] == {"PauseRequestTimestamp": T0 + 1,
                                                              "ExecutionTimeoutPaused": True}  # fmt: skip
    assert durable_pause.resume(execution, T0 + 3, None, "go") is True
    assert execution.events[-1]["ExecutionResumedDetails"] == {"ResumeRequestTimestamp": T0 + 3,
                                                               "Reason": {"Payload": "go"}}  # fmt: skip


def test_a_resume_invokes_only_when_something_completed_while_paused() -> None:
    execution = start()
    durable_pause.pause(execution, T0 + 1, None, None, True, in_flight=False)
    assert durable_pause.resume(execution, T0 + 2, None, None) is False
    durable_pause.pause(execution, T0 + 3, None, None, True, in_flight=False)
    execution.changed.append("cb")  # e.g. a callback completed meanwhile
    assert durable_pause.resume(execution, T0 + 4, None, None) is True


def test_the_same_client_token_is_the_same_request_and_anything_else_conflicts() -> None:
    execution = start()
    assert durable_pause.pause(execution, T0 + 1, "t", "r", True, in_flight=False)
    assert not durable_pause.pause(execution, T0 + 2, "t", "r", True, in_flight=False)
    with pytest.raises(ServiceError) as e:
        durable_pause.pause(execution, T0 + 3, "other", "r", True, in_flight=False)
    assert (e.value.code, e.value.status) == ("ResourceConflictException", 409)
    with pytest.raises(ServiceError):  # the same token past 15 minutes is a new request
        durable_pause.pause(execution, T0 + 2 + durable.IDEMPOTENCY_WINDOW_MS + 1, "t", "r", True, in_flight=False)
    execution.close(durable.STOPPED, T0 + 5)
    with pytest.raises(ServiceError):
        durable_pause.resume(execution, T0 + 6, None, None)


def test_the_pause_survives_the_records_json_form() -> None:
    execution = start()
    durable_pause.pause(execution, T0 + 1, "t", "r", False, in_flight=False)
    again = Execution.from_json(execution.to_json())
    assert (again.status, again.pause, again.controls) == (durable.PAUSED, execution.pause, execution.controls)
