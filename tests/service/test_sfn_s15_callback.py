"""sqs:sendMessage(.waitForTaskToken) and sns:publish results as LocalStack's AWS-validated
test_callback, test_sqs_task_service and test_sns_task_service recorded them
(tests/aws/services/stepfunctions/v2/{callback,services}/*.snapshot.json in localstack/localstack):
the SDK metadata's headers (values redacted there, names and lengths kept) and the timeout's events."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from sfn_setup import finished

TRUST = json.dumps({"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "states.amazonaws.com"}, "Action": "sts:AssumeRole"}]})
SEND_WITH_WAIT = {"Type": "Task", "Resource": "arn:aws:states:::sqs:sendMessage.waitForTaskToken",
                  "Parameters": {"QueueUrl.$": "$.QueueUrl",
                                 "MessageBody": {"Message.$": "$.Message", "TaskToken.$": "$$.Task.Token"}},
                  "End": True}


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    iam = aws("iam")
    name = f"sfn-s15-callback-{uuid.uuid4().hex[:8]}"
    arn: str = iam.create_role(RoleName=name, AssumeRolePolicyDocument=TRUST)["Role"]["Arn"]
    iam.put_role_policy(RoleName=name, PolicyName="all", PolicyDocument=json.dumps({
        "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": ["sqs:*", "sns:*"], "Resource": "*"}]}))
    return arn


def run(aws: Callable[..., Any], role: str, state: dict[str, Any], data: dict[str, Any]) -> str:
    sfn = aws("stepfunctions")
    sm = sfn.create_state_machine(name=f"s15-cb-{uuid.uuid4().hex[:8]}", roleArn=role,
                                  definition=json.dumps({"StartAt": "S", "States": {"S": state}}))["stateMachineArn"]
    arn: str = sfn.start_execution(stateMachineArn=sm, input=json.dumps(data))["executionArn"]
    return arn


def test_the_timeout_of_a_task_token(aws: Callable[..., Any], role: str) -> None:
    # test_callback::test_sqs_wait_for_task_token_timeout (2024): the sent message's metadata, then
    # TaskTimedOut and an ExecutionFailed with the error alone
    queue = aws("sqs").create_queue(QueueName=f"s15-cb-{uuid.uuid4().hex[:8]}")["QueueUrl"]
    arn = run(aws, role, {**SEND_WITH_WAIT, "TimeoutSeconds": 1}, {"QueueUrl": queue, "Message": "test_message_txt"})
    assert finished(aws("stepfunctions"), arn)["status"] == "FAILED"
    events = aws("stepfunctions").get_execution_history(executionArn=arn)["events"]
    assert [e["type"] for e in events] == ["ExecutionStarted", "TaskStateEntered", "TaskScheduled", "TaskStarted",
                                           "TaskSubmitted", "TaskTimedOut", "ExecutionFailed"]
    assert events[2]["taskScheduledEventDetails"]["timeoutInSeconds"] == 1
    submitted = json.loads(events[4]["taskSubmittedEventDetails"]["output"])
    meta = submitted["SdkHttpMetadata"]
    assert list(meta["AllHttpHeaders"]) == ["x-amzn-RequestId", "connection", "Content-Length", "Date", "Content-Type"]
    assert list(meta["HttpHeaders"]) == ["connection", "Content-Length", "Content-Type", "Date", "x-amzn-RequestId"]
    # the recorded 106: the compact JSON of MD5OfMessageBody and MessageId
    assert meta["HttpHeaders"]["Content-Length"] == "106" and meta["AllHttpHeaders"]["Content-Length"] == ["106"]
    assert meta["HttpHeaders"]["connection"] == "keep-alive" and meta["HttpStatusCode"] == 200
    assert submitted["SdkResponseMetadata"] == {"RequestId": meta["HttpHeaders"]["x-amzn-RequestId"]}
    assert events[5]["taskTimedOutEventDetails"] == {
        "error": "States.Timeout", "resource": "sendMessage.waitForTaskToken", "resourceType": "sqs"}
    assert events[6]["executionFailedEventDetails"] == {"error": "States.Timeout"}


def test_a_publish_answers_xml_headers(aws: Callable[..., Any], role: str) -> None:
    # test_callback::test_sns_publish_wait_for_task_token (2024): Content-Length 294 (the PublishResponse
    # document), a keep-alive (test_sns_task_service's 2023 recording had none; the newer one is followed)
    topic = aws("sns").create_topic(Name=f"s15-cb-{uuid.uuid4().hex[:8]}")["TopicArn"]
    state = {"Type": "Task", "Resource": "arn:aws:states:::sns:publish",
             "Parameters": {"TopicArn.$": "$.TopicArn", "Message.$": "$.Message"}, "End": True}
    arn = run(aws, role, state, {"TopicArn": topic, "Message": {"Message": "HelloWorld!"}})
    d = finished(aws("stepfunctions"), arn)
    assert d["status"] == "SUCCEEDED", d
    meta = json.loads(d["output"])["SdkHttpMetadata"]
    assert list(meta["AllHttpHeaders"]) == ["x-amzn-RequestId", "connection", "Content-Length", "Date", "Content-Type"]
    assert list(meta["HttpHeaders"]) == ["connection", "Content-Length", "Content-Type", "Date", "x-amzn-RequestId"]
    assert (meta["HttpHeaders"]["Content-Length"], meta["HttpHeaders"]["Content-Type"]) == ("294", "text/xml")
