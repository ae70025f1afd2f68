"""S3 on the wire with plain HTTP: presigned GET and PUT URLs used with urllib (expired, tampered),
virtual-hosted-style addressing, aws-chunked uploads (signed chunks, unsigned with a trailing
checksum), S3's XML errors, and a body that does not match its x-amz-content-sha256."""

from __future__ import annotations

import base64
import hashlib
import hmac
import http.client
import io
import time
import urllib.error
import urllib.request
import uuid
import zlib
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit
from xml.etree import ElementTree

import botocore.config
import pytest
from botocore.auth import S3SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from botocore.httpchecksum import AwsChunkedWrapper, Crc32Checksum

from serverproc import ServerProcess

SEED = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD"


@pytest.fixture(scope="module")
def strict(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server that checks every signature (--enforce-iam: test/test is the root, verified)."""
    proc = ServerProcess(tmp_path_factory.mktemp("strict"), extra_args=("--enforce-iam",)).start()
    yield proc
    proc.kill()


@pytest.fixture(scope="module")
def s3(strict: ServerProcess) -> Any:
    return strict.client("s3")


@pytest.fixture
def bucket(s3: Any) -> str:
    name = f"wire-{uuid.uuid4().hex[:16]}"
    s3.create_bucket(Bucket=name)
    return name


def _http(method: str, url: str, body: bytes | None = None,
          headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, {k.lower(): v for k, v in response.headers.items()}, response.read()
    except urllib.error.HTTPError as err:
        return err.code, {k.lower(): v for k, v in err.headers.items()}, err.read()


def _error(body: bytes) -> tuple[str, str]:
    root = ElementTree.fromstring(body)
    assert root.tag == "Error" and root.findtext("RequestId")
    return root.findtext("Code") or "", root.findtext("Message") or ""


class _Claiming(S3SigV4Auth):
    """botocore's S3 signer, with the payload hash the test claims (a seed, a wrong hash)."""

    def __init__(self, claimed: str | None) -> None:
        super().__init__(Credentials("test", "test"), "s3", "us-east-1")
        self.claimed = claimed

    def payload(self, request: Any) -> str:
        return self.claimed if self.claimed is not None else super().payload(request)


def _signed(method: str, url: str, body: bytes, headers: dict[str, str]) -> dict[str, str]:
    """Headers signed as botocore signs S3 requests; an x-amz-content-sha256 given is kept as claimed."""
    headers = dict(headers)
    claimed = headers.pop("x-amz-content-sha256", None)
    request = AWSRequest(method, url, data=body, headers=headers)
    _Claiming(claimed).add_auth(request)
    return dict(request.headers.items())


@pytest.mark.parametrize("version", ["default", "s3v4"])
def test_presigned_get_and_put_from_plain_http(strict: ServerProcess, bucket: str, version: str) -> None:
    """boto3's presigner makes signature version 2 URLs for S3 by default, SigV4 ones when told."""
    config = botocore.config.Config(signature_version="s3v4") if version == "s3v4" else None
    s3 = strict.client("s3", config=config)
    put_url = s3.generate_presigned_url("put_object", ExpiresIn=300,
                                        Params={"Bucket": bucket, "Key": "pre/up.txt", "ContentType": "text/plain"})
    assert ("X-Amz-Signature=" in put_url) == (version == "s3v4")
    status, _, answer = _http("PUT", put_url, b"uploaded through a URL", {"Content-Type": "text/plain"})
    assert status == 200, answer
    get_url = s3.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": "pre/up.txt"}, ExpiresIn=300)
    status, headers, body = _http("GET", get_url)
    assert (status, body) == (200, b"uploaded through a URL")
    assert headers["etag"] == f'"{hashlib.md5(b"uploaded through a URL").hexdigest()}"'
    assert headers["content-type"] == "text/plain"


@pytest.mark.parametrize("version", ["default", "s3v4"])
def test_a_tampered_or_expired_url_is_refused_and_stores_nothing(strict: ServerProcess, bucket: str,
                                                                 version: str) -> None:
    config = botocore.config.Config(signature_version="s3v4") if version == "s3v4" else None
    s3 = strict.client("s3", config=config)
    put_url = s3.generate_presigned_url("put_object", Params={"Bucket": bucket, "Key": "ok"}, ExpiresIn=300)
    tampered = put_url.replace("/ok?", "/other?")
    status, _, body = _http("PUT", tampered, b"x", {"Content-Type": ""})
    assert status == 403 and _error(body)[0] == "SignatureDoesNotMatch"
    expired = s3.generate_presigned_url("put_object", Params={"Bucket": bucket, "Key": "late"}, ExpiresIn=1)
    time.sleep(2)
    status, _, body = _http("PUT", expired, b"x", {"Content-Type": ""})
    assert status == 403 and _error(body) == ("AccessDenied", "Request has expired")
    assert "Contents" not in s3.list_objects_v2(Bucket=bucket)


def _vhost(strict: ServerProcess, method: str, bucket: str, path: str, body: bytes) -> tuple[int, bytes]:
    """A request to http://<bucket>.localhost:<port><path>, sent to the loopback address (this
    machine's resolver may not know *.localhost names) with that Host, signed for it."""
    port = urlsplit(strict.url).port
    host = f"{bucket}.localhost:{port}"
    headers = _signed(method, f"http://{host}{path}", body, {})
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        connection.request(method, path, body=body or None, headers={**headers, "Host": host})
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def test_virtual_hosted_style_addressing(strict: ServerProcess, s3: Any, bucket: str) -> None:
    status, answer = _vhost(strict, "PUT", bucket, "/v/hosted%20file.txt", b"virtual")
    assert status == 200, answer
    assert s3.get_object(Bucket=bucket, Key="v/hosted file.txt")["Body"].read() == b"virtual"
    assert _vhost(strict, "GET", bucket, "/v/hosted%20file.txt", b"") == (200, b"virtual")
    status, listing = _vhost(strict, "GET", bucket, "/?list-type=2", b"")
    keys = [e.text for e in ElementTree.fromstring(listing).iter("{http://s3.amazonaws.com/doc/2006-03-01/}Key")]
    assert status == 200 and keys == ["v/hosted file.txt"]


def test_a_body_that_does_not_match_its_hash_is_refused(strict: ServerProcess, s3: Any, bucket: str) -> None:
    url = f"{strict.url}/{bucket}/hashed"
    headers = _signed("PUT", url, b"the real body", {"x-amz-content-sha256": hashlib.sha256(b"other").hexdigest()})
    status, _, body = _http("PUT", url, b"the real body", headers)
    assert status == 400 and _error(body)[0] == "XAmzContentSHA256Mismatch"
    unsigned = {"x-amz-content-sha256": hashlib.sha256(b"").hexdigest()}
    status, _, body = _http("GET", f"{strict.url}/{bucket}/hashed", None, unsigned)
    assert status == 403 and _error(body)[0] == "AccessDenied"  # no signature at all
    assert "Contents" not in s3.list_objects_v2(Bucket=bucket)


def _chunk_signature(previous: str, data: bytes, amz_date: str) -> str:
    """The chunk signature as AWS's "Signature Calculations for the Authorization Header:
    Transferring Payload in Multiple Chunks" defines it."""
    date = amz_date[:8]
    key = (b"AWS4test")
    for part in (date, "us-east-1", "s3", "aws4_request"):
        key = hmac.digest(key, part.encode(), "sha256")
    text = "\n".join(["AWS4-HMAC-SHA256-PAYLOAD", amz_date, f"{date}/us-east-1/s3/aws4_request", previous,
                      hashlib.sha256(b"").hexdigest(), hashlib.sha256(data).hexdigest()])
    return hmac.new(key, text.encode(), hashlib.sha256).hexdigest()


def _signed_chunks(payload: bytes, url: str, size: int = 64 * 1024,
                   corrupt: bool = False) -> tuple[bytes, dict[str, str]]:
    chunks = [payload[i:i + size] for i in range(0, len(payload), size)] + [b""]
    encoded_length = sum(len(f"{len(c):x};chunk-signature={'0' * 64}\r\n") + len(c) + 2 for c in chunks)
    headers = _signed("PUT", url, b"", {"x-amz-content-sha256": SEED, "content-encoding": "aws-chunked",
                                        "x-amz-decoded-content-length": str(len(payload)),
                                        "content-length": str(encoded_length)})
    previous = headers["Authorization"].rsplit("Signature=", 1)[1]
    out = io.BytesIO()
    for chunk in chunks:
        signature = _chunk_signature(previous, chunk, headers["X-Amz-Date"])
        sent = chunk[:-1] + b"!" if corrupt and chunk else chunk
        out.write(f"{len(chunk):x};chunk-signature={signature}\r\n".encode() + sent + b"\r\n")
        previous = signature
    return out.getvalue(), headers


def test_signed_aws_chunked_upload(strict: ServerProcess, s3: Any, bucket: str) -> None:
    payload = bytes(range(256)) * 1000
    url = f"{strict.url}/{bucket}/chunked"
    body, headers = _signed_chunks(payload, url)
    status, _, answer = _http("PUT", url, body, headers)
    assert status == 200, answer
    assert s3.get_object(Bucket=bucket, Key="chunked")["Body"].read() == payload
    body, headers = _signed_chunks(payload, f"{strict.url}/{bucket}/corrupt", corrupt=True)
    status, _, answer = _http("PUT", f"{strict.url}/{bucket}/corrupt", body, headers)
    assert status == 403 and _error(answer)[0] == "SignatureDoesNotMatch"
    assert [o["Key"] for o in s3.list_objects_v2(Bucket=bucket)["Contents"]] == ["chunked"]


def test_unsigned_payload_with_a_trailing_checksum(strict: ServerProcess, s3: Any, bucket: str) -> None:
    payload = b"trailer checked " * 5000
    for key, data in (("trailed", payload), ("bad-trailer", None)):
        wrapper = AwsChunkedWrapper(io.BytesIO(payload), Crc32Checksum, "x-amz-checksum-crc32", chunk_size=16384)
        body = wrapper.read()
        if data is None:  # the trailer no longer matches the body
            body = body.replace(base64.b64encode(zlib.crc32(payload).to_bytes(4, "big")), b"AAAAAA==")
        url = f"{strict.url}/{bucket}/{key}"
        headers = _signed("PUT", url, b"", {
            "x-amz-content-sha256": "STREAMING-UNSIGNED-PAYLOAD-TRAILER", "content-encoding": "aws-chunked",
            "x-amz-trailer": "x-amz-checksum-crc32", "x-amz-decoded-content-length": str(len(payload)),
            "content-length": str(len(body))})
        status, _, answer = _http("PUT", url, body, headers)
        if data is None:
            assert status == 400 and _error(answer)[0] == "BadDigest"
        else:
            assert status == 200, answer
    got = s3.get_object(Bucket=bucket, Key="trailed", ChecksumMode="ENABLED")
    assert got["Body"].read() == payload
    assert got["ChecksumCRC32"] == base64.b64encode(zlib.crc32(payload).to_bytes(4, "big")).decode()
    assert [o["Key"] for o in s3.list_objects_v2(Bucket=bucket)["Contents"]] == ["trailed"]


def test_unknown_methods_and_errors_are_s3_xml(strict: ServerProcess, bucket: str) -> None:
    url = f"{strict.url}/{bucket}/k"
    headers = _signed("PATCH", url, b"", {"x-amz-content-sha256": hashlib.sha256(b"").hexdigest()})
    status, _, body = _http("PATCH", url, b"", headers)
    assert status == 405 and _error(body)[0] == "MethodNotAllowed"
    missing = f"{strict.url}/{bucket}/missing"
    headers = _signed("GET", missing, b"", {"x-amz-content-sha256": hashlib.sha256(b"").hexdigest()})
    status, _, body = _http("GET", missing, None, headers)
    root = ElementTree.fromstring(body)
    assert status == 404 and root.findtext("Code") == "NoSuchKey" and root.findtext("Key") == "missing"

