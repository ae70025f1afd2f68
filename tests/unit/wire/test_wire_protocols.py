"""Named protocol cases, one per wire feature, each checked against botocore.

The generic round trips (test_wire_roundtrip.py) cover every operation; these spell out the
conversions handlers rely on so a regression names the feature that broke.
"""

from __future__ import annotations

import datetime as dt
import json

import botocore.session
from wire_oracle import botocore_parse, botocore_request, parse_request, render, render_error, spec

from onceflow.errors import ServiceError

UTC = dt.UTC


def _op(service: str, name: str):  # type: ignore[no-untyped-def]
    return spec(service).operations[name]


def _round_trip(service: str, operation: str, params: dict) -> dict:  # type: ignore[type-arg]
    found, parsed = parse_request(service, botocore_request(service, _op(service, operation), params))
    assert found.operation_name == operation
    return parsed


# ------------------------------------------------------------------------------- JSON 1.0 / 1.1
def test_dynamodb_blobs_arrive_as_bytes_at_any_depth() -> None:
    item = {"id": {"S": "k"}, "raw": {"B": b"\x00\xff"}, "set": {"BS": [b"a", b"\x80"]},
            "nested": {"M": {"l": {"L": [{"B": b"\x01"}, {"N": "12345678901234567890.5"}]}}}}
    parsed = _round_trip("dynamodb", "PutItem", {"TableName": "t", "Item": item})
    assert parsed["Item"] == item
    assert isinstance(parsed["Item"]["nested"]["M"]["l"]["L"][0]["B"], bytes)


def test_json_timestamps_arrive_as_aware_datetimes() -> None:
    when = dt.datetime(2026, 11, 29, 9, 30, 15, tzinfo=UTC)
    parsed = _round_trip("dynamodb", "ListBackups", {"TimeRangeLowerBound": when})
    assert parsed["TimeRangeLowerBound"] == when and parsed["TimeRangeLowerBound"].tzinfo is not None


def test_logs_timestamps_are_plain_integers() -> None:
    params = {"logGroupName": "g", "logStreamName": "s",
              "logEvents": [{"timestamp": 1764408615123, "message": "m"}]}
    assert _round_trip("logs", "PutLogEvents", params) == params
    response = render("logs", _op("logs", "DescribeLogGroups"),
                      {"logGroups": [{"logGroupName": "g", "creationTime": 1764408615123}]})
    assert b'"creationTime":1764408615123' in response.body


def test_json_output_timestamps_are_epoch_seconds_with_milliseconds() -> None:
    start = dt.datetime(2026, 11, 29, 9, 30, 15, 120000, tzinfo=UTC)
    op = _op("stepfunctions", "StartExecution")
    response = render("stepfunctions", op, {"executionArn": "arn:x", "startDate": start})
    assert json.loads(response.body)["startDate"] == 1795944615.12
    assert botocore_parse("stepfunctions", op, response)["startDate"] == start


def test_raw_json_members_are_spliced_and_parse_as_their_decoded_form() -> None:
    from onceflow.raw_json import RawJson, RawJsonList

    items = [{"pk": {"S": "é"}, "n": {"N": "1.5"}, "b": {"B": "AAE="}}, {"pk": {"S": "x"}, "l": {"L": []}}]
    texts = [json.dumps(i, ensure_ascii=False, separators=(",", ":")) for i in items]
    op = _op("dynamodb", "Query")
    raw = render("dynamodb", op, {"Items": RawJsonList(RawJson(t) for t in texts), "Count": 2,
                                  "LastEvaluatedKey": {"pk": {"S": "x"}}})
    plain = render("dynamodb", op, {"Items": items, "Count": 2, "LastEvaluatedKey": {"pk": {"S": "x"}}})
    assert json.loads(raw.body) == json.loads(plain.body)
    assert botocore_parse("dynamodb", op, raw) == botocore_parse("dynamodb", op, plain)
    assert botocore_parse("dynamodb", op, raw)["Items"][0]["b"] == {"B": b"\x00\x01"}
    one = render("dynamodb", _op("dynamodb", "GetItem"), {"Item": RawJson(texts[0])})
    assert json.loads(one.body) == {"Item": items[0]}


