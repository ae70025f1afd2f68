"""Integrations said plainly: a Task resource onceflow does not run is accepted as AWS accepts it,
logged once, and fails its task with States.TaskFailed naming the resource (never States.Runtime);
a lambda:invoke result carries the invocation's own request id, as on AWS."""

from __future__ import annotations

import io
import json
import time
import uuid
import zipfile
from collections.abc import Callable
from typing import Any

import pytest

from serverproc import ServerProcess

TRUST = json.dumps({"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": ["states.amazonaws.com", "lambda.amazonaws.com"]},
     "Action": "sts:AssumeRole"}]})
ALLOW_ALL = json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]})
NOT_RUN = [
    "arn:aws:states:::ecs:runTask",
    "arn:aws:states:::aws-sdk:ec2:describeInstances",
]


@pytest.fixture(scope="module")
def role_arn(aws: Callable[..., Any]) -> str:
    iam = aws("iam")
    name = f"plain-{uuid.uuid4().hex[:8]}"
    arn = iam.create_role(RoleName=name, AssumeRolePolicyDocument=TRUST)["Role"]["Arn"]
    iam.put_role_policy(RoleName=name, PolicyName="all", PolicyDocument=ALLOW_ALL)
    return arn


def wait_done(sfn: Any, arn: str) -> dict[str, Any]:
    deadline = time.time() + 60
    while (d := sfn.describe_execution(executionArn=arn))["status"] == "RUNNING":
        assert time.time() < deadline
        time.sleep(0.05)
    return d


