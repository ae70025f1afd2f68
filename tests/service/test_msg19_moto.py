"""Differences from AWS found classifying moto 5.2.1's failing SQS/SNS/EventBridge tests (bench/moto_issue19.md)."""

from __future__ import annotations

import json
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


def _queue_for_events(sqs: Any) -> tuple[str, str]:
    url = sqs.create_queue(QueueName=_name())["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    sqs.set_queue_attributes(QueueUrl=url, Attributes={"Policy": json.dumps({"Statement": [{
        "Effect": "Allow", "Principal": {"Service": "events.amazonaws.com"}, "Action": "sqs:SendMessage",
        "Resource": arn}]})})
    return url, arn


def test_put_events_with_an_endpoint_id_reaches_the_primary_regions_bus(aws: Any) -> None:
    """A global endpoint's PutEvents (boto3 signs it with SigV4a, region set "*") goes to the endpoint's
    bus in its primary Region, whichever Region the client names (EventBridge user guide, global endpoints)."""
    account = f"{uuid.uuid4().int % 10**12:012d}"
    bus = _name()
    queues = {}
    for region in ("us-east-1", "us-west-2"):
        events, sqs = aws("events", region=region, access_key=account), aws("sqs", region=region, access_key=account)
        events.create_event_bus(Name=bus)
        url, arn = _queue_for_events(sqs)
        events.put_rule(Name="all", EventBusName=bus, EventPattern=json.dumps({"source": ["orders"]}))
        events.put_targets(Rule="all", EventBusName=bus, Targets=[{"Id": "q", "Arn": arn}])
        queues[region] = (sqs, url)
    east = aws("events", region="us-east-1", access_key=account)
    made = east.create_endpoint(Name=_name(), ReplicationConfig={"State": "DISABLED"}, RoutingConfig={
        "FailoverConfig": {"Primary": {"HealthCheck": "arn:aws:route53:::healthcheck/0a1b2c3d-example"},
                           "Secondary": {"Route": "us-west-2"}}},
        EventBuses=[{"EventBusArn": f"arn:aws:events:{r}:{account}:event-bus/{bus}"}
                    for r in ("us-east-1", "us-west-2")])
    endpoint_id = east.describe_endpoint(Name=made["Name"])["EndpointId"]
    west = aws("events", region="us-west-2", access_key=account)
    sent = west.put_events(EndpointId=endpoint_id, Entries=[{"Source": "orders", "DetailType": "placed",
                                                             "Detail": json.dumps({"id": 1})}])
    assert sent["FailedEntryCount"] == 0
    sqs, url = queues["us-east-1"]
    got = sqs.receive_message(QueueUrl=url, WaitTimeSeconds=10)["Messages"]
    event = json.loads(got[0]["Body"])
    assert (event["region"], event["account"], event["detail"]) == ("us-east-1", account, {"id": 1})
    assert event["id"] == sent["Entries"][0]["EventId"]
    sqs, url = queues["us-west-2"]
    assert "Messages" not in sqs.receive_message(QueueUrl=url, WaitTimeSeconds=1)
    with pytest.raises(ClientError) as exc:
        west.put_events(EndpointId="nosuch.veo", Entries=[{"Source": "orders", "DetailType": "d", "Detail": "{}"}])
    assert exc.value.response["Error"]["Code"] == "ResourceNotFoundException"
