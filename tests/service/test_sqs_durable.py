"""SQS state survives kill -9: sent messages, in-flight visibility, deletions and FIFO dedup ids;
and the AWS CLI (JSON protocol) drives the same queues."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any


def test_messages_survive_kill9(server_factory: Callable[..., Any], tmp_path: Path) -> None:
    data = tmp_path / "data"
    server = server_factory(data)
    sqs = server.client("sqs")
    url = sqs.create_queue(QueueName="durable")["QueueUrl"]
    fifo = sqs.create_queue(QueueName="durable.fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
    for i in range(5):
        sqs.send_message(QueueUrl=url, MessageBody=f"m{i}")
    first = sqs.send_message(QueueUrl=fifo, MessageBody="f", MessageGroupId="g", MessageDeduplicationId="d")
    [taken] = sqs.receive_message(QueueUrl=url, VisibilityTimeout=600)["Messages"]
    [gone] = sqs.receive_message(QueueUrl=url)["Messages"]
    sqs.delete_message(QueueUrl=url, ReceiptHandle=gone["ReceiptHandle"])
    server.kill()

    restarted = server_factory(data)
    sqs = restarted.client("sqs")
    url = sqs.get_queue_url(QueueName="durable")["QueueUrl"]
    counts = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    assert counts["ApproximateNumberOfMessages"] == "3"
    assert counts["ApproximateNumberOfMessagesNotVisible"] == "1"
    bodies = {m["Body"] for m in sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]}
    assert taken["Body"] not in bodies and gone["Body"] not in bodies and len(bodies) == 3
    fifo = sqs.get_queue_url(QueueName="durable.fifo")["QueueUrl"]
    again = sqs.send_message(QueueUrl=fifo, MessageBody="f", MessageGroupId="g", MessageDeduplicationId="d")
    assert again["MessageId"] == first["MessageId"]  # the deduplication window survived too


def test_aws_cli_round_trip(aws_cli: Callable[..., Any], endpoint: str) -> None:
    # The CLI v1 replaces the endpoint of `aws sqs` in us-east-1 by queue.amazonaws.com unless
    # --endpoint-url is given (AWS_ENDPOINT_URL is not enough: awscli's overridesslcommonname).
    def cli(*args: str) -> Any:
        return aws_cli("--endpoint-url", endpoint, *args)

    made = cli("sqs", "create-queue", "--queue-name", "cli-queue", "--output", "json")
    assert made.returncode == 0, made.stderr
    url = json.loads(made.stdout)["QueueUrl"]
    sent = cli("sqs", "send-message", "--queue-url", url, "--message-body", "from the cli",
                   "--message-attributes", '{"k":{"DataType":"String","StringValue":"v"}}', "--output", "json")
    assert sent.returncode == 0, sent.stderr
    got = cli("sqs", "receive-message", "--queue-url", url, "--message-attribute-names", "All",
                  "--output", "json")
    [m] = json.loads(got.stdout)["Messages"]
    assert m["Body"] == "from the cli" and m["MessageAttributes"]["k"]["StringValue"] == "v"
    assert m["MD5OfMessageAttributes"] == json.loads(sent.stdout)["MD5OfMessageAttributes"]
    missing = cli("sqs", "get-queue-url", "--queue-name", "cli-missing")
    assert missing.returncode != 0
    assert "AWS.SimpleQueueService.NonExistentQueue" in missing.stderr
