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


def _account_client(aws: Any, service: str) -> tuple[str, Any]:
    account = f"{uuid.uuid4().int % 10**12:012d}"
    return account, aws(service, access_key=account)


def test_a_deleted_partner_source_shows_deleted_while_its_bus_lives(aws: Any) -> None:
    """DeletePartnerEventSource: "the status of the corresponding partner event bus in the ... customer
    account becomes DELETED"; EventSource.State DELETED: "you have created a matching event bus, but the
    event source has since been deleted" (the botocore model's documentation)."""
    _, partner = _account_client(aws, "events")
    customer_account, customer = _account_client(aws, "events")
    name = f"aws.partner/saas.example.com/{uuid.uuid4().hex[:8]}/orders"
    partner.create_partner_event_source(Name=name, Account=customer_account)
    customer.create_event_bus(Name=name, EventSourceName=name)
    partner.delete_partner_event_source(Name=name, Account=customer_account)
    assert customer.describe_event_source(Name=name)["State"] == "DELETED"
    listed = customer.list_event_sources(NamePrefix=name)["EventSources"]
    assert [(s["Name"], s["State"]) for s in listed] == [(name, "DELETED")]
    with pytest.raises(customer.exceptions.InvalidStateException):
        customer.activate_event_source(Name=name)
    with pytest.raises(partner.exceptions.ResourceNotFoundException):  # gone from the partner's view
        partner.describe_partner_event_source(Name=name)
    assert partner.list_partner_event_sources(NamePrefix=name)["PartnerEventSources"] == []
    sent = partner.put_partner_events(Entries=[{"Source": name, "DetailType": "x", "Detail": "{}"}])
    assert sent["FailedEntryCount"] == 1
    customer.delete_event_bus(Name=name)  # with its bus, the deleted source is gone
    with pytest.raises(customer.exceptions.ResourceNotFoundException):
        customer.describe_event_source(Name=name)


def test_a_partner_source_deleted_before_its_bus_exists_is_gone(aws: Any) -> None:
    _, partner = _account_client(aws, "events")
    customer_account, customer = _account_client(aws, "events")
    name = f"aws.partner/saas.example.com/{uuid.uuid4().hex[:8]}/orders"
    partner.create_partner_event_source(Name=name, Account=customer_account)
    partner.delete_partner_event_source(Name=name, Account=customer_account)
    with pytest.raises(customer.exceptions.ResourceNotFoundException):
        customer.describe_event_source(Name=name)
