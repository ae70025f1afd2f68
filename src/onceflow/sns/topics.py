"""Topics and subscriptions: create, attributes, tags, permissions, subscribe and confirm."""

from __future__ import annotations

import builtins
import json
import re
import secrets
import sqlite3
import time
import uuid
from dataclasses import dataclass
from typing import Any

from onceflow.awsmodels.partitions import partition
from onceflow.errors import ServiceError
from onceflow.patterns.sns_filter import FilterPolicyError, compile_policy
from onceflow.sns.errors import invalid, not_found
from onceflow.sns.paging import arn_after, token_after
from onceflow.sns.sms import check_sms_endpoint
from onceflow.store.db import Database

TOPIC_SETTABLE = {"DeliveryPolicy", "DisplayName", "Policy", "KmsMasterKeyId", "SignatureVersion", "TracingConfig",
                  "ContentBasedDeduplication", "FifoTopic", "ArchivePolicy", "FifoThroughputScope",
                  "DataProtectionPolicy", "MaximumMessageSize"} | {
                      f"{p}{s}" for p in ("Application", "Firehose", "HTTP", "Lambda", "SQS")
                      for s in ("SuccessFeedbackRoleArn", "SuccessFeedbackSampleRate", "FailureFeedbackRoleArn")}
SUBSCRIPTION_SETTABLE = {"DeliveryPolicy", "FilterPolicy", "FilterPolicyScope", "RawMessageDelivery", "RedrivePolicy",
                         "SubscriptionRoleArn", "ReplayPolicy"}
# The actions a topic policy may grant (AWS's SNS developer guide, "Amazon SNS API permissions"):
# AddPermission's ActionName takes these names without the "SNS:".
TOPIC_ACTIONS = {"AddPermission", "DeleteTopic", "GetDataProtectionPolicy", "GetTopicAttributes",
                 "ListSubscriptionsByTopic", "ListTagsForResource", "Publish", "PutDataProtectionPolicy",
                 "RemovePermission", "SetTopicAttributes", "Subscribe"}
PROTOCOLS = {"http", "https", "email", "email-json", "sms", "sqs", "application", "lambda", "firehose"}
DEFAULT_DELIVERY: dict[str, Any] = {"http": {"defaultHealthyRetryPolicy": {
    "minDelayTarget": 20, "maxDelayTarget": 20, "numRetries": 3, "numMaxDelayRetries": 0, "numNoDelayRetries": 0,
    "numMinDelayRetries": 0, "backoffFunction": "linear"}, "disableSubscriptionOverrides": False,
    "defaultRequestPolicy": {"headerContentType": "text/plain; charset=UTF-8"}}}
# AWS answers the policy as compact JSON ('{"http":{"defaultHealthyRetryPolicy":{"minDelayTarget":20,...'),
# as GetTopicAttributes output recorded from real accounts shows.
DEFAULT_DELIVERY_TEXT = json.dumps(DEFAULT_DELIVERY, separators=(",", ":"))
DEFAULT_SUBSCRIPTION_DELIVERY_TEXT = json.dumps(DEFAULT_DELIVERY["http"], separators=(",", ":"))
# MaximumMessageSize (the SNS developer guide's "Publishing large messages"): 1,024 to 1,048,576 bytes,
# 262,144 when not set; above 256 KiB a topic takes at most 100 subscriptions, all to SQS, Firehose or Lambda.
DEFAULT_MAX_MESSAGE = 256 * 1024
MAX_MESSAGE_RANGE = (1024, 1024 * 1024)
LARGE_MESSAGE_PROTOCOLS = frozenset({"sqs", "firehose", "lambda"})
LARGE_MESSAGE_SUBSCRIPTIONS = 100
_TOPIC_NAME = re.compile(r"^[A-Za-z0-9_-]{1,256}$")
_FIFO_NAME = re.compile(r"^[A-Za-z0-9_-]{1,251}\.fifo$")
# The only HTTP(S) endpoints onceflow calls (one machine: it reaches nothing else).
_LOOPBACK = re.compile(r"^https?://(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:\d+)?(/|$)", re.IGNORECASE)
_QUEUE_ARN = re.compile(r"^arn:aws[a-z-]*:sqs:[a-z0-9-]+:\d{12}:[A-Za-z0-9_.-]{1,80}$")
_FUNCTION_ARN = re.compile(r"^arn:aws[a-z-]*:lambda:[a-z0-9-]+:\d{12}:function:[A-Za-z0-9_-]+(:[A-Za-z0-9_$-]+)?$")


