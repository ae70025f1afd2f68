"""S3's refusals of bad input against a real server: tag rules on every way of tagging, DTDs in XML
bodies, a DeleteObjects <Object> without a <Key>. Each refusal is AWS's code and status and changes nothing."""

from __future__ import annotations

import hashlib
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import botocore.config
import pytest
from botocore.auth import S3SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from botocore.exceptions import ClientError

PLAIN = botocore.config.Config(retries={"max_attempts": 1}, request_checksum_calculation="when_required",
                               response_checksum_validation="when_required")


@pytest.fixture(scope="module")
def s3(aws: Callable[..., Any]) -> Any:
    return aws("s3", config=PLAIN)


@pytest.fixture
def bucket(s3: Any) -> Iterator[str]:
    name = f"bad-{uuid.uuid4().hex[:16]}"
    s3.create_bucket(Bucket=name)
    yield name


def _error(info: Any) -> tuple[str, str, int]:
    response = info.value.response
    return response["Error"]["Code"], response["Error"]["Message"], response["ResponseMetadata"]["HTTPStatusCode"]


def _tags(pairs: dict[str, str]) -> dict[str, Any]:
    return {"TagSet": [{"Key": k, "Value": v} for k, v in pairs.items()]}


BAD_TAG_SETS = [
    ({"k" * 129: "v"}, "InvalidTag", "The TagKey you have provided is invalid"),
    ({"k": "v" * 257}, "InvalidTag", "The TagValue you have provided is invalid"),
    ({"aws:owner": "me"}, "InvalidTag", "Your TagKey cannot be prefixed with aws:"),
    ({f"k{i}": "v" for i in range(11)}, "BadRequest", "Object tags cannot be greater than 10"),
]


@pytest.mark.parametrize(("tags", "code", "message"), BAD_TAG_SETS)
def test_put_object_tagging_refuses_bad_tags_and_keeps_the_old_ones(s3: Any, bucket: str, tags: dict[str, str],
                                                                    code: str, message: str) -> None:
    s3.put_object(Bucket=bucket, Key="o", Body=b"x", Tagging="keep=1")
    with pytest.raises(ClientError) as info:
        s3.put_object_tagging(Bucket=bucket, Key="o", Tagging=_tags(tags))
    assert _error(info) == (code, message, 400)
    assert s3.get_object_tagging(Bucket=bucket, Key="o")["TagSet"] == [{"Key": "keep", "Value": "1"}]


def test_longest_tags_are_taken(s3: Any, bucket: str) -> None:
    tags = {"k" * 128: "v" * 256, **{f"k{i}": "" for i in range(9)}}
    s3.put_object(Bucket=bucket, Key="o", Body=b"x")
    s3.put_object_tagging(Bucket=bucket, Key="o", Tagging=_tags(tags))
    assert {t["Key"]: t["Value"] for t in s3.get_object_tagging(Bucket=bucket, Key="o")["TagSet"]} == tags
    s3.put_bucket_tagging(Bucket=bucket, Tagging=_tags({f"k{i}": "v" * 256 for i in range(50)}))
    assert len(s3.get_bucket_tagging(Bucket=bucket)["TagSet"]) == 50


def test_put_object_tagging_refuses_a_duplicate_key(s3: Any, bucket: str) -> None:
    s3.put_object(Bucket=bucket, Key="o", Body=b"x")
    tag_set = {"TagSet": [{"Key": "a", "Value": "1"}, {"Key": "a", "Value": "2"}]}
    with pytest.raises(ClientError) as info:
        s3.put_object_tagging(Bucket=bucket, Key="o", Tagging=tag_set)
    assert _error(info) == ("InvalidTag", "Cannot provide multiple Tags with the same key", 400)
    assert info.value.response["Error"]["TagKey"] == "a"
    assert s3.get_object_tagging(Bucket=bucket, Key="o")["TagSet"] == []


@pytest.mark.parametrize(("tags", "code", "message"), [
    ({"k" * 129: "v"}, "InvalidTag", "The TagKey you have provided is invalid"),
    ({"k": "v" * 257}, "InvalidTag", "The TagValue you have provided is invalid"),
    ({"aws:owner": "me"}, "InvalidTag", "System tags cannot be added/updated by requester"),
    ({f"k{i}": "v" for i in range(51)}, "BadRequest", "Bucket tag count cannot be greater than 50"),
])
def test_put_bucket_tagging_refuses_bad_tags_and_keeps_the_old_ones(s3: Any, bucket: str, tags: dict[str, str],
                                                                    code: str, message: str) -> None:
    s3.put_bucket_tagging(Bucket=bucket, Tagging=_tags({"keep": "1"}))
    with pytest.raises(ClientError) as info:
        s3.put_bucket_tagging(Bucket=bucket, Tagging=_tags(tags))
    assert _error(info) == (code, message, 400)
    assert s3.get_bucket_tagging(Bucket=bucket)["TagSet"] == [{"Key": "keep", "Value": "1"}]