def run(sfn: Any, role_arn: str, definition: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    sm = sfn.create_state_machine(name=f"plain-{uuid.uuid4().hex[:8]}", definition=json.dumps(definition),
                                  roleArn=role_arn)["stateMachineArn"]
    arn = sfn.start_execution(stateMachineArn=sm, input="{}")["executionArn"]
    d = wait_done(sfn, arn)
    return d, sfn.get_execution_history(executionArn=arn)["events"]


@pytest.mark.parametrize("resource", NOT_RUN)
def test_a_resource_onceflow_does_not_run_fails_its_task_plainly(aws: Callable[..., Any], role_arn: str,
                                                                 resource: str) -> None:
    sfn = aws("stepfunctions")
    d, events = run(sfn, role_arn, {"StartAt": "T", "States": {"T": {"Type": "Task", "Resource": resource,
                                                                     "End": True}}})
    assert (d["status"], d["error"]) == ("FAILED", "States.TaskFailed")
    assert d["cause"].startswith(f"onceflow does not run the Task resource '{resource}'.")
    assert [e["type"] for e in events] == ["ExecutionStarted", "TaskStateEntered", "TaskScheduled", "TaskStartFailed",
                                           "ExecutionFailed"]
    failed = events[3]["taskStartFailedEventDetails"]
    assert (failed["error"], failed["cause"]) == ("States.TaskFailed", d["cause"])


def test_catch_takes_the_failure(aws: Callable[..., Any], role_arn: str) -> None:
    sfn = aws("stepfunctions")
    d, _ = run(sfn, role_arn, {"StartAt": "T", "States": {
        "T": {"Type": "Task", "Resource": NOT_RUN[0], "Parameters": {"QueueUrl": "q", "MessageBody": "m"},
              "Catch": [{"ErrorEquals": ["States.TaskFailed"], "Next": "Handled"}], "End": True},
        "Handled": {"Type": "Pass", "End": True}}})
    assert d["status"] == "SUCCEEDED"
    assert json.loads(d["output"])["Error"] == "States.TaskFailed"


def test_the_server_log_says_it_once(server: ServerProcess, aws: Callable[..., Any], role_arn: str) -> None:
    sfn = aws("stepfunctions")
    resource = f"arn:aws:states:::aws-sdk:glacier:{'x' + uuid.uuid4().hex[:8]}"  # an action no other test names
    definition = json.dumps({"StartAt": "T", "States": {"T": {"Type": "Task", "Resource": resource, "End": True}}})
    for _ in range(2):
        sfn.create_state_machine(name=f"plain-{uuid.uuid4().hex[:8]}", definition=definition, roleArn=role_arn)
    lines = [line for line in server.log().splitlines() if resource in line]
    assert len(lines) == 1 and "onceflow does not run" in lines[0] and "States.TaskFailed" in lines[0]


def test_lambda_invoke_carries_the_invocations_request_id(aws: Callable[..., Any], role_arn: str) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("fn.py", "def handler(event, context):\n    print('hello')\n    return context.aws_request_id\n")
    lam, logs = aws("lambda"), aws("logs")
    name = f"plain-{uuid.uuid4().hex[:8]}"
    fn = lam.create_function(FunctionName=name, Runtime="python3.12", Role=role_arn, Handler="fn.handler",
                             Code={"ZipFile": buf.getvalue()})["FunctionArn"]
    lam.get_waiter("function_active_v2").wait(FunctionName=name)
    sfn = aws("stepfunctions")
    d, _ = run(sfn, role_arn, {"StartAt": "T", "States": {"T": {
        "Type": "Task", "Resource": "arn:aws:states:::lambda:invoke", "Parameters": {"FunctionName": fn},
        "End": True}}})
    out = json.loads(d["output"])
    rid = out["Payload"]  # context.aws_request_id inside the handler
    assert out["SdkResponseMetadata"]["RequestId"] == rid
    assert out["SdkHttpMetadata"]["HttpHeaders"]["x-amzn-RequestId"] == rid
    assert out["SdkHttpMetadata"]["AllHttpHeaders"]["x-amzn-RequestId"] == [rid]
    deadline = time.time() + 30  # Lambda ships its log lines in the background
    while not any(e["message"].startswith(f"START RequestId: {rid} ")
                  for e in logs.filter_log_events(logGroupName=f"/aws/lambda/{name}")["events"]):
        assert time.time() < deadline, "no START line with the task's request id"
        time.sleep(0.05)


def test_the_console_pairs_interleaved_map_attempts(aws: Callable[..., Any], role_arn: str) -> None:
    """Two Map iterations run one Task state at once; the first fails (caught) after the second has
    started: each attempt ends with its own outcome and the state shows the Catch."""
    from onceflow.console import history as console_history

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("fn.py", "import time\ndef handler(event, context):\n    if event['i'] == 0:\n"
                            "        time.sleep(1)\n        raise ValueError('boom')\n    return event['i']\n")
    lam = aws("lambda")
    name = f"plain-{uuid.uuid4().hex[:8]}"
    fn = lam.create_function(FunctionName=name, Runtime="python3.12", Role=role_arn, Handler="fn.handler",
                             Code={"ZipFile": buf.getvalue()})["FunctionArn"]
    lam.get_waiter("function_active_v2").wait(FunctionName=name)
    task = {"Type": "Task", "Resource": "arn:aws:states:::lambda:invoke",
            "Parameters": {"FunctionName": fn, "Payload": {"i.$": "$"}}, "End": True,
            "Catch": [{"ErrorEquals": ["ValueError"], "Next": "Handled"}]}
    sfn = aws("stepfunctions")
    sm = sfn.create_state_machine(name=f"plain-{uuid.uuid4().hex[:8]}", roleArn=role_arn, definition=json.dumps(
        {"StartAt": "Each", "States": {"Each": {
            "Type": "Map", "ItemsPath": "$.items", "MaxConcurrency": 2, "End": True,
            "ItemProcessor": {"StartAt": "T", "States": {"T": task, "Handled": {"Type": "Pass", "End": True}}}}}}))
    arn = sfn.start_execution(stateMachineArn=sm["stateMachineArn"], input='{"items": [0, 1]}')["executionArn"]
    assert wait_done(sfn, arn)["status"] == "SUCCEEDED"
    events = sfn.get_execution_history(executionArn=arn, maxResults=1000)["events"]
    folded = console_history.fold(events)
    assert sorted(a.outcome for a in folded.attempts) == ["failed", "succeeded"]  # none left "running"
    assert all(a.request_id for a in folded.attempts)
    assert folded.states["T"].status == "caught" and folded.states["T"].error == "ValueError"
