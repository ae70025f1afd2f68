"""SQS behaviour moto's black-box suite checks that AWS shows and onceflow missed (session 10)."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from botocore.exceptions import ClientError


def name(prefix: str = "s10") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def _received_twice(sqs: Any, url: str) -> tuple[str, str]:
    """The message's first and second receipt handles (the first ended by a visibility change)."""
    [first] = sqs.receive_message(QueueUrl=url, VisibilityTimeout=30)["Messages"]
    sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=first["ReceiptHandle"], VisibilityTimeout=0)
    [second] = sqs.receive_message(QueueUrl=url, VisibilityTimeout=30)["Messages"]
    assert first["ReceiptHandle"] != second["ReceiptHandle"]
    return first["ReceiptHandle"], second["ReceiptHandle"]


def _counts(sqs: Any, url: str) -> tuple[str, str]:
    a = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    return a["ApproximateNumberOfMessages"], a["ApproximateNumberOfMessagesNotVisible"]


def test_earlier_receipt_deletes_a_standard_queue_message(sqs: Any) -> None:
    url = sqs.create_queue(QueueName=name())["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="body")
    first, second = _received_twice(sqs, url)
    sqs.delete_message(QueueUrl=url, ReceiptHandle=first)
    assert _counts(sqs, url) == ("0", "0")
    # the message is gone: both handles delete "again" without an error
    sqs.delete_message(QueueUrl=url, ReceiptHandle=first)
    sqs.delete_message(QueueUrl=url, ReceiptHandle=second)


def test_earlier_receipt_changes_a_standard_queue_message_visibility(sqs: Any) -> None:
    url = sqs.create_queue(QueueName=name())["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="body")
    first, _ = _received_twice(sqs, url)
    sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=first, VisibilityTimeout=0)
    assert _counts(sqs, url) == ("1", "0")
    [third] = sqs.receive_message(QueueUrl=url, VisibilityTimeout=30)["Messages"]
    got = sqs.change_message_visibility_batch(QueueUrl=url, Entries=[
        {"Id": "old", "ReceiptHandle": first, "VisibilityTimeout": 0}])
    assert [e["Id"] for e in got["Successful"]] == ["old"] and not got.get("Failed")
    assert _counts(sqs, url) == ("1", "0")
    sqs.delete_message(QueueUrl=url, ReceiptHandle=third["ReceiptHandle"])
    with pytest.raises(ClientError) as exc:
        sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=first, VisibilityTimeout=5)
    assert exc.value.response["Error"]["Code"] == "InvalidParameterValue"


def test_earlier_receipt_of_a_fifo_message_neither_deletes_nor_changes_it(sqs: Any) -> None:
    url = sqs.create_queue(QueueName=name() + ".fifo", Attributes={
        "FifoQueue": "true", "ContentBasedDeduplication": "true"})["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="body", MessageGroupId="g")
    first, second = _received_twice(sqs, url)
    sqs.delete_message(QueueUrl=url, ReceiptHandle=first)
    assert _counts(sqs, url) == ("0", "1")
    with pytest.raises(ClientError) as exc:
        sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=first, VisibilityTimeout=0)
    assert exc.value.response["Error"]["Code"] == "InvalidParameterValue"
    sqs.delete_message(QueueUrl=url, ReceiptHandle=second)
    assert _counts(sqs, url) == ("0", "0")
