"""Step Functions answers compared with AWS's recordings (LocalStack's AWS-validated snapshots,
tests/aws/services/stepfunctions/v2/**.snapshot.json) and with Jackson's number form, end to end
through boto3."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from sfn_setup import finished, states_role


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    return states_role(aws, "sfnrec")


def _run(aws: Callable[..., Any], role: str, definition: dict[str, Any], data: Any | str) -> tuple[
        dict[str, Any], list[dict[str, Any]]]:
    sfn = aws("stepfunctions")
    arn = sfn.create_state_machine(name=f"rec-{uuid.uuid4().hex[:10]}", definition=json.dumps(definition),
                                   roleArn=role)["stateMachineArn"]
    text = data if isinstance(data, str) else json.dumps(data)
    ex = sfn.start_execution(stateMachineArn=arn, input=text)["executionArn"]
    described = finished(sfn, ex)
    events = sfn.get_execution_history(executionArn=ex, maxResults=1000)["events"]
    return described, events


def _details(event: dict[str, Any]) -> dict[str, Any]:
    key = next(k for k in event if k.endswith("EventDetails"))
    value: dict[str, Any] = event[key]
    return value


# --------------------------------------------------------------------------- numbers as Jackson writes them
def test_doubles_in_state_data_are_written_as_java_writes_them(aws: Callable[..., Any], role: str) -> None:
    """Jackson writes a double with Java's Double.toString (UNCONFIRMED against an AWS recording)."""
    definition = {"StartAt": "Same", "States": {
        "Same": {"Type": "Pass", "Next": "Text"},
        "Text": {"Type": "Pass", "Parameters": {"text.$": "States.JsonToString($.v)"}, "End": True}}}
    raw = '{"v": [0.0000001, 1e21, 12345678.5, 0.0005, 2.5, 1000000.0, 7], "s": "1e-07"}'
    described, events = _run(aws, role, definition, raw)
    same = '{"v":[1.0E-7,1.0E21,1.23456785E7,5.0E-4,2.5,1000000.0,7],"s":"1e-07"}'
    assert described["status"] == "SUCCEEDED"
    assert described["input"] == raw  # the execution's input is kept as it was given
    assert described["output"] == '{"text":"[1.0E-7,1.0E21,1.23456785E7,5.0E-4,2.5,1000000.0,7]"}'
    entered = next(e for e in events if e["type"] == "PassStateEntered")
    assert _details(entered)["input"] == same
    exited = next(e for e in events if e["type"] == "PassStateExited")
    assert _details(exited)["output"] == same
