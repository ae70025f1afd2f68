"""Objects through boto3 against a real server: put/get/head/delete, metadata and system headers,
ranges, conditions, Content-MD5 and checksums, copies, batch deletes, listings, tags, attributes."""

from __future__ import annotations

import base64
import hashlib
import uuid
import zlib
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import botocore.config
import pytest
from botocore.exceptions import ClientError

# Clients that never send checksums they were not asked for, so a test decides each header itself.
PLAIN = botocore.config.Config(retries={"max_attempts": 1}, request_checksum_calculation="when_required",
                               response_checksum_validation="when_required")


@pytest.fixture(scope="module")
def s3(aws: Callable[..., Any]) -> Any:
    return aws("s3", config=PLAIN)


@pytest.fixture
def bucket(s3: Any) -> Iterator[str]:
    name = f"obj-{uuid.uuid4().hex[:16]}"
    s3.create_bucket(Bucket=name)
    yield name


def _code(info: Any) -> tuple[str, int]:
    response = info.value.response
    return response["Error"]["Code"], response["ResponseMetadata"]["HTTPStatusCode"]


def test_put_get_head_delete_round_trip_with_metadata(s3: Any, bucket: str) -> None:
    body = b"some bytes \x00\xff" * 100
    put = s3.put_object(Bucket=bucket, Key="a/b c+d.txt", Body=body, ContentType="text/plain",
                        Metadata={"Owner": "me"}, CacheControl="max-age=60", ContentDisposition="inline")
    assert put["ETag"] == f'"{hashlib.md5(body).hexdigest()}"'
    got = s3.get_object(Bucket=bucket, Key="a/b c+d.txt")
    assert got["Body"].read() == body
    assert got["ContentType"] == "text/plain" and got["Metadata"] == {"owner": "me"}
    assert got["CacheControl"] == "max-age=60" and got["ContentDisposition"] == "inline"
    assert got["ContentLength"] == len(body) and got["ETag"] == put["ETag"]
    head = s3.head_object(Bucket=bucket, Key="a/b c+d.txt")
    assert head["ContentLength"] == len(body) and head["Metadata"] == {"owner": "me"}
    assert abs(head["LastModified"] - datetime.now(UTC)) < timedelta(minutes=5)
    s3.delete_object(Bucket=bucket, Key="a/b c+d.txt")
    with pytest.raises(ClientError) as info:
        s3.get_object(Bucket=bucket, Key="a/b c+d.txt")
    assert _code(info) == ("NoSuchKey", 404)
    with pytest.raises(ClientError) as info:
        s3.head_object(Bucket=bucket, Key="a/b c+d.txt")
    assert _code(info) == ("404", 404)


def test_a_missing_bucket_and_bad_names(s3: Any) -> None:
    for body in (b"x", b"x" * (3 * 1024 * 1024)):  # the large one waits for 100-continue: refused unread
        with pytest.raises(ClientError) as info:
            s3.put_object(Bucket=f"nope-{uuid.uuid4().hex[:10]}", Key="k", Body=body)
        assert _code(info) == ("NoSuchBucket", 404)
    for bad in ("ab", "UPPER", "a..b", "192.168.1.1", "xn--abc", "-start"):
        with pytest.raises(ClientError) as info:
            s3.create_bucket(Bucket=bad)
        assert _code(info)[0] in ("InvalidBucketName",) and _code(info)[1] == 400


def test_a_key_over_1024_bytes_is_refused_and_nothing_is_stored(s3: Any, bucket: str) -> None:
    with pytest.raises(ClientError) as info:
        s3.put_object(Bucket=bucket, Key="k" * 1025, Body=b"x")
    assert _code(info) == ("KeyTooLongError", 400)
    s3.put_object(Bucket=bucket, Key="k" * 1024, Body=b"x")
    assert [o["Key"] for o in s3.list_objects_v2(Bucket=bucket)["Contents"]] == ["k" * 1024]


def test_byte_ranges(s3: Any, bucket: str) -> None:
    s3.put_object(Bucket=bucket, Key="r", Body=b"0123456789")
    cases = {"bytes=0-3": b"0123", "bytes=4-": b"456789", "bytes=-2": b"89", "bytes=8-100": b"89"}
    for spec, expected in cases.items():
        got = s3.get_object(Bucket=bucket, Key="r", Range=spec)
        assert got["Body"].read() == expected
        assert got["ResponseMetadata"]["HTTPStatusCode"] == 206
        assert got["ContentRange"].endswith("/10")
    with pytest.raises(ClientError) as info:
        s3.get_object(Bucket=bucket, Key="r", Range="bytes=10-20")
    assert _code(info) == ("InvalidRange", 416)


