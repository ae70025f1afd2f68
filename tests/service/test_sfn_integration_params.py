"""Step Functions' service integrations take their parameters from JSON data: they get the same
conversion and checks as an HTTP request (base64 blobs, the model's constraints), and results come
back as JSON data (binaries as base64)."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest

TRUST = {"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "states.amazonaws.com"}, "Action": "sts:AssumeRole"}]}
ALLOW_ALL = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}


@pytest.fixture(scope="module")
def setup(aws: Callable[..., Any]) -> dict[str, str]:
    suffix = uuid.uuid4().hex[:8]
    iam = aws("iam")
    role = iam.create_role(RoleName=f"sfn-params-{suffix}", AssumeRolePolicyDocument=json.dumps(TRUST))["Role"]["Arn"]
    iam.put_role_policy(RoleName=f"sfn-params-{suffix}", PolicyName="all", PolicyDocument=json.dumps(ALLOW_ALL))
    table = f"sfn-params-{suffix}"
    aws("dynamodb").create_table(TableName=table, BillingMode="PAY_PER_REQUEST",
                                 AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
                                 KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}])
    return {"role": role, "table": table}


def run(aws: Callable[..., Any], role: str, state: dict[str, Any]) -> dict[str, Any]:
    sfn = aws("stepfunctions")
    definition = {"StartAt": "S", "States": {"S": {**state, "End": True}}}
    arn = sfn.create_state_machine(name=f"p-{uuid.uuid4().hex[:10]}", roleArn=role,
                                   definition=json.dumps(definition))["stateMachineArn"]
    execution = sfn.start_execution(stateMachineArn=arn)["executionArn"]
    for _ in range(200):
        described = sfn.describe_execution(executionArn=execution)
        if described["status"] != "RUNNING":
            return described
        time.sleep(0.05)
    raise AssertionError("execution still running")


def test_binary_values_round_trip_as_base64(aws: Callable[..., Any], setup: dict[str, str]) -> None:
    put = run(aws, setup["role"], {"Type": "Task", "Resource": "arn:aws:states:::dynamodb:putItem", "Parameters": {
        "TableName": setup["table"], "Item": {"id": {"S": "bin"}, "blob": {"B": "aGVsbG8="}}}})
    assert put["status"] == "SUCCEEDED"
    stored = aws("dynamodb").get_item(TableName=setup["table"], Key={"id": {"S": "bin"}})["Item"]
    assert stored["blob"]["B"] == b"hello"
    got = run(aws, setup["role"], {"Type": "Task", "Resource": "arn:aws:states:::dynamodb:getItem", "Parameters": {
        "TableName": setup["table"], "Key": {"id": {"S": "bin"}}}})
    assert got["status"] == "SUCCEEDED"
    assert json.loads(got["output"])["Item"] == {"id": {"S": "bin"}, "blob": {"B": "aGVsbG8="}}


def test_a_missing_parameter_fails_the_task_with_the_services_validation_error(
        aws: Callable[..., Any], setup: dict[str, str]) -> None:
    failed = run(aws, setup["role"], {"Type": "Task", "Resource": "arn:aws:states:::dynamodb:putItem",
                                      "Parameters": {"Item": {"id": {"S": "x"}}}})
    assert failed["status"] == "FAILED"
    assert failed["error"] == "DynamoDB.AmazonDynamoDBException"
    assert failed["cause"].startswith("1 validation error detected: Value null at 'tableName' failed to satisfy "
                                      "constraint: Member must not be null (Service: AmazonDynamoDBv2; Status Code: "
                                      "400; Error Code: ValidationException;")


def test_aws_sdk_parameters_are_checked_too(aws: Callable[..., Any], setup: dict[str, str]) -> None:
    failed = run(aws, setup["role"], {"Type": "Task", "Resource": "arn:aws:states:::aws-sdk:dynamodb:getItem",
                                      "Parameters": {"TableName": setup["table"], "Key": {"id": {"S": "x"}},
                                                     "ConsistentRead": "yes"}})
    assert failed["status"] == "FAILED"
    assert failed["error"] == "DynamoDb.DynamoDbException", failed
    assert failed["cause"].startswith("'YES' can not be converted to an Boolean (Service: DynamoDb, Status Code: 400")


def test_a_boolean_written_as_true_or_false_text_is_read_as_the_boolean(
        aws: Callable[..., Any], setup: dict[str, str]) -> None:
    # DynamoDB's JSON reader upper-cases a string given for a boolean and takes TRUE / FALSE (it
    # quotes the upper-cased text when it refuses one); AWS's quorum sample workflow writes
    # {"BOOL": "false"}. Other text is still a SerializationException.
    put = run(aws, setup["role"], {"Type": "Task", "Resource": "arn:aws:states:::dynamodb:putItem", "Parameters": {
        "TableName": setup["table"], "Item": {"id": {"S": "flags"}, "off": {"BOOL": "false"}, "on": {"BOOL": "True"}}}})
    assert put["status"] == "SUCCEEDED", put
    stored = aws("dynamodb").get_item(TableName=setup["table"], Key={"id": {"S": "flags"}})["Item"]
    assert (stored["off"], stored["on"]) == ({"BOOL": False}, {"BOOL": True})
    refused = run(aws, setup["role"], {"Type": "Task", "Resource": "arn:aws:states:::dynamodb:putItem", "Parameters": {
        "TableName": setup["table"], "Item": {"id": {"S": "flags2"}, "x": {"BOOL": "maybe"}}}})
    assert refused["status"] == "FAILED"
    assert refused["cause"].startswith("'MAYBE' can not be converted to an Boolean"), refused
