"""SigV4a (AWS4-ECDSA-P256-SHA256) verification against botocore's CRT signer, which SDKs use for an
EventBridge global endpoint: the key derived from the secret must verify what the CRT signed, and
nothing else."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import pytest
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from botocore.crt.auth import CrtSigV4AsymAuth

from onceflow.wire import sigv4

SECRET = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
BODY = b'{"Entries":[{"Source":"s","DetailType":"d","Detail":"{}"}],"EndpointId":"abcde.veo"}'


def crt_signed(region_set: str = "*", body: bytes = BODY) -> dict[str, Any]:
    request = AWSRequest("POST", "http://127.0.0.1:4566/", data=body,
                         headers={"X-Amz-Target": "AWSEvents.PutEvents", "Content-Type": "application/x-amz-json-1.1"})
    CrtSigV4AsymAuth(Credentials("AKIAEXAMPLEEXAMPLE01", SECRET), "events", region_set).add_auth(request)
    prepared = request.prepare()
    parts = urlsplit(prepared.url)
    seen = {k.lower(): v for k, v in prepared.headers.items()}
    seen.setdefault("host", parts.netloc)
    return {"raw_path": parts.path or "/", "query_string": parts.query, "headers": seen,
            "body": prepared.body if isinstance(prepared.body, bytes) else (prepared.body or "").encode()}


def check(req: dict[str, Any], secret: str = SECRET) -> sigv4.Signed:
    signed = sigv4.read(req["headers"], req["query_string"])
    assert signed is not None
    sigv4.verify(secret, signed, "POST", req["raw_path"], req["query_string"], req["headers"], req["body"])
    return signed


def test_a_crt_signed_request_verifies_and_names_its_scope() -> None:
    req = crt_signed()
    assert req["headers"]["authorization"].startswith("AWS4-ECDSA-P256-SHA256 Credential=AKIAEXAMPLEEXAMPLE01/")
    signed = check(req)
    assert signed.algorithm == "AWS4-ECDSA-P256-SHA256"
    assert signed.scope == sigv4.Scope("AKIAEXAMPLEEXAMPLE01", "", "events")
    assert check(crt_signed("eu-west-1")).scope.region == "eu-west-1"


def test_another_secret_or_a_changed_request_does_not_verify() -> None:
    req = crt_signed()
    with pytest.raises(sigv4.Mismatch):
        check(req, secret=SECRET + "x")
    with pytest.raises(sigv4.Mismatch):
        check({**req, "body": req["body"].replace(b"abcde", b"abcdf")})
    with pytest.raises(sigv4.Mismatch):
        check({**req, "headers": {**req["headers"], "x-amz-region-set": "us-east-1"}})  # signed header changed
    broken = req["headers"]["authorization"][:-4] + "0000"
    with pytest.raises(sigv4.Mismatch):
        check({**req, "headers": {**req["headers"], "authorization": broken}})


def test_an_incomplete_sigv4a_header_is_malformed() -> None:
    req = crt_signed()
    headers = {k: v for k, v in req["headers"].items() if k != "x-amz-region-set"}
    with pytest.raises(sigv4.Malformed):
        sigv4.read(headers, "")