def test_read_conditions(s3: Any, bucket: str) -> None:
    etag = s3.put_object(Bucket=bucket, Key="c", Body=b"v1")["ETag"]
    assert s3.get_object(Bucket=bucket, Key="c", IfMatch=etag)["Body"].read() == b"v1"
    with pytest.raises(ClientError) as info:
        s3.get_object(Bucket=bucket, Key="c", IfMatch='"0000"')
    assert _code(info) == ("PreconditionFailed", 412)
    with pytest.raises(ClientError) as info:
        s3.get_object(Bucket=bucket, Key="c", IfNoneMatch=etag)
    assert _code(info)[1] == 304
    with pytest.raises(ClientError) as info:
        s3.get_object(Bucket=bucket, Key="c", IfModifiedSince=datetime.now(UTC) + timedelta(hours=1))
    assert _code(info)[1] == 304
    old = datetime.now(UTC) - timedelta(days=1)
    assert s3.get_object(Bucket=bucket, Key="c", IfModifiedSince=old)["Body"].read() == b"v1"


def test_conditional_writes(s3: Any, bucket: str) -> None:
    s3.put_object(Bucket=bucket, Key="once", Body=b"first", IfNoneMatch="*")
    with pytest.raises(ClientError) as info:
        s3.put_object(Bucket=bucket, Key="once", Body=b"second", IfNoneMatch="*")
    assert _code(info) == ("PreconditionFailed", 412)
    assert s3.get_object(Bucket=bucket, Key="once")["Body"].read() == b"first"
    with pytest.raises(ClientError) as info:
        s3.put_object(Bucket=bucket, Key="once", Body=b"third", IfMatch='"nope"')
    assert _code(info) == ("PreconditionFailed", 412)
    etag = s3.head_object(Bucket=bucket, Key="once")["ETag"]
    s3.put_object(Bucket=bucket, Key="once", Body=b"fourth", IfMatch=etag)
    assert s3.get_object(Bucket=bucket, Key="once")["Body"].read() == b"fourth"


def test_content_md5_and_checksums(s3: Any, aws: Callable[..., Any], bucket: str) -> None:
    body = b"checked body"
    good = base64.b64encode(hashlib.md5(body).digest()).decode()
    s3.put_object(Bucket=bucket, Key="md5", Body=body, ContentMD5=good)
    with pytest.raises(ClientError) as info:
        s3.put_object(Bucket=bucket, Key="md5-bad", Body=body, ContentMD5=base64.b64encode(b"0" * 16).decode())
    assert _code(info) == ("BadDigest", 400)
    with pytest.raises(ClientError) as info:
        s3.put_object(Bucket=bucket, Key="md5-bad", Body=body, ContentMD5="not-base64!")
    assert _code(info) == ("InvalidDigest", 400)
    crc = base64.b64encode(zlib.crc32(body).to_bytes(4, "big")).decode()
    s3.put_object(Bucket=bucket, Key="crc", Body=body, ChecksumCRC32=crc)
    with pytest.raises(ClientError) as info:
        s3.put_object(Bucket=bucket, Key="crc-bad", Body=body, ChecksumCRC32="AAAAAA==")
    assert _code(info) == ("BadDigest", 400)
    listed = [o["Key"] for o in s3.list_objects_v2(Bucket=bucket)["Contents"]]
    assert listed == ["crc", "md5"]  # nothing of the refused puts was stored
    head = s3.head_object(Bucket=bucket, Key="crc", ChecksumMode="ENABLED")
    assert head["ChecksumCRC32"] == crc
    # boto3's defaults: it computes a checksum of its own choosing and validates what comes back.
    default = aws("s3")
    for algorithm in ("CRC32", "SHA1", "SHA256"):  # CRC32C and CRC64NVME need awscrt in the client
        put = default.put_object(Bucket=bucket, Key=f"algo-{algorithm}", Body=body, ChecksumAlgorithm=algorithm)
        assert put[f"Checksum{algorithm}"]
        got = default.get_object(Bucket=bucket, Key=f"algo-{algorithm}", ChecksumMode="ENABLED")
        assert got["Body"].read() == body and got[f"Checksum{algorithm}"] == put[f"Checksum{algorithm}"]
    # The published check values of CRC32C and CRC64NVME ('123456789'), sent as headers.
    s3.put_object(Bucket=bucket, Key="crc32c", Body=b"123456789", ChecksumCRC32C="4waSgw==")
    s3.put_object(Bucket=bucket, Key="crc64", Body=b"123456789", ChecksumCRC64NVME="rosUhgp5mIg=")
    with pytest.raises(ClientError) as info:
        s3.put_object(Bucket=bucket, Key="crc64-bad", Body=b"12345678", ChecksumCRC64NVME="rosUhgp5mIg=")
    assert _code(info) == ("BadDigest", 400)


