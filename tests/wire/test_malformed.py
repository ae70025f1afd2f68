"""Hostile and malformed requests against the real server, sent raw and signed with test/test:
each gets the service's 4xx (or, for a service onceflow does not serve, a 501) in the protocol's
shape, which the service's own botocore client can parse - never a 500, a stack trace, broken XML
or the console's HTML.
"""

from __future__ import annotations

import http.client
import json
import urllib.parse
import uuid
import xml.etree.ElementTree as ET
from collections.abc import Callable
from typing import Any

import botocore.exceptions
import botocore.session
import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

from onceflow.wire.specs import SERVED_NAMES

DDB, SFN, LOGS = "DynamoDB_20120810.", "AWSStepFunctions.", "Logs_20140328."


def send(endpoint: str, method: str, path: str, body: bytes, headers: dict[str, str],
         signing: str) -> tuple[int, dict[str, str], bytes]:
    """One raw request, SigV4-signed with test/test as botocore signs it for `signing`."""
    request = AWSRequest(method, endpoint + path, data=body, headers=headers)
    SigV4Auth(Credentials("test", "test"), signing, "us-east-1").add_auth(request)
    url = urllib.parse.urlsplit(endpoint)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=120)
    try:
        conn.request(method, path, body=body, headers=dict(request.headers.items()))
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


def json_error(status: int, headers: dict[str, str], data: bytes) -> tuple[int, str, str]:
    assert b"Traceback" not in data and b"<html" not in data.lower()
    body = json.loads(data)
    code = body.get("__type", headers.get("x-amzn-errortype", "")).rsplit("#", 1)[-1]
    return status, code, body.get("message", body.get("Message", ""))


def json_call(endpoint: str, target: str, body: bytes, signing: str, version: str = "1.0") -> tuple[int, str, str]:
    return json_error(*send(endpoint, "POST", "/", body, {"X-Amz-Target": target,
                                                         "Content-Type": f"application/x-amz-json-{version}"}, signing))


def rest_call(endpoint: str, method: str, path: str, body: bytes) -> tuple[int, str, str]:
    return json_error(*send(endpoint, method, path, body, {"Content-Type": "application/json"}, "lambda"))


def deep(levels: int) -> str:
    return '{"a":' * levels + "1" + "}" * levels


NESTED = deep(100_000)
LONE = '"\\ud800"'  # JSON text of a string holding a lone high surrogate
NOT_JSON_NAN = '{"TableName": NaN}'

JSON_CASES = [
    # (id, target, body, signing name, json version, (status, code, message or None for any))
    ("ddb-deep", DDB + "PutItem", NESTED, "dynamodb", "1.0",
     (400, "SerializationException", "Document nesting depth exceeds the maximum allowed (128)")),
    ("ddb-deep-list", DDB + "Scan", "[" * 100_000 + "]" * 100_000, "dynamodb", "1.0",
     (400, "SerializationException", "Document nesting depth exceeds the maximum allowed (128)")),
    ("ddb-lone-surrogate", DDB + "DescribeTable", '{"TableName": ' + LONE + "}", "dynamodb", "1.0",
     (400, "SerializationException", "Invalid JSON string: lone UTF-16 surrogate \\ud800")),
    ("ddb-nan", DDB + "DescribeTable", NOT_JSON_NAN, "dynamodb", "1.0", (400, "SerializationException", "")),
    ("ddb-limit-1e400", DDB + "Scan", '{"TableName": "ttt", "Limit": 1e400, "Segment": 1e400, "TotalSegments": 1}',
     "dynamodb", "1.0", (400, "ValidationException", None)),
    ("ddb-limit-huge", DDB + "Scan", '{"TableName": "ttt", "Limit": ' + "9" * 60 + "}", "dynamodb", "1.0",
     (400, "SerializationException",
      "Numeric value (9999999999999999999999999999999999999999...) out of range of int (-2147483648 - 2147483647)")),
    ("ddb-create-table-without-key-schema", DDB + "CreateTable",
     '{"TableName": "ttt", "AttributeDefinitions": [{"AttributeName": "k", "AttributeType": "S"}], '
     '"BillingMode": "PAY_PER_REQUEST"}', "dynamodb", "1.0",
     (400, "ValidationException", "1 validation error detected: Value null at 'keySchema' failed to satisfy "
      "constraint: Member must not be null")),
    ("sfn-deep", SFN + "StartExecution", NESTED, "states", "1.0",
     (400, "SerializationException", "Document nesting depth exceeds the maximum allowed (128)")),
    ("sfn-lone-surrogate", SFN + "ListStateMachines", '{"nextToken": ' + LONE + "}", "states", "1.0",
     (400, "SerializationException", "Invalid JSON string: lone UTF-16 surrogate \\ud800")),
    ("logs-deep", LOGS + "PutLogEvents", NESTED, "logs", "1.1",
     (400, "SerializationException", "Document nesting depth exceeds the maximum allowed (128)")),
    ("logs-lone-surrogate", LOGS + "CreateLogGroup", '{"logGroupName": ' + LONE + "}", "logs", "1.1",
     (400, "SerializationException", "Invalid JSON string: lone UTF-16 surrogate \\ud800")),
    ("logs-timestamp-huge", LOGS + "PutLogEvents",
     '{"logGroupName": "g", "logStreamName": "s", "logEvents": [{"timestamp": 1e30, "message": "m"}]}', "logs",
     "1.1", (400, "SerializationException", None)),
]


