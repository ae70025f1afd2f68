"""SQS behaviour moto's black-box suite checks that AWS shows and onceflow missed (session 10)."""

from __future__ import annotations

import base64
import json
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


def _move_handle(task_id: str, source_arn: str) -> str:
    """A move task handle in AWS's shape (base64 JSON of the task id and source queue)."""
    doc = json.dumps({"taskId": task_id, "sourceArn": source_arn}, separators=(",", ":"))
    return base64.b64encode(doc.encode()).decode()


def _error(exc: pytest.ExceptionInfo[ClientError]) -> tuple[str, str, int]:
    r = exc.value.response
    return r["Error"]["Code"], r["Error"]["Message"], r["ResponseMetadata"]["HTTPStatusCode"]


def test_move_task_errors_are_aws_answers(sqs: Any) -> None:
    """LocalStack's AWS-recorded test_sqs_move_task snapshots: a handle that is no handle is
    InvalidParameterValue (400), a missing queue or task ResourceNotFoundException (404)."""
    url = sqs.create_queue(QueueName=name())["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    with pytest.raises(ClientError) as exc:
        sqs.cancel_message_move_task(TaskHandle="foobared")
    assert _error(exc) == ("InvalidParameterValue", "Value for parameter TaskHandle is invalid.", 400)
    gone = arn.rsplit(":", 1)[0] + ":" + name("gone")
    with pytest.raises(ClientError) as exc:
        sqs.cancel_message_move_task(TaskHandle=_move_handle(str(uuid.uuid4()), gone))
    assert _error(exc) == ("ResourceNotFoundException",
                           "The resource that you specified for the SourceArn parameter doesn't exist.", 404)
    with pytest.raises(ClientError) as exc:
        sqs.cancel_message_move_task(TaskHandle=_move_handle(str(uuid.uuid4()), arn))
    assert _error(exc) == ("ResourceNotFoundException", "Task does not exist.", 404)
    for call in (lambda: sqs.start_message_move_task(SourceArn=gone),
                 lambda: sqs.list_message_move_tasks(SourceArn=gone)):
        with pytest.raises(ClientError) as exc:
            call()
        assert _error(exc) == ("ResourceNotFoundException",
                               "The resource that you specified for the SourceArn parameter doesn't exist.", 404)


def test_move_task_handle_names_its_source_queue(sqs: Any) -> None:
    dlq = sqs.create_queue(QueueName=name("dlq"))["QueueUrl"]
    dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    sqs.create_queue(QueueName=name("src"), Attributes={
        "RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": 1})})
    handle = sqs.start_message_move_task(SourceArn=dlq_arn)["TaskHandle"]
    doc = json.loads(base64.b64decode(handle))
    assert doc["sourceArn"] == dlq_arn and uuid.UUID(doc["taskId"])
    with pytest.raises(ClientError) as exc:
        sqs.start_message_move_task(SourceArn=dlq_arn, DestinationArn=dlq_arn.rsplit(":", 1)[0] + ":" + name("x"))
    assert _error(exc) == ("ResourceNotFoundException",
                           "The resource that you specified for the DestinationArn parameter doesn't exist.", 404)


def test_long_poll_wait_out_of_range_words(sqs: Any) -> None:
    """AWS's words for a WaitTimeSeconds past 20 (LocalStack's AWS-validated provider holds the same)."""
    url = sqs.create_queue(QueueName=name())["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="stays")
    with pytest.raises(ClientError) as exc:
        sqs.receive_message(QueueUrl=url, WaitTimeSeconds=21)
    assert _error(exc) == ("InvalidParameterValue", "Value 21 for parameter WaitTimeSeconds is invalid. Reason: "
                           "Must be >= 0 and <= 20, if provided.", 400)
    assert _counts(sqs, url) == ("1", "0")
