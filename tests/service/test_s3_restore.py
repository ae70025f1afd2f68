"""Archived objects through boto3: a GLACIER object's body is out of reach (GetObject, CopyObject)
until RestoreObject, which completes at once here, notifying ObjectRestore:Post and :Completed."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError

Aws = Callable[..., Any]


def error(info: pytest.ExceptionInfo[ClientError]) -> tuple[str, int]:
    return info.value.response["Error"]["Code"], info.value.response["ResponseMetadata"]["HTTPStatusCode"]


def test_an_archived_object_is_read_only_once_restored_and_the_restore_notifies(aws: Aws) -> None:
    s3, sqs = aws("s3"), aws("sqs")
    name = f"cold-{uuid.uuid4().hex[:10]}"
    s3.create_bucket(Bucket=name)
    url = sqs.create_queue(QueueName=f"cold-{uuid.uuid4().hex[:8]}")["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    sqs.set_queue_attributes(QueueUrl=url, Attributes={"Policy": json.dumps({"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Principal": {"Service": "s3.amazonaws.com"}, "Action": "sqs:SendMessage",
        "Resource": arn}]})})
    s3.put_bucket_notification_configuration(Bucket=name, NotificationConfiguration={
        "QueueConfigurations": [{"QueueArn": arn, "Events": ["s3:ObjectRestore:*"]}]})
    s3.put_object(Bucket=name, Key="cold", Body=b"frozen", StorageClass="GLACIER")
    s3.put_object(Bucket=name, Key="warm", Body=b"warm")
    assert s3.head_object(Bucket=name, Key="cold")["StorageClass"] == "GLACIER"  # Head still answers
    with pytest.raises(ClientError) as info:
        s3.get_object(Bucket=name, Key="cold")
    assert error(info) == ("InvalidObjectState", 403)
    assert info.value.response["Error"]["StorageClass"] == "GLACIER"
    with pytest.raises(ClientError) as info:
        s3.copy_object(Bucket=name, Key="copy", CopySource={"Bucket": name, "Key": "cold"})
    assert error(info) == ("InvalidObjectState", 403)
    with pytest.raises(ClientError) as info:
        s3.restore_object(Bucket=name, Key="warm", RestoreRequest={"Days": 1})
    assert error(info) == ("InvalidObjectState", 403)

    first = s3.restore_object(Bucket=name, Key="cold", RestoreRequest={"Days": 2})
    assert first["ResponseMetadata"]["HTTPStatusCode"] == 202
    assert s3.head_object(Bucket=name, Key="cold")["Restore"].startswith('ongoing-request="false", expiry-date="')
    assert s3.get_object(Bucket=name, Key="cold")["Body"].read() == b"frozen"
    again = s3.restore_object(Bucket=name, Key="cold", RestoreRequest={"Days": 3})
    assert again["ResponseMetadata"]["HTTPStatusCode"] == 200  # already restored: its expiry moves

    records: list[dict[str, Any]] = []
    deadline = time.monotonic() + 30
    while len(records) < 2 and time.monotonic() < deadline:
        for m in sqs.receive_message(QueueUrl=url, WaitTimeSeconds=1, MaxNumberOfMessages=10).get("Messages", []):
            records += json.loads(m["Body"]).get("Records", [])
    assert [r["eventName"] for r in records] == ["ObjectRestore:Post", "ObjectRestore:Completed"]
    restored = records[1]["glacierEventData"]["restoreEventData"]
    assert restored["lifecycleRestoreStorageClass"] == "GLACIER"
    assert restored["lifecycleRestorationExpiryTime"].endswith("T00:00:00.000Z")  # a midnight UTC
    assert "glacierEventData" not in records[0]
