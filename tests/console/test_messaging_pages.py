"""The console's SQS and SNS pages over HTTP: queues with counts and dead-letter links, a queue's
messages (in flight, from a DLQ) peeked at without receiving them, topics and subscriptions."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from console_seed import Page


def test_queue_pages(page: Callable[[str], Page], aws: Callable[..., Any]) -> None:
    sqs = aws("sqs")
    tag = uuid.uuid4().hex[:8]
    dlq = sqs.create_queue(QueueName=f"dead-{tag}")["QueueUrl"]
    dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    src = sqs.create_queue(QueueName=f"work-{tag}", Attributes={"RedrivePolicy": json.dumps(
        {"deadLetterTargetArn": dlq_arn, "maxReceiveCount": 3})})["QueueUrl"]
    sqs.send_message(QueueUrl=src, MessageBody="<b>taken</b>")
    sqs.send_message(QueueUrl=src, MessageBody="waiting")
    sqs.receive_message(QueueUrl=src, VisibilityTimeout=300)
    listing = page("/sqs")
    assert listing.status == 200
    assert f'href="/sqs/work-{tag}"' in listing.text and f'href="/sqs/dead-{tag}"' in listing.text
    detail = page(f"/sqs/work-{tag}")
    assert detail.status == 200
    assert "in flight" in detail.text and "&lt;b&gt;taken&lt;/b&gt;" in detail.text and "<b>taken" not in detail.text
    assert f'href="/sqs/dead-{tag}"' in detail.text
    # Looking did not receive: the counts are unchanged.
    counts = sqs.get_queue_attributes(QueueUrl=src, AttributeNames=["All"])["Attributes"]
    assert counts["ApproximateNumberOfMessages"] == "1" and counts["ApproximateNumberOfMessagesNotVisible"] == "1"
    assert f"work-{tag}" in page(f"/sqs/dead-{tag}").text  # the DLQ names its source
    assert page(f"/sqs/none-{tag}").status == 404


def test_topic_pages(page: Callable[[str], Page], aws: Callable[..., Any]) -> None:
    sns, sqs = aws("sns"), aws("sqs")
    tag = uuid.uuid4().hex[:8]
    arn = sns.create_topic(Name=f"topic-{tag}")["TopicArn"]
    url = sqs.create_queue(QueueName=f"sub-{tag}")["QueueUrl"]
    qarn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    sns.subscribe(TopicArn=arn, Protocol="sqs", Endpoint=qarn, Attributes={"FilterPolicy": '{"kind":["a"]}'})
    listing = page("/sns")
    assert listing.status == 200 and f"topic-{tag}" in listing.text
    detail = page(f"/sns/topic?arn={quote(arn)}")
    assert detail.status == 200
    assert f'href="/sqs/sub-{tag}"' in detail.text and "confirmed" in detail.text
    assert "kind" in detail.text
