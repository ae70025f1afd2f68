"""DeadLetterConfig through boto3: validated against the execution role as AWS does, shown in the
configuration, and used: an Event invocation that fails its last attempt sends its event, as-is, to
the SQS queue or SNS topic with the RequestID / ErrorCode / ErrorMessage attributes."""

from __future__ import annotations

import io
import json
import time
import uuid
import zipfile
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError

TRUST = {
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}],
}
SOURCE = '''
def handler(event, context):
    if event.get("fail"):
        raise RuntimeError("cannot " + event["fail"])
    return {"done": event}
'''


def make_zip(text: str) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("app.py", text)
    return buf.getvalue()


def make_role(aws: Callable[..., Any], actions: list[str]) -> str:
    iam = aws("iam")
    name = f"dlq-role-{uuid.uuid4().hex[:8]}"
    arn = iam.create_role(RoleName=name, AssumeRolePolicyDocument=json.dumps(TRUST))["Role"]["Arn"]
    if actions:
        iam.put_role_policy(RoleName=name, PolicyName="dlq", PolicyDocument=json.dumps({
            "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": actions, "Resource": "*"}],
        }))  # fmt: skip
    return str(arn)


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    return make_role(aws, ["sqs:SendMessage", "sns:Publish"])


@pytest.fixture(scope="module")
def bare_role(aws: Callable[..., Any]) -> str:
    return make_role(aws, [])


def queue(aws: Callable[..., Any]) -> tuple[str, str]:
    sqs = aws("sqs")
    url = sqs.create_queue(QueueName=f"dlq-{uuid.uuid4().hex[:8]}")["QueueUrl"]
    return url, sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]


def deploy(aws: Callable[..., Any], role: str, **extra: Any) -> str:
    name = f"dlq-{uuid.uuid4().hex[:10]}"
    aws("lambda").create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="app.handler",
                                  Code={"ZipFile": make_zip(SOURCE)}, **extra)  # fmt: skip
    # no retries: the first failure is the last one (the retry delays are a minute and two)
    aws("lambda").put_function_event_invoke_config(FunctionName=name, MaximumRetryAttempts=0)
    return name


def refused(excinfo: pytest.ExceptionInfo[ClientError]) -> tuple[str, str]:
    return excinfo.value.response["Error"]["Code"], excinfo.value.response["Error"]["Message"]


def receive(aws: Callable[..., Any], url: str) -> dict[str, Any]:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        got = aws("sqs").receive_message(QueueUrl=url, WaitTimeSeconds=1, MessageAttributeNames=["All"])
        if got.get("Messages"):
            return dict(got["Messages"][0])
    raise AssertionError("no message reached the queue")


def test_shown_validated_and_cleared(aws: Callable[..., Any], role: str, bare_role: str) -> None:
    lam = aws("lambda")
    _, qarn = queue(aws)
    name = deploy(aws, role, DeadLetterConfig={"TargetArn": qarn})
    assert lam.get_function_configuration(FunctionName=name)["DeadLetterConfig"] == {"TargetArn": qarn}

    topic = aws("sns").create_topic(Name=f"dlq-{uuid.uuid4().hex[:8]}")["TopicArn"]
    with pytest.raises(ClientError) as excinfo:
        lam.update_function_configuration(FunctionName=name, Role=bare_role, DeadLetterConfig={"TargetArn": qarn})
    assert refused(excinfo) == ("InvalidParameterValueException",
                                "The provided execution role does not have permissions to call SendMessage on SQS")
    with pytest.raises(ClientError) as excinfo:
        deploy(aws, bare_role, DeadLetterConfig={"TargetArn": topic})
    assert refused(excinfo) == ("InvalidParameterValueException",
                                "The provided execution role does not have permissions to call Publish on SNS")
    with pytest.raises(ClientError) as excinfo:
        lam.update_function_configuration(
            FunctionName=name, DeadLetterConfig={"TargetArn": "arn:aws:dynamodb:us-east-1:000000000000:table/t"})
    assert excinfo.value.response["Error"]["Code"] == "InvalidParameterValueException"
    # nothing changed by the refusals
    config = lam.get_function_configuration(FunctionName=name)
    assert config["DeadLetterConfig"] == {"TargetArn": qarn} and config["Role"] == role

    lam.update_function_configuration(FunctionName=name, DeadLetterConfig={"TargetArn": topic})
    assert lam.get_function_configuration(FunctionName=name)["DeadLetterConfig"] == {"TargetArn": topic}
    lam.update_function_configuration(FunctionName=name, DeadLetterConfig={"TargetArn": ""})
    assert "DeadLetterConfig" not in lam.get_function_configuration(FunctionName=name)


