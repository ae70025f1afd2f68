"""Nested executions through boto3: states:startExecution, .sync, .sync:2 and .waitForTaskToken."""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest

TRUST = json.dumps({"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "states.amazonaws.com"}, "Action": "sts:AssumeRole"}]})
ALLOW_ALL = json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]})
CHILD_OK = {"StartAt": "Double", "States": {"Double": {
    "Type": "Pass", "Parameters": {"doubled.$": "States.MathAdd($.n, $.n)"}, "End": True}}}
CHILD_FAILS = {"StartAt": "Boom", "States": {"Boom": {"Type": "Fail", "Error": "Child.Broke", "Cause": "on purpose"}}}


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    iam = aws("iam")
    name = f"sfn-nested-{uuid.uuid4().hex[:8]}"
    arn = iam.create_role(RoleName=name, AssumeRolePolicyDocument=TRUST)["Role"]["Arn"]
    iam.put_role_policy(RoleName=name, PolicyName="all", PolicyDocument=ALLOW_ALL)
    return arn


@pytest.fixture(scope="module")
def sfn(aws: Callable[..., Any]) -> Any:
    return aws("stepfunctions")


def create(sfn: Any, role: str, definition: dict[str, Any]) -> str:
    return sfn.create_state_machine(name=f"nest-{uuid.uuid4().hex[:10]}", definition=json.dumps(definition),
                                    roleArn=role)["stateMachineArn"]


def wait_done(sfn: Any, arn: str) -> dict[str, Any]:
    deadline = time.time() + 60
    while (d := sfn.describe_execution(executionArn=arn))["status"] == "RUNNING":
        assert time.time() < deadline
        time.sleep(0.05)
    return d


def parent(child: str, resource: str, extra_input: dict[str, Any] | None = None, **task: Any) -> dict[str, Any]:
    state = {"Type": "Task", "Resource": resource, "Parameters": {
        "StateMachineArn": child,
        "Input": {"n": 21, "AWS_STEP_FUNCTIONS_STARTED_BY_EXECUTION_ID.$": "$$.Execution.Id", **(extra_input or {})}},
        "End": True, **task}
    return {"StartAt": "Child", "States": {"Child": state}}


