"""SQS messages through boto3 against a real server: send/receive/delete, attributes and MD5s,
visibility, delays, FIFO order and deduplication, batches, dead-letter queues, long polling."""

from __future__ import annotations

import hashlib
import struct
import threading
import time
import uuid
from typing import Any

import pytest
from botocore.exceptions import ClientError


def name(prefix: str = "m") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def attributes_md5(attributes: dict[str, dict[str, Any]]) -> str:
    """AWS's documented algorithm, written independently of the server's."""
    out = b""
    for key in sorted(attributes):
        value = attributes[key]
        out += struct.pack(">I", len(key.encode())) + key.encode()
        out += struct.pack(">I", len(value["DataType"].encode())) + value["DataType"].encode()
        if "BinaryValue" in value:
            out += b"\x02" + struct.pack(">I", len(value["BinaryValue"])) + value["BinaryValue"]
        else:
            out += b"\x01" + struct.pack(">I", len(value["StringValue"].encode())) + value["StringValue"].encode()
    return hashlib.md5(out).hexdigest()


@pytest.fixture
def sqs(aws: Any) -> Any:
    return aws("sqs")


def test_send_receive_delete_with_attributes(sqs: Any) -> None:
    url = sqs.create_queue(QueueName=name())["QueueUrl"]
    attrs = {"color": {"DataType": "String", "StringValue": "blue"},
             "n": {"DataType": "Number", "StringValue": "42"},
             "raw": {"DataType": "Binary", "BinaryValue": b"\x00\x01\xff"}}
    sent = sqs.send_message(QueueUrl=url, MessageBody="héllo", MessageAttributes=attrs)
    assert sent["MD5OfMessageBody"] == hashlib.md5("héllo".encode()).hexdigest()
    assert sent["MD5OfMessageAttributes"] == attributes_md5(attrs)
    got = sqs.receive_message(QueueUrl=url, MessageAttributeNames=["All"], MessageSystemAttributeNames=["All"])
    [m] = got["Messages"]
    assert m["MessageId"] == sent["MessageId"] and m["Body"] == "héllo"
    assert m["MD5OfBody"] == sent["MD5OfMessageBody"]
    assert m["MessageAttributes"] == {k: {**v, "StringListValues": [], "BinaryListValues": []} for k, v in
                                      attrs.items()} or m["MessageAttributes"] == attrs
    assert m["MD5OfMessageAttributes"] == attributes_md5(attrs)
    assert m["Attributes"]["ApproximateReceiveCount"] == "1"
    assert int(m["Attributes"]["SentTimestamp"]) <= int(time.time() * 1000)
    sqs.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
    assert "Messages" not in sqs.receive_message(QueueUrl=url, VisibilityTimeout=0)


def test_attribute_selection_by_prefix(sqs: Any) -> None:
    url = sqs.create_queue(QueueName=name())["QueueUrl"]
    attrs = {"a.one": {"DataType": "String", "StringValue": "1"}, "b": {"DataType": "String", "StringValue": "2"}}
    sqs.send_message(QueueUrl=url, MessageBody="x", MessageAttributes=attrs)
    [m] = sqs.receive_message(QueueUrl=url, MessageAttributeNames=["a.*"])["Messages"]
    assert list(m["MessageAttributes"]) == ["a.one"]
    assert m["MD5OfMessageAttributes"] == attributes_md5({"a.one": attrs["a.one"]})
    sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"], VisibilityTimeout=0)
    # `<prefix>.*` is a prefix then anything: "Cust.*" takes "Custom1" too, as AWS answers
    sqs.send_message(QueueUrl=url, MessageBody="y", MessageAttributes={
        "Custom1": {"DataType": "String", "StringValue": "c"}, "Other": {"DataType": "String", "StringValue": "o"}})
    got = sqs.receive_message(QueueUrl=url, MessageAttributeNames=["Cust.*"], MaxNumberOfMessages=10)["Messages"]
    assert {m["Body"]: sorted(m.get("MessageAttributes", {})) for m in got} == {"x": [], "y": ["Custom1"]}


