"""SNS through boto3 against a real server: topics, subscriptions, fan-out to queues with filter
policies, raw delivery, FIFO, batches, bad input, and the AWS CLI."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError
from sns_setup import bodies, make_queue


def name(prefix: str = "t") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"




def test_topic_lifecycle_and_attributes(sns: Any) -> None:
    topic = name()
    arn = sns.create_topic(Name=topic, Attributes={"DisplayName": "Orders"}, Tags=[{"Key": "k", "Value": "v"}])
    arn = arn["TopicArn"]
    assert arn.endswith(f":{topic}") and arn.startswith("arn:aws:sns:us-east-1:")
    assert sns.create_topic(Name=topic, Attributes={"DisplayName": "Orders"})["TopicArn"] == arn
    attrs = sns.get_topic_attributes(TopicArn=arn)["Attributes"]
    assert attrs["DisplayName"] == "Orders" and attrs["TopicArn"] == arn and attrs["SubscriptionsConfirmed"] == "0"
    assert json.loads(attrs["Policy"])["Statement"][0]["Resource"] == arn
    sns.set_topic_attributes(TopicArn=arn, AttributeName="DisplayName", AttributeValue="Renamed")
    assert sns.get_topic_attributes(TopicArn=arn)["Attributes"]["DisplayName"] == "Renamed"
    assert {"TopicArn": arn} in sns.list_topics()["Topics"]
    assert sns.list_tags_for_resource(ResourceArn=arn)["Tags"] == [{"Key": "k", "Value": "v"}]
    sns.untag_resource(ResourceArn=arn, TagKeys=["k"])
    assert sns.list_tags_for_resource(ResourceArn=arn)["Tags"] == []
    sns.delete_topic(TopicArn=arn)
    with pytest.raises(sns.exceptions.NotFoundException):
        sns.get_topic_attributes(TopicArn=arn)
    sns.delete_topic(TopicArn=arn)  # again: no error


@pytest.mark.parametrize("bad", ["has space", "x" * 257, "a.fifo"])
def test_bad_topic_names(sns: Any, bad: str) -> None:
    with pytest.raises(sns.exceptions.InvalidParameterException):
        sns.create_topic(Name=bad)


def test_filter_policy_routes_to_two_queues(sns: Any, sqs: Any) -> None:
    arn = sns.create_topic(Name=name())["TopicArn"]
    red_url, red_arn = make_queue(sqs)
    big_url, big_arn = make_queue(sqs)
    sns.subscribe(TopicArn=arn, Protocol="sqs", Endpoint=red_arn, Attributes={
        "FilterPolicy": json.dumps({"color": ["red"]}), "RawMessageDelivery": "true"})
    sub = sns.subscribe(TopicArn=arn, Protocol="sqs", Endpoint=big_arn, ReturnSubscriptionArn=True,
                        Attributes={"FilterPolicy": json.dumps({"order": {"total": [{"numeric": [">", 100]}]}}),
                                    "FilterPolicyScope": "MessageBody", "RawMessageDelivery": "true"})
    attrs = sns.get_subscription_attributes(SubscriptionArn=sub["SubscriptionArn"])["Attributes"]
    assert attrs["FilterPolicyScope"] == "MessageBody" and attrs["PendingConfirmation"] == "false"
    color = {"color": {"DataType": "String", "StringValue": "red"}}
    sns.publish(TopicArn=arn, Message=json.dumps({"order": {"total": 5}}), MessageAttributes=color)
    sns.publish(TopicArn=arn, Message=json.dumps({"order": {"total": 500}}))
    sns.publish(TopicArn=arn, Message="neither")
    assert bodies(sqs, red_url) == ['{"order": {"total": 5}}']
    assert bodies(sqs, big_url) == ['{"order": {"total": 500}}']


def test_envelope_and_raw_delivery(sns: Any, sqs: Any) -> None:
    arn = sns.create_topic(Name=name())["TopicArn"]
    env_url, env_arn = make_queue(sqs)
    raw_url, raw_arn = make_queue(sqs)
    sns.subscribe(TopicArn=arn, Protocol="sqs", Endpoint=env_arn)
    raw_sub = sns.subscribe(TopicArn=arn, Protocol="sqs", Endpoint=raw_arn)["SubscriptionArn"]
    sns.set_subscription_attributes(SubscriptionArn=raw_sub, AttributeName="RawMessageDelivery",
                                    AttributeValue="true")
    attrs = {"k": {"DataType": "String", "StringValue": "v"}}
    sent = sns.publish(TopicArn=arn, Message="payload", Subject="Hi", MessageAttributes=attrs)
    [envelope] = bodies(sqs, env_url)
    doc = json.loads(envelope)
    assert doc["Type"] == "Notification" and doc["MessageId"] == sent["MessageId"]
    assert doc["TopicArn"] == arn and doc["Message"] == "payload" and doc["Subject"] == "Hi"
    assert doc["MessageAttributes"] == {"k": {"Type": "String", "Value": "v"}}
    assert doc["Timestamp"].endswith("Z") and doc["SignatureVersion"] == "1"
    got = sqs.receive_message(QueueUrl=raw_url, MessageAttributeNames=["All"])["Messages"][0]
    assert got["Body"] == "payload" and got["MessageAttributes"]["k"]["StringValue"] == "v"


def test_message_structure_json(sns: Any, sqs: Any) -> None:
    arn = sns.create_topic(Name=name())["TopicArn"]
    url, qarn = make_queue(sqs)
    sns.subscribe(TopicArn=arn, Protocol="sqs", Endpoint=qarn, Attributes={"RawMessageDelivery": "true"})
    sns.publish(TopicArn=arn, MessageStructure="json", Message=json.dumps({"default": "d", "sqs": "for queues"}))
    assert bodies(sqs, url) == ["for queues"]
    with pytest.raises(sns.exceptions.InvalidParameterException) as exc:
        sns.publish(TopicArn=arn, MessageStructure="json", Message=json.dumps({"sqs": "x"}))
    assert "No default entry" in exc.value.response["Error"]["Message"]


def test_fifo_topic_to_fifo_queue(sns: Any, sqs: Any) -> None:
    arn = sns.create_topic(Name=name() + ".fifo", Attributes={"FifoTopic": "true",
                                                            "ContentBasedDeduplication": "true"})["TopicArn"]
    url, qarn = make_queue(sqs, fifo=True)
    sns.subscribe(TopicArn=arn, Protocol="sqs", Endpoint=qarn, Attributes={"RawMessageDelivery": "true"})
    with pytest.raises(sns.exceptions.InvalidParameterException):
        sns.publish(TopicArn=arn, Message="no group")
    first = sns.publish(TopicArn=arn, Message="one", MessageGroupId="g")
    assert "SequenceNumber" in first
    assert sns.publish(TopicArn=arn, Message="one", MessageGroupId="g")["MessageId"] == first["MessageId"]
    sns.publish(TopicArn=arn, Message="two", MessageGroupId="g")
    got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, AttributeNames=["MessageGroupId"])["Messages"]
    assert [m["Body"] for m in got] == ["one", "two"]
    assert got[0]["Attributes"]["MessageGroupId"] == "g"
    with pytest.raises(sns.exceptions.InvalidParameterException):
        sns.subscribe(TopicArn=arn, Protocol="lambda",
                      Endpoint="arn:aws:lambda:us-east-1:000000000000:function:f")


def test_publish_batch(sns: Any, sqs: Any) -> None:
    arn = sns.create_topic(Name=name())["TopicArn"]
    url, qarn = make_queue(sqs)
    sns.subscribe(TopicArn=arn, Protocol="sqs", Endpoint=qarn, Attributes={"RawMessageDelivery": "true"})
    out = sns.publish_batch(TopicArn=arn, PublishBatchRequestEntries=[
        {"Id": "a", "Message": "1"}, {"Id": "b", "Message": "2"}])
    assert sorted(e["Id"] for e in out["Successful"]) == ["a", "b"] and out["Failed"] == []
    assert sorted(bodies(sqs, url)) == ["1", "2"]
    # One entry's bad input refuses the whole batch: nothing of it is published.
    with pytest.raises(sns.exceptions.InvalidParameterException) as exc:
        sns.publish_batch(TopicArn=arn, PublishBatchRequestEntries=[
            {"Id": "a", "Message": "fine"}, {"Id": "c", "Message": ""}])
    assert exc.value.response["Error"]["Message"] == "Invalid parameter: Empty message"
    assert bodies(sqs, url) == []
    with pytest.raises(sns.exceptions.BatchEntryIdsNotDistinctException):
        sns.publish_batch(TopicArn=arn, PublishBatchRequestEntries=[{"Id": "a", "Message": "1"}] * 2)


def test_bad_input_changes_nothing(sns: Any, sqs: Any) -> None:
    arn = sns.create_topic(Name=name())["TopicArn"]
    _, qarn = make_queue(sqs)
    for attrs in ({"FilterPolicy": "not json"}, {"FilterPolicy": '{"a": [{"frob": 1}]}'},
                  {"RawMessageDelivery": "maybe"}, {"Bogus": "1"}):
        with pytest.raises(sns.exceptions.InvalidParameterException) as exc:
            sns.subscribe(TopicArn=arn, Protocol="sqs", Endpoint=qarn, Attributes=attrs)
        assert exc.value.response["Error"]["Message"].startswith("Invalid parameter: ")
    with pytest.raises(sns.exceptions.InvalidParameterException) as exc:
        sns.subscribe(TopicArn=arn, Protocol="sqs", Endpoint=qarn, Attributes={"FilterPolicy": '{"a": [{"frob": 1}]}'})
    assert exc.value.response["Error"]["Message"] == \
        "Invalid parameter: Attributes Reason: FilterPolicy: Unrecognized match type frob"
    with pytest.raises(sns.exceptions.InvalidParameterException):
        sns.subscribe(TopicArn=arn, Protocol="carrier-pigeon", Endpoint="x")
    with pytest.raises(sns.exceptions.InvalidParameterException):
        sns.subscribe(TopicArn=arn, Protocol="sqs", Endpoint="not-an-arn")
    assert sns.list_subscriptions_by_topic(TopicArn=arn)["Subscriptions"] == []
    with pytest.raises(sns.exceptions.NotFoundException):
        sns.publish(TopicArn=arn + "-missing", Message="x")
    with pytest.raises(ClientError) as exc:
        sns.publish(TopicArn=arn, Message="x", MessageAttributes={"a": {"DataType": "Weird", "StringValue": "1"}})
    assert exc.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400


def test_unsubscribe_stops_delivery(sns: Any, sqs: Any) -> None:
    arn = sns.create_topic(Name=name())["TopicArn"]
    url, qarn = make_queue(sqs)
    sub = sns.subscribe(TopicArn=arn, Protocol="sqs", Endpoint=qarn)["SubscriptionArn"]
    sns.unsubscribe(SubscriptionArn=sub)
    sns.publish(TopicArn=arn, Message="x")
    assert bodies(sqs, url) == []


def test_aws_cli(aws_cli: Callable[..., Any], sqs: Any) -> None:
    made = aws_cli("sns", "create-topic", "--name", name("cli"), "--output", "json")
    assert made.returncode == 0, made.stderr
    arn = json.loads(made.stdout)["TopicArn"]
    url, qarn = make_queue(sqs)
    sub = aws_cli("sns", "subscribe", "--topic-arn", arn, "--protocol", "sqs", "--notification-endpoint", qarn,
                  "--attributes", '{"RawMessageDelivery":"true"}')
    assert sub.returncode == 0, sub.stderr
    pub = aws_cli("sns", "publish", "--topic-arn", arn, "--message", "via cli", "--output", "json")
    assert pub.returncode == 0 and json.loads(pub.stdout)["MessageId"]
    deadline = time.monotonic() + 5
    got: list[str] = []
    while not got and time.monotonic() < deadline:
        got = bodies(sqs, url)
    assert got == ["via cli"]


def test_empty_filter_policy_takes_the_filter_away(sns: Any, sqs: Any) -> None:
    # AWS's SetSubscriptionAttributes example removes a filter policy with --attribute-value "{}"
    arn = sns.create_topic(Name=name())["TopicArn"]
    url, qarn = make_queue(sqs)
    sub = sns.subscribe(TopicArn=arn, Protocol="sqs", Endpoint=qarn, ReturnSubscriptionArn=True,
                        Attributes={"FilterPolicy": json.dumps({"color": ["red"]}), "RawMessageDelivery": "true",
                                    "FilterPolicyScope": "MessageBody"})["SubscriptionArn"]
    sns.set_subscription_attributes(SubscriptionArn=sub, AttributeName="FilterPolicy", AttributeValue="{}")
    attrs = sns.get_subscription_attributes(SubscriptionArn=sub)["Attributes"]
    assert "FilterPolicy" not in attrs
    sns.publish(TopicArn=arn, Message=json.dumps({"color": "blue"}))
    assert bodies(sqs, url) == ['{"color": "blue"}']