def run(sfn: Any, role: str, definition: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    sm = create(sfn, role, definition)
    arn = sfn.start_execution(stateMachineArn=sm, input="{}")["executionArn"]
    return arn, wait_done(sfn, arn)


def types(sfn: Any, arn: str) -> list[str]:
    return [e["type"] for e in sfn.get_execution_history(executionArn=arn)["events"]]


def test_sync_2_waits_for_the_child_and_parses_its_output(sfn: Any, role: str) -> None:
    child = create(sfn, role, CHILD_OK)
    arn, d = run(sfn, role, parent(child, "arn:aws:states:::states:startExecution.sync:2"))
    assert d["status"] == "SUCCEEDED"
    out = json.loads(d["output"])
    assert out["Output"] == {"doubled": 42}
    assert out["Input"] == {"n": 21, "AWS_STEP_FUNCTIONS_STARTED_BY_EXECUTION_ID": arn}
    assert out["Status"] == "SUCCEEDED" and out["StateMachineArn"] == child
    assert isinstance(out["StartDate"], int) and isinstance(out["StopDate"], int)
    child_exec = sfn.describe_execution(executionArn=out["ExecutionArn"])
    assert json.loads(child_exec["input"])["AWS_STEP_FUNCTIONS_STARTED_BY_EXECUTION_ID"] == arn
    assert types(sfn, arn) == ["ExecutionStarted", "TaskStateEntered", "TaskScheduled", "TaskStarted",
                               "TaskSubmitted", "TaskSucceeded", "TaskStateExited", "ExecutionSucceeded"]
    submitted = next(e for e in sfn.get_execution_history(executionArn=arn)["events"]
                     if e["type"] == "TaskSubmitted")["taskSubmittedEventDetails"]
    assert (submitted["resourceType"], submitted["resource"]) == ("states", "startExecution.sync:2")
    assert json.loads(submitted["output"])["ExecutionArn"] == out["ExecutionArn"]


def test_sync_keeps_input_and_output_as_text(sfn: Any, role: str) -> None:
    child = create(sfn, role, CHILD_OK)
    _, d = run(sfn, role, parent(child, "arn:aws:states:::states:startExecution.sync"))
    out = json.loads(d["output"])
    assert out["Output"] == '{"doubled":42}'
    assert json.loads(out["Input"])["n"] == 21
    assert out["OutputDetails"] == {"Included": True}


def test_plain_start_answers_at_once_with_the_child_arn(sfn: Any, role: str) -> None:
    child = create(sfn, role, {"StartAt": "W", "States": {"W": {"Type": "Wait", "Seconds": 3600, "End": True}}})
    _, d = run(sfn, role, parent(child, "arn:aws:states:::states:startExecution"))
    assert d["status"] == "SUCCEEDED"
    out = json.loads(d["output"])
    assert list(out) == ["ExecutionArn", "SdkHttpMetadata", "SdkResponseMetadata", "StartDate"]
    assert isinstance(out["StartDate"], int)
    assert list(out["SdkHttpMetadata"]["HttpHeaders"]) == ["connection", "Content-Length", "Content-Type", "Date",
                                                           "x-amzn-RequestId"]
    assert sfn.describe_execution(executionArn=out["ExecutionArn"])["status"] == "RUNNING"  # not waited for
    sfn.stop_execution(executionArn=out["ExecutionArn"])


def test_stopping_a_sync_parent_stops_the_child_it_waits_on(sfn: Any, role: str) -> None:
    child = create(sfn, role, {"StartAt": "W", "States": {"W": {"Type": "Wait", "Seconds": 3600, "End": True}}})
    sm = create(sfn, role, parent(child, "arn:aws:states:::states:startExecution.sync"))
    arn = sfn.start_execution(stateMachineArn=sm, input="{}")["executionArn"]
    deadline = time.time() + 30
    while "TaskSubmitted" not in types(sfn, arn):
        assert time.time() < deadline
        time.sleep(0.05)
    child_arn = sfn.list_executions(stateMachineArn=child)["executions"][0]["executionArn"]
    sfn.stop_execution(executionArn=arn)
    d = wait_done(sfn, child_arn)
    assert d["status"] == "ABORTED"
    assert d["cause"] == (f"The Task state in AWS Step Functions execution [{arn}] which was managing this "
                          "resource was aborted")


def test_a_sync_task_that_times_out_stops_its_child(sfn: Any, role: str) -> None:
    child = create(sfn, role, {"StartAt": "W", "States": {"W": {"Type": "Wait", "Seconds": 3600, "End": True}}})
    definition = parent(child, "arn:aws:states:::states:startExecution.sync:2", TimeoutSeconds=1,
                        Catch=[{"ErrorEquals": ["States.Timeout"], "Next": "Caught"}])
    definition["States"]["Caught"] = {"Type": "Pass", "End": True}
    arn, d = run(sfn, role, definition)
    assert d["status"] == "SUCCEEDED"  # the parent goes on past its caught timeout
    child_arn = sfn.list_executions(stateMachineArn=child)["executions"][0]["executionArn"]
    stopped = wait_done(sfn, child_arn)
    assert stopped["status"] == "ABORTED"
    assert stopped["cause"] == (f"The Task state in AWS Step Functions execution [{arn}] which was managing this "
                                "resource was aborted")


def test_a_failing_child_fails_the_sync_task(sfn: Any, role: str) -> None:
    child = create(sfn, role, CHILD_FAILS)
    _, d = run(sfn, role, parent(child, "arn:aws:states:::states:startExecution.sync:2"))
    assert (d["status"], d["error"]) == ("FAILED", "States.TaskFailed")
    cause = json.loads(d["cause"])
    assert (cause["Status"], cause["Error"], cause["Cause"]) == ("FAILED", "Child.Broke", "on purpose")


def test_wait_for_task_token_takes_the_answer_sent_with_the_token(sfn: Any, role: str) -> None:
    child = create(sfn, role, {"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}})
    sm = create(sfn, role, parent(child, "arn:aws:states:::states:startExecution.waitForTaskToken",
                                  {"token.$": "$$.Task.Token"}))
    arn = sfn.start_execution(stateMachineArn=sm, input="{}")["executionArn"]
    deadline = time.time() + 30
    while not (children := sfn.list_executions(stateMachineArn=child)["executions"]):
        assert time.time() < deadline
        time.sleep(0.05)
    token = json.loads(sfn.describe_execution(executionArn=children[0]["executionArn"])["input"])["token"]
    sfn.send_task_success(taskToken=token, output='{"answer": "yes"}')
    d = wait_done(sfn, arn)
    assert d["status"] == "SUCCEEDED"
    assert json.loads(d["output"]) == {"answer": "yes"}


def test_a_missing_child_machine_is_a_catchable_task_error(sfn: Any, role: str) -> None:
    missing = "arn:aws:states:us-east-1:000000000000:stateMachine:no-such-machine"
    definition = parent(missing, "arn:aws:states:::states:startExecution.sync", Catch=[
        {"ErrorEquals": ["StepFunctions.StateMachineDoesNotExistException"], "Next": "Caught"}])
    definition["States"]["Caught"] = {"Type": "Pass", "End": True}
    _, d = run(sfn, role, definition)
    assert d["status"] == "SUCCEEDED"
    out = json.loads(d["output"])
    assert out["Error"] == "StepFunctions.StateMachineDoesNotExistException"  # the Java SDK's class name
    expected = re.escape(f"State Machine Does Not Exist: '{missing}' (Service: AWSStepFunctions; Status Code: 400; "
                         "Error Code: StateMachineDoesNotExist; Request ID: ") + r"[0-9a-f-]{36}; Proxy: null\)"
    assert re.fullmatch(expected, out["Cause"])  # as AWS records


def test_a_sync_parent_gets_its_childs_end_after_a_restart(server_factory: Callable[..., Any],
                                                            tmp_path: Any) -> None:
    data = tmp_path / "data"
    server = server_factory(data)
    sfn, iam = server.client("stepfunctions"), server.client("iam")
    role = iam.create_role(RoleName="nest-restart", AssumeRolePolicyDocument=TRUST)["Role"]["Arn"]
    iam.put_role_policy(RoleName="nest-restart", PolicyName="all", PolicyDocument=ALLOW_ALL)
    child = create(sfn, role, {"StartAt": "W", "States": {"W": {"Type": "Wait", "Seconds": 2, "Next": "Double"},
                                                        "Double": CHILD_OK["States"]["Double"]}})
    sm = create(sfn, role, parent(child, "arn:aws:states:::states:startExecution.sync:2"))
    arn = sfn.start_execution(stateMachineArn=sm, input="{}")["executionArn"]
    deadline = time.time() + 30
    while "TaskSubmitted" not in types(sfn, arn):
        assert time.time() < deadline
        time.sleep(0.05)
    server.stop()  # the child is in its Wait
    server = server_factory(data)
    sfn = server.client("stepfunctions")
    d = wait_done(sfn, arn)
    assert d["status"] == "SUCCEEDED"
    assert json.loads(d["output"])["Output"] == {"doubled": 42}
