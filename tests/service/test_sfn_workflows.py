"""Definitions run end to end through boto3 (Lambda, DynamoDB and IAM for real), comparing the
whole normalized history (type, id, previousEventId and the details that matter) with the
sequence AWS documents and records for the same definitions (aws-semantics section 3)."""

from __future__ import annotations

import io
import json
import re
import time
import uuid
import zipfile
from collections.abc import Callable
from typing import Any

import pytest
from examples.orders.provision import provision

TRUST_STATES = json.dumps({"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "states.amazonaws.com"}, "Action": "sts:AssumeRole"}]})
WORKFLOW = json.loads((__import__("pathlib").Path(__file__).parents[2] / "examples/orders/workflow-template.json")
                      .read_text())


def wait_done(sfn: Any, arn: str, timeout: float = 60) -> dict[str, Any]:
    deadline = time.time() + timeout
    while True:
        d = sfn.describe_execution(executionArn=arn)
        if d["status"] != "RUNNING" or time.time() > deadline:
            return d
        time.sleep(0.05)


def shape(events: list[dict[str, Any]]) -> list[tuple[int, int, str]]:
    return [(e["id"], e["previousEventId"], e["type"]) for e in events]


def details(event: dict[str, Any]) -> dict[str, Any]:
    return next(v for k, v in event.items() if k.endswith("EventDetails"))


@pytest.fixture(scope="module")
def orders(endpoint: str) -> dict[str, Any]:
    import boto3

    prefix = f"sfnwf-{uuid.uuid4().hex[:6]}"
    session = boto3.session.Session(aws_access_key_id="test", aws_secret_access_key="test", region_name="us-east-1")
    env = provision(prefix, endpoint_url=endpoint, session=session)
    iam = session.client("iam", endpoint_url=endpoint)
    role = iam.create_role(RoleName=f"{prefix}-sfn", AssumeRolePolicyDocument=TRUST_STATES)["Role"]["Arn"]
    policy = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": "lambda:InvokeFunction", "Resource": env["worker_arn"]}]}
    iam.put_role_policy(RoleName=f"{prefix}-sfn", PolicyName="invoke", PolicyDocument=json.dumps(policy))
    definition = json.dumps(WORKFLOW).replace("WORKER_NAME", f"{prefix}-worker")
    sfn = session.client("stepfunctions", endpoint_url=endpoint)
    arn = sfn.create_state_machine(name=f"{prefix}-orders", definition=definition, roleArn=role)["stateMachineArn"]
    return {**env, "prefix": prefix, "role": role, "machine": arn, "iam": iam}


def test_seed_workflow_retries_a_transient_error(aws: Callable[..., Any], orders: dict[str, Any]) -> None:
    sfn = aws("stepfunctions")
    order = {"id": f"o-{uuid.uuid4().hex[:6]}", "quantity": 2, "mode": "flaky"}
    ex = sfn.start_execution(stateMachineArn=orders["machine"], name=order["id"], input=json.dumps(order))
    d = wait_done(sfn, ex["executionArn"])
    assert d["status"] == "SUCCEEDED", d
    assert json.loads(d["output"]) == {"id": order["id"], "total_cents": 600, "completed": True}
    events = sfn.get_execution_history(executionArn=ex["executionArn"])["events"]
    assert shape(events) == [
        (1, 0, "ExecutionStarted"), (2, 0, "ChoiceStateEntered"), (3, 2, "ChoiceStateExited"),
        (4, 3, "TaskStateEntered"), (5, 4, "TaskScheduled"), (6, 5, "TaskStarted"), (7, 6, "TaskFailed"),
        (8, 7, "TaskScheduled"), (9, 8, "TaskStarted"), (10, 9, "TaskSucceeded"), (11, 10, "TaskStateExited"),
        (12, 11, "TaskStateEntered"), (13, 12, "TaskScheduled"), (14, 13, "TaskStarted"),
        (15, 14, "TaskSucceeded"), (16, 15, "TaskStateExited"), (17, 16, "ExecutionSucceeded"),
    ]
    scheduled = details(events[4])
    assert (scheduled["resourceType"], scheduled["resource"], scheduled["region"]) == ("lambda", "invoke", "us-east-1")
    assert json.loads(scheduled["parameters"]) == {"FunctionName": f"{orders['prefix']}-worker", "Payload": order}
    failed = details(events[6])
    assert failed["error"] == "TransientOrderError"
    cause = json.loads(failed["cause"])
    assert list(cause) == ["errorMessage", "errorType", "requestId", "stackTrace"]
    assert cause["errorMessage"] == "Dependency temporarily unavailable"
    assert failed["cause"] == json.dumps(cause, separators=(",", ":"))  # compact, as AWS re-serializes it
    result = json.loads(details(events[9])["output"])
    assert list(result) == ["ExecutedVersion", "Payload", "SdkHttpMetadata", "SdkResponseMetadata", "StatusCode"]
    assert result["Payload"] == {"id": order["id"], "quantity": 2, "total_cents": 600}
    assert result["StatusCode"] == 200 and result["ExecutedVersion"] == "$LATEST"
    saved = json.loads(details(events[10])["output"])["saved"]
    assert saved == {"result": result["Payload"]}
    # the retry waited IntervalSeconds (1 s nominal) after the failure
    assert (events[7]["timestamp"] - events[6]["timestamp"]).total_seconds() >= 0.9


def test_seed_workflow_rejects_through_catch_and_fail(aws: Callable[..., Any], orders: dict[str, Any]) -> None:
    sfn = aws("stepfunctions")
    order = {"id": f"o-{uuid.uuid4().hex[:6]}", "quantity": 3, "mode": "permanent"}
    ex = sfn.start_execution(stateMachineArn=orders["machine"], input=json.dumps(order))
    d = wait_done(sfn, ex["executionArn"])
    assert (d["status"], d["error"], d["cause"]) == ("FAILED", "OrderRejected", "Order could not be completed")
    events = sfn.get_execution_history(executionArn=ex["executionArn"])["events"]
    assert [e["type"] for e in events][-5:] == [
        "TaskStarted", "TaskFailed", "TaskStateExited", "FailStateEntered", "ExecutionFailed"]
    exited = json.loads(details(events[-3])["output"])
    assert exited["failure"]["Error"] == "InvalidOrder"
    assert details(events[-1]) == {"error": "OrderRejected", "cause": "Order could not be completed"}


def test_choice_on_missing_field_is_a_runtime_error(aws: Callable[..., Any], orders: dict[str, Any]) -> None:
    sfn = aws("stepfunctions")
    ex = sfn.start_execution(stateMachineArn=orders["machine"], input='{"id": "x"}')
    d = wait_done(sfn, ex["executionArn"])
    assert (d["status"], d["error"]) == ("FAILED", "States.Runtime")
    assert d["cause"] == ("An error occurred while executing the state 'CheckQuantity' (entered at the event id #2). "
                          "Invalid path '$.quantity': The choice state's condition path references an invalid value.")


def test_denied_invoke_is_lambda_awslambdaexception(aws: Callable[..., Any], endpoint: str) -> None:
    """A role without lambda:InvokeFunction: TaskFailed with AWS's error and cause; the worker never runs."""
    iam, sfn = aws("iam"), aws("stepfunctions")
    prefix = f"sfnden-{uuid.uuid4().hex[:6]}"
    role = iam.create_role(RoleName=f"{prefix}-sfn", AssumeRolePolicyDocument=TRUST_STATES)["Role"]
    fn = f"arn:aws:lambda:us-east-1:000000000000:function:{prefix}-nope"
    definition = {"StartAt": "T", "States": {"T": {
        "Type": "Task", "Resource": "arn:aws:states:::lambda:invoke",
        "Parameters": {"FunctionName": fn, "Payload.$": "$"},
        "Retry": [{"ErrorEquals": ["TransientOrderError"], "MaxAttempts": 2}], "End": True}}}
    arn = sfn.create_state_machine(name=prefix, definition=json.dumps(definition), roleArn=role["Arn"])[
        "stateMachineArn"]
    ex = sfn.start_execution(stateMachineArn=arn)["executionArn"]
    d = wait_done(sfn, ex)
    assert (d["status"], d["error"]) == ("FAILED", "Lambda.AWSLambdaException")
    pattern = (rf"User: arn:aws:sts::000000000000:assumed-role/{prefix}-sfn/[A-Za-z]{{32}} is not authorized to "
               rf"perform: lambda:InvokeFunction on resource: {re.escape(fn)} because no identity-based policy "
               r"allows the lambda:InvokeFunction action \(Service: AWSLambda; Status Code: 403; Error Code: "
               r"AccessDeniedException; Request ID: [0-9a-f-]{36}; Proxy: null\)")
    assert re.fullmatch(pattern, d["cause"]), d["cause"]
    events = sfn.get_execution_history(executionArn=ex)["events"]
    assert [e["type"] for e in events] == ["ExecutionStarted", "TaskStateEntered", "TaskScheduled", "TaskStarted",
                                           "TaskFailed", "ExecutionFailed"]


def _callback_function(aws: Callable[..., Any], orders: dict[str, Any]) -> str:
    """A function that receives a task token and does nothing with it (the test answers instead)."""
    lam = aws("lambda")
    name = f"{orders['prefix']}-cb-{uuid.uuid4().hex[:4]}"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("cb.py", "def handler(event, context):\n    return {'got': True}\n")
    arn = lam.create_function(FunctionName=name, Runtime="python3.12", Role=orders["worker_role_arn"],
                              Handler="cb.handler", Code={"ZipFile": buf.getvalue()})["FunctionArn"]
    lam.get_waiter("function_active_v2").wait(FunctionName=name)
    orders["iam"].put_role_policy(RoleName=f"{orders['prefix']}-sfn", PolicyName="invoke-cb", PolicyDocument=json.dumps(
        {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "lambda:InvokeFunction",
                                                 "Resource": arn}]}))
    return arn


