"""Publish: a message checked once, then fanned out to the topic's confirmed subscriptions
whose filter policy it passes. Queues get it at once (in the publish's own transaction, so an
answered Publish is in every subscribed queue); Lambda and HTTP deliveries are rows that the
delivery thread (delivery.py) makes, with retries."""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import re
import sqlite3
import time
import unicodedata
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from onceflow.errors import ServiceError
from onceflow.patterns.sns_filter import FilterPolicy, compile_policy
from onceflow.sns.errors import batch_error, invalid, invalid_value
from onceflow.sns.topics import Subscription, Topic, Topics, max_message_size
from onceflow.store.db import Database

if TYPE_CHECKING:
    from onceflow.ports import Port
    from onceflow.sqs.ports import QueueSender

log = logging.getLogger("onceflow.sns")
SNS_PRINCIPAL = "sns.amazonaws.com"

MAX_MESSAGE_BYTES = 256 * 1024
DEDUP_WINDOW_MS = 5 * 60 * 1000
SIGNING_CERT = "https://sns.{region}.amazonaws.com/SimpleNotificationService-onceflow.pem"


@dataclass
class Outgoing:
    message: str
    subject: str | None = None
    structure: str | None = None
    attributes: dict[str, Any] = field(default_factory=dict)
    dedup_id: str | None = None
    group_id: str | None = None


@lru_cache(maxsize=512)
def _policy(text: str, scope: str) -> FilterPolicy:
    return compile_policy(text, scope)


def passes(sub: Subscription, m: Outgoing) -> bool:
    text = sub.attributes.get("FilterPolicy")
    if not text:
        return True
    scope = sub.attributes.get("FilterPolicyScope", "MessageAttributes")
    policy = _policy(text, scope)
    return policy.matches_body(m.message) if scope == "MessageBody" else policy.matches_attributes(m.attributes)


def timestamp() -> str:
    now = datetime.now(UTC)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"


def envelope_attributes(attributes: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for name, value in attributes.items():
        if "BinaryValue" in value:
            out[name] = {"Type": value["DataType"], "Value": base64.b64encode(bytes(value["BinaryValue"])).decode()}
        else:
            out[name] = {"Type": value["DataType"], "Value": value.get("StringValue", "")}
    return out


def signature(fields: dict[str, Any]) -> str:
    """A stand-in for AWS's RSA signature (onceflow holds no SNS signing key): same shape, not verifiable."""
    digest = hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).digest()
    return base64.b64encode(digest * 8).decode()


def payload_size(message: str, attributes: dict[str, Any]) -> int:
    """What counts toward the 256 KiB: the message and its attributes' names, types and values (AWS:
    "the total size of the message, including attributes")."""
    size = len(message.encode())
    for name, value in attributes.items():
        size += len(name.encode()) + len(str(value.get("DataType", "")).encode())
        raw = value.get("BinaryValue")
        size += len(bytes(raw)) if raw is not None else len(str(value.get("StringValue") or "").encode())
    return size


_ATTRIBUTE_NAME_CHARS = re.compile(r"[A-Za-z0-9_.-]")
# Line breaks beyond the C0/C1 controls (which unicodedata puts in category Cc).
_LINE_BREAKS = frozenset("\u2028\u2029")


def subject_ok(subject: str) -> bool:
    """Publish's Subject: "UTF-8 text with no line breaks or control characters, and less than 100
    characters long" (the API reference today; its older "ASCII text that begins with a letter, number,
    or punctuation mark" is gone). So text beyond ASCII passes - an emoji joined by U+200D, a no-break
    space - and a tab, a newline or U+2028 does not; an empty one is refused before (check). AWS's
    answer for a long subject, "Invalid parameter: Subject", is recorded by users; that it counts
    characters as code points (not UTF-16 units) is UNCONFIRMED."""
    if len(subject) >= 100:
        return False
    return not any(unicodedata.category(c) == "Cc" or c in _LINE_BREAKS for c in subject)


def check_attribute_name(name: str) -> None:
    """A message attribute's name, refused in AWS's words (the same evidence as check_attributes)."""
    if len(name) > 256:
        raise invalid_value("Length of message attribute name must be less than 256 bytes.")
    if name.startswith("."):
        raise invalid_value("Invalid message attribute name starting with character '.' was found.")
    if name.endswith("."):
        raise invalid_value("Invalid message attribute name ending with character '.' was found.")
    for index, char in enumerate(name):
        if not _ATTRIBUTE_NAME_CHARS.match(char):
            raise invalid_value(f"Invalid non-alphanumeric character '#x{ord(char):X}' was found in the message "
                                "attribute name. Can only include alphanumeric characters, hyphens, underscores, or "
                                "dots.")
        if char == "." and name[index - 1] == ".":
            raise invalid_value("Message attribute name can not have successive '.' character.")