def test_json_error_carries_namespaced_type_and_modeled_item() -> None:
    op = _op("dynamodb", "PutItem")
    err = ServiceError("ConditionalCheckFailedException", "The conditional request failed",
                       extra={"Item": {"id": {"S": "k"}, "b": {"B": b"\x01"}}})
    response = render_error("dynamodb", err)
    body = json.loads(response.body)
    assert body["__type"] == "com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException"
    parsed = botocore_parse("dynamodb", op, response)
    assert parsed["Error"] == {"Code": "ConditionalCheckFailedException", "Message": "The conditional request failed"}
    assert parsed["Item"] == {"id": {"S": "k"}, "b": {"B": b"\x01"}}
    assert response.status == 400


def test_json_error_message_member_spelling_follows_the_model() -> None:
    # DynamoDB's TransactionCanceledException names its member `Message`; most use `message`.
    err = ServiceError("TransactionCanceledException", "Transaction cancelled",
                       extra={"CancellationReasons": [{"Code": "ConditionalCheckFailed"}]})
    parsed = botocore_parse("dynamodb", _op("dynamodb", "TransactWriteItems"), render_error("dynamodb", err))
    assert parsed["Error"]["Message"] == "Transaction cancelled"
    assert parsed["CancellationReasons"] == [{"Code": "ConditionalCheckFailed"}]


def test_botocore_maps_json_errors_to_exception_classes() -> None:
    client = botocore.session.get_session().create_client("stepfunctions", region_name="us-east-1")
    err = ServiceError("ExecutionDoesNotExist", "Execution Does Not Exist: 'arn'")
    parsed = botocore_parse("stepfunctions", _op("stepfunctions", "DescribeExecution"),
                            render_error("stepfunctions", err))
    assert client.exceptions.from_code(parsed["Error"]["Code"]) is client.exceptions.ExecutionDoesNotExist


# ------------------------------------------------------------------------------- REST-JSON
def test_rest_labels_querystring_headers_and_blob_payload() -> None:
    arn = "arn:aws:lambda:us-east-1:000000000000:function:fn-1"
    params = {"FunctionName": arn, "Qualifier": "$LATEST", "InvocationType": "Event", "LogType": "Tail",
              "ClientContext": "eyJhIjoxfQ==", "Payload": b'{"a": 1}\xff'}
    request = botocore_request("lambda", _op("lambda", "Invoke"), params)
    assert "%3A" in request.raw_path and "X-Amz-Invocation-Type".lower() in request.headers
    found, parsed = parse_request("lambda", request)
    assert found.operation_name == "Invoke"
    assert parsed == params


def test_rest_querystring_lists_and_integers() -> None:
    params = {"FunctionVersion": "ALL", "Marker": "m&x=1", "MaxItems": 50}
    assert _round_trip("lambda", "ListFunctions", params) == params


def test_rest_json_body_with_nested_maps_and_blob() -> None:
    params = {"FunctionName": "f", "Role": "arn:aws:iam::000000000000:role/r", "Runtime": "python3.12",
              "Handler": "app.handler", "Code": {"ZipFile": b"PK\x03\x04\x00"},
              # Keys of two characters at least: Lambda refuses "A" (its model's key pattern).
              "Environment": {"Variables": {"AA": "1", "B_2": "two words"}}, "Timeout": 30, "Publish": False}
    assert _round_trip("lambda", "CreateFunction", params) == params


def test_rest_output_headers_status_and_raw_payload() -> None:
    op = _op("lambda", "Invoke")
    response = render("lambda", op, {"StatusCode": 200, "FunctionError": "Unhandled",
                                     "ExecutedVersion": "$LATEST", "Payload": b'{"errorMessage":"x"}'})
    assert response.body == b'{"errorMessage":"x"}'
    parsed = botocore_parse("lambda", op, response)
    assert parsed["StatusCode"] == 200 and parsed["FunctionError"] == "Unhandled"
    assert parsed["ExecutedVersion"] == "$LATEST" and parsed["Payload"].read() == b'{"errorMessage":"x"}'


def test_rest_success_status_comes_from_the_model() -> None:
    response = render("lambda", _op("lambda", "CreateFunction"), {"FunctionName": "f"})
    assert response.status == 201


