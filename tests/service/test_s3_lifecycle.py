"""S3 lifecycle rules applied on our clock, through boto3: an Expiration whose date has passed
removes the objects its filter selects (a delete marker under versioning), notifying
s3:LifecycleExpiration:*; an expired delete marker goes; bad rules are refused and change nothing."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from botocore.exceptions import ClientError

Aws = Callable[..., Any]
PAST = datetime(2020, 1, 1, tzinfo=UTC)  # a midnight UTC long gone: due at once


def until(check: Callable[[], Any], timeout: float = 30) -> Any:
    deadline = time.monotonic() + timeout
    while not (result := check()):
        assert time.monotonic() < deadline, "lifecycle sweep did not happen"
        time.sleep(0.2)
    return result


def keys(s3: Any, name: str) -> list[str]:
    return [o["Key"] for o in s3.list_objects_v2(Bucket=name).get("Contents", [])]


def test_an_expired_rule_removes_what_its_filter_selects_and_notifies(aws: Aws) -> None:
    s3, sqs = aws("s3"), aws("sqs")
    name = f"life-{uuid.uuid4().hex[:10]}"
    s3.create_bucket(Bucket=name)
    url = sqs.create_queue(QueueName=f"life-{uuid.uuid4().hex[:8]}")["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    sqs.set_queue_attributes(QueueUrl=url, Attributes={"Policy": json.dumps({"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Principal": {"Service": "s3.amazonaws.com"}, "Action": "sqs:SendMessage",
        "Resource": arn, "Condition": {"ArnLike": {"aws:SourceArn": f"arn:aws:s3:::{name}"}}}]})})
    s3.put_bucket_notification_configuration(Bucket=name, NotificationConfiguration={
        "QueueConfigurations": [{"QueueArn": arn, "Events": ["s3:LifecycleExpiration:*"]}]})
    test_event = until(lambda: sqs.receive_message(QueueUrl=url, WaitTimeSeconds=1).get("Messages"))[0]
    sqs.delete_message(QueueUrl=url, ReceiptHandle=test_event["ReceiptHandle"])
    s3.put_object(Bucket=name, Key="old/tagged", Body=b"1", Tagging="stage=done")
    s3.put_object(Bucket=name, Key="old/untagged", Body=b"2")
    s3.put_object(Bucket=name, Key="new/tagged", Body=b"3", Tagging="stage=done")
    rules = [{"ID": "old-done", "Status": "Enabled", "Expiration": {"Date": PAST},
              "Filter": {"And": {"Prefix": "old/", "Tags": [{"Key": "stage", "Value": "done"}]}}},
             {"ID": "off", "Status": "Disabled", "Expiration": {"Date": PAST}, "Filter": {"Prefix": "new/"}}]
    s3.put_bucket_lifecycle_configuration(Bucket=name, LifecycleConfiguration={"Rules": rules})
    assert s3.get_bucket_lifecycle_configuration(Bucket=name)["Rules"][0]["Expiration"] == {"Date": PAST}
    until(lambda: keys(s3, name) == ["new/tagged", "old/untagged"])
    messages = until(lambda: sqs.receive_message(QueueUrl=url, WaitTimeSeconds=1).get("Messages"))
    record = json.loads(messages[0]["Body"])["Records"][0]
    assert (record["eventName"], record["s3"]["object"]["key"]) == ("LifecycleExpiration:Delete", "old/tagged")
    assert record["userIdentity"]["principalId"] == "s3.amazonaws.com"


def test_under_versioning_expiry_leaves_a_marker_and_a_lone_marker_goes(aws: Aws) -> None:
    s3 = aws("s3")
    name = f"lifev-{uuid.uuid4().hex[:10]}"
    s3.create_bucket(Bucket=name)
    s3.put_bucket_versioning(Bucket=name, VersioningConfiguration={"Status": "Enabled"})
    kept = s3.put_object(Bucket=name, Key="exp/a", Body=b"a")["VersionId"]
    lone = s3.put_object(Bucket=name, Key="markers/b", Body=b"b")["VersionId"]
    s3.delete_object(Bucket=name, Key="markers/b")
    s3.delete_object(Bucket=name, Key="markers/b", VersionId=lone)  # only its delete marker is left
    s3.put_bucket_lifecycle_configuration(Bucket=name, LifecycleConfiguration={"Rules": [
        {"ID": "exp", "Status": "Enabled", "Expiration": {"Date": PAST}, "Filter": {"Prefix": "exp/"}},
        {"ID": "markers", "Status": "Enabled", "Expiration": {"ExpiredObjectDeleteMarker": True},
         "Filter": {"Prefix": "markers/"}}]})

    def swept() -> bool:
        listed = s3.list_object_versions(Bucket=name)
        return ([m["Key"] for m in listed.get("DeleteMarkers", [])] == ["exp/a"]
                and [v["VersionId"] for v in listed.get("Versions", [])] == [kept])

    until(swept)
    assert s3.get_object(Bucket=name, Key="exp/a", VersionId=kept)["Body"].read() == b"a"  # noncurrent, kept


@pytest.mark.parametrize(("rule", "code", "message"), [
    ({"Status": "Enabled", "Filter": {}, "Expiration": {"Date": datetime(2030, 1, 1, 12, tzinfo=UTC)}},
     "InvalidArgument", "'Date' must be at midnight GMT"),
    ({"Status": "Enabled", "Filter": {}, "Expiration": {"Days": 0}},
     "InvalidArgument", "'Days' for Expiration action must be a positive integer"),
    ({"Status": "Enabled", "Filter": {}}, "InvalidRequest", "At least one action needs to be specified in a rule"),
])
def test_bad_rules_are_refused_and_change_nothing(aws: Aws, rule: dict[str, Any], code: str, message: str) -> None:
    s3 = aws("s3")
    name = f"lifeb-{uuid.uuid4().hex[:10]}"
    s3.create_bucket(Bucket=name)
    with pytest.raises(ClientError) as info:
        s3.put_bucket_lifecycle_configuration(Bucket=name, LifecycleConfiguration={"Rules": [rule]})
    assert (info.value.response["Error"]["Code"], info.value.response["Error"]["Message"]) == (code, message)
    with pytest.raises(ClientError) as info:
        s3.get_bucket_lifecycle_configuration(Bucket=name)
    assert info.value.response["Error"]["Code"] == "NoSuchLifecycleConfiguration"
