"""Queue attributes: which exist, their defaults and ranges, and how a value is checked.

Stored as the strings AWS returns; counts and timestamps are computed when asked for.
"""

from __future__ import annotations

import json
import re
from typing import Any

from onceflow.sqs.errors import invalid_attribute_name, invalid_attribute_value, invalid_value

# name -> (low, high) for integer attributes
RANGES = {
    "DelaySeconds": (0, 900),
    "MaximumMessageSize": (1024, 1048576),
    "MessageRetentionPeriod": (60, 1209600),
    "ReceiveMessageWaitTimeSeconds": (0, 20),
    "VisibilityTimeout": (0, 43200),
    "KmsDataKeyReusePeriodSeconds": (60, 86400),
}
DEFAULTS = {
    "VisibilityTimeout": "30",
    "MaximumMessageSize": "1048576",
    "MessageRetentionPeriod": "345600",
    "DelaySeconds": "0",
    "ReceiveMessageWaitTimeSeconds": "0",
    "SqsManagedSseEnabled": "true",
}
FIFO_DEFAULTS = {"FifoQueue": "true", "ContentBasedDeduplication": "false", "DeduplicationScope": "queue",
                 "FifoThroughputLimit": "perQueue"}
BOOLEANS = {"SqsManagedSseEnabled", "ContentBasedDeduplication", "FifoQueue"}
JSON_VALUES = {"Policy", "RedrivePolicy", "RedriveAllowPolicy"}
FIFO_ONLY = {"ContentBasedDeduplication", "DeduplicationScope", "FifoThroughputLimit"}
SETTABLE = set(RANGES) | BOOLEANS | JSON_VALUES | FIFO_ONLY | {"KmsMasterKeyId"}
COMPUTED = ["QueueArn", "ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible",
            "ApproximateNumberOfMessagesDelayed", "CreatedTimestamp", "LastModifiedTimestamp"]
READABLE = set(SETTABLE) | set(COMPUTED)
# The order GetQueueAttributes(All) lists them in (as AWS does).
ORDER = ["QueueArn", "ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible",
         "ApproximateNumberOfMessagesDelayed", "CreatedTimestamp", "LastModifiedTimestamp", "VisibilityTimeout",
         "MaximumMessageSize", "MessageRetentionPeriod", "DelaySeconds", "ReceiveMessageWaitTimeSeconds", "Policy",
         "RedrivePolicy", "RedriveAllowPolicy", "KmsMasterKeyId", "KmsDataKeyReusePeriodSeconds",
         "SqsManagedSseEnabled", "FifoQueue", "ContentBasedDeduplication", "DeduplicationScope",
         "FifoThroughputLimit"]

_QUEUE_ARN = re.compile(r"^arn:aws[a-z-]*:sqs:[a-z0-9-]+:\d{12}:[A-Za-z0-9_.-]{1,80}$")


def check(attributes: dict[str, str], fifo: bool) -> dict[str, str]:
    """The attributes as stored; raises AWS's error for an unknown name or a bad value."""
    out: dict[str, str] = {}
    for name, value in attributes.items():
        if name not in SETTABLE or (name in FIFO_ONLY and not fifo):
            raise invalid_attribute_name(name)
        value = str(value)
        if name in RANGES:
            low, high = RANGES[name]
            if not re.fullmatch(r"-?\d+", value.strip()) or not low <= int(value) <= high:
                raise invalid_attribute_value(name)
            value = str(int(value))
        elif name in BOOLEANS:
            if value.lower() not in ("true", "false"):
                raise invalid_attribute_value(name)
            value = value.lower()
        elif name == "RedrivePolicy" and value:
            value = _redrive_policy(value)
        elif name in JSON_VALUES and value:
            try:
                json.loads(value)
            except (ValueError, RecursionError):  # nested past Python's parser: invalid as well
                raise invalid_attribute_value(name) from None
        elif name == "DeduplicationScope" and value not in ("queue", "messageGroup"):
            raise invalid_attribute_value(name)
        elif name == "FifoThroughputLimit" and value not in ("perQueue", "perMessageGroupId"):
            raise invalid_attribute_value(name)
        out[name] = value
    if "FifoQueue" in out and out["FifoQueue"] == "false" and fifo:
        raise invalid_attribute_value("FifoQueue")
    return out


def _redrive_policy(value: str) -> str:
    try:
        policy = json.loads(value)
    except (ValueError, RecursionError):
        raise invalid_value(f"Value {value} for parameter RedrivePolicy is invalid. Reason: Redrive policy is not "
                            "a valid JSON map.") from None
    if not isinstance(policy, dict) or "deadLetterTargetArn" not in policy or "maxReceiveCount" not in policy:
        raise invalid_value(f"Value {value} for parameter RedrivePolicy is invalid. Reason: Redrive policy does "
                            "not contain mandatory attribute: "
                            f"{'deadLetterTargetArn' if 'deadLetterTargetArn' not in policy else 'maxReceiveCount'}.")
    count = policy["maxReceiveCount"]
    try:
        count_value = int(count)
    except (TypeError, ValueError):
        count_value = 0
    if not 1 <= count_value <= 1000:
        raise invalid_value(f"Value {value} for parameter RedrivePolicy is invalid. Reason: Invalid value for "
                            f"maxReceiveCount: {count}, valid values are from 1 to 1000 both inclusive.")
    if not isinstance(policy["deadLetterTargetArn"], str) or not _QUEUE_ARN.match(policy["deadLetterTargetArn"]):
        raise invalid_value(f"Value {value} for parameter RedrivePolicy is invalid. Reason: Invalid value for "
                            "deadLetterTargetArn.")
    return json.dumps({"deadLetterTargetArn": policy["deadLetterTargetArn"], "maxReceiveCount": count_value},
                      separators=(",", ":"))


def redrive(attributes: dict[str, str]) -> tuple[str, int] | None:
    """(dead-letter queue ARN, maxReceiveCount) of a queue with a RedrivePolicy."""
    text = attributes.get("RedrivePolicy")
    if not text:
        return None
    policy: dict[str, Any] = json.loads(text)
    return policy["deadLetterTargetArn"], int(policy["maxReceiveCount"])


def check_name(name: str, fifo: bool) -> None:
    if fifo:
        if not re.fullmatch(r"[A-Za-z0-9_-]{1,75}\.fifo", name):
            raise invalid_value("The name of a FIFO queue can only include alphanumeric characters, hyphens, or "
                                "underscores, must end with .fifo suffix and be 1 to 80 in length.")
    elif not re.fullmatch(r"[A-Za-z0-9_-]{1,80}", name):
        raise invalid_value("Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length")


def fifo_of(name: str, attributes: dict[str, str]) -> bool:
    wanted = str(attributes.get("FifoQueue", "false")).lower() == "true"
    if wanted or name.endswith(".fifo"):
        if not wanted:
            raise invalid_value("The name of a FIFO queue can only include alphanumeric characters, hyphens, or "
                                "underscores, must end with .fifo suffix and be 1 to 80 in length.")
        return True
    return False