@dataclass(frozen=True)
class Topic:
    arn: str
    account: str
    region: str
    name: str
    fifo: bool
    attributes: dict[str, str]


@dataclass(frozen=True)
class Subscription:
    arn: str
    topic_arn: str
    account: str
    protocol: str
    endpoint: str
    attributes: dict[str, str]
    confirmed: bool
    token: str

    @property
    def raw(self) -> bool:
        return self.attributes.get("RawMessageDelivery", "false") == "true"


def _topic(row: sqlite3.Row) -> Topic:
    return Topic(row["arn"], row["account"], row["region"], row["name"], bool(row["fifo"]),
                 json.loads(row["attributes"]))


def _subscription(row: sqlite3.Row) -> Subscription:
    return Subscription(row["arn"], row["topic_arn"], row["account"], row["protocol"], row["endpoint"],
                        json.loads(row["attributes"]), bool(row["confirmed"]), row["token"])


def on_loopback(endpoint: str) -> bool:
    return _LOOPBACK.match(endpoint) is not None


def default_policy(arn: str, account: str) -> str:
    actions = ["SNS:GetTopicAttributes", "SNS:SetTopicAttributes", "SNS:AddPermission", "SNS:RemovePermission",
               "SNS:DeleteTopic", "SNS:Subscribe", "SNS:ListSubscriptionsByTopic", "SNS:Publish"]
    return json.dumps({"Version": "2008-10-17", "Id": "__default_policy_ID", "Statement": [{
        "Sid": "__default_statement_ID", "Effect": "Allow", "Principal": {"AWS": "*"}, "Action": actions,
        "Resource": arn, "Condition": {"StringEquals": {"AWS:SourceOwner": account}}}]}, separators=(",", ":"))


# Subscribe words a bad attribute "Attributes Reason: <name>: ...", SetSubscriptionAttributes
# "<name>: ..." (LocalStack's AWS-recorded test_sns_filter_policy snapshots).
SUBSCRIBE_REASON = "Attributes Reason: "


def _removes_filter(value: str) -> bool:
    """An empty value or an empty JSON object takes a subscription's filter policy away (AWS's
    SetSubscriptionAttributes example removes one with `--attribute-value "{}"`)."""
    if not value.strip():
        return True
    try:
        return json.loads(value) == {}
    except (ValueError, RecursionError):  # not JSON, or nested past the parser: compile_policy refuses it
        return False


def check_subscription_attribute(name: str, value: str, reason: str = "") -> str:
    if name not in SUBSCRIPTION_SETTABLE:
        raise invalid("AttributeName")
    if name == "RawMessageDelivery":
        if value.lower() not in ("true", "false"):
            raise invalid(f"{reason}RawMessageDelivery: Invalid value [{value}]. Must be true or false.")
        return value.lower()
    if name == "FilterPolicyScope" and value not in ("MessageAttributes", "MessageBody"):
        raise invalid(f"{reason}FilterPolicyScope: Invalid value [{value}]. Please use either MessageBody or "
                      "MessageAttributes")
    if name in ("DeliveryPolicy", "RedrivePolicy") and value:
        try:
            doc = json.loads(value)
        except ValueError:
            raise invalid(f"{reason}{name}: failed to parse JSON.") from None
        if name == "RedrivePolicy" and (not isinstance(doc, dict) or not _QUEUE_ARN.match(
                str(doc.get("deadLetterTargetArn", "")))):
            raise invalid(f"{reason}RedrivePolicy: deadLetterTargetArn is invalid")
    return value


def max_message_size(attributes: dict[str, str]) -> int:
    return int(attributes.get("MaximumMessageSize") or DEFAULT_MAX_MESSAGE)


