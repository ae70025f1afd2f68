"""Step Functions' messaging integrations against a real server: sqs:sendMessage (also
.waitForTaskToken, completed by a worker that reads the queue and calls SendTaskSuccess),
sns:publish, and aws-sdk:sqs:* / aws-sdk:sns:*."""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest

TRUST = json.dumps({"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "states.amazonaws.com"}, "Action": "sts:AssumeRole"}]})
ALLOW_ALL = json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]})


@pytest.fixture(scope="module")
def role_arn(aws: Callable[..., Any]) -> str:
    iam = aws("iam")
    name = f"messaging-{uuid.uuid4().hex[:8]}"
    arn = iam.create_role(RoleName=name, AssumeRolePolicyDocument=TRUST)["Role"]["Arn"]
    iam.put_role_policy(RoleName=name, PolicyName="all", PolicyDocument=ALLOW_ALL)
    return str(arn)


def start(sfn: Any, role_arn: str, states: dict[str, Any], first: str, payload: dict[str, Any]) -> str:
    definition = {"StartAt": first, "States": states}
    sm = sfn.create_state_machine(name=f"msg-{uuid.uuid4().hex[:8]}", definition=json.dumps(definition),
                                  roleArn=role_arn)["stateMachineArn"]
    return str(sfn.start_execution(stateMachineArn=sm, input=json.dumps(payload))["executionArn"])


def wait_done(sfn: Any, arn: str, timeout: float = 60) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while (d := sfn.describe_execution(executionArn=arn))["status"] == "RUNNING":
        assert time.monotonic() < deadline, "the execution did not finish"
        time.sleep(0.05)
    return d  # type: ignore[no-any-return]


def test_send_message_result_shape(aws: Callable[..., Any], role_arn: str) -> None:
    sqs, sfn = aws("sqs"), aws("stepfunctions")
    url = sqs.create_queue(QueueName=f"sfn-{uuid.uuid4().hex[:8]}")["QueueUrl"]
    arn = start(sfn, role_arn, {"Send": {"Type": "Task", "Resource": "arn:aws:states:::sqs:sendMessage",
                                         "Parameters": {"QueueUrl": url, "MessageBody.$": "$.order"},
                                         "End": True}}, "Send", {"order": {"id": 7}})
    d = wait_done(sfn, arn)
    assert d["status"] == "SUCCEEDED", d
    out = json.loads(d["output"])
    assert set(out) == {"MD5OfMessageBody", "MessageId", "SdkHttpMetadata", "SdkResponseMetadata"}
    assert out["SdkHttpMetadata"]["HttpStatusCode"] == 200
    [m] = sqs.receive_message(QueueUrl=url)["Messages"]
    assert json.loads(m["Body"]) == {"id": 7} and m["MessageId"] == out["MessageId"]


def test_wait_for_task_token_completed_by_a_queue_worker(aws: Callable[..., Any], role_arn: str) -> None:
    sqs, sfn = aws("sqs"), aws("stepfunctions")
    url = sqs.create_queue(QueueName=f"sfn-token-{uuid.uuid4().hex[:8]}")["QueueUrl"]
    arn = start(sfn, role_arn, {"Ask": {
        "Type": "Task", "Resource": "arn:aws:states:::sqs:sendMessage.waitForTaskToken",
        "Parameters": {"QueueUrl": url, "MessageBody": {"token.$": "$$.Task.Token", "order.$": "$.order"}},
        "ResultPath": "$.answer", "End": True}}, "Ask", {"order": "o-1"})

    def worker() -> None:
        client, steps = aws("sqs"), aws("stepfunctions")
        got = client.receive_message(QueueUrl=url, WaitTimeSeconds=20)
        for m in got.get("Messages", []):
            body = json.loads(m["Body"])
            steps.send_task_success(taskToken=body["token"], output=json.dumps({"approved": body["order"]}))
            client.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])

    thread = threading.Thread(target=worker)
    thread.start()
    d = wait_done(sfn, arn)
    thread.join(30)
    assert d["status"] == "SUCCEEDED", d
    assert json.loads(d["output"]) == {"order": "o-1", "answer": {"approved": "o-1"}}


def test_sns_publish_and_sdk_calls(aws: Callable[..., Any], role_arn: str) -> None:
    sqs, sns, sfn = aws("sqs"), aws("sns"), aws("stepfunctions")
    name = f"sfn-sdk-{uuid.uuid4().hex[:8]}"
    url = sqs.create_queue(QueueName=name)["QueueUrl"]
    qarn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    topic = sns.create_topic(Name=name)["TopicArn"]
    sqs.set_queue_attributes(QueueUrl=url, Attributes={"Policy": json.dumps({"Statement": [{
        "Effect": "Allow", "Principal": {"Service": "sns.amazonaws.com"}, "Action": "sqs:SendMessage",
        "Resource": qarn}]})})  # SNS may send only where the queue's policy lets it, as on AWS
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=qarn, Attributes={"RawMessageDelivery": "true"})
    arn = start(sfn, role_arn, {
        "Publish": {"Type": "Task", "Resource": "arn:aws:states:::sns:publish",
                    "Parameters": {"TopicArn": topic, "Message.$": "$.note"}, "ResultPath": "$.published",
                    "Next": "Url"},
        "Url": {"Type": "Task", "Resource": "arn:aws:states:::aws-sdk:sqs:getQueueUrl",
                "Parameters": {"QueueName": name}, "ResultPath": "$.url", "Next": "Receive"},
        "Receive": {"Type": "Task", "Resource": "arn:aws:states:::aws-sdk:sqs:receiveMessage",
                    "Parameters": {"QueueUrl.$": "$.url.QueueUrl", "WaitTimeSeconds": 5}, "ResultPath": "$.got",
                    "Next": "Topics"},
        "Topics": {"Type": "Task", "Resource": "arn:aws:states:::aws-sdk:sns:getTopicAttributes",
                   "Parameters": {"TopicArn": topic}, "ResultSelector": {"owner.$": "$.Attributes.Owner"},
                   "ResultPath": "$.topic", "End": True}}, "Publish", {"note": "hello"})
    d = wait_done(sfn, arn)
    assert d["status"] == "SUCCEEDED", d
    out = json.loads(d["output"])
    assert set(out["published"]) == {"MessageId", "SdkHttpMetadata", "SdkResponseMetadata"}
    assert out["url"]["QueueUrl"] == url
    assert [m["Body"] for m in out["got"]["Messages"]] == ["hello"]
    assert out["topic"]["owner"] == qarn.split(":")[4]


def test_a_missing_queue_fails_the_task_with_the_sdk_error(aws: Callable[..., Any], role_arn: str,
                                                          endpoint: str) -> None:
    sfn = aws("stepfunctions")
    arn = start(sfn, role_arn, {"Send": {"Type": "Task", "Resource": "arn:aws:states:::sqs:sendMessage",
                                         "Parameters": {"QueueUrl": f"{endpoint}/000000000000/none-here",
                                                        "MessageBody": "x"}, "End": True}}, "Send", {})
    d = wait_done(sfn, arn)
    assert d["status"] == "FAILED"
    assert d["error"] == "SQS.QueueDoesNotExistException"
    assert "AWS.SimpleQueueService.NonExistentQueue" in d["cause"]
