"""Differences from AWS found classifying moto 5.2.1's failing SQS/SNS/EventBridge tests (bench/moto_issue19.md)."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from botocore.exceptions import ClientError

# GetTopicAttributes of a topic without a DeliveryPolicy, as real accounts answer it (compact JSON).
AWS_TOPIC_EFFECTIVE_DELIVERY = (
    '{"http":{"defaultHealthyRetryPolicy":{"minDelayTarget":20,"maxDelayTarget":20,"numRetries":3,'
    '"numMaxDelayRetries":0,"numNoDelayRetries":0,"numMinDelayRetries":0,"backoffFunction":"linear"},'
    '"disableSubscriptionOverrides":false,"defaultRequestPolicy":{"headerContentType":"text/plain; charset=UTF-8"}}}'
)


def _name() -> str:
    return f"t-{uuid.uuid4().hex[:10]}"


def test_topic_effective_delivery_policy_is_aws_compact_json(sns: Any) -> None:
    arn = sns.create_topic(Name=_name())["TopicArn"]
    attributes = sns.get_topic_attributes(TopicArn=arn)["Attributes"]
    assert attributes["EffectiveDeliveryPolicy"] == AWS_TOPIC_EFFECTIVE_DELIVERY
    assert "DeliveryPolicy" not in attributes  # moto's test_topic_attributes expects "": AWS lists none


def test_http_subscription_effective_delivery_policy_is_compact(sns: Any) -> None:
    arn = sns.create_topic(Name=_name())["TopicArn"]
    sub = sns.subscribe(TopicArn=arn, Protocol="http", Endpoint="http://127.0.0.1:9/hook",
                        ReturnSubscriptionArn=True)["SubscriptionArn"]
    text = sns.get_subscription_attributes(SubscriptionArn=sub)["Attributes"]["EffectiveDeliveryPolicy"]
    assert ", " not in text and '": ' not in text
    assert text.startswith('{"defaultHealthyRetryPolicy":{"minDelayTarget":20,')


def test_deduplication_id_on_a_standard_queue_is_refused_in_aws_words(sqs: Any) -> None:
    url = sqs.create_queue(QueueName=_name())["QueueUrl"]
    expected = ("Value d1 for parameter MessageDeduplicationId is invalid. Reason: The request include parameter "
                "that is not valid for this queue type.")
    with pytest.raises(ClientError) as exc:
        sqs.send_message(QueueUrl=url, MessageBody="b", MessageDeduplicationId="d1")
    err = exc.value.response["Error"]
    assert (err["Code"], err["Message"]) == ("InvalidParameterValue", expected)
    batch = sqs.send_message_batch(QueueUrl=url, Entries=[
        {"Id": "ok", "MessageBody": "b"}, {"Id": "dup", "MessageBody": "b", "MessageDeduplicationId": "d1"}])
    assert [e["Id"] for e in batch["Successful"]] == ["ok"]
    assert [(e["Id"], e["Code"], e["Message"]) for e in batch["Failed"]] == [("dup", "InvalidParameterValue", expected)]
    assert "Messages" in sqs.receive_message(QueueUrl=url, WaitTimeSeconds=1)  # the good entry was sent
