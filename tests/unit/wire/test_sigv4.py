"""SigV4 verification against botocore's own signer: every request botocore signs must verify with
the secret it was signed with, and fail with any other secret or any change to what was signed."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

import pytest
from botocore.auth import SigV4Auth, SigV4QueryAuth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

from onceflow.wire import sigv4

SECRET = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"


def botocore_signed(method: str, url: str, body: bytes = b"", headers: dict[str, str] | None = None,
                    service: str = "dynamodb", token: str | None = None, presign: bool = False,
                    expires: int = 3600) -> dict[str, Any]:
    """A request as botocore signs it, in the form the server sees it (raw path, query, headers)."""
    request = AWSRequest(method, url, data=body, headers=dict(headers or {}))
    credentials = Credentials("AKIAEXAMPLEEXAMPLE01", SECRET, token)
    if presign:
        SigV4QueryAuth(credentials, service, "eu-west-1", expires=expires).add_auth(request)
    else:
        SigV4Auth(credentials, service, "eu-west-1").add_auth(request)
    prepared = request.prepare()
    parts = urlsplit(prepared.url)
    seen = {k.lower(): v for k, v in prepared.headers.items()}
    seen.setdefault("host", parts.netloc)
    return {"method": prepared.method, "raw_path": parts.path or "/", "query_string": parts.query, "headers": seen,
            "body": prepared.body if isinstance(prepared.body, bytes) else (prepared.body or "").encode()}


def check(req: dict[str, Any], secret: str = SECRET, now: datetime | None = None) -> None:
    signed = sigv4.read(req["headers"], req["query_string"])
    assert signed is not None
    sigv4.verify(secret, signed, req["method"], req["raw_path"], req["query_string"], req["headers"], req["body"],
                 now=now)


CASES = {
    "json-post": ("POST", "http://127.0.0.1:4566/", b'{"TableName":"t"}',
                  {"X-Amz-Target": "DynamoDB_20120810.DescribeTable", "Content-Type": "application/x-amz-json-1.0"}),
    "form-post": ("POST", "http://localhost:4566/", b"Action=GetCallerIdentity&Version=2011-06-15",
                  {"Content-Type": "application/x-www-form-urlencoded; charset=utf-8"}),
    "encoded-path": ("POST", "http://127.0.0.1:4566/2015-03-31/functions/arn%3Aaws%3Alambda%3Aus-east-1%3A0000"
                     "00000000%3Afunction%3Af/invocations", b"{}", {"X-Amz-Invocation-Type": "Event"}),
    "query-string": ("GET", "http://127.0.0.1:4566/2015-03-31/functions/?MaxItems=5&Marker=a%20b%2Bc&FunctionVersion"
                     "=ALL", b"", {}),
    "unicode-query": ("GET", "http://127.0.0.1:4566/?Action=ListRoles&PathPrefix=%2F%C3%A9t%C3%A9%2F&Version=2010-05-08",
                      b"", {}),
    "spaces-in-headers": ("POST", "http://127.0.0.1:4566/", b"{}",
                          {"X-Amz-Target": "Logs_20140328.DescribeLogGroups", "X-Amz-Meta": "  a   b  "}),
    "dot-segments": ("GET", "http://127.0.0.1:4566/2015-03-31/functions/./f/../g//h", b"", {}),
    "unsigned-payload": ("POST", "http://127.0.0.1:4566/", b"{}", {"X-Amz-Content-SHA256": "UNSIGNED-PAYLOAD"}),
    "binary-body": ("POST", "http://127.0.0.1:4566/2015-03-31/functions", bytes(range(256)) * 4, {}),
    "ipv6-host": ("POST", "http://[::1]:4566/", b"{}", {}),
}


@pytest.mark.parametrize("case", CASES)
def test_botocore_signatures_verify_with_their_secret_only(case: str) -> None:
    req = botocore_signed(*CASES[case])
    check(req)
    with pytest.raises(sigv4.Mismatch):
        check(req, SECRET + "x")


@pytest.mark.parametrize("change", ["body", "path", "query", "header", "method"])
def test_any_change_to_what_was_signed_breaks_the_signature(change: str) -> None:
    req = botocore_signed("POST", "http://127.0.0.1:4566/2015-03-31/functions?Qualifier=1", b'{"a":1}',
                          {"X-Amz-Target": "T.Op"})
    if change == "body":
        req["body"] = b'{"a":2}'
    elif change == "path":
        req["raw_path"] += "x"
    elif change == "query":
        req["query_string"] = "Qualifier=2"
    elif change == "header":
        req["headers"]["x-amz-target"] = "T.Other"
    else:
        req["method"] = "PUT"
    with pytest.raises(sigv4.Mismatch):
        check(req)


def test_the_session_token_is_read_and_signed() -> None:
    req = botocore_signed("POST", "http://127.0.0.1:4566/", b"{}", token="the-token")
    signed = sigv4.read(req["headers"], req["query_string"])
    assert signed is not None and signed.session_token == "the-token"
    assert "x-amz-security-token" in signed.signed_headers
    check(req)
    req["headers"]["x-amz-security-token"] = "another"
    with pytest.raises(sigv4.Mismatch):
        check(req)


def test_a_claimed_payload_hash_must_match_the_body() -> None:
    import hashlib

    body = b'{"a":1}'
    req = botocore_signed("POST", "http://127.0.0.1:4566/", body, {"X-Amz-Content-SHA256": hashlib.sha256(body)
                                                                    .hexdigest()})
    check(req)
    req["body"] = b'{"a":2}'  # the header (signed) still claims the first body
    with pytest.raises(sigv4.Mismatch):
        check(req)


@pytest.mark.parametrize("service,url", [("sts", "http://127.0.0.1:4566/?Action=GetCallerIdentity&Version=2011-06-15"),
                                         ("lambda", "http://127.0.0.1:4566/2015-03-31/functions/")])
def test_presigned_urls_verify_until_they_expire(service: str, url: str) -> None:
    req = botocore_signed("GET", url, service=service, presign=True, expires=900, token="tok")
    signed = sigv4.read(req["headers"], req["query_string"])
    assert signed is not None and signed.presigned and signed.session_token == "tok" and signed.expires_s == 900
    assert signed.scope == sigv4.Scope("AKIAEXAMPLEEXAMPLE01", "eu-west-1", service)
    check(req)
    with pytest.raises(sigv4.Mismatch):
        check(req, "other")
    later = datetime.now(UTC) + timedelta(seconds=901)
    with pytest.raises(sigv4.Stale, match=r"^Signature expired: \d{8}T\d{6}Z is now earlier than .* - 15 min\.\)$"):
        check(req, now=later)
    tampered = dict(req, query_string=req["query_string"].replace("X-Amz-Expires=900", "X-Amz-Expires=3600"))
    assert tampered["query_string"] != req["query_string"]
    with pytest.raises(sigv4.Mismatch):
        check(tampered)


def test_a_signature_is_stale_fifteen_minutes_away_from_the_clock() -> None:
    req = botocore_signed("POST", "http://127.0.0.1:4566/", b"{}")
    now = datetime.now(UTC)
    check(req, now=now + timedelta(minutes=14))
    with pytest.raises(sigv4.Stale, match=r"^Signature expired: "):
        check(req, now=now + timedelta(minutes=16))
    with pytest.raises(sigv4.Stale, match=r"^Signature not yet current: "):
        check(req, now=now - timedelta(minutes=16))


@pytest.mark.parametrize("header,expected", [
    ("AWS4-HMAC-SHA256 Credential=test", "Authorization header requires 'Signature' parameter. Authorization header "
     "requires 'SignedHeaders' parameter."),
    ("Bearer abc", "Authorization header requires 'Credential' parameter. Authorization header requires 'Signature' "
     "parameter. Authorization header requires 'SignedHeaders' parameter."),
    ("AWS4-HMAC-SHA256 Credential=test/20261201/us-east-1/sts/aws4_request, SignedHeaders=host, Signature=ab",
     None),
])
def test_incomplete_authorization_headers(header: str, expected: str | None) -> None:
    headers = {"authorization": header, "x-amz-date": "20261201T000000Z"}
    if expected is None:
        signed = sigv4.read(headers, "")
        assert signed is not None and signed.scope == sigv4.Scope("test", "us-east-1", "sts")
        return
    with pytest.raises(sigv4.Malformed) as exc:
        sigv4.read(headers, "")
    assert str(exc.value) == f"{expected} Authorization={header}"


def test_a_header_signature_needs_a_date() -> None:
    header = "AWS4-HMAC-SHA256 Credential=test/20261201/us-east-1/sts/aws4_request, SignedHeaders=host, Signature=ab"
    with pytest.raises(sigv4.Malformed, match="requires existence of either a 'X-Amz-Date' or a 'Date' header"):
        sigv4.read({"authorization": header}, "")


def test_no_signature_at_all_reads_as_none() -> None:
    assert sigv4.read({"host": "localhost"}, "Action=ListRoles") is None


def test_signing_keys_are_cached_per_secret_date_region_and_service() -> None:
    first = sigv4.signing_key("s", "20261201", "us-east-1", "sts")
    assert sigv4.signing_key("s", "20261201", "us-east-1", "sts") is first
    assert sigv4.signing_key("s", "20261202", "us-east-1", "sts") != first
    assert sigv4.signing_key("t", "20261201", "us-east-1", "sts") != first