@pytest.mark.parametrize(("target", "body", "signing", "version", "expected"), [c[1:] for c in JSON_CASES],
                         ids=[c[0] for c in JSON_CASES])
def test_json_protocols_answer_malformed_bodies_with_a_400(endpoint: str, target: str, body: str, signing: str,
                                                           version: str, expected: tuple[int, str, str | None]) -> None:
    status, code, message = json_call(endpoint, target, body.encode(), signing, version)
    assert (status, code) == expected[:2]
    if expected[2] is not None:
        assert message == expected[2]


def test_a_definition_nested_past_the_parser_is_reported_as_invalid_json(endpoint: str) -> None:
    status, _, data = send(endpoint, "POST", "/", json.dumps({"definition": deep(20_000)}).encode(), {
        "X-Amz-Target": SFN + "ValidateStateMachineDefinition", "Content-Type": "application/x-amz-json-1.0"},
        "states")
    result = json.loads(data)
    assert status == 200 and result["result"] == "FAIL"
    assert [d["code"] for d in result["diagnostics"]] == ["INVALID_JSON_DESCRIPTION"]


LAMBDA_CASES = [
    ("deep", "POST", "/2015-03-31/functions", NESTED,
     (400, "InvalidRequestContentException",
      "Could not parse request body into json: Document nesting depth exceeds the maximum allowed (128)")),
    ("lone-surrogate", "POST", "/2015-03-31/functions", '{"FunctionName": ' + LONE + "}",
     (400, "InvalidRequestContentException",
      "Could not parse request body into json: Invalid JSON string: lone UTF-16 surrogate \\ud800")),
    ("timeout-beyond-int", "PUT", "/2015-03-31/functions/no-such-function/configuration",
     '{"Timeout": 99999999999999999999}',
     (400, "InvalidRequestContentException", "Could not parse request body into json: Numeric value "
      "(99999999999999999999) out of range of int (-2147483648 - 2147483647)")),
    ("nan", "POST", "/2015-03-31/functions", '{"Timeout": NaN}', (400, "InvalidRequestContentException", None)),
]


@pytest.mark.parametrize(("method", "path", "body", "expected"), [c[1:] for c in LAMBDA_CASES],
                         ids=[c[0] for c in LAMBDA_CASES])
def test_lambda_answers_malformed_bodies_with_a_400(endpoint: str, method: str, path: str, body: str,
                                                    expected: tuple[int, str, str | None]) -> None:
    status, code, message = rest_call(endpoint, method, path, body.encode())
    assert (status, code) == expected[:2]
    if expected[2] is not None:
        assert message == expected[2]


def test_infinity_in_an_integer_member_is_read_as_coral_casts_it(endpoint: str) -> None:
    """1e400 is read as coral's (int) cast reads it, 2147483647: past the model's maximum, if it has
    one (botocore 1.44 gives Lambda's Timeout one), else the call goes on to find the function."""
    status, code, message = rest_call(endpoint, "PUT", "/2015-03-31/functions/no-such-function/configuration",
                                      b'{"Timeout": 1e400}')
    model = botocore.session.get_session().get_service_model("lambda")
    timeout = model.operation_model("UpdateFunctionConfiguration").input_shape.members["Timeout"]
    if "max" in timeout.metadata:
        assert (status, code, message) == (400, "ValidationException", "1 validation error detected: Value "
                                           "'2147483647' at 'timeout' failed to satisfy constraint: Member must have "
                                           f"value less than or equal to {timeout.metadata['max']}")
    else:
        assert (status, code) == (404, "ResourceNotFoundException")


def test_an_operation_of_a_served_service_that_is_modeled_but_not_implemented_is_a_501_naming_it(
        endpoint: str) -> None:
    # Every Lambda, EventBridge and SNS operation is served now, and DynamoDB's global tables; its bulk
    # operations are not.
    status, code, message = json_call(endpoint, "DynamoDB_20120810.ListBulkOperations", b"{}", "dynamodb")
    assert (status, code) == (501, "NotImplementedException")
    assert message == "onceflow does not implement the dynamodb operation ListBulkOperations yet"


def query_error(endpoint: str, signing: str, form: dict[str, str]) -> tuple[int, dict[str, str]]:
    status, _, data = send(endpoint, "POST", "/", urllib.parse.urlencode(form).encode(), {
        "Content-Type": "application/x-www-form-urlencoded; charset=utf-8"}, signing)
    root = ET.fromstring(data)  # XML 1.0: any character it cannot carry makes this raise
    error = {el.tag.rsplit("}", 1)[-1]: el.text or "" for el in root.find("{*}Error")}  # type: ignore[union-attr]
    return status, error