class Publisher:
    def __init__(self, db: Database, topics: Topics, endpoint_url: str,
                 queues: Port[QueueSender], wake: Callable[[], None]) -> None:
        self.db = db
        self.topics = topics
        self.endpoint = endpoint_url.rstrip("/")
        self.queues = queues
        self.wake = wake  # tells the delivery thread that rows are waiting

    # ------------------------------------------------------------------ checks
    def check(self, topic: Topic, m: Outgoing) -> None:
        self.check_text(m)
        self.check_body(m, max_message_size(topic.attributes))
        self.check_structure(m)
        if topic.fifo:
            if not m.group_id:
                raise invalid("The MessageGroupId parameter is required for FIFO topics")
            if not m.dedup_id and topic.attributes.get("ContentBasedDeduplication") != "true":
                raise invalid("The topic should either have ContentBasedDeduplication enabled or "
                              "MessageDeduplicationId provided explicitly")
        elif m.dedup_id:
            raise invalid("MessageDeduplicationId Reason: The request includes MessageDeduplicationId parameter "
                          "that is not valid for this topic type")

    @staticmethod
    def check_text(m: Outgoing) -> None:
        """What every Publish checks first, whatever it goes to (a topic, an endpoint, a phone number):
        AWS's order is an empty subject, an empty message, the attributes, the size with them."""
        if m.subject == "":
            raise invalid("Subject")
        if m.message == "":
            raise invalid("Empty message")

    def check_body(self, m: Outgoing, limit: int = MAX_MESSAGE_BYTES) -> None:
        """`limit`: a topic's MaximumMessageSize; 256 KiB for an endpoint or a phone number."""
        self.check_attributes(m.attributes)
        if payload_size(m.message, m.attributes) > limit:
            raise invalid("Message too long")
        if m.subject is not None and not subject_ok(m.subject):
            raise invalid("Subject")

    @staticmethod
    def check_structure(m: Outgoing, default_needed: bool = True) -> None:
        """MessageStructure json: a JSON object with a string "default" (Publish's reference: "a top-level
        JSON key of "default" with a value that is a string"); a mobile endpoint's needs no default, its
        platform's key is the one used (LocalStack's publish, after AWS's)."""
        if m.structure is None:
            return
        if m.structure != "json":
            raise invalid("MessageStructure")
        try:
            doc = json.loads(m.message)
        except ValueError:
            raise invalid("Message Structure - JSON message body failed to parse") from None
        if not isinstance(doc, dict) or (default_needed and not isinstance(doc.get("default"), str)):
            raise invalid("Message Structure - No default entry in JSON message body")

    @staticmethod
    def check_attributes(attributes: dict[str, Any]) -> None:
        # AWS's order and words: LocalStack's AWS-validated test_empty_or_wrong_message_attributes and
        # test_message_attributes_prefixes (a custom type needs text after its dot: "String." is refused).
        for name, value in attributes.items():
            check_attribute_name(name)
            data_type = str(value.get("DataType", ""))
            base, dot, custom = data_type.partition(".")
            if base not in ("String", "Number", "Binary") or (dot and not custom):
                raise invalid_value(f"The message attribute '{name}' has an invalid message attribute type, the "
                                    "set of supported type prefixes is Binary, Number, and String.")
            field = "Binary" if base == "Binary" else "String"
            if f"{field}Value" not in value:
                raise invalid_value(f"The message attribute '{name}' with type '{data_type}' must use field "
                                    f"'{field}'.")
            if not value[f"{field}Value"]:
                raise invalid_value(f"The message attribute '{name}' must contain non-empty message attribute "
                                    f"value for message attribute type '{data_type}'.")
            if base == "Binary":
                continue
            text = str(value["StringValue"])
            if base == "Number":
                try:
                    float(text)
                except ValueError:
                    raise invalid_value(f"Could not cast message attribute '{name}' value to number.") from None
            # A String.Array value that is not a JSON array is taken, not refused (moto's
            # test_filtering_string_array_with_*_no_array_*: "the correct behavior from SNS"; LocalStack
            # takes it too); the filter reads it in sns_filter._attribute_value.

    # ------------------------------------------------------------------ publishing
    def publish(self, topic: Topic, m: Outgoing) -> dict[str, Any]:
        self.check(topic, m)
        with self.db.transaction() as conn:
            out = self._fan_out(conn, topic, m)
        self.wake()
        return out

    def publish_batch(self, topic: Topic, entries: list[dict[str, Any]]) -> dict[str, Any]:
        if not entries:
            raise batch_error("EmptyBatchRequest", "The batch request doesn't contain any entries.")
        if len(entries) > 10:
            raise batch_error("TooManyEntriesInBatchRequest", "The batch request contains more entries than "
                              "permissible.")
        ids = [e["Id"] for e in entries]
        if len(set(ids)) != len(ids):
            raise batch_error("BatchEntryIdsNotDistinct", "Two or more batch entries in the request have the same Id.")
        total = sum(payload_size(e.get("Message", ""), dict(e.get("MessageAttributes") or {})) for e in entries)
        if total > max_message_size(topic.attributes):  # "must not exceed the topic's MaximumMessageSize"
            raise batch_error("BatchRequestTooLong", "The length of all the messages put together is more than the "
                              "limit.")
        messages = [Outgoing(e.get("Message", ""), e.get("Subject"), e.get("MessageStructure"),
                             dict(e.get("MessageAttributes") or {}), e.get("MessageDeduplicationId"),
                             e.get("MessageGroupId")) for e in entries]
        for m in messages:
            # AWS refuses the whole batch for one entry's bad input (a FIFO entry without a group id, a
            # MessageStructure without "default", a bad attribute; LocalStack's AWS-validated
            # test_publish_batch_exceptions and test_empty_or_wrong_message_attributes), publishing none;
            # UNCONFIRMED for the other checks (an empty message, the size), taken to go the same way.
            self.check(topic, m)
        ok: list[dict[str, Any]] = []
        with self.db.transaction() as conn:
            for e, m in zip(entries, messages, strict=True):
                ok.append({"Id": e["Id"], **self._fan_out(conn, topic, m)})
        self.wake()
        return {"Successful": ok, "Failed": []}

    def _fan_out(self, conn: sqlite3.Connection, topic: Topic, m: Outgoing) -> dict[str, Any]:
        now = int(time.time() * 1000)
        message_id = str(uuid.uuid4())
        sequence = None
        if topic.fifo:
            dedup = m.dedup_id or hashlib.sha256(m.message.encode()).hexdigest()
            m.dedup_id = dedup
            # FifoThroughputScope MessageGroup scopes deduplication to the group, Topic (the default) to the
            # whole topic (Publish's MessageDeduplicationId, AWS's API reference).
            scoped = f"{m.group_id}\x00{dedup}" if topic.attributes.get("FifoThroughputScope") == "MessageGroup" \
                else dedup
            seen = conn.execute("SELECT message_id, sequence FROM sns_dedup WHERE topic_arn=? AND dedup_id=? AND "
                                "expires_ms > ?", (topic.arn, scoped, now)).fetchone()
            if seen is not None:
                return {"MessageId": seen[0], "SequenceNumber": seen[1]}
            sequence = f"{10_000_000_000_000_000_000 + time.time_ns() // 1000:020d}"
            conn.execute("INSERT OR REPLACE INTO sns_dedup VALUES (?,?,?,?,?)",
                         (topic.arn, scoped, message_id, sequence, now + DEDUP_WINDOW_MS))
        stamp = timestamp()
        for sub in self.topics.confirmed_subscriptions(topic.arn, conn):
            if passes(sub, m):
                self._deliver(conn, topic, sub, m, message_id, sequence, stamp, now)
        out: dict[str, Any] = {"MessageId": message_id}
        if sequence:
            out["SequenceNumber"] = sequence
        return out

    def notification(self, topic: Topic, sub: Subscription, m: Outgoing, message_id: str, sequence: str | None,
                     stamp: str, *, lambda_style: bool = False) -> dict[str, Any]:
        body = self.message_for(sub.protocol, m)
        out: dict[str, Any] = {"Type": "Notification", "MessageId": message_id}
        if sequence:
            out["SequenceNumber"] = sequence
        out["TopicArn"] = topic.arn
        if m.subject is not None or lambda_style:
            out["Subject"] = m.subject
        out["Message"] = body
        out["Timestamp"] = stamp
        if not topic.fifo or lambda_style:
            out["SignatureVersion"] = topic.attributes.get("SignatureVersion", "1")
            out["Signature"] = signature(out)
            cert = SIGNING_CERT.format(region=topic.region)
            unsubscribe = f"{self.endpoint}/?Action=Unsubscribe&SubscriptionArn={sub.arn}"
            if lambda_style:
                out["SigningCertUrl"], out["UnsubscribeUrl"] = cert, unsubscribe
            else:
                out["SigningCertURL"], out["UnsubscribeURL"] = cert, unsubscribe
        if m.attributes or lambda_style:
            out["MessageAttributes"] = envelope_attributes(m.attributes)
        return out

    @staticmethod
    def message_for(protocol: str, m: Outgoing) -> str:
        if m.structure != "json":
            return m.message
        doc = json.loads(m.message)
        chosen = doc.get(protocol, doc["default"])
        return chosen if isinstance(chosen, str) else json.dumps(chosen)

    def _deliver(self, conn: sqlite3.Connection, topic: Topic, sub: Subscription, m: Outgoing, message_id: str,
                 sequence: str | None, stamp: str, now: int) -> None:
        if sub.protocol == "sqs":
            self._to_queue(topic, sub, m, message_id, sequence, stamp)
        elif sub.protocol == "lambda":
            event = {"Records": [{"EventSource": "aws:sns", "EventVersion": "1.0", "EventSubscriptionArn": sub.arn,
                                  "Sns": self.notification(topic, sub, m, message_id, sequence, stamp,
                                                           lambda_style=True)}]}
            self._queue_delivery(conn, sub, "lambda", {"body": json.dumps(event)}, now)
        elif sub.protocol in ("http", "https"):
            body = self.message_for(sub.protocol, m) if sub.raw else json.dumps(
                self.notification(topic, sub, m, message_id, sequence, stamp))
            self._queue_delivery(conn, sub, "http", {"body": body, "type": "Notification", "message_id": message_id,
                                                     "topic_arn": topic.arn}, now)
        # email, sms, application and firehose subscriptions are kept but nothing is delivered to them.

    def _to_queue(self, topic: Topic, sub: Subscription, m: Outgoing, message_id: str, sequence: str | None,
                  stamp: str) -> None:
        sqs = self.queues.get()
        if sqs is None:
            return
        if sub.raw:
            body = self.message_for("sqs", m)
            attributes = dict(m.attributes) or None
        else:
            body = json.dumps(self.notification(topic, sub, m, message_id, sequence, stamp))
            attributes = None
        fifo_queue = sub.endpoint.endswith(".fifo")
        # A FIFO topic passes its group id to FIFO queues only; a standard topic passes one it was given
        # to standard queues, for fair queues (Publish's MessageGroupId, AWS's API reference).
        group_id = m.group_id if fifo_queue or not topic.fifo else None
        if sqs.service_may_send(sub.endpoint, SNS_PRINCIPAL, topic.arn, topic.account) is False:
            # AWS counts it a client-side error: not retried, dead-lettered when the subscription has a DLQ.
            log.warning("sns: the policy of %s does not let %s send to it", sub.endpoint, topic.arn)
            self.dead_letter(sub, body)
            return
        try:
            sqs.send_to_arn(sub.endpoint, body, attributes=attributes,
                            group_id=group_id,
                            dedup_id=(m.dedup_id or message_id) if fifo_queue else None, sender=SNS_PRINCIPAL)
        except ServiceError:
            self.dead_letter(sub, body)

    def dead_letter(self, sub: Subscription, body: str) -> bool:
        """Send an undeliverable message to the subscription's dead-letter queue, if it has one."""
        policy = sub.attributes.get("RedrivePolicy")
        sqs = self.queues.get()
        if not policy or sqs is None:
            return False
        try:
            dlq = json.loads(policy)["deadLetterTargetArn"]
            if not sqs.service_may_send(dlq, SNS_PRINCIPAL, sub.topic_arn):  # the DLQ's policy must let SNS in too
                log.warning("sns: the dead-letter queue %s does not let %s send to it", dlq, sub.topic_arn)
                return False
            sqs.send_to_arn(dlq, body, sender=SNS_PRINCIPAL)
            return True
        except (ServiceError, ValueError, KeyError, TypeError):
            return False

    def _queue_delivery(self, conn: sqlite3.Connection, sub: Subscription, kind: str, payload: dict[str, Any],
                        now: int) -> None:
        conn.execute("INSERT INTO sns_deliveries (subscription_arn, kind, payload, due_ms) VALUES (?,?,?,?)",
                     (sub.arn, kind, json.dumps(payload), now))

    def confirmation(self, topic: Topic, sub: Subscription) -> None:
        """Ask an HTTP(S) endpoint to confirm its subscription (it visits SubscribeURL or calls ConfirmSubscription)."""
        message_id = str(uuid.uuid4())
        url = f"{self.endpoint}/?Action=ConfirmSubscription&TopicArn={topic.arn}&Token={sub.token}"
        doc: dict[str, Any] = {
            "Type": "SubscriptionConfirmation", "MessageId": message_id, "Token": sub.token, "TopicArn": topic.arn,
            "Message": f"You have chosen to subscribe to the topic {topic.arn}.\nTo confirm the subscription, visit "
                       "the SubscribeURL included in this message.",
            "SubscribeURL": url, "Timestamp": timestamp(), "SignatureVersion": "1"}
        doc["Signature"] = signature(doc)
        doc["SigningCertURL"] = SIGNING_CERT.format(region=topic.region)
        with self.db.transaction() as conn:
            self._queue_delivery(conn, sub, "http", {"body": json.dumps(doc), "type": "SubscriptionConfirmation",
                                                     "message_id": message_id, "topic_arn": topic.arn},
                                 int(time.time() * 1000))
        self.wake()