def _token_machine(aws: Callable[..., Any], orders: dict[str, Any], fn: str, extra: dict[str, Any]) -> str:
    definition = {"StartAt": "Ask", "States": {"Ask": {
        "Type": "Task", "Resource": "arn:aws:states:::lambda:invoke.waitForTaskToken",
        "Parameters": {"FunctionName": fn, "Payload": {"token.$": "$$.Task.Token"}}, "End": True, **extra}}}
    return aws("stepfunctions").create_state_machine(
        name=f"tok-{uuid.uuid4().hex[:8]}", definition=json.dumps(definition), roleArn=orders["role"])[
        "stateMachineArn"]


def _token_of(sfn: Any, ex: str) -> str:
    deadline = time.time() + 30
    while time.time() < deadline:
        for e in sfn.get_execution_history(executionArn=ex)["events"]:
            if e["type"] == "TaskSubmitted":
                events = sfn.get_execution_history(executionArn=ex)["events"]
                scheduled = next(x for x in events if x["type"] == "TaskScheduled")
                return json.loads(details(scheduled)["parameters"])["Payload"]["token"]
        time.sleep(0.05)
    raise AssertionError("the task was never submitted")


def test_wait_for_task_token(aws: Callable[..., Any], orders: dict[str, Any]) -> None:
    sfn = aws("stepfunctions")
    fn = _callback_function(aws, orders)
    machine = _token_machine(aws, orders, fn, {})
    ok = sfn.start_execution(stateMachineArn=machine)["executionArn"]
    token = _token_of(sfn, ok)
    sfn.send_task_heartbeat(taskToken=token)
    sfn.send_task_success(taskToken=token, output='{"approved": true}')
    d = wait_done(sfn, ok)
    assert (d["status"], d["output"]) == ("SUCCEEDED", '{"approved":true}')
    types = [e["type"] for e in sfn.get_execution_history(executionArn=ok)["events"]]
    assert types == ["ExecutionStarted", "TaskStateEntered", "TaskScheduled", "TaskStarted", "TaskSubmitted",
                     "TaskSucceeded", "TaskStateExited", "ExecutionSucceeded"]
    with pytest.raises(sfn.exceptions.TaskTimedOut):  # answered already
        sfn.send_task_success(taskToken=token, output="{}")

    bad = sfn.start_execution(stateMachineArn=machine)["executionArn"]
    sfn.send_task_failure(taskToken=_token_of(sfn, bad), error="Denied", cause="by a human")
    d = wait_done(sfn, bad)
    assert (d["status"], d["error"], d["cause"]) == ("FAILED", "Denied", "by a human")