def test_visibility_timeout_and_stale_handles(sqs: Any) -> None:
    url = sqs.create_queue(QueueName=name())["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="v")
    [first] = sqs.receive_message(QueueUrl=url, VisibilityTimeout=30)["Messages"]
    assert "Messages" not in sqs.receive_message(QueueUrl=url)
    sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=first["ReceiptHandle"], VisibilityTimeout=0)
    [second] = sqs.receive_message(QueueUrl=url, MessageSystemAttributeNames=["ApproximateReceiveCount"])["Messages"]
    assert second["Attributes"]["ApproximateReceiveCount"] == "2"
    # On a standard queue the first receipt still names the message (see test_sqs_s10.py); once it
    # is deleted, either handle is stale: deleting again succeeds, a visibility change is refused.
    sqs.delete_message(QueueUrl=url, ReceiptHandle=second["ReceiptHandle"])
    sqs.delete_message(QueueUrl=url, ReceiptHandle=first["ReceiptHandle"])
    counts = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["ApproximateNumberOfMessagesNotVisible"])
    assert counts["Attributes"]["ApproximateNumberOfMessagesNotVisible"] == "0"
    with pytest.raises(ClientError) as exc:
        sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=first["ReceiptHandle"], VisibilityTimeout=5)
    assert exc.value.response["Error"]["Code"] == "InvalidParameterValue"
    with pytest.raises(sqs.exceptions.ReceiptHandleIsInvalid):
        sqs.delete_message(QueueUrl=url, ReceiptHandle="not-a-handle")


def test_delay_seconds_and_bad_values(sqs: Any) -> None:
    url = sqs.create_queue(QueueName=name())["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="later", DelaySeconds=1)
    counts = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    assert counts["ApproximateNumberOfMessagesDelayed"] == "1"
    assert "Messages" not in sqs.receive_message(QueueUrl=url)
    got = sqs.receive_message(QueueUrl=url, WaitTimeSeconds=5)
    assert got["Messages"][0]["Body"] == "later"
    for kwargs in ({"DelaySeconds": 901}, {"MessageBody": "\x00"}):
        with pytest.raises(ClientError) as exc:
            sqs.send_message(**{"QueueUrl": url, "MessageBody": "x", **kwargs})
        assert exc.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
    with pytest.raises(ClientError) as exc:
        sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=11)
    assert exc.value.response["Error"]["Code"] == "InvalidParameterValue"
    with pytest.raises(ClientError) as exc:
        sqs.receive_message(QueueUrl=url, WaitTimeSeconds=21)
    assert "WaitTimeSeconds" in exc.value.response["Error"]["Message"]


def test_fifo_order_groups_and_dedup(sqs: Any) -> None:
    url = sqs.create_queue(QueueName=name() + ".fifo", Attributes={"FifoQueue": "true",
                                                                     "ContentBasedDeduplication": "true"})["QueueUrl"]
    with pytest.raises(ClientError) as exc:
        sqs.send_message(QueueUrl=url, MessageBody="no group")
    assert exc.value.response["Error"]["Code"] == "MissingParameter"
    ids = [sqs.send_message(QueueUrl=url, MessageBody=f"a{i}", MessageGroupId="A") for i in range(3)]
    sqs.send_message(QueueUrl=url, MessageBody="b0", MessageGroupId="B")
    again = sqs.send_message(QueueUrl=url, MessageBody="a0", MessageGroupId="A")  # same content: a duplicate
    assert again["MessageId"] == ids[0]["MessageId"]
    assert int(ids[1]["SequenceNumber"]) > int(ids[0]["SequenceNumber"])
    [a0] = sqs.receive_message(QueueUrl=url)["Messages"]
    assert a0["Body"] == "a0"
    # Group A is blocked while a0 is in flight: only B comes next.
    got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    assert [m["Body"] for m in got] == ["b0"]
    sqs.delete_message(QueueUrl=url, ReceiptHandle=a0["ReceiptHandle"])
    got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, AttributeNames=["MessageGroupId"])["Messages"]
    assert [m["Body"] for m in got] == ["a1", "a2"]
    assert got[0]["Attributes"]["MessageGroupId"] == "A"


