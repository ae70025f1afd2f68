"""SNS mobile push through boto3: platform applications, their endpoints (idempotent on the
token), publishing to an endpoint, and the account's SMS settings."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from botocore.exceptions import ClientError


def test_platform_application_lifecycle(aws: Any) -> None:
    sns = aws("sns")
    name = f"app-{uuid.uuid4().hex[:8]}"
    arn = sns.create_platform_application(Name=name, Platform="APNS", Attributes={
        "PlatformCredential": "cred", "PlatformPrincipal": "principal"})["PlatformApplicationArn"]
    assert arn.endswith(f":app/APNS/{name}") and arn.startswith("arn:aws:sns:")
    sns.set_platform_application_attributes(PlatformApplicationArn=arn, Attributes={"PlatformPrincipal": "other"})
    assert sns.get_platform_application_attributes(PlatformApplicationArn=arn)["Attributes"] == {
        "PlatformCredential": "cred", "PlatformPrincipal": "other"}
    listed = sns.list_platform_applications()["PlatformApplications"]
    assert {"PlatformApplicationArn": arn, "Attributes": {"PlatformCredential": "cred",
                                                          "PlatformPrincipal": "other"}} in listed
    with pytest.raises(ClientError) as exc:
        sns.create_platform_application(Name=name, Platform="NOKIA", Attributes={"PlatformCredential": "c"})
    assert exc.value.response["Error"]["Code"] == "InvalidParameter"
    sns.delete_platform_application(PlatformApplicationArn=arn)
    sns.delete_platform_application(PlatformApplicationArn=arn)  # gone already: no error
    with pytest.raises(ClientError) as exc:
        sns.get_platform_application_attributes(PlatformApplicationArn=arn)
    assert exc.value.response["Error"]["Code"] == "NotFound"
    assert exc.value.response["Error"]["Message"] == "PlatformApplication does not exist"


def test_endpoints_and_publishing_to_them(aws: Any) -> None:
    sns = aws("sns")
    app = sns.create_platform_application(Name=f"app-{uuid.uuid4().hex[:8]}", Platform="GCM",
                                          Attributes={"PlatformCredential": "key"})["PlatformApplicationArn"]
    first = sns.create_platform_endpoint(PlatformApplicationArn=app, Token="t1",
                                         Attributes={"Enabled": "false"})["EndpointArn"]
    assert ":endpoint/GCM/" in first
    assert sns.create_platform_endpoint(PlatformApplicationArn=app, Token="t1",
                                        Attributes={"Enabled": "false"})["EndpointArn"] == first
    with pytest.raises(ClientError) as exc:
        sns.create_platform_endpoint(PlatformApplicationArn=app, Token="t1", CustomUserData="x",
                                     Attributes={"Enabled": "false"})
    assert exc.value.response["Error"]["Message"] == (
        f"Invalid parameter: Token Reason: Endpoint {first} already exists with the same Token, but different "
        "attributes.")
    assert sns.get_endpoint_attributes(EndpointArn=first)["Attributes"] == {"Enabled": "false", "Token": "t1"}
    with pytest.raises(ClientError) as exc:
        sns.publish(TargetArn=first, Message="hi")
    assert exc.value.response["Error"]["Code"] == "EndpointDisabled"
    assert exc.value.response["Error"]["Message"] == "Endpoint is disabled"
    sns.set_endpoint_attributes(EndpointArn=first, Attributes={"Enabled": "true", "CustomUserData": "d"})
    assert sns.publish(TargetArn=first, Message="hi")["MessageId"]
    listed = sns.list_endpoints_by_platform_application(PlatformApplicationArn=app)["Endpoints"]
    assert listed == [{"EndpointArn": first, "Attributes": {"Enabled": "true", "Token": "t1",
                                                            "CustomUserData": "d"}}]
    topic = sns.create_topic(Name=f"push-{uuid.uuid4().hex[:8]}")["TopicArn"]
    assert sns.subscribe(TopicArn=topic, Protocol="application", Endpoint=first)["SubscriptionArn"].startswith(topic)
    sns.delete_endpoint(EndpointArn=first)
    sns.delete_endpoint(EndpointArn=first)
    with pytest.raises(ClientError) as exc:
        sns.subscribe(TopicArn=topic, Protocol="application", Endpoint=first)
    assert exc.value.response["Error"]["Message"] == (
        f"Invalid parameter: Endpoint Reason: Endpoint does not exist for endpoint arn{first}")
    with pytest.raises(ClientError) as exc:
        sns.get_endpoint_attributes(EndpointArn=first)
    assert exc.value.response["Error"]["Message"] == "Endpoint does not exist"
    with pytest.raises(ClientError) as exc:
        sns.create_platform_endpoint(PlatformApplicationArn=app + "2", Token="t")
    assert exc.value.response["Error"]["Message"] == "PlatformApplication does not exist"


def test_sms_attributes(aws: Any) -> None:
    sns = aws("sns")
    sns.set_sms_attributes(attributes={"DefaultSMSType": "Transactional", "DefaultSenderID": "me"})
    assert sns.get_sms_attributes(attributes=["DefaultSMSType"])["attributes"] == {
        "DefaultSMSType": "Transactional"}
    assert sns.get_sms_attributes()["attributes"] == {"DefaultSMSType": "Transactional", "DefaultSenderID": "me"}


def test_phone_number_opt_outs(aws: Any) -> None:
    """onceflow sends no SMS, so no recipient can reply STOP: no number is opted out."""
    sns = aws("sns")
    assert sns.check_if_phone_number_is_opted_out(phoneNumber="+447428545375")["isOptedOut"] is False
    assert sns.list_phone_numbers_opted_out()["phoneNumbers"] == []
    sns.opt_in_phone_number(phoneNumber="+447428545375")
    for bad in ("+44742LALALA", "not a number"):
        with pytest.raises(ClientError) as e:
            sns.check_if_phone_number_is_opted_out(phoneNumber=bad)
        assert e.value.response["Error"]["Code"] == "InvalidParameter"


def test_topic_tagging_errors_and_standard_topic_attributes(aws: Any) -> None:
    sns = aws("sns")
    missing = "arn:aws:sns:us-east-1:000000000000:no-such-topic-" + uuid.uuid4().hex[:6]
    for call in (lambda: sns.tag_resource(ResourceArn=missing, Tags=[{"Key": "k", "Value": "v"}]),
                 lambda: sns.untag_resource(ResourceArn=missing, TagKeys=["k"]),
                 lambda: sns.list_tags_for_resource(ResourceArn=missing)):
        with pytest.raises(ClientError) as exc:
            call()
        assert (exc.value.response["Error"]["Code"], exc.value.response["Error"]["Message"]) == (
            "ResourceNotFound", "Resource does not exist")
    name = f"std-{uuid.uuid4().hex[:8]}"
    arn = sns.create_topic(Name=name, Attributes={"FifoTopic": "false"})["TopicArn"]
    assert sns.create_topic(Name=name, Attributes={"FifoTopic": "false"})["TopicArn"] == arn
    attributes = sns.get_topic_attributes(TopicArn=arn)["Attributes"]
    assert "FifoTopic" not in attributes and "ContentBasedDeduplication" not in attributes


def test_add_permission_stores_lone_values_as_strings(aws: Any) -> None:
    sns = aws("sns")
    arn = sns.create_topic(Name=f"perm-{uuid.uuid4().hex[:8]}")["TopicArn"]
    sns.add_permission(TopicArn=arn, Label="one", AWSAccountId=["999999999999"], ActionName=["Publish"])
    sns.add_permission(TopicArn=arn, Label="two", AWSAccountId=["999999999999", "888888888888"],
                       ActionName=["Publish", "Subscribe"])
    statements = {s["Sid"]: s for s in json.loads(sns.get_topic_attributes(TopicArn=arn)["Attributes"]["Policy"])[
        "Statement"]}
    assert (statements["one"]["Principal"], statements["one"]["Action"]) == (
        {"AWS": "arn:aws:iam::999999999999:root"}, "SNS:Publish")
    assert (statements["two"]["Principal"], statements["two"]["Action"]) == (
        {"AWS": ["arn:aws:iam::999999999999:root", "arn:aws:iam::888888888888:root"]},
        ["SNS:Publish", "SNS:Subscribe"])


def test_fifo_queue_cannot_subscribe_to_standard_topic(aws: Any) -> None:
    sns, sqs = aws("sns"), aws("sqs")
    topic = sns.create_topic(Name=f"std-{uuid.uuid4().hex[:8]}")["TopicArn"]
    url = sqs.create_queue(QueueName=f"q-{uuid.uuid4().hex[:8]}.fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
    queue_arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    with pytest.raises(ClientError) as exc:
        sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=queue_arn)
    assert (exc.value.response["Error"]["Code"], exc.value.response["Error"]["Message"]) == (
        "InvalidParameter", "Invalid parameter: Invalid parameter: Endpoint Reason: FIFO SQS Queues can not be "
        "subscribed to standard SNS topics")
    assert sns.list_subscriptions_by_topic(TopicArn=topic)["Subscriptions"] == []