def test_failed_event_goes_to_the_queue_with_attributes(aws: Callable[..., Any], role: str) -> None:
    url, qarn = queue(aws)
    name = deploy(aws, role, DeadLetterConfig={"TargetArn": qarn})
    lam = aws("lambda")
    # an OnFailure destination as well: Lambda sends to both
    record_url, record_arn = queue(aws)
    lam.put_function_event_invoke_config(FunctionName=name, MaximumRetryAttempts=0,
                                         DestinationConfig={"OnFailure": {"Destination": record_arn}})
    ok = lam.invoke(FunctionName=name, InvocationType="Event", Payload=b'{"fine": 1}')
    failed = lam.invoke(FunctionName=name, InvocationType="Event", Payload=b'{"fail": "now"}')
    request_id = failed["ResponseMetadata"]["RequestId"]
    assert ok["StatusCode"] == failed["StatusCode"] == 202
    message = receive(aws, url)
    assert json.loads(message["Body"]) == {"fail": "now"}  # the event as sent, not an invocation record
    attrs = message["MessageAttributes"]
    assert attrs["RequestID"] == {"StringValue": request_id, "DataType": "String"}
    assert attrs["ErrorCode"] == {"StringValue": "200", "DataType": "Number"}
    assert attrs["ErrorMessage"] == {"StringValue": "cannot now", "DataType": "String"}
    record = json.loads(receive(aws, record_url)["Body"])
    assert record["requestContext"]["condition"] == "RetriesExhausted" and record["requestPayload"] == {"fail": "now"}
    # the successful event sent nothing
    again = aws("sqs").receive_message(QueueUrl=url, WaitTimeSeconds=1)
    assert not again.get("Messages")


def test_failed_event_goes_to_the_topic(aws: Callable[..., Any], role: str) -> None:
    url, qarn = queue(aws)
    sns = aws("sns")
    topic = sns.create_topic(Name=f"dlq-{uuid.uuid4().hex[:8]}")["TopicArn"]
    # The queue lets the topic send to it, as AWS requires of an SNS subscription.
    aws("sqs").set_queue_attributes(QueueUrl=url, Attributes={"Policy": json.dumps({
        "Version": "2012-10-17", "Statement": [{
            "Effect": "Allow", "Principal": {"Service": "sns.amazonaws.com"}, "Action": "sqs:SendMessage",
            "Resource": qarn, "Condition": {"ArnEquals": {"aws:SourceArn": topic}}}]})})
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=qarn)
    name = deploy(aws, role, DeadLetterConfig={"TargetArn": topic})
    failed = aws("lambda").invoke(FunctionName=name, InvocationType="Event", Payload=b'{"fail": "topic"}')
    envelope = json.loads(receive(aws, url)["Body"])
    assert envelope["TopicArn"] == topic and json.loads(envelope["Message"]) == {"fail": "topic"}
    assert envelope["MessageAttributes"]["RequestID"]["Value"] == failed["ResponseMetadata"]["RequestId"]
    assert envelope["MessageAttributes"]["ErrorMessage"] == {"Type": "String", "Value": "cannot topic"}


def test_reserved_concurrency_zero_sends_events_straight_to_the_queue(aws: Callable[..., Any], role: str) -> None:
    url, qarn = queue(aws)
    name = deploy(aws, role, DeadLetterConfig={"TargetArn": qarn})
    lam = aws("lambda")
    lam.put_function_concurrency(FunctionName=name, ReservedConcurrentExecutions=0)
    sent = lam.invoke(FunctionName=name, InvocationType="Event", Payload=b'{"fine": 2}')  # would succeed if run
    message = receive(aws, url)
    assert json.loads(message["Body"]) == {"fine": 2}
    assert message["MessageAttributes"]["RequestID"]["StringValue"] == sent["ResponseMetadata"]["RequestId"]
    assert message["MessageAttributes"]["ErrorCode"]["StringValue"] == "429"
