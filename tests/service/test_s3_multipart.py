"""Multipart uploads through boto3: its managed transfers (upload_file/download_file), the
low-level calls with their errors, an upload interrupted and then aborted, the multipart ETag."""

from __future__ import annotations

import base64
import hashlib
import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from boto3.s3.transfer import TransferConfig
from botocore.exceptions import ClientError

MB = 1024 * 1024


@pytest.fixture(scope="module")
def s3(aws: Callable[..., Any]) -> Any:
    return aws("s3")


@pytest.fixture
def bucket(s3: Any) -> Iterator[str]:
    name = f"mpu-{uuid.uuid4().hex[:16]}"
    s3.create_bucket(Bucket=name)
    yield name


def _code(info: Any) -> str:
    return str(info.value.response["Error"]["Code"])


def test_upload_file_and_download_file_in_parts(s3: Any, bucket: str, tmp_path: Path) -> None:
    data = os.urandom(11 * MB)
    (tmp_path / "up.bin").write_bytes(data)
    config = TransferConfig(multipart_threshold=5 * MB, multipart_chunksize=5 * MB, max_concurrency=3)
    s3.upload_file(str(tmp_path / "up.bin"), bucket, "up.bin", Config=config)
    head = s3.head_object(Bucket=bucket, Key="up.bin")
    md5s = b"".join(hashlib.md5(data[i:i + 5 * MB]).digest() for i in range(0, len(data), 5 * MB))
    assert head["ETag"] == f'"{hashlib.md5(md5s).hexdigest()}-3"' and head["ContentLength"] == len(data)
    s3.download_file(bucket, "up.bin", str(tmp_path / "down.bin"), Config=config)  # ranged GETs in parallel
    assert (tmp_path / "down.bin").read_bytes() == data
    part2 = s3.get_object(Bucket=bucket, Key="up.bin", PartNumber=2)
    assert part2["Body"].read() == data[5 * MB:10 * MB] and part2["PartsCount"] == 3


def test_low_level_calls_and_their_errors(s3: Any, bucket: str) -> None:
    upload = s3.create_multipart_upload(Bucket=bucket, Key="m", ContentType="text/x-m", Metadata={"k": "v"})
    uid = upload["UploadId"]
    small = s3.upload_part(Bucket=bucket, Key="m", UploadId=uid, PartNumber=1, Body=b"a" * 100)
    last = s3.upload_part(Bucket=bucket, Key="m", UploadId=uid, PartNumber=2, Body=b"b" * 100)
    listed = s3.list_parts(Bucket=bucket, Key="m", UploadId=uid)
    assert [(p["PartNumber"], p["Size"]) for p in listed["Parts"]] == [(1, 100), (2, 100)]
    uploads = s3.list_multipart_uploads(Bucket=bucket)["Uploads"]
    assert [(u["Key"], u["UploadId"]) for u in uploads] == [("m", uid)]
    parts = [{"PartNumber": 1, "ETag": small["ETag"]}, {"PartNumber": 2, "ETag": last["ETag"]}]
    with pytest.raises(ClientError) as info:
        s3.complete_multipart_upload(Bucket=bucket, Key="m", UploadId=uid, MultipartUpload={"Parts": parts})
    assert _code(info) == "EntityTooSmall"
    with pytest.raises(ClientError) as info:
        s3.complete_multipart_upload(Bucket=bucket, Key="m", UploadId=uid,
                                     MultipartUpload={"Parts": list(reversed(parts))})
    assert _code(info) == "InvalidPartOrder"
    with pytest.raises(ClientError) as info:
        s3.complete_multipart_upload(Bucket=bucket, Key="m", UploadId=uid,
                                     MultipartUpload={"Parts": [{"PartNumber": 1, "ETag": '"00"'}]})
    assert _code(info) == "InvalidPart"
    with pytest.raises(ClientError) as info:
        s3.upload_part(Bucket=bucket, Key="m", UploadId=uid, PartNumber=10001, Body=b"x")
    assert _code(info) == "InvalidArgument"
    big = s3.upload_part(Bucket=bucket, Key="m", UploadId=uid, PartNumber=1, Body=b"a" * (5 * MB))  # replaces 1
    done = s3.complete_multipart_upload(Bucket=bucket, Key="m", UploadId=uid, MultipartUpload={
        "Parts": [{"PartNumber": 1, "ETag": big["ETag"]}, {"PartNumber": 2, "ETag": last["ETag"]}]})
    assert done["ETag"].endswith('-2"')
    got = s3.get_object(Bucket=bucket, Key="m")
    assert got["Body"].read() == b"a" * (5 * MB) + b"b" * 100
    assert got["ContentType"] == "text/x-m" and got["Metadata"] == {"k": "v"}
    with pytest.raises(ClientError) as info:
        s3.list_parts(Bucket=bucket, Key="m", UploadId=uid)
    assert _code(info) == "NoSuchUpload"