def test_heartbeat_timeout(aws: Callable[..., Any], orders: dict[str, Any]) -> None:
    sfn = aws("stepfunctions")
    fn = _callback_function(aws, orders)
    machine = _token_machine(aws, orders, fn, {"HeartbeatSeconds": 1, "TimeoutSeconds": 600})
    ex = sfn.start_execution(stateMachineArn=machine)["executionArn"]
    d = wait_done(sfn, ex)
    assert (d["status"], d["error"]) == ("FAILED", "States.HeartbeatTimeout")
    events = sfn.get_execution_history(executionArn=ex)["events"]
    scheduled = details(events[2])
    assert (scheduled["timeoutInSeconds"], scheduled["heartbeatInSeconds"]) == (600, 1)
    assert [e["type"] for e in events][-2:] == ["TaskTimedOut", "ExecutionFailed"]
    token = json.loads(scheduled["parameters"])["Payload"]["token"]
    with pytest.raises(sfn.exceptions.TaskTimedOut):
        sfn.send_task_success(taskToken=token, output="{}")


def test_parallel_and_map_with_waits(aws: Callable[..., Any], orders: dict[str, Any]) -> None:
    sfn = aws("stepfunctions")
    branch = {"StartAt": "W", "States": {"W": {"Type": "Wait", "Seconds": 1, "Next": "P"},
                                         "P": {"Type": "Pass", "End": True}}}
    definition = {"StartAt": "Par", "States": {
        "Par": {"Type": "Parallel", "Branches": [branch, branch], "Next": "M"},
        "M": {"Type": "Map", "ItemsPath": "$", "ItemProcessor": branch, "End": True}}}
    arn = sfn.create_state_machine(name=f"pm-{uuid.uuid4().hex[:8]}", definition=json.dumps(definition),
                                   roleArn=orders["role"])["stateMachineArn"]
    ex = sfn.start_execution(stateMachineArn=arn, input='{"a": 1}')["executionArn"]
    d = wait_done(sfn, ex)
    assert d["status"] == "SUCCEEDED"
    assert json.loads(d["output"]) == [{"a": 1}, {"a": 1}]
    events = sfn.get_execution_history(executionArn=ex)["events"]
    assert [e["id"] for e in events] == list(range(1, len(events) + 1))
    types = [e["type"] for e in events]
    assert types.count("WaitStateEntered") == 4 and types.count("MapIterationSucceeded") == 2
    assert "ParallelStateSucceeded" in types and types[-1] == "ExecutionSucceeded"


