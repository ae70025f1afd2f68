"""The durable execution record (lambda_/durable.py): checkpoints applied atomically, tokens that move
on, what the service makes due by itself, and the record surviving its JSON form."""

from __future__ import annotations

from typing import Any

import pytest

from onceflow.errors import ServiceError
from onceflow.lambda_ import durable
from onceflow.lambda_.durable import Execution

FN = "arn:aws:lambda:us-east-1:000000000000:function:f"
T0 = 1_700_000_000_000


def start(**config: Any) -> Execution:
    return Execution.start(FN, ("000000000000", "us-east-1", "f"), "1", "run-1", '{"a": 1}', config, T0)


def step(op_id: str, action: str, **more: Any) -> dict[str, Any]:
    return {"Id": op_id, "Type": "STEP", "Action": action, **more}


def test_an_execution_starts_with_its_execution_operation_and_event() -> None:
    execution = start()
    assert execution.arn == f"{FN}:1/durable-execution/run-1/{execution.invocation_id}"
    [op] = execution.operations.values()
    assert (op["Type"], op["Status"], op["ExecutionDetails"]) == ("EXECUTION", "STARTED", {"InputPayload": '{"a": 1}'})
    assert execution.events[0]["EventType"] == "ExecutionStarted"
    assert execution.events[0]["ExecutionStartedDetails"]["ExecutionTimeout"] == durable.DEFAULT_EXECUTION_TIMEOUT_S
    assert execution.retention_days == durable.DEFAULT_RETENTION_DAYS


def test_each_checkpoint_consumes_its_token_and_a_stale_one_is_refused() -> None:
    execution = start()
    first = execution.envelope()["CheckpointToken"]
    execution.checkpoint(first, [step("s", "START")], T0 + 1)
    second = execution.token
    assert second != first
    with pytest.raises(ServiceError) as info:
        execution.checkpoint(first, [step("s", "SUCCEED", Payload="1")], T0 + 2)
    assert (info.value.code, info.value.message) == ("InvalidParameterValueException", "Invalid checkpoint token")
    assert execution.operations["s"]["Status"] == "STARTED"


def test_a_checkpoint_with_one_bad_update_applies_none() -> None:
    execution = start()
    token = execution.envelope()["CheckpointToken"]
    bad = [step("s", "START"), {"Id": "w", "Type": "WAIT", "Action": "SUCCEED"}]
    with pytest.raises(ServiceError) as info:
        execution.checkpoint(token, bad, T0 + 1)
    assert info.value.code == "InvalidParameterValueException"
    assert "s" not in execution.operations and execution.token == token
    assert [e["EventType"] for e in execution.events] == ["ExecutionStarted"]


def test_a_step_retry_is_pending_then_ready_at_its_time() -> None:
    execution = start()
    token = execution.envelope()["CheckpointToken"]
    execution.checkpoint(token, [step("s", "START"), step("s", "RETRY", StepOptions={"NextAttemptDelaySeconds": 5},
                                                          Error={"ErrorType": "E"})], T0)  # fmt: skip
    op = execution.operations["s"]
    assert (op["Status"], op["StepDetails"]["Attempt"], op["StepDetails"]["NextAttemptTimestamp"]) == (
        "PENDING", 1, T0 + 5000)  # fmt: skip
    assert execution.next_due() == T0 + 5000
    assert not execution.advance(T0 + 4999)
    assert execution.advance(T0 + 5000) and op["Status"] == "READY"
    assert execution.changed == ["s"]


def test_a_wait_ends_at_its_scheduled_time_with_its_event() -> None:
    execution = start()
    token = execution.envelope()["CheckpointToken"]
    [answered], _ = execution.checkpoint(token, [{"Id": "w", "Type": "WAIT", "Action": "START",
                                               "WaitOptions": {"WaitSeconds": 3}}], T0)  # fmt: skip
    assert answered["WaitDetails"] == {"ScheduledEndTimestamp": T0 + 3000}
    assert execution.advance(T0 + 3000)
    assert execution.operations["w"]["Status"] == "SUCCEEDED"
    assert execution.events[-1]["EventType"] == "WaitSucceeded"
    assert execution.events[-1]["WaitSucceededDetails"] == {"Duration": 3}


def test_a_callback_is_found_by_its_id_and_completes_once() -> None:
    execution = start()
    token = execution.envelope()["CheckpointToken"]
    [op], _ = execution.checkpoint(token, [{"Id": "c", "Type": "CALLBACK", "Action": "START"}], T0)
    arn, op_id = durable.parse_callback_id(op["CallbackDetails"]["CallbackId"])
    assert (arn, op_id) == (execution.arn, "c")
    execution.complete_callback("c", T0 + 1, '"ok"', None)
    assert execution.operations["c"]["CallbackDetails"]["Result"] == '"ok"'
    with pytest.raises(ServiceError) as info:
        execution.complete_callback("c", T0 + 2, '"again"', None)
    assert info.value.code == "CallbackTimeoutException"
    with pytest.raises(ServiceError) as bad:
        durable.parse_callback_id("not base64!")
    assert bad.value.code == "InvalidParameterValueException"


def test_the_execution_times_out_and_what_waited_is_cancelled() -> None:
    execution = start(ExecutionTimeout=10)
    token = execution.envelope()["CheckpointToken"]
    execution.checkpoint(token, [{"Id": "w", "Type": "WAIT", "Action": "START", "WaitOptions": {"WaitSeconds": 60}}],
                         T0)  # fmt: skip
    assert execution.next_due() == T0 + 10_000
    execution.advance(T0 + 10_000)
    assert execution.status == durable.TIMED_OUT and execution.token == ""
    assert execution.operations["w"]["Status"] == "CANCELLED"
    assert execution.events[-1]["EventType"] == "ExecutionTimedOut"


def test_the_record_survives_its_json_form() -> None:
    execution = start()
    token = execution.envelope()["CheckpointToken"]
    execution.checkpoint(token, [step("s", "START"), step("s", "SUCCEED", Payload='"x"')], T0)
    again = Execution.from_json(execution.to_json())
    assert again == execution and again.key == ("000000000000", "us-east-1", "f")


def test_a_retried_checkpoint_is_answered_again_within_fifteen_minutes() -> None:
    execution = start()
    first = execution.envelope()["CheckpointToken"]
    answer = execution.checkpoint(first, [step("s", "START")], T0, client_token="ct")
    events = len(execution.events)
    assert execution.checkpoint(first, [step("s", "START")], T0 + 60_000, client_token="ct") == answer
    assert len(execution.events) == events and execution.token == answer[1]  # applied once, token unmoved
    with pytest.raises(ServiceError):  # another client token: the spent token is just stale
        execution.checkpoint(first, [step("s", "START")], T0, client_token="other")
    with pytest.raises(ServiceError):  # past the window
        execution.checkpoint(first, [step("s", "START")], T0 + durable.IDEMPOTENCY_WINDOW_MS + 1, client_token="ct")
    again = Execution.from_json(execution.to_json())  # the record of it is kept with the execution
    assert again.checkpoint(first, [step("s", "START")], T0 + 1, client_token="ct") == answer
