"""S3 notifications are an outbox written with the change: every acknowledged PUT's event reaches
its queue even when the server is killed -9 right after the PUTs (at least once, as AWS)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import botocore.config

CONFIG = botocore.config.Config(retries={"max_attempts": 1}, read_timeout=30, connect_timeout=5)


def test_acknowledged_events_survive_kill_9(server_factory: Callable[..., Any], tmp_path: Path) -> None:
    data = tmp_path / "data"
    server = server_factory(data)
    s3, sqs = server.client("s3", config=CONFIG), server.client("sqs", config=CONFIG)
    url = sqs.create_queue(QueueName="events")["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    sqs.set_queue_attributes(QueueUrl=url, Attributes={"Policy": json.dumps({"Statement": [{
        "Effect": "Allow", "Principal": {"Service": "s3.amazonaws.com"}, "Action": "sqs:SendMessage",
        "Resource": arn}]})})
    s3.create_bucket(Bucket="noted")
    s3.put_bucket_notification_configuration(Bucket="noted", NotificationConfiguration={"QueueConfigurations": [
        {"QueueArn": arn, "Events": ["s3:ObjectCreated:*"]}]})
    def put(n: int) -> str:
        s3.put_object(Bucket="noted", Key=f"k{n}", Body=b"x")
        return f"k{n}"

    with ThreadPoolExecutor(4) as pool:  # puts in parallel commit together; their deliveries go one by one
        acknowledged = set(pool.map(put, range(40)))
    server.kill()  # some events are still in the outbox

    again = server_factory(data)
    sqs = again.client("sqs", config=CONFIG)
    keys: set[str] = set()
    deadline = time.monotonic() + 60
    while not acknowledged <= keys and time.monotonic() < deadline:
        for m in sqs.receive_message(QueueUrl=url, WaitTimeSeconds=2, MaxNumberOfMessages=10).get("Messages", []):
            body = json.loads(m["Body"])
            if "Records" in body:
                keys.add(body["Records"][0]["s3"]["object"]["key"])
            sqs.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
    assert acknowledged <= keys
