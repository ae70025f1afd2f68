"""The pure parts of S3: checksums against published check values, bucket naming rules, ranges,
copy sources, and the aws-chunked decoder (botocore's own encoder as the oracle)."""

from __future__ import annotations

import base64
import hashlib
import io
import zlib

import pytest
from botocore.httpchecksum import AwsChunkedWrapper, Crc32Checksum

from onceflow.errors import ServiceError
from onceflow.s3 import checksums
from onceflow.s3.conditions import parse_copy_source, parse_range
from onceflow.s3.names import bucket_name_problem
from onceflow.wire.s3_body import ChunkedBody, PlainBody, Source


def _hex(value: str) -> str:
    return base64.b64decode(value).hex()


@pytest.mark.parametrize(("algorithm", "check"), [
    ("CRC32", "cbf43926"), ("CRC32C", "e3069283"), ("CRC64NVME", "ae8b14860a799888"),
    ("SHA1", hashlib.sha1(b"123456789").hexdigest()), ("SHA256", hashlib.sha256(b"123456789").hexdigest()),
])
def test_checksums_give_the_published_check_values(algorithm: str, check: str) -> None:
    assert _hex(checksums.of(algorithm, b"123456789")) == check
    d = checksums.new(algorithm)
    for piece in (b"1234", b"", b"56789"):
        d.update(piece)
    assert _hex(checksums.encoded(d)) == check  # piece by piece as a stream is read


def test_a_composite_checksum_is_of_the_parts_checksums() -> None:
    parts = [checksums.of("CRC32", b"a"), checksums.of("CRC32", b"b")]
    raw = b"".join(base64.b64decode(p) for p in parts)
    assert checksums.composite("CRC32", parts) == base64.b64encode(zlib.crc32(raw).to_bytes(4, "big")).decode() + "-2"


@pytest.mark.parametrize("name", ["abc", "my-bucket", "a.b.c", "0-9", "x" * 63])
def test_good_bucket_names(name: str) -> None:
    assert bucket_name_problem(name) is None


@pytest.mark.parametrize("name", ["ab", "x" * 64, "Upper", "under_score", "-a", "a-", "a..b", "a.-b", "10.0.0.1",
                                  "xn--abc", "sthree-x", "abc-s3alias", "abc--ol-s3", "bad name"])
def test_bad_bucket_names(name: str) -> None:
    assert bucket_name_problem(name) is not None


def test_ranges() -> None:
    assert parse_range("bytes=0-3", 10) == (0, 4)
    assert parse_range("bytes=5-", 10) == (5, 10)
    assert parse_range("bytes=-3", 10) == (7, 10)
    assert parse_range("bytes=-30", 10) == (0, 10)
    assert parse_range("bytes=2-100", 10) == (2, 10)
    assert parse_range("bytes=5-2", 10) is None  # ignored: the whole object
    assert parse_range("items=0-1", 10) is None
    with pytest.raises(ServiceError) as info:
        parse_range("bytes=10-", 10)
    assert (info.value.code, info.value.status) == ("InvalidRange", 416)


def test_copy_sources() -> None:
    assert parse_copy_source("b/dir/k%20x") == ("b", "dir/k x", None)
    assert parse_copy_source("/b/k?versionId=v1") == ("b", "k", "v1")
    with pytest.raises(ServiceError):
        parse_copy_source("just-a-bucket")


def _pieces(data: bytes, size: int) -> Source:
    chunks = [data[i:i + size] for i in range(0, len(data), size)]
    return Source(lambda: chunks.pop(0) if chunks else b"")


def _drain(body: object) -> bytes:
    out = b""
    while piece := body.read(1000):  # type: ignore[attr-defined]
        out += piece
    return out


@pytest.mark.parametrize("network_piece", [1, 7, 4096, 1 << 20])
def test_the_chunked_decoder_reads_what_botocore_encodes(network_piece: int) -> None:
    payload = bytes(range(256)) * 200
    encoded = AwsChunkedWrapper(io.BytesIO(payload), Crc32Checksum, "x-amz-checksum-crc32", chunk_size=3000).read()
    body = ChunkedBody(_pieces(encoded, network_piece), "STREAMING-UNSIGNED-PAYLOAD-TRAILER", len(payload), None, None)
    assert _drain(body) == payload
    assert body.trailers == {"x-amz-checksum-crc32": checksums.of("CRC32", payload)}


def test_a_truncated_chunked_body_is_incomplete() -> None:
    encoded = AwsChunkedWrapper(io.BytesIO(b"x" * 5000), chunk_size=1000).read()
    body = ChunkedBody(_pieces(encoded[:-40], 100), "STREAMING-UNSIGNED-PAYLOAD-TRAILER", 5000, None, None)
    with pytest.raises(ServiceError) as info:
        _drain(body)
    assert info.value.code == "IncompleteBody"


def test_a_plain_body_checks_its_hash_and_length() -> None:
    data = b"abc" * 1000
    assert _drain(PlainBody(_pieces(data, 100), len(data), hashlib.sha256(data).hexdigest())) == data
    with pytest.raises(ServiceError) as info:
        _drain(PlainBody(_pieces(data, 100), len(data), hashlib.sha256(b"other").hexdigest()))
    assert info.value.code == "XAmzContentSHA256Mismatch"
    with pytest.raises(ServiceError) as info:
        _drain(PlainBody(_pieces(data, 100), len(data) + 1, None))
    assert info.value.code == "IncompleteBody"
