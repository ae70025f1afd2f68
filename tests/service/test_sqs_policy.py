"""Queue and topic policies enforced for AWS services delivering: SNS reaches a subscribed queue,
and an EventBridge rule a queue or topic target, only when the resource's policy lets that
service principal in (for events from that topic or rule); otherwise the message is dropped
(SNS: to the subscription's DLQ; EventBridge: a failed delivery, to the target's DLQ). A principal
of another account gets in only through the policy too (AddPermission)."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError

Aws = Callable[..., Any]


def uid(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def queue(aws: Aws) -> tuple[str, str]:
    sqs = aws("sqs")
    url = sqs.create_queue(QueueName=uid("polq"))["QueueUrl"]
    return url, sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]


def grant(service: str, action: str, resource: str, source_arn: str) -> str:
    return json.dumps({"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Principal": {"Service": service}, "Action": action, "Resource": resource,
        "Condition": {"ArnEquals": {"aws:SourceArn": source_arn}}}]})


def let_in(aws: Aws, url: str, arn: str, service: str, source_arn: str) -> None:
    aws("sqs").set_queue_attributes(QueueUrl=url, Attributes={
        "Policy": grant(service, "sqs:SendMessage", arn, source_arn)})


def bodies(aws: Aws, url: str, wait: int = 5) -> list[dict[str, Any]]:
    got = aws("sqs").receive_message(QueueUrl=url, WaitTimeSeconds=wait, MaxNumberOfMessages=10,
                                     MessageAttributeNames=["All"])
    return got.get("Messages", [])


def test_sns_delivers_to_a_queue_only_when_its_policy_names_the_topic(aws: Aws) -> None:
    sns = aws("sns")
    topic = sns.create_topic(Name=uid("polt"))["TopicArn"]
    url, arn = queue(aws)
    dlq_url, dlq_arn = queue(aws)
    let_in(aws, dlq_url, dlq_arn, "sns.amazonaws.com", topic)
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn, Attributes={
        "RawMessageDelivery": "true", "RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq_arn})})
    sns.publish(TopicArn=topic, Message="no policy")
    let_in(aws, url, arn, "sns.amazonaws.com", topic.replace(":polt-", ":other-"))  # names another topic
    sns.publish(TopicArn=topic, Message="another topic's policy")
    # Both refused: dead-lettered (SNS delivers to queues inside Publish, so they are there by now).
    assert sorted(m["Body"] for m in bodies(aws, dlq_url)) == ["another topic's policy", "no policy"]
    assert bodies(aws, url, wait=0) == []
    let_in(aws, url, arn, "sns.amazonaws.com", topic)
    sns.publish(TopicArn=topic, Message="let in")
    assert [m["Body"] for m in bodies(aws, url)] == ["let in"]


def test_an_eventbridge_rule_reaches_a_queue_or_topic_only_through_its_policy(aws: Aws) -> None:
    events, sns = aws("events"), aws("sns")
    source = uid("com.shop")
    rule = uid("polrule")
    rule_arn = events.put_rule(Name=rule, EventPattern=json.dumps({"source": [source]}))["RuleArn"]
    url, arn = queue(aws)
    dlq_url, dlq_arn = queue(aws)
    let_in(aws, dlq_url, dlq_arn, "events.amazonaws.com", rule_arn)
    topic = sns.create_topic(Name=uid("poltopic"))["TopicArn"]  # its default policy does not name EventBridge
    fan_url, fan_arn = queue(aws)
    let_in(aws, fan_url, fan_arn, "sns.amazonaws.com", topic)
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=fan_arn, Attributes={"RawMessageDelivery": "true"})
    no_retry = {"MaximumRetryAttempts": 0}
    events.put_targets(Rule=rule, Targets=[
        {"Id": "q", "Arn": arn, "InputPath": "$.detail", "DeadLetterConfig": {"Arn": dlq_arn}, "RetryPolicy": no_retry},
        {"Id": "t", "Arn": topic, "InputPath": "$.detail", "DeadLetterConfig": {"Arn": dlq_arn},
         "RetryPolicy": no_retry}])

    def put(n: int) -> None:
        out = events.put_events(Entries=[{"Source": source, "DetailType": "t", "Detail": json.dumps({"n": n})}])
        assert out["FailedEntryCount"] == 0

    put(1)
    dead: list[dict[str, Any]] = []
    deadline = time.monotonic() + 30
    while len(dead) < 2 and time.monotonic() < deadline:
        dead += bodies(aws, dlq_url, wait=2)
    assert sorted(m["MessageAttributes"]["TARGET_ARN"]["StringValue"] for m in dead) == sorted([arn, topic])
    assert {m["MessageAttributes"]["ERROR_CODE"]["StringValue"] for m in dead} == {"NO_PERMISSIONS"}
    assert bodies(aws, url, wait=0) == [] and bodies(aws, fan_url, wait=0) == []

    let_in(aws, url, arn, "events.amazonaws.com", rule_arn)
    sns.set_topic_attributes(TopicArn=topic, AttributeName="Policy",
                             AttributeValue=grant("events.amazonaws.com", "sns:Publish", topic, rule_arn))
    put(2)
    assert [json.loads(m["Body"]) for m in bodies(aws, url, wait=10)] == [{"n": 2}]
    assert [json.loads(m["Body"]) for m in bodies(aws, fan_url, wait=10)] == [{"n": 2}]


def test_another_account_sends_or_publishes_only_through_the_resource_policy(aws: Aws) -> None:
    theirs = "111111111111"  # a 12-digit access key selects that account's root
    their_sqs, their_sns = aws("sqs", access_key=theirs), aws("sns", access_key=theirs)
    url, arn = queue(aws)
    with pytest.raises(ClientError) as info:
        their_sqs.send_message(QueueUrl=url, MessageBody="uninvited")
    err = info.value.response
    assert (err["Error"]["Code"], err["ResponseMetadata"]["HTTPStatusCode"]) == ("AccessDenied", 403)
    assert err["Error"]["Message"] == (f"User: arn:aws:iam::{theirs}:root is not authorized to perform: "
                                       f"sqs:sendmessage on resource: {arn} because no resource-based policy "
                                       "allows the sqs:sendmessage action")
    aws("sqs").add_permission(QueueUrl=url, Label="theirs", AWSAccountIds=[theirs], Actions=["SendMessage"])
    their_sqs.send_message(QueueUrl=url, MessageBody="invited")
    their_sqs.send_message_batch(QueueUrl=url, Entries=[{"Id": "1", "MessageBody": "batched"}])
    with pytest.raises(ClientError) as info:  # SendMessage was granted, ReceiveMessage was not
        their_sqs.receive_message(QueueUrl=url)
    assert info.value.response["Error"]["Code"] == "AccessDenied"
    assert sorted(m["Body"] for m in bodies(aws, url)) == ["batched", "invited"]

    topic = aws("sns").create_topic(Name=uid("xacct"))["TopicArn"]
    with pytest.raises(ClientError) as info:
        their_sns.publish(TopicArn=topic, Message="uninvited")
    assert info.value.response["Error"]["Code"] == "AuthorizationError"
    aws("sns").add_permission(TopicArn=topic, Label="theirs", AWSAccountId=[theirs], ActionName=["Publish"])
    assert their_sns.publish(TopicArn=topic, Message="invited")["MessageId"]