def test_an_interrupted_upload_leaves_no_object_and_aborts_cleanly(s3: Any, bucket: str) -> None:
    uid = s3.create_multipart_upload(Bucket=bucket, Key="half")["UploadId"]
    s3.upload_part(Bucket=bucket, Key="half", UploadId=uid, PartNumber=1, Body=os.urandom(5 * MB))
    # The client goes away here: the parts stay, no object exists, and the bucket is not empty.
    assert "Contents" not in s3.list_objects_v2(Bucket=bucket)
    with pytest.raises(ClientError) as info:
        s3.delete_bucket(Bucket=bucket)
    assert _code(info) == "BucketNotEmpty"
    s3.abort_multipart_upload(Bucket=bucket, Key="half", UploadId=uid)
    assert "Uploads" not in s3.list_multipart_uploads(Bucket=bucket)
    with pytest.raises(ClientError) as info:
        s3.abort_multipart_upload(Bucket=bucket, Key="half", UploadId=uid)
    assert _code(info) == "NoSuchUpload"
    s3.delete_bucket(Bucket=bucket)


def test_upload_part_copy(s3: Any, bucket: str) -> None:
    source = os.urandom(6 * MB)
    s3.put_object(Bucket=bucket, Key="source", Body=source)
    uid = s3.create_multipart_upload(Bucket=bucket, Key="copy")["UploadId"]
    src = {"Bucket": bucket, "Key": "source"}
    p1 = s3.upload_part_copy(Bucket=bucket, Key="copy", UploadId=uid, PartNumber=1, CopySource=src,
                             CopySourceRange=f"bytes=0-{5 * MB - 1}")
    p2 = s3.upload_part_copy(Bucket=bucket, Key="copy", UploadId=uid, PartNumber=2, CopySource=src,
                             CopySourceRange=f"bytes={5 * MB}-{6 * MB - 1}")
    etags = [p1["CopyPartResult"]["ETag"], p2["CopyPartResult"]["ETag"]]
    s3.complete_multipart_upload(Bucket=bucket, Key="copy", UploadId=uid, MultipartUpload={
        "Parts": [{"PartNumber": n, "ETag": e} for n, e in enumerate(etags, 1)]})
    assert s3.get_object(Bucket=bucket, Key="copy")["Body"].read() == source


def test_a_copied_part_carries_the_uploads_checksum_into_the_composite(s3: Any, bucket: str) -> None:
    s3.put_object(Bucket=bucket, Key="small-source", Body=b"0123456789")
    first = os.urandom(5 * MB)
    uid = s3.create_multipart_upload(Bucket=bucket, Key="summed", ChecksumAlgorithm="SHA256")["UploadId"]
    p1 = s3.upload_part(Bucket=bucket, Key="summed", UploadId=uid, PartNumber=1, Body=first, ChecksumAlgorithm="SHA256")
    p2 = s3.upload_part_copy(Bucket=bucket, Key="summed", UploadId=uid, PartNumber=2,
                             CopySource={"Bucket": bucket, "Key": "small-source"}, CopySourceRange="bytes=2-5")
    assert p2["CopyPartResult"]["ChecksumSHA256"] == base64.b64encode(hashlib.sha256(b"2345").digest()).decode()
    done = s3.complete_multipart_upload(Bucket=bucket, Key="summed", UploadId=uid, MultipartUpload={"Parts": [
        {"PartNumber": 1, "ETag": p1["ETag"], "ChecksumSHA256": p1["ChecksumSHA256"]},
        {"PartNumber": 2, "ETag": p2["CopyPartResult"]["ETag"],
         "ChecksumSHA256": p2["CopyPartResult"]["ChecksumSHA256"]}]})
    parts = base64.b64decode(p1["ChecksumSHA256"]) + base64.b64decode(p2["CopyPartResult"]["ChecksumSHA256"])
    assert done["ChecksumSHA256"] == base64.b64encode(hashlib.sha256(parts).digest()).decode() + "-2"
