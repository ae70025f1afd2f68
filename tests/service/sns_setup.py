"""What the SNS service tests share: a queue SNS may send to (its policy grants SNS, as AWS
requires) and the bodies waiting in a queue."""

from __future__ import annotations

import json
import uuid
from typing import Any


def make_queue(sqs: Any, fifo: bool = False, **attributes: str) -> tuple[str, str]:
    attrs = {"FifoQueue": "true", **attributes} if fifo else dict(attributes)
    url = sqs.create_queue(QueueName=f"q-{uuid.uuid4().hex[:10]}" + (".fifo" if fifo else ""),
                           Attributes=attrs)["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    sqs.set_queue_attributes(QueueUrl=url, Attributes={"Policy": json.dumps({"Statement": [{  # as on AWS: SNS may send
        "Effect": "Allow", "Principal": {"Service": "sns.amazonaws.com"}, "Action": "sqs:SendMessage",
        "Resource": arn}]})})
    return url, arn


def bodies(sqs: Any, url: str) -> list[str]:
    got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=0)
    return [m["Body"] for m in got.get("Messages", [])]