def check_max_message_size(value: str, reason: str = "") -> int:
    """A MaximumMessageSize value. UNCONFIRMED wording, shaped as SNS's other attribute refusals."""
    low, high = MAX_MESSAGE_RANGE
    if not re.fullmatch(r"\d{1,8}", value) or not low <= int(value) <= high:
        raise invalid(f"{reason}MaximumMessageSize: Invalid value [{value}]. Must be an integer between {low} and "
                      f"{high}.")
    return int(value)


def _large_message_refusal(subscriptions: builtins.list[tuple[str, int]]) -> str | None:
    """Why a topic with these (protocol, count) subscriptions may not take messages above 256 KiB."""
    if sum(n for _, n in subscriptions) > LARGE_MESSAGE_SUBSCRIPTIONS:
        return (f"a topic with a MaximumMessageSize above 256 KiB can have at most {LARGE_MESSAGE_SUBSCRIPTIONS} "
                "subscriptions")
    others = sorted(p for p, _ in subscriptions if p not in LARGE_MESSAGE_PROTOCOLS)
    if others:
        return (f"a topic with a MaximumMessageSize above 256 KiB takes only sqs, firehose and lambda subscriptions, "
                f"not {others[0]}")
    return None


class Topics:
    def __init__(self, db: Database, endpoint_url: str) -> None:
        self.db = db
        self.endpoint = endpoint_url.rstrip("/")

    # ------------------------------------------------------------------ topics
    def get(self, arn: str, conn: sqlite3.Connection | None = None) -> Topic:
        sql, args = "SELECT * FROM sns_topics WHERE arn=?", (arn,)
        row = conn.execute(sql, args).fetchone() if conn is not None else self.db.query_one(sql, args)
        if row is None:
            raise not_found()
        return _topic(row)

    def create(self, account: str, region: str, name: str, attributes: dict[str, str],
               tags: list[dict[str, str]]) -> str:
        fifo = str(attributes.get("FifoTopic", "false")).lower() == "true"
        if (fifo and not _FIFO_NAME.match(name)) or (not fifo and not _TOPIC_NAME.match(name)):
            if name.endswith(".fifo") or fifo:
                raise invalid("Fifo Topic names must end with .fifo and must be made up of only uppercase and "
                              "lowercase ASCII letters, numbers, underscores, and hyphens, and must be between 1 "
                              "and 256 characters long.")
            raise invalid("Topic Name")
        for key in attributes:
            if key not in TOPIC_SETTABLE:
                raise invalid(f"Attributes Reason: Unknown attribute {key}")
        if "MaximumMessageSize" in attributes:
            check_max_message_size(str(attributes["MaximumMessageSize"]), "Attributes Reason: ")
        arn = f"arn:{partition(region)}:sns:{region}:{account}:{name}"
        # A standard topic lists no FifoTopic attribute, even when created with FifoTopic=false.
        attributes = {k: str(v) for k, v in attributes.items() if fifo or k != "FifoTopic"}
        full = {"Policy": default_policy(arn, account), "DisplayName": "", **attributes}
        if fifo:
            full["FifoTopic"] = "true"
            full.setdefault("ContentBasedDeduplication", "false")
        with self.db.transaction() as conn:
            row = conn.execute("SELECT * FROM sns_topics WHERE arn=?", (arn,)).fetchone()
            if row is not None:
                existing = _topic(row).attributes
                if any(existing.get(k) != str(v) for k, v in attributes.items()):
                    raise invalid("Attributes Reason: Topic already exists with different attributes")
                return arn
            conn.execute("INSERT INTO sns_topics VALUES (?,?,?,?,?,?,?,?)",
                         (arn, account, region, name, int(fifo), json.dumps(full),
                          json.dumps({t["Key"]: t["Value"] for t in tags}), int(time.time())))
        return arn

    def delete(self, arn: str) -> None:
        with self.db.transaction() as conn:
            conn.execute("DELETE FROM sns_subscriptions WHERE topic_arn=?", (arn,))
            conn.execute("DELETE FROM sns_data_protection WHERE topic_arn=?", (arn,))
            conn.execute("DELETE FROM sns_topics WHERE arn=?", (arn,))

    def list(self, account: str, region: str, token: str | None) -> dict[str, Any]:
        rows = self.db.query("SELECT arn FROM sns_topics WHERE account=? AND region=? AND arn > ? ORDER BY arn "
                             "LIMIT 101", (account, region, arn_after(token, "topics")))
        out: dict[str, Any] = {"Topics": [{"TopicArn": r[0]} for r in rows[:100]]}
        if len(rows) > 100:
            out["NextToken"] = token_after(rows[99][0], "topics")
        return out

    def attributes(self, arn: str) -> dict[str, str]:
        topic = self.get(arn)
        subs = self.db.query("SELECT confirmed, COUNT(*) FROM sns_subscriptions WHERE topic_arn=? GROUP BY confirmed",
                             (arn,))
        counts = {bool(r[0]): r[1] for r in subs}
        out = dict(topic.attributes)
        out.update({"TopicArn": arn, "Owner": topic.account, "SubscriptionsConfirmed": str(counts.get(True, 0)),
                    "SubscriptionsPending": str(counts.get(False, 0)), "SubscriptionsDeleted": "0",
                    "EffectiveDeliveryPolicy": out.get("DeliveryPolicy") or DEFAULT_DELIVERY_TEXT})
        return out

    def set_attribute(self, arn: str, name: str, value: str) -> None:
        topic = self.get(arn)
        if name not in TOPIC_SETTABLE:
            raise invalid("AttributeName")
        if name == "FifoTopic":
            raise invalid("AttributeName Reason: FifoTopic can not be changed")
        if name == "ContentBasedDeduplication" and not topic.fifo:
            raise invalid("ContentBasedDeduplication Reason: Content based deduplication can only be set for FIFO "
                          "topics")
        if name in ("Policy", "DeliveryPolicy") and value:
            try:
                json.loads(value)
            except (ValueError, RecursionError):  # nested past Python's parser: unparsable as well
                raise invalid(f"{name}: failed to parse JSON.") from None
        attributes = dict(topic.attributes)
        attributes[name] = value
        with self.db.transaction() as conn:
            if name == "MaximumMessageSize" and check_max_message_size(value) > DEFAULT_MAX_MESSAGE:
                rows = conn.execute("SELECT protocol, COUNT(*) FROM sns_subscriptions WHERE topic_arn=? GROUP BY "
                                    "protocol", (arn,)).fetchall()
                refusal = _large_message_refusal([(str(r[0]), int(r[1])) for r in rows])
                if refusal:  # UNCONFIRMED wording; the code is the reference's InvalidParameter
                    raise invalid(f"MaximumMessageSize Reason: {refusal}")
            conn.execute("UPDATE sns_topics SET attributes=? WHERE arn=?", (json.dumps(attributes), arn))

    # ------------------------------------------------------------------ tags, permissions
    def tags(self, arn: str) -> dict[str, str]:
        row = self.db.query_one("SELECT tags FROM sns_topics WHERE arn=?", (arn,))
        if row is None:  # the tagging API words it for any resource, not as a topic
            raise ServiceError("ResourceNotFound", "Resource does not exist", 404)
        return dict(json.loads(row[0]))

    def set_tags(self, arn: str, tags: dict[str, str]) -> None:
        if len(tags) > 50:
            raise ServiceError("TagLimitExceeded", "Could not complete request: tag quota of per resource exceeded")
        with self.db.transaction() as conn:
            conn.execute("UPDATE sns_topics SET tags=? WHERE arn=?", (json.dumps(tags), arn))

    def add_permission(self, arn: str, label: str, accounts: builtins.list[str], actions: builtins.list[str]) -> None:
        topic = self.get(arn)
        policy = json.loads(topic.attributes.get("Policy") or default_policy(arn, topic.account))
        if any(s.get("Sid") == label for s in policy["Statement"]):
            raise invalid("Statement already exists")
        if any(a not in TOPIC_ACTIONS for a in actions):
            raise invalid("Policy statement action out of service scope!")  # UNCONFIRMED prefix (moto's text)
        principals = [f"arn:{arn.split(':')[1]}:iam::{a}:root" for a in accounts]  # the topic's partition
        granted = [f"SNS:{a}" for a in actions]
        # As AWS stores it: a lone principal or action is a string, several are a list.
        policy["Statement"].append({"Sid": label, "Effect": "Allow",
                                    "Principal": {"AWS": principals[0] if len(principals) == 1 else principals},
                                    "Action": granted[0] if len(granted) == 1 else granted, "Resource": arn})
        self.set_attribute(arn, "Policy", json.dumps(policy, separators=(",", ":")))

    def remove_permission(self, arn: str, label: str) -> None:
        topic = self.get(arn)
        policy = json.loads(topic.attributes.get("Policy") or default_policy(arn, topic.account))
        policy["Statement"] = [s for s in policy["Statement"] if s.get("Sid") != label]
        self.set_attribute(arn, "Policy", json.dumps(policy, separators=(",", ":")))

    # ------------------------------------------------------------------ subscriptions
    def subscribe(self, account: str, topic_arn: str, protocol: str, endpoint: str | None,
                  attributes: dict[str, str]) -> Subscription:
        topic = self.get(topic_arn)
        if protocol not in PROTOCOLS:
            raise invalid(f"Amazon SNS does not support this protocol string: {protocol}")
        endpoint = endpoint or ""
        if protocol == "sqs" and not _QUEUE_ARN.match(endpoint):
            raise invalid("SQS endpoint ARN")
        if protocol == "sms":
            check_sms_endpoint(endpoint)
        if protocol == "lambda" and not _FUNCTION_ARN.match(endpoint):
            raise invalid("Lambda endpoint ARN")
        if protocol in ("http", "https"):
            if not endpoint.lower().startswith(protocol + "://"):
                raise invalid("Endpoint must match the specified protocol")
        if topic.fifo and protocol != "sqs":
            raise invalid("Invalid protocol type: " + protocol)
        if protocol == "sqs" and not topic.fifo and endpoint.endswith(".fifo"):
            # AWS's text, its prefix doubled as recorded against AWS
            raise invalid("Invalid parameter: Endpoint Reason: FIFO SQS Queues can not be subscribed to standard "
                          "SNS topics")
        checked = {k: check_subscription_attribute(k, str(v), SUBSCRIBE_REASON) for k, v in attributes.items()}
        if "FilterPolicy" in checked:
            self.check_filter(checked["FilterPolicy"], checked.get("FilterPolicyScope", "MessageAttributes"),
                              SUBSCRIBE_REASON)
        confirmed = protocol not in ("http", "https", "email", "email-json")
        with self.db.transaction() as conn:
            row = conn.execute("SELECT * FROM sns_subscriptions WHERE topic_arn=? AND protocol=? AND endpoint=?",
                               (topic_arn, protocol, endpoint)).fetchone()
            if row is not None:
                existing = _subscription(row)
                if any(existing.attributes.get(k) != v for k, v in checked.items()):
                    raise invalid("Attributes Reason: Subscription already exists with different attributes")
                return existing
            self._check_large_topic(conn, topic_arn, protocol)
            arn = f"{topic_arn}:{uuid.uuid4()}"
            token = secrets.token_hex(64)
            conn.execute("INSERT INTO sns_subscriptions VALUES (?,?,?,?,?,?,?,?,?)",
                         (arn, topic_arn, account, protocol, endpoint, json.dumps(checked), int(confirmed), token,
                          int(time.time())))
        return Subscription(arn, topic_arn, account, protocol, endpoint, checked, confirmed, token)

    def _check_large_topic(self, conn: sqlite3.Connection, topic_arn: str, protocol: str) -> None:
        """A new subscription to a topic whose MaximumMessageSize is above 256 KiB: one of at most 100, to
        SQS, Firehose or Lambda ("If you attempt to create additional subscriptions, Amazon SNS returns an
        InvalidParameter error"; the wording is UNCONFIRMED)."""
        if max_message_size(self.get(topic_arn, conn).attributes) <= DEFAULT_MAX_MESSAGE:
            return
        rows = conn.execute("SELECT protocol, COUNT(*) FROM sns_subscriptions WHERE topic_arn=? GROUP BY protocol",
                            (topic_arn,)).fetchall()
        refusal = _large_message_refusal([*((str(r[0]), int(r[1])) for r in rows), (protocol, 1)])
        if refusal:
            raise invalid(f"Protocol Reason: {refusal}")

    def check_filter(self, policy: str, scope: str, reason: str = "") -> None:
        try:
            compile_policy(policy, scope)
        except FilterPolicyError as exc:
            # A bare text through Subscribe takes the reason too: UNCONFIRMED (recorded only through
            # SetSubscriptionAttributes).
            raise invalid(reason + (str(exc) if exc.bare else f"FilterPolicy: {exc}")) from None

    def confirm(self, topic_arn: str, token: str) -> str:
        self.get(topic_arn)
        with self.db.transaction() as conn:
            row = conn.execute("SELECT arn FROM sns_subscriptions WHERE topic_arn=? AND token=?",
                               (topic_arn, token)).fetchone()
            if row is None:
                raise invalid("Token")
            conn.execute("UPDATE sns_subscriptions SET confirmed=1 WHERE arn=?", (row[0],))
        return str(row[0])

    def subscription(self, arn: str) -> Subscription:
        row = self.db.query_one("SELECT * FROM sns_subscriptions WHERE arn=?", (arn,))
        if row is None:
            raise not_found("Subscription does not exist")
        return _subscription(row)

    def unsubscribe(self, arn: str) -> None:
        if arn.count(":") != 6 or not arn.startswith("arn:"):
            raise invalid("SubscriptionArn")
        with self.db.transaction() as conn:
            conn.execute("DELETE FROM sns_subscriptions WHERE arn=?", (arn,))

    def subscription_attributes(self, arn: str) -> dict[str, str]:
        s = self.subscription(arn)
        out = {"Owner": s.account, "RawMessageDelivery": "false", "TopicArn": s.topic_arn, "Endpoint": s.endpoint,
               "Protocol": s.protocol, "PendingConfirmation": str(not s.confirmed).lower(),
               "ConfirmationWasAuthenticated": str(s.confirmed).lower(), "SubscriptionArn": s.arn}
        out.update(s.attributes)
        if "FilterPolicy" in out:
            out.setdefault("FilterPolicyScope", "MessageAttributes")
        if s.protocol in ("http", "https"):
            out["EffectiveDeliveryPolicy"] = s.attributes.get("DeliveryPolicy") or DEFAULT_SUBSCRIPTION_DELIVERY_TEXT
        return out

    def set_subscription_attribute(self, arn: str, name: str, value: str) -> None:
        s = self.subscription(arn)
        value = check_subscription_attribute(name, value)
        attributes = dict(s.attributes)
        attributes[name] = value
        if name == "FilterPolicy" and _removes_filter(value):
            attributes.pop("FilterPolicy")
        if name in ("FilterPolicy", "FilterPolicyScope") and attributes.get("FilterPolicy"):
            self.check_filter(attributes["FilterPolicy"], attributes.get("FilterPolicyScope", "MessageAttributes"))
        with self.db.transaction() as conn:
            conn.execute("UPDATE sns_subscriptions SET attributes=? WHERE arn=?", (json.dumps(attributes), arn))

    def subscriptions(self, topic_arn: str | None, account: str, token: str | None) -> dict[str, Any]:
        listing = "subscriptions" if topic_arn is None else f"subscriptions:{topic_arn}"
        after = arn_after(token, listing)
        if topic_arn is not None:
            self.get(topic_arn)
            rows = self.db.query("SELECT * FROM sns_subscriptions WHERE topic_arn=? AND arn > ? ORDER BY arn LIMIT 101",
                                 (topic_arn, after))
        else:
            rows = self.db.query("SELECT * FROM sns_subscriptions WHERE account=? AND arn > ? ORDER BY arn LIMIT 101",
                                 (account, after))
        subs = [_subscription(r) for r in rows]
        out: dict[str, Any] = {"Subscriptions": [
            {"SubscriptionArn": s.arn if s.confirmed else "PendingConfirmation", "Owner": s.account,
             "Protocol": s.protocol, "Endpoint": s.endpoint, "TopicArn": s.topic_arn} for s in subs[:100]]}
        if len(subs) > 100:
            out["NextToken"] = token_after(subs[99].arn, listing)
        return out

    def confirmed_subscriptions(self, topic_arn: str, conn: sqlite3.Connection) -> builtins.list[Subscription]:
        rows = conn.execute("SELECT * FROM sns_subscriptions WHERE topic_arn=? AND confirmed=1", (topic_arn,))
        return [_subscription(r) for r in rows]

