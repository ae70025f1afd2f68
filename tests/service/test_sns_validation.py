"""SNS refusing bad input as AWS does, changing nothing: PublishBatch refuses the whole batch for
one bad entry, Subscribe and SetSubscriptionAttributes word a bad filter policy differently, and
phone numbers are held to E.164 (Publish to a number, sms subscriptions)."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from sns_setup import bodies, make_queue


def name(prefix: str = "v") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"




def error(exc: Any) -> tuple[str, str]:
    return exc.value.response["Error"]["Code"], exc.value.response["Error"]["Message"]


def test_fifo_batch_without_group_or_dedup_id_is_refused_whole(sns: Any, sqs: Any) -> None:
    arn = sns.create_topic(Name=name() + ".fifo", Attributes={"FifoTopic": "true"})["TopicArn"]
    url, qarn = make_queue(sqs, fifo=True)
    sns.subscribe(TopicArn=arn, Protocol="sqs", Endpoint=qarn)
    good = {"Id": "ok", "Message": "m", "MessageGroupId": "g", "MessageDeduplicationId": "d"}
    with pytest.raises(sns.exceptions.InvalidParameterException) as exc:
        sns.publish_batch(TopicArn=arn, PublishBatchRequestEntries=[good, {"Id": "2", "Message": "no group"}])
    assert error(exc) == ("InvalidParameter",
                          "Invalid parameter: The MessageGroupId parameter is required for FIFO topics")
    with pytest.raises(sns.exceptions.InvalidParameterException) as exc:
        sns.publish_batch(TopicArn=arn, PublishBatchRequestEntries=[
            good, {"Id": "3", "Message": "no dedup", "MessageGroupId": "g"}])
    assert error(exc)[1] == ("Invalid parameter: The topic should either have ContentBasedDeduplication enabled or "
                             "MessageDeduplicationId provided explicitly")
    assert bodies(sqs, url) == []  # the good entry was not published either
    out = sns.publish_batch(TopicArn=arn, PublishBatchRequestEntries=[good])
    assert [e["Id"] for e in out["Successful"]] == ["ok"] and out["Failed"] == []


def test_batch_with_a_bad_structure_or_attribute_is_refused_whole(sns: Any, sqs: Any) -> None:
    arn = sns.create_topic(Name=name())["TopicArn"]
    url, qarn = make_queue(sqs)
    sns.subscribe(TopicArn=arn, Protocol="sqs", Endpoint=qarn)
    with pytest.raises(sns.exceptions.InvalidParameterException) as exc:
        sns.publish_batch(TopicArn=arn, PublishBatchRequestEntries=[
            {"Id": "1", "Message": "fine"},
            {"Id": "2", "Message": json.dumps({"sqs": "x"}), "MessageStructure": "json"}])
    assert error(exc)[1] == "Invalid parameter: Message Structure - No default entry in JSON message body"
    with pytest.raises(sns.exceptions.InvalidParameterValueException) as exc:
        sns.publish_batch(TopicArn=arn, PublishBatchRequestEntries=[
            {"Id": "1", "Message": "fine"},
            {"Id": "2", "Message": "m", "MessageAttributes": {"a": {"DataType": "String", "StringValue": ""}}}])
    assert error(exc) == ("ParameterValueInvalid", "The message attribute 'a' must contain non-empty message "
                          "attribute value for message attribute type 'String'.")
    assert bodies(sqs, url) == []


def test_filter_policy_errors_through_subscribe_and_set_attributes(sns: Any, sqs: Any) -> None:
    arn = sns.create_topic(Name=name())["TopicArn"]
    _, qarn = make_queue(sqs)
    bad = json.dumps({"key": [{"numeric": [">", 20, 30]}]})
    with pytest.raises(sns.exceptions.InvalidParameterException) as exc:
        sns.subscribe(TopicArn=arn, Protocol="sqs", Endpoint=qarn, Attributes={"FilterPolicy": bad})
    assert error(exc)[1] == "Invalid parameter: Attributes Reason: FilterPolicy: Bad value in numeric range: 30"
    assert sns.list_subscriptions_by_topic(TopicArn=arn)["Subscriptions"] == []
    sub = sns.subscribe(TopicArn=arn, Protocol="sqs", Endpoint=qarn)["SubscriptionArn"]
    with pytest.raises(sns.exceptions.InvalidParameterException) as exc:
        sns.set_subscription_attributes(SubscriptionArn=sub, AttributeName="FilterPolicy", AttributeValue=bad)
    assert error(exc)[1] == "Invalid parameter: FilterPolicy: Bad value in numeric range: 30"
    nested = json.dumps({"object": {"key": [{"prefix": "auto-"}]}})
    with pytest.raises(sns.exceptions.InvalidParameterException) as exc:
        sns.set_subscription_attributes(SubscriptionArn=sub, AttributeName="FilterPolicy", AttributeValue=nested)
    assert error(exc)[1] == \
        "Invalid parameter: Filter policy scope MessageAttributes does not support nested filter policy"
    with pytest.raises(sns.exceptions.InvalidParameterException) as exc:
        sns.set_subscription_attributes(SubscriptionArn=sub, AttributeName="FilterPolicyScope",
                                        AttributeValue="RandomValue")
    assert error(exc)[1] == ("Invalid parameter: FilterPolicyScope: Invalid value [RandomValue]. Please use either "
                             "MessageBody or MessageAttributes")
    assert "FilterPolicy" not in sns.get_subscription_attributes(SubscriptionArn=sub)["Attributes"]
    sns.set_subscription_attributes(SubscriptionArn=sub, AttributeName="FilterPolicyScope",
                                    AttributeValue="MessageBody")
    sns.set_subscription_attributes(SubscriptionArn=sub, AttributeName="FilterPolicy", AttributeValue=nested)
    got = sns.get_subscription_attributes(SubscriptionArn=sub)["Attributes"]
    assert json.loads(got["FilterPolicy"]) == json.loads(nested) and got["FilterPolicyScope"] == "MessageBody"


def test_boolean_match_values_are_accepted(sns: Any, sqs: Any) -> None:
    arn = sns.create_topic(Name=name())["TopicArn"]
    url, qarn = make_queue(sqs)
    sns.subscribe(TopicArn=arn, Protocol="sqs", Endpoint=qarn, Attributes={
        "FilterPolicy": json.dumps({"encrypted": [False]}), "FilterPolicyScope": "MessageBody",
        "RawMessageDelivery": "true"})
    sns.publish(TopicArn=arn, Message=json.dumps({"encrypted": True}))
    sns.publish(TopicArn=arn, Message=json.dumps({"encrypted": False}))
    assert bodies(sqs, url) == [json.dumps({"encrypted": False})]


def test_sms_numbers_must_be_e164(sns: Any) -> None:
    with pytest.raises(sns.exceptions.InvalidParameterException) as exc:
        sns.publish(PhoneNumber="NAA+15551234567", Message="hi")
    assert error(exc) == ("InvalidParameter", "Invalid parameter: PhoneNumber Reason: NAA+15551234567 is not valid "
                          "to publish to")
    with pytest.raises(sns.exceptions.InvalidParameterException):
        sns.publish(PhoneNumber="+15551234567", Message="a" * 1601)
    assert sns.publish(PhoneNumber="+15551234567", Message="a" * 1600)["MessageId"]
    arn = sns.create_topic(Name=name())["TopicArn"]
    for endpoint in ("+15--551234567", "+15551234567.", "/+15551234567", "NAA+15551234567"):
        with pytest.raises(sns.exceptions.InvalidParameterException) as exc:
            sns.subscribe(TopicArn=arn, Protocol="sms", Endpoint=endpoint)
        assert error(exc)[1] == f"Invalid SMS endpoint: {endpoint}"
    assert sns.list_subscriptions_by_topic(TopicArn=arn)["Subscriptions"] == []
    sub = sns.subscribe(TopicArn=arn, Protocol="sms", Endpoint="+1-555-123-4567")["SubscriptionArn"]
    assert sns.get_subscription_attributes(SubscriptionArn=sub)["Attributes"]["Endpoint"] == "+1-555-123-4567"


# Bad message attributes and AWS's words for them (LocalStack's AWS-validated
# test_empty_or_wrong_message_attributes and test_message_attributes_prefixes).
BAD_ATTRIBUTES = [
    ({"attr1": {"DataType": "String", "StringValue": ""}},
     "The message attribute 'attr1' must contain non-empty message attribute value for message attribute type "
     "'String'."),
    ({"attr1": {"DataType": "Binary", "BinaryValue": b""}},
     "The message attribute 'attr1' must contain non-empty message attribute value for message attribute type "
     "'Binary'."),
    ({"attr1": {"DataType": "String", "BinaryValue": b"123"}},
     "The message attribute 'attr1' with type 'String' must use field 'String'."),
    ({"attr1": {"DataType": "Number", "BinaryValue": b"123"}},
     "The message attribute 'attr1' with type 'Number' must use field 'String'."),
    ({"attr1": {"DataType": "Binary", "StringValue": "123"}},
     "The message attribute 'attr1' with type 'Binary' must use field 'Binary'."),
    ({"attr1": {"DataType": "InvalidType", "StringValue": "123"}},
     "The message attribute 'attr1' has an invalid message attribute type, the set of supported type prefixes is "
     "Binary, Number, and String."),
    ({"attr1": {"DataType": "String.", "StringValue": "1"}},
     "The message attribute 'attr1' has an invalid message attribute type, the set of supported type prefixes is "
     "Binary, Number, and String."),
    ({"a" * 257: {"DataType": "String", "StringValue": "123"}},
     "Length of message attribute name must be less than 256 bytes."),
    ({"a^*?": {"DataType": "String", "StringValue": "123"}},
     "Invalid non-alphanumeric character '#x5E' was found in the message attribute name. Can only include "
     "alphanumeric characters, hyphens, underscores, or dots."),
    ({".abc": {"DataType": "String", "StringValue": "123"}},
     "Invalid message attribute name starting with character '.' was found."),
    ({"abc.": {"DataType": "String", "StringValue": "123"}},
     "Invalid message attribute name ending with character '.' was found."),
    ({"a..bc": {"DataType": "String", "StringValue": "123"}},
     "Message attribute name can not have successive '.' character."),
]


@pytest.mark.parametrize(("attributes", "message"), BAD_ATTRIBUTES, ids=lambda v: str(v)[:40])
def test_bad_message_attributes(sns: Any, sqs: Any, attributes: dict[str, Any], message: str) -> None:
    arn = sns.create_topic(Name=name())["TopicArn"]
    url, qarn = make_queue(sqs)
    sns.subscribe(TopicArn=arn, Protocol="sqs", Endpoint=qarn)
    with pytest.raises(sns.exceptions.InvalidParameterValueException) as exc:
        sns.publish(TopicArn=arn, Message="m", MessageAttributes=attributes)
    assert error(exc) == ("ParameterValueInvalid", message)
    assert bodies(sqs, url) == []


def test_custom_attribute_types_publish(sns: Any) -> None:
    arn = sns.create_topic(Name=name())["TopicArn"]
    for data_type in ("String.prefixed", "String.  prefixed."):
        assert sns.publish(TopicArn=arn, Message="m", MessageAttributes={
            "attr1": {"DataType": data_type, "StringValue": "prefixed-1"}})["MessageId"]


def test_a_topic_of_another_region_is_not_served(aws: Any, sns: Any) -> None:
    arn = sns.create_topic(Name=name())["TopicArn"]
    west = aws("sns", region="us-west-2")
    assert {"TopicArn": arn} not in west.list_topics()["Topics"]
    for call in (lambda: west.get_topic_attributes(TopicArn=arn), lambda: west.publish(TopicArn=arn, Message="m"),
                 lambda: west.subscribe(TopicArn=arn, Protocol="sms", Endpoint="+15551234567")):
        with pytest.raises(west.exceptions.InvalidParameterException) as exc:
            call()
        assert error(exc) == ("InvalidParameter", "Invalid parameter: TopicArn")
    assert sns.list_subscriptions_by_topic(TopicArn=arn)["Subscriptions"] == []


def test_add_permission_takes_topic_actions_only(sns: Any) -> None:
    arn = sns.create_topic(Name=name())["TopicArn"]
    before = sns.get_topic_attributes(TopicArn=arn)["Attributes"]["Policy"]
    with pytest.raises(sns.exceptions.InvalidParameterException) as exc:
        sns.add_permission(TopicArn=arn, Label="l", AWSAccountId=["999999999999"], ActionName=["NotExistingAction"])
    assert error(exc)[1] == "Invalid parameter: Policy statement action out of service scope!"
    assert sns.get_topic_attributes(TopicArn=arn)["Attributes"]["Policy"] == before
    sns.add_permission(TopicArn=arn, Label="l", AWSAccountId=["999999999999"], ActionName=["Publish", "Subscribe"])
    statement = json.loads(sns.get_topic_attributes(TopicArn=arn)["Attributes"]["Policy"])["Statement"][-1]
    assert statement["Sid"] == "l" and statement["Action"] == ["SNS:Publish", "SNS:Subscribe"]


def test_attributes_count_toward_the_256_kib(sns: Any) -> None:
    arn = sns.create_topic(Name=name())["TopicArn"]
    message = "m" * (256 * 1024 - 100)
    assert sns.publish(TopicArn=arn, Message=message)["MessageId"]
    with pytest.raises(sns.exceptions.InvalidParameterException) as exc:
        sns.publish(TopicArn=arn, Message=message, MessageAttributes={
            "big": {"DataType": "String", "StringValue": "v" * 200}})
    assert error(exc)[1] == "Invalid parameter: Message too long"


def test_a_group_id_reaches_standard_queues_from_standard_topics_only(sns: Any, sqs: Any) -> None:
    def group_of(topic_arn: str, url: str, **extra: Any) -> str | None:
        sns.publish(TopicArn=topic_arn, Message="m", MessageGroupId="tenant-1", **extra)
        got = sqs.receive_message(QueueUrl=url, AttributeNames=["MessageGroupId"])["Messages"]
        return got[0].get("Attributes", {}).get("MessageGroupId")

    standard = sns.create_topic(Name=name())["TopicArn"]
    url, qarn = make_queue(sqs)
    sns.subscribe(TopicArn=standard, Protocol="sqs", Endpoint=qarn)
    assert group_of(standard, url) == "tenant-1"  # fair queues
    fifo = sns.create_topic(Name=name() + ".fifo", Attributes={"FifoTopic": "true"})["TopicArn"]
    url2, qarn2 = make_queue(sqs)
    sns.subscribe(TopicArn=fifo, Protocol="sqs", Endpoint=qarn2)
    assert group_of(fifo, url2, MessageDeduplicationId="d") is None


def test_a_subject_is_less_than_100_characters_on_one_line(sns: Any) -> None:
    arn = sns.create_topic(Name=name())["TopicArn"]
    assert sns.publish(TopicArn=arn, Message="m", Subject="s" * 99)["MessageId"]
    for subject in ("s" * 100, "two\nlines", ""):
        with pytest.raises(sns.exceptions.InvalidParameterException) as exc:
            sns.publish(TopicArn=arn, Message="m", Subject=subject)
        assert error(exc)[1] == "Invalid parameter: Subject"


@pytest.mark.parametrize("scope", ["Topic", "MessageGroup"])
def test_fifo_deduplication_scope(sns: Any, sqs: Any, scope: str) -> None:
    arn = sns.create_topic(Name=name() + ".fifo", Attributes={"FifoTopic": "true",
                                                               "FifoThroughputScope": scope})["TopicArn"]
    # the queue deduplicates per group too, so what SNS passes on shows
    url, qarn = make_queue(sqs, fifo=True, DeduplicationScope="messageGroup", FifoThroughputLimit="perMessageGroupId")
    sns.subscribe(TopicArn=arn, Protocol="sqs", Endpoint=qarn, Attributes={"RawMessageDelivery": "true"})
    first = sns.publish(TopicArn=arn, Message="a", MessageGroupId="g1", MessageDeduplicationId="same")
    second = sns.publish(TopicArn=arn, Message="b", MessageGroupId="g2", MessageDeduplicationId="same")
    got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    if scope == "Topic":  # one topic-wide scope: the second is a duplicate of the first
        assert second["MessageId"] == first["MessageId"] and [m["Body"] for m in got] == ["a"]
    else:  # each group has its own scope
        assert second["MessageId"] != first["MessageId"]
        assert sorted(m["Body"] for m in got) == ["a", "b"]


def test_message_structure_default_must_be_a_string(sns: Any) -> None:
    arn = sns.create_topic(Name=name())["TopicArn"]
    with pytest.raises(sns.exceptions.InvalidParameterException) as exc:
        sns.publish(TopicArn=arn, Message=json.dumps({"default": {"not": "a string"}}), MessageStructure="json")
    assert error(exc)[1] == "Invalid parameter: Message Structure - No default entry in JSON message body"