def test_put_bucket_tagging_refuses_a_duplicate_key(s3: Any, bucket: str) -> None:
    tag_set = {"TagSet": [{"Key": "a", "Value": "1"}, {"Key": "a", "Value": "2"}]}
    with pytest.raises(ClientError) as info:
        s3.put_bucket_tagging(Bucket=bucket, Tagging=tag_set)
    assert _error(info) == ("InvalidTag", "Cannot provide multiple Tags with the same key", 400)


HEADER_CASES = [
    (f"{'k' * 129}=v", "InvalidTag", "The TagKey you have provided is invalid"),
    (f"k={'v' * 257}", "InvalidTag", "The TagValue you have provided is invalid"),
    ("aws%3Aowner=me", "InvalidTag", "Your TagKey cannot be prefixed with aws:"),
    ("&".join(f"k{i}=v" for i in range(11)), "BadRequest", "Object tags cannot be greater than 10"),
    ("a=1&a=2", "InvalidArgument", "The header 'x-amz-tagging' shall be encoded as UTF-8 then URLEncoded URL "
                                   "query parameters without tag name duplicates."),
]


@pytest.mark.parametrize(("header", "code", "message"), HEADER_CASES)
def test_tagging_header_is_checked_on_every_write(s3: Any, bucket: str, header: str, code: str, message: str) -> None:
    s3.put_object(Bucket=bucket, Key="src", Body=b"x")
    writes: list[Callable[[], Any]] = [
        lambda: s3.put_object(Bucket=bucket, Key="o", Body=b"x", Tagging=header),
        lambda: s3.copy_object(Bucket=bucket, Key="o", CopySource={"Bucket": bucket, "Key": "src"},
                               TaggingDirective="REPLACE", Tagging=header),
        lambda: s3.create_multipart_upload(Bucket=bucket, Key="o", Tagging=header),
    ]
    for write in writes:
        with pytest.raises(ClientError) as info:
            write()
        assert _error(info) == (code, message, 400)
    assert [o["Key"] for o in s3.list_objects_v2(Bucket=bucket).get("Contents", [])] == ["src"]
    assert s3.list_multipart_uploads(Bucket=bucket).get("Uploads", []) == []


def _signed(endpoint: str, method: str, path: str, body: bytes) -> tuple[int, bytes]:
    """A request signed with test/test as an SDK would sign it, whatever its body holds."""
    request = AWSRequest(method=method, url=f"{endpoint}{path}", data=body,
                         headers={"x-amz-content-sha256": hashlib.sha256(body).hexdigest()})
    S3SigV4Auth(Credentials("test", "test"), "s3", "us-east-1").add_auth(request)
    raw = urllib.request.Request(request.url, data=body, method=method, headers=dict(request.headers.items()))
    try:
        with urllib.request.urlopen(raw, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as err:
        return err.code, err.read()


TAGGING_WITH_ENTITY = (b'<?xml version="1.0"?><!DOCTYPE Tagging [<!ENTITY name "expanded">]>'
                       b"<Tagging><TagSet><Tag><Key>k</Key><Value>&name;</Value></Tag></TagSet></Tagging>")


def test_a_body_declaring_a_dtd_is_malformed_and_changes_nothing(s3: Any, endpoint: str, bucket: str) -> None:
    s3.put_object(Bucket=bucket, Key="o", Body=b"x")
    status, body = _signed(endpoint, "PUT", f"/{bucket}/o?tagging", TAGGING_WITH_ENTITY)
    assert status == 400 and b"<Code>MalformedXML</Code>" in body
    assert s3.get_object_tagging(Bucket=bucket, Key="o")["TagSet"] == []
    status, body = _signed(endpoint, "PUT", f"/{bucket}?tagging", TAGGING_WITH_ENTITY)
    assert status == 400 and b"<Code>MalformedXML</Code>" in body
    with pytest.raises(ClientError) as info:
        s3.get_bucket_tagging(Bucket=bucket)
    assert info.value.response["Error"]["Code"] == "NoSuchTagSet"


def test_xml_without_a_dtd_still_reads_its_own_entities(s3: Any, endpoint: str, bucket: str) -> None:
    s3.put_object(Bucket=bucket, Key="o", Body=b"x")
    doc = (b'<Tagging xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><TagSet><Tag><Key>a&amp;b</Key>'
           b"<Value>&#233;</Value></Tag></TagSet></Tagging>")
    status, _ = _signed(endpoint, "PUT", f"/{bucket}/o?tagging", doc)
    assert status == 200
    assert s3.get_object_tagging(Bucket=bucket, Key="o")["TagSet"] == [{"Key": "a&b", "Value": "\u00e9"}]


def test_delete_objects_with_an_object_without_a_key_is_malformed(s3: Any, endpoint: str, bucket: str) -> None:
    s3.put_object(Bucket=bucket, Key="keep", Body=b"x")
    doc = b"<Delete><Object><Key>keep</Key></Object><Object><VersionId>null</VersionId></Object></Delete>"
    status, body = _signed(endpoint, "POST", f"/{bucket}?delete", doc)
    assert status == 400 and b"<Code>MalformedXML</Code>" in body
    assert [o["Key"] for o in s3.list_objects_v2(Bucket=bucket)["Contents"]] == ["keep"]