def test_copy_object_with_metadata_directives(s3: Any, bucket: str) -> None:
    s3.put_object(Bucket=bucket, Key="src", Body=b"payload", ContentType="text/x-src", Metadata={"a": "1"})
    copied = s3.copy_object(Bucket=bucket, Key="dst", CopySource={"Bucket": bucket, "Key": "src"})
    assert copied["CopyObjectResult"]["ETag"] == s3.head_object(Bucket=bucket, Key="src")["ETag"]
    dst = s3.get_object(Bucket=bucket, Key="dst")
    assert dst["Body"].read() == b"payload" and dst["Metadata"] == {"a": "1"} and dst["ContentType"] == "text/x-src"
    s3.copy_object(Bucket=bucket, Key="dst2", CopySource=f"{bucket}/src", MetadataDirective="REPLACE",
                   Metadata={"b": "2"}, ContentType="text/new")
    dst2 = s3.head_object(Bucket=bucket, Key="dst2")
    assert dst2["Metadata"] == {"b": "2"} and dst2["ContentType"] == "text/new"
    with pytest.raises(ClientError) as info:
        s3.copy_object(Bucket=bucket, Key="src", CopySource=f"{bucket}/src")
    assert _code(info) == ("InvalidRequest", 400)
    s3.delete_object(Bucket=bucket, Key="src")
    assert s3.get_object(Bucket=bucket, Key="dst")["Body"].read() == b"payload"  # a copy owns its body
    with pytest.raises(ClientError) as info:
        s3.copy_object(Bucket=bucket, Key="x", CopySource=f"{bucket}/src")
    assert _code(info) == ("NoSuchKey", 404)


def test_delete_objects(s3: Any, bucket: str) -> None:
    for key in ("d1", "d2", "d3"):
        s3.put_object(Bucket=bucket, Key=key, Body=b"x")
    out = s3.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": "d1"}, {"Key": "d2"}, {"Key": "missing"}]})
    assert sorted(d["Key"] for d in out["Deleted"]) == ["d1", "d2", "missing"]
    assert [o["Key"] for o in s3.list_objects_v2(Bucket=bucket)["Contents"]] == ["d3"]
    quiet = s3.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": "d3"}], "Quiet": True})
    assert "Deleted" not in quiet and s3.list_objects_v2(Bucket=bucket)["KeyCount"] == 0


def test_listings_with_prefix_delimiter_start_after_and_paging(s3: Any, bucket: str) -> None:
    keys = ["a/1", "a/2", "a/b/3", "b/1", "c", "d e", "z+1"]
    for key in keys:
        s3.put_object(Bucket=bucket, Key=key, Body=key.encode())
    everything = s3.list_objects_v2(Bucket=bucket)
    assert [o["Key"] for o in everything["Contents"]] == keys and everything["KeyCount"] == 7
    top = s3.list_objects_v2(Bucket=bucket, Delimiter="/")
    assert [p["Prefix"] for p in top["CommonPrefixes"]] == ["a/", "b/"]
    assert [o["Key"] for o in top["Contents"]] == ["c", "d e", "z+1"]
    under_a = s3.list_objects_v2(Bucket=bucket, Prefix="a/", Delimiter="/")
    assert [o["Key"] for o in under_a["Contents"]] == ["a/1", "a/2"]
    assert [p["Prefix"] for p in under_a["CommonPrefixes"]] == ["a/b/"]
    after = s3.list_objects_v2(Bucket=bucket, StartAfter="b/1")
    assert [o["Key"] for o in after["Contents"]] == ["c", "d e", "z+1"]
    pages = s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Delimiter="/",
                                                         PaginationConfig={"PageSize": 2})
    seen: list[str] = []
    for page in pages:
        assert page["KeyCount"] <= 2
        seen += [p["Prefix"] for p in page.get("CommonPrefixes", [])] + [o["Key"] for o in page.get("Contents", [])]
    assert sorted(seen) == ["a/", "b/", "c", "d e", "z+1"]
    v1 = s3.get_paginator("list_objects").paginate(Bucket=bucket, PaginationConfig={"PageSize": 3})
    assert [o["Key"] for page in v1 for o in page["Contents"]] == keys


