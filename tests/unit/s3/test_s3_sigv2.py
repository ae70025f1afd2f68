"""S3's signature version 2 query authentication, with botocore's presigner as the oracle."""

from __future__ import annotations

from urllib.parse import urlsplit

import botocore.session
import pytest
from botocore.config import Config

from onceflow.wire import rest_xml, s3_sigv2


def _presigned(operation: str, params: dict[str, object], secret: str = "test") -> str:
    session = botocore.session.get_session()
    client = session.create_client("s3", region_name="us-east-1", endpoint_url="http://127.0.0.1:4566",
                                   aws_access_key_id="test", aws_secret_access_key=secret,
                                   config=Config(s3={"addressing_style": "path"}))
    return str(client.generate_presigned_url(operation, Params=params, ExpiresIn=600))


@pytest.mark.parametrize(("operation", "method", "params", "headers"), [
    ("get_object", "GET", {"Bucket": "b", "Key": "dir/a b+c.txt"}, {}),
    ("get_object", "GET", {"Bucket": "b", "Key": "k", "VersionId": "v1", "ResponseContentType": "text/csv"}, {}),
    ("put_object", "PUT", {"Bucket": "b", "Key": "k", "ContentType": "text/plain"}, {"content-type": "text/plain"}),
    ("upload_part", "PUT", {"Bucket": "b", "Key": "k", "UploadId": "u1", "PartNumber": 2}, {}),
])
def test_botocore_presigned_urls_verify(operation: str, method: str, params: dict[str, object],
                                        headers: dict[str, str]) -> None:
    url = urlsplit(_presigned(operation, params))
    signed = s3_sigv2.read(rest_xml.query_of(url.query))
    assert signed is not None and not s3_sigv2.expired(signed)
    text = s3_sigv2.string_to_sign(method, url.path, None, url.query, headers, signed.expires)
    assert s3_sigv2.valid("test", signed, text)
    assert not s3_sigv2.valid("other-secret", signed, text)
    tampered = s3_sigv2.string_to_sign(method, url.path + "x", None, url.query, headers, signed.expires)
    assert not s3_sigv2.valid("test", signed, tampered)


def test_an_expired_url_is_expired() -> None:
    signed = s3_sigv2.read({"AWSAccessKeyId": ["k"], "Signature": ["s"], "Expires": ["100"]})
    assert signed is not None and s3_sigv2.expired(signed, now=101) and not s3_sigv2.expired(signed, now=99)