def test_dynamodb_integration(aws: Callable[..., Any], orders: dict[str, Any]) -> None:
    """dynamodb:putItem/getItem/updateItem/deleteItem as the role: results carry the SDK metadata,
    a failed condition is DynamoDB.ConditionalCheckFailedException."""
    sfn, iam = aws("stepfunctions"), orders["iam"]
    table = orders["orders_table"]
    iam.put_role_policy(RoleName=f"{orders['prefix']}-sfn", PolicyName="ddb", PolicyDocument=json.dumps(
        {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "dynamodb:*", "Resource": "*"}]}))
    key = {"id": {"S.$": "$.id"}}
    definition = {"StartAt": "Put", "States": {
        "Put": {"Type": "Task", "Resource": "arn:aws:states:::dynamodb:putItem", "ResultPath": None,
                "Parameters": {"TableName": table, "Item": {"id": {"S.$": "$.id"}, "n": {"N": "1"}},
                               "ConditionExpression": "attribute_not_exists(id)"}, "Next": "Add"},
        "Add": {"Type": "Task", "Resource": "arn:aws:states:::dynamodb:updateItem", "ResultPath": "$.updated",
                "Parameters": {"TableName": table, "Key": key, "UpdateExpression": "ADD n :one",
                               "ExpressionAttributeValues": {":one": {"N": "1"}}, "ReturnValues": "UPDATED_NEW"},
                "Next": "Get"},
        "Get": {"Type": "Task", "Resource": "arn:aws:states:::dynamodb:getItem", "ResultPath": "$.got",
                "Parameters": {"TableName": table, "Key": key}, "Next": "Delete"},
        "Delete": {"Type": "Task", "Resource": "arn:aws:states:::dynamodb:deleteItem", "ResultPath": None,
                   "Parameters": {"TableName": table, "Key": key}, "End": True}}}
    arn = sfn.create_state_machine(name=f"ddb-{uuid.uuid4().hex[:8]}", definition=json.dumps(definition),
                                   roleArn=orders["role"])["stateMachineArn"]
    item = f"i-{uuid.uuid4().hex[:6]}"
    ex = sfn.start_execution(stateMachineArn=arn, input=json.dumps({"id": item}))["executionArn"]
    d = wait_done(sfn, ex)
    assert d["status"] == "SUCCEEDED", d
    out = json.loads(d["output"])
    assert out["updated"]["Attributes"] == {"n": {"N": "2"}}
    assert out["got"]["Item"] == {"id": {"S": item}, "n": {"N": "2"}}
    assert out["got"]["SdkResponseMetadata"]["RequestId"] and out["got"]["SdkHttpMetadata"]["HttpStatusCode"] == 200
    assert "Item" not in aws("dynamodb").get_item(TableName=table, Key={"id": {"S": item}})
    aws("dynamodb").put_item(TableName=table, Item={"id": {"S": item}})
    ex = sfn.start_execution(stateMachineArn=arn, input=json.dumps({"id": item}))["executionArn"]
    d = wait_done(sfn, ex)
    assert (d["status"], d["error"]) == ("FAILED", "DynamoDB.ConditionalCheckFailedException")
    assert re.fullmatch(r"The conditional request failed \(Service: AmazonDynamoDBv2; Status Code: 400; Error Code: "
                        r"ConditionalCheckFailedException; Request ID: \w+; Proxy: null\)", d["cause"]), d["cause"]