def test_control_characters_echoed_into_query_xml_leave_it_parseable(endpoint: str) -> None:
    status, error = query_error(endpoint, "iam", {"Action": "CreateRole", "Version": "2010-05-08",
                                                  "RoleName": "bad\x01\x0b\x1fname", "AssumeRolePolicyDocument": "{}"})
    assert status == 400 and error["Code"] == "ValidationError"
    assert "Value 'bad\ufffd\ufffd\ufffdname' at 'roleName' failed to satisfy constraint" in error["Message"]


def test_boto3_reads_the_validation_error_for_a_control_character(aws: Callable[..., Any]) -> None:
    with pytest.raises(botocore.exceptions.ClientError) as info:
        aws("iam").create_role(RoleName="r", AssumeRolePolicyDocument="{}", Description="a\x01b")
    assert info.value.response["Error"]["Code"] == "ValidationError"
    assert "at 'description' failed to satisfy constraint" in info.value.response["Error"]["Message"]


def test_ten_thousand_tags_are_one_validation_error(endpoint: str) -> None:
    form = {"Action": "CreateRole", "Version": "2010-05-08", "RoleName": f"r-{uuid.uuid4().hex[:8]}",
            "AssumeRolePolicyDocument": "{}"}
    for i in range(1, 10_001):
        form[f"Tags.member.{i}.Key"] = f"k{i}"
        form[f"Tags.member.{i}.Value"] = "v"
    status, error = query_error(endpoint, "iam", form)
    assert status == 400 and error["Code"] == "ValidationError"
    assert error["Message"].endswith("at 'tags' failed to satisfy constraint: Member must have length less than or "
                                     "equal to 50")


def test_huge_query_numbers_are_malformed_input(endpoint: str) -> None:
    status, error = query_error(endpoint, "iam", {"Action": "CreateRole", "Version": "2010-05-08", "RoleName": "r",
                                                  "AssumeRolePolicyDocument": "{}", "MaxSessionDuration": "9" * 30})
    assert status == 400 and error["Code"] == "MalformedInput"


# ------------------------------------------------------------------------- services onceflow does not serve
def test_route53_gets_a_501_in_rest_xml_naming_the_service(endpoint: str) -> None:
    status, headers, data = send(endpoint, "GET", "/2013-04-01/hostedzone", b"", {}, "route53")
    assert status == 501 and headers["content-type"] == "application/xml"
    root = ET.fromstring(data)
    assert root.tag == "Error" and root.findtext("Code") == "NotImplemented"
    assert root.findtext("Message") == ("onceflow does not serve route53 (Amazon Route 53); it serves "
                                        + SERVED_NAMES)


def test_ses_gets_a_501_in_query_xml(endpoint: str) -> None:
    status, error = query_error(endpoint, "ses", {"Action": "ListIdentities", "Version": "2010-12-01"})
    assert status == 501 and error["Code"] == "NotImplemented" and error["Type"] == "Receiver"
    assert error["Message"].startswith("onceflow does not serve ses (Amazon Simple Email Service);")


@pytest.mark.parametrize(("target", "signing", "named"), [
    ("Kinesis_20131202.ListStreams", "kinesis", "kinesis (Amazon Kinesis)"),
])
def test_json_services_get_a_501_in_json(endpoint: str, target: str, signing: str, named: str) -> None:
    status, code, message = json_call(endpoint, target, b"{}", signing)
    assert (status, code) == (501, "NotImplemented")
    assert message.startswith(f"onceflow does not serve {named};")


@pytest.mark.parametrize(("service", "call", "full"), [
    ("route53", lambda c: c.list_hosted_zones(), "Amazon Route 53"),
    ("kinesis", lambda c: c.list_streams(), "Amazon Kinesis"),
    ("ses", lambda c: c.list_identities(), "Amazon Simple Email Service"),
], ids=["route53", "kinesis", "ses"])
def test_boto3_clients_of_unserved_services_read_a_not_implemented_error(aws: Callable[..., Any], service: str,
                                                                         call: Callable[[Any], Any], full: str) -> None:
    with pytest.raises(botocore.exceptions.ClientError) as info:
        call(aws(service))
    assert info.value.response["Error"]["Code"] == "NotImplemented"
    assert info.value.response["ResponseMetadata"]["HTTPStatusCode"] == 501
    assert info.value.response["Error"]["Message"].startswith(f"onceflow does not serve {service} ({full});")


def test_an_unserved_cli_command_prints_a_plain_error(aws_cli: Callable[..., Any]) -> None:
    result = aws_cli("route53", "list-hosted-zones")
    assert result.returncode != 0
    assert "An error occurred (NotImplemented) when calling the ListHostedZones operation: onceflow does not serve " \
           "route53 (Amazon Route 53)" in result.stderr
    assert "Traceback" not in result.stderr and "<html" not in result.stderr.lower()
