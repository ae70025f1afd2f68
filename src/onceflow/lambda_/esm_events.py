"""What an event source mapping hands a function: the SQS and DynamoDB Streams event shapes
Lambda sends, the FilterCriteria check (EventBridge's pattern language), and the reading of a
function's batchItemFailures answer."""

from __future__ import annotations

import base64
import json
from datetime import datetime
from typing import Any

from onceflow.patterns.event_pattern import EventPattern, PatternError, compile_pattern

MAX_FILTERS = 5


def compile_filters(criteria: dict[str, Any] | None) -> list[EventPattern]:
    """The mapping's filters (an empty list: every record passes); PatternError when one is invalid."""
    filters = (criteria or {}).get("Filters") or []
    if len(filters) > MAX_FILTERS:
        raise PatternError("too many filters")
    return [compile_pattern(f.get("Pattern") or "") for f in filters]


def passes(filters: list[EventPattern], record: dict[str, Any]) -> bool:
    """A record is processed when any filter matches it (OR), or when there are no filters."""
    return not filters or any(f.matches(record) for f in filters)


# ------------------------------------------------------------------ SQS
def sqs_record(message: dict[str, Any], queue_arn: str, region: str) -> dict[str, Any]:
    """One received message in the shape of an SQS event record (lower-camel keys), in the order AWS
    writes them, with md5OfMessageAttributes null for a message without attributes (recorded on AWS:
    event_source_mapping/test_lambda_integration_sqs.py test_sqs_event_source_mapping, 2023-02)."""
    return {
        "messageId": message["MessageId"],
        "receiptHandle": message["ReceiptHandle"],
        "body": message.get("Body", ""),
        "attributes": _in_lambdas_order(message.get("Attributes") or {}),
        "messageAttributes": {k: _sqs_attribute(v) for k, v in (message.get("MessageAttributes") or {}).items()},
        "md5OfMessageAttributes": message.get("MD5OfMessageAttributes") or None,
        "md5OfBody": message.get("MD5OfBody"),
        "eventSource": "aws:sqs",
        "eventSourceARN": queue_arn,
        "awsRegion": region,
    }


# A record's system attributes as AWS's recordings and documented examples list them; others follow.
_ATTRIBUTE_ORDER = ("ApproximateReceiveCount", "SentTimestamp", "SenderId", "ApproximateFirstReceiveTimestamp")


def _in_lambdas_order(attributes: dict[str, str]) -> dict[str, str]:
    first = {k: attributes[k] for k in _ATTRIBUTE_ORDER if k in attributes}
    return {**first, **{k: v for k, v in attributes.items() if k not in first}}


def _sqs_attribute(value: dict[str, Any]) -> dict[str, Any]:
    # stringValue first, as AWS writes it (test_message_body_and_attributes_passed_correctly, 2023-03)
    out: dict[str, Any] = {"stringValue": value["StringValue"]} if "StringValue" in value else {}
    out.update({"stringListValues": [], "binaryListValues": [], "dataType": value.get("DataType")})
    if "BinaryValue" in value:
        raw = value["BinaryValue"]
        out["binaryValue"] = base64.b64encode(raw).decode() if isinstance(raw, bytes) else raw
    return out


def sqs_filter_view(record: dict[str, Any]) -> dict[str, Any]:
    """What a filter sees of an SQS record: its metadata, with the body parsed when it is JSON."""
    view = dict(record)
    try:
        view["body"] = json.loads(record["body"])
    except (ValueError, TypeError):
        pass
    return view


# ------------------------------------------------------------------ DynamoDB Streams
def stream_record(record: dict[str, Any], stream_arn: str) -> dict[str, Any]:
    """A GetRecords record as Lambda sends it: JSON only, with the stream's ARN added; binary
    attributes base64 text, as the wire writes them (recorded on AWS: test_lambda_integration_
    dynamodbstreams.py test_dynamodb_event_source_mapping, {"B": "Zm9vYmFy"}, 2025-02)."""
    rec = dict(record)
    d = dict(rec["dynamodb"])
    when = d.get("ApproximateCreationDateTime")
    if isinstance(when, datetime):
        # whole seconds, written as a JSON float (recorded: test_dynamodb_event_filter asserts a float, 2024-10)
        d["ApproximateCreationDateTime"] = float(int(when.timestamp()))
    for image in ("Keys", "NewImage", "OldImage"):
        if image in d:
            d[image] = {name: _json_attribute(value) for name, value in d[image].items()}
    rec["dynamodb"] = d
    rec["eventSourceARN"] = stream_arn
    return rec


def _json_attribute(value: dict[str, Any]) -> dict[str, Any]:
    """One DynamoDB attribute value with its bytes (B, BS) as base64 text, nested M and L alike."""
    out: dict[str, Any] = {}
    for kind, inner in value.items():
        if kind == "B":
            out[kind] = _b64(inner)
        elif kind == "BS":
            out[kind] = [_b64(v) for v in inner]
        elif kind == "M":
            out[kind] = {k: _json_attribute(v) for k, v in inner.items()}
        elif kind == "L":
            out[kind] = [_json_attribute(v) for v in inner]
        else:
            out[kind] = inner
    return out


def _b64(raw: Any) -> Any:
    return base64.b64encode(raw).decode() if isinstance(raw, (bytes, bytearray)) else raw


# ------------------------------------------------------------------ the function's answer
def failed_items(payload: bytes) -> list[str] | None:
    """The itemIdentifiers of a ReportBatchItemFailures answer; None when the answer is malformed
    (Lambda then counts the whole batch as failed)."""
    try:
        answer = json.loads(payload or b"null")
    except ValueError:
        return None
    if answer is None or not isinstance(answer, dict):
        return []
    failures = answer.get("batchItemFailures")
    if failures is None:
        return []
    if not isinstance(failures, list):
        return None
    out = []
    for f in failures:
        ident = f.get("itemIdentifier") if isinstance(f, dict) else None
        if not isinstance(ident, str) or not ident:
            return None  # an empty or missing identifier fails the whole batch, as Lambda does
        out.append(ident)
    return out