def test_versions_and_delete_markers(s3: Any, bucket: str) -> None:
    s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled"})
    assert s3.get_bucket_versioning(Bucket=bucket)["Status"] == "Enabled"
    v1 = s3.put_object(Bucket=bucket, Key="v", Body=b"one")["VersionId"]
    v2 = s3.put_object(Bucket=bucket, Key="v", Body=b"two")["VersionId"]
    assert v1 != v2
    assert s3.get_object(Bucket=bucket, Key="v")["Body"].read() == b"two"
    assert s3.get_object(Bucket=bucket, Key="v", VersionId=v1)["Body"].read() == b"one"
    marker = s3.delete_object(Bucket=bucket, Key="v")
    assert marker["DeleteMarker"] is True
    with pytest.raises(ClientError) as info:
        s3.get_object(Bucket=bucket, Key="v")
    assert _code(info) == ("NoSuchKey", 404)
    with pytest.raises(ClientError) as info:
        s3.head_object(Bucket=bucket, Key="v")
    answered = info.value.response["ResponseMetadata"]["HTTPHeaders"]
    assert answered["x-amz-delete-marker"] == "true" and answered["x-amz-version-id"] == marker["VersionId"]
    listed = s3.list_object_versions(Bucket=bucket)
    assert [v["VersionId"] for v in listed["Versions"]] == [v2, v1]
    assert listed["DeleteMarkers"][0]["VersionId"] == marker["VersionId"] and listed["DeleteMarkers"][0]["IsLatest"]
    assert "Contents" not in s3.list_objects_v2(Bucket=bucket)
    pages = s3.get_paginator("list_object_versions").paginate(Bucket=bucket, PaginationConfig={"PageSize": 1})
    seen = [e["VersionId"] for page in pages for e in page.get("DeleteMarkers", []) + page.get("Versions", [])]
    assert seen == [marker["VersionId"], v2, v1]  # by (key, version) markers: each once, newest first
    s3.delete_object(Bucket=bucket, Key="v", VersionId=marker["VersionId"])  # undelete
    assert s3.get_object(Bucket=bucket, Key="v")["Body"].read() == b"two"
    s3.delete_object(Bucket=bucket, Key="v", VersionId=v2)
    assert s3.get_object(Bucket=bucket, Key="v")["Body"].read() == b"one"
    with pytest.raises(ClientError) as info:
        s3.get_object(Bucket=bucket, Key="v", VersionId=v2)
    assert _code(info) == ("NoSuchVersion", 404)


def test_object_tags_and_attributes(s3: Any, bucket: str) -> None:
    s3.put_object(Bucket=bucket, Key="t", Body=b"12345", Tagging="env=dev&team=x")
    assert sorted((t["Key"], t["Value"]) for t in s3.get_object_tagging(Bucket=bucket, Key="t")["TagSet"]) == \
        [("env", "dev"), ("team", "x")]
    s3.put_object_tagging(Bucket=bucket, Key="t", Tagging={"TagSet": [{"Key": "k", "Value": "v"}]})
    assert s3.get_object_tagging(Bucket=bucket, Key="t")["TagSet"] == [{"Key": "k", "Value": "v"}]
    assert s3.get_object(Bucket=bucket, Key="t")["TagCount"] == 1
    s3.delete_object_tagging(Bucket=bucket, Key="t")
    assert s3.get_object_tagging(Bucket=bucket, Key="t")["TagSet"] == []
    attrs = s3.get_object_attributes(Bucket=bucket, Key="t", ObjectAttributes=["ETag", "ObjectSize", "StorageClass"])
    assert attrs["ObjectSize"] == 5 and attrs["ETag"] == hashlib.md5(b"12345").hexdigest()
    assert attrs["StorageClass"] == "STANDARD"
