"""Documents nested past Python's parser, or holding an integer past its 4300 digits, are bad
input: AWS's 4xx for a malformed document, never an InternalFailure (they were: a RecursionError
or ValueError escaped from the template, filter-policy and definition parsers)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError
from sns_setup import make_queue

DEEP = 100_000
HUGE = "1" + "0" * 5000


def _code(call: Callable[[], Any]) -> tuple[int, str]:
    with pytest.raises(ClientError) as exc:
        call()
    return exc.value.response["ResponseMetadata"]["HTTPStatusCode"], exc.value.response["Error"]["Code"]


@pytest.mark.parametrize("body", [
    '{"Resources": ' + "[" * DEEP + "]" * DEEP + "}",
    '{"Resources": {"Q": {"Type": "AWS::SQS::Queue", "Properties": {"DelaySeconds": ' + HUGE + "}}}}",
    "Resources:\n  Q:\n    Type: AWS::SQS::Queue\n    Properties:\n      Tags: " + "[" * 3000 + "]" * 3000 + "\n",
], ids=["json-deep", "json-huge-number", "yaml-deep"])
def test_a_template_nested_too_deep_or_with_a_huge_number_is_a_format_error(aws: Callable[..., Any],
                                                                             body: str) -> None:
    cfn = aws("cloudformation")
    status, code = _code(lambda: cfn.validate_template(TemplateBody=body))
    assert (status, code) == (400, "ValidationError")


def test_a_filter_policy_nested_past_the_parser_is_invalid_and_changes_nothing(aws: Callable[..., Any]) -> None:
    sns, sqs = aws("sns"), aws("sqs")
    topic = sns.create_topic(Name=f"deep-{uuid.uuid4().hex[:8]}")["TopicArn"]
    queue = sqs.create_queue(QueueName=f"deep-{uuid.uuid4().hex[:8]}")["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    sub = sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn)["SubscriptionArn"]
    deep = '{"a":' * DEEP + '["x"]' + "}" * DEEP
    for scope in ("MessageAttributes", "MessageBody"):
        sns.set_subscription_attributes(SubscriptionArn=sub, AttributeName="FilterPolicyScope", AttributeValue=scope)
        status, code = _code(lambda: sns.set_subscription_attributes(
            SubscriptionArn=sub, AttributeName="FilterPolicy", AttributeValue=deep))
        assert (status, code) == (400, "InvalidParameter")
    assert "FilterPolicy" not in sns.get_subscription_attributes(SubscriptionArn=sub)["Attributes"]


def test_a_definition_with_a_huge_number_is_an_invalid_definition(aws: Callable[..., Any]) -> None:
    sfn = aws("stepfunctions")
    definition = '{"StartAt": "A", "States": {"A": {"Type": "Wait", "Seconds": ' + HUGE + ', "End": true}}}'
    result = sfn.validate_state_machine_definition(definition=definition)
    assert result["result"] == "FAIL"
    assert [d["code"] for d in result["diagnostics"]] == ["INVALID_JSON_DESCRIPTION"]


EVENT = {"id": "1", "account": "000000000000", "source": "x", "time": "2026-01-01T00:00:00Z", "region": "us-east-1",
         "resources": [], "detail-type": "d"}
NESTED = '{"a":' * 30_000 + "1" + "}" * 30_000  # 180 KB: under SNS's and EventBridge's size limits


def test_a_message_body_nested_past_the_parser_passes_no_body_filter(aws: Callable[..., Any]) -> None:
    sns, sqs = aws("sns"), aws("sqs")
    topic = sns.create_topic(Name=f"deepbody-{uuid.uuid4().hex[:8]}")["TopicArn"]
    queue, arn = make_queue(sqs)  # its policy lets SNS send
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn, Attributes={
        "FilterPolicyScope": "MessageBody", "FilterPolicy": '{"a": ["x"]}'})
    assert sns.publish(TopicArn=topic, Message=NESTED)["MessageId"]  # published, and filtered out
    sns.publish(TopicArn=topic, Message='{"a": "x"}')
    got = sqs.receive_message(QueueUrl=queue, WaitTimeSeconds=10)["Messages"]
    assert [json.loads(json.loads(m["Body"])["Message"]) for m in got] == [{"a": "x"}]


def test_an_event_nested_past_the_parser_is_malformed(aws: Callable[..., Any]) -> None:
    events = aws("events")
    put = events.put_events(Entries=[{"Source": "s", "DetailType": "d", "Detail": NESTED}])
    assert put["FailedEntryCount"] == 1 and put["Entries"][0]["ErrorCode"] == "MalformedDetail"
    event = json.dumps(EVENT)[:-1] + ', "detail": ' + NESTED + "}"
    status, code = _code(lambda: events.test_event_pattern(EventPattern='{"detail": {"a": [1]}}', Event=event))
    assert (status, code) == (400, "ValidationException")


def _laughs(levels: int) -> str:
    """A YAML alias bomb: each level lists the one before nine times (9**levels strings in all)."""
    text = 'AWSTemplateFormatVersion: "2010-09-09"\nMetadata:\n  x0: &a0 [' + ",".join(['"lol"'] * 9) + "]\n"
    for i in range(1, levels):
        text += f"  x{i}: &a{i} [{','.join([f'*a{i - 1}'] * 9)}]\n"
    return text + "Resources:\n  Q:\n    Type: AWS::SQS::Queue\n"


def test_a_yaml_alias_bomb_is_a_format_error_and_creates_no_stack(aws: Callable[..., Any]) -> None:
    cfn = aws("cloudformation")
    name = f"laughs-{uuid.uuid4().hex[:8]}"
    for call in (lambda: cfn.validate_template(TemplateBody=_laughs(9)),
                 lambda: cfn.create_stack(StackName=name, TemplateBody=_laughs(9))):
        assert _code(call) == (400, "ValidationError")
    assert _code(lambda: cfn.describe_stacks(StackName=name)) == (400, "ValidationError")  # does not exist
    assert cfn.validate_template(TemplateBody=_laughs(3))["Parameters"] == []  # a few aliases are fine


def test_resource_policies_nested_past_the_parser_are_each_services_bad_input(aws: Callable[..., Any]) -> None:
    s3, sqs, sns = aws("s3"), aws("sqs"), aws("sns")
    bucket = f"deep-{uuid.uuid4().hex[:10]}"
    s3.create_bucket(Bucket=bucket)
    assert _code(lambda: s3.put_bucket_policy(Bucket=bucket, Policy=NESTED)) == (400, "MalformedPolicy")
    queue = sqs.create_queue(QueueName=f"deep-{uuid.uuid4().hex[:8]}")["QueueUrl"]
    for name in ("Policy", "RedrivePolicy"):
        status, _ = _code(lambda n=name: sqs.set_queue_attributes(QueueUrl=queue, Attributes={n: NESTED}))
        assert status == 400, name
    topic = sns.create_topic(Name=f"deep-{uuid.uuid4().hex[:8]}")["TopicArn"]
    for name in ("Policy", "DeliveryPolicy"):
        assert _code(lambda n=name: sns.set_topic_attributes(
            TopicArn=topic, AttributeName=n, AttributeValue=NESTED)) == (400, "InvalidParameter"), name
