"""Pure parts of function URLs (the payload format 2.0 response) and of destinations (the record)."""

from __future__ import annotations

import base64
import json

from onceflow.lambda_ import destinations, url_cors
from onceflow.lambda_.urls import _body, _response


def test_a_result_without_status_code_is_a_json_200() -> None:
    status, body, headers, content_type = _response(b'{"a": 1}', "rid")
    assert (status, json.loads(body), content_type) == (200, {"a": 1}, "application/json")
    assert ("x-amzn-requestid", "rid") in headers
    assert _response(b'"plain text"', "rid")[1] == b"plain text"


def test_a_full_response_object() -> None:
    payload = json.dumps({"statusCode": 404, "headers": {"Content-Type": "text/html", "X-A": "1"},
                          "cookies": ["c=1"], "body": "<p>no</p>"}).encode()  # fmt: skip
    status, body, headers, content_type = _response(payload, "rid")
    assert (status, body, content_type) == (404, b"<p>no</p>", "text/html")
    assert ("x-a", "1") in headers and ("set-cookie", "c=1") in headers
    binary = json.dumps({"statusCode": 200, "isBase64Encoded": True, "body": base64.b64encode(b"\x00").decode()})
    assert _response(binary.encode(), "rid")[1] == b"\x00"
    assert _response(b'{"statusCode": "teapot"}', "rid")[0] == 502


def test_request_bodies() -> None:
    assert _body(b"", "text/plain") == (None, False)
    assert _body(b'{"a":1}', "application/json") == ('{"a":1}', False)
    assert _body(b"\xff\x00", "application/octet-stream") == (base64.b64encode(b"\xff\x00").decode(), True)


def test_invocation_record() -> None:
    doc = destinations.record(request_id="r1", function_arn="arn:f:$LATEST", condition="RetriesExhausted",
                              attempts=3, payload=b'{"k": 1}', executed_version="$LATEST", ok=False,
                              response=b'{"errorMessage": "x"}')  # fmt: skip
    assert doc["requestContext"] == {"requestId": "r1", "functionArn": "arn:f:$LATEST",
                                     "condition": "RetriesExhausted", "approximateInvokeCount": 3}  # fmt: skip
    assert doc["responseContext"] == {"statusCode": 200, "executedVersion": "$LATEST", "functionError": "Unhandled"}
    assert doc["requestPayload"] == {"k": 1} and doc["responsePayload"] == {"errorMessage": "x"}
    expired = destinations.record(request_id="r2", function_arn="arn:f", condition="EventAgeExceeded", attempts=1,
                                  payload=b"not json", executed_version=None, ok=False, response=None)  # fmt: skip
    assert "responseContext" not in expired and expired["requestPayload"] == "not json"


def test_cors_headers() -> None:
    cors = {"AllowOrigins": ["https://app.example"], "ExposeHeaders": ["x-order"], "AllowCredentials": True}
    own = [("access-control-allow-origin", "*"), ("x-order", "o-1")]
    assert url_cors.response(cors, "https://app.example", own) == [
        ("x-order", "o-1"), ("access-control-allow-origin", "https://app.example"),
        ("access-control-allow-credentials", "true"), ("access-control-expose-headers", "x-order"),
        ("vary", "Origin")]  # fmt: skip
    assert url_cors.response(cors, "https://evil.example", own) == own
    star = url_cors.response({"AllowOrigins": ["*"]}, "https://any.example", [])
    assert star[0] == ("access-control-allow-origin", "*")
    assert url_cors.response(None, "https://app.example", own) == own and url_cors.response(cors, None, []) == []
    # a credentialed answer for "*" names the origin (a browser refuses "*" with credentials)
    both = {"AllowOrigins": ["*"], "AllowCredentials": True}
    assert url_cors.response(both, "https://any.example", [])[0] == ("access-control-allow-origin", "https://any.example")
    # the function's Vary naming Origin is kept, not doubled
    varied = url_cors.response(cors, "https://app.example", [("Vary", "Origin, Accept")])
    assert [v for k, v in varied if k.lower() == "vary"] == ["Origin, Accept"]


def test_cors_preflight() -> None:
    cors = {"AllowOrigins": ["https://app.example"], "AllowMethods": ["*"], "MaxAge": 0}
    headers = {"origin": "https://app.example", "access-control-request-method": "PUT"}
    assert url_cors.is_preflight("OPTIONS", headers, cors)
    assert not url_cors.is_preflight("OPTIONS", headers, None) and not url_cors.is_preflight("GET", headers, cors)
    assert url_cors.preflight(cors, "https://app.example") == [
        ("access-control-allow-origin", "https://app.example"), ("access-control-allow-methods", "*"),
        ("access-control-max-age", "0"), ("vary", "Origin")]  # fmt: skip
    assert url_cors.preflight(cors, "https://evil.example") == []
