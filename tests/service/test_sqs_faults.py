"""A fault rule on ReceiveMessage meets a long poll: the poll still waits on the event loop and
answers its message; an injected error is answered as the SQS error it names."""

from __future__ import annotations

import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from faults_client import faults, set_rules


@pytest.fixture(autouse=True)
def no_rules_left(endpoint: str) -> Iterator[None]:
    yield
    assert faults(endpoint, "DELETE")[0] == 200


def test_latency_after_a_long_poll(endpoint: str, aws: Any) -> None:
    sqs = aws("sqs")
    url = sqs.create_queue(QueueName=f"faulted-{uuid.uuid4().hex[:8]}")["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    set_rules(endpoint, [{"service": "sqs", "operation": "ReceiveMessage", "resource": arn, "when": "after",
                          "latency_ms": 20}])
    got: dict[str, Any] = {}
    poller = threading.Thread(target=lambda: got.update(aws("sqs").receive_message(QueueUrl=url, WaitTimeSeconds=10)))
    poller.start()
    time.sleep(0.5)
    sqs.send_message(QueueUrl=url, MessageBody="through the fault")
    poller.join(20)
    assert got["Messages"][0]["Body"] == "through the fault"
    [rule] = faults(endpoint)[1]["rules"]
    assert rule["fired"] == 1


def test_injected_error(endpoint: str, aws: Any) -> None:
    sqs = aws("sqs")
    url = sqs.create_queue(QueueName=f"faulted-{uuid.uuid4().hex[:8]}")["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    set_rules(endpoint, [{"service": "sqs", "operation": "SendMessage", "resource": arn,
                          "error": {"code": "RequestThrottled"}}])
    with pytest.raises(sqs.exceptions.RequestThrottled):
        sqs.send_message(QueueUrl=url, MessageBody="refused")
    faults(endpoint, "DELETE")
    assert "Messages" not in sqs.receive_message(QueueUrl=url)