def test_rest_error_has_error_type_header_and_modeled_type_and_message() -> None:
    op = _op("lambda", "GetFunction")
    err = ServiceError("ResourceNotFoundException",
                       "Function not found: arn:aws:lambda:us-east-1:000000000000:function:nope", 404)
    response = render_error("lambda", err)
    assert ("x-amzn-ErrorType", "ResourceNotFoundException") in response.headers
    assert json.loads(response.body) == {"Type": "User", "Message": err.message}
    parsed = botocore_parse("lambda", op, response)
    assert parsed["Error"]["Code"] == "ResourceNotFoundException"
    assert parsed["Error"]["Message"] == err.message
    assert parsed["Type"] == "User" and parsed["Message"] == err.message


def test_rest_error_lower_case_message_member() -> None:
    err = ServiceError("ResourceConflictException", "Function already exist: f", 409)
    response = render_error("lambda", err)
    body = json.loads(response.body)
    assert body["message"] == "Function already exist: f" and body["Type"] == "User"
    parsed = botocore_parse("lambda", _op("lambda", "CreateFunction"), response)
    assert parsed["Error"]["Code"] == "ResourceConflictException" and parsed["message"] == err.message


# ------------------------------------------------------------------------------- query / XML
def test_query_lists_of_structures_and_empty_lists() -> None:
    params = {"RoleName": "r", "AssumeRolePolicyDocument": '{"Version":"2012-10-17","Statement":[]}',
              "Tags": [{"Key": "team", "Value": "a b=c+d:é"}, {"Key": "env", "Value": ""}]}
    assert _round_trip("iam", "CreateRole", params) == params
    assert _round_trip("iam", "UntagRole", {"RoleName": "r", "TagKeys": []}) == {"RoleName": "r", "TagKeys": []}


def test_query_nested_lists_and_integers_for_sts() -> None:
    params = {"RoleArn": "arn:aws:iam::000000000000:role/r", "RoleSessionName": "sess", "DurationSeconds": 900,
              "PolicyArns": [{"arn": "arn:aws:iam::aws:policy/ReadOnlyAccess"}],
              "Tags": [{"Key": "k", "Value": "v"}], "TransitiveTagKeys": ["k"]}
    assert _round_trip("sts", "AssumeRole", params) == params


def test_query_output_xml_lists_timestamps_and_escaping() -> None:
    op = _op("iam", "ListRoles")
    created = dt.datetime(2026, 11, 29, 9, 30, 15, tzinfo=UTC)
    role = {"Path": "/", "RoleName": "r", "RoleId": "AROA1", "Arn": "arn:aws:iam::000000000000:role/r",
            "CreateDate": created, "AssumeRolePolicyDocument": "%7B%22a%22%3A%22%3C%26%3E%22%7D",
            "Tags": [{"Key": "k", "Value": "<&>"}]}
    response = render("iam", op, {"Roles": [role], "IsTruncated": False})
    assert b"<CreateDate>2026-11-29T09:30:15Z</CreateDate>" in response.body
    parsed = botocore_parse("iam", op, response)
    assert parsed["Roles"] == [role] and parsed["IsTruncated"] is False
    assert parsed["ResponseMetadata"]["RequestId"] == "req-1"


def test_query_error_is_an_error_response_with_type_sender() -> None:
    op = _op("iam", "GetRole")
    err = ServiceError("NoSuchEntity", "The role with name nope cannot be found.", 404)
    response = render_error("iam", err)
    assert response.body.startswith(b'<ErrorResponse xmlns="https://iam.amazonaws.com/doc/2010-05-08/">')
    parsed = botocore_parse("iam", op, response)
    assert parsed["Error"] == {"Type": "Sender", "Code": "NoSuchEntity", "Message": err.message}
    assert response.status == 404


def test_sts_error_namespace_and_receiver_fault() -> None:
    err = ServiceError("InternalFailure", "boom", 500, sender_fault=False)
    response = render_error("sts", err)
    assert b'xmlns="https://sts.amazonaws.com/doc/2011-06-15/"' in response.body
    parsed = botocore_parse("sts", _op("sts", "GetCallerIdentity"), response)
    assert parsed["Error"]["Type"] == "Receiver" and parsed["Error"]["Code"] == "InternalFailure"
