"""SQS and SNS: queues (counts, messages in flight, dead-letter queues) and topics with their
subscriptions. Lists come through the APIs; a queue's messages are peeked at without receiving."""

from __future__ import annotations

import json
from typing import Any

from onceflow.console.app import HttpError, Response, View


def queues(v: View) -> Response:
    result = v.optional(lambda: v.aws.call("sqs", "ListQueues", {}), {}) or {}
    rows = []
    for url in result.get("QueueUrls", []):
        attrs = v.optional(lambda u=url: v.aws.call("sqs", "GetQueueAttributes", {
            "QueueUrl": u, "AttributeNames": ["All"]}), {}) or {}
        rows.append({"url": url, "name": url.rsplit("/", 1)[-1], **_summary(attrs.get("Attributes", {}))})
    return v.page("queues.html", title="SQS queues", queues=rows)


def _summary(attrs: dict[str, str]) -> dict[str, Any]:
    redrive = json.loads(attrs["RedrivePolicy"]) if attrs.get("RedrivePolicy") else None
    return {"visible": attrs.get("ApproximateNumberOfMessages", "0"),
            "in_flight": attrs.get("ApproximateNumberOfMessagesNotVisible", "0"),
            "delayed": attrs.get("ApproximateNumberOfMessagesDelayed", "0"),
            "fifo": attrs.get("FifoQueue") == "true",
            "dlq": redrive["deadLetterTargetArn"].rsplit(":", 1)[-1] if redrive else "",
            "max_receives": redrive["maxReceiveCount"] if redrive else ""}


def queue(v: View) -> Response:
    name = v.match["name"]
    service = v.stack.ports.queues.get()
    if service is None:
        raise HttpError(501, "Not available", "This onceflow serves no SQS.")
    try:
        q = service.queues.by_name(v.account, v.region, name)
    except Exception:
        raise HttpError(404, "No such queue", f"There is no queue {name} in {v.account} {v.region}.") from None
    attrs = service.queues.get_attributes(q, ["All"])
    sources = [u.rsplit("/", 1)[-1] for u in service.queues.dead_letter_sources(q)]
    return v.page("queue.html", title=name, queue_name=name, queue_url=service.queues.url(q), attrs=attrs,
                  summary=_summary(attrs), messages=service.peek(q), sources=sources)


def topics(v: View) -> Response:
    found = v.optional(lambda: v.aws.all("sns", "ListTopics", {}, "Topics", token="NextToken"), []) or []
    return v.page("topics.html", title="SNS topics", topics=[t["TopicArn"] for t in found])


def topic(v: View) -> Response:
    arn = v.arg("arn")
    if not arn:
        raise HttpError(400, "Missing arn", "The page needs the arn query parameter.")
    attrs = v.aws.call("sns", "GetTopicAttributes", {"TopicArn": arn}).get("Attributes", {})
    subs = v.optional(lambda: v.aws.all("sns", "ListSubscriptionsByTopic", {"TopicArn": arn}, "Subscriptions",
                                        token="NextToken"), []) or []
    service = v.stack.ports.topics.get()
    details = []
    for s in subs:
        extra: dict[str, Any] = {}
        if s["SubscriptionArn"] != "PendingConfirmation" and service is not None:
            extra = v.optional(lambda a=s["SubscriptionArn"]: service.topics.subscription_attributes(a), {}) or {}
        details.append({**s, "filter": extra.get("FilterPolicy", ""), "raw": extra.get("RawMessageDelivery", "")})
    return v.page("topic.html", title=arn.rsplit(":", 1)[-1], arn=arn, attrs=attrs, subscriptions=details)
