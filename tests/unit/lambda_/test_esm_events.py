"""The pure parts of event source mappings: event shapes, filters, batchItemFailures answers."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from onceflow.lambda_.esm_events import (
    compile_filters,
    failed_items,
    passes,
    sqs_filter_view,
    sqs_record,
    stream_record,
)
from onceflow.patterns.event_pattern import PatternError

MESSAGE = {"MessageId": "m1", "ReceiptHandle": "h1", "Body": '{"kind": "keep", "n": 5}', "MD5OfBody": "x",
           "Attributes": {"ApproximateReceiveCount": "1"}, "MD5OfMessageAttributes": "y",
           "MessageAttributes": {"b": {"DataType": "Binary", "BinaryValue": b"\x00\x01"}}}


def test_an_sqs_record_has_lambdas_keys() -> None:
    r = sqs_record(MESSAGE, "arn:aws:sqs:us-east-1:1:q", "us-east-1")
    assert r["eventSource"] == "aws:sqs" and r["eventSourceARN"] == "arn:aws:sqs:us-east-1:1:q"
    assert r["messageAttributes"]["b"] == {"binaryValue": "AAE=", "stringListValues": [], "binaryListValues": [],
                                           "dataType": "Binary"}
    assert r["md5OfMessageAttributes"] == "y" and r["receiptHandle"] == "h1"


def test_an_sqs_record_without_attributes_has_a_null_digest_in_aws_order() -> None:
    """Recorded on AWS (test_lambda_integration_sqs.py test_sqs_event_source_mapping, 2023-02): the key is
    there, null; keys and system attributes in the recording's order."""
    message = {"MessageId": "m1", "ReceiptHandle": "h1", "Body": "b", "MD5OfBody": "x",
               "Attributes": {"SenderId": "s", "SentTimestamp": "2", "ApproximateReceiveCount": "1",
                              "ApproximateFirstReceiveTimestamp": "3"}}  # fmt: skip
    r = sqs_record(message, "arn:aws:sqs:us-east-1:1:q", "us-east-1")
    assert r["md5OfMessageAttributes"] is None
    assert list(r) == ["messageId", "receiptHandle", "body", "attributes", "messageAttributes",
                       "md5OfMessageAttributes", "md5OfBody", "eventSource", "eventSourceARN", "awsRegion"]
    assert list(r["attributes"]) == ["ApproximateReceiveCount", "SentTimestamp", "SenderId",
                                     "ApproximateFirstReceiveTimestamp"]


def test_filters_see_a_json_body_parsed_and_match_any_filter() -> None:
    r = sqs_record(MESSAGE, "arn", "us-east-1")
    keep = compile_filters({"Filters": [{"Pattern": '{"body": {"n": [{"numeric": [">", 9]}]}}'},
                                        {"Pattern": '{"body": {"kind": ["keep"]}}'}]})
    drop = compile_filters({"Filters": [{"Pattern": '{"body": {"kind": ["drop"]}}'}]})
    assert passes(keep, sqs_filter_view(r)) and not passes(drop, sqs_filter_view(r))
    assert passes([], r)
    plain = sqs_record({**MESSAGE, "Body": "not json"}, "arn", "us-east-1")
    assert passes(compile_filters({"Filters": [{"Pattern": '{"body": ["not json"]}'}]}), sqs_filter_view(plain))


def test_bad_filters_are_pattern_errors() -> None:
    with pytest.raises(PatternError):
        compile_filters({"Filters": [{"Pattern": "{nope"}]})
    with pytest.raises(PatternError):
        compile_filters({"Filters": [{"Pattern": "{}"}] * 6})


def test_a_stream_record_is_plain_json_with_its_stream() -> None:
    when = datetime(2026, 1, 1, tzinfo=UTC)
    rec = stream_record({"eventName": "INSERT", "dynamodb": {"ApproximateCreationDateTime": when}}, "arn:s")
    # a float, as AWS writes it (test_lambda_integration_dynamodbstreams.py test_dynamodb_event_filter)
    assert rec["dynamodb"]["ApproximateCreationDateTime"] == when.timestamp()
    assert isinstance(rec["dynamodb"]["ApproximateCreationDateTime"], float)
    assert rec["eventSourceARN"] == "arn:s"


@pytest.mark.parametrize(("payload", "expected"), [
    (b'{"batchItemFailures": [{"itemIdentifier": "a"}, {"itemIdentifier": "b"}]}', ["a", "b"]),
    (b'{"batchItemFailures": []}', []),
    (b"null", []),
    (b'"ok"', []),
    (b'{"batchItemFailures": [{"itemIdentifier": ""}]}', None),
    (b'{"batchItemFailures": "all"}', None),
    (b"not json", None),
])
def test_batch_item_failures(payload: bytes, expected: list[str] | None) -> None:
    assert failed_items(payload) == expected


def test_a_stream_records_binary_attributes_are_base64() -> None:
    """Recorded on AWS (test_lambda_integration_dynamodbstreams.py test_dynamodb_event_source_mapping,
    2025-02): {"B": "Zm9vYmFy"} for b"foobar"; sets, maps and lists alike, the rest as it is."""
    record = {"eventName": "INSERT", "dynamodb": {
        "Keys": {"id": {"S": "k"}},
        "NewImage": {"id": {"S": "k"}, "bin": {"B": b"foobar"}, "set": {"BS": [b"a", b"b"]},
                     "nested": {"M": {"x": {"B": b"\x00"}, "l": {"L": [{"B": b"z"}, {"N": "1"}]}}}}}}
    image = stream_record(record, "arn:stream")["dynamodb"]["NewImage"]
    assert image["bin"] == {"B": "Zm9vYmFy"} and image["set"] == {"BS": ["YQ==", "Yg=="]}
    assert image["nested"] == {"M": {"x": {"B": "AA=="}, "l": {"L": [{"B": "eg=="}, {"N": "1"}]}}}
    assert image["id"] == {"S": "k"}
