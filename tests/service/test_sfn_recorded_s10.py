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

INVOKE = json.dumps({"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Action": "lambda:InvokeFunction", "Resource": "*"}]})


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    arn = states_role(aws, "sfnrec")
    aws("iam").put_role_policy(RoleName=arn.rsplit("/", 1)[1], PolicyName="invoke", PolicyDocument=INVOKE)
    return arn


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


# --------------------------------------------------------------------------- timeouts (test_timeouts.snapshot.json)
def test_global_timeout_is_described_as_aws_records_it(aws: Callable[..., Any], role: str) -> None:
    """test_global_timeout: a Wait of a minute under TimeoutSeconds 1 ends TIMED_OUT, redrivable,
    with neither error nor cause in DescribeExecution."""
    definition = {"TimeoutSeconds": 1, "StartAt": "W", "States": {"W": {"Type": "Wait", "Seconds": 60, "End": True}}}
    described, _ = _run(aws, role, definition, "{}")
    assert described["status"] == "TIMED_OUT"
    assert described["redriveCount"] == 0 and described["redriveStatus"] == "REDRIVABLE"
    assert described["input"] == "{}" and described["inputDetails"] == {"included": True}
    assert "error" not in described and "cause" not in described and "output" not in described


SLOW = "import time\n\ndef handler(event, context):\n    time.sleep(30)\n    return event\n"


def test_timeout_seconds_path_on_a_service_task_is_recorded_as_aws_records_it(aws: Callable[..., Any],
                                                                              role: str) -> None:
    """test_fixed_timeout_service_lambda_with_path: the path's value is the TaskScheduled
    timeoutInSeconds, and the task times out with States.Timeout and no cause."""
    from lambda_setup import lambda_role, zip_of

    name = f"slow-{uuid.uuid4().hex[:8]}"
    aws("lambda").create_function(FunctionName=name, Runtime="python3.12", Role=lambda_role(aws, "slow"),
                                  Handler="app.handler", Code={"ZipFile": zip_of(SLOW)}, Timeout=60)
    definition = {"StartAt": "Start", "States": {"Start": {
        "Type": "Task", "Resource": "arn:aws:states:::lambda:invoke", "TimeoutSecondsPath": "$.TimeoutSecondsValue",
        "Parameters": {"FunctionName.$": "$.FunctionName", "Payload.$": "$.Payload"}, "End": True}}}
    described, events = _run(aws, role, definition, {"TimeoutSecondsValue": 1, "FunctionName": name, "Payload": None})
    assert (described["status"], described.get("error")) == ("FAILED", "States.Timeout"), described.get("cause")
    assert [e["type"] for e in events] == ["ExecutionStarted", "TaskStateEntered", "TaskScheduled", "TaskStarted",
                                           "TaskTimedOut", "ExecutionFailed"]
    assert [e["previousEventId"] for e in events] == [0, 0, 2, 3, 4, 5]
    scheduled = events[2]["taskScheduledEventDetails"]
    assert json.loads(scheduled["parameters"]) == {"FunctionName": name, "Payload": None}
    assert (scheduled["resource"], scheduled["resourceType"], scheduled["timeoutInSeconds"]) == ("invoke", "lambda", 1)
    assert events[3]["taskStartedEventDetails"] == {"resource": "invoke", "resourceType": "lambda"}
    assert events[4]["taskTimedOutEventDetails"] == {"error": "States.Timeout", "resource": "invoke",
                                                      "resourceType": "lambda"}
    assert events[5]["executionFailedEventDetails"] == {"error": "States.Timeout"}


# --------------------------------------------------------------------------- Assign (test_assign_base.snapshot.json)
INPUT = {"input_value": "input_value_literal"}


def test_an_empty_assign_records_no_assigned_variables(aws: Callable[..., Any], role: str) -> None:
    """test_base_cases[BASE_EMPTY]: `"Assign": {}` leaves PassStateExited as a Pass without Assign."""
    definition = {"StartAt": "State0", "States": {"State0": {"Type": "Pass", "Assign": {}, "End": True}}}
    _, events = _run(aws, role, definition, INPUT)
    assert [e["type"] for e in events] == ["ExecutionStarted", "PassStateEntered", "PassStateExited",
                                           "ExecutionSucceeded"]
    assert events[2]["stateExitedEventDetails"] == {
        "name": "State0", "output": '{"input_value":"input_value_literal"}', "outputDetails": {"truncated": False}}


def test_assigned_paths_are_recorded_as_aws_records_them(aws: Callable[..., Any], role: str) -> None:
    """test_base_cases[BASE_PATHS]: each assigned value is its own JSON text."""
    definition = {"StartAt": "State0", "States": {"State0": {"Type": "Pass", "End": True, "Assign": {
        "str_path_root.$": "$", "str_path.$": "$.input_value", "str_contextpath.$": "$$.Execution.Id",
        "str_intrinsic_func.$": "States.Format('Format Func {}', $.input_value)"}}}}
    _, events = _run(aws, role, definition, INPUT)
    exited = events[2]["stateExitedEventDetails"]
    assert exited["assignedVariablesDetails"] == {"truncated": False}
    assigned = exited["assignedVariables"]
    assert assigned["str_path_root"] == '{"input_value":"input_value_literal"}'
    assert assigned["str_path"] == '"input_value_literal"'
    assert assigned["str_intrinsic_func"] == '"Format Func input_value_literal"'
    assert json.loads(assigned["str_contextpath"]).startswith("arn:aws:states:")


def test_branches_see_the_variables_assigned_before_the_parallel(aws: Callable[..., Any], role: str) -> None:
    """test_base_parallel_cases[BASE_SCOPE_PARALLEL]: each branch reads `$x` from the outer scope
    (the recording orders branch events with LocalStack's transformer, so only the values are held)."""
    def branch(name: str) -> dict[str, Any]:
        return {"StartAt": name, "States": {name: {"Type": "Pass", "Assign": {"innerX.$": "$x", "value.$": "$"},
                                                   "End": True}}}
    definition = {"StartAt": "State0", "States": {
        "State0": {"Type": "Pass", "Assign": {"x": 42}, "Next": "State1"},
        "State1": {"Type": "Parallel", "End": True, "Branches": [branch("Branch1"), branch("Branch21"),
                                                                 branch("Branch31")]}}}
    described, events = _run(aws, role, definition, {})
    assert described["output"] == "[{},{},{}]"
    exits = {e["stateExitedEventDetails"]["name"]: e["stateExitedEventDetails"] for e in events
             if e["type"] == "PassStateExited"}
    assert exits["State0"]["assignedVariables"] == {"x": "42"}
    for name in ("Branch1", "Branch21", "Branch31"):
        assert exits[name]["assignedVariables"] == {"innerX": "42", "value": "{}"}
        assert exits[name]["output"] == "{}"