def test_polling_loop_with_variables(aws: Callable[..., Any], orders: dict[str, Any]) -> None:
    """A Wait inside a loop: the execution parks and wakes several times; variables survive."""
    sfn = aws("stepfunctions")
    definition = {"StartAt": "Init", "States": {
        "Init": {"Type": "Pass", "Assign": {"i": 0}, "Next": "Wait"},
        "Wait": {"Type": "Wait", "Seconds": 1, "Next": "Count"},
        "Count": {"Type": "Pass", "Assign": {"i.$": "States.MathAdd($i, 1)"}, "Next": "Again"},
        "Again": {"Type": "Choice", "Choices": [{"Variable": "$i", "NumericLessThan": 3, "Next": "Wait"}],
                  "Default": "Done"},
        "Done": {"Type": "Pass", "Parameters": {"count.$": "$i"}, "End": True}}}
    arn = sfn.create_state_machine(name=f"loop-{uuid.uuid4().hex[:8]}", definition=json.dumps(definition),
                                   roleArn=orders["role"])["stateMachineArn"]
    ex = sfn.start_execution(stateMachineArn=arn)["executionArn"]
    d = wait_done(sfn, ex)
    assert (d["status"], d["output"]) == ("SUCCEEDED", '{"count":3}')
    events = sfn.get_execution_history(executionArn=ex)["events"]
    assert [e["type"] for e in events].count("WaitStateExited") == 3
    assert shape(events)[-1] == (len(events), len(events) - 1, "ExecutionSucceeded")
