"""S3 event notifications: what a notification configuration costs PutObject (1 KB ops/s on a
bucket without one, and on one whose every put is sent to an SQS queue), and how soon after its
PUT returns the event is in the queue (p50/max, a long poll waiting), onceflow on a data folder.

    python bench/bench_s3_notify.py [--ops 300] [--latency 50] [--rounds 3]

The ops/s figures are the median of `--rounds` rounds taking the two buckets in turn.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import boto3
import botocore.config

sys.path.insert(0, str(Path(__file__).parent))
from servers import spawn_onceflow

CONFIG = botocore.config.Config(retries={"max_attempts": 1})


def client(url: str, service: str) -> Any:
    return boto3.client(service, endpoint_url=url, region_name="us-east-1", aws_access_key_id="test",
                        aws_secret_access_key="test", config=CONFIG)


def puts_per_second(s3: Any, bucket: str, ops: int) -> float:
    body = b"x" * 1024
    start = time.perf_counter()
    for i in range(ops):
        s3.put_object(Bucket=bucket, Key=f"k{i}", Body=body)
    return ops / (time.perf_counter() - start)


def queue_for(sqs: Any, name: str) -> tuple[str, str]:
    url = sqs.create_queue(QueueName=f"bench-{name}")["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    sqs.set_queue_attributes(QueueUrl=url, Attributes={"Policy": json.dumps({"Statement": [{
        "Effect": "Allow", "Principal": {"Service": "s3.amazonaws.com"}, "Action": "sqs:SendMessage",
        "Resource": arn}]})})
    return url, arn


def receive_all(sqs: Any, url: str) -> None:
    for m in sqs.receive_message(QueueUrl=url, WaitTimeSeconds=5).get("Messages", []):
        sqs.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ops", type=int, default=300)
    parser.add_argument("--latency", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data:
        proc, url = spawn_onceflow(data)
        try:
            s3, sqs = client(url, "s3"), client(url, "sqs")
            for name in ("plain", "notified", "timed"):
                s3.create_bucket(Bucket=f"bench-{name}")
            arns = {name: queue_for(sqs, name) for name in ("notified", "timed")}
            for name, (_, arn) in arns.items():  # a queue per bucket: the timed one holds only its own events
                s3.put_bucket_notification_configuration(Bucket=f"bench-{name}", NotificationConfiguration={
                    "QueueConfigurations": [{"QueueArn": arn, "Events": ["s3:ObjectCreated:*"]}]})
            queue = arns["timed"][0]
            receive_all(sqs, queue)  # the s3:TestEvent
            s3.put_object(Bucket="bench-plain", Key="warm", Body=b"x")
            rounds = [(puts_per_second(s3, "bench-plain", args.ops), puts_per_second(s3, "bench-notified", args.ops))
                      for _ in range(args.rounds)]  # in turn: this machine's load swings from second to second
            plain = statistics.median(r[0] for r in rounds)
            notified = statistics.median(r[1] for r in rounds)
            delays = latency(s3, sqs, queue, args.latency)
        finally:
            proc.terminate()
            proc.wait(10)
    print(f"PutObject 1 KB, {args.ops} ops x {args.rounds} rounds (median), durable: "
          f"no configuration {plain:.1f} ops/s, "
          f"every put sent to SQS {notified:.1f} ops/s ({notified / plain:.2f}x)")
    print(f"PUT returned -> event received by a waiting long poll, {len(delays)} events: "
          f"p50 {statistics.median(delays):.1f} ms, max {max(delays):.1f} ms")


def latency(s3: Any, sqs: Any, queue: str, count: int) -> list[float]:
    delays: list[float] = []
    for i in range(count):
        got: dict[str, float] = {}

        def wait(i: int = i, got: dict[str, float] = got) -> None:
            while True:
                out = sqs.receive_message(QueueUrl=queue, WaitTimeSeconds=5)
                for m in out.get("Messages", []):
                    sqs.delete_message(QueueUrl=queue, ReceiptHandle=m["ReceiptHandle"])
                    if json.loads(m["Body"]).get("Records", [{}])[0].get("s3", {}).get("object", {}).get("key") \
                            == f"t{i}":
                        got["at"] = time.perf_counter()
                        return

        waiter = threading.Thread(target=wait)
        waiter.start()
        time.sleep(0.05)  # the long poll is waiting
        s3.put_object(Bucket="bench-timed", Key=f"t{i}", Body=b"x")
        returned = time.perf_counter()
        waiter.join(30)
        if "at" in got:
            delays.append((got["at"] - returned) * 1000)
    return delays


if __name__ == "__main__":
    main()