def test_fifo_dedup_by_id_and_required(sqs: Any) -> None:
    url = sqs.create_queue(QueueName=name() + ".fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
    with pytest.raises(ClientError) as exc:
        sqs.send_message(QueueUrl=url, MessageBody="x", MessageGroupId="g")
    assert "ContentBasedDeduplication" in exc.value.response["Error"]["Message"]
    one = sqs.send_message(QueueUrl=url, MessageBody="x", MessageGroupId="g", MessageDeduplicationId="d1")
    two = sqs.send_message(QueueUrl=url, MessageBody="y", MessageGroupId="g", MessageDeduplicationId="d1")
    assert one["MessageId"] == two["MessageId"]
    got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    assert [m["Body"] for m in got] == ["x"]


def test_batches(sqs: Any) -> None:
    url = sqs.create_queue(QueueName=name())["QueueUrl"]
    out = sqs.send_message_batch(QueueUrl=url, Entries=[
        {"Id": "ok1", "MessageBody": "1"}, {"Id": "ok2", "MessageBody": "2"},
        {"Id": "bad", "MessageBody": "3", "DelaySeconds": 1000}])
    assert sorted(e["Id"] for e in out["Successful"]) == ["ok1", "ok2"]
    assert out["Failed"][0]["Id"] == "bad" and out["Failed"][0]["SenderFault"] is True
    assert out["Failed"][0]["Code"] == "InvalidParameterValue"
    for entries, code in (([], "AWS.SimpleQueueService.EmptyBatchRequest"),
                          ([{"Id": "x", "MessageBody": "1"}] * 2, "AWS.SimpleQueueService.BatchEntryIdsNotDistinct"),
                          ([{"Id": f"i{i}", "MessageBody": "1"} for i in range(11)],
                           "AWS.SimpleQueueService.TooManyEntriesInBatchRequest"),
                          ([{"Id": "a b", "MessageBody": "1"}], "AWS.SimpleQueueService.InvalidBatchEntryId")):
        with pytest.raises(ClientError) as exc:
            sqs.send_message_batch(QueueUrl=url, Entries=entries)
        assert exc.value.response["Error"]["Code"] == code
    got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    assert sorted(m["Body"] for m in got) == ["1", "2"]
    vis = sqs.change_message_visibility_batch(QueueUrl=url, Entries=[
        {"Id": "a", "ReceiptHandle": got[0]["ReceiptHandle"], "VisibilityTimeout": 60},
        {"Id": "b", "ReceiptHandle": "junk", "VisibilityTimeout": 60}])
    assert [e["Id"] for e in vis["Successful"]] == ["a"] and vis["Failed"][0]["Code"] == "ReceiptHandleIsInvalid"
    deleted = sqs.delete_message_batch(QueueUrl=url, Entries=[
        {"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(got)])
    assert len(deleted["Successful"]) == 2 and not deleted.get("Failed")


def test_dead_letter_queue_and_redrive(sqs: Any) -> None:
    dlq = sqs.create_queue(QueueName=name("dlq"))["QueueUrl"]
    dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    src = sqs.create_queue(QueueName=name("src"), Attributes={
        "RedrivePolicy": f'{{"deadLetterTargetArn":"{dlq_arn}","maxReceiveCount":"2"}}'})["QueueUrl"]
    src_arn = sqs.get_queue_attributes(QueueUrl=src, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    assert sqs.list_dead_letter_source_queues(QueueUrl=dlq)["queueUrls"] == [src]
    sent = sqs.send_message(QueueUrl=src, MessageBody="poison")
    for _ in range(2):
        assert sqs.receive_message(QueueUrl=src, VisibilityTimeout=0)["Messages"]
    assert "Messages" not in sqs.receive_message(QueueUrl=src)  # the third receive moves it
    [dead] = sqs.receive_message(QueueUrl=dlq, VisibilityTimeout=0, MessageSystemAttributeNames=["All"])["Messages"]
    assert dead["MessageId"] == sent["MessageId"]
    assert dead["Attributes"]["DeadLetterQueueSourceArn"] == src_arn
    handle = sqs.start_message_move_task(SourceArn=dlq_arn)["TaskHandle"]
    assert handle
    [task] = sqs.list_message_move_tasks(SourceArn=dlq_arn)["Results"]
    assert task["Status"] == "COMPLETED" and task["ApproximateNumberOfMessagesMoved"] == 1
    [back] = sqs.receive_message(QueueUrl=src)["Messages"]
    assert back["MessageId"] == sent["MessageId"]
    with pytest.raises(ClientError):
        sqs.start_message_move_task(SourceArn=src_arn)  # not a dead-letter queue


def test_bad_redrive_policy(sqs: Any) -> None:
    with pytest.raises(ClientError) as exc:
        sqs.create_queue(QueueName=name(), Attributes={"RedrivePolicy": '{"maxReceiveCount":"2"}'})
    assert exc.value.response["Error"]["Code"] == "InvalidParameterValue"
    assert "deadLetterTargetArn" in exc.value.response["Error"]["Message"]


def test_long_poll_answers_when_a_message_arrives(sqs: Any, aws: Any) -> None:
    url = sqs.create_queue(QueueName=name())["QueueUrl"]
    result: dict[str, Any] = {}

    def poll() -> None:
        start = time.monotonic()
        result["got"] = aws("sqs").receive_message(QueueUrl=url, WaitTimeSeconds=20)
        result["answered"] = time.monotonic() - start

    waiter = threading.Thread(target=poll)
    waiter.start()
    time.sleep(0.5)
    sqs.send_message(QueueUrl=url, MessageBody="now")
    waiter.join(25)
    assert result["got"]["Messages"][0]["Body"] == "now"
    assert result["answered"] < 20  # answered by the send, not by the deadline


def test_many_long_polls_hold_no_threads(sqs: Any, aws: Any) -> None:
    """More waiting consumers than the server's call threads (64): other calls still answer."""
    url = sqs.create_queue(QueueName=name())["QueueUrl"]
    other = sqs.create_queue(QueueName=name())["QueueUrl"]
    done: list[int] = []

    def poll() -> None:
        got = aws("sqs").receive_message(QueueUrl=url, WaitTimeSeconds=10)
        done.append(len(got.get("Messages", [])))

    threads = [threading.Thread(target=poll) for _ in range(80)]
    for t in threads:
        t.start()
    time.sleep(1.0)
    sqs.send_message(QueueUrl=other, MessageBody="still served")
    assert sqs.receive_message(QueueUrl=other)["Messages"][0]["Body"] == "still served"
    sqs.send_message_batch(QueueUrl=url, Entries=[{"Id": str(i), "MessageBody": "x"} for i in range(10)])
    for t in threads:
        t.join(30)
    assert sum(done) == 10


def test_fifo_receive_request_attempt_id(sqs: Any) -> None:
    url = sqs.create_queue(QueueName=name() + ".fifo", Attributes={"FifoQueue": "true",
                                                                     "ContentBasedDeduplication": "true"})["QueueUrl"]
    for body in ("a", "b"):
        sqs.send_message(QueueUrl=url, MessageBody=body, MessageGroupId=body)
    first = sqs.receive_message(QueueUrl=url, ReceiveRequestAttemptId="try-1")["Messages"]
    again = sqs.receive_message(QueueUrl=url, ReceiveRequestAttemptId="try-1")["Messages"]
    assert [m["ReceiptHandle"] for m in again] == [m["ReceiptHandle"] for m in first]
    other = sqs.receive_message(QueueUrl=url, ReceiveRequestAttemptId="try-2")["Messages"]
    assert [m["Body"] for m in other] != [m["Body"] for m in first]
    sqs.delete_message(QueueUrl=url, ReceiptHandle=first[0]["ReceiptHandle"])
    # Once its message is deleted, the attempt is a new one.
    assert "Messages" not in sqs.receive_message(QueueUrl=url, ReceiveRequestAttemptId="try-1")


def test_visibility_change_after_visibility_ran_out(sqs: Any) -> None:
    # AWS answers 200 where the message's visibility already ran out (LocalStack's recording)
    url = sqs.create_queue(QueueName=name())["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="v")
    [got] = sqs.receive_message(QueueUrl=url, VisibilityTimeout=30)["Messages"]
    sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=got["ReceiptHandle"], VisibilityTimeout=0)
    sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=got["ReceiptHandle"], VisibilityTimeout=30)
    assert "Messages" not in sqs.receive_message(QueueUrl=url)
    sqs.delete_message(QueueUrl=url, ReceiptHandle=got["ReceiptHandle"])


def test_fifo_handle_expires_with_visibility(sqs: Any) -> None:
    url = sqs.create_queue(QueueName=name() + ".fifo", Attributes={
        "FifoQueue": "true", "ContentBasedDeduplication": "true"})["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="g1-m1", MessageGroupId="g1")
    [got] = sqs.receive_message(QueueUrl=url, VisibilityTimeout=30)["Messages"]
    sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=got["ReceiptHandle"], VisibilityTimeout=0)
    with pytest.raises(ClientError) as exc:
        sqs.delete_message(QueueUrl=url, ReceiptHandle=got["ReceiptHandle"])
    assert exc.value.response["Error"]["Code"] == "InvalidParameterValue"
    assert exc.value.response["Error"]["Message"] == (
        f"Value {got['ReceiptHandle']} for parameter ReceiptHandle is invalid. Reason: The receipt handle has expired.")
    [again] = sqs.receive_message(QueueUrl=url)["Messages"]
    sqs.delete_message(QueueUrl=url, ReceiptHandle=again["ReceiptHandle"])
    assert "Messages" not in sqs.receive_message(QueueUrl=url)


@pytest.mark.parametrize(("entry", "message"), [
    ({"MessageGroupId": "g"}, "The queue should either have ContentBasedDeduplication enabled or "
                              "MessageDeduplicationId provided explicitly"),
    ({"MessageDeduplicationId": "d2"}, "The request must contain the parameter MessageGroupId."),
])
def test_fifo_batch_entry_without_ids_refuses_the_batch(sqs: Any, entry: dict[str, str], message: str) -> None:
    url = sqs.create_queue(QueueName=name() + ".fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
    entries = [{"Id": "a", "MessageBody": "one", "MessageGroupId": "g", "MessageDeduplicationId": "d1"},
               {"Id": "b", "MessageBody": "two", **entry}]
    with pytest.raises(ClientError) as exc:
        sqs.send_message_batch(QueueUrl=url, Entries=entries)
    assert exc.value.response["Error"]["Code"] == "InvalidParameterValue"
    assert exc.value.response["Error"]["Message"] == message
    assert "Messages" not in sqs.receive_message(QueueUrl=url)  # nothing of the batch was sent
